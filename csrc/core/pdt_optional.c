/* pdt_optional.c - the entry points of the backend table's optional kernels
 * (pdt_optional.h). */
#include "pdt_optional.h"

#include <string.h>

#include "pdt_internal.h"

/* PDT_ERR_UNSUPPORTED for op on x: the caller composes it. */
static pdt_status unsupported(const char *op, const pdt_tensor *x)
{
    char dev[32];
    return pdt_fail(PDT_ERR_UNSUPPORTED, "%s: no kernel for a %s tensor of %d dims on %s", op,
                    pdt_dtype_name(x->dtype), x->ndim, pdt_device_str(x->device, dev, sizeof dev));
}

pdt_status pdt_softmax_last(const pdt_tensor *x, int log, pdt_tensor *result)
{
    const char *name = log ? "log_softmax" : "softmax";
    const pdt_backend *be = pdt_backend_of(x->device.kind);
    memset(result, 0, sizeof *result);
    if (!be->softmax || x->ndim < 1 || (x->dtype != PDT_FLOAT32 && x->dtype != PDT_FLOAT64) ||
        pdt_tensor_numel(x) == 0 || !pdt_tensor_is_contiguous(x))
        return unsupported(name, x);
    pdt_status st = pdt_tensor_empty(x->device, x->dtype, x->ndim, x->shape, 0, result);
    if (st != PDT_OK)
        return st;
    pdt_note_op(name, x->device);
    st = be->softmax(result, x, log);
    if (st != PDT_OK)
        pdt_tensor_release(result);
    return st;
}

pdt_status pdt_cumprod_last(const pdt_tensor *x, int unused, pdt_tensor *result)
{
    (void)unused;
    const pdt_backend *be = pdt_backend_of(x->device.kind);
    memset(result, 0, sizeof *result);
    if (!be->cumprod || x->ndim < 1 || (x->dtype != PDT_FLOAT64 && x->dtype != PDT_INT64) ||
        pdt_tensor_numel(x) == 0 || !pdt_tensor_is_contiguous(x))
        return unsupported("cumprod", x);
    pdt_status st = pdt_tensor_empty(x->device, x->dtype, x->ndim, x->shape, 0, result);
    if (st != PDT_OK)
        return st;
    pdt_note_op("cumprod", x->device);
    st = be->cumprod(result, x);
    if (st != PDT_OK)
        pdt_tensor_release(result);
    return st;
}

pdt_status pdt_classify(const pdt_tensor *x, int which, pdt_tensor *result)
{
    static const char *const names[4] = {"isnan", "isinf", "isfinite", "signbit"};
    const pdt_backend *be = pdt_backend_of(x->device.kind);
    memset(result, 0, sizeof *result);
    if (which < 0 || which > 3)
        return pdt_fail(PDT_ERR_VALUE, "classify: which must be 0, 1, 2 or 3, got %d", which);
    if (!be->classify || !pdt_dtype_is_floating(x->dtype) || pdt_tensor_numel(x) == 0 ||
        !pdt_tensor_is_contiguous(x))
        return unsupported(names[which], x);
    pdt_status st = pdt_tensor_empty(x->device, PDT_BOOL, x->ndim, x->shape, 0, result);
    if (st != PDT_OK)
        return st;
    pdt_note_op(names[which], x->device);
    st = be->classify(result, x, which);
    if (st != PDT_OK)
        pdt_tensor_release(result);
    return st;
}

/* New contiguous *values (x's dtype) and int64 *indices of x's shape with the last dim
 * of size last. */
static pdt_status values_and_indices(const pdt_tensor *x, int64_t last, pdt_tensor *values,
                                     pdt_tensor *indices)
{
    int64_t shape[PDT_MAX_DIMS];
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
    shape[x->ndim - 1] = last;
    pdt_status st = pdt_tensor_empty(x->device, x->dtype, x->ndim, shape, 0, values);
    if (st == PDT_OK) {
        st = pdt_tensor_empty(x->device, PDT_INT64, x->ndim, shape, 0, indices);
        if (st != PDT_OK)
            pdt_tensor_release(values);
    }
    return st;
}

