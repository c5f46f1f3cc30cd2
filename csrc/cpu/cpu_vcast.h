/* cpu_vcast.h - contiguous float32 and float64 rows into the integer types and bool at
 * the level's width, included by cpu_vmath.h once per level (cpu_kernels.c's cast
 * table calls them through pdt_cpu_simd_table.cast): the values of Note [float to int]
 * (pdt_convert.h) and of the scalar forms in cpu_simd.h, which the tails and the
 * strided rows use.  Each intrinsics form converts with truncation and mends the lanes
 * the instruction leaves at its "integer indefinite" (the lowest value: NaN and
 * out-of-range lanes, Intel SDM vol. 2, CVTTPS2DQ): 0 for NaN, the largest value from
 * 2^31 (2^63) on.
 * 1e5 elements, one thread: the SSE2 rows 28 us (int32) and 17 us (uint8), NumPy's
 * astype 8.8 and 7.7; the AVX-512 rows run at a copy's speed (0.09 ns an element
 * here against memcpy's 0.095), int64 at 0.15 (through the branches 1.4). */
#include "pdt_convert.h" /* pdt_f64_to_i64 */

#if defined(__SSE2__)
#include <immintrin.h>
#endif

static void VM(cast_f32_i32)(void *out, const void *in, int64_t n)
{
    int32_t *o = out;
    const float *a = in;
    int64_t i = 0;
#if PDT_SIMD_BYTES == 64 && defined(__AVX512F__)
    const __m512 hi = _mm512_set1_ps(0x1p31f);
    const __m512i imax = _mm512_set1_epi32(INT32_MAX);
    for (; i + 16 <= n; i += 16) {
        __m512 x = _mm512_loadu_ps(a + i);
        __m512i r = _mm512_cvttps_epi32(x);
        r = _mm512_mask_mov_epi32(r, _mm512_cmp_ps_mask(x, hi, _CMP_GE_OQ), imax);
        r = _mm512_maskz_mov_epi32(_mm512_cmp_ps_mask(x, x, _CMP_ORD_Q), r);
        _mm512_storeu_si512(o + i, r);
    }
#elif PDT_SIMD_BYTES == 32 && defined(__AVX2__)
    const __m256 hi = _mm256_set1_ps(0x1p31f);
    const __m256i imax = _mm256_set1_epi32(INT32_MAX);
    for (; i + 8 <= n; i += 8) {
        __m256 x = _mm256_loadu_ps(a + i);
        __m256i r = _mm256_cvttps_epi32(x);
        __m256i big = _mm256_castps_si256(_mm256_cmp_ps(x, hi, _CMP_GE_OQ));
        r = _mm256_blendv_epi8(r, imax, big);
        r = _mm256_and_si256(r, _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_ORD_Q)));
        _mm256_storeu_si256((__m256i *)(o + i), r);
    }
#elif defined(__SSE2__)
    /* no blend in SSE2: minps (NaN -> the clamp) and maxps first, then INT32_MAX from
     * 2^31 and 0 for NaN by masks */
    const __m128 below = _mm_set1_ps(0x1.fffffep30f), lo = _mm_set1_ps(-0x1p31f);
    const __m128 hi = _mm_set1_ps(0x1p31f);
    const __m128i imax = _mm_set1_epi32(INT32_MAX);
    for (; i + 4 <= n; i += 4) {
        __m128 x = _mm_loadu_ps(a + i);
        __m128i r = _mm_cvttps_epi32(_mm_max_ps(_mm_min_ps(x, below), lo));
        __m128i big = _mm_castps_si128(_mm_cmpge_ps(x, hi));
        r = _mm_or_si128(_mm_andnot_si128(big, r), _mm_and_si128(big, imax));
        r = _mm_and_si128(r, _mm_castps_si128(_mm_cmpord_ps(x, x)));
        _mm_storeu_si128((__m128i *)(o + i), r);
    }
