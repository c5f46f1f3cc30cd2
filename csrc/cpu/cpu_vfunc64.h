/* cpu_vfunc64.h - float64 expm1, log1p, log2, log10, tan, atan, asin, acos, atanh, asinh,
 * acosh, sinh, cosh, exp2 and atan2 over rows,
 * built on cpu_vmath64.h's double-double cores (exp_core, log_dd, pio2_reduce and
 * sincos_dd).  Included by cpu_vmath.h after cpu_vmath64.h, once per instruction-set level.
 *
 * Note [float64 functions from the cores]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The C library's float64 expm1, log1p, tan, atan, asin, acos, atanh, asinh, acosh, sinh,
 * log2, log10, atan2 and pow(2, x) took 7 to 25 ns an element here, one call each (NumPy 2
 * evaluates them in AVX-512 lanes, 6 to 17 times faster: 1e5 elements, AMD EPYC Zen 4,
 * 2026-12-01).  Each is written here from the cores
 * that exp, log, sin and cos use, as a double-double rounded once: the error is 0.5 ulp plus
 * the cores' own (bound 1 ulp, asserted by tests/test_vfunc64.py against np.longdouble on
 * every binary exponent with random mantissas, the special values and the edges; its
 * MEASURED_ULP is its sample's worst).  A review's 0.5 to 3 million random arguments a
 * region found (baseline / FMA levels): expm1 0.964 / 0.886 (x near 0.35 to 0.5, where
 * 2 hi - 1 loses a bit and the core's error counts double), tan 0.905, sinh 0.816 / 0.764,
 * exp2 0.605 / 0.596, cosh 0.602 / 0.585, log2 0.536 / 0.562, the others below 0.54.
 *   expm1  e^y - 1 = 2^n (hi + lo) - 1 from exp_core, |y| <= 40 (|n| <= 58, 2^n normal):
 *          the difference of 2^n hi and 1 exact (two_sum), lo added; for n = 0 hi - 1 is
 *          exact, so there is no cancellation near 0.  Past 40, e^y (the -1 is below half
 *          an ulp); below -40, -1.  Below 2^-20 the series y + y^2/2 + y^3/6 + y^4/24
 *          (hi + lo holds e^y to about 2^-106 absolute, a sizeable part of an ulp of a y
 *          near 2^-53).
 *   log1p  u + ul = 1 + x exactly (two_sum), log(u + ul) = log_dd(u) + ul / u (the next
 *          term, (ul / u)^2 / 2, is below 2^-87 of the result from |x| = 2^-20): ul / u
 *          from a float32 reciprocal and one Newton step (2^-48 of a term at most 2^-53 of
 *          the result).  Below 2^-20 the series x - x^2/2 + x^3/3 - x^4/4.  At AVX-512
 *          log_dd is the table's (Note [float64 log1p with a table]).
 *   log2, log10  log_dd(x) times 1 / ln2 (1 / ln10) held as a double-double: the product's
 *          high part exact (two_prod), the three others summed; powers of two (of ten, to
 *          10^22) come out exact.  At AVX-512 log_dd is the table's (v64t_log_rows in
 *          cpu_vmath64_avx512.h): one thread, 1e5 in (0, 4), 346 us at AVX2 -> 140 (NumPy
 *          130), 0.51 ulp on the test's sample.
 *   tan    pio2_reduce and sincos_dd as sin's and cos's (both pairs normalised by
 *          fast_two_sum: their low parts hold r^3/6 and r^4/24); sin r / cos r, or -cos r / sin r
 *          in odd quadrants, the quotient of the two double-doubles corrected once from its
 *          exact residual (div_dd2).  Past 2^20 (and inf, NaN) the C library's tan, bit for
 *          bit (glibc 2.36's is off by 14 ulp at 2^849, a review found; sin's and cos's too
 *          by up to 8 there).
 *   atan   a = |x| as k + atan u, |u| <= tan(pi/8): u = a (k = 0), (a - 1) / (a + 1)
 *          (k = pi/4) up to tan(3pi/8), -1 / a (k = pi/2) past it, a double-double from one
 *          division; atan u = u + u z P(z), P of degree 11 on z = u^2 (it was a table of
 *          atan(j/8) and a second division, 0.50 ulp: one thread, 1e5, 383 -> 270 us, NumPy
 *          126; 0.63 ulp now).
 *   atan2  n = min(|x|, |y|) and d = max scaled by one power of two (d in [1, 2)), atan(n / d)
 *          as atan's below tan(3pi/8), then j pi/4 + m atan(n / d) for the quadrant (j in
 *          0..4, m = +-1), one rounding; pairs with a zero, a subnormal, an operand from
 *          2^1023, inf, NaN or a ratio below 2^-1000 take the C library's atan2 (it was the C
 *          library's for every pair: one thread, 1e5 in [-1, 1]^2, 1,920 us -> 469 at AVX2,
 *          290-330 at AVX-512, NumPy 222-296; 0.62 ulp on tests/test_atan2_64.py's sample,
 *          0.65 on a review's 40 million pairs).  FMA levels only: the baseline keeps the
 *          C library's (these steps without FMA took 10% longer).
 *   asin, acos  a = |x|: below 1/2 asin a = a + a z P(z), z = a^2, P of degree 12 on
 *          [0, 1/4]; above, pi/2 - 2 asin(sqrt z) with z = (1 - a) / 2 (exact) and sqrt z a
 *          double-double (the level's sqrt row, corrected once), asin(sqrt z) by the same
 *          polynomial; acos x = pi/2 - asin x below 1/2, 2 asin(sqrt z) above, pi less
 *          that below -1/2; each constant less the rest as a two-sum, rounded once
 *          (0.62-0.67 ulp on the test's sample and 2 million uniform arguments; they were
 *          atan2 of a and sqrt(1 - a^2) through atan's core, 0.50-0.63 ulp at 2-3 times
 *          the time: one thread, 1e5 in [-1, 1], asin 520-719 -> 237 us, acos 950-1,012
 *          -> 286, NumPy 125 and 135).
 *   atanh  sign(x) log1p(y) / 2, y = 2a / (1 - a), a = |x|: 1 - a an exact double-double,
 *          y a double-double (div_dd2, to 2^-70 of itself), log1p(y) as log1p's with y's
 *          low part added to ul.  Below 2^-20 the series a + a^3 / 3; +-1 gives +-inf, past
 *          it NaN.
 *   asinh  log1p(a + a^2 / (1 + sqrt(1 + a^2))), a = |x| in [2^-20, 2^28], every piece a
 *          double-double (positive terms); below, a - a^3 / 6; past 2^28 log 2a.
 *   acosh  log1p(t + sqrt(2t + t^2)), t = x - 1 exact, for x in (1, 2^28]; past it log 2x.
 *          The square roots of both come from the level's sqrt row over a block (GCC keeps
 *          the C library's sqrt, a call, in a loop), corrected once from their residuals.
 *   sinh   a = |x| <= 22: (em + em / (em + 1)) / 2, em = e^a - 1 as expm1's double-double
 *          (all terms positive); past 22 e^a / 2 (e^-a is below 2^-63 of it), 2^(n - 1) (hi
 *          + lo) from exp_core rounded once by v64_scale (finite to 710.47); sign(x) kept.
 *   cosh   a <= 22: (E + 1 / E) / 2, E = e^a a double-double, 1 / E corrected once (all
 *          terms positive); past it as sinh's.
 *   exp2   2^x = 2^n e^(f ln2), n = rint(x), f = x - n exact; f ln2 a double-double (two_prod
 *          and ln2's low part) into exp's evaluation (exp_eval), 2^n by v64_scale; exact for
 *          integer x.  It serves 2 ** x (pydevtensor.exp2) on every layout: the float64 pow
 *          of a scalar base 2 (cpu_elementwise.c); other powers stay the C library's (a
 *          tensor of 2s as the base too: its elements may differ from exp2's by an ulp).
 * Blocks of 256 whose arguments all lie where the fast form holds (Note [block fast paths]
 * in cpu_vmath.h) run it without the selects for the rest; each element gets the same
 * operations either way.  Special values are the C library's: NaN stays NaN, expm1(-inf) =
 * -1, log1p(-1) = -inf and NaN below, tan, atanh, sinh, expm1 and log1p keep the sign of a
 * zero.  On CUDA the same functions are CUDA's (float64: expm1 1, log1p 1, log2 1, log10 1,
 * tan 2, atan 2, asin 2, acos 2, atanh 2, asinh 3, acosh 3, sinh 2, cosh 1 ulp, pow (2 ** x) 2,
 * in the CUDA Math
 * API's appendix), so a CPU and a GPU result agree within the sum of the bounds.
 */
