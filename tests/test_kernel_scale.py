"""The kernel models at scale: kernel rows against the support set only, exponents in int16,
threads (n_jobs) and sample / class weights.

The models must be the ones a straightforward kernel perceptron computes: `reference_fit`
below is the textbook loop (Ohio slides, kernel perceptron; CIML Alg. 7 for the average) over
the whole pool, every activation summed afresh over every example; the conjunction kernel's
with Python integers, the float kernels' with the 4-lane sum of the routines' contract (on
small-integer data every kernel value is exact, so the float models must agree bit for bit
in every mode). Nothing here times anything.
"""
import os
import threading
import time
import tracemalloc

import numpy as np
import pytest
from conftest import NO_EXTENSIONS, run_python

from perceptron_c import (
    BudgetKernelPerceptron,
    KernelPassiveAggressiveClassifier,
    KernelPerceptron,
    PassiveAggressiveClassifier,
    Perceptron,
    VotedPerceptron,
    _backend,
)
from perceptron_c._estimator._base import epoch_order
from perceptron_c.kernels import RBF, Linear, Polynomial, gram, pack_bits

# the sizes of the big cases on the Python twins, which run them 50-100x slower: each still
# spans several blocks of every streaming mode and of the threads
SCALE = 1 if not NO_EXTENSIONS else 4
BIG, TINY, SMALL = 10**9, 1, 6000  # max_gram_bytes: cached Gram / a row a block / blocks


def bits_problem(rng, n, n_bits=80, k=2, density=0.3):
    B = (rng.random((n, n_bits)) < density).astype(np.uint8)
    y = (B[:, 0] & B[:, 3]) | (B[:, 5] & B[:, 7]) if k == 2 else \
        (B[:, 0] + 2 * B[:, 3] + B[:, 9]) % k
    return B, y.astype(int)


def int_problem(rng, n, d=4, k=2):
    X = rng.integers(-2, 3, size=(n, d)).astype(np.float64)
    y = (X[:, 0] * X[:, 1] + X[:, 2] > 0).astype(int) if k == 2 else \
        (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 0).astype(int)
    return X, y


def _dot4(a, k):
    s = [0.0, 0.0, 0.0, 0.0]
    for j, (x, v) in enumerate(zip(a, k)):
        s[j & 3] += x * v
    return (s[0] + s[1]) + (s[2] + s[3])


def reference_fit(G, y, k, seed, epochs, weights=None, average=False, fit_intercept=True,
                  exact=False):
    """The kernel perceptron over the whole pool, one activation at a time.

    G: the kernel Gram (exponents when exact); y: class indices; k classes (2: binary);
    weights: per example (0: never visited). Returns (alpha, b, u, beta, count, mistakes).
    """
    n = len(y)
    rows = 1 if k == 2 else k
    zero = 0 if exact else 0.0
    alpha = [[zero] * n for _ in range(rows)]
    u = [[zero] * n for _ in range(rows)]
    b, beta = [zero] * rows, [zero] * rows
    c, history = 1, []
    w = [1] * n if weights is None else [int(v) if exact else float(v) for v in weights]
    one = 1 if exact else 1.0

    def f(r, i):
        if exact:
            return sum(a << int(e) for a, e in zip(alpha[r], G[i]) if a) + b[r]
        return _dot4(alpha[r], G[i]) + b[r]

    for epoch in range(epochs):
        mistakes = 0
        for i in epoch_order(seed, epoch, n, True).tolist():
            if w[i] == 0:
                continue
            if k == 2:
                sign = one if y[i] == 1 else -one
                if sign * f(0, i) <= 0:
                    mistakes += 1
                    step = sign * w[i]
                    alpha[0][i] += step
                    u[0][i] += step * c
                    if fit_intercept:
                        b[0] += step
                        beta[0] += step * c
            else:
                scores = [f(r, i) for r in range(k)]
                pred = max(range(k), key=lambda r: (scores[r], -r))
                if pred != y[i]:
                    mistakes += 1
                    for r, s in ((y[i], w[i]), (pred, -w[i])):
                        alpha[r][i] += s
                        u[r][i] += s * c
                        if fit_intercept:
                            b[r] += s
                            beta[r] += s * c
            c += 1
        history.append(mistakes)
        if mistakes == 0:
            break
    return alpha, b, u, beta, c, history


