# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_voted_py``: the voted perceptron's prefix-sum vote (read the twin's docstring).

``vote_conjunction`` keeps the exact activation as a fixed-width two's-complement integer of
64-bit limbs, wide enough for the largest exponent plus the number of mistakes; adding or
subtracting 2^e touches one limb plus a carry that is O(1) amortized.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free


cdef inline int _sgn(double v) noexcept nogil:
    return (v > 0) - (v < 0)


cdef void vote_rows(const double* Kx, Py_ssize_t m, Py_ssize_t n, const int64_t* index,
                    const double* sign, Py_ssize_t n_mist, const double* survival,
                    double bias_step, double* out) noexcept nogil:
    cdef Py_ssize_t t, k
    cdef double s, v
    cdef const double* row
    for t in range(m):
        row = Kx + t * n
        s = 0.0
        v = survival[0] * _sgn(s)
        for k in range(n_mist):
            s += sign[k] * (row[index[k]] + bias_step)
            v += survival[k + 1] * _sgn(s)
        out[t] = v


cdef inline void _add_pow2(uint64_t* limbs, Py_ssize_t n_limbs, Py_ssize_t e) noexcept nogil:
    cdef Py_ssize_t i = e >> 6
    cdef uint64_t add = (<uint64_t>1) << (e & 63)
    cdef uint64_t old
    while i < n_limbs:
        old = limbs[i]
        limbs[i] = old + add
        if limbs[i] >= old:  # no carry out of this limb
            return
        add = 1
        i += 1


cdef inline void _sub_pow2(uint64_t* limbs, Py_ssize_t n_limbs, Py_ssize_t e) noexcept nogil:
    cdef Py_ssize_t i = e >> 6
    cdef uint64_t sub = (<uint64_t>1) << (e & 63)
    cdef uint64_t old
    while i < n_limbs:
        old = limbs[i]
        limbs[i] = old - sub
        if old >= sub:  # no borrow
            return
        sub = 1
        i += 1


cdef inline int _big_sign(const uint64_t* limbs, Py_ssize_t n_limbs) noexcept nogil:
    cdef Py_ssize_t i
    if limbs[n_limbs - 1] >> 63:
        return -1
    for i in range(n_limbs):
        if limbs[i]:
            return 1
    return 0


cdef int vote_conjunction_rows(const int32_t* E, Py_ssize_t m, Py_ssize_t n,
                               const int64_t* index, const double* sign, Py_ssize_t n_mist,
                               const double* survival, bint fit_intercept, Py_ssize_t n_limbs,
                               double* out) noexcept nogil:
    """Returns -1 when the limb buffer cannot be allocated, else 0."""
    cdef Py_ssize_t t, k, i
    cdef double v
    cdef const int32_t* row
    cdef uint64_t* limbs = <uint64_t*>calloc(n_limbs, sizeof(uint64_t))
    if limbs == NULL:
        return -1
    for t in range(m):
        row = E + t * n
        for i in range(n_limbs):
            limbs[i] = 0
        v = survival[0] * 0
        for k in range(n_mist):
            if sign[k] > 0:
                _add_pow2(limbs, n_limbs, row[index[k]])
                if fit_intercept:
                    _add_pow2(limbs, n_limbs, 0)
            else:
                _sub_pow2(limbs, n_limbs, row[index[k]])
                if fit_intercept:
                    _sub_pow2(limbs, n_limbs, 0)
            v += survival[k + 1] * _big_sign(limbs, n_limbs)
        out[t] = v
    free(limbs)
    return 0


cdef _need(bint ok, str what):
    if not ok:
        raise ValueError(what)


cdef _check(Py_ssize_t n_rows, Py_ssize_t n_cols, const int64_t[::1] index,
            const double[::1] sign, const double[::1] survival, double[::1] out):
    cdef Py_ssize_t k
    cdef bint ok = True
    _need(sign.shape[0] == index.shape[0], "sign must have one entry per mistake")
    _need(survival.shape[0] == index.shape[0] + 1, "survival must have one count per weight "
          "vector (number of mistakes + 1)")
    _need(out.shape[0] == n_rows, "out must have one entry per row")
    with nogil:
        for k in range(index.shape[0]):
            if index[k] < 0 or index[k] >= n_cols:
                ok = False
                break
    _need(ok, f"index must lie in [0, {n_cols}) (the kernel columns)")
    with nogil:
        for k in range(index.shape[0]):
            if sign[k] != 1.0 and sign[k] != -1.0:
                ok = False
                break
    _need(ok, "sign must hold +1.0 or -1.0")


def vote(const double[:, ::1] Kx, const int64_t[::1] index, const double[::1] sign,
         const double[::1] survival, double bias_step, double[::1] out):
    _check(Kx.shape[0], Kx.shape[1], index, sign, survival, out)
    if Kx.shape[0] == 0:
        return
    with nogil:
        vote_rows(&Kx[0, 0], Kx.shape[0], Kx.shape[1], &index[0] if index.shape[0] else NULL,
                  &sign[0] if index.shape[0] else NULL, index.shape[0], &survival[0],
                  bias_step, &out[0])


def vote_conjunction(const int32_t[:, ::1] E, const int64_t[::1] index,
                     const double[::1] sign, const double[::1] survival, bint fit_intercept,
                     double[::1] out):
    cdef Py_ssize_t t, j, k, n_limbs
    cdef int32_t top = 0
    cdef bint ok = True
    cdef int rc
    _check(E.shape[0], E.shape[1], index, sign, survival, out)
    if E.shape[0] == 0:
        return
    with nogil:
        for t in range(E.shape[0]):
            for j in range(E.shape[1]):
                if E[t, j] < 0:
                    ok = False
                if E[t, j] > top:
                    top = E[t, j]
    _need(ok, "E must hold exponents >= 0")
    # |s| < (n_mist + 1) * 2^(top + 1): top + 2 + bits(n_mist) bits, plus the sign bit
    n_limbs = (top + 3 + (index.shape[0] + 1).bit_length()) // 64 + 1
    with nogil:
        rc = vote_conjunction_rows(&E[0, 0], E.shape[0], E.shape[1],
                                   &index[0] if index.shape[0] else NULL,
                                   &sign[0] if index.shape[0] else NULL, index.shape[0],
                                   &survival[0], fit_intercept, n_limbs, &out[0])
    if rc != 0:
        raise MemoryError()
