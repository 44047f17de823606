"""The Perceptron estimator: behaviour, both twins, labels, state, persistence, bad input."""
import pickle

import numpy as np
import pytest

from perceptron_c import Perceptron, _backend

try:
    import scipy.sparse as sp
except ImportError:  # the numpy-only job
    sp = None

needs_scipy = pytest.mark.skipif(sp is None, reason="scipy not installed")


def separable(rng, n=200, d=5, margin=0.2):
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = rng.normal(size=(4 * n, d))
    s = X @ u
    X = X[np.abs(s) > margin][:n]
    return X, np.where(X @ u > 0, 1, -1)


def noisy_blobs(rng, n=300, d=6, k=3, spread=1.0):
    centers = rng.normal(scale=spread, size=(k, d))
    y = rng.integers(0, k, n)
    return centers[y] + rng.normal(size=(n, d)), y


def same_model(a, b):
    assert np.array_equal(a.coef_, b.coef_) and np.array_equal(a.intercept_, b.intercept_)
    assert np.array_equal(a.mistakes_, b.mistakes_) and a.n_iter_ == b.n_iter_


CONFIGS = [
    dict(),
    dict(average=True),
    dict(normalize=True),
    dict(fit_intercept=False, average=True),
    dict(multiclass="ovr"),
    dict(multiclass="ovr", average=True, normalize=True),
]


@pytest.mark.parametrize("params", CONFIGS)
def test_twins_train_identical_models(rng, params):
    from conftest import _module

    _module("c", "_linear")
    X, y = noisy_blobs(rng, 150, 5, 3)
    models = []
    for name in ("c", "python"):
        with _backend.using(name):
            m = Perceptron(max_iter=6, random_state=3, **params).fit(X, y)
            models.append((m, m.decision_function(X)))
    same_model(models[0][0], models[1][0])
    assert np.array_equal(models[0][1], models[1][1])


def test_stops_after_an_error_free_epoch(model_backend, rng):
    X, y = separable(rng)
    m = Perceptron(random_state=0).fit(X, y)
    assert m.converged_ and m.mistakes_[-1] == 0 and np.all(m.mistakes_[:-1] > 0)
    assert m.n_iter_ == len(m.mistakes_) < 1000
    assert m.score(X, y) == 1.0


def test_max_iter_caps_non_separable(model_backend, rng):
    X, y = separable(rng)
    y[:10] = -y[:10]
    m = Perceptron(max_iter=7, random_state=0).fit(X, y)
    assert m.n_iter_ == 7 and not m.converged_ and np.all(m.mistakes_ > 0)


def test_labels_of_any_type(model_backend, rng):
    X, y = separable(rng)
    names = np.where(y > 0, "spam", "ham")
    m = Perceptron(random_state=0).fit(X, names)
    assert m.classes_.tolist() == ["ham", "spam"]
    d = m.decision_function(X)
    assert d.shape == (len(X),)
    assert np.array_equal(m.predict(X), np.where(d > 0, "spam", "ham"))  # classes_[1] is +1
    m2 = Perceptron(random_state=0).fit(X, y)  # -1 < 1, so the same mapping
    assert np.array_equal(m.coef_, m2.coef_)
    m3 = Perceptron(random_state=0).fit(X, list(np.where(y > 0, 7, 2)))
    assert m3.classes_.tolist() == [2, 7] and np.array_equal(m3.coef_, m2.coef_)


def test_shuffle_is_reproducible_and_matters(rng):
    X, y = noisy_blobs(rng, 200, 4, 2)
    a = Perceptron(max_iter=5, random_state=1).fit(X, y)
    b = Perceptron(max_iter=5, random_state=1).fit(X, y)
    c = Perceptron(max_iter=5, random_state=2).fit(X, y)
    d = Perceptron(max_iter=5, shuffle=False).fit(X, y)
    same_model(a, b)
    assert not np.array_equal(a.coef_, c.coef_) and not np.array_equal(a.coef_, d.coef_)


