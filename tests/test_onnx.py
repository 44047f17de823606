"""ONNX export (perceptron_c.onnx.to_onnx) run by onnxruntime: the same labels, decisions within
the rounding of the exported arithmetic."""
import numpy as np
import pytest

import perceptron_c as pc
from perceptron_c import kernels
from perceptron_c.datasets import make_blobs
from perceptron_c.onnx import to_onnx

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

# the models are trained for a few epochs on overlapping blobs: they need not converge
pytestmark = pytest.mark.filterwarnings("ignore::perceptron_c.exceptions.ConvergenceWarning")

N_FEATURES = 8
KERNELS = {"linear": {"kernel": "linear"},
           "poly": {"kernel": "poly", "degree": 3, "gamma": 0.2, "coef0": 1.0},
           "rbf": {"kernel": "rbf"},  # gamma None: 1 / n_features, resolved at export
           "rbf-gamma": {"kernel": "rbf", "gamma": 0.3},
           "composite": {"kernel": 0.5 * kernels.RBF(0.2) + kernels.Polynomial(2, 0.1, 1.0)
                         * kernels.Linear()}}
LINEAR = {
    "perceptron": lambda: pc.Perceptron(max_iter=10),
    "perceptron-averaged": lambda: pc.Perceptron(max_iter=10, average=True),
    "perceptron-ovr": lambda: pc.Perceptron(max_iter=10, multiclass="ovr"),
    "perceptron-averaged-ovr": lambda: pc.Perceptron(max_iter=10, average=True,
                                                     multiclass="ovr"),
    "perceptron-sgd-l2": lambda: pc.Perceptron(max_iter=10, tol=1e-3, penalty="l2",
                                               random_state=0),
    "perceptron-no-intercept": lambda: pc.Perceptron(max_iter=10, fit_intercept=False),
    "perceptron-normalized": lambda: pc.Perceptron(max_iter=10, normalize=True),
    "pa": lambda: pc.PassiveAggressiveClassifier(max_iter=10, random_state=0),
    "pa-averaged": lambda: pc.PassiveAggressiveClassifier(max_iter=10, random_state=0,
                                                          average=True),
}
KERNEL = {
    "kernel-perceptron": lambda kw: pc.KernelPerceptron(max_iter=5, random_state=0, **kw),
    "kernel-perceptron-averaged": lambda kw: pc.KernelPerceptron(max_iter=5, random_state=0,
                                                                 average=True, **kw),
    "kernel-pa": lambda kw: pc.KernelPassiveAggressiveClassifier(max_iter=5, random_state=0,
                                                                 **kw),
    "budget-random": lambda kw: pc.BudgetKernelPerceptron(budget=15, max_iter=5,
                                                          random_state=0, **kw),
    "budget-forgetron-averaged": lambda kw: pc.BudgetKernelPerceptron(
        budget=15, strategy="forgetron", max_iter=5, random_state=0, average=True, **kw),
}
MODELS = {**LINEAR, **{f"{m}-{k}": (lambda m=m, k=k: KERNEL[m](KERNELS[k]))
                       for m in KERNEL for k in KERNELS}}


def _unit(dtype):
    """The unit roundoff u of a float type (half its epsilon)."""
    return float(np.finfo(dtype).eps) / 2


def _gamma(n, u):
    """Higham's gamma_n = n u / (1 - n u): the relative error bound of n roundings in a row."""
    return n * u / (1 - n * u)


