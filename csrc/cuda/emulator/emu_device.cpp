/* emu_device.cpp - the emulated devices: how many (PYDEVTENSOR_EMULATED_DEVICES),
 * their memory (PYDEVTENSOR_EMULATED_MEMORY_MB), properties and attributes,
 * the thread's current device, peer access, occupancy and launch limits.
 *
 * Every emulated device describes itself as a compute capability 9.0 part
 * with 4 multiprocessors: the limits a kernel launch is checked against are
 * those of CUDA C++ Programming Guide, "Compute Capabilities", Table
 * "Technical Specifications per Compute Capability", column 9.0.  Four SMs
 * keep grids (one wave = 4 x blocks per SM) small enough to run as fibers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>

#include "emu_runtime.h"

namespace pdt_emu {

namespace {
constexpr int kSms = 4;
constexpr int kMaxThreadsPerBlock = 1024;
constexpr int kMaxThreadsPerSm = 2048;
constexpr int kMaxBlocksPerSm = 32;
constexpr int kWarp = 32;
constexpr size_t kSharedPerBlock = 48 << 10; /* without the opt-in attribute */
constexpr size_t kSharedPerSm = 228 << 10;
constexpr int kRegsPerBlock = 65536;
constexpr int kRegsPerSm = 65536;
constexpr size_t kSharedPerBlockOptin = 227 << 10; /* an H100's, as the SM's figures */
constexpr int kL2Bytes = 50 << 20;

int env_int(const char *name, int dflt, int lo, int hi)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0')
        return dflt;
    char *end = NULL;
    long x = strtol(v, &end, 10);
    if (*end != '\0' || x < lo || x > hi) {
        fprintf(stderr,
                "pydevtensor CUDA emulator: %s=%s is not a whole number from %d to %d; "
                "using %d\n",
                name, v, lo, hi, dflt);
        return dflt;
    }
    return (int)x;
}

struct config {
    int devices;
    size_t memory;
    int no_mapped_host;
    int reverse_order;
    int no_pools;
};

const config &cfg()
{
    static const config c = [] {
        config k;
        k.devices = env_int("PYDEVTENSOR_EMULATED_DEVICES", 1, 0, kMaxDevices);
        k.memory = (size_t)env_int("PYDEVTENSOR_EMULATED_MEMORY_MB", 1024, 1, 1 << 20) << 20;
        k.no_mapped_host = env_int("PYDEVTENSOR_EMULATED_NO_MAPPED_HOST", 0, 0, 1);
        k.reverse_order = env_int("PYDEVTENSOR_EMULATED_REVERSE_ORDER", 0, 0, 1);
        k.no_pools = env_int("PYDEVTENSOR_EMULATED_NO_POOLS", 0, 0, 1);
        install_fault_handler();
        return k;
    }();
    return c;
}

/* [from][to]: cudaDeviceEnablePeerAccess(to) was called with `from` current. */
std::atomic<int> peer[kMaxDevices][kMaxDevices];
} // namespace

thread_local int tls_device = 0;

int device_count() { return cfg().devices; }
int can_map_host() { return !cfg().no_mapped_host; }
int has_memory_pools() { return !cfg().no_pools; }
int reverse_order() { return cfg().reverse_order; }
size_t device_memory_bytes() { return cfg().memory; }
bool valid_device(int dev) { return dev >= 0 && dev < device_count(); }
int current_device() { return tls_device; }

int peer_enabled(int from, int to)
{
    if (from == to)
        return 1;
    if (!valid_device(from) || !valid_device(to))
        return 0;
    return peer[from][to].load(std::memory_order_acquire);
}