def test_unshuffled_fit_is_the_routine_in_row_order(rng):
    from perceptron_c._core import _linear_py

    X, y = noisy_blobs(rng, 60, 3, 2)
    m = Perceptron(max_iter=3, shuffle=False).fit(X, y)
    w, b = np.zeros(3), np.zeros(1)
    s = np.where(y == 1, 1.0, -1.0)
    for _ in range(3):
        _linear_py.perceptron_epoch_dense(X, s, np.arange(60), w, b, True, False)
    assert np.array_equal(m.coef_[0], w) and np.array_equal(m.intercept_, b)


@pytest.mark.parametrize("params", CONFIGS)
def test_partial_fit_epochs_equal_fit(model_backend, rng, params):
    X, y = noisy_blobs(rng, 120, 4, 3)
    full = Perceptron(max_iter=4, random_state=5, **params).fit(X, y)
    part = Perceptron(random_state=5, **params)
    for _ in range(4):
        part.partial_fit(X, y, classes=np.unique(y))
    same_model(full, part)


@pytest.mark.parametrize("params", CONFIGS)
def test_warm_start_continues(rng, params):
    X, y = noisy_blobs(rng, 120, 4, 3)
    full = Perceptron(max_iter=5, random_state=5, **params).fit(X, y)
    warm = Perceptron(max_iter=2, random_state=5, warm_start=True, **params).fit(X, y)
    warm.set_params(max_iter=3).fit(X, y)
    assert np.array_equal(full.coef_, warm.coef_)
    assert np.array_equal(full.mistakes_[2:], warm.mistakes_)
    cold = Perceptron(max_iter=2, random_state=5, **params).fit(X, y)
    cold.set_params(max_iter=3).fit(X, y)  # without warm_start: starts over
    assert np.array_equal(cold.coef_, Perceptron(max_iter=3, random_state=5, **params)
                          .fit(X, y).coef_)


def test_partial_fit_needs_classes_and_keeps_them(rng):
    X, y = noisy_blobs(rng, 50, 3, 3)
    m = Perceptron()
    with pytest.raises(ValueError, match="classes"):
        m.partial_fit(X, y)
    m.partial_fit(X[y != 2], y[y != 2], classes=[0, 1, 2])  # a batch may miss a class
    assert m.coef_.shape == (3, 3)
    with pytest.raises(ValueError, match="not in classes"):
        m.partial_fit(X, y + 5)
    with pytest.raises(ValueError, match="features"):
        m.partial_fit(X[:, :2], y)


def test_partial_fit_classes_may_repeat(rng):
    """classes=y is classes=np.unique(y), as in scikit-learn (repeats were refused)."""
    X, y = noisy_blobs(rng, 50, 3, 3)
    labels = np.array(["neg", "pos", "mid"])[y]
    a, b = Perceptron(), Perceptron()
    a.partial_fit(X, labels, classes=labels)
    b.partial_fit(X, labels, classes=np.unique(labels))
    assert np.array_equal(a.classes_, b.classes_) and np.array_equal(a.coef_, b.coef_)
    a.partial_fit(X, labels, classes=labels[::-1])  # the same set again: accepted
    with pytest.raises(ValueError, match="at least 2 distinct"):
        Perceptron().partial_fit(X, labels, classes=["pos", "pos"])


def test_averaged_differs_from_last_and_is_the_mean(rng):
    X, y = noisy_blobs(rng, 80, 3, 2)
    m = Perceptron(max_iter=3, shuffle=False, average=True).fit(X, y)
    last = Perceptron(max_iter=3, shuffle=False).fit(X, y)
    assert not np.allclose(m.coef_, last.coef_)
    # brute force: mean of the weight vectors after every example (and w_0 = 0)
    s = np.where(y == 1, 1.0, -1.0)
    w, b, ws, bs = np.zeros(3), 0.0, [np.zeros(3)], [0.0]
    for _ in range(3):
        for i in range(80):
            if s[i] * (X[i] @ w + b) <= 0:
                w, b = w + s[i] * X[i], b + s[i]
            ws.append(w)
            bs.append(b)
    assert np.allclose(m.coef_[0], np.mean(ws, axis=0), rtol=1e-10, atol=1e-10)
    assert np.isclose(m.intercept_[0], np.mean(bs), rtol=1e-10, atol=1e-10)


