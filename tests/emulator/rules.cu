/* rules.cu - for tests/test_emulator.py: one small kernel or call per rule of
 * the emulated CUDA device (csrc/cuda/emulator/README.md), each either kept
 * (the function returns a value the test checks) or broken on purpose (the
 * process aborts with the rule's message, which the test reads).  Compiled at
 * test time against the emulator only; never part of the product. */
#include <stdint.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "cuda_launch.h"

#include "check.h"

__global__ void write_value(int *p, int v) { p[threadIdx.x] = v; }

__global__ void write_address(uintptr_t p, int v) { ((int *)p)[threadIdx.x] = v; }

struct holder {
    int *out;
    PDT_KERNEL_POINTERS(out)
};
__global__ void write_through(holder h) { h.out[threadIdx.x] = 1; }

/* ------------------------------------------------------------ launches */

extern "C" int launch_config(unsigned gx, unsigned gy, unsigned bx, unsigned by, unsigned bz)
{
    int *p;
    X(cudaMalloc((void **)&p, 4096));
    PDT_LAUNCH((write_value), dim3(gx, gy), dim3(bx, by, bz), 0, (cudaStream_t)0, p, 1);
    return (int)cudaGetLastError();
}

/* A launch on a stream of device 1 while device 0 is current. */
extern "C" int launch_on_other_device_stream(void)
{
    cudaStream_t s;
    int *p;
    X(cudaSetDevice(1));
    X(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    X(cudaSetDevice(0));
    X(cudaMalloc((void **)&p, 64));
    PDT_LAUNCH((write_value), 1, 1, 0, s, p, 1);
    return (int)cudaGetLastError();
}

/* ------------------------------------------------------------- barriers */

__global__ void divergent_barrier(int *out)
{
    if (threadIdx.x < 16)
        __syncthreads();
    out[threadIdx.x] = 1;
}

extern "C" int syncthreads_divergent(void)
{
    int *p;
    X(cudaMalloc((void **)&p, 64 * sizeof(int)));
    PDT_LAUNCH((divergent_barrier), 1, 64, 0, (cudaStream_t)0, p);
    return (int)cudaDeviceSynchronize();
}

__global__ void warp_sum(int *out)
{
    int v = (int)threadIdx.x;
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0)
        out[threadIdx.x >> 5] = v;
}

/* threads: 64 (two full warps) keeps the rule; 16 names lanes that do not exist. */
extern "C" int shuffle_sum(int threads, int *host_out)
{
    int *p;
    X(cudaMalloc((void **)&p, 2 * sizeof(int)));
    X(cudaMemset(p, 0, 2 * sizeof(int)));
    PDT_LAUNCH((warp_sum), 1, threads, 0, (cudaStream_t)0, p);
    X(cudaGetLastError());
    X(cudaMemcpy(host_out, p, 2 * sizeof(int), cudaMemcpyDeviceToHost));
    return 0;
}

/* Each block fills its own __shared__ array, then every thread reads its
 * neighbour's slot: the result shows that blocks do not share it. */
__global__ void shared_neighbour(int *out)
{
    __shared__ int slot[64];
    slot[threadIdx.x] = (int)(blockIdx.x * 1000 + threadIdx.x);
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = slot[(threadIdx.x + 1) % blockDim.x];
}

extern "C" int shared_per_block(int *host_out /* [4 * 64] */)
{
    int *p;
    X(cudaMalloc((void **)&p, 4 * 64 * sizeof(int)));
    PDT_LAUNCH((shared_neighbour), 4, 64, 0, (cudaStream_t)0, p);
    X(cudaGetLastError());
    X(cudaMemcpy(host_out, p, 4 * 64 * sizeof(int), cudaMemcpyDeviceToHost));
    return 0;
}

/* --------------------------------------------------------------- memory */

/* how: 0 a launch after cudaFree; 1 a launch queued behind a stream-ordered
 * free; 2 a kernel that reaches freed memory through an integer address;
 * 3 a freed pointer inside a parameter struct. */
