/* cpu_ew_float2.c - the CPU rows of hypot, copysign, logaddexp and logaddexp2 (Note [float
 * binary functions] in csrc/core/pdt_elementwise.c), float32 and float64, every layout; and
 * float32 fmod.
 *
 * Note [hypot and logaddexp rows]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A row is taken in chunks of CHUNK elements gathered into buffers (any stride, 0 for a
 * number), so that the level's vector rows (cpu_simd.h) do the square root, the
 * exponential and log1p, and every element gets the same operations whatever its layout.
 *   hypot    float32 in double: x^2 + y^2 is exact but for one rounding (24-bit squares,
 *            no overflow or underflow in double), its root rounded once, then to float:
 *            within 0.5 ulp of float32 but for double rounding (a root within 2^-29
 *            relative of a float32 midpoint).  float64: |x| and |y| scaled by 2^-600
 *            when the larger is above 2^500, by 2^600 when below 2^-500 (exact), the sum
 *            of squares (relative error below 2^-52) and its root (below 2^-53 more),
 *            scaled back: within 1.5 ulp (1.18 measured).  The scaling is exact but where
 *            the smaller operand falls below 2^-1022 (it is then below 2^-922 of the
 *            larger, and does not count).  An infinity gives inf even with a NaN (C's
 *            hypot, F.10.4.3); otherwise a NaN gives NaN.
 *   logaddexp  max(x, y) + log1p(e^d), d = -|x - y| (0 when x == y, so that two equal
 *            infinities give that infinity and not inf - inf), a NaN carried by d; e^d
 *            and log1p by the level's rows of the dtype (Notes [float32 vector math] and
 *            [float64 vector math]), as the composition it replaces.
 *   logaddexp2 max(x, y) + log1p(2^d) / ln 2, in double for both dtypes (float64's exp2
 *            and log1p rows: float32 has no exp2 row of its own); a float32 result is
 *            rounded once from it.
 * copysign is a bit operation, a plain row the compiler vectorises. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu_ew.h"
#include "cpu_simd.h"

#define CHUNK 256

/* n doubles from a row of float32 or float64 with byte stride s (0: one value); the
 * contiguous and the one-value cases as loops the compiler vectorises */
static void load_d(double *d, const char *p, int64_t s, int64_t n, int f32)
{
    const int64_t e = f32 ? (int64_t)sizeof(float) : (int64_t)sizeof(double);
    if (s == 0) {
        double v;
        if (f32) {
            float w;
            memcpy(&w, p, sizeof w);
            v = w;
        } else {
            memcpy(&v, p, sizeof v);
        }
        for (int64_t i = 0; i < n; i++)
            d[i] = v;
    } else if (s == e && f32) {
        const float *q = (const float *)p;
        for (int64_t i = 0; i < n; i++)
            d[i] = q[i];
    } else if (s == e) {
        memcpy(d, p, (size_t)n * sizeof(double));
    } else if (f32) {
        for (int64_t i = 0; i < n; i++) {
            float v;
            memcpy(&v, p + i * s, sizeof v);
            d[i] = v;
        }
    } else {
        for (int64_t i = 0; i < n; i++)
            memcpy(d + i, p + i * s, sizeof(double));
    }
}

/* n doubles into a row with byte stride s, rounded to float32 when f32 */
static void store_d(char *p, int64_t s, const double *d, int64_t n, int f32)
{
    if (f32 && s == (int64_t)sizeof(float)) {
        float *q = (float *)p;
        for (int64_t i = 0; i < n; i++)
            q[i] = (float)d[i];
    } else if (f32) {
        for (int64_t i = 0; i < n; i++) {
            float v = (float)d[i];
            memcpy(p + i * s, &v, sizeof v);
        }
    } else if (s == (int64_t)sizeof(double)) {
        memcpy(p, d, (size_t)n * sizeof(double));
    } else {
        for (int64_t i = 0; i < n; i++)
            memcpy(p + i * s, d + i, sizeof(double));
    }
}

/* n floats from a row of float32 with byte stride s (0: one value) */
static void load_f(float *d, const char *p, int64_t s, int64_t n)
{
    if (s == (int64_t)sizeof(float)) {
        memcpy(d, p, (size_t)n * sizeof(float));
    } else if (s == 0) {
        float v;
        memcpy(&v, p, sizeof v);
        for (int64_t i = 0; i < n; i++)
            d[i] = v;
    } else {
        for (int64_t i = 0; i < n; i++)
            memcpy(d + i, p + i * s, sizeof(float));
    }
}

