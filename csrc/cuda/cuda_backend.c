/* cuda_backend.c - the CUDA device backend: the pdt_cuda_backend table.
 *
 * Devices are found once (pthread_once) and never raise when CUDA is missing.
 * Each device gets one non-blocking stream, created on first use; every copy
 * and kernel of that device is ordered on it, and device memory comes from the
 * device's own stream-ordered pool (Note [our own pool]; cudaMallocFromPoolAsync/cudaFreeAsync)
 * on that stream.  Kernels live in cuda_kernels.cu; errors become pdt_status
 * through PDT_CUDA_CHECK (cuda_check.h).  Nothing here prints or exits.
 *
 * Note [one stream per device]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * With a single stream per device, stream order is program order: a kernel
 * sees the copies enqueued before it, and cudaFreeAsync on that stream lets
 * the pool hand the bytes out again only after the work that used them.  The
 * one place where two streams meet is a peer copy; see Note [peer copies].
 * The stream is non-blocking so that other libraries' work on the legacy
 * default stream does not serialise with ours.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* pthread_* under -std=c11 */
#endif

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

#include "cuda_blas.h"
#include "cuda_check.h"
#include "cuda_kernels.h"
#include "cuda_library.h"
#include "cuda_ops.h"
#include "pdt_backend.h"
#include "pdt_runtime.h" /* pdt_physical_index */

#define CUDA_STAGING_BYTES ((size_t)4 << 20) /* per staging buffer, two per device */
#define CUDA_SMALL_COPY ((size_t)256 << 10)  /* below this, no staging pipeline  */

typedef struct cuda_device {
    atomic_int ready;    /* 1 once stream and pool are set up (release/acquire) */
    cudaStream_t stream; /* the device's one stream */
    cudaMemPool_t pool;  /* default pool; NULL when the device has no pools */

    /* Note [pageable copies]: guarded by staging_lock. */
    pthread_mutex_t staging_lock;
    int staging_state;           /* 0: not tried, 1: ready, -1: unavailable */
    void *staging[2];            /* pinned, CUDA_STAGING_BYTES each */
    cudaEvent_t staging_idle[2]; /* recorded after the last DMA that used staging[k] */
} cuda_device;

static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;
static int cuda_count;        /* devices usable, <= PDT_MAX_DEVICES */
static char cuda_reason[512]; /* why cuda_count is 0 */
static cuda_device cuda_devices[PDT_MAX_DEVICES];
/* Serialises the rare set-up steps: stream/pool creation and peer access. */
static pthread_mutex_t cuda_setup_lock = PTHREAD_MUTEX_INITIALIZER;
/* [from][to]: 1 once peer access from `from` to `to` was tried. */
static atomic_int cuda_peer_done[PDT_MAX_DEVICES][PDT_MAX_DEVICES];

/* ---------------------------------------------------------------- devices */

/* Records in cuda_reason why cudaGetDeviceCount failed with err. */
static void cuda_describe_failure(cudaError_t err)
{
    int driver = 0, runtime = 0;
    PDT_CUDA_IGNORE(cudaDriverGetVersion(&driver));
    PDT_CUDA_IGNORE(cudaRuntimeGetVersion(&runtime));
    if (err == cudaErrorNoDevice) {
        snprintf(cuda_reason, sizeof cuda_reason, "no CUDA device is present");
    } else if (err == cudaErrorInsufficientDriver && driver == 0) {
        /* cudart reports a missing libcuda.so as an insufficient driver; a
         * driver version of 0 tells the two apart. */
        snprintf(cuda_reason, sizeof cuda_reason,
                 "no CUDA driver was found (libcuda.so could not be loaded)");
    } else if (err == cudaErrorInsufficientDriver) {
        /* The Linux driver each CUDA major needs (NVIDIA's CUDA Toolkit release notes,
         * minor version compatibility): 13.x 580, 12.x 525, 11.x 450. */
        int major = runtime / 1000;
        const char *needed = major >= 13 ? "580" : major == 12 ? "525" : "450";
        snprintf(cuda_reason, sizeof cuda_reason,
                 "the NVIDIA driver is too old for this build: pydevtensor was built with CUDA "
                 "%d.%d, which needs driver %s or newer; the installed driver supports CUDA "
                 "%d.%d. Update the driver, or install a pydevtensor built for CUDA %d",
                 major, (runtime % 1000) / 10, needed, driver / 1000, (driver % 1000) / 10,
                 driver / 1000);
    } else {
        snprintf(cuda_reason, sizeof cuda_reason, "CUDA could not be initialised: %s (%s)",
                 cudaGetErrorName(err), cudaGetErrorString(err));
    }
}

