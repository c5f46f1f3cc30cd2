/* pdt_index.c - the validated entry points of pdt_index.h: where, index
 * checks, index_select/index_put, sort and cumsum. */
#include "pdt_index.h"

#include <string.h>

#include "pdt_backend.h"
#include "pdt_index_errors.h"
#include "pdt_reduce.h"
#include "pdt_runtime.h"
#include "pdt_view.h"

/* Every tensor in ts[0..n) on one device (the same-device rule). */
static pdt_status one_device(const char *op, int n, const pdt_tensor *const *ts,
                             const char *const *names, pdt_device *d)
{
    return pdt_same_device(op, n, ts, names, d);
}

static pdt_status bad_dtype(const char *op, const char *what, pdt_dtype got, const char *want,
                            pdt_device d)
{
    char dn[32];
    return pdt_fail(PDT_ERR_TYPE, "%s: %s must be %s, got %s (on %s)", op, what, want,
                    pdt_dtype_name(got), pdt_device_str(d, dn, sizeof dn));
}

static pdt_status shape_mismatch(const char *op, const char *what, const pdt_tensor *got,
                                 const pdt_tensor *want)
{
    char a[160], b[160], dn[32];
    return pdt_fail(PDT_ERR_VALUE, "%s: %s has shape %s, expected %s (on %s)", op, what,
                    pdt_shape_str(got->ndim, got->shape, a, sizeof a),
                    pdt_shape_str(want->ndim, want->shape, b, sizeof b),
                    pdt_device_str(want->device, dn, sizeof dn));
}

pdt_status pdt_where(const pdt_tensor *out, const pdt_tensor *cond, const pdt_tensor *a,
                     const pdt_tensor *b)
{
    const pdt_tensor *ts[4] = {out, cond, a, b};
    const char *names[4] = {"out", "condition", "input", "other"};
    pdt_device d;
    pdt_status st = one_device("where", 4, ts, names, &d);
    if (st != PDT_OK)
        return st;
    if (cond->dtype != PDT_BOOL)
        return bad_dtype("where", "condition", cond->dtype, "bool", d);
    if (a->dtype != out->dtype || b->dtype != out->dtype)
        return bad_dtype("where", "input and other", a->dtype != out->dtype ? a->dtype : b->dtype,
                         pdt_dtype_name(out->dtype), d);
    for (int i = 1; i < 4; i++)
        if (!pdt_same_shape(ts[i], out))
            return shape_mismatch("where", names[i], ts[i], out);
    if (!pdt_tensor_is_contiguous(out))
        return pdt_fail(PDT_ERR_VALUE, "where: the output must be contiguous");
    pdt_note_op("where", d);
    if (pdt_tensor_numel(out) == 0)
        return PDT_OK;
    return pdt_backend_of(d.kind)->where(out, cond, a, b);
}

pdt_status pdt_where_shape(const pdt_tensor *cond, const pdt_tensor *a, const pdt_tensor *b,
                           int *ndim, int64_t *shape)
{
    const pdt_tensor *ts[3] = {cond, a, b};
    int nd = 0;
    for (int k = 0; k < 3; k++)
        nd = ts[k]->ndim > nd ? ts[k]->ndim : nd;
    for (int i = 0; i < nd; i++) {
        shape[i] = 1;
        for (int k = 0; k < 3; k++) {
            int j = i - (nd - ts[k]->ndim);
            int64_t n = j < 0 ? 1 : ts[k]->shape[j];
            if (n == 1 || n == shape[i])
                continue;
            if (shape[i] != 1) {
                char s0[160], s1[160], s2[160], dn[32];
                return pdt_fail(PDT_ERR_VALUE,
                                "where: shapes %s, %s and %s cannot be broadcast together (size "
                                "%lld against %lld in dim %d; on %s)",
                                pdt_shape_str(cond->ndim, cond->shape, s0, sizeof s0),
                                pdt_shape_str(a->ndim, a->shape, s1, sizeof s1),
                                pdt_shape_str(b->ndim, b->shape, s2, sizeof s2),
                                (long long)shape[i], (long long)n, i,
                                pdt_device_str(a->device, dn, sizeof dn));
            }
            shape[i] = n;
        }
    }
    *ndim = nd;
    return PDT_OK;
}