def _gram_and_error(kern, X, SV, u, package=False):
    """K(X, SV) in float64 and a first-order bound on the error of the exported graph's K
    computed with unit roundoff u (``package``: of the package's own K, in float64), from the
    magnitude of each term (the inputs and constants rounded to the float type count as one
    rounding each)."""
    D = X.shape[1]
    if type(kern) is kernels.Linear:
        return X @ SV.T, _gamma(D + 3, u) * (np.abs(X) @ np.abs(SV).T)
    if type(kern) is kernels.Polynomial:
        t = X @ SV.T
        err_t = _gamma(D + 3, u) * (np.abs(X) @ np.abs(SV).T)
        base = kern.gamma * t + kern.coef0
        err_base = kern.gamma * err_t + 3 * u * (kern.gamma * np.abs(t) + kern.coef0)
        K = base ** kern.degree
        steps = 2 * int(kern.degree).bit_length()  # the multiplications of the squaring chain
        return K, kern.degree * np.abs(base) ** (kern.degree - 1) * err_base + \
            _gamma(steps, u) * np.abs(K)
    if type(kern) is kernels.RBF:
        # the expansion ||x'||^2 + ||s'||^2 - 2 x'.s' on rows centred at the support vectors'
        # mean (exported) or as they are (the package's), from the differences where it may
        # have cancelled: below 2^-30 of the norms' sum (surely below 2^-31 here)
        g = 1.0 / D if kern.gamma is None else kern.gamma
        c = np.zeros(D) if package else SV.mean(axis=0)
        Xc, S = X - c, SV - c
        norms = (Xc ** 2).sum(1)[:, None] + (S ** 2).sum(1)[None, :]
        near = np.maximum(norms - 2 * Xc @ S.T, 0) <= 2.0 ** -31 * norms
        diff = np.abs(X[:, None, :] - SV[None, :, :])
        sq = (diff ** 2).sum(-1)
        # rounding x and c before x - c: u (|x| + |c|) twice per coordinate, and s - c once;
        # moving x' - s' by e moves the squared distance by 2 |x' - s'| e
        e_x = 2 * u * (np.abs(X) + np.abs(c)) if not package else 0 * X
        e_s = 2 * u * np.abs(S) if not package else 0 * S
        err_expansion = 2 * (diff * (e_x[:, None, :] + e_s[None, :, :])).sum(-1) + \
            _gamma(D + 4, u) * (norms + 2 * np.abs(Xc) @ np.abs(S).T)
        err_sq = np.where(near, _gamma(D + 3, u) * sq, err_expansion)
        K = np.exp(-g * sq)
        return K, K * (g * err_sq + 2 * u * g * sq + 4 * u)
    if type(kern) in (kernels.Sum, kernels.Product):
        K1, e1 = _gram_and_error(kern.k1, X, SV, u, package)
        K2, e2 = _gram_and_error(kern.k2, X, SV, u, package)
        if type(kern) is kernels.Sum:
            return K1 + K2, e1 + e2 + u * np.abs(K1 + K2)
        return K1 * K2, np.abs(K1) * e2 + np.abs(K2) * e1 + u * np.abs(K1 * K2)
    if type(kern) is kernels.Scaled:
        K, e = _gram_and_error(kern.k, X, SV, u, package)
        return kern.c * K, kern.c * e + 2 * u * kern.c * np.abs(K)
    raise AssertionError(kern)


def _error_bound(est, X, u, package=False):
    """A bound on |exported decision - exact decision| with unit roundoff u (``package``: on
    |decision_function - exact decision|, u of float64), per row and class: gamma_n times the
    magnitude of the terms summed, plus each kernel value's own."""
    from perceptron_c._utils._rows import dense_rows
    from perceptron_c.kernels._rows import fitted_kernel

    if hasattr(est, "coef_"):
        W = np.atleast_2d(est.coef_)
        return _gamma(X.shape[1] + 3, u) * (np.abs(X) @ np.abs(W).T + np.abs(est.intercept_))
    _, kern = fitted_kernel(est)
    SV, A = dense_rows(est.support_vectors_), np.asarray(est.dual_coef_)
    K, err = _gram_and_error(kern, X, SV, u, package)
    return err @ np.abs(A).T + _gamma(SV.shape[0] + 3, u) * (
        np.abs(K) @ np.abs(A).T + np.abs(est.intercept_))


def _data(n_classes, labels, sparse, seed=0):
    rng = np.random.default_rng(seed)
    X, y = make_blobs(rng, 220, N_FEATURES, n_classes=n_classes, spread=1.5)
    X[np.abs(X) < 0.4] = 0.0  # zeros, so that the CSR form is sparse
    names = np.array([-3, 7, 12]) if labels == "int" else np.array(["cat", "dog", "emu"])
    y = names[y]
    Xtrain, ytrain, Xtest = X[:150], y[:150], X[150:]
    if sparse:
        sp = pytest.importorskip("scipy.sparse")
        Xtrain = sp.csr_matrix(Xtrain)
    return Xtrain, ytrain, Xtest


def _run(model, X, dtype):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {"X": X.astype(dtype)})