static void cuda_init_once(void)
{
    int n = 0;
    for (int i = 0; i < PDT_MAX_DEVICES; i++)
        pthread_mutex_init(&cuda_devices[i].staging_lock, NULL);
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        n = 0;
        cuda_describe_failure(err);
    } else if (n <= 0) {
        n = 0;
        snprintf(cuda_reason, sizeof cuda_reason, "no CUDA device is present");
    }
    cuda_count = n > PDT_MAX_DEVICES ? PDT_MAX_DEVICES : n;
}

static int cuda_device_count(void)
{
    pthread_once(&cuda_once, cuda_init_once);
    return cuda_count;
}

static const char *cuda_unavailable_reason(void)
{
    pthread_once(&cuda_once, cuda_init_once);
    return cuda_count > 0 ? NULL : cuda_reason;
}

/* First use of a device: its stream, and a pool of our own that keeps what is
 * freed (Note [pool release threshold]).  Runs under cuda_setup_lock.
 *
 * Note [our own pool]
 * ~~~~~~~~~~~~~~~~~~~
 * The device's default pool is shared with every library in the process that
 * calls cudaMallocAsync (PyTorch, CuPy): our release threshold, trims and peer
 * access would change theirs, and its reserved figure would count their memory.
 * So each device gets a private pool (cudaMemPoolCreate) with the same kind of
 * memory as the default one.
 *
 * Note [pool release threshold]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A pool's release threshold defaults to 0: at every synchronisation the pool
 * gives its free memory back to the driver, and the next allocation pays for
 * cudaMalloc again.  UINT64_MAX keeps it cached until empty_cache() trims it. */
static pdt_status cuda_setup(int index, cuda_device *d)
{
    pdt_status st = PDT_OK;
    int pools = 0;
    cudaStream_t stream = NULL;
    pthread_mutex_lock(&cuda_setup_lock);
    if (atomic_load_explicit(&d->ready, memory_order_relaxed))
        goto fail; /* another thread finished first: st is PDT_OK */
    PDT_CUDA_CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, index));
    if (pools) {
        cudaMemPool_t pool = NULL;
        struct cudaMemPoolProps props;
        uint64_t threshold = UINT64_MAX;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.handleTypes = cudaMemHandleTypeNone;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = index;
        PDT_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
        d->pool = pool; /* lives as long as the process */
        PDT_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    }
    PDT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    d->stream = stream;
    atomic_store_explicit(&d->ready, 1, memory_order_release);
fail:
    pthread_mutex_unlock(&cuda_setup_lock);
    return st;
}

/* Every index the core passes in is a logical device (Note [logical devices] in
 * pdt_registry.c); the entry points map it to the physical device here, and
 * everything below them works with physical indices.  -1 (the host) stays -1. */
static int phys(int index) { return index < 0 ? -1 : pdt_physical_index(PDT_CUDA, index); }

/* Makes physical device index the current device through g (Note [device
 * guard] in cuda_ops.h: the caller exits g) and returns its state, set up. */
static pdt_status cuda_prepare(pdt_cuda_guard *g, int index, cuda_device **out)
{
    pdt_status st = PDT_OK;
    cuda_device *d;
    pthread_once(&cuda_once, cuda_init_once);
    if (index < 0 || index >= cuda_count) {
        st = pdt_fail(PDT_ERR_DEVICE, "cuda:%d is not a usable CUDA device (%d found)", index,
                      cuda_count);
        goto fail;
    }
    d = &cuda_devices[index];
    PDT_CUDA_CHECK(pdt_cuda_guard_enter(g, index));
    if (!atomic_load_explicit(&d->ready, memory_order_acquire)) {
        st = cuda_setup(index, d);
        if (st != PDT_OK)
            goto fail;
    }
    *out = d;
fail:
    return st;
}

pdt_status pdt_cuda_stream(pdt_cuda_guard *g, int logical, cudaStream_t *stream)
{
    cuda_device *d = NULL;
    pdt_status st = cuda_prepare(g, phys(logical), &d);
    if (st == PDT_OK)
        *stream = d->stream;
    return st;
}

/* The device's state if it was set up, else NULL (nothing of ours is on it). */
static cuda_device *cuda_if_ready(int index)
{
    if (index < 0 || index >= PDT_MAX_DEVICES)
        return NULL;
    cuda_device *d = &cuda_devices[index];
    return atomic_load_explicit(&d->ready, memory_order_acquire) ? d : NULL;
}

