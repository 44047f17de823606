/* Gram of popcounts: out[i, j] = popcount(A_i AND B_j) over packed uint64 words.
 *
 * Portable path: the compiler's popcount builtin (SWAR on MSVC; no -mpopcnt, no -march=native:
 * the wheel must run on any CPU of its platform). On x86-64 (gcc, clang, MSVC: see _simd.h),
 * wider paths are compiled with per-function targets and picked AT RUN TIME after a CPU check:
 *   PC_IMPL_POPCNT  hardware POPCNT,                         target("popcnt")
 *   PC_IMPL_AVX2    [Mula2018] nibble lookup,             target("avx2")
 *   PC_IMPL_AVX512  AVX-512 VPOPCNTDQ,                       target("avx512f,avx512vpopcntdq")
 *
 * Blocking is GEMM's (Goto & van de Geijn; BLIS): B is packed once into strips of NR rows,
 * word-major ("for each word k, NR rows' word k"), so a vector holds one word of several B
 * rows; a register-blocked micro-kernel runs MR rows of A against one strip, broadcasting one
 * word of each A row per step and keeping the MR x NR popcount sums in vector registers for
 * the whole word loop: no horizontal reductions, no word tails, one store per sum. Strips of
 * a panel of B (about PC_PANEL_BYTES) stay in L2 while A streams past them; rows wider than
 * PC_KC words are cut into word blocks whose sums are added into out.
 *
 * When A is B (the Gram of a set with itself), pc_gram_rows can compute only the tiles on and
 * right of the diagonal and store each sum twice; pc_sym_pays says on which paths that wins.
 *
 * API: pc_packed_words / pc_pack_b once per B (the scalar paths use B as it is), then
 * pc_gram_rows (or pc_gram_packed, pc_gram_packed_i64 / _i32 / _i16) on any rows of A: disjoint row
 * blocks may run in parallel. pc_gram_popcount does all of it in one call (int64 out).
 * Integer sums: every path gives the same result, into int16, int32 or int64 out directly,
 * chosen by `kind` (PC_OUT_I64, PC_OUT_I32, PC_OUT_I16: the entry is 8 >> kind bytes); that
 * every popcount fits the type is the caller's check (64 * nw < 2^31 for int32; for int16 a
 * row popcount below 2^15, so the exponents of up to 32767 bits are written 2 bytes each).
 */
#ifndef PERCEPTRON_C_POPCOUNT_H
#define PERCEPTRON_C_POPCOUNT_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_simd.h"

enum { PC_IMPL_BUILTIN = 0, PC_IMPL_POPCNT = 1, PC_IMPL_AVX2 = 2, PC_IMPL_AVX512 = 3 };
/* The type of out: its entries are 8 >> kind bytes (the old int out32 flag is kind 0 or 1). */
enum { PC_OUT_I64 = 0, PC_OUT_I32 = 1, PC_OUT_I16 = 2 };

#ifdef PC_MSVC
/* The portable path counts bits with SWAR: MSVC's __popcnt64 is the POPCNT instruction, which
 * not every x86-64 CPU Windows 10 runs on has (Core 2, K8); the POPCNT path uses it instead. */
