/* emu_faults.cpp - fault injection: the Nth call of a named API fails with an
 * error its documentation lists, so that the backend's error paths (out of
 * memory, no pinned memory, no event, no cuBLAS handle, a failed launch, a
 * failed NCCL init) run in CI, where nothing else makes those calls fail.
 *
 * Note [fault injection]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * A fault is armed with pdtEmuFailCall(api, nth, count) (tests, through
 * ctypes) or PYDEVTENSOR_EMULATED_FAIL=api:nth[:count][,api:nth[:count]...]
 * (read at the first call that can fail): calls nth .. nth+count-1 of `api`,
 * counted from when it was armed, starting at 1, fail; count defaults to 1.
 * A call is counted once its arguments have passed the checks that come
 * first (a NULL out pointer is still cudaErrorInvalidValue); a failing call
 * has no effect except its error, as a real failure.  What each name fails
 * with, after the document that lists the code among the call's returns:
 *
 *   cudaMalloc               cudaErrorMemoryAllocation (CUDA Runtime API,
 *                            "Memory Management", cudaMalloc)
 *   cudaMallocAsync,         cudaErrorMemoryAllocation (CUDA Runtime API,
 *   cudaMallocFromPoolAsync  "Stream Ordered Memory Allocator", the runtime's
 *                            name for what that section calls out of memory)
 *   cudaHostAlloc            cudaErrorMemoryAllocation (CUDA Runtime API,
 *                            "Memory Management", cudaHostAlloc; also counts
 *                            cudaMallocHost, which calls it)
 *   cudaEventCreate          cudaErrorMemoryAllocation (CUDA Runtime API,
 *                            "Event Management", cudaEventCreateWithFlags;
 *                            also counts cudaEventCreate)
 *   cudaLaunchKernel         cudaErrorLaunchOutOfResources (CUDA Runtime API,
 *                            "Execution Control", cudaLaunchKernel), seen by
 *                            cudaGetLastError after a <<<>>> launch
 *   cublasCreate             CUBLAS_STATUS_ALLOC_FAILED (cuBLAS Library,
 *                            "cublasCreate()": the resources could not be
 *                            allocated)
 *   cusolverDnCreate         CUSOLVER_STATUS_ALLOC_FAILED (cuSOLVER,
 *                            "cusolverDnCreate()")
 *   ncclCommInitAll,         ncclUnhandledCudaError (NCCL User Guide, "Types",
 *   ncclCommInitRank         ncclResult_t: a call to a CUDA function failed)
 *   cudaGetDeviceCount       cudaErrorInitializationError (CUDA Runtime API,
 *                            "Device Management", cudaGetDeviceCount: a call
 *                            that initialises the runtime "may also return
 *                            cudaErrorInitializationError")
 *   cudaSetDevice            cudaErrorDevicesUnavailable (CUDA Runtime API,
 *                            "Device Management", cudaSetDevice, which spells
 *                            it cudaErrorDeviceUnavailable: the device is in
 *                            exclusive use by another process, say)
 *   cudaGetDeviceProperties  cudaErrorInvalidDevice (CUDA Runtime API, "Device
 *                            Management", cudaGetDeviceProperties)
 *   cudaStreamCreate         cudaErrorInvalidValue (CUDA Runtime API, "Stream
 *                            Management", cudaStreamCreateWithFlags, the one
 *                            error it lists; also counts cudaStreamCreate)
 *   cudaMemcpyAsync          cudaErrorInvalidValue (CUDA Runtime API, "Memory
 *                            Management", cudaMemcpyAsync); counts
 *                            cudaMemcpyAsync, cudaMemcpy, cudaMemcpyPeerAsync and
 *                            cudaMemcpyPeer, host<->device, within a device and
 *                            between two
 *   cudaMemcpyAsync/sticky   the same calls, counted apart, fail with
 *                            cudaErrorLaunchFailure: the copy reports a kernel
 *                            that faulted before it (CUDA Runtime API: these
 *                            calls "may also return error codes from previous,
 *                            asynchronous launches").  The error is sticky, as
 *                            "Data types used by CUDA Runtime", cudaError, says
 *                            of it ("any further CUDA work will return the same
 *                            error"): every later launch, copy, memset,
 *                            allocation, stream or event creation, record, wait
 *                            and synchronisation on the device fails with it
 *                            (cublas<t>gemm with CUBLAS_STATUS_EXECUTION_FAILED),
 *                            until the process exits (cudaDeviceReset is not
 *                            emulated).  Frees still work.
 *   cudaDeviceEnablePeerAccess  cudaErrorInvalidDevice (CUDA Runtime API,
 *                            "Peer Device Memory Access")
 *   cublasSetStream          CUBLAS_STATUS_NOT_INITIALIZED (cuBLAS Library,
 *                            "cublasSetStream()", the one error it lists)
 *   cublasGemm               CUBLAS_STATUS_EXECUTION_FAILED (cuBLAS Library,
 *                            "cublas<t>gemm()": "the function failed to launch
 *                            on the GPU"); counts every cublas<t>gemm,
 *                            cublas<t>gemmStridedBatched and cublasGemmEx call
 *                            that has work to launch
 *   cusolverDn               CUSOLVER_STATUS_INTERNAL_ERROR (cuSOLVER, e.g.
 *                            "cusolverDn<t>potrf()": "an internal operation
 *                            failed"); counts every cusolverDn compute call
 *                            (not the bufferSize queries) that has work to
 *                            launch
 *
 * pdtEmuFailCall(NULL, 0, 0) disarms everything; pdtEmuFaultsInjected(api)
 * says how many calls of api (NULL: of any) failed so, so that a test can
 * check that the fault it armed was reached.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <mutex>

#include "emu_runtime.h"

namespace pdt_emu {

static const char *const kFaultApis[] = {
    "cudaMalloc",
    "cudaMallocAsync",
    "cudaMallocFromPoolAsync",
    "cudaHostAlloc",
    "cudaEventCreate",
    "cudaLaunchKernel",
    "cublasCreate",
    "cusolverDnCreate",
    "ncclCommInitAll",
    "ncclCommInitRank",
    "cudaGetDeviceCount",
    "cudaSetDevice",
    "cudaGetDeviceProperties",
    "cudaStreamCreate",
    "cudaMemcpyAsync",
    "cudaMemcpyAsync/sticky",
    "cudaDeviceEnablePeerAccess",
    "cublasSetStream",
    "cublasGemm",
    "cusolverDn",
};
constexpr int kFaultApiCount = (int)(sizeof kFaultApis / sizeof kFaultApis[0]);

struct fault_state {
    long calls;    /* calls counted since armed */
    long first;    /* the first call to fail (1-based); 0: not armed */
    long count;    /* how many calls from `first` on fail */
    long injected; /* calls failed so, in all */
};

