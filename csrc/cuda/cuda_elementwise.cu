/* cuda_elementwise.cu - the CUDA backend's elementwise binary and unary ops.
 *
 * Build: part of the extension (setup.py runs nvcc -std=c++17 -O3 on every .cu;
 * PYDEVTENSOR_CUDA_ARCH=90 limits it to sm_90 while iterating).
 *
 * The core hands us an output and inputs already broadcast to the output's
 * shape (stride 0 along broadcast dims), in the compute dtype, or scalars; see
 * pdt_backend.h and csrc/core/pdt_elementwise.h.  Each op is one launch on the
 * device's stream, of one of three grid-stride kernels per (op, dtype):
 *   - vec:     every tensor operand contiguous and 16-byte aligned: each step
 *              loads 16 bytes of each input (4 float32, 2 float64, ...) and
 *              stores the results at once; the last n % V elements go one by
 *              one;
 *   - contig:  every tensor operand contiguous, not aligned: one element per
 *              step;
 *   - strided: anything else, through a by-value layout (shape and strides,
 *              innermost first, dims merged where every operand allows) with
 *              32-bit index math when numel < 2^31.
 * Scalars travel by value in the kernel arguments, never through memory.  Add
 * and sub with alpha (a op b * alpha, float32 and float64) have kernels of
 * their own, contig and strided, whose product is __fmul_rn's or __dmul_rn's.
 *
 * The element functions are the CPU backend's (cpu_elementwise.c), written a
 * second time for the device: Python's floor division and remainder, integer
 * // and % by zero giving 0 and MIN // -1 wrapping (Note [integer division by
 * zero]), integer powers by squaring (Note [integer powers]), NaN winning in
 * maximum/minimum and surviving relu/clamp, integer arithmetic wrapping (in
 * unsigned types).  None of them has a multiply feeding an add that nvcc could
 * contract into an FMA, so the arithmetic ops give the CPU's bits; the
 * transcendental ones (exp, log, sin, pow, ...) are CUDA's, within a few ulp.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <limits>
#include <type_traits>

#include "cuda_activation.cuh"
#include "cuda_check.h"
#include "cuda_launch.h"
#include "cuda_layout.cuh"
#include "cuda_ops.h"
#include "pdt_gamma.h"

namespace {

using namespace pdt_cuda; /* kThreads, grid_for, layout, ... (cuda_layout.cuh) */

/* ---------------------------------------------------------------- dtypes */

template <pdt_dtype DT> struct dtype_traits;
template <> struct dtype_traits<PDT_BOOL> {
    typedef uint8_t type;
};
template <> struct dtype_traits<PDT_INT32> {
    typedef int32_t type;
};
template <> struct dtype_traits<PDT_INT64> {
    typedef int64_t type;
};
template <> struct dtype_traits<PDT_FLOAT32> {
    typedef float type;
};
template <> struct dtype_traits<PDT_FLOAT64> {
    typedef double type;
};
/* uint8, int8 and int16 (Note [small integers] in pdt_dtype.h).  uint8_t is bool's element
 * type here (is_bool_v), so a uint8 element is a type of its own; the three compute each op
 * as int32's on the widened values, narrowed (apply_binary, apply_unary): by construction
 * the values the int32 route gave, with no cast kernels and no temporaries. */
struct u8_elem {
    uint8_t v;
};
template <> struct dtype_traits<PDT_UINT8> {
    typedef u8_elem type;
};
template <> struct dtype_traits<PDT_INT8> {
    typedef int8_t type;
};
template <> struct dtype_traits<PDT_INT16> {
    typedef int16_t type;
};
template <pdt_dtype DT> using elem_t = typename dtype_traits<DT>::type;
template <typename T>
constexpr bool is_small_v = std::is_same<T, u8_elem>::value || std::is_same<T, int8_t>::value ||
                            std::is_same<T, int16_t>::value;
template <typename T> __host__ __device__ __forceinline__ int32_t widen(T x)
{
    if constexpr (std::is_same<T, u8_elem>::value)
        return x.v;
    else
        return x;
}
/* the low bits of x (a cast into a small integer keeps them) */
template <typename T> __host__ __device__ __forceinline__ T narrow(int32_t x)
{
    if constexpr (std::is_same<T, u8_elem>::value)
        return u8_elem{(uint8_t)x};
    else
        return (T)x;
}

