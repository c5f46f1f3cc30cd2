/* pdt_optional.h - the entry points of the backend table's optional kernels
 * (softmax rows, the classification of floats, top-k, cummax, selection, searches):
 * each returns PDT_ERR_UNSUPPORTED, allocating nothing, for a device whose backend
 * lacks the kernel or an input it does not take, and the bindings then compose the op
 * from others. */
#ifndef PDT_OPTIONAL_H
#define PDT_OPTIONAL_H

#include "pdt_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Softmax (log 0) or log-softmax (log 1) of x along its last dim into a new
 * contiguous *result, for a contiguous float32 or float64 x with at least one
 * element (pdt_backend.softmax). */
pdt_status pdt_softmax_last(const pdt_tensor *x, int log, pdt_tensor *result);

/* isnan (which PDT_IS_NAN), isinf (PDT_IS_INF), isfinite (PDT_IS_FINITE) or
 * signbit as documented (PDT_IS_SIGNED: the sign bit of a number, False for NaN) of a
 * contiguous floating x with at least one element, into a new bool *result of its
 * shape (pdt_backend.classify). */
pdt_status pdt_classify(const pdt_tensor *x, int which, pdt_tensor *result);

/* topk of x along its last dim by selection (pdt_backend.topk), for a contiguous x
 * of at least one dim whose rows hold n >= 16 k elements, 1 <= k <= 1024 (beyond,
 * a sort is as fast): new contiguous *values and int64 *indices of shape (..., k). */
pdt_status pdt_topk_last(const pdt_tensor *x, int64_t k, int largest, pdt_tensor *values,
                         pdt_tensor *indices);

/* cummax (largest 1) or cummin of x along its last dim (pdt_backend.cumextreme), for a
 * contiguous x of at least one dim and one element: new contiguous *values and int64
 * *indices of x's shape. */
pdt_status pdt_cumextreme_last(const pdt_tensor *x, int largest, pdt_tensor *values,
                               pdt_tensor *indices);
/* The running product of x along its last dim (pdt_backend.cumprod), for a contiguous
 * float64 or int64 x of at least one dim and one element, into a new *result of its
 * shape; unused is ignored (the signature of the others). */
pdt_status pdt_cumprod_last(const pdt_tensor *x, int unused, pdt_tensor *result);
/* The element at the position rule says (PDT_SELECT_*, k for PDT_SELECT_KTH) of each row
 * (the last dim) of x in the stable sort's order (pdt_backend.select): x contiguous with
 * at least one dim and one element; new *values (x's dtype) and int64 *indices of x's
 * shape less its last dim.  A k outside [0, n) is PDT_ERR_INDEX. */
pdt_status pdt_select_last(const pdt_tensor *x, int rule, int64_t k, pdt_tensor *values,
                           pdt_tensor *indices);
/* searchsorted of each row of the 2-d values in the matching row of the 2-d seq (or in
 * its one row), both contiguous and of one dtype, by mode PDT_SEARCH_LEFT, _RIGHT (new
 * int64 *result of values' shape) or _MEMBER (isin: a new bool *result)
 * (pdt_backend.search). */
pdt_status pdt_search_rows(const pdt_tensor *seq, const pdt_tensor *values, int mode,
                           pdt_tensor *result);
/* pdt_search_rows of the contiguous values of any shape (all in one row) in the contiguous
 * 1-d seq: a new int64 *result of values' shape (mode PDT_SEARCH_LEFT or _RIGHT) or bool
 * (_MEMBER); searchsorted's everyday call, without the views to 2-d rows. */
pdt_status pdt_search_1d(const pdt_tensor *seq, const pdt_tensor *values, int mode,
                         pdt_tensor *result);
/* repeat_interleave's size (pdt_backend.repeat_positions' first pass), for the
 * contiguous 1-d int64 repeats of a device whose backend has the kernel: *total
 * PDT_REPEAT_SUM becomes their sum; a *total >= 0 (an output_size) is checked against
 * it.  A negative repeat or a sum other than *total is PDT_ERR_VALUE, a sum of 2^63 - 1
 * or more PDT_ERR_OOM: run before pdt_repeat_positions so that nothing is allocated for
 * a size the repeats refuse. */
#define PDT_REPEAT_SUM (-1)
pdt_status pdt_repeat_total(const pdt_tensor *repeats, int64_t *total);
/* repeat_interleave's positions: a new int64 *result of total (>= 0) elements holding
 * each i repeats[i] times; with x (not NULL: contiguous, at least 1-d, as long as
 * repeats along dim 0, on their device), a new *result of x's dtype and shape with
 * total along dim 0 holding x's rows so (repeat_interleave along dim 0).  The repeats
 * are read once more as they are written: a negative repeat or a sum other than total
 * (another thread wrote them) is PDT_ERR_VALUE, with nothing written past the end. */
pdt_status pdt_repeat_positions(const pdt_tensor *repeats, int64_t total, const pdt_tensor *x,
                                pdt_tensor *result);
/* repeat_interleave(x, repeats) with dim None: the contiguous x of any shape read as 1-d,
 * each element repeated so, total of them (pdt_repeat_positions). */
pdt_status pdt_repeat_flat(const pdt_tensor *x, const pdt_tensor *repeats, int64_t total,
                           pdt_tensor *result);
/* bincount (pdt_backend.bincount) of the contiguous 1-d int32 or int64 x on a device
 * whose backend has the kernel: a new int64 *result of max(max(x) + 1, minlength)
 * counts; a negative value is PDT_ERR_VALUE naming it. */
pdt_status pdt_bincount(const pdt_tensor *x, int64_t minlength, pdt_tensor *result);
/* count_nonzero (pdt_backend.count_nonzero) of all of the contiguous x, of any dtype, on
 * a device whose backend has the kernel: a new 0-d int64 *result. */
pdt_status pdt_count_nonzero(const pdt_tensor *x, pdt_tensor *result);
#ifdef __cplusplus
}
#endif
#endif /* PDT_OPTIONAL_H */
