/* tensor_bitwise.c - bitwise_and, bitwise_or, bitwise_xor, bitwise_left_shift and
 * bitwise_right_shift of the integer dtypes in their three forms (tensor_forms.h):
 * pydevtensor.bitwise_and(x, y, out=...), x.bitwise_and(y), x.bitwise_and_(y).  Each
 * ends in pdt_binary (csrc/core/pdt_elementwise.h): PyTorch's promotion, a Python int
 * wrapped into a small integer dtype, a float operand a TypeError; two bools give a
 * bool (and, or, xor).  Shifts past the width: Note [shifts] in pdt_elementwise.h.
 * The operators &, |, ^, ~, << and >> call these for integer tensors.
 *
 * Note [mask operators in C]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * `m1 & m2` and `~m` on masks were Python methods (pydevtensor/_ops_logical.py) in front
 * of these ops: 0.40 and 0.38 us on one element where NumPy takes 0.30 and 0.28, the
 * C ops themselves 0.24.  The number slots now take &, |, ^ (and &=, |=, ^=, ~) when
 * every operand is a bool or integer tensor or a Python int or bool: the C op straight
 * away, with PyTorch's promotion (so `mask & 1` is int64, as in PyTorch).  A float
 * tensor (a TypeError that says to compare first), a NumPy array (NotImplemented, for
 * its reflected op) and any other operand go to the Python fallback that _ops_logical
 * installs, as before. */
#include "args.h"
#include "docstrings_math.h"
#include "tensor_forms.h"

/* o is a bool or integer tensor, or a Python int or bool; *tensor counts tensors */
static int integral(PyObject *o, int *tensor)
{
    if (pdt_quick_is_tensor(o)) {
        ++*tensor;
        return !pdt_dtype_is_floating(pdt_tensor_of(o)->dtype);
    }
    return PyLong_CheckExact(o) || PyBool_Check(o);
}

/* The Python fallback for op: fallback(op, a, b) (b NULL for ~).  The state from a's
 * type, else b's: either may be a Python subclass of Tensor whose slots are not ours
 * (a review: looking at b's type alone for such an a found int's, or NULL for ~). */
static PyObject *fallback(const char *op, PyObject *a, PyObject *b)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(a));
    if (!S && b) {
        PyErr_Clear();
        S = pdt_state_of_type(Py_TYPE(b));
    }
    if (!S)
        return NULL;
    if (!S->operator_fallback) { /* before pydevtensor/__init__ has run */
        if (b)
            Py_RETURN_NOTIMPLEMENTED;
        PyErr_Format(PyExc_TypeError, "bad operand type for unary ~: '%.100s'",
                     Py_TYPE(a)->tp_name);
        return NULL;
    }
    PyObject *fn = Py_NewRef(S->operator_fallback), *name = PyUnicode_FromString(op);
    PyObject *r = name ? PyObject_CallFunctionObjArgs(fn, name, a, b ? b : Py_None, NULL) : NULL;
    Py_XDECREF(name);
    Py_DECREF(fn);
    return r;
}

static PyObject *mask_op(PyObject *a, PyObject *b, pdt_binary_op op, const char *sym,
                         const char *name, int in_place)
{
    int tensors = 0;
    if (integral(a, &tensors) && integral(b, &tensors) && tensors > 0)
        return pdt_number_binary(a, b, op, name, in_place);
    return fallback(sym, a, b);
}

#define MASK_SLOTS(SLOT, OP, SYM, NAME)                                                            \
    static PyObject *nb_##SLOT(PyObject *a, PyObject *b)                                           \
    {                                                                                              \
        return mask_op(a, b, OP, SYM, NAME, 0);                                                    \
    }                                                                                              \
    static PyObject *nb_inplace_##SLOT(PyObject *a, PyObject *b)                                   \
    {                                                                                              \
        return mask_op(a, b, OP, SYM "=", NAME "_", 1);                                            \
    }
MASK_SLOTS(and, PDT_OP_BITWISE_AND, "&", "bitwise_and")
MASK_SLOTS(or, PDT_OP_BITWISE_OR, "|", "bitwise_or")
MASK_SLOTS(xor, PDT_OP_BITWISE_XOR, "^", "bitwise_xor")

/* ~x: every bit flipped, x ^ -1 (x ^ True for a bool: its not) */
static PyObject *nb_invert(PyObject *x)
{
    int tensors = 0;
    if (!integral(x, &tensors))
        return fallback("~", x, NULL);
    const int is_bool = pdt_tensor_of(x)->dtype == PDT_BOOL;
    PyObject *ones = is_bool ? Py_NewRef(Py_True) : PyLong_FromLong(-1);
    PyObject *r = ones ? pdt_number_binary(x, ones, PDT_OP_BITWISE_XOR, "bitwise_not", 0) : NULL;
    Py_XDECREF(ones);
    return r;
}