/* The unsigned type integer arithmetic wraps in (the type itself otherwise). */
template <typename T> struct wrap_type {
    typedef T type;
};
template <> struct wrap_type<int32_t> {
    typedef uint32_t type;
};
template <> struct wrap_type<int64_t> {
    typedef uint64_t type;
};

template <typename T> constexpr bool is_bool_v = std::is_same<T, uint8_t>::value;
template <typename T> constexpr bool is_float_v = std::is_floating_point<T>::value;

__host__ __device__ constexpr bool is_comparison(int op)
{
    return op >= PDT_OP_EQ && op <= PDT_OP_GE;
}

constexpr bool is_small_dtype(pdt_dtype d)
{
    return d == PDT_UINT8 || d == PDT_INT8 || d == PDT_INT16;
}

/* The (op, dtype) pairs the core sends, as in the CPU backend's tables; the small
 * integers take int32's (Note [small integers] in pdt_dtype.h). */
constexpr bool binary_supported(int op, pdt_dtype d)
{
    return is_small_dtype(d) ? binary_supported(op, PDT_INT32)
           : op >= PDT_OP_BITWISE_AND && op <= PDT_OP_SHIFT_RIGHT
               ? (d == PDT_INT32 || d == PDT_INT64)
           : op == PDT_OP_DIV || op == PDT_OP_ATAN2 ||
                   (op >= PDT_OP_HYPOT && op <= PDT_OP_LOGADDEXP2)
               ? (d == PDT_FLOAT32 || d == PDT_FLOAT64)
           : op == PDT_OP_SUB || op == PDT_OP_FLOOR_DIV || op == PDT_OP_TRUNC_DIV ||
                   op == PDT_OP_REMAINDER || op == PDT_OP_POW || op == PDT_OP_FMOD
               ? d != PDT_BOOL
               : true;
}

/* __device__ too: apply_unary asks it (nvcc refuses a host constexpr function there) */
__host__ __device__ constexpr bool is_rounding(int op)
{
    return op == PDT_OP_FLOOR || op == PDT_OP_CEIL || op == PDT_OP_ROUND || op == PDT_OP_TRUNC;
}

constexpr bool unary_supported(int op, pdt_dtype d)
{
    return is_small_dtype(d) ? unary_supported(op, PDT_INT32)
           : op == PDT_OP_ABS || op == PDT_OP_RELU || op == PDT_OP_SIGN ? true
           : op == PDT_OP_NEG || op == PDT_OP_CLAMP || is_rounding(op)
               ? d != PDT_BOOL
               : (d == PDT_FLOAT32 || d == PDT_FLOAT64);
}

/* ------------------------------------------------------ element functions */

#include "cuda_element_ops.cuh"

/* Launch geometry, grid-stride indices and the strided layout: cuda_layout.cuh. */

/* ------------------------------------------------------------- kernels */

/* 16 bytes of T (or the matching V elements of another type), aligned so
 * that one load or store moves them. */
template <typename T, int V> struct alignas(sizeof(T) * V) pack {
    T v[V];
};

/* A binary op's operands, by value: a tensor pointer (first element), or
 * NULL and the scalar. */
template <typename T, typename O> struct bin_args {
    O *out;
    const T *a, *b;
    T as, bs;
    PDT_KERNEL_POINTERS(out, a, b)
};

template <int OP, typename T>
__global__ void binary_vec_kernel(bin_args<T, out_t<OP, T>> p, uint64_t n)
{
    typedef out_t<OP, T> O;
    constexpr int V = 16 / sizeof(T);
    const uint64_t nvec = n / V;
    for (uint64_t j = gs_first<uint64_t>(); j < nvec; j += gs_step<uint64_t>()) {
        pack<T, V> x, y;
        pack<O, V> r;
        if (p.a) {
            x = reinterpret_cast<const pack<T, V> *>(p.a)[j];
        } else {
#pragma unroll
            for (int k = 0; k < V; k++)
                x.v[k] = p.as;
        }
        if (p.b) {
            y = reinterpret_cast<const pack<T, V> *>(p.b)[j];
        } else {
#pragma unroll
            for (int k = 0; k < V; k++)
                y.v[k] = p.bs;
        }
#pragma unroll
        for (int k = 0; k < V; k++)
            r.v[k] = apply_binary<OP, T>(x.v[k], y.v[k]);
        reinterpret_cast<pack<O, V> *>(p.out)[j] = r;
    }
    for (uint64_t i = nvec * V + gs_first<uint64_t>(); i < n; i += gs_step<uint64_t>())
        p.out[i] = apply_binary<OP, T>(p.a ? p.a[i] : p.as, p.b ? p.b[i] : p.bs);
}

