/* pdt_registry.c - which devices exist: visible physical devices, their split
 * into logical devices, the logical -> physical map the backends use, and the
 * freeze at first use.
 *
 * Note [logical devices]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * As in TensorFlow's tf.config, a physical device can be split into several
 * logical devices before the first one is used.  Each logical device has its
 * own index (cuda:0, cuda:1, ... or cpu:0, cpu:1, ...), its own memory
 * accounting and its own limit; its work runs on the physical device's stream.
 * Logical devices are numbered in order of the visible physical devices.  This
 * lets multi-device code (copies between devices, the same-device errors, two
 * devices at once) run and be tested on one GPU, or on a machine with none.
 * The first use of any device (pdt_device_check) builds the table for good;
 * after that it is read without a lock.
 * Logical indices never leave the package: CUDA itself, and every other
 * library (DLPack's device_id, the CUDA array interface, a pointer's device),
 * knows only the physical ordinal.  Backends map logical -> physical with
 * pdt_physical_index; memory that comes in from a physical GPU lands on the
 * first logical device of that GPU (pdt_logical_index).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "pdt_internal.h"

typedef struct kind_registry {
    /* configuration */
    int visible_set, nvisible, visible[PDT_MAX_DEVICES];
    int nlogical[PDT_MAX_DEVICES];                     /* per physical; 0: default */
    uint64_t limits[PDT_MAX_DEVICES][PDT_MAX_DEVICES]; /* [physical][logical] */
    /* the table built from it */
    int built, count;
    int physical[PDT_MAX_DEVICES];
    uint64_t limit[PDT_MAX_DEVICES];
} kind_registry;

static kind_registry reg[PDT_NUM_KINDS];
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int initialized;
static atomic_int soft_placement;

int pdt_physical_device_count(int kind)
{
    const pdt_backend *b = pdt_backend_of(kind);
    if (!b)
        return 0;
    int n = b->device_count();
    return n < PDT_MAX_DEVICES ? n : PDT_MAX_DEVICES;
}

/* Rebuilds kind's table from its configuration.  Under reg_lock. */
static void build(int kind)
{
    kind_registry *r = &reg[kind];
    int nphys = pdt_physical_device_count(kind), nvis = 0, vis[PDT_MAX_DEVICES];
    if (r->visible_set) {
        for (int i = 0; i < r->nvisible; i++)
            if (r->visible[i] < nphys)
                vis[nvis++] = r->visible[i];
    } else {
        for (int i = 0; i < nphys; i++)
            vis[nvis++] = i;
    }
    r->count = 0;
    for (int v = 0; v < nvis; v++) {
        int p = vis[v], n = r->nlogical[p] ? r->nlogical[p] : 1;
        for (int j = 0; j < n && r->count < PDT_MAX_DEVICES; j++) {
            r->physical[r->count] = p;
            r->limit[r->count] = r->nlogical[p] ? r->limits[p][j] : 0;
            r->count++;
        }
    }
    r->built = 1;
}

/* The table for kind, built if needed (lock-free once initialized). */
static const kind_registry *table(int kind)
{
    if (atomic_load_explicit(&initialized, memory_order_acquire))
        return &reg[kind];
    pthread_mutex_lock(&reg_lock);
    if (!reg[kind].built)
        build(kind);
    pthread_mutex_unlock(&reg_lock);
    return &reg[kind];
}

int pdt_device_count(int kind)
{
    if (kind < 0 || kind >= PDT_NUM_KINDS)
        return 0;
    return table(kind)->count;
}

int pdt_physical_index(int kind, int index)
{
    if (kind < 0 || kind >= PDT_NUM_KINDS)
        return -1;
    const kind_registry *r = table(kind);
    return index >= 0 && index < r->count ? r->physical[index] : -1;
}

int pdt_logical_index(int kind, int physical)
{
    if (kind < 0 || kind >= PDT_NUM_KINDS || physical < 0)
        return -1;
    const kind_registry *r = table(kind);
    for (int i = 0; i < r->count; i++)
        if (r->physical[i] == physical)
            return i;
    return -1;
}

int pdt_runtime_initialized(void) { return atomic_load(&initialized); }

void pdt_registry_initialize(void)
{
    if (atomic_load_explicit(&initialized, memory_order_acquire))
        return;
    pthread_mutex_lock(&reg_lock);
    if (!atomic_load_explicit(&initialized, memory_order_relaxed)) {
        for (int k = 0; k < PDT_NUM_KINDS; k++) {
            build(k);
            for (int i = 0; i < reg[k].count; i++)
                if (reg[k].limit[i])
                    pdt_memory_set_limit_unchecked((pdt_device){k, i}, reg[k].limit[i]);
        }
        atomic_store_explicit(&initialized, 1, memory_order_release);
    }
    pthread_mutex_unlock(&reg_lock);
}

