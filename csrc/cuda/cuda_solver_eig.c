/* cuda_solver_eig.c - the CUDA backend's symmetric eigen decomposition
 * (cusolverDn<t>syevd), singular value decomposition (cusolverDn<t>gesvd,
 * which takes m >= n: the core's contract, pdt_linalg.h) and QR
 * (cusolverDn<t>geqrf, cusolverDn<t>orgqr), through the cuSOLVER
 * that cuda_solver.c loads, on the device's handle and stream (cuda_solver.h).
 * Each matrix is stored by columns (Note [column-major factorizations] in
 * pdt_linalg.h).  As cuda_solver.c's LU: a batch is one call per matrix, all
 * queued, with one workspace (pdt_scratch_alloc, freed in stream order after
 * the last call); info stays on the device for the Python layer to read.
 * Every matrix and workspace is checked against cuSOLVER's 32-bit API (Note
 * [cuSOLVER's 32-bit sizes] in cuda_solver.h) before anything is queued. */
#include "cuda_ops.h"
#include "cuda_solver.h"
#include "pdt_runtime.h" /* pdt_scratch_alloc */

pdt_status pdt_cuda_eigh(const pdt_tensor *a, int upper, int vectors, const pdt_tensor *w,
                         const pdt_tensor *info)
{
    const int64_t n = a->shape[a->ndim - 1], batch = pdt_tensor_numel(a) / (n * n);
    const int d = a->dtype == PDT_FLOAT64, ni = (int)n;
    const size_t es = pdt_solver_elem_size(a);
    const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
    const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    char *m = pdt_tensor_ptr(a), *ev = pdt_tensor_ptr(w);
    int *inf = (int *)pdt_tensor_ptr(info);
    void *work = NULL;
    size_t bytes = 0;
    int lwork = 0;
    pdt_solver_call c = PDT_SOLVER_CALL_INIT;
    pdt_status st = pdt_cusolver_check_elements("eigh", a->device.index, "each matrix", n, n);
    if (st != PDT_OK || (st = pdt_solver_begin(&c, a, "eigh", n)) != PDT_OK)
        goto fail;
    PDT_CUSOLVER_CHECK(d ? pdt_cusolver.dsyevd_buffer(c.handle, jobz, uplo, ni, (const double *)m,
                                                      ni, (const double *)ev, &lwork)
                         : pdt_cusolver.ssyevd_buffer(c.handle, jobz, uplo, ni, (const float *)m,
                                                      ni, (const float *)ev, &lwork));
    if ((st = pdt_cusolver_check_lwork("eigh", a->device.index, "syevd_bufferSize", lwork, n)) !=
        PDT_OK)
        goto fail;
    bytes = (size_t)(lwork > 0 ? lwork : 1) * es;
    if ((st = pdt_scratch_alloc(a->device, bytes, &work)) != PDT_OK)
        goto fail;
    for (int64_t b = 0; b < batch; b++) {
        char *mb = m + (size_t)(b * n * n) * es, *wb = ev + (size_t)(b * n) * es;
        PDT_CUSOLVER_CHECK(d ? pdt_cusolver.dsyevd(c.handle, jobz, uplo, ni, (double *)mb, ni,
                                                   (double *)wb, (double *)work, lwork, inf + b)
                             : pdt_cusolver.ssyevd(c.handle, jobz, uplo, ni, (float *)mb, ni,
                                                   (float *)wb, (float *)work, lwork, inf + b));
    }
fail:
    if (work) /* in stream order, after the last call that uses it */
        pdt_scratch_free(a->device, work, bytes);
    pdt_solver_end(&c);
    return st;
}

pdt_status pdt_cuda_svd(const pdt_tensor *a, int vectors, const pdt_tensor *s, const pdt_tensor *u,
                        const pdt_tensor *vt, const pdt_tensor *info)
{
    const int64_t n = a->shape[a->ndim - 2], m = a->shape[a->ndim - 1];
    const int64_t batch = pdt_tensor_numel(a) / (n * m), uc = vectors == 2 ? m : n;
    const int d = a->dtype == PDT_FLOAT64, mi = (int)m, ni = (int)n;
    const size_t es = pdt_solver_elem_size(a);
    const signed char jobu = vectors == 2 ? 'A' : vectors ? 'S' : 'N';
    const signed char jobvt = vectors ? 'A' : 'N'; /* V^T is n x n: 'A' and 'S' agree */
    char *x = pdt_tensor_ptr(a), *sv = pdt_tensor_ptr(s);
    char *um = u ? pdt_tensor_ptr(u) : NULL, *vm = vt ? pdt_tensor_ptr(vt) : NULL;
    int *inf = (int *)pdt_tensor_ptr(info);
    void *work = NULL, *rwork = NULL;
    size_t bytes = 0, rbytes = (size_t)(n > 1 ? n - 1 : 1) * es;
    int lwork = 0;
    pdt_solver_call c = PDT_SOLVER_CALL_INIT;
    /* A and U are m x n and m x uc (uc <= m), V^T n x n (n <= m) */
    pdt_status st = pdt_cusolver_check_elements("svd", a->device.index, "each matrix", m, n);
    if (st == PDT_OK && u)
        st = pdt_cusolver_check_elements("svd", a->device.index, "each U", m, uc);
    if (st != PDT_OK || (st = pdt_solver_begin(&c, a, "svd", m)) != PDT_OK)
        goto fail;
    PDT_CUSOLVER_CHECK(d ? pdt_cusolver.dgesvd_buffer(c.handle, mi, ni, &lwork)
                         : pdt_cusolver.sgesvd_buffer(c.handle, mi, ni, &lwork));
    if ((st = pdt_cusolver_check_lwork("svd", a->device.index, "gesvd_bufferSize", lwork, m)) !=
        PDT_OK)
        goto fail;
    bytes = (size_t)(lwork > 0 ? lwork : 1) * es;
    if ((st = pdt_scratch_alloc(a->device, bytes, &work)) != PDT_OK)
        goto fail;
    /* rwork: the superdiagonal left when the iteration does not converge */
    if ((st = pdt_scratch_alloc(a->device, rbytes, &rwork)) != PDT_OK)
        goto fail;
    for (int64_t b = 0; b < batch; b++) {
        char *xb = x + (size_t)(b * m * n) * es, *sb = sv + (size_t)(b * n) * es;
        char *ub = um ? um + (size_t)(b * m * uc) * es : NULL;
        char *vb = vm ? vm + (size_t)(b * n * n) * es : NULL;
        PDT_CUSOLVER_CHECK(d ? pdt_cusolver.dgesvd(c.handle, jobu, jobvt, mi, ni, (double *)xb, mi,
                                                   (double *)sb, (double *)ub, mi, (double *)vb, ni,
                                                   (double *)work, lwork, (double *)rwork, inf + b)
                             : pdt_cusolver.sgesvd(c.handle, jobu, jobvt, mi, ni, (float *)xb, mi,
                                                   (float *)sb, (float *)ub, mi, (float *)vb, ni,
                                                   (float *)work, lwork, (float *)rwork, inf + b));
    }
    st = pdt_cuda_nan_values_info(sv, d, n, batch, inf, -4, c.stream); /* [NaN singular values] */
fail:
    if (work)
        pdt_scratch_free(a->device, work, bytes);
    if (rwork)
        pdt_scratch_free(a->device, rwork, rbytes);
    pdt_solver_end(&c);
    return st;
}

