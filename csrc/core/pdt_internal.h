/* pdt_internal.h - functions shared between core files, not part of the core's
 * interface to the bindings. */
#ifndef PDT_INTERNAL_H
#define PDT_INTERNAL_H

#include "pdt_runtime.h"

/* Counts one transfer of nbytes (pdt_runtime.c). */
void pdt_transfer_count(pdt_copy_kind kind, size_t nbytes);
/* Runs the copy hook; a non-OK status cancels the copy (pdt_runtime.c). */
pdt_status pdt_note_copy(pdt_copy_kind kind, pdt_device dst, pdt_device src, size_t nbytes);

/* Freezes the device configuration and applies its memory limits; idempotent
 * (pdt_registry.c, called by pdt_device_check). */
void pdt_registry_initialize(void);
/* Sets d's limit without checking that d exists (pdt_runtime.c). */
void pdt_memory_set_limit_unchecked(pdt_device d, uint64_t limit_bytes);

#endif /* PDT_INTERNAL_H */
