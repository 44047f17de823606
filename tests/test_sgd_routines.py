"""The SGD epoch twins (scikit-learn's ``_plain_sgd``, one epoch per call).

Hand-traced updates of each kind, the C twin against the Python twin bit for bit on random
data, and -- the point of the routines -- a small reference driver (below) that reproduces
scikit-learn's Perceptron, SGDClassifier, SGDRegressor and PassiveAggressive estimators bit
for bit on float64 data with shuffle=False. The scikit-learn tests skip without it. An epoch
updates the weights alike in every scikit-learn from 1.6 to 1.9; the driver's tol rule and
the PA step bound of SGDClassifier / SGDRegressor follow the installed release
(sklearn_versions.py).
"""
import itertools
import warnings

import numpy as np
import pytest
from conftest import BACKENDS, HAVE_C, _module, pad_to_blas_block, routine_fixtures, to_csr
from sklearn_versions import differs, fit_pa

FLOATS = [np.float32, np.float64]
PENALTY = {None: 0, "l1": 1, "l2": 2, "elasticnet": 3}


sgd, sgd_twins = routine_fixtures("_sgd")


def make_params(m, alpha=0.0, l1_ratio=0.15, eta0=1.0, decay=1.0, wpos=1.0, wneg=1.0,
                margin=0.0, average=0):
    p = np.zeros(m.N_PARAMS)
    p[m.ALPHA], p[m.L1_RATIO], p[m.ETA0], p[m.INTERCEPT_DECAY] = alpha, l1_ratio, eta0, decay
    p[m.WEIGHT_POS], p[m.WEIGHT_NEG] = wpos, wneg
    p[m.EPSILON_OR_THRESHOLD], p[m.AVERAGE_START] = margin, average
    return p


class Run:
    """The arrays of one _plain_sgd call, and one-epoch calls on them."""

    def __init__(self, m, d, averaged=False, l1=False, intercept=0.0, t=1.0):
        self.m = m
        self.w, self.aw = np.zeros(d), np.zeros(d if averaged else 0)
        self.q, self.state = np.zeros(d if l1 else 0), np.zeros(m.N_STATE)
        m.sgd_start(self.w, self.q, self.state, intercept, 0.0, t)

    def epoch(self, X, y, params, loss=0, rate=0, penalty=0, sw=None, order=None,
              fit_intercept=True, objective=True, sparse=False):
        n = X.shape[0]
        sw = np.ones(n) if sw is None else sw
        order = np.arange(n, dtype=np.int64) if order is None else order
        args = (y, sw, order, self.w, self.aw, self.q, self.state, params, loss, rate,
                penalty, fit_intercept, objective)
        if sparse:
            return self.m.sgd_epoch_csr(*to_csr(X), *args)
        return self.m.sgd_epoch_dense(X, *args)

    def finish(self):
        self.m.sgd_finish(self.w, self.aw, self.state)

    def s(self, slot):
        return self.state[getattr(self.m, slot)]

    def true_w(self):
        return self.s("WSCALE") * self.w


# ----------------------------------------------------------------------- constants, start
def test_constants_are_the_same_in_both_twins(sgd_twins):
    c, py = sgd_twins
    names = [n for n in dir(py) if n.isupper() and n[0] != "_" and n != "TYPE_CHECKING"]
    assert len(names) == 33
    assert {n: getattr(c, n) for n in names} == {n: getattr(py, n) for n in names}
    assert sorted(getattr(py, n) for n in names if n.startswith("PENALTY_")) == [0, 1, 2, 3]


def test_start_is_the_prologue_of_plain_sgd(sgd):
    w, q, state = np.array([3.0, -4.0]), np.ones(2), np.full(sgd.N_STATE, 7.0)
    sgd.sgd_start(w, q, state, 0.5, 0.25, 11.0)
    expect = np.zeros(sgd.N_STATE)
    expect[[sgd.WSCALE, sgd.SQ_NORM, sgd.L1_NORM, sgd.AVERAGE_B]] = [1.0, 25.0, 7.0, 1.0]
    expect[[sgd.INTERCEPT, sgd.AVERAGE_INTERCEPT, sgd.T]] = [0.5, 0.25, 11.0]
    assert state.tolist() == expect.tolist() and q.tolist() == [0.0, 0.0]