template <int OP, typename T>
__global__ void binary_contig_kernel(bin_args<T, out_t<OP, T>> p, uint64_t n)
{
    for (uint64_t i = gs_first<uint64_t>(); i < n; i += gs_step<uint64_t>())
        p.out[i] = apply_binary<OP, T>(p.a ? p.a[i] : p.as, p.b ? p.b[i] : p.bs);
}

/* L.stride[0]: out's strides, [1]: a's, [2]: b's (0 for a scalar). */
template <int OP, typename T, typename I>
__global__ void binary_strided_kernel(bin_args<T, out_t<OP, T>> p, layout<3> L, I n)
{
    for (I i = gs_first<I>(); i < n; i += gs_step<I>()) {
        int64_t off[3];
        offsets_of<3, I>(L, i, off);
        p.out[off[0]] = apply_binary<OP, T>(p.a ? p.a[off[1]] : p.as, p.b ? p.b[off[2]] : p.bs);
    }
}

template <typename T> struct un_args {
    T *out;
    const T *x;
    T lo, hi; /* clamp bounds */
    PDT_KERNEL_POINTERS(out, x)
};

template <int OP, typename T> __global__ void unary_vec_kernel(un_args<T> p, uint64_t n)
{
    constexpr int V = 16 / sizeof(T);
    const uint64_t nvec = n / V;
    for (uint64_t j = gs_first<uint64_t>(); j < nvec; j += gs_step<uint64_t>()) {
        pack<T, V> x = reinterpret_cast<const pack<T, V> *>(p.x)[j], r;
#pragma unroll
        for (int k = 0; k < V; k++)
            r.v[k] = apply_unary<OP, T>(x.v[k], p.lo, p.hi);
        reinterpret_cast<pack<T, V> *>(p.out)[j] = r;
    }
    for (uint64_t i = nvec * V + gs_first<uint64_t>(); i < n; i += gs_step<uint64_t>())
        p.out[i] = apply_unary<OP, T>(p.x[i], p.lo, p.hi);
}

template <int OP, typename T> __global__ void unary_contig_kernel(un_args<T> p, uint64_t n)
{
    for (uint64_t i = gs_first<uint64_t>(); i < n; i += gs_step<uint64_t>())
        p.out[i] = apply_unary<OP, T>(p.x[i], p.lo, p.hi);
}

template <int OP, typename T, typename I>
__global__ void unary_strided_kernel(un_args<T> p, layout<2> L, I n)
{
    for (I i = gs_first<I>(); i < n; i += gs_step<I>()) {
        int64_t off[2];
        offsets_of<2, I>(L, i, off);
        p.out[off[0]] = apply_unary<OP, T>(p.x[off[1]], p.lo, p.hi);
    }
}

/* a op (b * k) for add and sub with alpha (Note [add with alpha] in
 * pdt_elementwise.c): the product rounded first.  __fmul_rn and __dmul_rn are
 * never merged into a multiply-add (CUDA C++ Programming Guide, "Intrinsic
 * Functions"), so these are the CPU's bits whatever nvcc's --fmad. */
template <typename T> struct scaled_args {
    T *out;
    const T *a, *b;
    T k;
    int sub;
    PDT_KERNEL_POINTERS(out, a, b)
};

template <typename T> __device__ __forceinline__ T add_scaled(T x, T y, T k, int sub)
{
    T s;
    if constexpr (sizeof(T) == 4)
        s = __fmul_rn(y, k);
    else
        s = __dmul_rn(y, k);
    return sub ? x - s : x + s;
}

template <typename T> __global__ void scaled_contig_kernel(scaled_args<T> p, uint64_t n)
{
    for (uint64_t i = gs_first<uint64_t>(); i < n; i += gs_step<uint64_t>())
        p.out[i] = add_scaled<T>(p.a[i], p.b[i], p.k, p.sub);
}

