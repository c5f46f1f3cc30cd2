/* cpu_vtrig_avx512.h - cpu_vtrig.h's float32 functions at the AVX-512 level, in intrinsics:
 * log2, log10 and log (for atanh, asinh, acosh) from tables of 32 floats read with a
 * two-register permute, rsqrt from the 14-bit reciprocal square root and two Newton steps,
 * the quotients of tan, atan, atan2, atanh and asinh and the square roots of asin, acos,
 * asinh and acosh from the divider (vdivps, vsqrtps); log1p with log's table.  Included by
 * cpu_vtrig.h at that level only; the other levels keep cpu_vtrig.h's portable rows (and
 * cpu_vexpm1.h's log1p).
 *
 * Note [float32 log2 and log10 with a table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The portable log2 (Note [float32 inverse functions] in cpu_vtrig.h) takes fdlibm's log
 * with its division and a double-float f^2/2: 2.5 times NumPy 2.4's time at 1e5 elements.
 * Here, division-free as the float64 log (Note [float64 log with a table] in
 * cpu_vmath64_avx512.h):
 *   x = 2^e m, m in [1, 2) (vgetexpps, vgetmantps: subnormals too, without scaling);
 *   c = vrcp14ps(m) rounded to a multiple of 1/32 (vrndscaleps), c in [1/2, 1];
 *   r = m c - 1, exact in one FMA: m is a multiple of 2^-23 and c of 2^-5, so m c is a
 *       multiple of 2^-28, and |r| <= m (2^-6 + 2^-14) < 2^-5 + 2^-13 leaves 24 bits;
 *   log2 x = (e + L_c) + r K + (r^2 Q(r) + r K_lo + l_c),
 * L_c + l_c = -log2 c (L_c a multiple of 2^-15, so e + L_c is exact; l_c the rest), from
 * a table of the 17 values c = 16/32 .. 32/32 indexed by the low five bits of 32 c (32 c
 * = 32 wraps to 0, where 16 sits at 16): two zmm registers and one vpermt2ps each.  K =
 * 1/ln2 = K_hi + K_lo, r K_hi split exactly by an FMA; Q of degree 3 fitted to
 * (log2(1 + r) - r K) / r^2 on |r| <= 2^-5 + 2^-12 (tools/gen_vmath64_coeffs.py;
 * 2^-30.2 relative to log2(1 + r)).  The sum: s = (e + L_c) + r K_hi by Fast2Sum (|e +
 * L_c| >= 0.04 > |r K_hi| unless e + L_c = 0, when s is r K_hi itself), then s + (its
 * error + the small terms), one rounding.  Near x = 1, e = 0 and c = 1 (or e = -1 and c =
 * 1/2, L_c = 1), so e + L_c is 0 and the result keeps r's relative accuracy.
 * log10 the same way with its own table, K = 1/ln10 and e log10(2) in two parts (the
 * high one a multiple of 2^-15, so e log10(2)_hi + L_c is exact; one function, vta_log,
 * with each base's table and constants in registers; the first version multiplied log2 by
 * log10(2) in two parts, five more operations).
 * Bound 0.75 ulp as the portable rows' (tests/test_trig.py's FMA_ULPS32); measured over
 * every positive float: log2 0.539 (x = 0x1.f57ed8p-1), log10 0.534 ulp (0x1.f1b488p-1).
 * Special values by one vfpclassps test a vector (NaN, zeros, infinities, negatives):
 * -inf for +-0, +inf for +inf, NaN below 0, a NaN argument as x + x.
 *
 * Note [float32 rsqrt from the reciprocal square root]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The portable rsqrt is 1 / sqrt(x) and one careful Newton step (cpu_vtrig.h): a square
 * root and a division, both long on one port.  Here y0 = vrsqrt14ps(x) (relative error
 * below 2^-14), one plain Newton step y1 = y0 + (y0 / 2)(1 - (x y0) y0) (2^-23 or so,
 * the product's rounding included), then the portable row's residual from y1: y1^2 = t +
 * te split exactly, r = (1 - x t) - x te to 2^-48, and y1 (1 + r/2 + 3 r^2/8) rounded once
 * (the series of (1 - r)^(-1/2)).  Without the r^2 term (the portable row's step) the
 * result was within 2^-23 ulp but not correctly rounded: for x = 4^k (1 - 2^-23), y1 =
 * 2^-k exactly and y1 (1 + r/2) is the midpoint, which 3 r^2/8 = 3/8 2^-46 decides (a
 * review's exhaustive check: 128 such x rounded down).  The same scaling by 2^64 or 2^-64 below
 * 2^-100 or above 2^100 (y by 2^32, 2^-32) keeps y^2 normal.  +-0, +inf, negatives and NaN
 * take vrsqrt14ps's own result (+-inf, 0, NaN), a NaN argument x + x.  Bound 0.501 ulp;
 * correctly rounded on every positive float (checked exhaustively with exact integer
 * arithmetic against the midpoints; the nearest true value to a midpoint is 2^-28.5 ulp
 * away, at x = 0x1.7431c6p-125).
 *
 * Note [float32 atan from the quotient]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The portable atan's reduction (Note [float32 inverse functions] in cpu_vtrig.h) with
 * a = |x| and B = 1, where it simplifies: t = a (a <= tan(pi/8)), (a - 1) / (a + 1)
 * (base pi/4) or -1 / a (above tan(3 pi/8), base pi/2).  For the middle interval a - 1 +
 * nl and a + 1 + dl are exact with nl = a - ((a - 1) + 1) and dl = a - ((a + 1) - 1) (each
 * inner sum exact by Sterbenz's lemma or, for a + 1 in (2, 3.42], because a + 1 - 1 is a
 * multiple of 2^-22 below 4); 2Sum's six operations become two.  t = n / d is one
 * division (the divider runs beside the FMA units; it was vrcp14ps, a Newton step and a
 * product, three more operations in the FMA units' queue), and tl = ((n - t d) + nl - t
 * dl) (1 / d) its error, 1 / d from vrcp14ps alone (2^-14 of a term below 2^-23 t).
 * atan(t + tl) = t + t z P(z) + tl (1 - z), z = t^2, P the portable row's.  The base (0,
 * pi/4 or pi/2) and t are summed by Fast2Sum (|t| <= tan(pi/8) is below a base that is not
 * 0), and t z P(z), tl's terms, the base's low part and that sum's error, all below 2^-3 of
 * the result, are added together first and once to it (it was two Fast2Sums, t + w and
 * then the base).  A NaN goes through the arithmetic as a NaN (no patch); a above 2^120
 * (inf included) takes 2^120 for the quotient, which rounds to pi/2 all the same.  Bound
 * 1 ulp as the portable row's; measured 0.698 over every float (x = 0x1.b1018ap-2; it was
 * 0.646 with the reciprocal and two Fast2Sums).  One thread, 1e6 float32 (a standalone
 * loop, the best of 200): 410-420 -> 322-331 us.  atan2 takes the same quotient and sum
 * for n = min(|y|, |x|) over d = the max, n - d and n + d exact by Fast2Sum (d >= n) in
 * the middle interval, the quotient negated where one of |y| > |x| and x's sign bit
 * holds, on a base read from a table by those three bits (0, pi/4, pi/2 with x's sign
 * bit clear; pi, 3 pi/4, pi/2 with it set: pi - atan(|y| / |x|) folded in, not a second
 * Fast2Sum), and y's sign last.  C's special values (an infinite operand, both zero) and
 * the scalings that keep the residual normal (n below 2^-60, d above 2^100) are a branch
 * taken by a vector with such a lane (vta_atan2_odd; they were paid by every vector), which
 * changes no bit of its ordinary lanes.  Bound 1 ulp; measured 0.7500011 on 1.7e8 pairs of
 * random bits (and ratios near tan(pi/8), 1, tan(3 pi/8), 1e-3 and 1e3; the worst a result
 * in [2^-125, 2^-124), where tl, about 2^-24 t, is subnormal and rounded to 2^-149; 0.64
 * for results above 2^-100) and 0.69 on 1.3e8 of ordinary values (normal, 10^+-15) and
 * ratios near the thresholds, as before.  One thread, 1e6: 780 -> 470 us.
 *
 * Note [float32 asin and acos from the square root]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The portable rows' formulas (Note [float32 inverse functions] in cpu_vtrig.h): above
 * |x| = 1/2, asin |x| = pi/2 - 2 asin s, s = sqrt(z), z = (1 - |x|) / 2 exact, with s's
 * rounding error es carried; there the square roots went through a buffer of 256 (the
 * instruction, since GCC keeps sqrtf a call) and es took a division.  Here s is vsqrtps
 * (correctly rounded, one operation beside the FMA units; it was z y from y = vrsqrt14ps(z)
 * and a Newton step, four more operations in their queue, 15% of the row's time), and es =
 * (z - s^2) (y / 2), s^2 by an FMA, y = vrsqrt14ps(z) (2^-14 of es, itself below 2^-24 s).
 * z = 0 (|x| = 1) takes es = 0 (y is inf).  acos: B + (S + G), B = pi/2, 0 or pi and S, G
 * = s and g (or 2 s, 2 g) with one sign flip, B_hi + S by Fast2Sum, so that the three
 * cases share their last five operations.  Bound 0.75 ulp as the portable rows'; measured
 * over every float of [-1, 1]: asin 0.611 (x = 0x1.da5fd2p-2), acos 0.603
 * (0x1.2379a2p-1); 0.643 and 0.638 with the Newton step.
 *
 * Note [float32 tan with one quotient]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The portable tan (cpu_vtrig.h's tanf_f) for 16 lanes, with two changes: -1 / (hi + lo)
 * for odd n is -1 / hi from the divider (it was 1 / hi from vrcp14ps and a Newton step),
 * then the same correction from the exact residual -1 - q hi - q lo, times 1 / hi from
 * vrcp14ps (2^-14 of a correction below 2^-23 of q); and the reduction's 2Sum is skipped
 * for a vector whose lanes all have |n pio2_2| <= |r1| / 4 (see the code: x not within
 * about 4 |n| 2^-24 of a multiple of pi/2), where one FMA rounds r and r1 - r is exact.
 * Past 2^13, inf and NaN a lane takes the C library's tan in double, as before.  Bound 1.5
 * ulp as the portable row's; measured 0.9935 over every float of |x| <= 2^13 (x =
 * 0x1.2ddc82p+1, the portable row's maximum, at the same x; 0.994 with the Newton step).
 *
 * Note [float32 atanh, asinh and acosh with log's table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The portable rows' formulas (Note [float32 inverse functions] in cpu_vtrig.h), each
 * ending in log(u) + c, u near the argument of a log1p and c a relative correction below
 * 2^-22 (or log(a) + ln2 past 2^12): that log is log2's method (Note [float32 log2 and
 * log10 with a table]) with a table of -log(j/32) and k ln2 in two parts (ln2_hi a
 * multiple of 2^-15, so that k ln2_hi + the table's high part is exact, as e + L_c is for
 * log2), K = 1, Q fitted to (log1p(r) - r) / r^2 (2^-30.0), and c added to the small
 * terms.  k ln2_lo and the table's low part are added first, since they cancel exactly
 * for k = -1, c = 1/2 (x just below 1; added after r^2 Q, their sum's rounding cost 1.1
 * ulp there).  The divisions and square roots are the divider's (vdivps, vsqrtps: one
 * operation each, correctly rounded, beside the FMA units; they were the reciprocal or
 * reciprocal square root and a Newton step, four to six operations in the FMA units' queue),
 * atanh's quotient (1 + a) / (1 - a) then corrected from its exact residual, the
 * correction c = (its error) / u from a 14-bit reciprocal (c is below 2^-22, so 2^-14 of it
 * is nothing), as acosh's square root's residual takes 1 / s from vrsqrt14ps.  Bounds as
 * the portable rows' (atanh 1, asinh and acosh 1.5 ulp); measured over every float of the
 * domain: atanh 0.527 (x = 0x1.6a9002p-12), asinh 1.020 (0x1.218e18p+0, where the result
 * is just below 1; 1.064 with the Newton steps), acosh 0.868 (0x1.07e902p+0), log itself
 * 0.533 (0x1.f0a53cp-1).  One thread, 1e6, CPU time (`python benchmarks/bench_vmath.py
 * --dtype float32 --threads 1 --cpu-time --levels avx512`, a loaded 2-core AMD EPYC,
 * 2026-12-03): asinh 1.6-1.9 -> 1.4-1.5 times NumPy's, acosh 1.65-1.7 -> 1.4-1.6, atanh
 * 1.25-1.6 -> 1.35 (noisy).
 *
 * Note [float32 log1p with log's table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * cpu_vexpm1.h's log1p (fdlibm's arrangement in float32 lanes, with a division; 0.835 ulp)
 * took 1.1-1.5 times NumPy 2.4's time at 1e5-1e6 at AVX-512.  Here log1p(x) = log(u) + c
 * with u = 1 + x rounded and c = err / u, err = 1 + x - u exact (Fast2Sum, the larger
 * first: x for |x| < 1, else 1), the quotient from the divider (one operation beside the
 * FMA units; it was the reciprocal and a Newton step, three more in their queue); the
 * log is the table log above with c among its small terms.  c is below 2^-24 of u, and its
 * quotient's error (half an ulp of c) is nothing against the result wherever that result is at
 * least 2^-10 or so; below |x| = 2^-10, where c can be as large as the result itself, x +
 * x^2 (-1/2 + x/3 - x^2/4) in one FMA instead (the next term is below 2^-40 of x).  x = -1
 * gives -inf, below it NaN, +inf inf, a NaN x + x, the zeros and subnormals themselves.
 * Measured over every float of [-1, inf) against the C library's double log1p (a standalone probe,
 * 2026-12-01): at most 0.5370 ulp (x = -0x1.ed261p-6; 0.5178 for x > 0), all but 248,877
 * correctly rounded; the same bound as the other levels' (1 ulp, tests/test_rounding.py),
 * and 0.81 ns an element where log2 takes 0.74 in the same run.
 */
