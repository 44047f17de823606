/* Float Gram products without BLAS: out[i, j] = dot4(x_i, y_j), the package's 4-lane dot
 * (_linear_py's contract): element k of a pair of rows goes to lane k % 4, each lane sums its
 * products in the order of k, and the dot is (s0 + s1) + (s2 + s3); each product is rounded,
 * then added, never fused (-ffp-contract=off). _gram_py._dot4_products is the specification.
 *
 * Why not BLAS: the same product rounds differently on 1 and on 2 BLAS threads and on each of
 * OpenBLAS's kernels (Haswell, SkylakeX, Nehalem...), so a Gram from BLAS depends on the
 * machine and on its thread settings. Here every entry is one fixed sequence of IEEE
 * operations, whatever the path, the blocking or the thread that computes it.
 *
 * A vector register holds the four lanes of one pair (AVX2) or two of them (SSE2, NEON): the
 * lanes never mix, so every path computes the same operations on the same values, the
 * same bits. Register tiles of R rows of X by C rows of Y load each x and y vector once for
 * R or C pairs.
 *
 * Two loop nests around the tiles give the same bits (each pair's lane sums are the same
 * operations in the same order; only when each pair is visited changes):
 * - packed (a block of PC_DOT_PACK_MIN_ROWS rows of X or more): as BLAS kernels are driven.
 *   k goes in blocks of PC_DOT_KC; the rows of Y in panels of PC_DOT_NC, each panel's k-block
 *   packed once (tile by tile, zero rows past the end) and kept in L2 while every strip of
 *   rows of X, packed the same way, goes past it; a tile's two slices stay in L1. A pair's
 *   four lane sums are carried from one k-block to the next (stored in S, loaded again), and
 *   the last k-block finishes them: the tail of d past a multiple of 4, then the sum. The
 *   zero rows make every tile whole (no scalar edge path); their pairs are never stored.
 *   Tiles: AVX-512 4 x 6, AVX2 4 x 3, SSE2 2 x 2, NEON 2 x 4 (why: the AVX2 tile's comment).
 * - unpacked (fewer rows, or no memory for the packs): the rows of Y go through in panels of
 *   about PC_DOT_PANEL_BYTES while the rows of X stream past them; AVX2 3 x 4 tiles.
 * Paths: 0 portable (plain C, unpacked), 1 SSE2 (every x86-64) or NEON (every aarch64), 2
 * AVX2, 3 AVX-512 (AVX2's operations on AVX-512VL's 32 registers: larger tiles; unpacked, it
 * is AVX2's loop); 2 and 3 chosen at run time after a CPU check (_simd.h, which MSVC
 * compiles too). */
#ifndef PERCEPTRON_C_DOT_H
#define PERCEPTRON_C_DOT_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_simd.h"

#define PC_DOT_PANEL_BYTES (128 * 1024)
#define PC_DOT_KC 256            /* k per block of the packed path (a multiple of 4) */
#define PC_DOT_NC 128            /* rows of Y per packed panel: NC x KC doubles, 256 KB */
#define PC_DOT_PACK_MIN_ROWS 16  /* fewer rows of X: the unpacked loop */

/* Inlined into each path's own code: an AVX2 function calling plain SSE code with the upper
 * halves of its registers in use pays a state transition per call (measured: 30x slower). */
#if defined(PC_MSVC)
#define PC_DOT_INLINE static __forceinline
#else
#define PC_DOT_INLINE static inline __attribute__((always_inline))
#endif

/* The contract, scalar: the reference for every tail and for the portable path. */
PC_DOT_INLINE double pc_dot4(const double *a, const double *b, ptrdiff_t d) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    ptrdiff_t k = 0;
    for (; k + 4 <= d; k += 4) {
        s0 += a[k] * b[k];
        s1 += a[k + 1] * b[k + 1];
        s2 += a[k + 2] * b[k + 2];
        s3 += a[k + 3] * b[k + 3];
    }
    if (k < d) s0 += a[k] * b[k];
    if (k + 1 < d) s1 += a[k + 1] * b[k + 1];
    if (k + 2 < d) s2 += a[k + 2] * b[k + 2];
    return (s0 + s1) + (s2 + s3);
}

