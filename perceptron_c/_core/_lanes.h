/* Feature-major emissions of the structured perceptron (_sequence_c): a token's features are
 * read once each, as K contiguous weights, added into 4 lanes of K running sums (feature p
 * of the row into lane p % 4, as _contract.dot4_indexed and _lanes.pxd). restrict: lanes,
 * weights and output never overlap, so the compiler vectorizes the K-wide loops with the
 * baseline instruction set (SSE2 on x86-64; no -march flag). Products and sums are the C
 * twin's, in its order: with -ffp-contract=off nothing fuses, so the lanes equal the Python
 * twin's bit for bit. */
#ifndef PERCEPTRON_C_LANES_H
#define PERCEPTRON_C_LANES_H

#include <stddef.h>
#include <stdint.h>
#include "_prefetch.h"
#include "_simd.h"
#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#endif

#if defined(_MSC_VER)
#define PC_RESTRICT __restrict
#else
#define PC_RESTRICT __restrict__
#endif

/* s_l[k] += x_l * w_l[k] for lanes l = 0..3 (four consecutive features), k < K */
static inline void pc_lanes_add4(double *PC_RESTRICT s0, double *PC_RESTRICT s1,
                                 double *PC_RESTRICT s2, double *PC_RESTRICT s3,
                                 const double *PC_RESTRICT w0, const double *PC_RESTRICT w1,
                                 const double *PC_RESTRICT w2, const double *PC_RESTRICT w3,
                                 double x0, double x1, double x2, double x3, ptrdiff_t K)
{
    for (ptrdiff_t k = 0; k < K; k++) {
        s0[k] += x0 * w0[k];
        s1[k] += x1 * w1[k];
        s2[k] += x2 * w2[k];
        s3[k] += x3 * w3[k];
    }
}

/* s[k] += x * w[k], k < K (one feature into one lane) */
static inline void pc_lane_add(double *PC_RESTRICT s, const double *PC_RESTRICT w, double x,
                               ptrdiff_t K)
{
    for (ptrdiff_t k = 0; k < K; k++)
        s[k] += x * w[k];
}

/* e[k] = ((s0[k] + s1[k]) + (s2[k] + s3[k])) + b[k] for the lanes s = s0 s1 s2 s3 (4 K) */
static inline void pc_lanes_sum(const double *PC_RESTRICT s, const double *PC_RESTRICT b,
                                double *PC_RESTRICT e, ptrdiff_t K)
{
    for (ptrdiff_t k = 0; k < K; k++)
        e[k] = ((s[k] + s[K + k]) + (s[2 * K + k] + s[3 * K + k])) + b[k];
}

/* One Viterbi step into the K states j at once, from n >= 1 predecessors h: the largest
 * cand(h, j) = (d[h] + tr[h * stride + j]) + e[j] (e NULL: without it) over h = 0, 1, ...,
 * n - 1 into nxt[j], the candidates taken in that order as the contract's strict > does
 * (best = cand > best ? cand : best: false on NaN, so a NaN already held stays and a NaN
 * candidate never enters). That is MAXPD (VMAXPD) exactly, -0.0 and NaN included, so the
 * SIMD paths select by it. The predecessor is not kept: the path is followed back by
 * pc_viterbi_arg, which finds it again from the same sums, only on the best path. The
 * running best of a block of j stays in registers across h. First order: d = delta_(t-1),
 * tr = trans (stride K), n = K; second order: d[h] = delta_(t-1)[h, i],
 * tr = trans2[0, i, :] (stride (K + 1)^2), e NULL. */
#define PC_VITERBI_E(s, v, add) (e ? add((s), (v)) : (s))

/* The L W states from j on, in W vectors V of L lanes (SET1, LOAD, ADD, MAX, STORE, ZERO: their
 * operations), the running bests in registers across h */
#define PC_VITERBI_BODY(V, L, W, SET1, LOAD, ADD, MAX, STORE, ZERO)                           \
    {                                                                                         \
        V ev[W], bv[W], d0 = SET1(d[0]);                                                      \
        for (int w = 0; w < (W); w++) {                                                       \
            ev[w] = e ? LOAD(e + j + (L) * w) : ZERO();                                       \
            bv[w] = PC_VITERBI_E(ADD(d0, LOAD(tr + j + (L) * w)), ev[w], ADD);                \
        }                                                                                     \
        for (ptrdiff_t h = 1; h < n; h++) {                                                   \
            const double *r = tr + h * stride + j;                                            \
            V dh = SET1(d[h]);                                                                \
            for (int w = 0; w < (W); w++)                                                     \
                bv[w] = MAX(PC_VITERBI_E(ADD(dh, LOAD(r + (L) * w)), ev[w], ADD), bv[w]);     \
        }                                                                                     \
        for (int w = 0; w < (W); w++)                                                         \
            STORE(nxt + j + (L) * w, bv[w]);                                                  \
    }
