/* cpu_vmath64.h - float64 exp, log, sigmoid, tanh, sin and cos over arrays, written
 * for the compiler to vectorise (no branch and no call in the loop bodies: arithmetic,
 * selects and bit moves).  Included by cpu_vmath.h once per instruction-set level
 * (Note [CPU dispatch levels] in cpu_simd.h).
 *
 * Note [float64 vector math]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The C library's functions are one call an element; these run the same
 * operations in every lane of a vector.  Every result is a sum hi + lo rounded
 * once, hi and lo a double-double whose own error is well below half an ulp, so
 * the error is 0.5 ulp plus a fraction: bound 1 ulp for each function,
 * asserted by tests/test_vmath64.py against np.longdouble (64-bit significand)
 * on every binary exponent with random mantissas, both signs, the special values
 * and the edges (overflow, underflow, multiples of pi/2).  Measured there
 * (MEASURED_ULP; baseline / AVX2 and AVX-512): exp 0.594 / 0.587 (the worst near
 * the subnormal edge), log 0.519 / 0.528, tanh 0.730 / 0.685, sigmoid 0.581 /
 * 0.575, sin 0.680 / 0.680, cos 0.722 / 0.692 (sin's and cos's terms past the
 * first are rounded on their own).  AVX2 and AVX-512 give the same bits, but for
 * exp, sigmoid and log, which have their own table-driven kernels at AVX-512 (0.536,
 * 0.531 and 0.507 ulp; Notes [float64 exp with a table] and [float64 log with a
 * table] in cpu_vmath64_avx512.h).
 * The polynomials were fitted here (tools/gen_vmath64_coeffs.py: Chebyshev
 * interpolation with mpmath, the coefficients rounded to double).  Products that
 * must be exact are two_prod (one FMA at the levels with FMA, Dekker's splitting
 * at the baseline), sums that must be exact two_sum (Knuth) or fast_two_sum
 * (Dekker, when the first term is the larger); the polynomials are Horner steps,
 * fused at the FMA levels and two roundings at the baseline, so the levels
 * differ by a few hundredths of an ulp, each within the bound.
 *   exp    y clamped to [-746, 710] (past them the result is 0 or inf anyway);
 *          y = n ln2 + r, n = rint(y / ln2) by the 1.5 * 2^52 shift, ln2 in a
 *          high part with 11 trailing zero bits (n ln2_hi exact, and y - n ln2_hi
 *          exact by Sterbenz) and a low part, r rounded with its rounding error
 *          kept (c); e^r = 1 + r + r^2 P(r), P of degree 10 (error 2^-57.5
 *          relative), held as hi = 1 + r (rounded) and lo = the rest.  A block
 *          of 256 with every |x| <= 708 (normal results) adds n to hi's exponent
 *          field; any other block scales by 2^(n/2) 2^(n - n/2), both normal, the
 *          last product the only rounding, and a subnormal result is rounded onto
 *          its grid from hi + lo (v64_scale), so not twice; the same bits for the
 *          ordinary arguments either way.
 *   log    x = 2^e m, m in [sqrt(1/2), sqrt(2)) (subnormals scaled by 2^52
 *          first); f = m - 1 (exact), s = f / (2 + f) with its low part s_lo
 *          from the exact residual (at the FMA levels s comes from a float32
 *          reciprocal and one Newton step, to 2^-48: a double division costs
 *          about three float ones); log m = 2 atanh(s + s_lo) = 2s + s z R(z) +
 *          2 s_lo (1 + z), z = s^2 <= 0.0295, R of degree 7; e ln2_hi + 2s
 *          summed exactly (fast_two_sum).
 *          log(0) = -inf, log(x < 0) = NaN, log(inf) = inf, NaN stays.
 *   tanh   sign(x) em / (em + 2), em = e^(2|x|) - 1 as a double-double from
 *          exp's (no cancellation near 0: there n = 0 and em is r + r^2 P(r)),
 *          |x| clamped to 20 (tanh rounds to 1 past 19.06); the quotient
 *          (v64_div_dd) corrected once from its exact residual.  tanh(x) = x for
 *          tiny x, the sign of zero kept, tanh(+-inf) = +-1.
 *   sigmoid  e = e^-|x| (|x| clamped to 746) as a double-double; 1 / (1 + e)
 *          for x >= 0 and e / (1 + e) below (the CUDA kernel's form), the
 *          quotient corrected as for tanh, e's 2^n applied to the quotient (as for
 *          exp: a subnormal result rounded once).  sigmoid(-inf) = 0, sigmoid(inf) = 1.
 *   sin, cos  y = n pi/2 + r, pi/2 in three parts of 33 bits (n p_i exact for
 *          n < 2^20) and a fourth of 53, summed as a double-double with two_sum,
 *          so that r keeps about 2^-60 of itself even next to a multiple of pi/2;
 *          sin r = r + r^3 S(z) and cos r = 1 - z/2 + z^2 C(z), z = r^2, S and C
 *          of degree 6 on |r| <= pi/4, chosen by n mod 4, the low part of r added
 *          to the first order.  Past |x| = 2^20 (and for inf and NaN) a block of
 *          256 falls back to the C library's sin and cos (glibc: correctly
 *          reduced, within 1 ulp), element by element; a block of ordinary
 *          arguments runs the loop without that select (Note [block fast paths]
 *          in cpu_vmath.h), each element the same operations either way.
 * Special values are the C library's: NaN stays NaN; exp(-inf) = 0,
 * exp(inf) = inf; overflow gives inf and underflow subnormals or 0; exp, tanh,
 * sin keep the sign of a zero, cos(+-0) = 1.
 * Against CUDA (double: exp, log, tanh within 1 ulp, sin and cos within 2 in the
 * CUDA Math API's documented bounds; sigmoid is e / (1 + e) there, 3 ulp for
 * exp's 1 and two roundings) a CPU and a GPU result differ by at most the sum of
 * the bounds: 2 ulp for exp, log and tanh, 3 for sin and cos, 4 for sigmoid
 * (tests/test_vmath64.py's CUDA test).
 */
