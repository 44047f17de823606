"""Pure-Python twin of ``_gram_c``: the specification of bit packing and the Gram matrices.

Every function works in place on the numpy arrays it is given, exactly like its C twin of the
same name and signature. Inputs are canonical (see ``kernels`` and ``_validation``):

- 0/1 rows are uint8 C-contiguous 2-D; packed rows are uint64 C-contiguous 2-D with
  ceil(n_bits / 64) words per row, bit i of a row in word i // 64 at bit position i % 64,
  and the padding bits of the last word zero;
- float rows are float64 C-contiguous 2-D; outputs are C-contiguous of shape (n, m).

[Columbia-COMS4252], Claim 2.1: the all-monotone-conjunctions kernel is
K(a, b) = 2^|Ones(a, b)| with |Ones(a, b)| = popcount(a AND b); ``gram_conjunction_log2``
computes the exponent, which is exact in int64 (2^k itself overflows float64 from k = 1024).
The float kernels (linear, polynomial, RBF; [Bunescu-CS4900]: (gamma x.y + coef0)^degree and
exp(-gamma ||x - y||^2)) start from the products x.y, each the 4-lane dot of the package's
arithmetic contract (`_dot4_products`; no BLAS, whose sums change with its kernel and its
thread count), the polynomial's power by squaring (`int_power`, not pow) and the RBF's
exponential by `exp_nonpositive`, a fixed sequence of IEEE operations (not libm's or
numpy's exp, whose last bits differ between platforms and SIMD paths). So every value is the
same on every machine, for any n_jobs. The C twin computes the products in ``_dot.h`` and
the rest of the RBF (norms, clipping, the check for cancellation, the exponential) in one
fused pass, the same operations in the same order per entry.
"""
import math

import numpy as np

from ._contract import (
    check_float,
    check_jobs,
    check_words,
    given_norms,
    product_blocks,
    run_blocks,
)

__all__ = [
    "pack_rows",
    "gram_conjunction_log2",
    "gram_linear",
    "gram_poly",
    "gram_rbf",
    "row_sqnorms",
    "exp_nonpositive",
    "popcount_impl",
    "available_popcount_impls",
    "set_popcount_impl",
]


def max_row_popcount(W: np.ndarray) -> int:
    """The largest number of ones in a row of packed words (0 without rows)."""
    if W.shape[0] == 0 or W.shape[1] == 0:
        return 0
    as_bytes = np.ascontiguousarray(W).view(np.uint8).reshape(W.shape[0], -1)
    return int(np.unpackbits(as_bytes, axis=1).sum(axis=1, dtype=np.int64).max())


def pack_rows(X01_uint8: np.ndarray, words_out_uint64: np.ndarray) -> None:
    """Pack 0/1 rows into uint64 words: bit i of row r -> word i // 64, bit i % 64."""
    n, d = X01_uint8.shape
    nw = (d + 63) // 64
    if words_out_uint64.shape != (n, nw):
        raise ValueError(f"words_out must have shape {(n, nw)}, got {words_out_uint64.shape}")
    for r in range(n):
        for w in range(nw):
            word = 0
            for i in range(w * 64, min(d, w * 64 + 64)):
                if X01_uint8[r, i]:
                    word |= 1 << (i - w * 64)
            words_out_uint64[r, w] = word


def gram_conjunction_log2(A_words: np.ndarray, B_words: np.ndarray, out: np.ndarray, *,
                          n_jobs: int | None = None) -> None:
    """out[i, j] = |Ones(a_i, b_j)| = popcount(a_i AND b_j), summed word by word; out is int16
    (when every popcount is below 2^15), int32 or int64. n_jobs is checked as in the C twin,
    then ignored: one thread computes it all."""
    check_words(A_words, B_words, out, n_jobs, max_row_popcount)
    A = A_words.tolist()  # Python ints: AND and bit_count are exact on 64-bit words
    B = B_words.tolist()
    for i, a in enumerate(A):
        for j, b in enumerate(B):
            ones = 0
            for wa, wb in zip(a, b):
                ones += (wa & wb).bit_count()
            out[i, j] = ones


def popcount_impl() -> str:
    """Which popcount path ``gram_conjunction_log2`` uses: always "python" in this twin."""
    return "python"


def available_popcount_impls() -> tuple[str, ...]:
    """The popcount paths this twin can use on this machine."""
    return ("python",)


def set_popcount_impl(name: str) -> str:
    """Select a popcount path (for tests and benchmarks); returns the previous one."""
    if name not in available_popcount_impls():
        raise ValueError(f"popcount implementation must be one of "
                         f"{available_popcount_impls()}, got {name!r}")
    return "python"


# ---------------------------------------------------------------- float Gram matrices

