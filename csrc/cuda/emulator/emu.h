/* emu.h - the emulated CUDA device's internal interface (C++), shared by the
 * emulated runtime (libpdt_cudart_emu.so: emu_*.cpp), the emulated cuBLAS
 * (libcublas.so.N) and NCCL (libnccl.so.2), and the kernels of the CUDA
 * backend compiled by the host compiler (emu_kernel.h, force-included).
 * See README.md beside this file for what is emulated and which documents
 * each rule follows.  Nothing here is part of the real (nvcc) build.
 *
 * Note [emulated streams]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * A stream is a FIFO of operations (copies, kernels, event records, waits on
 * events, stream-ordered frees, library work).  Nothing runs when it is
 * enqueued: a stream's queue runs, on the thread that asks, only when someone
 * synchronises with it (cudaStreamSynchronize, cudaEventSynchronize on an
 * event recorded on it, cudaDeviceSynchronize, a blocking cudaMemcpy, or a
 * stream that waits on one of its events and is itself run).  So work that
 * is read on the host without a synchronisation, or on another stream without
 * an event wait, is read before it happened: stale data, as a real GPU would
 * show only sometimes.  Operations of one stream run in order and one at a
 * time; an operation that waits on an event first runs the recording stream
 * up to that event.
 */
#ifndef PDT_EMU_H
#define PDT_EMU_H

#include <stddef.h>
#include <stdint.h>

#include <functional>

#include <cuda_runtime.h>

#define PDT_EMU_API __attribute__((visibility("default")))

