/* pdt_tensor.c - refcounted storage, accounted allocation, and views. */
#include "pdt_tensor.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdt_runtime.h"

struct pdt_storage {
    atomic_long refcount;
    pdt_device device;
    void *data;
    size_t nbytes;
    int flags;                  /* PDT_STORAGE_PINNED */
    int accounted;              /* counted in the device's memory stats */
    void (*release)(void *ctx); /* foreign memory: how to give it back */
    void *release_ctx;
    /* Note [version counter] (pdt_tensor.h): bumped by every write through
     * the bindings, [t->counter] for a view t.  new_header starts them at 0. */
    atomic_llong version[2];
};

int64_t pdt_tensor_numel(const pdt_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->shape[i];
    return n;
}

void pdt_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides)
{
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = s;
        s *= shape[i] > 1 ? shape[i] : 1;
    }
}

int pdt_tensor_is_contiguous(const pdt_tensor *t)
{
    for (int i = 0; i < t->ndim; i++)
        if (t->shape[i] == 0)
            return 1; /* no element to lay out, whatever the strides (as c10's numel == 0) */
    int64_t s = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->shape[i] != 1 && t->strides[i] != s)
            return 0;
        s *= t->shape[i];
    }
    return 1;
}

pdt_status pdt_check_shape(int ndim, const int64_t *shape, pdt_dtype dtype, int64_t *numel)
{
    if (ndim < 0 || ndim > PDT_MAX_DIMS)
        return pdt_fail(PDT_ERR_VALUE, "tensors have at most %d dimensions, got %d", PDT_MAX_DIMS,
                        ndim);
    if (!pdt_dtype_valid((int)dtype))
        return pdt_fail(PDT_ERR_TYPE, "invalid dtype %d", (int)dtype);
    int64_t n = 1;
    int overflow = 0;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return pdt_fail(PDT_ERR_VALUE,
                            "negative dimension %lld at position %d of a %d-d shape: sizes must "
                            "be >= 0",
                            (long long)shape[i], i, ndim);
        if (shape[i] != 0 && n > PDT_MAX_NUMEL / shape[i])
            overflow = 1;
        else
            n *= shape[i];
    }
    for (int i = 0; i < ndim; i++)
        if (shape[i] == 0)
            overflow = 0, n = 0;
    if (overflow || n > PDT_MAX_NUMEL / (int64_t)pdt_dtype_size(dtype))
        return pdt_fail(PDT_ERR_VALUE,
                        "a %d-d %s tensor of that shape would hold more than 2^62 bytes "
                        "(first sizes %lld x %lld ...)",
                        ndim, pdt_dtype_name(dtype), (long long)shape[0],
                        (long long)(ndim > 1 ? shape[1] : 1));
    *numel = n;
    return PDT_OK;
}

/* A storage header with one reference, no data and version 0.  malloc, not
 * calloc: glibc's calloc skips its per-thread cache (tcache) and takes the
 * slower bins path, which was a tenth of the time of an op on one element. */
static pdt_storage *new_header(void)
{
    pdt_storage *s = malloc(sizeof *s);
    if (!s)
        return NULL;
    /* field by field: GCC turns malloc followed by a memset to 0 into calloc */
    atomic_init(&s->refcount, 1);
    s->device = (pdt_device){PDT_CPU, 0};
    s->data = NULL;
    s->nbytes = 0;
    s->flags = 0;
    s->accounted = 0;
    s->release = NULL;
    s->release_ctx = NULL;
    atomic_init(&s->version[PDT_COUNTER_OWN], 0);
    atomic_init(&s->version[PDT_COUNTER_DATA], 0);
    return s;
}

static pdt_status storage_new(pdt_device device, size_t nbytes, int flags, pdt_storage **out)
{
    pdt_status st = pdt_device_check(device);
    if (st != PDT_OK)
        return st;
    const pdt_backend *b = pdt_backend_of(device.kind);
    const pdt_backend *pinner = NULL;
    if (flags & PDT_STORAGE_PINNED) {
        if (device.kind != PDT_CPU)
            return pdt_fail(PDT_ERR_VALUE, "only CPU memory can be pinned");
        for (int k = 0; k < PDT_NUM_KINDS && !pinner; k++) {
            const pdt_backend *o = pdt_backend_of(k);
            if (o && o->host_alloc && pdt_device_count(k) > 0)
                pinner = o;
        }
        if (!pinner)
            return pdt_fail(PDT_ERR_DEVICE,
                            "cannot pin %zu bytes of host memory: pinning needs a CUDA device, "
                            "and none is available",
                            nbytes);
    }
    pdt_storage *s = new_header();
    if (!s)
        return pdt_memory_fail_oom(device, sizeof *s, "storage header");
    if (nbytes > 0) {
        st = pdt_memory_reserve(device, nbytes);
        if (st != PDT_OK) {
            free(s);
            return st;
        }
        st = pinner ? pinner->host_alloc(nbytes, &s->data)
                    : b->alloc(device.index, nbytes, &s->data);
        if (st != PDT_OK) {
            char why[256];
            strncpy(why, pdt_last_error(), sizeof why - 1);
            why[sizeof why - 1] = '\0';
            pdt_memory_unreserve(device, nbytes);
            free(s);
            return st == PDT_ERR_OOM ? pdt_memory_fail_oom(device, nbytes, why) : st;
        }
        s->accounted = 1;
    }
    atomic_init(&s->refcount, 1);
    s->device = device;
    s->nbytes = nbytes;
    s->flags = flags;
    *out = s;
    return PDT_OK;
}