def test_multiclass_argmax_and_ovr(model_backend, rng):
    X, y = noisy_blobs(rng, 300, 6, 4, spread=3.0)
    a = Perceptron(max_iter=20, random_state=0).fit(X, y)
    o = Perceptron(max_iter=20, random_state=0, multiclass="ovr").fit(X, y)
    for m in (a, o):
        d = m.decision_function(X)
        assert d.shape == (300, 4) and m.coef_.shape == (4, 6)
        assert np.array_equal(m.predict(X), m.classes_[np.argmax(d, axis=1)])
        assert m.score(X, y) > 0.8
    assert not np.array_equal(a.coef_, o.coef_)


def test_two_classes_train_binary_whatever_multiclass(rng):
    X, y = noisy_blobs(rng, 100, 3, 2)
    a = Perceptron(random_state=0, max_iter=5).fit(X, y)
    o = Perceptron(random_state=0, max_iter=5, multiclass="ovr").fit(X, y)
    same_model(a, o)
    assert a.coef_.shape == (1, 3)


def test_normalize_ignores_row_scale(rng):
    # scaling rows by powers of two leaves x/||x|| bit-identical, so the run is identical
    X, y = separable(rng, 150, 4)
    scaled = X * 2.0 ** rng.integers(-6, 7, size=(len(X), 1))
    a = Perceptron(normalize=True, fit_intercept=False, random_state=0).fit(X, y)
    b = Perceptron(normalize=True, fit_intercept=False, random_state=0).fit(scaled, y)
    assert np.array_equal(a.mistakes_, b.mistakes_) and np.array_equal(a.coef_, b.coef_)


def test_float32_is_kept_and_agrees_on_integer_data(model_backend, rng):
    X = rng.integers(-4, 5, size=(100, 6)).astype(np.float64)
    y = (X @ rng.normal(size=6) > 0).astype(int)
    a = Perceptron(random_state=0, max_iter=20, average=True).fit(X, y)
    b = Perceptron(random_state=0, max_iter=20, average=True).fit(X.astype(np.float32), y)
    same_model(a, b)
    c = Perceptron(random_state=0, max_iter=20, average=True).fit(X.astype(np.int16), y)
    same_model(a, c)


@needs_scipy
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("params", [dict(), dict(average=True, normalize=True)])
def test_sparse_equals_dense_on_integer_data(model_backend, rng, fmt, params):
    X = rng.integers(-3, 4, size=(120, 30)) * (rng.random((120, 30)) < 0.2)
    X = X.astype(np.float64)
    y = rng.integers(0, 3, 120)
    Xs = sp.csr_matrix(X).asformat(fmt)
    a = Perceptron(random_state=0, max_iter=10, **params).fit(X, y)
    b = Perceptron(random_state=0, max_iter=10, **params).fit(Xs, y)
    same_model(a, b) if not params else np.testing.assert_allclose(a.coef_, b.coef_,
                                                                   rtol=1e-12, atol=1e-12)
    assert np.array_equal(a.predict(X), b.predict(Xs))
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(Xs), rtol=1e-12,
                               atol=1e-12)


@needs_scipy
def test_sparse_duplicates_are_summed(rng):
    X = sp.csr_matrix((np.array([1.0, 2.0, 4.0]), np.array([0, 0, 1]), np.array([0, 2, 3])),
                      shape=(2, 2))
    dense = np.array([[3.0, 0.0], [0.0, 4.0]])
    y = [0, 1]
    a = Perceptron(normalize=True, shuffle=False).fit(X, y)
    b = Perceptron(normalize=True, shuffle=False).fit(dense, y)
    assert np.array_equal(a.coef_, b.coef_)