#endif
    for (; i < n; i++)
        o[i] = pdt_f32_to_i32(a[i]);
}

/* The low byte of the int32 truncation where |x| < 2^31 (0 elsewhere: NaN compares
 * false), 0xff from 2^63 on: the low byte of pdt_f32_low16 (from 2^31 to 2^63 a float32
 * is a multiple of 2^8). */
static void VM(cast_f32_u8)(void *out, const void *in, int64_t n)
{
    uint8_t *o = out;
    const float *a = in;
    int64_t i = 0;
#if PDT_SIMD_BYTES == 64 && defined(__AVX512F__)
    const __m512 lim = _mm512_set1_ps(0x1p31f), big = _mm512_set1_ps(0x1p63f);
    const __m512i ff = _mm512_set1_epi32(0xff);
    for (; i + 16 <= n; i += 16) {
        __m512 x = _mm512_loadu_ps(a + i);
        __mmask16 small = _mm512_cmp_ps_mask(_mm512_abs_ps(x), lim, _CMP_LT_OQ);
        __m512i r = _mm512_maskz_cvttps_epi32(small, x);
        r = _mm512_mask_mov_epi32(r, _mm512_cmp_ps_mask(x, big, _CMP_GE_OQ), ff);
        _mm_storeu_si128((__m128i *)(o + i), _mm512_cvtepi32_epi8(r)); /* the low bytes */
    }
#elif PDT_SIMD_BYTES == 32 && defined(__AVX2__)
    /* four vectors' low bytes by the saturating packs (each lane masked to 0..255
     * first), which work within 128-bit halves: the dwords are put back in order */
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MAX));
    const __m256 lim = _mm256_set1_ps(0x1p31f), big = _mm256_set1_ps(0x1p63f);
    const __m256i low = _mm256_set1_epi32(0xff), order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (; i + 32 <= n; i += 32) {
        __m256i q[4];
        for (int k = 0; k < 4; k++) {
            __m256 x = _mm256_loadu_ps(a + i + 8 * k);
            __m256 small = _mm256_cmp_ps(_mm256_and_ps(x, absmask), lim, _CMP_LT_OQ);
            __m256i r = _mm256_cvttps_epi32(_mm256_and_ps(x, small));
            r = _mm256_or_si256(r, _mm256_castps_si256(_mm256_cmp_ps(x, big, _CMP_GE_OQ)));
            q[k] = _mm256_and_si256(r, low);
        }
        __m256i w = _mm256_packus_epi16(_mm256_packs_epi32(q[0], q[1]),
                                        _mm256_packs_epi32(q[2], q[3]));
        _mm256_storeu_si256((__m256i *)(o + i), _mm256_permutevar8x32_epi32(w, order));
    }
#elif defined(__SSE2__)
    /* four vectors' low bytes packed by the saturating packs (each lane masked to
     * 0..255 first) */
    const __m128 absmask = _mm_castsi128_ps(_mm_set1_epi32(INT32_MAX));
    const __m128 lim = _mm_set1_ps(0x1p31f), big = _mm_set1_ps(0x1p63f);
    const __m128i low = _mm_set1_epi32(0xff);
    for (; i + 16 <= n; i += 16) {
        __m128i q[4];
        for (int k = 0; k < 4; k++) {
            __m128 x = _mm_loadu_ps(a + i + 4 * k);
            __m128 y = _mm_and_ps(x, _mm_cmplt_ps(_mm_and_ps(x, absmask), lim));
            __m128i r = _mm_or_si128(_mm_cvttps_epi32(y), _mm_castps_si128(_mm_cmpge_ps(x, big)));
            q[k] = _mm_and_si128(r, low);
        }
        __m128i w = _mm_packus_epi16(_mm_packs_epi32(q[0], q[1]), _mm_packs_epi32(q[2], q[3]));
        _mm_storeu_si128((__m128i *)(o + i), w);
    }
