"""The dual (kernel) perceptron routines on both twins: hand traces, the primal perceptron,
cached == rows, C == Python bit for bit, and exact signs for the conjunction kernel.

Integer Grams make every float sum exact (compared with np.array_equal); on RBF-like float
Grams the twins share one arithmetic contract, so they are compared with np.array_equal too.
"""
import itertools

import numpy as np
import pytest
from conftest import _module, routine_fixtures

DBL_MAX = np.finfo(np.float64).max
FLAGS = list(itertools.product([False, True], [False, True]))  # (fit_intercept, averaged)


# the float `_dual` and exact `_conjunction` routines of one twin, and both for cross tests
dual_backend, dual_twins = routine_fixtures("_dual", "_conjunction")


# ----------------------------------------------------------------------------- helpers
def idx(a):
    return np.asarray(a, dtype=np.int64)


def signs(rng, n):
    return np.where(rng.random(n) < 0.5, -1.0, 1.0)


def labels_and_shape(rng, n, k):
    """Random labels of n rows, k classes (int64) or, where k is 0, signs (binary); with the
    shape of the state's alpha and its number of biases."""
    if k:
        return rng.integers(0, k, n).astype(np.int64), (k, n), k
    return signs(rng, n), n, 1


def rbf_gram(rng, n, d=5, gamma=0.3):
    X = rng.normal(size=(n, d))
    sq = (X * X).sum(1)
    return np.exp(-gamma * np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0))


def bits01(rng, n, d, density=0.5):
    return (rng.random((n, d)) < density).astype(np.int64)


def conj_exponents(A01, B01):
    """E[i, j] = |Ones(a_i, b_j)|, from unpacked 0/1 matrices (no popcount needed)."""
    return np.ascontiguousarray((A01 @ B01.T).astype(np.int32))


def state(shape, n_b, averaged, dtype=np.float64):
    st = {"alpha": np.zeros(shape, dtype=dtype), "b": np.zeros(n_b, dtype=dtype)}
    if averaged:
        st.update(u=np.zeros(shape, dtype=dtype), beta=np.zeros(n_b, dtype=dtype),
                  count=np.ones(1, dtype=np.int64))
    return st


def avg_args(st):
    return (st["u"], st["beta"], st["count"]) if "u" in st else ()


def run_cached(mod, G, y, order, st, fi):
    if st["alpha"].ndim == 1:
        return mod.dual_epoch_cached(G, y, order, st["alpha"], st["b"], st["scores"], fi,
                                     *avg_args(st))
    return mod.multiclass_dual_epoch_cached(G, y, order, st["alpha"], st["b"], st["scores"], fi,
                                            *avg_args(st))


def run_rows(mod, Krows, rows, y, st, fi):
    if st["alpha"].ndim == 1:
        return mod.dual_epoch_rows(Krows, rows, y, st["alpha"], st["b"], fi, *avg_args(st))
    return mod.multiclass_dual_epoch_rows(Krows, rows, y, st["alpha"], st["b"], fi,
                                          *avg_args(st))


def run_conj(mod, Erows, rows, y, st, fi):
    if st["alpha"].ndim == 1:
        return mod.conjunction_epoch_rows(Erows, rows, y, st["alpha"], st["b"], fi,
                                          *avg_args(st))
    return mod.multiclass_conjunction_epoch_rows(Erows, rows, y, st["alpha"], st["b"], fi,
                                                 *avg_args(st))


def copy_state(st):
    return {k: v.copy() for k, v in st.items()}


def assert_states_equal(s1, s2):
    assert s1.keys() == s2.keys()
    for k in s1:
        assert s1[k].dtype == s2[k].dtype, k
        assert np.array_equal(s1[k], s2[k]), k


def exact(coefs, exps, bias):
    return sum(int(a) << int(e) for a, e in zip(coefs, exps)) + int(bias)


def sign(v):
    return int(v > 0) - int(v < 0)


