/* The RBF kernel's elementwise part, step for step as _gram_py computes it, so the twins
 * agree bit for bit: exp(x) for x <= 0 (_gram_py.exp_nonpositive), and one row of the Gram
 * from its products x.y (_gram_py.gram_rbf): d = max(||x||^2 + ||y||^2 - 2 x.y, 0), flagged
 * for recomputing from the differences where not finite or at most 2^-30 of the norms, else
 * exp(-gamma d), all in one pass over the row.
 *
 * exp: x clamped at -800 (NaN too), k = x / ln 2 rounded to the nearest integer (ties to
 * even, by adding and subtracting 1.5 * 2^52), r = (x - k ln2_hi) - k ln2_lo with fdlibm's
 * split of ln 2 (k ln2_hi is exact), exp(r) by Horner's rule on the Taylor coefficients
 * 1/13! .. 1/0! (|r| <= 0.35: the first term left out is below 2^-57), then times 2^k: a
 * product with 2^k built from its bits where the result is a normal number, ldexp below.
 * libm's exp is not used because no two libms (nor numpy's SIMD loops) agree to the last bit.
 *
 * Every step is one IEEE operation, none fused (-ffp-contract=off; /fp:precise on MSVC), so the
 * portable, SSE2, AVX2 and AVX-512 paths give the same bits; a vector step with a lane that
 * needs care (flagged, a result that is not a normal number, the diagonal) is redone lane by
 * lane by the scalar steps, which are the same operations. The paths are chosen at run time
 * (_simd.h). */
#ifndef PERCEPTRON_C_RBF_H
#define PERCEPTRON_C_RBF_H
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "_simd.h"

#define PC_EXP_MAGIC 6755399441055744.0 /* 1.5 * 2^52 */
#define PC_EXP_INV_LN2 1.4426950408889634
#define PC_EXP_LN2_HI 6.93147180369123816490e-01
#define PC_EXP_LN2_LO 1.90821492927058770002e-10

static const double pc_exp_coef[14] = {
    1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
    1.0 / 362880.0,     1.0 / 40320.0,     1.0 / 5040.0,      1.0 / 720.0,
    1.0 / 120.0,        1.0 / 24.0,        1.0 / 6.0,         0.5,
    1.0,                1.0};

static double pc_exp1(double x) {
    double v = x >= -800.0 ? x : -800.0;
    double kd = (v * PC_EXP_INV_LN2 + PC_EXP_MAGIC) - PC_EXP_MAGIC;
    double r = (v - kd * PC_EXP_LN2_HI) - kd * PC_EXP_LN2_LO;
    double p = pc_exp_coef[0];
    for (int c = 1; c < 14; c++) p = p * r + pc_exp_coef[c];
    return ldexp(p, (int)kd); /* exact for normal results: the vector paths' product */
}

/* One entry of an RBF row: -gamma d (ng = -gamma), and whether it is flagged. */
static double pc_rbf_arg(double dot, double nrm, double tiny, double ng, int *flagged) {
    double v = dot * -2.0 + nrm;
    v = v < 0.0 ? 0.0 : v;
    *flagged = !(fabs(v) <= DBL_MAX) || v <= tiny * nrm;
    return v * ng;
}

/* Entry j of a row, by the scalar steps: the diagonal (j == skip: distance 0) is exp(-0) =
 * 1; a flagged entry is NaN, its index (plus base) kept in pos while there is room. */
static ptrdiff_t pc_rbf_entry(double *row, ptrdiff_t j, double xi, const double *yy,
                              double tiny, double ng, ptrdiff_t skip, int64_t *pos,
                              ptrdiff_t count, ptrdiff_t cap, int64_t base) {
    int flagged;
    double e = pc_rbf_arg(row[j], xi + yy[j], tiny, ng, &flagged);
    if (j == skip) {
        row[j] = 1.0;
    } else if (flagged) {
        if (count < cap) pos[count] = base + j;
        row[j] = NAN;
        count++;
    } else {
        row[j] = pc_exp1(e);
    }
    return count;
}

