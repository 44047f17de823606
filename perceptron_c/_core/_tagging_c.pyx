# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_tagging_py``: same functions, same signatures, same arithmetic.

The Python twin is the specification; read its module docstring for the arithmetic contract
(scores summed per class over the token's rows in template order from 0.0, ties to the last
class, the update counter first, `average` rounded as Python's ``round``: CPython's own
correctly rounded conversions, ``PyOS_double_to_string`` then ``PyOS_string_to_double``).
Epochs run without the GIL in chunks of sentences of a few milliseconds, looking for Ctrl-C
between them (tagging Python tokens with a trained model: `_tokens_c`).
"""
from cpython.mem cimport PyMem_Free
from libc.math cimport isfinite
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

from perceptron_c._core._checks cimport all_in_range, between_chunks, need, rows_per_chunk
from perceptron_c._core._tokens_c cimport (P_TAG1, P_TAG2, P_TAGS, P_TAG_WORD, Block, _Tables,
                                           check_features, check_names, check_sentences,
                                           check_tagdict, check_tokens, rows10)

from perceptron_c._core._tagging_py import __all__  # no-cython-lint: listed once (test_twins)

import numpy as np

cdef extern from "Python.h":
    char* PyOS_double_to_string(double val, char format_code, int precision, int flags,
                                int* ptype) except NULL
    double PyOS_string_to_double(const char* s, char** endptr,
                                 object overflow_exception) except? -1.0

cdef uint64_t EMPTY = 0xFFFFFFFFFFFFFFFF
# template slot of each static feature and of each dynamic one (_tagging_py.STATIC_SLOTS)
cdef int STATIC_SLOTS[10]
STATIC_SLOTS[:] = [0, 1, 2, 6, 8, 9, 10, 11, 12, 13]
cdef int DYNAMIC_SLOTS[4]
DYNAMIC_SLOTS[:] = [3, 4, 5, 7]


cdef uint64_t dyn_key(int template, int64_t prev, int64_t prev2,
                      int64_t word) noexcept nogil:
    # _tagging_py.dynamic_key
    if template == 3:
        return (<uint64_t>1 << 60) | <uint64_t>prev
    if template == 4:
        return (<uint64_t>2 << 60) | <uint64_t>prev2
    if template == 5:
        return (<uint64_t>3 << 60) | (<uint64_t>prev << 30) | <uint64_t>prev2
    return (<uint64_t>4 << 60) | (<uint64_t>prev << 36) | <uint64_t>word


def dynamic_key(template, prev, prev2, word):
    return dyn_key(template, prev, prev2, word)


cdef inline uint64_t slot0(uint64_t z, uint64_t mask) noexcept nogil:
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return (z ^ (z >> 31)) & mask


cdef int64_t hash_find(const uint64_t* keys, const int64_t* vals, uint64_t mask,
                       uint64_t key) noexcept nogil:
    cdef uint64_t j = slot0(key, mask)
    while True:
        if keys[j] == key:
            return vals[j]
        if keys[j] == EMPTY:
            return -1
        j = (j + 1) & mask


cdef void hash_put(uint64_t* keys, int64_t* vals, uint64_t mask, uint64_t key,
                   int64_t val) noexcept nogil:
    cdef uint64_t j = slot0(key, mask)
    while keys[j] != EMPTY:
        j = (j + 1) & mask
    keys[j] = key
    vals[j] = val


cdef Py_ssize_t predict_rows(const double* W, Py_ssize_t K, const int64_t* rows,
                             double* scores) noexcept nogil:
    # per class, the rows in template order from 0.0 (j outside c: the same sums, in order)
    cdef Py_ssize_t j, c, best = 0
    cdef const double* w
    for c in range(K):
        scores[c] = 0.0
    for j in range(N_TEMPLATES):
        if rows[j] >= 0:
            w = W + rows[j] * K
            for c in range(K):
                scores[c] += w[c]
    for c in range(1, K):
        if scores[c] >= scores[best]:
            best = c
    return best


cdef inline void update_one(double* W, double* totals, int64_t* stamps, char* live,
                            Py_ssize_t K, const int64_t* rows, Py_ssize_t n, int64_t truth,
                            int64_t guess, int64_t now) noexcept nogil:
    # _tagging_py.update_rows: each pair's total brought up to now, then +1 / -1
    cdef Py_ssize_t j, p, side
    cdef int64_t col
    cdef double step
    for side in range(2):
        col = truth if side == 0 else guess
        step = 1.0 if side == 0 else -1.0
        for j in range(n):
            p = rows[j] * K + col
            totals[p] += <double>(now - stamps[p]) * W[p]
            stamps[p] = now
            W[p] = W[p] + step
            live[p] = 1


def score_rows(const double[:, ::1] weights, const int64_t[::1] rows):
    cdef Py_ssize_t K = weights.shape[1], j, c
    need(all_in_range(rows, weights.shape[0]), f"rows must lie in [0, {weights.shape[0]})")
    out = np.zeros(K)
    cdef double[::1] s = out
    for j in range(rows.shape[0]):
        for c in range(K):
            s[c] += weights[rows[j], c]
    return out


def best_class(const double[::1] scores):
    cdef Py_ssize_t c, best = 0
    need(scores.shape[0] >= 1, "scores must not be empty")
    for c in range(1, scores.shape[0]):
        if scores[c] >= scores[best]:
            best = c
    return best


def update_rows(double[:, ::1] weights, double[:, ::1] totals, int64_t[:, ::1] stamps,
                live, const int64_t[::1] rows, Py_ssize_t truth, Py_ssize_t guess,
                int64_t now):
    cdef Py_ssize_t K = weights.shape[1]
    cdef char[:, ::1] lv = live.view(np.int8)
    _check_state(weights, totals, stamps, lv)
    need(all_in_range(rows, weights.shape[0]), f"rows must lie in [0, {weights.shape[0]})")
    need(0 <= truth < K and 0 <= guess < K and truth != guess,
         f"truth and guess must be distinct classes in [0, {K})")
    if rows.shape[0]:
        update_one(&weights[0, 0], &totals[0, 0], &stamps[0, 0], &lv[0, 0], K, &rows[0],
                   rows.shape[0], truth, guess, now)


cdef double round3(double v) except? -1.0:
    """Python's ``round(v, 3)``: CPython's correctly rounded decimal string of v to 3
    places, read back correctly rounded (what float.__round__ computes)."""
    if not isfinite(v):
        return v
    cdef char* text = PyOS_double_to_string(v, b'f', 3, 0, NULL)
    try:
        return PyOS_string_to_double(text, NULL, None)
    finally:
        PyMem_Free(text)


def average(double[:, ::1] weights, const double[:, ::1] totals, const int64_t[:, ::1] stamps,
            live, int64_t now):
    cdef char[:, ::1] lv = live.view(np.int8)
    cdef Py_ssize_t p, n = weights.shape[0] * weights.shape[1]
    cdef double v
    _check_state(weights, totals, stamps, lv)
    if now == 0 or n == 0:
        return
    cdef double* W = &weights[0, 0]
    cdef const double* tot = &totals[0, 0]
    cdef const int64_t* st = &stamps[0, 0]
    cdef char* lp = &lv[0, 0]
    for p in range(n):
        if lp[p]:
            v = round3((tot[p] + <double>(now - st[p]) * W[p]) / <double>now)
            lp[p] = v != 0.0  # a rounded -0.0 is dropped too (falsy in NLTK)
            W[p] = v if lp[p] else 0.0
        else:
            W[p] = 0.0


cdef object _check_state(const double[:, ::1] weights, const double[:, ::1] totals,
                         const int64_t[:, ::1] stamps, const char[:, ::1] live):
    cdef Py_ssize_t n = weights.shape[0], K = weights.shape[1]
    need(totals.shape[0] == n and stamps.shape[0] == n and live.shape[0] == n
         and totals.shape[1] == K and stamps.shape[1] == K and live.shape[1] == K,
         "weights, totals, stamps and live must have the same shape")


cdef uint64_t _check_table(const uint64_t[::1] keys, const int64_t[::1] vals,
                           Py_ssize_t extra) except? 0:
    """_tagging_py._check_table; returns the mask."""
    cdef Py_ssize_t cap = keys.shape[0], used = 0, j
    need(cap >= 2 and (cap & (cap - 1)) == 0 and vals.shape[0] == cap,
         "keys and vals must have the same power-of-two length")
    with nogil:
        for j in range(cap):
            used += keys[j] != EMPTY
    need(2 * (used + extra) <= cap, "keys would be more than half full")
    return cap - 1


def hash_insert(uint64_t[::1] keys, int64_t[::1] vals, const uint64_t[::1] new_keys,
                const int64_t[::1] new_vals):
    cdef uint64_t mask = _check_table(keys, vals, new_keys.shape[0])
    cdef Py_ssize_t i
    need(new_vals.shape[0] == new_keys.shape[0], "new_vals must have one entry per new key")
    with nogil:
        for i in range(new_keys.shape[0]):
            hash_put(&keys[0], &vals[0], mask, new_keys[i], new_vals[i])


cdef struct Tagger:
    # the state of tagger_epoch, as pointers (see _tagging_py for the arrays)
    double* W
    double* totals
    int64_t* stamps
    char* live
    Py_ssize_t K
    Py_ssize_t cap_rows
    int64_t* row_key
    uint64_t* keys
    int64_t* vals
    uint64_t mask
    Py_ssize_t cap_keys
    int64_t steps
    int64_t n_rows
    int64_t n_keys
    double* scores


cdef Py_ssize_t epoch_pass(Tagger* m, const int64_t* static, int64_t* row_of,
                           const int64_t* gold, const int64_t* dict_guess,
                           const int64_t* offsets, const int64_t* order, Py_ssize_t n_order,
                           int64_t* guesses) noexcept nogil:
    """_tagging_py.tagger_epoch over order[:n_order]; returns the sentences done."""
    cdef Py_ssize_t done, t, j, n, slot
    cdef int64_t prev, prev2, guess, truth, s
    cdef int64_t rows[N_TEMPLATES]
    cdef uint64_t fkeys[N_TEMPLATES]
    cdef const int64_t* ids
    for done in range(n_order):
        s = order[done]
        n = offsets[s + 1] - offsets[s]
        if m.n_rows + 14 * n > m.cap_rows or 2 * (m.n_keys + 4 * n) > m.cap_keys:
            return done
        prev = m.K
        prev2 = m.K + 1
        for t in range(offsets[s], offsets[s + 1]):
            guess = dict_guess[t]
            if guess < 0:
                ids = static + 10 * t
                for j in range(10):
                    fkeys[STATIC_SLOTS[j]] = <uint64_t>ids[j]
                    rows[STATIC_SLOTS[j]] = row_of[ids[j]]
                for j in range(4):
                    slot = DYNAMIC_SLOTS[j]
                    fkeys[slot] = dyn_key(slot, prev, prev2, ids[3])
                    rows[slot] = hash_find(m.keys, m.vals, m.mask, fkeys[slot])
                guess = predict_rows(m.W, m.K, rows, m.scores)
                m.steps += 1
                truth = gold[t]
                if guess != truth:
                    for slot in range(N_TEMPLATES):  # NLTK's weights.setdefault, in order
                        if rows[slot] < 0:
                            rows[slot] = m.n_rows
                            m.row_key[m.n_rows] = <int64_t>fkeys[slot]
                            if slot == 3 or slot == 4 or slot == 5 or slot == 7:
                                hash_put(m.keys, m.vals, m.mask, fkeys[slot], m.n_rows)
                                m.n_keys += 1
                            else:
                                row_of[fkeys[slot]] = m.n_rows
                            m.n_rows += 1
                    update_one(m.W, m.totals, m.stamps, m.live, m.K, rows, N_TEMPLATES, truth,
                               guess, m.steps)
            guesses[t] = guess
            prev2 = prev
            prev = guess
    return n_order


cdef bint within(const int64_t* a, Py_ssize_t n, int64_t lo, int64_t hi) noexcept nogil:
    """lo <= a[i] < hi for every i < n (the checks scan without a Python call per entry)."""
    cdef Py_ssize_t i
    for i in range(n):
        if a[i] < lo or a[i] >= hi:
            return False
    return True


cdef bint within2(const int64_t[:, ::1] a, int64_t lo, int64_t hi) noexcept:
    if a.shape[0] == 0 or a.shape[1] == 0:
        return True
    with nogil:
        return within(&a[0, 0], a.shape[0] * a.shape[1], lo, hi)


cdef bint within1(const int64_t[::1] a, int64_t lo, int64_t hi) noexcept:
    if a.shape[0] == 0:
        return True
    with nogil:
        return within(&a[0], a.shape[0], lo, hi)


cdef object _check_tokens(Py_ssize_t n_tokens, const int64_t[::1] offsets,
                          const int64_t[::1] dict_guess, const int64_t[::1] guesses,
                          Py_ssize_t n_codes):
    cdef Py_ssize_t s
    cdef bint ok = True
    need(offsets.shape[0] >= 1 and offsets[0] == 0 and
         offsets[offsets.shape[0] - 1] == n_tokens, "offsets must run from 0 to the tokens")
    with nogil:
        for s in range(offsets.shape[0] - 1):
            if offsets[s] > offsets[s + 1]:
                ok = False
    need(ok, "offsets must be monotone")
    need(dict_guess.shape[0] == n_tokens and guesses.shape[0] == n_tokens,
         "dict_guess and guesses must have one entry per token")
    need(within1(dict_guess, -1, n_codes), f"dict_guess must lie in [-1, {n_codes})")


cdef object _check_epoch(const int64_t[:, ::1] static, const int64_t[::1] row_of,
                         const int64_t[::1] gold, const int64_t[::1] order,
                         const int64_t[::1] counts, Py_ssize_t n_sent, Py_ssize_t K,
                         Py_ssize_t cap_rows, Py_ssize_t n_row_key):
    cdef Py_ssize_t n_ids = row_of.shape[0]
    need(static.shape[1] == 10, "static must have 10 columns")
    need(gold.shape[0] == static.shape[0], "gold must have one class per token")
    need(all_in_range(gold, K), f"gold must hold classes in [0, {K})")
    need(all_in_range(order, n_sent), f"order must hold sentence indices in [0, {n_sent})")
    need(counts.shape[0] >= 3 and counts[0] >= 0 and 0 <= counts[1] <= cap_rows
         and counts[2] >= 0, "counts must be [steps, rows used, keys used]")
    need(n_row_key == cap_rows, "row_key must have one entry per row of weights")
    need(n_ids < (<Py_ssize_t>1 << 36) and K + 2 < (1 << 20),
         "too many feature ids or tags for the hash keys")
    need(within2(static, 0, n_ids), f"static must hold ids in [0, {n_ids})")
    need(within1(row_of, -1, counts[1]), "row_of must hold rows in use, or -1")


def tagger_epoch(const int64_t[:, ::1] static, int64_t[::1] row_of, const int64_t[::1] gold,
                 const int64_t[::1] dict_guess, const int64_t[::1] offsets,
                 const int64_t[::1] order, double[:, ::1] weights, double[:, ::1] totals,
                 int64_t[:, ::1] stamps, live, int64_t[::1] row_key, uint64_t[::1] keys,
                 int64_t[::1] vals, int64_t[::1] counts, int64_t[::1] guesses):
    cdef char[:, ::1] lv = live.view(np.int8)
    cdef Tagger m
    cdef Py_ssize_t K = weights.shape[1], start = 0, n = order.shape[0], stop, r, want
    cdef Py_ssize_t chunk = max(1, rows_per_chunk(14 * max(K, 1) * 24))
    _check_state(weights, totals, stamps, lv)
    _check_tokens(static.shape[0], offsets, dict_guess, guesses, 1 << 20)
    _check_epoch(static, row_of, gold, order, counts, offsets.shape[0] - 1, K,
                 weights.shape[0], row_key.shape[0])
    m.mask = _check_table(keys, vals, 0)
    _check_vals(keys, vals, counts[1])
    need(K >= 1, "weights must have a column per class")
    if static.shape[0] == 0 or weights.shape[0] == 0:  # no tokens, or no room for any
        return n if static.shape[0] == 0 else _empty_prefix(offsets, order)
    m.W, m.totals, m.stamps, m.live = &weights[0, 0], &totals[0, 0], &stamps[0, 0], &lv[0, 0]
    m.K, m.cap_rows, m.row_key = K, weights.shape[0], &row_key[0]
    m.keys, m.vals, m.cap_keys = &keys[0], &vals[0], keys.shape[0]
    m.steps, m.n_rows, m.n_keys = counts[0], counts[1], counts[2]
    m.scores = <double*>malloc(K * sizeof(double))
    if m.scores == NULL:
        raise MemoryError()
    try:
        while start < n:
            stop = min(n, start + chunk)
            want = stop - start
            with nogil:
                r = epoch_pass(&m, &static[0, 0], &row_of[0], &gold[0], &dict_guess[0],
                               &offsets[0], &order[start], want, &guesses[0])
            counts[0], counts[1], counts[2] = m.steps, m.n_rows, m.n_keys
            start += r
            if r < want:  # out of room: the caller grows the arrays and calls again
                break
            between_chunks()
    finally:
        free(m.scores)
    return start


cdef Py_ssize_t _empty_prefix(const int64_t[::1] offsets, const int64_t[::1] order):
    """How many sentences lead ``order`` that need no room (the empty ones)."""
    cdef Py_ssize_t i = 0
    while i < order.shape[0] and offsets[order[i] + 1] == offsets[order[i]]:
        i += 1
    return i


cdef object _check_vals(const uint64_t[::1] keys, const int64_t[::1] vals, Py_ssize_t n_rows):
    cdef Py_ssize_t j
    cdef bint ok = True
    with nogil:
        for j in range(keys.shape[0]):
            if keys[j] != EMPTY and (vals[j] < 0 or vals[j] >= n_rows):
                ok = False
    need(ok, "vals must hold rows of weights")


# ---- tagging Python tokens: the greedy tables (_tokens_c reads the tokens)
cdef object check_rows(object indptr, object columns, object values, Py_ssize_t rows,
                       Py_ssize_t n_classes):
    """CSR rows of weights: ``rows`` of them, class columns, float64 values."""
    ok = all(isinstance(a, np.ndarray) and a.ndim == 1 and a.flags.c_contiguous
             for a in (indptr, columns, values))
    need(ok and indptr.dtype == np.int64 and indptr.shape[0] == rows + 1 and indptr[0] == 0
         and bool((indptr[1:] >= indptr[:rows]).all()) and indptr[rows] == columns.shape[0],
         "indptr must be contiguous int64, one more entry than features, from 0 up to the "
         "entries")
    need(columns.dtype == np.int64 and n_classes >= 1 and
         bool(((columns >= 0) & (columns < n_classes)).all()),
         "columns must be int64 classes in [0, n_classes)")
    need(values.dtype == np.float64 and values.shape == columns.shape,
         "values must be float64, one per entry of columns")


cdef class GreedyTables(_Tables):
    """_tagging_py.GreedyTables: the static rows through `_Static`, the dynamic ones through
    a hash table as `tagger_epoch`'s (template 7's word: the normalized word's id), each
    row's entries added to the scores of their classes."""
    cdef object arrays
    cdef const int64_t* indptr
    cdef const int64_t* columns
    cdef const double* values
    cdef const int64_t* dense_at  # a row with entries for half the classes or more: dense
    cdef const double* dense
    cdef bint all_dense
    cdef const uint64_t* keys
    cdef const int64_t* vals
    cdef uint64_t mask
    cdef dict table

    def __init__(self, features, names, Py_ssize_t n_classes, indptr, columns, values):
        check_features(features)
        check_rows(indptr, columns, values, len(features), n_classes)
        check_names(names, n_classes + 2, "the classes, then -START- and -START2-")
        need(names[n_classes:n_classes + 2] == ["-START-", "-START2-"],
             "names must hold the classes, then -START- and -START2-")
        need(not any(" " in t for t in names), "names must not hold a space")
        self.names, self.K = list(names), n_classes
        self.code = {t: k for k, t in enumerate(self.names)}
        cdef const int64_t[::1] ip = indptr
        cdef const int64_t[::1] cols = columns
        cdef const double[::1] vals = values
        self.indptr = &ip[0]
        self.columns = &cols[0] if cols.shape[0] else NULL  # no entry: none is ever read
        self.values = &vals[0] if vals.shape[0] else NULL
        self.table = {}
        self._static(features)
        self._hash((indptr, columns, values) + self._dense_rows(indptr, columns, values))

    cdef int _dynamic(self, int t, str f, const uint32_t* cps, Py_ssize_t row) except -1:
        """The hash key of the dynamic feature f (template t) -> row, unless it names a tag
        not in ``names`` (no token can meet it); a later row of a key replaces an earlier."""
        cdef Py_ssize_t m = self.static.at[t + 1] - self.static.at[t], at
        rest = f[m:]
        if t == P_TAG1 or t == P_TAG2:
            code = self.code.get(rest)
            if code is not None:
                self.table[dyn_key(3 if t == P_TAG1 else 4, code, code, 0)] = row
            return 0
        at = rest.find(" ")  # no name holds a space: the first one ends the first tag
        first = self.code.get(rest[:at]) if at >= 0 else None
        second = self.code.get(rest[at + 1:]) if t == P_TAGS and first is not None else None
        if second is not None:
            self.table[dyn_key(5, first, second, 0)] = row
        elif t == P_TAG_WORD and first is not None:
            self.table[dyn_key(7, first, 0, self.static.word_id(
                cps + m + at + 1, len(f) - m - at - 1))] = row
        return 0

    cdef tuple _dense_rows(self, indptr, columns, values):
        """The rows of half the classes or more, dense (K weights cost no more than their
        K/2 entries), and all of them when the model holds an eighth of its pairs or more
        (memory still in proportion to the entries), so that sums run over contiguous
        weights: the same sums, since an absent pair adds 0.0, which changes no score (none
        is -0.0)."""
        counts = np.diff(indptr)
        self.all_dense = counts.shape[0] * self.K <= 8 * columns.shape[0]
        wide = np.arange(counts.shape[0]) if self.all_dense else \
            np.flatnonzero(2 * counts >= max(self.K, 2))
        at = np.full(counts.shape[0], -1, dtype=np.int64)
        at[wide] = np.arange(wide.shape[0])
        block = np.zeros((max(1, wide.shape[0]), self.K))
        entry_row = np.repeat(np.arange(counts.shape[0]), counts)
        keep = at[entry_row] >= 0
        block[at[entry_row[keep]], columns[keep]] = values[keep]
        cdef const int64_t[::1] a = at
        cdef const double[:, ::1] d = block
        self.dense_at = &a[0] if a.shape[0] else NULL
        self.dense = &d[0, 0]
        return at, block

    cdef int _hash(self, tuple rows) except -1:
        """The table of the dynamic features (`_tagging_c`'s), at most half full."""
        cdef Py_ssize_t cap = 1024
        while cap < 2 * len(self.table):
            cap *= 2
        self.arrays = (rows, np.full(cap, EMPTY, dtype=np.uint64),
                       np.full(cap, -1, dtype=np.int64))
        cdef uint64_t[::1] kv = self.arrays[1]
        cdef int64_t[::1] vv = self.arrays[2]
        self.mask = cap - 1
        for key, row in self.table.items():
            hash_put(&kv[0], &vv[0], self.mask, key, row)
        self.keys, self.vals, self.table = &kv[0], &vv[0], None
        return 0

    def tag_sentence(self, tokens, tagdict):
        check_tokens(tokens, "tokens")
        check_tagdict(tagdict)
        return self._run([tokens], tagdict)[0]

    def tag_sentences(self, sentences, tagdict):
        check_sentences(sentences, tagdict)
        return self._run(sentences, tagdict)

    cdef Py_ssize_t _pass(self, Block* k, Py_ssize_t n_sent, double* scores) noexcept nogil:
        """_tagging_py.GreedyTables._tag on the block, its codes into k.codes."""
        cdef Py_ssize_t s, i, n, j
        cdef int64_t prev, prev2, guess
        cdef const int64_t* ids
        cdef int64_t* codes
        cdef int64_t rows[N_TEMPLATES]
        cdef int64_t r10[10]
        for s in range(n_sent):
            ids, codes = k.ids + 4 * k.offsets[s], k.codes + k.offsets[s]
            n = k.offsets[s + 1] - k.offsets[s]
            prev, prev2 = self.K, self.K + 1
            for i in range(n):
                guess = codes[i]
                if guess < 0:
                    rows10(&self.rows, ids, i, n, r10)
                    for j in range(10):
                        rows[STATIC_SLOTS[j]] = r10[j]
                    for j in range(3):
                        rows[DYNAMIC_SLOTS[j]] = hash_find(
                            self.keys, self.vals, self.mask,
                            dyn_key(DYNAMIC_SLOTS[j], prev, prev2, 0))
                    rows[7] = -1 if ids[4 * i] < 0 else hash_find(
                        self.keys, self.vals, self.mask, dyn_key(7, prev, prev2, ids[4 * i]))
                    guess = self._best(rows, scores)
                    codes[i] = guess
                prev2 = prev
                prev = guess
        return -1

    cdef inline int64_t _best(self, const int64_t* rows, double* scores) noexcept nogil:
        """The entries of the rows, in template order, into the scores from 0.0; the last
        class of the highest (_tagging_py.best_class)."""
        cdef Py_ssize_t j, c, p, best = 0
        cdef const double* w
        for c in range(self.K):
            scores[c] = 0.0
        for j in range(N_TEMPLATES):
            if rows[j] < 0:
                continue
            if self.all_dense or self.dense_at[rows[j]] >= 0:
                w = self.dense + (rows[j] if self.all_dense else self.dense_at[rows[j]]) * self.K
                for c in range(self.K):
                    scores[c] += w[c]
            else:
                for p in range(self.indptr[rows[j]], self.indptr[rows[j] + 1]):
                    scores[self.columns[p]] += self.values[p]
        for c in range(1, self.K):
            if scores[c] >= scores[best]:
                best = c
        return best
