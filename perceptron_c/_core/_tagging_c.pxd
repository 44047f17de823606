# C-level API of the greedy averaged-perceptron tagger's routines (NLTK's PerceptronTagger),
# for Cython code. Every pointer must already be valid for the sizes given: these functions
# do no checking at all (the def layer of _tagging_c checks what they rely on). The hash
# table (keys, vals) has a power-of-two size `mask + 1` and is never full.
from libc.stdint cimport int64_t, uint64_t

cdef enum:
    N_TEMPLATES = 14

cdef uint64_t dyn_key(int template, int64_t prev, int64_t prev2, int64_t word) noexcept nogil
cdef int64_t hash_find(const uint64_t* keys, const int64_t* vals, uint64_t mask,
                       uint64_t key) noexcept nogil
cdef void hash_put(uint64_t* keys, int64_t* vals, uint64_t mask, uint64_t key,
                   int64_t val) noexcept nogil
cdef Py_ssize_t predict_rows(const double* W, Py_ssize_t K, const int64_t* rows,
                             double* scores) noexcept nogil
