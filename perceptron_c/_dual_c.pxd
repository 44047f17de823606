# C-level API of the dual (kernel) perceptron routines, for Cython code that wants to run the
# epoch kernels without going through Python. Every pointer must already be valid for the
# sizes given and every index in range: these functions do no checking at all (the def
# functions of _dual_c show the checks). Row-major arrays: G (n, n), Krows/Erows (m, n),
# alpha/scores/U (K, n). Averaging is off when u/U == NULL (then beta and count are ignored).
# Conjunction kernels take B: zeroed int64 buckets of length max(exponents) + 2, left zeroed.
# steps (binary routines; NULL: not recorded) receives the position t in order/rows of each
# mistake, in order: room for m entries.
from libc.stdint cimport int32_t, int64_t

cdef Py_ssize_t binary_cached(const double* G, const double* y, const int64_t* order,
                              Py_ssize_t m, Py_ssize_t n, double* alpha, double* b,
                              double* scores, double* u, double* beta, int64_t* count,
                              bint fit_intercept, int64_t* steps) noexcept nogil

cdef Py_ssize_t multiclass_cached(const double* G, const int64_t* y, const int64_t* order,
                                  Py_ssize_t m, Py_ssize_t n, Py_ssize_t n_classes,
                                  double* alpha, double* b, double* scores, double* U,
                                  double* beta, int64_t* count,
                                  bint fit_intercept) noexcept nogil

cdef Py_ssize_t binary_rows(const double* Krows, const int64_t* rows, Py_ssize_t m,
                            Py_ssize_t n, const double* y, double* alpha, double* b, double* u,
                            double* beta, int64_t* count, bint fit_intercept,
                            int64_t* steps) noexcept nogil

cdef Py_ssize_t multiclass_rows(const double* Krows, const int64_t* rows, Py_ssize_t m,
                                Py_ssize_t n, Py_ssize_t n_classes, const int64_t* y,
                                double* alpha, double* b, double* U, double* beta,
                                int64_t* count, bint fit_intercept) noexcept nogil

# Sign (-1, 0, 1) / nearest float64 (clipped to +-DBL_MAX) of sum_k B[k] 2^k, where only B[0]
# and B[lo..hi] may be nonzero (hi < lo: only B[0]); both clear those buckets.
cdef int conjunction_sign(int64_t* B, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil
cdef double conjunction_value(int64_t* B, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil

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
