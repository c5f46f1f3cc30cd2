/* emu_kernel.h - device-side CUDA for the emulated build: what a .cu file of
 * the CUDA backend needs when it is compiled by the host C++ compiler
 * (PYDEVTENSOR_CUDA=emulate).  Force-included first into every .cu file:
 *
 *     g++ -x c++ -std=c++17 -DPDT_CUDA_EMULATED=1 -DPDT_HAVE_CUDA=1
 *         -include csrc/cuda/emulator/emu_kernel.h -Icsrc/cuda/emulator ...
 *
 * It provides threadIdx/blockIdx/blockDim/gridDim/warpSize (the coordinates
 * of the fiber that runs the current CUDA thread, emu_fiber.cpp), __shared__
 * (per-block storage), __syncthreads, __syncwarp, the warp shuffles and votes,
 * the rounding and bit-cast intrinsics, atomics, __ldg, __trap, and
 * pdt_emu_launch, which PDT_LAUNCH (cuda_launch.h) expands to.
 * Nothing here is part of the real (nvcc) build.
 */
#ifndef PDT_EMU_KERNEL_H
#define PDT_EMU_KERNEL_H

#ifndef PDT_CUDA_EMULATED
#error "emu_kernel.h is for the emulated build only (PDT_CUDA_EMULATED)"
#endif

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <device_launch_parameters.h> /* declares threadIdx & co before our macros */

#include "cpu_erfinv.h" /* erfinv, below */
#include "emu.h"

/* The kernels carry nvcc's `#pragma unroll`, which the host compiler does not
 * know (-Wunknown-pragmas is in -Wall, and the build uses -Werror).  GCC 13+
 * honours this; GCC 12 and older (bug 53431) need -Wno-unknown-pragmas on the
 * command line of the emulated build. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

namespace pdt_emu {

/* ------------------------------------------------------- coordinates */

/* The coordinates of a CUDA thread (CUDA C++ Programming Guide, "Built-in
 * Variables").  tls_coords points at the running fiber's; null outside a
 * kernel.  All fibers of a grid run on one OS thread (emu_fiber.cpp). */
struct coords {
    uint3 thread_idx;
    uint3 block_idx;
    dim3 block_dim;
    dim3 grid_dim;
};
PDT_EMU_API extern __thread const coords *tls_coords;

/* ------------------------------------------------- block and warp ops */

/* __syncthreads() at file:line (emu_fiber.cpp: the barrier rules). */
PDT_EMU_API void syncthreads(const char *file, int line);

enum warp_op_kind {
    WARP_SYNC = 0, /* __syncwarp */
    WARP_SHFL_IDX, /* __shfl_sync */
    WARP_SHFL_UP,  /* __shfl_up_sync */
    WARP_SHFL_DOWN,
    WARP_SHFL_XOR,
    WARP_BALLOT, /* __ballot_sync: the result is the ballot */
    WARP_ANY,
    WARP_ALL,
};

/* One lane's part in a warp collective: waits for every lane of `mask`,
 * returns this lane's result (the bits of the value it reads for a shuffle,
 * the vote's result for a vote).  value: this lane's bits (size 4 or 8);
 * arg: srcLane, delta or laneMask; width: the shuffle's segment width. */
PDT_EMU_API uint64_t warp_collective(warp_op_kind op, unsigned mask, uint64_t value, unsigned size,
                                     int arg, int width, const char *file, int line);

/* __trap() and the like: a violation naming the current kernel and thread. */
[[noreturn]] PDT_EMU_API void trap(const char *what, const char *file, int line);

/* ------------------------------------------------- launch bookkeeping */

/* The pointers a kernel parameter struct names (PDT_KERNEL_POINTERS). */
struct pointer_list {
    std::vector<std::pair<std::string, const void *>> items;
};

/* Adds each pointer with its name, names coming as the macro's stringised
 * list "a, b, out". */