static pdt_status cuda_properties(int logical, pdt_device_props *out)
{
    const int index = phys(logical);
    pdt_status st = PDT_OK;
    struct cudaDeviceProp p;
    memset(out, 0, sizeof *out);
    /* No cudaSetDevice: a query must not create a context on every GPU it names. */
    PDT_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
    snprintf(out->name, sizeof out->name, "%s", p.name);
    out->total_memory = p.totalGlobalMem;
    out->multiprocessors = p.multiProcessorCount;
    out->major = p.major;
    out->minor = p.minor;
fail:
    return st;
}

static pdt_status cuda_mem_info(int logical, size_t *free_bytes, size_t *total_bytes)
{
    const int index = phys(logical);
    pdt_status st = PDT_OK;
    size_t f = 0, t = 0;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    PDT_CUDA_CHECK(pdt_cuda_guard_enter(&g, index)); /* cudaMemGetInfo reports the current device */
    PDT_CUDA_CHECK(cudaMemGetInfo(&f, &t));
fail:
    pdt_cuda_guard_exit(&g);
    *free_bytes = f;
    *total_bytes = t;
    return st;
}

static pdt_status cuda_synchronize(int logical)
{
    pdt_status st = PDT_OK;
    cuda_device *d = cuda_if_ready(phys(logical));
    if (d != NULL) /* else nothing was ever enqueued by us */
        PDT_CUDA_CHECK(cudaStreamSynchronize(d->stream));
fail:
    return st;
}

static void cuda_versions(int *driver, int *runtime)
{
    int dv = 0, rv = 0;
    if (cudaDriverGetVersion(&dv) != cudaSuccess) {
        (void)cudaGetLastError();
        dv = 0;
    }
    if (cudaRuntimeGetVersion(&rv) != cudaSuccess) {
        (void)cudaGetLastError();
        rv = 0;
    }
    if (driver)
        *driver = dv;
    if (runtime)
        *runtime = rv;
}

/* ----------------------------------------------------------------- memory */

/* Note [retry after trim]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * The pool keeps freed blocks (Note [pool release threshold]); a large request
 * can fail although enough memory sits free in the pool in pieces of the wrong
 * size.  On cudaErrorMemoryAllocation we wait for the stream (so every pending
 * free has happened), give all unused pool memory back and try once more. */
static pdt_status cuda_alloc(int logical, size_t nbytes, void **out)
{
    const int index = phys(logical);
    pdt_status st = PDT_OK;
    cuda_device *d = NULL;
    cudaError_t err;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    *out = NULL;
    st = cuda_prepare(&g, index, &d);
    if (st != PDT_OK)
        goto fail;
    if (d->pool == NULL) {
        PDT_CUDA_CHECK(cudaMalloc(out, nbytes));
    } else {
        err = cudaMallocFromPoolAsync(out, nbytes, d->pool, d->stream);
        if (err == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            PDT_CUDA_CHECK(cudaStreamSynchronize(d->stream));
            PDT_CUDA_CHECK(cudaMemPoolTrimTo(d->pool, 0));
            err = cudaMallocFromPoolAsync(out, nbytes, d->pool, d->stream);
        }
        if (err != cudaSuccess) {
            *out = NULL;
            st = pdt_cuda_fail(err, "cudaMallocFromPoolAsync(out, nbytes, pool, stream)", __FILE__,
                               __LINE__);
            goto fail;
        }
    }
fail:
    pdt_cuda_guard_exit(&g);
    return st;
}

static void cuda_free(int logical, void *ptr, size_t nbytes)
{
    cuda_device *d = cuda_if_ready(phys(logical));
    (void)nbytes;
    if (ptr == NULL || d == NULL)
        return;
    /* No cudaSetDevice: the stream names the device, and a free (which can run
     * on any thread, from a destructor) must not change the thread's device. */
    if (d->pool != NULL) {
        PDT_CUDA_IGNORE(cudaFreeAsync(ptr, d->stream));
    } else {
        PDT_CUDA_IGNORE(cudaStreamSynchronize(d->stream));
        PDT_CUDA_IGNORE(cudaFree(ptr));
    }
}

