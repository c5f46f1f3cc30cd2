/* cpu_vpow64.h - float64 powers x ** y over rows at the AVX-512 level, in intrinsics (the
 * log table read by gathers: GCC 12's generic tuning does not vectorise a table lookup, and
 * a scalar loop of these steps was slower than the C library's pow).  Included by
 * cpu_vmath.h after cpu_vmath64.h, whose table exp (cpu_vmath64_avx512.h) it uses; the
 * other levels keep the C library's pow.
 *
 * Note [float64 powers]
 * ~~~~~~~~~~~~~~~~~~~~~
 * The C library's pow is a call an element (10 us for 1,000, NumPy's AVX-512 lanes 2.6:
 * AMD EPYC Zen 4, 2026-12-02).  For an ordinary pair, x normal and finite, y finite and
 * not 0, x > 0 or y an integer, and |y log |x|| <= 708 (a normal result), x ** y = sign *
 * e^(y log |x|) with log |x| a double-double to about 2^-66 of itself, so that y log |x|
 * (up to 708) is within 2^-56 or so absolute and the result within 0.5 ulp plus a few
 * hundredths:
 *   log  |x| = 2^k z, z in [OFF, 2 OFF) by the bits (OFF about 0.7), 128 intervals of
 *        2^45 ulps read by z's top seven mantissa bits from cpu_vpow64_table.h (written by
 *        tools/gen_vpow64_table.py): invc, on a grid that makes r = z invc - 1 exact in one
 *        FMA (|r| < 0.0059), and -log(invc) in two parts (the high one a multiple of
 *        2^-42: k ln2_hi plus it is exact); the interval holding 1 has invc = 1.  Then
 *        log |x| = (k ln2_hi + logc) + r - r^2/2 + r^3 P(r) + (k ln2_lo + logctail), P
 *        Taylor's 1/3 - r/4 + ... + r^6/9 (the next term below 2^-68 of r), t1 + r by 2Sum,
 *        -r^2/2 split exactly by an FMA and added by Fast2Sum, the small terms summed
 *        and the whole normalised to yh + yl.
 *   exp  e^(y yh + y yl): eh = y yh rounded, el = its error (an FMA) plus y yl; e^eh =
 *        2^k (T + lo) from exp's table (Note [float64 exp with a table]; lo up to 0.022),
 *        then lo + (T + lo) el (e^el = 1 + el to 2^-86), rounded once and k added to the
 *        exponent field.
 * Any other pair (zeros, subnormals, inf, NaN, a negative x to a fraction, y = 0, a result
 * that overflows or is subnormal) takes the C library's pow, element by element: C's
 * special values (Annex F.10.4.4).  y = 2, -1 and 0.5 give x x, 1 / x and sqrt x, as a
 * scalar exponent does.  Bound 1 ulp (tests/test_pow64.py, against np.longdouble; a
 * review's quad-precision reference found 0.564 at worst on 5 million pairs, glibc's 0.51).  The core turns
 * x ** 2 into x * x, x ** 0.5 into sqrt and x ** -1 into 1 / x (Note [squares]); 2 ** y is
 * exp2's row (cpu_vfunc64.h). */
#ifndef PDT_SIMD_LEVEL
#error "include cpu_vpow64.h from cpu_vmath.h"
#endif
#if PDT_SIMD_BYTES == 64 && defined(__AVX512F__)

#include "cpu_vpow64_table.h"

/* (log(1 + r) - r + r^2/2) / r^3 by Taylor: 1/3 - r/4 + ... + r^6/9 (highest first) */
static const double VM(v64p_log_p)[7] = {1.0 / 9, -1.0 / 8, 1.0 / 7, -1.0 / 6,
                                         1.0 / 5, -1.0 / 4, 1.0 / 3};

