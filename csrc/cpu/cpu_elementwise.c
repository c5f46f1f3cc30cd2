/* cpu_elementwise.c - the CPU backend's elementwise binary and unary ops.
 *
 * The core hands us an output and inputs already broadcast to the output's
 * shape, in the compute dtype (see pdt_elementwise.h).  A scalar input becomes
 * an operand with byte stride 0 that points at a local copy of its value, so
 * one row kernel per (op, dtype) covers every case:
 *   - all unit strides: a plain loop over arrays that gcc -O3 vectorises;
 *   - one input a scalar (stride 0), the rest unit strides: the scalar is
 *     loaded once, and the loop vectorises again;
 *   - anything else: the same loop over byte strides.
 * Rows come from a three-operand walk (out, a, b) that takes the dims in the
 * output's memory order (Note [memory order] in pdt_tensor.h), drops size-1
 * dims and merges dims laid out back to back in every operand (so contiguous
 * tensors, and transposed ones whose result is transposed too, are one row).
 * Ops over more than ~64K elements are split over the cores by element range;
 * smaller ones run on the calling thread.  float32 exp, log, sin, cos, tanh
 * and sigmoid run the vectorised kernels of the instruction-set level chosen
 * at load (cpu_simd.h, cpu_vmath.h); the other rows are built once, for the
 * baseline.
 *
 * Semantics shared with the CUDA kernels (cuda_elementwise.cu), element for
 * element: Python's floor division and remainder (Note [integer division by
 * zero] in pdt_elementwise.h for the integers), NaN propagating through
 * maximum/minimum/clamp/relu, integer arithmetic wrapping (done in unsigned
 * types, where C defines the wrap).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"
#include "cpu_stream.h"
#include "pdt_convert.h"

/* Elements per thread below which an op stays on one thread; an op that
 * costs about as much as a transcendental function per element (the unary
 * ops of costly_unary, and powers) splits at an eighth of that. */
#define EW_GRAIN 32768
#define EW_GRAIN_COSTLY (EW_GRAIN / 8)
/* in a loop (Note [the hot grain] in cpu_parallel.c; job_run) */
#define EW_GRAIN_HOT PDT_CPU_GRAIN_HOT
#define EW_GRAIN_COSTLY_HOT 1024
#define EW_GRAIN_POW_HOT 512

/* ---- element functions that are more than an operator ---- */

/* Python's float // and % (NumPy's npy_divmod): the quotient rounds toward
 * -inf, the remainder takes the divisor's sign. */
#define FLOAT_DIVMOD(SN, T, F)                                                                     \
    static inline T floordiv_##SN(T a, T b)                                                        \
    {                                                                                              \
        if (b == 0)                                                                                \
            return a / b;                                                                          \
        T mod = fmod##F(a, b);                                                                     \
        T div = (a - mod) / b;                                                                     \
        if (mod != 0 && ((b < 0) != (mod < 0)))                                                    \
            div -= 1;                                                                              \
        if (div == 0)                                                                              \
            return copysign##F(0, a / b);                                                          \
        T fl = floor##F(div);                                                                      \
        return div - fl > (T)0.5 ? fl + 1 : fl;                                                    \
    }                                                                                              \
    static inline T remainder_##SN(T a, T b)                                                       \
    {                                                                                              \
        T mod = fmod##F(a, b);                                                                     \
        if (b == 0)                                                                                \
            return mod;                                                                            \
        if (mod == 0)                                                                              \
            return copysign##F(0, b);                                                              \
        return (b < 0) != (mod < 0) ? mod + b : mod;                                               \
    }
FLOAT_DIVMOD(f32, float, f)
FLOAT_DIVMOD(f64, double, )

/* Integer // and % rounding toward -inf; by 0 they give 0, and MIN // -1
 * wraps (Note [integer division by zero]).  Integer ** by squaring, wrapping;
 * a negative exponent gives what the real power truncates to (Note [integer
 * powers]). */
#define INT_DIVMOD_POW(SN, T, U)                                                                   \
    static inline T floordiv_##SN(T a, T b)                                                        \
    {                                                                                              \
        if (b == 0)                                                                                \
            return 0;                                                                              \
        if (b == -1)                                                                               \
            return (T)((U)0 - (U)a);                                                               \
        T q = a / b, r = a % b;                                                                    \
        return r != 0 && ((r < 0) != (b < 0)) ? q - 1 : q;                                         \
    }                                                                                              \
    static inline T remainder_##SN(T a, T b)                                                       \
    {                                                                                              \
        if (b == 0 || b == -1)                                                                     \
            return 0;                                                                              \
        T r = a % b;                                                                               \
        return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;                                         \
    }                                                                                              \
    static inline T pow_##SN(T base, T e)                                                          \
    {                                                                                              \
        if (e < 0)                                                                                 \
            return base == 1 ? 1 : base == -1 ? ((e & 1) ? -1 : 1) : 0;                            \
        U r = 1, b = (U)base;                                                                      \
        for (; e; e >>= 1, b *= b)                                                                 \
            if (e & 1)                                                                             \
                r *= b;                                                                            \
        return (T)r;                                                                               \
    }
INT_DIVMOD_POW(i32, int32_t, uint32_t)
INT_DIVMOD_POW(i64, int64_t, uint64_t)

/* ---- row kernels ---- */

