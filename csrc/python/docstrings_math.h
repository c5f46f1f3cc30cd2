/* Docstrings of the elementwise operations (csrc/python/tensor_math.c), in numpydoc form:
 * the first line is CPython's text signature ("name(args)\n--\n\n", read by
 * inspect.signature), then Parameters, Returns, Raises and Examples.  Every example runs as
 * a doctest in tests/test_docstrings.py, so what they print is what the code gives.
 *
 * The function form (pydevtensor.add(x, 2)), the method form (x.add(2)) and the in-place
 * form (x.add_(2)) of one operation share its example input and output. */
#ifndef PDT_DOCSTRINGS_MATH_H
#define PDT_DOCSTRINGS_MATH_H

#include "pdt_module.h" /* PyDoc_STRVAR */

#define DOC_OUT_PARAM                                                                              \
    "out : Tensor, optional\n    Receives the result: its device, and a dtype the result "         \
    "casts to; an out with no elements takes the result's shape, one with elements must "          \
    "have it.\n"
#define DOC_RAISES_BINARY                                                                          \
    "Raises\n------\nValueError\n    When the shapes do not broadcast together, or out does "      \
    "not match.\npydevtensor.DeviceError\n    When the two tensors are on different devices "      \
    "(no copy is made for you).\nTypeError\n    When an operand is neither a Tensor nor a "        \
    "number.\n\n"
#define DOC_RAISES_UNARY "Raises\n------\nValueError\n    When out does not match the result.\n\n"
#define DOC_BROADCAST ", with NumPy broadcasting; either operand may be a number."
#define DOC_RETURNS_NEW                                                                            \
    "Returns\n-------\nTensor\n    A new tensor on the operands' device, in their promoted dtype " \
    "(or out).\n\n"
#define DOC_RETURNS_M                                                                              \
    "Returns\n-------\nTensor\n    A new tensor on self's device, in the promoted dtype.\n\n"
#define DOC_RETURNS_SELF "Returns\n-------\nTensor\n    self, changed in place.\n\n"
#define DOC_BINARY_PARAMS                                                                          \
    "Parameters\n----------\ninput : Tensor or number\n    The left operand.\nother : Tensor or "  \
    "number\n    The right operand.\n" DOC_OUT_PARAM "\n"
#define DOC_OTHER_PARAM(EXTRA)                                                                     \
    "Parameters\n----------\nother : Tensor or number\n    The right operand, broadcast to "       \
    "self's shape.\n" EXTRA "\n"
#define DOC_EX(A) "Examples\n--------\n>>> x = pydevtensor.tensor(" A ")\n"

/* pydevtensor.NAME(input, other): WHAT is the operation in words; A the example input, B the
 * other operand and OUT the printed result. */
#define DOC_FN_BINARY(NAME, WHAT, A, B, OUT)                                                       \
    NAME "(input, other, *, out=None)\n--\n\n" WHAT " elementwise" DOC_BROADCAST                   \
         "\n\n" DOC_BINARY_PARAMS DOC_RETURNS_NEW DOC_RAISES_BINARY                                \
         DOC_EX(A) ">>> pydevtensor." NAME "(x, " B ")\n" OUT "\n"
/* The method forms; SIG and EXTRA give the keyword arguments beyond other (add's alpha). */
#define DOC_M_BX(NAME, SIG, EXTRA, WHAT, A, B, OUT)                                                \
    NAME "(other" SIG ")\n--\n\n" WHAT " elementwise, as pydevtensor." NAME                        \
         "(self, other).\n\n" DOC_OTHER_PARAM(EXTRA) DOC_RETURNS_M DOC_RAISES_BINARY               \
         DOC_EX(A) ">>> x." NAME "(" B ")\n" OUT "\n"
#define DOC_M_BX_(NAME, SIG, EXTRA, WHAT, A, B, OUT)                                               \
    NAME "_(other" SIG ")\n--\n\n" WHAT " elementwise, in place (the result must keep self's "     \
         "shape and dtype).\n\n" DOC_OTHER_PARAM(EXTRA) DOC_RETURNS_SELF DOC_RAISES_BINARY         \
         DOC_EX(A) ">>> x." NAME "_(" B ")\n" OUT "\n"
#define DOC_M_BINARY(NAME, WHAT, A, B, OUT) DOC_M_BX(NAME, "", "", WHAT, A, B, OUT)
#define DOC_M_BINARY_(NAME, WHAT, A, B, OUT) DOC_M_BX_(NAME, "", "", WHAT, A, B, OUT)

