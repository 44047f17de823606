"""Classes that arrive after the first partial_fit: Perceptron(new_classes="append"), refusals."""
import pickle

import numpy as np
import pytest

import perceptron_c
from perceptron_c import (
    BudgetKernelPerceptron,
    KernelPassiveAggressiveClassifier,
    KernelPerceptron,
    PassiveAggressiveClassifier,
    Perceptron,
    StructuredPerceptron,
    VotedPerceptron,
)

N, D = 360, 6


def _late_stream(rng, n_classes, late):
    """Integer rows (every sum exact) labelled by a random linear argmax, ordered so that the
    classes in ``late`` appear only in the last 60 rows of the stream."""
    X = rng.integers(-4, 5, size=(N, D)).astype(np.float64)
    y = np.argmax(X @ rng.integers(-3, 4, size=(D, n_classes)), axis=1)
    early = ~np.isin(y, late)
    order = np.r_[np.flatnonzero(early), np.flatnonzero(~early)[:60]]
    X, y = X[order], y[order]
    assert set(y[:-60]) == set(range(n_classes)) - set(late) and set(late) <= set(y[-60:])
    return X, y


def _batches(X, y, size=40):
    for s in range(0, X.shape[0], size):
        yield X[s:s + size], y[s:s + size]


def _sparse(X):
    import scipy.sparse
    return scipy.sparse.csr_matrix(X)


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("shuffle", [False, True])
def test_appended_class_trains_as_if_declared_from_the_start(rng, model_backend, average,
                                                             sparse, shuffle):
    """A: classes [0..4] declared up front; B: [0, 1, 2], then 3 and 4 arrive late. The joint
    argmax perceptron's rows sum to zero, so an unseen class's zero row never wins: both hold
    the same state, bit for bit (weights, intercepts, averaging sums and clock)."""
    X, y = _late_stream(rng, 5, late=[3, 4])
    A = Perceptron(average=average, shuffle=shuffle, random_state=3)
    B = Perceptron(average=average, shuffle=shuffle, random_state=3, new_classes="append")
    for i, (Xb, yb) in enumerate(_batches(_sparse(X) if sparse else X, y)):
        A.partial_fit(Xb, yb, classes=[0, 1, 2, 3, 4])
        B.partial_fit(Xb, yb, classes=[0, 1, 2] if i == 0 else None)
    assert B.classes_.tolist() == [0, 1, 2, 3, 4]
    assert set(A._state) == set(B._state)
    for name in A._state:
        assert np.array_equal(A._state[name], B._state[name]), name
    assert np.array_equal(A.coef_, B.coef_) and np.array_equal(A.intercept_, B.intercept_)
    assert np.array_equal(A.mistakes_, B.mistakes_)
    assert np.array_equal(A.predict(X), B.predict(X))
    assert B.mistakes_.sum() > 0 and np.any(B.coef_[3] != 0) and np.any(B.coef_[4] != 0)


@pytest.mark.parametrize("average", [False, True])
def test_binary_model_becomes_rows_that_decide_as_its_vector(rng, model_backend, average):
    """Two classes are one vector w; a third class turns it into the rows (-w/2, w/2, 0),
    exactly, which decide every example as w did (ties to classes_[0] both ways). It is not
    the model declared with three classes from the start: that one is K-class from its first
    example."""
    X, y = _late_stream(rng, 3, late=[2])
    binary, grown = (Perceptron(average=average, new_classes=nc) for nc in ("error", "append"))
    head = y != 2
    for est in (binary, grown):
        est.partial_fit(X[head], y[head], classes=[0, 1])
    # one more example the binary model gets right: no update, the clock moves in both
    scores = binary.decision_function(X[head])
    i = int(np.flatnonzero((binary.predict(X[head]) == y[head]) & (scores != 0))[0])
    binary.partial_fit(X[head][i:i + 1], y[head][i:i + 1])
    grown.partial_fit(X[head][i:i + 1], y[head][i:i + 1], classes=[0, 1, 2])
    assert grown.mistakes_[-1] == 0 and grown.classes_.tolist() == [0, 1, 2]
    w, b = binary.coef_[0], binary.intercept_[0]
    assert np.array_equal(grown.coef_, np.vstack([-w / 2, w / 2, np.zeros_like(w)]))
    assert np.array_equal(grown.intercept_, [-b / 2, b / 2, 0.0])
    assert np.array_equal(grown.predict(X), binary.predict(X))
    declared = Perceptron(average=average).partial_fit(X[head], y[head], classes=[0, 1, 2])
    assert not np.array_equal(declared.coef_[:2], grown.coef_[:2])