static void pc_exp_portable(double *x, ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < n; i++) x[i] = pc_exp1(x[i]);
}

static ptrdiff_t pc_rbf_row_portable(double *row, ptrdiff_t n, double xi, const double *yy,
                                     double tiny, double ng, ptrdiff_t skip, int64_t *pos,
                                     ptrdiff_t count, ptrdiff_t cap, int64_t base) {
    for (ptrdiff_t j = 0; j < n; j++)
        count = pc_rbf_entry(row, j, xi, yy, tiny, ng, skip, pos, count, cap, base);
    return count;
}

#ifdef PC_X86_64
#define PC_RBF_X86 1 /* SSE2: every x86-64 CPU, no target attribute needed */
#ifdef PC_X86_DISPATCH
#define PC_RBF_AVX2 1 /* AVX2: compiled with PC_TARGET("avx2"), used after a CPU check */
#endif

/* The vector paths. F: the intrinsics' prefix (empty: SSE2, 256: AVX2); T: the register
 * width; GE, NLE, LE: the compares (ordered, but NLE: true for NaN). PC_EXP_V2 computes
 * exp(e0), exp(e1) into p0, p1, and ok0, ok1: the lanes whose result is a normal number. */
/* Two vectors at once: the same steps per lane, the two Horner chains (whose latency
 * bounds one vector alone) interleaved. */
#define PC_EXP_V2(F, T, GE, e0, e1, p0, p1, ok0, ok1)                                          \
    do {                                                                                       \
        __m##T##d lo_ = _mm##F##_set1_pd(-800.0), magic_ = _mm##F##_set1_pd(PC_EXP_MAGIC);     \
        __m##T##d il2_ = _mm##F##_set1_pd(PC_EXP_INV_LN2), h2_ = _mm##F##_set1_pd(PC_EXP_LN2_HI); \
        __m##T##d l2_ = _mm##F##_set1_pd(PC_EXP_LN2_LO);                                       \
        __m##T##d k0_ = GE(e0, lo_), k1_ = GE(e1, lo_);                                        \
        __m##T##d v0_ = _mm##F##_or_pd(_mm##F##_and_pd(k0_, e0), _mm##F##_andnot_pd(k0_, lo_)); \
        __m##T##d v1_ = _mm##F##_or_pd(_mm##F##_and_pd(k1_, e1), _mm##F##_andnot_pd(k1_, lo_)); \
        __m##T##d d0_ = _mm##F##_sub_pd(_mm##F##_add_pd(_mm##F##_mul_pd(v0_, il2_), magic_),   \
                                        magic_);                                               \
        __m##T##d d1_ = _mm##F##_sub_pd(_mm##F##_add_pd(_mm##F##_mul_pd(v1_, il2_), magic_),   \
                                        magic_);                                               \
        __m##T##d r0_ = _mm##F##_sub_pd(_mm##F##_sub_pd(v0_, _mm##F##_mul_pd(d0_, h2_)),       \
                                        _mm##F##_mul_pd(d0_, l2_));                            \
        __m##T##d r1_ = _mm##F##_sub_pd(_mm##F##_sub_pd(v1_, _mm##F##_mul_pd(d1_, h2_)),       \
                                        _mm##F##_mul_pd(d1_, l2_));                            \
        p0 = p1 = _mm##F##_set1_pd(pc_exp_coef[0]);                                            \
        for (int c_ = 1; c_ < 14; c_++) {                                                      \
            __m##T##d cc_ = _mm##F##_set1_pd(pc_exp_coef[c_]);                                 \
            p0 = _mm##F##_add_pd(_mm##F##_mul_pd(p0, r0_), cc_);                               \
            p1 = _mm##F##_add_pd(_mm##F##_mul_pd(p1, r1_), cc_);                               \
        }                                                                                      \
        __m##T##d mk_ = _mm##F##_set1_pd(-1021.0), xk_ = _mm##F##_set1_pd(1023.0);             \
        ok0 = _mm##F##_and_pd(GE(d0_, mk_), GE(xk_, d0_));                                     \
        ok1 = _mm##F##_and_pd(GE(d1_, mk_), GE(xk_, d1_));                                     \
        p0 = _mm##F##_mul_pd(p0, PC_EXP_SCALE(F, T, d0_, magic_));                             \
        p1 = _mm##F##_mul_pd(p1, PC_EXP_SCALE(F, T, d1_, magic_));                             \
    } while (0)