#ifndef PDT_SIMD_LEVEL
#error "include cpu_vmath64.h from cpu_vmath.h"
#endif

/* a * b + c: fused at the levels with FMA */
#if PDT_SIMD_FMA
#define V64_MAD(a, b, c) __builtin_fma((a), (b), (c))
#else
#define V64_MAD(a, b, c) ((a) * (b) + (c))
#endif

/* a * b = p + *e exactly (no overflow; Dekker's splitting at the baseline) */
static inline double VM(v64_two_prod)(double a, double b, double *e)
{
    double p = a * b;
#if PDT_SIMD_FMA
    *e = __builtin_fma(a, b, -p);
#else
    const double split = 134217729.0; /* 2^27 + 1 */
    double ca = split * a, cb = split * b;
    double ah = ca - (ca - a), bh = cb - (cb - b);
    double al = a - ah, bl = b - bh;
    *e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
    return p;
}

/* n - q d to 2^-100 of n, for q within 2^-40 of n / d: one FMA (the exact value
 * has more bits than a double, but it is rounded once, with an error of 2^-53 of
 * itself), or two_prod and two exact differences (Sterbenz) at the baseline */
static inline double VM(v64_resid)(double n, double q, double d)
{
#if PDT_SIMD_FMA
    return __builtin_fma(-q, d, n);
#else
    double pe, p = VM(v64_two_prod)(q, d, &pe);
    return (n - p) - pe;
#endif
}

VM_TWO_SUMS(v64_two_sum, v64_fast_two_sum, double) /* cpu_vmath.h */

static inline double VM(v64_horner)(double x, const double *c, int n)
{
    double p = c[0];
    for (int i = 1; i < n; i++)
        p = V64_MAD(p, x, c[i]);
    return p;
}

static inline double VM(v64_clamp)(double y, double lo, double hi)
{
    y = y < lo ? lo : y; /* NaN stays NaN: both comparisons are false */
    return y > hi ? hi : y;
}

#define V64_SHIFT 0x1.8p52              /* adding it rounds a double below 2^51 to an integer */
#define V64_LN2_HI 0x1.62e42fefa3800p-1 /* 11 trailing zero bits: n ln2_hi exact, |n| < 2^11 */
#define V64_LN2_LO 0x1.ef35793c76730p-45
/* 1 / ln2 and 1 / ln10 as double-doubles (log2 and log10 from log) */
#define V64_INV_LN2_HI 0x1.71547652b82fep0
#define V64_INV_LN2_LO 0x1.777d0ffda0d24p-56
#define V64_INV_LN10_HI 0x1.bcb7b1526e50ep-2
#define V64_INV_LN10_LO 0x1.95355baaafad3p-57