#include <immintrin.h>

#define VTA_S(c) _mm512_set1_ps(c)

/* v, with a NaN x (or y) as x + y there (quieted, its payload kept) */
static inline __m512 VM(vta_nan)(__m512 v, __m512 x, __m512 y)
{
    __mmask16 nan = _mm512_cmp_ps_mask(x, y, _CMP_UNORD_Q);
    return nan ? _mm512_mask_add_ps(v, nan, x, y) : v;
}

/* vfpclassps categories: QNaN 0x01, +0 0x02, -0 0x04, +inf 0x08, -inf 0x10, negative
 * finite 0x40, SNaN 0x80 (denormals 0x20 are left out: they are ordinary here) */
#define VTA_SPECIAL 0xDF

/* ---- rsqrt (Note [float32 rsqrt from the reciprocal square root]) ---- */
static void VM(rsqrt_row)(float *o, const float *a, int64_t n)
{
    const __m512 one = VTA_S(1.0f), half = VTA_S(0.5f);
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 in = (__mmask16)VM(tail_lanes)(n - i, 16);
        __m512 x = _mm512_mask_loadu_ps(VTA_S(1.0f), in, a + i); /* 1: no special lane */
        __mmask16 tiny = _mm512_cmp_ps_mask(x, VTA_S(0x1p-100f), _CMP_LT_OQ);
        __mmask16 huge = _mm512_cmp_ps_mask(x, VTA_S(0x1p100f), _CMP_GT_OQ);
        __m512 xs = _mm512_mask_mul_ps(x, tiny, x, VTA_S(0x1p64f));
        xs = _mm512_mask_mul_ps(xs, huge, x, VTA_S(0x1p-64f));
        __m512 y0 = _mm512_rsqrt14_ps(xs);
        __m512 r = _mm512_fnmadd_ps(_mm512_mul_ps(xs, y0), y0, one);
        __m512 y = _mm512_fmadd_ps(_mm512_mul_ps(half, y0), r, y0);
        __m512 t = _mm512_mul_ps(y, y), te = _mm512_fmsub_ps(y, y, t);
        r = _mm512_fnmadd_ps(xs, te, _mm512_fnmadd_ps(xs, t, one));
        /* y (1 + r/2 + 3r^2/8): the r^2 term decides the rounding near a midpoint */
        __m512 res = _mm512_fmadd_ps(
            y, _mm512_fmadd_ps(_mm512_mul_ps(VTA_S(0.375f), r), r, _mm512_mul_ps(half, r)), y);
        res = _mm512_mask_mul_ps(res, tiny, res, VTA_S(0x1p32f));
        res = _mm512_mask_mul_ps(res, huge, res, VTA_S(0x1p-32f));
        __mmask16 sp = _mm512_fpclass_ps_mask(x, VTA_SPECIAL);
        if (sp) {
            res = _mm512_mask_mov_ps(res, sp, y0);
            res = VM(vta_nan)(res, x, x);
        }
        _mm512_mask_storeu_ps(o + i, in, res);
    }
}

