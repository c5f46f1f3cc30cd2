/* cuda_ops.h - the CUDA backend's operation entries, each in its own file,
 * and the one accessor they share to a device's stream. */
#ifndef PDT_CUDA_OPS_H
#define PDT_CUDA_OPS_H

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "pdt_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Note [device guard]
 * ~~~~~~~~~~~~~~~~~~~
 * The current device is per-thread state that other libraries rely on: after
 * an op of ours on cuda:1, PyTorch or CuPy on the same thread must still
 * allocate on the device the thread had chosen.  So every backend entry point
 * that makes a device current does it through a guard, and puts the thread's
 * previous device back before it returns, on success and on failure:
 *
 *     pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
 *     st = pdt_cuda_stream(&g, logical, &stream);     (or pdt_cuda_guard_enter)
 *     ...
 *     pdt_cuda_guard_exit(&g);
 *
 * A guard may be entered several times (a peer copy moves between its two
 * devices); exit restores the device current before the first enter.
 * cudaGetDevice/cudaSetDevice are called only when the device differs, so an
 * op on the thread's own device costs one cudaGetDevice.  (Restoring device 0
 * on a thread that never chose one creates device 0's context, as a
 * cudaSetDevice(0) of the user's would: the price of leaving the thread as it
 * was.) */
typedef struct pdt_cuda_guard {
    int previous; /* the thread's device before the first enter; -1: not read yet */
    int current;  /* the device the guard made current; -1: none yet */
} pdt_cuda_guard;
#define PDT_CUDA_GUARD_INIT                                                                        \
    {                                                                                              \
        -1, -1                                                                                     \
    }

/* Makes physical device `device` current; cudaSuccess or the failing call's error. */
static inline cudaError_t pdt_cuda_guard_enter(pdt_cuda_guard *g, int device)
{
    cudaError_t err = cudaSuccess;
    if (g->previous < 0) {
        int cur = -1;
        if ((err = cudaGetDevice(&cur)) != cudaSuccess)
            return err;
        g->previous = g->current = cur;
    }
    if (g->current != device) {
        if ((err = cudaSetDevice(device)) != cudaSuccess)
            return err;
        g->current = device;
    }
    return cudaSuccess;
}

/* Puts back the device that was current before the first enter; safe to repeat. */
static inline void pdt_cuda_guard_exit(pdt_cuda_guard *g)
{
    if (g->previous >= 0 && g->current != g->previous) {
        if (cudaSetDevice(g->previous) != cudaSuccess)
            (void)cudaGetLastError();
        g->current = g->previous;
    }
}

/* PDT_CUDA_CHECK(pdt_cuda_guard_enter(g, device)), with a message that names the
 * device the thread could not move to (and cudaSetDevice, the call that failed). */
#define PDT_CUDA_ENTER(g, device)                                                                  \
    do {                                                                                           \
        const int pdt_enter_dev_ = (device);                                                       \
        if (pdt_cuda_forked()) { /* Note [CUDA in a forked child] (cuda_check.h) */                \
            st = pdt_cuda_fork_fail(pdt_enter_dev_);                                               \
            goto fail;                                                                             \
        }                                                                                          \
        cudaError_t pdt_enter_err_ = pdt_cuda_guard_enter((g), pdt_enter_dev_);                    \
        if (pdt_enter_err_ != cudaSuccess) {                                                       \
            st = pdt_cuda_fail_on(pdt_enter_err_, "cudaSetDevice", pdt_enter_dev_, __FILE__,       \
                                  __LINE__);                                                       \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* Makes logical device `logical`'s GPU current through g (Note [device
 * guard]: the caller calls pdt_cuda_guard_exit(g) before returning, whatever
 * the result), sets it up and gives its stream.  On success g->current is the
 * physical device (cuda_backend.c). */
pdt_status pdt_cuda_stream(pdt_cuda_guard *g, int logical, cudaStream_t *stream);

/* cuda_elementwise.cu */
pdt_status pdt_cuda_binary(pdt_binary_op op, const pdt_tensor *out, pdt_operand a, pdt_operand b);
pdt_status pdt_cuda_binary_scaled(pdt_binary_op op, const pdt_tensor *out, const pdt_tensor *a,
                                  const pdt_tensor *b, pdt_scalar alpha);
pdt_status pdt_cuda_unary(pdt_unary_op op, const pdt_tensor *out, const pdt_tensor *x,
                          pdt_scalar lo, pdt_scalar hi);
