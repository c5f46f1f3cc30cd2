/* cpu_vgelu.h - the exact float32 GELU and its derivative over rows, in double
 * lanes at every instruction-set level (included by cpu_vmath.h after
 * cpu_verf.h, once per level).
 *
 * Note [float32 gelu]
 * ~~~~~~~~~~~~~~~~~~~~
 * gelu(x) = x/2 erfc(-x / sqrt(2)) (PyTorch's approximate='none') was four passes
 * over the data (a product, erfc, two products), 0.72 ms for 262,144 float32 on one
 * core, and its backward, composed by autograd from erfc's derivative, several more.
 * Here each is one pass.  x is widened to double, z = -x / sqrt(2) formed there,
 * erfc(z) evaluated as Note [float32 erf and erfc] evaluates it (z P(z^2) below
 * a = |z| = 1; exp(-a^2) R(t) above), times x / 2, and rounded once to float32.
 * erfc's R is used up to a = 10.6, 5% past the end of its fit (10.1, where erfc
 * alone reaches the subnormals but x/2 erfc does not: gelu(-14.29) is 1.4 times
 * 2^-149), measured 7.8e-11 relative there against math.erfc; past 10.6 the
 * result is below 2^-160 and is 0 (-0 for the negative x).  The double value is
 * within 1e-10 relative of the exact one, so the result is correctly rounded
 * but within that distance of a rounding boundary: 0.5 + 2^-9 ulp at most.
 * Measured against math.erfc on 1.8e6 inputs (uniform over [-15, 8] and over
 * 64 binades): at most 0.50004 ulp, 8 not correctly rounded (the composition
 * before: 196.6 ulp, 945,544 not correctly rounded).  Every level evaluates the
 * same double operations: the same bits.
 * gelu(+inf) is +inf and gelu(-inf) NaN (-inf times 0), as the composition gave;
 * NaN stays NaN.
 *
 * The derivative gelu'(x) = Phi(x) + x phi(x) = erfc(z) / 2 + x exp(-x^2 / 2) /
 * sqrt(2 pi) shares exp(-a^2) = exp(-x^2 / 2) with erfc: one exp an element,
 * in double, rounded once.  Its two terms cancel where it is 0 (x = -0.75179),
 * so there the bound is absolute: within 1 ulp + 1e-10 (Phi(x) + |x| phi(x))
 * (measured away from the root: 0.5001 ulp).
 *
 * CUDA (cuda_activation.cuh) evaluates the same formulas in double with the CUDA
 * Math API's erfc and exp (5 and 1 ulp of double), rounded once: within 0.5 +
 * 2^-25 ulp forward.  So the two devices agree within 1 ulp forward, and within
 * 1 ulp + 1e-10 (Phi + |x| phi) for the derivative (tests/test_gelu_fused.py).
 * float64 is the C library's (CUDA's) erfc and exp in the same formulas on both. */

#define VM_GELU_LAST 10.6 /* a = |z| past which the result is 0 */

/* erfc(z) for a double z, and exp(-z^2) into *ex (0 past VM_GELU_LAST). */
static inline double VM(gelu_erfc)(double z, double *ex)
{
    double a = fabs(z);
    int small = a < 1.0, past = !(a <= VM_GELU_LAST); /* NaN: past, replaced by the callers */
    double ac = small ? 1.0 : past ? VM_GELU_LAST : a;
    double e = z * VM(horner_d)(small ? z * z : 0.0, VM(erf_p), 9);
    double t = 2.0 / (2.0 + ac);
    double u = (t - 0.41597796143250687) * (1.0 / 0.25068870523415976);
    double x2 = small ? a * a : ac * ac;
    double ez = VM(exp_d_long)(-x2);
    double big = past ? 0.0 : ez * VM(horner_d)(u, VM(erfc_r), 13);
    *ex = past ? 0.0 : ez;
    return small ? 1.0 - e : (z < 0 ? 2.0 - big : big);
}

static inline float VM(gelu_f32)(float x)
{
    double y = (double)x, ex;
    double r = 0.5 * y * VM(gelu_erfc)(y * -0.70710678118654752440, &ex);
    return x != x ? x + x : (float)r;
}

static inline float VM(gelu_grad_f32)(float x)
{
    double y = (double)x, ex;
    double c = VM(gelu_erfc)(y * -0.70710678118654752440, &ex);
    double r = 0.5 * c + y * ex * 0.39894228040143267794; /* 1 / sqrt(2 pi) */
    return x != x ? x + x : (float)r;
}

/* gelu_row and gelu_grad_row: o[i] = F(a[i]) over a contiguous row */
#define VM_GELU_ROW(NAME, F)                                                                       \
    static void VM(NAME)(float *o, const float *a, int64_t n)                                      \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            o[i] = VM(F)(a[i]);                                                                    \
    }
VM_GELU_ROW(gelu_row, gelu_f32)
VM_GELU_ROW(gelu_grad_row, gelu_grad_f32)
#undef VM_GELU_ROW