/* ---- log2 and log10 (Note [float32 log2 and log10 with a table]) ---- */
/* -log2(j / 32) for j = 16..32 at index j mod 32: a multiple of 2^-15, and the rest
 * (tools/gen_vmath64_coeffs.py) */
static const float VM(vta_log2_hi)[32] = {[16] = 0x1.0p+0f, 0x1.d338p-1f, 0x1.a9p-1f,
                                          0x1.811p-1f,      0x1.5b2cp-1f, 0x1.3724p-1f,
                                          0x1.14c4p-1f,     0x1.e7ep-2f,  0x1.a9p-2f,
                                          0x1.6cbp-2f,      0x1.32cp-2f,  0x1.f6p-3f,
                                          0x1.8a9p-3f,      0x1.22ep-3f,  0x1.7d6p-4f,
                                          0x1.774p-5f};
static const float VM(vta_log2_lo)[32] = {[16] = 0x0.0p+0f, 0x1.20a6dep-21f,  -0x1.a39fbep-19f,
                                          -0x1.6b9026p-19f, 0x1.ed0cbap-20f,  -0x1.d448f8p-17f,
                                          0x1.60fe68p-17f,  -0x1.40358ep-19f, -0x1.a39fbep-20f,
                                          0x1.ed0cbap-19f,  -0x1.1c8f12p-22f, -0x1.3ab7cep-18f,
                                          -0x1.9fd502p-17f, -0x1.48f554p-17f, 0x1.25b3eep-22f,
                                          -0x1.acd89ap-19f};
/* -log(j / 32) likewise, log's */
static const float VM(vta_ln_hi)[32] = {[16] = 0x1.62e4p-1f, 0x1.43d8p-1f, 0x1.2698p-1f,
                                        0x1.0ae8p-1f,        0x1.e148p-2f, 0x1.af5p-2f,
                                        0x1.7fbp-2f,         0x1.5228p-2f, 0x1.2698p-2f,
                                        0x1.f99p-3f,         0x1.a94p-3f,  0x1.5bfp-3f,
                                        0x1.118p-3f,         0x1.934p-4f,  0x1.086p-4f,
                                        0x1.04p-5f};
static const float VM(vta_ln_lo)[32] = {[16] = 0x1.7f7d1cp-20f, 0x1.ff2f92p-17f,  -0x1.deecb2p-17f,
                                        -0x1.23a5f6p-18f,       0x1.4344e4p-19f,  0x1.4a9246p-17f,
                                        -0x1.7109fap-20f,       0x1.7039c6p-17f,  -0x1.deecb2p-18f,
                                        0x1.c6cb3cp-19f,        -0x1.2c3752p-19f, 0x1.01ad5p-17f,
                                        -0x1.c5f76p-17f,        -0x1.43454ep-17f, -0x1.9d2988p-18f,
                                        0x1.5d89e8p-17f};
/* -log10(j / 32) likewise, log10's */
static const float VM(vta_lg_hi)[32] = {[16] = 0x1.344p-2f, 0x1.1948p-2f, 0x1.ffcp-3f, 0x1.cfbp-3f,
                                        0x1.a21p-3f,        0x1.76ap-3f,  0x1.4d4p-3f, 0x1.25cp-3f,
                                        0x1.ffcp-4f,        0x1.b72p-4f,  0x1.716p-4f, 0x1.2e4p-4f,
                                        0x1.db0p-5f,        0x1.5e4p-5f,  0x1.cb0p-6f, 0x1.c4p-7f};
static const float VM(vta_lg_lo)[32] = {[16] = 0x1.3509f8p-18f, 0x1.9def7cp-17f,  -0x1.ea21c4p-22f,
                                        -0x1.c6268ep-17f,       -0x1.95ec1p-17f,  0x1.172ee0p-17f,
                                        0x1.fc13aep-18f,        -0x1.5f7a94p-17f, -0x1.ea21c4p-23f,
                                        0x1.cd1716p-20f,        -0x1.798e4cp-19f, -0x1.62fd22p-18f,
                                        0x1.1ed766p-17f,        -0x1.a65206p-19f, 0x1.c7e66cp-17f,
                                        -0x1.7be444p-18f};
/* Q in log_b(1 + r) = r K + r^2 Q(r), degree 3, highest first: log2's (K = 1/ln2), log's
 * (K = 1) and log10's (K = 1/ln10) */
static const float VM(vta_log2_q)[4] = {0x1.27ac66p-2f, -0x1.719306p-2f, 0x1.ec709cp-2f,
                                        -0x1.715476p-1f};
static const float VM(vta_ln_q)[4] = {0x1.99e3f0p-3f, -0x1.002b5ep-2f, 0x1.555554p-2f,
                                      -0x1.fffffep-2f};