def _check_decisions(est, Xtest, got, want, dtype):
    """|got - want| within the exported graph's rounding bound plus ours (float64)."""
    tol = _error_bound(est, Xtest, _unit(dtype)) + _error_bound(est, Xtest, _unit(np.float64),
                                                                package=True)
    tol = tol.reshape(want.shape)
    assert got.dtype == dtype
    diff = np.abs(got.astype(np.float64) - want)
    with np.errstate(divide="ignore", invalid="ignore"):  # (a bound of 0 where K underflows)
        excess = np.where(diff == 0, 0.0, diff / tol)
    assert excess.max() <= 1.0, f"decision off by {excess.max():.3g} x the rounding bound"


@pytest.mark.parametrize("labels", ["int", "str"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_labels_equal_and_decisions_within_rounding(name, n_classes, sparse, labels):
    Xtrain, ytrain, Xtest = _data(n_classes, labels, sparse)
    est = MODELS[name]().fit(Xtrain, ytrain)
    want_labels, want = est.predict(Xtest), est.decision_function(Xtest)
    for dtype in (np.float32, np.float64):
        label, decision = _run(to_onnx(est, dtype=dtype), Xtest, dtype)
        assert label.shape == want_labels.shape and decision.shape == want.shape
        assert (label == want_labels).all()
        _check_decisions(est, Xtest, decision, want, dtype)


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_regressor_within_rounding(average, sparse):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, N_FEATURES))
    X[np.abs(X) < 0.4] = 0.0
    y = X @ rng.normal(size=N_FEATURES) + 2.0
    Xtrain = X[:150]
    if sparse:
        Xtrain = pytest.importorskip("scipy.sparse").csr_matrix(Xtrain)
    est = pc.PassiveAggressiveRegressor(max_iter=10, random_state=0, average=average)
    est.fit(Xtrain, y[:150])
    want = est.predict(X[150:])
    for dtype in (np.float32, np.float64):
        (variable,) = _run(to_onnx(est, dtype=dtype), X[150:], dtype)
        _check_decisions(est, X[150:], variable, want, dtype)
        (column,) = _run(to_onnx(est, dtype=dtype, layout="sklearn-onnx"), X[150:], dtype)
        assert column.shape == (50, 1)
        assert np.array_equal(column[:, 0], variable)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_sklearn_onnx_layout(n_classes):
    """sklearn-onnx's outputs: ``probabilities`` (n, n_classes), (-f, f) for two classes."""
    Xtrain, ytrain, Xtest = _data(n_classes, "int", False)
    est = pc.Perceptron(max_iter=10).fit(Xtrain, ytrain)
    model = to_onnx(est, layout="sklearn-onnx")
    assert [o.name for o in model.graph.output] == ["label", "probabilities"]
    label, proba = _run(model, Xtest, np.float32)
    (_, decision) = _run(to_onnx(est), Xtest, np.float32)
    assert (label == est.predict(Xtest)).all()
    want = np.stack([-decision, decision], axis=1) if n_classes == 2 else decision
    assert np.array_equal(proba, want)


def test_outputs_and_metadata():
    Xtrain, ytrain, _ = _data(3, "str", False)
    model = to_onnx(pc.Perceptron(max_iter=10).fit(Xtrain, ytrain))
    assert [i.name for i in model.graph.input] == ["X"]
    assert [o.name for o in model.graph.output] == ["label", "decision"]
    assert model.graph.output[0].type.tensor_type.elem_type == onnx.TensorProto.STRING
    assert {p.key: p.value for p in model.metadata_props}["estimator"] == "Perceptron"
    assert model.producer_name == "perceptron_c"


SCALE_MODELS = {"kernel-perceptron": pc.KernelPerceptron,
                "kernel-pa": pc.KernelPassiveAggressiveClassifier,
                "budget": pc.BudgetKernelPerceptron}


