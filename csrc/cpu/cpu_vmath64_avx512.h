/* cpu_vmath64_avx512.h - float64 exp, sigmoid, log, log2, log10, log1p and tanh at the
 * AVX-512 level: tables of 16 doubles read with a two-register permute.  Included by
 * cpu_vmath64.h at that level only, after the portable v64_scale it uses for exp's and
 * sigmoid's general path; the other levels run the portable functions.
 *
 * Note [float64 exp with a table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The portable exp (Note [float64 vector math]) spends a degree-10 polynomial on
 * |r| <= ln2/2 and keeps every part as a double-double, because tanh and sigmoid
 * take e^x from it.  exp alone needs less: Tang's table method (ACM TOMS 15(2),
 * 1989) with N = 16, x = (16k + j) ln2/16 + r, |r| <= ln2/32, and
 *     e^x = 2^k 2^(j/16) e^r = 2^k (T_j + (T_j q + t_j)),  q = r + r^2 P(r),
 * T_j + t_j = 2^(j/16) to 2^-106 (T_j rounded, t_j the rest), P of degree 5
 * (fitted by tools/gen_vmath64_coeffs.py, 2^-64 absolute in e^r).  Sixteen
 * doubles are two zmm registers, so vpermt2pd (_mm512_permutex2var_pd, which
 * reads the index's low four bits: j itself, in the low bits of the shifted
 * product) looks both halves of the table up in one instruction each; a
 * compiler-vectorised lookup would be eight scalar loads (GCC does not emit
 * gathers for its generic tuning).  n = 16k + j = rint(16 x / ln2) by the
 * 1.5 * 2^52 shift; r = x - n L_hi - n L_lo, L_hi = ln2/16 to 38 bits so that
 * n L_hi is exact for |n| < 2^15 and the first FMA exact (Sterbenz), the
 * second rounded (2^-59.5 of the result).
 * Error: the sum T_j + (T_j q + t_j) is the one rounding of size (0.5 ulp);
 * q's and the inner FMA's roundings and r's (each under 2^-58 of the result,
 * 0.016 ulp), the t_j q the sum leaves out (|t_j| < 2^-53, |q| < 0.022: 0.011
 * ulp) and P's add at most 0.06 ulp: bound 1 ulp as for the portable functions,
 * measured 0.536 on tests/test_vmath64.py's sample, 0.551 at x = 37.36615955818573
 * (j = 15, the four of one sign) in 3e7 random arguments.
 * The bits differ from the AVX2 level's (each within the bound); sigmoid below.
 * A vector of 8 with every |x| <= 708 adds k to the result's exponent field; any
 * other (overflow, subnormal results, inf, NaN) clamps x to [-746, 710] as the
 * portable exp does and hands T_j + (T_j q + t_j), split exactly by fast_two_sum,
 * and k to v64_scale, which rounds 2^k (hi + lo) once: the fast path's bits for
 * the ordinary arguments of such a vector (no blocks of 256 and no pass over them
 * first, as the portable rows make: the choice is a mask test in registers), the C
 * library's special values (NaN stays NaN through every step).
 */
#include <immintrin.h>

/* 2^(j/16), j = 0..15, rounded to double, and the rest (tools/gen_vmath64_coeffs.py) */
static const double VM(v64t_exp_hi)[16] = {
    0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0, 0x1.2387a6e756238p+0,
    0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0, 0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0,
    0x1.6a09e667f3bcdp+0, 0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
    0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0, 0x1.ea4afa2a490dap+0};
static const double VM(v64t_exp_lo)[16] = {0x0.0p+0,
                                           0x1.8a62e4adc610bp-54,
                                           -0x1.19041b9d78a76p-55,
                                           0x1.9b07eb6c70573p-54,
                                           0x1.6f46ad23182e4p-55,
                                           0x1.ada0911f09ebcp-55,
                                           0x1.d4397afec42e2p-56,
                                           0x1.6324c054647adp-54,
                                           -0x1.bdd3413b26456p-54,
                                           -0x1.41577ee04992fp-55,
                                           0x1.6e9f156864b27p-54,
                                           0x1.c7c46b071f2bep-56,
                                           0x1.7a1cd345dcc81p-54,
                                           0x1.11065895048ddp-55,
                                           0x1.2ed02d75b3707p-55,
                                           -0x1.e9c23179c2893p-54};
/* (e^r - 1 - r) / r^2 on |r| <= 0.02167, degree 5, highest first */
static const double VM(v64t_exp_p)[6] = {0x1.a01b0c6885897p-13, 0x1.6c17ed8da4b83p-10,
                                         0x1.11111110e0f5bp-7,  0x1.55555554e917bp-5,
                                         0x1.5555555555556p-3,  0x1.0000000000001p-1};