#endif
    for (; i < n; i++)
        o[i] = (uint8_t)pdt_f32_low16(a[i]);
}

/* Only AVX-512 (DQ) converts to 64-bit lanes; below it the branches of pdt_f64_to_i64,
 * which ordinary values predict, beat the scalar selects (230 us against 143 for 1e5
 * on SSE2). */
static void VM(cast_f32_i64)(void *out, const void *in, int64_t n)
{
    int64_t *o = out;
    const float *a = in;
    int64_t i = 0;
#if PDT_SIMD_BYTES == 64 && defined(__AVX512DQ__)
    const __m256 hi = _mm256_set1_ps(0x1p63f);
    const __m512i imax = _mm512_set1_epi64(INT64_MAX);
    for (; i + 8 <= n; i += 8) {
        __m256 x = _mm256_loadu_ps(a + i);
        __m512i r = _mm512_cvttps_epi64(x);
        r = _mm512_mask_mov_epi64(r, _mm256_cmp_ps_mask(x, hi, _CMP_GE_OQ), imax);
        r = _mm512_maskz_mov_epi64(_mm256_cmp_ps_mask(x, x, _CMP_ORD_Q), r);
        _mm512_storeu_si512(o + i, r);
    }
#endif
    for (; i < n; i++)
        o[i] = pdt_f64_to_i64((double)a[i]);
}

/* float64 -> int32: the conversion's indefinite lanes mended as float32's (NaN: 0;
 * from 2^31: INT32_MAX; down from -2^31 - 1 the indefinite is INT32_MIN already) at
 * AVX-512: 1e5 elements 14.7 us (NumPy 14.3), where GCC's vectorisation of
 * pdt_f64_to_i32_sel took 31; below, that loop (an AVX2 form of this measured 28). */
static void VM(cast_f64_i32)(void *out, const void *in, int64_t n)
{
    int32_t *o = out;
    const double *a = in;
    int64_t i = 0;
#if PDT_SIMD_BYTES == 64 && defined(__AVX512F__)
    const __m512d hi = _mm512_set1_pd(0x1p31);
    const __m256i imax = _mm256_set1_epi32(INT32_MAX);
    for (; i + 8 <= n; i += 8) {
        __m512d x = _mm512_loadu_pd(a + i);
        __m256i r = _mm512_cvttpd_epi32(x);
        r = _mm256_mask_mov_epi32(r, _mm512_cmp_pd_mask(x, hi, _CMP_GE_OQ), imax);
        r = _mm256_maskz_mov_epi32(_mm512_cmp_pd_mask(x, x, _CMP_ORD_Q), r);
        _mm256_storeu_si256((__m256i *)(o + i), r);
    }
#elif defined(__SSE2__)
    /* Below AVX-512 the clamp goes first, in double: min(x, 2^31 - 1) (vminpd gives its
     * second operand for a NaN x), NaN lanes then zeroed by the ordered compare's mask;
     * from -2^31 - 1 down the conversion's indefinite is INT32_MIN already.  1e5 on an
     * AVX2 EPYC: 61 -> 20 us (NumPy's astype 19-22), where GCC's vectorisation of
     * pdt_f64_to_i32_sel's selects ran one element at a time. */
#if PDT_SIMD_BYTES >= 32 && defined(__AVX__)
    const __m256d hi = _mm256_set1_pd(2147483647.0);
    for (; i + 8 <= n; i += 8) {
        __m256d x0 = _mm256_loadu_pd(a + i), x1 = _mm256_loadu_pd(a + i + 4);
        x0 = _mm256_and_pd(_mm256_min_pd(x0, hi), _mm256_cmp_pd(x0, x0, _CMP_ORD_Q));
        x1 = _mm256_and_pd(_mm256_min_pd(x1, hi), _mm256_cmp_pd(x1, x1, _CMP_ORD_Q));
        _mm_storeu_si128((__m128i *)(o + i), _mm256_cvttpd_epi32(x0));
        _mm_storeu_si128((__m128i *)(o + i + 4), _mm256_cvttpd_epi32(x1));
    }
#else
    const __m128d hi = _mm_set1_pd(2147483647.0);
    for (; i + 4 <= n; i += 4) {
        __m128d x0 = _mm_loadu_pd(a + i), x1 = _mm_loadu_pd(a + i + 2);
        x0 = _mm_and_pd(_mm_min_pd(x0, hi), _mm_cmpord_pd(x0, x0));
        x1 = _mm_and_pd(_mm_min_pd(x1, hi), _mm_cmpord_pd(x1, x1));
        _mm_storeu_si128((__m128i *)(o + i),
                         _mm_unpacklo_epi64(_mm_cvttpd_epi32(x0), _mm_cvttpd_epi32(x1)));
    }
#endif
#endif
    for (; i < n; i++)
        o[i] = pdt_f64_to_i32_sel(a[i]);
}