pdt_status pdt_topk_last(const pdt_tensor *x, int64_t k, int largest, pdt_tensor *values,
                         pdt_tensor *indices)
{
    const pdt_backend *be = pdt_backend_of(x->device.kind);
    memset(values, 0, sizeof *values);
    memset(indices, 0, sizeof *indices);
    int64_t n = x->ndim ? x->shape[x->ndim - 1] : 0;
    if (!be->topk || x->ndim < 1 || k < 1 || k > 1024 || n < 16 * k || !pdt_tensor_is_contiguous(x))
        return unsupported("topk", x);
    pdt_status st = values_and_indices(x, k, values, indices);
    if (st != PDT_OK || pdt_tensor_numel(values) == 0)
        return st;
    pdt_note_op("topk", x->device);
    st = be->topk(values, indices, x, k, largest);
    if (st != PDT_OK) {
        pdt_tensor_release(values);
        pdt_tensor_release(indices);
    }
    return st;
}

pdt_status pdt_cumextreme_last(const pdt_tensor *x, int largest, pdt_tensor *values,
                               pdt_tensor *indices)
{
    const char *name = largest ? "cummax" : "cummin";
    const pdt_backend *be = pdt_backend_of(x->device.kind);
    memset(values, 0, sizeof *values);
    memset(indices, 0, sizeof *indices);
    if (!be->cumextreme || x->ndim < 1 || pdt_tensor_numel(x) == 0 || !pdt_tensor_is_contiguous(x))
        return unsupported(name, x);
    pdt_status st = values_and_indices(x, x->shape[x->ndim - 1], values, indices);
    if (st != PDT_OK)
        return st;
    pdt_note_op(name, x->device);
    st = be->cumextreme(values, indices, x, largest);
    if (st != PDT_OK) {
        pdt_tensor_release(values);
        pdt_tensor_release(indices);
    }
    return st;
}

pdt_status pdt_search_rows(const pdt_tensor *seq, const pdt_tensor *values, int mode,
                           pdt_tensor *result)
{
    const pdt_backend *be = pdt_backend_of(values->device.kind);
    memset(result, 0, sizeof *result);
    if (mode < PDT_SEARCH_LEFT || mode > PDT_SEARCH_MEMBER)
        return pdt_fail(PDT_ERR_VALUE, "searchsorted: mode must be 0, 1 or 2, got %d", mode);
    if (!be->search || seq->ndim != 2 || values->ndim != 2 || seq->dtype != values->dtype ||
        !pdt_device_eq(seq->device, values->device) ||
        (seq->shape[0] != 1 && seq->shape[0] != values->shape[0]) ||
        !pdt_tensor_is_contiguous(seq) || !pdt_tensor_is_contiguous(values))
        return unsupported("searchsorted", values);
    pdt_status st = pdt_tensor_empty(values->device,
                                     mode == PDT_SEARCH_MEMBER ? PDT_BOOL : PDT_INT64, 2,
                                     values->shape, 0, result);
    if (st != PDT_OK || pdt_tensor_numel(result) == 0)
        return st;
    pdt_note_op(mode == PDT_SEARCH_MEMBER ? "isin" : "searchsorted", values->device);
    st = be->search(result, seq, values, mode);
    if (st != PDT_OK)
        pdt_tensor_release(result);
    return st;
}

pdt_status pdt_search_1d(const pdt_tensor *seq, const pdt_tensor *values, int mode,
                         pdt_tensor *result)
{
    memset(result, 0, sizeof *result);
    if (seq->ndim != 1 || !pdt_tensor_is_contiguous(seq) || !pdt_tensor_is_contiguous(values))
        return unsupported("searchsorted", values);
    /* (1, m) and (1, n) views: copies of the structs, their storages held by the caller */
    pdt_tensor s = *seq, v = *values;
    s.ndim = v.ndim = 2;
    s.shape[0] = v.shape[0] = 1;
    s.shape[1] = seq->shape[0];
    v.shape[1] = pdt_tensor_numel(values);
    pdt_contiguous_strides(2, s.shape, s.strides);
    pdt_contiguous_strides(2, v.shape, v.strides);
    pdt_status st = pdt_search_rows(&s, &v, mode, result);
    if (st == PDT_OK) { /* contiguous (1, n) as values' shape */
        result->ndim = values->ndim;
        memcpy(result->shape, values->shape, sizeof(int64_t) * (size_t)values->ndim);
        pdt_contiguous_strides(values->ndim, result->shape, result->strides);
    }
    return st;
}