/* n floats into a row of float32 with byte stride s */
static void store_f(char *p, int64_t s, const float *d, int64_t n)
{
    if (s == (int64_t)sizeof(float))
        memcpy(p, d, (size_t)n * sizeof(float));
    else
        for (int64_t i = 0; i < n; i++)
            memcpy(p + i * s, d + i, sizeof(float));
}

/* -|x - y|, 0 for x == y (two equal infinities too), NaN when either is; and the larger
 * of x and y, NaN or not: a NaN reaches the result through the gap.  Every operand
 * computed, the selects plain, so that the loops vectorise. */
static inline double d_gap(double x, double y)
{
    const double g = -fabs(x - y);
    return x == y ? 0.0 : g;
}
static inline double d_max(double x, double y) { return x > y ? x : y; }

/* hypot of one chunk, in place in x (Note [hypot and logaddexp rows]) */
static void hypot_chunk(double *x, const double *y, int64_t m, int f32)
{
    const pdt_cpu_simd_table *t = pdt_cpu_simd();
    double scale[CHUNK];
    uint8_t inf[CHUNK];
    for (int64_t i = 0; i < m; i++) {
        const double ax = fabs(x[i]), ay = fabs(y[i]), big = ax < ay ? ay : ax;
        const double up = big < 0x1p-500 ? 0x1p600 : 1.0;
        const double sc = f32 ? 1.0 : big > 0x1p500 ? 0x1p-600 : up;
        const double xs = ax * sc, ys = ay * sc;
        inf[i] = (uint8_t)((ax == INFINITY) | (ay == INFINITY));
        scale[i] = 1.0 / sc; /* a power of 2: exact */
        x[i] = xs * xs + ys * ys;
    }
    t->sqrt_f64((char *)x, (const char *)x, m);
    for (int64_t i = 0; i < m; i++)
        x[i] = inf[i] ? INFINITY : x[i] * scale[i];
}

/* logaddexp (base2 0) or logaddexp2 (1) of one chunk in double, in place in x */
static void logaddexp_chunk_d(double *x, const double *y, int64_t m, int base2)
{
    const pdt_cpu_simd_table *t = pdt_cpu_simd();
    double d[CHUNK];
    for (int64_t i = 0; i < m; i++) {
        d[i] = d_gap(x[i], y[i]);
        x[i] = d_max(x[i], y[i]);
    }
    (base2 ? t->exp2_f64 : t->exp_f64)(d, d, m);
    t->log1p_f64(d, d, m);
    const double k = base2 ? 1.4426950408889634074 : 1.0; /* 1 / ln 2 */
    for (int64_t i = 0; i < m; i++)
        x[i] += base2 ? d[i] * k : d[i];
}

/* float32 logaddexp of one chunk by the float32 rows, into o */
static void logaddexp_chunk_f(char *o, int64_t so, const char *a, int64_t sa, const char *b,
                              int64_t sb, int64_t m)
{
    const pdt_cpu_simd_table *t = pdt_cpu_simd();
    float x[CHUNK], y[CHUNK], d[CHUNK];
    load_f(x, a, sa, m);
    load_f(y, b, sb, m);
    for (int64_t i = 0; i < m; i++) {
        const float u = x[i], v = y[i], g = -fabsf(u - v); /* as d_gap and d_max */
        d[i] = u == v ? 0.0f : g;
        x[i] = u > v ? u : v;
    }
    t->exp_f32(d, d, m);
    t->log1p_f32(d, d, m);
    for (int64_t i = 0; i < m; i++)
        x[i] += d[i];
    store_f(o, so, x, m);
}

enum { OP_HYPOT, OP_LOGADDEXP, OP_LOGADDEXP2 };

