/* pdt_elementwise.c - validation and dispatch of the binary elementwise ops
 * (see pdt_elementwise.h and its notes; add and sub with alpha in
 * pdt_elementwise_alpha.c, the unary ops in pdt_elementwise_unary.c, the operands'
 * temporaries in pdt_elementwise_operands.h, through pdt_elementwise_impl.h).  The
 * order is always: every check, then the allocations and casts into temporaries,
 * then one backend call (plus one cast into the output when its dtype differs
 * from the result's), so that a failed check never leaves an output half-written. */
#include "pdt_elementwise.h"
#include "pdt_elementwise_impl.h"
#include "pdt_elementwise_operands.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pdt_compare_scalar.h"
#include "pdt_convert.h"
#include "pdt_half.h"
#include "pdt_ops.h"
#include "pdt_reduce.h"

#define NO_DTYPE (-1)
/* The default floating dtype: Python floats and float results of integer
 * inputs (set_default_dtype; pdt_dtype.h). */
#define DEFAULT_FLOAT pdt_default_float()

/* ---- dtypes: Note [elementwise dtypes] ---- */

static int category(int dt) { return dt == PDT_BOOL ? 0 : pdt_dtype_is_floating(dt) ? 2 : 1; }

static int promote_defined(int a, int b)
{
    return a == NO_DTYPE ? b : b == NO_DTYPE ? a : (int)pdt_promote(a, b);
}

/* PyTorch's combine_categories: a lower-priority group only counts when its
 * category is higher. */
static int combine(int higher, int lower)
{
    if (higher != NO_DTYPE && pdt_dtype_is_floating(higher))
        return higher;
    if (higher == PDT_BOOL || (lower != NO_DTYPE && pdt_dtype_is_floating(lower)))
        return promote_defined(higher, lower);
    return higher != NO_DTYPE ? higher : lower;
}

static pdt_dtype result_type(int n, const pdt_arg *args)
{
    int dim = NO_DTYPE, zero = NO_DTYPE, wrapped = NO_DTYPE;
    for (int i = 0; i < n; i++) {
        const pdt_tensor *t = args[i].t;
        if (t && t->ndim > 0)
            dim = promote_defined(dim, t->dtype);
        else if (t)
            zero = promote_defined(zero, t->dtype);
        else
            wrapped = promote_defined(wrapped, args[i].is_bool      ? PDT_BOOL
                                               : args[i].s.is_float ? DEFAULT_FLOAT
                                                                    : PDT_INT64);
    }
    int r = combine(dim, combine(zero, wrapped));
    return r == NO_DTYPE ? DEFAULT_FLOAT : (pdt_dtype)r;
}

static int is_comparison(pdt_binary_op op) { return op >= PDT_OP_EQ && op <= PDT_OP_GE; }

/* Note [float binary functions]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * hypot, copysign, logaddexp and logaddexp2 were compositions in Python (hypot a dozen
 * ops, logaddexp six): 4 to 12 us a call on one element where NumPy takes 0.3, and
 * copysign 6.7 times NumPy's time on 1,000.  As binary ops they are one pass, with
 * broadcasting, out=, the half types and the in-place forms of every binary op.  Their
 * result is floating: the division's rule for copysign (integers give the default
 * float, as PyTorch's), a TypeError for the others when the result dtype is not
 * floating (as PyTorch's).  The CPU rows: cpu_elementwise.c; CUDA's:
 * cuda_element_ops.cuh; their gradients: pydevtensor/autograd/derivatives.py. */
static int float_only(pdt_binary_op op)
{
    return op == PDT_OP_HYPOT || op == PDT_OP_LOGADDEXP || op == PDT_OP_LOGADDEXP2;
}

/* whether integer operands give a floating result (the default float) */
static int makes_float(pdt_binary_op op)
{
    return op == PDT_OP_DIV || op == PDT_OP_ATAN2 || op == PDT_OP_COPYSIGN;
}