def assert_model_is(model, ref, exact):
    alpha, b, u, beta, c, history = ref
    alpha, u = np.array(alpha, dtype=object if exact else float), np.array(u, dtype=object
                                                                           if exact else float)
    assert model.mistakes_.tolist() == history
    keep = np.any(alpha != 0, axis=0)
    if model.average:
        keep |= np.any(u != 0, axis=0)
    assert model.support_.tolist() == np.flatnonzero(keep).tolist()
    assert model._alpha.tolist() == alpha[:, keep].tolist()
    assert model._b.tolist() == list(b)
    if model.average:
        assert model._u.tolist() == u[:, keep].tolist()
        assert model._beta.tolist() == list(beta) and model._count.tolist() == [c]


MODES = [dict(max_gram_bytes=BIG), dict(max_gram_bytes=TINY), dict(max_gram_bytes=SMALL),
         dict(max_gram_bytes=SMALL, n_jobs=2)]


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("mode", MODES, ids=lambda d: "-".join(map(str, d.values())))
def test_conjunction_model_is_the_straightforward_one(model_backend, rng, k, average,
                                                      weighted, mode):
    B, y = bits_problem(rng, 70, 80, k)
    G = gram(B, kernel="conjunction", log2=True).tolist()
    w = rng.integers(0, 4, len(y)) if weighted else None
    m = KernelPerceptron(kernel="conjunction", average=average, max_iter=4, random_state=5,
                         **mode).fit(B, y, sample_weight=w)
    assert_model_is(m, reference_fit(G, y, k, m._seed, 4, w, average, exact=True), True)


@pytest.mark.parametrize("kernel", [Linear(), Polynomial(2, coef0=1.0), RBF(0.5)],
                         ids=repr)
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("mode", MODES, ids=lambda d: "-".join(map(str, d.values())))
def test_float_model_is_the_straightforward_one(model_backend, rng, kernel, k, mode):
    # integer rows: every kernel value exact, so the cached scores, the rows against the whole
    # pool and the rows against the support set all sum the same numbers
    X, y = int_problem(rng, 60, 4, k)
    w = rng.choice([0.0, 0.5, 1.0, 2.0], len(y))
    G = gram(X, kernel=kernel).tolist()
    for average in (False, True):
        m = KernelPerceptron(kernel=kernel, average=average, max_iter=5, random_state=2,
                             **mode).fit(X, y, sample_weight=w)
        assert_model_is(m, reference_fit(G, y, k, m._seed, 5, w, average), False)


def test_a_big_conjunction_problem_in_every_mode(rng):
    """A few thousand rows at 1024 bits (exponents up to ~100, kernel values up to 2^100):
    the streaming modes (one row a block, small blocks, threads) and the cached Gram train
    the same model; the old way (full kernel rows, as every block computed them) too."""
    from perceptron_c.kernels._rows import exponents

    n = 1500 // SCALE
    B, y = bits_problem(rng, n, 1024, 2, density=0.1)
    y = rng.integers(0, 2, len(y))  # hard labels: many support vectors
    P = pack_bits(B)
    models = [KernelPerceptron(kernel="conjunction", max_iter=2, random_state=0, **mode)
              .fit(P, y) for mode in MODES[:1] + [dict(max_gram_bytes=100_000),
                                                  dict(max_gram_bytes=100_000, n_jobs=-1)]]
    for m in models[1:]:
        assert np.array_equal(m._alpha, models[0]._alpha)
        assert np.array_equal(m.support_, models[0].support_)
    # the old way: each visited row against the whole pool
    E = exponents(P, P)
    alpha, b = np.zeros(n, np.int64), np.zeros(1, np.int64)
    signs = np.where(y == 1, 1.0, -1.0)
    conj = _backend.conjunction
    for epoch, count in enumerate(models[0].mistakes_):
        order = epoch_order(models[0]._seed, epoch, n, True)
        done = sum(conj.conjunction_epoch_rows(E[order[s:s + 100]], order[s:s + 100], signs,
                                               alpha, b, True) for s in range(0, n, 100))
        assert done == count
    assert np.array_equal(alpha[models[0].support_], models[0]._alpha[0])


