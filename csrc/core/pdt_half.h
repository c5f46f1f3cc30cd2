/* pdt_half.h - float16 and bfloat16 to and from float32 and float64, written
 * once for every device: compiled by the C compiler (core, CPU backend), by
 * nvcc (the CUDA kernels) and by the host C++ compiler (the emulated device),
 * so that a conversion gives the same bits everywhere.
 *
 * Note [half precision]
 * ~~~~~~~~~~~~~~~~~~~~~
 * float16 is IEEE 754-2008 binary16 (IEEE Std 754-2008, 3.6, table 3.5): a
 * sign bit, 5 exponent bits with bias 15 and 10 fraction bits; subnormals
 * below 2^-14 (the smallest is 2^-24), the largest finite value 65504.
 * bfloat16 ("brain floating point", Google; Intel's "BFLOAT16 - Hardware
 * Numerics Definition", 2018) is the upper half of a binary32: a sign bit, 8
 * exponent bits with bias 127 and 7 fraction bits, so it has float32's range
 * with 8 bits of precision.  We keep its subnormals (as PyTorch and NumPy's
 * ml_dtypes do; Intel's definition flushes them).
 *
 * Both are stored as uint16_t bits.  Conversions to float32 are exact.
 * Conversions from float32 round to nearest, ties to even (IEEE 754-2008,
 * 4.3.1, roundTiesToEven), the default rounding of every binary format:
 * values at or beyond the largest finite value plus half an ulp become
 * infinity, and values below half the smallest subnormal become a signed
 * zero.  NaN stays NaN (quiet, sign kept, the payload's top bits kept).
 *
 * float64 -> half rounds once too: float64 is first rounded to float32 with
 * round-to-odd (truncate, and set the last bit if anything was cut off), then
 * to the half type with ties to even.  Round-to-odd to a format with at least
 * two more bits than the target makes the second rounding give the correctly
 * rounded result (Boldo and Melquiond, "Emulation of FMA and correctly rounded
 * sums: proved algorithms using rounding to odd", IEEE Trans. Computers 57(4),
 * 2008); float32 has 24 bits against float16's 11 and bfloat16's 8.  NumPy
 * converts float64 to float16 directly with the same result.
 *
 * Note [half precision arithmetic]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * No kernel does arithmetic in a half type: every op converts its half inputs
 * to float32 (exactly), computes in float32 (reductions accumulate in float32
 * or float64) and rounds the result to the half type once.  The core does the
 * widening for the elementwise ops, reductions, sort and cumsum (pdt_compute_
 * dtype() in pdt_dtype.h), so every backend computes the same float32 values;
 * matrix products take half operands and accumulate in float32 (cuBLAS with
 * CUBLAS_COMPUTE_32F; the CPU converts to float32 and runs sgemm).  Bounds:
 * an elementwise result is within one half-precision rounding (u = 2^-11 for
 * float16, 2^-8 for bfloat16, relative) of the float32 result, which is itself
 * within float32's accuracy of the exact one; see Note [half precision matmul]
 * in pdt_matmul.c for the products.  Negation and abs are not arithmetic: Note
 * [half sign bit].
 *
 * Note [half sign bit]
 * ~~~~~~~~~~~~~~~~~~~~
 * IEEE 754-2008 (5.5.1, "Sign bit operations") defines negate(x) and abs(x) as
 * copies of x with the sign bit flipped or cleared, quiet, for every x, a NaN's
 * payload and a signalling NaN included.  So the core negates a float16 or
 * bfloat16 x and takes its abs in x's own bits, as an int16 (x ^ 0x8000,
 * x & 0x7fff) on every device, with no float32 round trip (pdt_unary in
 * pdt_elementwise_unary.c): the bits the float32 and float64 rows give (fabs, a flipped
 * sign bit) and NumPy's float16 gives, and five times faster at 1e5 on the CPU.
 * The round trip quietened a signalling NaN; PyTorch's CPU gives 0x7e00 for any
 * NaN.
 */
#ifndef PDT_HALF_H
#define PDT_HALF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pdt_convert.h" /* PDT_HD: host and device */

PDT_HD uint32_t pdt_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

PDT_HD float pdt_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- float16 ---- */

PDT_HD float pdt_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    if (exp == 0x1f) /* infinity, or NaN with its payload */
        return pdt_f32_from_bits(sign | 0x7f800000u | (man << 13));
    if (exp == 0) { /* zero or subnormal: man * 2^-24, exact in float32 */
        float v = (float)man * 0x1p-24f;
        return sign ? -v : v;
    }
    return pdt_f32_from_bits(sign | ((exp + 112u) << 23) | (man << 13));
}

PDT_HD uint16_t pdt_f32_to_f16(float f)
{
    uint32_t x = pdt_f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) /* NaN: quiet, sign and top payload bits kept */
        return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    if (ax >= 0x47800000u) /* >= 65536 (or infinity): beyond every rounding */
        return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) {   /* below 2^-14: a subnormal or zero */
        if (ax < 0x33000000u) /* at most 2^-25: zero (2^-25 is a tie, to even 0) */
            return sign;
        /* |f| = m * 2^(e-150); in units of 2^-24 that is m >> (126 - e) */
        uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e; /* 14..24 */
        uint32_t q = m >> shift, rem = m & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
        if (rem > halfway || (rem == halfway && (q & 1u)))
            q++; /* may carry into the smallest normal, 0x0400: still right */
        return (uint16_t)(sign | q);
    }
    /* normal: rebias the exponent (127 -> 15) and round away 13 fraction bits;
     * a carry goes into the exponent, and from 65504 up to infinity */
    uint32_t base = (ax - (112u << 23)) >> 13, rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (base & 1u)))
        base++;
    return (uint16_t)(sign | base);
}

/* ---- bfloat16 ---- */

PDT_HD float pdt_bf16_to_f32(uint16_t b) { return pdt_f32_from_bits((uint32_t)b << 16); }

PDT_HD uint16_t pdt_f32_to_bf16(float f)
{
    uint32_t x = pdt_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) /* NaN: quiet, sign and top payload bits kept */
        return (uint16_t)((x >> 16) | 0x0040u);
    /* ties to even: add 0x7fff, plus one more when the kept part is odd; a
     * carry rounds up into the exponent, and past the largest value to inf */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

/* ---- from float64: Note [half precision], round to odd first ---- */

/* d rounded to float32 by round to odd: the truncation, its last bit set when inexact.
 * Branch-free, so that a row of it vectorises (cpu_kernels.c's float64 -> float16 cast):
 * a NaN and an exact d come back as (float)d, an infinite (float)d of a finite d as the
 * largest float (the truncation) with its odd bit, which it has. */
PDT_HD float pdt_f64_to_f32_odd(double d)
{
    float f = (float)d;
    double back = (double)f;
    uint32_t b = pdt_f32_bits(f);
    b -= (uint32_t)(fabs(back) > fabs(d)); /* rounded away from zero: one ulp less */
    b |= (uint32_t)(back != d && d == d);  /* inexact: the sticky bit */
    return pdt_f32_from_bits(b);
}

PDT_HD uint16_t pdt_f64_to_f16(double d) { return pdt_f32_to_f16(pdt_f64_to_f32_odd(d)); }
PDT_HD uint16_t pdt_f64_to_bf16(double d) { return pdt_f32_to_bf16(pdt_f64_to_f32_odd(d)); }

#endif /* PDT_HALF_H */
