/* pdt_elementwise_alpha.c - add and sub with alpha (pdt_binary_alpha in
 * pdt_elementwise.h), on pdt_elementwise.c's checks (pdt_elementwise_impl.h). */
#include <string.h>

#include "pdt_elementwise_impl.h"
#include "pdt_ops.h"

/* Note [add with alpha]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * `p.sub_(buf, alpha=lr)` and `buf.add_(grad, alpha=wd)` (an optimizer's step)
 * form other * alpha in the compute dtype, rounded, and then add or subtract it,
 * as NumPy's `a + alpha * b` does.  (PyTorch 2.15's CPU kernels fuse the two into
 * one multiply-add where the CPU has FMA, so their last bit can differ from ours:
 * 2 - 0.1 * 12 is 0.7999999999999999 there, 0.7999999999999998 here; rounding
 * the product first gives the same bits on every device.)  Done as three passes (a cast-or-copy of other into a
 * temporary, the multiply, the op) it took 26 us on 200,704 float32 elements
 * where add_ took 11.  A backend with binary_scaled does the multiply and the op
 * in one pass, element by element: the product is rounded to the dtype before
 * the op (the CPU's build has -ffp-contract=off, so no fused multiply-add), which
 * gives the bits of the three passes, save a NaN's payload: where both sides of
 * the op are NaN, which one's comes out is the compiler's choice (it may swap
 * the operands of an addition), as it is between devices.  It is used for
 * float32 and float64 compute dtypes (float16 and bfloat16 results compute in
 * float32) when input is a tensor; integers, bool, and a scalar input keep the
 * temporary.  For a half result alpha (and a scalar other) is first rounded to the
 * half dtype, as PyTorch's kernels take it: `p.add_(g, alpha=-lr)` in float16 is
 * then PyTorch's step bit for bit (Note [scalars meeting halves]). */

/* alpha converted to the compute dtype c, after PyTorch's alpha_check: a bool
 * alpha only for a bool result, a float alpha only for a floating one, and an
 * integer alpha that fits the result dtype res (PyTorch refuses int8's alpha=300,
 * where the Python int operand itself wraps: Note [ints beyond the dtype]). */
static pdt_status alpha_for(const char *name, pdt_dtype c, pdt_dtype res, pdt_arg alpha,
                            pdt_scalar *out)
{
    memset(out, 0, sizeof *out);
    if (alpha.is_bool && c != PDT_BOOL)
        return pdt_fail(PDT_ERR_TYPE,
                        "%s: a bool alpha is only supported for bool results, and the result "
                        "here is %s",
                        name, pdt_dtype_name(c));
    if (alpha.s.is_float && !pdt_dtype_is_floating(c))
        return pdt_fail(PDT_ERR_TYPE,
                        "%s: for integral input tensors (result %s), argument alpha must not be "
                        "a floating point number, got %g",
                        name, pdt_dtype_name(c), alpha.s.f);
    if (pdt_dtype_is_floating(c)) {
        out->is_float = 1;
        out->f = alpha.s.is_float ? alpha.s.f : (double)alpha.s.i;
        if (c == PDT_FLOAT32)
            out->f = (float)out->f;
        return PDT_OK;
    }
    int64_t lo, hi;
    pdt_int_range(res, &lo, &hi);
    if (pdt_dtype_is_integer(res) && (alpha.s.i < lo || alpha.s.i > hi))
        return pdt_fail(PDT_ERR_VALUE, "%s: alpha=%lld does not fit in %s, the dtype of the result",
                        name, (long long)alpha.s.i, pdt_dtype_name(res));
    out->i = c == PDT_BOOL ? alpha.s.i != 0 : alpha.s.i;
    return PDT_OK;
}

/* The scalar b * alpha, formed in the compute dtype c (integers wrap, as the
 * tensor product does); b is already in c (scalar_for). */
static pdt_arg scaled_scalar(pdt_dtype c, pdt_scalar b, pdt_scalar alpha, int b_is_bool)
{
    pdt_arg r;
    memset(&r, 0, sizeof r);
    if (c == PDT_FLOAT32) {
        r.s.is_float = 1;
        r.s.f = (double)((float)b.f * (float)alpha.f);
    } else if (c == PDT_FLOAT64) {
        r.s.is_float = 1;
        r.s.f = b.f * alpha.f;
    } else if (c == PDT_INT32) {
        r.s.i = (int32_t)((uint32_t)b.i * (uint32_t)alpha.i);
    } else if (c == PDT_INT64) {
        r.s.i = (int64_t)((uint64_t)b.i * (uint64_t)alpha.i);
    } else {
        r.s.i = b.i && alpha.i;
        r.is_bool = b_is_bool;
    }
    return r;
}

pdt_status pdt_binary_alpha(const char *name, pdt_binary_op op, pdt_arg a, pdt_arg b, pdt_arg alpha,
                            const pdt_tensor *out, pdt_tensor *result)
{
    static const char *const arg_names[3] = {"input", "other", "out"};
    const pdt_tensor *ts[3] = {a.t, b.t, out};
    pdt_device dev;
    pdt_dtype compute = PDT_FLOAT32, res = PDT_FLOAT32;
    pdt_scalar al;
    int ndim = 0;
    int64_t shape[PDT_MAX_DIMS];
    pdt_status st = pdt_same_device(name, 3, ts, arg_names, &dev);
    if (st == PDT_OK)
        st = pdt_ew_binary_dtypes(name, op, a, b, &compute, &res);
    if (st == PDT_OK)
        st = alpha_for(name, compute, res, alpha, &al);
    pdt_ew_round_scalar(res, &al); /* Note [scalars meeting halves] in pdt_elementwise.c */
    if (st == PDT_OK)
        st = pdt_ew_broadcast_shape(name, a.t, b.t, &ndim, shape);
    if (st == PDT_OK && out)
        st = pdt_ew_check_output(name, out, ndim, shape, res);
    if (st != PDT_OK)
        return st;
    if (al.is_float ? al.f == 1.0 : al.i == 1)
        return pdt_binary(name, op, a, b, out, result);
    if (!b.t) {
        pdt_scalar bs;
        st = pdt_ew_scalar_for(name, compute, res, b, &bs);
        if (st != PDT_OK)
            return st;
        pdt_ew_round_scalar(res, &bs); /* cast to the common dtype, then scaled */
        return pdt_ew_binary_impl(name, op, a, scaled_scalar(compute, bs, al, b.is_bool), out,
                                  result, (int)res, NULL);
    }
    const pdt_backend *be = pdt_backend_of(dev.kind);
    if (be->binary_scaled && a.t && (op == PDT_OP_ADD || op == PDT_OP_SUB) &&
        (compute == PDT_FLOAT32 || compute == PDT_FLOAT64))
        return pdt_ew_binary_impl(name, op, a, b, out, result, (int)res, &al);
    /* other * alpha into a temporary of the compute dtype, then the op. */
    pdt_tensor scaled;
    st = pdt_tensor_empty(dev, compute, b.t->ndim, b.t->shape, 0, &scaled);
    if (st != PDT_OK)
        return st;
    if (pdt_ew_numel_of(b.t->ndim, b.t->shape) > 0) {
        pdt_operand os = {&scaled, {0, 0, 0}}, oa = {NULL, al};
        st = be->copy_cast(&scaled, b.t);
        if (st == PDT_OK)
            st = be->binary(PDT_OP_MUL, &scaled, os, oa);
    }
    if (st == PDT_OK) {
        b.t = &scaled;
        st = pdt_ew_binary_impl(name, op, a, b, out, result, (int)res, NULL);
    }
    pdt_tensor_release(&scaled);
    return st;
}
