/* cpu_vpow.h - float32 powers x ** y, included by cpu_vmath.h once per level.
 *
 * Note [float32 powers]
 * ~~~~~~~~~~~~~~~~~~~~~
 * The C library's powf is a call per element: `x ** 3` of 1e5 float32 took 630 us
 * here, `x ** 1.7` 310 (NumPy 138), `x ** -1.0` 580 (NumPy 84).  For an ordinary
 * pair, x normal and finite and y finite and not 0, with x > 0 or y an integer,
 * x ** y = sign * exp(y log |x|) in double: log |x| by log_split and log_dm_n's
 * ten terms (below 2^-53), the product rounded once, clamped to [-120, 120]
 * (beyond it the float result is inf or 0 either way), exp_d_long (below 2^-47);
 * the sign is - for a negative x and an odd integer y.  The double result is
 * within 2^-44 of x ** y (|y log x| <= 120 bounds what the errors of the log
 * become).  Rounded to float32 it is the correctly rounded power unless x ** y
 * lies within 2^-44 of a rounding boundary (a midpoint between floats, or an
 * exact tie: 261 ** 3 = 17779581); so where the double result lies within 2^-40
 * of one (checked by rounding it 2^-40 up and down), and for every pair that is
 * not ordinary (zeros, subnormals, infinities, NaN, a negative x to a fraction,
 * y 0, inf or NaN), the element is the C library's double pow rounded once
 * (pow_by_double: C's special values, Annex F.10.4.4; exact ties go to even).
 * That is correctly rounded but where double pow's own error (0.52 ulp of double)
 * straddles a float32 midpoint.  x ** y's bits are then the same at every level
 * (the FMA levels fuse the polynomials' steps, the baseline rounds twice: both
 * far inside 2^-40), whatever an element's neighbours (Note [block fast paths])
 * or its layout.  The core turns x ** 2 into x * x, x ** 0.5 into sqrt and x ** -1
 * into 1 / x (Note [squares]).  tests/test_vmath_pow.py checks the result on a dense
 * sample (measured: 0.49999966 ulp from the float64 power, every level the same
 * bits), integer powers against exact ones, and layouts and neighbours.  One
 * thread, AVX-512, 1e5 float32: x ** 3 (half the bases negative) 630 -> 259 us
 * (NumPy 6,040: its vector power leaves negative bases to a scalar loop), |x| **
 * 1.7 310 -> 255 (NumPy 119, in float32 lanes and within 1 ulp or so; ours are
 * double lanes), x ** -1 (1 / x) 580 -> 11 (NumPy 83).
 *
 * Note [float32 powers with tables]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * At AVX-512 a row of ordinary pairs takes log2 and 2^t by tables of 16 doubles
 * (cpu_vpow_tables.h, written by tools/gen_vpow_tables.py), each held in two
 * registers and looked up with one two-register permute: no division and short
 * series.  log2 |x|: x = 2^k z with z in [OFF, 2 OFF) cut by its bits into 16
 * intervals; interval j gives invc ~ 1 / z (a float32) and logc = -log2(invc);
 * r = z invc - 1 is exact (24 x 24 bits, then Sterbenz), |r| < 2^-5; log2(1 + r)
 * by Taylor to r^10, Estrin's scheme, so log2 |x| = (k + logc) + p(r).  The
 * interval holding 1.0 has invc = 1 and logc = 0, and x near 1 has k = 0, so there
 * the truncation (r^10 / 11 < 2^-53.4) and the rounding are relative to r; elsewhere
 * the truncation is below 2^-57.9 and |log2 |x|| > 2^-5.5 (the worst case, z just
 * below 1, where logc and p nearly cancel, sums about 8 roundings of 2^-53 of the
 * result).  So the relative error of log2 |x| is below 2^-50, that of t = y log2 |x|
 * rounded below 1.125 2^-50, and |t| <= 150 wherever the float result is not 0 or
 * inf either way (t is clamped to 170 by magnitude): t is within 2^-42.6 of y log2
 * |x|.  2^t = 2^n 2^(i/16) 2^s, with 16 n + i = rint(16 t) (the 1.5 2^52 shift) and
 * s = t - (16 n + i) / 16 exact, |s| <= 1/32; 2^s - 1 by Taylor to s^6 (the next term
 * is below 2^-51).  The double result is within 2^-43 of x ** y relative (ln 2
 * times t's error, plus 2^-50 for the table and the series); measured
 * over every float32 in [1/4, 4) and a sample of the rest, for y = 1.7, -1.3, 1/3,
 * 123.456, 1e5, -7e6, 3.5e7 and 0.001: 2^-45.4 at worst among normal results (x = 2^-71
 * to the 1.7, where |t| is near 120); a reviewer's 34 million pairs with results down
 * to 2^-150 found 2^-45.07 (x = 0x1.df7784p-2 to the 123.456, near 2^-136).  The
 * same 2^-40 test sends the elements near a rounding boundary to the C library, so the
 * bits are those of the other levels
 * (tests/test_vmath_pow.py compares every level's).  Two chains of eight lanes run side
 * by side.  One thread, 1,000 float32, |x| ** 1.7 (a C harness calling powc_f32 at
 * AVX-512, Xeon at 2.1 GHz): 1.96 us with the earlier tables of 32 (two permutes and
 * a blend a lookup, log by ln, Taylor to r^8 and s^5), 1.61 us with these; the same
 * bits on 58 million pairs.
 *
 * Note [float32 powers of a scalar base]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * c ** y for a scalar base and a tensor exponent (exp2 is 2 ** y, `3 ** x` its kind)
 * went through pow_f32 element by element: a log and an exp each, 15 ns an element,
 * 35-60 times NumPy's exp2.  For c a positive normal float the log is taken once, by
 * the C library in double (log2 c at AVX-512, log c at the other levels; glibc's
 * within 1 ulp, so 2^-52 relative), and the row is only the exp part: t = y l rounded
 * once (relative error below 1.5 2^-52; |t| is at most 150 log2 units where the float
 * result is not 0 or inf either way), then 2^t from the table at AVX-512 (to 2^-50)
 * or exp_d_long elsewhere (to 2^-47).  The double result is within 2^-44 of c ** y,
 * as pow_ordinary's is, and the same 2^-40 test sends the elements near a float32
 * rounding boundary to the C library's double pow.  So each element is pow_f32(c, y)
 * bit for bit: where neither way marks it, both round a value within 2^-44 of c ** y
 * and more than 2^-40 from any boundary, to the same nearest float; where one way
 * marks it, that way takes the double pow and the other either does too or rounds
 * its own value correctly, and the double pow is off only for c ** y within 2^-52 of a
 * boundary, where both ways mark it (at AVX-512, for c = 2, l = 1 and t = y exactly;
 * the argument needs the C library's log2 and log within about an ulp).  Other
 * bases (negative, zero, subnormal, inf, NaN) and blocks with a non-finite exponent go
 * element by element (tests/test_vmath_pow.py: every level, several bases, against the
 * elementwise pow of a base tensor). */

