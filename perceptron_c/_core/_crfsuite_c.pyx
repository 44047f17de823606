# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_crfsuite_py``: one epoch of CRFsuite's ap, pa and arow trainers on flat
arrays, the same float operations in the same order, without the GIL in chunks of about
CHUNK_WORK multiply-adds, looking for Ctrl-C between them."""
import numpy as np

from libc.math cimport floor, isfinite, signbit, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from perceptron_c._core._checks cimport CHUNK_WORK, all_finite, between_chunks, need

from perceptron_c._core._crfsuite_py import __all__  # no-cython-lint: listed once (test_twins)

cdef extern from "_crfsuite_lanes.h" nogil:
    int pc_crf_best_path()
    void pc_crf_scores(double* row, const double* w, const int32_t* aids, const double* values,
                       int64_t k0, int64_t k1, Py_ssize_t L, int path)
    void pc_crf_step(const double* alpha, const double* tw, double* best, double* arg,
                     Py_ssize_t L, int path)

# The lanes' paths (the same bits on each): the widest this CPU has unless a test picks another
_PATHS = ("baseline", "avx2")
cdef int _best_path = pc_crf_best_path()
cdef int _path = _best_path


def _paths():
    """The names of the lanes' paths this CPU has (the tests run every one)."""
    return _PATHS[:_best_path + 1]


def _set_path(name):
    """Use the lanes' path ``name`` (for the tests); returns the name of the one before."""
    global _path
    if name not in _paths():
        raise ValueError(f"path {name!r} is not supported by this CPU; it has {_paths()}")
    before, _path = _PATHS[_path], _PATHS.index(name)
    return before


cdef enum:
    AP = 0
    PA = 1
    AROW = 2


cdef struct Epoch:
    # the data (checked by _prepare), the masks, the weights and the algorithm's state
    const int32_t* aids
    const double* values
    const int64_t* ends
    const int32_t* labels
    const int64_t* offsets
    const uint8_t* state
    const uint8_t* trans
    const int64_t* attr_ptr
    const int32_t* attr_labels
    double* w
    double* other  # ws (AP, PA) or cov (AROW)
    Py_ssize_t A, L
    int kind, pa_type
    bint error_sensitive
    double c, gamma
    # scratch: scores, back pointers, Viterbi path, alphas, collected and collapsed features
    double* S
    int32_t* back
    int32_t* path
    double* alpha
    double* best
    double* arg
    int64_t* keys
    double* coefs
    int32_t* slot  # a small open-addressing table of the keys being collapsed: -1 empty
    int64_t* skey  # the key in each used slot
    Py_ssize_t smask  # its size - 1 (a power of 2, at least twice the keys of an instance)
    int64_t* act
    double* delta
    double bad  # the step that was not finite
    bint failed
    bint dense  # every value finite: the sums over all labels are the same (see _epoch)
    bint unit  # every value -1, 0 or 1: PA's differences are exact sums of integers
    bint ap_exact  # unit, w and ws integers below 2^52 all epoch long, no -0.0 (_epoch)
    int simd  # the lanes' path (_crfsuite_lanes.h)


cdef inline int64_t _start(const Epoch* e, Py_ssize_t t) noexcept nogil:
    return e.ends[t - 1] if t > 0 else 0


cdef void _scores(Epoch* e, Py_ssize_t t0, Py_ssize_t T) noexcept nogil:
    """_crfsuite_py._scores: per item, per label, the sum from 0.0 in attribute order over
    the attributes that have the feature (dense: over every label, in lanes)."""
    cdef Py_ssize_t t, j, k, r, L = e.L
    cdef double* row
    cdef const double* wa
    cdef double v
    cdef int32_t a
    for t in range(T):
        row = e.S + t * L
        if e.dense:
            pc_crf_scores(row, e.w, e.aids, e.values, _start(e, t0 + t), e.ends[t0 + t], L,
                          e.simd)
            continue
        for j in range(L):
            row[j] = 0.0
        for k in range(_start(e, t0 + t), e.ends[t0 + t]):
            a = e.aids[k]
            wa, v = e.w + <int64_t>a * L, e.values[k]
            for r in range(e.attr_ptr[a], e.attr_ptr[a + 1]):
                j = e.attr_labels[r]
                row[j] += wa[j] * v


