# Exact sums of float64 values times powers of two, shared by the C twins that need them
# (``_kpa_c``: the conjunction kernel 2^popcount(a AND b) with float64 coefficients).
#
# An accumulator is nl int64 limbs; limb k is worth 2^(32 k - zero), so the bit of 2^0 is bit
# ``zero``. `acc_add` adds a float64 times 2^e: its 53-bit integer mantissa, shifted into
# place, lands as three 32-bit pieces on three limbs (carries deferred). `acc_norm` propagates
# the carries: limbs 0 .. nl-2 become digits in [0, 2^32), the top limb keeps the sign. Then
# `acc_sign`, `acc_cmp` and `acc_nearest` (the nearest float64, ties to even, subnormals
# included; +-inf beyond float64's range) are exact. Preconditions: `accumulator_size` for
# terms a 2^e with -max_exponent <= e <= 0 (a the float64, |a| < 2^1024) and at most 2^62
# terms, and `acc_norm` at least every FIXED_NORM_EVERY terms per limb.
from libc.math cimport frexp, INFINITY, ldexp
from libc.stdint cimport int64_t, uint64_t

from perceptron_c._core._bigint cimport pc_clz64

cdef enum:
    # each term changes a limb by less than 2^34: this many keep every limb below 2^62
    FIXED_NORM_EVERY = 1 << 28


cdef extern from *:
    """
    #define FIXED_MASK32 0xFFFFFFFFULL
    """
    unsigned long long FIXED_MASK32


cdef inline void accumulator_size(Py_ssize_t max_exponent, Py_ssize_t* nl,
                                  Py_ssize_t* zero) noexcept nogil:
    # the lowest bit a term can set: 2^(-max_exponent - 1074 - 52) (a subnormal mantissa);
    # the highest: 2^1023 times up to 2^62 terms, doubled twice (a difference, the loss)
    zero[0] = max_exponent + 1160
    nl[0] = (zero[0] + 1090) // 32 + 4


cdef inline void acc_add(int64_t* L, double a, Py_ssize_t j0) noexcept nogil:
    """L += a * 2^(j0 - zero): a's 53-bit mantissa split over three limbs."""
    cdef int ex
    cdef double mant = frexp(a, &ex)
    cdef int64_t m = <int64_t>ldexp(mant, 53)
    cdef Py_ssize_t j = j0 + ex - 53
    cdef Py_ssize_t k = j >> 5
    cdef int off = j & 31
    cdef uint64_t um = <uint64_t>(-m) if m < 0 else <uint64_t>m
    cdef uint64_t lo = (um & FIXED_MASK32) << off
    cdef uint64_t hi = (um >> 32) << off
    cdef int64_t d0 = <int64_t>(lo & FIXED_MASK32)
    cdef int64_t d1 = <int64_t>((lo >> 32) + (hi & FIXED_MASK32))
    cdef int64_t d2 = <int64_t>(hi >> 32)
    if m < 0:
        L[k] -= d0
        L[k + 1] -= d1
        L[k + 2] -= d2
    else:
        L[k] += d0
        L[k + 1] += d1
        L[k + 2] += d2


cdef inline void acc_norm(int64_t* L, Py_ssize_t nl) noexcept nogil:
    """Propagate the carries: limbs 0 .. nl-2 become digits in [0, 2^32), the top one signed."""
    cdef int64_t carry = 0, v
    cdef Py_ssize_t k
    for k in range(nl - 1):
        v = L[k] + carry
        L[k] = v & <int64_t>FIXED_MASK32
        carry = v >> 32
    L[nl - 1] += carry


cdef inline int acc_sign(const int64_t* L, Py_ssize_t nl) noexcept nogil:
    cdef Py_ssize_t k
    if L[nl - 1] != 0:
        return 1 if L[nl - 1] > 0 else -1
    for k in range(nl - 1):
        if L[k] != 0:
            return 1
    return 0


cdef inline int acc_cmp(const int64_t* A, const int64_t* B, Py_ssize_t nl) noexcept nogil:
    """Sign of A - B, both normalized."""
    cdef Py_ssize_t k = nl - 1
    while k >= 0:
        if A[k] != B[k]:
            return 1 if A[k] > B[k] else -1
        k -= 1
    return 0


cdef inline double acc_nearest(int64_t* L, Py_ssize_t nl, Py_ssize_t zero) noexcept nogil:
    """The float64 nearest to the normalized L (ties to even; +-inf beyond float64's range,
    subnormals and signed zeros as IEEE division gives them); L is clobbered."""
    cdef bint neg = L[nl - 1] < 0, sticky
    cdef Py_ssize_t k, h = nl - 1, tb, e_top, kb, sh
    cdef uint64_t x0, x1, x2, W, kept, rem, half
    cdef double r
    if neg:
        for k in range(nl):
            L[k] = -L[k]
        acc_norm(L, nl)
    while h >= 0 and L[h] == 0:
        h -= 1
    if h < 0:
        return 0.0
    x2 = <uint64_t>L[h]
    x1 = <uint64_t>L[h - 1] if h >= 1 else 0
    x0 = <uint64_t>L[h - 2] if h >= 2 else 0
    tb = 63 - pc_clz64(x2)
    e_top = h * 32 + tb - zero
    # the 64 binary digits below and at the top one, and a sticky bit for the rest
    W = (((x2 << 32) | x1) << (31 - tb)) | (x0 >> (tb + 1))
    sticky = (x0 & ((<uint64_t>1 << (tb + 1)) - 1)) != 0
    for k in range(h - 2):
        sticky = sticky or L[k] != 0
    kb = min(53, e_top + 1075)  # the bits float64 keeps (fewer for a subnormal)
    if e_top > 1023:
        r = INFINITY
    elif kb >= 1:
        sh = 64 - kb
        kept = W >> sh
        rem = W & ((<uint64_t>1 << sh) - 1)
        half = <uint64_t>1 << (sh - 1)
        if rem > half or (rem == half and (sticky or (kept & 1))):
            kept += 1
        r = ldexp(<double>kept, <int>(e_top - kb + 1))
    elif kb == 0:  # in [2^-1075, 2^-1074): the smallest subnormal, or 0 on a tie
        r = ldexp(1.0, -1074) if W > (<uint64_t>1 << 63) or (
            W == (<uint64_t>1 << 63) and sticky) else 0.0
    else:
        r = 0.0
    return -r if neg else r