# ------------------------------------------------------------------------------- threads

def _state(model):
    keys = [k for k in ("_alpha", "_b", "_u", "_beta", "_count", "_w", "_m_index",
                        "_survival", "support_") if hasattr(model, k)]
    return [getattr(model, k) for k in keys]


@pytest.mark.parametrize("make", [
    lambda nj, mgb: KernelPerceptron(kernel="rbf", gamma=0.3, average=True, n_jobs=nj,
                                     max_gram_bytes=mgb, max_iter=4, random_state=1),
    lambda nj, mgb: KernelPerceptron(kernel=Polynomial(3, 0.5) + RBF(1.0), n_jobs=nj,
                                     max_gram_bytes=mgb, max_iter=4, random_state=1),
    lambda nj, mgb: VotedPerceptron(kernel="rbf", n_jobs=nj, max_gram_bytes=mgb, max_iter=3,
                                    random_state=1),
    lambda nj, mgb: VotedPerceptron(n_jobs=nj, max_gram_bytes=mgb, max_iter=3,
                                    random_state=1),
    lambda nj, mgb: BudgetKernelPerceptron(budget=40, strategy="forgetron", kernel="rbf",
                                           n_jobs=nj, max_gram_bytes=mgb, max_iter=3,
                                           random_state=1),
    lambda nj, mgb: BudgetKernelPerceptron(budget=40, strategy="projectron++", kernel="poly",
                                           average=True, n_jobs=nj, max_gram_bytes=mgb,
                                           max_iter=3, random_state=1),
    lambda nj, mgb: KernelPassiveAggressiveClassifier(kernel="rbf", gamma=0.3, tol=None, n_jobs=nj,
                                                      max_gram_bytes=mgb, max_iter=3,
                                                      random_state=1),
    lambda nj, mgb: KernelPassiveAggressiveClassifier(kernel="poly", degree=2, tol=None, n_jobs=nj,
                                                      early_stopping=True, average=True,
                                                      max_gram_bytes=mgb, max_iter=4,
                                                      random_state=1),
], ids=["kp-rbf", "kp-sum", "voted-rbf", "voted-primal", "budget-forgetron",
        "budget-projectron", "kpa-rbf", "kpa-early-stopping"])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("mgb", [BIG, 40_000])
def test_n_jobs_never_changes_a_float_model(rng, make, k, mgb):
    X = rng.normal(size=(400, 6))  # float data: every rounding must be the same
    y = np.argmax(X[:, :k] + 0.5 * rng.normal(size=(400, k)), axis=1)
    Xt = rng.normal(size=(300, 6))
    ref = make(None, mgb).fit(X, y)
    for nj in (1, 2, 3, -1):
        m = make(nj, mgb).fit(X, y)
        for a, b in zip(_state(ref), _state(m)):
            assert np.array_equal(a, b)
        assert np.array_equal(m.decision_function(Xt), ref.decision_function(Xt))
        assert np.array_equal(m.predict(Xt), ref.predict(Xt))


@pytest.mark.parametrize("make", [
    lambda **kw: KernelPerceptron(**kw), lambda **kw: VotedPerceptron(**kw),
    lambda **kw: BudgetKernelPerceptron(budget=60, **kw),
    lambda **kw: BudgetKernelPerceptron(budget=60, strategy="forgetron", **kw),
    lambda **kw: KernelPassiveAggressiveClassifier(tol=None, **kw),
], ids=["kp", "voted", "budget-random", "budget-forgetron", "kpa"])
@pytest.mark.parametrize("k", [2, 3])
def test_n_jobs_never_changes_a_conjunction_model(rng, make, k):
    B, y = bits_problem(rng, 500, 300, k)
    kw = dict(kernel="conjunction", max_iter=3, random_state=0, max_gram_bytes=50_000)
    ref = make(**kw).fit(B, y)
    for nj in (2, -1):
        m = make(n_jobs=nj, **kw).fit(B, y)
        for a, b in zip(_state(ref), _state(m)):
            assert np.array_equal(a, b)
        assert np.array_equal(m.decision_function(B), ref.decision_function(B))
        assert np.array_equal(m.predict(B), ref.predict(B))


