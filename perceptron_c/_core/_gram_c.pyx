# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_gram_py``: same functions, same signatures, same results.

The Python twin is the specification. The popcount Gram runs without the GIL in the blocked
loops of ``_popcount.h``, on the widest path this CPU supports (chosen once at import, after a
CPU check; the portable builtin path is always there; ``PERCEPTRON_C_POPCOUNT`` or
``set_popcount_impl`` pick another). B is packed once; the rows of A go through in blocks of
about 20 ms, between which the calling thread takes the GIL back to check for Ctrl-C, and which
``n_jobs`` threads share. When A is B, the paths that gain by it compute the entries on and
right of the diagonal only, each stored twice (see ``pc_sym_pays``). The float kernels' products
are ``_dot.h``'s 4-lane dots (the twin's `_dot4_products`, vectorized on the widest path this
CPU has), without the GIL, by blocks of rows that ``n_jobs`` threads share; what follows them
is elementwise and runs on them too, in blocks of rows, without the GIL: for the polynomial
the twin's operations entry by entry (its power by squaring), for the RBF one fused pass
(``_rbf.h``: the twin's operations in its order, entry by entry, its own exponential
included, vectorized on the widest path this CPU has), then the distances it flags
recomputed from the differences as the twin does. Nothing here calls the Python twin: its
checks and blocks are written again here, in the same order and words.
"""
import os
import warnings

import numpy as np

from libc.math cimport fabs, isnan, ldexp, sqrt
from libc.stdint cimport int16_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc

from perceptron_c._core._lanes cimport sqnorm4
from perceptron_c._core._popcount cimport (PC_IMPL_AVX2, PC_IMPL_AVX512, PC_IMPL_BUILTIN,
                                           PC_IMPL_POPCNT, PC_OUT_I16, PC_OUT_I32, PC_OUT_I64,
                                           pc_best_impl, pc_gram_rows, pc_impl_available, pc_pack_b,
                                           pc_packed_words, pc_sym_pays)

from perceptron_c._core._contract import (check_float, check_jobs, check_words, given_norms,
                                          product_blocks, product_chunk, run_blocks,
                                          thread_count)
from perceptron_c._utils._threads import run_shared, stop_point

from perceptron_c._core._gram_py import __all__  # no-cython-lint: listed once (test_twins)


cdef extern from "_popcount.h":
    int PC_POPCOUNT64(uint64_t x) noexcept nogil

cdef extern from "_dot.h":
    int pc_dot_best_path() noexcept nogil
    int pc_dot_path_available(int path) noexcept nogil
    void pc_gram_dot(const double* X, Py_ssize_t m, const double* Y, Py_ssize_t n,
                     Py_ssize_t d, double* out, Py_ssize_t ldo, int path,
                     int pack) noexcept nogil
    void pc_row_sqnorms(const double* X, Py_ssize_t m, Py_ssize_t d, double* out) noexcept nogil

cdef extern from "_rbf.h":
    double pc_exp1(double x) noexcept nogil
    int pc_rbf_best_path() noexcept nogil
    void pc_exp_nonpositive(double* x, Py_ssize_t n, int path) noexcept nogil
    Py_ssize_t pc_rbf_row(double* row, Py_ssize_t n, double xi, const double* yy, double tiny,
                          double ng, Py_ssize_t skip, int64_t* pos, Py_ssize_t count,
                          Py_ssize_t cap, int64_t base, int path) noexcept nogil

# The paths of the RBF's elementwise part (the same bits on each): 0 portable, 1 SSE2, 2 AVX2,
# 3 AVX-512F; the widest this CPU has unless a test picks another (_set_rbf_path).
_RBF_PATHS = {0: "portable", 1: "sse2", 2: "avx2", 3: "avx512"}
cdef int _rbf_best = pc_rbf_best_path()
cdef int _rbf_path = _rbf_best


def _exp_rows(x):
    if not (isinstance(x, np.ndarray) and x.dtype == np.float64 and x.flags.c_contiguous):
        raise ValueError("x must be a C-contiguous float64 array")
    cdef double[::1] flat = x.reshape(-1)
    return flat


def exp_nonpositive(x):
    """_gram_py.exp_nonpositive, without the GIL (on the RBF path in use)."""
    cdef double[::1] flat = _exp_rows(x)
    if flat.shape[0]:
        with nogil:
            pc_exp_nonpositive(&flat[0], flat.shape[0], _rbf_path)


def _rbf_paths():
    """The names of the RBF paths this CPU has (the tests run every one)."""
    return tuple(_RBF_PATHS[p] for p in range(_rbf_best + 1))


def _set_rbf_path(name):
    """Use the RBF path ``name`` (for the tests); returns the name of the one in use before."""
    global _rbf_path
    codes = {v: k for k, v in _RBF_PATHS.items()}
    if name not in codes or codes[name] > _rbf_best:
        raise ValueError(f"RBF path {name!r} is not supported by this CPU; it has "
                         f"{_rbf_paths()}")
    before, _rbf_path = _RBF_PATHS[_rbf_path], codes[name]
    return before


_NAMES = {PC_IMPL_BUILTIN: "builtin", PC_IMPL_POPCNT: "popcnt", PC_IMPL_AVX2: "avx2",
          PC_IMPL_AVX512: "avx512"}
cdef int _impl = pc_best_impl()

# Word pairs (a row pair costs nw + 2: the store counts) a block of rows may hold: about 20 ms
# on each path on a 3 GHz core, so Ctrl-C is seen within 0.1 s even on a CPU 4x slower.
_BLOCK_WORK = {PC_IMPL_BUILTIN: 1 << 24, PC_IMPL_POPCNT: 1 << 26, PC_IMPL_AVX2: 1 << 27,
               PC_IMPL_AVX512: 1 << 28}
# The first row block of the symmetric mode stores into every row below it: on a fresh out,
# that faults in all of it at once (measured: seconds for 3 GB in a VM), inside one block.
_SYM_MAX_BYTES = 64 << 20


def max_row_popcount(const uint64_t[:, ::1] W):
    """_gram_py.max_row_popcount: the most ones in a row of packed words (0 without rows)."""
    cdef Py_ssize_t i, k, ones, top = 0
    with nogil:
        for i in range(W.shape[0]):
            ones = 0
            for k in range(W.shape[1]):
                ones += PC_POPCOUNT64(W[i, k])
            top = max(top, ones)
    return top


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


cdef class _GramJob:
    """One Gram split into row blocks of A; any thread may run any block, each exactly once."""
    cdef int impl, kind, sym
    cdef const uint64_t* A
    cdef const uint64_t* Bp
    cdef void* out
    cdef Py_ssize_t na, nb, nw, rows, n_blocks
    cdef object keep

    def block(self, Py_ssize_t b):
        """Rows [b * rows, (b + 1) * rows) of the Gram, without the GIL (`run_shared` calls it
        and, on the main thread, sees Ctrl-C between blocks)."""
        cdef Py_ssize_t i0 = b * self.rows
        with nogil:
            pc_gram_rows(self.impl, self.A + i0 * self.nw, min(self.rows, self.na - i0),
                         self.Bp, self.nb, self.nw, self.out, self.nb, self.kind, i0, self.sym)


def gram_conjunction_log2(const uint64_t[:, ::1] A_words, const uint64_t[:, ::1] B_words, out,
                          *, n_jobs=None):
    """out[i, j] = |Ones(a_i, b_j)| = popcount(a_i AND b_j), summed word by word; out is int16
    (when every popcount is below 2^15), int32 or int64, written directly. n_jobs threads
    share the rows of A (the result never depends on it)."""
    cdef Py_ssize_t na = A_words.shape[0], nb = B_words.shape[0], nw = A_words.shape[1]
    cdef int64_t[:, ::1] o64
    cdef int32_t[:, ::1] o32
    cdef int16_t[:, ::1] o16
    cdef _GramJob job
    cdef uint64_t[::1] buf
    cdef uint64_t* bufp = NULL
    cdef Py_ssize_t words = 0
    n_threads = check_words(A_words, B_words, out, n_jobs, max_row_popcount)
    if na == 0 or nb == 0:
        return
    job = _GramJob()
    job.impl, job.na, job.nb, job.nw = _impl, na, nb, nw
    if out.dtype == np.int16:
        o16 = out
        job.out, job.kind = &o16[0, 0], PC_OUT_I16
    elif out.dtype == np.int32:
        o32 = out
        job.out, job.kind = &o32[0, 0], PC_OUT_I32
    else:
        o64 = out
        job.out, job.kind = &o64[0, 0], PC_OUT_I64
    job.A = &A_words[0, 0] if nw > 0 else NULL
    # A is B (the Gram of a set with itself): half the popcounts, each sum stored twice
    job.sym = (nw > 0 and na == nb and &A_words[0, 0] == &B_words[0, 0]
               and out.nbytes <= _SYM_MAX_BYTES and pc_sym_pays(job.impl, nw, job.kind))
    if nw > 0:
        words = pc_packed_words(job.impl, nb, nw)
    packed = np.empty(words, dtype=np.uint64) if words else None
    if words:
        buf = packed
        bufp = &buf[0]
    with nogil:
        job.Bp = pc_pack_b(job.impl, &B_words[0, 0], nb, nw, bufp) if nw > 0 else NULL
    job.keep = (A_words, B_words, out, packed)
    if na * nb * (nw + 2) < _BLOCK_WORK[job.impl] // 16:
        # under about a millisecond threads gain little or lose (square Grams of 1024-bit rows
        # measured on 2 cores: 0.79x at 0.4 ms of work, 1.18x at 1 ms, 1.69x at 2.3 ms)
        n_threads = 1
    else:
        n_threads = thread_count(n_threads)
    job.rows = max(1, _BLOCK_WORK[job.impl] // (nb * (nw + 2)))
    if n_threads > 1:
        job.rows = min(job.rows, (na + 4 * n_threads - 1) // (4 * n_threads))  # 4 blocks each
    if job.rows > 12:
        job.rows -= job.rows % 12  # whole micro-tiles of every path (3 and 4 rows)
    job.n_blocks = (na + job.rows - 1) // job.rows
    run_shared(job.block, job.n_blocks, n_threads)


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


def _impl_from_environment():
    """PERCEPTRON_C_POPCOUNT=builtin|popcnt|avx2|avx512 forces a path; a value this CPU cannot
    run warns and keeps the best one, so a stale setting never breaks the import."""
    name = os.environ.get("PERCEPTRON_C_POPCOUNT", "").strip()
    if not name:
        return
    try:
        set_popcount_impl(name.lower())
    except ValueError:
        warnings.warn(f"PERCEPTRON_C_POPCOUNT={name!r} is not a popcount path this CPU can run "
                      f"(available: {', '.join(available_popcount_impls())}); using "
                      f"{popcount_impl()!r}", RuntimeWarning, stacklevel=2)


_impl_from_environment()


# ---------------------------------------------------------------- float Gram matrices

# The paths of the products (the same bits on each): 0 portable, 1 SSE2 (x86-64) or NEON
# (aarch64), 2 AVX2, 3 AVX-512 (AVX-512VL's registers); the widest this CPU has unless a test
# picks another (_set_dot_path).
_DOT_PATHS = {0: "portable", 1: "simd", 2: "avx2", 3: "avx512"}
cdef int _dot_path = pc_dot_best_path()
_DOT_AVAILABLE = tuple(name for p, name in _DOT_PATHS.items() if pc_dot_path_available(p))


def _dot_paths():
    """The names of the product paths this CPU has (the tests run every one)."""
    return _DOT_AVAILABLE


def _set_dot_path(name):
    """Use the product path ``name`` (for the tests); returns the name of the one in use."""
    global _dot_path
    codes = {v: k for k, v in _DOT_PATHS.items()}
    if name not in _dot_paths():
        raise ValueError(f"product path {name!r} is not supported by this CPU; it has "
                         f"{_dot_paths()}")
    before, _dot_path = _DOT_PATHS[_dot_path], codes[name]
    return before


# The products' loop nest (_dot.h): packed (1, the default) or not (0, for the tests: the
# same bits).
cdef int _dot_packed = 1


def _set_dot_packing(packed):
    """Use the packed loop nest of the products (True) or the unpacked one (False), for
    the tests; returns the setting it replaces."""
    global _dot_packed
    before, _dot_packed = bool(_dot_packed), 1 if packed else 0
    return before


# The packed products' strips and panels (_dot.h): a block of rows of a product has m / 8
# rows, within PACKED_ROWS (a packed panel of Y then serves that many rows: measured at
# d = 1024, 256 rows run 1.25x faster than 64), a multiple of PACKED_TILE_ROWS (of every
# path's tile rows: no strip cut short but the last); its chunks are a multiple of
# PACKED_COLS columns (PC_DOT_NC: whole packed panels).
PACKED_ROWS = (64, 256)
PACKED_TILE_ROWS = 4
PACKED_COLS = 128

# Entries per block of the mirror of a symmetric product (_gram_py.MIRROR_ENTRIES).
MIRROR_ENTRIES = 1 << 18


cdef void _mirror_rows(double* o, Py_ssize_t m, Py_ssize_t a, Py_ssize_t z) noexcept nogil:
    # rows [a, z) below the diagonal from the columns above it, by tiles of 32 columns
    cdef Py_ssize_t i, j, j0
    for j0 in range(0, z, 32):
        for i in range(max(a, j0 + 1), z):
            for j in range(j0, min(i, j0 + 32)):
                o[i * m + j] = o[j * m + i]


def _products(X, Y, out, n_threads=1):
    """_gram_py._products: out = X . Y^T, each entry the 4-lane dot (``_dot.h``), without the
    GIL, on up to n_threads threads, by blocks of rows (`product_blocks`, 64 to 256 rows:
    ``_dot.h`` packs strips of many rows) whose columns go in chunks of about
    the same work (`product_chunk`), Ctrl-C and a stopped call seen between chunks; when Y is
    X, the entries from the diagonal on, then the rest by symmetry (dot4 is symmetric), by the
    blocks of _gram_py.mirror_lower."""
    cdef const double[:, ::1] xv = X
    cdef const double[:, ::1] yv = Y
    cdef double[:, ::1] o = out
    cdef Py_ssize_t m = o.shape[0], n = o.shape[1], d = xv.shape[1]
    cdef bint sym = Y is X, mirror = False
    cdef int path = _dot_path, pack = _dot_packed
    if m == 0 or n == 0:
        return
    if d == 0:
        out.fill(0.0)  # an empty dot is (0 + 0) + (0 + 0)
        return

    def block(Py_ssize_t a, Py_ssize_t z):
        cdef Py_ssize_t first = a if sym else 0, b, e
        cdef Py_ssize_t step = product_chunk(z - a, d, PACKED_COLS)
        if mirror:
            with nogil:
                _mirror_rows(&o[0, 0], m, a, z)
            return
        for b in range(first, n, step):
            e = min(n, b + step)
            if b > first:
                stop_point()
            with nogil:
                pc_gram_dot(&xv[a, 0], z - a, &yv[b, 0], e - b, d, &o[a, b], n, path, pack)
    rows = min(PACKED_ROWS[1], max(PACKED_ROWS[0], m // 8))
    blocks = product_blocks(m, n, d, rows, PACKED_TILE_ROWS)
    if len(blocks) == 1:  # run_blocks of one block: the same call, in this thread
        stop_point()
        block(0, m)
    else:
        run_blocks(block, blocks, n_threads)
    if sym and m > 1:
        mirror = True
        step = max(1, MIRROR_ENTRIES // m)
        run_blocks(block, [(a, min(m, a + step)) for a in range(0, m, step)], n_threads)


def row_sqnorms(X):
    """_gram_py.row_sqnorms: dot4(x_i, x_i) of every row."""
    cdef const double[:, ::1] xv = X
    out = np.empty(xv.shape[0])
    cdef double[::1] ov = out
    if xv.shape[0] and xv.shape[1]:
        with nogil:
            pc_row_sqnorms(&xv[0, 0], xv.shape[0], xv.shape[1], &ov[0])
    else:
        out.fill(0.0)
    return out


def gram_linear(X, Y, out, *, n_jobs=None):
    """out[i, j] = x_i . y_j (the 4-lane dot), on n_jobs threads."""
    check_float(X, Y, out)
    _products(X, Y, out, check_jobs(n_jobs))


# Entries of out per elementwise block on a thread: a few hundred microseconds of work.
_FLOAT_BLOCK = 1 << 16


def _elementwise(fn, Py_ssize_t n_rows, Py_ssize_t n_cols, n_threads):
    """fn(start, stop) over blocks of rows of out, on up to n_threads threads (`run_blocks`)."""
    cdef Py_ssize_t step = max(1, _FLOAT_BLOCK // max(1, n_cols))
    if n_rows * n_cols >= 2 * _FLOAT_BLOCK:
        n_threads = thread_count(n_threads)  # (check_jobs's: looked up only here)
    if n_rows * n_cols < 2 * _FLOAT_BLOCK or n_threads <= 1:
        fn(0, n_rows)
        return
    step = max(step, (n_rows + 4 * n_threads - 1) // (4 * n_threads))  # up to 4 blocks each
    run_blocks(fn, [(a, min(n_rows, a + step)) for a in range(0, n_rows, step)], n_threads)


cdef void _poly_entries(double* o, Py_ssize_t n, double gamma, double coef0,
                        long degree) noexcept nogil:
    """(gamma v + coef0) ** degree of n entries in place, the power as _gram_py.int_power
    takes it: the factors v^(2^i) of degree's set bits multiplied from the lowest bit up."""
    cdef Py_ssize_t i
    cdef long k
    cdef double base, result
    cdef bint first
    for i in range(n):
        base = o[i] * gamma + coef0
        result = base
        first = True
        k = degree
        while k:
            if k & 1:
                result = base if first else result * base
                first = False
            k >>= 1
            if k:
                base = base * base
        o[i] = result


