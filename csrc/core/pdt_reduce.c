/* pdt_reduce.c - the validated reductions (see pdt_reduce.h): dims are checked
 * and sorted into kept and reduced ones, the input is laid out as a contiguous
 * (m, k) matrix, the backend reduces each row, and the (m,) result takes the
 * output's shape. */
#include "pdt_reduce.h"

#include <string.h>

#include "pdt_ops.h"
#include "pdt_view.h"

static const char *op_name(pdt_reduce_op op)
{
    switch (op) {
    case PDT_REDUCE_SUM: return "sum";
    case PDT_REDUCE_PROD: return "prod";
    case PDT_REDUCE_MAX: return "max";
    case PDT_REDUCE_MIN: return "min";
    case PDT_REDUCE_ARGMAX: return "argmax";
    case PDT_REDUCE_ARGMIN: return "argmin";
    case PDT_REDUCE_SUM_SQUARES:
    case PDT_REDUCE_SUM_ABS: return "norm";
    case PDT_REDUCE_MEAN: return "mean";
    }
    return "reduce";
}

pdt_dtype pdt_reduce_out_dtype(pdt_reduce_op op, pdt_dtype x_dtype)
{
    switch (op) {
    case PDT_REDUCE_ARGMAX:
    case PDT_REDUCE_ARGMIN: return PDT_INT64;
    case PDT_REDUCE_SUM:
    case PDT_REDUCE_PROD: return pdt_dtype_is_floating(x_dtype) ? x_dtype : PDT_INT64;
    /* the 2-norm's sum of squares: kept in double until after the square root
     * (Note [reduction accuracy]) */
    case PDT_REDUCE_SUM_SQUARES: return pdt_dtype_is_floating(x_dtype) ? PDT_FLOAT64 : x_dtype;
    default: return x_dtype;
    }
}

/* An input laid out for the backend, and the output's shape. */
typedef struct plan {
    /* (m, k): a borrowed view of the input (no storage reference of its own: the
     * input outlives the plan), or, when owned, a contiguous copy */
    pdt_tensor rows;
    int owned;
    int64_t m, k;
    /* outer > 1: rows is one of outer slices of the input, in_step elements apart,
     * each giving m / outer results (Note [a middle block of dims]) */
    int64_t outer, in_step;
    /* two_outer > 0: rows is the input as (O K, I), reduced to O K partial results,
     * which are then reduced down their O columns (Note [outer and inner dims]) */
    int64_t two_outer;
    int out_ndim;
    int64_t out_shape[PDT_MAX_DIMS];
} plan;

static int needs_values(pdt_reduce_op op)
{
    return op == PDT_REDUCE_MAX || op == PDT_REDUCE_MIN || op == PDT_REDUCE_ARGMAX ||
           op == PDT_REDUCE_ARGMIN;
}

/* Note [strided reductions]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * When the kept dims of a view merge into one stride and the reduced dims
 * into another (a[:, ::2].sum(1), a[::3].max(), a.T[::2].sum(0)...), the CPU
 * backend reduces the (m, k) view with those strides in place, gathering one
 * chunk of a row at a time into a small buffer (so the sum is formed exactly
 * as for the same values laid out contiguously), instead of copying the whole
 * view first: a[:, ::2].sum(1) of a 1e8-element float32 matrix no longer
 * allocates 200 MB.  When the kept stride is 1 and the reduced one at least
 * m (a[::2].sum(0)), the backend reads it as columns whose rows are that
 * stride apart, row by row, as it reads a row-major matrix's sum(0), instead
 * of gathering each output's elements down a column.  Other layouts, dtype
 * casts and the CUDA backend still copy into a contiguous (m, k) block. */

/* The single stride of dims [from, to) of t (size-1 dims skipped) into *s,
 * when they merge into one dim; 1 if so.  No dims: any stride (1). */
static int merged_stride(const pdt_tensor *t, int from, int to, int64_t *s)
{
    int64_t stride = 1, size = 1;
    int any = 0;
    for (int i = to - 1; i >= from; i--) {
        if (t->shape[i] == 1)
            continue;
        if (!any)
            stride = t->strides[i];
        else if (t->strides[i] != stride * size)
            return 0;
        size *= t->shape[i];
        any = 1;
    }
    *s = stride;
    return 1;
}

