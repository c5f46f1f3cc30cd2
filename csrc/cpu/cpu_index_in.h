/* cpu_index_in.h - one index value wrapped and checked where it is used: shared by
 * cpu_index.c (built once, for the baseline) and the take at each dispatch level
 * (cpu_vtake.h, through cpu_vmath.h), so that every level reads, wraps and checks an
 * index the same way (Note [the index read once] in cpu_index.c). */
#ifndef PDT_CPU_INDEX_IN_H
#define PDT_CPU_INDEX_IN_H

#include <stdint.h>

/* An index value read once: a relaxed atomic load, which the compiler may neither repeat
 * after the check nor merge with another (a plain load through a pointer it believes
 * unchanged could be reloaded); on x86 the same one move.  HIDE(v) after a plain load
 * does the same for v (the empty asm's output is all the compiler knows of it) without
 * holding back the loop's other loads and stores, which the atomic did in index_add's
 * loop (1e5 float32 at random indices: plain 70 us, atomic 90, HIDE 69; A/B, quiet
 * machine).  The take keeps the atomic: 81 -> 60 us against the plain load. */
#define READ_ONCE(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define HIDE(v) __asm__("" : "+r"(v))

/* i counted from the end when negative (i + size), without a branch: size is added
 * through the sign mask (an arithmetic shift, as GCC and Clang do for int64_t) */
static inline int64_t wrap(int64_t i, int64_t size) { return i + (size & (i >> 63)); }

/* v wrapped into [0, size), or 0 with *bad set when it is outside [-size, size) */
static inline int64_t index_in(int64_t v, int64_t size, int64_t *bad)
{
    const int64_t w = wrap(v, size);
    const int64_t out = (int64_t)((uint64_t)w >= (uint64_t)size);
    *bad |= out;
    return out ? 0 : w;
}

#endif