PyType_Slot pdt_bitwise_slots[] = {
    {Py_nb_and, nb_and},
    {Py_nb_or, nb_or},
    {Py_nb_xor, nb_xor},
    {Py_nb_inplace_and, nb_inplace_and},
    {Py_nb_inplace_or, nb_inplace_or},
    {Py_nb_inplace_xor, nb_inplace_xor},
    {Py_nb_invert, nb_invert},
    {0, NULL},
};

/* _set_operator_fallback(fn): fn(op, a, b) serves the operands of Note [mask operators
 * in C] that the slots leave to Python. */
static PyObject *f_set_operator_fallback(PyObject *module, PyObject *fn)
{
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "_set_operator_fallback(fn): fn must be callable");
        return NULL;
    }
    pdt_state *S = pdt_state_of_module(module);
    Py_XSETREF(S->operator_fallback, Py_NewRef(fn));
    Py_RETURN_NONE;
}

BINARY_OP_FORMS(bitwise_and, PDT_OP_BITWISE_AND)
BINARY_OP_FORMS(bitwise_or, PDT_OP_BITWISE_OR)
BINARY_OP_FORMS(bitwise_xor, PDT_OP_BITWISE_XOR)
BINARY_OP_FORMS(bitwise_left_shift, PDT_OP_SHIFT_LEFT)
BINARY_OP_FORMS(bitwise_right_shift, PDT_OP_SHIFT_RIGHT)

#define INTS " of integers (bools for and, or, xor; floats are refused)"
#define W_AND "The bitwise and" INTS
#define W_OR "The bitwise or" INTS
#define W_XOR "The bitwise exclusive or" INTS
#define W_SHL "input shifted left by other bits (0 for a shift outside [0, bits))"
#define W_SHR                                                                                      \
    "input shifted right by other bits, the sign filled in (0 or -1 for a shift outside [0, "      \
    "bits))"
#define EX_U8 "[12, 10, 255], dtype=pydevtensor.uint8"
#define EX_AND EX_U8, "6", "tensor([4, 2, 6], dtype=pydevtensor.uint8)"
#define EX_OR EX_U8, "6", "tensor([ 14,  14, 255], dtype=pydevtensor.uint8)"
#define EX_XOR EX_U8, "6", "tensor([ 10,  12, 249], dtype=pydevtensor.uint8)"
#define EX_SHL EX_U8, "4", "tensor([192, 160, 240], dtype=pydevtensor.uint8)"
#define EX_SHR "[-12, 10, 255]", "2", "tensor([-3,  2, 63])"

#define ENTRIES(NAME, W, EX)                                                                       \
    {#NAME, FASTKW(m_##NAME), DOC_M_B(#NAME, W, EX)},                                              \
        {#NAME "_", FASTKW(m_##NAME##_), DOC_M_B_(#NAME, W, EX)},

PyMethodDef pdt_bitwise_functions[] = {
    {"_set_operator_fallback", f_set_operator_fallback, METH_O, NULL},
    {"bitwise_and", FASTKW(fn_bitwise_and), DOC_FN_B("bitwise_and", W_AND, EX_AND)},
    {"bitwise_or", FASTKW(fn_bitwise_or), DOC_FN_B("bitwise_or", W_OR, EX_OR)},
    {"bitwise_xor", FASTKW(fn_bitwise_xor), DOC_FN_B("bitwise_xor", W_XOR, EX_XOR)},
    {"bitwise_left_shift", FASTKW(fn_bitwise_left_shift),
     DOC_FN_B("bitwise_left_shift", W_SHL, EX_SHL)},
    {"bitwise_right_shift", FASTKW(fn_bitwise_right_shift),
     DOC_FN_B("bitwise_right_shift", W_SHR, EX_SHR)},
    {NULL, NULL, 0, NULL},
};

PyMethodDef pdt_bitwise_methods[] = {
    ENTRIES(bitwise_and, W_AND, EX_AND) ENTRIES(bitwise_or, W_OR, EX_OR)
        ENTRIES(bitwise_xor, W_XOR, EX_XOR) ENTRIES(bitwise_left_shift, W_SHL, EX_SHL)
            ENTRIES(bitwise_right_shift, W_SHR, EX_SHR){NULL, NULL, 0, NULL},
};
