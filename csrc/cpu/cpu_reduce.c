/* cpu_reduce.c - the CPU backend's row reductions.  (Issue 4: to be implemented.) */
#include "cpu_kernels.h"

pdt_status pdt_cpu_reduce(pdt_reduce_op op, const pdt_tensor *out, const pdt_tensor *x)
{
    (void)out, (void)x;
    return pdt_fail(PDT_ERR_UNSUPPORTED, "reduction %d is not implemented on the CPU yet", (int)op);
}
