# The checks every def layer of the C twins runs before its one nogil call: O(1) shape tests
# and O(n) index scans. Shared here so each twin states the same preconditions in the same
# words as its Python twin (which raises the same ValueError messages, _contract.need).
from cpython.exc cimport PyErr_CheckSignals
from libc.math cimport isfinite
from libc.stdint cimport int64_t

# Every exact (bucket) sum of the conjunction kernel stays below 2^62 (_bigint.pxd) if each
# row of coefficients, with its bias, sums to less than 2^61 in absolute value (then so does
# the difference of two rows): _contract.LIMIT.
cdef extern from *:
    """
    #define PC_EXACT_LIMIT (((int64_t)1) << 61)
    """
    const int64_t EXACT_LIMIT "PC_EXACT_LIMIT"

# How much work a nogil call does before the def layer looks for Ctrl-C again: about 2^22
# multiply-adds, a few milliseconds.
cdef enum:
    CHUNK_WORK = 1 << 22


cdef inline int between_chunks() except -1:
    """Between the chunks of a nogil loop: Ctrl-C (which only the main thread receives), then
    a call stopped by another thread's error or Ctrl-C (`_threads.stop_point`, on the thread
    running one of its blocks). About a microsecond, once every few milliseconds."""
    PyErr_CheckSignals()
    from perceptron_c._utils._threads import stop_point
    stop_point()
    return 0


cdef inline bint all_finite(const double* a, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t j
    for j in range(n):
        if not isfinite(a[j]):
            return False
    return True


cdef inline object need(bint ok, str what):
    if not ok:
        raise ValueError(what)


cdef inline bint all_in_range(const int64_t[::1] a, Py_ssize_t hi) noexcept:
    """True when every entry of a lies in [0, hi)."""
    cdef Py_ssize_t t
    cdef bint ok = True
    with nogil:
        for t in range(a.shape[0]):
            if a[t] < 0 or a[t] >= hi:
                ok = False
                break
    return ok


cdef inline object check_steps(object steps, Py_ssize_t m):
    need(steps is None or steps.shape[0] >= m,
         "steps must have room for one entry per visited example")


cdef inline object check_rows(const int64_t[::1] rows, Py_ssize_t n_pool, Py_ssize_t n_krows,
                              Py_ssize_t n_kcols):
    need(n_krows == rows.shape[0], "Krows must have one row per entry of rows")
    need(n_kcols == n_pool, "Krows must have one column per pool example")
    need(all_in_range(rows, n_pool), f"rows must lie in [0, {n_pool})")


cdef inline bint check_avg(object u, object beta, object count, bint u_ok,
                           bint beta_ok) except -1:
    """Averaging is on when u is given; then beta and count must be too, of the right shapes."""
    if u is None:
        need(beta is None and count is None, "u, beta and count go together")
        return False
    need(beta is not None and count is not None, "u, beta and count go together")
    need(u_ok, "u must have the shape of alpha")
    need(beta_ok, "beta must have the shape of b")
    need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    return True


cdef inline Py_ssize_t rows_per_chunk(Py_ssize_t cost_per_row) noexcept:
    """Rows of an epoch per nogil call, so that Ctrl-C is seen within milliseconds."""
    return max(1, CHUNK_WORK // max(1, cost_per_row))


cdef inline object non_finite(Py_ssize_t t, int64_t i):
    """The error of every epoch routine that meets an activation outside float64's range."""
    raise FloatingPointError(f"non-finite activation at position {t} of the visiting order "
                             f"(row {i}): the weights or the data overflow float64")


cdef inline Py_ssize_t chunk_done(Py_ssize_t r, Py_ssize_t start, Py_ssize_t total,
                                  const int64_t[::1] order, int64_t* steps) except -1:
    """After the nogil call on the chunk of order from start: r, its mistakes (r < 0: it
    stopped at a non-finite activation at start - 1 - r, raised here), then its recorded steps
    (steps[total:total + r], NULL: none) made positions in the whole order, then
    `between_chunks`. Returns the new total of mistakes."""
    cdef Py_ssize_t k
    if r < 0:
        non_finite(start - 1 - r, order[start - 1 - r])
    if steps != NULL:
        for k in range(total, total + r):
            steps[k] += start
    between_chunks()
    return total + r


cdef inline int64_t abs_sum_to_limit(const int64_t* a, const int64_t* at, Py_ssize_t n,
                                     int64_t s) noexcept nogil:
    """s + sum_t |a[at[t]]| (at NULL: |a[t]|), saturated: EXACT_LIMIT once it gets there or
    a term lies beyond it (no intermediate overflows)."""
    cdef Py_ssize_t t
    cdef int64_t v
    for t in range(n):
        v = a[t] if at == NULL else a[at[t]]
        if v < -EXACT_LIMIT or v > EXACT_LIMIT:
            return EXACT_LIMIT
        s += v if v >= 0 else -v
        if s >= EXACT_LIMIT:
            return EXACT_LIMIT
    return s


cdef inline object check_headroom(const int64_t[::1] a, object extra, str what):
    """OverflowError unless sum |a| + extra < 2^61, exactly (_contract.check_headroom)."""
    cdef int64_t s = EXACT_LIMIT
    if extra < EXACT_LIMIT:
        s = extra
        with nogil:
            s = abs_sum_to_limit(&a[0], NULL, a.shape[0], s)
    if s >= EXACT_LIMIT:
        raise OverflowError(f"{what}: the exact sums would reach 2^61 (|coefficients| + |bias| "
                            "per class, with room for this call's updates)")


cdef inline object check_csr(const int64_t[::1] indptr, Py_ssize_t nnz, Py_ssize_t n_idx):
    cdef Py_ssize_t t
    cdef bint ok = indptr.shape[0] >= 1 and n_idx == nnz
    if ok:
        ok = indptr[0] == 0 and indptr[indptr.shape[0] - 1] == nnz
    if ok:
        with nogil:
            for t in range(indptr.shape[0] - 1):
                if indptr[t] > indptr[t + 1]:
                    ok = False
                    break
    need(ok, "indptr must be monotone from 0 to len(data), len(indices) == len(data)")
