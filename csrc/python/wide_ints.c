/* wide_ints.c - Python ints beyond int64 as operands of the elementwise ops.
 *
 * Note [ints beyond 64 bits]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A Python int has no size; the kernels' integers are int64 at most.  PyTorch 2.15
 * unpacks an int in [2**63, 2**64) as a uint64: a floating result takes its nearest
 * double (tensor([1.0]) + 2**63), an integer one wraps it (int64 + 2**63 adds -2**63,
 * and int64 x < 2**63 compares with -2**63: False for every x), tensor(2**63) raises
 * ("Overflow when unpacking long long"); from 2**64 up and below -2**63 it refuses the
 * int everywhere ("int too big to convert"), a floating result too.  Here any such int
 * up to the doubles is taken where the value is floating, and none is wrapped (a wrapped
 * 2**63 is a different number): to_arg (tensor_math.c) keeps such an int as its nearest
 * double with is_wide set (pdt_parse_scalar_wide; an int past the doubles, 2**1024 and
 * up, is still an OverflowError), and before the core sees it:
 *  - where the result dtype, counting the int as an int, is floating, the double is
 *    the operand: float32 + 2**63 stays float32, as PyTorch's; int / 2**63 is the
 *    quotient in the default float;
 *  - a comparison of an integer or bool tensor with it is answered exactly, as the
 *    ints within 64 bits beyond the tensor's dtype are (Note [ints beyond the dtype]
 *    in csrc/core/pdt_compare_scalar.c) and as NumPy 2 answers: the int lies past every
 *    int64, so x < 2**63 is x <= INT64_MAX (all True) and x == 2**63 is x > INT64_MAX
 *    (all False), still one pass in the tensor's dtype;
 *  - clamp's bounds of an integer result saturate, as its bounds beyond the dtype do;
 *  - written into a bool tensor (fill_, full, tensor(), setitem, masked_fill) it is True,
 *    as any nonzero int is (pdt_wide_holds);
 *  - anything else (int64 + 2**63, an integer fill) is an OverflowError naming the op,
 *    the dtype, the shape and the device.
 */
#include "wide_ints.h"

#include "args.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int is_comparison(pdt_binary_op op) { return op >= PDT_OP_EQ && op <= PDT_OP_GE; }

static pdt_binary_op mirrored(pdt_binary_op op)
{
    return op == PDT_OP_LT   ? PDT_OP_GT
           : op == PDT_OP_LE ? PDT_OP_GE
           : op == PDT_OP_GT ? PDT_OP_LT
           : op == PDT_OP_GE ? PDT_OP_LE
                             : op;
}

/* arg with a wide int counted as an int (for the result dtype) */
static pdt_arg as_int(pdt_arg arg)
{
    if (arg.is_wide)
        arg.s.is_float = 0, arg.s.i = 0;
    return arg;
}

int pdt_wide_refused(const char *name, const pdt_tensor *t, pdt_dtype result)
{
    char shape[64], dev[32];
    PyErr_Format(PyExc_OverflowError,
                 "%s: an integer beyond 64 bits with a result of dtype %s (a tensor of shape "
                 "%s on %s): it does not fit, and is not wrapped; use a floating tensor or a "
                 "float number",
                 name, pdt_dtype_name(result),
                 pdt_shape_str(t->ndim, t->shape, shape, sizeof shape),
                 pdt_device_str(t->device, dev, sizeof dev));
    return -1;
}

int pdt_wide_binary(const char *name, pdt_binary_op *op, pdt_arg *a, pdt_arg *b,
                    const pdt_arg *alpha)
{
    if (!a->is_wide && !b->is_wide && !(alpha && alpha->is_wide))
        return 0;
    pdt_arg both[2] = {as_int(*a), as_int(*b)};
    const pdt_dtype c = is_comparison(*op) ? pdt_result_type(2, both)
                                           : pdt_binary_result_dtype(*op, both[0], both[1]);
    if (pdt_dtype_is_floating(c))
        return 0;
    const pdt_tensor *t = a->t ? a->t : b->t;
    if (!is_comparison(*op) || !a->t == !b->t) {
        char fname[64];
        snprintf(fname, sizeof fname, "%s()", name);
        return pdt_wide_refused(fname, t, c);
    }
    /* x o w, with w past every int64 (positive or negative) */
    const pdt_arg *w = a->t ? b : a;
    const pdt_binary_op o = a->t ? *op : mirrored(*op);
    const int above = w->s.f > 0;
    const int holds = above ? o == PDT_OP_LT || o == PDT_OP_LE || o == PDT_OP_NE
                            : o == PDT_OP_GT || o == PDT_OP_GE || o == PDT_OP_NE;
    *op = above ? (holds ? PDT_OP_LE : PDT_OP_GT) : (holds ? PDT_OP_GE : PDT_OP_LT);
    pdt_arg x = a->t ? *a : *b, k;
    memset(&k, 0, sizeof k);
    k.s.i = above ? INT64_MAX : INT64_MIN;
    *a = x, *b = k;
    return 0;
}

void pdt_wide_clamp(pdt_arg *const bound[3])
{
    pdt_arg all[3];
    int n = 0;
    for (int i = 0; i < 3; i++)
        if (bound[i])
            all[n++] = as_int(*bound[i]);
    if (pdt_dtype_is_floating(pdt_result_type(n, all)))
        return;
    for (int i = 1; i < 3; i++)
        if (bound[i] && bound[i]->is_wide) {
            bound[i]->s.i = bound[i]->s.f > 0 ? INT64_MAX : INT64_MIN;
            bound[i]->s.is_float = 0;
            bound[i]->is_wide = 0;
        }
}

int pdt_parse_number_into(PyObject *obj, const char *what, const pdt_tensor *x, pdt_scalar *v)
{
    int wide;
    if (pdt_parse_scalar_wide(obj, what, v, &wide) < 0)
        return -1;
    return wide && !pdt_wide_holds(x->dtype) ? pdt_wide_refused(what, x, x->dtype) : 0;
}