def test_a_label_sorting_first_goes_last_and_the_model_saves(rng, tmp_path, model_backend):
    """classes_ keeps the order of arrival (rows stay where they are); predict, the decision
    columns, a model file and a pickle follow it, and training continues the same after."""
    X, y = _late_stream(rng, 4, late=[0])
    est = Perceptron(average=True, new_classes="append")
    for i, (Xb, yb) in enumerate(_batches(X, y + 10)):
        est.partial_fit(Xb, yb, classes=[11, 12, 13] if i == 0 else None)
    assert est.classes_.tolist() == [11, 12, 13, 10]
    scores = est.decision_function(X)
    assert np.array_equal(est.predict(X), est.classes_[np.argmax(scores, axis=1)])
    assert est.score(X, y + 10) > 0.5
    loaded = perceptron_c.load(est.save(tmp_path / "grown.npz"))
    copied = pickle.loads(pickle.dumps(est))
    for other in (loaded, copied):
        assert other.classes_.tolist() == [11, 12, 13, 10]
        assert np.array_equal(other.coef_, est.coef_)
        assert other.get_params() == est.get_params()
    for other in (est, loaded, copied):
        other.partial_fit(X[:50], y[:50] + 10)
    assert np.array_equal(loaded.coef_, est.coef_) and np.array_equal(copied.coef_, est.coef_)


def test_string_labels_grow(model_backend):
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]])
    est = Perceptron(new_classes="append").partial_fit(X[:3], ["b", "c", "b"], classes=["b", "c"])
    est.partial_fit(X, ["b", "c", "b", "apple"])
    assert est.classes_.tolist() == ["b", "c", "apple"]
    assert set(est.predict(X).tolist()) <= {"b", "c", "apple"}


def test_classes_argument_may_add_labels_but_not_leave_any_out(rng):
    X, y = _late_stream(rng, 3, late=[2])
    est = Perceptron(new_classes="append").partial_fit(X[:40], y[:40], classes=[0, 1, 2])
    est.partial_fit(X[:40], y[:40], classes=[0, 1, 2, 7, 5])  # declared before they arrive
    assert est.classes_.tolist() == [0, 1, 2, 5, 7]
    assert est.coef_.shape == (5, D)
    with pytest.raises(ValueError, match="leaves out labels"):
        est.partial_fit(X[:40], y[:40], classes=[0, 1, 2, 5])


def test_fit_and_warm_start_keep_their_meaning(rng):
    """fit takes its classes from y (sorted); a warm fit on a grown model takes the same set
    of labels and keeps the model's row order."""
    X, y = _late_stream(rng, 3, late=[0])
    est = Perceptron(new_classes="append", warm_start=True)
    est.partial_fit(X[:100], y[:100], classes=[1, 2])
    est.partial_fit(X[100:], y[100:])
    assert est.classes_.tolist() == [1, 2, 0]
    before = est.coef_.copy()
    est.set_params(max_iter=1).fit(X, y)
    assert est.classes_.tolist() == [1, 2, 0]
    assert not np.array_equal(est.coef_, before)  # trained on from the grown rows
    with pytest.raises(ValueError, match="but the model was fitted on"):
        est.fit(X[y != 0], y[y != 0])
    est.set_params(warm_start=False).fit(X, y)
    assert est.classes_.tolist() == [0, 1, 2]