cdef double _viterbi(Epoch* e, Py_ssize_t T) noexcept nogil:
    """_crfsuite_py._viterbi into e.path; returns the path's score. For each j the first i
    of the largest alpha[i] + trans[i, j] under >: i ascends, so a later equal one loses
    (pc_crf_step: blocks of j in registers, i inside; the label i kept as a double)."""
    cdef Py_ssize_t t, j, L = e.L, last = 0
    cdef const double* tw = e.w + e.A * L
    cdef const double* S = e.S
    cdef double* alpha = e.alpha
    cdef double* best = e.best
    cdef double* arg = e.arg
    cdef int32_t* back = e.back
    for j in range(L):
        alpha[j] = S[j]
    for t in range(1, T):
        pc_crf_step(alpha, tw, best, arg, L, e.simd)
        for j in range(L):
            back[t * L + j] = <int32_t>arg[j]
            alpha[j] = best[j] + S[t * L + j]
    for j in range(1, L):
        if alpha[j] > alpha[last]:
            last = j
    e.path[T - 1] = <int32_t>last
    for t in range(T - 1, 0, -1):
        e.path[t - 1] = back[t * L + e.path[t]]
    return alpha[last]


cdef double _path_score(const Epoch* e, const int32_t* y, Py_ssize_t T) noexcept nogil:
    """_crfsuite_py._path_score: state[0, y0], then + trans + state, item after item."""
    cdef Py_ssize_t t, L = e.L
    cdef double s = e.S[y[0]]
    for t in range(1, T):
        s = s + e.w[e.A * L + y[t - 1] * L + y[t]]
        s = s + e.S[t * L + y[t]]
    return s


cdef Py_ssize_t _collect(Epoch* e, Py_ssize_t t0, const int32_t* y, Py_ssize_t T,
                         double sign, Py_ssize_t n, const int32_t* skip) noexcept nogil:
    """_crfsuite_py._collect: the existing features on path y appended at keys[n], coefs[n];
    returns the new n. With ``skip`` (the other path), the features the two paths share at a
    position (the same label there, and before it for a transition) are left out: both
    paths add them, with opposite signs."""
    cdef Py_ssize_t t, k, L = e.L
    cdef int64_t key
    for t in range(T):
        if t > 0 and e.trans[y[t - 1] * L + y[t]] and (
                skip == NULL or y[t] != skip[t] or y[t - 1] != skip[t - 1]):
            e.keys[n] = e.A * L + y[t - 1] * L + y[t]
            e.coefs[n] = sign * 1.0
            n += 1
        if skip != NULL and y[t] == skip[t]:
            continue
        for k in range(_start(e, t0 + t), e.ends[t0 + t]):
            key = <int64_t>e.aids[k] * L + y[t]
            if e.state[key]:
                e.keys[n] = key
                e.coefs[n] = sign * e.values[k]
                n += 1
    return n


cdef Py_ssize_t _collapse(Epoch* e, Py_ssize_t n) noexcept nogil:
    """_crfsuite_py._collapse: the distinct keys into act (in the order of their first
    occurrence), their sums into delta; returns how many. The keys are found in a table of
    about twice their number (e.slot, e.skey), small enough to stay in cache, not in one of
    the weights' size; every slot is -1 before and after."""
    cdef Py_ssize_t k, j, m = 0
    cdef int64_t key
    for k in range(n):
        key = e.keys[k]
        j = <Py_ssize_t>((<uint64_t>key * <uint64_t>0x9E3779B97F4A7C15ULL) >> 32) & e.smask
        while e.slot[j] >= 0 and e.skey[j] != key:
            j = (j + 1) & e.smask
        if e.slot[j] < 0:
            e.slot[j] = <int32_t>m
            e.skey[j] = key
            e.act[m] = key
            e.delta[m] = 0.0
            m += 1
        e.delta[e.slot[j]] += e.coefs[k]
    for k in range(m):  # (each key's slot again: the table is cleared where it was used)
        key = e.act[k]
        j = <Py_ssize_t>((<uint64_t>key * <uint64_t>0x9E3779B97F4A7C15ULL) >> 32) & e.smask
        while e.skey[j] != key or e.slot[j] < 0:
            j = (j + 1) & e.smask
        e.slot[j] = -1
    return m


