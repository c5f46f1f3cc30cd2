/* Docstrings of the shape views (csrc/python/tensor_view.c), function and method forms, in numpydoc
 * form under CPython's text signature; the examples run as doctests in tests/test_docstrings.py. */
#ifndef PDT_DOCSTRINGS_VIEW_H
#define PDT_DOCSTRINGS_VIEW_H

#include "pdt_module.h" /* PyDoc_STRVAR */

#define DOC_RESHAPE_TAIL                                                                           \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    A view or a copy.\n"                                                                      \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "ValueError\n"                                                                                 \
    "    When the number of elements differs.\n"

PyDoc_STRVAR(doc_fn_reshape,
             "reshape(input, shape)\n--\n\n"
             "The tensor with a new shape (one size may be -1, inferred): a view when the strides "
             "allow one, else a contiguous copy.\n"
             "\n"
             "Parameters\n"
             "----------\n"
             "input : Tensor\n"
             "    The input.\n"
             "shape : tuple of ints\n"
             "    The new shape, of the same number of elements.\n" DOC_RESHAPE_TAIL "\n"
             "Examples\n"
             "--------\n"
             ">>> x = pydevtensor.arange(6)\n"
             ">>> pydevtensor.reshape(x, (2, 3))\n"
             "tensor([[0, 1, 2],\n"
             "        [3, 4, 5]])\n");
PyDoc_STRVAR(doc_m_reshape,
             "reshape(*shape)\n--\n\n"
             "The tensor with a new shape (one size may be -1, inferred): a view when the strides "
             "allow one, else a contiguous copy.\n"
             "\n"
             "Parameters\n"
             "----------\n"
             "*shape : int or tuple of ints\n"
             "    The new shape, of the same number of elements.\n" DOC_RESHAPE_TAIL "\n"
             "Examples\n"
             "--------\n"
             ">>> x = pydevtensor.arange(6)\n"
             ">>> x.reshape(2, 3)\n"
             "tensor([[0, 1, 2],\n"
             "        [3, 4, 5]])\n");
#define DOC_VIEW_TAIL                                                                              \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    A view sharing self's storage.\n"                                                         \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "ValueError\n"                                                                                 \
    "    When the strides do not allow a view (use reshape()), or the number of elements "         \
    "differs.\n"

PyDoc_STRVAR(doc_m_view,
             "view(*shape)\n--\n\n"
             "A view with a new shape (one size may be -1); unlike reshape it never copies.\n"
             "``view(dtype)`` instead reads self's bytes as dtype, as PyTorch's (and NumPy's "
             "ndarray.view): elements of another size regroup the last dim, which must be "
             "contiguous; the result shares the storage, and autograd does not record it.\n"
             "\n"
             "Parameters\n"
             "----------\n"
             "*shape : int or tuple of ints, or one pydevtensor.dtype\n"
             "    The new shape, of the same number of elements; or the dtype to read the "
             "bytes as.\n" DOC_VIEW_TAIL "pydevtensor.InvalidArgumentError\n"
             "    For view(dtype) of a 0-d tensor, a strided last dim, or (to a wider dtype) a "
             "last size, offset or stride the ratio of the sizes does not divide.\n\n"
             "Examples\n"
             "--------\n"
             ">>> x = pydevtensor.arange(6)\n"
             ">>> x.view(3, 2)\n"
             "tensor([[0, 1],\n"
             "        [2, 3],\n"
             "        [4, 5]])\n"
             ">>> pydevtensor.tensor([1.0, -2.0]).view(pydevtensor.int32)\n"
             "tensor([ 1065353216, -1073741824], dtype=pydevtensor.int32)\n");
#define DOC_FLATTEN_PARAMS                                                                         \
    "start_dim : int, optional\n"                                                                  \
    "    The first dimension to merge (default 0).\n"                                              \
    "end_dim : int, optional\n"                                                                    \
    "    The last one (default -1).\n"

#define DOC_FLATTEN_TAIL                                                                           \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    A view or a copy.\n"                                                                      \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "IndexError\n"                                                                                 \
    "    When a dim is out of range.\n"

PyDoc_STRVAR(doc_fn_flatten,
             "flatten(input, start_dim=0, end_dim=-1)\n--\n\n"
             "Dimensions start_dim to end_dim merged into one: a view when possible, else a copy.\n"
             "\n"
             "Parameters\n"
             "----------\n"
             "input : Tensor\n"
             "    The input.\n" DOC_FLATTEN_PARAMS DOC_FLATTEN_TAIL "\n"
             "Examples\n"
             "--------\n"
             ">>> x = pydevtensor.ones(2, 3, 4)\n"
             ">>> pydevtensor.flatten(x, 1).shape\n"
             "pydevtensor.Size([2, 12])\n");
