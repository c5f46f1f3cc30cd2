/* pdt_runtime.c - backends, device checks, the current CUDA device, memory
 * accounting, transfer counters, hooks and the random generator's state. */
#include "pdt_runtime.h"
#include "pdt_internal.h"
#include "pdt_library.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- backends and devices ---- */

static const pdt_backend *const backends[PDT_NUM_KINDS] = {
    &pdt_cpu_backend,
#ifdef PDT_HAVE_CUDA
    &pdt_cuda_backend,
#else
    NULL,
#endif
};

const pdt_backend *pdt_backend_of(int kind)
{
    return kind >= 0 && kind < PDT_NUM_KINDS ? backends[kind] : NULL;
}

const char *pdt_available_devices(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < PDT_NUM_KINDS; k++) {
        int count = pdt_device_count(k);
        for (int i = 0; i < count && used < n; i++) {
            char name[32];
            pdt_device d = {k, i};
            int w = snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
                             pdt_device_str(d, name, sizeof name));
            if (w < 0)
                break;
            used += (size_t)w;
        }
    }
    return buf;
}

pdt_status pdt_device_check(pdt_device d)
{
    char name[32], avail[512];
    const char *kind = pdt_device_kind_name(d.kind);
    if (!kind || d.index < 0)
        return pdt_fail(PDT_ERR_DEVICE, "invalid device (kind %d, index %d)", d.kind, d.index);
    pdt_registry_initialize();
    const pdt_backend *b = pdt_backend_of(d.kind);
    int count = b ? pdt_device_count(d.kind) : 0;
    if (d.index < count)
        return PDT_OK;
    pdt_device_str(d, name, sizeof name);
    pdt_available_devices(avail, sizeof avail);
    if (!b)
        return pdt_fail(PDT_ERR_DEVICE,
                        "%s unknown device; available: %s (pydevtensor was not built with %s "
                        "support: rebuild with PYDEVTENSOR_CUDA=1 and a CUDA toolkit)",
                        name, avail, kind);
    if (pdt_physical_device_count(d.kind) == 0 && b->unavailable_reason && b->unavailable_reason())
        return pdt_fail(PDT_ERR_DEVICE, "%s unknown device; available: %s (%s)", name, avail,
                        b->unavailable_reason());
    return pdt_fail(PDT_ERR_DEVICE,
                    "%s unknown device; available: %s (no such device: %d %s device%s)", name,
                    avail, count, kind, count == 1 ? "" : "s");
}

struct pdt_library *pdt_backend_library(int kind, int i)
{
    const pdt_backend *b = pdt_backend_of(kind);
    if (!b || !b->libraries || i < 0)
        return NULL;
    for (int k = 0; k < i; k++)
        if (!b->libraries[k])
            return NULL;
    return b->libraries[i];
}

void pdt_backend_prepare_gemm(int kind)
{
    const pdt_backend *b = pdt_backend_of(kind);
    if (b && b->prepare_gemm)
        b->prepare_gemm();
}

int pdt_backend_set_num_threads(int kind, int n)
{
    const pdt_backend *b = pdt_backend_of(kind);
    return b && b->set_num_threads ? b->set_num_threads(n) : -1;
}

int pdt_backend_set_flush_denormal(int kind, int on)
{
    const pdt_backend *b = pdt_backend_of(kind);
    return b && b->set_flush_denormal ? b->set_flush_denormal(on) : 0;
}

int pdt_backend_num_threads(int kind)
{
    const pdt_backend *b = pdt_backend_of(kind);
    return b && b->num_threads ? b->num_threads() : -1;
}

const char *pdt_backend_simd_level(int kind, char *buf, size_t n)
{
    const pdt_backend *b = pdt_backend_of(kind);
    return b && b->simd_level ? b->simd_level(buf, n) : NULL;
}

int pdt_backend_set_simd_level(int kind, const char *name)
{
    const pdt_backend *b = pdt_backend_of(kind);
    return b && b->set_simd_level ? b->set_simd_level(name) : -1;
}

void pdt_backend_add_library_dir(int kind, const char *dir)
{
    struct pdt_library *lib;
    for (int i = 0; (lib = pdt_backend_library(kind, i)) != NULL; i++)
        pdt_library_add_dir(lib, dir);
}

