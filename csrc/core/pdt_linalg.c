/* pdt_linalg.c - the checks in front of the backends' LU and Cholesky
 * factorizations (pdt_linalg.h). */
#include "pdt_linalg.h"

#include "pdt_backend.h"
#include "pdt_runtime.h"

/* ---- LU and Cholesky (Note [column-major factorizations] in pdt_linalg.h) ---- */

/* 0 when a is a contiguous float32/float64 (..., n, n) matrix stack, else -1
 * with the message set; writes a's device into dn[32]. */
static int square_batch(const char *op, const pdt_tensor *a, char *dn)
{
    char sa[160];
    pdt_device_str(a->device, dn, 32);
    if (a->ndim < 2 || a->shape[a->ndim - 1] != a->shape[a->ndim - 2] ||
        !pdt_tensor_is_contiguous(a) || (a->dtype != PDT_FLOAT32 && a->dtype != PDT_FLOAT64)) {
        pdt_fail(PDT_ERR_VALUE,
                 "%s: expected contiguous float32 or float64 square matrices (..., n, n), "
                 "got %s %s (on %s)",
                 op, pdt_dtype_name(a->dtype), pdt_shape_str(a->ndim, a->shape, sa, sizeof sa), dn);
        return -1;
    }
    return 0;
}

/* The product of t's dims before its last `trailing` ones (a batch count that a
 * zero-size n does not hide). */
static int64_t batch_of(const pdt_tensor *a, int trailing)
{
    int64_t b = 1;
    for (int d = 0; d < a->ndim - trailing; d++)
        b *= a->shape[d];
    return b;
}

/* t is a contiguous int32 tensor of `count` elements on a's device. */
static pdt_status check_int32(const char *op, const char *what, const pdt_tensor *t, int64_t count,
                              const pdt_tensor *a, const char *dn)
{
    char st[160];
    if (t->dtype == PDT_INT32 && pdt_tensor_is_contiguous(t) && pdt_tensor_numel(t) == count &&
        pdt_device_eq(t->device, a->device))
        return PDT_OK;
    return pdt_fail(PDT_ERR_VALUE,
                    "%s: expected %s as a contiguous int32 tensor of %lld elements on %s, got "
                    "%s %s",
                    op, what, (long long)count, dn, pdt_dtype_name(t->dtype),
                    pdt_shape_str(t->ndim, t->shape, st, sizeof st));
}

static pdt_status unsupported(const char *op, const char *dn)
{
    return pdt_fail(PDT_ERR_UNSUPPORTED,
                    "%s is not computed on %s by this build of pydevtensor; move the matrix "
                    "to the CPU first with .cpu() (a counted copy)",
                    op, dn);
}

pdt_status pdt_lu_factor(const pdt_tensor *a, const pdt_tensor *pivots, const pdt_tensor *info)
{
    char dn[32];
    if (square_batch("lu_factor", a, dn) < 0)
        return PDT_ERR_VALUE;
    int64_t batch = batch_of(a, 2), n = a->shape[a->ndim - 1];
    pdt_status st = check_int32("lu_factor", "pivots", pivots, batch * n, a, dn);
    if (st == PDT_OK)
        st = check_int32("lu_factor", "info", info, batch, a, dn);
    if (st != PDT_OK)
        return st;
    const pdt_backend *be = pdt_backend_of(a->device.kind);
    if (!be->lu_factor)
        return unsupported("the LU factorization (linalg.solve, inv, det, slogdet)", dn);
    pdt_note_op("lu_factor", a->device);
    if (batch == 0 || n == 0) /* info stays as the caller made it (zeros) */
        return PDT_OK;
    return be->lu_factor(a, pivots, info);
}