#define PC_VITERBI_BLOCKS(V, L, W, SET1, LOAD, ADD, MAX, STORE, ZERO)                         \
    for (; j + (L) * (W) <= K; j += (L) * (W))                                                \
        PC_VITERBI_BODY(V, L, W, SET1, LOAD, ADD, MAX, STORE, ZERO)

/* the predecessor the contract takes for state j: the first h whose candidate is the
 * largest (the strict > keeps the first of equal ones; -1 where none is: NaN) */
static inline ptrdiff_t pc_viterbi_arg(const double *d, const double *tr, ptrdiff_t stride,
                                       const double *e, ptrdiff_t n, ptrdiff_t j)
{
    double best = e ? (d[0] + tr[j]) + e[j] : d[0] + tr[j];
    ptrdiff_t arg = 0;
    for (ptrdiff_t h = 1; h < n; h++) {
        double cand = e ? (d[h] + tr[h * stride + j]) + e[j] : d[h] + tr[h * stride + j];
        if (cand > best) {
            best = cand;
            arg = h;
        }
    }
    return arg;
}

static inline void pc_viterbi_scalar(const double *d, const double *tr, ptrdiff_t stride,
                                     const double *e, double *nxt, ptrdiff_t n, ptrdiff_t j,
                                     ptrdiff_t K)
{
    for (; j < K; j++) {
        double best = e ? (d[0] + tr[j]) + e[j] : d[0] + tr[j];
        for (ptrdiff_t h = 1; h < n; h++) {
            double cand = e ? (d[h] + tr[h * stride + j]) + e[j] : d[h] + tr[h * stride + j];
            if (cand > best)
                best = cand;
        }
        nxt[j] = best;
    }
}

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#define PC_VITERBI_SSE2 1
#define PC_VITERBI_SSE2_BLOCKS(W)                                                             \
    PC_VITERBI_BLOCKS(__m128d, 2, W, _mm_set1_pd, _mm_loadu_pd, _mm_add_pd, _mm_max_pd,      \
                      _mm_storeu_pd, _mm_setzero_pd)

/* the states from j on to K, a pair at a time, then the last one */
static inline void pc_viterbi_tail(const double *d, const double *tr, ptrdiff_t stride,
                                   const double *e, double *nxt, ptrdiff_t n, ptrdiff_t j,
                                   ptrdiff_t K)
{
    PC_VITERBI_SSE2_BLOCKS(1)
    if (j < K)  /* the low lane only */
        PC_VITERBI_BODY(__m128d, 2, 1, _mm_set1_pd, _mm_load_sd, _mm_add_pd, _mm_max_pd,
                        _mm_store_sd, _mm_setzero_pd)
}
#else
#define pc_viterbi_tail pc_viterbi_scalar
#endif

static inline void pc_viterbi_into(const double *PC_RESTRICT d, const double *PC_RESTRICT tr,
                                   ptrdiff_t stride, const double *PC_RESTRICT e,
                                   double *PC_RESTRICT nxt, ptrdiff_t n, ptrdiff_t K)
{
    ptrdiff_t j = 0;
#ifdef PC_VITERBI_SSE2
    PC_VITERBI_SSE2_BLOCKS(4)
#endif
    pc_viterbi_tail(d, tr, stride, e, nxt, n, j, K);
}


/* The Viterbi step paths: 0 the baseline (pc_viterbi_into: SSE2 on x86-64, scalar elsewhere),
 * 1 AVX2 (4 candidates per instruction), chosen at run time after asking the CPU (_simd.h).
 * The same additions in the same order and the same selection on every path: VMAXPD is
 * cand > old ? cand : old as MAXPD. (An AVX-512F path of the same blocks ran no faster on a
 * Zen 4, whose 512-bit operations take two passes: not kept.) */
#ifdef PC_X86_DISPATCH
#define PC_VITERBI_AVX2 1
#define PC_VITERBI_AVX2_BLOCK(W)                                                              \
    PC_VITERBI_BLOCKS(__m256d, 4, W, _mm256_set1_pd, _mm256_loadu_pd, _mm256_add_pd,      \
                          _mm256_max_pd, _mm256_storeu_pd, _mm256_setzero_pd)

PC_TARGET("avx2") static void pc_viterbi_into_avx2(const double *PC_RESTRICT d,
                                                   const double *PC_RESTRICT tr,
                                                   ptrdiff_t stride, const double *PC_RESTRICT e,
                                                   double *PC_RESTRICT nxt, ptrdiff_t n,
                                                   ptrdiff_t K)
{
    ptrdiff_t j = 0;
    PC_VITERBI_AVX2_BLOCK(4)
    PC_VITERBI_AVX2_BLOCK(2)
    PC_VITERBI_AVX2_BLOCK(1)
    pc_viterbi_tail(d, tr, stride, e, nxt, n, j, K);
}
#endif

