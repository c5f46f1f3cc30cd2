/* cuda_solver.h - what cuda_solver.c shares with the other cuSOLVER users of the
 * CUDA backend (cuda_solver_eig.c: syevd, gesvd, geqrf, orgqr;
 * cuda_solver_batched.c: the batched small-matrix paths): the loaded table, one
 * call's setup (the device's handles bound to its stream, locked) and the
 * status check; the size
 * guard of cuSOLVER's 32-bit ("legacy") API, handle creation that survives a pool
 * holding the device's memory, and the check of a Cholesky factor's diagonal
 * (cuda_solver_check.cu).  Usable from C and C++. */
#ifndef PDT_CUDA_SOLVER_H
#define PDT_CUDA_SOLVER_H

#include <stdint.h>

#include <cuda_runtime.h>
#include <cusolverDn.h>

#include "cuda_check.h"
#include "cuda_ops.h"
#include "pdt_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pdt_cusolver_table {
    __typeof__(cusolverDnCreate) *create;
    __typeof__(cusolverDnDestroy) *destroy;
    __typeof__(cusolverDnSetStream) *set_stream;
    __typeof__(cusolverDnSgetrf_bufferSize) *sgetrf_buffer;
    __typeof__(cusolverDnDgetrf_bufferSize) *dgetrf_buffer;
    __typeof__(cusolverDnSgetrf) *sgetrf;
    __typeof__(cusolverDnDgetrf) *dgetrf;
    __typeof__(cusolverDnSgetrs) *sgetrs;
    __typeof__(cusolverDnDgetrs) *dgetrs;
    __typeof__(cusolverDnSpotrf_bufferSize) *spotrf_buffer;
    __typeof__(cusolverDnDpotrf_bufferSize) *dpotrf_buffer;
    __typeof__(cusolverDnSpotrf) *spotrf;
    __typeof__(cusolverDnDpotrf) *dpotrf;
    __typeof__(cusolverDnSpotrfBatched) *spotrf_batched; /* Note [batched small-matrix solvers] */
    __typeof__(cusolverDnDpotrfBatched) *dpotrf_batched;
    __typeof__(cusolverDnSsyevd_bufferSize) *ssyevd_buffer;
    __typeof__(cusolverDnDsyevd_bufferSize) *dsyevd_buffer;
    __typeof__(cusolverDnSsyevd) *ssyevd;
    __typeof__(cusolverDnDsyevd) *dsyevd;
    __typeof__(cusolverDnSgesvd_bufferSize) *sgesvd_buffer;
    __typeof__(cusolverDnDgesvd_bufferSize) *dgesvd_buffer;
    __typeof__(cusolverDnSgesvd) *sgesvd;
    __typeof__(cusolverDnDgesvd) *dgesvd;
    __typeof__(cusolverDnSgeqrf_bufferSize) *sgeqrf_buffer;
    __typeof__(cusolverDnDgeqrf_bufferSize) *dgeqrf_buffer;
    __typeof__(cusolverDnSgeqrf) *sgeqrf;
    __typeof__(cusolverDnDgeqrf) *dgeqrf;
    __typeof__(cusolverDnSorgqr_bufferSize) *sorgqr_buffer;
    __typeof__(cusolverDnDorgqr_bufferSize) *dorgqr_buffer;
    __typeof__(cusolverDnSorgqr) *sorgqr;
    __typeof__(cusolverDnDorgqr) *dorgqr;
} pdt_cusolver_table;
extern pdt_cusolver_table pdt_cusolver; /* filled when pdt_cusolver_library loads */

struct solver_slot;
/* What one entry needs: the device current (through guard), its stream, the
 * loaded table, and its slot locked with the handle bound to the stream.
 * pdt_solver_end unlocks and restores the device. */
typedef struct pdt_solver_call {
    pdt_cuda_guard guard;
    cudaStream_t stream;
    struct solver_slot *slot;
    cusolverDnHandle_t handle; /* the slot's, when slot is not NULL */ /* locked when not NULL */
} pdt_solver_call;
/* Before pdt_solver_begin: pdt_solver_end may then be called whether it ran or not. */
#define PDT_SOLVER_CALL_INIT                                                                       \
    {                                                                                              \
        PDT_CUDA_GUARD_INIT, NULL, NULL, NULL                                                      \
    }

