# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_dual_py``: same functions, same signatures, same results.

The Python twin is the specification; read its module docstring for the arithmetic contract
(4-lane sums in the rows mode, index-order score updates in the cached mode) that lets the two
agree bit for bit on float data. Whole epochs run without the GIL.

Conjunction kernel: the activation sum_j a_j 2^E[j] + b is never formed as a float. The
coefficients are added into int64 buckets indexed by exponent (bias in bucket 0) and carried
in base 2 from the lowest bucket up (digit = c mod 2, carry = floor(c / 2)); every bucket then
holds 0 or 1 and the carry out of the top bucket decides the sign. Empty runs of buckets
between the bias and the lowest used exponent are skipped once the carry is 0 or -1, so the
cost per activation is the number of coefficients plus the span of the exponents actually used.
Precondition (true for mistake counts): the sum of |coefficients| landing in one bucket, plus
|b|, stays below 2^62.
"""
from libc.math cimport ldexp, isinf, isfinite
from libc.stdint cimport int32_t, int64_t, uint64_t

import numpy as np

__all__ = [
    "dual_epoch_cached", "dual_epoch_rows", "multiclass_dual_epoch_cached",
    "multiclass_dual_epoch_rows", "conjunction_epoch_rows",
    "multiclass_conjunction_epoch_rows", "conjunction_decision", "conjunction_argmax",
]

cdef double _DBL_MAX = 1.7976931348623157e308
# no int32 exponent is above it: "no coefficient seen yet" for the lowest exponent used
cdef Py_ssize_t _NO_TERM = 0x7fffffff


cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static int pc_clz64(unsigned long long x) {
        unsigned long i;
        _BitScanReverse64(&i, x);
        return 63 - (int)i;
    }
    #else
    static int pc_clz64(unsigned long long x) { return __builtin_clzll(x); }
    #endif
    """
    int pc_clz64(unsigned long long x) noexcept nogil


# ---------------------------------------------------------------------------------- float part
cdef inline double _dot4(const double* a, const double* k, Py_ssize_t n) noexcept nogil:
    # element j goes to lane j % 4, then (s0 + s1) + (s2 + s3) (see _dual_py._dot4)
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef Py_ssize_t j = 0
    while j + 4 <= n:
        s0 += a[j] * k[j]
        s1 += a[j + 1] * k[j + 1]
        s2 += a[j + 2] * k[j + 2]
        s3 += a[j + 3] * k[j + 3]
        j += 4
    if j < n:
        s0 += a[j] * k[j]
    if j + 1 < n:
        s1 += a[j + 1] * k[j + 1]
    if j + 2 < n:
        s2 += a[j + 2] * k[j + 2]
    return (s0 + s1) + (s2 + s3)


cdef Py_ssize_t binary_cached(const double* G, const double* y, const int64_t* order,
                              Py_ssize_t m, Py_ssize_t n, double* alpha, double* b,
                              double* scores, double* u, double* beta, int64_t* count,
                              bint fit_intercept, int64_t* steps) noexcept nogil:
    cdef Py_ssize_t t, j, mistakes = 0
    cdef int64_t i
    cdef double yi, cy
    cdef const double* g
    cdef double bias = b[0]
    cdef bint averaged = u != NULL
    cdef int64_t c = count[0] if averaged else 0
    for t in range(m):
        i = order[t]
        yi = y[i]
        if yi * (scores[i] + bias) <= 0.0:
            if steps != NULL:
                steps[mistakes] = t
            mistakes += 1
            alpha[i] += yi
            g = G + i * n
            for j in range(n):
                scores[j] += yi * g[j]
            if fit_intercept:
                bias += yi
            if averaged:
                cy = yi * <double>c
                u[i] += cy
                if fit_intercept:
                    beta[0] += cy
        if averaged:
            c += 1
    b[0] = bias
    if averaged:
        count[0] = c
    return mistakes