#define V64T_LN2_16_HI 0x1.62e42fefa0000p-5 /* ln2/16 to 38 bits */
#define V64T_LN2_16_LO 0x1.cf79abc9e3b3ap-44

/* The table and the constants, loaded once a row */
typedef struct {
    __m512d hi0, hi1, lo0, lo1, p[6];
} VM(v64t_exp_consts);

static inline void VM(v64t_exp_load)(VM(v64t_exp_consts) * c)
{
    c->hi0 = _mm512_loadu_pd(VM(v64t_exp_hi));
    c->hi1 = _mm512_loadu_pd(VM(v64t_exp_hi) + 8);
    c->lo0 = _mm512_loadu_pd(VM(v64t_exp_lo));
    c->lo1 = _mm512_loadu_pd(VM(v64t_exp_lo) + 8);
    for (int i = 0; i < 6; i++)
        c->p[i] = _mm512_set1_pd(VM(v64t_exp_p)[i]);
}

/* e^x = 2^k (T_j + *lo) (the Note) for |x| <= 746; *n gets the shifted n = 16k + j
 * (1.5 * 2^52 + n, whose bits hold n in their low ones) */
static inline __m512d VM(v64t_exp_parts)(const VM(v64t_exp_consts) * c, __m512d x, __m512d *lo,
                                         __m512i *n)
{
    const __m512d shift = _mm512_set1_pd(V64_SHIFT);
    __m512d t = _mm512_fmadd_pd(x, _mm512_set1_pd(0x1.71547652b82fep+4), shift);
    __m512d nd = _mm512_sub_pd(t, shift);
    __m512d r = _mm512_fnmadd_pd(nd, _mm512_set1_pd(V64T_LN2_16_HI), x); /* exact */
    r = _mm512_fnmadd_pd(nd, _mm512_set1_pd(V64T_LN2_16_LO), r);
    __m512d p = c->p[0];
    for (int i = 1; i < 6; i++)
        p = _mm512_fmadd_pd(p, r, c->p[i]);
    __m512d q = _mm512_fmadd_pd(_mm512_mul_pd(r, r), p, r);
    __m512i ti = _mm512_castpd_si512(t);
    __m512d th = _mm512_permutex2var_pd(c->hi0, ti, c->hi1);
    __m512d tl = _mm512_permutex2var_pd(c->lo0, ti, c->lo1);
    *lo = _mm512_fmadd_pd(th, q, tl);
    *n = ti;
    return th;
}

/* k = n >> 4 from the shifted n (n's bits less the shift's) */
static inline __m512i VM(v64t_exp_k)(__m512i n)
{
    return _mm512_srai_epi64(_mm512_sub_epi64(n, _mm512_set1_epi64(0x4338000000000000ll)), 4);
}

/* k << 52 from the shifted n */
static inline __m512i VM(v64t_exp_k52)(__m512i n)
{
    return _mm512_slli_epi64(VM(v64t_exp_k)(n), 52);
}

/* |x| <= 708: a normal result, k added to its exponent field */
static inline __m512d VM(v64t_exp_fast)(const VM(v64t_exp_consts) * c, __m512d x)
{
    __m512i n;
    __m512d lo, th = VM(v64t_exp_parts)(c, x, &lo, &n);
    __m512i s = _mm512_castpd_si512(_mm512_add_pd(th, lo));
    return _mm512_castsi512_pd(_mm512_add_epi64(s, VM(v64t_exp_k52)(n)));
}

/* 2^k (hs + ls) rounded once by v64_scale, lane by lane (ts: 1.5 * 2^52 + k) */
static inline __m512d VM(v64t_scale)(__m512d hs, __m512d ls, __m512d ts)
{
    double h[8], l[8], t[8];
    _mm512_storeu_pd(h, hs);
    _mm512_storeu_pd(l, ls);
    _mm512_storeu_pd(t, ts);
    for (int i = 0; i < 8; i++)
        h[i] = VM(v64_scale)(h[i], l[i], t[i]);
    return _mm512_loadu_pd(h);
}

/* any x: clamped to [-746, 710], 2^k (hi + lo) rounded once; exp_fast's bits for
 * |x| <= 708 */
