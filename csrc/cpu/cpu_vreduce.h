/* cpu_vreduce.h - the index of the first maximum or minimum of a float32 or
 * float64 run, and its value, in one read of the data; included by
 * cpu_vmath.h, so built once per instruction-set level (Note [CPU dispatch
 * levels] in cpu_simd.h).
 *
 * Note [one-pass extremes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * Vectors of the level's width (GCC's vector extensions, PDT_SIMD_BYTES: 16
 * at the baseline, 32 for AVX2, 64 for AVX-512) in four chains (the
 * operation's latency hidden) keep the running extreme lane by lane, with
 * VR_SEL: maxps/minps on x86, one instruction a vector, whose rule is the
 * kernels' own (the new value only when strictly greater, or less: a NaN
 * never enters).  Whether a NaN passed is a second accumulator, one
 * unordered compare for two vectors.
 *
 * The value kernels merge the chains and then the lanes (a tree in
 * registers) at the end.  The index kernels keep no element indices in the
 * loop: they read the run in blocks of VR_BLOCK float32 vectors' worth of
 * elements, each block's chains starting afresh (no dependency runs from one
 * block to the next); after a block, the lanes that it raised (a compare)
 * take it, the block's number, into a vector of block numbers, and their
 * running extreme.  At the end the extreme is spread over the lanes; among
 * the lanes that hold it, the smallest block number is the first block where
 * it occurs (a lane that reached it first there rose in that block, and only
 * strictly: a tie, -0.0 with +0.0 too, never raises a lane); that one block
 * is read again, from the cache, for the first element equal to it.  So the
 * answer is the first index of the extreme, as NumPy's and PyTorch's argmax
 * give, at the same cost for random and for sorted data.  The last block
 * takes the run's end (between one and two blocks), and a block's end that
 * fills no whole vector is read as one vector ending there, overlapping what
 * was read: an element seen twice changes neither the extreme nor the first
 * index equal to it.  Only a run shorter than a vector is scalar.  A NaN
 * wins: with one, the answer is the first NaN (a second, scalar scan, only
 * then).
 *
 * This replaced kernels that carried an index vector beside each chain (a
 * compare, two selects and an add a vector, six instructions with the NaN
 * test).  AVX-512, float32, a C harness calling the kernel: argmax of 64
 * elements 21.8 -> 9.5 ns, of 1,000 84 -> 54, of 4,096 254 -> 121; max of
 * 1,000 64 -> 21.  (Reading a block again each time it held a new extreme
 * was as fast on random data, and 2.6 times slower on sorted data.)
 */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

typedef float VM(vf32) __attribute__((vector_size(PDT_SIMD_BYTES)));
typedef int32_t VM(vi32) __attribute__((vector_size(PDT_SIMD_BYTES)));
typedef double VM(vf64) __attribute__((vector_size(PDT_SIMD_BYTES)));
typedef int64_t VM(vi64) __attribute__((vector_size(PDT_SIMD_BYTES)));

/* float32 vectors a block of the index kernels (256 elements on AVX-512); a
 * float64 block has as many elements, twice the vectors (its final scan for the
 * first index costs less than more blocks would: 256 float64, 45 -> 25 ns) */
#ifndef VR_BLOCK
#define VR_BLOCK 16
#endif

/* 0, 1, 2, ...: lane numbers, read as a whole vector (VR_IOTA).  Vectors are
 * never built lane by lane: a vector load after lane-sized stores misses store
 * forwarding, which cost max() 20 ns before its first element. */
static const int64_t VM(iota64)[64] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                                       13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
                                       26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38,
                                       39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51,
                                       52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
static const int32_t VM(iota32)[64] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
                                       13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
                                       26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38,
                                       39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51,
                                       52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
#define VR_IOTA(VI)                                                                                \
    __extension__({                                                                                \
        VI vr_iota;                                                                                \
        if (sizeof vr_iota[0] == 8)                                                                \
            memcpy(&vr_iota, VM(iota64), sizeof vr_iota);                                          \
        else                                                                                       \
            memcpy(&vr_iota, VM(iota32), sizeof vr_iota);                                          \
        vr_iota;                                                                                   \
    })

