"""perceptron_c.dask: a failed fit leaves the estimator as it was, fitted or not."""
import _thread
import copy
import threading
import uuid
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import perceptron_c  # noqa: F401
from perceptron_c import (  # noqa: E402
    PassiveAggressiveClassifier,
    PassiveAggressiveRegressor,
    Perceptron,
)
from perceptron_c import dask as pdask  # noqa: E402
from perceptron_c.datasets import make_blobs  # noqa: E402

SYNC = "synchronous"
pytestmark = pytest.mark.filterwarnings("ignore::perceptron_c._sgd_run.ConvergenceWarning")

# every kind of estimator dask.fit trains: both arithmetics, both mixers, a regressor
ESTIMATORS = {
    "perceptron": (Perceptron, {}),
    "perceptron-averaged-ovr": (Perceptron, {"average": True, "multiclass": "ovr"}),
    "perceptron-tol": (Perceptron, {"tol": 1e-3, "penalty": "l2"}),
    "pa-averaged": (PassiveAggressiveClassifier, {"average": True}),
    "pa-regressor": (PassiveAggressiveRegressor, {}),
}


def _make(name, **extra):
    cls, kw = ESTIMATORS[name]
    return cls(**dict(dict(kw, random_state=0, max_iter=6), **extra))


def _data(name, n=300, seed=0):
    rng = np.random.default_rng(seed)
    X, y = make_blobs(rng, n, 4, n_classes=3)
    X = X + rng.normal(size=X.shape) * 1.5
    if ESTIMATORS[name][0] is PassiveAggressiveRegressor:
        return X, X @ np.array([1.0, -2.0, 0.5, 0.0]) + rng.normal(size=n)
    return X, y


def _blocks(X, y, chunk=100):
    return da.from_array(X, chunks=(chunk, X.shape[1])), da.from_array(y, chunks=chunk)


def _fitted(name, **extra):
    """A model fitted on dask data (other data than the failing calls get)."""
    X, y = _data(name, seed=1)
    return pdask.fit(_make(name, **extra), *_blocks(X, y), client=SYNC)


def _snapshot(est):
    """Every attribute: the parameters as they are (they must stay the same objects), the
    fitted ones copied."""
    params = set(est._get_param_names())
    return {key: value if key in params else copy.deepcopy(value)
            for key, value in vars(est).items()}


def _same_bits(a, b, where):
    assert type(a) is type(b), where
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            _same_bits(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, np.ndarray):
        assert (a.dtype, a.shape) == (b.dtype, b.shape), where
        assert np.array_equal(a, b), where
        if a.dtype.kind != "O":
            assert a.tobytes() == b.tobytes(), where  # bit for bit: -0.0 is not 0.0
    else:
        assert a == b, where


def _assert_unchanged(est, before):
    after = vars(est)
    assert sorted(after) == sorted(before)
    params = set(est._get_param_names())
    for key, value in before.items():
        if key in params:
            assert after[key] is value, key
        else:
            _same_bits(value, after[key], key)


def _assert_unfitted(est):
    assert set(vars(est)) == set(est._get_param_names())
    assert not est.__sklearn_is_fitted__()


def _with_nan(X, row=150, column=2):
    bad = X.copy()
    bad[row, column] = np.nan
    return bad


_CALLS = {}  # per _Fails: the times its block was computed (a Client runs copies of it)
_CALLS_LOCK = threading.Lock()


class _Fails:
    """X's block ``block``, when computed for the ``call``-th time, raises ``exc`` (or
    interrupts the main thread as Ctrl-C does, for KeyboardInterrupt)."""

    def __init__(self, block, call, exc):
        self.block, self.call, self.exc, self.key = block, call, exc, uuid.uuid4().hex

    def __call__(self, x, block_info=None):
        if block_info[None]["chunk-location"][0] == self.block:
            with _CALLS_LOCK:
                calls = _CALLS[self.key] = _CALLS.get(self.key, 0) + 1
            if calls == self.call:
                if self.exc is KeyboardInterrupt:
                    _thread.interrupt_main()  # the synchronous scheduler: the driver's thread
                else:
                    raise self.exc
        return x


def _failing(name, exc, call=2, seed=2):
    """X and y whose block 1 fails when computed for the ``call``-th time (without persist,
    every epoch reads the blocks again: call 2 is epoch 2)."""
    X, y = _data(name, seed=seed)
    Xd, yd = _blocks(X, y)
    return Xd.map_blocks(_Fails(1, call, exc), dtype=X.dtype), yd


# ----------------------------------------------------------------- a failed fit: no trace