/* A byte count attribute of logical's pool (0 with no pool, or when the query fails). */
static size_t pool_bytes(int logical, enum cudaMemPoolAttr attr)
{
    cuda_device *d = cuda_if_ready(phys(logical));
    uint64_t bytes = 0;
    if (d == NULL || d->pool == NULL)
        return 0;
    if (cudaMemPoolGetAttribute(d->pool, attr, &bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return (size_t)bytes;
}

static size_t cuda_reserved(int logical)
{
    return pool_bytes(logical, cudaMemPoolAttrReservedMemCurrent);
}

/* CUDA Runtime API, cudaMemPoolAttr: cudaMemPoolAttrReservedMemHigh is the
 * pool's high watermark of reserved memory, which "can only be reset to zero".
 * Logical devices of one GPU share its pool, so they share this peak. */
static size_t cuda_reserved_peak(int logical)
{
    return pool_bytes(logical, cudaMemPoolAttrReservedMemHigh);
}

static void cuda_reset_reserved_peak(int logical)
{
    cuda_device *d = cuda_if_ready(phys(logical));
    uint64_t zero = 0;
    if (d != NULL && d->pool != NULL)
        PDT_CUDA_IGNORE(cudaMemPoolSetAttribute(d->pool, cudaMemPoolAttrReservedMemHigh, &zero));
}

static void cuda_empty_cache(int logical)
{
    cuda_device *d = cuda_if_ready(phys(logical));
    if (d == NULL || d->pool == NULL)
        return;
    PDT_CUDA_IGNORE(cudaStreamSynchronize(d->stream));
    PDT_CUDA_IGNORE(cudaMemPoolTrimTo(d->pool, 0));
}

static pdt_status cuda_host_alloc(size_t nbytes, void **out)
{
    pdt_status st = PDT_OK;
    *out = NULL;
    PDT_CUDA_CHECK(cudaHostAlloc(out, nbytes, cudaHostAllocPortable));
fail:
    return st;
}

/* A non-blocking copy may still be reading or writing this memory: wait for
 * every stream of ours before unpinning it. */
static void cuda_host_free(void *ptr, size_t nbytes)
{
    (void)nbytes;
    if (ptr == NULL)
        return;
    for (int i = 0; i < PDT_MAX_DEVICES; i++) {
        cuda_device *d = cuda_if_ready(i);
        if (d != NULL)
            PDT_CUDA_IGNORE(cudaStreamSynchronize(d->stream));
    }
    PDT_CUDA_IGNORE(cudaFreeHost(ptr));
}

/* ----------------------------------------------------------------- copies */

/* One cudaMemcpyAsync on d's stream, then a wait unless `wait` is 0. */
static pdt_status cuda_copy_async(cuda_device *d, enum cudaMemcpyKind kind, void *dst,
                                  const void *src, size_t nbytes, int wait)
{
    pdt_status st = PDT_OK;
    PDT_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, kind, d->stream));
    if (wait)
        PDT_CUDA_CHECK(cudaStreamSynchronize(d->stream));
fail:
    return st;
}

/* Note [pageable copies]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * The GPU can DMA only from page-locked memory, so a copy from pageable memory
 * is a CPU memcpy into a pinned buffer plus a DMA.  Two pinned buffers per
 * device let the two overlap: while the GPU moves chunk k out of (into) one
 * buffer, the CPU fills (drains) the other with chunk k+1 (k-1).  Each buffer
 * has an event recorded after the DMA that last used it; the CPU waits on that
 * event before touching the buffer again.  The buffers are shared by every
 * thread copying to or from that device, hence staging_lock; copies under
 * CUDA_SMALL_COPY skip them (and the lock) and let the driver stage.
 * A pageable copy always waits for the GPU before it returns, NON_BLOCKING or
 * not: the caller may reuse or read that memory at once. */

/* With staging_lock held and d current: 1 when d's staging buffers exist. */
static int cuda_staging_ready(cuda_device *d)
{
    if (d->staging_state != 0)
        return d->staging_state == 1;
    d->staging_state = -1;
    for (int k = 0; k < 2; k++) {
        d->staging[k] = NULL;
        d->staging_idle[k] = NULL;
    }
    for (int k = 0; k < 2; k++) {
        if (cudaHostAlloc(&d->staging[k], CUDA_STAGING_BYTES, cudaHostAllocPortable) !=
                cudaSuccess ||
            cudaEventCreateWithFlags(&d->staging_idle[k], cudaEventDisableTiming) != cudaSuccess) {
            /* No pinned memory to spare (a low memlock limit, say): every
             * pageable copy on this device goes through the driver instead. */
            (void)cudaGetLastError();
            for (int j = 0; j < 2; j++) {
                if (d->staging[j] != NULL)
                    PDT_CUDA_IGNORE(cudaFreeHost(d->staging[j]));
                if (d->staging_idle[j] != NULL)
                    PDT_CUDA_IGNORE(cudaEventDestroy(d->staging_idle[j]));
                d->staging[j] = NULL;
                d->staging_idle[j] = NULL;
            }
            return 0;
        }
    }
    d->staging_state = 1;
    return 1;
}