static const float VM(vta_lg_q)[4] = {0x1.6406bap-4f, -0x1.bd0306p-4f, 0x1.287a76p-3f,
                                      -0x1.bcb7b0p-3f};

/* A base's table and constants in registers: -log_b(c) in two parts, K = log_b(e) and
 * log_b(2) in two parts each, Q */
typedef struct {
    __m512 h0, h1, l0, l1, k_hi, k_lo, e_hi, e_lo, q[4];
} VM(vta_log_tab);

enum { VTA_LOG2, VTA_LN, VTA_LOG10 };

static inline void VM(vta_log_load)(VM(vta_log_tab) * t, int base)
{
    static const float *const tabs[3][3] = {{VM(vta_log2_hi), VM(vta_log2_lo), VM(vta_log2_q)},
                                            {VM(vta_ln_hi), VM(vta_ln_lo), VM(vta_ln_q)},
                                            {VM(vta_lg_hi), VM(vta_lg_lo), VM(vta_lg_q)}};
    /* K = log_b(e) and log_b(2) (a multiple of 2^-15), each in two parts */
    static const float consts[3][4] = {{0x1.715476p0f, 0x1.4ae0cp-26f, 1.0f, 0.0f},
                                       {1.0f, 0.0f, 0x1.62e4p-1f, 0x1.7f7d1cp-20f},
                                       {0x1.bcb7b2p-2f, -0x1.5b235ep-27f, 0x1.344p-2f,
                                        0x1.3509f8p-18f}};
    const float *h = tabs[base][0], *l = tabs[base][1], *q = tabs[base][2], *k = consts[base];
    t->h0 = _mm512_loadu_ps(h);
    t->h1 = _mm512_loadu_ps(h + 16);
    t->l0 = _mm512_loadu_ps(l);
    t->l1 = _mm512_loadu_ps(l + 16);
    t->k_hi = VTA_S(k[0]);
    t->k_lo = VTA_S(k[1]);
    t->e_hi = VTA_S(k[2]);
    t->e_lo = VTA_S(k[3]);
    for (int i = 0; i < 4; i++)
        t->q[i] = VTA_S(q[i]);
}

/* log_b x + kadd log_b(2) + extra as the sum s + *lo (s the larger), for x positive and
 * finite (other lanes give some value: the caller replaces them), kadd a small integer,
 * extra below 2^-20 of the result */
static inline __m512 VM(vta_log)(const VM(vta_log_tab) * t, __m512 x, __m512 kadd, __m512 extra,
                                 __m512 *lo)
{
    __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
    __m512 e = _mm512_add_ps(_mm512_getexp_ps(x), kadd);
    __m512 c = _mm512_roundscale_ps(_mm512_rcp14_ps(m), (5 << 4) | _MM_FROUND_TO_NEAREST_INT);
    __m512 r = _mm512_fmsub_ps(m, c, VTA_S(1.0f)); /* exact */
    /* 32 c in the low bits of the shifted product: the table index */
    __m512i j = _mm512_castps_si512(_mm512_fmadd_ps(c, VTA_S(32.0f), VTA_S(0x1.8p23f)));
    __m512 T = _mm512_fmadd_ps(e, t->e_hi, _mm512_permutex2var_ps(t->h0, j, t->h1)); /* exact */
    __m512 q = t->q[0];
    for (int k = 1; k < 4; k++)
        q = _mm512_fmadd_ps(q, r, t->q[k]);
    __m512 p = _mm512_mul_ps(r, t->k_hi);
    __m512 pe = _mm512_fmsub_ps(r, t->k_hi, p);
    /* e ln2_lo + l_c first: they cancel exactly for e = -1, c = 1/2 (x just below 1) */
    __m512 small = _mm512_fmadd_ps(e, t->e_lo, _mm512_permutex2var_ps(t->l0, j, t->l1));
    small = _mm512_fmadd_ps(_mm512_mul_ps(r, r), q, _mm512_add_ps(small, extra));
    small = _mm512_add_ps(pe, _mm512_fmadd_ps(r, t->k_lo, small));
    __m512 s = _mm512_add_ps(T, p);
    *lo = _mm512_add_ps(_mm512_sub_ps(p, _mm512_sub_ps(s, T)), small);
    return s;
}

/* log2 or log10 (base VTA_LOG2, VTA_LOG10) of a row */
static void VM(vta_log_row)(float *o, const float *a, int64_t n, int base)
{
    VM(vta_log_tab) t;
    VM(vta_log_load)(&t, base);
    const __m512 zero = _mm512_setzero_ps();
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 in = (__mmask16)VM(tail_lanes)(n - i, 16);
        __m512 x = _mm512_mask_loadu_ps(VTA_S(1.0f), in, a + i), lo;
        __m512 s = VM(vta_log)(&t, x, zero, zero, &lo), res = _mm512_add_ps(s, lo);
        if (_mm512_fpclass_ps_mask(x, VTA_SPECIAL)) {
            res = _mm512_mask_mov_ps(res, _mm512_fpclass_ps_mask(x, 0x06), VTA_S(-INFINITY));
            res = _mm512_mask_mov_ps(res, _mm512_fpclass_ps_mask(x, 0x08), VTA_S(INFINITY));
            res = _mm512_mask_mov_ps(res, _mm512_fpclass_ps_mask(x, 0x50), VTA_S(NAN));
            res = VM(vta_nan)(res, x, x);
        }
        _mm512_mask_storeu_ps(o + i, in, res);
    }
}

static void VM(log2_row)(float *o, const float *a, int64_t n)
{
    VM(vta_log_row)(o, a, n, VTA_LOG2);
}
static void VM(log10_row)(float *o, const float *a, int64_t n)
{
    VM(vta_log_row)(o, a, n, VTA_LOG10);
}

/* ---- atan and atan2 (Note [float32 atan from the quotient]) ---- */
/* bh + bl + atan((nh + nl) / (dh + dl)) as s + *lo (s the larger), |(nh + nl) / (dh +
 * dl)| <= tan(pi/8) and bh 0 or above it (Note [float32 atan from the quotient]) */
static inline __m512 VM(vta_atan_q)(__m512 nh, __m512 nl, __m512 dh, __m512 dl, __m512 bh,
                                    __m512 bl, __m512 *lo)
{
    __m512 t = _mm512_div_ps(nh, dh), r = _mm512_rcp14_ps(dh);
    __m512 res = _mm512_add_ps(_mm512_fnmadd_ps(t, dh, nh), nl);
    __m512 tl = _mm512_mul_ps(_mm512_fnmadd_ps(t, dl, res), r);
    __m512 z = _mm512_mul_ps(t, t);
    __m512 p = VTA_S(VM(atan_c)[0]);
    for (int k = 1; k < 6; k++)
        p = _mm512_fmadd_ps(p, z, VTA_S(VM(atan_c)[k]));
    __m512 w = _mm512_fmadd_ps(_mm512_mul_ps(t, z), p, _mm512_fnmadd_ps(tl, z, tl));
    __m512 s = _mm512_add_ps(bh, t); /* Fast2Sum: |t| <= tan(pi/8) < bh where bh is not 0 */
    __m512 e = _mm512_add_ps(_mm512_sub_ps(bh, s), t);
    *lo = _mm512_add_ps(e, _mm512_add_ps(w, bl));
    return s;
}

