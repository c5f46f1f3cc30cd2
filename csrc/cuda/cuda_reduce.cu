/* cuda_reduce.cu - row reductions.  (Issue 4: to be implemented.) */
#include "cuda_ops.h"

extern "C" pdt_status pdt_cuda_reduce(pdt_reduce_op op, const pdt_tensor *out, const pdt_tensor *x)
{
    (void)out, (void)x;
    return pdt_fail(PDT_ERR_UNSUPPORTED, "reduction %d is not implemented on CUDA yet", (int)op);
}