void pdt_backend_describe(int kind, char *buf, size_t n)
{
    const pdt_backend *b = pdt_backend_of(kind);
    if (n)
        buf[0] = '\0';
    if (b && b->describe)
        b->describe(buf, n);
}

static _Thread_local int current_cuda_index;

int pdt_current_cuda(void) { return current_cuda_index; }

pdt_status pdt_set_current_cuda(int index)
{
    pdt_device d = {PDT_CUDA, index};
    pdt_status st = pdt_device_check(d);
    if (st == PDT_OK)
        current_cuda_index = index;
    return st;
}

/* ---- memory accounting ---- */

typedef struct memory_counter {
    _Atomic uint64_t allocated;
    _Atomic uint64_t peak;
    _Atomic uint64_t limit;
} memory_counter;

static memory_counter memory[PDT_NUM_KINDS][PDT_MAX_DEVICES];

static memory_counter *counter_of(pdt_device d)
{
    if (d.kind < 0 || d.kind >= PDT_NUM_KINDS || d.index < 0 || d.index >= PDT_MAX_DEVICES)
        return NULL;
    return &memory[d.kind][d.index];
}

pdt_status pdt_memory_get(pdt_device d, pdt_memory_stats *out)
{
    pdt_status st = pdt_device_check(d);
    if (st != PDT_OK)
        return st;
    memory_counter *c = counter_of(d);
    const pdt_backend *b = pdt_backend_of(d.kind);
    if (!c || !b) /* not after pdt_device_check; said for the compiler's flow analysis */
        return pdt_fail(PDT_ERR_DEVICE, "invalid device for memory statistics");
    out->allocated = atomic_load(&c->allocated);
    out->peak = atomic_load(&c->peak);
    out->limit = atomic_load(&c->limit);
    out->reserved = b->reserved ? b->reserved(d.index) : out->allocated;
    if (out->reserved < out->allocated)
        out->reserved = out->allocated;
    /* reserved never falls below allocated, so neither does its peak; the
     * backend's watermark may also lag what it reports as reserved now (a
     * CUDA pool's is reset to zero and starts again from there) */
    out->reserved_peak = b->reserved_peak ? b->reserved_peak(d.index) : 0;
    if (out->reserved_peak < out->peak)
        out->reserved_peak = out->peak;
    if (out->reserved_peak < out->reserved)
        out->reserved_peak = out->reserved;
    return PDT_OK;
}

pdt_status pdt_memory_reset_peak(pdt_device d)
{
    pdt_status st = pdt_device_check(d);
    if (st != PDT_OK)
        return st;
    memory_counter *c = counter_of(d);
    const pdt_backend *b = pdt_backend_of(d.kind);
    if (!c || !b) /* not after pdt_device_check; said for the compiler's flow analysis */
        return pdt_fail(PDT_ERR_DEVICE, "invalid device for memory statistics");
    atomic_store(&c->peak, atomic_load(&c->allocated));
    if (b->reset_reserved_peak)
        b->reset_reserved_peak(d.index);
    return PDT_OK;
}

pdt_status pdt_memory_set_limit(pdt_device d, uint64_t limit_bytes)
{
    pdt_status st = pdt_device_check(d);
    if (st != PDT_OK)
        return st;
    pdt_memory_set_limit_unchecked(d, limit_bytes);
    return PDT_OK;
}

void pdt_memory_set_limit_unchecked(pdt_device d, uint64_t limit_bytes)
{
    memory_counter *c = counter_of(d);
    if (c)
        atomic_store(&c->limit, limit_bytes);
}

pdt_status pdt_memory_empty_cache(pdt_device d)
{
    pdt_status st = pdt_device_check(d);
    if (st != PDT_OK)
        return st;
    const pdt_backend *b = pdt_backend_of(d.kind);
    if (b->empty_cache)
        b->empty_cache(d.index);
    return PDT_OK;
}

/* Under a limit (a logical device's, set_memory_limit's) the room left under it is what
 * counts: the device's free memory is shared with the other logical devices on it, and
 * may be far larger (a 1 GiB logical GPU on an 80 GiB card said "70 GiB free"). */