# ----------------------------------------------------------------------------- hand traces
def test_hand_traced_linear_gram(dual_backend):
    # Linear Gram of (1,0), (0,1), (-1,-1), labels +,-,-, intercept: a = 0 on (1,0): alpha_0 = 1,
    # b = 1; f(0,1) = 0 + 1 > 0 on a negative: alpha_1 = -1, b = 0; f(-1,-1) = -1 + 1 = 0:
    # alpha_2 = -1, b = -1. The primal trace (w = (2, 0), b = -1) is sum alpha_i x_i.
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    G = X @ X.T
    y = np.array([1.0, -1.0, -1.0])
    order = idx([0, 1, 2])
    st = state(3, 1, False)
    st["scores"] = np.zeros(3)
    assert run_cached(dual_backend, G, y, order, st, True) == 3
    assert st["alpha"].tolist() == [1.0, -1.0, -1.0] and st["b"].tolist() == [-1.0]
    assert st["scores"].tolist() == (st["alpha"] @ G).tolist()
    assert (st["alpha"] @ X).tolist() == [2.0, 0.0]
    assert run_cached(dual_backend, G, y, order, st, True) == 0
    st2 = state(3, 1, False)
    assert run_rows(dual_backend, G[order], order, y, st2, True) == 3
    assert st2["alpha"].tolist() == [1.0, -1.0, -1.0] and st2["b"].tolist() == [-1.0]


def test_hand_traced_multiclass(dual_backend):
    # Linear Gram of (1,0), (0,1), classes 0, 1, no intercept. Row 0: all scores 0, predicts
    # class 0, right. Row 1: scores 0, 0, predicts 0: alpha[1, 1] = 1, alpha[0, 1] = -1.
    # Row 0 again: scores (0 - 0, 0 + 0) since x0 . x1 = 0: predicts 0, right.
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    G = X @ X.T
    y = idx([0, 1])
    order = idx([0, 1, 0, 1])
    st = state((2, 2), 2, True)
    st["scores"] = np.zeros((2, 2))
    assert run_cached(dual_backend, G, y, order, st, False) == 1
    assert st["alpha"].tolist() == [[0.0, -1.0], [0.0, 1.0]]
    # the mistake came at c = 2 (c starts at 1): U = 2 * alpha; count 5 after 4 examples
    assert st["u"].tolist() == [[0.0, -2.0], [0.0, 2.0]]
    assert st["count"].tolist() == [5] and st["b"].tolist() == [0.0, 0.0]


def test_hand_traced_conjunction(dual_backend):
    # x0 = 11, x1 = 01: E = [[2, 1], [1, 1]], labels +, -, no intercept.
    # epoch 1: f(x0) = 0 -> alpha0 = 1; f(x1) = 2 -> alpha1 = -1            (2 mistakes)
    # epoch 2: f(x0) = 4 - 2 = 2 right; f(x1) = 2 - 2 = 0 -> alpha1 = -2     (1 mistake)
    # epoch 3: f(x0) = 4 - 4 = 0 -> alpha0 = 2; f(x1) = 4 - 4 = 0 -> alpha1 = -3 (2)
    # epoch 4: f(x0) = 8 - 6 = 2, f(x1) = 4 - 6 = -2: converged
    E = np.array([[2, 1], [1, 1]], dtype=np.int32)
    y = np.array([1.0, -1.0])
    st = state(2, 1, False, np.int64)
    got = [run_conj(dual_backend, E, idx([0, 1]), y, st, False) for _ in range(4)]
    assert got == [2, 1, 2, 0]
    assert st["alpha"].tolist() == [2, -3] and st["b"].tolist() == [0]


@pytest.mark.parametrize("fi", [False, True])
def test_linear_gram_equals_primal_perceptron(dual_backend, rng, fi):
    lin = _module("python", "_linear")
    X = rng.integers(-3, 4, size=(40, 5)).astype(np.float64)
    y = signs(rng, 40)
    order = rng.permutation(40).astype(np.int64)
    G = X @ X.T
    w, b = np.zeros(5), np.zeros(1)
    st = state(40, 1, False)
    st["scores"] = np.zeros(40)
    st_rows = state(40, 1, False)
    for _ in range(3):
        m_primal = lin.perceptron_epoch_dense(X, y, order, w, b, fi, False)
        assert run_cached(dual_backend, G, y, order, st, fi) == m_primal
        assert run_rows(dual_backend, G[order], order, y, st_rows, fi) == m_primal
        assert np.array_equal(st["alpha"] @ X, w) and st["b"][0] == b[0]
        assert_states_equal({k: st[k] for k in st_rows}, st_rows)


@pytest.mark.parametrize("krow", [[1e16, 1.0, -1e16, 1.0, 0.0],
                                  [0.0, 0.0, 0.0, 1.0, 1e16, 1.0, -1e16]])
