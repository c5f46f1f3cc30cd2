/* cpu_iter.c - row iteration over strided tensors (see cpu_iter.h). */
#include "cpu_iter.h"

int pdt_cpu_merge_dims(const pdt_tensor *a, const pdt_tensor *b, int64_t *shape, int64_t *sa,
                       int64_t *sb)
{
    const int nops = b ? 2 : 1;
    const pdt_tensor *ops[2] = {a, b};
    int64_t *strides[2] = {sa, sb};
    int ndim = 0;

    /* In a's memory order (Note [memory order]), drop size-1 dims and merge
     * dims that are back to back in every operand. */
    int perm[PDT_MAX_DIMS];
    pdt_memory_order(a, perm);
    for (int ii = 0; ii < a->ndim; ii++) {
        int i = perm[ii];
        if (a->shape[i] == 0)
            return -1;
        if (a->shape[i] == 1)
            continue;
        int merge = ndim > 0;
        for (int k = 0; k < nops && merge; k++)
            merge = strides[k][ndim - 1] == ops[k]->strides[i] * a->shape[i];
        if (merge) {
            shape[ndim - 1] *= a->shape[i];
            for (int k = 0; k < nops; k++)
                strides[k][ndim - 1] = ops[k]->strides[i];
        } else {
            shape[ndim] = a->shape[i];
            for (int k = 0; k < nops; k++)
                strides[k][ndim] = ops[k]->strides[i];
            ndim++;
        }
    }
    return ndim;
}

void pdt_cpu_for_each_row(const pdt_tensor *a, const pdt_tensor *b, pdt_cpu_row_fn fn, void *ctx)
{
    const int nops = b ? 2 : 1;
    int64_t shape[PDT_MAX_DIMS], strides[2][PDT_MAX_DIMS];
    int ndim = pdt_cpu_merge_dims(a, b, shape, strides[0], strides[1]);
    if (ndim < 0)
        return;
    if (ndim == 0) { /* a single element */
        shape[0] = 1;
        strides[0][0] = strides[1][0] = 0;
        ndim = 1;
    }

    int64_t elsize[2] = {(int64_t)pdt_dtype_size(a->dtype),
                         b ? (int64_t)pdt_dtype_size(b->dtype) : 0};
    char *base[2] = {pdt_tensor_ptr(a), b ? pdt_tensor_ptr(b) : NULL};
    int64_t inner = shape[ndim - 1];
    int64_t inner_stride[2] = {strides[0][ndim - 1] * elsize[0],
                               b ? strides[1][ndim - 1] * elsize[1] : 0};
    int64_t index[PDT_MAX_DIMS] = {0};
    for (;;) {
        char *p[2] = {base[0], base[1]};
        for (int d = 0; d < ndim - 1; d++)
            for (int k = 0; k < nops; k++)
                p[k] += index[d] * strides[k][d] * elsize[k];
        fn(p[0], inner_stride[0], p[1], inner_stride[1], inner, ctx);
        int d = ndim - 2;
        while (d >= 0 && ++index[d] == shape[d])
            index[d--] = 0;
        if (d < 0)
            return;
    }
}
