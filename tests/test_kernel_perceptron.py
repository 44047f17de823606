"""KernelPerceptron: equal to the primal perceptron where it must be, exact with the
conjunction kernel at any bit count, both modes, both twins, persistence, bad input."""
import itertools
import pickle

import numpy as np
import pytest

import perceptron_c
from perceptron_c import KernelPerceptron, Perceptron
from perceptron_c.kernels import RBF, Linear, Polynomial, pack_bits

try:
    import scipy.sparse as sp
except ImportError:
    sp = None

BIG, TINY = 10**9, 1  # max_gram_bytes: cached scores / streaming rows, one at a time


def int_problem(rng, n=80, d=5, k=2):
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    W = rng.normal(size=(d, k))
    y = np.argmax(X @ W + rng.normal(scale=0.5, size=(n, k)), axis=1) if k > 2 else \
        (X @ W[:, 0] + rng.normal(scale=0.5, size=n) > 0).astype(int)
    return X, y


def dnf_problem(rng, n, n_bits, terms=((0, 3), (5, 7, 9), (2, 11)), density=0.5):
    B = (rng.random((n, n_bits)) < density).astype(np.uint8)
    y = np.zeros(n, dtype=int)
    for t in terms:
        y |= np.all(B[:, list(t)] == 1, axis=1)
    return B, y


@pytest.mark.parametrize("k", [2, 4])
@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("mgb", [BIG, TINY])
def test_linear_kernel_is_the_primal_perceptron(model_backend, rng, k, average, fit_intercept,
                                                mgb):
    X, y = int_problem(rng, 70, 5, k)
    p = Perceptron(random_state=3, max_iter=15, average=average,
                   fit_intercept=fit_intercept).fit(X, y)
    kp = KernelPerceptron(kernel="linear", random_state=3, max_iter=15, average=average,
                          fit_intercept=fit_intercept, max_gram_bytes=mgb).fit(X, y)
    assert p.mistakes_.tolist() == kp.mistakes_.tolist()
    if not average:  # integer data: every sum is exact, so the values are equal
        assert np.array_equal(p.decision_function(X), kp.decision_function(X))
        assert np.array_equal(kp.dual_coef_ @ kp.support_vectors_, p.coef_)
    else:
        np.testing.assert_allclose(kp.decision_function(X), p.decision_function(X),
                                   rtol=1e-9, atol=1e-9)
    assert np.array_equal(p.predict(X), kp.predict(X))


def quadratic_features(X):
    """Explicit map of (1 + x.y)^2 (Ohio slides): 1, sqrt2 x_i, x_i^2, sqrt2 x_i x_j (i<j)."""
    cols = [np.ones(len(X))] + [np.sqrt(2) * X[:, i] for i in range(X.shape[1])]
    cols += [X[:, i] ** 2 for i in range(X.shape[1])]
    cols += [np.sqrt(2) * X[:, i] * X[:, j]
             for i, j in itertools.combinations(range(X.shape[1]), 2)]
    return np.column_stack(cols)


