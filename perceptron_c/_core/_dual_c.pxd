# C-level API of the dual (kernel) perceptron routines, for Cython code that wants to run the
# epoch kernels without going through Python. Every pointer must already be valid for the
# sizes given and every index in range: these functions do no checking at all (the def
# functions of _dual_c show the checks: order/rows in [0, n), y +1.0 or -1.0 / class indices in
# [0, n_classes), count[0] >= 1). All are noexcept nogil: call them with or without the GIL;
# they never raise, and do not see Ctrl-C (the def layer runs an epoch in chunks).
# A pool of n examples (the training rows, maybe after earlier support vectors) has one
# coefficient each: alpha_i, the signed sum of the steps taken on example i; the activation of
# x is sum_j alpha_j K(x_j, x) + b (4-lane sums). Row-major float64 arrays: G (n, n),
# Krows (m, n), alpha/scores/U (K, n) with K = n_classes (one row for a binary model).
# Averaging is _linear_c.pxd's, on the coefficients: a mistake that moves alpha_i by s (and b
# by s) moves u_i by s c (and beta by s c), c = count[0] (1 before the first example ever, 1
# more after every visited example); the averaged model is alpha - u / count[0],
# b - beta / count[0]. It is off when u/U == NULL (then beta and count are ignored); beta is
# written only with fit_intercept. The return value: the mistakes, or -1 - t when the
# activation at position t is not finite (the arrays hold the updates before t).
#
# The *_weighted and *_support_rows forms take two more inputs: sample_weight (NULL: every
# weight 1), one weight per pool example that scales its updates; and (rows forms) cols, nc:
# Krows then has nc columns, the pool examples cols[0] < cols[1] < ..., which must hold every
# visited row and every example with a nonzero coefficient (cols NULL, nc = n: every column).
# The inline checks at the end are the def layers' (also used by _conjunction_c).
from libc.stdint cimport int64_t

from perceptron_c._core._checks cimport all_finite, all_in_range, check_rows, need

# One epoch of the binary kernel perceptron on the Gram G (n x n float64, symmetric,
# G[i, j] = K(x_i, x_j)) of the pool, visiting the m pool examples order[0..m-1] (int64 in
# [0, n)). y: the pool's n float64 labels, +1.0 or -1.0. alpha (n float64), b (1 float64):
# the coefficients and the bias, updated in place. scores (n float64): the cached activations
# without the bias, scores[j] = sum_i alpha_i G[i, j] (0 for alpha = 0), kept in step: a
# mistake on i (y_i (scores[i] + b) <= 0) adds y_i to alpha_i (and b with fit_intercept) and
# y_i G[i, :] to scores. u (n float64), beta (1 float64), count (1 int64): the averaging sums
# and counter (u == NULL: off). fit_intercept: whether b (and beta) move. steps (int64, room
# for m; NULL: not recorded): the position t in order of each mistake, in order.
cdef Py_ssize_t binary_cached(const double* G, const double* y, const int64_t* order,
                              Py_ssize_t m, Py_ssize_t n, double* alpha, double* b,
                              double* scores, double* u, double* beta, int64_t* count,
                              bint fit_intercept, int64_t* steps) noexcept nogil

# The K-class form of binary_cached (argmax of scores[k, i] + b[k], ties to the lowest k):
# G, order, m, n, fit_intercept as there; y: the pool's n int64 class indices in
# [0, n_classes); alpha, scores, U (n_classes x n float64) and b, beta (n_classes float64),
# scores[k, j] = sum_i alpha[k, i] G[i, j]; count (1 int64). A mistake on i adds 1 to
# alpha[y_i, i] and G[i, :] to scores row y_i, and takes them from the predicted row (the
# biases likewise with fit_intercept); U and beta move by c where alpha and b move by 1
# (U == NULL: no averaging).
cdef Py_ssize_t multiclass_cached(const double* G, const int64_t* y, const int64_t* order,
                                  Py_ssize_t m, Py_ssize_t n, Py_ssize_t n_classes,
                                  double* alpha, double* b, double* scores, double* U,
                                  double* beta, int64_t* count,
                                  bint fit_intercept) noexcept nogil

# binary_cached without the Gram: the m visited pool examples rows[0..m-1] (int64 in [0, n)),
# each with its kernel row Krows[t] (row t of m x n float64, Krows[t, j] = K(x_rows[t], x_j)),
# scored afresh as sum_j alpha_j Krows[t, j] + b (the streaming mode when G does not fit).
# y, alpha, b, u, beta, count, fit_intercept as in binary_cached; steps (room for m; NULL: not
# recorded) receives the positions t in rows of the mistakes.
cdef Py_ssize_t binary_rows(const double* Krows, const int64_t* rows, Py_ssize_t m,
                            Py_ssize_t n, const double* y, double* alpha, double* b, double* u,
                            double* beta, int64_t* count, bint fit_intercept,
                            int64_t* steps) noexcept nogil

# The K-class form of binary_rows: Krows, rows, m, n as there; n_classes, y, alpha, b, U, beta,
# count and fit_intercept as in multiclass_cached (no scores: each row is scored afresh).
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
