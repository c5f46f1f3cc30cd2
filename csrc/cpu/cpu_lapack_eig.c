/* cpu_lapack_eig.c - the CPU backend's symmetric eigen decomposition (syevd),
 * singular value decomposition (gesdd) and QR (geqrf, orgqr), from the LAPACK inside the loaded
 * OpenBLAS, as cpu_lapack.c's LU and Cholesky.  Every matrix is stored by
 * columns (Note [column-major factorizations] in pdt_linalg.h).  The
 * workspaces are asked of LAPACK once per batch (lwork = -1) and allocated on
 * the heap for the batch. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

#include "cpu_blas.h"
#include "cpu_kernels.h"

#define PDT_LAPACK_NAME(name) PDT_BLAS_STR(PDT_BLAS_CAT(PDT_BLAS_PREFIX, name))

/* LAPACK's Fortran interface (blasint, hidden character lengths: cpu_lapack.c). */
typedef void (*syevd_fn)(const char *jobz, const char *uplo, const blasint *n, void *a,
                         const blasint *lda, void *w, void *work, const blasint *lwork,
                         blasint *iwork, const blasint *liwork, blasint *info, size_t jobz_len,
                         size_t uplo_len);
typedef void (*gesdd_fn)(const char *jobz, const blasint *m, const blasint *n, void *a,
                         const blasint *lda, void *s, void *u, const blasint *ldu, void *vt,
                         const blasint *ldvt, void *work, const blasint *lwork, blasint *iwork,
                         blasint *info, size_t jobz_len);

typedef void (*geqrf_fn)(const blasint *m, const blasint *n, void *a, const blasint *lda, void *tau,
                         void *work, const blasint *lwork, blasint *info);
typedef void (*orgqr_fn)(const blasint *m, const blasint *n, const blasint *k, void *a,
                         const blasint *lda, const void *tau, void *work, const blasint *lwork,
                         blasint *info);

static struct {
    syevd_fn syevd[2]; /* [0] float32, [1] float64 */
    gesdd_fn gesdd[2];
    geqrf_fn geqrf[2];
    orgqr_fn orgqr[2];
} lapack;

void pdt_cpu_lapack_eig_resolve(void *handle)
{
    *(void **)&lapack.syevd[0] = dlsym(handle, PDT_LAPACK_NAME(ssyevd_));
    *(void **)&lapack.syevd[1] = dlsym(handle, PDT_LAPACK_NAME(dsyevd_));
    *(void **)&lapack.gesdd[0] = dlsym(handle, PDT_LAPACK_NAME(sgesdd_));
    *(void **)&lapack.gesdd[1] = dlsym(handle, PDT_LAPACK_NAME(dgesdd_));
    *(void **)&lapack.geqrf[0] = dlsym(handle, PDT_LAPACK_NAME(sgeqrf_));
    *(void **)&lapack.geqrf[1] = dlsym(handle, PDT_LAPACK_NAME(dgeqrf_));
    *(void **)&lapack.orgqr[0] = dlsym(handle, PDT_LAPACK_NAME(sorgqr_));
    *(void **)&lapack.orgqr[1] = dlsym(handle, PDT_LAPACK_NAME(dorgqr_));
}

/* The workspace size LAPACK wrote into the first element of a query's work. */
static blasint query_size(int d, const void *q)
{
    double v = d ? *(const double *)q : (double)*(const float *)q;
    return v < 1 ? 1 : (blasint)(v + 0.5);
}

/* work (lwork elements of es bytes) and iwork (liwork ints), or PDT_ERR_OOM. */
static pdt_status alloc_work(const char *op, blasint lwork, size_t es, blasint liwork, void **work,
                             blasint **iwork)
{
    *work = malloc((size_t)lwork * es);
    *iwork = malloc((size_t)(liwork > 0 ? liwork : 1) * sizeof(blasint));
    if (*work && *iwork)
        return PDT_OK;
    free(*work);
    free(*iwork);
    *work = NULL;
    *iwork = NULL;
    return pdt_fail(PDT_ERR_OOM, "%s: no host memory for LAPACK's workspace of %lld elements", op,
                    (long long)lwork);
}

