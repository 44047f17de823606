# Included by _sequence_c.pyx (its _bad, _vit_path and the Viterbi step of _lanes.h): Viterbi
# of one sentence, first order (viterbi_rows, best_path) and second order (viterbi2_rows, over
# tag pairs), each resumable row by row on a budget of multiply-adds (_sequence_py's contract).

cdef inline int viterbi_rows(const double* E, const double* trans, Py_ssize_t T,
                             Py_ssize_t K, double* delta, double* back, int64_t* path,
                             Py_ssize_t* rows, Py_ssize_t* budget, bint masked) noexcept nogil:
    # _sequence_py._best_path from row rows[0] of delta on: the best path into path (1; rows[0]
    # back to 0), or 0 when the budget of multiply-adds ran out first (rows[0]: the rows done,
    # where to go on), or -1 when a score is not finite. delta_t lives at delta + (t & 1) K.
    # The loop over i is outside the one over j (contiguous rows of trans), which compares each
    # j's candidates in the same order, i = 0, 1, ...; strict >: ties go to the lowest tag.
    cdef double* cur
    cdef double* nxt
    cdef double* bk
    cdef const double* e
    cdef Py_ssize_t t = rows[0], i, j, last = 0
    cdef double cand, best
    if t == 0:
        for j in range(K):
            delta[j] = trans[K * K + j] + E[j]
            if _bad(delta[j], masked):
                return -1
        t = 1
    while t < T:
        cur, nxt = delta + ((t - 1) & 1) * K, delta + (t & 1) * K
        e, bk = E + t * K, back + t * K
        for j in range(K):
            nxt[j] = (cur[0] + trans[j]) + e[j]
            bk[j] = 0
        for i in range(1, K):
            pc_viterbi_step(cur[i], trans + i * K, e, nxt, bk, <double>i, K, _vit_path)
        for j in range(K):
            if _bad(nxt[j], masked):
                return -1
        t += 1
        budget[0] -= K * K
        if budget[0] <= 0 and t < T:
            rows[0] = t
            return 0
    rows[0] = 0
    cur, e = delta + ((T - 1) & 1) * K, trans + (K + 1) * K  # the end scores
    best = cur[0] + e[0]
    for j in range(K):
        cand = cur[j] + e[j]
        if _bad(cand, masked):
            return -1
        if cand > best:
            last = j
            best = cand
    if best == -INFINITY:  # (masked only) no allowed sequence
        return -1
    path[T - 1] = last
    for t in range(T - 1, 0, -1):
        path[t - 1] = <int64_t>back[t * K + path[t]]
    return 1


cdef inline int viterbi2_rows(const double* E, const double* trans, const double* trans2,
                              Py_ssize_t T, Py_ssize_t K, double* delta, double* back,
                              int64_t* path, double* c, Py_ssize_t* rows, Py_ssize_t* budget,
                              bint masked) noexcept nogil:
    # _sequence_py._best_path2, resumable as viterbi_rows: delta_t (t >= 1) is K x K (row i:
    # the pairs (i, j)) at delta + (t & 1) K^2, delta_0 at delta; back + t K^2 holds row t's
    # backpointers; c: scratch of K doubles (c_t[i, :] of the contract). The loop over h is
    # outside the one over j (contiguous rows of trans2), the candidates of each (i, j)
    # compared in the order h = 0, 1, ... (ties to the lowest) by the Viterbi step.
    cdef Py_ssize_t t = rows[0], h, i, j, a, K1 = K + 1, KK = K * K, best_a = 0
    cdef double* cur
    cdef double* nxt
    cdef const double* e
    cdef const double* t2
    cdef const double* fin = trans + (K + 1) * K  # the end scores
    cdef double cand, best = 0.0
    if t == 0:
        for j in range(K):
            delta[j] = trans2[(K * K1 + K) * K1 + j] + (trans[K * K + j] + E[j])
            if _bad(delta[j], masked):
                return -1
        t = 1
    if t == 1 and T > 1:
        nxt = delta + KK
        for i in range(K):
            t2 = trans2 + (K * K1 + i) * K1
            for j in range(K):
                nxt[i * K + j] = (delta[i] + t2[j]) + (trans[i * K + j] + E[K + j])
                if _bad(nxt[i * K + j], masked):
                    return -1
        t = 2
        budget[0] -= KK
    while t < T:
        cur, nxt, e = delta + ((t - 1) & 1) * KK, delta + (t & 1) * KK, E + t * K
        for i in range(K):
            for j in range(K):
                c[j] = trans[i * K + j] + e[j]
            t2 = trans2 + i * K1  # h = 0
            for j in range(K):
                nxt[i * K + j] = (cur[i] + t2[j]) + c[j]
                back[t * KK + i * K + j] = 0
            for h in range(1, K):
                pc_viterbi_step(cur[h * K + i], trans2 + (h * K1 + i) * K1, c, nxt + i * K,
                                back + t * KK + i * K, <double>h, K, _vit_path)
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
            cand = (delta[j] + trans2[(K * K1 + j) * K1 + K]) + fin[j]
            if _bad(cand, masked):
                return -1
            if j == 0 or cand > best:
                best_a, best = j, cand
        if best == -INFINITY:
            return -1
        path[0] = best_a
        return 1
    cur = delta + ((T - 1) & 1) * KK
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
        path[t - 2] = <int64_t>back[t * KK + path[t - 1] * K + path[t]]
    return 1


cdef int best_path(const double* E, const double* trans, Py_ssize_t T, Py_ssize_t K,
                   double* delta, double* back, int64_t* path) noexcept nogil:
    # _sequence_py._best_path, in one go
    cdef Py_ssize_t rows = 0, budget = PY_SSIZE_T_MAX
    return 0 if viterbi_rows(E, trans, T, K, delta, back, path, &rows, &budget, False) > 0 \
        else -1