/* v with its lanes j and j ^ h swapped (W lanes, h a power of two below W): a
 * step of a horizontal reduction that stays in registers.  (Reading the lanes
 * back from memory one by one, or in halves, stalled on store forwarding: the
 * merge of argmax's lanes cost 45 ns, more than scanning 1,000 floats.)  Clang
 * has no run-time shuffle: a lane loop there. */
#if defined(__clang__)
#define VR_SWAP(v, h, W)                                                                           \
    __extension__({                                                                                \
        __typeof__(v) vr_in = (v), vr_out;                                                         \
        for (int vr_j = 0; vr_j < (W); vr_j++)                                                     \
            vr_out[vr_j] = vr_in[vr_j ^ (h)];                                                      \
        vr_out;                                                                                    \
    })
#else
#define VR_SWAP(v, h, W) __builtin_shuffle((v), VR_IOTA(__typeof__(v)) ^ (h))
#endif

/* a where the mask m (a comparison's result, all ones or zeros a lane) is set,
 * else b, lane by lane, in b's type */
#define VR_PICK(m, a, b)                                                                           \
    ((__typeof__(b))((((__typeof__(m))(a)) & (m)) | (((__typeof__(m))(b)) & ~(m))))

/* VR_SEL(OP, SZ, a, b), OP GT or LT, SZ 32 or 64 (float or double lanes): a
 * where a > b (a < b), else b, lane by lane.  That is maxps's (minps's) rule,
 * b on a tie and when either is NaN, so on x86 it is that one instruction;
 * elsewhere a compare and a select.  (The lane loop `a[j] > b[j] ? a[j] :
 * b[j]` becomes maxps too, but only where GCC's vectoriser takes it: in the
 * loop over single vectors it stayed lane by lane, ten times slower.)
 * VR_NAN(SZ, a, b): bit j set where lane j of a or of b is NaN (one unordered
 * compare for two vectors).  VR_EQ(SZ, a, b): bit j set where lanes j of a
 * and b are equal. */
/* bit j set where lane j of the mask m is (the portable form of the bit masks below) */
#define VR_LANE_BITS(m)                                                                            \
    __extension__({                                                                                \
        __typeof__(m) vr_m = (m);                                                                  \
        unsigned vr_bits = 0;                                                                      \
        for (unsigned vr_j = 0; vr_j < sizeof vr_m / sizeof vr_m[0]; vr_j++)                       \
            vr_bits |= (unsigned)(vr_m[vr_j] != 0) << vr_j;                                        \
        vr_bits;                                                                                   \
    })
#define VR_SEL(OP, SZ, a, b) VR_SEL_##OP##SZ(a, b)
#define VR_NAN(SZ, a, b) VR_NAN_##SZ(a, b)
#define VR_EQ(SZ, a, b) VR_EQ_##SZ(a, b)
/* PDT_VR_GENERIC: the portable form on x86 too (for testing it there) */
#if PDT_SIMD_BYTES == 64 && defined(__AVX512DQ__) && !defined(PDT_VR_GENERIC)
#define VR_SEL_GT32(a, b) ((__typeof__(b))_mm512_max_ps((__m512)(a), (__m512)(b)))
#define VR_SEL_LT32(a, b) ((__typeof__(b))_mm512_min_ps((__m512)(a), (__m512)(b)))
#define VR_SEL_GT64(a, b) ((__typeof__(b))_mm512_max_pd((__m512d)(a), (__m512d)(b)))
#define VR_SEL_LT64(a, b) ((__typeof__(b))_mm512_min_pd((__m512d)(a), (__m512d)(b)))
#define VR_NAN_32(a, b) ((unsigned)_mm512_cmp_ps_mask((__m512)(a), (__m512)(b), _CMP_UNORD_Q))
#define VR_NAN_64(a, b) ((unsigned)_mm512_cmp_pd_mask((__m512d)(a), (__m512d)(b), _CMP_UNORD_Q))
#define VR_EQ_32(a, b) ((unsigned)_mm512_cmp_ps_mask((__m512)(a), (__m512)(b), _CMP_EQ_OQ))
#define VR_EQ_64(a, b) ((unsigned)_mm512_cmp_pd_mask((__m512d)(a), (__m512d)(b), _CMP_EQ_OQ))
#elif PDT_SIMD_BYTES == 32 && defined(__AVX__) && !defined(PDT_VR_GENERIC)
#define VR_SEL_GT32(a, b) ((__typeof__(b))_mm256_max_ps((__m256)(a), (__m256)(b)))
#define VR_SEL_LT32(a, b) ((__typeof__(b))_mm256_min_ps((__m256)(a), (__m256)(b)))
#define VR_SEL_GT64(a, b) ((__typeof__(b))_mm256_max_pd((__m256d)(a), (__m256d)(b)))
#define VR_SEL_LT64(a, b) ((__typeof__(b))_mm256_min_pd((__m256d)(a), (__m256d)(b)))
#define VR_NAN_32(a, b)                                                                            \
    ((unsigned)_mm256_movemask_ps(_mm256_cmp_ps((__m256)(a), (__m256)(b), _CMP_UNORD_Q)))