/* LAPACK refused an argument: a bug of ours, not the user's. */
static pdt_status refused(const char *op, const char *routine, blasint inf, int64_t n)
{
    return pdt_fail(PDT_ERR_BACKEND, "%s: LAPACK's %s refused argument %d (n %lld, on cpu)", op,
                    routine, (int)-inf, (long long)n);
}

pdt_status pdt_cpu_eigh(const pdt_tensor *a, int upper, int vectors, const pdt_tensor *w,
                        const pdt_tensor *info)
{
    const int d = a->dtype == PDT_FLOAT64;
    const size_t es = d ? sizeof(double) : sizeof(float);
    const int64_t n = a->shape[a->ndim - 1], batch = pdt_tensor_numel(a) / (n * n);
    pdt_status st = pdt_cpu_lapack_need("eigh", &lapack.syevd[d], n);
    if (st != PDT_OK)
        return st;
    const blasint ni = (blasint)n, query = -1;
    const char *jobz = vectors ? "V" : "N", *uplo = upper ? "U" : "L";
    char *m = pdt_tensor_ptr(a), *ev = pdt_tensor_ptr(w);
    blasint *inf = (blasint *)pdt_tensor_ptr(info), liwork = 0, qinfo = 0;
    double q[2];
    lapack.syevd[d](jobz, uplo, &ni, m, &ni, ev, q, &query, &liwork, &query, &qinfo, 1, 1);
    if (qinfo < 0)
        return refused("eigh", "syevd", qinfo, n);
    blasint lwork = query_size(d, q), *iwork;
    void *work;
    if ((st = alloc_work("eigh", lwork, es, liwork, &work, &iwork)) != PDT_OK)
        return st;
    pdt_blas_call call;
    if ((st = pdt_cpu_blas_enter(&call, 4 * n * n * n)) == PDT_OK) {
        for (int64_t b = 0; b < batch; b++)
            lapack.syevd[d](jobz, uplo, &ni, m + (size_t)(b * n * n) * es, &ni,
                            ev + (size_t)(b * n) * es, work, &lwork, iwork, &liwork, inf + b, 1, 1);
        pdt_cpu_blas_leave(&call);
    }
    free(work);
    free(iwork);
    return st;
}

pdt_status pdt_cpu_svd(const pdt_tensor *a, int vectors, const pdt_tensor *s, const pdt_tensor *u,
                       const pdt_tensor *vt, const pdt_tensor *info)
{
    const int d = a->dtype == PDT_FLOAT64;
    const size_t es = d ? sizeof(double) : sizeof(float);
    const int64_t n = a->shape[a->ndim - 2], m = a->shape[a->ndim - 1];
    const int64_t batch = pdt_tensor_numel(a) / (n * m), uc = vectors == 2 ? m : n;
    pdt_status st = pdt_cpu_lapack_need("svd", &lapack.gesdd[d], m);
    if (st != PDT_OK)
        return st;
    const blasint mi = (blasint)m, ni = (blasint)n, query = -1, one = 1;
    const char *jobz = vectors == 2 ? "A" : vectors ? "S" : "N";
    char *x = pdt_tensor_ptr(a), *sv = pdt_tensor_ptr(s);
    char *um = u ? pdt_tensor_ptr(u) : NULL, *vm = vt ? pdt_tensor_ptr(vt) : NULL;
    const blasint *ldu = vectors ? &mi : &one, *ldvt = vectors ? &ni : &one;
    blasint *inf = (blasint *)pdt_tensor_ptr(info), qinfo = 0, *iwork;
    double q[2], dummy[2];
    lapack.gesdd[d](jobz, &mi, &ni, x, &mi, sv, um ? (void *)um : dummy, ldu,
                    vm ? (void *)vm : dummy, ldvt, q, &query, NULL, &qinfo, 1);
    if (qinfo < 0)
        return refused("svd", "gesdd", qinfo, m);
    blasint lwork = query_size(d, q);
    void *work;
    if ((st = alloc_work("svd", lwork, es, (blasint)(8 * n), &work, &iwork)) != PDT_OK)
        return st;
    pdt_blas_call call;
    if ((st = pdt_cpu_blas_enter(&call, 4 * m * n * n)) == PDT_OK) {
        for (int64_t b = 0; b < batch; b++)
            lapack.gesdd[d](jobz, &mi, &ni, x + (size_t)(b * m * n) * es, &mi,
                            sv + (size_t)(b * n) * es,
                            um ? (void *)(um + (size_t)(b * m * uc) * es) : dummy, ldu,
                            vm ? (void *)(vm + (size_t)(b * n * n) * es) : dummy, ldvt, work,
                            &lwork, iwork, inf + b, 1);
        pdt_cpu_blas_leave(&call);
    }
    free(work);
    free(iwork);
    return st;
}