# ------------------------------------------------------------------------------ the shuffle
def test_shuffle_is_xorshift_fisher_yates(sgd):
    """Hand-traced: seed 1 gives x = 270369 (1 ^ 1<<13, ^ >>17, ^ <<5), then 67634689 ..."""
    x, draws = 1, []
    for _ in range(3):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        draws.append(x % 2**31)
    assert draws[0] == 270369
    index = np.arange(4, dtype=np.int64)
    expect = list(range(4))
    for i, r in enumerate(draws):
        j = i + r % (4 - i)
        expect[i], expect[j] = expect[j], expect[i]
    sgd.sklearn_shuffle(index, 1)
    assert index.tolist() == expect
    one = np.arange(1, dtype=np.int64)
    sgd.sklearn_shuffle(one, 0)  # nothing to swap; a zero seed is scikit-learn's 1
    assert one.tolist() == [0]
    with pytest.raises(ValueError, match="seed"):
        sgd.sklearn_shuffle(index, 2**32)


def test_shuffle_twins_agree(sgd_twins):
    c, py = sgd_twins
    rng = np.random.default_rng(8)
    for n in (2, 3, 17, 1000):
        for seed in (0, 1, 2**31 - 2, 2**32 - 1, int(rng.integers(2**32))):
            a, b = np.arange(n, dtype=np.int64), np.arange(n, dtype=np.int64)
            for _ in range(3):  # compounding, as over the epochs of one fit
                c.sklearn_shuffle(a, seed)
                py.sklearn_shuffle(b, seed)
                assert a.tolist() == b.tolist() and sorted(a.tolist()) == list(range(n))


def test_shuffle_is_scikit_learns(sgd):
    seq = pytest.importorskip("sklearn.utils._seq_dataset")
    for n, seed in ((10, 7), (1000, 123456789), (37, 2**31 - 2)):
        X, y = np.arange(n, dtype=np.float64)[:, None], np.zeros(n)
        data = seq.ArrayDataset64(X, y, np.ones(n), seed=1)
        index = np.arange(n, dtype=np.int64)
        for _ in range(3):
            data._shuffle_py(seed)
            visited = [int(data._next_py()[-1]) for _ in range(n)]
            sgd.sklearn_shuffle(index, seed)
            assert index.tolist() == visited


# ------------------------------------------------------------------------ hand-traced cases
@pytest.mark.parametrize("sparse", [False, True])
def test_hand_traced_perceptron(sgd, sparse):
    # threshold 0, eta0 1: three mistakes (p = 0 counts), then a clean epoch
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    y = np.array([1.0, -1.0, -1.0])
    r = Run(sgd, 2)
    assert r.epoch(X, y, make_params(sgd), sparse=sparse) == 3
    assert r.w.tolist() == [2.0, 0.0] and r.s("INTERCEPT") == -1.0
    assert r.s("T") == 4.0 and r.s("SUMLOSS") == 1.0 == r.s("OBJECTIVE")  # p = 1 on row 1
    assert r.epoch(X, y, make_params(sgd), sparse=sparse) == 0
    assert r.w.tolist() == [2.0, 0.0] and r.s("SUMLOSS") == 0.0


def test_hand_traced_class_and_sample_weights(sgd):
    X = np.array([[1.0, 2.0], [2.0, 0.0]])
    y = np.array([1.0, -1.0])
    r = Run(sgd, 2)
    params = make_params(sgd, eta0=0.5, wpos=2.0, wneg=3.0, decay=0.25)
    assert r.epoch(X, y, params, sw=np.array([0.5, 4.0])) == 2
    # row 0: 0.5 * (2 * 0.5) = 0.5; row 1 (p = 1.125 > 0, a mistake): -0.5 * (3 * 4) = -6
    assert r.w.tolist() == [0.5 - 12.0, 1.0] and r.s("INTERCEPT") == 0.125 - 1.5


def test_hand_traced_l2_scaling(sgd):
    # alpha 0.5, eta0 1: the weights shrink by 1/2 before each example's update
    X, y = np.eye(2), np.ones(2)
    r = Run(sgd, 2)
    assert r.epoch(X, y, make_params(sgd, alpha=0.5), penalty=sgd.PENALTY_L2,
                   fit_intercept=False) == 2
    assert r.w.tolist() == [2.0, 4.0] and r.s("WSCALE") == 0.25
    assert r.s("SQ_NORM") == 1.25 and r.s("L1_NORM") == 1.5
    assert r.s("OBJECTIVE") == 0.25  # row 1 sees the penalty 0.5 * 0.5 * ||(1, 0)||^2
    r.finish()
    assert r.w.tolist() == [0.5, 1.0] and r.s("WSCALE") == 1.0


def test_hand_traced_l1_truncation(sgd):
    # Tsuruoka et al. 2009: u grows by alpha * eta0 = 0.25 per example; q records what was taken
    X, y = np.array([[1.0, 0.0], [1.0, 0.0]]), np.ones(2)
    r = Run(sgd, 2, l1=True)
    assert r.epoch(X, y, make_params(sgd, alpha=0.25), penalty=sgd.PENALTY_L1) == 1
    assert r.w.tolist() == [0.5, 0.0] and r.q.tolist() == [-0.5, 0.0] and r.s("U") == 0.5


