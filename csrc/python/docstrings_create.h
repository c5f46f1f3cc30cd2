/* Docstrings of the creation functions and the random fills (csrc/python/tensor_create.c),
 * in numpydoc form under CPython's text signature; every example runs as a doctest in
 * tests/test_docstrings.py.  arange and randint take two call forms, which no text
 * signature can say: randint's first line names both; arange's text signature is the
 * longer form, with end optional (inspect.signature reads it). */
#ifndef PDT_DOCSTRINGS_CREATE_H
#define PDT_DOCSTRINGS_CREATE_H

#include "pdt_module.h" /* PyDoc_STRVAR */

/* NAME: the function, so that ones' example says ones(2, 3) */
#define DOC_SIZE_PARAM(NAME)                                                                       \
    "*size : int or sequence of ints\n    The shape: " NAME "(2, 3), " NAME "((2, 3)) or, as a "   \
    "keyword, " NAME "(size=(2, 3)).\n"
#define DOC_DTYPE_PARAM(DEFAULT)                                                                   \
    "dtype : pydevtensor.dtype, optional\n    The element type (default: " DEFAULT ").\n"
#define DOC_DEVICE_PARAM                                                                           \
    "device : str or pydevtensor.device, optional\n    Where the tensor lives (default: "          \
    "pydevtensor.get_default_device()).\n"
#define DOC_PIN_PARAM                                                                              \
    "pin_memory : bool, optional\n    Page-locked host memory, for faster copies to a GPU "        \
    "(CPU tensors only).\n"
/* Note [factories into out] in tensor_create.c */
#define DOC_OUT_PARAM                                                                              \
    "out : Tensor, optional\n    Written with the result and returned.  The result takes out's "   \
    "dtype and device (a dtype= or device= that differs is refused); out must have the "           \
    "result's shape, or no elements (it then takes the result's shape).\n"
#define DOC_RG_PARAM                                                                               \
    "requires_grad : bool, optional\n    Whether autograd records operations on the result.\n"
#define DOC_LIKE_FORMAT_PARAM                                                                      \
    "memory_format : pydevtensor.memory_format, optional\n    The layout: preserve_format (or "    \
    "None, the default) keeps input's memory order, as clone() does; contiguous_format, "          \
    "channels_last or channels_last_3d lay it out so.\n"
#define DOC_LIKE_PARAMS(WHAT)                                                                      \
    "Parameters\n----------\ninput : Tensor\n    Gives the shape, and the dtype and device "       \
    "unless given.\n" WHAT DOC_DTYPE_PARAM(                                                        \
        "input's") "device : str or pydevtensor.device, "                                          \
                   "optional\n    Where the tensor lives "                                         \
                   "(default: input's device).\n" DOC_RG_PARAM DOC_LIKE_FORMAT_PARAM "\n"
#define DOC_RAISES_SHAPE_DEVICE                                                                    \
    "Raises\n------\nValueError\n    When a size is negative.\npydevtensor.DeviceError\n    "      \
    "When the device does not exist.\npydevtensor.OutOfMemoryError\n    When the device has no "   \
    "room for it.\n\n"
#define DOC_RETURNS_T(WHAT) "Returns\n-------\nTensor\n    " WHAT "\n\n"
#define DOC_SIZE_FN(NAME, WHAT, RET, EXAMPLE)                                                      \
    NAME "(*size, out=None, dtype=None, device=None, pin_memory=False, requires_grad=False)\n--"   \
         "\n\n" WHAT "\n\nParameters\n----------\n" DOC_SIZE_PARAM(NAME)                           \
             DOC_OUT_PARAM DOC_DTYPE_PARAM("float32") DOC_DEVICE_PARAM DOC_PIN_PARAM DOC_RG_PARAM  \
        "\n" DOC_RETURNS_T(RET) DOC_RAISES_SHAPE_DEVICE "Examples\n--------\n" EXAMPLE
#define DOC_GENERATOR_PARAM                                                                        \
    "generator : Generator, optional\n    The stream to draw from (default: the default "          \
    "generator, pydevtensor.default_generator).\n"