#define DOC_FN_UNARY(NAME, WHAT, A, OUT)                                                           \
    NAME "(input, *, out=None)\n--\n\n" WHAT " elementwise.\n\nParameters\n----------\ninput : "   \
         "Tensor\n    The operand.\n" DOC_OUT_PARAM "\n" DOC_RETURNS_NEW DOC_RAISES_UNARY          \
         DOC_EX(A) ">>> pydevtensor." NAME "(x)\n" OUT "\n"
#define DOC_M_UNARY(NAME, WHAT, A, OUT)                                                            \
    NAME "()\n--\n\n" WHAT " elementwise, as pydevtensor." NAME "(self).\n\n" DOC_RETURNS_M        \
    DOC_EX(A) ">>> x." NAME "()\n" OUT "\n"
#define DOC_M_UNARY_(NAME, WHAT, A, OUT)                                                           \
    NAME "_()\n--\n\n" WHAT " elementwise, in place.\n\n" DOC_RETURNS_SELF DOC_EX(A) ">>> x." NAME \
                                                                                     "_()\n" OUT   \
                                                                                     "\n"

/* The example of each operation, shared by its three forms. */
#define EX_ADD "[1., 2., 3.]", "2", "tensor([3., 4., 5.])"
#define EX_SUB "[1., 2., 3.]", "2", "tensor([-1.,  0.,  1.])"
#define EX_MUL "[1., 2., 3.]", "2", "tensor([2., 4., 6.])"
#define EX_DIV "[1., 2., 3.]", "2", "tensor([0.5000, 1.0000, 1.5000])"
#define EX_FLOORDIV "[-3., 2., 7.]", "2", "tensor([-2.,  1.,  3.])"
#define EX_REM "[-3., 2., 7.]", "2", "tensor([1., 0., 1.])"
#define EX_POW "[1., 2., 3.]", "2", "tensor([1., 4., 9.])"
#define EX_MAX "[1., 2., 3.]", "pydevtensor.tensor([3., 2., 1.])", "tensor([3., 2., 3.])"
#define EX_MIN "[1., 2., 3.]", "pydevtensor.tensor([3., 2., 1.])", "tensor([1., 2., 1.])"
#define EX_EQ "[1., 2., 3.]", "2", "tensor([False,  True, False])"
#define EX_NE "[1., 2., 3.]", "2", "tensor([ True, False,  True])"
#define EX_LT "[1., 2., 3.]", "2", "tensor([ True, False, False])"
#define EX_LE "[1., 2., 3.]", "2", "tensor([ True,  True, False])"
#define EX_GT "[1., 2., 3.]", "2", "tensor([False, False,  True])"
#define EX_GE "[1., 2., 3.]", "2", "tensor([False,  True,  True])"
#define EX_NEG "[1., -2.]", "tensor([-1.,  2.])"
#define EX_ABS "[-1., 2.]", "tensor([1., 2.])"
#define EX_EXP "[0., 1.]", "tensor([1.0000, 2.7183])"
#define EX_LOG "[1., 4.]", "tensor([0.0000, 1.3863])"
#define EX_SQRT "[4., 9.]", "tensor([2., 3.])"
#define EX_SIN "[0., 1.]", "tensor([0.0000, 0.8415])"
#define EX_COS "[0., 1.]", "tensor([1.0000, 0.5403])"
#define EX_TANH "[0., 1.]", "tensor([0.0000, 0.7616])"
#define EX_SIGMOID "[0., 1.]", "tensor([0.5000, 0.7311])"
#define EX_RELU "[-1., 2.]", "tensor([0., 2.])"
#define EX_FLOOR "[-1.5, 2.5]", "tensor([-2.,  2.])"
#define EX_CEIL "[-1.5, 2.5]", "tensor([-1.,  3.])"
#define EX_ROUND "[0.5, 1.5, -2.5]", "tensor([ 0.,  2., -2.])"
#define EX_TRUNC "[-1.5, 2.5]", "tensor([-1.,  2.])"
#define EX_SIGN "[-3., 0., 2.]", "tensor([-1.,  0.,  1.])"
#define EX_LOG1P "[0., 1.]", "tensor([0.0000, 0.6931])"
#define EX_EXPM1 "[0., 1.]", "tensor([0.0000, 1.7183])"
#define EX_ERF "[0., 0.5, -2.]", "tensor([ 0.0000,  0.5205, -0.9953])"
#define EX_ERFC "[0., 0.5, 3.]", "tensor([1.0000e+00, 4.7950e-01, 2.2090e-05])"