@pytest.mark.parametrize(("rate", "C", "expect"), [
    ("RATE_PA", 0.0, 0.5), ("RATE_PA1", 0.25, 0.25), ("RATE_PA1", 9.0, 0.5),
    ("RATE_PA2", 0.5, 1.0 / 3.0)])
def test_hand_traced_pa_steps(sgd, rate, C, expect):
    # Crammer et al. 2006: loss 1, ||x||^2 = 2; PA reaches the margin exactly
    r = Run(sgd, 2)
    n = r.epoch(np.ones((1, 2)), np.ones(1), make_params(sgd, eta0=C, margin=1.0),
                rate=getattr(sgd, rate), fit_intercept=False)
    assert n == 1 and r.w.tolist() == [expect, expect]


def test_hand_traced_pa_regression(sgd):
    X, y = np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([2.0, 2.0])
    r = Run(sgd, 2)
    r.epoch(X, y, make_params(sgd, eta0=10.0, margin=0.5), loss=sgd.LOSS_EPSILON_INSENSITIVE,
            rate=sgd.RATE_PA1)
    # row 0: +1.5 (to w and b); row 1: p = 3 overshoots, loss 0.5, the step is negated
    assert r.w.tolist() == [1.0, 0.0] and r.s("INTERCEPT") == 1.0 and r.s("SUMLOSS") == 2.0


@pytest.mark.parametrize("rate", ["RATE_PA", "RATE_PA1", "RATE_PA2"])
def test_pa_on_a_zero_row(sgd, rate):
    # scikit-learn skips a zero row under PA-I (not even t moves) but not under PA-II
    r = Run(sgd, 2, averaged=True)
    n = r.epoch(np.zeros((1, 2)), np.ones(1), make_params(sgd, eta0=0.25, margin=1.0,
                                                          average=1), rate=getattr(sgd, rate))
    skipped = rate != "RATE_PA2"
    assert n == (0 if skipped else 1) and r.s("SUMLOSS") == 1.0
    assert r.s("T") == (1.0 if skipped else 2.0)
    assert r.s("INTERCEPT") == (0.0 if skipped else 0.5)
    assert r.s("AVERAGE_INTERCEPT") == r.s("INTERCEPT")


def test_loss_derivative_is_clipped(sgd):
    r = Run(sgd, 1)
    r.epoch(np.array([[1.0]]), np.array([1e13]), make_params(sgd, margin=1.0),
            loss=sgd.LOSS_SQUARED_HINGE, fit_intercept=False)
    assert r.w.tolist() == [1e12]  # -2 y z = -2e13, clipped


def test_objective_off_leaves_the_sums_at_zero(sgd):
    r = Run(sgd, 2)
    r.state[[sgd.SUMLOSS, sgd.OBJECTIVE]] = 5.0
    r.epoch(np.eye(2), np.ones(2), make_params(sgd, alpha=0.1), penalty=sgd.PENALTY_L2,
            objective=False)
    assert r.s("SUMLOSS") == 0.0 == r.s("OBJECTIVE")


def _one_by_one(sgd, X, y, params, **kw):
    """True weights and intercept after each example, visiting one example per call."""
    r = Run(sgd, X.shape[1], l1=kw.get("penalty", 0) in (1, 3))
    ws, bs = [], []
    for i in range(X.shape[0]):
        r.epoch(X, y, params, order=np.array([i], dtype=np.int64), **kw)
        ws.append(r.true_w())
        bs.append(r.s("INTERCEPT"))
    return np.array(ws), np.array(bs)


@pytest.mark.parametrize("start", [1, 9])
def test_averaging_is_the_mean_of_the_iterates(sgd, rng, start):
    X, y = rng.standard_normal((30, 4)), np.where(rng.random(30) < 0.5, -1.0, 1.0)
    kw = {"loss": sgd.LOSS_HINGE, "penalty": sgd.PENALTY_L2}
    params = make_params(sgd, alpha=0.2, eta0=0.3, margin=1.0, average=start)
    ws, bs = _one_by_one(sgd, X, y, params, **kw)
    r = Run(sgd, 4, averaged=True)
    r.epoch(X, y, params, **kw)
    r.finish()
    np.testing.assert_allclose(r.aw, ws[start - 1:].mean(axis=0), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r.s("AVERAGE_INTERCEPT"), bs[start - 1:].mean(), rtol=1e-12)