PyDoc_STRVAR(doc_m_flatten,
             "flatten(start_dim=0, end_dim=-1)\n--\n\n"
             "Dimensions start_dim to end_dim merged into one: a view when possible, else a copy.\n"
             "\n"
             "Parameters\n"
             "----------\n" DOC_FLATTEN_PARAMS DOC_FLATTEN_TAIL "\n"
             "Examples\n"
             "--------\n"
             ">>> x = pydevtensor.ones(2, 3, 4)\n"
             ">>> x.flatten(1).shape\n"
             "pydevtensor.Size([2, 12])\n");
#define DOC_TRANSPOSE_PARAMS                                                                       \
    "dim0, dim1 : int\n"                                                                           \
    "    The dimensions to swap.\n"

#define DOC_TRANSPOSE_TAIL                                                                         \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    A view sharing the storage.\n"                                                            \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "IndexError\n"                                                                                 \
    "    When a dim is out of range.\n"

PyDoc_STRVAR(doc_fn_transpose, "transpose(input, dim0, dim1)\n--\n\n"
                               "A view with dimensions dim0 and dim1 swapped.\n"
                               "\n"
                               "Parameters\n"
                               "----------\n"
                               "input : Tensor\n"
                               "    The input.\n" DOC_TRANSPOSE_PARAMS DOC_TRANSPOSE_TAIL "\n"
                               "Examples\n"
                               "--------\n"
                               ">>> x = pydevtensor.arange(6).reshape(2, 3)\n"
                               ">>> pydevtensor.transpose(x, 0, 1)\n"
                               "tensor([[0, 3],\n"
                               "        [1, 4],\n"
                               "        [2, 5]])\n");
PyDoc_STRVAR(doc_m_transpose, "transpose(dim0, dim1)\n--\n\n"
                              "A view with dimensions dim0 and dim1 swapped.\n"
                              "\n"
                              "Parameters\n"
                              "----------\n" DOC_TRANSPOSE_PARAMS DOC_TRANSPOSE_TAIL "\n"
                              "Examples\n"
                              "--------\n"
                              ">>> x = pydevtensor.arange(6).reshape(2, 3)\n"
                              ">>> x.transpose(0, 1)\n"
                              "tensor([[0, 3],\n"
                              "        [1, 4],\n"
                              "        [2, 5]])\n");
#define DOC_T_TAIL                                                                                 \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    A view sharing the storage.\n"                                                            \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "ValueError\n"                                                                                 \
    "    When the tensor has more than 2 dimensions.\n"

PyDoc_STRVAR(doc_fn_t, "t(input)\n--\n\n"
                       "The transpose of a tensor of at most 2 dimensions, as a view.\n"
                       "\n"
                       "Parameters\n"
                       "----------\n"
                       "input : Tensor\n"
                       "    The input.\n" DOC_T_TAIL "\n"
                       "Examples\n"
                       "--------\n"
                       ">>> x = pydevtensor.arange(6).reshape(2, 3)\n"
                       ">>> pydevtensor.t(x)\n"
                       "tensor([[0, 3],\n"
                       "        [1, 4],\n"
                       "        [2, 5]])\n");
PyDoc_STRVAR(doc_m_t,
             "t()\n--\n\n"
             "The transpose of a tensor of at most 2 dimensions, as a view.\n" DOC_T_TAIL "\n"
             "Examples\n"
             "--------\n"
             ">>> x = pydevtensor.arange(6).reshape(2, 3)\n"
             ">>> x.t()\n"
             "tensor([[0, 3],\n"
             "        [1, 4],\n"
             "        [2, 5]])\n");
#define DOC_PERMUTE_TAIL                                                                           \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    A view sharing the storage.\n"                                                            \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "IndexError\n"                                                                                 \
    "    When a dim is out of range.\n"                                                            \
    "ValueError\n"                                                                                 \
    "    When dims is not a permutation.\n"

PyDoc_STRVAR(doc_fn_permute, "permute(input, dims)\n--\n\n"
                             "A view whose dimension i is the input's dimension dims[i].\n"
                             "\n"
                             "Parameters\n"
                             "----------\n"
                             "input : Tensor\n"
                             "    The input.\n"
                             "dims : tuple of ints\n"
                             "    A permutation of the dimensions.\n" DOC_PERMUTE_TAIL "\n"
                             "Examples\n"
                             "--------\n"
                             ">>> x = pydevtensor.ones(2, 3, 4)\n"
                             ">>> pydevtensor.permute(x, (2, 0, 1)).shape\n"
                             "pydevtensor.Size([4, 2, 3])\n");