/* The rest in plain loops of the branch-free scalar forms, which GCC vectorises at
 * every level (1e5 elements before, through the branches: float32 -> int16 92 us,
 * float64 -> int32 90, -> uint8 87, -> bool 57; NumPy 8 to 18). */
#define VM_CAST_ROW(NAME, S, D, CONV)                                                              \
    static void VM(NAME)(void *out, const void *in, int64_t n)                                     \
    {                                                                                              \
        D *restrict o = out;                                                                       \
        const S *restrict a = in;                                                                  \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = (D)(CONV(a[i]));                                                                \
    }
VM_CAST_ROW(cast_f32_i16, float, uint16_t, pdt_f32_low16)
VM_CAST_ROW(cast_f64_u8, double, uint8_t, pdt_f64_low16)
VM_CAST_ROW(cast_f64_i16, double, uint16_t, pdt_f64_low16)
VM_CAST_ROW(cast_f64_bool, double, uint8_t, 0 !=)
/* the integers and bool into the floats and between int32 and int64: C's conversions (to
 * the nearest float, wrapping to int32), which the level's instructions give too
 * (vcvtdq2ps, vcvtqq2ps at AVX-512; the baseline's SSE2 has no int64 conversion): int32
 * -> float32 of 2e4 on one thread 2.95 -> 1.62 us, NumPy 1.77 */
#define VM_AS_IS(x) (x)
#define VM_BOOL_01(x) ((x) != 0)
VM_CAST_ROW(cast_i32_f32, int32_t, float, VM_AS_IS)
VM_CAST_ROW(cast_i32_f64, int32_t, double, VM_AS_IS)
#if PDT_SIMD_BYTES == 32 && defined(__AVX2__)
/* Note [int64 to float at AVX2]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * AVX2 has no int64 conversion (vcvtqq2pd/ps are AVX-512 DQ), and C's (float)x became
 * one scalar vcvtsi2ssq an element: 1e5 int64 into float32 took 150 us on one thread
 * (AMD Zen 3), NumPy's astype 40 to 70.  Here 4 lanes at a time, with the values of the
 * conversion (the nearest float, ties to even, under the default rounding mode):
 * - float64: u = x + 2^63 (x with its top bit flipped) is hi 2^32 + lo in unsigned
 *   halves.  2^84 + hi 2^32 and 2^52 + lo are doubles made by writing the halves
 *   under those exponents' bits (their ulps are 2^32 and 1); subtracting 2^84 + 2^63 +
 *   2^52 (33 significant bits) from the first is exact (the difference, 2^32 (hi - 2^31
 *   - 2^20), has 33 bits), and adding the second gives x + 0 rounded once.
 * - float32: the double, then cvtpd2ps, would round twice where x has more than 53
 *   bits.  There (|x| >= 2^53) x's bits below 2^12 are folded into one sticky bit at
 *   2^11: y lies in the same open interval between multiples of 2^12 as x (or is x), and
 *   float32's rounding points there are multiples of 2^29 at least, so y and x round to
 *   the same float; y has at most 52 significant bits, so its double is exact and the
 *   only rounding is cvtpd2ps's.
 * - Both, where a block's |x| are below 2^51 (counts, indices, most data): x + 2^51 is
 *   below 2^52, so written under 2^52's exponent bits it is the double 2^52 + 2^51 + x,
 *   exactly; subtracting 2^52 + 2^51 leaves x, exact, and float32's only rounding is
 *   cvtpd2ps's.  Five instructions for 4 lanes where the general forms take 6 and 16
 *   (1e5 into float32 on one thread: 49 -> 24 us, NumPy 37).  A row runs in this
 *   form, 8 lanes at a time, up to the first block with a larger |x|, and in the general
 *   form from there (a test in every block cost rows of large values 20%).
 * (Under a directed rounding mode 0 would come out as -0.0 from -2^52 + 2^52 rounded
 * down; the package runs under the default one, as NumPy assumes too.)
 * test_int64_to_float_rows_round_once_at_every_cpu_level checks ties and their
 * neighbours at every exponent against NumPy's conversion. */