pdt_status pdt_ew_binary_dtypes(const char *name, pdt_binary_op op, pdt_arg a, pdt_arg b,
                                pdt_dtype *compute, pdt_dtype *res)
{
    pdt_arg args[2] = {a, b};
    pdt_dtype c = result_type(2, args);
    if (makes_float(op) && !pdt_dtype_is_floating(c))
        c = DEFAULT_FLOAT;
    /* PyTorch's sub refuses a bool on either side, whatever the other (uint8 - True
     * would wrap to 255, 1.5 - True give 0.5) */
    if (op == PDT_OP_SUB &&
        (a.t ? a.t->dtype == PDT_BOOL : a.is_bool) + (b.t ? b.t->dtype == PDT_BOOL : b.is_bool))
        return pdt_fail(PDT_ERR_TYPE,
                        "%s: subtraction, the `-` operator, with a bool tensor is not supported "
                        "(as in PyTorch); to invert a mask use `~` or logical_not(), for a "
                        "logical xor `!=`, else convert with .int() or .float() first",
                        name);
    if (c == PDT_BOOL &&
        (op == PDT_OP_FLOOR_DIV || op == PDT_OP_TRUNC_DIV || op == PDT_OP_REMAINDER ||
         op == PDT_OP_FMOD || (op == PDT_OP_POW && (b.t || !a.t)))) /* bool ** bool: below */
        return pdt_fail(PDT_ERR_TYPE,
                        "%s: not supported for two bool operands (as in PyTorch); convert one "
                        "with .int() or .float() first",
                        name);
    if (op >= PDT_OP_BITWISE_AND && op <= PDT_OP_BITWISE_XOR && c == PDT_BOOL)
        ; /* and, or, xor of bools: bool_op composes them */
    else if (op >= PDT_OP_BITWISE_AND && op <= PDT_OP_SHIFT_RIGHT && !pdt_dtype_is_integer(c))
        return pdt_fail(PDT_ERR_TYPE,
                        "%s: bitwise ops and shifts take integer tensors, got the result dtype "
                        "%s (as in PyTorch)",
                        name, pdt_dtype_name(c));
    if (float_only(op) && !pdt_dtype_is_floating(c)) {
        const pdt_tensor *t = a.t ? a.t : b.t;
        char sa[64], sb[64], dv[32];
        return pdt_fail(PDT_ERR_TYPE,
                        "%s: expected floating point tensors, got the result dtype %s (shapes "
                        "%s and %s, on %s; as in PyTorch)",
                        name, pdt_dtype_name(c),
                        a.t ? pdt_shape_str(a.t->ndim, a.t->shape, sa, sizeof sa) : "a number",
                        b.t ? pdt_shape_str(b.t->ndim, b.t->shape, sb, sizeof sb) : "a number",
                        t ? pdt_device_str(t->device, dv, sizeof dv) : "cpu");
    }
    *compute = pdt_compute_dtype(c); /* Note [half precision arithmetic] in pdt_half.h */
    *res = is_comparison(op) ? PDT_BOOL : c;
    return PDT_OK;
}

/* The op a bool result computes `op` with: and is *, or is +, xor is != (the
 * backends' bool rows). */
static pdt_binary_op bool_op(pdt_binary_op op)
{
    return op == PDT_OP_BITWISE_AND   ? PDT_OP_MUL
           : op == PDT_OP_BITWISE_OR  ? PDT_OP_ADD
           : op == PDT_OP_BITWISE_XOR ? PDT_OP_NE
                                      : op;
}

/* PyTorch's canCast: no floating value into an integer or bool, nothing but a
 * bool into a bool. */
static int can_cast(pdt_dtype from, pdt_dtype to) { return category(from) <= category(to); }

