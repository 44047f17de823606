/* The x86-64 paths of the popcount Gram (POPCNT, AVX2, AVX-512 VPOPCNTDQ), each compiled
 * with its own PC_TARGET (_simd.h: none on MSVC) and chosen at run time; included by
 * _popcount.h only when PC_X86_DISPATCH is set, after the portable helpers it uses. */
#ifndef PERCEPTRON_C_POPCOUNT_X86_H
#define PERCEPTRON_C_POPCOUNT_X86_H

#define PC_TPOPCNT PC_TARGET("popcnt")
#define PC_EDGE_POPCNT(MR, NR) pc_edge_popcnt_##MR##_##NR
#define PC_EDGE_POPCNT_(MR, NR) PC_EDGE_POPCNT(MR, NR)
PC_DEF_TILE_SCALAR(pc_edge_popcnt_3_1, PC_TPOPCNT, 3, 1, 1)
PC_DEF_TILE_SCALAR(pc_edge_popcnt_1_3, PC_TPOPCNT, 1, 3, 1)
PC_DEF_TILE_SCALAR(pc_edge_popcnt_1_1, PC_TPOPCNT, 1, 1, 1)

PC_TPOPCNT static void pc_gram_popcnt(const uint64_t *A, ptrdiff_t na, const uint64_t *B,
                                      ptrdiff_t nb, ptrdiff_t nw, pc_dst d) {
    PC_GRAM_SCALAR_BODY(PC_EDGE_POPCNT_, 1)
}

/* Packs rows [s * nr, s * nr + nr) of B word-major, zero rows past nb: dst[k * nr + c]. */
PC_INLINE void pc_pack_strip(const uint64_t *B, ptrdiff_t nb, ptrdiff_t nw, ptrdiff_t j,
                             ptrdiff_t nr, uint64_t *dst) {
    for (ptrdiff_t c = 0; c < nr; c++) {
        if (j + c < nb) {
            const uint64_t *src = B + (j + c) * nw;
            for (ptrdiff_t k = 0; k < nw; k++) dst[k * nr + c] = src[k];
        } else {
            for (ptrdiff_t k = 0; k < nw; k++) dst[k * nr + c] = 0;
        }
    }
}

/* ---- AVX2: the nibble lookup of [Mula2018], "Faster Population Counts Using
 * AVX2 Instructions", turned around for a Gram: vpshufb's 16-byte table is popcount(n & x) for
 * one nibble n of ONE byte of an A row (from a table of 256 x 2 such tables), its 32 indices the
 * nibbles x of that byte in 32 B rows (B packed byte-major as two nibble planes). A step is 2
 * vpshufb + 2 byte adds for 32 pairs x 1 byte, with no AND and no shift in the loop; the byte
 * counters (<= 8 a step) are widened to 16-bit sums every 3 words. Packed: the tables, then
 * strips of PC_NR2 rows: per word, per byte, PC_NR2 low nibbles then PC_NR2 high nibbles. */
#define PC_T256 PC_TARGET("avx2,popcnt")
/* Stops gcc from reassociating the 8 byte steps of a word into a tree that spills registers
 * (MSVC has no such asm, and keeps the order it is given). */
#ifdef PC_MSVC
#define PC_IN_REGISTER(x) ((void)0)
#else
#define PC_IN_REGISTER(x) __asm__("" : "+x"(x))
#endif
#define PC_TAB2_WORDS 1024

