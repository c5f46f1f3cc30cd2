/* cuda_backend.c - the CUDA device backend: the pdt_cuda_backend table.
 *
 * Devices are found once (pthread_once) and never raise when CUDA is missing.
 * Each device gets one non-blocking stream, created on first use; every copy
 * and kernel of that device is ordered on it, and device memory comes from the
 * device's own stream-ordered pool (Note [our own pool];
 * cudaMallocFromPoolAsync/cudaFreeAsync) on that stream.  Copies live in
 * cuda_copies.c, kernels in cuda_kernels.cu; errors become pdt_status through
 * PDT_CUDA_CHECK (cuda_check.h).  Nothing here prints or exits.
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
#include <unistd.h>

#include <cuda_runtime.h>

#include "cuda_blas.h"
#include "cuda_check.h"
#include "cuda_device.h"
#include "cuda_kernels.h"
#include "cuda_library.h"
#include "cuda_ops.h"
#include "pdt_backend.h"

static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;
static int cuda_count;        /* devices usable, <= PDT_MAX_DEVICES */
static char cuda_reason[512]; /* why cuda_count is 0 */
static cuda_device cuda_devices[PDT_MAX_DEVICES];
/* Serialises the rare set-up steps: stream/pool creation and peer access. */
static pthread_mutex_t cuda_setup_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---------------------------------------------------------------- devices */

/* Set in a child forked after cuda_init_once ran (Note [CUDA in a forked child]). */
static atomic_int cuda_forked;

static void cuda_child_after_fork(void) { atomic_store(&cuda_forked, 1); }

int pdt_cuda_forked(void) { return atomic_load_explicit(&cuda_forked, memory_order_relaxed); }

pdt_status pdt_cuda_fork_fail(int device)
{
    char where[32] = "";
    if (device >= 0)
        snprintf(where, sizeof where, " (cuda:%d)", pdt_logical_index(PDT_CUDA, device));
    return pdt_fail(PDT_ERR_BACKEND,
                    "Cannot re-initialize CUDA in forked subprocess%s: this process (pid %d) was "
                    "forked from one (pid %d) that had initialized CUDA, which a forked child "
                    "cannot use. To use CUDA with multiprocessing, you must use the 'spawn' start "
                    "method; a DataLoader worker gives CPU tensors, moved to the GPU in the main "
                    "process",
                    where, (int)getpid(), (int)getppid());
}

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
    if (cuda_count > 0) /* the driver is initialised now: a forked child cannot use it */
        pthread_atfork(NULL, NULL, cuda_child_after_fork);
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
        uint64_t threshold = UINT64_MAX;
        /* d->pool set: an earlier set-up made it and then failed (no stream, say);
         * the retry keeps that pool rather than make a second one. */
        if (d->pool == NULL) {
            cudaMemPool_t pool = NULL;
            struct cudaMemPoolProps props;
            memset(&props, 0, sizeof props);
            props.allocType = cudaMemAllocationTypePinned;
            props.handleTypes = cudaMemHandleTypeNone;
            props.location.type = cudaMemLocationTypeDevice;
            props.location.id = index;
            PDT_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
            d->pool = pool; /* lives as long as the process */
        }
        PDT_CUDA_CHECK(
            cudaMemPoolSetAttribute(d->pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    }
    PDT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    d->stream = stream;
    atomic_store_explicit(&d->ready, 1, memory_order_release);
fail:
    pthread_mutex_unlock(&cuda_setup_lock);
    return st;
}

pdt_status pdt_cuda_prepare(pdt_cuda_guard *g, int index, cuda_device **out)
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
    PDT_CUDA_ENTER(g, index);
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
    pdt_status st = pdt_cuda_prepare(g, pdt_cuda_phys(logical), &d);
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

/* A device and itself: 0, as cudaDeviceCanAccessPeer says; two logical devices of one GPU
 * (Note [logical devices] in pdt_registry.c): 1, they share its memory. */
