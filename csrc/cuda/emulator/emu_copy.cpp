/* emu_copy.cpp - emulated cudaMemcpy*, cudaMemcpyPeer*, cudaMemset*.
 *
 * Each copy checks, when it is called, that its kind matches where the
 * pointers live (CUDA Runtime API, cudaMemcpy: "Calling cudaMemcpy() with dst
 * and src pointers that do not match the direction of the copy results in an
 * undefined behavior") and that both ranges lie inside live allocations; it
 * then runs in stream order, checking again that the memory is still live.
 *
 * Host synchronisation follows the CUDA Runtime API page "API synchronization
 * behavior": an asynchronous copy from pageable host memory to the device
 * first synchronises the stream and copies the source to staging memory
 * before returning (the caller may reuse it at once; the device is written in
 * stream order); a copy from the device to pageable host memory returns only
 * once it is complete; copies involving page-locked (pinned) memory are fully
 * asynchronous, so the device reads or writes that host memory when the
 * stream runs, and a host that touches it earlier sees or causes stale data.
 */
#include <string.h>

#include <memory>
#include <string>
#include <vector>

#include "emu_runtime.h"

namespace pdt_emu {
namespace {

const char *kind_name(cudaMemcpyKind k)
{
    switch (k) {
    case cudaMemcpyHostToHost: return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice: return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost: return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice: return "cudaMemcpyDeviceToDevice";
    case cudaMemcpyDefault: return "cudaMemcpyDefault";
    }
    return "an unknown cudaMemcpyKind";
}

const char *where(const mem_info &m)
{
    return m.kind == MEM_DEVICE   ? "device memory"
           : m.kind == MEM_PINNED ? "page-locked host memory"
                                  : "pageable host memory";
}

/* One side of a copy: device memory must be a live allocation holding the
 * whole range. */
void check_side(const char *call, const char *name, const void *p, size_t n, const mem_info &m,
                bool known)
{
    if (!known || m.kind == MEM_NONE)
        return;
    if (!m.live)
        violation(call,
                  "CUDA Runtime API, cudaFree/cudaFreeAsync: memory must not be used after "
                  "it is freed",
                  "%s = %p lies in a freed allocation of %zu bytes", name, p, m.size);
    if ((const char *)p + n > m.base + m.size)
        violation(call, "CUDA Runtime API, cudaMemcpy: the copy must stay inside the allocation",
                  "%s = %p, %zu bytes, runs past the end of an allocation of %zu bytes at %p", name,
                  p, n, m.size, (const void *)m.base);
}

/* Checks the kind against the pointers; returns the kind with Default
 * resolved.  Aborts on a mismatch. */
cudaMemcpyKind check_copy(const char *call, void *dst, const void *src, size_t n,
                          cudaMemcpyKind kind)
{
    mem_info d, s;
    bool dk = lookup(dst, &d) != 0, sk = lookup(src, &s) != 0;
    const bool d_dev = dk && d.kind == MEM_DEVICE, s_dev = sk && s.kind == MEM_DEVICE;
    cudaMemcpyKind resolved = kind;
    if (kind == cudaMemcpyDefault)
        resolved = d_dev ? (s_dev ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                         : (s_dev ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    const bool want_d_dev = resolved == cudaMemcpyHostToDevice ||
                            resolved == cudaMemcpyDeviceToDevice;
    const bool want_s_dev = resolved == cudaMemcpyDeviceToHost ||
                            resolved == cudaMemcpyDeviceToDevice;
    if (want_d_dev != d_dev || want_s_dev != s_dev)
        violation(call,
                  "CUDA Runtime API, cudaMemcpy: the kind must match where dst and src live "
                  "(a mismatch is undefined behaviour)",
                  "%s with dst = %p in %s and src = %p in %s (%zu bytes)", kind_name(kind), dst,
                  dk ? where(d) : "pageable host memory", src,
                  sk ? where(s) : "pageable host memory", n);
    check_side(call, "dst", dst, n, d, dk);
    check_side(call, "src", src, n, s, sk);
    return resolved;
}

bool is_pinned_or_device(const void *p)
{
    mem_info m;
    return lookup(p, &m) && m.kind != MEM_NONE;
}

/* Enqueues the copy on s, checking at run time that device sides are live. */
void enqueue_copy(stream *s, const char *what, void *dst, const void *src, size_t n)
{
    enqueue(s, what, [dst, src, n, what] {
        mem_info m;
        if (lookup(dst, &m))
            check_side(what, "dst", dst, n, m, true);
        if (lookup(src, &m))
            check_side(what, "src", src, n, m, true);
        memmove(dst, src, n);
    });
}

cudaError_t memcpy_async(void *dst, const void *src, size_t n, cudaMemcpyKind kind, stream *s,
                         const char *call, bool sync)
{
    if (n == 0)
        return cudaSuccess;
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
        return set_error(cudaErrorInvalidValue);
    cudaMemcpyKind k = check_copy(call, dst, src, n, kind);
    if (cudaError_t e = memcpy_fault(s->device)) /* Note [fault injection] */
        return e;
    if (k == cudaMemcpyHostToDevice && !is_pinned_or_device(src)) {
        /* pageable source: synchronise, stage, return; the device is
         * written in stream order */
        drain(s);
        std::shared_ptr<std::vector<char>> staged =
            std::make_shared<std::vector<char>>((const char *)src, (const char *)src + n);
        enqueue(s, call, [dst, staged, n, call] {
            mem_info m;
            if (lookup(dst, &m))
                check_side(call, "dst", dst, n, m, true);
            memcpy(dst, staged->data(), n);
        });
        if (sync)
            drain(s);
        return cudaSuccess;
    }
    enqueue_copy(s, call, dst, src, n);
    if (sync || (k == cudaMemcpyDeviceToHost && !is_pinned_or_device(dst)))
        drain(s);
    return cudaSuccess;
}

/* Checks that p is live device memory of device dev, whole range. */
void check_peer_side(const char *call, const char *name, const void *p, int dev, size_t n)
{
    mem_info m;
    if (!lookup(p, &m) || m.kind != MEM_DEVICE || m.device != dev)
        violation(call,
                  "CUDA Runtime API, cudaMemcpyPeerAsync: each pointer must be memory of the "
                  "device named with it",
                  "%s = %p is %s%s, not memory of cuda:%d", name, p,
                  m.kind == MEM_DEVICE ? "memory of cuda:" : where(m),
                  m.kind == MEM_DEVICE ? std::to_string(m.device).c_str() : "", dev);
    check_side(call, name, p, n, m, true);
}

} // namespace
} // namespace pdt_emu

using namespace pdt_emu;

extern "C" {

PDT_EMU_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                        enum cudaMemcpyKind kind, cudaStream_t s)
{
    /* Programming Guide, "Stream and Event Behavior": a copy may be issued to
     * a stream of another device than the current one. */
    return memcpy_async(dst, src, count, kind, resolve(s, "cudaMemcpyAsync"), "cudaMemcpyAsync",
                        false);
}

PDT_EMU_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                                   enum cudaMemcpyKind kind)
{
    /* synchronous: on the legacy default stream, waited for */
    return memcpy_async(dst, src, count, kind, resolve(NULL, "cudaMemcpy"), "cudaMemcpy", true);
}

PDT_EMU_API cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_device, const void *src,
                                            int src_device, size_t count, cudaStream_t s)
{
    if (!valid_device(dst_device) || !valid_device(src_device))
        return set_error(cudaErrorInvalidDevice);
    if (count == 0)
        return cudaSuccess;
    check_peer_side("cudaMemcpyPeerAsync", "dst", dst, dst_device, count);
    check_peer_side("cudaMemcpyPeerAsync", "src", src, src_device, count);
    if (cudaError_t e = memcpy_fault(src_device)) /* Note [fault injection] */
        return e;
    if (sticky_error(dst_device) != cudaSuccess)
        return sticky_error(dst_device);
    enqueue_copy(resolve(s, "cudaMemcpyPeerAsync"), "cudaMemcpyPeerAsync", dst, src, count);
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaMemcpyPeer(void *dst, int dst_device, const void *src, int src_device,
                                       size_t count)
{
    cudaError_t e = cudaMemcpyPeerAsync(dst, dst_device, src, src_device, count, NULL);
    if (e == cudaSuccess)
        drain(resolve(NULL, "cudaMemcpyPeer"));
    return e;
}

PDT_EMU_API cudaError_t cudaMemsetAsync(void *dst, int value, size_t count, cudaStream_t s)
{
    if (count == 0)
        return cudaSuccess;
    stream *st = resolve(s, "cudaMemsetAsync");
    mem_info m;
    if (!lookup(dst, &m) || m.kind != MEM_DEVICE)
        violation("cudaMemsetAsync", "CUDA Runtime API, cudaMemset: dst is device memory",
                  "dst = %p is %s", dst, lookup(dst, &m) ? where(m) : "pageable host memory");
    check_side("cudaMemsetAsync", "dst", dst, count, m, true);
    if (sticky_error(st->device) != cudaSuccess) /* Note [fault injection] */
        return sticky_error(st->device);
    enqueue(st, "cudaMemsetAsync", [dst, value, count] {
        mem_info k;
        if (lookup(dst, &k))
            check_side("cudaMemsetAsync", "dst", dst, count, k, true);
        memset(dst, value, count);
    });
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaMemset(void *dst, int value, size_t count)
{
    cudaError_t e = cudaMemsetAsync(dst, value, count, NULL);
    if (e == cudaSuccess)
        drain(resolve(NULL, "cudaMemset"));
    return e;
}

} /* extern "C" */