#ifndef PDT_SIMD_LEVEL
#error "include cpu_vfunc64.h from cpu_vmath.h"
#endif

/* ---- expm1 ---- */

/* e^y - 1 for |y| <= 40 */
static inline double VM(v64_expm1_fast)(double y)
{
    double lo, t, hi = VM(v64_exp_core)(y, &lo, &t);
    double sc = VM(v64_pow2)(t, 0.0); /* 2^n, |n| <= 58 */
    double a_lo, a = VM(v64_two_sum)(hi * sc, -1.0, &a_lo);
    double r = a + (a_lo + lo * sc);
    /* below 2^-20 the series: hi + lo holds e^y to 2^-106 absolute only */
    double s = y + y * (y * V64_MAD(V64_MAD(y, 1.0 / 24, 1.0 / 6), y, 0.5));
    r = fabs(y) < 0x1p-20 ? s : r;
    return y == 0.0 ? y : r; /* the zeros keep their sign */
}

static inline double VM(v64_expm1)(double x)
{
    double r = VM(v64_expm1_fast)(VM(v64_clamp)(x, -40.0, 40.0));
    return x > 40.0 ? VM(v64_exp)(x) : r; /* NaN: the clamp keeps it */
}

/* ---- log1p, log2, log10 ---- */

/* 1 / u to 2^-48, u positive, finite and normal (0 past float32's range, where the term it
 * multiplies is negligible) */
static inline double VM(v64_recip)(double u)
{
#if PDT_SIMD_FMA
    double inv = (double)(1.0f / (float)u);
    return V64_MAD(V64_MAD(-inv, u, 1.0), inv, inv);
#else
    return 1.0 / u;
#endif
}

/* log1p(vh + vl) for a double-double v, |v| >= 2^-26 and 1 + v > 0 normal: u + ul = 1 + vh
 * (two_sum), log_dd(u) plus (ul + vl) / u (the next term, ((ul + vl) / u)^2 / 2, below 2^-80
 * of the result) */
static inline double VM(v64_log1p_dd)(double vh, double vl)
{
    double ul, u = VM(v64_two_sum)(1.0, vh, &ul);
    double lo, h = VM(v64_log_dd)(u, 0.0, &lo);
    return h + (lo + (ul + vl) * VM(v64_recip)(u));
}

