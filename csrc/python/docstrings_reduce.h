/* Docstrings of the reductions (csrc/python/tensor_reduce.c), function and method forms, in
 * numpydoc form under CPython's text signature.  Every example runs as a doctest in
 * tests/test_docstrings.py. */
#ifndef PDT_DOCSTRINGS_REDUCE_H
#define PDT_DOCSTRINGS_REDUCE_H

#include "pdt_module.h" /* PyDoc_STRVAR */

#define DOC_SUM_PARAMS                                                                             \
    "dim : int or tuple of ints, optional\n"                                                       \
    "    The dimensions to reduce (default: every one).\n"                                         \
    "keepdim : bool, optional\n"                                                                   \
    "    Keep the reduced dimensions with size 1 (default False).\n"                               \
    "dtype : pydevtensor.dtype, optional\n"                                                        \
    "    Converts input to this dtype first.\n"

#define DOC_SUM_TAIL                                                                               \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    0-d when every dimension is reduced.\n"                                                   \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "IndexError\n"                                                                                 \
    "    When a dim is out of range.\n"

#define DOC_FN_OUT                                                                                 \
    "out : Tensor or tuple of Tensors, optional\n"                                                  \
    "    Written with the result and returned (a (values, indices) pair of tensors for "         \
    "a dim of max/min), as PyTorch's out=: of the result's dtype (sum, mean and prod "         \
    "compute in out's dtype when dtype is not given) and device; an out with no "              \
    "elements takes the result's shape.  Refused when input requires grad.\n"

PyDoc_STRVAR(doc_fn_sum, "sum(input, dim=None, keepdim=False, *, dtype=None, out=None)\n--\n\n"
                         "The sum of the elements over dim.  Integers and bool sum to int64; "
                         "float32 accumulates in double.\n"
                         "\n"
                         "Parameters\n"
                         "----------\n"
                         "input : Tensor\n"
                         "    The tensor to reduce.\n" DOC_SUM_PARAMS DOC_FN_OUT DOC_SUM_TAIL "\n"
                         "Examples\n"
                         "--------\n"
                         ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
                         ">>> pydevtensor.sum(x)\n"
                         "tensor(21.)\n"
                         ">>> pydevtensor.sum(x, 1)\n"
                         "tensor([ 9., 12.])\n"
                         ">>> pydevtensor.sum(x, 0, keepdim=True)\n"
                         "tensor([[5., 7., 9.]])\n");
PyDoc_STRVAR(doc_m_sum, "sum(dim=None, keepdim=False, *, dtype=None)\n--\n\n"
                        "The sum of the elements over dim.  Integers and bool sum to int64; "
                        "float32 accumulates in double.\n"
                        "\n"
                        "Parameters\n"
                        "----------\n" DOC_SUM_PARAMS DOC_SUM_TAIL "\n"
                        "Examples\n"
                        "--------\n"
                        ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
                        ">>> x.sum()\n"
                        "tensor(21.)\n"
                        ">>> x.sum(1)\n"
                        "tensor([ 9., 12.])\n"
                        ">>> x.sum(0, keepdim=True)\n"
                        "tensor([[5., 7., 9.]])\n");
#define DOC_MEAN_PARAMS                                                                            \
    "dim : int or tuple of ints, optional\n"                                                       \
    "    The dimensions to reduce (default: every one).\n"                                         \
    "keepdim : bool, optional\n"                                                                   \
    "    Keep the reduced dimensions with size 1 (default False).\n"                               \
    "dtype : pydevtensor.dtype, optional\n"                                                        \
    "    Converts input to this dtype first.\n"

#define DOC_MEAN_TAIL                                                                              \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    0-d when every dimension is reduced.\n"                                                   \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "IndexError\n"                                                                                 \
    "    When a dim is out of range.\n"                                                            \
    "TypeError\n"                                                                                  \
    "    When the dtype is not floating.\n"

