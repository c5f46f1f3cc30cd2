/* emu_memory.cpp - emulated device and pinned memory: every allocation is its
 * own anonymous mapping, tagged with its device in a registry; freed memory
 * is poisoned (its pages made inaccessible, so any access faults and the
 * fault handler names it) and kept in a quarantine for a while, so addresses
 * are not reused at once; stream-ordered pools keep the accounting that
 * cudaMemGetInfo, out of memory and cudaMemPoolAttrReservedMemCurrent show.
 *
 * Note [emulated pools]
 * ~~~~~~~~~~~~~~~~~~~~~
 * A pool (CUDA Runtime API, "Stream Ordered Memory Allocator") reserves
 * device memory in 2 MiB steps and keeps what is freed reserved until a
 * synchronisation finds more than its release threshold unused, or
 * cudaMemPoolTrimTo gives it back.  Only the byte counts are modelled: the
 * emulator never hands freed addresses out again (to catch uses after free),
 * so fragmentation is not.  Memory given to cudaFreeAsync stays in use until
 * its stream reaches the free, but the allocator "is free to reallocate the
 * memory as long as it can guarantee that compliant memory accesses will not
 * overlap temporally" and "may refer to internal stream ordering" (CUDA
 * Runtime API, "Stream Ordered Memory Allocator", overview): an allocation on
 * the same stream comes after the free in that stream's order, so its bytes
 * count as free for it at once.  Without that, a stream that is not waited on
 * (streams here run when waited on) filled the device with freed blocks: 700
 * allocations of 2 MiB, each freed at once, reserved 392 MiB for 2 MiB in use.  A device's memory is full when what cudaMalloc
 * holds plus what its pools reserve would pass PYDEVTENSOR_EMULATED_MEMORY_MB;
 * the allocation then fails with cudaErrorMemoryAllocation.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <vector>

#include "emu_runtime.h"

namespace pdt_emu {

namespace {

constexpr size_t kGranule = 2 << 20; /* pool reservations */
constexpr size_t kAlign = 512;       /* accounting of one allocation */
constexpr size_t kQuarantine = 8192; /* freed allocations kept poisoned */

struct pool {
    int device;
    bool is_default;
    size_t reserved = 0, used = 0;
    /* cudaMemPoolAttrReservedMemHigh / UsedMemHigh: the highest reserved and
     * used since the pool was made or the watermark was last reset */
    size_t reserved_high = 0, used_high = 0;
    /* bytes of cudaFreeAsync calls whose stream has not reached them, by stream:
     * in `used` until it does, but reusable at once by that stream's own
     * allocations (Note [emulated pools]) */
    std::map<const void *, size_t> pending;
    uint64_t release_threshold = 0;
    int access[kMaxDevices] = {0}; /* cudaMemPoolSetAccess */
};

struct allocation {
    char *base;
    size_t size;   /* requested */
    size_t mapped; /* page-rounded mapping */
    size_t charge; /* bytes counted against the device or pool */
    int device;    /* -1 for pinned host memory */
    mem_kind kind;
    bool live;
    pool *from;           /* NULL: cudaMalloc or pinned */
    const char *freed_by; /* the call that freed it */
    bool free_enqueued;   /* cudaFreeAsync called, its stream not there yet */
};

std::mutex mu; /* guards everything below */
std::map<uintptr_t, allocation> registry;
std::deque<uintptr_t> quarantine;
size_t device_direct[kMaxDevices]; /* cudaMalloc bytes per device */
std::vector<pool *> pools;         /* every pool ever created */
pool *default_pools[kMaxDevices];

size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }
size_t page()
{
    static const size_t p = (size_t)sysconf(_SC_PAGESIZE);
    return p;
}

/* Bytes of device dev in use: cudaMalloc plus every pool's reservation.  mu held. */
size_t device_used(int dev)
{
    size_t n = device_direct[dev];
    for (pool *p : pools)
        if (p->device == dev)
            n += p->reserved;
    return n;
}

pool *default_pool(int dev)
{
    if (default_pools[dev] == NULL) {
        pool *p = new pool;
        p->device = dev;
        p->is_default = true;
        pools.push_back(p);
        default_pools[dev] = p;
    }
    return default_pools[dev];
}