def test_weight_scale_reset_against_naive_sgd(sgd, rng):
    # alpha * eta0 = 0.999: the scale drops below 1e-9 every third example and is folded in
    X, y = rng.standard_normal((20, 3)), np.where(rng.random(20) < 0.5, -1.0, 1.0)
    ws, bs = _one_by_one(sgd, X, y, make_params(sgd, alpha=0.999, margin=1.0),
                         penalty=sgd.PENALTY_L2)
    w, b = np.zeros(3), 0.0
    for i in range(20):
        update = y[i] if y[i] * (X[i] @ w + b) <= 1.0 else 0.0
        w = w * (1.0 - 0.999) + update * X[i]
        b += update
        np.testing.assert_allclose(ws[i], w, rtol=1e-9, atol=1e-300)
        assert bs[i] == b


@pytest.mark.parametrize("sparse", [False, True])
def test_non_finite_weights_stop_the_epoch(sgd_twins, sparse):
    X = np.array([[1.0, 0.0], [1e200, 0.0], [1.0, 1.0]])
    y = np.array([1.0, -1.0, 1.0])
    runs = []
    for m in sgd_twins:
        r = Run(m, 2, averaged=True)
        with pytest.raises(FloatingPointError, match=r"after position 1 .*\(row 1\)"):
            r.epoch(X, y, make_params(m, eta0=1e200, average=1), sparse=sparse)
        assert r.s("T") == 3.0 and np.isinf(r.w[0])
        runs.append(r)
    for a in ("w", "aw", "q", "state"):
        assert np.array_equal(getattr(runs[0], a), getattr(runs[1], a), equal_nan=True)


BAD = [
    ("y must have one target", lambda a: a.update(y=a["y"][:2])),
    ("sample_weight must have", lambda a: a.update(sw=np.ones(4))),
    ("w must have one weight", lambda a: a.update(w=np.zeros(3))),
    ("aw must have one entry", lambda a: a.update(aw=np.zeros(1))),
    ("q must have one entry", lambda a: a.update(penalty=1)),
    ("q must have one entry", lambda a: a.update(q=np.zeros(2))),
    ("state must have length", lambda a: a.update(state=np.zeros(3))),
    ("state must come from sgd_start", lambda a: a["state"].__setitem__(0, 0.0)),
    ("state must come from sgd_start", lambda a: a["state"].__setitem__(6, -1.0)),
    ("params must have length", lambda a: a.update(params=np.zeros(9))),
    (r"params\[ETA0\] \(C\) must be", lambda a: a.update(rate=3, params=np.zeros(8))),
    ("loss must be", lambda a: a.update(loss=4)),
    ("learning_rate must be", lambda a: a.update(rate=-1)),
    ("penalty must be", lambda a: a.update(penalty=7)),
    (r"order must hold row indices in \[0, 3\)", lambda a: a.update(order=np.array([3]))),
]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(("message", "spoil"), BAD, ids=[b[0] for b in BAD])
def test_bad_arguments(sgd, sparse, message, spoil):
    a = {"y": np.ones(3), "sw": np.ones(3), "w": np.zeros(2), "aw": np.zeros(0),
         "q": np.zeros(0), "state": Run(sgd, 2).state, "params": make_params(sgd),
         "loss": 0, "rate": 0, "penalty": 0, "order": np.arange(3, dtype=np.int64)}
    spoil(a)
    X = np.ones((3, 2))
    args = (a["y"], a["sw"], a["order"], a["w"], a["aw"], a["q"], a["state"], a["params"],
            a["loss"], a["rate"], a["penalty"], True, True)
    if sparse and message.startswith("w must"):  # CSR rows take their width from w
        assert sgd.sgd_epoch_csr(*to_csr(X), *args) == 1
        return
    before = a["state"].copy()
    with pytest.raises(ValueError, match=message):
        if sparse:
            sgd.sgd_epoch_csr(*to_csr(X), *args)
        else:
            sgd.sgd_epoch_dense(X, *args)
    assert np.array_equal(a["state"], before)


def test_bad_csr_and_bad_finish(sgd):
    data, indices, indptr = to_csr(np.ones((2, 2)))
    indptr[1] = 5
    st, p = Run(sgd, 2).state, make_params(sgd)
    with pytest.raises(ValueError, match="indptr must be monotone"):
        sgd.sgd_epoch_csr(data, indices, indptr, np.ones(2), np.ones(2),
                          np.arange(2, dtype=np.int64), np.zeros(2), np.zeros(0), np.zeros(0),
                          st, p, 0, 0, 0, True, True)
    with pytest.raises(ValueError, match="aw must have one entry"):
        sgd.sgd_finish(np.zeros(2), np.zeros(3), st)
    with pytest.raises(ValueError, match="state must have length"):
        sgd.sgd_start(np.zeros(2), np.zeros(0), np.zeros(2), 0.0, 0.0, 1.0)


