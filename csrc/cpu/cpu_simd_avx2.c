/* cpu_simd_avx2.c - the kernels for AVX2 with FMA (x86-64-v3).  -ffp-contract=off
 * keeps every multiply and add of the arithmetic separate; only the float32
 * functions use FMA, written out (Note [CPU dispatch levels] in cpu_simd.h,
 * Note [float32 evaluation with FMA] in cpu_vmathf.h). */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2,fma,bmi,bmi2,f16c,movbe")
#define PDT_SIMD_LEVEL avx2
#define PDT_SIMD_BYTES 32
#define PDT_SIMD_FMA 1
#include "cpu_vmath.h"
#else
typedef int pdt_cpu_simd_avx2_unused; /* not an x86-64 build */
#endif
