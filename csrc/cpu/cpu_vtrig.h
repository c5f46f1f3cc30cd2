/* cpu_vtrig.h - float32 tan, atan, atan2, asin, acos, asinh, acosh, atanh, log2, log10
 * and rsqrt over rows (included by cpu_vmath.h, once per instruction-set level, after
 * cpu_vexpm1.h).
 *
 * Note [float32 inverse functions]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * These went through the C library's double functions one element at a time (5 to 27
 * ns an element here, 14 to 41 times NumPy 2.4's AVX-512 float32 loops at 1e6).  The
 * levels with FMA now evaluate them in float32 lanes (Note [float32 evaluation with
 * FMA] in cpu_vmathf.h), carrying the rounding errors of the reduction steps in a low
 * part (2Sum and Fast2Sum, the exact residuals of a quotient or a square root by
 * FMA), so that each result is one rounding of hi + lo:
 *   atan, atan2  A / B (atan: A = |x|, B = 1; atan2: |y| and |x|) reduced to |t| <=
 *          tan(pi/8) by one quotient, t = A / B, (A - B) / (A + B) or -B / A (base 0,
 *          pi/4, pi/2), the numerator and denominator exact as hi + lo pairs, t's
 *          error carried from its residual; atan t = t + t z P(z), z = t^2, P of
 *          degree 5 fitted here (least squares toward the relative minimax on
 *          Chebyshev nodes, error below 2^-28.9).  atan2 takes pi - r where x has its
 *          sign bit set, puts y's sign last, and follows C's special values (the
 *          zeros, the infinities).
 *   asin, acos  |x| <= 1/2: asin x = x + x z P(z), z = x^2; above, asin x = pi/2 - 2
 *          asin s, s = sqrt((1 - |x|) / 2) (1 - |x| exact) with the square root's
 *          residual carried; acos from the same pieces (pi/2 - asin x, 2 asin s, or pi
 *          - 2 asin s).  P of degree 5 on z <= 1/4 (2^-29.8).
 *   tan    y = n pi/2 + r as sin's (three parts of pi/2, |x| <= 2^13), r as hi + lo
 *          (the product n pio2_2 and its sum with x - n pio2_1 split exactly: they
 *          cancel near a multiple of pi/2); tan r = r + r z P(z), P of degree 6 on |r| <= pi/4
 *          (2^-28.3); -1 / tan r for odd n, the quotient corrected from its residual
 *          (div2_f).  Past 2^13 (and inf, NaN) a block goes element by element and
 *          such an element takes the C library's tan in double, rounded once.
 *   log2, log10  log m = f - h + (s (h + R) - h's rounding error), as log_fe's with
 *          h = f^2 / 2 split exactly, kept as hi + lo, times 1 / ln2 (1 / ln10) in two
 *          parts, plus k (k log10(2) in two parts), summed by Fast2Sum.
 *   atanh  log((1 + a) / (1 - a)) / 2, a = |x|: the quotient as hi + lo (1 +- a by
 *          2Sum), log of it with the low part as a relative correction (log1pf's c).
 *   asinh  log1p(v), v = a + a^2 / (1 + sqrt(1 + a^2)) kept as hi + lo; past 2^12,
 *          log(a) + ln2 (the rest below 2^-26 relative).
 *   acosh  log1p(d + sqrt(d^2 + 2 d)), d = x - 1 as hi + lo, the square root's
 *          residual carried; past 2^12, log(x) + ln2.
 *   rsqrt  y = 1 / sqrt(x) in float, then one Newton step from the residual 1 - x y^2
 *          computed to 2^-48 (below, rsqrtf): within 2^-23 ulp of 1 / sqrt(x) before
 *          the last rounding.
 * Bounds (float32, AVX2 and AVX-512), asserted by tests/test_trig.py (FMA_ULPS32) on its
 * dense sample of every float32 exponent, the subnormals and the special values (+-0,
 * +-inf, NaN, the domain edges): tan 1.5, asin 0.75, acos 0.75, atan 1, atan2 1, asinh
 * 1.5, acosh 1.5, atanh 1, log2 0.75, log10 0.75, rsqrt 0.501 ulp; measured there (3000
 * mantissas an exponent): tan 0.99, asin 0.57, acos 0.58, atan 0.71, atan2 0.89, asinh
 * 1.01, acosh 0.99, atanh 0.75, log2 0.62, log10 0.60, rsqrt 0 (correctly rounded on
 * the sample).  The baseline keeps the C library's double functions rounded once (0.501
 * ulp; rsqrt: 1 / sqrt in double), so it and the FMA levels differ within the sum of
 * their bounds; AVX2 and AVX-512 run the same operations and give the same bits, but for
 * the functions AVX-512 takes from cpu_vtrig_avx512.h (each within its bound).  CUDA
 * computes CUDA's own functions (cuda_elementwise.cu), so a CPU and a GPU agree within
 * the CUDA Math API's bound plus these.
 * 1e6 float32 on one thread, AVX-512 (Xeon, a loaded 2-core machine, NumPy and ours
 * alternated, the best of 21; 2026-12-01): from 5 to 70 times NumPy 2.4's time to 1.1
 * (rsqrt) to 2.0 (atanh): tan 1.3-1.5, asin and acos 1.4-1.8, atan 1.5-2.0, atan2
 * 1.3-1.7, asinh 1.4-1.8, acosh 1.6-1.9, atanh 1.8-2.0, log2 1.6, log10 1.7-1.9.
 * AVX-512 now runs all of them from cpu_vtrig_avx512.h (its Notes): at 1e3 / 1e5 / 1e6
 * elements, one thread, CPU time (`python benchmarks/bench_vmath.py --dtype float32
 * --threads 1 --cpu-time --repeat 15 --levels avx512`, 2026-12-01 10:36 and 10:46 UTC, a
 * quiet machine) tan 0.87 / 0.96 / 1.30 of NumPy's time, asin 0.75 / 1.16 / 1.05, acos
 * 0.80 / 1.11 / 1.13, atan 0.84 / 1.35 / 1.22, atan2 1.21 / 1.60 / 1.68, asinh 0.99 / 1.30
 * / 1.30, acosh 0.95 / 1.13 / 1.29, atanh 0.72 / 1.16 / 1.08, log2 0.86 / 1.73 / 1.22,
 * log10 0.82 / 1.61 / 1.32, rsqrt 0.43 / 0.63 / 0.62 (from 1.15-2.6 at 1e5-1e6).  NumPy's
 * kernels are less accurate: 1.9 (log2), 3.3 (log10), 2.0 (arctan), 2.8 (arcsin, tan) ulp
 * on 4e6 random floats.
 */

