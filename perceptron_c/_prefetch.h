/* Software prefetch where the compiler offers it; a no-op elsewhere (portable builds). */
#ifndef PERCEPTRON_C_PREFETCH_H
#define PERCEPTRON_C_PREFETCH_H
#if defined(__GNUC__) || defined(__clang__)
#define PC_PREFETCH(p) __builtin_prefetch((const void *)(p), 0, 3)
#else
#define PC_PREFETCH(p) ((void)(p))
#endif
#endif
