/* cpu_cursor.h - a cursor over up to 4 tensors of one shape, for the CPU kernels that
 * walk strided operands (where, index_select, index_put, cumsum): the multi-index of
 * the first element of a slice is computed once, then carried forward one element (or
 * one run of the last dim) at a time, so no element pays a division. */
#ifndef PDT_CPU_CURSOR_H
#define PDT_CPU_CURSOR_H

#include <stdint.h>

#include "pdt_tensor.h"

/* Walks up to 4 tensors of one shape in row-major order; off[k] is the
 * element offset (from the first element) of tensor k. */
typedef struct cursor {
    int ndim, n;
    int64_t shape[PDT_MAX_DIMS];
    int64_t strides[4][PDT_MAX_DIMS];
    int64_t idx[PDT_MAX_DIMS];
    int64_t off[4];
} cursor;

static inline void cursor_init(cursor *c, const int64_t *shape, int ndim, int n,
                               const pdt_tensor *const *ts, int64_t start)
{
    c->ndim = ndim;
    c->n = n;
    for (int d = 0; d < ndim; d++) /* loops, not memcpy: inlined, the size is unknown */
        c->shape[d] = shape[d];
    for (int k = 0; k < n; k++) {
        for (int d = 0; d < ndim; d++)
            c->strides[k][d] = ts[k]->strides[d];
        c->off[k] = 0;
    }
    for (int d = ndim - 1; d >= 0; d--) {
        c->idx[d] = shape[d] ? start % shape[d] : 0;
        start = shape[d] ? start / shape[d] : 0;
        for (int k = 0; k < n; k++)
            c->off[k] += c->idx[d] * c->strides[k][d];
    }
}

/* One step along dims top, top - 1, ... 0: the first dim not at its end moves on, the
 * dims after it back to their starts. */
static inline void cursor_carry(cursor *c, int top)
{
    for (int d = top; d >= 0; d--) {
        if (++c->idx[d] < c->shape[d]) {
            for (int k = 0; k < c->n; k++)
                c->off[k] += c->strides[k][d];
            return;
        }
        for (int k = 0; k < c->n; k++)
            c->off[k] -= (c->shape[d] - 1) * c->strides[k][d];
        c->idx[d] = 0;
    }
}

/* Moves the cursor run elements on, run at most what is left of the current row
 * (the last dim): to the next row's start when it reaches the row's end. */
static inline void cursor_advance_in_row(cursor *c, int64_t run)
{
    const int last = c->ndim - 1;
    c->idx[last] += run;
    for (int k = 0; k < c->n; k++)
        c->off[k] += run * c->strides[k][last];
    if (c->idx[last] < c->shape[last])
        return;
    for (int k = 0; k < c->n; k++)
        c->off[k] -= c->shape[last] * c->strides[k][last];
    c->idx[last] = 0;
    cursor_carry(c, last - 1);
}

static inline void cursor_next(cursor *c) { cursor_carry(c, c->ndim - 1); }

#endif
