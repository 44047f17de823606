/* The two K-wide loops of CRFsuite's epoch (_crfsuite_c): an item's state scores and a Viterbi
 * step, label blocks outside and the sum (or the previous label) inside, so that a block's
 * running values stay in registers. Every element gets the same operations in the same order
 * as _crfsuite_py's loops: the scores 0.0 + w v + w v ... in attribute order (no FMA: the build
 * passes -ffp-contract=off), the step's candidates alpha[i] + trans[i, j] for i = 0, 1, ...
 * under strict > (MAXPD is exactly cand > old ? cand : old; the backpointer, a double, follows
 * the same compare), so ties keep the lowest label. Paths: 0 SSE2 (x86-64's baseline; scalar
 * elsewhere), 1 AVX2, chosen at run time (_simd.h), each tested against the Python twin. */
#ifndef PERCEPTRON_C_CRFSUITE_LANES_H
#define PERCEPTRON_C_CRFSUITE_LANES_H

#include <stddef.h>
#include <stdint.h>
#include "_simd.h"

/* row[j] = sum over k in [k0, k1) of w[aids[k] L + j] values[k], from 0.0, for j >= j0 */
static inline void pc_crf_scores_from(double *row, const double *w, const int32_t *aids,
                                      const double *values, int64_t k0, int64_t k1,
                                      ptrdiff_t L, ptrdiff_t j)
{
    int64_t k;
#ifdef PC_X86_64
    for (; j + 4 <= L; j += 4) {
        __m128d a = _mm_setzero_pd(), b = a;
        for (k = k0; k < k1; k++) {
            const double *wa = w + (int64_t)aids[k] * L + j;
            __m128d v = _mm_set1_pd(values[k]);
            a = _mm_add_pd(a, _mm_mul_pd(_mm_loadu_pd(wa), v));
            b = _mm_add_pd(b, _mm_mul_pd(_mm_loadu_pd(wa + 2), v));
        }
        _mm_storeu_pd(row + j, a);
        _mm_storeu_pd(row + j + 2, b);
    }
#endif
    for (; j < L; j++) {
        double s = 0.0;
        for (k = k0; k < k1; k++)
            s += w[(int64_t)aids[k] * L + j] * values[k];
        row[j] = s;
    }
}

/* One Viterbi step: best[j], arg[j] over i of alpha[i] + tw[i L + j], for j >= j0 */
static inline void pc_crf_step_from(const double *alpha, const double *tw, double *best,
                                    double *arg, ptrdiff_t L, ptrdiff_t j)
{
    ptrdiff_t i;
#ifdef PC_X86_64
    for (; j + 4 <= L; j += 4) {
        __m128d a0 = _mm_set1_pd(alpha[0]);
        __m128d b0 = _mm_add_pd(a0, _mm_loadu_pd(tw + j));
        __m128d b1 = _mm_add_pd(a0, _mm_loadu_pd(tw + j + 2));
        __m128d g0 = _mm_setzero_pd(), g1 = g0;
        for (i = 1; i < L; i++) {
            __m128d ai = _mm_set1_pd(alpha[i]), di = _mm_set1_pd((double)i);
            __m128d c0 = _mm_add_pd(ai, _mm_loadu_pd(tw + i * L + j));
            __m128d c1 = _mm_add_pd(ai, _mm_loadu_pd(tw + i * L + j + 2));
            __m128d m0 = _mm_cmpgt_pd(c0, b0), m1 = _mm_cmpgt_pd(c1, b1);
            b0 = _mm_max_pd(c0, b0);
            b1 = _mm_max_pd(c1, b1);
            g0 = _mm_or_pd(_mm_and_pd(m0, di), _mm_andnot_pd(m0, g0));
            g1 = _mm_or_pd(_mm_and_pd(m1, di), _mm_andnot_pd(m1, g1));
        }
        _mm_storeu_pd(best + j, b0);
        _mm_storeu_pd(best + j + 2, b1);
        _mm_storeu_pd(arg + j, g0);
        _mm_storeu_pd(arg + j + 2, g1);
    }
#endif
    for (; j < L; j++) {
        double b = alpha[0] + tw[j], g = 0.0, c;
        for (i = 1; i < L; i++) {
            c = alpha[i] + tw[i * L + j];
            if (c > b) {
                b = c;
                g = (double)i;
            }
        }
        best[j] = b;
        arg[j] = g;
    }
}