def _dot4_products(A: np.ndarray, B: np.ndarray, out: np.ndarray) -> None:
    """out[i, j] = dot4(A[i], B[j]) for every pair: the 4-lane dot of the package's
    arithmetic contract (``_contract``): product k of a pair, rounded, is added to lane
    k % 4, each lane in the order of k, and the dot is (s0 + s1) + (s2 + s3). Vectorized over
    the pairs only, so each entry is exactly that sequence of IEEE operations (no BLAS, whose
    sums depend on its kernel and thread count). The C twin is ``_dot.h``."""
    m, n = out.shape
    step = max(1, (1 << 16) // max(1, n))  # bounded temporaries: 4 lanes of a few rows
    for a in range(0, m, step):
        z = min(m, a + step)
        lanes = np.zeros((4, z - a, n))
        prod = np.empty((z - a, n))
        with np.errstate(over="ignore", invalid="ignore"):  # inf and NaN, as in C
            for k in range(A.shape[1]):
                np.multiply(A[a:z, k, None], B[None, :, k], out=prod)
                lanes[k % 4] += prod
            np.add(lanes[0], lanes[1], out=out[a:z])
            out[a:z] += lanes[2] + lanes[3]


def _products(X: np.ndarray, Y: np.ndarray, out: np.ndarray,
              n_threads: int | None = 1) -> None:
    """out = X . Y^T entry by entry (`_dot4_products`), by blocks of rows (`product_blocks`)
    on up to n_threads threads. When Y is X, a block [a, z) computes its rows from column a
    on, and `mirror_lower` then fills the rest: dot4 is symmetric (each product is the same
    both ways), so this is the whole Gram for about half the work."""
    m = out.shape[0]
    sym = Y is X

    def block(a: int, z: int) -> None:
        if sym:
            _dot4_products(X[a:z], X[a:], out[a:z, a:])
        else:
            _dot4_products(X[a:z], Y, out[a:z])
    run_blocks(block, product_blocks(m, out.shape[1], X.shape[1]), n_threads)
    if sym:
        mirror_lower(out, n_threads)


# Entries per block of `mirror_lower`: a few milliseconds.
MIRROR_ENTRIES = 1 << 18


def mirror_lower(out: np.ndarray, n_threads: int | None = 1) -> None:
    """out[i, j] = out[j, i] for every j < i (the upper triangle holds the values), by blocks
    of rows on up to n_threads threads. Each block writes its own rows only: a fresh ``out``
    is first touched (its pages faulted in) across many short blocks, not all in the first
    one, which would hold Ctrl-C up for as long as the whole array takes to map."""
    m = out.shape[0]
    rows = max(1, MIRROR_ENTRIES // max(1, m))

    def block(a: int, z: int) -> None:
        out[a:z, :a] = out[:a, a:z].T
        square = out[a:z, a:z]
        lower = np.tril_indices(z - a, -1)
        square[lower] = square.T[lower]
    run_blocks(block, [(a, min(m, a + rows)) for a in range(0, m, rows)], n_threads)


def int_power(out: np.ndarray, degree: int) -> None:
    """out **= degree in place, for an integer degree >= 1, by squaring: the factors x^(2^i)
    of degree's set bits multiplied from the lowest bit up, each product rounded (not
    libm's or numpy's pow, whose last bits differ between platforms and SIMD paths)."""
    base, result, first = out.copy(), out, True
    degree = int(degree)
    while degree:
        if degree & 1:
            if first:
                result[...] = base
                first = False
            else:
                result *= base
        degree >>= 1
        if degree:
            base *= base


def gram_linear(X: np.ndarray, Y: np.ndarray, out: np.ndarray, *,
                n_jobs: int | None = None) -> None:
    """out[i, j] = x_i . y_j, the products on n_jobs threads (`_products`). (The elementwise
    part of the other float kernels runs on one thread in this twin, on n_jobs in the C one.)"""
    check_float(X, Y, out)
    _products(X, Y, out, check_jobs(n_jobs))


def gram_poly(X: np.ndarray, Y: np.ndarray, degree: int, gamma: float, coef0: float,
              out: np.ndarray, *, n_jobs: int | None = None) -> None:
    """out[i, j] = (gamma x_i . y_j + coef0) ** degree."""
    check_float(X, Y, out)
    _products(X, Y, out, check_jobs(n_jobs))
    out *= gamma
    out += coef0
    int_power(out, degree)


def _direct_sq_distances(X: np.ndarray, Y: np.ndarray, rows: np.ndarray,
                         cols: np.ndarray, gamma: float) -> np.ndarray:
    """gamma ||x_i - y_j||^2 for the pairs (rows[k], cols[k]), from the differences, scaled
    so nothing overflows on the way: (sqrt(gamma) m ||(x - y) / m||)^2 with m the largest
    |x - y| (halves first, so x - y itself cannot overflow); inf only when it is beyond
    float64 (then the kernel value is exactly 0)."""
    out = np.empty(rows.shape[0])
    for start in range(0, rows.shape[0], 4096):  # bounded temporaries
        r, c = rows[start:start + 4096], cols[start:start + 4096]
        half = X[r] * 0.5 - Y[c] * 0.5
        top = np.max(np.abs(half), axis=1)
        scale = np.where(top > 0.0, top, 1.0)
        norm = np.sqrt(row_sqnorms(half / scale[:, None]))
        with np.errstate(over="ignore"):
            t = (math.sqrt(gamma) * 2.0) * (top * norm)
            out[start:start + 4096] = t * t
    return out


def row_sqnorms(X: np.ndarray) -> np.ndarray:
    """||x_i||^2 = dot4(x_i, x_i) of every row, as the RBF kernel computes them."""
    lanes = np.zeros((4, X.shape[0]))
    with np.errstate(over="ignore"):  # inf, as in C (the callers check what they need)
        for k in range(X.shape[1]):
            lanes[k % 4] += X[:, k] * X[:, k]
        return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])


