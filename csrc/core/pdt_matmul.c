/* pdt_matmul.c - matmul, mm, bmm, addmm and dot: validation, the output, and
 * the one GEMM driver that maps strided (batched) operands onto the backend's
 * gemm (see pdt_gemm_args in pdt_backend.h).
 *
 * Note [GEMM operand layouts]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A BLAS multiplies matrices stored row-major with a leading dimension ld
 * (element (i, j) at i*ld + j), optionally read transposed.  A view whose last
 * two strides are (ld, 1) is such a matrix; a view with strides (1, ld) is the
 * transpose of one, stored (cols, rows), and is passed with the transpose flag
 * instead of being copied (x.T @ y, or nn.Linear's weight.T).  Strides of a
 * dimension of size 1 never matter, so a (1, k) row or a (k, 1) column fits
 * either form.  Anything else (negative or zero strides, gaps in both
 * directions, ld past the BLAS's 32-bit int) is copied to a contiguous
 * temporary on the same device first.
 *
 * Note [GEMM batches]
 * ~~~~~~~~~~~~~~~~~~~
 * Batch dimensions broadcast as in NumPy: a dimension an operand lacks, or has
 * with size 1, gets stride 0.  Dimensions of size 1 are dropped, and adjacent
 * dimensions that are laid out back to back in A, B and C are merged.  The
 * innermost remaining dimension becomes the backend's strided batch (one
 * cuBLAS *StridedBatched call); any outer ones are looped over here.  When B
 * is shared by the whole batch and A's matrices follow one another row after
 * row, (batch, m, k) @ (k, n) is one (batch*m, k) @ (k, n) product, which is
 * what a BLAS does best (a linear layer on a 3-D input).
 */
#include "pdt_matmul.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "pdt_ops.h"

#define GEMM_INT_MAX ((int64_t)INT_MAX) /* BLAS and cuBLAS sizes are 32-bit ints */

static atomic_int allow_tf32;
static atomic_int disallow_reduced_f16, disallow_reduced_bf16; /* 0: allowed (the default) */

/* ---------------------------------------------------------------- checks */

static pdt_status check_dtypes(const char *op, int n, const pdt_tensor *const *ts,
                               const char *const *names)
{
    for (int i = 1; i < n; i++)
        if (ts[i]->dtype != ts[0]->dtype)
            return pdt_fail(PDT_ERR_TYPE,
                            "%s: expected '%s' and '%s' to have the same dtype, but got %s and "
                            "%s (convert one with .to(dtype) first)",
                            op, names[0], names[i], pdt_dtype_name(ts[0]->dtype),
                            pdt_dtype_name(ts[i]->dtype));
    if (ts[0]->dtype == PDT_BOOL)
        return pdt_fail(PDT_ERR_UNSUPPORTED,
                        "%s: bool tensors cannot be multiplied (as in PyTorch); convert them with "
                        ".int() or .float() first",
                        op);
    return PDT_OK;
}

/* The same-device rule, then one dtype for every tensor. */
static pdt_status check_inputs(const char *op, int n, const pdt_tensor *const *ts,
                               const char *const *names, pdt_device *device)
{
    pdt_status st = pdt_same_device(op, n, ts, names, device);
    return st != PDT_OK ? st : check_dtypes(op, n, ts, names);
}

static pdt_status check_inner(const char *op, const pdt_tensor *a, const pdt_tensor *b, int64_t ka,
                              int64_t kb)
{
    char sa[160], sb[160], dev[32];
    if (ka == kb)
        return PDT_OK;
    return pdt_fail(PDT_ERR_VALUE,
                    "%s: shapes %s and %s cannot be multiplied (%lld != %lld) (on %s)", op,
                    pdt_shape_str(a->ndim, a->shape, sa, sizeof sa),
                    pdt_shape_str(b->ndim, b->shape, sb, sizeof sb), (long long)ka, (long long)kb,
                    pdt_device_str(a->device, dev, sizeof dev));
}