template <typename T>
__global__ void scaled_strided_kernel(scaled_args<T> p, layout<3> L, uint64_t n)
{
    for (uint64_t i = gs_first<uint64_t>(); i < n; i += gs_step<uint64_t>()) {
        int64_t off[3];
        offsets_of<3, uint64_t>(L, i, off);
        p.out[off[0]] = add_scaled<T>(p.a[off[1]], p.b[off[2]], p.k, p.sub);
    }
}

/* ------------------------------------------------------------ launches */

template <typename T>
cudaError_t launch_scaled(int sub, const pdt_tensor *out, const pdt_tensor *a, const pdt_tensor *b,
                          pdt_scalar alpha, cudaStream_t stream)
{
    scaled_args<T> p;
    p.out = (T *)pdt_tensor_ptr(out);
    p.a = (const T *)pdt_tensor_ptr(a);
    p.b = (const T *)pdt_tensor_ptr(b);
    p.k = alpha.is_float ? (T)alpha.f : (T)alpha.i;
    p.sub = sub;
    const pdt_tensor *ops[3] = {out, a, b};
    layout<3> L;
    const bool contiguous = make_layout<3>(out, ops, &L) != 0;
    const uint64_t n = (uint64_t)pdt_tensor_numel(out);
    if (contiguous)
        PDT_LAUNCH((scaled_contig_kernel<T>), (grid_for<scaled_contig_kernel<T>>(n)), kThreads, 0,
                   stream, p, n);
    else
        PDT_LAUNCH((scaled_strided_kernel<T>), (grid_for<scaled_strided_kernel<T>>(n)), kThreads, 0,
                   stream, p, L, n);
    return cudaGetLastError();
}

bool aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }

template <typename T> T scalar_as(pdt_scalar s)
{
    if constexpr (is_bool_v<T>)
        return (uint8_t)(s.is_float ? s.f != 0 : s.i != 0);
    else if constexpr (is_small_v<T>) /* the core has wrapped it into the dtype */
        return narrow<T>((int32_t)s.i);
    else
        return s.is_float ? (T)s.f : (T)s.i;
}

template <int OP, pdt_dtype D>
cudaError_t launch_binary(const pdt_tensor *out, pdt_operand a, pdt_operand b, cudaStream_t stream)
{
    if constexpr (!binary_supported(OP, D)) {
        return cudaErrorNotSupported;
    } else {
        typedef elem_t<D> T;
        typedef out_t<OP, T> O;
        bin_args<T, O> p;
        p.out = (O *)pdt_tensor_ptr(out);
        p.a = a.t ? (const T *)pdt_tensor_ptr(a.t) : nullptr;
        p.b = b.t ? (const T *)pdt_tensor_ptr(b.t) : nullptr;
        p.as = a.t ? T() : scalar_as<T>(a.s);
        p.bs = b.t ? T() : scalar_as<T>(b.s);
        const pdt_tensor *ops[3] = {out, a.t, b.t};
        layout<3> L;
        const bool contiguous = make_layout<3>(out, ops, &L) != 0;
        const uint64_t n = (uint64_t)pdt_tensor_numel(out);
        const bool aligned = aligned16(p.out) && (!p.a || aligned16(p.a)) &&
                             (!p.b || aligned16(p.b));
        if (contiguous && aligned)
            PDT_LAUNCH((binary_vec_kernel<OP, T>),
                       (grid_for<binary_vec_kernel<OP, T>>(n / (16 / sizeof(T)) + 1)), kThreads, 0,
                       stream, p, n);
        else if (contiguous)
            PDT_LAUNCH((binary_contig_kernel<OP, T>), (grid_for<binary_contig_kernel<OP, T>>(n)),
                       kThreads, 0, stream, p, n);
        else if (n <= (uint64_t)INT32_MAX)
            PDT_LAUNCH((binary_strided_kernel<OP, T, uint32_t>),
                       (grid_for<binary_strided_kernel<OP, T, uint32_t>>(n)), kThreads, 0, stream,
                       p, L, (uint32_t)n);
        else
            PDT_LAUNCH((binary_strided_kernel<OP, T, uint64_t>),
                       (grid_for<binary_strided_kernel<OP, T, uint64_t>>(n)), kThreads, 0, stream,
                       p, L, n);
        return cudaGetLastError();
    }
}

