/* emu_cublas_lu.cpp - the emulated cuBLAS's batched LU (cublas<t>getrfBatched,
 * cublas<t>getrsBatched), the "BLAS-like Extension" routines the CUDA backend
 * uses for many small matrices (Note [batched small-matrix solvers] in
 * cuda_solver.h), with the signatures of the toolkit's cublas_api.h.  Each
 * matrix is factored and solved by the reference loops the emulated cuSOLVER
 * uses (emu_lapack.h), queued on the handle's stream as one operation.
 *
 * What the cuBLAS Library User Guide says and the emulation follows (sections
 * "cublas<t>getrfBatched()" and "cublas<t>getrsBatched()"):
 *   - Aarray and Barray are device arrays of pointers, each to one matrix in
 *     device memory: read by the device when the routine runs (so written by
 *     earlier work in the stream is fine), checked then against the pointer
 *     rule, the array and every matrix it names (emu_lapack::device_matrices);
 *   - getrfBatched: P A = L U of each n x n matrix in place, PivotArray (device,
 *     n x batchSize ints, matrix i's at PivotArray + i n) 1-based as LAPACK's,
 *     NULL for no pivoting; infoArray (device, batchSize ints): 0, or k when
 *     U(k, k) is exactly zero, "the factorization has been completed";
 *     CUBLAS_STATUS_INVALID_VALUE for n < 0, lda < max(1, n) or batchSize < 0;
 *   - getrsBatched: solves op(A) X = B for each matrix from getrfBatched's
 *     factors, B overwritten in place; its info is a host int, set before the
 *     call returns: 0, or -i when parameter i is invalid (then
 *     CUBLAS_STATUS_INVALID_VALUE and nothing is queued).  Only CUBLAS_OP_N is
 *     emulated (the backend uses no other): NOT_SUPPORTED otherwise.
 * Part of the emulated build only (README.md beside this file).
 */
#include <cublas_v2.h>

#include <stdint.h>

#include <algorithm>
#include <vector>

#include "emu.h"
#include "emu_cublas.h"
#include "emu_lapack.h"