static inline double VM(v64_log1p)(double x)
{
    double u = 1.0 + x;
    double r = VM(v64_log1p_dd)(x, 0.0); /* u <= 0, inf and NaN: replaced below */
    /* below 2^-20 the series (1 + x may round to 1, and log(1 + ul) is not ul there) */
    double s = x + x * (x * V64_MAD(V64_MAD(x, -0.25, 1.0 / 3), x, -0.5));
    r = fabs(x) < 0x1p-20 ? s : r;
    r = u == 0.0 ? -INFINITY : r;
    r = u < 0.0 ? NAN : r;
    r = u == INFINITY ? u : r;
    r = x == 0.0 ? x : r;      /* -0.0 stays */
    return x != x ? x + x : r; /* NaN, quieted */
}

/* log x times ch + cl (1 / ln2 or 1 / ln10 as a double-double) */
static inline double VM(v64_log_times)(double x, double ch, double cl)
{
    int sub = x < 0x1p-1022;
    double lo, h = VM(v64_log_dd)(sub ? x * 0x1p52 : x, sub ? 52.0 : 0.0, &lo);
    double pe, p = VM(v64_two_prod)(h, ch, &pe);
    double r = p + (pe + V64_MAD(h, cl, lo * ch));
    r = x == 0.0 ? -INFINITY : r;
    r = x < 0.0 ? NAN : r;
    r = x == INFINITY ? x : r;
    return x != x ? x + x : r;
}

static inline double VM(v64_log2)(double x)
{
    return VM(v64_log_times)(x, V64_INV_LN2_HI, V64_INV_LN2_LO);
}

static inline double VM(v64_log10)(double x)
{
    return VM(v64_log_times)(x, V64_INV_LN10_HI, V64_INV_LN10_LO);
}

/* ---- tan ---- */

/* |x| <= 2^20 */
static inline double VM(v64_tan_fast)(double x)
{
    double rl, t, rh = VM(v64_pio2_reduce)(x, &rl, &t);
    double sl0, cl0, ch0 = VM(v64_sincos_dd)(rh, rl, &sl0, &cl0);
    /* the pairs normalised: their low parts hold r^3/6 and r^4/24 and more */
    double sl, sh = VM(v64_fast_two_sum)(rh, sl0, &sl);
    double cl, ch = VM(v64_fast_two_sum)(ch0, cl0, &cl);
    int odd = (int)(VM(bits64)(t) & 1);
    /* tan r = sin r / cos r; in odd quadrants tan x = -cos r / sin r (sin r != 0 there:
     * the nearest double to an odd multiple of pi/2 is 2^-60 or more away from it) */
    double nh = odd ? ch : sh, nl = odd ? cl : sl;
    double dh = odd ? sh : ch, dl = odd ? sl : cl;
    double c, q = VM(v64_div_dd2)(nh, nl, dh, dl, &c);
    double r = q + c;
    r = odd ? -r : r;
    return rh == 0.0 ? x : r; /* +-0 keeps its sign */
}

static inline double VM(v64_tan_any)(double x)
{
    return fabs(x) <= V64_TRIG_LIMIT ? VM(v64_tan_fast)(x) : tan(x);
}

/* ---- atanh, asinh, acosh ---- */

/* sqrt(gh + gl) = s + *sl for a positive normal gh, s = sqrt(gh) (from the level's sqrt row:
 * GCC keeps the C library's sqrt, a call, in a loop for its errno): s corrected once from
 * its exact residual */
static inline double VM(v64_sqrt_dd)(double gh, double gl, double s, double *sl)
{
    *sl = (VM(v64_resid)(gh, s, s) + gl) * (0.5 * VM(v64_recip)(s));
    return s;
}

static inline double VM(v64_atanh)(double x)
{
    double a = fabs(x);
    double dl, d = VM(v64_two_sum)(1.0, -a, &dl);
    int ok = a < 1.0;
    /* y = 2a / (1 - a) as a double-double; atanh a = log1p(y) / 2 */
    double yl, y = VM(v64_div_dd2)(2.0 * a, 0.0, ok ? d : 1.0, ok ? dl : 0.0, &yl);
    double r = 0.5 * VM(v64_log1p_dd)(y, yl); /* y >= 2^-19 past the series */
    /* below 2^-20 the series a + a^3 / 3 (a^5 / 5 is below 2^-80 of it) */
    double s = a + a * (a * a * (1.0 / 3));
    r = a < 0x1p-20 ? s : r;
    r = a == 1.0 ? INFINITY : r;
    r = a > 1.0 ? NAN : r;
    return x != x ? x + x : copysign(r, x);
}

/* asinh a = log1p(a + a^2 / (1 + sqrt(1 + a^2))) for a = |x| in [2^-20, 2^28]: a^2 exact
 * (two_prod), 1 + a^2, its square root, 1 + that and the quotient as double-doubles, so
 * v = a + a^2 / (1 + sqrt(1 + a^2)) carries no rounding to speak of (and no cancellation:
 * every term is positive).  pre: 1 + a^2 rounded (the row takes its square root, sq). */
static inline double VM(v64_asinh_pre)(double x)
{
    double a = VM(v64_clamp)(fabs(x), 0x1p-20, 0x1p28);
    return 1.0 + a * a;
}

static inline double VM(v64_asinh_fast)(double x, double sq)
{
    double a = fabs(x), ac = VM(v64_clamp)(a, 0x1p-20, 0x1p28);
    double pe, p = VM(v64_two_prod)(ac, ac, &pe);
    double gl, g = VM(v64_two_sum)(1.0, p, &gl); /* g is pre's */
    double sl, s = VM(v64_sqrt_dd)(g, gl + pe, sq, &sl);
    double dl, d = VM(v64_fast_two_sum)(s, 1.0, &dl); /* s >= 1 */
    double qc, q = VM(v64_div_dd2)(p, pe, d, dl + sl, &qc);
    double vl, v = VM(v64_fast_two_sum)(ac, q, &vl); /* q = a^2 / (1 + s) <= a */
    double r = VM(v64_log1p_dd)(v, vl + qc);
    double t = a + a * (a * a * (-1.0 / 6)); /* below 2^-20: a - a^3 / 6 */
    return copysign(a < 0x1p-20 ? t : r, x);
}

