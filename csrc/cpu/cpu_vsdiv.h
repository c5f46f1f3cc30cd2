/* cpu_vsdiv.h - uint8, int8 and int16 //, % and the truncating division of contiguous
 * rows at the level's width (Note [small integer rows] in cpu_vsmall.h, which includes
 * this file).  Every value is the int32 route's: d = 0 gives 0 (and % -1 gives 0), as
 * cpu_elementwise.c's scalar forms (Note [integer division by zero]), and MIN // -1 wraps
 * when narrowed.
 *
 * Two rows of divisors (or one dividend and a row of divisors), in float32 lanes: q = x /
 * d rounded once is within 2^-24 |q| of the real quotient, and a quotient that is not an
 * integer lies at least 1 / |d| from every integer, which is more (|x| < 2^16), so the
 * conversion's truncation of q is the real quotient's; r = x - q d is exact (below 2^24).
 * Floor division and Python's remainder then step as the scalar forms.  No division
 * instruction per element but the lanes': 2e4 uint8 // uint8 took 12-16 us widened into
 * the int32 rows, 6.0 (AVX-512) and 15.6 (AVX2) so, NumPy's 22 and 28.
 *
 * Note [small integer division by one divisor]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * x // 7 still took a vector division a lane through the rows above, and conversions to
 * float32 and back: 2e4 uint8 8.4 us, int16 10-18, on an AVX2 EPYC (NumPy's 1.9 and 4.6:
 * its division by one divisor multiplies).  The divisor d is known before the row, and
 * the quotient of |x| by b = |d| >= 2 is a multiply's high half in 16-bit lanes (the sign
 * put back after; b = 1 is x d, and d = 0 gives 0):
 *   - uint8, int8: with m = ceil(2^16 / b) = 2^16 / b + e, 0 <= e < 1 (m <= 2^15, b <=
 *     256), (|x| m) >> 16 = floor(|x| / b + |x| e 2^-16), where |x| e 2^-16 < 2^-8 <= 1 / b
 *     (|x| <= 255) while the fraction of |x| / b is at most 1 - 1 / b: it is trunc(|x| /
 *     b).
 *   - int16 (|x| <= 2^15 < 2^16, b <= 2^15): Granlund and Montgomery's division by an
 *     invariant integer (PLDI 1994, section 4, figure 4.1) with N = 16, l = ceil(log2 b),
 *     m = floor(2^16 (2^l - b) / b) + 1 < 2^16: t = (|x| m) >> 16, then (t + (|x| - t) /
 *     2) >> (l - 1).  Every (x, b) was checked against Python's // before it went in.
 * Floor division and the remainder take the quotient of |x| or |x| - 1 with the sign put
 * back (PDT_DIVC_FLOOR in cpu_simd.h: no product back), the remainder x - floor(x / d) d
 * wrapped in 16 bits. */

#include "pdt_backend.h" /* PDT_OP_FLOOR_DIV, PDT_OP_REMAINDER, PDT_OP_TRUNC_DIV */

/* trunc(x / d), 0 for d = 0; no branch and no conditional division (GCC keeps a division
 * under a condition as control flow, for -ftrapping-math, and the loop unvectorised) */
static inline float pdt_small_q(float x, float d)
{
    const float nz = (float)(d != 0.0f);
    return (float)(int32_t)(x / (d + 1.0f - nz)) * nz;
}
static inline float pdt_small_truncdiv(float x, float d) { return pdt_small_q(x, d); }
static inline float pdt_small_floordiv(float x, float d)
{
    const float q = pdt_small_q(x, d), r = (x - q * d) * (float)(d != 0.0f);
    return r != 0.0f && ((r < 0.0f) != (d < 0.0f)) ? q - 1.0f : q;
}
static inline float pdt_small_remainder(float x, float d)
{
    const float q = pdt_small_q(x, d), r = (x - q * d) * (float)(d != 0.0f);
    return r != 0.0f && ((r < 0.0f) != (d < 0.0f)) ? r + d : r;
}

/* trunc(x / d) for |x| <= 255, d = b or -b (dn = 0 or -1) with b in [2, 256], m =
 * ceil(2^16 / b): Note [small integer division by one divisor] */
static inline uint16_t pdt_small_qu8(uint16_t a, uint16_t m) /* a / b, a <= 256 */
{
    return (uint16_t)(((uint32_t)a * m) >> 16);
}
static inline int16_t pdt_small_tq8(int16_t x, int16_t dn, uint16_t m)
{
    const int16_t xs = (int16_t)(x >> 15), s = (int16_t)(xs ^ dn);
    const int16_t q = (int16_t)pdt_small_qu8((uint16_t)((x ^ xs) - xs), m);
    return (int16_t)((q ^ s) - s);
}
/* trunc(x / d) for int16 x, d = b or -b (dn = 0 or -1) with b in [2, 2^15], l = ceil(log2
 * b), m = floor(2^16 (2^l - b) / b) + 1 and sh = l - 1: Note [small integer division by
 * one divisor] */
