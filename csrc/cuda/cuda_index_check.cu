/* cuda_index_check.cu - index range checks on the device, reported at the
 * next synchronisation (Note [deferred index checks] in pdt_index.h; contracts
 * of index_check_async and index_error_take in pdt_backend.h).
 *
 * Each logical device has one pdt_index_error record in mapped page-locked
 * host memory (cudaHostAlloc with cudaHostAllocMapped, its device address
 * from cudaHostGetDevicePointer; CUDA Runtime API, "Memory Management"): a
 * kernel writes it straight into host memory, and the host reads it after any
 * synchronisation with no copy.  The check kernel runs one thread per index
 * value; in each warp the first lane with a value out of range (__ballot_sync),
 * and in each block only the first such warp (a flag in shared memory), claims
 * the record with a system-scope atomicCAS on `claimed` (so one bad value,
 * not necessarily the lowest, is recorded since the host last took one, across
 * ops too, and millions of bad values cost one host-memory atomic per block, not
 * one each), writes the fields, fences them out to the system and sets
 * `ready`.  A warp that loses the claim sets `missed`.  The host takes the
 * record only after a synchronisation (pdt_index_errors_report), when every
 * kernel queued before
 * it has finished.  Built by nvcc, or by the host compiler against the
 * emulated device.
 */
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

struct record {
    pdt_index_error *host;   /* NULL until the device's first check */
    pdt_index_error *device; /* the same memory, as the device addresses it */
    /* 1: the device cannot have one (it cannot map host memory, or the
     * allocation or mapping failed): its indices are checked on the host. */
    int unavailable;
};

record records[PDT_MAX_DEVICES];
std::mutex records_lock;
/* An error of the device whose details were lost, for the next report. */
std::atomic<int> lost[PDT_MAX_DEVICES];

__global__ void index_range_kernel(const int64_t *index, int64_t n, int64_t lo, int64_t size,
                                   int dim, int op, pdt_index_error *rec)
{
    __shared__ unsigned block_claimed; /* a warp of this block found a bad value */
    if (threadIdx.x == 0)
        block_claimed = 0u;
    __syncthreads();
    const unsigned lane = threadIdx.x % 32u;
    /* whole warps go round the loop together (blockDim is a multiple of 32), so
     * the ballot has every lane; i0 is the warp's first element */
    for (int64_t i0 = gs_first<int64_t>() - lane; i0 < n; i0 += gs_step<int64_t>()) {
        const int64_t i = i0 + lane;
        const int64_t v = i < n ? index[i] : 0;
        const unsigned bad = __ballot_sync(0xffffffffu, i < n && (v < lo || v >= size));
        if (bad == 0u || lane != (unsigned)(__ffs((int)bad) - 1) ||
            *(volatile unsigned *)&block_claimed != 0u)
            continue;
        *(volatile unsigned *)&block_claimed = 1u;
        if (atomicCAS_system(&rec->claimed, 0u, 1u) != 0u) {
            atomicExch_system(&rec->missed, 1u); /* Note in pdt_cuda_index_error_take */
            continue;
        }
        rec->op = op;
        rec->dim = dim;
        rec->value = v;
        rec->size = size;
        __threadfence_system(); /* the fields reach host memory before ready */
        atomicExch_system(&rec->ready, 1u);
    }
}

/* The record of logical device `logical` (its GPU current), made on first use;
 * *device_ptr NULL when the device cannot have one (then or before). */