extern "C" int use_after_free(int how)
{
    cudaStream_t s;
    int *p;
    X(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (how == 1) {
        X(cudaMallocAsync((void **)&p, 256, s));
        X(cudaFreeAsync(p, s));
        PDT_LAUNCH((write_value), 1, 32, 0, s, p, 1);
    } else {
        X(cudaMalloc((void **)&p, 256));
        X(cudaFree(p));
        if (how == 0)
            PDT_LAUNCH((write_value), 1, 32, 0, s, p, 1);
        else if (how == 2)
            PDT_LAUNCH((write_address), 1, 32, 0, s, (uintptr_t)p, 1);
        else
            PDT_LAUNCH((write_through), 1, 32, 0, s, holder{p});
    }
    return (int)cudaStreamSynchronize(s);
}

/* A kernel on device 0 given memory of device 1, with or without peer access. */
extern "C" int other_device_pointer(int enable_peer)
{
    int *p;
    X(cudaSetDevice(1));
    X(cudaMalloc((void **)&p, 256));
    X(cudaSetDevice(0));
    if (enable_peer)
        X(cudaDeviceEnablePeerAccess(1, 0));
    PDT_LAUNCH((write_value), 1, 32, 0, (cudaStream_t)0, p, 1);
    X(cudaGetLastError());
    return (int)cudaDeviceSynchronize();
}

/* ------------------------------------------------------ streams and events */

/* A kernel writes 7, a copy brings it to pinned memory; the host reads
 * before (out[0]) and after (out[1]) synchronising. */
extern "C" int read_before_sync(int *out)
{
    cudaStream_t s;
    int *d, *pinned;
    X(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    X(cudaMalloc((void **)&d, sizeof(int)));
    X(cudaHostAlloc((void **)&pinned, sizeof(int), cudaHostAllocPortable));
    *pinned = 0;
    PDT_LAUNCH((write_value), 1, 1, 0, s, d, 7);
    X(cudaMemcpyAsync(pinned, d, sizeof(int), cudaMemcpyDeviceToHost, s));
    out[0] = *pinned;
    X(cudaStreamSynchronize(s));
    out[1] = *pinned;
    return 0;
}

/* s1 writes 5; s2 copies it out, after waiting on an event of s1 or not. */
extern "C" int event_ordering(int wait, int *out)
{
    cudaStream_t s1, s2;
    cudaEvent_t e;
    int *d, *pinned;
    X(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    X(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    X(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    X(cudaMalloc((void **)&d, sizeof(int)));
    X(cudaMemset(d, 0, sizeof(int)));
    X(cudaHostAlloc((void **)&pinned, sizeof(int), 0));
    PDT_LAUNCH((write_value), 1, 1, 0, s1, d, 5);
    X(cudaEventRecord(e, s1));
    if (wait)
        X(cudaStreamWaitEvent(s2, e, 0));
    X(cudaMemcpyAsync(pinned, d, sizeof(int), cudaMemcpyDeviceToHost, s2));
    X(cudaStreamSynchronize(s2));
    *out = *pinned;
    X(cudaStreamSynchronize(s1));
    return 0;
}

/* An event of device 0 recorded on a stream of device 1. */
extern "C" int record_on_other_device(void)
{
    cudaEvent_t e;
    cudaStream_t s;
    X(cudaEventCreate(&e));
    X(cudaSetDevice(1));
    X(cudaStreamCreate(&s));
    return (int)cudaEventRecord(e, s);
}

/* ------------------------------------------------------------- cuBLAS */

/* cublasGemmEx on 1 x 2 by 2 x 1 matrices of the given types (cudaDataType_t,
 * cublasComputeType_t, cublasGemmAlgo_t): its status ("cublasGemmEx()" type
 * table); m = -1 breaks the size rule instead.  With 16-bit types, C holds
 * the product rounded once, returned as bits in *out. */
extern "C" int gemm_ex_status(int atype, int btype, int ctype, int compute, int algo, int m,
                              uint32_t *out)
{
    cublasHandle_t h;
    uint16_t host_a[2] = {0x3c00, 0x3c01}, host_b[2] = {0x3c00, 0x1000}; /* float16 bits */
    void *a, *b, *c;
    float one = 1.0f, zero = 0.0f;
    X(cudaMalloc(&a, 16));
    X(cudaMalloc(&b, 16));
    X(cudaMalloc(&c, 16));
    X(cudaMemset(c, 0, 16));
    X(cudaMemcpy(a, host_a, sizeof host_a, cudaMemcpyHostToDevice));
    X(cudaMemcpy(b, host_b, sizeof host_b, cudaMemcpyHostToDevice));
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        return -1;
    int st = (int)cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, 1, 2, &one, a, (cudaDataType_t)atype,
                               m > 0 ? m : 1, b, (cudaDataType_t)btype, 2, &zero, c,
                               (cudaDataType_t)ctype, m > 0 ? m : 1, (cublasComputeType_t)compute,
                               (cublasGemmAlgo_t)algo);
    X(cudaDeviceSynchronize());
    *out = 0;
    X(cudaMemcpy(out, c, ctype == CUDA_R_32F ? 4 : 2, cudaMemcpyDeviceToHost));
    cublasDestroy(h);
    return st;
}