cdef int _margin(Epoch* e, Py_ssize_t m, double err, Py_ssize_t d, double u,
                 double* cost) noexcept nogil:
    """PA's or AROW's update on the collapsed difference (act, delta) of m features; -1
    (e.bad set) when the step is not finite."""
    cdef Py_ssize_t k
    cdef int64_t key
    cdef double tau, tu, norm2 = 0.0, den, x
    if e.kind == PA:
        cost[0] = err + (sqrt(<double>d) if e.error_sensitive else 1.0)
        for k in range(m):
            norm2 += e.delta[k] * e.delta[k]
        tau = cost[0] / norm2
        if e.pa_type == 1:
            tau = tau if tau < e.c else e.c
        elif e.pa_type == 2:
            tau = cost[0] / (norm2 + 0.5 / e.c)
        if m > 0:
            if not isfinite(tau):
                e.bad = tau
                return -1
            tu = tau * u
            for k in range(m):
                if e.delta[k] != 0.0:
                    e.w[e.act[k]] += tau * e.delta[k]
                    e.other[e.act[k]] += tu * e.delta[k]
        return 0
    cost[0] = err + <double>d
    den = e.gamma
    for k in range(m):
        den += (e.delta[k] * e.delta[k]) * e.other[e.act[k]]
    tau = cost[0] / den
    if not isfinite(tau):
        e.bad = tau
        return -1
    for k in range(m):
        key, x = e.act[k], e.delta[k]
        e.w[key] += (tau * e.other[key]) * x
        e.other[key] = 1.0 / (1.0 / e.other[key] + (x * x) / e.gamma)
    return 0


cdef int _instance(Epoch* e, Py_ssize_t i, double u, double* loss) noexcept nogil:
    """Instance i: Viterbi under w and the algorithm's update, its loss added to loss[0];
    -1 when the step was not finite (nothing changed)."""
    cdef Py_ssize_t t, k, n, d = 0, t0 = e.offsets[i], T = e.offsets[i + 1] - e.offsets[i]
    cdef const int32_t* y = e.labels + t0
    cdef const int32_t* skip
    cdef double sv, cost
    if T == 0:
        return 0
    _scores(e, t0, T)
    sv = _viterbi(e, T)
    for t in range(T):
        d += e.path[t] != y[t]
    if d == 0:
        return 0
    # PA on values of -1, 0 and 1: a difference is a sum of small integers, exact in any
    # order, so the shared features (which cancel to +0.0, and PA moves no weight by a zero
    # difference: _margin) may be left out: the same weights, to the bit, from the features
    # where the paths differ.
    # (Not AP, whose steps go one by one; not AROW, whose variance moves on a zero step too.)
    # (|a difference| <= the keys collected < 2^26: the sum of squares too is exact.) When
    # none is left, the full collection decides (a step of zero differences fails at type 0).
    # AP too, when its sums stay exact integers (e.ap_exact, set by _epoch): a shared
    # feature's +v then -v would leave its weight and its sum where they were.
    skip = e.path if ((e.kind == PA and e.unit) or (e.kind == AP and e.ap_exact)) and (
        e.ends[t0 + T - 1] - _start(e, t0) + T) < (1 << 25) else NULL
    n = _collect(e, t0, y, T, 1.0, 0, skip)
    n = _collect(e, t0, e.path, T, -1.0, n, y if skip != NULL else NULL)
    if skip != NULL and n == 0:
        n = _collect(e, t0, e.path, T, -1.0, _collect(e, t0, y, T, 1.0, 0, NULL), NULL)
    if e.kind == AP:
        for k in range(n):
            e.w[e.keys[k]] += e.coefs[k]
            e.other[e.keys[k]] += u * e.coefs[k]
        loss[0] += <double>d / <double>T
        return 0
    if _margin(e, _collapse(e, n), sv - _path_score(e, y, T), d, u, &cost) < 0:
        return -1
    loss[0] += cost
    return 0