# ------------------------------------------------------------------------ C == Python
def _random_case(m, rng, k, sparse, dtype):
    """Data, targets and settings of the k-th combination, cycling through the knobs."""
    n, d = 24, 5
    X = rng.standard_normal((n, d))
    X[rng.random((n, d)) < 0.4] = 0.0
    X[3] = 0.0  # a zero row: PA skips it
    loss, rate, penalty, averaged = itertools.islice(
        itertools.product(range(4), range(4), range(4), (False, True)), k, k + 1).__next__()
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0) if loss < 2 else 2.0 * rng.standard_normal(n)
    params = make_params(m, alpha=(1e-4, 0.3, 0.95)[k % 3], l1_ratio=0.3,
                         eta0=(0.5, 1.0, 0.05)[k % 3], decay=(1.0, 0.01)[k % 2],
                         wpos=rng.uniform(0.5, 2.0), wneg=rng.uniform(0.5, 2.0),
                         margin=(0.0, 1.0)[k % 2] if loss < 2 else 0.1,
                         average=(1, 7)[k % 2] if averaged else 0)
    sw = rng.uniform(0.1, 2.0, n) if k % 3 else np.ones(n)
    order = rng.integers(0, n, 40).astype(np.int64)  # any order, repeats included
    kw = {"loss": loss, "rate": rate, "penalty": penalty, "sw": sw, "order": order,
          "fit_intercept": k % 4 != 1, "objective": k % 5 != 2, "sparse": sparse}
    return X.astype(dtype), y, params, averaged, kw


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", FLOATS)
def test_twins_agree_bit_for_bit(sgd_twins, sparse, dtype):
    c, py = sgd_twins
    overflowed = 0
    for k in range(128):  # every loss x learning rate x penalty x averaging
        runs = []
        for m in (c, py):
            X, y, params, averaged, kw = _random_case(m, np.random.default_rng(k), k, sparse,
                                                      dtype)
            r = Run(m, X.shape[1], averaged, l1=kw["penalty"] in (1, 3))
            counts = []
            for _ in range(3):
                try:
                    counts.append(r.epoch(X, y, params, **kw))
                except FloatingPointError as exc:  # some settings diverge: the same way
                    counts.append(str(exc))
                    break
            r.finish()
            runs.append((counts, r))
        (cc, rc), (cp, rp) = runs
        assert cc == cp, k
        overflowed += isinstance(cc[-1], str)
        for a in ("w", "aw", "q", "state"):
            assert np.array_equal(getattr(rc, a), getattr(rp, a), equal_nan=True), (k, a)
    assert overflowed < 32  # squared losses under PA and PA-II: tau grows with the loss


@pytest.mark.skipif(not HAVE_C, reason="the C core is not in use")
def test_c_chunks_continue_the_epoch():
    # rows this long go one per nogil call: the sums and the error position carry over
    c = _module("c", "_sgd")
    rng = np.random.default_rng(5)
    X = rng.standard_normal((3, 1_500_000)).astype(np.float32)
    y = np.array([1.0, -1.0, 1.0])
    params = make_params(c, alpha=0.01, margin=1.0)
    whole, parts = Run(c, X.shape[1]), Run(c, X.shape[1])
    whole.epoch(X, y, params, penalty=c.PENALTY_L2)
    sums = 0.0
    for i in range(3):
        parts.epoch(X, y, params, penalty=c.PENALTY_L2, order=np.array([i], dtype=np.int64))
        sums += parts.s("OBJECTIVE")
    assert np.array_equal(whole.w, parts.w) and whole.s("OBJECTIVE") == sums
    X[2, 7] = np.float32(3e38)
    with pytest.raises(FloatingPointError, match=r"position 2 .*\(row 2\)"):
        Run(c, X.shape[1]).epoch(X, y, make_params(c, eta0=1e300), penalty=0)


# ------------------------------------------------ the reference driver against scikit-learn
def run_plain_sgd(m, X, y, sw, params, loss, rate, penalty, fit_intercept, tol, max_iter,
                  n_iter_no_change=5):
    """One ``_plain_sgd`` call of scikit-learn: epochs in index order (shuffle=False), its
    tol rule, then the final reset. X dense, or (data, indices, indptr, d). The tol rule is
    the installed scikit-learn's: from 1.8 on the mean objective (OBJECTIVE / n), before 1.8
    on the summed loss alone (SUMLOSS against best - tol * n; sklearn_versions.py). The
    epochs themselves compute the same in every release from 1.6."""
    sparse = isinstance(X, tuple)
    n, d = (len(y), X[3]) if sparse else X.shape
    r = Run(m, d, averaged=params[m.AVERAGE_START] > 0, l1=penalty in (1, 3))
    tol = -np.inf if tol is None else tol
    loss_rule = differs("tol_rule_without_penalty") is not None
    best, no_improvement, n_iter = np.inf, 0, 0
    while n_iter < max_iter:
        n_iter += 1
        args = (y, sw, np.arange(n, dtype=np.int64), r.w, r.aw, r.q, r.state, params, loss,
                rate, penalty, fit_intercept, True)
        if sparse:
            m.sgd_epoch_csr(*X[:3], *args)
        else:
            m.sgd_epoch_dense(X, *args)
        if loss_rule:  # _sgd_fast.pyx.tp 1.7.2: sumloss > best_loss - tol * train_count
            objective, threshold = r.s("SUMLOSS"), best - tol * n
        else:  # 1.8.0: objective_sum / train_count > best_objective - tol
            objective = r.s("OBJECTIVE") / n
            threshold = best - tol
        no_improvement = no_improvement + 1 if objective > threshold else 0
        best = min(best, objective)
        if no_improvement >= n_iter_no_change:
            break
    r.finish()
    if r.aw.shape[0]:  # scikit-learn publishes the averages once t - 1 >= average
        return r.aw, r.s("AVERAGE_INTERCEPT"), n_iter
    return r.w, r.s("INTERCEPT"), n_iter


