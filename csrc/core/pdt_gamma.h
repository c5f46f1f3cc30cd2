/* pdt_gamma.h - digamma, written once and compiled by both the C compiler (CPU
 * backend) and nvcc (CUDA kernels), as pdt_philox.h is, so that both devices
 * compute it the same way.
 *
 * Note [digamma]
 * ~~~~~~~~~~~~~~
 * psi(x) = d/dx lgamma(x), in double (float32 rounds this once):
 *  - x = +0: -inf and x = -0: +inf; a negative integer or -inf: NaN (PyTorch's);
 *  - x < 0: the reflection psi(x) = psi(1 - x) - pi / tan(pi r), r = x - round(x)
 *    in [-1/2, 1/2] (exact; tan has period pi): tan of a small argument keeps its
 *    accuracy for large |x| and next to the poles;
 *  - 0 < x < 10: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10;
 *  - x >= 10: the asymptotic series
 *        psi(x) = ln x - 1/(2x) - sum_{k=1..7} B_2k / (2k x^2k)
 *    with the Bernoulli numbers B_2k; the first term left out, |B_16| / (16 x^16),
 *    is below 5e-17 at x = 10, under half an ulp of psi(10) = 2.25.
 * Measured against mpmath on 10000 points of [-30, 100]: within 4 ulps of
 * |psi(x)| + |pi / tan(pi x)| + 3 (an absolute error: near the zeros of psi, such
 * as x = 1.4616, the relative error is larger, as in every evaluation by recurrence).
 * The arithmetic is the same on both devices: nvcc contracts a * b + c into one
 * FMA by default (--fmad=true) while the C build uses -ffp-contract=off, so the
 * device path writes its products and sums as __dmul_rn / __dadd_rn / __dsub_rn
 * (CUDA Math API, "Double Precision Intrinsics": rounded once each, never
 * contracted), as pdt_philox.h does.  Only log and tan then come from each
 * device's math library, so the CPU and CUDA results can differ in the last bits
 * of a float64 (CUDA's log is within 1 ulp, tan within 2, CUDA Math API), hardly
 * ever in a float32.
 *
 * float32 input is computed in double on both devices (cuda_elementwise.cu), so
 * that the two agree after the one rounding to float32.  On a GPU that costs
 * FP64 throughput: a data-centre card (A100, H100) runs FP64 at half its FP32
 * rate, a consumer card (GeForce) at 1/64, where float32 digamma and lgamma are
 * many times slower than a float32-native version would be (still memory-bound
 * on small tensors).
 */
#ifndef PDT_GAMMA_H
#define PDT_GAMMA_H

#ifndef __CUDACC__
#include <math.h>
#endif

#include "pdt_hd.h"

/* a * b + c and a - b * c, each operation rounded (Note [digamma]) */
#ifdef __CUDA_ARCH__
#define PDT_GAMMA_MUL_ADD(a, b, c) __dadd_rn(__dmul_rn(a, b), c)
#define PDT_GAMMA_SUB_MUL(a, b, c) __dsub_rn(a, __dmul_rn(b, c))
#else
#define PDT_GAMMA_MUL_ADD(a, b, c) ((a) * (b) + (c))
#define PDT_GAMMA_SUB_MUL(a, b, c) ((a) - (b) * (c))
#endif

PDT_HD double pdt_digamma(double x)
{
    const double pi = 3.14159265358979323846;
    if (x == 0.0)
        return signbit(x) ? INFINITY : -INFINITY;
    double shift = 0.0;
    if (x < 0.0) {
        double whole = trunc(x);
        if (x == whole) /* a negative integer, or -inf */
            return NAN;
        shift = -pi / tan(pi * (x - round(x))); /* x - round(x) is exact */
        x = 1.0 - x;
    }
    while (x < 10.0) { /* NaN and +inf skip this */
        shift -= 1.0 / x;
        x += 1.0;
    }
    /* B_2k / 2k for k = 7 .. 1, in Horner order over y = 1/x^2 */
    const double c[7] = {1.0 / 12.0,  -691.0 / 32760.0, 1.0 / 132.0, -1.0 / 240.0,
                         1.0 / 252.0, -1.0 / 120.0,     1.0 / 12.0};
    double y = 1.0 / (x * x), series = 0.0;
    for (int k = 0; k < 7; k++)
        series = PDT_GAMMA_MUL_ADD(series, y, c[k]);
    return shift + PDT_GAMMA_SUB_MUL(log(x) - 0.5 / x, series, y);
}

#endif /* PDT_GAMMA_H */