/* dst: device [nbytes]; src: pageable host [nbytes].  staging_lock held. */
static pdt_status cuda_h2d_staged(cuda_device *d, char *dst, const char *src, size_t nbytes)
{
    pdt_status st = PDT_OK;
    size_t off = 0, len;
    for (int k = 0; off < nbytes; off += len, k ^= 1) {
        len = nbytes - off < CUDA_STAGING_BYTES ? nbytes - off : CUDA_STAGING_BYTES;
        PDT_CUDA_CHECK(cudaEventSynchronize(d->staging_idle[k]));
        memcpy(d->staging[k], src + off, len);
        PDT_CUDA_CHECK(
            cudaMemcpyAsync(dst + off, d->staging[k], len, cudaMemcpyHostToDevice, d->stream));
        PDT_CUDA_CHECK(cudaEventRecord(d->staging_idle[k], d->stream));
    }
    PDT_CUDA_CHECK(cudaStreamSynchronize(d->stream));
fail:
    return st;
}

/* dst: pageable host [nbytes]; src: device [nbytes].  staging_lock held.
 * Chunk k's DMA is enqueued before chunk k-1 is copied out on the CPU. */
static pdt_status cuda_d2h_staged(cuda_device *d, char *dst, const char *src, size_t nbytes)
{
    pdt_status st = PDT_OK;
    size_t off = 0, len, prev_off = 0, prev_len = 0;
    int prev = -1;
    for (int k = 0; off < nbytes; off += len, k ^= 1) {
        len = nbytes - off < CUDA_STAGING_BYTES ? nbytes - off : CUDA_STAGING_BYTES;
        /* staging[k] was last drained by the CPU two chunks ago (or by an
         * earlier call, which drained everything), so the DMA may overwrite it. */
        PDT_CUDA_CHECK(
            cudaMemcpyAsync(d->staging[k], src + off, len, cudaMemcpyDeviceToHost, d->stream));
        PDT_CUDA_CHECK(cudaEventRecord(d->staging_idle[k], d->stream));
        if (prev >= 0) {
            PDT_CUDA_CHECK(cudaEventSynchronize(d->staging_idle[prev]));
            memcpy(dst + prev_off, d->staging[prev], prev_len);
        }
        prev = k;
        prev_off = off;
        prev_len = len;
    }
    if (prev >= 0) {
        PDT_CUDA_CHECK(cudaEventSynchronize(d->staging_idle[prev]));
        memcpy(dst + prev_off, d->staging[prev], prev_len);
    }
fail:
    return st;
}

/* H2D or D2H with a pageable host side; d is current. */
static pdt_status cuda_copy_pageable(cuda_device *d, pdt_copy_kind kind, void *dst, const void *src,
                                     size_t nbytes)
{
    pdt_status st = PDT_OK;
    enum cudaMemcpyKind ck = kind == PDT_COPY_H2D ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    if (nbytes >= CUDA_SMALL_COPY) {
        pthread_mutex_lock(&d->staging_lock);
        if (cuda_staging_ready(d)) {
            if (kind == PDT_COPY_H2D)
                st = cuda_h2d_staged(d, (char *)dst, (const char *)src, nbytes);
            else
                st = cuda_d2h_staged(d, (char *)dst, (const char *)src, nbytes);
            if (st != PDT_OK) {
                /* Drain DMAs still in flight into or out of the staging
                 * buffers before another copy may use them. */
                PDT_CUDA_IGNORE(cudaStreamSynchronize(d->stream));
            }
            pthread_mutex_unlock(&d->staging_lock);
            return st;
        }
        pthread_mutex_unlock(&d->staging_lock);
    }
    return cuda_copy_async(d, ck, dst, src, nbytes, 1);
}

/* Note [peer copies]
 * ~~~~~~~~~~~~~~~~~~
 * The copy runs on the source device's stream, so it must also wait for the
 * destination stream's earlier work (the allocation of dst, kernels still
 * reading the old contents): an event recorded on the dst stream, waited on by
 * the src stream.  Afterwards the dst stream waits on an event recorded after
 * the copy, so later work on the destination device (kernels, cudaFreeAsync of
 * dst) sees the data; later src work is ordered by the src stream itself.
 * Peer access is enabled once per ordered pair where the hardware allows it,
 * and the destination pool is opened to the source device (pool allocations
 * ignore cudaDeviceEnablePeerAccess).  Both are best effort: without them
 * cudaMemcpyPeerAsync still works, staged by the driver. */