static inline __m512d VM(v64t_exp_general)(const VM(v64t_exp_consts) * c, __m512d x)
{
    /* max and min return their second operand for a NaN one: the NaN is kept */
    x = _mm512_max_pd(_mm512_set1_pd(-746.0), x);
    x = _mm512_min_pd(_mm512_set1_pd(710.0), x);
    __m512i n;
    __m512d lo, hi = VM(v64t_exp_parts)(c, x, &lo, &n);
    __m512d s = _mm512_add_pd(hi, lo);
    __m512d l = _mm512_add_pd(_mm512_sub_pd(hi, s), lo); /* fast_two_sum: |hi| >= |lo| */
    /* the shifted k, as v64_scale takes it: 1.5 * 2^52 + k */
    __m512i shift = _mm512_set1_epi64(0x4338000000000000ll);
    __m512i k = VM(v64t_exp_k)(n);
    return VM(v64t_scale)(s, l, _mm512_castsi512_pd(_mm512_add_epi64(k, shift)));
}

/* Rows, a vector at a time: one whose every |x| is at most 708 runs FAST, any other
 * GENERAL, which gives FAST's bits for those x; o may be a. */
#define V64T_ROW(NAME, FAST, GENERAL)                                                              \
    static void VM(NAME)(double *o, const double *a, int64_t n)                                    \
    {                                                                                              \
        VM(v64t_exp_consts) c;                                                                     \
        VM(v64t_exp_load)(&c);                                                                     \
        for (int64_t i = 0; i < n; i += 8) {                                                       \
            __mmask8 in = (__mmask8)VM(tail_lanes)(n - i, 8);                                      \
            __m512d x = _mm512_maskz_loadu_pd(in, a + i);                                          \
            __mmask8 odd = _mm512_cmp_pd_mask(_mm512_abs_pd(x), _mm512_set1_pd(708.0),             \
                                              _CMP_NLE_UQ);                                        \
            _mm512_mask_storeu_pd(o + i, in, odd ? GENERAL(&c, x) : FAST(&c, x));                  \
        }                                                                                          \
    }
V64T_ROW(exp64_row, VM(v64t_exp_fast), VM(v64t_exp_general))

/* ---- sigmoid ----
 * The portable sigmoid's steps (v64_sigmoid_q in cpu_vmath64.h) on exp's table:
 * e = e^-|x| = 2^k (hi + lo) (hi + lo the table's T_j + (T_j q + t_j), split exactly,
 * 2^-58.5 of itself), eh + el = e rounded once ((hi 2^(k+600)) 2^-600: the same
 * bits as hi 2^k where that is normal, one rounding onto the subnormals' grid where
 * not), 1 / (1 + e) for x >= 0 and (hi + lo) / (1 + e), scaled by 2^k afterwards, below.
 * The quotient: vrcp14pd (2^-14) and one Newton step for 1 / d (2^-28), q from it with
 * one more (2^-56), then its correction from the exact residual, as div_dd2 does. */

/* the quotient q + *c, and *t: 1.5 * 2^52 + (x < 0 ? k : 0), for |x| clamped to 746 */
static inline __m512d VM(v64t_sigmoid_q)(const VM(v64t_exp_consts) * c, __m512d x, __m512d *cq,
                                         __m512d *t)
{
    const __m512d one = _mm512_set1_pd(1.0);
    __m512d ax = _mm512_min_pd(_mm512_set1_pd(746.0), _mm512_abs_pd(x));
    __m512i n;
    __m512d lo0, th = VM(v64t_exp_parts)(c, _mm512_sub_pd(_mm512_setzero_pd(), ax), &lo0, &n);
    __m512d hi = _mm512_add_pd(th, lo0);
    __m512d lo = _mm512_add_pd(_mm512_sub_pd(th, hi), lo0);
    __m512i shift = _mm512_set1_epi64(0x4338000000000000ll);
    __m512i k = VM(v64t_exp_k)(n); /* in [-1077, 0] */
    /* 2^(k + 600), built in the exponent field */
    __m512d sc = _mm512_castsi512_pd(
        _mm512_slli_epi64(_mm512_add_epi64(k, _mm512_set1_epi64(1023 + 600)), 52));
    const __m512d down = _mm512_set1_pd(0x1p-600);
    __m512d eh = _mm512_mul_pd(_mm512_mul_pd(hi, sc), down);
    __m512d el = _mm512_mul_pd(_mm512_mul_pd(lo, sc), down);
    __m512d d = _mm512_add_pd(one, eh); /* fast_two_sum: eh <= 1 */
    __m512d dl = _mm512_add_pd(_mm512_add_pd(_mm512_sub_pd(one, d), eh), el);
    __mmask8 neg = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_LT_OQ);
    __m512d nh = _mm512_mask_blend_pd(neg, one, hi);
    __m512d nl = _mm512_maskz_mov_pd(neg, lo);
    __m512d inv = _mm512_rcp14_pd(d);
    inv = _mm512_fmadd_pd(inv, _mm512_fnmadd_pd(d, inv, one), inv);
    __m512d q = _mm512_mul_pd(nh, inv);
    q = _mm512_fmadd_pd(_mm512_fnmadd_pd(q, dl, _mm512_fnmadd_pd(q, d, nh)), inv, q);
    *cq = _mm512_mul_pd(_mm512_add_pd(_mm512_fnmadd_pd(q, d, nh), _mm512_fnmadd_pd(q, dl, nl)),
                        inv);
    *t = _mm512_castsi512_pd(_mm512_add_epi64(shift, _mm512_maskz_mov_epi64(neg, k)));
    return q;
}

