/* cuda_conv.cu - the CUDA backend's im2col and col2im (contracts in
 * pdt_backend.h; the core validated the inputs).  Built by nvcc, or by the host
 * compiler against the emulated device.
 *
 *   im2col  one thread per output element: its (n, row, column) gives the input
 *           element to copy, or the padding value.  Writes are coalesced; the
 *           kernel only moves elements, so it runs on the dtype's bits.
 *   col2im  one thread per image element, gathering the column elements that
 *           im2col would copy from it (the classic col2im): for each kernel
 *           row i and column j, in that order, the window position whose
 *           (i, j) tap lands on the element, if any.  No atomics, so the sums
 *           are deterministic, and added in the order the CPU's loops add them
 *           (cpu_conv.c): the same bits on both.  Half types sum in float32.
 *
 * Index math is in int32 when every index and offset the kernel forms stays
 * below 2^30 (the common case: 64-bit division is several times slower on a
 * GPU), else in int64. */
#include <stdint.h>

#include <type_traits>

#include "cuda_check.h"
#include "cuda_half.cuh"
#include "cuda_launch.h"
#include "cuda_layout.cuh"
#include "cuda_ops.h"

namespace {

using namespace pdt_cuda;

/* The window (each pair (h, w)) and the strided operand's strides, in the
 * kernels' index type. */
template <typename I> struct geom {
    I C;     /* image channels */
    I rows;  /* C kh kw */
    I in[2]; /* image size */
    I k[2], d[2], p[2], s[2];
    I out[2];    /* window positions */
    I stride[4]; /* of x (n, c, h, w) for im2col, of cols (n, row, l) for col2im */
};

template <typename I> geom<I> make_geom(const pdt_window2d *w, int64_t C, const pdt_tensor *t)
{
    geom<I> g;
    g.C = (I)C;
    g.rows = (I)(C * w->kernel[0] * w->kernel[1]);
    for (int k = 0; k < 2; k++) {
        g.in[k] = (I)w->in[k];
        g.k[k] = (I)w->kernel[k];
        g.d[k] = (I)w->dilation[k];
        g.p[k] = (I)w->padding[k];
        g.s[k] = (I)w->stride[k];
        g.out[k] = (I)w->out[k];
    }
    for (int d = 0; d < 4; d++)
        g.stride[d] = d < t->ndim ? (I)t->strides[d] : 0;
    return g;
}

/* 1 when int32 holds every index and offset of the kernels over n elements of
 * the strided operand t: n, t's extent, and the padded image (the window
 * coordinates stay within it). */
int fits_int32(int64_t n, const pdt_tensor *t, const pdt_window2d *w)
{
    const int64_t lim = (int64_t)1 << 30;
    int64_t extent = 0;
    for (int d = 0; d < t->ndim; d++)
        extent += (t->shape[d] - 1) * (t->strides[d] < 0 ? -t->strides[d] : t->strides[d]);
    for (int k = 0; k < 2; k++)
        if (w->in[k] + 2 * w->padding[k] + w->stride[k] >= lim)
            return 0;
    return n < lim && extent < lim && pdt_tensor_numel(t) < lim;
}

template <typename T, typename I>
__global__ void im2col_kernel(T *out, const T *x, geom<I> g, T pad, I n)
{
    const I ow = g.out[1], L = g.out[0] * ow, kw = g.k[1], kk = g.k[0] * kw;
    for (I idx = gs_first<I>(); idx < n; idx += gs_step<I>()) {
        const I l = idx % L, rest = idx / L;
        const I row = rest % g.rows, b = rest / g.rows;
        const I c = row / kk, ij = row % kk;
        const I iy = (l / ow) * g.s[0] - g.p[0] + (ij / kw) * g.d[0];
        const I ix = (l % ow) * g.s[1] - g.p[1] + (ij % kw) * g.d[1];
        const bool inside = iy >= 0 && iy < g.in[0] && ix >= 0 && ix < g.in[1];
        out[idx] = inside
                       ? x[b * g.stride[0] + c * g.stride[1] + iy * g.stride[2] + ix * g.stride[3]]
                       : pad;
    }
}

/* The half types sum in float32 (Note [half precision arithmetic]). */
template <typename T> constexpr bool is_half_v = std::is_same_v<T, f16> || std::is_same_v<T, bf16>;
template <typename T> using acc_t = std::conditional_t<is_half_v<T>, float, T>;

template <typename T> __device__ __forceinline__ acc_t<T> widen(T v)
{
    if constexpr (is_half_v<T>)
        return to_float(v);
    else
        return v;
}

template <typename T> __device__ __forceinline__ T narrow(acc_t<T> v)
{
    if constexpr (is_half_v<T>)
        return half_from<T>(v);
    else
        return v;
}

template <typename T, typename I>
__global__ void col2im_kernel(T *out, const T *cols, geom<I> g, I n)
{
    const I H = g.in[0], W = g.in[1], kh = g.k[0], kw = g.k[1];
    for (I idx = gs_first<I>(); idx < n; idx += gs_step<I>()) {
        const I w = idx % W, rest = idx / W;
        const I h = rest % H, plane = rest / H;
        const I c = plane % g.C, b = plane / g.C;
        const T *base = cols + b * g.stride[0];
        acc_t<T> acc = acc_t<T>(0);
        for (I i = 0; i < kh; i++) {
            const I ty = h + g.p[0] - i * g.d[0]; /* y sh, if a window row y takes tap i here */
            if (ty < 0)
                break; /* and for every later i */
            const I y = ty / g.s[0];
            if (ty % g.s[0] != 0 || y >= g.out[0])
                continue;
            for (I j = 0; j < kw; j++) {
                const I tx = w + g.p[1] - j * g.d[1];
                if (tx < 0)
                    break;
                const I x = tx / g.s[1];
                if (tx % g.s[1] != 0 || x >= g.out[1])
                    continue;
                const I row = (c * kh + i) * kw + j;
                acc += widen(base[row * g.stride[1] + (y * g.out[1] + x) * g.stride[2]]);
            }
        }
        out[idx] = narrow<T>(acc);
    }
}

template <typename T, typename I>
void launch_im2col(const pdt_tensor *out, const pdt_tensor *x, const pdt_window2d *w,
                   uint64_t pad_bits, cudaStream_t stream)
{
    const I n = (I)pdt_tensor_numel(out);
    PDT_LAUNCH((im2col_kernel<T, I>), (grid_for<im2col_kernel<T, I>>((uint64_t)n)), kThreads, 0,
               stream, (T *)pdt_tensor_ptr(out), (const T *)pdt_tensor_ptr(x),
               make_geom<I>(w, x->shape[1], x), (T)pad_bits, n);
}

template <typename I>
void im2col_by_size(const pdt_tensor *out, const pdt_tensor *x, const pdt_window2d *w,
                    uint64_t pad_bits, cudaStream_t stream)
{
    switch (pdt_dtype_size(x->dtype)) {
    case 2: launch_im2col<uint16_t, I>(out, x, w, pad_bits, stream); break;
    case 4: launch_im2col<uint32_t, I>(out, x, w, pad_bits, stream); break;
    default: launch_im2col<uint64_t, I>(out, x, w, pad_bits, stream); break;
    }
}

template <typename T, typename I>
void launch_col2im(const pdt_tensor *out, const pdt_tensor *cols, const pdt_window2d *w,
                   cudaStream_t stream)
{
    const I n = (I)pdt_tensor_numel(out);
    PDT_LAUNCH((col2im_kernel<T, I>), (grid_for<col2im_kernel<T, I>>((uint64_t)n)), kThreads, 0,
               stream, (T *)pdt_tensor_ptr(out), (const T *)pdt_tensor_ptr(cols),
               make_geom<I>(w, out->shape[1], cols), n);
}

template <typename I>
void col2im_by_dtype(const pdt_tensor *out, const pdt_tensor *cols, const pdt_window2d *w,
                     cudaStream_t stream)
{
    switch (out->dtype) {
    case PDT_FLOAT64: launch_col2im<double, I>(out, cols, w, stream); break;
    case PDT_FLOAT16: launch_col2im<f16, I>(out, cols, w, stream); break;
    case PDT_BFLOAT16: launch_col2im<bf16, I>(out, cols, w, stream); break;
    default: launch_col2im<float, I>(out, cols, w, stream); break;
    }
}

} // namespace

