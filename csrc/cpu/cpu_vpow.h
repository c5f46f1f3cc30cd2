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
 * into 1 / x (Note [squares]).  tests/test_vmath.py checks the result on a dense
 * sample (measured: 0.49999966 ulp from the float64 power, every level the same
 * bits), integer powers against exact ones, and layouts and neighbours.  One
 * thread, AVX-512, 1e5 float32: x ** 3 (half the bases negative) 630 -> 259 us
 * (NumPy 6,040: its vector power leaves negative bases to a scalar loop), |x| **
 * 1.7 310 -> 255 (NumPy 119, in float32 lanes and within 1 ulp or so; ours are
 * double lanes), x ** -1 (1 / x) 580 -> 11 (NumPy 83). */

/* 0: y is not an integer (or not finite); 1: an even one; 2: an odd one. */
static inline int VM(pow_int_kind)(float y)
{
    if (!(fabsf(y) < 0x1p24f))
        return isfinite(y) ? 1 : 0; /* every float from 2^24 on is even */
    float t = y < 0 ? -y : y;
    int32_t i = (int32_t)t;
    return (float)i != t ? 0 : (i & 1) ? 2 : 1;
}

/* sign * exp(y log a), a positive normal float, or NaN (which no ordinary pair
 * has) when the double result is within 2^-40 of a float32 rounding boundary,
 * where its error (below 2^-44) could pick the wrong side; see the Note. */
static inline float VM(pow_ordinary)(float a, float y, int negative)
{
    int32_t e;
    float m = VM(log_split_normal)(a, &e);
    double t = VM(clamp_d)((double)y * VM(log_dm_n)(m, e, 10), -120.0, 120.0);
    double r = VM(exp_d_long)(t);
    float up = (float)(r * (1.0 + 0x1p-40)), down = (float)(r * (1.0 - 0x1p-40));
    float v = up == down ? up : NAN;
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

/* o[i] = a[i] ** y (o may be a), in blocks of 256: a block of ordinary pairs only
 * (found by an unsigned maximum of the bits, without the sign for an integer y)
 * runs pow_ordinary alone, any other block pow_f32 element by element. */
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
    for (int64_t b = 0; b < n; b += 256) {
        int64_t m = n - b < 256 ? n - b : 256;
        if (VM(max_bits)(a + b, m, keep, 0x00800000u) >= 0x7f000000u) {
            for (int64_t i = 0; i < m; i++)
                o[b + i] = VM(pow_f32)(a[b + i], y);
            continue;
        }
        float r[256];
        if (kind == 2) {
            for (int64_t i = 0; i < m; i++)
                r[i] = VM(pow_ordinary)(fabsf(a[b + i]), y, a[b + i] < 0.0f);
        } else {
            for (int64_t i = 0; i < m; i++)
                r[i] = VM(pow_ordinary)(fabsf(a[b + i]), y, 0);
        }
        /* a NaN's bits are above inf's: a tie or nearly, the C library's double pow */
        if (VM(max_bits)(r, m, 0x7fffffffu, 0) > 0x7f800000u)
            for (int64_t i = 0; i < m; i++)
                r[i] = r[i] == r[i] ? r[i] : VM(pow_by_double)(a[b + i], y);
        memcpy(o + b, r, (size_t)m * sizeof(float));
    }
}
