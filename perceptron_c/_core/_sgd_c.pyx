# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_sgd_py``: scikit-learn's SGD epoch, same functions, same arithmetic.

The Python twin is the specification; its module docstring lists every step of an example
and the order of each operation, which this file follows one IEEE operation at a time (no
contraction into FMA: the build passes -ffp-contract=off; the one fused multiply-add, in the
reset of the weight scale, is an explicit C99 fma()). Whole epochs run without the GIL, in
chunks with a look for Ctrl-C between them. The def functions check shapes, the visiting
order and the option numbers; the gate checks everything else once per fit.
"""
from libc.math cimport INFINITY, fabs, fma, isfinite, sqrt
from libc.stdint cimport int32_t, int64_t, uint32_t
from cython cimport floating

from perceptron_c._core._checks cimport (all_in_range, between_chunks, check_csr, need,
                                         rows_per_chunk)
from perceptron_c._core._lanes cimport row


from perceptron_c._core._sgd_py import __all__  # no-cython-lint: listed once (test_twins)

# The Python-level names of the constants (the .pxd has them with an SGD_ prefix).
WSCALE = SGD_WSCALE
SQ_NORM = SGD_SQ_NORM
L1_NORM = SGD_L1_NORM
U = SGD_U
INTERCEPT = SGD_INTERCEPT
AVERAGE_A = SGD_AVERAGE_A
AVERAGE_B = SGD_AVERAGE_B
AVERAGE_INTERCEPT = SGD_AVERAGE_INTERCEPT
T = SGD_T
SUMLOSS = SGD_SUMLOSS
OBJECTIVE = SGD_OBJECTIVE
N_STATE = SGD_N_STATE
ALPHA = SGD_ALPHA
L1_RATIO = SGD_L1_RATIO
ETA0 = SGD_ETA0
INTERCEPT_DECAY = SGD_INTERCEPT_DECAY
WEIGHT_POS = SGD_WEIGHT_POS
WEIGHT_NEG = SGD_WEIGHT_NEG
EPSILON_OR_THRESHOLD = SGD_EPSILON_OR_THRESHOLD
AVERAGE_START = SGD_AVERAGE_START
N_PARAMS = SGD_N_PARAMS
LOSS_HINGE = SGD_LOSS_HINGE
LOSS_SQUARED_HINGE = SGD_LOSS_SQUARED_HINGE
LOSS_EPSILON_INSENSITIVE = SGD_LOSS_EPSILON_INSENSITIVE
LOSS_SQUARED_EPSILON_INSENSITIVE = SGD_LOSS_SQUARED_EPSILON_INSENSITIVE
RATE_CONSTANT = SGD_RATE_CONSTANT
RATE_PA = SGD_RATE_PA
RATE_PA1 = SGD_RATE_PA1
RATE_PA2 = SGD_RATE_PA2
PENALTY_NONE = SGD_PENALTY_NONE
PENALTY_L1 = SGD_PENALTY_L1
PENALTY_L2 = SGD_PENALTY_L2
PENALTY_ELASTICNET = SGD_PENALTY_ELASTICNET

cdef double MAX_DLOSS = 1e12      # scikit-learn clips the loss derivative to this
cdef double RESET_WSCALE = 1e-9   # below it the weight scale is folded into w


cdef struct WeightVector:  # scikit-learn's WeightVector64 (see _sgd_py._Weights)
    double* w
    double* aw
    Py_ssize_t d
    double wscale
    double sq_norm
    double l1_norm
    double average_a
    double average_b


cdef inline Py_ssize_t _col(const int32_t* idx, Py_ssize_t k) noexcept nogil:
    return k if idx == NULL else idx[k]


cdef inline double _dot(const WeightVector* v, const floating* x, const int32_t* idx,
                        Py_ssize_t m) noexcept nogil:
    cdef double s = 0.0
    cdef Py_ssize_t k
    for k in range(m):
        s += v.w[_col(idx, k)] * <double>x[k]
    return s * v.wscale


cdef inline bint _add(WeightVector* v, const floating* x, const int32_t* idx,
                      Py_ssize_t m, double c) noexcept nogil:
    # w += x * c; returns False when a weight it wrote may be non-finite
    cdef double ws = v.wscale, l2 = 0.0, l1 = 0.0, wj
    cdef Py_ssize_t k, j
    for k in range(m):
        j = _col(idx, k)
        v.w[j] += <double>x[k] * (c / ws)
        wj = v.w[j]
        l2 += wj * wj
        l1 += fabs(wj)
    v.sq_norm = l2 * (ws * ws)
    v.l1_norm = l1 * ws
    return isfinite(l2)


cdef inline void _add_average(WeightVector* v, const floating* x, const int32_t* idx,
                              Py_ssize_t m, double c, double k_avg) noexcept nogil:
    cdef double ws = v.wscale, mu = 1.0 / k_avg
    cdef Py_ssize_t k
    for k in range(m):
        v.aw[_col(idx, k)] += v.average_a * <double>x[k] * (-c / ws)
    if k_avg > 1:
        v.average_b /= (1.0 - mu)
    v.average_a += mu * v.average_b * ws


cdef inline void _reset_wscale(WeightVector* v) noexcept nogil:
    cdef Py_ssize_t j
    cdef double r
    if v.aw != NULL:
        for j in range(v.d):
            v.aw[j] = fma(v.average_a, v.w[j], v.aw[j])  # daxpy, as OpenBLAS SkylakeX
        r = 1.0 / v.average_b
        for j in range(v.d):
            v.aw[j] *= r
        v.average_a = 0.0
        v.average_b = 1.0
    for j in range(v.d):
        v.w[j] *= v.wscale
    v.wscale = 1.0


cdef inline void _scale(WeightVector* v, double c) noexcept nogil:
    v.wscale *= c
    v.sq_norm *= (c * c)
    v.l1_norm *= fabs(c)
    if v.wscale < RESET_WSCALE:
        _reset_wscale(v)


cdef inline bint _l1_truncate(WeightVector* v, double* q, const int32_t* idx, Py_ssize_t m,
                              double u) noexcept nogil:
    # Tsuruoka et al. 2009, Fig. 2; returns False when a weight it wrote is non-finite
    cdef double ws = v.wscale, z, val
    cdef Py_ssize_t k, j
    cdef bint ok = True
    for k in range(m):
        j = _col(idx, k)
        z = v.w[j]
        if ws * z > 0.0:
            val = v.w[j] - ((u + q[j]) / ws)
            v.w[j] = val if val > 0.0 else 0.0
        elif ws * z < 0.0:
            val = v.w[j] + ((u - q[j]) / ws)
            v.w[j] = val if val < 0.0 else 0.0
        q[j] += ws * (v.w[j] - z)
        ok = ok and isfinite(v.w[j])
    return ok


cdef inline double _loss(int loss, double margin, double y, double p) noexcept nogil:
    cdef double z, r
    if loss == SGD_LOSS_HINGE:
        z = p * y
        return margin - z if z <= margin else 0.0
    if loss == SGD_LOSS_SQUARED_HINGE:
        z = margin - p * y
        return z * z if z > 0 else 0.0
    r = fabs(y - p) - margin
    if loss == SGD_LOSS_EPSILON_INSENSITIVE:
        return r if r > 0 else 0.0
    return r * r if r > 0 else 0.0


cdef inline double _dloss(int loss, double margin, double y, double p) noexcept nogil:
    cdef double g, z
    if loss == SGD_LOSS_HINGE:
        g = -y if p * y <= margin else 0.0
    elif loss == SGD_LOSS_SQUARED_HINGE:
        z = margin - p * y
        g = -2.0 * y * z if z > 0 else 0.0
    elif loss == SGD_LOSS_EPSILON_INSENSITIVE:
        g = -1.0 if y - p > margin else (1.0 if p - y > margin else 0.0)
    else:
        z = y - p
        g = -2.0 * (z - margin) if z > margin else (2.0 * (-z - margin) if z < -margin else 0.0)
    if g < -MAX_DLOSS:
        return -MAX_DLOSS
    return MAX_DLOSS if g > MAX_DLOSS else g


cdef inline bint _update(const floating* x, Py_ssize_t m, int loss, int rate, double margin,
                         double eta0, double y, double p, double* out) noexcept nogil:
    # the signed step before weighting; False: skip the example (PA on a zero row)
    cdef double sq = 0.0, z, update
    cdef Py_ssize_t k
    if rate == SGD_RATE_CONSTANT:
        out[0] = -eta0 * _dloss(loss, margin, y, p)
        return True
    for k in range(m):
        z = x[k]
        sq += z * z
    if rate == SGD_RATE_PA2:
        update = _loss(loss, margin, y, p) / (sq + 0.5 / eta0)
    elif sq == 0:
        return False
    else:
        update = _loss(loss, margin, y, p) / sq
        if rate == SGD_RATE_PA1 and not update < eta0:
            update = eta0
    if loss == SGD_LOSS_HINGE:
        out[0] = update * y
    else:
        out[0] = update * -1.0 if y - p < 0 else update
    return True


cdef inline bint _row_finite(const double* w, const int32_t* idx, Py_ssize_t m) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(m):
        if not isfinite(w[_col(idx, k)]):
            return False
    return True


cdef inline void _load(WeightVector* v, double* w, double* aw, Py_ssize_t d,
                       const double* state) noexcept nogil:
    v.w = w
    v.aw = aw
    v.d = d
    v.wscale = state[SGD_WSCALE]
    v.sq_norm = state[SGD_SQ_NORM]
    v.l1_norm = state[SGD_L1_NORM]
    v.average_a = state[SGD_AVERAGE_A]
    v.average_b = state[SGD_AVERAGE_B]


cdef inline void _save(const WeightVector* v, double* state) noexcept nogil:
    state[SGD_WSCALE] = v.wscale
    state[SGD_SQ_NORM] = v.sq_norm
    state[SGD_L1_NORM] = v.l1_norm
    state[SGD_AVERAGE_A] = v.average_a
    state[SGD_AVERAGE_B] = v.average_b


cdef inline double _penalty_term(const WeightVector* v, double alpha,
                                 double l1_ratio) noexcept nogil:
    cdef double nrm = sqrt(v.sq_norm)
    return alpha * ((1 - l1_ratio) * 0.5 * (nrm * nrm) + l1_ratio * v.l1_norm)


cdef Py_ssize_t sgd_epoch(const floating* data, const int32_t* idx, const int64_t* indptr,
                          Py_ssize_t d, const double* y, const double* sample_weight,
                          const int64_t* order, Py_ssize_t n, double* w, double* aw, double* q,
                          double* state, const double* params,
                          const sgd_options* opt) noexcept nogil:
    cdef WeightVector v
    cdef Py_ssize_t pos, m, nonzero = 0
    cdef int64_t i
    cdef const floating* x
    cdef const int32_t* cols
    cdef double p, yi, cur, class_weight, update, c, k_avg
    cdef double alpha = params[SGD_ALPHA], eta = params[SGD_ETA0]
    cdef double margin = params[SGD_EPSILON_OR_THRESHOLD], avg_start = params[SGD_AVERAGE_START]
    cdef double l1_ratio = params[SGD_L1_RATIO]
    cdef double intercept = state[SGD_INTERCEPT], avg_intercept = state[SGD_AVERAGE_INTERCEPT]
    cdef double t = state[SGD_T], u = state[SGD_U]
    cdef double sumloss = state[SGD_SUMLOSS], objective = state[SGD_OBJECTIVE]
    cdef int penalty = opt.penalty, rate = opt.learning_rate
    cdef bint truncating = penalty == SGD_PENALTY_L1 or penalty == SGD_PENALTY_ELASTICNET
    cdef bint ok
    if penalty == SGD_PENALTY_L2:
        l1_ratio = 0.0
    elif penalty == SGD_PENALTY_L1:
        l1_ratio = 1.0
    _load(&v, w, aw, d, state)
    for pos in range(n):
        i = order[pos]
        row(data, idx, indptr, d, i, &x, &cols, &m)
        yi = y[i]
        p = _dot(&v, x, cols, m) + intercept
        if opt.compute_objective:
            cur = _loss(opt.loss, margin, yi, p)
            sumloss += cur
            objective += cur
            if rate == SGD_RATE_CONSTANT and penalty != SGD_PENALTY_NONE:
                objective += _penalty_term(&v, alpha, l1_ratio)
        class_weight = params[SGD_WEIGHT_POS] if yi > 0.0 else params[SGD_WEIGHT_NEG]
        if not _update(x, m, opt.loss, rate, margin, eta, yi, p, &update):
            continue
        update *= class_weight * sample_weight[i]
        if penalty >= SGD_PENALTY_L2:
            c = 1.0 - ((1.0 - l1_ratio) * eta * alpha)
            _scale(&v, c if c > 0 else 0.0)
        ok = True
        if update != 0.0:
            nonzero += 1
            ok = _add(&v, x, cols, m, update)
            if opt.fit_intercept:
                intercept += update * params[SGD_INTERCEPT_DECAY]
        if aw != NULL and 0 < avg_start and avg_start <= t:
            k_avg = t - avg_start + 1
            _add_average(&v, x, cols, m, update, k_avg)
            avg_intercept += ((intercept - avg_intercept) / k_avg)
        if truncating:
            u += (l1_ratio * eta * alpha)
            ok = _l1_truncate(&v, q, cols, m, u) and ok
        t += 1
        if not isfinite(intercept) or not (ok or _row_finite(w, cols, m)):
            nonzero = -1 - pos  # stop here, the caller raises
            break
    _save(&v, state)
    state[SGD_INTERCEPT] = intercept
    state[SGD_AVERAGE_INTERCEPT] = avg_intercept
    state[SGD_T] = t
    state[SGD_U] = u
    state[SGD_SUMLOSS] = sumloss
    state[SGD_OBJECTIVE] = objective
    return nonzero


cdef void sgd_init(const double* w, Py_ssize_t d, double* q, Py_ssize_t nq, double* state,
                   double intercept, double average_intercept, double t) noexcept nogil:
    cdef double sq = 0.0, l1 = 0.0
    cdef Py_ssize_t j
    for j in range(d):
        sq += w[j] * w[j]
        l1 += fabs(w[j])
    for j in range(SGD_N_STATE):
        state[j] = 0.0
    state[SGD_WSCALE] = 1.0
    state[SGD_SQ_NORM] = sq
    state[SGD_L1_NORM] = l1
    state[SGD_AVERAGE_B] = 1.0
    state[SGD_INTERCEPT] = intercept
    state[SGD_AVERAGE_INTERCEPT] = average_intercept
    state[SGD_T] = t
    for j in range(nq):
        q[j] = 0.0


cdef void sgd_reset_wscale(double* w, double* aw, Py_ssize_t d, double* state) noexcept nogil:
    cdef WeightVector v
    _load(&v, w, aw, d, state)
    _reset_wscale(&v)
    _save(&v, state)


# ---------------------------------------------------------------------------------------------
# def layer: O(1) checks and an O(n) check of the visiting order, then nogil calls in chunks.

cdef inline double* _ptr(double[::1] a) noexcept nogil:
    return &a[0] if a.shape[0] > 0 else NULL


cdef _check_started(const double[::1] state):
    need(state[SGD_WSCALE] > 0 and state[SGD_AVERAGE_B] > 0 and not state[SGD_SQ_NORM] < 0,
         "state must come from sgd_start (WSCALE > 0, AVERAGE_B > 0, SQ_NORM >= 0)")


cdef _check_common(Py_ssize_t n_rows, Py_ssize_t d, Py_ssize_t ny, Py_ssize_t nsw,
                   const int64_t[::1] order, Py_ssize_t nw, Py_ssize_t naw, Py_ssize_t nq,
                   const double[::1] state, const double[::1] params, int loss,
                   int learning_rate, int penalty):
    cdef bint truncating = penalty == SGD_PENALTY_L1 or penalty == SGD_PENALTY_ELASTICNET
    need(ny == n_rows, "y must have one target per row")
    need(nsw == n_rows, "sample_weight must have one weight per row")
    need(nw == d, "w must have one weight per feature")
    need(naw == 0 or naw == d, "aw must have one entry per feature, or length 0")
    need(nq == (d if truncating else 0),
         "q must have one entry per feature with an L1 penalty, length 0 otherwise")
    need(state.shape[0] == SGD_N_STATE, f"state must have length {SGD_N_STATE}")
    _check_started(state)
    need(params.shape[0] == SGD_N_PARAMS, f"params must have length {SGD_N_PARAMS}")
    need(learning_rate != SGD_RATE_PA2 or 0 < params[SGD_ETA0] < INFINITY,
         "params[ETA0] (C) must be positive and finite with RATE_PA2")
    need(0 <= loss <= 3, "loss must be one of the LOSS_* constants")
    need(0 <= learning_rate <= 3, "learning_rate must be one of the RATE_* constants")
    need(0 <= penalty <= 3, "penalty must be one of the PENALTY_* constants")
    need(all_in_range(order, n_rows), f"order must hold row indices in [0, {n_rows})")


cdef Py_ssize_t _chunks(const floating* data, const int32_t* idx, const int64_t* indptr,
                        Py_ssize_t d, Py_ssize_t row_len, const double* y,
                        const double* sample_weight, const int64_t[::1] order, double* w,
                        double* aw, double* q, double* state, const double* params,
                        const sgd_options* opt) except -1:
    """sgd_epoch over ``order`` in chunks, looking for Ctrl-C between them."""
    cdef Py_ssize_t n = order.shape[0], start = 0, stop, r, total = 0
    cdef Py_ssize_t chunk = rows_per_chunk(3 * row_len)
    state[SGD_SUMLOSS] = 0.0
    state[SGD_OBJECTIVE] = 0.0
    while start < n:
        stop = min(n, start + chunk)
        with nogil:
            r = sgd_epoch(data, idx, indptr, d, y, sample_weight, &order[start], stop - start,
                          w, aw, q, state, params, opt)
        if r < 0:
            raise FloatingPointError(
                f"non-finite weights or intercept after position {start - 1 - r} of the "
                f"visiting order (row {order[start - 1 - r]}): the weights overflow float64")
        total += r
        start = stop
        between_chunks()
    return total


def sgd_start(double[::1] w, double[::1] q, double[::1] state, double intercept,
              double average_intercept, double t):
    need(state.shape[0] == SGD_N_STATE, f"state must have length {SGD_N_STATE}")
    need(q.shape[0] == 0 or q.shape[0] == w.shape[0],
         "q must have one entry per feature, or length 0")
    with nogil:
        sgd_init(_ptr(w), w.shape[0], _ptr(q), q.shape[0], &state[0], intercept,
                 average_intercept, t)


def sgd_epoch_dense(const floating[:, ::1] X, const double[::1] y,
                    const double[::1] sample_weight, const int64_t[::1] order, double[::1] w,
                    double[::1] aw, double[::1] q, double[::1] state, const double[::1] params,
                    int loss, int learning_rate, int penalty, bint fit_intercept,
                    bint compute_objective):
    cdef sgd_options opt = sgd_options(loss, learning_rate, penalty, fit_intercept,
                                       compute_objective)
    _check_common(X.shape[0], X.shape[1], y.shape[0], sample_weight.shape[0], order,
                  w.shape[0], aw.shape[0], q.shape[0], state, params, loss, learning_rate,
                  penalty)
    return _chunks(&X[0, 0], NULL, NULL, X.shape[1], X.shape[1], &y[0], &sample_weight[0],
                   order, _ptr(w), _ptr(aw), _ptr(q), &state[0], &params[0], &opt)


def sgd_epoch_csr(const floating[::1] data, const int32_t[::1] indices,
                  const int64_t[::1] indptr, const double[::1] y,
                  const double[::1] sample_weight, const int64_t[::1] order, double[::1] w,
                  double[::1] aw, double[::1] q, double[::1] state, const double[::1] params,
                  int loss, int learning_rate, int penalty, bint fit_intercept,
                  bint compute_objective):
    check_csr(indptr, data.shape[0], indices.shape[0])
    cdef sgd_options opt = sgd_options(loss, learning_rate, penalty, fit_intercept,
                                       compute_objective)
    _check_common(indptr.shape[0] - 1, w.shape[0], y.shape[0], sample_weight.shape[0], order,
                  w.shape[0], aw.shape[0], q.shape[0], state, params, loss, learning_rate,
                  penalty)
    return _chunks(&data[0], &indices[0], &indptr[0], w.shape[0],
                   indptr[indptr.shape[0] - 1] // max(1, indptr.shape[0] - 1), &y[0],
                   &sample_weight[0], order, _ptr(w), _ptr(aw), _ptr(q), &state[0],
                   &params[0], &opt)


def sgd_finish(double[::1] w, double[::1] aw, double[::1] state):
    need(state.shape[0] == SGD_N_STATE, f"state must have length {SGD_N_STATE}")
    _check_started(state)
    need(aw.shape[0] == 0 or aw.shape[0] == w.shape[0],
         "aw must have one entry per feature, or length 0")
    with nogil:
        sgd_reset_wscale(_ptr(w), _ptr(aw), w.shape[0], &state[0])


def sklearn_shuffle(int64_t[::1] index, seed):
    cdef Py_ssize_t n = index.shape[0], i, j
    cdef uint32_t s
    cdef int64_t tmp
    need(0 <= seed < 2**32, "seed must lie in [0, 2^32)")
    s = <uint32_t>seed
    with nogil:
        for i in range(n - 1):
            if s == 0:
                s = 1
            s ^= <uint32_t>(s << 13)
            s ^= s >> 17
            s ^= <uint32_t>(s << 5)
            j = i + <Py_ssize_t>((s % 2147483648u) % <uint32_t>(n - i))
            tmp = index[i]
            index[i] = index[j]
            index[j] = tmp
