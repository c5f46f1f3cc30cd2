/* cpu_gemm.c - the CPU backend's GEMM through OpenBLAS.  (Issue 4: to be implemented.) */
#include "cpu_kernels.h"

pdt_status pdt_cpu_gemm(const pdt_gemm_args *g)
{
    (void)g;
    return pdt_fail(PDT_ERR_UNSUPPORTED, "matmul is not implemented on the CPU yet");
}
