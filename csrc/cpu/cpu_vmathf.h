/* cpu_vmathf.h - float32 exp, sigmoid, tanh, log, sin and cos evaluated in
 * float32 lanes with fused multiply-adds, for the levels that have FMA (AVX2,
 * AVX-512).  Included by cpu_vmath.h in place of its double evaluations,
 * which the baseline level keeps.
 *
 * Note [float32 evaluation with FMA]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Widening to double halves the lanes of a vector and lengthens every step:
 * on an AMD EPYC with AVX-512 the double evaluation ran at 1.75x NumPy's time
 * for exp over 1e4 elements, 2.45x for tanh, 3.1x for log, 2.8x for sin.
 * Here the functions stay in float32:
 *   exp    y = n ln2 + r as in cpu_vmath.h, in float: n = rint(y / ln2) by
 *          the 1.5 * 2^23 shift, r = (y - n ln2_hi) - n ln2_lo with two FMAs
 *          (ln2_hi = float(ln2), so the first is exact); e^r = 1 + (r + r^2
 *          P(r)), P of degree 5 fitted (least squares toward minimax, on
 *          Chebyshev nodes) to (e^r - 1 - r) / r^2 on |r| <= ln2 / 2, the
 *          coefficients rounded to float (the polynomial's own error is below
 *          2^-29 of e^r).  2^n is applied as 2^(n/2) 2^(n - n/2), both normal
 *          floats for the n of y clamped to [-104, 89], so that the last
 *          product is the only rounding of a subnormal or overflowing result.
 *   sigmoid  e = e^-|x| as above, then 1 / (1 + e) for x >= 0 and
 *          e / (1 + e) below (the CUDA kernel's form), 1 + e kept as a float
 *          and its exact rounding error, and the quotient corrected once from
 *          its exact residual (div2_f).
 *   tanh   sign(x) em / (em + 2), em = e^v - 1, v = 2|x|, em = 2^n s +
 *          (2^n - 1), s = r + r^2 P(r) with the low part of its rounding
 *          carried (n = 0 and em = s below v = ln2 / 2, so nothing cancels
 *          near 0); the quotient as for sigmoid; |x| clamped to 9.5 (tanh
 *          rounds to 1 past 9.01).
 *   log    fdlibm's arrangement: f = m - 1 exact, s = f / (2 + f), log m =
 *          f - (f^2/2 - s (f^2/2 + z Q(z))), z = s^2, Q of degree 3 fitted
 *          here (error below 2^-31), k ln2 in a 16-bit high part and a low one.
 *   sin, cos  y = n pi/2 + r, pi/2 in three floats; Taylor series of sin to
 *          r^9 and cos to r^10 (next terms below 2^-28 of the result), chosen
 *          by n mod 4; past |x| = 2^13 a block takes cpu_vmath.h's double
 *          path (and past 2^20 the C library).
 * Bounds, asserted by tests/test_vmath.py on its dense sample of every
 * float32 exponent: exp and log 1 ulp; tanh, sigmoid, sin and cos 1.5 ulp.
 * Measured there (AVX2 and AVX-512 alike): exp 0.913, log 0.775, sigmoid
 * 1.191, tanh 1.384 (AVX2's; 1.4984 over all 2^32 floats), sin 1.293, cos
 * 1.244 ulp; NumPy 2.4's float32 functions on the same sample: exp 1.85, log
 * 2.44, tanh 1.33, sin 1.31, cos 1.39.  AVX-512's tanh is a table of
 * polynomials instead (Note [tanh by a table of polynomials] below, within 1
 * ulp).  Otherwise both FMA levels run the same operations in the same order,
 * so AVX2 and AVX-512 give the same bits; the baseline's double evaluation
 * (within 1 ulp, measured about 0.5) differs from them by at most the sum of
 * the bounds.
 */
#define VMF_SHIFT 0x1.8p23f /* adding it rounds a float below 2^22 to an integer */
/* exp's constants, shared by exp_reduce_f, expm1_rf, exp_f and exp16 (whose bits must
 * be the same): 1 / ln2, ln2 = LN2_HI - LN2_LO, P's coefficients from r^5 down, and
 * the clamp of x */
