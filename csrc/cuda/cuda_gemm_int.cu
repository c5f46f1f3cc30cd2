/* cuda_gemm_int.cu - a plain shared-memory tiled GEMM for what cuBLAS lacks:
 * integer matrices (int32, int64), and C = beta * C when k == 0 (any dtype).
 *
 * One 16x16 thread block computes one 16x16 tile of C at a time, walking k
 * in 16-wide slabs of op(A) (m, k) and op(B) (k, n) staged in shared memory.
 * Tiles and batch entries are grid-stride loops over all three grid axes, so
 * any m, n and batch fit a bounded grid; every loop bound is uniform across a
 * block, so the __syncthreads() inside are reached by all its threads.
 * Integer sums are formed in the unsigned type of the same width, where
 * overflow wraps (as in NumPy and PyTorch) instead of being undefined.
 *
 * Operands follow pdt_gemm_args: row-major, element (r, c) of a stored matrix
 * at r * ld + c; op(A) = A^T when trans_a (A stored (k, m)), likewise B.
 */
#include "cuda_gemm_int.h"
#include "cuda_launch.h"

#include <stdint.h>

#include <type_traits>

namespace {

constexpr int kTile = 16;
constexpr unsigned kMaxGrid = 65535; /* the limit of gridDim.y and .z */

struct gemm_params {
    int64_t m, n, k, batch;
    const void *a, *b;
    void *c;
    int64_t lda, ldb, ldc, stride_a, stride_b, stride_c;
    int trans_a, trans_b;
    double alpha, beta;
    PDT_KERNEL_POINTERS(a, b, c)
};

template <typename T> struct accum {
    typedef T type;
};
template <> struct accum<int32_t> {
    typedef uint32_t type;
};
template <> struct accum<int64_t> {
    typedef uint64_t type;
};

/* op(X)(r, c) of a row-major matrix stored with leading dimension ld */
template <typename T>
__device__ __forceinline__ T load(const T *x, int trans, int64_t ld, int64_t r, int64_t c)
{
    return trans ? x[c * ld + r] : x[r * ld + c];
}

/* alpha * acc + beta * old, with beta == 0 not reading old.  Integers in U
 * (wrapping); floats only ever get here with k == 0 (acc is an empty sum). */
template <typename T, typename U>
__device__ __forceinline__ T combine(const gemm_params &p, U acc, T old)
{
    if constexpr (std::is_integral<T>::value) {
        U r = (U)(int64_t)p.alpha * acc;
        if (p.beta != 0.0)
            r += (U)(int64_t)p.beta * (U)old;
        return (T)r;
    } else {
        T r = p.k > 0 ? (T)p.alpha * (T)acc : T(0);
        if (p.beta != 0.0)
            r += (T)p.beta * old;
        return r;
    }
}

template <typename T> __global__ void gemm_tiled_kernel(gemm_params p)
{
    typedef typename accum<T>::type U;
    __shared__ U as[kTile][kTile + 1]; /* op(A) slab: rows of C's tile, kTile of k */
    __shared__ U bs[kTile][kTile + 1]; /* op(B) slab: kTile of k, columns of C's tile */
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t tiles_m = (p.m + kTile - 1) / kTile, tiles_n = (p.n + kTile - 1) / kTile;
    for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {
        const T *a = (const T *)p.a + z * p.stride_a;
        const T *b = (const T *)p.b + z * p.stride_b;
        T *c = (T *)p.c + z * p.stride_c;
        for (int64_t tm = blockIdx.y; tm < tiles_m; tm += gridDim.y) {
            for (int64_t tn = blockIdx.x; tn < tiles_n; tn += gridDim.x) {
                const int64_t i = tm * kTile + ty, j = tn * kTile + tx;
                U acc = 0;
                for (int64_t k0 = 0; k0 < p.k; k0 += kTile) {
                    const int64_t ka = k0 + tx, kb = k0 + ty;
                    as[ty][tx] = (i < p.m && ka < p.k) ? (U)load(a, p.trans_a, p.lda, i, ka) : U(0);
                    bs[ty][tx] = (kb < p.k && j < p.n) ? (U)load(b, p.trans_b, p.ldb, kb, j) : U(0);
                    __syncthreads();
#pragma unroll
                    for (int q = 0; q < kTile; q++)
                        acc += as[ty][q] * bs[q][tx];
                    __syncthreads();
                }
                if (i < p.m && j < p.n) {
                    T *out = c + i * p.ldc + j;
                    *out = combine<T, U>(p, acc, p.beta != 0.0 ? *out : T(0));
                }
            }
        }
    }
}

unsigned grid_dim(int64_t n, unsigned cap)
{
    if (n < 1)
        return 1;
    return n > (int64_t)cap ? cap : (unsigned)n;
}

} // namespace

extern "C" cudaError_t pdt_cuda_launch_gemm_tiled(const pdt_gemm_args *g, cudaStream_t stream)
{
    (void)cudaGetLastError();
    if (g->m <= 0 || g->n <= 0 || g->batch <= 0)
        return cudaSuccess;
    gemm_params p = {g->m,        g->n,       g->k,       g->batch, g->a,        g->b,
                     g->c,        g->lda,     g->ldb,     g->ldc,   g->stride_a, g->stride_b,
                     g->stride_c, g->trans_a, g->trans_b, g->alpha, g->beta};
    dim3 block(kTile, kTile);
    dim3 grid(grid_dim((g->n + kTile - 1) / kTile, kMaxGrid),
              grid_dim((g->m + kTile - 1) / kTile, kMaxGrid), grid_dim(g->batch, kMaxGrid));
    switch (g->dtype) {
    case PDT_INT32: PDT_LAUNCH((gemm_tiled_kernel<int32_t>), grid, block, 0, stream, p); break;
    case PDT_INT64: PDT_LAUNCH((gemm_tiled_kernel<int64_t>), grid, block, 0, stream, p); break;
    case PDT_FLOAT32: PDT_LAUNCH((gemm_tiled_kernel<float>), grid, block, 0, stream, p); break;
    case PDT_FLOAT64: PDT_LAUNCH((gemm_tiled_kernel<double>), grid, block, 0, stream, p); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
