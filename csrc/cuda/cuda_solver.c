/* cuda_solver.c - the CUDA backend's LU (getrf/getrs) and Cholesky (potrf)
 * through cuSOLVER's dense API (cusolverDn), loaded on first use as cuBLAS is
 * (cuda_blas.c, pdt_library.h).  Every matrix is stored by columns (Note
 * [column-major factorizations] in pdt_linalg.h), as cuSOLVER takes it.
 *
 * One cusolverDn handle per physical GPU, created on first use and bound to the
 * device's one stream (Note [one stream per device] in cuda_backend.c), under
 * the slot's lock, as cuda_gemm.c does with cuBLAS: the factorizations are
 * queued after the copies that made their inputs and before whatever reads
 * their results, with no synchronisation.  A batch of small matrices is one
 * batched call (cuda_solver_batched.c, Note [batched small-matrix solvers]
 * in cuda_solver.h); otherwise one call per matrix, all queued; the workspace
 * (cusolverDn<t>getrf_bufferSize / potrf_bufferSize) is one scratch block
 * (pdt_scratch_alloc: counted against the device's limit) reused by every
 * call and freed in stream order after the last.  info stays on the device:
 * the Python layer reads it back (one counted copy) only to raise.  After potrf
 * a kernel gives a NaN pivot its info there too (Note [non-finite Cholesky
 * pivots] in cuda_solver.h).  Sizes past cuSOLVER's 32-bit API are refused
 * (Note [cuSOLVER's 32-bit sizes]), and the handle is created with Note
 * [handle creation retry].
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* pthread_* under -std=c11 */
#endif

#include <limits.h>
#include <pthread.h>
#include <stdio.h>

#include <cusolverDn.h>

#include "cuda_blas.h"
#include "cuda_check.h"
#include "cuda_library.h"
#include "cuda_ops.h"
#include "cuda_solver.h"
#include "pdt_runtime.h" /* pdt_scratch_alloc, pdt_memory_empty_cache */

#define PDT_CUSOLVER_SONAME "libcusolver.so." PDT_CUDA_STR(CUSOLVER_VER_MAJOR)
/* NVIDIA's cuSOLVER wheel: unsuffixed for CUDA 13, nvidia-cusolver-cu12 before. */
#if CUDART_VERSION >= 13000
#define PDT_CUSOLVER_WHEEL "nvidia-cusolver"
#else
#define PDT_CUSOLVER_WHEEL "nvidia-cusolver-cu12"
#endif

