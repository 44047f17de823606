/* Stand-in for MSVC's <intrin.h> under gcc or clang, for tests/c/simd_paths.c built with
 * -DPC_SIMD_AS_MSVC: MSVC's spellings of what _simd.h and _popcount.h use there. */
#ifndef PC_TEST_MSVC_INTRIN_H
#define PC_TEST_MSVC_INTRIN_H
#include <immintrin.h>

#define __forceinline inline __attribute__((always_inline))
#define __declspec(what) __attribute__((what))

/* CPUID by hand, not <cpuid.h> (whose newer versions define a __cpuidex of their own) */
static inline void pc_test_cpuidex(int info[4], int leaf, int sub) {
    unsigned a, b, c, d;
    __asm__ __volatile__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(leaf), "c"(sub));
    info[0] = (int)a, info[1] = (int)b, info[2] = (int)c, info[3] = (int)d;
}
#define __cpuidex(info, leaf, sub) pc_test_cpuidex(info, leaf, sub)

static inline unsigned long long _xgetbv_msvc(unsigned int xcr) {
    unsigned lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(xcr));
    return ((unsigned long long)hi << 32) | lo;
}
#undef _xgetbv
#define _xgetbv(xcr) _xgetbv_msvc(xcr)

static inline unsigned long long __popcnt64(unsigned long long x) {
    return (unsigned long long)__builtin_popcountll(x); /* POPCNT: the file is built -mpopcnt */
}
#endif