def gram_poly(X, Y, degree, gamma, coef0, out, *, n_jobs=None):
    """out[i, j] = (gamma x_i . y_j + coef0) ** degree."""
    check_float(X, Y, out)
    n_threads = check_jobs(n_jobs)
    _products(X, Y, out, n_threads)
    if out.size == 0:
        return
    cdef double[:, ::1] o = out
    cdef double g = gamma, c = coef0
    cdef long deg = int(degree)
    cdef Py_ssize_t n = o.shape[1]

    def block(Py_ssize_t a, Py_ssize_t z):
        with nogil:
            _poly_entries(&o[a, 0], (z - a) * n, g, c, deg)
    _elementwise(block, out.shape[0], out.shape[1], n_threads)


cdef double _direct_sq(const double* x, const double* y, Py_ssize_t d, double sg2,
                       double* half) noexcept nogil:
    """_gram_py._direct_sq_distances of one pair (d >= 1), with sg2 = sqrt(gamma) * 2 and
    room for d doubles in half: the halves x / 2 - y / 2, the largest |half| (NaN if one is,
    as numpy's max), the 4-lane sum of the squares of the halves divided by it, then
    (sg2 (top norm))^2, each operation the twin's."""
    cdef Py_ssize_t t
    cdef double h, top, scale
    for t in range(d):
        half[t] = x[t] * 0.5 - y[t] * 0.5
    top = fabs(half[0])
    for t in range(1, d):
        h = fabs(half[t])
        if (h > top or isnan(h)) and not isnan(top):
            top = h
    scale = top if top > 0.0 else 1.0
    for t in range(d):
        half[t] = half[t] / scale
    h = sg2 * (top * sqrt(sqnorm4(half, d)))
    return h * h