/* Note [scalars meeting halves]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A float16 or bfloat16 tensor meeting a Python number or a 0-d tensor of a wider
 * dtype gives a half result, and PyTorch casts the number to that common dtype before
 * most ops: `h == 0.1` compares with float16's 0.0999755859375, so it is True where h
 * holds float16(0.1); `h % 0.1` and `h - 0.1` use that value too.  Read in float32, the
 * number compared unequal with every element and the remainders came out near 0.1
 * instead of near 0.  So the core rounds the number (or the 0-d tensor) to the half
 * dtype first, then computes in float32 and rounds the result once, as PyTorch's CPU
 * kernels do.  PyTorch's mul and div read the number as it was given (in float32:
 * its kernels take the scalar before the cast), and so does its floor division; so
 * does the core.  Measured against PyTorch 2.15 on 8,000 elements of each half dtype
 * and five numbers: add, sub, rsub, %, fmod, pow, rpow, atan2, hypot and the
 * comparisons agree bit for bit with the rounding, and mul, div and // without it.
 * alpha of add/sub is rounded to the half dtype too (pdt_elementwise_alpha.c). */
static int reads_original(pdt_binary_op op)
{
    return op == PDT_OP_MUL || op == PDT_OP_DIV || op == PDT_OP_FLOOR_DIV;
}

void pdt_ew_round_scalar(pdt_dtype half, pdt_scalar *s)
{
    if (!s->is_float || !pdt_dtype_is_half(half))
        return;
    s->f = half == PDT_FLOAT16 ? (double)pdt_f16_to_f32(pdt_f64_to_f16(s->f))
                               : (double)pdt_bf16_to_f32(pdt_f64_to_bf16(s->f));
}

/* The scalar x in the compute dtype c, as the backends read it; an integer
 * scalar with a small-integer or int32 operand dtype `wrap` is first wrapped into
 * it, as PyTorch does (Note [small integers] in pdt_dtype.h): int32 + 2**32 + 5 adds
 * 5, as int16 + 2**16 + 5 does.  (pow's exponent and add's alpha are refused
 * before this instead, as PyTorch's are.) */
pdt_status pdt_ew_scalar_for(const char *name, pdt_dtype c, pdt_dtype wrap, pdt_arg x,
                             pdt_scalar *out)
{
    memset(out, 0, sizeof *out);
    if (pdt_dtype_is_floating(c)) {
        out->is_float = 1;
        out->f = x.s.is_float ? x.s.f : (double)x.s.i;
        return PDT_OK;
    }
    int64_t v = x.s.is_float ? pdt_f64_to_i64(x.s.f) : x.s.i; /* Note [float to int] */
    if (pdt_dtype_is_small_int(wrap) || wrap == PDT_INT32)
        v = pdt_int_wrap(wrap, v);
    if (c == PDT_INT32 && (v < INT32_MIN || v > INT32_MAX))
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: the value %lld cannot be converted to int32 without overflow", name,
                        (long long)v);
    out->i = c == PDT_BOOL ? v != 0 : v;
    return PDT_OK;
}

/* ---- shapes ---- */

/* The broadcast shape of a and b (either may be NULL for a scalar). */
pdt_status pdt_ew_broadcast_shape(const char *name, const pdt_tensor *a, const pdt_tensor *b,
                                  int *ndim, int64_t *shape)
{
    int na = a ? a->ndim : 0, nb = b ? b->ndim : 0;
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        int ia = i - (n - na), ib = i - (n - nb);
        int64_t sa = ia >= 0 ? a->shape[ia] : 1, sb = ib >= 0 ? b->shape[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1) {
            char as[160], bs[160], dev[32];
            return pdt_fail(PDT_ERR_VALUE,
                            "%s: the size of tensor a (%lld) must match the size of tensor b "
                            "(%lld) at non-singleton dimension %d: shapes %s and %s cannot be "
                            "broadcast together (on %s)",
                            name, (long long)sa, (long long)sb, i,
                            pdt_shape_str(na, a->shape, as, sizeof as),
                            pdt_shape_str(nb, b->shape, bs, sizeof bs),
                            pdt_device_str((a ? a : b)->device, dev, sizeof dev));
        }
        shape[i] = sa == 1 ? sb : sa;
    }
    *ndim = n;
    return PDT_OK;
}

