/* cuda_ops.h - the CUDA backend's operation entries, each in its own file,
 * and the one accessor they share to a device's stream. */
#ifndef PDT_CUDA_OPS_H
#define PDT_CUDA_OPS_H

#include <cuda_runtime.h>

#include "pdt_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Makes `index` the current device and gives its stream (cuda_backend.c). */
pdt_status pdt_cuda_stream(int index, cudaStream_t *stream);

/* cuda_elementwise.cu */
pdt_status pdt_cuda_binary(pdt_binary_op op, const pdt_tensor *out, pdt_operand a, pdt_operand b);
pdt_status pdt_cuda_unary(pdt_unary_op op, const pdt_tensor *out, const pdt_tensor *x, double lo,
                          double hi);
/* cuda_reduce.cu */
pdt_status pdt_cuda_reduce(pdt_reduce_op op, const pdt_tensor *out, const pdt_tensor *x);
/* cuda_gemm.c */
pdt_status pdt_cuda_gemm(const pdt_gemm_args *g);
void pdt_cuda_set_allow_tf32(int allow);
/* cuda_events.c */
pdt_status pdt_cuda_event_create(int index, void **event);
pdt_status pdt_cuda_event_record(int index, void *event);
pdt_status pdt_cuda_event_synchronize(void *event);
pdt_status pdt_cuda_event_elapsed_ms(void *start, void *end, float *ms);
void pdt_cuda_event_destroy(void *event);
/* cuda_nccl.c (Note [NCCL communicators]): in-place sum of buffers[i] (count
 * elements of dtype, on logical CUDA device logical_devices[i]) over the n
 * devices, which must be distinct physical GPUs; float32 and float64 only. */
pdt_status pdt_cuda_allreduce_sum(int n, const int *logical_devices, void *const *buffers,
                                  size_t count, pdt_dtype dtype);
/* 1 when libnccl.so.2 loads (loading it on first call), else 0. */
int pdt_cuda_nccl_available(void);

#ifdef __cplusplus
}
#endif
#endif /* PDT_CUDA_OPS_H */