/* The allocation containing p (live or quarantined), or NULL.  mu held. */
allocation *find(const void *p)
{
    auto it = registry.upper_bound((uintptr_t)p);
    if (it == registry.begin())
        return NULL;
    --it;
    allocation &a = it->second;
    uintptr_t u = (uintptr_t)p;
    if (u >= (uintptr_t)a.base && u < (uintptr_t)a.base + (a.size ? a.size : 1))
        return &a;
    return NULL;
}

/* Maps fresh memory and registers it.  mu held. */
void *map_new(size_t size, int device, mem_kind kind, pool *from, size_t charge)
{
    size_t mapped = round_up(size ? size : 1, page());
    void *p = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    registry[(uintptr_t)p] = allocation{(char *)p, size, mapped, charge, device,
                                        kind,      true, from,   NULL,   false};
    return p;
}

/* Poisons a (mu held): its pages are dropped and made inaccessible, and it
 * stays in the registry (quarantine) so that a later use is named. */
void poison(allocation &a, const char *by)
{
    madvise(a.base, a.mapped, MADV_DONTNEED);
    mprotect(a.base, a.mapped, PROT_NONE);
    a.live = false;
    a.freed_by = by;
    quarantine.push_back((uintptr_t)a.base);
    if (quarantine.size() > kQuarantine) {
        auto it = registry.find(quarantine.front());
        if (it != registry.end()) {
            munmap(it->second.base, it->second.mapped);
            registry.erase(it);
        }
        quarantine.pop_front();
    }
}

void describe(const allocation &a, char *buf, size_t n)
{
    if (a.kind == MEM_PINNED)
        snprintf(buf, n, "%s pinned host allocation of %zu bytes at %p%s%s",
                 a.live ? "a" : "a freed", a.size, (void *)a.base, a.live ? "" : " (freed by ",
                 a.live ? "" : a.freed_by);
    else
        snprintf(buf, n, "%s allocation of %zu bytes at %p on cuda:%d%s%s%s",
                 a.live ? "an" : "a freed", a.size, (void *)a.base, a.device,
                 a.live ? "" : " (freed by ", a.live ? "" : a.freed_by, a.live ? "" : ")");
}

} // namespace

int lookup(const void *p, mem_info *out)
{
    std::lock_guard<std::mutex> g(mu);
    allocation *a = find(p);
    if (a == NULL) {
        *out = mem_info{MEM_NONE, -1, 0, NULL, 0, NULL};
        return 0;
    }
    *out = mem_info{a->kind, a->device, a->live, a->base, a->size, a->from};
    return 1;
}

int describe_address(const void *addr, char *buf, size_t n)
{
    if (!mu.try_lock())
        return 0;
    allocation *a = find(addr);
    int found = a != NULL;
    if (found) {
        char what[320];
        describe(*a, what, sizeof what);
        snprintf(buf, n, "%zu bytes into %s", (size_t)((const char *)addr - a->base), what);
    }
    mu.unlock();
    return found;
}

void check_device_access(const char *who, const char *what, int dev, const void *p, size_t bytes)
{
    if (p == NULL) {
        if (bytes == 0)
            return;
        violation(who,
                  "CUDA C++ Programming Guide, \"Device Memory\": device code reads and "
                  "writes device memory",
                  "%s is NULL (%zu bytes)", what, bytes);
    }
    std::lock_guard<std::mutex> g(mu);
    allocation *a = find(p);
    char desc[320];
    if (a == NULL)
        violation(who,
                  "CUDA C++ Programming Guide, \"Device Memory\": device code can access only "
                  "device memory (and page-locked host memory)",
                  "%s = %p is not memory of any emulated device (a pageable host pointer?)", what,
                  p);
    describe(*a, desc, sizeof desc);
    if (!a->live)
        violation(who,
                  "CUDA Runtime API, cudaFree/cudaFreeAsync: memory must not be used after "
                  "it is freed",
                  "%s = %p lies in %s", what, p, desc);
    if (a->kind == MEM_DEVICE && a->device != dev) {
        bool ok = a->from != NULL ? a->from->access[dev] != 0 : peer_enabled(dev, a->device) != 0;
        if (!ok)
            violation(
                who,
                a->from != NULL
                    ? "CUDA Runtime API, cudaMemPoolSetAccess: memory of a pool on another "
                      "device is accessible only after cudaMemPoolSetAccess for this device"
                    : "CUDA Runtime API, cudaDeviceEnablePeerAccess: memory of another device "
                      "is accessible only after peer access is enabled",
                "%s = %p lies in %s, but the code runs on cuda:%d", what, p, desc, dev);
    }
    if ((uintptr_t)p + bytes > (uintptr_t)a->base + a->size)
        violation(who,
                  "CUDA C++ Programming Guide, \"Device Memory\": accesses must stay inside "
                  "the allocation",
                  "%s = %p, %zu bytes, runs %zu bytes past the end of %s", what, p, bytes,
                  (size_t)((uintptr_t)p + bytes - ((uintptr_t)a->base + a->size)), desc);
}