PC_T256 static void pc_pack_avx2(const uint64_t *B, ptrdiff_t nb, ptrdiff_t nw, uint64_t *dst) {
    static const unsigned char zeros[8] = {0};
    unsigned char *tab = (unsigned char *)dst, *p = (unsigned char *)(dst + PC_TAB2_WORDS);
    for (int x = 0; x < 256; x++)
        for (int n = 0; n < 16; n++) {
            tab[32 * x + n] = (unsigned char)PC_POPCOUNT64((uint64_t)(n & x));
            tab[32 * x + 16 + n] = (unsigned char)PC_POPCOUNT64((uint64_t)(n & (x >> 4)));
        }
    /* word by word across the strip's rows: the 16 output lines stay in L1 */
    for (ptrdiff_t j = 0; j < nb; j += PC_NR2, p += 16 * PC_NR2 * nw)
        for (ptrdiff_t k = 0; k < nw; k++)
            for (ptrdiff_t c = 0; c < PC_NR2; c++) {
                const unsigned char *w =
                    j + c < nb ? (const unsigned char *)(B + (j + c) * nw + k) : zeros;
                for (int q = 0; q < 8; q++) {
                    unsigned x = w[q];
                    p[(8 * k + q) * 2 * PC_NR2 + c] = (unsigned char)(x & 15);
                    p[(8 * k + q) * 2 * PC_NR2 + PC_NR2 + c] = (unsigned char)(x >> 4);
                }
            }
}

/* 16 uint16 sums of B rows -> out (of type kind), added to what is there if add. */
PC_T256 PC_INLINE void pc_put16_avx2(__m256i w, void *out, ptrdiff_t off, int kind, int add) {
    if (kind == PC_OUT_I16) { /* the sums are < 2^15 there: stored as they are */
        __m256i *o = (__m256i *)((int16_t *)out + off);
        if (add) w = _mm256_add_epi16(w, _mm256_loadu_si256(o));
        _mm256_storeu_si256(o, w);
        return;
    }
    __m128i half[2] = {_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)};
    PC_UNROLL for (int h = 0; h < 2; h++) {
        if (kind == PC_OUT_I32) {
            __m256i *o = (__m256i *)((int32_t *)out + off + 8 * h);
            __m256i x = _mm256_cvtepu16_epi32(half[h]);
            if (add) x = _mm256_add_epi32(x, _mm256_loadu_si256(o));
            _mm256_storeu_si256(o, x);
        } else {
            PC_UNROLL for (int e = 0; e < 2; e++) {
                __m256i *o = (__m256i *)((int64_t *)out + off + 8 * h + 4 * e);
                __m256i x = _mm256_cvtepu16_epi64(e ? _mm_unpackhi_epi64(half[h], half[h])
                                                    : half[h]);
                if (add) x = _mm256_add_epi64(x, _mm256_loadu_si256(o));
                _mm256_storeu_si256(o, x);
            }
        }
    }
}

/* mr rows of A (stride lda) against the PC_NR2 rows of one strip bp, into rows row..
 * and columns col.. (cols of them left) of out; word-block sums are <= 64 * PC_KC < 2^16. */
