# C-level API of the budget kernel perceptron routines, for Cython code that wants to run the
# chunk kernels without going through Python. No checking at all: every pointer must be valid
# for the sizes given and every index in range (the def functions of _budget_c show the
# checks, _budget_py the layout). A Sup points into the arrays of one call: alpha/b/u/beta
# (float routines) or ia/ib/iu/ibeta (the exact one; the others NULL), the four rows of
# slots, where and counts; c is the averaging count (avg: u/iu given). Each core runs the
# positions [t0, t1) of rows (K or E has row t and column n0 + t for position t) and returns
# the mistakes, or -1 - t when it stopped at position t (budget_rows: info[0] = 1 for a
# non-finite value, 2 for a slot info[1] without a row of K; projectron_rows: a non-finite
# value).
# Buffers: kbuf (B doubles; 2 B for projectron_rows), d (B doubles), f (R doubles), ebuf (B
# int32), Bk (max(E) + 2 zeroed int64).
from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t

from perceptron_c._core._lanes cimport coef_t, dot4

cdef struct Sup:
    double* alpha
    double* b
    double* u
    double* beta
    int64_t* ia
    int64_t* ib
    int64_t* iu
    int64_t* ibeta
    int64_t* col
    int64_t* krow
    int64_t* stamp
    int64_t* example
    int64_t* where
    int64_t* counts
    int64_t c
    Py_ssize_t R
    Py_ssize_t B
    bint fi
    bint avg

cdef Py_ssize_t budget_rows(Sup* S, const double* K, Py_ssize_t ncol, const int64_t* rows,
                            Py_ssize_t t0, Py_ssize_t t1, Py_ssize_t n0, const int64_t* y,
                            int policy, const int64_t* rand, double* q, double* kbuf,
                            double* f, int64_t* info) noexcept nogil

cdef Py_ssize_t exact_rows(Sup* S, const int32_t* E, Py_ssize_t ncol, const int64_t* rows,
                           Py_ssize_t t0, Py_ssize_t t1, Py_ssize_t n0, const int64_t* y,
                           int policy, const int64_t* rand, int32_t* ebuf,
                           int64_t* Bk) noexcept nogil

cdef Py_ssize_t projectron_rows(Sup* S, const double* K, Py_ssize_t ncol, const int64_t* rows,
                                Py_ssize_t t0, Py_ssize_t t1, Py_ssize_t n0, const int64_t* y,
                                double* Kinv, double eta, bint aggressive, double* kbuf,
                                double* d, double* f) noexcept nogil


# ---------------------------------------------------------------------------------------------
# Inline helpers of the cores: the slot bookkeeping of _budget_py._Support, step by step.

cdef inline void _gather(const double* krow, const int64_t* col, Py_ssize_t n,
                         double* out) noexcept nogil:
    cdef Py_ssize_t s
    for s in range(n):
        out[s] = krow[col[s]]


cdef inline bint _scores(Sup* S, const double* kr, Py_ssize_t n, double* f) noexcept nogil:
    """f[k] = alpha[k] . kr + b[k]; False if one is not finite."""
    cdef Py_ssize_t k
    cdef bint finite = True
    for k in range(S.R):
        f[k] = dot4(S.alpha + k * S.B, kr, n) + S.b[k]
        finite = finite and isfinite(f[k])
    return finite


cdef inline bint _decide(const double* f, Py_ssize_t R, int64_t yi, int64_t* pred) noexcept nogil:
    cdef Py_ssize_t k
    cdef int64_t p = 0
    if R == 1:
        pred[0] = -1
        return (f[0] if yi == 1 else -f[0]) <= 0.0
    for k in range(1, R):
        if f[k] > f[p]:
            p = k
    pred[0] = p
    return p != yi