pdt_cusolver_table pdt_cusolver;
static const pdt_library_symbol cusolver_symbols[] = {
    {"cusolverDnSgetrf", (void **)&pdt_cusolver.sgetrf}, /* first: its address names the file */
    {"cusolverDnCreate", (void **)&pdt_cusolver.create},
    {"cusolverDnDestroy", (void **)&pdt_cusolver.destroy},
    {"cusolverDnSetStream", (void **)&pdt_cusolver.set_stream},
    {"cusolverDnSgetrf_bufferSize", (void **)&pdt_cusolver.sgetrf_buffer},
    {"cusolverDnDgetrf_bufferSize", (void **)&pdt_cusolver.dgetrf_buffer},
    {"cusolverDnDgetrf", (void **)&pdt_cusolver.dgetrf},
    {"cusolverDnSgetrs", (void **)&pdt_cusolver.sgetrs},
    {"cusolverDnDgetrs", (void **)&pdt_cusolver.dgetrs},
    {"cusolverDnSpotrf_bufferSize", (void **)&pdt_cusolver.spotrf_buffer},
    {"cusolverDnDpotrf_bufferSize", (void **)&pdt_cusolver.dpotrf_buffer},
    {"cusolverDnSpotrf", (void **)&pdt_cusolver.spotrf},
    {"cusolverDnDpotrf", (void **)&pdt_cusolver.dpotrf},
    {"cusolverDnSpotrfBatched", (void **)&pdt_cusolver.spotrf_batched},
    {"cusolverDnDpotrfBatched", (void **)&pdt_cusolver.dpotrf_batched},
    {"cusolverDnSsyevd_bufferSize", (void **)&pdt_cusolver.ssyevd_buffer},
    {"cusolverDnDsyevd_bufferSize", (void **)&pdt_cusolver.dsyevd_buffer},
    {"cusolverDnSsyevd", (void **)&pdt_cusolver.ssyevd},
    {"cusolverDnDsyevd", (void **)&pdt_cusolver.dsyevd},
    {"cusolverDnSgesvd_bufferSize", (void **)&pdt_cusolver.sgesvd_buffer},
    {"cusolverDnDgesvd_bufferSize", (void **)&pdt_cusolver.dgesvd_buffer},
    {"cusolverDnSgesvd", (void **)&pdt_cusolver.sgesvd},
    {"cusolverDnDgesvd", (void **)&pdt_cusolver.dgesvd},
    {"cusolverDnSgeqrf_bufferSize", (void **)&pdt_cusolver.sgeqrf_buffer},
    {"cusolverDnDgeqrf_bufferSize", (void **)&pdt_cusolver.dgeqrf_buffer},
    {"cusolverDnSgeqrf", (void **)&pdt_cusolver.sgeqrf},
    {"cusolverDnDgeqrf", (void **)&pdt_cusolver.dgeqrf},
    {"cusolverDnSorgqr_bufferSize", (void **)&pdt_cusolver.sorgqr_buffer},
    {"cusolverDnDorgqr_bufferSize", (void **)&pdt_cusolver.dorgqr_buffer},
    {"cusolverDnSorgqr", (void **)&pdt_cusolver.sorgqr},
    {"cusolverDnDorgqr", (void **)&pdt_cusolver.dorgqr},
};
pdt_library pdt_cusolver_library = PDT_LIBRARY("cuSOLVER", PDT_CUSOLVER_SONAME,
                                               PDT_CUDA_INSTALL(PDT_CUSOLVER_WHEEL) PDT_CUDA_EXTRA,
                                               cusolver_symbols,
                                               sizeof cusolver_symbols / sizeof cusolver_symbols[0],
                                               PDT_CUDA_LIBRARY_CHECK, PDT_CUDA_LOCAL_DIR,
                                               PDT_CUDA_NO_SYSTEM);

struct solver_slot {
    pthread_mutex_t lock;      /* guards the fields below and calls on the handle */
    cusolverDnHandle_t handle; /* NULL until the device's first factorization */
    cudaStream_t stream;       /* the stream the handle is bound to */
    cublasHandle_t blas;       /* NULL until the device's first batched LU */
    cudaStream_t blas_stream;  /* the stream blas is bound to */
};

static struct solver_slot slots[PDT_MAX_DEVICES]; /* by physical device */
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;

static void slots_init(void)
{
    for (int i = 0; i < PDT_MAX_DEVICES; i++)
        pthread_mutex_init(&slots[i].lock, NULL);
}

/* Records a cuSOLVER failure of `call` at file:line; CUDA's last error is
 * cleared (Note [clearing CUDA errors] in cuda_check.h). */
/* cuSOLVER's statuses (cusolver_common.h) have no string function: the names of
 * those its dense API returns (cuSOLVER Library, "cusolverStatus_t"). */
static const char *cusolver_status_name(cusolverStatus_t s)
{
    switch (s) {
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
        return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "an error status";
    }
}

pdt_status pdt_cusolver_fail(cusolverStatus_t s, const char *call, const char *file, int line)
{
    int device = -1;
    (void)cudaGetLastError();
    if (cudaGetDevice(&device) != cudaSuccess) /* the handle's device is current */
        (void)cudaGetLastError();
    return pdt_fail(s == CUSOLVER_STATUS_ALLOC_FAILED ? PDT_ERR_OOM : PDT_ERR_BACKEND,
                    "cuSOLVER error on cuda:%d: %s returned %s (%d) at %s:%d",
                    device < 0 ? -1 : pdt_logical_index(PDT_CUDA, device), call,
                    cusolver_status_name(s), (int)s, file, line);
}

pdt_status pdt_cusolver_check_elements(const char *what, int device, const char *name, int64_t rows,
                                       int64_t cols)
{
    if (rows < 0 || cols < 0 || (cols > 0 && rows > INT_MAX / cols))
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: %s is %lld x %lld (%.0f elements), more than the %d elements "
                        "cuSOLVER's 32-bit API indexes (on cuda:%d)",
                        what, name, (long long)rows, (long long)cols, (double)rows * (double)cols,
                        INT_MAX, device);
    return PDT_OK;
}