/* (e^r - 1 - r) / r^2 on |r| <= 0.3466, degree 10 (2^-57.5 relative) */
static const double VM(v64_exp_p)[11] = {0x1.1f7301a8efa5cp-29,
                                         0x1.af4de6a36d4fcp-26,
                                         0x1.27e4db653346ep-22,
                                         0x1.71de0232f4775p-19,
                                         0x1.a01a01a6d84aap-16,
                                         0x1.a01a01abe78f9p-13,
                                         0x1.6c16c16c162d5p-10,
                                         0x1.11111111100dcp-7,
                                         0x1.5555555555556p-5,
                                         0x1.5555555555557p-3,
                                         0x1p-1};

/* e^(r + c) = hi + *lo for |r| <= 0.3466 and |c| <= 2^-50 |r| (r's low part), |*lo| <=
 * ulp(hi) / 2 */
static inline double VM(v64_exp_eval)(double r, double c, double *lo)
{
    double p = VM(v64_horner)(r, VM(v64_exp_p), 11);
    double q = V64_MAD(r * r, p, V64_MAD(c, r, c)); /* r^2 P(r) + c (1 + r) */
    double e, hi = VM(v64_fast_two_sum)(1.0, r, &e);
    double l = e + q;
    return VM(v64_fast_two_sum)(hi, l, lo);
}

/* e^y = 2^n (hi + *lo) for y in [-746, 710] or NaN, |*lo| <= ulp(hi) / 2 (hi + lo is
 * e^r, in [0.70, 1.42]); *t holds n in its low bits (the shift's). */
static inline double VM(v64_exp_core)(double y, double *lo, double *t)
{
    double tt = V64_MAD(y, 0x1.71547652b82fep0, V64_SHIFT); /* y / ln2, rounded */
    double n = tt - V64_SHIFT;
    double rh = y - n * V64_LN2_HI; /* exact */
    double nl = n * V64_LN2_LO;
    double r = rh - nl;
    double c = (rh - r) - nl; /* r's rounding error (to 2^-87) */
    *t = tt;
    return VM(v64_exp_eval)(r, c, lo);
}

/* 2^k for the t of exp_core plus off (t + off holds n + off in its low bits), built in
 * the exponent field: for n + off + 1023 in [1, 2046] */
static inline double VM(v64_pow2)(double t, double off)
{
    return VM(from_bits64)((VM(bits64)(t + off) + 1023) << 52);
}

/* 2^n (hi + lo) rounded once, for any n in [-1076, 1025] (the t of exp_core): as
 * (hi 2^(n/2)) 2^(n - n/2), both factors normal, the last product the only rounding,
 * for a normal or overflowing result; a subnormal one is rounded onto its grid from
 * hi + lo, as the bits of 1 + 2^(n + 1022) (hi + lo) in [1, 2), whose spacing is the
 * subnormals' (scaled by 2^1022). */
static inline double VM(v64_scale)(double hi, double lo, double t)
{
    double n1 = (0.5 * (t - V64_SHIFT) + V64_SHIFT) - V64_SHIFT; /* n / 2, rounded to an integer */
    double big = (hi * VM(v64_pow2)(n1 + V64_SHIFT, 0.0)) * VM(v64_pow2)(t, -n1);
    double s3 = VM(v64_pow2)(t, 1022.0); /* 2^(n + 1022), for n < -1022 */
    double u = hi * s3, ul = lo * s3;
    double h = 1.0 + u;
    double g = h + (((1.0 - h) + u) + ul);
    /* u < 1 with n <= -1022: a subnormal result (s3 is garbage for n past 1021) */
    return t < V64_SHIFT - 1021.0 && u < 1.0 ? (g - 1.0) * 0x1p-1022 : big;
}

/* e^x for |x| <= 708: a normal result, 2^n added to the exponent field */
static inline double VM(v64_exp_fast)(double x)
{
    double lo, t, hi = VM(v64_exp_core)(x, &lo, &t);
    return VM(from_bits64)(VM(bits64)(hi) + (VM(bits64)(t) << 52));
}

