/* pdt_tensor.h - refcounted storage and the strided views over it.
 *
 * A pdt_storage owns one allocation on one device: its bytes, its size and the
 * allocator that frees it.  A pdt_tensor is a view: dtype, shape, strides (in
 * elements) and offset (in elements) over a storage it holds a reference to.
 * Views share storage; pdt_tensor_release() drops the view's reference.
 */
#ifndef PDT_TENSOR_H
#define PDT_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "pdt_device.h"
#include "pdt_dtype.h"
#include "pdt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PDT_MAX_DIMS 16
/* Element and byte counts must stay below this; larger requests are refused. */
#define PDT_MAX_NUMEL (((int64_t)1) << 62)

typedef struct pdt_storage pdt_storage; /* opaque: see pdt_storage.c */

typedef struct pdt_tensor {
    pdt_storage *storage; /* owned reference; NULL only in a released tensor */
    char *data;           /* the storage's base address (cached) */
    pdt_device device;
    pdt_dtype dtype;
    int ndim;
    int64_t offset; /* in elements */
    int counter; /* which of the storage's version counters t counts in: Note [version counter] */
    int64_t shape[PDT_MAX_DIMS];
    int64_t strides[PDT_MAX_DIMS]; /* in elements */
} pdt_tensor;

/* Storage flags. */
#define PDT_STORAGE_PINNED 1 /* page-locked host memory from the CUDA backend */

/* Address of the first element of t. */
static inline char *pdt_tensor_ptr(const pdt_tensor *t)
{
    return t->data + t->offset * (int64_t)pdt_dtype_size(t->dtype);
}

int64_t pdt_tensor_numel(const pdt_tensor *t);
/* 1 when t is row-major dense from its first element on; always for an empty t. */
int pdt_tensor_is_contiguous(const pdt_tensor *t);
/* 1 when two elements of t may share one memory location: a stride 0, or
 * overlapping rows (as_strided); 0 for an empty tensor.  Writes refuse it. */
int pdt_tensor_internal_overlap(const pdt_tensor *t);
/* 1 when v (a view at out's shape) shares memory with out other than element for
 * element: then out's writes could reach v before v is read.  An input that is out
 * itself (x.add_(y) reads x[i] just before writing it) is fine. */
int pdt_tensor_overlaps_partly(const pdt_tensor *v, const pdt_tensor *out);
/* 1 when the byte ranges a's and b's elements span meet (0 when either is empty). */
int pdt_tensor_spans_overlap(const pdt_tensor *a, const pdt_tensor *b);
/* Fills strides with the row-major (C-contiguous) strides of shape. */
void pdt_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides);
/* "(2, 3)", "(3,)" or "()" for ndim sizes, into buf; returns buf. */
const char *pdt_shape_str(int ndim, const int64_t *shape, char *buf, size_t n);
/* "a tensor of shape (2, 3) on cuda:0": t's sizes and device, for a message's closing
 * parentheses, into buf (PDT_WHERE_LEN bytes are enough for 16 dims); returns buf. */
#define PDT_WHERE_LEN 400
const char *pdt_tensor_where(const pdt_tensor *t, char *buf, size_t n);
/* 1 when a and b have the same shape. */
int pdt_same_shape(const pdt_tensor *a, const pdt_tensor *b);
/* Checks ndim and sizes (negative, overflow past 2^62 elements or bytes). */
pdt_status pdt_check_shape(int ndim, const int64_t *shape, pdt_dtype dtype, int64_t *numel);

/* A new contiguous tensor with uninitialised contents on device (shape may be
 * NULL when ndim is 0). */
pdt_status pdt_tensor_empty(pdt_device device, pdt_dtype dtype, int ndim, const int64_t *shape,
                            int storage_flags, pdt_tensor *out);
/* Note [memory order]
 * ~~~~~~~~~~~~~~~~~~~
 * A tensor's memory order is its dims sorted by stride, outermost first: the
 * identity for a row-major tensor, reversed for a transposed matrix.  The
 * result of an elementwise op (no out=) takes the memory order of its first
 * tensor operand that has the result's shape, as PyTorch's TensorIterator
 * gives results its operands' layout; contiguous operands keep giving
 * contiguous results.  So a.T + b.T, relu(a.T) and exp(a.T) read and write
 * their memory front to back, at the speed of contiguous inputs, and their
 * results are transposed (is_contiguous() False), on every device: the rule
 * lives in the core (pdt_result_order, used by pdt_elementwise.c), and the CPU
 * loops then walk the dims in the output's memory order (cpu_ew_walk.c).
 * where(cond, a, b) takes the order of the first of cond, a and b with the
 * result's shape (PyTorch's operand order; masked_fill(x, ...) takes x's, as
 * PyTorch's clone of x does), and hands the backend every operand seen in that
 * order, its output row-major there (pdt_index.c).  Copies within one device
 * (clone(), to(dtype), float()...) keep their source's memory order the same
 * way (pdt_copy_to_new_in_order, PyTorch's preserve_format); copies between
 * devices and contiguous() give row-major tensors.  Size-1 dims, stride-0
 * dims and negative strides say nothing about the order and stay in place; the
 * other dims are sorted around them (a (1000, 1, 1000) tensor permuted (2, 1, 0)
 * has the order (2, 1, 0)). */

/* Marks t as released, without touching its shape and strides: no storage,
 * no data, no dimensions (what a released tensor is read as).  Cheaper than
 * zeroing the whole struct, which on every op's temporaries showed as a
 * `rep stos` of 300 bytes in profiles. */
static inline void pdt_tensor_forget(pdt_tensor *t)
{
    t->storage = NULL;
    t->data = NULL;
    t->ndim = 0;
    t->offset = 0;
}