/* d_from is current; lets `from` read and write `to`'s memory if it can. */
static void cuda_enable_peer(int from, int to)
{
    int can = 0;
    if (atomic_load_explicit(&cuda_peer_done[from][to], memory_order_acquire))
        return;
    pthread_mutex_lock(&cuda_setup_lock);
    if (!atomic_load_explicit(&cuda_peer_done[from][to], memory_order_relaxed)) {
        if (cudaDeviceCanAccessPeer(&can, from, to) != cudaSuccess) {
            (void)cudaGetLastError();
            can = 0;
        }
        if (can) {
            /* cudaErrorPeerAccessAlreadyEnabled (someone else did it) is fine. */
            PDT_CUDA_IGNORE(cudaDeviceEnablePeerAccess(to, 0));
            cudaMemPool_t pool = cuda_devices[to].pool;
            if (pool != NULL) {
                struct cudaMemAccessDesc desc;
                memset(&desc, 0, sizeof desc);
                desc.location.type = cudaMemLocationTypeDevice;
                desc.location.id = from;
                desc.flags = cudaMemAccessFlagsProtReadWrite;
                PDT_CUDA_IGNORE(cudaMemPoolSetAccess(pool, &desc, 1));
            }
        }
        atomic_store_explicit(&cuda_peer_done[from][to], 1, memory_order_release);
    }
    pthread_mutex_unlock(&cuda_setup_lock);
}

/* dst: device dst_index [nbytes]; src: device src_index [nbytes].  Moves
 * between the two devices through g (the caller exits it). */
static pdt_status cuda_copy_peer(pdt_cuda_guard *g, int dst_index, void *dst, int src_index,
                                 const void *src, size_t nbytes)
{
    pdt_status st = PDT_OK;
    cuda_device *dd = NULL, *sd = NULL;
    cudaEvent_t dst_ready = NULL, copied = NULL;
    int enqueued = 0;

    st = cuda_prepare(g, dst_index, &dd);
    if (st != PDT_OK)
        goto fail;
    PDT_CUDA_CHECK(cudaEventCreateWithFlags(&dst_ready, cudaEventDisableTiming));
    PDT_CUDA_CHECK(cudaEventRecord(dst_ready, dd->stream));

    st = cuda_prepare(g, src_index, &sd);
    if (st != PDT_OK)
        goto fail;
    cuda_enable_peer(src_index, dst_index);
    PDT_CUDA_CHECK(cudaStreamWaitEvent(sd->stream, dst_ready, 0));
    PDT_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_index, src, src_index, nbytes, sd->stream));
    enqueued = 1;
    PDT_CUDA_CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
    PDT_CUDA_CHECK(cudaEventRecord(copied, sd->stream));

    PDT_CUDA_CHECK(pdt_cuda_guard_enter(g, dst_index));
    PDT_CUDA_CHECK(cudaStreamWaitEvent(dd->stream, copied, 0));
fail:
    /* If the copy went out but the dst stream could not be made to wait for
     * it, wait here, so that freeing dst afterwards cannot race the copy. */
    if (st != PDT_OK && enqueued)
        PDT_CUDA_IGNORE(cudaStreamSynchronize(sd->stream));
    /* Destroying a pending event is allowed: it is released once it fires,
     * and waits already enqueued on it still hold. */
    if (dst_ready != NULL)
        PDT_CUDA_IGNORE(cudaEventDestroy(dst_ready));
    if (copied != NULL)
        PDT_CUDA_IGNORE(cudaEventDestroy(copied));
    return st;
}

