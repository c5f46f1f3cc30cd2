/* cuda_half.cuh - the kernels' float16 and bfloat16 element types: 16 bits in
 * a struct of their own, converted by the functions of pdt_half.h.
 *
 * cuda_fp16.h's __half and cuda_bf16.h's __nv_bfloat16 are not used: they are
 * nvcc's (their host side leans on nvcc builtins and intrinsics), while the
 * emulated build compiles these kernels with the host C++ compiler (csrc/cuda/
 * emulator/README.md), and the conversions must give the same bits there, on a
 * GPU and on the CPU (Note [half precision] in pdt_half.h).  No kernel does
 * arithmetic in these types (Note [half precision arithmetic]): they are
 * loaded, converted to float, and stored, so a plain struct is all they need.
 * The matrix products go to cuBLAS, which reads the bits as CUDA_R_16F and
 * CUDA_R_16BF (cuda_gemm.c).
 */
#ifndef PDT_CUDA_HALF_CUH
#define PDT_CUDA_HALF_CUH

#include <stdint.h>

#include <type_traits>

#include "pdt_half.h"

namespace pdt_cuda {

struct f16 {
    uint16_t bits;
};
struct bf16 {
    uint16_t bits;
};
static_assert(sizeof(f16) == 2 && sizeof(bf16) == 2, "half types are 16 bits");

__host__ __device__ __forceinline__ float to_float(f16 v) { return pdt_f16_to_f32(v.bits); }
__host__ __device__ __forceinline__ float to_float(bf16 v) { return pdt_bf16_to_f32(v.bits); }

/* From float (one rounding) or from anything else through double (one
 * rounding too: pdt_f64_to_f16/bf16). */
template <typename H, typename V> __host__ __device__ __forceinline__ H half_from(V v)
{
    H h;
    if constexpr (std::is_same<V, float>::value)
        h.bits = std::is_same<H, f16>::value ? pdt_f32_to_f16(v) : pdt_f32_to_bf16(v);
    else
        h.bits = std::is_same<H, f16>::value ? pdt_f64_to_f16((double)v)
                                             : pdt_f64_to_bf16((double)v);
    return h;
}

} // namespace pdt_cuda

#endif /* PDT_CUDA_HALF_CUH */
