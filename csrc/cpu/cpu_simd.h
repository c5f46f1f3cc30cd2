/* cpu_simd.h - the CPU kernels built once per instruction-set level, and the
 * choice between them.
 *
 * Note [CPU dispatch levels]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A wheel runs on processors newer and older than the one that built it, so
 * the build assumes only x86-64's baseline (SSE2), and the kernels that gain
 * from wider vectors are compiled three times, each in its own file under
 * `#pragma GCC target`: baseline, AVX2 with FMA (x86-64-v3), and AVX-512
 * (F, VL, DQ, BW: x86-64-v4).  At the first kernel call the backend picks the
 * best level the processor supports (__builtin_cpu_supports, as NumPy's
 * dispatcher does), or the one PYDEVTENSOR_CPU_LEVEL names (baseline, avx2,
 * avx512; a level above what the processor has is refused with a warning on
 * stderr, and the best supported one is used).  +, -, *, /, the reductions
 * and the column sums run the same operations in the same order at every
 * level, with no fused multiply-add (-ffp-contract=off), so they give
 * identical bits: only the speed differs.  The float32 functions (exp, log,
 * tanh, sigmoid, sin, cos) are evaluated in double at the baseline and in
 * float32 with explicit FMAs at AVX2 and AVX-512 (Note [float32 evaluation
 * with FMA] in cpu_vmathf.h): the two FMA levels agree bit for bit, the
 * baseline within the stated bounds.  float64 exp, log, tanh, sigmoid, sin and
 * cos use FMA at AVX2 and AVX-512 (the same bits at both, but for exp's,
 * sigmoid's and log's table-driven AVX-512 kernels) and not at the baseline, all
 * within 1 ulp (Note [float64 vector math] in cpu_vmath64.h).
 * pdt_cpu_simd_set lets the tests run
 * every level in one process.
 */
#ifndef PDT_CPU_SIMD_H
#define PDT_CPU_SIMD_H

#include <math.h>
#include <stdint.h>
#include <string.h> /* memcpy, in PDT_MASK_FACTOR */

typedef void (*pdt_vm_row)(float *o, const float *a, int64_t n);
typedef void (*pdt_vd_row)(double *o, const double *a, int64_t n);

/* The index of the first maximum (minimum) of x[0..n), or of the first NaN;
 * 1 <= n < 2^31 blocks (int32 block numbers for float32: 2^37 elements at the
 * least; the callers pass at most 2^16).  cpu_vreduce.h. */
typedef int64_t (*pdt_vr_arg_f32)(const float *x, int64_t n);
typedef int64_t (*pdt_vr_arg_f64)(const double *x, int64_t n);
typedef int (*pdt_vr_cols_f32)(const float *x, int64_t m, int64_t k, int64_t j0, int64_t nj,
                               float *best, int32_t *at);
typedef int (*pdt_vr_cols_f64)(const double *x, int64_t m, int64_t k, int64_t j0, int64_t nj,
                               double *best, int64_t *at);

/* o[i] = a[i] op b[i] over contiguous rows; mode 1: a is one value (a[0]
 * for every i), 2: b is.  o may be a or b.  cpu_vmath.h. */
typedef void (*pdt_vb_row)(char *o, const char *a, const char *b, int64_t n, int mode);
/* The float binary rows' expressions, shared with cpu_elementwise.c's strided
 * rows.  maximum/minimum: a NaN in either input is the result, x's first
 * (PyTorch); of two zeros, x. */
#define PDT_ADD(x, y) ((x) + (y))
/* bool bytes (any nonzero byte reads as True): * and minimum are and, + and maximum or */
#define PDT_AND_BOOL(x, y) ((uint8_t)(((x) != 0) & ((y) != 0)))
#define PDT_OR_BOOL(x, y) ((uint8_t)(((x) | (y)) != 0))
#define PDT_EQ_BOOL(x, y) ((uint8_t)(((x) != 0) == ((y) != 0)))
#define PDT_NE_BOOL(x, y) ((uint8_t)(((x) != 0) != ((y) != 0)))
/* int32 and int64 unary ops, maximum, minimum, the bitwise ops and the shifts (the level's
 * rows and the strided loops alike), wrapping in the unsigned type: -INT_MIN and |INT_MIN|
 * are INT_MIN, as NumPy's and PyTorch's; a shift by a count past the width (or negative)
 * gives 0, and -1 for >> of a negative value (Note [shifts] in pdt_elementwise.h; GCC's >>
 * of a negative value is arithmetic) */
#define PDT_INEG_I32(x) ((int32_t)(0u - (uint32_t)(x)))
#define PDT_INEG_I64(x) ((int64_t)(0ull - (uint64_t)(x)))
#define PDT_IABS_I32(x) ((x) < 0 ? PDT_INEG_I32(x) : (x))
#define PDT_IABS_I64(x) ((x) < 0 ? PDT_INEG_I64(x) : (x))
#define PDT_ISIGN(x) (((x) > 0) - ((x) < 0))
#define PDT_ISIGN_I32(x) PDT_ISIGN(x)
/* int64's in 64-bit terms: with int comparisons GCC computed 8 lanes in 32 bits and
 * widened them back (16 instructions an 8 at AVX2, not 2 compares and a subtract); 1e5 on
 * one thread took 1.3 times NumPy's time */