static __inline int pc_swar_popcount64(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
#define PC_POPCOUNT64(x) pc_swar_popcount64(x)
#ifdef PC_X86_DISPATCH
#define PC_POPCOUNT64_HW(x) ((int)__popcnt64(x)) /* x64 only: not in ARM64's <intrin.h> */
#else
#define PC_POPCOUNT64_HW(x) pc_swar_popcount64(x)
#endif
#define PC_INLINE static __forceinline
#define PC_API static __inline
#define PC_UNROLL
#else
/* The builtin is a library call on the portable path, the instruction in a target("popcnt")
 * function: one spelling for both. */
#define PC_POPCOUNT64(x) __builtin_popcountll(x)
#define PC_POPCOUNT64_HW(x) __builtin_popcountll(x)
#define PC_INLINE static inline __attribute__((always_inline))
#define PC_API static inline /* inline: no unused-function warnings where a user takes a part */
/* The micro-kernels' sums live in registers only if their small loops are fully unrolled
 * (clang keeps them in memory, at half the speed, when told "GCC unroll" instead). */
#if defined(__clang__)
#define PC_UNROLL _Pragma("clang loop unroll(full)")
#else
#define PC_UNROLL _Pragma("GCC unroll 16")
#endif
#endif

/* Edge tiles (fewer rows or columns than a micro-tile) are one function per size, called
 * through a table: the hot loop then inlines one tile only, and each keeps its sizes constant.
 * The SIMD paths have edges of fewer rows only: their packed strips are zero past nb, so a
 * tile reads whole strips and stores the columns that exist (12 AVX-512 and 3 AVX2 functions
 * fewer, 23 KB of the wheel; a Gram of 100 x 100 takes 7% longer on AVX-512, and Grams from
 * 600 rows or of single rows the same, within noise: the last strip's extra columns). */
#ifdef PC_MSVC
#define PC_NOINLINE __declspec(noinline)
#else
#define PC_NOINLINE __attribute__((noinline))
#endif

/* Words per word block (<= 1023: AVX2 sums a block in 16 bits), the rows of A that meet a
 * strip in turn in the symmetric mode, the bytes of packed B kept hot per panel (L2). */
#define PC_KC 512
#define PC_MC 64
#define PC_PANEL_BYTES (256 * 1024)
typedef char pc_kc_fits_16_bits[64 * PC_KC < 65536 ? 1 : -1];

/* Block sizes, MR rows of A x NR rows of B (tuned on an AVX-512 Xeon; see bench/README.md). */
#define PC_MRS 3 /* scalar: 3 x 3 sums + 3 A words fit the 16 general registers */
#define PC_NRS 3
#define PC_MR2 3 /* AVX2: 3 x 2 byte counters, 2 x 2 B nibble vectors, 2 tables of 16 ymm */
#define PC_NRV2 2
#define PC_NR2 (32 * PC_NRV2)
#define PC_MR5 4 /* AVX-512: 4 x 4 sums + 4 B vectors (6 x 4 spills under -fwrapv) */
#define PC_NRV5 4
#define PC_NR5 (8 * PC_NRV5)

/* Where a tile's sums go. out is the whole Gram, ldo entries a row, of type kind; row i of
 * the A given is row i0 + i of out. add: add to what is there (word blocks after the first).
 * sym: A is B from row i0 on, and only tiles reaching the diagonal or above are computed; their
 * entries on or above it are stored at out[row][col], those above it also at out[col][row]. */
typedef struct {
    void *out;
    ptrdiff_t ldo, i0;
    int kind, add, sym;
} pc_dst;

PC_INLINE void pc_put1(pc_dst d, ptrdiff_t row, ptrdiff_t col, int64_t v) {
    if (d.kind == PC_OUT_I32) {
        int32_t *o = (int32_t *)d.out + row * d.ldo + col;
        *o = (int32_t)((d.add ? *o : 0) + v);
    } else if (d.kind == PC_OUT_I16) {
        int16_t *o = (int16_t *)d.out + row * d.ldo + col;
        *o = (int16_t)((d.add ? *o : 0) + v);
    } else {
        int64_t *o = (int64_t *)d.out + row * d.ldo + col;
        *o = (d.add ? *o : 0) + v;
    }
}

/* mr x cols sums t[r * ldt + c] of rows row.., columns col.. of out, one at a time. */
PC_INLINE void pc_put_tile(pc_dst d, ptrdiff_t row, ptrdiff_t col, const int64_t *t,
                           ptrdiff_t ldt, int mr, ptrdiff_t cols) {
    for (int r = 0; r < mr; r++)
        for (ptrdiff_t c = 0; c < cols; c++) {
            if (d.sym && col + c < row + r) continue;
            pc_put1(d, row + r, col + c, t[r * ldt + c]);
            if (d.sym && col + c > row + r) pc_put1(d, col + c, row + r, t[r * ldt + c]);
        }
}

/* The first tile (of width nr, from j0 on) a row block starting at row needs: with sym, the
 * tiles left of the diagonal are someone else's mirror images. */
PC_INLINE ptrdiff_t pc_first_col(pc_dst d, ptrdiff_t row, ptrdiff_t j0, ptrdiff_t nr) {
    return d.sym && row > j0 ? j0 + (row - j0) / nr * nr : j0;
}

/* Touches the lines of out of a tile to come (rows row.., columns col.. < nb), so that their
 * misses overlap this tile's work: the int64 Gram is twice the int32 bytes and would otherwise
 * wait on them (measured: up to 25% at 1024 bits). */
PC_INLINE void pc_prefetch_tile(pc_dst d, ptrdiff_t row, ptrdiff_t col, ptrdiff_t mr,
                                ptrdiff_t nr, ptrdiff_t nb) {
#if defined(__GNUC__) || defined(__clang__)
    int shift = 3 - d.kind;
    nr = nb - col < nr ? nb - col : nr;
    for (ptrdiff_t r = 0; r < mr; r++) {
        const char *o = (const char *)d.out + (((row + r) * d.ldo + col) << shift);
        for (ptrdiff_t l = 0; l < nr << shift; l += 64) __builtin_prefetch(o + l, 1, 3);
    }
#else
    (void)d; (void)row; (void)col; (void)mr; (void)nr; (void)nb;
#endif
}

/* The same for the mirror image of a tile: one line in each of the rows col.. of out. */
PC_INLINE void pc_prefetch_mirror(pc_dst d, ptrdiff_t row, ptrdiff_t col, ptrdiff_t nr,
                                  ptrdiff_t nb) {
#if defined(__GNUC__) || defined(__clang__)
    nr = nb - col < nr ? nb - col : nr;
    for (ptrdiff_t c = 0; c < nr; c++)
        __builtin_prefetch((const char *)d.out + (((col + c) * d.ldo + row) << (3 - d.kind)),
                           1, 3);
#else
    (void)d; (void)row; (void)col; (void)nr; (void)nb;
#endif
}

/* ---- scalar paths (builtin, and POPCNT: PC_POPCOUNT64_HW) --------------------------------- */
/* MR x NR sums over kc words, rows of A at a (stride lda) and B at b (stride ldb) as they are.
 * mr, nr and hw (1: the POPCNT path) are constants at every call, so the loops unroll into
 * registers. */
PC_INLINE void pc_tile_scalar(const uint64_t *a, ptrdiff_t lda, const uint64_t *b, ptrdiff_t ldb,
                              ptrdiff_t kc, const int mr, const int nr, const int hw, pc_dst d,
                              ptrdiff_t row, ptrdiff_t col) {
    int64_t s[PC_MRS][PC_NRS] = {{0}};
    for (ptrdiff_t k = 0; k < kc; k++) {
        uint64_t av[PC_MRS];
        PC_UNROLL for (int r = 0; r < mr; r++) av[r] = a[r * lda + k];
        PC_UNROLL for (int c = 0; c < nr; c++) {
            uint64_t bc = b[c * ldb + k];
            PC_UNROLL for (int r = 0; r < mr; r++)
                s[r][c] += hw ? PC_POPCOUNT64_HW(av[r] & bc) : PC_POPCOUNT64(av[r] & bc);
        }
    }
    pc_put_tile(d, row, col, &s[0][0], PC_NRS, mr, nr);
}

#define PC_DEF_TILE_SCALAR(NAME, ATTR, MR, NR, HW)                                             \
    ATTR PC_NOINLINE static void NAME(const uint64_t *a, ptrdiff_t lda, const uint64_t *b,      \
                                      ptrdiff_t kc, pc_dst d, ptrdiff_t row, ptrdiff_t col) {  \
        pc_tile_scalar(a, lda, b, lda, kc, MR, NR, HW, d, row, col);                           \
    }

/* The loop nest of a scalar path; EDGE(mr, nr) names its edge tiles, HW is pc_tile_scalar's.
 * Per word block (PC_KC), per panel of B rows [j0, j1): the rows of A in blocks of PC_MRS, then
 * one at a time. */
#define PC_GRAM_SCALAR_BODY(EDGE, HW)                                                          \
    ptrdiff_t kb = nw < PC_KC ? nw : PC_KC;                                                    \
    ptrdiff_t nc = PC_PANEL_BYTES / (8 * kb);                                                  \
    nc = nc < PC_NRS ? PC_NRS : nc - nc % PC_NRS;                                              \
    for (ptrdiff_t j0 = 0; j0 < nb; j0 += nc) {                                                \
        ptrdiff_t j1 = j0 + nc < nb ? j0 + nc : nb;                                            \
        for (ptrdiff_t k0 = 0; k0 < nw; k0 += PC_KC) {                                         \
            ptrdiff_t kc = nw - k0 < PC_KC ? nw - k0 : PC_KC;                                  \
            ptrdiff_t i = 0, j;                                                                \
            d.add = k0 > 0;                                                                    \
            for (; i + PC_MRS <= na; i += PC_MRS) {                                            \
                const uint64_t *a = A + i * nw + k0;                                           \
                for (j = pc_first_col(d, d.i0 + i, j0, PC_NRS); j + PC_NRS <= j1; j += PC_NRS) \
                    pc_tile_scalar(a, nw, B + j * nw + k0, nw, kc, PC_MRS, PC_NRS, HW, d,        \
                                   d.i0 + i, j);                                               \
                for (; j < j1; j++) EDGE(PC_MRS, 1)(a, nw, B + j * nw + k0, kc, d, d.i0 + i, j); \
            }                                                                                  \
            for (; i < na; i++) {                                                              \
                const uint64_t *a = A + i * nw + k0;                                           \
                for (j = pc_first_col(d, d.i0 + i, j0, PC_NRS); j + PC_NRS <= j1; j += PC_NRS) \
                    EDGE(1, PC_NRS)(a, nw, B + j * nw + k0, kc, d, d.i0 + i, j);               \
                for (; j < j1; j++) EDGE(1, 1)(a, nw, B + j * nw + k0, kc, d, d.i0 + i, j);    \
            }                                                                                  \
        }                                                                                      \
    }

#define PC_EDGE_BUILTIN(MR, NR) pc_edge_builtin_##MR##_##NR
#define PC_EDGE_BUILTIN_(MR, NR) PC_EDGE_BUILTIN(MR, NR)
PC_DEF_TILE_SCALAR(pc_edge_builtin_3_1, , 3, 1, 0)
PC_DEF_TILE_SCALAR(pc_edge_builtin_1_3, , 1, 3, 0)
PC_DEF_TILE_SCALAR(pc_edge_builtin_1_1, , 1, 1, 0)

static void pc_gram_builtin(const uint64_t *A, ptrdiff_t na, const uint64_t *B, ptrdiff_t nb,
                            ptrdiff_t nw, pc_dst d) {
    PC_GRAM_SCALAR_BODY(PC_EDGE_BUILTIN_, 0)
}

#ifdef PC_X86_DISPATCH
#include "_popcount_x86.h"
#endif /* PC_X86_DISPATCH */

/* Is path `impl` compiled in and supported by this CPU (and OS, for the vector state)? */
PC_API int pc_impl_available(int impl) {
    if (impl == PC_IMPL_BUILTIN) return 1;
#ifdef PC_X86_DISPATCH
    if (impl == PC_IMPL_POPCNT) return pc_x86_has(PC_X86_POPCNT);
    if (impl == PC_IMPL_AVX2) return pc_x86_has(PC_X86_AVX2 | PC_X86_POPCNT);
#ifdef PC_HAVE_AVX512
    if (impl == PC_IMPL_AVX512)
        return pc_x86_has(PC_X86_AVX512F | PC_X86_AVX512VPOPCNTDQ | PC_X86_POPCNT);
#endif
#endif
    return 0;
}

PC_API int pc_best_impl(void) {
    int impl;
    for (impl = PC_IMPL_AVX512; impl > PC_IMPL_BUILTIN; impl--)
        if (pc_impl_available(impl)) return impl;
    return PC_IMPL_BUILTIN;
}

/* Does the symmetric mode of pc_gram_rows pay on path impl (measured on a 2000 x 2000 Gram,
 * see bench/README.md)? Its mirror stores go to 32 rows at a time, which costs more than the
 * half of the popcounts it saves where rows are short or the path fast, most of all into
 * int64 out (twice the bytes). */
PC_API int pc_sym_pays(int impl, ptrdiff_t nw, int kind) {
    if (impl == PC_IMPL_AVX512) return kind != PC_OUT_I64 && nw >= 4;
    if (impl == PC_IMPL_AVX2) return 0;
    return nw >= (kind != PC_OUT_I64 ? 4 : 16);
}

/* Words of buffer pc_pack_b needs for B (nb x nw) on path impl; 0: B is used as it is. */
PC_API size_t pc_packed_words(int impl, ptrdiff_t nb, ptrdiff_t nw) {
    (void)nb; (void)nw;
#ifdef PC_X86_DISPATCH
    /* + 8 words: the start is rounded up to a 64-byte line */
    if (impl == PC_IMPL_AVX2)
        return (size_t)((nb + PC_NR2 - 1) / PC_NR2) * PC_NR2 * nw * 2 + PC_TAB2_WORDS + 8;
#ifdef PC_HAVE_AVX512
    if (impl == PC_IMPL_AVX512) return (size_t)((nb + PC_NR5 - 1) / PC_NR5) * PC_NR5 * nw + 8;
#endif
#endif
    (void)impl;
    return 0;
}

/* Packs B for path impl into buf (pc_packed_words(impl, nb, nw) words, any alignment) and
 * returns what to pass as Bp to pc_gram_packed_*: inside buf, or B itself. */
PC_API const uint64_t *pc_pack_b(int impl, const uint64_t *B, ptrdiff_t nb, ptrdiff_t nw,
                                 uint64_t *buf) {
    if (pc_packed_words(impl, nb, nw) == 0) return B;
#ifdef PC_X86_DISPATCH
    uint64_t *dst = (uint64_t *)(((uintptr_t)buf + 63) & ~(uintptr_t)63);
    if (impl == PC_IMPL_AVX2) {
        pc_pack_avx2(B, nb, nw, dst);
    } else {
        for (ptrdiff_t j = 0; j < nb; j += PC_NR5)
            pc_pack_strip(B, nb, nw, j, PC_NR5, dst + j * nw);
    }
    return dst;
#else
    (void)buf;
    return B;
#endif
}

/* Rows i0 .. i0 + na - 1 of the Gram: out[(i0 + i) * ldo + j] = popcount(A_i AND B_j), j < nb,
 * out of type kind (PC_OUT_I64, PC_OUT_I32 or PC_OUT_I16), Bp from pc_pack_b(impl, B, ...). With sym, A must be
 * B + i0 * nw and out the square Gram of B: the entries of these rows on or right of the
 * diagonal are computed once and stored at (i, j) and (j, i); when row blocks covering 0 .. nb
 * are done (in any order, or in parallel: they write disjoint entries), out is the whole Gram.
 * impl must be available (pc_impl_available). */
PC_API void pc_gram_rows(int impl, const uint64_t *A, ptrdiff_t na, const uint64_t *Bp,
                         ptrdiff_t nb, ptrdiff_t nw, void *out, ptrdiff_t ldo, int kind,
                         ptrdiff_t i0, int sym) {
    pc_dst d;
    d.out = out;
    d.ldo = ldo;
    d.i0 = i0;
    d.kind = kind;
    d.add = 0;
    d.sym = sym;
    if (na <= 0 || nb <= 0) return;
    if (nw <= 0) {
        for (ptrdiff_t i = i0; i < i0 + na; i++)
            memset((char *)out + i * ldo * (8 >> kind), 0, (size_t)nb * (8 >> kind));
        return;
    }
#ifdef PC_X86_DISPATCH
    if (impl == PC_IMPL_POPCNT) { pc_gram_popcnt(A, na, Bp, nb, nw, d); return; }
    if (impl == PC_IMPL_AVX2) { pc_gram_avx2(A, na, Bp, nb, nw, d); return; }
#ifdef PC_HAVE_AVX512
    if (impl == PC_IMPL_AVX512) { pc_gram_avx512(A, na, Bp, nb, nw, d); return; }
#endif
#endif
    (void)impl;
    pc_gram_builtin(A, na, Bp, nb, nw, d);
}

/* out[i * ldo + j] = popcount(A_i AND B_j), i < na, j < nb (pc_gram_rows from row 0). */
PC_API void pc_gram_packed(int impl, const uint64_t *A, ptrdiff_t na, const uint64_t *Bp,
                           ptrdiff_t nb, ptrdiff_t nw, void *out, ptrdiff_t ldo, int kind) {
    pc_gram_rows(impl, A, na, Bp, nb, nw, out, ldo, kind, 0, 0);
}

PC_API void pc_gram_packed_i64(int impl, const uint64_t *A, ptrdiff_t na, const uint64_t *Bp,
                               ptrdiff_t nb, ptrdiff_t nw, int64_t *out, ptrdiff_t ldo) {
    pc_gram_packed(impl, A, na, Bp, nb, nw, out, ldo, 0);
}

PC_API void pc_gram_packed_i32(int impl, const uint64_t *A, ptrdiff_t na, const uint64_t *Bp,
                               ptrdiff_t nb, ptrdiff_t nw, int32_t *out, ptrdiff_t ldo) {
    pc_gram_packed(impl, A, na, Bp, nb, nw, out, ldo, 1);
}

PC_API void pc_gram_packed_i16(int impl, const uint64_t *A, ptrdiff_t na, const uint64_t *Bp,
                               ptrdiff_t nb, ptrdiff_t nw, int16_t *out, ptrdiff_t ldo) {
    pc_gram_packed(impl, A, na, Bp, nb, nw, out, ldo, PC_OUT_I16);
}

/* All in one: out (na x nb int64, row-major) = the Gram. If the packing buffer cannot be
 * allocated, the unpacked scalar path computes the same result. */
PC_API void pc_gram_popcount(int impl, const uint64_t *A, ptrdiff_t na, const uint64_t *B,
                             ptrdiff_t nb, ptrdiff_t nw, int64_t *out) {
    size_t words = pc_packed_words(impl, nb, nw);
    uint64_t *buf = words ? (uint64_t *)malloc(words * sizeof(uint64_t)) : NULL;
    if (words && !buf) impl = impl >= PC_IMPL_POPCNT ? PC_IMPL_POPCNT : PC_IMPL_BUILTIN;
    pc_gram_packed(impl, A, na, pc_pack_b(impl, B, nb, nw, buf), nb, nw, out, nb, 0);
    free(buf);
}
#endif /* PERCEPTRON_C_POPCOUNT_H */