template <typename... X> inline void collect_pointers(pointer_list &out, const char *names, X... p)
{
    static_assert((std::is_pointer<X>::value && ...),
                  "PDT_KERNEL_POINTERS names pointer members only");
    const void *ptrs[] = {(const void *)p...};
    std::string all(names);
    size_t at = 0;
    for (const void *q : ptrs) {
        size_t comma = all.find(',', at);
        std::string name = all.substr(at,
                                      comma == std::string::npos ? std::string::npos : comma - at);
        while (!name.empty() && name.front() == ' ')
            name.erase(0, 1);
        while (!name.empty() && name.back() == ' ')
            name.pop_back();
        out.items.emplace_back(name, q);
        at = comma == std::string::npos ? all.size() : comma + 1;
    }
}

/* A stable copy of a string, for the names that messages and enqueue keep. */
inline const char *intern(const std::string &s)
{
    static std::mutex mu;
    static std::set<std::string> strings;
    std::lock_guard<std::mutex> lock(mu);
    return strings.insert(s).first->c_str();
}

template <typename T, typename = void> struct has_pointer_list : std::false_type {
};
template <typename T>
struct has_pointer_list<T, std::void_t<decltype(std::declval<const T &>().pdt_emu_pointers(
                               std::declval<pointer_list &>()))>> : std::true_type {
};

/* Argument i (1-based) of a kernel: its pointers, named for messages. */
template <typename T> inline void argument_pointers(pointer_list &out, int i, const T &v)
{
    if constexpr (std::is_pointer<T>::value) {
        out.items.emplace_back("argument " + std::to_string(i), (const void *)v);
    } else if constexpr (has_pointer_list<T>::value) {
        pointer_list fields;
        v.pdt_emu_pointers(fields);
        for (auto &f : fields.items)
            out.items.emplace_back("argument " + std::to_string(i) + " field " + f.first, f.second);
    }
}

template <typename Tuple, size_t... I>
inline void tuple_pointers(pointer_list &out, const Tuple &t, std::index_sequence<I...>)
{
    (argument_pointers(out, (int)I + 1, std::get<I>(t)), ...);
}

/* The pointer rule (emu.h check_device_access), 1 byte each: a kernel
 * parameter's extent is unknown, NULL is allowed (kernels test for it). */
inline void check_pointers(const char *kernel, const pointer_list &ptrs, int dev)
{
    for (auto &p : ptrs.items)
        if (p.second)
            check_device_access(kernel, p.first.c_str(), dev, p.second, 1);
}

} // namespace pdt_emu

/* Inside a kernel parameter struct: names its device pointers for the
 * emulated launch's pointer check (cuda_launch.h PDT_KERNEL_POINTERS). */
