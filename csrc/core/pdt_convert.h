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

#endif /* PDT_CONVERT_H */
