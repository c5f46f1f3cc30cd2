/* pdt_elementwise_unary.c - validation and dispatch of the unary elementwise ops
 * and clamp with scalar bounds (pdt_unary in pdt_elementwise.h), in the order of
 * pdt_elementwise.c: every check, then the temporaries, then one backend call. */
#include "pdt_elementwise_impl.h"
#include "pdt_elementwise_operands.h"

#include <math.h>
#include <string.h>

#include "pdt_convert.h"
#include "pdt_half.h"
#include "pdt_ops.h"

/* The default floating dtype (set_default_dtype; pdt_dtype.h). */
#define DEFAULT_FLOAT pdt_default_float()

static pdt_status unary_dtype(const char *name, pdt_unary_op op, const pdt_tensor *x,
                              const pdt_arg *lo, const pdt_arg *hi, pdt_dtype *res)
{
    pdt_dtype c = x->dtype;
    switch (op) {
    case PDT_OP_NEG:
        if (c == PDT_BOOL)
            return pdt_fail(PDT_ERR_TYPE,
                            "%s: negation, the `-` operator, on a bool tensor is not supported "
                            "(as in PyTorch); use `~` or `x == False` to invert a mask",
                            name);
        break;
    case PDT_OP_CLAMP: {
        pdt_arg args[3];
        int n = 0;
        args[n++] = (pdt_arg){.t = x};
        if (!lo && !hi)
            return pdt_fail(PDT_ERR_VALUE, "%s: at least one of 'min' or 'max' must be given",
                            name);
        if (lo)
            args[n++] = *lo;
        if (hi)
            args[n++] = *hi;
        c = pdt_result_type(n, args);
        if (c == PDT_BOOL)
            return pdt_fail(PDT_ERR_TYPE, "%s: not supported for bool tensors with bool bounds",
                            name);
        break;
    }
    case PDT_OP_FLOOR:
    case PDT_OP_CEIL:
    case PDT_OP_ROUND:
    case PDT_OP_TRUNC:
        if (c == PDT_BOOL)
            return pdt_fail(PDT_ERR_TYPE,
                            "%s: not supported for bool tensors (as in PyTorch); convert first, "
                            "e.g. x.to(pydevtensor.float32)",
                            name);
        break;
    case PDT_OP_ABS:
    case PDT_OP_SIGN:
    case PDT_OP_RELU: break;
    default: /* exp, log, sqrt, sin, cos, tanh, sigmoid, log1p, expm1, erf, erfc, lgamma,
              * digamma, tan, asin, acos, atan, asinh, acosh, atanh, sinh, cosh, log2, log10,
              * rsqrt, erfinv */
        if (!pdt_dtype_is_floating(c))
            c = DEFAULT_FLOAT;
        break;
    }
    *res = c;
    return PDT_OK;
}

/* Whether a float clamp bound is NaN: every element is then NaN, as in PyTorch. */
static int nan_bound(pdt_dtype res, const pdt_arg *b)
{
    return b && pdt_dtype_is_floating(res) && b->s.is_float && isnan(b->s.f);
}

/* A clamp bound as the backends read it, in the result dtype res: a float
 * (none: -inf below, +inf above; NaN: see nan_bound), or an integer bound kept exact and
 * saturated to res's range (none: the range's end).  An integer res has
 * integer bounds only (a float bound would have made res floating). */
static pdt_scalar bound_for(pdt_dtype res, const pdt_arg *b, int upper)
{
    pdt_scalar s;
    memset(&s, 0, sizeof s);
    if (pdt_dtype_is_floating(res)) {
        s.is_float = 1;
        s.f = !b ? NAN : b->s.is_float ? b->s.f : (double)b->s.i;
        if (isnan(s.f))
            s.f = upper ? INFINITY : -INFINITY;
        return s;
    }
    int64_t lo, hi;
    pdt_int_range(res, &lo, &hi);
    int64_t v = !b ? (upper ? hi : lo) : b->s.is_float ? pdt_f64_to_i64(b->s.f) : b->s.i;
    s.i = v < lo ? lo : v > hi ? hi : v;
    return s;
}

