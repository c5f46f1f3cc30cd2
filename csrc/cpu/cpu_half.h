/* cpu_half.h - contiguous float16 <-> float32 conversion (cpu_half.c): the
 * same bits as pdt_half.h, faster where the processor has F16C. */
#ifndef PDT_CPU_HALF_H
#define PDT_CPU_HALF_H

#include <stdint.h>

/* dst[i] = src[i] for i < n: exact */
void pdt_cpu_f16_to_f32(float *dst, const uint16_t *src, int64_t n);
/* dst[i] = src[i] rounded to nearest, ties to even, for i < n */
void pdt_cpu_f32_to_f16(uint16_t *dst, const float *src, int64_t n);

#endif /* PDT_CPU_HALF_H */
