/* emu_cusolver_eig.cpp - the emulated cuSOLVER's symmetric eigen decomposition
 * ("cusolverDn<t>syevd()") and singular value decomposition ("cusolverDn<t>gesvd()",
 * m >= n as cuSOLVER's real gesvd requires), with the toolkit's signatures.
 * Both are reference algorithms in double precision with LAPACK's semantics,
 * not LAPACK's algorithms: cyclic Jacobi rotations for syevd (eigenvalues
 * ascending, info > 0 when 100 sweeps do not converge, as for a NaN), one-sided
 * Jacobi (Hestenes) for gesvd (singular values descending; U's columns past the
 * numerical rank, and the complete U's, completed to an orthonormal basis by
 * Gram-Schmidt).  Each is queued on the handle's stream and checked against the
 * pointer rule over what it reads and writes (emu_cusolver.cpp).  Part of the
 * emulated build only (README.md beside this file). */
#include <math.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "emu_cusolver.h"

namespace {

using emu_solver::at;
using emu_solver::check_lwork;
using emu_solver::span;
using emu_solver::stream_of;

const char *const DOC_WORKSPACE_EIG = "cuSOLVER Library, \"cusolverDn<t>syevd()\" / "
                                      "\"cusolverDn<t>gesvd()\": work is a device array of at "
                                      "least lwork elements, lwork from the matching _bufferSize";
const int MAX_SWEEPS = 100;

/* What the _bufferSize calls report: enough for a copy of the matrix, so that a
 * caller that allocates less than it was told is caught by the pointer rule. */
int lwork_eig(int m, int n) { return std::max(1, m * n); }

/* Cyclic Jacobi on the symmetric n x n s (row-major, double), accumulating the
 * rotations in v (identity on entry): true when the off-diagonal part became
 * negligible. */
bool jacobi_eig(int n, std::vector<double> &s, std::vector<double> &v)
{
    auto S = [&](int i, int j) -> double & { return s[(size_t)i * n + j]; };
    auto V = [&](int i, int j) -> double & { return v[(size_t)i * n + j]; };
    for (int sweep = 0; sweep < MAX_SWEEPS; sweep++) {
        double off = 0, all = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                all += S(i, j) * S(i, j);
                if (i != j)
                    off += S(i, j) * S(i, j);
            }
        if (off <= 1e-28 * all || all == 0) /* off-diagonal norm 1e-14 relative */
            return true;
        for (int p = 0; p < n - 1; p++)
            for (int q = p + 1; q < n; q++) {
                if (S(p, q) == 0)
                    continue;
                double theta = (S(q, q) - S(p, p)) / (2 * S(p, q));
                double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), sn = t * c;
                for (int k = 0; k < n; k++) { /* S = J^T S J: columns, then rows */
                    double a = S(k, p), b = S(k, q);
                    S(k, p) = c * a - sn * b;
                    S(k, q) = sn * a + c * b;
                }
                for (int k = 0; k < n; k++) {
                    double a = S(p, k), b = S(q, k);
                    S(p, k) = c * a - sn * b;
                    S(q, k) = sn * a + c * b;
                }
                S(p, q) = S(q, p) = 0; /* what the rotation was chosen for */
                for (int k = 0; k < n; k++) {
                    double a = V(k, p), b = V(k, q);
                    V(k, p) = c * a - sn * b;
                    V(k, q) = sn * a + c * b;
                }
            }
    }
    return false;
}

/* "cusolverDn<t>syevd()": W the eigenvalues ascending; A overwritten by the
 * orthonormal eigenvectors (CUSOLVER_EIG_MODE_VECTOR); only the uplo triangle
 * of A read; devInfo 0, or i > 0 when the algorithm did not converge. */
template <typename T>
void run_syevd(bool vectors, bool upper, int n, T *a, int lda, T *w, int *info)
{
    std::vector<double> s((size_t)n * n), v((size_t)n * n, 0.0);
    for (int i = 0; i < n; i++) {
        v[(size_t)i * n + i] = 1;
        for (int j = 0; j <= i; j++) { /* (i, j) lower, from the triangle in use */
            double x = upper ? at(a, lda, j, i) : at(a, lda, i, j);
            s[(size_t)i * n + j] = s[(size_t)j * n + i] = x;
        }
    }
    *info = jacobi_eig(n, s, v) ? 0 : n;
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int x, int y) { return s[(size_t)x * n + x] < s[(size_t)y * n + y]; });
    for (int j = 0; j < n; j++) {
        w[j] = (T)s[(size_t)order[j] * n + order[j]];
        if (vectors)
            for (int i = 0; i < n; i++)
                at(a, lda, i, j) = (T)v[(size_t)i * n + order[j]];
    }
}