/* v with x's sign bit or'ed in (0xF8 is a | (b & c)), a NaN x (or y) as x + y */
static inline __m512 VM(vta_sign_nan)(__m512 v, __m512 x, __m512 y, __m512 s)
{
    const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
    v = _mm512_castsi512_ps(
        _mm512_ternarylogic_epi32(_mm512_castps_si512(v), _mm512_castps_si512(s), sign, 0xF8));
    return VM(vta_nan)(v, x, y);
}

/* rows of F(x), 16 lanes at a time (o may be a) */
#define VTA_ROW(NAME, F)                                                                           \
    static void VM(NAME)(float *o, const float *a, int64_t n)                                      \
    {                                                                                              \
        for (int64_t i = 0; i < n; i += 16) {                                                      \
            __mmask16 in = (__mmask16)VM(tail_lanes)(n - i, 16);                                   \
            _mm512_mask_storeu_ps(o + i, in, F(_mm512_maskz_loadu_ps(in, a + i)));                 \
        }                                                                                          \
    }

static inline __m512 VM(vta_atan)(__m512 x)
{
    const __m512 one = VTA_S(1.0f);
    __m512 ax = _mm512_abs_ps(x), lo;
    __mmask16 mid = _mm512_cmp_ps_mask(ax, VTA_S(VMT_TAN_PI_8), _CMP_GT_OQ);
    __mmask16 big = _mm512_cmp_ps_mask(ax, VTA_S(0x1.3504f4p1f), _CMP_GT_OQ); /* tan 3pi/8 */
    __mmask16 mid_only = _kandn_mask16(big, mid);
    __m512 nh = _mm512_mask_sub_ps(ax, mid, ax, one);
    __m512 dh = _mm512_mask_add_ps(one, mid, ax, one);
    __m512 nl = _mm512_maskz_sub_ps(mid_only, ax, _mm512_add_ps(nh, one));
    __m512 dl = _mm512_maskz_sub_ps(mid_only, ax, _mm512_sub_ps(dh, one));
    nh = _mm512_mask_mov_ps(nh, big, VTA_S(-1.0f));
    dh = _mm512_mask_min_ps(dh, big, ax, VTA_S(0x1p120f));
    __m512 bh = _mm512_mask_mov_ps(_mm512_maskz_mov_ps(mid, VTA_S(VMT_PIO4_HI)), big,
                                   VTA_S(VMT_PIO2_HI));
    __m512 bl = _mm512_mask_mov_ps(_mm512_maskz_mov_ps(mid, VTA_S(VMT_PIO4_LO)), big,
                                   VTA_S(VMT_PIO2_LO));
    __m512 s = VM(vta_atan_q)(nh, nl, dh, dl, bh, bl, &lo);
    /* x's sign bit or'ed in (0xF8 is a | (b & c)); a NaN x went through as a NaN */
    const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
    return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(_mm512_add_ps(s, lo)),
                                                         _mm512_castps_si512(x), sign, 0xF8));
}
VTA_ROW(atan_row, VM(vta_atan))

/* n = min(|y|, |x|) and d = the max for the lanes where either is infinite, both are zero,
 * n is below 2^-60 or d above 2^100, C's special values: an infinite operand is 1 and the
 * other 0 (both infinite: 1 and 1), both zero 0 and 1; the pair scaled by a power of two
 * (by 2^-40 past 2^100, so that n + d stays finite; by 2^100 below 2^24, so that the
 * operands and t's residual are normal where the result is; a ratio past 2^150 rounds to
 * 0 or pi/2 whatever its low bits).  Scaling by a power of two changes no bit of the
 * other lanes, whose operations stay normal and finite either way. */
static inline void VM(vta_atan2_odd)(__m512 *A, __m512 *B, __m512 *n, __m512 *d)
{
    const __m512 one = VTA_S(1.0f), inf = VTA_S(INFINITY);
    __mmask16 ai = _mm512_cmp_ps_mask(*A, inf, _CMP_EQ_OQ),
              bi = _mm512_cmp_ps_mask(*B, inf, _CMP_EQ_OQ);
    *A = _mm512_mask_mov_ps(_mm512_maskz_mov_ps(_knot_mask16(bi), *A), ai, one);
    *B = _mm512_mask_mov_ps(_mm512_maskz_mov_ps(_knot_mask16(ai), *B), bi, one);
    __m512 mn = _mm512_min_ps(*A, *B), mx = _mm512_max_ps(*A, *B);
    mx = _mm512_mask_mov_ps(mx, _mm512_cmp_ps_mask(mx, _mm512_setzero_ps(), _CMP_EQ_OQ), one);
    __m512 sc = _mm512_mask_mov_ps(one, _mm512_cmp_ps_mask(mx, VTA_S(0x1p100f), _CMP_GT_OQ),
                                   VTA_S(0x1p-40f));
    sc = _mm512_mask_mov_ps(sc, _mm512_cmp_ps_mask(mx, VTA_S(0x1p24f), _CMP_LT_OQ),
                            VTA_S(0x1p100f));
    *n = _mm512_mul_ps(mn, sc);
    *d = _mm512_mul_ps(mx, sc);
}

/* atan2(y, x) of 16 lanes: atan(n / d) reduced as atan's (n - d and n + d exact by
 * Fast2Sum in the middle interval, d >= n), the quotient negated where one of |y| > |x|
 * and x's sign bit holds, on a base from a table: 0, pi/4 (middle), pi/2 (|y| > |x|
 * outside it) where x's sign bit is clear, pi, 3 pi/4, pi/2 where it is set; y's sign
 * last. */
static const float VM(vta_atan2_base)[2][8] = {{0.0f, VMT_PIO4_HI, VMT_PIO2_HI, 0.0f, VMT_PI_HI,
                                                0x1.2d97c8p1f, VMT_PIO2_HI, 0.0f},
                                               {0.0f, VMT_PIO4_LO, VMT_PIO2_LO, 0.0f, VMT_PI_LO,
                                                -0x1.99bc5cp-28f, VMT_PIO2_LO, 0.0f}};