static std::mutex fault_mu;
static fault_state faults[kFaultApiCount];

static int fault_index(const char *api)
{
    for (int i = 0; i < kFaultApiCount; i++)
        if (strcmp(kFaultApis[i], api) == 0)
            return i;
    return -1;
}

/* fault_mu held. */
static void arm(int i, long nth, long count)
{
    faults[i].calls = 0;
    faults[i].first = nth;
    faults[i].count = count;
}

/* PYDEVTENSOR_EMULATED_FAIL, once; a malformed entry is a violation (a test
 * that meant to inject a fault must not pass without one).  fault_mu held. */
static void read_env()
{
    static bool done = false;
    if (done)
        return;
    done = true;
    const char *v = getenv("PYDEVTENSOR_EMULATED_FAIL");
    if (v == NULL || *v == '\0')
        return;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", v);
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(item, ':');
        char *end = NULL;
        long nth = 0, count = 1;
        if (colon != NULL) {
            *colon = '\0';
            nth = strtol(colon + 1, &end, 10);
            if (*end == ':')
                count = strtol(end + 1, &end, 10);
        }
        const int i = fault_index(item);
        if (i < 0 || colon == NULL || *end != '\0' || nth < 1 || count < 1)
            violation("PYDEVTENSOR_EMULATED_FAIL", "README.md beside emu_faults.cpp",
                      "'%s' is not api:nth[:count] with a known api and nth, count >= 1 "
                      "(Note [fault injection])",
                      v);
        arm(i, nth, count);
    }
}

bool fault_due(const char *api)
{
    std::lock_guard<std::mutex> g(fault_mu);
    read_env();
    const int i = fault_index(api);
    if (i < 0)
        violation("fault_due", "Note [fault injection]", "'%s' is not a known api", api);
    fault_state &f = faults[i];
    if (f.first == 0)
        return false;
    const long call = ++f.calls;
    if (call < f.first || call >= f.first + f.count)
        return false;
    f.injected++;
    if (call == f.first + f.count - 1)
        f.first = 0; /* spent */
    return true;
}

/* Devices whose context a sticky error corrupted: the error, or 0. */
static std::atomic<int> sticky[kMaxDevices];

cudaError_t memcpy_fault(int dev)
{
    if (fault_due("cudaMemcpyAsync"))
        return set_error(cudaErrorInvalidValue);
    if (fault_due("cudaMemcpyAsync/sticky") && dev >= 0 && dev < kMaxDevices)
        sticky[dev].store(cudaErrorLaunchFailure);
    return sticky_error(dev);
}

cudaError_t sticky_error(int dev)
{
    if (dev < 0 || dev >= kMaxDevices)
        return cudaSuccess;
    const cudaError_t err = (cudaError_t)sticky[dev].load();
    return err == cudaSuccess ? cudaSuccess : set_error(err);
}

} // namespace pdt_emu

using namespace pdt_emu;

extern "C" {

/* Note [fault injection].  Returns 0, or -1 for an unknown api or nth, count < 1. */
PDT_EMU_API int pdtEmuFailCall(const char *api, int nth, int count)
{
    std::lock_guard<std::mutex> g(fault_mu);
    read_env();
    if (api == NULL) {
        for (fault_state &f : faults)
            f.first = 0;
        return 0;
    }
    const int i = fault_index(api);
    if (i < 0 || nth < 1 || count < 1)
        return -1;
    arm(i, nth, count);
    return 0;
}

/* How many calls of api (NULL: of every api) fault injection has failed. */
PDT_EMU_API long pdtEmuFaultsInjected(const char *api)
{
    std::lock_guard<std::mutex> g(fault_mu);
    long n = 0;
    for (int i = 0; i < kFaultApiCount; i++)
        if (api == NULL || strcmp(kFaultApis[i], api) == 0)
            n += faults[i].injected;
    return n;
}

} /* extern "C" */