/* log x = yh + *yl for 8 lanes of positive normal finite x */
static inline __m512d VM(v64p_log)(__m512d x, __m512d *yl)
{
    const __m512d one = _mm512_set1_pd(1.0);
    const __m512i ix = _mm512_castpd_si512(x);
    const __m512i tmp = _mm512_sub_epi64(ix, _mm512_set1_epi64((long long)V64P_OFF));
    const __m512i j = _mm512_and_si512(_mm512_srli_epi64(tmp, 45), _mm512_set1_epi64(127));
    const __m512i top = _mm512_and_si512(tmp, _mm512_set1_epi64(-0x10000000000000ll));
    const __m512d z = _mm512_castsi512_pd(_mm512_sub_epi64(ix, top));
    const __m512d k = _mm512_cvtepi64_pd(_mm512_srai_epi64(tmp, 52));
    const __m512d invc = _mm512_i64gather_pd(j, v64p_invc, 8);
    const __m512d logc = _mm512_i64gather_pd(j, v64p_logc, 8);
    const __m512d logct = _mm512_i64gather_pd(j, v64p_logctail, 8);
    const __m512d r = _mm512_fmsub_pd(z, invc, one);                         /* exact */
    const __m512d t1 = _mm512_fmadd_pd(k, _mm512_set1_pd(V64_LN2_HI), logc); /* exact */
    const __m512d t2 = _mm512_add_pd(t1, r); /* 2Sum: the error e2 */
    const __m512d bv = _mm512_sub_pd(t2, t1);
    const __m512d e2 = _mm512_add_pd(_mm512_sub_pd(t1, _mm512_sub_pd(t2, bv)),
                                     _mm512_sub_pd(r, bv));
    const __m512d ar = _mm512_mul_pd(_mm512_set1_pd(-0.5), r);
    const __m512d ar2 = _mm512_mul_pd(r, ar);       /* -r^2/2, rounded */
    const __m512d e3 = _mm512_fmsub_pd(ar, r, ar2); /* its error, exact */
    const __m512d hi = _mm512_add_pd(t2, ar2);      /* Fast2Sum: |t2| >= |ar2| */
    const __m512d e4 = _mm512_add_pd(_mm512_sub_pd(t2, hi), ar2);
    __m512d p = _mm512_set1_pd(VM(v64p_log_p)[0]);
    for (int i = 1; i < 7; i++)
        p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(VM(v64p_log_p)[i]));
    __m512d lo = _mm512_fmadd_pd(k, _mm512_set1_pd(V64_LN2_LO), logct);
    lo = _mm512_add_pd(_mm512_add_pd(lo, e2), _mm512_add_pd(e3, e4));
    lo = _mm512_fmadd_pd(_mm512_mul_pd(r, _mm512_mul_pd(r, r)), p, lo);
    const __m512d yh = _mm512_add_pd(hi, lo);
    *yl = _mm512_add_pd(_mm512_sub_pd(hi, yh), lo);
    return yh;
}

