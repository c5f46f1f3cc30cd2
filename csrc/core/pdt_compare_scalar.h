/* pdt_compare_scalar.h - a comparison of an integer or bool tensor with a
 * scalar that promotes it (bool with an int, an integer or bool with a float),
 * rewritten as one comparison in the tensor's own dtype: same answers, no
 * promoted copy of the tensor.  Plain C, no Python, no backend; used by
 * pdt_elementwise.c. */
#ifndef PDT_COMPARE_SCALAR_H
#define PDT_COMPARE_SCALAR_H

#include "pdt_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x op s, with x's dtype d (bool or an integer) and the compute dtype c that
 * promotion gives (int64, float32 or float64), is the same, element for
 * element, as x *new_op k for the integer k (in d's range, so computed in d):
 * returns 1 and sets *new_op and *k.  Returns 0 when no single comparison in
 * d does it (the caller keeps the promoted path).  op is a comparison with the
 * tensor on the left (Note [comparing with a scalar in the tensor's dtype]). */
int pdt_compare_in_dtype(pdt_binary_op op, pdt_dtype d, pdt_dtype c, pdt_scalar s,
                         pdt_binary_op *new_op, int64_t *k);

/* The comparison with its operands swapped: s < x is x > s. */
pdt_binary_op pdt_compare_mirror(pdt_binary_op op);

#ifdef __cplusplus
}
#endif
#endif /* PDT_COMPARE_SCALAR_H */
