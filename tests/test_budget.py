"""BudgetKernelPerceptron and the _budget routines: both twins equal, the kernel perceptron
exactly while the budget is not reached, the support set never above the budget, the
eviction rules traced by hand, streaming, model files, K classes, averaging, the exact
conjunction kernel at thousands of bits, and bad input."""
import pickle

import numpy as np
import pytest
from conftest import _module, examples
from hypothesis import given, settings
from hypothesis import strategies as st

import perceptron_c
from perceptron_c import BudgetKernelPerceptron, FileFormatError, KernelPerceptron, _backend
from perceptron_c.budget_perceptron import STRATEGIES
from perceptron_c.kernels import RBF, pack_bits, unpack_bits

REMOVING = ("random", "oldest", "forgetron")
ROUTINES = ("budget_epoch", "budget_epoch_exact", "projectron_epoch")


def int_problem(rng, n=60, d=5, k=2):
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    W = rng.normal(size=(d, k))
    if k > 2:
        return X, np.argmax(X @ W + rng.normal(scale=0.5, size=(n, k)), axis=1)
    return X, (X @ W[:, 0] + rng.normal(scale=0.5, size=n) > 0).astype(int)


def bits_labels(B, k=2):
    y = (B[:, 0] & B[:, 3] | B[:, 5] & B[:, 7]).astype(int)
    return (y + B[:, 9] + B[:, 11]) % k if k > 2 else y


def bits_problem(rng, n, n_bits, density=0.5, k=2):
    B = (rng.random((n, n_bits)) < density).astype(np.uint8)
    return B, bits_labels(B, k)


# ------------------------------------------------------------------------- routine level

def _routine_case(rng, name):
    """Random but valid arguments for one routine call (a universe of kernel columns, some
    slots already taken, rows for some of them)."""
    R, B = int(rng.choice([1, 3])), int(rng.integers(1, 7))
    m, n_y, n_pre = int(rng.integers(0, 25)), int(rng.integers(1, 12)), int(rng.integers(0, B + 1))
    extra = int(rng.integers(0, 3))
    exact = name == "budget_epoch_exact"
    if exact:
        K = rng.integers(0, 70, size=(m + extra, n_pre + m)).astype(np.int32)
        alpha = np.zeros((R, B), np.int64)
        alpha[:, :n_pre] = rng.integers(-3, 4, size=(R, n_pre))
    else:
        Z = rng.normal(size=(n_pre + m, 3))
        rows_z = np.vstack([Z[n_pre:], Z[:extra]])
        K = np.exp(-((rows_z[:, None, :] - Z[None, :, :]) ** 2).sum(-1))
        alpha = np.zeros((R, B))
        alpha[:, :n_pre] = rng.normal(size=(R, n_pre))
    slots = np.full((4, B), -1, np.int64)
    slots[0, :n_pre] = np.arange(n_pre)
    slots[2, :n_pre] = rng.permutation(n_pre)
    old = np.argsort(slots[2, :n_pre])[:extra]
    slots[1, old] = m + np.arange(old.shape[0])
    args = [np.ascontiguousarray(K), rng.integers(0, n_y, m).astype(np.int64),
            rng.integers(0, max(R, 2), n_y).astype(np.int64), alpha,
            alpha.sum(axis=1), slots, np.full(n_y, -1, np.int64),
            np.array([n_pre, n_pre, 0, 0, 0], np.int64), bool(rng.random() < 0.6)]
    kw = {}
    if name == "projectron_epoch":
        G = np.exp(-rng.random((n_pre, n_pre)))
        Kinv = np.zeros((B, B))
        Kinv[:n_pre, :n_pre] = np.linalg.inv(G @ G.T + np.eye(n_pre))
        fi = args.pop()
        args += [Kinv, float(rng.choice([0.0, 0.1, 0.5, 5.0])), bool(rng.random() < 0.5), fi]
    else:
        policy = int(rng.integers(0, 3))
        args.append(policy)
        if policy == 1:
            kw["rand"] = rng.integers(0, B, m).astype(np.int64)
        if name == "budget_epoch" and policy == 2 and rng.random() < 0.6:
            kw["shrink"] = np.array([rng.random()])
    if rng.random() < 0.5:
        dtype = np.int64 if exact else np.float64
        kw.update(u=np.zeros((R, B), dtype), beta=np.zeros(R, dtype),
                  count=np.ones(1, np.int64))
    return args, kw