/* 0: y is not an integer (or not finite); 1: an even one; 2: an odd one. */
static inline int VM(pow_int_kind)(float y)
{
    if (!(fabsf(y) < 0x1p24f))
        return isfinite(y) ? 1 : 0; /* every float from 2^24 on is even */
    float t = y < 0 ? -y : y;
    int32_t i = (int32_t)t;
    return (float)i != t ? 0 : (i & 1) ? 2 : 1;
}

/* v rounded to float32, or NaN when v is within 2^-40 of a rounding boundary (rounding
 * it 2^-40 up and down gives two floats) */
static inline float VM(pow_sure)(double v)
{
    float up = (float)(v * (1.0 + 0x1p-40)), down = (float)(v * (1.0 - 0x1p-40));
    return up == down ? up : NAN;
}

/* sign * exp(y log a), a positive normal float, or NaN (which no ordinary pair
 * has) when the double result is within 2^-40 of a float32 rounding boundary,
 * where its error (below 2^-44) could pick the wrong side; see the Note. */
static inline float VM(pow_ordinary)(float a, float y, int negative)
{
    int32_t e;
    float m = VM(log_split_normal)(a, &e);
    double t = VM(clamp_d)((double)y * VM(log_dm_n)(m, e, 10), -120.0, 120.0);
    float v = VM(pow_sure)(VM(exp_d_long)(t));
    return negative ? -v : v;
}

