/* cpu_sort_keys.h - the sort's unsigned keys (Note [radix sort] in cpu_sort.c):
 * a key's ascending order is the sort's order (desc: descending), equal values
 * (-0.0 and 0.0, any two NaNs) get equal keys, and NaN is the largest value.
 * cpu_sort.c's radix sort and cpu_topk.c's selection order by them; short rows sort
 * them packed with their indices (cpu_sort_packed.c). */
#ifndef PDT_CPU_SORT_KEYS_H
#define PDT_CPU_SORT_KEYS_H

#include <stdint.h>
#include <string.h>

/* Branch-free: -0.0 made 0.0, a negative value's bits all flipped and a positive one's
 * sign bit set, every NaN all ones.  (The ternary form compiled to a branch on the sign,
 * mispredicted half the time on random data: 2.5x slower selection.) */
static inline uint32_t key_f32(float x, int desc)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    u &= -(uint32_t)(x != 0);
    u ^= (uint32_t)((int32_t)u >> 31) | 0x80000000u;
    u |= -(uint32_t)(x != x);
    return desc ? ~u : u;
}
static inline uint64_t key_f64(double x, int desc)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    u &= -(uint64_t)(x != 0);
    u ^= (uint64_t)((int64_t)u >> 63) | (uint64_t)1 << 63;
    u |= -(uint64_t)(x != x);
    return desc ? ~u : u;
}
static inline uint32_t key_i32(int32_t x, int desc)
{
    uint32_t u = (uint32_t)x ^ 0x80000000u;
    return desc ? ~u : u;
}
static inline uint64_t key_i64(int64_t x, int desc)
{
    uint64_t u = (uint64_t)x ^ ((uint64_t)1 << 63);
    return desc ? ~u : u;
}

/* Sorts the n distinct keys a[0..n) ascending (n < 2^32 - 1 with packed keys: every key
 * below all ones), tmp n more (cpu_sort_packed.c, Note [short rows as packed keys]). */
void pdt_cpu_sort_packed(uint64_t *a, uint64_t *tmp, int64_t n);
/* the same for 128-bit packed keys, a 64-bit key above the index */
void pdt_cpu_sort_packed128(unsigned __int128 *a, unsigned __int128 *tmp, int64_t n);

#endif /* PDT_CPU_SORT_KEYS_H */
