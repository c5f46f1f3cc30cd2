/* cuda_index_check.cu - index range checks on the device, reported at the
 * next synchronisation (Note [deferred index checks] in pdt_index.h; contracts
 * of index_check_async and index_error_take in pdt_backend.h).
 *
 * Each logical device has one pdt_index_error record in mapped page-locked
 * host memory (cudaHostAlloc with cudaHostAllocMapped, its device address
 * from cudaHostGetDevicePointer; CUDA Runtime API, "Memory Management"): a
 * kernel writes it straight into host memory, and the host reads it after any
 * synchronisation with no copy.  The check kernel runs one thread per index
 * value; a thread that finds a value out of range claims the record with an
 * atomicCAS on `claimed` (so the first error recorded since the host last
 * took one wins, across ops too), writes the fields, fences them out to the
 * system and sets `ready`.  The host takes the record only after a
 * synchronisation (pdt_index_errors_report), when every kernel queued before
 * it has finished.  Built by nvcc, or by the host compiler against the
 * emulated device.
 */
#include <stdint.h>
#include <string.h>

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
};

record records[PDT_MAX_DEVICES];
std::mutex records_lock;

__global__ void index_range_kernel(const int64_t *index, int64_t n, int64_t lo, int64_t size,
                                   int dim, int op, pdt_index_error *rec)
{
    for (int64_t i = gs_first<int64_t>(); i < n; i += gs_step<int64_t>()) {
        const int64_t v = index[i];
        if ((v >= lo && v < size) || atomicCAS(&rec->claimed, 0u, 1u) != 0u)
            continue;
        rec->op = op;
        rec->dim = dim;
        rec->value = v;
        rec->size = size;
        __threadfence_system(); /* the fields reach host memory before ready */
        rec->ready = 1u;
    }
}

/* The record of logical device `logical` (its GPU current), made on first use. */
pdt_status record_of(int logical, pdt_index_error **device_ptr)
{
    pdt_status st = PDT_OK;
    void *host = nullptr, *dev = nullptr;
    std::lock_guard<std::mutex> g(records_lock);
    if (records[logical].host == nullptr) {
        PDT_CUDA_CHECK(cudaHostAlloc(&host, sizeof(pdt_index_error),
                                     cudaHostAllocMapped | cudaHostAllocPortable));
        memset(host, 0, sizeof(pdt_index_error));
        PDT_CUDA_CHECK(cudaHostGetDevicePointer(&dev, host, 0));
        records[logical].host = (pdt_index_error *)host;
        records[logical].device = (pdt_index_error *)dev;
        host = nullptr;
    }
    *device_ptr = records[logical].device;
fail:
    if (host != nullptr)
        PDT_CUDA_IGNORE(cudaFreeHost(host));
    return st;
}

} // namespace

extern "C" pdt_status pdt_cuda_index_check_async(const pdt_tensor *index, int64_t size, int dim,
                                                 int negative_ok, int op)
{
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT; /* Note [device guard] in cuda_ops.h */
    cudaStream_t stream;
    pdt_index_error *rec = nullptr;
    const int logical = index->device.index;
    pdt_status st = logical >= 0 && logical < PDT_MAX_DEVICES
                        ? pdt_cuda_stream(&g, logical, &stream)
                        : pdt_fail(PDT_ERR_DEVICE, "index check: no CUDA device %d", logical);
    if (st == PDT_OK)
        st = record_of(logical, &rec);
    if (st == PDT_OK) {
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
    if (rec == nullptr || __atomic_exchange_n(&rec->ready, 0u, __ATOMIC_ACQ_REL) == 0u)
        return 0;
    out->op = rec->op;
    out->dim = rec->dim;
    out->value = rec->value;
    out->size = rec->size;
    out->claimed = 1u;
    out->ready = 1u;
    __atomic_store_n(&rec->claimed, 0u, __ATOMIC_RELEASE); /* open for the next error */
    return 1;
}