cdef Py_ssize_t _run(Epoch* e, const int64_t* order, Py_ssize_t pos, Py_ssize_t n,
                     int64_t* count, double* loss, Py_ssize_t budget) noexcept nogil:
    """The instances order[pos:] until about budget multiply-adds are done; returns the
    position reached (that of a failed instance, e.bad set, when its step was not finite)."""
    cdef Py_ssize_t i
    while pos < n and budget > 0:
        i = order[pos]
        budget -= (e.ends[e.offsets[i + 1] - 1] - _start(e, e.offsets[i]) + 1
                   + (e.offsets[i + 1] - e.offsets[i]) * e.L) * e.L \
            if e.offsets[i + 1] > e.offsets[i] else 1
        if _instance(e, i, <double>count[0], loss) < 0:
            e.failed = True
            return pos
        count[0] += 1
        pos += 1
    return pos


cdef bint _rises(const int64_t[::1] a, int64_t lo, int64_t hi) noexcept:
    """a rises (not strictly) from at least lo and ends at hi (true when empty)."""
    cdef Py_ssize_t t, n = a.shape[0]
    cdef const int64_t* p
    cdef int fall = 0
    if n == 0:
        return True
    if a[0] < lo or a[n - 1] != hi:
        return False
    p = &a[0]
    with nogil:
        for t in range(1, n):  # no early exit: the loop runs in lanes
            fall |= p[t] < p[t - 1]
    return fall == 0


cdef bint _unit(const double* v, Py_ssize_t n) noexcept nogil:
    """Every v[k] is -1.0, 0.0 or 1.0 (no early exit: in lanes)."""
    cdef Py_ssize_t k
    cdef int out = 0
    for k in range(n):
        out |= (v[k] != 1.0) & (v[k] != 0.0) & (v[k] != -1.0)
    return out == 0


cdef bint _ap_room(const double* w, const double* ws, Py_ssize_t n, double grow
                   ) noexcept nogil:
    """Every w[k] and ws[k] is an integer (no -0.0) whose magnitude plus ``grow`` stays below
    2^52 (no early exit: in lanes)."""
    cdef Py_ssize_t k
    cdef double top = 4503599627370496.0 - grow  # 2^52
    cdef int out = top <= 0.0
    for k in range(n):
        out |= (w[k] != floor(w[k])) | (ws[k] != floor(ws[k]))  # (NaN too)
        out |= (w[k] >= top) | (w[k] <= -top) | (ws[k] >= top) | (ws[k] <= -top)
        out |= signbit(w[k]) & (w[k] == 0.0)
        out |= signbit(ws[k]) & (ws[k] == 0.0)
    return out == 0


cdef bint _in32(const int32_t[::1] a, int32_t hi) noexcept:
    # 0 <= a[t] < hi as one unsigned compare (hi >= 0), without an early exit: in lanes
    cdef Py_ssize_t t, n = a.shape[0]
    cdef const int32_t* p = &a[0] if n else NULL
    cdef int out = 0
    if hi < 0:
        return n == 0
    with nogil:
        for t in range(n):
            out |= <uint32_t>p[t] >= <uint32_t>hi
    return out == 0


cdef bint _in64(const int64_t[::1] a, int64_t hi) noexcept:
    cdef Py_ssize_t t, n = a.shape[0]
    cdef const int64_t* p = &a[0] if n else NULL
    cdef int out = 0
    if hi < 0:
        return n == 0
    with nogil:
        for t in range(n):
            out |= <uint64_t>p[t] >= <uint64_t>hi
    return out == 0


cdef object _check(const int32_t[::1] aids, const double[::1] values, const int64_t[::1] ends,
                   const int32_t[::1] labels, const int64_t[::1] offsets,
                   const int64_t[::1] order, const uint8_t[:, ::1] state,
                   const uint8_t[:, ::1] trans, const int64_t[::1] attr_ptr,
                   const int32_t[::1] attr_labels, double[::1] w, double[::1] other,
                   int64_t[::1] count):
    """_crfsuite_py._check: the same preconditions, in the same words."""
    cdef Py_ssize_t A = state.shape[0], L = trans.shape[0]
    cdef Py_ssize_t n_attr = aids.shape[0], n_items = labels.shape[0]
    need(state.shape[1] == L and trans.shape[1] == L,
         "state must have shape (A, L) and trans (L, L)")
    need(w.shape[0] == A * L + L * L and other.shape[0] == w.shape[0],
         "w and its state must have A * L + L * L entries")
    need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    need(values.shape[0] == n_attr, "values must have one entry per attribute")
    need(ends.shape[0] == n_items, "ends must have one entry per item")
    need(n_items == 0 or _rises(ends, 0, n_attr), "ends must rise to the number of attributes")
    need(offsets.shape[0] >= 1 and offsets[0] == 0 and _rises(offsets, 0, n_items),
         "offsets must rise from 0 to the number of items")
    need(attr_ptr.shape[0] == A + 1 and attr_ptr[0] == 0
         and _rises(attr_ptr, 0, attr_labels.shape[0]),
         "attr_ptr must rise from 0 to the number of attr_labels, one entry per attribute + 1")
    need(_in32(attr_labels, L), f"attr_labels must lie in [0, {L})")
    need(_in32(aids, A), f"aids must lie in [0, {A})")
    need(_in32(labels, L), f"labels must lie in [0, {L})")
    n = offsets.shape[0] - 1
    need(_in64(order, n), f"order must lie in [0, {n})")


