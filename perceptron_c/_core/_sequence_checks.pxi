# Included by _sequence_c.pyx (its SeqModel, _epoch and imports): the def layer's checks, the
# Python twin's in its order and words, and the allowed transitions of its contract. trans as
# Viterbi reads it has -inf at the forbidden transitions (SeqModel.masked tells viterbi_rows
# that -inf is an impossible path, not an error); an epoch runs on that copy, whose allowed
# entries go back into trans.

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


cdef int _check_trans2(double[:, :, ::1] trans2, Py_ssize_t K) except -1:
    """_sequence_py._check_trans2 (None: first order)."""
    cdef Py_ssize_t a, n = K + 1, bad = -1
    if trans2 is None:
        return 0
    need(trans2.shape[0] == n and trans2.shape[1] == n and trans2.shape[2] == n,
         "trans2 must have shape (n_tags + 1, n_tags + 1, n_tags + 1)")
    with nogil:
        for a in range(n * n * n):
            if not isfinite(trans2[a // (n * n), a // n % n, a % n]):
                bad = a
                break
    if bad >= 0:
        raise FloatingPointError(f"trans2[{bad // (n * n)}, {bad // n % n}, {bad % n}] is not "
                                 "finite")
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


cdef Py_ssize_t _check_epoch(Py_ssize_t n_tokens, Py_ssize_t d, const int64_t[::1] y,
                             const int64_t[::1] offsets, const int64_t[::1] order,
                             const double[:, ::1] W, const double[::1] b,
                             const double[:, ::1] trans, object U, object beta, object U_trans,
                             object count, const int64_t[::1] mistakes,
                             double[:, :, ::1] trans2, object U_trans2) except -1:
    """_sequence_py._check_epoch; returns the longest sentence."""
    cdef Py_ssize_t K = W.shape[1], longest
    need(W.shape[0] == d, "W must have one row per feature")
    need(b.shape[0] == K, "b must have one entry per column of W")
    _check_trans(trans, K)
    _check_trans2(trans2, K)
    longest = _check_offsets(offsets, n_tokens)
    need(y.shape[0] == n_tokens, "y must have one tag per token")
    need(all_in_range(y, K), f"y must hold tag indices in [0, {K})")
    n_sent = offsets.shape[0] - 1
    need(all_in_range(order, n_sent), f"order must hold sentence indices in [0, {n_sent})")
    need(mistakes.shape[0] == 2, "mistakes must have shape (2,)")
    need(U_trans2 is None if U is None or trans2 is None else
         tuple(U_trans2.shape[:3]) == (K + 1, K + 1, K + 1),
         "U_trans2 goes with U and trans2, in trans2's shape")
    need((U is None) == (beta is None) == (U_trans is None) == (count is None),
         "U, beta, U_trans and count go together")
    if U is None:
        return longest
    need(U.shape[0] == d and U.shape[1] == K, "U must have the shape of W")
    need(beta.shape[0] == K, "beta must have the shape of b")
    need(U_trans.shape[0] == K + 2 and U_trans.shape[1] == K,
         "U_trans must have the shape of trans")
    need(count.shape[0] == 1 and count[0] >= 1, "count must have shape (1,) and be >= 1")
    return longest


cdef object _check_allowed(object allowed, Py_ssize_t K):
    """_sequence_py._check_allowed: allowed as a C-contiguous uint8 array, or None."""
    if allowed is None:
        return None
    need(getattr(allowed, "shape", None) == (K + 2, K) and
         getattr(allowed, "dtype", None) in (np.uint8, np.bool_),
         "allowed must be a uint8 or bool array of trans's shape (n_tags + 2, n_tags)")
    return np.ascontiguousarray(allowed, dtype=np.uint8)


cdef object _masked(object trans, object ok):
    """_sequence_py._masked: trans with -inf at the forbidden transitions (a copy)."""
    return np.where(ok.astype(bool), trans, -np.inf)


cdef int _check_gold(const int64_t[::1] y, const int64_t[::1] offsets,
                     const uint8_t[:, ::1] ok) except -1:
    """_sequence_py._check_gold: every gold sequence allowed, or the first that is not."""
    cdef Py_ssize_t s, t, a, z, K = ok.shape[1], bad = -1, bi = 0, bj = 0
    cdef int64_t i, j
    with nogil:
        for s in range(offsets.shape[0] - 1):
            a, z = offsets[s], offsets[s + 1]
            for t in range(a, z + 1 if z > a else a):
                i = K if t == a else (K + 1 if t == z else y[t - 1])
                j = y[z - 1] if t == z else y[t]
                if not ok[i, j]:
                    bad, bi, bj = s, i, j
                    break
            if bad >= 0:
                break
    if bad >= 0:
        raise ValueError(f"y: sentence {bad} has the transition {_transition(bi, bj, K)}, "
                         "which allowed forbids")
    return 0


cdef str _transition(Py_ssize_t i, Py_ssize_t j, Py_ssize_t K):
    # _sequence_py._transition
    if i == K:
        return f"start -> tag {j}"
    return f"tag {j} -> end" if i == K + 1 else f"tag {i} -> tag {j}"


cdef Py_ssize_t _masked_epoch(const floating* data, const int32_t* idx, const int64_t* indptr,
                              const int64_t[::1] y, const int64_t[::1] offsets,
                              const int64_t[::1] order, SeqModel* m, Py_ssize_t longest,
                              int64_t[::1] mistakes, double[:, ::1] trans,
                              object allowed) except -1:
    """`_epoch` through the allowed transitions: on a copy of trans with -inf at the forbidden
    ones (the gold sequences checked first), whose allowed entries go back into trans
    whatever happens (the forbidden ones are never updated)."""
    ok = _check_allowed(allowed, m.K)
    if ok is None:
        return _epoch(data, idx, indptr, y, offsets, order, m, longest, mistakes)
    _check_gold(y, offsets, ok)
    tc = _masked(trans, ok)
    cdef double[:, ::1] t = tc
    m.trans, m.masked = &t[0, 0], True
    try:
        return _epoch(data, idx, indptr, y, offsets, order, m, longest, mistakes)
    finally:
        np.copyto(np.asarray(trans), tc, where=ok.astype(bool))