/* past 2^28, log 2a (1 / (4 a^2) is below 2^-58 of it): log_dd with e + 1 */
static inline double VM(v64_asinh)(double x, double sq)
{
    double a = fabs(x);
    double lo, h = VM(v64_log_dd)(VM(v64_clamp)(a, 0x1p28, 0x1.fffffffffffffp1023), -1.0, &lo);
    double r = a > 0x1p28 ? copysign(h + lo, x) : VM(v64_asinh_fast)(x, sq);
    r = a == INFINITY ? x : r;
    return x != x ? x + x : r;
}

/* acosh x = log1p(t + sqrt(t (2 + t))), t = x - 1 (exact) for x in (1, 2^28]: t (2 + t) =
 * 2t + t^2, its square root and the sum as double-doubles (all positive); acosh 1 = 0 and
 * NaN below 1.  pre: 2t + t^2 rounded. */
static inline double VM(v64_acosh_pre)(double x)
{
    double t = VM(v64_clamp)(x, 1.0 + 0x1p-52, 0x1p28) - 1.0;
    return 2.0 * t + t * t;
}

static inline double VM(v64_acosh_fast)(double x, double sq)
{
    double t = VM(v64_clamp)(x, 1.0 + 0x1p-52, 0x1p28) - 1.0;
    double pe, p = VM(v64_two_prod)(t, t, &pe);
    double wl, w = VM(v64_two_sum)(2.0 * t, p, &wl); /* w is pre's */
    double sl, s = VM(v64_sqrt_dd)(w, wl + pe, sq, &sl);
    double vl, v = VM(v64_fast_two_sum)(s, t, &vl); /* s >= t */
    double r = VM(v64_log1p_dd)(v, vl + sl);
    r = x == 1.0 ? 0.0 : r;
    return x < 1.0 ? NAN : r;
}

/* past 2^28, log 2x */
static inline double VM(v64_acosh)(double x, double sq)
{
    double lo, h = VM(v64_log_dd)(VM(v64_clamp)(x, 0x1p28, 0x1.fffffffffffffp1023), -1.0, &lo);
    double r = x > 0x1p28 ? h + lo : VM(v64_acosh_fast)(x, sq);
    r = x == INFINITY ? x : r;
    return x != x ? x + x : r;
}

/* Rows of f(x, sqrt(pre(x))) by blocks of 256: the square roots by the level's row into a
 * buffer, then FAST for a block within LIMIT and GENERAL for any other (FAST's bits
 * within LIMIT); o may be a. */
#define V64_SQRT_ROW(NAME, LIMIT, PRE, FAST, GENERAL)                                              \
    static void VM(NAME)(double *o, const double *a, int64_t n)                                    \
    {                                                                                              \
        double q[256];                                                                             \
        for (int64_t b = 0; b < n; b += 256) {                                                     \
            int64_t m = n - b < 256 ? n - b : 256;                                                 \
            for (int64_t i = 0; i < m; i++)                                                        \
                q[i] = PRE(a[b + i]);                                                              \
            VM(sqrt_f64)((char *)q, (const char *)q, m);                                           \
            if (VM(v64_all_within)(a + b, m, LIMIT)) {                                             \
                for (int64_t i = 0; i < m; i++)                                                    \
                    o[b + i] = FAST(a[b + i], q[i]);                                               \
            } else {                                                                               \
                for (int64_t i = 0; i < m; i++)                                                    \
                    o[b + i] = GENERAL(a[b + i], q[i]);                                            \
            }                                                                                      \
        }                                                                                          \
    }

/* ---- atan ---- */

/* (atan u - u) / u^3 on z = u^2 <= tan(pi/8)^2, degree 11 (2^-53 relative; it is at most
 * 1/17 of atan u): tools/gen_vmath64_coeffs.py */
static const double VM(v64_atan_p)[12] = {0x1.0acd9e91a5a35p-6, -0x1.1b311bb48c215p-5,
                                          0x1.74dccfb93fff0p-5, -0x1.ac7a5a79b3f26p-5,
                                          0x1.e19a0bfa3eef9p-5, -0x1.110e87b4357d2p-4,
                                          0x1.3b1392d519db1p-4, -0x1.745d165dc9713p-4,
                                          0x1.c71c71c303dbbp-4, -0x1.249249248d7dcp-3,
                                          0x1.9999999999953p-3, -0x1.5555555555555p-2};

/* c - (s + lo) rounded once, c = ch + cl (pi/2 or pi) */
static inline double VM(v64_less)(double ch, double cl, double s, double lo)
{
    double bl, b = VM(v64_two_sum)(ch, -s, &bl);
    return b + (bl + (cl - lo));
}
#define V64_PIO2_HI 0x1.921fb54442d18p+0
#define V64_PIO2_LO 0x1.1a62633145c07p-54

/* atan x: a = |x| (clamped to 2^100, where pi/2 - 1/a rounds to pi/2) as k + atan u, |u| <=
 * tan(pi/8): k = 0 and u = a up to tan(pi/8), k = pi/4 and u = (a - 1) / (a + 1) up to
 * tan(3pi/8), k = pi/2 and u = -1 / a past it; u a double-double from one division (div_dd2;
 * a - 1 and a + 1 by two_sum), rounded to u + ul; atan u = u + u z P(z) + ul (1 - z), z = u^2.
 * A NaN is returned as x + x; atan keeps the sign of a zero. */
