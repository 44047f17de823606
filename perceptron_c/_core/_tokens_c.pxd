# C-level declarations of _tokens_c: NLTK's static features of Python tokens resolved to the
# rows of a trained tagger (`_Static`), blocks of sentences read with the GIL and decoded
# without it (`_Tables`, whose `_pass` a tagger's tables define: _tagging_c's greedy ones,
# _tokens_c's Viterbi ones), and the checks both run. No checking in the inline functions.
from libc.stdint cimport int64_t, uint32_t

from perceptron_c._core._features_c cimport U32, Vocabulary

cdef enum:  # each template's index in _tokens_c's prefixes
    P_BIAS, P_SUFFIX, P_PREF, P_WORD0, P_WORD1, P_WORD2, P_WORD3, P_WORD4, P_SUF_BEFORE
    P_SUF_AFTER, P_TAG1, P_TAG2, P_TAGS, P_TAG_WORD, N_PREFIXES
cdef enum:
    TOKENS_PER_BLOCK = 4096  # tokens read, then decoded, per block (Ctrl-C between blocks)


cdef struct StaticRows:
    # _Static's rows, for the nogil loops (the arrays belong to the _Static)
    const int64_t* word_rows
    const int64_t* suffix_rows
    const int64_t* pref_rows
    int64_t bias
    int64_t marker_suffix[4]


cdef struct Block:
    int64_t* ids          # 4 per token (_Static.token)
    int64_t* codes        # a tag code per token: the tag dictionary's, then the decoded one
    int64_t* offsets      # sentence s of the block: tokens offsets[s]..offsets[s+1]-1
    Py_ssize_t T, n       # its longest sentence, its tokens
    Py_ssize_t s, rows    # where a pass that stopped on its budget goes on (0, 0 at first)
    bint ready            # (the pass's own work before that: the Viterbi tables' emissions)


cdef class _Static:
    cdef Vocabulary words, suffixes, prefs
    cdef int64_t* word_rows
    cdef int64_t* suffix_rows
    cdef int64_t* pref_rows
    cdef Py_ssize_t word_cap, suffix_cap, pref_cap  # in rows
    cdef int64_t bias
    cdef U32 text                   # the prefixes, then the markers, end to end
    cdef int64_t at[N_PREFIXES + 8]  # prefix t is text[at[t]:at[t + 1]], marker i at 14 + i

    cdef const uint32_t* marker(self, Py_ssize_t i) noexcept
    cdef Py_ssize_t marker_len(self, Py_ssize_t i) noexcept
    cdef int64_t word_id(self, const uint32_t* k, Py_ssize_t n) except -1
    cdef int add_feature(self, const uint32_t* f, Py_ssize_t n, int64_t row) except -2
    cdef StaticRows rows(self)
    cdef int token(self, object token, U32* b, int64_t* ids) except -1


cdef class _Tables:
    cdef _Static static
    cdef StaticRows rows
    cdef Py_ssize_t K
    cdef list names
    cdef dict code

    cdef int _static(self, list features) except -1
    cdef int _dynamic(self, int t, str f, const uint32_t* cps, Py_ssize_t row) except -1
    cdef list _run(self, list sentences, object tagdict)
    cdef Py_ssize_t _scratch(self, const Block* k) noexcept
    cdef Py_ssize_t _pass(self, Block* k, Py_ssize_t n_sent, double* scratch) noexcept nogil


# the gate of the tables (the Python twins' checks and messages)
cdef object check_features(object features)
cdef object check_names(object names, Py_ssize_t n, str what)
cdef object check_tokens(object tokens, str name)
cdef object check_sentences(object sentences, object tagdict)
cdef object check_tagdict(object tagdict)


cdef inline int64_t around(const StaticRows* r, const int64_t* ids, Py_ssize_t t,
                           Py_ssize_t n, int col) noexcept nogil:
    """The normalized word's id (col 0) or its suffix's (col 1) at position t of a sentence of
    n tokens; outside it, the marker's (-START-, -START2- before, -END-, -END2- after)."""
    cdef Py_ssize_t m = t + 2 if t < 0 else 2 + t - n if t >= n else -1
    if m < 0:
        return ids[4 * t + col]
    return m if col == 0 else r.marker_suffix[m]


cdef inline int64_t pick(const int64_t* rows, int width, int64_t i, int j) noexcept nogil:
    return rows[width * i + j] if i >= 0 else -1


cdef inline void rows10(const StaticRows* r, const int64_t* ids, Py_ssize_t i, Py_ssize_t n,
                        int64_t* out) noexcept nogil:
    """The rows of the 10 static features of token i in NLTK's order, -1 where none; ids: 4
    per token (`_Static.token`)."""
    out[0] = r.bias
    out[1] = pick(r.suffix_rows, 3, ids[4 * i + 2], 0)
    out[2] = pick(r.pref_rows, 1, ids[4 * i + 3], 0)
    out[3] = pick(r.word_rows, 5, around(r, ids, i, n, 0), 0)
    out[4] = pick(r.word_rows, 5, around(r, ids, i - 1, n, 0), 1)
    out[5] = pick(r.suffix_rows, 3, around(r, ids, i - 1, n, 1), 1)
    out[6] = pick(r.word_rows, 5, around(r, ids, i - 2, n, 0), 2)
    out[7] = pick(r.word_rows, 5, around(r, ids, i + 1, n, 0), 3)
    out[8] = pick(r.suffix_rows, 3, around(r, ids, i + 1, n, 1), 2)
    out[9] = pick(r.word_rows, 5, around(r, ids, i + 2, n, 0), 4)
