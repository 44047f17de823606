"""perceptron_c.dask: a failed fit leaves the estimator as it was; X, y and weights agree."""
import _thread
import copy
import signal
import threading
import uuid

import numpy as np
import pytest

from perceptron_c import PassiveAggressiveClassifier, PassiveAggressiveRegressor, Perceptron
from perceptron_c._estimator import _training
from perceptron_c._utils._threads import OWNER_KEYS
from perceptron_c.datasets import make_blobs

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
distributed = pytest.importorskip("distributed")

from perceptron_c import dask as pdask  # noqa: E402
from perceptron_c.dask import _mixing  # noqa: E402

SYNC = "synchronous"
pytestmark = pytest.mark.filterwarnings("ignore::perceptron_c.exceptions.ConvergenceWarning")

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


def _model_vars(est):
    """The estimator's attributes, less the bookkeeping of its training calls (which a
    failed call counts too; `_guard`)."""
    return {key: value for key, value in vars(est).items() if key not in OWNER_KEYS}


def _snapshot(est):
    """Every attribute: the parameters as they are (they must stay the same objects), the
    fitted ones copied."""
    params = set(est._get_param_names())
    return {key: value if key in params else copy.deepcopy(value)
            for key, value in _model_vars(est).items()}


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
    after = _model_vars(est)
    assert sorted(after) == sorted(before)
    params = set(est._get_param_names())
    for key, value in before.items():
        if key in params:
            assert after[key] is value, key
        else:
            _same_bits(value, after[key], key)


def _same_fit(a, b):
    """Two models with the same fitted attributes, bit for bit."""
    params = set(a._get_param_names())
    fitted = {key: value for key, value in _model_vars(a).items() if key not in params}
    assert fitted.keys() == set(_model_vars(b)) - params
    for key, value in fitted.items():
        _same_bits(value, _model_vars(b)[key], key)


def _assert_unfitted(est):
    assert set(_model_vars(est)) == set(est._get_param_names())
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


