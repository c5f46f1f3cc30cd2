/* cuda_solver.h - what the CUDA backend's cuSOLVER files share: the size guard
 * of cuSOLVER's 32-bit ("legacy") API, handle creation that survives a pool
 * holding the device's memory, and the check of a Cholesky factor's diagonal
 * (cuda_solver_check.cu).  Usable from C and C++.
 */
#ifndef PDT_CUDA_SOLVER_H
#define PDT_CUDA_SOLVER_H

#include <stdint.h>

#include <cusolverDn.h>

#include "pdt_status.h"
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Note [cuSOLVER's 32-bit sizes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * cusolverDn<t>getrf/getrs/potrf take every size as an int, and index a matrix
 * as lda * n elements in int arithmetic: a 46341 x 46341 matrix (2^31 + 4
 * elements, 8.6 GB in float32, which fits on one GPU) is beyond them although
 * n itself fits.  So the guard is on elements, not on n: rows * cols of every
 * matrix a call is given (getrf/potrf: n * n; getrs: n * n and n * nrhs) must
 * be at most INT32_MAX, and so must the workspace each _bufferSize call reports
 * (an int Lwork that went negative has overflowed: CuPy #2351).  Past them the
 * call is refused, naming the sizes and the device, before anything is
 * queued (the 64-bit cusolverDnX* API is the way beyond them). */

/* PDT_OK when a rows x cols matrix is within cuSOLVER's 32-bit API (Note
 * [cuSOLVER's 32-bit sizes]), else PDT_ERR_VALUE for op `what` on cuda:device;
 * `name` names the matrix in the message ("each matrix"). */
pdt_status pdt_cusolver_check_elements(const char *what, int device, const char *name, int64_t rows,
                                       int64_t cols);

/* PDT_OK when the workspace `lwork` (elements) that `call` reported for an
 * n x n matrix is usable (0 <= lwork), else PDT_ERR_VALUE naming them. */
pdt_status pdt_cusolver_check_lwork(const char *what, int device, const char *call, int lwork,
                                    int64_t n);

/* Note [handle creation retry]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * cusolverDnCreate and cublasCreate allocate device memory with plain
 * cudaMalloc, outside our pool; but the pool keeps what was freed (Note [pool
 * release threshold] in cuda_backend.c), so after a large tensor was freed the
 * device can look full to them although nothing is in use: they return
 * CUSOLVER_STATUS_ALLOC_FAILED / CUBLAS_STATUS_ALLOC_FAILED (or NOT_INITIALIZED,
 * which both report for a failed resource allocation).  On those, as
 * cuda_alloc does (Note [retry after trim]), the device's stream is waited
 * for, the pool's unused memory is given back, and creation is tried once
 * more.  pdt_cuda_release_for_retry does the middle step. */

/* Clears CUDA's last error, waits for logical device `device`'s stream and
 * gives its pool's unused memory back (empty_cache). */
void pdt_cuda_release_for_retry(int device);

/* cusolverDnCreate through `create` (the loaded entry), with Note [handle
 * creation retry]; the device is current. */
cusolverStatus_t pdt_cusolver_create(__typeof__(cusolverDnCreate) *create,
                                     cusolverDnHandle_t *handle, int device);

/* Note [non-finite Cholesky pivots]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * LAPACK's reference dpotf2 stops at a NaN pivot (DISNAN(AJJ)) and reports it
 * in info, as it does a non-positive one; PyTorch's CPU linalg.cholesky
 * therefore raises for a NaN input ("the leading minor of order k is not
 * positive-definite").  OpenBLAS's potrf and cuSOLVER's potrf only test
 * ajj <= 0, which a NaN fails, so they carry on and return info 0 with a NaN
 * factor.  pydevtensor keeps PyTorch's contract on every backend: after
 * potrf, a factor whose info is 0 gets info = the first j (1-based) where
 * L(j, j) is NaN.  A NaN pivot makes L(j, j) NaN, and NaN only spreads
 * forwards, so that is the first NaN pivot, the one LAPACK reports.  An
 * infinite diagonal is left alone, as PyTorch leaves it (cholesky of
 * [[4, 1], [1, inf]] is [[2, 0], [0.5, inf]], info 0).  The LU factorization
 * needs no such pass: PyTorch reports only exactly zero pivots there (a NaN
 * matrix solves to NaN), which getrf already does. */

/* Queues, on `stream` (the device current), the pass of Note [non-finite
 * Cholesky pivots] over the batch of n x n factors at a (float32 when !d,
 * float64 when d; matrix b at a + b*n*n elements): info[b] (device memory)
 * becomes the smaller of itself, where not 0, and the first 1-based j with
 * a(j, j) NaN (the same as "when 0": cuda_solver_check.cu says why). */
pdt_status pdt_cuda_nan_pivot_info(const void *a, int d, int64_t n, int64_t batch, int *info,
                                   cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* PDT_CUDA_SOLVER_H */
