/* cpu_vcompare.h - the six comparisons of contiguous rows into bool bytes (mode as for
 * VB_ROW: 1, a is one value; 2, b is), at the level's width; the output never overlaps
 * an input of another width.  Included by cpu_vmath.h once per level (Note [CPU dispatch
 * levels] in cpu_simd.h).  At the baseline level x > 0 over 1e5 float32 took 12.5 us in
 * plain C, NumPy's 5.8: these loops are built at each level's width.
 *
 * Note [comparisons into bytes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A compare of float64 or int64 lanes gives a mask of 64 bits a lane, which a bool
 * output wants as one byte.  GCC narrows such masks one width at a time, masking each
 * step's lanes to 0 or 1 and moving them across the 128-bit halves of a vector: on an
 * AVX2 EPYC, x == 3 over 1e5 float64 took 19.5 us on one thread, NumPy's 15.7 (int64
 * 21.7 against 16.7).  Here the masks stay all ones or all zeros while the signed
 * saturating packs narrow them (64 -> 16 -> 8 bits: packssdw, then packsswb twice, the
 * second over the bytes' pairs as 16-bit lanes, which keeps -1 and 0), the one bit kept
 * by a single and (or an andnot: ne, le and ge of integers are eq, gt and lt inverted,
 * free there).  At AVX2 the packs work within each 128-bit half, leaving pairs of
 * neighbouring elements in the order 0 1 4 5 .. 28 29 | 2 3 6 7 .. 30 31; one 16-bit
 * interleave of the halves (punpcklwd, punpckhwd) puts them in order.  The float
 * predicates are ordered but for !=, as C's operators (NaN compares false but for
 * !=), and each result is the same byte as the scalar loops' on the tail.  float32 and
 * int32 masks take one packssdw and one packsswb (GCC's loop: 23 instructions a 32
 * elements where these take 10), their four-byte groups put back in order by one
 * vpermd at AVX2.  SSE2 has no 64-bit integer compare (pcmpgtq is SSE4.2), so int64
 * keeps the plain loops at the baseline, as AVX-512 keeps them for every type (its
 * compares give mask registers). */

#if defined(__SSE2__) /* x86: the other processors build the plain loops below */
#include <immintrin.h>
#endif

#define VC_ROW(NAME, T, OP)                                                                        \
    static void VM(NAME)(char *o, const char *a, const char *b, int64_t n, int mode)               \
    {                                                                                              \
        uint8_t *restrict p = (uint8_t *)o;                                                        \
        const T *restrict x = (const T *)a, *restrict y = (const T *)b;                            \
        if (mode == 1) {                                                                           \
            const T s = x[0];                                                                      \
            for (int64_t i = 0; i < n; i++)                                                        \
                p[i] = s OP y[i];                                                                  \
        } else if (mode == 2) {                                                                    \
            const T s = y[0];                                                                      \
            for (int64_t i = 0; i < n; i++)                                                        \
                p[i] = x[i] OP s;                                                                  \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                p[i] = x[i] OP y[i];                                                               \
        }                                                                                          \
    }
