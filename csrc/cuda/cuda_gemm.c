/* cuda_gemm.c - GEMM through cuBLAS.  (Issue 4: to be implemented.) */
#include "cuda_ops.h"

pdt_status pdt_cuda_gemm(const pdt_gemm_args *g)
{
    (void)g;
    return pdt_fail(PDT_ERR_UNSUPPORTED, "matmul is not implemented on CUDA yet");
}

void pdt_cuda_set_allow_tf32(int allow) { (void)allow; }