/* dst/src: [nbytes] contiguous bytes; the host side's index is -1. */
static pdt_status cuda_copy_bytes(pdt_copy_kind kind, int dst_logical, void *dst, int src_logical,
                                  const void *src, size_t nbytes, int flags)
{
    pdt_status st = PDT_OK;
    cuda_device *d = NULL;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    /* Two logical devices of one GPU: a copy within that GPU. */
    const int dst_index = phys(dst_logical), src_index = phys(src_logical);
    if (nbytes == 0)
        return PDT_OK;
    switch (kind) {
    case PDT_COPY_H2H: memcpy(dst, src, nbytes); break;
    case PDT_COPY_H2D:
    case PDT_COPY_D2H: {
        const int index = kind == PDT_COPY_H2D ? dst_index : src_index;
        st = cuda_prepare(&g, index, &d);
        if (st != PDT_OK)
            goto fail;
        if (flags & PDT_COPY_HOST_PINNED)
            st = cuda_copy_async(d,
                                 kind == PDT_COPY_H2D ? cudaMemcpyHostToDevice
                                                      : cudaMemcpyDeviceToHost,
                                 dst, src, nbytes, !(flags & PDT_COPY_NON_BLOCKING));
        else
            st = cuda_copy_pageable(d, kind, dst, src, nbytes);
        break;
    }
    case PDT_COPY_D2D:
    case PDT_COPY_PEER:
        if (dst_index == src_index) {
            st = cuda_prepare(&g, dst_index, &d);
            if (st != PDT_OK)
                goto fail;
            st = cuda_copy_async(d, cudaMemcpyDeviceToDevice, dst, src, nbytes, 0);
        } else {
            st = cuda_copy_peer(&g, dst_index, dst, src_index, src, nbytes);
        }
        break;
    default:
        st = pdt_fail(PDT_ERR_VALUE, "cuda copy_bytes: unknown copy kind %d", (int)kind);
        break;
    }
fail:
    pdt_cuda_guard_exit(&g);
    return st;
}

/* ---------------------------------------------- exchange with other libraries */

static pdt_status cuda_stream_handle(int index, uintptr_t *out)
{
    cudaStream_t stream = NULL;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    pdt_status st = pdt_cuda_stream(&g, index, &stream);
    pdt_cuda_guard_exit(&g);
    *out = st == PDT_OK ? (uintptr_t)stream : 0;
    return st;
}

/* The array API's stream numbers: 1 and 2 name the two default streams. */
static cudaStream_t cuda_external_stream(uintptr_t handle)
{
    return handle == 1   ? cudaStreamLegacy
           : handle == 2 ? cudaStreamPerThread
                         : (cudaStream_t)handle;
}

/* An event recorded on the stream that goes first, waited on by the other.
 * Both streams belong to logical device's GPU (the exchange protocols say
 * so), which cuda_prepare makes current, as cudaEventRecord needs. */
static pdt_status cuda_wait_stream(int logical, uintptr_t external, int direction)
{
    pdt_status st = PDT_OK;
    cuda_device *d = NULL;
    cudaEvent_t event = NULL;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    st = cuda_prepare(&g, phys(logical), &d);
    if (st != PDT_OK)
        goto fail;
    cudaStream_t other = cuda_external_stream(external);
    if (other == d->stream)
        goto fail; /* one stream is already ordered: st is PDT_OK */
    cudaStream_t first = direction == PDT_STREAM_OURS_WAITS ? other : d->stream;
    cudaStream_t waiter = direction == PDT_STREAM_OURS_WAITS ? d->stream : other;
    PDT_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    PDT_CUDA_CHECK(cudaEventRecord(event, first));
    PDT_CUDA_CHECK(cudaStreamWaitEvent(waiter, event, 0));
fail:
    if (event != NULL) /* the enqueued wait still holds (Note [peer copies]) */
        PDT_CUDA_IGNORE(cudaEventDestroy(event));
    pdt_cuda_guard_exit(&g);
    return st;
}

static pdt_status cuda_pointer_device(const void *ptr, int *index)
{
    pdt_status st = PDT_OK;
    struct cudaPointerAttributes attr;
    memset(&attr, 0, sizeof attr);
    if (cuda_device_count() == 0)
        return pdt_fail(PDT_ERR_DEVICE, "address %p cannot be CUDA memory: %s", ptr, cuda_reason);
    PDT_CUDA_CHECK(cudaPointerGetAttributes(&attr, ptr));
    if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
        return pdt_fail(PDT_ERR_VALUE,
                        "address %p is not CUDA device memory (CUDA reports it as %s memory)", ptr,
                        attr.type == cudaMemoryTypeHost ? "page-locked host" : "host");
    *index = attr.device;
fail:
    return st;
}

/* ---------------------------------------------------------------- kernels */

/* A kernel entry: set up dst's device, launch on its stream, check the launch. */
#define CUDA_KERNEL_ENTRY(NAME, PARAMS, LAUNCH)                                                    \
    static pdt_status NAME PARAMS                                                                  \
    {                                                                                              \
        cuda_device *d = NULL;                                                                     \
        pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;                                                    \
        pdt_status st = cuda_prepare(&g, phys(dst->device.index), &d);                             \
        if (st != PDT_OK)                                                                          \
            goto fail;                                                                             \
        PDT_CUDA_CHECK(LAUNCH);                                                                    \
    fail:                                                                                          \
        pdt_cuda_guard_exit(&g);                                                                   \
        return st;                                                                                 \
    }