extern "C" pdt_status pdt_cuda_im2col(const pdt_tensor *out, const pdt_tensor *x,
                                      const pdt_window2d *w, uint64_t pad_bits)
{
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    cudaStream_t stream;
    pdt_status st = pdt_cuda_stream(&g, out->device.index, &stream);
    if (st == PDT_OK) {
        (void)cudaGetLastError(); /* Note [stale CUDA errors] in cuda_kernels.cu */
        if (fits_int32(pdt_tensor_numel(out), x, w))
            im2col_by_size<int32_t>(out, x, w, pad_bits, stream);
        else
            im2col_by_size<int64_t>(out, x, w, pad_bits, stream);
        PDT_CUDA_CHECK(cudaGetLastError());
    }
fail:
    pdt_cuda_guard_exit(&g);
    return st;
}

extern "C" pdt_status pdt_cuda_col2im(const pdt_tensor *out, const pdt_tensor *cols,
                                      const pdt_window2d *w)
{
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    cudaStream_t stream;
    pdt_status st = pdt_cuda_stream(&g, out->device.index, &stream);
    if (st == PDT_OK) {
        (void)cudaGetLastError(); /* Note [stale CUDA errors] in cuda_kernels.cu */
        if (fits_int32(pdt_tensor_numel(out), cols, w))
            col2im_by_dtype<int32_t>(out, cols, w, stream);
        else
            col2im_by_dtype<int64_t>(out, cols, w, stream);
        PDT_CUDA_CHECK(cudaGetLastError());
    }
fail:
    pdt_cuda_guard_exit(&g);
    return st;
}
