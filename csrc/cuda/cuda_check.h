/* cuda_check.h - turning CUDA runtime errors into pdt_status values.
 *
 * PDT_CUDA_CHECK(call) runs a cudart call; on failure it records a message with
 * pdt_fail() (the call's text, cudaGetErrorName/String, file and line), clears
 * the thread's last CUDA error, stores the status in the caller's local
 * `pdt_status st` and jumps to the caller's `fail:` label.  It never prints and
 * never exits.  cudaErrorMemoryAllocation becomes PDT_ERR_OOM (the core adds the
 * full out-of-memory report); every other error is PDT_ERR_BACKEND.
 *
 * Usable from C and C++.
 */
#ifndef PDT_CUDA_CHECK_H
#define PDT_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "pdt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records err for `call` (source text) at file:line and returns the status.
 *
 * Note [clearing CUDA errors]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * cudart keeps a per-thread "last error" that later cudaGetLastError() calls
 * (ours after a kernel launch, or another library's) would report again.  We
 * reset it here so that one failure is reported once.  Errors that corrupt the
 * context (an illegal address in a kernel, say) cannot be cleared: every later
 * call on that device returns them again, which is what we want. */
static inline pdt_status pdt_cuda_fail(cudaError_t err, const char *call, const char *file,
                                       int line)
{
    (void)cudaGetLastError();
    if (err == cudaErrorMemoryAllocation)
        return pdt_fail(PDT_ERR_OOM, "CUDA out of memory: %s returned %s (%s) at %s:%d", call,
                        cudaGetErrorName(err), cudaGetErrorString(err), file, line);
    return pdt_fail(PDT_ERR_BACKEND, "CUDA error: %s returned %s (%s) at %s:%d", call,
                    cudaGetErrorName(err), cudaGetErrorString(err), file, line);
}

/* Needs a local `pdt_status st;` and a `fail:` label in the calling function. */
#define PDT_CUDA_CHECK(call)                                                                       \
    do {                                                                                           \
        cudaError_t pdt_cuda_err_ = (call);                                                        \
        if (pdt_cuda_err_ != cudaSuccess) {                                                        \
            st = pdt_cuda_fail(pdt_cuda_err_, #call, __FILE__, __LINE__);                          \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* For calls whose failure cannot be reported (free functions, best-effort
 * steps): runs the call and clears the last error if it failed. */
#define PDT_CUDA_IGNORE(call)                                                                      \
    do {                                                                                           \
        if ((call) != cudaSuccess)                                                                 \
            (void)cudaGetLastError();                                                              \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif /* PDT_CUDA_CHECK_H */