pdt_status pdt_cusolver_check_lwork(const char *what, int device, const char *call, int lwork,
                                    int64_t n)
{
    if (lwork < 0)
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: %s reported a workspace of %d elements for n = %lld: its 32-bit "
                        "size overflowed (on cuda:%d)",
                        what, call, lwork, (long long)n, device);
    return PDT_OK;
}

void pdt_cuda_release_for_retry(int device)
{
    (void)cudaGetLastError(); /* the failure is handled here */
    pdt_device d = {PDT_CUDA, device};
    (void)pdt_memory_empty_cache(d); /* synchronises the stream, trims the pool */
}

pdt_status pdt_handle_create_fail(int out_of_memory, const char *library, const char *call,
                                  int device, const char *status, int code)
{
    (void)cudaGetLastError(); /* Note [clearing CUDA errors] in cuda_check.h */
    return pdt_fail(out_of_memory ? PDT_ERR_OOM : PDT_ERR_BACKEND,
                    "%s%s could not make its handle on cuda:%d: %s returned %s (%d), also after "
                    "the cached memory was freed",
                    out_of_memory ? "CUDA out of memory: " : "", library, device, call, status,
                    code);
}

pdt_status pdt_cusolver_create(__typeof__(cusolverDnCreate) *create, cusolverDnHandle_t *handle,
                               int device)
{
    cusolverStatus_t s = create(handle);
    if (s == CUSOLVER_STATUS_ALLOC_FAILED || s == CUSOLVER_STATUS_NOT_INITIALIZED) {
        pdt_cuda_release_for_retry(device);
        s = create(handle);
    }
    if (s == CUSOLVER_STATUS_SUCCESS)
        return PDT_OK;
    *handle = NULL;
    return pdt_handle_create_fail(s == CUSOLVER_STATUS_ALLOC_FAILED, "cuSOLVER", "cusolverDnCreate",
                                  device, cusolver_status_name(s), (int)s);
}

pdt_status pdt_solver_begin(pdt_solver_call *c, const pdt_tensor *t, const char *what, int64_t n)
{
    pdt_status st;
    c->guard = (pdt_cuda_guard)PDT_CUDA_GUARD_INIT;
    c->slot = NULL;
    if (n > INT_MAX) /* the callers check elements: Note [cuSOLVER's 32-bit sizes] */
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: %lld rows or columns is more than cuSOLVER's 32-bit "
                        "integers hold (on cuda:%d)",
                        what, (long long)n, t->device.index);
    if ((st = pdt_cuda_stream(&c->guard, t->device.index, &c->stream)) != PDT_OK)
        return st;
    if ((st = pdt_library_need(&pdt_cusolver_library)) != PDT_OK)
        return st;
    pthread_once(&slots_once, slots_init);
    struct solver_slot *s = &slots[c->guard.current]; /* the physical device, now current */
    pthread_mutex_lock(&s->lock);
    c->slot = s;
    if (!s->handle) { /* s's device is current: pdt_cuda_stream set it */
        if ((st = pdt_cusolver_create(pdt_cusolver.create, &s->handle, t->device.index)) != PDT_OK)
            goto fail;
        s->stream = NULL;
    }
    if (s->stream != c->stream) {
        PDT_CUSOLVER_CHECK(pdt_cusolver.set_stream(s->handle, c->stream));
        s->stream = c->stream;
    }
    c->handle = s->handle;
fail:
    return st;
}

pdt_status pdt_solver_blas(pdt_solver_call *c, int device, const pdt_cublas_table **table,
                           cublasHandle_t *blas)
{
    const pdt_cublas_table *t = NULL;
    struct solver_slot *s = c->slot;
    pdt_status st = pdt_cublas(&t);
    if (st != PDT_OK)
        return st;
    if (!s->blas) { /* s's device is current: pdt_solver_begin set it */
        if ((st = pdt_cublas_create(t, &s->blas, device)) != PDT_OK)
            goto fail;
        s->blas_stream = NULL;
    }
    if (s->blas_stream != c->stream) {
        PDT_CUBLAS_CHECK(t->set_stream(s->blas, c->stream));
        s->blas_stream = c->stream;
    }
    *table = t;
    *blas = s->blas;
fail:
    return st;
}

