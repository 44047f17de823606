"""Pure-Python twin of ``_kernels_c``: the specification of the kernel routines.

Every function works in place on the numpy arrays it is given, exactly like its C twin of the
same name and signature. Inputs are canonical (see ``kernels`` and ``_validation``):

- 0/1 rows are uint8 C-contiguous 2-D; packed rows are uint64 C-contiguous 2-D with
  ceil(n_bits / 64) words per row, bit i of a row in word i // 64 at bit position i % 64,
  and the padding bits of the last word zero;
- float rows are float64 C-contiguous 2-D; outputs are C-contiguous of shape (n, m).

Columbia notes, Claim 2.1: the all-monotone-conjunctions kernel is
K(a, b) = 2^|Ones(a, b)| with |Ones(a, b)| = popcount(a AND b); ``gram_conjunction_log2``
computes the exponent, which is exact in int64 (2^k itself overflows float64 from k = 1024).
The float kernels (linear, polynomial, RBF) are numpy matrix products shared with the C twin
(``_gram_dense``), so both twins compute them identically.
"""

from ._gram_dense import gram_linear, gram_poly, gram_rbf

__all__ = [
    "pack_rows",
    "gram_conjunction_log2",
    "gram_linear",
    "gram_poly",
    "gram_rbf",
    "popcount_impl",
    "available_popcount_impls",
    "set_popcount_impl",
]


def _check_words(A, B, out):
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1]:
        raise ValueError(f"A_words and B_words must be 2-D with the same number of words, got "
                         f"shapes {A.shape} and {B.shape}")
    if out.shape != (A.shape[0], B.shape[0]):
        raise ValueError(f"out must have shape {(A.shape[0], B.shape[0])}, got {out.shape}")


def pack_rows(X01_uint8, words_out_uint64):
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


def gram_conjunction_log2(A_words, B_words, out_int64):
    """out[i, j] = |Ones(a_i, b_j)| = popcount(a_i AND b_j), summed word by word."""
    _check_words(A_words, B_words, out_int64)
    A = A_words.tolist()  # Python ints: AND and bit_count are exact on 64-bit words
    B = B_words.tolist()
    for i, a in enumerate(A):
        for j, b in enumerate(B):
            ones = 0
            for wa, wb in zip(a, b):
                ones += (wa & wb).bit_count()
            out_int64[i, j] = ones


def popcount_impl():
    """Which popcount path ``gram_conjunction_log2`` uses: always "python" in this twin."""
    return "python"


def available_popcount_impls():
    """The popcount paths this twin can use on this machine."""
    return ("python",)


def set_popcount_impl(name):
    """Select a popcount path (for tests and benchmarks); returns the previous one."""
    if name not in available_popcount_impls():
        raise ValueError(f"popcount implementation must be one of "
                         f"{available_popcount_impls()}, got {name!r}")
    return "python"