@pytest.mark.parametrize("name", sorted(SCALE_MODELS))
@pytest.mark.parametrize("offset", [0.0, 3e4, 1e9])
@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e3, 1e9])
def test_rbf_in_float64_at_any_feature_scale(name, scale, offset):
    """The RBF graph's squared distances cancelled on large features: at 1e9, the kernel of
    a row with itself came out about 0 and up to 9.6% of the labels differed. Now they take
    the package's own rule (from the differences where the expansion may have cancelled), on
    rows centred at the support vectors' mean: labels equal, decisions within rounding, on
    the support vectors themselves and rows near them too."""
    rng = np.random.default_rng([int(np.log10(scale)) + 3, int(np.log10(offset + 1))])
    X = rng.normal(size=(150, 4)) * scale + offset
    Z = (X - offset) / scale
    y = (Z[:, 0] ** 2 + Z[:, 1] ** 2 > 1.4).astype(int)
    for gamma in (None, 0.5 / scale ** 2):  # the default, and one tuned to the scale
        est = SCALE_MODELS[name](kernel="rbf", gamma=gamma, max_iter=3,
                                 random_state=0).fit(X, y)
        SV = est.support_vectors_
        T = np.vstack([rng.normal(size=(60, 4)) * scale + offset, SV,
                       SV + rng.normal(size=SV.shape) * scale * 1e-3])
        label, decision = _run(to_onnx(est, dtype=np.float64), T, np.float64)
        assert (label == est.predict(T)).all()
        _check_decisions(est, T, decision, est.decision_function(T), np.float64)


def test_rbf_pairs_from_differences_come_in_chunks_of_any_size(monkeypatch):
    """Two tight clusters far apart: every pair within a cluster is recomputed from its
    differences, a chunk of pairs per step of the graph's loop; the chunk size changes no
    bit, and memory stays a chunk's."""
    from perceptron_c import onnx as pco

    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 4))
    X[:, 0] += np.where(rng.random(300) < 0.5, -1e9, 1e9)
    y = (X[:, 1] + X[:, 2] > 0).astype(int)
    est = pc.KernelPerceptron(kernel="rbf", max_iter=3, random_state=0).fit(X, y)
    T = np.vstack([X[:40], X[:40] + rng.normal(size=(40, 4))])
    outs = []
    for chunk in (pco.NEAR_CHUNK, 7, 1):
        monkeypatch.setattr(pco, "NEAR_CHUNK", chunk)
        outs.append(_run(to_onnx(est, dtype=np.float64), T, np.float64))
    assert all(np.array_equal(a, b) for out in outs[1:] for a, b in zip(out, outs[0]))
    assert (outs[0][0] == est.predict(T)).all()
    _check_decisions(est, T, outs[0][1], est.decision_function(T), np.float64)


def test_no_support_vector_predicts_the_intercept():
    """A kernel model that never erred has no support vector: the graph is its intercept."""
    X = np.array([[1.0, 0.0], [2.0, 0.0]])
    est = pc.KernelPerceptron(kernel="rbf").fit(X, [1, 0])
    assert est.n_support_ > 0  # a first mistake always happens from zero weights: empty it
    est._alpha = est._alpha[:, :0]
    est._sv = est._sv[:0]
    est._b = np.array([0.5])
    est._publish()
    label, decision = _run(to_onnx(est), X, np.float32)
    assert np.array_equal(decision, np.full(2, 0.5, np.float32))
    assert np.array_equal(label, est.predict(X))


def test_sparse_coef_exports_as_dense():
    Xtrain, ytrain, Xtest = _data(3, "int", False)
    est = pc.Perceptron(max_iter=10).fit(Xtrain, ytrain)
    want = _run(to_onnx(est), Xtest, np.float32)
    pytest.importorskip("scipy.sparse")
    est.sparsify()
    got = _run(to_onnx(est), Xtest, np.float32)
    assert all(np.array_equal(a, b) for a, b in zip(want, got))


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("make", [lambda: pc.Perceptron(max_iter=10, fit_intercept=False),
                                  lambda: pc.KernelPerceptron(kernel="linear", max_iter=5,
                                                              fit_intercept=False)],
                         ids=["perceptron", "kernel-perceptron"])
def test_a_zero_decision_decides_as_predict(make, n_classes):
    """A row of zeros without an intercept scores exactly 0: classes_[0] for two classes (the
    positive class needs > 0), the lowest class index among tied classes."""
    Xtrain, ytrain, _ = _data(n_classes, "str", False)
    est = make().fit(Xtrain, ytrain)
    Z = np.zeros((3, N_FEATURES))
    assert not np.any(est.decision_function(Z))
    for dtype in (np.float32, np.float64):
        label, _ = _run(to_onnx(est, dtype=dtype), Z, dtype)
        assert (label == est.classes_[0]).all() and (label == est.predict(Z)).all()


