/* cuda_index_check.cu - index range checks on the device, reported at the
 * next synchronisation (Note [deferred index checks] in pdt_index.h; contracts
 * of index_check_async, index_error_take and index_checks_pending in
 * pdt_backend.h).
 *
 * Each logical device has a ring of kSlots slots in mapped page-locked host
 * memory (cudaHostAlloc with cudaHostAllocMapped, its device address from
 * cudaHostGetDevicePointer; CUDA Runtime API, "Memory Management"): the k-th
 * check queued on the device writes slot k % kSlots, straight into host
 * memory, and the host reads it with no copy.  Every field has one writer, the
 * device, and the host reads a slot only once the event recorded after its
 * check has completed (cudaEventQuery), never while a kernel may write it: on
 * most systems (hostNativeAtomicSupported 0, PCIe on x86) the host and the
 * device must not access such memory concurrently (CUDA C++ Programming
 * Guide, "System-scope atomics"; libcu++, "Concurrency restrictions").  What
 * the host knows of a slot it keeps in its own memory: the op, dim and size
 * of the check, the slot's claim and count when it last read them.
 *
 * The check kernel runs one thread per index value.  A slot counts its bad
 * values (`bad`, one system-scope atomicAdd per block that found any, so
 * millions of bad values cost one host-memory atomic per block) and keeps one
 * of them (`value`, not necessarily the lowest): in each warp the first lane
 * with a value out of range (__ballot_sync), and in each block only the first
 * such warp (a flag in shared memory), tries a system-scope atomicCAS of
 * `claim` from the value the host last read to this check's tag; the one that
 * wins writes `value`.  The host never writes the ring, so nothing is reset:
 * the counts only grow and the host takes differences.
 *
 * When kSlots checks are queued and none taken (a host far ahead of the
 * device, never synchronising), queueing one more first waits for the oldest
 * (cudaEventSynchronize) and keeps what it found for the next report.  Built
 * by nvcc, or by the host compiler against the emulated device. */
#include <stdint.h>
#include <string.h>

#include <atomic>
#include <mutex>

#include "cuda_check.h"
#include "cuda_launch.h"
#include "cuda_layout.cuh"
#include "cuda_ops.h"