PyDoc_STRVAR(
    doc_fn_mean,
    "mean(input, dim=None, keepdim=False, *, dtype=None, out=None)\n--\n\n"
    "The mean of the elements over dim; a floating dtype is needed (pass dtype for integers).\n"
    "\n"
    "Parameters\n"
    "----------\n"
    "input : Tensor\n"
    "    The tensor to reduce.\n" DOC_MEAN_PARAMS DOC_FN_OUT DOC_MEAN_TAIL "\n"
    "Examples\n"
    "--------\n"
    ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
    ">>> pydevtensor.mean(x)\n"
    "tensor(3.5000)\n"
    ">>> pydevtensor.mean(x, dim=0)\n"
    "tensor([2.5000, 3.5000, 4.5000])\n");
PyDoc_STRVAR(
    doc_m_mean,
    "mean(dim=None, keepdim=False, *, dtype=None)\n--\n\n"
    "The mean of the elements over dim; a floating dtype is needed (pass dtype for integers).\n"
    "\n"
    "Parameters\n"
    "----------\n" DOC_MEAN_PARAMS DOC_MEAN_TAIL "\n"
    "Examples\n"
    "--------\n"
    ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
    ">>> x.mean()\n"
    "tensor(3.5000)\n"
    ">>> x.mean(dim=0)\n"
    "tensor([2.5000, 3.5000, 4.5000])\n");
#define DOC_PROD_PARAMS                                                                            \
    "dim : int or tuple of ints, optional\n"                                                       \
    "    The dimensions to reduce (default: every one).\n"                                         \
    "keepdim : bool, optional\n"                                                                   \
    "    Keep the reduced dimensions with size 1 (default False).\n"                               \
    "dtype : pydevtensor.dtype, optional\n"                                                        \
    "    Converts input to this dtype first.\n"

#define DOC_PROD_TAIL                                                                              \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    0-d when every dimension is reduced.\n"                                                   \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "IndexError\n"                                                                                 \
    "    When a dim is out of range.\n"

PyDoc_STRVAR(doc_fn_prod, "prod(input, dim=None, keepdim=False, *, dtype=None, out=None)\n--\n\n"
                          "The product of the elements over dim.\n"
                          "\n"
                          "Parameters\n"
                          "----------\n"
                          "input : Tensor\n"
                          "    The tensor to reduce.\n" DOC_PROD_PARAMS DOC_FN_OUT DOC_PROD_TAIL "\n"
                          "Examples\n"
                          "--------\n"
                          ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
                          ">>> pydevtensor.prod(x, 1)\n"
                          "tensor([15., 48.])\n");
PyDoc_STRVAR(doc_m_prod, "prod(dim=None, keepdim=False, *, dtype=None)\n--\n\n"
                         "The product of the elements over dim.\n"
                         "\n"
                         "Parameters\n"
                         "----------\n" DOC_PROD_PARAMS DOC_PROD_TAIL "\n"
                         "Examples\n"
                         "--------\n"
                         ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
                         ">>> x.prod(1)\n"
                         "tensor([15., 48.])\n");
#define DOC_MAX_PARAMS                                                                             \
    "dim : int, optional\n"                                                                        \
    "    With a dim, the result is (values, indices) along it.\n"                                  \
    "keepdim : bool, optional\n"                                                                   \
    "    Keep dim with size 1 (default False).\n"

#define DOC_MAX_TAIL                                                                               \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor or pydevtensor.return_types.max\n"                                                     \
    "    A 0-d tensor without dim; (values, indices) with dim, indices int64.\n"                   \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "IndexError\n"                                                                                 \
    "    When a dim is out of range.\n"

PyDoc_STRVAR(doc_fn_max,
             "max(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
             "The largest element; with dim, the largest values along it and their indices.  NaN "
             "propagates.  max(other) with a tensor is maximum(self, other).\n"
             "\n"
             "Parameters\n"
             "----------\n"
             "input : Tensor\n"
             "    The tensor to reduce.\n" DOC_MAX_PARAMS DOC_FN_OUT DOC_MAX_TAIL "\n"
             "Examples\n"
             "--------\n"
             ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
             ">>> pydevtensor.max(x)\n"
             "tensor(6.)\n"
             ">>> pydevtensor.max(x, 1)\n"
             "pydevtensor.return_types.max(values=tensor([5., 6.]), indices=tensor([1, 2]))\n");