#define PDT_ISIGN_I64(x) ((int64_t)((x) > 0) - (int64_t)((x) < 0))
#define PDT_IMAX(x, y) ((x) < (y) ? (y) : (x))
#define PDT_IMIN(x, y) ((y) < (x) ? (y) : (x))
#define PDT_BAND(x, y) ((x) & (y))
#define PDT_BOR(x, y) ((x) | (y))
#define PDT_BXOR(x, y) ((x) ^ (y))
#define PDT_SHL_I32(x, y) ((uint32_t)(y) >= 32 ? 0 : (int32_t)((uint32_t)(x) << (y)))
#define PDT_SHL_I64(x, y) ((uint64_t)(y) >= 64 ? 0 : (int64_t)((uint64_t)(x) << (y)))
#define PDT_SHR_I32(x, y) ((uint32_t)(y) >= 32 ? ((x) < 0 ? -1 : 0) : (x) >> (y))
#define PDT_SHR_I64(x, y) ((uint64_t)(y) >= 64 ? ((x) < 0 ? -1 : 0) : (x) >> (y))
/* uint8, int8 and int16 (Note [small integer rows] in cpu_vsmall.h): +, -, *, the shifts
 * and negation are int32's on the widened values, narrowed (a cast into the small type
 * keeps the low bits), so each value is the one the int32 route gave; abs, relu and sign
 * of a uint8 are x, x and x != 0 (no comparison with 0 that -Wtype-limits refuses) */
#define PDT_SMALL_EXPRS(SN, T)                                                                     \
    static inline T pdt_add_##SN(T x, T y) { return (T)((uint32_t)x + (uint32_t)y); }              \
    static inline T pdt_sub_##SN(T x, T y) { return (T)((uint32_t)x - (uint32_t)y); }              \
    static inline T pdt_mul_##SN(T x, T y) { return (T)((uint32_t)x * (uint32_t)y); }              \
    static inline T pdt_shl_##SN(T x, T y) { return (T)PDT_SHL_I32((int32_t)x, (int32_t)y); }      \
    static inline T pdt_shr_##SN(T x, T y)                                                         \
    {                                                                                              \
        const int32_t w = x; /* a variable: uint8's w < 0 is int32's test, not always false */     \
        return (T)PDT_SHR_I32(w, (int32_t)y);                                                      \
    }                                                                                              \
    static inline T pdt_ineg_##SN(T x) { return (T)(0u - (uint32_t)x); }
#define PDT_SMALL_SIGNED_EXPRS(SN, T)                                                              \
    static inline T pdt_iabs_##SN(T x) /* a select: Note [small integer rows] */                   \
    {                                                                                              \
        return x < 0 ? (T)(0u - (uint32_t)x) : x; /* narrowed, |MIN| is MIN */                     \
    }                                                                                              \
    static inline T pdt_relu_##SN(T x) { return x < 0 ? 0 : x; }                                   \
    static inline T pdt_isign_##SN(T x) { return (T)PDT_ISIGN(x); }
PDT_SMALL_EXPRS(u8, uint8_t)
PDT_SMALL_EXPRS(i8, int8_t)
PDT_SMALL_EXPRS(i16, int16_t)
PDT_SMALL_SIGNED_EXPRS(i8, int8_t)
PDT_SMALL_SIGNED_EXPRS(i16, int16_t)
static inline uint8_t pdt_iabs_u8(uint8_t x) { return x; }
static inline uint8_t pdt_relu_u8(uint8_t x) { return x; }
static inline uint8_t pdt_isign_u8(uint8_t x) { return x != 0; }
#define PDT_SUB(x, y) ((x) - (y))
#define PDT_MUL(x, y) ((x) * (y))
#define PDT_DIV(x, y) ((x) / (y))
#define PDT_MAXIMUM(x, y) ((x) != (x) ? (x) : (y) != (y) ? (y) : (x) < (y) ? (y) : (x))
#define PDT_MINIMUM(x, y) ((x) != (x) ? (x) : (y) != (y) ? (y) : (y) < (x) ? (y) : (x))

/* o[i] = f(a[i]) over contiguous rows, o may be a: neg, abs, sqrt and relu of
 * float32 and float64 at the level's width.  Their expressions are these,
 * shared with cpu_unary.c's strided rows, so every level and layout
 * gives the same bits.  cpu_vmath.h. */
typedef void (*pdt_vu_row)(char *o, const char *a, int64_t n);
#define PDT_NEG(x) (-(x))
#define PDT_ABS(x) _Generic((x), float : fabsf, default : fabs)(x)
#define PDT_SQRT(x) _Generic((x), float : sqrtf, default : sqrt)(x)
#define PDT_RELU(x) ((x) < 0 ? 0 : (x)) /* -0.0 and NaN stay */
/* The rounding ops, exact (the vector levels use the instructions with the same
 * rounding, cpu_vmath.h).  round: halves to even whatever the floating-point
 * environment's rounding mode (nearbyint would follow fesetround): round() takes
 * halves away from zero, so a value exactly halfway is 2 round(x / 2) instead (x / 2
 * is exact there, and -0.5 gives -0.0, as np.rint). */
