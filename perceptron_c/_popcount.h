/* Gram of popcounts: out[i, j] = popcount(A_i AND B_j) over packed uint64 words.
 *
 * Portable path: the compiler's popcount builtin (no -mpopcnt, no -march=native: the wheel
 * must run on any CPU of its platform). On x86-64 with gcc/clang, wider paths are compiled
 * with per-function target attributes and picked AT RUN TIME after a CPU check:
 *   PC_IMPL_POPCNT  hardware POPCNT,                         target("popcnt")
 *   PC_IMPL_AVX2    Mula/Kurz/Lemire nibble lookup (2018),   target("avx2")
 *   PC_IMPL_AVX512  AVX-512 VPOPCNTDQ,                       target("avx512f,avx512vpopcntdq")
 * Blocking (GEMM style): a tile of B rows x KC words stays in L2 while 4-row blocks of A
 * stream past it; the 4x4 micro-kernel keeps its 16 sums in registers. out is accumulated
 * over word tiles, so it is zeroed first. Integer sums: every path gives the same result.
 */
#ifndef PERCEPTRON_C_POPCOUNT_H
#define PERCEPTRON_C_POPCOUNT_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { PC_IMPL_BUILTIN = 0, PC_IMPL_POPCNT = 1, PC_IMPL_AVX2 = 2, PC_IMPL_AVX512 = 3 };

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#if defined(_M_X64)
/* Every x86-64 CPU Windows 10+ runs on has POPCNT. */
#define PC_POPCOUNT64(x) ((int)__popcnt64(x))
#else
static __inline int pc_swar_popcount64(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
#define PC_POPCOUNT64(x) pc_swar_popcount64(x)
#endif
#define PC_INLINE static __forceinline
#else
#define PC_POPCOUNT64(x) __builtin_popcountll(x)
#define PC_INLINE static inline __attribute__((always_inline))
#endif

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define PC_X86_DISPATCH 1
#include <immintrin.h>
#if (defined(__clang__) && __clang_major__ >= 16) || (!defined(__clang__) && __GNUC__ >= 8)
#define PC_HAVE_AVX512 1
#endif
#endif

/* Rows of B per L2 tile are chosen so the tile holds about PC_L2_BYTES; KC words per row. */
#define PC_KC 256
#define PC_L2_BYTES (128 * 1024)

/* ---- portable scalar kernels; inlined into each target so the builtin becomes POPCNT there */
PC_INLINE int64_t pc_pair_scalar(const uint64_t *a, const uint64_t *b, ptrdiff_t kc) {
    int64_t s = 0;
    for (ptrdiff_t k = 0; k < kc; k++) s += PC_POPCOUNT64(a[k] & b[k]);
    return s;
}

PC_INLINE void pc_micro_scalar(const uint64_t *a, const uint64_t *b, ptrdiff_t ld, ptrdiff_t kc,
                               int64_t *out, ptrdiff_t ldo) {
    int64_t s[4][4] = {{0}};
    for (ptrdiff_t k = 0; k < kc; k++) {
        uint64_t a0 = a[k], a1 = a[ld + k], a2 = a[2 * ld + k], a3 = a[3 * ld + k];
        uint64_t b0 = b[k], b1 = b[ld + k], b2 = b[2 * ld + k], b3 = b[3 * ld + k];
        s[0][0] += PC_POPCOUNT64(a0 & b0); s[0][1] += PC_POPCOUNT64(a0 & b1);
        s[0][2] += PC_POPCOUNT64(a0 & b2); s[0][3] += PC_POPCOUNT64(a0 & b3);
        s[1][0] += PC_POPCOUNT64(a1 & b0); s[1][1] += PC_POPCOUNT64(a1 & b1);
        s[1][2] += PC_POPCOUNT64(a1 & b2); s[1][3] += PC_POPCOUNT64(a1 & b3);
        s[2][0] += PC_POPCOUNT64(a2 & b0); s[2][1] += PC_POPCOUNT64(a2 & b1);
        s[2][2] += PC_POPCOUNT64(a2 & b2); s[2][3] += PC_POPCOUNT64(a2 & b3);
        s[3][0] += PC_POPCOUNT64(a3 & b0); s[3][1] += PC_POPCOUNT64(a3 & b1);
        s[3][2] += PC_POPCOUNT64(a3 & b2); s[3][3] += PC_POPCOUNT64(a3 & b3);
    }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) out[r * ldo + c] += s[r][c];
}