/* The device's cuBLAS handle for the batched LU (Note [batched small-matrix
 * solvers]), kept in c's slot beside the cuSOLVER handle: created on first use
 * (Note [handle creation retry]) and bound to c's stream; its table in *t. */
struct pdt_cublas_table; /* cuda_blas.h, C only */
pdt_status pdt_solver_blas(pdt_solver_call *c, int device, const struct pdt_cublas_table **t,
                           cublasHandle_t *blas);

/* n > INT_MAX is refused (cuSOLVER's ints); loads cuSOLVER, locks the slot. */
pdt_status pdt_solver_begin(pdt_solver_call *c, const pdt_tensor *t, const char *what, int64_t n);
void pdt_solver_end(pdt_solver_call *c);
/* Records a cuSOLVER failure of `call` at file:line. */
pdt_status pdt_cusolver_fail(cusolverStatus_t s, const char *call, const char *file, int line);
size_t pdt_solver_elem_size(const pdt_tensor *t); /* 8 for float64, else 4 */

/* Needs `pdt_status st` and a `fail:` label. */
#define PDT_CUSOLVER_CHECK(call)                                                                   \
    do {                                                                                           \
        cusolverStatus_t pdt_cusolver_st_ = (call);                                                \
        if (pdt_cusolver_st_ != CUSOLVER_STATUS_SUCCESS) {                                         \
            st = pdt_cusolver_fail(pdt_cusolver_st_, #call, __FILE__, __LINE__);                   \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* Note [cuSOLVER's 32-bit sizes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * cusolverDn<t>getrf/getrs/potrf (and syevd, gesvd, geqrf, orgqr:
 * cuda_solver_eig.c) take every size as an int, and index a matrix
 * as lda * n elements in int arithmetic: a 46341 x 46341 matrix (2^31 + 4
 * elements, 8.6 GB in float32, which fits on one GPU) is beyond them although
 * n itself fits.  So the guard is on elements, not on n: rows * cols of every
 * matrix a call is given (getrf/potrf: n * n; getrs: n * n and n * nrhs) must
 * be at most INT32_MAX (syevd: n * n; gesvd: m * n and U's m * m or m * n;
 * geqrf/orgqr: m * n), and so must the workspace each _bufferSize call reports
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

/* Note [batched small-matrix solvers]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * cusolverDn<t>getrf, getrs and potrf take one matrix per call, so a batch
 * of small matrices is one call each, and for linalg.inv of a (65536, 3, 3)
 * tensor the 131,072 launches (getrf, then getrs against the identity) cost
 * far more than the arithmetic.  The batched forms do a whole batch in one
 * call: cublas<t>getrfBatched and cublas<t>getrsBatched (cuBLAS Library User
 * Guide, "BLAS-like Extension": "intended to be used for matrices of small
 * sizes where the launch overhead is a significant factor") and
 * cusolverDn<t>potrfBatched (cuSOLVER Library, "cuSolverDN: dense LAPACK
 * Function Reference").  They take a device array of pointers, one per
 * matrix, which a kernel writes on the device's stream
 * (pdt_cuda_pointer_array: no host-to-device copy), and need no workspace.
 * The cuBLAS handle is the solver slot's own, not cuda_gemm.c's, so its math
 * mode stays CUBLAS_DEFAULT_MATH (no TF32) whatever allow_tf32 says.
 * Their results mean what the one-matrix routines' do: getrfBatched's pivots
 * are LAPACK's (1-based row interchanges, matrix i's n of them at
 * PivotArray + i n, as our pivots tensor lays them out), its infoArray (device
 * memory) holds per matrix 0 or the first k with U(k, k) exactly zero, the
 * factorization completed; potrfBatched's infoArray the order of the leading
 * minor that is not positive-definite.  So info stays on the device as
 * before and the Python layer's one counted read-back (only to raise) is
 * unchanged; getrsBatched's own info is a host int that reports invalid
 * arguments when the call returns (no device copy).  potrfBatched destroys
 * the triangle it does not factor ("used as a workspace"), which the Python
 * layer discards (tril/triu) anyway; the NaN pivot pass (Note [non-finite
 * Cholesky pivots]) runs after either form.
 *
 * The rule (pdt_solver_use_batched): batch >= 2 and n <= 32, and n * batch
 * within an int (batchSize and the pivot array's indexing are ints).  32 is
 * the size cuBLAS's batched small-matrix kernels are written for (its batched
 * inverse, cublas<t>matinvBatched, documents "n <= 32" as its limit);
 * larger matrices have enough work per call for cuSOLVER's blocked routines
 * and their workspace, and a single matrix is one call either way.  linalg.inv
 * stays an LU solve against the identity (getrsBatched with nrhs = n), so it
 * needs neither getriBatched nor matinvBatched.  Either path's factors solve
 * with either path.  The emulated device shows the call count (Note [counting
 * queued operations] in emulator/emu_stream.cpp); only a GPU shows the speed. */
#define PDT_SOLVER_BATCHED_MAX_N 32

/* 1 when a batch of `batch` n x n matrices takes the batched routines (Note
 * [batched small-matrix solvers]). */
int pdt_solver_use_batched(int64_t n, int64_t batch);

/* The batched forms of cuda_solver.c's LU (pivots not NULL) or Cholesky
 * factorization, and of its LU solve, on c (begun: the slot locked). */
pdt_status pdt_solver_factor_batched(pdt_solver_call *c, const pdt_tensor *a,
                                     const pdt_tensor *pivots, int upper, const pdt_tensor *info);
pdt_status pdt_solver_solve_batched(pdt_solver_call *c, const pdt_tensor *lu,
                                    const pdt_tensor *pivots, const pdt_tensor *b);

/* Queues, on `stream` (the device current), a kernel that writes out[i] =
 * base + i * stride (bytes) for i < count: the device array of pointers the
 * batched routines read. */
pdt_status pdt_cuda_pointer_array(void **out, void *base, size_t stride, int64_t count,
                                  cudaStream_t stream);

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

/* The failure of a handle's creation (call, e.g. "cublasCreate", of library
 * "cuBLAS") on logical device `device`, after Note [handle creation retry]:
 * PDT_ERR_OOM when out_of_memory (its ALLOC_FAILED status), else
 * PDT_ERR_BACKEND; the message names the device, the call and its status. */
pdt_status pdt_handle_create_fail(int out_of_memory, const char *library, const char *call,
                                  int device, const char *status, int code);

/* cusolverDnCreate through `create` (the loaded entry), with Note [handle
 * creation retry]; the device is current.  A failure after the retry names
 * cusolverDnCreate, its status and cuda:<device>; ALLOC_FAILED is PDT_ERR_OOM. */
pdt_status pdt_cusolver_create(__typeof__(cusolverDnCreate) *create, cusolverDnHandle_t *handle,
                               int device);

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
 * [[4, 1], [1, inf]] is [[2, 0], [0.5, inf]], info 0), where potrf gives an
 * infinite pivot: LAPACK's and the emulated device's do, but cuSOLVER's (an
 * H200, CUDA 13.0) gives info 2 there, a NaN or its own failure; that
 * difference is kept (the input, which would tell them apart, is overwritten)
 * and tests/test_linalg_solver_edges.py states it.  The LU factorization
 * needs no such pass: PyTorch reports only exactly zero pivots there (a NaN
 * matrix solves to NaN), which getrf already does. */