/* Note [reduced dims in memory order]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The reduced dims are read in the input's memory order (Note [memory order]
 * in pdt_tensor.h), not in their logical order, as NumPy's and PyTorch's
 * reductions read them: a.T.sum() reads a front to back, so it is a.sum() to
 * the bit and needs no copy (1e4 x 1e4 float32 on two threads: 98-104 ms ->
 * 26, as a.sum(); a.T.max() 77-91 -> 17, a.max() 13-17).  Sums and products
 * are formed in that order, on every device; max and min are the same in any
 * order (but for which of 0.0 and -0.0 a tie between them gives, as in NumPy
 * and PyTorch); argmax and argmin keep the logical order, whose flat index they
 * return (max and min with indices reduce one dim: no order to choose). */
static void in_memory_order(const pdt_tensor *x, int *dims, int n)
{
    if (n < 2)
        return;
    pdt_tensor r; /* only the reduced dims, for pdt_memory_order */
    pdt_tensor_permuted(&r, x, n, dims);
    int perm[PDT_MAX_DIMS], was[PDT_MAX_DIMS];
    if (!pdt_memory_order(&r, perm))
        return;
    memcpy(was, dims, (size_t)n * sizeof *dims);
    for (int i = 0; i < n; i++)
        dims[i] = was[perm[i]];
}

/* Note [a middle block of dims]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * x contiguous with its reduced dims one block between kept ones, (O, K, I) once
 * merged (x.sum(1) of a (32, 64, 128) tensor, a mean over a sequence's positions):
 * neither (kept, reduced) nor (reduced, kept) is contiguous, and the input was
 * copied into (O I, K) rows first (0.15 ms, NumPy's sum 0.08).  On the CPU each of
 * the O slices is instead a (K, I) block whose I columns are reduced in place, as
 * sum(0) of a matrix (Note [CPU reduction order] in csrc/cpu/cpu_reduce.c): one
 * backend call a slice, no copy.  The columns are folded in order (sums in
 * double), where the copied rows were summed pairwise (in double): float32 sums
 * agree but for rare last-bit ties, as sum(0) and sum(1) of one matrix do. */
/* 1 when the dims of x that are reduced (block_reduced 1) or kept (0) form one block
 * with dims on both sides, setting the element counts before and after it; needs O
 * and I of at least 2, and x contiguous. */
static int one_block(const pdt_tensor *x, const int *reduced, int ndims, int block_reduced,
                     int64_t *outer, int64_t *inner)
{
    int first = -1, last = -1;
    for (int d = 0; d < x->ndim; d++)
        if ((ndims < 0 || reduced[d]) == block_reduced) {
            if (first < 0)
                first = d;
            else if (last != d - 1)
                return 0; /* not one block */
            last = d;
        }
    if (first <= 0 || last >= x->ndim - 1 || !pdt_tensor_is_contiguous(x))
        return 0;
    int64_t o = 1, i = 1;
    for (int d = 0; d < first; d++)
        o *= x->shape[d];
    for (int d = last + 1; d < x->ndim; d++)
        i *= x->shape[d];
    *outer = o, *inner = i;
    return o > 1 && i > 1;
}

/* Note [outer and inner dims]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * x contiguous with its kept dims one block between reduced ones, (O, K, I) once
 * merged: BatchNorm's statistics, x.sum((0, 2, 3)) of an (N, C, H, W) batch.  Neither
 * layout is contiguous and the input was copied into (K, O I) rows first ((32, 64, 28,
 * 28) float32, one thread: 1.29 ms; NumPy 0.49, PyTorch 0.29).  On the CPU the rows
 * (O K, I) are reduced in place to O K partial results (I elements each), and those,
 * an (O, K) matrix, down their columns (0.35 ms): sum, mean (every partial mean is of
 * I values, so their mean is the mean), max and min, and the norms' sums of squares
 * or of magnitudes (then summed).  A float32 sum rounds its O partial sums to float32
 * before adding them, where the copy summed each output's O I values in double: the
 * results differ in the last bits, within float32 summation's usual error (prod, the
 * arg ops and casts keep the copy). */
