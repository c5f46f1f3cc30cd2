/* pdt_events.h - timing events on a device's stream (torch.cuda.Event).
 *
 * An event is created on one device and recorded on that device's stream:
 * it completes once the work queued before the record has run.  Two recorded
 * events of one device give the GPU time between them.  Only backends with an
 * event table (CUDA) have events; on a machine without a usable GPU,
 * pdt_event_create fails with the reason none is usable.
 */
#ifndef PDT_EVENTS_H
#define PDT_EVENTS_H

#include "pdt_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pdt_event {
    pdt_device device;
    void *handle;      /* the backend's event; NULL when none was created */
    int recorded;      /* 1 once pdt_event_record succeeded */
    int enable_timing; /* 0: a synchronisation-only event, which cannot time */
} pdt_event;

/* A new, unrecorded event on device; enable_timing 0 makes a lighter event
 * (cudaEventDisableTiming) that cannot be timed.  On failure *ev is left with
 * a NULL handle. */
pdt_status pdt_event_create(pdt_device device, int enable_timing, pdt_event *ev);
/* Records ev on its device's stream, after everything queued so far. */
pdt_status pdt_event_record(pdt_event *ev);
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