#define PDT_EMU_KERNEL_POINTERS(...)                                                               \
    void pdt_emu_pointers(pdt_emu::pointer_list &pdt_emu_out_) const                               \
    {                                                                                              \
        pdt_emu::collect_pointers(pdt_emu_out_, #__VA_ARGS__, __VA_ARGS__);                        \
    }

/* kernel<<<grid, block, shared, stream>>>(args...), emulated.  Follows the
 * CUDA C++ Programming Guide, "Execution Configuration": parameters are
 * passed by value, the launch is asynchronous and its errors are read with
 * cudaGetLastError(). */
template <typename... P, typename G, typename B, typename... A>
void pdt_emu_launch(const char *name, void (*kernel)(P...), G grid_arg, B block_arg, size_t shared,
                    cudaStream_t stream, A &&...args)
{
    static_assert(sizeof...(P) == sizeof...(A), "kernel launched with the wrong argument count");
    /* "(kernel<T>)" as PDT_LAUNCH stringises it, without the parentheses */
    std::string nm(name);
    if (nm.size() >= 2 && nm.front() == '(' && nm.back() == ')')
        nm = nm.substr(1, nm.size() - 2);
    const char *kname = pdt_emu::intern(nm);
    const char *what = pdt_emu::intern("kernel " + nm);
    const dim3 grid(grid_arg), block(block_arg);

    /* Technical Specifications per Compute Capability: grid, block and
     * shared memory limits -> cudaErrorInvalidConfiguration. */
    cudaError_t err = pdt_emu::check_launch_config(grid, block, shared);
    if (err != cudaSuccess) {
        pdt_emu::set_error(err);
        return;
    }
    pdt_emu::stream *s = pdt_emu::resolve(stream, kname);
    const int dev = pdt_emu::current_device();
    /* CUDA C++ Programming Guide, "Stream and Event Behavior": a kernel
     * launch fails if it is issued to a stream that is not associated with
     * the current device. */
    if (pdt_emu::stream_device(s) != dev) {
        pdt_emu::set_error(cudaErrorInvalidResourceHandle);
        return;
    }
    /* the arguments converted to the parameter types, as a call would */
    auto convert = [](P... p) { return std::tuple<P...>(p...); };
    std::tuple<P...> params = convert(std::forward<A>(args)...);
    pdt_emu::pointer_list ptrs;
    pdt_emu::tuple_pointers(ptrs, params, std::index_sequence_for<P...>{});
    pdt_emu::check_pointers(kname, ptrs, dev);
    pdt_emu::enqueue(s, what, [kname, kernel, params, ptrs, dev, grid, block, shared]() {
        /* a stream-ordered free may have run since the launch */
        pdt_emu::check_pointers(kname, ptrs, dev);
        pdt_emu::run_grid(kname, grid, block, shared, [&]() {
            std::apply(kernel, params); /* each thread its own copy */
        });
    });
}

/* The toolkit's headers define __launch_bounds__ for nvcc only. */
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif

/* ---------------------------------------------------- built-in variables */

#define threadIdx (pdt_emu::tls_coords->thread_idx)
#define blockIdx (pdt_emu::tls_coords->block_idx)
#define blockDim (pdt_emu::tls_coords->block_dim)
#define gridDim (pdt_emu::tls_coords->grid_dim)
#define warpSize 32

/* CUDA C++ Programming Guide, "__shared__": one copy per thread block.  The
 * fibers of a block share their OS thread, and a thread runs blocks one after
 * another, so a thread_local static is one block's memory at a time. */
#undef __shared__
#define __shared__ static thread_local

/* ------------------------------------------------------ synchronisation */

#define __syncthreads() pdt_emu::syncthreads(__FILE__, __LINE__)
/* __syncwarp(mask = all lanes), remembering where it was called */
struct pdt_emu_syncwarp_at {
    const char *file;
    int line;
    void operator()(unsigned mask = 0xffffffffu) const
    {
        pdt_emu::warp_collective(pdt_emu::WARP_SYNC, mask, 0, 4, 0, 32, file, line);
    }
};
#define __syncwarp                                                                                 \
    pdt_emu_syncwarp_at { __FILE__, __LINE__ }
/* Memory fences: fibers share one address space and are not preempted. */
inline void __threadfence() {}
inline void __threadfence_block() {}
/* System scope: the host may read or write the memory while the kernel runs
 * (mapped page-locked memory), so a real fence. */
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* --------------------------------------------------------- warp shuffles */

/* CUDA C++ Programming Guide, "Warp Shuffle Functions": T is one of the
 * 4- or 8-byte arithmetic types; 8-byte values move as one. */
template <typename T>
inline T pdt_emu_shfl(pdt_emu::warp_op_kind op, const char *file, int line, unsigned mask, T var,
                      int arg, int width = 32)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "shuffles move 4- or 8-byte values");
    uint64_t bits = 0;
    memcpy(&bits, &var, sizeof var);
    bits = pdt_emu::warp_collective(op, mask, bits, sizeof(T), arg, width, file, line);
    T out;
    memcpy(&out, &bits, sizeof out);
    return out;
}
/* The overload set of the CUDA headers, so that bool, char and short promote
 * to int as they do with nvcc. */
#define PDT_EMU_SHFL_OVERLOAD(T)                                                                   \
    inline T pdt_emu_shfl_t(pdt_emu::warp_op_kind op, const char *file, int line, unsigned mask,   \
                            T var, int arg, int width = 32)                                        \
    {                                                                                              \
        return pdt_emu_shfl<T>(op, file, line, mask, var, arg, width);                             \
    }
PDT_EMU_SHFL_OVERLOAD(int)
PDT_EMU_SHFL_OVERLOAD(unsigned int)
PDT_EMU_SHFL_OVERLOAD(long)
PDT_EMU_SHFL_OVERLOAD(unsigned long)
PDT_EMU_SHFL_OVERLOAD(long long)
PDT_EMU_SHFL_OVERLOAD(unsigned long long)
PDT_EMU_SHFL_OVERLOAD(float)
PDT_EMU_SHFL_OVERLOAD(double)
#undef PDT_EMU_SHFL_OVERLOAD

