/* emu_cusolver.cpp - the emulated cuSOLVER (libcusolver.so.<CUSOLVER_VER_MAJOR>):
 * the dense entry points the CUDA backend loads (cuda_solver.c), with the
 * signatures of the toolkit's cusolverDn.h.  getrf is a reference LU with
 * partial pivoting (LAPACK's dgetf2, unblocked), getrs its two triangular
 * solves, potrf a reference Cholesky (LAPACK's dpotf2), each queued on the
 * handle's stream of the emulated device (emu.h, Note [emulated streams]) and
 * checked against the pointer rule over exactly what it reads and writes.
 * Arguments are validated as the cuSOLVER documentation says; section names
 * cited below are those of the cuSOLVER Library documentation, "cuSOLVERDn:
 * Dense LAPACK Function Reference" (2.4) and "cuSolverDN: dense LAPACK" helper
 * functions (2.4.1).  Part of the emulated build only (README.md beside this
 * file).
 */
#include <cusolverDn.h>

#include <math.h>
#include <stdint.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "emu.h"
#include "emu_cusolver.h"
#include "emu_lapack.h"

namespace {

using emu_lapack::run_getrf;
using emu_lapack::run_getrs;
using emu_lapack::run_potrf;
using emu_solver::at;
using emu_solver::check_lwork;
using emu_solver::span;
using emu_solver::stream_of;

const char *const DOC_WORKSPACE = "cuSOLVER Library, \"cusolverDn<t>getrf()\" / "
                                  "\"cusolverDn<t>potrf()\": Workspace is a device array of at "
                                  "least Lwork elements, Lwork from the matching _bufferSize";

/* The workspace size the _bufferSize calls report: one column (what LAPACK's
 * unblocked routines would need at most), so that a caller that allocates less
 * than it was told is caught by the pointer rule. */
int lwork_for(int n) { return std::max(1, n); }

template <typename T>
cusolverStatus_t getrf_buffer(cusolverDnHandle_t h, int m, int n, int lda, int *lwork)
{
    /* "cusolverDn<t>getrf()", return values: CUSOLVER_STATUS_NOT_INITIALIZED
     * without a handle; CUSOLVER_STATUS_INVALID_VALUE for m, n < 0 or
     * lda < max(1, m). */
    if (!h)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || lda < std::max(1, m) || !lwork)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *lwork = lwork_for(n);
    return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
cusolverStatus_t getrf(const char *name, cusolverDnHandle_t h, int m, int n, T *a, int lda, T *work,
                       int *ipiv, int *info)
{
    if (!h)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || lda < std::max(1, m))
        return CUSOLVER_STATUS_INVALID_VALUE;
    int dev;
    pdt_emu::stream *s = stream_of(h, name, &dev);
    if (emu_solver::fails(dev)) /* Note [fault injection] */
        return CUSOLVER_STATUS_INTERNAL_ERROR;
    /* "cusolverDn<t>getrf()": devIpiv (min(m, n) ints), devInfo (one int),
     * A and Workspace are device memory; Workspace of the size _bufferSize gave
     * (getrf takes no Lwork: it uses what it asked for). */
    pdt_emu::enqueue(s, name, [=]() {
        pdt_emu::check_device_access(name, "A", dev, a, span(m, n, lda) * sizeof(T));
        pdt_emu::check_device_access(name, "Workspace", dev, work,
                                     (size_t)lwork_for(n) * sizeof(T)); /* DOC_WORKSPACE */
        pdt_emu::check_device_access(name, "devIpiv", dev, ipiv,
                                     (size_t)std::min(m, n) * sizeof(int));
        pdt_emu::check_device_access(name, "devInfo", dev, info, sizeof(int));
        run_getrf(m, n, a, lda, ipiv, info);
    });
    return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
cusolverStatus_t getrs(const char *name, cusolverDnHandle_t h, cublasOperation_t trans, int n,
                       int nrhs, const T *a, int lda, const int *ipiv, T *b, int ldb, int *info)
{
    if (!h)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    /* "cusolverDn<t>getrs()", return values: CUSOLVER_STATUS_INVALID_VALUE for
     * n < 0, nrhs < 0, lda < max(1, n) or ldb < max(1, n).  Only CUBLAS_OP_N is
     * emulated (the backend uses no other): the rest is not supported here. */
    if (n < 0 || nrhs < 0 || lda < std::max(1, n) || ldb < std::max(1, n))
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (trans != CUBLAS_OP_N)
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    int dev;
    pdt_emu::stream *s = stream_of(h, name, &dev);
    if (emu_solver::fails(dev)) /* Note [fault injection] */
        return CUSOLVER_STATUS_INTERNAL_ERROR;
    pdt_emu::enqueue(s, name, [=]() {
        pdt_emu::check_device_access(name, "A", dev, a, span(n, n, lda) * sizeof(T));
        pdt_emu::check_device_access(name, "devIpiv", dev, ipiv, (size_t)n * sizeof(int));
        pdt_emu::check_device_access(name, "B", dev, b, span(n, nrhs, ldb) * sizeof(T));
        pdt_emu::check_device_access(name, "devInfo", dev, info, sizeof(int));
        run_getrs(n, nrhs, a, lda, ipiv, b, ldb, info);
    });
    return CUSOLVER_STATUS_SUCCESS;
}

/* "cusolverDn<t>potrf()": uplo must be CUBLAS_FILL_MODE_LOWER or UPPER. */
bool valid_uplo(cublasFillMode_t uplo)
{
    return uplo == CUBLAS_FILL_MODE_LOWER || uplo == CUBLAS_FILL_MODE_UPPER;
}

template <typename T>
cusolverStatus_t potrf_buffer(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, int lda,
                              int *lwork)
{
    if (!h)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || lda < std::max(1, n) || !valid_uplo(uplo) || !lwork)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *lwork = lwork_for(n);
    return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
cusolverStatus_t potrf(const char *name, cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *a,
                       int lda, T *work, int lwork, int *info)
{
    if (!h)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    /* "cusolverDn<t>potrf()", return values: CUSOLVER_STATUS_INVALID_VALUE for
     * n < 0, lda < max(1, n) or an invalid uplo. */
    if (n < 0 || lda < std::max(1, n) || !valid_uplo(uplo))
        return CUSOLVER_STATUS_INVALID_VALUE;
    check_lwork(name, DOC_WORKSPACE, "cusolverDn<t>potrf_bufferSize", lwork, lwork_for(n));
    int dev;
    pdt_emu::stream *s = stream_of(h, name, &dev);
    if (emu_solver::fails(dev)) /* Note [fault injection] */
        return CUSOLVER_STATUS_INTERNAL_ERROR;
    const bool upper = uplo == CUBLAS_FILL_MODE_UPPER;
    pdt_emu::enqueue(s, name, [=]() {
        pdt_emu::check_device_access(name, "A", dev, a, span(n, n, lda) * sizeof(T));
        pdt_emu::check_device_access(name, "Workspace", dev, work, (size_t)lwork * sizeof(T));
        pdt_emu::check_device_access(name, "devInfo", dev, info, sizeof(int));
        run_potrf(upper, n, a, lda, info);
    });
    return CUSOLVER_STATUS_SUCCESS;
}

/* "cusolverDn<t>potrfBatched()": the Cholesky factor of each matrix of Aarray
 * in place (Aarray: a device array of pointers, read when the routine runs:
 * emu_lapack::device_matrices), infoArray[i] (device) 0, or k when matrix i "is not positive
 * definite and the Cholesky factorization failed at row k" (potrf's test, so
 * a NaN pivot is not caught: run_potrf).  "The other part of A is used as a
 * workspace ... destroyed": the triangle not named by uplo (strictly) is
 * overwritten with NaN here, so that nothing may read it.  Return values:
 * CUSOLVER_STATUS_INVALID_VALUE for n < 0, lda < max(1, n), batchSize < 1 or an
 * invalid uplo (nothing queued: the infoArray[0] = -i that cuSOLVER also
 * writes then is not emulated, the backend never passes such arguments). */
template <typename T>
cusolverStatus_t potrf_batched(const char *name, cusolverDnHandle_t h, cublasFillMode_t uplo, int n,
                               T *Aarray[], int lda, int *infoArray, int batchSize)
{
    if (!h)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || lda < std::max(1, n) || batchSize < 1 || !valid_uplo(uplo))
        return CUSOLVER_STATUS_INVALID_VALUE;
    int dev;
    pdt_emu::stream *s = stream_of(h, name, &dev);
    if (emu_solver::fails(dev)) /* Note [fault injection] */
        return CUSOLVER_STATUS_INTERNAL_ERROR;
    const bool upper = uplo == CUBLAS_FILL_MODE_UPPER;
    T *const *array = Aarray;
    pdt_emu::enqueue(s, name, [=]() {
        std::vector<T *> a = emu_lapack::device_matrices(name, "Aarray", dev, array, batchSize,
                                                         span(n, n, lda));
        pdt_emu::check_device_access(name, "infoArray", dev, infoArray,
                                     (size_t)batchSize * sizeof(int));
        for (int b = 0; b < batchSize; b++) {
            run_potrf(upper, n, a[b], lda, infoArray + b);
            for (int j = 0; j < n; j++) /* the workspace triangle */
                for (int i = j + 1; i < n; i++)
                    (upper ? at(a[b], lda, i, j) : at(a[b], lda, j, i)) = (T)NAN;
        }
    });
    return CUSOLVER_STATUS_SUCCESS;
}

} // namespace