cdef inline void _coef(Sup* S, Py_ssize_t s, int64_t yi, int64_t p, double v) noexcept nogil:
    cdef double yv, cv
    if S.R == 1:
        yv = (1.0 if yi == 1 else -1.0) * v
        S.alpha[s] += yv
        if S.avg:
            S.u[s] += yv * <double>S.c
    else:
        S.alpha[yi * S.B + s] += v
        S.alpha[p * S.B + s] -= v
        if S.avg:
            cv = v * <double>S.c
            S.u[yi * S.B + s] += cv
            S.u[p * S.B + s] -= cv


cdef inline void _bias(Sup* S, int64_t yi, int64_t p, double v) noexcept nogil:
    cdef double yv, cv
    if not S.fi:
        return
    if S.R == 1:
        yv = (1.0 if yi == 1 else -1.0) * v
        S.b[0] += yv
        if S.avg:
            S.beta[0] += yv * <double>S.c
    else:
        S.b[yi] += v
        S.b[p] -= v
        if S.avg:
            cv = v * <double>S.c
            S.beta[yi] += cv
            S.beta[p] -= cv


cdef inline void _icoef(Sup* S, Py_ssize_t s, int64_t yi, int64_t p) noexcept nogil:
    # _coef and _bias for the int64 coefficients of the exact routine (v = 1)
    cdef int64_t yv
    if S.R == 1:
        yv = 1 if yi == 1 else -1
        S.ia[s] += yv
        if S.fi:
            S.ib[0] += yv
        if S.avg:
            S.iu[s] += yv * S.c
            if S.fi:
                S.ibeta[0] += yv * S.c
    else:
        S.ia[yi * S.B + s] += 1
        S.ia[p * S.B + s] -= 1
        if S.fi:
            S.ib[yi] += 1
            S.ib[p] -= 1
        if S.avg:
            S.iu[yi * S.B + s] += S.c
            S.iu[p * S.B + s] -= S.c
            if S.fi:
                S.ibeta[yi] += S.c
                S.ibeta[p] -= S.c


cdef inline void _take_out(coef_t* a, coef_t* b, coef_t* u, coef_t* beta, Py_ssize_t k,
                           Py_ssize_t at, bint fi, bint avg) noexcept nogil:
    # coefficient at (of class k) leaves: its share of b[k] (and beta[k]) goes with it
    if fi:
        b[k] -= a[at]
        if avg:
            beta[k] -= u[at]
    a[at] = 0
    if avg:
        u[at] = 0


cdef inline void _evict(Sup* S, Py_ssize_t s) noexcept nogil:
    cdef Py_ssize_t k
    if S.example[s] >= 0:
        S.where[S.example[s]] = -1
    for k in range(S.R):
        if S.alpha != NULL:
            _take_out(S.alpha, S.b, S.u, S.beta, k, k * S.B + s, S.fi, S.avg)
        else:
            _take_out(S.ia, S.ib, S.iu, S.ibeta, k, k * S.B + s, S.fi, S.avg)
    S.counts[2] += 1


cdef inline void _place(Sup* S, Py_ssize_t s, int64_t i, Py_ssize_t t,
                        Py_ssize_t n0) noexcept nogil:
    S.col[s] = n0 + t
    S.krow[s] = t
    S.example[s] = i
    S.stamp[s] = S.counts[1]
    S.counts[1] += 1
    S.where[i] = s


cdef inline Py_ssize_t _oldest(Sup* S) noexcept nogil:
    cdef Py_ssize_t s, best = 0
    for s in range(1, S.counts[0]):
        if S.stamp[s] < S.stamp[best]:
            best = s
    return best


cdef inline Py_ssize_t _slot_for(Sup* S, int64_t i, Py_ssize_t t, Py_ssize_t n0, int policy,
                                 Py_ssize_t r) noexcept nogil:
    """As _budget_py._slot_for: the slot a mistake on i updates; -1: none (Stoptron)."""
    cdef Py_ssize_t n = S.counts[0]
    if S.where[i] >= 0:
        return S.where[i]
    if n < S.B:
        S.counts[0] = n + 1
        _place(S, n, i, t, n0)
        return n
    if policy == 0:
        S.counts[2] += 1
        return -1
    _evict(S, r)
    _place(S, r, i, t, n0)
    return r
