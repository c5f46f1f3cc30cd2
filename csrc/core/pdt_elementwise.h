/* pdt_elementwise.h - the validated entry points of the elementwise ops:
 * binary ops with NumPy broadcasting and PyTorch's dtype promotion, and unary
 * ops, each in an allocating, an out= and an in-place form.
 *
 * One function per kind of op does every check once (the same-device rule,
 * broadcasting, dtypes, scalar ranges, the output's shape and dtype, overlap),
 * casts inputs in temporaries only where the compute dtype differs, notes the
 * op for placement logging and dispatches to the device's backend.  The calls
 * take no lock and touch no Python: the bindings release the GIL around them.
 *
 * Note [elementwise dtypes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * As in PyTorch (its ResultTypeState), operands come in three priorities:
 * tensors with dimensions, 0-dim tensors, and Python scalars.  Within the
 * first group dtypes promote along bool < {uint8, int8} < int16 < int32 < int64 <
 * float32 < float64 (uint8 with int8 is int16; pdt_promote in pdt_dtype.c);
 * a lower group only matters when it is of a higher category (bool < integer
 * < floating), and then it brings its own dtype (a 0-dim float64 tensor) or
 * the default one (a Python float: float32; a Python int: int64).  So
 * float32 * 2.0 is float32, int32 + 1 is int32, int32 * 1.5 is float32, bool
 * + True is bool and bool + 1 is int64.  Then, per op:
 *   - `/` (true division) and exp/log/sqrt/sin/cos/tanh/sigmoid of integers
 *     or bools compute and return float32;
 *   - comparisons compute in the promoted dtype and return bool;
 *   - bools add as `or` and multiply as `and` (maximum/minimum likewise);
 *     `-`, `//`, `%` and `**` refuse two bools, and `-x` a bool tensor, as
 *     PyTorch does;
 *   - clamp promotes the tensor with its bounds like a binary op.
 * An out= or in-place output must be able to hold the result dtype under
 * PyTorch's casting rule (no float into an integer, nothing but bool into a
 * bool): x += 1.5 for an int64 x fails with "result type float32 can't be
 * cast to the desired output type int64".
 *
 * Note [0-dim tensors stay where they are]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * PyTorch lets a 0-dim CPU tensor join an op on a GPU (it copies the value
 * over behind the scenes).  We do not: no transfer is ever implicit, so a
 * 0-dim tensor obeys the same-device rule like any other tensor and the op
 * raises, naming both devices.  Python scalars are fine on every device (they
 * travel by value in the kernel's arguments); use x.item() or x.to(device)
 * to say which copy you want.
 *
 * Note [integer division by zero]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * PyTorch raises "RuntimeError: ZeroDivisionError" on the CPU for x // 0, x % 0,
 * fmod(x, 0) and div(x, 0, rounding_mode=...) of integers, and returns whatever
 * the GPU computes on CUDA.  We raise too (an InvalidArgumentError, which is a
 * RuntimeError, whose message starts "ZeroDivisionError:") wherever seeing the
 * zero costs no synchronisation: a Python scalar 0 as the divisor on every device,
 * and a zero anywhere in a CPU divisor tensor (one extra pass over it, before
 * anything is written).  A divisor tensor on a GPU is not read back for the
 * check: there x // 0, x % 0, fmod(x, 0) and the trunc division give 0, a
 * deterministic answer, with no warning (NumPy's answer, also 0).
 * INT_MIN // -1 (and its trunc division) wraps to INT_MIN and INT_MIN % -1 is 0,
 * as in NumPy (C would trap).  Floats follow IEEE: x // 0 is +-inf or nan,
 * x % 0 is nan.
 *
 * Note [integer powers]
 * ~~~~~~~~~~~~~~~~~~~~~
 * An integer raised to a negative integer *scalar* exponent raises
 * "Integers to negative integer powers are not allowed", as in PyTorch.  A
 * negative exponent inside an integer *tensor* cannot be seen without reading
 * the data (a synchronisation on a GPU), so there, as in PyTorch's kernels,
 * the result is what the real power truncates to: 1 for a base of 1, +-1 for
 * -1, and 0 otherwise (0 ** negative is 0 too).  Integer powers wrap on
 * overflow, like every other integer op.
 *
 * Note [shifts]
 * ~~~~~~~~~~~~~~
 * The bitwise ops (&, |, ^) and shifts take integer operands only (a float is a
 * TypeError, as in PyTorch; two bools give and, or, xor as bools).  x << s and x >> s for
 * a shift s outside [0, bits of the dtype) give what PyTorch's kernels give: 0 for
 * <<, and for >> 0 or -1 (the sign filled in).  A right shift of a signed dtype is
 * arithmetic.  The small integers shift as int32 does and wrap back (Note [small
 * integers] in pdt_dtype.h), which gives the same answers.
 */
