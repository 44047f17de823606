# C-level API of the linear routines, for Cython code that wants to call the epoch kernels
# without going through Python. Every pointer must already be valid for the sizes given:
# these functions do no checking at all (validate with perceptron_c.lowlevel first, whose
# checks are the caller's to make: order and CSR columns in range, indptr monotone, y +1.0 or
# -1.0 / class indices in [0, n_classes), count[0] >= 1, sample_weight finite).
# All three are noexcept nogil: they never raise nor touch a Python object, so call them with
# or without the GIL (in `with nogil:` to let other threads run). They do not see Ctrl-C: the
# def layer cuts a long epoch into chunks of the order and looks between the chunks.
# Rows (data, idx, indptr, d), shared by all three; data is float32 or float64 (the fused
# `floating`, one compiled copy each), every other float float64, every index int64 but idx.
# Dense rows: idx == NULL and indptr == NULL, row i is data[i*d : (i+1)*d].
# CSR rows: row i is data/idx[indptr[i] : indptr[i+1]] (idx int32 columns in [0, d)).
# Averaging is [Daume2017] Alg. 7, lazy sums, as _linear_py.averaged_epoch_dense does it: the
# counter c = count[0] is 1 before the first example ever and grows by 1 after every row
# visited, mistake or not; a mistake that moves w by s x (and b by s) moves u by s c x (and beta
# by s c). The averaged model, the mean of the c weight vectors w_0 = 0, w_1, ..., w_{c-1}
# held after each example, is w - u / count[0] and b - beta / count[0]: start u and beta at 0.
from libc.stdint cimport int32_t, int64_t
from cython cimport floating

# One epoch of the binary perceptron ([Daume2017] Alg. 5; Alg. 7 with u) over the rows
# order[0..n-1], in that order (int64 row indices: a permutation, or any rows, repeats too).
# data, idx, indptr, d: the rows as above (d features). y: one float64 label per row (y[i] for
# row i, not for position t), each +1.0 or -1.0. w (d float64) and b (1 float64): the weights
# and the bias, updated in place; a mistake (y (w.x + b) <= 0, 4-lane sum) adds s x to w, s to
# b, with s = y, or y / ||x|| with normalize (||(x, 1)|| with fit_intercept; _linear_py scales
# rows of extreme norm by a power of two first), times sample_weight[i] when given.
# u (d float64), beta (1 float64), count (1 int64): the averaging sums and counter above,
# updated in place; u == NULL turns averaging off (then beta and count are not read), and
# beta is written only with fit_intercept. fit_intercept: whether b (and beta) move.
# normalize: the step above. steps (int64, room for n; NULL: not recorded) receives the
# position t in order of each mistake, in order (the voted perceptron's record).
# sample_weight (NULL: every row weighs 1): one finite float64 per row, indexed by row.
# Returns the mistakes, or -1 - t when the activation at position t is not finite: the epoch
# stops there and the arrays hold the updates of positions 0..t-1 (count[0] included).
cdef Py_ssize_t binary_epoch(const floating* data, const int32_t* idx, const int64_t* indptr,
                             Py_ssize_t d, const double* y, const int64_t* order, Py_ssize_t n,
                             double* w, double* b, double* u, double* beta, int64_t* count,
                             bint fit_intercept, bint normalize, int64_t* steps,
                             const double* sample_weight) noexcept nogil

# One epoch of the K-class perceptron (argmax of W_k . x + b_k, ties to the lowest k) over the
# rows order[0..n-1]. data, idx, indptr, d, order, n, fit_intercept, normalize and
# sample_weight as in binary_epoch; y: one int64 class index per row, in [0, n_classes).
# W (n_classes x d float64, row-major) and b (n_classes float64): a row per class, updated in
# place; a mistake adds s x to row y[i] and takes it from the predicted row (the biases
# likewise with fit_intercept), s = 1 or 1 / ||x|| times sample_weight[i]. U (n_classes x d),
# beta (n_classes) and count (1 int64): the averaging sums (U == NULL: off), moved by s c x
# and s c as W and b are; the averaged model is W - U / count[0], b - beta / count[0].
# n_classes >= 1. Returns the mistakes, or -1 - t as binary_epoch does.
cdef Py_ssize_t multiclass_epoch(const floating* data, const int32_t* idx, const int64_t* indptr,
                                 Py_ssize_t d, const int64_t* y, const int64_t* order,
                                 Py_ssize_t n, Py_ssize_t n_classes,
                                 double* W, double* b, double* U, double* beta, int64_t* count,
                                 bint fit_intercept, bint normalize,
                                 const double* sample_weight) noexcept nogil

# The decision values of rows 0..n-1 (data, idx, indptr, d as above): out (n x n_classes
# float64, row-major) receives out[i*n_classes + k] = W_k . x_i + b[k] (4-lane sums, as the
# epochs score). W (n_classes x d float64) and b (n_classes float64); a binary model is W = w
# with n_classes = 1, an averaged one the averaged weights (w - u / count[0], ...), formed by
# the caller. No return value: a non-finite value is written as it is.
cdef void decision(const floating* data, const int32_t* idx, const int64_t* indptr,
                   Py_ssize_t d, Py_ssize_t n, Py_ssize_t n_classes,
                   const double* W, const double* b, double* out) noexcept nogil
