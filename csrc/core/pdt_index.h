/* pdt_index.h - selection, indexing, sorting and prefix sums (issue 17): the
 * validated entry points behind where/masked_fill, index_select/gather and
 * advanced indexing, sort/argsort/topk and cumsum.  Each checks devices,
 * dtypes and shapes once, then calls the backend entry of the same name
 * (pdt_backend.h).  The Python layer composes the rest of the everyday API
 * (cat, stack, softmax, var, ...) from these and the existing ops. */
#ifndef PDT_INDEX_H
#define PDT_INDEX_H

#include "pdt_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out = cond ? a : b.  out contiguous; cond bool; a and b of out's dtype; all
 * of out's shape (broadcast views with stride 0 are fine). */
pdt_status pdt_where(const pdt_tensor *out, const pdt_tensor *cond, const pdt_tensor *a,
                     const pdt_tensor *b);

/* The shape cond, a and b broadcast to (NumPy's rules) into *ndim and shape, or
 * a ValueError naming the three shapes when they do not broadcast. */
pdt_status pdt_where_shape(const pdt_tensor *cond, const pdt_tensor *a, const pdt_tensor *b,
                           int *ndim, int64_t *shape);
/* *out = cond ? a : b as a new tensor of a's dtype and the shape pdt_where_shape
 * gave, on their device, in the memory order of the first of cond, a and b with
 * that shape (of b, cond, a when masked: masked_fill(b, cond, a)); Note [memory
 * order] in pdt_tensor.h.  The checks as pdt_where's. */
pdt_status pdt_where_new(const pdt_tensor *cond, const pdt_tensor *a, const pdt_tensor *b, int ndim,
                         const int64_t *shape, int masked, pdt_tensor *out);

/* Note [deferred index checks]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Checking user indices on the host before a GPU op needs their min and max
 * read back: a device-to-host copy and a stall of the pipeline on every
 * gather, x[idx] and embedding lookup.  PyTorch instead asserts in the
 * kernel, which kills the CUDA context.  Here, on a backend with
 * index_check_async (CUDA), a check marked deferred_ok is queued on the device
 * instead: a kernel counts the out-of-range values and keeps one of them in a
 * slot of the device's ring (mapped pinned host memory, cuda_index_check.cu),
 * and an event recorded after it tells the host when it has completed.  The
 * op goes on without waiting: the Python layer wraps the index (x % size)
 * before the gather, and the kernels skip a value out of range (map_offsets in
 * cuda_index.cu), so nothing is read or written out of bounds; the result is
 * then not valid, and the error says so.  The check is a kernel of its own
 * rather than part of the gather's: it sees the user's index, dim and op (the
 * gathers run on wrapped or flattened offsets).
 *
 * Every synchronisation with the device (stream and device synchronize, a
 * blocking device-to-host copy: .cpu(), .item(), .tolist(), bool(), an
 * event's synchronize) then calls pdt_index_errors_report
 * (pdt_index_errors.h), which reads the checks that have completed, in the
 * order they were queued, and turns what they found into one IndexError: the
 * first bad value (op, value, dim, size; within one check, one of its bad
 * values, not necessarily the first) and the count of all the others found
 * since the last report, with the ops that found them ("... 3 more
 * out-of-range index values were found on cuda:0 since the last report (by
 * index_select, take)").  The error is raised once and then cleared; every
 * result computed on that device since the previous report may be invalid
 * (it may have used such a result), so treat all of them as lost, as after a
 * CUDA device-side assert, except that the device keeps working.  A report
 * also reads the completed checks of the other devices of the kind (a bad
 * result copied from there is read now), naming the device where the op ran.
 * A check still running (queued after the synchronisation began, by another
 * thread or after an event) is read at a later report: the host never reads a
 * slot a kernel may be writing, and never writes the ring at all (every field
 * has the device as its one writer, and the host keeps what it has read in
 * its own memory), since the host and the device must not access such memory
 * concurrently where hostNativeAtomicSupported is 0 (PCIe on x86).
 *
 * Results handed to another library without a synchronisation of ours
 * (__dlpack__, __cuda_array_interface__) are a report point too: when a
 * device of the kind has checks not yet reported (one flag per device,
 * pdt_index_errors_settle), the export synchronises the tensor's device and
 * reports, so from_dlpack(x[bad]) in another library raises this IndexError.
 * With no check pending, a synchronisation or export costs one atomic load
 * per device and no copy.  A device that cannot have the ring (no mapped host
 * memory) checks on the host before the op instead.
 *
 * The rule for deferred_ok: only where a bad index leaves no tensor the caller
 * already had half-changed, i.e. reads (gathers, index_select, x[idx],
 * embedding) whose result is a new tensor, and writes into a tensor the caller
 * has just made (the zeros of a gradient, a count).  Ops that write at user
 * indices into an existing tensor (index_add_, index_copy_, index_put_,
 * scatter_, x[idx] = v) keep the check before the op, with its read-back: a
 * deferred error would come after the tensor was changed, and bad input must
 * never leave a tensor half-changed.  pdt_set_index_checks_on_device(0)
 * (config.set_index_checks('sync')) checks everything before the op. */