def _call(module, name, args, kw):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    kw = {k: v.copy() for k, v in kw.items()}
    try:
        result = getattr(module, name)(*args, **kw)
    except (ValueError, FloatingPointError, OverflowError) as exc:
        result = (type(exc).__name__, str(exc))
    return result, [a for a in args if isinstance(a, np.ndarray)] + list(kw.values())


@pytest.mark.parametrize("name", ROUTINES)
def test_routine_twins_agree_on_random_calls(name):
    c, py = _module("c", "_budget"), _module("python", "_budget")
    rng = np.random.default_rng(hash(name) % 2**32)
    updated = 0
    for _ in range(examples(150)):
        args, kw = _routine_case(rng, name)
        rc, ac = _call(c, name, args, kw)
        rp, ap = _call(py, name, args, kw)
        assert rc == rp
        for a, b in zip(ac, ap):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        updated += isinstance(rc, int) and rc > 0
    assert updated > examples(150) // 3


def _more_slots(args, kw, name, extra):
    """The call ``args, kw`` with ``extra`` empty slots more (no vector, zero coefficients and
    inverse Gram)."""
    def pad(a, axes, fill=0):
        return np.pad(a, [(0, extra if i in axes else 0) for i in range(a.ndim)],
                      constant_values=fill)
    args, kw = list(args), dict(kw)
    args[3], args[5] = pad(args[3], (1,)), pad(args[5], (1,), -1)
    if name == "projectron_epoch":
        args[8] = pad(args[8], (0, 1))
    if "u" in kw:
        kw["u"] = pad(kw["u"], (1,))
    return args, kw


@pytest.mark.parametrize("name", ROUTINES)
def test_a_call_with_room_for_every_row_ignores_the_slots_beyond(name):
    """What lets a model hold slots for its support set, not for its budget: a call that
    cannot fill its slots (counts[0] + len(rows) of them or more) runs as with any more."""
    rng = np.random.default_rng(hash(name) % 2**32 + 1)
    for twin in ("c", "python"):
        budget = _module(twin, "_budget")
        for case in range(examples(60)):
            args, kw = _routine_case(rng, name)
            room = int(args[7][0]) + args[1].shape[0] - args[3].shape[1]
            args, kw = _more_slots(args, kw, name, max(room, 0))
            if name == "projectron_epoch" and case % 2:
                args[9] = 0.0  # every mistake off the span takes a slot: the slots fill
            result, out = _call(budget, name, args, kw)
            more, out_more = _call(budget, name, *_more_slots(args, kw, name, 1 + case % 5))
            assert result == more
            for j, (a, b) in enumerate(zip(out, out_more)):  # j = 5: slots, empty is -1
                expect = np.full(b.shape, -1 if j == 5 else 0, b.dtype)
                expect[tuple(slice(0, k) for k in a.shape)] = a
                assert np.array_equal(expect, b), j


def _mistake_every_time(B, m, y):
    """Arguments where every example is a mistake: all kernel values 0, no intercept."""
    K = np.zeros((m, m))
    return (K, np.arange(m, dtype=np.int64), np.asarray(y, np.int64), np.zeros((1, B)),
            np.zeros(1), np.full((4, B), -1, np.int64), np.full(m, -1, np.int64),
            np.zeros(5, np.int64), False)


@pytest.mark.parametrize("twin", ["c", "python"])
def test_random_replaces_the_drawn_slot(twin):
    budget = _module(twin, "_budget")
    K, rows, y, alpha, b, slots, where, counts, fi = _mistake_every_time(2, 4, [1, 0, 1, 0])
    rand = np.array([1, 1, 0, 1], np.int64)  # only positions 2 and 3 find the budget full
    assert budget.budget_epoch(K, rows, y, alpha, b, slots, where, counts, fi, 1, rand) == 4
    # 0 -> slot 0, 1 -> slot 1, 2 replaces slot rand[2] = 0, 3 replaces slot rand[3] = 1
    assert slots[3].tolist() == [2, 3] and where.tolist() == [-1, -1, 0, 1]
    assert alpha.tolist() == [[1.0, -1.0]] and counts.tolist() == [2, 4, 2, 0, 4]


@pytest.mark.parametrize("twin", ["c", "python"])
def test_oldest_is_first_in_first_out(twin):
    budget = _module(twin, "_budget")
    K, rows, y, alpha, b, slots, where, counts, fi = _mistake_every_time(2, 5, [1, 1, 0, 0, 1])
    budget.budget_epoch(K, rows, y, alpha, b, slots, where, counts, fi, 2)
    # slots: [0, 1] -> [2, 1] -> [2, 3] -> [4, 3]
    assert slots[3].tolist() == [4, 3] and slots[2].tolist() == [4, 3]
    assert alpha.tolist() == [[1.0, -1.0]] and counts.tolist() == [2, 5, 3, 0, 5]