pdt_status pdt_lu_solve(const pdt_tensor *lu, const pdt_tensor *pivots, const pdt_tensor *b)
{
    char dn[32], sl[160], sb[160];
    if (square_batch("lu_solve", lu, dn) < 0)
        return PDT_ERR_VALUE;
    int64_t batch = batch_of(lu, 2), n = lu->shape[lu->ndim - 1];
    pdt_status st = check_int32("lu_solve", "pivots", pivots, batch * n, lu, dn);
    if (st != PDT_OK)
        return st;
    if (b->ndim < 2 || b->shape[b->ndim - 1] != n || b->dtype != lu->dtype ||
        !pdt_tensor_is_contiguous(b) || !pdt_device_eq(b->device, lu->device) ||
        batch_of(b, 2) != batch)
        return pdt_fail(PDT_ERR_VALUE,
                        "lu_solve: expected right-hand sides as a contiguous %s (..., k, %lld) "
                        "with the factors' %lld matrices (factors %s) on %s, got %s %s",
                        pdt_dtype_name(lu->dtype), (long long)n, (long long)batch,
                        pdt_shape_str(lu->ndim, lu->shape, sl, sizeof sl), dn,
                        pdt_dtype_name(b->dtype), pdt_shape_str(b->ndim, b->shape, sb, sizeof sb));
    const pdt_backend *be = pdt_backend_of(lu->device.kind);
    if (!be->lu_solve)
        return unsupported("the LU solve (linalg.solve, inv)", dn);
    if (lu->device.kind == PDT_CPU) { /* host memory: a pass over batch * n ints */
        const int32_t *p = (const int32_t *)pdt_tensor_ptr(pivots);
        for (int64_t i = 0; i < batch * n; i++)
            if (p[i] < 1 || p[i] > n)
                return pdt_fail(PDT_ERR_VALUE,
                                "lu_solve: pivot %lld is %d, outside [1, %lld] for matrices of "
                                "size %lld (on %s)",
                                (long long)i, (int)p[i], (long long)n, (long long)n, dn);
    }
    pdt_note_op("lu_solve", lu->device);
    if (pdt_tensor_numel(b) == 0)
        return PDT_OK;
    return be->lu_solve(lu, pivots, b);
}

pdt_status pdt_cholesky_factor(const pdt_tensor *a, int upper, const pdt_tensor *info)
{
    char dn[32];
    if (square_batch("cholesky", a, dn) < 0)
        return PDT_ERR_VALUE;
    int64_t batch = batch_of(a, 2);
    pdt_status st = check_int32("cholesky", "info", info, batch, a, dn);
    if (st != PDT_OK)
        return st;
    const pdt_backend *be = pdt_backend_of(a->device.kind);
    if (!be->cholesky)
        return unsupported("the Cholesky factorization (linalg.cholesky)", dn);
    pdt_note_op("cholesky", a->device);
    if (batch == 0 || a->shape[a->ndim - 1] == 0)
        return PDT_OK;
    return be->cholesky(a, upper != 0, info);
}

/* ---- eigh and svd ---- */

/* t is a contiguous tensor of a's dtype and device, of a's batch dims followed
 * by the `k` trailing sizes in `last`. */
static pdt_status check_like(const char *op, const char *what, const pdt_tensor *t,
                             const pdt_tensor *a, int k, const int64_t *last, const char *dn)
{
    char st[160], sa[160];
    int nb = a->ndim - 2, ok = t && t->ndim == nb + k && t->dtype == a->dtype &&
                               pdt_tensor_is_contiguous(t) && pdt_device_eq(t->device, a->device);
    for (int d = 0; ok && d < nb; d++)
        ok = t->shape[d] == a->shape[d];
    for (int d = 0; ok && d < k; d++)
        ok = t->shape[nb + d] == last[d];
    if (ok)
        return PDT_OK;
    return pdt_fail(PDT_ERR_VALUE,
                    "%s: expected %s as a contiguous %s tensor with the batch dims of %s and "
                    "%d more dims (on %s), got %s %s",
                    op, what, pdt_dtype_name(a->dtype),
                    pdt_shape_str(a->ndim, a->shape, sa, sizeof sa), k, dn,
                    t ? pdt_dtype_name(t->dtype) : "none",
                    t ? pdt_shape_str(t->ndim, t->shape, st, sizeof st) : "");
}

pdt_status pdt_eigh(const pdt_tensor *a, int upper, int vectors, const pdt_tensor *w,
                    const pdt_tensor *info)
{
    char dn[32];
    if (square_batch("eigh", a, dn) < 0)
        return PDT_ERR_VALUE;
    int64_t batch = batch_of(a, 2), n = a->shape[a->ndim - 1];
    pdt_status st = check_like("eigh", "the eigenvalues", w, a, 1, &n, dn);
    if (st == PDT_OK)
        st = check_int32("eigh", "info", info, batch, a, dn);
    if (st != PDT_OK)
        return st;
    const pdt_backend *be = pdt_backend_of(a->device.kind);
    if (!be->eigh)
        return unsupported("the symmetric eigen decomposition (linalg.eigh, eigvalsh)", dn);
    pdt_note_op("eigh", a->device);
    if (batch == 0 || n == 0)
        return PDT_OK;
    return be->eigh(a, upper != 0, vectors != 0, w, info);
}