/* The blocked loop nest, shared by every path (MICRO: 4x4 block, PAIR: edge rows). */
#define PC_GRAM_DRIVER(MICRO, PAIR)                                                        \
    ptrdiff_t tb = PC_L2_BYTES / (8 * (nw < PC_KC ? (nw > 0 ? nw : 1) : PC_KC));           \
    tb = tb < 4 ? 4 : tb & ~(ptrdiff_t)3;                                                  \
    memset(out, 0, sizeof(int64_t) * (size_t)na * (size_t)nb);                             \
    for (ptrdiff_t j0 = 0; j0 < nb; j0 += tb) {                                            \
        ptrdiff_t j1 = j0 + tb < nb ? j0 + tb : nb;                                        \
        ptrdiff_t j4 = j0 + ((j1 - j0) & ~(ptrdiff_t)3);                                   \
        for (ptrdiff_t k0 = 0; k0 < nw; k0 += PC_KC) {                                     \
            ptrdiff_t kc = nw - k0 < PC_KC ? nw - k0 : PC_KC;                              \
            ptrdiff_t i = 0;                                                               \
            for (; i + 4 <= na; i += 4) {                                                  \
                const uint64_t *a = A + i * nw + k0;                                       \
                for (ptrdiff_t j = j0; j < j4; j += 4)                                     \
                    MICRO(a, B + j * nw + k0, nw, kc, out + i * nb + j, nb);               \
                for (ptrdiff_t j = j4; j < j1; j++)                                        \
                    for (ptrdiff_t r = 0; r < 4; r++)                                      \
                        out[(i + r) * nb + j] += PAIR(a + r * nw, B + j * nw + k0, kc);    \
            }                                                                              \
            for (; i < na; i++)                                                            \
                for (ptrdiff_t j = j0; j < j1; j++)                                        \
                    out[i * nb + j] += PAIR(A + i * nw + k0, B + j * nw + k0, kc);         \
        }                                                                                  \
    }

static void pc_gram_builtin(const uint64_t *A, ptrdiff_t na, const uint64_t *B, ptrdiff_t nb,
                            ptrdiff_t nw, int64_t *out) {
    PC_GRAM_DRIVER(pc_micro_scalar, pc_pair_scalar)
}

#ifdef PC_X86_DISPATCH
__attribute__((target("popcnt")))
static void pc_gram_popcnt(const uint64_t *A, ptrdiff_t na, const uint64_t *B, ptrdiff_t nb,
                           ptrdiff_t nw, int64_t *out) {
    PC_GRAM_DRIVER(pc_micro_scalar, pc_pair_scalar)
}

/* ---- AVX2: Mula, Kurz, Lemire (2018), nibble lookup with vpshufb, bytes summed by vpsadbw */
__attribute__((target("avx2,popcnt"))) static inline __m256i pc_bytecount256(__m256i v) {
    const __m256i lookup = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0f);
    __m256i lo = _mm256_and_si256(v, low);
    __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
    return _mm256_add_epi8(_mm256_shuffle_epi8(lookup, lo), _mm256_shuffle_epi8(lookup, hi));
}

__attribute__((target("avx2,popcnt"))) static inline int64_t pc_hsum256(__m256i v) {
    __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return _mm_cvtsi128_si64(s) + _mm_extract_epi64(s, 1);
}

/* 2x4 block: 8 byte counters (flushed to 64-bit lanes every 31 words of 4: 31*8 < 256). */
__attribute__((target("avx2,popcnt"))) static inline void pc_micro_avx2(
        const uint64_t *a, const uint64_t *b, ptrdiff_t ld, ptrdiff_t kc, int64_t *out,
        ptrdiff_t ldo) {
    for (int half = 0; half < 2; half++) {
        const uint64_t *ah = a + 2 * half * ld;
        __m256i t[2][4], zero = _mm256_setzero_si256();
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 4; c++) t[r][c] = zero;
        ptrdiff_t k = 0;
        while (k + 4 <= kc) {
            ptrdiff_t stop = k + 4 * 31 < kc ? k + 4 * 31 : kc;
            __m256i s[2][4];
            for (int r = 0; r < 2; r++)
                for (int c = 0; c < 4; c++) s[r][c] = zero;
            for (; k + 4 <= stop; k += 4) {
                __m256i a0 = _mm256_loadu_si256((const __m256i *)(ah + k));
                __m256i a1 = _mm256_loadu_si256((const __m256i *)(ah + ld + k));
                for (int c = 0; c < 4; c++) {
                    __m256i bc = _mm256_loadu_si256((const __m256i *)(b + c * ld + k));
                    s[0][c] = _mm256_add_epi8(s[0][c], pc_bytecount256(_mm256_and_si256(a0, bc)));
                    s[1][c] = _mm256_add_epi8(s[1][c], pc_bytecount256(_mm256_and_si256(a1, bc)));
                }
            }
            for (int r = 0; r < 2; r++)
                for (int c = 0; c < 4; c++)
                    t[r][c] = _mm256_add_epi64(t[r][c], _mm256_sad_epu8(s[r][c], zero));
        }
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 4; c++) {
                int64_t v = pc_hsum256(t[r][c]);
                v += pc_pair_scalar(ah + r * ld + k, b + c * ld + k, kc - k);
                out[(2 * half + r) * ldo + c] += v;
            }
    }
}

