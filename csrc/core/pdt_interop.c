/* pdt_interop.c - stream handles, stream waits and pointer queries for the
 * exchange with other libraries (see pdt_interop.h). */
#include "pdt_interop.h"

/* d's backend, once d is known to exist */
static const pdt_backend *checked(pdt_device d, pdt_status *st)
{
    *st = pdt_device_check(d);
    return *st == PDT_OK ? pdt_backend_of(d.kind) : NULL;
}

pdt_status pdt_stream_handle(pdt_device d, uintptr_t *out)
{
    pdt_status st;
    const pdt_backend *b = checked(d, &st);
    *out = 0;
    return b && b->stream_handle ? b->stream_handle(d.index, out) : st;
}

pdt_status pdt_stream_query(pdt_device d, int *done)
{
    pdt_status st;
    const pdt_backend *b = checked(d, &st);
    *done = 1;
    return b && b->stream_query ? b->stream_query(d.index, done) : st;
}

pdt_status pdt_stream_wait(pdt_device d, uintptr_t external, int direction)
{
    if (direction != PDT_STREAM_OURS_WAITS && direction != PDT_STREAM_EXTERNAL_WAITS)
        return pdt_fail(PDT_ERR_VALUE, "stream wait: unknown direction %d", direction);
    if (external == 0)
        return pdt_fail(PDT_ERR_VALUE,
                        "stream 0 is ambiguous (the legacy or the per-thread default stream); "
                        "pass 1 for the legacy default stream or 2 for the per-thread one");
    pdt_status st;
    const pdt_backend *b = checked(d, &st);
    return b && b->wait_stream ? b->wait_stream(d.index, external, direction) : st;
}

pdt_status pdt_pointer_device(int kind, const void *ptr, pdt_device *out)
{
    const pdt_backend *b = pdt_backend_of(kind);
    const char *name = pdt_device_kind_name(kind);
    if (!b || !b->pointer_device)
        return pdt_fail(PDT_ERR_DEVICE,
                        "cannot tell which %s device holds address %p: pydevtensor was built "
                        "without %s support",
                        name ? name : "?", ptr, name ? name : "that device kind's");
    int physical = -1;
    pdt_status st = b->pointer_device(ptr, &physical);
    if (st != PDT_OK)
        return st;
    /* The backend names the physical device; the memory belongs to the first
     * logical device of that GPU (Note [logical devices] in pdt_registry.c). */
    out->kind = kind;
    out->index = pdt_logical_index(kind, physical);
    if (out->index < 0)
        return pdt_fail(PDT_ERR_DEVICE,
                        "address %p is memory of physical %s device %d, which is not visible "
                        "to pydevtensor (config.set_visible_devices)",
                        ptr, name ? name : "?", physical);
    return pdt_device_check(*out);
}
