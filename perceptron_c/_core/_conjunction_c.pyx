# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_conjunction_py``: same functions, same signatures, same results.

The Python twin is the specification (exact Python integers). Here the activation
sum_j a_j 2^E[j] + b is never formed as a float: the coefficients are added into int64 buckets
indexed by exponent and carried in base 2 (``_bigint.pxd``), so every sign is exact and every
decision value correctly rounded. The cost per activation is the number of coefficients (the
columns given: with ``cols``, the support set) plus the span of the exponents actually used.
Exponents come as int16 or int32 (one compiled loop for each). Whole epochs run without the
GIL.
"""
from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t

from perceptron_c._core._bigint cimport (NO_TERM, conjunction_sign, conjunction_value, exp_t,
                                         scatter)
from perceptron_c._core._checks cimport (abs_sum_to_limit, all_in_range, check_avg,
                                         check_headroom, check_steps, chunk_done, need,
                                         rows_per_chunk)
from perceptron_c._core._lanes cimport add, move
from perceptron_c._core._dual_c cimport check_krows, checked_cols, sorted_position

import numpy as np

from perceptron_c._core._conjunction_py import __all__  # no-cython-lint: listed once (test_twins)


cdef inline int _yint_sign(int64_t yi) noexcept nogil:
    return (yi > 0) - (yi < 0)


cdef inline void _bucket_sum(int64_t* B, Py_ssize_t L, const exp_t* e, const int64_t* a,
                             const int64_t* a2, Py_ssize_t nc, Py_ssize_t top, Py_ssize_t* lo,
                             Py_ssize_t* hi) noexcept nogil:
    # B[e[c]] += a[c] (- a2[c] when a2 != NULL) for c < nc, exponents <= top; lo, hi: the
    # range of the nonzero buckets (hi < lo: none). The coefficients go first into the four
    # zeroed rows of L buckets after B, by c % 4 (no store waits on the one before it), then
    # are merged into B, which leaves them zeroed. Integer sums: exact in any order.
    cdef int64_t* B0 = B + L
    cdef int64_t* B1 = B0 + L
    cdef int64_t* B2 = B1 + L
    cdef int64_t* B3 = B2 + L
    cdef Py_ssize_t c = 0, k, low = NO_TERM, h = -1
    cdef int64_t v
    if a2 == NULL:
        while c + 4 <= nc:
            B0[e[c]] += a[c]
            B1[e[c + 1]] += a[c + 1]
            B2[e[c + 2]] += a[c + 2]
            B3[e[c + 3]] += a[c + 3]
            c += 4
        while c < nc:
            B0[e[c]] += a[c]
            c += 1
    else:
        while c + 4 <= nc:
            B0[e[c]] += a[c] - a2[c]
            B1[e[c + 1]] += a[c + 1] - a2[c + 1]
            B2[e[c + 2]] += a[c + 2] - a2[c + 2]
            B3[e[c + 3]] += a[c + 3] - a2[c + 3]
            c += 4
        while c < nc:
            B0[e[c]] += a[c] - a2[c]
            c += 1
    for k in range(top + 1):
        v = (B0[k] + B1[k]) + (B2[k] + B3[k])
        B0[k] = B1[k] = B2[k] = B3[k] = 0
        if v != 0:
            B[k] += v
            if k < low:
                low = k
            h = k
    lo[0] = low
    hi[0] = h


cdef inline void _gather(int64_t* ac, const int64_t* alpha, Py_ssize_t k_rows, Py_ssize_t n,
                         const int64_t* cols, Py_ssize_t nc) noexcept nogil:
    # ac[k, c] = alpha[k, cols[c]]: the coefficients of the columns, contiguous
    cdef Py_ssize_t k, c
    for k in range(k_rows):
        for c in range(nc):
            ac[k * nc + c] = alpha[k * n + cols[c]]


cdef Py_ssize_t _binary_rows(const exp_t* Erows, const int64_t* rows, Py_ssize_t m,
                             Py_ssize_t n, const int64_t* cols, Py_ssize_t nc,
                             const double* y, int64_t* alpha, int64_t* b, int64_t* u,
                             int64_t* beta, int64_t* count, bint fit_intercept, int64_t* B,
                             Py_ssize_t top, int64_t* ac, int64_t* steps,
                             const int64_t* sample_weight) noexcept nogil:
    """B: zeroed buckets, 5 (top + 2) of them, left zeroed; ac: room for nc coefficients
    (unused without cols)."""
    cdef Py_ssize_t t, lo, hi, L = top + 2, mistakes = 0
    cdef int64_t i, yi, step
    cdef int64_t bias = b[0]
    cdef bint averaged = u != NULL
    cdef int64_t c = count[0] if averaged else 0
    cdef int64_t* a = alpha
    if cols != NULL:
        _gather(ac, alpha, 1, n, cols, nc)
        a = ac
    for t in range(m):
        i = rows[t]
        yi = <int64_t>y[i]
        _bucket_sum(B, L, Erows + t * nc, a, NULL, nc, top, &lo, &hi)
        B[0] += bias
        if _yint_sign(yi) * conjunction_sign(B, lo, hi) <= 0:
            if steps != NULL:
                steps[mistakes] = t
            mistakes += 1
            step = yi if sample_weight == NULL else yi * sample_weight[i]
            add(alpha, &bias, u, beta, i, step, c, fit_intercept)
            if cols != NULL:
                ac[sorted_position(cols, nc, i)] += step
        c += 1  # every example, mistake or not (read only when averaging)
    b[0] = bias
    if averaged:
        count[0] = c
    return mistakes


cdef Py_ssize_t conjunction_binary_rows(const int32_t* Erows, const int64_t* rows,
                                        Py_ssize_t m, Py_ssize_t n, const double* y,
                                        int64_t* alpha, int64_t* b, int64_t* u, int64_t* beta,
                                        int64_t* count, bint fit_intercept,
                                        int64_t* B, int64_t* steps) noexcept nogil:
    # the API's B has max(Erows) + 2 buckets: the plain scatter of _bigint then
    cdef Py_ssize_t t, lo, hi, mistakes = 0
    cdef int64_t i, yi
    cdef int64_t bias = b[0]
    cdef bint averaged = u != NULL
    cdef int64_t c = count[0] if averaged else 0
    for t in range(m):
        i = rows[t]
        yi = <int64_t>y[i]
        lo = NO_TERM
        hi = -1
        scatter(B, Erows + t * n, alpha, NULL, n, &lo, &hi)
        B[0] += bias
        if _yint_sign(yi) * conjunction_sign(B, lo, hi) <= 0:
            if steps != NULL:
                steps[mistakes] = t
            mistakes += 1
            add(alpha, &bias, u, beta, i, yi, c, fit_intercept)
        c += 1  # every example, mistake or not (read only when averaging)
    b[0] = bias
    if averaged:
        count[0] = c
    return mistakes


cdef inline int _compare(int64_t* B, Py_ssize_t top, const exp_t* e, const int64_t* a1,
                         int64_t b1, const int64_t* a2, int64_t b2, Py_ssize_t nc) noexcept nogil:
    # sign of (a1 . 2^e + b1) - (a2 . 2^e + b2)
    cdef Py_ssize_t lo, hi
    _bucket_sum(B, top + 2, e, a1, a2, nc, top, &lo, &hi)
    B[0] += b1
    B[0] -= b2
    return conjunction_sign(B, lo, hi)


cdef Py_ssize_t _multiclass_rows(const exp_t* Erows, const int64_t* rows, Py_ssize_t m,
                                 Py_ssize_t n, const int64_t* cols, Py_ssize_t nc,
                                 Py_ssize_t n_classes, const int64_t* y, int64_t* alpha,
                                 int64_t* b, int64_t* U, int64_t* beta, int64_t* count,
                                 bint fit_intercept, int64_t* B, Py_ssize_t top, int64_t* ac,
                                 const int64_t* sample_weight) noexcept nogil:
    """As _binary_rows; ac: room for n_classes x nc coefficients (unused without cols)."""
    cdef Py_ssize_t t, k, pred, at = 0, mistakes = 0
    cdef int64_t i, yi, step
    cdef const exp_t* e
    cdef bint averaged = U != NULL
    cdef int64_t c = count[0] if averaged else 0
    cdef int64_t* a = alpha
    if cols != NULL:
        _gather(ac, alpha, n_classes, n, cols, nc)
        a = ac
    for t in range(m):
        i = rows[t]
        yi = y[i]
        e = Erows + t * nc
        pred = 0
        for k in range(1, n_classes):
            if _compare(B, top, e, a + k * nc, b[k], a + pred * nc, b[pred], nc) > 0:
                pred = k
        if pred != yi:
            mistakes += 1
            step = 1 if sample_weight == NULL else sample_weight[i]
            move(alpha, b, n, i, yi, pred, step, fit_intercept)
            if averaged:
                move(U, beta, n, i, yi, pred, step * c, fit_intercept)
            if cols != NULL:
                at = sorted_position(cols, nc, i)
                ac[yi * nc + at] += step
                ac[pred * nc + at] -= step
        c += 1
    if averaged:
        count[0] = c
    return mistakes


cdef Py_ssize_t conjunction_multiclass_rows(const int32_t* Erows, const int64_t* rows,
                                            Py_ssize_t m, Py_ssize_t n, Py_ssize_t n_classes,
                                            const int64_t* y, int64_t* alpha, int64_t* b,
                                            int64_t* U, int64_t* beta, int64_t* count,
                                            bint fit_intercept, int64_t* B) noexcept nogil:
    # the API's B has max(Erows) + 2 buckets: the plain scatter of _bigint then
    cdef Py_ssize_t t, k, pred, lo, hi, mistakes = 0
    cdef int64_t i, yi
    cdef const int32_t* e
    cdef bint averaged = U != NULL
    cdef int64_t c = count[0] if averaged else 0
    for t in range(m):
        i = rows[t]
        yi = y[i]
        e = Erows + t * n
        pred = 0
        for k in range(1, n_classes):
            lo = NO_TERM
            hi = -1
            scatter(B, e, alpha + k * n, alpha + pred * n, n, &lo, &hi)
            B[0] += b[k]
            B[0] -= b[pred]
            if conjunction_sign(B, lo, hi) > 0:
                pred = k
        if pred != yi:
            mistakes += 1
            move(alpha, b, n, i, yi, pred, <int64_t>1, fit_intercept)
            if averaged:
                move(U, beta, n, i, yi, pred, c, fit_intercept)
        c += 1
    if averaged:
        count[0] = c
    return mistakes


cdef void _decision_rows(const exp_t* E, Py_ssize_t n_rows, Py_ssize_t n,
                         const int64_t* coef, const int64_t* b, Py_ssize_t n_classes,
                         double* out, int64_t* B, Py_ssize_t top) noexcept nogil:
    cdef Py_ssize_t i, k, lo, hi
    for i in range(n_rows):
        for k in range(n_classes):
            _bucket_sum(B, top + 2, E + i * n, coef + k * n, NULL, n, top, &lo, &hi)
            B[0] += b[k]
            out[i * n_classes + k] = conjunction_value(B, lo, hi)


cdef void conjunction_decision_rows(const int32_t* E, Py_ssize_t n_rows, Py_ssize_t n,
                                    const int64_t* coef, const int64_t* b, Py_ssize_t n_classes,
                                    double* out, int64_t* B) noexcept nogil:
    cdef Py_ssize_t i, k, lo, hi
    for i in range(n_rows):
        for k in range(n_classes):
            lo = NO_TERM
            hi = -1
            scatter(B, E + i * n, coef + k * n, NULL, n, &lo, &hi)
            B[0] += b[k]
            out[i * n_classes + k] = conjunction_value(B, lo, hi)


cdef void _argmax_rows(const exp_t* E, Py_ssize_t n_rows, Py_ssize_t n, const int64_t* coef,
                       const int64_t* b, Py_ssize_t n_classes, int64_t* out, int64_t* B,
                       Py_ssize_t top) noexcept nogil:
    cdef Py_ssize_t i, k, best
    for i in range(n_rows):
        best = 0
        for k in range(1, n_classes):
            if _compare(B, top, E + i * n, coef + k * n, b[k], coef + best * n, b[best], n) > 0:
                best = k
        out[i] = best


cdef void conjunction_argmax_rows(const int32_t* E, Py_ssize_t n_rows, Py_ssize_t n,
                                  const int64_t* coef, const int64_t* b, Py_ssize_t n_classes,
                                  int64_t* out, int64_t* B) noexcept nogil:
    cdef Py_ssize_t i, k, best, lo, hi
    for i in range(n_rows):
        best = 0
        for k in range(1, n_classes):
            lo = NO_TERM
            hi = -1
            scatter(B, E + i * n, coef + k * n, coef + best * n, n, &lo, &hi)
            B[0] += b[k]
            B[0] -= b[best]
            if conjunction_sign(B, lo, hi) > 0:
                best = k
        out[i] = best


# ---------------------------------------------------------------------------------------------
# def layer: O(1) shape checks and O(n) index checks, then one nogil call.

cdef int _max_exponent(const exp_t[:, ::1] E) except -2:
    """max(E, 0), after checking that E has no negative entry."""
    cdef Py_ssize_t j, count = E.shape[0] * E.shape[1]
    cdef exp_t v, mx = 0, mn = 0
    cdef const exp_t* e = &E[0, 0] if count else NULL
    with nogil:
        for j in range(count):  # branch-free: the compiler vectorizes it
            v = e[j]
            mx = v if v > mx else mx
            mn = v if v < mn else mn
    need(mn >= 0, "exponents E must be >= 0")
    return mx


cdef _buckets(Py_ssize_t top):
    # one bucket per exponent 0 .. top and one more (the carry out of the top one is kept in
    # a register), then four rows of as many for the partial sums of _bucket_sum
    return np.zeros(5 * (top + 2), dtype=np.int64)


cdef _check_y_finite(const double[::1] y):
    cdef Py_ssize_t t
    cdef bint ok = True
    with nogil:
        for t in range(y.shape[0]):
            if not isfinite(y[t]) or y[t] >= 9.2e18 or y[t] <= -9.2e18:
                ok = False
                break
    need(ok, "y must be finite")


cdef object _weight_total(const int64_t[::1] sample_weight, const int64_t[::1] rows,
                          Py_ssize_t n):
    """sum_t |w[rows[t]]| (rows already checked), saturated at 2^61; m without weights."""
    cdef int64_t s
    if sample_weight is None:
        return int(rows.shape[0])
    need(sample_weight.shape[0] == n, "sample_weight must hold one int64 weight per pool "
         "example")
    with nogil:
        s = abs_sum_to_limit(&sample_weight[0], &rows[0], rows.shape[0], 0)
    return int(s)


cdef _check_exponents(E):
    need(getattr(E, "dtype", None) in (np.int16, np.int32), "exponents must be int16 or int32")


def conjunction_epoch_rows(Erows, rows, y, alpha, b, fit_intercept, u=None, beta=None,
                           count=None, steps=None, *, cols=None, sample_weight=None):
    _check_exponents(Erows)  # (a fused function's own signature would lose the keywords)
    return _epoch_rows(Erows, rows, y, alpha, b, fit_intercept, u, beta, count, steps, cols,
                       sample_weight)


def multiclass_conjunction_epoch_rows(Erows, rows, y, alpha, b, fit_intercept, U=None,
                                      beta=None, count=None, *, cols=None, sample_weight=None):
    _check_exponents(Erows)
    return _multiclass_epoch_rows(Erows, rows, y, alpha, b, fit_intercept, U, beta, count,
                                  cols, sample_weight)


def _epoch_rows(const exp_t[:, ::1] Erows, const int64_t[::1] rows, const double[::1] y,
                int64_t[::1] alpha, int64_t[::1] b, bint fit_intercept, int64_t[::1] u,
                int64_t[::1] beta, int64_t[::1] count, int64_t[::1] steps,
                const int64_t[::1] cols, const int64_t[::1] sample_weight):
    cdef Py_ssize_t r, m, chunk, stop, start = 0, total = 0, n = alpha.shape[0]
    cdef Py_ssize_t nc = n if cols is None else cols.shape[0]
    cdef bint averaged
    cdef int64_t[::1] B, ac
    cdef Py_ssize_t top
    cdef const int64_t* cp
    check_steps(steps, rows.shape[0])
    check_krows(Erows.shape[0], Erows.shape[1], rows, n, cols)
    need(y.shape[0] == n and b.shape[0] == 1, "y must have shape (n,) and b (1,)")
    cp = checked_cols(cols, rows, <const int64_t*>&alpha[0] if n else NULL, 1, n)
    averaged = check_avg(u, beta, count, u is not None and u.shape[0] == n,
                         beta is not None and beta.shape[0] == 1)
    _check_y_finite(y)
    w_total = _weight_total(sample_weight, rows, n)
    m = rows.shape[0]
    # Python ints: |int64 min| and the worst-case growth would overflow C arithmetic
    check_headroom(alpha, abs(int(b[0])) + 2 * w_total, "alpha")
    if averaged:
        check_headroom(u, abs(int(beta[0])) + 2 * w_total * (int(count[0]) + int(m)), "u")
    if m == 0:
        return 0
    top = _max_exponent(Erows)
    B = _buckets(top)
    ac = np.empty(max(1, nc), dtype=np.int64)
    chunk = rows_per_chunk(nc + top)
    while start < m:
        stop = min(m, start + chunk)
        with nogil:
            r = _binary_rows(&Erows[start, 0], &rows[start], stop - start, n, cp, nc, &y[0],
                             &alpha[0], &b[0], &u[0] if averaged else NULL,
                             &beta[0] if averaged else NULL, &count[0] if averaged else NULL,
                             fit_intercept, &B[0], top, &ac[0],
                             &steps[total] if steps is not None else NULL,
                             &sample_weight[0] if sample_weight is not None else NULL)
        total = chunk_done(r, start, total, rows, &steps[0] if steps is not None else NULL)
        start = stop
    return total


def _multiclass_epoch_rows(const exp_t[:, ::1] Erows, const int64_t[::1] rows,
                           const int64_t[::1] y, int64_t[:, ::1] alpha, int64_t[::1] b,
                           bint fit_intercept, int64_t[:, ::1] U, int64_t[::1] beta,
                           int64_t[::1] count, const int64_t[::1] cols,
                           const int64_t[::1] sample_weight):
    cdef Py_ssize_t r, k, m, chunk, stop, start = 0, total = 0
    cdef Py_ssize_t k_classes = alpha.shape[0], n = alpha.shape[1]
    cdef Py_ssize_t nc = n if cols is None else cols.shape[0]
    cdef bint averaged
    cdef int64_t[::1] B, ac
    cdef Py_ssize_t top
    cdef const int64_t* cp
    check_krows(Erows.shape[0], Erows.shape[1], rows, n, cols)
    need(y.shape[0] == n and b.shape[0] == k_classes, "y must have shape (n,) and b (K,)")
    need(all_in_range(y, k_classes), f"y must lie in [0, {k_classes})")
    cp = checked_cols(cols, rows, <const int64_t*>&alpha[0, 0] if n and k_classes else NULL,
                      k_classes, n)
    averaged = check_avg(U, beta, count,
                         U is not None and U.shape[0] == k_classes and U.shape[1] == n,
                         beta is not None and beta.shape[0] == k_classes)
    w_total = _weight_total(sample_weight, rows, n)
    m = rows.shape[0]
    for k in range(k_classes):
        check_headroom(alpha[k], abs(int(b[k])) + 2 * w_total, "alpha")
        if averaged:
            check_headroom(U[k], abs(int(beta[k])) + 2 * w_total * (int(count[0]) + int(m)),
                           "U")
    if m == 0:
        return 0
    top = _max_exponent(Erows)
    B = _buckets(top)
    ac = np.empty(max(1, k_classes * nc), dtype=np.int64)
    chunk = rows_per_chunk(k_classes * (nc + top))
    while start < m:
        stop = min(m, start + chunk)
        with nogil:
            r = _multiclass_rows(&Erows[start, 0], &rows[start], stop - start, n, cp, nc,
                                 k_classes, &y[0], &alpha[0, 0], &b[0],
                                 &U[0, 0] if averaged else NULL,
                                 &beta[0] if averaged else NULL,
                                 &count[0] if averaged else NULL, fit_intercept, &B[0], top,
                                 &ac[0],
                                 &sample_weight[0] if sample_weight is not None else NULL)
        total = chunk_done(r, start, total, rows, NULL)
        start = stop
    return total


cdef _check_decision(Py_ssize_t e_rows, Py_ssize_t e_cols, const int64_t[:, ::1] coef,
                     const int64_t[::1] b, Py_ssize_t out_rows):
    cdef Py_ssize_t k
    need(e_cols == coef.shape[1], "E must have one column per coefficient")
    need(b.shape[0] == coef.shape[0], "b must have one entry per row of coef")
    need(out_rows == e_rows, "out must have one row per row of E")
    for k in range(coef.shape[0]):
        check_headroom(coef[k], abs(int(b[k])), "coef")


def conjunction_decision(E, coef, b, out):
    _check_exponents(E)
    _decision(E, coef, b, out)


def conjunction_argmax(E, coef, b, out):
    _check_exponents(E)
    _argmax(E, coef, b, out)


def _decision(const exp_t[:, ::1] E, const int64_t[:, ::1] coef, const int64_t[::1] b,
              double[:, ::1] out):
    cdef int64_t[::1] B
    cdef Py_ssize_t top
    _check_decision(E.shape[0], E.shape[1], coef, b, out.shape[0])
    need(out.shape[1] == coef.shape[0], "out must have shape (n, K)")
    if E.shape[0] == 0 or coef.shape[0] == 0:
        return
    top = _max_exponent(E)
    B = _buckets(top)
    with nogil:
        _decision_rows(&E[0, 0], E.shape[0], E.shape[1], &coef[0, 0], &b[0], coef.shape[0],
                       &out[0, 0], &B[0], top)


def _argmax(const exp_t[:, ::1] E, const int64_t[:, ::1] coef, const int64_t[::1] b,
            int64_t[::1] out):
    cdef int64_t[::1] B
    cdef Py_ssize_t top
    _check_decision(E.shape[0], E.shape[1], coef, b, out.shape[0])
    if E.shape[0] == 0:
        return
    need(coef.shape[0] >= 1, "coef must have at least one row")
    top = _max_exponent(E)
    B = _buckets(top)
    with nogil:
        _argmax_rows(&E[0, 0], E.shape[0], E.shape[1], &coef[0, 0], &b[0], coef.shape[0],
                     &out[0], &B[0], top)
