# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_sequence_py``: same functions, same signatures, same arithmetic.

The Python twin is the specification; read its module docstring for the arithmetic contract
(``_linear``'s 4-lane emissions, Viterbi's order of additions, ties to the lowest tag, the
update where the sequences differ). W is feature-major (d, K): a token's emissions walk its
features once, adding each feature's K contiguous weights into 4 lanes of K running sums
(``_lanes.h``, loops the compiler vectorizes), so they are ``_linear``'s decision values on
W.T bit for bit. Sentences run without the GIL in chunks of about CHUNK_WORK multiply-adds
(a few milliseconds; between two tokens or Viterbi steps of a long sentence too, `SeqWork`
says where), with scratch buffers allocated once per call (per block when decoding on
``n_jobs`` threads) and sized by the longest sentence. Where a chunk ends changes no bit.
"""
from cpython.pyport cimport PY_SSIZE_T_MAX
from libc.math cimport INFINITY, isfinite
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc
from cython cimport floating

from perceptron_c._core._checks cimport (CHUNK_WORK, all_in_range, between_chunks, check_csr,
                                         need)

cdef extern from "_lanes.h" nogil:
    void pc_lanes_add4(double* s0, double* s1, double* s2, double* s3, const double* w0,
                       const double* w1, const double* w2, const double* w3, double x0,
                       double x1, double x2, double x3, Py_ssize_t K)
    void pc_lane_add(double* s, const double* w, double x, Py_ssize_t K)
    void pc_lanes_sum(const double* s, const double* b, double* e, Py_ssize_t K)
    int pc_viterbi_best_path()
    void pc_viterbi_step(const double* d, const double* tr, Py_ssize_t stride,
                         const double* e, double* nxt, Py_ssize_t n, Py_ssize_t K, int path)
    Py_ssize_t pc_viterbi_arg(const double* d, const double* tr, Py_ssize_t stride,
                              const double* e, Py_ssize_t n, Py_ssize_t j)
    enum: PC_ROW_MAX
    void pc_prefetch_rows(const double* W, const int32_t* cols, Py_ssize_t m, Py_ssize_t K)
    void pc_emit_row(const double** w, const double* x, Py_ssize_t m, const double* b,
                     double* e, Py_ssize_t K)

import numpy as np

from perceptron_c._core._contract import decode_blocks, non_finite_sentence

# The Viterbi step's paths (the same bits on each): the widest this CPU has unless a test
# picks another (_set_viterbi_path).
_VITERBI_PATHS = ("baseline", "avx2")
cdef int _vit_best = pc_viterbi_best_path()
cdef int _vit_path = _vit_best


def _viterbi_paths():
    """The names of the Viterbi step's paths this CPU has (the tests run every one)."""
    return _VITERBI_PATHS[:_vit_best + 1]


def _set_viterbi_path(name):
    """Use the Viterbi path ``name`` (for the tests); returns the name of the one before."""
    global _vit_path
    if name not in _viterbi_paths():
        raise ValueError(f"Viterbi path {name!r} is not supported by this CPU; it has "
                         f"{_viterbi_paths()}")
    before, _vit_path = _VITERBI_PATHS[_vit_path], _VITERBI_PATHS.index(name)
    return before


# The work of one nogil call between two looks for Ctrl-C: CHUNK_WORK unless a test makes the
# chunks end inside every sentence (_set_chunk_work); the results never depend on it.
cdef Py_ssize_t _chunk_work = CHUNK_WORK


def _set_chunk_work(Py_ssize_t work):
    """Chunks of ``work`` multiply-adds (for the tests); returns the size before."""
    global _chunk_work
    before, _chunk_work = _chunk_work, work
    return before


from perceptron_c._core._sequence_py import __all__  # no-cython-lint: listed once (test_twins)