__attribute__((target("avx2,popcnt")))
static void pc_gram_avx2(const uint64_t *A, ptrdiff_t na, const uint64_t *B, ptrdiff_t nb,
                         ptrdiff_t nw, int64_t *out) {
    PC_GRAM_DRIVER(pc_micro_avx2, pc_pair_scalar)
}

#ifdef PC_HAVE_AVX512
/* ---- AVX-512 VPOPCNTDQ: one vpopcntq per 8 words; masked loads take the word tail. */
#define PC_T512 __attribute__((target("avx512f,avx512vpopcntdq,popcnt")))
PC_T512 static inline int64_t pc_pair_avx512(const uint64_t *a, const uint64_t *b,
                                             ptrdiff_t kc) {
    __m512i s = _mm512_setzero_si512();
    ptrdiff_t k = 0;
    for (; k + 8 <= kc; k += 8)
        s = _mm512_add_epi64(s, _mm512_popcnt_epi64(_mm512_and_si512(
                _mm512_loadu_si512((const void *)(a + k)),
                _mm512_loadu_si512((const void *)(b + k)))));
    if (k < kc) {
        __mmask8 m = (__mmask8)((1u << (kc - k)) - 1u);
        s = _mm512_add_epi64(s, _mm512_popcnt_epi64(_mm512_and_si512(
                _mm512_maskz_loadu_epi64(m, a + k), _mm512_maskz_loadu_epi64(m, b + k))));
    }
    return _mm512_reduce_add_epi64(s);
}

PC_T512 static inline void pc_micro_avx512(const uint64_t *a, const uint64_t *b, ptrdiff_t ld,
                                           ptrdiff_t kc, int64_t *out, ptrdiff_t ldo) {
    __m512i s[4][4];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) s[r][c] = _mm512_setzero_si512();
    ptrdiff_t k = 0;
    for (; k < kc; k += 8) {
        __mmask8 m = kc - k >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (kc - k)) - 1u);
        __m512i av[4], bv[4];
        for (int r = 0; r < 4; r++) av[r] = _mm512_maskz_loadu_epi64(m, a + r * ld + k);
        for (int c = 0; c < 4; c++) bv[c] = _mm512_maskz_loadu_epi64(m, b + c * ld + k);
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 4; c++)
                s[r][c] = _mm512_add_epi64(s[r][c],
                                           _mm512_popcnt_epi64(_mm512_and_si512(av[r], bv[c])));
    }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) out[r * ldo + c] += _mm512_reduce_add_epi64(s[r][c]);
}

PC_T512 static void pc_gram_avx512(const uint64_t *A, ptrdiff_t na, const uint64_t *B,
                                   ptrdiff_t nb, ptrdiff_t nw, int64_t *out) {
    PC_GRAM_DRIVER(pc_micro_avx512, pc_pair_avx512)
}
#endif /* PC_HAVE_AVX512 */
#endif /* PC_X86_DISPATCH */

/* Is path `impl` compiled in and supported by this CPU (and OS, for the vector state)? */
static int pc_impl_available(int impl) {
    if (impl == PC_IMPL_BUILTIN) return 1;
#ifdef PC_X86_DISPATCH
    __builtin_cpu_init();
    if (impl == PC_IMPL_POPCNT) return __builtin_cpu_supports("popcnt") != 0;
    if (impl == PC_IMPL_AVX2)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
#ifdef PC_HAVE_AVX512
    if (impl == PC_IMPL_AVX512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq") &&
               __builtin_cpu_supports("popcnt");
#endif
#endif
    return 0;
}

static int pc_best_impl(void) {
    int impl;
    for (impl = PC_IMPL_AVX512; impl > PC_IMPL_BUILTIN; impl--)
        if (pc_impl_available(impl)) return impl;
    return PC_IMPL_BUILTIN;
}

static void pc_gram_popcount(int impl, const uint64_t *A, ptrdiff_t na, const uint64_t *B,
                             ptrdiff_t nb, ptrdiff_t nw, int64_t *out) {
#ifdef PC_X86_DISPATCH
    /* Under 4 words a row, vector loads are mostly padding: hardware POPCNT is faster. */
    if (impl >= PC_IMPL_AVX2 && nw < 4) impl = PC_IMPL_POPCNT;
    if (impl == PC_IMPL_POPCNT) { pc_gram_popcnt(A, na, B, nb, nw, out); return; }
    if (impl == PC_IMPL_AVX2) { pc_gram_avx2(A, na, B, nb, nw, out); return; }
#ifdef PC_HAVE_AVX512
    if (impl == PC_IMPL_AVX512) { pc_gram_avx512(A, na, B, nb, nw, out); return; }
#endif
#endif
    (void)impl;
    pc_gram_builtin(A, na, B, nb, nw, out);
}
#endif /* PERCEPTRON_C_POPCOUNT_H */
