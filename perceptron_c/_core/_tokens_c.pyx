# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_tokens_py``: same classes, same signatures, same results.

The Python twin is the specification (NLTK's feature strings looked up by name; the
structured tagger's features, then ``decode_csr``). Here a block of sentences is read with the
GIL (each token's strings to ids, the tag dictionary's tags to codes), decoded without it
(`_tagging_c`'s scores and hash table; `_sequence_c`'s emissions and Viterbi), and returned as
tuples; Ctrl-C is looked at between blocks of a few thousand tokens. The tables are read only
once made, and each call keeps its scratch to itself: any number of threads may tag at once.
"""
from cpython.dict cimport PyDict_GetItemWithError
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE, PyList_New, PyList_SET_ITEM
from cpython.object cimport PyObject, PyObject_IsTrue
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_Check
from libc.math cimport isfinite
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

from perceptron_c._core._checks cimport CHUNK_WORK, between_chunks, need
from perceptron_c._core._features_c cimport append_str, need_u32, nltk_marker, reserve
from perceptron_c._core._sequence_c cimport SeqModel, SeqWork, decode_sentences

from perceptron_c._core._tokens_py import __all__  # no-cython-lint: listed once (test_twins)

import numpy as np

cdef extern from "_features.h":
    uint64_t cp_hash "pc_cp_hash"(const uint32_t* k, Py_ssize_t n) noexcept nogil
    bint same_key "pc_same_key"(const uint32_t* a, const uint32_t* b,
                                Py_ssize_t n) noexcept nogil

cdef extern from "_lanes.h" nogil:
    void pc_emit_row(const double** w, const double* x, Py_ssize_t m, const double* b,
                     double* e, Py_ssize_t K)

_str_lower = str.lower
# The work of a Viterbi pass between two looks for Ctrl-C: CHUNK_WORK unless a test makes the
# passes stop inside every sentence (_set_chunk_work); the tags never depend on it.
cdef Py_ssize_t _chunk_work = CHUNK_WORK


def _set_chunk_work(Py_ssize_t work):
    """The multiply-adds of a Viterbi pass (for the tests); returns the one before."""
    global _chunk_work
    before, _chunk_work = _chunk_work, work
    return before


# NLTK's 10 static features come apart into what a token's strings select: its normalized
# word (the 5 word templates and template 7's word), the suffixes of its raw and normalized
# forms (the 3 suffix templates) and its first code point ('i pref1'); each is one exact
# lookup of code points in a `Vocabulary`, once per token, whose id selects the rows.
cdef list _PREFIXES = ["bias", "i suffix ", "i pref1 ", "i word ", "i-1 word ", "i-2 word ",
                       "i+1 word ", "i+2 word ", "i-1 suffix ", "i+1 suffix ", "i-1 tag ",
                       "i-2 tag ", "i tag+i-2 tag ", "i-1 tag+i word "]
cdef list _MARKERS = ["-START-", "-START2-", "-END-", "-END2-", "!HYPHEN", "!YEAR", "!DIGITS"]
cdef int grow_rows(int64_t** p, Py_ssize_t* cap, Py_ssize_t want) except -1:
    """Room for ``want`` rows at *p (cap counts them), the new ones -1."""
    cdef Py_ssize_t old = cap[0], i
    reserve(<void**>p, cap, want, sizeof(int64_t))
    for i in range(old, cap[0]):
        p[0][i] = -1
    return 0


cdef inline int64_t lookup(Vocabulary v, const uint32_t* k, Py_ssize_t n) noexcept:
    cdef Py_ssize_t slot
    return v.find(k, n, cp_hash(k, n), &slot)


cdef int64_t intern(Vocabulary v, const uint32_t* k, Py_ssize_t n) except -1:
    cdef Py_ssize_t slot
    cdef uint64_t h = cp_hash(k, n)
    cdef int64_t vid = v.find(k, n, h, &slot)
    return vid if vid >= 0 else v.add(k, n, h, slot)


cdef class _Static:
    """The rows of NLTK's 10 static features, taken apart by what selects them (see above):
    ``word_rows[5 w + j]``: 'i word', 'i-1 word', 'i-2 word', 'i+1 word', 'i+2 word' of the
    normalized word w (ids 0-3: -START-, -START2-, -END-, -END2-); ``suffix_rows[3 s + j]``:
    'i suffix', 'i-1 suffix', 'i+1 suffix' of the suffix s; ``pref_rows[p]``: 'i pref1'."""

    def __cinit__(self):
        self.word_rows = self.suffix_rows = self.pref_rows = NULL
        self.word_cap = self.suffix_cap = self.pref_cap = 0
        self.text = U32(NULL, 0, 0)

    def __dealloc__(self):
        free(self.word_rows)
        free(self.suffix_rows)
        free(self.pref_rows)
        free(self.text.p)

    def __init__(self):
        cdef Py_ssize_t i
        self.words, self.suffixes, self.prefs = Vocabulary(), Vocabulary(), Vocabulary()
        self.bias, self.at[0] = -1, 0
        for i, text in enumerate(_PREFIXES + _MARKERS):
            append_str(&self.text, text)
            self.at[i + 1] = self.text.n
        for i in range(4):  # the markers are words 0-3, whatever the features
            self.word_id(self.marker(i), self.marker_len(i))
        grow_rows(&self.suffix_rows, &self.suffix_cap, 3)  # never NULL
        grow_rows(&self.pref_rows, &self.pref_cap, 1)

    cdef const uint32_t* marker(self, Py_ssize_t i) noexcept:
        return self.text.p + self.at[N_PREFIXES + i]

    cdef Py_ssize_t marker_len(self, Py_ssize_t i) noexcept:
        return self.at[N_PREFIXES + i + 1] - self.at[N_PREFIXES + i]

    cdef int64_t word_id(self, const uint32_t* k, Py_ssize_t n) except -1:
        cdef int64_t w = intern(self.words, k, n)
        grow_rows(&self.word_rows, &self.word_cap, 5 * (w + 1))
        return w

    cdef int add_feature(self, const uint32_t* f, Py_ssize_t n, int64_t row) except -2:
        """Row ``row`` holds the feature f[:n] if it is static (a later row of the same
        feature replaces it); returns its template (a `_PREFIXES` index), or -1."""
        cdef Py_ssize_t m = 0, t
        cdef int64_t i
        for t in range(N_PREFIXES + 1):
            if t == N_PREFIXES:
                return -1
            m = self.at[t + 1] - self.at[t]
            if (m == n if t == P_BIAS else m <= n) and same_key(self.text.p + self.at[t], f, m):
                break
        if t == P_BIAS:
            self.bias = row
        elif t == P_PREF:
            i = intern(self.prefs, f + m, n - m)
            grow_rows(&self.pref_rows, &self.pref_cap, i + 1)
            self.pref_rows[i] = row
        elif t == P_SUFFIX or t == P_SUF_BEFORE or t == P_SUF_AFTER:
            i = intern(self.suffixes, f + m, n - m)
            grow_rows(&self.suffix_rows, &self.suffix_cap, 3 * (i + 1))
            self.suffix_rows[3 * i + (0 if t == P_SUFFIX else 1 if t == P_SUF_BEFORE else 2)] = row
        elif t < P_TAG1:
            self.word_rows[5 * self.word_id(f + m, n - m) + t - P_WORD0] = row
        return t

    cdef StaticRows rows(self):
        """The rows for the nogil loops, once every feature is added."""
        cdef StaticRows r
        cdef Py_ssize_t i
        r.word_rows, r.suffix_rows, r.pref_rows = self.word_rows, self.suffix_rows, self.pref_rows
        r.bias = self.bias
        for i in range(4):
            r.marker_suffix[i] = lookup(self.suffixes, self.marker(i) + self.marker_len(i) - 3, 3)
        return r

    cdef int token(self, object token, U32* b, int64_t* ids) except -1:
        """ids[0..3] of a str token: its normalized word (_features_py.normalize), the suffix
        of that, the suffix of the raw word, its first code point (-1: none); b: scratch."""
        cdef Py_ssize_t n = len(token), m, i, marker, top
        cdef const uint32_t* w
        b.n = 0
        top = append_str(b, token)
        w = b.p
        ids[3] = lookup(self.prefs, w, min(n, 1))
        ids[2] = lookup(self.suffixes, w + n - min(n, 3), min(n, 3))
        marker = nltk_marker(w, n)
        if marker >= 0:  # (the markers !HYPHEN, !YEAR, !DIGITS are 4, 5, 6)
            w, m = self.marker(4 + marker), self.marker_len(4 + marker)
        elif top < 128:
            need_u32(b, n)
            for i in range(n):
                b.p[n + i] = b.p[i] + 32 if 65 <= b.p[i] <= 90 else b.p[i]
            w, m = b.p + n, n
        else:
            append_str(b, _str_lower(token))
            w, m = b.p + n, b.n - n
        ids[0] = lookup(self.words, w, m)
        ids[1] = lookup(self.suffixes, w + m - min(m, 3), min(m, 3))
        return 0


# ---- the gate (the Python twin's checks and messages)
cdef object check_features(object features):
    """A list of distinct str (a `Vocabulary`'s errors)."""
    if type(features) is not list:
        raise TypeError(f"features must be a list of str, got {type(features).__name__}")
    Vocabulary(features)


cdef object check_names(object names, Py_ssize_t n, str what):
    if type(names) is not list or not all(type(t) is str for t in names):
        raise TypeError("names must be a list of str")
    need(len(names) == len(set(names)), "names must be distinct")
    need(len(names) >= n and len(names) < (1 << 20), f"names must hold {what}")


cdef object check_tokens(object tokens, str name):
    """A list of str (TypeError naming the first other token)."""
    cdef Py_ssize_t i
    if type(tokens) is not list:
        raise TypeError(f"{name} must be a list of str tokens, got {type(tokens).__name__}")
    for i in range(PyList_GET_SIZE(tokens)):
        token = <object>PyList_GET_ITEM(tokens, i)
        if not PyUnicode_Check(token):
            raise TypeError(f"{name}[{i}] must be a str token, got {type(token).__name__}")


cdef object check_sentences(object sentences, object tagdict):
    cdef Py_ssize_t k
    if type(sentences) is not list:
        raise TypeError(f"sentences must be a list of lists of str tokens, got "
                        f"{type(sentences).__name__}")
    for k in range(len(sentences)):
        check_tokens(sentences[k], f"sentences[{k}]")
    check_tagdict(tagdict)


cdef object check_tagdict(object tagdict):
    if tagdict is not None and type(tagdict) is not dict:
        raise TypeError(f"tagdict must be a dict or None, got {type(tagdict).__name__}")


# ---- blocks of sentences: read with the GIL, decoded without it
cdef int read_block(_Static static, Block* k, list sentences, Py_ssize_t first,
                    Py_ssize_t stop, object tagdict, dict code) except -1:
    """The ids of every token of the sentences first..stop-1 (checked: lists of str), and
    with ``tagdict`` the code of the tag it gives (-1: none; KeyError: not in ``code``)."""
    cdef Py_ssize_t s, i, n, t = 0
    cdef U32 b = U32(NULL, 0, 0)
    cdef PyObject* tag
    cdef PyObject* c
    k.T = 0
    for s in range(first, stop):
        t += PyList_GET_SIZE(sentences[s])
        k.T = max(k.T, PyList_GET_SIZE(sentences[s]))
    k.n = t
    k.ids = <int64_t*>malloc(<size_t>(5 * t + stop - first + 1) * sizeof(int64_t))
    if k.ids == NULL:
        raise MemoryError()
    k.codes, k.offsets = k.ids + 4 * t, k.ids + 5 * t
    k.offsets[0] = t = 0
    try:
        for s in range(first, stop):
            words = <list>sentences[s]
            n = PyList_GET_SIZE(words)
            for i in range(n):
                # a str subclass's __eq__ (the tag dictionary's lookup) may change the list
                if i >= PyList_GET_SIZE(words) or not PyUnicode_Check(words[i]):
                    raise RuntimeError("a sentence changed while it was tagged")
                token = <object>PyList_GET_ITEM(words, i)
                static.token(token, &b, k.ids + 4 * (t + i))
                k.codes[t + i] = -1
                if tagdict is None:
                    continue
                tag = PyDict_GetItemWithError(tagdict, token)
                if tag == NULL or not PyObject_IsTrue(<object>tag):
                    continue  # NLTK's test: a tag dictionary entry "" is no entry
                c = PyDict_GetItemWithError(code, <object>tag)
                if c == NULL:
                    raise KeyError(<object>tag)
                k.codes[t + i] = <int64_t><object>c
            t += n
            k.offsets[s - first + 1] = t
    finally:
        free(b.p)
    return 0


cdef list tuples(list words, const int64_t* codes, Py_ssize_t n, list names):
    """[(word, names[code]), ...] for the n words of one sentence."""
    cdef Py_ssize_t i
    if PyList_GET_SIZE(words) != n:
        raise RuntimeError("a sentence changed while it was tagged")
    cdef list out = PyList_New(n)
    for i in range(n):
        word = <object>PyList_GET_ITEM(words, i)
        tag = <object>PyList_GET_ITEM(names, codes[i])
        pair = PyTuple_New(2)
        Py_INCREF(word)
        PyTuple_SET_ITEM(pair, 0, word)
        Py_INCREF(tag)
        PyTuple_SET_ITEM(pair, 1, tag)
        Py_INCREF(pair)
        PyList_SET_ITEM(out, i, pair)
    return out


cdef class _Tables:
    """What both tables share: the static rows, the tags' names, the loop over blocks of
    about TOKENS_PER_BLOCK tokens (`_pass` decodes one, without the GIL past 256 tokens)."""

    cdef int _static(self, list features) except -1:
        """The static rows of ``features``; returns 0 (a hook adds the dynamic ones)."""
        cdef U32 b = U32(NULL, 0, 0)
        self.static = _Static()
        try:
            for r in range(len(features)):
                f = features[r]
                b.n = 0
                append_str(&b, f)
                t = self.static.add_feature(b.p, len(f), r)
                if t >= P_TAG1:
                    self._dynamic(t, f, b.p, r)
        finally:
            free(b.p)
        self.rows = self.static.rows()
        return 0

    cdef int _dynamic(self, int t, str f, const uint32_t* cps, Py_ssize_t row) except -1:
        return 0

    cdef list _run(self, list sentences, object tagdict):
        cdef Block k = Block(NULL, NULL, NULL, 0, 0, 0, 0, False)
        cdef Py_ssize_t first = 0, stop, s, n = 0, bad
        cdef double* scratch
        out = []
        while first < len(sentences):
            stop = first
            while stop < len(sentences) and (stop == first or
                                             n + len(sentences[stop]) <= TOKENS_PER_BLOCK):
                n += len(sentences[stop])
                stop += 1
            try:
                read_block(self.static, &k, sentences, first, stop, tagdict, self.code)
                k.s, k.rows, k.ready = 0, 0, False
                scratch = <double*>malloc(self._scratch(&k) * sizeof(double))
                if scratch == NULL:
                    raise MemoryError()
                try:
                    while True:  # -2: the pass stopped on its budget (Ctrl-C looked at)
                        if n > 256:
                            with nogil:
                                bad = self._pass(&k, stop - first, scratch)
                        else:
                            bad = self._pass(&k, stop - first, scratch)
                        if bad != -2:
                            break
                        between_chunks()
                finally:
                    free(scratch)
                if bad >= 0:
                    raise FloatingPointError(
                        f"non-finite Viterbi score at sentence {first + bad}: the emissions, "
                        f"the weights or the data are not finite or overflow float64")
                for s in range(first, stop):
                    out.append(tuples(sentences[s], k.codes + k.offsets[s - first],
                                      k.offsets[s - first + 1] - k.offsets[s - first],
                                      self.names))
            finally:
                free(k.ids)
                k.ids = NULL
            first, n = stop, 0
            if first < len(sentences):
                between_chunks()
        return out

    cdef Py_ssize_t _scratch(self, const Block* k) noexcept:
        return self.K

    cdef Py_ssize_t _pass(self, Block* k, Py_ssize_t n_sent, double* scratch) noexcept nogil:
        """The tags of the block's sentences into k.codes: -1 when done, -2 when it stopped on
        its budget (call again: it goes on from k.s, k.rows), or the first sentence whose
        score is not finite."""
        return -1


cdef class ViterbiTables(_Tables):
    """_tokens_py.ViterbiTables: the columns of every token through `_Static`, their
    emissions (_sequence_c's 4 lanes, each value 1.0), then _sequence_c's `decode_sentences`
    on them, which stops inside a long sentence on its budget and goes on."""
    cdef object arrays
    cdef const double* W
    cdef const double* b
    cdef const double* trans
    cdef double* trans2  # second order, or NULL

    def __init__(self, features, names, W, b, trans, trans2=None):
        cdef Py_ssize_t K, i, j, n
        check_features(features)
        need(isinstance(W, np.ndarray) and W.dtype == np.float64 and W.ndim == 2 and
             W.flags.c_contiguous and W.shape[0] == len(features) and W.shape[1] >= 1,
             f"W must be a C-contiguous float64 array of shape ({len(features)}, n_classes)")
        K = W.shape[1]
        need(isinstance(b, np.ndarray) and b.dtype == np.float64 and b.shape == (K,)
             and b.flags.c_contiguous, "b must be a contiguous float64 array of shape (K,)")
        need(isinstance(trans, np.ndarray) and trans.dtype == np.float64 and
             trans.shape == (K + 2, K) and trans.flags.c_contiguous,
             "trans must be a C-contiguous float64 array of shape (K + 2, K)")
        cdef const double[:, ::1] tr = trans
        for i in range(K + 2):
            for j in range(K):
                if not isfinite(tr[i, j]):
                    raise FloatingPointError(f"trans[{i}, {j}] is not finite")
        check_names(names, K, "one tag per column of W")
        need(len(names) == K, "names must hold one tag per column of W")
        cdef const double[:, :, ::1] t2 = None
        if trans2 is not None:
            n = K + 1
            need(isinstance(trans2, np.ndarray) and trans2.dtype == np.float64 and
                 trans2.shape == (n, n, n) and trans2.flags.c_contiguous,
                 "trans2 must be a C-contiguous float64 array of shape (K + 1, K + 1, K + 1)")
            t2 = trans2
            for i in range(n * n * n):
                if not isfinite(t2[i // (n * n), i // n % n, i % n]):
                    raise FloatingPointError(f"trans2[{i // (n * n)}, {i // n % n}, {i % n}] "
                                             "is not finite")
        self.names, self.K, self.arrays = list(names), K, (W, b, trans, trans2)
        cdef const double[:, ::1] w = W
        cdef const double[::1] bv = b
        self.W, self.b, self.trans = &w[0, 0] if w.shape[0] else NULL, &bv[0], &tr[0, 0]
        self.trans2 = NULL if t2 is None else <double*>&t2[0, 0, 0]
        self._static(features)

    def tag_sentence(self, tokens):
        check_tokens(tokens, "tokens")
        return self._run([tokens], None)[0]

    def tag_sentences(self, sentences):
        check_sentences(sentences, None)
        return self._run(sentences, None)

    cdef Py_ssize_t _scratch(self, const Block* k) noexcept:
        # Viterbi's rows of scores (K, or K^2 over pairs, a token), the emissions, then second
        # order's scratch
        return (k.T * (1 if self.trans2 == NULL else self.K) + k.n + 1) * self.K + 1

    cdef Py_ssize_t _pass(self, Block* k, Py_ssize_t n_sent, double* scratch) noexcept nogil:
        """The emissions of every token of the block (once), then _sequence_c's
        decode_sentences on them, about _chunk_work multiply-adds a call."""
        cdef Py_ssize_t s, i, j, m, K = self.K, r
        cdef double* back = scratch
        cdef double* E = scratch + k.T * K * (1 if self.trans2 == NULL else K) + 1
        cdef int64_t r10[10]
        cdef const double* w[10]
        cdef double ones[10]
        cdef SeqModel model
        cdef SeqWork work
        if not k.ready:
            for j in range(10):
                ones[j] = 1.0
            for s in range(n_sent):
                for i in range(k.offsets[s], k.offsets[s + 1]):
                    rows10(&self.rows, k.ids + 4 * k.offsets[s], i - k.offsets[s],
                           k.offsets[s + 1] - k.offsets[s], r10)
                    m = 0
                    for j in range(10):
                        if r10[j] >= 0:
                            w[m] = self.W + r10[j] * K
                            m += 1
                    pc_emit_row(w, ones, m, self.b, E + i * K, K)
            k.ready = True
        model = SeqModel(NULL, NULL, <double*>self.trans, NULL, NULL, NULL, NULL, E, K, 0,
                         False, False, self.trans2, NULL)  # (the emissions given: W and b
        #                                                   are not read)
        work = SeqWork(NULL, back, NULL, E + k.n * K, k.T, k.s, 0, k.rows)
        r = decode_sentences(<const double*>NULL, NULL, NULL, k.offsets, n_sent, &model, &work,
                             k.codes, _chunk_work)
        k.s, k.rows = work.s, work.rows
        return r