pdt_status pdt_where_new(const pdt_tensor *cond, const pdt_tensor *a, const pdt_tensor *b, int ndim,
                         const int64_t *shape, int masked, pdt_tensor *out)
{
    const pdt_tensor *ts[3] = {cond, a, b};
    pdt_tensor v[3];
    for (int k = 0; k < 3; k++) /* cannot fail: the shapes broadcast (pdt_where_shape) */
        pdt_expand("where", ts[k], ndim, shape, &v[k]);
    /* PyTorch's operand order: the condition's layout first, then the values';
     * masked_fill(x, mask, v), here where(mask, v, x), clones x first there, so x
     * leads. */
    int perm[PDT_MAX_DIMS];
    const int *order = masked ? pdt_result_order(b, cond, a, ndim, shape, perm)
                              : pdt_result_order(cond, a, b, ndim, shape, perm);
    pdt_status st = pdt_tensor_empty_in_order(a->device, a->dtype, ndim, shape, order, out);
    if (st == PDT_OK) {
        if (order) { /* every operand seen in that order: out is row-major there */
            pdt_tensor po, pv[3];
            pdt_tensor_permuted(&po, out, ndim, order);
            for (int k = 0; k < 3; k++)
                pdt_tensor_permuted(&pv[k], &v[k], ndim, order);
            st = pdt_where(&po, &pv[0], &pv[1], &pv[2]);
        } else
            st = pdt_where(out, &v[0], &v[1], &v[2]);
        if (st != PDT_OK)
            pdt_tensor_release(out);
    }
    for (int k = 0; k < 3; k++)
        pdt_tensor_release(&v[k]);
    return st;
}

/* Reads a 0-d or 1-element int64 tensor's value on the host: from a device, an
 * implicit read by op (pdt_set_implicit_read). */
static pdt_status read_int64(const pdt_tensor *t, int64_t *v, const char *op)
{
    if (t->device.kind == PDT_CPU) {
        memcpy(v, pdt_tensor_ptr(t), sizeof *v);
        return PDT_OK;
    }
    pdt_tensor host;
    memset(&host, 0, sizeof host);
    pdt_device cpu = {PDT_CPU, 0};
    const char *saved = pdt_implicit_read();
    pdt_set_implicit_read(op);
    pdt_status st = pdt_copy_to_new(t, cpu, PDT_INT64, 0, 0, &host);
    pdt_set_implicit_read(saved);
    if (st == PDT_OK)
        memcpy(v, pdt_tensor_ptr(&host), sizeof *v);
    pdt_tensor_release(&host);
    return st;
}

/* PDT_OK when the index values lo..hi fit a dim of size (from the end too when
 * negative_ok), else the IndexError naming the first end that does not. */
static pdt_status index_range_status(const char *op, const pdt_tensor *index, int64_t size, int dim,
                                     int negative_ok, int64_t lo, int64_t hi)
{
    char dn[32];
    const int64_t first = negative_ok ? -size : 0;
    if (lo < first || hi >= size)
        return pdt_fail(PDT_ERR_INDEX,
                        "%s: index %lld is out of bounds for dimension %d with size %lld (on %s)",
                        op, (long long)(lo < first ? lo : hi), dim, (long long)size,
                        pdt_device_str(index->device, dn, sizeof dn));
    return PDT_OK;
}

/* 1 when every v[i] lies in [-shift, size): t = v[i] + shift and top - t are both in
 * [0, 2^63) for t in [0, top], top = shift + size - 1 < 2^63, and one of them has its top
 * bit set otherwise (t wraps there for v[i] near +-2^63); so the bits or'ed over the row,
 * in adds and ors the compiler vectorises, and one test.  The min and max, for the
 * message, only when a value is out. */
static int all_in_range(const int64_t *v, int64_t n, int64_t shift, int64_t size)
{
    const uint64_t top = (uint64_t)shift + (uint64_t)size - 1;
    uint64_t acc = 0;
    for (int64_t i = 0; i < n; i++) {
        const uint64_t t = (uint64_t)v[i] + (uint64_t)shift;
        acc |= t | (top - t);
    }
    return !(acc >> 63);
}

/* Queues the check on the index's device (Note [deferred index checks] in
 * pdt_index.h); a strided index is first copied contiguous there. */