int64_t pdt_ew_numel_of(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= shape[i];
    return n;
}

/* The output must have the broadcast shape, a dtype the result casts to, and
 * one memory location per element. */
pdt_status pdt_ew_check_output(const char *name, const pdt_tensor *out, int ndim,
                               const int64_t *shape, pdt_dtype res)
{
    char os[160], bs[160];
    int same = out->ndim == ndim;
    for (int i = 0; same && i < ndim; i++)
        same = out->shape[i] == shape[i];
    if (!same)
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: the output with shape %s doesn't match the broadcast shape %s "
                        "(an output with elements is not resized)",
                        name, pdt_shape_str(out->ndim, out->shape, os, sizeof os),
                        pdt_shape_str(ndim, shape, bs, sizeof bs));
    if (!can_cast(res, out->dtype))
        return pdt_fail(PDT_ERR_TYPE,
                        "%s: result type %s can't be cast to the desired output type %s", name,
                        pdt_dtype_name(res), pdt_dtype_name(out->dtype));
    /* An empty output has no element to share (NumPy gives its empty arrays
     * stride 0): nothing to refuse. */
    for (int i = 0; i < ndim && pdt_ew_numel_of(ndim, shape) > 0; i++)
        if (out->strides[i] == 0 && out->shape[i] > 1)
            return pdt_fail(PDT_ERR_VALUE,
                            "%s: unsupported operation: more than one element of the written-to "
                            "tensor refers to a single memory location (stride 0 at dimension "
                            "%d); clone() it first",
                            name, i);
    if (pdt_tensor_internal_overlap(out)) {
        char ss[160], dev[32];
        return pdt_fail(PDT_ERR_VALUE,
                        "%s: unsupported operation: more than one element of the written-to "
                        "tensor refers to a single memory location (shape %s with strides %s "
                        "on %s: its elements overlap, as an as_strided view's can); clone() it "
                        "first",
                        name, pdt_shape_str(out->ndim, out->shape, os, sizeof os),
                        pdt_shape_str(out->ndim, out->strides, ss, sizeof ss),
                        pdt_device_str(out->device, dev, sizeof dev));
    }
    return PDT_OK;
}

/* ---- binary ---- */

/* Note [integer division by zero]: an integer divisor of 0 is an error where
 * seeing it costs no synchronisation: a scalar 0 on every device, a zero inside a
 * CPU tensor (one pass: == 0, then a sum).  A divisor on a GPU is not read. */
static pdt_status check_integer_divisor(const char *name, pdt_binary_op op, pdt_dtype res,
                                        pdt_arg a, pdt_arg b)
{
    if ((op != PDT_OP_FLOOR_DIV && op != PDT_OP_REMAINDER && op != PDT_OP_TRUNC_DIV &&
         op != PDT_OP_FMOD) ||
        pdt_dtype_is_floating(res) || res == PDT_BOOL || /* two bools: refused below */
        (a.t && pdt_tensor_numel(a.t) == 0) || (b.t && pdt_tensor_numel(b.t) == 0))
        return PDT_OK;
    int64_t zeros = 0;
    if (!b.t) {
        zeros = !b.s.is_float && b.s.i == 0;
    } else if (b.t->device.kind == PDT_CPU && pdt_tensor_numel(b.t) > 0) {
        pdt_arg zero, divisor = b;
        memset(&zero, 0, sizeof zero);
        pdt_tensor eq, count, cast;
        memset(&eq, 0, sizeof eq);
        memset(&count, 0, sizeof count);
        memset(&cast, 0, sizeof cast);
        pdt_status st = PDT_OK;
        /* the divisor as the op reads it: cast to the result's dtype first, where a 0-d
         * int64 256 beside a uint8 tensor is 0; only a narrowing cast can make a zero (a
         * cast to as many bits or more maps nonzero to nonzero), so the others are skipped */
        if (pdt_dtype_size(res) < pdt_dtype_size(b.t->dtype)) {
            st = pdt_copy_to_new_in_order(b.t, res, &cast);
            divisor.t = &cast;
        }
        if (st == PDT_OK)
            st = pdt_ew_binary_impl(name, PDT_OP_EQ, divisor, zero, NULL, &eq, NO_DTYPE, NULL);
        if (st == PDT_OK)
            st = pdt_reduce(PDT_REDUCE_SUM, &eq, -1, NULL, 0, -1, &count);
        if (st == PDT_OK)
            memcpy(&zeros, pdt_tensor_ptr(&count), sizeof zeros);
        pdt_tensor_release(&cast);
        pdt_tensor_release(&eq);
        pdt_tensor_release(&count);
        if (st != PDT_OK)
            return st;
    }
    if (!zeros)
        return PDT_OK;
    char dn[32], sn[64], shape[96] = "";
    if (b.t)
        snprintf(shape, sizeof shape, " of shape %s with %lld zero%s",
                 pdt_shape_str(b.t->ndim, b.t->shape, sn, sizeof sn), (long long)zeros,
                 zeros == 1 ? "" : "s");
    return pdt_fail(PDT_ERR_VALUE,
                    "ZeroDivisionError: %s: integer division by zero (%s result, divisor %s%s, "
                    "on %s); use floating operands for inf and nan",
                    name, pdt_dtype_name(res), b.t ? "tensor" : "0", shape,
                    pdt_device_str((a.t ? a.t : b.t)->device, dn, sizeof dn));
}