/* Note [releasing foreign memory]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Memory imported from another library (DLPack, the CUDA array interface)
 * goes back to its producer when our last reference goes: its deleter runs,
 * or the owning object is dropped, and the producer may free or reuse the
 * memory at once.  Our work on a device is asynchronous: kernels and copies
 * still queued on the device's stream may read or write that memory.  So for
 * device memory the stream is synchronised first: the release is ordered
 * after every op we queued on the device.  (Our own memory needs no wait: the
 * pool's cudaFreeAsync is itself ordered on the stream.)  A failed wait
 * cannot be reported from here; the release goes ahead, as CUDA would report
 * the same error to the producer's next call. */
static void release_foreign(pdt_storage *s)
{
    if (s->device.kind != PDT_CPU) {
        const pdt_backend *b = pdt_backend_of(s->device.kind);
        if (b && b->synchronize)
            (void)b->synchronize(s->device.index);
    }
    s->release(s->release_ctx);
}

static void storage_decref(pdt_storage *s)
{
    if (!s || atomic_fetch_sub(&s->refcount, 1) != 1)
        return;
    if (s->release) {
        release_foreign(s); /* Note [releasing foreign memory] */
    } else if (s->data) {
        if (s->flags & PDT_STORAGE_PINNED) {
            for (int k = 0; k < PDT_NUM_KINDS; k++) {
                const pdt_backend *o = pdt_backend_of(k);
                if (o && o->host_free) {
                    o->host_free(s->data, s->nbytes);
                    break;
                }
            }
        } else {
            pdt_backend_of(s->device.kind)->free(s->device.index, s->data, s->nbytes);
        }
    }
    if (s->accounted)
        pdt_memory_unreserve(s->device, s->nbytes);
    free(s);
}

pdt_status pdt_tensor_empty(pdt_device device, pdt_dtype dtype, int ndim, const int64_t *shape,
                            int storage_flags, pdt_tensor *out)
{
    int64_t numel = 0; /* set on success; 0 for the compiler's flow analysis */
    pdt_status st = pdt_check_shape(ndim, shape, dtype, &numel);
    if (st != PDT_OK)
        return st;
    pdt_storage *s;
    st = storage_new(device, (size_t)numel * pdt_dtype_size(dtype), storage_flags, &s);
    if (st != PDT_OK)
        return st;
    out->storage = s;
    out->data = s->data;
    out->device = device;
    out->dtype = dtype;
    out->ndim = ndim;
    out->offset = 0;
    out->counter = PDT_COUNTER_OWN;
    if (ndim > 0) /* a 0-d tensor's shape may be NULL */
        memcpy(out->shape, shape, (size_t)ndim * sizeof *shape);
    pdt_contiguous_strides(ndim, shape, out->strides);
    return PDT_OK;
}

pdt_status pdt_tensor_wrap(pdt_device device, pdt_dtype dtype, int ndim, const int64_t *shape,
                           const int64_t *strides, void *data, size_t nbytes,
                           void (*release)(void *ctx), void *ctx, pdt_tensor *out)
{
    int64_t numel;
    pdt_status st = pdt_check_shape(ndim, shape, dtype, &numel);
    if (st != PDT_OK)
        return st;
    st = pdt_device_check(device);
    if (st != PDT_OK)
        return st;
    pdt_storage *s = new_header();
    if (!s)
        return pdt_memory_fail_oom(device, sizeof *s, "storage header");
    atomic_init(&s->refcount, 1);
    s->device = device;
    s->data = data;
    s->nbytes = nbytes;
    s->release = release;
    s->release_ctx = ctx;
    out->storage = s;
    out->data = data;
    out->device = device;
    out->dtype = dtype;
    out->ndim = ndim;
    out->offset = 0;
    out->counter = PDT_COUNTER_OWN;
    memcpy(out->shape, shape, (size_t)ndim * sizeof *shape);
    memcpy(out->strides, strides, (size_t)ndim * sizeof *strides);
    return PDT_OK;
}