/* ------------------------------------------------------------ the driver */

/* Note [GEMM operand layouts]: 1 with *trans and *ld set when a (rows, cols)
 * matrix with these strides can go to the BLAS as it is. */
static int matrix_layout(int64_t rows, int64_t cols, int64_t s_row, int64_t s_col, int *trans,
                         int64_t *ld)
{
    /* stored (rows, cols) row-major: op(X) = X */
    if ((cols <= 1 || s_col == 1) && (rows <= 1 || (s_row >= cols && s_row >= 1))) {
        *trans = 0;
        *ld = rows <= 1 ? (cols > 1 ? cols : 1) : s_row;
        if (*ld <= GEMM_INT_MAX)
            return 1;
    }
    /* stored (cols, rows) row-major: op(X) = X^T */
    if ((rows <= 1 || s_row == 1) && (cols <= 1 || (s_col >= rows && s_col >= 1))) {
        *trans = 1;
        *ld = cols <= 1 ? (rows > 1 ? rows : 1) : s_col;
        if (*ld <= GEMM_INT_MAX)
            return 1;
    }
    return 0;
}

/* One matrix operand (batch..., rows, cols) as the BLAS will read it. */
typedef struct gemm_operand {
    pdt_tensor view; /* the caller's view (borrowed: never released), or `copy` */
    pdt_tensor copy; /* an owned contiguous copy when the layout needed one, else zeroed */
    int trans;
    int64_t ld;
} gemm_operand;

static pdt_status operand_prepare(const pdt_tensor *x, gemm_operand *op)
{
    int r = x->ndim - 2, c = x->ndim - 1;
    op->view = *x;
    memset(&op->copy, 0, sizeof op->copy);
    if (matrix_layout(x->shape[r], x->shape[c], x->strides[r], x->strides[c], &op->trans, &op->ld))
        return PDT_OK;
    /* An internal temporary on the operand's own device: not a transfer, and
     * not an op of its own for placement logging. */
    pdt_status st = pdt_tensor_empty(x->device, x->dtype, x->ndim, x->shape, 0, &op->copy);
    if (st != PDT_OK)
        return st;
    st = pdt_backend_of(x->device.kind)->copy_cast(&op->copy, x);
    if (st != PDT_OK)
        return st;
    op->view = op->copy;
    matrix_layout(x->shape[r], x->shape[c], op->view.strides[r], op->view.strides[c], &op->trans,
                  &op->ld); /* contiguous: row-major, ld = max(cols, 1) <= INT_MAX */
    return PDT_OK;
}

/* The batch dimensions of x's view aligned to nb broadcast ones: stride 0
 * where x has no such dimension or has it with size 1. */
static void batch_strides(const pdt_tensor *x, int nb, int64_t *strides)
{
    int own = x->ndim - 2;
    for (int i = 0; i < nb; i++) {
        int j = i - (nb - own);
        strides[i] = (j >= 0 && x->shape[j] != 1) ? x->strides[j] : 0;
    }
}

/* c = beta * c for a half c (contiguous): widened to float32, scaled by the
 * backend's float32 k == 0 GEMM, rounded back. */
static pdt_status scale_half(const pdt_tensor *c, double beta)
{
    const pdt_backend *be = pdt_backend_of(c->device.kind);
    pdt_tensor wide;
    pdt_status st = pdt_tensor_empty(c->device, PDT_FLOAT32, c->ndim, c->shape, 0, &wide);
    if (st != PDT_OK)
        return st;
    int64_t n = c->shape[c->ndim - 1];
    pdt_gemm_args g = {.device_index = c->device.index,
                       .dtype = PDT_FLOAT32,
                       .m = pdt_tensor_numel(c) / n,
                       .n = n,
                       .k = 0,
                       .beta = beta,
                       .lda = 1,
                       .ldb = n,
                       .c = pdt_tensor_ptr(&wide),
                       .ldc = n,
                       .batch = 1};
    st = be->copy_cast(&wide, c);
    if (st == PDT_OK)
        st = be->gemm(&g);
    if (st == PDT_OK)
        st = be->copy_cast(c, &wide);
    pdt_tensor_release(&wide);
    return st;
}

