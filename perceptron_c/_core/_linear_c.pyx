# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_linear_py``: same functions, same signatures, same arithmetic.

The Python twin is the specification; read its module docstring for the arithmetic contract
(4-lane sums, one step per mistake) that lets the two agree bit for bit. Whole epochs run
without the GIL. Inputs must be canonical (``_validation``); the def functions check shapes
and the visiting order, the gate checks everything else once per fit.
"""
from libc.math cimport fabs, frexp, isfinite, ldexp, sqrt
from libc.stdint cimport int32_t, int64_t
from cython cimport floating

from perceptron_c._core._checks cimport (all_in_range, check_csr, check_steps, chunk_done, need,
                                         rows_per_chunk)
from perceptron_c._core._lanes cimport better, dot4_indexed, row, sqnorm4, sqnorm4_scaled


from perceptron_c._core._linear_py import __all__  # no-cython-lint: listed once (test_twins)


cdef extern from "_prefetch.h":
    void PC_PREFETCH(const void* p) noexcept nogil

# Rows ahead to prefetch in a shuffled epoch, and how much of each row (bytes).
cdef enum:
    AHEAD = 4
    PREFETCH_BYTES = 2048

# A squared norm below it may have lost digits to underflow (see _linear_py._TINY).
cdef double TINY = 2.0 ** -960


cdef inline void _add(double* w, double step, const floating* x, const int32_t* idx,
                      Py_ssize_t m, double p) noexcept nogil:
    # w[k] += step * (x[k] * p); p is a power of two, 1.0 but for rows of extreme scale
    cdef Py_ssize_t k
    if p == 1.0:
        if idx == NULL:
            for k in range(m):
                w[k] += step * <double>x[k]
        else:
            for k in range(m):
                w[idx[k]] += step * <double>x[k]
    elif idx == NULL:
        for k in range(m):
            w[k] += step * (<double>x[k] * p)
    else:
        for k in range(m):
            w[idx[k]] += step * (<double>x[k] * p)


cdef inline void _move(double* W, double* b, Py_ssize_t d, int64_t gain, int64_t lose,
                       double step, const floating* x, const int32_t* idx, Py_ssize_t m,
                       double p, bint fit_intercept) noexcept nogil:
    # a K-class mistake (_linear_py._move): row gain of W (rows of d) gains step * x, row lose
    # loses it; with an intercept, so do b[gain] and b[lose] by step * p
    _add(W + gain * d, step, x, idx, m, p)
    _add(W + lose * d, -step, x, idx, m, p)
    if fit_intercept:
        b[gain] += step * p
        b[lose] -= step * p


cdef inline double _step_scale(const floating* x, Py_ssize_t m, bint fit_intercept,
                               bint normalize, double* p) noexcept nogil:
    # the length of the update and the row's power-of-two scale (see _linear_py._step_scale)
    cdef double nrm2, top = 0.0
    cdef Py_ssize_t k
    cdef int e
    p[0] = 1.0
    if not normalize:
        return 1.0
    nrm2 = sqnorm4(x, m)
    if fit_intercept:
        nrm2 += 1.0
    if TINY <= nrm2 and isfinite(nrm2):
        return 1.0 / sqrt(nrm2)
    for k in range(m):
        if fabs(<double>x[k]) > top:
            top = fabs(<double>x[k])
    if top == 0.0:  # a zero row (without intercept): no update
        return 0.0
    frexp(top, &e)
    e = -e
    if e > 1022:
        e = 1022
    elif e < -1022:
        e = -1022
    p[0] = ldexp(1.0, e)
    nrm2 = sqnorm4_scaled(x, m, p[0])
    if fit_intercept:
        nrm2 += p[0] * p[0]
    return 1.0 / sqrt(nrm2)


cdef inline void _prefetch_ahead(const floating* data, const int32_t* idx, const int64_t* indptr,
                                 Py_ssize_t d, const int64_t* order, Py_ssize_t t, Py_ssize_t n,
                                 const void* y, const double* sample_weight) noexcept nogil:
    # A shuffled epoch reads everything of a row at a random place: the row (AHEAD rows on),
    # its label and weight, and for CSR its indptr entry (twice as far on: the row's place
    # is itself a random read). The label's miss would otherwise stall the mistake test.
    cdef int64_t i
    if indptr != NULL and t + 2 * AHEAD < n:
        PC_PREFETCH(&indptr[order[t + 2 * AHEAD]])
    if t + AHEAD >= n:
        return
    i = order[t + AHEAD]
    PC_PREFETCH(<const char*>y + 8 * i)
    if sample_weight != NULL:
        PC_PREFETCH(&sample_weight[i])
    _prefetch_row(data, idx, indptr, d, i)


cdef inline int64_t _visit(const floating* data, const int32_t* idx, const int64_t* indptr,
                           Py_ssize_t d, const int64_t* order, Py_ssize_t t, Py_ssize_t n,
                           const void* y, const double* sample_weight, const floating** x,
                           const int32_t** cols, Py_ssize_t* m) noexcept nogil:
    # the example at position t of order and its row, once the one AHEAD on is prefetched
    cdef int64_t i
    _prefetch_ahead(data, idx, indptr, d, order, t, n, y, sample_weight)
    i = order[t]
    row(data, idx, indptr, d, i, x, cols, m)
    return i


cdef inline void _prefetch_bytes(const char* p, Py_ssize_t nbytes) noexcept nogil:
    # the first PREFETCH_BYTES of p at most, a cache line at a time
    cdef Py_ssize_t off = 0
    if nbytes > PREFETCH_BYTES:
        nbytes = PREFETCH_BYTES
    while off < nbytes:
        PC_PREFETCH(p + off)
        off += 64


cdef inline void _prefetch_row(const floating* data, const int32_t* idx, const int64_t* indptr,
                               Py_ssize_t d, int64_t i) noexcept nogil:
    cdef const floating* x
    cdef const int32_t* cols
    cdef Py_ssize_t m
    row(data, idx, indptr, d, i, &x, &cols, &m)
    _prefetch_bytes(<const char*>x, m * <Py_ssize_t>sizeof(floating))
    if cols != NULL:
        _prefetch_bytes(<const char*>cols, m * 4)


cdef Py_ssize_t binary_epoch(const floating* data, const int32_t* idx, const int64_t* indptr,
                             Py_ssize_t d, const double* y, const int64_t* order, Py_ssize_t n,
                             double* w, double* b, double* u, double* beta, int64_t* count,
                             bint fit_intercept, bint normalize, int64_t* steps,
                             const double* sample_weight) noexcept nogil:
    cdef Py_ssize_t t, m, mistakes = 0
    cdef int64_t i
    cdef const floating* x
    cdef const int32_t* cols
    cdef double a, yi, step, cstep, p
    cdef double bias = b[0]
    cdef bint averaged = u != NULL
    cdef int64_t c = count[0] if averaged else 0
    for t in range(n):
        i = _visit(data, idx, indptr, d, order, t, n, y, sample_weight, &x, &cols, &m)
        yi = y[i]
        a = dot4_indexed(x, cols, w, m) + bias
        if not isfinite(a):  # never a mistake nor a success: stop, the caller raises
            mistakes = -1 - t
            break
        if yi * a <= 0.0:
            if steps != NULL:
                steps[mistakes] = t
            mistakes += 1
            step = yi * _step_scale(x, m, fit_intercept, normalize, &p)
            if sample_weight != NULL:
                step = step * sample_weight[i]
            if step != 0.0:
                _add(w, step, x, cols, m, p)
                if fit_intercept:
                    bias += step * p
                if averaged:
                    cstep = step * <double>c
                    _add(u, cstep, x, cols, m, p)
                    if fit_intercept:
                        beta[0] += cstep * p
        c += 1  # every example, mistake or not (read only when averaging)
    b[0] = bias
    if averaged:
        count[0] = c
    return mistakes


cdef Py_ssize_t multiclass_epoch(const floating* data, const int32_t* idx, const int64_t* indptr,
                                 Py_ssize_t d, const int64_t* y, const int64_t* order,
                                 Py_ssize_t n, Py_ssize_t n_classes,
                                 double* W, double* b, double* U, double* beta, int64_t* count,
                                 bint fit_intercept, bint normalize,
                                 const double* sample_weight) noexcept nogil:
    cdef Py_ssize_t t, m, k, pred, mistakes = 0
    cdef int64_t i, yi
    cdef const floating* x
    cdef const int32_t* cols
    cdef double best, step, p
    cdef bint averaged = U != NULL, finite
    cdef int64_t c = count[0] if averaged else 0
    for t in range(n):
        i = _visit(data, idx, indptr, d, order, t, n, y, sample_weight, &x, &cols, &m)
        yi = y[i]
        pred = 0
        best = dot4_indexed(x, cols, W, m) + b[0]
        finite = isfinite(best)
        for k in range(1, n_classes):
            better(dot4_indexed(x, cols, W + k * d, m) + b[k], k, &best, &pred, &finite)
        if not finite:  # stop, the caller raises
            mistakes = -1 - t
            break
        if pred != yi:
            mistakes += 1
            step = _step_scale(x, m, fit_intercept, normalize, &p)
            if sample_weight != NULL:
                step = step * sample_weight[i]
            if step != 0.0:
                _move(W, b, d, yi, pred, step, x, cols, m, p, fit_intercept)
                if averaged:
                    _move(U, beta, d, yi, pred, step * <double>c, x, cols, m, p, fit_intercept)
        c += 1
    if averaged:
        count[0] = c
    return mistakes


cdef void decision(const floating* data, const int32_t* idx, const int64_t* indptr,
                   Py_ssize_t d, Py_ssize_t n, Py_ssize_t n_classes,
                   const double* W, const double* b, double* out) noexcept nogil:
    cdef Py_ssize_t i, k, m
    cdef const floating* x
    cdef const int32_t* cols
    for i in range(n):
        row(data, idx, indptr, d, i, &x, &cols, &m)
        for k in range(n_classes):
            out[i * n_classes + k] = dot4_indexed(x, cols, W + k * d, m) + b[k]


# ---------------------------------------------------------------------------------------------
# def layer: O(1) shape checks and an O(n) check of the visiting order, then one nogil call.

cdef _check_order(const int64_t[::1] order, Py_ssize_t n_rows):
    need(all_in_range(order, n_rows), f"order must hold row indices in [0, {n_rows})")


cdef _check_binary(Py_ssize_t n_rows, Py_ssize_t d, Py_ssize_t ny, Py_ssize_t nw, Py_ssize_t nb):
    need(ny == n_rows, "y must have one label per row")
    need(nw == d, "w must have one weight per feature")
    need(nb == 1, "b must have shape (1,)")


cdef _check_multi(Py_ssize_t n_rows, Py_ssize_t d, Py_ssize_t ny, Py_ssize_t wr, Py_ssize_t wc,
                  Py_ssize_t nb):
    need(ny == n_rows, "y must have one label per row")
    need(wc == d, "W must have one column per feature")
    need(nb == wr and wr >= 1, "b must have one entry per row of W")


cdef _check_labels(const int64_t[::1] y, Py_ssize_t n_classes):
    need(all_in_range(y, n_classes), f"y must hold class indices in [0, {n_classes})")


cdef _check_weights(const double[::1] sample_weight, Py_ssize_t n_rows):
    cdef Py_ssize_t t
    cdef bint ok = True
    if sample_weight is None:
        return
    ok = sample_weight.shape[0] == n_rows
    if ok:
        with nogil:
            for t in range(n_rows):
                if not isfinite(sample_weight[t]):
                    ok = False
                    break
    need(ok, "sample_weight must hold one finite weight per row")


cdef inline const double* _weights(const double[::1] sample_weight) noexcept:
    return &sample_weight[0] if sample_weight is not None and sample_weight.shape[0] else NULL


cdef Py_ssize_t _binary_chunks(const floating* data, const int32_t* idx, const int64_t* indptr,
                               Py_ssize_t d, Py_ssize_t row_len, const double* y,
                               const int64_t[::1] order, double* w, double* b, double* u,
                               double* beta, int64_t* count, bint fit_intercept,
                               bint normalize, int64_t* steps,
                               const double* sample_weight) except -1:
    """binary_epoch over ``order`` in chunks, looking for Ctrl-C between them."""
    cdef Py_ssize_t n = order.shape[0], start = 0, stop, r, total = 0
    cdef Py_ssize_t chunk = rows_per_chunk(row_len)
    while start < n:
        stop = min(n, start + chunk)
        with nogil:
            r = binary_epoch(data, idx, indptr, d, y, &order[start], stop - start, w, b, u,
                             beta, count, fit_intercept, normalize,
                             steps + total if steps != NULL else NULL, sample_weight)
        total = chunk_done(r, start, total, order, steps)
        start = stop
    return total


cdef Py_ssize_t _multiclass_chunks(const floating* data, const int32_t* idx,
                                   const int64_t* indptr, Py_ssize_t d, Py_ssize_t row_len,
                                   const int64_t* y, const int64_t[::1] order,
                                   Py_ssize_t n_classes, double* W, double* b, double* U,
                                   double* beta, int64_t* count, bint fit_intercept,
                                   bint normalize, const double* sample_weight) except -1:
    """multiclass_epoch over ``order`` in chunks, looking for Ctrl-C between them."""
    cdef Py_ssize_t n = order.shape[0], start = 0, stop, r, total = 0
    cdef Py_ssize_t chunk = max(1, rows_per_chunk(row_len) // n_classes)
    while start < n:
        stop = min(n, start + chunk)
        with nogil:
            r = multiclass_epoch(data, idx, indptr, d, y, &order[start], stop - start,
                                 n_classes, W, b, U, beta, count, fit_intercept, normalize,
                                 sample_weight)
        total = chunk_done(r, start, total, order, NULL)
        start = stop
    return total


cdef inline Py_ssize_t _row_len(const int64_t[::1] indptr) noexcept:
    return indptr[indptr.shape[0] - 1] // max(1, indptr.shape[0] - 1)


def perceptron_epoch_dense(const floating[:, ::1] X, const double[::1] y,
                           const int64_t[::1] order, double[::1] w, double[::1] b,
                           bint fit_intercept, bint normalize, int64_t[::1] steps=None,
                           const double[::1] sample_weight=None):
    check_steps(steps, order.shape[0])
    _check_binary(X.shape[0], X.shape[1], y.shape[0], w.shape[0], b.shape[0])
    _check_order(order, X.shape[0])
    _check_weights(sample_weight, X.shape[0])
    return _binary_chunks(&X[0, 0], NULL, NULL, X.shape[1], X.shape[1], &y[0], order, &w[0],
                          &b[0], NULL, NULL, NULL, fit_intercept, normalize,
                          &steps[0] if steps is not None else NULL,
                          _weights(sample_weight))


def perceptron_epoch_csr(const floating[::1] data, const int32_t[::1] indices,
                         const int64_t[::1] indptr, const double[::1] y,
                         const int64_t[::1] order, double[::1] w, double[::1] b,
                         bint fit_intercept, bint normalize, int64_t[::1] steps=None,
                         const double[::1] sample_weight=None):
    check_steps(steps, order.shape[0])
    check_csr(indptr, data.shape[0], indices.shape[0])
    _check_binary(indptr.shape[0] - 1, w.shape[0], y.shape[0], w.shape[0], b.shape[0])
    _check_order(order, indptr.shape[0] - 1)
    _check_weights(sample_weight, indptr.shape[0] - 1)
    return _binary_chunks(&data[0], &indices[0], &indptr[0], w.shape[0], _row_len(indptr),
                          &y[0], order, &w[0], &b[0], NULL, NULL, NULL, fit_intercept,
                          normalize, &steps[0] if steps is not None else NULL,
                          _weights(sample_weight))


def averaged_epoch_dense(const floating[:, ::1] X, const double[::1] y,
                         const int64_t[::1] order, double[::1] w, double[::1] b,
                         double[::1] u, double[::1] beta, int64_t[::1] count,
                         bint fit_intercept, bint normalize,
                         const double[::1] sample_weight=None):
    _check_binary(X.shape[0], X.shape[1], y.shape[0], w.shape[0], b.shape[0])
    _check_binary(X.shape[0], X.shape[1], y.shape[0], u.shape[0], beta.shape[0])
    need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    _check_order(order, X.shape[0])
    _check_weights(sample_weight, X.shape[0])
    return _binary_chunks(&X[0, 0], NULL, NULL, X.shape[1], X.shape[1], &y[0], order, &w[0],
                          &b[0], &u[0], &beta[0], &count[0], fit_intercept, normalize, NULL,
                          _weights(sample_weight))


def averaged_epoch_csr(const floating[::1] data, const int32_t[::1] indices,
                       const int64_t[::1] indptr, const double[::1] y,
                       const int64_t[::1] order, double[::1] w, double[::1] b,
                       double[::1] u, double[::1] beta, int64_t[::1] count,
                       bint fit_intercept, bint normalize,
                       const double[::1] sample_weight=None):
    check_csr(indptr, data.shape[0], indices.shape[0])
    _check_binary(indptr.shape[0] - 1, w.shape[0], y.shape[0], w.shape[0], b.shape[0])
    _check_binary(indptr.shape[0] - 1, w.shape[0], y.shape[0], u.shape[0], beta.shape[0])
    need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    _check_order(order, indptr.shape[0] - 1)
    _check_weights(sample_weight, indptr.shape[0] - 1)
    return _binary_chunks(&data[0], &indices[0], &indptr[0], w.shape[0], _row_len(indptr),
                          &y[0], order, &w[0], &b[0], &u[0], &beta[0], &count[0],
                          fit_intercept, normalize, NULL, _weights(sample_weight))


def multiclass_epoch_dense(const floating[:, ::1] X, const int64_t[::1] y,
                           const int64_t[::1] order, double[:, ::1] W, double[::1] b,
                           bint fit_intercept, bint normalize,
                           const double[::1] sample_weight=None):
    _check_multi(X.shape[0], X.shape[1], y.shape[0], W.shape[0], W.shape[1], b.shape[0])
    _check_labels(y, W.shape[0])
    _check_order(order, X.shape[0])
    _check_weights(sample_weight, X.shape[0])
    return _multiclass_chunks(&X[0, 0], NULL, NULL, X.shape[1], X.shape[1], &y[0], order,
                              W.shape[0], &W[0, 0], &b[0], NULL, NULL, NULL, fit_intercept,
                              normalize, _weights(sample_weight))


def multiclass_epoch_csr(const floating[::1] data, const int32_t[::1] indices,
                         const int64_t[::1] indptr, const int64_t[::1] y,
                         const int64_t[::1] order, double[:, ::1] W, double[::1] b,
                         bint fit_intercept, bint normalize,
                         const double[::1] sample_weight=None):
    check_csr(indptr, data.shape[0], indices.shape[0])
    _check_multi(indptr.shape[0] - 1, W.shape[1], y.shape[0], W.shape[0], W.shape[1], b.shape[0])
    _check_labels(y, W.shape[0])
    _check_order(order, indptr.shape[0] - 1)
    _check_weights(sample_weight, indptr.shape[0] - 1)
    return _multiclass_chunks(&data[0], &indices[0], &indptr[0], W.shape[1], _row_len(indptr),
                              &y[0], order, W.shape[0], &W[0, 0], &b[0], NULL, NULL, NULL,
                              fit_intercept, normalize, _weights(sample_weight))


def multiclass_averaged_epoch_dense(const floating[:, ::1] X, const int64_t[::1] y,
                                    const int64_t[::1] order, double[:, ::1] W, double[::1] b,
                                    double[:, ::1] U, double[::1] beta, int64_t[::1] count,
                                    bint fit_intercept, bint normalize,
                                    const double[::1] sample_weight=None):
    _check_multi(X.shape[0], X.shape[1], y.shape[0], W.shape[0], W.shape[1], b.shape[0])
    _check_multi(X.shape[0], X.shape[1], y.shape[0], U.shape[0], U.shape[1], beta.shape[0])
    need(U.shape[0] == W.shape[0], "U must have the shape of W")
    need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    _check_labels(y, W.shape[0])
    _check_order(order, X.shape[0])
    _check_weights(sample_weight, X.shape[0])
    return _multiclass_chunks(&X[0, 0], NULL, NULL, X.shape[1], X.shape[1], &y[0], order,
                              W.shape[0], &W[0, 0], &b[0], &U[0, 0], &beta[0], &count[0],
                              fit_intercept, normalize, _weights(sample_weight))


def multiclass_averaged_epoch_csr(const floating[::1] data, const int32_t[::1] indices,
                                  const int64_t[::1] indptr, const int64_t[::1] y,
                                  const int64_t[::1] order, double[:, ::1] W, double[::1] b,
                                  double[:, ::1] U, double[::1] beta, int64_t[::1] count,
                                  bint fit_intercept, bint normalize,
                                  const double[::1] sample_weight=None):
    check_csr(indptr, data.shape[0], indices.shape[0])
    _check_multi(indptr.shape[0] - 1, W.shape[1], y.shape[0], W.shape[0], W.shape[1], b.shape[0])
    _check_multi(indptr.shape[0] - 1, W.shape[1], y.shape[0], U.shape[0], U.shape[1],
                 beta.shape[0])
    need(U.shape[0] == W.shape[0], "U must have the shape of W")
    need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    _check_labels(y, W.shape[0])
    _check_order(order, indptr.shape[0] - 1)
    _check_weights(sample_weight, indptr.shape[0] - 1)
    return _multiclass_chunks(&data[0], &indices[0], &indptr[0], W.shape[1], _row_len(indptr),
                              &y[0], order, W.shape[0], &W[0, 0], &b[0], &U[0, 0], &beta[0],
                              &count[0], fit_intercept, normalize, _weights(sample_weight))


def decision_dense(const floating[:, ::1] X, const double[:, ::1] W, const double[::1] b,
                   double[:, ::1] out):
    need(W.shape[1] == X.shape[1], "W must have one column per feature")
    need(b.shape[0] == W.shape[0], "b must have one entry per row of W")
    need(out.shape[0] == X.shape[0] and out.shape[1] == W.shape[0],
         "out must have shape (n_rows, n_classes)")
    if X.shape[0] == 0:
        return
    with nogil:
        decision(&X[0, 0], NULL, NULL, X.shape[1], X.shape[0], W.shape[0], &W[0, 0], &b[0],
                 &out[0, 0])


def decision_csr(const floating[::1] data, const int32_t[::1] indices,
                 const int64_t[::1] indptr, const double[:, ::1] W, const double[::1] b,
                 double[:, ::1] out):
    check_csr(indptr, data.shape[0], indices.shape[0])
    need(b.shape[0] == W.shape[0], "b must have one entry per row of W")
    need(out.shape[0] == indptr.shape[0] - 1 and out.shape[1] == W.shape[0],
         "out must have shape (n_rows, n_classes)")
    if out.shape[0] == 0:
        return
    with nogil:
        decision(&data[0], &indices[0], &indptr[0], W.shape[1], out.shape[0], W.shape[0],
                 &W[0, 0], &b[0], &out[0, 0])
