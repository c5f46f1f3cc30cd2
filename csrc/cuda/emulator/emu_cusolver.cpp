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

#include "emu.h"
#include "emu_cusolver.h"

namespace {

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

/* "cusolverDn<t>getrf()": P A = L U with partial pivoting, L unit lower, U
 * upper, over A; devIpiv[i] (1-based) the row swapped with row i; devInfo 0,
 * or i when U(i, i) is exactly zero (the factorization still completes, as
 * LAPACK's: the first such i is reported).  The pivot is the first entry of
 * largest magnitude in the column (LAPACK's idamax). */
template <typename T> void run_getrf(int m, int n, T *a, int lda, int *ipiv, int *info)
{
    *info = 0;
    for (int j = 0; j < std::min(m, n); j++) {
        int p = j;
        for (int i = j + 1; i < m; i++)
            if (fabs((double)at(a, lda, i, j)) > fabs((double)at(a, lda, p, j)))
                p = i;
        ipiv[j] = p + 1;
        if (at(a, lda, p, j) != T(0)) {
            if (p != j)
                for (int c = 0; c < n; c++)
                    std::swap(at(a, lda, j, c), at(a, lda, p, c));
            T inv = T(1) / at(a, lda, j, j);
            for (int i = j + 1; i < m; i++)
                at(a, lda, i, j) *= inv;
        } else if (*info == 0) {
            *info = j + 1;
        }
        for (int c = j + 1; c < n; c++) {
            T f = at(a, lda, j, c);
            for (int i = j + 1; i < m; i++)
                at(a, lda, i, c) -= at(a, lda, i, j) * f;
        }
    }
}

/* "cusolverDn<t>getrs()" with CUBLAS_OP_N: B = U^-1 L^-1 P B for each of nrhs
 * columns, from getrf's output; devInfo 0 (argument errors are returned as a
 * status before anything is queued). */
template <typename T>
void run_getrs(int n, int nrhs, const T *a, int lda, const int *ipiv, T *b, int ldb, int *info)
{
    for (int c = 0; c < nrhs; c++) {
        T *x = b + (int64_t)c * ldb;
        for (int i = 0; i < n; i++) /* the row swaps, in order */
            if (ipiv[i] - 1 != i)
                std::swap(x[i], x[ipiv[i] - 1]);
        for (int i = 0; i < n; i++) /* L y = P b, L unit lower */
            for (int r = i + 1; r < n; r++)
                x[r] -= at(a, lda, r, i) * x[i];
        for (int i = n - 1; i >= 0; i--) { /* U x = y */
            x[i] /= at(a, lda, i, i);
            for (int r = 0; r < i; r++)
                x[r] -= at(a, lda, r, i) * x[i];
        }
    }
    *info = 0;
}

/* "cusolverDn<t>potrf()": A = L L^T (CUBLAS_FILL_MODE_LOWER, only the lower
 * triangle read and written) or U^T U (UPPER); devInfo 0, or i when "the
 * leading minor of order i is not positive definite" (section
 * "cusolverDn<t>potrf()"), which is tested as ajj <= 0 and stops the
 * factorization there.  A NaN pivot is not caught by that test, and cuSOLVER
 * does not test for it (unlike LAPACK's reference dpotf2, DISNAN(AJJ)): the
 * factorization carries on with NaN and devInfo stays 0, as real cuSOLVER
 * returns (PyTorch issue #64818).  So the backend's own pass over the
 * diagonal (Note [non-finite Cholesky pivots] in cuda_solver.h) is what
 * reports it, here as on a GPU. */
template <typename T> void run_potrf(bool upper, int n, T *a, int lda, int *info)
{
    *info = 0;
    /* element (i, j) of the triangle in use, i >= j: L(i, j), or U(j, i) */
    auto el = [&](int i, int j) -> T & { return upper ? at(a, lda, j, i) : at(a, lda, i, j); };
    for (int j = 0; j < n; j++) {
        T d = el(j, j);
        for (int k = 0; k < j; k++)
            d -= el(j, k) * el(j, k);
        if (d <= T(0)) { /* false for NaN: see above */
            el(j, j) = d;
            *info = j + 1;
            return;
        }
        d = sqrt(d);
        el(j, j) = d;
        for (int i = j + 1; i < n; i++) {
            T s = el(i, j);
            for (int k = 0; k < j; k++)
                s -= el(i, k) * el(j, k);
            el(i, j) = s / d;
        }
    }
}

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
    const bool upper = uplo == CUBLAS_FILL_MODE_UPPER;
    pdt_emu::enqueue(s, name, [=]() {
        pdt_emu::check_device_access(name, "A", dev, a, span(n, n, lda) * sizeof(T));
        pdt_emu::check_device_access(name, "Workspace", dev, work, (size_t)lwork * sizeof(T));
        pdt_emu::check_device_access(name, "devInfo", dev, info, sizeof(int));
        run_potrf(upper, n, a, lda, info);
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