/* c = alpha * a @ b + beta * c.  a: (batch_a..., m, k), b: (batch_b..., k, n),
 * c: (batch..., m, n) contiguous, where batch (nb dims) is the broadcast of
 * batch_a and batch_b.  Everything was validated by the caller. */
static pdt_status run_gemm(const pdt_tensor *a, const pdt_tensor *b, const pdt_tensor *c, int nb,
                           const int64_t *batch_shape, double alpha, double beta)
{
    const pdt_backend *be = pdt_backend_of(c->device.kind);
    int64_t m = c->shape[c->ndim - 2], n = c->shape[c->ndim - 1], k = a->shape[a->ndim - 1];
    gemm_operand A, B, C;
    pdt_status st = PDT_OK;
    memset(&A, 0, sizeof A), memset(&B, 0, sizeof B), memset(&C, 0, sizeof C);

    if (pdt_tensor_numel(c) == 0)
        return PDT_OK;
    if (!be->gemm)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "matrix products are not available on %s devices",
                        be->name);
    if (m > GEMM_INT_MAX || n > GEMM_INT_MAX || k > GEMM_INT_MAX)
        return pdt_fail(PDT_ERR_UNSUPPORTED,
                        "matrix product of (%lld, %lld) by (%lld, %lld): a dimension exceeds the "
                        "BLAS limit of %d",
                        (long long)m, (long long)k, (long long)k, (long long)n, INT_MAX);
    if (k == 0) {
        /* An empty sum: c = beta * c.  c is contiguous, so one (rows, n)
         * call does it; backends handle k == 0 without reading a or b. */
        if (beta == 0.0) /* zeros, without reading c (it may be garbage) */
            return be->fill(c, (pdt_scalar){0, 0.0, 0});
        if (beta == 1.0)
            return PDT_OK;
        if (pdt_dtype_is_half(c->dtype)) /* beta * c in float32, rounded once */
            return scale_half(c, beta);
        pdt_gemm_args g = {.device_index = c->device.index,
                           .dtype = c->dtype,
                           .m = pdt_tensor_numel(c) / n,
                           .n = n,
                           .k = 0,
                           .alpha = alpha,
                           .beta = beta,
                           .lda = 1,
                           .ldb = n,
                           .c = pdt_tensor_ptr(c),
                           .ldc = n,
                           .batch = 1};
        return be->gemm(&g);
    }

    C.view = *c; /* contiguous: row-major with ldc = n */
    if ((st = operand_prepare(a, &A)) != PDT_OK || (st = operand_prepare(b, &B)) != PDT_OK)
        goto done;
    if (!matrix_layout(m, n, c->strides[c->ndim - 2], c->strides[c->ndim - 1], &C.trans, &C.ld) ||
        C.trans) {
        st = pdt_fail(PDT_ERR_BACKEND, "%s: internal error: the output is not row-major", __func__);
        goto done;
    }

    /* Note [GEMM batches]: broadcast, drop size-1 dims, merge. */
    int64_t bsa[PDT_MAX_DIMS], bsb[PDT_MAX_DIMS], bsc[PDT_MAX_DIMS];
    int64_t size[PDT_MAX_DIMS], sa[PDT_MAX_DIMS], sb[PDT_MAX_DIMS], sc[PDT_MAX_DIMS];
    int nd = 0;
    batch_strides(&A.view, nb, bsa);
    batch_strides(&B.view, nb, bsb);
    batch_strides(&C.view, nb, bsc);
    for (int i = 0; i < nb; i++) {
        int64_t s = batch_shape[i];
        if (s == 1)
            continue;
        if (nd > 0 && sa[nd - 1] == bsa[i] * s && sb[nd - 1] == bsb[i] * s &&
            sc[nd - 1] == bsc[i] * s) {
            size[nd - 1] *= s;
            sa[nd - 1] = bsa[i], sb[nd - 1] = bsb[i], sc[nd - 1] = bsc[i];
        } else {
            size[nd] = s, sa[nd] = bsa[i], sb[nd] = bsb[i], sc[nd] = bsc[i];
            nd++;
        }
    }
    int64_t m_eff = m;
    if (nd > 0 && sb[nd - 1] == 0 && !A.trans && sa[nd - 1] == m * A.ld && sc[nd - 1] == m * C.ld &&
        size[nd - 1] <= GEMM_INT_MAX / m) {
        m_eff = m * size[nd - 1]; /* (batch, m, k) @ (k, n) as (batch*m, k) @ (k, n) */
        nd--;
    }

    pdt_gemm_args g = {
        .device_index = c->device.index,
        .dtype = c->dtype,
        .trans_a = A.trans,
        .trans_b = B.trans,
        .m = m_eff,
        .n = n,
        .k = k,
        .alpha = alpha,
        .beta = beta,
        .lda = A.ld,
        .stride_a = nd > 0 ? sa[nd - 1] : 0,
        .ldb = B.ld,
        .stride_b = nd > 0 ? sb[nd - 1] : 0,
        .ldc = C.ld,
        .stride_c = nd > 0 ? sc[nd - 1] : 0,
        .allow_reduced_reduction = pdt_get_allow_reduced_precision_reduction(c->dtype),
    };
    int64_t inner = nd > 0 ? size[nd - 1] : 1, outer = 1;
    for (int d = 0; d + 1 < nd; d++)
        outer *= size[d];
    size_t elsize = pdt_dtype_size(c->dtype);
    const char *pa = pdt_tensor_ptr(&A.view), *pb = pdt_tensor_ptr(&B.view);
    char *pc = pdt_tensor_ptr(&C.view);
    int64_t idx[PDT_MAX_DIMS] = {0};
    for (int64_t o = 0; o < outer && st == PDT_OK; o++) {
        int64_t oa = 0, ob = 0, oc = 0;
        for (int d = 0; d + 1 < nd; d++)
            oa += idx[d] * sa[d], ob += idx[d] * sb[d], oc += idx[d] * sc[d];
        for (int64_t first = 0; first < inner && st == PDT_OK; first += GEMM_INT_MAX) {
            g.batch = inner - first < GEMM_INT_MAX ? inner - first : GEMM_INT_MAX;
            g.a = pa + (oa + first * g.stride_a) * (int64_t)elsize;
            g.b = pb + (ob + first * g.stride_b) * (int64_t)elsize;
            g.c = pc + (oc + first * g.stride_c) * (int64_t)elsize;
            st = be->gemm(&g);
        }
        for (int d = nd - 2; d >= 0; d--) { /* odometer over the outer dims */
            if (++idx[d] < size[d])
                break;
            idx[d] = 0;
        }
    }