void pools_after_sync(int dev)
{
    /* CUDA Runtime API, cudaMemPoolAttrReleaseThreshold: at a stream, event
     * or device synchronisation the pool releases unused memory above the
     * threshold. */
    std::lock_guard<std::mutex> g(mu);
    for (pool *p : pools) {
        if (p->device != dev)
            continue;
        size_t keep = round_up(p->used, kGranule);
        if (p->release_threshold > keep)
            keep = p->release_threshold < p->reserved ? (size_t)p->release_threshold : p->reserved;
        if (p->reserved > keep)
            p->reserved = keep;
    }
}

/* Stream-ordered allocation from pool p (mu not held). */
static cudaError_t pool_alloc(void **out, size_t size, pool *p, stream *s, const char *call)
{
    if (s->device != p->device)
        violation(call,
                  "CUDA Runtime API, cudaMallocFromPoolAsync: the stream must belong to the "
                  "pool's device",
                  "pool of cuda:%d, stream of cuda:%d", p->device, s->device);
    std::lock_guard<std::mutex> g(mu);
    const size_t charge = round_up(size ? size : 1, kAlign);
    auto reuse = p->pending.find(s); /* Note [emulated pools]: same-stream reuse */
    const size_t in_use = p->used - (reuse == p->pending.end() ? 0 : reuse->second);
    if (in_use + charge > p->reserved) {
        size_t grow = round_up(in_use + charge - p->reserved, kGranule);
        if (device_used(p->device) + grow > device_memory_bytes())
            return set_error(cudaErrorMemoryAllocation);
        p->reserved += grow;
        p->reserved_high = std::max(p->reserved_high, p->reserved);
    }
    void *m = map_new(size, p->device, MEM_DEVICE, p, charge);
    if (m == NULL)
        return set_error(cudaErrorMemoryAllocation);
    p->used += charge;
    p->used_high = std::max(p->used_high, p->used);
    *out = m;
    return cudaSuccess;
}

} // namespace pdt_emu

using namespace pdt_emu;