/* Makes column c of the m-row column-major q (columns 0..c-1 orthonormal)
 * orthonormal to them, starting from its content, else from the first unit
 * vector that is not in their span. */
void complete_column(int m, std::vector<double> &q, int c, bool start_given)
{
    double *col = &q[(size_t)c * m];
    for (int e = start_given ? -1 : 0; e < m; e++) {
        if (e >= 0) {
            std::fill(col, col + m, 0.0);
            col[e] = 1;
        }
        for (int pass = 0; pass < 2; pass++) /* Gram-Schmidt, twice */
            for (int k = 0; k < c; k++) {
                const double *qk = &q[(size_t)k * m];
                double dot = 0;
                for (int i = 0; i < m; i++)
                    dot += qk[i] * col[i];
                for (int i = 0; i < m; i++)
                    col[i] -= dot * qk[i];
            }
        double norm = 0;
        for (int i = 0; i < m; i++)
            norm += col[i] * col[i];
        norm = sqrt(norm);
        if (norm > 0.5 || (e < 0 && norm > 1e-8)) {
            for (int i = 0; i < m; i++)
                col[i] /= norm;
            return;
        }
    }
}

/* "cusolverDn<t>gesvd()" for m >= n: S descending; U (jobu 'A': m x m, 'S':
 * m x n) and VT (n x n) unless 'N'; A destroyed; devInfo 0, or i > 0 when the
 * iteration did not converge (a NaN among A's values). */
template <typename T>
void run_gesvd(char jobu, char jobvt, int m, int n, T *a, int lda, T *s, T *u, int ldu, T *vt,
               int ldvt, int *info)
{
    std::vector<double> x((size_t)m * n), v((size_t)n * n, 0.0); /* x by columns */
    double frob = 0;
    for (int j = 0; j < n; j++) {
        v[(size_t)j * n + j] = 1;
        for (int i = 0; i < m; i++) {
            x[(size_t)j * m + i] = at(a, lda, i, j);
            frob += x[(size_t)j * m + i] * x[(size_t)j * m + i];
        }
    }
    /* a column whose squared norm is below this is rounding noise (a rank-deficient
     * A): the relative test on it compares noise with noise and may never pass, so
     * such a pair counts as orthogonal (NaN still does not converge) */
    const double negligible = frob * 1e-30;
    bool converged = false;
    for (int sweep = 0; sweep < MAX_SWEEPS && !converged; sweep++) {
        converged = true;
        for (int p = 0; p < n - 1; p++)
            for (int q = p + 1; q < n; q++) {
                double *xp = &x[(size_t)p * m], *xq = &x[(size_t)q * m];
                double al = 0, be = 0, ga = 0;
                for (int i = 0; i < m; i++) {
                    al += xp[i] * xp[i];
                    be += xq[i] * xq[i];
                    ga += xp[i] * xq[i];
                }
                if ((al <= negligible || be <= negligible) && ga == ga)
                    continue;
                if (!(fabs(ga) <= 1e-13 * sqrt(al * be))) { /* NaN: not converged */
                    converged = false;
                    if (ga == 0 || ga != ga)
                        continue;
                    double zeta = (be - al) / (2 * ga);
                    double t = (zeta >= 0 ? 1 : -1) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                    double c = 1 / sqrt(1 + t * t), sn = c * t;
                    for (int i = 0; i < m; i++) {
                        double y = xp[i], z = xq[i];
                        xp[i] = c * y - sn * z;
                        xq[i] = sn * y + c * z;
                    }
                    double *vp = &v[(size_t)p * n], *vq = &v[(size_t)q * n];
                    for (int i = 0; i < n; i++) {
                        double y = vp[i], z = vq[i];
                        vp[i] = c * y - sn * z;
                        vq[i] = sn * y + c * z;
                    }
                }
            }
    }
    *info = converged ? 0 : std::max(1, n - 1);
    std::vector<double> norm(n);
    for (int j = 0; j < n; j++) {
        double t = 0;
        for (int i = 0; i < m; i++)
            t += x[(size_t)j * m + i] * x[(size_t)j * m + i];
        norm[j] = sqrt(t);
    }
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int p, int q) { return norm[p] > norm[q]; });
    const double tiny = (norm.empty() ? 0 : norm[order[0]]) * 1e-13 * m;
    const int uc = jobu == 'A' ? m : n;
    std::vector<double> q((size_t)m * uc, 0.0);
    for (int j = 0; j < n; j++) {
        int k = order[j];
        s[j] = (T)norm[k];
        for (int i = 0; i < m && norm[k] > tiny; i++)
            q[(size_t)j * m + i] = x[(size_t)k * m + i] / norm[k];
        complete_column(m, q, j, norm[k] > tiny);
    }
    for (int j = n; j < uc; j++)
        complete_column(m, q, j, false);
    if (jobu != 'N')
        for (int j = 0; j < uc; j++)
            for (int i = 0; i < m; i++)
                at(u, ldu, i, j) = (T)q[(size_t)j * m + i];
    if (jobvt != 'N') /* VT(j, i) = V(i, order[j]) */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                at(vt, ldvt, j, i) = (T)v[(size_t)order[j] * n + i];
}