#define VMF_INV_LN2 0x1.715476p0f
#define VMF_LN2_HI 0x1.62e43p-1f
#define VMF_LN2_LO 0x1.05c61p-29f
#define VMF_EXPM1_P5 0x1.9f08b2p-13f
#define VMF_EXPM1_P4 0x1.6d8d0cp-10f
#define VMF_EXPM1_P3 0x1.11127p-7f
#define VMF_EXPM1_P2 0x1.55548ep-5f
#define VMF_EXPM1_P1 0x1.555554p-3f
#define VMF_EXPM1_P0 0x1p-1f
#define VMF_EXP_MIN -104.0f
#define VMF_EXP_MAX 89.0f

static inline float VM(clamp_f)(float y, float lo, float hi)
{
    y = y < lo ? lo : y; /* NaN stays NaN: both comparisons are false */
    return y > hi ? hi : y;
}

/* y = n ln2 + r, |r| <= ln2 / 2 (y in [-150, 150] or NaN): returns n, sets *r. */
static inline int32_t VM(exp_reduce_f)(float y, float *r)
{
    float t = __builtin_fmaf(y, VMF_INV_LN2, VMF_SHIFT); /* y / ln2, rounded, in t's low bits */
    float n = t - VMF_SHIFT;
    float hi = __builtin_fmaf(n, -VMF_LN2_HI, y); /* exact */
    *r = __builtin_fmaf(n, VMF_LN2_LO, hi);
    return (int32_t)(VM(bits32)(t) - VM(bits32)(VMF_SHIFT));
}

/* e^r - 1 = r + r^2 P(r) for |r| <= ln2 / 2, rounded once; *lo gets most of
 * what that rounding lost (r - hi is exact: hi is within 20% of r). */
static inline float VM(expm1_rf)(float r, float *lo)
{
    float p = VMF_EXPM1_P5;
    p = __builtin_fmaf(p, r, VMF_EXPM1_P4);
    p = __builtin_fmaf(p, r, VMF_EXPM1_P3);
    p = __builtin_fmaf(p, r, VMF_EXPM1_P2);
    p = __builtin_fmaf(p, r, VMF_EXPM1_P1);
    p = __builtin_fmaf(p, r, VMF_EXPM1_P0);
    float r2 = r * r, hi = __builtin_fmaf(r2, p, r);
    *lo = __builtin_fmaf(r2, p, r - hi);
    return hi;
}

/* 2^k as a float, k in [-126, 127]. */
static inline float VM(pow2_f)(int32_t k) { return VM(from_bits32)((uint32_t)(k + 127) << 23); }

/* e^x, x clamped to [-104, 89] (or NaN).
 *
 * Note [exp's underflow]
 * For x <= -104, e^x < 2^-150 rounds to +0.  Computed, it is a product (a
 * vscalefps) whose result underflows, and an underflowing or subnormal result
 * costs x86 cores a microcode assist: exp of 524,288 -inf (a masked softmax's
 * rows) took 3.2 ms, 0.17 for zeros (NumPy's: 0.29 for both).  So those lanes
 * compute e^0 and select +0 at the end: the same bits, and no underflow.  Results
 * that are truly subnormal (x in (-104, -87.3]) still pay; NumPy's do too. */
static inline float VM(exp_f)(float x)
{
    const int zero = x <= VMF_EXP_MIN; /* false for NaN */
    float r;
    int32_t n = VM(exp_reduce_f)(zero ? 0.0f : VM(clamp_f)(x, VMF_EXP_MIN, VMF_EXP_MAX), &r);
    int32_t n1 = n / 2;
    float lo, s = VM(expm1_rf)(r, &lo);
    float e = ((1.0f + (s + lo)) * VM(pow2_f)(n1)) * VM(pow2_f)(n - n1);
    return zero ? 0.0f : e;
}

static inline float VM(expf)(float x) { return VM(exp_f)(x); }

#if PDT_SIMD_BYTES == 64 && defined(__AVX512F__)
#include <immintrin.h>

