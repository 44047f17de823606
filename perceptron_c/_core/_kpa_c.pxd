# C-level API of the kernel passive-aggressive epochs (_kpa_c), for Cython code that runs
# them without going through Python. No checking at all: every pointer must be valid for the
# sizes given and every index in range (the def functions of _kpa_c show the checks,
# _kpa_py the arithmetic). Row-major arrays: G (n, n), Krows/Erows (m, n), alpha/u/scores
# (R, n) with R = 1 for two classes. The cores return the steps taken, or -1 - t when the
# example at position t of their rows stopped the epoch (a non-finite activation, loss or
# coefficient): the state is then left as it is at that point.
from libc.stdint cimport int32_t, int64_t

cdef struct KPAState:
    double* alpha       # (R, n); for the conjunction kernel the scaled coefficients a
    double* b           # (R,), or NULL (conjunction: b is implicit)
    double* u           # averaging sums like alpha, or NULL: no averaging
    double* beta        # averaging sums like b, or NULL
    Py_ssize_t R
    Py_ssize_t n
    int64_t c           # the averaging count, running
    double total        # the sum of the losses, running
    Py_ssize_t steps    # the steps taken, running

cdef struct KPAStep:
    double C            # PA-I's cap (inf: the plain PA)
    double extra        # 0.5 / C, PA-II's term
    bint squared        # PA-II
    bint fit_intercept
    const double* weight  # the step weight of each pool example, or NULL: 1.0

cdef Py_ssize_t kpa_cached_core(const double* G, const int64_t* y, const int64_t* order,
                                Py_ssize_t m, KPAState* s, const KPAStep* p, double* scores,
                                double* f) noexcept nogil

cdef Py_ssize_t kpa_rows_core(const double* Krows, const int64_t* y, const int64_t* rows,
                              Py_ssize_t m, KPAState* s, const KPAStep* p,
                              double* f) noexcept nogil

# A: (R + 1) * nl int64 scratch (nl, zero: _fixedpoint.accumulator_size for max(ediag)).
cdef Py_ssize_t kpa_conjunction_core(const int32_t* Erows, const int64_t* rows, Py_ssize_t m,
                                     const int32_t* ediag, const int64_t* y, KPAState* s,
                                     const KPAStep* p, int64_t* A, Py_ssize_t nl,
                                     Py_ssize_t zero) noexcept nogil

# out (m, R) float64 (decision) or (m,) int64 class indices (predict); A: R * nl scratch.
cdef void kpa_conjunction_decision_core(const int32_t* E, Py_ssize_t m, const int32_t* ediag,
                                        const double* coef, Py_ssize_t R, Py_ssize_t n,
                                        bint fit_intercept, bint predict, double* out,
                                        int64_t* labels, int64_t* A, Py_ssize_t nl,
                                        Py_ssize_t zero) noexcept nogil