void pdt_tensor_share(pdt_tensor *out, const pdt_tensor *src)
{
    if (src->storage)
        atomic_fetch_add(&src->storage->refcount, 1);
    if (out != src)
        pdt_tensor_assign(out, src);
}

void pdt_tensor_release(pdt_tensor *t)
{
    pdt_storage *s = t->storage;
    pdt_tensor_forget(t);
    storage_decref(s);
}

int pdt_tensor_is_pinned(const pdt_tensor *t)
{
    return t->storage && (t->storage->flags & PDT_STORAGE_PINNED);
}

size_t pdt_tensor_storage_nbytes(const pdt_tensor *t)
{
    return t->storage ? t->storage->nbytes : 0;
}

long pdt_tensor_storage_refcount(const pdt_tensor *t)
{
    return t->storage ? atomic_load(&t->storage->refcount) : 0;
}

int pdt_tensor_is_foreign(const pdt_tensor *t) { return t->storage && t->storage->release != NULL; }

int64_t pdt_tensor_version(const pdt_tensor *t)
{
    return t->storage ? (int64_t)atomic_load(&t->storage->version[t->counter & 1]) : 0;
}

void pdt_tensor_bump_version(const pdt_tensor *t)
{
    if (t->storage)
        atomic_fetch_add(&t->storage->version[t->counter & 1], 1);
}

const char *pdt_shape_str(int ndim, const int64_t *shape, char *buf, size_t n)
{
    size_t used = (size_t)snprintf(buf, n, "(");
    for (int i = 0; i < ndim && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%lld", i ? ", " : "",
                                 (long long)shape[i]);
    if (used < n)
        snprintf(buf + used, n - used, ndim == 1 ? ",)" : ")");
    return buf;
}

const char *pdt_tensor_where(const pdt_tensor *t, char *buf, size_t n)
{
    char shape[PDT_WHERE_LEN - 64], dev[32];
    snprintf(buf, n, "a tensor of shape %s on %s",
             pdt_shape_str(t->ndim, t->shape, shape, sizeof shape),
             pdt_device_str(t->device, dev, sizeof dev));
    return buf;
}

int pdt_same_shape(const pdt_tensor *a, const pdt_tensor *b)
{
    if (a->ndim != b->ndim)
        return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i])
            return 0;
    return 1;
}

/* The byte range [*lo, *hi) that t's elements span. */
static void byte_span(const pdt_tensor *t, const char **lo, const char **hi)
{
    int64_t elsize = (int64_t)pdt_dtype_size(t->dtype);
    const char *base = pdt_tensor_ptr(t);
    int64_t below = 0, above = elsize;
    for (int i = 0; i < t->ndim; i++) {
        int64_t ext = (t->shape[i] - 1) * t->strides[i] * elsize;
        if (ext < 0)
            below += ext;
        else
            above += ext;
    }
    *lo = base + below;
    *hi = base + above;
}

int pdt_tensor_overlaps_partly(const pdt_tensor *v, const pdt_tensor *out)
{
    const char *vlo, *vhi, *olo, *ohi;
    byte_span(v, &vlo, &vhi);
    byte_span(out, &olo, &ohi);
    if (vhi <= olo || ohi <= vlo)
        return 0;
    if (pdt_tensor_ptr(v) != pdt_tensor_ptr(out) || v->dtype != out->dtype)
        return 1;
    for (int i = 0; i < out->ndim; i++)
        if (out->shape[i] > 1 && v->strides[i] != out->strides[i])
            return 1;
    return 0;
}