@pytest.mark.parametrize("warm_start", [False, True])
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_a_nan_in_one_block_leaves_the_fitted_model_as_it_was(name, warm_start):
    est = _fitted(name, warm_start=warm_start)
    before = _snapshot(est)
    X, y = _data(name, seed=2)
    with pytest.raises(ValueError, match="NaN"):
        pdask.fit(est, *_blocks(_with_nan(X), y), client=SYNC)
    _assert_unchanged(est, before)
    assert est.predict(X).shape == (300,)  # still an ordinary fitted model


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_a_failed_fit_leaves_an_unfitted_model_unfitted(name):
    X, y = _data(name)
    est = _make(name)
    with pytest.raises(ValueError, match="NaN"):
        pdask.fit(est, *_blocks(_with_nan(X), y), client=SYNC)
    _assert_unfitted(est)
    with pytest.raises(RuntimeError, match="disk"):
        pdask.fit(est, *_failing(name, RuntimeError("a worker lost its disk")), client=SYNC)
    _assert_unfitted(est)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_a_block_failing_in_epoch_2_leaves_the_model_as_it_was(name, capsys):
    est = _fitted(name, warm_start=True)
    est.set_params(verbose=1)
    before = _snapshot(est)
    capsys.readouterr()
    with pytest.raises(RuntimeError, match="disk"):
        pdask.fit(est, *_failing(name, RuntimeError("a worker lost its disk")), client=SYNC)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "epoch 1:" in lines[0]  # it failed after a finished epoch
    _assert_unchanged(est, before)


@pytest.mark.parametrize("average", [False, True])
def test_an_overflow_in_epoch_2_leaves_the_model_as_it_was(average):
    est = _fitted("perceptron", average=average)
    before = _snapshot(est)
    X, y = _data("perceptron", seed=3)
    X[150, 0] = 1e200  # alone in its block: epoch 1 adds it, epoch 2's activation overflows
    chunks = ((150, 1, 149), (4,))
    with pytest.raises(ValueError, match="overflow in epoch 2 .*left as it was before"):
        pdask.fit(est, da.from_array(X, chunks=chunks), da.from_array(y, chunks=chunks[0]),
                  client=SYNC)
    _assert_unchanged(est, before)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_ctrl_c_in_a_block_leaves_the_model_as_it_was(name):
    est = _fitted(name)
    before = _snapshot(est)
    with pytest.raises(KeyboardInterrupt):
        pdask.fit(est, *_failing(name, KeyboardInterrupt), client=SYNC)
    _assert_unchanged(est, before)
    fresh = _make(name)
    with pytest.raises(KeyboardInterrupt):
        pdask.fit(fresh, *_failing(name, KeyboardInterrupt), client=SYNC)
    _assert_unfitted(fresh)


def _interrupt_at_epoch_2(name, epoch, *args):
    if epoch == 2:
        raise KeyboardInterrupt  # Ctrl-C in the driver, between two epochs


def _interrupted_between_epochs(est, name, client, monkeypatch):
    X, y = _data(name, seed=4)
    est.set_params(verbose=1)
    before = _snapshot(est)
    with monkeypatch.context() as patch:
        patch.setattr(pdask, "report_epoch", _interrupt_at_epoch_2)
        with pytest.raises(KeyboardInterrupt):
            pdask.fit(est, *_blocks(X, y), client=client)
    _assert_unchanged(est, before)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_ctrl_c_between_epochs_leaves_the_model_as_it_was(name, monkeypatch):
    _interrupted_between_epochs(_fitted(name, warm_start=True), name, SYNC, monkeypatch)
    fresh = _make(name)
    _interrupted_between_epochs(fresh, name, SYNC, monkeypatch)
    _assert_unfitted(fresh)


@pytest.mark.parametrize("name,random_state", [("perceptron", np.random.default_rng),
                                               ("pa-averaged", np.random.RandomState)])
def test_a_failed_fit_draws_nothing_from_random_state(name, random_state):
    X, y = _data(name)
    want = pdask.fit(_make(name, random_state=random_state(5)), *_blocks(X, y), client=SYNC)
    est = _make(name, random_state=random_state(5))
    with pytest.raises(ValueError, match="NaN"):
        pdask.fit(est, *_blocks(_with_nan(X), y), client=SYNC)
    pdask.fit(est, *_blocks(X, y), client=SYNC)  # as if the failed call had not been made
    assert est._seed == want._seed
    assert np.array_equal(est.coef_, want.coef_)
    assert np.array_equal(est.intercept_, want.intercept_)


def test_failures_on_a_thread_cluster_leave_the_model_as_it_was(monkeypatch):
    names = ("perceptron-averaged-ovr", "pa-averaged")
    # the synchronous fits before the Client (with one active, old dask warns about them)
    fitted = {name: _fitted(name, warm_start=True) for name in names}
    before = {name: _snapshot(est) for name, est in fitted.items()}
    data = {name: _data(name, seed=1) for name in names}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        for name in names:
            est, (X, y) = fitted[name], _data(name, seed=2)
            with pytest.raises(ValueError, match="NaN"):
                pdask.fit(est, *_blocks(_with_nan(X), y), client=client)
            _assert_unchanged(est, before[name])
            with pytest.raises(RuntimeError, match="disk"):
                pdask.fit(est, *_failing(name, RuntimeError("a worker lost its disk")),
                          client=client)
            _assert_unchanged(est, before[name])
            _interrupted_between_epochs(est, name, client, monkeypatch)
            est.set_params(verbose=0, warm_start=False)  # then a fit on the same client works
            again = pdask.fit(est, *_blocks(*data[name]), client=client)
            assert again is est and est.n_iter_ == before[name]["n_iter_"]
            assert np.array_equal(est.coef_, before[name]["coef_"])
