"""perceptron_c.dask in scikit-learn's arithmetic: the passive-aggressive classifier and
regressor, and Perceptron with ``tol`` or ``penalty``, trained by parameter mixing.

The promises tested: one shard is the serial fit bit for bit (every penalty, averaging,
early stopping, sample and class weights, shuffling, one-vs-rest machines stopping at their
own epochs, dense / CSR / float32); several shards mix as `perceptron_c.dask._mixing` documents
(against a reference written out on the `_sgd` routines, with the weight scale folded or
kept); the mixed average is the mix of the shards' averages; a thread cluster gives the
synchronous scheduler's model.
"""
import re

import numpy as np
import pytest
from conftest import assert_same_state

import perceptron_c
from perceptron_c import PassiveAggressiveClassifier, PassiveAggressiveRegressor, Perceptron
from perceptron_c._estimator._sgd_run import sklearn_seeds
from perceptron_c.datasets import make_blobs

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
sp = pytest.importorskip("scipy.sparse")

from perceptron_c import dask as pdask  # noqa: E402
from perceptron_c.dask import _mixing  # noqa: E402

SYNC = "synchronous"
pytestmark = pytest.mark.filterwarnings("ignore::perceptron_c.exceptions.ConvergenceWarning")


def _noisy(n=300, d=6, k=3, seed=0):
    rng = np.random.default_rng(seed)
    X, y = make_blobs(rng, n, d, n_classes=k)
    return X + rng.normal(size=X.shape) * 1.5, y