namespace {

using namespace pdt_cuda;

/* One check's result, written by the device only. */
struct slot {
    unsigned long long claim; /* the tag of the last check here that kept a value */
    unsigned long long bad;   /* bad values found by the checks of this slot, ever */
    long long value;          /* the value that check kept */
    long long unused;
};

constexpr int kSlots = 256;

/* A logical device's checks; every field but `pending` under `mu`. */
struct device_checks {
    std::mutex mu;
    slot *host;   /* NULL until the device's first check */
    slot *device; /* the same memory, as the device addresses it */
    /* 1: the device cannot have one (it cannot map host memory, or an
     * allocation failed): its indices are checked on the host. */
    int unavailable;
    cudaEvent_t done[kSlots];     /* recorded after the slot's check */
    unsigned char synced[kSlots]; /* no event: the stream was synchronised */
    struct {
        int32_t op, dim;
        int64_t size;
    } queued[kSlots];                      /* what each slot's check is */
    unsigned long long seen_claim[kSlots]; /* claim and bad when last read */
    unsigned long long seen_bad[kSlots];
    uint64_t launched, taken; /* checks queued and read, ever; slot of k: k % kSlots */
    pdt_index_error found;    /* read but not yet reported (found.op != 0 or more) */
    int have;                 /* found holds an error */
    /* launched > taken or have: read without the lock (index_checks_pending,
     * and the fast path of a report); set under mu. */
    std::atomic<int> pending;
};

device_checks checks[PDT_MAX_DEVICES];

__global__ void index_range_kernel(const int64_t *index, int64_t n, int64_t lo, int64_t size,
                                   unsigned long long tag, unsigned long long expect, slot *rec)
{
    __shared__ unsigned block_claimed;  /* a warp of this block tried the claim */
    __shared__ unsigned long long nbad; /* bad values this block found */
    if (threadIdx.x == 0) {
        block_claimed = 0u;
        nbad = 0ull;
    }
    __syncthreads();
    const unsigned lane = threadIdx.x % 32u;
    /* whole warps go round the loop together (blockDim is a multiple of 32), so
     * the ballot has every lane; i0 is the warp's first element */
    for (int64_t i0 = gs_first<int64_t>() - lane; i0 < n; i0 += gs_step<int64_t>()) {
        const int64_t i = i0 + lane;
        const int64_t v = i < n ? index[i] : 0;
        const unsigned bad = __ballot_sync(0xffffffffu, i < n && (v < lo || v >= size));
        if (bad == 0u || lane != (unsigned)(__ffs((int)bad) - 1))
            continue;
        atomicAdd(&nbad, (unsigned long long)__popc(bad));
        if (*(volatile unsigned *)&block_claimed != 0u)
            continue;
        *(volatile unsigned *)&block_claimed = 1u;
        if (atomicCAS_system(&rec->claim, expect, tag) == expect)
            rec->value = v; /* the one winner of this check */
    }
    __syncthreads();
    if (threadIdx.x == 0 && nbad != 0ull)
        atomicAdd_system(&rec->bad, nbad);
}

/* The ring of logical device `logical` (its GPU current), made on first use;
 * c.host NULL when the device cannot have one (then or before).  Under c.mu. */
void ring_of(device_checks &c)
{
    void *host = nullptr, *dev = nullptr;
    int gpu = 0, can_map = 0, made = 0;
    if (c.host != nullptr || c.unavailable)
        return;
    /* Any failure here is remembered, not raised: a gather with a valid index
     * must not fail for want of the ring (CUDA Runtime API,
     * cudaDevAttrCanMapHostMemory, cudaHostAlloc, cudaHostGetDevicePointer,
     * cudaEventCreateWithFlags). */
    if (cudaGetDevice(&gpu) == cudaSuccess &&
        cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, gpu) == cudaSuccess &&
        can_map &&
        cudaHostAlloc(&host, sizeof(slot) * kSlots, cudaHostAllocMapped | cudaHostAllocPortable) ==
            cudaSuccess) {
        memset(host, 0, sizeof(slot) * kSlots);
        if (cudaHostGetDevicePointer(&dev, host, 0) == cudaSuccess)
            for (; made < kSlots; made++)
                if (cudaEventCreateWithFlags(&c.done[made], cudaEventDisableTiming) != cudaSuccess)
                    break;
    }
    if (made == kSlots) {
        c.host = (slot *)host;
        c.device = (slot *)dev;
        return;
    }
    while (made > 0)
        PDT_CUDA_IGNORE(cudaEventDestroy(c.done[--made]));
    if (host != nullptr)
        PDT_CUDA_IGNORE(cudaFreeHost(host));
    c.unavailable = 1;
    (void)cudaGetLastError(); /* the failure is handled: not the next op's */
}

/* Adds code to e's list of ops that found more bad values, once. */
void note_op(pdt_index_error *e, int32_t code)
{
    for (int k = 0; k < e->n_more_ops && k < PDT_INDEX_MORE_OPS; k++)
        if (e->more_ops[k] == code)
            return;
    if (e->n_more_ops < PDT_INDEX_MORE_OPS)
        e->more_ops[e->n_more_ops] = code;
    e->n_more_ops++;
}

/* Reads, in order, the slots of the checks that have completed into c.found,
 * stopping at the first still queued or running.  Under c.mu. */