def test_the_gate_finds_a_column_twice_in_a_row_exactly_where_there_is_one(rng):
    from perceptron_c._utils._validation import CSR, _has_duplicates

    def naive(indices, indptr):
        return any(len(set(indices[a:b])) < b - a for a, b in zip(indptr[:-1], indptr[1:]))

    cases = [([], [0, 0, 0]), ([3], [0, 1]), ([0, 1, 2, 0, 1], [0, 3, 5]),  # rows rise
             ([2, 0, 1], [0, 3]), ([1, 1], [0, 2]), ([0, 2, 0], [0, 3]),  # unsorted; twice
             ([0, 0], [0, 1, 1, 2])]  # the same column in two rows (an empty one between)
    for _ in range(300):  # rows of random lengths, some empty, columns drawn with repeats
        lengths = rng.integers(0, 6, rng.integers(1, 8))
        indptr = np.concatenate([[0], np.cumsum(lengths)])
        cases.append((rng.integers(0, int(rng.integers(1, 12)), indptr[-1]).tolist(), indptr))
    for indices, indptr in cases:
        indices, indptr = np.array(indices, np.int32), np.array(indptr, np.int64)
        P = CSR(np.ones(indices.shape[0]), indices, indptr, (indptr.shape[0] - 1, 20))
        assert _has_duplicates(P) == naive(indices.tolist(), indptr.tolist()), (indices, indptr)


def test_early_stopping(rng):
    X, y = noisy_blobs(rng, 400, 5, 3)
    y[:60] = rng.integers(0, 3, 60)  # label noise: never converges
    m = Perceptron(early_stopping=True, n_iter_no_change=3, random_state=0).fit(X, y)
    assert 3 < m.n_iter_ < 1000 and not m.converged_


def test_verbose_reports_each_epoch(rng, capsys):
    X, y = noisy_blobs(rng, 50, 3, 2)
    Perceptron(max_iter=3, verbose=1, random_state=0).fit(X, y)
    err = capsys.readouterr().err
    assert err.count("epoch") == 3 and "mistakes" in err


def test_top_features_with_names(rng):
    class Frame:  # the DataFrame-like surface the gate looks at
        def __init__(self, values, columns):
            self.values, self.columns = values, columns

        def __array__(self, dtype=None, copy=None):
            return self.values

    X = rng.normal(size=(200, 3))
    y = (3 * X[:, 0] - 2 * X[:, 2] > 0).astype(int)
    m = Perceptron(random_state=0).fit(Frame(X, ["good", "noise", "bad"]), y)
    assert m.feature_names_in_.tolist() == ["good", "noise", "bad"]
    top = m.top_features(1)
    assert top["positive"][0][0] == "good" and top["negative"][0][0] == "bad"
    with pytest.raises(ValueError, match="feature names"):
        m.predict(Frame(X, ["good", "bad", "noise"]))
    multi = Perceptron(random_state=0).fit(X, rng.integers(0, 3, 200)).top_features(2)
    assert set(multi) == {0, 1, 2} and len(multi[0]["positive"]) <= 2


def test_top_features_takes_a_vectorizer_s_names(rng):
    text = pytest.importorskip("sklearn.feature_extraction.text")
    docs = ["good great fine", "bad awful poor", "great good", "poor bad", "fine good"] * 4
    y = np.array([1, 0, 1, 0, 1] * 4)
    vec = text.CountVectorizer()
    X = vec.fit_transform(docs)
    m = Perceptron(random_state=0).fit(X, y)
    by_names = m.top_features(2, feature_names=vec.get_feature_names_out())
    assert m.top_features(2, feature_names=vec) == by_names
    assert m.top_features(2, feature_names=list(vec.get_feature_names_out())) == by_names
    words = {name for name, _ in by_names["positive"]} | {n for n, _ in by_names["negative"]}
    assert words <= set(vec.vocabulary_) and by_names["positive"][0][1] > 0
    coef = np.asarray(m.coef_[0])
    for name, weight in by_names["positive"] + by_names["negative"]:
        assert coef[vec.vocabulary_[name]] == weight  # each name is its own column's
    assert by_names["positive"][0][1] == coef.max() and by_names["negative"][0][1] == coef.min()
    with pytest.raises(ValueError, match="expected 6 names"):
        m.top_features(2, feature_names=["a", "b"])
    with pytest.raises(TypeError, match="a string"):
        m.top_features(2, feature_names="abcdef")


