/* cuda_copies.c - the CUDA backend's copies (copy_bytes of the pdt_cuda_backend table):
 * host <-> device, pinned and pageable (Note [pageable copies]), within a device, and
 * between two devices (Note [peer copies]).  Every copy is ordered on the device's one
 * stream (Note [one stream per device] in cuda_backend.c). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* pthread_* under -std=c11 */
#endif

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cuda_device.h"
#include "cuda_ops.h"

/* Serialises enabling peer access; [from][to]: 1 once peer access from `from` to `to`
 * was tried. */
static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int cuda_peer_done[PDT_MAX_DEVICES][PDT_MAX_DEVICES];

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
 * Chunk k's DMA is enqueued before chunk k-1 is copied out on the CPU.  With
 * `old` (Note [whole pageable copies]), dst's bytes are saved there before each
 * chunk but the last is drained over them, and put back when a call fails. */
static pdt_status cuda_d2h_staged(cuda_device *d, char *dst, const char *src, size_t nbytes,
                                  char *old)
{
    pdt_status st = PDT_OK;
    size_t off = 0, len, prev_off = 0, prev_len = 0, drained = 0;
    int prev = -1;
    for (int k = 0; off < nbytes; off += len, k ^= 1) {
        len = nbytes - off < CUDA_STAGING_BYTES ? nbytes - off : CUDA_STAGING_BYTES;
        /* staging[k] was last drained by the CPU two chunks ago (or by an
         * earlier call, which drained everything), so the DMA may overwrite it. */
        PDT_CUDA_CHECK(
            cudaMemcpyAsync(d->staging[k], src + off, len, cudaMemcpyDeviceToHost, d->stream));
        PDT_CUDA_CHECK(cudaEventRecord(d->staging_idle[k], d->stream));
        if (prev >= 0) {
            if (old != NULL) /* while the GPU moves chunks prev and k */
                memcpy(old + prev_off, dst + prev_off, prev_len);
            PDT_CUDA_CHECK(cudaEventSynchronize(d->staging_idle[prev]));
            memcpy(dst + prev_off, d->staging[prev], prev_len);
            drained = prev_off + prev_len;
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
    if (st != PDT_OK && old != NULL)
        memcpy(dst, old, drained);
    return st;
}

/* Note [whole pageable copies]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A failed op leaves its tensors as they were.  A staged host-to-device copy
 * is one cudaMemcpyAsync per CUDA_STAGING_BYTES chunk, so when chunk k fails,
 * chunks 0 .. k-1 are already in dst.  Into an existing tensor (copy_, a
 * setitem) a copy of more than one chunk therefore stages into a fresh buffer
 * of nbytes from the device's pool (pdt_scratch_alloc: counted in
 * memory_allocated and held to the memory limit) and moves it into dst with
 * one device-to-device cudaMemcpyAsync once every chunk has arrived; the
 * buffer is freed on the stream right after.  Extra device memory: nbytes,
 * for the duration of the copy (a 1 GiB copy_ briefly needs 2 GiB); nothing
 * for copies up to 4 MiB, which are one call anyway, nor for a fresh result
 * (PDT_COPY_DST_FRESH: to(), tensor(), clone() across devices), which is freed
 * when the copy fails.  Device time: one extra on-device pass over nbytes,
 * small beside the PCIe transfer.
 * Without room for that buffer (OutOfMemoryError from the pool or the memory
 * limit) the copy goes through the driver: one cudaMemcpyAsync from the
 * pageable memory, as PyTorch's copy_ does, with no extra device memory and no
 * overlap of our memcpy with the DMA.  We do not raise instead: that would make
 * a copy_ that fits today fail near the memory limit.  One call either fails
 * before it moves anything (its argument checks) or fails with a sticky error
 * (CUDA Runtime API: "may also return error codes from previous, asynchronous
 * launches"), after which every op on the device fails and the device must be
 * reset, so no later op can read a half-written dst.
 * A staged device-to-host copy into an existing host tensor (cpu.copy_(cuda))
 * has the same trouble the other way: chunk k-1 is drained into dst before
 * chunk k's DMA or event has answered.  Here dst stays readable after any
 * error, sticky or not, so it must be put back: before draining a chunk over
 * dst, the CPU saves those bytes of dst into a malloc'd buffer, and when a
 * later call fails it copies them back.  The save runs while the GPU moves the
 * chunk being waited for, so it adds CPU work (one more host memcpy of nbytes)
 * but no wait on a real device; the last chunk needs no save (no call can fail
 * after its event), so the buffer is nbytes - the last chunk, and nothing is
 * saved for one chunk (<= 4 MiB) or a fresh result (cpu(), numpy(), a strided
 * dst's temporary: PDT_COPY_DST_FRESH).  A fresh malloc per copy cost more
 * than the save itself (the kernel faults in and zeroes every page: on the
 * emulated device a 64 MiB copy_ took 3 to 4 times as long), so each GPU keeps
 * its buffer for copies that save up to CUDA_KEPT_SAVE (64 MiB of host memory
 * at most, held from the first such copy); bigger ones malloc and free theirs.
 * Staging into a fresh host buffer and copying it into dst at the end would
 * cost the same bytes and memcpys, but the final memcpy waits after the last
 * DMA instead of overlapping one.  When malloc fails the copy drains straight
 * into dst as PyTorch's copy_ does (not whole on failure), rather than raising
 * for lack of host memory on a copy that needs none; so does a device without
 * staging buffers (one driver call: whole unless it fails with a sticky error). */

/* Note [whole pageable copies], D2H: each GPU's kept buffer for the saved bytes (under
 * its staging_lock), for copies that need at most CUDA_KEPT_SAVE bytes of it. */
#define CUDA_KEPT_SAVE ((size_t)64 << 20)
static struct {
    char *buf;
    size_t nbytes;
} cuda_kept_save[PDT_MAX_DEVICES];

/* staging_lock of physical device index held: room for n bytes (NULL: no memory). */
static char *cuda_save_buffer(int index, size_t n)
{
    if (n > CUDA_KEPT_SAVE)
        return malloc(n);
    if (cuda_kept_save[index].nbytes < n) {
        free(cuda_kept_save[index].buf);
        cuda_kept_save[index].buf = malloc(n);
        cuda_kept_save[index].nbytes = cuda_kept_save[index].buf != NULL ? n : 0;
    }
    return cuda_kept_save[index].buf;
}

/* H2D or D2H with a pageable host side; d is current, physical device index.  dst_logical:
 * dst's device (H2D). */
static pdt_status cuda_copy_pageable(cuda_device *d, int index, pdt_copy_kind kind, int dst_logical,
                                     void *dst, const void *src, size_t nbytes, int flags)
{
    pdt_status st = PDT_OK;
    enum cudaMemcpyKind ck = kind == PDT_COPY_H2D ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    if (nbytes >= CUDA_SMALL_COPY) {
        const pdt_device dev = {PDT_CUDA, dst_logical};
        void *whole = NULL; /* Note [whole pageable copies] */
        if (kind == PDT_COPY_H2D && nbytes > CUDA_STAGING_BYTES && !(flags & PDT_COPY_DST_FRESH)) {
            st = pdt_scratch_alloc(dev, nbytes, &whole);
            if (st == PDT_ERR_OOM)
                return cuda_copy_async(d, ck, dst, src, nbytes, 1);
            if (st != PDT_OK)
                return st;
        }
        pthread_mutex_lock(&d->staging_lock);
        if (cuda_staging_ready(d)) {
            /* Note [whole pageable copies], D2H: room for dst's bytes but the last chunk's */
            char *old = NULL;
            if (kind == PDT_COPY_D2H && nbytes > CUDA_STAGING_BYTES &&
                !(flags & PDT_COPY_DST_FRESH))
                old = cuda_save_buffer(index, nbytes - ((nbytes - 1) % CUDA_STAGING_BYTES + 1));
            if (kind == PDT_COPY_H2D)
                st = cuda_h2d_staged(d, whole != NULL ? (char *)whole : (char *)dst,
                                     (const char *)src, nbytes);
            else
                st = cuda_d2h_staged(d, (char *)dst, (const char *)src, nbytes, old);
            if (st == PDT_OK && whole != NULL)
                st = cuda_copy_async(d, cudaMemcpyDeviceToDevice, dst, whole, nbytes, 1);
            if (st != PDT_OK) {
                /* Drain DMAs still in flight into or out of the staging
                 * buffers before another copy may use them. */
                PDT_CUDA_IGNORE(cudaStreamSynchronize(d->stream));
            }
            if (old != cuda_kept_save[index].buf)
                free(old);
            pthread_mutex_unlock(&d->staging_lock);
            pdt_scratch_free(dev, whole, nbytes);
            return st;
        }
        pthread_mutex_unlock(&d->staging_lock);
        pdt_scratch_free(dev, whole, nbytes); /* one driver call below: whole or nothing */
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
    pthread_mutex_lock(&peer_lock);
    if (!atomic_load_explicit(&cuda_peer_done[from][to], memory_order_relaxed)) {
        if (cudaDeviceCanAccessPeer(&can, from, to) != cudaSuccess) {
            (void)cudaGetLastError();
            can = 0;
        }
        if (can) {
            /* cudaErrorPeerAccessAlreadyEnabled (someone else did it) is fine. */
            PDT_CUDA_IGNORE(cudaDeviceEnablePeerAccess(to, 0));
            cudaMemPool_t pool = pdt_cuda_pool(to);
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
    pthread_mutex_unlock(&peer_lock);
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

    st = pdt_cuda_prepare(g, dst_index, &dd);
    if (st != PDT_OK)
        goto fail;
    PDT_CUDA_CHECK(cudaEventCreateWithFlags(&dst_ready, cudaEventDisableTiming));
    PDT_CUDA_CHECK(cudaEventRecord(dst_ready, dd->stream));

    st = pdt_cuda_prepare(g, src_index, &sd);
    if (st != PDT_OK)
        goto fail;
    cuda_enable_peer(src_index, dst_index);
    PDT_CUDA_CHECK(cudaStreamWaitEvent(sd->stream, dst_ready, 0));
    PDT_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_index, src, src_index, nbytes, sd->stream));
    enqueued = 1;
    PDT_CUDA_CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
    PDT_CUDA_CHECK(cudaEventRecord(copied, sd->stream));

    PDT_CUDA_ENTER(g, dst_index);
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
pdt_status pdt_cuda_copy_bytes(pdt_copy_kind kind, int dst_logical, void *dst, int src_logical,
                               const void *src, size_t nbytes, int flags)
{
    pdt_status st = PDT_OK;
    cuda_device *d = NULL;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    /* Two logical devices of one GPU: a copy within that GPU. */
    const int dst_index = pdt_cuda_phys(dst_logical), src_index = pdt_cuda_phys(src_logical);
    if (nbytes == 0)
        return PDT_OK;
    switch (kind) {
    case PDT_COPY_H2H: memcpy(dst, src, nbytes); break;
    case PDT_COPY_H2D:
    case PDT_COPY_D2H: {
        const int index = kind == PDT_COPY_H2D ? dst_index : src_index;
        st = pdt_cuda_prepare(&g, index, &d);
        if (st != PDT_OK)
            goto fail;
        if (flags & PDT_COPY_HOST_PINNED)
            st = cuda_copy_async(d,
                                 kind == PDT_COPY_H2D ? cudaMemcpyHostToDevice
                                                      : cudaMemcpyDeviceToHost,
                                 dst, src, nbytes, !(flags & PDT_COPY_NON_BLOCKING));
        else
            st = cuda_copy_pageable(d, index, kind, dst_logical, dst, src, nbytes, flags);
        break;
    }
    case PDT_COPY_D2D:
    case PDT_COPY_PEER:
        if (dst_index == src_index) {
            st = pdt_cuda_prepare(&g, dst_index, &d);
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