# ---------------------------------------------------------------- what cannot be exported
def test_unfitted_is_refused():
    with pytest.raises(pc.NotFittedError):
        to_onnx(pc.Perceptron())
    with pytest.raises(pc.NotFittedError):
        to_onnx(pc.KernelPerceptron())


@pytest.mark.parametrize("est", [pc.VotedPerceptron(), pc.StructuredPerceptron(), object()],
                         ids=["voted", "structured", "object"])
def test_unsupported_estimator_is_refused(est):
    with pytest.raises(TypeError, match="to_onnx exports Perceptron"):
        to_onnx(est)


@pytest.mark.parametrize("model", [pc.KernelPerceptron, pc.BudgetKernelPerceptron,
                                   pc.KernelPassiveAggressiveClassifier])
def test_conjunction_kernel_is_refused(model):
    rng = np.random.default_rng(0)
    X = (rng.random((40, 12)) < 0.5).astype(float)
    y = X[:, 0].astype(int)
    kw = {"budget": 10} if model is pc.BudgetKernelPerceptron else {}
    est = model(kernel="conjunction", max_iter=3, **kw).fit(X, y)
    with pytest.raises(ValueError, match="conjunction kernel.*float32's range"):
        to_onnx(est)


def test_precomputed_and_callable_kernels_are_refused():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    est = pc.KernelPerceptron(kernel="precomputed", max_iter=3).fit(X @ X.T, y)
    with pytest.raises(ValueError, match="precomputed"):
        to_onnx(est)
    est = pc.KernelPerceptron(kernel=lambda A, B: np.asarray(A) @ np.asarray(B).T,
                              max_iter=3).fit(X, y)
    with pytest.raises(ValueError, match="callable"):
        to_onnx(est)


# every label type scikit-learn accepts, as sklearn-onnx maps them for its own Perceptron
LABELS = {"bool": lambda c: c > 0, "float": lambda c: np.array([-1.0, 3.0, 7.0])[c],
          "int": lambda c: np.array([-3, 7, 2**40])[c],
          "str": lambda c: np.array(["cat", "dog", "emu"])[c],
          "object": lambda c: np.array(["cat", "dog", "emu"], dtype=object)[c]}


def _labelled(kind, n_classes):
    rng = np.random.default_rng(5)
    X, c = make_blobs(rng, 160, 4, n_classes=n_classes, spread=1.5)
    return X.astype(np.float32), LABELS[kind](c)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("kind", sorted(LABELS))
def test_labels_of_every_type_as_sklearn_onnx_gives_them(kind, n_classes):
    """Our export (to_onnx, and the registered converter) gives the labels sklearn-onnx gives
    for scikit-learn's Perceptron on the same y: the same values, the same dtype."""
    skl2onnx = pytest.importorskip("skl2onnx")
    from sklearn.linear_model import Perceptron

    from perceptron_c.onnx import register_skl2onnx

    if kind == "bool" and n_classes == 3:
        pytest.skip("two classes only")
    register_skl2onnx()
    X, y = _labelled(kind, n_classes)
    theirs = Perceptron(random_state=0).fit(X, y)
    ours = pc.Perceptron(max_iter=20).fit(X, y)
    want = theirs.predict(X)
    if kind != "int":  # sklearn-onnx casts labels through int32: 2**40 does not survive it
        (want_label, _) = _run(skl2onnx.to_onnx(theirs, X[:1], options={"zipmap": False}),
                               X, np.float32)
        assert want_label.dtype == (np.int64 if kind in ("bool", "float") else object)
        assert (want_label == want).all()
    # onnxruntime hands strings back as an object array
    expected = np.asarray(ours.predict(X)).astype(np.int64 if kind in ("bool", "float", "int")
                                                  else object)
    for model in (to_onnx(ours), skl2onnx.to_onnx(ours, X[:1], options={"zipmap": False})):
        label = _run(model, X, np.float32)[0]
        assert label.dtype == expected.dtype and (label == expected).all()


def test_labels_beyond_int64_are_refused():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = np.where(X[:, 0] > 0, np.uint64(2**63), np.uint64(1))
    est = pc.Perceptron(max_iter=3).fit(X, y)
    with pytest.raises(TypeError, match="int64"):
        to_onnx(est)


