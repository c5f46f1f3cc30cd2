/* cuda_kernels.h - C entry points of the CUDA kernels (cuda_kernels.cu).
 *
 * Each launcher enqueues its work on `stream` of the calling thread's current
 * CUDA device (cuda_backend.c calls cudaSetDevice first) and returns at once.
 * The tensors were validated by the core and live on that device.  The return
 * value is the launch status from cudaGetLastError() (cudaSuccess when there
 * was nothing to do, numel == 0); errors inside a kernel show up later, at the
 * next synchronisation.  Includable from C and C++.
 */
#ifndef PDT_CUDA_KERNELS_H
#define PDT_CUDA_KERNELS_H

#include <cuda_runtime.h>

#include "pdt_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst: any shape and strides, any dtype.  Every element of dst becomes value,
 * converted as (T)value.f when value.is_float, else (T)value.i; bool stores
 * value != 0. */
cudaError_t pdt_cuda_launch_fill(const pdt_tensor *dst, pdt_scalar value, cudaStream_t stream);

/* dst, src: the same shape, any strides, any dtypes, no overlap.
 * dst[idx] = (Tdst)src[idx] (C conversion; to bool: != 0). */
cudaError_t pdt_cuda_launch_copy_cast(const pdt_tensor *dst, const pdt_tensor *src,
                                      cudaStream_t stream);

/* dst: contiguous 1-D [n].  dst[i] = (T)(start + (double)i * step), the
 * product and the sum each rounded in double (no FMA), as on the CPU. */
cudaError_t pdt_cuda_launch_arange(const pdt_tensor *dst, double start, double step,
                                   cudaStream_t stream);

/* dst: contiguous, any shape [numel].  Fills dst with the values of Note
 * [Philox layout] in pdt_philox.h for spec (the core claimed the blocks). */
cudaError_t pdt_cuda_launch_random(const pdt_tensor *dst, const pdt_random_spec *spec,
                                   cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* PDT_CUDA_KERNELS_H */
