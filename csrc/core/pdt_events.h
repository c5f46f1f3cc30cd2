/* pdt_events.h - events on a device's stream (torch.cuda.Event).
 *
 * An event belongs to one device and is recorded on that device's stream
 * (pydevtensor has one per device): it completes once the work queued before
 * the record has run.  Two recorded events of one device give the GPU time
 * between them.  Only backends with an event table (CUDA) have events; on a
 * machine without a usable GPU, creating one fails with the reason none is
 * usable.
 *
 * Note [events take their device when first recorded]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * As torch.cuda.Event, an event made without a device has no backend event
 * until its first record: pdt_event_record then creates it on the recording
 * stream's device (the caller's current device), and a later record on
 * another device's stream fails, naming both devices.  pdt_event_create makes
 * one on a given device at once (Event(device=...)).
 */
#ifndef PDT_EVENTS_H
#define PDT_EVENTS_H

#include "pdt_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Event flags, as the backend receives them. */
enum {
    PDT_EVENT_TIMING = 1,   /* elapsed time can be asked (else cudaEventDisableTiming) */
    PDT_EVENT_BLOCKING = 2, /* synchronize blocks the thread (cudaEventBlockingSync) */
};

typedef struct pdt_event {
    pdt_device device; /* meaningful only once handle is not NULL */
    void *handle;      /* the backend's event; NULL until created */
    int recorded;      /* 1 once pdt_event_record succeeded */
    unsigned flags;    /* PDT_EVENT_* */
} pdt_event;

/* An event with no backend event yet: it is created on the device of its
 * first record (Note [events take their device when first recorded]). */
void pdt_event_init(unsigned flags, pdt_event *ev);
/* A new, unrecorded event on device, created now.  On failure *ev is left
 * with a NULL handle. */
pdt_status pdt_event_create(pdt_device device, unsigned flags, pdt_event *ev);
/* Records ev on stream_device's stream, after everything queued there so
 * far; creates ev there first when it has no backend event yet.  Fails when
 * ev belongs to another device. */
pdt_status pdt_event_record(pdt_event *ev, pdt_device stream_device);
/* *done = 1 when the work before the record has completed (or ev was never
 * recorded), 0 when some is still queued or running.  Does not wait. */
pdt_status pdt_event_query(const pdt_event *ev, int *done);
/* Makes the work queued on stream_device's stream from now on wait until ev
 * has completed, without blocking the calling thread (nothing when ev was
 * never recorded).  ev may belong to another device. */
pdt_status pdt_event_wait(const pdt_event *ev, pdt_device stream_device);
/* Waits until ev has completed (at once when it was never recorded). */
pdt_status pdt_event_synchronize(const pdt_event *ev);
/* Milliseconds of GPU time from start to end, both recorded on one device
 * and created with timing enabled.  Waits for both to complete first. */
pdt_status pdt_event_elapsed_ms(const pdt_event *start, const pdt_event *end, float *ms);
/* Frees ev's backend event (pending work is not waited for); safe to repeat. */
void pdt_event_destroy(pdt_event *ev);

#ifdef __cplusplus
}
#endif
#endif /* PDT_EVENTS_H */