/* The variadic forms let an EX_ macro (three or four arguments) fill the last parameters. */
#define DOC_FN_B(NAME, WHAT, ...) DOC_FN_BINARY(NAME, WHAT, __VA_ARGS__)
#define DOC_M_B(NAME, WHAT, ...) DOC_M_BINARY(NAME, WHAT, __VA_ARGS__)
#define DOC_M_B_(NAME, WHAT, ...) DOC_M_BINARY_(NAME, WHAT, __VA_ARGS__)
#define DOC_M_ALPHA(NAME, WHAT, ...)                                                               \
    DOC_M_BX(NAME, ", *, alpha=1", DOC_ALPHA_PARAM, WHAT, __VA_ARGS__)
#define DOC_M_ALPHA_(NAME, WHAT, ...)                                                              \
    DOC_M_BX_(NAME, ", *, alpha=1", DOC_ALPHA_PARAM, WHAT, __VA_ARGS__)
#define DOC_M_ROUND(NAME, WHAT, ...)                                                               \
    DOC_M_BX(NAME, ", *, rounding_mode=None", DOC_ROUNDING_PARAM, WHAT, __VA_ARGS__)
#define DOC_M_ROUND_(NAME, WHAT, ...)                                                              \
    DOC_M_BX_(NAME, ", *, rounding_mode=None", DOC_ROUNDING_PARAM, WHAT, __VA_ARGS__)
#define DOC_FN_U(NAME, WHAT, ...) DOC_FN_UNARY(NAME, WHAT, __VA_ARGS__)
#define DOC_M_U(NAME, WHAT, ...) DOC_M_UNARY(NAME, WHAT, __VA_ARGS__)
#define DOC_M_U_(NAME, WHAT, ...) DOC_M_UNARY_(NAME, WHAT, __VA_ARGS__)

#define DOC_ALPHA_PARAM "alpha : number, optional\n    Scales other first (default 1).\n"
#define DOC_ROUNDING_PARAM                                                                         \
    "rounding_mode : {None, 'floor', 'trunc'}, optional\n    None divides exactly (integers give " \
    "float32); 'floor' rounds toward -inf, as floor_divide; 'trunc' rounds toward 0 "              \
    "(``trunc(a / b)`` for floats, C's integer division for integers; an integer divided "         \
    "by 0 raises, as in PyTorch, except for a divisor tensor on a GPU, where it gives 0).\n"

PyDoc_STRVAR(doc_fn_add,
             "add(input, other, *, alpha=1, out=None)\n--\n\n``input + alpha * other`` "
             "elementwise" DOC_BROADCAST "\n\nParameters\n----------\ninput : Tensor or "
             "number\n    The left operand.\nother : Tensor or number\n    The right "
             "operand.\n" DOC_ALPHA_PARAM DOC_OUT_PARAM "\n" DOC_RETURNS_NEW DOC_RAISES_BINARY
                 DOC_EX("[1., 2., 3.]") ">>> pydevtensor.add(x, 2)\ntensor([3., 4., 5.])\n"
                                        ">>> pydevtensor.add(x, 2, alpha=10)\n"
                                        "tensor([21., 22., 23.])\n");
PyDoc_STRVAR(doc_fn_sub,
             "sub(input, other, *, alpha=1, out=None)\n--\n\n``input - alpha * other`` "
             "elementwise" DOC_BROADCAST "\n\nParameters\n----------\ninput : Tensor or "
             "number\n    The left operand.\nother : Tensor or number\n    The right "
             "operand.\n" DOC_ALPHA_PARAM DOC_OUT_PARAM "\n" DOC_RETURNS_NEW DOC_RAISES_BINARY
                 DOC_EX("[1., 2., 3.]") ">>> pydevtensor.sub(x, 2)\ntensor([-1.,  0.,  1.])\n");
PyDoc_STRVAR(doc_fn_div,
             "div(input, other, *, rounding_mode=None, out=None)\n--\n\ninput / other "
             "elementwise" DOC_BROADCAST "\n\nParameters\n----------\ninput : Tensor or "
             "number\n    The dividend.\nother : Tensor or number\n    The "
             "divisor.\n" DOC_ROUNDING_PARAM DOC_OUT_PARAM "\n" DOC_RETURNS_NEW DOC_RAISES_BINARY
                 DOC_EX("[-3., 2., 7.]") ">>> pydevtensor.div(x, 2)\n"
                                         "tensor([-1.5000,  1.0000,  3.5000])\n"
                                         ">>> pydevtensor.div(x, 2, rounding_mode='floor')\n"
                                         "tensor([-2.,  1.,  3.])\n"
                                         ">>> pydevtensor.div(x, 2, rounding_mode='trunc')\n"
                                         "tensor([-1.,  1.,  3.])\n");
