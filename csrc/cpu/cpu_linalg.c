/* cpu_linalg.c - the CPU backend's singular values: one-sided Jacobi
 * (Hestenes) in float64, on a copy of each matrix stored by columns.
 *
 * Note [one-sided Jacobi]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * Plane rotations applied from the right make the columns of W = A V
 * mutually orthogonal; then the column norms are the singular values.  A
 * pair (p, q) is rotated while |<w_p, w_q>| > eps * |w_p| |w_q|; the sweeps
 * stop when none is (quadratic convergence: ~6-10 sweeps for n <= 100), or
 * after 64 (NaN or inf inputs).  With more columns than rows the transpose
 * is used (the same singular values, min(m, n) columns).  Accuracy: each
 * value to a few ulps of the largest (Demmel and Veselic, 1992). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"

static void sort_descending(double *v, int64_t k)
{
    for (int64_t i = 1; i < k; i++) {
        double x = v[i];
        int64_t j = i;
        for (; j > 0 && !(v[j - 1] >= x); j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* w: k columns of length r, column c at w + c * r. */
static void jacobi(double *w, int64_t r, int64_t k, double *sv)
{
    const double eps = 1e-15;
    for (int sweep = 0; sweep < 64; sweep++) {
        int rotated = 0;
        for (int64_t p = 0; p < k - 1; p++) {
            for (int64_t q = p + 1; q < k; q++) {
                double *wp = w + p * r, *wq = w + q * r, alpha = 0, beta = 0, gamma = 0;
                for (int64_t i = 0; i < r; i++) {
                    alpha += wp[i] * wp[i];
                    beta += wq[i] * wq[i];
                    gamma += wp[i] * wq[i];
                }
                if (!(fabs(gamma) > eps * sqrt(alpha * beta)))
                    continue;
                rotated = 1;
                double zeta = (beta - alpha) / (2.0 * gamma);
                double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
                double c = 1.0 / sqrt(1.0 + t * t), s = c * t;
                for (int64_t i = 0; i < r; i++) {
                    double a = wp[i], b = wq[i];
                    wp[i] = c * a - s * b;
                    wq[i] = s * a + c * b;
                }
            }
        }
        if (!rotated)
            break;
    }
    for (int64_t c = 0; c < k; c++) {
        double s = 0;
        for (int64_t i = 0; i < r; i++)
            s += w[c * r + i] * w[c * r + i];
        sv[c] = sqrt(s);
    }
    sort_descending(sv, k);
}

pdt_status pdt_cpu_singular_values(const pdt_tensor *x, const pdt_tensor *out)
{
    const int64_t m = x->shape[x->ndim - 2], n = x->shape[x->ndim - 1];
    const int64_t k = m < n ? m : n, r = m < n ? n : m; /* k columns of length r */
    const int64_t batch = pdt_tensor_numel(out) / (k ? k : 1);
    double *w = malloc((size_t)(r * k) * sizeof *w + 1);
    if (!w)
        return pdt_fail(PDT_ERR_OOM, "singular_values: no memory for a %lld x %lld copy",
                        (long long)r, (long long)k);
    const double *a = (const double *)pdt_tensor_ptr(x);
    double *sv = (double *)pdt_tensor_ptr(out);
    for (int64_t b = 0; b < batch; b++, a += m * n, sv += k) {
        /* column c of W: column c of A (m >= n), or row c of A (m < n) */
        for (int64_t c = 0; c < k; c++)
            for (int64_t i = 0; i < r; i++)
                w[c * r + i] = m >= n ? a[i * n + c] : a[c * n + i];
        jacobi(w, r, k, sv);
    }
    free(w);
    return PDT_OK;
}