pdt_status pdt_svd(const pdt_tensor *a, int vectors, const pdt_tensor *s, const pdt_tensor *u,
                   const pdt_tensor *vt, const pdt_tensor *info)
{
    char dn[32], sa[160];
    pdt_device_str(a->device, dn, sizeof dn);
    if (a->ndim < 2 || a->shape[a->ndim - 2] > a->shape[a->ndim - 1] ||
        !pdt_tensor_is_contiguous(a) || (a->dtype != PDT_FLOAT32 && a->dtype != PDT_FLOAT64) ||
        vectors < 0 || vectors > 2)
        return pdt_fail(PDT_ERR_VALUE,
                        "svd: expected contiguous float32 or float64 m x n matrices with m >= n "
                        "stored by columns (..., n, m) and vectors 0, 1 or 2, got %s %s and %d "
                        "(on %s)",
                        pdt_dtype_name(a->dtype), pdt_shape_str(a->ndim, a->shape, sa, sizeof sa),
                        vectors, dn);
    int64_t batch = batch_of(a, 2), n = a->shape[a->ndim - 2], m = a->shape[a->ndim - 1];
    int64_t ushape[2] = {vectors == 2 ? m : n, m}, vshape[2] = {n, n};
    pdt_status st = check_like("svd", "the singular values", s, a, 1, &n, dn);
    if (st == PDT_OK && vectors)
        st = check_like("svd", "U", u, a, 2, ushape, dn);
    if (st == PDT_OK && vectors)
        st = check_like("svd", "V^T", vt, a, 2, vshape, dn);
    if (st == PDT_OK)
        st = check_int32("svd", "info", info, batch, a, dn);
    if (st != PDT_OK)
        return st;
    const pdt_backend *be = pdt_backend_of(a->device.kind);
    if (!be->svd)
        return unsupported("the singular value decomposition (linalg.svd, svdvals)", dn);
    pdt_note_op("svd", a->device);
    if (batch == 0 || n == 0) /* the caller fills U (the identity) itself */
        return PDT_OK;
    return be->svd(a, vectors, s, vectors ? u : NULL, vectors ? vt : NULL, info);
}

/* ---- QR ---- */

/* 0 when a is a contiguous float32/float64 stack of matrices stored by
 * columns, (..., cols, rows), and tau (..., k) fits; else the message set. */
static pdt_status qr_check(const char *op, const pdt_tensor *a, const pdt_tensor *tau, int64_t k,
                           char *dn)
{
    char sa[160];
    pdt_device_str(a->device, dn, 32);
    if (a->ndim < 2 || !pdt_tensor_is_contiguous(a) ||
        (a->dtype != PDT_FLOAT32 && a->dtype != PDT_FLOAT64))
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: expected contiguous float32 or float64 matrices stored by columns "
                        "(..., n, m), got %s %s (on %s)",
                        op, pdt_dtype_name(a->dtype),
                        pdt_shape_str(a->ndim, a->shape, sa, sizeof sa), dn);
    return check_like(op, "tau", tau, a, 1, &k, dn);
}

pdt_status pdt_qr_factor(const pdt_tensor *a, const pdt_tensor *tau)
{
    char dn[32];
    int64_t n = a->ndim >= 2 ? a->shape[a->ndim - 2] : 0,
            m = a->ndim >= 2 ? a->shape[a->ndim - 1] : 0;
    pdt_status st = qr_check("qr_factor", a, tau, m < n ? m : n, dn);
    if (st != PDT_OK)
        return st;
    const pdt_backend *be = pdt_backend_of(a->device.kind);
    if (!be->qr_factor)
        return unsupported("the QR factorization (linalg.qr)", dn);
    pdt_note_op("qr_factor", a->device);
    if (batch_of(a, 2) == 0 || m == 0 || n == 0)
        return PDT_OK;
    return be->qr_factor(a, tau);
}

pdt_status pdt_qr_orgqr(const pdt_tensor *q, const pdt_tensor *tau)
{
    char dn[32], sq[160];
    int64_t c = q->ndim >= 2 ? q->shape[q->ndim - 2] : 0,
            m = q->ndim >= 2 ? q->shape[q->ndim - 1] : 0;
    int64_t k = tau->ndim >= 1 ? tau->shape[tau->ndim - 1] : -1;
    pdt_status st = qr_check("qr_orgqr", q, tau, k, dn);
    if (st != PDT_OK)
        return st;
    if (!(m >= c && c >= k))
        return pdt_fail(PDT_ERR_VALUE,
                        "qr_orgqr: expected m >= c >= k for Q of m x c (stored as %s) from k = "
                        "%lld reflectors (on %s)",
                        pdt_shape_str(q->ndim, q->shape, sq, sizeof sq), (long long)k, dn);
    const pdt_backend *be = pdt_backend_of(q->device.kind);
    if (!be->qr_orgqr)
        return unsupported("forming Q (linalg.qr)", dn);
    pdt_note_op("qr_orgqr", q->device);
    if (batch_of(q, 2) == 0 || c == 0)
        return PDT_OK;
    return be->qr_orgqr(q, tau);
}