bool valid_uplo(cublasFillMode_t uplo)
{
    return uplo == CUBLAS_FILL_MODE_LOWER || uplo == CUBLAS_FILL_MODE_UPPER;
}

bool valid_mode(cusolverEigMode_t jobz)
{
    return jobz == CUSOLVER_EIG_MODE_NOVECTOR || jobz == CUSOLVER_EIG_MODE_VECTOR;
}

cusolverStatus_t syevd_buffer(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo,
                              int n, int lda, int *lwork)
{
    /* "cusolverDn<t>syevd()", return values: INVALID_VALUE for n < 0,
     * lda < max(1, n), or a jobz or uplo out of range. */
    if (!h)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || lda < std::max(1, n) || !valid_uplo(uplo) || !valid_mode(jobz) || !lwork)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *lwork = lwork_eig(n, n);
    return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
cusolverStatus_t syevd(const char *name, cusolverDnHandle_t h, cusolverEigMode_t jobz,
                       cublasFillMode_t uplo, int n, T *a, int lda, T *w, T *work, int lwork,
                       int *info)
{
    int need = 0;
    cusolverStatus_t r = syevd_buffer(h, jobz, uplo, n, lda, &need);
    if (r != CUSOLVER_STATUS_SUCCESS)
        return r;
    check_lwork(name, DOC_WORKSPACE_EIG, "cusolverDn<t>syevd_bufferSize", lwork, need);
    int dev;
    pdt_emu::stream *s = stream_of(h, name, &dev);
    if (emu_solver::fails(dev)) /* Note [fault injection] */
        return CUSOLVER_STATUS_INTERNAL_ERROR;
    const bool vectors = jobz == CUSOLVER_EIG_MODE_VECTOR, upper = uplo == CUBLAS_FILL_MODE_UPPER;
    pdt_emu::enqueue(s, name, [=]() {
        pdt_emu::check_device_access(name, "A", dev, a, span(n, n, lda) * sizeof(T));
        pdt_emu::check_device_access(name, "W", dev, w, (size_t)n * sizeof(T));
        pdt_emu::check_device_access(name, "work", dev, work, (size_t)lwork * sizeof(T));
        pdt_emu::check_device_access(name, "devInfo", dev, info, sizeof(int));
        run_syevd(vectors, upper, n, a, lda, w, info);
    });
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t gesvd_buffer(cusolverDnHandle_t h, int m, int n, int *lwork)
{
    if (!h)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || !lwork)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *lwork = lwork_eig(m, n);
    return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
cusolverStatus_t gesvd(const char *name, cusolverDnHandle_t h, signed char jobu, signed char jobvt,
                       int m, int n, T *a, int lda, T *s, T *u, int ldu, T *vt, int ldvt, T *work,
                       int lwork, T *rwork, int *info)
{
    if (!h)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    /* "cusolverDn<t>gesvd()": jobu and jobvt 'A', 'S', 'O' or 'N' ('O' is not
     * emulated: NOT_SUPPORTED), m >= n (remark: gesvd only supports m >= n),
     * lda >= max(1, m), ldu >= max(1, m), ldvt >= max(1, n). */
    auto job_ok = [](signed char j) { return j == 'A' || j == 'S' || j == 'N' || j == 'O'; };
    if (!job_ok(jobu) || !job_ok(jobvt) || m < n || n < 0 || lda < std::max(1, m) ||
        ldu < std::max(1, m) || ldvt < std::max(1, n))
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (jobu == 'O' || jobvt == 'O')
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    check_lwork(name, DOC_WORKSPACE_EIG, "cusolverDn<t>gesvd_bufferSize", lwork, lwork_eig(m, n));
    int dev;
    pdt_emu::stream *st = stream_of(h, name, &dev);
    if (emu_solver::fails(dev)) /* Note [fault injection] */
        return CUSOLVER_STATUS_INTERNAL_ERROR;
    const int uc = jobu == 'A' ? m : n;
    const char ju = (char)jobu, jv = (char)jobvt;
    pdt_emu::enqueue(st, name, [=]() {
        pdt_emu::check_device_access(name, "A", dev, a, span(m, n, lda) * sizeof(T));
        pdt_emu::check_device_access(name, "S", dev, s, (size_t)n * sizeof(T));
        if (ju != 'N')
            pdt_emu::check_device_access(name, "U", dev, u, span(m, uc, ldu) * sizeof(T));
        if (jv != 'N')
            pdt_emu::check_device_access(name, "VT", dev, vt, span(n, n, ldvt) * sizeof(T));
        pdt_emu::check_device_access(name, "work", dev, work, (size_t)lwork * sizeof(T));
        if (rwork) /* min(m, n) - 1 elements, may be NULL */
            pdt_emu::check_device_access(name, "rwork", dev, rwork,
                                         (size_t)std::max(1, n - 1) * sizeof(T));
        pdt_emu::check_device_access(name, "devInfo", dev, info, sizeof(int));
        run_gesvd(ju, jv, m, n, a, lda, s, u, ldu, vt, ldvt, info);
    });
    return CUSOLVER_STATUS_SUCCESS;
}

} // namespace