PyDoc_STRVAR(doc_m_max,
             "max(dim=None, keepdim=False)\n--\n\n"
             "The largest element; with dim, the largest values along it and their indices.  NaN "
             "propagates.  max(other) with a tensor is maximum(self, other).\n"
             "\n"
             "Parameters\n"
             "----------\n" DOC_MAX_PARAMS DOC_MAX_TAIL "\n"
             "Examples\n"
             "--------\n"
             ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
             ">>> x.max()\n"
             "tensor(6.)\n"
             ">>> x.max(1)\n"
             "pydevtensor.return_types.max(values=tensor([5., 6.]), indices=tensor([1, 2]))\n");
#define DOC_MIN_PARAMS                                                                             \
    "dim : int, optional\n"                                                                        \
    "    With a dim, the result is (values, indices) along it.\n"                                  \
    "keepdim : bool, optional\n"                                                                   \
    "    Keep dim with size 1 (default False).\n"

#define DOC_MIN_TAIL                                                                               \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor or pydevtensor.return_types.min\n"                                                     \
    "    A 0-d tensor without dim; (values, indices) with dim, indices int64.\n"                   \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "IndexError\n"                                                                                 \
    "    When a dim is out of range.\n"

PyDoc_STRVAR(doc_fn_min,
             "min(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
             "The smallest element; with dim, the smallest values along it and their indices.  NaN "
             "propagates.  min(other) with a tensor is minimum(self, other).\n"
             "\n"
             "Parameters\n"
             "----------\n"
             "input : Tensor\n"
             "    The tensor to reduce.\n" DOC_MIN_PARAMS DOC_FN_OUT DOC_MIN_TAIL "\n"
             "Examples\n"
             "--------\n"
             ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
             ">>> pydevtensor.min(x)\n"
             "tensor(1.)\n"
             ">>> pydevtensor.min(x, 1)\n"
             "pydevtensor.return_types.min(values=tensor([1., 2.]), indices=tensor([0, 1]))\n");
PyDoc_STRVAR(doc_m_min,
             "min(dim=None, keepdim=False)\n--\n\n"
             "The smallest element; with dim, the smallest values along it and their indices.  NaN "
             "propagates.  min(other) with a tensor is minimum(self, other).\n"
             "\n"
             "Parameters\n"
             "----------\n" DOC_MIN_PARAMS DOC_MIN_TAIL "\n"
             "Examples\n"
             "--------\n"
             ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
             ">>> x.min()\n"
             "tensor(1.)\n"
             ">>> x.min(1)\n"
             "pydevtensor.return_types.min(values=tensor([1., 2.]), indices=tensor([0, 1]))\n");
#define DOC_AMAX_PARAMS                                                                            \
    "dim : int or tuple of ints, optional\n"                                                       \
    "    The dimensions to reduce (default: every one).\n"                                         \
    "keepdim : bool, optional\n"                                                                   \
    "    Keep the reduced dimensions with size 1 (default False).\n"

#define DOC_AMAX_TAIL                                                                              \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    0-d when every dimension is reduced.\n"                                                   \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "IndexError\n"                                                                                 \
    "    When a dim is out of range.\n"

PyDoc_STRVAR(doc_fn_amax, "amax(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
                          "The maximum over dim, without indices; NaN propagates.\n"
                          "\n"
                          "Parameters\n"
                          "----------\n"
                          "input : Tensor\n"
                          "    The tensor to reduce.\n" DOC_AMAX_PARAMS DOC_FN_OUT DOC_AMAX_TAIL "\n"
                          "Examples\n"
                          "--------\n"
                          ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
                          ">>> pydevtensor.amax(x, 1)\n"
                          "tensor([5., 6.])\n");