@pytest.mark.parametrize("twin", ["c", "python"])
def test_stoptron_stops(twin):
    budget = _module(twin, "_budget")
    K, rows, y, alpha, b, slots, where, counts, fi = _mistake_every_time(2, 5, [1, 0, 1, 1, 0])
    b_before = b.copy()
    assert budget.budget_epoch(K, rows, y, alpha, b, slots, where, counts, True, 0) == 5
    assert slots[3].tolist() == [0, 1] and alpha.tolist() == [[1.0, -1.0]]
    # three mistakes not stored, and no update at all for them (b = sum alpha = 0)
    assert counts.tolist() == [2, 2, 3, 0, 5] and b.tolist() == b_before.tolist()


def _forgetron_phi(sigma, g, Q, M):
    A, Bq, C = sigma * sigma - 2.0 * g, 2.0 * sigma, Q - 15.0 / 32.0 * M
    if A + Bq + C <= 0.0:
        return 1.0, Q + (A + Bq)
    phi = min(1.0, -2.0 * C / (Bq + np.sqrt(max(Bq * Bq - 4.0 * A * C, 0.0))))
    return phi, Q + ((A * phi) * phi + Bq * phi)


@pytest.mark.parametrize("twin", ["c", "python"])
def test_forgetron_schedule_by_hand(twin):
    """1-D linear kernel, budget 1: x = 1 (+1), then x = -1 (+1)."""
    budget = _module(twin, "_budget")
    x = np.array([1.0, -1.0])
    K = np.outer(x, x)  # universe: the two examples (no slot at the start)
    alpha, b, shrink = np.zeros((1, 1)), np.zeros(1), np.zeros(1)
    slots, where, counts = np.full((4, 1), -1, np.int64), np.full(2, -1, np.int64), \
        np.zeros(5, np.int64)
    rows, y = np.arange(2, dtype=np.int64), np.array([1, 1], np.int64)
    assert budget.budget_epoch(K, rows, y, alpha, b, slots, where, counts, False, 2,
                               shrink=shrink) == 2
    # step 2: f = -1, a mistake; f'(x_1) = 1 * 1 + 1 * (1 * -1) = 0, sigma = 1, M = 2
    phi, Q = _forgetron_phi(1.0, 0.0, 0.0, 2)
    assert 0.0 < phi < 1.0 and np.isclose(Q, 15.0 / 32.0 * 2)
    assert alpha[0, 0] == phi and shrink[0] == Q
    assert slots[3].tolist() == [1] and counts.tolist() == [1, 2, 1, 0, 2]


@pytest.mark.parametrize("twin", ["c", "python"])
def test_forgetron_with_intercept_shrinks_it(twin):
    budget = _module(twin, "_budget")
    x = np.array([1.0, -1.0, 2.0])
    K = np.outer(x, x)
    alpha, b, shrink = np.zeros((1, 1)), np.zeros(1), np.zeros(1)
    slots, where, counts = np.full((4, 1), -1, np.int64), np.full(3, -1, np.int64), \
        np.zeros(5, np.int64)
    budget.budget_epoch(K, np.arange(3, dtype=np.int64), np.array([1, 1, 0], np.int64), alpha,
                        b, slots, where, counts, True, 2, shrink=shrink)
    # b stays the coefficient of the constant feature: the sum of the stored coefficients
    assert b[0] == alpha.sum() and counts[2] >= 1


def _projectron_case(xs, ys, budget, eta, fit_intercept=False):
    X = np.asarray(xs, dtype=float)
    return (np.ascontiguousarray(X @ X.T), np.arange(len(X), dtype=np.int64),
            np.asarray(ys, np.int64), np.zeros((1, budget)), np.zeros(1),
            np.full((4, budget), -1, np.int64), np.full(len(X), -1, np.int64),
            np.zeros(5, np.int64), np.zeros((budget, budget)), eta)


