"""The float Gram's products: every entry the 4-lane dot, on every path this CPU has."""
import numpy as np
import pytest
from conftest import HAVE_C, _module, dot4, dot4_gram

gram_py = _module("python", "_gram")


@pytest.fixture
def dot_paths():
    """Each product path of the C twin this CPU runs (portable, SSE2/NEON, AVX2, AVX-512), in turn;
    the test sets each (and each loop nest, `loop_nests`)."""
    c = _module("c", "_gram")
    before = c._set_dot_path(c._dot_paths()[-1])
    packed = c._set_dot_packing(True)
    yield c, c._dot_paths()
    c._set_dot_path(before)
    c._set_dot_packing(packed)


def loop_nests(c, paths):
    """(path, packed) for every path and both loop nests of _dot.h, each set in turn."""
    for path in paths:
        for packed in (True, False):
            c._set_dot_path(path)
            c._set_dot_packing(packed)
            yield path, packed


def _rows(rng, m, d):
    """Rows whose products differ in scale by 2^40: every order of summing rounds apart."""
    return rng.normal(size=(m, d)) * np.exp2(rng.integers(-20, 21, size=(m, d)))


SHAPES = [(1, 1, 1), (2, 3, 2), (3, 4, 3), (4, 5, 4), (5, 9, 5), (7, 13, 6), (8, 8, 7),
          (13, 17, 8), (6, 5, 9), (31, 29, 33), (3, 70, 1), (70, 3, 11)]


@pytest.mark.parametrize("m,n,d", SHAPES)
def test_python_twin_is_the_contract(rng, m, n, d):
    X, Y = _rows(rng, m, d), _rows(rng, n, d)
    out = np.empty((m, n))
    gram_py._dot4_products(X, Y, out)
    assert np.array_equal(out, dot4_gram(X, Y))
    assert np.array_equal(gram_py.row_sqnorms(X), [dot4(x, x) for x in X])


@pytest.mark.skipif(not HAVE_C, reason="the C core is not in use")
@pytest.mark.parametrize("same", [False, True])
def test_every_path_computes_the_contract(dot_paths, rng, same):
    # every tile shape of every path and their edges (rows and columns left over, the
    # tail of d past a multiple of 4), against the Python twin, bit for bit
    c, paths = dot_paths
    for m, n, d in SHAPES + [(40, 37, 130), (300, 7, 3), (5, 400, 17)]:
        X = _rows(rng, m, d)
        Y = X if same else _rows(rng, n, d)
        ref = np.empty((m, Y.shape[0]))
        gram_py._products(X, Y, ref)
        for path, packed in loop_nests(c, paths):
            for threads in (1, 2):
                out = np.full_like(ref, np.nan)
                c._products(X, Y, out, threads)
                assert np.array_equal(out, ref), (path, packed, m, n, d, threads)
            assert np.array_equal(c.row_sqnorms(X), gram_py.row_sqnorms(X)), path
        if same:
            assert np.array_equal(ref, ref.T)


@pytest.mark.skipif(not HAVE_C, reason="the C core is not in use")
def test_paths_on_many_blocks_and_odd_strides(dot_paths, rng):
    # a product of several row blocks (product_blocks) and panels of Y (_dot.h's
    # PC_DOT_PANEL_BYTES): 3000 columns of 700 features is over 16 MB of Y
    c, paths = dot_paths
    X, Y = rng.normal(size=(45, 700)), rng.normal(size=(3000, 700))
    ref = np.empty((45, 3000))
    gram_py._products(X, Y, ref)
    assert len(gram_py.product_blocks(45, 3000, 700)) > 1
    for path, packed in loop_nests(c, paths):
        out = np.empty_like(ref)
        c._products(X, Y, out, 2)
        assert np.array_equal(out, ref), (path, packed)


@pytest.mark.skipif(not HAVE_C, reason="the C core is not in use")
@pytest.mark.parametrize("same", [False, True])
def test_packed_products_carry_the_lane_sums_across_k_blocks(dot_paths, rng, same):
    # _dot.h's packed loop (16 rows of X or more): d up to and past one k-block (PC_DOT_KC,
    # 256) and its tails, strips and tiles cut short by the ends of X and Y, several panels
    # of Y (PC_DOT_NC, 128) and chunks of columns, a symmetric product of several blocks
    c, paths = dot_paths
    for m, n, d in [(16, 5, 256), (17, 130, 257), (33, 129, 515), (70, 300, 1030),
                    (130, 260, 4), (200, 3, 9)]:
        X = _rows(rng, m, d)
        Y = X if same else _rows(rng, n, d)
        ref = np.empty((m, Y.shape[0]))
        gram_py._products(X, Y, ref)
        for path in paths:
            c._set_dot_path(path)
            for threads in (1, 2):
                out = np.full_like(ref, np.nan)
                c._products(X, Y, out, threads)
                assert np.array_equal(out, ref), (path, m, n, d, threads)


@pytest.mark.skipif(not HAVE_C, reason="the C core is not in use")
def test_set_dot_packing_returns_the_setting_it_replaces(dot_paths):
    c, _ = dot_paths
    assert c._set_dot_packing(False) is True
    assert c._set_dot_packing(True) is False


@pytest.mark.skipif(not HAVE_C, reason="the C core is not in use")
def test_empty_and_featureless(dot_paths):
    c, paths = dot_paths
    for path in paths:
        c._set_dot_path(path)
        for m, n, d in ((0, 3, 4), (3, 0, 4), (4, 5, 0), (0, 0, 0)):
            X, Y = np.ones((m, d)), np.ones((n, d))
            out, ref = np.full((m, n), np.nan), np.full((m, n), np.nan)
            c._products(X, Y, out)
            gram_py._products(X, Y, ref)
            assert np.array_equal(out, ref) and np.array_equal(out, np.zeros((m, n)))
            assert np.array_equal(c.row_sqnorms(X), np.full(m, float(d)))


def test_set_dot_path_refuses_what_the_cpu_lacks():
    c = _module("c", "_gram")
    with pytest.raises(ValueError, match="not supported by this CPU"):
        c._set_dot_path("avx9")
    assert c._dot_paths()[0] == "portable"


@pytest.mark.parametrize("degree", range(1, 10))
def test_int_power_is_squaring(rng, degree):
    # x ** degree by squaring, each product rounded: no pow (its last bit depends on libm
    # and on numpy's SIMD path)
    x = rng.normal(size=50) * 3
    want = []
    for v in x.tolist():
        result, base, k = None, v, degree
        while k:
            if k & 1:
                result = base if result is None else result * base
            k >>= 1
            base = base * base
        want.append(result)
    got = x.copy()
    gram_py.int_power(got, degree)
    assert np.array_equal(got, want)
