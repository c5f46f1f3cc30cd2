/* cpu_vint.h - integer and bool reductions of contiguous rows, at each dispatch
 * level (included by cpu_vmath.h; Note [CPU dispatch levels] in cpu_simd.h).
 *
 * cpu_reduce.c is built for the baseline, where an int32 max has no instruction
 * (SSE2 lacks pmaxsd, so each lane is a compare and three logic operations) and a
 * bool count widens every byte to 64 bits: int32 max of 1e5 took 1.6 times
 * NumPy's time, a bool count of 1e6 150 us (NumPy's count_nonzero: about 25).
 * These are the same loops built at the level's width.  Integer sums wrap
 * (two's complement, as in PyTorch) and are exact in any order, maxima and
 * minima too, so every level gives the same result. */

/* The wrapping sum of x[0..n) in 8 lanes. */
#define VI_SUM(NAME, T)                                                                            \
    static uint64_t VM(NAME)(const T *x, int64_t n)                                                \
    {                                                                                              \
        uint64_t r[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                                  \
        int64_t i = 0;                                                                             \
        for (; i + 8 <= n; i += 8)                                                                 \
            for (int j = 0; j < 8; j++)                                                            \
                r[j] += (uint64_t)(int64_t)x[i + j];                                               \
        for (; i < n; i++)                                                                         \
            r[0] += (uint64_t)(int64_t)x[i];                                                       \
        return ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));                  \
    }
VI_SUM(sum_i32, int32_t)
VI_SUM(sum_i64, int64_t)

/* The wrapping product of x[0..n) in 32 lanes (a 64-bit multiply's latency is
 * several cycles: four vectors of lanes at AVX-512 keep it busy). */
#define VI_PROD(NAME, T)                                                                           \
    static uint64_t VM(NAME)(const T *x, int64_t n)                                                \
    {                                                                                              \
        uint64_t r[32];                                                                            \
        for (int j = 0; j < 32; j++)                                                               \
            r[j] = 1;                                                                              \
        int64_t i = 0;                                                                             \
        for (; i + 32 <= n; i += 32)                                                               \
            for (int j = 0; j < 32; j++)                                                           \
                r[j] *= (uint64_t)(int64_t)x[i + j];                                               \
        for (; i < n; i++)                                                                         \
            r[0] *= (uint64_t)(int64_t)x[i];                                                       \
        for (int j = 1; j < 32; j++)                                                               \
            r[0] *= r[j];                                                                          \
        return r[0];                                                                               \
    }
VI_PROD(prod_i32, int32_t)
VI_PROD(prod_i64, int64_t)

/* Note [integer column sums]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * sum(0) and prod(0) of an int32 or int64 (k, m) block (cpu_reduce.c's columns
 * layout): r[q] = the wrapping sum (product) over i < k of x[i m + j0 + q],
 * q < nj, each column's running value in its own 64-bit lane, one row at a
 * time, as float32's column sums run in double lanes (cpu_vsum.h).  The fold of
 * cpu_reduce_cols.c, built for the baseline, did it two lanes at a time (and
 * int32 had no instruction to sign-extend): sum(0) of a (1024, 1024) int64
 * matrix took 1.6 times float32's time, int32's 1.1.  Wrapping sums and
 * products are exact in any order, so every level gives the same result.  r
 * may be the int64 output itself. */
#define VI_COLS(NAME, T, INIT, OP)                                                                 \
    static void VM(NAME)(const T *x, int64_t m, int64_t k, int64_t j0, int64_t nj, uint64_t *r)    \
    {                                                                                              \
        for (int64_t q = 0; q < nj; q++)                                                           \
            r[q] = INIT;                                                                           \
        for (int64_t i = 0; i < k; i++) {                                                          \
            const T *restrict row = x + i * m + j0;                                                \
            uint64_t *restrict acc = r;                                                            \
            for (int64_t q = 0; q < nj; q++)                                                       \
                acc[q] OP(uint64_t)(int64_t) row[q];                                               \
        }                                                                                          \
    }
