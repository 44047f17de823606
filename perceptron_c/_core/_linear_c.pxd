# C-level API of the linear routines, for Cython code that wants to call the epoch kernels
# without going through Python. Every pointer must already be valid for the sizes given:
# these functions do no checking at all (validate with perceptron_c.lowlevel first).
# Dense rows: idx == NULL and indptr == NULL, row i is data[i*d : (i+1)*d].
# CSR rows: row i is data/idx[indptr[i] : indptr[i+1]].
# binary_epoch's steps (NULL: not recorded) receives the position t in order of each mistake.
# sample_weight (NULL: every row weighs 1) multiplies each row's step (see _linear_py).
# Both epochs return the mistakes, or -1 - t when the activation at position t is not finite.
from libc.stdint cimport int32_t, int64_t
from cython cimport floating

cdef Py_ssize_t binary_epoch(const floating* data, const int32_t* idx, const int64_t* indptr,
                             Py_ssize_t d, const double* y, const int64_t* order, Py_ssize_t n,
                             double* w, double* b, double* u, double* beta, int64_t* count,
                             bint fit_intercept, bint normalize, int64_t* steps,
                             const double* sample_weight) noexcept nogil

cdef Py_ssize_t multiclass_epoch(const floating* data, const int32_t* idx, const int64_t* indptr,
                                 Py_ssize_t d, const int64_t* y, const int64_t* order,
                                 Py_ssize_t n, Py_ssize_t n_classes,
                                 double* W, double* b, double* U, double* beta, int64_t* count,
                                 bint fit_intercept, bint normalize,
                                 const double* sample_weight) noexcept nogil

cdef void decision(const floating* data, const int32_t* idx, const int64_t* indptr,
                   Py_ssize_t d, Py_ssize_t n, Py_ssize_t n_classes,
                   const double* W, const double* b, double* out) noexcept nogil