static pdt_status index_check_async(const pdt_backend *b, const char *op, const pdt_tensor *index,
                                    int64_t size, int dim, int negative_ok, int *queued)
{
    const int code = pdt_index_op_code(op);
    if (pdt_tensor_is_contiguous(index))
        return b->index_check_async(index, size, dim, negative_ok, code, queued);
    pdt_tensor c;
    memset(&c, 0, sizeof c);
    pdt_status st = pdt_copy_to_new(index, index->device, PDT_INT64, 0, 0, &c);
    if (st == PDT_OK)
        st = b->index_check_async(&c, size, dim, negative_ok, code, queued);
    pdt_tensor_release(&c);
    return st;
}

pdt_status pdt_index_check(const char *op, const pdt_tensor *index, int64_t size, int dim,
                           int negative_ok, int deferred_ok)
{
    if (index->dtype != PDT_INT64)
        return bad_dtype(op, "the index", index->dtype, "int64", index->device);
    if (pdt_tensor_numel(index) == 0)
        return PDT_OK;
    const pdt_backend *b = pdt_backend_of(index->device.kind);
    if (deferred_ok && b->index_check_async && pdt_index_checks_on_device()) {
        int queued = 0; /* 0: the device cannot record errors; checked here */
        pdt_status st = index_check_async(b, op, index, size, dim, negative_ok, &queued);
        if (st != PDT_OK || queued)
            return st;
    }
    int64_t lo = 0, hi = 0;
    if (index->device.kind == PDT_CPU && pdt_tensor_is_contiguous(index) &&
        pdt_tensor_numel(index) <= ((int64_t)1 << 16)) {
        /* host memory: one pass here, not two reductions that each make a tensor:
         * x[v] of 15 / 64 rows of 64 float32 833 / 1,510 -> 495 / 1,130 ns (NumPy
         * 1,200 / 2,000 in the same minutes, the machine loaded).  Larger indices
         * keep the reductions, which split across the pool. */
        const int64_t *v = (const int64_t *)pdt_tensor_ptr(index), n = pdt_tensor_numel(index);
        if (all_in_range(v, n, negative_ok ? size : 0, size))
            return PDT_OK;
        lo = hi = v[0];
        for (int64_t i = 1; i < n; i++) {
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
        }
        return index_range_status(op, index, size, dim, negative_ok, lo, hi);
    }
    pdt_tensor t;
    memset(&t, 0, sizeof t);
    pdt_status st = pdt_reduce(PDT_REDUCE_MIN, index, -1, NULL, 0, -1, &t);
    if (st == PDT_OK)
        st = read_int64(&t, &lo, op);
    pdt_tensor_release(&t);
    if (st == PDT_OK)
        st = pdt_reduce(PDT_REDUCE_MAX, index, -1, NULL, 0, -1, &t);
    if (st == PDT_OK)
        st = read_int64(&t, &hi, op);
    pdt_tensor_release(&t);
    if (st != PDT_OK)
        return st;
    return index_range_status(op, index, size, dim, negative_ok, lo, hi);
}

/* Checks what index_select and index_put share: devices, dim, index, and
 * that `moved` has `full`'s shape except moved.shape[dim] == len(index). */
static pdt_status check_structure(const char *op, const pdt_tensor *full, const pdt_tensor *moved,
                                  int64_t dim, const pdt_tensor *index, const char *moved_name)
{
    const pdt_tensor *ts[3] = {full, moved, index};
    const char *names[3] = {"self", moved_name, "index"};
    pdt_device d;
    char a[160], b[160], dn[32];
    pdt_status st = one_device(op, 3, ts, names, &d);
    if (st != PDT_OK)
        return st;
    if (dim < 0 || dim >= full->ndim)
        return pdt_fail(PDT_ERR_INDEX, "%s: dim %lld out of range for a %d-d tensor (on %s)", op,
                        (long long)dim, full->ndim, pdt_device_str(d, dn, sizeof dn));
    if (index->ndim != 1 || !pdt_tensor_is_contiguous(index))
        return pdt_fail(PDT_ERR_VALUE, "%s: the index must be a contiguous 1-d tensor, got %s", op,
                        pdt_shape_str(index->ndim, index->shape, a, sizeof a));
    int ok = moved->ndim == full->ndim && moved->dtype == full->dtype;
    for (int i = 0; ok && i < full->ndim; i++)
        ok = moved->shape[i] == (i == dim ? index->shape[0] : full->shape[i]);
    if (!ok)
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: %s is %s %s, expected %s with size %lld in dim %lld (self is %s, on "
                        "%s)",
                        op, moved_name, pdt_dtype_name(moved->dtype),
                        pdt_shape_str(moved->ndim, moved->shape, a, sizeof a),
                        pdt_dtype_name(full->dtype), (long long)index->shape[0], (long long)dim,
                        pdt_shape_str(full->ndim, full->shape, b, sizeof b),
                        pdt_device_str(d, dn, sizeof dn));
    return PDT_OK;
}