@pytest.mark.parametrize("twin", ["c", "python"])
def test_projectron_by_hand(twin):
    """Linear kernel in 2-D: e1, e2 are added; -(e1 + e2) and 2 e1 lie in their span."""
    budget = _module(twin, "_budget")
    K, rows, y, alpha, b, slots, where, counts, Kinv, eta = _projectron_case(
        [[1, 0], [0, 1], [-1, -1], [2, 0]], [1, 1, 1, 0], 3, 0.1)
    assert budget.projectron_epoch(K, rows, y, alpha, b, slots, where, counts, Kinv, eta,
                                   False, False) == 4
    # e1: f = 0, delta = 1 > eta: slot 0. e2: f = 0, delta = 1: slot 1, K^-1 = I.
    # -(e1 + e2): f = -2, d = K^-1 k = (-1, -1), delta = 0: alpha += (+1)(-1, -1) = (0, 0).
    # 2 e1: f = 0, d = (2, 0), delta = 0: alpha += (-1)(2, 0) = (-2, 0).
    assert alpha.tolist() == [[-2.0, 0.0, 0.0]]
    assert np.array_equal(Kinv[:2, :2], np.eye(2)) and counts.tolist() == [2, 2, 0, 2, 4]
    assert slots[3, :2].tolist() == [0, 1]


@pytest.mark.parametrize("twin", ["c", "python"])
def test_projectron_plus_plus_margin_update_by_hand(twin):
    budget = _module(twin, "_budget")
    case = _projectron_case([[1, 0], [0.5, 0.1]], [1, 1], 2, 0.5)
    for aggressive in (False, True):
        K, rows, y, alpha, b, slots, where, counts, Kinv, eta = [
            a.copy() if isinstance(a, np.ndarray) else a for a in case]
        budget.projectron_epoch(K, rows, y, alpha, b, slots, where, counts, Kinv, eta,
                                aggressive, False)
        if not aggressive:  # f(x_2) = 0.5 > 0: no mistake, no update
            assert alpha.tolist() == [[1.0, 0.0]]
            continue
        # margin error: ell = 0.5, d = (0.5,), |Pk|^2 = 0.25, delta^2 = 0.26 - 0.25
        ell, kd = 0.5, 0.5 * 0.5
        delta = np.sqrt(max(K[1, 1] - kd, 0.0))
        tau = min(1.0, ell / kd, 2.0 * (ell - delta / eta) / kd)
        assert tau == 1.0 and alpha.tolist() == [[1.0 + tau * 0.5, 0.0]]
        assert counts.tolist() == [1, 1, 0, 1, 1]


def test_routines_check_their_arguments():
    for twin in ("c", "python"):
        budget = _module(twin, "_budget")
        K, rows, y, alpha, b, slots, where, counts, fi = _mistake_every_time(2, 3, [1, 0, 1])
        with pytest.raises(ValueError, match="policy"):
            budget.budget_epoch(K, rows, y, alpha, b, slots, where, counts, fi, 3)
        with pytest.raises(ValueError, match="rand"):
            budget.budget_epoch(K, rows, y, alpha, b, slots, where, counts, fi, 1,
                                np.array([0, 2, 0], np.int64))
        bad = where.copy()
        bad[0] = 1
        with pytest.raises(ValueError, match="agree"):
            budget.budget_epoch(K, rows, y, alpha, b, slots, bad, counts, fi, 0)
        with pytest.raises(ValueError, match="row and a column"):
            budget.budget_epoch(K[:2], rows, y, alpha, b, slots, where, counts, fi, 0)
        with pytest.raises(ValueError, match="no row for slot"):
            _no_row(budget)


def _no_row(budget):
    # one slot taken before the call, without a row of K: the Forgetron cannot remove it
    K = np.array([[1.0, -1.0]])
    slots = np.array([[0], [-1], [0], [-1]], np.int64)
    budget.budget_epoch(K, np.array([0], np.int64), np.array([0], np.int64),
                        np.array([[1.0]]), np.zeros(1), slots, np.full(1, -1, np.int64),
                        np.array([1, 1, 0, 0, 0], np.int64), False, 2, shrink=np.zeros(1))


# -------------------------------------------------------------------------- model level

def _model_data(rng, kernel, k):
    if kernel == "conjunction":
        return bits_problem(rng, 70, 14, k=k)
    X = rng.normal(size=(70, 3))
    return X, (np.argmax(X @ rng.normal(size=(3, k)), axis=1) if k > 2 else
               (X[:, 0] * X[:, 1] > 0).astype(int))


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kernel", ["rbf", "conjunction"])
@pytest.mark.parametrize("k", [2, 3])
def test_model_twins_agree(rng, strategy, kernel, k):
    _module("c", "_budget")
    X, y = _model_data(rng, kernel, k)
    for average, fit_intercept in ((False, True), (True, False)):
        out = []
        for name in ("c", "python"):
            with _backend.using(name):
                m = BudgetKernelPerceptron(budget=9, strategy=strategy, kernel=kernel,
                                           random_state=0, max_iter=4, average=average,
                                           fit_intercept=fit_intercept, eta=0.3).fit(X, y)
                out.append((m.mistakes_, m._alpha, m._b, m._counts, m._stamp,
                            m.support_, m.decision_function(X)))
        for a, b in zip(*out):
            assert np.array_equal(a, b)


