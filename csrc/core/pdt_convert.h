/* pdt_convert.h - float to integer conversion with one set of rules for every
 * device, compiled by both the C compiler and nvcc.
 *
 * Note [float to int]
 * ~~~~~~~~~~~~~~~~~~~
 * C leaves (int)x undefined for NaN and out-of-range x, and the hardware
 * disagrees: x86 gives INT_MIN for all of them, the GPU's cvt.rzi saturates.
 * We saturate everywhere: NaN -> 0, x >= MAX -> MAX, x <= MIN -> MIN, else
 * truncation toward zero.  This is what the GPU does natively, and the CPU
 * pays two compares.  Bool is x != 0 (NaN -> true), as C's _Bool.
 *
 * Note [float to small int]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * PyTorch leaves a float outside uint8's (int8's, int16's) range undefined; its
 * CPU builds happen to go through int32 and keep the low bits.  We define it, the
 * same on every device: the float converts to int64 as above (truncation, NaN ->
 * 0, saturation beyond +-2^63), and the result wraps into the small type (its
 * low 8 or 16 bits, two's complement).  So 300.0 -> uint8 is 44, -1.0 is 255,
 * -200.0 -> int8 is 56, as in PyTorch on the CPU; and NaN is 0.
 */
#ifndef PDT_CONVERT_H
#define PDT_CONVERT_H

#include <stdint.h>

#include "pdt_hd.h"

PDT_HD int32_t pdt_f64_to_i32(double v)
{
    if (v != v)
        return 0;
    if (v >= 2147483647.0)
        return INT32_MAX;
    if (v <= -2147483648.0)
        return INT32_MIN;
    return (int32_t)v;
}

PDT_HD int64_t pdt_f64_to_i64(double v)
{
    if (v != v)
        return 0;
    if (v >= 0x1p63)
        return INT64_MAX;
    if (v <= -0x1p63)
        return INT64_MIN;
    return (int64_t)v;
}

/* Note [float to small int]; the integer conversions wrap (gcc, clang and nvcc keep
 * the low bits, and the unsigned step makes the value fit the signed type's width). */
PDT_HD uint8_t pdt_f64_to_u8(double v) { return (uint8_t)(uint64_t)pdt_f64_to_i64(v); }
PDT_HD int8_t pdt_f64_to_i8(double v) { return (int8_t)(uint8_t)(uint64_t)pdt_f64_to_i64(v); }
PDT_HD int16_t pdt_f64_to_i16(double v) { return (int16_t)(uint16_t)(uint64_t)pdt_f64_to_i64(v); }

#endif /* PDT_CONVERT_H */
