"""Kernel routines on both twins, the kernels model layer, and the kernel theory it rests on."""
import itertools

import numpy as np
import pytest
from conftest import NO_EXTENSIONS, _module, dot4_gram, routine_fixtures

from perceptron_c import _backend
from perceptron_c import kernels as K
from perceptron_c.kernels import PackedBits, gram, pack_bits, unpack_bits

HAVE_BITWISE_COUNT = hasattr(np, "bitwise_count")  # numpy >= 2.0
BYTE_POPCOUNT = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)


def numpy_popcount(words):
    """Set bits per element of a uint64 array, by numpy alone: np.bitwise_count, or before
    numpy 2 a table of the 256 bytes' counts summed over each word's 8 bytes."""
    if HAVE_BITWISE_COUNT:
        return np.bitwise_count(words)
    return BYTE_POPCOUNT[words.view(np.uint8)].reshape(*words.shape, 8).sum(-1)


kernels_backend, kernels_twins = routine_fixtures("_gram")


def random_words(rng, n, n_bits, density=0.5):
    X = (rng.random((n, n_bits)) < density).astype(np.uint8)
    return X, pack_bits(X).words


def python_int_popcount_gram(X01, Y01):
    """Reference: each row as one Python int, popcount of the AND."""
    def as_int(row):
        return sum(1 << i for i, v in enumerate(row) if v)
    A = [as_int(r) for r in X01]
    B = [as_int(r) for r in Y01]
    return np.array([[(a & b).bit_count() for b in B] for a in A], dtype=np.int64)


# ---- routines, on each twin ---------------------------------------------------------------

BITS = [1, 2, 63, 64, 65, 127, 128, 130, 200]


@pytest.mark.parametrize("n_bits", BITS)
def test_popcount_gram_matches_python_ints(kernels_backend, rng, n_bits):
    X, A = random_words(rng, 7, n_bits)
    Y, B = random_words(rng, 5, n_bits, density=0.7)
    out = np.full((7, 5), -1, dtype=np.int64)
    kernels_backend.gram_conjunction_log2(A, B, out)
    assert np.array_equal(out, python_int_popcount_gram(X, Y))
    assert np.array_equal(out, X.astype(np.int64) @ Y.T.astype(np.int64))


@pytest.mark.parametrize("n_bits", [1, 17, 64, 100, 1024, 1000, 4096, 4095])
def test_popcount_gram_matches_numpy(kernels_backend, rng, n_bits):
    n = 9 if kernels_backend.popcount_impl() == "python" else 23
    _, A = random_words(rng, n, n_bits)
    _, B = random_words(rng, n - 4, n_bits)
    out = np.empty((n, n - 4), dtype=np.int64)
    kernels_backend.gram_conjunction_log2(A, B, out)
    ref = numpy_popcount(A[:, None, :] & B[None, :, :]).sum(-1)
    assert np.array_equal(out, ref)


@pytest.mark.skipif(NO_EXTENSIONS, reason="the C twin is not built")
@pytest.mark.parametrize("n_words", [1, 3, 4, 7, 8, 9, 16, 31, 64, 257, 300])
def test_every_popcount_path_agrees(rng, n_words):
    """Each compiled path the CPU supports (builtin, popcnt, avx2, avx512) gives one answer,
    over word counts that hit every tail (vector width, 31-step byte flush, 256-word tile)."""
    C = _module("c", "_gram")
    A = rng.integers(0, 2**63, size=(13, n_words), dtype=np.uint64) * np.uint64(2) + \
        rng.integers(0, 2, size=(13, n_words), dtype=np.uint64)
    B = A[3:12][::-1].copy()
    B[0] = ~np.uint64(0)
    outs = {}
    old = C.popcount_impl()
    try:
        for impl in C.available_popcount_impls():
            C.set_popcount_impl(impl)
            out = np.empty((13, 9), dtype=np.int64)
            C.gram_conjunction_log2(A, B, out)
            outs[impl] = out
    finally:
        C.set_popcount_impl(old)
    assert "builtin" in outs
    ref = python_int_popcount_gram(unpack_bits(A, 64 * n_words), unpack_bits(B, 64 * n_words))
    for impl, out in outs.items():
        assert np.array_equal(out, ref), impl