def test_rows_activation_follows_four_lane_contract(dual_backend, krow):
    # lanes j % 4, then (s0 + s1) + (s2 + s3): (1e16 + 1) + (-1e16 + 1) rounds to exactly 0
    # (one sum in index order, or ((s0 + s1) + s2) + s3, would give 1): a mistake on y = +1
    n = len(krow)
    Krows = np.array([krow])
    y = np.ones(n)
    st = state(n, 1, False)
    st["alpha"][:] = 1.0
    assert run_rows(dual_backend, Krows, idx([n - 1]), y, st, False) == 1
    stm = state((2, n), 2, False)
    stm["alpha"][1] = 1.0
    assert run_rows(dual_backend, Krows, idx([n - 1]), np.ones(n, dtype=np.int64), stm,
                    False) == 1  # class 1 scores 0 too: the tie goes to class 0


# ----------------------------------------------------------------------------- cached == rows
@pytest.mark.parametrize("fi,averaged", FLAGS)
@pytest.mark.parametrize("k", [0, 3])
def test_cached_equals_rows_on_integer_gram(dual_backend, rng, fi, averaged, k):
    n = 50
    X = rng.integers(-2, 3, size=(n, 4)).astype(np.float64)
    G = X @ X.T
    order = rng.integers(0, n, size=2 * n).astype(np.int64)
    y, shape, nb = labels_and_shape(rng, n, k)
    cached, rows = state(shape, nb, averaged), state(shape, nb, averaged)
    cached["scores"] = np.zeros(shape)
    for _ in range(3):
        m1 = run_cached(dual_backend, G, y, order, cached, fi)
        m2 = run_rows(dual_backend, np.ascontiguousarray(G[order]), order, y, rows, fi)
        assert m1 == m2
        assert_states_equal({key: cached[key] for key in rows}, rows)
        assert np.array_equal(cached["scores"], cached["alpha"] @ G)


# ----------------------------------------------------------------------------- C == Python
@pytest.mark.parametrize("fi,averaged", FLAGS)
@pytest.mark.parametrize("k", [0, 4])
def test_c_equals_python_float(dual_twins, rng, fi, averaged, k):
    C, P = dual_twins
    n = 37
    G = rbf_gram(rng, n)
    y, shape, nb = labels_and_shape(rng, n, k)
    st = state(shape, nb, averaged)
    st["alpha"][...] = rng.integers(-2, 3, size=shape)  # any state, not only reachable ones
    st["b"][...] = rng.normal(size=nb)
    if averaged:
        st["count"][0] = 7
    st["scores"] = rng.normal(size=shape)
    sc, sp = copy_state(st), copy_state(st)
    rc, rp = copy_state(st), copy_state(st)
    del rc["scores"], rp["scores"]
    for _ in range(3):
        order = rng.integers(0, n, size=n + 5).astype(np.int64)  # repeats and skips
        assert run_cached(C, G, y, order, sc, fi) == run_cached(P, G, y, order, sp, fi)
        assert_states_equal(sc, sp)
        Krows = np.ascontiguousarray(G[order] * rng.uniform(0.5, 1.5))
        assert run_rows(C, Krows, order, y, rc, fi) == run_rows(P, Krows, order, y, rp, fi)
        assert_states_equal(rc, rp)


@pytest.mark.parametrize("fi,averaged", FLAGS)
@pytest.mark.parametrize("k", [0, 3])
@pytest.mark.parametrize("d", [12, 1600])
def test_c_equals_python_conjunction_epochs(dual_twins, rng, fi, averaged, k, d):
    C, P = dual_twins
    n = 30
    X01 = bits01(rng, n, d, density=0.6 if d < 100 else 0.5)
    E = conj_exponents(X01, X01)
    y, shape, nb = labels_and_shape(rng, n, k)
    sc = state(shape, nb, averaged, np.int64)
    sp = copy_state(sc)
    for _ in range(4):
        rows = rng.integers(0, n, size=n).astype(np.int64)
        Erows = np.ascontiguousarray(E[rows])
        assert run_conj(C, Erows, rows, y, sc, fi) == run_conj(P, Erows, rows, y, sp, fi)
        assert_states_equal(sc, sp)
    Z = np.ascontiguousarray(E[:7])
    coef = sc["alpha"].reshape(-1, n)
    b = sc["b"]
    out_c, out_p = np.zeros((7, coef.shape[0])), np.zeros((7, coef.shape[0]))
    C.conjunction_decision(Z, coef, b, out_c)
    P.conjunction_decision(Z, coef, b, out_p)
    assert np.array_equal(out_c, out_p)
    am_c, am_p = np.zeros(7, dtype=np.int64), np.ones(7, dtype=np.int64)
    C.conjunction_argmax(Z, coef, b, am_c)
    P.conjunction_argmax(Z, coef, b, am_p)
    assert np.array_equal(am_c, am_p)