/* x ** y by the C library's double pow, rounded once to float32: for the pairs
 * that are not ordinary (C's special values, Annex F.10.4.4, which pow and powf
 * share) and those near a rounding boundary.  glibc's pow is within 0.52 ulp of
 * double, exact when x ** y is a double (so a tie, 261 ** 3 = 17779581, rounds to
 * even: 17779580, where glibc's powf gives 17779582). */
static inline float VM(pow_by_double)(float x, float y) { return (float)pow((double)x, (double)y); }

/* Whether (x, y) is ordinary; kind: pow_int_kind(y). */
static inline int VM(pow_is_ordinary)(float x, float y, int kind)
{
    uint32_t ax = VM(bits32)(x) & 0x7fffffffu;
    return isfinite(y) && y != 0.0f && ax - 0x00800000u < 0x7f000000u && (x > 0.0f || kind);
}

static float VM(pow_f32)(float x, float y)
{
    int kind = VM(pow_int_kind)(y);
    if (VM(pow_is_ordinary)(x, y, kind)) {
        float r = VM(pow_ordinary)(fabsf(x), y, x < 0.0f && kind == 2);
        if (r == r)
            return r;
    }
    return VM(pow_by_double)(x, y);
}

/* x ** 3 and x ** 4 (k): the product in double.  x^2 is exact (48 bits), the
 * last product rounds once (relative error below 2^-53), and no product of
 * float32 values overflows or leaves double's normal range.  Rounding that
 * double d to float32 gives the correctly rounded power: a float32 rounding
 * boundary (a midpoint, 25 bits) is a double, so it cannot lie strictly
 * between the exact power and its nearest double d; the one case left is d
 * exactly on a midpoint while the power is not, which the exact remainder
 * fma(x^2, x or x^2, -d) tells, and d is then moved one double toward it before
 * rounding (a search of every odd 24-bit mantissa found no float32 whose cube or
 * fourth power meets that case; exact ties, 261 ** 3 = 17779581, pass there with a
 * remainder of 0 and round to even).  Results below float32's normal range (rounded at a coarser
 * spacing), and NaN (pow's, whose sign the product would keep), take pow_f32.
 * So the bits of pow_f32 (correctly rounded both), at
 * the cost of two products: x ** 3 of 1e6 float32 took 1.3 ms through exp and
 * log, as much as any power. */
static inline float VM(pow34_one)(float x, int k)
{
    double v = (double)x, v2 = v * v, d = k == 3 ? v2 * v : v2 * v2;
    double ad = fabs(d);
    if ((ad < 0x1p-126 && ad != 0.0) || d != d) /* tiny, or NaN: pow's NaN, as for y = 5 */
        return VM(pow_f32)(x, (float)k);
    if ((VM(bits64)(d) & 0x1fffffffu) == 0x10000000u) { /* on a float32 midpoint */
        double e = fma(v2, k == 3 ? v : v2, -d);
        if (e != 0.0)
            d = nextafter(d, e > 0.0 ? INFINITY : -INFINITY);
    }
    return (float)d;
}

static void VM(pow34_f32)(float *o, const float *a, int k, int64_t n)
{
    for (int64_t b = 0; b < n; b += 256) {
        int64_t m = n - b < 256 ? n - b : 256;
        float r[256];
        uint32_t odd = 0; /* a midpoint, a tiny result or a NaN in the block */
        for (int64_t i = 0; i < m; i++) {
            double v = (double)a[b + i], v2 = v * v, d = k == 3 ? v2 * v : v2 * v2;
            double ad = fabs(d);
            odd |= (uint32_t)((VM(bits64)(d) & 0x1fffffffu) == 0x10000000u) |
                   (uint32_t)(ad < 0x1p-126 && ad != 0.0) | (uint32_t)(d != d);
            r[i] = (float)d;
        }
        if (odd)
            for (int64_t i = 0; i < m; i++)
                r[i] = VM(pow34_one)(a[b + i], k);
        memcpy(o + b, r, (size_t)m * sizeof(float));
    }
}