extern "C" {

PDT_EMU_API cudaError_t cudaMalloc(void **out, size_t size)
{
    if (out == NULL)
        return set_error(cudaErrorInvalidValue);
    *out = NULL;
    if (size == 0)
        return cudaSuccess; /* CUDA Runtime API, cudaMalloc: size 0 gives NULL */
    if (device_count() == 0)
        return set_error(cudaErrorNoDevice);
    if (fault_due("cudaMalloc"))
        return set_error(cudaErrorMemoryAllocation);
    const int dev = tls_device;
    if (sticky_error(dev) != cudaSuccess) /* Note [fault injection] */
        return sticky_error(dev);
    std::lock_guard<std::mutex> g(mu);
    const size_t charge = round_up(size, kAlign);
    if (device_used(dev) + charge > device_memory_bytes())
        return set_error(cudaErrorMemoryAllocation);
    void *m = map_new(size, dev, MEM_DEVICE, NULL, charge);
    if (m == NULL)
        return set_error(cudaErrorMemoryAllocation);
    device_direct[dev] += charge;
    *out = m;
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaFree(void *ptr)
{
    if (ptr == NULL)
        return cudaSuccess;
    mem_info info;
    if (!lookup(ptr, &info) || info.kind != MEM_DEVICE || info.base != (const char *)ptr)
        return set_error(cudaErrorInvalidValue);
    if (!info.live)
        violation("cudaFree", "CUDA Runtime API, cudaFree: memory must not be freed twice",
                  "%p was already freed", ptr);
    if (info.pool != NULL)
        violation("cudaFree",
                  "CUDA Runtime API, cudaFreeAsync: memory from a pool is freed with "
                  "cudaFreeAsync",
                  "%p came from a cudaMallocAsync pool", ptr);
    /* CUDA Runtime API, "API synchronization behavior": cudaFree synchronises
     * the device, so pending work that uses ptr runs first. */
    drain_device(info.device);
    std::lock_guard<std::mutex> g(mu);
    allocation *a = find(ptr);
    device_direct[a->device] -= a->charge;
    poison(*a, "cudaFree");
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaHostAlloc(void **out, size_t size, unsigned int flags)
{
    const unsigned known = cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
    if (out == NULL || (flags & ~known) != 0)
        return set_error(cudaErrorInvalidValue);
    if (fault_due("cudaHostAlloc")) {
        *out = NULL;
        return set_error(cudaErrorMemoryAllocation);
    }
    std::lock_guard<std::mutex> g(mu);
    *out = map_new(size, -1, MEM_PINNED, NULL, 0);
    return *out == NULL ? set_error(cudaErrorMemoryAllocation) : cudaSuccess;
}

/* CUDA Runtime API, "Memory Management", cudaHostGetDevicePointer: the device
 * address of mapped page-locked host memory from cudaHostAlloc (flags must be
 * 0).  Under unified addressing (CUDA C++ Programming Guide, "Unified Virtual
 * Address Space"; every device of a 64-bit process) all cudaHostAlloc memory
 * is mapped and portable and the device address is the host address.  Memory
 * not page-locked by CUDA, or freed, is cudaErrorInvalidValue. */
PDT_EMU_API cudaError_t cudaHostGetDevicePointer(void **out, void *host, unsigned int flags)
{
    mem_info info;
    if (out == NULL || flags != 0 || !lookup(host, &info) || info.kind != MEM_PINNED || !info.live)
        return set_error(cudaErrorInvalidValue);
    if (device_count() == 0)
        return set_error(cudaErrorNoDevice);
    if (!can_map_host()) /* the runtime's answer on a device that cannot map */
        return set_error(cudaErrorMemoryAllocation);
    *out = host;
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaMallocHost(void **out, size_t size)
{
    return cudaHostAlloc(out, size, cudaHostAllocDefault);
}

PDT_EMU_API cudaError_t cudaFreeHost(void *ptr)
{
    if (ptr == NULL)
        return cudaSuccess;
    mem_info info;
    if (!lookup(ptr, &info) || info.kind != MEM_PINNED || info.base != (const char *)ptr)
        return set_error(cudaErrorInvalidValue);
    if (!info.live)
        violation("cudaFreeHost", "CUDA Runtime API, cudaFreeHost: memory must not be freed twice",
                  "%p was already freed", ptr);
    std::lock_guard<std::mutex> g(mu);
    poison(*find(ptr), "cudaFreeHost");
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    if (free_bytes == NULL || total_bytes == NULL)
        return set_error(cudaErrorInvalidValue);
    if (device_count() == 0)
        return set_error(cudaErrorNoDevice);
    std::lock_guard<std::mutex> g(mu);
    *total_bytes = device_memory_bytes();
    *free_bytes = *total_bytes - device_used(tls_device);
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attr,
                                                 const void *ptr)
{
    if (attr == NULL)
        return set_error(cudaErrorInvalidValue);
    memset(attr, 0, sizeof *attr);
    mem_info info;
    /* CUDA Runtime API, cudaPointerGetAttributes: memory unknown to CUDA is
     * cudaMemoryTypeUnregistered (device -2), not an error. */
    if (!lookup(ptr, &info) || !info.live) {
        attr->type = cudaMemoryTypeUnregistered;
        attr->device = -2;
        return cudaSuccess;
    }
    if (info.kind == MEM_PINNED) {
        attr->type = cudaMemoryTypeHost;
        attr->device = tls_device;
        attr->hostPointer = (void *)ptr;
    } else {
        attr->type = cudaMemoryTypeDevice;
        attr->device = info.device;
    }
    attr->devicePointer = (void *)ptr;
    return cudaSuccess;
}

/* ------------------------------------------------------------------- pools */

PDT_EMU_API cudaError_t cudaMemPoolCreate(cudaMemPool_t *out, const struct cudaMemPoolProps *props)
{
    if (out == NULL || props == NULL || props->allocType != cudaMemAllocationTypePinned ||
        props->location.type != cudaMemLocationTypeDevice)
        return set_error(cudaErrorInvalidValue);
    if (!valid_device(props->location.id))
        return set_error(cudaErrorInvalidDevice);
    if (!has_memory_pools()) /* CUDA Runtime API, cudaMemPoolCreate: cudaErrorNotSupported */
        return set_error(cudaErrorNotSupported);
    pool *p = new pool;
    p->device = props->location.id;
    p->is_default = false;
    std::lock_guard<std::mutex> g(mu);
    pools.push_back(p);
    *out = reinterpret_cast<cudaMemPool_t>(p);
    return cudaSuccess;
}

static pool *check_pool(cudaMemPool_t handle, const char *call)
{
    pool *p = reinterpret_cast<pool *>(handle);
    std::lock_guard<std::mutex> g(mu);
    for (pool *q : pools)
        if (q == p)
            return p;
    violation(call,
              "CUDA Runtime API, cudaMemPoolCreate: a pool handle comes from "
              "cudaMemPoolCreate or cudaDeviceGetDefaultMemPool",
              "%p is not a memory pool", (void *)handle);
}

PDT_EMU_API cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *out, int device)
{
    if (out == NULL)
        return set_error(cudaErrorInvalidValue);
    if (!valid_device(device))
        return set_error(cudaErrorInvalidDevice);
    if (!has_memory_pools()) /* the runtime's answer on a device without pools */
        return set_error(cudaErrorNotSupported);
    std::lock_guard<std::mutex> g(mu);
    *out = reinterpret_cast<cudaMemPool_t>(default_pool(device));
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t handle, enum cudaMemPoolAttr attr,
                                                void *value)
{
    pool *p = check_pool(handle, "cudaMemPoolSetAttribute");
    if (value == NULL)
        return set_error(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> g(mu);
    if (attr == cudaMemPoolAttrReleaseThreshold) {
        p->release_threshold = *(uint64_t *)value;
    } else if (attr == cudaMemPoolAttrReservedMemHigh || attr == cudaMemPoolAttrUsedMemHigh) {
        /* CUDA Runtime API, cudaMemPoolAttr: "High watermark can only be reset
         * to zero"; the watermark then starts again from what the pool holds
         * (or uses) now, the highest value since the reset. */
        if (*(uint64_t *)value != 0)
            return set_error(cudaErrorInvalidValue);
        if (attr == cudaMemPoolAttrReservedMemHigh)
            p->reserved_high = p->reserved;
        else
            p->used_high = p->used;
    } else if (attr != cudaMemPoolReuseFollowEventDependencies &&
               attr != cudaMemPoolReuseAllowOpportunistic &&
               attr != cudaMemPoolReuseAllowInternalDependencies)
        return set_error(cudaErrorInvalidValue);
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t handle, enum cudaMemPoolAttr attr,
                                                void *value)
{
    pool *p = check_pool(handle, "cudaMemPoolGetAttribute");
    if (value == NULL)
        return set_error(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> g(mu);
    switch (attr) {
    case cudaMemPoolAttrReleaseThreshold: *(uint64_t *)value = p->release_threshold; break;
    case cudaMemPoolAttrReservedMemCurrent: *(uint64_t *)value = p->reserved; break;
    case cudaMemPoolAttrUsedMemCurrent: *(uint64_t *)value = p->used; break;
    case cudaMemPoolAttrReservedMemHigh: *(uint64_t *)value = p->reserved_high; break;
    case cudaMemPoolAttrUsedMemHigh: *(uint64_t *)value = p->used_high; break;
    default: return set_error(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaMemPoolTrimTo(cudaMemPool_t handle, size_t keep)
{
    /* CUDA Runtime API, cudaMemPoolTrimTo: releases unused memory until the
     * pool holds keep bytes, never memory still allocated. */
    pool *p = check_pool(handle, "cudaMemPoolTrimTo");
    std::lock_guard<std::mutex> g(mu);
    size_t floor = round_up(p->used, kGranule);
    size_t target = keep > floor ? round_up(keep, kGranule) : floor;
    if (p->reserved > target)
        p->reserved = target;
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaMemPoolSetAccess(cudaMemPool_t handle,
                                             const struct cudaMemAccessDesc *desc, size_t count)
{
    pool *p = check_pool(handle, "cudaMemPoolSetAccess");
    if (desc == NULL && count > 0)
        return set_error(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> g(mu);
    for (size_t i = 0; i < count; i++) {
        if (desc[i].location.type != cudaMemLocationTypeDevice ||
            !valid_device(desc[i].location.id))
            return set_error(cudaErrorInvalidValue);
        p->access[desc[i].location.id] = desc[i].flags == cudaMemAccessFlagsProtReadWrite;
    }
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaMallocFromPoolAsync(void **out, size_t size, cudaMemPool_t handle,
                                                cudaStream_t s)
{
    if (out == NULL)
        return set_error(cudaErrorInvalidValue);
    *out = NULL;
    pool *p = check_pool(handle, "cudaMallocFromPoolAsync");
    if (fault_due("cudaMallocFromPoolAsync"))
        return set_error(cudaErrorMemoryAllocation);
    stream *st = resolve(s, "cudaMallocFromPoolAsync");
    if (sticky_error(st->device) != cudaSuccess) /* Note [fault injection] */
        return sticky_error(st->device);
    return pool_alloc(out, size, p, st, "cudaMallocFromPoolAsync");
}

PDT_EMU_API cudaError_t cudaMallocAsync(void **out, size_t size, cudaStream_t s)
{
    if (out == NULL)
        return set_error(cudaErrorInvalidValue);
    *out = NULL;
    if (!has_memory_pools()) /* CUDA Runtime API, cudaMallocAsync: cudaErrorNotSupported */
        return set_error(cudaErrorNotSupported);
    stream *st = resolve(s, "cudaMallocAsync");
    pool *p;
    {
        std::lock_guard<std::mutex> g(mu);
        p = default_pool(stream_device(st));
    }
    if (fault_due("cudaMallocAsync"))
        return set_error(cudaErrorMemoryAllocation);
    if (sticky_error(st->device) != cudaSuccess) /* Note [fault injection] */
        return sticky_error(st->device);
    return pool_alloc(out, size, p, st, "cudaMallocAsync");
}

PDT_EMU_API cudaError_t cudaFreeAsync(void *ptr, cudaStream_t s)
{
    if (ptr == NULL)
        return cudaSuccess;
    stream *st = resolve(s, "cudaFreeAsync");
    mem_info info;
    if (!lookup(ptr, &info) || info.kind != MEM_DEVICE || info.base != (const char *)ptr)
        return set_error(cudaErrorInvalidValue);
    if (!info.live || info.pool == NULL)
        violation("cudaFreeAsync",
                  "CUDA Runtime API, cudaFreeAsync: frees memory from cudaMallocAsync or a pool, "
                  "once",
                  "%p is %s", ptr, info.live ? "not from a pool (cudaMalloc)" : "already freed");
    {
        std::lock_guard<std::mutex> g(mu);
        allocation *a = find(ptr);
        if (a == NULL || !a->live || a->free_enqueued)
            violation("cudaFreeAsync",
                      "CUDA Runtime API, cudaFreeAsync: memory must not be freed "
                      "twice",
                      "%p was freed before its stream-ordered free ran", ptr);
        a->free_enqueued = true;
        a->from->pending[st] += a->charge;
    }
    /* Stream ordered: the memory is released when the stream gets here. */
    enqueue(st, "cudaFreeAsync", [ptr, st] {
        std::lock_guard<std::mutex> g(mu);
        allocation *a = find(ptr);
        if (a == NULL || !a->live || a->base != (char *)ptr)
            violation("cudaFreeAsync",
                      "CUDA Runtime API, cudaFreeAsync: memory must not be freed "
                      "twice",
                      "%p was freed before its stream-ordered free ran", ptr);
        a->from->used -= a->charge;
        size_t &left = a->from->pending[st];
        left -= a->charge;
        if (left == 0)
            a->from->pending.erase(st);
        poison(*a, "cudaFreeAsync");
    });
    return cudaSuccess;
}

} /* extern "C" */
