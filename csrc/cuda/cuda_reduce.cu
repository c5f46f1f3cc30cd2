/* cuda_reduce.cu - reductions on a CUDA device: x (m, k) -> out contiguous
 * (m,), with out's dtype from pdt_reduce_out_dtype() (see pdt_reduce.h).  k
 * may be 0 for sum, prod and mean (0, 1 and nan).
 *
 * Note [CUDA reduction shapes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * x is (m, k) in one of two layouts (pdt_reduce.h): rows (strides (k, 1)) or
 * columns (strides (1, m), the sum(0) of a matrix).  The columns layout gets a
 * thread per column (cols_by_thread): neighbouring threads read neighbouring
 * elements of each row of the (k, m) block; with fewer columns than threads in
 * a wave, each column is cut into parts of at least kMinColPart elements, as
 * for rows below.  In the rows layout, who reduces a row depends on k:
 *   k <= 16           one thread per row (rows_by_thread);
 *   k <= 4096         one warp per row (rows_by_warp): lanes stride through
 *                     the row, then a __shfl_down_sync tree;
 *   larger k          one block per row (rows_by_block): a shuffle tree per
 *                     warp, the warps' results through shared memory, a last
 *                     tree in warp 0.  When the rows are too few to fill the
 *                     device (m below one wave of blocks) each row is cut into
 *                     `parts` of at least kMinPart elements, the blocks write
 *                     partial results to a stream-ordered scratch buffer, and
 *                     a second launch (finish_parts, a warp per row) combines
 *                     them: the only case with two launches (one launch per
 *                     op otherwise).
 * Every loop is a grid-stride loop with 64-bit indices, so any m and any k up
 * to 2^62 work with a grid of at most a few waves.  Long runs are read with
 * 16-byte vector loads from the first 16-byte boundary on (accumulate()).
 *
 * Note [reduction scratch]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * The partial results of a split row or column live in scratch memory from
 * pdt_scratch_alloc: the device's own pool (Note [our own pool] in
 * cuda_backend.c), counted in memory_allocated and held to the logical
 * device's memory limit like any tensor, so a reduction near the limit fails
 * with OutOfMemoryError instead of taking memory from the default pool behind
 * the accounting.  It is freed on the stream right after finish_parts is
 * queued: the pool reuses it only after that launch ran.
 *
 * Accumulators (Note [reduction accuracy] in pdt_reduce.h): floating sums,
 * means, norms and products in double, integer sums and products in uint64
 * (wrapping, as on the CPU), max/min in the input's type.  argmax/argmin carry
 * (value, index) pairs; combine() keeps a NaN over any number and the smaller
 * index on ties, so the result is the first occurrence whatever the order in
 * which the tree meets the elements -- the same answer as the CPU.
 */
#include <math_constants.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "cuda_check.h"
#include "cuda_launch.h"
#include "cuda_layout.cuh"
#include "cuda_ops.h"
#include "pdt_runtime.h" /* pdt_scratch_alloc */