done:
    pdt_tensor_release(&A.copy);
    pdt_tensor_release(&B.copy);
    return st;
}

/* A view of out (contiguous) as (batch..., m, n). */
static pdt_tensor output_matrix_view(const pdt_tensor *out, int nb, const int64_t *batch_shape,
                                     int64_t m, int64_t n)
{
    pdt_tensor v = *out; /* borrowed */
    v.ndim = nb + 2;
    memcpy(v.shape, batch_shape, (size_t)nb * sizeof *batch_shape);
    v.shape[nb] = m;
    v.shape[nb + 1] = n;
    pdt_contiguous_strides(v.ndim, v.shape, v.strides);
    return v;
}

static pdt_status multiply(const char *op, pdt_device device, const pdt_tensor *a,
                           const pdt_tensor *b, pdt_tensor *out);

/* uint8, int8 and int16 products, as PyTorch's CPU ones: computed in int32 (whose
 * wrapping sums keep the low bits exact) and wrapped back (Note [small integers]
 * in pdt_dtype.h). */
static pdt_status small_int_product(const char *op, pdt_device device, const pdt_tensor *a,
                                    const pdt_tensor *b, pdt_tensor *out)
{
    pdt_tensor a32, b32, o32;
    memset(&a32, 0, sizeof a32), memset(&b32, 0, sizeof b32), memset(&o32, 0, sizeof o32);
    pdt_status st = pdt_copy_to_new_in_order(a, PDT_INT32, &a32);
    if (st == PDT_OK)
        st = pdt_copy_to_new_in_order(b, PDT_INT32, &b32);
    if (st == PDT_OK)
        st = multiply(op, device, &a32, &b32, &o32);
    if (st == PDT_OK)
        st = pdt_tensor_empty(device, a->dtype, o32.ndim, o32.shape, 0, out);
    if (st == PDT_OK && pdt_tensor_numel(out) > 0) {
        st = pdt_backend_of(device.kind)->copy_cast(out, &o32);
        if (st != PDT_OK)
            pdt_tensor_release(out);
    }
    pdt_tensor_release(&a32);
    pdt_tensor_release(&b32);
    pdt_tensor_release(&o32);
    return st;
}