/* 2^k for integral doubles kd in [-1021, 1023]: k is in the low bits of kd + 1.5 * 2^52. */
#define PC_EXP_SCALE(F, T, kd, magic)                                                          \
    _mm##F##_castsi##T##_pd(_mm##F##_slli_epi64(                                               \
        _mm##F##_add_epi64(_mm##F##_sub_epi64(_mm##F##_castpd_si##T(_mm##F##_add_pd(kd, magic)), \
                                              _mm##F##_castpd_si##T(magic)),                   \
                           _mm##F##_set1_epi64x(1023)),                                        \
        52))

/* One RBF vector step: the distances of row[j..] and the flags, for PC_EXP_V2. */
#define PC_RBF_ARGS(F, T, NLE, LE, j, e, flag)                                                 \
    do {                                                                                       \
        __m##T##d nrm_ = _mm##F##_add_pd(vxi, _mm##F##_loadu_pd(yy + (j)));                    \
        __m##T##d v_ = _mm##F##_add_pd(_mm##F##_mul_pd(_mm##F##_loadu_pd(row + (j)), m2), nrm_); \
        v_ = _mm##F##_max_pd(zero, v_); /* v < 0 ? 0 : v; NaN, -0.0 kept (2nd operand) */      \
        flag = _mm##F##_or_pd(NLE(_mm##F##_andnot_pd(sign, v_), big),                          \
                              LE(v_, _mm##F##_mul_pd(vt, nrm_)));                              \
        e = _mm##F##_mul_pd(v_, vng);                                                          \
    } while (0)

#define PC_DEF_RBF_PATHS(SUFFIX, ATTR, F, T, LANES, GE, NLE, LE)                               \
    ATTR static void pc_exp_##SUFFIX(double *x, ptrdiff_t n) {                                 \
        ptrdiff_t i = 0;                                                                       \
        for (; i + 2 * LANES <= n; i += 2 * LANES) {                                           \
            __m##T##d p0, p1, ok0, ok1;                                                        \
            PC_EXP_V2(F, T, GE, _mm##F##_loadu_pd(x + i), _mm##F##_loadu_pd(x + i + LANES), p0, \
                      p1, ok0, ok1);                                                           \
            if (_mm##F##_movemask_pd(_mm##F##_and_pd(ok0, ok1)) == (1 << LANES) - 1) {         \
                _mm##F##_storeu_pd(x + i, p0);                                                 \
                _mm##F##_storeu_pd(x + i + LANES, p1);                                         \
            } else {                                                                           \
                for (int l = 0; l < 2 * LANES; l++) x[i + l] = pc_exp1(x[i + l]);              \
            }                                                                                  \
        }                                                                                      \
        for (; i < n; i++) x[i] = pc_exp1(x[i]);                                               \
    }                                                                                          \
    ATTR static ptrdiff_t pc_rbf_row_##SUFFIX(double *row, ptrdiff_t n, double xi,             \
                                              const double *yy, double tiny, double ng,        \
                                              ptrdiff_t skip, int64_t *pos, ptrdiff_t count,   \
                                              ptrdiff_t cap, int64_t base) {                   \
        const __m##T##d vxi = _mm##F##_set1_pd(xi), m2 = _mm##F##_set1_pd(-2.0);               \
        const __m##T##d zero = _mm##F##_setzero_pd(), vt = _mm##F##_set1_pd(tiny);             \
        const __m##T##d vng = _mm##F##_set1_pd(ng), big = _mm##F##_set1_pd(DBL_MAX);           \
        const __m##T##d sign = _mm##F##_set1_pd(-0.0);                                         \
        ptrdiff_t j = 0;                                                                       \
        for (; j + 2 * LANES <= n; j += 2 * LANES) {                                           \
            __m##T##d e0, e1, f0, f1, p0, p1, ok0, ok1;                                        \
            PC_RBF_ARGS(F, T, NLE, LE, j, e0, f0);                                             \
            PC_RBF_ARGS(F, T, NLE, LE, j + LANES, e1, f1);                                     \
            PC_EXP_V2(F, T, GE, e0, e1, p0, p1, ok0, ok1);                                     \
            __m##T##d good = _mm##F##_and_pd(_mm##F##_andnot_pd(f0, ok0),                      \
                                             _mm##F##_andnot_pd(f1, ok1));                     \
            if (_mm##F##_movemask_pd(good) == (1 << LANES) - 1 &&                              \
                (skip < j || skip >= j + 2 * LANES)) {                                         \
                _mm##F##_storeu_pd(row + j, p0);                                               \
                _mm##F##_storeu_pd(row + j + LANES, p1);                                       \
                continue;                                                                      \
            }                                                                                  \
            for (int l = 0; l < 2 * LANES; l++)                                                \
                count = pc_rbf_entry(row, j + l, xi, yy, tiny, ng, skip, pos, count, cap, base); \
        }                                                                                      \
        for (; j < n; j++)                                                                     \
            count = pc_rbf_entry(row, j, xi, yy, tiny, ng, skip, pos, count, cap, base);       \
        return count;                                                                          \
    }

