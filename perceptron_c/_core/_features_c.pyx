# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_features_py``: the same keys, built in C from the code points of the str
tokens (PEP 393), interned in an open-addressing hash table over an arena of keys (exact
compare), or hashed with the same FNV-1a. The GIL is held throughout (the loop reads Python
objects); Ctrl-C is looked at between sentences, every few thousand tokens."""
from cpython.list cimport PyList_Check, PyList_GET_ITEM, PyList_GET_SIZE
from cpython.unicode cimport (
    Py_UNICODE_ISALPHA,
    Py_UNICODE_ISDIGIT,
    Py_UNICODE_ISLOWER,
    Py_UNICODE_ISUPPER,
    PyUnicode_4BYTE_KIND,
    PyUnicode_Check,
    PyUnicode_FromKindAndData,
)
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memcpy

import numpy as np

from perceptron_c._core._checks cimport between_chunks
from perceptron_c._core._features_py import __all__  # no-cython-lint: listed once (test_twins)

cdef extern from "_features.h":
    uint32_t pc_read_str(object s, uint32_t* out)
    int pc_str_ready(object s) except -1
    uint64_t pc_slot_mix(uint64_t z) noexcept nogil
    uint64_t cp_hash "pc_cp_hash"(const uint32_t* k, Py_ssize_t n) noexcept nogil
    uint64_t utf8_fnv1a "pc_utf8_fnv1a"(const uint32_t* k, Py_ssize_t n) noexcept nogil
    bint same_key "pc_same_key"(const uint32_t* a, const uint32_t* b,
                                Py_ssize_t n) noexcept nogil

cdef enum:
    TOKENS_PER_CHECK = 4096

_str_lower = str.lower
# _features_py's spec fields, and its template prefixes and markers (prefix_table)
_SPEC_FIELDS = ("nltk", "bias", "word", "lower", "prefix", "suffix", "shape", "flags", "window")
_NLTK_TABLE = ["bias", "i suffix ", "i pref1 ", "i word ", "i-1 word ", "i-1 suffix ",
               "i-2 word ", "i+1 word ", "i+1 suffix ", "i+2 word ", "-START-", "-START2-",
               "-END-", "-END2-", "!HYPHEN", "!YEAR", "!DIGITS"]


cdef object check_spec(object spec):
    """_features_py.check_spec."""
    if not (isinstance(spec, tuple) and len(spec) == 9 and
            all(type(v) is int and v >= 0 for v in spec)):
        raise ValueError(f"spec must be a tuple of 9 ints >= 0 {_SPEC_FIELDS}, got {spec!r:.80}")


cdef list prefix_table(tuple spec):
    """_features_py.prefix_table."""
    if spec[0]:
        return list(_NLTK_TABLE)
    offsets = [*range(-spec[8], 0), *range(1, spec[8] + 1)]
    return ["bias", "w=", "lw=", *[f"p{k}=" for k in range(1, spec[4] + 1)],
            *[f"s{k}=" for k in range(1, spec[5] + 1)], "shape=", "is_digit", "has_hyphen",
            "is_cap", *[f"{t}[{o:+d}]=" for o in offsets for t in ("w", "lw")], "<s>", "</s>"]


# ---- growable buffers (MemoryError, never a crash)
cdef int reserve(void** p, Py_ssize_t* cap, Py_ssize_t need, size_t item) except -1:
    """Room for ``need`` items of ``item`` bytes at *p, doubling."""
    if need <= cap[0]:
        return 0
    cdef Py_ssize_t new = cap[0] * 2 if cap[0] else 64
    while new < need:
        new *= 2
    cdef void* q = realloc(p[0], <size_t>new * item)
    if q == NULL:
        raise MemoryError()
    p[0] = q
    cap[0] = new
    return 0


cdef Py_ssize_t append_str(U32* b, object s) except -1:
    """Appends the code points of s to b; returns the largest (or -1 on error)."""
    pc_str_ready(s)
    need_u32(b, len(s))
    cdef uint32_t top = pc_read_str(s, b.p + b.n)
    b.n += len(s)
    return top


# ---- the vocabulary: keys end to end in an arena, ids in an open-addressing table
cdef class Vocabulary:
    """Feature keys interned to ids 0, 1, ... in the order they were first added, with the
    number of tokens each key was counted on while growing. Pickles as its list of keys."""

    def __cinit__(self):
        self.n = self.cap_ids = self.n_slots = 0
        self.starts = NULL
        self.hashes = NULL
        self.counts_ = NULL
        self.slots = NULL
        self.arena.p = NULL
        self.arena.n = self.arena.cap = 0
        self._rehash(64)
        self._room(1)
        self.starts[0] = 0

    def __dealloc__(self):
        free(self.starts)
        free(self.hashes)
        free(self.counts_)
        free(self.slots)
        free(self.arena.p)

    def __init__(self, keys=()):
        cdef U32 buf
        cdef Py_ssize_t slot
        buf.p = NULL
        buf.n = buf.cap = 0
        try:
            for i, key in enumerate(keys):
                if not isinstance(key, str):
                    raise TypeError(f"keys[{i}] must be a str, got {type(key).__name__}")
                buf.n = 0
                append_str(&buf, key)
                h = cp_hash(buf.p, buf.n)
                if self.find(buf.p, buf.n, h, &slot) >= 0:
                    raise ValueError(f"keys[{i}] repeats the key {key!r:.60}")
                self.add(buf.p, buf.n, h, slot)
        finally:
            free(buf.p)

    cdef int _room(self, Py_ssize_t ids) except -1:
        if ids + 1 <= self.cap_ids:
            return 0
        cdef Py_ssize_t cap = self.cap_ids
        reserve(<void**>&self.starts, &cap, ids + 1, sizeof(int64_t))
        cap = self.cap_ids
        reserve(<void**>&self.hashes, &cap, ids + 1, sizeof(uint64_t))
        cap = self.cap_ids
        reserve(<void**>&self.counts_, &cap, ids + 1, sizeof(int64_t))
        self.cap_ids = cap
        return 0

    cdef int _rehash(self, Py_ssize_t n_slots) except -1:
        """A table of n_slots (a power of 2) slots holding every id."""
        cdef Slot* slots = <Slot*>realloc(NULL, <size_t>n_slots * sizeof(Slot))
        cdef Py_ssize_t i, j, mask = n_slots - 1
        if slots == NULL:
            raise MemoryError()
        for i in range(n_slots):
            slots[i].id = -1
        for i in range(self.n):
            j = <Py_ssize_t>(pc_slot_mix(self.hashes[i]) & <uint64_t>mask)
            while slots[j].id >= 0:
                j = (j + 1) & mask
            slots[j].hash, slots[j].id = self.hashes[i], i
        free(self.slots)
        self.slots = slots
        self.n_slots = n_slots
        return 0

    cdef int64_t find(self, const uint32_t* k, Py_ssize_t n, uint64_t h,
                      Py_ssize_t* slot) noexcept:
        """The id of key k[:n] (hash h), or -1 and its free slot in *slot."""
        cdef Py_ssize_t mask = self.n_slots - 1
        cdef Py_ssize_t j = <Py_ssize_t>(pc_slot_mix(h) & <uint64_t>mask)
        cdef int64_t vid
        while True:
            vid = self.slots[j].id
            if vid < 0:
                slot[0] = j
                return -1
            if (self.slots[j].hash == h and self.starts[vid + 1] - self.starts[vid] == n and
                    same_key(self.arena.p + self.starts[vid], k, n)):
                return vid
            j = (j + 1) & mask

    cdef int64_t add(self, const uint32_t* k, Py_ssize_t n, uint64_t h,
                     Py_ssize_t slot) except -1:
        """Adds key k[:n] (absent, hash h, free slot from find) as the next id."""
        cdef int64_t vid = self.n
        self._room(vid + 1)
        need_u32(&self.arena, n)
        memcpy(self.arena.p + self.arena.n, k, n * sizeof(uint32_t))
        self.arena.n += n
        self.starts[vid + 1] = self.arena.n
        self.hashes[vid] = h
        self.counts_[vid] = 0
        self.n += 1
        if 2 * self.n > self.n_slots:  # load at most 1/2: short probes
            self._rehash(2 * self.n_slots)
        else:
            self.slots[slot].hash, self.slots[slot].id = h, vid
        return vid

    def __len__(self):
        return self.n

    def get(self, key):
        """The id of ``key``, or -1."""
        if not isinstance(key, str):
            raise TypeError(f"key must be a str, got {type(key).__name__}")
        cdef U32 buf
        cdef Py_ssize_t slot
        buf.p = NULL
        buf.n = buf.cap = 0
        try:
            append_str(&buf, key)
            return self.find(buf.p, buf.n, cp_hash(buf.p, buf.n), &slot)
        finally:
            free(buf.p)

    def keys(self):
        """Every key, in id order."""
        cdef Py_ssize_t i
        return [PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, self.arena.p + self.starts[i],
                                          self.starts[i + 1] - self.starts[i])
                for i in range(self.n)]

    def counts(self):
        """For each id, the tokens its key was counted on by growing extractions."""
        out = np.empty(self.n, dtype=np.int64)
        cdef int64_t[::1] o = out
        if self.n:
            memcpy(&o[0], self.counts_, self.n * sizeof(int64_t))
        return out

    def __reduce__(self):
        return (type(self), (self.keys(),))


# ---- the keys of one sentence
cdef inline uint32_t shape_of(uint32_t c) noexcept:
    if Py_UNICODE_ISUPPER(c):
        return 88  # X
    if Py_UNICODE_ISLOWER(c):
        return 120  # x
    if Py_UNICODE_ISDIGIT(c):
        return 100  # d
    if Py_UNICODE_ISALPHA(c):
        return 97  # a
    return c


cdef class _Keys:
    """One extraction: the template prefixes, the current sentence's code points (token t:
    its word at tok[4t] of length tok[4t+1], its lower-cased or normalized form at tok[4t+2]
    of length tok[4t+3]), the key being built, and the rows made so far."""
    cdef U32 pre, cps, key, tmp
    cdef int64_t* pre_at
    cdef int64_t* tok
    cdef int64_t* ind
    cdef double* dat
    cdef int64_t* ptr
    cdef int64_t* row
    cdef Py_ssize_t pre_cap, tok_cap, nnz, ind_cap, dat_cap, n_ptr, ptr_cap, row_n, row_cap
    cdef Py_ssize_t n_tok, n_pre, per_token, t_s, t_shape, t_flag, t_win, t_bos
    cdef bint nltk, bias, word, lower, shape, flags, grow
    cdef Py_ssize_t prefix, suffix, window
    cdef uint64_t n_features
    cdef Vocabulary vocab
    cdef list keys_out

    def __cinit__(self):
        self.pre = self.cps = self.key = self.tmp = U32(NULL, 0, 0)
        self.pre_at = self.tok = self.ind = self.ptr = self.row = NULL
        self.dat = NULL
        self.pre_cap = self.tok_cap = self.ind_cap = self.dat_cap = self.ptr_cap = 0
        self.row_cap = self.nnz = self.n_ptr = self.row_n = 0

    def __dealloc__(self):
        free(self.pre.p)
        free(self.cps.p)
        free(self.key.p)
        free(self.tmp.p)
        free(self.pre_at)
        free(self.tok)
        free(self.ind)
        free(self.dat)
        free(self.ptr)
        free(self.row)

    def __init__(self, spec):
        check_spec(spec)
        self.nltk, self.bias, self.word, self.lower = spec[0], spec[1], spec[2], spec[3]
        self.prefix, self.suffix, self.shape, self.flags = spec[4], spec[5], spec[6], spec[7]
        self.window = spec[8]
        table = prefix_table(spec)
        self.n_pre = len(table)
        reserve(<void**>&self.pre_at, &self.pre_cap, self.n_pre + 1, sizeof(int64_t))
        self.pre_at[0] = 0
        for i, text in enumerate(table):
            append_str(&self.pre, text)
            self.pre_at[i + 1] = self.pre.n
        self.t_s = 3 + self.prefix
        self.t_shape = self.t_s + self.suffix
        self.t_flag = self.t_shape + 1
        self.t_win = self.t_flag + 3
        self.t_bos = self.t_win + 4 * self.window
        self.per_token = 10 if self.nltk else self.t_bos  # every template once at most
        self.n_features = 0
        self.keys_out = None
        self._push_ptr(0)

    cdef int _push_ptr(self, int64_t v) except -1:
        reserve(<void**>&self.ptr, &self.ptr_cap, self.n_ptr + 1, sizeof(int64_t))
        self.ptr[self.n_ptr] = v
        self.n_ptr += 1
        return 0

    cdef int emit(self, Py_ssize_t t, const uint32_t* v, Py_ssize_t n) except -1:
        """The key: prefix t, then v[:n]; to the row (or to keys_out)."""
        cdef Py_ssize_t m = self.pre_at[t + 1] - self.pre_at[t], slot
        cdef int64_t vid
        cdef uint64_t h
        self.key.n = 0
        need_u32(&self.key, m + n)
        memcpy(self.key.p, self.pre.p + self.pre_at[t], m * sizeof(uint32_t))
        if n:
            memcpy(self.key.p + m, v, n * sizeof(uint32_t))
        self.key.n = m + n
        if self.keys_out is not None:
            (<list>self.keys_out[len(self.keys_out) - 1]).append(  # no wraparound: no [-1]
                PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, self.key.p, self.key.n))
        elif self.n_features:
            self.row[self.row_n] = <int64_t>(utf8_fnv1a(self.key.p, self.key.n) %
                                             self.n_features)
            self.row_n += 1
        else:
            h = cp_hash(self.key.p, self.key.n)
            vid = self.vocab.find(self.key.p, self.key.n, h, &slot)
            if vid < 0:
                if not self.grow:
                    return 0
                vid = self.vocab.add(self.key.p, self.key.n, h, slot)
            if self.grow:
                self.vocab.counts_[vid] += 1
            self.ind[self.nnz] = vid
            self.nnz += 1
        return 0

    cdef inline int emit_pre(self, Py_ssize_t t, Py_ssize_t marker) except -1:
        """The key: prefix t, then the text of table entry `marker`."""
        return self.emit(t, self.pre.p + self.pre_at[marker],
                         self.pre_at[marker + 1] - self.pre_at[marker])

    cdef int read(self, list sentence, Py_ssize_t s) except -1:
        """Phase 1: the code points of every token and of its second form (s: the index of
        the sentence, for errors; -1 for sentence_keys' tokens)."""
        cdef Py_ssize_t t, n = PyList_GET_SIZE(sentence), w0, f0, top
        self.cps.n = 0
        reserve(<void**>&self.tok, &self.tok_cap, 4 * n, sizeof(int64_t))
        for t in range(n):
            token = <object>PyList_GET_ITEM(sentence, t)
            if not PyUnicode_Check(token):
                name = "tokens" if s < 0 else f"sentences[{s}]"
                raise TypeError(f"{name}[{t}] must be a str token, got {type(token).__name__}")
            w0 = self.cps.n
            top = append_str(&self.cps, token)
            f0 = self.cps.n
            if self.nltk:
                self.normalized(token, w0, f0 - w0, top)
            elif self.lower:
                self.lowered(token, w0, f0 - w0, top)
            self.tok[4 * t], self.tok[4 * t + 1] = w0, f0 - w0
            self.tok[4 * t + 2], self.tok[4 * t + 3] = f0, self.cps.n - f0
        self.n_tok = n
        return 0

    cdef int lowered(self, object token, Py_ssize_t w0, Py_ssize_t n, Py_ssize_t top) except -1:
        """str.lower: in C for ASCII, else str.lower itself (full case mapping)."""
        cdef Py_ssize_t i
        cdef uint32_t c
        if top >= 128:
            append_str(&self.cps, _str_lower(token))
            return 0
        need_u32(&self.cps, n)
        for i in range(n):
            c = self.cps.p[w0 + i]
            self.cps.p[self.cps.n + i] = c + 32 if 65 <= c <= 90 else c
        self.cps.n += n
        return 0

    cdef int normalized(self, object token, Py_ssize_t w0, Py_ssize_t n,
                        Py_ssize_t top) except -1:
        """_features_py.normalize."""
        cdef Py_ssize_t marker = nltk_marker(self.cps.p + w0, n), at
        if marker < 0:
            return self.lowered(token, w0, n, top)
        marker += 14  # (the table's !HYPHEN, !YEAR, !DIGITS)
        at, n = self.pre_at[marker], self.pre_at[marker + 1] - self.pre_at[marker]
        need_u32(&self.cps, n)
        memcpy(self.cps.p + self.cps.n, self.pre.p + at, n * sizeof(uint32_t))
        self.cps.n += n
        return 0

    cdef int nltk_token(self, Py_ssize_t i) except -1:
        """_features_py._nltk_keys: c[i+o] is a marker outside the sentence."""
        cdef const uint32_t* w = self.cps.p + self.tok[4 * i]
        cdef Py_ssize_t n = self.tok[4 * i + 1]
        self.emit(0, NULL, 0)
        self.emit(1, w + n - min(n, 3), min(n, 3))
        self.emit(2, w, min(n, 1))
        self.context(3, i, False)
        self.context(4, i - 1, False)
        self.context(5, i - 1, True)
        self.context(6, i - 2, False)
        self.context(7, i + 1, False)
        self.context(8, i + 1, True)
        self.context(9, i + 2, False)
        return 0

    cdef int context(self, Py_ssize_t t, Py_ssize_t at, bint suffix) except -1:
        """Key t of NLTK's context word at position `at` (its last 3 code points if suffix)."""
        cdef Py_ssize_t m, n
        cdef const uint32_t* v
        if at < 0 or at >= self.n_tok:  # -START-, -START2-, -END-, -END2-
            m = 12 + at - self.n_tok if at >= 0 else 12 + at
            v, n = self.pre.p + self.pre_at[m], self.pre_at[m + 1] - self.pre_at[m]
        else:
            v, n = self.cps.p + self.tok[4 * at + 2], self.tok[4 * at + 3]
        if suffix:
            return self.emit(t, v + n - min(n, 3), min(n, 3))
        return self.emit(t, v, n)

    cdef int standard_token(self, Py_ssize_t i) except -1:
        """_features_py._standard_keys."""
        cdef const uint32_t* w = self.cps.p + self.tok[4 * i]
        cdef Py_ssize_t n = self.tok[4 * i + 1], k, j, at
        if self.bias:
            self.emit(0, NULL, 0)
        if self.word:
            self.emit(1, w, n)
        if self.lower:
            self.emit(2, self.cps.p + self.tok[4 * i + 2], self.tok[4 * i + 3])
        for k in range(1, min(self.prefix, n) + 1):
            self.emit(2 + k, w, k)
        for k in range(1, min(self.suffix, n) + 1):
            self.emit(self.t_s + k - 1, w + n - k, k)
        if self.shape:
            self.shape_key(w, n)
        if self.flags:
            self.flag_keys(w, n)
        for j in range(2 * self.window):
            at = i + j - self.window + (j >= self.window)
            if 0 <= at < self.n_tok:
                if self.word:
                    self.emit(self.t_win + 2 * j, self.cps.p + self.tok[4 * at],
                              self.tok[4 * at + 1])
                if self.lower:
                    self.emit(self.t_win + 2 * j + 1, self.cps.p + self.tok[4 * at + 2],
                              self.tok[4 * at + 3])
            else:
                if self.word:
                    self.emit_pre(self.t_win + 2 * j, self.t_bos + (at >= 0))
                if self.lower:
                    self.emit_pre(self.t_win + 2 * j + 1, self.t_bos + (at >= 0))
        return 0

    cdef int flag_keys(self, const uint32_t* w, Py_ssize_t n) except -1:
        cdef Py_ssize_t j
        cdef bint hyphen = False
        for j in range(n):
            hyphen = hyphen or w[j] == 45
        if is_digit_word(w, n):
            self.emit(self.t_flag, NULL, 0)
        if hyphen:
            self.emit(self.t_flag + 1, NULL, 0)
        if n > 0 and Py_UNICODE_ISUPPER(w[0]):
            self.emit(self.t_flag + 2, NULL, 0)
        return 0

    cdef int shape_key(self, const uint32_t* w, Py_ssize_t n) except -1:
        cdef Py_ssize_t i
        cdef uint32_t s
        self.tmp.n = 0
        need_u32(&self.tmp, n)
        for i in range(n):
            s = shape_of(w[i])
            if self.tmp.n == 0 or self.tmp.p[self.tmp.n - 1] != s:
                self.tmp.p[self.tmp.n] = s
                self.tmp.n += 1
        return self.emit(self.t_shape, self.tmp.p, self.tmp.n)

    cdef int rows(self) except -1:
        """Phase 2: the keys of every token of the sentence read, one row each."""
        cdef Py_ssize_t i
        for i in range(self.n_tok):
            if self.keys_out is not None:
                self.keys_out.append([])
            elif self.n_features:
                reserve(<void**>&self.row, &self.row_cap, self.per_token, sizeof(int64_t))
                self.row_n = 0
            else:
                reserve(<void**>&self.ind, &self.ind_cap, self.nnz + self.per_token,
                        sizeof(int64_t))
            if self.nltk:
                self.nltk_token(i)
            else:
                self.standard_token(i)
            if self.n_features:
                self.hashed_row()
            self._push_ptr(self.nnz)
        return 0

    cdef int hashed_row(self) except -1:
        """The columns of the token's keys, sorted, each once with its count."""
        cdef Py_ssize_t i, j
        cdef int64_t c
        for i in range(1, self.row_n):  # insertion sort: a few dozen columns
            c, j = self.row[i], i - 1
            while j >= 0 and self.row[j] > c:
                self.row[j + 1] = self.row[j]
                j -= 1
            self.row[j + 1] = c
        reserve(<void**>&self.ind, &self.ind_cap, self.nnz + self.row_n, sizeof(int64_t))
        reserve(<void**>&self.dat, &self.dat_cap, self.nnz + self.row_n, sizeof(double))
        for i in range(self.row_n):
            if i and self.row[i] == self.row[i - 1]:
                self.dat[self.nnz - 1] += 1.0
            else:
                self.ind[self.nnz], self.dat[self.nnz] = self.row[i], 1.0
                self.nnz += 1
        return 0


cdef object int64_array(const int64_t* p, Py_ssize_t n):
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] o = out
    if n:
        memcpy(&o[0], p, n * sizeof(int64_t))
    return out