pdt_status record_of(int logical, pdt_index_error **device_ptr)
{
    void *host = nullptr, *dev = nullptr;
    int gpu = 0, can_map = 0;
    std::lock_guard<std::mutex> g(records_lock);
    record &r = records[logical];
    if (r.host == nullptr && !r.unavailable) {
        /* Any failure here is remembered, not raised: a gather with a valid
         * index must not fail for want of the record (CUDA Runtime API,
         * cudaDevAttrCanMapHostMemory, cudaHostAlloc, cudaHostGetDevicePointer). */
        if (cudaGetDevice(&gpu) == cudaSuccess &&
            cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, gpu) == cudaSuccess &&
            can_map &&
            cudaHostAlloc(&host, sizeof(pdt_index_error),
                          cudaHostAllocMapped | cudaHostAllocPortable) == cudaSuccess) {
            memset(host, 0, sizeof(pdt_index_error));
            if (cudaHostGetDevicePointer(&dev, host, 0) == cudaSuccess) {
                r.host = (pdt_index_error *)host;
                r.device = (pdt_index_error *)dev;
                host = nullptr;
            }
        }
        if (host != nullptr)
            PDT_CUDA_IGNORE(cudaFreeHost(host));
        if (r.host == nullptr) {
            r.unavailable = 1;
            (void)cudaGetLastError(); /* the failure is handled: not the next op's */
        }
    }
    *device_ptr = r.device;
    return PDT_OK;
}

} // namespace

extern "C" pdt_status pdt_cuda_index_check_async(const pdt_tensor *index, int64_t size, int dim,
                                                 int negative_ok, int op, int *queued)
{
    *queued = 0;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT; /* Note [device guard] in cuda_ops.h */
    cudaStream_t stream;
    pdt_index_error *rec = nullptr;
    const int logical = index->device.index;
    pdt_status st = logical >= 0 && logical < PDT_MAX_DEVICES
                        ? pdt_cuda_stream(&g, logical, &stream)
                        : pdt_fail(PDT_ERR_DEVICE, "index check: no CUDA device %d", logical);
    if (st == PDT_OK)
        st = record_of(logical, &rec);
    if (st == PDT_OK && rec != nullptr) {
        *queued = 1;
        const int64_t n = pdt_tensor_numel(index);
        PDT_LAUNCH((index_range_kernel), grid_for<index_range_kernel>((uint64_t)n), kThreads, 0,
                   stream, (const int64_t *)pdt_tensor_ptr(index), n, negative_ok ? -size : 0, size,
                   dim, op, rec);
        PDT_CUDA_CHECK(cudaGetLastError());
    }
fail:
    pdt_cuda_guard_exit(&g);
    return st;
}

extern "C" int pdt_cuda_index_error_take(int logical, pdt_index_error *out)
{
    if (logical < 0 || logical >= PDT_MAX_DEVICES)
        return 0;
    pdt_index_error *rec;
    {
        std::lock_guard<std::mutex> g(records_lock);
        rec = records[logical].host;
    }
    /* `ready` is set last (after a system fence), so the fields read after it
     * are complete; exchanging it to 0 lets one of several threads that
     * synchronise at once report the error. */
    if (rec == nullptr)
        return 0;
    if (__atomic_exchange_n(&rec->ready, 0u, __ATOMIC_ACQ_REL) == 0u) {
        /* an error found while the last one was being taken (below) */
        if (!lost[logical].exchange(0))
            return 0;
        memset(out, 0, sizeof *out);
        out->missed = 1u;
        return 1;
    }
    out->op = rec->op;
    out->dim = rec->dim;
    out->value = rec->value;
    out->size = rec->size;
    out->claimed = 1u;
    out->ready = 1u;
    out->missed = 0u;
    /* Checks that lost the claim to this error before now: the same report. */
    __atomic_exchange_n(&rec->missed, 0u, __ATOMIC_ACQ_REL);
    __atomic_store_n(&rec->claimed, 0u, __ATOMIC_SEQ_CST); /* open for the next error */
    /* A check that lost the claim between the exchange of `ready` and the
     * store above found an error after this one, which no record holds: it is
     * reported, without details, at the next synchronisation. */
    if (__atomic_exchange_n(&rec->missed, 0u, __ATOMIC_SEQ_CST) != 0u)
        lost[logical].store(1);
    return 1;
}
