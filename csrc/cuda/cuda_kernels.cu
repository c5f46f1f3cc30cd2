/* cuda_kernels.cu - the elementwise CUDA kernels behind the cuda backend:
 * fill, copy_cast, arange and random, with their C-linkage launchers
 * (declared in cuda_kernels.h).
 *
 * Every kernel is a grid-stride loop.  Contiguous tensors take a linear fast
 * path; the rest go through a small by-value layout (ndim, shape, strides),
 * after merging dims that are contiguous in every operand.  Element addresses
 * follow pdt_tensor_ptr(): data + (offset + sum(idx * stride)) * elsize.
 */
#include <type_traits>

#include "cuda_half.cuh"
#include "cuda_kernels.h"
#include "cuda_launch.h"
#include "cuda_layout.cuh"
#include "pdt_convert.h"

#include <stdint.h>
#include <string.h>

#include "pdt_philox.h"

namespace {

/* kThreads, grid_for, gs_first/gs_step, layout, make_layout, offsets_of and
 * CUDA_UNROLL (cuda_layout.cuh). */
using namespace pdt_cuda;

/* ---------------------------------------------------------------- dtypes */

template <pdt_dtype DT> struct dtype_traits;
template <> struct dtype_traits<PDT_BOOL> {
    typedef uint8_t type;
}; /* 0 or 1 */
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
template <> struct dtype_traits<PDT_FLOAT16> { /* cuda_half.cuh */
    typedef f16 type;
};
template <> struct dtype_traits<PDT_BFLOAT16> {
    typedef bf16 type;
};
template <> struct dtype_traits<PDT_UINT8> { /* Note [small integers] in pdt_dtype.h */
    typedef uint8_t type;
};
template <> struct dtype_traits<PDT_INT8> {
    typedef int8_t type;
};
template <> struct dtype_traits<PDT_INT16> {
    typedef int16_t type;
};
template <pdt_dtype DT> using elem_t = typename dtype_traits<DT>::type;

/* (T)v as in C, except that bool stores v != 0 (NaN -> 1, as C's _Bool),
 * floats go to integers by Note [float to int] (pdt_convert.h), as on the CPU,
 * into the small integers by Note [float to small int], integers wrap into
 * them (Note [small integers] in pdt_dtype.h), and the half types round once
 * (Note [half precision] in pdt_half.h). */
template <pdt_dtype D, typename V> __host__ __device__ __forceinline__ elem_t<D> convert(V v)
{
    if constexpr (D == PDT_BOOL)
        return (uint8_t)(v != 0);
    else if constexpr (D == PDT_INT32 && std::is_floating_point<V>::value)
        return pdt_f64_to_i32((double)v);
    else if constexpr (D == PDT_INT64 && std::is_floating_point<V>::value)
        return pdt_f64_to_i64((double)v);
    else if constexpr (D == PDT_UINT8 && std::is_floating_point<V>::value)
        return pdt_f64_to_u8((double)v);
    else if constexpr (D == PDT_INT8 && std::is_floating_point<V>::value)
        return pdt_f64_to_i8((double)v);
    else if constexpr (D == PDT_INT16 && std::is_floating_point<V>::value)
        return pdt_f64_to_i16((double)v);
    else if constexpr (D == PDT_UINT8)
        return (uint8_t)v;
    else if constexpr (D == PDT_INT8)
        return (int8_t)(uint8_t)v;
    else if constexpr (D == PDT_INT16)
        return (int16_t)(uint16_t)v;
    else if constexpr (D == PDT_FLOAT16 || D == PDT_BFLOAT16)
        return half_from<elem_t<D>>(v);
    else
        return (elem_t<D>)v;
}

/* Converts an element of dtype S to dtype D.  A bool byte is read as != 0,
 * so a stray non-0/1 byte still converts to 1. */
template <pdt_dtype D, pdt_dtype S> __host__ __device__ __forceinline__ elem_t<D> cast(elem_t<S> v)
{
    if constexpr (S == PDT_BOOL)
        return convert<D>((int)(v != 0));
    else if constexpr (S == PDT_FLOAT16 || S == PDT_BFLOAT16)
        return convert<D>(to_float(v)); /* exact */
    else
        return convert<D>(v);
}

size_t elsize(pdt_dtype dt)
{
    switch (dt) {
    case PDT_BOOL:
    case PDT_UINT8:
    case PDT_INT8: return 1;
    case PDT_INT16: return 2;
    case PDT_INT32: return 4;
    case PDT_INT64: return 8;
    case PDT_FLOAT32: return 4;
    case PDT_FLOAT64: return 8;
    case PDT_FLOAT16:
    case PDT_BFLOAT16: return 2;
    }
    return 0;
}

int64_t numel_of(const pdt_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

/* Address of t's first element (pdt_tensor_ptr without the core's symbol). */
char *first_elem(const pdt_tensor *t) { return t->data + t->offset * (int64_t)elsize(t->dtype); }

/* Launch geometry, grid-stride indices and the strided layout: cuda_layout.cuh. */

/* ----------------------------------------------------------------- fill */

/* T: an unsigned type of the element's size; v: the element's bits. */
template <typename T> __global__ void fill_contig_kernel(T *dst /* [n] */, T v, uint64_t n)
{
    for (uint64_t i = gs_first<uint64_t>(); i < n; i += gs_step<uint64_t>())
        dst[i] = v;
}

template <typename T, typename I>
__global__ void fill_strided_kernel(T *dst /* first element, shape L.shape [n] */, T v, layout<1> L,
                                    I n)
{
    for (I i = gs_first<I>(); i < n; i += gs_step<I>()) {
        int64_t off[1];
        offsets_of<1, I>(L, i, off);
        dst[off[0]] = v;
    }
}

/* Writes (dtype D)value's bytes into out. */
template <pdt_dtype D> void scalar_bytes(pdt_scalar value, unsigned char *out)
{
    elem_t<D> v = value.is_float ? convert<D>(value.f) : convert<D>(value.i);
    memcpy(out, &v, sizeof v);
}

template <typename T>
cudaError_t fill_launch(char *dst, const layout<1> &L, bool contiguous, uint64_t n,
                        const unsigned char *bytes, cudaStream_t stream)
{
    T v;
    memcpy(&v, bytes, sizeof v);
    if (contiguous)
        PDT_LAUNCH((fill_contig_kernel<T>), grid_for<fill_contig_kernel<T>>(n), kThreads, 0, stream,
                   (T *)dst, v, n);
    else if (n <= (uint64_t)INT32_MAX)
        PDT_LAUNCH((fill_strided_kernel<T, uint32_t>),
                   (grid_for<fill_strided_kernel<T, uint32_t>>(n)), kThreads, 0, stream, (T *)dst,
                   v, L, (uint32_t)n);
    else
        PDT_LAUNCH((fill_strided_kernel<T, uint64_t>),
                   (grid_for<fill_strided_kernel<T, uint64_t>>(n)), kThreads, 0, stream, (T *)dst,
                   v, L, n);
    return cudaGetLastError();
}

/* ------------------------------------------------------------ copy_cast */

template <pdt_dtype D, pdt_dtype S>
__global__ void cast_contig_kernel(elem_t<D> *dst /* [n] */, const elem_t<S> *src /* [n] */,
                                   uint64_t n)
{
    for (uint64_t i = gs_first<uint64_t>(); i < n; i += gs_step<uint64_t>())
        dst[i] = cast<D, S>(src[i]);
}

/* dst, src: first elements of two views of shape L.shape [n elements];
 * L.stride[0]: dst strides, L.stride[1]: src strides. */
template <pdt_dtype D, pdt_dtype S, typename I>
__global__ void cast_strided_kernel(elem_t<D> *dst, const elem_t<S> *src, layout<2> L, I n)
{
    for (I i = gs_first<I>(); i < n; i += gs_step<I>()) {
        int64_t off[2];
        offsets_of<2, I>(L, i, off);
        dst[off[0]] = cast<D, S>(src[off[1]]);
    }
}

template <pdt_dtype D, pdt_dtype S>
cudaError_t cast_launch(char *dst, const char *src, const layout<2> &L, bool contiguous, uint64_t n,
                        cudaStream_t stream)
{
    if (D == S && contiguous)
        return cudaMemcpyAsync(dst, src, n * sizeof(elem_t<D>), cudaMemcpyDeviceToDevice, stream);
    elem_t<D> *d = (elem_t<D> *)dst;
    const elem_t<S> *s = (const elem_t<S> *)src;
    if (contiguous)
        PDT_LAUNCH((cast_contig_kernel<D, S>), (grid_for<cast_contig_kernel<D, S>>(n)), kThreads, 0,
                   stream, d, s, n);
    else if (n <= (uint64_t)INT32_MAX)
        PDT_LAUNCH((cast_strided_kernel<D, S, uint32_t>),
                   (grid_for<cast_strided_kernel<D, S, uint32_t>>(n)), kThreads, 0, stream, d, s, L,
                   (uint32_t)n);
    else
        PDT_LAUNCH((cast_strided_kernel<D, S, uint64_t>),
                   (grid_for<cast_strided_kernel<D, S, uint64_t>>(n)), kThreads, 0, stream, d, s, L,
                   n);
    return cudaGetLastError();
}

template <pdt_dtype D>
cudaError_t cast_launch_src(pdt_dtype s, char *dst, const char *src, const layout<2> &L,
                            bool contiguous, uint64_t n, cudaStream_t stream)
{
    switch (s) {
    case PDT_BOOL: return cast_launch<D, PDT_BOOL>(dst, src, L, contiguous, n, stream);
    case PDT_INT32: return cast_launch<D, PDT_INT32>(dst, src, L, contiguous, n, stream);
    case PDT_INT64: return cast_launch<D, PDT_INT64>(dst, src, L, contiguous, n, stream);
    case PDT_FLOAT32: return cast_launch<D, PDT_FLOAT32>(dst, src, L, contiguous, n, stream);
    case PDT_FLOAT64: return cast_launch<D, PDT_FLOAT64>(dst, src, L, contiguous, n, stream);
    case PDT_FLOAT16: return cast_launch<D, PDT_FLOAT16>(dst, src, L, contiguous, n, stream);
    case PDT_BFLOAT16: return cast_launch<D, PDT_BFLOAT16>(dst, src, L, contiguous, n, stream);
    case PDT_UINT8: return cast_launch<D, PDT_UINT8>(dst, src, L, contiguous, n, stream);
    case PDT_INT8: return cast_launch<D, PDT_INT8>(dst, src, L, contiguous, n, stream);
    case PDT_INT16: return cast_launch<D, PDT_INT16>(dst, src, L, contiguous, n, stream);
    }
    return cudaErrorInvalidValue;
}

/* --------------------------------------------------------------- arange */

/* dst[i * stride] = (T)(start + (double)i * step); explicit round-to-nearest
 * intrinsics keep nvcc from contracting into an FMA, so the values match the
 * CPU backend's bit for bit. */
template <pdt_dtype D>
__global__ void arange_kernel(elem_t<D> *dst /* [n], stride */, int64_t stride, double start,
                              double step, uint64_t n)
{
    for (uint64_t i = gs_first<uint64_t>(); i < n; i += gs_step<uint64_t>()) {
        double v = __dadd_rn(start, __dmul_rn((double)(int64_t)i, step));
        dst[(int64_t)i * stride] = convert<D>(v);
    }
}

template <pdt_dtype D>
cudaError_t arange_launch(char *dst, int64_t stride, double start, double step, uint64_t n,
                          cudaStream_t stream)
{
    PDT_LAUNCH((arange_kernel<D>), grid_for<arange_kernel<D>>(n), kThreads, 0, stream,
               (elem_t<D> *)dst, stride, start, step, n);
    return cudaGetLastError();
}

/* --------------------------------------------------------------- random */

/* Note [Philox on the GPU]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * One thread per counter block: it runs Philox once and writes the 4 (float32
 * uniform) or 2 (everything else) elements that block feeds, as laid out in
 * Note [Philox layout] (pdt_philox.h).  In the two-lane layout element i reads
 * lo = lane 2*(i%2) and hi = lane 2*(i%2)+1.  The value functions are the
 * shared ones of pdt_philox.h, so the CPU and the GPU compute the same thing. */

/* Everything a random kernel needs, by value. */
struct rand_params {
    uint64_t seed, offset; /* key, first counter block */
    double a, b;           /* uniform [a, b) or normal (mean a, std b) */
    float af, bf;          /* (float)a, (float)b for float32 uniform */
    int64_t low, high;     /* integers in [low, high) */
};

/* float32 uniform, counter block j: elements 4j .. 4j+3 of dst [n]. */
__host__ __device__ __forceinline__ void rand_f32_block(float *dst, const rand_params &p,
                                                        uint64_t j, uint64_t n)
{
    pdt_u32x4 r = pdt_philox_block(p.seed, p.offset + j);
    CUDA_UNROLL
    for (int lane = 0; lane < 4; lane++)
        if (j * 4 + lane < n)
            dst[j * 4 + lane] = pdt_uniform_f32(r.v[lane], p.af, p.bf);
}

/* Two-lane layout, counter block j: elements 2j and 2j+1 of dst [n]. */
template <pdt_dtype D, int KIND>
__host__ __device__ __forceinline__ void rand_pair_block(elem_t<D> *dst, const rand_params &p,
                                                         uint64_t j, uint64_t n)
{
    pdt_u32x4 r = pdt_philox_block(p.seed, p.offset + j);
    CUDA_UNROLL
    for (int h = 0; h < 2; h++) {
        const uint64_t i = j * 2 + h;
        if (i >= n)
            break;
        const uint32_t lo = r.v[2 * h], hi = r.v[2 * h + 1];
        if constexpr (KIND == PDT_RANDOM_UNIFORM)
            dst[i] = convert<D>(pdt_uniform_f64(lo, hi, p.a, p.b));
        else if constexpr (KIND == PDT_RANDOM_NORMAL)
            dst[i] = convert<D>(pdt_normal_f64(lo, hi, p.a, p.b));
        else
            dst[i] = convert<D>(pdt_randint(lo, hi, p.low, p.high));
    }
}

__global__ void rand_uniform_f32_kernel(float *dst /* [n] */, rand_params p, uint64_t n)
{
    const uint64_t nblocks = (n + 3) / 4;
    const bool aligned = ((uintptr_t)dst & 15) == 0;
    for (uint64_t j = gs_first<uint64_t>(); j < nblocks; j += gs_step<uint64_t>()) {
        if (aligned && j * 4 + 4 <= n) { /* one 16-byte store */
            pdt_u32x4 r = pdt_philox_block(p.seed, p.offset + j);
            float4 v;
            v.x = pdt_uniform_f32(r.v[0], p.af, p.bf);
            v.y = pdt_uniform_f32(r.v[1], p.af, p.bf);
            v.z = pdt_uniform_f32(r.v[2], p.af, p.bf);
            v.w = pdt_uniform_f32(r.v[3], p.af, p.bf);
            *(float4 *)(dst + j * 4) = v;
        } else {
            rand_f32_block(dst, p, j, n);
        }
    }
}

template <pdt_dtype D, int KIND>
__global__ void rand_pair_kernel(elem_t<D> *dst /* [n] */, rand_params p, uint64_t n)
{
    const uint64_t nblocks = (n + 1) / 2;
    for (uint64_t j = gs_first<uint64_t>(); j < nblocks; j += gs_step<uint64_t>())
        rand_pair_block<D, KIND>(dst, p, j, n);
}

/* spec->kind picks the value function for every dtype, as in the CPU backend
 * (a bool randint is randint(low, high) != 0).  The float32 uniform layout is
 * the only four-lane one, matching the blocks pdt_random() claimed. */
template <pdt_dtype D>
cudaError_t random_launch(char *dst, const pdt_random_spec *spec, uint64_t n, cudaStream_t stream)
{
    const pdt_random_kind kind = spec->kind;
    rand_params p;
    p.seed = spec->seed;
    p.offset = spec->offset;
    p.a = spec->a;
    p.b = spec->b;
    p.af = (float)spec->a;
    p.bf = (float)spec->b;
    p.low = spec->low;
    p.high = spec->high;
    if (D == PDT_FLOAT32 && kind == PDT_RANDOM_UNIFORM) {
        PDT_LAUNCH((rand_uniform_f32_kernel), grid_for<rand_uniform_f32_kernel>((n + 3) / 4),
                   kThreads, 0, stream, (float *)dst, p, n);
        return cudaGetLastError();
    }
    const uint64_t pairs = (n + 1) / 2;
    elem_t<D> *d = (elem_t<D> *)dst;
    switch (kind) {
    case PDT_RANDOM_UNIFORM:
        PDT_LAUNCH((rand_pair_kernel<D, PDT_RANDOM_UNIFORM>),
                   (grid_for<rand_pair_kernel<D, PDT_RANDOM_UNIFORM>>(pairs)), kThreads, 0, stream,
                   d, p, n);
        break;
    case PDT_RANDOM_NORMAL:
        PDT_LAUNCH((rand_pair_kernel<D, PDT_RANDOM_NORMAL>),
                   (grid_for<rand_pair_kernel<D, PDT_RANDOM_NORMAL>>(pairs)), kThreads, 0, stream,
                   d, p, n);
        break;
    case PDT_RANDOM_INT:
        PDT_LAUNCH((rand_pair_kernel<D, PDT_RANDOM_INT>),
                   (grid_for<rand_pair_kernel<D, PDT_RANDOM_INT>>(pairs)), kThreads, 0, stream, d,
                   p, n);
        break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

} // namespace

/* ------------------------------------------------------------ launchers */

/* Note [stale CUDA errors]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * Each launcher starts by clearing the thread's last CUDA error, so that an
 * error left behind by some other code is not reported as this launch's; an
 * error that poisons the context is not cleared and fails the launch itself. */

extern "C" cudaError_t pdt_cuda_launch_fill(const pdt_tensor *dst, pdt_scalar value,
                                            cudaStream_t stream)
{
    (void)cudaGetLastError();
    const int64_t n = numel_of(dst);
    if (n <= 0)
        return cudaSuccess;
    unsigned char bytes[8] = {0};
    switch (dst->dtype) {
    case PDT_BOOL: scalar_bytes<PDT_BOOL>(value, bytes); break;
    case PDT_INT32: scalar_bytes<PDT_INT32>(value, bytes); break;
    case PDT_INT64: scalar_bytes<PDT_INT64>(value, bytes); break;
    case PDT_FLOAT32: scalar_bytes<PDT_FLOAT32>(value, bytes); break;
    case PDT_FLOAT64: scalar_bytes<PDT_FLOAT64>(value, bytes); break;
    case PDT_FLOAT16: scalar_bytes<PDT_FLOAT16>(value, bytes); break;
    case PDT_BFLOAT16: scalar_bytes<PDT_BFLOAT16>(value, bytes); break;
    case PDT_UINT8: scalar_bytes<PDT_UINT8>(value, bytes); break;
    case PDT_INT8: scalar_bytes<PDT_INT8>(value, bytes); break;
    case PDT_INT16: scalar_bytes<PDT_INT16>(value, bytes); break;
    default: return cudaErrorInvalidValue;
    }
    const size_t size = elsize(dst->dtype);
    const pdt_tensor *t[1] = {dst};
    layout<1> L;
    const bool contiguous = make_layout<1>(dst, t, &L) != 0;
    char *p = first_elem(dst);

    /* A contiguous fill whose bytes are all equal (zeros, bools) is a memset. */
    bool same_bytes = true;
    for (size_t k = 1; k < size; k++)
        same_bytes = same_bytes && bytes[k] == bytes[0];
    if (contiguous && same_bytes) {
        cudaError_t err = cudaMemsetAsync(p, bytes[0], (size_t)n * size, stream);
        return err != cudaSuccess ? err : cudaGetLastError();
    }
    switch (size) {
    case 1: return fill_launch<uint8_t>(p, L, contiguous, (uint64_t)n, bytes, stream);
    case 2: return fill_launch<uint16_t>(p, L, contiguous, (uint64_t)n, bytes, stream);
    case 4: return fill_launch<uint32_t>(p, L, contiguous, (uint64_t)n, bytes, stream);
    case 8: return fill_launch<uint64_t>(p, L, contiguous, (uint64_t)n, bytes, stream);
    }
    return cudaErrorInvalidValue;
}

extern "C" cudaError_t pdt_cuda_launch_copy_cast(const pdt_tensor *dst, const pdt_tensor *src,
                                                 cudaStream_t stream)
{
    (void)cudaGetLastError();
    const int64_t n = numel_of(dst);
    if (n <= 0)
        return cudaSuccess;
    const pdt_tensor *t[2] = {dst, src};
    layout<2> L;
    const bool contiguous = make_layout<2>(dst, t, &L) != 0;
    char *d = first_elem(dst);
    const char *s = first_elem(src);
    cudaError_t err = cudaErrorInvalidValue;
    switch (dst->dtype) {
#define CAST_TO(D)                                                                                 \
    case D: err = cast_launch_src<D>(src->dtype, d, s, L, contiguous, (uint64_t)n, stream); break;
        CAST_TO(PDT_BOOL)
        CAST_TO(PDT_INT32)
        CAST_TO(PDT_INT64)
        CAST_TO(PDT_FLOAT32)
        CAST_TO(PDT_FLOAT64)
        CAST_TO(PDT_FLOAT16)
        CAST_TO(PDT_BFLOAT16)
        CAST_TO(PDT_UINT8)
        CAST_TO(PDT_INT8)
        CAST_TO(PDT_INT16)
#undef CAST_TO
    }
    return err != cudaSuccess ? err : cudaGetLastError();
}

extern "C" cudaError_t pdt_cuda_launch_arange(const pdt_tensor *dst, double start, double step,
                                              cudaStream_t stream)
{
    (void)cudaGetLastError();
    const int64_t n = numel_of(dst);
    if (n <= 0)
        return cudaSuccess;
    /* Contiguous 1-D by contract; the stride is honoured anyway. */
    const int64_t stride = dst->ndim == 1 ? dst->strides[0] : 1;
    char *p = first_elem(dst);
    switch (dst->dtype) {
    case PDT_BOOL: return arange_launch<PDT_BOOL>(p, stride, start, step, (uint64_t)n, stream);
    case PDT_INT32: return arange_launch<PDT_INT32>(p, stride, start, step, (uint64_t)n, stream);
    case PDT_INT64: return arange_launch<PDT_INT64>(p, stride, start, step, (uint64_t)n, stream);
    case PDT_FLOAT32:
        return arange_launch<PDT_FLOAT32>(p, stride, start, step, (uint64_t)n, stream);
    case PDT_FLOAT64:
        return arange_launch<PDT_FLOAT64>(p, stride, start, step, (uint64_t)n, stream);
    case PDT_FLOAT16:
        return arange_launch<PDT_FLOAT16>(p, stride, start, step, (uint64_t)n, stream);
    case PDT_BFLOAT16:
        return arange_launch<PDT_BFLOAT16>(p, stride, start, step, (uint64_t)n, stream);
    case PDT_UINT8: return arange_launch<PDT_UINT8>(p, stride, start, step, (uint64_t)n, stream);
    case PDT_INT8: return arange_launch<PDT_INT8>(p, stride, start, step, (uint64_t)n, stream);
    case PDT_INT16: return arange_launch<PDT_INT16>(p, stride, start, step, (uint64_t)n, stream);
    }
    return cudaErrorInvalidValue;
}

extern "C" cudaError_t pdt_cuda_launch_random(const pdt_tensor *dst, const pdt_random_spec *spec,
                                              cudaStream_t stream)
{
    (void)cudaGetLastError();
    const int64_t n = numel_of(dst);
    if (n <= 0)
        return cudaSuccess;
    char *p = first_elem(dst);
    switch (dst->dtype) {
    case PDT_BOOL: return random_launch<PDT_BOOL>(p, spec, (uint64_t)n, stream);
    case PDT_INT32: return random_launch<PDT_INT32>(p, spec, (uint64_t)n, stream);
    case PDT_INT64: return random_launch<PDT_INT64>(p, spec, (uint64_t)n, stream);
    case PDT_FLOAT32: return random_launch<PDT_FLOAT32>(p, spec, (uint64_t)n, stream);
    case PDT_FLOAT64: return random_launch<PDT_FLOAT64>(p, spec, (uint64_t)n, stream);
    default:
        break; /* the half types, the small integers: float32 or int32 numbers rounded
                       or wrapped by the core (pdt_random) */
    }
    return cudaErrorInvalidValue;
}
