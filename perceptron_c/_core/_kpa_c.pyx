# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_kpa_py``: same functions, same signatures, same results, bit for bit.

The Python twin is the specification; read its module docstring for the steps and their
order of operations. Whole epochs run without the GIL, in chunks of a few milliseconds
between which the def layer looks for Ctrl-C. For the conjunction kernel the exact sums that
``_kpa_py`` forms with Python integers are formed here in a fixed-point accumulator of 32-bit
limbs held in int64 (carries deferred, propagated once per sum): every term is a float64
mantissa shifted into place, so the sum, its sign, comparisons of two sums and the float64
nearest to a sum (rounded once, ties to even) are exact.
"""
from libc.math cimport isfinite, isinf, ldexp
from libc.stdint cimport int32_t, int64_t
from libc.string cimport memset

from perceptron_c._core._checks cimport (all_finite, all_in_range, between_chunks, need,
                                         non_finite, rows_per_chunk)
from perceptron_c._core._fixedpoint cimport (FIXED_NORM_EVERY, acc_add, acc_cmp, acc_nearest,
                                             acc_norm, acc_sign, accumulator_size)
from perceptron_c._core._lanes cimport dot4

import numpy as np

from perceptron_c._core._kpa_py import __all__  # no-cython-lint: listed once (test_twins)

cdef double DBL_MAX_ = 1.7976931348623157e308
cdef int64_t MAX_EXPONENT = 1 << 24


# ------------------------------------------------------------------------- the PA step

cdef inline double _margin(const double* f, Py_ssize_t R, int64_t yi,
                           Py_ssize_t* r) noexcept nogil:
    """Step 1: z; r[0] = the competing row (-1 for two classes)."""
    cdef Py_ssize_t k
    cdef double best = 0.0
    r[0] = -1
    if R == 1:
        return (1.0 if yi == 1 else -1.0) * f[0]
    for k in range(R):
        if k != yi and (r[0] < 0 or f[k] > best):
            r[0] = k
            best = f[k]
    return f[yi] - best


cdef inline double _tau(double lt, double q, double extra, double cap,
                        bint squared) noexcept nogil:
    cdef double t
    if squared:
        return lt / (q + extra)
    t = lt / q
    return t if t < cap else cap


cdef inline void _add(KPAState* s, bint fi, Py_ssize_t gain, Py_ssize_t lose, Py_ssize_t i,
                      double step) noexcept nogil:
    cdef Py_ssize_t n = s.n
    cdef double cs
    s.alpha[gain * n + i] += step
    if lose >= 0:
        s.alpha[lose * n + i] -= step
    if fi and s.b != NULL:
        s.b[gain] += step
        if lose >= 0:
            s.b[lose] -= step
    if s.u != NULL:
        cs = step * <double>s.c
        s.u[gain * n + i] += cs
        if lose >= 0:
            s.u[lose * n + i] -= cs
        if fi and s.beta != NULL:
            s.beta[gain] += cs
            if lose >= 0:
                s.beta[lose] -= cs


cdef inline bint _move(KPAState* s, const KPAStep* p, Py_ssize_t i, int64_t yi, double lt,
                       Py_ssize_t r, double q, double extra, double cap, double* step,
                       Py_ssize_t* gain) noexcept nogil:
    """Steps 3-5 once the loss lt is known; False when no step is taken (q <= 0)."""
    cdef double tau, w
    if not q > 0.0:
        return False
    tau = _tau(lt, q, extra, cap, p.squared)
    w = 1.0 if p.weight == NULL else p.weight[i]
    if r < 0:
        step[0] = (tau * (1.0 if yi == 1 else -1.0)) * w
        gain[0] = 0
    else:
        step[0] = tau * w
        gain[0] = yi
    s.steps += 1
    _add(s, p.fit_intercept, gain[0], r, i, step[0])
    return True


cdef inline bint _visit(KPAState* s, const KPAStep* p, Py_ssize_t i, int64_t yi,
                        const double* f, double kd, double* step, Py_ssize_t* gain,
                        Py_ssize_t* r) noexcept nogil:
    """Steps 1-5 for the float kernels, given the scores f and kd = K(x_i, x_i) (+ 1)."""
    cdef double z = _margin(f, s.R, yi, r)
    if not z < 1.0:
        return False
    s.total += 1.0 - z
    return _move(s, p, i, yi, 1.0 - z, r[0], kd if r[0] < 0 else 2.0 * kd, p.extra, p.C,
                 step, gain)


cdef Py_ssize_t kpa_cached_core(const double* G, const int64_t* y, const int64_t* order,
                                Py_ssize_t m, KPAState* s, const KPAStep* p, double* scores,
                                double* f) noexcept nogil:
    cdef Py_ssize_t t, j, k, r, gain, n = s.n
    cdef int64_t i
    cdef double step, fi = 1.0 if p.fit_intercept else 0.0
    cdef const double* g
    cdef double* sg
    for t in range(m):
        i = order[t]
        for k in range(s.R):
            f[k] = scores[k * n + i] + s.b[k]
        if not all_finite(f, s.R):
            return -1 - t
        if _visit(s, p, i, y[i], f, G[i * n + i] + fi, &step, &gain, &r):
            g = G + i * n
            sg = scores + gain * n
            for j in range(n):
                sg[j] += step * g[j]
            if r >= 0:
                sg = scores + r * n
                for j in range(n):
                    sg[j] -= step * g[j]
        if s.u != NULL:
            s.c += 1
    return s.steps


cdef Py_ssize_t kpa_rows_core(const double* Krows, const int64_t* y, const int64_t* rows,
                              Py_ssize_t m, KPAState* s, const KPAStep* p,
                              double* f) noexcept nogil:
    cdef Py_ssize_t t, k, r, gain, n = s.n
    cdef int64_t i
    cdef double step, fi = 1.0 if p.fit_intercept else 0.0
    cdef const double* kr
    for t in range(m):
        i = rows[t]
        kr = Krows + t * n
        for k in range(s.R):
            f[k] = dot4(s.alpha + k * n, kr, n) + s.b[k]
        if not all_finite(f, s.R):
            return -1 - t
        _visit(s, p, i, y[i], f, kr[i] + fi, &step, &gain, &r)
        if s.u != NULL:
            s.c += 1
    return s.steps


# ------------------------------------------------------------------------- exact sums
# (the accumulator itself: _fixedpoint.pxd)

cdef inline void _exact_rows(int64_t* A, const double* coef, Py_ssize_t R, Py_ssize_t n,
                             const int32_t* e, const int32_t* ediag, bint fi, Py_ssize_t nl,
                             Py_ssize_t zero) noexcept nogil:
    """A[k] = f_k exactly, normalized: the sum over j of coef[k, j] (2^(e[j] - ediag[j]) +
    [fi] 2^(-ediag[j]))."""
    cdef Py_ssize_t k, j, terms
    cdef int64_t* Ak
    cdef const double* a
    cdef double v
    memset(A, 0, R * nl * sizeof(int64_t))
    for k in range(R):
        Ak = A + k * nl
        a = coef + k * n
        terms = 0
        for j in range(n):
            v = a[j]
            if v != 0.0:
                acc_add(Ak, v, zero + e[j] - ediag[j])
                if fi:
                    acc_add(Ak, v, zero - ediag[j])
                terms += 1
                if terms >= FIXED_NORM_EVERY:
                    acc_norm(Ak, nl)
                    terms = 0
        acc_norm(Ak, nl)


cdef inline Py_ssize_t _best(const int64_t* A, Py_ssize_t R, Py_ssize_t nl,
                             Py_ssize_t skip) noexcept nogil:
    """The first k != skip of the largest sum."""
    cdef Py_ssize_t k, best = -1
    for k in range(R):
        if k != skip and (best < 0 or acc_cmp(A + k * nl, A + best * nl, nl) > 0):
            best = k
    return best


cdef inline bint _finite_column(const KPAState* s, Py_ssize_t i) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(s.R):
        if not isfinite(s.alpha[k * s.n + i]) or (s.u != NULL and
                                                  not isfinite(s.u[k * s.n + i])):
            return False
    return True


cdef Py_ssize_t kpa_conjunction_core(const int32_t* Erows, const int64_t* rows, Py_ssize_t m,
                                     const int32_t* ediag, const int64_t* y, KPAState* s,
                                     const KPAStep* p, int64_t* A, Py_ssize_t nl,
                                     Py_ssize_t zero) noexcept nogil:
    cdef Py_ssize_t t, k, r, gain, R = s.R, n = s.n
    cdef int64_t i, yi, E
    cdef int64_t* T = A + R * nl
    cdef double lt, q, step
    for t in range(m):
        i = rows[t]
        yi = y[i]
        _exact_rows(A, s.alpha, R, n, Erows + t * n, ediag, p.fit_intercept, nl, zero)
        if R == 1:  # T = 1 - s f
            r = -1
            for k in range(nl):
                T[k] = A[k] if yi == 0 else -A[k]
        else:  # T = 1 - (f_y - f_r)
            r = _best(A, R, nl, yi)
            for k in range(nl):
                T[k] = A[r * nl + k] - A[yi * nl + k]
        acc_add(T, 1.0, zero)
        acc_norm(T, nl)
        if acc_sign(T, nl) > 0:
            lt = acc_nearest(T, nl, zero)
            if isinf(lt):
                return -1 - t
            s.total += lt
            E = ediag[i]
            q = (1.0 + ldexp(1.0, <int>-E)) if p.fit_intercept else 1.0
            if _move(s, p, i, yi, lt, r, q if r < 0 else 2.0 * q, ldexp(p.extra, <int>-E),
                     ldexp(p.C, <int>E), &step, &gain) and not _finite_column(s, i):
                return -1 - t
        if s.u != NULL:
            s.c += 1
    return s.steps


cdef void kpa_conjunction_decision_core(const int32_t* E, Py_ssize_t m, const int32_t* ediag,
                                        const double* coef, Py_ssize_t R, Py_ssize_t n,
                                        bint fit_intercept, bint predict, double* out,
                                        int64_t* labels, int64_t* A, Py_ssize_t nl,
                                        Py_ssize_t zero) noexcept nogil:
    cdef Py_ssize_t t, k
    cdef double v
    for t in range(m):
        _exact_rows(A, coef, R, n, E + t * n, ediag, fit_intercept, nl, zero)
        if predict:
            if R == 1:
                labels[t] = 1 if acc_sign(A, nl) > 0 else 0
            else:
                labels[t] = _best(A, R, nl, -1)
            continue
        for k in range(R):
            v = acc_nearest(A + k * nl, nl, zero)
            if isinf(v):
                v = DBL_MAX_ if v > 0 else -DBL_MAX_
            out[t * R + k] = v


# ---------------------------------------------------------------------------------------------
# def layer: the checks of _kpa_py in the same words, then nogil calls in chunks.

cdef object _check_model(object alpha, const int64_t[::1] y, object weight, double C):
    cdef Py_ssize_t rows = alpha.shape[0], n = alpha.shape[1]
    need(rows >= 1, "alpha must have shape (R, n), R >= 1")
    need(y.shape[0] == n, "y must have one class index per pool example")
    need(all_in_range(y, 2 if rows == 1 else rows),
         f"y must lie in [0, {2 if rows == 1 else rows})")
    need(weight is None or weight.shape[0] == n, "weight must have one entry per example")
    need(C > 0, "C must be > 0 (inf: the plain PA)")


cdef bint _check_avg(object u, object beta, object count, object alpha,
                     bint with_beta) except -1:
    if u is None:
        need(beta is None and count is None, "u, beta and count go together")
        return False
    need(count is not None and (beta is None) != with_beta, "u, beta and count go together")
    need(u.shape[0] == alpha.shape[0] and u.shape[1] == alpha.shape[1],
         "u must have the shape of alpha")
    need(beta is None or beta.shape[0] == alpha.shape[0], "beta must have the shape of b")
    need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    return True


cdef object _check_rows(const int64_t[::1] rows, Py_ssize_t n_pool, Py_ssize_t n_krows,
                        Py_ssize_t n_kcols):
    need(n_krows == rows.shape[0], "Krows must have one row per entry of rows")
    need(n_kcols == n_pool, "Krows must have one column per pool example")
    need(all_in_range(rows, n_pool), f"rows must lie in [0, {n_pool})")


cdef KPAState _state(double[:, ::1] alpha, double* b, object u, object beta, object count):
    cdef KPAState s
    cdef double[:, ::1] uv
    cdef double[::1] bv
    s.alpha = &alpha[0, 0]
    s.b = b
    s.u = NULL
    s.beta = NULL
    s.R = alpha.shape[0]
    s.n = alpha.shape[1]
    s.c = 0
    s.total = 0.0
    s.steps = 0
    if u is not None:
        uv = u
        s.u = &uv[0, 0]
        s.c = count[0]
    if beta is not None:
        bv = beta
        s.beta = &bv[0]
    return s


cdef KPAStep _params(double C, bint squared, bint fit_intercept, const double[::1] weight):
    cdef KPAStep p
    p.C = C
    p.extra = 0.5 / C
    p.squared = squared
    p.fit_intercept = fit_intercept
    p.weight = &weight[0] if weight is not None else NULL
    return p


cdef object _store(KPAState* s, object count, object loss):
    if count is not None:
        count[0] = s.c
    if loss is not None:
        loss[0] += s.total


cdef object _chunk_end(Py_ssize_t r, Py_ssize_t start, const int64_t[::1] order, KPAState* s,
                       object count, object loss):
    # after a chunk of an epoch from order[start]: r < 0 is a stop at a non-finite step (what
    # ran before it is kept, then the error), else Ctrl-C's check between chunks
    if r < 0:
        _store(s, count, loss)
        non_finite(start - 1 - r, order[start - 1 - r])
    between_chunks()


def kpa_epoch_cached(const double[:, ::1] G, const int64_t[::1] y, const int64_t[::1] order,
                     const double[::1] weight, double[:, ::1] alpha, double[::1] b,
                     double[:, ::1] scores, double C, bint squared, bint fit_intercept,
                     double[:, ::1] u=None, double[::1] beta=None, int64_t[::1] count=None,
                     double[::1] loss=None):
    cdef Py_ssize_t r, chunk, stop, start = 0, n = alpha.shape[1], R = alpha.shape[0]
    cdef KPAState s
    cdef KPAStep p
    cdef double[::1] f = np.zeros(max(R, 1))
    _check_model(alpha, y, weight, C)
    need(G.shape[0] == n and G.shape[1] == n and scores.shape[0] == R
         and scores.shape[1] == n and b.shape[0] == R,
         "G (n, n), scores like alpha (R, n), b (R,)")
    need(all_in_range(order, n), f"order must lie in [0, {n})")
    _check_avg(u, beta, count, alpha, True)
    need(loss is None or loss.shape[0] == 1, "loss must have shape (1,)")
    s = _state(alpha, &b[0], u, beta, count)
    p = _params(C, squared, fit_intercept, weight)
    chunk = rows_per_chunk(R * n)
    while start < order.shape[0]:
        stop = min(order.shape[0], start + chunk)
        with nogil:
            r = kpa_cached_core(&G[0, 0], &y[0], &order[start], stop - start, &s, &p,
                                &scores[0, 0], &f[0])
        _chunk_end(r, start, order, &s, count, loss)
        start = stop
    _store(&s, count, loss)
    return s.steps


def kpa_epoch_rows(const double[:, ::1] Krows, const int64_t[::1] rows, const int64_t[::1] y,
                   const double[::1] weight, double[:, ::1] alpha, double[::1] b, double C,
                   bint squared, bint fit_intercept, double[:, ::1] u=None,
                   double[::1] beta=None, int64_t[::1] count=None, double[::1] loss=None):
    cdef Py_ssize_t r, chunk, stop, start = 0, n = alpha.shape[1], R = alpha.shape[0]
    cdef KPAState s
    cdef KPAStep p
    cdef double[::1] f = np.zeros(max(R, 1))
    _check_model(alpha, y, weight, C)
    _check_rows(rows, n, Krows.shape[0], Krows.shape[1])
    need(b.shape[0] == R, "b must have shape (R,)")
    _check_avg(u, beta, count, alpha, True)
    need(loss is None or loss.shape[0] == 1, "loss must have shape (1,)")
    s = _state(alpha, &b[0], u, beta, count)
    p = _params(C, squared, fit_intercept, weight)
    chunk = rows_per_chunk(R * n)
    while start < rows.shape[0]:
        stop = min(rows.shape[0], start + chunk)
        with nogil:
            r = kpa_rows_core(&Krows[start, 0], &y[0], &rows[start], stop - start, &s, &p,
                              &f[0])
        _chunk_end(r, start, rows, &s, count, loss)
        start = stop
    _store(&s, count, loss)
    return s.steps


cdef Py_ssize_t _check_exponents(const int32_t[:, ::1] E, const int32_t[::1] ediag,
                                 const double[:, ::1] coef) except -1:
    """max(ediag), after the checks of _kpa_py._check_exponents."""
    cdef Py_ssize_t t, j, n = coef.shape[1]
    cdef int32_t mx = 0
    cdef bint ok = True, in_range = True, finite = True
    need(ediag.shape[0] == n, "ediag must have one entry per pool example")
    need(E.shape[1] == n, "E must have one column per pool example")
    with nogil:
        for j in range(n):
            if ediag[j] < 0 or ediag[j] > MAX_EXPONENT:
                ok = False
            elif ediag[j] > mx:
                mx = ediag[j]
        for t in range(E.shape[0]):
            for j in range(n):
                if E[t, j] < 0 or E[t, j] > ediag[j]:
                    in_range = False
        for t in range(coef.shape[0]):
            for j in range(n):
                if not isfinite(coef[t, j]):
                    finite = False
    need(ok, "ediag must lie in [0, 2^24]")
    need(in_range, "exponents E must lie in [0, ediag]: popcount(x AND x_j) <= popcount(x_j)")
    need(finite, "coefficients must be finite")
    return mx


cdef bint _all_finite(const double[:, ::1] a) noexcept:
    cdef Py_ssize_t t, j
    cdef bint ok = True
    with nogil:
        for t in range(a.shape[0]):
            for j in range(a.shape[1]):
                if not isfinite(a[t, j]):
                    ok = False
    return ok


cdef object _check_diagonal(const int32_t[:, ::1] Erows, const int64_t[::1] rows,
                            const int32_t[::1] ediag):
    cdef Py_ssize_t t
    for t in range(rows.shape[0]):
        need(Erows[t, rows[t]] == ediag[rows[t]], "Erows[t, rows[t]] must be ediag[rows[t]]")


def kpa_conjunction_epoch_rows(const int32_t[:, ::1] Erows, const int64_t[::1] rows,
                               const int32_t[::1] ediag, const int64_t[::1] y,
                               const double[::1] weight, double[:, ::1] alpha, double C,
                               bint squared, bint fit_intercept, double[:, ::1] u=None,
                               int64_t[::1] count=None, double[::1] loss=None):
    cdef Py_ssize_t r, chunk, stop, nl, zero, start = 0, n = alpha.shape[1]
    cdef Py_ssize_t R = alpha.shape[0]
    cdef KPAState s
    cdef KPAStep p
    cdef int64_t[::1] A
    _check_model(alpha, y, weight, C)
    _check_rows(rows, n, Erows.shape[0], Erows.shape[1])
    averaged = _check_avg(u, None, count, alpha, False)
    need(loss is None or loss.shape[0] == 1, "loss must have shape (1,)")
    accumulator_size(_check_exponents(Erows, ediag, alpha), &nl, &zero)
    if averaged:
        need(_all_finite(u), "u must be finite")
    _check_diagonal(Erows, rows, ediag)
    s = _state(alpha, NULL, u, None, count)
    p = _params(C, squared, fit_intercept, weight)
    A = np.zeros((R + 1) * nl, dtype=np.int64)
    chunk = rows_per_chunk(R * (2 * n + 4 * nl))
    while start < rows.shape[0]:
        stop = min(rows.shape[0], start + chunk)
        with nogil:
            r = kpa_conjunction_core(&Erows[start, 0], &rows[start], stop - start, &ediag[0],
                                     &y[0], &s, &p, &A[0], nl, zero)
        _chunk_end(r, start, rows, &s, count, loss)
        start = stop
    _store(&s, count, loss)
    return s.steps


cdef object _decide(const int32_t[:, ::1] E, const int32_t[::1] ediag,
                    const double[:, ::1] coef, bint fit_intercept, double[:, ::1] out,
                    int64_t[::1] labels):
    cdef Py_ssize_t nl, zero, chunk, stop, start = 0, m = E.shape[0]
    cdef Py_ssize_t R = coef.shape[0], n = coef.shape[1]
    cdef int64_t[::1] A
    cdef int32_t[::1] none32 = np.zeros(1, dtype=np.int32)
    cdef double[::1] none64 = np.zeros(1)
    cdef bint predict = labels is not None
    need(R >= 1, "coef must have shape (R, n), R >= 1")
    need((labels.shape[0] if predict else out.shape[0]) == m,
         "out must have one row per row of E")
    accumulator_size(_check_exponents(E, ediag, coef), &nl, &zero)
    need(predict or out.shape[1] == R, "out must have shape (m, R)")
    A = np.zeros(R * nl, dtype=np.int64)
    chunk = rows_per_chunk(R * (2 * n + 2 * nl))
    while start < m:
        stop = min(m, start + chunk)
        with nogil:
            kpa_conjunction_decision_core(
                &E[start, 0] if n else &none32[0], stop - start,
                &ediag[0] if n else &none32[0], &coef[0, 0] if n else &none64[0], R, n,
                fit_intercept, predict, NULL if predict else &out[start, 0],
                &labels[start] if predict else NULL, &A[0], nl, zero)
        start = stop
        between_chunks()


def kpa_conjunction_decision(const int32_t[:, ::1] E, const int32_t[::1] ediag,
                             const double[:, ::1] coef, bint fit_intercept,
                             double[:, ::1] out):
    _decide(E, ediag, coef, fit_intercept, out, None)


def kpa_conjunction_predict(const int32_t[:, ::1] E, const int32_t[::1] ediag,
                            const double[:, ::1] coef, bint fit_intercept, int64_t[::1] out):
    _decide(E, ediag, coef, fit_intercept, None, out)