/* Note [exp in AVX-512 lanes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * GCC 12 vectorises exp_f above into 45 instructions for 16 lanes: the NaN-keeping
 * clamp becomes three compares, two blends and two masked moves, and n / 2 and the
 * two scalings by 2^n1 and 2^(n - n1) eight more.  exp16 is exp_f's operations in
 * intrinsics, with two exact replacements: the clamp is max(lo, y) then min(hi, .)
 * (vmaxps and vminps return their second operand when either is NaN, which is the
 * select `y < lo ? lo : y` exactly), and the scaling is vscalefps, v 2^n rounded once,
 * subnormal results included, which the two products give too (the first is exact:
 * v 2^n1 is normal).  So the bits are exp_f's (compared over all 2^32 floats against
 * the vectorised exp_f), in 22 instructions: exp of 1e5 float32 on one thread (a C
 * harness, Xeon at 2.1 GHz) took 43-47 us, 25-27 now (PyTorch's: 21). */
#define VMF_EXP16 1
/* exp_reduce_f's operations on 16 lanes (exp16's and expm1_16's): y = n ln2 + r, r
 * returned, n and the shifted t (n in its low bits) in *n and *t */
static inline __m512 VM(exp_reduce16)(__m512 y, __m512 *t, __m512 *n)
{
    *t = _mm512_fmadd_ps(y, _mm512_set1_ps(VMF_INV_LN2), _mm512_set1_ps(VMF_SHIFT));
    *n = _mm512_sub_ps(*t, _mm512_set1_ps(VMF_SHIFT));
    __m512 hi = _mm512_fmadd_ps(*n, _mm512_set1_ps(-VMF_LN2_HI), y);
    return _mm512_fmadd_ps(*n, _mm512_set1_ps(VMF_LN2_LO), hi);
}

/* expm1_rf's operations on 16 lanes (exp16's and expm1_16's) */
static inline __m512 VM(expm1_r16)(__m512 r, __m512 *lo)
{
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(VMF_EXPM1_P5), r, _mm512_set1_ps(VMF_EXPM1_P4));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(VMF_EXPM1_P3));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(VMF_EXPM1_P2));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(VMF_EXPM1_P1));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(VMF_EXPM1_P0));
    __m512 r2 = _mm512_mul_ps(r, r), s = _mm512_fmadd_ps(r2, p, r);
    *lo = _mm512_fmadd_ps(r2, p, _mm512_sub_ps(r, s));
    return s;
}

static inline __m512 VM(exp16)(__m512 x)
{
#define VMF_S(c) _mm512_set1_ps(c)
    const __mmask16 zero = _mm512_cmp_ps_mask(x, VMF_S(VMF_EXP_MIN),
                                              _CMP_LE_OQ); /* [exp's underflow] */
    __m512 y = _mm512_min_ps(VMF_S(VMF_EXP_MAX), _mm512_max_ps(VMF_S(VMF_EXP_MIN), x));
    y = _mm512_mask_mov_ps(y, zero, _mm512_setzero_ps());
    __m512 t, n, r = VM(exp_reduce16)(y, &t, &n);
    __m512 lo, s = VM(expm1_r16)(r, &lo);
    return _mm512_maskz_mov_ps((__mmask16)~zero,
                               _mm512_scalef_ps(_mm512_add_ps(VMF_S(1.0f), _mm512_add_ps(s, lo)),
                                                n));
#undef VMF_S
}

/* o[i] = F(a[i]) over a row, 16 lanes a step, two steps side by side */
#define VMF_ROW16(NAME, F)                                                                         \
    static void VM(NAME)(float *o, const float *a, int64_t n)                                      \
    {                                                                                              \
        int64_t i = 0;                                                                             \
        for (; i + 32 <= n; i += 32) {                                                             \
            __m512 u = F(_mm512_loadu_ps(a + i)), v = F(_mm512_loadu_ps(a + i + 16));              \
            _mm512_storeu_ps(o + i, u);                                                            \
            _mm512_storeu_ps(o + i + 16, v);                                                       \
        }                                                                                          \
        for (; i < n; i += 16) {                                                                   \
            __mmask16 m = (__mmask16)VM(tail_lanes)(n - i, 16);                                    \
            _mm512_mask_storeu_ps(o + i, m, F(_mm512_maskz_loadu_ps(m, a + i)));                   \
        }                                                                                          \
    }
