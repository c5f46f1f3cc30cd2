/* cpu_vexpm1.h - float32 log1p and expm1 over rows (included by cpu_vmath.h, once
 * per instruction-set level).
 *
 * Note [log1p and expm1]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * The C library's log1p and expm1 take 16 to 20 ns an element here, one at a
 * time (NumPy 2.4 evaluates them in AVX-512 lanes, 18 to 30 times faster).  The
 * levels with FMA evaluate in float32 lanes (below, after cpu_vmathf.h's exp and
 * log: at most 0.835 and 0.876 ulp over all 2^32 floats, a reviewer's exhaustive
 * check); AVX-512 has expm1's bits of AVX2 and its own log1p (Note [float32 log1p with
 * log's table] in cpu_vtrig_avx512.h, 0.537 ulp).  The baseline widens each argument
 * to double and rounds once (within 2^-40 relative before rounding: log1p was
 * correctly rounded on 2^25 random floats, expm1 within 0.511 ulp).
 * tests/test_rounding.py checks the 1 ulp bound against float64 at every level,
 * over every float32 exponent (200 mantissas each) and the special values.  CUDA
 * computes (float)log1p((double)x) and (float)expm1((double)x), correctly rounded
 * but for boundary cases, so a CPU and a GPU agree within 1 ulp.  The baseline:
 *   log1p  u = 1 + x: exact in double for |x| >= 2^-29 (a float32 has 24 bits;
 *          past 2^29 the rounding of u costs 2^-53 absolute, nothing); below
 *          2^-29 the result is x itself, log1p(x) = x (1 - x/2 + ...) being
 *          within 2^-30 relative of it.  log u as log's reduction in double: u =
 *          2^e m, m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) /
 *          (m + 1), m - 1 exact (Sterbenz), the series to s^15 (log_dm_n's).
 *   expm1  e^y - 1 = 2^n (e^r - 1) + (2^n - 1) from exp's reduction (as tanh's
 *          em): for |y| < ln2 / 2, n = 0 and the series of e^r - 1 has no
 *          cancellation.  y is clamped to [-120, 90] (float32's -1 and inf).
 * Special values: log1p(-1) = -inf, log1p(x < -1) = NaN, log1p(inf) = inf,
 * expm1(-inf) = -1, expm1(inf) = inf, NaN stays NaN, and both keep the sign of
 * a zero. */

/* log of u > 0 (a normal double, or inf), in double, to 2^-44 relative. */
static inline double VM(log_d)(double u)
{
    uint64_t iu = VM(bits64)(u);
    double m = VM(from_bits64)((iu & 0x000fffffffffffffull) | 0x3ff0000000000000ull); /* [1, 2) */
    int big = m > 1.4142135623730951;
    int32_t e = (int32_t)((iu >> 52) & 0x7ff) - 1023 + big; /* int32: SSE2 converts it */
    m = big ? m * 0.5 : m;
    static const double c[8] = {1.0 / 15, 1.0 / 13, 1.0 / 11, 1.0 / 9,
                                1.0 / 7,  1.0 / 5,  1.0 / 3,  1.0};
    const double ln2 = 0x1.62e42fefa39efp-1;
    double f = m - 1.0;
    double s = f / (2.0 + f), z = s * s;
    return (double)e * ln2 + 2.0 * s * VM(horner_d)(z, c, 8);
}

#if PDT_SIMD_FMA
/* float32 lanes with FMA (Note [float32 evaluation with FMA] in cpu_vmathf.h).
 * log1p: fdlibm's arrangement, u = 1 + x rounded, c = its rounding error (exact:
 * x - (u - 1) for |x| < 1, else 1 - (u - x)) over u added to log's low part, log
 * u = k ln2 + log m as log_fe's.  expm1: h = 2^(n - 1), e^y - 1 = 2 (h s + (h -
 * 1/2)) with s = e^r - 1 and its low part (tanh's em, halved so that h stays a
 * normal float up to n = 128), the roundings of h - 1/2 and of the sum carried in
 * the low part; y clamped to [-80, 89].  On 2000 random mantissas of every
 * exponent: log1p 0.755 ulp, expm1 0.798 (NumPy 2.4's: 1.66 and 2.41); over all
 * floats 0.835 and 0.876 (the Note). */
static inline float VM(log1pf)(float x)
{
    float u = 1.0f + x;
    float c = fabsf(x) < 1.0f ? x - (u - 1.0f) : 1.0f - (u - x);
    c = c / u;
    int32_t k;
    float m = VM(log_split)(u > 0.0f ? u : 1.0f, &k); /* u <= 0, inf, NaN: below */
    float f = m - 1.0f, s = f / (2.0f + f), z = s * s, dk = (float)k;
    float hfsq = 0.5f * f * f, R = z * VM(log_q)(z);
    float lo = __builtin_fmaf(s, hfsq + R, __builtin_fmaf(dk, 0x1.2fefa4p-17f, c));
    float r = __builtin_fmaf(dk, 0x1.62e3p-1f, f - (hfsq - lo));
    r = VM(log_special)(u, r);
    return x == 0.0f ? x : r; /* -0.0 stays */
}