@pytest.mark.skipif(NO_EXTENSIONS, reason="the C twin is not built")
def test_popcount_impl_names():
    C = _module("c", "_gram")
    assert C.popcount_impl() in C.available_popcount_impls()
    assert C.available_popcount_impls()[0] == "builtin"
    with pytest.raises(ValueError, match="popcount implementation"):
        C.set_popcount_impl("sse9")
    P = _module("python", "_gram")
    assert P.popcount_impl() == "python" and P.available_popcount_impls() == ("python",)


def test_pack_rows_layout(kernels_backend):
    X = np.zeros((2, 130), dtype=np.uint8)
    X[0, [0, 5, 63]] = 1
    X[1, [64, 129]] = 1
    words = np.full((2, 3), 7, dtype=np.uint64)
    kernels_backend.pack_rows(X, words)
    expect = np.array([[1 | 1 << 5 | 1 << 63, 0, 0], [0, 1, 2]], dtype=np.uint64)
    assert np.array_equal(words, expect)


def test_routine_shape_errors(kernels_backend):
    A = np.zeros((3, 2), dtype=np.uint64)
    with pytest.raises(ValueError, match="same number of words"):
        kernels_backend.gram_conjunction_log2(A, np.zeros((3, 1), np.uint64),
                                              np.zeros((3, 3), np.int64))
    with pytest.raises(ValueError, match="out must have shape"):
        kernels_backend.gram_conjunction_log2(A, A, np.zeros((3, 2), np.int64))
    with pytest.raises(ValueError, match="words_out"):
        kernels_backend.pack_rows(np.zeros((3, 65), np.uint8), np.zeros((3, 1), np.uint64))


