# C-level API of the structured perceptron's routines ([Collins2002]: Viterbi and the epoch),
# for Cython code. Every pointer must already be valid for the sizes given: these functions
# do no checking at all (the def layer of _sequence_c checks what they rely on).
# Rows as in _linear_c.pxd: dense (idx == NULL, indptr == NULL, row t is data[t*d:(t+1)*d])
# or CSR (row t is data/idx[indptr[t]:indptr[t+1]]). Sentence s is tokens
# offsets[s]..offsets[s+1]-1. trans is (K+2) x K, rows K and K+1 the start and end scores.
from libc.stdint cimport int32_t, int64_t
from cython cimport floating

# The weights: W (d x K, feature-major: row j is feature j's weight for every tag), b (K),
# trans ((K+2) x K); averaging is on when U != NULL (then
# beta, U_trans and count are set too: [Daume2017] Alg. 7 sums and example counter). E: the
# emissions of every token given (n_tokens x K: decoding reads them instead of W and b), or
# NULL. Second order when trans2 != NULL: the trigram scores ((K+1) x (K+1) x (K+1), index K
# the boundary: the start in the first two axes, the end in the last; _sequence_py's
# contract), with their averaging sums U_trans2 when averaging.
cdef struct SeqModel:
    double* W
    double* b
    double* trans
    double* U
    double* beta
    double* U_trans
    int64_t* count
    const double* E
    Py_ssize_t K
    Py_ssize_t d
    bint fit_intercept
    bint masked          # trans holds -inf at forbidden transitions (allowed=): see viterbi
    double* trans2
    double* U_trans2

# Scratch for sentences of up to max_len tokens: E (max_len x K emissions), back (Viterbi's
# rows of scores, max_len x K; second order max_len x K^2: the tag pairs), path (max_len
# tags), lanes (4K running sums; second order's scratch too);
# and where a pass that stopped on its budget goes on: sentence s (decode_sentences: its
# index; structured_pass: its position in the order), of which `emitted` tokens have their
# emissions and `rows` rows of Viterbi are done (0, 0 when a new sentence starts).
cdef struct SeqWork:
    double* E
    double* back
    int64_t* path
    double* lanes
    Py_ssize_t max_len
    Py_ssize_t s
    Py_ssize_t emitted
    Py_ssize_t rows

# Viterbi ([Collins2002]) of one sentence of T >= 1 tokens over K >= 1 tags, as
# _sequence_py._best_path: E (T x K float64, row-major) the emission scores, trans
# ((K+2) x K float64) the transition scores, trans[i, j] from tag i to tag j, rows K and K+1
# the start and end scores. Scratch: back (T x K float64: every row of Viterbi's scores); delta
# is not read (kept for the signature). path (T int64) receives the best tags, ties to the
# lowest tag. Returns 0, or -1
# when a score is not finite (path then unspecified). noexcept nogil: with or without the GIL.
cdef int best_path(const double* E, const double* trans, Py_ssize_t T, Py_ssize_t K,
                   double* delta, double* back, int64_t* path) noexcept nogil

# Emissions E (T x K) of T rows under the feature-major W (d x K) and b: _linear's decision
# of W.T bit for bit (feature p of a row into lane p % 4). lanes: scratch of 4K doubles.
cdef void emissions(const floating* data, const int32_t* idx, const int64_t* indptr,
                    Py_ssize_t d, Py_ssize_t T, Py_ssize_t K, const double* W, const double* b,
                    double* lanes, double* E) noexcept nogil

# Decode the sentences from where work stands (work.s, ...) to stop-1 into out (tags by
# token), for about `budget` multiply-adds: -1 when done, -2 when the budget ran out first
# (call again to go on), or the sentence whose score is not finite (decoding stops there).
cdef Py_ssize_t decode_sentences(const floating* data, const int32_t* idx,
                                 const int64_t* indptr, const int64_t* offsets,
                                 Py_ssize_t stop, const SeqModel* m, SeqWork* work,
                                 int64_t* out, Py_ssize_t budget) noexcept nogil

# The pass over the n sentences order[0..n-1] from where work stands (work.s is a position in
# the order), for about `budget` multiply-adds: 0 when done, 1 when the budget ran out first
# (call again to go on), -1 when a score at position work.s is not finite (the pass stops
# there). mistakes[0] and mistakes[1] gain the sentences and the tokens tagged wrongly.
cdef Py_ssize_t structured_pass(const floating* data, const int32_t* idx,
                                const int64_t* indptr, const int64_t* y,
                                const int64_t* offsets, const int64_t* order, Py_ssize_t n,
                                SeqModel* m, SeqWork* work, int64_t* mistakes,
                                Py_ssize_t budget) noexcept nogil
