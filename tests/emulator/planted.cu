/* planted.cu - deliberately broken copies of real backend code, for
 * tests/test_emulator.py, which shows that the emulated device catches each
 * fault.  Each function takes `broken`: 0 runs the code as the backend has
 * it, 1 runs it with the fault planted.  Never part of the product.
 *
 *  staged_h2d            cuda_copies.c cuda_h2d_staged, without the wait on
 *                        the staging buffer's event before refilling it
 *  gemm_row_major        cuda_gemm.c Note [row-major cuBLAS], without the
 *                        operand swap
 *  block_reduce_sum      cuda_reduce.cu block_reduce, without the
 *                        __syncthreads between the warps' writes and warp 0's reads
 *  reduce_free_partials  cuda_reduce.cu launch(), with the partials buffer
 *                        freed before the kernel that reads it
 *  kernel_other_device   cuda_backend.c CUDA_KERNEL_ENTRY, without making the
 *                        tensor's device current before the launch
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "cuda_launch.h"

#include "check.h"

/* ------------------------------------------------------------ staged copy */

#define STAGING ((size_t)1 << 20) /* the backend uses 4 MiB; smaller is the same code */

/* Returns the number of bytes that differ after copying nbytes host -> device -> host. */
extern "C" int staged_h2d(int broken)
{
    const size_t nbytes = 3 * STAGING + 1000;
    cudaStream_t s;
    char *dst, *staging[2], *src = (char *)malloc(nbytes), *back = (char *)malloc(nbytes);
    cudaEvent_t idle[2];
    X(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    X(cudaMalloc((void **)&dst, nbytes));
    for (int k = 0; k < 2; k++) {
        X(cudaHostAlloc((void **)&staging[k], STAGING, cudaHostAllocPortable));
        X(cudaEventCreateWithFlags(&idle[k], cudaEventDisableTiming));
    }
    for (size_t i = 0; i < nbytes; i++)
        src[i] = (char)(i * 7 + i / STAGING);
    size_t off = 0, len;
    for (int k = 0; off < nbytes; off += len, k ^= 1) {
        len = nbytes - off < STAGING ? nbytes - off : STAGING;
        if (!broken)
            X(cudaEventSynchronize(idle[k])); /* the wait the fault leaves out */
        memcpy(staging[k], src + off, len);
        X(cudaMemcpyAsync(dst + off, staging[k], len, cudaMemcpyHostToDevice, s));
        X(cudaEventRecord(idle[k], s));
    }
    X(cudaStreamSynchronize(s));
    X(cudaMemcpy(back, dst, nbytes, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (size_t i = 0; i < nbytes; i++)
        bad += back[i] != src[i];
    free(src);
    free(back);
    return bad;
}

/* ------------------------------------------------------------------ GEMM */

/* C (m, n) = A (m, k) @ B (k, n), all row-major, through cuBLAS; returns the
 * largest error against a host loop times 1e6, or a negative cuBLAS status.
 * Without the swap, cuBLAS reads A as a column-major (m, k) matrix with
 * leading dimension k: past the end of A, which the emulator stops. */
extern "C" int gemm_row_major(int broken)
{
    const int m = 3, n = 5, k = 4;
    float a[m * k], b[k * n], c[m * n], ref[m * n];
    for (int i = 0; i < m * k; i++)
        a[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < k * n; i++)
        b[i] = (float)(i % 5) * 0.5f;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float acc = 0;
            for (int q = 0; q < k; q++)
                acc += a[i * k + q] * b[q * n + j];
            ref[i * n + j] = acc;
        }
    float *da, *db, *dc;
    X(cudaMalloc((void **)&da, sizeof a));
    X(cudaMalloc((void **)&db, sizeof b));
    X(cudaMalloc((void **)&dc, sizeof c));
    X(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
    X(cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice));
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        return -1;
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t st;
    if (!broken) /* Note [row-major cuBLAS]: C^T = B^T A^T, sizes (n, m, k) */
        st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, db, n, da, k, &zero, dc, n);
    else /* the fault: A first, as if cuBLAS were row-major */
        st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, da, k, db, n, &zero, dc, n);
    if (st != CUBLAS_STATUS_SUCCESS)
        return -(int)st;
    X(cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost));
    cublasDestroy(h);
    double worst = 0;
    for (int i = 0; i < m * n; i++)
        worst = fmax(worst, fabs((double)c[i] - ref[i]));
    return (int)(worst * 1e6);
}

/* ------------------------------------------------------ block reduction */