/* The most common call, kept short (Note [lean operators] in tensor_math.c):
 * two tensors of one dtype and shape on one device, and a new result.  Then
 * there is nothing to promote, broadcast, cast or overlap.  Returns 0 when the
 * call is not of that kind. */
static int binary_same_shape(const char *name, pdt_binary_op op, pdt_arg a, pdt_arg b,
                             const pdt_tensor *out, pdt_tensor *result, pdt_status *st)
{
    if (out || !a.t || !b.t || a.t->dtype != b.t->dtype ||
        !pdt_device_eq(a.t->device, b.t->device) || !pdt_same_shape(a.t, b.t))
        return 0;
    pdt_dtype dt = a.t->dtype;
    if (pdt_dtype_is_half(dt) ||
        (pdt_dtype_is_small_int(dt) && !pdt_backend_of(a.t->device.kind)->small_int_rows))
        return 0; /* computed in float32, int32 */
    if (op >= PDT_OP_BITWISE_AND && op <= PDT_OP_SHIFT_RIGHT && !pdt_dtype_is_integer(dt))
        return 0; /* bools composed, floats refused: binary_impl */
    if (!pdt_dtype_is_floating(dt) &&
        (makes_float(op) || float_only(op) ||
         (dt == PDT_BOOL && (op == PDT_OP_SUB || op == PDT_OP_FLOOR_DIV || op == PDT_OP_TRUNC_DIV ||
                             op == PDT_OP_REMAINDER || op == PDT_OP_POW || op == PDT_OP_FMOD))))
        return 0;
    if ((*st = check_integer_divisor(name, op, dt, a, b)) != PDT_OK)
        return 1;
    int perm[PDT_MAX_DIMS];
    *st = pdt_tensor_empty_in_order(a.t->device, is_comparison(op) ? PDT_BOOL : dt, a.t->ndim,
                                    a.t->shape,
                                    pdt_result_order(a.t, NULL, NULL, a.t->ndim, a.t->shape, perm),
                                    result);
    if (*st != PDT_OK)
        return 1;
    pdt_note_op(name, a.t->device);
    if (pdt_ew_numel_of(a.t->ndim, a.t->shape) == 0)
        return 1;
    pdt_operand oa = {a.t, {0, 0, 0}}, ob = {b.t, {0, 0, 0}};
    *st = pdt_backend_of(a.t->device.kind)->binary(op, result, oa, ob);
    if (*st != PDT_OK)
        pdt_tensor_release(result);
    return 1;
}

