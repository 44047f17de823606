"""KernelPassiveAggressiveClassifier: the paper's steps (against independent numpy and exact
Fraction implementations written here), the linear PA, both twins bit for bit, the exact
conjunction kernel at thousands of bits, weights, files, partial_fit, bad input, Ctrl-C."""
import math
import pickle
import sys
from fractions import Fraction

import numpy as np
import pytest
from conftest import HAVE_C, _module, ctrl_c_latency

import perceptron_c
from perceptron_c import KernelPassiveAggressiveClassifier as KPA
from perceptron_c import PassiveAggressiveClassifier, _backend
from perceptron_c.kernels import RBF, Linear, Polynomial, pack_bits

try:
    import scipy.sparse as sp
except ImportError:  # the numpy-only job
    sp = None

BIG, TINY = 10**9, 1  # max_gram_bytes: cached Gram / kernel rows block by block
INF = float("inf")
VARIANTS = {"PA": dict(C=INF), "PA-I": dict(C=0.3), "PA-II": dict(C=0.3, loss="squared_hinge")}


def problem(rng, n=40, d=4, k=2):
    X = rng.normal(size=(n, d))
    W = rng.normal(size=(d, k))
    y = np.argmax(X @ W + rng.normal(scale=0.7, size=(n, k)), axis=1)
    return X, y


def full_coef(model, n):
    """The dual coefficients over the n training rows (support_ says where they go)."""
    out = np.zeros((model.dual_coef_.shape[0], n))
    out[:, model.support_] = model.dual_coef_
    return out


# ----------------------------------------------------------------- an independent reference

def numpy_pa(K, y, k, C, squared, fi, epochs, w=None):
    """Crammer et al. 2006, Fig. 1 in the dual (two classes) and the multiclass update with
    the highest-scoring wrong label, written from the paper with numpy; returns (alpha, b,
    averaged alpha, averaged b, steps per epoch)."""
    n, R = K.shape[0], 1 if k == 2 else k
    alpha, b = np.zeros((R, n)), np.zeros(R)
    sum_a, sum_b, count = alpha.copy(), b.copy(), 1  # the average includes the start
    history = []
    for _ in range(epochs):
        steps = 0
        for i in range(n):
            f = alpha @ K[:, i] + b
            if R == 1:
                s, r = (1.0 if y[i] == 1 else -1.0), -1
                z = s * f[0]
            else:
                others = f.copy()
                others[y[i]] = -np.inf
                r = int(np.argmax(others))
                z = f[y[i]] - f[r]
            loss = max(0.0, 1.0 - z)
            if loss > 0:
                q = (K[i, i] + fi) * (1 if R == 1 else 2)  # ||update direction||^2
                tau = loss / (q + 1 / (2 * C)) if squared else min(C, loss / q)
                step = tau * (1.0 if w is None else w[i])
                if R == 1:
                    alpha[0, i] += s * step
                    b[0] += s * step * fi
                else:
                    alpha[[y[i], r], i] += [step, -step]
                    b[[y[i], r]] += [step * fi, -step * fi]
                steps += 1
            sum_a += alpha
            sum_b += b
            count += 1
        history.append(steps)
        if steps == 0:
            break
    return alpha, b, sum_a / count, sum_b / count, history


