/* cuda_gemm_int.h - the GEMM that cuBLAS does not do: integer matrices, and
 * the k == 0 case (C = beta * C) for every dtype.  See cuda_gemm_int.cu.
 * Includable from C and C++. */
#ifndef PDT_CUDA_GEMM_INT_H
#define PDT_CUDA_GEMM_INT_H

#include <cuda_runtime.h>

#include "pdt_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues C = alpha * op(A) @ op(B) + beta * C for g's batch (row-major, as
 * in pdt_gemm_args) on stream of the current device; beta == 0 writes without
 * reading C.  int32 and int64 for any k (wrapping on overflow); float32 and
 * float64 only with k == 0.  Returns the launch status (cudaGetLastError). */
cudaError_t pdt_cuda_launch_gemm_tiled(const pdt_gemm_args *g, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* PDT_CUDA_GEMM_INT_H */