cdef Py_ssize_t multiclass_cached(const double* G, const int64_t* y, const int64_t* order,
                                  Py_ssize_t m, Py_ssize_t n, Py_ssize_t n_classes,
                                  double* alpha, double* b, double* scores, double* U,
                                  double* beta, int64_t* count,
                                  bint fit_intercept) noexcept nogil:
    cdef Py_ssize_t t, j, k, pred, mistakes = 0
    cdef int64_t i, yi
    cdef double s, best, dc
    cdef const double* g
    cdef double* st
    cdef double* sp
    cdef bint averaged = U != NULL
    cdef int64_t c = count[0] if averaged else 0
    for t in range(m):
        i = order[t]
        yi = y[i]
        pred = 0
        best = scores[i] + b[0]
        for k in range(1, n_classes):
            s = scores[k * n + i] + b[k]
            if s > best:
                pred = k
                best = s
        if pred != yi:
            mistakes += 1
            alpha[yi * n + i] += 1.0
            alpha[pred * n + i] -= 1.0
            g = G + i * n
            st = scores + yi * n
            sp = scores + pred * n
            for j in range(n):
                st[j] += g[j]
                sp[j] -= g[j]
            if fit_intercept:
                b[yi] += 1.0
                b[pred] -= 1.0
            if averaged:
                dc = <double>c
                U[yi * n + i] += dc
                U[pred * n + i] -= dc
                if fit_intercept:
                    beta[yi] += dc
                    beta[pred] -= dc
        if averaged:
            c += 1
    if averaged:
        count[0] = c
    return mistakes


cdef Py_ssize_t binary_rows(const double* Krows, const int64_t* rows, Py_ssize_t m,
                            Py_ssize_t n, const double* y, double* alpha, double* b, double* u,
                            double* beta, int64_t* count, bint fit_intercept,
                            int64_t* steps) noexcept nogil:
    cdef Py_ssize_t t, mistakes = 0
    cdef int64_t i
    cdef double yi, cy
    cdef double bias = b[0]
    cdef bint averaged = u != NULL
    cdef int64_t c = count[0] if averaged else 0
    for t in range(m):
        i = rows[t]
        yi = y[i]
        if yi * (_dot4(alpha, Krows + t * n, n) + bias) <= 0.0:
            if steps != NULL:
                steps[mistakes] = t
            mistakes += 1
            alpha[i] += yi
            if fit_intercept:
                bias += yi
            if averaged:
                cy = yi * <double>c
                u[i] += cy
                if fit_intercept:
                    beta[0] += cy
        if averaged:
            c += 1
    b[0] = bias
    if averaged:
        count[0] = c
    return mistakes


cdef Py_ssize_t multiclass_rows(const double* Krows, const int64_t* rows, Py_ssize_t m,
                                Py_ssize_t n, Py_ssize_t n_classes, const int64_t* y,
                                double* alpha, double* b, double* U, double* beta,
                                int64_t* count, bint fit_intercept) noexcept nogil:
    cdef Py_ssize_t t, k, pred, mistakes = 0
    cdef int64_t i, yi
    cdef double s, best, dc
    cdef const double* kr
    cdef bint averaged = U != NULL
    cdef int64_t c = count[0] if averaged else 0
    for t in range(m):
        i = rows[t]
        yi = y[i]
        kr = Krows + t * n
        pred = 0
        best = _dot4(alpha, kr, n) + b[0]
        for k in range(1, n_classes):
            s = _dot4(alpha + k * n, kr, n) + b[k]
            if s > best:
                pred = k
                best = s
        if pred != yi:
            mistakes += 1
            alpha[yi * n + i] += 1.0
            alpha[pred * n + i] -= 1.0
            if fit_intercept:
                b[yi] += 1.0
                b[pred] -= 1.0
            if averaged:
                dc = <double>c
                U[yi * n + i] += dc
                U[pred * n + i] -= dc
                if fit_intercept:
                    beta[yi] += dc
                    beta[pred] -= dc
        if averaged:
            c += 1
    if averaged:
        count[0] = c
    return mistakes


# ---------------------------------------------------------------------------- conjunction part
cdef inline int64_t _halve(int64_t a, int64_t q, int64_t* digit) noexcept nogil:
    # floor((a + q) / 2) and (a + q) mod 2, without forming a + q (which could overflow)
    cdef int64_t low = (a & 1) + (q & 1)
    digit[0] = low & 1
    return (a >> 1) + (q >> 1) + (low >> 1)


