/* cpu_elementwise.c - the CPU backend's elementwise binary and unary ops.
 * (Issue 4: to be implemented.) */
#include "cpu_kernels.h"

pdt_status pdt_cpu_binary(pdt_binary_op op, const pdt_tensor *out, pdt_operand a, pdt_operand b)
{
    (void)out, (void)a, (void)b;
    return pdt_fail(PDT_ERR_UNSUPPORTED, "binary op %d is not implemented on the CPU yet", (int)op);
}

pdt_status pdt_cpu_unary(pdt_unary_op op, const pdt_tensor *out, const pdt_tensor *x, double lo,
                         double hi)
{
    (void)out, (void)x, (void)lo, (void)hi;
    return pdt_fail(PDT_ERR_UNSUPPORTED, "unary op %d is not implemented on the CPU yet", (int)op);
}
