/* Run-time SIMD dispatch on x86-64, once for every compiler the wheels are built with.
 *
 * A SIMD path is a function compiled for more than the baseline (SSE2: the build has no -march
 * and no /arch flag, so the wheel runs on any x86-64 CPU) and called only after asking the CPU,
 * and the OS, whether they have what it uses. A header with such paths does:
 *
 *     #include "_simd.h"
 *     #ifdef PC_X86_DISPATCH
 *     PC_TARGET("avx2") static void dot_avx2(const double *x, ...) { ... _mm256_... }
 *     #endif
 *     ...
 *     #ifdef PC_X86_DISPATCH
 *     if (pc_x86_has(PC_X86_AVX2)) return dot_avx2(x, ...);
 *     #endif
 *     return dot_portable(x, ...);   (always compiled: every other CPU and compiler)
 *
 * API
 *   PC_X86_64          defined when compiling for x86-64: SSE2 intrinsics work in any function
 *                      (<immintrin.h> is included).
 *   PC_X86_DISPATCH    defined when wider paths compile here: gcc, clang on x86-64; MSVC x64;
 *                      clang-cl from clang 19 (older clang-cl's <immintrin.h> declares only
 *                      what /arch enabled). Guard each path, and each call to one, with it.
 *   PC_HAVE_AVX512     defined when the AVX-512 paths compile too (gcc 8, clang 16, MSVC 2019).
 *   PC_TARGET("...")   put before each function that uses intrinsics beyond SSE2, helpers
 *                      included: __attribute__((target("..."))) on gcc, clang and clang-cl (they
 *                      refuse to inline an intrinsic into a function without its target); nothing
 *                      on MSVC, which compiles any intrinsic in any function and emits the
 *                      instructions for those calls only. Feature names are gcc's: "popcnt",
 *                      "avx2", "avx2,popcnt", "avx512f,avx512vpopcntdq,popcnt".
 *   pc_x86_features()  the PC_X86_* bits of what this CPU has AND the OS saves the registers of
 *                      (XCR0 read by XGETBV: a CPU can have AVX2 that the OS disables); 0 where
 *                      PC_X86_64 is undefined. It runs CPUID, which traps to the hypervisor in a
 *                      VM (microseconds): ask once, at import, and keep the answer.
 *   pc_x86_has(bits)   whether every one of bits is there.
 *   PC_MSVC            defined for Microsoft's compiler (not clang-cl), for the few lines that
 *                      differ there: __forceinline, __declspec(noinline), __popcnt64.
 *
 * The bits: PC_X86_POPCNT, PC_X86_AVX (also AVX's 256-bit float operations), PC_X86_AVX2,
 * PC_X86_FMA, PC_X86_AVX512F, PC_X86_AVX512BW, PC_X86_AVX512VPOPCNTDQ, PC_X86_AVX512VL. A
 * path asks for every set its target string names (avx2 implies avx; avx512 paths ask for F
 * plus their extension).
 * FMA is for a path allowed to round differently: the twins' float contract forbids fusing
 * (the build passes -ffp-contract=off and /fp:precise), so a bit-exact path never uses it.
 *
 * A new path: PC_TARGET on it and on each helper it inlines; intrinsics only (MSVC knows no
 * vector operators, no GNU asm, no __builtin_*); the portable path kept; the same bits on every
 * path, tested by forcing each one the CPU has against the Python twin, and run through
 * tests/c/simd_paths.c, which runs the MSVC branch under gcc too.
 *
 * PC_SIMD_AS_MSVC (tests only): gcc or clang take the MSVC branches, with the whole translation
 * unit compiled for a wider target (-mavx2 ..., or -march=native to run it: MSVC's "intrinsics
 * anywhere"; the paths its flags do not cover are left out) and stand-ins for <intrin.h>;
 * tests/c/simd_paths.c runs every path that way.
 */
#ifndef PERCEPTRON_C_SIMD_H
#define PERCEPTRON_C_SIMD_H
#include <stdint.h>

#if (defined(_MSC_VER) && !defined(__clang__)) || defined(PC_SIMD_AS_MSVC)
#define PC_MSVC 1
#endif
#if defined(_MSC_VER) && !defined(__clang__)
/* No FMA contraction (gcc's -ffp-contract=off): the default under /fp:precise since Visual
 * Studio 2022, not before it; the twins agree bit for bit only with every rounding kept. */
#pragma fp_contract(off)
#endif

/* ARM64EC defines _M_X64 too, but runs x64 intrinsics only through emulation headers. */
#if defined(__x86_64__) || (defined(_M_X64) && !defined(_M_ARM64EC))
#define PC_X86_64 1
#include <immintrin.h>
#if defined(PC_SIMD_AS_MSVC) /* tests: the unit's -m flags stand for "intrinsics anywhere" */
#if defined(__AVX2__) && defined(__POPCNT__)
#define PC_X86_DISPATCH 1
#endif
#if defined(__AVX512F__) && defined(__AVX512VPOPCNTDQ__)
#define PC_HAVE_AVX512 1
#endif
#elif defined(PC_MSVC)
#define PC_X86_DISPATCH 1
#if _MSC_VER >= 1920
#define PC_HAVE_AVX512 1
#endif
#elif defined(__clang__) && (!defined(_MSC_VER) || __clang_major__ >= 19)
#define PC_X86_DISPATCH 1
#if __clang_major__ >= 16
#define PC_HAVE_AVX512 1
#endif
#elif defined(__GNUC__)
#define PC_X86_DISPATCH 1
#if __GNUC__ >= 8
#define PC_HAVE_AVX512 1
#endif
#endif
#endif

