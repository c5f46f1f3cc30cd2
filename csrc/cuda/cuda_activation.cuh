/* cuda_activation.cuh - sigmoid and tanh on the device, float32 and float64:
 * written once for the elementwise ops (cuda_elementwise.cu) and the fused
 * recurrent cells (cuda_rnn.cu), so that a fused cell gives the unfused
 * composition's bits.  C++ only: nvcc, or the host compiler in the emulated
 * build. */
#ifndef PDT_CUDA_ACTIVATION_CUH
#define PDT_CUDA_ACTIVATION_CUH

#include <math.h>

#include <cuda_runtime.h>

namespace pdt_cuda {

/* e^x / (1 + e^x) below 0, so that e^-x never overflows and the subnormal
 * results stay (1 / (1 + inf) would be 0 there); as the CPU's float64 rows. */
template <typename T> __device__ __forceinline__ T sigmoid_of(T x)
{
    constexpr bool f32 = sizeof(T) == 4;
    T e = f32 ? expf(x < 0 ? x : -x) : exp(x < 0 ? x : -x);
    return x < 0 ? e / ((T)1 + e) : (T)1 / ((T)1 + e);
}

template <typename T> __device__ __forceinline__ T tanh_of(T x)
{
    constexpr bool f32 = sizeof(T) == 4;
    return f32 ? tanhf(x) : tanh(x);
}

} // namespace pdt_cuda

#endif /* PDT_CUDA_ACTIVATION_CUH */
