# C-level API of the exact conjunction-kernel routines, for Cython code that wants to run the
# epoch kernels without going through Python. No checking at all: every pointer must be valid
# for the sizes given and every index in range (the def functions of _conjunction_c show the
# checks). Row-major arrays: Erows/E (m, n) int32 exponents, alpha/coef/U (K, n) int64.
# Averaging is off when u/U == NULL (then beta and count are ignored). B: zeroed int64 buckets
# of length max(exponents) + 2, left zeroed. steps (binary routine; NULL: not recorded)
# receives the position t in rows of each mistake. The bucket arithmetic itself
# (conjunction_sign, conjunction_value) is in _bigint.pxd.
from libc.stdint cimport int32_t, int64_t

cdef Py_ssize_t conjunction_binary_rows(const int32_t* Erows, const int64_t* rows,
                                        Py_ssize_t m, Py_ssize_t n, const double* y,
                                        int64_t* alpha, int64_t* b, int64_t* u, int64_t* beta,
                                        int64_t* count, bint fit_intercept,
                                        int64_t* B, int64_t* steps) noexcept nogil

cdef Py_ssize_t conjunction_multiclass_rows(const int32_t* Erows, const int64_t* rows,
                                            Py_ssize_t m, Py_ssize_t n, Py_ssize_t n_classes,
                                            const int64_t* y, int64_t* alpha, int64_t* b,
                                            int64_t* U, int64_t* beta, int64_t* count,
                                            bint fit_intercept, int64_t* B) noexcept nogil

cdef void conjunction_decision_rows(const int32_t* E, Py_ssize_t n_rows, Py_ssize_t n,
                                    const int64_t* coef, const int64_t* b, Py_ssize_t n_classes,
                                    double* out, int64_t* B) noexcept nogil

cdef void conjunction_argmax_rows(const int32_t* E, Py_ssize_t n_rows, Py_ssize_t n,
                                  const int64_t* coef, const int64_t* b, Py_ssize_t n_classes,
                                  int64_t* out, int64_t* B) noexcept nogil