cdef int _rbf_rows(double* out, Py_ssize_t a, Py_ssize_t z, Py_ssize_t n, const double* X,
                   const double* Y, Py_ssize_t d, const double* xx, const double* yy,
                   double gamma, bint sym) noexcept nogil:
    """Rows [a, z) of out, holding x . y on entry, finished as the twin computes them entry
    by entry (``_rbf.h``: the distance, its check, exp(-gamma d)), a row at a time while it
    is in the cache; the flagged entries (NaN after the pass) are then recomputed from the
    differences (`_direct_sq`) and their exponentials taken (entry by entry: the same bits
    as the vector paths). sym: the diagonal of a Gram of a set with itself is 1. Returns 0,
    or 1 when an entry is flagged but there is no feature to take a difference of, 2 when
    the memory for the differences is not there."""
    cdef Py_ssize_t i, j, k, count
    cdef int64_t pos[64]
    cdef double* row
    cdef double* half = NULL
    cdef double tiny = ldexp(1.0, -30), ng = -gamma, sg2 = sqrt(gamma) * 2.0
    for i in range(a, z):
        row = out + i * n
        count = pc_rbf_row(row, n, xx[i], yy, tiny, ng, i if sym else -1, pos, 0, 64, 0,
                           _rbf_path)
        if count == 0:
            continue
        if d == 0 or half == NULL:
            half = NULL if d == 0 else <double*>malloc(d * sizeof(double))
            if half == NULL:
                return 1 if d == 0 else 2
        if count > 64:  # more than pos holds: the flagged entries are the NaN ones
            count = 0
            for j in range(n):
                if isnan(row[j]):
                    row[j] = pc_exp1(-_direct_sq(X + i * d, Y + j * d, d, sg2, half))
        for k in range(count):
            j = pos[k]
            row[j] = pc_exp1(-_direct_sq(X + i * d, Y + j * d, d, sg2, half))
    free(half)
    return 0


