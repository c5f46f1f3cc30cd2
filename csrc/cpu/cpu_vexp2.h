/* cpu_vexp2.h - float32 exp2 (2^x) over rows (included by cpu_vmath.h after cpu_vmathf.h,
 * once per instruction-set level).
 *
 * Note [float32 exp2]
 * ~~~~~~~~~~~~~~~~~~~
 * exp2 was 2 ** x, the float32 pow of a scalar base (Note [float32 powers of a scalar base]
 * in cpu_vpow.h): correctly rounded, in double lanes, 1.1 ns an element on one thread,
 * 1.7 to 2.6 times NumPy's exp2 (1e3 to 1e6 elements, AMD EPYC Zen 4, 2026-12-02;
 * NumPy's is a vector function within a few ulp).  It is its own op now (PDT_OP_EXP2),
 * evaluated as exp is (Note [float32 evaluation with FMA] in cpu_vmathf.h), and 2 ** x keeps
 * pow's correctly rounded bits:
 *   x is clamped to [-151, 129] (2^x rounds to 0 below -150 and to inf from 128), n =
 *   rint(x) by the 1.5 * 2^23 shift and r = x - n, exact, |r| <= 1/2; 2^r = 1 + r Q(r)
 *   rounded once by an FMA, Q of degree 5 fitted (least squares toward minimax on Chebyshev
 *   nodes, coefficients rounded to float one at a time and the rest refitted) to (2^r - 1)
 *   / r: 2^-28.3 relative to 2^r; then 2^n applied as 2^(n/2) 2^(n - n/2), the last
 *   product the only rounding of a subnormal or overflowing result (vscalefps at
 *   AVX-512: the same bits).  Lanes at or below -151 compute 2^0 and select +0 (the
 *   microcode assist of an underflowing product, Note [exp's underflow]).
 * Within 1 ulp (tests/test_vmath.py's dense sample of every float32 exponent at every
 * level, against NumPy's float64 exp2).  Measured over every float32 (a throwaway
 * harness, 2026-12-02): at the FMA levels (AVX2 and AVX-512 give the same bits) 0.800 ulp
 * for normal results (x = -0x1.ff2c82p-2) and 0.878 for subnormal ones (x =
 * -0x1.f9fc6ap+6: the scaling's second rounding); the baseline, which evaluates in double
 * (2^n e^(r ln2) by exp_d, 2^-30), 0.503.  An integer x gives 2^x exactly; NaN stays NaN,
 * -inf gives 0, inf gives inf.  CUDA's exp2f is within 2 ulp (CUDA Math API), so the
 * devices agree within 3.  One thread, 1e5 float32 (AMD EPYC Zen 4, 2026-12-02): 90 to
 * 110 us as the pow, 16.7 now (NumPy's exp2 21 to 34; two threads 8.8). */
#ifndef PDT_SIMD_LEVEL
#error "include cpu_vexp2.h from cpu_vmath.h"
#endif

#define VMF_EXP2_MIN -151.0f
#define VMF_EXP2_MAX 129.0f

#if PDT_SIMD_FMA
/* Q's coefficients from r^5 down to r^0 (about ln 2) */
#define VMF_EXP2_Q5 0x1.417a9ep-13f
#define VMF_EXP2_Q4 0x1.5f0948p-10f
#define VMF_EXP2_Q3 0x1.3b2dd2p-7f
#define VMF_EXP2_Q2 0x1.c6af7ap-5f
#define VMF_EXP2_Q1 0x1.ebfbdcp-3f
#define VMF_EXP2_Q0 0x1.62e43p-1f

static inline float VM(exp2_f)(float x)
{
    const int zero = x <= VMF_EXP2_MIN; /* false for NaN */
    float y = zero ? 0.0f : VM(clamp_f)(x, VMF_EXP2_MIN, VMF_EXP2_MAX);
    float t = y + VMF_SHIFT; /* rint(y) in t's low bits */
    float r = y - (t - VMF_SHIFT);
    float q = __builtin_fmaf(VMF_EXP2_Q5, r, VMF_EXP2_Q4);
    q = __builtin_fmaf(q, r, VMF_EXP2_Q3);
    q = __builtin_fmaf(q, r, VMF_EXP2_Q2);
    q = __builtin_fmaf(q, r, VMF_EXP2_Q1);
    q = __builtin_fmaf(q, r, VMF_EXP2_Q0);
    int32_t n = (int32_t)(VM(bits32)(t) - VM(bits32)(VMF_SHIFT)), n1 = n / 2;
    float e = (__builtin_fmaf(r, q, 1.0f) * VM(pow2_f)(n1)) * VM(pow2_f)(n - n1);
    return zero ? 0.0f : e;
}

#ifdef VMF_EXP16
/* exp2_f's operations on 16 lanes, the clamp and the scaling as exp16 has them (Note [exp
 * in AVX-512 lanes]): the same bits */
static inline __m512 VM(exp2_16)(__m512 x)
{
#define VMF_S(c) _mm512_set1_ps(c)
    const __mmask16 zero = _mm512_cmp_ps_mask(x, VMF_S(VMF_EXP2_MIN), _CMP_LE_OQ);
    __m512 y = _mm512_min_ps(VMF_S(VMF_EXP2_MAX), _mm512_max_ps(VMF_S(VMF_EXP2_MIN), x));
    y = _mm512_mask_mov_ps(y, zero, _mm512_setzero_ps());
    __m512 n = _mm512_sub_ps(_mm512_add_ps(y, VMF_S(VMF_SHIFT)), VMF_S(VMF_SHIFT));
    __m512 r = _mm512_sub_ps(y, n);
    __m512 q = _mm512_fmadd_ps(VMF_S(VMF_EXP2_Q5), r, VMF_S(VMF_EXP2_Q4));
    q = _mm512_fmadd_ps(q, r, VMF_S(VMF_EXP2_Q3));
    q = _mm512_fmadd_ps(q, r, VMF_S(VMF_EXP2_Q2));
    q = _mm512_fmadd_ps(q, r, VMF_S(VMF_EXP2_Q1));
    q = _mm512_fmadd_ps(q, r, VMF_S(VMF_EXP2_Q0));
    return _mm512_maskz_mov_ps((__mmask16)~zero,
                               _mm512_scalef_ps(_mm512_fmadd_ps(r, q, VMF_S(1.0f)), n));
#undef VMF_S
}
VMF_ROW16(exp2_row16, VM(exp2_16))
#endif
#else
/* the baseline: 2^n e^(r ln2) in double, n = rint(x) and r = x - n as above (an integer x
 * gives 2^n exactly, so -150's tie rounds to 0 as at the other levels) */
static inline float VM(exp2_f)(float x)
{
    double y = VM(clamp_d)((double)x, -160.0, 130.0), t = y + VM_SHIFT;
    return (float)(VM(exp_d)((y - (t - VM_SHIFT)) * 0x1.62e42fefa39efp-1) * VM(pow2_t)(t));
}
#endif

static void VM(exp2_row)(float *o, const float *a, int64_t n)
{
#ifdef VMF_EXP16
    VM(exp2_row16)(o, a, n);
#else
    for (int64_t i = 0; i < n; i++)
        o[i] = VM(exp2_f)(a[i]);
#endif
}