pdt_status pdt_memory_fail_oom(pdt_device d, size_t request, const char *backend_message)
{
    char name[32], req[32], alloc[32], lim[32], left[32], fr[32];
    memory_counter *c = counter_of(d);
    uint64_t allocated = c ? atomic_load(&c->allocated) : 0;
    uint64_t limit = c ? atomic_load(&c->limit) : 0;
    size_t free_b = 0, total_b = 0;
    const pdt_backend *b = pdt_backend_of(d.kind);
    int have_info = b && b->mem_info && b->mem_info(d.index, &free_b, &total_b) == PDT_OK;
    return pdt_fail(
        PDT_ERR_OOM,
        "out of memory on %s: tried to allocate %s; %s allocated by pydevtensor, "
        "limit %s%s%s%s, %s free on the device%s%s%s",
        pdt_device_str(d, name, sizeof name), pdt_format_bytes(request, req, sizeof req),
        pdt_format_bytes(allocated, alloc, sizeof alloc),
        limit ? pdt_format_bytes(limit, lim, sizeof lim) : "none", limit ? " (" : "",
        limit ? pdt_format_bytes(limit > allocated ? limit - allocated : 0, left, sizeof left) : "",
        limit ? " left under it)" : "",
        have_info ? pdt_format_bytes(free_b, fr, sizeof fr) : "unknown",
        backend_message && *backend_message ? " (" : "",
        backend_message && *backend_message ? backend_message : "",
        backend_message && *backend_message ? ")" : "");
}

pdt_status pdt_memory_reserve(pdt_device d, size_t nbytes)
{
    memory_counter *c = counter_of(d);
    if (!c)
        return pdt_fail(PDT_ERR_DEVICE, "invalid device for allocation");
    uint64_t limit = atomic_load(&c->limit);
    uint64_t cur = atomic_load(&c->allocated);
    for (;;) {
        if (nbytes > UINT64_MAX - cur || (limit && cur + nbytes > limit))
            return pdt_memory_fail_oom(d, nbytes,
                                       "the request would pass the device's memory limit; "
                                       "nothing was allocated");
        if (atomic_compare_exchange_weak(&c->allocated, &cur, cur + nbytes))
            break;
    }
    uint64_t now = cur + nbytes, peak = atomic_load(&c->peak);
    while (now > peak && !atomic_compare_exchange_weak(&c->peak, &peak, now))
        ;
    return PDT_OK;
}

void pdt_memory_unreserve(pdt_device d, size_t nbytes)
{
    memory_counter *c = counter_of(d);
    if (c)
        atomic_fetch_sub(&c->allocated, nbytes);
}

pdt_status pdt_scratch_alloc(pdt_device d, size_t nbytes, void **out)
{
    *out = NULL;
    const pdt_backend *b = pdt_backend_of(d.kind);
    if (!b)
        return pdt_fail(PDT_ERR_DEVICE, "scratch memory: no backend for device kind %d", d.kind);
    pdt_status st = pdt_memory_reserve(d, nbytes);
    if (st != PDT_OK)
        return st;
    st = b->alloc(d.index, nbytes, out);
    if (st != PDT_OK) {
        char why[256];
        snprintf(why, sizeof why, "%s", pdt_last_error());
        pdt_memory_unreserve(d, nbytes);
        *out = NULL;
        return st == PDT_ERR_OOM ? pdt_memory_fail_oom(d, nbytes, why) : st;
    }
    return PDT_OK;
}

void pdt_scratch_free(pdt_device d, void *ptr, size_t nbytes)
{
    const pdt_backend *b = pdt_backend_of(d.kind);
    if (!ptr || !b)
        return;
    b->free(d.index, ptr, nbytes);
    pdt_memory_unreserve(d, nbytes);
}

/* ---- transfers ---- */

static _Atomic uint64_t transfer_count[5], transfer_bytes[5];
static _Atomic uint64_t collective_count, collective_bytes;

void pdt_transfer_stats_get(pdt_transfer_stats *out)
{
    for (int k = 0; k < 5; k++) {
        out->count[k] = atomic_load(&transfer_count[k]);
        out->bytes[k] = atomic_load(&transfer_bytes[k]);
    }
    out->collective_count = atomic_load(&collective_count);
    out->collective_bytes = atomic_load(&collective_bytes);
}

