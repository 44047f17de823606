/* Every SIMD path of _popcount.h, _rbf.h, _dot.h and _lanes.h's Viterbi step that this CPU
 * runs, against a plain reference
 * (popcounts) and against the portable path bit for bit (the RBF exponential and rows), plus
 * the CPU check of _simd.h against the compiler's own (__builtin_cpu_supports).
 *
 * tests/test_simd.py builds it against the checkout's headers twice: as the wheels are built
 * (no -m flags), and with -DPC_SIMD_AS_MSVC -mavx2 -mavx512f ... -Itests/c/msvc, which takes
 * the headers' MSVC branches (no target attributes, SWAR and __popcnt64, __cpuidex and _xgetbv)
 * with the whole file compiled for the widest target, as MSVC compiles any intrinsic anywhere.
 * Prints one line per path and "ok"; exits 1 at the first difference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "_dot.h"
#include "_lanes.h"
#include "_popcount.h"
#include "_rbf.h"

static uint64_t state = 0x9e3779b97f4a7c15ULL;

static uint64_t next64(void) { /* splitmix64 */
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int64_t plain_popcount(uint64_t x) {
    int64_t n = 0;
    for (; x; x &= x - 1) n++;
    return n;
}

static int fail(const char *what, long a, long b) {
    printf("FAIL %s (%ld %ld)\n", what, a, b);
    return 1;
}

static int check_cpu(void) {
#ifdef PC_X86_64
    static const struct { int bit; const char *name; int has; } f[] = {
        {PC_X86_POPCNT, "popcnt", 0}, {PC_X86_AVX, "avx", 0}, {PC_X86_AVX2, "avx2", 0},
        {PC_X86_FMA, "fma", 0}, {PC_X86_AVX512F, "avx512f", 0},
        {PC_X86_AVX512BW, "avx512bw", 0}, {PC_X86_AVX512VPOPCNTDQ, "avx512vpopcntdq", 0}};
    int got = pc_x86_features();
    int want[7];
    __builtin_cpu_init();
    want[0] = __builtin_cpu_supports("popcnt") != 0;
    want[1] = __builtin_cpu_supports("avx") != 0;
    want[2] = __builtin_cpu_supports("avx2") != 0;
    want[3] = __builtin_cpu_supports("fma") != 0;
    want[4] = __builtin_cpu_supports("avx512f") != 0;
    want[5] = __builtin_cpu_supports("avx512bw") != 0;
    want[6] = __builtin_cpu_supports("avx512vpopcntdq") != 0;
    printf("cpu:");
    for (int i = 0; i < 7; i++) {
        int has = (got & f[i].bit) != 0;
        printf(" %s=%d", f[i].name, has);
        if (has != want[i]) return fail(f[i].name, has, want[i]);
    }
    printf("\n");
#endif
    return 0;
}

/* Rows 0..na of the Gram on path impl, every out type and the symmetric mode, against ref. */
static int check_gram(int impl, const uint64_t *A, ptrdiff_t na, const uint64_t *B, ptrdiff_t nb,
                      ptrdiff_t nw, const int64_t *ref, int sym) {
    size_t words = pc_packed_words(impl, nb, nw);
    uint64_t *buf = words ? (uint64_t *)malloc(words * sizeof(uint64_t)) : NULL;
    void *out = malloc((size_t)(na * nb) * 8);
    const uint64_t *Bp = pc_pack_b(impl, B, nb, nw, buf);
    int bad = 0;
    /* int16 out holds popcounts below 2^15 only (the caller's check) */
    int last = 64 * nw < 32768 ? PC_OUT_I16 : PC_OUT_I32;
    for (int kind = PC_OUT_I64; kind <= last && !bad; kind++) {
        memset(out, 0x5a, (size_t)(na * nb) * 8);
        if (sym) { /* two row blocks, the second first: any order gives the whole Gram */
            ptrdiff_t half = na / 2;
            pc_gram_rows(impl, A + half * nw, na - half, Bp, nb, nw, out, nb, kind, half, 1);
            pc_gram_rows(impl, A, half, Bp, nb, nw, out, nb, kind, 0, 1);
        } else {
            pc_gram_packed(impl, A, na, Bp, nb, nw, out, nb, kind);
        }
        for (ptrdiff_t e = 0; e < na * nb && !bad; e++) {
            int64_t v = kind == PC_OUT_I64   ? ((int64_t *)out)[e]
                        : kind == PC_OUT_I32 ? ((int32_t *)out)[e]
                                             : ((int16_t *)out)[e];
            if (v != ref[e]) bad = fail("gram entry", (long)v, (long)ref[e]);
        }
    }
    free(out);
    free(buf);
    return bad;
}