static inline __m512 VM(vta_atan2)(__m512 y, __m512 x, __m512 tab_hi, __m512 tab_lo)
{
    const __m512 zero = _mm512_setzero_ps();
    __m512 A = _mm512_abs_ps(y), B = _mm512_abs_ps(x);
    __m512 n = _mm512_min_ps(A, B), d = _mm512_max_ps(A, B);
    if (_kortestz_mask16_u8(_mm512_cmp_ps_mask(d, VTA_S(0x1p100f), _CMP_GT_OQ),
                            _mm512_cmp_ps_mask(n, VTA_S(0x1p-60f), _CMP_LT_OQ)) == 0)
        VM(vta_atan2_odd)(&A, &B, &n, &d);
    __mmask16 sw = _mm512_cmp_ps_mask(A, B, _CMP_GT_OQ);
    __mmask16 xneg = _mm512_movepi32_mask(_mm512_castps_si512(x));
    __mmask16 mid = _mm512_cmp_ps_mask(n, _mm512_mul_ps(d, VTA_S(VMT_TAN_PI_8)), _CMP_GT_OQ);
    __m512 nh = _mm512_sub_ps(n, d), dh = _mm512_add_ps(n, d);
    __m512 nl = _mm512_maskz_sub_ps(mid, n, _mm512_add_ps(nh, d));
    __m512 dl = _mm512_maskz_sub_ps(mid, n, _mm512_sub_ps(dh, d));
    nh = _mm512_mask_mov_ps(n, mid, nh);
    dh = _mm512_mask_mov_ps(d, mid, dh);
    __mmask16 neg = _kxor_mask16(sw, xneg);
    nh = _mm512_mask_sub_ps(nh, neg, zero, nh);
    nl = _mm512_mask_sub_ps(nl, neg, zero, nl);
    __m512i k = _mm512_maskz_mov_epi32(mid, _mm512_set1_epi32(1));
    k = _mm512_mask_mov_epi32(k, _kandn_mask16(mid, sw), _mm512_set1_epi32(2));
    k = _mm512_mask_or_epi32(k, xneg, k, _mm512_set1_epi32(4));
    __m512 lo, s = VM(vta_atan_q)(nh, nl, dh, dl, _mm512_permutexvar_ps(k, tab_hi),
                                  _mm512_permutexvar_ps(k, tab_lo), &lo);
    return VM(vta_sign_nan)(_mm512_add_ps(s, lo), x, y, y);
}

/* atan2(a, b) of float32 rows, mode as VB_ROW's (1: a is one value, 2: b is) */
static void VM(atan2_f32)(char *o, const char *a, const char *b, int64_t n, int mode)
{
    float *po = (float *)o;
    const float *pa = (const float *)a, *pb = (const float *)b;
    __m512 tab_hi = _mm512_zextps256_ps512(_mm256_loadu_ps(VM(vta_atan2_base)[0]));
    __m512 tab_lo = _mm512_zextps256_ps512(_mm256_loadu_ps(VM(vta_atan2_base)[1]));
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 in = (__mmask16)VM(tail_lanes)(n - i, 16);
        __m512 y = mode == 1 ? _mm512_set1_ps(pa[0]) : _mm512_maskz_loadu_ps(in, pa + i);
        __m512 x = mode == 2 ? _mm512_set1_ps(pb[0]) : _mm512_maskz_loadu_ps(in, pb + i);
        _mm512_mask_storeu_ps(po + i, in, VM(vta_atan2)(y, x, tab_hi, tab_lo));
    }
}

/* ---- asin and acos (Note [float32 asin and acos from the square root]) ---- */
/* The portable rows' pieces for 16 lanes: a = |x|, z = (1 - a) / 2 (exact) above 1/2, else
 * a^2; s = sqrt(z) above 1/2 (with *es its error), else a; *g = s z P(z) + es */
static inline __m512 VM(vta_asin_parts)(__m512 a, __mmask16 big, __m512 *g)
{
    const __m512 one = VTA_S(1.0f), half = VTA_S(0.5f);
    __m512 z = _mm512_mask_mul_ps(_mm512_mul_ps(a, a), big, _mm512_sub_ps(one, a), half);
    __m512 sq = _mm512_sqrt_ps(z), y = _mm512_rsqrt14_ps(z);
    __mmask16 root = _mm512_mask_cmp_ps_mask(big, z, _mm512_setzero_ps(), _CMP_NEQ_UQ);
    __m512 es = _mm512_maskz_mul_ps(root, _mm512_fnmadd_ps(sq, sq, z), _mm512_mul_ps(half, y));
    __m512 s = _mm512_mask_mov_ps(a, big, sq);
    __m512 p = VTA_S(VM(asin_c)[0]);
    for (int k = 1; k < 6; k++)
        p = _mm512_fmadd_ps(p, z, VTA_S(VM(asin_c)[k]));
    *g = _mm512_fmadd_ps(_mm512_mul_ps(s, z), p, es);
    return s;
}

static inline __m512 VM(vta_asin)(__m512 x)
{
    __m512 ax = _mm512_abs_ps(x), g;
    __mmask16 big = _mm512_cmp_ps_mask(ax, VTA_S(0.5f), _CMP_GT_OQ);
    __m512 s = VM(vta_asin_parts)(ax, big, &g);
    /* pi/2 - (2 s + 2 g) above 1/2, one rounding (Fast2Sum: pi/2 > 2 s) */
    __m512 s2 = _mm512_add_ps(s, s), hi = VTA_S(VMT_PIO2_HI);
    __m512 d = _mm512_sub_ps(hi, s2);
    __m512 e = _mm512_sub_ps(_mm512_sub_ps(hi, d), s2);
    d = _mm512_add_ps(d, _mm512_sub_ps(_mm512_add_ps(e, VTA_S(VMT_PIO2_LO)), _mm512_add_ps(g, g)));
    return VM(vta_sign_nan)(_mm512_mask_mov_ps(_mm512_add_ps(s, g), big, d), x, x, x);
}
VTA_ROW(asin_row, VM(vta_asin))

static inline __m512 VM(vta_acos)(__m512 x)
{
    const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
    __m512 ax = _mm512_abs_ps(x), g;
    __mmask16 big = _mm512_cmp_ps_mask(ax, VTA_S(0.5f), _CMP_GT_OQ);
    __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
    __m512 s = VM(vta_asin_parts)(ax, big, &g);
    /* B + (S + G) with B = pi/2, S + G = -asin x = -(s + g) sign(x) (|x| <= 1/2); B = 0,
     * S + G = 2 (s + g) (x > 1/2); B = pi, S + G = -2 (s + g) (x < -1/2): one sign flip
     * of s and g, B_hi + S by Fast2Sum (|B_hi| >= |S|, or B = 0), one rounding */
    __m512i xb = _mm512_castps_si512(x); /* the flip: x's sign bit, inverted where small */
    __m512i flip = _mm512_mask_andnot_epi32(_mm512_and_si512(xb, sign), _knot_mask16(big), xb,
                                            sign);
    __m512 S = _mm512_castsi512_ps(
        _mm512_xor_si512(_mm512_castps_si512(_mm512_mask_add_ps(s, big, s, s)), flip));
    __m512 G = _mm512_castsi512_ps(
        _mm512_xor_si512(_mm512_castps_si512(_mm512_mask_add_ps(g, big, g, g)), flip));
    __mmask16 bneg = big & neg;
    __m512 bh = _mm512_mask_mov_ps(_mm512_maskz_mov_ps(_knot_mask16(big), VTA_S(VMT_PIO2_HI)), bneg,
                                   VTA_S(VMT_PI_HI));
    __m512 bl = _mm512_mask_mov_ps(_mm512_maskz_mov_ps(_knot_mask16(big), VTA_S(VMT_PIO2_LO)), bneg,
                                   VTA_S(VMT_PI_LO));
    __m512 d = _mm512_add_ps(bh, S);
    __m512 e = _mm512_add_ps(_mm512_sub_ps(bh, d), S);
    __m512 v = _mm512_add_ps(d, _mm512_add_ps(_mm512_add_ps(e, bl), G));
    return VM(vta_nan)(v, x, x);
}
VTA_ROW(acos_row, VM(vta_acos))