cdef inline bint _bad(double v, bint masked) noexcept nogil:
    # _sequence_py._bad: not finite; masked, NaN or +inf (-inf: an impossible path)
    return (v != v or v == INFINITY) if masked else not isfinite(v)


# Viterbi of one sentence: first order, second order (over tag pairs)
include "_sequence_viterbi.pxi"


cdef void emissions(const floating* data, const int32_t* idx, const int64_t* indptr,
                    Py_ssize_t d, Py_ssize_t T, Py_ssize_t K, const double* W, const double* b,
                    double* lanes, double* E) noexcept nogil:
    # _sequence_py._emissions: feature p of a row into lane p % 4 of every tag
    cdef Py_ssize_t t, p, m, k
    cdef const floating* x
    cdef const int32_t* cols
    cdef double* s1 = lanes + K
    cdef double* s2 = lanes + 2 * K
    cdef double* s3 = lanes + 3 * K
    cdef const double* rows[PC_ROW_MAX]
    cdef double xs[PC_ROW_MAX]
    for t in range(T):
        if indptr == NULL:
            x, cols, m = data + t * d, NULL, d
        else:
            x, cols, m = data + indptr[t], idx + indptr[t], indptr[t + 1] - indptr[t]
        if m <= PC_ROW_MAX:  # short rows: the lanes in registers (the same sums)
            for p in range(m):
                rows[p] = W + (p if cols == NULL else cols[p]) * K
                xs[p] = <double>x[p]
            if cols != NULL and t + 1 < T:
                pc_prefetch_rows(W, idx + indptr[t + 1], indptr[t + 2] - indptr[t + 1], K)
            pc_emit_row(rows, xs, m, b, E + t * K, K)
            continue
        for k in range(4 * K):
            lanes[k] = 0.0
        p = 0
        while p + 4 <= m:
            if cols == NULL:
                pc_lanes_add4(lanes, s1, s2, s3, W + p * K, W + (p + 1) * K, W + (p + 2) * K,
                              W + (p + 3) * K, <double>x[p], <double>x[p + 1],
                              <double>x[p + 2], <double>x[p + 3], K)
            else:
                pc_lanes_add4(lanes, s1, s2, s3, W + cols[p] * K, W + cols[p + 1] * K,
                              W + cols[p + 2] * K, W + cols[p + 3] * K, <double>x[p],
                              <double>x[p + 1], <double>x[p + 2], <double>x[p + 3], K)
            p += 4
        while p < m:
            pc_lane_add(lanes + (p & 3) * K, W + (p if cols == NULL else cols[p]) * K,
                        <double>x[p], K)
            p += 1
        pc_lanes_sum(lanes, b, E + t * K, K)


cdef inline Py_ssize_t emit_tokens(const floating* data, const int32_t* idx,
                                   const int64_t* indptr, const SeqModel* m, Py_ssize_t start,
                                   Py_ssize_t a, Py_ssize_t T, double* lanes, double* E,
                                   Py_ssize_t* budget) noexcept nogil:
    # The emissions of the tokens from start + a on into E + a K, as many as the budget of
    # multiply-adds pays for (at least one; a token costs K (its features + 1)), and of none
    # from start + T on; returns the next a.
    cdef Py_ssize_t n = T, cost = m.K * (T - a) * (1 + m.d) if indptr == NULL else m.K * (
        T - a + indptr[start + T] - indptr[start + a])
    if cost > budget[0]:  # not all of them: token by token
        n, cost = a, 0
        while n < T and (n == a or cost < budget[0]):
            cost += m.K * (1 + (m.d if indptr == NULL else indptr[start + n + 1] -
                                indptr[start + n]))
            n += 1
    if indptr == NULL:
        emissions(data + (start + a) * m.d, NULL, NULL, m.d, n - a, m.K, m.W, m.b, lanes,
                  E + a * m.K)
    else:
        emissions(data, idx, indptr + start + a, m.d, n - a, m.K, m.W, m.b, lanes, E + a * m.K)
    budget[0] -= cost
    return n