/* x ** y of 8 lanes; *ok: the ordinary pairs (the others' values are anything) */
static inline __m512d VM(v64p_pow)(const VM(v64t_exp_consts) * c, __m512d x, __m512d y,
                                   __mmask8 *ok)
{
    const __m512d ax = _mm512_abs_pd(x), ay = _mm512_abs_pd(y);
    const __m512d big = _mm512_set1_pd(0x1.fffffffffffffp1023);
    const __m512d ty = _mm512_roundscale_pd(y, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m512d hy = _mm512_mul_pd(_mm512_set1_pd(0.5), y);
    const __m512d thy = _mm512_roundscale_pd(hy, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __mmask8 yint = _mm512_cmp_pd_mask(y, ty, _CMP_EQ_OQ);
    const __mmask8 odd = yint & _mm512_cmp_pd_mask(hy, thy, _CMP_NEQ_OQ);
    const __mmask8 neg = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_LT_OQ);
    __mmask8 good = _mm512_cmp_pd_mask(ax, _mm512_set1_pd(0x1p-1022), _CMP_GE_OQ) &
                    _mm512_cmp_pd_mask(ax, big, _CMP_LE_OQ) &
                    _mm512_cmp_pd_mask(ay, big, _CMP_LE_OQ) &
                    _mm512_cmp_pd_mask(y, _mm512_setzero_pd(), _CMP_NEQ_OQ) & (~neg | yint);
    __m512d yl, yh = VM(v64p_log)(_mm512_mask_mov_pd(_mm512_set1_pd(1.0), good, ax), &yl);
    const __m512d eh = _mm512_mul_pd(y, yh);
    const __m512d el = _mm512_fmadd_pd(y, yl, _mm512_fmsub_pd(y, yh, eh));
    good &= _mm512_cmp_pd_mask(_mm512_abs_pd(eh), _mm512_set1_pd(708.0), _CMP_LE_OQ);
    *ok = good;
    const __m512d ec = _mm512_mask_mov_pd(_mm512_setzero_pd(), good, eh);
    __m512i n;
    __m512d lo, th = VM(v64t_exp_parts)(c, ec, &lo, &n);
    lo = _mm512_fmadd_pd(_mm512_add_pd(th, lo), el, lo); /* (T + lo) el: lo is up to 0.022 */
    const __m512i s = _mm512_castpd_si512(_mm512_add_pd(th, lo));
    __m512d v = _mm512_castsi512_pd(_mm512_add_epi64(s, VM(v64t_exp_k52)(n)));
    v = _mm512_mask_sub_pd(v, odd & neg, _mm512_setzero_pd(), v);
    /* y = 2, -1 and 0.5 as the core gives a scalar exponent (Note [squares]): x x, 1 / x
     * and sqrt x, correctly rounded, so that a tensor exponent gives the same bits */
    v = _mm512_mask_mul_pd(v, good & _mm512_cmp_pd_mask(y, _mm512_set1_pd(2.0), _CMP_EQ_OQ), x, x);
    v = _mm512_mask_div_pd(v, good & _mm512_cmp_pd_mask(y, _mm512_set1_pd(-1.0), _CMP_EQ_OQ),
                           _mm512_set1_pd(1.0), x);
    return _mm512_mask_sqrt_pd(v, good & _mm512_cmp_pd_mask(y, _mm512_set1_pd(0.5), _CMP_EQ_OQ), x);
}

/* Rows of a ** b, mode as pdt_vb_row's (1: a is one value, 2: b is), 8 lanes at a time:
 * the C library's pow for the lanes that are not ordinary pairs (each element's bits are
 * its pair's alone); o may be a or b. */
static void VM(pow64_row)(char *po, const char *pa, const char *pb, int64_t n, int mode)
{
    VM(v64t_exp_consts) c;
    VM(v64t_exp_load)(&c);
    double *o = (double *)po;
    const double *a = (const double *)pa, *b = (const double *)pb;
    const __m512d a1 = _mm512_set1_pd(a[0]), b1 = _mm512_set1_pd(b[0]);
    for (int64_t i = 0; i < n; i += 8) {
        const __mmask8 in = (__mmask8)VM(tail_lanes)(n - i, 8);
        const __m512d one = _mm512_set1_pd(1.0);
        const __m512d x = mode == 1 ? a1 : _mm512_mask_loadu_pd(one, in, a + i);
        const __m512d y = mode == 2 ? b1 : _mm512_mask_loadu_pd(one, in, b + i);
        __mmask8 ok;
        __m512d r = VM(v64p_pow)(&c, x, y, &ok);
        if ((ok & in) != in) {
            double t[8], xs[8], ys[8];
            _mm512_storeu_pd(t, r);
            _mm512_storeu_pd(xs, x);
            _mm512_storeu_pd(ys, y);
            for (int l = 0; l < 8; l++)
                if ((in >> l & 1) && !(ok >> l & 1))
                    t[l] = pow(xs[l], ys[l]);
            r = _mm512_loadu_pd(t);
        }
        _mm512_mask_storeu_pd(o + i, in, r);
    }
}
#define VM_POW64_ROW VM(pow64_row)
#else
#define VM_POW64_ROW NULL
#endif