void read_completed(device_checks &c)
{
    while (c.taken < c.launched) {
        const int k = (int)(c.taken % kSlots);
        if (!c.synced[k]) {
            const cudaError_t e = cudaEventQuery(c.done[k]);
            if (e != cudaSuccess) {
                if (e != cudaErrorNotReady)
                    (void)cudaGetLastError(); /* not ours to raise: the next op's sync */
                break;
            }
        }
        const slot &s = c.host[k];
        const unsigned long long claim = s.claim, bad = s.bad;
        unsigned long long n = bad - c.seen_bad[k];
        c.seen_bad[k] = bad;
        if (claim != c.seen_claim[k]) {
            c.seen_claim[k] = claim;
            if (!c.have) {
                c.have = 1;
                c.found.op = c.queued[k].op;
                c.found.dim = c.queued[k].dim;
                c.found.size = c.queued[k].size;
                c.found.value = s.value;
                n--; /* the one kept; n >= 1 with a claim */
            }
        }
        if (n != 0ull) {
            c.found.more += n;
            note_op(&c.found, c.queued[k].op);
        }
        c.taken++;
    }
    c.pending.store(c.have || c.taken < c.launched, std::memory_order_release);
}

} // namespace

extern "C" pdt_status pdt_cuda_index_check_async(const pdt_tensor *index, int64_t size, int dim,
                                                 int negative_ok, int op, int *queued)
{
    *queued = 0;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT; /* Note [device guard] in cuda_ops.h */
    cudaStream_t stream;
    const int logical = index->device.index;
    pdt_status st = logical >= 0 && logical < PDT_MAX_DEVICES
                        ? pdt_cuda_stream(&g, logical, &stream)
                        : pdt_fail(PDT_ERR_DEVICE, "index check: no CUDA device %d", logical);
    if (st != PDT_OK) {
        pdt_cuda_guard_exit(&g);
        return st;
    }
    device_checks &c = checks[logical];
    {
        std::lock_guard<std::mutex> lock(c.mu);
        ring_of(c);
        if (c.host != nullptr) {
            const int64_t n = pdt_tensor_numel(index);
            if (c.launched - c.taken == (uint64_t)kSlots) { /* the ring is full */
                const int k = (int)(c.taken % kSlots);
                if (!c.synced[k])
                    PDT_CUDA_IGNORE(cudaEventSynchronize(c.done[k]));
                read_completed(c);
            }
            if (c.launched - c.taken < (uint64_t)kSlots) {
                const int k = (int)(c.launched % kSlots);
                PDT_LAUNCH((index_range_kernel), grid_for<index_range_kernel>((uint64_t)n),
                           kThreads, 0, stream, (const int64_t *)pdt_tensor_ptr(index), n,
                           negative_ok ? -size : 0, size, (unsigned long long)c.launched + 1ull,
                           c.seen_claim[k], c.device + k);
                cudaError_t e = cudaGetLastError();
                if (e != cudaSuccess) {
                    st = pdt_cuda_fail(e, "index_range_kernel", __FILE__, __LINE__);
                } else {
                    c.queued[k].op = op;
                    c.queued[k].dim = dim;
                    c.queued[k].size = size;
                    c.synced[k] = 0;
                    if (cudaEventRecord(c.done[k], stream) != cudaSuccess) {
                        /* no event to ask: complete it now */
                        (void)cudaGetLastError();
                        PDT_CUDA_IGNORE(cudaStreamSynchronize(stream));
                        c.synced[k] = 1;
                    }
                    c.launched++;
                    c.pending.store(1, std::memory_order_release);
                    *queued = 1;
                }
            }
            /* else the oldest check could not be completed: checked on the host */
        }
    }
    pdt_cuda_guard_exit(&g);
    return st;
}

extern "C" int pdt_cuda_index_error_take(int logical, pdt_index_error *out)
{
    if (logical < 0 || logical >= PDT_MAX_DEVICES)
        return 0;
    device_checks &c = checks[logical];
    if (!c.pending.load(std::memory_order_acquire)) /* the usual case: no lock, no call */
        return 0;
    std::lock_guard<std::mutex> lock(c.mu);
    read_completed(c);
    if (!c.have)
        return 0;
    *out = c.found;
    memset(&c.found, 0, sizeof c.found);
    c.have = 0;
    c.pending.store(c.taken < c.launched, std::memory_order_release);
    return 1;
}

extern "C" int pdt_cuda_index_checks_pending(int logical)
{
    return logical >= 0 && logical < PDT_MAX_DEVICES &&
           checks[logical].pending.load(std::memory_order_acquire);
}