pdt_status pdt_select_last(const pdt_tensor *x, int rule, int64_t k, pdt_tensor *values,
                           pdt_tensor *indices)
{
    const pdt_backend *be = pdt_backend_of(x->device.kind);
    const char *name = rule == PDT_SELECT_KTH      ? "kthvalue"
                       : rule == PDT_SELECT_MEDIAN ? "median"
                                                   : "nanmedian";
    memset(values, 0, sizeof *values);
    memset(indices, 0, sizeof *indices);
    if (rule < PDT_SELECT_KTH || rule > PDT_SELECT_NANMEDIAN)
        return pdt_fail(PDT_ERR_VALUE, "kthvalue: rule must be 0, 1 or 2, got %d", rule);
    if (!be->select || x->ndim < 1 || pdt_tensor_numel(x) == 0 || !pdt_tensor_is_contiguous(x))
        return unsupported(name, x);
    const int64_t n = x->shape[x->ndim - 1];
    if (rule == PDT_SELECT_KTH && (k < 0 || k >= n)) {
        char dev[32];
        return pdt_fail(PDT_ERR_INDEX,
                        "kthvalue: position %lld is out of range for rows of %lld (on %s)",
                        (long long)k, (long long)n, pdt_device_str(x->device, dev, sizeof dev));
    }
    /* one element a row: x's shape less its last dim */
    pdt_status st = pdt_tensor_empty(x->device, x->dtype, x->ndim - 1, x->shape, 0, values);
    if (st != PDT_OK)
        return st;
    st = pdt_tensor_empty(x->device, PDT_INT64, x->ndim - 1, x->shape, 0, indices);
    if (st != PDT_OK) {
        pdt_tensor_release(values);
        return st;
    }
    pdt_note_op(name, x->device);
    st = be->select(values, indices, x, rule, k);
    if (st != PDT_OK) {
        pdt_tensor_release(values);
        pdt_tensor_release(indices);
    }
    return st;
}

/* PDT_ERR_UNSUPPORTED unless repeats are contiguous 1-d int64 on a device with the kernel */
static pdt_status repeats_supported(const pdt_backend *be, const pdt_tensor *repeats)
{
    if (!be->repeat_positions || repeats->ndim != 1 || repeats->dtype != PDT_INT64 ||
        !pdt_tensor_is_contiguous(repeats))
        return unsupported("repeat_interleave", repeats);
    return PDT_OK;
}

pdt_status pdt_repeat_total(const pdt_tensor *repeats, int64_t *total)
{
    const pdt_backend *be = pdt_backend_of(repeats->device.kind);
    pdt_status st = repeats_supported(be, repeats);
    if (st != PDT_OK)
        return st;
    if (*total < 0 && *total != PDT_REPEAT_SUM)
        return pdt_fail(PDT_ERR_VALUE, "repeat_interleave(): output_size must be >= 0, got %lld",
                        (long long)*total);
    return be->repeat_positions(NULL, NULL, repeats, total);
}