cdef double _epoch(Epoch* e, const int32_t[::1] aids, const double[::1] values,
                   const int64_t[::1] ends, const int32_t[::1] labels,
                   const int64_t[::1] offsets, const int64_t[::1] order,
                   const uint8_t[:, ::1] state, const uint8_t[:, ::1] trans,
                   const int64_t[::1] attr_ptr, const int32_t[::1] attr_labels, double[::1] w,
                   double[::1] other, int64_t[::1] count) except? -1.0:
    """Checks, scratch, then the epoch in chunks with a look for Ctrl-C between them."""
    _check(aids, values, ends, labels, offsets, order, state, trans, attr_ptr, attr_labels, w,
           other, count)
    need(e.kind != PA or e.pa_type in (0, 1, 2), "pa_type must be 0, 1 or 2")
    cdef Py_ssize_t i, T, longest = 1, most = 1, pos = 0, n = order.shape[0]
    cdef double loss = 0.0
    for i in range(offsets.shape[0] - 1):
        T = offsets[i + 1] - offsets[i]
        if T > 0:
            longest = max(longest, T)
            most = max(most, 2 * (ends[offsets[i + 1] - 1]
                                  - (ends[offsets[i] - 1] if offsets[i] > 0 else 0) + T))
    L = trans.shape[0]
    S, alpha, best = np.empty(longest * L), np.empty(max(1, L)), np.empty(max(1, L))
    back, path, arg = (np.empty(longest * L, np.int32), np.empty(longest, np.int32),
                       np.empty(max(1, L)))
    keys, act, coefs, delta = (np.empty(most, np.int64), np.empty(most, np.int64),
                               np.empty(most), np.empty(most))
    cdef Py_ssize_t size = 2
    while size < 2 * most:
        size *= 2
    slot, skey = np.full(size, -1, np.int32), np.zeros(size, np.int64)
    cdef double[::1] S_, alpha_, best_, coefs_, delta_, arg_
    cdef int32_t[::1] back_, path_, slot_
    cdef int64_t[::1] keys_, act_, skey_ = skey
    S_, alpha_, best_, coefs_, delta_ = S, alpha, best, coefs, delta
    back_, path_, arg_, slot_, keys_, act_ = back, path, arg, slot, keys, act
    e.aids, e.values, e.ends, e.labels = &aids[0] if aids.shape[0] else NULL, \
        &values[0] if values.shape[0] else NULL, \
        &ends[0] if ends.shape[0] else NULL, &labels[0] if labels.shape[0] else NULL
    e.offsets, e.state, e.trans = &offsets[0], &state[0, 0] if state.shape[0] else NULL, \
        &trans[0, 0] if L else NULL
    e.attr_ptr = &attr_ptr[0]
    e.attr_labels = &attr_labels[0] if attr_labels.shape[0] else NULL
    e.w, e.other, e.A, e.L = &w[0] if w.shape[0] else NULL, \
        &other[0] if w.shape[0] else NULL, state.shape[0], L
    e.S, e.back, e.path, e.alpha, e.best, e.arg = &S_[0], &back_[0], &path_[0], &alpha_[0], \
        &best_[0], &arg_[0]
    e.skey, e.smask = &skey_[0], size - 1
    e.keys, e.coefs, e.slot, e.act, e.delta = &keys_[0], &coefs_[0], &slot_[0], &act_[0], \
        &delta_[0]
    e.failed, e.simd = False, _path
    # A feature that does not exist has weight +0.0: w * value is +-0.0 when the value is
    # finite, and adds nothing to a sum from +0.0 (never -0.0), so with finite values the
    # sums over every label, in lanes, are the sums over the features, bit for bit.
    e.dense = all_finite(&values[0], values.shape[0]) if values.shape[0] else True
    e.unit = _unit(&values[0] if values.shape[0] else NULL, values.shape[0])
    # AP's w and ws move by +-u (u <= the count at the epoch's end) at most `most` times an
    # instance: below 2^52 all epoch long when they start as integers below the bound that
    # leaves room for this epoch, and then every +v -v of a shared feature is exact.
    e.ap_exact = e.kind == AP and e.unit and _ap_room(
        &w[0] if w.shape[0] else NULL, &other[0] if w.shape[0] else NULL, w.shape[0],
        (<double>count[0] + <double>n) * (<double>count[0] + <double>n) * <double>most)
    while pos < n:
        with nogil:
            pos = _run(e, &order[0], pos, n, &count[0], &loss, CHUNK_WORK)
        if e.failed:
            what = "passive-aggressive step" if e.kind == PA else "AROW step"
            raise FloatingPointError(f"{what} is not finite ({e.bad}): the weights would be")
        between_chunks()
    return loss