#define PC_GE128(a, b) _mm_cmpge_pd(a, b)
#define PC_NLE128(a, b) _mm_cmpnle_pd(a, b)
#define PC_LE128(a, b) _mm_cmple_pd(a, b)
#define PC_GE256(a, b) _mm256_cmp_pd(a, b, _CMP_GE_OQ)
#define PC_NLE256(a, b) _mm256_cmp_pd(a, b, _CMP_NLE_UQ)
#define PC_LE256(a, b) _mm256_cmp_pd(a, b, _CMP_LE_OQ)
PC_DEF_RBF_PATHS(sse2, , , 128, 2, PC_GE128, PC_NLE128, PC_LE128)
#ifdef PC_RBF_AVX2
PC_DEF_RBF_PATHS(avx2, PC_TARGET("avx2"), 256, 256, 4, PC_GE256, PC_NLE256, PC_LE256)
#endif
#endif

#ifdef PC_HAVE_AVX512
/* AVX-512F: eight lanes a register, the compares into mask registers; the steps of the
 * paths above, lane for lane (AVX-512F has no andnot_pd: |v| is _mm512_abs_pd). */
#define PC_RBF_AVX512 1
#define PC_RBF_AVX512_ATTR PC_TARGET("avx512f")
#define PC_GE512(a, b) _mm512_cmp_pd_mask(a, b, _CMP_GE_OQ)

/* 2^k for integral doubles kd in [-1021, 1023] (PC_EXP_SCALE's steps). */
PC_RBF_AVX512_ATTR static inline __m512d pc_exp_scale_avx512(__m512d kd, __m512d magic) {
    __m512i k = _mm512_sub_epi64(_mm512_castpd_si512(_mm512_add_pd(kd, magic)),
                                 _mm512_castpd_si512(magic));
    return _mm512_castsi512_pd(_mm512_slli_epi64(_mm512_add_epi64(k, _mm512_set1_epi64(1023)),
                                                 52));
}

/* exp(e0), exp(e1) into *p0, *p1 (PC_EXP_V2's steps); returns the mask of the 16 lanes whose
 * result is a normal number (bits 0-7: e0, 8-15: e1). */