/* geqrf (orgqr 0) or orgqr of each matrix of a (..., cols, rows), k reflectors. */
static pdt_status qr_batch(const pdt_tensor *a, const pdt_tensor *tau, int orgqr)
{
    const char *op = orgqr ? "qr_orgqr" : "qr_factor";
    const int d = a->dtype == PDT_FLOAT64;
    const size_t es = d ? sizeof(double) : sizeof(float);
    const int64_t c = a->shape[a->ndim - 2], m = a->shape[a->ndim - 1];
    const int64_t k = tau->shape[tau->ndim - 1], batch = pdt_tensor_numel(a) / (c * m);
    pdt_status st = pdt_cpu_lapack_need(op,
                                        orgqr ? (void *)&lapack.orgqr[d] : (void *)&lapack.geqrf[d],
                                        m > c ? m : c);
    if (st != PDT_OK)
        return st;
    const blasint mi = (blasint)m, ci = (blasint)c, ki = (blasint)k, query = -1;
    char *x = pdt_tensor_ptr(a), *t = pdt_tensor_ptr(tau);
    blasint inf = 0, *iwork;
    double q[2];
    if (orgqr)
        lapack.orgqr[d](&mi, &ci, &ki, x, &mi, t, q, &query, &inf);
    else
        lapack.geqrf[d](&mi, &ci, x, &mi, t, q, &query, &inf);
    if (inf < 0)
        return refused(op, orgqr ? "orgqr" : "geqrf", inf, m);
    blasint lwork = query_size(d, q);
    void *work;
    if ((st = alloc_work(op, lwork, es, 1, &work, &iwork)) != PDT_OK)
        return st;
    pdt_blas_call call;
    if ((st = pdt_cpu_blas_enter(&call, 2 * m * c * c)) == PDT_OK) {
        for (int64_t b = 0; b < batch && inf == 0; b++) {
            char *xb = x + (size_t)(b * m * c) * es, *tb = t + (size_t)(b * k) * es;
            if (orgqr)
                lapack.orgqr[d](&mi, &ci, &ki, xb, &mi, tb, work, &lwork, &inf);
            else
                lapack.geqrf[d](&mi, &ci, xb, &mi, tb, work, &lwork, &inf);
        }
        pdt_cpu_blas_leave(&call);
    }
    free(work);
    free(iwork);
    if (st == PDT_OK && inf != 0)
        st = refused(op, orgqr ? "orgqr" : "geqrf", inf, m);
    return st;
}

pdt_status pdt_cpu_qr_factor(const pdt_tensor *a, const pdt_tensor *tau)
{
    return qr_batch(a, tau, 0);
}

pdt_status pdt_cpu_qr_orgqr(const pdt_tensor *q, const pdt_tensor *tau)
{
    return qr_batch(q, tau, 1);
}