static int check_popcount_paths(void) {
    static const ptrdiff_t widths[] = {1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 64, 65, 513, 1030};
    static const char *names[] = {"builtin", "popcnt", "avx2", "avx512"};
    for (int impl = PC_IMPL_BUILTIN; impl <= PC_IMPL_AVX512; impl++) {
        if (!pc_impl_available(impl)) continue;
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
            ptrdiff_t nw = widths[w], na = 13, nb = 70;
            uint64_t *A = (uint64_t *)malloc((size_t)(nb * nw) * 8);
            int64_t *ref = (int64_t *)malloc((size_t)(nb * nb) * 8);
            for (ptrdiff_t k = 0; k < nb * nw; k++) A[k] = next64() & next64() ? next64() : 0;
            for (ptrdiff_t k = 0; k < nw; k++) A[nw + k] = ~(uint64_t)0, A[2 * nw + k] = 0;
            for (ptrdiff_t i = 0; i < nb; i++)
                for (ptrdiff_t j = 0; j < nb; j++) {
                    int64_t s = 0;
                    for (ptrdiff_t k = 0; k < nw; k++)
                        s += plain_popcount(A[i * nw + k] & A[j * nw + k]);
                    ref[i * nb + j] = s;
                }
            /* A x B: the first 13 rows against all 70; A x A: the 70 x 70 Gram */
            if (check_gram(impl, A, na, A, nb, nw, ref, 0) ||
                check_gram(impl, A, nb, A, nb, nw, ref, 1)) {
                printf("  on path %s, %ld words\n", names[impl], (long)nw);
                return 1;
            }
            free(A);
            free(ref);
        }
        printf("popcount path %s: ok\n", names[impl]);
    }
    return 0;
}

static double from_bits(uint64_t b) {
    double x;
    memcpy(&x, &b, 8);
    return x;
}

static int same_bits(const double *x, const double *y, ptrdiff_t n) {
    return memcmp(x, y, (size_t)n * sizeof(double)) == 0;
}

static int check_rbf_paths(void) {
    enum { N = 4099 };
    static const char *names[] = {"portable", "sse2", "avx2", "avx512"};
    static double x[N], ref[N], got[N], yy[N], row[N], rrow[N];
    static int64_t pos[64], rpos[64];
    int best = pc_rbf_best_path();
    for (ptrdiff_t i = 0; i < N; i++) /* nonpositive: uniform exponents, then the edges */
        x[i] = -ldexp((double)(next64() >> 11), -53) * ldexp(1.0, (int)(next64() % 14) - 3);
    x[0] = 0.0, x[1] = -0.0, x[2] = -800.0, x[3] = -1000.0, x[4] = from_bits(0x7ff8ULL << 48);
    x[5] = -708.4, x[6] = -745.2, x[7] = -1e-300, x[8] = -709.78, x[9] = -744.4;
    for (ptrdiff_t i = 0; i < N; i++) yy[i] = (double)(next64() % 64);
    for (int path = 1; path <= best; path++) {
        memcpy(ref, x, sizeof x);
        memcpy(got, x, sizeof x);
        pc_exp_nonpositive(ref, N, 0);
        pc_exp_nonpositive(got, N, path);
        if (!same_bits(ref, got, N)) return fail(names[path], 0, 0);
        for (ptrdiff_t n = 0; n < 40; n++) { /* every tail of the 2 x 8 lanes */
            memcpy(got, x, sizeof x);
            pc_exp_nonpositive(got, n, path);
            if (!same_bits(ref, got, n)) return fail(names[path], (long)n, 0);
        }
        for (int trial = 0; trial < 4; trial++) { /* rows: products near the norms, flags */
            double xi = (double)(next64() % 64), tiny = trial ? 0x1p-30 : 0.5;
            ptrdiff_t skip = trial == 2 ? 17 : -1, c1, c2;
            for (ptrdiff_t j = 0; j < N; j++)
                row[j] = trial == 3 && j % 97 == 0 ? from_bits(0x7ff8ULL << 48)
                                                   : (double)(next64() % 80) - 8.0;
            memcpy(rrow, row, sizeof row);
            c1 = pc_rbf_row(rrow, N, xi, yy, tiny, -0.125, skip, rpos, 0, 64, 5, 0);
            c2 = pc_rbf_row(row, N, xi, yy, tiny, -0.125, skip, pos, 0, 64, 5, path);
            if (c1 != c2 || !same_bits(rrow, row, N) ||
                memcmp(rpos, pos, (size_t)(c1 < 64 ? c1 : 64) * 8))
                return fail(names[path], (long)c1, (long)c2);
        }
        printf("rbf path %s: ok\n", names[path]);
    }
    return 0;
}