def class_weights(y, classes, class_weight):
    """compute_class_weight: None, a dict {label: weight}, or "balanced"."""
    if class_weight is None:
        return np.ones(len(classes))
    if class_weight == "balanced":
        counts = np.array([np.sum(y == c) for c in classes], dtype=np.float64)
        return float(len(y)) / (len(classes) * counts)
    return np.array([float(class_weight.get(c, 1.0)) for c in classes])


def fit_classifier(m, X, y, sw=None, *, loss=0, rate=0, penalty=0, margin=0.0, alpha=1e-4,
                   l1_ratio=0.15, eta0=1.0, class_weight=None, fit_intercept=True, tol=1e-3,
                   max_iter=1000, average=0):
    """scikit-learn's fit of a linear SGD classifier: one binary problem (the larger class
    positive) or one-vs-rest, each a _plain_sgd call from t = 1, neg_weight 1.0 in OvR."""
    sw = np.ones(len(y)) if sw is None else sw
    classes = np.unique(y)
    cw = class_weights(y, classes, class_weight)
    tasks = [(1, cw[1], cw[0])] if len(classes) == 2 else [(k, w, 1.0) for k, w in enumerate(cw)]
    coef, intercept, n_iter = [], [], 0
    for k, w_pos, w_neg in tasks:
        params = make_params(m, alpha, l1_ratio, eta0, 0.01 if isinstance(X, tuple) else 1.0,
                             w_pos, w_neg, margin, average)
        w, b, it = run_plain_sgd(m, X, np.where(y == classes[k], 1.0, -1.0), sw, params,
                                 loss, rate, penalty, fit_intercept, tol, max_iter)
        coef.append(w)
        intercept.append(b)
        n_iter = max(n_iter, it)
    return np.array(coef), np.array(intercept), n_iter


def fit_regressor(m, X, y, sw=None, *, loss=2, rate=2, penalty=0, epsilon=0.1, alpha=1e-4,
                  l1_ratio=0.15, eta0=0.01, tol=1e-3, max_iter=1000, average=0):
    sw = np.ones(len(y)) if sw is None else sw
    params = make_params(m, alpha, l1_ratio, eta0, 0.01 if isinstance(X, tuple) else 1.0,
                         1.0, 1.0, epsilon, average)
    w, b, it = run_plain_sgd(m, X, y, sw, params, loss, rate, penalty, True, tol, max_iter)
    return w, np.array([b]), it


def assert_same_fit(est, fit):
    coef, intercept, n_iter = fit
    assert np.array_equal(est.coef_, coef.reshape(est.coef_.shape))
    assert np.array_equal(est.intercept_, intercept)
    assert np.array_equal(est.n_iter_, n_iter)


@pytest.fixture
def sklearn():
    pytest.importorskip("sklearn")
    from sklearn import linear_model
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():  # the deprecated PA estimators; max_iter with tol=None
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield linear_model


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(2024)
    X = np.round(rng.standard_normal((40, 6)), 3)
    X[5] = 0.0
    y2 = (X[:, 1] + 0.4 * rng.standard_normal(40) > 0).astype(int)
    y3 = rng.integers(0, 3, 40)
    y3[X[:, 0] > 0.6] = 2
    yr = X @ rng.standard_normal(6) + 0.1 * rng.standard_normal(40)
    return X, {2: y2, 3: y3}, yr, rng.uniform(0.2, 3.0, 40)


PERCEPTRON_GRID = [
    (pen, alpha, l1r, eta0, cw, weighted, tol, fi, k)
    for pen, alpha, l1r, eta0, cw, weighted, tol, fi, k in itertools.product(
        [None, "l2", "l1", "elasticnet"], [1e-4, 0.05], [0.15, 0.7], [1.0, 0.3],
        [None, {1: 2.5}, "balanced"], [False, True], [None, 1e-3], [True, False], [2, 3])
    if pen == "elasticnet" or l1r == 0.15]


