/* Feature-major emissions of the structured perceptron (_sequence_c): a token's features are
 * read once each, as K contiguous weights, added into 4 lanes of K running sums (feature p
 * of the row into lane p % 4, as _linear_py._dot). restrict: lanes, weights and output never
 * overlap, so the compiler vectorizes the K-wide loops with the baseline instruction set
 * (SSE2 on x86-64; no -march flag). Products and sums are the C twin's, in its order: with
 * -ffp-contract=off nothing fuses, so the lanes equal the Python twin's bit for bit. */
#ifndef PERCEPTRON_C_LANES_H
#define PERCEPTRON_C_LANES_H

#include <stddef.h>
#include <stdint.h>
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

/* One Viterbi step's candidates from tag i: where (di + tr[j]) + e[j] > nxt[j] (strict, so
 * a tie keeps the lower tag already there; false on NaN), take it and the backpointer i.
 * Backpointers are doubles (exact: tags < 2^53) so that one compare mask selects both; the
 * compiler does not if-convert a float compare (it may trap), so SSE2 (x86-64's baseline)
 * selects by hand, and other CPUs take the scalar loop. */
static inline void pc_viterbi_from(double di, const double *PC_RESTRICT tr,
                                   const double *PC_RESTRICT e, double *PC_RESTRICT nxt,
                                   double *PC_RESTRICT bk, double i, ptrdiff_t K)
{
    ptrdiff_t j = 0;
#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
    __m128d vdi = _mm_set1_pd(di), vi = _mm_set1_pd(i);
    for (; j + 2 <= K; j += 2) {
        __m128d cand = _mm_add_pd(_mm_add_pd(vdi, _mm_loadu_pd(tr + j)), _mm_loadu_pd(e + j));
        __m128d old = _mm_loadu_pd(nxt + j);
        __m128d better = _mm_cmpgt_pd(cand, old);
        _mm_storeu_pd(nxt + j, _mm_or_pd(_mm_and_pd(better, cand), _mm_andnot_pd(better, old)));
        _mm_storeu_pd(bk + j, _mm_or_pd(_mm_and_pd(better, vi),
                                        _mm_andnot_pd(better, _mm_loadu_pd(bk + j))));
    }
#endif
    for (; j < K; j++) {
        double cand = (di + tr[j]) + e[j];
        if (cand > nxt[j]) {
            nxt[j] = cand;
            bk[j] = i;
        }
    }
}

#endif