cdef inline int sentence_path(const floating* data, const int32_t* idx, const int64_t* indptr,
                              const SeqModel* m, Py_ssize_t start, Py_ssize_t T,
                              SeqWork* w, int64_t* path, Py_ssize_t* budget) noexcept nogil:
    # The sentence of rows start..start+T-1 from where w stands (w.emitted tokens' emissions,
    # then w.rows Viterbi rows), until its best path is in path (1; w back at 0, 0) or the
    # budget of multiply-adds is spent (0); -1: a score is not finite.
    cdef const double* E = m.E + start * m.K if m.E != NULL else w.E  # (given: viterbi)
    while m.E == NULL and w.emitted < T:
        w.emitted = emit_tokens(data, idx, indptr, m, start, w.emitted, T, w.lanes, w.E, budget)
        if budget[0] <= 0:
            return 0
    cdef int r
    if m.trans2 == NULL:
        r = viterbi_rows(E, m.trans, T, m.K, w.back, path, &w.rows, budget, m.masked)
    else:
        r = viterbi2_rows(E, m.trans, m.trans2, T, m.K, w.back, path, w.lanes, &w.rows, budget,
                          m.masked)
    if r > 0:
        w.emitted = 0
    return r


cdef Py_ssize_t decode_sentences(const floating* data, const int32_t* idx,
                                 const int64_t* indptr, const int64_t* offsets,
                                 Py_ssize_t stop, const SeqModel* m, SeqWork* work,
                                 int64_t* out, Py_ssize_t budget) noexcept nogil:
    cdef Py_ssize_t s = work.s, T  # (locals: the compiler keeps them in registers)
    cdef int r
    while s < stop:
        T = offsets[s + 1] - offsets[s]
        r = 1 if T == 0 else sentence_path(data, idx, indptr, m, offsets[s], T, work,
                                           out + offsets[s], &budget)
        if r < 0:
            return s
        s += r  # (r = 0: the budget ran out inside sentence s)
        if budget <= 0 and s < stop:
            work.s = s
            return -2
    return -1


cdef inline void _pair(const int64_t* tags, Py_ssize_t t, Py_ssize_t T, Py_ssize_t K,
                       Py_ssize_t* row, Py_ssize_t* col) noexcept nogil:
    # transition t of a sequence as an entry of trans (_sequence_py._pairs)
    if t == 0:
        row[0] = K
        col[0] = tags[0]
    elif t == T:
        row[0] = K + 1
        col[0] = tags[T - 1]
    else:
        row[0] = tags[t - 1]
        col[0] = tags[t]


cdef inline Py_ssize_t _triple(const int64_t* tags, Py_ssize_t t, Py_ssize_t T,
                               Py_ssize_t K) noexcept nogil:
    # trigram t of a sequence as a flat entry of trans2 (_sequence_py._triples)
    cdef Py_ssize_t h = tags[t - 2] if t >= 2 else K, i = tags[t - 1] if t >= 1 else K
    return (h * (K + 1) + i) * (K + 1) + (tags[t] if t < T else K)