@pytest.mark.parametrize("make", [
    lambda nj: Perceptron(n_jobs=nj, random_state=0, max_iter=3),
    lambda nj: Perceptron(n_jobs=nj, multiclass="ovr", average=True, random_state=0,
                          max_iter=3),
    lambda nj: PassiveAggressiveClassifier(n_jobs=nj, tol=None, random_state=0, max_iter=3),
], ids=["perceptron", "perceptron-ovr-averaged", "pa"])
@pytest.mark.parametrize("sparse", [False, True])
def test_n_jobs_never_changes_a_linear_decision(rng, make, sparse):
    n = 20_000 // SCALE  # enough rows for several blocks (one per thread)
    X = rng.normal(size=(n, 12))
    y = np.argmax(X[:, :3] + 0.5 * rng.normal(size=(n, 3)), axis=1)
    if sparse:
        scipy_sparse = pytest.importorskip("scipy.sparse")
        X[np.abs(X) < 0.8] = 0.0
        X = scipy_sparse.csr_matrix(X)
    ref = make(None).fit(X, y)
    d, p = ref.decision_function(X), ref.predict(X)
    for nj in (2, 3, -1):
        m = make(nj).fit(X, y)
        assert np.array_equal(m.coef_, ref.coef_)
        assert np.array_equal(m.decision_function(X), d)
        assert np.array_equal(m.predict(X), p)


@pytest.mark.parametrize("kernel,params", [("linear", {}), ("poly", dict(degree=3, gamma=0.2)),
                                           ("rbf", dict(gamma=0.7)), ("conjunction", {})])
@pytest.mark.parametrize("same", [False, True])
def test_gram_n_jobs_gives_the_same_matrix(model_backend, rng, kernel, params, same):
    X = (rng.random((700, 130)) < 0.4).astype(float) if kernel == "conjunction" else \
        rng.normal(size=(700, 9))
    X[5] = X[9]  # RBF: a distance recomputed from the differences
    Y = None if same else X[::-1][:500] + (0 if kernel == "conjunction" else 1e-9)
    ref = gram(X, Y, kernel=kernel, **params)
    for nj in (1, 2, 3, -1, -2, np.int64(2)):
        assert np.array_equal(gram(X, Y, kernel=kernel, n_jobs=nj, **params), ref)
    if kernel == "conjunction":
        log2 = gram(X, Y, kernel=kernel, log2=True)
        assert np.array_equal(gram(X, Y, kernel=kernel, log2=True, n_jobs=2), log2)


@pytest.mark.parametrize("kernel,params", [("linear", {}), ("poly", dict(degree=2, gamma=0.3)),
                                           ("rbf", dict(gamma=0.2))])
@pytest.mark.parametrize("same", [False, True])
def test_float_gram_products_share_the_threads(model_backend, rng, monkeypatch, kernel, params,
                                               same):
    # the products of a float Gram are cut in blocks of rows that n_jobs threads share, and
    # every entry is its own 4-lane dot: the same bits on any thread, in any block
    from perceptron_c import _backend

    X = rng.normal(size=(1100, 200))  # several blocks of product_blocks' rows
    Y = None if same else rng.normal(size=(300, 200))
    ref = gram(X, Y, kernel=kernel, **params)
    module = _backend.gram
    threads, real = [], module.run_blocks

    def run_blocks(fn, blocks, n_threads):
        def spy(a, z):  # 20 ms more a block: the caller cannot take every block alone
            threads.append(threading.current_thread().name)
            time.sleep(0.02)
            fn(a, z)
        real(spy, blocks, n_threads)
    monkeypatch.setattr(module, "run_blocks", run_blocks)
    out = gram(X, Y, kernel=kernel, n_jobs=2, **params)
    assert np.array_equal(out, ref)
    assert any(name.startswith("perceptron_c") for name in threads), threads
    if same:
        assert np.array_equal(out, out.T)