/* ---- tan (Note [float32 tan with one quotient]) ---- */
/* tan x of 16 lanes with every |x| <= 2^13 (NaN lanes give NaN): cpu_vtrig.h's tanf_f */
static inline __m512 VM(vta_tan)(__m512 x)
{
    __m512 t = _mm512_fmadd_ps(x, VTA_S(0x1.45f306p-1f), VTA_S(VMF_SHIFT)); /* x / (pi/2) */
    __m512 n = _mm512_sub_ps(t, VTA_S(VMF_SHIFT));
    __m512 r1 = _mm512_fmadd_ps(n, VTA_S(-0x1.921fb6p0f), x); /* exact */
    /* r1 + n pio2_2 + n pio2_3 as r + rl.  Where |n pio2_2| <= |r1| / 4 in every lane (x
     * not near a multiple of pi/2), r = r1 + n pio2_2 rounded once by an FMA, r1 - r is
     * exact (Sterbenz) and rl = n pio2_2 + (r1 - r) + n pio2_3 by two more (r's error to
     * 2^-24 of itself); otherwise the product and the sum split exactly, as the portable
     * row does. */
    __m512 np2 = _mm512_mul_ps(n, VTA_S(0x1.777a5cp-25f));
    __m512 r = _mm512_fmadd_ps(n, VTA_S(0x1.777a5cp-25f), r1);
    __m512 rl = _mm512_fmadd_ps(n, VTA_S(0x1.777a5cp-25f), _mm512_sub_ps(r1, r));
    rl = _mm512_fmadd_ps(n, VTA_S(0x1.ee59dap-50f), rl);
    __mmask16 near = _mm512_cmp_ps_mask(_mm512_abs_ps(r1),
                                        _mm512_mul_ps(VTA_S(4.0f), _mm512_abs_ps(np2)), _CMP_LT_OQ);
    if (near) {
        __m512 pe = _mm512_fmsub_ps(n, VTA_S(0x1.777a5cp-25f), np2);
        __m512 r2 = _mm512_add_ps(r1, np2), bb = _mm512_sub_ps(r2, r1);
        __m512 se = _mm512_add_ps(_mm512_sub_ps(r1, _mm512_sub_ps(r2, bb)), _mm512_sub_ps(np2, bb));
        __m512 w = _mm512_fmadd_ps(n, VTA_S(0x1.ee59dap-50f), _mm512_add_ps(se, pe));
        r = _mm512_add_ps(r2, w);
        rl = _mm512_sub_ps(w, _mm512_sub_ps(r, r2));
    }
    __m512 z = _mm512_mul_ps(r, r);
    __m512 p = VTA_S(VM(tan_c)[0]);
    for (int k = 1; k < 7; k++)
        p = _mm512_fmadd_ps(p, z, VTA_S(VM(tan_c)[k]));
    __m512 rz = _mm512_mul_ps(r, z), hi = _mm512_fmadd_ps(rz, p, r);
    __m512 lo = _mm512_fmadd_ps(rz, p, _mm512_sub_ps(r, hi));
    lo = _mm512_fmadd_ps(_mm512_mul_ps(hi, hi), rl, _mm512_add_ps(lo, rl));
    /* odd n: -1 / (hi + lo), -1 / hi from the divider, then one correction from the exact
     * residual -1 - q hi, which takes lo in (1 / hi from vrcp14ps: 2^-14 of the correction) */
    __m512 q = _mm512_div_ps(VTA_S(-1.0f), hi);
    __m512 res = _mm512_fnmadd_ps(q, lo, _mm512_fnmadd_ps(q, hi, VTA_S(-1.0f)));
    q = _mm512_fmadd_ps(res, _mm512_rcp14_ps(hi), q);
    __mmask16 odd = _mm512_test_epi32_mask(_mm512_castps_si512(t), _mm512_set1_epi32(1));
    __m512 v = _mm512_mask_mov_ps(_mm512_add_ps(hi, lo), odd, q);
    /* n = 0 and r = x tiny: x (and -0) */
    return _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(z, _mm512_setzero_ps(), _CMP_EQ_OQ), x);
}

static void VM(tan_row)(float *o, const float *a, int64_t n)
{
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 in = (__mmask16)VM(tail_lanes)(n - i, 16);
        __m512 x = _mm512_maskz_loadu_ps(in, a + i);
        __m512 v = VM(vta_tan)(x);
        /* past 2^13, inf and NaN: the C library's tan in double, rounded once */
        __mmask16 far = _mm512_mask_cmp_ps_mask(in, _mm512_abs_ps(x), VTA_S(0x1p13f), _CMP_NLE_UQ);
        if (far) {
            float xs[16], vs[16];
            _mm512_storeu_ps(xs, x);
            _mm512_storeu_ps(vs, v);
            for (int k = 0; k < 16; k++)
                if (far >> k & 1)
                    vs[k] = (float)tan((double)xs[k]);
            v = _mm512_loadu_ps(vs);
        }
        _mm512_mask_storeu_ps(o + i, in, v);
    }
}

/* 1 + v + vl = u (1 + *c) to first order, v >= 0 (cpu_vtrig.h's one_plus) */
static inline __m512 VM(vta_one_plus)(__m512 v, __m512 vl, __m512 *c)
{
    const __m512 one = VTA_S(1.0f);
    __m512 u = _mm512_add_ps(one, v);
    __m512 err = _mm512_mask_sub_ps(_mm512_sub_ps(one, _mm512_sub_ps(u, v)),
                                    _mm512_cmp_ps_mask(v, one, _CMP_LT_OQ), v,
                                    _mm512_sub_ps(u, one)); /* exact */
    *c = _mm512_mul_ps(_mm512_add_ps(err, vl), _mm512_rcp14_ps(u));
    return u;
}

/* log(u) + c for the lanes at most 2^12, log(a) + ln2 past it, and the row's store: asinh's
 * and acosh's last steps */
static inline __m512 VM(vta_log1p_big)(const VM(vta_log_tab) * t, __m512 u, __m512 c, __m512 a,
                                       __mmask16 big)
{
    __m512 lo,
        s = VM(vta_log)(t, _mm512_mask_mov_ps(u, big, a), _mm512_maskz_mov_ps(big, VTA_S(1.0f)),
                        _mm512_maskz_mov_ps(_knot_mask16(big), c), &lo);
    return _mm512_add_ps(s, lo);
}

/* ---- atanh, asinh, acosh (Note [float32 atanh, asinh and acosh with log's table]) ---- */
/* rows of F(&log's table, x) (o may be a) */
#define VTA_LOG_ROW(NAME, F)                                                                       \
    static void VM(NAME)(float *o, const float *a, int64_t n)                                      \
    {                                                                                              \
        VM(vta_log_tab) t;                                                                         \
        VM(vta_log_load)(&t, VTA_LN);                                                              \
        for (int64_t i = 0; i < n; i += 16) {                                                      \
            __mmask16 in = (__mmask16)VM(tail_lanes)(n - i, 16);                                   \
            _mm512_mask_storeu_ps(o + i, in, F(&t, _mm512_maskz_loadu_ps(in, a + i)));             \
        }                                                                                          \
    }

