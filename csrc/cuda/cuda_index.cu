/* cuda_index.cu - the CUDA backend's where, index_select, index_put, sort and
 * cumsum (contracts in pdt_backend.h; the core validated the inputs).  Built
 * by nvcc, or by the host compiler against the emulated device.
 *
 *   where         one thread per output element; cond, a, b through the
 *                 merged strided layout of cuda_layout.cuh.
 *   index_select  one thread per output element: its multi-index, with the
 *                 coordinate along dim replaced by index[coordinate].
 *   index_put     one thread per value, the same the other way round; of
 *                 values sent to one place the last wins, as on the CPU and
 *                 in NumPy (Note [the last value wins]).
 *   sort          Note [sort order] (cpu_index.c): log2(n) merge passes over
 *                 all rows at once; in a pass each element finds its place by
 *                 a binary search in the neighbouring run (stable: ties from
 *                 the left run go first).  O(n log^2 n) work, no shared memory.
 *   cumsum        Hillis-Steele: log2(n) passes, out[i] += in[i - 2^p],
 *                 through a scratch buffer.
 */
#include <stdint.h>

#include <type_traits>

#include "cuda_check.h"
#include "cuda_launch.h"
#include "cuda_layout.cuh"
#include "cuda_ops.h"
#include "pdt_runtime.h" /* pdt_scratch_alloc */