pdt_status pdt_index_select(const pdt_tensor *out, const pdt_tensor *src, int64_t dim,
                            const pdt_tensor *index, int negative_ok, int deferred_ok)
{
    return pdt_index_select_as("index_select", out, src, dim, index, negative_ok, deferred_ok);
}

pdt_status pdt_index_select_as(const char *op, const pdt_tensor *out, const pdt_tensor *src,
                               int64_t dim, const pdt_tensor *index, int negative_ok,
                               int deferred_ok)
{
    /* a backend that checks as it reads, where a bad index may leave out half-written
     * (deferred_ok: out is the op's own result), negatives are in range and the kernel
     * reads every value (int64, out not empty) and can send a bad one to element 0 (size
     * > 0): one pass over the index, not two (x[v] of 25,000 of 1e5 float32, one thread:
     * 48 -> 41 us, NumPy 35) */
    const pdt_backend *b = pdt_backend_of(src->device.kind);
    pdt_status st = check_structure(op, src, out, dim, index, "out");
    if (st != PDT_OK)
        return st;
    const int after = b->index_select_checks && deferred_ok && negative_ok &&
                      index->dtype == PDT_INT64 && src->shape[dim] > 0 && pdt_tensor_numel(out) > 0;
    if (!after)
        st = pdt_index_check(op, index, src->shape[dim], (int)dim, negative_ok, deferred_ok);
    if (st != PDT_OK)
        return st;
    if (!pdt_tensor_is_contiguous(out))
        return pdt_fail(PDT_ERR_VALUE, "index_select: the output must be contiguous");
    pdt_note_op("index_select", src->device);
    if (pdt_tensor_numel(out) == 0)
        return PDT_OK;
    st = b->index_select(out, src, (int)dim, index);
    if (st == PDT_ERR_INDEX && after) { /* the message names the value, if it stayed */
        pdt_status named = pdt_index_check(op, index, src->shape[dim], (int)dim, 1, 0);
        return named != PDT_OK ? named : st;
    }
    return st;
}

/* What index_put and index_add share: the checks, and nothing to do when src
 * is empty (*empty set). */
static pdt_status check_put(const char *op, const pdt_tensor *dst, int64_t dim,
                            const pdt_tensor *index, const pdt_tensor *src, int deferred_ok,
                            int *empty)
{
    pdt_status st = check_structure(op, dst, src, dim, index, "values");
    if (st != PDT_OK)
        return st;
    if (pdt_tensor_internal_overlap(dst))
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: more than one element of the written-to tensor refers to a "
                        "single memory location; clone() it first",
                        op);
    /* noted before the index's values are checked: the logging may run Python, which
     * may write to the index; checked after, it is the index the kernel reads (a CPU
     * kernel need not copy it: Note [the index read where it is used] in cpu_index.c) */
    pdt_note_op(op, dst->device);
    st = pdt_index_check(op, index, dst->shape[dim], (int)dim, 1, deferred_ok);
    if (st != PDT_OK)
        return st;
    *empty = pdt_tensor_numel(src) == 0;
    return PDT_OK;
}

pdt_status pdt_index_put(const pdt_tensor *dst, int64_t dim, const pdt_tensor *index,
                         const pdt_tensor *src, int deferred_ok)
{
    int empty = 0;
    pdt_status st = check_put("index_put", dst, dim, index, src, deferred_ok, &empty);
    if (st != PDT_OK || empty)
        return st;
    return pdt_backend_of(dst->device.kind)->index_put(dst, (int)dim, index, src);
}