/* |x| <= 708: a normal result, 2^k applied as a product */
static inline __m512d VM(v64t_sigmoid_fast)(const VM(v64t_exp_consts) * c, __m512d x)
{
    __m512d cq, t, q = VM(v64t_sigmoid_q)(c, x, &cq, &t);
    __m512i k = _mm512_sub_epi64(_mm512_castpd_si512(t), _mm512_set1_epi64(0x4338000000000000ll));
    __m512d sc = _mm512_castsi512_pd(
        _mm512_slli_epi64(_mm512_add_epi64(k, _mm512_set1_epi64(1023)), 52));
    return _mm512_mul_pd(_mm512_add_pd(q, cq), sc);
}

/* any x: 2^k (q + c) rounded once by v64_scale; a NaN argument is the result (its sign
 * and payload kept, as the portable sigmoid keeps them: |x| would lose the sign) */
static inline __m512d VM(v64t_sigmoid_general)(const VM(v64t_exp_consts) * c, __m512d x)
{
    __m512d cq, t, q = VM(v64t_sigmoid_q)(c, x, &cq, &t);
    __m512d s = _mm512_add_pd(q, cq);
    __m512d l = _mm512_add_pd(_mm512_sub_pd(q, s), cq);
    s = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q), s, x);
    return VM(v64t_scale)(s, l, t);
}

V64T_ROW(sigmoid64_row, VM(v64t_sigmoid_fast), VM(v64t_sigmoid_general))

/* ---- log ----
 * Note [float64 log with a table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The portable log (v64_log_pos in cpu_vmath64.h) divides, as 2 atanh((m - 1) / (m + 1)),
 * and a division correct to a double-double costs about ten operations.  Here none:
 * x = 2^e m, m in [0.75, 1.5) (bits less those of 0.75, as the portable reduction does
 * with sqrt(1/2)); c = vrcp14pd(m) (2^-14) rounded to sixteenths (vrndscalepd), so
 * c in {11/16, ..., 21/16} and r = m c - 1 is exact in one FMA (m c has at most
 * 53 + 4 significant bits and |r| <= 0.047 < 2^-4 drops the top four); then
 *     log x = (e ln2_hi + L_c) + r + (e ln2_lo + l_c + r^2 P(r)),
 * L_c + l_c = -log c from a 16-entry table read by vpermt2pd (index 16c mod 16), L_c a
 * multiple of 2^-42 as ln2_hi (42 bits, |e| <= 1075) is, so the first sum is exact; the
 * second by fast_two_sum (|e ln2_hi + L_c| >= 0.06 > |r| unless it is 0, for c = 1, where
 * r = m - 1 and x near 1 keeps its relative accuracy).  P of degree 9 on |r| <= 0.0476
 * (tools/gen_vmath64_coeffs.py: 2^-64 absolute in log1p(r), 2^-61 of r for c = 1).
 * One rounding of size 0.5 ulp, the rest a few hundredths: bound 1 ulp, measured 0.507
 * on tests/test_vmath64.py's sample, 0.536 at x = 1.03173 (c near the midpoint below
 * 15/16) in 6.2e7 arguments (a review's: every binade, 1 +- k 2^-52, the midpoints).
 * c's choice near a midpoint between sixteenths rests on vrcp14pd's last bits; either
 * choice gives an exact r within P's interval.  A vector of positive
 * normal arguments runs without the subnormals' scaling (x 2^52, e - 52) and the special
 * values' selects (0 -> -inf, x < 0 -> NaN, inf, NaN), which any other vector applies
 * (as exp's and sigmoid's rows choose their paths): the same bits for its positive
 * normal arguments. */
static const double VM(v64t_log_p)[10] = {0x1.76277106d5186p-4, -0x1.9b8a21093656fp-4,
                                          0x1.c71b88ea0c199p-4, -0x1.ffff03be2b8fap-4,
                                          0x1.2492493cb3ae0p-3, -0x1.5555556f792abp-3,
                                          0x1.9999999997d9ap-3, -0x1.fffffffffe1abp-3,
                                          0x1.5555555555555p-2, -0x1.0000000000000p-1};
