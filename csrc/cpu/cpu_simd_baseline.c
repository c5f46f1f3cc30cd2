/* cpu_simd_baseline.c - the kernels for x86-64's baseline (SSE2), and for any
 * other processor (Note [CPU dispatch levels] in cpu_simd.h). */
#define PDT_SIMD_LEVEL baseline
#define PDT_SIMD_BYTES 16
#define PDT_SIMD_FMA 0
#include "cpu_vmath.h"