def test_bad_arguments_are_refused():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    est = pc.Perceptron(max_iter=3).fit(X, [0, 1])
    with pytest.raises(TypeError, match="dtype"):
        to_onnx(est, dtype=np.int64)
    for dtype in ("no such type", None):  # (numpy reads None as float64)
        with pytest.raises(TypeError, match="dtype"):
            to_onnx(est, dtype=dtype)
    with pytest.raises(ValueError, match="layout"):
        to_onnx(est, layout="zipmap")


# ---------------------------------------------------------------- sklearn-onnx's converters
@pytest.mark.parametrize("n_classes,labels,make", [
    (2, "int", lambda: pc.Perceptron(max_iter=10, average=True)),
    (3, "str", lambda: pc.KernelPerceptron(kernel="rbf", max_iter=5, random_state=0)),
    (3, "int", lambda: pc.BudgetKernelPerceptron(budget=15, kernel="poly", max_iter=5,
                                                 random_state=0)),
], ids=["perceptron-binary", "kernel-perceptron-rbf", "budget-poly"])
def test_a_pipeline_converts_with_sklearn_onnx(n_classes, labels, make):
    skl2onnx = pytest.importorskip("skl2onnx")
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from perceptron_c.onnx import register_skl2onnx

    register_skl2onnx()
    register_skl2onnx()  # again: nothing changes
    Xtrain, ytrain, Xtest = _data(n_classes, labels, False)
    Xtrain, Xtest = Xtrain * 3 + 1, Xtest * 3 + 1  # something for the scaler to undo
    est = make()
    pipe = make_pipeline(StandardScaler(), est).fit(Xtrain, ytrain)
    want = est.decision_function(pipe[0].transform(Xtest))
    want2 = np.stack([-want, want], axis=1) if n_classes == 2 else want
    for dtype in (np.float32, np.float64):
        model = skl2onnx.to_onnx(pipe, Xtest[:1].astype(dtype),
                                 options={id(est): {"zipmap": False}})
        label, proba = _run(model, Xtest, dtype)
        assert (label == pipe.predict(Xtest)).all()
        # the scaler's float rounding comes first: a looser check than the bound above
        np.testing.assert_allclose(proba, want2, rtol=1e-4 if dtype == np.float32 else 1e-10,
                                   atol=1e-4 if dtype == np.float32 else 1e-10)
    model = skl2onnx.to_onnx(pipe, Xtest[:1].astype(np.float32))  # with ZipMap
    label, maps = _run(model, Xtest, np.float32)
    assert (label == pipe.predict(Xtest)).all()
    assert sorted(maps[0]) == sorted(est.classes_.tolist())


def test_rbf_pairs_from_differences_convert_with_sklearn_onnx():
    """The graph's loop over recomputed pairs keeps its names in sklearn-onnx's scope."""
    skl2onnx = pytest.importorskip("skl2onnx")
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    from perceptron_c.onnx import register_skl2onnx

    register_skl2onnx()
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 3)) * 1e9  # every row repeats a support vector or none
    y = rng.integers(0, 2, 200)
    pipe = make_pipeline(FunctionTransformer(), pc.KernelPerceptron(kernel="rbf", max_iter=3,
                                                                    random_state=0)).fit(X, y)
    model = skl2onnx.to_onnx(pipe, X[:1], options={id(pipe[-1]): {"zipmap": False}})
    label, proba = _run(model, X, np.float64)
    assert (label == pipe.predict(X)).all()
    np.testing.assert_allclose(proba[:, 1], pipe.decision_function(X), rtol=0, atol=1e-12)


def test_a_regressor_pipeline_converts_with_sklearn_onnx():
    skl2onnx = pytest.importorskip("skl2onnx")
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from perceptron_c.onnx import register_skl2onnx

    register_skl2onnx()
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 4)) * 5 - 2
    pipe = make_pipeline(StandardScaler(), pc.PassiveAggressiveRegressor(random_state=0))
    pipe.fit(X[:150], X[:150, 0] - 2 * X[:150, 1])
    (variable,) = _run(skl2onnx.to_onnx(pipe, X[:1]), X[150:], np.float64)
    assert variable.shape == (50, 1)
    np.testing.assert_allclose(variable[:, 0], pipe.predict(X[150:]), rtol=1e-10, atol=1e-10)