/* torch.matmul's shape rules for validated a and b on device (see pdt_matmul.h);
 * op names the caller in messages and placement logs. */
static pdt_status multiply(const char *op, pdt_device device, const pdt_tensor *a,
                           const pdt_tensor *b, pdt_tensor *out)
{
    if (pdt_dtype_is_small_int(a->dtype))
        return small_int_product(op, device, a, b, out);
    char s1[160], s2[160];
    if (a->ndim == 0 || b->ndim == 0)
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: both arguments need at least 1 dimension, but they have %d and %d "
                        "(shapes %s and %s)",
                        op, a->ndim, b->ndim, pdt_shape_str(a->ndim, a->shape, s1, sizeof s1),
                        pdt_shape_str(b->ndim, b->shape, s2, sizeof s2));
    /* 1-D operands as (1, k) and (k, 1) matrices (borrowed views) */
    pdt_tensor av = *a, bv = *b;
    if (a->ndim == 1) {
        av.ndim = 2;
        av.shape[0] = 1, av.shape[1] = a->shape[0];
        av.strides[0] = 0, av.strides[1] = a->strides[0];
    }
    if (b->ndim == 1) {
        bv.ndim = 2;
        bv.shape[0] = b->shape[0], bv.shape[1] = 1;
        bv.strides[0] = b->strides[0], bv.strides[1] = 0;
    }
    int64_t m = av.shape[av.ndim - 2], k = av.shape[av.ndim - 1], n = bv.shape[bv.ndim - 1];
    pdt_status st = check_inner(op, a, b, k, bv.shape[bv.ndim - 2]);
    if (st != PDT_OK)
        return st;

    int nba = av.ndim - 2, nbb = bv.ndim - 2, nb = nba > nbb ? nba : nbb;
    int64_t batch[PDT_MAX_DIMS], oshape[PDT_MAX_DIMS];
    for (int i = 0; i < nb; i++) {
        int ia = i - (nb - nba), ib = i - (nb - nbb);
        int64_t da = ia >= 0 ? av.shape[ia] : 1, db = ib >= 0 ? bv.shape[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return pdt_fail(PDT_ERR_VALUE,
                            "%s: the batch dimensions of shapes %s and %s cannot be broadcast "
                            "together (%lld != %lld at batch dimension %d)",
                            op, pdt_shape_str(a->ndim, a->shape, s1, sizeof s1),
                            pdt_shape_str(b->ndim, b->shape, s2, sizeof s2), (long long)da,
                            (long long)db, i);
        batch[i] = da == 1 ? db : da;
    }
    int ondim = nb;
    memcpy(oshape, batch, (size_t)nb * sizeof *batch);
    if (a->ndim >= 2)
        oshape[ondim++] = m;
    if (b->ndim >= 2)
        oshape[ondim++] = n;

    pdt_note_op(op, device);
    st = pdt_tensor_empty(device, a->dtype, ondim, oshape, 0, out);
    if (st != PDT_OK)
        return st;
    pdt_tensor cv = output_matrix_view(out, nb, batch, m, n);
    st = run_gemm(&av, &bv, &cv, nb, batch, 1.0, 0.0);
    if (st != PDT_OK)
        pdt_tensor_release(out);
    return st;
}