/* r[i] = pow_ordinary(|a[i]|, y, odd and a[i] < 0) for a row of ordinary pairs
 * (odd: y is an odd integer): at AVX-512 by tables (Note [float32 powers with
 * tables]), at the other levels by the series above. */
#if PDT_SIMD_BYTES == 64 && defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512DQ__)
#include "cpu_vpow_tables.h"

/* c[0] + c[1] x, c two constants */
static inline __m512d VM(fma_c)(__m512d x, const double *c)
{
    return _mm512_fmadd_pd(x, _mm512_set1_pd(c[1]), _mm512_set1_pd(c[0]));
}

/* 2^t rounded to float32 for eight |t| <= 170 (Note [float32 powers with tables]), NaN
 * in the lanes within 2^-40 of a rounding boundary (*sure clear there) */
static inline __m256 VM(pow_exp2_8)(__m512d t, const __m512d pw2[2], __mmask8 *sure)
{
    const double *ec = pdt_pow_exp2c;
    /* 2^t = 2^n 2^(i/16) 2^s: s = t - (16 n + i) / 16 exactly, |s| <= 1/32 */
    __m512d sh = _mm512_fmadd_pd(t, _mm512_set1_pd(16.0), _mm512_set1_pd(VM_SHIFT));
    __m512d s = _mm512_fnmadd_pd(_mm512_sub_pd(sh, _mm512_set1_pd(VM_SHIFT)),
                                 _mm512_set1_pd(1.0 / 16), t);
    __m512i sb = _mm512_castpd_si512(sh);
    __m512i n = _mm512_add_epi64(_mm512_srai_epi64(sb, 4), _mm512_set1_epi64(1023));
    /* 2^(i/16) 2^n (exact: a scaling by a power of 2 in double's normal range) */
    __m512d tj = _mm512_mul_pd(_mm512_permutex2var_pd(pw2[0], sb, pw2[1]),
                               _mm512_castsi512_pd(_mm512_slli_epi64(n, 52)));
    __m512d s2 = _mm512_mul_pd(s, s);
    __m512d q = _mm512_mul_pd(
        s, _mm512_fmadd_pd(s2, _mm512_fmadd_pd(s2, VM(fma_c)(s, ec + 4), VM(fma_c)(s, ec + 2)),
                           VM(fma_c)(s, ec)));
    __m512d v = _mm512_fmadd_pd(tj, q, tj);
    /* NaN where v is within 2^-40 of a float32 rounding boundary */
    __m256 up = _mm512_cvtpd_ps(_mm512_mul_pd(v, _mm512_set1_pd(1.0 + 0x1p-40)));
    __m256 down = _mm512_cvtpd_ps(_mm512_mul_pd(v, _mm512_set1_pd(1.0 - 0x1p-40)));
    *sure = _mm256_cmp_ps_mask(up, down, _CMP_EQ_OQ);
    return _mm256_mask_blend_ps(*sure, _mm256_set1_ps(NAN), up);
}

/* Eight lanes: m of them (1 to 8) read and written; tables in register pairs, looked
 * up with one two-register permute each.  Returns the lanes marked NaN (near a
 * rounding boundary). */