/* The clamp bounds in T (the core has resolved missing bounds and saturated
 * integer ones). */
template <typename T> void clamp_bounds(pdt_scalar lo, pdt_scalar hi, T *tlo, T *thi)
{
    if constexpr (is_float_v<T>) {
        *tlo = (T)lo.f;
        *thi = (T)hi.f;
    } else if constexpr (is_bool_v<T>) {
        *tlo = 0;
        *thi = 1;
    } else if constexpr (is_small_v<T>) { /* saturated to the dtype by the core */
        *tlo = narrow<T>((int32_t)lo.i);
        *thi = narrow<T>((int32_t)hi.i);
    } else {
        *tlo = (T)lo.i;
        *thi = (T)hi.i;
    }
}

template <int OP, pdt_dtype D>
cudaError_t launch_unary(const pdt_tensor *out, const pdt_tensor *x, pdt_scalar lo, pdt_scalar hi,
                         cudaStream_t stream)
{
    if constexpr (!unary_supported(OP, D)) {
        return cudaErrorNotSupported;
    } else {
        typedef elem_t<D> T;
        un_args<T> p;
        p.out = (T *)pdt_tensor_ptr(out);
        p.x = (const T *)pdt_tensor_ptr(x);
        clamp_bounds<T>(lo, hi, &p.lo, &p.hi);
        const pdt_tensor *ops[2] = {out, x};
        layout<2> L;
        const bool contiguous = make_layout<2>(out, ops, &L) != 0;
        const uint64_t n = (uint64_t)pdt_tensor_numel(out);
        if (contiguous && aligned16(p.out) && aligned16(p.x))
            PDT_LAUNCH((unary_vec_kernel<OP, T>),
                       (grid_for<unary_vec_kernel<OP, T>>(n / (16 / sizeof(T)) + 1)), kThreads, 0,
                       stream, p, n);
        else if (contiguous)
            PDT_LAUNCH((unary_contig_kernel<OP, T>), (grid_for<unary_contig_kernel<OP, T>>(n)),
                       kThreads, 0, stream, p, n);
        else if (n <= (uint64_t)INT32_MAX)
            PDT_LAUNCH((unary_strided_kernel<OP, T, uint32_t>),
                       (grid_for<unary_strided_kernel<OP, T, uint32_t>>(n)), kThreads, 0, stream, p,
                       L, (uint32_t)n);
        else
            PDT_LAUNCH((unary_strided_kernel<OP, T, uint64_t>),
                       (grid_for<unary_strided_kernel<OP, T, uint64_t>>(n)), kThreads, 0, stream, p,
                       L, n);
        return cudaGetLastError();
    }
}

/* ----------------------------------------------------------- dispatch */

template <pdt_dtype D>
cudaError_t binary_by_op(int op, const pdt_tensor *out, pdt_operand a, pdt_operand b,
                         cudaStream_t s)
{
    switch (op) {
#define BINARY_CASE(OP)                                                                            \
    case OP: return launch_binary<OP, D>(out, a, b, s);
        BINARY_CASE(PDT_OP_ADD)
        BINARY_CASE(PDT_OP_SUB)
        BINARY_CASE(PDT_OP_MUL)
        BINARY_CASE(PDT_OP_DIV)
        BINARY_CASE(PDT_OP_FLOOR_DIV)
        BINARY_CASE(PDT_OP_TRUNC_DIV)
        BINARY_CASE(PDT_OP_ATAN2)
        BINARY_CASE(PDT_OP_HYPOT)
        BINARY_CASE(PDT_OP_COPYSIGN)
        BINARY_CASE(PDT_OP_LOGADDEXP)
        BINARY_CASE(PDT_OP_LOGADDEXP2)
        BINARY_CASE(PDT_OP_FMOD)
        BINARY_CASE(PDT_OP_REMAINDER)
        BINARY_CASE(PDT_OP_POW)
        BINARY_CASE(PDT_OP_MAXIMUM)
        BINARY_CASE(PDT_OP_MINIMUM)
        BINARY_CASE(PDT_OP_EQ)
        BINARY_CASE(PDT_OP_NE)
        BINARY_CASE(PDT_OP_LT)
        BINARY_CASE(PDT_OP_LE)
        BINARY_CASE(PDT_OP_GT)
        BINARY_CASE(PDT_OP_GE)
        BINARY_CASE(PDT_OP_BITWISE_AND)
        BINARY_CASE(PDT_OP_BITWISE_OR)
        BINARY_CASE(PDT_OP_BITWISE_XOR)
        BINARY_CASE(PDT_OP_SHIFT_LEFT)
        BINARY_CASE(PDT_OP_SHIFT_RIGHT)
#undef BINARY_CASE
    }
    return cudaErrorNotSupported;
}