/* o: (n,) of O with byte stride so; a, b: (n,) of T with byte strides sa, sb
 * (0 for a scalar or a broadcast row); extra: the clamp bounds of unary ops. */
typedef void (*ew_row_fn)(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,
                          int64_t n, const void *extra);

/* EXPR computes an O from the elements x and y (of type T). */
#define BINARY_ROW(NAME, T, O, EXPR)                                                               \
    static void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,    \
                     int64_t n, const void *extra)                                                 \
    {                                                                                              \
        (void)extra;                                                                               \
        O *po = (O *)o;                                                                            \
        const T *pa = (const T *)a, *pb = (const T *)b;                                            \
        if (so == sizeof(O) && sa == sizeof(T) && sb == sizeof(T)) {                               \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = pa[i], y = pb[i];                                                            \
                po[i] = (O)(EXPR);                                                                 \
            }                                                                                      \
        } else if (so == sizeof(O) && sa == sizeof(T) && sb == 0) {                                \
            const T y = *pb;                                                                       \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = pa[i];                                                                       \
                po[i] = (O)(EXPR);                                                                 \
            }                                                                                      \
        } else if (so == sizeof(O) && sa == 0 && sb == sizeof(T)) {                                \
            const T x = *pa;                                                                       \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T y = pb[i];                                                                       \
                po[i] = (O)(EXPR);                                                                 \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = *(const T *)(a + i * sa), y = *(const T *)(b + i * sb);                      \
                *(O *)(o + i * so) = (O)(EXPR);                                                    \
            }                                                                                      \
        }                                                                                          \
    }