@pytest.mark.parametrize("backend", BACKENDS)
def test_perceptron_matches_sklearn(sklearn, data, backend):
    m = _module(backend, "_sgd")
    X, ys, _, sw = data
    # every combination on the C twin; a spread-out eighth of them on the Python twin
    grid = PERCEPTRON_GRID if backend == "c" else PERCEPTRON_GRID[::8]
    for pen, alpha, l1r, eta0, cw, weighted, tol, fi, k in grid:
        kw = {"alpha": alpha, "l1_ratio": l1r, "eta0": eta0, "class_weight": cw, "tol": tol,
              "fit_intercept": fi, "max_iter": 1000 if tol else 25}
        est = sklearn.Perceptron(penalty=pen, shuffle=False, **kw).fit(
            X, ys[k], sample_weight=sw if weighted else None)
        assert_same_fit(est, fit_classifier(m, X, ys[k], sw if weighted else None,
                                            penalty=PENALTY[pen], **kw))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("k", [2, 3])
def test_pa_classifier_matches_sklearn(sklearn, data, backend, k, blas_fuses):
    m = _module(backend, "_sgd")
    X, ys, _, sw = data
    X = pad_to_blas_block(X)  # see conftest: scikit-learn's averaging calls BLAS daxpy
    for lr, average, C, cw in itertools.product(["pa1", "pa2"], [False, True, 30], [1.0, 0.05],
                                                [None, "balanced"]):
        if average and not blas_fuses:
            continue
        fit = fit_classifier(m, X, ys[k], loss=m.LOSS_HINGE, margin=1.0, eta0=C,
                             rate=m.RATE_PA1 if lr == "pa1" else m.RATE_PA2,
                             class_weight=cw, average=int(average))
        if not differs("pa_rates_ignore_eta0"):  # before 1.8 their step bound is 1.0
            assert_same_fit(sklearn.SGDClassifier(
                loss="hinge", penalty=None, learning_rate=lr, eta0=C, average=average,
                class_weight=cw, shuffle=False).fit(X, ys[k]), fit)
        assert_same_fit(sklearn.PassiveAggressiveClassifier(
            C=C, loss="hinge" if lr == "pa1" else "squared_hinge", average=average,
            class_weight=cw, shuffle=False).fit(X, ys[k]), fit)
    weighted = fit_classifier(m, X, ys[k], sw, loss=m.LOSS_HINGE, margin=1.0, eta0=0.5,
                              rate=m.RATE_PA1)
    assert_same_fit(fit_pa(sklearn.PassiveAggressiveClassifier(C=0.5, shuffle=False),
                           X, ys[k], sw), weighted)


@pytest.mark.parametrize("backend", BACKENDS)
def test_pa_regressor_matches_sklearn(sklearn, data, backend, blas_fuses):
    m = _module(backend, "_sgd")
    X, _, yr, sw = data
    X = pad_to_blas_block(X)
    for lr, average, C, eps in itertools.product(["pa1", "pa2"], [False, True, 30],
                                                 [1.0, 0.05], [0.1, 0.0]):
        if average and not blas_fuses:
            continue
        fit = fit_regressor(m, X, yr, rate=m.RATE_PA1 if lr == "pa1" else m.RATE_PA2,
                            epsilon=eps, eta0=C, average=int(average))
        if not differs("pa_rates_ignore_eta0"):
            assert_same_fit(sklearn.SGDRegressor(
                loss="epsilon_insensitive", penalty=None, learning_rate=lr, eta0=C,
                epsilon=eps, average=average, shuffle=False).fit(X, yr), fit)
        assert_same_fit(sklearn.PassiveAggressiveRegressor(
            C=C, epsilon=eps, average=average, shuffle=False,
            loss="epsilon_insensitive" if lr == "pa1" else "squared_epsilon_insensitive",
        ).fit(X, yr), fit)
    assert_same_fit(fit_pa(sklearn.PassiveAggressiveRegressor(
        C=0.5, loss="squared_epsilon_insensitive", shuffle=False), X, yr, sw),
        fit_regressor(m, X, yr, sw, rate=m.RATE_PA2, eta0=0.5))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("sparse", [False, True])