PyDoc_STRVAR(doc_m_amax, "amax(dim=None, keepdim=False)\n--\n\n"
                         "The maximum over dim, without indices; NaN propagates.\n"
                         "\n"
                         "Parameters\n"
                         "----------\n" DOC_AMAX_PARAMS DOC_AMAX_TAIL "\n"
                         "Examples\n"
                         "--------\n"
                         ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
                         ">>> x.amax(1)\n"
                         "tensor([5., 6.])\n");
#define DOC_AMIN_PARAMS                                                                            \
    "dim : int or tuple of ints, optional\n"                                                       \
    "    The dimensions to reduce (default: every one).\n"                                         \
    "keepdim : bool, optional\n"                                                                   \
    "    Keep the reduced dimensions with size 1 (default False).\n"

#define DOC_AMIN_TAIL                                                                              \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    0-d when every dimension is reduced.\n"                                                   \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "IndexError\n"                                                                                 \
    "    When a dim is out of range.\n"

PyDoc_STRVAR(doc_fn_amin, "amin(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
                          "The minimum over dim, without indices; NaN propagates.\n"
                          "\n"
                          "Parameters\n"
                          "----------\n"
                          "input : Tensor\n"
                          "    The tensor to reduce.\n" DOC_AMIN_PARAMS DOC_FN_OUT DOC_AMIN_TAIL "\n"
                          "Examples\n"
                          "--------\n"
                          ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
                          ">>> pydevtensor.amin(x, 1)\n"
                          "tensor([1., 2.])\n");
PyDoc_STRVAR(doc_m_amin, "amin(dim=None, keepdim=False)\n--\n\n"
                         "The minimum over dim, without indices; NaN propagates.\n"
                         "\n"
                         "Parameters\n"
                         "----------\n" DOC_AMIN_PARAMS DOC_AMIN_TAIL "\n"
                         "Examples\n"
                         "--------\n"
                         ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
                         ">>> x.amin(1)\n"
                         "tensor([1., 2.])\n");
#define DOC_ARGMAX_PARAMS                                                                          \
    "dim : int, optional\n"                                                                        \
    "    The dimension to search (default: the flattened tensor).\n"                               \
    "keepdim : bool, optional\n"                                                                   \
    "    Keep the dimensions with size 1 (default False).\n"

#define DOC_ARGMAX_TAIL                                                                            \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    int64 indices.\n"                                                                         \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "IndexError\n"                                                                                 \
    "    When a dim is out of range.\n"

PyDoc_STRVAR(doc_fn_argmax, "argmax(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
                            "The index of the first maximum along dim, or into the flattened "
                            "tensor without dim; a NaN counts as the maximum.\n"
                            "\n"
                            "Parameters\n"
                            "----------\n"
                            "input : Tensor\n"
                            "    The tensor to reduce.\n" DOC_ARGMAX_PARAMS DOC_FN_OUT DOC_ARGMAX_TAIL "\n"
                            "Examples\n"
                            "--------\n"
                            ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
                            ">>> pydevtensor.argmax(x)\n"
                            "tensor(5)\n"
                            ">>> pydevtensor.argmax(x, 1)\n"
                            "tensor([1, 2])\n");
PyDoc_STRVAR(doc_m_argmax, "argmax(dim=None, keepdim=False)\n--\n\n"
                           "The index of the first maximum along dim, or into the flattened tensor "
                           "without dim; a NaN counts as the maximum.\n"
                           "\n"
                           "Parameters\n"
                           "----------\n" DOC_ARGMAX_PARAMS DOC_ARGMAX_TAIL "\n"
                           "Examples\n"
                           "--------\n"
                           ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
                           ">>> x.argmax()\n"
                           "tensor(5)\n"
                           ">>> x.argmax(1)\n"
                           "tensor([1, 2])\n");
#define DOC_ARGMIN_PARAMS                                                                          \
    "dim : int, optional\n"                                                                        \
    "    The dimension to search (default: the flattened tensor).\n"                               \
    "keepdim : bool, optional\n"                                                                   \
    "    Keep the dimensions with size 1 (default False).\n"