/* ---------------------------------------------------- helper functions */

/* "cusolverDnCreate()": a handle on the current device; INVALID_VALUE for NULL. */
EMU_CUSOLVER_API cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *handle)
{
    if (!handle)
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (pdt_emu::fault_due("cusolverDnCreate")) /* Note [fault injection] */
        return CUSOLVER_STATUS_ALLOC_FAILED;
    void *resources = nullptr;
    if (cudaMalloc(&resources, pdt_emu::kHandleBytes) != cudaSuccess)
        return CUSOLVER_STATUS_ALLOC_FAILED; /* Note [emulated handle memory] */
    cusolverDnContext *h = new cusolverDnContext;
    h->device = pdt_emu::current_device();
    h->stream = 0;
    h->resources = resources;
    *handle = h;
    return CUSOLVER_STATUS_SUCCESS;
}

/* "cusolverDnDestroy()": releases the handle's resources (after its work). */
EMU_CUSOLVER_API cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle)
{
    if (!handle)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    int previous = 0;
    if (cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(handle->device) == cudaSuccess) {
        (void)cudaDeviceSynchronize();
        (void)cudaFree(handle->resources);
        (void)cudaSetDevice(previous);
    }
    delete handle;
    return CUSOLVER_STATUS_SUCCESS;
}

