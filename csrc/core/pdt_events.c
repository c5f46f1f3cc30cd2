/* pdt_events.c - events: checks, then the device's backend. */
#include "pdt_events.h"

#include <string.h>

#include "pdt_index_errors.h"

/* The backend of device when it has events, else PDT_ERR_UNSUPPORTED. */
static pdt_status events_backend(pdt_device device, const pdt_backend **out)
{
    const pdt_backend *b = pdt_backend_of(device.kind);
    char name[32];
    if (!b || !b->event_create)
        return pdt_fail(PDT_ERR_UNSUPPORTED,
                        "events exist on CUDA devices only, not on %s (CPU work is "
                        "synchronous: time it with time.perf_counter())",
                        pdt_device_str(device, name, sizeof name));
    *out = b;
    return PDT_OK;
}

void pdt_event_init(unsigned flags, pdt_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->device.kind = PDT_CUDA;
    ev->device.index = -1;
    ev->flags = flags;
}

pdt_status pdt_event_create(pdt_device device, unsigned flags, pdt_event *ev)
{
    const pdt_backend *b = NULL;
    pdt_event_init(flags, ev);
    pdt_status st = pdt_device_check(device);
    if (st == PDT_OK)
        st = events_backend(device, &b);
    if (st == PDT_OK)
        st = b->event_create(device.index, flags, &ev->handle);
    if (st != PDT_OK)
        ev->handle = NULL;
    ev->device = device;
    return st;
}

pdt_status pdt_event_record(pdt_event *ev, pdt_device stream_device)
{
    const pdt_backend *b = NULL;
    char a[32], c[32];
    pdt_status st;
    if (!ev->handle) { /* Note [events take their device when first recorded] */
        pdt_event made;
        if ((st = pdt_event_create(stream_device, ev->flags, &made)) != PDT_OK)
            return st;
        *ev = made;
    } else if (!pdt_device_eq(ev->device, stream_device)) {
        return pdt_fail(PDT_ERR_DEVICE,
                        "record: Event device %s does not match recording stream's device %s "
                        "(an event is recorded on the device it was first recorded on: record "
                        "it under `with cuda.device(...)` of that device, or use one event "
                        "per device)",
                        pdt_device_str(ev->device, a, sizeof a),
                        pdt_device_str(stream_device, c, sizeof c));
    }
    st = events_backend(ev->device, &b);
    if (st == PDT_OK)
        st = b->event_record(ev->device.index, ev->handle);
    if (st == PDT_OK)
        ev->recorded = 1;
    return st;
}

pdt_status pdt_event_query(const pdt_event *ev, int *done)
{
    const pdt_backend *b = NULL;
    *done = 1;
    if (!ev->handle || !ev->recorded)
        return PDT_OK; /* nothing captured: complete, as cudaEventQuery */
    pdt_status st = events_backend(ev->device, &b);
    return st != PDT_OK ? st : b->event_query(ev->handle, done);
}

pdt_status pdt_event_wait(const pdt_event *ev, pdt_device stream_device)
{
    const pdt_backend *b = NULL;
    if (!ev->handle || !ev->recorded)
        return PDT_OK; /* nothing to wait for, as cudaStreamWaitEvent */
    pdt_status st = pdt_device_check(stream_device);
    if (st == PDT_OK)
        st = events_backend(stream_device, &b);
    return st != PDT_OK ? st : b->event_wait(stream_device.index, ev->handle);
}

pdt_status pdt_event_synchronize(const pdt_event *ev)
{
    const pdt_backend *b = NULL;
    if (!ev->handle || !ev->recorded)
        return PDT_OK; /* nothing to wait for, as in CUDA */
    pdt_status st = events_backend(ev->device, &b);
    if (st == PDT_OK)
        st = b->event_synchronize(ev->handle);
    /* Note [deferred index checks] in pdt_index.h */
    return st != PDT_OK ? st : pdt_index_errors_report(ev->device);
}

pdt_status pdt_event_elapsed_ms(const pdt_event *start, const pdt_event *end, float *ms)
{
    const pdt_backend *b = NULL;
    char a[32], c[32];
    *ms = 0.0f;
    if (!(start->flags & PDT_EVENT_TIMING) || !(end->flags & PDT_EVENT_TIMING))
        return pdt_fail(PDT_ERR_VALUE,
                        "elapsed_time: both events must be created with enable_timing=True (the "
                        "%s event was not)",
                        !(start->flags & PDT_EVENT_TIMING) ? "start" : "end");
    if (!start->handle || !end->handle || !start->recorded || !end->recorded)
        return pdt_fail(PDT_ERR_VALUE,
                        "elapsed_time: both events must be recorded first (the %s event is "
                        "not): call record() on each",
                        !start->handle || !start->recorded ? "start" : "end");
    if (!pdt_device_eq(start->device, end->device))
        return pdt_fail(PDT_ERR_DEVICE,
                        "elapsed_time: the events are on two devices, %s and %s; time work "
                        "with two events of one device",
                        pdt_device_str(start->device, a, sizeof a),
                        pdt_device_str(end->device, c, sizeof c));
    pdt_status st = events_backend(end->device, &b);
    return st != PDT_OK ? st : b->event_elapsed_ms(start->handle, end->handle, ms);
}

void pdt_event_destroy(pdt_event *ev)
{
    const pdt_backend *b = pdt_backend_of(ev->device.kind);
    if (ev->handle && b && b->event_destroy)
        b->event_destroy(ev->handle);
    ev->handle = NULL;
    ev->recorded = 0;
}