PC_T256 PC_INLINE void pc_tile_avx2(const uint64_t *a, ptrdiff_t lda, const uint64_t *bp,
                                    const unsigned char *tab, ptrdiff_t kc, const int mr,
                                    pc_dst d, ptrdiff_t row, ptrdiff_t col,
                                    ptrdiff_t cols) {
    const __m256i zero = _mm256_setzero_si256();
    __m256i w[PC_MR2][PC_NRV2][2];
    PC_UNROLL for (int r = 0; r < mr; r++) PC_UNROLL for (int v = 0; v < PC_NRV2; v++)
        w[r][v][0] = w[r][v][1] = zero;
    for (ptrdiff_t k = 0; k < kc;) {
        ptrdiff_t stop = kc - k > 3 ? k + 3 : kc;
        __m256i c[PC_MR2][PC_NRV2];
        PC_UNROLL for (int r = 0; r < mr; r++) PC_UNROLL for (int v = 0; v < PC_NRV2; v++)
            c[r][v] = zero;
        for (; k < stop; k++) {
            const __m256i *bk = (const __m256i *)bp + k * 16 * PC_NRV2;
            PC_UNROLL for (int q = 0; q < 8; q++) {
                __m256i lo[PC_NRV2], hi[PC_NRV2];
                PC_UNROLL for (int v = 0; v < PC_NRV2; v++) {
                    lo[v] = _mm256_load_si256(bk + 2 * q * PC_NRV2 + v);
                    hi[v] = _mm256_load_si256(bk + (2 * q + 1) * PC_NRV2 + v);
                }
                PC_UNROLL for (int r = 0; r < mr; r++) {
                    const unsigned char *t =
                        tab + 32 * (size_t)((const unsigned char *)(a + r * lda + k))[q];
                    __m256i tl = _mm256_broadcastsi128_si256(_mm_load_si128((const __m128i *)t));
                    __m256i th =
                        _mm256_broadcastsi128_si256(_mm_load_si128((const __m128i *)(t + 16)));
                    PC_UNROLL for (int v = 0; v < PC_NRV2; v++) {
                        c[r][v] = _mm256_add_epi8(c[r][v],
                                                  _mm256_add_epi8(_mm256_shuffle_epi8(tl, lo[v]),
                                                                  _mm256_shuffle_epi8(th, hi[v])));
                        PC_IN_REGISTER(c[r][v]);
                    }
                }
            }
        }
        PC_UNROLL for (int r = 0; r < mr; r++) PC_UNROLL for (int v = 0; v < PC_NRV2; v++) {
            w[r][v][0] = _mm256_add_epi16(w[r][v][0],
                                          _mm256_cvtepu8_epi16(_mm256_castsi256_si128(c[r][v])));
            w[r][v][1] = _mm256_add_epi16(
                w[r][v][1], _mm256_cvtepu8_epi16(_mm256_extracti128_si256(c[r][v], 1)));
        }
    }
    if (cols >= PC_NR2 && !d.sym) {
        PC_UNROLL for (int r = 0; r < mr; r++) PC_UNROLL for (int v = 0; v < PC_NRV2; v++)
            PC_UNROLL for (int h = 0; h < 2; h++)
                pc_put16_avx2(w[r][v][h], d.out, (row + r) * d.ldo + col + 32 * v + 16 * h,
                              d.kind, d.add);
    } else {
        int64_t t[PC_MR2][PC_NR2] = {{0}};
        PC_UNROLL for (int r = 0; r < mr; r++) PC_UNROLL for (int v = 0; v < PC_NRV2; v++)
            PC_UNROLL for (int h = 0; h < 2; h++)
                pc_put16_avx2(w[r][v][h], t[r], 32 * v + 16 * h, 0, 0);
        pc_put_tile(d, row, col, &t[0][0], PC_NR2, mr, cols < PC_NR2 ? cols : PC_NR2);
    }
}

#define PC_DEF_TILE_AVX2(MR)                                                                   \
    PC_T256 PC_NOINLINE static void pc_edge_avx2_##MR(                                         \
        const uint64_t *a, ptrdiff_t lda, const uint64_t *bp, const unsigned char *tab,         \
        ptrdiff_t kc, pc_dst d, ptrdiff_t row, ptrdiff_t col, ptrdiff_t cols) {                \
        pc_tile_avx2(a, lda, bp, tab, kc, MR, d, row, col, cols);                              \
    }
/* edge tiles of fewer rows only: the strips are zero past nb (_popcount.h) */
PC_DEF_TILE_AVX2(1) PC_DEF_TILE_AVX2(2)
static void (*const pc_edges_avx2[PC_MR2 - 1])(const uint64_t *, ptrdiff_t, const uint64_t *,
                                               const unsigned char *, ptrdiff_t, pc_dst,
                                               ptrdiff_t, ptrdiff_t, ptrdiff_t) = {
    pc_edge_avx2_1, pc_edge_avx2_2};

