# C-level API of the voted perceptron's vote, for Cython code. No checking: every index must
# be in range and the arrays as long as the sizes say (see the def functions of _voted_c).
# Both are noexcept nogil: call them with or without the GIL; they never raise.
# The voted perceptron ([Daume2017] section 4.6; _voted_py) keeps the weight vectors w_0 = 0,
# w_1, ..., w_K it passed through, w_k made by mistake k, each with its survival count c_k, and
# votes sum_k c_k sign(w_k . x + b_k). The vectors are not stored: their activations on test
# row t are prefix sums over the mistakes, s_0 = 0, s_k = s_{k-1} + sign[k-1] (K(x_{index[k-1]},
# x_t) + [fit_intercept]), formed in mistake order. The mistakes come from an epoch's steps
# (binary_epoch, binary_cached, binary_rows, conjunction_binary_rows record their positions).
# Shared arguments: m test rows against n stored (or pool) examples, Kx/E row-major (m, n);
# index (n_mist int64 in [0, n)): the column of the example of each mistake, in order; sign
# (n_mist float64, +1.0 or -1.0): its label; survival (n_mist + 1 float64, finite, >= 0):
# c_0, ..., c_K, the visited examples each vector survived; out (m float64) receives
# sum_k survival[k] sign(s_k) per row (sign(0) = 0), not divided by sum_k survival[k].
from libc.stdint cimport int32_t, int64_t

# The vote of m rows from their kernel values Kx (m x n float64, Kx[t, j] = K(x_t, x_j)),
# with index, sign, n_mist, survival and out as above; bias_step: 1.0 with an intercept (b
# moved by y per mistake), else 0.0. Returns 0, or -1 - t when an activation of row t is not
# finite (float64 overflow; out holds rows 0..t-1).
cdef Py_ssize_t vote_rows(const double* Kx, Py_ssize_t m, Py_ssize_t n, const int64_t* index,
                          const double* sign, Py_ssize_t n_mist, const double* survival,
                          double bias_step, double* out) noexcept nogil

# The vote for the conjunction kernel, its activations exact: E (m x n int32 exponents >= 0,
# E[t, j] = popcount(x_t AND x_j)), the kernel value 2^E[t, j]; index, sign, n_mist, survival
# and out as above; fit_intercept: whether each mistake also moved the bias by its label.
# n_limbs 64-bit limbs (allocated here, one buffer per call) must hold |s| plus a sign bit:
# (max(E) + 3 + bit_length(n_mist + 1)) // 64 + 1 is enough. Returns 0, or -1 if out of memory.
cdef int vote_conjunction_rows(const int32_t* E, Py_ssize_t m, Py_ssize_t n,
                               const int64_t* index, const double* sign, Py_ssize_t n_mist,
                               const double* survival, bint fit_intercept, Py_ssize_t n_limbs,
                               double* out) noexcept nogil
