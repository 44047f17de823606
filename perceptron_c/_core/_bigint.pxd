# Exact integer sums for the conjunction kernel, shared by the C twins that need them.
#
# Bucket sums (`_conjunction_c`): sum_k B[k] 2^k with int64 buckets B indexed by exponent, the
# bias in B[0]. `scatter` adds coefficients into the buckets; `conjunction_sign` and
# `conjunction_value` carry them in base 2 from the lowest bucket up (digit = c mod 2, carry =
# floor(c / 2)), so every bucket ends as 0 or 1 and the carry out of the top decides the sign.
# Empty runs of buckets between the bias and the lowest used exponent are skipped once the
# carry is 0 or -1. Precondition: the sum of |coefficients| landing in one bucket, plus |b|,
# stays below 2^62 (then no intermediate value leaves int64).
#
# Limb sums (`_voted_c`): a fixed-width two's-complement integer of 64-bit limbs, to which
# +-2^e is added in O(1) amortized time.
#
# Public through perceptron_c.capi.bigint: conjunction_sign, limbs_add_pow2, limbs_sub_pow2,
# limbs_sign. All are inline, noexcept nogil, and check nothing: call them with or without
# the GIL, with every pointer valid for the sizes given.
from libc.float cimport DBL_MAX
from libc.math cimport ldexp, isinf
from libc.stdint cimport int16_t, int32_t, int64_t, uint64_t

# the popcount exponents a conjunction kernel's values are 2 to: int16 (up to 32767 bits) or
# int32
ctypedef fused exp_t:
    int16_t
    int32_t

cdef enum:
    # no int32 exponent is above it: "no coefficient seen yet" for the lowest exponent used
    NO_TERM = 0x7fffffff


cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static int pc_clz64(unsigned long long x) {
        unsigned long i;
        _BitScanReverse64(&i, x);
        return 63 - (int)i;
    }
    #else
    static int pc_clz64(unsigned long long x) { return __builtin_clzll(x); }
    #endif
    """
    int pc_clz64(unsigned long long x) noexcept nogil


cdef inline int64_t halve(int64_t a, int64_t q, int64_t* digit) noexcept nogil:
    # floor((a + q) / 2) and (a + q) mod 2, without forming a + q (which could overflow)
    cdef int64_t low = (a & 1) + (q & 1)
    digit[0] = low & 1
    return (a >> 1) + (q >> 1) + (low >> 1)


cdef inline void _put(int64_t* B, Py_ssize_t ej, int64_t v, Py_ssize_t* low,
                      Py_ssize_t* high) noexcept nogil:
    # B[ej] += v, widening [low, high] to hold ej
    B[ej] += v
    if ej < low[0]:
        low[0] = ej
    if ej > high[0]:
        high[0] = ej


cdef inline void scatter(int64_t* B, const int32_t* e, const int64_t* a, const int64_t* a2,
                         Py_ssize_t n, Py_ssize_t* lo, Py_ssize_t* hi) noexcept nogil:
    # B[e[j]] += a[j] (- a2[j] when a2 != NULL); lo, hi: the range of exponents touched
    cdef Py_ssize_t j, low = lo[0], h = hi[0]
    cdef int64_t v
    if a2 == NULL:
        for j in range(n):
            if a[j] != 0:
                _put(B, e[j], a[j], &low, &h)
    else:
        for j in range(n):
            v = a[j] - a2[j]
            if v != 0:
                _put(B, e[j], v, &low, &h)
    lo[0] = low
    hi[0] = h


# B: int64 buckets (at least hi + 1 of them), B[k] the coefficient of 2^k, the bias in B[0];
# lo, hi: the lowest and highest exponent whose bucket may be nonzero (every bucket outside
# B[lo..hi] but B[0] is 0), as `scatter` tracks them; hi < lo when only B[0] is used. The sums
# must respect the precondition above. Returns the sign and leaves B zeroed.
cdef inline int conjunction_sign(int64_t* B, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Sign (-1, 0, 1) of sum_k B[k] 2^k, where B[0] (the bias) and B[lo..hi] may be nonzero
    (hi < lo: only B[0]); clears those buckets."""
    cdef int64_t q = 0, d, nz = 0, v
    cdef Py_ssize_t k
    if hi < lo:
        v = B[0]
        B[0] = 0
        return (v > 0) - (v < 0)
    k = 0 if B[0] != 0 else lo
    while k <= hi:
        if 0 < k < lo and (q == 0 or q == -1):
            # B[k..lo-1] are empty: the carry repeats digit -q through them
            nz |= -q
            k = lo
            continue
        q = halve(B[k], q, &d)
        B[k] = 0
        nz |= d
        k += 1
    if q != 0:
        return 1 if q > 0 else -1
    return 1 if nz else 0