BLAS_CHILD = """
import hashlib, sys
import numpy as np
from perceptron_c import KernelPerceptron, margin
from perceptron_c._core import _gram_py
from perceptron_c.datasets import make_separable
from perceptron_c.kernels import gram
rng = np.random.default_rng(7)
X, Y = rng.normal(size=(301, 203)), rng.normal(size=(260, 203))  # enough for BLAS's threads
values = []
for kernel, params in (("linear", {}), ("poly", dict(degree=3, gamma=0.1)),
                       ("rbf", dict(gamma=0.05))):
    for nj in (None, 2):
        values += [gram(X, Y, kernel=kernel, n_jobs=nj, **params),
                   gram(X, kernel=kernel, n_jobs=nj, **params)]
Xs, ys, u, b = make_separable(np.random.default_rng(3), n=400, d=30, gap=0.05)
km = KernelPerceptron(kernel="rbf", gamma=0.05, max_iter=3, random_state=0).fit(Xs, ys)
values += [Xs, ys, km.decision_function(Xs), np.array([margin(Xs, ys, u, b)])]
print(hashlib.sha256(b"".join(np.ascontiguousarray(v).tobytes() for v in values)).hexdigest())
"""


def _blas_settings():
    """Environments that change how BLAS sums (its thread count; OpenBLAS's kernel, among the
    ones this CPU can run): a product computed by BLAS would differ between some of them."""
    threads = [{"OPENBLAS_NUM_THREADS": t, "OMP_NUM_THREADS": t, "MKL_NUM_THREADS": t,
                "VECLIB_MAXIMUM_THREADS": t} for t in ("1", "2", "3")]
    cores = []
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            flags = set(next((ln for ln in f if ln.startswith("flags")), "").split())
    except OSError:
        flags = set()
    if "sse2" in flags:  # x86-64: OpenBLAS's kernels for older CPUs run on newer ones
        cores = ["Prescott", "Nehalem"] + ["Sandybridge"] * ("avx" in flags) \
            + ["Haswell"] * ("avx2" in flags) + ["SkylakeX"] * ("avx512f" in flags)
    return threads + [dict(threads[1], OPENBLAS_CORETYPE=c) for c in cores]