/* Queues, on `stream` (the device current), the pass of Note [non-finite
 * Cholesky pivots] over the batch of n x n factors at a (float32 when !d,
 * float64 when d; matrix b at a + b*n*n elements): info[b] (device memory)
 * becomes the smaller of itself, where not 0, and the first 1-based j with
 * a(j, j) NaN (the same as "when 0": cuda_solver_check.cu says why). */
pdt_status pdt_cuda_nan_pivot_info(const void *a, int d, int64_t n, int64_t batch, int *info,
                                   cudaStream_t stream);

/* Note [NaN singular values]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * LAPACK's gesdd (the CPU's SVD) returns info -4 for a matrix with a NaN, and
 * linalg.svd raises LinAlgError there ("contained non-finite values").
 * cuSOLVER's gesvd returns info 0 and NaN singular values (an H200, CUDA
 * 13.0).  For the same error on every device, after gesvd a matrix whose info
 * is 0 and whose singular values hold a NaN gets info -4.  A NaN anywhere in A
 * reaches its singular values (they come from the bidiagonal form, every entry
 * of which depends on every column). */
/* Queues on `stream`: info[b] (device memory) = code where info[b] is 0 and
 * a value of row b of the batch x n values at v (float32, or float64 when d)
 * is NaN. */
pdt_status pdt_cuda_nan_values_info(const void *v, int d, int64_t n, int64_t batch, int *info,
                                    int code, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* PDT_CUDA_SOLVER_H */
