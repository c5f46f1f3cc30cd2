/* emu_rules.cpp - how the emulated CUDA runtime reports: broken rules abort
 * with a message (violation), errors CUDA itself returns go through the
 * thread's last error (set_error, cudaGetLastError), and a fault on freed
 * device memory is named as such (the SIGSEGV handler).
 *
 * Note [rules and errors]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * Where CUDA documents an error code for a misuse (a launch configuration
 * over the limits, an unknown device, elapsed time of a non-timing event) the
 * emulator returns that code, as a GPU would, and the backend's own error
 * handling is exercised.  Where a misuse is undefined behaviour on a GPU (a
 * kernel reading freed memory or another device's memory without peer
 * access, a copy whose kind does not match its pointers, a barrier not
 * reached by every thread) the emulator stops the process with a message
 * that names the rule, the call and the pointer: on a GPU these show up
 * later, elsewhere, or only sometimes.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu_runtime.h"

namespace pdt_emu {

static thread_local cudaError_t tls_last_error = cudaSuccess;

void violation(const char *call, const char *rule, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *running = running_op();
    fprintf(stderr, "pydevtensor CUDA emulator: %s: %s\n  rule: %s\n%s%s%s", call, msg, rule,
            running ? "  while running: " : "", running ? running : "", running ? "\n" : "");
    fflush(stderr);
    abort();
}

cudaError_t set_error(cudaError_t err)
{
    /* CUDA Runtime API, "Error Handling": cudaGetLastError returns the last
     * error from a runtime call on this thread and resets it to cudaSuccess. */
    if (err != cudaSuccess)
        tls_last_error = err;
    return err;
}

/* ------------------------------------------------------ the fault handler */

static struct sigaction old_segv, old_bus;

static void on_fault(int sig, siginfo_t *info, void *uctx)
{
    char buf[512];
    if (describe_address(info->si_addr, buf, sizeof buf)) {
        const char *running = running_op();
        char out[1024];
        int n = snprintf(out, sizeof out,
                         "pydevtensor CUDA emulator: memory fault at %p: %s\n"
                         "  rule: CUDA C++ Programming Guide, \"Device Memory\" / cudaFree: "
                         "memory must not be accessed after it is freed\n%s%s%s",
                         info->si_addr, buf, running ? "  while running: " : "",
                         running ? running : "", running ? "\n" : "");
        if (n > 0)
            (void)!write(2, out, (size_t)n < sizeof out ? (size_t)n : sizeof out - 1);
        signal(SIGABRT, SIG_DFL);
        abort();
    }
    /* Not ours: hand the fault to whoever was there before (faulthandler, or
     * the default action) by restoring it; the instruction faults again. */
    sigaction(sig, sig == SIGSEGV ? &old_segv : &old_bus, NULL);
    (void)uctx;
}

void install_fault_handler()
{
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fault;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, &old_segv);
        sigaction(SIGBUS, &sa, &old_bus);
    });
}

} // namespace pdt_emu

using namespace pdt_emu;

extern "C" {

PDT_EMU_API cudaError_t cudaGetLastError(void)
{
    cudaError_t e = tls_last_error;
    tls_last_error = cudaSuccess;
    return e;
}

PDT_EMU_API cudaError_t cudaPeekAtLastError(void) { return tls_last_error; }

struct error_name {
    cudaError_t code;
    const char *name, *text;
};

/* Texts after the CUDA Runtime API, "Data types used by CUDA Runtime",
 * enum cudaError. */
static const error_name kErrors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
     "invalid configuration argument"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorDevicesUnavailable, "cudaErrorDevicesUnavailable",
     "CUDA-capable device(s) is/are busy or unavailable"},
    {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {cudaErrorPeerAccessAlreadyEnabled, "cudaErrorPeerAccessAlreadyEnabled",
     "peer access is already enabled"},
    {cudaErrorPeerAccessNotEnabled, "cudaErrorPeerAccessNotEnabled",
     "peer access has not been enabled"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources",
     "too many resources requested for launch"},
};

PDT_EMU_API const char *cudaGetErrorName(cudaError_t error)
{
    for (const error_name &e : kErrors)
        if (e.code == error)
            return e.name;
    return "cudaErrorUnknown";
}

PDT_EMU_API const char *cudaGetErrorString(cudaError_t error)
{
    for (const error_name &e : kErrors)
        if (e.code == error)
            return e.text;
    return "unknown error";
}

} /* extern "C" */