static inline unsigned VM(pow_tab8)(float *r, const float *a, int m, __m512d yd, int odd,
                                    const __m512d invc[2], const __m512d logc[2],
                                    const __m512d pw2[2])
{
    const double *lc = pdt_pow_log2c;
    const __mmask8 lanes = (__mmask8)((1u << m) - 1);
    __m256i bits = _mm256_castps_si256(_mm256_maskz_loadu_ps(lanes, a));
    __m256i ix = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
    __m256i tmp = _mm256_sub_epi32(ix, _mm256_set1_epi32((int)PDT_POW_OFF));
    /* log2 |a| = k + logc + log2(1 + r) */
    __m512i j = _mm512_cvtepu32_epi64(
        _mm256_and_si256(_mm256_srli_epi32(tmp, PDT_POW_LOG_SHIFT), _mm256_set1_epi32(15)));
    __m512d k = _mm512_cvtepi32_pd(_mm256_srai_epi32(tmp, 23));
    __m256i iz = _mm256_sub_epi32(ix, _mm256_and_si256(tmp, _mm256_set1_epi32((int)0xff800000u)));
    __m512d z = _mm512_cvtps_pd(_mm256_castsi256_ps(iz));
    __m512d rl = _mm512_fmsub_pd(z, _mm512_permutex2var_pd(invc[0], j, invc[1]),
                                 _mm512_set1_pd(1.0)); /* exact */
    __m512d r2 = _mm512_mul_pd(rl, rl), r4 = _mm512_mul_pd(r2, r2);
    /* h = lc[1] + lc[2] r + ... + lc[9] r^8, Estrin's scheme */
    __m512d c89 = _mm512_fmadd_pd(r2, _mm512_set1_pd(lc[9]), VM(fma_c)(rl, lc + 7));
    __m512d h = _mm512_fmadd_pd(r4, _mm512_fmadd_pd(r2, c89, VM(fma_c)(rl, lc + 5)),
                                _mm512_fmadd_pd(r2, VM(fma_c)(rl, lc + 3), VM(fma_c)(rl, lc + 1)));
    __m512d p = _mm512_fmadd_pd(r2, h, _mm512_mul_pd(rl, _mm512_set1_pd(lc[0])));
    __m512d lg = _mm512_add_pd(_mm512_add_pd(k, _mm512_permutex2var_pd(logc[0], j, logc[1])), p);
    /* t = y log2 |a|, |t| clamped to 170 (vrangepd: the smaller magnitude, t's sign;
     * a NaN t would give 170, but no ordinary pair makes one) */
    __m512d t = _mm512_range_pd(_mm512_mul_pd(yd, lg), _mm512_set1_pd(170.0), 0x2);
    __mmask8 sure;
    __m256 out = VM(pow_exp2_8)(t, pw2, &sure);
    if (odd) /* a negative base to an odd power: the base's sign */
        out = _mm256_or_ps(out, _mm256_castsi256_ps(
                                    _mm256_and_si256(bits, _mm256_set1_epi32((int)0x80000000u))));
    _mm256_mask_storeu_ps(r, lanes, out);
    return (unsigned)(lanes & (__mmask8)~sure);
}

/* the three tables in register pairs, loaded once a row */
static inline void VM(pow_tables)(__m512d invc[2], __m512d logc[2], __m512d pw2[2])
{
    for (int q = 0; q < 2; q++) {
        invc[q] = _mm512_loadu_pd(pdt_pow_invc + 8 * q);
        logc[q] = _mm512_loadu_pd(pdt_pow_logc + 8 * q);
        pw2[q] = _mm512_loadu_pd(pdt_pow_exp2 + 8 * q);
    }
}

static unsigned VM(pow_ordinary_row)(float *r, const float *a, float y, int odd, int64_t m)
{
    __m512d invc[2], logc[2], pw2[2];
    VM(pow_tables)(invc, logc, pw2);
    __m512d yd = _mm512_set1_pd((double)y);
    unsigned marked = 0;
    int64_t i = 0;
    for (; i + 16 <= m; i += 16) { /* two chains at once: each is a long dependent one */
        marked |= VM(pow_tab8)(r + i, a + i, 8, yd, odd, invc, logc, pw2);
        marked |= VM(pow_tab8)(r + i + 8, a + i + 8, 8, yd, odd, invc, logc, pw2);
    }
    for (; i < m; i += 8)
        marked |= VM(pow_tab8)(r + i, a + i, m - i < 8 ? (int)(m - i) : 8, yd, odd, invc, logc,
                               pw2);
    return marked;
}

/* r[i] = 2 ** (y[i] l), l = log2 c, for m <= 256 finite y (Note [float32 powers of a
 * scalar base]): 2^t from the table, t = y l rounded once and clamped to 170 by
 * magnitude; returns whether a lane was marked NaN (near a rounding boundary). */
