/* emu_runtime.h - private state of the emulated CUDA runtime
 * (libpdt_cudart_emu.so), shared by emu_rules.cpp, emu_device.cpp,
 * emu_memory.cpp and emu_stream.cpp.  The emulated cuBLAS, NCCL and kernels
 * see only emu.h. */
#ifndef PDT_EMU_RUNTIME_H
#define PDT_EMU_RUNTIME_H

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "emu.h"

namespace pdt_emu {

constexpr int kMaxDevices = 8;

/* ------------------------------------------------------------ devices */

/* PYDEVTENSOR_EMULATED_MEMORY_MB (default 1024), in bytes: each device's memory. */
size_t device_memory_bytes();
/* cudaErrorInvalidDevice unless 0 <= dev < device_count(). */
bool valid_device(int dev);
/* The thread's current device, as cudaSetDevice sets it; stream operations
 * run with their stream's device current (emu_stream.cpp). */
extern thread_local int tls_device;

/* ------------------------------------------------------------- streams */

struct op {
    const char *what;
    std::function<void()> fn;
};

struct stream {
    uint32_t magic;    /* kStreamMagic while the handle is valid */
    int device;        /* the device current when it was created */
    unsigned flags;    /* cudaStreamNonBlocking or cudaStreamDefault */
    const char *label; /* "stream", "legacy default stream", ... */
    std::mutex mu;
    std::condition_variable cv;
    std::deque<op> queue;  /* guarded by mu */
    uint64_t enqueued = 0; /* operations ever enqueued (guarded by mu) */
    uint64_t completed = 0;
    bool running = false;     /* an operation is being executed */
    std::thread::id runner{}; /* by this thread */
};
constexpr uint32_t kStreamMagic = 0x5354524du;

/* Runs every stream of device dev (cudaDeviceSynchronize, cudaFree). */
void drain_device(int dev);
/* The name of the stream operation running on this thread, or NULL (for
 * messages: "while running kernel fill_contig_kernel"). */
const char *running_op();

/* -------------------------------------------------------------- memory */

/* Called after a stream, event or device synchronisation: pools on dev give
 * memory above their release threshold back (emu_memory.cpp). */
void pools_after_sync(int dev);
/* Installs the SIGSEGV/SIGBUS handler that names uses of freed memory. */
void install_fault_handler();
/* For the fault handler: describes addr if it lies in a freed or live
 * allocation, without blocking (0 if the registry is busy or addr is none
 * of ours).  Async-signal-safe enough for a process about to abort. */
int describe_address(const void *addr, char *buf, size_t n);

} // namespace pdt_emu

#endif /* PDT_EMU_RUNTIME_H */
