/* cuda_device.h - a CUDA device's state, shared by the backend's files
 * (cuda_backend.c: devices, memory, kernels; cuda_copies.c: copies).  C only. */
#ifndef PDT_CUDA_DEVICE_H
#define PDT_CUDA_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>

#include <cuda_runtime.h>

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

/* Every index the core passes in is a logical device (Note [logical devices] in
 * pdt_registry.c); the entry points map it to the physical device here, and
 * everything below them works with physical indices.  -1 (the host) stays -1. */
static inline int pdt_cuda_phys(int index)
{
    return index < 0 ? -1 : pdt_physical_index(PDT_CUDA, index);
}

/* Makes physical device index the current device through g (Note [device
 * guard] in cuda_ops.h: the caller exits g) and returns its state, set up. */
pdt_status pdt_cuda_prepare(pdt_cuda_guard *g, int index, cuda_device **out);

/* The default memory pool of physical device index, set up (NULL: none). */
cudaMemPool_t pdt_cuda_pool(int index);

/* The table's copy_bytes (cuda_copies.c). */
pdt_status pdt_cuda_copy_bytes(pdt_copy_kind kind, int dst_logical, void *dst, int src_logical,
                               const void *src, size_t nbytes, int flags);

#endif