@pytest.mark.parametrize("fi,averaged", FLAGS)
@pytest.mark.parametrize("k", [0, 3])
@pytest.mark.parametrize("exact", [False, True])
def test_support_columns_and_weights_on_both_twins(dual_twins, rng, fi, averaged, k, exact):
    """Rows against the support set and the visited rows only (cols) = rows against the whole
    pool, bit for bit (float RBF-like values too: the lanes follow the pool indices); int16
    exponents = int32; weighted steps; C = Python throughout."""
    n = 45
    if exact:
        X01 = bits01(rng, n, 300, density=0.5)
        G = conj_exponents(X01, X01)
        w = rng.integers(-1, 4, n).astype(np.int64)
    else:
        G = rbf_gram(rng, n)
        w = rng.uniform(0.0, 2.0, n)
    y, shape, nb = labels_and_shape(rng, n, k)
    dtype = np.int64 if exact else np.float64
    finals = []
    for mod, use_cols, weights, narrow in [(m, c, ww, nn) for m in dual_twins
                                           for c in (False, True) for ww in (None, w)
                                           for nn in ((False, True) if exact else (False,))]:
        st = state(shape, nb, averaged, dtype)
        mistakes = []
        for epoch in range(3):
            order = np.random.default_rng(epoch).permutation(n).astype(np.int64)
            for start in range(0, n, 8):
                rows = order[start:start + 8]
                kw = {"sample_weight": weights}
                K = G[rows]
                if use_cols:
                    nz = (st["alpha"] != 0) if not k else (st["alpha"] != 0).any(0)
                    kw["cols"] = np.flatnonzero(nz | np.isin(np.arange(n), rows)).astype(
                        np.int64)
                    K = K[:, kw["cols"]]
                K = np.ascontiguousarray(K, dtype=np.int16 if narrow else K.dtype)
                args = (K, rows, y, st["alpha"], st["b"], fi, *avg_args(st))
                if exact:
                    fn = mod.multiclass_conjunction_epoch_rows if k else \
                        mod.conjunction_epoch_rows
                else:
                    fn = mod.multiclass_dual_epoch_rows if k else mod.dual_epoch_rows
                mistakes.append(fn(*args, **kw))
        finals.append((weights is None, mistakes, st))
    for unweighted in (True, False):
        group = [(m, st) for u, m, st in finals if u == unweighted]
        for m, st in group[1:]:
            assert m == group[0][0]
            assert_states_equal(st, group[0][1])


def test_cached_weighted_equals_rows_weighted(dual_backend, rng):
    # integer Gram and weights of 1/2, 1, 2: every float sum exact, so the cached scores and
    # the rows agree
    n = 30
    X = rng.integers(-2, 3, size=(n, 4)).astype(float)
    G, y = X @ X.T, signs(rng, n)
    w = rng.choice([0.5, 1.0, 2.0], n)
    order = np.random.default_rng(1).permutation(n).astype(np.int64)
    a1, b1, s1 = np.zeros(n), np.zeros(1), np.zeros(n)
    a2, b2 = np.zeros(n), np.zeros(1)
    for _ in range(3):
        m1 = dual_backend.dual_epoch_cached(G, y, order, a1, b1, s1, True, sample_weight=w)
        m2 = dual_backend.dual_epoch_rows(np.ascontiguousarray(G[order]), order, y, a2, b2,
                                          True, sample_weight=w)
        assert m1 == m2
    assert np.array_equal(a1, a2) and np.array_equal(b1, b2)
    assert set(np.abs(a1[a1 != 0] / w[a1 != 0]).tolist()) <= {1.0, 2.0, 3.0}


def test_weighted_conjunction_headroom(dual_backend):
    E = np.zeros((1, 2), dtype=np.int16)
    y = np.array([1.0, 1.0])
    alpha, b = np.zeros(2, np.int64), np.zeros(1, np.int64)
    with pytest.raises(OverflowError):  # 2 x 2^60 of room needed for one visited row
        dual_backend.conjunction_epoch_rows(E, idx([0]), y, alpha, b, True,
                                            sample_weight=np.array([2**60, 1], np.int64))
    assert dual_backend.conjunction_epoch_rows(E, idx([0]), y, alpha, b, True,
                                               sample_weight=np.array([2**59, 1],
                                                                      np.int64)) == 1
    assert alpha.tolist() == [2**59, 0] and b.tolist() == [2**59]