/* e^x for any x: the same bits as exp_fast for |x| <= 708 */
static inline double VM(v64_exp)(double x)
{
    double lo, t, hi = VM(v64_exp_core)(VM(v64_clamp)(x, -746.0, 710.0), &lo, &t);
    return VM(v64_scale)(hi, lo, t);
}

/* (nh + nl) / (dh + dl) for |dh| in float32's normal range (tanh's and sigmoid's are in [1,
 * 2^59], cpu_vfunc64.h's down to 2^-62), as q + *c: q is nh / dh to 2^-48 or
 * better, *c its correction from the exact residual nh - q dh (to 2^-70 of q) */
static inline double VM(v64_div_dd2)(double nh, double nl, double dh, double dl, double *c)
{
#if PDT_SIMD_FMA
    /* a float32 reciprocal (2^-24), one Newton step (2^-48) for q: a float division
     * costs a third of a double one */
    double inv = (double)(1.0f / (float)dh);
    double q0 = nh * inv;
    double q = V64_MAD(V64_MAD(-q0, dh, nh) - q0 * dl, inv, q0);
#else
    double inv = 1.0 / dh;
    double q = nh * inv;
#endif
    *c = (VM(v64_resid)(nh, q, dh) + (nl - q * dl)) * inv;
    return q;
}

/* the same quotient rounded once */
static inline double VM(v64_div_dd)(double nh, double nl, double dh, double dl)
{
    double c, q = VM(v64_div_dd2)(nh, nl, dh, dl, &c);
    return q + c;
}

/* e^a = E + *el and e^a - 1 = em + *eml (double-doubles), a in [0, 40] (tanh's 2|x|,
 * cpu_vfunc64.h's sinh and cosh) */
static inline double VM(v64_exp_pair)(double a, double *el, double *em, double *eml)
{
    double lo, t, hi = VM(v64_exp_core)(a, &lo, &t);
    double sc = VM(v64_pow2)(t, 0.0); /* 2^n, n in [0, 58] */
    /* hi sc >= 1.4 for n >= 1, and hi - 1 is exact for n = 0 */
    double a_lo, d = VM(v64_fast_two_sum)(hi * sc, -1.0, &a_lo);
    *em = VM(v64_two_sum)(d, a_lo + lo * sc, eml);
    *el = lo * sc;
    return hi * sc;
}

static inline double VM(v64_tanh)(double x)
{
    double v = 2.0 * VM(v64_clamp)(fabs(x), 0.0, 20.0);
    double el, em_lo, em, e = VM(v64_exp_pair)(v, &el, &em, &em_lo); /* e^v - 1 = em + em_lo */
    (void)e, (void)el;
    double d_lo, d = VM(v64_two_sum)(em, 2.0, &d_lo);
    return copysign(VM(v64_div_dd)(em, em_lo, d, d_lo + em_lo), x);
}

/* sigmoid as 2^k (qh + *ql): e = e^-|x| = 2^n (hi + lo), eh + el = e (the sums' only
 * use, where its rounding does not matter); 1 / (1 + e) for x >= 0 (k = 0) and
 * 2^n (hi + lo) / (1 + e) below (k = n: the quotient is formed unscaled, so that a
 * subnormal result is rounded once, by the caller); *t gets k as exp_core's t. */
static inline double VM(v64_sigmoid_q)(double x, double hi, double lo, double eh, double el,
                                       double *t, double *ql)
{
    double d_lo, d = VM(v64_fast_two_sum)(1.0, eh, &d_lo);
    int neg = x < 0.0;
    double c, q = VM(v64_div_dd2)(neg ? hi : 1.0, neg ? lo : 0.0, d, d_lo + el, &c);
    *t = neg ? *t : V64_SHIFT;
    return VM(v64_fast_two_sum)(q, c, ql);
}

/* for |x| <= 708 (e^-|x| and the result normal) */
static inline double VM(v64_sigmoid_fast)(double x)
{
    double lo, t, hi = VM(v64_exp_core)(-fabs(x), &lo, &t);
    double sc = VM(v64_pow2)(t, 0.0);
    double ql, qh = VM(v64_sigmoid_q)(x, hi, lo, hi * sc, lo * sc, &t, &ql);
    return qh * VM(v64_pow2)(t, 0.0);
}