pdt_status pdt_index_add(const pdt_tensor *dst, int64_t dim, const pdt_tensor *index,
                         const pdt_tensor *src, int deferred_ok)
{
    char dn[32];
    if (dst->dtype != PDT_INT32 && dst->dtype != PDT_INT64 && dst->dtype != PDT_FLOAT32 &&
        dst->dtype != PDT_FLOAT64)
        return pdt_fail(PDT_ERR_UNSUPPORTED,
                        "index_add: dtype %s is not supported (int32, int64, float32 or "
                        "float64; on %s)",
                        pdt_dtype_name(dst->dtype), pdt_device_str(dst->device, dn, sizeof dn));
    int empty = 0;
    pdt_status st = check_put("index_add", dst, dim, index, src, deferred_ok, &empty);
    if (st != PDT_OK || empty)
        return st;
    return pdt_backend_of(dst->device.kind)->index_add(dst, (int)dim, index, src);
}

pdt_status pdt_sort(const pdt_tensor *x, int descending, pdt_tensor *values, pdt_tensor *indices)
{
    pdt_tensor sv, si;
    memset(&sv, 0, sizeof sv);
    memset(&si, 0, sizeof si);
    memset(values, 0, sizeof *values);
    memset(indices, 0, sizeof *indices);
    if (x->ndim == 0)
        return pdt_fail(PDT_ERR_VALUE, "sort: expected a tensor with at least one dim");
    pdt_device d = x->device;
    /* the half types sort as float32, exactly (Note [half precision arithmetic]) */
    pdt_dtype wide = pdt_compute_dtype(x->dtype);
    pdt_status st = pdt_copy_to_new(x, d, wide, 0, 0, values);
    if (st == PDT_OK)
        st = pdt_tensor_empty(d, PDT_INT64, x->ndim, x->shape, 0, indices);
    if (st == PDT_OK)
        st = pdt_tensor_empty(d, wide, x->ndim, x->shape, 0, &sv);
    if (st == PDT_OK)
        st = pdt_tensor_empty(d, PDT_INT64, x->ndim, x->shape, 0, &si);
    if (st == PDT_OK) {
        pdt_note_op("sort", d);
        if (pdt_tensor_numel(x) > 0)
            st = pdt_backend_of(d.kind)->sort(values, indices, &sv, &si, descending);
    }
    if (st == PDT_OK && wide != x->dtype) {
        pdt_tensor narrow = *values;
        st = pdt_copy_to_new(&narrow, d, x->dtype, 0, 0, values);
        pdt_tensor_release(&narrow);
        if (st != PDT_OK)
            memset(values, 0, sizeof *values);
    }
    pdt_tensor_release(&sv);
    pdt_tensor_release(&si);
    if (st != PDT_OK) {
        pdt_tensor_release(values);
        pdt_tensor_release(indices);
    }
    return st;
}

/* The result of nonzero or x[mask], made once the kernel has counted its rows
 * (pdt_make_rows) */
typedef struct {
    pdt_device device;
    pdt_dtype dtype;
    int ndim;
    int64_t shape[PDT_MAX_DIMS];
    pdt_tensor *out;
    void (*between)(void *arg);
    void *arg;
} mask_result;

static pdt_status make_mask_result(void *ctx, int64_t rows, const pdt_tensor **out)
{
    mask_result *r = ctx;
    if (r->out->storage) /* a second call would leak the first result */
        return pdt_fail(PDT_ERR_BACKEND, "nonzero: the kernel asked for its result twice");
    r->shape[0] = rows;
    pdt_status st = pdt_tensor_empty(r->device, r->dtype, r->ndim, r->shape, 0, r->out);
    if (st != PDT_OK)
        return st;
    if (r->between)
        r->between(r->arg);
    *out = r->out;
    return PDT_OK;
}

