# C-level API of the voted perceptron's vote, for Cython code. No checking: every index must
# be in range and the arrays as long as the sizes say (see the def functions of _voted_c).
# Kx/E are row-major (m, n); index/sign have n_mist entries, survival n_mist + 1.
from libc.stdint cimport int32_t, int64_t

# vote_rows returns 0, or -1 - t when an activation of row t is not finite (float64 overflow).
cdef Py_ssize_t vote_rows(const double* Kx, Py_ssize_t m, Py_ssize_t n, const int64_t* index,
                          const double* sign, Py_ssize_t n_mist, const double* survival,
                          double bias_step, double* out) noexcept nogil

# n_limbs 64-bit limbs must hold |s| plus a sign bit; returns -1 if out of memory.
cdef int vote_conjunction_rows(const int32_t* E, Py_ssize_t m, Py_ssize_t n,
                               const int64_t* index, const double* sign, Py_ssize_t n_mist,
                               const double* survival, bint fit_intercept, Py_ssize_t n_limbs,
                               double* out) noexcept nogil