/* for any x: the same bits as sigmoid_fast for |x| <= 708 (eh and el the same values,
 * rounded once) */
static inline double VM(v64_sigmoid)(double x)
{
    double lo, t, hi = VM(v64_exp_core)(-VM(v64_clamp)(fabs(x), 0.0, 746.0), &lo, &t);
    double sc = VM(v64_pow2)(t, 600.0); /* 2^(n + 600): 2^n (hi, lo) rounded once */
    double eh = (hi * sc) * 0x1p-600, el = (lo * sc) * 0x1p-600;
    double ql, qh = VM(v64_sigmoid_q)(x, hi, lo, eh, el, &t, &ql);
    double r = VM(v64_scale)(qh, ql, t);
    /* a NaN argument is the result, quieted by x + x: |x| above loses its sign */
    return x != x ? x + x : r;
}

/* (2 atanh(s) / s - 2) / s^2 on s^2 <= 0.02944, degree 7 (2^-54 relative) */
static const double VM(v64_log_p)[8] = {0x1.0c04595972ab8p-3, 0x1.0fbe83c2cbcf3p-3,
                                        0x1.3b1c360763b8ap-3, 0x1.745cf901605f7p-3,
                                        0x1.c71c720160b47p-3, 0x1.2492492476c87p-2,
                                        0x1.9999999999a38p-2, 0x1.5555555555555p-1};

/* log x = h + *lo (a double-double) for a positive normal x (after the subnormals'
 * scaling: eoff 52; eoff -1 gives log 2x) */
static inline double VM(v64_log_dd)(double x, double eoff, double *lo)
{
    /* bits(x) - bits(sqrt(1/2)), offset by 1024 in the exponent field, so that the
     * field is e + 1024 >= 1 for every positive x and m = x / 2^e lies in
     * [sqrt(1/2), sqrt(2)) */
    uint64_t ix = VM(bits64)(x);
    uint64_t k = ix + 0x4000000000000000ull - 0x3fe6a09e667f3bcdull;
    uint64_t top = k & 0xfff0000000000000ull;
    double m = VM(from_bits64)(ix - top + 0x4000000000000000ull);
    double e = VM(from_bits64)(0x4330000000000000ull | (k >> 52)) - (0x1p52 + 1024.0);
    e -= eoff;
    double f = m - 1.0; /* exact */
    double ul, u = VM(v64_fast_two_sum)(2.0, f, &ul);
#if PDT_SIMD_FMA /* as in div_dd2 */
    double inv = (double)(1.0f / (float)u);
    double s0 = f * inv;
    double s = V64_MAD(V64_MAD(-s0, u, f) - s0 * ul, inv, s0);
#else
    double s = f / u;
    double inv = 0.5 - 0.5 * s; /* 1 / u = (1 - s) / 2 */
#endif
    double s_lo = (VM(v64_resid)(f, s, u) - s * ul) * inv;
    double z = s * s;
    /* 2 atanh(s + s_lo) = 2 atanh(s) + 2 s_lo / (1 - z): s is nh / u to only 2^-48 at
     * the FMA levels, so s_lo needs its factor 1 + z there */
    double tail = V64_MAD(s * z, VM(v64_horner)(z, VM(v64_log_p), 8),
                          V64_MAD(2.0 * s_lo, z, 2.0 * s_lo));
    double h_lo, h = VM(v64_fast_two_sum)(e * V64_LN2_HI, 2.0 * s, &h_lo);
    *lo = h_lo + V64_MAD(e, V64_LN2_LO, tail);
    return h;
}

/* log x for a positive normal x, rounded once */
static inline double VM(v64_log_pos)(double x, double eoff)
{
    double lo, h = VM(v64_log_dd)(x, eoff, &lo);
    return h + lo;
}

/* for a positive normal x (a block's fast path) */
static inline double VM(v64_log_fast)(double x) { return VM(v64_log_pos)(x, 0.0); }