/* nonzero of mask (x NULL) or x[mask], checked, by the backend's kernel */
pdt_status pdt_mask_op(const pdt_tensor *x, const pdt_tensor *mask, void (*between)(void *arg),
                       void *arg, pdt_tensor *out)
{
    memset(out, 0, sizeof *out);
    char dev[32], mdev[32];
    const pdt_tensor *on = x ? x : mask;
    const pdt_backend *be = pdt_backend_of(on->device.kind);
    if (x ? !be->compress : !be->nonzero)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "%s: no kernel on %s", x ? "index" : "nonzero",
                        pdt_device_str(on->device, dev, sizeof dev));
    if (!x && (mask->dtype != PDT_BOOL || mask->ndim < 1))
        return pdt_fail(PDT_ERR_VALUE,
                        "nonzero: expected a bool tensor of at least one dim, got %s with %d "
                        "dims (on %s)",
                        pdt_dtype_name(mask->dtype), mask->ndim,
                        pdt_device_str(mask->device, dev, sizeof dev));
    if (x && (!pdt_device_eq(x->device, mask->device) || mask->dtype != PDT_BOOL ||
              mask->ndim != 1 || x->ndim < 1 || mask->shape[0] != x->shape[0] ||
              !pdt_tensor_is_contiguous(mask) || !pdt_tensor_is_contiguous(x)))
        return pdt_fail(PDT_ERR_VALUE,
                        "index: expected a contiguous 1-D bool mask of x's %lld rows on x's "
                        "device (%s), x contiguous, got %s mask of %d dims and %lld elements "
                        "on %s",
                        x->ndim ? (long long)x->shape[0] : 0LL,
                        pdt_device_str(x->device, dev, sizeof dev), pdt_dtype_name(mask->dtype),
                        mask->ndim, (long long)pdt_tensor_numel(mask),
                        pdt_device_str(mask->device, mdev, sizeof mdev));
    /* nonzero's kernel reads a contiguous mask: a view is copied here, after the
     * checks above, so that a device without the kernel copies nothing */
    pdt_tensor copy = {0};
    pdt_status st = PDT_OK;
    if (!pdt_tensor_is_contiguous(mask)) {
        st = pdt_copy_to_new(mask, mask->device, PDT_BOOL, 0, 0, &copy);
        if (st != PDT_OK)
            return st;
        mask = &copy;
    }
    mask_result r = {on->device, x ? x->dtype : PDT_INT64, x ? x->ndim : 2, {0}, out, between, arg};
    if (x)
        memcpy(r.shape, x->shape, (size_t)x->ndim * sizeof *r.shape);
    else
        r.shape[1] = mask->ndim;
    pdt_note_op(x ? "index" : "nonzero", on->device);
    st = x ? be->compress(x, mask, make_mask_result, &r) : be->nonzero(mask, make_mask_result, &r);
    if (st == PDT_OK && !out->storage)
        st = pdt_fail(PDT_ERR_BACKEND, "%s: the kernel returned no result",
                      x ? "index" : "nonzero");
    if (st != PDT_OK && out->storage)
        pdt_tensor_release(out);
    if (copy.storage)
        pdt_tensor_release(&copy);
    return st;
}

pdt_status pdt_nonzero(const pdt_tensor *mask, pdt_tensor *out)
{
    return pdt_mask_op(NULL, mask, NULL, NULL, out);
}

pdt_status pdt_compress(const pdt_tensor *x, const pdt_tensor *mask, pdt_tensor *out)
{
    return pdt_mask_op(x, mask, NULL, NULL, out);
}

pdt_status pdt_cumsum(const pdt_tensor *x, pdt_tensor *out)
{
    memset(out, 0, sizeof *out);
    if (x->ndim == 0)
        return pdt_fail(PDT_ERR_VALUE, "cumsum: expected a tensor with at least one dim");
    pdt_dtype dt = pdt_dtype_is_floating(x->dtype) ? x->dtype : PDT_INT64;
    /* Note [cumsum in float64] (pydevtensor/_ops_sort.py): floats sum in float64, each sum
     * rounded once to dt */
    pdt_dtype wide = pdt_dtype_is_floating(dt) ? PDT_FLOAT64 : dt;
    /* x already contiguous in the dtype of the sums (int64, float64): summed from where it
     * is into a new out (no copy first: 2e4 int64 on one CPU thread 14.0 -> 11.3 us) */
    const int direct = x->dtype == wide && pdt_tensor_is_contiguous(x);
    pdt_status st = direct ? pdt_tensor_empty(x->device, wide, x->ndim, x->shape, 0, out)
                           : pdt_copy_to_new(x, x->device, wide, 0, 0, out);
    if (st == PDT_OK) {
        pdt_note_op("cumsum", x->device);
        if (pdt_tensor_numel(out) > 0)
            st = pdt_backend_of(x->device.kind)->cumsum(out, direct ? x : out);
    }
    if (st == PDT_OK && wide != dt) {
        pdt_tensor sums = *out;
        st = pdt_copy_to_new(&sums, x->device, dt, 0, 0, out);
        pdt_tensor_release(&sums);
        if (st != PDT_OK)
            memset(out, 0, sizeof *out);
    }
    if (st != PDT_OK)
        pdt_tensor_release(out);
    return st;
}