cdef Py_ssize_t _update(const floating* data, const int32_t* idx, const int64_t* indptr,
                        Py_ssize_t start, const int64_t* gold, const int64_t* pred,
                        Py_ssize_t T, double step, double* W, double* b, double* trans,
                        double* trans2, const SeqModel* m) noexcept nogil:
    # _sequence_py._update: Phi(gold) - Phi(pred), scaled by step, where the two differ
    cdef Py_ssize_t t, n, q, gi, gj, pi, pj, wrong = 0, K = m.K, d = m.d
    cdef int64_t g, p
    cdef double* w
    cdef const floating* x
    cdef const int32_t* cols
    for t in range(T):
        g = gold[t]
        p = pred[t]
        if g != p:
            wrong += 1
            if indptr == NULL:
                x, cols, n = data + (start + t) * d, NULL, d
            else:
                x, cols = data + indptr[start + t], idx + indptr[start + t]
                n = indptr[start + t + 1] - indptr[start + t]
            for q in range(n):  # row q of W is feature q's (dense) or cols[q]'s
                w = W + (q if cols == NULL else cols[q]) * K
                w[g] += step * <double>x[q]
                w[p] += -step * <double>x[q]
            if b != NULL:
                b[g] += step
                b[p] -= step
    for t in range(T + 1):
        _pair(gold, t, T, K, &gi, &gj)
        _pair(pred, t, T, K, &pi, &pj)
        if gi != pi or gj != pj:
            trans[gi * K + gj] += step
            trans[pi * K + pj] -= step
    if trans2 != NULL:
        for t in range(T + 1):
            gi, pi = _triple(gold, t, T, K), _triple(pred, t, T, K)
            if gi != pi:
                trans2[gi] += step
                trans2[pi] -= step
    return wrong


cdef Py_ssize_t structured_pass(const floating* data, const int32_t* idx,
                                const int64_t* indptr, const int64_t* y,
                                const int64_t* offsets, const int64_t* order, Py_ssize_t n,
                                SeqModel* m, SeqWork* work, int64_t* mistakes,
                                Py_ssize_t budget) noexcept nogil:
    cdef Py_ssize_t k = work.s, i, T, start
    cdef int64_t s, c
    cdef int r
    cdef bint averaged = m.U != NULL
    while k < n:
        s = order[k]
        start = offsets[s]
        T = offsets[s + 1] - start
        if T > 0:
            r = sentence_path(data, idx, indptr, m, start, T, work, work.path, &budget)
            if r <= 0:
                work.s = k
                return 1 if r == 0 else -1
            i = 0
            while i < T and work.path[i] == y[start + i]:
                i += 1
            if i < T:  # a wrong tag
                mistakes[0] += 1
                mistakes[1] += _update(data, idx, indptr, start, y + start, work.path, T, 1.0,
                                       m.W, m.b if m.fit_intercept else NULL, m.trans,
                                       m.trans2, m)
                if averaged:
                    c = m.count[0]
                    _update(data, idx, indptr, start, y + start, work.path, T, <double>c,
                            m.U, m.beta if m.fit_intercept else NULL, m.U_trans, m.U_trans2, m)
        if averaged:
            m.count[0] += 1  # every sentence counts, mistake or not
        k += 1
        if budget <= 0 and k < n:
            work.s = k
            return 1
    return 0


# ---------------------------------------------------------------------------------------------
# def layer: the Python twin's checks, in its order and words, then nogil calls in chunks.

# the checks, and the allowed transitions (allowed=): trans as Viterbi reads it, the epoch
include "_sequence_checks.pxi"


cdef int _alloc(SeqWork* w, Py_ssize_t max_len, const SeqModel* m) except -1:
    """Scratch for sentences of up to max_len tokens (free it with _free; none on failure)."""
    cdef Py_ssize_t K = m.K, states = K * K if m.trans2 != NULL else K  # per token
    w.E = w.lanes = w.back = NULL
    w.path = NULL
    max_len = max(1, max_len)
    w.max_len, w.s, w.emitted, w.rows = max_len, 0, 0, 0
    w.E = <double*>malloc(max_len * K * sizeof(double))
    w.back = <double*>malloc(max_len * states * sizeof(double))
    w.path = <int64_t*>malloc(max_len * sizeof(int64_t))
    w.lanes = <double*>malloc(4 * K * sizeof(double))
    if (w.E == NULL or w.back == NULL or w.path == NULL or
            w.lanes == NULL):
        _free(w)
        raise MemoryError(f"no memory for the Viterbi buffers of a sentence of {max_len} "
                          f"tokens and {K} tags")
    return 0


cdef void _free(SeqWork* w) noexcept:
    free(w.E)
    free(w.back)
    free(w.path)
    free(w.lanes)