def extract_features(sentences, spec, vocab, grow, n_features):
    check_spec(spec)
    if not PyList_Check(sentences):
        raise TypeError(f"sentences must be a list of lists of str, got "
                        f"{type(sentences).__name__}")
    cdef Py_ssize_t s, n_sent = PyList_GET_SIZE(sentences), since = 0, total = 0
    for s in range(n_sent):
        sentence = <object>PyList_GET_ITEM(sentences, s)
        if not PyList_Check(sentence):
            raise TypeError(f"sentences[{s}] must be a list of str tokens, got "
                            f"{type(sentence).__name__}")
        total += PyList_GET_SIZE(sentence)
    if not n_features and not isinstance(vocab, Vocabulary):
        raise TypeError(f"vocab must be a _features_c.Vocabulary, got {type(vocab).__name__}")
    cdef _Keys k = _Keys(spec)
    k.grow, k.n_features = grow, n_features
    if not n_features:
        k.vocab = vocab
        # every row at its longest (up to 1 GiB): one allocation instead of many doublings
        reserve(<void**>&k.ind, &k.ind_cap, min(total * k.per_token, 1 << 27), sizeof(int64_t))
    lengths = np.empty(n_sent, dtype=np.int64)
    cdef int64_t[::1] lens = lengths
    for s in range(n_sent):
        if s >= PyList_GET_SIZE(sentences) or not PyList_Check(
                <object>PyList_GET_ITEM(sentences, s)):
            raise RuntimeError("sentences changed during the extraction")
        k.read(<list>PyList_GET_ITEM(sentences, s), s)
        k.rows()
        lens[s] = k.n_tok
        since += k.n_tok
        if since >= TOKENS_PER_CHECK:
            between_chunks()
            since = 0
    data = np.ones(k.nnz, dtype=np.float64)
    cdef double[::1] d = data
    if n_features and k.nnz:
        memcpy(&d[0], k.dat, k.nnz * sizeof(double))
    return data, int64_array(k.ind, k.nnz), int64_array(k.ptr, k.n_ptr), lengths


def sentence_keys(tokens, spec):
    if not PyList_Check(tokens):
        raise TypeError(f"tokens must be a list of str tokens, got {type(tokens).__name__}")
    cdef _Keys k = _Keys(spec)
    k.keys_out = []
    k.read(tokens, -1)
    k.rows()
    return k.keys_out