static int check_dot_paths(void) {
    /* both loop nests: unpacked (pack 0, or fewer than PC_DOT_PACK_MIN_ROWS rows) and packed,
     * d past one k-block (PC_DOT_KC) */
    enum { M = 45, N = 37, D = 530 };
    static const char *names[] = {"portable", "simd", "avx2", "avx512"};
    static double X[M * D], Y[N * D], ref[M * N], got[M * N];
    for (ptrdiff_t i = 0; i < M * D; i++) /* products of every scale: each order rounds apart */
        X[i] = ldexp((double)(int64_t)(next64() >> 20) * 0x1p-44, (int)(next64() % 41) - 20);
    for (ptrdiff_t i = 0; i < N * D; i++)
        Y[i] = ldexp((double)(int64_t)(next64() >> 20) * 0x1p-44, (int)(next64() % 41) - 20);
    for (int path = 1; path <= PC_DOT_AVX512_PATH; path++) {
        if (!pc_dot_path_available(path)) continue;
        for (ptrdiff_t d = 0; d <= D; d += (d < 9 ? 1 : 31)) /* every tail, then wide rows */
            for (ptrdiff_t m = 1; m <= M; m += 11)
                for (int pack = 0; pack <= 1; pack++) {
                    pc_gram_dot(X, m, Y, N, d, ref, N, PC_DOT_PORTABLE, 0);
                    pc_gram_dot(X, m, Y, N, d, got, N, path, pack);
                    if (!same_bits(ref, got, m * N)) return fail(names[path], (long)m, (long)d);
                }
        printf("dot path %s: ok\n", names[path]);
    }
    return 0;
}

/* The Viterbi step on every path against the baseline, bit for bit: the best scores of all K
 * states j of one step from n predecessors, rows of the scores at a stride of K (first order)
 * or more (second order's trigram rows), with and without e, on scores full of ties (small
 * integers, signed zeros) and NaN for K of every residue mod 16. */
static int check_viterbi_paths(void) {
    enum { KMAX = 46, SMAX = (KMAX + 1) * (KMAX + 1) };
    static const char *names[] = {"baseline", "avx2"};
    static double d[KMAX], tr[KMAX * SMAX], e[KMAX], nxt[2][KMAX];
    int best = pc_viterbi_best_path(), path, rep;
    ptrdiff_t K, n, stride, j;
    for (path = 1; path <= best; path++) {
        for (rep = 0; rep < 400; rep++) {
            K = 1 + (ptrdiff_t)(next64() % KMAX);
            n = 1 + (ptrdiff_t)(next64() % KMAX);
            stride = rep % 2 ? K : (K + 1) * (K + 1);
            for (j = 0; j < KMAX; j++) {
                d[j] = next64() % 50 ? (double)(int)(next64() % 5) - 2.0 : NAN;
                e[j] = next64() % 7 ? (double)(int)(next64() % 5) - 2.0 : -0.0;
            }
            for (j = 0; j < (n - 1) * stride + K; j++)
                tr[j] = (double)(int)(next64() % 5) - 2.0;
            for (int p = 0; p < 2; p++)
                pc_viterbi_step(d, tr, stride, rep % 3 ? e : NULL, nxt[p], n, K, p ? path : 0);
            if (!same_bits(nxt[0], nxt[1], K)) {
                printf("viterbi path %s: differs at K = %d, n = %d\n", names[path], (int)K,
                       (int)n);
                return 1;
            }
        }
        printf("viterbi path %s: ok\n", names[path]);
    }
    return 0;
}

int main(void) {
#ifdef PC_MSVC
    printf("branch: msvc\n");
#else
    printf("branch: gcc/clang\n");
#endif
#ifdef PC_X86_DISPATCH
    printf("dispatch: x86\n");
#endif
    if (check_cpu() || check_popcount_paths() || check_rbf_paths() || check_dot_paths() ||
        check_viterbi_paths())
        return 1;
    printf("ok\n");
    return 0;
}