static const double VM(v64t_log_c_hi)[16] = {0x0.0p+0,
                                             -0x1.f0a30c0118000p-5,
                                             -0x1.e27076e2b0000p-4,
                                             -0x1.5ff3070a7a000p-3,
                                             -0x1.c8ff7c79aa000p-3,
                                             -0x1.1675cababa000p-2,
                                             0x0.0p+0,
                                             0x0.0p+0,
                                             0x0.0p+0,
                                             0x0.0p+0,
                                             0x0.0p+0,
                                             0x1.7fafa3bd81000p-2,
                                             0x1.269621134e000p-2,
                                             0x1.a93ed3c8ae000p-3,
                                             0x1.1178e8227e000p-3,
                                             0x1.08598b59e4000p-4};
static const double VM(v64t_log_c_lo)[16] = {0x0.0p+0,
                                             0x1.d599e83368e91p-45,
                                             0x1.a342c2af0003cp-45,
                                             0x1.8586f183bebf2p-44,
                                             0x1.7794f689f8434p-45,
                                             -0x1.8380e731f55c4p-44,
                                             0x0.0p+0,
                                             0x0.0p+0,
                                             0x0.0p+0,
                                             0x0.0p+0,
                                             0x0.0p+0,
                                             0x1.46fb79bf6d4cbp-44,
                                             -0x1.1b61f10522625p-44,
                                             -0x1.8724350562169p-45,
                                             0x1.1ef78ce2d07f2p-45,
                                             -0x1.7e5dd7009902cp-46};

typedef struct {
    __m512d hi0, hi1, lo0, lo1, p[10];
} VM(v64t_log_consts);

/* log x = h + *lo (a double-double) for x > 0 finite, scaled by 2^52 in the lanes of sub
 * (subnormal arguments) */
static inline __m512d VM(v64t_log_dd)(const VM(v64t_log_consts) * c, __m512d x, __mmask8 sub,
                                      __m512d *lo_out)
{
    x = _mm512_mask_mul_pd(x, sub, x, _mm512_set1_pd(0x1p52));
    __m512i ix = _mm512_castpd_si512(x);
    __m512i k = _mm512_sub_epi64(ix, _mm512_set1_epi64(0x3fe8000000000000ll)); /* 0.75 */
    __m512i top = _mm512_and_si512(k, _mm512_set1_epi64((long long)0xfff0000000000000ull));
    __m512d m = _mm512_castsi512_pd(_mm512_sub_epi64(ix, top));
    __m512d e = _mm512_cvtepi64_pd(_mm512_srai_epi64(k, 52));
    e = _mm512_mask_sub_pd(e, sub, e, _mm512_set1_pd(52.0));
    __m512d inv = _mm512_roundscale_pd(_mm512_rcp14_pd(m),
                                       (4 << 4) | _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512d r = _mm512_fmsub_pd(m, inv, _mm512_set1_pd(1.0)); /* exact */
    __m512i j = _mm512_castpd_si512(
        _mm512_fmadd_pd(inv, _mm512_set1_pd(16.0), _mm512_set1_pd(V64_SHIFT)));
    __m512d lc = _mm512_permutex2var_pd(c->hi0, j, c->hi1);
    __m512d lcl = _mm512_permutex2var_pd(c->lo0, j, c->lo1);
    __m512d p = c->p[0];
    for (int i = 1; i < 10; i++)
        p = _mm512_fmadd_pd(p, r, c->p[i]);
    __m512d a = _mm512_fmadd_pd(e, _mm512_set1_pd(V64_LN2_HI), lc); /* exact */
    __m512d h = _mm512_add_pd(a, r);
    __m512d lo = _mm512_sub_pd(r, _mm512_sub_pd(h, a)); /* fast_two_sum */
    lo = _mm512_add_pd(lo, _mm512_fmadd_pd(e, _mm512_set1_pd(V64_LN2_LO), lcl));
    *lo_out = _mm512_fmadd_pd(_mm512_mul_pd(r, r), p, lo);
    return h;
}

static inline void VM(v64t_log_load)(VM(v64t_log_consts) * c)
{
    c->hi0 = _mm512_loadu_pd(VM(v64t_log_c_hi));
    c->hi1 = _mm512_loadu_pd(VM(v64t_log_c_hi) + 8);
    c->lo0 = _mm512_loadu_pd(VM(v64t_log_c_lo));
    c->lo1 = _mm512_loadu_pd(VM(v64t_log_c_lo) + 8);
    for (int i = 0; i < 10; i++)
        c->p[i] = _mm512_set1_pd(VM(v64t_log_p)[i]);
}

/* log x (ch = 0), or log x times ch + cl (1 / ln2 or 1 / ln10 as a double-double, as the
 * portable v64_log_times: the product's high part exact by an FMA, the three others summed),
 * of 8 lanes of x > 0 finite, scaled as for log_dd in the lanes of sub */
static inline __m512d VM(v64t_log_times)(const VM(v64t_log_consts) * c, __m512d x, __mmask8 sub,
                                         double ch, double cl)
{
    __m512d lo, h = VM(v64t_log_dd)(c, x, sub, &lo);
    if (ch == 0.0)
        return _mm512_add_pd(h, lo);
    const __m512d vh = _mm512_set1_pd(ch), vl = _mm512_set1_pd(cl);
    __m512d p = _mm512_mul_pd(h, vh), pe = _mm512_fmsub_pd(h, vh, p);
    return _mm512_add_pd(p, _mm512_add_pd(pe, _mm512_fmadd_pd(h, vl, _mm512_mul_pd(lo, vh))));
}

/* rows of log (ch = 0), log2 and log10: a vector of positive normal arguments without the
 * subnormals' scaling and the special values' selects, any other with them */
static inline void VM(v64t_log_rows)(double *o, const double *a, int64_t n, double ch, double cl)
{
    VM(v64t_log_consts) c;
    VM(v64t_log_load)(&c);
    const __m512d zero = _mm512_setzero_pd(), inf = _mm512_set1_pd(INFINITY);
    for (int64_t i = 0; i < n; i += 8) {
        __mmask8 in = (__mmask8)VM(tail_lanes)(n - i, 8);
        __m512d x = _mm512_mask_loadu_pd(_mm512_set1_pd(1.0), in, a + i);
        /* not a positive normal number: below 2^-1022 (0 and the negative ones too), inf, NaN */
        __mmask8 odd = _mm512_cmp_pd_mask(x, _mm512_set1_pd(0x1p-1022), _CMP_NGE_UQ) |
                       _mm512_cmp_pd_mask(x, _mm512_set1_pd(0x1.fffffffffffffp1023), _CMP_GT_OQ);
        if (!odd) {
            _mm512_mask_storeu_pd(o + i, in, VM(v64t_log_times)(&c, x, 0, ch, cl));
            continue;
        }
        __mmask8 sub = _mm512_cmp_pd_mask(x, _mm512_set1_pd(0x1p-1022), _CMP_LT_OQ);
        __m512d r = VM(v64t_log_times)(&c, x, sub, ch, cl);
        r = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, zero, _CMP_EQ_OQ), r,
                                 _mm512_set1_pd(-INFINITY));
        r = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, zero, _CMP_LT_OQ), r, _mm512_set1_pd(NAN));
        r = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, inf, _CMP_EQ_OQ), r, inf);
        /* a NaN argument, quieted (x + x keeps its sign and payload) */
        r = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q), r, _mm512_add_pd(x, x));
        _mm512_mask_storeu_pd(o + i, in, r);
    }
}

