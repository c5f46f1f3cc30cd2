/* cpu_erfinv.h - the inverse error function in double, for the CPU backend's erfinv rows
 * (cpu_unary.c).  CUDA has its own (erfinv, erfinvf: cuda_elementwise.cu).
 *
 * Note [erfinv]
 * erfinv(y) is the x with erf(x) = y, for y in [-1, 1]: ±1 give ±inf, |y| > 1 and NaN
 * give NaN, ±0 give ±0 (as in PyTorch and SciPy).  A first guess from M. Giles's
 * single-precision polynomials in w = -log((1 - y)(1 + y)) ("Approximating the erfinv
 * function", GPU Computing Gems, 2011; relative error about 1e-7 where float32 reaches),
 * then two Halley steps on erf (cubic convergence: 1e-7 -> 1e-21, below double's
 * rounding); past float32's reach (1 - |y| < 2^-24), a guess from erfc's asymptotics
 * instead and steps until they stop moving.  For |y| > 0.5 the steps solve erfc(t) = 1 - |y| instead, whose right side
 * is exact there (Sterbenz), so that the digits of y close to 1 are not lost in
 * erf(x) - y.  float32 goes through this and is rounded once.  Measured against mpmath's
 * erfinv: within 1 ulp in float64, 0.5 ulp plus the final rounding in float32
 * (tests/test_trig.py). */
#ifndef CPU_ERFINV_H
#define CPU_ERFINV_H

#include <math.h>

static inline double pdt_erfinv_guess(double y)
{
    double w = -log((1.0 - y) * (1.0 + y)), p;
    if (w < 5.0) {
        w -= 2.5;
        p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w;
        p = -3.5233877e-06 + p * w;
        p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w;
        p = -0.00125372503 + p * w;
        p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w;
        p = 1.50140941 + p * w;
    } else {
        w = sqrt(w) - 3.0;
        p = -0.000200214257;
        p = 0.000100950558 + p * w;
        p = 0.00134934322 + p * w;
        p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w;
        p = -0.0076224613 + p * w;
        p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w;
        p = 2.83297682 + p * w;
    }
    return p * y;
}

static inline double pdt_erfinv(double y)
{
    const double two_over_sqrt_pi = 1.1283791670955126;
    if (isnan(y) || y > 1.0 || y < -1.0)
        return NAN;
    if (y == 1.0 || y == -1.0)
        return y * INFINITY;
    if (y == 0.0)
        return y; /* keeps the sign of a zero */
    double x = pdt_erfinv_guess(y);
    if (fabs(y) <= 0.5) {
        for (int k = 0; k < 2; k++) { /* Halley on erf(x) - y */
            const double u = (erf(x) - y) / (two_over_sqrt_pi * exp(-x * x));
            x -= u / (1.0 + x * u);
        }
        return x;
    }
    const double r = 1.0 - fabs(y); /* exact for |y| in [0.5, 1] */
    double t = fabs(x);
    if (r < 0x1p-24) { /* past float32's reach: erfc's asymptotics, t^2 = -log(r t sqrt(pi)) */
        t = sqrt(-log(r));
        t = sqrt(-log(r * t * 1.7724538509055159));
    }
    /* Halley on erfc(t) - r: two steps where the polynomial holds (1 - |y| >= 2^-24,
     * float32's reach); beyond it, from the asymptotic guess (within 1e-3), until a step is
     * below 2^-52 of t (at most ten) */
    for (int k = 0; k < 10; k++) {
        const double v = (erfc(t) - r) / (two_over_sqrt_pi * exp(-t * t));
        const double step = v / (1.0 - t * v);
        t += step;
        if ((k >= 1 && r >= 0x1p-24) || fabs(step) <= 0x1p-52 * t)
            break;
    }
    return copysign(t, y);
}

#endif
