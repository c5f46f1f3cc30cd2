/* cpu_unary.c - the CPU backend's elementwise unary ops: one row kernel per (op,
 * dtype) in unary_rows, run by the three-operand walk (cpu_ew.h).  Floats: neg, abs,
 * sqrt, relu, sign, clamp and the rounding ops through the dispatch level's kernels on
 * contiguous rows (cpu_vmath.h), the same expressions (cpu_simd.h) on strided ones;
 * float32 exp, log, sin, cos, tanh, sigmoid, log1p, expm1, erf, erfc, tan, the inverse
 * functions, log2, log10 and rsqrt through the level's vector math on every layout, and
 * float64 exp, log, sin, cos, tanh and sigmoid (cpu_vmath64.h); float64's other
 * transcendental functions from the C library.  Semantics shared with the CUDA kernels
 * (cuda_elementwise.cu), element for element: NaN propagating through clamp/relu,
 * integer negation wrapping (done in unsigned types, where C defines the wrap).
 */
#define _GNU_SOURCE /* lgamma_r */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu_erfinv.h"
#include "cpu_ew.h"
#include "cpu_kernels.h"
#include "cpu_stream.h"
#include "pdt_gamma.h"

/* Unary rows: o and a as ew_row_fn's (cpu_ew.h; b unused); EXPR computes a T from x.  The
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

/* Of integers, min(max(x, lo), hi): PDT_CLAMP's values (lo > hi gives hi either way; no
 * NaN), without the branch GCC kept in the strided loop (int8 clamp of a strided 1e6 took
 * 3.3 ms, mispredicted on signed data) */
#define ICLAMP(x) PDT_IMIN(PDT_IMAX(x, lo), hi)

/* clamp: contiguous rows to the level's kernel (cpu_vmath.h), strided ones through the
 * expression E (CLAMP for floats, ICLAMP for integers) */
#define SIMD_CLAMP_ROW(NAME, T, E)                                                                 \
    UNARY_ROW(NAME##_strided, T, E(x))                                                             \
    static void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,    \
                     int64_t n, const void *extra)                                                 \
    {                                                                                              \
        if (so == sizeof(T) && sa == sizeof(T))                                                    \
            pdt_cpu_simd()->NAME(o, a, n, extra);                                                  \
        else                                                                                       \
            NAME##_strided(o, so, a, sa, b, sb, n, extra);                                         \
    }