def gram_rbf(X, Y, double gamma, out, *, n_jobs=None, norms=None):
    """out[i, j] = exp(-gamma ||x_i - y_j||^2), exactly as the twin computes it (read its
    docstring); the products and the rest on n_jobs threads."""
    check_float(X, Y, out)
    n_threads = check_jobs(n_jobs)
    cdef bint sym = Y is X
    _products(X, Y, out, n_threads)
    if norms is None:
        xx = row_sqnorms(X)
        yy = xx if sym else row_sqnorms(Y)
    else:
        xx, yy = given_norms(X, Y, norms)
    if out.shape[0] == 0 or out.shape[1] == 0:
        return
    cdef double[:, ::1] o = out
    cdef const double[:, ::1] xv = X
    cdef const double[:, ::1] yv = Y
    cdef const double[::1] xn = xx
    cdef const double[::1] yn = yy
    cdef Py_ssize_t n = o.shape[1], d = xv.shape[1]

    def block(Py_ssize_t a, Py_ssize_t z):
        cdef int failed
        with nogil:
            failed = _rbf_rows(&o[0, 0], a, z, n, &xv[0, 0], &yv[0, 0], d, &xn[0], &yn[0],
                               gamma, sym)
        if failed == 1:  # the twin's max over no difference raises, in numpy's words
            raise ValueError("zero-size array to reduction operation maximum which has no "
                             "identity")
        if failed:
            raise MemoryError("no memory for the differences of rows")
    _elementwise(block, out.shape[0], n, n_threads)