/* The six comparisons; N normalises an element (bool bytes read as != 0). */
#define COMPARE_ROWS(SN, T, N)                                                                     \
    BINARY_ROW(eq_##SN, T, uint8_t, N(x) == N(y))                                                  \
    BINARY_ROW(ne_##SN, T, uint8_t, N(x) != N(y))                                                  \
    BINARY_ROW(lt_##SN, T, uint8_t, N(x) < N(y))                                                   \
    BINARY_ROW(le_##SN, T, uint8_t, N(x) <= N(y))                                                  \
    BINARY_ROW(gt_##SN, T, uint8_t, N(x) > N(y))                                                   \
    BINARY_ROW(ge_##SN, T, uint8_t, N(x) >= N(y))
#define AS_IS(v) (v)
#define AS_BOOL(v) ((v) != 0)

/* float +, -, *, /, maximum, minimum and the comparisons: contiguous rows (and a
 * scalar with one) go to the kernels of the dispatch level (cpu_vmath.h), the
 * strided ones to the loops above, with the same expressions (cpu_simd.h).  O: the
 * output's element type. */
#define DISPATCHED_ROW(NAME, T, O, EXPR)                                                           \
    BINARY_ROW(NAME##_strided, T, O, EXPR)                                                         \
    static void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,    \
                     int64_t n, const void *extra)                                                 \
    {                                                                                              \
        const int64_t e = sizeof(T);                                                               \
        if (so == sizeof(O) && (sa == e || sa == 0) && (sb == e || sb == 0) && (sa | sb))          \
            pdt_cpu_simd()->NAME(o, a, b, n, sa == 0 ? 1 : sb == 0 ? 2 : 0);                       \
        else                                                                                       \
            NAME##_strided(o, so, a, sa, b, sb, n, extra);                                         \
    }

/* A float32 row kernel of the level: f (exp, log, ...), or with y the powers to y. */
typedef struct vm_call {
    pdt_vm_row f;
    const float *y;
} vm_call;

static void vm_apply(const vm_call *c, float *o, const float *a, int64_t n)
{
    if (c->y)
        pdt_cpu_simd()->powc_f32(o, a, *c->y, n);
    else
        c->f(o, a, n);
}

/* c over a float32 row of any strides: a strided one through a small buffer, so
 * that every element gets the same function whatever its layout. */
static void vm_row_any(char *o, int64_t so, const char *a, int64_t sa, int64_t n, const vm_call *c)
{
    if (so == sizeof(float) && sa == sizeof(float)) {
        vm_apply(c, (float *)o, (const float *)a, n);
        return;
    }
    float buf[256];
    for (int64_t i = 0; i < n; i += 256) {
        int64_t m = n - i < 256 ? n - i : 256;
        for (int64_t j = 0; j < m; j++)
            memcpy(buf + j, a + (i + j) * sa, sizeof(float));
        vm_apply(c, buf, buf, m);
        for (int64_t j = 0; j < m; j++)
            memcpy(o + (i + j) * so, buf + j, sizeof(float));
    }
}

/* float32 powers: Note [float32 powers] in cpu_vpow.h, every layout through the
 * level's functions (a scalar exponent: its row kernel, through a buffer for a
 * strided row); float64's: the C library's pow. */
static void pow_row_f32(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,
                        int64_t n, const void *extra)
{
    (void)extra;
    const pdt_cpu_simd_table *t = pdt_cpu_simd();
    if (sb == 0) {
        float y;
        memcpy(&y, b, sizeof y);
        vm_call c = {NULL, &y};
        vm_row_any(o, so, a, sa, n, &c);
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        float x, y;
        memcpy(&x, a + i * sa, sizeof x);
        memcpy(&y, b + i * sb, sizeof y);
        float r = t->pow_f32(x, y);
        memcpy(o + i * so, &r, sizeof r);
    }
}
#define POW_ROW_f32
#define POW_ROW_f64 BINARY_ROW(pow_row_f64, double, double, pow(x, y))

#define FLOAT_BINARY_ROWS(SN, T, F)                                                                \
    DISPATCHED_ROW(add_##SN, T, T, PDT_ADD(x, y))                                                  \
    DISPATCHED_ROW(sub_##SN, T, T, PDT_SUB(x, y))                                                  \
    DISPATCHED_ROW(mul_##SN, T, T, PDT_MUL(x, y))                                                  \
    DISPATCHED_ROW(div_##SN, T, T, PDT_DIV(x, y))                                                  \
    DISPATCHED_ROW(maximum_##SN, T, T, PDT_MAXIMUM(x, y))                                          \
    DISPATCHED_ROW(minimum_##SN, T, T, PDT_MINIMUM(x, y))                                          \
    DISPATCHED_ROW(eq_##SN, T, uint8_t, x == y)                                                    \
    DISPATCHED_ROW(ne_##SN, T, uint8_t, x != y)                                                    \
    DISPATCHED_ROW(lt_##SN, T, uint8_t, x < y)                                                     \
    DISPATCHED_ROW(le_##SN, T, uint8_t, x <= y)                                                    \
    DISPATCHED_ROW(gt_##SN, T, uint8_t, x > y)                                                     \
    DISPATCHED_ROW(ge_##SN, T, uint8_t, x >= y)                                                    \
    BINARY_ROW(floordiv_row_##SN, T, T, floordiv_##SN(x, y))                                       \
    BINARY_ROW(remainder_row_##SN, T, T, remainder_##SN(x, y))                                     \
    POW_ROW_##SN
FLOAT_BINARY_ROWS(f32, float, f)
FLOAT_BINARY_ROWS(f64, double, )

#define INT_BINARY_ROWS(SN, T, U)                                                                  \
    BINARY_ROW(add_##SN, T, T, (U)x + (U)y)                                                        \
    BINARY_ROW(sub_##SN, T, T, (U)x - (U)y)                                                        \
    BINARY_ROW(mul_##SN, T, T, (U)x *(U)y)                                                         \
    BINARY_ROW(floordiv_row_##SN, T, T, floordiv_##SN(x, y))                                       \
    BINARY_ROW(remainder_row_##SN, T, T, remainder_##SN(x, y))                                     \
    BINARY_ROW(pow_row_##SN, T, T, pow_##SN(x, y))                                                 \
    BINARY_ROW(max_##SN, T, T, x < y ? y : x)                                                      \
    BINARY_ROW(min_##SN, T, T, y < x ? y : x)                                                      \
    COMPARE_ROWS(SN, T, AS_IS)
INT_BINARY_ROWS(i32, int32_t, uint32_t)
INT_BINARY_ROWS(i64, int64_t, uint64_t)

/* bool: + and maximum are `or`, * and minimum are `and`. */
BINARY_ROW(or_bool, uint8_t, uint8_t, (x | y) != 0)
BINARY_ROW(and_bool, uint8_t, uint8_t, (x != 0) & (y != 0))
COMPARE_ROWS(bool, uint8_t, AS_BOOL)

/* float * bool (Note [a float times a mask] in pdt_elementwise.c): a is the float
 * operand, b the mask's bytes (PDT_MASK_FACTOR in cpu_simd.h); contiguous rows go to
 * the dispatch level's kernel (cpu_vmath.h). */
#define MASK_MUL_ROW(NAME, T, U, ONE)                                                              \
    PDT_MASK_FACTOR(NAME##_factor, T, U, ONE)                                                      \
    static void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,    \
                     int64_t n, const void *extra)                                                 \
    {                                                                                              \
        (void)extra;                                                                               \
        if (so == sizeof(T) && sa == sizeof(T) && sb == 1) {                                       \
            pdt_cpu_simd()->NAME(o, a, (const uint8_t *)b, n);                                     \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                *(T *)(o + i * so) = *(const T *)(a + i * sa) *                                    \
                                     NAME##_factor(*(const uint8_t *)(b + i * sb));                \
        }                                                                                          \
    }
MASK_MUL_ROW(mul_mask_f32, float, uint32_t, 0x3f800000u)
MASK_MUL_ROW(mul_mask_f64, double, uint64_t, 0x3ff0000000000000ull)

#define ROWS_5(B, I32, I64, F32, F64)                                                              \
    {                                                                                              \
        B, I32, I64, F32, F64                                                                      \
    }
#define ROWS_NUM(NAME) ROWS_5(NULL, NAME##_i32, NAME##_i64, NAME##_f32, NAME##_f64)
#define ROWS_ALL(NAME) ROWS_5(NAME##_bool, NAME##_i32, NAME##_i64, NAME##_f32, NAME##_f64)

/* [op][dtype]; NULL where the core never sends that pair. */
static const ew_row_fn binary_rows[PDT_NUM_BINARY_OPS][PDT_NUM_DTYPES] = {
    [PDT_OP_ADD] = ROWS_5(or_bool, add_i32, add_i64, add_f32, add_f64),
    [PDT_OP_SUB] = ROWS_NUM(sub),
    [PDT_OP_MUL] = ROWS_5(and_bool, mul_i32, mul_i64, mul_f32, mul_f64),
    [PDT_OP_DIV] = ROWS_5(NULL, NULL, NULL, div_f32, div_f64),
    [PDT_OP_FLOOR_DIV] = ROWS_NUM(floordiv_row),
    [PDT_OP_REMAINDER] = ROWS_NUM(remainder_row),
    [PDT_OP_POW] = ROWS_NUM(pow_row),
    [PDT_OP_MAXIMUM] = ROWS_5(or_bool, max_i32, max_i64, maximum_f32, maximum_f64),
    [PDT_OP_MINIMUM] = ROWS_5(and_bool, min_i32, min_i64, minimum_f32, minimum_f64),
    [PDT_OP_EQ] = ROWS_ALL(eq),
    [PDT_OP_NE] = ROWS_ALL(ne),
    [PDT_OP_LT] = ROWS_ALL(lt),
    [PDT_OP_LE] = ROWS_ALL(le),
    [PDT_OP_GT] = ROWS_ALL(gt),
    [PDT_OP_GE] = ROWS_ALL(ge),
};

/* Unary rows: o and a as above (b unused); EXPR computes a T from x.  The
 * clamp rows read their bounds (two T) from extra. */
#define UNARY_ROW(NAME, T, EXPR)                                                                   \
    static void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,    \
                     int64_t n, const void *extra)                                                 \
    {                                                                                              \
        (void)b, (void)sb;                                                                         \
        const T lo = ((const T *)extra)[0], hi = ((const T *)extra)[1];                            \
        (void)lo, (void)hi;                                                                        \
        if (so == sizeof(T) && sa == sizeof(T)) {                                                  \
            T *po = (T *)o;                                                                        \
            const T *pa = (const T *)a;                                                            \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = pa[i];                                                                       \
                po[i] = (T)(EXPR);                                                                 \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = *(const T *)(a + i * sa);                                                    \
                *(T *)(o + i * so) = (T)(EXPR);                                                    \
            }                                                                                      \
        }                                                                                          \
    }

/* clamp(x) = min(max(x, lo), hi) (cpu_simd.h) */
#define CLAMP(x) PDT_CLAMP(x, lo, hi)

/* clamp of floats: contiguous rows to the level's kernel (cpu_vmath.h), strided
 * ones through the same expression */
#define SIMD_CLAMP_ROW(NAME, T)                                                                    \
    UNARY_ROW(NAME##_strided, T, CLAMP(x))                                                         \
    static void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,    \
                     int64_t n, const void *extra)                                                 \
    {                                                                                              \
        if (so == sizeof(T) && sa == sizeof(T))                                                    \
            pdt_cpu_simd()->NAME(o, a, n, extra);                                                  \
        else                                                                                       \
            NAME##_strided(o, so, a, sa, b, sb, n, extra);                                         \
    }

/* neg, abs, sqrt and relu of floats: contiguous rows go to the level's kernel
 * (cpu_vmath.h), strided ones here, with the same expression (cpu_simd.h) */
#define SIMD_UNARY_ROW(NAME, T, EXPR)                                                              \
    static void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,    \
                     int64_t n, const void *extra)                                                 \
    {                                                                                              \
        (void)b, (void)sb, (void)extra;                                                            \
        if (so == sizeof(T) && sa == sizeof(T)) {                                                  \
            pdt_cpu_simd()->NAME(o, a, n);                                                         \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T x = *(const T *)(a + i * sa);                                                        \
            *(T *)(o + i * so) = (T)EXPR(x);                                                       \
        }                                                                                          \
    }

#define FLOAT_UNARY_ROWS(SN, T)                                                                    \
    SIMD_UNARY_ROW(neg_##SN, T, PDT_NEG)                                                           \
    SIMD_UNARY_ROW(abs_##SN, T, PDT_ABS)                                                           \
    SIMD_UNARY_ROW(sqrt_##SN, T, PDT_SQRT)                                                         \
    SIMD_UNARY_ROW(relu_##SN, T, PDT_RELU)                                                         \
    SIMD_UNARY_ROW(floor_##SN, T, PDT_FLOOR)                                                       \
    SIMD_UNARY_ROW(ceil_##SN, T, PDT_CEIL)                                                         \
    SIMD_UNARY_ROW(round_##SN, T, PDT_ROUND)                                                       \
    SIMD_UNARY_ROW(trunc_##SN, T, PDT_TRUNC)                                                       \
    UNARY_ROW(sign_##SN, T, PDT_SIGN(x))                                                           \
    SIMD_CLAMP_ROW(clamp_##SN, T)
FLOAT_UNARY_ROWS(f32, float)
FLOAT_UNARY_ROWS(f64, double)

/* float64's transcendental functions: the C library's (float32's: VM_ROW below). */
UNARY_ROW(exp_f64, double, exp(x))
UNARY_ROW(log_f64, double, log(x))
UNARY_ROW(sin_f64, double, sin(x))
UNARY_ROW(cos_f64, double, cos(x))
UNARY_ROW(tanh_f64, double, tanh(x))
/* sigmoid: e^x / (1 + e^x) below 0, so that e^-x never overflows (as on CUDA) */
UNARY_ROW(sigmoid_f64, double, x < 0 ? exp(x) / (1.0 + exp(x)) : 1.0 / (1.0 + exp(-x)))
UNARY_ROW(log1p_f64, double, log1p(x))
UNARY_ROW(expm1_f64, double, expm1(x))

#define INT_UNARY_ROWS(SN, T, U)                                                                   \
    UNARY_ROW(neg_##SN, T, (U)0 - (U)x)                                                            \
    UNARY_ROW(abs_##SN, T, x < 0 ? (U)0 - (U)x : (U)x)                                             \
    UNARY_ROW(relu_##SN, T, x < 0 ? 0 : x)                                                         \
    UNARY_ROW(same_##SN, T, x) /* the rounding ops */                                              \
    UNARY_ROW(sign_##SN, T, (x > 0) - (x < 0))                                                     \
    UNARY_ROW(clamp_##SN, T, CLAMP(x))
INT_UNARY_ROWS(i32, int32_t, uint32_t)
INT_UNARY_ROWS(i64, int64_t, uint64_t)

UNARY_ROW(identity_bool, uint8_t, x != 0) /* abs, relu and sign of a bool */

/* float32 exp, log, sin, cos, tanh and sigmoid: the vectorised kernels of the
 * level in use (cpu_vmath.h, Note [vector math accuracy]); a strided row goes
 * through a small buffer, so that every element gets the same function. */
#define VM_ROW(NAME, FIELD)                                                                        \
    static void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,    \
                     int64_t n, const void *extra)                                                 \
    {                                                                                              \
        (void)b, (void)sb, (void)extra;                                                            \
        vm_call c = {pdt_cpu_simd()->FIELD, NULL};                                                 \
        vm_row_any(o, so, a, sa, n, &c);                                                           \
    }
VM_ROW(vexp_f32, exp_f32)
VM_ROW(vlog_f32, log_f32)
VM_ROW(vsin_f32, sin_f32)
VM_ROW(vcos_f32, cos_f32)
VM_ROW(vtanh_f32, tanh_f32)
VM_ROW(vsigmoid_f32, sigmoid_f32)
VM_ROW(vlog1p_f32, log1p_f32) /* Note [log1p and expm1] in cpu_vexpm1.h */
VM_ROW(vexpm1_f32, expm1_f32)

#define FLOAT_ONLY(NAME) ROWS_5(NULL, NULL, NULL, v##NAME##_f32, NAME##_f64)

static const ew_row_fn unary_rows[PDT_NUM_UNARY_OPS][PDT_NUM_DTYPES] = {
    [PDT_OP_NEG] = ROWS_NUM(neg),
    [PDT_OP_ABS] = ROWS_5(identity_bool, abs_i32, abs_i64, abs_f32, abs_f64),
    [PDT_OP_EXP] = FLOAT_ONLY(exp),
    [PDT_OP_LOG] = FLOAT_ONLY(log),
    [PDT_OP_SQRT] = ROWS_5(NULL, NULL, NULL, sqrt_f32, sqrt_f64),
    [PDT_OP_SIN] = FLOAT_ONLY(sin),
    [PDT_OP_COS] = FLOAT_ONLY(cos),
    [PDT_OP_TANH] = FLOAT_ONLY(tanh),
    [PDT_OP_SIGMOID] = FLOAT_ONLY(sigmoid),
    [PDT_OP_RELU] = ROWS_5(identity_bool, relu_i32, relu_i64, relu_f32, relu_f64),
    [PDT_OP_CLAMP] = ROWS_NUM(clamp),
    [PDT_OP_FLOOR] = ROWS_5(NULL, same_i32, same_i64, floor_f32, floor_f64),
    [PDT_OP_CEIL] = ROWS_5(NULL, same_i32, same_i64, ceil_f32, ceil_f64),
    [PDT_OP_ROUND] = ROWS_5(NULL, same_i32, same_i64, round_f32, round_f64),
    [PDT_OP_TRUNC] = ROWS_5(NULL, same_i32, same_i64, trunc_f32, trunc_f64),
    [PDT_OP_SIGN] = ROWS_5(identity_bool, sign_i32, sign_i64, sign_f32, sign_f64),
    [PDT_OP_LOG1P] = FLOAT_ONLY(log1p),
    [PDT_OP_EXPM1] = FLOAT_ONLY(expm1),
};

/* ---- the three-operand walk ---- */

/* out, a, b: one shape (after merging dims), byte strides per operand, dims
 * outermost first. */
typedef struct ew_job {
    ew_row_fn fn;
    const void *extra;
    int stream; /* one contiguous row with a large output: Note [streamed outputs] */
    int ndim;
    int64_t shape[PDT_MAX_DIMS];
    int64_t strides[3][PDT_MAX_DIMS];
    char *base[3];
} ew_job;

/* Whether out is one of the inputs, as in x.add_(y) or add(a, b, out=a): the core
 * copies an input that partly overlaps out (pdt_backend.h), so an input shares bytes
 * with out only by being it.  Such an output is not streamed (Note [streamed
 * outputs]): its lines are read anyway, so non-temporal stores save no read for
 * ownership, and the copy through the buffer made an in-place add of 1e8 float32 1.5
 * times slower than plain stores (37.6 against 24.8 ms on two threads here). */
static int out_is_an_input(const pdt_tensor *out, const pdt_tensor *const ops[3])
{
    const char *o = pdt_tensor_ptr(out);
    return (ops[1] && pdt_tensor_ptr(ops[1]) == o) || (ops[2] && pdt_tensor_ptr(ops[2]) == o);
}

/* Whether a job that runs as one contiguous row streams its output (Note [streamed
 * outputs]): a large one that is none of the inputs. */
static int worth_streaming(const pdt_tensor *out, const pdt_tensor *const ops[3])
{
    return pdt_tensor_numel(out) * (int64_t)pdt_dtype_size(out->dtype) >= PDT_STREAM_MIN_BYTES &&
           !out_is_an_input(out, ops);
}

/* ops[k] == NULL: a scalar at base[k] (stride 0 everywhere).  ops[0] is out. */
static void job_init(ew_job *job, const pdt_tensor *out, const pdt_tensor *const ops[3])
{
    int ndim = 0, dense = 1;
    for (int k = 0; k < 3 && dense; k++)
        dense = !ops[k] || pdt_tensor_is_contiguous(ops[k]);
    job->stream = 0;
    if (dense) { /* every tensor contiguous: one row, unit strides */
        job->ndim = 1;
        job->shape[0] = pdt_tensor_numel(out);
        job->stream = worth_streaming(out, ops);
        for (int k = 0; k < 3; k++) {
            job->strides[k][0] = ops[k] ? (int64_t)pdt_dtype_size(ops[k]->dtype) : 0;
            if (ops[k])
                job->base[k] = pdt_tensor_ptr(ops[k]);
        }
        return;
    }
    int perm[PDT_MAX_DIMS]; /* the walk runs in out's memory order (Note [memory order]) */
    pdt_memory_order(out, perm);
    for (int ii = 0; ii < out->ndim; ii++) {
        int i = perm[ii];
        int64_t s = out->shape[i];
        if (s == 1)
            continue;
        int merge = ndim > 0;
        for (int k = 0; k < 3 && merge; k++)
            merge = !ops[k] || job->strides[k][ndim - 1] == ops[k]->strides[i] * s;
        for (int k = 0; k < 3; k++)
            job->strides[k][merge ? ndim - 1 : ndim] = ops[k] ? ops[k]->strides[i] : 0;
        if (merge)
            job->shape[ndim - 1] *= s;
        else
            job->shape[ndim++] = s;
    }
    if (ndim == 0) { /* one element */
        job->shape[0] = 1;
        job->strides[0][0] = job->strides[1][0] = job->strides[2][0] = 0;
        ndim = 1;
    }
    job->ndim = ndim;
    int row = ndim == 1; /* dense in one memory order, as a.T + b.T: one contiguous row */
    for (int k = 0; k < 3; k++) {
        if (!ops[k])
            continue;
        int64_t elsize = (int64_t)pdt_dtype_size(ops[k]->dtype);
        for (int d = 0; d < ndim; d++)
            job->strides[k][d] *= elsize;
        job->base[k] = pdt_tensor_ptr(ops[k]);
        row = row && job->strides[k][0] == elsize;
    }
    job->stream = row && worth_streaming(out, ops);
}

/* The contiguous row's elements from `at` on, for pdt_cpu_streamed (Note
 * [streamed outputs]). */
typedef struct streamed_part {
    const ew_job *job;
    int64_t at;
} streamed_part;

/* Asks for the lines of elements [i + EW_PREFETCH_AHEAD, + n) of a contiguous input of
 * stride s (0: a scalar), so that they are on their way while this block computes.  A
 * prefetch never faults, so the lines past the input's end are harmless; the address
 * is formed as an integer (no pointer past the object). */
#define EW_PREFETCH_AHEAD 1024
static inline void prefetch_ahead(const char *base, int64_t s, int64_t i, int64_t n)
{
    if (s == 0)
        return;
    const uintptr_t from = (uintptr_t)base + (uintptr_t)((i + EW_PREFETCH_AHEAD) * s);
    for (uintptr_t a = from & ~(uintptr_t)63; a < from + (uintptr_t)(n * s); a += 64)
        __builtin_prefetch((const void *)a, 0, 3);
}

static void run_part(const void *ctx, char *dst, int64_t first, int64_t n)
{
    const streamed_part *p = ctx;
    const ew_job *job = p->job;
    const int64_t sa = job->strides[1][0], sb = job->strides[2][0], i = p->at + first;
    prefetch_ahead(job->base[1], sa, i, n);
    prefetch_ahead(job->base[2], sb, i, n);
    job->fn(dst, job->strides[0][0], job->base[1] + i * sa, sa, job->base[2] + i * sb, sb, n,
            job->extra);
}

/* Runs the rows covering elements [begin, end) in row-major order. */
static void job_run_range(int64_t begin, int64_t end, void *ctx)
{
    const ew_job *job = (const ew_job *)ctx;
    const int last = job->ndim - 1;
    if (last == 0 && job->stream) {
        const int64_t so = job->strides[0][0];
        streamed_part p = {job, begin};
        pdt_cpu_streamed(job->base[0] + begin * so, so, end - begin, run_part, &p);
        return;
    }
    if (last == 0) { /* one row: the contiguous case */
        job->fn(job->base[0] + begin * job->strides[0][0], job->strides[0][0],
                job->base[1] + begin * job->strides[1][0], job->strides[1][0],
                job->base[2] + begin * job->strides[2][0], job->strides[2][0], end - begin,
                job->extra);
        return;
    }
    int64_t idx[PDT_MAX_DIMS], rem = begin;
    for (int d = last; d >= 0; d--) {
        idx[d] = rem % job->shape[d];
        rem /= job->shape[d];
    }
    for (int64_t pos = begin; pos < end;) {
        char *p[3];
        for (int k = 0; k < 3; k++) {
            p[k] = job->base[k];
            for (int d = 0; d <= last; d++)
                p[k] += idx[d] * job->strides[k][d];
        }
        int64_t n = job->shape[last] - idx[last];
        if (n > end - pos)
            n = end - pos;
        job->fn(p[0], job->strides[0][last], p[1], job->strides[1][last], p[2],
                job->strides[2][last], n, job->extra);
        pos += n;
        idx[last] = 0;
        for (int d = last - 1; d >= 0 && ++idx[d] == job->shape[d]; d--)
            idx[d] = 0;
    }
}

/* Runs the job over its numel elements: on this thread below twice hot_grain, else
 * split over the pool at `grain`, or at the smaller hot_grain when the op comes in a
 * loop (Note [the hot grain] in cpu_parallel.c).  In a loop the split pays from:
 * - EW_GRAIN_HOT for the cheap ops: add of 33,000 / 60,000 float32 3.9 / 7.3 us on
 *   one thread (NumPy 3.9 / 7.2), 2.4 / 3.8 split; maximum of 60,000 8.4 -> 4.3;
 * - EW_GRAIN_COSTLY_HOT for costly_unary's ops: 4,000 float32 exp 2.04 -> 1.38 us,
 *   tanh 2.37 -> 1.53 (NumPy 1.88), log 1.71 -> 1.21, sigmoid 3.12 -> 1.93;
 * - EW_GRAIN_POW_HOT for powers (2 to 2.5 ns an element on one core at AVX-512, Note
 *   [float32 powers] in cpu_vpow.h): x ** 1.7 of 3,000 and 8,000 float32 6.3 -> 3.6
 *   us and 16.3 -> 8.6 (NumPy 4.4 and 10.1); splitting 1,000 in two took 3.0 us
 *   against 2.3. */
static void job_run(ew_job *job, int64_t numel, int64_t grain, int64_t hot_grain)
{
    if (numel < 2 * hot_grain)
        job_run_range(0, numel, job);
    else
        pdt_cpu_parallel_for_hot(numel, grain, hot_grain, job_run_range, job);
}

static int costly_unary(pdt_unary_op op)
{
    return op == PDT_OP_EXP || op == PDT_OP_LOG || op == PDT_OP_SIN || op == PDT_OP_COS ||
           op == PDT_OP_TANH || op == PDT_OP_SIGMOID || op == PDT_OP_LOG1P || op == PDT_OP_EXPM1;
}

/* A scalar operand's value in dtype dt, at a stable address. */
typedef union scalar_slot {
    uint8_t b;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
} scalar_slot;

static void scalar_store(pdt_dtype dt, pdt_scalar s, scalar_slot *slot)
{
    double f = s.is_float ? s.f : (double)s.i;
    int64_t i = s.is_float ? pdt_f64_to_i64(s.f) : s.i; /* NaN, inf: Note [float to int] */
    switch (dt) {
    case PDT_BOOL: slot->b = (uint8_t)(i != 0); break;
    case PDT_INT32: slot->i32 = (int32_t)i; break;
    case PDT_INT64: slot->i64 = i; break;
    case PDT_FLOAT32: slot->f32 = (float)f; break;
    case PDT_FLOAT64: slot->f64 = f; break;
    default: break; /* float16, bfloat16: computed in float32 (pdt_half.h) */
    }
}

pdt_status pdt_cpu_binary(pdt_binary_op op, const pdt_tensor *out, pdt_operand a, pdt_operand b)
{
    /* The compute dtype: out's, except for comparisons (whose out is bool). */
    pdt_dtype dt = a.t ? a.t->dtype : b.t ? b.t->dtype : out->dtype;
    ew_row_fn fn = (unsigned)op < PDT_NUM_BINARY_OPS ? binary_rows[op][dt] : NULL;
    if (op == PDT_OP_MUL && a.t && b.t && a.t->dtype != b.t->dtype) {
        if (a.t->dtype == PDT_BOOL) { /* the float operand first: x * m is m * x */
            pdt_operand t = a;
            a = b;
            b = t;
        }
        dt = a.t->dtype;
        fn = b.t->dtype != PDT_BOOL ? NULL
             : dt == PDT_FLOAT32    ? mul_mask_f32
             : dt == PDT_FLOAT64    ? mul_mask_f64
                                    : NULL;
    }
    if (!fn)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "binary op %d is not implemented for %s on the CPU",
                        (int)op, pdt_dtype_name(dt));
    scalar_slot sa, sb;
    const pdt_tensor *ops[3] = {out, a.t, b.t};
    ew_job job;
    job.fn = fn;
    job.extra = NULL;
    job_init(&job, out, ops);
    if (!a.t) {
        scalar_store(dt, a.s, &sa);
        job.base[1] = (char *)&sa;
    }
    if (!b.t) {
        scalar_store(dt, b.s, &sb);
        job.base[2] = (char *)&sb;
    }
    /* powers are compute-bound (2.5 ns an element of float32 on one core, five
     * times exp's): not streamed, and split at costly_unary's grain */
    job.stream &= op != PDT_OP_POW;
    if (op == PDT_OP_POW)
        job_run(&job, pdt_tensor_numel(out), EW_GRAIN_COSTLY, EW_GRAIN_POW_HOT);
    else
        job_run(&job, pdt_tensor_numel(out), EW_GRAIN, EW_GRAIN_HOT);
    return PDT_OK;
}

/* a op (b * alpha), the product rounded to T first (Note [add with alpha] in
 * pdt_elementwise.c; this file is built with -ffp-contract=off); extra: alpha
 * as a T. */
#define SCALED_ROW(NAME, T, OP)                                                                    \
    static void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,    \
                     int64_t n, const void *extra)                                                 \
    {                                                                                              \
        const T alpha = *(const T *)extra;                                                         \
        if (so == sizeof(T) && sa == sizeof(T) && sb == sizeof(T)) {                               \
            T *po = (T *)o;                                                                        \
            const T *pa = (const T *)a, *pb = (const T *)b;                                        \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T s = pb[i] * alpha;                                                               \
                po[i] = pa[i] OP s;                                                                \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T s = *(const T *)(b + i * sb) * alpha;                                                \
            *(T *)(o + i * so) = *(const T *)(a + i * sa) OP s;                                    \
        }                                                                                          \
    }
SCALED_ROW(add_scaled_f32, float, +)
SCALED_ROW(sub_scaled_f32, float, -)
SCALED_ROW(add_scaled_f64, double, +)
SCALED_ROW(sub_scaled_f64, double, -)

pdt_status pdt_cpu_binary_scaled(pdt_binary_op op, const pdt_tensor *out, const pdt_tensor *a,
                                 const pdt_tensor *b, pdt_scalar alpha)
{
    const int f32 = out->dtype == PDT_FLOAT32, sub = op == PDT_OP_SUB;
    if ((op != PDT_OP_ADD && !sub) || (!f32 && out->dtype != PDT_FLOAT64))
        return pdt_fail(PDT_ERR_UNSUPPORTED, "add or sub with alpha: op %d on %s on the CPU",
                        (int)op, pdt_dtype_name(out->dtype));
    scalar_slot s;
    scalar_store(out->dtype, alpha, &s);
    const pdt_tensor *ops[3] = {out, a, b};
    ew_job job;
    job.fn = f32 ? (sub ? sub_scaled_f32 : add_scaled_f32)
                 : (sub ? sub_scaled_f64 : add_scaled_f64);
    job.extra = &s;
    job_init(&job, out, ops);
    job_run(&job, pdt_tensor_numel(out), EW_GRAIN, EW_GRAIN_HOT);
    return PDT_OK;
}

/* The clamp bounds as two elements of x's dtype, as the clamp rows read them
 * (the core has resolved missing bounds and saturated integer ones). */
typedef union clamp_bounds {
    uint8_t b[2];
    int32_t i32[2];
    int64_t i64[2];
    float f32[2];
    double f64[2];
} clamp_bounds;

static void clamp_bounds_init(pdt_dtype dt, pdt_scalar lo, pdt_scalar hi, clamp_bounds *out)
{
    const pdt_scalar v[2] = {lo, hi};
    memset(out, 0, sizeof *out);
    for (int k = 0; k < 2; k++) {
        switch (dt) {
        case PDT_FLOAT32: out->f32[k] = (float)v[k].f; break;
        case PDT_FLOAT64: out->f64[k] = v[k].f; break;
        case PDT_INT32: out->i32[k] = (int32_t)v[k].i; break;
        case PDT_INT64: out->i64[k] = v[k].i; break;
        case PDT_BOOL: out->b[k] = (uint8_t)k; break;
        default: break; /* float16, bfloat16: computed in float32 (pdt_half.h) */
        }
    }
}

pdt_status pdt_cpu_unary(pdt_unary_op op, const pdt_tensor *out, const pdt_tensor *x, pdt_scalar lo,
                         pdt_scalar hi)
{
    ew_row_fn fn = (unsigned)op < PDT_NUM_UNARY_OPS ? unary_rows[op][x->dtype] : NULL;
    if (!fn)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "unary op %d is not implemented for %s on the CPU",
                        (int)op, pdt_dtype_name(x->dtype));
    clamp_bounds bounds;
    clamp_bounds_init(x->dtype, lo, hi, &bounds);
    const pdt_tensor *ops[3] = {out, x, NULL};
    char unused = 0;
    ew_job job;
    job.fn = fn;
    job.extra = &bounds;
    job_init(&job, out, ops);
    job.base[2] = &unused;
    if (costly_unary(op)) {
        /* compute-bound: streamed only past the cache (Note [streamed outputs]) */
        const int64_t bytes = pdt_tensor_numel(out) * (int64_t)pdt_dtype_size(out->dtype);
        job.stream = job.stream && bytes > pdt_cpu_last_cache_bytes();
        job_run(&job, pdt_tensor_numel(out), EW_GRAIN_COSTLY, EW_GRAIN_COSTLY_HOT);
    } else
        job_run(&job, pdt_tensor_numel(out), EW_GRAIN, EW_GRAIN_HOT);
    return PDT_OK;
}
