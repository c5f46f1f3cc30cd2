/* pdt_view.c - views over a tensor's storage: reshape/view, flatten,
 * transpose/permute, squeeze/unsqueeze, expand and basic indexing (see
 * pdt_view.h).  A view is pdt_tensor_share() plus a new shape, new strides and
 * a new offset; only reshape and flatten ever copy, and only when no strides can
 * describe the result. */
#include "pdt_view.h"

#include <stdio.h>
#include <string.h>

#include "pdt_ops.h"

pdt_status pdt_wrap_dim(const char *op, int64_t dim, const pdt_tensor *t, int *out)
{
    int ndim = t->ndim;
    int64_t n = ndim > 0 ? ndim : 1;
    char where[PDT_WHERE_LEN];
    if (dim < -n || dim >= n)
        return pdt_fail(PDT_ERR_INDEX,
                        "%s(): dimension out of range: got dim %lld for a tensor with %d "
                        "dimension%s (expected %lld <= dim < %lld) (%s)",
                        op, (long long)dim, ndim, ndim == 1 ? "" : "s", (long long)-n, (long long)n,
                        pdt_tensor_where(t, where, sizeof where));
    *out = (int)(dim < 0 ? dim + n : dim);
    return PDT_OK;
}

static pdt_status wrap_two_dims(const char *op, int64_t d0, int64_t d1, const pdt_tensor *t, int *a,
                                int *b)
{
    pdt_status st = pdt_wrap_dim(op, d0, t, a);
    return st == PDT_OK ? pdt_wrap_dim(op, d1, t, b) : st;
}

/* ------------------------------------------------------------ new shapes */

/* Resolves a -1 in shape (into resolved) against numel; checks the count. */
static pdt_status infer_shape(const char *op, const pdt_tensor *src, int ndim, const int64_t *shape,
                              int64_t *resolved)
{
    char a[200], b[200], where[PDT_WHERE_LEN];
    int64_t numel = pdt_tensor_numel(src), known = 1;
    int infer = -1;
    if (ndim < 0 || ndim > PDT_MAX_DIMS)
        return pdt_fail(PDT_ERR_VALUE, "%s(): tensors have at most %d dimensions, got %d", op,
                        PDT_MAX_DIMS, ndim);
    for (int i = 0; i < ndim; i++) {
        resolved[i] = shape[i];
        if (shape[i] == -1) {
            if (infer >= 0)
                return pdt_fail(PDT_ERR_VALUE,
                                "%s(): only one dimension can be inferred (-1), got shape %s (for "
                                "%s)",
                                op, pdt_shape_str(ndim, shape, a, sizeof a),
                                pdt_tensor_where(src, where, sizeof where));
            infer = i;
        } else if (shape[i] < 0) {
            return pdt_fail(PDT_ERR_VALUE,
                            "%s(): invalid size %lld at position %d of shape %s (for %s)", op,
                            (long long)shape[i], i, pdt_shape_str(ndim, shape, a, sizeof a),
                            pdt_tensor_where(src, where, sizeof where));
        } else if (shape[i] != 0 && known > INT64_MAX / shape[i]) {
            known = INT64_MAX; /* saturates; only a later 0 can bring it back */
        } else {
            known *= shape[i];
        }
    }
    if (infer >= 0 && known != 0 && numel % known == 0) {
        resolved[infer] = numel / known;
        return PDT_OK;
    }
    if (infer < 0 && known == numel)
        return PDT_OK;
    /* the shapes are written out only for a message: two of them were a quarter of a
     * microsecond on every reshape and view, 0.38 us in all against NumPy's 0.13 */
    char dev[32];
    pdt_shape_str(src->ndim, src->shape, a, sizeof a);
    pdt_shape_str(ndim, shape, b, sizeof b);
    pdt_device_str(src->device, dev, sizeof dev);
    if (infer >= 0 && known == 0)
        return pdt_fail(PDT_ERR_VALUE,
                        "%s(): cannot reshape a tensor of shape %s (%lld elements, on %s) into "
                        "shape %s: the size of the -1 dimension could be anything",
                        op, a, (long long)numel, dev, b);
    if (infer >= 0)
        return pdt_fail(PDT_ERR_VALUE,
                        "%s(): cannot reshape a tensor of shape %s (%lld elements, on %s) into "
                        "shape %s: %lld elements are not a multiple of %lld",
                        op, a, (long long)numel, dev, b, (long long)numel, (long long)known);
    return pdt_fail(PDT_ERR_VALUE,
                    "%s(): cannot reshape a tensor of shape %s (%lld elements, on %s) into shape "
                    "%s (%s%lld elements)",
                    op, a, (long long)numel, dev, b, known > PDT_MAX_NUMEL ? "more than " : "",
                    (long long)(known > PDT_MAX_NUMEL ? PDT_MAX_NUMEL : known));
}

