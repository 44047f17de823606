# C-level API of the exact conjunction-kernel routines, for Cython code that wants to run the
# epoch kernels without going through Python. No checking at all: every pointer must be valid
# for the sizes given and every index in range (the def functions of _conjunction_c show the
# checks). All four are noexcept nogil: call them with or without the GIL; they never raise.
# They are _dual_c.pxd's rows routines for the kernel K(a, b) = 2^popcount(a AND b), with the
# exponents instead of the kernel values and int64 coefficients, so that every sign is exact
# (the bucket arithmetic, conjunction_sign and conjunction_value, is in _bigint.pxd).
# Row-major arrays: Erows/E (m, n) int32 exponents >= 0, alpha/coef/U (K, n) int64, with
# K = n_classes (one row for a binary model); y as in _dual_c.pxd (float64 +1.0/-1.0, or int64
# class indices), indexed by pool example. B: int64 scratch of max(exponents) + 2 buckets,
# zeroed, and left zeroed (one per thread). Averaging is _dual_c.pxd's in int64: averaging is
# off when u/U == NULL (then beta and count are ignored); the averaged model is
# alpha - u / count[0], b - beta / count[0], decided exactly as the integer coefficients
# count[0] alpha - u and bias count[0] b - beta, divided by count[0].
# The caller must first check the exact range (_conjunction_py.check_headroom): for each class
# row k, sum_j |alpha[k, j]| + |b[k]| + 2 m < 2^61 and, averaging,
# sum_j |U[k, j]| + |beta[k]| + 2 m (count[0] + m) < 2^61 (m visited rows, each a mistake at
# worst); for a decision, sum_j |coef[k, j]| + |b[k]| < 2^61.
from libc.stdint cimport int32_t, int64_t

# binary_rows of _dual_c.pxd, exact: the m visited pool examples rows[0..m-1] (int64 in
# [0, n)), row t with its exponents Erows[t] (Erows[t, j] = popcount(x_rows[t] AND x_j)),
# scored as sum_j alpha_j 2^Erows[t, j] + b, its sign exact. y: the pool's n labels (float64,
# +1.0 or -1.0). alpha (n int64), b (1 int64): a mistake on i adds y_i to alpha_i (and b with
# fit_intercept). u (n int64), beta (1 int64), count (1 int64): the averaging sums, moved by
# y_i count[0] (u == NULL: off). B: the buckets. steps (int64, room for m; NULL: not recorded)
# receives the position t in rows of each mistake. Returns the mistakes (never negative).
cdef Py_ssize_t conjunction_binary_rows(const int32_t* Erows, const int64_t* rows,
                                        Py_ssize_t m, Py_ssize_t n, const double* y,
                                        int64_t* alpha, int64_t* b, int64_t* u, int64_t* beta,
                                        int64_t* count, bint fit_intercept,
                                        int64_t* B, int64_t* steps) noexcept nogil

# The K-class form (exact argmax, ties to the lowest class): Erows, rows, m, n, B as in
# conjunction_binary_rows; y: the pool's n int64 class indices in [0, n_classes); alpha and U
# (n_classes x n int64), b and beta (n_classes int64), count (1 int64). A mistake on i adds 1
# to alpha[y_i, i] and takes 1 from the predicted row (the biases likewise with
# fit_intercept); U and beta move by count[0] (U == NULL: off). Returns the mistakes.
cdef Py_ssize_t conjunction_multiclass_rows(const int32_t* Erows, const int64_t* rows,
                                            Py_ssize_t m, Py_ssize_t n, Py_ssize_t n_classes,
                                            const int64_t* y, int64_t* alpha, int64_t* b,
                                            int64_t* U, int64_t* beta, int64_t* count,
                                            bint fit_intercept, int64_t* B) noexcept nogil

# The decision values of n_rows rows with exponents E (n_rows x n int32, E[i, j] =
# popcount(x_i AND x_j) against the n coefficients): out (n_rows x n_classes float64) receives
# the float64 nearest to sum_j coef[k, j] 2^E[i, j] + b[k] (correctly rounded; beyond
# float64's range, the largest finite float64 of its sign). coef (n_classes x n int64), b
# (n_classes int64); B: the buckets, for max(E) + 2.
cdef void conjunction_decision_rows(const int32_t* E, Py_ssize_t n_rows, Py_ssize_t n,
                                    const int64_t* coef, const int64_t* b, Py_ssize_t n_classes,
                                    double* out, int64_t* B) noexcept nogil

# The classes of the same rows: E, n_rows, n, coef, b, n_classes and B as in
# conjunction_decision_rows; out (n_rows int64) receives the first k maximizing
# sum_j coef[k, j] 2^E[i, j] + b[k], compared exactly.
cdef void conjunction_argmax_rows(const int32_t* E, Py_ssize_t n_rows, Py_ssize_t n,
                                  const int64_t* coef, const int64_t* b, Py_ssize_t n_classes,
                                  int64_t* out, int64_t* B) noexcept nogil