VMF_ROW16(exp_row16, VM(exp16))
#endif

/* (num + nlo) / (hi + lo) (|nlo| and |lo| near ulp / 2 of num and hi) to
 * within about half an ulp: the quotient through the reciprocal, then one
 * correction from its exact residual (an FMA), which also takes in the lows. */
static inline float VM(div2_f)(float num, float nlo, float hi, float lo)
{
    float inv = 1.0f / hi;
    float q = num * inv;
    float res = (__builtin_fmaf(-q, hi, num) + nlo) - q * lo; /* num + nlo - q (hi + lo) */
    return __builtin_fmaf(res, inv, q);
}

static inline float VM(sigmoidf)(float x)
{
    float e = VM(exp_f)(-fabsf(x));          /* NaN: e is NaN */
    float d = 1.0f + e, lo = e - (d - 1.0f); /* 1 + e = d + lo exactly (e <= 1) */
    float r = VM(div2_f)(x >= 0.0f ? 1.0f : e, 0.0f, d, lo);
    return x != x ? x + x : r; /* a NaN argument, quiet, its sign kept (|x| loses it) */
}

#ifdef VMF_EXP16
/* Note [sigmoid in AVX-512 lanes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * GCC vectorises sigmoidf with exp_f's 45 instructions (Note [exp in AVX-512 lanes]): 1e5
 * float32 took 2.8 times exp's time, and 1.4-1.8 times PyTorch's.  sigmoid16 is
 * sigmoidf's operations in intrinsics with exp16 for exp_f, in the same order: vdivps for
 * 1 / hi, and div2_f's `+ nlo` of a 0 kept (the compiled code keeps it: it turns -0 into
 * +0), so the bits are sigmoidf's (every float32 compared against AVX2's vectorised
 * sigmoidf, whose bits this level's gave too).  1e5 float32, one thread (a C harness
 * calling the rows, Xeon at 2.1 GHz, 2026-12-01): 0.82-0.91 ns an element -> 0.57-0.61
 * (exp: 0.27).  A reciprocal with one Newton step for the division measured no faster
 * and changed the bits of 6.3 million floats. */
static inline __m512 VM(sigmoid16)(__m512 x)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 e = VM(exp16)(
        _mm512_castsi512_ps(/* -|x| */
                            _mm512_or_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN))));
    __m512 d = _mm512_add_ps(one, e), lo = _mm512_sub_ps(e, _mm512_sub_ps(d, one));
    __m512 num = _mm512_mask_mov_ps(e, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ), one);
    /* div2_f(num, 0, d, lo) */
    __m512 inv = _mm512_div_ps(one, d), q = _mm512_mul_ps(num, inv);
    __m512 res = _mm512_sub_ps(_mm512_add_ps(_mm512_fnmadd_ps(q, d, num), _mm512_setzero_ps()),
                               _mm512_mul_ps(q, lo));
    __m512 r = _mm512_fmadd_ps(res, inv, q);
    return _mm512_mask_add_ps(r, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x, x);
}

VMF_ROW16(sigmoid_row16, VM(sigmoid16))
#endif

static inline float VM(tanhf)(float x)
{
    float r;
    int32_t n = VM(exp_reduce_f)(2.0f * VM(clamp_f)(fabsf(x), 0.0f, 9.5f), &r);
    float p2 = VM(pow2_f)(n);
    float slo, s = VM(expm1_rf)(r, &slo);
    float em = __builtin_fmaf(p2, s, p2 - 1.0f), emlo = p2 * slo;
    float d = em + 2.0f, lo = em - (d - 2.0f); /* em + 2 = d + lo exactly (em <= 2), */
    lo = em > 2.0f ? 0.0f : lo;                /* near enough above */
    return copysignf(VM(div2_f)(em, emlo, d, lo), x);
}

#if PDT_SIMD_BYTES == 64 && defined(__AVX512F__)
#include "cpu_vtanh_table.h"