/* neg, abs, sqrt, relu, the roundings and sign of floats: contiguous rows go to the
 * level's kernel (cpu_vmath.h), strided ones here, with the same expression (cpu_simd.h) */
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
    SIMD_UNARY_ROW(sign_##SN, T, PDT_SIGN)                                                         \
    SIMD_CLAMP_ROW(clamp_##SN, T, CLAMP)
FLOAT_UNARY_ROWS(f32, float)
FLOAT_UNARY_ROWS(f64, double)

/* float64 exp, log, sin, cos, tanh, sigmoid, expm1, log1p, tan, atanh, sinh, cosh, log2
 * and log10: the level's vector rows on every layout (VD_ROW below; Notes [float64 vector
 * math] in cpu_vmath64.h and [float64 functions from the cores] in cpu_vfunc64.h); the
 * other float64 functions: the C library's. */
UNARY_ROW(erf_f64, double, erf(x))
UNARY_ROW(erfc_f64, double, erfc(x))
/* Note [lgamma on the CPU]: lgamma_r, the reentrant lgamma (no write to the global
 * signgam from several threads; and it keeps the symbol version of glibc 2.2.5, where
 * lgamma's moved to 2.23).  float32 goes through double and is rounded once, as on
 * CUDA (cuda_elementwise.cu), so the two agree but for CUDA's lgamma error. */
static inline double lgamma_reentrant(double x)
{
    int sign;
    return lgamma_r(x, &sign);
}
UNARY_ROW(lgamma_f64, double, lgamma_reentrant(x))
UNARY_ROW(lgamma_f32, float, lgamma_reentrant((double)x))
UNARY_ROW(digamma_f64, double, pdt_digamma(x)) /* Note [digamma] in pdt_gamma.h */
UNARY_ROW(digamma_f32, float, pdt_digamma((double)x))

/* integers: neg, abs, relu, sign and clamp as the floats' (the level's rows when contiguous,
 * cpu_vmath.h's VM_INT_UNARY and cpu_vsmall.h's; the same expressions of cpu_simd.h when
 * strided) */
#define INT_UNARY_ROWS(SN, T, NEG, ABS, RELU, SIGN)                                                \
    SIMD_UNARY_ROW(neg_##SN, T, NEG)                                                               \
    SIMD_UNARY_ROW(abs_##SN, T, ABS)                                                               \
    SIMD_UNARY_ROW(relu_##SN, T, RELU)                                                             \
    UNARY_ROW(same_##SN, T, x) /* the rounding ops */                                              \
    SIMD_UNARY_ROW(sign_##SN, T, SIGN)                                                             \
    SIMD_CLAMP_ROW(clamp_##SN, T, ICLAMP)
INT_UNARY_ROWS(i32, int32_t, PDT_INEG_I32, PDT_IABS_I32, PDT_RELU, PDT_ISIGN)
INT_UNARY_ROWS(i64, int64_t, PDT_INEG_I64, PDT_IABS_I64, PDT_RELU, PDT_ISIGN_I64)
/* uint8, int8, int16 (Note [small integer rows] in cpu_vsmall.h) */
#define SMALL_UNARY_ROWS(SN, T)                                                                    \
    INT_UNARY_ROWS(SN, T, pdt_ineg_##SN, pdt_iabs_##SN, pdt_relu_##SN, pdt_isign_##SN)
SMALL_UNARY_ROWS(u8, uint8_t)
SMALL_UNARY_ROWS(i8, int8_t)
SMALL_UNARY_ROWS(i16, int16_t)

UNARY_ROW(identity_bool, uint8_t, x != 0) /* abs, relu and sign of a bool */

/* ---- tan, the inverse trigonometric and hyperbolic functions, sinh, cosh, log2, log10,
 * rsqrt and erfinv (csrc/python/tensor_trig.c).  float32 and float64: the level's vector
 * rows (VM_ROW and VD_ROW below; Notes [float32 inverse functions] in cpu_vtrig.h, [float32
 * sinh and cosh] in cpu_vhyper.h, [float64 functions from the cores] in cpu_vfunc64.h), but
 * erfinv: pdt_erfinv in double (Note [erfinv] in cpu_erfinv.h), float32 rounded once;
 * float64's rsqrt: 1 / sqrt(x), the level's row on contiguous rows, the same two IEEE
 * operations on strided ones.  A table of their own, looked up after unary_rows. */
static inline double rsqrt_of(double x) { return 1.0 / sqrt(x); }
SIMD_UNARY_ROW(rsqrt_f64, double, rsqrt_of)
UNARY_ROW(erfinv_f32, float, (float)pdt_erfinv((double)x))
UNARY_ROW(erfinv_f64, double, pdt_erfinv(x))
UNARY_ROW(gelu_f64, double, 0.5 * x * erfc(x * -0.70710678118654752440))
UNARY_ROW(gelu_grad_f64, double,
          0.5 * erfc(x * -0.70710678118654752440) +
              x * exp(-0.5 * (x * x)) * 0.39894228040143267794)
/* float32 exp, log, sin, cos, tanh and sigmoid: the vectorised kernels of the
 * level in use (cpu_vmath.h, Note [vector math accuracy]); a strided row goes
 * through a small buffer, so that every element gets the same function. */
#define VM_ROW_OF(NAME, F, D)                                                                      \
    static void NAME(char *o, int64_t so, const char *a, int64_t sa, const char *b, int64_t sb,    \
                     int64_t n, const void *extra)                                                 \
    {                                                                                              \
        (void)b, (void)sb, (void)extra;                                                            \
        vm_call c = {F, NULL, D};                                                                  \
        pdt_cpu_vm_row_any(o, so, a, sa, n, &c);                                                   \
    }
#define VM_ROW(NAME, FIELD) VM_ROW_OF(NAME, pdt_cpu_simd()->FIELD, NULL)
VM_ROW(vexp_f32, exp_f32)
VM_ROW(vlog_f32, log_f32)
VM_ROW(vsin_f32, sin_f32)
VM_ROW(vcos_f32, cos_f32)
VM_ROW(vtanh_f32, tanh_f32)
VM_ROW(vsigmoid_f32, sigmoid_f32)
VM_ROW(vlog1p_f32, log1p_f32) /* Note [log1p and expm1] in cpu_vexpm1.h */
VM_ROW(vexpm1_f32, expm1_f32)
VM_ROW(verf_f32, erf_f32) /* Note [float32 erf and erfc] in cpu_verf.h */
VM_ROW(verfc_f32, erfc_f32)
VM_ROW(vtan_f32, tan_f32) /* Note [float32 inverse functions] in cpu_vtrig.h */
VM_ROW(vasin_f32, asin_f32)
VM_ROW(vacos_f32, acos_f32)
VM_ROW(vatan_f32, atan_f32)
VM_ROW(vasinh_f32, asinh_f32)
VM_ROW(vacosh_f32, acosh_f32)
VM_ROW(vatanh_f32, atanh_f32)
VM_ROW(vlog2_f32, log2_f32)
VM_ROW(vlog10_f32, log10_f32)
VM_ROW(vrsqrt_f32, rsqrt_f32)
VM_ROW(vgelu_f32, gelu_f32) /* Note [float32 gelu] in cpu_vgelu.h */
VM_ROW(vgelu_grad_f32, gelu_grad_f32)
/* the same for float64 (cpu_vmath64.h) */
#define VD_ROW(NAME, FIELD) VM_ROW_OF(NAME, NULL, pdt_cpu_simd()->FIELD)
VD_ROW(exp_f64, exp_f64)
VD_ROW(log_f64, log_f64)
VD_ROW(sin_f64, sin_f64)
VD_ROW(cos_f64, cos_f64)
VD_ROW(tanh_f64, tanh_f64)
VD_ROW(sigmoid_f64, sigmoid_f64)
VD_ROW(expm1_f64, expm1_f64)
VD_ROW(log1p_f64, log1p_f64)
VD_ROW(tan_f64, tan_f64)
VD_ROW(atanh_f64, atanh_f64)
VD_ROW(asinh_f64, asinh_f64)
VD_ROW(atan_f64, atan_f64)
VD_ROW(asin_f64, asin_f64)
VD_ROW(acos_f64, acos_f64)
VD_ROW(acosh_f64, acosh_f64)
VD_ROW(sinh_f64, sinh_f64)
VD_ROW(cosh_f64, cosh_f64)
VD_ROW(log2_f64, log2_f64)
VD_ROW(log10_f64, log10_f64)
VM_ROW(vsinh_f32, sinh_f32) /* Note [float32 sinh and cosh] in cpu_vhyper.h */
VM_ROW(vcosh_f32, cosh_f32)
VM_ROW(vexp2_f32, exp2_f32) /* Note [float32 exp2] in cpu_vexp2.h */
VD_ROW(exp2_f64, exp2_f64)  /* 2 ** x's float64 row (cpu_vfunc64.h) */
#define TRIG_ONLY(NAME) ROWS_5(NULL, NULL, NULL, v##NAME##_f32, NAME##_f64)
static const ew_row_fn trig_rows[PDT_NUM_UNARY_OPS][PDT_NUM_DTYPES] = {
    [PDT_OP_TAN] = TRIG_ONLY(tan),
    [PDT_OP_ASIN] = TRIG_ONLY(asin),
    [PDT_OP_ACOS] = TRIG_ONLY(acos),
    [PDT_OP_ATAN] = TRIG_ONLY(atan),
    [PDT_OP_ASINH] = TRIG_ONLY(asinh),
    [PDT_OP_ACOSH] = TRIG_ONLY(acosh),
    [PDT_OP_ATANH] = TRIG_ONLY(atanh),
    [PDT_OP_SINH] = TRIG_ONLY(sinh),
    [PDT_OP_COSH] = TRIG_ONLY(cosh),
    [PDT_OP_LOG2] = TRIG_ONLY(log2),
    [PDT_OP_LOG10] = TRIG_ONLY(log10),
    [PDT_OP_EXP2] = TRIG_ONLY(exp2),
    [PDT_OP_RSQRT] = TRIG_ONLY(rsqrt),
    [PDT_OP_ERFINV] = ROWS_5(NULL, NULL, NULL, erfinv_f32, erfinv_f64),
    [PDT_OP_GELU] = ROWS_5(NULL, NULL, NULL, vgelu_f32, gelu_f64),
    [PDT_OP_GELU_GRAD] = ROWS_5(NULL, NULL, NULL, vgelu_grad_f32, gelu_grad_f64),
};
/* the ops of trig_rows: costly, float only */
static int is_trig(pdt_unary_op op) { return op >= PDT_OP_TAN && op <= PDT_OP_GELU_GRAD; }

#define FLOAT_ONLY(NAME) ROWS_5(NULL, NULL, NULL, v##NAME##_f32, NAME##_f64)

static const ew_row_fn unary_rows[PDT_NUM_UNARY_OPS][PDT_NUM_DTYPES] = {
    [PDT_OP_NEG] = ROWS_8(NULL, neg_i32, neg_i64, neg_f32, neg_f64, neg),
    [PDT_OP_ABS] = ROWS_8(identity_bool, abs_i32, abs_i64, abs_f32, abs_f64, abs),
    [PDT_OP_EXP] = FLOAT_ONLY(exp),
    [PDT_OP_LOG] = FLOAT_ONLY(log),
    [PDT_OP_SQRT] = ROWS_5(NULL, NULL, NULL, sqrt_f32, sqrt_f64),
    [PDT_OP_SIN] = FLOAT_ONLY(sin),
    [PDT_OP_COS] = FLOAT_ONLY(cos),
    [PDT_OP_TANH] = FLOAT_ONLY(tanh),
    [PDT_OP_SIGMOID] = FLOAT_ONLY(sigmoid),
    [PDT_OP_RELU] = ROWS_8(identity_bool, relu_i32, relu_i64, relu_f32, relu_f64, relu),
    [PDT_OP_CLAMP] = ROWS_NUMS(clamp),
    [PDT_OP_FLOOR] = ROWS_8(NULL, same_i32, same_i64, floor_f32, floor_f64, same),
    [PDT_OP_CEIL] = ROWS_8(NULL, same_i32, same_i64, ceil_f32, ceil_f64, same),
    [PDT_OP_ROUND] = ROWS_8(NULL, same_i32, same_i64, round_f32, round_f64, same),
    [PDT_OP_TRUNC] = ROWS_8(NULL, same_i32, same_i64, trunc_f32, trunc_f64, same),
    [PDT_OP_SIGN] = ROWS_8(identity_bool, sign_i32, sign_i64, sign_f32, sign_f64, sign),
    [PDT_OP_LOG1P] = FLOAT_ONLY(log1p),
    [PDT_OP_EXPM1] = FLOAT_ONLY(expm1),
    [PDT_OP_ERF] = FLOAT_ONLY(erf),
    [PDT_OP_ERFC] = FLOAT_ONLY(erfc),
    [PDT_OP_LGAMMA] = ROWS_5(NULL, NULL, NULL, lgamma_f32, lgamma_f64),
    [PDT_OP_DIGAMMA] = ROWS_5(NULL, NULL, NULL, digamma_f32, digamma_f64),
};

static int costly_unary(pdt_unary_op op)
{
    return op == PDT_OP_EXP || op == PDT_OP_LOG || op == PDT_OP_SIN || op == PDT_OP_COS ||
           op == PDT_OP_TANH || op == PDT_OP_SIGMOID || op == PDT_OP_LOG1P || op == PDT_OP_EXPM1 ||
           op == PDT_OP_ERF || op == PDT_OP_ERFC || op == PDT_OP_LGAMMA || op == PDT_OP_DIGAMMA;
}

/* The clamp bounds as two elements of x's dtype, as the clamp rows read them
 * (the core has resolved missing bounds and saturated integer ones). */
typedef union clamp_bounds {
    uint8_t b[2], u8[2];
    int8_t i8[2];
    int16_t i16[2];
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
        case PDT_UINT8: out->u8[k] = (uint8_t)v[k].i; break;
        case PDT_INT8: out->i8[k] = (int8_t)v[k].i; break;
        case PDT_INT16: out->i16[k] = (int16_t)v[k].i; break;
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
    ew_row_fn fn = (unsigned)op >= PDT_NUM_UNARY_OPS ? NULL
                   : is_trig(op)                     ? trig_rows[op][x->dtype]
                                                     : unary_rows[op][x->dtype];
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
    pdt_cpu_ew_init(&job, out, ops);
    job.base[2] = &unused;
    if (costly_unary(op) || is_trig(op)) {
        /* compute-bound: streamed only past the cache (Note [streamed outputs]) */
        const int64_t bytes = pdt_tensor_numel(out) * (int64_t)pdt_dtype_size(out->dtype);
        job.stream = job.stream && bytes > pdt_cpu_last_cache_bytes();
        pdt_cpu_ew_run(&job, pdt_tensor_numel(out), EW_GRAIN_COSTLY, EW_GRAIN_COSTLY_HOT);
    } else
        pdt_cpu_ew_run(&job, pdt_tensor_numel(out), EW_GRAIN, EW_GRAIN_HOT);
    return PDT_OK;
}