static inline int pc_viterbi_best_path(void)
{
#ifdef PC_VITERBI_AVX2
    if (pc_x86_has(PC_X86_AVX2))
        return 1;
#endif
    return 0;
}

/* pc_viterbi_into on the path chosen (pc_viterbi_best_path, or a test's) */
static inline void pc_viterbi_step(const double *d, const double *tr, ptrdiff_t stride,
                                   const double *e, double *nxt, ptrdiff_t n, ptrdiff_t K,
                                   int path)
{
#ifdef PC_VITERBI_AVX2
    if (path == 1) {
        pc_viterbi_into_avx2(d, tr, stride, e, nxt, n, K);
        return;
    }
#endif
    (void)path;
    pc_viterbi_into(d, tr, stride, e, nxt, n, K);
}

/* The emissions e[k] of one row of m <= PC_ROW_MAX features (row p's weights w[p], its value
 * x[p]): lane l of tag k is 0.0 + x[l] w[l][k] + x[l + 4] w[l + 4][k] + ..., in that order,
 * and e[k] = ((s0 + s1) + (s2 + s3)) + b[k], the sums of pc_lanes_add4, pc_lane_add and
 * pc_lanes_sum. Blocks of 4 tags outside, features inside: the 4 lanes of a block stay in
 * registers instead of going through memory once per feature. */
#define PC_ROW_MAX 64
#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#define PC_EMIT_STEP(A, C, X, W) do { __m128d v_ = _mm_set1_pd(X); \
    A = _mm_add_pd(A, _mm_mul_pd(v_, _mm_loadu_pd(W))); \
    C = _mm_add_pd(C, _mm_mul_pd(v_, _mm_loadu_pd((W) + 2))); } while (0)
#endif
static inline void pc_emit_row(const double *const *PC_RESTRICT w, const double *PC_RESTRICT x,
                               ptrdiff_t m, const double *PC_RESTRICT b,
                               double *PC_RESTRICT e, ptrdiff_t K)
{
    ptrdiff_t k = 0, p, m4 = m & ~(ptrdiff_t)3;
#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
    for (; k + 4 <= K; k += 4) {  /* lane l of tags k, k + 1 (a_l) and k + 2, k + 3 (c_l) */
        __m128d a0 = _mm_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
        __m128d c0 = a0, c1 = a0, c2 = a0, c3 = a0;
        for (p = 0; p < m4; p += 4) {
            PC_EMIT_STEP(a0, c0, x[p], w[p] + k);
            PC_EMIT_STEP(a1, c1, x[p + 1], w[p + 1] + k);
            PC_EMIT_STEP(a2, c2, x[p + 2], w[p + 2] + k);
            PC_EMIT_STEP(a3, c3, x[p + 3], w[p + 3] + k);
        }
        if (p < m)
            PC_EMIT_STEP(a0, c0, x[p], w[p] + k);
        if (p + 1 < m)
            PC_EMIT_STEP(a1, c1, x[p + 1], w[p + 1] + k);
        if (p + 2 < m)
            PC_EMIT_STEP(a2, c2, x[p + 2], w[p + 2] + k);
        a0 = _mm_add_pd(_mm_add_pd(a0, a1), _mm_add_pd(a2, a3));
        c0 = _mm_add_pd(_mm_add_pd(c0, c1), _mm_add_pd(c2, c3));
        _mm_storeu_pd(e + k, _mm_add_pd(a0, _mm_loadu_pd(b + k)));
        _mm_storeu_pd(e + k + 2, _mm_add_pd(c0, _mm_loadu_pd(b + k + 2)));
    }
#undef PC_EMIT_STEP
#endif
    for (; k < K; k++) {
        double s[4] = {0.0, 0.0, 0.0, 0.0};
        for (p = 0; p < m; p++)
            s[p & 3] += x[p] * w[p][k];
        e[k] = ((s[0] + s[1]) + (s[2] + s[3])) + b[k];
    }
}

/* Ask for the weights of the next row (m features of columns cols, K doubles each) while
 * this one is summed: W is far larger than the caches and the columns are random. */
static inline void pc_prefetch_rows(const double *W, const int32_t *cols, ptrdiff_t m,
                                    ptrdiff_t K)
{
    for (ptrdiff_t p = 0; p < m; p++) {
        const char *r = (const char *)(W + (ptrdiff_t)cols[p] * K);
        for (ptrdiff_t o = 0; o < K * (ptrdiff_t)sizeof(double); o += 64)
            PC_PREFETCH(r + o);
    }
}

#endif
