/* wide_ints.h - Python ints beyond int64 as operands (Note [ints beyond 64 bits] in
 * wide_ints.c). */
#ifndef PDT_WIDE_INTS_H
#define PDT_WIDE_INTS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "pdt_elementwise.h"

/* Before the core runs op(a, b) (with alpha for add and sub, else NULL): a wide int
 * operand stays where the result is floating, a comparison of an integer tensor with
 * one becomes the exact one of *a (the tensor) with an int64 *b (*op changed), and
 * anything else raises OverflowError.  0, or -1 with the error set. */
int pdt_wide_binary(const char *name, pdt_binary_op *op, pdt_arg *a, pdt_arg *b,
                    const pdt_arg *alpha);

/* clamp's bound[1] and bound[2] (NULL: none; bound[0] is the input): a wide one
 * saturates (to INT64_MAX or INT64_MIN, which the core saturates to the dtype) where
 * the result is an integer, as bounds beyond the dtype do; a floating result keeps the
 * double. */
void pdt_wide_clamp(pdt_arg *const bound[3]);

/* 1 where a value of dtype dt can be written from a wide int: a floating dtype takes
 * its nearest double, bool its truth (True: a wide int is never 0), as PyTorch's do. */
static inline int pdt_wide_holds(pdt_dtype dt)
{
    return pdt_dtype_is_floating(dt) || dt == PDT_BOOL;
}

/* The OverflowError of a wide int where t's op has the integer result dtype result;
 * returns -1. */
int pdt_wide_refused(const char *name, const pdt_tensor *t, pdt_dtype result);

/* pdt_parse_scalar for a number written into x (setitem, masked_fill, fill_): an int
 * beyond 64 bits only into an x that pdt_wide_holds, as its nearest double (Note [ints beyond 64
 * bits]); what names the operation in the messages. */
int pdt_parse_number_into(PyObject *obj, const char *what, const pdt_tensor *x, pdt_scalar *v);

#endif