template <pdt_dtype D>
cudaError_t unary_by_op(int op, const pdt_tensor *out, const pdt_tensor *x, pdt_scalar lo,
                        pdt_scalar hi, cudaStream_t s)
{
    switch (op) {
#define UNARY_CASE(OP)                                                                             \
    case OP: return launch_unary<OP, D>(out, x, lo, hi, s);
        UNARY_CASE(PDT_OP_NEG)
        UNARY_CASE(PDT_OP_ABS)
        UNARY_CASE(PDT_OP_EXP)
        UNARY_CASE(PDT_OP_LOG)
        UNARY_CASE(PDT_OP_SQRT)
        UNARY_CASE(PDT_OP_SIN)
        UNARY_CASE(PDT_OP_COS)
        UNARY_CASE(PDT_OP_TANH)
        UNARY_CASE(PDT_OP_SIGMOID)
        UNARY_CASE(PDT_OP_RELU)
        UNARY_CASE(PDT_OP_CLAMP)
        UNARY_CASE(PDT_OP_FLOOR)
        UNARY_CASE(PDT_OP_CEIL)
        UNARY_CASE(PDT_OP_ROUND)
        UNARY_CASE(PDT_OP_TRUNC)
        UNARY_CASE(PDT_OP_SIGN)
        UNARY_CASE(PDT_OP_LOG1P)
        UNARY_CASE(PDT_OP_EXPM1)
        UNARY_CASE(PDT_OP_ERF)
        UNARY_CASE(PDT_OP_ERFC)
        UNARY_CASE(PDT_OP_LGAMMA)
        UNARY_CASE(PDT_OP_DIGAMMA)
        UNARY_CASE(PDT_OP_TAN)
        UNARY_CASE(PDT_OP_ASIN)
        UNARY_CASE(PDT_OP_ACOS)
        UNARY_CASE(PDT_OP_ATAN)
        UNARY_CASE(PDT_OP_ASINH)
        UNARY_CASE(PDT_OP_ACOSH)
        UNARY_CASE(PDT_OP_ATANH)
        UNARY_CASE(PDT_OP_SINH)
        UNARY_CASE(PDT_OP_COSH)
        UNARY_CASE(PDT_OP_LOG2)
        UNARY_CASE(PDT_OP_LOG10)
        UNARY_CASE(PDT_OP_EXP2)
        UNARY_CASE(PDT_OP_RSQRT)
        UNARY_CASE(PDT_OP_ERFINV)
        UNARY_CASE(PDT_OP_GELU)
        UNARY_CASE(PDT_OP_GELU_GRAD)
#undef UNARY_CASE
    }
    return cudaErrorNotSupported;
}

bool binary_pair_supported(int op, pdt_dtype d)
{
    return op >= 0 && op < PDT_NUM_BINARY_OPS && d >= 0 && d < PDT_NUM_DTYPES &&
           binary_supported(op, d);
}

bool unary_pair_supported(int op, pdt_dtype d)
{
    return op >= 0 && op < PDT_NUM_UNARY_OPS && d >= 0 && d < PDT_NUM_DTYPES &&
           unary_supported(op, d);
}

/* Runs launch(stream) on the device's stream, under the device guard (Note
 * [device guard] in cuda_ops.h).  Note [stale CUDA errors] (cuda_kernels.cu):
 * the last error is cleared before the launch, so that an error left by other
 * code is not reported as ours.  what: the launch's name in an error message. */
template <typename F> pdt_status on_stream(int index, const char *what, F launch)
{
    cudaStream_t stream;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    pdt_status st = pdt_cuda_stream(&g, index, &stream);
    if (st == PDT_OK) {
        (void)cudaGetLastError();
        const cudaError_t err = launch(stream);
        if (err != cudaSuccess)
            st = pdt_cuda_fail(err, what, __FILE__, __LINE__);
    }
    pdt_cuda_guard_exit(&g);
    return st;
}

} // namespace