def _same_model(bp, kp, X, exact_decisions):
    order = np.argsort(bp.support_)
    assert bp.mistakes_.tolist() == kp.mistakes_.tolist()
    assert np.array_equal(bp.support_[order], kp.support_)
    assert np.array_equal(bp.dual_coef_[:, order], kp.dual_coef_)
    assert np.array_equal(bp.intercept_, kp.intercept_)
    if exact_decisions:
        assert np.array_equal(bp.decision_function(X), kp.decision_function(X))
    else:
        np.testing.assert_allclose(bp.decision_function(X), kp.decision_function(X),
                                   rtol=1e-12, atol=1e-12)
    assert np.array_equal(bp.predict(X), kp.predict(X))


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("k", [2, 4])
@pytest.mark.parametrize("average", [False, True])
def test_budget_above_the_mistakes_is_the_kernel_perceptron(model_backend, rng, strategy, k,
                                                           average):
    """Integer data and kernels whose values are integers: every sum is exact, so the models
    must be equal. The Projectron (eta=0) needs examples outside the span of the others: a
    degree-4 polynomial kernel, and the conjunction kernel on distinct rows."""
    X, y = int_problem(rng, 60, 5, k)
    kernels = [("poly", dict(degree=4))] if strategy.startswith("projectron") else \
        [("linear", {}), ("poly", dict(degree=2))]
    for kernel, params in kernels:
        kw = dict(kernel=kernel, random_state=1, max_iter=5, average=average,
                  fit_intercept=True, **params)
        kp = KernelPerceptron(**kw).fit(X, y)
        bp = BudgetKernelPerceptron(budget=500, strategy=strategy, eta=0.0, **kw).fit(X, y)
        assert bp.n_evicted_ == 0 and bp.n_projected_ == 0
        _same_model(bp, kp, X, exact_decisions=not average)
    B = np.unique(bits_problem(rng, 50, 14, k=k)[0], axis=0)  # distinct rows
    yb = bits_labels(B, k)
    kw = dict(kernel="conjunction", random_state=1, max_iter=5, average=average,
              fit_intercept=True)
    kp = KernelPerceptron(**kw).fit(B, yb)
    bp = BudgetKernelPerceptron(budget=500, strategy=strategy, eta=0.0, **kw).fit(B, yb)
    _same_model(bp, kp, B, exact_decisions=not average)


@settings(max_examples=examples(25), deadline=None)
@given(strategy=st.sampled_from(STRATEGIES), budget=st.integers(1, 6), k=st.sampled_from([2, 3]),
       batches=st.lists(st.integers(1, 40), min_size=1, max_size=4), seed=st.integers(0, 99),
       average=st.booleans())
def test_the_support_never_exceeds_the_budget(strategy, budget, k, batches, seed, average):
    rng = np.random.default_rng(seed)
    m = BudgetKernelPerceptron(budget=budget, strategy=strategy, random_state=seed,
                               average=average, gamma=2.0, fit_intercept=bool(seed % 2))
    seen = []
    for n in batches:
        X = rng.normal(size=(n, 2))
        y = rng.integers(0, k, n)  # pure noise: mistakes never stop
        m.partial_fit(X, y, classes=np.arange(k))
        seen.append(X)
        assert m.n_support_ <= budget and m.dual_coef_.shape[1] == m.n_support_
        assert m.support_vectors_.shape[0] == m.n_support_
    stored = np.vstack(seen)
    for v in m.support_vectors_:  # every stored vector is a row of the stream
        assert np.any(np.all(stored == v, axis=1))
    if strategy in REMOVING:  # every removal made room for an insertion
        assert m.n_evicted_ + m.n_support_ <= m.mistakes_.sum()
        assert m.n_evicted_ == 0 or m.n_support_ == budget
    if strategy == "forgetron" and m.n_evicted_:  # the schedule's invariant
        assert m._q[0] <= 15.0 / 32.0 * m._counts[4] * (1 + 1e-12)


@pytest.mark.parametrize("strategy", ["stoptron", "oldest", "forgetron", "projectron",
                                      "projectron++"])