static int outer_and_inner(const pdt_tensor *x, pdt_reduce_op op, pdt_dtype as, const int *reduced,
                           int ndims, int64_t *outer, int64_t *inner)
{
    if (x->device.kind != PDT_CPU || as != x->dtype || ndims < 0 || op == PDT_REDUCE_PROD ||
        op == PDT_REDUCE_ARGMAX || op == PDT_REDUCE_ARGMIN)
        return 0;
    return one_block(x, reduced, ndims, 0, outer, inner);
}

/* Checks dims, sorts the input's dims into kept and reduced ones and lays the
 * input out as (m, k) in dtype `as` (a copy only when the permuted view is not
 * contiguous or the dtype changes).  Notes the op. */
static pdt_status plan_reduce(const char *name, pdt_reduce_op op, const pdt_tensor *x, int ndims,
                              const int64_t *dims, int keepdim, pdt_dtype as, plan *p)
{
    int reduced[PDT_MAX_DIMS] = {0};
    char shape[200];
    pdt_tensor_forget(&p->rows); /* the rest is set below (zeroing the whole plan cost a */
                                 /* 450-byte memset a reduction) */
    p->owned = 0;
    p->out_ndim = 0;
    p->outer = 1, p->in_step = 0, p->two_outer = 0;
    if (ndims > PDT_MAX_DIMS && x->ndim > 0)
        return pdt_fail(PDT_ERR_VALUE, "%s(): %d dims given for a tensor with %d dimensions", name,
                        ndims, x->ndim);
    for (int i = 0; i < ndims; i++) {
        int d = 0;
        pdt_status st = pdt_wrap_dim(name, dims[i], x, &d);
        if (st != PDT_OK)
            return st;
        if (x->ndim > 0 && reduced[d]++)
            return pdt_fail(PDT_ERR_VALUE,
                            "%s(): dim %d appears more than once in the list of dims", name, d);
    }
    /* Kept dims first, then the reduced ones, each in their order. */
    int order[PDT_MAX_DIMS], n = 0;
    p->m = p->k = 1;
    for (int d = 0; d < x->ndim; d++) {
        int r = ndims < 0 || reduced[d];
        if (!r) {
            order[n++] = d;
            p->m *= x->shape[d];
            p->out_shape[p->out_ndim++] = x->shape[d];
        } else if (keepdim) {
            p->out_shape[p->out_ndim++] = 1;
        }
    }
    const int nkept = n;
    for (int d = 0; d < x->ndim; d++)
        if (ndims < 0 || reduced[d]) {
            order[n++] = d;
            p->k *= x->shape[d];
        }
    if (op != PDT_REDUCE_ARGMAX && op != PDT_REDUCE_ARGMIN)
        in_memory_order(x, order + nkept, n - nkept);
    if (p->k == 0 && needs_values(op)) {
        int zero = 0;
        while (x->shape[zero] != 0 || !(ndims < 0 || reduced[zero]))
            zero++;
        return pdt_fail(PDT_ERR_INDEX,
                        "%s(): cannot reduce over dim %d of size 0 (input of shape %s): an empty "
                        "reduction has no %s; reduce over dims whose size is not 0",
                        name, zero, pdt_shape_str(x->ndim, x->shape, shape, sizeof shape),
                        op == PDT_REDUCE_MAX || op == PDT_REDUCE_ARGMAX ? "maximum" : "minimum");
    }
    pdt_note_op(name, x->device);
    if (p->m == 0)
        return PDT_OK; /* nothing to compute: the output is empty */

    /* rows: (kept..., reduced...) is contiguous; columns: (reduced...,
     * kept...) is, and the backend reads the (m, k) view with strides (1, m). */
    /* perm, built in place in p->rows, and cols: borrowed (no reference taken) */
    pdt_tensor *perm = &p->rows, cols;
    int corder[PDT_MAX_DIMS];
    for (int i = 0; i < n; i++)
        corder[i] = order[(i + nkept) % n]; /* the reduced dims first */
    pdt_tensor_permuted(perm, x, n, order);
    pdt_tensor_permuted(&cols, x, n, corder);
    int64_t row_stride = p->k, col_stride = 1, outer, inner;
    pdt_status st = PDT_OK;
    if (as == x->dtype && pdt_tensor_is_contiguous(perm)) {
        /* rows as they are */
    } else if (p->k > 1 && outer_and_inner(x, op, as, reduced, ndims, &outer, &inner)) {
        /* (O K, I) rows, then O columns (Note [outer and inner dims]) */
        pdt_tensor_assign(perm, x); /* borrowed, as the permuted view was */
        p->two_outer = outer;
        p->rows.ndim = 2;
        p->rows.shape[0] = p->m * outer, p->rows.shape[1] = inner;
        p->rows.strides[0] = inner, p->rows.strides[1] = 1;
        return PDT_OK;
    } else if (as == x->dtype && pdt_tensor_is_contiguous(&cols)) {
        row_stride = 1, col_stride = p->m;
    } else if (as == x->dtype && x->device.kind == PDT_CPU && p->k > 1 &&
               one_block(x, reduced, ndims, 1, &outer, &inner)) {
        /* O slices of (K, I) columns (Note [a middle block of dims]) */
        pdt_tensor_assign(perm, x); /* borrowed, as the permuted view was */
        p->outer = outer, p->in_step = p->k * inner;
        p->rows.ndim = 2;
        p->rows.shape[0] = inner, p->rows.shape[1] = p->k;
        p->rows.strides[0] = 1, p->rows.strides[1] = inner;
        return PDT_OK;
    } else if (as == x->dtype && x->device.kind == PDT_CPU &&
               merged_stride(perm, 0, nkept, &row_stride) &&
               merged_stride(perm, nkept, n, &col_stride) && col_stride > 0 && row_stride >= 0) {
        /* read in place (Note [strided reductions]) */
    } else {
        /* A cast: into the rows layout, or, for an integer `as` whose columns
         * layout is x's own order (sum(0) of an int16 matrix), into that one, a
         * cast read front to back where the rows would transpose x (the
         * integers' sums are exact in either order; the floats' keep rows). */
        const int as_cols = p->k > 1 && !pdt_dtype_is_floating(as) &&
                            pdt_tensor_is_contiguous(&cols);
        row_stride = as_cols ? 1 : p->k, col_stride = as_cols ? p->m : 1;
        pdt_tensor src;
        pdt_tensor_assign(&src, as_cols ? &cols : perm);
        pdt_tensor_forget(&p->rows);
        /* An internal layout copy (not a transfer: it is not counted). */
        st = pdt_tensor_empty(x->device, as, src.ndim, src.shape, 0, &p->rows);
        if (st == PDT_OK)
            st = pdt_backend_of(x->device.kind)->copy_cast(&p->rows, &src);
        if (st != PDT_OK) {
            pdt_tensor_release(&p->rows);
            return st;
        }
        p->owned = 1;
    }
    p->rows.ndim = 2;
    p->rows.shape[0] = p->m, p->rows.shape[1] = p->k;
    p->rows.strides[0] = row_stride, p->rows.strides[1] = col_stride;
    return PDT_OK;
}