static inline __m256d vm_i64_to_f64(__m256i x)
{
    const __m256i u = _mm256_xor_si256(x, _mm256_set1_epi64x(INT64_MIN));
    const __m256i e84 = _mm256_castpd_si256(_mm256_set1_pd(0x1p84));
    const __m256i e52 = _mm256_castpd_si256(_mm256_set1_pd(0x1p52));
    const __m256d hi = _mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64(u, 32), e84));
    const __m256d lo = _mm256_castsi256_pd(_mm256_blend_epi32(u, e52, 0xAA)); /* high dwords */
    return _mm256_add_pd(_mm256_sub_pd(hi, _mm256_set1_pd(0x1p84 + 0x1p63 + 0x1p52)), lo);
}
static inline __m128 vm_i64_to_f32(__m256i x)
{
    const __m256i zero = _mm256_setzero_si256(), low = _mm256_set1_epi64x(0xfff);
    const __m256i wide = _mm256_add_epi64(x, _mm256_set1_epi64x(INT64_C(1) << 53));
    const __m256i small = _mm256_cmpeq_epi64(_mm256_srli_epi64(wide, 54), zero); /* |x| < 2^53 */
    const __m256i exact = _mm256_cmpeq_epi64(_mm256_and_si256(x, low), zero);
    const __m256i sticky = _mm256_andnot_si256(exact, _mm256_set1_epi64x(0x800));
    const __m256i y = _mm256_or_si256(_mm256_andnot_si256(low, x), sticky);
    return _mm256_cvtpd_ps(vm_i64_to_f64(_mm256_blendv_epi8(y, x, small)));
}
/* x + 2^51 for the test, and the double of x where the test passed: both |x| < 2^51 */
#define VM_I64_BIASED(x) _mm256_add_epi64(x, _mm256_set1_epi64x(INT64_C(1) << 51))
static inline int vm_i64_below_2_51(__m256i t0, __m256i t1)
{
    return _mm256_testz_si256(_mm256_or_si256(t0, t1), _mm256_set1_epi64x(-(INT64_C(1) << 52)));
}
static inline __m256d vm_i64_small_to_f64(__m256i t)
{
    const __m256i e52 = _mm256_castpd_si256(_mm256_set1_pd(0x1p52));
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(t, e52)),
                         _mm256_set1_pd(0x1p52 + 0x1p51));
}
static void VM(cast_i64_f32)(void *out, const void *in, int64_t n)
{
    float *o = out;
    const int64_t *a = in;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i t0 = VM_I64_BIASED(_mm256_loadu_si256((const __m256i *)(a + i)));
        const __m256i t1 = VM_I64_BIASED(_mm256_loadu_si256((const __m256i *)(a + i + 4)));
        if (!vm_i64_below_2_51(t0, t1))
            break; /* the rest in the general form */
        const __m128 v0 = _mm256_cvtpd_ps(vm_i64_small_to_f64(t0));
        const __m128 v1 = _mm256_cvtpd_ps(vm_i64_small_to_f64(t1));
        _mm256_storeu_ps(o + i, _mm256_set_m128(v1, v0));
    }
    for (; i + 8 <= n; i += 8) {
        const __m128 v0 = vm_i64_to_f32(_mm256_loadu_si256((const __m256i *)(a + i)));
        const __m128 v1 = vm_i64_to_f32(_mm256_loadu_si256((const __m256i *)(a + i + 4)));
        _mm256_storeu_ps(o + i, _mm256_set_m128(v1, v0));
    }
    for (; i < n; i++)
        o[i] = (float)a[i];
}
static void VM(cast_i64_f64)(void *out, const void *in, int64_t n)
{
    double *o = out;
    const int64_t *a = in;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i t0 = VM_I64_BIASED(_mm256_loadu_si256((const __m256i *)(a + i)));
        const __m256i t1 = VM_I64_BIASED(_mm256_loadu_si256((const __m256i *)(a + i + 4)));
        if (!vm_i64_below_2_51(t0, t1))
            break; /* the rest in the general form */
        _mm256_storeu_pd(o + i, vm_i64_small_to_f64(t0));
        _mm256_storeu_pd(o + i + 4, vm_i64_small_to_f64(t1));
    }
    for (; i + 4 <= n; i += 4)
        _mm256_storeu_pd(o + i, vm_i64_to_f64(_mm256_loadu_si256((const __m256i *)(a + i))));
    for (; i < n; i++)
        o[i] = (double)a[i];
}
#else
VM_CAST_ROW(cast_i64_f32, int64_t, float, VM_AS_IS)
VM_CAST_ROW(cast_i64_f64, int64_t, double, VM_AS_IS)
#endif
VM_CAST_ROW(cast_i32_i64, int32_t, int64_t, VM_AS_IS)
VM_CAST_ROW(cast_i64_i32, int64_t, uint32_t, (uint32_t)) /* the low 32 bits */
VM_CAST_ROW(cast_bool_f32, uint8_t, float, VM_BOOL_01)
VM_CAST_ROW(cast_bool_i64, uint8_t, int64_t, VM_BOOL_01)
#undef VM_AS_IS
#undef VM_BOOL_01
#undef VM_CAST_ROW
#undef VM_I64_BIASED

