/* cpu_verf.h - float32 erf and erfc over rows, evaluated in double lanes at every
 * instruction-set level (included by cpu_vmath.h, once per level).
 *
 * Note [float32 erf and erfc]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The C library's erf and erfc take about 25 ns an element here, one at a time (and
 * glibc's erfcf alone was 2.33 ulp off at 4.2557, measured).  These widen each
 * argument to double, evaluate with no branch (the loops vectorise), and round once
 * to float32.  With a = abs(x):
 *   a < 1   erf(x) = x P(x^2), P of degree 8 in x^2: the Chebyshev interpolant of
 *           erf(x) / x on x^2 in [0, 1], in monomials (9.3e-13 relative at most);
 *           erfc(x) = 1 - erf(x), at least 0.157 there (no cancellation).
 *   a >= 1  erfc(a) = exp(-a^2) R(t), t = 2 / (2 + a) in [2/12.1, 2/3] for a in [1,
 *           10.1]: R the Chebyshev interpolant of degree 12 of exp(a^2) erfc(a) as a
 *           function of t, in monomials of t scaled to [-1, 1] (5.6e-12 relative);
 *           a^2 is exact in double (24 bits squared), exp(-a^2) exp_d_long's (2^-47).
 *           erf(x) = sign(x) (1 - erfc(a)), erfc(-a) = 2 - erfc(a).  a is clamped to
 *           10.1, where erfc is below half the smallest subnormal (erfc(10.0542) is
 *           2^-150): inf gives erf 1 and erfc 0.
 * Both interpolants were fitted from float64 math.erf and math.erfc (numpy's
 * Chebyshev.interpolate at the Chebyshev points, then converted).  The double value
 * is within 1e-11 relative of the exact one, so the float32 result is the correctly
 * rounded one except within that distance of a rounding boundary: at most 0.5 +
 * 2^-12 ulp.  Measured against math.erf and math.erfc on 2000 mantissas of every
 * float32 exponent (with dense stretches over 0 to 6 and 9 to 10.1), at every level:
 * 0.5000 ulp; over all 2^32 inputs (a reviewer's exhaustive run) at most 0.5000123
 * ulp for erf and 0.5000689 for erfc, 0.00043% of erf's results and 722 of erfc's not
 * correctly rounded, the same bits at every level (PyTorch 2.15's: 0.9994 and 0.7781
 * ulp); tests/test_erf.py holds it to 0.501, with those worst cases as fixed points.
 * 4.5 ns an element on one AVX-512 core (the C library's erf: 25).  Special values: erf keeps the sign of a zero and of a
 * subnormal (x P(x^2) rounds correctly there), NaN stays NaN.  CUDA uses its own
 * erff and erfcf (2 and 4 ulp by the CUDA Math API), so the two devices agree
 * within 3 and 5 ulp (tests/test_erf.py). */

/* erf(x) / x in s = x^2, s in [0, 1]: from s^8 down */
static const double VM(erf_p)[9] = {1.0589143666959874e-06, -1.3909244641540084e-05,
                                    0.00011956546898645011, -0.0008542636647544657,
                                    0.0052237834121404,     -0.02686613321778475,
                                    0.11283791308371349,    -0.37612638889622435,
                                    1.1283791670946752};

/* exp(a^2) erfc(a) in u = (t - 0.41597796143250687) / 0.25068870523415976, t = 2 / (2
 * + a), a in [1, 10.1]: from u^12 down */
static const double VM(erfc_r)[13] = {6.294878517732656e-10,   1.8437178364481002e-08,
                                      -4.504317913079869e-08,  -3.2529913147780367e-07,
                                      1.2608093469628754e-06,  5.883591464372773e-06,
                                      -3.0113108789023814e-05, -0.00017712780777018008,
                                      0.0005747803001257818,   0.009402349119514418,
                                      0.050978273436566496,    0.17676574653231972,
                                      0.1900628745589337};

/* erfc(a) for a >= 1 (a may be NaN: replaced by the callers) */
static inline double VM(erfc_big)(double a)
{
    a = a < 10.1 ? a : 10.1;
    double t = 2.0 / (2.0 + a);
    double u = (t - 0.41597796143250687) * (1.0 / 0.25068870523415976);
    return VM(exp_d_long)(-(a * a)) * VM(horner_d)(u, VM(erfc_r), 13);
}

static inline float VM(erff)(float x)
{
    double y = (double)x, a = fabs(y);
    int small = a < 1.0;
    double e = y * VM(horner_d)(small ? y * y : 0.0, VM(erf_p), 9);
    double big = 1.0 - VM(erfc_big)(small ? 1.0 : a);
    double r = small ? e : (y < 0 ? -big : big);
    return x != x ? x + x : (float)r;
}

static inline float VM(erfcf)(float x)
{
    double y = (double)x, a = fabs(y);
    int small = a < 1.0;
    double e = y * VM(horner_d)(small ? y * y : 0.0, VM(erf_p), 9);
    double big = VM(erfc_big)(small ? 1.0 : a);
    double r = small ? 1.0 - e : (y < 0 ? 2.0 - big : big);
    return x != x ? x + x : (float)r;
}

static void VM(erf_row)(float *o, const float *a, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        o[i] = VM(erff)(a[i]);
}

static void VM(erfc_row)(float *o, const float *a, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        o[i] = VM(erfcf)(a[i]);
}