cdef void _model(SeqModel* m, const double* W, const double* b, const double* trans,
                 Py_ssize_t K, Py_ssize_t d) noexcept:
    m.W, m.b, m.trans, m.K, m.d = <double*>W, <double*>b, <double*>trans, K, d
    m.U = m.beta = m.U_trans = m.trans2 = m.U_trans2 = NULL
    m.count, m.E, m.fit_intercept, m.masked = NULL, NULL, False, False


cdef double* _trans2(double[:, :, ::1] trans2) noexcept:
    # trans2's entries, or NULL (first order)
    return NULL if trans2 is None else &trans2[0, 0, 0]


def viterbi(const double[:, ::1] E, const double[:, ::1] trans, const int64_t[::1] offsets,
            int64_t[::1] out, *, allowed=None, double[:, :, ::1] trans2=None):
    cdef SeqModel m
    cdef const double[:, ::1] tc = trans
    _check_trans(trans, E.shape[1])
    _check_trans2(trans2, E.shape[1])
    ok = _check_allowed(allowed, E.shape[1])
    _check_offsets(offsets, E.shape[0])
    need(out.shape[0] == E.shape[0], "out must have one entry per token")
    if ok is not None:
        tc = _masked(trans, ok)
    _model(&m, NULL, NULL, &tc[0, 0], E.shape[1], 0)
    m.masked, m.trans2 = ok is not None, _trans2(trans2)
    m.E = &E[0, 0]  # given: decoding skips the emissions
    bad = _decode_range(<const double*>NULL, NULL, NULL, &m, offsets, out, 0, offsets.shape[0] - 1)
    if bad >= 0:
        raise non_finite_sentence(bad)


cdef int _emissions_out(const floating* data, const int32_t* idx, const int64_t* indptr,
                        Py_ssize_t n, Py_ssize_t d, const double[:, ::1] W, const double[::1] b,
                        double[:, ::1] out) except -1:
    """_sequence_py._emissions_out: chunks of rows, looking for Ctrl-C between them."""
    cdef SeqModel m
    cdef Py_ssize_t a = 0, budget
    need(b.shape[0] == W.shape[1], "b must have one entry per column of W")
    need(out.shape[0] == n and out.shape[1] == W.shape[1], "out must have shape (n_tokens, K)")
    _model(&m, &W[0, 0], &b[0], NULL, W.shape[1], d)
    cdef double* lanes = <double*>malloc(max(1, 4 * m.K) * sizeof(double))
    if lanes == NULL:
        raise MemoryError(f"no memory for the lanes of {m.K} tags")
    try:
        while a < n:
            budget = _chunk_work
            with nogil:
                a = emit_tokens(data, idx, indptr, &m, 0, a, n, lanes, &out[0, 0], &budget)
            between_chunks()
    finally:
        free(lanes)
    return 0


def emissions_dense(const floating[:, ::1] X, const double[:, ::1] W, const double[::1] b,
                    double[:, ::1] out):
    need(W.shape[0] == X.shape[1], "W must have one row per feature")
    _emissions_out(&X[0, 0], NULL, NULL, X.shape[0], X.shape[1], W, b, out)


def emissions_csr(const floating[::1] data, const int32_t[::1] indices,
                  const int64_t[::1] indptr, const double[:, ::1] W, const double[::1] b,
                  double[:, ::1] out):
    check_csr(indptr, data.shape[0], indices.shape[0])
    _emissions_out(&data[0], &indices[0], &indptr[0], indptr.shape[0] - 1, W.shape[0], W, b,
                   out)