static void VM(log64_row)(double *o, const double *a, int64_t n)
{
    VM(v64t_log_rows)(o, a, n, 0.0, 0.0);
}

/* log2 and log10 (Note [float64 functions from the cores], cpu_vfunc64.h) from the table's
 * log_dd: their bits are the AVX-512 level's own, as log's (0.51 ulp on
 * tests/test_vfunc64.py's sample; one thread, 1e5 in (0, 4), AMD EPYC Zen 4: 346 us with
 * the portable core at AVX2 -> 140, NumPy 130) */
static void VM(log2_64_row)(double *o, const double *a, int64_t n)
{
    VM(v64t_log_rows)(o, a, n, V64_INV_LN2_HI, V64_INV_LN2_LO);
}

static void VM(log10_64_row)(double *o, const double *a, int64_t n)
{
    VM(v64t_log_rows)(o, a, n, V64_INV_LN10_HI, V64_INV_LN10_LO);
}

/* ---- log1p ----
 * Note [float64 log1p with a table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The portable log1p (v64_log1p in cpu_vfunc64.h) is log_dd of u = 1 + x, whose reduction
 * divides; here log u comes from the table's core as a double-double (v64t_log_dd, Note
 * [float64 log with a table]), u + ul = 1 + x by two_sum, and ul / u is added to the low
 * part with 1 / u from vrcp14pd and two Newton steps (to about 2^-53 with their roundings,
 * of a term at most 2^-53 of u; the next term of log(u + ul), (ul / u)^2 / 2, is below
 * 2^-107): one rounding.  Below 2^-20 the portable series,
 * the same operations; the special values as the portable's (-1 -> -inf, below it NaN,
 * inf, -0.0 kept, NaN quieted).  At AVX-512 only: its bits differ from the other levels'
 * by the cores' last bits (both within 1 ulp; tests/test_vfunc64.py).  One thread, 1e5
 * (AMD EPYC Zen 4): 297 us at AVX2 (the portable kernel) -> 171 (NumPy 111). */