/* A pair's lane sums s[4] over k < d4 (a multiple of 4), finished: the tail, then the sum. */
PC_DOT_INLINE double pc_dot4_finish(double *s, const double *a, const double *b, ptrdiff_t d4,
                                    ptrdiff_t d) {
    if (d4 < d) s[0] += a[d4] * b[d4];
    if (d4 + 1 < d) s[1] += a[d4 + 1] * b[d4 + 1];
    if (d4 + 2 < d) s[2] += a[d4 + 2] * b[d4 + 2];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

/* The columns of a panel of Y: about PC_DOT_PANEL_BYTES of rows, a multiple of c (>= c). */
PC_DOT_INLINE ptrdiff_t pc_dot_panel(ptrdiff_t d, ptrdiff_t c) {
    ptrdiff_t cols = PC_DOT_PANEL_BYTES / (8 * (d > 0 ? d : 1));
    cols -= cols % c;
    return cols < c ? c : cols;
}

/* The loop around a path's tiles: TILE(r, c) names its r x c tile function, r in {RT, 1},
 * c in {CT, 1}; a tile computes out[0..r, 0..c] (row stride ldo) of rows X, Y (stride d). */
#define PC_DOT_DRIVER(NAME, ATTR, RT, CT, TILE)                                               \
    ATTR static void pc_gram_dot_##NAME(const double *X, ptrdiff_t m, const double *Y,        \
                                        ptrdiff_t n, ptrdiff_t d, double *out,              \
                                        ptrdiff_t ldo) {                                    \
        ptrdiff_t jb = pc_dot_panel(d, CT), j0, j1, i, j;                                    \
        for (j0 = 0; j0 < n; j0 = j1) {                                                       \
            j1 = j0 + jb < n ? j0 + jb : n;                                                   \
            for (i = 0; i + RT <= m; i += RT) {                                               \
                for (j = j0; j + CT <= j1; j += CT)                                           \
                    TILE(RT, CT)(X + i * d, Y + j * d, d, out + i * ldo + j, ldo);            \
                for (; j < j1; j++) TILE(RT, 1)(X + i * d, Y + j * d, d, out + i * ldo + j, ldo); \
            }                                                                                 \
            for (; i < m; i++) {                                                              \
                for (j = j0; j + CT <= j1; j += CT)                                           \
                    TILE(1, CT)(X + i * d, Y + j * d, d, out + i * ldo + j, ldo);             \
                for (; j < j1; j++) out[i * ldo + j] = pc_dot4(X + i * d, Y + j * d, d);      \
            }                                                                                 \
        }                                                                                     \
    }

/* Rows [0, rows) of R (row stride d), elements [k0, k0 + kc) (kc a multiple of 4), packed in
 * groups of G rows: P[g][k / 4][r][4], the rows past the end of the last group zero. */
PC_DOT_INLINE void pc_dot_pack(const double *R, ptrdiff_t rows, ptrdiff_t d, ptrdiff_t k0,
                               ptrdiff_t kc, int G, double *P) {
    ptrdiff_t g, k;
    int r;
    for (g = 0; g * G < rows; g++, P += kc * G)
        for (r = 0; r < G; r++) {
            const double *src = R + (g * G + r) * d + k0;
            double *dst = P + r * 4;
            if (g * G + r < rows)
                for (k = 0; k < kc; k += 4, dst += 4 * G) memcpy(dst, src + k, 4 * sizeof(double));
            else
                for (k = 0; k < kc; k += 4, dst += 4 * G) memset(dst, 0, 4 * sizeof(double));
        }
}

/* Scratch for n doubles on a 64-byte boundary (a pack's vectors then never straddle a cache
 * line: measured, unaligned packs cost a quarter of the speed); free(*raw) releases it. */
PC_DOT_INLINE double *pc_dot_scratch(size_t n, void **raw) {
    char *p = (char *)malloc(n * sizeof(double) + 64);
    *raw = p;
    return p ? (double *)(p + 64 - ((uintptr_t)p & 63)) : NULL;
}

/* Where a tile of the last k-block puts its finished dots: its first rows of X and Y
 * (unpacked, for the tail past d4), the output, and how many of its pairs are real. */