# ----------------------------------------------------------------------------- exact signs
def sign_by_epoch(mod, coefs, exps, bias):
    """Sign of sum coefs 2^exps + bias read from one epoch step: a positive example is a
    mistake iff the activation is <= 0, a negative one iff it is >= 0."""
    n = len(coefs)
    Erows = np.array([exps], dtype=np.int32)
    y_pos, y_neg = np.zeros(n), np.zeros(n)
    y_pos[0], y_neg[0] = 1.0, -1.0
    miss = []
    for yv in (y_pos, y_neg):
        alpha, b = np.array(coefs, dtype=np.int64), np.array([bias], dtype=np.int64)
        miss.append(mod.conjunction_epoch_rows(Erows, idx([0]), yv, alpha, b, False))
    return {(0, 1): 1, (1, 0): -1, (1, 1): 0}[tuple(miss)]


def sign_by_argmax(mod, coefs, exps, bias):
    # class 0 is the zero function: the argmax is 1 iff the activation is > 0;
    # with the classes swapped it is 1 iff the activation is < 0
    E = np.array([exps], dtype=np.int32)
    c = np.array(coefs, dtype=np.int64)
    z = np.zeros_like(c)
    out = np.zeros(1, dtype=np.int64)
    mod.conjunction_argmax(E, np.stack([z, c]), idx([0, bias]), out)
    pos = out[0]
    mod.conjunction_argmax(E, np.stack([c, z]), idx([bias, 0]), out)
    return 1 if pos == 1 else (-1 if out[0] == 1 else 0)


def decision(mod, coefs, exps, bias):
    out = np.zeros((1, 1))
    mod.conjunction_decision(np.array([exps], dtype=np.int32),
                             np.array([coefs], dtype=np.int64), idx([bias]), out)
    return out[0, 0]


def to_float(v):
    try:
        return float(v)
    except OverflowError:
        return DBL_MAX if v > 0 else -DBL_MAX


DEEP = [
    # 2^1500 - 2^1500 + 2^1420 - 4: a float sum scaled by 2^-1500 gives 0; exactly positive
    ([1, -1, 1], [1500, 1500, 1420], -4),
    ([1, -1, 1, -4], [1500, 1500, 1420, 0], 0),
    ([1, -1, -1], [1500, 1500, 1420], 4),
    ([1, -1], [1500, 1500], 0),
    ([2, -1], [4095, 4096], 0),                      # 2 * 2^4095 - 2^4096 = 0
    ([2, -1, 1], [4095, 4096, 0], -1),               # ... + 1 - 1 = 0
    ([2, -1, 1], [4095, 4096, 0], -2),               # -1
    ([1, -1], [4096, 0], 0),                         # 2^4096 - 1: positive, clipped value
    ([-1, 1, 1], [4096, 4095, 4095], 1),             # 1
    ([1] * 8 + [-1], [4093] * 8 + [4096], 0),        # 0
    ([1] * 8 + [-1], [4093] * 8 + [4096], -(2 ** 60)),
    ([3, -1, -1, -1], [2047, 2048, 2047, 0], 1),     # 0
    ([0], [3000], 0),
    ([0, 0], [3000, 7], -7),
]


@pytest.mark.parametrize("coefs,exps,bias", DEEP)
def test_exact_sign_deep_cancellation(dual_backend, coefs, exps, bias):
    want = exact(coefs, exps, bias)
    assert sign_by_epoch(dual_backend, coefs, exps, bias) == sign(want)
    assert sign_by_argmax(dual_backend, coefs, exps, bias) == sign(want)
    v = decision(dual_backend, coefs, exps, bias)
    assert np.isfinite(v) and sign(v) == sign(want) and v == to_float(want)


@pytest.mark.parametrize("coefs,bias", [([1, 1], 2**61 - 2), ([2**61], 0), ([1], -(2**63)),
                                        ([-(2**63), 1], 0)])
def test_exact_sums_refuse_coefficients_beyond_their_headroom(dual_backend, coefs, bias):
    """The C bucket sums hold |coefficients| + |bias| below 2^62; both twins refuse, with the
    same OverflowError, anything from 2^61 on (room for the difference of two classes)."""
    E = np.zeros((1, len(coefs)), dtype=np.int32)
    coef = np.array([coefs], dtype=np.int64)
    b = np.array([bias], dtype=np.int64)
    with pytest.raises(OverflowError, match="exact sums would reach 2"):
        dual_backend.conjunction_decision(E, coef, b, np.zeros((1, 1)))
    with pytest.raises(OverflowError, match="exact sums would reach 2"):
        dual_backend.conjunction_epoch_rows(E, np.zeros(1, np.int64), np.ones(len(coefs)),
                                            coef[0].copy(), b.copy(), True)


