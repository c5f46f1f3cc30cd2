/* cpu_vtake.h - the take of a contiguous row at int64 indices, t[q] = f[ix[q]], at each
 * dispatch level (included by cpu_vmath.h; Note [CPU dispatch levels] in cpu_simd.h).
 *
 * Note [the take's checks in vectors]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * index_select's innermost loop (cpu_index.c, ISEL_PIECE) wraps each index, checks it
 * against the size and picks element 0 for one outside (Note [the index read once]),
 * 18 instructions an element built for the baseline: 1e5 uint8 at random indices
 * took 114-121 us on one thread, NumPy's x[idx] 87; int64 181-204 (NumPy 176).  At
 * AVX2 four indices are loaded in one vector (each read once), wrapped, checked and
 * zeroed where outside in it, stored to a private array and the four elements loaded
 * from there: 58 and 104 us in a test loop on an AVX2 EPYC.  (AVX2's gathers took 98
 * and 139: on Zen 3 a gather is no faster than its loads.)  Returns whether an index
 * was outside [-size, size); the same elements at every level (the tail and the baseline
 * through cpu_index_in.h's index_in, as cpu_index.c's other loops). */

#include "cpu_index_in.h"

#define VM_TAKE(NAME, T)                                                                           \
    static int VM(NAME)(T * t, const T *f, const int64_t *ix, int64_t n, int64_t size)             \
    {                                                                                              \
        int64_t q = 0, bad = 0;                                                                    \
        VM_TAKE_FOURS(T)                                                                           \
        for (; q < n; q++)                                                                         \
            t[q] = f[index_in(READ_ONCE(&ix[q]), size, &bad)];                                     \
        return bad != 0;                                                                           \
    }

#if defined(__AVX2__)
#define VM_TAKE_FOURS(T)                                                                           \
    {                                                                                              \
        const __m256i vs = _mm256_set1_epi64x(size), z = _mm256_setzero_si256(),                   \
                      sign = _mm256_set1_epi64x(INT64_MIN), ones = _mm256_set1_epi64x(-1);         \
        const __m256i top = _mm256_xor_si256(vs, sign);                                            \
        __m256i outside = z;                                                                       \
        for (; q + 4 <= n; q += 4) {                                                               \
            __m256i v = _mm256_loadu_si256((const __m256i *)(ix + q));                             \
            v = _mm256_add_epi64(v, _mm256_and_si256(_mm256_cmpgt_epi64(z, v), vs));               \
            const __m256i in = _mm256_cmpgt_epi64(top, _mm256_xor_si256(v, sign));                 \
            outside = _mm256_or_si256(outside, _mm256_xor_si256(in, ones));                        \
            int64_t a[4];                                                                          \
            _mm256_storeu_si256((__m256i *)a, _mm256_and_si256(v, in));                            \
            const T e0 = f[a[0]], e1 = f[a[1]], e2 = f[a[2]], e3 = f[a[3]];                        \
            t[q] = e0, t[q + 1] = e1, t[q + 2] = e2, t[q + 3] = e3;                                \
        }                                                                                          \
        bad = !_mm256_testz_si256(outside, outside);                                               \
    }
#else
#define VM_TAKE_FOURS(T)
#endif

VM_TAKE(take_u8, uint8_t)
VM_TAKE(take_u16, uint16_t)
VM_TAKE(take_u32, uint32_t)
VM_TAKE(take_u64, uint64_t)