/* AVX-512 (VMT_TABLES, cpu_vmath.h) takes every function here from cpu_vtrig_avx512.h */

#if PDT_SIMD_FMA
#define VMT_PIO2_HI 0x1.921fb6p0f
#define VMT_PIO2_LO -0x1.777a5cp-25f
#define VMT_PI_HI 0x1.921fb6p1f
#define VMT_PI_LO -0x1.777a5cp-24f
#define VMT_PIO4_HI 0x1.921fb6p-1f
#define VMT_PIO4_LO -0x1.777a5cp-26f
#define VMT_TAN_PI_8 0x1.a8279ap-2f /* sqrt(2) - 1 */

/* c[0] z^(n-1) + ... + c[n-1] by Horner's rule with FMA (unrolled: n is a constant) */
static inline float VM(horner_f)(float z, const float *c, int n)
{
    float p = c[0];
    for (int i = 1; i < n; i++)
        p = __builtin_fmaf(p, z, c[i]);
    return p;
}

/* The polynomials' coefficients, from the highest power down (fitted here: the Note) */
static const float VM(atan_c)[6] = {0x1.848f1ap-5f,  -0x1.5b2bc4p-4f, 0x1.c4633ep-4f,
                                    -0x1.247ed2p-3f, 0x1.999918p-3f,  -0x1.555554p-2f};