/* geqrf (orgqr 0) or orgqr of each matrix of a (..., c, m) with k reflectors;
 * devInfo reports only invalid arguments: a scratch int. */
static pdt_status qr_batch(const pdt_tensor *a, const pdt_tensor *tau, int orgqr)
{
    const int64_t c = a->shape[a->ndim - 2], m = a->shape[a->ndim - 1];
    const int64_t k = tau->shape[tau->ndim - 1], batch = pdt_tensor_numel(a) / (c * m);
    const int d = a->dtype == PDT_FLOAT64, mi = (int)m, ci = (int)c, ki = (int)k;
    const size_t es = pdt_solver_elem_size(a);
    char *x = pdt_tensor_ptr(a), *t = pdt_tensor_ptr(tau);
    void *work = NULL;
    int *status = NULL, lwork = 0;
    size_t bytes = 0;
    const char *what = orgqr ? "qr_orgqr" : "qr_factor";
    pdt_solver_call c_ = PDT_SOLVER_CALL_INIT;
    pdt_status st = pdt_cusolver_check_elements(what, a->device.index, "each matrix", m, c);
    if (st != PDT_OK || (st = pdt_solver_begin(&c_, a, what, m > c ? m : c)) != PDT_OK)
        goto fail;
    if (orgqr)
        PDT_CUSOLVER_CHECK(d ? pdt_cusolver.dorgqr_buffer(c_.handle, mi, ci, ki, (const double *)x,
                                                          mi, (const double *)t, &lwork)
                             : pdt_cusolver.sorgqr_buffer(c_.handle, mi, ci, ki, (const float *)x,
                                                          mi, (const float *)t, &lwork));
    else
        PDT_CUSOLVER_CHECK(
            d ? pdt_cusolver.dgeqrf_buffer(c_.handle, mi, ci, (double *)x, mi, &lwork)
              : pdt_cusolver.sgeqrf_buffer(c_.handle, mi, ci, (float *)x, mi, &lwork));
    if ((st = pdt_cusolver_check_lwork(what, a->device.index,
                                       orgqr ? "orgqr_bufferSize" : "geqrf_bufferSize", lwork,
                                       m > c ? m : c)) != PDT_OK)
        goto fail;
    bytes = (size_t)(lwork > 0 ? lwork : 1) * es;
    if ((st = pdt_scratch_alloc(a->device, bytes, &work)) != PDT_OK)
        goto fail;
    if ((st = pdt_scratch_alloc(a->device, sizeof(int), (void **)&status)) != PDT_OK)
        goto fail;
    for (int64_t b = 0; b < batch; b++) {
        char *xb = x + (size_t)(b * m * c) * es, *tb = t + (size_t)(b * k) * es;
        if (orgqr)
            PDT_CUSOLVER_CHECK(
                d ? pdt_cusolver.dorgqr(c_.handle, mi, ci, ki, (double *)xb, mi, (const double *)tb,
                                        (double *)work, lwork, status)
                  : pdt_cusolver.sorgqr(c_.handle, mi, ci, ki, (float *)xb, mi, (const float *)tb,
                                        (float *)work, lwork, status));
        else
            PDT_CUSOLVER_CHECK(d ? pdt_cusolver.dgeqrf(c_.handle, mi, ci, (double *)xb, mi,
                                                       (double *)tb, (double *)work, lwork, status)
                                 : pdt_cusolver.sgeqrf(c_.handle, mi, ci, (float *)xb, mi,
                                                       (float *)tb, (float *)work, lwork, status));
    }
fail:
    if (work)
        pdt_scratch_free(a->device, work, bytes);
    if (status)
        pdt_scratch_free(a->device, status, sizeof(int));
    pdt_solver_end(&c_);
    return st;
}

pdt_status pdt_cuda_qr_factor(const pdt_tensor *a, const pdt_tensor *tau)
{
    return qr_batch(a, tau, 0);
}

pdt_status pdt_cuda_qr_orgqr(const pdt_tensor *q, const pdt_tensor *tau)
{
    return qr_batch(q, tau, 1);
}