cdef inline double conjunction_value(int64_t* B, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """The float64 nearest to sum_k B[k] 2^k (correctly rounded; beyond float64's range the
    largest finite float64 of its sign), with B as in `conjunction_sign`; clears the buckets."""
    cdef int64_t q = 0, d, v
    cdef uint64_t Q, mant
    cdef Py_ssize_t k, k0, p, H
    cdef bint neg
    cdef int64_t sticky = 0
    cdef double r
    if hi < lo:
        v = B[0]
        B[0] = 0
        return <double>v
    if B[0] != 0:
        lo = 0
    for k in range(lo, hi + 1):  # digits in place: sum = q 2^(hi+1) + sum_k B[k] 2^k
        q = halve(B[k], q, &d)
        B[k] = d
    H = hi + 1
    neg = q < 0
    if neg:  # |sum| = (-q) 2^H - D: two's complement of the digits D, carry ~q
        k0 = lo
        while k0 <= hi and B[k0] == 0:
            k0 += 1
        if k0 <= hi:
            for k in range(k0 + 1, hi + 1):
                B[k] ^= 1
            Q = <uint64_t>(~q)
        else:
            Q = (<uint64_t>0) - (<uint64_t>q)
    else:
        Q = <uint64_t>q
    if Q != 0:
        p = H + 63 - pc_clz64(Q)
    else:
        p = hi
        while p >= lo and B[p] == 0:
            p -= 1
        if p < lo:
            for k in range(lo, hi + 1):
                B[k] = 0
            return 0.0
    # the 64 binary digits p .. p-63 of |sum|, plus a sticky bit for any digit below them
    mant = 0
    for k in range(p, p - 64, -1):
        mant <<= 1
        if k >= H:
            mant |= (Q >> (k - H)) & 1
        elif k >= lo:
            mant |= <uint64_t>B[k]
    k = lo
    while k <= p - 64:  # p - 64 < H: only digits can be below the window
        sticky |= B[k]
        k += 1
    if sticky:
        mant |= 1
    for k in range(lo, hi + 1):
        B[k] = 0
    if p >= 1024:
        r = DBL_MAX
    else:
        r = ldexp(<double>mant, <int>(p - 63))
        if isinf(r):
            r = DBL_MAX
    return -r if neg else r


cdef inline void _limbs_pow2(uint64_t* limbs, Py_ssize_t n_limbs, Py_ssize_t e,
                             bint sub) noexcept nogil:
    # limbs + 2^e (sub: - 2^e), the carry (borrow) running up while a limb wraps around
    cdef Py_ssize_t i = e >> 6
    cdef uint64_t d = (<uint64_t>1) << (e & 63)
    cdef uint64_t old
    while i < n_limbs:
        old = limbs[i]
        if sub:
            limbs[i] = old - d
            if old >= d:  # no borrow
                return
        else:
            limbs[i] = old + d
            if limbs[i] >= old:  # no carry out of this limb
                return
        d = 1
        i += 1


# limbs (n_limbs uint64, least significant first): a two's-complement integer, to which 2^e
# is added in place (0 <= e < 64 n_limbs); a carry out of the top limb is dropped, so n_limbs
# must hold every value the sum takes plus a sign bit.
cdef inline void limbs_add_pow2(uint64_t* limbs, Py_ssize_t n_limbs, Py_ssize_t e) noexcept nogil:
    _limbs_pow2(limbs, n_limbs, e, False)


# limbs_add_pow2 for -2^e: limbs (n_limbs uint64) less 2^e, in place (0 <= e < 64 n_limbs).
cdef inline void limbs_sub_pow2(uint64_t* limbs, Py_ssize_t n_limbs, Py_ssize_t e) noexcept nogil:
    _limbs_pow2(limbs, n_limbs, e, True)


# The sign (-1, 0, 1) of the two's-complement integer in limbs (n_limbs >= 1 uint64), read only.
cdef inline int limbs_sign(const uint64_t* limbs, Py_ssize_t n_limbs) noexcept nogil:
    cdef Py_ssize_t i
    if limbs[n_limbs - 1] >> 63:
        return -1
    for i in range(n_limbs):
        if limbs[i]:
            return 1
    return 0