#define VR_NAN_64(a, b)                                                                            \
    ((unsigned)_mm256_movemask_pd(_mm256_cmp_pd((__m256d)(a), (__m256d)(b), _CMP_UNORD_Q)))
#define VR_EQ_32(a, b)                                                                             \
    ((unsigned)_mm256_movemask_ps(_mm256_cmp_ps((__m256)(a), (__m256)(b), _CMP_EQ_OQ)))
#define VR_EQ_64(a, b)                                                                             \
    ((unsigned)_mm256_movemask_pd(_mm256_cmp_pd((__m256d)(a), (__m256d)(b), _CMP_EQ_OQ)))
#elif PDT_SIMD_BYTES == 16 && defined(__SSE2__) && !defined(PDT_VR_GENERIC)
#define VR_SEL_GT32(a, b) ((__typeof__(b))_mm_max_ps((__m128)(a), (__m128)(b)))
#define VR_SEL_LT32(a, b) ((__typeof__(b))_mm_min_ps((__m128)(a), (__m128)(b)))
#define VR_SEL_GT64(a, b) ((__typeof__(b))_mm_max_pd((__m128d)(a), (__m128d)(b)))
#define VR_SEL_LT64(a, b) ((__typeof__(b))_mm_min_pd((__m128d)(a), (__m128d)(b)))
#define VR_NAN_32(a, b) ((unsigned)_mm_movemask_ps(_mm_cmpunord_ps((__m128)(a), (__m128)(b))))
#define VR_NAN_64(a, b) ((unsigned)_mm_movemask_pd(_mm_cmpunord_pd((__m128d)(a), (__m128d)(b))))
#define VR_EQ_32(a, b) ((unsigned)_mm_movemask_ps(_mm_cmpeq_ps((__m128)(a), (__m128)(b))))
#define VR_EQ_64(a, b) ((unsigned)_mm_movemask_pd(_mm_cmpeq_pd((__m128d)(a), (__m128d)(b))))
#else
#define VR_SEL_GT32(a, b) VR_PICK((a) > (b), a, b)
#define VR_SEL_LT32(a, b) VR_PICK((a) < (b), a, b)
#define VR_SEL_GT64(a, b) VR_PICK((a) > (b), a, b)
#define VR_SEL_LT64(a, b) VR_PICK((a) < (b), a, b)
#define VR_NAN_32(a, b) VR_BITS(((a) != (a)) | ((b) != (b)))
#define VR_NAN_64(a, b) VR_BITS(((a) != (a)) | ((b) != (b)))
#define VR_EQ_32(a, b) VR_BITS((a) == (b))
#define VR_EQ_64(a, b) VR_BITS((a) == (b))
#define VR_BITS(m) VR_LANE_BITS(m)
#endif

/* Four chains a0..a3 over x[j, e) from j, e - j >= W: vectors four at a time,
 * then single ones, the last ending at e; NaN lanes into the bits nan (Note
 * [one-pass extremes]).  Then the chains into a0. */