#if defined(PC_MSVC)
#define PC_TARGET(features)
#define PC_SIMD_API static __inline
#else
#define PC_TARGET(features) __attribute__((target(features)))
#define PC_SIMD_API static inline /* inline: no unused-function warnings */
#endif

enum {
    PC_X86_POPCNT = 1 << 0,
    PC_X86_AVX = 1 << 1,
    PC_X86_AVX2 = 1 << 2,
    PC_X86_FMA = 1 << 3,
    PC_X86_AVX512F = 1 << 4,
    PC_X86_AVX512BW = 1 << 5,
    PC_X86_AVX512VPOPCNTDQ = 1 << 6,
    PC_X86_AVX512VL = 1 << 7
};

#ifdef PC_X86_64
#if defined(_MSC_VER) || defined(PC_SIMD_AS_MSVC) /* MSVC and clang-cl: the MSVC intrinsics */
#include <intrin.h>
PC_SIMD_API void pc_x86_cpuid(int leaf, int sub, uint32_t r[4]) {
    int v[4];
    __cpuidex(v, leaf, sub);
    r[0] = (uint32_t)v[0], r[1] = (uint32_t)v[1], r[2] = (uint32_t)v[2], r[3] = (uint32_t)v[3];
}
PC_SIMD_API uint64_t pc_x86_xcr0(void) { return (uint64_t)_xgetbv(0); }
#else
#include <cpuid.h>
PC_SIMD_API void pc_x86_cpuid(int leaf, int sub, uint32_t r[4]) {
    unsigned a, b, c, d;
    __cpuid_count((unsigned)leaf, (unsigned)sub, a, b, c, d);
    r[0] = a, r[1] = b, r[2] = c, r[3] = d;
}
/* XGETBV by hand (gcc's _xgetbv needs target("xsave") in the caller), as bytes: older macOS
 * assemblers do not know the mnemonic */
PC_SIMD_API uint64_t pc_x86_xcr0(void) {
    uint32_t lo, hi;
    __asm__ __volatile__(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}
#endif
#endif /* PC_X86_64 */

/* CPUID leaf 1 ECX: POPCNT 23, FMA 12, AVX 28, OSXSAVE 27 (the OS uses XSAVE, so XGETBV
 * works); leaf 7 (subleaf 0) EBX: AVX2 5, AVX512F 16, AVX512BW 30, AVX512VL 31; ECX:
 * VPOPCNTDQ 14. XCR0:
 * SSE (1) and YMM (2) state saved for AVX; opmask, ZMM 0-15 upper halves and ZMM 16-31 (5-7)
 * for AVX-512 (Intel SDM vol. 1, 13.3), except on macOS (as in compiler-rt's cpu_model). */
PC_SIMD_API int pc_x86_features(void) {
    int f = 0;
#ifdef PC_X86_64
    uint32_t r[4], max_leaf;
    int ymm = 0, zmm = 0;
    pc_x86_cpuid(0, 0, r);
    max_leaf = r[0];
    pc_x86_cpuid(1, 0, r);
    if ((r[2] >> 23) & 1) f |= PC_X86_POPCNT;
    if ((r[2] >> 27) & 1) {
        uint64_t xcr0 = pc_x86_xcr0();
        ymm = (xcr0 & 0x6) == 0x6;
#ifdef __APPLE__
        zmm = ymm; /* macOS enables the AVX-512 state on first use: XCR0 shows it later */
#else
        zmm = ymm && (xcr0 & 0xe0) == 0xe0;
#endif
    }
    if (ymm && ((r[2] >> 28) & 1)) f |= PC_X86_AVX;
    if ((f & PC_X86_AVX) && ((r[2] >> 12) & 1)) f |= PC_X86_FMA;
    if (max_leaf >= 7) {
        pc_x86_cpuid(7, 0, r);
        if ((f & PC_X86_AVX) && ((r[1] >> 5) & 1)) f |= PC_X86_AVX2;
        if (zmm && ((r[1] >> 16) & 1)) {
            f |= PC_X86_AVX512F;
            if ((r[1] >> 30) & 1) f |= PC_X86_AVX512BW;
            if ((r[1] >> 31) & 1) f |= PC_X86_AVX512VL;
            if ((r[2] >> 14) & 1) f |= PC_X86_AVX512VPOPCNTDQ;
        }
    }
#endif
    return f;
}

PC_SIMD_API int pc_x86_has(int bits) { return (pc_x86_features() & bits) == bits; }

#endif /* PERCEPTRON_C_SIMD_H */