typedef struct {
    const double *X, *Y;
    ptrdiff_t d, d4, ldo;
    double *out;
    int rows, cols;
} pc_dot_fin;

/* A pair's lane sums s[4] finished into the output, when the pair is real. */
PC_DOT_INLINE void pc_dot_store(const pc_dot_fin *f, int r, int c, double *s) {
    if (r < f->rows && c < f->cols)
        f->out[r * f->ldo + c] = pc_dot4_finish(s, f->X + r * f->d, f->Y + c * f->d, f->d4, f->d);
}

/* The packed loop nest: TILE(MR, NR)(Ap, Bp, k4s, S, ldS, first, fin) runs k4s steps of 4 on
 * packed slices, from zero (first) or from its sums in S (pair (r, c) at S[(r ldS + c) 4]),
 * and then finishes them (fin) or stores them back in S (S is NULL when d4 fits one
 * k-block). Returns 0, having computed nothing, when d < 4 or the packs cannot be
 * allocated. */
#define PC_DOT_PACKED(NAME, ATTR, MR, NR, TILE)                                               \
    ATTR static int pc_gram_packed_##NAME(const double *X, ptrdiff_t m, const double *Y,      \
                                          ptrdiff_t n, ptrdiff_t d, double *out,            \
                                          ptrdiff_t ldo) {                                  \
        ptrdiff_t d4 = d - d % 4, kb = d4 < PC_DOT_KC ? d4 : PC_DOT_KC;                      \
        ptrdiff_t np = ((n < PC_DOT_NC ? n : PC_DOT_NC) + NR - 1) / NR * NR;                 \
        ptrdiff_t mp = (m + MR - 1) / MR * MR, jc, k0, i, j;                                 \
        void *rawA = NULL, *rawB = NULL, *rawS = NULL;                                        \
        double *Ap = d4 ? pc_dot_scratch((size_t)(MR * kb), &rawA) : NULL;                   \
        double *Bp = d4 ? pc_dot_scratch((size_t)(np * kb), &rawB) : NULL;                   \
        double *S = d4 > PC_DOT_KC ? pc_dot_scratch((size_t)(4 * mp * np), &rawS) : NULL;    \
        pc_dot_fin fin;                                                                      \
        if (!Ap || !Bp || (d4 > PC_DOT_KC && !S)) {                                          \
            free(rawA), free(rawB), free(rawS);                                              \
            return 0;                                                                        \
        }                                                                                    \
        fin.d = d, fin.d4 = d4, fin.ldo = ldo;                                               \
        for (jc = 0; jc < n; jc += PC_DOT_NC) {                                              \
            ptrdiff_t nc = n - jc < PC_DOT_NC ? n - jc : PC_DOT_NC;                          \
            for (k0 = 0; k0 < d4; k0 += PC_DOT_KC) {                                         \
                ptrdiff_t kc = d4 - k0 < PC_DOT_KC ? d4 - k0 : PC_DOT_KC;                    \
                pc_dot_pack(Y + jc * d, nc, d, k0, kc, NR, Bp);                              \
                for (i = 0; i < m; i += MR) {                                                \
                    pc_dot_pack(X + i * d, m - i < MR ? m - i : MR, d, k0, kc, MR, Ap);      \
                    fin.X = X + i * d, fin.rows = (int)(m - i < MR ? m - i : MR);            \
                    for (j = 0; j < nc; j += NR) {                                           \
                        fin.Y = Y + (jc + j) * d, fin.out = out + i * ldo + jc + j;          \
                        fin.cols = (int)(nc - j < NR ? nc - j : NR);                         \
                        TILE(MR, NR)(Ap, Bp + j * kc, kc / 4, S ? S + 4 * (i * np + j) : S,  \
                                     np, k0 == 0, k0 + kc == d4 ? &fin : NULL);              \
                    }                                                                        \
                }                                                                            \
            }                                                                                \
        }                                                                                    \
        free(rawA), free(rawB), free(rawS);                                                  \
        return 1;                                                                            \
    }