VI_COLS(cols_sum_i32, int32_t, 0, +=)
VI_COLS(cols_sum_i64, int64_t, 0, +=)
VI_COLS(cols_prod_i32, int32_t, 1, *=)
VI_COLS(cols_prod_i64, int64_t, 1, *=)

#if defined(__SSE2__) /* x86: the others build nonzero_bits' plain loop */
#include <immintrin.h>
#endif

/* The number of non-zero bytes of x[0..n): 64 byte lanes counting up to 255
 * each before they are added up, a word of 8 at a time (a bool sum(-1) of rows
 * of 64 spent a third of its time adding the 64 lanes one by one). */
static uint64_t VM(count_b8)(const uint8_t *x, int64_t n)
{
    uint64_t total = 0;
    int64_t i = 0;
    while (i + 64 <= n) {
        uint8_t lane[64];
        memset(lane, 0, sizeof lane);
        int64_t stop = n - i > 255 * 64 ? i + 255 * 64 : n;
        for (; i + 64 <= stop; i += 64)
            for (int j = 0; j < 64; j++)
                lane[j] = (uint8_t)(lane[j] + (x[i + j] != 0));
        for (int j = 0; j < 64; j += 8) { /* 8 byte lanes a word: 4 lanes of 16 bits, */
            uint64_t w;                   /* then their sum in the top 16 bits */
            memcpy(&w, lane + j, 8);
            w = (w & 0x00ff00ff00ff00ffu) + ((w >> 8) & 0x00ff00ff00ff00ffu);
            total += (w * 0x0001000100010001u) >> 48;
        }
    }
    for (; i < n; i++)
        total += x[i] != 0;
    return total;
}

/* The number of elements of x[0..n) whose bits under mask are not all zero: count_nonzero
 * of 2, 4 and 8-byte elements (a float's mask leaves its sign out, so -0.0 counts as zero
 * and NaN as nonzero), counted in lanes of the element's width, added up before a lane
 * can overflow. */
#define VI_COUNT(NAME, T, BLOCK)                                                                   \
    static uint64_t VM(NAME)(const T *x, int64_t n, T mask)                                        \
    {                                                                                              \
        uint64_t total = 0;                                                                        \
        for (int64_t i = 0; i < n;) {                                                              \
            const int64_t stop = n - i > (BLOCK) ? i + (BLOCK) : n;                                \
            T c = 0;                                                                               \
            for (; i < stop; i++)                                                                  \
                c += (T)((x[i] & mask) != 0);                                                      \
            total += c;                                                                            \
        }                                                                                          \
        return total;                                                                              \
    }
VI_COUNT(count_b16, uint16_t, 65535)
VI_COUNT(count_b32, uint32_t, (int64_t)1 << 30)
VI_COUNT(count_b64, uint64_t, INT64_MAX)

/* bits[w] = the non-zero bytes of x[64 w .. 64 w + 64) as bits, byte j at bit j, for
 * w < nwords (Note [compress on the CPU] in cpu_nonzero.c): a compare with zero and a
 * movemask per vector on x86 (SSE2 is the baseline there), else the zero-byte test of
 * Hacker's Delight (6-1) per word, its 8 top bits gathered by a multiply. */
static void VM(nonzero_bits)(const uint8_t *x, int64_t nwords, uint64_t *bits)
{
    for (int64_t w = 0; w < nwords; w++, x += 64) {
#if defined(__AVX2__)
        const __m256i z = _mm256_setzero_si256();
        const uint32_t lo = (uint32_t)_mm256_movemask_epi8(
                           _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)x), z)),
                       hi = (uint32_t)_mm256_movemask_epi8(
                           _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(x + 32)), z));
        bits[w] = ~((uint64_t)hi << 32 | lo);