/* Strides for viewing src as shape (same numel) without a copy, as PyTorch's
 * computeStride does: each run of src dims that are back to back in memory
 * may be split into new dims in any way; a new dim that spans two runs is
 * impossible.  Returns 0 when no strides exist. */
static int view_strides(const pdt_tensor *src, int ndim, const int64_t *shape, int64_t *strides)
{
    if (pdt_tensor_numel(src) == 0 || src->ndim == 0) {
        pdt_contiguous_strides(ndim, shape, strides);
        return 1;
    }
    int view_d = ndim - 1;
    int64_t chunk_stride = src->strides[src->ndim - 1];
    int64_t src_numel = 1, view_numel = 1;
    for (int d = src->ndim - 1; d >= 0; d--) {
        src_numel *= src->shape[d];
        /* Does a run of back-to-back dims end here? */
        if (d == 0 || (src->shape[d - 1] != 1 && src->strides[d - 1] != src_numel * chunk_stride)) {
            while (view_d >= 0 && (view_numel < src_numel || shape[view_d] == 1)) {
                strides[view_d] = view_numel * chunk_stride;
                view_numel *= shape[view_d];
                view_d--;
            }
            if (view_numel != src_numel)
                return 0;
            if (d > 0) {
                chunk_stride = src->strides[d - 1];
                src_numel = view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

static void set_view(pdt_tensor *out, const pdt_tensor *src, int ndim, const int64_t *shape,
                     const int64_t *strides)
{
    pdt_tensor_share(out, src);
    out->ndim = ndim;
    memcpy(out->shape, shape, (size_t)ndim * sizeof *shape);
    memcpy(out->strides, strides, (size_t)ndim * sizeof *strides);
}

/* view or reshape; copy_ok: make a contiguous copy when no view exists. */
static pdt_status new_shape(const char *op, const pdt_tensor *src, int ndim, const int64_t *shape,
                            int copy_ok, pdt_tensor *out)
{
    int64_t resolved[PDT_MAX_DIMS], strides[PDT_MAX_DIMS];
    pdt_status st = infer_shape(op, src, ndim, shape, resolved);
    if (st != PDT_OK)
        return st;
    pdt_note_op(op, src->device);
    if (view_strides(src, ndim, resolved, strides)) {
        set_view(out, src, ndim, resolved, strides);
        return PDT_OK;
    }
    if (!copy_ok) {
        char a[200], s[200], b[200], dev[32];
        return pdt_fail(PDT_ERR_VALUE,
                        "%s(): cannot view a tensor of shape %s with strides %s as shape %s (on "
                        "%s): a new dimension would span parts of the tensor that are not evenly "
                        "spaced in memory; use .reshape(), which copies when it must, or "
                        ".contiguous() first",
                        op, pdt_shape_str(src->ndim, src->shape, a, sizeof a),
                        pdt_shape_str(src->ndim, src->strides, s, sizeof s),
                        pdt_shape_str(ndim, resolved, b, sizeof b),
                        pdt_device_str(src->device, dev, sizeof dev));
    }
    pdt_tensor copy;
    st = pdt_copy_to_new(src, src->device, src->dtype, 0, 0, &copy);
    if (st != PDT_OK)
        return st;
    copy.ndim = ndim;
    memcpy(copy.shape, resolved, (size_t)ndim * sizeof *resolved);
    pdt_contiguous_strides(ndim, resolved, copy.strides);
    *out = copy;
    return PDT_OK;
}

pdt_status pdt_view(const pdt_tensor *src, int ndim, const int64_t *shape, pdt_tensor *out)
{
    return new_shape("view", src, ndim, shape, 0, out);
}

pdt_status pdt_reshape(const pdt_tensor *src, int ndim, const int64_t *shape, pdt_tensor *out)
{
    return new_shape("reshape", src, ndim, shape, 1, out);
}

pdt_status pdt_flatten(const pdt_tensor *src, int64_t start_dim, int64_t end_dim, pdt_tensor *out)
{
    int start = 0, end = 0;
    pdt_status st = wrap_two_dims("flatten", start_dim, end_dim, src, &start, &end);
    if (st != PDT_OK)
        return st;
    if (start > end)
        return pdt_fail(PDT_ERR_VALUE,
                        "flatten(): start_dim (%lld, dim %d) cannot come after end_dim (%lld, "
                        "dim %d) for a tensor with %d dimensions",
                        (long long)start_dim, start, (long long)end_dim, end, src->ndim);
    int64_t shape[PDT_MAX_DIMS];
    int ndim = 0;
    if (src->ndim == 0) {
        shape[ndim++] = 1;
    } else {
        for (int d = 0; d < start; d++)
            shape[ndim++] = src->shape[d];
        int64_t merged = 1;
        for (int d = start; d <= end; d++)
            merged *= src->shape[d];
        shape[ndim++] = merged;
        for (int d = end + 1; d < src->ndim; d++)
            shape[ndim++] = src->shape[d];
    }
    return new_shape("flatten", src, ndim, shape, 1, out);
}

/* ------------------------------------------------------ dims reordered */

pdt_status pdt_permute(const pdt_tensor *src, int n, const int64_t *dims, pdt_tensor *out)
{
    char where[PDT_WHERE_LEN];
    if (n != src->ndim)
        return pdt_fail(PDT_ERR_VALUE,
                        "permute(): the number of dims (%d) does not match the tensor's %d "
                        "dimensions (%s)",
                        n, src->ndim, pdt_tensor_where(src, where, sizeof where));
    int seen[PDT_MAX_DIMS] = {0}, perm[PDT_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        pdt_status st = pdt_wrap_dim("permute", dims[i], src, &perm[i]);
        if (st != PDT_OK)
            return st;
        if (seen[perm[i]]++)
            return pdt_fail(PDT_ERR_VALUE, "permute(): dim %d appears more than once", perm[i]);
    }
    pdt_note_op("permute", src->device);
    pdt_tensor_share(out, src);
    for (int i = 0; i < n; i++) {
        out->shape[i] = src->shape[perm[i]];
        out->strides[i] = src->strides[perm[i]];
    }
    return PDT_OK;
}

pdt_status pdt_transpose(const pdt_tensor *src, int64_t d0, int64_t d1, pdt_tensor *out)
{
    int a = 0, b = 0;
    pdt_status st = wrap_two_dims("transpose", d0, d1, src, &a, &b);
    if (st != PDT_OK)
        return st;
    pdt_note_op("transpose", src->device);
    pdt_tensor_share(out, src);
    if (src->ndim == 0)
        return PDT_OK;
    out->shape[a] = src->shape[b], out->strides[a] = src->strides[b];
    out->shape[b] = src->shape[a], out->strides[b] = src->strides[a];
    return PDT_OK;
}

pdt_status pdt_reverse_dims(const pdt_tensor *src, pdt_tensor *out)
{
    pdt_note_op("T", src->device);
    pdt_tensor_share(out, src);
    for (int i = 0; i < src->ndim; i++) {
        out->shape[i] = src->shape[src->ndim - 1 - i];
        out->strides[i] = src->strides[src->ndim - 1 - i];
    }
    return PDT_OK;
}

/* ------------------------------------------------- size-1 dims in and out */

pdt_status pdt_squeeze(const pdt_tensor *src, int n, const int64_t *dims, pdt_tensor *out)
{
    int drop[PDT_MAX_DIMS + 1] = {0}; /* + 1: a 0-d src's dims 0 and -1 both wrap to 0 */
    for (int i = 0; i < n; i++) {
        int d = 0;
        pdt_status st = pdt_wrap_dim("squeeze", dims[i], src, &d);
        if (st != PDT_OK)
            return st;
        if (drop[d]) /* as PyTorch's dim_list_to_bitset, which refuses (2, -1) of a 3-d */
            return pdt_fail(PDT_ERR_VALUE,
                            "squeeze(): dim %d appears multiple times in the list of dims "
                            "(got dim %lld for a tensor with %d dimensions)",
                            d, (long long)dims[i], src->ndim);
        drop[d] = 1;
    }
    pdt_note_op("squeeze", src->device);
    pdt_tensor_share(out, src);
    int k = 0;
    for (int d = 0; d < src->ndim; d++) {
        if (src->shape[d] == 1 && (n < 0 || drop[d]))
            continue;
        out->shape[k] = src->shape[d];
        out->strides[k] = src->strides[d];
        k++;
    }
    out->ndim = k;
    return PDT_OK;
}

/* Inserts a size-1 dim at position d of t (in place on a view). */
void pdt_insert_dim(pdt_tensor *t, int d)
{
    int64_t stride = d < t->ndim ? t->shape[d] * t->strides[d] : 1;
    memmove(t->shape + d + 1, t->shape + d, (size_t)(t->ndim - d) * sizeof t->shape[0]);
    memmove(t->strides + d + 1, t->strides + d, (size_t)(t->ndim - d) * sizeof t->strides[0]);
    t->shape[d] = 1;
    t->strides[d] = stride;
    t->ndim++;
}

static pdt_status too_many_dims(const char *op, int ndim)
{
    return pdt_fail(PDT_ERR_VALUE,
                    "%s(): the result would have %d dimensions; at most %d are "
                    "supported",
                    op, ndim, PDT_MAX_DIMS);
}

void pdt_slice_view(const pdt_tensor *src, int dim, int64_t i, pdt_tensor *out)
{
    pdt_tensor_share(out, src);
    out->offset += i * src->strides[dim];
    for (int d = dim; d < src->ndim - 1; d++)
        out->shape[d] = src->shape[d + 1], out->strides[d] = src->strides[d + 1];
    out->ndim = src->ndim - 1;
}

void pdt_narrow_view(const pdt_tensor *src, int dim, int64_t start, int64_t len, pdt_tensor *out)
{
    pdt_tensor_share(out, src);
    if (len) /* an empty piece keeps src's offset, as a slice of nothing does */
        out->offset += start * src->strides[dim];
    out->shape[dim] = len;
}

pdt_status pdt_unsqueeze(const pdt_tensor *src, int64_t dim, pdt_tensor *out)
{
    int n = src->ndim;
    if (n >= PDT_MAX_DIMS)
        return too_many_dims("unsqueeze", n + 1);
    char where[PDT_WHERE_LEN];
    if (dim < -n - 1 || dim > n)
        return pdt_fail(PDT_ERR_INDEX,
                        "unsqueeze(): dimension out of range: got dim %lld for a tensor with %d "
                        "dimension%s (expected %d <= dim <= %d) (%s)",
                        (long long)dim, n, n == 1 ? "" : "s", -n - 1, n,
                        pdt_tensor_where(src, where, sizeof where));
    int d = (int)(dim < 0 ? dim + n + 1 : dim);
    pdt_note_op("unsqueeze", src->device);
    pdt_tensor_share(out, src);
    pdt_insert_dim(out, d);
    return PDT_OK;
}

pdt_status pdt_expand(const char *op, const pdt_tensor *src, int ndim, const int64_t *shape,
                      pdt_tensor *out)
{
    int lead = src->ndim - ndim; /* leading src dims with no counterpart: must be 1 */
    for (int d = 0; d < lead; d++)
        if (src->shape[d] != 1)
            goto mismatch;
    int64_t strides[PDT_MAX_DIMS];
    for (int d = 0; d < ndim; d++) {
        int s = d - (ndim - src->ndim); /* the matching src dim, or < 0 */
        if (s < 0)
            strides[d] = 0;
        else if (src->shape[s] == shape[d])
            strides[d] = src->strides[s];
        else if (src->shape[s] == 1)
            strides[d] = 0;
        else
            goto mismatch;
    }
    int64_t numel; /* a view's element count must fit too (numel(), flatten, offsets) */
    if (pdt_check_shape(ndim, shape, src->dtype, &numel) != PDT_OK) {
        char a[200], b[200], what[400];
        snprintf(what, sizeof what, "%s", pdt_last_error());
        return pdt_fail(PDT_ERR_VALUE,
                        "%s(): cannot broadcast a tensor of shape %s to shape %s: %s", op,
                        pdt_shape_str(src->ndim, src->shape, a, sizeof a),
                        pdt_shape_str(ndim, shape, b, sizeof b), what);
    }
    pdt_note_op("expand", src->device);
    set_view(out, src, ndim, shape, strides);
    return PDT_OK;
mismatch:;
    char a[200], b[200], dev[32];
    return pdt_fail(PDT_ERR_VALUE,
                    "%s(): a tensor of shape %s (on %s) cannot be broadcast to shape %s", op,
                    pdt_shape_str(src->ndim, src->shape, a, sizeof a),
                    pdt_device_str(src->device, dev, sizeof dev),
                    pdt_shape_str(ndim, shape, b, sizeof b));
}

void pdt_flip_view(const pdt_tensor *src, uint32_t dims, pdt_tensor *out)
{
    set_view(out, src, src->ndim, src->shape, src->strides);
    for (int d = 0; d < src->ndim; d++) {
        if (!(dims >> d & 1u) || src->shape[d] == 0)
            continue;
        out->offset += (src->shape[d] - 1) * src->strides[d];
        out->strides[d] = -src->strides[d];
    }
    pdt_note_op("flip", src->device);
}

pdt_status pdt_diagonal_view(const pdt_tensor *src, int64_t offset, int64_t dim1, int64_t dim2,
                             pdt_tensor *out)
{
    char shape_buf[200], dev_buf[64];
    int a = 0, b = 0;
    if (src->ndim < 2)
        return pdt_fail(PDT_ERR_VALUE,
                        "diagonal(): expected a tensor of at least 2 dimensions, got shape %s "
                        "(on %s)",
                        pdt_shape_str(src->ndim, src->shape, shape_buf, sizeof shape_buf),
                        pdt_device_str(src->device, dev_buf, sizeof dev_buf));
    pdt_status st = wrap_two_dims("diagonal", dim1, dim2, src, &a, &b);
    if (st != PDT_OK)
        return st;
    if (a == b)
        return pdt_fail(PDT_ERR_VALUE,
                        "diagonal dimensions cannot be identical %lld, %lld (a tensor of shape "
                        "%s on %s)",
                        (long long)dim1, (long long)dim2,
                        pdt_shape_str(src->ndim, src->shape, shape_buf, sizeof shape_buf),
                        pdt_device_str(src->device, dev_buf, sizeof dev_buf));
    pdt_note_op("diagonal", src->device);
    int64_t n = src->shape[a], m = src->shape[b], len = 0, first = 0;
    if (offset >= 0 && offset < m) {
        len = n < m - offset ? n : m - offset;
        first = offset * src->strides[b];
    } else if (offset < 0 && offset > -n) {
        len = n + offset < m ? n + offset : m;
        first = -offset * src->strides[a];
    }
    pdt_tensor_share(out, src);
    int k = 0;
    for (int d = 0; d < src->ndim; d++) {
        if (d == a || d == b)
            continue;
        out->shape[k] = src->shape[d];
        out->strides[k++] = src->strides[d];
    }
    out->shape[k] = len;
    out->strides[k] = src->strides[a] + src->strides[b];
    out->ndim = k + 1;
    if (len > 0)
        out->offset += first;
    return PDT_OK;
}

/* -------------------------------------------------------------- indexing */

/* Python's slice.indices() for a dim of size len: *first and *count. */
static void slice_bounds(int64_t len, int64_t start, int64_t stop, int64_t step, int64_t *first,
                         int64_t *count)
{
    /* Clamp each bound to [-1, len] (negative step) or [0, len] (positive). */
    int64_t lo = step < 0 ? -1 : 0, hi = step < 0 ? len - 1 : len;
    if (start < 0)
        start = start < -len ? lo : start + len;
    else if (start > hi)
        start = hi;
    if (stop < 0)
        stop = stop < -len ? lo : stop + len;
    else if (stop > hi)
        stop = hi;
    *first = start;
    if (step > 0)
        *count = start < stop ? (stop - start - 1) / step + 1 : 0;
    else
        *count = stop < start ? (start - stop - 1) / (-step) + 1 : 0;
}

pdt_status pdt_index_view(const pdt_tensor *src, int n, const pdt_index *items, pdt_tensor *out)
{
    int consumed = 0, ellipsis = -1, added = 0;
    for (int i = 0; i < n; i++) {
        if (items[i].kind == PDT_INDEX_ELLIPSIS) {
            if (ellipsis >= 0)
                return pdt_fail(PDT_ERR_INDEX, "an index can only have a single ellipsis ('...')");
            ellipsis = i;
        } else if (items[i].kind == PDT_INDEX_NEWAXIS) {
            added++;
        } else {
            consumed++;
            if (items[i].kind == PDT_INDEX_SLICE && items[i].step == 0)
                return pdt_fail(PDT_ERR_VALUE, "slice step cannot be zero");
        }
    }
    char where[PDT_WHERE_LEN];
    if (consumed > src->ndim)
        return pdt_fail(PDT_ERR_INDEX,
                        "too many indices for a tensor of dimension %d: %d were given (%s)",
                        src->ndim, consumed, pdt_tensor_where(src, where, sizeof where));
    int result_ndim = src->ndim - consumed + added;
    for (int i = 0; i < n; i++)
        if (items[i].kind == PDT_INDEX_SLICE)
            result_ndim++;
    if (result_ndim > PDT_MAX_DIMS)
        return too_many_dims("index", result_ndim);

    pdt_tensor v;
    memset(&v, 0, sizeof v);
    v.offset = src->offset;
    int d = 0; /* the next dim of src */
    for (int i = 0; i < n; i++) {
        const pdt_index *it = &items[i];
        if (it->kind == PDT_INDEX_ELLIPSIS) {
            int full = src->ndim - consumed; /* dims the ellipsis stands for */
            for (int j = 0; j < full; j++, d++) {
                v.shape[v.ndim] = src->shape[d];
                v.strides[v.ndim++] = src->strides[d];
            }
        } else if (it->kind == PDT_INDEX_NEWAXIS) {
            v.shape[v.ndim] = 1;
            v.strides[v.ndim++] = d < src->ndim ? src->shape[d] * src->strides[d] : 1;
        } else if (it->kind == PDT_INDEX_INT) {
            int64_t size = src->shape[d], pos = it->i < 0 ? it->i + size : it->i;
            if (pos < 0 || pos >= size)
                return pdt_fail(PDT_ERR_INDEX,
                                "index %lld is out of bounds for dimension %d with size %lld (%s)",
                                (long long)it->i, d, (long long)size,
                                pdt_tensor_where(src, where, sizeof where));
            v.offset += pos * src->strides[d];
            d++;
        } else {
            int64_t first, count;
            slice_bounds(src->shape[d], it->start, it->stop, it->step, &first, &count);
            if (count > 0)
                v.offset += first * src->strides[d];
            v.shape[v.ndim] = count;
            /* step * stride, as PyTorch's, for a dim of one element or none too (its
             * stride is never used to address); past int64 only there (two elements fit
             * in the storage's span), where the dim keeps its stride */
            if (__builtin_mul_overflow(src->strides[d], it->step, &v.strides[v.ndim]))
                v.strides[v.ndim] = src->strides[d];
            v.ndim++;
            d++;
        }
    }
    for (; d < src->ndim; d++) { /* no ellipsis: the rest are full slices */
        v.shape[v.ndim] = src->shape[d];
        v.strides[v.ndim++] = src->strides[d];
    }
    pdt_note_op("index", src->device);
    int64_t offset = v.offset;
    set_view(out, src, v.ndim, v.shape, v.strides);
    out->offset = offset;
    return PDT_OK;
}

pdt_status pdt_unfold_view(const pdt_tensor *src, int dim, int64_t size, int64_t step,
                           pdt_tensor *out)
{
    char dev[64];
    if (src->ndim >= PDT_MAX_DIMS)
        return pdt_fail(PDT_ERR_VALUE,
                        "unfold(): a tensor of %d dims has no room for the "
                        "window's dim; at most %d (on %s)",
                        src->ndim, PDT_MAX_DIMS, pdt_device_str(src->device, dev, sizeof dev));
    const int zero_d = src->ndim == 0;
    if (dim < 0 || dim >= (zero_d ? 1 : src->ndim)) /* before shape[dim] is read */
        return pdt_fail(PDT_ERR_INDEX, "unfold(): dim %d out of range for %d dims (on %s)", dim,
                        src->ndim, pdt_device_str(src->device, dev, sizeof dev));
    const int64_t len = zero_d ? 1 : src->shape[dim], stride = zero_d ? 1 : src->strides[dim];
    if (size < 0 || size > len || step <= 0)
        return pdt_fail(PDT_ERR_VALUE,
                        "unfold(): dim %d, size %lld, step %lld for a length "
                        "of %lld (on %s)",
                        dim, (long long)size, (long long)step, (long long)len,
                        pdt_device_str(src->device, dev, sizeof dev));
    pdt_note_op("unfold", src->device);
    pdt_tensor_share(out, src);
    if (zero_d) { /* (1,) -> (windows, size) less the leading dim: (size,) */
        out->ndim = 1;
        out->shape[0] = size;
        out->strides[0] = stride;
        return PDT_OK;
    }
    out->shape[dim] = (len - size) / step + 1;
    /* past int64 only with one window (two fit in the view's span), whose stride is unused */
    if (__builtin_mul_overflow(stride, step, &out->strides[dim]))
        out->strides[dim] = stride;
    out->shape[out->ndim] = size;
    out->strides[out->ndim] = stride;
    out->ndim++;
    return PDT_OK;
}

pdt_status pdt_as_strided_view(const pdt_tensor *src, int ndim, const int64_t *shape,
                               const int64_t *strides, int64_t offset, pdt_tensor *out)
{
    char shape_buf[200], stride_buf[200], dev_buf[64];
    const char *dev = pdt_device_str(src->device, dev_buf, sizeof dev_buf);
    if (ndim < 0 || ndim > PDT_MAX_DIMS)
        return pdt_fail(PDT_ERR_VALUE, "as_strided(): %d dimensions; at most %d (on %s)", ndim,
                        PDT_MAX_DIMS, dev);
    if (offset < 0)
        return pdt_fail(PDT_ERR_VALUE,
                        "as_strided(): Tensor: invalid storage offset %lld; it must be >= 0 "
                        "(on %s)",
                        (long long)offset, dev);
    int64_t last = offset, numel = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0 || strides[d] < 0)
            return pdt_fail(PDT_ERR_VALUE,
                            "as_strided(): size %lld and stride %lld of dim %d: sizes and "
                            "strides must be >= 0 (on %s)",
                            (long long)shape[d], (long long)strides[d], d, dev);
        if (shape[d] > 0 && strides[d] > (INT64_MAX - last) / shape[d])
            return pdt_fail(PDT_ERR_VALUE, "as_strided(): the view's extent overflows (on %s)",
                            dev);
        if (shape[d] > 0)
            last += (shape[d] - 1) * strides[d];
    }
    /* the element count as every other shape is checked: a product that wrapped (sizes
     * (2^32, 2^32) make exactly 0) would skip the bounds check below, and a stride of 0
     * keeps the extent small, leaving a view of any offset on any storage */
    if (pdt_check_shape(ndim, shape, src->dtype, &numel) != PDT_OK)
        return pdt_fail(PDT_ERR_VALUE,
                        "as_strided(): sizes %s of %s would hold more than 2^62 bytes (on %s)",
                        pdt_shape_str(ndim, shape, shape_buf, sizeof shape_buf),
                        pdt_dtype_name(src->dtype), dev);
    int64_t elems = (int64_t)(pdt_tensor_storage_nbytes(src) / pdt_dtype_size(src->dtype));
    if (numel > 0 && last >= elems)
        return pdt_fail(PDT_ERR_VALUE,
                        "as_strided(): setStorage: sizes %s, strides %s and storage offset %lld "
                        "reach element %lld, out of bounds for a storage of %lld elements "
                        "(%s, on %s)",
                        pdt_shape_str(ndim, shape, shape_buf, sizeof shape_buf),
                        pdt_shape_str(ndim, strides, stride_buf, sizeof stride_buf),
                        (long long)offset, (long long)last, (long long)elems,
                        pdt_dtype_name(src->dtype), dev);
    pdt_note_op("as_strided", src->device);
    pdt_tensor_share(out, src);
    out->ndim = ndim;
    out->offset = offset;
    for (int d = 0; d < ndim; d++) {
        out->shape[d] = shape[d];
        out->strides[d] = strides[d];
    }
    return PDT_OK;
}
