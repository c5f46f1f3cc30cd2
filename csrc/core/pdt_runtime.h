/* pdt_runtime.h - the process-wide state of the core: which backends were built,
 * which devices exist, the current CUDA device, memory accounting per device,
 * transfer counters, the random generator, and the hooks the bindings install
 * for placement logging and the transfer guard.
 *
 * Everything here is safe to call from several threads at once.
 */
#ifndef PDT_RUNTIME_H
#define PDT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "pdt_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- backends and devices ---- */

/* The backend table for kind, or NULL when the module was built without it. */
const pdt_backend *pdt_backend_of(int kind);
/* Logical devices of kind (Note [logical devices] in pdt_registry.c); never
 * fails (0 with no driver). */
int pdt_device_count(int kind);
/* Physical devices of kind the backend sees; never fails. */
int pdt_physical_device_count(int kind);
/* The physical index behind logical device `index` of kind (-1 if none).
 * Backends receive logical indices and map them with this. */
int pdt_physical_index(int kind, int index);
/* The first logical device of kind on physical device `physical` (-1 if that
 * device is not visible).  Outside the package (DLPack, the CUDA array
 * interface, pointer queries) a device id is the physical one; imported memory
 * lands on the first logical device of its GPU (Note [logical devices]). */
int pdt_logical_index(int kind, int physical);
/* PDT_OK when d can be used, else PDT_ERR_DEVICE with a message that says why
 * (not built with CUDA / no driver / no such device) and lists the devices. */
pdt_status pdt_device_check(pdt_device d);
/* "cpu, cuda:0, cuda:1" into buf. */
const char *pdt_available_devices(char *buf, size_t n);
/* Adds a directory where the libraries kind's backend loads on first use may be
 * (Note [where libraries are found] in pdt_library.h); searched before the system's. */
void pdt_backend_add_library_dir(int kind, const char *dir);
/* Kind's backend uses at most n threads (n >= 1): returns the number used now, or -1
 * when the backend has no threads of its own.  pdt_backend_num_threads: that number. */
int pdt_backend_set_num_threads(int kind, int n);
int pdt_backend_num_threads(int kind);
/* set_flush_denormal on kind's backend: 1 when it did, 0 when it cannot. */
int pdt_backend_set_flush_denormal(int kind, int on);
/* The CPU kernels' instruction-set level (Note [CPU dispatch levels] in
 * csrc/cpu/cpu_simd.h): the name in use, NULL when the backend has none; the
 * supported ones into buf.  pdt_backend_set_simd_level: 0, or -1 (unknown or
 * unsupported level, or no levels on that backend). */
const char *pdt_backend_simd_level(int kind, char *buf, size_t n);
int pdt_backend_set_simd_level(int kind, const char *name);
/* The i-th library kind's backend loads on first use, or NULL past the last. */
struct pdt_library *pdt_backend_library(int kind, int i);
/* Loads now what that kind's GEMMs load on first use (the backend's
 * prepare_gemm), for callers about to let other threads run: a failure is left
 * for the product to report. */
void pdt_backend_prepare_gemm(int kind);
/* One line on the libraries behind kind's backend, into buf ("" if none). */
void pdt_backend_describe(int kind, char *buf, size_t n);
/* The calling thread's current CUDA device (0 until set). */
int pdt_current_cuda(void);
pdt_status pdt_set_current_cuda(int index);

/* ---- configuration before first use (pdt_registry.c) ---- */

/* Which physical devices of kind are visible (default: all).  PDT_ERR_DEVICE
 * ("Visible devices cannot be modified after being initialized") after first use. */
pdt_status pdt_set_visible_devices(int kind, int n, const int *physical);
/* n visible physical indices into out (capacity PDT_MAX_DEVICES). */
void pdt_get_visible_devices(int kind, int *n, int *out);
/* Splits physical device `physical` into n logical devices, each with its own
 * memory limit in bytes (0: none).  n = 0 restores the default (one, no limit). */
pdt_status pdt_set_logical_devices(int kind, int physical, int n, const uint64_t *limits);
/* n logical devices and their limits configured for `physical` (0: default). */
void pdt_get_logical_devices(int kind, int physical, int *n, uint64_t *limits);
/* 1 once a device has been used: configuration is frozen from then on. */
int pdt_runtime_initialized(void);
/* Soft placement: an unknown device resolves to the nearest existing one. */
void pdt_set_soft_placement(int on);
int pdt_soft_placement(void);
/* The device soft placement picks for d: cuda:0 for an unknown CUDA device when
 * one exists, else the CPU (cpu:0). */
pdt_device pdt_nearest_device(pdt_device d);

/* ---- memory accounting (bytes, per device) ---- */

typedef struct pdt_memory_stats {
    uint64_t allocated;     /* live bytes handed out by pydevtensor */
    uint64_t peak;          /* highest 'allocated' since the last reset */
    uint64_t reserved;      /* bytes the backend holds (pool + live) */
    uint64_t reserved_peak; /* highest 'reserved' since the last reset */
    uint64_t limit;         /* 0: no limit */
} pdt_memory_stats;