static unsigned VM(cpow_row)(float *r, double l, const float *y, int64_t m)
{
    __m512d pw2[2];
    for (int q = 0; q < 2; q++)
        pw2[q] = _mm512_loadu_pd(pdt_pow_exp2 + 8 * q);
    const __m512d ld = _mm512_set1_pd(l);
    unsigned marked = 0;
    for (int64_t i = 0; i < m; i += 8) {
        __mmask8 lanes = (__mmask8)VM(tail_lanes)(m - i, 8), sure;
        __m512d t = _mm512_mul_pd(_mm512_cvtps_pd(_mm256_maskz_loadu_ps(lanes, y + i)), ld);
        t = _mm512_range_pd(t, _mm512_set1_pd(170.0), 0x2);
        _mm256_mask_storeu_ps(r + i, lanes, VM(pow_exp2_8)(t, pw2, &sure));
        marked |= (unsigned)(lanes & (__mmask8)~sure);
    }
    return marked;
}
#define VM_CPOW_LOG log2 /* the row's l: log2 c */

/* r[i] = a[i] ** y[i] for m <= 256 pairs, every a a positive normal float and every y
 * finite: pow_tab8 with the exponents in the lanes; returns the lanes marked NaN. */
static unsigned VM(pow_pairs_row)(float *r, const float *a, const float *y, int64_t m)
{
    __m512d invc[2], logc[2], pw2[2];
    VM(pow_tables)(invc, logc, pw2);
    unsigned marked = 0;
    for (int64_t i = 0; i < m; i += 8) {
        int k = m - i < 8 ? (int)(m - i) : 8;
        __m512d yd = _mm512_cvtps_pd(_mm256_maskz_loadu_ps((__mmask8)((1u << k) - 1), y + i));
        marked |= VM(pow_tab8)(r + i, a + i, k, yd, 0, invc, logc, pw2);
    }
    return marked;
}
#else
static unsigned VM(pow_ordinary_row)(float *r, const float *a, float y, int odd, int64_t m)
{
    if (odd) {
        for (int64_t i = 0; i < m; i++)
            r[i] = VM(pow_ordinary)(fabsf(a[i]), y, a[i] < 0.0f);
    } else {
        for (int64_t i = 0; i < m; i++)
            r[i] = VM(pow_ordinary)(fabsf(a[i]), y, 0);
    }
    /* a NaN's bits are above inf's */
    return VM(max_bits)(r, m, 0x7fffffffu, 0) > 0x7f800000u;
}

/* r[i] = a[i] ** y[i], as the tables' row: pow_ordinary by the series */
static unsigned VM(pow_pairs_row)(float *r, const float *a, const float *y, int64_t m)
{
    for (int64_t i = 0; i < m; i++)
        r[i] = VM(pow_ordinary)(a[i], y[i], 0);
    return VM(max_bits)(r, m, 0x7fffffffu, 0) > 0x7f800000u;
}

/* r[i] = e ** (y[i] l), l = log c, for m <= 256 finite y: exp_d_long of t = y l
 * rounded once and clamped to [-120, 120], NaN within 2^-40 of a rounding boundary, as
 * pow_ordinary; returns whether a lane was marked. */
static unsigned VM(cpow_row)(float *r, double l, const float *y, int64_t m)
{
    for (int64_t i = 0; i < m; i++) {
        r[i] = VM(pow_sure)(VM(exp_d_long)(VM(clamp_d)((double)y[i] * l, -120.0, 120.0)));
    }
    return VM(max_bits)(r, m, 0x7fffffffu, 0) > 0x7f800000u;
}
#define VM_CPOW_LOG log /* the row's l: log c */
#endif

/* o[i] = a[i] ** y (o may be a), in blocks of 256: a block of ordinary pairs only
 * (found by an unsigned maximum of the bits, without the sign for an integer y)
 * runs pow_ordinary alone, any other block pow_f32 element by element.  A block's
 * results go straight to o when o does not overlap a (else through a buffer, as the
 * elements marked NaN need their base again): 1,000 float32 at AVX-512, 1.70 -> 1.6 us
 * (the buffer's copy and a second scan for the marks). */