/* ------------------------------------------------------------ entry points */

/* op's inputs must have ndim dimensions each. */
static pdt_status check_ndim(const char *op, const pdt_tensor *a, const pdt_tensor *b, int ndim,
                             const char *what)
{
    char s1[160], s2[160], dev[32];
    if (a->ndim == ndim && b->ndim == ndim)
        return PDT_OK;
    return pdt_fail(PDT_ERR_VALUE, "%s: expected two %s (%d-D), but got shapes %s and %s (on %s)",
                    op, what, ndim, pdt_shape_str(a->ndim, a->shape, s1, sizeof s1),
                    pdt_shape_str(b->ndim, b->shape, s2, sizeof s2),
                    pdt_device_str(a->device, dev, sizeof dev));
}

/* The two-operand products: op(input, <second>) with both operands of ndim
 * dimensions (0: any, as matmul).  bmm's batch sizes and dot's lengths must
 * agree: they do not broadcast. */
static pdt_status two_operand_product(const char *op, const char *second, int ndim,
                                      const char *what, const pdt_tensor *a, const pdt_tensor *b,
                                      pdt_tensor *out)
{
    const char *const names[] = {"input", second};
    const pdt_tensor *ts[] = {a, b};
    pdt_device device;
    char s1[160], s2[160];
    memset(out, 0, sizeof *out);
    pdt_status st = check_inputs(op, 2, ts, names, &device);
    if (st == PDT_OK && ndim > 0)
        st = check_ndim(op, a, b, ndim, what);
    if (st == PDT_OK && (ndim == 1 || ndim == 3) && a->shape[0] != b->shape[0])
        st = pdt_fail(PDT_ERR_VALUE, "%s: shapes %s and %s have different %s (%lld != %lld)%s", op,
                      pdt_shape_str(a->ndim, a->shape, s1, sizeof s1),
                      pdt_shape_str(b->ndim, b->shape, s2, sizeof s2),
                      ndim == 3 ? "batch sizes" : "lengths", (long long)a->shape[0],
                      (long long)b->shape[0],
                      ndim == 3 ? "; bmm does not broadcast, matmul does" : "");
    return st != PDT_OK ? st : multiply(op, device, a, b, out);
}

pdt_status pdt_matmul(const pdt_tensor *a, const pdt_tensor *b, pdt_tensor *out)
{
    return two_operand_product("matmul", "other", 0, NULL, a, b, out);
}

pdt_status pdt_mm(const pdt_tensor *a, const pdt_tensor *b, pdt_tensor *out)
{
    return two_operand_product("mm", "mat2", 2, "matrices", a, b, out);
}

pdt_status pdt_bmm(const pdt_tensor *a, const pdt_tensor *b, pdt_tensor *out)
{
    return two_operand_product("bmm", "mat2", 3, "batches of matrices", a, b, out);
}

pdt_status pdt_dot(const pdt_tensor *a, const pdt_tensor *b, pdt_tensor *out)
{
    return two_operand_product("dot", "tensor", 1, "vectors", a, b, out);
}

static double scalar_value(pdt_scalar s) { return s.is_float ? s.f : (double)s.i; }

