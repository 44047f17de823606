"""perceptron_c.dask: parameter mixing on dask data, lazy prediction, Gram by blocks.

The promises tested: one shard is the serial fit bit for bit (every Perceptron variant,
dense and CSR); several shards mix exactly as documented (checked against a hand-written
reference on the low-level routines); the fitted model is an ordinary estimator; prediction
and Gram blocks equal their in-memory versions; a LocalCluster of threads or of processes
gives the same model as the synchronous scheduler, even when a worker process is killed in
the middle of the fit. Tests marked ``processes`` start worker processes.
"""
import os
import signal
import sys
import threading
import time
import warnings

import numpy as np
import pytest
from conftest import assert_same_state

import perceptron_c
from perceptron_c import KernelPerceptron, Perceptron, VotedPerceptron, lowlevel
from perceptron_c._estimator import _training
from perceptron_c.datasets import make_blobs, make_dnf, make_separable
from perceptron_c.kernels import RBF, Polynomial
from perceptron_c.kernels import gram as memory_gram

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
sp = pytest.importorskip("scipy.sparse")

from perceptron_c import dask as pdask  # noqa: E402
from perceptron_c.dask import _mixing  # noqa: E402

SYNC = "synchronous"


def _noisy(n=600, d=8, k=3, seed=0):
    rng = np.random.default_rng(seed)
    X, y = make_blobs(rng, n, d, n_classes=k)
    return X + rng.normal(size=X.shape) * 1.5, y


def _same_model(a, b):
    assert_same_state(a, b, "n_iter_", "converged_", "_epochs_seen", "_seed")
    assert np.array_equal(a.classes_, b.classes_)


VARIANTS = {"plain": {}, "averaged": {"average": True}, "normalized": {"normalize": True},
            "early_stopping": {"early_stopping": True, "average": True}}


@pytest.mark.parametrize("layout", ["dense", "csr", "float32"])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("kind", ["binary", "argmax", "ovr"])
def test_one_shard_is_the_serial_fit(kind, variant, layout):
    X, y = _noisy(300, 6, 2 if kind == "binary" else 3)
    Xi = {"dense": X, "csr": sp.csr_matrix(X), "float32": X.astype(np.float32)}[layout]
    params = dict(VARIANTS[variant], random_state=3, max_iter=6,
                  multiclass="ovr" if kind == "ovr" else "argmax")
    serial = Perceptron(**params).fit(Xi, y)
    Xd = da.from_array(Xi, chunks=Xi.shape, asarray=False)
    dist = pdask.fit(Perceptron(**params), Xd, da.from_array(y, chunks=len(y)), client=SYNC)
    _same_model(serial, dist)


@pytest.mark.parametrize("variant", ["plain", "averaged", "early_stopping"])
@pytest.mark.parametrize("kind", ["binary", "argmax", "ovr"])
def test_one_shard_with_sample_and_class_weights(kind, variant):
    X, y = _noisy(300, 6, 2 if kind == "binary" else 3, seed=12)
    weights = np.random.default_rng(0).integers(0, 4, size=300) / 2.0  # a quarter are 0
    params = dict(VARIANTS[variant], random_state=3, max_iter=6, eta0=0.5,
                  class_weight={0: 2.0}, multiclass="ovr" if kind == "ovr" else "argmax")
    serial = Perceptron(**params).fit(X, y, sample_weight=weights)
    dist = pdask.fit(Perceptron(**params), da.from_array(X, chunks=X.shape), y,
                     sample_weight=da.from_array(weights, chunks=300), client=SYNC)
    _same_model(serial, dist)


def _reference_ipm(X, y, bounds, seed, epochs, mixing):
    """Iterative parameter mixing of the binary perceptron, written out on lowlevel."""
    w, b = np.zeros(X.shape[1]), np.zeros(1)
    signs = np.where(y == 1, 1.0, -1.0)
    history = []
    for epoch in range(epochs):
        states, mistakes = [], []
        for s, (lo, hi) in enumerate(bounds):
            ws, bs = w.copy(), b.copy()
            order = perceptron_c._estimator._base.epoch_order(
                _mixing.shard_seed(seed, s), epoch, hi - lo, True)
            mistakes.append(lowlevel.perceptron_epoch_dense(X[lo:hi], signs[lo:hi], order,
                                                            ws, bs))
            states.append((ws, bs))
        total = sum(mistakes)
        mu = [k / total for k in mistakes] if mixing == "mistakes" and total else \
            [1.0 / len(bounds)] * len(bounds)
        w = sum(m * ws for m, (ws, _) in zip(mu, states))
        b = sum(m * bs for m, (_, bs) in zip(mu, states))
        history.append(total)
        if total == 0:
            break
    return w, b, history


