/* cpu_lapack.c - the CPU backend's LU (getrf/getrs) and Cholesky (potrf), from
 * the LAPACK inside the OpenBLAS that cpu_blas.c loads (scipy-openblas32 names
 * them scipy_dgetrf_ and so on; a system OpenBLAS dgetrf_).  Every matrix is
 * stored by columns (Note [column-major factorizations] in pdt_linalg.h), as
 * LAPACK's Fortran interface takes it, so each is handed over as it is. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>

#include "cpu_blas.h"
#include "cpu_kernels.h"

#define PDT_LAPACK_NAME(name) PDT_BLAS_STR(PDT_BLAS_CAT(PDT_BLAS_PREFIX, name))

/* LAPACK's Fortran interface with OpenBLAS's integer, blasint (cblas.h; 32 bits
 * in scipy-openblas32 and a system OpenBLAS built without INTERFACE64); the
 * trailing size_t is the hidden length of a character argument that gfortran
 * passes. */
typedef void (*getrf_fn)(const blasint *m, const blasint *n, void *a, const blasint *lda,
                         blasint *ipiv, blasint *info);
typedef void (*getrs_fn)(const char *trans, const blasint *n, const blasint *nrhs, const void *a,
                         const blasint *lda, const blasint *ipiv, void *b, const blasint *ldb,
                         blasint *info, size_t trans_len);
typedef void (*potrf_fn)(const char *uplo, const blasint *n, void *a, const blasint *lda,
                         blasint *info, size_t uplo_len);
/* The pivots and infos are int32 tensors, handed to LAPACK as they are. */
_Static_assert(sizeof(blasint) == sizeof(int32_t), "an OpenBLAS with 32-bit integers");

static struct {
    getrf_fn getrf[2]; /* [0] float32, [1] float64 */
    getrs_fn getrs[2];
    potrf_fn potrf[2];
} lapack;

void pdt_cpu_lapack_resolve(void *handle)
{
    /* dlsym's void* to a function pointer: how the POSIX API is meant to be used */
    *(void **)&lapack.getrf[0] = dlsym(handle, PDT_LAPACK_NAME(sgetrf_));
    *(void **)&lapack.getrf[1] = dlsym(handle, PDT_LAPACK_NAME(dgetrf_));
    *(void **)&lapack.getrs[0] = dlsym(handle, PDT_LAPACK_NAME(sgetrs_));
    *(void **)&lapack.getrs[1] = dlsym(handle, PDT_LAPACK_NAME(dgetrs_));
    *(void **)&lapack.potrf[0] = dlsym(handle, PDT_LAPACK_NAME(spotrf_));
    *(void **)&lapack.potrf[1] = dlsym(handle, PDT_LAPACK_NAME(dpotrf_));
    pdt_cpu_lapack_eig_resolve(handle);
}

/* Loads OpenBLAS; the entry `fn` (one of lapack's) must be there and n fit an int. */
pdt_status pdt_cpu_lapack_need(const char *what, void *fn, int64_t n)
{
    const pdt_blas_table *blas;
    pdt_status st = pdt_cpu_blas(&blas);
    if (st != PDT_OK)
        return st;
    if (!*(void **)fn)
        return pdt_fail(PDT_ERR_UNSUPPORTED,
                        "%s: the OpenBLAS loaded (%s) has no LAPACK; install scipy-openblas32 "
                        "or an OpenBLAS built with LAPACK",
                        what, pdt_openblas_library.path);
    if (n > INT_MAX)
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: %lld rows or columns is more than LAPACK's 32-bit "
                        "integers hold (on cpu)",
                        what, (long long)n);
    return PDT_OK;
}

pdt_status pdt_cpu_lu_factor(const pdt_tensor *a, const pdt_tensor *pivots, const pdt_tensor *info)
{
    const int d = a->dtype == PDT_FLOAT64;
    const int64_t n = a->shape[a->ndim - 1], batch = pdt_tensor_numel(a) / (n * n);
    pdt_status st = pdt_cpu_lapack_need("lu_factor", &lapack.getrf[d], n);
    if (st != PDT_OK)
        return st;
    const blasint ni = (blasint)n;
    const size_t step = (size_t)(n * n) * (d ? sizeof(double) : sizeof(float));
    char *m = pdt_tensor_ptr(a);
    blasint *ipiv = (blasint *)pdt_tensor_ptr(pivots), *inf = (blasint *)pdt_tensor_ptr(info);
    pdt_blas_call call;
    if ((st = pdt_cpu_blas_enter(&call, n * n * n)) != PDT_OK)
        return st;
    for (int64_t b = 0; b < batch; b++)
        lapack.getrf[d](&ni, &ni, m + b * step, &ni, ipiv + b * n, inf + b);
    pdt_cpu_blas_leave(&call);
    return PDT_OK;
}