/* Note [a float times a mask]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * `g * (h > 0)` (ReLU's backward, a dropout mask) multiplies a float tensor by a
 * bool one.  Casting the mask to float first writes and reads a temporary four or
 * eight times the mask's size: at 1e8 elements the multiply ran at half the speed of
 * an add.  A backend with binary_mul_mask reads the mask's bytes in the multiply
 * itself, converting each to 0 or 1 in the float dtype, so the product has the bits
 * of the cast-first path (x * 0 is still NaN for an infinite or NaN x, and -0 for a
 * negative x).  Whether x is the mask operand: a bool tensor times a float32 or
 * float64 tensor, into a result of that dtype. */
static int mask_operand(const pdt_backend *be, pdt_binary_op op, pdt_dtype compute, pdt_arg x,
                        pdt_arg other)
{
    return be->binary_mul_mask && op == PDT_OP_MUL && x.t && other.t && x.t->dtype == PDT_BOOL &&
           other.t->dtype == compute && (compute == PDT_FLOAT32 || compute == PDT_FLOAT64);
}

/* Note [squares]
 * ~~~~~~~~~~~~~~~
 * `x ** 2` (a squared loss, a variance) went through the C library's powf, a call
 * per element: 60 times NumPy's time at 1e6 float32, whose power does x * x for an
 * exponent of 2.  A tensor to the scalar power 2 is computed as the tensor times
 * itself, on every device.  The bits are the same as the power's: x * x is the
 * exact square rounded once, which is what a correctly rounded pow gives (float32's
 * square is exact in double before its one rounding, so glibc's powf agrees; an
 * integer square wraps as squaring does), and so are the special values (NaN,
 * the infinities, -0 squared is +0, overflow to inf).  The scalar has already
 * been converted to the compute dtype.
 *
 * Likewise a floating tensor to the scalar power 0.5 is its square root, as in
 * NumPy and PyTorch (both special-case it): correctly rounded, and sqrt's special
 * values, which are not pow's: (-inf) ** 0.5 is NaN (C's pow: +inf), (-0.0) ** 0.5
 * is -0.0 (pow: +0.0).  And a floating tensor to the scalar power -1 is 1 / x,
 * NumPy's reciprocal: correctly rounded, as a correctly rounded pow is, with the
 * same special values (+-0 -> +-inf, +-inf -> +-0).  A tensor exponent stays a
 * power; the other float32 powers: Note [float32 powers] in csrc/cpu/cpu_vpow.h. */
static int is_square(pdt_arg a, pdt_arg b)
{
    return a.t && !b.t && (b.s.is_float ? b.s.f == 2.0 : b.s.i == 2);
}
static int is_square_root(pdt_arg a, pdt_arg b)
{
    return a.t && !b.t && b.s.is_float && b.s.f == 0.5;
}
static int is_reciprocal(pdt_arg a, pdt_arg b)
{
    return a.t && !b.t && b.s.is_float && b.s.f == -1.0;
}

/* A comparison of an integer or bool tensor with a scalar that promotes it, or
 * with a Python int outside the tensor's integer dtype, made one in the tensor's
 * own dtype (Notes [comparing with a scalar in the tensor's dtype] and [ints
 * beyond the dtype] in pdt_compare_scalar.c): *a becomes the tensor, *b an
 * integer scalar of its dtype.  Anything else is left as it is. */
static void compare_in_own_dtype(pdt_binary_op *op, pdt_arg *a, pdt_arg *b)
{
    if (!is_comparison(*op) || !a->t == !b->t)
        return;
    pdt_arg both[2] = {*a, *b};
    const pdt_arg x = a->t ? *a : *b, s = a->t ? *b : *a;
    const pdt_dtype promoted = result_type(2, both);
    pdt_dtype c = pdt_compute_dtype(promoted);
    int64_t lo, hi, k;
    pdt_int_range(x.t->dtype, &lo, &hi);
    if (promoted == x.t->dtype && pdt_dtype_is_integer(promoted) && !s.s.is_float &&
        (s.s.i < lo || s.s.i > hi))
        c = PDT_INT64; /* Note [ints beyond the dtype]: compared as they are, not wrapped */
    else if (promoted == x.t->dtype)
        return;
    pdt_binary_op new_op;
    if (!pdt_compare_in_dtype(a->t ? *op : pdt_compare_mirror(*op), x.t->dtype, c, s.s, &new_op,
                              &k))
        return;
    *op = new_op;
    *a = x;
    memset(b, 0, sizeof *b);
    b->s.i = k;
    b->is_bool = x.t->dtype == PDT_BOOL;
}