pdt_status pdt_addmm(const pdt_tensor *input, const pdt_tensor *mat1, const pdt_tensor *mat2,
                     pdt_scalar beta, pdt_scalar alpha, pdt_tensor *out)
{
    static const char *const names[] = {"input", "mat1", "mat2"};
    const pdt_tensor *ts[] = {input, mat1, mat2};
    pdt_device device;
    char s1[160], s2[160];
    memset(out, 0, sizeof *out);
    pdt_status st = check_inputs("addmm", 3, ts, names, &device);
    if (st == PDT_OK)
        st = check_ndim("addmm", mat1, mat2, 2, "matrices");
    if (st == PDT_OK)
        st = check_inner("addmm", mat1, mat2, mat1->shape[1], mat2->shape[0]);
    if (st != PDT_OK)
        return st;
    int64_t m = mat1->shape[0], n = mat2->shape[1], shape[2] = {m, n};
    /* input broadcast to (m, n): a borrowed view with stride 0 where it repeats */
    pdt_tensor iv = *input;
    iv.ndim = 2;
    for (int i = 0; i < 2; i++) {
        int j = i - (2 - input->ndim);
        int64_t s = j >= 0 ? input->shape[j] : 1;
        if (input->ndim > 2 || (s != shape[i] && s != 1))
            return pdt_fail(PDT_ERR_VALUE,
                            "addmm: input of shape %s cannot be broadcast to the product's "
                            "shape %s",
                            pdt_shape_str(input->ndim, input->shape, s1, sizeof s1),
                            pdt_shape_str(2, shape, s2, sizeof s2));
        iv.shape[i] = shape[i];
        iv.strides[i] = s == 1 ? 0 : input->strides[j];
    }
    if (!pdt_dtype_is_floating(mat1->dtype) && (beta.is_float || alpha.is_float))
        return pdt_fail(PDT_ERR_TYPE,
                        "addmm: for %s tensors, beta and alpha must be integers, got %g and %g",
                        pdt_dtype_name(mat1->dtype), scalar_value(beta), scalar_value(alpha));
    double b = scalar_value(beta), a = scalar_value(alpha);

    pdt_note_op("addmm", device);
    st = pdt_tensor_empty(device, mat1->dtype, 2, shape, 0, out);
    if (st != PDT_OK)
        return st;
    /* out = input (broadcast), then the GEMM adds alpha * mat1 @ mat2 to
     * beta * out.  beta == 0 never reads out, so input's values do not matter. */
    if (b != 0.0 && m * n > 0)
        st = pdt_backend_of(device.kind)->copy_cast(out, &iv);
    if (st == PDT_OK) {
        int64_t none[1] = {0};
        st = run_gemm(mat1, mat2, out, 0, none, a, b);
    }
    if (st != PDT_OK)
        pdt_tensor_release(out);
    return st;
}

/* --------------------------------------------------------------- TF32 */

void pdt_set_allow_tf32(int allow)
{
    atomic_store(&allow_tf32, allow != 0);
    for (int kind = 0; kind < PDT_NUM_KINDS; kind++) {
        const pdt_backend *b = pdt_backend_of(kind);
        if (b && b->set_allow_tf32)
            b->set_allow_tf32(allow != 0);
    }
}

int pdt_get_allow_tf32(void) { return atomic_load(&allow_tf32); }

/* ------------------------------------------- half-precision reductions */

void pdt_set_allow_reduced_precision_reduction(pdt_dtype dtype, int allow)
{
    if (dtype == PDT_FLOAT16)
        atomic_store(&disallow_reduced_f16, !allow);
    else if (dtype == PDT_BFLOAT16)
        atomic_store(&disallow_reduced_bf16, !allow);
}

int pdt_get_allow_reduced_precision_reduction(pdt_dtype dtype)
{
    if (dtype == PDT_FLOAT16)
        return !atomic_load(&disallow_reduced_f16);
    if (dtype == PDT_BFLOAT16)
        return !atomic_load(&disallow_reduced_bf16);
    return 0;
}