cdef inline void _scatter(int64_t* B, const int32_t* e, const int64_t* a, const int64_t* a2,
                          Py_ssize_t n, Py_ssize_t* lo, Py_ssize_t* hi) noexcept nogil:
    # B[e[j]] += a[j] (- a2[j] when a2 != NULL); lo, hi: the range of exponents touched
    cdef Py_ssize_t j, ej, l = lo[0], h = hi[0]
    cdef int64_t v
    if a2 == NULL:
        for j in range(n):
            v = a[j]
            if v != 0:
                ej = e[j]
                B[ej] += v
                if ej < l:
                    l = ej
                if ej > h:
                    h = ej
    else:
        for j in range(n):
            v = a[j] - a2[j]
            if v != 0:
                ej = e[j]
                B[ej] += v
                if ej < l:
                    l = ej
                if ej > h:
                    h = ej
    lo[0] = l
    hi[0] = h


cdef int conjunction_sign(int64_t* B, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Sign (-1, 0, 1) of sum_k B[k] 2^k, where B[0] (the bias) and B[lo..hi] may be nonzero
    (hi < lo: only B[0]); clears those buckets."""
    cdef int64_t q = 0, d, nz = 0, v
    cdef Py_ssize_t k
    if hi < lo:
        v = B[0]
        B[0] = 0
        return (v > 0) - (v < 0)
    k = 0 if B[0] != 0 else lo
    while k <= hi:
        if 0 < k < lo and (q == 0 or q == -1):
            # B[k..lo-1] are empty: the carry repeats digit -q through them
            nz |= -q
            k = lo
            continue
        q = _halve(B[k], q, &d)
        B[k] = 0
        nz |= d
        k += 1
    if q != 0:
        return 1 if q > 0 else -1
    return 1 if nz else 0


cdef double conjunction_value(int64_t* B, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """The float64 nearest to sum_k B[k] 2^k (correctly rounded; beyond float64's range the
    largest finite float64 of its sign), with B as in `conjunction_sign`; clears the buckets."""
    cdef int64_t q = 0, d, v
    cdef uint64_t Q, mant
    cdef Py_ssize_t k, k0, p, H, top
    cdef bint neg
    cdef int64_t sticky = 0
    cdef double r
    if hi < lo:
        v = B[0]
        B[0] = 0
        return <double>v
    if B[0] != 0:
        lo = 0
    for k in range(lo, hi + 1):  # digits in place: sum = q 2^(hi+1) + sum_k B[k] 2^k
        q = _halve(B[k], q, &d)
        B[k] = d
    H = hi + 1
    neg = q < 0
    if neg:  # |sum| = (-q) 2^H - D: two's complement of the digits D, carry ~q
        k0 = lo
        while k0 <= hi and B[k0] == 0:
            k0 += 1
        if k0 <= hi:
            for k in range(k0 + 1, hi + 1):
                B[k] ^= 1
            Q = <uint64_t>(~q)
        else:
            Q = (<uint64_t>0) - (<uint64_t>q)
    else:
        Q = <uint64_t>q
    if Q != 0:
        p = H + 63 - pc_clz64(Q)
    else:
        p = hi
        while p >= lo and B[p] == 0:
            p -= 1
        if p < lo:
            for k in range(lo, hi + 1):
                B[k] = 0
            return 0.0
    # the 64 binary digits p .. p-63 of |sum|, plus a sticky bit for any digit below them
    mant = 0
    for k in range(p, p - 64, -1):
        mant <<= 1
        if k >= H:
            mant |= (Q >> (k - H)) & 1
        elif k >= lo:
            mant |= <uint64_t>B[k]
    k = lo
    while k <= p - 64:  # p - 64 < H: only digits can be below the window
        sticky |= B[k]
        k += 1
    if sticky:
        mant |= 1
    for k in range(lo, hi + 1):
        B[k] = 0
    if p >= 1024:
        r = _DBL_MAX
    else:
        r = ldexp(<double>mant, <int>(p - 63))
        if isinf(r):
            r = _DBL_MAX
    return -r if neg else r


cdef inline int _yint_sign(int64_t yi) noexcept nogil:
    return (yi > 0) - (yi < 0)


cdef Py_ssize_t conjunction_binary_rows(const int32_t* Erows, const int64_t* rows,
                                        Py_ssize_t m, Py_ssize_t n, const double* y,
                                        int64_t* alpha, int64_t* b, int64_t* u, int64_t* beta,
                                        int64_t* count, bint fit_intercept,
                                        int64_t* B, int64_t* steps) noexcept nogil:
    """B: zeroed buckets, longer than max(Erows); left zeroed."""
    cdef Py_ssize_t t, lo, hi, mistakes = 0
    cdef int64_t i, yi
    cdef int64_t bias = b[0]
    cdef bint averaged = u != NULL
    cdef int64_t c = count[0] if averaged else 0
    for t in range(m):
        i = rows[t]
        yi = <int64_t>y[i]
        lo = _NO_TERM
        hi = -1
        _scatter(B, Erows + t * n, alpha, NULL, n, &lo, &hi)
        B[0] += bias
        if _yint_sign(yi) * conjunction_sign(B, lo, hi) <= 0:
            if steps != NULL:
                steps[mistakes] = t
            mistakes += 1
            alpha[i] += yi
            if fit_intercept:
                bias += yi
            if averaged:
                u[i] += yi * c
                if fit_intercept:
                    beta[0] += yi * c
        if averaged:
            c += 1
    b[0] = bias
    if averaged:
        count[0] = c
    return mistakes


cdef inline int _compare(int64_t* B, const int32_t* e, const int64_t* a1, int64_t b1,
                         const int64_t* a2, int64_t b2, Py_ssize_t n) noexcept nogil:
    # sign of (a1 . 2^e + b1) - (a2 . 2^e + b2)
    cdef Py_ssize_t lo = _NO_TERM, hi = -1
    _scatter(B, e, a1, a2, n, &lo, &hi)
    B[0] += b1
    B[0] -= b2
    return conjunction_sign(B, lo, hi)


cdef Py_ssize_t conjunction_multiclass_rows(const int32_t* Erows, const int64_t* rows,
                                            Py_ssize_t m, Py_ssize_t n, Py_ssize_t n_classes,
                                            const int64_t* y, int64_t* alpha, int64_t* b,
                                            int64_t* U, int64_t* beta, int64_t* count,
                                            bint fit_intercept, int64_t* B) noexcept nogil:
    cdef Py_ssize_t t, k, pred, mistakes = 0
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
            if _compare(B, e, alpha + k * n, b[k], alpha + pred * n, b[pred], n) > 0:
                pred = k
        if pred != yi:
            mistakes += 1
            alpha[yi * n + i] += 1
            alpha[pred * n + i] -= 1
            if fit_intercept:
                b[yi] += 1
                b[pred] -= 1
            if averaged:
                U[yi * n + i] += c
                U[pred * n + i] -= c
                if fit_intercept:
                    beta[yi] += c
                    beta[pred] -= c
        if averaged:
            c += 1
    if averaged:
        count[0] = c
    return mistakes


cdef void conjunction_decision_rows(const int32_t* E, Py_ssize_t n_rows, Py_ssize_t n,
                                    const int64_t* coef, const int64_t* b, Py_ssize_t n_classes,
                                    double* out, int64_t* B) noexcept nogil:
    cdef Py_ssize_t i, k, lo, hi
    for i in range(n_rows):
        for k in range(n_classes):
            lo = _NO_TERM
            hi = -1
            _scatter(B, E + i * n, coef + k * n, NULL, n, &lo, &hi)
            B[0] += b[k]
            out[i * n_classes + k] = conjunction_value(B, lo, hi)


cdef void conjunction_argmax_rows(const int32_t* E, Py_ssize_t n_rows, Py_ssize_t n,
                                  const int64_t* coef, const int64_t* b, Py_ssize_t n_classes,
                                  int64_t* out, int64_t* B) noexcept nogil:
    cdef Py_ssize_t i, k, best
    for i in range(n_rows):
        best = 0
        for k in range(1, n_classes):
            if _compare(B, E + i * n, coef + k * n, b[k], coef + best * n, b[best], n) > 0:
                best = k
        out[i] = best


# ---------------------------------------------------------------------------------------------
# def layer: O(1) shape checks and O(n) index checks, then one nogil call.

cdef _need(bint ok, str what):
    if not ok:
        raise ValueError(what)


cdef _check_steps(object steps, Py_ssize_t m):
    _need(steps is None or steps.shape[0] >= m,
          "steps must have room for one entry per visited example")


cdef bint _all_in_range(const int64_t[::1] a, Py_ssize_t hi) noexcept:
    cdef Py_ssize_t t
    cdef bint ok = True
    with nogil:
        for t in range(a.shape[0]):
            if a[t] < 0 or a[t] >= hi:
                ok = False
                break
    return ok


cdef _check_rows(const int64_t[::1] rows, Py_ssize_t n_pool, Py_ssize_t n_krows,
                 Py_ssize_t n_kcols):
    _need(n_krows == rows.shape[0], "Krows must have one row per entry of rows")
    _need(n_kcols == n_pool, "Krows must have one column per pool example")
    _need(_all_in_range(rows, n_pool), f"rows must lie in [0, {n_pool})")


cdef bint _check_avg(object u, object beta, object count, Py_ssize_t count0,
                     bint u_ok, bint beta_ok) except -1:
    if u is None:
        _need(beta is None and count is None, "u, beta and count go together")
        return False
    _need(beta is not None and count is not None, "u, beta and count go together")
    _need(u_ok, "u must have the shape of alpha")
    _need(beta_ok, "beta must have the shape of b")
    _need(count.shape[0] == 1 and count0 >= 1, "count must have shape (1,) and be >= 1")
    return True


cdef inline int64_t _first(int64_t[::1] count) noexcept:
    return count[0] if count is not None and count.shape[0] >= 1 else 0


cdef int _max_exponent(const int32_t[:, ::1] E) except -2:
    """max(E, 0), after checking that E has no negative entry."""
    cdef Py_ssize_t i, j
    cdef int32_t v, mx = 0, mn = 0
    with nogil:
        for i in range(E.shape[0]):
            for j in range(E.shape[1]):
                v = E[i, j]
                if v > mx:
                    mx = v
                if v < mn:
                    mn = v
    _need(mn >= 0, "exponents E must be >= 0")
    return mx


cdef _buckets(const int32_t[:, ::1] E):
    # one bucket per exponent 0 .. max(E): the carry out of the top one is kept in a register
    return np.zeros(_max_exponent(E) + 2, dtype=np.int64)


cdef _check_y_finite(const double[::1] y):
    cdef Py_ssize_t t
    cdef bint ok = True
    with nogil:
        for t in range(y.shape[0]):
            if not isfinite(y[t]) or y[t] >= 9.2e18 or y[t] <= -9.2e18:
                ok = False
                break
    _need(ok, "y must be finite")


def dual_epoch_cached(const double[:, ::1] G, const double[::1] y, const int64_t[::1] order,
                      double[::1] alpha, double[::1] b, double[::1] scores, bint fit_intercept,
                      double[::1] u=None, double[::1] beta=None, int64_t[::1] count=None,
                      int64_t[::1] steps=None):
    cdef Py_ssize_t r, n = alpha.shape[0]
    cdef bint averaged
    _check_steps(steps, order.shape[0])
    _need(G.shape[0] == n and G.shape[1] == n and scores.shape[0] == n and y.shape[0] == n
          and b.shape[0] == 1,
          "G must be (n, n) and y, scores (n,) for alpha of length n; b (1,)")
    _need(_all_in_range(order, n), f"order must lie in [0, {n})")
    averaged = _check_avg(u, beta, count, _first(count),
                          u is not None and u.shape[0] == n,
                          beta is not None and beta.shape[0] == 1)
    if order.shape[0] == 0:
        return 0
    with nogil:
        r = binary_cached(&G[0, 0], &y[0], &order[0], order.shape[0], n, &alpha[0], &b[0],
                          &scores[0], &u[0] if averaged else NULL,
                          &beta[0] if averaged else NULL, &count[0] if averaged else NULL,
                          fit_intercept, &steps[0] if steps is not None else NULL)
    return r


def multiclass_dual_epoch_cached(const double[:, ::1] G, const int64_t[::1] y,
                                 const int64_t[::1] order, double[:, ::1] alpha,
                                 double[::1] b, double[:, ::1] scores, bint fit_intercept,
                                 double[:, ::1] U=None, double[::1] beta=None,
                                 int64_t[::1] count=None):
    cdef Py_ssize_t r, k_classes = alpha.shape[0], n = alpha.shape[1]
    cdef bint averaged
    _need(G.shape[0] == n and G.shape[1] == n and scores.shape[0] == k_classes
          and scores.shape[1] == n and y.shape[0] == n and b.shape[0] == k_classes,
          "G (n, n), scores like alpha (K, n), y (n,), b (K,)")
    _need(_all_in_range(order, n), f"order must lie in [0, {n})")
    _need(_all_in_range(y, k_classes), f"y must lie in [0, {k_classes})")
    averaged = _check_avg(U, beta, count, _first(count),
                          U is not None and U.shape[0] == k_classes and U.shape[1] == n,
                          beta is not None and beta.shape[0] == k_classes)
    if order.shape[0] == 0:
        return 0
    with nogil:
        r = multiclass_cached(&G[0, 0], &y[0], &order[0], order.shape[0], n, k_classes,
                              &alpha[0, 0], &b[0], &scores[0, 0],
                              &U[0, 0] if averaged else NULL, &beta[0] if averaged else NULL,
                              &count[0] if averaged else NULL, fit_intercept)
    return r


def dual_epoch_rows(const double[:, ::1] Krows, const int64_t[::1] rows, const double[::1] y,
                    double[::1] alpha, double[::1] b, bint fit_intercept, double[::1] u=None,
                    double[::1] beta=None, int64_t[::1] count=None, int64_t[::1] steps=None):
    cdef Py_ssize_t r, n = alpha.shape[0]
    cdef bint averaged
    _check_steps(steps, rows.shape[0])
    _check_rows(rows, n, Krows.shape[0], Krows.shape[1])
    _need(y.shape[0] == n and b.shape[0] == 1, "y must have shape (n,) and b (1,)")
    averaged = _check_avg(u, beta, count, _first(count),
                          u is not None and u.shape[0] == n,
                          beta is not None and beta.shape[0] == 1)
    if rows.shape[0] == 0:
        return 0
    with nogil:
        r = binary_rows(&Krows[0, 0], &rows[0], rows.shape[0], n, &y[0], &alpha[0], &b[0],
                        &u[0] if averaged else NULL, &beta[0] if averaged else NULL,
                        &count[0] if averaged else NULL, fit_intercept,
                        &steps[0] if steps is not None else NULL)
    return r


def multiclass_dual_epoch_rows(const double[:, ::1] Krows, const int64_t[::1] rows,
                               const int64_t[::1] y, double[:, ::1] alpha, double[::1] b,
                               bint fit_intercept, double[:, ::1] U=None, double[::1] beta=None,
                               int64_t[::1] count=None):
    cdef Py_ssize_t r, k_classes = alpha.shape[0], n = alpha.shape[1]
    cdef bint averaged
    _check_rows(rows, n, Krows.shape[0], Krows.shape[1])
    _need(y.shape[0] == n and b.shape[0] == k_classes, "y must have shape (n,) and b (K,)")
    _need(_all_in_range(y, k_classes), f"y must lie in [0, {k_classes})")
    averaged = _check_avg(U, beta, count, _first(count),
                          U is not None and U.shape[0] == k_classes and U.shape[1] == n,
                          beta is not None and beta.shape[0] == k_classes)
    if rows.shape[0] == 0:
        return 0
    with nogil:
        r = multiclass_rows(&Krows[0, 0], &rows[0], rows.shape[0], n, k_classes, &y[0],
                            &alpha[0, 0], &b[0], &U[0, 0] if averaged else NULL,
                            &beta[0] if averaged else NULL, &count[0] if averaged else NULL,
                            fit_intercept)
    return r


def conjunction_epoch_rows(const int32_t[:, ::1] Erows, const int64_t[::1] rows,
                           const double[::1] y, int64_t[::1] alpha, int64_t[::1] b,
                           bint fit_intercept, int64_t[::1] u=None, int64_t[::1] beta=None,
                           int64_t[::1] count=None, int64_t[::1] steps=None):
    cdef Py_ssize_t r, n = alpha.shape[0]
    cdef bint averaged
    cdef int64_t[::1] B
    _check_steps(steps, rows.shape[0])
    _check_rows(rows, n, Erows.shape[0], Erows.shape[1])
    _need(y.shape[0] == n and b.shape[0] == 1, "y must have shape (n,) and b (1,)")
    averaged = _check_avg(u, beta, count, _first(count),
                          u is not None and u.shape[0] == n,
                          beta is not None and beta.shape[0] == 1)
    _check_y_finite(y)
    if rows.shape[0] == 0:
        return 0
    B = _buckets(Erows)
    with nogil:
        r = conjunction_binary_rows(&Erows[0, 0], &rows[0], rows.shape[0], n, &y[0],
                                    &alpha[0], &b[0], &u[0] if averaged else NULL,
                                    &beta[0] if averaged else NULL,
                                    &count[0] if averaged else NULL, fit_intercept, &B[0],
                                    &steps[0] if steps is not None else NULL)
    return r


def multiclass_conjunction_epoch_rows(const int32_t[:, ::1] Erows, const int64_t[::1] rows,
                                      const int64_t[::1] y, int64_t[:, ::1] alpha,
                                      int64_t[::1] b, bint fit_intercept,
                                      int64_t[:, ::1] U=None, int64_t[::1] beta=None,
                                      int64_t[::1] count=None):
    cdef Py_ssize_t r, k_classes = alpha.shape[0], n = alpha.shape[1]
    cdef bint averaged
    cdef int64_t[::1] B
    _check_rows(rows, n, Erows.shape[0], Erows.shape[1])
    _need(y.shape[0] == n and b.shape[0] == k_classes, "y must have shape (n,) and b (K,)")
    _need(_all_in_range(y, k_classes), f"y must lie in [0, {k_classes})")
    averaged = _check_avg(U, beta, count, _first(count),
                          U is not None and U.shape[0] == k_classes and U.shape[1] == n,
                          beta is not None and beta.shape[0] == k_classes)
    if rows.shape[0] == 0:
        return 0
    B = _buckets(Erows)
    with nogil:
        r = conjunction_multiclass_rows(&Erows[0, 0], &rows[0], rows.shape[0], n, k_classes,
                                        &y[0], &alpha[0, 0], &b[0],
                                        &U[0, 0] if averaged else NULL,
                                        &beta[0] if averaged else NULL,
                                        &count[0] if averaged else NULL, fit_intercept, &B[0])
    return r


cdef _check_decision(const int32_t[:, ::1] E, const int64_t[:, ::1] coef,
                     const int64_t[::1] b, Py_ssize_t out_rows):
    _need(E.shape[1] == coef.shape[1], "E must have one column per coefficient")
    _need(b.shape[0] == coef.shape[0], "b must have one entry per row of coef")
    _need(out_rows == E.shape[0], "out must have one row per row of E")


def conjunction_decision(const int32_t[:, ::1] E, const int64_t[:, ::1] coef,
                         const int64_t[::1] b, double[:, ::1] out):
    cdef int64_t[::1] B
    _check_decision(E, coef, b, out.shape[0])
    _need(out.shape[1] == coef.shape[0], "out must have shape (n, K)")
    if E.shape[0] == 0 or coef.shape[0] == 0:
        return
    B = _buckets(E)
    with nogil:
        conjunction_decision_rows(&E[0, 0], E.shape[0], E.shape[1], &coef[0, 0], &b[0],
                                  coef.shape[0], &out[0, 0], &B[0])


def conjunction_argmax(const int32_t[:, ::1] E, const int64_t[:, ::1] coef,
                       const int64_t[::1] b, int64_t[::1] out):
    cdef int64_t[::1] B
    _check_decision(E, coef, b, out.shape[0])
    if E.shape[0] == 0:
        return
    _need(coef.shape[0] >= 1, "coef must have at least one row")
    B = _buckets(E)
    with nogil:
        conjunction_argmax_rows(&E[0, 0], E.shape[0], E.shape[1], &coef[0, 0], &b[0],
                                coef.shape[0], &out[0], &B[0])