static const float VM(asin_c)[6] = {0x1.335572p-5f, 0x1.d92090p-7f, 0x1.049190p-5f,
                                    0x1.6caed4p-5f, 0x1.33387cp-4f, 0x1.55554cp-3f};
static const float VM(tan_c)[7] = {0x1.1ecd96p-8f, 0x1.7791fep-14f, 0x1.631164p-7f, 0x1.5caff4p-6f,
                                   0x1.badbdep-5f, 0x1.110d8ep-3f,  0x1.555560p-2f};

VM_TWO_SUMS(two_sum_f, fast_two_sum_f, float) /* cpu_vmath.h */

/* atan(A / B) as hi + *lo, for A, B >= 0, not both 0 nor both inf (the callers
 * replace those), neither above 2^125 (A + B must stay finite), and not both below
 * 2^-100 (1 / B must stay finite), nor B below 2^-24 with A subnormal (for t's residual). */
static inline float VM(atan_ratio_f)(float A, float B, float *lo)
{
    int big = A * VMT_TAN_PI_8 > B, mid = A > B * VMT_TAN_PI_8; /* A / B > 2.414, > 0.414 */
    float nl, dl;
    float nh = VM(two_sum_f)(A, -B, &nl), dh = VM(two_sum_f)(A, B, &dl);
    nh = big ? -B : mid ? nh : A;
    dh = big ? A : mid ? dh : B;
    nl = mid ? nl : 0.0f; /* (in two selects: GCC 12 keeps `mid & !big ?` and a */
    nl = big ? 0.0f : nl; /* nested select scalar) */
    dl = mid ? dl : 0.0f;
    dl = big ? 0.0f : dl;
    float rcp = 1.0f / dh, t = nh * rcp;
    float tl = ((__builtin_fmaf(-t, dh, nh) + nl) - t * dl) * rcp; /* (nh + nl) / (dh + dl) - t */
    tl = dh == INFINITY ? 0.0f : tl;
    float z = t * t;
    float p = VM(horner_f)(z, VM(atan_c), 6);
    float w = __builtin_fmaf(t * z, p, tl), l1;
    float h1 = VM(fast_two_sum_f)(t, w, &l1);
    float bh = big ? VMT_PIO2_HI : mid ? VMT_PIO4_HI : 0.0f;
    float bl = big ? VMT_PIO2_LO : mid ? VMT_PIO4_LO : 0.0f, e;
    float s = VM(fast_two_sum_f)(bh, h1, &e);
    *lo = e + (l1 + bl);
    return s;
}

static inline float VM(atanf)(float x)
{
    float lo, hi = VM(atan_ratio_f)(fabsf(x), 1.0f, &lo);
    return copysignf(hi + lo, x);
}

/* atan2(y, x), C's special values */
static inline float VM(atan2f)(float y, float x)
{
    /* single comparisons and selects only: GCC 12 keeps a loop with `a & b ?` scalar */
    float A = fabsf(y), B = fabsf(x), any_nan = A + B;
    float mn = A < B ? A : B, mx = A < B ? B : A;
    A = mn == INFINITY ? 1.0f : A; /* both infinite: atan2 1 1 */
    B = mn == INFINITY ? 1.0f : B;
    B = mx == 0.0f ? 1.0f : B; /* both zero: atan2 0 1 */
    /* exact scalings: A + B finite; below 2^24 up by 2^100, so that 1 / B stays finite
     * and the residual of A / B is exact (a subnormal A loses it where A / B is normal) */
    float sc = mx > 0x1p125f ? 0.25f : 1.0f;
    sc = mx < 0x1p24f ? 0x1p100f : sc;
    float lo, hi = VM(atan_ratio_f)(A * sc, B * sc, &lo);
    float e, d = VM(fast_two_sum_f)(VMT_PI_HI, -hi, &e); /* pi - atan(A / B) */
    float r = copysignf(1.0f, x) < 0.0f ? d + ((e + VMT_PI_LO) - lo) : hi + lo;
    r = copysignf(r, y);
    return any_nan != any_nan ? x + y : r;
}