static inline double VM(v64_atan)(double x)
{
    /* the ranges from |x| itself: of the clamped value, GCC 12 folds the clamp into the
     * comparisons as selects of bools, which it does not vectorise */
    const double ax = fabs(x), a = VM(v64_clamp)(ax, 0.0, 0x1p100);
    const int mid = ax > 0x1.a827999fcef32p-2, big = ax > 0x1.3504f333f9de6p+1;
    double ml, mh = VM(v64_two_sum)(a, -1.0, &ml);
    double pl, ph = VM(v64_two_sum)(a, 1.0, &pl);
    double nh = big ? -1.0 : mid ? mh : a, nl = big ? 0.0 : mid ? ml : 0.0;
    double dh = big ? a : mid ? ph : 1.0, dl = big ? 0.0 : mid ? pl : 0.0;
    double qc, q = VM(v64_div_dd2)(nh, nl, dh, dl, &qc);
    double ul, u = VM(v64_fast_two_sum)(q, qc, &ul);
    double z = u * u;
    double corr = V64_MAD(u * z, VM(v64_horner)(z, VM(v64_atan_p), 12), V64_MAD(-ul, z, ul));
    double kh = big ? V64_PIO2_HI : mid ? 0.5 * V64_PIO2_HI : 0.0;
    double kl = big ? V64_PIO2_LO : mid ? 0.5 * V64_PIO2_LO : 0.0;
    double sl, sh = VM(v64_two_sum)(kh, u, &sl);
    double r = sh + (sl + (kl + corr));
    r = a == 0.0 ? a : r;
    return x != x ? x + x : copysign(r, x);
}

#if PDT_SIMD_FMA /* the baseline: the C library's atan2 (a review: these steps without FMA
                   * took 10% longer) */
/* atan2(y, x) for x and y normal and below 2^1023, the smaller at least 2^-1000 of the larger (the
 * ratio stays normal): with n = min(|x|, |y|), d = max, both scaled by a power of two that
 * puts d in [1, 2), atan(n / d) = k + atan u as atan's below tan(3pi/8) (u = n / d or
 * (n - d) / (n + d), k = 0 or pi/4, a double-double from one division); the quadrant
 * gives C + m (k + atan u), C in {0, pi/2, pi}, m = +-1, and C + m k = j pi/4 with j in
 * 0..4 (j pi/4 >= pi/4 where it is not 0, and |atan u| <= pi/8: no cancellation), so the
 * result is j pi/4 + m u + m (atan u - u), two-summed and rounded once; y's sign. */
static inline double VM(v64_atan2_fast)(double y, double x)
{
    const double ay = fabs(y), ax = fabs(x);
    const int sw = ay > ax, neg = x < 0.0;
    /* n and d scaled by one power of two, d into [1, 2) (div_dd2 wants float32's range) */
    const double s = VM(from_bits64)((uint64_t)(2046 - (VM(bits64)(sw ? ay : ax) >> 52)) << 52);
    const double n = (sw ? ax : ay) * s, d = (sw ? ay : ax) * s;
    const int mid = n > 0x1.a827999fcef32p-2 * d; /* n / d past tan(pi/8) */
    double ml, mh = VM(v64_two_sum)(n, -d, &ml);
    double pl, ph = VM(v64_two_sum)(n, d, &pl);
    double qc, q = VM(v64_div_dd2)(mid ? mh : n, mid ? ml : 0.0, mid ? ph : d, mid ? pl : 0.0, &qc);
    double ul, u = VM(v64_fast_two_sum)(q, qc, &ul);
    double z = u * u;
    double corr = V64_MAD(u * z, VM(v64_horner)(z, VM(v64_atan_p), 12), V64_MAD(-ul, z, ul));
    const double m = sw == neg ? 1.0 : -1.0;
    const double j = (sw ? 2.0 : neg ? 4.0 : 0.0) + (mid ? m : 0.0);
    /* j pi/4 = j (pi/4)_hi + j (pi/4)_lo: (pi/4)_hi ends in three zero bits, so j times
     * it is exact for j <= 4 */
    double sl, sh = VM(v64_two_sum)(j * (0.5 * V64_PIO2_HI), m * u, &sl);
    return copysign(sh + (sl + V64_MAD(j, 0.5 * V64_PIO2_LO, m * corr)), y);
}

/* x and y normal, below 2^1023, the smaller at least 2^-1000 of the larger */
static inline int VM(v64_atan2_ok)(double y, double x)
{
    const double ay = fabs(y), ax = fabs(x), n = ay < ax ? ay : ax, d = ay < ax ? ax : ay;
    return (n >= 0x1p-1022) & (d < 0x1p1023) & (n >= d * 0x1p-1000);
}

/* Rows of atan2(a, b), mode as pdt_vb_row's (1: a is one value, 2: b is), blocks of 256:
 * atan2_fast for every pair into a buffer (it cannot trap on the others: IEEE arithmetic's
 * exceptions are masked), then the C library's atan2 (C's special values, Annex F.10.1.4)
 * for the pairs outside its range; o may be a or b (each pair is read before its element
 * is written).  Each element's bits are those of its pair alone.  (A first version took
 * a block holding one such pair element by element, slower than the C library's loop for
 * data with a zero every 256: a review.) */