#define VC_ROWS(SN, T)                                                                             \
    VC_ROW(eq_##SN, T, ==)                                                                         \
    VC_ROW(ne_##SN, T, !=)                                                                         \
    VC_ROW(lt_##SN, T, <)                                                                          \
    VC_ROW(le_##SN, T, <=)                                                                         \
    VC_ROW(gt_##SN, T, >)                                                                          \
    VC_ROW(ge_##SN, T, >=)

#if PDT_SIMD_BYTES == 32 && defined(__AVX2__)
#define VCMP_ON 1
typedef __m256i VM(vc_mask);
/* 32 bool bytes at p from m[0..8), the masks of 8-byte elements 4 k .. 4 k + 3 (inv:
 * their inverses) */
static inline void VM(vc_store_masks64)(uint8_t *p, const __m256i *m, int inv)
{
    const __m256i a = _mm256_packs_epi32(m[0], m[1]), b = _mm256_packs_epi32(m[2], m[3]);
    const __m256i c = _mm256_packs_epi32(m[4], m[5]), d = _mm256_packs_epi32(m[6], m[7]);
    const __m256i one = _mm256_set1_epi8(1);
    __m256i g = _mm256_packs_epi16(_mm256_packs_epi16(a, b), _mm256_packs_epi16(c, d));
    g = inv ? _mm256_andnot_si256(g, one) : _mm256_and_si256(g, one);
    const __m128i lo = _mm256_castsi256_si128(g), hi = _mm256_extracti128_si256(g, 1);
    _mm_storeu_si128((__m128i *)p, _mm_unpacklo_epi16(lo, hi));
    _mm_storeu_si128((__m128i *)(p + 16), _mm_unpackhi_epi16(lo, hi));
}
/* the same from m[0..4), the masks of 4-byte elements 8 k .. 8 k + 7: the packs leave
 * their four-byte groups in the order 0 2 4 6 | 1 3 5 7, which one vpermd puts back */
static inline void VM(vc_store_masks32)(uint8_t *p, const __m256i *m, int inv)
{
    const __m256i a = _mm256_packs_epi32(m[0], m[1]), b = _mm256_packs_epi32(m[2], m[3]);
    const __m256i one = _mm256_set1_epi8(1);
    __m256i g = _mm256_packs_epi16(a, b);
    g = inv ? _mm256_andnot_si256(g, one) : _mm256_and_si256(g, one);
    g = _mm256_permutevar8x32_epi32(g, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256((__m256i *)p, g);
}
#define VCMP_W 32 /* bytes a vector */
#define VCMP_LOAD_F64(q) _mm256_loadu_pd(q)
#define VCMP_SET1_F64(v) _mm256_set1_pd(v)
#define VCMP_LOAD_F32(q) _mm256_loadu_ps(q)
#define VCMP_SET1_F32(v) _mm256_set1_ps(v)
#define VCMP_LOAD_INT(q) _mm256_loadu_si256((const __m256i *)(q))
#define VCMP_SET1_I64(v) _mm256_set1_epi64x(v)
#define VCMP_SET1_I32(v) _mm256_set1_epi32(v)
#define VCMP_FP(u, v, P, S) _mm256_cast##S##_si256(_mm256_cmp_##S(u, v, P))
#define VCMP_EQ(u, v, S) VCMP_FP(u, v, _CMP_EQ_OQ, S)
#define VCMP_NE(u, v, S) VCMP_FP(u, v, _CMP_NEQ_UQ, S)
#define VCMP_LT(u, v, S) VCMP_FP(u, v, _CMP_LT_OQ, S)
#define VCMP_LE(u, v, S) VCMP_FP(u, v, _CMP_LE_OQ, S)
#define VCMP_GT(u, v, S) VCMP_FP(u, v, _CMP_GT_OQ, S)
#define VCMP_GE(u, v, S) VCMP_FP(u, v, _CMP_GE_OQ, S)
#define VCMP_IEQ(u, v, B) _mm256_cmpeq_epi##B(u, v)
#define VCMP_IGT(u, v, B) _mm256_cmpgt_epi##B(u, v)
#define VCMP_INT64 1 /* pcmpgtq */
#define VCMP_AND(u, v) _mm256_and_si256(u, v)
#elif PDT_SIMD_BYTES == 16 && defined(__SSE2__)
#define VCMP_ON 1
typedef __m128i VM(vc_mask);
/* 16 bool bytes at p from m[0..8), the masks of 8-byte elements 2 k, 2 k + 1 */
static inline void VM(vc_store_masks64)(uint8_t *p, const __m128i *m, int inv)
{
    const __m128i a = _mm_packs_epi32(m[0], m[1]), b = _mm_packs_epi32(m[2], m[3]);
    const __m128i c = _mm_packs_epi32(m[4], m[5]), d = _mm_packs_epi32(m[6], m[7]);
    const __m128i one = _mm_set1_epi8(1);
    __m128i g = _mm_packs_epi16(_mm_packs_epi16(a, b), _mm_packs_epi16(c, d));
    g = inv ? _mm_andnot_si128(g, one) : _mm_and_si128(g, one);
    _mm_storeu_si128((__m128i *)p, g);
}
/* the same from m[0..4), the masks of 4-byte elements 4 k .. 4 k + 3 */
static inline void VM(vc_store_masks32)(uint8_t *p, const __m128i *m, int inv)
{
    const __m128i one = _mm_set1_epi8(1);
    __m128i g = _mm_packs_epi16(_mm_packs_epi32(m[0], m[1]), _mm_packs_epi32(m[2], m[3]));
    g = inv ? _mm_andnot_si128(g, one) : _mm_and_si128(g, one);
    _mm_storeu_si128((__m128i *)p, g);
}
#define VCMP_W 16
#define VCMP_LOAD_F64(q) _mm_loadu_pd(q)
#define VCMP_SET1_F64(v) _mm_set1_pd(v)
#define VCMP_LOAD_F32(q) _mm_loadu_ps(q)
#define VCMP_SET1_F32(v) _mm_set1_ps(v)
#define VCMP_LOAD_INT(q) _mm_loadu_si128((const __m128i *)(q))
#define VCMP_SET1_I32(v) _mm_set1_epi32(v)
#define VCMP_EQ(u, v, S) _mm_cast##S##_si128(_mm_cmpeq_##S(u, v))
#define VCMP_NE(u, v, S) _mm_cast##S##_si128(_mm_cmpneq_##S(u, v))
#define VCMP_LT(u, v, S) _mm_cast##S##_si128(_mm_cmplt_##S(u, v))
#define VCMP_LE(u, v, S) _mm_cast##S##_si128(_mm_cmple_##S(u, v))
#define VCMP_GT(u, v, S) _mm_cast##S##_si128(_mm_cmpgt_##S(u, v))
#define VCMP_GE(u, v, S) _mm_cast##S##_si128(_mm_cmpge_##S(u, v))
#define VCMP_IEQ(u, v, B) _mm_cmpeq_epi##B(u, v)
#define VCMP_IGT(u, v, B) _mm_cmpgt_epi##B(u, v)
#define VCMP_AND(u, v) _mm_and_si128(u, v)
#endif

#ifdef VCMP_ON
/* A row of T (E bytes, BITS bits: 4 and 32 or 8 and 64): E vectors' masks a block
 * (CMP(u, v, ARG): a mask vector; LOAD, SET1: T's), narrowed by vc_store_masks<BITS>,
 * then the scalar loop (OP) for the tail; INV: CMP gives the inverse of OP */
#define VCMP_ROW(NAME, T, E, BITS, OP, LOAD, SET1, CMP, ARG, INV)                                  \
    static void VM(NAME)(char *o, const char *a, const char *b, int64_t n, int mode)               \
    {                                                                                              \
        uint8_t *restrict p = (uint8_t *)o;                                                        \
        const T *restrict x = (const T *)a, *restrict y = (const T *)b;                            \
        enum { K = E, N = VCMP_W / E }; /* vectors a block (8 or 4), elements a vector */          \
        VM(vc_mask) m[K];                                                                          \
        int64_t i = 0;                                                                             \
        if (mode == 1) {                                                                           \
            const T s = x[0];                                                                      \
            const __typeof__(SET1(s)) vs = SET1(s);                                                \
            for (; i + K * N <= n; i += K * N) {                                                   \
                for (int k = 0; k < K; k++)                                                        \
                    m[k] = CMP(vs, LOAD(y + i + k * N), ARG);                                      \
                VM(vc_store_masks##BITS)(p + i, m, INV);                                           \
            }                                                                                      \
            for (; i < n; i++)                                                                     \
                p[i] = s OP y[i];                                                                  \
        } else if (mode == 2) {                                                                    \
            const T s = y[0];                                                                      \
            const __typeof__(SET1(s)) vs = SET1(s);                                                \
            for (; i + K * N <= n; i += K * N) {                                                   \
                for (int k = 0; k < K; k++)                                                        \
                    m[k] = CMP(LOAD(x + i + k * N), vs, ARG);                                      \
                VM(vc_store_masks##BITS)(p + i, m, INV);                                           \
            }                                                                                      \
            for (; i < n; i++)                                                                     \
                p[i] = x[i] OP s;                                                                  \
        } else {                                                                                   \
            for (; i + K * N <= n; i += K * N) {                                                   \
                for (int k = 0; k < K; k++)                                                        \
                    m[k] = CMP(LOAD(x + i + k * N), LOAD(y + i + k * N), ARG);                     \
                VM(vc_store_masks##BITS)(p + i, m, INV);                                           \
            }                                                                                      \
            for (; i < n; i++)                                                                     \
                p[i] = x[i] OP y[i];                                                               \
        }                                                                                          \
    }
#define VCMP_ILT(u, v, B) VCMP_IGT(v, u, B)
/* floats: C's predicates (ordered but for !=) */
#define VCMP_FLOAT_ROWS(SN, T, E, BITS, SFX, S)                                                    \
    VCMP_ROW(eq_##SN, T, E, BITS, ==, VCMP_LOAD_##SFX, VCMP_SET1_##SFX, VCMP_EQ, S, 0)             \
    VCMP_ROW(ne_##SN, T, E, BITS, !=, VCMP_LOAD_##SFX, VCMP_SET1_##SFX, VCMP_NE, S, 0)             \
    VCMP_ROW(lt_##SN, T, E, BITS, <, VCMP_LOAD_##SFX, VCMP_SET1_##SFX, VCMP_LT, S, 0)              \
    VCMP_ROW(le_##SN, T, E, BITS, <=, VCMP_LOAD_##SFX, VCMP_SET1_##SFX, VCMP_LE, S, 0)             \
    VCMP_ROW(gt_##SN, T, E, BITS, >, VCMP_LOAD_##SFX, VCMP_SET1_##SFX, VCMP_GT, S, 0)              \
    VCMP_ROW(ge_##SN, T, E, BITS, >=, VCMP_LOAD_##SFX, VCMP_SET1_##SFX, VCMP_GE, S, 0)
/* integers: ==, > and < (a swapped >), and their inverses */
#define VCMP_INT_ROWS(SN, T, E, BITS, SFX)                                                         \
    VCMP_ROW(eq_##SN, T, E, BITS, ==, VCMP_LOAD_INT, VCMP_SET1_##SFX, VCMP_IEQ, BITS, 0)           \
    VCMP_ROW(ne_##SN, T, E, BITS, !=, VCMP_LOAD_INT, VCMP_SET1_##SFX, VCMP_IEQ, BITS, 1)           \
    VCMP_ROW(lt_##SN, T, E, BITS, <, VCMP_LOAD_INT, VCMP_SET1_##SFX, VCMP_ILT, BITS, 0)            \
    VCMP_ROW(le_##SN, T, E, BITS, <=, VCMP_LOAD_INT, VCMP_SET1_##SFX, VCMP_IGT, BITS, 1)           \
    VCMP_ROW(gt_##SN, T, E, BITS, >, VCMP_LOAD_INT, VCMP_SET1_##SFX, VCMP_IGT, BITS, 0)            \
    VCMP_ROW(ge_##SN, T, E, BITS, >=, VCMP_LOAD_INT, VCMP_SET1_##SFX, VCMP_ILT, BITS, 1)
VCMP_FLOAT_ROWS(f32, float, 4, 32, F32, ps)
VCMP_FLOAT_ROWS(f64, double, 8, 64, F64, pd)
VCMP_INT_ROWS(i32, int32_t, 4, 32, I32)
#else
VC_ROWS(f32, float)
VC_ROWS(f64, double)
VC_ROWS(i32, int32_t)
#endif

#ifdef VCMP_INT64
VCMP_INT_ROWS(i64, int64_t, 8, 64, I64)
#else
VC_ROWS(i64, int64_t)
#endif
