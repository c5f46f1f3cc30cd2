/* pdt_matmul.h - matrix products: matmul, mm, bmm, addmm and dot, and the
 * switch for TF32 tensor-core math in float32 GEMMs.
 *
 * Each entry point checks its inputs once (same device, same dtype, shapes
 * that multiply), allocates a new contiguous result in *out and dispatches to
 * the backend's gemm.  Operands whose last two dimensions are row-major or
 * transposed (strides (ld, 1) or (1, ld)) reach the BLAS as they are, with a
 * transpose flag; only other layouts are copied first.  On failure *out is
 * left zeroed and nothing was written.
 */
#ifndef PDT_MATMUL_H
#define PDT_MATMUL_H

#include "pdt_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* torch.matmul: 1-D . 1-D -> 0-d (dot); (m, k) @ (k,) -> (m,); (k,) @ (k, n)
 * -> (n,); (..., m, k) @ (..., k, n) -> (..., m, n) with the batch dimensions
 * broadcast as in NumPy. */
pdt_status pdt_matmul(const pdt_tensor *a, const pdt_tensor *b, pdt_tensor *out);
/* (m, k) @ (k, n) -> (m, n); both 2-D. */
pdt_status pdt_mm(const pdt_tensor *a, const pdt_tensor *b, pdt_tensor *out);
/* (B, m, k) @ (B, k, n) -> (B, m, n); both 3-D with the same B (no broadcast). */
pdt_status pdt_bmm(const pdt_tensor *a, const pdt_tensor *b, pdt_tensor *out);
/* beta * input + alpha * (mat1 @ mat2): mat1 (m, k), mat2 (k, n), input
 * broadcastable to (m, n).  beta == 0 ignores input's values (NaN included),
 * as in PyTorch.  Integer tensors take integer alpha and beta only. */
pdt_status pdt_addmm(const pdt_tensor *input, const pdt_tensor *mat1, const pdt_tensor *mat2,
                     pdt_scalar beta, pdt_scalar alpha, pdt_tensor *out);
/* (k,) . (k,) -> 0-d. */
pdt_status pdt_dot(const pdt_tensor *a, const pdt_tensor *b, pdt_tensor *out);

/* TF32 tensor-core math for float32 GEMMs on CUDA (off by default, as in
 * PyTorch): tells every backend that has the switch. */
void pdt_set_allow_tf32(int allow);
int pdt_get_allow_tf32(void);

/* Whether float16 (dtype PDT_FLOAT16) or bfloat16 GEMMs on CUDA may use
 * reduced-precision reductions (cuBLAS's default; on by default, as PyTorch's
 * allow_fp16/bf16_reduced_precision_reduction); off sets
 * CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION.  Other dtypes: ignored, 0. */
void pdt_set_allow_reduced_precision_reduction(pdt_dtype dtype, int allow);
int pdt_get_allow_reduced_precision_reduction(pdt_dtype dtype);

#ifdef __cplusplus
}
#endif
#endif /* PDT_MATMUL_H */