/* PDT_ERR_INDEX unless every value of index (int64, any shape) lies in
 * [-size, size), or [0, size) without negative_ok (PyTorch's index_select and
 * gather refuse negative indices; x[idx] counts them from the end); names op,
 * the first bad value, the dim and its size.  A CUDA index is read back through
 * a counted device-to-host copy of its min and max, unless deferred_ok and
 * checks on the device are on: then the check is queued on the device and an
 * error is reported at the next synchronisation (Note [deferred index
 * checks]). */
pdt_status pdt_index_check(const char *op, const pdt_tensor *index, int64_t size, int dim,
                           int negative_ok, int deferred_ok);

/* out = src.index_select(dim, index): out contiguous with src's shape except
 * out.shape[dim] == len(index); index 1-D contiguous int64, range-checked here
 * (negative_ok, deferred_ok: as pdt_index_check; deferred_ok only when out is
 * a tensor the caller has just made). */
pdt_status pdt_index_select(const pdt_tensor *out, const pdt_tensor *src, int64_t dim,
                            const pdt_tensor *index, int negative_ok, int deferred_ok);
/* pdt_index_select with op naming the caller in errors ("index" for x[idx]). */
pdt_status pdt_index_select_as(const char *op, const pdt_tensor *out, const pdt_tensor *src,
                               int64_t dim, const pdt_tensor *index, int negative_ok,
                               int deferred_ok);

/* dst.index_put along dim: dst[.., index[j], ..] = src[.., j, ..].  src has
 * dst's dtype and dst's shape except src.shape[dim] == len(index).  deferred_ok
 * only when dst is a tensor the caller has just made (Note [deferred index
 * checks]). */
pdt_status pdt_index_put(const pdt_tensor *dst, int64_t dim, const pdt_tensor *index,
                         const pdt_tensor *src, int deferred_ok);

/* dst.index_add along dim: dst[.., index[j], ..] += src[.., j, ..], with
 * duplicate indices accumulating (scatter-add; autograd's backward of
 * gathers and advanced indexing).  As index_put; dtype int32, int64, float32
 * or float64 (bool is refused); deferred_ok as index_put's. */
pdt_status pdt_index_add(const pdt_tensor *dst, int64_t dim, const pdt_tensor *index,
                         const pdt_tensor *src, int deferred_ok);

/* Stable sort along the last dim: values (x's dtype) and indices (int64) are
 * new contiguous tensors of x's shape.  NaN is the largest value. */
pdt_status pdt_sort(const pdt_tensor *x, int descending, pdt_tensor *values, pdt_tensor *indices);

/* Inclusive prefix sum along the last dim into a new contiguous tensor: x's
 * dtype for floating x (summed in float64, each sum rounded once), int64 for
 * integers and bool (as PyTorch). */
pdt_status pdt_cumsum(const pdt_tensor *x, pdt_tensor *out);

/* The coordinates of mask's non-zero elements, a new contiguous int64 (count, ndim)
 * tensor on mask's device: mask bool, of at least one dim (a view is copied
 * contiguous first).  The backend's kernel counts them: no count is read back first.
 * PDT_ERR_UNSUPPORTED when the backend has no kernel for it (the caller composes
 * it), PDT_ERR_VALUE when the mask changed while it was read. */
pdt_status pdt_nonzero(const pdt_tensor *mask, pdt_tensor *out);

/* x[mask]: the rows of x (along dim 0) at mask's non-zero elements, a new contiguous
 * tensor (count, x's other dims) on x's device: mask a contiguous 1-D bool tensor of
 * x.shape[0] elements on x's device, x contiguous.
 * PDT_ERR_UNSUPPORTED when the backend has no kernel for it (the caller composes
 * it), PDT_ERR_VALUE when the mask changed while it was read. */
pdt_status pdt_compress(const pdt_tensor *x, const pdt_tensor *mask, pdt_tensor *out);

/* pdt_nonzero (x NULL) or pdt_compress with between(arg) called once the kernel has
 * counted and the result is made, before it is written: the tests' stand-in for
 * another thread writing the mask then.  between may be NULL. */
pdt_status pdt_mask_op(const pdt_tensor *x, const pdt_tensor *mask, void (*between)(void *arg),
                       void *arg, pdt_tensor *out);

#ifdef __cplusplus
}
#endif
#endif /* PDT_INDEX_H */
