# C-level declarations of _features_c: the vocabulary's hash table, for Cython code that
# interns keys of its own (code points, FNV-1a over them as the hash), and the growable
# buffers of code points that read str tokens. No checking at all.
cimport cython
from cpython.unicode cimport Py_UNICODE_ISDIGIT
from libc.stdint cimport int64_t, uint32_t, uint64_t


cdef struct Slot:
    uint64_t hash
    int64_t id               # -1: empty


cdef struct U32:
    uint32_t* p
    Py_ssize_t n
    Py_ssize_t cap


@cython.final
cdef class Vocabulary:
    cdef U32 arena           # the code points of every key, end to end
    cdef int64_t* starts     # key i is arena[starts[i]:starts[i + 1]]
    cdef uint64_t* hashes    # cp_hash of key i
    cdef int64_t* counts_    # tokens key i was counted on while growing
    cdef Py_ssize_t n, cap_ids
    cdef Slot* slots         # open addressing, linear probing; the hash beside the id
    cdef Py_ssize_t n_slots  # a power of 2, at least twice n

    cdef int _room(self, Py_ssize_t ids) except -1
    cdef int _rehash(self, Py_ssize_t n_slots) except -1
    cdef int64_t find(self, const uint32_t* k, Py_ssize_t n, uint64_t h,
                      Py_ssize_t* slot) noexcept
    cdef int64_t add(self, const uint32_t* k, Py_ssize_t n, uint64_t h,
                     Py_ssize_t slot) except -1


# Room for ``need`` items of ``item`` bytes at *p (doubling; MemoryError, never a crash).
cdef int reserve(void** p, Py_ssize_t* cap, Py_ssize_t need, size_t item) except -1
# Appends the code points of the str s to b; returns their bitwise OR (below 128: ASCII).
cdef Py_ssize_t append_str(U32* b, object s) except -1


cdef inline int need_u32(U32* b, Py_ssize_t extra) except -1:
    """Room for ``extra`` more code points in b."""
    if b.n + extra > b.cap:
        reserve(<void**>&b.p, &b.cap, b.n + extra, sizeof(uint32_t))
    return 0


cdef inline bint is_digit_word(const uint32_t* w, Py_ssize_t n) noexcept:
    """str.isdigit: not empty, every code point a digit."""
    cdef Py_ssize_t i
    for i in range(n):
        if not Py_UNICODE_ISDIGIT(w[i]):
            return False
    return n > 0


cdef inline int nltk_marker(const uint32_t* w, Py_ssize_t n) noexcept:
    """NLTK's normalize of the word w[:n] when it is not the lower-cased word: 0 for !HYPHEN
    ('-' in it, not first), 1 for !YEAR (4 digits), 2 for !DIGITS (a digit first); else -1."""
    cdef Py_ssize_t i
    for i in range(n):
        if w[i] == 45 and w[0] != 45:
            return 0
    if n == 4 and is_digit_word(w, n):
        return 1
    if n > 0 and Py_UNICODE_ISDIGIT(w[0]):
        return 2
    return -1