#elif defined(__SSE2__)
        const __m128i z = _mm_setzero_si128();
        uint64_t zero = 0;
        for (int q = 0; q < 4; q++)
            zero |= (uint64_t)(uint16_t)_mm_movemask_epi8(
                        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(x + 16 * q)), z))
                    << (16 * q);
        bits[w] = ~zero;
#else
        uint64_t b = 0;
        for (int g = 0; g < 8; g++) {
            uint64_t v;
            memcpy(&v, x + 8 * g, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            v = __builtin_bswap64(v); /* byte j of x in bits 8 j .. 8 j + 7 */
#endif
            /* 0x80 in each non-zero byte of v, then the 8 moved to one byte */
            v = (((v & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full) | v) & 0x8080808080808080ull;
            b |= (((v >> 7) * 0x0102040810204080ull) >> 56) << (8 * g);
        }
        bits[w] = b;
#endif
    }
}

/* The largest (CMP >) or smallest (CMP <) of x[0..n), n >= 1, in L lanes: 16 for
 * int32 and int64, 64 bytes' worth for the small integers, whose own lanes the level
 * compares (pmaxsb, pminub, pmaxsw; SSE2, which lacks pmaxsb and pminuw, a compare
 * and a select).  Reduced widened to int32 first, max of 1e5 int8 took 15.7 us on an
 * AVX2 EPYC, NumPy's 2.5. */
#define VI_EXTREME(NAME, T, CMP, L)                                                                \
    static T VM(NAME)(const T *x, int64_t n)                                                       \
    {                                                                                              \
        T lane[L], best;                                                                           \
        int64_t i = 0;                                                                             \
        for (int j = 0; j < L; j++)                                                                \
            lane[j] = x[0];                                                                        \
        for (; i + L <= n; i += L)                                                                 \
            for (int j = 0; j < L; j++)                                                            \
                lane[j] = x[i + j] CMP lane[j] ? x[i + j] : lane[j];                               \
        best = lane[0];                                                                            \
        for (int j = 1; j < L; j++)                                                                \
            best = lane[j] CMP best ? lane[j] : best;                                              \
        for (; i < n; i++)                                                                         \
            best = x[i] CMP best ? x[i] : best;                                                    \
        return best;                                                                               \
    }
VI_EXTREME(max_i32, int32_t, >, 16)
VI_EXTREME(min_i32, int32_t, <, 16)
VI_EXTREME(max_i64, int64_t, >, 16)
VI_EXTREME(min_i64, int64_t, <, 16)
VI_EXTREME(max_u8, uint8_t, >, 64)
VI_EXTREME(min_u8, uint8_t, <, 64)
VI_EXTREME(max_i8, int8_t, >, 64)
VI_EXTREME(min_i8, int8_t, <, 64)
VI_EXTREME(max_i16, int16_t, >, 32)
VI_EXTREME(min_i16, int16_t, <, 32)

/* The first i with x[i] == v, n if none: an integer argmax's index once its max is
 * known (EXTREME_CHUNK in cpu_reduce.c).  256 bytes a block, their compares or'ed into
 * one vector and tested once; the block that holds v then element by element.  (One
 * element at a time, argmax of 1e5 int32 whose largest is last took 16.4 us, its max
 * 5.3.) */
#define VI_FIND(NAME, T)                                                                           \
    static int64_t VM(NAME)(const T *x, int64_t n, T v)                                            \
    {                                                                                              \
        enum { L = 256 / sizeof(T) };                                                              \
        int64_t i = 0;                                                                             \
        for (; i + L <= n; i += L) {                                                               \
            T hit = 0;                                                                             \
            for (int j = 0; j < L; j++)                                                            \
                hit |= (T)(0u - (unsigned)(x[i + j] == v)); /* all ones where equal */             \
            if (hit)                                                                               \
                break;                                                                             \
        }                                                                                          \
        for (; i < n; i++)                                                                         \
            if (x[i] == v)                                                                         \
                return i;                                                                          \
        return n;                                                                                  \
    }