def test_twins_agree_exactly(kernels_twins, rng):
    C, P = kernels_twins
    for n_bits in (5, 64, 190):
        X = (rng.random((11, n_bits)) < 0.4).astype(np.uint8)
        wc, wp = (np.empty((11, (n_bits + 63) // 64), np.uint64) for _ in range(2))
        C.pack_rows(X, wc)
        P.pack_rows(X, wp)
        assert np.array_equal(wc, wp)
        oc, op = np.empty((11, 11), np.int64), np.empty((11, 11), np.int64)
        C.gram_conjunction_log2(wc, wc, oc)
        P.gram_conjunction_log2(wp, wp, op)
        assert np.array_equal(oc, op)
    X = rng.normal(size=(9, 6))
    Y = rng.normal(size=(4, 6))
    for name, args in (("gram_linear", ()), ("gram_poly", (3, 0.5, 1.0)), ("gram_rbf", (0.3,))):
        oc, op = np.empty((9, 4)), np.empty((9, 4))
        getattr(C, name)(X, Y, *args, oc)
        getattr(P, name)(X, Y, *args, op)
        assert np.array_equal(oc, op), name


# ---- model layer ----------------------------------------------------------------------------

@pytest.mark.parametrize("n_bits", [1, 7, 64, 65, 200])
def test_pack_unpack_round_trip(model_backend, rng, n_bits):
    X = (rng.random((6, n_bits)) < 0.5).astype(np.uint8)
    P = pack_bits(X)
    assert isinstance(P, PackedBits) and P.n_bits == n_bits
    assert P.words.shape == (6, (n_bits + 63) // 64) and P.words.dtype == np.uint64
    back = unpack_bits(*P)
    assert back.dtype == np.uint8 and np.array_equal(back, X)
    assert np.array_equal(pack_bits(X.astype(bool)).words, P.words)
    assert np.array_equal(pack_bits(X.astype(np.float32)).words, P.words)


def test_conjunction_gram_packed_or_not(model_backend, rng):
    X = (rng.random((8, 90)) < 0.5).astype(np.int64)
    Y = (rng.random((5, 90)) < 0.5).astype(bool)
    G = gram(X, Y, kernel="conjunction")
    assert G.dtype == np.float64 and G.shape == (8, 5)
    assert np.array_equal(G, 2.0 ** (X @ Y.T.astype(np.int64)))
    assert np.array_equal(gram(pack_bits(X), pack_bits(Y), kernel="conjunction"), G)
    assert np.array_equal(gram(pack_bits(X), Y, kernel=K.Conjunction()), G)
    L = gram(X, Y, kernel="conjunction", log2=True)
    assert L.dtype == np.int64 and np.array_equal(L, X @ Y.T.astype(np.int64))
    # PackedBits are accepted by the float kernels too (unpacked to 0/1 floats).
    assert np.array_equal(gram(pack_bits(X), kernel="linear"), gram(X.astype(float)))


def phi_all_monotone_conjunctions(x):
    """Columbia notes: one coordinate per subset S of the variables (the empty conjunction
    included), equal to AND_{i in S} x_i."""
    n = len(x)
    return np.array([all(x[i] for i in S) for r in range(n + 1)
                     for S in itertools.combinations(range(n), r)], dtype=np.float64)


@pytest.mark.parametrize("n", [1, 3, 8, 12])
def test_conjunction_kernel_is_the_feature_map_inner_product(model_backend, rng, n):
    """Claim 2.1: Phi(a) . Phi(b) = 2^|Ones(a, b)|."""
    X = (rng.random((5 if n == 12 else 8, n)) < 0.6).astype(np.uint8)
    Phi = np.array([phi_all_monotone_conjunctions(x) for x in X])
    assert Phi.shape[1] == 2 ** n
    assert np.array_equal(gram(X, kernel="conjunction"), Phi @ Phi.T)


def test_quadratic_kernel_is_the_feature_map_inner_product(model_backend, rng):
    """Ohio slides: (1 + x.y)^2 = phi(x).phi(y) with phi = (1, sqrt2 x_i, x_i^2,
    sqrt2 x_i x_j for i < j)."""
    X = rng.integers(-3, 4, size=(7, 4)).astype(float)

    def phi(x):
        pairs = [np.sqrt(2) * x[i] * x[j] for i, j in itertools.combinations(range(len(x)), 2)]
        return np.concatenate([[1.0], np.sqrt(2) * x, x ** 2, pairs])

    Phi = np.array([phi(x) for x in X])
    G = gram(X, kernel="poly", degree=2, gamma=1.0, coef0=1.0)
    assert np.array_equal(G, (1 + X @ X.T) ** 2)
    np.testing.assert_allclose(G, Phi @ Phi.T, rtol=1e-12)


def _psd_kernels():
    lin, poly, rbf, conj = K.Linear(), K.Polynomial(2, 0.5, 1.0), K.RBF(0.7), K.Conjunction()
    return {
        "linear": lin, "poly": poly, "poly3": K.Polynomial(), "rbf": rbf, "rbf_default": K.RBF(),
        "conjunction": conj, "sum": lin + rbf, "product": poly * rbf, "scaled": 3.5 * poly,
        "scaled_right": rbf * 0.25, "sum_conj": conj + 2 * lin, "product_conj": conj * poly,
        "nested": K.Sum(K.Product(lin, rbf), K.Scaled(0.5, poly)),
    }


@pytest.mark.parametrize("name", sorted(_psd_kernels()))
def test_gram_is_symmetric_psd(model_backend, rng, name):
    k = _psd_kernels()[name]
    X = (rng.random((25, 10)) < 0.5).astype(float)  # 0/1 so the conjunction kernel applies
    X[:, :3] += 0.0 if "conj" in name else rng.normal(size=(25, 3))
    G = k(X)
    assert G.shape == (25, 25) and G.dtype == np.float64
    assert np.array_equal(G, G.T)
    ev = np.linalg.eigvalsh(G)
    assert ev[0] >= -1e-9 * ev[-1]
    assert np.array_equal(gram(X, kernel=k), G)


def test_names_and_defaults(model_backend, rng):
    X = rng.normal(size=(6, 4))
    Y = rng.normal(size=(3, 4))
    dots = dot4_gram(X, Y)  # the 4-lane dots, not BLAS's sums
    assert np.array_equal(gram(X, Y), dots)
    np.testing.assert_allclose(gram(X, Y), X @ Y.T, rtol=1e-13, atol=1e-14)
    assert np.array_equal(gram(X, Y, kernel="poly"), (dots + 1) * ((dots + 1) * (dots + 1)))
    d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(gram(X, Y, kernel="rbf"), np.exp(-d2 / 4), rtol=1e-12)
    np.testing.assert_allclose(gram(X, Y, kernel="rbf", gamma=2.0), np.exp(-2 * d2),
                               rtol=1e-10, atol=1e-300)
    assert np.array_equal(np.diag(gram(X, kernel="rbf")), np.ones(6))
    assert isinstance(K.get_kernel("poly", degree=2), K.Polynomial)
    k = K.RBF(0.5)
    assert K.get_kernel(k) is k
    f = K.get_kernel(lambda A, B: np.asarray(A) @ np.asarray(B).T)
    assert np.array_equal(f(X, Y), X @ Y.T)
    assert np.array_equal(gram(X, Y, kernel=lambda A, B: A @ B.T + 1), X @ Y.T + 1)
    assert 2 * K.Linear() == K.Scaled(2, K.Linear())


def test_matches_scikit_learn(rng):
    pairwise = pytest.importorskip("sklearn.metrics.pairwise")
    X = rng.normal(size=(20, 7))
    Y = rng.normal(size=(9, 7))
    np.testing.assert_allclose(gram(X, Y, kernel="poly", degree=3, gamma=0.2, coef0=1.0),
                               pairwise.polynomial_kernel(X, Y, 3, 0.2, 1.0), rtol=1e-12)
    np.testing.assert_allclose(gram(X, Y, kernel="rbf", gamma=0.1),
                               pairwise.rbf_kernel(X, Y, gamma=0.1), rtol=1e-12)


def test_overflow(model_backend):
    X = np.zeros((3, 1100), dtype=np.uint8)
    X[0, :1023] = 1
    X[1, :1023] = 1
    assert gram(X, kernel="conjunction")[0, 1] == 2.0 ** 1023  # the largest that fits
    X[1, 1023] = 1
    X[2, :1024] = 1
    with pytest.raises(OverflowError, match="log2=True"):
        gram(X, kernel="conjunction")
    with pytest.raises(OverflowError, match="log2=True"):
        gram(pack_bits(X), kernel="conjunction")
    L = gram(X, kernel="conjunction", log2=True)
    assert L.dtype == np.int64 and L[1, 2] == 1024 and L[0, 1] == 1023
    # 2^1023 + 2^1023 overflows in a sum of kernels: also an OverflowError, not inf.
    with pytest.raises(OverflowError):
        gram(X[:2, :1023], kernel=K.Conjunction() + K.Conjunction())


@pytest.mark.parametrize("bad, match", [
    (np.array([[0, 2], [1, 0]]), "0/1 values"),
    (np.array([[0.5, 1.0]]), "0/1 values"),
    (np.array([[np.nan, 1.0]]), "NaN"),
    (np.array([0, 1, 1]), "2-D"),
])
def test_conjunction_rejects_non_binary(model_backend, bad, match):
    with pytest.raises(ValueError, match=match):
        gram(bad, kernel="conjunction")
    with pytest.raises(ValueError, match=match):
        pack_bits(bad)


def test_bad_input_errors(model_backend):
    X = np.ones((3, 4))
    with pytest.raises(ValueError, match="gamma"):
        gram(X, kernel="rbf", gamma=0)
    with pytest.raises(ValueError, match="gamma"):
        gram(X, kernel="poly", gamma=-1.0)
    with pytest.raises(ValueError, match="gamma"):
        K.RBF(gamma=float("nan"))
    with pytest.raises(ValueError, match="degree"):
        gram(X, kernel="poly", degree=0)
    with pytest.raises(TypeError, match="degree"):
        gram(X, kernel="poly", degree=2.5)
    with pytest.raises(TypeError, match="degree"):
        K.Polynomial(degree=True)
    with pytest.raises(ValueError, match="coef0"):
        K.Polynomial(coef0=-1)
    with pytest.raises(ValueError, match="c must be"):
        K.Scaled(0, K.Linear())
    with pytest.raises(ValueError, match="c must be"):
        -1 * K.Linear()
    with pytest.raises(ValueError, match="X: input contains NaN"):
        gram(np.array([[np.nan, 1.0]]), kernel="linear")
    with pytest.raises(ValueError, match="Y: input contains inf"):
        gram(X, np.array([[np.inf, 1, 1, 1]]), kernel="rbf")
    with pytest.raises(ValueError, match="same number of features"):
        gram(X, np.ones((2, 5)), kernel="poly")
    with pytest.raises(ValueError, match="same number of features"):
        gram(np.ones((2, 64)), np.ones((2, 65)), kernel="conjunction")
    with pytest.raises(ValueError, match="kernel must be one of"):
        gram(X, kernel="sigmoid")
    with pytest.raises(ValueError, match="takes no parameter"):
        gram(X, kernel="linear", gamma=1.0)
    with pytest.raises(ValueError, match="apply only to kernel names"):
        K.get_kernel(K.Linear(), degree=2)
    with pytest.raises(TypeError, match="unexpected keyword"):
        gram(X, kernel="rbf", gama=1.0)
    with pytest.raises(ValueError, match="log2=True applies only"):
        gram(X, kernel="linear", log2=True)
    with pytest.raises(TypeError, match="kernel"):
        K.Sum(K.Linear(), 3)
    with pytest.raises(ValueError, match="returned shape"):
        gram(X, kernel=lambda A, B: np.ones((2, 2)))
    with pytest.raises(TypeError, match="expected a 2-D array"):
        gram("abc", kernel="linear")


def test_bad_packed_bits(model_backend):
    words = np.zeros((2, 2), dtype=np.uint64)
    with pytest.raises(ValueError, match="words per row"):
        gram(PackedBits(words, 10), kernel="conjunction")
    with pytest.raises(ValueError, match="n_bits"):
        unpack_bits(words, 0)
    with pytest.raises(TypeError, match="uint64"):
        gram(PackedBits(words.astype(np.int64), 100), kernel="conjunction")
    words[0, 1] = np.uint64(1) << np.uint64(40)
    with pytest.raises(ValueError, match="padding bits"):
        gram(PackedBits(words, 100), kernel="conjunction")


def test_backend_using_swaps_kernels():
    before = _backend.gram
    with _backend.using("python"):
        assert _backend.gram.__name__ == "perceptron_c._core._gram_py"
        assert _backend.linear.__name__ == "perceptron_c._core._linear_py"
    assert _backend.gram is before
    if not NO_EXTENSIONS:
        with _backend.using("c"):
            assert _backend.gram.__name__ == "perceptron_c._core._gram_c"


def test_a_subclass_of_a_builtin_kernel_is_not_written_as_the_builtin(rng, tmp_path):
    # its values are its own: written as the built-in it derives from, the model file would
    # read back as that kernel (or not at all); it is refused when the model is saved
    class Sharper(K.RBF):
        def __call__(self, X, Y=None, n_jobs=None):
            return super().__call__(X, Y, n_jobs) ** 2

    with pytest.raises(TypeError, match="Sharper .*cannot be written to a model file"):
        K.kernel_to_spec(Sharper(gamma=0.5))
    with pytest.raises(TypeError, match="cannot be written to a model file"):
        K.kernel_to_spec(K.Sum(K.Linear(), Sharper(gamma=0.5)))
    assert K.kernel_to_spec(K.RBF(gamma=0.5)) == ["RBF", 0.5]
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    import perceptron_c

    model = perceptron_c.KernelPerceptron(kernel=Sharper(gamma=0.5), max_iter=50).fit(X, y)
    with pytest.raises(TypeError, match="cannot be written to a model file"):
        model.save(tmp_path / "sharper")
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_resolve_kernel_names_its_pair():
    spec = K.resolve_kernel("rbf", gamma=0.5)
    assert isinstance(spec, K.KernelSpec) and spec.kind == "float" and spec.kernel == K.RBF(0.5)
    kind, kern = K.resolve_kernel("conjunction")  # still the pair it was
    assert (kind, kern) == ("conjunction", K.Conjunction())
    assert K.resolve_kernel("precomputed") == K.KernelSpec("precomputed", None)