#define VM_CASTS                                                                                   \
    {                                                                                              \
        [PDT_VCAST_F32_I32] = VM(cast_f32_i32), [PDT_VCAST_F32_U8] = VM(cast_f32_u8),              \
        [PDT_VCAST_F32_I64] = VM(cast_f32_i64), [PDT_VCAST_F32_I16] = VM(cast_f32_i16),            \
        [PDT_VCAST_F64_I32] = VM(cast_f64_i32), [PDT_VCAST_F64_U8] = VM(cast_f64_u8),              \
        [PDT_VCAST_F64_I16] = VM(cast_f64_i16), [PDT_VCAST_F64_BOOL] = VM(cast_f64_bool),          \
        [PDT_VCAST_I32_F32] = VM(cast_i32_f32), [PDT_VCAST_I32_F64] = VM(cast_i32_f64),            \
        [PDT_VCAST_I64_F32] = VM(cast_i64_f32), [PDT_VCAST_I64_F64] = VM(cast_i64_f64),            \
        [PDT_VCAST_I32_I64] = VM(cast_i32_i64), [PDT_VCAST_I64_I32] = VM(cast_i64_i32),            \
        [PDT_VCAST_BOOL_F32] = VM(cast_bool_f32), [PDT_VCAST_BOOL_I64] = VM(cast_bool_i64),        \
    }