PC_T256 static void pc_gram_avx2(const uint64_t *A, ptrdiff_t na, const uint64_t *Bp,
                                 ptrdiff_t nb, ptrdiff_t nw, pc_dst d) {
    const unsigned char *tab = (const unsigned char *)Bp;
    const uint64_t *strips = Bp + PC_TAB2_WORDS;
    ptrdiff_t kb = nw < PC_KC ? nw : PC_KC;
    ptrdiff_t nc = PC_PANEL_BYTES / (16 * kb);
    nc = nc < PC_NR2 ? PC_NR2 : nc - nc % PC_NR2;
    for (ptrdiff_t j0 = 0; j0 < nb; j0 += nc) {
        ptrdiff_t j1 = j0 + nc < nb ? j0 + nc : nb;
        for (ptrdiff_t k0 = 0; k0 < nw; k0 += PC_KC) {
            ptrdiff_t kc = nw - k0 < PC_KC ? nw - k0 : PC_KC;
            d.add = k0 > 0;
            for (ptrdiff_t i = 0; i < na; i += PC_MR2) {
                int mr = na - i < PC_MR2 ? (int)(na - i) : PC_MR2;
                const uint64_t *a = A + i * nw + k0;
                for (ptrdiff_t j = pc_first_col(d, d.i0 + i, j0, PC_NR2); j < j1; j += PC_NR2) {
                    const uint64_t *bp = strips + 2 * (j * nw + k0 * PC_NR2);
                    if (j + PC_NR2 < j1)
                        pc_prefetch_tile(d, d.i0 + i, j + PC_NR2, mr, PC_NR2, nb);
                    if (mr == PC_MR2)
                        pc_tile_avx2(a, nw, bp, tab, kc, PC_MR2, d, d.i0 + i, j, nb - j);
                    else
                        pc_edges_avx2[mr - 1](a, nw, bp, tab, kc, d, d.i0 + i, j, nb - j);
                }
            }
        }
    }
}

#ifdef PC_HAVE_AVX512
/* ---- AVX-512 VPOPCNTDQ: one vpopcntq per 8 words (8 B rows x 1 word); sums stay in zmm. */
#define PC_T512 PC_TARGET("avx512f,avx512vpopcntdq,popcnt")

/* out[col + c][row .. row + 3] (+)= s0..s3[c], c < 8: the 4 x 8 block written transposed
 * (the mirror image of a tile above the diagonal), two columns per vpermt2q. */
PC_T512 PC_INLINE void pc_put_transposed512(pc_dst d, ptrdiff_t row, ptrdiff_t col, __m512i s0,
                                            __m512i s1, __m512i s2, __m512i s3) {
    const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
    const __m512i hi = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
    __m512i t0 = _mm512_unpacklo_epi64(s0, s1), t1 = _mm512_unpackhi_epi64(s0, s1);
    __m512i t2 = _mm512_unpacklo_epi64(s2, s3), t3 = _mm512_unpackhi_epi64(s2, s3);
    /* columns (0, 2), (4, 6), (1, 3), (5, 7): 4 rows of one column in each 256-bit half */
    __m512i q[4] = {_mm512_permutex2var_epi64(t0, lo, t2), _mm512_permutex2var_epi64(t0, hi, t2),
                    _mm512_permutex2var_epi64(t1, lo, t3), _mm512_permutex2var_epi64(t1, hi, t3)};
    static const int first[4] = {0, 4, 1, 5};
    PC_UNROLL for (int m = 0; m < 4; m++) {
        ptrdiff_t c0 = (col + first[m]) * d.ldo + row, c1 = c0 + 2 * d.ldo;
        if (d.kind == PC_OUT_I16) { /* 4 rows of a column in each 64-bit half */
            __m128i x = _mm512_cvtepi64_epi16(q[m]);
            __m128i *o0 = (__m128i *)((int16_t *)d.out + c0);
            __m128i *o1 = (__m128i *)((int16_t *)d.out + c1);
            __m128i x1 = _mm_unpackhi_epi64(x, x);
            if (d.add) {
                x = _mm_add_epi16(x, _mm_loadl_epi64(o0));
                x1 = _mm_add_epi16(x1, _mm_loadl_epi64(o1));
            }
            _mm_storel_epi64(o0, x);
            _mm_storel_epi64(o1, x1);
        } else if (d.kind == PC_OUT_I32) {
            __m256i x = _mm512_cvtepi64_epi32(q[m]);
            __m128i *o0 = (__m128i *)((int32_t *)d.out + c0);
            __m128i *o1 = (__m128i *)((int32_t *)d.out + c1);
            __m128i x0 = _mm256_castsi256_si128(x), x1 = _mm256_extracti128_si256(x, 1);
            if (d.add) {
                x0 = _mm_add_epi32(x0, _mm_loadu_si128(o0));
                x1 = _mm_add_epi32(x1, _mm_loadu_si128(o1));
            }
            _mm_storeu_si128(o0, x0);
            _mm_storeu_si128(o1, x1);
        } else {
            __m256i *o0 = (__m256i *)((int64_t *)d.out + c0);
            __m256i *o1 = (__m256i *)((int64_t *)d.out + c1);
            __m256i x0 = _mm512_castsi512_si256(q[m]), x1 = _mm512_extracti64x4_epi64(q[m], 1);
            if (d.add) {
                x0 = _mm256_add_epi64(x0, _mm256_loadu_si256(o0));
                x1 = _mm256_add_epi64(x1, _mm256_loadu_si256(o1));
            }
            _mm256_storeu_si256(o0, x0);
            _mm256_storeu_si256(o1, x1);
        }
    }
}