def test_pickle_round_trip_is_exact(rng):
    X, y = noisy_blobs(rng, 100, 4, 3)
    m = Perceptron(average=True, random_state=0, max_iter=5).fit(X, y)
    m2 = pickle.loads(pickle.dumps(m))
    same_model(m, m2)
    m.partial_fit(X, y)
    m2.partial_fit(X, y)
    same_model(m, m2)


def test_save_load_round_trip_resumes(tmp_path, rng):
    import perceptron_c

    X, y = noisy_blobs(rng, 100, 4, 3)
    m = Perceptron(average=True, random_state=0, max_iter=3).fit(X, np.array(list("abc"))[y])
    path = m.save(tmp_path / "model.npz")
    m2 = perceptron_c.load(path)
    same_model(m, m2)
    assert np.array_equal(m.predict(X), m2.predict(X))
    m.partial_fit(X, np.array(list("abc"))[y])
    m2.partial_fit(X, np.array(list("abc"))[y])
    same_model(m, m2)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("bad,match", [
    (np.array([[1.0, np.nan], [0.0, 1.0]]), "NaN"),
    (np.array([[1.0, np.inf], [0.0, 1.0]]), "inf"),
    (np.array([1.0, 2.0]), "2-D"),
    (np.zeros((2, 2, 2)), "2-D"),
    (np.zeros((0, 2)), "sample"),
    (np.zeros((2, 0)), "feature"),
    (np.array([["a", "b"], ["c", "d"]]), "X"),
    (np.array([[1 + 2j, 0], [0, 1]]), "Complex"),
])
def test_bad_X_is_named(bad, match):
    with pytest.raises((ValueError, TypeError), match=match):
        Perceptron().fit(bad, [0, 1][: max(len(bad), 1)] if len(bad) else [])


def test_bad_y_and_shapes():
    X = np.eye(3)
    with pytest.raises(ValueError, match="inconsistent"):
        Perceptron().fit(X, [0, 1])
    with pytest.raises(ValueError, match="one class"):
        Perceptron().fit(X, [1, 1, 1])
    with pytest.raises(ValueError, match="continuous"):
        Perceptron().fit(X, [0.5, 1.0, 2.0])
    with pytest.raises(ValueError, match="NaN"):
        Perceptron().fit(X, [0.0, np.nan, 1.0])
    with pytest.raises(ValueError, match="y is None"):
        Perceptron().fit(X, None)
    m = Perceptron().fit(X, [0, 1, 1])
    with pytest.raises(ValueError, match="X has 2 features, but Perceptron is expecting 3"):
        m.predict(np.eye(2))


@pytest.mark.parametrize("param,value", [
    ("max_iter", 0), ("max_iter", 1.5), ("multiclass", "ova"), ("validation_fraction", 1.0),
    ("average", "yes"), ("n_iter_no_change", 0), ("random_state", "seed"),
])
def test_bad_params_are_named(param, value):
    with pytest.raises(ValueError, match=param):
        Perceptron(**{param: value}).fit(np.eye(2), [0, 1])


def test_unfitted_use_raises():
    from perceptron_c._utils._validation import NotFittedError

    for method in ("predict", "decision_function"):
        with pytest.raises(NotFittedError):
            getattr(Perceptron(), method)(np.eye(2))


@needs_scipy
def test_malformed_csr_is_caught():
    def bad(mutate):
        X = sp.csr_matrix(np.eye(3))
        mutate(X)
        return X

    cases = [
        (lambda X: X.indices.__setitem__(0, 7), "column indices"),
        (lambda X: X.indices.__setitem__(0, -1), "column indices"),
        (lambda X: X.indptr.__setitem__(1, 3), "indptr"),
        (lambda X: setattr(X, "indptr", X.indptr[:-1]), "indptr"),
    ]
    for mutate, match in cases:
        X = bad(mutate)
        with pytest.raises(ValueError, match=match):
            Perceptron().fit(X, [0, 1, 1])
    m = Perceptron().fit(np.eye(3), [0, 1, 1])
    with pytest.raises(ValueError, match="column indices"):
        m.predict(bad(cases[0][0]))