/* Drops the plan's copy of the input, if it made one. */
static void plan_release(plan *p)
{
    if (p->owned)
        pdt_tensor_release(&p->rows);
    p->owned = 0;
}

/* A new output of dtype dt in the plan's output shape, and its (m,) view. */
static pdt_status plan_output(const plan *p, const pdt_tensor *x, pdt_dtype dt, pdt_tensor *out,
                              pdt_tensor *flat)
{
    pdt_status st = pdt_tensor_empty(x->device, dt, p->out_ndim, p->out_shape, 0, out);
    if (st != PDT_OK)
        return st;
    pdt_tensor_assign(flat, out); /* borrowed: not a new reference */
    flat->ndim = 1;
    flat->shape[0] = p->m;
    flat->strides[0] = 1;
    return PDT_OK;
}

static pdt_status check_dtype_arg(const char *name, int dtype)
{
    if (dtype >= 0 && !pdt_dtype_valid(dtype))
        return pdt_fail(PDT_ERR_TYPE, "%s(): invalid dtype %d", name, dtype);
    return PDT_OK;
}

static pdt_status need_floating(const char *name, pdt_dtype dt)
{
    if (pdt_dtype_is_floating(dt))
        return PDT_OK;
    return pdt_fail(PDT_ERR_TYPE,
                    "%s(): could not infer the output dtype: the input is %s, and %s needs a "
                    "floating point dtype; convert with .float() or .double(), or pass "
                    "dtype=pydevtensor.float32",
                    name, pdt_dtype_name(dt), name);
}