#define VR_SCAN(x, j, e, a0, a1, a2, a3, nan, VT, OP, SZ, W)                                       \
    do {                                                                                           \
        VT vr_v0, vr_v1, vr_v2, vr_v3;                                                             \
        for (; (j) + 4 * (W) <= (e); (j) += 4 * (W)) {                                             \
            memcpy(&vr_v0, (x) + (j), sizeof vr_v0);                                               \
            memcpy(&vr_v1, (x) + (j) + (W), sizeof vr_v1);                                         \
            memcpy(&vr_v2, (x) + (j) + 2 * (W), sizeof vr_v2);                                     \
            memcpy(&vr_v3, (x) + (j) + 3 * (W), sizeof vr_v3);                                     \
            a0 = VR_SEL(OP, SZ, vr_v0, a0);                                                        \
            a1 = VR_SEL(OP, SZ, vr_v1, a1);                                                        \
            a2 = VR_SEL(OP, SZ, vr_v2, a2);                                                        \
            a3 = VR_SEL(OP, SZ, vr_v3, a3);                                                        \
            nan |= VR_NAN(SZ, vr_v0, vr_v1) | VR_NAN(SZ, vr_v2, vr_v3);                            \
        }                                                                                          \
        for (; (j) < (e); (j) += (W)) {                                                            \
            memcpy(&vr_v0, (x) + ((j) + (W) <= (e) ? (j) : (e) - (W)), sizeof vr_v0);              \
            a0 = VR_SEL(OP, SZ, vr_v0, a0);                                                        \
            nan |= VR_NAN(SZ, vr_v0, vr_v0);                                                       \
        }                                                                                          \
        a0 = VR_SEL(OP, SZ, VR_SEL(OP, SZ, a0, a1), VR_SEL(OP, SZ, a2, a3));                       \
    } while (0)

/* a's extreme in every lane: half onto half, in registers (VR_SWAP) */
#define VR_SPREAD(a, VT, VI, OP, SZ, W)                                                            \
    do {                                                                                           \
        for (int vr_h = (W) / 2; vr_h > 0; vr_h /= 2)                                              \
            a = VR_SEL(OP, SZ, (VT)VR_SWAP((VI)a, vr_h, W), a);                                    \
    } while (0)

/* r = the first index of the extreme g (in every lane) in x[0..n), from the blocks'
 * running extremes bv and their numbers blk (k blocks of B): the first block where a
 * lane reached it is read again, a vector of W at a time (the last ending at the block's
 * end), for the first lane where HIT(v, g) sets a bit (Note [one-pass extremes]) */
