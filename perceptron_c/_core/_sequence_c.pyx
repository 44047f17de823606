# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_sequence_py``: same functions, same signatures, same arithmetic.

The Python twin is the specification; read its module docstring for the arithmetic contract
(``_linear``'s 4-lane emissions, Viterbi's order of additions, ties to the lowest tag, the
update where the sequences differ). W is feature-major (d, K): a token's emissions walk its
features once, adding each feature's K contiguous weights into 4 lanes of K running sums
(``_lanes.h``, loops the compiler vectorizes), so they are ``_linear``'s decision values on
W.T bit for bit. Sentences run without the GIL in chunks of a few
milliseconds, with scratch buffers allocated once per call (per block when decoding on
``n_jobs`` threads) and sized by the longest sentence.
"""
from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc
from cython cimport floating

from perceptron_c._core._checks cimport (all_in_range, between_chunks, check_csr, need,
                                         rows_per_chunk)

cdef extern from "_lanes.h" nogil:
    void pc_lanes_add4(double* s0, double* s1, double* s2, double* s3, const double* w0,
                       const double* w1, const double* w2, const double* w3, double x0,
                       double x1, double x2, double x3, Py_ssize_t K)
    void pc_lane_add(double* s, const double* w, double x, Py_ssize_t K)
    void pc_lanes_sum(const double* s, const double* b, double* e, Py_ssize_t K)
    void pc_viterbi_from(double di, const double* tr, const double* e, double* nxt,
                         double* bk, double i, Py_ssize_t K)
    int pc_viterbi_best_path()
    void pc_viterbi_step(double di, const double* tr, const double* e, double* nxt,
                         double* bk, double i, Py_ssize_t K, int path)
    enum: PC_ROW_MAX
    void pc_prefetch_rows(const double* W, const int32_t* cols, Py_ssize_t m, Py_ssize_t K)
    void pc_emit_row(const double** w, const double* x, Py_ssize_t m, const double* b,
                     double* e, Py_ssize_t K)

from perceptron_c._core._contract import non_finite_sentence, sentence_blocks
from perceptron_c._threads import effective_n_jobs, run_shared, stop_point

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


from perceptron_c._core._sequence_py import __all__  # no-cython-lint: listed once (test_twins)


cdef int best_path(const double* E, const double* trans, Py_ssize_t T, Py_ssize_t K,
                   double* delta, double* back, int64_t* path) noexcept nogil:
    # _sequence_py._best_path; the loop over i is outside the one over j (contiguous rows of
    # trans), which compares each j's candidates in the same order, i = 0, 1, ...
    cdef double* cur = delta
    cdef double* nxt = delta + K
    cdef double* tmp
    cdef const double* e
    cdef const double* end = trans + (K + 1) * K
    cdef double* bk
    cdef Py_ssize_t t, i, j, last = 0
    cdef double cand, best
    for j in range(K):
        cur[j] = trans[K * K + j] + E[j]
        if not isfinite(cur[j]):
            return -1
    for t in range(1, T):
        e = E + t * K
        bk = back + t * K
        for j in range(K):
            nxt[j] = (cur[0] + trans[j]) + e[j]
            bk[j] = 0
        for i in range(1, K):  # strict >: ties go to the lowest tag
            pc_viterbi_step(cur[i], trans + i * K, e, nxt, bk, <double>i, K, _vit_path)
        for j in range(K):
            if not isfinite(nxt[j]):
                return -1
        tmp = cur
        cur = nxt
        nxt = tmp
    best = cur[0] + end[0]
    if not isfinite(best):
        return -1
    for j in range(1, K):
        cand = cur[j] + end[j]
        if not isfinite(cand):
            return -1
        if cand > best:
            last = j
            best = cand
    path[T - 1] = last
    for t in range(T - 1, 0, -1):
        path[t - 1] = <int64_t>back[t * K + path[t]]
    return 0


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
            x = data + t * d
            cols = NULL
            m = d
        else:
            x = data + indptr[t]
            cols = idx + indptr[t]
            m = indptr[t + 1] - indptr[t]
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


cdef inline void _emissions(const floating* data, const int32_t* idx, const int64_t* indptr,
                            const SeqModel* m, Py_ssize_t start, Py_ssize_t T,
                            SeqWork* work) noexcept nogil:
    if indptr == NULL:
        emissions(data + start * m.d, NULL, NULL, m.d, T, m.K, m.W, m.b, work.lanes, work.E)
    else:
        emissions(data, idx, indptr + start, m.d, T, m.K, m.W, m.b, work.lanes, work.E)


cdef Py_ssize_t decode_sentences(const floating* data, const int32_t* idx,
                                 const int64_t* indptr, const int64_t* offsets,
                                 Py_ssize_t first, Py_ssize_t stop, const SeqModel* m,
                                 SeqWork* work, int64_t* out) noexcept nogil:
    cdef Py_ssize_t s, T
    for s in range(first, stop):
        T = offsets[s + 1] - offsets[s]
        if T == 0:
            continue
        _emissions(data, idx, indptr, m, offsets[s], T, work)
        if best_path(work.E, m.trans, T, m.K, work.delta, work.back, out + offsets[s]) < 0:
            return s
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


cdef Py_ssize_t _update(const floating* data, const int32_t* idx, const int64_t* indptr,
                        Py_ssize_t start, const int64_t* gold, const int64_t* pred,
                        Py_ssize_t T, double step, double* W, double* b, double* trans,
                        const SeqModel* m) noexcept nogil:
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
                x = data + (start + t) * d
                cols = NULL
                n = d
            else:
                x = data + indptr[start + t]
                cols = idx + indptr[start + t]
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
    return wrong


cdef Py_ssize_t structured_pass(const floating* data, const int32_t* idx,
                                const int64_t* indptr, const int64_t* y,
                                const int64_t* offsets, const int64_t* order, Py_ssize_t n,
                                SeqModel* m, SeqWork* work, int64_t* mistakes) noexcept nogil:
    cdef Py_ssize_t t, k, T, start, wrong = 0
    cdef int64_t s, c
    cdef bint differ
    cdef bint averaged = m.U != NULL
    for t in range(n):
        s = order[t]
        start = offsets[s]
        T = offsets[s + 1] - start
        if T > 0:
            _emissions(data, idx, indptr, m, start, T, work)
            if best_path(work.E, m.trans, T, m.K, work.delta, work.back, work.path) < 0:
                return -1 - t
            differ = False
            for k in range(T):
                if work.path[k] != y[start + k]:
                    differ = True
                    break
            if differ:
                wrong += 1
                mistakes[0] += 1
                mistakes[1] += _update(data, idx, indptr, start, y + start, work.path, T, 1.0,
                                       m.W, m.b if m.fit_intercept else NULL, m.trans, m)
                if averaged:
                    c = m.count[0]
                    _update(data, idx, indptr, start, y + start, work.path, T, <double>c,
                            m.U, m.beta if m.fit_intercept else NULL, m.U_trans, m)
        if averaged:
            m.count[0] += 1  # every sentence counts, mistake or not
    return wrong


# ---------------------------------------------------------------------------------------------
# def layer: the Python twin's checks, in its order and words, then nogil calls in chunks.

cdef Py_ssize_t _check_trans(const double[:, ::1] trans, Py_ssize_t K) except -1:
    cdef Py_ssize_t i, bad = -1
    need(K >= 1 and trans.shape[0] == K + 2 and trans.shape[1] == K,
         "trans must have shape (n_tags + 2, n_tags)")
    with nogil:
        for i in range((K + 2) * K):
            if not isfinite(trans[i // K, i % K]):
                bad = i
                break
    if bad >= 0:
        raise FloatingPointError(f"trans[{bad // K}, {bad % K}] is not finite")
    return 0


cdef Py_ssize_t _check_offsets(const int64_t[::1] offsets, Py_ssize_t n_tokens,
                               Py_ssize_t first=0, Py_ssize_t stop=-1) except -1:
    """Checks offsets (when stop < 0) and returns the longest sentence of first..stop-1."""
    cdef Py_ssize_t s, n = offsets.shape[0] - 1, longest = 0
    cdef bint ok = True
    if stop < 0:
        ok = n >= 0 and offsets[0] == 0 and offsets[n] == n_tokens
        stop = n
    if ok:
        with nogil:
            for s in range(first, stop):
                if offsets[s] > offsets[s + 1]:
                    ok = False
                    break
                longest = max(longest, offsets[s + 1] - offsets[s])
    need(ok, "offsets must be monotone from 0 to the number of tokens")
    return longest


cdef int _alloc(SeqWork* w, Py_ssize_t max_len, Py_ssize_t K) except -1:
    """Scratch for sentences of up to max_len tokens (free with _free, also on failure)."""
    max_len = max(1, max_len)
    w.max_len = max_len
    w.E = <double*>malloc(max_len * K * sizeof(double))
    w.delta = <double*>malloc(2 * K * sizeof(double))
    w.back = <double*>malloc(max_len * K * sizeof(double))
    w.path = <int64_t*>malloc(max_len * sizeof(int64_t))
    w.lanes = <double*>malloc(4 * K * sizeof(double))
    if (w.E == NULL or w.delta == NULL or w.back == NULL or w.path == NULL or
            w.lanes == NULL):
        raise MemoryError(f"no memory for the Viterbi buffers of a sentence of {max_len} "
                          f"tokens and {K} tags")
    return 0


cdef void _free(SeqWork* w) noexcept:
    free(w.E)
    free(w.delta)
    free(w.back)
    free(w.path)
    free(w.lanes)


cdef void _model(SeqModel* m, const double* W, const double* b, const double* trans,
                 Py_ssize_t K, Py_ssize_t d) noexcept:
    m.W = <double*>W
    m.b = <double*>b
    m.trans = <double*>trans
    m.U = m.beta = m.U_trans = NULL
    m.count = NULL
    m.K = K
    m.d = d
    m.fit_intercept = False


def viterbi(const double[:, ::1] E, const double[:, ::1] trans, const int64_t[::1] offsets,
            int64_t[::1] out):
    cdef Py_ssize_t K = E.shape[1], s, first, stop, bad = -1
    cdef SeqWork w
    _check_trans(trans, K)
    longest = _check_offsets(offsets, E.shape[0])
    need(out.shape[0] == E.shape[0], "out must have one entry per token")
    w.E = w.delta = w.lanes = w.back = NULL
    w.path = NULL
    try:
        _alloc(&w, longest, K)
        for first, stop in sentence_blocks(offsets, K, 0):
            with nogil:
                for s in range(first, stop):
                    if offsets[s + 1] > offsets[s] and best_path(
                            &E[0, 0] + offsets[s] * K, &trans[0, 0], offsets[s + 1] - offsets[s],
                            K, w.delta, w.back, &out[0] + offsets[s]) < 0:
                        bad = s
                        break
            if bad >= 0:
                raise non_finite_sentence(bad)
            between_chunks()
    finally:
        _free(&w)


cdef int _emissions_out(const floating* data, const int32_t* idx, const int64_t* indptr,
                        Py_ssize_t n, Py_ssize_t d, row_len, const double[:, ::1] W,
                        const double[::1] b, double[:, ::1] out) except -1:
    """_sequence_py._emissions_out: chunks of rows, looking for Ctrl-C between them."""
    cdef Py_ssize_t K = W.shape[1], start = 0, stop
    cdef Py_ssize_t chunk = rows_per_chunk(max(1, K) * max(1, row_len))
    cdef double* lanes
    need(b.shape[0] == K, "b must have one entry per column of W")
    need(out.shape[0] == n and out.shape[1] == K, "out must have shape (n_tokens, K)")
    if n == 0:
        return 0
    lanes = <double*>malloc(max(1, 4 * K) * sizeof(double))
    if lanes == NULL:
        raise MemoryError(f"no memory for the lanes of {K} tags")
    try:
        while start < n:
            stop = min(n, start + chunk)
            with nogil:
                if indptr == NULL:
                    emissions(data + start * d, NULL, NULL, d, stop - start, K, &W[0, 0], &b[0],
                              lanes, &out[start, 0])
                else:
                    emissions(data, idx, indptr + start, d, stop - start, K, &W[0, 0], &b[0],
                              lanes, &out[start, 0])
            start = stop
            between_chunks()
    finally:
        free(lanes)
    return 0


def emissions_dense(const floating[:, ::1] X, const double[:, ::1] W, const double[::1] b,
                    double[:, ::1] out):
    need(W.shape[0] == X.shape[1], "W must have one row per feature")
    _emissions_out(&X[0, 0], NULL, NULL, X.shape[0], X.shape[1], X.shape[1], W, b, out)


def emissions_csr(const floating[::1] data, const int32_t[::1] indices,
                  const int64_t[::1] indptr, const double[:, ::1] W, const double[::1] b,
                  double[:, ::1] out):
    check_csr(indptr, data.shape[0], indices.shape[0])
    n = indptr.shape[0] - 1
    _emissions_out(&data[0], &indices[0], &indptr[0], n, W.shape[0], indptr[n] // max(1, n),
                   W, b, out)


cdef Py_ssize_t _decode_range(const floating* data, const int32_t* idx, const int64_t* indptr,
                              Py_ssize_t d, const double[:, ::1] W, const double[::1] b,
                              const double[:, ::1] trans, const int64_t[::1] offsets,
                              int64_t[::1] out, Py_ssize_t first, Py_ssize_t stop) except -2:
    """Decode one block of sentences with its own scratch: -1, or the sentence that failed."""
    cdef SeqModel m
    cdef SeqWork w
    cdef Py_ssize_t bad
    _model(&m, &W[0, 0], &b[0], &trans[0, 0], W.shape[1], d)
    w.E = w.delta = w.lanes = w.back = NULL
    w.path = NULL
    try:
        _alloc(&w, _check_offsets(offsets, 0, first, stop), m.K)
        with nogil:
            bad = decode_sentences(data, idx, indptr, &offsets[0], first, stop, &m, &w, &out[0])
    finally:
        _free(&w)
    between_chunks()
    return bad


def _decode_block_dense(const floating[:, ::1] X, const double[:, ::1] W, const double[::1] b,
                        const double[:, ::1] trans, const int64_t[::1] offsets,
                        int64_t[::1] out, Py_ssize_t first, Py_ssize_t stop):
    return _decode_range(&X[0, 0], NULL, NULL, X.shape[1], W, b, trans, offsets, out, first,
                         stop)


def _decode_block_csr(const floating[::1] data, const int32_t[::1] indices,
                      const int64_t[::1] indptr, Py_ssize_t d, const double[:, ::1] W,
                      const double[::1] b, const double[:, ::1] trans,
                      const int64_t[::1] offsets, int64_t[::1] out, Py_ssize_t first,
                      Py_ssize_t stop):
    return _decode_range(&data[0], &indices[0], &indptr[0], d, W, b, trans, offsets, out,
                         first, stop)


def _decode(run, Py_ssize_t n_tokens, Py_ssize_t row_len, const double[:, ::1] W,
            const double[::1] b, const double[:, ::1] trans, const int64_t[::1] offsets,
            int64_t[::1] out, n_jobs):
    """The blocks of `sentence_blocks` on n_jobs threads; the lowest failed sentence raises."""
    K = W.shape[1]
    need(b.shape[0] == K, "b must have one entry per column of W")
    _check_trans(trans, K)
    _check_offsets(offsets, n_tokens)
    need(out.shape[0] == n_tokens, "out must have one entry per token")
    blocks = sentence_blocks(offsets, K, row_len)
    bad = []

    def block(k):
        s = run(blocks[k][0], blocks[k][1])
        if s >= 0:
            bad.append(s)

    if len(blocks) == 1:  # run_shared's one block (after its check of n_jobs), here
        effective_n_jobs(n_jobs)
        stop_point()
        block(0)
    else:
        run_shared(block, len(blocks), n_jobs)
    if bad:
        raise non_finite_sentence(min(bad))


def decode_dense(X, W, b, trans, offsets, out, *, n_jobs=None):
    need(W.shape[0] == X.shape[1], "W must have one row per feature")
    _decode(lambda first, stop: _decode_block_dense(X, W, b, trans, offsets, out, first, stop),
            X.shape[0], X.shape[1], W, b, trans, offsets, out, n_jobs)


def decode_csr(data, indices, const int64_t[::1] indptr, W, b, trans, offsets, out, *,
               n_jobs=None):
    check_csr(indptr, data.shape[0], indices.shape[0])
    n = indptr.shape[0] - 1
    _decode(lambda first, stop: _decode_block_csr(data, indices, indptr, W.shape[0], W, b, trans,
                                                  offsets, out, first, stop),
            n, indptr[n] // max(1, n), W, b, trans, offsets, out, n_jobs)


cdef Py_ssize_t _check_epoch(Py_ssize_t n_tokens, Py_ssize_t d, const int64_t[::1] y,
                             const int64_t[::1] offsets, const int64_t[::1] order,
                             const double[:, ::1] W, const double[::1] b,
                             const double[:, ::1] trans, object U, object beta, object U_trans,
                             object count, const int64_t[::1] mistakes) except -1:
    """_sequence_py._check_epoch; returns the longest sentence."""
    cdef Py_ssize_t K = W.shape[1], longest
    need(W.shape[0] == d, "W must have one row per feature")
    need(b.shape[0] == K, "b must have one entry per column of W")
    _check_trans(trans, K)
    longest = _check_offsets(offsets, n_tokens)
    need(y.shape[0] == n_tokens, "y must have one tag per token")
    need(all_in_range(y, K), f"y must hold tag indices in [0, {K})")
    n_sent = offsets.shape[0] - 1
    need(all_in_range(order, n_sent), f"order must hold sentence indices in [0, {n_sent})")
    need(mistakes.shape[0] == 2, "mistakes must have shape (2,)")
    if U is None:
        need(beta is None and U_trans is None and count is None,
             "U, beta, U_trans and count go together")
        return longest
    need(beta is not None and U_trans is not None and count is not None,
         "U, beta, U_trans and count go together")
    need(U.shape[0] == d and U.shape[1] == K, "U must have the shape of W")
    need(beta.shape[0] == K, "beta must have the shape of b")
    need(U_trans.shape[0] == K + 2 and U_trans.shape[1] == K,
         "U_trans must have the shape of trans")
    need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    return longest


cdef Py_ssize_t _epoch(const floating* data, const int32_t* idx, const int64_t* indptr,
                       Py_ssize_t row_len, const int64_t[::1] y, const int64_t[::1] offsets,
                       const int64_t[::1] order, SeqModel* m, Py_ssize_t longest,
                       int64_t[::1] mistakes) except -1:
    """structured_pass over ``order`` in chunks, looking for Ctrl-C between them."""
    cdef Py_ssize_t n = order.shape[0], start = 0, stop, r, total = 0
    cdef Py_ssize_t n_sent = offsets.shape[0] - 1
    cdef Py_ssize_t mean_len = max(1, offsets[n_sent] // max(1, n_sent))
    cdef Py_ssize_t chunk = max(1, rows_per_chunk(m.K * (row_len + m.K)) // mean_len)
    cdef SeqWork w
    w.E = w.delta = w.lanes = w.back = NULL
    w.path = NULL
    try:
        _alloc(&w, longest, m.K)
        while start < n:
            stop = min(n, start + chunk)
            with nogil:
                r = structured_pass(data, idx, indptr, &y[0], &offsets[0], &order[start],
                                    stop - start, m, &w, &mistakes[0])
            if r < 0:
                raise non_finite_sentence(order[start - 1 - r], start - 1 - r)
            total += r
            start = stop
            between_chunks()
    finally:
        _free(&w)
    return total


cdef void _averaging(SeqModel* m, bint fit_intercept, double[:, ::1] U, double[::1] beta,
                     double[:, ::1] U_trans, int64_t[::1] count) noexcept:
    m.fit_intercept = fit_intercept
    if U is not None:
        m.U = &U[0, 0]
        m.beta = &beta[0]
        m.U_trans = &U_trans[0, 0]
        m.count = &count[0]


def structured_epoch_dense(const floating[:, ::1] X, const int64_t[::1] y,
                           const int64_t[::1] offsets, const int64_t[::1] order,
                           double[:, ::1] W, double[::1] b, double[:, ::1] trans,
                           bint fit_intercept, double[:, ::1] U, double[::1] beta,
                           double[:, ::1] U_trans, int64_t[::1] count, int64_t[::1] mistakes):
    cdef SeqModel m
    longest = _check_epoch(X.shape[0], X.shape[1], y, offsets, order, W, b, trans, U, beta,
                           U_trans, count, mistakes)
    _model(&m, &W[0, 0], &b[0], &trans[0, 0], W.shape[1], W.shape[0])
    _averaging(&m, fit_intercept, U, beta, U_trans, count)
    return _epoch(&X[0, 0], NULL, NULL, X.shape[1], y, offsets, order, &m, longest, mistakes)


def structured_epoch_csr(const floating[::1] data, const int32_t[::1] indices,
                         const int64_t[::1] indptr, const int64_t[::1] y,
                         const int64_t[::1] offsets, const int64_t[::1] order,
                         double[:, ::1] W, double[::1] b, double[:, ::1] trans,
                         bint fit_intercept, double[:, ::1] U, double[::1] beta,
                         double[:, ::1] U_trans, int64_t[::1] count, int64_t[::1] mistakes):
    cdef SeqModel m
    check_csr(indptr, data.shape[0], indices.shape[0])
    n = indptr.shape[0] - 1
    longest = _check_epoch(n, W.shape[0], y, offsets, order, W, b, trans, U, beta, U_trans,
                           count, mistakes)
    _model(&m, &W[0, 0], &b[0], &trans[0, 0], W.shape[1], W.shape[0])
    _averaging(&m, fit_intercept, U, beta, U_trans, count)
    return _epoch(&data[0], &indices[0], &indptr[0], indptr[n] // max(1, n), y, offsets, order,
                  &m, longest, mistakes)
