/* check_vtanh_table.c - runs AVX-512's float32 tanh (Note [tanh by a table of polynomials]
 * in csrc/cpu/cpu_vmathf.h) over all 2^32 floats, after tools/gen_vtanh_table.py has
 * written a new table, and prints its largest error in ulps against the C library's double
 * tanh, whether it ever exceeds 1 in magnitude or decreases, and whether it gives the bits
 * of a plain scalar evaluation of the same table.  About two minutes on one core; needs a
 * processor with AVX-512:
 *
 *     gcc -O2 -ffp-contract=off -Icsrc/cpu -Icsrc/core tools/check_vtanh_table.c -lm \
 *         -o /tmp/check_vtanh && /tmp/check_vtanh
 */
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PDT_SIMD_LEVEL check
#define PDT_SIMD_BYTES 64
#define PDT_SIMD_FMA 1
#include "cpu_vmath.h"

/* The same table evaluated one float at a time, as the Note describes it. */
static float scalar_tanh(float x)
{
    float ax = fabsf(x);
    ax = ax > PDT_TANH_CLAMP ? PDT_TANH_CLAMP : ax; /* NaN stays NaN */
    uint32_t u;
    memcpy(&u, &ax, 4);
    int32_t j = (int32_t)(u >> 21) - PDT_TANH_BASE;
    j = (j < 0 ? 0 : j) & 31;
    float y = ax - pdt_tanh_table[0][j];
    float p = __builtin_fmaf(pdt_tanh_table[6][j], y, pdt_tanh_table[5][j]);
    for (int c = 4; c >= 1; c--)
        p = __builtin_fmaf(p, y, pdt_tanh_table[c][j]);
    return copysignf(p, x);
}

static double ulps(float got, double want)
{
    float w32 = (float)want;
    double spacing = (double)nextafterf(fabsf(w32), INFINITY) - fabsf(w32);
    return fabs((double)got - want) / (spacing > 0x1p-149 ? spacing : 0x1p-149);
}

int main(void)
{
    enum { B = 4096 };
    static float x[B], got[B];
    double worst = 0;
    float worst_x = 0, prev = 0;
    long other_bits = 0, above_one = 0, decreasing = 0;
    for (uint64_t u0 = 0; u0 < (1ull << 32); u0 += B) {
        for (int k = 0; k < B; k++) {
            uint32_t u = (uint32_t)(u0 + (uint64_t)k);
            memcpy(&x[k], &u, 4);
        }
        VM(tanh_row)(got, x, B);
        for (int k = 0; k < B; k++) {
            if (isnan(x[k])) {
                other_bits += !isnan(got[k]);
                continue;
            }
            float s = scalar_tanh(x[k]);
            other_bits += memcmp(&s, &got[k], 4) != 0;
            above_one += fabsf(got[k]) > 1.0f;
            if (u0 + (uint64_t)k < 0x7f800000u) { /* +0 up to +inf, in order */
                decreasing += got[k] < prev;
                prev = got[k];
            }
            double e = ulps(got[k], tanh((double)x[k]));
            if (e > worst) {
                worst = e;
                worst_x = x[k];
            }
        }
    }
    printf("largest error %.4f ulp at x = %a; other bits than the scalar evaluation: %ld; "
           "|tanh| > 1: %ld; decreasing steps over [0, inf): %ld\n",
           worst, worst_x, other_bits, above_one, decreasing);
    return other_bits || above_one || decreasing || worst > 1.0;
}