def _targets(n=300, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, X @ rng.normal(size=d) + 0.3 * rng.normal(size=n)


def _same(a, b):
    assert_same_state(a, b, "n_iter_", "t_", "converged_", "_epochs_seen")


def _one_shard(est_cls, params, X, y, sw=None):
    serial = est_cls(**params).fit(X, y, sample_weight=sw)
    Xd = da.from_array(X, chunks=X.shape, asarray=False)
    swd = None if sw is None else da.from_array(sw, chunks=len(sw))
    dist = pdask.fit(est_cls(**params), Xd, da.from_array(y, chunks=len(y)),
                     sample_weight=swd, client=SYNC)
    _same(serial, dist)
    return dist


CLASSIFIERS = {
    "pa": (PassiveAggressiveClassifier, {}),
    "pa2-averaged": (PassiveAggressiveClassifier, {"loss": "squared_hinge", "average": True}),
    "pa-average-from-50": (PassiveAggressiveClassifier, {"average": 50, "C": 0.1}),
    "pa-early-stopping": (PassiveAggressiveClassifier, {"early_stopping": True}),
    "perceptron-tol": (Perceptron, {"tol": 1e-3}),
    "perceptron-l2": (Perceptron, {"penalty": "l2", "alpha": 0.01}),
    "perceptron-l1-averaged": (Perceptron, {"penalty": "l1", "alpha": 1e-3, "average": True}),
    "perceptron-elasticnet": (Perceptron, {"penalty": "elasticnet", "alpha": 1e-3,
                                           "tol": 1e-4}),
    "perceptron-l2-early-stopping": (Perceptron, {"penalty": "l2", "early_stopping": True}),
}


@pytest.mark.parametrize("layout", ["dense", "csr", "float32"])
@pytest.mark.parametrize("shuffle", [True, False])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("name", sorted(CLASSIFIERS))
def test_one_shard_is_the_serial_fit(name, k, shuffle, layout):
    cls, kw = CLASSIFIERS[name]
    X, y = _noisy(240, 6, k, seed=k)
    Xi = {"dense": X, "csr": sp.csr_matrix(X), "float32": X.astype(np.float32)}[layout]
    est = _one_shard(cls, dict(kw, random_state=3, max_iter=25, shuffle=shuffle), Xi, y)
    assert est.n_iter_ >= 2


@pytest.mark.parametrize("kw", [{}, {"average": True}, {"early_stopping": True},
                                {"loss": "squared_epsilon_insensitive", "C": 0.1}],
                         ids=["pa", "averaged", "early_stopping", "pa2"])
def test_one_shard_regressor_is_the_serial_fit(kw):
    X, y = _targets(300, 5, seed=4)
    _one_shard(PassiveAggressiveRegressor, dict(kw, random_state=1, max_iter=30), X, y)
    _one_shard(PassiveAggressiveRegressor, dict(kw, random_state=1, max_iter=30), X, y,
               sw=np.random.default_rng(2).uniform(0.0, 2.0, 300))


def test_one_shard_with_sample_and_class_weights():
    X, y = _noisy(300, 6, 3, seed=12)
    sw = np.random.default_rng(0).integers(0, 4, size=300) / 2.0  # a quarter are 0
    for cls, kw in [(PassiveAggressiveClassifier, {"average": True}),
                    (Perceptron, {"penalty": "l2", "eta0": 0.5})]:
        _one_shard(cls, dict(kw, random_state=3, max_iter=20, class_weight={0: 2.0}), X, y, sw)


def test_one_vs_rest_machines_stop_at_their_own_epochs():
    X, y = _noisy(300, 6, 4, seed=5)
    params = dict(random_state=0, tol=1e-2, n_iter_no_change=2, max_iter=60)
    est = _one_shard(PassiveAggressiveClassifier, params, X, y)
    serial = PassiveAggressiveClassifier(**params).fit(X, y)
    assert est.n_iter_ == serial.n_iter_ < 60


def test_sklearn_order_composes_the_shuffle(model_backend):
    sgd = perceptron_c._backend.sgd
    for n, seed in [(1, 5), (7, 0), (100, 12345), (257, 2**32 - 1)]:
        index = np.arange(n, dtype=np.int64)
        for epochs in range(9):
            assert np.array_equal(_mixing.sklearn_order(n, seed, epochs), index)
            sgd.sklearn_shuffle(index, seed)


def _reference_ipm(X, y, bounds, seeds, epochs, mixing, penalty, alpha):
    """Parameter mixing of scikit-learn's binary PA-I / perceptron epochs, written out on the
    `_sgd` routines: every shard's state is folded into true weights before the mix."""
    sgd = perceptron_c._backend.sgd
    d = X.shape[1]
    signs = np.where(y == 1, 1.0, -1.0)
    l1 = penalty in (sgd.PENALTY_L1, sgd.PENALTY_ELASTICNET)
    w, q = np.zeros(d), np.zeros(d if l1 else 0)
    state = np.zeros(sgd.N_STATE)
    sgd.sgd_start(w, q, state, 0.0, 0.0, 1.0)
    params = np.zeros(sgd.N_PARAMS)
    rate = sgd.RATE_PA1 if penalty == sgd.PENALTY_NONE else sgd.RATE_CONSTANT
    params[[sgd.ALPHA, sgd.L1_RATIO, sgd.ETA0, sgd.INTERCEPT_DECAY, sgd.WEIGHT_POS,
            sgd.WEIGHT_NEG, sgd.EPSILON_OR_THRESHOLD]] = [alpha, 0.15, 1.0, 1.0, 1.0, 1.0,
                                                          1.0 if rate == sgd.RATE_PA1 else 0.0]
    history = []
    for epoch in range(epochs):
        outs = []
        for s, (lo, hi) in enumerate(bounds):
            ws, qs, st = w.copy(), q.copy(), state.copy()
            order = _mixing.sklearn_order(hi - lo, seeds[s], epoch + 1)
            k = sgd.sgd_epoch_dense(X[lo:hi], signs[lo:hi], np.ones(hi - lo), order, ws,
                                    np.zeros(0), qs, st, params, sgd.LOSS_HINGE, rate,
                                    penalty, True, False)
            sgd.sgd_finish(ws, np.zeros(0), st)
            outs.append((k, ws, qs, st))
        total = sum(o[0] for o in outs)
        mu = [o[0] / total for o in outs] if mixing == "mistakes" and total else \
            [1.0 / len(bounds)] * len(bounds)
        w = sum(m * o[1] for m, o in zip(mu, outs))
        q = sum(m * o[2] for m, o in zip(mu, outs)) if l1 else q
        for slot in (sgd.INTERCEPT, sgd.U):
            state[slot] = sum(m * o[3][slot] for m, o in zip(mu, outs))
        state[sgd.T] += np.rint(sum(m * (o[3][sgd.T] - state[sgd.T]) for m, o in zip(mu, outs)))
        history.append(total)
    return w, state[sgd.INTERCEPT], history


@pytest.mark.parametrize("mixing", ["uniform", "mistakes"])
@pytest.mark.parametrize("penalty", ["pa", "l2", "elasticnet"])
def test_several_shards_mix_as_documented(mixing, penalty):
    sgd = perceptron_c._backend.sgd
    X, y = _noisy(500, 5, 2, seed=1)
    chunks = (120, 200, 180)  # unequal: with l2 the shards' weight scales differ (folded)
    if penalty == "pa":
        est = PassiveAggressiveClassifier(random_state=5, max_iter=4, tol=None)
        code, alpha = sgd.PENALTY_NONE, 0.0
    else:
        est = Perceptron(random_state=5, max_iter=4, tol=None, penalty=penalty, alpha=0.01)
        code = {"l2": sgd.PENALTY_L2, "elasticnet": sgd.PENALTY_ELASTICNET}[penalty]
        alpha = 0.01
    est = pdask.fit(est, da.from_array(X, chunks=(chunks, 5)),
                    da.from_array(y, chunks=(chunks,)), client=SYNC, mixing=mixing)
    first = tuple(sklearn_seeds(5, 1, True))  # what a serial fit with random_state=5 draws
    seeds = [_mixing._sgd_shard_seeds(first, s)[0] for s in range(3)]
    bounds = [(0, 120), (120, 320), (320, 500)]
    w, b, history = _reference_ipm(X, y, bounds, seeds, 4, mixing, code, alpha)
    np.testing.assert_allclose(est.coef_[0], w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(est.intercept_[0], b, rtol=1e-12, atol=1e-12)
    assert est.mistakes_.tolist() == history


def test_the_mixed_average_is_the_mix_of_the_shard_averages():
    X, y = _noisy(600, 5, 2, seed=2)
    params = dict(random_state=7, max_iter=1, average=True, shuffle=False, tol=None)
    est = pdask.fit(PassiveAggressiveClassifier(**params), da.from_array(X, chunks=(200, 5)),
                    da.from_array(y, chunks=200), client=SYNC)
    shards = [PassiveAggressiveClassifier(**params).fit(X[200 * s:200 * (s + 1)],
                                                        y[200 * s:200 * (s + 1)])
              for s in range(3)]
    np.testing.assert_allclose(est.coef_, sum(e.coef_ for e in shards) / 3, rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(est.intercept_, sum(e.intercept_ for e in shards) / 3,
                               rtol=1e-12, atol=1e-12)
    assert est.t_ == 1 + 200  # the clock advanced by one shard's rows


def test_regressor_learns_on_several_shards_and_is_an_ordinary_estimator(tmp_path):
    X, y = _targets(3000, 8, seed=9)
    Xd, yd = da.from_array(X, chunks=(500, 8)), da.from_array(y, chunks=500)
    est = pdask.fit(PassiveAggressiveRegressor(random_state=0, max_iter=20, C=0.1,
                                               average=True), Xd, yd, client=SYNC)
    serial = PassiveAggressiveRegressor(random_state=0, max_iter=20, C=0.1,
                                        average=True).fit(X, y)
    assert est.score(X, y) > 0.95 and abs(est.score(X, y) - serial.score(X, y)) < 0.01
    lazy = pdask.predict(est, Xd).compute(scheduler=SYNC)
    assert np.array_equal(lazy, est.predict(X))
    path = est.save(tmp_path / "pa.npz")
    assert np.array_equal(perceptron_c.load(path).predict(X), est.predict(X))
    est.partial_fit(X[:100], y[:100])  # continues as any fitted model


def test_convergence_warning_and_refusals():
    X, y = _noisy(200, 4, 2, seed=3)
    Xd, yd = da.from_array(X, chunks=(100, 4)), da.from_array(y, chunks=100)
    with pytest.warns(perceptron_c.exceptions.ConvergenceWarning, match="max_iter=2"):
        pdask.fit(PassiveAggressiveClassifier(max_iter=2, tol=1e-12, random_state=0), Xd, yd,
                  client=SYNC)
    with pytest.raises(TypeError, match="parameter mixing trains a Perceptron"):
        pdask.fit(perceptron_c.KernelPerceptron(), Xd, yd, client=SYNC)
    with pytest.raises(ValueError, match="balanced"):
        pdask.fit(PassiveAggressiveClassifier(class_weight="balanced"), Xd, yd, client=SYNC)


def test_thread_cluster_equals_synchronous():
    X, y = _noisy(800, 6, 3, seed=10)
    Xd, yd = da.from_array(X, chunks=(100, 6)), da.from_array(y, chunks=100)

    def fit(client, **kw):
        return pdask.fit(Perceptron(penalty="l2", alpha=1e-3, average=True, random_state=4,
                                    max_iter=8), Xd, yd, client=client, **kw)

    # the synchronous fits before the Client: with one active, dask < 2025.4 warns that a
    # single-machine scheduler "might lead to unexpected results"
    want = {mixing: fit(SYNC, mixing=mixing) for mixing in pdask.MIXING}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        for mixing in pdask.MIXING:
            _same(fit(client, mixing=mixing), want[mixing])


def _progress(text):
    """The progress lines without the estimator's name and the seconds."""
    return re.findall(r"\] (epoch \d+: .*?), [\d.]+ s(.*)", text)


@pytest.mark.parametrize("kw", [{"tol": 1e-3}, {"early_stopping": True}])
def test_progress_lines_report_the_serial_objective_and_score(kw, capsys):
    X, y = _noisy(240, 6, 2, seed=8)
    params = dict(kw, random_state=1, max_iter=8, verbose=1)
    PassiveAggressiveClassifier(**params).fit(X, y)
    serial = capsys.readouterr().err
    pdask.fit(PassiveAggressiveClassifier(**params), da.from_array(X, chunks=X.shape),
              da.from_array(y, chunks=240), client=SYNC)
    dist = capsys.readouterr().err
    assert "(dask, 1 shards)" in dist
    assert _progress(dist) == _progress(serial) and len(_progress(serial)) >= 2
    assert ("objective" if "tol" in kw else "validation score") in serial