static void chunked(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,
                    int64_t n, int f32, int which)
{
    double x[CHUNK], y[CHUNK];
    for (int64_t i = 0; i < n; i += CHUNK) {
        const int64_t m = n - i < CHUNK ? n - i : CHUNK;
        char *oi = o + i * so;
        const char *ai = a + i * sa, *bi = b + i * sb;
        if (which == OP_LOGADDEXP && f32) {
            logaddexp_chunk_f(oi, so, ai, sa, bi, sb, m);
            continue;
        }
        load_d(x, ai, sa, m, f32);
        load_d(y, bi, sb, m, f32);
        if (which == OP_HYPOT)
            hypot_chunk(x, y, m, f32);
        else
            logaddexp_chunk_d(x, y, m, which == OP_LOGADDEXP2);
        store_d(oi, so, x, m, f32);
    }
}

#define CHUNKED_ROW(NAME, F32, WHICH)                                                              \
    void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,           \
              int64_t n, const void *extra)                                                        \
    {                                                                                              \
        (void)extra;                                                                               \
        chunked(o, so, a, sa, b, sb, n, F32, WHICH);                                               \
    }
CHUNKED_ROW(pdt_cpu_hypot_f32, 1, OP_HYPOT)
CHUNKED_ROW(pdt_cpu_hypot_f64, 0, OP_HYPOT)
CHUNKED_ROW(pdt_cpu_logaddexp_f32, 1, OP_LOGADDEXP)
CHUNKED_ROW(pdt_cpu_logaddexp_f64, 0, OP_LOGADDEXP)
CHUNKED_ROW(pdt_cpu_logaddexp2_f32, 1, OP_LOGADDEXP2)
CHUNKED_ROW(pdt_cpu_logaddexp2_f64, 0, OP_LOGADDEXP2)

/* |x| with y's sign bit: bit operations, vectorised for the contiguous case */
#define COPYSIGN_ROW(NAME, T, F)                                                                   \
    void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,           \
              int64_t n, const void *extra)                                                        \
    {                                                                                              \
        (void)extra;                                                                               \
        if (so == sizeof(T) && sa == sizeof(T) && sb == sizeof(T)) {                               \
            T *po = (T *)o;                                                                        \
            const T *pa = (const T *)a, *pb = (const T *)b;                                        \
            for (int64_t i = 0; i < n; i++)                                                        \
                po[i] = F(pa[i], pb[i]);                                                           \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T x, y, r;                                                                             \
            memcpy(&x, a + i * sa, sizeof x);                                                      \
            memcpy(&y, b + i * sb, sizeof y);                                                      \
            r = F(x, y);                                                                           \
            memcpy(o + i * so, &r, sizeof r);                                                      \
        }                                                                                          \
    }
COPYSIGN_ROW(pdt_cpu_copysign_f32, float, copysignf)
COPYSIGN_ROW(pdt_cpu_copysign_f64, double, copysign)

/* float32 fmod(x, y) = copysign(remainder(|x|, |y|), x), a chunk at a time through the level's
 * remainder row (cpu_vdivmod.h): it computes C's fmod and adds the divisor only where the
 * signs differ, which they never do for |x| and |y|, so the magnitude is fmod's own (exact);
 * y = 0 or x = inf give NaN, y = inf gives x.  The C library's fmodf, an element at a time,
 * took 1,224 us for 1e5 here (this: 126; NumPy 2,341). */
void pdt_cpu_fmod_f32(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,
                      int64_t n, const void *extra)
{
    (void)extra;
    const pdt_cpu_simd_table *t = pdt_cpu_simd();
    float x[CHUNK], y[CHUNK], ay[CHUNK], r[CHUNK];
    for (int64_t i = 0; i < n; i += CHUNK) {
        const int64_t m = n - i < CHUNK ? n - i : CHUNK;
        load_f(x, a + i * sa, sa, m);
        load_f(y, b + i * sb, sb, m);
        for (int64_t k = 0; k < m; k++) {
            r[k] = fabsf(x[k]);
            ay[k] = fabsf(y[k]);
        }
        t->remainder_row_f32((char *)r, (const char *)r, (const char *)ay, m, 0);
        int nan = 0;
        for (int64_t k = 0; k < m; k++) {
            nan |= r[k] != r[k];
            r[k] = copysignf(r[k], x[k]);
        }
        /* a NaN result is the C library's (its sign and payload: NumPy's bits) */
        for (int64_t k = 0; nan && k < m; k++)
            r[k] = r[k] != r[k] ? fmodf(x[k], y[k]) : r[k];
        store_f(o + i * so, so, r, m);
    }
}
