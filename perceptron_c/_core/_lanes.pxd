# The 4-lane sums of the arithmetic contract (``_contract``, its Python twin, states it): term
# k of a sum goes to partial sum (lane) k % 4, each lane adds its products in the order of k,
# each product is formed in double precision and rounded before it is added (the build passes
# -ffp-contract=off), and the sum is (s0 + s1) + (s2 + s3). Every C twin that sums lanes
# cimports them from here, so that there is one copy of the order of operations: dense rows
# (dot4), indexed rows such as CSR (dot4_indexed: lane by position in the row; dot4_averaged
# on averaged weights formed on the fly), and columns (dot4_cols, sqnorm4_cols, and on two
# sparse rows dot4_merge and sqnorm4_halfdiff: lane by column). row() is where row i of dense
# or CSR data lies. The updates of a mistake on coefficient i are here too, as _contract has
# them: add (binary) and move (K-class), for float (_dual_c) and exact integer (_conjunction_c)
# coefficients; better is the K-class prediction's step (the first largest score, all finite).
# _dot.h is the same contract for whole Gram matrices (vectorized), _lanes.h for the K-wide
# emissions of _sequence_c.
from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t
from cython cimport floating

# a coefficient: float (_dual_c) or exact integer (_conjunction_c)
ctypedef fused coef_t:
    double
    int64_t


cdef inline double dot4(const floating* x, const double* w, Py_ssize_t m) noexcept nogil:
    # x[k] * w[k] into lane k % 4 (_contract.dot4)
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef Py_ssize_t k = 0
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
    return (s0 + s1) + (s2 + s3)


cdef inline double dot4_indexed(const floating* x, const int32_t* idx, const double* w,
                                Py_ssize_t m) noexcept nogil:
    # x[k] * w[idx[k]] into lane k % 4; idx NULL: dot4 (_contract.dot4_indexed)
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef Py_ssize_t k = 0
    if idx == NULL:
        return dot4(x, w, m)
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


cdef inline double dot4_averaged(const double* x, const int32_t* idx, const double* w,
                                 const double* u, double c, Py_ssize_t m) noexcept nogil:
    # x[k] * (w[idx[k]] - u[idx[k]] / c) into lane k % 4: dot4_indexed on the averaged
    # weights w - u / c, each formed where the row needs it (_dicts_py.LinearDicts)
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef Py_ssize_t k = 0
    while k + 4 <= m:
        s0 += x[k] * (w[idx[k]] - u[idx[k]] / c)
        s1 += x[k + 1] * (w[idx[k + 1]] - u[idx[k + 1]] / c)
        s2 += x[k + 2] * (w[idx[k + 2]] - u[idx[k + 2]] / c)
        s3 += x[k + 3] * (w[idx[k + 3]] - u[idx[k + 3]] / c)
        k += 4
    if k < m:
        s0 += x[k] * (w[idx[k]] - u[idx[k]] / c)
    if k + 1 < m:
        s1 += x[k + 1] * (w[idx[k + 1]] - u[idx[k + 1]] / c)
    if k + 2 < m:
        s2 += x[k + 2] * (w[idx[k + 2]] - u[idx[k + 2]] / c)
    return (s0 + s1) + (s2 + s3)


cdef inline double dot4_cols(const double* a, const double* k, const int64_t* cols,
                             Py_ssize_t nc) noexcept nogil:
    # a[cols[c]] * k[c] into lane cols[c] % 4, in the order of cols; cols NULL: dot4
    # (_contract.dot4_cols)
    cdef double s[4]
    cdef Py_ssize_t c
    cdef int64_t j
    if cols == NULL:
        return dot4(a, k, nc)
    s[0] = s[1] = s[2] = s[3] = 0.0
    for c in range(nc):
        j = cols[c]
        s[j & 3] += a[j] * k[c]
    return (s[0] + s[1]) + (s[2] + s[3])


cdef inline double sqnorm4_cols(const double* x, const int32_t* cols,
                                Py_ssize_t nc) noexcept nogil:
    # x[c] * x[c] into lane cols[c] % 4, in the order of cols (increasing): sqnorm4 of the
    # dense row holding x[c] at column cols[c], whose zeros add nothing to a lane (_dicts_c)
    cdef double s[4]
    cdef Py_ssize_t c
    s[0] = s[1] = s[2] = s[3] = 0.0
    for c in range(nc):
        s[cols[c] & 3] += x[c] * x[c]
    return (s[0] + s[1]) + (s[2] + s[3])


