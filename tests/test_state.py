"""The state of the dict-state estimators is what they declare (``_declared_state``): after
fit, the arrays, dtypes and shapes; in the model file; and the mixing roles dask uses. The
kernel models' model files hold exactly their declared arrays, shaped over the support set."""
import numpy as np
import pytest

from perceptron_c import (
    BudgetKernelPerceptron,
    KernelPassiveAggressiveClassifier,
    KernelPerceptron,
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    Perceptron,
    StructuredPerceptron,
    VotedPerceptron,
)
from perceptron_c._estimator._training import StateArray, entry_names, mixing_roles, new_state

X = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, -1.0], [1.0, 1.0, 0.0], [0.0, -1.0, 1.0]] * 5)
Y3 = np.array([0, 1, 2, 1] * 5)


def _fitted():
    yield Perceptron(max_iter=3, random_state=0), Y3
    yield Perceptron(max_iter=3, random_state=0, average=True), Y3
    yield Perceptron(max_iter=3, random_state=0, average=True, multiclass="argmax"), Y3
    yield Perceptron(max_iter=3, random_state=0, average=True, tol=None, penalty="l2"), Y3
    yield PassiveAggressiveClassifier(max_iter=3, tol=None, random_state=0, average=True), Y3 % 2
    yield PassiveAggressiveRegressor(max_iter=3, tol=None, random_state=0), X[:, 0] - X[:, 1]
    yield StructuredPerceptron(max_iter=3, random_state=0, average=True), Y3


@pytest.mark.parametrize(("est", "y"), list(_fitted()), ids=lambda e: repr(e)[:60])
def test_the_state_is_the_declaration(est, y, tmp_path):
    if isinstance(est, StructuredPerceptron):
        est.fit(X, y, [4] * 5)
    else:
        est.fit(X, y)
    declared = est._declared_state(est._spec())
    assert list(est._state) == [a.name for a in declared]
    for a in declared:
        assert est._state[a.name].dtype == a.dtype, a.name
        assert all(isinstance(s, int) or s in ("rows", "d", "clocks", "K", "K2")
                   for s in a.shape), a.name
    fresh = new_state(declared, {"rows": est._state[declared[0].name].shape[0],
                                 "d": X.shape[1], "K": 3, "K2": 5,
                                 "clocks": est._state.get("count", np.ones(1)).shape[0]})
    assert {k: (v.shape, v.dtype) for k, v in fresh.items()} == \
        {k: (v.shape, v.dtype) for k, v in est._state.items()}
    path = est.save(tmp_path / "m.npz")
    with np.load(path) as archive:
        assert {f"state/{name}" for name in entry_names(declared)} <= set(archive.files)


def test_mixing_roles_name_the_averaging_sums():
    est = Perceptron(average=True)
    roles = mixing_roles(est._declared_state(None))
    assert roles == {"w": "mean", "b": "mean", "t": "mean", "u": "sum", "beta": "sum",
                     "count": "clock"}
    assert set(mixing_roles(StructuredPerceptron(average=True)._declared_state({})).values()) \
        == {"mean", "sum", "clock"}


def test_a_declaration_is_checked():
    with pytest.raises(ValueError, match="mixing"):
        StateArray("w", ("rows",), mixing="median")
    with pytest.raises(ValueError, match="clock"):
        StateArray("clock", (1,), np.int64, "clock")
    with pytest.raises(ValueError, match="clock"):
        StateArray("count", (1,), np.int64, "mean")


B = (np.arange(20 * 70).reshape(20, 70) % 7 < 2).astype(np.uint8)


def _kernel_models():
    for kernel, Xk in (("rbf", X), ("conjunction", B)):
        yield KernelPerceptron(kernel=kernel, average=True, max_iter=2, random_state=0), Xk
        yield KernelPassiveAggressiveClassifier(kernel=kernel, max_iter=2, tol=None,
                                                random_state=0), Xk
        for strategy in ("random", "forgetron", "projectron"):
            yield BudgetKernelPerceptron(kernel=kernel, strategy=strategy, budget=5,
                                         average=strategy == "random", max_iter=2,
                                         random_state=0), Xk


@pytest.mark.parametrize(("est", "Xk"), list(_kernel_models()),
                         ids=lambda v: repr(v)[:60] if not isinstance(v, np.ndarray) else "X")
def test_a_kernel_model_file_holds_its_declaration(est, Xk, tmp_path):
    est.fit(Xk, Y3)
    declared = est._declared_state(est._kind, est._alpha.dtype, est._averaged())
    sizes = {"rows": 3, "n_sv": est.n_support_, "d": Xk.shape[1], "words": 2}
    path = est.save(tmp_path / "m.npz")
    with np.load(path) as archive:
        own = [f for f in archive.files if f.startswith("state/")]
        own = [f[6:] for f in own if f[6:] not in ("classes_", "mistakes_", "scalars",
                                                     "fit_params")]
        assert own == [a.name for a in declared]
        for a in declared:
            value = archive[f"state/{a.name}"]
            assert (value.dtype, value.shape) == (a.dtype, a.shape_of(sizes)), a.name


def test_a_voted_model_file_holds_its_declaration(tmp_path):
    from perceptron_c.voted_perceptron import _coefficients, _votes

    est = VotedPerceptron(kernel="rbf", max_iter=2, random_state=0).fit(X, Y3)
    declared = (*_votes(np.float64), StateArray("sv", ("n_sv", "d"), np.float64, "none"),
                _coefficients("rbf", np.float64))
    total = int(est._m_ptr[-1])
    sizes = {"machines": 3, "ptr": 4, "total": total, "votes": total + 3,
             "n_sv": est._sv.shape[0], "d": X.shape[1]}
    with np.load(est.save(tmp_path / "m.npz")) as archive:
        for a in declared:
            value = archive[f"state/{a.name}"]
            assert (value.dtype, value.shape) == (a.dtype, a.shape_of(sizes)), a.name


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("max_gram_bytes", [10**8, 64])  # cached scores, streamed rows
@pytest.mark.parametrize("cls", [KernelPerceptron, KernelPassiveAggressiveClassifier])
def test_a_kernel_run_checkpoints_its_declared_coefficients(cls, max_gram_bytes, average,
                                                            monkeypatch):
    """An epoch interrupted after it changed the working copy (`_pool_state`) is undone."""
    kw = {"average": average, "max_gram_bytes": max_gram_bytes, "random_state": 0,
          **({"tol": None} if cls is KernelPassiveAggressiveClassifier else {})}
    ref = cls(max_iter=1, **kw).fit(X, Y3)
    est = cls(max_iter=5, **kw)
    calls = []
    original = est._start

    def start(*args):
        r = original(*args)
        epoch = r.epoch

        def interrupted(order):
            mistakes = epoch(order)
            calls.append(1)
            if len(calls) == 2:
                raise KeyboardInterrupt
            return mistakes
        r.epoch = interrupted
        return r
    monkeypatch.setattr(est, "_start", start)
    with pytest.raises(KeyboardInterrupt):
        est.fit(X, Y3)
    assert est.n_iter_ == 1
    assert np.array_equal(est.dual_coef_, ref.dual_coef_)
    assert np.array_equal(est.support_, ref.support_)
