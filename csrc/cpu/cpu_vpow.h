/* cpu_vpow.h - float32 powers x ** y, included by cpu_vmath.h once per level.
 *
 * Note [float32 powers]
 * ~~~~~~~~~~~~~~~~~~~~~
 * The C library's powf is a call per element: `x ** 3` of 1e5 float32 took 630 us
 * here, `x ** 1.7` 310 (NumPy 138), `x ** -1.0` 580 (NumPy 84).  For an ordinary
 * pair, x normal and finite and y finite and not 0, with x > 0 or y an integer,
 * x ** y = sign * exp(y log |x|) in double: log |x| by log_split and log_dm
 * (relative error below 2^-50), the product rounded once, clamped to [-120, 120]
 * (beyond it the float result is inf or 0 either way), exp_d (below 2^-30); the
 * sign is - for a negative x and an odd integer y.  One rounding to float32 then
 * gives a result within 0.5 + 2^-6 ulp of x ** y, exact whenever x ** y is a
 * float (x ** 1 is x, 2 ** 10 is 1024).  Every other pair (zeros, subnormals,
 * infinities, NaN, a negative x to a fraction, y 0, inf or NaN) is the C library's
 * powf, whose special values are C's (Annex F.10.4.4).  Only +, -, * and / of
 * doubles are used, so every level gives the same bits, and the same bits for
 * an element whatever its neighbours (Note [block fast paths]) or its layout.
 * The core turns x ** 2 into x * x and x ** 0.5 into sqrt (Note [squares]).
 * tests/test_vmath.py checks the bound on a dense sample (measured: 0.503 ulp at
 * every level), and that layout and neighbours do not change a bit.  One thread,
 * AVX-512, 1e5 float32: x ** 3 (half the bases negative) 630 -> 227 us (NumPy
 * 6,040: its vector power leaves negative bases to a scalar loop), |x| ** 1.7
 * 310 -> 213 (NumPy 119, in float32 lanes; ours are double); x ** -1 (1 / x) 580
 * -> 11 (NumPy 83). */

/* 0: y is not an integer (or not finite); 1: an even one; 2: an odd one. */
static inline int VM(pow_int_kind)(float y)
{
    if (!(fabsf(y) < 0x1p24f))
        return isfinite(y) ? 1 : 0; /* every float from 2^24 on is even */
    float t = y < 0 ? -y : y;
    int32_t i = (int32_t)t;
    return (float)i != t ? 0 : (i & 1) ? 2 : 1;
}

/* sign * exp(y log a), a positive normal float; see the Note. */
static inline float VM(pow_ordinary)(float a, float y, int negative)
{
    int32_t e;
    float m = VM(log_split_normal)(a, &e);
    double t = VM(clamp_d)((double)y * VM(log_dm)(m, e), -120.0, 120.0);
    double r = VM(exp_d)(t);
    return (float)(negative ? -r : r);
}

/* Whether (x, y) is ordinary; kind: pow_int_kind(y). */
static inline int VM(pow_is_ordinary)(float x, float y, int kind)
{
    uint32_t ax = VM(bits32)(x) & 0x7fffffffu;
    return isfinite(y) && y != 0.0f && ax - 0x00800000u < 0x7f000000u && (x > 0.0f || kind);
}

static float VM(pow_f32)(float x, float y)
{
    int kind = VM(pow_int_kind)(y);
    if (VM(pow_is_ordinary)(x, y, kind))
        return VM(pow_ordinary)(fabsf(x), y, x < 0.0f && kind == 2);
    return powf(x, y);
}

/* o[i] = a[i] ** y (o may be a), in blocks of 256: a block of ordinary pairs only
 * (found by an unsigned maximum of the bits, without the sign for an integer y)
 * runs pow_ordinary alone, any other block pow_f32 element by element. */
static void VM(powc_f32)(float *o, const float *a, float y, int64_t n)
{
    const int kind = VM(pow_int_kind)(y);
    if (!isfinite(y) || y == 0.0f) {
        for (int64_t i = 0; i < n; i++)
            o[i] = powf(a[i], y);
        return;
    }
    const uint32_t keep = kind ? 0x7fffffffu : 0xffffffffu; /* a negative x: ordinary or not */
    for (int64_t b = 0; b < n; b += 256) {
        int64_t m = n - b < 256 ? n - b : 256;
        uint32_t off = 0;
        for (int64_t i = 0; i < m; i++) {
            uint32_t v = (VM(bits32)(a[b + i]) & keep) - 0x00800000u;
            off = v > off ? v : off;
        }
        if (off >= 0x7f000000u) {
            for (int64_t i = 0; i < m; i++)
                o[b + i] = VM(pow_f32)(a[b + i], y);
        } else if (kind == 2) {
            for (int64_t i = 0; i < m; i++)
                o[b + i] = VM(pow_ordinary)(fabsf(a[b + i]), y, a[b + i] < 0.0f);
        } else {
            for (int64_t i = 0; i < m; i++)
                o[b + i] = VM(pow_ordinary)(fabsf(a[b + i]), y, 0);
        }
    }
}