#define VR_FIRST_AT(r, x, n, bv, g, blk, k, VT, VI, W, B, HIT)                                     \
    do {                                                                                           \
        int64_t vr_s = 0;                                                                          \
        if ((k) > 1) { /* (one block: the first) */                                                \
            VI vr_first = VR_PICK((bv) == (g), blk, (VI){0} + (k));                                \
            for (int vr_h = (W) / 2; vr_h > 0; vr_h /= 2) {                                        \
                VI vr_o = VR_SWAP(vr_first, vr_h, W);                                              \
                vr_first = VR_PICK(vr_o < vr_first, vr_o, vr_first);                               \
            }                                                                                      \
            vr_s = (int64_t)vr_first[0] * (B);                                                     \
        }                                                                                          \
        const int64_t vr_e = (n) - vr_s < (B) + (W) ? (n) : vr_s + (B);                            \
        for (int64_t vr_j = vr_s; vr_j < vr_e; vr_j += (W)) {                                      \
            const int64_t vr_at = vr_j + (W) <= vr_e ? vr_j : vr_e - (W);                          \
            VT vr_v;                                                                               \
            memcpy(&vr_v, (x) + vr_at, sizeof vr_v);                                               \
            const unsigned vr_hit = HIT(vr_v, g);                                                  \
            if (vr_hit) {                                                                          \
                (r) = vr_at + __builtin_ctz(vr_hit);                                               \
                break;                                                                             \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#define VR_EXTREME(NAME, T, VT, VI, CMP, OP, SZ)                                                   \
    static int64_t VM(NAME)(const T *x, int64_t n)                                                 \
    {                                                                                              \
        enum { W = PDT_SIMD_BYTES / sizeof(T), B = VR_BLOCK * (PDT_SIMD_BYTES / 4) };              \
        typedef __typeof__(((VI){0})[0]) LT; /* a lane of VI */                                    \
        T b = x[0];                                                                                \
        int64_t r = 0, i = 0;                                                                      \
        int any = x[0] != x[0];                                                                    \
        if (n >= W) {               /* a shorter run goes straight to the scalar loop */           \
            VT bv = x[0] - (VT){0}; /* x - (+0) keeps -0.0 */                                      \
            VI blk = {0};                                                                          \
            unsigned nan = 0;                                                                      \
            LT k = 0;                                                                              \
            for (; i < n; k++) {                                                                   \
                int64_t e = n - i < B + W ? n : i + B, j = i; /* the last: W to B + W - 1 */       \
                VT a0, a1, a2, a3; /* the block's own extremes: no chain runs across blocks */     \
                memcpy(&a0, x + i, sizeof a0);                                                     \
                a1 = a2 = a3 = a0;                                                                 \
                VR_SCAN(x, j, e, a0, a1, a2, a3, nan, VT, OP, SZ, W);                              \
                VI up = a0 CMP bv;                                                                 \
                blk = VR_PICK(up, (VI){0} + k, blk);                                               \
                bv = VR_PICK(up, a0, bv);                                                          \
                i = e;                                                                             \
            }                                                                                      \
            VT g = bv;                                                                             \
            VR_SPREAD(g, VT, VI, OP, SZ, W);                                                       \
            VR_FIRST_AT(r, x, n, bv, g, blk, k, VT, VI, W, B, VR_EQ_##SZ);                         \
            any |= nan != 0;                                                                       \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            any |= x[i] != x[i];                                                                   \
            if (x[i] CMP b) {                                                                      \
                b = x[i];                                                                          \
                r = i;                                                                             \
            }                                                                                      \
        }                                                                                          \
        if (any)                                                                                   \
            for (r = 0; x[r] == x[r]; r++)                                                         \
                ;                                                                                  \
        return r;                                                                                  \
    }
VR_EXTREME(argmax_f32, float, VM(vf32), VM(vi32), >, GT, 32)
VR_EXTREME(argmin_f32, float, VM(vf32), VM(vi32), <, LT, 32)
VR_EXTREME(argmax_f64, double, VM(vf64), VM(vi64), >, GT, 64)
VR_EXTREME(argmin_f64, double, VM(vf64), VM(vi64), <, LT, 64)

/* Note [one-pass integer extremes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * int32 and int64 argmax and argmin as the floats' (Note [one-pass extremes]): blocks
 * whose four chains keep the lanes' extremes, each block's number taken by the lanes
 * it raised, and the first block holding the extreme read again for its first index.
 * The lanes' selection is a compare and a select in GCC's vector extensions (one
 * vpmaxs/vpmins where the level has it), and there is no NaN.  It was the maximum's
 * pass and then a search for its first index (cpu_reduce.c's FIND_INT), each a call
 * through the table: argmax(1) of 10,000 rows of 10 int64 335 us, NumPy's 160. */
/* VR_SCAN's and VR_SPREAD's selections for integer lanes (their SZ I32 or I64): a compare
 * and a select, and no NaN */
#define VR_SEL_GTI32(a, b) VR_PICK((a) > (b), a, b)
#define VR_SEL_LTI32(a, b) VR_PICK((a) < (b), a, b)
#define VR_SEL_GTI64(a, b) VR_PICK((a) > (b), a, b)
#define VR_SEL_LTI64(a, b) VR_PICK((a) < (b), a, b)
#define VR_NAN_I32(a, b) 0u
#define VR_NAN_I64(a, b) 0u
/* VR_IMASK_32(m), VR_IMASK_64(m): bit j set where lane j of the comparison's mask m (of
 * 32- or 64-bit lanes, all ones or zeros) is set: the lanes' sign bits in one instruction
 * where the level has it (a lane loop cost a row of 100 int64 70 ns more) */
#if PDT_SIMD_BYTES == 64 && defined(__AVX512DQ__) && !defined(PDT_VR_GENERIC)
#define VR_IMASK_32(m) ((unsigned)_mm512_movepi32_mask((__m512i)(m)))
#define VR_IMASK_64(m) ((unsigned)_mm512_movepi64_mask((__m512i)(m)))
#elif PDT_SIMD_BYTES == 32 && defined(__AVX__) && !defined(PDT_VR_GENERIC)
#define VR_IMASK_32(m) ((unsigned)_mm256_movemask_ps((__m256)(m)))
#define VR_IMASK_64(m) ((unsigned)_mm256_movemask_pd((__m256d)(m)))
#elif PDT_SIMD_BYTES == 16 && defined(__SSE2__) && !defined(PDT_VR_GENERIC)
#define VR_IMASK_32(m) ((unsigned)_mm_movemask_ps((__m128)(m)))
#define VR_IMASK_64(m) ((unsigned)_mm_movemask_pd((__m128d)(m)))
#else
#define VR_IMASK_32(m) VR_LANE_BITS(m)
#define VR_IMASK_64(m) VR_LANE_BITS(m)
#endif
#define VR_IEQ_32(a, b) VR_IMASK_32((a) == (b))
#define VR_IEQ_64(a, b) VR_IMASK_64((a) == (b))

#define VR_INT_EXTREME(NAME, T, VI, CMP, OP, SZ)                                                   \
    static int64_t VM(NAME)(const T *x, int64_t n)                                                 \
    {                                                                                              \
        enum { W = PDT_SIMD_BYTES / sizeof(T), B = VR_BLOCK * (PDT_SIMD_BYTES / 4) };              \
        typedef __typeof__(((VI){0})[0]) LT; /* a lane of VI: T */                                 \
        T b = x[0];                                                                                \
        int64_t r = 0, i = 0;                                                                      \
        if (n >= W) { /* a shorter run goes straight to the scalar loop */                         \
            VI bv = (VI){0} + x[0], blk = {0};                                                     \
            unsigned nan = 0; /* VR_SCAN's NaN bits: none for integers (VR_NAN_I32/I64) */         \
            LT k = 0;                                                                              \
            for (; i < n; k++) {                                                                   \
                int64_t e = n - i < B + W ? n : i + B, j = i; /* the last: W to B + W - 1 */       \
                VI a0, a1, a2, a3;                                                                 \
                memcpy(&a0, x + i, sizeof a0);                                                     \
                a1 = a2 = a3 = a0;                                                                 \
                VR_SCAN(x, j, e, a0, a1, a2, a3, nan, VI, OP, I##SZ, W);                           \
                VI up = a0 CMP bv;                                                                 \
                blk = VR_PICK(up, (VI){0} + k, blk);                                               \
                bv = VR_PICK(up, a0, bv);                                                          \
                i = e;                                                                             \
            }                                                                                      \
            VI g = bv;                                                                             \
            VR_SPREAD(g, VI, VI, OP, I##SZ, W);                                                    \
            VR_FIRST_AT(r, x, n, bv, g, blk, k, VI, VI, W, B, VR_IEQ_##SZ);                        \
            (void)nan;                                                                             \
        }                                                                                          \
        for (; i < n; i++)                                                                         \
            if (x[i] CMP b) {                                                                      \
                b = x[i];                                                                          \
                r = i;                                                                             \
            }                                                                                      \
        return r;                                                                                  \
    }
VR_INT_EXTREME(argmax_i32, int32_t, VM(vi32), >, GT, 32)
VR_INT_EXTREME(argmin_i32, int32_t, VM(vi32), <, LT, 32)
VR_INT_EXTREME(argmax_i64, int64_t, VM(vi64), >, GT, 64)
VR_INT_EXTREME(argmin_i64, int64_t, VM(vi64), <, LT, 64)

/* The maximum (minimum) value of x[0..n), n >= 1, NaN when there is one. */
#define VR_VALUE(NAME, T, VT, VI, CMP, OP, SZ)                                                     \
    static T VM(NAME)(const T *x, int64_t n)                                                       \
    {                                                                                              \
        enum { W = PDT_SIMD_BYTES / sizeof(T) };                                                   \
        T r = x[0];                                                                                \
        int any = r != r;                                                                          \
        int64_t i = 0;                                                                             \
        if (n >= W) { /* a shorter run goes straight to the scalar loop */                         \
            VT a0 = x[0] - (VT){0}, a1 = a0, a2 = a0, a3 = a0; /* keeps -0.0 */                    \
            unsigned nan = 0;                                                                      \
            VR_SCAN(x, i, n, a0, a1, a2, a3, nan, VT, OP, SZ, W);                                  \
            VR_SPREAD(a0, VT, VI, OP, SZ, W);                                                      \
            any |= nan != 0;                                                                       \
            r = a0[0];                                                                             \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            any |= x[i] != x[i];                                                                   \
            r = x[i] CMP r ? x[i] : r;                                                             \
        }                                                                                          \
        return any ? (T)NAN : r;                                                                   \
    }
VR_VALUE(max_f32, float, VM(vf32), VM(vi32), >, GT, 32)
VR_VALUE(min_f32, float, VM(vf32), VM(vi32), <, LT, 32)
VR_VALUE(max_f64, double, VM(vf64), VM(vi64), >, GT, 64)
VR_VALUE(min_f64, double, VM(vf64), VM(vi64), <, LT, 64)

/* Column extremes (cpu_reduce.c's columns layout): best[q] = the maximum
 * (minimum) of x[i m + j0 + q] over the rows i < k, q < nj, folded row by row by
 * maxps's (minps's) rule, which is the scalar fold's `v > best ? v : best` while
 * no NaN is read; returns 1 when one was (the caller folds that block again by
 * its own NaN rule).  With INDEX (argmax, argmin, max with indices), at[q] gets
 * the row of column q's first extreme: a lane's value and row move together where
 * the new value is strictly beyond the old one; IT (int32 for float32, so that
 * rows and values share lanes) must hold k - 1.  Without it, at is not used.  The
 * scalar fold kept an int64 index beside each float and was not vectorised:
 * amax(0) of a 2048^2 float32 matrix took 1.40-1.47 times NumPy's time. */
#define VR_COLS(NAME, T, VT, VI, IT, CMP, OP, SZ, INDEX)                                           \
    static int VM(NAME)(const T *x, int64_t m, int64_t k, int64_t j0, int64_t nj, T *best, IT *at) \
    {                                                                                              \
        enum { W = PDT_SIMD_BYTES / sizeof(T) };                                                   \
        unsigned nan = 0;                                                                          \
        for (int64_t q = 0; q < nj; q++) {                                                         \
            best[q] = x[j0 + q];                                                                   \
            if (INDEX)                                                                             \
                at[q] = 0;                                                                         \
            nan |= best[q] != best[q];                                                             \
        }                                                                                          \
        for (int64_t i = 1; i < k; i++) {                                                          \
            const T *row = x + i * m + j0;                                                         \
            const VI iv = (VI){0} + (IT)i;                                                         \
            int64_t q = 0;                                                                         \
            for (; q + W <= nj; q += W) {                                                          \
                VT v, b;                                                                           \
                memcpy(&v, row + q, sizeof v);                                                     \
                memcpy(&b, best + q, sizeof b);                                                    \
                nan |= VR_NAN(SZ, v, v);                                                           \
                if (INDEX) {                                                                       \
                    VI a;                                                                          \
                    memcpy(&a, at + q, sizeof a);                                                  \
                    const VI take = (VI)(v CMP b);                                                 \
                    b = VR_PICK(take, v, b);                                                       \
                    a = VR_PICK(take, iv, a);                                                      \
                    memcpy(at + q, &a, sizeof a);                                                  \
                } else {                                                                           \
                    b = VR_SEL(OP, SZ, v, b);                                                      \
                }                                                                                  \
                memcpy(best + q, &b, sizeof b);                                                    \
            }                                                                                      \
            for (; q < nj; q++) {                                                                  \
                nan |= row[q] != row[q];                                                           \
                if (row[q] CMP best[q]) {                                                          \
                    best[q] = row[q];                                                              \
                    if (INDEX)                                                                     \
                        at[q] = (IT)i;                                                             \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        return nan != 0;                                                                           \
    }
VR_COLS(cols_argmax_f32, float, VM(vf32), VM(vi32), int32_t, >, GT, 32, 1)
VR_COLS(cols_argmin_f32, float, VM(vf32), VM(vi32), int32_t, <, LT, 32, 1)
VR_COLS(cols_argmax_f64, double, VM(vf64), VM(vi64), int64_t, >, GT, 64, 1)
VR_COLS(cols_argmin_f64, double, VM(vf64), VM(vi64), int64_t, <, LT, 64, 1)
VR_COLS(cols_max_f32, float, VM(vf32), VM(vi32), int32_t, >, GT, 32, 0)
VR_COLS(cols_min_f32, float, VM(vf32), VM(vi32), int32_t, <, LT, 32, 0)
VR_COLS(cols_max_f64, double, VM(vf64), VM(vi64), int64_t, >, GT, 64, 0)
VR_COLS(cols_min_f64, double, VM(vf64), VM(vi64), int64_t, <, LT, 64, 0)