/* asin s = s + g, for the s and z = s^2 of asin and acos: g = s z P(z) + es, es the
 * rounding error of s = sqrt(z) where root (0 for s itself exact). */
static inline float VM(asin_g)(float s, float z, float es)
{
    float p = VM(horner_f)(z, VM(asin_c), 6);
    return __builtin_fmaf(s * z, p, es);
}

/* The square roots: GCC keeps sqrtf a call to the C library (for its errno) and the
 * loop scalar, so each function taking one is split in two, pre(x) the radicand and
 * f(x, its square root), and the rows (VMT_SQRT_ROW) take the roots of a block through
 * the level's sqrt row (the instruction). */

/* asin and acos: the radicand (1 - |x|) / 2 (exact) where |x| > 1/2, else x^2 */
static inline float VM(asin_pre)(float x)
{
    float a = fabsf(x);
    return a > 0.5f ? (1.0f - a) * 0.5f : a * a;
}

/* the reduction of asin and acos: a = |x|; above 1/2 s = sqrt((1 - |x|) / 2) (sq)
 * with *es its rounding error, else s = a (*es = 0); *z = s^2 (exact above 1/2) */
static inline float VM(asin_reduce)(float a, float sq, float *z, float *es)
{
    int big = a > 0.5f;
    float zz = VM(asin_pre)(a);
    float s = big ? sq : a;
    float r = __builtin_fmaf(-s, s, zz) * (0.5f / s);
    *es = big & (s != 0.0f) ? r : 0.0f;
    *z = zz;
    return s;
}

static inline float VM(asinf)(float x, float sq)
{
    float a = fabsf(x), z, es;
    float s = VM(asin_reduce)(a, sq, &z, &es);
    float g = VM(asin_g)(s, z, es), e;
    float d = VM(fast_two_sum_f)(VMT_PIO2_HI, -2.0f * s, &e); /* pi/2 - 2 asin s */
    float r = a > 0.5f ? d + ((e + VMT_PIO2_LO) - 2.0f * g) : s + g;
    return copysignf(r, x);
}

static inline float VM(acosf)(float x, float sq)
{
    float a = fabsf(x), z, es;
    float s = VM(asin_reduce)(a, sq, &z, &es);
    float g = VM(asin_g)(s, z, es), e, e2;
    /* |x| <= 1/2: pi/2 - asin x, asin x = sx + gx (gx: s + g's rounding error too) */
    float sx = copysignf(s, x), gx = copysignf(g, x), gl;
    float ah = VM(fast_two_sum_f)(sx, gx, &gl);
    float d = VM(fast_two_sum_f)(VMT_PIO2_HI, -ah, &e);
    float small = d + ((e + VMT_PIO2_LO) - gl);
    float d2 = VM(fast_two_sum_f)(VMT_PI_HI, -2.0f * s, &e2); /* x < -1/2: pi - 2 asin s */
    float r = a <= 0.5f ? small : x > 0.0f ? 2.0f * (s + g) : d2 + ((e2 + VMT_PI_LO) - 2.0f * g);
    return x != x ? x + x : r;
}

/* log(u) + c + kadd ln2 for u > 0 (u <= 0, inf and NaN give some value: the callers
 * replace it), c a small correction: log1pf's body (cpu_vexpm1.h). */
static inline float VM(log_c_f)(float u, float c, float kadd)
{
    int32_t k;
    float m = VM(log_split)((u > 0.0f) & (u < INFINITY) ? u : 1.0f, &k);
    float f = m - 1.0f, s = f / (2.0f + f), z = s * s, dk = (float)k + kadd;
    float hfsq = 0.5f * f * f, R = z * VM(log_q)(z);
    float lo = __builtin_fmaf(s, hfsq + R, __builtin_fmaf(dk, 0x1.2fefa4p-17f, c));
    return __builtin_fmaf(dk, 0x1.62e3p-1f, f - (hfsq - lo));
}