def test_constant_rate_losses_match_sklearn(sklearn, data, backend, sparse, blas_fuses):
    # the other losses, every penalty, averaging with resets of the weight scale (alpha 0.3),
    # and CSR input, where scikit-learn decays the intercept's steps by 0.01
    m = _module(backend, "_sgd")
    X, ys, yr, _ = data
    X = X * (np.arange(40) % 3 == 0)[:, None] + X * (np.arange(6) % 2 == 0)  # zeros for CSR
    X = pad_to_blas_block(X)
    Xs = (*to_csr(X), X.shape[1]) if sparse else X
    Xsk = pytest.importorskip("scipy.sparse").csr_matrix(X) if sparse else X
    for pen, average, alpha in itertools.product(PENALTY, [False, True], [1e-3, 0.3]):
        if average and not blas_fuses:
            continue
        common = {"alpha": alpha, "eta0": 0.2, "average": int(average), "max_iter": 30}
        for name, loss, margin in [("perceptron", 0, 0.0), ("hinge", 0, 1.0),
                                   ("squared_hinge", 1, 1.0)]:
            est = sklearn.SGDClassifier(loss=name, penalty=pen, learning_rate="constant",
                                        shuffle=False, **{**common, "average": average})
            assert_same_fit(est.fit(Xsk, ys[3]), fit_classifier(
                m, Xs, ys[3], loss=loss, margin=margin, penalty=PENALTY[pen], **common))
        for name, loss in [("epsilon_insensitive", 2), ("squared_epsilon_insensitive", 3)]:
            est = sklearn.SGDRegressor(loss=name, penalty=pen, learning_rate="constant",
                                       epsilon=0.05, shuffle=False,
                                       **{**common, "average": average})
            assert_same_fit(est.fit(Xsk, yr), fit_regressor(
                m, Xs, yr, loss=loss, rate=0, epsilon=0.05, penalty=PENALTY[pen], **common))


def test_early_stopping_matches_sklearn_given_its_split(sklearn, data):
    # not reproducible on its own: the validation split comes from scikit-learn's generator.
    # Given that split (and scoring, as scikit-learn does, the *unscaled* w), it is exact.
    from sklearn.model_selection import StratifiedShuffleSplit

    m = _module("python" if not HAVE_C else "c", "_sgd")
    X, ys, _, _ = data
    y = np.where(ys[2] == 1, 1.0, -1.0)
    _, val = next(StratifiedShuffleSplit(test_size=0.2, random_state=3).split(X, y))
    mask = np.zeros(len(y), bool)
    mask[val] = True
    for pen, alpha in [(None, 1e-4), ("l2", 0.05), ("elasticnet", 0.02)]:
        r = Run(m, X.shape[1], l1=pen == "elasticnet")
        params = make_params(m, alpha=alpha)
        best, no_improvement, n_iter = -np.inf, 0, 0
        while no_improvement < 5:
            n_iter += 1
            r.epoch(X, y, params, penalty=PENALTY[pen], order=np.flatnonzero(~mask),
                    objective=False)
            score = np.mean(np.where(X[mask] @ r.w + r.s("INTERCEPT") > 0, 1.0, -1.0)
                            == y[mask])
            no_improvement = no_improvement + 1 if score < best + 1e-3 else 0
            best = max(best, score)
        r.finish()
        est = sklearn.Perceptron(penalty=pen, alpha=alpha, shuffle=False, early_stopping=True,
                                 validation_fraction=0.2, random_state=3).fit(X, ys[2])
        assert_same_fit(est, (r.w, np.array([r.s("INTERCEPT")]), n_iter))


def test_float32_input_is_close_to_sklearn_not_exact(sklearn, data):
    # scikit-learn computes float32 input in float32; these routines upcast it to float64
    m = _module("python" if not HAVE_C else "c", "_sgd")
    X, ys, yr, _ = data
    X32 = X.astype(np.float32)
    est = fit_pa(sklearn.PassiveAggressiveRegressor(C=0.1, epsilon=0.01, shuffle=False,
                                                    max_iter=5, tol=None), X32, yr)
    coef, intercept, _ = fit_regressor(m, X32, yr, rate=m.RATE_PA1, epsilon=0.01, eta0=0.1,
                                       max_iter=5, tol=None)
    assert est.coef_.dtype == np.float32
    scale = np.abs(coef).max()  # float32 rounding, relative to the size of the weights
    np.testing.assert_allclose(est.coef_, coef, rtol=0, atol=1e-5 * scale)
    np.testing.assert_allclose(est.intercept_, intercept, rtol=0, atol=1e-5 * scale)
    est = sklearn.Perceptron(penalty="l2", alpha=1e-3, shuffle=False, max_iter=5,
                             tol=None).fit(X32, ys[2])
    coef, intercept, _ = fit_classifier(m, X32, ys[2], penalty=2, alpha=1e-3, max_iter=5,
                                        tol=None)
    np.testing.assert_allclose(est.coef_, coef, rtol=0, atol=1e-5 * np.abs(coef).max())
    assert not np.array_equal(est.coef_, coef)