def ap_epoch(const int32_t[::1] aids, const double[::1] values, const int64_t[::1] ends,
             const int32_t[::1] labels, const int64_t[::1] offsets, const int64_t[::1] order,
             const uint8_t[:, ::1] state, const uint8_t[:, ::1] trans,
             const int64_t[::1] attr_ptr, const int32_t[::1] attr_labels, double[::1] w,
             double[::1] ws, int64_t[::1] count):
    cdef Epoch e
    e.kind = AP
    return _epoch(&e, aids, values, ends, labels, offsets, order, state, trans, attr_ptr,
                  attr_labels, w, ws, count)


def pa_epoch(const int32_t[::1] aids, const double[::1] values, const int64_t[::1] ends,
             const int32_t[::1] labels, const int64_t[::1] offsets, const int64_t[::1] order,
             const uint8_t[:, ::1] state, const uint8_t[:, ::1] trans,
             const int64_t[::1] attr_ptr, const int32_t[::1] attr_labels, double[::1] w,
             double[::1] ws, int64_t[::1] count, int pa_type, double c,
             bint error_sensitive):
    cdef Epoch e
    e.kind, e.pa_type, e.c, e.error_sensitive = PA, pa_type, c, error_sensitive
    return _epoch(&e, aids, values, ends, labels, offsets, order, state, trans, attr_ptr,
                  attr_labels, w, ws, count)


def arow_epoch(const int32_t[::1] aids, const double[::1] values, const int64_t[::1] ends,
               const int32_t[::1] labels, const int64_t[::1] offsets,
               const int64_t[::1] order, const uint8_t[:, ::1] state,
               const uint8_t[:, ::1] trans, const int64_t[::1] attr_ptr,
               const int32_t[::1] attr_labels, double[::1] w, double[::1] cov,
               int64_t[::1] count, double gamma):
    cdef Epoch e
    e.kind, e.gamma = AROW, gamma
    return _epoch(&e, aids, values, ends, labels, offsets, order, state, trans, attr_ptr,
                  attr_labels, w, cov, count)


def shuffle(int64_t[::1] perm, uint32_t[::1] ring, int64_t[::1] pos):
    """_crfsuite_py.shuffle: glibc's rand() (x_i = x_{i-3} + x_{i-31}, wrapping in uint32)."""
    need(ring.shape[0] == 31 and pos.shape[0] == 1 and 0 <= pos[0] < 31,
         "ring must have 31 entries and pos one, in [0, 31)")
    cdef Py_ssize_t i, n = perm.shape[0], p = pos[0]
    cdef int64_t j, keep
    cdef uint32_t x
    with nogil:
        for i in range(n):
            x = ring[p] + ring[(p + 28) % 31]
            ring[p] = x
            p = (p + 1) % 31
            j = <int64_t>(x >> 1) % n
            keep, perm[i] = perm[i], perm[j]
            perm[j] = keep
    pos[0] = p