PyDoc_STRVAR(doc_fn_pow, "pow(input, exponent, *, out=None)\n--\n\n``input ** exponent`` "
                         "elementwise" DOC_BROADCAST "\n\nParameters\n----------\ninput : "
                         "Tensor or number\n    The base.\nexponent : Tensor or number\n    "
                         "The exponent.\n" DOC_OUT_PARAM "\n" DOC_RETURNS_NEW DOC_RAISES_BINARY
                             DOC_EX("[1., 2., 3.]") ">>> pydevtensor.pow(x, 2)\n"
                                                    "tensor([1., 4., 9.])\n");
PyDoc_STRVAR(doc_fn_clamp,
             "clamp(input, min=None, max=None, *, out=None)\n--\n\nmin(max(input, min), max) "
             "elementwise; NaN is kept.\n\nParameters\n----------\ninput : Tensor\n    The "
             "values to clamp.\nmin, max : number or Tensor, optional\n    The bounds (None: "
             "unbounded on that side); tensors broadcast.\n    An integer input's integer bound "
             "that no value of its "
             "dtype reaches (a min\n    above its largest, a max below its smallest) raises "
             "RuntimeError, as PyTorch's.\n" DOC_OUT_PARAM "\n" DOC_RETURNS_NEW DOC_RAISES_BINARY
                 DOC_EX("[-1., 0.5, 2.]") ">>> pydevtensor.clamp(x, 0, 1)\n"
                                          "tensor([0.0000, 0.5000, 1.0000])\n");
PyDoc_STRVAR(doc_m_clamp,
             "clamp(min=None, max=None)\n--\n\nmin(max(self, min), max) elementwise, "
             "as pydevtensor.clamp(self, min, max).\n\nParameters\n----------\nmin, "
             "max : number or Tensor, optional\n    The bounds (None: unbounded on "
             "that side).\n\n" DOC_RETURNS_M DOC_EX(
                 "[-1., 0.5, 2.]") ">>> "
                                   "x.clamp(0, 1)\ntensor([0.0000, 0.5000, 1.0000])\n");
PyDoc_STRVAR(doc_m_clamp_,
             "clamp_(min=None, max=None)\n--\n\nClamps self in place to [min, "
             "max].\n\nParameters\n----------\nmin, max : number or Tensor, "
             "optional\n    The bounds (None: unbounded on that side).\n\n" DOC_RETURNS_SELF DOC_EX(
                 "[-1., 0.5, 2.]") ">>> x.clamp_(max=1)\n"
                                   "tensor([-1.0000,  "
                                   "0.5000,  1.0000])\n");
PyDoc_STRVAR(doc_m_fill_,
             "fill_(value)\n--\n\nEvery element becomes value.\n\nParameters\n------"
             "----\nvalue : number\n    Converted to self's dtype.\n\n" DOC_RETURNS_SELF DOC_EX(
                 "[1., 2., 3.]") ">>> x.fill_(7)\n"
                                 "tensor([7., 7., 7.])\n");
PyDoc_STRVAR(doc_m_zero_, "zero_()\n--\n\nEvery element becomes 0.\n\n" DOC_RETURNS_SELF DOC_EX(
                              "[1., 2., 3.]") ">>> x.zero_()\ntensor([0., 0., 0.])\n");
PyDoc_STRVAR(doc_m_pow,
             "pow(exponent)\n--\n\n``self ** exponent`` elementwise, as pydevtensor.pow(self, "
             "exponent).\n\nParameters\n----------\nexponent : Tensor or number\n    "
             "Broadcast to self's shape.\n\n" DOC_RETURNS_M DOC_RAISES_BINARY
                 DOC_EX("[1., 2., 3.]") ">>> x.pow(2)\ntensor([1., 4., 9.])\n");
PyDoc_STRVAR(doc_m_pow_, "pow_(exponent)\n--\n\n``self **= exponent`` elementwise, in place.\n\n"
                         "Parameters\n----------\nexponent : Tensor or number\n    Broadcast to "
                         "self's shape.\n\n" DOC_RETURNS_SELF DOC_RAISES_BINARY
                             DOC_EX("[1., 2., 3.]") ">>> x.pow_(2)\ntensor([1., 4., 9.])\n");

#endif