#define V64_ATAN2_BLOCK(Y, X)                                                                      \
    do {                                                                                           \
        double v[256], good[256];                                                                  \
        uint64_t bad = 0;                                                                          \
        for (int64_t i = 0; i < m; i++) {                                                          \
            const double g = VM(v64_atan2_ok)(Y, X) ? 1.0 : 0.0;                                   \
            v[i] = VM(v64_atan2_fast)(Y, X);                                                       \
            good[i] = g;                                                                           \
            bad |= (uint64_t)(g == 0.0);                                                           \
        }                                                                                          \
        if (!bad) {                                                                                \
            memcpy(o, v, (size_t)m * sizeof *o);                                                   \
        } else {                                                                                   \
            for (int64_t i = 0; i < m; i++)                                                        \
                o[i] = good[i] != 0.0 ? v[i] : atan2(Y, X);                                        \
        }                                                                                          \
    } while (0)

static void VM(atan2_64_row)(char *po, const char *pa, const char *pb, int64_t n, int mode)
{
    for (int64_t b0 = 0; b0 < n; b0 += 256) {
        const int64_t m = n - b0 < 256 ? n - b0 : 256;
        double *o = (double *)po + b0;
        const double *a = (const double *)pa + (mode == 1 ? 0 : b0);
        const double *b = (const double *)pb + (mode == 2 ? 0 : b0);
        if (mode == 1) {
            const double y0 = a[0];
            V64_ATAN2_BLOCK(y0, b[i]);
        } else if (mode == 2) {
            const double x0 = b[0];
            V64_ATAN2_BLOCK(a[i], x0);
        } else {
            V64_ATAN2_BLOCK(a[i], b[i]);
        }
    }
}
#undef V64_ATAN2_BLOCK
#define VM_ATAN2_64_ROW VM(atan2_64_row)
#else
#define VM_ATAN2_64_ROW NULL
#endif

/* (asin r - r) / r^3 on z = r^2 <= 1/4, degree 12 (2^-53 relative; it is at most 1/21 of
 * asin r, so 2^-57 of the result): tools/gen_vmath64_coeffs.py */
static const double VM(v64_asin_p)[13] = {0x1.d740c186774e6p-6, -0x1.e6e88b206c008p-7,
                                          0x1.1d2bf155e179bp-6, 0x1.658dfce473d31p-8,
                                          0x1.524531b63d660p-7, 0x1.7825d9451f744p-7,
                                          0x1.c9cf136046bc0p-7, 0x1.1c4d356bbbd3ep-6,
                                          0x1.6e8bb1cc3c04bp-6, 0x1.f1c71c1d96fc9p-6,
                                          0x1.6db6db6e32199p-5, 0x1.3333333332ec8p-4,
                                          0x1.5555555555556p-3};

/* asin and acos from one polynomial: for a = |x| <= 1/2, asin a = a + a z P(z), z = a^2;
 * above, asin a = pi/2 - 2 asin(sqrt z), z = (1 - a) / 2 (exact), sqrt z = u + ul from the
 * level's sqrt row (pre: z) corrected once, asin(sqrt z) = u + (ul (1 + z/2) + u z P(z)).
 * So u + *t is asin a below 1/2 and asin(sqrt z) above, *t at most 1/21 of u. */
static inline double VM(v64_asin_pre)(double x)
{
    double a = VM(v64_clamp)(fabs(x), 0.0, 1.0);
    return 0.5 - 0.5 * a;
}

static inline double VM(v64_asin_parts)(double a, double sq, double *t)
{
    const int big = a > 0.5;
    double w = 0.5 - 0.5 * a;
    double sl, s = VM(v64_sqrt_dd)(w, 0.0, sq, &sl);
    sl = w > 0.0 ? sl : 0.0; /* a = 1: sqrt z = 0 */
    double z = big ? w : a * a, u = big ? s : a;
    /* asin(s + sl) = asin s + sl / sqrt(1 - z), 1 / sqrt(1 - z) ~ 1 + z / 2 (z <= 1/4: the
     * next term, 3 z^2 / 8, is below 1/40 of sl) */
    *t = V64_MAD(u * z, VM(v64_horner)(z, VM(v64_asin_p), 13),
                 big ? V64_MAD(0.5 * z, sl, sl) : 0.0);
    return u;
}

static inline double VM(v64_asin)(double x, double sq)
{
    double a = VM(v64_clamp)(fabs(x), 0.0, 1.0), t;
    double u = VM(v64_asin_parts)(a, sq, &t);
    double r = a > 0.5 ? VM(v64_less)(V64_PIO2_HI, V64_PIO2_LO, 2.0 * u, 2.0 * t) : u + t;
    r = fabs(x) > 1.0 ? NAN : r;
    return x != x ? x + x : copysign(r, x);
}

/* acos x = pi/2 - asin x for |x| <= 1/2; 2 asin(sqrt z) above, pi less it below -1/2 */
static inline double VM(v64_acos)(double x, double sq)
{
    double a = VM(v64_clamp)(fabs(x), 0.0, 1.0), t;
    double u = VM(v64_asin_parts)(a, sq, &t);
    const int big = a > 0.5, neg = x < 0.0;
    double kh = big ? (neg ? 0x1.921fb54442d18p+1 : 0.0) : V64_PIO2_HI;
    double kl = big ? (neg ? 0x1.1a62633145c07p-53 : 0.0) : V64_PIO2_LO;
    double m = big ? (neg ? 2.0 : -2.0) : (neg ? -1.0 : 1.0);
    double r = VM(v64_less)(kh, kl, m * u, m * t); /* m u exact */
    r = fabs(x) > 1.0 ? NAN : r;
    return x != x ? x + x : r;
}

/* ---- sinh, cosh ---- */

/* e^a / 2 for a >= 0, finite up to 710.47 (a clamped to 711: inf past it) */
static inline double VM(v64_half_exp)(double a)
{
    double lo, t, hi = VM(v64_exp_core)(VM(v64_clamp)(a, 0.0, 711.0), &lo, &t);
    return VM(v64_scale)(hi, lo, t - 1.0);
}