/* Runs op over p's rows into a new tensor of the backend's dtype, then casts
 * it to final_dtype when that differs.  sqrt_after: the 2-norm's square root.
 * On failure *out is left released. */
static pdt_status run_plan(pdt_reduce_op op, const plan *p, const pdt_tensor *x, pdt_dtype as,
                           pdt_dtype final_dtype, int sqrt_after, pdt_tensor *out)
{
    const pdt_backend *b = pdt_backend_of(x->device.kind);
    pdt_tensor flat;
    pdt_tensor_forget(out); /* released, also when plan_output fails */
    pdt_status st = plan_output(p, x, pdt_reduce_out_dtype(op, as), out, &flat);
    if (st != PDT_OK)
        return st;
    if (p->m > 0 && p->two_outer > 0) { /* Note [outer and inner dims] */
        pdt_tensor part, cols;
        const int64_t n = p->m * p->two_outer;
        st = pdt_tensor_empty(x->device, pdt_reduce_out_dtype(op, as), 1, &n, 0, &part);
        if (st == PDT_OK) {
            st = b->reduce(op, &part, &p->rows);
            pdt_tensor_assign(&cols, &part); /* borrowed: (K, O) columns of the (O, K) */
            cols.ndim = 2;
            cols.shape[0] = p->m, cols.shape[1] = p->two_outer;
            cols.strides[0] = 1, cols.strides[1] = p->m;
            const pdt_reduce_op then = op == PDT_REDUCE_SUM_SQUARES || op == PDT_REDUCE_SUM_ABS
                                           ? PDT_REDUCE_SUM
                                           : op;
            if (st == PDT_OK)
                st = b->reduce(then, &flat, &cols);
            pdt_tensor_release(&part);
        }
    } else if (p->m > 0 && p->outer > 1) { /* Note [a middle block of dims] */
        pdt_tensor slice = p->rows, part = flat;
        part.shape[0] = p->m / p->outer;
        for (int64_t o = 0; o < p->outer && st == PDT_OK; o++) {
            slice.offset = p->rows.offset + o * p->in_step;
            part.offset = flat.offset + o * part.shape[0];
            st = b->reduce(op, &part, &slice);
        }
    } else if (p->m > 0) {
        st = b->reduce(op, &flat, &p->rows);
    }
    if (st == PDT_OK && p->m > 0 && sqrt_after) {
        const pdt_scalar none = {0, 0.0, 0};
        st = b->unary(PDT_OP_SQRT, &flat, &flat, none, none);
    }
    if (st == PDT_OK && out->dtype != final_dtype) {
        pdt_tensor res; /* takes over out's reference */
        pdt_tensor_assign(&res, out);
        pdt_tensor_forget(out); /* stays released if pdt_tensor_empty fails */
        st = pdt_tensor_empty(x->device, final_dtype, res.ndim, res.shape, 0, out);
        if (st == PDT_OK && p->m > 0)
            st = b->copy_cast(out, &res);
        pdt_tensor_release(&res);
    }
    if (st != PDT_OK)
        pdt_tensor_release(out);
    return st;
}

/* The dtype op reduces x's values in (as: x's dtype, or the one asked for): the compute
 * dtype (Note [small integers] in pdt_dtype.h), but a small integer's max, min, argmax
 * and argmin stay in its own where the backend takes them so (small_int_extremes): no
 * widened copy of x first. */
static pdt_dtype reduce_dtype(pdt_reduce_op op, pdt_dtype as, const pdt_tensor *x)
{
    const int extreme = op == PDT_REDUCE_MAX || op == PDT_REDUCE_MIN || op == PDT_REDUCE_ARGMAX ||
                        op == PDT_REDUCE_ARGMIN;
    if (extreme && pdt_dtype_is_small_int(as) && pdt_backend_of(x->device.kind)->small_int_extremes)
        return as;
    return pdt_compute_dtype(as);
}