static inline float VM(expm1f)(float x)
{
    float r;
    int32_t n = VM(exp_reduce_f)(VM(clamp_f)(x, -80.0f, 89.0f), &r);
    float h = VM(pow2_f)(n - 1);
    float slo, s = VM(expm1_rf)(r, &slo);
    /* h s is exact (h a power of two); h - 1/2 is exact below h = 2^24 and rounds to h
     * from there (losing 1/2); |h - 1/2| >= |h s|, so em's rounding error is exact
     * (Fast2Sum) and joins the low part */
    float p = h * s, hm = h - 0.5f, em = hm + p;
    float emlo = (p - (em - hm)) + (h * slo + (h >= 0x1p24f ? -0.5f : 0.0f));
    float res = 2.0f * (em + emlo);
    /* below 2^-25, e^x - 1 rounds to x (and h s would be subnormal near 2^-126);
     * the zeros keep their sign; NaN: the clamp keeps it, and so does every step */
    return fabsf(x) < 0x1p-25f ? x : res;
}
#else
static inline float VM(log1pf)(float x)
{
    double y = (double)x, u = 1.0 + y;
    double r = VM(log_d)(u > 0x1p-60 ? u : 1.0); /* u <= 0 and NaN: replaced below */
    r = u == 0.0 ? -INFINITY : r;
    r = u < 0.0 ? NAN : r;
    r = u == INFINITY ? u : r;
    r = fabs(y) < 0x1p-29 ? y : r; /* +-0 and tiny x: x itself */
    return x != x ? x + x : (float)r;
}

static inline float VM(expm1f)(float x)
{
    double y = VM(clamp_d)((double)x, -120.0, 90.0), r;
    double t = VM(exp_reduce)(y, &r);
    double s = VM(pow2_t)(t);
    double em = s * VM(expm1_r)(r) + (s - 1.0);
    em = y == 0.0 ? y : em; /* -0.0 stays -0.0 */
    return x != x ? x + x : (float)em;
}

#endif

#ifndef VMT_TABLES /* AVX-512: cpu_vtrig_avx512.h's, with log's table */
static void VM(log1p_row)(float *o, const float *a, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        o[i] = VM(log1pf)(a[i]);
}
#endif

#ifdef VMF_EXP16
/* expm1f's operations on 16 lanes in intrinsics, in the same order, as exp16 is exp_f's
 * (Note [exp in AVX-512 lanes]): the clamp as vmaxps then vminps (NaN kept), 2^(n - 1)
 * from n's bits, so the bits are expm1f's (every float32 compared against AVX2's
 * vectorised expm1f, whose bits this level's gave too).  1e5 float32, one thread (a C
 * harness calling the rows, Xeon at 2.1 GHz, 2026-12-01): 0.48-0.49 ns an element ->
 * 0.40-0.42 (exp: 0.27). */
static inline __m512 VM(expm1_16)(__m512 x)
{
#define VMF_S(c) _mm512_set1_ps(c)
    __m512 y = _mm512_min_ps(VMF_S(89.0f), _mm512_max_ps(VMF_S(-80.0f), x));
    __m512 t, nf, r = VM(exp_reduce16)(y, &t, &nf);
    /* h = 2^(n - 1): n - 1 + 127 = bits(t) - bits(shift) + 126 */
    __m512i nb = _mm512_sub_epi32(_mm512_castps_si512(t), _mm512_set1_epi32(0x4b400000 - 126));
    __m512 h = _mm512_castsi512_ps(_mm512_slli_epi32(nb, 23));
    __m512 slo, s = VM(expm1_r16)(r, &slo);
    __m512 hs = _mm512_mul_ps(h, s), hm = _mm512_sub_ps(h, VMF_S(0.5f));
    __m512 em = _mm512_add_ps(hm, hs);
    __m512 big = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(h, VMF_S(0x1p24f), _CMP_GE_OQ),
                                     VMF_S(-0.5f));
    __m512 emlo = _mm512_add_ps(_mm512_sub_ps(hs, _mm512_sub_ps(em, hm)),
                                _mm512_add_ps(_mm512_mul_ps(h, slo), big));
    __m512 res = _mm512_mul_ps(VMF_S(2.0f), _mm512_add_ps(em, emlo));
    __mmask16 tiny = _mm512_cmp_ps_mask(_mm512_abs_ps(x), VMF_S(0x1p-25f), _CMP_LT_OQ);
    return _mm512_mask_mov_ps(res, tiny, x);
#undef VMF_S
}
VMF_ROW16(expm1_row, VM(expm1_16))
#else
static void VM(expm1_row)(float *o, const float *a, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        o[i] = VM(expm1f)(a[i]);
}
#endif