def cancelling_case(rng, top):
    """Random terms whose large parts cancel exactly (a 2^(e+1) against -2a 2^e, a 2^e
    against -a 2^e in another column), plus a small random remainder."""
    coefs, exps = [], []
    for _ in range(rng.integers(1, 12)):
        e = int(rng.integers(64, top))
        a = int(rng.integers(-50, 51))
        if rng.random() < 0.5:
            coefs += [a, -2 * a]
            exps += [e, e - 1]
        else:
            coefs += [a, -a]
            exps += [e, e]
    for _ in range(rng.integers(0, 4)):
        coefs.append(int(rng.integers(-3, 4)))
        exps.append(int(rng.integers(0, top)) if rng.random() < 0.3 else int(rng.integers(0, 70)))
    bias = int(rng.integers(-2 ** 40, 2 ** 40)) if rng.random() < 0.5 else 0
    perm = rng.permutation(len(coefs))
    return [coefs[p] for p in perm], [exps[p] for p in perm], bias


@pytest.mark.parametrize("top", [2048, 4096])
def test_exact_sign_random_cancellation(dual_twins, rng, top):
    C, P = dual_twins
    for _ in range(150):
        coefs, exps, bias = cancelling_case(rng, top)
        want = exact(coefs, exps, bias)
        for mod in (C, P):
            assert sign_by_epoch(mod, coefs, exps, bias) == sign(want)
            assert sign_by_argmax(mod, coefs, exps, bias) == sign(want)
        v = decision(C, coefs, exps, bias)
        assert np.isfinite(v) and sign(v) == sign(want)
        assert v == to_float(want) == decision(P, coefs, exps, bias)


def test_decision_clips_and_rounds(dual_backend, rng):
    cases = [([1], [1024], 0), ([-1], [2000], 0), ([1], [1023], 0), ([3], [1023], 0),
             ([1, -1], [1024, 971], 0),    # 2^1024 - 2^971 = DBL_MAX exactly
             ([1, -1], [1024, 970], 0),    # rounds up to 2^1024: clipped
             ([1, -1], [1024, 969], 0),    # rounds down to DBL_MAX
             ([1, 1], [60, 0], 0), ([1, 1], [53, 0], 0), ([1, 1, 1], [53, 1, 0], 0),
             ([1, 1], [54, 1], 0), ([1, 1, 1], [54, 1, 0], 0),  # ties and sticky bits
             ([-1, -1, -1], [54, 1, 0], 0), ([1, -1], [3000, 2900], 5),
             # a tie inside the 64-digit window broken by a digit below it (sticky bit)
             ([1, 1, 1], [200, 147, 100], 0), ([1, 1], [200, 147], 1),
             ([-1, -1], [200, 147], -1), ([1, 1, -1], [200, 147, 100], 0)]
    for coefs, exps, bias in cases:
        want = exact(coefs, exps, bias)
        v = decision(dual_backend, coefs, exps, bias)
        assert np.isfinite(v) and v == to_float(want), (coefs, exps, bias)
    for _ in range(200):
        m = int(rng.integers(1, 8))
        exps = rng.integers(0, int(rng.choice([8, 80, 1100, 2100])), m).tolist()
        coefs = rng.integers(-9, 10, m).tolist()
        bias = int(rng.integers(-2 ** 50, 2 ** 50))
        v = decision(dual_backend, coefs, exps, bias)
        w = to_float(exact(coefs, exps, bias))
        np.testing.assert_array_max_ulp(np.array([v]), np.array([w]), maxulp=1)
        assert v == w and sign(v) == sign(w)