namespace pdt_emu {

/* Note [emulated handle memory]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * cublasCreate "allocates hardware resources on the host and device" (cuBLAS
 * Library, "cublasCreate()"), as cusolverDnCreate does for cuSOLVER ("cuSolverDN:
 * dense LAPACK" helper functions), with plain cudaMalloc, outside any pool; on
 * a full device they fail with CUBLAS_STATUS_ALLOC_FAILED /
 * CUSOLVER_STATUS_ALLOC_FAILED.  The emulated ones take kHandleBytes (a stand-in
 * size) with cudaMalloc and free it in Destroy, so a device whose pool holds
 * its memory makes handle creation fail here as on a GPU. */
constexpr size_t kHandleBytes = (size_t)1 << 20;

/* ---------------------------------------------------------------- rules */

/* Reports a broken rule and aborts the process: "pydevtensor CUDA emulator:
 * <call>: <message formatted from fmt>\n  rule: <rule>".  `rule` names the
 * document the rule follows (e.g. "CUDA Runtime API, cudaMemcpyAsync: kind
 * must match where src and dst live").  Never returns. */
[[noreturn]] PDT_EMU_API void violation(const char *call, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Sets the calling thread's last error (cudaGetLastError/cudaPeekAtLastError)
 * and returns err, for the calls that report errors as CUDA does. */
PDT_EMU_API cudaError_t set_error(cudaError_t err);

/* Fault injection (Note [fault injection] in emu_faults.cpp): counts a call of
 * `api` ("cudaMalloc", "cublasCreate", ...) and says whether it must fail with
 * the error that Note names for it.  Aborts for a name the Note does not list. */
PDT_EMU_API bool fault_due(const char *api);
/* The sticky error of device dev (Note [fault injection],
 * "cudaMemcpyAsync/sticky"), set as the thread's last error, or cudaSuccess. */
PDT_EMU_API cudaError_t sticky_error(int dev);
/* For the copies of device dev: counts the call for "cudaMemcpyAsync" and
 * "cudaMemcpyAsync/sticky"; the error to fail with, or cudaSuccess. */
PDT_EMU_API cudaError_t memcpy_fault(int dev);

/* -------------------------------------------------------------- devices */

/* PYDEVTENSOR_EMULATED_DEVICES (default 1, at most 8). */
PDT_EMU_API int device_count();
/* 0 when PYDEVTENSOR_EMULATED_NO_MAPPED_HOST=1: the devices cannot map
 * page-locked host memory (cudaDevAttrCanMapHostMemory is 0 and
 * cudaHostGetDevicePointer fails), as on a device without that feature. */
PDT_EMU_API int can_map_host();
/* cudaDevAttrMemoryPoolsSupported: 0 under PYDEVTENSOR_EMULATED_NO_POOLS=1, where the
 * pool calls fail with cudaErrorNotSupported, as on a device without pools */
PDT_EMU_API int has_memory_pools();
/* 1 when PYDEVTENSOR_EMULATED_REVERSE_ORDER=1: a grid's blocks, and a block's
 * threads, run last first (Note [the order of blocks and threads] in
 * emu_fiber.cpp). */
PDT_EMU_API int reverse_order();
/* The calling thread's current device (cudaSetDevice; 0 by default). */
PDT_EMU_API int current_device();
/* 1 when kernels on device `from` may dereference memory of device `to`:
 * from == to, or cudaDeviceEnablePeerAccess(to) was called with `from`
 * current (or the memory is in a pool opened to `from` by
 * cudaMemPoolSetAccess). */
PDT_EMU_API int peer_enabled(int from, int to);

/* ---------------------------------------------------------------- memory */

enum mem_kind {
    MEM_NONE = 0,   /* not memory the emulator handed out (pageable host) */
    MEM_DEVICE = 1, /* cudaMalloc, cudaMallocAsync, pools */
    MEM_PINNED = 2, /* cudaHostAlloc / cudaMallocHost: page-locked host */
};

/* What the emulator knows of an address. */
struct mem_info {
    mem_kind kind;
    int device;       /* owning device for MEM_DEVICE, else -1 */
    int live;         /* 0: the allocation was freed (and its pages fault) */
    const char *base; /* first byte of the allocation holding the address */
    size_t size;      /* its size in bytes */
    void *pool;       /* the cudaMemPool_t it came from, or NULL */
};

/* Looks `p` up: the allocation that contains it (freed allocations are kept
 * for a while so that a use after free is named as such).  Returns 0, with
 * kind MEM_NONE, when p is none of ours. */
PDT_EMU_API int lookup(const void *p, mem_info *out);

/* The pointer rule for device code (kernels, cuBLAS, NCCL): aborts unless
 * [p, p + bytes) lies in one live device allocation that device `dev` may
 * access (its own, or a peer's with peer access enabled), or in live pinned
 * host memory.  NULL passes when bytes == 0.  `who` names the kernel or call,
 * `what` the argument ("argument 2", "A", "sendbuff"). */
PDT_EMU_API void check_device_access(const char *who, const char *what, int dev, const void *p,
                                     size_t bytes);

/* ---------------------------------------------------------------- streams */

/* The stream a call names, resolved: 0 (the legacy default stream),
 * cudaStreamLegacy and cudaStreamPerThread become the current device's
 * default stream.  Aborts on a destroyed or unknown stream. */
struct stream;
PDT_EMU_API stream *resolve(cudaStream_t s, const char *call);
/* The device a stream belongs to. */
PDT_EMU_API int stream_device(stream *s);

/* Appends an operation to s (Note [emulated streams]); `what` is a short
 * description used in messages ("kernel fill_contig_kernel", "cublasSgemm").
 * The operation runs later, on whichever thread runs the stream, with the
 * stream's device as that thread's current device. */
PDT_EMU_API void enqueue(stream *s, const char *what, std::function<void()> op);

/* Runs s until every operation enqueued before this call has completed. */
PDT_EMU_API void drain(stream *s);

/* A position in a stream: the number of operations enqueued so far.  Used by
 * the emulated NCCL to run every rank's stream up to its part of a collective. */
PDT_EMU_API uint64_t stream_position(stream *s);
/* Runs s until its first `position` operations have completed. */
PDT_EMU_API void drain_to(stream *s, uint64_t position);

/* ---------------------------------------------------------------- kernels */

/* Launch configuration rule (CUDA C++ Programming Guide, "Compute
 * Capabilities", Table "Technical Specifications per Compute Capability"):
 * cudaSuccess, or cudaErrorInvalidConfiguration for a grid or block outside
 * the device's limits or too much shared memory. */
PDT_EMU_API cudaError_t check_launch_config(dim3 grid, dim3 block, size_t shared_bytes);

/* Runs a whole grid now, on the calling OS thread (emu_fiber.cpp): every
 * CUDA thread of a block on its own fiber, blocks one after another.
 * thread_body is called once per CUDA thread with that thread's coordinates
 * current (threadIdx, blockIdx, ... in emu_kernel.h).  `name` names the kernel
 * in messages. */
PDT_EMU_API void run_grid(const char *name, dim3 grid, dim3 block, size_t dynamic_shared,
                          const std::function<void()> &thread_body);

} // namespace pdt_emu

#endif /* PDT_EMU_H */