def test_streaming_in_batches_is_one_online_pass(rng, strategy):
    """Deterministic strategies, exact kernel values: batches of any size make the same
    online pass as one call (the kernel blocks differ, the arithmetic does not)."""
    X, y = int_problem(rng, 90, 4, 3)
    kw = dict(budget=7, strategy=strategy, kernel="linear", shuffle=False, random_state=0,
              average=True, fit_intercept=True)
    whole = BudgetKernelPerceptron(**kw).partial_fit(X, y, classes=np.arange(3))
    part = BudgetKernelPerceptron(**kw)
    for s in range(0, 90, 13):
        part.partial_fit(X[s:s + 13], y[s:s + 13], classes=np.arange(3))
    assert part.mistakes_.sum() == whole.mistakes_.sum()
    for name in ("_alpha", "_b", "_u", "_beta", "_count", "_counts", "_stamp", "_q"):
        assert np.array_equal(getattr(part, name), getattr(whole, name)), name
    assert np.array_equal(part.support_vectors_, whole.support_vectors_)


def test_no_pool_of_the_stream(monkeypatch, rng):
    """Kernel blocks are (at most 256 visited rows [+ as many stored rows]) x (budget + the
    block), whatever the batch: memory O(budget), not O(examples seen)."""
    shapes = []
    module = _backend.budget
    for name in ("budget_epoch", "projectron_epoch"):
        original = getattr(module, name)

        def record(K, *args, _original=original, **kw):
            shapes.append(K.shape)
            return _original(K, *args, **kw)

        monkeypatch.setattr(module, name, record)
    X = rng.normal(size=(3000, 2))
    y = rng.integers(0, 2, 3000)
    for strategy in ("forgetron", "projectron", "random"):
        m = BudgetKernelPerceptron(budget=20, strategy=strategy, random_state=0)
        m.partial_fit(X, y, classes=[0, 1]).partial_fit(X, y)
        assert m.n_support_ == 20
    assert shapes and max(r for r, _ in shapes) <= 2 * 32 and max(c for _, c in shapes) <= 52


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kernel", ["rbf", "conjunction"])
def test_save_load_round_trip(tmp_path, rng, strategy, kernel):
    X, y = bits_problem(rng, 80, 20, k=3)
    labels = np.array(["a", "b", "c"])[y]
    m = BudgetKernelPerceptron(budget=12, strategy=strategy, kernel=kernel, random_state=0,
                               max_iter=6, average=True, fit_intercept=True).fit(X, labels)
    for m2 in (perceptron_c.load(m.save(tmp_path / "b.npz")), pickle.loads(pickle.dumps(m))):
        assert type(m2) is BudgetKernelPerceptron and m2.n_evicted_ == m.n_evicted_
        assert np.array_equal(m.decision_function(X), m2.decision_function(X))
        assert np.array_equal(m.predict(X), m2.predict(X))
        m2.partial_fit(X, labels)
    m.partial_fit(X, labels)  # and training goes on as if never saved
    assert np.array_equal(m.decision_function(X), m2.decision_function(X))
    assert np.array_equal(m._stamp, m2._stamp)


@pytest.mark.parametrize("change,match", [
    (lambda a: a.__setitem__("state/stamp", np.zeros_like(a["state/stamp"])), "stamp"),
    (lambda a: a.__setitem__("state/counts", a["state/counts"] + [1, 0, 0, 0, 0]), "counts"),
    (lambda a: a.__setitem__("state/q", np.array([np.nan])), "q"),
    (lambda a: a.__setitem__("__params__", np.array(str(a["__params__"]).replace(
        '"budget": 12', '"budget": 3'))), "exceed budget"),
])
def test_bad_model_files_are_refused(tmp_path, rng, change, match):
    X, y = int_problem(rng, 60, 3)
    m = BudgetKernelPerceptron(budget=12, strategy="forgetron", random_state=0,
                               max_iter=5).fit(X, y)
    assert m.n_support_ == 12
    path = m.save(tmp_path / "m.npz")
    with np.load(path, allow_pickle=False) as f:
        arrays = dict(f)
    change(arrays)
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(FileFormatError, match=match):
        perceptron_c.load(tmp_path / "bad.npz")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_k_classes_learn_blobs(rng, strategy):
    centres = np.array([[0.0, 3.0], [3.0, -2.0], [-3.0, -2.0], [0.0, 0.0]])
    y = rng.integers(0, 4, 600)
    X = centres[y] + 0.6 * rng.normal(size=(600, 2))
    m = BudgetKernelPerceptron(budget=15, strategy=strategy, random_state=0, max_iter=10,
                               gamma=0.5).fit(X[:400], y[:400])
    assert m.n_support_ <= 15 and m.dual_coef_.shape == (4, m.n_support_)
    assert m.score(X[400:], y[400:]) > 0.9