def test_argmax_ties_go_to_lowest(dual_backend):
    # classes: 2 * 2^100, 2^101 (equal), 2^101 + 1, 2^101 + 1 (equal): argmax 2
    E = np.array([[100, 101, 0], [5, 5, 5]], dtype=np.int32)
    coef = np.array([[2, 0, 0], [0, 1, 0], [0, 1, 1], [0, 1, 1]], dtype=np.int64)
    b = idx([0, 0, 0, 0])
    out = np.full(2, -1, dtype=np.int64)
    dual_backend.conjunction_argmax(E, coef, b, out)
    # row 1: 2^6, 2^5, 2^6, 2^6: the first maximum is class 0
    assert out.tolist() == [2, 0]
    coef2 = np.array([[2, 0, 0], [0, 1, 0]], dtype=np.int64)
    dual_backend.conjunction_argmax(E[:1], coef2, idx([0, 0]), out[:1])
    assert out[0] == 0


def test_multiclass_float_ties_go_to_lowest(dual_backend):
    G = np.ones((1, 1))
    st = state((3, 1), 3, False)
    st["scores"] = np.zeros((3, 1))
    assert run_cached(dual_backend, G, idx([0]), idx([0]), st, True) == 0
    st2 = state((3, 1), 3, False)
    st2["scores"] = np.zeros((3, 1))
    assert run_cached(dual_backend, G, idx([2]), idx([0]), st2, True) == 1
    assert st2["alpha"][:, 0].tolist() == [-1.0, 0.0, 1.0] and st2["b"].tolist() == [-1, 0, 1]


# ----------------------------------------------------------------------------- bad input
def bad_calls(mod):
    i64, i32 = np.int64, np.int32
    G, y, o = np.eye(3), np.ones(3), idx([0, 1, 2])
    a, b, s = np.zeros(3), np.zeros(1), np.zeros(3)
    ym = idx([0, 1, 1])
    A, B, S = np.zeros((2, 3)), np.zeros(2), np.zeros((2, 3))
    E = np.ones((3, 3), dtype=i32)
    ai, bi = np.zeros(3, dtype=i64), np.zeros(1, dtype=i64)
    Ai, Bi = np.zeros((2, 3), dtype=i64), np.zeros(2, dtype=i64)
    return [
        lambda: mod.dual_epoch_cached(np.eye(4), y, o, a, b, s, True),
        lambda: mod.dual_epoch_cached(G, y, idx([0, 3]), a, b, s, True),
        lambda: mod.dual_epoch_cached(G, y, idx([-1]), a, b, s, True),
        lambda: mod.dual_epoch_cached(G, y, o, a, np.zeros(2), s, True),
        lambda: mod.dual_epoch_cached(G, y, o, a, b, s, True, np.zeros(2), np.zeros(1),
                                      np.ones(1, dtype=i64)),
        lambda: mod.dual_epoch_cached(G, y, o, a, b, s, True, np.zeros(3), np.zeros(1),
                                      np.zeros(1, dtype=i64)),  # count < 1
        lambda: mod.multiclass_dual_epoch_cached(G, idx([0, 2, 1]), o, A, B, S, True),
        lambda: mod.multiclass_dual_epoch_cached(G, ym, o, A, np.zeros(3), S, True),
        lambda: mod.multiclass_dual_epoch_cached(G, ym, o, A, B, S, True, np.zeros((3, 3)),
                                                 B.copy(), np.ones(1, dtype=i64)),
        lambda: mod.dual_epoch_rows(G[:2], o, y, a, b, True),
        lambda: mod.dual_epoch_rows(G, idx([0, 1, 5]), y, a, b, True),
        lambda: mod.dual_epoch_rows(np.zeros((3, 4)), o, y, a, b, True),
        lambda: mod.dual_epoch_rows(G, o, np.ones(2), a, b, True),
        lambda: mod.multiclass_dual_epoch_rows(G, o, idx([0, 1, -1]), A, B, True),
        lambda: mod.multiclass_dual_epoch_rows(G, idx([3, 0, 0]), ym, A, B, True),
        lambda: mod.conjunction_epoch_rows(E, idx([0, 1, 3]), y, ai, bi, True),
        lambda: mod.conjunction_epoch_rows(E[:1], o, y, ai, bi, True),
        lambda: mod.conjunction_epoch_rows(E, o, y, ai, bi, True, np.zeros(3, dtype=i64),
                                           np.zeros(1, dtype=i64), np.zeros(1, dtype=i64)),
        lambda: mod.multiclass_conjunction_epoch_rows(E, o, idx([0, 2, 0]), Ai, Bi, True),
        lambda: mod.multiclass_conjunction_epoch_rows(E, o, ym, Ai, np.zeros(1, dtype=i64),
                                                      True),
        lambda: mod.conjunction_decision(E, Ai, Bi, np.zeros((2, 2))),
        lambda: mod.conjunction_decision(E, Ai, Bi, np.zeros((3, 3))),
        lambda: mod.conjunction_decision(E, np.zeros((2, 4), dtype=i64), Bi, np.zeros((3, 2))),
        lambda: mod.conjunction_decision(E, Ai, np.zeros(3, dtype=i64), np.zeros((3, 2))),
        lambda: mod.conjunction_argmax(E, Ai, Bi, np.zeros(2, dtype=i64)),
        lambda: mod.conjunction_argmax(E, Ai, np.zeros(1, dtype=i64), np.zeros(3, dtype=i64)),
        # negative exponents (with nonzero coefficients: the Python twin shifts by them)
        lambda: mod.conjunction_decision(-E, Ai + 1, Bi, np.zeros((3, 2))),
        # exponents of another type
        lambda: mod.conjunction_decision(E.astype(i64), Ai, Bi, np.zeros((3, 2))),
        lambda: mod.conjunction_epoch_rows(E.astype(np.int8), o, y, ai, bi, True),
        # cols: the shape, the order, the visited rows and the nonzero coefficients
        lambda: mod.dual_epoch_rows(np.ascontiguousarray(G[:, :2]), o, y, a, b, True,
                                    cols=idx([0, 1, 2])),
        lambda: mod.dual_epoch_rows(G, o, y, a, b, True, cols=idx([0, 2, 1])),
        lambda: mod.dual_epoch_rows(G[:1, :2], idx([1]), y, a, b, True, cols=idx([0, 2])),
        lambda: mod.dual_epoch_rows(G[:1, :1], idx([1]), y, np.array([0.0, 1.0, 2.0]), b,
                                    True, cols=idx([1])),
        lambda: mod.multiclass_dual_epoch_rows(G[:1, :1], idx([1]), ym, A + 1, B, True,
                                               cols=idx([1])),
        lambda: mod.conjunction_epoch_rows(E[:1, :2], idx([1]), y, ai + 1, bi, True,
                                           cols=idx([1, 2])),
        lambda: mod.conjunction_epoch_rows(E[:1, :2], idx([1]), y, ai, bi, True,
                                           cols=idx([1, 3])),
        # weights: one finite float per pool example (int64 for the exact routines)
        lambda: mod.dual_epoch_cached(G, y, o, a, b, s, True, sample_weight=np.ones(2)),
        lambda: mod.dual_epoch_rows(G, o, y, a, b, True,
                                    sample_weight=np.array([1.0, np.nan, 1.0])),
        lambda: mod.multiclass_dual_epoch_cached(G, ym, o, A, B, S, True,
                                                 sample_weight=np.ones(4)),
        lambda: mod.conjunction_epoch_rows(E, o, y, ai, bi, True,
                                           sample_weight=np.ones(3)),
        lambda: mod.conjunction_epoch_rows(E, o, y, ai, bi, True,
                                           sample_weight=np.ones(2, dtype=i64)),
    ]


