/* cuda_activation.cuh - sigmoid, tanh and gelu on the device, float32 and float64:
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

/* PyTorch's exact gelu, x/2 erfc(-x/sqrt(2)), and its derivative Phi(x) + x phi(x),
 * in double for both dtypes and rounded once (Note [float32 gelu] in
 * csrc/cpu/cpu_vgelu.h: within 1 ulp of the CPU's). */
template <typename T> __device__ __forceinline__ T gelu_of(T x)
{
    const double y = (double)x;
    return (T)(0.5 * y * erfc(y * -0.70710678118654752440));
}

template <typename T> __device__ __forceinline__ T gelu_grad_of(T x)
{
    const double y = (double)x;
    return (T)(0.5 * erfc(y * -0.70710678118654752440) +
               y * exp(-0.5 * (y * y)) * 0.39894228040143267794);
}

} // namespace pdt_cuda

#endif /* PDT_CUDA_ACTIVATION_CUH */
