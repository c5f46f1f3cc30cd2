/* pdt_view.h - views: new shapes, strides and offsets over the same storage.
 *
 * Every function here validates its arguments, notes the op for placement
 * logging, and on success fills `out` with a new view of src's storage (one
 * more reference, released with pdt_tensor_release).  Nothing is read or
 * written on the device: the only exceptions are pdt_reshape and pdt_flatten,
 * which copy (through pdt_copy, so the copy is counted) when no view can have
 * the new shape.  On failure `out` is left untouched and the message names the
 * op, the dims and the sizes.
 *
 * Dims may be negative (counted from the end) as in Python; a 0-d tensor
 * accepts dim 0 and -1, as PyTorch does.
 */
#ifndef PDT_VIEW_H
#define PDT_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "pdt_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Normalises dim for t's dims into *out (0 <= *out < max(t->ndim, 1)).  A bad dim
 * is PDT_ERR_INDEX naming op, the dim, the ndim, and t's shape and device. */
pdt_status pdt_wrap_dim(const char *op, int64_t dim, const pdt_tensor *t, int *out);

/* view(shape): a view with the new shape, or PDT_ERR_VALUE saying why none
 * exists (the strides do not allow it).  One size may be -1 (inferred). */
pdt_status pdt_view(const pdt_tensor *src, int ndim, const int64_t *shape, pdt_tensor *out);
/* reshape(shape): a view when one exists, else a contiguous copy. */
pdt_status pdt_reshape(const pdt_tensor *src, int ndim, const int64_t *shape, pdt_tensor *out);
/* flatten(start_dim, end_dim): dims start..end merged into one (a view when
 * possible, else a copy).  A 0-d tensor becomes 1-d with one element. */
pdt_status pdt_flatten(const pdt_tensor *src, int64_t start_dim, int64_t end_dim, pdt_tensor *out);

/* transpose(d0, d1): the two dims swapped. */
pdt_status pdt_transpose(const pdt_tensor *src, int64_t d0, int64_t d1, pdt_tensor *out);
/* permute(dims): out's dim i is src's dim dims[i]; dims is a permutation of
 * 0..ndim-1 (negative values allowed). */
pdt_status pdt_permute(const pdt_tensor *src, int n, const int64_t *dims, pdt_tensor *out);
/* The dims in reverse order (numpy's .T; PyTorch's .T on 2-d tensors). */
pdt_status pdt_reverse_dims(const pdt_tensor *src, pdt_tensor *out);

/* squeeze: drops the dims listed in dims[0..n) that have size 1 (a listed dim
 * of another size stays, as in PyTorch); n < 0: every dim of size 1. */
pdt_status pdt_squeeze(const pdt_tensor *src, int n, const int64_t *dims, pdt_tensor *out);
/* t gains a size-1 dim at position d (0 <= d <= ndim < PDT_MAX_DIMS, unchecked), with
 * the stride unsqueeze gives it; t stays the same view otherwise. */
void pdt_insert_dim(pdt_tensor *t, int d);

/* out = slice i of src along dim, a view with dim removed (unbind's pieces: 0 <= dim <
 * ndim and 0 <= i < shape[dim], unchecked); notes no op (its caller notes one for all). */
void pdt_slice_view(const pdt_tensor *src, int dim, int64_t i, pdt_tensor *out);
/* out = src's elements start .. start + len along dim, a view (split's pieces: 0 <= dim <
 * ndim, 0 <= start <= start + len <= shape[dim], unchecked); notes no op. */
void pdt_narrow_view(const pdt_tensor *src, int dim, int64_t start, int64_t len, pdt_tensor *out);

/* unsqueeze(dim): a new dim of size 1 at position dim (-ndim-1 <= dim <= ndim). */
pdt_status pdt_unsqueeze(const pdt_tensor *src, int64_t dim, pdt_tensor *out);

/* expand: src broadcast to shape (NumPy's rules; broadcast dims get stride 0).
 * Leading size-1 dims of src beyond ndim are dropped.  `op` names the caller in
 * the message, which gives both shapes. */
pdt_status pdt_expand(const char *op, const pdt_tensor *src, int ndim, const int64_t *shape,
                      pdt_tensor *out);

/* flip's view: src with each dim whose bit is set in `dims` read backwards (its
 * stride negated, the offset at its last element). */
void pdt_flip_view(const pdt_tensor *src, uint32_t dims, pdt_tensor *out);

/* diagonal(offset, dim1, dim2): src with dims dim1 and dim2 removed and a last
 * dim added that walks their offset diagonal (stride: the sum of theirs; length
 * 0 when the offset is past the matrix).  Identical dims, or a src of fewer than
 * 2 dims, are PDT_ERR_VALUE; a dim out of range is PDT_ERR_INDEX. */
pdt_status pdt_diagonal_view(const pdt_tensor *src, int64_t offset, int64_t dim1, int64_t dim2,
                             pdt_tensor *out);

/* unfold(dim, size, step): src's windows of `size` elements every `step` along dim (a
 * 0-d src read as one element), dim's length becoming the window count and a last dim of
 * `size` added; built from src's own layout, so negative strides (a reversed NumPy
 * array's) stay as they are.  A dim outside [0, max(ndim, 1)) is PDT_ERR_INDEX; a size
 * outside [0, the length], a step below 1 or src of PDT_MAX_DIMS dims PDT_ERR_VALUE (the
 * Python wrapper names them in PyTorch's words first). */
pdt_status pdt_unfold_view(const pdt_tensor *src, int dim, int64_t size, int64_t step,
                           pdt_tensor *out);

/* as_strided(size, stride, storage_offset): a view of src's storage with the given
 * ndim sizes and strides (in elements) from element `offset` of the storage.  Sizes
 * or strides < 0 are PDT_ERR_VALUE, more than PDT_MAX_DIMS dims PDT_ERR_VALUE, and
 * a view reaching outside the storage PDT_ERR_VALUE naming the extent and the
 * storage's size. */
pdt_status pdt_as_strided_view(const pdt_tensor *src, int ndim, const int64_t *shape,
                               const int64_t *strides, int64_t offset, pdt_tensor *out);

/* ---- basic indexing ---- */

typedef enum pdt_index_kind {
    PDT_INDEX_INT = 0,      /* i: one position, the dim goes away             */
    PDT_INDEX_SLICE = 1,    /* start:stop:step, the dim stays                 */
    PDT_INDEX_NEWAXIS = 2,  /* None: a new dim of size 1                      */
    PDT_INDEX_ELLIPSIS = 3, /* ...: as many full slices as the other items leave */
} pdt_index_kind;

/* Bounds of an omitted slice start or stop (Python's slice(None)). */
#define PDT_SLICE_MIN INT64_MIN
#define PDT_SLICE_MAX INT64_MAX

typedef struct pdt_index {
    pdt_index_kind kind;
    int64_t i;                 /* INT: the position (negative counts from the end) */
    int64_t start, stop, step; /* SLICE: Python's meaning; out-of-range bounds clamp;
                                  an omitted start/stop is PDT_SLICE_MIN or _MAX as
                                  PySlice_Unpack gives it; step != 0 (negative ok) */
} pdt_index;

/* src[items[0], ..., items[n-1]]: always a view.  Negative steps give negative
 * strides.  An int out of range is PDT_ERR_INDEX naming the index, the dim and
 * its size. */
pdt_status pdt_index_view(const pdt_tensor *src, int n, const pdt_index *items, pdt_tensor *out);

#ifdef __cplusplus
}
#endif
#endif /* PDT_VIEW_H */