/* a = |x| <= 22 */
static inline double VM(v64_sinh_fast)(double x)
{
    double a = fabs(x);
    double el, eml, em, e = VM(v64_exp_pair)(a, &el, &em, &eml);
    (void)e, (void)el;
    double d_lo, d = VM(v64_two_sum)(em, 1.0, &d_lo); /* e^a = em + 1 */
    double c, q = VM(v64_div_dd2)(em, eml, d, d_lo + eml, &c);
    double s_lo, s = VM(v64_fast_two_sum)(em, q, &s_lo); /* em >= q */
    return copysign(0.5 * (s + (s_lo + (eml + c))), x);
}

static inline double VM(v64_sinh)(double x)
{
    double r = VM(v64_sinh_fast)(VM(v64_clamp)(x, -22.0, 22.0));
    double a = fabs(x);
    r = a > 22.0 ? copysign(VM(v64_half_exp)(a), x) : r;
    return x != x ? x + x : r;
}

static inline double VM(v64_cosh_fast)(double x)
{
    double a = fabs(x);
    double el, eml, em, e = VM(v64_exp_pair)(a, &el, &em, &eml);
    (void)em, (void)eml;
    double c, q = VM(v64_div_dd2)(1.0, 0.0, e, el, &c); /* e^-a, e >= 1 */
    double s_lo, s = VM(v64_fast_two_sum)(e, q, &s_lo);
    return 0.5 * (s + (s_lo + (el + c)));
}

static inline double VM(v64_cosh)(double x)
{
    double r = VM(v64_cosh_fast)(VM(v64_clamp)(x, -22.0, 22.0));
    double a = fabs(x);
    r = a > 22.0 ? VM(v64_half_exp)(a) : r;
    return x != x ? x + x : r;
}

/* ---- exp2 (2 ** x: the float64 pow of a scalar base 2, cpu_elementwise.c) ---- */

/* 2^x = 2^n e^(f ln2), n = rint(x), f = x - n exact (|f| <= 1/2); f ln2 as a double-double
 * (its high product exact by two_prod), e^ of it by exp's evaluation, 2^n by v64_scale
 * (x clamped to [-1080, 1030]: 0 and inf past them) */
static inline double VM(v64_exp2_parts)(double x, double *lo, double *t)
{
    double y = VM(v64_clamp)(x, -1080.0, 1030.0);
    *t = y + V64_SHIFT; /* rint(y) in its low bits */
    double f = y - (*t - V64_SHIFT);
    double rl, r = VM(v64_two_prod)(f, 0x1.62e42fefa39efp-1, &rl);
    return VM(v64_exp_eval)(r, V64_MAD(f, 0x1.abc9e3b39803fp-56, rl), lo);
}

/* |x| <= 1020: a normal result, n added to the exponent field */
static inline double VM(v64_exp2_fast)(double x)
{
    double lo, t, hi = VM(v64_exp2_parts)(x, &lo, &t);
    return VM(from_bits64)(VM(bits64)(hi) + (VM(bits64)(t) << 52));
}

static inline double VM(v64_exp2)(double x)
{
    double lo, t, hi = VM(v64_exp2_parts)(x, &lo, &t);
    return x != x ? x + x : VM(v64_scale)(hi, lo, t);
}

/* ---- the rows (o may be a) ---- */

V64_BLOCK_ROW(expm1_64_row, 40.0, VM(v64_expm1_fast), VM(v64_expm1))
#if PDT_SIMD_BYTES != 64 /* AVX-512: cpu_vmath64_avx512.h (Note [float64 log1p with a table]) */
V64_ROW(log1p_64_row, VM(v64_log1p))
#endif
#if PDT_SIMD_BYTES != 64 /* AVX-512: from the table's log (cpu_vmath64_avx512.h) */
V64_ROW(log2_64_row, VM(v64_log2))
V64_ROW(log10_64_row, VM(v64_log10))
#endif
V64_BLOCK_ROW(tan64_row, V64_TRIG_LIMIT, VM(v64_tan_fast), VM(v64_tan_any))
V64_ROW(atanh64_row, VM(v64_atanh))
V64_ROW(atan64_row, VM(v64_atan))
V64_SQRT_ROW(asin64_row, 1.0, VM(v64_asin_pre), VM(v64_asin), VM(v64_asin))
V64_SQRT_ROW(acos64_row, 1.0, VM(v64_asin_pre), VM(v64_acos), VM(v64_acos))
V64_SQRT_ROW(asinh64_row, 0x1p28, VM(v64_asinh_pre), VM(v64_asinh_fast), VM(v64_asinh))
V64_SQRT_ROW(acosh64_row, 0x1p28, VM(v64_acosh_pre), VM(v64_acosh_fast), VM(v64_acosh))
#if PDT_SIMD_BYTES == 64
/* Note [float64 sinh and cosh with a table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * At AVX-512, e^a / 2 and e^-a / 2 (a = |x| <= 708) come from exp's table (v64t_exp_parts,
 * Note [float64 exp with a table]: 2^k (T + lo)) as double-doubles scaled by 2^(k - 1)
 * (normal scales: exact), with no division (the portable forms divide by e^a); e^-a is
 * left out past a = 40 (below 2^-115 of e^a).  cosh = E + F; sinh = E - F from a = 1/2 on
 * (F <= E / e: the difference loses at most a bit of the double-doubles' 2^-59), below it
 * a + a z P(z), z = a^2, P Taylor's 1/3! .. 1/17! (the next term below 2^-70 of a); one
 * rounding each.  A vector holding a lane past 708 (inf and NaN among them) takes the
 * portable functions for those lanes only, so an element's bits do not depend on its
 * neighbours.  Its bits are its own (not AVX2's); tests/test_vfunc64.py bounds them:
 * 0.58 ulp (sinh) and 0.54 (cosh) on its sample and 2 million in [-1, 1].  One thread,
 * 1e5 in [-20, 20] (AMD EPYC Zen 4, while another process ran): sinh 384 us at AVX2 ->
 * 186-194 (NumPy 118), cosh 282 -> 148-155 (NumPy 90). */