/* A NaN comes out quietened (x + x: the quiet bit set, the payload kept), as the
 * vector levels' round instructions and the C library's calls give it; GCC's inline
 * expansions at the SSE2 baseline under no-trapping-math (cpu_vmath.h) would pass a
 * signalling NaN through unchanged. */
#define PDT_QUIETED(x, E) ((x) != (x) ? (x) + (x) : (E))
#define PDT_FLOOR(x) PDT_QUIETED(x, _Generic((x), float : floorf, default : floor)(x))
#define PDT_CEIL(x) PDT_QUIETED(x, _Generic((x), float : ceilf, default : ceil)(x))
#define PDT_TRUNC(x) PDT_QUIETED(x, _Generic((x), float : truncf, default : trunc)(x))
static inline float pdt_round_even_f32(float x)
{
    return PDT_QUIETED(x, fabsf(x - truncf(x)) == 0.5f ? 2.0f * roundf(x * 0.5f) : roundf(x));
}
static inline double pdt_round_even_f64(double x)
{
    return PDT_QUIETED(x, fabs(x - trunc(x)) == 0.5 ? 2.0 * round(x * 0.5) : round(x));
}
#define PDT_ROUND(x) _Generic((x), float : pdt_round_even_f32, default : pdt_round_even_f64)(x)
/* sign of a float: +0 for either zero (as NumPy and PyTorch), NaN for NaN (NumPy and
 * the array API standard; PyTorch gives 0) */
#define PDT_SIGN(x) ((x) > 0 ? 1 : (x) < 0 ? -1 : (x) == 0 ? 0 : (x))
/* Integer rows by one divisor d (cpu_vsdiv.h's small ones, cpu_vdivmod.h's int32 and int64): p[i]
 * = x[i] op d, op PDT_OP_FLOOR_DIV, PDT_OP_REMAINDER or PDT_OP_TRUNC_DIV, p may be x.  d =
 * 0 gives 0 and d = 1 or -1 gives x d, wrapping (remainder 0), as cpu_elementwise.c's
 * scalar forms (U: T's unsigned type, at least 32 bits); PDT_DIVC_FLOOR floor division
 * and the remainder by the others. */
#define PDT_DIVC_TRIVIAL(T, U)                                                                     \
    if (d == 0 || (op == PDT_OP_REMAINDER && (d == 1 || d == -1))) {                               \
        memset(p, 0, (size_t)n * sizeof *p);                                                       \
        return;                                                                                    \
    }                                                                                              \
    if (d == 1 || d == -1) {                                                                       \
        for (int64_t i = 0; i < n; i++)                                                            \
            p[i] = (T)((U)x[i] * (U)d);                                                            \
        return;                                                                                    \
    }
/* Floor division (op PDT_OP_FLOOR_DIV) or Python's remainder of p[i] = x[i] by d, |d| >=
 * 2, from QU(a) = a / |d| of an unsigned a <= 2^(bits - 1) (U: the unsigned type of T's
 * width, or of the lanes QU takes, P: U or a wider one that products do not overflow
 * once promoted; QU casts its argument to U), with no product back: for d > 0, floor(x / d) = s ^ ((x ^ s) / d) with s
 * = -(x < 0) (for x < 0, ~x = -x - 1 >= 0 and floor(x / d) = ~floor(~x / d)); for d < 0,
 * floor(x / d) = floor(-x / |d|), which is -x / |d| for x <= 0 (-x <= 2^(bits - 1), exact
 * unsigned) and ~((x - 1) / |d|) = ~(~(-x) / |d|) for x > 0.  The remainder is x - floor(x
 * / d) d, wrapping (exact: it fits). */
#define PDT_DIVC_FLOOR(T, U, P, QU)                                                                \
    if (d > 0)                                                                                     \
        PDT_DIVC_FLOOR_LOOP(T, U, P, QU, (U)x[i], 0u - (U)(x[i] < 0))                              \
    else                                                                                           \
        PDT_DIVC_FLOOR_LOOP(T, U, P, QU, 0u - (U)x[i], 0u - (U)(x[i] > 0))
#define PDT_DIVC_FLOOR_LOOP(T, U, P, QU, V, S)                                                     \
    {                                                                                              \
        if (op == PDT_OP_REMAINDER) {                                                              \
            for (int64_t i = 0; i < n; i++) {                                                      \
                const U s = (U)(S), f = (U)(QU((V) ^ s) ^ s);                                      \
                p[i] = (T)((P)(U)x[i] - (P)f * (P)(U)d);                                           \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                const U s = (U)(S);                                                                \
                p[i] = (T)(QU((V) ^ s) ^ s);                                                       \
            }                                                                                      \
        }                                                                                          \
    }