/* for any x: log_fast's bits for a positive normal one */
static inline double VM(v64_log)(double x)
{
    int sub = x < 0x1p-1022;
    double r = VM(v64_log_pos)(sub ? x * 0x1p52 : x, sub ? 52.0 : 0.0);
    r = x == 0.0 ? -INFINITY : r;
    r = x < 0.0 ? NAN : r;
    r = x == INFINITY ? x : r;
    return x != x ? x + x : r; /* a NaN argument, quieted (x + x keeps sign and payload) */
}

/* (sin r - r) / r^3 and (cos r - 1 + z / 2) / z^2, z = r^2 <= (pi/4)^2, degree 6 */
static const double VM(v64_sin_p)[7] = {-0x1.ab17bdcbd3414p-41, 0x1.61217ee5cca1bp-33,
                                        -0x1.ae64541295cdfp-26, 0x1.71de3a54607a5p-19,
                                        -0x1.a01a01a019937p-13, 0x1.1111111111110p-7,
                                        -0x1.5555555555555p-3};
static const double VM(v64_cos_p)[7] = {0x1.ab78473be59d7p-45, -0x1.9394b9eb4d56dp-37,
                                        0x1.1eed8deb82809p-29, -0x1.27e4fb7712ca2p-22,
                                        0x1.a01a01a019d0ap-16, -0x1.6c16c16c16c16p-10,
                                        0x1.5555555555555p-5};

#define V64_TRIG_LIMIT 0x1p20 /* |x| up to it: n < 2^20 (see the Note) */

/* x = n pi/2 + rh + *rl, |x| <= 2^20; *t holds n in its low bits (exp_core's way) */
static inline double VM(v64_pio2_reduce)(double x, double *rl, double *t)
{
    const double p1 = 0x1.921fb544p0, p2 = 0x1.0b4611a6p-34, p3 = 0x1.3198a2ep-69,
                 p4 = 0x1.b839a252049c1p-104;
    *t = V64_MAD(x, 0x1.45f306dc9c883p-1, V64_SHIFT); /* x / (pi/2), rounded */
    double n = *t - V64_SHIFT;
    double a = x - n * p1; /* exact */
    double eb, b = VM(v64_two_sum)(a, -(n * p2), &eb);
    double ec, c = VM(v64_two_sum)(b, -(n * p3), &ec);
    return VM(v64_two_sum)(c, (eb + ec) - n * p4, rl);
}

/* sin(rh + rl) = rh + *sl and cos(rh + rl) = ch + *cl for |rh| <= pi/4 (double-doubles);
 * returns ch */
static inline double VM(v64_sincos_dd)(double rh, double rl, double *sl, double *cl)
{
    double ze, z = VM(v64_two_prod)(rh, rh, &ze);
    /* sin(rh + rl) = rh + (rh z S(z) + rl (1 - z / 2)) */
    *sl = V64_MAD(rh * z, VM(v64_horner)(z, VM(v64_sin_p), 7), V64_MAD(-0.5 * z, rl, rl));
    /* cos(rh + rl) = w + (((1 - w) - hz) - ze / 2 + z^2 C(z) - rh rl), w = 1 - hz */
    double hz = 0.5 * z, w = 1.0 - hz;
    double ct = V64_MAD(z * z, VM(v64_horner)(z, VM(v64_cos_p), 7), -0.5 * ze - rh * rl);
    *cl = ((1.0 - w) - hz) + ct;
    return w;
}

/* sin (want_cos 0) or cos (1) of x, |x| <= 2^20 */
static inline double VM(v64_sincos)(double x, int want_cos)
{
    double rl, t, rh = VM(v64_pio2_reduce)(x, &rl, &t);
    double sl, cl, ch = VM(v64_sincos_dd)(rh, rl, &sl, &cl);
    double sv = rh == 0.0 ? x : rh + sl; /* n = 0 and rh = x, whose zero keeps its sign */
    double cv = ch + cl;
    /* cos x = sin(x + pi/2); quadrant q: cos for odd q, the sign flipped for q = 2, 3
     * (masks of bits, not selects: SSE2 has no 64-bit comparison) */
    uint64_t q = VM(bits64)(t) + (uint64_t)want_cos;
    uint64_t odd = (uint64_t)0 - (q & 1);
    uint64_t v = (VM(bits64)(cv) & odd) | (VM(bits64)(sv) & ~odd);
    return VM(from_bits64)(v ^ ((q & 2) << 62));
}