VI_FIND(find_8, uint8_t)
VI_FIND(find_16, uint16_t)
VI_FIND(find_32, uint32_t)
VI_FIND(find_64, uint64_t)
/* the first i with x[i] == v (its low bytes, elsize 1, 2, 4 or 8), n if none */
static int64_t VM(find_eq)(const void *x, int64_t n, int64_t v, int elsize)
{
    switch (elsize) {
    case 1: return VM(find_8)((const uint8_t *)x, n, (uint8_t)v);
    case 2: return VM(find_16)((const uint16_t *)x, n, (uint16_t)v);
    case 4: return VM(find_32)((const uint32_t *)x, n, (uint32_t)v);
    default: return VM(find_64)((const uint64_t *)x, n, (uint64_t)v);
    }
}

/* Integer max and min of columns: out[q] = the max (min) over i < k of x[i m + j0 + q],
 * q < nj <= 2048, widened to int64 (cpu_reduce_cols.c).  The baseline-built folds there
 * had no pmaxsd or pcmpgtq (SSE4) and ran int64 one element at a time: amax(0) of 79 x
 * 1265 on one thread, int32 17.4 us, int64 41.8 (NumPy 10.5, 24.5). */
#define VI_COLS_EXTREME(NAME, T, CMP)                                                              \
    static void VM(NAME)(const T *x, int64_t m, int64_t k, int64_t j0, int64_t nj, int64_t *out)   \
    {                                                                                              \
        T best[2048];                                                                              \
        for (int64_t q = 0; q < nj; q++)                                                           \
            best[q] = x[j0 + q];                                                                   \
        for (int64_t i = 1; i < k; i++) {                                                          \
            const T *row = x + i * m + j0;                                                         \
            for (int64_t q = 0; q < nj; q++)                                                       \
                best[q] = row[q] CMP best[q] ? row[q] : best[q];                                   \
        }                                                                                          \
        for (int64_t q = 0; q < nj; q++)                                                           \
            out[q] = best[q];                                                                      \
    }
#define VI_COLS_EXTREMES(SN, T)                                                                    \
    VI_COLS_EXTREME(cols_max_##SN, T, >)                                                           \
    VI_COLS_EXTREME(cols_min_##SN, T, <)
VI_COLS_EXTREMES(u8, uint8_t)
VI_COLS_EXTREMES(i8, int8_t)
VI_COLS_EXTREMES(i16, int16_t)
VI_COLS_EXTREMES(i32, int32_t)
VI_COLS_EXTREMES(i64, int64_t)
/* which: 0 uint8, 1 int8, 2 int16, 3 int32, 4 int64; max 1 or 0 (min) */
static void VM(cols_extreme_int)(const void *x, int64_t m, int64_t k, int64_t j0, int64_t nj,
                                 int which, int max, int64_t *out)
{
    switch (which * 2 + !max) {
    case 0: VM(cols_max_u8)((const uint8_t *)x, m, k, j0, nj, out); break;
    case 1: VM(cols_min_u8)((const uint8_t *)x, m, k, j0, nj, out); break;
    case 2: VM(cols_max_i8)((const int8_t *)x, m, k, j0, nj, out); break;
    case 3: VM(cols_min_i8)((const int8_t *)x, m, k, j0, nj, out); break;
    case 4: VM(cols_max_i16)((const int16_t *)x, m, k, j0, nj, out); break;
    case 5: VM(cols_min_i16)((const int16_t *)x, m, k, j0, nj, out); break;
    case 6: VM(cols_max_i32)((const int32_t *)x, m, k, j0, nj, out); break;
    case 7: VM(cols_min_i32)((const int32_t *)x, m, k, j0, nj, out); break;
    case 8: VM(cols_max_i64)((const int64_t *)x, m, k, j0, nj, out); break;
    default: VM(cols_min_i64)((const int64_t *)x, m, k, j0, nj, out); break;
    }
}
#undef VI_COLS_EXTREME
#undef VI_COLS_EXTREMES
