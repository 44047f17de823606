"""A call costs its own work: the short routes of prediction give the general routes' results
and errors, and every table prepared for prediction follows the model."""
import pickle
import warnings
from functools import partial

import numpy as np
import pytest

from perceptron_c import (
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    Perceptron,
)
from perceptron_c._utils._validation import plain_rows

pytestmark = pytest.mark.filterwarnings("ignore::perceptron_c.exceptions.ConvergenceWarning")

# ------------------------------------------------------------------------- linear models


def _linear_models(rng):
    X = rng.normal(size=(120, 5))
    y3 = np.argmax(X[:, :3], axis=1)
    y2 = (X[:, 0] + X[:, 1] > 0).astype(int)
    return X, [
        Perceptron(random_state=0, max_iter=5).fit(X, y2),
        Perceptron(random_state=0, max_iter=5).fit(X, y3),
        Perceptron(random_state=0, max_iter=5, average=True, multiclass="ovr").fit(X, y3),
        Perceptron(random_state=0, tol=1e-3, max_iter=5).fit(X, y3),
        PassiveAggressiveClassifier(random_state=0, max_iter=5).fit(X, y2),
        PassiveAggressiveRegressor(random_state=0, max_iter=5).fit(X, X @ np.arange(5.0)),
    ]


def _general(model, X):
    """What prediction computes on the general route (every conversion of the gate)."""
    scores = model._scores(model._gate_predict(X))
    return scores[:, 0] if scores.shape[1] == 1 else scores


def _inputs(X):
    one = X[:1]
    return [one, X[:7], one.astype(np.float32), np.asfortranarray(X[:7]), X[:7, ::1][::2],
            np.round(X[:3] * 4).astype(np.int64), one.tolist(), X[:3].tolist(),
            np.round(X[:2]).astype(int).tolist(), X[:1].astype(">f8")]


def test_short_route_equals_the_general_route(model_backend, rng):
    X, models = _linear_models(rng)
    for model in models:
        for rows in _inputs(X):
            want = _general(model, rows)
            got = model.decision_function(rows) if hasattr(model, "classes_") else \
                model.predict(rows)
            assert got.dtype == want.dtype and np.array_equal(got, want)
            if hasattr(model, "classes_"):
                idx = (want > 0).astype(int) if want.ndim == 1 else want.argmax(axis=1)
                assert np.array_equal(model.predict(rows), model.classes_[idx])


def test_plain_rows_takes_only_what_the_gate_returns_unchanged(rng):
    X = rng.normal(size=(4, 3))
    assert plain_rows(X, 3) is X
    assert plain_rows(X.astype(np.float32), 3) is not None
    assert np.array_equal(plain_rows(X.tolist(), 3), X)
    assert plain_rows(X, 2) is None and plain_rows(X[0], 3) is None
    for other in (np.asfortranarray(X), X[::2], X.astype(">f8"), X.astype(int), X[:0],
                  X.astype(np.float16), X.view(type("Sub", (np.ndarray,), {})), X.astype(object)):
        assert plain_rows(other, 3) is None


def _outcome(call, X):
    try:
        return "returned", call(X)
    except (ValueError, TypeError) as exc:
        return type(exc), str(exc)


@pytest.mark.parametrize("bad", [
    np.array([[np.nan, 0.0, 0.0, 0.0, 0.0]]), np.array([[0.0, np.inf, 0.0, 0.0, 0.0]]),
    np.array([[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, -np.inf, 0.0, 0.0, 0.0]], dtype=np.float32),
    np.full((1, 5), 1e308), np.full((2, 5), -1e308), np.zeros((1, 4)), np.zeros((0, 5)),
    np.zeros(5), [[0.0] * 5, [1.0]], [["a"] * 5], [[1.0] * 4],
])
def test_short_route_raises_what_the_general_route_raises(model_backend, rng, bad):
    X, models = _linear_models(rng)
    for model in models:
        want = _outcome(partial(_general, model), bad)
        assert want[0] != "returned" or np.all(np.isfinite(want[1]))
        for call in (model.predict, getattr(model, "decision_function", model.predict)):
            got = _outcome(call, bad)
            assert got[0] == want[0]
            if got[0] != "returned":
                assert got[1] == want[1]