CUDA_KERNEL_ENTRY(cuda_fill, (const pdt_tensor *dst, pdt_scalar value),
                  pdt_cuda_launch_fill(dst, value, d->stream))
CUDA_KERNEL_ENTRY(cuda_copy_cast, (const pdt_tensor *dst, const pdt_tensor *src),
                  pdt_cuda_launch_copy_cast(dst, src, d->stream))
CUDA_KERNEL_ENTRY(cuda_arange, (const pdt_tensor *dst, double start, double step),
                  pdt_cuda_launch_arange(dst, start, step, d->stream))
CUDA_KERNEL_ENTRY(cuda_random, (const pdt_tensor *dst, const pdt_random_spec *spec),
                  pdt_cuda_launch_random(dst, spec, d->stream))

static pdt_library *const cuda_libraries[] = {&pdt_cublas_library, &pdt_nccl_library,
                                              &pdt_cusolver_library, NULL};

const pdt_backend pdt_cuda_backend = {
    .kind = PDT_CUDA,
    .name = "cuda",
    .device_count = cuda_device_count,
    .unavailable_reason = cuda_unavailable_reason,
    .properties = cuda_properties,
    .mem_info = cuda_mem_info,
    .synchronize = cuda_synchronize,
    .versions = cuda_versions,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .reserved = cuda_reserved,
    .reserved_peak = cuda_reserved_peak,
    .reset_reserved_peak = cuda_reset_reserved_peak,
    .empty_cache = cuda_empty_cache,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .copy_bytes = cuda_copy_bytes,
    .fill = cuda_fill,
    .copy_cast = cuda_copy_cast,
    .arange = cuda_arange,
    .random = cuda_random,
    .binary = pdt_cuda_binary,
    .binary_scaled = pdt_cuda_binary_scaled,
    .small_int_rows = 1, /* Note [small integers] in pdt_dtype.h */
    .unary = pdt_cuda_unary,
    .reduce = pdt_cuda_reduce,
    .gemm = pdt_cuda_gemm,
    .where = pdt_cuda_where,
    .index_select = pdt_cuda_index_select,
    .index_put = pdt_cuda_index_put,
    .index_add = pdt_cuda_index_add,
    .sort = pdt_cuda_sort,
    .cumsum = pdt_cuda_cumsum,
    .lu_factor = pdt_cuda_lu_factor,
    .lu_solve = pdt_cuda_lu_solve,
    .cholesky = pdt_cuda_cholesky,
    .eigh = pdt_cuda_eigh,
    .svd = pdt_cuda_svd,
    .qr_factor = pdt_cuda_qr_factor,
    .qr_orgqr = pdt_cuda_qr_orgqr,
    .index_check_async = pdt_cuda_index_check_async,
    .index_error_take = pdt_cuda_index_error_take,
    .index_checks_pending = pdt_cuda_index_checks_pending,
    .im2col = pdt_cuda_im2col,
    .col2im = pdt_cuda_col2im,
    .rnn_cell = pdt_cuda_rnn_cell,
    .rnn_cell_backward = pdt_cuda_rnn_cell_backward,
    .set_allow_tf32 = pdt_cuda_set_allow_tf32,
    .event_create = pdt_cuda_event_create,
    .event_record = pdt_cuda_event_record,
    .event_query = pdt_cuda_event_query,
    .event_wait = pdt_cuda_event_wait,
    .event_synchronize = pdt_cuda_event_synchronize,
    .event_elapsed_ms = pdt_cuda_event_elapsed_ms,
    .event_destroy = pdt_cuda_event_destroy,
    .stream_query = pdt_cuda_stream_query,
    .stream_handle = cuda_stream_handle,
    .wait_stream = cuda_wait_stream,
    .pointer_device = cuda_pointer_device,
    .allreduce_sum = pdt_cuda_allreduce_sum,
    .allreduce_available = pdt_cuda_nccl_available,
    .comm_unique_id = pdt_cuda_comm_unique_id,
    .comm_init = pdt_cuda_comm_init,
    .comm_destroy = pdt_cuda_comm_destroy,
    .comm_run = pdt_cuda_comm_run,
    .describe = pdt_cublas_describe,
    .libraries = cuda_libraries,
};