/* "cusolverDnSetStream()": later calls run on streamId (NULL: the default stream). */
EMU_CUSOLVER_API cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle,
                                                      cudaStream_t streamId)
{
    if (!handle)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (streamId != 0 && streamId != cudaStreamLegacy && streamId != cudaStreamPerThread) {
        pdt_emu::stream *s = pdt_emu::resolve(streamId, "cusolverDnSetStream");
        if (pdt_emu::stream_device(s) != handle->device)
            pdt_emu::violation("cusolverDnSetStream", emu_solver::DOC_SET_STREAM,
                               "stream %p belongs to device %d, handle %p to device %d",
                               (void *)streamId, pdt_emu::stream_device(s), (void *)handle,
                               handle->device);
    }
    std::lock_guard<std::mutex> lock(handle->mu);
    handle->stream = streamId;
    return CUSOLVER_STATUS_SUCCESS;
}

/* "cusolverDnGetStream()": the stream set (NULL by default). */
EMU_CUSOLVER_API cusolverStatus_t cusolverDnGetStream(cusolverDnHandle_t handle,
                                                      cudaStream_t *streamId)
{
    if (!handle)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!streamId)
        return CUSOLVER_STATUS_INVALID_VALUE;
    std::lock_guard<std::mutex> lock(handle->mu);
    *streamId = handle->stream;
    return CUSOLVER_STATUS_SUCCESS;
}

