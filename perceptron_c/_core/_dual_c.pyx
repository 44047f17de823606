# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_dual_py``: same functions, same signatures, same results.

The Python twin is the specification; read its module docstring for the arithmetic contract
(4-lane sums in the rows mode, index-order score updates in the cached mode, the columns of
``cols``, the steps scaled by ``sample_weight``) that lets the two agree bit for bit on float
data. Whole epochs run without the GIL.
"""
from libc.math cimport isfinite
from libc.stdint cimport int64_t

from perceptron_c._core._checks cimport (all_in_range, check_avg, check_steps, chunk_done, need,
                                         rows_per_chunk)
from perceptron_c._core._lanes cimport add, better, dot4_cols, move


from perceptron_c._core._dual_py import __all__  # no-cython-lint: listed once (test_twins)


cdef inline Py_ssize_t _binary(const double* G, double* scores, const double* Krows,
                               const int64_t* cols, Py_ssize_t nc, const double* y,
                               const int64_t* order, Py_ssize_t m, Py_ssize_t n,
                               double* alpha, double* b, double* u, double* beta,
                               int64_t* count, bint fit_intercept, int64_t* steps,
                               const double* sample_weight) noexcept nogil:
    # The binary epoch of both modes over order[:m]. Cached (G not NULL): example i's
    # activation is scores[i] + b, and a mistake adds its step times row i of G to scores.
    # Rows (G NULL): row t of Krows holds the kernel of example order[t] with the pool's
    # examples cols (NULL: all n, nc = n), and the activation is their 4-lane dot with alpha.
    cdef Py_ssize_t t, j, mistakes = 0
    cdef int64_t i
    cdef double yi, step, a
    cdef const double* g
    cdef double bias = b[0]
    cdef bint averaged = u != NULL
    cdef int64_t c = count[0] if averaged else 0
    for t in range(m):
        i = order[t]
        yi = y[i]
        if G != NULL:
            a = scores[i] + bias
        else:
            a = dot4_cols(alpha, Krows + t * nc, cols, nc) + bias
        if not isfinite(a):  # stop, the caller raises
            mistakes = -1 - t
            break
        if yi * a <= 0.0:
            if steps != NULL:
                steps[mistakes] = t
            mistakes += 1
            step = yi if sample_weight == NULL else yi * sample_weight[i]
            if G != NULL:
                g = G + i * n
                for j in range(n):
                    scores[j] += step * g[j]
            add(alpha, &bias, u, beta, i, step, c, fit_intercept)
        if averaged:
            c += 1
    b[0] = bias
    if averaged:
        count[0] = c
    return mistakes


cdef inline Py_ssize_t _multiclass(const double* G, double* scores, const double* Krows,
                                   const int64_t* cols, Py_ssize_t nc, const int64_t* y,
                                   const int64_t* order, Py_ssize_t m, Py_ssize_t n,
                                   Py_ssize_t n_classes, double* alpha, double* b, double* U,
                                   double* beta, int64_t* count, bint fit_intercept,
                                   const double* sample_weight) noexcept nogil:
    # The K-class epoch of both modes, as _binary: class k's score of example i is
    # scores[k, i] + b[k] (cached) or the 4-lane dot of row t of Krows with alpha[k] (rows).
    cdef Py_ssize_t t, j, k, pred, mistakes = 0
    cdef int64_t i, yi
    cdef double best, step
    cdef const double* g
    cdef const double* kr = NULL
    cdef double* st
    cdef double* sp
    cdef bint averaged = U != NULL, finite
    cdef int64_t c = count[0] if averaged else 0
    for t in range(m):
        i = order[t]
        yi = y[i]
        pred = 0
        if G != NULL:
            best = scores[i] + b[0]
        else:
            kr = Krows + t * nc
            best = dot4_cols(alpha, kr, cols, nc) + b[0]
        finite = isfinite(best)
        for k in range(1, n_classes):
            if G != NULL:
                better(scores[k * n + i] + b[k], k, &best, &pred, &finite)
            else:
                better(dot4_cols(alpha + k * n, kr, cols, nc) + b[k], k, &best, &pred, &finite)
        if not finite:  # stop, the caller raises
            mistakes = -1 - t
            break
        if pred != yi:
            mistakes += 1
            step = 1.0 if sample_weight == NULL else sample_weight[i]
            move(alpha, b, n, i, yi, pred, step, fit_intercept)
            if G != NULL:
                g = G + i * n
                st = scores + yi * n
                sp = scores + pred * n
                for j in range(n):
                    st[j] += step * g[j]
                    sp[j] -= step * g[j]
            if averaged:
                move(U, beta, n, i, yi, pred, step * <double>c, fit_intercept)
        if averaged:
            c += 1
    if averaged:
        count[0] = c
    return mistakes


cdef Py_ssize_t binary_cached_weighted(const double* G, const double* y, const int64_t* order,
                                       Py_ssize_t m, Py_ssize_t n, double* alpha, double* b,
                                       double* scores, double* u, double* beta,
                                       int64_t* count, bint fit_intercept, int64_t* steps,
                                       const double* sample_weight) noexcept nogil:
    return _binary(G, scores, NULL, NULL, 0, y, order, m, n, alpha, b, u, beta, count,
                   fit_intercept, steps, sample_weight)


cdef Py_ssize_t binary_cached(const double* G, const double* y, const int64_t* order,
                              Py_ssize_t m, Py_ssize_t n, double* alpha, double* b,
                              double* scores, double* u, double* beta, int64_t* count,
                              bint fit_intercept, int64_t* steps) noexcept nogil:
    return _binary(G, scores, NULL, NULL, 0, y, order, m, n, alpha, b, u, beta, count,
                   fit_intercept, steps, NULL)


cdef Py_ssize_t multiclass_cached_weighted(const double* G, const int64_t* y,
                                           const int64_t* order, Py_ssize_t m, Py_ssize_t n,
                                           Py_ssize_t n_classes, double* alpha, double* b,
                                           double* scores, double* U, double* beta,
                                           int64_t* count, bint fit_intercept,
                                           const double* sample_weight) noexcept nogil:
    return _multiclass(G, scores, NULL, NULL, 0, y, order, m, n, n_classes, alpha, b, U, beta,
                       count, fit_intercept, sample_weight)


cdef Py_ssize_t multiclass_cached(const double* G, const int64_t* y, const int64_t* order,
                                  Py_ssize_t m, Py_ssize_t n, Py_ssize_t n_classes,
                                  double* alpha, double* b, double* scores, double* U,
                                  double* beta, int64_t* count,
                                  bint fit_intercept) noexcept nogil:
    return _multiclass(G, scores, NULL, NULL, 0, y, order, m, n, n_classes, alpha, b, U, beta,
                       count, fit_intercept, NULL)


cdef Py_ssize_t binary_support_rows(const double* Krows, const int64_t* rows, Py_ssize_t m,
                                    Py_ssize_t n, const int64_t* cols, Py_ssize_t nc,
                                    const double* y, double* alpha, double* b, double* u,
                                    double* beta, int64_t* count, bint fit_intercept,
                                    int64_t* steps, const double* sample_weight) noexcept nogil:
    return _binary(NULL, NULL, Krows, cols, nc, y, rows, m, n, alpha, b, u, beta, count,
                   fit_intercept, steps, sample_weight)


cdef Py_ssize_t binary_rows(const double* Krows, const int64_t* rows, Py_ssize_t m,
                            Py_ssize_t n, const double* y, double* alpha, double* b, double* u,
                            double* beta, int64_t* count, bint fit_intercept,
                            int64_t* steps) noexcept nogil:
    return _binary(NULL, NULL, Krows, NULL, n, y, rows, m, n, alpha, b, u, beta, count,
                   fit_intercept, steps, NULL)


cdef Py_ssize_t multiclass_support_rows(const double* Krows, const int64_t* rows, Py_ssize_t m,
                                        Py_ssize_t n, const int64_t* cols, Py_ssize_t nc,
                                        Py_ssize_t n_classes, const int64_t* y, double* alpha,
                                        double* b, double* U, double* beta, int64_t* count,
                                        bint fit_intercept,
                                        const double* sample_weight) noexcept nogil:
    return _multiclass(NULL, NULL, Krows, cols, nc, y, rows, m, n, n_classes, alpha, b, U,
                       beta, count, fit_intercept, sample_weight)


cdef Py_ssize_t multiclass_rows(const double* Krows, const int64_t* rows, Py_ssize_t m,
                                Py_ssize_t n, Py_ssize_t n_classes, const int64_t* y,
                                double* alpha, double* b, double* U, double* beta,
                                int64_t* count, bint fit_intercept) noexcept nogil:
    return _multiclass(NULL, NULL, Krows, NULL, n, y, rows, m, n, n_classes, alpha, b, U, beta,
                       count, fit_intercept, NULL)


# ---------------------------------------------------------------------------------------------
# def layer: O(1) shape checks and O(n) index checks, then one nogil call.

cdef const double* _weights(const double[::1] sample_weight, Py_ssize_t n) except? NULL:
    """NULL (unit weights), or the checked weights: one finite weight per pool example."""
    if sample_weight is None:
        return NULL
    need(sample_weight.shape[0] == n and all_finite(&sample_weight[0], n),
         "sample_weight must hold one finite weight per pool example")
    return &sample_weight[0]


def dual_epoch_cached(const double[:, ::1] G, const double[::1] y, const int64_t[::1] order,
                      double[::1] alpha, double[::1] b, double[::1] scores, bint fit_intercept,
                      double[::1] u=None, double[::1] beta=None, int64_t[::1] count=None,
                      int64_t[::1] steps=None, *, const double[::1] sample_weight=None):
    cdef Py_ssize_t r, chunk, stop, start = 0, total = 0, n = alpha.shape[0]
    cdef bint averaged
    cdef const double* sw
    check_steps(steps, order.shape[0])
    need(G.shape[0] == n and G.shape[1] == n and scores.shape[0] == n and y.shape[0] == n
         and b.shape[0] == 1,
         "G must be (n, n) and y, scores (n,) for alpha of length n; b (1,)")
    need(all_in_range(order, n), f"order must lie in [0, {n})")
    averaged = check_avg(u, beta, count,
                         u is not None and u.shape[0] == n,
                         beta is not None and beta.shape[0] == 1)
    sw = _weights(sample_weight, n)
    chunk = rows_per_chunk(n // 8)  # a mistake costs n, a correct example O(1)
    while start < order.shape[0]:
        stop = min(order.shape[0], start + chunk)
        with nogil:
            r = binary_cached_weighted(
                &G[0, 0], &y[0], &order[start], stop - start, n, &alpha[0], &b[0], &scores[0],
                &u[0] if averaged else NULL, &beta[0] if averaged else NULL,
                &count[0] if averaged else NULL, fit_intercept,
                &steps[total] if steps is not None else NULL, sw)
        total = chunk_done(r, start, total, order, &steps[0] if steps is not None else NULL)
        start = stop
    return total


def multiclass_dual_epoch_cached(const double[:, ::1] G, const int64_t[::1] y,
                                 const int64_t[::1] order, double[:, ::1] alpha,
                                 double[::1] b, double[:, ::1] scores, bint fit_intercept,
                                 double[:, ::1] U=None, double[::1] beta=None,
                                 int64_t[::1] count=None, *,
                                 const double[::1] sample_weight=None):
    cdef Py_ssize_t r, chunk, stop, start = 0, total = 0
    cdef Py_ssize_t k_classes = alpha.shape[0], n = alpha.shape[1]
    cdef bint averaged
    cdef const double* sw
    need(G.shape[0] == n and G.shape[1] == n and scores.shape[0] == k_classes
         and scores.shape[1] == n and y.shape[0] == n and b.shape[0] == k_classes,
         "G (n, n), scores like alpha (K, n), y (n,), b (K,)")
    need(all_in_range(order, n), f"order must lie in [0, {n})")
    need(all_in_range(y, k_classes), f"y must lie in [0, {k_classes})")
    averaged = check_avg(U, beta, count,
                         U is not None and U.shape[0] == k_classes and U.shape[1] == n,
                         beta is not None and beta.shape[0] == k_classes)
    sw = _weights(sample_weight, n)
    chunk = rows_per_chunk(k_classes * n // 8)
    while start < order.shape[0]:
        stop = min(order.shape[0], start + chunk)
        with nogil:
            r = multiclass_cached_weighted(&G[0, 0], &y[0], &order[start], stop - start, n,
                                           k_classes, &alpha[0, 0], &b[0], &scores[0, 0],
                                           &U[0, 0] if averaged else NULL,
                                           &beta[0] if averaged else NULL,
                                           &count[0] if averaged else NULL, fit_intercept, sw)
        total = chunk_done(r, start, total, order, NULL)
        start = stop
    return total


def dual_epoch_rows(const double[:, ::1] Krows, const int64_t[::1] rows, const double[::1] y,
                    double[::1] alpha, double[::1] b, bint fit_intercept, double[::1] u=None,
                    double[::1] beta=None, int64_t[::1] count=None, int64_t[::1] steps=None,
                    *, const int64_t[::1] cols=None, const double[::1] sample_weight=None):
    cdef Py_ssize_t r, chunk, stop, start = 0, total = 0, n = alpha.shape[0]
    cdef Py_ssize_t nc = n if cols is None else cols.shape[0]
    cdef bint averaged
    cdef const double* sw
    cdef const int64_t* cp
    check_steps(steps, rows.shape[0])
    check_krows(Krows.shape[0], Krows.shape[1], rows, n, cols)
    need(y.shape[0] == n and b.shape[0] == 1, "y must have shape (n,) and b (1,)")
    cp = checked_cols(cols, rows, <const double*>&alpha[0] if n else NULL, 1, n)
    averaged = check_avg(u, beta, count,
                         u is not None and u.shape[0] == n,
                         beta is not None and beta.shape[0] == 1)
    sw = _weights(sample_weight, n)
    chunk = rows_per_chunk(nc)
    while start < rows.shape[0]:
        stop = min(rows.shape[0], start + chunk)
        with nogil:
            r = binary_support_rows(&Krows[start, 0], &rows[start], stop - start, n, cp, nc,
                                    &y[0], &alpha[0], &b[0], &u[0] if averaged else NULL,
                                    &beta[0] if averaged else NULL,
                                    &count[0] if averaged else NULL, fit_intercept,
                                    &steps[total] if steps is not None else NULL, sw)
        total = chunk_done(r, start, total, rows, &steps[0] if steps is not None else NULL)
        start = stop
    return total


def multiclass_dual_epoch_rows(const double[:, ::1] Krows, const int64_t[::1] rows,
                               const int64_t[::1] y, double[:, ::1] alpha, double[::1] b,
                               bint fit_intercept, double[:, ::1] U=None, double[::1] beta=None,
                               int64_t[::1] count=None, *, const int64_t[::1] cols=None,
                               const double[::1] sample_weight=None):
    cdef Py_ssize_t r, chunk, stop, start = 0, total = 0
    cdef Py_ssize_t k_classes = alpha.shape[0], n = alpha.shape[1]
    cdef Py_ssize_t nc = n if cols is None else cols.shape[0]
    cdef bint averaged
    cdef const double* sw
    cdef const int64_t* cp
    check_krows(Krows.shape[0], Krows.shape[1], rows, n, cols)
    need(y.shape[0] == n and b.shape[0] == k_classes, "y must have shape (n,) and b (K,)")
    need(all_in_range(y, k_classes), f"y must lie in [0, {k_classes})")
    cp = checked_cols(cols, rows, <const double*>&alpha[0, 0] if n and k_classes else NULL,
                      k_classes, n)
    averaged = check_avg(U, beta, count,
                         U is not None and U.shape[0] == k_classes and U.shape[1] == n,
                         beta is not None and beta.shape[0] == k_classes)
    sw = _weights(sample_weight, n)
    chunk = rows_per_chunk(k_classes * nc)
    while start < rows.shape[0]:
        stop = min(rows.shape[0], start + chunk)
        with nogil:
            r = multiclass_support_rows(&Krows[start, 0], &rows[start], stop - start, n, cp, nc,
                                        k_classes, &y[0], &alpha[0, 0], &b[0],
                                        &U[0, 0] if averaged else NULL,
                                        &beta[0] if averaged else NULL,
                                        &count[0] if averaged else NULL, fit_intercept, sw)
        total = chunk_done(r, start, total, rows, NULL)
        start = stop
    return total