template <bool kBroken> __device__ float block_reduce(float a)
{
    __shared__ float warp_results[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int offset = 16; offset > 0; offset >>= 1)
        a += __shfl_down_sync(0xffffffffu, a, offset);
    if (lane == 0)
        warp_results[warp] = a;
    if (!kBroken)
        __syncthreads(); /* the barrier the fault leaves out */
    if (warp == 0) {
        a = lane < (int)(blockDim.x >> 5) ? warp_results[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset >>= 1)
            a += __shfl_down_sync(0xffffffffu, a, offset);
    }
    __syncthreads();
    return a;
}

/* x: (rows, k); a block per row. */
template <bool kBroken> __global__ void row_sums(const float *x, float *out, int64_t k)
{
    float a = 0;
    for (int64_t j = threadIdx.x; j < k; j += blockDim.x)
        a += x[blockIdx.x * k + j];
    a = block_reduce<kBroken>(a);
    if (threadIdx.x == 0)
        out[blockIdx.x] = a;
}

/* Returns how many of 4 row sums are wrong. */
extern "C" int block_reduce_sum(int broken)
{
    const int rows = 4;
    const int64_t k = 4096;
    float *hx = (float *)malloc(rows * k * sizeof(float)), out[rows];
    for (int64_t i = 0; i < rows * k; i++)
        hx[i] = (float)(i % 13);
    float *x, *dout;
    X(cudaMalloc((void **)&x, rows * k * sizeof(float)));
    X(cudaMalloc((void **)&dout, sizeof out));
    X(cudaMemcpy(x, hx, rows * k * sizeof(float), cudaMemcpyHostToDevice));
    if (broken)
        PDT_LAUNCH((row_sums<true>), rows, 256, 0, (cudaStream_t)0, x, dout, k);
    else
        PDT_LAUNCH((row_sums<false>), rows, 256, 0, (cudaStream_t)0, x, dout, k);
    X(cudaGetLastError());
    X(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int r = 0; r < rows; r++) {
        double ref = 0;
        for (int64_t j = 0; j < k; j++)
            ref += hx[r * k + j];
        bad += fabs(out[r] - ref) > 1e-3 * fabs(ref);
    }
    free(hx);
    return bad;
}

/* ------------------------------------------- partials freed too early */

__global__ void partial_sums(const float *x, float *partials, int64_t n)
{
    float a = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
        a += x[i];
    partials[threadIdx.x] = a;
}

__global__ void finish_sum(const float *partials, float *out, int parts)
{
    float a = 0;
    for (int i = 0; i < parts; i++)
        a += partials[i];
    *out = a;
}

/* Returns the sum of 1000 ones (1000) computed in two launches. */
extern "C" int reduce_free_partials(int broken)
{
    cudaStream_t s;
    float *x, *out, *partials, h[1000], result = 0;
    for (int i = 0; i < 1000; i++)
        h[i] = 1.0f;
    X(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    X(cudaMalloc((void **)&x, sizeof h));
    X(cudaMalloc((void **)&out, sizeof(float)));
    X(cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice));
    X(cudaMallocAsync((void **)&partials, 32 * sizeof(float), s));
    PDT_LAUNCH((partial_sums), 1, 32, 0, s, x, partials, (int64_t)1000);
    if (broken) /* the fault: the scratch buffer goes back before its reader ran */
        X(cudaFreeAsync(partials, s));
    PDT_LAUNCH((finish_sum), 1, 1, 0, s, partials, out, 32);
    X(cudaGetLastError());
    if (!broken)
        X(cudaFreeAsync(partials, s));
    X(cudaMemcpyAsync(&result, out, sizeof(float), cudaMemcpyDeviceToHost, s));
    X(cudaStreamSynchronize(s));
    return (int)result;
}

/* -------------------------------------- a kernel on the wrong device */

__global__ void fill_kernel(float *dst, float v, int64_t n)
{
    for (int64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        dst[i] = v;
}

/* A tensor on device 1 is filled; the backend makes its device current
 * first (cudaSetDevice), the fault does not. */
extern "C" int kernel_other_device(int broken)
{
    float *dst, h[64];
    X(cudaSetDevice(1));
    X(cudaMalloc((void **)&dst, sizeof h));
    cudaStream_t s1;
    X(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    X(cudaSetDevice(0));
    cudaStream_t s0;
    X(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    if (!broken)
        X(cudaSetDevice(1));
    PDT_LAUNCH((fill_kernel), 1, 64, 0, broken ? s0 : s1, dst, 2.0f, (int64_t)64);
    X(cudaGetLastError());
    X(cudaStreamSynchronize(broken ? s0 : s1)); /* cudaMemcpy waits for the legacy stream only */
    X(cudaMemcpy(h, dst, sizeof h, cudaMemcpyDeviceToHost));
    return (int)h[63];
}