/* ---------------------------------------------------- dense LAPACK */

EMU_CUSOLVER_API cusolverStatus_t cusolverDnSgetrf_bufferSize(cusolverDnHandle_t h, int m, int n,
                                                              float *A, int lda, int *Lwork)
{
    (void)A;
    return getrf_buffer<float>(h, m, n, lda, Lwork);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnDgetrf_bufferSize(cusolverDnHandle_t h, int m, int n,
                                                              double *A, int lda, int *Lwork)
{
    (void)A;
    return getrf_buffer<double>(h, m, n, lda, Lwork);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnSgetrf(cusolverDnHandle_t h, int m, int n, float *A,
                                                   int lda, float *Workspace, int *devIpiv,
                                                   int *devInfo)
{
    return getrf("cusolverDnSgetrf", h, m, n, A, lda, Workspace, devIpiv, devInfo);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnDgetrf(cusolverDnHandle_t h, int m, int n, double *A,
                                                   int lda, double *Workspace, int *devIpiv,
                                                   int *devInfo)
{
    return getrf("cusolverDnDgetrf", h, m, n, A, lda, Workspace, devIpiv, devInfo);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnSgetrs(cusolverDnHandle_t h, cublasOperation_t trans,
                                                   int n, int nrhs, const float *A, int lda,
                                                   const int *devIpiv, float *B, int ldb,
                                                   int *devInfo)
{
    return getrs("cusolverDnSgetrs", h, trans, n, nrhs, A, lda, devIpiv, B, ldb, devInfo);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnDgetrs(cusolverDnHandle_t h, cublasOperation_t trans,
                                                   int n, int nrhs, const double *A, int lda,
                                                   const int *devIpiv, double *B, int ldb,
                                                   int *devInfo)
{
    return getrs("cusolverDnDgetrs", h, trans, n, nrhs, A, lda, devIpiv, B, ldb, devInfo);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnSpotrf_bufferSize(cusolverDnHandle_t h,
                                                              cublasFillMode_t uplo, int n,
                                                              float *A, int lda, int *Lwork)
{
    (void)A;
    return potrf_buffer<float>(h, uplo, n, lda, Lwork);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnDpotrf_bufferSize(cusolverDnHandle_t h,
                                                              cublasFillMode_t uplo, int n,
                                                              double *A, int lda, int *Lwork)
{
    (void)A;
    return potrf_buffer<double>(h, uplo, n, lda, Lwork);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnSpotrf(cusolverDnHandle_t h, cublasFillMode_t uplo,
                                                   int n, float *A, int lda, float *Workspace,
                                                   int Lwork, int *devInfo)
{
    return potrf("cusolverDnSpotrf", h, uplo, n, A, lda, Workspace, Lwork, devInfo);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnDpotrf(cusolverDnHandle_t h, cublasFillMode_t uplo,
                                                   int n, double *A, int lda, double *Workspace,
                                                   int Lwork, int *devInfo)
{
    return potrf("cusolverDnDpotrf", h, uplo, n, A, lda, Workspace, Lwork, devInfo);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnSpotrfBatched(cusolverDnHandle_t h,
                                                          cublasFillMode_t uplo, int n,
                                                          float *Aarray[], int lda, int *infoArray,
                                                          int batchSize)
{
    return potrf_batched("cusolverDnSpotrfBatched", h, uplo, n, Aarray, lda, infoArray, batchSize);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnDpotrfBatched(cusolverDnHandle_t h,
                                                          cublasFillMode_t uplo, int n,
                                                          double *Aarray[], int lda, int *infoArray,
                                                          int batchSize)
{
    return potrf_batched("cusolverDnDpotrfBatched", h, uplo, n, Aarray, lda, infoArray, batchSize);
}