void pdt_transfer_stats_reset(void)
{
    for (int k = 0; k < 5; k++) {
        atomic_store(&transfer_count[k], 0);
        atomic_store(&transfer_bytes[k], 0);
    }
    atomic_store(&collective_count, 0);
    atomic_store(&collective_bytes, 0);
}

void pdt_collective_count(uint64_t nbytes)
{
    atomic_fetch_add(&collective_count, 1);
    atomic_fetch_add(&collective_bytes, nbytes);
}

void pdt_transfer_count(pdt_copy_kind kind, size_t nbytes)
{
    atomic_fetch_add(&transfer_count[kind], 1);
    atomic_fetch_add(&transfer_bytes[kind], nbytes);
}

/* ---- hooks ---- */

static _Atomic(pdt_op_hook_fn) op_hook;
static _Atomic(pdt_copy_hook_fn) copy_hook;

void pdt_set_op_hook(pdt_op_hook_fn fn) { atomic_store(&op_hook, fn); }
void pdt_set_copy_hook(pdt_copy_hook_fn fn) { atomic_store(&copy_hook, fn); }

static _Thread_local const char *implicit_read_op;

void pdt_set_implicit_read(const char *op) { implicit_read_op = op; }

const char *pdt_implicit_read(void) { return implicit_read_op; }

void pdt_note_op(const char *op, pdt_device device)
{
    pdt_op_hook_fn fn = atomic_load_explicit(&op_hook, memory_order_relaxed);
    if (fn)
        fn(op, device);
}

pdt_status pdt_note_copy(pdt_copy_kind kind, pdt_device dst, pdt_device src, size_t nbytes)
{
    pdt_copy_hook_fn fn = atomic_load_explicit(&copy_hook, memory_order_relaxed);
    return fn ? fn(kind, dst, src, nbytes) : PDT_OK;
}

/* ---- random (Note [one stream for every device] in pdt_runtime.h) ---- */

/* seed and offset change together (manual_seed, set_state) and a draw reads one
 * and advances the other, so both sit under one small lock: a draw never mixes
 * a new seed with an old position. */
struct pdt_generator {
    pthread_mutex_t lock;
    uint64_t seed;
    uint64_t offset; /* the next unused counter block */
};

static pdt_generator default_generator = {PTHREAD_MUTEX_INITIALIZER, PDT_DEFAULT_SEED, 0};

pdt_generator *pdt_default_generator(void) { return &default_generator; }

pdt_generator *pdt_generator_new(void)
{
    pdt_generator *g = malloc(sizeof *g);
    if (g && pthread_mutex_init(&g->lock, NULL) != 0) {
        free(g);
        return NULL;
    }
    if (g) {
        g->seed = PDT_DEFAULT_SEED;
        g->offset = 0;
    }
    return g;
}

void pdt_generator_free(pdt_generator *g)
{
    if (g && g != &default_generator) {
        pthread_mutex_destroy(&g->lock);
        free(g);
    }
}

void pdt_generator_get_state(pdt_generator *g, uint64_t *seed, uint64_t *offset)
{
    g = g ? g : &default_generator;
    pthread_mutex_lock(&g->lock);
    *seed = g->seed;
    *offset = g->offset;
    pthread_mutex_unlock(&g->lock);
}

void pdt_generator_set_state(pdt_generator *g, uint64_t seed, uint64_t offset)
{
    g = g ? g : &default_generator;
    pthread_mutex_lock(&g->lock);
    g->seed = seed;
    g->offset = offset;
    pthread_mutex_unlock(&g->lock);
}

void pdt_manual_seed(uint64_t seed) { pdt_generator_set_state(NULL, seed, 0); }

uint64_t pdt_initial_seed(void)
{
    uint64_t seed, offset;
    pdt_generator_get_state(NULL, &seed, &offset);
    return seed;
}

void pdt_random_claim(pdt_generator *g, uint64_t nblocks, pdt_random_spec *spec)
{
    g = g ? g : &default_generator;
    pthread_mutex_lock(&g->lock);
    spec->seed = g->seed;
    spec->offset = g->offset;
    g->offset += nblocks;
    pthread_mutex_unlock(&g->lock);
}