/* ---- the rows (o may be a) ---- */

/* Note [block fast paths] (cpu_vmath.h), for float64: whether every x of a block of m
 * has |x| <= limit (NaN fails), as an OR of comparisons, which vectorises at every level
 * (a 64-bit unsigned maximum does not at the baseline). */
static inline int VM(v64_all_within)(const double *a, int64_t m, double limit)
{
    uint64_t out = 0;
    for (int64_t i = 0; i < m; i++)
        out |= (uint64_t) !(fabs(a[i]) <= limit);
    return out == 0;
}

/* Rows of blocks of 256: a block within LIMIT runs FAST, any other GENERAL, which gives
 * FAST's bits within LIMIT; o may be a. */
#define V64_BLOCK_ROW(NAME, LIMIT, FAST, GENERAL)                                                  \
    static void VM(NAME)(double *o, const double *a, int64_t n)                                    \
    {                                                                                              \
        for (int64_t b = 0; b < n; b += 256) {                                                     \
            int64_t m = n - b < 256 ? n - b : 256;                                                 \
            if (VM(v64_all_within)(a + b, m, LIMIT)) {                                             \
                for (int64_t i = 0; i < m; i++)                                                    \
                    o[b + i] = FAST(a[b + i]);                                                     \
            } else {                                                                               \
                for (int64_t i = 0; i < m; i++)                                                    \
                    o[b + i] = GENERAL(a[b + i]);                                                  \
            }                                                                                      \
        }                                                                                          \
    }
#if PDT_SIMD_BYTES != 64 /* AVX-512: cpu_vmath64_avx512.h, below */
V64_BLOCK_ROW(exp64_row, 708.0, VM(v64_exp_fast), VM(v64_exp))
V64_BLOCK_ROW(sigmoid64_row, 708.0, VM(v64_sigmoid_fast), VM(v64_sigmoid))
#endif

/* whether every x of a block is positive, normal and finite */
static inline int VM(v64_all_normal)(const double *a, int64_t m)
{
    uint64_t out = 0;
    for (int64_t i = 0; i < m; i++)
        out |= (uint64_t) !(a[i] >= 0x1p-1022 && a[i] <= 0x1.fffffffffffffp1023);
    return out == 0;
}

#if PDT_SIMD_BYTES == 64
#include "cpu_vmath64_avx512.h" /* exp, sigmoid, log, log1p and tanh from tables */
#else
/* log: a block of positive normal arguments runs log_fast */
static void VM(log64_row)(double *o, const double *a, int64_t n)
{
    for (int64_t b = 0; b < n; b += 256) {
        int64_t m = n - b < 256 ? n - b : 256;
        if (VM(v64_all_normal)(a + b, m)) {
            for (int64_t i = 0; i < m; i++)
                o[b + i] = VM(v64_log_fast)(a[b + i]);
        } else {
            for (int64_t i = 0; i < m; i++)
                o[b + i] = VM(v64_log)(a[b + i]);
        }
    }
}
#endif

#define V64_ROW(NAME, F)                                                                           \
    static void VM(NAME)(double *o, const double *a, int64_t n)                                    \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = F(a[i]);                                                                        \
    }
#if PDT_SIMD_BYTES != 64 /* AVX-512: cpu_vmath64_avx512.h */
V64_ROW(tanh64_row, VM(v64_tanh))
#endif

/* sin and cos: past 2^20 (and inf, NaN) the C library, element by element */
#define V64_SINCOS(NAME, WANT_COS, LIBM)                                                           \
    static inline double VM(NAME##_fast)(double x) { return VM(v64_sincos)(x, WANT_COS); }         \
    static inline double VM(NAME##_any)(double x)                                                  \
    {                                                                                              \
        return fabs(x) <= V64_TRIG_LIMIT ? VM(v64_sincos)(x, WANT_COS) : LIBM(x);                  \
    }                                                                                              \
    V64_BLOCK_ROW(NAME##_row, V64_TRIG_LIMIT, VM(NAME##_fast), VM(NAME##_any))
V64_SINCOS(sin64, 0, sin)
V64_SINCOS(cos64, 1, cos)
