"""The RBF kernel's elementwise part (``_rbf.h``): on every compiled path (portable, SSE2, AVX2,
whichever this CPU has) `exp_nonpositive` gives the Python twin's bits on every kind of
argument, within 2 ulps of the correctly rounded exp, and the RBF Gram agrees between the
twins, also where its distances are recomputed from the differences (duplicate and huge
rows, and more of them than the C twin keeps positions for)."""
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import BACKENDS, _module


def _arguments(rng):
    return np.concatenate([
        -rng.random(20000) * 800.0,                  # every scale of result, to 0
        -rng.random(5000) * 1e-6,                    # near 1
        -rng.exponential(1.0, 5000),
        -(700.0 + rng.random(5000) * 50.0),          # subnormal results and underflow
        -np.ldexp(rng.random(1000), -rng.integers(0, 1074, 1000)),  # tiny arguments
        np.array([0.0, -0.0, -np.inf, -1e308, -800.0, -745.13321910194122, -708.3964185322641,
                  -707.7, -0.34657359027997264, -math.log(2) * 1021]),
    ])


def _exact_exp_ulps(values, x):
    """ulps between each value and math.exp(x) (itself within 1 ulp of exp(x) in glibc)."""
    ref = np.array([math.exp(v) for v in x])
    return np.where(ref == 0, np.where(values == 0, 0.0, np.inf),
                    np.abs(values - ref) / np.spacing(np.where(ref == 0, 1.0, ref)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_close_to_exp_and_exact_where_it_must_be(backend, rng):
    m = _module(backend, "_gram")
    x = _arguments(rng)
    y = x.copy()
    m.exp_nonpositive(y)
    assert np.max(_exact_exp_ulps(y, x)) <= 2.0
    assert y[-10] == 1.0 and y[-9] == 1.0 and y[-8] == 0.0 and y[-7] == 0.0
    assert np.all(np.diff(y[np.argsort(x)]) >= 0)  # monotone on these arguments
    empty = np.empty(0)
    m.exp_nonpositive(empty)
    for bad in (np.zeros(3, np.float32), np.zeros((4, 4))[:, 1]):
        with pytest.raises(ValueError, match="C-contiguous float64"):
            m.exp_nonpositive(bad)


@pytest.fixture
def every_rbf_path():
    """The C twin's _gram module and the name of each RBF path this CPU has, in turn."""
    C = _module("c", "_gram")
    assert C._rbf_paths()[0] == "portable"
    before = C._set_rbf_path(C._rbf_paths()[-1])
    try:
        yield C, C._rbf_paths()
    finally:
        C._set_rbf_path(before)


def test_every_path_gives_the_twins_bits(rng, every_rbf_path):
    C, paths = every_rbf_path
    P = _module("python", "_gram")
    x = np.concatenate([_arguments(rng), [np.nan, -np.nan, 1e-300, 0.5]])  # and off-domain
    expect = x.copy()
    P.exp_nonpositive(expect)
    for path in paths:
        C._set_rbf_path(path)
        for n in (len(x), 1, 2, 3, 5, 7):  # tails of every length of the vector paths
            for start in (0, 1, 3):
                got = x[start:start + n].copy()
                C.exp_nonpositive(got)
                assert np.array_equal(got, expect[start:start + n], equal_nan=True), path
    with pytest.raises(ValueError, match="not supported"):
        C._set_rbf_path("avx1024")


def test_the_polynomial_error_bound():
    # |r| <= ln 2 / 2 + 2^-40: the first Taylor term left out is below 2^-57, 0.03 ulp of
    # exp(r) >= 0.7
    r = Fraction(math.log(2)) / 2 + Fraction(1, 2**40)
    assert r ** 14 / math.factorial(14) < Fraction(1, 2**57)


def test_rbf_gram_twins_agree_on_every_path(rng, every_rbf_path):
    C, paths = every_rbf_path
    P = _module("python", "_gram")
    for path in paths:
        C._set_rbf_path(path)
        for m, n, d in ((1, 1, 1), (3, 5, 2), (37, 29, 11), (64, 203, 40)):
            X, Y = rng.normal(size=(m, d)) * rng.exponential(3.0), rng.normal(size=(n, d))
            for A, B in ((X, Y), (X, X)):
                oc, op = np.empty((A.shape[0], B.shape[0])), np.empty((A.shape[0], B.shape[0]))
                gamma = float(rng.exponential(0.5))
                C.gram_rbf(A, B, gamma, oc)
                P.gram_rbf(A, B, gamma, op)
                assert np.array_equal(oc, op), (path, m, n, d)


def test_rbf_gram_twins_agree_where_distances_are_recomputed(rng, every_rbf_path):
    C, paths = every_rbf_path
    P = _module("python", "_gram")
    X = rng.normal(size=(300, 7))
    X[50:60] = X[0]                        # duplicates: distance 0 recomputed, not cancelled
    X[100:110] = X[1] + 1e-9               # near duplicates
    X[200] *= 1e160                        # huge: the expansion overflows
    Y = np.vstack([X[:40], rng.normal(size=(20, 7))])
    for path, (A, B), n_jobs in itertools.product(paths, ((X, X), (X, Y)), (None, 2)):
        C._set_rbf_path(path)
        oc, op = np.empty((A.shape[0], B.shape[0])), np.empty((A.shape[0], B.shape[0]))
        C.gram_rbf(A, B, 0.7, oc, n_jobs=n_jobs)
        P.gram_rbf(A, B, 0.7, op)
        assert np.array_equal(oc, op), path
        assert np.all(np.isfinite(oc)) and np.all((oc >= 0) & (oc <= 1))
        assert oc[50, 0] == 1.0 and oc[0, 50 if B is X else 0] == 1.0  # duplicates
    # every distance overflows the expansion: more entries to recompute than the C twin keeps
    # positions for, so whole rows wait for them (the slow path)
    H = rng.normal(size=(120, 3)) * 1e160
    H[5] = H[7]
    oc, op = np.empty((120, 120)), np.empty((120, 120))
    P.gram_rbf(H, H, 1e-321, op)
    for path in paths:
        C._set_rbf_path(path)
        C.gram_rbf(H, H, 1e-321, oc)
        assert np.array_equal(oc, op) and oc[5, 7] == 1.0 and 0.0 < oc.min() < 1.0


def _outcome(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except (ValueError, TypeError, MemoryError) as exc:
        return type(exc), str(exc)
    return None


def test_rbf_gram_twins_agree_off_the_estimators_inputs(rng):
    # what no estimator passes but the low-level routines take: non-finite rows (NaN
    # differences: numpy's max is NaN), no feature (the twin's max over nothing raises),
    # given norms, and the same errors in the same words
    C, P = _module("c", "_gram"), _module("python", "_gram")
    X = rng.normal(size=(6, 3))
    X[1, 0], X[2, 1], X[3] = np.inf, -np.inf, np.nan
    Y = np.vstack([X[:3], rng.normal(size=(2, 3))])
    with np.errstate(all="ignore"):
        for A, B, norms in ((X, Y, None), (X, X, None), (Y, Y, (np.ones(5), np.ones(5)))):
            oc, op = np.empty((A.shape[0], B.shape[0])), np.empty((A.shape[0], B.shape[0]))
            C.gram_rbf(A, B, 0.5, oc, norms=norms)
            P.gram_rbf(A, B, 0.5, op, norms=norms)
            assert np.array_equal(oc, op, equal_nan=True)
    for A, B, norms in ((np.empty((2, 0)), np.empty((3, 0)), None),
                        (np.empty((1, 0)), None, None), (np.empty((3, 0)), None, None),
                        (np.empty((2, 0)), np.empty((2, 0)), (np.ones(2), np.ones(2))),
                        (X, Y, (np.ones(6), np.ones(4))), (X, Y, (np.ones(6), np.ones(5, np.int8))),
                        (X, X[:, :2], None)):
        B = A if B is None else B
        outs = [np.full((A.shape[0], B.shape[0]), 7.0) for _ in range(2)]
        with np.errstate(all="ignore"):
            got = [_outcome(m.gram_rbf, A, B, 0.5, o, norms=norms)
                   for m, o in zip((C, P), outs)]
        assert got[0] == got[1], (A.shape, B.shape, norms)
        if got[0] is None:
            assert np.array_equal(outs[0], outs[1])


def test_gram_checks_are_the_twins(rng):
    C, P = _module("c", "_gram"), _module("python", "_gram")
    words = rng.integers(0, 2**63, size=(3, 600), dtype=np.uint64)  # 38400 bits
    narrow = np.ascontiguousarray(words[:, :2])
    for A, B, out, n_jobs in (
            (words, words, np.empty((3, 3), np.int16), None),
            (narrow, narrow, np.empty((3, 3), np.int16), None),
            (words | ~words, words, np.empty((3, 3), np.int16), None),
            (words | ~words, words | ~words, np.empty((3, 3), np.int16), None),
            (words, narrow, np.empty((3, 3), np.int64), None),
            (words, words, np.empty((3, 3), np.float64), None),
            (words, words, np.empty((3, 2), np.int64), None),
            (words, words, np.empty((3, 3), np.int64), 0),
            (words, words, np.empty((3, 3), np.int64), True),
            (words, words, np.empty((3, 3), np.int64), np.int64(-1))):
        outs = [out.copy(), out.copy()]
        got = [_outcome(m.gram_conjunction_log2, A, B, o, n_jobs=n_jobs)
               for m, o in zip((C, P), outs)]
        assert got[0] == got[1]
        if got[0] is None:
            assert np.array_equal(outs[0], outs[1])
    X = rng.normal(size=(4, 3))
    for Y, out in ((X, np.empty((4, 4), np.float32)), (X[:, :2], np.empty((4, 4))),
                   (X, np.empty((4, 3)))):
        for name in ("gram_linear", "gram_rbf"):
            args = (X, Y, 0.5) if name == "gram_rbf" else (X, Y)
            got = [_outcome(getattr(m, name), *args, out.copy()) for m in (C, P)]
            assert got[0] == got[1] and got[0] is not None


@pytest.mark.parametrize("degree", [1, 2, 3, 7, 20])
def test_poly_gram_twins_agree_to_overflow(rng, degree):
    C, P = _module("c", "_gram"), _module("python", "_gram")
    X = rng.normal(size=(9, 5)) * rng.exponential(40.0, size=(9, 1))
    for A, B, n_jobs in ((X, X, None), (X, X[:4], 2), (X[:1], X, None)):
        oc, op = np.empty((A.shape[0], B.shape[0])), np.empty((A.shape[0], B.shape[0]))
        with np.errstate(over="ignore"):
            C.gram_poly(A, B, degree, 0.3, 1.5, oc, n_jobs=n_jobs)
            P.gram_poly(A, B, degree, 0.3, 1.5, op)
        assert np.array_equal(oc, op)