PC_RBF_AVX512_ATTR static inline __mmask16 pc_exp_v2_avx512(__m512d e0, __m512d e1,
                                                            __m512d *p0, __m512d *p1) {
    const __m512d lo = _mm512_set1_pd(-800.0), magic = _mm512_set1_pd(PC_EXP_MAGIC);
    const __m512d il2 = _mm512_set1_pd(PC_EXP_INV_LN2), h2 = _mm512_set1_pd(PC_EXP_LN2_HI);
    const __m512d l2 = _mm512_set1_pd(PC_EXP_LN2_LO), mk = _mm512_set1_pd(-1021.0);
    const __m512d xk = _mm512_set1_pd(1023.0);
    __m512d v0 = _mm512_mask_blend_pd(PC_GE512(e0, lo), lo, e0); /* NaN: -800 */
    __m512d v1 = _mm512_mask_blend_pd(PC_GE512(e1, lo), lo, e1);
    __m512d d0 = _mm512_sub_pd(_mm512_add_pd(_mm512_mul_pd(v0, il2), magic), magic);
    __m512d d1 = _mm512_sub_pd(_mm512_add_pd(_mm512_mul_pd(v1, il2), magic), magic);
    __m512d r0 = _mm512_sub_pd(_mm512_sub_pd(v0, _mm512_mul_pd(d0, h2)), _mm512_mul_pd(d0, l2));
    __m512d r1 = _mm512_sub_pd(_mm512_sub_pd(v1, _mm512_mul_pd(d1, h2)), _mm512_mul_pd(d1, l2));
    __m512d q0 = _mm512_set1_pd(pc_exp_coef[0]), q1 = q0;
    for (int c = 1; c < 14; c++) {
        __m512d cc = _mm512_set1_pd(pc_exp_coef[c]);
        q0 = _mm512_add_pd(_mm512_mul_pd(q0, r0), cc);
        q1 = _mm512_add_pd(_mm512_mul_pd(q1, r1), cc);
    }
    unsigned ok0 = PC_GE512(d0, mk) & PC_GE512(xk, d0), ok1 = PC_GE512(d1, mk) & PC_GE512(xk, d1);
    *p0 = _mm512_mul_pd(q0, pc_exp_scale_avx512(d0, magic));
    *p1 = _mm512_mul_pd(q1, pc_exp_scale_avx512(d1, magic));
    return (__mmask16)(ok0 | ok1 << 8);
}

PC_RBF_AVX512_ATTR static void pc_exp_avx512(double *x, ptrdiff_t n) {
    ptrdiff_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512d p0, p1;
        if (pc_exp_v2_avx512(_mm512_loadu_pd(x + i), _mm512_loadu_pd(x + i + 8), &p0, &p1) ==
            0xFFFF) {
            _mm512_storeu_pd(x + i, p0);
            _mm512_storeu_pd(x + i + 8, p1);
        } else {
            for (int l = 0; l < 16; l++) x[i + l] = pc_exp1(x[i + l]);
        }
    }
    for (; i < n; i++) x[i] = pc_exp1(x[i]);
}

/* -gamma d of row[0..7] (PC_RBF_ARGS's steps); returns the flagged lanes. */
PC_RBF_AVX512_ATTR static inline unsigned pc_rbf_args_avx512(const double *row, const double *yy,
                                                             double xi, double tiny, double ng,
                                                             __m512d *e) {
    __m512d nrm = _mm512_add_pd(_mm512_set1_pd(xi), _mm512_loadu_pd(yy));
    __m512d v = _mm512_add_pd(_mm512_mul_pd(_mm512_loadu_pd(row), _mm512_set1_pd(-2.0)), nrm);
    v = _mm512_max_pd(_mm512_setzero_pd(), v); /* v < 0 ? 0 : v; NaN, -0.0 kept */
    *e = _mm512_mul_pd(v, _mm512_set1_pd(ng));
    return _mm512_cmp_pd_mask(_mm512_abs_pd(v), _mm512_set1_pd(DBL_MAX), _CMP_NLE_UQ) |
           _mm512_cmp_pd_mask(v, _mm512_mul_pd(_mm512_set1_pd(tiny), nrm), _CMP_LE_OQ);
}