@pytest.mark.parametrize("mixing", ["uniform", "mistakes"])
def test_several_shards_mix_as_documented(mixing):
    X, y = _noisy(500, 5, 2, seed=1)
    chunks = (120, 200, 180)
    est = pdask.fit(Perceptron(random_state=5, max_iter=4), da.from_array(X, chunks=(chunks, 5)),
                    da.from_array(y, chunks=(chunks,)), client=SYNC, mixing=mixing)
    bounds = [(0, 120), (120, 320), (320, 500)]
    w, b, history = _reference_ipm(X, y, bounds, est._seed, 4, mixing)
    np.testing.assert_allclose(est.coef_[0], w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(est.intercept_, b, rtol=1e-12, atol=1e-12)
    assert est.mistakes_.tolist() == history


@pytest.mark.parametrize("multiclass", ["argmax", "ovr"])
def test_averaged_mix_is_the_mix_of_the_shard_averages(multiclass):
    X, y = _noisy(600, 5, 3, seed=2)
    params = dict(random_state=7, max_iter=1, average=True, multiclass=multiclass)
    est = pdask.fit(Perceptron(**params), da.from_array(X, chunks=(200, 5)),
                    da.from_array(y, chunks=200), client=SYNC)
    averages = []
    for s in range(3):  # each shard alone: a serial epoch from zero with the shard's seed
        one = Perceptron(**params)
        one.classes_ = est.classes_
        _training.start(one, 5, _mixing.shard_seed(est._seed, s))
        one._init_state(X, None)
        run = one._start(X[200 * s:200 * (s + 1)], np.searchsorted(est.classes_,
                                                                    y[200 * s:200 * (s + 1)]),
                         None, None)
        run.n_rows = 200  # its order: epoch_order(seed, 0, 200, shuffle)
        _training.epoch(run)
        one._publish()
        averages.append((one.coef_, one.intercept_))
    np.testing.assert_allclose(est.coef_, sum(c for c, _ in averages) / 3, rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(est.intercept_, sum(i for _, i in averages) / 3, rtol=1e-12,
                               atol=1e-12)
    assert np.all(est._state["count"] == 1 + 200)  # the clock advanced by one shard's rows


def test_separable_data_converges():
    rng = np.random.default_rng(4)
    X, y, _, _ = make_separable(rng, 800, 6, gap=0.2)
    est = pdask.fit(Perceptron(random_state=0), da.from_array(X, chunks=(200, 6)),
                    da.from_array(y, chunks=200), client=SYNC)
    assert est.converged_ and est.mistakes_[-1] == 0 and est.n_iter_ < 1000
    assert est.score(X, y) == 1.0


def test_the_result_is_an_ordinary_estimator(tmp_path):
    X, y = _noisy(400, 5, 3, seed=3)
    Xd, yd = da.from_array(X, chunks=(100, 5)), da.from_array(y, chunks=100)
    est = pdask.fit(Perceptron(random_state=1, max_iter=3, average=True, warm_start=True),
                    Xd, yd, client=SYNC)
    path = est.save(tmp_path / "model.npz")
    again = perceptron_c.load(path)
    assert np.array_equal(again.predict(X), est.predict(X))
    _same_model(again, est)
    pdask.fit(est, Xd, yd, client=SYNC)  # warm_start: continues, epochs counted on
    assert est._epochs_seen == 6 and est.n_iter_ == 3
    est.partial_fit(X[:50], y[:50])
    assert est._epochs_seen == 7


def test_labels_of_any_type_and_dataframes():
    pd = pytest.importorskip("pandas")
    X, y = _noisy(300, 4, 3, seed=5)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    labels = pd.Series(np.array(["ant", "bee", "cat"])[y])
    Xf, yf = dd.from_pandas(frame, npartitions=3), dd.from_pandas(labels, npartitions=3)
    est = pdask.fit(Perceptron(random_state=2, max_iter=5), Xf, yf, client=SYNC)
    assert est.classes_.tolist() == ["ant", "bee", "cat"]
    assert est.feature_names_in_.tolist() == ["a", "b", "c", "d"]
    assert np.array_equal(pdask.predict(est, Xf).compute(), est.predict(frame))
    decision = pdask.decision_function(est, Xf).compute()
    assert np.array_equal(decision, est.decision_function(frame))
    one = pdask.fit(Perceptron(random_state=2, max_iter=5), dd.from_pandas(frame, npartitions=1),
                    dd.from_pandas(labels, npartitions=1), client=SYNC)
    _same_model(one, Perceptron(random_state=2, max_iter=5).fit(frame, labels))


def test_inputs_are_reshaped_or_refused():
    X, y = _noisy(300, 6, 2, seed=6)
    by_rows = pdask.fit(Perceptron(random_state=1, max_iter=3), da.from_array(X, chunks=(100, 6)),
                        da.from_array(y, chunks=150), client=SYNC)  # y's blocks are redrawn
    by_both = pdask.fit(Perceptron(random_state=1, max_iter=3), da.from_array(X, chunks=(100, 2)),
                        y, client=SYNC)  # column blocks merged; y in memory is split
    _same_model(by_rows, by_both)
    with pytest.raises(TypeError, match="X: expected a dask array"):
        pdask.fit(Perceptron(), X, y)
    with pytest.raises(TypeError, match="estimator"):
        pdask.fit(KernelPerceptron(), da.from_array(X), y)
    with pytest.raises(ValueError, match="mixing"):
        pdask.fit(Perceptron(), da.from_array(X), y, mixing="median")
    with pytest.raises(ValueError, match="not in classes"):
        pdask.fit(Perceptron(), da.from_array(X, chunks=(100, 6)), y, classes=[0, 2],
                  client=SYNC)
    with pytest.raises(ValueError, match="balanced"):
        pdask.fit(Perceptron(class_weight="balanced"), da.from_array(X), y, client=SYNC)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        pdask.fit(Perceptron(), da.from_array(X), y, sample_weight=np.ones(5), client=SYNC)
    for short in (da.from_array(y[:250], chunks=125), da.from_array(y[:250], chunks=100)):
        # a dask y of other length: was dask's "Chunks do not add up to shape" (or worse)
        with pytest.raises(ValueError, match="inconsistent numbers of samples: 300 != 250"):
            pdask.fit(Perceptron(), da.from_array(X, chunks=(100, 6)), short, client=SYNC)
    with pytest.raises(ValueError, match="only one class"):
        pdask.fit(Perceptron(), da.from_array(X, chunks=(100, 6)), np.zeros(300), client=SYNC)


def test_empty_blocks_and_progress_lines(capsys):
    X, y = _noisy(300, 4, 2, seed=8)
    chunks = ((100, 0, 200), (4,))
    est = pdask.fit(Perceptron(random_state=0, max_iter=3, verbose=1),
                    da.from_array(X, chunks=chunks), da.from_array(y, chunks=chunks[:1]),
                    client=SYNC, mixing="mistakes")
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == est.n_iter_ == 3
    assert lines[0].startswith("[Perceptron (dask, 3 shards)] epoch 1:") and "/ 300 " in lines[0]


def _estimators():
    X, y = _noisy(240, 5, 3, seed=9)
    yield "perceptron-binary", Perceptron(random_state=0).fit(X, y > 0), X
    yield "perceptron-3", Perceptron(average=True, random_state=0).fit(X, y), X
    yield "kernel-rbf", KernelPerceptron(kernel=RBF(gamma=0.3), max_iter=5).fit(X, y), X
    yield "kernel-poly-2", KernelPerceptron(kernel=Polynomial(2), max_iter=3).fit(X, y > 0), X
    bits, labels = make_dnf(np.random.default_rng(1), 240, n_bits=40)
    yield "kernel-conjunction", KernelPerceptron(kernel="conjunction", max_iter=5).fit(
        bits, labels), bits
    yield "voted", VotedPerceptron(max_iter=4, random_state=0).fit(X, y), X
    yield "voted-kernel", VotedPerceptron(kernel="rbf", max_iter=3).fit(X, y > 0), X
    budget = getattr(perceptron_c, "BudgetKernelPerceptron", None)
    if budget is not None:
        yield "budget", budget(budget=30, random_state=0, max_iter=3).fit(X, y), X


@pytest.mark.parametrize("name,model,X", list(_estimators()), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_lazy_prediction_equals_numpy(name, model, X):
    Xd = da.from_array(X, chunks=(70, X.shape[1]))
    lazy = pdask.predict(model, Xd)
    assert isinstance(lazy, da.Array)
    assert np.array_equal(lazy.compute(scheduler=SYNC), model.predict(X))
    scores = pdask.decision_function(model, Xd)
    want = model.decision_function(X)
    assert scores.shape == want.shape
    if name.startswith("perceptron"):  # the linear routines' sums do not depend on the block
        assert np.array_equal(scores.compute(scheduler=SYNC), want)
    else:  # kernel rows go through BLAS, whose last bits may depend on the block's size
        np.testing.assert_allclose(scores.compute(scheduler=SYNC), want, rtol=1e-12,
                                   atol=1e-12)


def _public_estimators():
    base = perceptron_c._estimator._base.EpochModel
    return [getattr(perceptron_c, name) for name in perceptron_c.__all__
            if isinstance(getattr(perceptron_c, name), type)
            and issubclass(getattr(perceptron_c, name), base)]


@pytest.mark.parametrize("cls", _public_estimators(), ids=lambda c: c.__name__)
def test_lazy_prediction_of_every_public_estimator(cls):
    X, y = _noisy(150, 4, 3, seed=13)
    params = {k: v for k, v in (("random_state", 0), ("max_iter", 3))
              if k in cls._get_param_names()}
    regressor = isinstance(cls(), perceptron_c._estimator._base.EpochRegressor)
    # a sentence model: sentences of 30 rows, blocks of whole ones
    sentences = {"lengths": [30] * 5} if getattr(cls, "_sentences", False) else {}
    with warnings.catch_warnings():  # a few epochs: convergence warnings are expected
        warnings.simplefilter("ignore")
        model = cls(**params).fit(X, X[:, 0] if regressor else y, **sentences)
    Xd = da.from_array(X, chunks=(60 if sentences else 40, 4))
    got = pdask.predict(model, Xd, **sentences).compute(scheduler=SYNC)
    if regressor:
        np.testing.assert_allclose(got, model.predict(X), rtol=1e-12, atol=1e-12)
    else:
        assert np.array_equal(got, model.predict(X, **sentences))
    if hasattr(model, "decision_function"):
        np.testing.assert_allclose(pdask.decision_function(model, Xd).compute(scheduler=SYNC),
                                   model.decision_function(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kernel,params", [("linear", {}), ("rbf", {"gamma": 0.5}),
                                           ("poly", {"degree": 2}), ("conjunction", {})])
def test_gram_by_blocks(kernel, params):
    rng = np.random.default_rng(3)
    A = rng.integers(0, 2, size=(50, 70)).astype(float) if kernel == "conjunction" \
        else rng.normal(size=(50, 7))
    B = A[:23] + (0 if kernel == "conjunction" else 0.5)
    Ad = da.from_array(A, chunks=(16, A.shape[1] // 2))
    for right, want in ((None, memory_gram(A, kernel=kernel, **params)),
                        (da.from_array(B, chunks=(10, A.shape[1])),
                         memory_gram(A, B, kernel=kernel, **params)),
                        (B, memory_gram(A, B, kernel=kernel, **params))):
        K = pdask.gram(Ad, right, kernel=kernel, **params)
        assert K.chunks[0] == Ad.chunks[0]
        np.testing.assert_allclose(K.compute(scheduler=SYNC), want, rtol=1e-13, atol=1e-13)
    if kernel == "conjunction":
        exact = pdask.gram(Ad, kernel="conjunction", log2=True).compute(scheduler=SYNC)
        assert exact.dtype == np.int64
        assert np.array_equal(exact, memory_gram(A, kernel="conjunction", log2=True))
    with pytest.raises(ValueError, match="same number of features"):
        pdask.gram(Ad, da.ones((3, A.shape[1] + 1)), kernel=kernel, **params)


def _fit_on(client, X, y, **options):
    return pdask.fit(Perceptron(random_state=4, max_iter=12, average=True), X, y,
                     client=client, **options)


def test_thread_cluster_equals_synchronous():
    X, y = _noisy(800, 6, 3, seed=10)
    Xd, yd = da.from_array(X, chunks=(100, 6)), da.from_array(y, chunks=100)
    # the synchronous fits before the Client: with one active, dask < 2025.4 warns that a
    # single-machine scheduler "might lead to unexpected results"
    want = {mixing: _fit_on(SYNC, Xd, yd, mixing=mixing) for mixing in pdask.MIXING}
    want_default = _fit_on(SYNC, Xd, yd)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        for mixing in pdask.MIXING:
            _same_model(_fit_on(client, Xd, yd, mixing=mixing), want[mixing])
        _same_model(_fit_on(client, Xd, yd, persist=True), want_default)


def _slow_block(block):
    time.sleep(0.05)  # long enough for the kill to land inside an epoch
    return block


def _waits_in_gather(thread):
    """Whether ``thread`` is inside distributed's ``Client.gather`` (and so in no code of this
    package's but the ``dask.compute`` call that leads there)."""
    frame = sys._current_frames().get(thread.ident)
    while frame is not None:
        path = frame.f_code.co_filename.replace(os.sep, "/")
        if path.endswith("distributed/client.py") and frame.f_code.co_name == "gather":
            return True
        frame = frame.f_back
    return False


def _fit_unless_distributed_hangs(fit, client, limit=120.0):
    """``fit()``'s result, run on a thread of its own. Some releases of distributed lose track
    of a task whose worker was killed, and then ``gather`` waits forever with the cluster
    idle (dask/distributed#3196, still open; seen here with distributed 2023.6, about one
    run in twenty, never with recent releases): if the fit is still waiting there after
    ``limit`` seconds, the client is closed (which ends the wait) and the test is skipped
    with distributed's version. A fit still running anywhere else fails the test."""
    box = {}

    def run():
        try:
            box["model"] = fit()
        except BaseException as exc:  # (re-raised below, on the test's thread)
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(limit)
    if thread.is_alive():
        in_gather = _waits_in_gather(thread)
        client.close()
        thread.join(30)
        assert in_gather, f"the fit was still running after {limit} s, not in dask's gather"
        pytest.skip(f"distributed {distributed.__version__}: the fit waited over {limit} s "
                    "in Client.gather after the worker was killed (distributed's own hang on "
                    "a killed worker, dask/distributed#3196)")
    if "error" in box:
        raise box["error"]
    return box["model"]


KILLED = {"perceptron": (Perceptron, {"average": True}),
          "pa-sklearn-arithmetic": (perceptron_c.PassiveAggressiveClassifier,
                                    {"average": True, "tol": None})}


@pytest.mark.processes
@pytest.mark.parametrize("name", sorted(KILLED))
def test_process_cluster_survives_a_killed_worker(name):
    cloudpickle = pytest.importorskip("cloudpickle")
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers lack this file
    cls, kw = KILLED[name]
    X, y = _noisy(800, 6, 3, seed=11)
    yd = da.from_array(y, chunks=200)
    reference = pdask.fit(cls(random_state=4, max_iter=20, **kw),
                          da.from_array(X, chunks=(200, 6)), yd, client=SYNC)
    Xd = da.from_array(X, chunks=(200, 6)).map_blocks(_slow_block, dtype=X.dtype)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        before = client.run(os.getpid)
        victim = sorted(before.values())[0]
        killer = threading.Timer(0.8, os.kill, (victim, signal.SIGKILL))
        killer.start()
        try:
            tic = time.perf_counter()
            est = _fit_unless_distributed_hangs(
                lambda: pdask.fit(cls(random_state=4, max_iter=20, **kw), Xd, yd,
                                  client=client), client)
            assert time.perf_counter() - tic > 0.8  # the kill came before the fit ended
        finally:
            killer.join()
        client.wait_for_workers(2, timeout=30)
        assert victim not in client.run(os.getpid).values()  # it died and was replaced
    _same_model(est, reference)