/* 1 + v + vl = u (1 + *c) to first order, v >= 0 (log1p's argument split) */
static inline float VM(one_plus)(float v, float vl, float *c)
{
    float u = 1.0f + v;
    float err = v < 1.0f ? v - (u - 1.0f) : 1.0f - (u - v); /* exact */
    *c = (err + vl) / u;
    return u;
}

static inline float VM(atanhf)(float x)
{
    float a = fabsf(x), nl, dl;
    float nh = VM(two_sum_f)(1.0f, a, &nl), dh = VM(two_sum_f)(1.0f, -a, &dl);
    float rcp = 1.0f / dh, q = nh * rcp;
    float ql = ((__builtin_fmaf(-q, dh, nh) + nl) - q * dl) * rcp; /* (1 + a) / (1 - a) - q */
    float r = 0.5f * VM(log_c_f)(q, ql / q, 0.0f);
    r = a < 0x1p-12f ? a : r; /* atanh a = a (1 + a^2/3 + ...): a, and no 0 / 0 */
    r = a == 1.0f ? INFINITY : r;
    r = a > 1.0f ? NAN : r;
    return x != x ? x + x : copysignf(r, x);
}

static inline float VM(asinh_pre)(float x) { return 1.0f + x * x; }

static inline float VM(asinhf)(float x, float sq) /* sq = sqrt(1 + x^2) */
{
    float a = fabsf(x), big = a > 0x1p12f;
    float a2 = a * a, t = a2 / (1.0f + sq), vl;
    float v = VM(fast_two_sum_f)(a, t, &vl), c;
    float u = VM(one_plus)(v, vl, &c);
    float r = VM(log_c_f)(big ? a : u, big ? 0.0f : c, big ? 1.0f : 0.0f);
    r = a < 0x1p-12f ? a : r; /* asinh a = a (1 - a^2/6 + ...) */
    r = a == INFINITY ? a : r;
    return x != x ? x + x : copysignf(r, x);
}

static inline float VM(acosh_pre)(float x)
{
    float d = x - 1.0f;
    return __builtin_fmaf(d, d, 2.0f * d);
}

static inline float VM(acoshf)(float x, float sq) /* sq = sqrt(acosh_pre(x)) */
{
    int big = x > 0x1p12f;
    float dl, d = VM(two_sum_f)(x, -1.0f, &dl); /* x - 1 = d + dl */
    float q = VM(acosh_pre)(x);
    /* sqrt(d^2 + 2 d + 2 dl (1 + d)) - sq, to first order */
    float esq = (__builtin_fmaf(-sq, sq, q) + 2.0f * dl * (1.0f + d)) * (0.5f / sq);
    esq = sq > 0.0f ? esq : 0.0f;
    float vl, v = VM(fast_two_sum_f)(sq, d, &vl), c;
    float u = VM(one_plus)(v, vl + (esq + dl), &c);
    float r = VM(log_c_f)(big ? x : u, big ? 0.0f : c, big ? 1.0f : 0.0f);
    r = x == INFINITY ? x : r;
    r = x < 1.0f ? NAN : r;
    return x != x ? x + x : r;
}

