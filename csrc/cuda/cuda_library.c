/* cuda_library.c - see cuda_library.h. */
#define _GNU_SOURCE
#include "cuda_library.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime.h>

int pdt_cuda_library_is_emulated(void *handle, char *why, size_t n)
{
    /* dlsym on a handle searches the library and its dependencies: the emulator's
     * cuBLAS and NCCL depend on its runtime, which this extension is linked with too.
     * A real CUDA library carries its own (static, hidden) runtime. */
    void *theirs = dlsym(handle, "cudaGetDeviceCount");
    if (theirs && theirs == (void *)(uintptr_t)&cudaGetDeviceCount)
        return 0;
    snprintf(why, n,
             "not the emulated device's library (an emulated build cannot use a real "
             "CUDA library)");
    return -1;
}
