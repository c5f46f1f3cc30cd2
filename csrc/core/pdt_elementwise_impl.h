/* pdt_elementwise_impl.h - the core's elementwise helpers shared by
 * pdt_elementwise.c, pdt_elementwise_alpha.c, pdt_elementwise_operands.h and
 * pdt_elementwise_unary.c: not part of the core's interface (pdt_elementwise.h). */
#ifndef PDT_ELEMENTWISE_IMPL_H
#define PDT_ELEMENTWISE_IMPL_H

#include "pdt_elementwise.h"

/* The compute and result dtypes of op on a and b (Note [elementwise dtypes]). */
pdt_status pdt_ew_binary_dtypes(const char *name, pdt_binary_op op, pdt_arg a, pdt_arg b,
                                pdt_dtype *compute, pdt_dtype *res);
/* s, a floating scalar, rounded to the half dtype `half` (else unchanged): Note
 * [scalars meeting halves] in pdt_elementwise.c. */
void pdt_ew_round_scalar(pdt_dtype half, pdt_scalar *s);
/* The scalar x in the compute dtype c, as the backends read it; an integer scalar
 * with a small-integer or int32 operand dtype `wrap` is first wrapped into it, as
 * PyTorch does (Note [ints beyond the dtype] in pdt_compare_scalar.c). */
pdt_status pdt_ew_scalar_for(const char *name, pdt_dtype c, pdt_dtype wrap, pdt_arg x,
                             pdt_scalar *out);
/* The broadcast shape of a and b (either may be NULL for a scalar). */
pdt_status pdt_ew_broadcast_shape(const char *name, const pdt_tensor *a, const pdt_tensor *b,
                                  int *ndim, int64_t *shape);
int64_t pdt_ew_numel_of(int ndim, const int64_t *shape);
/* The output must have the broadcast shape, a dtype the result casts to, and one
 * memory location per element. */
pdt_status pdt_ew_check_output(const char *name, const pdt_tensor *out, int ndim,
                               const int64_t *shape, pdt_dtype res);
/* op(a, b) into out, or into a new *result when out is NULL; forced: a compute
 * dtype the caller chose, or -1; scale: the other operand's factor (binary_scaled),
 * or NULL. */
pdt_status pdt_ew_binary_impl(const char *name, pdt_binary_op op, pdt_arg a, pdt_arg b,
                              const pdt_tensor *out, pdt_tensor *result, int forced,
                              const pdt_scalar *scale);

/* ---- operands (their helpers: pdt_elementwise_operands.h) ---- */

/* One input made ready for the backend: a scalar in the compute dtype, or the
 * tensor itself when it already has the output's shape and dtype, or a view
 * at the output's shape of the tensor or of its temporary (a cast to the
 * compute dtype, or a copy when it partly overlaps the output).  The structs
 * are left uninitialised except for has_tmp (they are large, and the small-op
 * path should not spend its time zeroing them). */
typedef struct pdt_ew_prepared {
    pdt_operand op;
    int has_tmp;     /* bit 0 (1): tmp holds a reference to release; bit 1 (2): half does */
    pdt_tensor view; /* borrowed view: op.t may point here */
    pdt_tensor tmp;
    pdt_tensor half; /* an integer operand rounded to the half type (Note [integers and
                        halves] in pdt_elementwise_operands.h) */
} pdt_ew_prepared;

#endif /* PDT_ELEMENTWISE_IMPL_H */