/* rows of f(x, sqrt(pre(x))) by blocks (the note above); o may be a */
#define VMT_SQRT_ROW(NAME, PRE, F)                                                                 \
    static void VM(NAME##_row)(float *o, const float *a, int64_t n)                                \
    {                                                                                              \
        float q[256];                                                                              \
        for (int64_t b = 0; b < n; b += 256) {                                                     \
            int64_t m = n - b < 256 ? n - b : 256;                                                 \
            for (int64_t i = 0; i < m; i++)                                                        \
                q[i] = PRE(a[b + i]);                                                              \
            VM(sqrt_f32)((char *)q, (const char *)q, m);                                           \
            for (int64_t i = 0; i < m; i++)                                                        \
                o[b + i] = F(a[b + i], q[i]);                                                      \
        }                                                                                          \
    }
#ifndef VMT_TABLES /* AVX-512: cpu_vtrig_avx512.h */
VMT_SQRT_ROW(asin, VM(asin_pre), VM(asinf))
VMT_SQRT_ROW(acos, VM(asin_pre), VM(acosf))
VMT_SQRT_ROW(asinh, VM(asinh_pre), VM(asinhf))
VMT_SQRT_ROW(acosh, VM(acosh_pre), VM(acoshf))
#endif

/* log m of log_split's m as hi + *lo (to about 2^-40 relative past the fit's error) */
static inline float VM(log_m_hl)(float m, float *lo)
{
    float f = m - 1.0f, s = f / (2.0f + f), z = s * s;
    float hf = 0.5f * f, h = hf * f, he = __builtin_fmaf(hf, f, -h); /* f^2/2 = h + he */
    float R = z * VM(log_q)(z), e;
    float hi = VM(fast_two_sum_f)(f, -h, &e); /* |f| >= f^2/2 */
    *lo = e + __builtin_fmaf(s, h + R, -he);
    return hi;
}

/* log2 (ten 0) or log10 (ten 1) of 2^k m (log_split's m and k) */
static inline float VM(log2_10_mk)(float m, int32_t k, int ten)
{
    float lo, dk = (float)k;
    float hi = VM(log_m_hl)(m, &lo);
    float ih = ten ? 0x1.bcb7b2p-2f : 0x1.715476p0f, il = ten ? -0x1.5b235ep-27f : 0x1.4ae0c0p-26f;
    float p = hi * ih, pe = __builtin_fmaf(hi, ih, -p);
    float low = pe + __builtin_fmaf(hi, il, lo * ih);
    float kh = ten ? dk * 0x1.34p-2f : dk; /* k log10(2): a high part of 8 bits, exact */
    low = ten ? __builtin_fmaf(dk, 0x1.04d428p-12f, low) : low;
    float e, s = VM(fast_two_sum_f)(kh, p, &e); /* |k log10 2| >= 0.30 >= |p|, or k = 0 */
    return s + (e + low);
}

/* of a positive normal x */
static inline float VM(log2_10_normal)(float x, int ten)
{
    int32_t k;
    float m = VM(log_split_normal)(x, &k);
    return VM(log2_10_mk)(m, k, ten);
}

/* of any x */
static inline float VM(log2_10f)(float x, int ten)
{
    int32_t k;
    float m = VM(log_split)(x, &k);
    return VM(log_special)(x, VM(log2_10_mk)(m, k, ten));
}

/* tan x for |x| <= 2^13 (or NaN) */
static inline float VM(tanf_f)(float x)
{
    float t = __builtin_fmaf(x, 0x1.45f306p-1f, VMF_SHIFT); /* x / (pi/2), rounded */
    float n = t - VMF_SHIFT;
    float r1 = __builtin_fmaf(n, -0x1.921fb6p0f, x); /* exact */
    /* r1 + n pio2_2 + n pio2_3 as r + rl: the product and the sum split exactly (r1
     * and n pio2_2 cancel near a multiple of pi/2), the small terms added to the low */
    float np2 = n * 0x1.777a5cp-25f, pe = __builtin_fmaf(n, 0x1.777a5cp-25f, -np2), se;
    float r2 = VM(two_sum_f)(r1, np2, &se), rl;
    float r = VM(fast_two_sum_f)(r2, (se + pe) + n * 0x1.ee59dap-50f, &rl);
    float z = r * r;
    float p = VM(horner_f)(z, VM(tan_c), 7);
    float rz = r * z, hi = __builtin_fmaf(rz, p, r);
    float lo = __builtin_fmaf(rz, p, r - hi);
    lo = __builtin_fmaf(hi * hi, rl, lo + rl); /* tan(r + rl) = tan r + rl (1 + tan^2 r) */
    float q = VM(div2_f)(-1.0f, 0.0f, hi, lo);
    float v = (VM(bits32)(t) & 1) ? q : hi + lo;
    return z == 0.0f ? x : v; /* n = 0 and r = x tiny: x (and -0) */
}
#else
static inline float VM(atanf)(float x) { return (float)atan((double)x); }
static inline float VM(atan2f)(float y, float x) { return (float)atan2((double)y, (double)x); }
static inline float VM(atanhf)(float x) { return (float)atanh((double)x); }
static inline float VM(log2_10f)(float x, int ten)
{
    return (float)(ten ? log10((double)x) : log2((double)x));
}
static inline float VM(log2_10_normal)(float x, int ten) { return VM(log2_10f)(x, ten); }
#define VMT_LIBM_ROW(NAME)                                                                         \
    static void VM(NAME##_row)(float *o, const float *a, int64_t n)                                \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = (float)NAME((double)a[i]);                                                      \
    }
VMT_LIBM_ROW(asin)
VMT_LIBM_ROW(acos)
VMT_LIBM_ROW(asinh)
VMT_LIBM_ROW(acosh)
#endif

/* ---- the rows (o may be a) ---- */
#define VMT_ROW(NAME, EXPR)                                                                        \
    static void VM(NAME##_row)(float *o, const float *a, int64_t n)                                \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++) {                                                          \
            float x = a[i];                                                                        \
            o[i] = EXPR;                                                                           \
        }                                                                                          \
    }
