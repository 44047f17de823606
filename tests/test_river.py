"""perceptron_c.river: River's estimator checks, River's own models and ours on one stream."""
import pickle

import numpy as np
import pytest
from conftest import interrupt_after_real_work, run_python

river = pytest.importorskip("river")
pd = pytest.importorskip("pandas")

from river import checks  # noqa: E402
from river import linear_model as lm  # noqa: E402

import perceptron_c  # noqa: E402
from perceptron_c import _backend  # noqa: E402
from perceptron_c import river as pr  # noqa: E402
from perceptron_c.river._rows import PerCall  # noqa: E402

CLASSES = [pr.Perceptron, pr.MulticlassPerceptron, pr.PAClassifier, pr.PARegressor]
CASES = [pytest.param(cls, params, id=f"{cls.__name__}-{i}")
         for cls in CLASSES for i, params in enumerate(cls._unit_test_params())]


@pytest.mark.parametrize("cls,params", CASES)
def test_river_estimator_checks(cls, params):
    checks.check_estimator(cls(**params))


def test_without_river_the_names_say_how_to_install_it():
    code = ("import sys; sys.modules['river'] = None\n"
            "import perceptron_c.river as r\n"
            "assert r.__all__ == []\n"
            "try:\n    r.Perceptron\nexcept ImportError as e:\n    print(e)\n")
    out = run_python(["-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert "pip install perceptron-c[river]" in out.stdout


def test_import_perceptron_c_does_not_import_river():
    code = "import sys, perceptron_c; print('river' in sys.modules, 'pandas' in sys.modules)"
    out = run_python(["-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["False", "False"]


def _stream(n=3000, d=20, seed=0, integers=False):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, d)).astype(float) if integers else rng.normal(size=(n, d))
    w = rng.normal(size=d)
    return X, X @ w + 0.3 * rng.normal(size=n), rng


def _dicts(X):
    return [{f"x{j}": float(v) for j, v in enumerate(row)} for row in X]


def _weights(model, names):
    return np.array([model.weights[k] for k in names])


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_pa_classifier_is_rivers(mode):
    X, t, _ = _stream()
    ours, theirs = pr.PAClassifier(C=0.5, mode=mode), lm.PAClassifier(C=0.5, mode=mode)
    for x, y in zip(_dicts(X), t > 0):
        assert ours.predict_one(x) == theirs.predict_one(x)
        assert ours.predict_proba_one(x)[True] == pytest.approx(
            theirs.predict_proba_one(x)[True], rel=1e-12, abs=1e-12)
        ours.learn_one(x, bool(y))
        theirs.learn_one(x, bool(y))
    names = list(_dicts(X[:1])[0])
    np.testing.assert_allclose(_weights(ours, names), _weights(theirs, names), rtol=1e-12)
    assert ours.intercept == pytest.approx(theirs.intercept, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_pa_regressor_is_rivers_with_its_loss_fixed(mode):
    """River's PARegressor (0.21 to 0.26) scores its loss as |p - (2y - 1)| - eps (its
    EpsilonInsensitiveHinge maps the target like a binary label); with the loss of
    [Crammer2006], max(0, |y - p| - eps), the two are the same algorithm."""
    X, t, _ = _stream()
    ours = pr.PARegressor(C=0.5, mode=mode, eps=0.1)
    theirs = lm.PARegressor(C=0.5, mode=mode, eps=0.1)
    theirs.loss = lambda y, p: max(abs(y - p) - 0.1, 0.0)
    for x, y in zip(_dicts(X), t):
        assert ours.predict_one(x) == pytest.approx(theirs.predict_one(x), rel=1e-9, abs=1e-9)
        ours.learn_one(x, float(y))
        theirs.learn_one(x, float(y))


def test_plain_perceptron_is_rivers_perceptron():
    X, t, _ = _stream()
    ours, theirs = pr.Perceptron(average=False), lm.Perceptron()
    for x, y in zip(_dicts(X), t > 0):
        assert ours.predict_one(x) == theirs.predict_one(x)
        ours.learn_one(x, bool(y))
        theirs.learn_one(x, bool(y))
    names = list(_dicts(X[:1])[0])
    np.testing.assert_allclose(_weights(ours, names), _weights(theirs, names), rtol=1e-12)


@pytest.mark.parametrize("integers", [True, False])
def test_averaged_perceptron_is_the_estimators(integers):
    X, t, _ = _stream(integers=integers)
    y = t > 0
    ours = pr.Perceptron()
    for x, label in zip(_dicts(X), y):
        ours.learn_one(x, bool(label))
    est = perceptron_c.Perceptron(average=True, tol=None, shuffle=False)
    est.partial_fit(X, y, classes=[False, True])
    assert np.array_equal(_weights(ours, list(_dicts(X[:1])[0])), est.coef_[0])
    assert ours.intercept == est.intercept_[0]


def test_multiclass_perceptron_is_the_estimators_with_every_class_from_the_start():
    """Classes joining at their first example give the fixed-class model, classes numbered
    by first appearance (integer data: every sum exact)."""
    X, _, rng = _stream(integers=True)
    raw = np.argmax(X @ rng.normal(size=(X.shape[1], 5)), axis=1)
    first = sorted(set(raw.tolist()), key=lambda k: int(np.argmax(raw == k)))
    y = np.array([first.index(k) for k in raw.tolist()])
    assert [int(np.argmax(y == k)) for k in range(5)] != [0] * 5  # classes arrive late
    ours = pr.MulticlassPerceptron()
    for x, label in zip(_dicts(X), y.tolist()):
        ours.learn_one(x, label)
    est = perceptron_c.Perceptron(average=True, tol=None, shuffle=False)
    est.partial_fit(X, y, classes=np.arange(5))
    names = list(_dicts(X[:1])[0])
    W = np.array([[ours.weights[k][n] for n in names] for k in range(5)])
    assert ours.classes == [0, 1, 2, 3, 4]
    assert np.array_equal(W, est.coef_)
    assert np.array_equal(np.array([ours.intercept[k] for k in range(5)]), est.intercept_)


def _ragged(n=400, seed=1):
    """Dicts whose keys come and go, in shuffled order, some NaN; labels that appear late."""
    rng = np.random.default_rng(seed)
    rows, labels = [], []
    for i in range(n):
        keys = [f"f{j}" for j in range(min(3 + i // 40, 12)) if rng.random() < 0.7]
        rng.shuffle(keys)
        x = {k: float(rng.normal()) for k in keys}
        if keys and rng.random() < 0.1:
            x[keys[0]] = float("nan")
        rows.append(x)
        labels.append(int(rng.integers(0, 1 + min(i // 60, 4))))
    return rows, labels


def _target(cls, label):
    if cls is pr.PARegressor:
        return label * 0.5
    if cls in (pr.Perceptron, pr.PAClassifier):
        return label % 2 == 1
    return f"c{label}"


@pytest.mark.parametrize("cls,params", CASES)
def test_learn_many_is_learn_one_bit_for_bit(cls, params):
    rows, labels = _ragged()
    one, many = cls(**params), cls(**params)
    for x, label in zip(rows, labels):
        one.learn_one(x, _target(cls, label))
    for s in range(0, len(rows), 70):
        X = pd.DataFrame(rows[s:s + 70])
        many.learn_many(X, pd.Series([_target(cls, v) for v in labels[s:s + 70]]))
    assert pickle.dumps(one.weights) == pickle.dumps(many.weights)
    assert pickle.dumps(one.intercept) == pickle.dumps(many.intercept)
    X = pd.DataFrame(rows[:50])
    predicted = many.predict_many(X).tolist()
    assert predicted == [one.predict_one(x) for x in rows[:50]]


@pytest.mark.parametrize("cls", CLASSES)
def test_the_order_of_the_keys_does_not_matter(cls):
    rows, labels = _ragged()
    rng = np.random.default_rng(3)
    a, b = cls(), cls()
    for x, label in zip(rows, labels):
        keys = list(x)
        rng.shuffle(keys)
        a.learn_one(x, _target(cls, label))
        b.learn_one({k: x[k] for k in keys}, _target(cls, label))
    assert pickle.dumps((a.weights, a.intercept)) == pickle.dumps((b.weights, b.intercept))


@pytest.mark.parametrize("cls", CLASSES)
def test_both_twins_learn_the_same_model(cls):
    rows, labels = _ragged(150)
    models = []
    for twin in ("c", "python"):
        if twin == "c" and _backend.BACKEND != "c":
            pytest.skip("the C core is not in use")
        with _backend.using(twin):
            m = cls()
            for x, label in zip(rows, labels):
                m.learn_one(x, _target(cls, label))
            models.append((m.weights, m.intercept))
    assert pickle.dumps(models[0]) == pickle.dumps(models[1])


@pytest.mark.parametrize("cls", CLASSES)
def test_pickle_and_unseen_features(cls):
    rows, labels = _ragged(100)
    m = cls()
    for x, label in zip(rows, labels):
        m.learn_one(x, _target(cls, label))
    data = pickle.dumps(m)
    assert b"perceptron_c.river" in data
    back = pickle.loads(data)
    for x in rows[:20]:
        assert back.predict_one(x) == m.predict_one(x)
        # a name never learned has weight zero: it changes no score and gets no column
        assert m.predict_one({**x, "never seen": 1e6}) == m.predict_one(x)
    assert "never seen" not in m.weights


def test_probabilities():
    m = pr.PAClassifier()
    m.learn_one({"a": 1.0}, True)
    p = m.predict_proba_one({"a": 1.0})
    assert set(p) == {False, True} and p[True] > 0.5 and p[False] + p[True] == 1.0
    many = m.predict_proba_many(pd.DataFrame({"a": [1.0, -40.0]}))
    assert many.loc[0, True] == p[True] and many.loc[1, True] == 0.0
    # the perceptrons: River's rules (sigmoid of the score; softmax of the classes' scores)
    assert pr.Perceptron().predict_proba_one({"a": 1.0}) == {False: 0.5, True: 0.5}
    assert pr.MulticlassPerceptron().predict_proba_one({"a": 1.0}) == {}
    assert pr.MulticlassPerceptron().predict_one({"a": 1.0}) is None


@pytest.mark.parametrize("cls", CLASSES)
def test_bad_input_is_named(cls):
    m = cls()
    with pytest.raises(TypeError, match="x must be a dict"):
        m.learn_one([1.0], True)
    with pytest.raises(TypeError, match="real numbers"):
        m.learn_one({"a": "text"}, True)
    with pytest.raises(ValueError, match="infinite"):
        m.learn_one({"a": float("inf")}, True)
    with pytest.raises(ValueError, match="one (label|target) per row"):
        m.learn_many(pd.DataFrame({"a": [1.0, 2.0]}), pd.Series([True]))
    with pytest.raises(TypeError, match="DataFrame"):
        m.learn_many(np.zeros((2, 2)), pd.Series([True, False]))
    with pytest.raises(ValueError, match="repeat a column"):
        m.learn_many(pd.DataFrame([[1.0, 2.0]], columns=["a", "a"]), pd.Series([True]))


@pytest.mark.parametrize("cls", [pr.PAClassifier, pr.PARegressor])
@pytest.mark.parametrize("params,match", [({"C": 0.0}, "C must"), ({"C": float("inf")}, "C must"),
                                          ({"mode": 3}, "mode must")])
def test_bad_pa_parameters_are_named(cls, params, match):
    with pytest.raises(ValueError, match=match):
        cls(**params)


def test_bad_eps_is_named():
    with pytest.raises(ValueError, match="eps must"):
        pr.PARegressor(eps=-1.0)


def test_memory_is_flat_once_the_features_are_known():
    X, t, _ = _stream(n=2000)
    m = pr.MulticlassPerceptron()
    rows = _dicts(X)
    for x, y in zip(rows[:1000], t[:1000]):
        m.learn_one(x, int(y > 0))
    m.predict_one(rows[0])  # learns the rows still waiting
    size = m._raw_memory_usage
    for x, y in zip(rows[1000:], t[1000:]):
        m.learn_one(x, int(y > 0))
    m.predict_one(rows[0])
    assert m._raw_memory_usage == size


@pytest.mark.parametrize("cls", CLASSES)
def test_waiting_rows_change_nothing(cls):
    """learn_one keeps rows of the same keys waiting for one compiled call; predicting after
    every example (each learned at once), pickling half way, or not: the same model."""
    X, t, _ = _stream(n=700)
    rows, labels = _dicts(X), [_target(cls, int(v > 0)) for v in t]
    waiting, at_once = cls(), cls()
    for i, (x, y) in enumerate(zip(rows, labels)):
        waiting.learn_one(x, y)
        at_once.learn_one(x, y)
        at_once.predict_one(x)
        if i == 350:
            waiting = pickle.loads(pickle.dumps(waiting))
    assert pickle.dumps(waiting) == pickle.dumps(at_once)


@pytest.mark.parametrize("cls", CLASSES)
def test_a_bad_value_fails_its_own_call(cls):
    x = {"a": 1.0, "b": 2.0}
    m = cls()
    m.learn_one(x, _target(cls, 1))
    m.learn_one(x, _target(cls, 0))
    before = pickle.dumps(m)
    with pytest.raises(TypeError, match="real numbers"):
        m.learn_one({"a": 1.0, "b": "text"}, _target(cls, 1))
    with pytest.raises(ValueError, match="infinite"):
        m.learn_one({"a": 1.0, "b": float("-inf")}, _target(cls, 1))
    assert pickle.dumps(m) == before


BUDGET = pr.BudgetKernelPerceptron
BUDGET_CASES = [pytest.param(params, id=params["strategy"])
                for params in BUDGET._unit_test_params()]


@pytest.mark.parametrize("params", BUDGET_CASES)
def test_budget_river_estimator_checks(params):
    checks.check_estimator(BUDGET(**params))


def _checkerboard(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2.0, 2.0, size=(n, 2))
    return X, (np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 1


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("strategy", ["stoptron", "oldest", "forgetron", "projectron",
                                      "projectron++"])
def test_budget_is_the_estimator(strategy, average):
    """learn_one, learn_many and BudgetKernelPerceptron.partial_fit: one model, bit for bit
    ("random" draws its evictions from another generator: the same algorithm, other draws)."""
    X, y = _checkerboard()
    kw = {"budget": 50, "strategy": strategy, "gamma": 2.0, "average": average,
          "fit_intercept": True}
    est = perceptron_c.BudgetKernelPerceptron(kernel="rbf", shuffle=False, **kw)
    est.partial_fit(X, y, classes=[False, True])
    one, many = BUDGET(seed=0, **kw), BUDGET(seed=0, **kw)
    for x, label in zip(_dicts(X), y.tolist()):
        one.learn_one(x, label)
    many.learn_many(pd.DataFrame(X, columns=["x0", "x1"]), pd.Series(y))
    assert pickle.dumps(one) == pickle.dumps(many)
    n = one.n_support
    assert n == est.n_support_ == 50
    assert np.array_equal(_support_dense(one, 2), est.support_vectors_)
    alpha = one._alpha[0, :n] - (one._u[0, :n] / float(one._count[0]) if average else 0.0)
    assert np.array_equal(alpha, est.dual_coef_[0])
    labels = many.predict_many(pd.DataFrame(X, columns=["x0", "x1"])).to_numpy()
    assert np.array_equal(labels, est.predict(X))


def _support_dense(m, width):
    """The support vectors of a River budget model as dense rows over columns 0 .. width."""
    n = m.n_support
    out = np.zeros((n, width))
    for s in range(n):
        k = int(m._sv_nnz[s])
        assert np.all(np.diff(m._sv_indices[s, :k]) > 0)  # columns increasing
        assert not m._sv[s, k:].any() and not m._sv_indices[s, k:].any()  # then zeros
        out[s, m._sv_indices[s, :k]] = m._sv[s, :k]
    return out


def _vocabulary_stream(n=400, seed=5):
    """The checkerboard with a name of a growing vocabulary in every example (a new one every
    third example, 0.5 or -0.5), and names that come back: the dicts, the labels, and X over
    every name, columns in the order the River models number them."""
    X, y = _checkerboard(n, seed)
    rows = _dicts(X)
    for i, x in enumerate(rows):
        x[f"w{i // 3:04d}"] = 0.5 if i % 2 else -0.5
        if i % 5 == 0:
            x[f"w{i // 7:04d}"] = 1.0
    names = {}
    for x in rows:  # the River numbering: first use, names of one example in sorted order
        for k in sorted(k for k in x if k not in names):
            names[k] = len(names)
    dense = np.zeros((n, len(names)))
    for i, x in enumerate(rows):
        for k, v in x.items():
            dense[i, names[k]] = v
    return rows, y, dense


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("strategy", ["stoptron", "oldest", "forgetron", "projectron",
                                      "projectron++"])
def test_budget_with_a_growing_vocabulary_is_the_estimator(strategy, average):
    """Support vectors stored as their entries (issue 34, item 14: dense over every name ever
    seen) give the model of perceptron_c.BudgetKernelPerceptron on the dense rows over every
    name, bit for bit: the kernel sums keep each column in its lane."""
    rows, y, dense = _vocabulary_stream()
    kw = {"budget": 30, "strategy": strategy, "gamma": 0.7, "average": average,
          "fit_intercept": True}
    est = perceptron_c.BudgetKernelPerceptron(kernel="rbf", shuffle=False, **kw)
    est.partial_fit(dense, y, classes=[False, True])
    one, many = BUDGET(seed=0, **kw), BUDGET(seed=0, **kw)
    for x, label in zip(rows, y.tolist()):
        one.learn_one(x, label)
    frame = pd.DataFrame(rows)
    many.learn_many(frame, pd.Series(y))
    assert pickle.dumps(one) == pickle.dumps(many)
    assert one._sv.shape == (30, 8)  # 3 or 4 entries a row, whatever the 140 names
    n = one.n_support
    assert n == est.n_support_
    assert np.array_equal(_support_dense(one, dense.shape[1]), est.support_vectors_)
    alpha = one._alpha[0, :n] - (one._u[0, :n] / float(one._count[0]) if average else 0.0)
    assert np.array_equal(alpha, est.dual_coef_[0])
    assert np.array_equal(many.predict_many(frame).to_numpy(), est.predict(dense))
    assert [one.predict_one(x) for x in rows] == est.predict(dense).tolist()
    assert many._decisions(frame).tolist() == est.decision_function(dense).tolist()


def test_budget_random_learn_one_is_learn_many_and_memory_is_flat():
    X, y = _checkerboard(3000)
    one, many = BUDGET(budget=40, seed=7), BUDGET(budget=40, seed=7)
    rows = _dicts(X)
    for x, label in zip(rows[:1000], y.tolist()):
        one.learn_one(x, label)
    size = one._raw_memory_usage
    assert one.n_support == 40
    for x, label in zip(rows[1000:], y[1000:].tolist()):
        one.learn_one(x, label)
    assert one._raw_memory_usage == size
    many.learn_many(pd.DataFrame(X, columns=["x0", "x1"]), pd.Series(y))
    assert pickle.dumps(one) == pickle.dumps(many)


@pytest.mark.parametrize("params,match", [({"budget": 0}, "budget must"),
                                          ({"strategy": "lru"}, "strategy must"),
                                          ({"kernel": "sigmoid"}, "kernel must"),
                                          ({"eta": -1.0}, "eta must")])
def test_budget_bad_parameters_are_named(params, match):
    with pytest.raises(ValueError, match=match):
        BUDGET(**params)


@pytest.mark.parametrize("strategy", ["random", "forgetron", "projectron++"])
def test_budget_both_twins_learn_the_same_model(strategy):
    if _backend.BACKEND != "c":
        pytest.skip("the C core is not in use")
    X, y = _checkerboard(120)
    models = []
    for twin in ("c", "python"):
        with _backend.using(twin):
            m = BUDGET(budget=15, strategy=strategy, gamma=2.0, average=True, seed=3)
            for x, label in zip(_dicts(X), y.tolist()):
                m.learn_one(x, label)
            models.append(pickle.dumps(m))
    assert models[0] == models[1]


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("d", [0, 1, 2, 30])
def test_waiting_rows_in_any_key_order(cls, d):
    X, t, rng = _stream(n=300, d=max(d, 1))
    X = X[:, :d]
    a, b = cls(), cls()
    for x, v in zip(_dicts(X), t):
        keys = list(x)
        rng.shuffle(keys)
        a.learn_one(x, _target(cls, int(v > 0)))
        b.learn_one({k: x[k] for k in keys}, _target(cls, int(v > 0)))
    assert pickle.dumps(a) == pickle.dumps(b)


# ---- one compiled call per example (_backend.dicts)

def _budget_stream(n=160, seed=4):
    """The checkerboard, a third feature from the middle on, and examples repeated (an RBF
    distance of 0 to a support vector, which the kernel recomputes from the differences)."""
    X, y = _checkerboard(n, seed)
    rows = _dicts(X)
    for i in range(n // 2, n):
        rows[i]["x2"] = float(X[i, 0] * X[i, 1])
    for i in range(10, n, 7):
        rows[i], y[i] = dict(rows[i - 10]), not y[i - 10]
    return rows, y.tolist()


BUDGET_KERNELS = [{"kernel": "rbf", "gamma": 2.0}, {"kernel": "rbf", "gamma": None},
                  {"kernel": "poly", "gamma": 0.5, "degree": 3}, {"kernel": "linear"}]


@pytest.mark.parametrize("strategy", ["random", "stoptron", "oldest", "forgetron",
                                      "projectron", "projectron++"])
@pytest.mark.parametrize("kernel", BUDGET_KERNELS, ids=lambda k: f"{k['kernel']}-{k.get('gamma')}")
@pytest.mark.parametrize("average,fit_intercept", [(False, False), (True, True)])
def test_budget_twins_learn_and_score_alike(strategy, kernel, average, fit_intercept):
    if _backend.BACKEND != "c":
        pytest.skip("the C core is not in use")
    rows, y = _budget_stream()
    scores, models = [], []
    for twin in ("c", "python"):
        with _backend.using(twin):
            m = BUDGET(budget=12, strategy=strategy, average=average,
                       fit_intercept=fit_intercept, seed=2, **kernel)
            seen = []
            for x, label in zip(rows, y):
                seen.append(m._calls_now().decision(x))
                m.learn_one(x, label)
            scores.append(seen)
            models.append(pickle.dumps(m))
    assert scores[0] == scores[1]
    assert models[0] == models[1]


@pytest.mark.parametrize("kernel", BUDGET_KERNELS, ids=lambda k: f"{k['kernel']}-{k.get('gamma')}")
@pytest.mark.parametrize("average", [False, True])
def test_budget_scores_one_example_as_a_frame_does(kernel, average):
    """predict_one's score is the frame path's (kernel rows, then cached_scores), bit for bit."""
    rows, y = _budget_stream()
    m = BUDGET(budget=12, strategy="oldest", average=average, fit_intercept=True, **kernel)
    for x, label in zip(rows, y):
        m.learn_one(x, label)
    frame = pd.DataFrame(rows).fillna(float("nan"))
    assert m._decisions(frame).tolist() == [m._calls_now().decision(x) for x in rows]
    assert m.predict_many(frame).tolist() == [m.predict_one(x) for x in rows]


@pytest.mark.parametrize("strategy", ["random", "forgetron", "projectron++"])
@pytest.mark.parametrize("kernel", BUDGET_KERNELS, ids=lambda k: f"{k['kernel']}-{k.get('gamma')}")
def test_budget_twins_and_batches_alike_with_a_growing_vocabulary(strategy, kernel):
    """The C calls (entries merged by column) and the Python twin (dense rows over the lane
    layout) learn and score alike, and learn_many is learn_one, gamma=None (1 / the room of
    the index) included."""
    rows, y, _ = _vocabulary_stream(200)
    models, scores = [], []
    for twin in ("c", "python") if _backend.BACKEND == "c" else ("python",):
        with _backend.using(twin):
            m = BUDGET(budget=12, strategy=strategy, average=True, seed=2, **kernel)
            seen = []
            for x, label in zip(rows, y.tolist()):
                seen.append(m._calls_now().decision(x))
                m.learn_one(x, label)
            models.append(pickle.dumps(m))
            scores.append(seen)
            many = BUDGET(budget=12, strategy=strategy, average=True, seed=2, **kernel)
            many.learn_many(pd.DataFrame(rows), pd.Series(y))
            models.append(pickle.dumps(many))
            assert m._width == 128 and m._sv.shape == (12, 8)  # 70 names, 3 or 4 a row
    assert len(set(models)) == 1
    assert scores[0] == scores[-1]


def test_a_new_label_with_a_bad_value_adds_no_class():
    """A learn_one that fails leaves the model as it was: its label is no class (it was one)."""
    m = pr.MulticlassPerceptron()
    m.learn_one({"a": 1.0}, "first")
    before = pickle.dumps(m)
    with pytest.raises(TypeError, match="real numbers"):
        m.learn_one({"a": 1.0, "b": "text"}, "second")
    with pytest.raises(ValueError, match="infinite"):
        m.learn_one({"new": float("inf")}, "third")
    assert m.classes == ["first"]
    assert pickle.dumps(m) == before


def test_a_failing_budget_learn_one_changes_nothing():
    """An overflow of the polynomial kernel, or a bad value, leaves the model as it was: no
    new name, no draw of "random" (both were left behind)."""
    m = BUDGET(budget=5, strategy="random", kernel="poly", gamma=1.0, degree=9, seed=0)
    for i in range(12):
        m.learn_one({"a": float(i % 3), "b": 1.0}, i % 2 == 0)
    before = pickle.dumps(m)
    with pytest.raises(OverflowError, match="polynomial"):
        m.learn_one({"a": 1e200, "c": 1.0}, True)
    with pytest.raises(TypeError, match="real numbers"):
        m.learn_one({"a": 1.0, "d": None}, True)
    assert pickle.dumps(m) == before
    assert "c" not in m._columns.index


@pytest.mark.parametrize("cls", CLASSES)
def test_new_names_in_a_failing_call_get_no_column(cls):
    m = cls()
    m.learn_one({"a": 1.0}, _target(cls, 1))
    before = pickle.dumps(m)
    for bad in ("text", float("inf"), None, 1j):
        with pytest.raises((TypeError, ValueError), match="'zz'"):
            m.learn_one({"b": 1.0, "a": 2.0, "zz": bad}, _target(cls, 0))
    assert pickle.dumps(m) == before


@pytest.mark.parametrize("cls", CLASSES)
def test_a_name_first_missing_then_given_a_column_by_a_frame(cls):
    """A NaN name without a column, learned in the same key order (the order the C calls
    remember), then given a column by learn_many: learn_one reads its column."""
    if _backend.BACKEND != "c":
        pytest.skip("the C core is not in use")
    x = {"a": 1.0, "z": float("nan"), "b": -1.0}
    models = []
    for twin in ("c", "python"):
        with _backend.using(twin):
            m = cls()
            for i in range(4):
                m.learn_one(x, _target(cls, i % 2))
            m.learn_many(pd.DataFrame([{"a": 1.0, "z": 3.0, "b": 0.5}]),
                         pd.Series([_target(cls, 1)]))
            x["z"] = 2.0
            m.learn_one(x, _target(cls, 0))
            x["z"] = float("nan")
            models.append(pickle.dumps(m))
    assert models[0] == models[1]


def test_one_example_calls_never_enter_a_python_twin(monkeypatch):
    """learn_one, predict_one and predict_proba_one of every model run compiled code only:
    every function of the Python twins they could reach raises."""
    if _backend.BACKEND != "c":
        pytest.skip("the C core is not in use")
    import importlib
    import types

    models = [cls(**p) for cls in CLASSES for p in cls._unit_test_params()]
    models += [BUDGET(**p) for p in BUDGET._unit_test_params()]
    rows, y = _budget_stream(60)

    def guard(name):
        def raiser(*args, **kwargs):
            raise AssertionError(f"a compiled path called the Python twin's {name}")
        return raiser

    for module in ("_dicts_py", "_linear_py", "_sgd_py", "_budget_py", "_gram_py", "_contract"):
        mod = importlib.import_module(f"perceptron_c._core.{module}")
        for name, value in list(vars(mod).items()):
            if isinstance(value, types.FunctionType) and value.__module__ == mod.__name__:
                monkeypatch.setattr(mod, name, guard(f"{module}.{name}"))
            elif isinstance(value, type) and value.__module__ == mod.__name__:
                monkeypatch.setattr(mod, name, guard(f"{module}.{name}"))
    for m in models:
        for x, label in zip(rows, y):
            m.predict_one(x)
            if isinstance(m, pr.PAClassifier):
                m.predict_proba_one(x)
            m.learn_one(x, _target(type(m), int(label)) if not isinstance(m, BUDGET) else label)


@pytest.mark.parametrize("cls", CLASSES + [BUDGET])
def test_only_real_numbers_are_values(cls):
    """As River's own models need: a numeric str, bytes, a Decimal or None is no number (they
    were read as 1.5, 2.0, 1.5 and a missing value); bool, int and numpy numbers are."""
    import decimal

    m = cls()
    target = True if cls is BUDGET else _target(cls, 1)
    m.learn_one({"p": 1.0}, target)
    for bad in ("1.5", b"2", decimal.Decimal("1.5"), None):
        for call in (lambda x: m.learn_one(x, target), m.predict_one):
            with pytest.raises(TypeError, match="real numbers: x\\['a'\\] is a "):
                call({"b": 1.0, "a": bad})
    assert "a" not in m._columns.index and "b" not in m._columns.index
    m.learn_one({"a": True, "b": np.float32(0.5), "c": np.int64(2), "d": 3}, target)
    assert sorted(m._columns.index) == ["a", "b", "c", "d", "p"]


# ---- a learning call that is interrupted leaves the model as it was (issue 34)

ROUTINES = {pr.Perceptron: ("linear", "averaged_epoch_csr"),
            pr.MulticlassPerceptron: ("linear", "multiclass_averaged_epoch_csr"),
            pr.PAClassifier: ("sgd", "sgd_epoch_csr"), pr.PARegressor: ("sgd", "sgd_epoch_csr"),
            BUDGET: ("budget", "budget_epoch")}


def _state(m):
    """What a model holds, attribute by attribute (one pickle of the whole shares objects in
    its memo: two equal models may pickle apart)."""
    return [(k, pickle.dumps(v)) for k, v in m.__getstate__().items()]


def _label_of(cls, v, k=0):
    if cls is pr.MulticlassPerceptron:
        return f"c{(int(v > 0) + k) % 3}"
    return float(v) if cls is pr.PARegressor else bool(v > 0)


@pytest.mark.parametrize("cls", CLASSES + [BUDGET])
def test_an_interrupted_learn_many_leaves_no_trace(monkeypatch, cls):
    """The routine has learned the frame's rows (and the frame new names, new classes) when
    Ctrl-C arrives: learn_many undoes it all (it kept the rows learned and the names)."""
    X, t, _ = _stream(n=600, d=6)
    m = cls(seed=0, strategy="forgetron", budget=20) if cls is BUDGET else cls()
    rows = _dicts(X)
    for x, v in zip(rows[:100], t):
        m.learn_one(x, _label_of(cls, v))
    before = pickle.dumps(m)
    frame = pd.DataFrame(X[100:], columns=[f"x{j}" for j in range(6)]).assign(new=1.0)
    labels = pd.Series([_label_of(cls, v, k=1) for v in t[100:]])
    module, name = ROUTINES[cls]
    interrupt_after_real_work(monkeypatch, getattr(_backend, module), name, 1)
    with pytest.raises(KeyboardInterrupt):
        m.learn_many(frame, labels)
    assert _state(m) == _state(pickle.loads(before))
    monkeypatch.undo()
    again = pickle.loads(before)
    m.learn_many(frame, labels)  # and learning goes on as if never interrupted
    again.learn_many(frame, labels)
    assert _state(m) == _state(again)


class _InterruptedCalls:
    """A model's one-example calls whose learning call learns, then raises KeyboardInterrupt
    (Ctrl-C just after the compiled call, before learn_one returns)."""

    def __init__(self, calls):
        self.calls = calls

    def __getattr__(self, name):
        method = getattr(self.calls, name)
        if not name.startswith("learn"):
            return method

        def learned_then_interrupted(*args):
            status = method(*args)
            if status >= 0:
                raise KeyboardInterrupt
            return status
        return learned_then_interrupted


@pytest.mark.parametrize("cls", CLASSES + [BUDGET])
@pytest.mark.parametrize("what", ["new name", "new class"])
def test_ctrl_c_after_a_learn_one_that_grew_undoes_it_all(monkeypatch, cls, what):
    """learn_one of new names (or of a new class) numbers them, grows, then learns in place:
    Ctrl-C after that last step left the update in the arrays and the names forgotten, so
    the next new name took over a column with a weight."""
    if what == "new class" and cls is not pr.MulticlassPerceptron:
        pytest.skip("only the K-class model has classes that appear")
    X, t, _ = _stream(n=60, d=3)
    m = cls(seed=0, budget=5) if cls is BUDGET else cls()
    for x, v in zip(_dicts(X), t):
        m.learn_one(x, _label_of(cls, v))
    before = pickle.dumps(m)
    real = PerCall._calls_now
    monkeypatch.setattr(PerCall, "_calls_now", lambda self: _InterruptedCalls(real(self)))
    if what == "new class":  # (its first call is of the calls it has)
        learn_class = pr.MulticlassPerceptron._learn_class

        def learned_then_interrupted(self, x, k, *w):
            learn_class(self, x, k, *w)
            raise KeyboardInterrupt
        monkeypatch.setattr(pr.MulticlassPerceptron, "_learn_class", learned_then_interrupted)
    x = {"x0": 5.0, "zz": -7.0} if what == "new name" else {"x0": 5.0, "x1": -7.0}
    label = "brand new" if what == "new class" else _label_of(cls, -1.0)
    with pytest.raises(KeyboardInterrupt):
        m.learn_one(x, label)
    monkeypatch.undo()
    assert _state(m) == _state(pickle.loads(before))


# ---- one learning thread, many reading ones: the checks of the one-example calls (_Busy)

def _twins():
    return ("c", "python") if _backend.BACKEND == "c" else ("python",)


@pytest.mark.parametrize("cls", CLASSES + [BUDGET])
def test_the_calls_stop_what_another_threads_learning_call_would_spoil(cls):
    """busy[0] = 1 (another thread gives names columns): reading calls go on, learning calls
    raise; BATCH (another thread's learn_many): both raise; this thread's own call: nothing."""
    import threading

    from perceptron_c import ConcurrentUseError

    X, t, _ = _stream(n=40, d=3)
    rows = _dicts(X)
    for twin in _twins():
        with _backend.using(twin):
            m = cls(seed=0, budget=5) if cls is BUDGET else cls()
            for x, v in zip(rows, t):
                m.learn_one(x, _label_of(cls, v))
            frame = pd.DataFrame(rows[:5])
            before = m.predict_many(frame).tolist()
            other = threading.get_ident() + 1
            m._busy[:2] = (1, other)
            assert m.predict_many(frame).tolist() == before
            assert [m.predict_one(x) for x in rows[:5]] == before
            with pytest.raises(ConcurrentUseError, match="another thread is learning"):
                m.learn_one(rows[0], _label_of(cls, 1.0))
            m._busy[:2] = (2, other)
            with pytest.raises(ConcurrentUseError, match="learn_many is writing"):
                m.predict_one(rows[0])
            with pytest.raises(ConcurrentUseError, match="learn_many is writing"):
                m.predict_many(frame)
            m._busy[:2] = (2, threading.get_ident())  # (this thread's own batch)
            with pytest.raises(ConcurrentUseError):
                m.predict_one(rows[0])
            m._busy[:2] = (1, threading.get_ident())
            m.learn_one(rows[0], _label_of(cls, 1.0))
            m._busy[:2] = (0, 0)