/* pdt_binary, with the result dtype forced to `forced` when it is >= 0 (for
 * add and sub with alpha, whose scaled operand is already in the compute
 * dtype), and b scaled by *scale in the backend's binary_scaled when scale is
 * not NULL (Note [add with alpha]). */
pdt_status pdt_ew_binary_impl(const char *name, pdt_binary_op op, pdt_arg a, pdt_arg b,
                              const pdt_tensor *out, pdt_tensor *result, int forced,
                              const pdt_scalar *scale)
{
    pdt_status st;
    if (forced < 0 && binary_same_shape(name, op, a, b, out, result, &st))
        return st;
    if (forced < 0)
        compare_in_own_dtype(&op, &a, &b);
    static const char *const arg_names[3] = {"input", "other", "out"};
    const pdt_tensor *ts[3] = {a.t, b.t, out};
    pdt_device dev;
    pdt_dtype compute = PDT_FLOAT32, res = PDT_FLOAT32;
    int ndim = 0;
    int64_t shape[PDT_MAX_DIMS];

    st = pdt_same_device(name, 3, ts, arg_names, &dev);
    if (st == PDT_OK)
        st = pdt_ew_binary_dtypes(name, op, a, b, &compute, &res);
    if (st == PDT_OK && forced >= 0)
        res = (pdt_dtype)forced, compute = pdt_compute_dtype(res);
    if (st == PDT_OK)
        st = pdt_ew_broadcast_shape(name, a.t, b.t, &ndim, shape);
    if (st == PDT_OK && out)
        st = pdt_ew_check_output(name, out, ndim, shape, res);
    pdt_arg both[2] = {a, b};
    const pdt_dtype wrap = forced >= 0 ? res : result_type(2, both);
    if (st == PDT_OK && forced < 0 && pdt_dtype_is_small_int(wrap) && compute == PDT_INT32 &&
        pdt_backend_of(dev.kind)->small_int_rows)
        compute = wrap; /* not / (float32): Note [small integers] in pdt_dtype.h */
    if (st == PDT_OK && op == PDT_OP_POW && (pdt_dtype_is_small_int(wrap) || wrap == PDT_INT32) &&
        !b.t && !b.s.is_float && b.s.i != pdt_int_wrap(wrap, b.s.i) && b.s.i >= 0)
        st = pdt_fail(PDT_ERR_VALUE,
                      "%s: the exponent %lld cannot be converted to %s without "
                      "overflow (as in PyTorch)",
                      name, (long long)b.s.i, pdt_dtype_name(wrap));
    if (st == PDT_OK && op == PDT_OP_POW && !pdt_dtype_is_floating(compute) && !b.t &&
        !b.s.is_float && b.s.i < 0)
        st = pdt_fail(PDT_ERR_VALUE,
                      "%s: Integers to negative integer powers are not allowed (exponent %lld "
                      "for an %s base); use a float base",
                      name, (long long)b.s.i, pdt_dtype_name(res));
    if (st == PDT_OK && !a.t)
        st = pdt_ew_scalar_for(name, compute, wrap, a, &a.s);
    if (st == PDT_OK && !b.t)
        st = pdt_ew_scalar_for(name, compute, wrap, b, &b.s);
    /* Note [scalars meeting halves]: forced is add/sub with alpha, whose scalar is a
     * product already formed from a rounded operand */
    const int to_half = forced < 0 && pdt_dtype_is_half(wrap) && !reads_original(op);
    if (to_half && !a.t)
        pdt_ew_round_scalar(wrap, &a.s);
    if (to_half && !b.t)
        pdt_ew_round_scalar(wrap, &b.s);
    if (st == PDT_OK)
        st = check_integer_divisor(name, op, compute, a, b);
    if (st != PDT_OK)
        return st;
    if (op == PDT_OP_POW && res == PDT_BOOL) { /* a bool tensor ** True is itself, ** False */
        op = b.s.i ? PDT_OP_BITWISE_AND : PDT_OP_BITWISE_OR; /* all True, as PyTorch's */
        b.s.i = 1;                                           /* x & True, x | True */
    }
    if (res == PDT_BOOL)
        op = bool_op(op);
    if (op == PDT_OP_POW && is_square(a, b))
        op = PDT_OP_MUL, b = a;
    if (op == PDT_OP_POW && is_reciprocal(a, b)) { /* 1 / x */
        pdt_arg one = b; /* the scalar -1.0 in the compute dtype, made 1.0 */
        one.s.f = 1.0;
        op = PDT_OP_DIV, b = a, a = one;
    }
    const int square_root = op == PDT_OP_POW && is_square_root(a, b); /* Note [squares] */

    /* Nothing below fails for a reason the checks above could have seen. */
    pdt_ew_prepared pa, pb, tmp_out;
    const pdt_tensor *target = NULL, *dest = NULL;
    pa.has_tmp = pb.has_tmp = 0;
    int perm[PDT_MAX_DIMS];
    st = pdt_ew_make_target(dev, res, is_comparison(op) ? PDT_BOOL : compute, ndim, shape,
                            pdt_result_order(a.t, b.t, NULL, ndim, shape, perm), out, result,
                            &tmp_out, &target, &dest);
    if (st != PDT_OK)
        return st;
    pdt_note_op(name, dev);
    if (pdt_ew_numel_of(ndim, shape) == 0)
        goto done;
    const pdt_backend *be = pdt_backend_of(dev.kind);
    st = pdt_ew_prepare(a, mask_operand(be, op, compute, a, b) ? PDT_BOOL : compute, wrap, to_half,
                        target, target != out, &pa);
    if (st == PDT_OK)
        st = pdt_ew_prepare(b, mask_operand(be, op, compute, b, a) ? PDT_BOOL : compute, wrap,
                            to_half, target, target != out, &pb);
    if (st == PDT_OK && square_root)
        st = be->unary(PDT_OP_SQRT, target, pa.op.t, pb.op.s, pb.op.s);
    else if (st == PDT_OK && scale)
        st = be->binary_scaled(op, target, pa.op.t, pb.op.t, *scale);
    else if (st == PDT_OK)
        st = be->binary(op, target, pa.op, pb.op);
    if (st == PDT_OK && tmp_out.has_tmp)
        st = be->copy_cast(dest, &tmp_out.tmp);
done:
    pdt_ew_prepared_release(&pa);
    pdt_ew_prepared_release(&pb);
    pdt_ew_prepared_release(&tmp_out);
    if (st != PDT_OK && !out)
        pdt_tensor_release(result);
    return st;
}

pdt_status pdt_binary(const char *name, pdt_binary_op op, pdt_arg a, pdt_arg b,
                      const pdt_tensor *out, pdt_tensor *result)
{
    return pdt_ew_binary_impl(name, op, a, b, out, result, -1, NULL);
}

/* ---- the result dtype, for reusing a temporary (Note [temporary elision]) ---- */

pdt_dtype pdt_result_type(int n, const pdt_arg *args) { return result_type(n, args); }

pdt_dtype pdt_binary_result_dtype(pdt_binary_op op, pdt_arg a, pdt_arg b)
{
    pdt_arg args[2] = {a, b};
    pdt_dtype c = result_type(2, args);
    if (makes_float(op) && !pdt_dtype_is_floating(c))
        c = DEFAULT_FLOAT;
    return is_comparison(op) ? PDT_BOOL : c;
}