EMU_CUSOLVER_API cusolverStatus_t cusolverDnSsyevd_bufferSize(cusolverDnHandle_t h,
                                                              cusolverEigMode_t jobz,
                                                              cublasFillMode_t uplo, int n,
                                                              const float *A, int lda,
                                                              const float *W, int *lwork)
{
    (void)A;
    (void)W;
    return syevd_buffer(h, jobz, uplo, n, lda, lwork);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnDsyevd_bufferSize(cusolverDnHandle_t h,
                                                              cusolverEigMode_t jobz,
                                                              cublasFillMode_t uplo, int n,
                                                              const double *A, int lda,
                                                              const double *W, int *lwork)
{
    (void)A;
    (void)W;
    return syevd_buffer(h, jobz, uplo, n, lda, lwork);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnSsyevd(cusolverDnHandle_t h, cusolverEigMode_t jobz,
                                                   cublasFillMode_t uplo, int n, float *A, int lda,
                                                   float *W, float *work, int lwork, int *info)
{
    return syevd("cusolverDnSsyevd", h, jobz, uplo, n, A, lda, W, work, lwork, info);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnDsyevd(cusolverDnHandle_t h, cusolverEigMode_t jobz,
                                                   cublasFillMode_t uplo, int n, double *A, int lda,
                                                   double *W, double *work, int lwork, int *info)
{
    return syevd("cusolverDnDsyevd", h, jobz, uplo, n, A, lda, W, work, lwork, info);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnSgesvd_bufferSize(cusolverDnHandle_t h, int m, int n,
                                                              int *lwork)
{
    return gesvd_buffer(h, m, n, lwork);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnDgesvd_bufferSize(cusolverDnHandle_t h, int m, int n,
                                                              int *lwork)
{
    return gesvd_buffer(h, m, n, lwork);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnSgesvd(cusolverDnHandle_t h, signed char jobu,
                                                   signed char jobvt, int m, int n, float *A,
                                                   int lda, float *S, float *U, int ldu, float *VT,
                                                   int ldvt, float *work, int lwork, float *rwork,
                                                   int *info)
{
    return gesvd("cusolverDnSgesvd", h, jobu, jobvt, m, n, A, lda, S, U, ldu, VT, ldvt, work, lwork,
                 rwork, info);
}

EMU_CUSOLVER_API cusolverStatus_t cusolverDnDgesvd(cusolverDnHandle_t h, signed char jobu,
                                                   signed char jobvt, int m, int n, double *A,
                                                   int lda, double *S, double *U, int ldu,
                                                   double *VT, int ldvt, double *work, int lwork,
                                                   double *rwork, int *info)
{
    return gesvd("cusolverDnDgesvd", h, jobu, jobvt, m, n, A, lda, S, U, ldu, VT, ldvt, work, lwork,
                 rwork, info);
}