cdef Py_ssize_t _decode_range(const floating* data, const int32_t* idx, const int64_t* indptr,
                              const SeqModel* m, const int64_t[::1] offsets, int64_t[::1] out,
                              Py_ssize_t first, Py_ssize_t stop) except -2:
    """Decode one block of sentences with its own scratch, in chunks of about `_chunk_work`
    multiply-adds (inside long sentences too): -1, or the sentence that failed."""
    cdef SeqWork w
    cdef Py_ssize_t bad
    _alloc(&w, _check_offsets(offsets, 0, first, stop), m)
    w.s = first
    try:
        while True:
            with nogil:
                bad = decode_sentences(data, idx, indptr, &offsets[0], stop, m, &w, &out[0],
                                       _chunk_work)
            between_chunks()
            if bad != -2:
                return bad
    finally:
        _free(&w)


def _decode_block_dense(const floating[:, ::1] X, const double[:, ::1] W, const double[::1] b,
                        const double[:, ::1] trans, const int64_t[::1] offsets,
                        int64_t[::1] out, Py_ssize_t first, Py_ssize_t stop, bint masked,
                        double[:, :, ::1] trans2):
    cdef SeqModel m
    _model(&m, &W[0, 0], &b[0], &trans[0, 0], W.shape[1], X.shape[1])
    m.masked, m.trans2 = masked, _trans2(trans2)
    return _decode_range(&X[0, 0], NULL, NULL, &m, offsets, out, first, stop)


def _decode_block_csr(const floating[::1] data, const int32_t[::1] indices,
                      const int64_t[::1] indptr, Py_ssize_t d, const double[:, ::1] W,
                      const double[::1] b, const double[:, ::1] trans,
                      const int64_t[::1] offsets, int64_t[::1] out, Py_ssize_t first,
                      Py_ssize_t stop, bint masked, double[:, :, ::1] trans2):
    cdef SeqModel m
    _model(&m, &W[0, 0], &b[0], &trans[0, 0], W.shape[1], d)
    m.masked, m.trans2 = masked, _trans2(trans2)
    return _decode_range(&data[0], &indices[0], &indptr[0], &m, offsets, out, first, stop)


def _decode(block, Py_ssize_t n_tokens, Py_ssize_t row_len, const double[:, ::1] W,
            const double[::1] b, trans, const int64_t[::1] offsets, int64_t[::1] out, n_jobs,
            allowed, double[:, :, ::1] trans2):
    """The checks, then `decode_blocks` of block(first, stop, trans as Viterbi reads it,
    masked): the lowest failed sentence raises."""
    K = W.shape[1]
    need(b.shape[0] == K, "b must have one entry per column of W")
    _check_trans(trans, K)
    _check_trans2(trans2, K)
    ok = _check_allowed(allowed, K)
    _check_offsets(offsets, n_tokens)
    need(out.shape[0] == n_tokens, "out must have one entry per token")
    tc = trans if ok is None else _masked(trans, ok)
    decode_blocks(lambda first, stop: block(first, stop, tc, ok is not None), offsets, K,
                  row_len + (0 if trans2 is None else K * K), n_jobs)


def decode_dense(X, W, b, trans, offsets, out, *, n_jobs=None, allowed=None, trans2=None):
    need(W.shape[0] == X.shape[1], "W must have one row per feature")
    _decode(lambda first, stop, tc, masked: _decode_block_dense(X, W, b, tc, offsets, out,
                                                                first, stop, masked, trans2),
            X.shape[0], X.shape[1], W, b, trans, offsets, out, n_jobs, allowed, trans2)


