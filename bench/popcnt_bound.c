/* The POPCNT path's ceiling on this core, measured beside the path itself.
 *
 * The scalar popcount Gram spends three integer operations per word pair: AND, POPCNT, ADD.
 * This program times, alternately in one run:
 *   - the POPCNT path of _popcount.h on a 2000 x 2000 Gram of 1024-bit rows into int64 (A x B);
 *   - the same three operations on 3 x 3 words held in registers, nine independent sums, with
 *     no load and no store: what the core's integer units do with nothing else in the way;
 *   - the same nine sums on two threads at once (one copy each): whether the two CPUs are
 *     separate cores (about 2x) or two threads of one (about 1x).
 * It prints word pairs per second for each, the path's share of the register loop, and what
 * the register loop implies for 1024-bit pairs. Build and run from the repository root:
 *
 *   gcc -O3 -fwrapv -pthread -Iperceptron_c bench/popcnt_bound.c -o /tmp/popcnt_bound
 *   /tmp/popcnt_bound [rounds]
 *
 * x86-64 with POPCNT only; the best of `rounds` (default 30) alternated calls of each.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "_popcount.h"

#ifndef PC_X86_DISPATCH
#error "needs the x86-64 paths of _popcount.h"
#endif

#define KEEP(x) __asm__ volatile("" : "+r"(x)) /* a value the compiler must treat as new */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const long LOOPS = 4000000; /* 9 word pairs each */

__attribute__((target("popcnt"), noinline)) static uint64_t in_registers(long loops) {
    uint64_t a0 = 0x0123456789abcdefu, a1 = ~a0, a2 = a0 ^ 0xff00ff00ff00ff00u;
    uint64_t b0 = a0 >> 3, b1 = a1 >> 5, b2 = a2 >> 7;
    uint64_t s[9] = {0};
    for (long i = 0; i < loops; i++) {
        KEEP(a0); KEEP(a1); KEEP(a2); KEEP(b0); KEEP(b1); KEEP(b2);
        s[0] += (uint64_t)__builtin_popcountll(a0 & b0);
        s[1] += (uint64_t)__builtin_popcountll(a0 & b1);
        s[2] += (uint64_t)__builtin_popcountll(a0 & b2);
        s[3] += (uint64_t)__builtin_popcountll(a1 & b0);
        s[4] += (uint64_t)__builtin_popcountll(a1 & b1);
        s[5] += (uint64_t)__builtin_popcountll(a1 & b2);
        s[6] += (uint64_t)__builtin_popcountll(a2 & b0);
        s[7] += (uint64_t)__builtin_popcountll(a2 & b1);
        s[8] += (uint64_t)__builtin_popcountll(a2 & b2);
    }
    return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7] + s[8];
}

static void *second_thread(void *sink) {
    *(uint64_t *)sink = in_registers(LOOPS);
    return NULL;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 30;
    const ptrdiff_t n = 2000, nw = 16;
    if (!pc_impl_available(PC_IMPL_POPCNT)) {
        fprintf(stderr, "this CPU has no POPCNT\n");
        return 1;
    }
    uint64_t *A = malloc((size_t)(n * nw) * 8), *B = malloc((size_t)(n * nw) * 8);
    int64_t *out = calloc((size_t)(n * n), 8);
    if (!A || !B || !out) return 1;
    uint64_t x = 88172645463325252u; /* xorshift64: any fixed bits do */
    for (ptrdiff_t i = 0; i < n * nw; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17; A[i] = x;
        x ^= x << 13; x ^= x >> 7; x ^= x << 17; B[i] = x;
    }
    double path = 1e30, regs = 1e30, two = 1e30;
    uint64_t sink = 0, other = 0;
    for (int r = 0; r < rounds; r++) {
        double t = now();
        pc_gram_rows(PC_IMPL_POPCNT, A, n, B, n, nw, out, n, PC_OUT_I64, 0, 0);
        double e = now() - t;
        path = e < path ? e : path;
        t = now();
        sink += in_registers(LOOPS);
        e = now() - t;
        regs = e < regs ? e : regs;
        pthread_t th;
        t = now();
        if (pthread_create(&th, NULL, second_thread, &other) != 0) return 1;
        sink += in_registers(LOOPS);
        pthread_join(th, NULL);
        e = now() - t;
        two = e < two ? e : two;
    }
    double wp_path = (double)(n * n * nw) / path, wp_regs = 9.0 * LOOPS / regs;
    printf("POPCNT path, 2000 x 2000 x 1024 bits, int64 A x B: %.3g pairs/s = %.3g word pairs/s\n",
           (double)(n * n) / path, wp_path);
    printf("AND+POPCNT+ADD in registers, 1 thread:  %.3g word pairs/s -> at most %.3g pairs/s "
           "of 1024 bits\n", wp_regs, wp_regs / 16.0);
    printf("the same on 2 threads at once:          %.2fx one thread\n", 2.0 * regs / two);
    printf("the path reaches %.2f of the register loop (checksum %llu)\n", wp_path / wp_regs,
           (unsigned long long)(sink + other + (uint64_t)out[12345]));
    free(A);
    free(B);
    free(out);
    return 0;
}
