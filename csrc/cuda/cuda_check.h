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

#include "pdt_runtime.h"
#include "pdt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Note [sticky CUDA errors]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * A kernel that faults (cudaErrorLaunchFailure, an illegal address, a device-side
 * assert, ...) corrupts its device's context: "This leaves the process in an
 * inconsistent state and any further CUDA work will return the same error.  To
 * continue using CUDA, the process must be terminated and relaunched" (CUDA Runtime
 * API, "Data types used by CUDA Runtime", cudaError, for each of the codes below).
 * PyTorch reports such an error as any other ("CUDA error: unspecified launch
 * failure", then again from every later op); ours says, once it is one of these,
 * that the device must be reset and the process restarted, since nothing in
 * pydevtensor can bring the device back (cudaDeviceReset would free every
 * allocation of every library in the process). */
static inline int pdt_cuda_sticky(cudaError_t err)
{
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure: return 1;
    default: return 0;
    }
}

/* Records err for `call` (source text) at file:line, on physical device `device`
 * (-1: the current one), and returns the status.  The message names the device as
 * its first logical one (cuda:N).
 *
 * Note [clearing CUDA errors]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * cudart keeps a per-thread "last error" that later cudaGetLastError() calls
 * (ours after a kernel launch, or another library's) would report again.  We
 * reset it here so that one failure is reported once.  Errors that corrupt the
 * context (Note [sticky CUDA errors]) cannot be cleared: every later call on that
 * device returns them again, which is what we want. */
static inline pdt_status pdt_cuda_fail_on(cudaError_t err, const char *call, int device,
                                          const char *file, int line)
{
    (void)cudaGetLastError();
    if (device < 0 && cudaGetDevice(&device) != cudaSuccess) {
        (void)cudaGetLastError();
        device = -1;
    }
    const int logical = device < 0 ? -1 : pdt_logical_index(PDT_CUDA, device);
    if (err == cudaErrorMemoryAllocation)
        return pdt_fail(PDT_ERR_OOM, "CUDA out of memory on cuda:%d: %s returned %s (%s) at %s:%d",
                        logical, call, cudaGetErrorName(err), cudaGetErrorString(err), file, line);
    return pdt_fail(PDT_ERR_BACKEND, "CUDA error on cuda:%d: %s returned %s (%s) at %s:%d%s",
                    logical, call, cudaGetErrorName(err), cudaGetErrorString(err), file, line,
                    pdt_cuda_sticky(err)
                        ? ". The error is sticky: it corrupted the device's CUDA context, and "
                          "every later CUDA call on the device fails with it; the device must be "
                          "reset: restart the process"
                        : "");
}

static inline pdt_status pdt_cuda_fail(cudaError_t err, const char *call, const char *file,
                                       int line)
{
    return pdt_cuda_fail_on(err, call, -1, file, line);
}

/* Note [CUDA in a forked child]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * CUDA does not survive fork(): a child forked after its parent initialised CUDA
 * (here: after the first device query, cuda_backend.c) inherits the parent's driver
 * state without its threads or its device connection, and its CUDA calls fail or
 * hang; any call it made could also act on the parent's context (a stream, a pool, a
 * host allocation it inherited).  PyTorch marks such a child at fork (pthread_atfork)
 * and refuses CUDA there: "Cannot re-initialize CUDA in forked subprocess".  We do the
 * same: in that child every checked call below (and every device guard, cuda_ops.h)
 * fails with that message before reaching CUDA, and the calls whose failure cannot be
 * reported (frees) are skipped: the child's copies of the parent's device memory are
 * the parent's to free.  A child of a parent that never used CUDA may use it.  So
 * DataLoader workers (fork) load on the CPU, and a dataset that makes CUDA tensors
 * there gets a clear error. */

/* 1 in a child forked after this process initialised CUDA (cuda_backend.c). */
int pdt_cuda_forked(void);
/* Records why CUDA cannot be used in this forked child (physical `device`, or -1). */
pdt_status pdt_cuda_fork_fail(int device);

/* Needs a local `pdt_status st;` and a `fail:` label in the calling function. */
#define PDT_CUDA_CHECK(call)                                                                       \
    do {                                                                                           \
        if (pdt_cuda_forked()) {                                                                   \
            st = pdt_cuda_fork_fail(-1);                                                           \
            goto fail;                                                                             \
        }                                                                                          \
        cudaError_t pdt_cuda_err_ = (call);                                                        \
        if (pdt_cuda_err_ != cudaSuccess) {                                                        \
            st = pdt_cuda_fail(pdt_cuda_err_, #call, __FILE__, __LINE__);                          \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* For calls whose failure cannot be reported (free functions, best-effort
 * steps): runs the call and clears the last error if it failed; skipped in a
 * forked child (Note [CUDA in a forked child]). */
#define PDT_CUDA_IGNORE(call)                                                                      \
    do {                                                                                           \
        if (!pdt_cuda_forked() && (call) != cudaSuccess)                                           \
            (void)cudaGetLastError();                                                              \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif /* PDT_CUDA_CHECK_H */