PC_RBF_AVX512_ATTR static ptrdiff_t pc_rbf_row_avx512(double *row, ptrdiff_t n, double xi,
                                                      const double *yy, double tiny, double ng,
                                                      ptrdiff_t skip, int64_t *pos,
                                                      ptrdiff_t count, ptrdiff_t cap,
                                                      int64_t base) {
    ptrdiff_t j = 0;
    for (; j + 16 <= n; j += 16) {
        __m512d e0, e1, p0, p1;
        unsigned flagged = pc_rbf_args_avx512(row + j, yy + j, xi, tiny, ng, &e0) |
                           pc_rbf_args_avx512(row + j + 8, yy + j + 8, xi, tiny, ng, &e1) << 8;
        unsigned ok = pc_exp_v2_avx512(e0, e1, &p0, &p1);
        if ((ok & ~flagged) == 0xFFFF && (skip < j || skip >= j + 16)) {
            _mm512_storeu_pd(row + j, p0);
            _mm512_storeu_pd(row + j + 8, p1);
            continue;
        }
        for (int l = 0; l < 16; l++)
            count = pc_rbf_entry(row, j + l, xi, yy, tiny, ng, skip, pos, count, cap, base);
    }
    for (; j < n; j++)
        count = pc_rbf_entry(row, j, xi, yy, tiny, ng, skip, pos, count, cap, base);
    return count;
}
#endif

/* 0: portable, 1: SSE2, 2: AVX2, 3: AVX-512F: the widest this CPU has. */
static int pc_rbf_best_path(void) {
#ifdef PC_RBF_AVX512
    if (pc_x86_has(PC_X86_AVX512F)) return 3;
#endif
#ifdef PC_RBF_AVX2
    if (pc_x86_has(PC_X86_AVX2)) return 2;
#endif
#ifdef PC_RBF_X86
    return 1;
#else
    return 0;
#endif
}

static void pc_exp_nonpositive(double *x, ptrdiff_t n, int path) {
#ifdef PC_RBF_AVX512
    if (path == 3) {
        pc_exp_avx512(x, n);
        return;
    }
#endif
#ifdef PC_RBF_AVX2
    if (path == 2) {
        pc_exp_avx2(x, n);
        return;
    }
#endif
#ifdef PC_RBF_X86
    if (path == 1) {
        pc_exp_sse2(x, n);
        return;
    }
#endif
    (void)path;
    pc_exp_portable(x, n);
}

/* One row of the RBF Gram (see the top); skip: the diagonal's column (-1: none); returns
 * count plus the row's flagged entries (their positions kept while count < cap). */
static ptrdiff_t pc_rbf_row(double *row, ptrdiff_t n, double xi, const double *yy,
                            double tiny, double ng, ptrdiff_t skip, int64_t *pos,
                            ptrdiff_t count, ptrdiff_t cap, int64_t base, int path) {
#ifdef PC_RBF_AVX512
    if (path == 3) return pc_rbf_row_avx512(row, n, xi, yy, tiny, ng, skip, pos, count, cap, base);
#endif
#ifdef PC_RBF_AVX2
    if (path == 2) return pc_rbf_row_avx2(row, n, xi, yy, tiny, ng, skip, pos, count, cap, base);
#endif
#ifdef PC_RBF_X86
    if (path == 1) return pc_rbf_row_sse2(row, n, xi, yy, tiny, ng, skip, pos, count, cap, base);
#endif
    (void)path;
    return pc_rbf_row_portable(row, n, xi, yy, tiny, ng, skip, pos, count, cap, base);
}
#endif /* PERCEPTRON_C_RBF_H */
