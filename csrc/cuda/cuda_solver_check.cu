/* cuda_solver_check.cu - the solver's small device passes: the pointer arrays
 * of the batched routines (at the end), and the pass over each Cholesky factor's diagonal that
 * gives a NaN pivot a non-zero info on the GPU as on the CPU (Note [non-finite
 * Cholesky pivots] in cuda_solver.h), and the pass over singular values that
 * does the same for the SVD (Note [NaN singular values]).  It runs on the device's stream after
 * potrf and writes into the device info array itself: no copy to the host.
 *
 * One thread per diagonal element of the batch (grid-stride), so that one large
 * factor's n reads go side by side rather than one after another.  A thread
 * that finds a NaN at (b, j) lowers info[b] to j + 1 (a compare-and-swap loop,
 * where 0 counts as "none yet"): info[b] ends as the smallest of potrf's own
 * info and the first NaN diagonal.  That equals potrf's info whenever it was
 * not 0: a NaN pivot before a failed one is impossible (a NaN pivot at j makes
 * every L(i, j), i > j, NaN, so every later pivot is NaN, which potrf's
 * ajj <= 0 test never fails), and what potrf leaves from the failed pivot on
 * (the partial factor, or NaN on cuSOLVER, PyTorch issue #121009) can only
 * give a larger j.  Built by nvcc, or by the host compiler against the
 * emulated device.
 */
#include <stdint.h>

#include "cuda_check.h"
#include "cuda_launch.h"
#include "cuda_layout.cuh"
#include "cuda_solver.h"

namespace {

using namespace pdt_cuda;

template <typename T>
__global__ void nan_pivot_kernel(const T *a /* [batch][n][n] */, int64_t n, int64_t total,
                                 int *info /* [batch] */)
{
    for (int64_t i = gs_first<int64_t>(); i < total; i += gs_step<int64_t>()) {
        const int64_t b = i / n, j = i - b * n;
        const T v = a[b * n * n + j * (n + 1)];
        if (v == v)
            continue; /* not NaN */
        const int mine = (int)(j + 1);
        int old = info[b];
        while (old == 0 || old > mine) {
            const int seen = atomicCAS(&info[b], old, mine);
            if (seen == old)
                break;
            old = seen;
        }
    }
}

template <typename T>
pdt_status launch(const void *a, int64_t n, int64_t batch, int *info, cudaStream_t stream)
{
    pdt_status st = PDT_OK;
    const int64_t total = n * batch; /* diagonal elements */
    PDT_LAUNCH((nan_pivot_kernel<T>), grid_for<nan_pivot_kernel<T>>((uint64_t)total), kThreads, 0,
               stream, (const T *)a, n, total, info);
    PDT_CUDA_CHECK(cudaGetLastError());
fail:
    return st;
}

/* Note [NaN singular values]: info[b] = code where it is 0 and a value of row b is NaN. */
template <typename T>
__global__ void nan_value_kernel(const T *v /* [batch][n] */, int64_t n, int64_t total, int *info,
                                 int code)
{
    for (int64_t i = gs_first<int64_t>(); i < total; i += gs_step<int64_t>())
        if (v[i] != v[i])
            atomicCAS(&info[i / n], 0, code);
}

} // namespace

extern "C" pdt_status pdt_cuda_nan_values_info(const void *v, int d, int64_t n, int64_t batch,
                                               int *info, int code, cudaStream_t stream)
{
    pdt_status st = PDT_OK;
    const int64_t total = n * batch;
    if (batch <= 0 || n <= 0)
        return PDT_OK;
    if (d)
        PDT_LAUNCH((nan_value_kernel<double>), grid_for<nan_value_kernel<double>>((uint64_t)total),
                   kThreads, 0, stream, (const double *)v, n, total, info, code);
    else
        PDT_LAUNCH((nan_value_kernel<float>), grid_for<nan_value_kernel<float>>((uint64_t)total),
                   kThreads, 0, stream, (const float *)v, n, total, info, code);
    PDT_CUDA_CHECK(cudaGetLastError());
fail:
    return st;
}

extern "C" pdt_status pdt_cuda_nan_pivot_info(const void *a, int d, int64_t n, int64_t batch,
                                              int *info, cudaStream_t stream)
{
    if (batch <= 0 || n <= 0)
        return PDT_OK;
    return d ? launch<double>(a, n, batch, info, stream) : launch<float>(a, n, batch, info, stream);
}

/* ---- the device arrays of pointers of the batched routines (Note [batched
 * small-matrix solvers] in cuda_solver.h): written on the stream, so no
 * host-to-device copy; one thread per entry (grid-stride). */

namespace {

__global__ void pointer_array_kernel(void **out, char *base, uint64_t stride, int64_t count)
{
    for (int64_t i = gs_first<int64_t>(); i < count; i += gs_step<int64_t>())
        out[i] = base + (uint64_t)i * stride;
}

} // namespace

extern "C" pdt_status pdt_cuda_pointer_array(void **out, void *base, size_t stride, int64_t count,
                                             cudaStream_t stream)
{
    pdt_status st = PDT_OK;
    if (count <= 0)
        return PDT_OK;
    PDT_LAUNCH((pointer_array_kernel), grid_for<pointer_array_kernel>((uint64_t)count), kThreads, 0,
               stream, out, (char *)base, (uint64_t)stride, count);
    PDT_CUDA_CHECK(cudaGetLastError());
fail:
    return st;
}