pdt_status pdt_memory_get(pdt_device d, pdt_memory_stats *out);
pdt_status pdt_memory_reset_peak(pdt_device d);
pdt_status pdt_memory_set_limit(pdt_device d, uint64_t limit_bytes); /* 0 clears */
pdt_status pdt_memory_empty_cache(pdt_device d);

/* Accounts nbytes against d's limit before an allocation is tried.  On
 * failure nothing is accounted and an OutOfMemory message is recorded. */
pdt_status pdt_memory_reserve(pdt_device d, size_t nbytes);
void pdt_memory_unreserve(pdt_device d, size_t nbytes);
/* Records an OOM message naming d, the request and the accounting. */
pdt_status pdt_memory_fail_oom(pdt_device d, size_t request, const char *backend_message);

/* Scratch memory a backend needs inside one op (a reduction's partial
 * results): nbytes from d's backend allocator, accounted against d's limit
 * and counted in its statistics as a tensor would be (an OutOfMemory message
 * on failure).  pdt_scratch_free gives it back through the backend's free,
 * which on a device with a stream is ordered after the work queued so far, so
 * it may be called right after the last launch that uses the memory. */
pdt_status pdt_scratch_alloc(pdt_device d, size_t nbytes, void **out);
void pdt_scratch_free(pdt_device d, void *ptr, size_t nbytes);

/* ---- transfers ---- */

typedef struct pdt_transfer_stats {
    uint64_t count[5]; /* indexed by pdt_copy_kind; H2H is never counted */
    uint64_t bytes[5];
    /* collectives (Note [collectives are counted] in pdt_collective.h): calls, and the
     * bytes this process sent under the ring model */
    uint64_t collective_count, collective_bytes;
} pdt_transfer_stats;

void pdt_transfer_stats_get(pdt_transfer_stats *out);
void pdt_transfer_stats_reset(void);
/* Counts one collective call that sent nbytes from this process. */
void pdt_collective_count(uint64_t nbytes);

/* ---- hooks installed by the bindings (NULL: off) ---- */

/* Called before every op runs, with the op's name and device. */
typedef void (*pdt_op_hook_fn)(const char *op, pdt_device device);
/* Called before every counted copy.  A non-OK return cancels the copy; the
 * hook records the message (the transfer guard uses this). */
typedef pdt_status (*pdt_copy_hook_fn)(pdt_copy_kind kind, pdt_device dst, pdt_device src,
                                       size_t nbytes);
void pdt_set_op_hook(pdt_op_hook_fn fn);
void pdt_set_copy_hook(pdt_copy_hook_fn fn);
/* The core calls these; they cost one load when no hook is set. */
void pdt_note_op(const char *op, pdt_device device);
/* A read of device data that the core makes for op on its own (an index check
 * reading an index's min and max), not one the caller asked for: set around the
 * copy, so that the copy hook sees it as implicit (Note [implicit and explicit
 * transfers] in csrc/python/guard.c).  Per thread; NULL outside such a read. */
void pdt_set_implicit_read(const char *op);
const char *pdt_implicit_read(void);

/* ---- random numbers (Philox 4x32-10, see pdt_philox.h) ---- */

/* Note [one stream for every device]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A generator is a Philox key (the seed) and a stream position (the next free
 * counter block, Note [Philox layout] in pdt_philox.h); it belongs to no device.
 * The default generator serves every device of the process, so manual_seed(s)
 * followed by the same calls gives the same numbers whichever devices they run
 * on, and a CUDA "generator state" is the same 16 bytes as the CPU's.  Other
 * generators (pydevtensor.Generator) are independent streams: drawing from one
 * leaves the others where they were.  Seed and position sit under one lock per
 * generator, so a draw is safe from any thread and sees the pair of one moment:
 * a draw while another thread calls manual_seed or set_state gets either the
 * old (seed, position) or the new one, never the new seed with the old
 * position; either order of the two is possible. */
#define PDT_DEFAULT_SEED 67280421310721ULL
typedef struct pdt_generator pdt_generator; /* opaque */
pdt_generator *pdt_default_generator(void);
/* A new generator at (PDT_DEFAULT_SEED, 0); NULL when out of host memory. */
pdt_generator *pdt_generator_new(void);
void pdt_generator_free(pdt_generator *g); /* not the default one; NULL is ignored */
/* seed and position (offset in 128-bit counter blocks); g NULL: the default. */
void pdt_generator_get_state(pdt_generator *g, uint64_t *seed, uint64_t *offset);
void pdt_generator_set_state(pdt_generator *g, uint64_t seed, uint64_t offset);
void pdt_manual_seed(uint64_t seed); /* the default generator at (seed, 0) */
uint64_t pdt_initial_seed(void);
/* Claims nblocks counter blocks of g (NULL: the default generator) and fills
 * spec->seed and spec->offset. */
void pdt_random_claim(pdt_generator *g, uint64_t nblocks, pdt_random_spec *spec);

#ifdef __cplusplus
}
#endif
#endif /* PDT_RUNTIME_H */