/* Note [tanh by a table of polynomials]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * tanhf above costs about 35 operations a vector (expm1 with its low part carried, a
 * division corrected once), and ran at 1.5 of NumPy's time over 1e5 elements.  At
 * AVX-512, tanh16 clamps |x| to s = 9.0109... (the least float32 whose tanh rounds to
 * 1), cuts [0, s] into 30 intervals, [0, 1/16), the quarters of each binade up to 8, and
 * [8, s], whose index is (bits(|x|) >> 21) - 491 (at least 0), and evaluates a
 * polynomial of degree 5 in y = |x| - b_j; two-register permutes (vpermt2ps) look the 7
 * entries up, so a vector costs 19 operations and no division.  The table
 * (cpu_vtanh_table.h, written by tools/gen_vtanh_table.py) puts b_j where tanh(b_j) is
 * within 0.002 ulp of a float32, so that the constant term is all but exact (but on
 * [7, 8) and [8, s], where tanh moves by less than an ulp within the 4000 floats
 * searched: 0.23 and 0.36 ulp there), and fits the rest toward the relative minimax;
 * on [0, 1/16) the polynomial is odd (x + c3 x^3 +
 * c5 x^5), so tiny and subnormal x give x.  NaN stays NaN (y is NaN whatever entry the
 * NaN's bits select), inf gives 1, and the sign is put back last (-0 gives -0).
 * Over all 2^32 floats against the double tanh (tools/check_vtanh_table.c): at most
 * 0.9941 ulp (on [0, 1/16), where 1 + c3 x^2 + ... is rounded before the last product;
 * 0.776 on the rest), never above 1 in magnitude, never decreasing; tanhf's was 1.4984.
 * 1e5 floats on one thread (a C harness, Xeon at 2.1 GHz, alternating): 23-28 us
 * against 53-83 for tanhf's vectorisation.
 * AVX2 keeps tanhf: its only lookup of 32 entries is vgatherdps, and with it the same
 * polynomials took 146-193 us against tanhf's 92-126 there (gathers are slow under this
 * Xeon's microcode).  So AVX2 and AVX-512 differ for tanh, each within its own bound
 * (tests/test_vmath.py), while exp, log, sigmoid, sin and cos give the same bits at both.
 */
#define VMF_TANH16 1
/* pdt_tanh_table's seven rows (b and c0 .. c5), each as two registers of 16 entries */
typedef struct {
    __m512 lo[7], hi[7];
} VM(tanh_regs);

static inline __m512 VM(tanh16)(__m512 x, const VM(tanh_regs) * t)
{
#define VMF_AT(c) _mm512_permutex2var_ps(t->lo[c], j, t->hi[c])
    __m512 ax = _mm512_min_ps(_mm512_set1_ps(PDT_TANH_CLAMP), _mm512_abs_ps(x)); /* NaN kept */
    __m512i j = _mm512_srli_epi32(_mm512_castps_si512(ax), 21);
    j = _mm512_max_epi32(_mm512_sub_epi32(j, _mm512_set1_epi32(PDT_TANH_BASE)),
                         _mm512_setzero_si512());
    __m512 y = _mm512_sub_ps(ax, VMF_AT(0));
    __m512 p = _mm512_fmadd_ps(VMF_AT(6), y, VMF_AT(5));
    p = _mm512_fmadd_ps(p, y, VMF_AT(4));
    p = _mm512_fmadd_ps(p, y, VMF_AT(3));
    p = _mm512_fmadd_ps(p, y, VMF_AT(2));
    p = _mm512_fmadd_ps(p, y, VMF_AT(1));
    /* p | (x & sign), p >= 0: ternary-logic table 0xf8 is A | (B & C) */
    return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(p),
                                                         _mm512_castps_si512(x),
                                                         _mm512_set1_epi32(INT32_MIN), 0xf8));
#undef VMF_AT
}