void pdt_solver_end(pdt_solver_call *c)
{
    if (c->slot)
        pthread_mutex_unlock(&c->slot->lock);
    pdt_cuda_guard_exit(&c->guard);
}

size_t pdt_solver_elem_size(const pdt_tensor *t) { return t->dtype == PDT_FLOAT64 ? 8 : 4; }

/* The workspace size of getrf (lu) or potrf, in elements. */
static cusolverStatus_t buffer_size(cusolverDnHandle_t h, int d, int lu, cublasFillMode_t uplo,
                                    int n, void *m, int *lwork)
{
    if (lu)
        return d ? pdt_cusolver.dgetrf_buffer(h, n, n, (double *)m, n, lwork)
                 : pdt_cusolver.sgetrf_buffer(h, n, n, (float *)m, n, lwork);
    return d ? pdt_cusolver.dpotrf_buffer(h, uplo, n, (double *)m, n, lwork)
             : pdt_cusolver.spotrf_buffer(h, uplo, n, (float *)m, n, lwork);
}

/* One getrf (ipiv not NULL) or potrf of the n x n matrix m, queued. */
static cusolverStatus_t factor_one(cusolverDnHandle_t h, int d, cublasFillMode_t uplo, int n,
                                   void *m, void *work, int lwork, int *ipiv, int *info)
{
    if (ipiv)
        return d ? pdt_cusolver.dgetrf(h, n, n, (double *)m, n, (double *)work, ipiv, info)
                 : pdt_cusolver.sgetrf(h, n, n, (float *)m, n, (float *)work, ipiv, info);
    return d ? pdt_cusolver.dpotrf(h, uplo, n, (double *)m, n, (double *)work, lwork, info)
             : pdt_cusolver.spotrf(h, uplo, n, (float *)m, n, (float *)work, lwork, info);
}

/* LU (pivots not NULL) or Cholesky of each matrix of a, in place, one call
 * per matrix, on c: one workspace for the batch, each call queued. */
static pdt_status factor_each(pdt_solver_call *c, const pdt_tensor *a, const pdt_tensor *pivots,
                              int upper, const pdt_tensor *info)
{
    const int64_t n = a->shape[a->ndim - 1], batch = pdt_tensor_numel(a) / (n * n);
    const int d = a->dtype == PDT_FLOAT64, ni = (int)n;
    const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    char *m = pdt_tensor_ptr(a);
    int *ipiv = pivots ? (int *)pdt_tensor_ptr(pivots) : NULL;
    int *inf = (int *)pdt_tensor_ptr(info);
    void *work = NULL;
    size_t bytes = 0;
    int lwork = 0;
    pdt_status st = PDT_OK;
    PDT_CUSOLVER_CHECK(buffer_size(c->handle, d, pivots != NULL, uplo, ni, m, &lwork));
    if ((st = pdt_cusolver_check_lwork(pivots ? "lu_factor" : "cholesky", a->device.index,
                                       pivots ? "getrf_bufferSize" : "potrf_bufferSize", lwork,
                                       n)) != PDT_OK)
        goto fail;
    bytes = (size_t)(lwork > 0 ? lwork : 1) * pdt_solver_elem_size(a);
    if ((st = pdt_scratch_alloc(a->device, bytes, &work)) != PDT_OK)
        goto fail;
    for (int64_t b = 0; b < batch; b++) {
        cusolverStatus_t s = factor_one(c->handle, d, uplo, ni,
                                        m + (size_t)(b * n * n) * pdt_solver_elem_size(a), work,
                                        lwork, ipiv ? ipiv + b * n : NULL, inf + b);
        if (s != CUSOLVER_STATUS_SUCCESS) { /* the message names the cuSOLVER function */
            st = pdt_cusolver_fail(s,
                                   pivots ? (d ? "cusolverDnDgetrf" : "cusolverDnSgetrf")
                                          : (d ? "cusolverDnDpotrf" : "cusolverDnSpotrf"),
                                   __FILE__, __LINE__);
            goto fail;
        }
    }
fail:
    if (work) /* in stream order, after the last call that uses it */
        pdt_scratch_free(a->device, work, bytes);
    return st;
}

