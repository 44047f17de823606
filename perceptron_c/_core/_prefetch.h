/* Software prefetch where the compiler offers it; a no-op elsewhere (portable builds).
 * The empty volatile asm keeps GCC from deleting the prefetches: it judges the inlined
 * helper free of side effects and drops it whole otherwise (measured: 0 prefetch
 * instructions in the built module without it). */
#ifndef PERCEPTRON_C_PREFETCH_H
#define PERCEPTRON_C_PREFETCH_H
#if defined(__GNUC__) || defined(__clang__)
#define PC_PREFETCH(p) do { __builtin_prefetch((const void *)(p), 0, 3); \
                            __asm__ __volatile__(""); } while (0)
#else
#define PC_PREFETCH(p) ((void)(p))
#endif
#endif