extern "C" pdt_status pdt_cuda_binary(pdt_binary_op op, const pdt_tensor *out, pdt_operand a,
                                      pdt_operand b)
{
    const pdt_dtype d = a.t ? a.t->dtype : b.t ? b.t->dtype : out->dtype;
    if (!binary_pair_supported(op, d))
        return pdt_fail(PDT_ERR_UNSUPPORTED, "binary op %d is not implemented for %s on CUDA",
                        (int)op, pdt_dtype_name(d));
    return on_stream(out->device.index, "the binary op's kernel", [&](cudaStream_t s) {
        switch (d) {
        case PDT_BOOL: return binary_by_op<PDT_BOOL>(op, out, a, b, s);
        case PDT_INT32: return binary_by_op<PDT_INT32>(op, out, a, b, s);
        case PDT_INT64: return binary_by_op<PDT_INT64>(op, out, a, b, s);
        case PDT_FLOAT32: return binary_by_op<PDT_FLOAT32>(op, out, a, b, s);
        case PDT_FLOAT64: return binary_by_op<PDT_FLOAT64>(op, out, a, b, s);
        case PDT_UINT8: return binary_by_op<PDT_UINT8>(op, out, a, b, s);
        case PDT_INT8: return binary_by_op<PDT_INT8>(op, out, a, b, s);
        case PDT_INT16: return binary_by_op<PDT_INT16>(op, out, a, b, s);
        default: return cudaSuccess; /* float16, bfloat16: computed in float32 (pdt_half.h) */
        }
    });
}

extern "C" pdt_status pdt_cuda_binary_scaled(pdt_binary_op op, const pdt_tensor *out,
                                             const pdt_tensor *a, const pdt_tensor *b,
                                             pdt_scalar alpha)
{
    const pdt_dtype d = out->dtype;
    if ((op != PDT_OP_ADD && op != PDT_OP_SUB) || (d != PDT_FLOAT32 && d != PDT_FLOAT64))
        return pdt_fail(PDT_ERR_UNSUPPORTED, "add or sub with alpha: op %d on %s on CUDA", (int)op,
                        pdt_dtype_name(d));
    const int sub = op == PDT_OP_SUB;
    return on_stream(out->device.index, "the scaled add's kernel", [&](cudaStream_t s) {
        return d == PDT_FLOAT32 ? launch_scaled<float>(sub, out, a, b, alpha, s)
                                : launch_scaled<double>(sub, out, a, b, alpha, s);
    });
}

extern "C" pdt_status pdt_cuda_unary(pdt_unary_op op, const pdt_tensor *out, const pdt_tensor *x,
                                     pdt_scalar lo, pdt_scalar hi)
{
    if (!unary_pair_supported(op, x->dtype))
        return pdt_fail(PDT_ERR_UNSUPPORTED, "unary op %d is not implemented for %s on CUDA",
                        (int)op, pdt_dtype_name(x->dtype));
    return on_stream(out->device.index, "the unary op's kernel", [&](cudaStream_t s) {
        switch (x->dtype) {
        case PDT_BOOL: return unary_by_op<PDT_BOOL>(op, out, x, lo, hi, s);
        case PDT_INT32: return unary_by_op<PDT_INT32>(op, out, x, lo, hi, s);
        case PDT_INT64: return unary_by_op<PDT_INT64>(op, out, x, lo, hi, s);
        case PDT_FLOAT32: return unary_by_op<PDT_FLOAT32>(op, out, x, lo, hi, s);
        case PDT_FLOAT64: return unary_by_op<PDT_FLOAT64>(op, out, x, lo, hi, s);
        case PDT_UINT8: return unary_by_op<PDT_UINT8>(op, out, x, lo, hi, s);
        case PDT_INT8: return unary_by_op<PDT_INT8>(op, out, x, lo, hi, s);
        case PDT_INT16: return unary_by_op<PDT_INT16>(op, out, x, lo, hi, s);
        default: return cudaSuccess; /* float16, bfloat16: computed in float32 (pdt_half.h) */
        }
    });
}
