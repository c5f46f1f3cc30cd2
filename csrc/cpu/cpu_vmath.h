/* cpu_vmath.h - float32 exp, log, tanh, sigmoid, sin and cos over arrays,
 * written for the compiler to vectorise: the loop bodies hold no branch and
 * no call, only arithmetic, selects and bit moves.  This header is the body
 * of one instruction-set level: cpu_simd_baseline.c, cpu_simd_avx2.c and
 * cpu_simd_avx512.c each include it once, under their own `#pragma GCC
 * target`, with PDT_SIMD_LEVEL naming the table it defines (Note [CPU
 * dispatch levels] in cpu_simd.h).
 *
 * Note [vector math accuracy]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * This is the baseline level's evaluation (and the levels with FMA use its
 * sin and cos past |x| = 2^13); AVX2 and AVX-512 evaluate in float32 with
 * FMA instead, within 1 to 1.5 ulp and at up to three times the speed (Note
 * [float32 evaluation with FMA] in cpu_vmathf.h).
 * Each function widens its float32 argument to double, evaluates there, and
 * rounds the result to float32 once.  The double evaluation is accurate to
 * 2^-30 relative or better (the series of exp, sin and cos stop early;
 * log's is near 2^-50), far below float32's half unit in the last place (2^-24), so
 * the result is the correctly rounded value except when the exact value lies
 * within that small distance of a rounding boundary: the error is at most
 * 1 ulp, the bound tests/test_vmath.py asserts over every float32 exponent
 * with 1000 random mantissas each, both signs, and the special values
 * (255,027 arguments).  Measured there: exp 0.501, sigmoid 0.501, tanh
 * 0.506, log 0.500, sin 0.501 and cos 0.500 ulp up to |x| = 2^20; 0.56 ulp
 * for sin and cos past 2^20 (the C library's).
 * NumPy 2.4's float32 functions, on the same sample: exp 1.85, log 2.44, tanh
 * 1.33, sin 1.31, cos 1.39 ulp.
 *   exp    y = n ln2 + r, n = rint(y / ln2) (the 1.5 * 2^52 shift, so no
 *          conversion instruction is needed), ln2 in two parts (Cody and
 *          Waite), |r| <= ln2 / 2; e^r by its Taylor series to r^8 (the
 *          next term is below 2^-31 relative); 2^n built in the exponent
 *          field.  Arguments are clamped to [-120, 120] first, which keeps
 *          every result float32 can tell apart (overflow past 88.72 and
 *          underflow past -103.97 round to inf and 0).
 *   log    x = 2^e m, m in [sqrt(1/2), sqrt(2)) (subnormals scaled by 2^24
 *          first); log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172,
 *          by its odd series to s^15 (next term below 2e-13 relative).
 *   sigmoid  1 / (1 + exp(-x)) with the double exp above.
 *   tanh   sign(x) em / (em + 2), em = e^v - 1, v = 2|x|, from exp's
 *          reduction: em = 2^n (e^r - 1) + (2^n - 1), with e^r - 1 the same
 *          series less its 1 (for v < ln2 / 2, n = 0 and em = e^v - 1 with no
 *          cancellation); |x| is clamped to 20 (tanh is 1 in float32 past
 *          9.01).
 *   sin, cos  y = n pi/2 + r, |r| <= pi/4, pi/2 in three parts of 33 bits
 *          (fdlibm's pio2_1, pio2_2, pio2_2t), exact for |n| < 2^20; Taylor
 *          series of sin to r^11 and cos to r^10 (next terms below 2^-36 and
 *          2^-32 relative), chosen by n mod 4.  Past
 *          |x| = 2^20 a block falls back to the C library's sinf and cosf
 *          (glibc documents them within 1 ulp), element by element.
 * Special values: NaN stays NaN; exp(+-inf) = inf, 0; log(0) = -inf,
 * log(x < 0) = NaN, log(inf) = inf; sigmoid(-inf) = 0, sigmoid(inf) = 1;
 * tanh(+-inf) = +-1; sin and cos of +-inf are NaN; the sign of a zero is kept
 * by exp, tanh and sin.
 *
 * float64's exp, log, tanh, sigmoid, sin and cos: Note [float64 vector math] in
 * cpu_vmath64.h (within 1 ulp at every level; the other float64 functions are
 * the C library's).
 *
 * +, -, * and / (below) are the single IEEE operations at every level (no
 * fused multiply-add: the build uses -ffp-contract=off), so every level gives
 * the same bits for them; the functions differ between the baseline and the
 * FMA levels within the bounds above.
 */
/* The selects below (clamps, special values) are comparisons that the
 * compiler must be free to evaluate for every lane: with the default
 * -ftrapping-math it keeps them as branches, and the loops stay scalar.  No
 * value changes (no reassociation, no contraction: -ffp-contract=off stays);
 * only the floating-point exception flags, which nothing here reads, may be
 * raised for lanes whose result is then not selected.  Set before cpu_simd.h,
 * so that its inline functions (the casts' scalar forms) get the same options
 * and inline into the loops here (GCC does not inline across optimize options). */