/* Note [half sign bit] in pdt_half.h */
static int half_sign_bit_op(pdt_unary_op op, pdt_dtype res, const pdt_backend *be)
{
    return (op == PDT_OP_NEG || op == PDT_OP_ABS) && pdt_dtype_is_half(res) && be->small_int_rows;
}

static pdt_status half_sign_bit(pdt_unary_op op, const pdt_tensor *out, const pdt_tensor *x,
                                const pdt_backend *be)
{
    pdt_tensor out_bits = *out, x_bits = *x; /* borrowed headers over the same storage */
    out_bits.dtype = x_bits.dtype = PDT_INT16;
    pdt_operand a = {&x_bits, {0, 0, 0}}, mask = {NULL, {0, 0, 0}};
    mask.s.i = op == PDT_OP_NEG ? INT16_MIN : INT16_MAX; /* 0x8000, 0x7fff */
    return be->binary(op == PDT_OP_NEG ? PDT_OP_BITWISE_XOR : PDT_OP_BITWISE_AND, &out_bits, a,
                      mask);
}

pdt_status pdt_unary(const char *name, pdt_unary_op op, const pdt_tensor *x, const pdt_arg *lo,
                     const pdt_arg *hi, const pdt_tensor *out, pdt_tensor *result)
{
    static const char *const arg_names[2] = {"input", "out"};
    const pdt_tensor *ts[2] = {x, out};
    pdt_device dev;
    pdt_dtype res = PDT_FLOAT32;
    pdt_status st = pdt_same_device(name, 2, ts, arg_names, &dev);
    if (st == PDT_OK && op == PDT_OP_CLAMP && ((lo && lo->t) || (hi && hi->t)))
        st = pdt_fail(PDT_ERR_TYPE, "%s: the core takes scalar bounds only", name);
    if (st == PDT_OK)
        st = unary_dtype(name, op, x, lo, hi, &res);
    if (st == PDT_OK && out)
        st = pdt_ew_check_output(name, out, x->ndim, x->shape, res);
    if (st != PDT_OK)
        return st;
    pdt_scalar lo_v = bound_for(res, op == PDT_OP_CLAMP ? lo : NULL, 0);
    pdt_scalar hi_v = bound_for(res, op == PDT_OP_CLAMP ? hi : NULL, 1);

    pdt_ew_prepared px, tmp_out;
    const pdt_tensor *target = NULL, *dest = NULL;
    const pdt_backend *be = pdt_backend_of(dev.kind);
    pdt_dtype compute = pdt_compute_dtype(res);   /* Note [half precision arithmetic] */
    int sign_bit = half_sign_bit_op(op, res, be); /* res is x's dtype for these */
    if ((pdt_dtype_is_small_int(res) && be->small_int_rows) || sign_bit)
        compute = res; /* Note [small integers] in pdt_dtype.h; [half sign bit] */
    px.has_tmp = 0;
    int perm[PDT_MAX_DIMS];
    st = pdt_ew_make_target(dev, res, compute, x->ndim, x->shape,
                            pdt_result_order(x, NULL, NULL, x->ndim, x->shape, perm), out, result,
                            &tmp_out, &target, &dest);
    if (st != PDT_OK)
        return st;
    pdt_note_op(name, dev);
    if (pdt_ew_numel_of(x->ndim, x->shape) == 0)
        goto done;
    st = pdt_ew_prepare((pdt_arg){.t = x}, compute, res, 0, target, target != out, &px);
    if (st == PDT_OK && op == PDT_OP_CLAMP && (nan_bound(res, lo) || nan_bound(res, hi))) {
        pdt_scalar nan;
        memset(&nan, 0, sizeof nan);
        nan.is_float = 1;
        nan.f = NAN;
        st = be->fill(target, nan);
    } else if (st == PDT_OK && sign_bit) {
        st = half_sign_bit(op, target, px.op.t, be);
    } else if (st == PDT_OK) {
        st = be->unary(op, target, px.op.t, lo_v, hi_v);
    }
    if (st == PDT_OK && tmp_out.has_tmp)
        st = be->copy_cast(dest, &tmp_out.tmp);
done:
    pdt_ew_prepared_release(&px);
    pdt_ew_prepared_release(&tmp_out);
    if (st != PDT_OK && !out)
        pdt_tensor_release(result);
    return st;
}