static void VM(log1p_64_row)(double *o, const double *a, int64_t n)
{
    VM(v64t_log_consts) c;
    VM(v64t_log_load)(&c);
    const __m512d one = _mm512_set1_pd(1.0), inf = _mm512_set1_pd(INFINITY);
    const __m512d zero = _mm512_setzero_pd();
    for (int64_t i = 0; i < n; i += 8) {
        __mmask8 in = (__mmask8)VM(tail_lanes)(n - i, 8);
        __m512d x = _mm512_maskz_loadu_pd(in, a + i);
        __m512d u = _mm512_add_pd(one, x);
        __m512d bv = _mm512_sub_pd(u, one); /* two_sum(1, x) */
        __m512d ul = _mm512_add_pd(_mm512_sub_pd(one, _mm512_sub_pd(u, bv)), _mm512_sub_pd(x, bv));
        /* u a positive finite number (u >= 2^-53 when it is: no subnormal) */
        __mmask8 ok = _mm512_cmp_pd_mask(u, zero, _CMP_GT_OQ) &
                      _mm512_cmp_pd_mask(u, _mm512_set1_pd(0x1.fffffffffffffp1023), _CMP_LE_OQ);
        __m512d uu = _mm512_mask_mov_pd(one, ok, u);
        __m512d lo, h = VM(v64t_log_dd)(&c, uu, 0, &lo);
        __m512d inv = _mm512_rcp14_pd(uu);
        inv = _mm512_fmadd_pd(inv, _mm512_fnmadd_pd(uu, inv, one), inv);
        inv = _mm512_fmadd_pd(inv, _mm512_fnmadd_pd(uu, inv, one), inv);
        __m512d r = _mm512_add_pd(h, _mm512_fmadd_pd(ul, inv, lo));
        /* below 2^-20: x + x (x (x (1/3 - x/4) - 1/2)), as v64_log1p's */
        __m512d q = _mm512_fmadd_pd(_mm512_fmadd_pd(x, _mm512_set1_pd(-0.25),
                                                    _mm512_set1_pd(1.0 / 3)),
                                    x, _mm512_set1_pd(-0.5));
        __m512d sr = _mm512_add_pd(x, _mm512_mul_pd(x, _mm512_mul_pd(x, q)));
        __mmask8 tiny = _mm512_cmp_pd_mask(_mm512_abs_pd(x), _mm512_set1_pd(0x1p-20), _CMP_LT_OQ);
        r = _mm512_mask_mov_pd(r, tiny, sr);
        if (ok != 0xff) {
            r = _mm512_mask_mov_pd(r, _mm512_cmp_pd_mask(u, zero, _CMP_EQ_OQ),
                                   _mm512_set1_pd(-INFINITY));
            r = _mm512_mask_mov_pd(r, _mm512_cmp_pd_mask(u, zero, _CMP_LT_OQ), _mm512_set1_pd(NAN));
            r = _mm512_mask_mov_pd(r, _mm512_cmp_pd_mask(u, inf, _CMP_EQ_OQ), inf);
        }
        r = _mm512_mask_mov_pd(r, _mm512_cmp_pd_mask(x, zero, _CMP_EQ_OQ), x); /* -0.0 stays */
        r = _mm512_mask_mov_pd(r, _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q), _mm512_add_pd(x, x));
        _mm512_mask_storeu_pd(o + i, in, r);
    }
}

/* ---- tanh ----
 * Note [float64 tanh with a table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The portable tanh's formula, sign(x) em / (em + 2) with em = e^v - 1, v = 2 min(|x|, 20)
 * (v64_tanh in cpu_vmath64.h), with e^v from exp's table (Note [float64 exp with a
 * table]) kept as a double-double, since em's relative accuracy near 0 is tanh's:
 * v = n ln2/16 + r + c exactly (r rounded, c its error: n ln2_hi exact, the rest by
 * Knuth's difference), S = 2^k T_j, and
 *     em = (S - 1) + S r + (S (r^2 P(r) + c (1 + r)) + 2^k t_j (1 + r)),
 * S - 1 exact (S = T_j in [1, 2) for k = 0; k <= 57, and past k = 52 the rounding of S - 1
 * is below tanh's), S r split exactly by an FMA, the first two summed by fast_two_sum
 * (|S - 1| >= 0.044 > |S r| unless S = 1), the rest added and the whole renormalised:
 * em to about 2^-60 of itself (for n = 0, em = r + r^2 P(r) with r = v exact).
 * d = em + 2 by fast_two_sum on the larger and the smaller of the two (max, min).  The
 * quotient: 1 / d from vrcp14pd and one Newton step (2^-28), q0 = em / d from it, then
 * one correction from the exact residual of the double-double numerator and
 * denominator, rounded once in the FMA: q0's 2^-28 becomes 2^-56 (an eighth of an ulp
 * at most) and the rounding adds half an ulp, so bound 1 ulp as for the portable
 * functions, measured 0.540 on tests/test_vmath64.py's sample, 0.577 at
 * x = 0.5302874641151889 in 9.7e7 arguments (a review's sample: every n ln2/32 boundary,
 * tiny, subnormal and large |x|).
 * The sign by a ternary-logic OR of x's; a NaN argument is selected as the result (as
 * x + x: quiet, its sign and payload kept). */