#define __shfl_sync(...) pdt_emu_shfl_t(pdt_emu::WARP_SHFL_IDX, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_up_sync(...) pdt_emu_shfl_t(pdt_emu::WARP_SHFL_UP, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_down_sync(...)                                                                      \
    pdt_emu_shfl_t(pdt_emu::WARP_SHFL_DOWN, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_xor_sync(...) pdt_emu_shfl_t(pdt_emu::WARP_SHFL_XOR, __FILE__, __LINE__, __VA_ARGS__)

/* CUDA C++ Programming Guide, "Warp Vote Functions". */
#define __ballot_sync(mask, pred)                                                                  \
    ((unsigned)pdt_emu::warp_collective(pdt_emu::WARP_BALLOT, (mask), (pred) != 0, 4, 0, 32,       \
                                        __FILE__, __LINE__))
#define __any_sync(mask, pred)                                                                     \
    ((int)pdt_emu::warp_collective(pdt_emu::WARP_ANY, (mask), (pred) != 0, 4, 0, 32, __FILE__,     \
                                   __LINE__))
#define __all_sync(mask, pred)                                                                     \
    ((int)pdt_emu::warp_collective(pdt_emu::WARP_ALL, (mask), (pred) != 0, 4, 0, 32, __FILE__,     \
                                   __LINE__))

/* CUDA C++ Programming Guide, "Trap Function": aborts the kernel. */
#define __trap() pdt_emu::trap("__trap()", __FILE__, __LINE__)

/* ------------------------------------------------------------ intrinsics */

/* CUDA Math API, "Single/Double Precision Intrinsics": IEEE round-to-nearest
 * operations, never contracted (the emulated build uses -ffp-contract=off). */
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fsqrt_rn(float a) { return sqrtf(a); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __dsqrt_rn(double a) { return sqrt(a); }

/* CUDA Math API functions that the C library lacks: rsqrt and erfinv (the latter the CPU
 * backend's, Note [erfinv] in csrc/cpu/cpu_erfinv.h), in double, float32 through it.  The
 * real device's are within the CUDA Math API's bounds of these (cuda_elementwise.cu). */
inline double rsqrt(double a) { return 1.0 / sqrt(a); }
inline float rsqrtf(float a) { return (float)(1.0 / sqrt((double)a)); }
inline double erfinv(double a) { return pdt_erfinv(a); }
inline float erfinvf(float a) { return (float)pdt_erfinv((double)a); }

/* CUDA Math API, "Type Casting Intrinsics" (math_constants.h uses them). */
template <typename To, typename From> inline To pdt_emu_bit_cast(From v)
{
    static_assert(sizeof(To) == sizeof(From), "bit casts keep the size");
    To out;
    memcpy(&out, &v, sizeof out);
    return out;
}
inline float __int_as_float(int v) { return pdt_emu_bit_cast<float>(v); }
inline float __uint_as_float(unsigned v) { return pdt_emu_bit_cast<float>(v); }
inline int __float_as_int(float v) { return pdt_emu_bit_cast<int>(v); }
inline unsigned __float_as_uint(float v) { return pdt_emu_bit_cast<unsigned>(v); }
inline double __longlong_as_double(long long v) { return pdt_emu_bit_cast<double>(v); }
inline long long __double_as_longlong(double v) { return pdt_emu_bit_cast<long long>(v); }
inline double __hiloint2double(int hi, int lo)
{
    return __longlong_as_double(
        (long long)(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo));
}

/* CUDA Math API, "Integer Intrinsics". */
inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
inline int __clz(int v) { return v ? __builtin_clz((unsigned)v) : 32; }
inline int __clzll(long long v) { return v ? __builtin_clzll((unsigned long long)v) : 64; }
inline int __ffs(int v) { return __builtin_ffs(v); }
inline int __ffsll(long long v) { return __builtin_ffsll(v); }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((uint64_t)a * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}

/* CUDA C++ Programming Guide, "Read-Only Data Cache Load Function". */
template <typename T> inline T __ldg(const T *p) { return *p; }

/* ---------------------------------------------------------------- atomics */

/* CUDA C++ Programming Guide, "Atomic Functions": each returns the old value.
 * Fibers are not preempted and a grid's fibers share one OS thread, so a
 * plain read-modify-write is atomic with respect to the grid. */
#define PDT_EMU_ATOMIC(NAME, T, EXPR)                                                              \
    inline T NAME(T *address, T val)                                                               \
    {                                                                                              \
        T old = *address;                                                                          \
        *address = (EXPR);                                                                         \
        return old;                                                                                \
    }
#define PDT_EMU_ATOMIC_ALL(T)                                                                      \
    PDT_EMU_ATOMIC(atomicAdd, T, old + val)                                                        \
    PDT_EMU_ATOMIC(atomicMax, T, old > val ? old : val)                                            \
    PDT_EMU_ATOMIC(atomicMin, T, old < val ? old : val)                                            \
    PDT_EMU_ATOMIC(atomicExch, T, val)
PDT_EMU_ATOMIC_ALL(int)
PDT_EMU_ATOMIC_ALL(unsigned int)
PDT_EMU_ATOMIC_ALL(unsigned long long)
PDT_EMU_ATOMIC_ALL(long long)
PDT_EMU_ATOMIC(atomicAdd, float, old + val)
PDT_EMU_ATOMIC(atomicAdd, double, old + val)
PDT_EMU_ATOMIC(atomicExch, float, val)
PDT_EMU_ATOMIC(atomicSub, int, old - val)
PDT_EMU_ATOMIC(atomicSub, unsigned int, old - val)
PDT_EMU_ATOMIC(atomicAnd, int, old &val)
PDT_EMU_ATOMIC(atomicAnd, unsigned int, old &val)
PDT_EMU_ATOMIC(atomicAnd, unsigned long long, old &val)
PDT_EMU_ATOMIC(atomicOr, int, old | val)
PDT_EMU_ATOMIC(atomicOr, unsigned int, old | val)
PDT_EMU_ATOMIC(atomicOr, unsigned long long, old | val)
PDT_EMU_ATOMIC(atomicXor, int, old ^ val)
PDT_EMU_ATOMIC(atomicXor, unsigned int, old ^ val)
PDT_EMU_ATOMIC(atomicXor, unsigned long long, old ^ val)
#undef PDT_EMU_ATOMIC_ALL
#undef PDT_EMU_ATOMIC
#define PDT_EMU_ATOMIC_CAS(T)                                                                      \
    inline T atomicCAS(T *address, T compare, T val)                                               \
    {                                                                                              \
        T old = *address;                                                                          \
        if (old == compare)                                                                        \
            *address = val;                                                                        \
        return old;                                                                                \
    }
PDT_EMU_ATOMIC_CAS(int)
PDT_EMU_ATOMIC_CAS(unsigned int)
PDT_EMU_ATOMIC_CAS(unsigned long long)
PDT_EMU_ATOMIC_CAS(unsigned short)
#undef PDT_EMU_ATOMIC_CAS
/* The _system forms ("Atomic Functions": atomic with respect to the host and
 * other devices too): the host runs alongside the grid's OS thread, so real
 * atomic instructions. */
#define PDT_EMU_ATOMIC_SYSTEM(T)                                                                   \
    inline T atomicCAS_system(T *address, T compare, T val)                                        \
    {                                                                                              \
        __atomic_compare_exchange_n(address, &compare, val, false, __ATOMIC_SEQ_CST,               \
                                    __ATOMIC_SEQ_CST);                                             \
        return compare;                                                                            \
    }                                                                                              \
    inline T atomicExch_system(T *address, T val)                                                  \
    {                                                                                              \
        return __atomic_exchange_n(address, val, __ATOMIC_SEQ_CST);                                \
    }                                                                                              \
    inline T atomicAdd_system(T *address, T val)                                                   \
    {                                                                                              \
        return __atomic_fetch_add(address, val, __ATOMIC_SEQ_CST);                                 \
    }
PDT_EMU_ATOMIC_SYSTEM(int)
PDT_EMU_ATOMIC_SYSTEM(unsigned int)
PDT_EMU_ATOMIC_SYSTEM(unsigned long long)
#undef PDT_EMU_ATOMIC_SYSTEM

#endif /* PDT_EMU_KERNEL_H */