def test_poly2_is_the_primal_perceptron_on_quadratic_features(rng):
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] * X[:, 1] + 0.3 * X[:, 2] ** 2 - 0.2 > 0).astype(int)
    p = Perceptron(random_state=0, max_iter=40, fit_intercept=False).fit(quadratic_features(X),
                                                                         y)
    kp = KernelPerceptron(kernel="poly", degree=2, gamma=1.0, coef0=1.0, random_state=0,
                          max_iter=40, fit_intercept=False).fit(X, y)
    assert p.mistakes_.tolist() == kp.mistakes_.tolist()
    np.testing.assert_allclose(kp.decision_function(X),
                               p.decision_function(quadratic_features(X)), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("kernel", ["rbf", "poly", Linear() + 0.5 * RBF(gamma=0.3)])
@pytest.mark.parametrize("k", [2, 3])
def test_cached_and_streaming_agree(rng, kernel, k):
    X = rng.normal(size=(90, 4))
    y = rng.integers(0, k, 90)
    models = [KernelPerceptron(kernel=kernel, random_state=1, max_iter=6, average=True,
                               max_gram_bytes=mgb).fit(X, y) for mgb in (BIG, 4000, TINY)]
    for m in models[1:]:
        assert m.mistakes_.tolist() == models[0].mistakes_.tolist()
        np.testing.assert_allclose(m.dual_coef_, models[0].dual_coef_, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(m.decision_function(X), models[0].decision_function(X),
                                   rtol=1e-9, atol=1e-9)


def test_twins_agree(rng):
    from conftest import _module

    from perceptron_c import _backend

    _module("c", "_dual")
    X = rng.normal(size=(70, 3))
    y = rng.integers(0, 3, 70)
    B, yb = dnf_problem(rng, 60, 40)
    for args, data in [(dict(kernel="rbf", average=True), (X, y)),
                       (dict(kernel="rbf", max_gram_bytes=TINY), (X, y)),
                       (dict(kernel="conjunction", average=True), (B, yb)),
                       (dict(kernel="conjunction"), (B, y[:60]))]:
        out = []
        for name in ("c", "python"):
            with _backend.using(name):
                m = KernelPerceptron(random_state=0, max_iter=5, **args).fit(*data)
                out.append((m.mistakes_, m._alpha, m._b, m.decision_function(data[0])))
        for a, b in zip(*out):
            assert np.array_equal(a, b)


def test_xor_needs_a_nonlinear_kernel(model_backend):
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    y = np.array([0, 1, 1, 0])
    lin = KernelPerceptron(kernel="linear", max_iter=50, random_state=0).fit(X, y)
    assert not lin.converged_ and lin.score(X, y) < 1.0
    for kernel, extra in (("poly", dict(degree=2)), ("rbf", {})):
        m = KernelPerceptron(kernel=kernel, max_iter=50, random_state=0, **extra).fit(X, y)
        assert m.converged_ and m.score(X, y) == 1.0


@pytest.mark.parametrize("n_bits,density,n_train", [(20, 0.5, 600), (60, 0.3, 2000)])
def test_conjunction_learns_hidden_dnf(rng, n_bits, density, n_train):
    # A monotone DNF of 2-literal terms: consistent on the training set (the DNF is a linear
    # separator in the conjunction feature space), and well above the majority vote and the
    # linear perceptron on held-out rows.
    B, y = dnf_problem(rng, n_train + 1000, n_bits, ((0, 3), (5, 7), (2, 11)), density)
    tr, te = slice(0, n_train), slice(n_train, None)
    m = KernelPerceptron(kernel="conjunction", max_iter=50, random_state=0).fit(B[tr], y[tr])
    assert m.converged_ and m.score(B[tr], y[tr]) == 1.0
    majority = max(y[te].mean(), 1 - y[te].mean())
    linear = Perceptron(max_iter=50, random_state=0).fit(B[tr], y[tr]).score(B[te], y[te])
    assert m.score(B[te], y[te]) > max(majority + 0.05, linear)
    packed = KernelPerceptron(kernel="conjunction", max_iter=50, random_state=0).fit(
        pack_bits(B[tr]), y[tr])
    assert np.array_equal(packed._alpha, m._alpha)
    assert np.array_equal(packed.decision_function(pack_bits(B[te])),
                          m.decision_function(B[te]))


def _exact_decision(model, B):
    """sum_j coef_j 2^popcount(x AND sv_j) + b with Python integers (binary, not averaged)."""
    sv = perceptron_c.kernels.unpack_bits(*model.support_vectors_).astype(bool)
    coef = model._alpha[0].tolist()
    out = []
    for x in B.astype(bool):
        total = int(model._b[0])
        for a, s in zip(coef, sv):
            total += int(a) << int(np.count_nonzero(x & s))
        out.append(total)
    return out


@pytest.mark.parametrize("n_bits", [2048, 4096])
def test_conjunction_decisions_are_exact_at_thousands_of_bits(model_backend, rng, n_bits):
    # Rows share ~n_bits/4 ones: kernel values near 2^1000..2^1100, far beyond float64.
    B = (rng.random((40, n_bits)) < 0.5).astype(np.uint8)
    y = rng.integers(0, 2, 40)
    m = KernelPerceptron(kernel="conjunction", max_iter=30, random_state=0).fit(B, y)
    d = m.decision_function(B)
    assert np.all(np.isfinite(d))
    exact = _exact_decision(m, B)
    assert np.array_equal(np.sign(d), np.sign(exact))
    assert np.array_equal(m.predict(B), m.classes_[(np.array(exact) > 0).astype(int)])
    big = np.abs(np.array([float(v) if abs(v) < 2**1023 else np.inf for v in exact]))
    assert np.all(np.abs(d)[np.isinf(big)] == np.finfo(np.float64).max)


def test_conjunction_deep_cancellation():
    # Two identical rows of opposite label plus a smaller one: f = 2^k - 2^k + 2^m + ...
    n_bits = 1600
    a = np.zeros(n_bits, np.uint8)
    a[:1500] = 1
    c = np.zeros(n_bits, np.uint8)
    c[1500:] = 1
    X = np.array([a, a, c])
    m = KernelPerceptron(kernel="conjunction", shuffle=False, max_iter=1,
                         fit_intercept=False).fit(X, [1, 0, 1])
    # row 0 (+): f = 0, a mistake; row 1 (-): f = 2^1500 > 0, a mistake, alpha = (1, -1);
    # row 2 (+): f = 2^0 - 2^0 = 0, a mistake. Then f(a) = 2^1500 - 2^1500 + 2^0 = 1 exactly,
    # where a float sum scaled by the largest term (2^-1500 underflows) would give 0.
    assert m.mistakes_.tolist() == [3]
    assert m.decision_function(a[None, :])[0] == 1.0
    assert m.predict(a[None, :])[0] == 1


@pytest.mark.parametrize("k", [2, 3])
def test_partial_fit_continues(model_backend, rng, k):
    X, y = int_problem(rng, 50, 4, k)
    full = KernelPerceptron(kernel="linear", random_state=2, max_iter=3).fit(X, y)
    part = KernelPerceptron(kernel="linear", random_state=2)
    for _ in range(3):
        part.partial_fit(X, y, classes=np.unique(y))
    # the pool grows by a copy of X per call; the function learned is the same
    assert full.mistakes_.tolist() == part.mistakes_.tolist()
    assert np.array_equal(full.decision_function(X), part.decision_function(X))
    assert np.all(part.support_ >= -1)


def test_precomputed_equals_kernel_object(rng):
    X = rng.normal(size=(60, 3))
    y = rng.integers(0, 2, 60)
    Xt = rng.normal(size=(20, 3))
    k = RBF(gamma=0.7)
    a = KernelPerceptron(kernel=k, random_state=0, max_iter=10).fit(X, y)
    b = KernelPerceptron(kernel="precomputed", random_state=0, max_iter=10).fit(k(X), y)
    assert a.mistakes_.tolist() == b.mistakes_.tolist()
    np.testing.assert_allclose(a.decision_function(Xt), b.decision_function(k(Xt, X)),
                               rtol=1e-12)
    with pytest.raises(ValueError, match="square"):
        KernelPerceptron(kernel="precomputed").fit(k(X)[:, :50], y)
    with pytest.raises(ValueError, match="features"):
        b.predict(k(Xt, X[:50]))


@pytest.mark.parametrize("kernel", ["rbf", "conjunction", 2.0 * Polynomial(2) + RBF(0.5)])
def test_save_load_and_pickle(tmp_path, rng, kernel):
    B, y = dnf_problem(rng, 120, 30)
    labels = np.array(["no", "yes"])[y]
    m = KernelPerceptron(kernel=kernel, random_state=0, max_iter=8, average=True).fit(B, labels)
    for m2 in (perceptron_c.load(m.save(tmp_path / "k.npz")), pickle.loads(pickle.dumps(m))):
        assert np.array_equal(m.decision_function(B), m2.decision_function(B))
        assert np.array_equal(m.predict(B), m2.predict(B))
        m2.partial_fit(B, labels)
    m.partial_fit(B, labels)
    assert np.array_equal(m.decision_function(B), m2.decision_function(B))


def test_callable_kernel_cannot_be_saved(tmp_path, rng):
    X = rng.normal(size=(20, 2))
    m = KernelPerceptron(kernel=lambda A, B: (A @ B.T + 1.0) ** 2, max_iter=5).fit(
        X, X[:, 0] > 0)
    assert m.score(X, X[:, 0] > 0) > 0.5
    with pytest.raises(TypeError, match="cannot be stored"):
        m.save(tmp_path / "m.npz")


@pytest.mark.skipif(sp is None, reason="scipy not installed")
def test_sparse_input(rng):
    X = sp.random(50, 8, density=0.4, random_state=0, format="csr")
    y = rng.integers(0, 2, 50)
    a = KernelPerceptron(random_state=0, max_iter=5).fit(X, y)
    b = KernelPerceptron(random_state=0, max_iter=5).fit(X.toarray(), y)
    assert np.array_equal(a.decision_function(X), b.decision_function(X.toarray()))


@pytest.mark.parametrize("params,X,match", [
    (dict(kernel="conjunction"), np.array([[0, 2], [1, 0]]), "0/1"),
    (dict(kernel="rbf", gamma=0.0), np.eye(2), "gamma"),
    (dict(kernel="rbf", gamma=-1.0), np.eye(2), "gamma"),
    (dict(kernel="poly", degree=0), np.eye(2), "degree"),
    (dict(kernel="poly", degree=2.5), np.eye(2), "degree"),
    (dict(kernel="linear", gamma=1.0), np.eye(2), "gamma"),
    (dict(kernel="sigmoid"), np.eye(2), "kernel"),
    (dict(kernel="rbf"), np.array([[np.nan, 0], [1, 0]]), "NaN"),
    (dict(kernel="rbf", max_iter=0), np.eye(2), "max_iter"),
    (dict(kernel="rbf", max_gram_bytes=0), np.eye(2), "max_gram_bytes"),
])
def test_bad_input_is_named(params, X, match):
    with pytest.raises((ValueError, TypeError), match=match):
        KernelPerceptron(**params).fit(X, [0, 1])


def test_conjunction_rejects_wrong_width(rng):
    B, y = dnf_problem(rng, 30, 16)
    m = KernelPerceptron(kernel="conjunction", max_iter=5).fit(B, y)
    with pytest.raises(ValueError, match="features"):
        m.predict(B[:, :15])


def test_verbose_and_attributes(rng, capsys):
    X, y = int_problem(rng, 40, 3, 3)
    m = KernelPerceptron(kernel="linear", max_iter=3, verbose=1, random_state=0).fit(X, y)
    assert capsys.readouterr().err.count("epoch") == m.n_iter_
    assert m.dual_coef_.shape == (3, m.n_support_) and m.intercept_.shape == (3,)
    assert m.support_vectors_.shape == (m.n_support_, 3)
    assert np.array_equal(m.support_vectors_, X[m.support_])
    # binary: alpha_i = y_i * (mistakes on i), so |dual_coef_| sums to the mistakes
    mb = KernelPerceptron(kernel="linear", max_iter=3, random_state=0).fit(X, y == 0)
    assert mb.dual_coef_.shape == (1, mb.n_support_)
    assert np.abs(mb.dual_coef_).sum() == mb.mistakes_.sum()


def test_training_rows_without_n_jobs_run_ahead_on_the_default_threads(monkeypatch):
    # a streamed epoch (the Gram over max_gram_bytes) at n_jobs=None computes the next
    # block's kernel rows on a thread of its own, as n_jobs=2 does, when default_threads()
    # gives 2 (whatever this machine has); the model is the one-thread model bit for bit
    import concurrent.futures

    from perceptron_c.kernels import _rows

    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 5))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    params = dict(kernel="rbf", gamma=0.5, max_iter=2, random_state=0, max_gram_bytes=1 << 12)
    one = KernelPerceptron(n_jobs=1, **params).fit(X, y)
    pools = []
    real = concurrent.futures.ThreadPoolExecutor

    class Counted(real):
        def __init__(self, *args, **kwargs):
            pools.append(args)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(concurrent.futures, "ThreadPoolExecutor", Counted)
    monkeypatch.setattr(_rows, "default_threads", lambda: 2)
    default = KernelPerceptron(**params).fit(X, y)
    assert pools, "the epochs did not compute their next block ahead"
    assert np.array_equal(default.dual_coef_, one.dual_coef_)
    assert np.array_equal(default.decision_function(X), one.decision_function(X))
    monkeypatch.setattr(_rows, "default_threads", lambda: 1)
    pools.clear()
    KernelPerceptron(**params).fit(X, y)
    assert not pools  # one thread: no pool