def gram(kernel, X):
    if kernel == "linear":
        return X @ X.T
    if kernel == "poly":  # degree 3, gamma 1, coef0 1: the package's defaults
        return (X @ X.T + 1.0) ** 3
    sq = (X ** 2).sum(1)
    return np.exp(-(sq[:, None] + sq[None, :] - 2 * X @ X.T) / X.shape[1])  # rbf, 1/d


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("mgb", [BIG, TINY])
def test_steps_are_the_papers(model_backend, rng, kernel, variant, k, fit_intercept, mgb):
    X, y = problem(rng, 30, 3, k)
    X = X / 2 if kernel == "poly" else X
    w = rng.uniform(0.5, 2.0, 30)
    params = VARIANTS[variant]
    kw = dict(kernel=kernel, shuffle=False, tol=None, max_iter=4, fit_intercept=fit_intercept,
              max_gram_bytes=mgb, **params)
    m = KPA(**kw).fit(X, y, sample_weight=w)
    avg = KPA(average=True, **kw).fit(X, y, sample_weight=w)
    a, b, ua, ub, steps = numpy_pa(gram(kernel, X), y, k, params["C"],
                                   params.get("loss") == "squared_hinge", fit_intercept, 4, w)
    assert m.mistakes_.tolist() == steps
    np.testing.assert_allclose(full_coef(m, 30), a, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m.intercept_, b, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(full_coef(avg, 30), ua, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(avg.intercept_, ub, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_linear_kernel_is_the_linear_pa(model_backend, rng, variant):
    X, y = problem(rng, 60, 5, 2)
    X[7] = 0.0  # a zero row: no step (PA and PA-I skip it, a PA-II step would not move w)
    params = VARIANTS[variant]
    kw = dict(shuffle=False, tol=None, max_iter=6, **params)
    lin = PassiveAggressiveClassifier(fit_intercept=False, **kw).fit(X, y)
    kpa = KPA(kernel="linear", fit_intercept=False, **kw).fit(X, y)
    w = kpa.dual_coef_ @ kpa.support_vectors_  # w = sum_i alpha_i x_i
    np.testing.assert_allclose(w, lin.coef_, rtol=1e-10, atol=1e-12)
    assert np.array_equal(kpa.predict(X), lin.predict(X))
    # the intercept is the coefficient of a constant feature: the kernel is K + 1
    Xa = np.hstack([X, np.ones((60, 1))])
    lin1 = PassiveAggressiveClassifier(fit_intercept=False, **kw).fit(Xa, y)
    kpa1 = KPA(kernel="linear", **kw).fit(X, y)
    np.testing.assert_allclose(kpa1.dual_coef_ @ kpa1.support_vectors_, lin1.coef_[:, :-1],
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(kpa1.intercept_, lin1.coef_[:, -1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(kpa1.intercept_, kpa1.dual_coef_.sum(axis=1), rtol=1e-12)


# ------------------------------------------------------------------------------ the twins

def _same_model(a, b, X):
    for attr in ("dual_coef_", "intercept_", "mistakes_", "support_"):
        assert np.array_equal(getattr(a, attr), getattr(b, attr)), attr
    assert np.array_equal(a.decision_function(X), b.decision_function(X))


def _twins(params, X, y, Xq, **fit):
    with _backend.using("python"):
        py = KPA(**params).fit(X, y, **fit)
    c = KPA(**params).fit(X, y, **fit)
    _same_model(c, py, Xq)
    return c


KERNELS = ["linear", "rbf", Polynomial(2, 0.5, 1.0), Linear() + 0.5 * RBF(0.3),
           Linear() * RBF(0.5), lambda A, B: np.tanh(A @ B.T) + 1.0]


@pytest.mark.skipif(not HAVE_C, reason="compares the C twin with the Python twin")
@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("k", [2, 3])
def test_twins_agree_bit_for_bit(rng, kernel, variant, k):
    X, y = problem(rng, 36, 3, k)
    w = rng.uniform(0.2, 3.0, 36)
    for mgb, avg in ((BIG, False), (TINY, True)):
        _twins(dict(kernel=kernel, max_iter=3, tol=None, random_state=1, average=avg,
                    max_gram_bytes=mgb, class_weight={0: 2.0}, **VARIANTS[variant]),
               X, y, X[:9], sample_weight=w)


@pytest.mark.skipif(not HAVE_C, reason="compares the C twin with the Python twin")
@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("n_bits", [40, 2048])
def test_twins_agree_on_the_conjunction_kernel(rng, variant, k, n_bits):
    B = (rng.random((30, n_bits)) < 0.75).astype(np.uint8)
    y = rng.integers(0, k, 30)
    for fi, avg in ((True, False), (False, True)):
        c = _twins(dict(kernel="conjunction", max_iter=3, tol=None, random_state=2,
                        average=avg, fit_intercept=fi, **VARIANTS[variant]),
                   pack_bits(B), y, B[:8], sample_weight=rng.uniform(0.5, 2.0, 30))
        assert c.n_support_ > 0


@pytest.mark.skipif(not HAVE_C, reason="compares the C twin with the Python twin")
def test_twins_agree_on_precomputed_sparse_and_early_stopping(rng):
    X, y = problem(rng, 40, 4, 3)
    G = X @ X.T
    _twins(dict(kernel="precomputed", max_iter=4, tol=None, random_state=0), G, y, G[:5])
    if sp is not None:
        Xs = sp.csr_matrix(np.where(np.abs(X) > 0.8, X, 0.0))
        c = _twins(dict(kernel="rbf", max_iter=4, tol=None, random_state=0), Xs, y, Xs[:5])
        d = KPA(kernel="rbf", max_iter=4, tol=None, random_state=0).fit(Xs.toarray(), y)
        _same_model(c, d, Xs.toarray()[:5])
    _twins(dict(kernel="poly", degree=2, early_stopping=True, random_state=3), X, y, X[:5])


def _routine_inputs(rng, n, R, weighted):
    X = rng.normal(size=(n, 4))
    G = np.ascontiguousarray((X @ X.T + 1.0) ** 2)
    y = rng.integers(0, 2 if R == 1 else R, n).astype(np.int64)
    order = rng.integers(0, n, 3 * n).astype(np.int64)
    return G, y, order, (rng.uniform(0.5, 2.0, n) if weighted else None)


@pytest.mark.skipif(not HAVE_C, reason="compares the C twin with the Python twin")
@pytest.mark.parametrize("R", [1, 3])
@pytest.mark.parametrize("squared", [False, True])
@pytest.mark.parametrize("fi", [False, True])
def test_routine_twins_cached_and_rows(rng, R, squared, fi):
    G, y, order, w = _routine_inputs(rng, 30, R, weighted=True)
    out = {}
    for name in ("c", "python"):
        kpa = _module(name, "_kpa")
        st = [np.zeros((R, 30)), np.zeros(R), np.zeros((R, 30)), np.zeros((R, 30)),
              np.zeros(R), np.ones(1, np.int64), np.zeros(1)]
        a, b, sc, u, beta, count, loss = st
        s1 = kpa.kpa_epoch_cached(G, y, order, w, a, b, sc, 0.7, squared, fi, u, beta, count,
                                  loss)
        Kr = np.ascontiguousarray(G[order])
        s2 = kpa.kpa_epoch_rows(Kr, order, y, w, a, b, 0.7, squared, fi, u, beta, count, loss)
        out[name] = [s1, s2] + [x.copy() for x in st]
    for x1, x2 in zip(out["c"], out["python"]):
        assert np.array_equal(x1, x2)


# ------------------------------------------------------- the conjunction kernel, exactly

def exact_f(a, B_train, x, fi):
    """f_k(x) as Fractions: sum_j alpha_kj (2^popcount(x AND x_j) + [fi]), alpha_kj =
    a_kj 2^-popcount(x_j), the model's scaled coefficients a."""
    d = B_train.sum(axis=1).astype(int)
    E = (B_train.astype(int) @ x.astype(int)).astype(int)
    return [sum((Fraction(v) * Fraction(2) ** int(-dj) * (Fraction(2) ** int(e) + fi)
                 for v, e, dj in zip(row, E, d) if v), Fraction(0)) for row in a]


def _ldexp(x, e):
    try:
        return math.ldexp(x, e)
    except OverflowError:
        return math.inf


def fraction_pa(B, y, k, C, squared, fi, epochs):
    """The spec's steps with Fraction activations (an implementation independent of the
    twins' integer and fixed-point sums); returns the scaled coefficients a."""
    n, R = B.shape[0], 1 if k == 2 else k
    a = [[0.0] * n for _ in range(R)]
    d = B.sum(axis=1).astype(int)
    for _ in range(epochs):
        for i in range(n):
            f = exact_f(a, B, B[i], fi)
            if R == 1:
                s, r = (1.0 if y[i] == 1 else -1.0), -1
                z = f[0] * int(s)
            else:
                r = max((j for j in range(R) if j != y[i]), key=lambda j: (f[j], -j))
                z = f[y[i]] - f[r]
            if z >= 1:
                continue
            lt = float(1 - z)
            q = (1.0 + math.ldexp(1.0, -int(d[i]))) if fi else 1.0
            q = q if R == 1 else 2.0 * q
            if squared:
                tau = lt / (q + math.ldexp(0.5 / C, -int(d[i])))
            else:
                t = lt / q
                cap = _ldexp(C, int(d[i]))
                tau = t if t < cap else cap
            if R == 1:
                a[0][i] += tau * s
            else:
                a[y[i]][i] += tau
                a[r][i] -= tau
    return np.array(a)


@pytest.mark.parametrize("variant", ["PA", "PA-II"])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("fi", [False, True])
def test_conjunction_steps_are_exact_at_2048_bits(model_backend, rng, variant, k, fi):
    """Rows with ~1500 ones: K(x, x) = 2^1500 is beyond float64, and so is tau ~ 2^-1500
    (below its smallest subnormal). Float64 kernel values would overflow (inf, NaN) and
    float64 coefficients underflow to 0: this model trains on exact sums instead, and every
    coefficient equals the Fraction implementation's, bit for bit."""
    B = (rng.random((14, 2048)) < 0.73).astype(np.uint8)
    y = rng.integers(0, k, 14)
    params = VARIANTS[variant]
    m = KPA(kernel="conjunction", shuffle=False, tol=None, max_iter=3, fit_intercept=fi,
            **params).fit(B, y)
    ref = fraction_pa(B, y, k, params["C"], variant == "PA-II", fi, 3)
    got = np.zeros_like(ref)
    got[:, m.support_] = m._alpha  # the scaled coefficients the model keeps
    assert np.array_equal(got, ref)
    assert np.all(m.dual_coef_ == 0.0)  # alpha = a 2^-1500: below float64, kept exactly
    # predictions are the exact signs / argmaxes, decision values the nearest float64
    Q = (rng.random((10, 2048)) < 0.73).astype(np.uint8)
    exact = np.array([exact_f(got, B, x, fi) for x in Q], dtype=object)
    expect = (exact[:, 0] > 0).astype(int) if k == 2 else \
        np.array([max(range(k), key=lambda j: (row[j], -j)) for row in exact])
    assert np.array_equal(m.predict(Q), m.classes_[expect])
    nearest = np.array([[float(v) for v in row] for row in exact])
    assert np.array_equal(m.decision_function(Q), nearest[:, 0] if k == 2 else nearest)
    with np.errstate(over="ignore", invalid="ignore"):  # what float64 would have done
        naive = np.ldexp(m.dual_coef_, 0) @ np.ldexp(1.0, (Q @ B[m.support_].T).T)
    assert not np.array_equal(naive, nearest.T)


def test_conjunction_cancellation_keeps_its_sign(model_backend):
    """f = 2^1500 2^-1500 + 2^-60 - 2^1500 2^-1500: float64 loses the small term (1 + 2^-60
    is 1), and unscaled it cannot even hold the terms (2^1500 overflows, 2^-1500 underflows);
    the exact sum keeps it, and its sign."""
    kpa = _backend.kpa
    ediag = np.array([1500, 1000, 1500], np.int32)
    coef = np.array([[1.0, 2.0 ** 940, -1.0]])  # alpha_2 = 2^940 2^-1000 = 2^-60
    E = np.array([[1500, 0, 1500]], np.int32)  # x shares all ones of rows 1 and 3, none of 2
    out, lab = np.zeros((1, 1)), np.zeros(1, np.int64)
    for fi, want in ((False, 2.0 ** -60), (True, 2.0 ** -59)):  # fi: + sum(alpha) = 2^-60
        kpa.kpa_conjunction_decision(E, ediag, coef, fi, out)
        kpa.kpa_conjunction_predict(E, ediag, coef, fi, lab)
        assert out[0, 0] == want and lab[0] == 1
        naive = 0.0
        for c, e, d in zip(coef[0], E[0], ediag):
            naive += c * (math.ldexp(1.0, int(e - d)) + fi * math.ldexp(1.0, -int(d)))
        assert naive == 0.0  # float64: the wrong class
    with np.errstate(over="ignore", invalid="ignore"):
        unscaled = np.ldexp(coef[0], -ediag) @ np.ldexp(1.0, E[0])
    assert not np.isfinite(unscaled)
    kpa.kpa_conjunction_predict(E, ediag, -coef, True, lab)
    assert lab[0] == 0


@pytest.mark.parametrize("seed", range(4))
def test_exact_sums_are_correctly_rounded(model_backend, seed):
    """The nearest float64 of sums of float64 times powers of two (subnormals, the largest
    finite values, cancellations), against Fractions; beyond float64: the largest finite."""
    rng = np.random.default_rng(seed)
    kpa = _backend.kpa
    for _ in range(60):
        n, R = int(rng.integers(1, 7)), int(rng.integers(1, 4))
        ediag = rng.integers(0, int(rng.choice([3, 80, 1200, 3000])) + 1, n).astype(np.int32)
        E = np.minimum((rng.random((3, n)) * (ediag + 1)).astype(np.int32), ediag)
        coef = np.ldexp(rng.choice([-1.0, 1.0], (R, n)) * rng.uniform(1, 2, (R, n)),
                        rng.integers(-1074, 1024, (R, n)))
        coef[rng.random((R, n)) < 0.2] = 5e-324
        for fi in (False, True):
            out = np.zeros((3, R))
            kpa.kpa_conjunction_decision(np.ascontiguousarray(E), ediag, coef, fi, out)
            for t in range(3):
                for r in range(R):
                    v = sum((Fraction(c) * Fraction(2) ** int(e - dd) +
                             (Fraction(c) * Fraction(2) ** int(-dd) if fi else 0)
                             for c, e, dd in zip(coef[r], E[t], ediag)), Fraction(0))
                    big = abs(v) >= 2 ** 1024 - 2 ** 970
                    want = math.copysign(1.7976931348623157e308, v) if big else float(v)
                    assert out[t, r] == want


def test_overflow_is_an_error_naming_the_epoch_and_rolls_back(model_backend, rng):
    B = (rng.random((20, 100)) < 0.5).astype(np.uint8)
    y = rng.integers(0, 2, 20)
    m = KPA(kernel="conjunction", C=INF, shuffle=False, tol=None, max_iter=1).fit(B, y)
    before = (m._alpha.copy(), m.decision_function(B), m.mistakes_.copy(), m.support_.copy())
    with pytest.raises(ValueError, match="overflow in epoch 2"):
        m.partial_fit(B, y, sample_weight=np.full(20, 1e308))  # steps of 1e308: a = inf
    assert np.array_equal(m._alpha, before[0]) and np.array_equal(m.mistakes_, before[2])
    assert np.array_equal(m.decision_function(B), before[1])
    assert np.array_equal(m.support_, before[3])  # the model before the call, whole
    X, yy = problem(rng, 30, 3, 2)
    f = KPA(kernel="linear", C=INF, tol=None, max_iter=5)
    with pytest.raises(ValueError, match="overflow in epoch 1"):
        f.fit(X, yy, sample_weight=np.full(30, 1e300))  # steps of 1e300 loss
    assert not hasattr(f, "n_iter_")  # no epoch finished: as unfitted as before the call
    with pytest.raises(perceptron_c.NotFittedError):
        f.predict(X)


# ------------------------------------------------------------------------------- weights

@pytest.mark.parametrize("kernel", ["poly", "precomputed", "conjunction"])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("average", [False, True])
def test_zero_weight_is_a_removed_row(model_backend, rng, kernel, k, average):
    X, y = problem(rng, 40, 6, k)
    X = np.round(X)  # small integers: the same kernel values in any Gram (exact sums)
    if kernel == "conjunction":
        X = (X > 0).astype(np.uint8)
    sw = rng.uniform(0.5, 2.0, 40)
    sw[rng.random(40) < 0.3] = 0.0
    keep = sw > 0
    kw = dict(kernel=kernel, shuffle=False, tol=None, max_iter=4, average=average)
    if kernel == "poly":
        kw.update(degree=2)
    G = X @ X.T
    a = KPA(**kw).fit(G if kernel == "precomputed" else X, y, sample_weight=sw)
    b = KPA(**kw).fit(G[keep][:, keep] if kernel == "precomputed" else X[keep], y[keep],
                      sample_weight=sw[keep])
    assert np.array_equal(a.dual_coef_, b.dual_coef_) and np.array_equal(a.mistakes_,
                                                                         b.mistakes_)
    assert np.array_equal(np.flatnonzero(keep)[b.support_], a.support_)
    if kernel != "precomputed":
        assert np.array_equal(a.decision_function(X), b.decision_function(X))


@pytest.mark.parametrize("k", [2, 3])
def test_class_weight_is_a_per_class_sample_weight(model_backend, rng, k):
    X, y = problem(rng, 40, 3, k)
    cw = {0: 2.5, 1: 0.5}
    kw = dict(kernel="poly", degree=2, random_state=4, tol=None, max_iter=3)
    a = KPA(class_weight=cw, **kw).fit(X, y)
    b = KPA(**kw).fit(X, y, sample_weight=np.array([cw.get(v, 1.0) for v in y]))
    assert np.array_equal(a.dual_coef_, b.dual_coef_)
    c = KPA(**kw).fit(X, y)  # and the weights do something
    assert not np.array_equal(a.dual_coef_, c.dual_coef_)
    bal = KPA(class_weight="balanced", **kw).fit(X, y)
    counts = np.bincount(y)
    d = KPA(**kw).fit(X, y, sample_weight=(len(y) / (k * counts))[y])
    assert np.array_equal(bal.dual_coef_, d.dual_coef_)


# ------------------------------------------------------------- files, streams, labels

@pytest.mark.parametrize("params", [dict(kernel="rbf", average=True),
                                    dict(kernel=Linear() + RBF(0.5), loss="squared_hinge"),
                                    dict(kernel="conjunction", C=INF),
                                    dict(kernel="conjunction", average=True, fit_intercept=False),
                                    dict(kernel="precomputed")])
@pytest.mark.parametrize("k", [2, 3])
def test_save_load_and_pickle(tmp_path, rng, params, k):
    X, y = problem(rng, 30, 4, k)
    if params["kernel"] == "conjunction":
        X = (rng.random((30, 1500)) < 0.8).astype(np.uint8)
    elif params["kernel"] == "precomputed":
        X = X @ X.T
    m = KPA(random_state=0, tol=None, max_iter=3, **params).fit(X, y)
    path = m.save(tmp_path / "m")
    for back in (perceptron_c.load(path), pickle.loads(pickle.dumps(m))):
        assert np.array_equal(back.decision_function(X), m.decision_function(X))
        assert np.array_equal(back.predict(X), m.predict(X))
        assert back.get_params() == m.get_params()
        assert np.array_equal(back.intercept_, m.intercept_)
    if params["kernel"] != "precomputed":  # training resumes exactly where it stopped
        back = perceptron_c.load(path)
        m.partial_fit(X[:10], y[:10])
        back.partial_fit(X[:10], y[:10])
        assert np.array_equal(back.dual_coef_, m.dual_coef_)


def test_callable_kernel_cannot_be_saved(tmp_path, rng):
    X, y = problem(rng, 20, 3, 2)
    m = KPA(kernel=lambda A, B: A @ B.T, tol=None, max_iter=2).fit(X, y)
    with pytest.raises(TypeError, match="cannot be stored"):
        m.save(tmp_path / "m")


@pytest.mark.parametrize("k", [2, 3])
def test_partial_fit_continues_the_function(model_backend, rng, k):
    X, y = problem(rng, 40, 3, k)
    full = KPA(kernel="rbf", random_state=2, tol=None, max_iter=3).fit(X, y)
    part = KPA(kernel="rbf", random_state=2)
    for _ in range(3):
        part.partial_fit(X, y, classes=np.unique(y))
    # the pool grows by a copy of X per call: the same steps, summed in another order
    assert full.mistakes_.tolist() == part.mistakes_.tolist()
    np.testing.assert_allclose(part.decision_function(X), full.decision_function(X),
                               rtol=1e-9, atol=1e-9)
    assert part.n_iter_ == 3 and np.all(part.support_ >= -1)
    with pytest.raises(ValueError, match="classes must not change"):
        part.partial_fit(X, y, classes=np.arange(k + 1))
    with pytest.raises(ValueError, match="classes must be passed"):
        KPA().partial_fit(X, y)


def test_warm_start_continues(model_backend, rng):
    X, y = problem(rng, 30, 3, 2)
    a = KPA(kernel="linear", shuffle=False, tol=None, max_iter=2, warm_start=True).fit(X, y)
    a.fit(X, y)
    b = KPA(kernel="linear", shuffle=False, tol=None, max_iter=4).fit(X, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-9,
                               atol=1e-12)
    a.set_params(kernel="rbf")
    with pytest.raises(ValueError, match="trained with"):
        a.fit(X, y)


@pytest.mark.parametrize("labels", [np.array(["spam", "ham", "eggs"]),
                                    np.array([True, False]), np.array([-7, 12]),
                                    np.array([10**30, 3, -1], dtype=object)])
def test_labels_of_any_type(rng, labels):
    X, y = problem(rng, 45, 3, len(labels))
    yl = labels[y]
    m = KPA(kernel="rbf", random_state=0).fit(X, yl)
    assert set(m.classes_.tolist()) == set(labels.tolist())
    assert np.isin(m.predict(X), labels).all() and m.score(X, yl) > 0.6
    d = m.decision_function(X)
    assert d.shape == ((45,) if len(labels) == 2 else (45, len(labels)))


def test_stopping_rules_and_attributes(rng, capsys):
    X, y = problem(rng, 60, 4, 2)
    sk = KPA(kernel="rbf", random_state=0).fit(X, y)  # tol=1e-3: scikit-learn's rule
    assert 1 <= sk.n_iter_ < 100 and sk.mistakes_.shape == (sk.n_iter_,)
    with pytest.warns(perceptron_c.ConvergenceWarning):
        KPA(kernel="rbf", random_state=0, max_iter=2).fit(X, y)
    sep = np.array([[0.0, 1.0], [0.0, -1.0], [1.0, 3.0], [-1.0, -3.0]])
    tb = KPA(kernel="linear", C=INF, tol=None, max_iter=50).fit(sep, [1, 0, 1, 0])
    assert tb.converged_ and tb.mistakes_[-1] == 0 and tb.n_iter_ < 50  # a zero-loss epoch
    assert np.all(tb.decision_function(sep) * [1, -1, 1, -1] >= 1 - 1e-12)  # every margin
    es = KPA(kernel="rbf", early_stopping=True, tol=None, random_state=0, verbose=1).fit(X, y)
    assert "validation score" in capsys.readouterr().err and es.n_iter_ >= 1
    assert sk.support_vectors_.shape == (sk.n_support_, 4) and sk.dual_coef_.shape[0] == 1


# -------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("params, match", [
    (dict(C=0.0), "C must be"), (dict(C=float("nan")), "C must be"), (dict(C="1"), "C must be"),
    (dict(loss="log"), "loss"), (dict(tol=-1.0), "tol must be"), (dict(average=2), "average"),
    (dict(max_gram_bytes=0), "max_gram_bytes"), (dict(kernel="sigmoid"), "kernel must be"),
    (dict(kernel="linear", gamma=1.0), "takes no gamma"), (dict(max_iter=0), "max_iter"),
    (dict(class_weight="heavy"), "class_weight"),
    (dict(kernel="precomputed", early_stopping=True), "precomputed"),
])
def test_bad_parameters_are_named(rng, params, match):
    X, y = problem(rng, 20, 3, 2)
    with pytest.raises(ValueError, match=match):
        KPA(**params).fit(X @ X.T if params.get("kernel") == "precomputed" else X, y)


def test_bad_input_is_named(rng):
    X, y = problem(rng, 20, 3, 2)
    with pytest.raises(ValueError, match="0/1"):
        KPA(kernel="conjunction").fit(X, y)
    m = KPA(kernel="rbf", tol=None, max_iter=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :2])
    with pytest.raises(ValueError, match="sample_weight"):
        KPA().fit(X, y, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="balanced"):
        KPA(class_weight="balanced").partial_fit(X, y, classes=[0, 1])
    with pytest.raises(perceptron_c.NotFittedError):
        KPA().decision_function(X)
    assert not hasattr(KPA(kernel="precomputed"), "partial_fit")


@pytest.mark.parametrize("twin", ["c", "python"])
def test_routines_check_their_arguments(twin):
    kpa = _module(twin, "_kpa")
    G, y = np.eye(3), np.array([0, 1, 1], np.int64)
    a, b, sc = np.zeros((1, 3)), np.zeros(1), np.zeros((1, 3))
    with pytest.raises(ValueError, match="order must lie"):
        kpa.kpa_epoch_cached(G, y, np.array([3], np.int64), None, a, b, sc, 1.0, False, True)
    with pytest.raises(ValueError, match="C must be"):
        kpa.kpa_epoch_cached(G, y, np.array([0], np.int64), None, a, b, sc, 0.0, False, True)
    E, d = np.array([[2, 0, 1]], np.int32), np.array([1, 0, 1], np.int32)
    with pytest.raises(ValueError, match="exponents E must lie"):
        kpa.kpa_conjunction_predict(E, d, a, True, np.zeros(1, np.int64))
    with pytest.raises(ValueError, match="finite"):
        kpa.kpa_conjunction_decision(E * 0, d, a + np.inf, True, np.zeros((1, 1)))
    with pytest.raises(ValueError, match=r"Erows\[t, rows\[t\]\]"):
        kpa.kpa_conjunction_epoch_rows(E * 0, np.array([0], np.int64), d, y, None, a, 1.0,
                                       False, True)


# ------------------------------------------------------------------------------- Ctrl-C

def test_an_interrupted_epoch_leaves_no_trace(monkeypatch, rng):
    X, y = problem(rng, 50, 3, 3)
    ref = KPA(kernel="rbf", random_state=1, tol=None, max_iter=1).fit(X, y)
    model = KPA(kernel="rbf", random_state=1, tol=None, max_iter=20)
    original, calls = _backend.kpa.kpa_epoch_cached, []

    def interrupted(*args, **kwargs):
        result = original(*args, **kwargs)  # runs for real, then Ctrl-C
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return result

    monkeypatch.setattr(_backend.kpa, "kpa_epoch_cached", interrupted)
    with pytest.raises(KeyboardInterrupt):
        model.fit(X, y)
    assert model.n_iter_ == 1
    assert np.array_equal(model.dual_coef_, ref.dual_coef_)
    assert np.array_equal(model.support_, ref.support_)


LONG_CALL = """
    from perceptron_c._core import _kpa_c
    n = 3000
    G = rng.normal(size=(n, n))
    G[np.arange(n), np.arange(n)] = n
    y = rng.integers(0, 2, n)
    order = rng.integers(0, n, 5_000_000)  # a step on every visit, 2n each: tens of seconds
    a, b, s = np.zeros((1, n)), np.zeros(1), np.zeros((1, n))
    delay = 0.3
    call = lambda: _kpa_c.kpa_epoch_cached(G, y, order, None, a, b, s, 1e-9, False, True)
"""

@pytest.mark.skipif(not HAVE_C, reason="the Python twins look for signals between bytecodes")
@pytest.mark.skipif(sys.platform == "win32", reason="os.kill(SIGINT) is not Ctrl-C there")
def test_a_long_c_epoch_is_interrupted_mid_way():
    assert ctrl_c_latency(LONG_CALL, timeout=120) < 5.0