/* rand and randn: DOC_SIZE_FN with generator= */
#define DOC_RANDOM_FN(NAME, WHAT, RET, EXAMPLE)                                                    \
    NAME "(*size, generator=None, out=None, dtype=None, device=None, pin_memory=False, "           \
         "requires_grad=False)\n--\n\n" WHAT "\n\nParameters\n----------\n" DOC_SIZE_PARAM(NAME)   \
             DOC_GENERATOR_PARAM DOC_OUT_PARAM DOC_DTYPE_PARAM("float32")                          \
                 DOC_DEVICE_PARAM DOC_PIN_PARAM DOC_RG_PARAM "\n" DOC_RETURNS_T(RET)               \
                     DOC_RAISES_SHAPE_DEVICE "Examples\n--------\n" EXAMPLE
#define DOC_LIKE_FN(NAME, SIG, WHAT, EXTRA, EXAMPLE)                                               \
    NAME "(input" SIG ", *, dtype=None, device=None, requires_grad=False, "                        \
         "memory_format=None)\n--\n\n" WHAT "\n\n" DOC_LIKE_PARAMS(EXTRA) DOC_RETURNS_T(           \
             "A new tensor of input's shape.") "Examples\n--------\n>>> x = "                      \
                                               "pydevtensor.tensor([[1, 2], [3, 4]])\n" EXAMPLE

PyDoc_STRVAR(
    doc_empty,
    "empty(*size, out=None, dtype=None, device=None, pin_memory=False, requires_grad=False, "
    "memory_format=None)\n--\n\nA tensor whose contents are "
    "not initialised.\n\nParameters\n----------\n" DOC_SIZE_PARAM("empty")
        DOC_OUT_PARAM DOC_DTYPE_PARAM("float32") DOC_DEVICE_PARAM DOC_PIN_PARAM DOC_RG_PARAM
    "memory_format : pydevtensor.memory_format, optional\n    Its layout: "
    "contiguous_format (row-major; the default, also for None), or channels_last (a 4-d "
    "shape) or channels_last_3d "
    "(5-d), whose channels are innermost.\n\n" DOC_RETURNS_T(
        "Of the given shape; read it only after writing it.") DOC_RAISES_SHAPE_DEVICE
    "Examples\n--------\n>>> pydevtensor.empty(2, 3).shape\npydevtensor.Size([2, 3])\n"
    ">>> pydevtensor.empty(2, 3, 4, 5, memory_format=pydevtensor.channels_last).stride()"
    "\n(60, 1, 15, 3)\n");
PyDoc_STRVAR(doc_zeros,
             DOC_SIZE_FN("zeros", "A tensor of zeros.", "Of the given shape, filled with 0.",
                         ">>> pydevtensor.zeros(2, 3)\ntensor([[0., 0., 0.],\n        "
                         "[0., 0., 0.]])\n>>> buf = pydevtensor.empty(0, dtype=pydevtensor.int64)\n"
                         ">>> pydevtensor.zeros(2, out=buf) is buf, buf\n"
                         "(True, tensor([0, 0]))\n"));
PyDoc_STRVAR(doc_ones,
             DOC_SIZE_FN("ones", "A tensor of ones.", "Of the given shape, filled with 1.",
                         ">>> pydevtensor.ones((2,), dtype=pydevtensor.int64)\n"
                         "tensor([1, 1])\n"));
PyDoc_STRVAR(
    doc_full,
    "full(size, fill_value, *, out=None, dtype=None, device=None, requires_grad=False)\n--\n\n"
    "A tensor filled with fill_value.\n\nParameters\n----------\nsize : sequence of "
    "ints\n    The shape.\nfill_value : bool, int, float or 0-d Tensor\n    Every "
    "element's value (a tensor's read as item() reads it).\n" DOC_OUT_PARAM DOC_DTYPE_PARAM(
        "from fill_value: bool, int64 or float32") DOC_DEVICE_PARAM DOC_RG_PARAM
    "\n" DOC_RETURNS_T("Of the given shape.") DOC_RAISES_SHAPE_DEVICE
    "TypeError\n    When fill_value is not a real number.\n\nExamples\n--------\n"
    ">>> pydevtensor.full((2, 2), 7)\ntensor([[7, 7],\n        [7, 7]])\n"
    ">>> pydevtensor.full((2,), 1.5)\ntensor([1.5000, 1.5000])\n");
PyDoc_STRVAR(doc_empty_like,
             DOC_LIKE_FN("empty_like", "", "An uninitialised tensor shaped like input.", "",
                         ">>> pydevtensor.empty_like(x).shape\npydevtensor.Size([2, 2])\n"));
PyDoc_STRVAR(doc_zeros_like,
             DOC_LIKE_FN("zeros_like", "", "Zeros shaped like input.", "",
                         ">>> pydevtensor.zeros_like(x)\ntensor([[0, 0],\n        [0, 0]])\n"));