def test_short_route_keeps_the_feature_name_checks(rng):
    pd = pytest.importorskip("pandas")
    X, models = _linear_models(rng)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(5)])
    named = Perceptron(random_state=0, max_iter=5).fit(frame, (X[:, 0] > 0).astype(int))
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        named.predict(X[:1])
    with pytest.warns(UserWarning, match="has feature names"):
        models[0].predict(frame.iloc[:1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        models[0].predict(X[:1])
        assert np.array_equal(named.predict(frame.iloc[:3]), named.predict(frame.iloc[:3]))


def test_weights_set_by_hand_are_read_at_each_call(rng):
    X, models = _linear_models(rng)
    model = models[1]
    before = model.decision_function(X[:3])
    model.coef_[0, 0] += 1.0  # in place: the next call sees it
    assert not np.array_equal(model.decision_function(X[:3])[:, 0], before[:, 0])
    model.coef_ = model.coef_.astype(np.float32)  # replaced, another dtype: converted
    want = X[:3] @ model.coef_.astype(np.float64).T + model.intercept_
    assert np.allclose(model.decision_function(X[:3]), want)
    model.sparsify()
    assert np.allclose(model.decision_function(X[:3]), want)
    model.densify()
    model.intercept_ = list(model.intercept_)
    assert np.allclose(model.decision_function(X[:3]), want)
    again = pickle.loads(pickle.dumps(model))
    assert np.array_equal(again.decision_function(X[:3]), model.decision_function(X[:3]))


def test_bad_n_jobs_still_raises_on_one_row(rng):
    X, models = _linear_models(rng)
    model = models[1].set_params(n_jobs=0)
    with pytest.raises(ValueError, match="n_jobs"):
        model.predict(X[:1])


# ------------------------------------------------------------------------- kernel models

def _kernel_models():
    from perceptron_c import (
        BudgetKernelPerceptron,
        KernelPassiveAggressiveClassifier,
        KernelPerceptron,
        VotedPerceptron,
    )
    return {
        "kp-rbf": lambda: KernelPerceptron(kernel="rbf", gamma=0.7, max_iter=3, random_state=0),
        "kp-rbf-avg": lambda: KernelPerceptron(kernel="rbf", max_iter=3, random_state=0,
                                               average=True),
        "kp-poly": lambda: KernelPerceptron(kernel="poly", degree=2, max_iter=3, random_state=0),
        "kp-conj-avg": lambda: KernelPerceptron(kernel="conjunction", max_iter=3, random_state=0,
                                                average=True),
        "kp-rbf-streamed": lambda: KernelPerceptron(kernel="rbf", max_iter=3, random_state=0,
                                                    max_gram_bytes=4096),
        "kpa-rbf-avg": lambda: KernelPassiveAggressiveClassifier(kernel="rbf", max_iter=3,
                                                                 random_state=0, average=True),
        "kpa-conj": lambda: KernelPassiveAggressiveClassifier(kernel="conjunction", max_iter=3,
                                                              random_state=0),
        "budget-rbf": lambda: BudgetKernelPerceptron(kernel="rbf", budget=12, max_iter=3,
                                                     random_state=0),
        "budget-conj": lambda: BudgetKernelPerceptron(kernel="conjunction", budget=12,
                                                      max_iter=3, random_state=0),
        "voted-rbf": lambda: VotedPerceptron(kernel="rbf", max_iter=3, random_state=0),
        "voted-primal": lambda: VotedPerceptron(max_iter=3, random_state=0),
    }


def _kernel_data(name, rng, n=60, k=3):
    X = rng.normal(size=(n, 4))
    if "conj" in name:
        X = (X > 0).astype(float)
    y = np.argmax(X[:, :k] + 0.5 * rng.normal(size=(n, k)), axis=1)
    return X, y


def _assert_tables_follow(model):
    """The tables are the model's own, as a fresh build of them makes them."""
    tables = model.__dict__["_predict_tables"]
    assert tables.follows(model._table_sources()) and tables.sv is model._sv
    fresh = type(model)._prepare_tables(model)
    assert model._predict_tables is fresh
    for name in ("kind", "divisor"):
        assert getattr(tables, name) == getattr(fresh, name)
    assert tables.kern == fresh.kern
    for name in ("coef", "bias", "sv_norms"):
        a, b = getattr(tables, name), getattr(fresh, name)
        assert (a is None) == (b is None) and (a is None or np.array_equal(a, b)), name
    if tables.sv_norms is not None:
        from perceptron_c import _backend
        assert np.array_equal(tables.sv_norms, _backend.gram.row_sqnorms(model._sv))
    if tables.extra is not None:
        for (i1, s1, v1), (i2, s2, v2) in zip(tables.extra[0], fresh.extra[0]):
            assert np.array_equal(i1, i2) and np.array_equal(s1, s2) and np.array_equal(v1, v2)
        assert tables.extra[1] == fresh.extra[1]


@pytest.mark.parametrize("name", sorted(_kernel_models()))
def test_kernel_tables_follow_the_model(model_backend, rng, tmp_path, name):
    import perceptron_c

    make = _kernel_models()[name]
    X, y = _kernel_data(name, rng)
    model = make().fit(X[:30], y[:30])
    _assert_tables_follow(model)
    before = model.decision_function(X)
    # partial_fit (where the model has it) and a warm-started fit grow the support set
    if hasattr(model, "partial_fit"):
        model.partial_fit(X[30:], y[30:])
        _assert_tables_follow(model)
    model.set_params(warm_start=True).fit(X, y)
    _assert_tables_follow(model)
    after = model.decision_function(X)
    assert not np.array_equal(before, after) or model.converged_
    # the same predictions as a model that prepares its tables anew at every call
    bare = pickle.loads(pickle.dumps(model))
    _assert_tables_follow(bare)
    del bare._predict_tables
    assert np.array_equal(bare.decision_function(X), after)
    assert np.array_equal(bare.predict(X[:1]), model.predict(X[:1]))
    # a loaded model has its tables before its first call
    loaded = perceptron_c.load(model.save(tmp_path / "m.npz"))
    assert "_predict_tables" in vars(loaded)
    _assert_tables_follow(loaded)
    assert np.array_equal(loaded.decision_function(X), after)
    for rows in (X[:1], X[:1].tolist()):
        assert np.array_equal(loaded.decision_function(rows), after[:1])
    row32 = X[:1].astype(np.float32)
    assert np.array_equal(loaded.decision_function(row32),
                          bare.decision_function(row32.astype(np.float64)))


def test_replaced_coefficients_are_read(rng):
    from perceptron_c import KernelPerceptron

    X, y = _kernel_data("kp-rbf", rng, k=2)
    model = KernelPerceptron(kernel="rbf", max_iter=3, random_state=0).fit(X, y)
    before = model.decision_function(X)
    model.dual_coef_ = model.dual_coef_ * 2.0
    model.intercept_ = model.intercept_ * 2.0
    assert np.array_equal(model.decision_function(X), before * 2.0)


@pytest.mark.parametrize("name", ["kp-rbf", "kp-rbf-avg", "kpa-rbf-avg", "budget-rbf",
                                  "voted-rbf", "voted-primal"])
def test_a_call_computes_no_norm_of_the_support_vectors(rng, monkeypatch, name):
    from perceptron_c import _backend

    X, y = _kernel_data(name, rng)
    model = _kernel_models()[name]().fit(X, y)
    seen = []
    real = _backend.gram.row_sqnorms
    monkeypatch.setattr(_backend.gram, "row_sqnorms",
                        lambda A: seen.append(A.shape[0]) or real(A))
    machine = type(model).__dict__.get("_machine")
    if machine is not None:  # the votes are prepared too
        monkeypatch.setattr(type(model), "_machine",
                            lambda *a: pytest.fail("votes rebuilt at a call"))
    for rows in (X[:1], X[:3]):
        model.predict(rows)
        model.decision_function(rows)
    assert all(n <= 3 for n in seen), seen


def test_precomputed_and_callable_kernels_take_the_same_routes(model_backend, rng):
    from perceptron_c import KernelPassiveAggressiveClassifier, KernelPerceptron
    from perceptron_c.kernels import RBF

    X, y = _kernel_data("kp-rbf", rng)
    G = RBF(0.5)(X, X)
    for cls in (KernelPerceptron, KernelPassiveAggressiveClassifier):
        pre = cls(kernel="precomputed", max_iter=3, random_state=0).fit(G, y)
        own = cls(kernel=RBF(0.5), max_iter=3, random_state=0).fit(X, y)
        fn = cls(kernel=lambda A, B: RBF(0.5)(A, B), max_iter=3, random_state=0).fit(X, y)
        _assert_tables_follow(pre)
        want = own.decision_function(X)
        assert np.array_equal(pre.decision_function(G), want)
        assert np.array_equal(fn.decision_function(X), want)
        for i in (0, 7):
            assert np.array_equal(pre.decision_function(G[i:i + 1]), want[i:i + 1])
            assert np.array_equal(fn.decision_function(X[i:i + 1]), want[i:i + 1])
            assert np.array_equal(own.predict(X[i:i + 1].tolist()), own.predict(X)[i:i + 1])


def test_appended_classes_predict_on_the_short_route(model_backend, rng):
    X = rng.normal(size=(90, 4))
    y = np.argmax(X[:, :3], axis=1)
    model = Perceptron(new_classes="append", random_state=0)
    model.partial_fit(X[y < 2], y[y < 2], classes=[0, 1])
    for rows in (X[:1], X[:5]):
        assert np.array_equal(model.decision_function(rows), _general(model, rows))
    model.partial_fit(X, y)  # class 2 arrives: the binary row becomes three
    assert model.coef_.shape == (3, 4)
    for rows in (X[:1], X[:5], X[:1].tolist()):
        want = _general(model, rows)
        assert np.array_equal(model.decision_function(rows), want)
        assert np.array_equal(model.predict(rows), model.classes_[want.argmax(axis=1)])


# --------------------------------------------------------------------------- sentences

def _decode_reference(model, X, lengths):
    """Viterbi on tables made from the state by hand (what every call used to rebuild)."""
    from perceptron_c import _backend
    from perceptron_c.sequence import check_lengths

    st = model._state
    W, b, trans = st["W"], st["b"], st["trans"]
    if "U" in st:
        c = float(st["count"][0])
        W, b, trans = W - st["U"] / c, b - st["beta"] / c, trans - st["U_trans"] / c
    out = np.empty(X.shape[0], dtype=np.int64)
    _backend.sequence.decode_dense(np.ascontiguousarray(X), np.ascontiguousarray(W), b,
                                   np.ascontiguousarray(trans), check_lengths(lengths,
                                                                              X.shape[0]), out)
    return model.classes_[out]


@pytest.mark.parametrize("average", [True, False])
def test_sentence_tables_follow_the_model(model_backend, rng, tmp_path, monkeypatch, average):
    import perceptron_c
    from perceptron_c import StructuredPerceptron

    X = rng.normal(size=(200, 6))
    y = np.argmax(X[:, :4] + 0.7 * rng.normal(size=(200, 4)), axis=1)
    lengths = np.full(40, 5)
    model = StructuredPerceptron(average=average, max_iter=2).fit(X[:100], y[:100],
                                                                  lengths[:20])

    def check(m):
        W, b, trans, _ = m._tables()
        K = b.shape[0]
        assert np.shares_memory(m.coef_, W) and m.intercept_ is b
        for name, part in (("coef_trans_", trans[:K]), ("coef_init_", trans[K]),
                           ("coef_final_", trans[K + 1])):
            assert np.shares_memory(getattr(m, name), trans)
            assert np.array_equal(getattr(m, name), part)
        assert not any(np.shares_memory(a, s) for a in (W, b, trans) for s in m._state.values())
        for rows, lens in ((X[:5], [5]), (X[:12], [5, 7]), (X, lengths)):
            assert np.array_equal(m.predict(rows, lens), _decode_reference(m, rows, lens))

    check(model)
    model.partial_fit(X[100:], y[100:], lengths[20:])
    check(model)
    model.set_params(warm_start=True).fit(X, y, lengths)
    check(model)
    check(pickle.loads(pickle.dumps(model)))
    check(perceptron_c.load(model.save(tmp_path / "s.npz")))
    monkeypatch.setattr(np, "vstack", lambda *a, **k: pytest.fail("tables rebuilt at a call"))
    model.predict(X[:5], [5])
    # an edit of a published attribute is an edit of the table Viterbi reads
    model.coef_trans_[:] = 0.0
    model.coef_init_[:] = 0.0
    model.coef_final_[:] = 0.0
    assert not model._tables()[2].any()
    assert np.array_equal(model.predict(X[:5], [5]), _decode_reference_tables(model, X[:5]))


def _decode_reference_tables(model, X):
    from perceptron_c import _backend

    W, b, trans, _ = model._tables()
    out = np.empty(X.shape[0], dtype=np.int64)
    _backend.sequence.decode_dense(X, W.copy(), b.copy(), trans.copy(),
                                   np.array([0, X.shape[0]]), out)
    return model.classes_[out]


def test_sentence_lengths_are_read_as_before(rng):
    from perceptron_c import StructuredPerceptron

    X = rng.normal(size=(30, 3))
    y = np.argmax(X, axis=1)
    model = StructuredPerceptron(max_iter=2).fit(X, y, [10, 10, 10])
    assert np.array_equal(model.predict(X, [30]), model.predict(X, np.array([30])))
    assert model.predict(X[:1], np.array([1])).shape == (1,)
    for bad, match in ((None, "lengths is required"), ([29], "sum"), ([0, 30], ">= 1"),
                       ([[30]], "1-d"), ([30.0], "integers"), ([], "non-empty")):
        with pytest.raises(ValueError, match=match):
            model.predict(X, bad)