/* ---- portable: plain C, lanes as arrays (a compiler may vectorize them; the order stays) */
#define PC_DOT_TILE_C(R, C)                                                                   \
    static void pc_dot_tile_c_##R##x##C(const double *X, const double *Y, ptrdiff_t d,        \
                                        double *out, ptrdiff_t ldo) {                         \
        double s[R][C][4] = {{{0.0}}};                                                        \
        ptrdiff_t d4 = d - d % 4, k;                                                          \
        int r, c, l;                                                                          \
        for (k = 0; k < d4; k += 4)                                                           \
            for (r = 0; r < R; r++)                                                           \
                for (c = 0; c < C; c++)                                                       \
                    for (l = 0; l < 4; l++) s[r][c][l] += X[r * d + k + l] * Y[c * d + k + l]; \
        for (r = 0; r < R; r++)                                                               \
            for (c = 0; c < C; c++)                                                           \
                out[r * ldo + c] = pc_dot4_finish(s[r][c], X + r * d, Y + c * d, d4, d);     \
    }
PC_DOT_TILE_C(2, 2)
PC_DOT_TILE_C(2, 1)
PC_DOT_TILE_C(1, 2)
#define PC_DOT_TILE_NAME_C(R, C) pc_dot_tile_c_##R##x##C
PC_DOT_DRIVER(portable, , 2, 2, PC_DOT_TILE_NAME_C)

#if defined(PC_X86_64)
#define PC_DOT_X86 1 /* SSE2: every x86-64 CPU, no target attribute needed */
#ifdef PC_X86_DISPATCH
#define PC_DOT_AVX2 1 /* AVX2: PC_TARGET("avx2"), used after a CPU check */
#define PC_DOT_AVX2_ATTR PC_TARGET("avx2")
#endif