PyDoc_STRVAR(doc_ones_like, DOC_LIKE_FN("ones_like", "", "Ones shaped like input.", "",
                                        ">>> pydevtensor.ones_like(x, dtype=pydevtensor.float32)\n"
                                        "tensor([[1., 1.],\n        [1., 1.]])\n"));
PyDoc_STRVAR(doc_full_like,
             DOC_LIKE_FN("full_like", ", fill_value", "fill_value everywhere, shaped like input.",
                         "fill_value : bool, int or float\n    Every element's value.\n",
                         ">>> pydevtensor.full_like(x, 9)\ntensor([[9, 9],\n        [9, 9]])\n"));
PyDoc_STRVAR(
    doc_arange,
    "arange(start, end=None, /, step=1, *, out=None, dtype=None, device=None, pin_memory=False, "
    "requires_grad=False)\n--\n\nValues from start up to (not including) end, step "
    "apart: arange(end) or arange(start, end, step=1).\n\nParameters\n----------\n"
    "start : number or 0-d Tensor, optional\n    The first value "
    "(default 0).\nend : number or 0-d Tensor\n    The bound, not included.\nstep : "
    "number or 0-d Tensor, optional\n    The spacing (default 1); non-zero, pointing "
    "from start to end.  A 0-d tensor's value is read as item() reads it (a GPU "
    "tensor's copy to the host is counted).\n" DOC_OUT_PARAM DOC_DTYPE_PARAM(
        "int64, or float32 when an argument is a float") DOC_DEVICE_PARAM DOC_RG_PARAM
    "\n" DOC_RETURNS_T(
        "1-d, of ceil((end - start) / step) elements.") "Raises\n------\n"
                                                        "ValueError\n    When step is 0 or points "
                                                        "away from end, or a bound is not "
                                                        "finite.\n\nExamples\n--------\n>>> "
                                                        "pydevtensor.arange(5)\n"
                                                        "tensor([0, 1, 2, 3, 4])\n>>> "
                                                        "pydevtensor.arange(1, 2, 0.25)\n"
                                                        "tensor([1.0000, 1.2500, 1.5000, "
                                                        "1.7500])\n");
PyDoc_STRVAR(
    doc_linspace,
    "linspace(start, end, steps, *, out=None, dtype=None, device=None, requires_grad=False)\n--\n\n"
    "steps values evenly spaced from start to end, both included.  An integer dtype takes\n"
    "start and end as integers first (truncated), as PyTorch's, then truncates each value.\n"
    "\nParameters\n"
    "----------\nstart, end : number or 0-d Tensor\n    The first and the last value (a "
    "tensor's read as item() reads it).\nsteps : int\n"
    "    How many values (>= 0).\n" DOC_OUT_PARAM DOC_DTYPE_PARAM("float32")
        DOC_DEVICE_PARAM DOC_RG_PARAM
    "\n" DOC_RETURNS_T(
        "1-d, of steps elements.") "Raises\n------\n"
                                   "ValueError\n    When steps is negative.\n\nExamples\n--------\n"
                                   ">>> pydevtensor.linspace(0, 1, 5)\n"
                                   "tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])\n"
                                   ">>> pydevtensor.linspace(-2.5, 7, 7, dtype=pydevtensor.int64)\n"
                                   "tensor([-2,  0,  1,  2,  4,  5,  7])\n");
PyDoc_STRVAR(doc_eye,
             "eye(n, m=None, *, out=None, dtype=None, device=None, requires_grad=False)\n--\n\n"
             "The identity matrix: ones on the diagonal, zeros elsewhere.\n\nParameters\n"
             "----------\nn : int\n    The number of rows.\nm : int, optional\n    The number "
             "of columns (default n).\n" DOC_OUT_PARAM DOC_DTYPE_PARAM("float32")
                 DOC_DEVICE_PARAM DOC_RG_PARAM "\n" DOC_RETURNS_T("Of shape (n, m).")
                     DOC_RAISES_SHAPE_DEVICE
             "Examples\n--------\n>>> pydevtensor.eye(2)\ntensor([[1., 0.],\n        [0., 1.]])\n"
             ">>> pydevtensor.eye(2, 3, dtype=pydevtensor.int64)\n"
             "tensor([[1, 0, 0],\n        [0, 1, 0]])\n");