static inline __m512 VM(vta_atanh)(const VM(vta_log_tab) * t, __m512 x)
{
    const __m512 one = VTA_S(1.0f);
    __m512 ax = _mm512_abs_ps(x), lo;
    /* (1 + a) / (1 - a) as q (1 + c): 1 +- a by Fast2Sum (a <= 1), the quotient from the
     * reciprocal, its error from the exact residual */
    __m512 nh = _mm512_add_ps(one, ax), nl = _mm512_sub_ps(ax, _mm512_sub_ps(nh, one));
    __m512 dh = _mm512_sub_ps(one, ax), dl = _mm512_sub_ps(_mm512_sub_ps(one, dh), ax);
    __m512 q = _mm512_div_ps(nh, dh);
    __m512 ql = _mm512_fnmadd_ps(q, dl, _mm512_add_ps(_mm512_fnmadd_ps(q, dh, nh), nl));
    __m512 c = _mm512_mul_ps(ql, _mm512_rcp14_ps(nh)); /* ql / (q dh), q dh about nh >= 1 */
    __m512 s = VM(vta_log)(t, q, _mm512_setzero_ps(), c, &lo);
    __m512 v = _mm512_mul_ps(VTA_S(0.5f), _mm512_add_ps(s, lo));
    v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(ax, VTA_S(0x1p-12f), _CMP_LT_OQ), ax);
    __mmask16 edge = _mm512_cmp_ps_mask(ax, one, _CMP_NLT_UQ); /* |x| >= 1 or NaN */
    if (edge) {
        v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(ax, one, _CMP_EQ_OQ), VTA_S(INFINITY));
        v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(ax, one, _CMP_GT_OQ), VTA_S(NAN));
    }
    return VM(vta_sign_nan)(v, x, x, x);
}
VTA_LOG_ROW(atanh_row, VM(vta_atanh))

static inline __m512 VM(vta_asinh)(const VM(vta_log_tab) * t, __m512 x)
{
    const __m512 one = VTA_S(1.0f);
    __m512 ax = _mm512_abs_ps(x), c;
    __mmask16 big = _mm512_cmp_ps_mask(ax, VTA_S(0x1p12f), _CMP_GT_OQ);
    /* v = a + a^2 / (1 + sqrt(1 + a^2)) as v + vl */
    __m512 a2 = _mm512_mul_ps(ax, ax);
    __m512 d = _mm512_add_ps(one, _mm512_sqrt_ps(_mm512_fmadd_ps(ax, ax, one)));
    __m512 q = _mm512_div_ps(a2, d);
    __m512 v = _mm512_add_ps(ax, q), vl = _mm512_sub_ps(q, _mm512_sub_ps(v, ax));
    __m512 u = VM(vta_one_plus)(v, vl, &c);
    __m512 r = VM(vta_log1p_big)(t, u, c, ax, big);
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(ax, VTA_S(0x1p-12f), _CMP_LT_OQ), ax);
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(ax, VTA_S(INFINITY), _CMP_EQ_OQ), ax);
    return VM(vta_sign_nan)(r, x, x, x);
}
VTA_LOG_ROW(asinh_row, VM(vta_asinh))

static inline __m512 VM(vta_acosh)(const VM(vta_log_tab) * t, __m512 x)
{
    const __m512 one = VTA_S(1.0f);
    __m512 c;
    __mmask16 big = _mm512_cmp_ps_mask(x, VTA_S(0x1p12f), _CMP_GT_OQ);
    /* d + dl = x - 1 (Fast2Sum, x >= 1); s = sqrt(d^2 + 2 d) with its error es, which takes
     * 2 dl (1 + d) in; u (1 + c) = 1 + s + d + (es + dl) */
    __m512 d = _mm512_sub_ps(x, one), dl = _mm512_sub_ps(_mm512_sub_ps(x, d), one);
    __m512 w = _mm512_fmadd_ps(d, d, _mm512_add_ps(d, d));
    __m512 s = _mm512_sqrt_ps(w), y = _mm512_rsqrt14_ps(w);
    __mmask16 pos = _mm512_cmp_ps_mask(w, _mm512_setzero_ps(), _CMP_GT_OQ);
    __m512 es = _mm512_fmadd_ps(_mm512_add_ps(dl, dl), _mm512_add_ps(one, d),
                                _mm512_fnmadd_ps(s, s, w));
    es = _mm512_maskz_mul_ps(pos, es, _mm512_mul_ps(VTA_S(0.5f), y));
    s = _mm512_maskz_mov_ps(pos, s);
    __m512 v = _mm512_add_ps(s, d), vl = _mm512_sub_ps(d, _mm512_sub_ps(v, s));
    __m512 u = VM(vta_one_plus)(v, _mm512_add_ps(vl, _mm512_add_ps(es, dl)), &c);
    __m512 r = VM(vta_log1p_big)(t, u, c, x, big);
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, VTA_S(INFINITY), _CMP_EQ_OQ), x);
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, one, _CMP_LT_OQ), VTA_S(NAN));
    return VM(vta_nan)(r, x, x);
}
VTA_LOG_ROW(acosh_row, VM(vta_acosh))

/* ---- log1p (Note [float32 log1p with log's table]) ---- */
static inline __m512 VM(vta_log1p)(const VM(vta_log_tab) * t, __m512 x)
{
    const __m512 one = VTA_S(1.0f);
    __m512 ax = _mm512_abs_ps(x);
    /* u (1 + c) = 1 + x: u rounded, its error exact by Fast2Sum (the larger first), c =
     * err / u from the divider */
    __m512 u = _mm512_add_ps(one, x);
    __m512 err = _mm512_mask_sub_ps(_mm512_sub_ps(one, _mm512_sub_ps(u, x)),
                                    _mm512_cmp_ps_mask(ax, one, _CMP_LT_OQ), x,
                                    _mm512_sub_ps(u, one));
    __m512 c = _mm512_div_ps(err, u), lo;
    __m512 s = VM(vta_log)(t, u, _mm512_setzero_ps(), c, &lo), r = _mm512_add_ps(s, lo);
    /* |x| < 2^-10: x + x^2 (-1/2 + x/3 - x^2/4), one rounding */
    __mmask16 tiny = _mm512_cmp_ps_mask(ax, VTA_S(0x1p-10f), _CMP_LT_OQ);
    if (tiny) {
        __m512 p = _mm512_fmadd_ps(_mm512_fmadd_ps(x, VTA_S(-0.25f), VTA_S(0x1.555556p-2f)), x,
                                   VTA_S(-0.5f));
        r = _mm512_mask_mov_ps(r, tiny, _mm512_fmadd_ps(_mm512_mul_ps(x, x), p, x));
    }
    /* x <= -1, +inf and NaN (u <= 0, inf or NaN): -inf at -1, NaN below, x + x for NaN */
    __mmask16 edge = _mm512_cmp_ps_mask(u, VTA_S(0x1p127f), _CMP_NLT_UQ) |
                     _mm512_cmp_ps_mask(u, _mm512_setzero_ps(), _CMP_LE_OQ);
    if (edge) {
        r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(u, VTA_S(INFINITY), _CMP_EQ_OQ), u);
        r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(u, _mm512_setzero_ps(), _CMP_EQ_OQ),
                               VTA_S(-INFINITY));
        r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(u, _mm512_setzero_ps(), _CMP_LT_OQ),
                               VTA_S(NAN));
        r = VM(vta_nan)(r, x, x);
    }
    return r;
}
VTA_LOG_ROW(log1p_row, VM(vta_log1p))