def test_new_classes_is_a_parameter_clone_keeps():
    from sklearn.base import clone

    est = Perceptron(new_classes="append")
    assert est.get_params()["new_classes"] == "append"
    assert clone(est).new_classes == "append"
    with pytest.raises(ValueError, match="new_classes"):
        Perceptron(new_classes="grow").fit([[0.0], [1.0]], [0, 1])


def test_default_refuses_and_says_how_to_grow():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    est = Perceptron().partial_fit(X[:2], [0, 1], classes=[0, 1])
    with pytest.raises(ValueError, match=r"not in classes_.*\[2\].*new_classes='append'"):
        est.partial_fit(X, [0, 1, 2])
    with pytest.raises(ValueError, match="classes must not change"):
        est.partial_fit(X[:2], [0, 1], classes=[1, 2])
    assert est.classes_.tolist() == [0, 1] and est.coef_.shape == (1, 2)


@pytest.mark.parametrize("params", [dict(multiclass="ovr"), dict(tol=1e-3),
                                    dict(penalty="l2")])
def test_one_vs_rest_cannot_append(params):
    with pytest.raises(ValueError, match="one-vs-rest trains each class against a rest"):
        Perceptron(new_classes="append", **params).partial_fit([[0.0], [1.0]], [0, 1],
                                                               classes=[0, 1])


@pytest.mark.parametrize("make,reason", [
    (lambda: Perceptron(multiclass="ovr"), "one-vs-rest"),
    (lambda: PassiveAggressiveClassifier(), "one-vs-rest"),
    (lambda: VotedPerceptron(), "one-vs-rest"),
    (lambda: KernelPerceptron(kernel="rbf"), "kernel model's coefficients"),
    (lambda: BudgetKernelPerceptron(budget=4), "kernel model's coefficients"),
    (lambda: KernelPassiveAggressiveClassifier(kernel="rbf"), "kernel model's coefficients"),
])
def test_models_with_fixed_classes_refuse_naming_why(make, reason):
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])
    est = make().partial_fit(X, [0, 1, 0, 1], classes=[0, 1])
    with pytest.raises(ValueError, match=f"not in classes_.*{reason}"):
        est.partial_fit(X[:3], [0, 1, 2])
    assert est.classes_.tolist() == [0, 1]


def test_structured_perceptron_refuses_a_new_tag():
    X = np.eye(3)
    est = StructuredPerceptron().partial_fit(X, [0, 1, 0], lengths=[3], classes=[0, 1])
    with pytest.raises(ValueError, match="not in classes_.*transition scores"):
        est.partial_fit(X, [0, 1, 2], lengths=[3])


def test_dask_fit_continues_a_grown_model(rng):
    """perceptron_c.dask.fit with warm_start keeps the grown row order, as a serial fit."""
    da = pytest.importorskip("dask.array")
    import perceptron_c.dask

    X, y = _late_stream(rng, 3, late=[0])
    models = [Perceptron(new_classes="append", warm_start=True, max_iter=2) for _ in range(2)]
    for est in models:
        est.partial_fit(X[:100], y[:100], classes=[1, 2])
        est.partial_fit(X[100:], y[100:])
    serial = models[0].fit(X, y)
    mixed = perceptron_c.dask.fit(models[1], da.from_array(X, chunks=X.shape[0]),
                                  da.from_array(y, chunks=X.shape[0]))
    assert mixed.classes_.tolist() == serial.classes_.tolist() == [1, 2, 0]
    assert np.array_equal(mixed.coef_, serial.coef_)


def test_onnx_export_of_a_grown_model_predicts_the_same(rng):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    from perceptron_c.onnx import to_onnx

    X, y = _late_stream(rng, 4, late=[0])
    est = Perceptron(new_classes="append")
    est.partial_fit(X[:100], y[:100], classes=[1, 2, 3]).partial_fit(X[100:], y[100:])
    assert est.classes_.tolist() == [1, 2, 3, 0]
    session = ort.InferenceSession(to_onnx(est).SerializeToString())
    labels = session.run(None, {session.get_inputs()[0].name: X.astype(np.float32)})[0]
    assert np.array_equal(labels, est.predict(X))