pdt_status pdt_reduce(pdt_reduce_op op, const pdt_tensor *x, int ndims, const int64_t *dims,
                      int keepdim, int dtype, pdt_tensor *out)
{
    const char *name = op_name(op);
    pdt_status st = check_dtype_arg(name, dtype);
    if (st != PDT_OK)
        return st;
    int cast_ok = op == PDT_REDUCE_SUM || op == PDT_REDUCE_PROD || op == PDT_REDUCE_MEAN;
    if (dtype >= 0 && !cast_ok)
        return pdt_fail(PDT_ERR_TYPE, "%s() takes no dtype", name);
    if ((op == PDT_REDUCE_ARGMAX || op == PDT_REDUCE_ARGMIN) && ndims > 1)
        return pdt_fail(PDT_ERR_VALUE, "%s(): dim must be one int or None, got %d dims", name,
                        ndims);
    pdt_dtype as = dtype >= 0 ? (pdt_dtype)dtype : x->dtype;
    if (op == PDT_REDUCE_MEAN || op == PDT_REDUCE_SUM_SQUARES || op == PDT_REDUCE_SUM_ABS) {
        st = need_floating(name, as);
        if (st != PDT_OK)
            return st;
    }
    /* sum(dtype=int32) reduces in int64 and narrows at the end, as PyTorch;
     * the half types reduce in float32 (Note [half precision arithmetic]). */
    pdt_dtype final_dtype = dtype >= 0 ? (pdt_dtype)dtype : pdt_reduce_out_dtype(op, as);
    as = reduce_dtype(op, as, x);
    plan p;
    st = plan_reduce(name, op, x, ndims, dims, keepdim, as, &p);
    if (st != PDT_OK)
        return st;
    st = run_plan(op, &p, x, as, final_dtype, 0, out);
    plan_release(&p);
    return st;
}

pdt_status pdt_reduce_with_indices(pdt_reduce_op op, const pdt_tensor *x, int64_t dim, int keepdim,
                                   pdt_tensor *values, pdt_tensor *indices)
{
    if (op != PDT_REDUCE_MAX && op != PDT_REDUCE_MIN)
        return pdt_fail(PDT_ERR_VALUE, "reduce with indices: op must be max or min");
    pdt_reduce_op arg = op == PDT_REDUCE_MAX ? PDT_REDUCE_ARGMAX : PDT_REDUCE_ARGMIN;
    plan p;
    const pdt_dtype as = reduce_dtype(op, x->dtype, x);
    pdt_status st = plan_reduce(op_name(op), op, x, 1, &dim, keepdim, as, &p);
    if (st != PDT_OK)
        return st;
    /* run_plan leaves its output released when it fails */
    st = run_plan(op, &p, x, as, x->dtype, 0, values);
    if (st == PDT_OK) {
        st = run_plan(arg, &p, x, as, PDT_INT64, 0, indices);
        if (st != PDT_OK)
            pdt_tensor_release(values);
    }
    plan_release(&p);
    return st;
}

pdt_status pdt_norm(const pdt_tensor *x, double p, int ndims, const int64_t *dims, int keepdim,
                    int dtype, pdt_tensor *out)
{
    pdt_status st = check_dtype_arg("norm", dtype);
    if (st != PDT_OK)
        return st;
    if (p != 1.0 && p != 2.0)
        return pdt_fail(PDT_ERR_UNSUPPORTED,
                        "norm(): p=%g is not supported; use p=2 (or 'fro', the default) or p=1", p);
    pdt_dtype as = dtype >= 0 ? (pdt_dtype)dtype : x->dtype;
    st = need_floating("norm", as);
    if (st != PDT_OK)
        return st;
    pdt_reduce_op op = p == 1.0 ? PDT_REDUCE_SUM_ABS : PDT_REDUCE_SUM_SQUARES;
    plan pl;
    pdt_dtype wide = pdt_compute_dtype(as);
    st = plan_reduce("norm", op, x, ndims, dims, keepdim, wide, &pl);
    if (st != PDT_OK)
        return st;
    st = run_plan(op, &pl, x, wide, as, p == 2.0, out);
    plan_release(&pl);
    return st;
}