/* Granlund and Montgomery's multiplier for dividing unsigned numbers below 2^bits by b in
 * [2, 2^(bits - 1)] (Note [int32 division by one divisor] in cpu_vdivmod.h): *sh = l - 1
 * for l = ceil(log2 b), and m = floor(2^bits (2^l - b) / b) + 1, below 2^bits */
static inline uint32_t pdt_divc_magic(uint32_t b, int bits, int *sh)
{
    int s = 0;
    while ((2ull << s) < b) /* 2^(s + 1) >= b > 2^s */
        s++;
    *sh = s;
    return (uint32_t)(((((uint64_t)2 << s) - b) << bits) / b + 1);
}
#ifdef __SIZEOF_INT128__
/* The same for bits = 64, b in [2, 2^63] */
static inline uint64_t pdt_divc_magic64(uint64_t b, int *sh)
{
    int s = 0;
    while (s < 62 && ((uint64_t)2 << s) < b)
        s++;
    *sh = s;
    return (uint64_t)(((((unsigned __int128)2 << s) - b) << 64) / b + 1);
}
#endif

/* Python's float // and % (NumPy's npy_divmod) from a fmod FMOD: the quotient rounds
 * toward -inf, the remainder takes the divisor's sign.  Defines static FLOORDIV(a, b) and
 * REMAINDER(a, b) of T (F: the C library's suffix, f or none); cpu_elementwise.c's take
 * the C library's fmod, cpu_vdivmod.h's float32 rows a faster exact one too. */
#define PDT_FLOAT_DIVMOD(FLOORDIV, REMAINDER, T, F, FMOD)                                          \
    static inline T FLOORDIV(T a, T b)                                                             \
    {                                                                                              \
        if (b == 0)                                                                                \
            return a / b;                                                                          \
        T mod = FMOD(a, b);                                                                        \
        T div = (a - mod) / b;                                                                     \
        if (mod != 0 && ((b < 0) != (mod < 0)))                                                    \
            div -= 1;                                                                              \
        if (div == 0)                                                                              \
            return copysign##F(0, a / b);                                                          \
        T fl = floor##F(div);                                                                      \
        return div - fl > (T)0.5 ? fl + 1 : fl;                                                    \
    }                                                                                              \
    static inline T REMAINDER(T a, T b)                                                            \
    {                                                                                              \
        T mod = FMOD(a, b);                                                                        \
        if (b == 0)                                                                                \
            return mod;                                                                            \
        if (mod == 0)                                                                              \
            return copysign##F(0, b);                                                              \
        return (b < 0) != (mod < 0) ? mod + b : mod;                                               \
    }
/* PyTorch's truncating division of floats */
#define PDT_TRUNCDIV(x, y) _Generic((x), float : truncf, default : trunc)((x) / (y))
/* clamp(x) = min(max(x, lo), hi); a NaN x stays NaN; lo > hi gives hi */
#define PDT_CLAMP(x, lo, hi) ((x) < (lo) ? ((lo) > (hi) ? (hi) : (lo)) : (x) > (hi) ? (hi) : (x))
/* float32 -> int32 with Note [float to int]'s saturation (pdt_convert.h) without a
 * branch, so that the rows vectorise: pdt_f64_to_i32's values, NaN -> 0, clamped to
 * [INT32_MIN, the largest float below 2^31] before the conversion, INT32_MAX from 2^31
 * on (with pdt_f64_to_i32's branches, 1e5 elements took 148 us, NumPy's astype 11).
 * cpu_kernels.c's strided rows and cpu_vcast.h's tails. */
static inline int32_t pdt_f32_to_i32(float x)
{
    float y = x == x ? x : 0.0f;
    y = y > -0x1p31f ? y : -0x1p31f;
    y = y < 0x1.fffffep30f ? y : 0x1.fffffep30f;
    int32_t r = (int32_t)y;
    return x >= 0x1p31f ? INT32_MAX : r;
}
/* float64 -> int32 as pdt_f64_to_i32 without a branch (clamped, then truncated) */
static inline int32_t pdt_f64_to_i32_sel(double x)
{
    double y = x == x ? x : 0.0;
    y = y > -2147483648.0 ? y : -2147483648.0;
    y = y < 2147483647.0 ? y : 2147483647.0;
    return (int32_t)y;
}
/* The low 16 bits of pdt_f64_to_i64(x) (Note [float to small int]: uint8, int8 and
 * int16 keep them) without a branch: below 2^31 in magnitude those of the int32
 * truncation; from there to 2^63 those of t - trunc(t 2^-16) 2^16, t = trunc(x), which
 * is exact (a product by a power of two, and a difference below 2^16 that double holds)
 * and congruent to t modulo 2^16; 0 for NaN and from -2^63 down (INT64_MIN's), all ones
 * from 2^63 up (INT64_MAX's). */