#ifdef PC_X86_DISPATCH
#define PC_CRF_AVX2 1
PC_TARGET("avx2") static void pc_crf_scores_avx2(double *row, const double *w,
                                                 const int32_t *aids, const double *values,
                                                 int64_t k0, int64_t k1, ptrdiff_t L)
{
    ptrdiff_t j = 0;
    int64_t k;
    for (; j + 8 <= L; j += 8) {
        __m256d a = _mm256_setzero_pd(), b = a;
        for (k = k0; k < k1; k++) {
            const double *wa = w + (int64_t)aids[k] * L + j;
            __m256d v = _mm256_set1_pd(values[k]);
            a = _mm256_add_pd(a, _mm256_mul_pd(_mm256_loadu_pd(wa), v));
            b = _mm256_add_pd(b, _mm256_mul_pd(_mm256_loadu_pd(wa + 4), v));
        }
        _mm256_storeu_pd(row + j, a);
        _mm256_storeu_pd(row + j + 4, b);
    }
    for (; j + 4 <= L; j += 4) {
        __m256d a = _mm256_setzero_pd();
        for (k = k0; k < k1; k++) {
            __m256d v = _mm256_set1_pd(values[k]);
            a = _mm256_add_pd(a, _mm256_mul_pd(_mm256_loadu_pd(w + (int64_t)aids[k] * L + j),
                                               v));
        }
        _mm256_storeu_pd(row + j, a);
    }
    pc_crf_scores_from(row, w, aids, values, k0, k1, L, j);
}

PC_TARGET("avx2") static void pc_crf_step_avx2(const double *alpha, const double *tw,
                                               double *best, double *arg, ptrdiff_t L)
{
    ptrdiff_t i, j = 0;
    for (; j + 8 <= L; j += 8) {
        __m256d a0 = _mm256_set1_pd(alpha[0]);
        __m256d b0 = _mm256_add_pd(a0, _mm256_loadu_pd(tw + j));
        __m256d b1 = _mm256_add_pd(a0, _mm256_loadu_pd(tw + j + 4));
        __m256d g0 = _mm256_setzero_pd(), g1 = g0;
        for (i = 1; i < L; i++) {
            __m256d ai = _mm256_set1_pd(alpha[i]), di = _mm256_set1_pd((double)i);
            __m256d c0 = _mm256_add_pd(ai, _mm256_loadu_pd(tw + i * L + j));
            __m256d c1 = _mm256_add_pd(ai, _mm256_loadu_pd(tw + i * L + j + 4));
            g0 = _mm256_blendv_pd(g0, di, _mm256_cmp_pd(c0, b0, _CMP_GT_OQ));
            g1 = _mm256_blendv_pd(g1, di, _mm256_cmp_pd(c1, b1, _CMP_GT_OQ));
            b0 = _mm256_max_pd(c0, b0);
            b1 = _mm256_max_pd(c1, b1);
        }
        _mm256_storeu_pd(best + j, b0);
        _mm256_storeu_pd(best + j + 4, b1);
        _mm256_storeu_pd(arg + j, g0);
        _mm256_storeu_pd(arg + j + 4, g1);
    }
    for (; j + 4 <= L; j += 4) {
        __m256d b0 = _mm256_add_pd(_mm256_set1_pd(alpha[0]), _mm256_loadu_pd(tw + j));
        __m256d g0 = _mm256_setzero_pd();
        for (i = 1; i < L; i++) {
            __m256d c0 = _mm256_add_pd(_mm256_set1_pd(alpha[i]), _mm256_loadu_pd(tw + i * L + j));
            g0 = _mm256_blendv_pd(g0, _mm256_set1_pd((double)i),
                                  _mm256_cmp_pd(c0, b0, _CMP_GT_OQ));
            b0 = _mm256_max_pd(c0, b0);
        }
        _mm256_storeu_pd(best + j, b0);
        _mm256_storeu_pd(arg + j, g0);
    }
    pc_crf_step_from(alpha, tw, best, arg, L, j);
}
#endif

static inline int pc_crf_best_path(void)
{
#ifdef PC_CRF_AVX2
    if (pc_x86_has(PC_X86_AVX2))
        return 1;
#endif
    return 0;
}

/* the state scores of one item on the path chosen (pc_crf_best_path, or a test's) */
static inline void pc_crf_scores(double *row, const double *w, const int32_t *aids,
                                 const double *values, int64_t k0, int64_t k1, ptrdiff_t L,
                                 int path)
{
#ifdef PC_CRF_AVX2
    if (path == 1) {
        pc_crf_scores_avx2(row, w, aids, values, k0, k1, L);
        return;
    }
#endif
    (void)path;
    pc_crf_scores_from(row, w, aids, values, k0, k1, L, 0);
}

/* one Viterbi step on the path chosen */
static inline void pc_crf_step(const double *alpha, const double *tw, double *best,
                               double *arg, ptrdiff_t L, int path)
{
#ifdef PC_CRF_AVX2
    if (path == 1) {
        pc_crf_step_avx2(alpha, tw, best, arg, L);
        return;
    }
#endif
    (void)path;
    pc_crf_step_from(alpha, tw, best, arg, L, 0);
}

#endif