def test_structured_perceptron_moves_a_declared_tag_before_its_first_example():
    """Why StructuredPerceptron refuses: unlike the argmax perceptron, a declared tag that no
    sentence has yet wins some Viterbi path, so its weights are not the zero of a new tag."""
    rng = np.random.default_rng(2)
    lengths = rng.integers(2, 6, size=30)
    X = rng.integers(0, 2, size=(lengths.sum(), 5)).astype(np.float64)
    y = rng.integers(0, 2, size=lengths.sum())
    est = StructuredPerceptron(average=False).partial_fit(X, y, lengths=lengths,
                                                          classes=[0, 1, 2])
    assert 2 not in y and np.any(est.coef_[2] != 0)


def test_class_weight_may_name_a_class_still_to_come(rng, model_backend):
    """With new_classes="append" a class_weight key for a label not yet met waits for it; the
    grown model still equals the one declared up front."""
    X, y = _late_stream(rng, 4, late=[3])
    weights = {0: 2.0, 3: 4.0}
    A = Perceptron(class_weight=weights, average=True)
    B = Perceptron(class_weight=weights, average=True, new_classes="append")
    for i, (Xb, yb) in enumerate(_batches(X, y)):
        A.partial_fit(Xb, yb, classes=[0, 1, 2, 3])
        B.partial_fit(Xb, yb, classes=[0, 1, 2] if i == 0 else None)
    assert np.array_equal(A.coef_, B.coef_) and np.array_equal(A.intercept_, B.intercept_)
    with pytest.raises(ValueError, match="not among the classes"):
        Perceptron(class_weight=weights).partial_fit(X[:40], y[:40], classes=[0, 1, 2])


def test_out_of_order_arrival_gives_the_same_rows_in_arrival_order(model_backend):
    """4 arrives before 3: classes_ is [0, 1, 2, 4, 3], and on data without tied scores (real
    values) the rows are those of the model declared with [0..4], in that order."""
    rng = np.random.default_rng(7)
    centers = rng.normal(0.0, 3.0, size=(5, D))
    y = np.r_[rng.integers(0, 3, 240), np.full(30, 4), rng.integers(0, 5, 90)]
    X = centers[y] + rng.normal(size=(y.shape[0], D))
    A, B = Perceptron(average=True), Perceptron(average=True, new_classes="append")
    for i, (Xb, yb) in enumerate(_batches(X, y, 30)):
        A.partial_fit(Xb, yb, classes=[0, 1, 2, 3, 4])
        B.partial_fit(Xb, yb, classes=[0, 1, 2] if i == 0 else None)
    assert B.classes_.tolist() == [0, 1, 2, 4, 3]
    assert np.array_equal(A.coef_[B.classes_], B.coef_)
    assert np.array_equal(A.intercept_[B.classes_], B.intercept_)


def test_a_new_label_keeps_the_type_of_classes_():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    est = Perceptron(new_classes="append").partial_fit(X[:2], [0, 1], classes=[0, 1])
    with pytest.raises(ValueError, match="not of the type of classes_"):
        est.partial_fit(X, ["a", "b", "c"])
    assert est.classes_.tolist() == [0, 1] and est.coef_.shape == (1, 2)
    est.partial_fit(X, np.array([0.0, 1.0, 2.0]))  # integral floats: int labels
    assert est.classes_.dtype == np.int64 and est.classes_.tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="not of the type of classes_"):
        Perceptron(new_classes="append").partial_fit(X[:2], [False, True], classes=[False, True]
                                                     ).partial_fit(X, [0, 1, 2])


def test_object_labels_grow_with_labels_of_their_own_types():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    big = np.array([2**70, 2**71], dtype=object)  # Python ints past int64: held as objects
    est = Perceptron(new_classes="append").partial_fit(X[:2], big, classes=big)
    est.partial_fit(X, np.array([2**70, 2**71, 5], dtype=object))
    assert est.classes_.dtype == object and est.classes_.tolist() == [2**70, 2**71, 5]
    with pytest.raises(TypeError, match="labels of another type"):
        est.partial_fit(X, np.array(["a", "b", "c"], dtype=object))