namespace {

using pdt_cuda::kThreads; /* threads per block, a multiple of 32 (cuda_layout.cuh) */
using pdt_cuda::wave_of;  /* blocks of a kernel that fill the device once (Note [grid sizes]) */
constexpr int64_t kThreadRowMax = 16; /* k up to this: a thread per row */
constexpr int64_t kWarpRowMax = 4096; /* k up to this: a warp per row */
constexpr int64_t kMinPart = 32768;   /* elements per block when a row is split */
constexpr int64_t kMinColPart = 64;   /* elements per thread when a column is split */
constexpr unsigned kFullMask = 0xffffffffu;

/* ------------------------------------------------------- element types */

/* value: the type max/min compare in (bool as int); get(): an element as it. */
template <typename T> struct elem;
template <> struct elem<uint8_t> {
    typedef int value;
    static constexpr bool is_float = false;
    static constexpr pdt_dtype dtype = PDT_BOOL;
    static __device__ __forceinline__ int get(uint8_t v) { return v != 0; }
    static __device__ __forceinline__ int lowest() { return 0; }
    static __device__ __forceinline__ int highest() { return 1; }
};
template <> struct elem<int32_t> {
    typedef int32_t value;
    static constexpr bool is_float = false;
    static constexpr pdt_dtype dtype = PDT_INT32;
    static __device__ __forceinline__ int32_t get(int32_t v) { return v; }
    static __device__ __forceinline__ int32_t lowest() { return INT32_MIN; }
    static __device__ __forceinline__ int32_t highest() { return INT32_MAX; }
};
template <> struct elem<int64_t> {
    typedef int64_t value;
    static constexpr bool is_float = false;
    static constexpr pdt_dtype dtype = PDT_INT64;
    static __device__ __forceinline__ int64_t get(int64_t v) { return v; }
    static __device__ __forceinline__ int64_t lowest() { return INT64_MIN; }
    static __device__ __forceinline__ int64_t highest() { return INT64_MAX; }
};
template <> struct elem<float> {
    typedef float value;
    static constexpr bool is_float = true;
    static constexpr pdt_dtype dtype = PDT_FLOAT32;
    static __device__ __forceinline__ float get(float v) { return v; }
    static __device__ __forceinline__ float lowest() { return -CUDART_INF_F; }
    static __device__ __forceinline__ float highest() { return CUDART_INF_F; }
};
template <> struct elem<double> {
    typedef double value;
    static constexpr bool is_float = true;
    static constexpr pdt_dtype dtype = PDT_FLOAT64;
    static __device__ __forceinline__ double get(double v) { return v; }
    static __device__ __forceinline__ double lowest() { return -CUDART_INF; }
    static __device__ __forceinline__ double highest() { return CUDART_INF; }
};

/* ----------------------------------------------------------------- ops */

/* Each op: in_t, acc_t, out_t; identity(); load(element, index in the row);
 * combine(a, b) (any order: see the header note); finish(acc, k). */

/* sum (MEAN: the sum divided by k), and the norms' sums of squares/abs. */
enum sum_kind { PLAIN, MEAN, SQUARES, ABS };
template <typename T, sum_kind K> struct sum_op {
    typedef T in_t;
    typedef typename std::conditional<elem<T>::is_float, double, uint64_t>::type acc_t;
    /* the 2-norm's sum of squares stays double until after its square root */
    typedef typename std::conditional<elem<T>::is_float,
                                      typename std::conditional<K == SQUARES, double, T>::type,
                                      int64_t>::type out_t;
    static __device__ __forceinline__ acc_t identity() { return 0; }
    static __device__ __forceinline__ acc_t load(T v, int64_t)
    {
        if constexpr (!elem<T>::is_float)
            return (uint64_t)(int64_t)elem<T>::get(v);
        else if constexpr (K == SQUARES)
            return (double)v * (double)v;
        else if constexpr (K == ABS)
            return fabs((double)v);
        else
            return (double)v;
    }
    static __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return a + b; }
    static __device__ __forceinline__ out_t finish(acc_t a, int64_t k)
    {
        if constexpr (K == MEAN)
            return (out_t)(a / (double)k); /* k == 0: 0/0 = nan */
        else
            return (out_t)a;
    }
};
template <typename T> using Sum = sum_op<T, PLAIN>;
template <typename T> using Mean = sum_op<T, MEAN>;
template <typename T> using SumSquares = sum_op<T, SQUARES>;
template <typename T> using SumAbs = sum_op<T, ABS>;

template <typename T> struct Prod {
    typedef T in_t;
    typedef typename std::conditional<elem<T>::is_float, double, uint64_t>::type acc_t;
    typedef typename std::conditional<elem<T>::is_float, T, int64_t>::type out_t;
    static __device__ __forceinline__ acc_t identity() { return 1; }
    static __device__ __forceinline__ acc_t load(T v, int64_t)
    {
        if constexpr (elem<T>::is_float)
            return (double)v;
        else
            return (uint64_t)(int64_t)elem<T>::get(v);
    }
    static __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return a * b; }
    static __device__ __forceinline__ out_t finish(acc_t a, int64_t) { return (out_t)a; }
};

