# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""C twin of ``_order_py``: the same permutations, drawn without the GIL, Ctrl-C checked
between chunks of swaps."""
from libc.stdint cimport int64_t, uint64_t

from perceptron_c._core._checks cimport between_chunks, need


from perceptron_c._core._order_py import __all__  # no-cython-lint: listed once (test_twins)


cdef extern from *:
    """
    /* _order_py.draw_permutation, step for step: SplitMix64 numbers, Lemire's bounded draw
     * (32-bit, or 64-bit modulo with rejection past 2^32 rows), Fisher-Yates from the end.
     * Plain 64-bit integer arithmetic, so any C compiler gives the twin's permutation. */
    #define PC_GOLDEN 0x9E3779B97F4A7C15ULL
    static uint64_t pc_mix64(uint64_t z) {
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    static uint64_t pc_permutation_start(uint64_t seed, uint64_t epoch) {
        return pc_mix64(seed ^ pc_mix64(epoch + PC_GOLDEN));
    }
    /* j uniform in [0, k) into *j; returns the generator's next state. */
    static uint64_t pc_bounded(uint64_t s, uint64_t k, uint64_t *j) {
        uint64_t z;
        s += PC_GOLDEN;
        z = pc_mix64(s);
        if (k <= 4294967296ULL) {
            uint64_t m = (z >> 32) * k;
            if ((m & 0xFFFFFFFFULL) < k) {
                uint64_t floor = (4294967296ULL - k) % k;
                while ((m & 0xFFFFFFFFULL) < floor) {
                    s += PC_GOLDEN;
                    m = (pc_mix64(s) >> 32) * k;
                }
            }
            *j = m >> 32;
            return s;
        }
        uint64_t limit = 0 - (0 - k) % k;  /* 2^64 - (2^64 mod k), 0 when k divides 2^64 */
        while (limit != 0 && z >= limit) {
            s += PC_GOLDEN;
            z = pc_mix64(s);
        }
        *j = z % k;
        return s;
    }
    /* The swaps for i = hi down to lo + 1; returns the generator's state. */
    static uint64_t pc_fisher_yates(int64_t *order, int64_t hi, int64_t lo, uint64_t s) {
        uint64_t j;
        for (int64_t i = hi; i > lo; i--) {
            s = pc_bounded(s, (uint64_t)i + 1, &j);
            int64_t t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return s;
    }
    """
    uint64_t pc_permutation_start(uint64_t seed, uint64_t epoch) noexcept nogil
    uint64_t pc_fisher_yates(int64_t* order, int64_t hi, int64_t lo, uint64_t s) noexcept nogil
    uint64_t pc_bounded(uint64_t s, uint64_t k, uint64_t* j) noexcept nogil

# Swaps between two checks for Ctrl-C (a few milliseconds).
cdef enum:
    PERMUTATION_CHUNK = 1 << 20


def draw_permutation(int64_t[::1] order, seed, epoch):
    need(0 <= seed < 2**64 and 0 <= epoch < 2**64, "seed and epoch must lie in [0, 2^64)")
    cdef int64_t n = order.shape[0], i, hi, lo
    cdef uint64_t s = pc_permutation_start(<uint64_t>seed, <uint64_t>epoch)
    if n == 0:
        return
    with nogil:
        for i in range(n):
            order[i] = i
    hi = n - 1
    while hi > 0:
        lo = hi - PERMUTATION_CHUNK if hi > PERMUTATION_CHUNK else 0
        with nogil:
            s = pc_fisher_yates(&order[0], hi, lo, s)
        hi = lo
        between_chunks()


def _bounded(s, k):
    """_order_py._bounded (for the tests: the 64-bit path needs over 2^32 rows otherwise)."""
    need(0 <= s < 2**64 and 0 < k < 2**64, "s must lie in [0, 2^64), k in [1, 2^64)")
    cdef uint64_t j
    cdef uint64_t nxt = pc_bounded(<uint64_t>s, <uint64_t>k, &j)
    return int(j), int(nxt)
