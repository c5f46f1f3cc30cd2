/* cuda_layout.cuh - what the CUDA kernels share: grid sizes from the occupancy
 * API, grid-stride loop indices, and the by-value strided layout of the
 * elementwise kernels (cuda_kernels.cu, cuda_elementwise.cu).  C++ only: nvcc,
 * or the host compiler in the emulated build (cuda_launch.h).
 *
 * Note [grid sizes]
 * ~~~~~~~~~~~~~~~~~
 * Our kernels are grid-stride loops, so a grid larger than one wave (the
 * blocks the whole device runs at once) only adds blocks that wait for a free
 * SM.  How many blocks of a kernel one SM holds depends on the kernel: its
 * registers per thread and shared memory, not only the 2048 threads an SM can
 * hold (a kernel with 40 to 48 registers per thread fits 5 or 6 blocks of 256
 * threads, not 8).  So a wave is the SM count times
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor for that kernel, asked once
 * per kernel and physical device and cached.
 */
#ifndef PDT_CUDA_LAYOUT_CUH
#define PDT_CUDA_LAYOUT_CUH

#include <stdint.h>
#include <string.h>

#include <atomic>

#include <cuda_runtime.h>

#include "pdt_tensor.h"

/* #pragma unroll for code that the host compiler also sees (__host__
 * __device__ helpers, which the layout and random tests run on the CPU). */
#ifdef __CUDA_ARCH__
#define CUDA_UNROLL _Pragma("unroll")
#else
#define CUDA_UNROLL
#endif

namespace pdt_cuda {

inline constexpr int kThreads = 256; /* threads per block, a multiple of 32 */

/* ------------------------------------------------------ launch geometry */

/* The current device (physical), or -1 when CUDA cannot say. */
inline int current_device()
{
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return dev >= 0 && dev < PDT_MAX_DEVICES ? dev : -1;
}

/* SMs of physical device dev (the current one), cached; 132 (an H100) when
 * CUDA cannot say. */
inline int sm_count(int dev)
{
    static std::atomic<int> cache[PDT_MAX_DEVICES]; /* 0 until first asked */
    int sm = dev >= 0 ? cache[dev].load(std::memory_order_relaxed) : 0;
    if (sm > 0)
        return sm;
    if (dev < 0 ||
        cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        sm <= 0) {
        (void)cudaGetLastError();
        return 132;
    }
    cache[dev].store(sm, std::memory_order_relaxed);
    return sm;
}

/* Blocks of Kernel (launched with kThreads threads and no dynamic shared
 * memory) that fill the current device once (Note [grid sizes]); at least 1. */
template <auto Kernel> int64_t wave_of()
{
    static std::atomic<int> cache[PDT_MAX_DEVICES]; /* blocks per SM; 0 until first asked */
    const int dev = current_device();
    int per_sm = dev >= 0 ? cache[dev].load(std::memory_order_relaxed) : 0;
    if (per_sm <= 0) {
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm,
                                                          reinterpret_cast<const void *>(Kernel),
                                                          kThreads, 0) != cudaSuccess ||
            per_sm <= 0) {
            (void)cudaGetLastError();
            per_sm = 1; /* the launch itself will report what is wrong */
        } else if (dev >= 0) {
            cache[dev].store(per_sm, std::memory_order_relaxed);
        }
    }
    return (int64_t)sm_count(dev) * per_sm;
}

/* Blocks of kThreads threads for `work` items of Kernel on the current device,
 * one item per thread, capped at one wave (the grid-stride loop does the rest). */
template <auto Kernel> unsigned grid_for(uint64_t work)
{
    const uint64_t cap = (uint64_t)wave_of<Kernel>();
    uint64_t blocks = (work + kThreads - 1) / kThreads;
    return (unsigned)(blocks < 1 ? 1 : blocks > cap ? cap : blocks);
}

/* First index and step of a grid-stride loop. */
template <typename I> __device__ __forceinline__ I gs_first()
{
    return (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x;
}
template <typename I> __device__ __forceinline__ I gs_step()
{
    return (I)gridDim.x * (I)blockDim.x;
}

/* ------------------------------------------------------- strided layout */

/* N operands sharing one shape.  Dims are stored innermost first, so that the
 * fully unrolled index loop reads them at constant positions. */
template <int N> struct layout {
    int ndim;
    int64_t shape[PDT_MAX_DIMS];
    int64_t stride[N][PDT_MAX_DIMS]; /* elements */
};

/* Builds the layout of t[0..N-1] over shape->shape (t[k] NULL: a scalar,
 * stride 0): drops size-1 dims and merges a dim into the next outer one when,
 * for every operand, stride[outer] == stride[inner] * shape[inner].  Returns
 * 1 when every tensor operand is one unit-stride run (the contiguous fast
 * path; also for a single element). */
template <int N>
int make_layout(const pdt_tensor *shape, const pdt_tensor *const t[N], layout<N> *L)
{
    int64_t sizes[PDT_MAX_DIMS], stride[N][PDT_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < shape->ndim; d++) {
        int64_t s = shape->shape[d];
        if (s == 1)
            continue;
        bool merge = n > 0;
        for (int k = 0; k < N && merge; k++)
            merge = !t[k] || stride[k][n - 1] == t[k]->strides[d] * s;
        for (int k = 0; k < N; k++)
            stride[k][merge ? n - 1 : n] = t[k] ? t[k]->strides[d] : 0;
        if (merge)
            sizes[n - 1] *= s;
        else
            sizes[n++] = s;
    }
    memset(L, 0, sizeof *L);
    L->ndim = n;
    for (int j = 0; j < n; j++) {
        L->shape[j] = sizes[n - 1 - j];
        for (int k = 0; k < N; k++)
            L->stride[k][j] = stride[k][n - 1 - j];
    }
    if (n > 1)
        return 0;
    for (int k = 0; k < N; k++)
        if (n == 1 && t[k] && L->stride[k][0] != 1)
            return 0;
    return 1;
}

/* Element offsets (in elements) of linear index i in each operand.  I is the
 * index type: uint32_t when numel < 2^31 (cheaper division), else uint64_t. */
template <int N, typename I>
__host__ __device__ __forceinline__ void offsets_of(const layout<N> &L, I i, int64_t (&off)[N])
{
    CUDA_UNROLL
    for (int k = 0; k < N; k++)
        off[k] = 0;
    CUDA_UNROLL
    for (int d = 0; d < PDT_MAX_DIMS; d++) {
        if (d >= L.ndim)
            break;
        I s = (I)L.shape[d];
        I q = i / s;
        int64_t r = (int64_t)(i - q * s);
        CUDA_UNROLL
        for (int k = 0; k < N; k++)
            off[k] += r * L.stride[k][d];
        i = q;
    }
}

} // namespace pdt_cuda

#endif /* PDT_CUDA_LAYOUT_CUH */