PyDoc_STRVAR(doc_rand,
             DOC_RANDOM_FN("rand",
                           "Uniform samples on [0, 1) from the Philox generator: the same "
                           "values on every device for one seed.",
                           "Of the given shape, in a floating dtype.",
                           ">>> _ = pydevtensor.manual_seed(0)\n>>> pydevtensor.rand(3)\n"
                           "tensor([0.3990, 0.8805, 0.7357])\n"));
PyDoc_STRVAR(doc_randn,
             DOC_RANDOM_FN("randn",
                           "Standard normal samples from the Philox generator: the same "
                           "values on every device for one seed.",
                           "Of the given shape, in a floating dtype.",
                           ">>> _ = pydevtensor.manual_seed(0)\n>>> pydevtensor.randn(3)\n"
                           "tensor([ 0.9911, -0.6176, -0.1536])\n"));
PyDoc_STRVAR(
    doc_randint,
    "randint(high, size) or randint(low, high, size, *, generator=None, out=None, dtype=int64, "
    "device=None, requires_grad=False)\n\nIntegers drawn uniformly from [low, high) by the Philox "
    "generator.\n\nParameters\n----------\nlow : int, optional\n    The smallest value "
    "(default 0).\nhigh : int\n    The bound, not included (> low).\nsize : sequence "
    "of ints\n    The shape.\n" DOC_GENERATOR_PARAM DOC_OUT_PARAM DOC_DTYPE_PARAM("int64")
        DOC_DEVICE_PARAM DOC_RG_PARAM
    "\n" DOC_RETURNS_T(
        "Of the given shape.") "Raises\n------\nValueError\n    When high "
                               "<= low or a size is negative.\n\nExamples\n--------\n>>> "
                               "_ = pydevtensor.manual_seed(0)"
                               "\n>>> pydevtensor.randint(10, (5,))\ntensor([9, 8, 8, 1, 9])\n");
PyDoc_STRVAR(doc_manual_seed,
             "manual_seed(seed)\n--\n\nSeeds the generator every device draws from, and rewinds "
             "it: after manual_seed(s) every device draws the same values.\n\nParameters\n"
             "----------\nseed : int\n    Any int; taken modulo 2**64.\n\nReturns\n-------\n"
             "None\n\nRaises\n------\nTypeError\n    When seed is not an int.\n\nExamples\n"
             "--------\n>>> _ = pydevtensor.manual_seed(0)\n>>> a = pydevtensor.rand(2)\n"
             ">>> _ = pydevtensor.manual_seed(0)\n>>> pydevtensor.equal(a, pydevtensor.rand(2))\n"
             "True\n");
PyDoc_STRVAR(doc_initial_seed, "initial_seed()\n--\n\nThe seed last given to manual_seed (0 "
                               "before any).\n\nReturns\n-------\nint\n    The seed.\n\nExamples\n"
                               "--------\n>>> _ = pydevtensor.manual_seed(42)\n"
                               ">>> pydevtensor.initial_seed()\n42\n");
PyDoc_STRVAR(doc_uniform_,
             "uniform_(from=0, to=1, *, generator=None)\n\nFills self with samples of U[from, to) "
             "from the Philox "
             "generator (the same values on every device).\n\nParameters\n----------\nfrom : "
             "float, optional\n    The lower bound (default 0), passed by position or as "
             "from=.\nto : float, optional\n    The upper bound (default 1).\n" DOC_GENERATOR_PARAM
             "\nReturns\n-------\n"
             "Tensor\n    self.\n\nExamples\n--------\n>>> _ = pydevtensor.manual_seed(0)\n"
             ">>> pydevtensor.empty(4).uniform_(-1, 1)\n"
             "tensor([-0.2019,  0.7610,  0.4714,  0.2110])\n");
PyDoc_STRVAR(doc_normal_,
             "normal_(mean=0, std=1, *, generator=None)\n--\n\nFills self with samples of N(mean, "
             "std**2) from the "
             "Philox generator (the same values on every device).\n\nParameters\n----------\n"
             "mean : float, optional\n    The mean (default 0).\nstd : float, optional\n    The "
             "standard deviation (default 1, >= 0).\n" DOC_GENERATOR_PARAM
             "\nReturns\n-------\nTensor\n    self.\n\n"
             "Raises\n------\nValueError\n    When std is negative.\n\nExamples\n--------\n"
             ">>> _ = pydevtensor.manual_seed(0)\n>>> pydevtensor.zeros(3).normal_(0, 2)\n"
             "tensor([ 1.9823, -1.2352, -0.3073])\n");

#endif