/* mr rows of A (stride lda) against the PC_NR5 rows of one strip bp, into rows row..
 * and columns col.. (cols of them left) of out. */
PC_T512 PC_INLINE void pc_tile_avx512(const uint64_t *a, ptrdiff_t lda, const uint64_t *bp,
                                      ptrdiff_t kc, const int mr, pc_dst d,
                                      ptrdiff_t row, ptrdiff_t col, ptrdiff_t cols) {
    __m512i s[PC_MR5][PC_NRV5];
    PC_UNROLL for (int r = 0; r < mr; r++) PC_UNROLL for (int v = 0; v < PC_NRV5; v++)
        s[r][v] = _mm512_setzero_si512();
    for (ptrdiff_t k = 0; k < kc; k++) {
        __m512i b[PC_NRV5];
        PC_UNROLL for (int v = 0; v < PC_NRV5; v++)
            b[v] = _mm512_load_si512((const void *)(bp + k * PC_NR5 + 8 * v));
        PC_UNROLL for (int r = 0; r < mr; r++) {
            __m512i ar = _mm512_set1_epi64((long long)a[r * lda + k]);
            PC_UNROLL for (int v = 0; v < PC_NRV5; v++)
                s[r][v] = _mm512_add_epi64(s[r][v],
                                           _mm512_popcnt_epi64(_mm512_and_si512(ar, b[v])));
        }
    }
    /* whole tiles go out as vectors, and so do their mirror images when strictly above the
     * diagonal; the rest (edges, the diagonal) one sum at a time */
    if (cols >= PC_NR5 && (!d.sym || (mr == 4 && col >= row + 4))) {
        /* even dwords of two vectors of sums: 16 int32 with one vpermt2d */
        const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24,
                                               26, 28, 30);
        PC_UNROLL for (int r = 0; r < mr; r++) {
            if (d.kind == PC_OUT_I16) {
                PC_UNROLL for (int v = 0; v < PC_NRV5; v++) {
                    __m128i p = _mm512_cvtepi64_epi16(s[r][v]);
                    __m128i *o = (__m128i *)((int16_t *)d.out + (row + r) * d.ldo + col + 8 * v);
                    if (d.add) p = _mm_add_epi16(p, _mm_loadu_si128(o));
                    _mm_storeu_si128(o, p);
                }
            } else if (d.kind == PC_OUT_I32) {
                PC_UNROLL for (int v = 0; v + 1 < PC_NRV5; v += 2) {
                    __m512i p = _mm512_permutex2var_epi32(s[r][v], even, s[r][v + 1]);
                    int32_t *o = (int32_t *)d.out + (row + r) * d.ldo + col + 8 * v;
                    if (d.add) p = _mm512_add_epi32(p, _mm512_loadu_si512((const void *)o));
                    _mm512_storeu_si512((void *)o, p);
                }
            } else {
                PC_UNROLL for (int v = 0; v < PC_NRV5; v++) {
                    int64_t *o = (int64_t *)d.out + (row + r) * d.ldo + col + 8 * v;
                    __m512i t = s[r][v];
                    if (d.add) t = _mm512_add_epi64(t, _mm512_loadu_si512((const void *)o));
                    _mm512_storeu_si512((void *)o, t);
                }
            }
        }
        if (d.sym && mr == 4)
            PC_UNROLL for (int v = 0; v < PC_NRV5; v++)
                pc_put_transposed512(d, row, col + 8 * v, s[0][v], s[1][v], s[2][v], s[3][v]);
    } else {
        int64_t t[PC_MR5][PC_NR5] = {{0}};
        PC_UNROLL for (int r = 0; r < mr; r++) PC_UNROLL for (int v = 0; v < PC_NRV5; v++)
            _mm512_storeu_si512((void *)(t[r] + 8 * v), s[r][v]);
        pc_put_tile(d, row, col, &t[0][0], PC_NR5, mr, cols < PC_NR5 ? cols : PC_NR5);
    }
}

