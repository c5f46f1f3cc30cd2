/* emu_cusolver_qr.cpp - the emulated cuSOLVER's QR: "cusolverDn<t>geqrf()" and
 * "cusolverDn<t>orgqr()", with the toolkit's signatures and LAPACK's storage
 * (the reflectors H(j) = I - tau[j] v v^T below R's diagonal, v[j] = 1 implied,
 * the sign of LAPACK's dlarfg: R's diagonal is -sign(alpha) times the column's
 * norm), as reference loops (LAPACK's unblocked dgeqr2 and dorg2r).  Each is
 * queued on the handle's stream and checked against the pointer rule over what
 * it reads and writes (emu_cusolver.cpp).  Part of the emulated build only
 * (README.md beside this file). */
#include <math.h>

#include <algorithm>

#include "emu_cusolver.h"

namespace {

using emu_solver::at;
using emu_solver::check_lwork;
using emu_solver::span;
using emu_solver::stream_of;

const char *const DOC_WORKSPACE_QR = "cuSOLVER Library, \"cusolverDn<t>geqrf()\" / "
                                     "\"cusolverDn<t>orgqr()\": the workspace is a device array "
                                     "of at least Lwork elements, Lwork from the matching "
                                     "_bufferSize";

int lwork_qr(int n) { return std::max(1, n); }

/* H = I - tau v v^T, v = a(j:m, j) with v[0] = 1, applied from the left to
 * columns c0..c1-1 of a (rows j..m-1). */
template <typename T> void apply_reflector(int m, T *a, int lda, int j, T tau, int c0, int c1)
{
    for (int c = c0; c < c1; c++) {
        double w = at(a, lda, j, c);
        for (int i = j + 1; i < m; i++)
            w += (double)at(a, lda, i, j) * at(a, lda, i, c);
        at(a, lda, j, c) -= (T)(tau * w);
        for (int i = j + 1; i < m; i++)
            at(a, lda, i, c) -= (T)(tau * w * at(a, lda, i, j));
    }
}

template <typename T> void run_geqrf(int m, int n, T *a, int lda, T *tau)
{
    for (int j = 0; j < std::min(m, n); j++) {
        double alpha = at(a, lda, j, j), xnorm = 0;
        for (int i = j + 1; i < m; i++)
            xnorm = hypot(xnorm, (double)at(a, lda, i, j));
        if (xnorm == 0) { /* dlarfg: H = I */
            tau[j] = 0;
            continue;
        }
        double beta = -copysign(hypot(alpha, xnorm), alpha);
        tau[j] = (T)((beta - alpha) / beta);
        for (int i = j + 1; i < m; i++)
            at(a, lda, i, j) = (T)(at(a, lda, i, j) / (alpha - beta));
        at(a, lda, j, j) = 1;
        apply_reflector(m, a, lda, j, tau[j], j + 1, n);
        at(a, lda, j, j) = (T)beta;
    }
}

template <typename T> void run_orgqr(int m, int n, int k, T *a, int lda, const T *tau)
{
    for (int c = k; c < n; c++) /* columns k..n-1: the unit matrix's */
        for (int i = 0; i < m; i++)
            at(a, lda, i, c) = i == c ? T(1) : T(0);
    for (int j = k - 1; j >= 0; j--) {
        if (j < n - 1) {
            at(a, lda, j, j) = 1;
            apply_reflector(m, a, lda, j, tau[j], j + 1, n);
        }
        for (int i = j + 1; i < m; i++)
            at(a, lda, i, j) = -tau[j] * at(a, lda, i, j);
        at(a, lda, j, j) = T(1) - tau[j];
        for (int i = 0; i < j; i++)
            at(a, lda, i, j) = 0;
    }
}

/* "cusolverDn<t>geqrf()" / "orgqr()", return values: INVALID_VALUE for m, n
 * (or k) < 0, lda < max(1, m); orgqr also for n > m or k > n. */
cusolverStatus_t qr_args(cusolverDnHandle_t h, int m, int n, int k, int lda)
{
    if (!h)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || lda < std::max(1, m) || (k >= 0 && (n > m || k > n)))
        return CUSOLVER_STATUS_INVALID_VALUE;
    return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
cusolverStatus_t geqrf(const char *name, cusolverDnHandle_t h, int m, int n, T *a, int lda, T *tau,
                       T *work, int lwork, int *info)
{
    cusolverStatus_t r = qr_args(h, m, n, -1, lda);
    if (r != CUSOLVER_STATUS_SUCCESS)
        return r;
    check_lwork(name, DOC_WORKSPACE_QR, "cusolverDn<t>geqrf_bufferSize", lwork, lwork_qr(n));
    int dev;
    pdt_emu::stream *s = stream_of(h, name, &dev);
    if (emu_solver::fails(dev)) /* Note [fault injection] */
        return CUSOLVER_STATUS_INTERNAL_ERROR;
    pdt_emu::enqueue(s, name, [=]() {
        pdt_emu::check_device_access(name, "A", dev, a, span(m, n, lda) * sizeof(T));
        pdt_emu::check_device_access(name, "TAU", dev, tau, (size_t)std::min(m, n) * sizeof(T));
        pdt_emu::check_device_access(name, "Workspace", dev, work, (size_t)lwork * sizeof(T));
        pdt_emu::check_device_access(name, "devInfo", dev, info, sizeof(int));
        run_geqrf(m, n, a, lda, tau);
        *info = 0;
    });
    return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
cusolverStatus_t orgqr(const char *name, cusolverDnHandle_t h, int m, int n, int k, T *a, int lda,
                       const T *tau, T *work, int lwork, int *info)
{
    cusolverStatus_t r = qr_args(h, m, n, std::max(k, 0), lda);
    if (r != CUSOLVER_STATUS_SUCCESS || k < 0)
        return k < 0 ? CUSOLVER_STATUS_INVALID_VALUE : r;
    check_lwork(name, DOC_WORKSPACE_QR, "cusolverDn<t>orgqr_bufferSize", lwork, lwork_qr(n));
    int dev;
    pdt_emu::stream *s = stream_of(h, name, &dev);
    if (emu_solver::fails(dev)) /* Note [fault injection] */
        return CUSOLVER_STATUS_INTERNAL_ERROR;
    pdt_emu::enqueue(s, name, [=]() {
        pdt_emu::check_device_access(name, "A", dev, a, span(m, n, lda) * sizeof(T));
        pdt_emu::check_device_access(name, "tau", dev, tau, (size_t)k * sizeof(T));
        pdt_emu::check_device_access(name, "work", dev, work, (size_t)lwork * sizeof(T));
        pdt_emu::check_device_access(name, "info", dev, info, sizeof(int));
        run_orgqr(m, n, k, a, lda, tau);
        *info = 0;
    });
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t buffer(cusolverDnHandle_t h, int m, int n, int k, int lda, int *lwork)
{
    cusolverStatus_t r = qr_args(h, m, n, k, lda);
    if (r == CUSOLVER_STATUS_SUCCESS && !lwork)
        r = CUSOLVER_STATUS_INVALID_VALUE;
    if (r == CUSOLVER_STATUS_SUCCESS)
        *lwork = lwork_qr(n);
    return r;
}

} // namespace

EMU_CUSOLVER_API cusolverStatus_t cusolverDnSgeqrf_bufferSize(cusolverDnHandle_t h, int m, int n,
                                                              float *A, int lda, int *lwork)
{
    (void)A;
    return buffer(h, m, n, -1, lda, lwork);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnDgeqrf_bufferSize(cusolverDnHandle_t h, int m, int n,
                                                              double *A, int lda, int *lwork)
{
    (void)A;
    return buffer(h, m, n, -1, lda, lwork);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnSgeqrf(cusolverDnHandle_t h, int m, int n, float *A,
                                                   int lda, float *TAU, float *Workspace, int Lwork,
                                                   int *devInfo)
{
    return geqrf("cusolverDnSgeqrf", h, m, n, A, lda, TAU, Workspace, Lwork, devInfo);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnDgeqrf(cusolverDnHandle_t h, int m, int n, double *A,
                                                   int lda, double *TAU, double *Workspace,
                                                   int Lwork, int *devInfo)
{
    return geqrf("cusolverDnDgeqrf", h, m, n, A, lda, TAU, Workspace, Lwork, devInfo);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnSorgqr_bufferSize(cusolverDnHandle_t h, int m, int n,
                                                              int k, const float *A, int lda,
                                                              const float *tau, int *lwork)
{
    (void)A;
    (void)tau;
    return buffer(h, m, n, k, lda, lwork);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnDorgqr_bufferSize(cusolverDnHandle_t h, int m, int n,
                                                              int k, const double *A, int lda,
                                                              const double *tau, int *lwork)
{
    (void)A;
    (void)tau;
    return buffer(h, m, n, k, lda, lwork);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnSorgqr(cusolverDnHandle_t h, int m, int n, int k,
                                                   float *A, int lda, const float *tau, float *work,
                                                   int lwork, int *info)
{
    return orgqr("cusolverDnSorgqr", h, m, n, k, A, lda, tau, work, lwork, info);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnDorgqr(cusolverDnHandle_t h, int m, int n, int k,
                                                   double *A, int lda, const double *tau,
                                                   double *work, int lwork, int *info)
{
    return orgqr("cusolverDnDorgqr", h, m, n, k, A, lda, tau, work, lwork, info);
}
