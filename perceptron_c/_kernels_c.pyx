# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_kernels_py``: same functions, same signatures, same results.

The Python twin is the specification. The popcount Gram runs without the GIL in the blocked
loops of ``_popcount.h``, on the widest path this CPU supports (chosen once at import, after a
CPU check; the portable builtin path is always there). The float kernels are numpy matrix
products shared with the Python twin (``_gram_dense``): BLAS is already the fast path there.
"""
from libc.stdint cimport int64_t, uint64_t

from perceptron_c._gram_dense import gram_linear, gram_poly, gram_rbf

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


cdef extern from "_popcount.h":
    int PC_IMPL_BUILTIN, PC_IMPL_POPCNT, PC_IMPL_AVX2, PC_IMPL_AVX512
    int pc_impl_available(int impl) noexcept nogil
    int pc_best_impl() noexcept nogil
    void pc_gram_popcount(int impl, const uint64_t* A, Py_ssize_t na, const uint64_t* B,
                          Py_ssize_t nb, Py_ssize_t nw, int64_t* out) noexcept nogil


_NAMES = {PC_IMPL_BUILTIN: "builtin", PC_IMPL_POPCNT: "popcnt", PC_IMPL_AVX2: "avx2",
          PC_IMPL_AVX512: "avx512"}
cdef int _impl = pc_best_impl()


def pack_rows(const unsigned char[:, ::1] X01_uint8, uint64_t[:, ::1] words_out_uint64):
    """Pack 0/1 rows into uint64 words: bit i of row r -> word i // 64, bit i % 64."""
    cdef Py_ssize_t n = X01_uint8.shape[0], d = X01_uint8.shape[1]
    cdef Py_ssize_t nw = (d + 63) // 64, r, i
    cdef uint64_t word
    if words_out_uint64.shape[0] != n or words_out_uint64.shape[1] != nw:
        raise ValueError(f"words_out must have shape {(n, nw)}, got "
                         f"{(words_out_uint64.shape[0], words_out_uint64.shape[1])}")
    with nogil:
        for r in range(n):
            word = 0
            for i in range(d):
                if X01_uint8[r, i]:
                    word |= (<uint64_t>1) << (i & 63)
                if (i & 63) == 63 or i == d - 1:
                    words_out_uint64[r, i >> 6] = word
                    word = 0


def gram_conjunction_log2(const uint64_t[:, ::1] A_words, const uint64_t[:, ::1] B_words,
                          int64_t[:, ::1] out_int64):
    """out[i, j] = |Ones(a_i, b_j)| = popcount(a_i AND b_j), summed word by word."""
    cdef Py_ssize_t na = A_words.shape[0], nb = B_words.shape[0], nw = A_words.shape[1]
    if B_words.shape[1] != nw:
        raise ValueError(f"A_words and B_words must be 2-D with the same number of words, got "
                         f"{nw} and {B_words.shape[1]} words")
    if out_int64.shape[0] != na or out_int64.shape[1] != nb:
        raise ValueError(f"out must have shape {(na, nb)}, got "
                         f"{(out_int64.shape[0], out_int64.shape[1])}")
    if na == 0 or nb == 0:
        return
    if nw == 0:
        out_int64[:, :] = 0
        return
    with nogil:
        pc_gram_popcount(_impl, &A_words[0, 0], na, &B_words[0, 0], nb, nw, &out_int64[0, 0])


def popcount_impl():
    """Which popcount path ``gram_conjunction_log2`` uses: "builtin", "popcnt", "avx2" or
    "avx512" (AVX-512 VPOPCNTDQ)."""
    return _NAMES[_impl]


def available_popcount_impls():
    """The popcount paths compiled in and supported by this CPU, narrowest first."""
    return tuple(_NAMES[i] for i in sorted(_NAMES) if pc_impl_available(i))


def set_popcount_impl(name):
    """Select a popcount path (for tests and benchmarks); returns the previous one."""
    global _impl
    for i, n in _NAMES.items():
        if n == name and pc_impl_available(i):
            old = _NAMES[_impl]
            _impl = i
            return old
    raise ValueError(f"popcount implementation must be one of {available_popcount_impls()}, "
                     f"got {name!r}")