static void VM(tanh_row16)(float *o, const float *a, int64_t n)
{
    VM(tanh_regs) t; /* 14 registers, kept across the loop (AVX-512 has 32) */
    for (int c = 0; c < 7; c++) {
        t.lo[c] = _mm512_loadu_ps(pdt_tanh_table[c]);
        t.hi[c] = _mm512_loadu_ps(pdt_tanh_table[c] + 16);
    }
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512 u = VM(tanh16)(_mm512_loadu_ps(a + i), &t);
        __m512 v = VM(tanh16)(_mm512_loadu_ps(a + i + 16), &t);
        _mm512_storeu_ps(o + i, u);
        _mm512_storeu_ps(o + i + 16, v);
    }
    for (; i < n; i += 16) {
        __mmask16 m = (__mmask16)VM(tail_lanes)(n - i, 16);
        _mm512_mask_storeu_ps(o + i, m, VM(tanh16)(_mm512_maskz_loadu_ps(m, a + i), &t));
    }
}
#endif

/* log x: x = 2^k m, m in [sqrt(1/2), sqrt(2)) (subnormals scaled by 2^24
 * first, log_split in cpu_vmath.h), f = m - 1 (exact), s = f / (2 + f);
 * log m = 2 atanh(s) = f - f^2/2 + s (f^2/2 + R), R = z Q(z), z = s^2, Q of
 * degree 3 fitted here to (2 atanh(s) / s - 2) / z on z <= 0.0295 (its error
 * below 2^-31 of the result).  f is the large term and stays exact; only the small correction
 * carries s's rounding.  k ln2 in two parts (ln2_hi of 16 bits, so k ln2_hi
 * is exact). */
static inline float VM(log_q)(float z)
{
    float q = 0x1.dda0e2p-3f;
    q = __builtin_fmaf(q, z, 0x1.245d8p-2f);
    q = __builtin_fmaf(q, z, 0x1.9999e6p-2f);
    return __builtin_fmaf(q, z, 0x1.555556p-1f);
}

static inline float VM(log_fe)(float m, int32_t k)
{
    float f = m - 1.0f, s = f / (2.0f + f), z = s * s, dk = (float)k;
    float q = VM(log_q)(z);
    float hfsq = 0.5f * f * f, R = z * q;
    float lo = __builtin_fmaf(s, hfsq + R, dk * 0x1.2fefa4p-17f); /* ln2 - ln2_hi */
    return __builtin_fmaf(dk, 0x1.62e3p-1f, f - (hfsq - lo));
}

/* sin (want_cos 0) or cos (1) of x, |x| <= VMF_SIN_COS_LIMIT or NaN: y = n
 * pi/2 + r with pi/2 in three floats (the first FMA exact, as for exp), then
 * the Taylor series of sin to r^9 and cos to r^10 (next terms below 2^-28 of
 * the result on |r| <= pi/4), chosen by n mod 4.  Larger arguments take
 * cpu_vmath.h's double path (Note [vector math accuracy]). */
#define VMF_SIN_COS_LIMIT 0x1p13f
static inline float VM(sincosf_f)(float x, int want_cos)
{
    float t = __builtin_fmaf(x, 0x1.45f306p-1f, VMF_SHIFT); /* x / (pi/2), rounded */
    float n = t - VMF_SHIFT;
    float r = __builtin_fmaf(n, -0x1.921fb6p0f, x);
    r = __builtin_fmaf(n, 0x1.777a5cp-25f, r);
    r = __builtin_fmaf(n, 0x1.ee59dap-50f, r);
    float z = r * r;
    float s = __builtin_fmaf(0x1.71de3ap-19f, z, -0x1.a01a02p-13f);
    s = __builtin_fmaf(s, z, 0x1.111112p-7f);
    s = __builtin_fmaf(s, z, -0x1.555556p-3f);
    s = z == 0.0f ? x : __builtin_fmaf(r * z, s, r); /* z == 0: n == 0, sin x = x (and -0) */
    float c = __builtin_fmaf(-0x1.27e4fcp-22f, z, 0x1.a01a02p-16f);
    c = __builtin_fmaf(c, z, -0x1.6c16c2p-10f);
    c = __builtin_fmaf(c, z, 0x1.555556p-5f);
    c = __builtin_fmaf(c, z, -0.5f);
    c = __builtin_fmaf(c, z, 1.0f);
    uint32_t q = (VM(bits32)(t) + (uint32_t)want_cos) & 3; /* cos x = sin(x + pi/2) */
    float v = (q & 1) ? c : s;
    return (q & 2) ? -v : v;
}