static inline uint16_t pdt_f64_low16(double x)
{
    double t = trunc(x);
    double z = fabs(t) < 0x1p31 ? t : t - trunc(t * 0x1p-16) * 0x1p16;
    z = fabs(x) < 0x1p63 ? z : 0.0; /* NaN too */
    uint16_t r = (uint16_t)(uint32_t)(int32_t)z;
    return x >= 0x1p63 ? (uint16_t)0xffff : r;
}
/* pdt_f64_low16 of a float32 in float32 lanes: the same steps, exact in float32 (past
 * 2^31 a float32 is a multiple of 2^8, and t - trunc(t 2^-16) 2^16 a multiple of 2^8
 * below 2^16). */
static inline uint16_t pdt_f32_low16(float x)
{
    float t = truncf(x);
    float z = fabsf(t) < 0x1p31f ? t : t - truncf(t * 0x1p-16f) * 0x1p16f;
    z = fabsf(x) < 0x1p63f ? z : 0.0f; /* NaN too */
    uint16_t r = (uint16_t)(uint32_t)(int32_t)z;
    return x >= 0x1p63f ? (uint16_t)0xffff : r;
}
/* The contiguous casts built per level (cpu_vcast.h): o[i] = a[i] converted, as the
 * scalar forms above give it; the index into pdt_cpu_simd_table.cast. */
enum {
    PDT_VCAST_F32_I32, /* pdt_f32_to_i32 */
    PDT_VCAST_F32_U8,  /* pdt_f32_low16's low byte, int8's bytes too */
    PDT_VCAST_F32_I64, /* pdt_f64_to_i64 */
    PDT_VCAST_F32_I16, /* pdt_f32_low16 */
    PDT_VCAST_F64_I32, /* pdt_f64_to_i32_sel */
    PDT_VCAST_F64_U8,  /* pdt_f64_low16's low byte, int8's bytes too */
    PDT_VCAST_F64_I16, /* pdt_f64_low16 */
    PDT_VCAST_F64_BOOL,
    PDT_VCAST_I32_F32, /* C's conversions (cpu_vcast.h) */
    PDT_VCAST_I32_F64,
    PDT_VCAST_I64_F32,
    PDT_VCAST_I64_F64,
    PDT_VCAST_I32_I64,
    PDT_VCAST_I64_I32, /* the low 32 bits */
    PDT_VCAST_BOOL_F32,
    PDT_VCAST_BOOL_I64,
    PDT_VCAST_COUNT
};
typedef void (*pdt_vcast_row)(void *o, const void *a, int64_t n);

/* o[i] = PDT_CLAMP(a[i], bounds[0], bounds[1]) over contiguous rows of T (float32 or
 * float64; bounds: two T), o may be a.  cpu_vmath.h. */
typedef void (*pdt_vclamp_row)(char *o, const char *a, int64_t n, const void *bounds);

/* float * bool (Note [a float times a mask] in pdt_elementwise.c): the mask
 * byte m made 0 or 1 in T as the cast would, built from its bits (ONE's bits,
 * or 0): written as (T)(m != 0), gcc folds x * 1 to x and branches on every
 * byte, which a random mask mispredicts half the time (11x slower at 1e6
 * here); this form vectorises.  Defines static T NAME(uint8_t m). */
#define PDT_MASK_FACTOR(NAME, T, U, ONE)                                                           \
    static inline T NAME(uint8_t m)                                                                \
    {                                                                                              \
        U bits = (U)0 - (U)(m != 0);                                                               \
        bits &= ONE;                                                                               \
        T f;                                                                                       \
        memcpy(&f, &bits, sizeof f);                                                               \
        return f;                                                                                  \
    }
/* o[i] = a[i] * factor(m[i]) over contiguous rows, o may be a.  cpu_vmath.h. */
typedef void (*pdt_vmask_row)(char *o, const char *a, const uint8_t *m, int64_t n);