#define DOC_ARGMIN_TAIL                                                                            \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    int64 indices.\n"                                                                         \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "IndexError\n"                                                                                 \
    "    When a dim is out of range.\n"

PyDoc_STRVAR(doc_fn_argmin, "argmin(input, dim=None, keepdim=False, *, out=None)\n--\n\n"
                            "The index of the first minimum along dim, or into the flattened "
                            "tensor without dim; a NaN counts as the minimum.\n"
                            "\n"
                            "Parameters\n"
                            "----------\n"
                            "input : Tensor\n"
                            "    The tensor to reduce.\n" DOC_ARGMIN_PARAMS DOC_FN_OUT DOC_ARGMIN_TAIL "\n"
                            "Examples\n"
                            "--------\n"
                            ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
                            ">>> pydevtensor.argmin(x)\n"
                            "tensor(0)\n"
                            ">>> pydevtensor.argmin(x, 1)\n"
                            "tensor([0, 1])\n");
PyDoc_STRVAR(doc_m_argmin, "argmin(dim=None, keepdim=False)\n--\n\n"
                           "The index of the first minimum along dim, or into the flattened tensor "
                           "without dim; a NaN counts as the minimum.\n"
                           "\n"
                           "Parameters\n"
                           "----------\n" DOC_ARGMIN_PARAMS DOC_ARGMIN_TAIL "\n"
                           "Examples\n"
                           "--------\n"
                           ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
                           ">>> x.argmin()\n"
                           "tensor(0)\n"
                           ">>> x.argmin(1)\n"
                           "tensor([0, 1])\n");
#define DOC_NORM_PARAMS                                                                            \
    "p : {'fro', 2, 1}, optional\n"                                                                \
    "    'fro' and 2: the square root of the sum of squares; 1: the sum of absolute values.\n"     \
    "dim : int or tuple of ints, optional\n"                                                       \
    "    The dimensions to reduce (default: every one).\n"                                         \
    "keepdim : bool, optional\n"                                                                   \
    "    Keep the reduced dimensions with size 1 (default False).\n"                               \
    "dtype : pydevtensor.dtype, optional\n"                                                        \
    "    Converts input to this dtype first.\n"

#define DOC_NORM_TAIL                                                                              \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    0-d when every dimension is reduced.\n"                                                   \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "IndexError\n"                                                                                 \
    "    When a dim is out of range.\n"                                                            \
    "NotImplementedError\n"                                                                        \
    "    When p is not 'fro', 2 or 1.\n"

PyDoc_STRVAR(doc_fn_norm, "norm(input, p='fro', dim=None, keepdim=False, dtype=None, *, out=None)\n--\n\n"
                          "The vector p-norm over dim (every element by default).\n"
                          "\n"
                          "Parameters\n"
                          "----------\n"
                          "input : Tensor\n"
                          "    The tensor to reduce.\n" DOC_NORM_PARAMS DOC_FN_OUT DOC_NORM_TAIL "\n"
                          "Examples\n"
                          "--------\n"
                          ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
                          ">>> pydevtensor.norm(x)\n"
                          "tensor(9.5394)\n"
                          ">>> pydevtensor.norm(x, 1, dim=1)\n"
                          "tensor([ 9., 12.])\n");
PyDoc_STRVAR(doc_m_norm, "norm(p='fro', dim=None, keepdim=False, dtype=None)\n--\n\n"
                         "The vector p-norm over dim (every element by default).\n"
                         "\n"
                         "Parameters\n"
                         "----------\n" DOC_NORM_PARAMS DOC_NORM_TAIL "\n"
                         "Examples\n"
                         "--------\n"
                         ">>> x = pydevtensor.tensor([[1., 5., 3.], [4., 2., 6.]])\n"
                         ">>> x.norm()\n"
                         "tensor(9.5394)\n"
                         ">>> x.norm(1, dim=1)\n"
                         "tensor([ 9., 12.])\n");

#endif
