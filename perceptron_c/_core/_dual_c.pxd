# C-level API of the dual (kernel) perceptron routines, for Cython code that wants to run the
# epoch kernels without going through Python. Every pointer must already be valid for the
# sizes given and every index in range: these functions do no checking at all (the def
# functions of _dual_c show the checks). Row-major arrays: G (n, n), Krows (m, n),
# alpha/scores/U (K, n). Averaging is off when u/U == NULL (then beta and count are ignored).
# steps (binary routines; NULL: not recorded) receives the position t in order/rows of each
# mistake, in order: room for m entries.
#
# The *_weighted and *_support_rows forms take two more inputs: sample_weight (NULL: every
# weight 1), one weight per pool example that scales its updates; and (rows forms) cols, nc:
# Krows then has nc columns, the pool examples cols[0] < cols[1] < ..., which must hold every
# visited row and every example with a nonzero coefficient (cols NULL, nc = n: every column).
# The inline checks at the end are the def layers' (also used by _conjunction_c).
from libc.stdint cimport int64_t

from perceptron_c._core._checks cimport all_finite, all_in_range, check_rows, need

cdef Py_ssize_t binary_cached(const double* G, const double* y, const int64_t* order,
                              Py_ssize_t m, Py_ssize_t n, double* alpha, double* b,
                              double* scores, double* u, double* beta, int64_t* count,
                              bint fit_intercept, int64_t* steps) noexcept nogil

cdef Py_ssize_t multiclass_cached(const double* G, const int64_t* y, const int64_t* order,
                                  Py_ssize_t m, Py_ssize_t n, Py_ssize_t n_classes,
                                  double* alpha, double* b, double* scores, double* U,
                                  double* beta, int64_t* count,
                                  bint fit_intercept) noexcept nogil

cdef Py_ssize_t binary_rows(const double* Krows, const int64_t* rows, Py_ssize_t m,
                            Py_ssize_t n, const double* y, double* alpha, double* b, double* u,
                            double* beta, int64_t* count, bint fit_intercept,
                            int64_t* steps) noexcept nogil

cdef Py_ssize_t multiclass_rows(const double* Krows, const int64_t* rows, Py_ssize_t m,
                                Py_ssize_t n, Py_ssize_t n_classes, const int64_t* y,
                                double* alpha, double* b, double* U, double* beta,
                                int64_t* count, bint fit_intercept) noexcept nogil

cdef Py_ssize_t binary_cached_weighted(const double* G, const double* y, const int64_t* order,
                                       Py_ssize_t m, Py_ssize_t n, double* alpha, double* b,
                                       double* scores, double* u, double* beta,
                                       int64_t* count, bint fit_intercept, int64_t* steps,
                                       const double* sample_weight) noexcept nogil

cdef Py_ssize_t multiclass_cached_weighted(const double* G, const int64_t* y,
                                           const int64_t* order, Py_ssize_t m, Py_ssize_t n,
                                           Py_ssize_t n_classes, double* alpha, double* b,
                                           double* scores, double* U, double* beta,
                                           int64_t* count, bint fit_intercept,
                                           const double* sample_weight) noexcept nogil

cdef Py_ssize_t binary_support_rows(const double* Krows, const int64_t* rows, Py_ssize_t m,
                                    Py_ssize_t n, const int64_t* cols, Py_ssize_t nc,
                                    const double* y, double* alpha, double* b, double* u,
                                    double* beta, int64_t* count, bint fit_intercept,
                                    int64_t* steps, const double* sample_weight) noexcept nogil

cdef Py_ssize_t multiclass_support_rows(const double* Krows, const int64_t* rows, Py_ssize_t m,
                                        Py_ssize_t n, const int64_t* cols, Py_ssize_t nc,
                                        Py_ssize_t n_classes, const int64_t* y, double* alpha,
                                        double* b, double* U, double* beta, int64_t* count,
                                        bint fit_intercept,
                                        const double* sample_weight) noexcept nogil


cdef inline Py_ssize_t sorted_position(const int64_t* cols, Py_ssize_t nc,
                                       int64_t v) noexcept nogil:
    """The first position c of the sorted cols with cols[c] >= v (nc if none)."""
    cdef Py_ssize_t lo = 0, hi = nc, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if cols[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline bint _sorted_has(const int64_t* cols, Py_ssize_t nc, int64_t v) noexcept nogil:
    cdef Py_ssize_t lo = sorted_position(cols, nc, v)
    return lo < nc and cols[lo] == v


cdef inline object check_krows(Py_ssize_t n_krows, Py_ssize_t n_kcols,
                               const int64_t[::1] rows, Py_ssize_t n,
                               const int64_t[::1] cols):
    """The shape of Krows (Erows) against rows and cols, and rows in [0, n)."""
    if cols is None:
        check_rows(rows, n, n_krows, n_kcols)
        return
    need(n_krows == rows.shape[0], "Krows must have one row per entry of rows")
    need(n_kcols == cols.shape[0], "Krows must have one column per entry of cols")
    need(all_in_range(rows, n), f"rows must lie in [0, {n})")


cdef inline object check_cols(const int64_t[::1] cols, const int64_t[::1] rows, Py_ssize_t n):
    """cols strictly increasing in [0, n), holding every entry of rows."""
    cdef Py_ssize_t c, t, nc = cols.shape[0]
    cdef bint ok = True
    with nogil:
        for c in range(nc):
            if cols[c] < 0 or cols[c] >= n or (c and cols[c] <= cols[c - 1]):
                ok = False
                break
    need(ok, f"cols must be strictly increasing indices in [0, {n})")
    with nogil:
        for t in range(rows.shape[0]):
            if not _sorted_has(&cols[0], nc, rows[t]):
                ok = False
                break
    need(ok, "cols must hold every entry of rows")


ctypedef fused coef_t:
    double
    int64_t


cdef inline bint zero_outside(const coef_t* alpha, Py_ssize_t k_rows, Py_ssize_t n,
                              const int64_t* cols, Py_ssize_t nc) noexcept nogil:
    """Every alpha[k, j] with j not in cols (sorted) is 0."""
    cdef Py_ssize_t k, j, c
    for k in range(k_rows):
        c = 0
        for j in range(n):
            while c < nc and cols[c] < j:
                c += 1
            if alpha[k * n + j] != 0 and not (c < nc and cols[c] == j):
                return False
    return True


cdef inline const int64_t* checked_cols(const int64_t[::1] cols, const int64_t[::1] rows,
                                        const coef_t* alpha, Py_ssize_t k_rows,
                                        Py_ssize_t n) except? NULL:
    """NULL (every pool column), or the checked cols (see _contract.check_cols); alpha: the
    k_rows x n coefficients (NULL when empty)."""
    if cols is None:
        return NULL
    check_cols(cols, rows, n)
    need(zero_outside(alpha, k_rows, n, &cols[0] if cols.shape[0] else NULL, cols.shape[0]),
         "cols must hold every example with a nonzero coefficient")
    return &cols[0] if cols.shape[0] else NULL