namespace {

using emu_lapack::device_matrices;
using emu_lapack::span;

const char *const DOC_INFO_HOST = "cuBLAS Library User Guide, \"cublas<t>getrsBatched()\": info "
                                  "is a host pointer (one int, set before the call returns)";

/* The handle's device and resolved stream, checked as every cuBLAS call is. */
pdt_emu::stream *handle_stream(cublasHandle_t h, const char *name, int *device)
{
    cudaStream_t stream;
    cublasMath_t math;
    *device = emu_blas::settings(h, name, &stream, &math);
    return emu_blas::stream_of(h, name, *device, stream);
}

template <typename T>
cublasStatus_t getrf_batched(const char *name, cublasHandle_t h, int n, T *const Aarray[], int lda,
                             int *PivotArray, int *infoArray, int batchSize)
{
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (n < 0 || lda < std::max(1, n) || batchSize < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    int dev;
    pdt_emu::stream *s = handle_stream(h, name, &dev);
    if (batchSize == 0)
        return CUBLAS_STATUS_SUCCESS;
    pdt_emu::enqueue(s, name, [=]() {
        std::vector<T *> a = device_matrices(name, "Aarray", dev, Aarray, batchSize,
                                             span(n, n, lda));
        if (PivotArray)
            pdt_emu::check_device_access(name, "PivotArray", dev, PivotArray,
                                         (size_t)n * batchSize * sizeof(int));
        pdt_emu::check_device_access(name, "infoArray", dev, infoArray,
                                     (size_t)batchSize * sizeof(int));
        for (int i = 0; i < batchSize; i++)
            emu_lapack::run_getrf(n, n, a[i], lda,
                                  PivotArray ? PivotArray + (int64_t)i * n : nullptr,
                                  infoArray + i);
    });
    return CUBLAS_STATUS_SUCCESS;
}

template <typename T>
cublasStatus_t getrs_batched(const char *name, cublasHandle_t h, cublasOperation_t trans, int n,
                             int nrhs, const T *const Aarray[], int lda, const int *devIpiv,
                             T *const Barray[], int ldb, int *info, int batchSize)
{
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    pdt_emu::mem_info where;
    if (!info || (pdt_emu::lookup(info, &where) && where.kind == pdt_emu::MEM_DEVICE))
        pdt_emu::violation(name, DOC_INFO_HOST, "info %p is %s", (void *)info,
                           info ? "device memory" : "NULL");
    /* The parameter positions, counting the handle as the first. */
    int bad = trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C ? 2
              : n < 0                                                              ? 3
              : nrhs < 0                                                           ? 4
              : lda < std::max(1, n)                                               ? 6
              : ldb < std::max(1, n)                                               ? 9
              : batchSize < 0                                                      ? 11
                                                                                   : 0;
    *info = -bad;
    if (bad)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (trans != CUBLAS_OP_N)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    int dev;
    pdt_emu::stream *s = handle_stream(h, name, &dev);
    if (batchSize == 0 || n == 0 || nrhs == 0)
        return CUBLAS_STATUS_SUCCESS;
    pdt_emu::enqueue(s, name, [=]() {
        std::vector<const T *> a = device_matrices(name, "Aarray", dev, Aarray, batchSize,
                                                   span(n, n, lda));
        std::vector<T *> b = device_matrices(name, "Barray", dev, Barray, batchSize,
                                             span(n, nrhs, ldb));
        pdt_emu::check_device_access(name, "devIpiv", dev, devIpiv,
                                     (size_t)n * batchSize * sizeof(int));
        int ignored;
        for (int i = 0; i < batchSize; i++)
            emu_lapack::run_getrs(n, nrhs, a[i], lda, devIpiv + (int64_t)i * n, b[i], ldb,
                                  &ignored);
    });
    return CUBLAS_STATUS_SUCCESS;
}

} // namespace

/* "cublas<t>getrfBatched()" */
EMU_CUBLAS_API cublasStatus_t cublasSgetrfBatched(cublasHandle_t handle, int n,
                                                  float *const Aarray[], int lda, int *PivotArray,
                                                  int *infoArray, int batchSize)
{
    return getrf_batched("cublasSgetrfBatched", handle, n, Aarray, lda, PivotArray, infoArray,
                         batchSize);
}

EMU_CUBLAS_API cublasStatus_t cublasDgetrfBatched(cublasHandle_t handle, int n,
                                                  double *const Aarray[], int lda, int *PivotArray,
                                                  int *infoArray, int batchSize)
{
    return getrf_batched("cublasDgetrfBatched", handle, n, Aarray, lda, PivotArray, infoArray,
                         batchSize);
}

/* "cublas<t>getrsBatched()" */
EMU_CUBLAS_API cublasStatus_t cublasSgetrsBatched(cublasHandle_t handle, cublasOperation_t trans,
                                                  int n, int nrhs, const float *const Aarray[],
                                                  int lda, const int *devIpiv,
                                                  float *const Barray[], int ldb, int *info,
                                                  int batchSize)
{
    return getrs_batched("cublasSgetrsBatched", handle, trans, n, nrhs, Aarray, lda, devIpiv,
                         Barray, ldb, info, batchSize);
}

EMU_CUBLAS_API cublasStatus_t cublasDgetrsBatched(cublasHandle_t handle, cublasOperation_t trans,
                                                  int n, int nrhs, const double *const Aarray[],
                                                  int lda, const int *devIpiv,
                                                  double *const Barray[], int ldb, int *info,
                                                  int batchSize)
{
    return getrs_batched("cublasDgetrsBatched", handle, trans, n, nrhs, Aarray, lda, devIpiv,
                         Barray, ldb, info, batchSize);
}