def test_averaged_coefficients(rng):
    X, y = int_problem(rng, 80, 3)
    for strategy in STRATEGIES:
        m = BudgetKernelPerceptron(budget=6, strategy=strategy, average=True, random_state=0,
                                   max_iter=4, kernel="linear", fit_intercept=True).fit(X, y)
        c = float(m._count[0])
        assert m._count[0] == m.n_iter_ * 80 + 1
        assert np.array_equal(m.dual_coef_, m._alpha - m._u / c)
        assert np.array_equal(m.intercept_, m._b - m._beta / c)
        # b and beta stay the sums of the stored coefficients' (the constant feature)
        np.testing.assert_allclose(m._b, m._alpha.sum(axis=1), atol=1e-9)
        np.testing.assert_allclose(m._beta, m._u.sum(axis=1), rtol=1e-9, atol=1e-6)


def _exact(model, B):
    """sum_j alpha_j 2^popcount(x AND sv_j) + b with Python integers (binary, plain)."""
    sv = unpack_bits(*model.support_vectors_).astype(bool)
    out = []
    for x in B.astype(bool):
        total = int(model._b[0])
        for a, s in zip(model._alpha[0].tolist(), sv):
            total += int(a) << int(np.count_nonzero(x & s))
        out.append(total)
    return np.array([np.sign(v) for v in out])


@pytest.mark.parametrize("strategy", ["random", "oldest", "stoptron"])
def test_conjunction_is_exact_at_thousands_of_bits(model_backend, rng, strategy):
    B = (rng.random((40, 2048)) < 0.5).astype(np.uint8)  # kernel values near 2^512..2^1024+
    y = rng.integers(0, 2, 40)
    m = BudgetKernelPerceptron(budget=8, strategy=strategy, kernel="conjunction",
                               random_state=0, max_iter=6, fit_intercept=True).fit(B, y)
    assert m.n_support_ <= 8 and m._alpha.dtype == np.int64
    d = m.decision_function(pack_bits(B))
    assert np.all(np.isfinite(d))
    assert np.array_equal(np.sign(d), _exact(m, B))
    assert np.array_equal(m.predict(B), m.classes_[(_exact(m, B) > 0).astype(int)])


@pytest.mark.parametrize("strategy", ["forgetron", "projectron"])
def test_float_strategies_refuse_conjunction_overflow(rng, strategy):
    B = (rng.random((30, 2400)) < 0.9).astype(np.uint8)  # ~2000 common bits: 2^2000
    y = rng.integers(0, 2, 30)
    m = BudgetKernelPerceptron(budget=4, strategy=strategy, kernel="conjunction", max_iter=3)
    with pytest.raises(ValueError, match="overflow in epoch 1"):
        m.fit(B, y)
    assert not hasattr(m, "n_iter_")  # the epoch left no trace: as unfitted as before


def test_float_conjunction_below_1024_bits_matches_the_integers(rng):
    B, y = bits_problem(rng, 60, 40)
    for strategy in ("forgetron", "projectron++"):
        m = BudgetKernelPerceptron(budget=10, strategy=strategy, kernel="conjunction",
                                   random_state=0, max_iter=5).fit(B, y)
        E = perceptron_c.kernels.get_kernel("conjunction").log2_gram(B, m.support_vectors_)
        np.testing.assert_allclose(m.decision_function(B),
                                   np.ldexp(1.0, E) @ m.dual_coef_[0] + m.intercept_[0])


def test_an_interrupted_epoch_leaves_no_trace(monkeypatch, rng):
    X = rng.normal(size=(600, 2))
    y = rng.integers(0, 2, 600)
    kw = dict(budget=10, strategy="forgetron", random_state=1, average=True)
    ref = BudgetKernelPerceptron(max_iter=1, **kw).fit(X, y)
    module, calls = _backend.budget, []
    original = module.budget_epoch

    def interrupt(*args, **kwargs):
        result = original(*args, **kwargs)
        calls.append(1)
        if len(calls) == 25:  # mid-way through the second epoch (19 blocks of 32 an epoch)
            raise KeyboardInterrupt
        return result

    monkeypatch.setattr(module, "budget_epoch", interrupt)
    model = BudgetKernelPerceptron(max_iter=20, **kw)
    with pytest.raises(KeyboardInterrupt):
        model.fit(X, y)
    assert model.n_iter_ == 1 and np.array_equal(model.dual_coef_, ref.dual_coef_)
    assert np.array_equal(model._q, ref._q) and np.array_equal(model._counts, ref._counts)
    monkeypatch.undo()
    model.partial_fit(X, y)
    ref.partial_fit(X, y)
    assert np.array_equal(model.dual_coef_, ref.dual_coef_)