static pdt_status frozen(const char *what)
{
    return pdt_fail(PDT_ERR_DEVICE,
                    "%s cannot be modified after being initialized: a device was already used "
                    "(a tensor made, a device queried).  Configure devices before anything else "
                    "touches pydevtensor: first thing in the script or, in a notebook, restart "
                    "the kernel and run the configuration cell first",
                    what);
}

pdt_status pdt_set_visible_devices(int kind, int n, const int *physical)
{
    if (kind < 0 || kind >= PDT_NUM_KINDS || n < 0 || n > PDT_MAX_DEVICES)
        return pdt_fail(PDT_ERR_VALUE, "set_visible_devices: bad arguments");
    int nphys = pdt_physical_device_count(kind);
    for (int i = 0; i < n; i++)
        if (physical[i] < 0 || physical[i] >= nphys)
            return pdt_fail(PDT_ERR_VALUE,
                            "set_visible_devices: physical %s device %d does not exist (%d found)",
                            pdt_device_kind_name(kind), physical[i], nphys);
    if (kind == PDT_CPU && n == 0)
        return pdt_fail(PDT_ERR_VALUE, "set_visible_devices: the CPU cannot be hidden");
    pthread_mutex_lock(&reg_lock);
    pdt_status st = PDT_OK;
    if (atomic_load(&initialized)) {
        st = frozen("Visible devices");
    } else {
        reg[kind].visible_set = 1;
        reg[kind].nvisible = n;
        memcpy(reg[kind].visible, physical, (size_t)n * sizeof *physical);
        reg[kind].built = 0;
    }
    pthread_mutex_unlock(&reg_lock);
    return st;
}

void pdt_get_visible_devices(int kind, int *n, int *out)
{
    *n = 0;
    if (kind < 0 || kind >= PDT_NUM_KINDS)
        return;
    pthread_mutex_lock(&reg_lock);
    int nphys = pdt_physical_device_count(kind);
    if (reg[kind].visible_set) {
        for (int i = 0; i < reg[kind].nvisible; i++)
            if (reg[kind].visible[i] < nphys)
                out[(*n)++] = reg[kind].visible[i];
    } else {
        for (int i = 0; i < nphys; i++)
            out[(*n)++] = i;
    }
    pthread_mutex_unlock(&reg_lock);
}

pdt_status pdt_set_logical_devices(int kind, int physical, int n, const uint64_t *limits)
{
    if (kind < 0 || kind >= PDT_NUM_KINDS || n < 0 || n > PDT_MAX_DEVICES)
        return pdt_fail(PDT_ERR_VALUE,
                        "set_logical_device_configuration: between 0 and %d logical devices",
                        PDT_MAX_DEVICES);
    int nphys = pdt_physical_device_count(kind);
    if (physical < 0 || physical >= nphys)
        return pdt_fail(PDT_ERR_VALUE,
                        "set_logical_device_configuration: physical %s device %d does not exist "
                        "(%d found)",
                        pdt_device_kind_name(kind), physical, nphys);
    pthread_mutex_lock(&reg_lock);
    pdt_status st = PDT_OK;
    if (atomic_load(&initialized)) {
        st = frozen("Virtual devices");
    } else {
        reg[kind].nlogical[physical] = n;
        for (int j = 0; j < n; j++)
            reg[kind].limits[physical][j] = limits ? limits[j] : 0;
        reg[kind].built = 0;
    }
    pthread_mutex_unlock(&reg_lock);
    return st;
}

void pdt_get_logical_devices(int kind, int physical, int *n, uint64_t *limits)
{
    *n = 0;
    if (kind < 0 || kind >= PDT_NUM_KINDS || physical < 0 || physical >= PDT_MAX_DEVICES)
        return;
    pthread_mutex_lock(&reg_lock);
    *n = reg[kind].nlogical[physical];
    for (int j = 0; j < *n; j++)
        limits[j] = reg[kind].limits[physical][j];
    pthread_mutex_unlock(&reg_lock);
}

void pdt_set_soft_placement(int on) { atomic_store(&soft_placement, on != 0); }
int pdt_soft_placement(void) { return atomic_load(&soft_placement); }

pdt_device pdt_nearest_device(pdt_device d)
{
    pdt_device out = {PDT_CPU, 0};
    if (d.kind == PDT_CUDA && pdt_device_count(PDT_CUDA) > 0)
        out.kind = PDT_CUDA;
    return out;
}