cudaError_t check_launch_config(dim3 g, dim3 b, size_t shared)
{
    /* Programming Guide, "Technical Specifications per Compute Capability"
     * (9.0): block x, y <= 1024, z <= 64, x*y*z <= 1024; grid x <= 2^31-1,
     * y, z <= 65535; 48 KiB of dynamic shared memory without opting in.
     * A launch outside them fails with cudaErrorInvalidConfiguration. */
    const unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
    if (b.x == 0 || b.y == 0 || b.z == 0 || b.x > 1024 || b.y > 1024 || b.z > 64 ||
        threads > (unsigned long long)kMaxThreadsPerBlock)
        return cudaErrorInvalidConfiguration;
    if (g.x == 0 || g.y == 0 || g.z == 0 || g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535)
        return cudaErrorInvalidConfiguration;
    if (shared > kSharedPerBlock)
        return cudaErrorInvalidConfiguration;
    if (fault_due("cudaLaunchKernel")) /* Note [fault injection] */
        return cudaErrorLaunchOutOfResources;
    return sticky_error(tls_device);
}

} // namespace pdt_emu

using namespace pdt_emu;

extern "C" {

/* PYDEVTENSOR_EMULATED_DRIVER_VERSION: the CUDA version the "driver" supports. */
static int driver_version()
{
    static const int v = env_int("PYDEVTENSOR_EMULATED_DRIVER_VERSION", CUDART_VERSION, 1000,
                                 99990);
    return v;
}

PDT_EMU_API cudaError_t cudaGetDeviceCount(int *count)
{
    if (count == NULL)
        return set_error(cudaErrorInvalidValue);
    if (fault_due("cudaGetDeviceCount")) /* Note [fault injection] */
        return set_error(cudaErrorInitializationError);
    /* As with a real driver older than the runtime: no device, InsufficientDriver. */
    if (driver_version() < CUDART_VERSION) {
        *count = 0;
        return set_error(cudaErrorInsufficientDriver);
    }
    *count = device_count();
    /* CUDA Runtime API, cudaGetDeviceCount: cudaErrorNoDevice when none. */
    return *count == 0 ? set_error(cudaErrorNoDevice) : cudaSuccess;
}

PDT_EMU_API cudaError_t cudaSetDevice(int device)
{
    if (!valid_device(device))
        return set_error(cudaErrorInvalidDevice);
    if (fault_due("cudaSetDevice")) /* Note [fault injection] */
        return set_error(cudaErrorDevicesUnavailable);
    tls_device = device;
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaGetDevice(int *device)
{
    if (device == NULL)
        return set_error(cudaErrorInvalidValue);
    if (device_count() == 0)
        return set_error(cudaErrorNoDevice);
    *device = tls_device;
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaDriverGetVersion(int *v)
{
    if (v == NULL)
        return set_error(cudaErrorInvalidValue);
    *v = driver_version();
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaRuntimeGetVersion(int *v)
{
    if (v == NULL)
        return set_error(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
    if (p == NULL)
        return set_error(cudaErrorInvalidValue);
    if (!valid_device(device) || fault_due("cudaGetDeviceProperties"))
        return set_error(cudaErrorInvalidDevice); /* ... or Note [fault injection] */
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "pydevtensor emulated CUDA device %d", device);
    p->totalGlobalMem = device_memory_bytes();
    p->sharedMemPerBlock = kSharedPerBlock;
    p->regsPerBlock = kRegsPerBlock;
    p->warpSize = kWarp;
    p->maxThreadsPerBlock = kMaxThreadsPerBlock;
    p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 0x7fffffff, p->maxGridSize[1] = 65535, p->maxGridSize[2] = 65535;
    p->major = 9;
    p->minor = 0;
    p->multiProcessorCount = kSms;
    p->maxThreadsPerMultiProcessor = kMaxThreadsPerSm;
    p->maxBlocksPerMultiProcessor = kMaxBlocksPerSm;
    p->sharedMemPerMultiprocessor = kSharedPerSm;
    p->unifiedAddressing = 1;
    p->memoryPoolsSupported = has_memory_pools();
    p->pciDeviceID = device;
    p->regsPerMultiprocessor = kRegsPerSm;
    p->sharedMemPerBlockOptin = kSharedPerBlockOptin;
    p->l2CacheSize = kL2Bytes;
    /* a UUID of its own per device (cudaDeviceProp::uuid: 16 bytes identifying the device) */
    for (int i = 0; i < 16; ++i)
        p->uuid.bytes[i] = (char)(i == 15 ? device : 0x70 + i);
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (value == NULL)
        return set_error(cudaErrorInvalidValue);
    if (!valid_device(device))
        return set_error(cudaErrorInvalidDevice);
    switch (attr) {
    case cudaDevAttrMultiProcessorCount: *value = kSms; break;
    case cudaDevAttrMaxThreadsPerBlock: *value = kMaxThreadsPerBlock; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = kMaxThreadsPerSm; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = kMaxBlocksPerSm; break;
    case cudaDevAttrWarpSize: *value = kWarp; break;
    case cudaDevAttrCanMapHostMemory: *value = can_map_host(); break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)kSharedPerBlock; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = kRegsPerBlock; break;
    case cudaDevAttrComputeCapabilityMajor: *value = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *value = 0; break;
    case cudaDevAttrMaxGridDimX: *value = 0x7fffffff; break;
    case cudaDevAttrMaxGridDimY:
    case cudaDevAttrMaxGridDimZ: *value = 65535; break;
    case cudaDevAttrMaxBlockDimX:
    case cudaDevAttrMaxBlockDimY: *value = 1024; break;
    case cudaDevAttrMaxBlockDimZ: *value = 64; break;
    case cudaDevAttrMemoryPoolsSupported: *value = has_memory_pools(); break;
    case cudaDevAttrUnifiedAddressing:
    case cudaDevAttrConcurrentKernels: *value = 1; break;
    default: return set_error(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaDeviceCanAccessPeer(int *can, int device, int peer_device)
{
    if (can == NULL)
        return set_error(cudaErrorInvalidValue);
    if (!valid_device(device) || !valid_device(peer_device))
        return set_error(cudaErrorInvalidDevice);
    *can = device != peer_device; /* CUDA Runtime API: 0 for a device and itself */
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaDeviceEnablePeerAccess(int peer_device, unsigned int flags)
{
    /* CUDA Runtime API, cudaDeviceEnablePeerAccess: from the current device
     * to peer_device; flags must be 0; a second call returns
     * cudaErrorPeerAccessAlreadyEnabled; it does not cover memory from
     * cudaMallocAsync pools (cudaMemPoolSetAccess does). */
    if (flags != 0)
        return set_error(cudaErrorInvalidValue);
    if (!valid_device(peer_device) || peer_device == tls_device ||
        fault_due("cudaDeviceEnablePeerAccess")) /* ... or Note [fault injection] */
        return set_error(cudaErrorInvalidDevice);
    int expected = 0;
    if (!peer[tls_device][peer_device].compare_exchange_strong(expected, 1))
        return set_error(cudaErrorPeerAccessAlreadyEnabled);
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaDeviceDisablePeerAccess(int peer_device)
{
    if (!valid_device(peer_device))
        return set_error(cudaErrorInvalidDevice);
    int expected = 1;
    if (!peer[tls_device][peer_device].compare_exchange_strong(expected, 0))
        return set_error(cudaErrorPeerAccessNotEnabled);
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaDeviceSynchronize(void)
{
    drain_device(tls_device);
    return sticky_error(tls_device);
}

/* CUDA Runtime API, cudaOccupancyMaxActiveBlocksPerMultiprocessor.  The
 * emulator knows no register counts: blocks are limited by threads per SM,
 * blocks per SM and shared memory only (a real GPU may allow fewer). */
PDT_EMU_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *blocks, const void *func, int block_size, size_t dynamic_shared, unsigned int flags)
{
    (void)flags;
    if (blocks == NULL || func == NULL || block_size <= 0 || block_size > kMaxThreadsPerBlock ||
        dynamic_shared > kSharedPerBlock)
        return set_error(cudaErrorInvalidValue);
    int warps = (block_size + kWarp - 1) / kWarp;
    int n = kMaxThreadsPerSm / (warps * kWarp);
    if (dynamic_shared > 0 && (size_t)n * dynamic_shared > kSharedPerSm)
        n = (int)(kSharedPerSm / dynamic_shared);
    *blocks = n < kMaxBlocksPerSm ? n : kMaxBlocksPerSm;
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func,
                                                                      int block_size,
                                                                      size_t dynamic_shared)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, block_size,
                                                                  dynamic_shared, 0);
}

} /* extern "C" */