@pytest.mark.processes
def test_float_kernels_do_not_depend_on_blas():
    # Grams, a kernel model's decisions, a generated data set and a margin: the same bits
    # whatever BLAS's thread count and kernel (the float products once went through BLAS,
    # whose sums differ between 1 and 2 threads, and between its kernels, even on one CPU)
    digests = {}
    for env in _blas_settings():
        run = run_python(["-I", "-c", BLAS_CHILD], env={**os.environ, **env},
                         capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        digests[tuple(sorted(env.items()))] = run.stdout.strip()
    assert len(set(digests.values())) == 1, digests


FORKED_CHILD = """
import os, sys, time
import numpy as np
from perceptron_c import KernelPerceptron, Perceptron
rng = np.random.default_rng(0)
X = rng.normal(size=(20000, 8))
y = (X[:, 0] > 0).astype(int)
km = KernelPerceptron(kernel="rbf", gamma=0.5, max_iter=1, random_state=0, n_jobs=2)
km.fit(X[:500], y[:500])
lm = Perceptron(max_iter=2, random_state=0, n_jobs=2).fit(X, y)
want = (km.decision_function(X), lm.decision_function(X))  # the threads' pool is made
pid = os.fork()
if pid == 0:
    same = (np.array_equal(km.decision_function(X), want[0])
            and np.array_equal(lm.decision_function(X), want[1]))
    os._exit(0 if same else 3)
for _ in range(600):  # 60 s
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        print("child exit", os.waitstatus_to_exitcode(status))
        sys.exit(0)
    time.sleep(0.1)
os.kill(pid, 9)
print("child hung")
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_a_forked_child_predicts_on_threads():
    # the threads' pool is made once per process; a child forked after the parent used it
    # inherited the pool but none of its threads, and its first n_jobs=2 call hung forever
    result = run_python(["-c", FORKED_CHILD], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["child", "exit", "0"], result.stdout


@pytest.mark.parametrize("n_jobs", [0, 1.5, "2", True])
def test_bad_n_jobs_is_named(rng, n_jobs):
    X = rng.normal(size=(5, 2))
    with pytest.raises(ValueError, match="n_jobs"):
        gram(X, kernel="rbf", n_jobs=n_jobs)
    for est in (KernelPerceptron(n_jobs=n_jobs), VotedPerceptron(n_jobs=n_jobs),
                BudgetKernelPerceptron(n_jobs=n_jobs),
                KernelPassiveAggressiveClassifier(n_jobs=n_jobs)):
        with pytest.raises(ValueError, match="n_jobs"):
            est.fit(X, [0, 1, 0, 1, 1])


@pytest.mark.skipif(NO_EXTENSIONS, reason="the Python twin's popcounts go through lists")
def test_the_conjunction_gram_stays_within_max_gram_bytes(rng):
    """Exponents are written once into int16 (no int64 -> int32 copy): the fit's peak memory
    is the budget plus the data, cached Gram or streamed blocks alike."""
    B, y = bits_problem(rng, 1000, 256, 2)
    P = pack_bits(B)
    KernelPerceptron(kernel="conjunction", max_iter=1).fit(P, y)  # one-time setup (threads)
    for budget, cached in ((1000 * 1064 * 2, True), (1 << 20, False)):
        m = KernelPerceptron(kernel="conjunction", max_iter=2, random_state=0,
                             max_gram_bytes=budget)
        tracemalloc.start()
        m.fit(P, y)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert m._sv.words.shape[0] > 100  # (enough support vectors to fill the blocks)
        # + the data: the training pool (32 KB), its copy, and arrays of n coefficients
        assert peak <= budget + 160_000, (cached, peak, budget)


# ------------------------------------------------------------------------------- weights

@pytest.mark.parametrize("kernel", ["rbf", "conjunction"])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("mgb", [BIG, SMALL])
def test_zero_weight_is_a_removed_row(model_backend, rng, kernel, k, mgb):
    B, y = bits_problem(rng, 90, 40, k)
    w = rng.integers(0, 3, len(y))
    w[:3] = 1
    keep = w > 0
    kw = dict(kernel=kernel, shuffle=False, max_iter=6, max_gram_bytes=mgb, average=True)
    a = KernelPerceptron(**kw).fit(B, y, sample_weight=w)
    b = KernelPerceptron(**kw).fit(B[keep], y[keep], sample_weight=w[keep])
    assert a.mistakes_.tolist() == b.mistakes_.tolist()
    assert np.array_equal(a.dual_coef_, b.dual_coef_)
    assert np.array_equal(a.decision_function(B), b.decision_function(B))


@pytest.mark.parametrize("kernel", ["rbf", "conjunction", "precomputed"])
def test_unit_weights_and_class_weights(model_backend, rng, kernel):
    B, y = bits_problem(rng, 80, 30, 3)
    X = gram(B, kernel="rbf") if kernel == "precomputed" else B
    kw = dict(kernel=kernel, max_iter=5, random_state=3)
    plain = KernelPerceptron(**kw).fit(X, y)
    ones = KernelPerceptron(**kw).fit(X, y, sample_weight=np.ones(len(y)))
    assert np.array_equal(plain._alpha, ones._alpha) and np.array_equal(plain._b, ones._b)
    cw = {0: 3, 1: 1, 2: 2}
    by_class = KernelPerceptron(class_weight=cw, **kw).fit(X, y)
    by_row = KernelPerceptron(**kw).fit(X, y, sample_weight=[cw[v] for v in y])
    assert np.array_equal(by_class._alpha, by_row._alpha)
    assert np.array_equal(by_class._b, by_row._b)


def test_weighted_linear_kernel_is_the_weighted_primal_perceptron(model_backend, rng):
    X, y = int_problem(rng, 80, 5)
    w = rng.integers(1, 4, len(y)).astype(float)
    p = Perceptron(random_state=3, max_iter=8).fit(X, y, sample_weight=w)
    kp = KernelPerceptron(kernel="linear", random_state=3, max_iter=8).fit(X, y,
                                                                          sample_weight=w)
    assert p.mistakes_.tolist() == kp.mistakes_.tolist()
    assert np.array_equal(p.decision_function(X), kp.decision_function(X))


def test_twins_agree_with_weights(rng):
    from conftest import _module

    _module("c", "_dual")
    X = rng.normal(size=(70, 3))
    y = rng.integers(0, 3, 70)
    B, yb = bits_problem(rng, 60, 40)
    w = rng.uniform(0.1, 3.0, 70)
    for args, data, sw in [(dict(kernel="rbf", average=True), (X, y), w),
                           (dict(kernel="rbf", max_gram_bytes=3000), (X, y), w),
                           (dict(kernel="conjunction", average=True, max_gram_bytes=3000),
                            (B, yb), np.round(w[:60]))]:
        out = []
        for name in ("c", "python"):
            with _backend.using(name):
                m = KernelPerceptron(random_state=0, max_iter=5, **args).fit(*data, sw)
                out.append((m.mistakes_, m._alpha, m._b, m.decision_function(data[0])))
        for a, b in zip(*out):
            assert np.array_equal(a, b)


def test_conjunction_needs_whole_number_weights(rng):
    B, y = bits_problem(rng, 40, 20)
    with pytest.raises(ValueError, match="whole numbers.*0.5 for row 2"):
        KernelPerceptron(kernel="conjunction").fit(B, y, sample_weight=[1, 1, 0.5] + [1] * 37)
    y = np.repeat([0, 1], [30, 10])  # 'balanced' weights of an unbalanced y are fractions
    with pytest.raises(ValueError, match="whole numbers"):
        KernelPerceptron(kernel="conjunction", class_weight="balanced").fit(B, y)
    KernelPerceptron(kernel="conjunction", class_weight={0: 2, 1: 5}).fit(B, y)


def test_conjunction_weights_keep_the_exact_headroom(rng):
    B, y = bits_problem(rng, 200, 20)  # 2 x 200 x 2^53 > 2^60 if each row were a mistake
    with pytest.raises(ValueError, match="overflow.*2\\^60"):
        KernelPerceptron(kernel="conjunction").fit(B, y, sample_weight=np.full(200, 2.0**53))
    KernelPerceptron(kernel="conjunction").fit(B, y, sample_weight=np.full(200, 2.0**50))


def test_partial_fit_takes_weights_not_balanced(rng):
    X, y = int_problem(rng, 50)
    m = KernelPerceptron(kernel="linear", random_state=0)
    m.partial_fit(X, y, classes=[0, 1], sample_weight=np.full(50, 2.0))
    assert np.abs(m.dual_coef_).sum() == 2 * m.mistakes_.sum()
    with pytest.raises(ValueError, match="balanced"):
        KernelPerceptron(class_weight="balanced").partial_fit(X, y, classes=[0, 1])


def test_exponents_in_int16_up_to_32767_bits_int32_beyond(model_backend, rng):
    from perceptron_c.kernels._rows import exponent_dtype, exponents

    assert exponent_dtype(32767) == np.int16 and exponent_dtype(32768) == np.int32
    for n_bits in (32767, 33000):
        B = (rng.random((24, n_bits)) < 0.9).astype(np.uint8)  # ~29700 ones in common
        y = rng.integers(0, 2, 24)
        E = exponents(pack_bits(B), pack_bits(B))
        assert E.dtype == exponent_dtype(n_bits)
        assert np.array_equal(E, gram(B, kernel="conjunction", log2=True))
        for mgb in (BIG, 300):
            m = KernelPerceptron(kernel="conjunction", max_iter=3, random_state=0,
                                 max_gram_bytes=mgb).fit(B, y)
            ref = reference_fit(E.tolist(), y, 2, m._seed, 3, exact=True)
            assert_model_is(m, ref, True)


def test_decisions_from_many_threads_are_the_serial_ones():
    # 8 threads predicting with one fitted model at once: the same bits as one call alone
    # (when the products were BLAS's, 6 of 16 calls differed in the last bits: each thread's
    # limit on BLAS's threads undid another's)
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000 // SCALE, 200))
    y = (X[:, 0] + X[:, 1] ** 2 > 1).astype(int)
    model = KernelPerceptron(kernel="rbf", gamma=0.005, max_iter=2,
                             random_state=0).fit(X[:800 // SCALE], y[:800 // SCALE])
    want = model.decision_function(X)
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: model.decision_function(X), range(16)))
    assert sum(not np.array_equal(g, want) for g in got) == 0