static inline uint16_t pdt_small_qu16(uint16_t a, uint16_t m, int sh) /* a / b, a <= 2^15 */
{
    const uint16_t t = (uint16_t)(((uint32_t)a * m) >> 16);
    return (uint16_t)((uint16_t)(t + (uint16_t)(a - t) / 2) >> sh);
}
static inline int16_t pdt_small_tq16(int16_t x, int16_t dn, uint16_t m, int sh)
{
    const int16_t xs = (int16_t)(x >> 15), s = (int16_t)(xs ^ dn);
    const int16_t q = (int16_t)pdt_small_qu16((uint16_t)((x ^ xs) - xs), m, sh);
    return (int16_t)((q ^ s) - s);
}

/* GCC knows the range of a multiplier computed from a small divisor, finds the product
 * fits 32-bit lanes and multiplies in them; hidden, the product's high half of 16-bit
 * lanes is taken (pmulhuw), twice as many a vector */
#define VS_HIDE_RANGE(v) __asm__("" : "+r"(v))
/* The rows by one divisor (PDT_DIVC_TRIVIAL and PDT_DIVC_FLOOR in cpu_simd.h), the
 * quotient in int16 lanes.  p may be x (an in-place op): no restrict, GCC's alias check
 * lets equal addresses take the vector loop. */
#define VS_DIVC8(SN, T)                                                                            \
    static void VM(divc_##SN)(T * p, const T *x, int32_t d, int64_t n, int op)                     \
    {                                                                                              \
        PDT_DIVC_TRIVIAL(T, uint32_t)                                                              \
        const int16_t dn = (int16_t)(d < 0 ? -1 : 0);                                             \
        const uint32_t b = (uint32_t)(d < 0 ? -d : d);                                             \
        uint16_t m = (uint16_t)((65535u + b) / b);                                                 \
        VS_HIDE_RANGE(m);                                                                          \
        if (op == PDT_OP_TRUNC_DIV) {                                                              \
            for (int64_t i = 0; i < n; i++)                                                        \
                p[i] = (T)pdt_small_tq8((int16_t)x[i], dn, m);                                     \
            return;                                                                                \
        }                                                                                          \
        PDT_DIVC_FLOOR(T, uint16_t, uint32_t, VS_QU8)                                              \
    }
#define VS_QU8(a) pdt_small_qu8((uint16_t)(a), m)
VS_DIVC8(u8, uint8_t)
VS_DIVC8(i8, int8_t)
#undef VS_QU8
static void VM(divc_i16)(int16_t *p, const int16_t *x, int32_t d, int64_t n, int op)
{
    PDT_DIVC_TRIVIAL(int16_t, uint32_t)
    const int16_t dn = (int16_t)(d < 0 ? -1 : 0);
    int sh;
    uint16_t m = (uint16_t)pdt_divc_magic((uint32_t)(d < 0 ? -d : d), 16, &sh);
    VS_HIDE_RANGE(m);
    VS_HIDE_RANGE(sh);
    /* sh < 16, said again: with no range, GCC shifted int-promoted lanes, widened to 32
     * bits and packed back (vpmovzxwd, vpsrad, vpand, vpackusdw, vpermq: 8 instructions
     * more a vector at AVX2); below 16 it shifts the 16-bit lanes (vpsrlw).  x // 7 of
     * 1e6 int16, one thread, AVX2 EPYC: 151 -> 58 us (NumPy 86-91). */
    sh &= 15;
    if (op == PDT_OP_TRUNC_DIV) {
        for (int64_t i = 0; i < n; i++)
            p[i] = pdt_small_tq16(x[i], dn, m, sh);
        return;
    }
#define VS_QU16(a) pdt_small_qu16((uint16_t)(a), m, sh)
    PDT_DIVC_FLOOR(int16_t, uint16_t, uint32_t, VS_QU16)
#undef VS_QU16
}

/* mode as VB_ROW's: 1, a is one value; 2, b is (the rows above) */
#define VS_DIV_ROW(NAME, T, SN, F, OP)                                                             \
    static void VM(NAME)(char *o, const char *a, const char *b, int64_t n, int mode)               \
    {                                                                                              \
        T *const p = (T *)o; /* may be a: no restrict */                                           \
        const T *x = (const T *)a, *y = (const T *)b;                                              \
        if (mode == 1) {                                                                           \
            const float s = (float)x[0];                                                           \
            for (int64_t i = 0; i < n; i++)                                                        \
                p[i] = (T)(int32_t)F(s, (float)y[i]);                                              \
        } else if (mode == 2) {                                                                    \
            VM(divc_##SN)(p, x, (int32_t)y[0], n, OP);                                             \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                p[i] = (T)(int32_t)F((float)x[i], (float)y[i]);                                    \
        }                                                                                          \
    }
#define VS_DIV_ROWS(SN, T)                                                                         \
    VS_DIV_ROW(floordiv_row_##SN, T, SN, pdt_small_floordiv, PDT_OP_FLOOR_DIV)                     \
    VS_DIV_ROW(remainder_row_##SN, T, SN, pdt_small_remainder, PDT_OP_REMAINDER)                   \
    VS_DIV_ROW(truncdiv_row_##SN, T, SN, pdt_small_truncdiv, PDT_OP_TRUNC_DIV)
VS_DIV_ROWS(u8, uint8_t)
VS_DIV_ROWS(i8, int8_t)
VS_DIV_ROWS(i16, int16_t)