/* Is b strictly better than a for max (kMax) or min?  A NaN beats a number. */
template <typename V, bool kMax> __device__ __forceinline__ bool better(V b, V a)
{
    if constexpr (std::is_floating_point<V>::value) {
        if (a != a)
            return false;
        if (b != b)
            return true;
    }
    return kMax ? b > a : b < a;
}

template <typename T, bool kMax> struct extreme_op {
    typedef T in_t;
    typedef typename elem<T>::value acc_t;
    typedef T out_t;
    static __device__ __forceinline__ acc_t identity()
    {
        return kMax ? elem<T>::lowest() : elem<T>::highest();
    }
    static __device__ __forceinline__ acc_t load(T v, int64_t) { return elem<T>::get(v); }
    static __device__ __forceinline__ acc_t combine(acc_t a, acc_t b)
    {
        return better<acc_t, kMax>(b, a) ? b : a;
    }
    static __device__ __forceinline__ out_t finish(acc_t a, int64_t) { return (out_t)a; }
};
template <typename T> using Max = extreme_op<T, true>;
template <typename T> using Min = extreme_op<T, false>;

template <typename V> struct arg_acc {
    V v;
    int64_t i; /* INT64_MAX: no element yet */
};

template <typename T, bool kMax> struct arg_op {
    typedef T in_t;
    typedef typename elem<T>::value value_t;
    typedef arg_acc<value_t> acc_t;
    typedef int64_t out_t;
    static __device__ __forceinline__ acc_t identity()
    {
        return acc_t{kMax ? elem<T>::lowest() : elem<T>::highest(), INT64_MAX};
    }
    static __device__ __forceinline__ acc_t load(T v, int64_t i)
    {
        return acc_t{elem<T>::get(v), i};
    }
    static __device__ __forceinline__ acc_t combine(acc_t a, acc_t b)
    {
        if (better<value_t, kMax>(b.v, a.v))
            return b;
        if (better<value_t, kMax>(a.v, b.v))
            return a;
        return b.i < a.i ? b : a; /* equal, or both NaN: the first occurrence */
    }
    static __device__ __forceinline__ out_t finish(acc_t a, int64_t) { return a.i; }
};
template <typename T> using ArgMax = arg_op<T, true>;
template <typename T> using ArgMin = arg_op<T, false>;

/* ------------------------------------------------------ warp and block */

template <typename A> __device__ __forceinline__ A shfl_down(A a, int offset)
{
    return __shfl_down_sync(kFullMask, a, offset);
}
template <typename V> __device__ __forceinline__ arg_acc<V> shfl_down(arg_acc<V> a, int offset)
{
    return arg_acc<V>{__shfl_down_sync(kFullMask, a.v, offset),
                      __shfl_down_sync(kFullMask, a.i, offset)};
}

/* The whole warp's combination, in lane 0.  Every lane must call it. */
template <class Op> __device__ __forceinline__ typename Op::acc_t warp_reduce(typename Op::acc_t a)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        a = Op::combine(a, shfl_down(a, offset));
    return a;
}