def decode_csr(data, indices, const int64_t[::1] indptr, W, b, trans, offsets, out, *,
               n_jobs=None, allowed=None, trans2=None):
    check_csr(indptr, data.shape[0], indices.shape[0])
    n = indptr.shape[0] - 1
    _decode(lambda first, stop, tc, masked: _decode_block_csr(
                data, indices, indptr, W.shape[0], W, b, tc, offsets, out, first, stop, masked,
                trans2),
            n, indptr[n] // max(1, n), W, b, trans, offsets, out, n_jobs, allowed, trans2)


cdef Py_ssize_t _epoch(const floating* data, const int32_t* idx, const int64_t* indptr,
                       const int64_t[::1] y, const int64_t[::1] offsets,
                       const int64_t[::1] order, SeqModel* m, Py_ssize_t longest,
                       int64_t[::1] mistakes) except -1:
    """structured_pass over ``order`` in chunks of CHUNK_WORK (inside long sentences too),
    looking for Ctrl-C between them; returns the sentences tagged wrongly."""
    cdef Py_ssize_t n = order.shape[0], r = 1
    cdef int64_t before = mistakes[0]
    cdef SeqWork w
    _alloc(&w, longest, m)
    try:
        while r == 1:
            with nogil:
                r = structured_pass(data, idx, indptr, &y[0], &offsets[0], &order[0], n, m, &w,
                                    &mistakes[0], _chunk_work)
            if r < 0:
                raise non_finite_sentence(order[w.s], w.s)
            between_chunks()
    finally:
        _free(&w)
    return mistakes[0] - before


cdef void _trained(SeqModel* m, double[:, ::1] W, double[::1] b, double[:, ::1] trans,
                   bint fit_intercept, double[:, ::1] U, double[::1] beta,
                   double[:, ::1] U_trans, int64_t[::1] count, double[:, :, ::1] trans2,
                   double[:, :, ::1] U_trans2) noexcept:
    # the model an epoch trains: the weights, and the averaging sums if given
    _model(m, &W[0, 0], &b[0], &trans[0, 0], W.shape[1], W.shape[0])
    m.fit_intercept, m.trans2 = fit_intercept, _trans2(trans2)
    if U is not None:
        m.U, m.beta, m.U_trans, m.count = &U[0, 0], &beta[0], &U_trans[0, 0], &count[0]
        m.U_trans2 = _trans2(U_trans2)


def structured_epoch_dense(const floating[:, ::1] X, const int64_t[::1] y,
                           const int64_t[::1] offsets, const int64_t[::1] order,
                           double[:, ::1] W, double[::1] b, double[:, ::1] trans,
                           bint fit_intercept, double[:, ::1] U, double[::1] beta,
                           double[:, ::1] U_trans, int64_t[::1] count, int64_t[::1] mistakes,
                           allowed=None, double[:, :, ::1] trans2=None,
                           double[:, :, ::1] U_trans2=None):
    cdef SeqModel m
    longest = _check_epoch(X.shape[0], X.shape[1], y, offsets, order, W, b, trans, U, beta,
                           U_trans, count, mistakes, trans2, U_trans2)
    _trained(&m, W, b, trans, fit_intercept, U, beta, U_trans, count, trans2, U_trans2)
    return _masked_epoch(&X[0, 0], NULL, NULL, y, offsets, order, &m, longest, mistakes, trans,
                         allowed)


def structured_epoch_csr(const floating[::1] data, const int32_t[::1] indices,
                         const int64_t[::1] indptr, const int64_t[::1] y,
                         const int64_t[::1] offsets, const int64_t[::1] order,
                         double[:, ::1] W, double[::1] b, double[:, ::1] trans,
                         bint fit_intercept, double[:, ::1] U, double[::1] beta,
                         double[:, ::1] U_trans, int64_t[::1] count, int64_t[::1] mistakes,
                         allowed=None, double[:, :, ::1] trans2=None,
                         double[:, :, ::1] U_trans2=None):
    cdef SeqModel m
    check_csr(indptr, data.shape[0], indices.shape[0])
    n = indptr.shape[0] - 1
    longest = _check_epoch(n, W.shape[0], y, offsets, order, W, b, trans, U, beta, U_trans,
                           count, mistakes, trans2, U_trans2)
    _trained(&m, W, b, trans, fit_intercept, U, beta, U_trans, count, trans2, U_trans2)
    return _masked_epoch(&data[0], &indices[0], &indptr[0], y, offsets, order, &m, longest,
                         mistakes, trans, allowed)