OPSET_MODELS = {"perceptron": (lambda: pc.Perceptron(max_iter=10), 7),
                "kernel-poly": (lambda: pc.KernelPerceptron(kernel="poly", degree=2,
                                                            max_iter=5, random_state=0), 7),
                "kernel-rbf": (lambda: pc.KernelPerceptron(kernel="rbf", max_iter=5,
                                                           random_state=0), 13)}


@pytest.mark.parametrize("name", sorted(OPSET_MODELS))
def test_target_opset_down_to_the_lowest_the_graph_needs(name):
    from perceptron_c.onnx import OPSET

    make, lowest = OPSET_MODELS[name]
    Xtrain, ytrain, Xtest = _data(3, "int", False)
    est = make().fit(Xtrain, ytrain)
    for opset in range(lowest, OPSET + 2):
        model = to_onnx(est, target_opset=opset)
        assert model.opset_import[0].version == opset
        label, decision = _run(model, Xtest, np.float32)
        assert (label == est.predict(Xtest)).all(), opset
        np.testing.assert_allclose(decision, est.decision_function(Xtest), rtol=1e-4,
                                   atol=1e-4)
    with pytest.raises(ValueError, match=f"needs opset >= {lowest} "):
        to_onnx(est, target_opset=lowest - 1)
    with pytest.raises(ValueError, match="installed onnx knows"):
        to_onnx(est, target_opset=onnx.defs.onnx_opset_version() + 1)
    with pytest.raises(TypeError, match="target_opset"):
        to_onnx(est, target_opset="17")


@pytest.mark.parametrize("name", sorted(OPSET_MODELS))
def test_sklearn_onnx_target_opset_down_to_the_lowest(name):
    skl2onnx = pytest.importorskip("skl2onnx")
    from perceptron_c.onnx import register_skl2onnx

    register_skl2onnx()
    make, lowest = OPSET_MODELS[name]
    Xtrain, ytrain, Xtest = _data(2, "str", False)
    est = make().fit(Xtrain, ytrain)
    for opset in (lowest, 15):
        model = skl2onnx.to_onnx(est, Xtrain[:1].astype(np.float32), target_opset=opset,
                                 options={"zipmap": False})
        assert (_run(model, Xtest, np.float32)[0] == est.predict(Xtest)).all(), opset
    with pytest.raises(ValueError, match=f"needs opset >= {lowest} "):
        skl2onnx.to_onnx(est, Xtrain[:1].astype(np.float32), target_opset=lowest - 1,
                         options={"zipmap": False})


@pytest.mark.parametrize("kind", sorted(LABELS))
def test_output_class_labels_as_sklearn_onnx_gives_them(kind):
    """sklearn-onnx's option output_class_labels: a third output holding the classes, in
    the order of the decision columns, of the labels' type. Through sklearn-onnx its own
    converter of that output writes it, which fails on bool and float classes (for
    scikit-learn's Perceptron too): there, to_onnx alone."""
    skl2onnx = pytest.importorskip("skl2onnx")
    from sklearn.linear_model import Perceptron

    from perceptron_c.onnx import register_skl2onnx

    register_skl2onnx()
    X, y = _labelled(kind, 2)
    ours = pc.Perceptron(max_iter=20).fit(X, y)
    classes = np.asarray(ours.classes_).astype(object if kind in ("str", "object")
                                               else np.int64)
    opts = {"zipmap": False, "output_class_labels": True}
    models = [to_onnx(ours, output_class_labels=True),
              to_onnx(ours, layout="sklearn-onnx", output_class_labels=True)]
    if kind not in ("bool", "float"):
        models.append(skl2onnx.to_onnx(ours, X[:1], options=opts))
        theirs = Perceptron(random_state=0).fit(X, y)
        want = _run(skl2onnx.to_onnx(theirs, X[:1], options=opts), X, np.float32)[2]
        assert want.dtype == classes.dtype and (want == classes).all()
    for model in models:
        outputs = _run(model, X, np.float32)
        assert len(outputs) == 3 and model.graph.output[2].name.startswith("class_labels")
        assert outputs[2].dtype == classes.dtype and (outputs[2] == classes).all()
    est = pc.PassiveAggressiveRegressor().fit(X, np.arange(len(X), dtype=float))
    with pytest.raises(ValueError, match="output_class_labels"):
        to_onnx(est, output_class_labels=True)