static pdt_status cuda_can_access_peer(int logical, int peer_logical, int *out)
{
    const int index = pdt_cuda_phys(logical), peer = pdt_cuda_phys(peer_logical);
    pdt_status st = PDT_OK;
    *out = logical != peer_logical;
    if (index != peer)
        PDT_CUDA_CHECK(cudaDeviceCanAccessPeer(out, index, peer));
fail:
    return st;
}

static pdt_status cuda_properties(int logical, pdt_device_props *out)
{
    const int index = pdt_cuda_phys(logical);
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
    out->warp_size = p.warpSize;
    out->max_threads_per_block = p.maxThreadsPerBlock;
    out->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    out->regs_per_sm = p.regsPerMultiprocessor;
    out->shared_per_block = p.sharedMemPerBlock;
    out->shared_per_block_optin = p.sharedMemPerBlockOptin;
    out->shared_per_sm = p.sharedMemPerMultiprocessor;
    out->l2_cache_size = p.l2CacheSize;
    out->is_integrated = p.integrated;
    out->is_multi_gpu_board = p.isMultiGpuBoard;
    out->pci_bus_id = p.pciBusID;
    out->pci_device_id = p.pciDeviceID;
    out->pci_domain_id = p.pciDomainID;
    memcpy(out->uuid, p.uuid.bytes, sizeof out->uuid);
    /* the attribute cuda_setup chooses the allocation path by (cuda_alloc) */
    PDT_CUDA_CHECK(
        cudaDeviceGetAttribute(&out->memory_pools, cudaDevAttrMemoryPoolsSupported, index));
    out->memory_pools = out->memory_pools != 0;
fail:
    return st;
}

static pdt_status cuda_mem_info(int logical, size_t *free_bytes, size_t *total_bytes)
{
    const int index = pdt_cuda_phys(logical);
    pdt_status st = PDT_OK;
    size_t f = 0, t = 0;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    PDT_CUDA_ENTER(&g, index); /* cudaMemGetInfo reports the current device */
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
    cuda_device *d = cuda_if_ready(pdt_cuda_phys(logical));
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

cudaMemPool_t pdt_cuda_pool(int index)
{
    cuda_device *d = cuda_if_ready(index);
    return d ? d->pool : NULL;
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
    const int index = pdt_cuda_phys(logical);
    pdt_status st = PDT_OK;
    cuda_device *d = NULL;
    cudaError_t err;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    *out = NULL;
    st = pdt_cuda_prepare(&g, index, &d);
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
    cuda_device *d = cuda_if_ready(pdt_cuda_phys(logical));
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
    cuda_device *d = cuda_if_ready(pdt_cuda_phys(logical));
    uint64_t bytes = 0;
    if (d == NULL || d->pool == NULL || pdt_cuda_forked())
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
    cuda_device *d = cuda_if_ready(pdt_cuda_phys(logical));
    uint64_t zero = 0;
    if (d != NULL && d->pool != NULL)
        PDT_CUDA_IGNORE(cudaMemPoolSetAttribute(d->pool, cudaMemPoolAttrReservedMemHigh, &zero));
}

static void cuda_empty_cache(int logical)
{
    cuda_device *d = cuda_if_ready(pdt_cuda_phys(logical));
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
    st = pdt_cuda_prepare(&g, pdt_cuda_phys(logical), &d);
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
        pdt_status st = pdt_cuda_prepare(&g, pdt_cuda_phys(dst->device.index), &d);                \
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
    .can_access_peer = cuda_can_access_peer,
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
    .copy_bytes = pdt_cuda_copy_bytes,
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
    .collective_version = pdt_cuda_nccl_version,
    .comm_unique_id = pdt_cuda_comm_unique_id,
    .comm_init = pdt_cuda_comm_init,
    .comm_destroy = pdt_cuda_comm_destroy,
    .comm_run = pdt_cuda_comm_run,
    .comm_exchange = pdt_cuda_comm_exchange,
    .describe = pdt_cublas_describe,
    .libraries = cuda_libraries,
};
