/* pdt_collective.c - collectives: checks, then the devices' backend. */
#include "pdt_collective.h"

#include "pdt_runtime.h"

int pdt_allreduce_available(int kind)
{
    const pdt_backend *b = pdt_backend_of(kind);
    return b && b->allreduce_available && b->allreduce_available();
}

pdt_status pdt_allreduce_sum(int n, const pdt_tensor *const *ts)
{
    char a[32], c[32], sa[64], sc[64];
    int indices[PDT_MAX_DEVICES];
    void *buffers[PDT_MAX_DEVICES];
    if (n < 1 || n > PDT_MAX_DEVICES)
        return pdt_fail(PDT_ERR_VALUE, "allreduce_sum: expected 1 to %d tensors, got %d",
                        PDT_MAX_DEVICES, n);
    const pdt_tensor *t0 = ts[0];
    const int64_t numel = pdt_tensor_numel(t0);
    const pdt_backend *b = pdt_backend_of(t0->device.kind);
    if (!b || !b->allreduce_sum)
        return pdt_fail(PDT_ERR_UNSUPPORTED,
                        "allreduce_sum runs on CUDA devices (with NCCL) only, not on %s",
                        pdt_device_str(t0->device, a, sizeof a));
    for (int i = 0; i < n; i++) {
        const pdt_tensor *t = ts[i];
        pdt_status st = pdt_device_check(t->device);
        if (st != PDT_OK)
            return st;
        if (t->device.kind != t0->device.kind)
            return pdt_fail(PDT_ERR_DEVICE,
                            "allreduce_sum: every tensor must be on a device of one kind, "
                            "got %s (tensor 0) and %s (tensor %d)",
                            pdt_device_str(t0->device, a, sizeof a),
                            pdt_device_str(t->device, c, sizeof c), i);
        if (t->dtype != t0->dtype)
            return pdt_fail(PDT_ERR_TYPE,
                            "allreduce_sum: every tensor must have one dtype, got %s (tensor "
                            "0) and %s (tensor %d)",
                            pdt_dtype_name(t0->dtype), pdt_dtype_name(t->dtype), i);
        if (pdt_tensor_numel(t) != numel)
            return pdt_fail(PDT_ERR_VALUE,
                            "allreduce_sum: every tensor must have the same number of "
                            "elements, got shape %s (tensor 0, %lld) and %s (tensor %d, %lld)",
                            pdt_shape_str(t0->ndim, t0->shape, sa, sizeof sa), (long long)numel,
                            pdt_shape_str(t->ndim, t->shape, sc, sizeof sc), i,
                            (long long)pdt_tensor_numel(t));
        if (!pdt_tensor_is_contiguous(t))
            return pdt_fail(PDT_ERR_VALUE,
                            "allreduce_sum: tensor %d (shape %s on %s) is not contiguous; "
                            "call .contiguous() first",
                            i, pdt_shape_str(t->ndim, t->shape, sc, sizeof sc),
                            pdt_device_str(t->device, c, sizeof c));
        for (int j = 0; j < i; j++)
            if (ts[j]->device.index == t->device.index)
                return pdt_fail(PDT_ERR_DEVICE,
                                "allreduce_sum: tensors %d and %d are both on %s; each "
                                "device may appear once",
                                j, i, pdt_device_str(t->device, c, sizeof c));
        indices[i] = t->device.index;
        buffers[i] = pdt_tensor_ptr(t);
    }
    for (int i = 0; i < n; i++)
        pdt_note_op("allreduce", ts[i]->device);
    pdt_status st = b->allreduce_sum(n, indices, buffers, (size_t)numel, t0->dtype);
    if (st == PDT_OK && n > 1) /* Note [collectives are counted] */
        pdt_collective_count(2 * (uint64_t)(n - 1) * (uint64_t)numel * pdt_dtype_size(t0->dtype));
    return st;
}
