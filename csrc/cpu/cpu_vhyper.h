/* cpu_vhyper.h - float32 sinh and cosh over rows (included by cpu_vmath.h after
 * cpu_vmathf.h, once per instruction-set level).
 *
 * Note [float32 sinh and cosh]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Written as compositions of expm1 and exp (four or five passes over memory) they took 2.5
 * to 2.9 times NumPy's time (1e5 float32, AMD EPYC Zen 4, 2026-12-01); one pass here.
 * a = |x| clamped to 89.5 (sinh and cosh round to inf from 89.416), a = n ln2 + r by exp's
 * reduction (exp_reduce_f: |r| <= ln2 / 2, n in [0, 129]), e^r = 1 + E + O with E = cosh r
 * - 1 and O = sinh r by their series (Taylor's coefficients, to r^8 and r^9: below 2^-30 of
 * the result), and by the addition formulas, with h = 2^(n - 2) and m = 2^(-n - 2):
 *   sinh a = 2 ((h - m) + (h + m) O + (h - m) E),   cosh a = 2 ((h + m) + (h - m) O + (h + m) E)
 * h - m and h + m are exact to n = 11 and carry their rounding error (Fast2Sum) past it; m
 * stops at 2^-62, where it no longer counts; h = 2^127 for n = 129, so nothing overflows
 * before the last doubling.  For n = 0 the forms are O and 1 + E themselves (sinh takes O
 * directly: halved and doubled, an O below 2^-125 lost its last bit, a review found).  Measured on
 * every float32 from 0 to 90 against the float64 value (a throwaway harness): 1.39 ulp
 * for each (the worst near a = 8: the rounding of O and of the sum of the last two terms);
 * bound 1.5, asserted by tests/test_trig.py's dense sample at every level.  The baseline has
 * no FMA and computes in double (the same forms, r and the series in double), correctly
 * rounded but for 2^-20 of the arguments.  sinh keeps the sign of x (and of a zero); NaN
 * stays NaN; inf gives inf.  CUDA's sinhf and coshf are within 3 and 2 ulp (CUDA Math API),
 * so the two agree within 4.5 and 3.5. */
#ifndef PDT_SIMD_LEVEL
#error "include cpu_vhyper.h from cpu_vmath.h"
#endif

#if PDT_SIMD_FMA
static inline float VM(hyper_f)(float x, int want_cosh)
{
    float r, a = VM(clamp_f)(fabsf(x), 0.0f, 89.5f);
    int32_t n = VM(exp_reduce_f)(a, &r);
    float z = r * r;
    float e = z * __builtin_fmaf(z,
                                 __builtin_fmaf(z, __builtin_fmaf(z, 1.0f / 3628800, 1.0f / 40320),
                                                1.0f / 720),
                                 1.0f / 24);
    e = __builtin_fmaf(z, 0.5f, z * e);
    float o = __builtin_fmaf(
        r * z,
        __builtin_fmaf(z,
                       __builtin_fmaf(z, __builtin_fmaf(z, 1.0f / 362880, 1.0f / 5040), 1.0f / 120),
                       1.0f / 6),
        r);
    float h = VM(pow2_f)(n - 2), m = VM(pow2_f)(-(n < 60 ? n : 60) - 2);
    float s = h - m, se = (h - s) - m; /* h - m = s + se exactly (h >= m) */
    float c = h + m, ce = (h - c) + m;
    float res = want_cosh ? 2.0f * (c + (__builtin_fmaf(s, o, c * e) + ce))
                          : 2.0f * (s + (__builtin_fmaf(c, o, s * e) + se));
    /* n = 0: sinh is o itself (the form would halve it, and below 2^-125 lose its last bit
     * to the subnormals before the doubling) */
    res = want_cosh ? res : copysignf(n == 0 ? o : res, x);
    return x != x ? x + x : res; /* a NaN: itself, quieted (|x| lost its sign) */
}
#else
/* the same forms in double (no FMA at the baseline: the products and sums round in double,
 * far below float32's ulp) */
static inline float VM(hyper_f)(float x, int want_cosh)
{
    double a = VM(clamp_d)(fabs((double)x), 0.0, 90.0);
    double t = a * 0x1.71547652b82fep0 + 0x1.8p52; /* a / ln2, rounded, in t's low bits */
    double n = t - 0x1.8p52;
    double r = a - n * 0x1.62e42fefa39efp-1, z = r * r;
    double e = z * (0.5 + z * (1.0 / 24 + z * (1.0 / 720 + z * (1.0 / 40320 + z / 3628800))));
    double o = r + r * z * (1.0 / 6 + z * (1.0 / 120 + z * (1.0 / 5040 + z / 362880)));
    uint64_t k = VM(bits64)(t); /* n + the shift's bits, whose low 12 are 0 */
    double h = VM(from_bits64)((k + 1021) << 52), m = VM(from_bits64)((1021 - k) << 52);
    double res = want_cosh ? 2.0 * ((h + m) * (1.0 + e) + (h - m) * o)
                           : 2.0 * ((h - m) * (1.0 + e) + (h + m) * o);
    float f = want_cosh ? (float)res : copysignf((float)res, x);
    return x != x ? x + x : f;
}
#endif

static void VM(sinh_row)(float *o, const float *a, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        o[i] = VM(hyper_f)(a[i], 0);
}

static void VM(cosh_row)(float *o, const float *a, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        o[i] = VM(hyper_f)(a[i], 1);
}