pdt_status pdt_repeat_positions(const pdt_tensor *repeats, int64_t total, const pdt_tensor *x,
                                pdt_tensor *result)
{
    const pdt_backend *be = pdt_backend_of(repeats->device.kind);
    memset(result, 0, sizeof *result);
    pdt_status st = repeats_supported(be, repeats);
    if (st != PDT_OK)
        return st;
    if (x && (x->ndim < 1 || x->shape[0] != repeats->shape[0] || !pdt_tensor_is_contiguous(x) ||
              !pdt_device_eq(x->device, repeats->device)))
        return unsupported("repeat_interleave", x);
    if (total < 0)
        return pdt_fail(PDT_ERR_VALUE, "repeat_interleave(): output_size must be >= 0, got %lld",
                        (long long)total);
    int64_t shape[PDT_MAX_DIMS];
    if (x)
        memcpy(shape, x->shape, (size_t)x->ndim * sizeof *shape);
    shape[0] = total;
    st = x ? pdt_tensor_empty(x->device, x->dtype, x->ndim, shape, 0, result)
           : pdt_tensor_empty(repeats->device, PDT_INT64, 1, shape, 0, result);
    if (st != PDT_OK || (total == 0 && repeats->shape[0] == 0))
        return st;
    pdt_note_op("repeat_interleave", repeats->device);
    st = be->repeat_positions(result, x, repeats, NULL); /* each read once, checked again */
    if (st != PDT_OK)
        pdt_tensor_release(result);
    return st;
}

pdt_status pdt_repeat_flat(const pdt_tensor *x, const pdt_tensor *repeats, int64_t total,
                           pdt_tensor *result)
{
    memset(result, 0, sizeof *result);
    if (!pdt_tensor_is_contiguous(x))
        return unsupported("repeat_interleave", x);
    pdt_tensor flat = *x; /* (numel,): a copy of the struct, its storage held by the caller */
    flat.ndim = 1;
    flat.shape[0] = pdt_tensor_numel(x);
    flat.strides[0] = 1;
    return pdt_repeat_positions(repeats, total, &flat, result);
}

pdt_status pdt_bincount(const pdt_tensor *x, int64_t minlength, pdt_tensor *result)
{
    const pdt_backend *be = pdt_backend_of(x->device.kind);
    memset(result, 0, sizeof *result);
    if (!be->bincount || x->ndim != 1 || (x->dtype != PDT_INT32 && x->dtype != PDT_INT64) ||
        !pdt_tensor_is_contiguous(x) || minlength < 0)
        return unsupported("bincount", x);
    int64_t low = 0, high = -1, size = minlength;
    if (x->shape[0] > 0) {
        pdt_status st = be->bincount(NULL, x, &low, &high);
        if (st != PDT_OK)
            return st;
        char dev[32];
        if (low < 0)
            return pdt_fail(PDT_ERR_VALUE,
                            "bincount(): input must be non-negative, got the value %lld "
                            "(shape (%lld,), on %s)",
                            (long long)low, (long long)x->shape[0],
                            pdt_device_str(x->device, dev, sizeof dev));
        if (high > (INT64_MAX >> 4)) /* bins of 8 bytes past any memory; high + 1 overflows */
            return pdt_fail(PDT_ERR_OOM,
                            "bincount(): the largest value %lld asks for as many int64 bins, "
                            "more than memory holds (shape (%lld,), on %s)",
                            (long long)high, (long long)x->shape[0],
                            pdt_device_str(x->device, dev, sizeof dev));
        size = high + 1 > size ? high + 1 : size;
    }
    pdt_status st = pdt_tensor_empty(x->device, PDT_INT64, 1, &size, 0, result);
    if (st != PDT_OK || size == 0)
        return st;
    pdt_note_op("bincount", x->device);
    st = be->bincount(result, x, NULL, NULL);
    if (st != PDT_OK)
        pdt_tensor_release(result);
    return st;
}

pdt_status pdt_count_nonzero(const pdt_tensor *x, pdt_tensor *result)
{
    const pdt_backend *be = pdt_backend_of(x->device.kind);
    memset(result, 0, sizeof *result);
    if (!be->count_nonzero || !pdt_tensor_is_contiguous(x))
        return unsupported("count_nonzero", x);
    pdt_status st = pdt_tensor_empty(x->device, PDT_INT64, 0, NULL, 0, result);
    if (st != PDT_OK)
        return st;
    pdt_note_op("count_nonzero", x->device);
    st = be->count_nonzero(result, x);
    if (st != PDT_OK)
        pdt_tensor_release(result);
    return st;
}