def test_overflow_rolls_back_to_the_last_epoch(rng):
    X, y = int_problem(rng, 40, 3)
    m = BudgetKernelPerceptron(budget=5, kernel="linear", random_state=0)
    m.partial_fit(X, y, classes=[0, 1])
    before = m.dual_coef_.copy(), m.support_vectors_.copy()
    with pytest.raises(ValueError, match="overflow"):
        m.partial_fit(X * 1e200, y)
    assert np.array_equal(m.dual_coef_, before[0])
    assert np.array_equal(m.support_vectors_, before[1]) and m.n_iter_ == 1


def test_kinv_is_the_inverse_gram(rng):
    X = rng.normal(size=(200, 3))
    y = rng.integers(0, 2, 200)
    for fit_intercept in (False, True):
        m = BudgetKernelPerceptron(budget=30, strategy="projectron", eta=0.3, gamma=0.5,
                                   random_state=0, max_iter=3,
                                   fit_intercept=fit_intercept).fit(X, y)
        G = RBF(0.5)(m.support_vectors_) + (1.0 if fit_intercept else 0.0)
        np.testing.assert_allclose(m._kinv @ G, np.eye(m.n_support_), atol=1e-6)
        assert m.n_projected_ > 0


def test_projectron_full_budget_projects_every_update(rng):
    X = rng.normal(size=(300, 4))
    y = rng.integers(0, 2, 300)
    m = BudgetKernelPerceptron(budget=5, strategy="projectron", eta=0.0, gamma=1.0,
                               random_state=0, max_iter=1).fit(X, y)
    # one pass over distinct rows: the first five mistakes are stored, every other one is
    # projected (eta = 0 would project only examples in the span)
    assert m.n_support_ == 5 and m.n_evicted_ == 0
    assert m.n_projected_ == m.mistakes_.sum() - 5 > 0


@pytest.mark.parametrize("params,match", [
    (dict(budget=0), "budget"), (dict(budget=2.5), "budget"), (dict(strategy="lru"), "strategy"),
    (dict(eta=-1.0), "eta"), (dict(eta=float("nan")), "eta"),
    (dict(kernel="precomputed"), "precomputed"), (dict(max_gram_bytes=0), "max_gram_bytes"),
])
def test_bad_parameters_are_named(params, match):
    with pytest.raises((ValueError, TypeError), match=match):
        BudgetKernelPerceptron(**params).fit(np.eye(3), [0, 1, 1])


def test_continuation_rules(rng):
    X, y = int_problem(rng, 50, 3)
    m = BudgetKernelPerceptron(budget=6, strategy="oldest", random_state=0, max_iter=3)
    m.fit(X, y)
    m.set_params(strategy="random")
    with pytest.raises(ValueError, match="strategy"):
        m.partial_fit(X, y)
    m.set_params(strategy="oldest", budget=3)
    with pytest.raises(ValueError, match="budget=3"):
        m.partial_fit(X, y)
    m.set_params(budget=9, average=True)
    with pytest.raises(ValueError, match="average"):
        m.partial_fit(X, y)
    m.set_params(average=False, warm_start=True)
    m.fit(X, y)  # a larger budget continues
    assert 6 <= m.n_support_ <= 9 and np.all(m.support_ >= -1)
    m.set_params(average=True, warm_start=False).fit(X, y)  # a refit starts afresh
    m.set_params(average=False).fit(X, y).partial_fit(X, y)


def test_attributes_and_verbose(rng, capsys):
    X, y = int_problem(rng, 50, 3, 3)
    m = BudgetKernelPerceptron(budget=7, kernel="linear", max_iter=3, verbose=1,
                               random_state=0).fit(X, y)
    assert capsys.readouterr().err.count("epoch") == m.n_iter_
    assert m.dual_coef_.shape == (3, 7) and m.intercept_.shape == (3,)
    assert np.array_equal(m.support_vectors_[m.support_ >= 0], X[m.support_[m.support_ >= 0]])
    assert m.n_evicted_ > 0 and m.n_projected_ == 0