typedef struct pdt_cpu_simd_table {
    pdt_vb_row add_f32, sub_f32, mul_f32, div_f32, add_f64, sub_f64, mul_f64, div_f64;
    pdt_vb_row maximum_f32, minimum_f32, maximum_f64, minimum_f64;
    pdt_vb_row and_bool, or_bool; /* bool *, + (PDT_AND_BOOL, PDT_OR_BOOL) */
    /* int32 and int64 (cpu_vmath.h's VI_ROWS) */
    pdt_vb_row add_i32, sub_i32, mul_i32, maximum_i32, minimum_i32, and_i32, or_i32, xor_i32;
    pdt_vb_row add_i64, sub_i64, mul_i64, maximum_i64, minimum_i64, and_i64, or_i64, xor_i64;
    pdt_vb_row eq_i32, ne_i32, lt_i32, le_i32, gt_i32, ge_i32;
    pdt_vb_row eq_i64, ne_i64, lt_i64, le_i64, gt_i64, ge_i64;
    pdt_vb_row shl_row_i32, shr_row_i32, shl_row_i64, shr_row_i64, eq_bool, ne_bool;
    pdt_vu_row neg_i32, abs_i32, relu_i32, sign_i32, neg_i64, abs_i64, relu_i64, sign_i64;
    pdt_vclamp_row clamp_i32, clamp_i64;
    /* uint8, int8, int16 (cpu_vsmall.h) */
#define PDT_SMALL_FIELDS(SN)                                                                       \
    pdt_vb_row add_##SN, sub_##SN, mul_##SN, maximum_##SN, minimum_##SN, and_##SN, or_##SN,        \
        xor_##SN, shl_row_##SN, shr_row_##SN, eq_##SN, ne_##SN, lt_##SN, le_##SN, gt_##SN,         \
        ge_##SN;                                                                                   \
    pdt_vu_row neg_##SN, abs_##SN, relu_##SN, sign_##SN;                                           \
    pdt_vclamp_row clamp_##SN;                                                                     \
    pdt_vb_row floordiv_row_##SN, remainder_row_##SN, truncdiv_row_##SN;
    PDT_SMALL_FIELDS(u8)
    PDT_SMALL_FIELDS(i8)
    PDT_SMALL_FIELDS(i16)
    /* float // and % (float32: cpu_vdivmod.h) and trunc(a / b) */
    pdt_vb_row floordiv_row_f32, remainder_row_f32, truncdiv_row_f32, truncdiv_row_f64;
    /* o[i] = a[i] // d, a[i] % d or their truncating division (op: PDT_OP_FLOOR_DIV,
     * _REMAINDER, _TRUNC_DIV) of an int32 row by one d (cpu_vdivmod.h) */
    void (*divc_i32)(int32_t *o, const int32_t *a, int32_t d, int64_t n, int op);
    /* the same for int64 (cpu_vdivmod.h; NULL without a 128-bit integer type) */
    void (*divc_i64)(int64_t *o, const int64_t *a, int64_t d, int64_t n, int op);
    /* the same by a row of divisors (mode 1: a is one value; cpu_vdivmod.h) */
    void (*divv_i32)(int32_t *o, const int32_t *a, const int32_t *b, int64_t n, int op, int mode);
    /* the comparisons, into bool bytes (o: n bytes) */
    pdt_vb_row eq_f32, ne_f32, lt_f32, le_f32, gt_f32, ge_f32;
    pdt_vb_row eq_f64, ne_f64, lt_f64, le_f64, gt_f64, ge_f64;
    pdt_vm_row exp_f32, log_f32, sigmoid_f32, tanh_f32, sin_f32, cos_f32;
    pdt_vm_row log1p_f32, expm1_f32; /* cpu_vexpm1.h */
    /* float64's (Note [float64 vector math] in cpu_vmath64.h) */
    pdt_vd_row exp_f64, log_f64, sigmoid_f64, tanh_f64, sin_f64, cos_f64;
    /* cpu_vfunc64.h (Note [float64 functions from the cores]; log1p at AVX-512:
     * cpu_vmath64_avx512.h) */
    pdt_vd_row expm1_f64, log1p_f64, log2_f64, log10_f64, tan_f64, atanh_f64, sinh_f64, cosh_f64;
    pdt_vd_row exp2_f64, asinh_f64, acosh_f64, atan_f64, asin_f64, acos_f64; /* exp2: 2 ** x */
    pdt_vm_row sinh_f32, cosh_f32;                                           /* cpu_vhyper.h */
    pdt_vm_row exp2_f32;                                                     /* cpu_vexp2.h */
    pdt_vm_row erf_f32, erfc_f32;                                            /* cpu_verf.h */
    pdt_vm_row gelu_f32, gelu_grad_f32;                                      /* cpu_vgelu.h */
    /* cpu_vtrig.h (Note [float32 inverse functions]) */
    pdt_vm_row tan_f32, atan_f32, asin_f32, acos_f32, asinh_f32, acosh_f32, atanh_f32;
    pdt_vm_row log2_f32, log10_f32, rsqrt_f32;
    pdt_vu_row rsqrt_f64;
    pdt_vu_row cumsum_i64_row; /* one int64 row's running sums (cpu_vmath.h) */
    /* atan2(a, b) (float64: cpu_vfunc64.h, NULL at the baseline); a ** b at AVX-512
     * (cpu_vpow64.h; NULL: the C library's) */
    pdt_vb_row atan2_f32, atan2_f64, pow_f64;
    pdt_vu_row neg_f32, abs_f32, sqrt_f32, relu_f32, neg_f64, abs_f64, sqrt_f64, relu_f64;
    pdt_vu_row sign_f32, sign_f64;
    pdt_vu_row floor_f32, ceil_f32, round_f32, trunc_f32, floor_f64, ceil_f64, round_f64, trunc_f64;
    pdt_vmask_row mul_mask_f32, mul_mask_f64;
    pdt_vclamp_row clamp_f32, clamp_f64;
    pdt_vr_arg_f32 argmax_f32, argmin_f32;
    pdt_vr_arg_f64 argmax_f64, argmin_f64;
    /* the first index of the maximum (minimum) of x[0..n), n >= 1 (Note [one-pass integer
     * extremes] in cpu_vreduce.h) */
    int64_t (*argmax_i32)(const int32_t *x, int64_t n), (*argmin_i32)(const int32_t *x, int64_t n);
    int64_t (*argmax_i64)(const int64_t *x, int64_t n), (*argmin_i64)(const int64_t *x, int64_t n);
    float (*max_f32)(const float *x, int64_t n), (*min_f32)(const float *x, int64_t n);
    /* c[j] += s * b[j], j < n, wrapping (the integer GEMM's inner loop) */
    void (*axpy_u32)(uint32_t *c, const uint32_t *b, uint32_t s, int64_t n);
    void (*axpy_u64)(uint64_t *c, const uint64_t *b, uint64_t s, int64_t n);
    /* r[q] = the sum over i < k of x[i m + j0 + q], q < nj, in double, i in
     * order (columns of a (k, m) row-major float32 block; cpu_reduce.c) */
    void (*cols_sum_f32)(const float *x, int64_t m, int64_t k, int64_t j0, int64_t nj, double *r);
    /* out[q] = the pairwise sum's leaf p[q][0 .. n[q]), q < count <= 4, n[q] from
     * 1 to 128 (Note [batched leaves] in cpu_sum.c; cpu_vsum.h) */
    void (*leaves_f32)(const float *const *p, const int64_t *n, int count, double *out);
    void (*leaves_f64)(const double *const *p, const int64_t *n, int count, double *out);
    /* four leaves of len elements of the pairwise sum, x[0 .. 4 len), len a
     * multiple of 8 up to 128: (L0 + L1) + (L2 + L3) (cpu_vsum.h, cpu_sum.c) */
    double (*sum4_f32)(const float *x, int64_t len);
    double (*sum4_f64)(const double *x, int64_t len);
    /* the sum of squares of x[0 .. n) in 32 double lanes (cpu_reduce.c's float32
     * chunks of norm) */
    double (*sumsq32_f32)(const float *x, int64_t n);
    /* the sum of x[i] y[i] over [0, n) (cpu_dot.c's chunks: cpu_vsum.h) */
    double (*dot64_f32)(const float *x, const float *y, int64_t n);
    double (*dot32_f64)(const double *x, const double *y, int64_t n);
    /* dot32_f64(x, x, n) to the bit, each vector loaded once */
    double (*sumsq32_f64)(const double *x, int64_t n);
    double (*max_f64)(const double *x, int64_t n), (*min_f64)(const double *x, int64_t n);
    /* best[q] = the max (min) over i < k of x[i m + j0 + q], q < nj, by maxps's
     * (minps's) rule, and for the arg ones at[q] the row of column q's first
     * extreme (k <= 2^31 for float32; the others leave at alone); 1 when a NaN was
     * read (cpu_vreduce.h, cpu_reduce.c) */
    pdt_vr_cols_f32 cols_max_f32, cols_min_f32, cols_argmax_f32, cols_argmin_f32;
    pdt_vr_cols_f64 cols_max_f64, cols_min_f64, cols_argmax_f64, cols_argmin_f64;
    /* wrapping integer sums, the count of non-zero bytes, and integer maxima and
     * minima (n >= 1) of contiguous rows (cpu_vint.h) */
    uint64_t (*sum_i32)(const int32_t *x, int64_t n), (*sum_i64)(const int64_t *x, int64_t n);
    uint64_t (*prod_i32)(const int32_t *x, int64_t n), (*prod_i64)(const int64_t *x, int64_t n);
    /* r[q] = the wrapping sum (product) over i < k of x[i m + j0 + q], q < nj
     * (columns of a (k, m) row-major block; Note [integer column sums] in
     * cpu_vint.h) */
    void (*cols_sum_i32)(const int32_t *x, int64_t m, int64_t k, int64_t j0, int64_t nj,
                         uint64_t *r);
    void (*cols_sum_i64)(const int64_t *x, int64_t m, int64_t k, int64_t j0, int64_t nj,
                         uint64_t *r);
    void (*cols_prod_i32)(const int32_t *x, int64_t m, int64_t k, int64_t j0, int64_t nj,
                          uint64_t *r);
    void (*cols_prod_i64)(const int64_t *x, int64_t m, int64_t k, int64_t j0, int64_t nj,
                          uint64_t *r);
    uint64_t (*count_b8)(const uint8_t *x, int64_t n);
    /* the elements of x[0..n) with a bit under mask set (count_nonzero: cpu_vint.h) */
    uint64_t (*count_b16)(const uint16_t *x, int64_t n, uint16_t mask);
    uint64_t (*count_b32)(const uint32_t *x, int64_t n, uint32_t mask);
    uint64_t (*count_b64)(const uint64_t *x, int64_t n, uint64_t mask);
    /* bits[w] bit j = whether x[64 w + j] is non-zero, w < nwords (cpu_vint.h) */
    void (*nonzero_bits)(const uint8_t *x, int64_t nwords, uint64_t *bits);
    /* t[q] = f[ix[q]] for q < n, each index wrapped from the end, element 0 for one
     * outside [-size, size), which makes it return 1 (cpu_vtake.h) */
    int (*take_u8)(uint8_t *t, const uint8_t *f, const int64_t *ix, int64_t n, int64_t size);
    int (*take_u16)(uint16_t *t, const uint16_t *f, const int64_t *ix, int64_t n, int64_t size);
    int (*take_u32)(uint32_t *t, const uint32_t *f, const int64_t *ix, int64_t n, int64_t size);
    int (*take_u64)(uint64_t *t, const uint64_t *f, const int64_t *ix, int64_t n, int64_t size);
    int32_t (*max_i32)(const int32_t *x, int64_t n), (*min_i32)(const int32_t *x, int64_t n);
    int64_t (*max_i64)(const int64_t *x, int64_t n), (*min_i64)(const int64_t *x, int64_t n);
    uint8_t (*max_u8)(const uint8_t *x, int64_t n), (*min_u8)(const uint8_t *x, int64_t n);
    int8_t (*max_i8)(const int8_t *x, int64_t n), (*min_i8)(const int8_t *x, int64_t n);
    int16_t (*max_i16)(const int16_t *x, int64_t n), (*min_i16)(const int16_t *x, int64_t n);
    /* out[q] = the max (max 1) or min of column j0 + q over k rows of m, q < nj <= 2048,
     * of uint8, int8, int16, int32 or int64 x (which 0 to 4), widened (cpu_vint.h) */
    void (*cols_extreme_int)(const void *x, int64_t m, int64_t k, int64_t j0, int64_t nj, int which,
                             int max, int64_t *out);
    /* the first i < n with x[i] == v in elsize-byte integers (v's low bytes), n if none */
    int64_t (*find_eq)(const void *x, int64_t n, int64_t v, int elsize);
    /* out[4 j + w] = word w of Philox block first + j under seed (pdt_philox.h),
     * j < nblocks (cpu_vphilox.h) */
    void (*philox_blocks)(uint64_t seed, uint64_t first, int64_t nblocks, uint32_t *out);
    /* z[i] = the standard normal of words w[2 i], w[2 i + 1], i < n (cpu_vnormal.h) */
    void (*normal_words)(const uint32_t *w, int64_t n, double *z);
    /* float32 powers (cpu_vpow.h): o[i] = a[i] ** y over a contiguous row (o may
     * be a), and one x ** y */
    void (*powc_f32)(float *o, const float *a, float y, int64_t n);
    float (*pow_f32)(float x, float y);
    void (*cpow_f32)(float *o, float c, const float *y, int64_t n); /* c ** y, pow_f32's bits */
    void (*pow_pairs_f32)(float *o, const float *a, const float *y,
                          int64_t n); /* a ** y, the same */
    /* non-temporal copies of whole 64-byte lines into an aligned dst, and the fence
     * that orders them (cpu_vstream.h) */
    void (*stream_copy)(char *dst, const char *src, int64_t n);
    void (*stream_fence)(void);
    /* o[i] = whether x[i] is NaN, +-inf, finite or signed (which: PDT_IS_* of pdt_backend.h),
     * x a row of the floating dtype dt (cpu_vclassify.h) */
    void (*classify)(uint8_t *o, const void *x, int64_t n, int dt, int which);
    pdt_vcast_row cast[PDT_VCAST_COUNT];
    /* The direct convolution's register block (Note [the direct convolution's block]
     * in cpu_vconv.h): tmp[p OB + o] = the sum over k < K of wp[k OB + o]
     * src[koff[k] + p], p < P, o < OB = nvo conv_lanes; nvo 1 or 2 and
     * 1 <= P <= conv_pmax[nvo - 1]. */
    void (*conv_block_f32)(const float *src, const int64_t *koff, int64_t K, const float *wp,
                           int nvo, int P, float *tmp);
    int conv_lanes;   /* float32 lanes of a vector */
    int conv_pmax[2]; /* the largest P for nvo = 1 and 2 */
    /* The weight gradient's block (Note [the weight gradient's block] in cpu_vconv.h):
     * acc[r mk + t] += the sum over i < nimg, e < nvec conv_lanes of
     * a[r][i a_img + e] b[t][i b_img + e], r < conv_dot_mo, t < conv_dot_mk. */
    void (*conv_dot_f32)(const float *const *a, const float *const *b, int64_t nvec, int64_t nimg,
                         int64_t a_img, int64_t b_img, float *acc);
    int conv_dot_mo, conv_dot_mk;
    /* The position block (Note [the position block] in cpu_vconv.h): tmp[m np + p] =
     * the sum over k < K of wp[k mc + m] src[koff[k] + p], p < np = conv_ppos[mc],
     * 1 <= mc <= 8. */
    void (*conv_pblock_f32)(const float *src, const int64_t *koff, int64_t K, const float *wp,
                            int mc, float *tmp);
    int conv_ppos[9];
} pdt_cpu_simd_table;

#define PDT_CPU_LEVELS 3 /* baseline, avx2, avx512 */

/* The kernels of the level in use (chosen at the first call). */
const pdt_cpu_simd_table *pdt_cpu_simd(void);
/* The level in use, and whether the processor supports level k. */
int pdt_cpu_simd_level(void);
int pdt_cpu_simd_supported(int k);
const char *pdt_cpu_simd_name(int k);
/* Switches to level k; -1 when the processor lacks it (nothing changes). */
int pdt_cpu_simd_set(int k);

#endif /* PDT_CPU_SIMD_H */