/* The whole block's combination, in thread 0.  Every thread must call it. */
template <class Op> __device__ __forceinline__ typename Op::acc_t block_reduce(typename Op::acc_t a)
{
    __shared__ typename Op::acc_t warp_results[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    a = warp_reduce<Op>(a);
    if (lane == 0)
        warp_results[warp] = a;
    __syncthreads();
    if (warp == 0) {
        a = lane < (int)(blockDim.x >> 5) ? warp_results[lane] : Op::identity();
        a = warp_reduce<Op>(a);
    }
    __syncthreads(); /* warp_results is reused by the next row */
    return a;
}

/* Thread t of nt combines row[begin .. end) at positions t, t + nt, ...: the
 * unaligned head element by element, then 16-byte vectors, then the tail. */
template <class Op>
__device__ __forceinline__ typename Op::acc_t accumulate(const typename Op::in_t *__restrict__ row,
                                                         int64_t begin, int64_t end, int64_t t,
                                                         int64_t nt)
{
    typedef typename Op::in_t T;
    constexpr int V = 16 / sizeof(T);
    typename Op::acc_t a = Op::identity();
    const T *p = row + begin;
    const int64_t n = end - begin;
    if (n <= 0)
        return a;
    int64_t head = (int64_t)(((16 - ((uintptr_t)p & 15)) & 15) / sizeof(T));
    if (head > n)
        head = n;
    for (int64_t j = t; j < head; j += nt)
        a = Op::combine(a, Op::load(p[j], begin + j));
    const int64_t nvec = (n - head) / V;
    const uint4 *pv = reinterpret_cast<const uint4 *>(p + head);
    for (int64_t v = t; v < nvec; v += nt) {
        uint4 raw = pv[v];
        T e[V];
        memcpy(e, &raw, sizeof raw);
        const int64_t at = begin + head + v * V;
#pragma unroll
        for (int q = 0; q < V; q++)
            a = Op::combine(a, Op::load(e[q], at + q));
    }
    for (int64_t j = head + nvec * V + t; j < n; j += nt)
        a = Op::combine(a, Op::load(p[j], begin + j));
    return a;
}

/* ------------------------------------------------------------- kernels */

/* x: (m, k), out: (m,); a thread per row. */
template <class Op>
__global__ void rows_by_thread(const typename Op::in_t *__restrict__ x,
                               typename Op::out_t *__restrict__ out, int64_t m, int64_t k)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < m; r += step) {
        const typename Op::in_t *row = x + r * k;
        typename Op::acc_t a = Op::identity();
        for (int64_t j = 0; j < k; j++)
            a = Op::combine(a, Op::load(row[j], j));
        out[r] = Op::finish(a, k);
    }
}

/* x: (m, k), out: (m,); a warp per row (the loop bound is the same for the
 * whole warp, so every lane reaches the shuffles). */
template <class Op>
__global__ void rows_by_warp(const typename Op::in_t *__restrict__ x,
                             typename Op::out_t *__restrict__ out, int64_t m, int64_t k)
{
    const int lane = threadIdx.x & 31;
    const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < m; r += warps) {
        typename Op::acc_t a = warp_reduce<Op>(accumulate<Op>(x + r * k, 0, k, lane, 32));
        if (lane == 0)
            out[r] = Op::finish(a, k);
    }
}

/* x: (m, k); a block per (row, part) work item w = row * parts + part, part
 * covering [part * len, (part + 1) * len) of the row.  parts == 1: the result
 * goes to out (m,); else to partials (m * parts,). */
template <class Op>
__global__ void rows_by_block(const typename Op::in_t *__restrict__ x,
                              typename Op::out_t *__restrict__ out,
                              typename Op::acc_t *__restrict__ partials, int64_t m, int64_t k,
                              int64_t parts)
{
    const int64_t len = (k + parts - 1) / parts;
    for (int64_t w = blockIdx.x; w < m * parts; w += gridDim.x) {
        const int64_t r = w / parts, begin = (w - r * parts) * len;
        const int64_t end = begin + len < k ? begin + len : k;
        typename Op::acc_t a = block_reduce<Op>(
            accumulate<Op>(x + r * k, begin, end, threadIdx.x, blockDim.x));
        if (threadIdx.x == 0) {
            if (parts == 1)
                out[r] = Op::finish(a, k);
            else
                partials[w] = a;
        }
    }
}

/* x: (k, m) row-major, i.e. the (m, k) operand with strides (1, m): column j
 * is reduced.  A thread per work item w = part * m + j, covering rows
 * [part * len, (part + 1) * len) of column j, so that neighbouring threads
 * read neighbouring columns (coalesced).  parts == 1: the result goes to out
 * (m,); else to partials (m, parts). */
template <class Op>
__global__ void cols_by_thread(const typename Op::in_t *__restrict__ x,
                               typename Op::out_t *__restrict__ out,
                               typename Op::acc_t *__restrict__ partials, int64_t m, int64_t k,
                               int64_t parts)
{
    const int64_t len = (k + parts - 1) / parts, step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; w < m * parts; w += step) {
        const int64_t part = w / m, j = w - part * m, begin = part * len;
        const int64_t end = begin + len < k ? begin + len : k;
        typename Op::acc_t a = Op::identity();
        for (int64_t i = begin; i < end; i++)
            a = Op::combine(a, Op::load(x[i * m + j], i));
        if (parts == 1)
            out[j] = Op::finish(a, k);
        else
            partials[j * parts + part] = a;
    }
}