static const double VM(v64t_sinh_p)[8] = {
    1.0 / 355687428096000.0, 1.0 / 1307674368000.0, 1.0 / 6227020800.0, 1.0 / 39916800.0,
    1.0 / 362880.0,          1.0 / 5040.0,          1.0 / 120.0,        1.0 / 6.0};

/* e^a / 2 = h + *lo for |a| <= 708 (2^(k - 1) from the shifted n: k - 1 >= -60 here) */
static inline __m512d VM(v64t_half_exp_dd)(const VM(v64t_exp_consts) * c, __m512d a, __m512d *lo)
{
    __m512i n;
    __m512d l, th = VM(v64t_exp_parts)(c, a, &l, &n);
    __m512i e = _mm512_add_epi64(VM(v64t_exp_k)(n), _mm512_set1_epi64(1022));
    __m512d s = _mm512_castsi512_pd(_mm512_slli_epi64(e, 52));
    *lo = _mm512_mul_pd(l, s);
    return _mm512_mul_pd(th, s);
}

/* cosh (sinh 0) or sinh (1) of 8 lanes; odd: the lanes past 708 or NaN */
static inline __m512d VM(v64t_hyp)(const VM(v64t_exp_consts) * c, __m512d x, int sinh)
{
    const __m512d ax = _mm512_abs_pd(x), a = _mm512_min_pd(ax, _mm512_set1_pd(708.0));
    __m512d el, eh = VM(v64t_half_exp_dd)(c, a, &el);
    __m512d a2 = _mm512_min_pd(a, _mm512_set1_pd(40.0));
    __m512d fl, fh = VM(v64t_half_exp_dd)(c, _mm512_sub_pd(_mm512_setzero_pd(), a2), &fl);
    __mmask8 far = _mm512_cmp_pd_mask(a, _mm512_set1_pd(40.0), _CMP_GT_OQ);
    fh = _mm512_maskz_mov_pd((__mmask8)~far, fh);
    fl = _mm512_maskz_mov_pd((__mmask8)~far, fl);
    if (sinh) {
        fh = _mm512_sub_pd(_mm512_setzero_pd(), fh);
        fl = _mm512_sub_pd(_mm512_setzero_pd(), fl);
    }
    __m512d s = _mm512_add_pd(eh, fh); /* fast_two_sum: |eh| >= |fh| */
    __m512d e = _mm512_add_pd(_mm512_sub_pd(eh, s), fh);
    __m512d r = _mm512_add_pd(s, _mm512_add_pd(e, _mm512_add_pd(el, fl)));
    if (sinh) {
        __m512d z = _mm512_mul_pd(a, a), p = _mm512_set1_pd(VM(v64t_sinh_p)[0]);
        for (int i = 1; i < 8; i++)
            p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(VM(v64t_sinh_p)[i]));
        __m512d ps = _mm512_fmadd_pd(_mm512_mul_pd(a, z), p, a);
        r = _mm512_mask_mov_pd(r, _mm512_cmp_pd_mask(a, _mm512_set1_pd(0.5), _CMP_LT_OQ), ps);
        /* x's sign (-0.0 too) */
        const __m512d sign = _mm512_set1_pd(-0.0);
        r = _mm512_or_pd(r, _mm512_and_pd(x, sign));
    }
    return r;
}

/* a vector holding a lane past 708, inf or NaN: the portable function for those lanes */
#define V64T_HYP(NAME, SINH, PORTABLE)                                                             \
    static inline __m512d VM(NAME##_fast)(const VM(v64t_exp_consts) * c, __m512d x)                \
    {                                                                                              \
        return VM(v64t_hyp)(c, x, SINH);                                                           \
    }                                                                                              \
    static inline __m512d VM(NAME##_general)(const VM(v64t_exp_consts) * c, __m512d x)             \
    {                                                                                              \
        __mmask8 odd = _mm512_cmp_pd_mask(_mm512_abs_pd(x), _mm512_set1_pd(708.0), _CMP_NLE_UQ);   \
        double t[8], v[8];                                                                         \
        _mm512_storeu_pd(t, VM(v64t_hyp)(c, x, SINH));                                             \
        _mm512_storeu_pd(v, x);                                                                    \
        for (int l = 0; l < 8; l++)                                                                \
            if (odd >> l & 1)                                                                      \
                t[l] = PORTABLE(v[l]);                                                             \
        return _mm512_loadu_pd(t);                                                                 \
    }
V64T_HYP(v64t_sinh, 1, VM(v64_sinh))
V64T_HYP(v64t_cosh, 0, VM(v64_cosh))
V64T_ROW(sinh64_row, VM(v64t_sinh_fast), VM(v64t_sinh_general))
V64T_ROW(cosh64_row, VM(v64t_cosh_fast), VM(v64t_cosh_general))
#else
V64_BLOCK_ROW(sinh64_row, 22.0, VM(v64_sinh_fast), VM(v64_sinh))
V64_BLOCK_ROW(cosh64_row, 22.0, VM(v64_cosh_fast), VM(v64_cosh))
#endif
V64_BLOCK_ROW(exp2_64_row, 1020.0, VM(v64_exp2_fast), VM(v64_exp2))
