/* pdt_index_errors.h - out-of-range indices found on a device and reported at
 * the next synchronisation (Note [deferred index checks] in pdt_index.h): the
 * names of the ops that queue such checks, the process-wide choice between
 * checking on the device and checking on the host before the op, and the one
 * function every synchronisation point calls afterwards. */
#ifndef PDT_INDEX_ERRORS_H
#define PDT_INDEX_ERRORS_H

#include "pdt_device.h"
#include "pdt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A small positive number standing for op's name in a device's error record
 * (the same for equal names, for the life of the process), or 0 when the table
 * of names is full (the message then says "an indexing op"). */
int pdt_index_op_code(const char *op);

/* 1 (the default): gathers into a new tensor check their indices on the
 * device and report at the next synchronisation; 0: on the host before the
 * op, through a read-back of the index's min and max. */
void pdt_set_index_checks_on_device(int on);
int pdt_index_checks_on_device(void);

/* Called right after the host has synchronised with device d (a stream or
 * device synchronize, a blocking device-to-host copy, an event's synchronize):
 * PDT_OK when no completed check on d found an out-of-range index since the
 * last report, nor a completed check on another device of d's kind (a result
 * copied from there may be read now), else the IndexError naming the op, the
 * index, the dim and its size and the device where the op ran, saying that
 * the check ran on the device and how to get it before the op, and how many
 * more bad values later checks found (and by which ops); what is reported is
 * cleared, so the next synchronisation does not report it again. */
pdt_status pdt_index_errors_report(pdt_device d);

/* Before d's memory is handed to another library (__dlpack__,
 * __cuda_array_interface__), which reads it with no synchronisation of ours:
 * when a device of d's kind has checks not yet reported, synchronises d and
 * reports (as pdt_synchronize); else PDT_OK at the cost of one atomic load
 * per device. */
pdt_status pdt_index_errors_settle(pdt_device d);

#ifdef __cplusplus
}
#endif
#endif /* PDT_INDEX_ERRORS_H */