/* partials: (m, parts) from rows_by_block or cols_by_thread; out: (m,); a
 * warp per row. */
template <class Op>
__global__ void finish_parts(const typename Op::acc_t *__restrict__ partials,
                             typename Op::out_t *__restrict__ out, int64_t m, int64_t parts,
                             int64_t k)
{
    const int lane = threadIdx.x & 31;
    const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < m; r += warps) {
        typename Op::acc_t a = Op::identity();
        for (int64_t j = lane; j < parts; j += 32)
            a = Op::combine(a, partials[r * parts + j]);
        a = warp_reduce<Op>(a);
        if (lane == 0)
            out[r] = Op::finish(a, k);
    }
}

/* ------------------------------------------------------------- launches */

struct launch_ctx {
    const pdt_tensor *out, *x;
    cudaStream_t stream;
};

/* Blocks for `items` work items, `per_block` of them per block, at most cap. */
unsigned blocks_for(int64_t items, int64_t per_block, int64_t cap)
{
    int64_t blocks = items / per_block + (items % per_block != 0);
    return (unsigned)(blocks < 1 ? 1 : blocks > cap ? cap : blocks);
}

template <class Op> pdt_status launch(const launch_ctx &c)
{
    typedef typename Op::in_t T;
    typedef typename Op::out_t O;
    typedef typename Op::acc_t A;
    const int64_t m = c.x->shape[0], k = c.x->shape[1];
    /* k == 0: x holds no element and may have no memory at all (data NULL
     * plus an offset): hand the kernels NULL, which they never read. */
    const T *x = c.x->shape[1] == 0
                     ? nullptr
                     : reinterpret_cast<const T *>(c.x->data + c.x->offset * (int64_t)sizeof(T));
    O *out = reinterpret_cast<O *>(c.out->data + c.out->offset * (int64_t)sizeof(O));
    A *partials = nullptr;
    int64_t parts = 1;
    pdt_status st = PDT_OK;
    /* the columns layout: strides (1, m) (see pdt_reduce.h) */
    const bool by_cols = k > 1 && c.x->strides[1] != 1;
    /* work items in one wave of the kernel that reduces the long rows or columns */
    const int64_t fill = by_cols ? wave_of<cols_by_thread<Op>>() * kThreads
                                 : wave_of<rows_by_block<Op>>();
    const int64_t min_part = by_cols ? kMinColPart : kMinPart;
    if (c.out->dtype != elem<O>::dtype || c.x->dtype != elem<T>::dtype)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "CUDA reduction: unexpected dtypes %d -> %d",
                        (int)c.x->dtype, (int)c.out->dtype);
    if (m == 0)
        return PDT_OK;
    if (!by_cols && k <= kThreadRowMax) {
        PDT_LAUNCH((rows_by_thread<Op>), blocks_for(m, kThreads, wave_of<rows_by_thread<Op>>()),
                   kThreads, 0, c.stream, x, out, m, k);
        PDT_CUDA_CHECK(cudaGetLastError());
        return PDT_OK;
    }
    if (!by_cols && k <= kWarpRowMax) {
        PDT_LAUNCH((rows_by_warp<Op>), blocks_for(m, kThreads / 32, wave_of<rows_by_warp<Op>>()),
                   kThreads, 0, c.stream, x, out, m, k);
        PDT_CUDA_CHECK(cudaGetLastError());
        return PDT_OK;
    }
    /* A block per row, or a thread per column; split when too few to fill
     * the device (see Note [CUDA reduction shapes]). */
    if (m < fill) {
        parts = (fill + m - 1) / m;
        if (parts > k / min_part)
            parts = k / min_part;
        if (parts < 1)
            parts = 1;
    }
    if (parts > 1) {
        /* From our pool and counted against the device's limit, as a tensor
         * would be (Note [reduction scratch]). */
        void *scratch = nullptr;
        st = pdt_scratch_alloc(c.x->device, (size_t)(m * parts) * sizeof(A), &scratch);
        if (st != PDT_OK)
            return st;
        partials = static_cast<A *>(scratch);
    }
    if (by_cols)
        PDT_LAUNCH((cols_by_thread<Op>),
                   blocks_for(m * parts, kThreads, 4 * wave_of<cols_by_thread<Op>>()), kThreads, 0,
                   c.stream, x, out, partials, m, k, parts);
    else
        PDT_LAUNCH((rows_by_block<Op>), blocks_for(m * parts, 1, 4 * wave_of<rows_by_block<Op>>()),
                   kThreads, 0, c.stream, x, out, partials, m, k, parts);
    PDT_CUDA_CHECK(cudaGetLastError());
    if (parts > 1) {
        PDT_LAUNCH((finish_parts<Op>), blocks_for(m, kThreads / 32, wave_of<finish_parts<Op>>()),
                   kThreads, 0, c.stream, partials, out, m, parts, k);
        PDT_CUDA_CHECK(cudaGetLastError());
        pdt_scratch_free(c.x->device, partials, (size_t)(m * parts) * sizeof(A));
    }
    return PDT_OK;
