# C-level API of the SGD epoch (scikit-learn's _plain_sgd, one epoch per call), for Cython
# code that wants to call it without going through Python. The pointers must be valid for the
# sizes given: nothing here checks anything (the def functions of _sgd_c do).
# Dense rows: idx == NULL and indptr == NULL, row i is data[i*d : (i+1)*d], every feature
# visited. CSR rows: row i is data/idx[indptr[i] : indptr[i+1]].
# aw == NULL: no averaging. q == NULL: no L1 record (required with the l1 and elasticnet
# penalties). state has SGD_N_STATE slots, params SGD_N_PARAMS; their meaning, and the
# arithmetic, are those of the Python twin _sgd_py (whose constants have these names without
# the SGD_ prefix).
from libc.stdint cimport int32_t, int64_t
from cython cimport floating

cdef enum:
    # state slots
    SGD_WSCALE = 0
    SGD_SQ_NORM = 1
    SGD_L1_NORM = 2
    SGD_U = 3
    SGD_INTERCEPT = 4
    SGD_AVERAGE_A = 5
    SGD_AVERAGE_B = 6
    SGD_AVERAGE_INTERCEPT = 7
    SGD_T = 8
    SGD_SUMLOSS = 9
    SGD_OBJECTIVE = 10
    SGD_N_STATE = 11
    # params slots
    SGD_ALPHA = 0
    SGD_L1_RATIO = 1
    SGD_ETA0 = 2
    SGD_INTERCEPT_DECAY = 3
    SGD_WEIGHT_POS = 4
    SGD_WEIGHT_NEG = 5
    SGD_EPSILON_OR_THRESHOLD = 6
    SGD_AVERAGE_START = 7
    SGD_N_PARAMS = 8
    # loss
    SGD_LOSS_HINGE = 0
    SGD_LOSS_SQUARED_HINGE = 1
    SGD_LOSS_EPSILON_INSENSITIVE = 2
    SGD_LOSS_SQUARED_EPSILON_INSENSITIVE = 3
    # learning rate
    SGD_RATE_CONSTANT = 0
    SGD_RATE_PA = 1
    SGD_RATE_PA1 = 2
    SGD_RATE_PA2 = 3
    # penalty (scikit-learn's numbers)
    SGD_PENALTY_NONE = 0
    SGD_PENALTY_L1 = 1
    SGD_PENALTY_L2 = 2
    SGD_PENALTY_ELASTICNET = 3

cdef struct sgd_options:
    int loss
    int learning_rate
    int penalty
    bint fit_intercept
    bint compute_objective

# One epoch over order[0:n]; returns the number of nonzero updates, or -1 - t when the
# example at position t left the intercept or a weight it wrote non-finite (the epoch stops
# there, the state is written back). SUMLOSS and OBJECTIVE are added to, not reset.
cdef Py_ssize_t sgd_epoch(const floating* data, const int32_t* idx, const int64_t* indptr,
                          Py_ssize_t d, const double* y, const double* sample_weight,
                          const int64_t* order, Py_ssize_t n, double* w, double* aw, double* q,
                          double* state, const double* params,
                          const sgd_options* opt) noexcept nogil

# _plain_sgd's prologue (state and q) and its final reset of the weight scale.
cdef void sgd_init(const double* w, Py_ssize_t d, double* q, Py_ssize_t nq, double* state,
                   double intercept, double average_intercept, double t) noexcept nogil
cdef void sgd_reset_wscale(double* w, double* aw, Py_ssize_t d, double* state) noexcept nogil