/* cuda_reduce.cu */
pdt_status pdt_cuda_reduce(pdt_reduce_op op, const pdt_tensor *out, const pdt_tensor *x);
/* cuda_index.cu (issue 17) */
pdt_status pdt_cuda_where(const pdt_tensor *out, const pdt_tensor *cond, const pdt_tensor *a,
                          const pdt_tensor *b);
pdt_status pdt_cuda_index_select(const pdt_tensor *out, const pdt_tensor *src, int dim,
                                 const pdt_tensor *index);
pdt_status pdt_cuda_index_put(const pdt_tensor *dst, int dim, const pdt_tensor *index,
                              const pdt_tensor *src);
pdt_status pdt_cuda_index_add(const pdt_tensor *dst, int dim, const pdt_tensor *index,
                              const pdt_tensor *src);
pdt_status pdt_cuda_sort(const pdt_tensor *values, const pdt_tensor *indices,
                         const pdt_tensor *scratch_values, const pdt_tensor *scratch_indices,
                         int descending);
pdt_status pdt_cuda_cumsum(const pdt_tensor *out, const pdt_tensor *x);
/* cuda_index_check.cu (Note [deferred index checks] in pdt_index.h) */
pdt_status pdt_cuda_index_check_async(const pdt_tensor *index, int64_t size, int dim,
                                      int negative_ok, int op, int *queued);
int pdt_cuda_index_error_take(int logical, pdt_index_error *out);
int pdt_cuda_index_checks_pending(int logical);
/* cuda_conv.cu */
pdt_status pdt_cuda_im2col(const pdt_tensor *out, const pdt_tensor *x, const pdt_window2d *w,
                           uint64_t pad_bits);
pdt_status pdt_cuda_col2im(const pdt_tensor *out, const pdt_tensor *cols, const pdt_window2d *w);
/* cuda_rnn.cu */
pdt_status pdt_cuda_rnn_cell(const pdt_rnn_cell_args *a);
pdt_status pdt_cuda_rnn_cell_backward(const pdt_rnn_cell_grad_args *a);
/* cuda_gemm.c */
pdt_status pdt_cuda_gemm(const pdt_gemm_args *g);
void pdt_cuda_set_allow_tf32(int allow);
/* cuda_solver.c (pdt_linalg.h): LU and Cholesky through cuSOLVER */
pdt_status pdt_cuda_lu_factor(const pdt_tensor *a, const pdt_tensor *pivots,
                              const pdt_tensor *info);
pdt_status pdt_cuda_lu_solve(const pdt_tensor *lu, const pdt_tensor *pivots, const pdt_tensor *b);
pdt_status pdt_cuda_cholesky(const pdt_tensor *a, int upper, const pdt_tensor *info);
/* cuda_solver_eig.c */
pdt_status pdt_cuda_eigh(const pdt_tensor *a, int upper, int vectors, const pdt_tensor *w,
                         const pdt_tensor *info);
pdt_status pdt_cuda_svd(const pdt_tensor *a, int vectors, const pdt_tensor *s, const pdt_tensor *u,
                        const pdt_tensor *vt, const pdt_tensor *info);
pdt_status pdt_cuda_qr_factor(const pdt_tensor *a, const pdt_tensor *tau);
pdt_status pdt_cuda_qr_orgqr(const pdt_tensor *q, const pdt_tensor *tau);
/* cuda_events.c */
pdt_status pdt_cuda_event_create(int index, unsigned flags, void **event);
pdt_status pdt_cuda_event_record(int index, void *event);
pdt_status pdt_cuda_event_query(void *event, int *done);
pdt_status pdt_cuda_stream_query(int index, int *done);
pdt_status pdt_cuda_event_wait(int index, void *event);
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
/* NCCL_VERSION_CODE of the loaded libnccl.so.2 (ncclGetVersion), 0 when it does
 * not load. */
int pdt_cuda_nccl_version(void);
/* Rank communicators (Note [NCCL rank communicators] in cuda_nccl.c): the
 * backend's comm_* entries. */
pdt_status pdt_cuda_comm_unique_id(unsigned char *id);
pdt_status pdt_cuda_comm_init(int index, const unsigned char *id, int nranks, int rank,
                              void **comm);
void pdt_cuda_comm_destroy(int index, void *comm);
pdt_status pdt_cuda_comm_run(void *comm, int index, int what, const void *send, void *recv,
                             size_t count, pdt_dtype dtype, int op, int root);
pdt_status pdt_cuda_comm_exchange(void *comm, int index, int n, const pdt_comm_buffer *bufs);

#ifdef __cplusplus
}
#endif
#endif /* PDT_CUDA_OPS_H */
