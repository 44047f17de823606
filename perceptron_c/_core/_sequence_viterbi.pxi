# Included by _sequence_c.pyx (its _bad, _vit_path and the Viterbi step of _lanes.h): Viterbi
# of one sentence, first order (viterbi_rows, best_path) and second order (viterbi2_rows, over
# tag pairs), each resumable row by row on a budget of multiply-adds (_sequence_py's contract).
# Every row of scores is kept (rows: t x K, or t x K^2 over pairs) and the path is followed
# back by finding each predecessor again from the same sums (pc_viterbi_arg): the step keeps
# no backpointers, and so costs one addition and one VMAXPD per candidate, not three more
# operations to select a backpointer.

cdef inline int viterbi_rows(const double* E, const double* trans, Py_ssize_t T,
                             Py_ssize_t K, double* rows_, int64_t* path, Py_ssize_t* rows,
                             Py_ssize_t* budget, bint masked) noexcept nogil:
    # _sequence_py._best_path from row rows[0] on: the best path into path (1; rows[0] back to
    # 0), or 0 when the budget of multiply-adds ran out first (rows[0]: the rows done, where
    # to go on), or -1 when a score is not finite. delta_t is rows_ + t K.
    cdef Py_ssize_t t = rows[0], j, last = 0
    cdef const double* fin = trans + (K + 1) * K  # the end scores
    cdef double cand, best = 0.0
    if t == 0:
        for j in range(K):
            rows_[j] = trans[K * K + j] + E[j]
            if _bad(rows_[j], masked):
                return -1
        t = 1
    while t < T:
        pc_viterbi_step(rows_ + (t - 1) * K, trans, K, E + t * K, rows_ + t * K, K, K,
                        _vit_path)
        for j in range(K):
            if _bad(rows_[t * K + j], masked):
                return -1
        t += 1
        budget[0] -= K * K
        if budget[0] <= 0 and t < T:
            rows[0] = t
            return 0
    rows[0] = 0
    for j in range(K):
        cand = rows_[(T - 1) * K + j] + fin[j]
        if _bad(cand, masked):
            return -1
        if j == 0 or cand > best:
            last, best = j, cand
    if best == -INFINITY:  # (masked only) no allowed sequence
        return -1
    path[T - 1] = last
    for t in range(T - 1, 0, -1):
        path[t - 1] = pc_viterbi_arg(rows_ + (t - 1) * K, trans, K, E + t * K, K, path[t])
    return 1


cdef inline int viterbi2_rows(const double* E, const double* trans, const double* trans2,
                              Py_ssize_t T, Py_ssize_t K, double* rows_, int64_t* path,
                              double* col, Py_ssize_t* rows, Py_ssize_t* budget,
                              bint masked) noexcept nogil:
    # _sequence_py._best_path2, resumable as viterbi_rows: delta_0 is rows_[0:K], delta_t
    # (t >= 1) the K x K at rows_ + t K^2 (row i: the pairs (i, j)); col: scratch of K
    # doubles (delta_{t-1}[:, i]).
    cdef Py_ssize_t t = rows[0], i, j, h, a, K1 = K + 1, KK = K * K, best_a = 0
    cdef double* cur
    cdef double* nxt
    cdef const double* e
    cdef const double* fin = trans + (K + 1) * K  # the end scores
    cdef double cand, best = 0.0
    if t == 0:
        for j in range(K):
            rows_[j] = trans2[(K * K1 + K) * K1 + j] + (trans[K * K + j] + E[j])
            if _bad(rows_[j], masked):
                return -1
        t = 1
    if t == 1 and T > 1:
        nxt = rows_ + KK
        for i in range(K):
            for j in range(K):
                nxt[i * K + j] = (rows_[i] + trans2[(K * K1 + i) * K1 + j]) + \
                    (trans[i * K + j] + E[K + j])
                if _bad(nxt[i * K + j], masked):
                    return -1
        t = 2
        budget[0] -= KK
    while t < T:
        cur, nxt, e = rows_ + (t - 1) * KK, rows_ + t * KK, E + t * K
        for i in range(K):
            for h in range(K):
                col[h] = cur[h * K + i]  # delta_{t-1}[h, i]
            pc_viterbi_step(col, trans2 + i * K1, K1 * K1, NULL, nxt + i * K, K, K, _vit_path)
            for j in range(K):  # the best, then c_t[i, j]
                nxt[i * K + j] = nxt[i * K + j] + (trans[i * K + j] + e[j])
        for a in range(KK):
            if _bad(nxt[a], masked):
                return -1
        t += 1
        budget[0] -= KK * K
        if budget[0] <= 0 and t < T:
            rows[0] = t
            return 0
    rows[0] = 0
    if T == 1:  # one tag: after the start, before the end
        for j in range(K):
            cand = (rows_[j] + trans2[(K * K1 + j) * K1 + K]) + fin[j]
            if _bad(cand, masked):
                return -1
            if j == 0 or cand > best:
                best_a, best = j, cand
        if best == -INFINITY:
            return -1
        path[0] = best_a
        return 1
    cur = rows_ + (T - 1) * KK
    for a in range(KK):  # the pairs (i, j), i outside
        cand = (cur[a] + trans2[a // K * K1 * K1 + a % K * K1 + K]) + fin[a % K]
        if _bad(cand, masked):
            return -1
        if a == 0 or cand > best:
            best_a, best = a, cand
    if best == -INFINITY:  # (masked only) no allowed sequence
        return -1
    path[T - 1], path[T - 2] = best_a % K, best_a // K
    for t in range(T - 1, 1, -1):
        i, cur = path[t - 1], rows_ + (t - 1) * KK
        for h in range(K):
            col[h] = cur[h * K + i]
        path[t - 2] = pc_viterbi_arg(col, trans2 + i * K1, K1 * K1, NULL, K, path[t])
    return 1


cdef int best_path(const double* E, const double* trans, Py_ssize_t T, Py_ssize_t K,
                   double* delta, double* back, int64_t* path) noexcept nogil:
    # _sequence_py._best_path, in one go (back holds the rows of scores; delta is not used)
    cdef Py_ssize_t rows = 0, budget = PY_SSIZE_T_MAX
    return 0 if viterbi_rows(E, trans, T, K, back, path, &rows, &budget, False) > 0 else -1