#define PC_DEF_TILE_AVX512(MR)                                                                 \
    PC_T512 PC_NOINLINE static void pc_edge_avx512_##MR(                                       \
        const uint64_t *a, ptrdiff_t lda, const uint64_t *bp, ptrdiff_t kc, pc_dst d,           \
        ptrdiff_t row, ptrdiff_t col, ptrdiff_t cols) {                                        \
        pc_tile_avx512(a, lda, bp, kc, MR, d, row, col, cols);                                 \
    }
/* edge tiles of fewer rows only: the strips are zero past nb (_popcount.h) */
PC_DEF_TILE_AVX512(1) PC_DEF_TILE_AVX512(2) PC_DEF_TILE_AVX512(3)
static void (*const pc_edges_avx512[PC_MR5 - 1])(const uint64_t *, ptrdiff_t, const uint64_t *,
                                                 ptrdiff_t, pc_dst, ptrdiff_t, ptrdiff_t,
                                                 ptrdiff_t) = {
    pc_edge_avx512_1, pc_edge_avx512_2, pc_edge_avx512_3};

PC_T512 static void pc_gram_avx512(const uint64_t *A, ptrdiff_t na, const uint64_t *Bp,
                                   ptrdiff_t nb, ptrdiff_t nw, pc_dst d) {
    /* sym: a strip at a time for PC_MC rows, so the mirror images fill whole lines of out */
    ptrdiff_t mc = d.sym ? PC_MC : PC_MR5;
    ptrdiff_t kb = nw < PC_KC ? nw : PC_KC;
    ptrdiff_t nc = PC_PANEL_BYTES / (8 * kb);
    nc = nc < PC_NR5 ? PC_NR5 : nc - nc % PC_NR5;
    for (ptrdiff_t j0 = 0; j0 < nb; j0 += nc) {
        ptrdiff_t j1 = j0 + nc < nb ? j0 + nc : nb;
        for (ptrdiff_t k0 = 0; k0 < nw; k0 += PC_KC) {
            ptrdiff_t kc = nw - k0 < PC_KC ? nw - k0 : PC_KC;
            d.add = k0 > 0;
            for (ptrdiff_t ic = 0; ic < na; ic += mc) {
                ptrdiff_t ic1 = ic + mc < na ? ic + mc : na;
                for (ptrdiff_t j = pc_first_col(d, d.i0 + ic, j0, PC_NR5); j < j1; j += PC_NR5) {
                    const uint64_t *bp = Bp + j * nw + k0 * PC_NR5;
                    for (ptrdiff_t i = ic; i < ic1; i += PC_MR5) {
                        int mr = ic1 - i < PC_MR5 ? (int)(ic1 - i) : PC_MR5;
                        const uint64_t *a = A + i * nw + k0;
                        if (d.sym && j + PC_NR5 <= d.i0 + i) continue;
                        if (j + PC_NR5 < j1) {
                            pc_prefetch_tile(d, d.i0 + i, j + PC_NR5, mr, PC_NR5, nb);
                            if (d.sym) pc_prefetch_mirror(d, d.i0 + i, j + PC_NR5, PC_NR5, nb);
                        }
                        if (mr == PC_MR5)
                            pc_tile_avx512(a, nw, bp, kc, PC_MR5, d, d.i0 + i, j, nb - j);
                        else
                            pc_edges_avx512[mr - 1](a, nw, bp, kc, d, d.i0 + i, j, nb - j);
                    }
                }
            }
        }
    }
}
#endif /* PC_HAVE_AVX512 */

#endif /* PERCEPTRON_C_POPCOUNT_X86_H */