/* LU (pivots not NULL) or Cholesky of each matrix of a, in place: batched
 * (Note [batched small-matrix solvers]) or one call per matrix. */
static pdt_status factor_batch(const pdt_tensor *a, const pdt_tensor *pivots, int upper,
                               const pdt_tensor *info)
{
    const int64_t n = a->shape[a->ndim - 1], batch = pdt_tensor_numel(a) / (n * n);
    const char *what = pivots ? "lu_factor" : "cholesky";
    pdt_solver_call c = PDT_SOLVER_CALL_INIT;
    pdt_status st = pdt_cusolver_check_elements(what, a->device.index, "each matrix", n, n);
    if (st != PDT_OK || (st = pdt_solver_begin(&c, a, what, n)) != PDT_OK)
        goto fail;
    st = pdt_solver_use_batched(n, batch) ? pdt_solver_factor_batched(&c, a, pivots, upper, info)
                                          : factor_each(&c, a, pivots, upper, info);
    if (st == PDT_OK && !pivots) /* Note [non-finite Cholesky pivots] */
        st = pdt_cuda_nan_pivot_info(pdt_tensor_ptr(a), a->dtype == PDT_FLOAT64, n, batch,
                                     (int *)pdt_tensor_ptr(info), c.stream);
fail:
    pdt_solver_end(&c);
    return st;
}

pdt_status pdt_cuda_lu_factor(const pdt_tensor *a, const pdt_tensor *pivots, const pdt_tensor *info)
{
    return factor_batch(a, pivots, 0, info);
}

pdt_status pdt_cuda_cholesky(const pdt_tensor *a, int upper, const pdt_tensor *info)
{
    return factor_batch(a, NULL, upper, info);
}

pdt_status pdt_cuda_lu_solve(const pdt_tensor *lu, const pdt_tensor *pivots, const pdt_tensor *b)
{
    const int64_t n = lu->shape[lu->ndim - 1], k = b->shape[b->ndim - 2];
    const int64_t batch = pdt_tensor_numel(lu) / (n * n);
    const int d = lu->dtype == PDT_FLOAT64, ni = (int)n, ki = (int)k;
    const char *f = pdt_tensor_ptr(lu);
    char *x = pdt_tensor_ptr(b);
    const int *ipiv = (const int *)pdt_tensor_ptr(pivots);
    int *status = NULL; /* getrs's devInfo: only invalid arguments, which ours are not */
    pdt_solver_call c = PDT_SOLVER_CALL_INIT;
    pdt_status st = pdt_cusolver_check_elements("lu_solve", lu->device.index, "each LU", n, n);
    if (st == PDT_OK)
        st = pdt_cusolver_check_elements("lu_solve", lu->device.index, "each right-hand side", n,
                                         k);
    if (st != PDT_OK || (st = pdt_solver_begin(&c, lu, "lu_solve", n > k ? n : k)) != PDT_OK)
        goto fail;
    if (pdt_solver_use_batched(n, batch)) {
        st = pdt_solver_solve_batched(&c, lu, pivots, b);
        goto fail;
    }
    if ((st = pdt_scratch_alloc(lu->device, sizeof(int), (void **)&status)) != PDT_OK)
        goto fail;
    for (int64_t i = 0; i < batch; i++) {
        const char *fi = f + (size_t)(i * n * n) * pdt_solver_elem_size(lu);
        char *xi = x + (size_t)(i * n * k) * pdt_solver_elem_size(lu);
        if (d)
            PDT_CUSOLVER_CHECK(pdt_cusolver.dgetrs(c.handle, CUBLAS_OP_N, ni, ki,
                                                   (const double *)fi, ni, ipiv + i * n,
                                                   (double *)xi, ni, status));
        else
            PDT_CUSOLVER_CHECK(pdt_cusolver.sgetrs(c.handle, CUBLAS_OP_N, ni, ki, (const float *)fi,
                                                   ni, ipiv + i * n, (float *)xi, ni, status));
    }
fail:
    if (status)
        pdt_scratch_free(lu->device, status, sizeof(int));
    pdt_solver_end(&c);
    return st;
}