static void VM(powc_f32)(float *o, const float *a, float y, int64_t n)
{
    const int kind = VM(pow_int_kind)(y);
    if (y == 3.0f || y == 4.0f) {
        VM(pow34_f32)(o, a, (int)y, n);
        return;
    }
    if (!isfinite(y) || y == 0.0f) {
        for (int64_t i = 0; i < n; i++)
            o[i] = VM(pow_by_double)(a[i], y);
        return;
    }
    const uint32_t keep = kind ? 0x7fffffffu : 0xffffffffu; /* a negative x: ordinary or not */
    const uintptr_t ob = (uintptr_t)o, ab = (uintptr_t)a, bytes = (uintptr_t)n * sizeof(float);
    const int apart = ob + bytes <= ab || ab + bytes <= ob;
    for (int64_t b = 0; b < n; b += 256) {
        int64_t m = n - b < 256 ? n - b : 256;
        if (VM(max_bits)(a + b, m, keep, 0x00800000u) >= 0x7f000000u) {
            for (int64_t i = 0; i < m; i++)
                o[b + i] = VM(pow_f32)(a[b + i], y);
            continue;
        }
        float buf[256], *r = apart ? o + b : buf;
        /* marked NaN: a tie or nearly, the C library's double pow */
        if (VM(pow_ordinary_row)(r, a + b, y, kind == 2, m))
            for (int64_t i = 0; i < m; i++)
                r[i] = r[i] == r[i] ? r[i] : VM(pow_by_double)(a[b + i], y);
        if (!apart)
            memcpy(o + b, r, (size_t)m * sizeof(float));
    }
}

/* o[i] = c ** y[i], a scalar base and a contiguous exponent (o may be y; Note [float32
 * powers of a scalar base]): pow_f32(c, y[i])'s bits.  A base that is not a positive
 * normal float, and a block of 256 holding a non-finite exponent, go element by
 * element; other blocks take the level's row with the base's log once, and the lanes
 * it marks the C library's double pow. */
static void VM(cpow_f32)(float *o, float c, const float *y, int64_t n)
{
    const int ordinary = VM(bits32)(c) - 0x00800000u < 0x7f000000u;
    const double l = ordinary ? VM_CPOW_LOG((double)c) : 0.0;
    for (int64_t b = 0; b < n; b += 256) {
        int64_t m = n - b < 256 ? n - b : 256;
        if (!ordinary || VM(max_bits)(y + b, m, 0x7fffffffu, 0) >= 0x7f800000u) {
            for (int64_t i = 0; i < m; i++)
                o[b + i] = VM(pow_f32)(c, y[b + i]);
            continue;
        }
        float r[256];
        unsigned marked = VM(cpow_row)(r, l, y + b, m);
        for (int64_t i = 0; marked && i < m; i++) /* before o is written: y may be o */
            if (r[i] != r[i])
                r[i] = VM(pow_by_double)(c, y[b + i]);
        memcpy(o + b, r, (size_t)m * sizeof(float));
    }
}
#undef VM_CPOW_LOG

/* o[i] = a[i] ** y[i], both contiguous (o may be either): pow_f32's bits.  A block of 256
 * whose bases are all positive normal floats and whose exponents are all finite runs the
 * level's pairs row (the tables at AVX-512, as powc's), its marked lanes the C library's
 * double pow; any other block pow_f32 element by element.  1e5 pairs at AVX-512, one
 * thread (AMD EPYC Zen 4, 2026-12-01): 2,164 -> 193-226 us (NumPy 68-89). */
static void VM(pow_pairs_f32)(float *o, const float *a, const float *y, int64_t n)
{
    for (int64_t b = 0; b < n; b += 256) {
        int64_t m = n - b < 256 ? n - b : 256;
        if (VM(max_bits)(a + b, m, 0xffffffffu, 0x00800000u) >= 0x7f000000u ||
            VM(max_bits)(y + b, m, 0x7fffffffu, 0) >= 0x7f800000u) {
            for (int64_t i = 0; i < m; i++)
                o[b + i] = VM(pow_f32)(a[b + i], y[b + i]);
            continue;
        }
        float r[256];
        unsigned marked = VM(pow_pairs_row)(r, a + b, y + b, m);
        for (int64_t i = 0; marked && i < m; i++) /* before o is written: o may be a or y */
            if (r[i] != r[i])
                r[i] = VM(pow_by_double)(a[b + i], y[b + i]);
        memcpy(o + b, r, (size_t)m * sizeof(float));
    }
}