cdef inline double dot4_merge(const double* a, const int32_t* ac, Py_ssize_t an,
                              const double* b, const int32_t* bc, Py_ssize_t bn) noexcept nogil:
    # two sparse rows (columns increasing): a . b with the product of column j in lane j % 4,
    # in the order of the columns: dot4 of their dense rows, whose zeros add nothing to a
    # lane (_dicts_c's support vectors)
    cdef double s[4]
    cdef Py_ssize_t i = 0, k = 0
    s[0] = s[1] = s[2] = s[3] = 0.0
    while i < an and k < bn:
        if ac[i] < bc[k]:
            i += 1
        elif ac[i] > bc[k]:
            k += 1
        else:
            s[ac[i] & 3] += a[i] * b[k]
            i += 1
            k += 1
    return (s[0] + s[1]) + (s[2] + s[3])


cdef inline double sqnorm4_halfdiff(const double* a, const int32_t* ac, Py_ssize_t an,
                                    const double* b, const int32_t* bc, Py_ssize_t bn,
                                    double scale) noexcept nogil:
    # two sparse rows (columns increasing): sqnorm4 of h / scale, h = a * 0.5 - b * 0.5 over
    # the union of their columns (a missing entry 0), column j in lane j % 4: the dense rows'
    # (_gram_py._direct_sq_distances), whose other columns add +0 to a lane
    cdef double s[4]
    cdef double h
    cdef Py_ssize_t i = 0, k = 0
    cdef int32_t j
    s[0] = s[1] = s[2] = s[3] = 0.0
    while i < an or k < bn:
        if k == bn or (i < an and ac[i] < bc[k]):
            j, h = ac[i], a[i] * 0.5 - 0.0 * 0.5
            i += 1
        elif i == an or ac[i] > bc[k]:
            j, h = bc[k], 0.0 * 0.5 - b[k] * 0.5
            k += 1
        else:
            j, h = ac[i], a[i] * 0.5 - b[k] * 0.5
            i += 1
            k += 1
        h = h / scale
        s[j & 3] += h * h
    return (s[0] + s[1]) + (s[2] + s[3])


cdef inline double sqnorm4(const floating* x, Py_ssize_t m) noexcept nogil:
    # x[k] * x[k] into lane k % 4 (_contract.sqnorm4); times 1.0 is exact, and folded away
    return sqnorm4_scaled(x, m, 1.0)


cdef inline double sqnorm4_scaled(const floating* x, Py_ssize_t m, double p) noexcept nogil:
    # sqnorm4 of x p (p a power of two: each x[k] p is exact)
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, v
    cdef Py_ssize_t k = 0
    while k + 4 <= m:
        v = <double>x[k] * p
        s0 += v * v
        v = <double>x[k + 1] * p
        s1 += v * v
        v = <double>x[k + 2] * p
        s2 += v * v
        v = <double>x[k + 3] * p
        s3 += v * v
        k += 4
    if k < m:
        v = <double>x[k] * p
        s0 += v * v
    if k + 1 < m:
        v = <double>x[k + 1] * p
        s1 += v * v
    if k + 2 < m:
        v = <double>x[k + 2] * p
        s2 += v * v
    return (s0 + s1) + (s2 + s3)


cdef inline void add(coef_t* alpha, coef_t* bias, coef_t* u, coef_t* beta, int64_t i,
                     coef_t step, int64_t c, bint fit_intercept) noexcept nogil:
    # a binary mistake on example i (_contract.State.add): alpha[i] and the bias gain step,
    # u[i] and beta[0] gain step c (u NULL: no averaging)
    cdef coef_t cs
    alpha[i] += step
    if fit_intercept:
        bias[0] += step
    if u != NULL:
        cs = step * <coef_t>c
        u[i] += cs
        if fit_intercept:
            beta[0] += cs


cdef inline void better(double s, Py_ssize_t k, double* best, Py_ssize_t* pred,
                        bint* finite) noexcept nogil:
    # class k's score s in a K-class prediction: the first of the largest scores wins (k
    # replaces pred only when strictly larger), and finite stays true while every score is
    finite[0] = finite[0] and isfinite(s)
    if s > best[0]:
        pred[0] = k
        best[0] = s


cdef inline void move(coef_t* a, coef_t* b, Py_ssize_t n, int64_t i, int64_t gain,
                      int64_t lose, coef_t step, bint fit_intercept) noexcept nogil:
    # the K-class update of coefficient i (_contract.move): row gain of a (rows of n) gains
    # step, row lose loses it; with an intercept, so do b[gain] and b[lose]
    a[gain * n + i] += step
    a[lose * n + i] -= step
    if fit_intercept:
        b[gain] += step
        b[lose] -= step


cdef inline void row(const floating* data, const int32_t* idx, const int64_t* indptr,
                     Py_ssize_t d, int64_t i, const floating** x, const int32_t** cols,
                     Py_ssize_t* m) noexcept nogil:
    # row i: dense (indptr NULL: d values, cols NULL) or CSR (_contract.dense_rows, csr_rows)
    if indptr == NULL:
        x[0] = data + i * d
        cols[0] = NULL
        m[0] = d
    else:
        x[0] = data + indptr[i]
        cols[0] = idx + indptr[i]
        m[0] = indptr[i + 1] - indptr[i]