def _norms(X: np.ndarray, Y: np.ndarray, norms: tuple | None) -> tuple[np.ndarray, np.ndarray]:
    if norms is None:
        xx = row_sqnorms(X)
        return xx, (xx if Y is X else row_sqnorms(Y))
    return given_norms(X, Y, norms)


def gram_rbf(X: np.ndarray, Y: np.ndarray, gamma: float, out: np.ndarray, *,
             n_jobs: int | None = None, norms: tuple | None = None) -> None:
    """out[i, j] = exp(-gamma ||x_i - y_j||^2), the squared distance taken as
    ||x||^2 + ||y||^2 - 2 x.y clipped at 0 (exactly 0 on the diagonal when Y is X), except
    where that expansion is not finite or may have cancelled (the distance is tiny against
    the norms): there it is computed from the differences (`_direct_sq_distances`). So every
    value is finite and right for any finite input: huge rows never give inf - inf = NaN.
    ``norms``: (||x_i||^2, ||y_j||^2) as `row_sqnorms` computes them, when the caller has
    them already (a kernel perceptron computes its pool's once)."""
    check_float(X, Y, out)
    n_threads = check_jobs(n_jobs)
    with np.errstate(over="ignore", invalid="ignore"):
        _products(X, Y, out, n_threads)
        xx, yy = _norms(X, Y, norms)
        sums = xx[:, None] + yy[None, :]
        out *= -2.0
        out += sums
        np.maximum(out, 0.0, out=out)
        # the expansion's rounding error is a few ulps of the norms
        suspect = ~np.isfinite(out) | (out <= 2.0 ** -30 * sums)
    if Y is X:  # (the products, the norms' sums and so out are exactly symmetric)
        np.fill_diagonal(out, 0.0)
        suspect |= suspect.T  # recomputed on both sides, so the Gram stays symmetric
        np.fill_diagonal(suspect, False)
    out *= -gamma
    rows, cols = np.nonzero(suspect)
    if rows.size:
        out[rows, cols] = -_direct_sq_distances(X, Y, rows, cols, gamma)
    exp_nonpositive(out)


# exp_nonpositive's constants: 1.5 * 2^52 (adding and subtracting it rounds to an integer),
# 1 / ln 2, fdlibm's split of ln 2 (the high part has 32 bits, so k times it is exact), and
# the Taylor coefficients 1/13! down to 1/0!.
_EXP_MAGIC = 6755399441055744.0
_INV_LN2 = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_EXP_COEF = tuple(1.0 / math.factorial(n) for n in range(13, -1, -1))


def exp_nonpositive(x: np.ndarray) -> None:
    """x = exp(x) in place, for float64 x <= 0 (C-contiguous; -inf gives 0), by these IEEE
    operations, each rounded once, in this order (``_rbf.h`` does the same in C):

    v = max(x, -800) (NaN taken as -800); k = (v / ln 2 + 1.5 * 2^52) - 1.5 * 2^52, the
    nearest integer to v / ln 2 (ties to even), with v / ln 2 computed as v * (1 / ln 2);
    r = (v - k ln2_hi) - k ln2_lo, |r| <= 0.35; p = exp(r) by Horner's rule on the Taylor
    coefficients 1/13! .. 1/0! (p = p r + c: a product, then a sum); exp(x) = ldexp(p, k),
    exact but where the result is subnormal (one rounding there). Within 2 ulps of exp(x).
    """
    if x.dtype != np.float64 or not x.flags.c_contiguous:
        raise ValueError("x must be a C-contiguous float64 array")
    if x.size == 0:
        return
    v = np.where(x >= -800.0, x, -800.0)
    k = v * _INV_LN2
    k += _EXP_MAGIC
    k -= _EXP_MAGIC
    r = v - k * _LN2_HI
    r -= k * _LN2_LO
    p = np.full_like(r, _EXP_COEF[0])
    for c in _EXP_COEF[1:]:
        p *= r
        p += c
    np.ldexp(p, k.astype(np.int32), out=x)
