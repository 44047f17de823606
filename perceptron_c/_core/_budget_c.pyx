# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_budget_py``: same functions, same signatures, same results.

The Python twin is the specification: read its module docstring for the slot layout, the
universe of kernel columns and the arithmetic contract (4-lane activations in slot order,
every other sum in index order, each expression in the order written there) that lets the two
agree bit for bit. Whole chunks of an epoch run without the GIL; the exact routine decides its
signs with the bucket sums of ``_bigint.pxd``.
"""
from libc.math cimport fabs, isfinite, sqrt
from libc.stdint cimport int32_t, int64_t

from perceptron_c._core._bigint cimport NO_TERM, conjunction_sign, scatter
from perceptron_c._core._checks cimport (between_chunks, check_avg, check_headroom, need,
                                         non_finite, rows_per_chunk)

import numpy as np

from perceptron_c._core._budget_py import __all__  # no-cython-lint: listed once (test_twins)

cdef double FIFTEEN_32 = 15.0 / 32.0


cdef double _forgetron_phi(Sup* S, const double* K, Py_ssize_t ncol, Py_ssize_t r,
                           Py_ssize_t t, Py_ssize_t n0, int64_t yi, int64_t p, double* q,
                           double* kbuf) noexcept nogil:
    """As _budget_py._forgetron_phi; returns 0 (and leaves Q) when a value is not finite."""
    cdef const double* row = K + S.krow[r] * ncol
    cdef Py_ssize_t k, n = S.counts[0]
    cdef double knew = row[n0 + t], g = 0.0, sig = 0.0, step, fk, A, Bq, C, phi, newq
    _gather(row, S.col, n, kbuf)
    for k in range(S.R):
        if S.R == 1:
            step = 1.0 if yi == 1 else -1.0
        else:
            step = 1.0 if k == yi else (-1.0 if k == p else 0.0)
        fk = dot4(S.alpha + k * S.B, kbuf, n) + step * knew
        if S.fi:
            fk += S.b[k] + step
        g += S.alpha[k * S.B + r] * fk
        sig += fabs(S.alpha[k * S.B + r])
    if S.R > 1:
        sig = sig * 0.5
    A = sig * sig - 2.0 * g
    Bq = 2.0 * sig
    C = q[0] - FIFTEEN_32 * <double>S.counts[4]
    phi = 1.0
    if not A + Bq + C <= 0.0:
        phi = -2.0 * C / (Bq + sqrt(max(Bq * Bq - 4.0 * A * C, 0.0)))
        if phi > 1.0:
            phi = 1.0
    newq = q[0] + ((A * phi) * phi + Bq * phi)
    if not (isfinite(newq) and phi > 0.0):
        return 0.0
    q[0] = newq
    return phi


cdef void _shrink(Sup* S, double phi) noexcept nogil:
    cdef Py_ssize_t s, k, j
    cdef double old, new
    if phi == 1.0:
        return
    for s in range(S.counts[0]):
        for k in range(S.R):
            j = k * S.B + s
            old = S.alpha[j]
            new = old * phi
            if S.avg:
                S.u[j] += (new - old) * <double>S.c
            S.alpha[j] = new
    for k in range(S.R if S.fi else 0):
        old = S.b[k]
        new = old * phi
        if S.avg:
            S.beta[k] += (new - old) * <double>S.c
        S.b[k] = new


cdef Py_ssize_t budget_rows(Sup* S, const double* K, Py_ssize_t ncol, const int64_t* rows,
                            Py_ssize_t t0, Py_ssize_t t1, Py_ssize_t n0, const int64_t* y,
                            int policy, const int64_t* rand, double* q, double* kbuf,
                            double* f, int64_t* info) noexcept nogil:
    """Positions [t0, t1) of budget_epoch; < 0: stopped at -1 - t (info: 1 non-finite, 2 no
    K row for slot info[1])."""
    cdef Py_ssize_t t, s, r, n, mistakes = 0
    cdef int64_t i, yi, p
    cdef double v
    cdef bint full
    for t in range(t0, t1):
        i = rows[t]
        yi = y[i]
        n = S.counts[0]
        _gather(K + t * ncol, S.col, n, kbuf)
        if not _scores(S, kbuf, n, f):
            info[0] = 1
            return -1 - t
        if _decide(f, S.R, yi, &p):
            mistakes += 1
            S.counts[4] += 1
            full = S.where[i] < 0 and n == S.B
            r = -1
            if policy == 1:
                r = rand[t]
            elif full and policy == 2:
                r = _oldest(S)
            v = 1.0
            if full and q != NULL:
                if S.krow[r] < 0:
                    info[0] = 2
                    info[1] = r
                    return -1 - t
                v = _forgetron_phi(S, K, ncol, r, t, n0, yi, p, q, kbuf)
                if not v > 0.0:
                    info[0] = 1
                    return -1 - t
            s = _slot_for(S, i, t, n0, policy, r)
            if v != 1.0:
                _shrink(S, v)
            if s >= 0:
                _coef(S, s, yi, p, v)
                _bias(S, yi, p, v)
        if S.avg:
            S.c += 1
    return mistakes


cdef int _icompare(int64_t* Bk, const int32_t* e, const int64_t* a1, int64_t b1,
                   const int64_t* a2, int64_t b2, Py_ssize_t n) noexcept nogil:
    # sign of (a1 . 2^e + b1) - (a2 . 2^e + b2); a2 == NULL: of a1 . 2^e + b1
    cdef Py_ssize_t lo = NO_TERM, hi = -1
    scatter(Bk, e, a1, a2, n, &lo, &hi)
    Bk[0] += b1
    Bk[0] -= b2
    return conjunction_sign(Bk, lo, hi)


cdef Py_ssize_t exact_rows(Sup* S, const int32_t* E, Py_ssize_t ncol, const int64_t* rows,
                           Py_ssize_t t0, Py_ssize_t t1, Py_ssize_t n0, const int64_t* y,
                           int policy, const int64_t* rand, int32_t* ebuf,
                           int64_t* Bk) noexcept nogil:
    cdef Py_ssize_t t, s, r, k, n, mistakes = 0
    cdef int64_t i, yi, p
    cdef bint mistake
    for t in range(t0, t1):
        i = rows[t]
        yi = y[i]
        n = S.counts[0]
        for s in range(n):
            ebuf[s] = E[t * ncol + S.col[s]]
        p = -1
        if S.R == 1:
            k = _icompare(Bk, ebuf, S.ia, S.ib[0], NULL, 0, n)
            mistake = (k if yi == 1 else -k) <= 0
        else:
            p = 0
            for k in range(1, S.R):
                if _icompare(Bk, ebuf, S.ia + k * S.B, S.ib[k], S.ia + p * S.B, S.ib[p],
                             n) > 0:
                    p = k
            mistake = p != yi
        if mistake:
            mistakes += 1
            S.counts[4] += 1
            r = -1
            if policy == 1:
                r = rand[t]
            elif policy == 2 and S.where[i] < 0 and n == S.B:
                r = _oldest(S)
            s = _slot_for(S, i, t, n0, policy, r)
            if s >= 0:
                _icoef(S, s, yi, p)
        if S.avg:
            S.c += 1
    return mistakes


cdef void _grow_inverse(double* Kinv, Py_ssize_t B, const double* d, Py_ssize_t n,
                        double d2) noexcept nogil:
    cdef Py_ssize_t a, c
    for a in range(n):
        for c in range(n):
            Kinv[a * B + c] += (d[a] * d[c]) / d2
        Kinv[a * B + n] = -d[a] / d2
        Kinv[n * B + a] = -d[a] / d2
    Kinv[n * B + n] = 1.0 / d2


cdef double _margin_step(Py_ssize_t R, double ell, double kd, double d2,
                         double eta) noexcept nogil:
    cdef double w = 1.0 if R == 1 else 2.0
    cdef double du = sqrt(w * max(d2, 0.0)), pu = w * kd, tau = 1.0, x
    if not (ell * eta > du and pu > 0.0):
        return 0.0
    x = ell / pu
    if x < tau:
        tau = x
    x = 2.0 * (ell - du / eta) / pu
    if x < tau:
        tau = x
    return tau


cdef bint _projectron_step(Sup* S, double* Kinv, Py_ssize_t s, const double* d, double kd,
                           double d2, double dsum, double eta, bint mistake, double margin,
                           int64_t i, Py_ssize_t t, Py_ssize_t n0, int64_t yi,
                           int64_t p) noexcept nogil:
    cdef Py_ssize_t j, n = S.counts[0]
    cdef double tau
    if not mistake:
        tau = _margin_step(S.R, 1.0 - margin, kd, d2, eta)
        if tau > 0.0:
            for j in range(n):
                _coef(S, j, yi, p, tau * d[j])
            _bias(S, yi, p, tau * dsum)
            S.counts[3] += 1
        return True
    if s < 0 and (sqrt(max(d2, 0.0)) <= eta or n == S.B):
        for j in range(n):
            _coef(S, j, yi, p, d[j])
        _bias(S, yi, p, dsum)
        S.counts[3] += 1
        return True
    if s < 0:
        if not isfinite(1.0 / d2):
            return False
        _grow_inverse(Kinv, S.B, d, n, d2)
        S.counts[0] = n + 1
        _place(S, n, i, t, n0)
        s = n
    _coef(S, s, yi, p, 1.0)
    _bias(S, yi, p, 1.0)
    return True


cdef Py_ssize_t projectron_rows(Sup* S, const double* K, Py_ssize_t ncol, const int64_t* rows,
                                Py_ssize_t t0, Py_ssize_t t1, Py_ssize_t n0, const int64_t* y,
                                double* Kinv, double eta, bint aggressive, double* kbuf,
                                double* d, double* f) noexcept nogil:
    cdef Py_ssize_t t, a, s, n, mistakes = 0
    cdef int64_t i, yi, p, r
    cdef double margin, kd, d2, dsum
    cdef double* kp = kbuf + S.B  # the kernel values against the slots, + 1 with b
    cdef bint mistake
    for t in range(t0, t1):
        i = rows[t]
        yi = y[i]
        n = S.counts[0]
        _gather(K + t * ncol, S.col, n, kbuf)
        if not _scores(S, kbuf, n, f):
            return -1 - t
        mistake = _decide(f, S.R, yi, &p)
        if S.R == 1:
            margin = f[0] if yi == 1 else -f[0]
        else:
            if not mistake:  # the runner-up, ties to the lowest class
                p = -1
                for r in range(S.R):
                    if r != yi and (p < 0 or f[r] > f[p]):
                        p = r
            margin = f[yi] - f[p]
        if mistake or (aggressive and margin < 1.0):
            s = S.where[i]
            for a in range(n):
                kp[a] = kbuf[a] + 1.0 if S.fi else kbuf[a]
            if s >= 0:  # a support vector projects on itself
                for a in range(n):
                    d[a] = 0.0
                d[s] = 1.0
                kd = kp[s]
                d2 = 0.0
            else:
                for a in range(n):
                    d[a] = dot4(Kinv + a * S.B, kp, n)
                kd = dot4(kp, d, n)
                d2 = (K[t * ncol + n0 + t] + 1.0 if S.fi else K[t * ncol + n0 + t]) - kd
            dsum = 0.0
            for a in range(n):
                dsum += d[a]
            if mistake:
                mistakes += 1
                S.counts[4] += 1
            if not (isfinite(d2) and _projectron_step(S, Kinv, s, d, kd, d2, dsum, eta,
                                                      mistake, margin, i, t, n0, yi, p)):
                return -1 - t
        if S.avg:
            S.c += 1
    return mistakes


# ---------------------------------------------------------------------------------------------
# def layer: the checks of _budget_py (same messages, same order), then one nogil call per
# chunk of rows, looking for Ctrl-C between chunks.

cdef Py_ssize_t _check(Py_ssize_t k0, Py_ssize_t k1, const int64_t[::1] rows,
                       const int64_t[::1] y, Py_ssize_t R, Py_ssize_t B, Py_ssize_t nb,
                       int64_t[:, ::1] slots, int64_t[::1] where,
                       int64_t[::1] counts) except -1:
    """_budget_py._check: returns n0."""
    cdef Py_ssize_t t, s, n, m = rows.shape[0], n_y = y.shape[0]
    cdef int64_t v
    cdef bint ok = True
    need(B >= 1 and nb == R, "alpha must be (R, B) with B >= 1 and b (R,)")
    need(slots.shape[0] == 4 and slots.shape[1] == B and counts.shape[0] == 5
         and where.shape[0] == n_y, "slots must be (4, B), counts (5,) and where (len(y),)")
    need(k0 >= m and k1 >= m, "K must have a row and a column per row")
    for t in range(m):
        ok = ok and 0 <= rows[t] < n_y
    need(ok, f"rows must lie in [0, {n_y})")
    for t in range(n_y):
        ok = ok and 0 <= y[t] < max(R, 2)
    need(ok, f"y must lie in [0, {max(R, 2)})")
    n = counts[0]
    for t in range(5):
        ok = ok and counts[t] >= 0
    need(ok and n <= B, "counts must be >= 0 with counts[0] <= B")
    for s in range(n):
        ok = ok and 0 <= slots[0, s] < k1 and -1 <= slots[1, s] < k0 \
            and -1 <= slots[3, s] < n_y
    need(ok, "slots out of range")
    for t in range(n_y):
        v = where[t]
        ok = ok and (v == -1 or (0 <= v < n and slots[3, v] == t))
    need(ok, "where and slots[3] must agree")
    return k1 - m


cdef _check_policy(int policy, const int64_t[::1] rand, Py_ssize_t m, Py_ssize_t B):
    cdef Py_ssize_t t
    cdef bint ok = True
    need(policy in (0, 1, 2), "policy must be 0 (stop), 1 (random) or 2 (oldest)")
    need((rand is not None) == (policy == 1), "rand goes with policy 1, and only with it")
    if rand is not None:
        ok = rand.shape[0] >= m
        for t in range(m if ok else 0):
            ok = ok and 0 <= rand[t] < B
    need(ok, f"rand must have an entry in [0, {B}) per row")


cdef void _init(Sup* S, Py_ssize_t R, Py_ssize_t B, int64_t[:, ::1] slots, int64_t[::1] where,
                int64_t[::1] counts, bint fit_intercept, int64_t[::1] count):
    S.R, S.B, S.fi = R, B, fit_intercept
    S.col, S.krow = &slots[0, 0], &slots[1, 0]
    S.stamp, S.example = &slots[2, 0], &slots[3, 0]
    S.where, S.counts = &where[0], &counts[0]
    S.avg = count is not None
    S.c = count[0] if S.avg else 0
    S.alpha = S.b = S.u = S.beta = NULL
    S.ia = S.ib = S.iu = S.ibeta = NULL


cdef bint _check_avg(object u, object beta, object count, Py_ssize_t R,
                     Py_ssize_t B) except -1:
    return check_avg(u, beta, count, u is not None and u.shape[0] == R and u.shape[1] == B,
                     beta is not None and beta.shape[0] == R)


cdef void _floats(Sup* S, double[:, ::1] alpha, double[::1] b, double[:, ::1] u,
                  double[::1] beta):
    # the float coefficients (the exact ones are S.ia, S.ib, S.iu, S.ibeta)
    S.alpha, S.b = &alpha[0, 0], &b[0]
    if S.avg:
        S.u, S.beta = &u[0, 0], &beta[0]


cdef Py_ssize_t _chunk_end(Sup* S, int64_t[::1] count, Py_ssize_t r,
                           const int64_t[::1] rows) except -1:
    # after a chunk: the averaging count kept, a stop at a non-finite activation of rows[-1 - r]
    # raised (what ran before it is kept), Ctrl-C checked; the chunk's mistakes
    if S.avg:
        count[0] = S.c
    if r < 0:
        non_finite(-1 - r, rows[-1 - r])
    between_chunks()
    return r


def budget_epoch(const double[:, ::1] K, const int64_t[::1] rows, const int64_t[::1] y,
                 double[:, ::1] alpha, double[::1] b, int64_t[:, ::1] slots,
                 int64_t[::1] where, int64_t[::1] counts, bint fit_intercept, int policy,
                 const int64_t[::1] rand=None, double[::1] shrink=None, double[:, ::1] u=None,
                 double[::1] beta=None, int64_t[::1] count=None):
    cdef Py_ssize_t r, chunk, stop, start = 0, total = 0, m = rows.shape[0]
    cdef Py_ssize_t R = alpha.shape[0], B = alpha.shape[1], n0
    cdef int64_t info[2]
    cdef Sup S
    n0 = _check(K.shape[0], K.shape[1], rows, y, R, B, b.shape[0], slots, where, counts)
    _check_policy(policy, rand, m, B)
    need(shrink is None or (policy == 2 and shrink.shape[0] == 1 and isfinite(shrink[0])),
         "shrink (the Forgetron's Q) must be finite, shape (1,), with policy 2")
    _check_avg(u, beta, count, R, B)
    if m == 0:
        return 0
    _init(&S, R, B, slots, where, counts, fit_intercept, count)
    _floats(&S, alpha, b, u, beta)
    kbuf, f = np.empty(B), np.empty(R)
    cdef double[::1] kb = kbuf, fb = f
    chunk = rows_per_chunk(2 * R * B)
    while start < m:
        stop = min(m, start + chunk)
        with nogil:
            r = budget_rows(&S, &K[0, 0], K.shape[1], &rows[0], start, stop, n0, &y[0],
                            policy, &rand[0] if rand is not None else NULL,
                            &shrink[0] if shrink is not None else NULL, &kb[0], &fb[0], info)
        if r < 0 and info[0] == 2:
            if S.avg:
                count[0] = S.c
            raise ValueError(f"K has no row for slot {info[1]}, which the Forgetron removes")
        total += _chunk_end(&S, count, r, rows)
        start = stop
    return total


cdef Py_ssize_t _max_exponent(const int32_t[:, ::1] E) except -2:
    cdef Py_ssize_t i, j
    cdef int32_t v, mx = 0, mn = 0
    with nogil:
        for i in range(E.shape[0]):
            for j in range(E.shape[1]):
                v = E[i, j]
                mx = v if v > mx else mx
                mn = v if v < mn else mn
    need(mn >= 0, "exponents E must be >= 0")
    return mx


def budget_epoch_exact(const int32_t[:, ::1] E, const int64_t[::1] rows, const int64_t[::1] y,
                       int64_t[:, ::1] alpha, int64_t[::1] b, int64_t[:, ::1] slots,
                       int64_t[::1] where, int64_t[::1] counts, bint fit_intercept, int policy,
                       const int64_t[::1] rand=None, int64_t[:, ::1] u=None,
                       int64_t[::1] beta=None, int64_t[::1] count=None):
    cdef Py_ssize_t k, r, chunk, stop, start = 0, total = 0, m = rows.shape[0]
    cdef Py_ssize_t R = alpha.shape[0], B = alpha.shape[1], n0
    cdef Sup S
    n0 = _check(E.shape[0], E.shape[1], rows, y, R, B, b.shape[0], slots, where, counts)
    _check_policy(policy, rand, m, B)
    mx = _max_exponent(E)
    _check_avg(u, beta, count, R, B)
    for k in range(R):
        check_headroom(alpha[k], abs(int(b[k])) + 2 * int(m), "alpha")
        if u is not None:
            check_headroom(u[k], abs(int(beta[k])) + 2 * int(m) * (int(count[0]) + int(m)),
                           "u")
    if m == 0:
        return 0
    _init(&S, R, B, slots, where, counts, fit_intercept, count)
    S.ia, S.ib = &alpha[0, 0], &b[0]
    if S.avg:
        S.iu, S.ibeta = &u[0, 0], &beta[0]
    ebuf, buckets = np.empty(B, dtype=np.int32), np.zeros(mx + 2, dtype=np.int64)
    cdef int32_t[::1] eb = ebuf
    cdef int64_t[::1] bk = buckets
    chunk = rows_per_chunk(R * (B + mx))
    while start < m:
        stop = min(m, start + chunk)
        with nogil:
            r = exact_rows(&S, &E[0, 0], E.shape[1], &rows[0], start, stop, n0, &y[0],
                           policy, &rand[0] if rand is not None else NULL, &eb[0], &bk[0])
        total += _chunk_end(&S, count, r, rows)
        start = stop
    return total


def projectron_epoch(const double[:, ::1] K, const int64_t[::1] rows, const int64_t[::1] y,
                     double[:, ::1] alpha, double[::1] b, int64_t[:, ::1] slots,
                     int64_t[::1] where, int64_t[::1] counts, double[:, ::1] Kinv, double eta,
                     bint aggressive, bint fit_intercept, double[:, ::1] u=None,
                     double[::1] beta=None, int64_t[::1] count=None):
    cdef Py_ssize_t r, chunk, stop, start = 0, total = 0, m = rows.shape[0]
    cdef Py_ssize_t R = alpha.shape[0], B = alpha.shape[1], n0
    cdef Sup S
    n0 = _check(K.shape[0], K.shape[1], rows, y, R, B, b.shape[0], slots, where, counts)
    need(Kinv.shape[0] == B and Kinv.shape[1] == B, "Kinv must be (B, B)")
    need(isfinite(eta) and eta >= 0.0, "eta must be finite and >= 0")
    _check_avg(u, beta, count, R, B)
    if m == 0:
        return 0
    _init(&S, R, B, slots, where, counts, fit_intercept, count)
    _floats(&S, alpha, b, u, beta)
    kbuf, dbuf, f = np.empty(2 * B), np.empty(B), np.empty(R)
    cdef double[::1] kb = kbuf, db = dbuf, fb = f
    chunk = rows_per_chunk(B * B + 2 * R * B)
    while start < m:
        stop = min(m, start + chunk)
        with nogil:
            r = projectron_rows(&S, &K[0, 0], K.shape[1], &rows[0], start, stop, n0, &y[0],
                                &Kinv[0, 0], eta, aggressive, &kb[0], &db[0], &fb[0])
        total += _chunk_end(&S, count, r, rows)
        start = stop
    return total