@pytest.fixture
def sigint_handled():
    """Python's Ctrl-C handler for the test: `_thread.interrupt_main` does nothing where
    SIGINT is ignored, as a background job of a shell without job control inherits it."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


@pytest.mark.usefixtures("sigint_handled")
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
        # dask's rounds run in the serial epoch loop, which prints the progress line
        patch.setattr(_training, "report_epoch", _interrupt_at_epoch_2)
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


# --------------------------------------------------------- X, y and weights: the same rows

def _frames(n=1200, seed=0):
    X, y = _data("perceptron", n, seed)
    return pd.DataFrame(X, columns=["a", "b", "c", "d"]), pd.Series(y)


def _parts(frame, sizes):
    """A dask frame whose partitions hold ``sizes`` rows (0 allowed) of ``frame``."""
    ends = np.cumsum(sizes)
    return dd.concat([dd.from_pandas(frame.iloc[end - size:end], npartitions=1)
                      for end, size in zip(ends, sizes)])


@pytest.mark.parametrize("classes", [None, [0, 1, 2]])
def test_labels_beyond_the_rows_of_x_are_refused(classes):
    frame, labels = _frames()
    phantom = pd.concat([labels, pd.Series(np.full(5, 7))], ignore_index=True)
    Xf = _parts(frame, (400, 400, 400, 0))  # an empty last partition...
    yf = _parts(phantom, (400, 400, 400, 5))  # ...and 5 labels of a class without rows
    est = _fitted("perceptron")
    before = _snapshot(est)
    with pytest.raises(ValueError, match="X and y have inconsistent numbers of samples: "
                                         "1200 != 1205"):
        pdask.fit(est, Xf, yf, client=SYNC, classes=classes)
    _assert_unchanged(est, before)
    fresh = Perceptron()
    with pytest.raises(ValueError, match="1200 != 1205"):
        pdask.fit(fresh, Xf, yf, client=SYNC, classes=classes)
    _assert_unfitted(fresh)


def test_blocks_of_other_sizes_are_refused():
    frame, labels = _frames()
    Xf = _parts(frame, (400, 400, 400))
    with pytest.raises(ValueError, match=r"X and y have inconsistent numbers of samples in "
                                         r"block 1 of rows: 400 != 395"):
        pdask.fit(Perceptron(), Xf, _parts(labels, (400, 395, 405)), client=SYNC)
    weights = pd.Series(np.ones(1200))
    with pytest.raises(ValueError, match=r"X and sample_weight have inconsistent numbers of "
                                         r"samples: 1200 != 1199"):
        pdask.fit(Perceptron(), Xf, _parts(labels, (400, 400, 400)),
                  sample_weight=_parts(weights.iloc[:1199], (400, 400, 399)), client=SYNC)
    with pytest.raises(ValueError, match=r"sample_weight have inconsistent numbers of "
                                         r"samples in block 0 of rows: 400 != 0"):
        pdask.fit(Perceptron(), Xf, _parts(labels, (400, 400, 400)),
                  sample_weight=_parts(weights, (0, 800, 400)), client=SYNC)
    est = pdask.fit(Perceptron(random_state=0, max_iter=3), _parts(frame, (400, 0, 800)),
                    _parts(labels, (400, 0, 800)), client=SYNC)  # the same blocks: trains
    assert est.classes_.tolist() == [0, 1, 2]


def test_blocks_of_unknown_size():
    X, y = _data("perceptron", 300, seed=5)
    keep = np.random.default_rng(0).random(300) > 0.3
    Xd, yd = _blocks(X, y)
    mask = da.from_array(keep, chunks=100)
    Xn, yn = Xd[mask], yd[mask]
    assert np.isnan(Xn.chunks[0]).all() and np.isnan(yn.chunks[0]).all()
    sizes = tuple(int(keep[i:i + 100].sum()) for i in range(0, 300, 100))
    params = dict(random_state=0, max_iter=4, average=True)
    got = pdask.fit(Perceptron(**params), Xn, yn, client=SYNC)
    want = pdask.fit(Perceptron(**params), da.from_array(X[keep], chunks=(sizes, 4)),
                     da.from_array(y[keep], chunks=(sizes,)), client=SYNC)
    _same_fit(got, want)
    other = np.random.default_rng(1).random(300) > 0.3
    est = _fitted("perceptron")
    before = _snapshot(est)
    with pytest.raises(ValueError, match=f"X and y have inconsistent numbers of samples: "
                                         f"{keep.sum()} != {other.sum()}"):
        pdask.fit(est, Xn, yd[da.from_array(other, chunks=100)], client=SYNC)
    _assert_unchanged(est, before)
    with pytest.raises(ValueError, match="y has 2 blocks of rows but X has 3"):
        pdask.fit(est, Xn, da.from_array(y, chunks=150)[da.from_array(keep, chunks=150)],
                  client=SYNC)
    _assert_unchanged(est, before)


def test_a_dask_y_of_known_sizes_takes_the_blocks_of_a_dataframe():
    frame, labels = _frames()
    Xf = _parts(frame, (300, 500, 400))
    params = dict(random_state=0, max_iter=3)
    got = pdask.fit(Perceptron(**params), Xf, da.from_array(labels.to_numpy(), chunks=600),
                    client=SYNC)  # y's 2 blocks are cut as X's 3, once those are counted
    _same_fit(got, pdask.fit(Perceptron(**params), Xf, _parts(labels, (300, 500, 400)),
                             client=SYNC))
    with pytest.raises(ValueError, match="X and y have inconsistent numbers of samples: "
                                         "1200 != 1205"):
        pdask.fit(Perceptron(), Xf, da.from_array(np.zeros(1205, dtype=int), chunks=600),
                  client=SYNC)


def test_each_worker_checks_its_block_too():
    job = _mixing.Job(Perceptron, Perceptron().get_params(), np.array([0, 1]), 0, 4, False)
    with pytest.raises(ValueError, match="X and y have inconsistent numbers of samples in "
                                         "block 3 of rows: 0 != 5"):
        _mixing.prepare(np.zeros((0, 4)), np.zeros(5, dtype=int), None, job, 3)
    with pytest.raises(ValueError, match="sample_weight .* block 1 of rows: 2 != 3"):
        _mixing.prepare(np.zeros((2, 4)), np.zeros(2, dtype=int), pd.Series(np.ones(3)), job, 1)
    assert _mixing.prepare(np.zeros((0, 4)), np.zeros(0, dtype=int), 2.0, job, 0) is None