pdt_status pdt_cpu_lu_solve(const pdt_tensor *lu, const pdt_tensor *pivots, const pdt_tensor *b)
{
    const int d = lu->dtype == PDT_FLOAT64;
    const size_t es = d ? sizeof(double) : sizeof(float);
    const int64_t n = lu->shape[lu->ndim - 1], k = b->shape[b->ndim - 2];
    const int64_t batch = pdt_tensor_numel(lu) / (n * n);
    pdt_status st = pdt_cpu_lapack_need("lu_solve", &lapack.getrs[d], n > k ? n : k);
    if (st != PDT_OK)
        return st;
    const blasint ni = (blasint)n, ki = (blasint)k;
    const char *f = pdt_tensor_ptr(lu);
    char *x = pdt_tensor_ptr(b);
    const blasint *ipiv = (const blasint *)pdt_tensor_ptr(pivots);
    blasint inf = 0;
    pdt_blas_call call;
    if ((st = pdt_cpu_blas_enter(&call, n * n * k)) != PDT_OK)
        return st;
    for (int64_t i = 0; i < batch && inf == 0; i++)
        lapack.getrs[d]("N", &ni, &ki, f + (size_t)(i * n * n) * es, &ni, ipiv + i * n,
                        x + (size_t)(i * n * k) * es, &ni, &inf, 1);
    pdt_cpu_blas_leave(&call);
    if (inf != 0) /* an argument LAPACK refused: a bug of ours, not the user's */
        return pdt_fail(PDT_ERR_BACKEND,
                        "lu_solve: LAPACK's getrs refused argument %d (n %lld, "
                        "k %lld, on cpu)",
                        (int)-inf, (long long)n, (long long)k);
    return PDT_OK;
}

/* info[b], when 0, becomes the first 1-based j where factor b's L(j, j) is NaN:
 * OpenBLAS's potrf carries on past a NaN pivot with info 0, where LAPACK's
 * reference and PyTorch report it (Note [non-finite Cholesky pivots] in
 * csrc/cuda/cuda_solver.h; the CUDA backend does the same on the device). */
static void nan_pivot_info(const char *m, int d, int64_t n, int64_t batch, blasint *inf)
{
    for (int64_t b = 0; b < batch; b++) {
        for (int64_t j = 0; j < n && inf[b] == 0; j++) {
            const int64_t at = b * n * n + j * (n + 1);
            const double v = d ? ((const double *)m)[at] : (double)((const float *)m)[at];
            if (v != v)
                inf[b] = (blasint)(j + 1);
        }
    }
}

pdt_status pdt_cpu_cholesky(const pdt_tensor *a, int upper, const pdt_tensor *info)
{
    const int d = a->dtype == PDT_FLOAT64;
    const int64_t n = a->shape[a->ndim - 1], batch = pdt_tensor_numel(a) / (n * n);
    pdt_status st = pdt_cpu_lapack_need("cholesky", &lapack.potrf[d], n);
    if (st != PDT_OK)
        return st;
    const blasint ni = (blasint)n;
    const size_t step = (size_t)(n * n) * (d ? sizeof(double) : sizeof(float));
    char *m = pdt_tensor_ptr(a);
    blasint *inf = (blasint *)pdt_tensor_ptr(info);
    pdt_blas_call call;
    if ((st = pdt_cpu_blas_enter(&call, n * n * n)) != PDT_OK)
        return st;
    for (int64_t b = 0; b < batch; b++)
        lapack.potrf[d](upper ? "U" : "L", &ni, m + b * step, &ni, inf + b, 1);
    nan_pivot_info(m, d, n, batch, inf);
    pdt_cpu_blas_leave(&call);
    return PDT_OK;
}
