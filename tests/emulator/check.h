/* check.h - X(call) for the test kernels' host code: returns -1000 - the CUDA
 * error from the enclosing function when call fails. */
#ifndef PDT_TEST_EMULATOR_CHECK_H
#define PDT_TEST_EMULATOR_CHECK_H

#include <cuda_runtime.h>

#define X(call)                                                                                    \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            return -1000 - (int)e_;                                                                \
    } while (0)

#endif