/* dst = src, the header (pdt_tensor_assign_header: all but the sizes and
 * strides) and the ndim sizes and strides in use, not all PDT_MAX_DIMS of
 * them; no reference is taken or dropped.  A whole-struct
 * copy is 304 bytes, a libc memcpy call (-mstringop-strategy=libcall): three
 * of them an op cost an argmax of one element 14 of its 174 ns. */
static inline void pdt_tensor_assign_header(pdt_tensor *dst, const pdt_tensor *src)
{
    dst->storage = src->storage;
    dst->data = src->data;
    dst->device = src->device;
    dst->dtype = src->dtype;
    dst->ndim = src->ndim;
    dst->offset = src->offset;
    dst->counter = src->counter;
}
static inline void pdt_tensor_assign(pdt_tensor *dst, const pdt_tensor *src)
{
    pdt_tensor_assign_header(dst, src);
    for (int i = 0; i < src->ndim; i++) {
        dst->shape[i] = src->shape[i];
        dst->strides[i] = src->strides[i];
    }
}
/* dst = src's header with its first n dims taken in the order perm gives
 * (dst->ndim = n; dst != src; no reference taken: dst lives no longer than src). */
static inline void pdt_tensor_permuted(pdt_tensor *dst, const pdt_tensor *src, int n,
                                       const int *perm)
{
    pdt_tensor_assign_header(dst, src);
    dst->ndim = n;
    for (int i = 0; i < n; i++) {
        dst->shape[i] = src->shape[perm[i]];
        dst->strides[i] = src->strides[perm[i]];
    }
}

/* perm (t->ndim entries): t's dims in memory order, outermost first.  Returns
 * 1 when that differs from the identity (t is not row-major). */
int pdt_memory_order(const pdt_tensor *t, int *perm);
/* 1 when t's first n dims lie as a row-major tensor with its dims taken in
 * perm's order would (channels-last: perm = (0, 2, 3, 1)); size-1 dims may have
 * any stride, as PyTorch's memory-format checks. */
int pdt_tensor_dense_in_order(const pdt_tensor *t, int n, const int *perm);
/* a and b of one shape (the caller checks): 1 when, in some memory order, they
 * lie dense and alike from their first elements on (both contiguous, or both
 * a.T of contiguous tensors...): numel consecutive slots in the same order. */
int pdt_same_dense_layout(const pdt_tensor *a, const pdt_tensor *b);
/* dst = src's header seen as one contiguous row of its numel elements (src dense
 * from its first element on; no reference taken: dst lives no longer than src). */
void pdt_tensor_flat(pdt_tensor *dst, const pdt_tensor *src);
/* The memory order a new result of the given shape takes (Note [memory order]):
 * that of the first of t0, t1, t2 (any may be NULL) with exactly that shape, into
 * perm; NULL when row-major (the common case, checked first). */
const int *pdt_result_order(const pdt_tensor *t0, const pdt_tensor *t1, const pdt_tensor *t2,
                            int ndim, const int64_t *shape, int *perm);
/* pdt_tensor_empty with the dims laid out in the order perm gives (outermost
 * first), dense; perm NULL: row-major. */
pdt_status pdt_tensor_empty_in_order(pdt_device device, pdt_dtype dtype, int ndim,
                                     const int64_t *shape, const int *perm, pdt_tensor *out);
/* A CPU tensor over foreign memory; release(ctx) runs when the last view dies. */
pdt_status pdt_tensor_wrap(pdt_device device, pdt_dtype dtype, int ndim, const int64_t *shape,
                           const int64_t *strides, void *data, size_t nbytes,
                           void (*release)(void *ctx), void *ctx, pdt_tensor *out);
/* out becomes a new view of src (same storage, one more reference). */
void pdt_tensor_share(pdt_tensor *out, const pdt_tensor *src);
/* Drops t's storage reference; t is left released (pdt_tensor_forget).  Safe
 * on a released or zeroed tensor. */
void pdt_tensor_release(pdt_tensor *t);

int pdt_tensor_is_pinned(const pdt_tensor *t);
size_t pdt_tensor_storage_nbytes(const pdt_tensor *t);
/* Number of views alive on t's storage (for tests of sharing). */
long pdt_tensor_storage_refcount(const pdt_tensor *t);
/* 1 when t's storage wraps memory that something else owns (pdt_tensor_wrap: a NumPy
 * array, a DLPack producer's buffer), which that owner may still read or write
 * whatever the storage's reference count: never reused as a temporary. */
int pdt_tensor_is_foreign(const pdt_tensor *t);

/* Note [version counter]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * Each storage counts the writes made to it in place (x.add_(y), x[i] = v,
 * copy_, fill_, out=, ...), so every view of it sees one counter.  Autograd
 * records the version of each tensor it saves for backward and refuses to
 * use one whose version moved (pydevtensor/autograd/node.py).  The bindings
 * bump it; the core and the backends never read it.  A storage keeps two
 * counters: PDT_COUNTER_OWN, that of the tensors made on it and their views
 * and detach()es, and PDT_COUNTER_DATA, that of `.data` and its views, which
 * PyTorch gives a version counter of its own: `w.data.mul_(2)` between the
 * forward and the backward is not seen by autograd, as in PyTorch (all .data
 * views of a storage share the second counter, where PyTorch gives each its
 * own).  t->counter says which; views copy it (pdt_tensor_assign). */
enum { PDT_COUNTER_OWN = 0, PDT_COUNTER_DATA = 1 };
int64_t pdt_tensor_version(const pdt_tensor *t);
void pdt_tensor_bump_version(const pdt_tensor *t);

#ifdef __cplusplus
}
#endif
#endif /* PDT_TENSOR_H */
