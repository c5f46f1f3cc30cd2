/* cpu_half.c - float16 <-> float32 rows for the CPU backend's casts, with x86's
 * F16C instructions where the processor has them (checked once at run time;
 * the rest of the build does not assume them), else pdt_half.h's scalar code.
 *
 * F16C's VCVTPH2PS is exact, and VCVTPS2PH with immediate 0 rounds to nearest,
 * ties to even, as IEEE 754-2008 binary16 conversion (Intel SDM, "VCVTPS2PH");
 * NaNs come out quiet with the sign and the top payload bits kept, as Note
 * [half precision] says.  So both paths give the same bits (tests/test_half.py
 * checks every float16 and the ties of float32 -> float16), except that a
 * signalling float16 NaN widens to a quiet float32 NaN through F16C and to a
 * signalling one through the scalar code: a NaN with the same payload either way. */
#include "cpu_half.h"

#include "pdt_half.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PDT_HAVE_F16C_PATH 1

__attribute__((target("avx,f16c"))) static void f16_to_f32_f16c(float *d, const uint16_t *s,
                                                                int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + i))));
    for (; i < n; i++)
        d[i] = pdt_f16_to_f32(s[i]);
}

__attribute__((target("avx,f16c"))) static void f32_to_f16_f16c(uint16_t *d, const float *s,
                                                                int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(d + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; i++)
        d[i] = pdt_f32_to_f16(s[i]);
}

static int have_f16c(void)
{
    static int known = -1; /* a benign race: every thread computes the same answer */
    if (known < 0)
        known = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
    return known;
}
#endif

void pdt_cpu_f16_to_f32(float *dst, const uint16_t *src, int64_t n)
{
#ifdef PDT_HAVE_F16C_PATH
    if (have_f16c()) {
        f16_to_f32_f16c(dst, src, n);
        return;
    }
#endif
    for (int64_t i = 0; i < n; i++)
        dst[i] = pdt_f16_to_f32(src[i]);
}

void pdt_cpu_f32_to_f16(uint16_t *dst, const float *src, int64_t n)
{
#ifdef PDT_HAVE_F16C_PATH
    if (have_f16c()) {
        f32_to_f16_f16c(dst, src, n);
        return;
    }
#endif
    for (int64_t i = 0; i < n; i++)
        dst[i] = pdt_f32_to_f16(src[i]);
}