def test_bad_input_raises_value_error(dual_backend):
    calls = bad_calls(dual_backend)
    for t, call in enumerate(calls):
        with pytest.raises(ValueError):
            call()
            pytest.fail(f"call {t} did not raise")


def test_empty_order_changes_nothing(dual_backend):
    st = state(3, 1, True)
    st["scores"] = np.zeros(3)
    assert run_cached(dual_backend, np.eye(3), np.ones(3), idx([]), st, True) == 0
    assert run_rows(dual_backend, np.zeros((0, 3)), idx([]), np.ones(3), st, True) == 0
    assert st["count"].tolist() == [1] and not st["alpha"].any()
    sti = state(3, 1, True, np.int64)
    assert run_conj(dual_backend, np.zeros((0, 3), dtype=np.int32), idx([]), np.ones(3), sti,
                    True) == 0
    out = np.zeros((0, 2))
    dual_backend.conjunction_decision(np.zeros((0, 3), dtype=np.int32),
                                      np.zeros((2, 3), dtype=np.int64),
                                      np.zeros(2, dtype=np.int64), out)


def test_backend_switch_swaps_dual():
    from perceptron_c import _backend

    with _backend.using("python"):
        assert _backend.dual.__name__ == "perceptron_c._core._dual_py"
        assert _backend.conjunction.__name__ == "perceptron_c._core._conjunction_py"
    _module("c", "_dual")
    with _backend.using("c"):
        assert _backend.dual.__name__ == "perceptron_c._core._dual_c"
        assert _backend.conjunction.__name__ == "perceptron_c._core._conjunction_c"
