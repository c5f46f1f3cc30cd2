/* cpu_iter.h - walks one or two same-shaped strided tensors row by row.
 *
 * Dimensions that are laid out back to back in every operand are merged first,
 * so a contiguous tensor of any rank is visited as one row.  The row callback
 * gets byte pointers and byte strides for the innermost dimension.
 */
#ifndef PDT_CPU_ITER_H
#define PDT_CPU_ITER_H

#include "pdt_tensor.h"

/* a: (n,) row of the first operand with byte stride sa; b likewise (may be NULL) */
typedef void (*pdt_cpu_row_fn)(char *a, int64_t sa, char *b, int64_t sb, int64_t n, void *ctx);

/* The dims of a (and of b, of a's shape, or NULL) in a's memory order, outermost
 * first, size-1 dims dropped and dims back to back in every operand merged: their
 * sizes in shape and element strides in sa (and sb).  Returns their number (0 for a
 * single element), or -1 when a has no elements. */
int pdt_cpu_merge_dims(const pdt_tensor *a, const pdt_tensor *b, int64_t *shape, int64_t *sa,
                       int64_t *sb);

/* Calls fn once per row of a (and b, which must have a's shape, or be NULL). */
void pdt_cpu_for_each_row(const pdt_tensor *a, const pdt_tensor *b, pdt_cpu_row_fn fn, void *ctx);

#endif /* PDT_CPU_ITER_H */
