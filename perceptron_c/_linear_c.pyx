# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_linear_py``: same functions, same signatures, same arithmetic.

The Python twin is the specification; read its module docstring for the arithmetic contract
(4-lane sums, one step per mistake) that lets the two agree bit for bit. Whole epochs run
without the GIL. Inputs must be canonical (``_validation``); the def functions check shapes
and the visiting order, the gate checks everything else once per fit.
"""
from libc.math cimport sqrt
from libc.stdint cimport int32_t, int64_t
from cython cimport floating


cdef extern from "_prefetch.h":
    void PC_PREFETCH(const void* p) noexcept nogil

# Rows ahead to prefetch in a shuffled epoch, and how much of each row (bytes).
cdef enum:
    AHEAD = 4
    PREFETCH_BYTES = 2048


cdef inline double _dot(const floating* x, const int32_t* idx, const double* w,
                        Py_ssize_t m) noexcept nogil:
    # 4 partial sums: element k goes to lane k % 4 (see _linear_py._dot).
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef Py_ssize_t k = 0
    if idx == NULL:
        while k + 4 <= m:
            s0 += <double>x[k] * w[k]
            s1 += <double>x[k + 1] * w[k + 1]
            s2 += <double>x[k + 2] * w[k + 2]
            s3 += <double>x[k + 3] * w[k + 3]
            k += 4
        if k < m:
            s0 += <double>x[k] * w[k]
        if k + 1 < m:
            s1 += <double>x[k + 1] * w[k + 1]
        if k + 2 < m:
            s2 += <double>x[k + 2] * w[k + 2]
    else:
        while k + 4 <= m:
            s0 += <double>x[k] * w[idx[k]]
            s1 += <double>x[k + 1] * w[idx[k + 1]]
            s2 += <double>x[k + 2] * w[idx[k + 2]]
            s3 += <double>x[k + 3] * w[idx[k + 3]]
            k += 4
        if k < m:
            s0 += <double>x[k] * w[idx[k]]
        if k + 1 < m:
            s1 += <double>x[k + 1] * w[idx[k + 1]]
        if k + 2 < m:
            s2 += <double>x[k + 2] * w[idx[k + 2]]
    return (s0 + s1) + (s2 + s3)


cdef inline double _sqnorm(const floating* x, Py_ssize_t m) noexcept nogil:
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, v
    cdef Py_ssize_t k = 0
    while k + 4 <= m:
        v = x[k]
        s0 += v * v
        v = x[k + 1]
        s1 += v * v
        v = x[k + 2]
        s2 += v * v
        v = x[k + 3]
        s3 += v * v
        k += 4
    while k < m:
        v = x[k]
        if (k & 3) == 0:
            s0 += v * v
        elif (k & 3) == 1:
            s1 += v * v
        else:
            s2 += v * v
        k += 1
    return (s0 + s1) + (s2 + s3)


cdef inline void _add(double* w, double step, const floating* x, const int32_t* idx,
                      Py_ssize_t m) noexcept nogil:
    cdef Py_ssize_t k
    if idx == NULL:
        for k in range(m):
            w[k] += step * <double>x[k]
    else:
        for k in range(m):
            w[idx[k]] += step * <double>x[k]


cdef inline double _step_scale(const floating* x, Py_ssize_t m, bint fit_intercept,
                               bint normalize) noexcept nogil:
    cdef double nrm2
    if not normalize:
        return 1.0
    nrm2 = _sqnorm(x, m)
    if fit_intercept:
        nrm2 += 1.0
    if nrm2 == 0.0:
        return 0.0
    return 1.0 / sqrt(nrm2)


cdef inline void _row(const floating* data, const int32_t* idx, const int64_t* indptr,
                      Py_ssize_t d, int64_t i, const floating** x, const int32_t** cols,
                      Py_ssize_t* m) noexcept nogil:
    if indptr == NULL:
        x[0] = data + i * d
        cols[0] = NULL
        m[0] = d
    else:
        x[0] = data + indptr[i]
        cols[0] = idx + indptr[i]
        m[0] = indptr[i + 1] - indptr[i]


cdef inline void _prefetch_row(const floating* data, const int32_t* idx, const int64_t* indptr,
                               Py_ssize_t d, int64_t i) noexcept nogil:
    cdef const floating* x
    cdef const int32_t* cols
    cdef Py_ssize_t m, off, nbytes
    _row(data, idx, indptr, d, i, &x, &cols, &m)
    nbytes = m * <Py_ssize_t>sizeof(floating)
    if nbytes > PREFETCH_BYTES:
        nbytes = PREFETCH_BYTES
    off = 0
    while off < nbytes:
        PC_PREFETCH(<const char*>x + off)
        off += 64
    if cols != NULL:
        nbytes = m * 4
        if nbytes > PREFETCH_BYTES:
            nbytes = PREFETCH_BYTES
        off = 0
        while off < nbytes:
            PC_PREFETCH(<const char*>cols + off)
            off += 64


cdef Py_ssize_t binary_epoch(const floating* data, const int32_t* idx, const int64_t* indptr,
                             Py_ssize_t d, const double* y, const int64_t* order, Py_ssize_t n,
                             double* w, double* b, double* u, double* beta, int64_t* count,
                             bint fit_intercept, bint normalize, int64_t* steps) noexcept nogil:
    cdef Py_ssize_t t, m, mistakes = 0
    cdef int64_t i
    cdef const floating* x
    cdef const int32_t* cols
    cdef double a, yi, step, cstep
    cdef double bias = b[0]
    cdef bint averaged = u != NULL
    cdef int64_t c = count[0] if averaged else 0
    for t in range(n):
        if t + AHEAD < n:
            _prefetch_row(data, idx, indptr, d, order[t + AHEAD])
        i = order[t]
        _row(data, idx, indptr, d, i, &x, &cols, &m)
        yi = y[i]
        a = _dot(x, cols, w, m) + bias
        if yi * a <= 0.0:
            if steps != NULL:
                steps[mistakes] = t
            mistakes += 1
            step = yi * _step_scale(x, m, fit_intercept, normalize)
            if step != 0.0:
                _add(w, step, x, cols, m)
                if fit_intercept:
                    bias += step
                if averaged:
                    cstep = step * <double>c
                    _add(u, cstep, x, cols, m)
                    if fit_intercept:
                        beta[0] += cstep
        if averaged:
            c += 1
    b[0] = bias
    if averaged:
        count[0] = c
    return mistakes


cdef Py_ssize_t multiclass_epoch(const floating* data, const int32_t* idx, const int64_t* indptr,
                                 Py_ssize_t d, const int64_t* y, const int64_t* order,
                                 Py_ssize_t n, Py_ssize_t n_classes,
                                 double* W, double* b, double* U, double* beta, int64_t* count,
                                 bint fit_intercept, bint normalize) noexcept nogil:
    cdef Py_ssize_t t, m, k, pred, mistakes = 0
    cdef int64_t i, yi
    cdef const floating* x
    cdef const int32_t* cols
    cdef double s, best, step, cstep
    cdef bint averaged = U != NULL
    cdef int64_t c = count[0] if averaged else 0
    for t in range(n):
        if t + AHEAD < n:
            _prefetch_row(data, idx, indptr, d, order[t + AHEAD])
        i = order[t]
        _row(data, idx, indptr, d, i, &x, &cols, &m)
        yi = y[i]
        pred = 0
        best = _dot(x, cols, W, m) + b[0]
        for k in range(1, n_classes):
            s = _dot(x, cols, W + k * d, m) + b[k]
            if s > best:
                pred = k
                best = s
        if pred != yi:
            mistakes += 1
            step = _step_scale(x, m, fit_intercept, normalize)
            if step != 0.0:
                _add(W + yi * d, step, x, cols, m)
                _add(W + pred * d, -step, x, cols, m)
                if fit_intercept:
                    b[yi] += step
                    b[pred] -= step
                if averaged:
                    cstep = step * <double>c
                    _add(U + yi * d, cstep, x, cols, m)
                    _add(U + pred * d, -cstep, x, cols, m)
                    if fit_intercept:
                        beta[yi] += cstep
                        beta[pred] -= cstep
        if averaged:
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
        _row(data, idx, indptr, d, i, &x, &cols, &m)
        for k in range(n_classes):
            out[i * n_classes + k] = _dot(x, cols, W + k * d, m) + b[k]


# ---------------------------------------------------------------------------------------------
# def layer: O(1) shape checks and an O(n) check of the visiting order, then one nogil call.

cdef _need(bint ok, str what):
    if not ok:
        raise ValueError(what)


cdef bint _all_in_range(const int64_t[::1] a, Py_ssize_t hi) noexcept:
    cdef Py_ssize_t t
    cdef bint ok = True
    with nogil:
        for t in range(a.shape[0]):
            if a[t] < 0 or a[t] >= hi:
                ok = False
                break
    return ok


cdef _check_order(const int64_t[::1] order, Py_ssize_t n_rows):
    _need(_all_in_range(order, n_rows), f"order must hold row indices in [0, {n_rows})")


cdef _check_csr(const int64_t[::1] indptr, Py_ssize_t nnz, Py_ssize_t n_idx):
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
    _need(ok, "indptr must be monotone from 0 to len(data), len(indices) == len(data)")


cdef _check_binary(Py_ssize_t n_rows, Py_ssize_t d, Py_ssize_t ny, Py_ssize_t nw, Py_ssize_t nb):
    _need(ny == n_rows, "y must have one label per row")
    _need(nw == d, "w must have one weight per feature")
    _need(nb == 1, "b must have shape (1,)")


cdef _check_multi(Py_ssize_t n_rows, Py_ssize_t d, Py_ssize_t ny, Py_ssize_t wr, Py_ssize_t wc,
                  Py_ssize_t nb):
    _need(ny == n_rows, "y must have one label per row")
    _need(wc == d, "W must have one column per feature")
    _need(nb == wr and wr >= 1, "b must have one entry per row of W")


cdef _check_labels(const int64_t[::1] y, Py_ssize_t n_classes):
    _need(_all_in_range(y, n_classes), f"y must hold class indices in [0, {n_classes})")


def perceptron_epoch_dense(const floating[:, ::1] X, const double[::1] y,
                           const int64_t[::1] order, double[::1] w, double[::1] b,
                           bint fit_intercept, bint normalize, int64_t[::1] steps=None):
    cdef Py_ssize_t r
    _need(steps is None or steps.shape[0] >= order.shape[0],
          "steps must have room for one entry per visited example")
    _check_binary(X.shape[0], X.shape[1], y.shape[0], w.shape[0], b.shape[0])
    _check_order(order, X.shape[0])
    with nogil:
        r = binary_epoch(&X[0, 0], NULL, NULL, X.shape[1], &y[0], &order[0], order.shape[0],
                         &w[0], &b[0], NULL, NULL, NULL, fit_intercept, normalize,
                         &steps[0] if steps is not None else NULL)
    return r


def perceptron_epoch_csr(const floating[::1] data, const int32_t[::1] indices,
                         const int64_t[::1] indptr, const double[::1] y,
                         const int64_t[::1] order, double[::1] w, double[::1] b,
                         bint fit_intercept, bint normalize, int64_t[::1] steps=None):
    cdef Py_ssize_t r
    _need(steps is None or steps.shape[0] >= order.shape[0],
          "steps must have room for one entry per visited example")
    _check_csr(indptr, data.shape[0], indices.shape[0])
    _check_binary(indptr.shape[0] - 1, w.shape[0], y.shape[0], w.shape[0], b.shape[0])
    _check_order(order, indptr.shape[0] - 1)
    with nogil:
        r = binary_epoch(&data[0], &indices[0], &indptr[0], w.shape[0], &y[0], &order[0],
                         order.shape[0], &w[0], &b[0], NULL, NULL, NULL,
                         fit_intercept, normalize, &steps[0] if steps is not None else NULL)
    return r


def averaged_epoch_dense(const floating[:, ::1] X, const double[::1] y,
                         const int64_t[::1] order, double[::1] w, double[::1] b,
                         double[::1] u, double[::1] beta, int64_t[::1] count,
                         bint fit_intercept, bint normalize):
    cdef Py_ssize_t r
    _check_binary(X.shape[0], X.shape[1], y.shape[0], w.shape[0], b.shape[0])
    _check_binary(X.shape[0], X.shape[1], y.shape[0], u.shape[0], beta.shape[0])
    _need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    _check_order(order, X.shape[0])
    with nogil:
        r = binary_epoch(&X[0, 0], NULL, NULL, X.shape[1], &y[0], &order[0], order.shape[0],
                         &w[0], &b[0], &u[0], &beta[0], &count[0], fit_intercept, normalize,
                         NULL)
    return r


def averaged_epoch_csr(const floating[::1] data, const int32_t[::1] indices,
                       const int64_t[::1] indptr, const double[::1] y,
                       const int64_t[::1] order, double[::1] w, double[::1] b,
                       double[::1] u, double[::1] beta, int64_t[::1] count,
                       bint fit_intercept, bint normalize):
    cdef Py_ssize_t r
    _check_csr(indptr, data.shape[0], indices.shape[0])
    _check_binary(indptr.shape[0] - 1, w.shape[0], y.shape[0], w.shape[0], b.shape[0])
    _check_binary(indptr.shape[0] - 1, w.shape[0], y.shape[0], u.shape[0], beta.shape[0])
    _need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    _check_order(order, indptr.shape[0] - 1)
    with nogil:
        r = binary_epoch(&data[0], &indices[0], &indptr[0], w.shape[0], &y[0], &order[0],
                         order.shape[0], &w[0], &b[0], &u[0], &beta[0], &count[0],
                         fit_intercept, normalize, NULL)
    return r


def multiclass_epoch_dense(const floating[:, ::1] X, const int64_t[::1] y,
                           const int64_t[::1] order, double[:, ::1] W, double[::1] b,
                           bint fit_intercept, bint normalize):
    cdef Py_ssize_t r
    _check_multi(X.shape[0], X.shape[1], y.shape[0], W.shape[0], W.shape[1], b.shape[0])
    _check_labels(y, W.shape[0])
    _check_order(order, X.shape[0])
    with nogil:
        r = multiclass_epoch(&X[0, 0], NULL, NULL, X.shape[1], &y[0], &order[0],
                             order.shape[0], W.shape[0], &W[0, 0], &b[0], NULL, NULL, NULL,
                             fit_intercept, normalize)
    return r


def multiclass_epoch_csr(const floating[::1] data, const int32_t[::1] indices,
                         const int64_t[::1] indptr, const int64_t[::1] y,
                         const int64_t[::1] order, double[:, ::1] W, double[::1] b,
                         bint fit_intercept, bint normalize):
    cdef Py_ssize_t r
    _check_csr(indptr, data.shape[0], indices.shape[0])
    _check_multi(indptr.shape[0] - 1, W.shape[1], y.shape[0], W.shape[0], W.shape[1], b.shape[0])
    _check_labels(y, W.shape[0])
    _check_order(order, indptr.shape[0] - 1)
    with nogil:
        r = multiclass_epoch(&data[0], &indices[0], &indptr[0], W.shape[1], &y[0], &order[0],
                             order.shape[0], W.shape[0], &W[0, 0], &b[0], NULL, NULL, NULL,
                             fit_intercept, normalize)
    return r


def multiclass_averaged_epoch_dense(const floating[:, ::1] X, const int64_t[::1] y,
                                    const int64_t[::1] order, double[:, ::1] W, double[::1] b,
                                    double[:, ::1] U, double[::1] beta, int64_t[::1] count,
                                    bint fit_intercept, bint normalize):
    cdef Py_ssize_t r
    _check_multi(X.shape[0], X.shape[1], y.shape[0], W.shape[0], W.shape[1], b.shape[0])
    _check_multi(X.shape[0], X.shape[1], y.shape[0], U.shape[0], U.shape[1], beta.shape[0])
    _need(U.shape[0] == W.shape[0], "U must have the shape of W")
    _need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    _check_labels(y, W.shape[0])
    _check_order(order, X.shape[0])
    with nogil:
        r = multiclass_epoch(&X[0, 0], NULL, NULL, X.shape[1], &y[0], &order[0],
                             order.shape[0], W.shape[0], &W[0, 0], &b[0], &U[0, 0], &beta[0],
                             &count[0], fit_intercept, normalize)
    return r


def multiclass_averaged_epoch_csr(const floating[::1] data, const int32_t[::1] indices,
                                  const int64_t[::1] indptr, const int64_t[::1] y,
                                  const int64_t[::1] order, double[:, ::1] W, double[::1] b,
                                  double[:, ::1] U, double[::1] beta, int64_t[::1] count,
                                  bint fit_intercept, bint normalize):
    cdef Py_ssize_t r
    _check_csr(indptr, data.shape[0], indices.shape[0])
    _check_multi(indptr.shape[0] - 1, W.shape[1], y.shape[0], W.shape[0], W.shape[1], b.shape[0])
    _check_multi(indptr.shape[0] - 1, W.shape[1], y.shape[0], U.shape[0], U.shape[1],
                 beta.shape[0])
    _need(U.shape[0] == W.shape[0], "U must have the shape of W")
    _need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    _check_labels(y, W.shape[0])
    _check_order(order, indptr.shape[0] - 1)
    with nogil:
        r = multiclass_epoch(&data[0], &indices[0], &indptr[0], W.shape[1], &y[0], &order[0],
                             order.shape[0], W.shape[0], &W[0, 0], &b[0], &U[0, 0], &beta[0],
                             &count[0], fit_intercept, normalize)
    return r


def decision_dense(const floating[:, ::1] X, const double[:, ::1] W, const double[::1] b,
                   double[:, ::1] out):
    _need(W.shape[1] == X.shape[1], "W must have one column per feature")
    _need(b.shape[0] == W.shape[0], "b must have one entry per row of W")
    _need(out.shape[0] == X.shape[0] and out.shape[1] == W.shape[0],
          "out must have shape (n_rows, n_classes)")
    if X.shape[0] == 0:
        return
    with nogil:
        decision(&X[0, 0], NULL, NULL, X.shape[1], X.shape[0], W.shape[0], &W[0, 0], &b[0],
                 &out[0, 0])


def decision_csr(const floating[::1] data, const int32_t[::1] indices,
                 const int64_t[::1] indptr, const double[:, ::1] W, const double[::1] b,
                 double[:, ::1] out):
    _check_csr(indptr, data.shape[0], indices.shape[0])
    _need(b.shape[0] == W.shape[0], "b must have one entry per row of W")
    _need(out.shape[0] == indptr.shape[0] - 1 and out.shape[1] == W.shape[0],
          "out must have shape (n_rows, n_classes)")
    if out.shape[0] == 0:
        return
    with nogil:
        decision(&data[0], &indices[0], &indptr[0], W.shape[1], out.shape[0], W.shape[0],
                 &W[0, 0], &b[0], &out[0, 0])