namespace {

using namespace pdt_cuda;

/* One tensor's shape and another's strides, for the index kernels. */
struct dims_of {
    int ndim, dim;
    int64_t shape[PDT_MAX_DIMS];  /* the shape walked (out, or values) */
    int64_t stride[PDT_MAX_DIMS]; /* of the other tensor (src, or dst) */
    int64_t own[PDT_MAX_DIMS];    /* of the walked tensor */
    int64_t size;                 /* the other tensor's size along dim */
};

/* Offsets (in elements) of walked element i in its own tensor and in the
 * other one, with the coordinate along dim mapped through index.  False when the
 * index value is out of range: the core checked the index, but a kernel queued
 * after the check may have written to it since (Note [the index read once] in
 * cpu_index.c); the element is then skipped (index_select writes 0), never an
 * access out of bounds. */
__device__ __forceinline__ bool map_offsets(const dims_of &D, int64_t i, const int64_t *index,
                                            int64_t *own, int64_t *other, int64_t *j = nullptr,
                                            int64_t *to = nullptr)
{
    int64_t a = 0, b = 0;
    bool ok = true;
    for (int d = D.ndim - 1; d >= 0; d--) {
        int64_t c = i % D.shape[d];
        i /= D.shape[d];
        a += c * D.own[d];
        if (d == D.dim) {
            if (j)
                *j = c;
            c = index[c];
            c = c < 0 ? c + D.size : c;
            ok = (uint64_t)c < (uint64_t)D.size;
            if (to)
                *to = c;
        }
        b += c * D.stride[d];
    }
    *own = a;
    *other = b;
    return ok;
}

template <typename T>
__global__ void where_kernel(T *out, const uint8_t *cond, const T *a, const T *b, layout<3> L,
                             int contiguous, int64_t n)
{
    for (int64_t i = gs_first<int64_t>(); i < n; i += gs_step<int64_t>()) {
        if (contiguous) {
            out[i] = cond[i] ? a[i] : b[i];
        } else {
            int64_t off[3];
            offsets_of(L, i, off);
            out[i] = cond[off[0]] ? a[off[1]] : b[off[2]];
        }
    }
}

/* index_select: out[i] = src[mapped i] (walked = out, other = src). */
template <typename T>
__global__ void index_select_kernel(T *walked, const T *other, const int64_t *index, dims_of D,
                                    int64_t n)
{
    for (int64_t i = gs_first<int64_t>(); i < n; i += gs_step<int64_t>()) {
        int64_t own, mapped;
        const bool ok = map_offsets(D, i, index, &own, &mapped);
        walked[own] = ok ? other[mapped] : T(0);
    }
}

/* Note [the last value wins]: x[index] = values with a repeated index sends
 * several values to one place.  Threads run in no set order (CUDA C++
 * Programming Guide, "Thread Hierarchy"), so letting each write would leave
 * any of them there, run to run (PyTorch documents index_put_ so).  The CPU
 * writes in order, so the last value wins there, as in NumPy; for the same
 * result on every device, record_last_kernel first records, for each place
 * along dim that the index names, the largest j whose index[j] goes there
 * (atomicMax), and the put writes value j only where that record is j.  The
 * record is a row of dst's size along dim when that is at most twice the
 * table below (a direct lookup); otherwise an open-addressed table of
 * 2^p >= 2k slots keyed by the place (linear probing, at most half full), so
 * that its memory follows the index, not dst: the callers flatten the indexed
 * dims into one, and x[[0, 1]] = v on a large x must not fill a row of x's
 * size.  An index of one value needs no record. */
struct last_writers {
    long long *last;         /* [cap]: the largest j per place or slot; -1: none */
    unsigned long long *key; /* [cap]: the slot's place, ~0 empty; null: last is a row */
    uint64_t mask;           /* cap - 1, for the table */
    PDT_KERNEL_POINTERS(last, key)
};

__device__ __forceinline__ uint64_t place_hash(uint64_t c)
{
    c *= 0x9e3779b97f4a7c15ull; /* Fibonacci hashing: the high bits mix every bit */
    return c ^ (c >> 29);
}

/* The record of place c (0 <= c < size); adds its slot when `add`.  The table
 * is at most half full, so the probe ends. */
__device__ __forceinline__ long long *last_of(const last_writers &W, int64_t c, bool add)
{
    if (!W.key)
        return W.last + c;
    const unsigned long long want = (unsigned long long)c, empty = ~0ull;
    for (uint64_t h = place_hash(want) & W.mask;; h = (h + 1) & W.mask) {
        unsigned long long k = ((volatile unsigned long long *)W.key)[h];
        if (k == empty && add)
            k = atomicCAS(W.key + h, empty, want);
        if (k == want || (k == empty && add))
            return W.last + h;
        if (k == empty)
            return nullptr; /* not recorded: not reached for a place the index names */
    }
}

__global__ void record_last_kernel(const int64_t *index, int64_t k, int64_t size, last_writers W)
{
    for (int64_t j = gs_first<int64_t>(); j < k; j += gs_step<int64_t>()) {
        int64_t c = index[j];
        c = c < 0 ? c + size : c;
        if ((uint64_t)c < (uint64_t)size)
            atomicMax(last_of(W, c, true), (long long)j);
    }
}

/* index_put: dst[mapped i] = values[i] (walked = values, other = dst), where
 * value i is the last sent there (Note [the last value wins]; W.last null:
 * one value only). */
template <typename T>
__global__ void index_put_kernel(const T *walked, T *other, const int64_t *index, last_writers W,
                                 dims_of D, int64_t n)
{
    for (int64_t i = gs_first<int64_t>(); i < n; i += gs_step<int64_t>()) {
        int64_t own, mapped, j = 0, to = 0;
        if (!map_offsets(D, i, index, &own, &mapped, &j, &to))
            continue;
        const long long *last = W.last ? last_of(W, to, false) : nullptr;
        if (!W.last || (last && *last == j))
            other[mapped] = walked[own];
    }
}

/* index_add: walked = values, dst[mapped i] += values[i] (atomically, so
 * duplicate indices accumulate; their order, and so float rounding, may vary
 * from run to run on a GPU, as in PyTorch). */
template <typename T, typename A>
__global__ void index_add_kernel(const T *walked, T *other, const int64_t *index, dims_of D,
                                 int64_t n)
{
    for (int64_t i = gs_first<int64_t>(); i < n; i += gs_step<int64_t>()) {
        int64_t own, mapped;
        if (map_offsets(D, i, index, &own, &mapped))
            atomicAdd((A *)(other + mapped), (A)walked[own]);
    }
}

/* Launches K<T> with T the unsigned type of the dtype's size: these kernels
 * only move elements. */
#define BY_SIZE(ES, ...)                                                                           \
    switch (ES) {                                                                                  \
    case 1: {                                                                                      \
        typedef uint8_t T;                                                                         \
        __VA_ARGS__;                                                                               \
    } break;                                                                                       \
    case 2: {                                                                                      \
        typedef uint16_t T;                                                                        \
        __VA_ARGS__;                                                                               \
    } break;                                                                                       \
    case 4: {                                                                                      \
        typedef uint32_t T;                                                                        \
        __VA_ARGS__;                                                                               \
    } break;                                                                                       \
    default: {                                                                                     \
        typedef uint64_t T;                                                                        \
        __VA_ARGS__;                                                                               \
    } break;                                                                                       \
    }

dims_of make_dims(const pdt_tensor *walked, const pdt_tensor *other, int dim)
{
    dims_of D;
    D.ndim = walked->ndim;
    D.dim = dim;
    D.size = other->shape[dim];
    for (int d = 0; d < walked->ndim; d++) {
        D.shape[d] = walked->shape[d];
        D.own[d] = walked->strides[d];
        D.stride[d] = other->strides[d];
    }
    return D;
}

/* ------------------------------------------------------------------ sort */

template <typename T> __device__ __forceinline__ bool is_nan(T v)
{
    if constexpr (std::is_floating_point<T>::value)
        return v != v;
    else
        return false;
}

/* a goes strictly before b (Note [sort order] in cpu_index.c). */
template <typename T> __device__ __forceinline__ bool before(T a, T b, int desc)
{
    if (desc)
        return is_nan(a) ? !is_nan(b) : (!is_nan(b) && a > b);
    return is_nan(b) ? !is_nan(a) : (!is_nan(a) && a < b);
}

__global__ void iota_rows_kernel(int64_t *ix, int64_t n, int64_t total)
{
    for (int64_t i = gs_first<int64_t>(); i < total; i += gs_step<int64_t>())
        ix[i] = i % n;
}

/* One merge pass of width w over rows of n: runs [2kw, 2kw+w) and [2kw+w,
 * 2kw+2w) of each row merge from (sv, si) into (dv, di). */
template <typename T>
__global__ void merge_pass_kernel(T *dv, int64_t *di, const T *sv, const int64_t *si, int64_t n,
                                  int64_t w, int desc, int64_t total)
{
    for (int64_t g = gs_first<int64_t>(); g < total; g += gs_step<int64_t>()) {
        const int64_t row = g / n, p = g % n;
        const T *s = sv + row * n;
        const int64_t run = p / w, start = run * w;
        const int64_t pair = run ^ 1, pstart = pair * w;
        int64_t pos = p; /* a run without a partner stays where it is */
        if (pstart < n) {
            const int64_t pend = pstart + w < n ? pstart + w : n;
            const T v = s[p];
            int64_t lo = pstart, hi = pend;
            const bool left = run < pair;
            while (lo < hi) { /* left: count partners strictly before v; right: not after v */
                int64_t mid = lo + (hi - lo) / 2;
                bool go_right = left ? before(s[mid], v, desc) : !before(v, s[mid], desc);
                if (go_right)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            pos = (left ? start : pstart) + (p - start) + (lo - pstart);
        }
        dv[row * n + pos] = s[p];
        di[row * n + pos] = si[row * n + p];
    }
}

/* ---------------------------------------------------------------- cumsum */

/* out[i] = in[i] + (i's position in its row >= step ? in[i - step] : 0) */
template <typename T>
__global__ void scan_pass_kernel(T *out, const T *in, int64_t n, int64_t step, int64_t total)
{
    for (int64_t i = gs_first<int64_t>(); i < total; i += gs_step<int64_t>())
        out[i] = (i % n) >= step ? (T)(in[i] + in[i - step]) : in[i];
}

template <typename T>
pdt_status sort_typed(const pdt_tensor *values, const pdt_tensor *indices, const pdt_tensor *sv,
                      const pdt_tensor *si, int desc, cudaStream_t stream)
{
    pdt_status st = PDT_OK;
    const int64_t n = values->shape[values->ndim - 1];
    const int64_t total = pdt_tensor_numel(values);
    T *v[2] = {(T *)pdt_tensor_ptr(values), (T *)pdt_tensor_ptr(sv)};
    int64_t *ix[2] = {(int64_t *)pdt_tensor_ptr(indices), (int64_t *)pdt_tensor_ptr(si)};
    int cur = 0;
    PDT_LAUNCH((iota_rows_kernel), grid_for<iota_rows_kernel>((uint64_t)total), kThreads, 0, stream,
               ix[0], n, total);
    PDT_CUDA_CHECK(cudaGetLastError());
    for (int64_t w = 1; w < n; w *= 2, cur ^= 1) {
        PDT_LAUNCH((merge_pass_kernel<T>), grid_for<merge_pass_kernel<T>>((uint64_t)total),
                   kThreads, 0, stream, v[cur ^ 1], ix[cur ^ 1], v[cur], ix[cur], n, w, desc,
                   total);
        PDT_CUDA_CHECK(cudaGetLastError());
    }
    if (cur) {
        PDT_CUDA_CHECK(cudaMemcpyAsync(v[0], v[1], (size_t)total * sizeof(T),
                                       cudaMemcpyDeviceToDevice, stream));
        PDT_CUDA_CHECK(cudaMemcpyAsync(ix[0], ix[1], (size_t)total * sizeof(int64_t),
                                       cudaMemcpyDeviceToDevice, stream));
    }
fail:
    return st;
}

template <typename T>
pdt_status cumsum_typed(const pdt_tensor *out, const pdt_tensor *x, cudaStream_t stream)
{
    pdt_status st = PDT_OK;
    const int64_t n = x->shape[x->ndim - 1];
    const int64_t total = pdt_tensor_numel(x);
    const size_t bytes = (size_t)total * sizeof(T);
    void *scratch = nullptr;
    T *buf[2] = {(T *)pdt_tensor_ptr(out), nullptr};
    int cur = 0;
    if (out != x && pdt_tensor_ptr(out) != pdt_tensor_ptr(x))
        PDT_CUDA_CHECK(
            cudaMemcpyAsync(buf[0], pdt_tensor_ptr(x), bytes, cudaMemcpyDeviceToDevice, stream));
    if (n > 1) {
        st = pdt_scratch_alloc(x->device, bytes, &scratch);
        if (st != PDT_OK)
            return st;
        buf[1] = (T *)scratch;
    }
    for (int64_t step = 1; step < n; step *= 2, cur ^= 1) {
        PDT_LAUNCH((scan_pass_kernel<T>), grid_for<scan_pass_kernel<T>>((uint64_t)total), kThreads,
                   0, stream, buf[cur ^ 1], buf[cur], n, step, total);
        PDT_CUDA_CHECK(cudaGetLastError());
    }
    if (cur)
        PDT_CUDA_CHECK(cudaMemcpyAsync(buf[0], buf[1], bytes, cudaMemcpyDeviceToDevice, stream));
fail:
    if (scratch)
        pdt_scratch_free(x->device, scratch, bytes);
    return st;
}

} // namespace

extern "C" pdt_status pdt_cuda_where(const pdt_tensor *out, const pdt_tensor *cond,
                                     const pdt_tensor *a, const pdt_tensor *b)
{
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT; /* Note [device guard] in cuda_ops.h */
    cudaStream_t stream;
    pdt_status st = pdt_cuda_stream(&g, out->device.index, &stream);
    if (st == PDT_OK) {
        const pdt_tensor *const ts[3] = {cond, a, b};
        layout<3> L;
        const int contiguous = make_layout<3>(out, ts, &L);
        const int64_t n = pdt_tensor_numel(out);
        BY_SIZE(pdt_dtype_size(out->dtype),
                PDT_LAUNCH((where_kernel<T>), grid_for<where_kernel<T>>((uint64_t)n), kThreads, 0,
                           stream, (T *)pdt_tensor_ptr(out), (const uint8_t *)pdt_tensor_ptr(cond),
                           (const T *)pdt_tensor_ptr(a), (const T *)pdt_tensor_ptr(b), L,
                           contiguous, n));
        PDT_CUDA_CHECK(cudaGetLastError());
    }
fail:
    pdt_cuda_guard_exit(&g);
    return st;
}

extern "C" pdt_status pdt_cuda_index_select(const pdt_tensor *out, const pdt_tensor *src, int dim,
                                            const pdt_tensor *index)
{
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    cudaStream_t stream;
    pdt_status st = pdt_cuda_stream(&g, out->device.index, &stream);
    if (st == PDT_OK) {
        const dims_of D = make_dims(out, src, dim);
        const int64_t n = pdt_tensor_numel(out);
        BY_SIZE(pdt_dtype_size(out->dtype),
                PDT_LAUNCH((index_select_kernel<T>),
                           (grid_for<index_select_kernel<T>>((uint64_t)n)), kThreads, 0, stream,
                           (T *)pdt_tensor_ptr(out), (const T *)pdt_tensor_ptr(src),
                           (const int64_t *)pdt_tensor_ptr(index), D, n));
        PDT_CUDA_CHECK(cudaGetLastError());
    }
fail:
    pdt_cuda_guard_exit(&g);
    return st;
}

extern "C" pdt_status pdt_cuda_index_put(const pdt_tensor *dst, int dim, const pdt_tensor *index,
                                         const pdt_tensor *src)
{
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    cudaStream_t stream;
    last_writers W = {nullptr, nullptr, 0};
    void *scratch = nullptr;
    size_t bytes = 0;
    const int64_t k = pdt_tensor_numel(index), size = dst->shape[dim];
    pdt_status st = pdt_cuda_stream(&g, src->device.index, &stream);
    if (st != PDT_OK)
        goto fail;
    if (k > 1 && size > 0) { /* Note [the last value wins] */
        uint64_t cap = 2;
        while (cap < 2 * (uint64_t)k)
            cap *= 2;
        const bool row = (uint64_t)size <= 2 * cap;
        const uint64_t slots = row ? (uint64_t)size : cap;
        bytes = (size_t)slots * (row ? sizeof(long long) : 2 * sizeof(long long));
        if ((st = pdt_scratch_alloc(dst->device, bytes, &scratch)) != PDT_OK)
            goto fail;
        W.last = (long long *)scratch;
        W.key = row ? nullptr : (unsigned long long *)(W.last + slots);
        W.mask = slots - 1;
        /* every record -1 and every key ~0: all bits set */
        PDT_CUDA_CHECK(cudaMemsetAsync(scratch, 0xff, bytes, stream));
        PDT_LAUNCH((record_last_kernel), grid_for<record_last_kernel>((uint64_t)k), kThreads, 0,
                   stream, (const int64_t *)pdt_tensor_ptr(index), k, size, W);
        PDT_CUDA_CHECK(cudaGetLastError());
    }
    {
        const dims_of D = make_dims(src, dst, dim);
        const int64_t n = pdt_tensor_numel(src);
        BY_SIZE(pdt_dtype_size(src->dtype),
                PDT_LAUNCH((index_put_kernel<T>), (grid_for<index_put_kernel<T>>((uint64_t)n)),
                           kThreads, 0, stream, (const T *)pdt_tensor_ptr(src),
                           (T *)pdt_tensor_ptr(dst), (const int64_t *)pdt_tensor_ptr(index), W, D,
                           n));
        PDT_CUDA_CHECK(cudaGetLastError());
    }
fail:
    if (scratch) /* ordered after the put (pdt_scratch_free) */
        pdt_scratch_free(dst->device, scratch, bytes);
    pdt_cuda_guard_exit(&g);
    return st;
}

/* int64 adds through the unsigned 64-bit atomicAdd (two's complement). */
template <typename T, typename A>
static pdt_status launch_index_add(const dims_of &D, const pdt_tensor *src, const pdt_tensor *dst,
                                   const pdt_tensor *index, int64_t n, cudaStream_t stream)
{
    PDT_LAUNCH((index_add_kernel<T, A>), (grid_for<index_add_kernel<T, A>>((uint64_t)n)), kThreads,
               0, stream, (const T *)pdt_tensor_ptr(src), (T *)pdt_tensor_ptr(dst),
               (const int64_t *)pdt_tensor_ptr(index), D, n);
    return PDT_OK;
}

extern "C" pdt_status pdt_cuda_index_add(const pdt_tensor *dst, int dim, const pdt_tensor *index,
                                         const pdt_tensor *src)
{
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    cudaStream_t stream;
    pdt_status st = pdt_cuda_stream(&g, src->device.index, &stream);
    if (st == PDT_OK) {
        const dims_of D = make_dims(src, dst, dim);
        const int64_t n = pdt_tensor_numel(src);
        switch (dst->dtype) {
        case PDT_FLOAT32: st = launch_index_add<float, float>(D, src, dst, index, n, stream); break;
        case PDT_FLOAT64:
            st = launch_index_add<double, double>(D, src, dst, index, n, stream);
            break;
        case PDT_INT32: st = launch_index_add<int32_t, int>(D, src, dst, index, n, stream); break;
        case PDT_INT64:
            st = launch_index_add<int64_t, unsigned long long>(D, src, dst, index, n, stream);
            break;
        default: st = pdt_fail(PDT_ERR_UNSUPPORTED, "index_add: unsupported dtype"); break;
        }
        if (st == PDT_OK) {
            PDT_CUDA_CHECK(cudaGetLastError());
        }
    }
fail:
    pdt_cuda_guard_exit(&g);
    return st;
}

extern "C" pdt_status pdt_cuda_sort(const pdt_tensor *values, const pdt_tensor *indices,
                                    const pdt_tensor *scratch_values,
                                    const pdt_tensor *scratch_indices, int descending)
{
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    cudaStream_t stream;
    pdt_status st = pdt_cuda_stream(&g, values->device.index, &stream);
    const pdt_tensor *sv = scratch_values, *si = scratch_indices;
    if (st == PDT_OK) {
        switch (values->dtype) {
        case PDT_BOOL: st = sort_typed<uint8_t>(values, indices, sv, si, descending, stream); break;
        case PDT_INT32:
            st = sort_typed<int32_t>(values, indices, sv, si, descending, stream);
            break;
        case PDT_INT64:
            st = sort_typed<int64_t>(values, indices, sv, si, descending, stream);
            break;
        case PDT_FLOAT32:
            st = sort_typed<float>(values, indices, sv, si, descending, stream);
            break;
        case PDT_FLOAT64:
            st = sort_typed<double>(values, indices, sv, si, descending, stream);
            break;
        default: break; /* float16, bfloat16: computed in float32 (pdt_half.h) */
        }
    }
    pdt_cuda_guard_exit(&g);
    return st;
}

extern "C" pdt_status pdt_cuda_cumsum(const pdt_tensor *out, const pdt_tensor *x)
{
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    cudaStream_t stream;
    pdt_status st = pdt_cuda_stream(&g, x->device.index, &stream);
    if (st == PDT_OK) {
        switch (x->dtype) {
        case PDT_INT64: st = cumsum_typed<int64_t>(out, x, stream); break;
        case PDT_FLOAT32: st = cumsum_typed<float>(out, x, stream); break;
        case PDT_FLOAT64: st = cumsum_typed<double>(out, x, stream); break;
        default: st = pdt_fail(PDT_ERR_UNSUPPORTED, "cumsum: %s", pdt_dtype_name(x->dtype));
        }
    }
    pdt_cuda_guard_exit(&g);
    return st;
}
