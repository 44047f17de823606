# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_voted_py``: the voted perceptron's prefix-sum vote (read the twin's docstring).

``vote_conjunction`` (int16 or int32 exponents) keeps the exact activation as a fixed-width
two's-complement integer of 64-bit limbs, wide enough for the largest exponent plus the number
of mistakes; adding or subtracting 2^e touches one limb plus a carry that is O(1) amortized
(``_bigint.pxd``).
"""
from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free

from perceptron_c._core._bigint cimport exp_t, limbs_add_pow2, limbs_sign, limbs_sub_pow2
from perceptron_c._core._checks cimport between_chunks, need, rows_per_chunk


from perceptron_c._core._voted_py import __all__  # no-cython-lint: listed once (test_twins)


cdef inline int _sgn(double v) noexcept nogil:
    return (v > 0) - (v < 0)


cdef Py_ssize_t vote_rows(const double* Kx, Py_ssize_t m, Py_ssize_t n, const int64_t* index,
                          const double* sign, Py_ssize_t n_mist, const double* survival,
                          double bias_step, double* out) noexcept nogil:
    """0, or -1 - t when an activation of row t is not finite (rows before t are written)."""
    cdef Py_ssize_t t, k
    cdef double s, v
    cdef const double* row
    cdef bint finite
    for t in range(m):
        row = Kx + t * n
        s = 0.0
        v = survival[0] * _sgn(s)
        finite = True
        for k in range(n_mist):
            s += sign[k] * (row[index[k]] + bias_step)
            finite = finite and isfinite(s)
            v += survival[k + 1] * _sgn(s)
        if not finite:
            return -1 - t
        out[t] = v
    return 0


cdef int _vote_conjunction_rows(const exp_t* E, Py_ssize_t m, Py_ssize_t n,
                                const int64_t* index, const double* sign, Py_ssize_t n_mist,
                                const double* survival, bint fit_intercept, Py_ssize_t n_limbs,
                                double* out) noexcept nogil:
    """Returns -1 when the limb buffer cannot be allocated, else 0."""
    cdef Py_ssize_t t, k, i
    cdef double v
    cdef const exp_t* row
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
                limbs_add_pow2(limbs, n_limbs, row[index[k]])
                if fit_intercept:
                    limbs_add_pow2(limbs, n_limbs, 0)
            else:
                limbs_sub_pow2(limbs, n_limbs, row[index[k]])
                if fit_intercept:
                    limbs_sub_pow2(limbs, n_limbs, 0)
            v += survival[k + 1] * limbs_sign(limbs, n_limbs)
        out[t] = v
    free(limbs)
    return 0


cdef int vote_conjunction_rows(const int32_t* E, Py_ssize_t m, Py_ssize_t n,
                               const int64_t* index, const double* sign, Py_ssize_t n_mist,
                               const double* survival, bint fit_intercept, Py_ssize_t n_limbs,
                               double* out) noexcept nogil:
    return _vote_conjunction_rows(E, m, n, index, sign, n_mist, survival, fit_intercept, n_limbs,
                                  out)


cdef _check(Py_ssize_t n_rows, Py_ssize_t n_cols, const int64_t[::1] index,
            const double[::1] sign, const double[::1] survival, double[::1] out):
    cdef Py_ssize_t k
    cdef bint ok = True
    need(sign.shape[0] == index.shape[0], "sign must have one entry per mistake")
    need(survival.shape[0] == index.shape[0] + 1, "survival must have one count per weight "
         "vector (number of mistakes + 1)")
    need(out.shape[0] == n_rows, "out must have one entry per row")
    with nogil:
        for k in range(index.shape[0]):
            if index[k] < 0 or index[k] >= n_cols:
                ok = False
                break
    need(ok, f"index must lie in [0, {n_cols}) (the kernel columns)")
    with nogil:
        for k in range(index.shape[0]):
            if sign[k] != 1.0 and sign[k] != -1.0:
                ok = False
                break
    need(ok, "sign must hold +1.0 or -1.0")
    with nogil:
        for k in range(survival.shape[0]):
            if not (survival[k] >= 0.0 and isfinite(survival[k])):
                ok = False
                break
    need(ok, "survival must hold finite counts >= 0")


def vote(const double[:, ::1] Kx, const int64_t[::1] index, const double[::1] sign,
         const double[::1] survival, double bias_step, double[::1] out):
    cdef Py_ssize_t r, stop, start = 0
    cdef Py_ssize_t chunk = rows_per_chunk(index.shape[0])
    _check(Kx.shape[0], Kx.shape[1], index, sign, survival, out)
    need(isfinite(bias_step), "bias_step must be finite")
    while start < Kx.shape[0]:
        stop = min(Kx.shape[0], start + chunk)
        with nogil:
            r = vote_rows(&Kx[start, 0], stop - start, Kx.shape[1],
                          &index[0] if index.shape[0] else NULL,
                          &sign[0] if index.shape[0] else NULL, index.shape[0], &survival[0],
                          bias_step, &out[start])
        if r < 0:
            raise FloatingPointError(f"non-finite activation in the vote for row "
                                     f"{start - 1 - r}: the kernel values overflow float64")
        start = stop
        between_chunks()


def vote_conjunction(const exp_t[:, ::1] E, const int64_t[::1] index,
                     const double[::1] sign, const double[::1] survival, bint fit_intercept,
                     double[::1] out):
    cdef Py_ssize_t t, j, n_limbs
    cdef int64_t top = 0
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
    need(ok, "E must hold exponents >= 0")
    # |s| < (n_mist + 1) * 2^(top + 1): top + 2 + bits(n_mist) bits, plus the sign bit
    n_limbs = (top + 3 + (index.shape[0] + 1).bit_length()) // 64 + 1
    with nogil:
        rc = _vote_conjunction_rows(&E[0, 0], E.shape[0], E.shape[1],
                                    &index[0] if index.shape[0] else NULL,
                                    &sign[0] if index.shape[0] else NULL, index.shape[0],
                                    &survival[0], fit_intercept, n_limbs, &out[0])
    if rc != 0:
        raise MemoryError()