int pdt_tensor_spans_overlap(const pdt_tensor *a, const pdt_tensor *b)
{
    if (pdt_tensor_numel(a) == 0 || pdt_tensor_numel(b) == 0)
        return 0;
    const char *alo, *ahi, *blo, *bhi;
    byte_span(a, &alo, &ahi);
    byte_span(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

/* 1 when two elements of t may share one memory location (its internal
 * overlap, as PyTorch's has_internal_overlap sees a stride 0, and also rows
 * that overlap, as np.lib.stride_tricks.as_strided makes them): the dims of
 * size > 1, by increasing |stride|, must each step past everything the
 * smaller ones reach.  An empty tensor has no element to share. */
int pdt_tensor_internal_overlap(const pdt_tensor *t)
{
    int64_t st[PDT_MAX_DIMS], sz[PDT_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (t->shape[i] == 0)
            return 0;
        if (t->shape[i] == 1)
            continue;
        int64_t a = t->strides[i] < 0 ? -t->strides[i] : t->strides[i];
        int j = n++;
        for (; j > 0 && st[j - 1] > a; j--)
            st[j] = st[j - 1], sz[j] = sz[j - 1];
        st[j] = a, sz[j] = t->shape[i];
    }
    int64_t reach = 0; /* the largest offset the smaller dims reach */
    for (int i = 0; i < n; i++) {
        if (st[i] <= reach)
            return 1;
        reach += (sz[i] - 1) * st[i];
    }
    return 0;
}

/* ---- memory order (Note [memory order] in pdt_tensor.h) ---- */

int pdt_memory_order(const pdt_tensor *t, int *perm)
{
    /* The dims the strides can place (size past 1, a positive stride) are sorted
     * among the places they hold, larger strides first (an insertion sort: stable,
     * and a no-op when sorted); size-1 dims, stride 0 and negative strides say
     * nothing and keep theirs. */
    int at[PDT_MAX_DIMS], dims[PDT_MAX_DIMS], n = 0, moved = 0;
    for (int i = 0; i < t->ndim; i++) {
        perm[i] = i;
        if (t->shape[i] > 1 && t->strides[i] > 0)
            at[n] = dims[n] = i, n++;
    }
    for (int i = 1; i < n; i++) {
        int d = dims[i], j = i;
        for (; j > 0 && t->strides[d] > t->strides[dims[j - 1]]; j--)
            dims[j] = dims[j - 1];
        dims[j] = d;
    }
    for (int i = 0; i < n; i++) {
        perm[at[i]] = dims[i];
        moved |= dims[i] != at[i];
    }
    return moved;
}

int pdt_tensor_dense_in_order(const pdt_tensor *t, int n, const int *perm)
{
    int64_t expected = 1; /* innermost first */
    for (int i = n - 1; i >= 0; i--) {
        int d = perm[i];
        if (t->shape[d] == 1)
            continue;
        if (t->strides[d] != expected)
            return 0;
        expected *= t->shape[d];
    }
    return 1;
}

int pdt_same_dense_layout(const pdt_tensor *a, const pdt_tensor *b)
{
    if (pdt_tensor_is_contiguous(a) && pdt_tensor_is_contiguous(b))
        return 1;
    if (a->ndim != b->ndim)
        return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i] || (a->shape[i] != 1 && a->strides[i] != b->strides[i]))
            return 0;
    int perm[PDT_MAX_DIMS];
    pdt_memory_order(a, perm);
    int64_t s = 1; /* innermost first: each dim of size past 1 steps over the ones inside */
    for (int ii = a->ndim - 1; ii >= 0; ii--) {
        int64_t n = a->shape[perm[ii]];
        if (n == 0)
            return 1;
        if (n != 1 && a->strides[perm[ii]] != s)
            return 0;
        s *= n;
    }
    return 1;
}

void pdt_tensor_flat(pdt_tensor *dst, const pdt_tensor *src)
{
    pdt_tensor_assign(dst, src);
    dst->ndim = 1;
    dst->shape[0] = pdt_tensor_numel(src);
    dst->strides[0] = 1;
}

const int *pdt_result_order(const pdt_tensor *t0, const pdt_tensor *t1, const pdt_tensor *t2,
                            int ndim, const int64_t *shape, int *perm)
{
    const pdt_tensor *ts[3] = {t0, t1, t2};
    for (int k = 0; k < 3; k++) {
        const pdt_tensor *t = ts[k];
        if (!t || t->ndim != ndim || memcmp(t->shape, shape, (size_t)ndim * sizeof *shape))
            continue;
        if (pdt_tensor_is_contiguous(t))
            return NULL;
        return pdt_memory_order(t, perm) ? perm : NULL;
    }
    return NULL;
}

pdt_status pdt_tensor_empty_in_order(pdt_device device, pdt_dtype dtype, int ndim,
                                     const int64_t *shape, const int *perm, pdt_tensor *out)
{
    if (!perm)
        return pdt_tensor_empty(device, dtype, ndim, shape, 0, out);
    int64_t pshape[PDT_MAX_DIMS] = {0}, pstrides[PDT_MAX_DIMS];
    for (int i = 0; i < ndim; i++)
        pshape[i] = shape[perm[i]];
    pdt_status st = pdt_tensor_empty(device, dtype, ndim, pshape, 0, out);
    if (st != PDT_OK)
        return st;
    memcpy(pstrides, out->strides, (size_t)ndim * sizeof *pstrides);
    for (int i = 0; i < ndim; i++) {
        out->shape[perm[i]] = pshape[i];
        out->strides[perm[i]] = pstrides[i];
    }
    return PDT_OK;
}
