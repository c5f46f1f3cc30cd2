/* cpu_simd_avx512.c - the kernels for AVX-512 F, VL, DQ and BW (x86-64-v4)
 * (Note [CPU dispatch levels] in cpu_simd.h). */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma,bmi,bmi2,f16c,movbe")
#define PDT_SIMD_LEVEL avx512
#define PDT_SIMD_BYTES 64
#define PDT_SIMD_FMA 1
#include "cpu_vmath.h"
#else
typedef int pdt_cpu_simd_avx512_unused; /* not an x86-64 build */
#endif