/* SSE2: a pair's lanes in two registers, (s0, s1) and (s2, s3). */
#define PC_DOT_TILE_SSE2(R, C)                                                                \
    static void pc_dot_tile_sse2_##R##x##C(const double *X, const double *Y, ptrdiff_t d,     \
                                           double *out, ptrdiff_t ldo) {                      \
        __m128d lo[R][C], hi[R][C], xl[R], xh[R], yl, yh;                                     \
        double s[4];                                                                          \
        ptrdiff_t d4 = d - d % 4, k;                                                          \
        int r, c;                                                                             \
        for (r = 0; r < R; r++)                                                               \
            for (c = 0; c < C; c++) lo[r][c] = hi[r][c] = _mm_setzero_pd();                   \
        for (k = 0; k < d4; k += 4) {                                                         \
            for (r = 0; r < R; r++) {                                                         \
                xl[r] = _mm_loadu_pd(X + r * d + k);                                          \
                xh[r] = _mm_loadu_pd(X + r * d + k + 2);                                      \
            }                                                                                 \
            for (c = 0; c < C; c++) {                                                         \
                yl = _mm_loadu_pd(Y + c * d + k);                                             \
                yh = _mm_loadu_pd(Y + c * d + k + 2);                                         \
                for (r = 0; r < R; r++) {                                                     \
                    lo[r][c] = _mm_add_pd(lo[r][c], _mm_mul_pd(xl[r], yl));                   \
                    hi[r][c] = _mm_add_pd(hi[r][c], _mm_mul_pd(xh[r], yh));                   \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
        for (r = 0; r < R; r++)                                                               \
            for (c = 0; c < C; c++) {                                                         \
                _mm_storeu_pd(s, lo[r][c]);                                                   \
                _mm_storeu_pd(s + 2, hi[r][c]);                                               \
                out[r * ldo + c] = pc_dot4_finish(s, X + r * d, Y + c * d, d4, d);           \
            }                                                                                 \
    }
PC_DOT_TILE_SSE2(2, 2)
PC_DOT_TILE_SSE2(2, 1)
PC_DOT_TILE_SSE2(1, 2)
#define PC_DOT_TILE_NAME_SSE2(R, C) pc_dot_tile_sse2_##R##x##C
PC_DOT_DRIVER(simd, , 2, 2, PC_DOT_TILE_NAME_SSE2)

/* SSE2, packed: as above, on packed slices. */
#define PC_DOT_PTILE_SSE2(R, C)                                                               \
    static void pc_dot_ptile_sse2_##R##x##C(const double *Ap, const double *Bp, ptrdiff_t k4s, \
                                            double *S, ptrdiff_t ldS, int first,             \
                                            const pc_dot_fin *fin) {                         \
        __m128d lo[R][C], hi[R][C], xl[R], xh[R], yl, yh;                                     \
        double s[4];                                                                          \
        ptrdiff_t k;                                                                          \
        int r, c;                                                                             \
        for (r = 0; r < R; r++)                                                               \
            for (c = 0; c < C; c++) {                                                         \
                lo[r][c] = first ? _mm_setzero_pd() : _mm_loadu_pd(S + (r * ldS + c) * 4);   \
                hi[r][c] = first ? _mm_setzero_pd() : _mm_loadu_pd(S + (r * ldS + c) * 4 + 2); \
            }                                                                                 \
        for (k = 0; k < k4s; k++, Ap += 4 * R, Bp += 4 * C) {                                 \
            for (r = 0; r < R; r++) {                                                         \
                xl[r] = _mm_loadu_pd(Ap + 4 * r);                                             \
                xh[r] = _mm_loadu_pd(Ap + 4 * r + 2);                                         \
            }                                                                                 \
            for (c = 0; c < C; c++) {                                                         \
                yl = _mm_loadu_pd(Bp + 4 * c);                                                \
                yh = _mm_loadu_pd(Bp + 4 * c + 2);                                            \
                for (r = 0; r < R; r++) {                                                     \
                    lo[r][c] = _mm_add_pd(lo[r][c], _mm_mul_pd(xl[r], yl));                   \
                    hi[r][c] = _mm_add_pd(hi[r][c], _mm_mul_pd(xh[r], yh));                   \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
        for (r = 0; r < R; r++)                                                               \
            for (c = 0; c < C; c++) {                                                         \
                double *to = fin ? s : S + (r * ldS + c) * 4;                                 \
                _mm_storeu_pd(to, lo[r][c]);                                                  \
                _mm_storeu_pd(to + 2, hi[r][c]);                                              \
                if (fin) pc_dot_store(fin, r, c, s);                                          \
            }                                                                                 \
    }
PC_DOT_PTILE_SSE2(2, 2)
#define PC_DOT_PTILE_NAME_SSE2(R, C) pc_dot_ptile_sse2_##R##x##C
PC_DOT_PACKED(simd, , 2, 2, PC_DOT_PTILE_NAME_SSE2)

#ifdef PC_DOT_AVX2
/* AVX2: a pair's four lanes in one register. */
#define PC_DOT_TILE_AVX2(R, C)                                                                \
    PC_DOT_AVX2_ATTR static void pc_dot_tile_avx2_##R##x##C(                                  \
        const double *X, const double *Y, ptrdiff_t d, double *out, ptrdiff_t ldo) {          \
        __m256d acc[R][C], x[R], y;                                                           \
        double s[4];                                                                          \
        ptrdiff_t d4 = d - d % 4, k;                                                          \
        int r, c;                                                                             \
        for (r = 0; r < R; r++)                                                               \
            for (c = 0; c < C; c++) acc[r][c] = _mm256_setzero_pd();                          \
        for (k = 0; k < d4; k += 4) {                                                         \
            for (r = 0; r < R; r++) x[r] = _mm256_loadu_pd(X + r * d + k);                    \
            for (c = 0; c < C; c++) {                                                         \
                y = _mm256_loadu_pd(Y + c * d + k);                                           \
                for (r = 0; r < R; r++)                                                       \
                    acc[r][c] = _mm256_add_pd(acc[r][c], _mm256_mul_pd(x[r], y));             \
            }                                                                                 \
        }                                                                                     \
        for (r = 0; r < R; r++)                                                               \
            for (c = 0; c < C; c++) {                                                         \
                _mm256_storeu_pd(s, acc[r][c]);                                               \
                out[r * ldo + c] = pc_dot4_finish(s, X + r * d, Y + c * d, d4, d);           \
            }                                                                                 \
    }
PC_DOT_TILE_AVX2(3, 4)
PC_DOT_TILE_AVX2(3, 1)
PC_DOT_TILE_AVX2(1, 4)
#define PC_DOT_TILE_NAME_AVX2(R, C) pc_dot_tile_avx2_##R##x##C
PC_DOT_DRIVER(avx2, PC_DOT_AVX2_ATTR, 3, 4, PC_DOT_TILE_NAME_AVX2)

/* AVX2, packed: a pair's four lanes in one register. With AVX2's 16 registers, 4 x 3 tiles
 * (the 12 sums, a y and the product in registers, the x read from L1 as they are multiplied:
 * measured the fastest of 3 x 3, 3 x 4, 4 x 3, 2 x 6 and 6 x 2); the AVX-512 path is the
 * same code with AVX-512VL's 32 registers, in 4 x 6 tiles (every x in a register too). */
#define PC_DOT_PTILE_AVX2(NAME, ATTR, R, C)                                                   \
    ATTR static void pc_dot_ptile_##NAME##_##R##x##C(                                         \
        const double *Ap, const double *Bp, ptrdiff_t k4s, double *S, ptrdiff_t ldS,          \
        int first, const pc_dot_fin *fin) {                                                   \
        __m256d acc[R][C], x[R], y;                                                           \
        double s[4];                                                                          \
        ptrdiff_t k;                                                                          \
        int r, c;                                                                             \
        for (r = 0; r < R; r++)                                                               \
            for (c = 0; c < C; c++)                                                           \
                acc[r][c] = first ? _mm256_setzero_pd() : _mm256_loadu_pd(S + (r * ldS + c) * 4); \
        for (k = 0; k < k4s; k++, Ap += 4 * R, Bp += 4 * C) {                                 \
            for (r = 0; r < R; r++) x[r] = _mm256_loadu_pd(Ap + 4 * r);                       \
            for (c = 0; c < C; c++) {                                                         \
                y = _mm256_loadu_pd(Bp + 4 * c);                                              \
                for (r = 0; r < R; r++)                                                       \
                    acc[r][c] = _mm256_add_pd(acc[r][c], _mm256_mul_pd(x[r], y));             \
            }                                                                                 \
        }                                                                                     \
        if (fin && fin->d4 == fin->d && fin->rows == R && fin->cols == C) {                  \
            for (r = 0; r < R; r++) /* (s0 + s1) + (s2 + s3) of two pairs at once */          \
                for (c = 0; c < C; c += 2) {                                                  \
                    __m256d h = _mm256_hadd_pd(acc[r][c], acc[r][c + 1 < C ? c + 1 : c]);     \
                    __m128d dots = _mm_add_pd(_mm256_castpd256_pd128(h),                      \
                                              _mm256_extractf128_pd(h, 1));                   \
                    if (c + 1 < C)                                                            \
                        _mm_storeu_pd(fin->out + r * fin->ldo + c, dots);                     \
                    else                                                                      \
                        _mm_store_sd(fin->out + r * fin->ldo + c, dots);                      \
                }                                                                             \
            return;                                                                           \
        }                                                                                     \
        for (r = 0; r < R; r++)                                                               \
            for (c = 0; c < C; c++) {                                                         \
                _mm256_storeu_pd(fin ? s : S + (r * ldS + c) * 4, acc[r][c]);                 \
                if (fin) pc_dot_store(fin, r, c, s);                                          \
            }                                                                                 \
    }
PC_DOT_PTILE_AVX2(avx2, PC_DOT_AVX2_ATTR, 4, 3)
#define PC_DOT_PTILE_NAME_AVX2(R, C) pc_dot_ptile_avx2_##R##x##C
PC_DOT_PACKED(avx2, PC_DOT_AVX2_ATTR, 4, 3, PC_DOT_PTILE_NAME_AVX2)

#ifdef PC_HAVE_AVX512
#define PC_DOT_AVX512 1 /* AVX2's instructions on AVX-512VL's 32 registers, after a CPU check */
#define PC_DOT_AVX512_ATTR PC_TARGET("avx2,avx512f,avx512vl")
PC_DOT_PTILE_AVX2(avx512, PC_DOT_AVX512_ATTR, 4, 6)
#define PC_DOT_PTILE_NAME_AVX512(R, C) pc_dot_ptile_avx512_##R##x##C
PC_DOT_PACKED(avx512, PC_DOT_AVX512_ATTR, 4, 6, PC_DOT_PTILE_NAME_AVX512)
#endif
#endif

#elif defined(__aarch64__) || defined(_M_ARM64)
#include <arm_neon.h>
#define PC_DOT_NEON 1 /* NEON (AdvSIMD): every aarch64 CPU */
/* NEON: a pair's lanes in two registers, as SSE2; vmulq then vaddq, never vfmaq. */
#define PC_DOT_TILE_NEON(R, C)                                                                \
    static void pc_dot_tile_neon_##R##x##C(const double *X, const double *Y, ptrdiff_t d,     \
                                           double *out, ptrdiff_t ldo) {                      \
        float64x2_t lo[R][C], hi[R][C], xl[R], xh[R], yl, yh;                                 \
        double s[4];                                                                          \
        ptrdiff_t d4 = d - d % 4, k;                                                          \
        int r, c;                                                                             \
        for (r = 0; r < R; r++)                                                               \
            for (c = 0; c < C; c++) lo[r][c] = hi[r][c] = vdupq_n_f64(0.0);                   \
        for (k = 0; k < d4; k += 4) {                                                         \
            for (r = 0; r < R; r++) {                                                         \
                xl[r] = vld1q_f64(X + r * d + k);                                             \
                xh[r] = vld1q_f64(X + r * d + k + 2);                                         \
            }                                                                                 \
            for (c = 0; c < C; c++) {                                                         \
                yl = vld1q_f64(Y + c * d + k);                                                \
                yh = vld1q_f64(Y + c * d + k + 2);                                            \
                for (r = 0; r < R; r++) {                                                     \
                    lo[r][c] = vaddq_f64(lo[r][c], vmulq_f64(xl[r], yl));                     \
                    hi[r][c] = vaddq_f64(hi[r][c], vmulq_f64(xh[r], yh));                     \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
        for (r = 0; r < R; r++)                                                               \
            for (c = 0; c < C; c++) {                                                         \
                vst1q_f64(s, lo[r][c]);                                                       \
                vst1q_f64(s + 2, hi[r][c]);                                                   \
                out[r * ldo + c] = pc_dot4_finish(s, X + r * d, Y + c * d, d4, d);           \
            }                                                                                 \
    }
PC_DOT_TILE_NEON(2, 4)
PC_DOT_TILE_NEON(2, 1)
PC_DOT_TILE_NEON(1, 4)
#define PC_DOT_TILE_NAME_NEON(R, C) pc_dot_tile_neon_##R##x##C
PC_DOT_DRIVER(simd, , 2, 4, PC_DOT_TILE_NAME_NEON)

/* NEON, packed: as above, on packed slices. */
#define PC_DOT_PTILE_NEON(R, C)                                                               \
    static void pc_dot_ptile_neon_##R##x##C(const double *Ap, const double *Bp, ptrdiff_t k4s, \
                                            double *S, ptrdiff_t ldS, int first,             \
                                            const pc_dot_fin *fin) {                         \
        float64x2_t lo[R][C], hi[R][C], xl[R], xh[R], yl, yh;                                 \
        double s[4];                                                                          \
        ptrdiff_t k;                                                                          \
        int r, c;                                                                             \
        for (r = 0; r < R; r++)                                                               \
            for (c = 0; c < C; c++) {                                                         \
                lo[r][c] = first ? vdupq_n_f64(0.0) : vld1q_f64(S + (r * ldS + c) * 4);       \
                hi[r][c] = first ? vdupq_n_f64(0.0) : vld1q_f64(S + (r * ldS + c) * 4 + 2);   \
            }                                                                                 \
        for (k = 0; k < k4s; k++, Ap += 4 * R, Bp += 4 * C) {                                 \
            for (r = 0; r < R; r++) {                                                         \
                xl[r] = vld1q_f64(Ap + 4 * r);                                                \
                xh[r] = vld1q_f64(Ap + 4 * r + 2);                                            \
            }                                                                                 \
            for (c = 0; c < C; c++) {                                                         \
                yl = vld1q_f64(Bp + 4 * c);                                                   \
                yh = vld1q_f64(Bp + 4 * c + 2);                                               \
                for (r = 0; r < R; r++) {                                                     \
                    lo[r][c] = vaddq_f64(lo[r][c], vmulq_f64(xl[r], yl));                     \
                    hi[r][c] = vaddq_f64(hi[r][c], vmulq_f64(xh[r], yh));                     \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
        for (r = 0; r < R; r++)                                                               \
            for (c = 0; c < C; c++) {                                                         \
                double *to = fin ? s : S + (r * ldS + c) * 4;                                 \
                vst1q_f64(to, lo[r][c]);                                                      \
                vst1q_f64(to + 2, hi[r][c]);                                                  \
                if (fin) pc_dot_store(fin, r, c, s);                                          \
            }                                                                                 \
    }
PC_DOT_PTILE_NEON(2, 4)
#define PC_DOT_PTILE_NAME_NEON(R, C) pc_dot_ptile_neon_##R##x##C
PC_DOT_PACKED(simd, , 2, 4, PC_DOT_PTILE_NAME_NEON)
#endif

enum { PC_DOT_PORTABLE = 0, PC_DOT_SIMD = 1, PC_DOT_AVX2_PATH = 2, PC_DOT_AVX512_PATH = 3 };

/* 1 when path p runs on this CPU (0 is always there). */
PC_SIMD_API int pc_dot_path_available(int p) {
    if (p == PC_DOT_PORTABLE) return 1;
#if defined(PC_DOT_X86) || defined(PC_DOT_NEON)
    if (p == PC_DOT_SIMD) return 1;
#endif
#ifdef PC_DOT_AVX2
    if (p == PC_DOT_AVX2_PATH) return pc_x86_has(PC_X86_AVX2);
#endif
#ifdef PC_DOT_AVX512
    if (p == PC_DOT_AVX512_PATH)
        return pc_x86_has(PC_X86_AVX2 | PC_X86_AVX512F | PC_X86_AVX512VL);
#endif
    return 0;
}

/* The widest path this CPU has. */
PC_SIMD_API int pc_dot_best_path(void) {
    int p;
    for (p = PC_DOT_AVX512_PATH; p > 0; p--)
        if (pc_dot_path_available(p)) return p;
    return PC_DOT_PORTABLE;
}

/* out[i * ldo + j] = dot4(X_i, Y_j) for i < m, j < n; rows of d doubles, contiguous. The
 * packed loop when pack is nonzero and X has PC_DOT_PACK_MIN_ROWS rows or more (a test
 * passes pack = 0 to run the unpacked one on the same shapes: the same bits). */
PC_SIMD_API void pc_gram_dot(const double *X, ptrdiff_t m, const double *Y, ptrdiff_t n,
                             ptrdiff_t d, double *out, ptrdiff_t ldo, int path, int pack) {
    int packed = pack && m >= PC_DOT_PACK_MIN_ROWS;
#ifdef PC_DOT_AVX512
    if (path == PC_DOT_AVX512_PATH) { /* unpacked: AVX2's tiles, the same bits */
        if (!(packed && pc_gram_packed_avx512(X, m, Y, n, d, out, ldo)))
            pc_gram_dot_avx2(X, m, Y, n, d, out, ldo);
        return;
    }
#endif
#ifdef PC_DOT_AVX2
    if (path == PC_DOT_AVX2_PATH) {
        if (!(packed && pc_gram_packed_avx2(X, m, Y, n, d, out, ldo)))
            pc_gram_dot_avx2(X, m, Y, n, d, out, ldo);
        return;
    }
#endif
#if defined(PC_DOT_X86) || defined(PC_DOT_NEON)
    if (path == PC_DOT_SIMD) {
        if (!(packed && pc_gram_packed_simd(X, m, Y, n, d, out, ldo)))
            pc_gram_dot_simd(X, m, Y, n, d, out, ldo);
        return;
    }
#endif
    (void)packed;
    (void)path;
    pc_gram_dot_portable(X, m, Y, n, d, out, ldo);
}

/* out[i] = dot4(X_i, X_i), the squared norm of each row as the RBF kernel takes it. */
PC_SIMD_API void pc_row_sqnorms(const double *X, ptrdiff_t m, ptrdiff_t d, double *out) {
    ptrdiff_t i;
    for (i = 0; i < m; i++) out[i] = pc_dot4(X + i * d, X + i * d, d);
}
#endif /* PERCEPTRON_C_DOT_H */