PyDoc_STRVAR(doc_m_permute, "permute(*dims)\n--\n\n"
                            "A view whose dimension i is the input's dimension dims[i].\n"
                            "\n"
                            "Parameters\n"
                            "----------\n"
                            "*dims : int or tuple of ints\n"
                            "    A permutation of the dimensions.\n" DOC_PERMUTE_TAIL "\n"
                            "Examples\n"
                            "--------\n"
                            ">>> x = pydevtensor.ones(2, 3, 4)\n"
                            ">>> x.permute(2, 0, 1).shape\n"
                            "pydevtensor.Size([4, 2, 3])\n");
#define DOC_SQUEEZE_PARAMS                                                                         \
    "dim : int or tuple of ints, optional\n"                                                       \
    "    The dimensions to drop (default: every one of size 1).\n"

#define DOC_SQUEEZE_TAIL                                                                           \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    A view sharing the storage.\n"                                                            \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "IndexError\n"                                                                                 \
    "    When a dim is out of range.\n"

PyDoc_STRVAR(doc_fn_squeeze, "squeeze(input, dim=None)\n--\n\n"
                             "A view without the dimensions of size 1: all of them, or those in "
                             "dim (a listed dimension of another size stays).\n"
                             "\n"
                             "Parameters\n"
                             "----------\n"
                             "input : Tensor\n"
                             "    The input.\n" DOC_SQUEEZE_PARAMS DOC_SQUEEZE_TAIL "\n"
                             "Examples\n"
                             "--------\n"
                             ">>> x = pydevtensor.ones(2, 1, 3)\n"
                             ">>> pydevtensor.squeeze(x).shape\n"
                             "pydevtensor.Size([2, 3])\n"
                             ">>> pydevtensor.squeeze(x, 0).shape\n"
                             "pydevtensor.Size([2, 1, 3])\n");
PyDoc_STRVAR(doc_m_squeeze, "squeeze(dim=None)\n--\n\n"
                            "A view without the dimensions of size 1: all of them, or those in dim "
                            "(a listed dimension of another size stays).\n"
                            "\n"
                            "Parameters\n"
                            "----------\n" DOC_SQUEEZE_PARAMS DOC_SQUEEZE_TAIL "\n"
                            "Examples\n"
                            "--------\n"
                            ">>> x = pydevtensor.ones(2, 1, 3)\n"
                            ">>> x.squeeze().shape\n"
                            "pydevtensor.Size([2, 3])\n"
                            ">>> x.squeeze(0).shape\n"
                            "pydevtensor.Size([2, 1, 3])\n");
#define DOC_UNSQUEEZE_PARAMS                                                                       \
    "dim : int\n"                                                                                  \
    "    Where the new dimension goes (-ndim-1 <= dim <= ndim).\n"

#define DOC_UNSQUEEZE_TAIL                                                                         \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    A view sharing the storage.\n"                                                            \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "IndexError\n"                                                                                 \
    "    When a dim is out of range.\n"

PyDoc_STRVAR(doc_fn_unsqueeze, "unsqueeze(input, dim)\n--\n\n"
                               "A view with a new dimension of size 1 at position dim.\n"
                               "\n"
                               "Parameters\n"
                               "----------\n"
                               "input : Tensor\n"
                               "    The input.\n" DOC_UNSQUEEZE_PARAMS DOC_UNSQUEEZE_TAIL "\n"
                               "Examples\n"
                               "--------\n"
                               ">>> x = pydevtensor.arange(6)\n"
                               ">>> pydevtensor.unsqueeze(x, 0)\n"
                               "tensor([[0, 1, 2, 3, 4, 5]])\n");
PyDoc_STRVAR(doc_m_unsqueeze, "unsqueeze(dim)\n--\n\n"
                              "A view with a new dimension of size 1 at position dim.\n"
                              "\n"
                              "Parameters\n"
                              "----------\n" DOC_UNSQUEEZE_PARAMS DOC_UNSQUEEZE_TAIL "\n"
                              "Examples\n"
                              "--------\n"
                              ">>> x = pydevtensor.arange(6)\n"
                              ">>> x.unsqueeze(0)\n"
                              "tensor([[0, 1, 2, 3, 4, 5]])\n");
#define DOC_T_EXAMPLE                                                                              \
    "Examples\n"                                                                                   \
    "--------\n"                                                                                   \
    ">>> pydevtensor.arange(6).reshape(2, 3).T.shape\n"                                            \
    "pydevtensor.Size([3, 2])\n"

/* A property's docstring has no signature line. */
PyDoc_STRVAR(doc_T,
             "The tensor with its dimensions reversed (the transpose of a matrix), as a view.\n"
             "\n" DOC_T_EXAMPLE);

#endif