static void VM(tanh64_row)(double *o, const double *a, int64_t n)
{
    VM(v64t_exp_consts) c;
    VM(v64t_exp_load)(&c);
    const __m512d one = _mm512_set1_pd(1.0), two = _mm512_set1_pd(2.0);
    const __m512d shift = _mm512_set1_pd(V64_SHIFT);
    const __m512i sign = _mm512_set1_epi64((long long)0x8000000000000000ull);
    for (int64_t i = 0; i < n; i += 8) {
        __mmask8 in = (__mmask8)VM(tail_lanes)(n - i, 8);
        __m512d x = _mm512_maskz_loadu_pd(in, a + i);
        __m512d v = _mm512_mul_pd(two, _mm512_min_pd(_mm512_set1_pd(20.0), _mm512_abs_pd(x)));
        __m512d t = _mm512_fmadd_pd(v, _mm512_set1_pd(0x1.71547652b82fep+4), shift);
        __m512d nd = _mm512_sub_pd(t, shift);
        __m512d rh = _mm512_fnmadd_pd(nd, _mm512_set1_pd(V64T_LN2_16_HI), v); /* exact */
        __m512d nl = _mm512_mul_pd(nd, _mm512_set1_pd(V64T_LN2_16_LO));
        __m512d r = _mm512_sub_pd(rh, nl);
        __m512d cr = _mm512_sub_pd(_mm512_sub_pd(rh, r), nl);
        __m512d p = c.p[0];
        for (int j = 1; j < 6; j++)
            p = _mm512_fmadd_pd(p, r, c.p[j]);
        __m512d q = _mm512_fmadd_pd(_mm512_mul_pd(r, r), p, _mm512_fmadd_pd(cr, r, cr));
        __m512i ti = _mm512_castpd_si512(t);
        __m512d th = _mm512_permutex2var_pd(c.hi0, ti, c.hi1);
        __m512d tl = _mm512_permutex2var_pd(c.lo0, ti, c.lo1);
        __m512d sc = _mm512_castsi512_pd(
            _mm512_add_epi64(VM(v64t_exp_k52)(ti), _mm512_castpd_si512(one)));
        __m512d s = _mm512_mul_pd(th, sc), tls = _mm512_mul_pd(tl, sc);
        __m512d am = _mm512_sub_pd(s, one); /* exact */
        __m512d ph = _mm512_mul_pd(s, r), pl = _mm512_fmsub_pd(s, r, ph);
        __m512d b = _mm512_add_pd(am, ph);
        __m512d bl = _mm512_sub_pd(ph, _mm512_sub_pd(b, am));
        __m512d lo = _mm512_add_pd(_mm512_add_pd(pl, bl),
                                   _mm512_fmadd_pd(s, q, _mm512_fmadd_pd(tls, r, tls)));
        __m512d em = _mm512_add_pd(b, lo);
        __m512d eml = _mm512_sub_pd(lo, _mm512_sub_pd(em, b));
        __m512d big = _mm512_max_pd(em, two), small = _mm512_min_pd(em, two);
        __m512d d = _mm512_add_pd(big, small);
        __m512d dl = _mm512_add_pd(_mm512_sub_pd(small, _mm512_sub_pd(d, big)), eml);
        __m512d inv = _mm512_rcp14_pd(d);
        inv = _mm512_fmadd_pd(inv, _mm512_fnmadd_pd(d, inv, one), inv);
        __m512d q0 = _mm512_mul_pd(em, inv);
        __m512d res = _mm512_fnmadd_pd(q0, dl, _mm512_add_pd(_mm512_fnmadd_pd(q0, d, em), eml));
        res = _mm512_fmadd_pd(res, inv, q0);
        /* res | (x & sign): 0xF8 is a | (b & c) */
        res = _mm512_castsi512_pd(_mm512_ternarylogic_epi64(_mm512_castpd_si512(res),
                                                            _mm512_castpd_si512(x), sign, 0xF8));
        res = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q), res,
                                   _mm512_add_pd(x, x)); /* a NaN argument, quieted */
        _mm512_mask_storeu_pd(o + i, in, res);
    }
}
