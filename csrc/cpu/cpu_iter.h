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

/* Calls fn once per row of a (and b, which must have a's shape, or be NULL). */
void pdt_cpu_for_each_row(const pdt_tensor *a, const pdt_tensor *b, pdt_cpu_row_fn fn, void *ctx);

#endif /* PDT_CPU_ITER_H */