#pragma GCC optimize("no-trapping-math")

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu_simd.h"

#ifndef PDT_SIMD_LEVEL
#error "define PDT_SIMD_LEVEL before including cpu_vmath.h"
#endif

#define VM_CAT2(a, b) a##b
#define VM_CAT(a, b) VM_CAT2(a, b)
#define VM(name) VM_CAT(name##_, PDT_SIMD_LEVEL)

static inline uint64_t VM(bits64)(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static inline double VM(from_bits64)(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static inline uint32_t VM(bits32)(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float VM(from_bits32)(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* a * b + c in double for the evaluations below: one fused operation at the
 * levels with FMA, two roundings at the baseline.  At the FMA levels only the
 * powers (cpu_vpow.h) evaluate in double, so this changes no other function. */
#if PDT_SIMD_FMA
#define VM_MAD(a, b, c) __builtin_fma((a), (b), (c))
#else
#define VM_MAD(a, b, c) ((a) * (b) + (c))
#endif

/* c[0] x^(n-1) + ... + c[n-1] by Horner's rule (the loop is unrolled): each step
 * VM_MAD when fused (one rounding at the FMA levels), else a product and a sum
 * rounded apart at every level, so the same bits everywhere. */
static inline double VM(horner_steps)(double x, const double *c, int n, int fused)
{
    double p = c[0];
    for (int i = 1; i < n; i++)
        p = fused ? VM_MAD(p, x, c[i]) : p * x + c[i];
    return p;
}
static inline double VM(horner_d)(double x, const double *c, int n)
{
    return VM(horner_steps)(x, c, n, 1);
}

/* Error-free sums for float (cpu_vtrig.h) and double (cpu_vmath64.h): TS(a, b, &e):
 * a + b = s + e exactly, any a and b (Knuth's 2Sum); FTS the same when |a| >= |b| or
 * a = 0 (Dekker's Fast2Sum). */
#define VM_TWO_SUMS(TS, FTS, T)                                                                    \
    static inline T VM(TS)(T a, T b, T * e)                                                        \
    {                                                                                              \
        T s = a + b, bb = s - a;                                                                   \
        *e = (a - (s - bb)) + (b - bb);                                                            \
        return s;                                                                                  \
    }                                                                                              \
    static inline T VM(FTS)(T a, T b, T * e)                                                       \
    {                                                                                              \
        T s = a + b;                                                                               \
        *e = b - (s - a);                                                                          \
        return s;                                                                                  \
    }

#define VM_SHIFT 0x1.8p52 /* adding it rounds a double below 2^51 to an integer */

/* y = n ln2 + r, |r| <= ln2 / 2 (or NaN): returns t, whose low bits hold n
 * in two's complement, and sets *r. */
static inline double VM(exp_reduce)(double y, double *r)
{
    const double ln2_hi = 0x1.62e42feep-1, ln2_lo = 0x1.a39ef35793c76p-33;
    double t = y * 0x1.71547652b82fep0 + VM_SHIFT; /* y / ln2, rounded, in t's low bits */
    double n = t - VM_SHIFT;
    *r = (y - n * ln2_hi) - n * ln2_lo;
    return t;
}

/* The Taylor coefficients of (e^r - 1) / r from r^11 down: 1/12!, ..., 1/2, 1. */
static const double VM(expm1_c)[12] = {1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800, 1.0 / 362880,
                                       1.0 / 40320,     1.0 / 5040,     1.0 / 720,     1.0 / 120,
                                       1.0 / 24,        1.0 / 6,        0.5,           1.0};

/* e^r - 1 for |r| <= ln2 / 2, by its Taylor series to r^8 (the next term is
 * below 2^-31 of the result). */
static inline double VM(expm1_r)(double r) { return VM(horner_d)(r, VM(expm1_c) + 4, 8) * r; }

/* 2^n for the t of exp_reduce: n + 1023 into the exponent field (the shift
 * drops everything above n's bits); n in [-1022, 1023]. */
static inline double VM(pow2_t)(double t) { return VM(from_bits64)((VM(bits64)(t) + 1023) << 52); }

/* e^y for y in [-120, 120] (or NaN), in double. */
static inline double VM(exp_d)(double y)
{
    double r, t = VM(exp_reduce)(y, &r);
    return (VM(expm1_r)(r) + 1.0) * VM(pow2_t)(t);
}

/* The same to r^11 (the next term below 2^-47 of the result), for the powers. */
static inline double VM(exp_d_long)(double y)
{
    double r, t = VM(exp_reduce)(y, &r);
    return (VM(horner_d)(r, VM(expm1_c) + 1, 11) * r + 1.0) * VM(pow2_t)(t);
}

static inline double VM(clamp_d)(double y, double lo, double hi)
{
    y = y < lo ? lo : y; /* NaN stays NaN: both comparisons are false */
    return y > hi ? hi : y;
}

/* log's reduction, shared by both evaluations: x = 2^e m with m in
 * [sqrt(1/2), sqrt(2)), for a positive normal x (the block fast path of
 * log_row); log_split scales a subnormal by 2^24 first. */
static inline float VM(log_split_normal)(float x, int32_t *e)
{
    uint32_t ix = VM(bits32)(x);
    float m = VM(from_bits32)((ix & 0x007fffffu) | 0x3f800000u); /* [1, 2) */
    int big = m > 1.41421356f;
    *e = (int32_t)((ix >> 23) & 0xff) - 127 + big;
    return big ? m * 0.5f : m;
}

/* The same for any x >= 0 (+0 and subnormals too). */
static inline float VM(log_split)(float x, int32_t *e)
{
    int sub = VM(bits32)(x) < 0x00800000u; /* +0 or a positive subnormal */
    float m = VM(log_split_normal)(sub ? x * 0x1p24f : x, e);
    *e -= sub ? 24 : 0;
    return m;
}

/* log x from r, its value for a finite positive x: the special values. */
static inline float VM(log_special)(float x, float r)
{
    r = x == 0.0f ? -INFINITY : r;
    r = x < 0.0f ? NAN : r;
    r = x == INFINITY ? x : r;
    return x != x ? x + x : r;
}

/* log of 2^e m (m of log_split), in double: f = m - 1, s = f / (2 + f), log m =
 * 2 atanh(s) by its series, to s^(2 terms - 1): 8 terms (to s^15, s <= 0.172:
 * the next term is below 2^-44 of the result) for the baseline's float32 log,
 * which rounds it once; 10 (below 2^-53) for the powers (cpu_vpow.h), which
 * keep it in double. */
static inline double VM(log_dm_n)(float m, int32_t e, int terms)
{
    static const double c[10] = {1.0 / 19, 1.0 / 17, 1.0 / 15, 1.0 / 13, 1.0 / 11,
                                 1.0 / 9,  1.0 / 7,  1.0 / 5,  1.0 / 3,  1.0};
    const double ln2 = 0x1.62e42fefa39efp-1;
    double f = (double)m - 1.0;
    double s = f / (2.0 + f), z = s * s;
    return VM_MAD((double)e, ln2, 2.0 * s * VM(horner_d)(z, c + 10 - terms, terms));
}
static inline double VM(log_dm)(float m, int32_t e) { return VM(log_dm_n)(m, e, 8); }

#if PDT_SIMD_FMA
/* the lanes of a vector of `width` (8 or 16) that hold elements when `left` remain, as an
 * AVX-512 mask's bits: all when `width` or more remain */
static inline uint32_t VM(tail_lanes)(int64_t left, int width)
{
    return (uint32_t)((1u << (left < width ? left : width)) - 1);
}

#include "cpu_vmathf.h" /* float32 lanes with FMA: exp, sigmoid, tanh, log, sin, cos */
#else
static inline float VM(expf)(float x)
{
    return (float)VM(exp_d)(VM(clamp_d)((double)x, -120.0, 120.0));
}

static inline float VM(sigmoidf)(float x)
{
    float r = (float)(1.0 / (1.0 + VM(exp_d)(VM(clamp_d)(-(double)x, -120.0, 120.0))));
    return x != x ? x + x : r; /* a NaN argument, quiet, its sign kept (-x flips it) */
}

/* e^v - 1 for v in [0, 40] (or NaN): 2^n (e^r - 1) + (2^n - 1), one
 * polynomial; for v < ln2 / 2, n = 0 and r = v, so nothing cancels, and
 * above it the two terms have the same sign or |e^r - 1| < 0.42 <= 2^n - 1. */
static inline double VM(expm1_d)(double v)
{
    double r, t = VM(exp_reduce)(v, &r);
    double s = VM(pow2_t)(t);
    return s * VM(expm1_r)(r) + (s - 1.0);
}

static inline float VM(tanhf)(float x)
{
    double y = (double)x;
    double a = VM(clamp_d)(fabs(y), 0.0, 20.0);
    double em = VM(expm1_d)(2.0 * a);
    return (float)copysign(em / (em + 2.0), y);
}

static inline float VM(log_fe)(float m, int32_t e) { return (float)VM(log_dm)(m, e); }
#endif

static inline float VM(logf)(float x)
{
    int32_t e;
    float m = VM(log_split)(x, &e);
    return VM(log_special)(x, VM(log_fe)(m, e));
}

#define VM_SIN_COS_LIMIT 0x1p20f /* beyond it, the C library (see the Note) */

/* sin (want_cos 0) or cos (1) of x, |x| <= 2^20 or NaN. */
static inline float VM(sincosf)(float x, int want_cos)
{
    const double pio2_1 = 0x1.921fb544p0, pio2_2 = 0x1.0b4611a6p-34,
                 pio2_2t = 0x1.3198a2e037073p-69; /* pi/2 - pio2_1 - pio2_2 */
    double y = (double)x;
    double t = y * 0x1.45f306dc9c883p-1 + VM_SHIFT; /* y / (pi/2), rounded */
    double n = t - VM_SHIFT;
    double r = ((y - n * pio2_1) - n * pio2_2) - n * pio2_2t;
    double z = r * r;
    double s = 1.0 / 39916800; /* sin: r - r z (1/3! - ... + z^4/11!) */
    s = s * z - 1.0 / 362880;
    s = s * z + 1.0 / 5040;
    s = s * z - 1.0 / 120;
    s = s * z + 1.0 / 6;
    s = z == 0.0 ? r : r - r * z * s; /* r itself keeps the sign of a zero */
    double c = 1.0 / 3628800;         /* cos: 1 - z/2 + ... - z^5/10! */
    c = c * z - 1.0 / 40320;
    c = c * z + 1.0 / 720;
    c = c * z - 1.0 / 24;
    c = c * z + 0.5;
    c = 1.0 - z * c;
    uint64_t q = (VM(bits64)(t) + (uint64_t)want_cos) & 3; /* cos x = sin(x + pi/2) */
    double v = (q & 1) ? c : s;
    return (float)((q & 2) ? -v : v);
}

#include "cpu_vint.h"    /* integer sums, maxima and minima, the bool count */
#include "cpu_vtake.h"   /* the take at int64 indices */
#include "cpu_vphilox.h" /* Philox blocks side by side */
#include "cpu_vreduce.h"

/* ---- +, -, *, / of contiguous rows: exact IEEE operations, no contraction,
 * so every level gives the same bits (and the CUDA kernels, which compute the
 * same single operations, too) ---- */
/* The core copies an input that partly overlaps the output, so o is either
 * exactly a or b, or apart from both: restrict says so, and the loops need no
 * run-time overlap checks. */
#define VB_ROW(NAME, T, E)                                                                         \
    static void VM(NAME)(char *o, const char *a, const char *b, int64_t n, int mode)               \
    {                                                                                              \
        T *const po = (T *)o;                                                                      \
        const T *const pa = (const T *)a, *const pb = (const T *)b;                                \
        if (mode == 0 && po == pa && po == pb) {                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                po[i] = E(po[i], po[i]);                                                           \
        } else if (mode == 0 && po == pa) {                                                        \
            T *restrict p = po;                                                                    \
            const T *restrict y = pb;                                                              \
            for (int64_t i = 0; i < n; i++)                                                        \
                p[i] = E(p[i], y[i]);                                                              \
        } else if (mode == 0 && po == pb) {                                                        \
            T *restrict p = po;                                                                    \
            const T *restrict x = pa;                                                              \
            for (int64_t i = 0; i < n; i++)                                                        \
                p[i] = E(x[i], p[i]);                                                              \
        } else if (mode == 0) {                                                                    \
            T *restrict p = po;                                                                    \
            const T *restrict x = pa, *restrict y = pb;                                            \
            for (int64_t i = 0; i < n; i++)                                                        \
                p[i] = E(x[i], y[i]);                                                              \
        } else if (mode == 1) {                                                                    \
            const T x = pa[0];                                                                     \
            if (po == pb) {                                                                        \
                T *restrict p = po;                                                                \
                for (int64_t i = 0; i < n; i++)                                                    \
                    p[i] = E(x, p[i]);                                                             \
            } else {                                                                               \
                T *restrict p = po;                                                                \
                const T *restrict y = pb;                                                          \
                for (int64_t i = 0; i < n; i++)                                                    \
                    p[i] = E(x, y[i]);                                                             \
            }                                                                                      \
        } else {                                                                                   \
            const T y = pb[0];                                                                     \
            if (po == pa) {                                                                        \
                T *restrict p = po;                                                                \
                for (int64_t i = 0; i < n; i++)                                                    \
                    p[i] = E(p[i], y);                                                             \
            } else {                                                                               \
                T *restrict p = po;                                                                \
                const T *restrict x = pa;                                                          \
                for (int64_t i = 0; i < n; i++)                                                    \
                    p[i] = E(x[i], y);                                                             \
            }                                                                                      \
        }                                                                                          \
    }
/* maximum and minimum: NaN-propagating selects that vectorise as compares and
 * blends (at the baseline level, and-or masks); the row loop over 1e4 float32
 * took 2.7 us, NumPy's 1.5 */
#define VB_ROWS(SN, T)                                                                             \
    VB_ROW(add_##SN, T, PDT_ADD)                                                                   \
    VB_ROW(sub_##SN, T, PDT_SUB)                                                                   \
    VB_ROW(mul_##SN, T, PDT_MUL)                                                                   \
    VB_ROW(div_##SN, T, PDT_DIV)                                                                   \
    VB_ROW(maximum_##SN, T, PDT_MAXIMUM)                                                           \
    VB_ROW(minimum_##SN, T, PDT_MINIMUM)
VB_ROWS(f32, float)
VB_ROWS(f64, double)
/* masks' and and or, at the level's width (the baseline's SSE2 rows took 2.05 us for two
 * masks of 50,000 on one thread, NumPy's 1.73) */
VB_ROW(and_bool, uint8_t, PDT_AND_BOOL)
VB_ROW(or_bool, uint8_t, PDT_OR_BOOL)

#include "cpu_vcompare.h" /* ==, !=, <, <=, >, >= into bool bytes */

/* int32 and int64 rows at the level's width (the baseline's SSE2 loops took 2 to 2.3 times
 * NumPy's time for int64 *, maximum and the comparisons of 1e4 to 5e4 elements on one
 * thread: SSE2 has no 64-bit multiply or compare): +, -, * and the bitwise ops in the
 * unsigned type (the wrap C defines, the same bits), maximum and minimum signed (their
 * comparisons: cpu_vcompare.h) */
#define VI_ROWS(SN, T, U)                                                                          \
    VB_ROW(add_##SN, U, PDT_ADD)                                                                   \
    VB_ROW(sub_##SN, U, PDT_SUB)                                                                   \
    VB_ROW(mul_##SN, U, PDT_MUL)                                                                   \
    VB_ROW(maximum_##SN, T, PDT_IMAX)                                                              \
    VB_ROW(minimum_##SN, T, PDT_IMIN)                                                              \
    VB_ROW(and_##SN, U, PDT_BAND)                                                                  \
    VB_ROW(or_##SN, U, PDT_BOR)                                                                    \
    VB_ROW(xor_##SN, U, PDT_BXOR)
VI_ROWS(i32, int32_t, uint32_t)
VI_ROWS(i64, int64_t, uint64_t)
VB_ROW(shl_row_i32, int32_t, PDT_SHL_I32)
VB_ROW(shr_row_i32, int32_t, PDT_SHR_I32)
VB_ROW(shl_row_i64, int64_t, PDT_SHL_I64)
VB_ROW(shr_row_i64, int64_t, PDT_SHR_I64)
/* The running sums of one int64 row (cumsum's rows one at a time, cpu_index.c), wrapping:
 * at AVX-512 eight lanes a step, each summed with its neighbours by three shifted adds
 * (lanes 1, 2 and 4 apart) and the carry of the rows before; integer sums are exact, so in
 * any order the same values as the scalar loop's (2e4 on one thread 11.3 -> 5.9 us, NumPy
 * 9.7).  o may be x. */
static void VM(cumsum_i64_row)(char *o, const char *a, int64_t n)
{
    uint64_t *out = (uint64_t *)o, acc = 0;
    const uint64_t *x = (const uint64_t *)a;
    int64_t i = 0;
#if PDT_SIMD_BYTES == 64 && defined(__AVX512F__)
    const __m512i zero = _mm512_setzero_si512(), last = _mm512_set1_epi64(7);
    __m512i carry = zero;
    for (; i + 8 <= n; i += 8) {
        __m512i v = _mm512_loadu_si512(x + i);
        v = _mm512_add_epi64(v, _mm512_alignr_epi64(v, zero, 7)); /* + the lane 1 below */
        v = _mm512_add_epi64(v, _mm512_alignr_epi64(v, zero, 6)); /* + 2 below */
        v = _mm512_add_epi64(v, _mm512_alignr_epi64(v, zero, 4)); /* + 4 below */
        v = _mm512_add_epi64(v, carry);
        _mm512_storeu_si512(out + i, v);
        carry = _mm512_permutexvar_epi64(last, v);
    }
    acc = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(carry));
#endif
    for (; i < n; i++)
        out[i] = acc += x[i];
}
/* bool == and != (bytes read as != 0; ~m is m == 0) */
VB_ROW(eq_bool, uint8_t, PDT_EQ_BOOL)
VB_ROW(ne_bool, uint8_t, PDT_NE_BOOL)

/* a float row times a bool row (PDT_MASK_FACTOR, cpu_simd.h) */
#define VM_MASK_MUL(NAME, T, U, ONE)                                                               \
    PDT_MASK_FACTOR(VM(NAME##_factor), T, U, ONE)                                                  \
    static void VM(NAME)(char *o, const char *a, const uint8_t *m, int64_t n)                      \
    {                                                                                              \
        T *po = (T *)o;                                                                            \
        const T *pa = (const T *)a;                                                                \
        for (int64_t i = 0; i < n; i++)                                                            \
            po[i] = pa[i] * VM(NAME##_factor)(m[i]);                                               \
    }
VM_MASK_MUL(mul_mask_f32, float, uint32_t, 0x3f800000u)
VM_MASK_MUL(mul_mask_f64, double, uint64_t, 0x3ff0000000000000ull)

/* neg, abs, sqrt, relu and sign of contiguous float rows (cpu_simd.h's expressions;
 * at the baseline level relu of 1e5 float32 took 15 us, an add 5; sign, compiled only
 * for the baseline, took 36 us at AVX-512 against PyTorch's 11) */
#define VM_UNARY(NAME, T, EXPR)                                                                    \
    static void VM(NAME)(char *o, const char *a, int64_t n)                                        \
    {                                                                                              \
        T *po = (T *)o;                                                                            \
        const T *pa = (const T *)a;                                                                \
        for (int64_t i = 0; i < n; i++)                                                            \
            po[i] = (T)EXPR(pa[i]);                                                                \
    }
#define VM_UNARY_FLOATS(NAME, EXPR)                                                                \
    VM_UNARY(NAME##_f32, float, EXPR)                                                              \
    VM_UNARY(NAME##_f64, double, EXPR)
VM_UNARY_FLOATS(neg, PDT_NEG)
VM_UNARY_FLOATS(abs, PDT_ABS)
VM_UNARY_FLOATS(relu, PDT_RELU)
VM_UNARY_FLOATS(sign, PDT_SIGN)

/* clamp of contiguous float rows (at the baseline level 1e6 float32 took 1.13 to
 * 1.17 times NumPy's clip) */
#define VM_CLAMP(NAME, T)                                                                          \
    static void VM(NAME)(char *o, const char *a, int64_t n, const void *bounds)                    \
    {                                                                                              \
        T *po = (T *)o;                                                                            \
        const T *pa = (const T *)a, lo = ((const T *)bounds)[0], hi = ((const T *)bounds)[1];      \
        for (int64_t i = 0; i < n; i++)                                                            \
            po[i] = PDT_CLAMP(pa[i], lo, hi);                                                      \
    }
VM_CLAMP(clamp_f32, float)
VM_CLAMP(clamp_f64, double)
/* int32 and int64 neg, abs, relu, sign and clamp (cpu_simd.h's expressions; the baseline's
 * loops took 1.3 to 5.3 times NumPy's time for int64 abs and sign of 2e4 on one thread) */
#define VM_INT_UNARY(SN, T, SFX)                                                                   \
    VM_UNARY(neg_##SN, T, PDT_INEG_##SFX)                                                          \
    VM_UNARY(abs_##SN, T, PDT_IABS_##SFX)                                                          \
    VM_UNARY(relu_##SN, T, PDT_RELU)                                                               \
    VM_UNARY(sign_##SN, T, PDT_ISIGN_##SFX)                                                        \
    VM_CLAMP(clamp_##SN, T)
VM_INT_UNARY(i32, int32_t, I32)
VM_INT_UNARY(i64, int64_t, I64)
#include "cpu_vsmall.h" /* uint8, int8, int16 (after VB_ROW, VC_ROWS, VM_UNARY, VM_CLAMP) */

/* sqrt and the rounding ops: on x86 the vectors go through the instructions
 * themselves, the tail (and other processors) through cpu_simd.h's expressions,
 * with the same bits.  GCC keeps the C library's sqrtf in a loop for its errno (no
 * -fno-math-errno here), and floorf for -ftrapping-math; sqrt is correctly rounded
 * either way (a negative's NaN too: both give the default NaN), and rounding to an
 * integer is exact.  The rounding instructions take their mode from the immediate
 * (suppressing the inexact flag), as floor, ceil, trunc and nearbyint do. */
#if PDT_SIMD_BYTES == 64 && defined(__AVX512F__)
#define VM_SQRT_PS(v) _mm512_sqrt_ps(v)
#define VM_SQRT_PD(v) _mm512_sqrt_pd(v)
#define VM_RND_PS(v, m) _mm512_roundscale_ps(v, (m) | _MM_FROUND_NO_EXC)
#define VM_RND_PD(v, m) _mm512_roundscale_pd(v, (m) | _MM_FROUND_NO_EXC)
typedef __m512 VM(vec_f);
typedef __m512d VM(vec_d);
#elif PDT_SIMD_BYTES == 32 && defined(__AVX__)
#define VM_SQRT_PS(v) _mm256_sqrt_ps(v)
#define VM_SQRT_PD(v) _mm256_sqrt_pd(v)
#define VM_RND_PS(v, m) _mm256_round_ps(v, (m) | _MM_FROUND_NO_EXC)
#define VM_RND_PD(v, m) _mm256_round_pd(v, (m) | _MM_FROUND_NO_EXC)
typedef __m256 VM(vec_f);
typedef __m256d VM(vec_d);
#elif defined(__SSE2__)
#define VM_SQRT_PS(v) _mm_sqrt_ps(v)
#define VM_SQRT_PD(v) _mm_sqrt_pd(v)
typedef __m128 VM(vec_f);
typedef __m128d VM(vec_d);
#endif
/* o[i] = EXPR(a[i]): VOP on whole vectors of VT, EXPR on the tail */
#define VM_VEC_ROW(NAME, T, VT, VOP, EXPR)                                                         \
    static void VM(NAME)(char *o, const char *a, int64_t n)                                        \
    {                                                                                              \
        enum { W = sizeof(VT) / sizeof(T) };                                                       \
        int64_t i = 0;                                                                             \
        for (; i + W <= n; i += W) {                                                               \
            VT v;                                                                                  \
            memcpy(&v, a + i * (int64_t)sizeof(T), sizeof v);                                      \
            v = VOP;                                                                               \
            memcpy(o + i * (int64_t)sizeof(T), &v, sizeof v);                                      \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            T x;                                                                                   \
            memcpy(&x, a + i * (int64_t)sizeof(T), sizeof x);                                      \
            x = EXPR(x);                                                                           \
            memcpy(o + i * (int64_t)sizeof(T), &x, sizeof x);                                      \
        }                                                                                          \
    }
#ifdef VM_SQRT_PS
VM_VEC_ROW(sqrt_f32, float, VM(vec_f), VM_SQRT_PS(v), PDT_SQRT)
VM_VEC_ROW(sqrt_f64, double, VM(vec_d), VM_SQRT_PD(v), PDT_SQRT)
#else
VM_UNARY_FLOATS(sqrt, PDT_SQRT)
#endif
#ifdef VM_RND_PS
#define VM_ROUNDING(NAME, MODE, EXPR)                                                              \
    VM_VEC_ROW(NAME##_f32, float, VM(vec_f), VM_RND_PS(v, MODE), EXPR)                             \
    VM_VEC_ROW(NAME##_f64, double, VM(vec_d), VM_RND_PD(v, MODE), EXPR)
#else /* SSE2 has no rounding instruction: the C library's (SSE4.1 where it has it) */
#define VM_ROUNDING(NAME, MODE, EXPR) VM_UNARY_FLOATS(NAME, EXPR)
#endif
VM_ROUNDING(floor, _MM_FROUND_TO_NEG_INF, PDT_FLOOR)
VM_ROUNDING(ceil, _MM_FROUND_TO_POS_INF, PDT_CEIL)
VM_ROUNDING(round, _MM_FROUND_TO_NEAREST_INT, PDT_ROUND)
VM_ROUNDING(trunc, _MM_FROUND_TO_ZERO, PDT_TRUNC)

#include "cpu_vsum.h" /* float sums in double lanes */

/* The integer GEMM's inner loop (cpu_gemm.c): unsigned, so that products and
 * sums wrap as the integer dtypes do. */
static void VM(axpy_u32)(uint32_t *c, const uint32_t *b, uint32_t s, int64_t n)
{
    uint32_t *restrict cc = c;
    const uint32_t *restrict bb = b;
    for (int64_t j = 0; j < n; j++)
        cc[j] += s * bb[j];
}

static void VM(axpy_u64)(uint64_t *c, const uint64_t *b, uint64_t s, int64_t n)
{
    uint64_t *restrict cc = c;
    const uint64_t *restrict bb = b;
    for (int64_t j = 0; j < n; j++)
        cc[j] += s * bb[j];
}

/* AVX-512 takes cpu_vtrig.h's functions and log1p from cpu_vtrig_avx512.h (its Notes) */
#if PDT_SIMD_BYTES == 64 && defined(__AVX512F__)
#define VMT_TABLES 1
#endif

#include "cpu_verf.h"    /* float32 erf and erfc */
#include "cpu_vexpm1.h"  /* float32 log1p and expm1 */
#include "cpu_vgelu.h"   /* float32 gelu and its derivative */
#include "cpu_vmath64.h" /* float64 exp, log, tanh, sigmoid, sin, cos */
#include "cpu_vfunc64.h" /* float64 expm1, log1p, log2, log10, tan, atanh, sinh, cosh */
#include "cpu_vhyper.h"  /* float32 sinh and cosh */
#include "cpu_vexp2.h"   /* float32 exp2 */

/* ---- the rows ---- */

static void VM(exp_row)(float *o, const float *a, int64_t n)
{
#ifdef VMF_EXP16 /* Note [exp in AVX-512 lanes] */
    VM(exp_row16)(o, a, n);
#else
    for (int64_t i = 0; i < n; i++)
        o[i] = VM(expf)(a[i]);
#endif
}

/* The largest of (bits(a[i]) & keep) - sub, i < m, unsigned (wrapping below sub):
 * a block's scan for its fast path, a maximum that vectorises. */
static inline uint32_t VM(max_bits)(const float *a, int64_t m, uint32_t keep, uint32_t sub)
{
    uint32_t big = 0;
    for (int64_t i = 0; i < m; i++) {
        uint32_t v = (VM(bits32)(a[i]) & keep) - sub;
        big = v > big ? v : big;
    }
    return big;
}

/* Note [block fast paths]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * log, sin and cos look at a block of 256 arguments first: an unsigned
 * maximum of their bits, which vectorises (a float maximum with C's NaN rules
 * does not: GCC kept sin's earlier float scan scalar, 0.3 ns an element).
 * A block of ordinary arguments (log: positive normal floats; sin and cos:
 * |x| within the fast evaluation's limit) runs a loop without the rare
 * cases' selects; any other block runs the general loop, element by element
 * the same operations for ordinary arguments, so a value's bits do not depend
 * on its neighbours (tests/test_vmath.py).  One thread, AVX-512, 1e5 float32:
 * log 0.57 -> 0.36 ns an element (NumPy 0.37), sin 0.83 -> 0.38 (0.51).
 *
 * log_row: o may be a. */
static void VM(log_row)(float *o, const float *a, int64_t n)
{
    for (int64_t b = 0; b < n; b += 256) {
        int64_t m = n - b < 256 ? n - b : 256;
        /* below 0x7f000000 for every positive normal float */
        if (VM(max_bits)(a + b, m, 0xffffffffu, 0x00800000u) < 0x7f000000u) {
            for (int64_t i = 0; i < m; i++) {
                int32_t e;
                float mm = VM(log_split_normal)(a[b + i], &e);
                o[b + i] = VM(log_fe)(mm, e);
            }
        } else {
            for (int64_t i = 0; i < m; i++)
                o[b + i] = VM(logf)(a[b + i]);
        }
    }
}

static void VM(sigmoid_row)(float *o, const float *a, int64_t n)
{
#ifdef VMF_EXP16 /* Note [sigmoid in AVX-512 lanes] */
    VM(sigmoid_row16)(o, a, n);
#else
    for (int64_t i = 0; i < n; i++)
        o[i] = VM(sigmoidf)(a[i]);
#endif
}

static void VM(tanh_row)(float *o, const float *a, int64_t n)
{
#ifdef VMF_TANH16 /* Note [tanh by a table of polynomials] */
    VM(tanh_row16)(o, a, n);
#else
    for (int64_t i = 0; i < n; i++)
        o[i] = VM(tanhf)(a[i]);
#endif
}

/* Blocks of 256: a block with an argument past the fast path's limit (or
 * inf or NaN) goes element by element, choosing the double path or the C library
 * there; o may be a. */
#if PDT_SIMD_FMA
#define VM_SINCOS_FAST VM(sincosf_f)
#define VM_SINCOS_FAST_LIMIT VMF_SIN_COS_LIMIT
#else
#define VM_SINCOS_FAST VM(sincosf)
#define VM_SINCOS_FAST_LIMIT VM_SIN_COS_LIMIT
#endif
#define VM_SINCOS_ROW(NAME, WANT_COS, LIBM)                                                        \
    static void VM(NAME)(float *o, const float *a, int64_t n)                                      \
    {                                                                                              \
        for (int64_t b = 0; b < n; b += 256) {                                                     \
            int64_t m = n - b < 256 ? n - b : 256;                                                 \
            /* the largest |x| as bits (NaN: above inf's) */                                       \
            if (VM(max_bits)(a + b, m, 0x7fffffffu, 0) <= VM(bits32)(VM_SINCOS_FAST_LIMIT)) {      \
                for (int64_t i = 0; i < m; i++)                                                    \
                    o[b + i] = VM_SINCOS_FAST(a[b + i], WANT_COS);                                 \
            } else {                                                                               \
                for (int64_t i = 0; i < m; i++) {                                                  \
                    float x = a[b + i], ax = fabsf(x);                                             \
                    o[b + i] = ax <= VM_SINCOS_FAST_LIMIT ? VM_SINCOS_FAST(x, WANT_COS)            \
                               : ax <= VM_SIN_COS_LIMIT   ? VM(sincosf)(x, WANT_COS)               \
                                                          : LIBM(x);                                 \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
VM_SINCOS_ROW(sin_row, 0, sinf)
VM_SINCOS_ROW(cos_row, 1, cosf)

#include "cpu_vcast.h"     /* floats into the integers and bool */
#include "cpu_vclassify.h" /* isnan, isinf, isfinite, signbit from the bits */
#include "cpu_vconv.h"     /* the direct convolution's register block */
#include "cpu_vdivmod.h"   /* float // and %, trunc division, int32 by one divisor */
#include "cpu_vnormal.h"   /* Box-Muller of Philox words (after the sqrt rows) */
#include "cpu_vpow.h"      /* float32 powers */
#include "cpu_vpow64.h"    /* float64 powers (AVX-512) */
#include "cpu_vstream.h"   /* non-temporal copies */
#include "cpu_vtrig.h"     /* tan, the inverse functions, log2, log10, rsqrt (after max_bits) */

#include "cpu_vtable.h" /* this level's table of the kernels above */
