/* cuda_solver_batched.c - the batched small-matrix paths of the CUDA backend's
 * LU, LU solve and Cholesky (Note [batched small-matrix solvers] in
 * cuda_solver.h): one cublas<t>getrfBatched, cublas<t>getrsBatched or
 * cusolverDn<t>potrfBatched call for the whole batch, on the device's handles
 * and stream that cuda_solver.c set up.  Each matrix is stored by columns
 * (Note [column-major factorizations] in pdt_linalg.h), contiguous: matrix i
 * at base + i n n elements.  The device arrays of pointers are scratch blocks
 * (pdt_scratch_alloc: counted against the device's limit) written by a kernel
 * and freed in stream order after the call that reads them.
 */
#include <limits.h>

#include "cuda_blas.h"
#include "cuda_solver.h"
#include "pdt_runtime.h" /* pdt_scratch_alloc */

int pdt_solver_use_batched(int64_t n, int64_t batch)
{
    return batch >= 2 && n >= 1 && n <= PDT_SOLVER_BATCHED_MAX_N && batch <= INT_MAX / n;
}

/* A device array of `count` pointers in *ptrs (a scratch block of *bytes
 * bytes, which the caller frees): ptrs[i] = base + i * stride bytes, written
 * on c's stream. */
static pdt_status pointer_array(const pdt_solver_call *c, pdt_device dev, void *base, size_t stride,
                                int64_t count, void ***ptrs, size_t *bytes)
{
    *bytes = (size_t)count * sizeof(void *);
    pdt_status st = pdt_scratch_alloc(dev, *bytes, (void **)ptrs);
    if (st != PDT_OK) {
        *ptrs = NULL;
        return st;
    }
    return pdt_cuda_pointer_array(*ptrs, base, stride, count, c->stream);
}

pdt_status pdt_solver_factor_batched(pdt_solver_call *c, const pdt_tensor *a,
                                     const pdt_tensor *pivots, int upper, const pdt_tensor *info)
{
    const int64_t n = a->shape[a->ndim - 1], batch = pdt_tensor_numel(a) / (n * n);
    const int d = a->dtype == PDT_FLOAT64, ni = (int)n, bi = (int)batch; /* the rule's bounds */
    const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    int *inf = (int *)pdt_tensor_ptr(info);
    const pdt_cublas_table *t = NULL;
    cublasHandle_t blas = NULL;
    void **ptrs = NULL;
    size_t bytes = 0;
    pdt_status st = PDT_OK;
    if (pivots && (st = pdt_solver_blas(c, a->device.index, &t, &blas)) != PDT_OK)
        goto fail;
    st = pointer_array(c, a->device, pdt_tensor_ptr(a), (size_t)(n * n) * pdt_solver_elem_size(a),
                       batch, &ptrs, &bytes);
    if (st != PDT_OK)
        goto fail;
    if (pivots) {
        int *ipiv = (int *)pdt_tensor_ptr(pivots);
        PDT_CUBLAS_CHECK(d ? t->dgetrf_batched(blas, ni, (double *const *)ptrs, ni, ipiv, inf, bi)
                           : t->sgetrf_batched(blas, ni, (float *const *)ptrs, ni, ipiv, inf, bi));
    } else {
        PDT_CUSOLVER_CHECK(
            d ? pdt_cusolver.dpotrf_batched(c->handle, uplo, ni, (double **)ptrs, ni, inf, bi)
              : pdt_cusolver.spotrf_batched(c->handle, uplo, ni, (float **)ptrs, ni, inf, bi));
    }
fail:
    if (ptrs) /* in stream order, after the call that reads it */
        pdt_scratch_free(a->device, ptrs, bytes);
    return st;
}

pdt_status pdt_solver_solve_batched(pdt_solver_call *c, const pdt_tensor *lu,
                                    const pdt_tensor *pivots, const pdt_tensor *b)
{
    const int64_t n = lu->shape[lu->ndim - 1], k = b->shape[b->ndim - 2];
    const int64_t batch = pdt_tensor_numel(lu) / (n * n);
    const int d = lu->dtype == PDT_FLOAT64, ni = (int)n, ki = (int)k, bi = (int)batch;
    const size_t es = pdt_solver_elem_size(lu);
    const int *ipiv = (const int *)pdt_tensor_ptr(pivots);
    const pdt_cublas_table *t = NULL;
    cublasHandle_t blas = NULL;
    void **fp = NULL, **xp = NULL;
    size_t fbytes = 0, xbytes = 0;
    int bad = 0; /* getrsBatched's info: a host int, -i for an invalid parameter i */
    pdt_status st = pdt_solver_blas(c, lu->device.index, &t, &blas);
    if (st != PDT_OK ||
        (st = pointer_array(c, lu->device, pdt_tensor_ptr(lu), (size_t)(n * n) * es, batch, &fp,
                            &fbytes)) != PDT_OK ||
        (st = pointer_array(c, lu->device, pdt_tensor_ptr(b), (size_t)(n * k) * es, batch, &xp,
                            &xbytes)) != PDT_OK)
        goto fail;
    PDT_CUBLAS_CHECK(d ? t->dgetrs_batched(blas, CUBLAS_OP_N, ni, ki, (const double *const *)fp, ni,
                                           ipiv, (double *const *)xp, ni, &bad, bi)
                       : t->sgetrs_batched(blas, CUBLAS_OP_N, ni, ki, (const float *const *)fp, ni,
                                           ipiv, (float *const *)xp, ni, &bad, bi));
    if (bad != 0)
        st = pdt_fail(PDT_ERR_BACKEND,
                      "lu_solve: cublas<t>getrsBatched reports its parameter %d invalid (n = "
                      "%lld, %lld right-hand sides, %lld matrices, on cuda:%d)",
                      -bad, (long long)n, (long long)k, (long long)batch, lu->device.index);
fail:
    if (fp)
        pdt_scratch_free(lu->device, fp, fbytes);
    if (xp)
        pdt_scratch_free(lu->device, xp, xbytes);
    return st;
}
