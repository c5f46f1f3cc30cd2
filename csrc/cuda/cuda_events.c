/* cuda_events.c - events on a device's stream (torch.cuda.Event).
 *
 * Events are created with cudaEventDisableTiming unless timing is asked
 * (Event(enable_timing=True)), as torch.cuda.Event (cheaper to record and to
 * wait on), with cudaEventBlockingSync for Event(blocking=True), and recorded
 * on the device's one stream (Note [one stream per device] in cuda_backend.c),
 * so an event marks the point after every op queued on that device so far. */
#include "cuda_check.h"
#include "cuda_ops.h"
#include "pdt_events.h"

pdt_status pdt_cuda_event_create(int index, unsigned flags, void **event)
{
    pdt_status st;
    cudaStream_t stream;
    cudaEvent_t ev = NULL;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    *event = NULL;
    /* the event belongs to the current device: make index's GPU current */
    if ((st = pdt_cuda_stream(&g, index, &stream)) != PDT_OK)
        goto fail;
    PDT_CUDA_CHECK(cudaEventCreateWithFlags(
        &ev, (flags & PDT_EVENT_TIMING ? cudaEventDefault : cudaEventDisableTiming) |
                 (flags & PDT_EVENT_BLOCKING ? cudaEventBlockingSync : 0u)));
    *event = ev;
fail:
    pdt_cuda_guard_exit(&g);
    return st;
}

/* What the calls below do on index's stream (made current with its device) */
typedef enum { ON_STREAM_RECORD, ON_STREAM_WAIT, ON_STREAM_QUERY } on_stream_act;

/* cudaSuccess or cudaErrorNotReady as *done (a status, not a failure); anything
 * else passed on as the error */
static cudaError_t ready(cudaError_t e, int *done)
{
    *done = e == cudaSuccess;
    return e == cudaErrorNotReady ? cudaSuccess : e;
}

static pdt_status on_stream(int index, on_stream_act act, void *event, int *done)
{
    pdt_status st;
    cudaStream_t stream;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    if ((st = pdt_cuda_stream(&g, index, &stream)) != PDT_OK)
        goto fail;
    if (act == ON_STREAM_RECORD)
        PDT_CUDA_CHECK(cudaEventRecord((cudaEvent_t)event, stream));
    else if (act == ON_STREAM_WAIT)
        PDT_CUDA_CHECK(cudaStreamWaitEvent(stream, (cudaEvent_t)event, 0));
    else
        PDT_CUDA_CHECK(ready(cudaStreamQuery(stream), done));
fail:
    pdt_cuda_guard_exit(&g);
    return st;
}

/* CUDA Runtime API, cudaEventRecord: the event marks the point after every op
 * queued on index's stream so far. */
pdt_status pdt_cuda_event_record(int index, void *event)
{
    return on_stream(index, ON_STREAM_RECORD, event, NULL);
}

/* CUDA Runtime API, cudaEventQuery: cudaSuccess when all the work captured
 * by the record has completed, cudaErrorNotReady while some has not. */
pdt_status pdt_cuda_event_query(void *event, int *done)
{
    pdt_status st = PDT_OK;
    PDT_CUDA_CHECK(ready(cudaEventQuery((cudaEvent_t)event), done));
fail:
    return st;
}

/* CUDA Runtime API, cudaStreamQuery: cudaSuccess when every op queued on the
 * stream has completed, cudaErrorNotReady while some has not. */
pdt_status pdt_cuda_stream_query(int index, int *done)
{
    *done = 1;
    return on_stream(index, ON_STREAM_QUERY, NULL, done);
}

/* CUDA Runtime API, cudaStreamWaitEvent: work queued on index's stream after
 * this call waits until the event's last record has completed; the calling
 * thread does not wait, and the event may belong to another device. */
pdt_status pdt_cuda_event_wait(int index, void *event)
{
    return on_stream(index, ON_STREAM_WAIT, event, NULL);
}

pdt_status pdt_cuda_event_synchronize(void *event)
{
    pdt_status st = PDT_OK;
    PDT_CUDA_CHECK(cudaEventSynchronize((cudaEvent_t)event));
fail:
    return st;
}

/* Waits for both events: cudaEventElapsedTime refuses events still pending. */
pdt_status pdt_cuda_event_elapsed_ms(void *start, void *end, float *ms)
{
    pdt_status st = PDT_OK;
    *ms = 0.0f;
    PDT_CUDA_CHECK(cudaEventSynchronize((cudaEvent_t)start));
    PDT_CUDA_CHECK(cudaEventSynchronize((cudaEvent_t)end));
    PDT_CUDA_CHECK(cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end));
fail:
    return st;
}

/* A pending event may be destroyed: CUDA releases it once it completes. */
void pdt_cuda_event_destroy(void *event) { PDT_CUDA_IGNORE(cudaEventDestroy((cudaEvent_t)event)); }