#ifndef VMT_TABLES /* AVX-512: cpu_vtrig_avx512.h */
VMT_ROW(atan, VM(atanf)(x))
#endif
#ifndef VMT_TABLES /* AVX-512: cpu_vtrig_avx512.h */
VMT_ROW(atanh, VM(atanhf)(x))
#endif
/* log2 and log10: blocks of 256 as log's (Note [block fast paths] in cpu_vmath.h), a
 * block of positive normal floats without the subnormal scaling and special values */
#define VMT_LOG_ROW(NAME, TEN)                                                                     \
    static void VM(NAME##_row)(float *o, const float *a, int64_t n)                                \
    {                                                                                              \
        for (int64_t b = 0; b < n; b += 256) {                                                     \
            int64_t m = n - b < 256 ? n - b : 256;                                                 \
            if (VM(max_bits)(a + b, m, 0xffffffffu, 0x00800000u) < 0x7f000000u) {                  \
                for (int64_t i = 0; i < m; i++)                                                    \
                    o[b + i] = VM(log2_10_normal)(a[b + i], TEN);                                  \
            } else {                                                                               \
                for (int64_t i = 0; i < m; i++)                                                    \
                    o[b + i] = VM(log2_10f)(a[b + i], TEN);                                        \
            }                                                                                      \
        }                                                                                          \
    }
#ifdef VMT_TABLES /* AVX-512: cpu_vtrig_avx512.h */
#include "cpu_vtrig_avx512.h"
#else
VMT_LOG_ROW(log2, 0)
VMT_LOG_ROW(log10, 1)
#endif
#if PDT_SIMD_FMA
/* rsqrt: y = 1 / sqrt(x) in float (two roundings, within about 1 ulp), then one Newton
 * step y + (y / 2) r from the residual r = 1 - x y^2 computed to 2^-48 (y^2 = t + te
 * split exactly, r = (1 - x t) - x te with one rounding each, r being near 2^-23): the
 * step's own error is near r^2 (2^-46), so the result is y rounded once from within
 * 2^-23 ulp of 1 / sqrt(x).  x below 2^-100 or above 2^100 is scaled by 2^64 or
 * 2^-64 (and y by 2^32, 2^-32, exactly) so that y^2 stays normal; 0, inf and NaN keep
 * y (+-inf, 0, NaN), and a negative x gives NaN from the square root. */
static inline float VM(rsqrt_pre)(float x)
{
    float xs = x < 0x1p-100f ? x * 0x1p64f : x;
    return x > 0x1p100f ? x * 0x1p-64f : xs;
}

static inline float VM(rsqrtf)(float x, float sq) /* sq = sqrt(rsqrt_pre(x)) */
{
    float xs = VM(rsqrt_pre)(x), y = 1.0f / sq;
    float t = y * y, te = __builtin_fmaf(y, y, -t);
    float r = __builtin_fmaf(-xs, te, __builtin_fmaf(-xs, t, 1.0f));
    float res = __builtin_fmaf(0.5f * y, r, y);
    float sc = x < 0x1p-100f ? 0x1p32f : 1.0f;
    sc = x > 0x1p100f ? 0x1p-32f : sc;
    res *= sc;
    res = y == 0.0f ? y : res;
    res = fabsf(y) == INFINITY ? y : res;
    return res;
}
#ifndef VMT_TABLES
VMT_SQRT_ROW(rsqrt, VM(rsqrt_pre), VM(rsqrtf))
#endif
#else
/* rsqrt at the baseline: in double, rounded once; the square roots through the level's
 * sqrt row (the instruction, as VMT_SQRT_ROW's) */
static void VM(rsqrt_row)(float *o, const float *a, int64_t n)
{
    double q[256];
    for (int64_t b = 0; b < n; b += 256) {
        int64_t m = n - b < 256 ? n - b : 256;
        for (int64_t i = 0; i < m; i++)
            q[i] = (double)a[b + i];
        VM(sqrt_f64)((char *)q, (const char *)q, m);
        for (int64_t i = 0; i < m; i++)
            o[b + i] = (float)(1.0 / q[i]);
    }
}
#endif

/* float64: 1 / sqrt(x), the same two IEEE operations as cpu_unary.c's strided rows */
static void VM(rsqrt_f64)(char *o, const char *a, int64_t n)
{
    VM(sqrt_f64)(o, a, n);
    double *po = (double *)o;
    for (int64_t i = 0; i < n; i++)
        po[i] = 1.0 / po[i];
}

#ifndef VMT_TABLES /* AVX-512: cpu_vtrig_avx512.h */
/* tan: blocks of 256 as sin's (Note [block fast paths]); past 2^13, inf and NaN the C
 * library's tan in double */
static void VM(tan_row)(float *o, const float *a, int64_t n)
{
#if PDT_SIMD_FMA
    for (int64_t b = 0; b < n; b += 256) {
        int64_t m = n - b < 256 ? n - b : 256;
        if (VM(max_bits)(a + b, m, 0x7fffffffu, 0) <= VM(bits32)(0x1p13f)) {
            for (int64_t i = 0; i < m; i++)
                o[b + i] = VM(tanf_f)(a[b + i]);
        } else {
            for (int64_t i = 0; i < m; i++) {
                float x = a[b + i];
                o[b + i] = fabsf(x) <= 0x1p13f ? VM(tanf_f)(x) : (float)tan((double)x);
            }
        }
    }
#else
    for (int64_t i = 0; i < n; i++)
        o[i] = (float)tan((double)a[i]);
#endif
}
#endif

#ifndef VMT_TABLES /* AVX-512: cpu_vtrig_avx512.h */
/* atan2(a, b) of float32 rows, mode as VB_ROW's (1: a is one value, 2: b is) */
static void VM(atan2_f32)(char *o, const char *a, const char *b, int64_t n, int mode)
{
    float *po = (float *)o;
    const float *pa = (const float *)a, *pb = (const float *)b;
    if (mode == 1) {
        const float y = pa[0];
        for (int64_t i = 0; i < n; i++)
            po[i] = VM(atan2f)(y, pb[i]);
    } else if (mode == 2) {
        const float x = pb[0];
        for (int64_t i = 0; i < n; i++)
            po[i] = VM(atan2f)(pa[i], x);
    } else {
        for (int64_t i = 0; i < n; i++)
            po[i] = VM(atan2f)(pa[i], pb[i]);
    }
}
#endif