#ifndef PDT_ELEMENTWISE_H
#define PDT_ELEMENTWISE_H

#include "pdt_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One input as the bindings see it: a tensor (any shape, dtype and device),
 * or a Python scalar when t is NULL.  A Python bool is an integer scalar with
 * is_bool set (it does not widen a bool tensor; an int does). */
typedef struct pdt_arg {
    const pdt_tensor *t;
    pdt_scalar s;
    int is_bool;
    /* a Python int beyond int64, held as the nearest double (s.is_float 1): the
     * bindings pass one to the core only where the result is floating, and ask
     * for the integer comparisons' answer otherwise (Note [ints beyond 64 bits] in
     * csrc/python/wide_ints.c); the core never reads it */
    int is_wide;
} pdt_arg;

/* out = op(a, b) with broadcasting.  At least one of a and b is a tensor.
 *   out == NULL: *result becomes a new contiguous tensor on the inputs' device.
 *   out != NULL: the values are written into out (the out= and the in-place
 *                forms; for x.add_(y), out is x's tensor and so is a.t), which
 *                must have the broadcast shape and a dtype the result casts to;
 *                result is not touched (may be NULL).
 * name is the op as the user wrote it ("add", "add_", "__iadd__"); messages
 * use it.  On failure nothing has been written. */
pdt_status pdt_binary(const char *name, pdt_binary_op op, pdt_arg a, pdt_arg b,
                      const pdt_tensor *out, pdt_tensor *result);

/* add and sub with alpha: out = a op (b * alpha), as in PyTorch.  The result
 * dtype is that of pdt_binary(a, b); alpha must fit it (a bool alpha only for
 * a bool result, a float alpha only for a floating one, an integer alpha in
 * range), and b * alpha is formed in that dtype, not in b's.  alpha is a
 * scalar (alpha.t NULL). */
pdt_status pdt_binary_alpha(const char *name, pdt_binary_op op, pdt_arg a, pdt_arg b, pdt_arg alpha,
                            const pdt_tensor *out, pdt_tensor *result);

/* The dtype pdt_binary(op, a, b) returns, without checking anything else (a
 * pair the op refuses, such as two bools for `-`, still gets a dtype here).
 * The bindings use it to decide whether a temporary operand can hold the
 * result (Note [temporary elision] in csrc/python/elide.c). */
pdt_dtype pdt_binary_result_dtype(pdt_binary_op op, pdt_arg a, pdt_arg b);

/* PyTorch's result_type of n operands (tensors of some dims, 0-d tensors, numbers:
 * a higher category among the later kinds promotes, the same category does not), as
 * one op over all of them computes in (clamp with two tensor bounds). */
pdt_dtype pdt_result_type(int n, const pdt_arg *args);

/* out = op(x), the same shape.  lo and hi are the scalar bounds of
 * PDT_OP_CLAMP (NULL: no bound on that side; at least one is given; a NaN
 * bound counts as none; integer bounds of an integer result stay integers,
 * exact at any size, and saturate to its range) and are ignored by the other
 * ops.  out and result as in pdt_binary. */
pdt_status pdt_unary(const char *name, pdt_unary_op op, const pdt_tensor *x, const pdt_arg *lo,
                     const pdt_arg *hi, const pdt_tensor *out, pdt_tensor *result);

#ifdef __cplusplus
}
#endif
#endif /* PDT_ELEMENTWISE_H */
