/* cuda_events.c - timing events on a device's stream.  (Issue 4: to be implemented.) */
#include "cuda_ops.h"

pdt_status pdt_cuda_event_create(int index, void **event)
{
    (void)index, (void)event;
    return pdt_fail(PDT_ERR_UNSUPPORTED, "CUDA events are not implemented yet");
}

pdt_status pdt_cuda_event_record(int index, void *event)
{
    (void)index, (void)event;
    return pdt_fail(PDT_ERR_UNSUPPORTED, "CUDA events are not implemented yet");
}

pdt_status pdt_cuda_event_synchronize(void *event)
{
    (void)event;
    return pdt_fail(PDT_ERR_UNSUPPORTED, "CUDA events are not implemented yet");
}

pdt_status pdt_cuda_event_elapsed_ms(void *start, void *end, float *ms)
{
    (void)start, (void)end, (void)ms;
    return pdt_fail(PDT_ERR_UNSUPPORTED, "CUDA events are not implemented yet");
}

void pdt_cuda_event_destroy(void *event) { (void)event; }