fail:
    if (partials) /* stream-ordered: after whatever was launched */
        pdt_scratch_free(c.x->device, partials, (size_t)(m * parts) * sizeof(A));
    return st;
}

template <template <typename> class Op> pdt_status all_dtypes(const launch_ctx &c)
{
    switch (c.x->dtype) {
    case PDT_BOOL: return launch<Op<uint8_t>>(c);
    case PDT_INT32: return launch<Op<int32_t>>(c);
    case PDT_INT64: return launch<Op<int64_t>>(c);
    case PDT_FLOAT32: return launch<Op<float>>(c);
    case PDT_FLOAT64: return launch<Op<double>>(c);
    default: break; /* float16, bfloat16: reduced in float32 (pdt_half.h) */
    }
    return pdt_fail(PDT_ERR_TYPE, "CUDA reduction: invalid dtype %d", (int)c.x->dtype);
}

template <template <typename> class Op> pdt_status float_dtypes(const launch_ctx &c)
{
    switch (c.x->dtype) {
    case PDT_FLOAT32: return launch<Op<float>>(c);
    case PDT_FLOAT64: return launch<Op<double>>(c);
    default: break;
    }
    return pdt_fail(PDT_ERR_UNSUPPORTED,
                    "CUDA reduction: mean and norm need a floating input, "
                    "got dtype %d",
                    (int)c.x->dtype);
}

} // namespace

extern "C" pdt_status pdt_cuda_reduce(pdt_reduce_op op, const pdt_tensor *out, const pdt_tensor *x)
{
    /* x: (m, k), rows or columns; out: (m,) contiguous; both on x->device.index */
    launch_ctx c = {out, x, nullptr};
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT; /* Note [device guard] in cuda_ops.h */
    /* makes x's GPU current: the waves (cuda_layout.cuh) are the current device's */
    pdt_status st = pdt_cuda_stream(&g, x->device.index, &c.stream);
    if (st != PDT_OK)
        goto fail;
    switch (op) {
    case PDT_REDUCE_SUM: st = all_dtypes<Sum>(c); break;
    case PDT_REDUCE_PROD: st = all_dtypes<Prod>(c); break;
    case PDT_REDUCE_MAX: st = all_dtypes<Max>(c); break;
    case PDT_REDUCE_MIN: st = all_dtypes<Min>(c); break;
    case PDT_REDUCE_ARGMAX: st = all_dtypes<ArgMax>(c); break;
    case PDT_REDUCE_ARGMIN: st = all_dtypes<ArgMin>(c); break;
    case PDT_REDUCE_SUM_SQUARES: st = float_dtypes<SumSquares>(c); break;
    case PDT_REDUCE_SUM_ABS: st = float_dtypes<SumAbs>(c); break;
    case PDT_REDUCE_MEAN: st = float_dtypes<Mean>(c); break;
    default: st = pdt_fail(PDT_ERR_UNSUPPORTED, "CUDA reduction %d is not defined", (int)op);
    }
fail:
    pdt_cuda_guard_exit(&g);
    return st;
}
