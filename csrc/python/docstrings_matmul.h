/* Docstrings of matmul, mm, bmm, addmm and dot (csrc/python/tensor_matmul.c), function and method
 * forms, in numpydoc form under CPython's text signature; the examples run as doctests in
 * tests/test_docstrings.py. */
#ifndef PDT_DOCSTRINGS_MATMUL_H
#define PDT_DOCSTRINGS_MATMUL_H

#include "pdt_module.h" /* PyDoc_STRVAR */

#define DOC_MATMUL_TAIL                                                                            \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    A new tensor on the operands' device; 0-d for 1-D . 1-D.\n"                               \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "ValueError\n"                                                                                 \
    "    When the shapes do not fit.\n"                                                            \
    "TypeError\n"                                                                                  \
    "    When the dtypes differ.\n"                                                                \
    "pydevtensor.DeviceError\n"                                                                    \
    "    When the tensors are on different devices.\n"

PyDoc_STRVAR(doc_fn_matmul,
             "matmul(input, other)\n--\n\n"
             "The matrix product, with torch.matmul's rules: 1-D . 1-D is a 0-d dot product; a 1-D "
             "operand is a row (left) or a column (right), and that dimension is dropped from the "
             "result; (..., m, k) @ (..., k, n) gives (..., m, n) with the batch dimensions "
             "broadcast.  Transposed views are read in place.  ``a @ b`` is ``matmul(a, b)``.\n"
             "\n"
             "Parameters\n"
             "----------\n"
             "input : Tensor\n"
             "    The left operand.\n"
             "other : Tensor\n"
             "    The right operand, on input's device and of its dtype.\n" DOC_MATMUL_TAIL "\n"
             "Examples\n"
             "--------\n"
             ">>> a = pydevtensor.tensor([[1., 2.], [3., 4.]])\n"
             ">>> b = pydevtensor.tensor([[1.], [1.]])\n"
             ">>> pydevtensor.matmul(a, b)\n"
             "tensor([[3.],\n"
             "        [7.]])\n"
             ">>> (a @ b).shape\n"
             "pydevtensor.Size([2, 1])\n");
PyDoc_STRVAR(doc_m_matmul,
             "matmul(other)\n--\n\n"
             "The matrix product, with torch.matmul's rules: 1-D . 1-D is a 0-d dot product; a 1-D "
             "operand is a row (left) or a column (right), and that dimension is dropped from the "
             "result; (..., m, k) @ (..., k, n) gives (..., m, n) with the batch dimensions "
             "broadcast.  Transposed views are read in place.  ``a @ b`` is ``matmul(a, b)``.\n"
             "\n"
             "Parameters\n"
             "----------\n"
             "other : Tensor\n"
             "    The right operand, on self's device and of its dtype.\n" DOC_MATMUL_TAIL "\n"
             "Examples\n"
             "--------\n"
             ">>> a = pydevtensor.tensor([[1., 2.], [3., 4.]])\n"
             ">>> b = pydevtensor.tensor([[1.], [1.]])\n"
             ">>> a.matmul(b)\n"
             "tensor([[3.],\n"
             "        [7.]])\n"
             ">>> (a @ b).shape\n"
             "pydevtensor.Size([2, 1])\n");
#define DOC_MM_PARAMS                                                                              \
    "mat2 : Tensor\n"                                                                              \
    "    Of shape (k, n).\n"

#define DOC_MM_TAIL                                                                                \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    A new tensor on the operands' device.\n"                                                  \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "ValueError\n"                                                                                 \
    "    When the shapes do not fit.\n"                                                            \
    "TypeError\n"                                                                                  \
    "    When the dtypes differ.\n"                                                                \
    "pydevtensor.DeviceError\n"                                                                    \
    "    When the tensors are on different devices.\n"

PyDoc_STRVAR(doc_fn_mm, "mm(input, mat2)\n--\n\n"
                        "The matrix product of two 2-D tensors: (m, k) @ (k, n) gives (m, n).\n"
                        "\n"
                        "Parameters\n"
                        "----------\n"
                        "input : Tensor\n"
                        "    Of shape (m, k).\n" DOC_MM_PARAMS DOC_MM_TAIL "\n"
                        "Examples\n"
                        "--------\n"
                        ">>> a = pydevtensor.tensor([[1., 2.], [3., 4.]])\n"
                        ">>> b = pydevtensor.tensor([[1.], [1.]])\n"
                        ">>> pydevtensor.mm(a, b)\n"
                        "tensor([[3.],\n"
                        "        [7.]])\n");
PyDoc_STRVAR(doc_m_mm, "mm(mat2)\n--\n\n"
                       "The matrix product of two 2-D tensors: (m, k) @ (k, n) gives (m, n).\n"
                       "\n"
                       "Parameters\n"
                       "----------\n" DOC_MM_PARAMS DOC_MM_TAIL "\n"
                       "Examples\n"
                       "--------\n"
                       ">>> a = pydevtensor.tensor([[1., 2.], [3., 4.]])\n"
                       ">>> b = pydevtensor.tensor([[1.], [1.]])\n"
                       ">>> a.mm(b)\n"
                       "tensor([[3.],\n"
                       "        [7.]])\n");
#define DOC_BMM_PARAMS                                                                             \
    "mat2 : Tensor\n"                                                                              \
    "    Of shape (b, k, n).\n"

#define DOC_BMM_TAIL                                                                               \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    A new tensor on the operands' device.\n"                                                  \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "ValueError\n"                                                                                 \
    "    When the shapes do not fit.\n"                                                            \
    "TypeError\n"                                                                                  \
    "    When the dtypes differ.\n"                                                                \
    "pydevtensor.DeviceError\n"                                                                    \
    "    When the tensors are on different devices.\n"

PyDoc_STRVAR(doc_fn_bmm, "bmm(input, mat2)\n--\n\n"
                         "The batched matrix product of two 3-D tensors with the same batch size "
                         "(no broadcasting): (b, m, k) @ (b, k, n) gives (b, m, n).\n"
                         "\n"
                         "Parameters\n"
                         "----------\n"
                         "input : Tensor\n"
                         "    Of shape (b, m, k).\n" DOC_BMM_PARAMS DOC_BMM_TAIL "\n"
                         "Examples\n"
                         "--------\n"
                         ">>> x, y = pydevtensor.ones(4, 2, 3), pydevtensor.ones(4, 3, 5)\n"
                         ">>> pydevtensor.bmm(x, y).shape\n"
                         "pydevtensor.Size([4, 2, 5])\n");
PyDoc_STRVAR(doc_m_bmm, "bmm(mat2)\n--\n\n"
                        "The batched matrix product of two 3-D tensors with the same batch size "
                        "(no broadcasting): (b, m, k) @ (b, k, n) gives (b, m, n).\n"
                        "\n"
                        "Parameters\n"
                        "----------\n" DOC_BMM_PARAMS DOC_BMM_TAIL "\n"
                        "Examples\n"
                        "--------\n"
                        ">>> x, y = pydevtensor.ones(4, 2, 3), pydevtensor.ones(4, 3, 5)\n"
                        ">>> x.bmm(y).shape\n"
                        "pydevtensor.Size([4, 2, 5])\n");
#define DOC_ADDMM_PARAMS                                                                           \
    "mat1 : Tensor\n"                                                                              \
    "    Of shape (m, k).\n"                                                                       \
    "mat2 : Tensor\n"                                                                              \
    "    Of shape (k, n).\n"                                                                       \
    "beta : number, optional\n"                                                                    \
    "    Scales input (default 1); 0 ignores input's values, NaN included.\n"                      \
    "alpha : number, optional\n"                                                                   \
    "    Scales the product (default 1).\n"

#define DOC_ADDMM_TAIL                                                                             \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    A new tensor on the operands' device.\n"                                                  \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "ValueError\n"                                                                                 \
    "    When the shapes do not fit.\n"                                                            \
    "TypeError\n"                                                                                  \
    "    When the dtypes differ.\n"                                                                \
    "pydevtensor.DeviceError\n"                                                                    \
    "    When the tensors are on different devices.\n"

PyDoc_STRVAR(doc_fn_addmm,
             "addmm(input, mat1, mat2, *, beta=1, alpha=1)\n--\n\n"
             "``beta * input + alpha * (mat1 @ mat2)``, with input broadcast to (m, n); one GEMM.\n"
             "\n"
             "Parameters\n"
             "----------\n"
             "input : Tensor\n"
             "    Added to the product; broadcast to (m, n).\n" DOC_ADDMM_PARAMS DOC_ADDMM_TAIL "\n"
             "Examples\n"
             "--------\n"
             ">>> a = pydevtensor.tensor([[1., 2.], [3., 4.]])\n"
             ">>> b = pydevtensor.tensor([[1.], [1.]])\n"
             ">>> c = pydevtensor.ones(2, 1)\n"
             ">>> pydevtensor.addmm(c, a, b)\n"
             "tensor([[4.],\n"
             "        [8.]])\n"
             ">>> pydevtensor.addmm(c, a, b, beta=0, alpha=2)\n"
             "tensor([[ 6.],\n"
             "        [14.]])\n");
PyDoc_STRVAR(doc_m_addmm,
             "addmm(mat1, mat2, *, beta=1, alpha=1)\n--\n\n"
             "``beta * input + alpha * (mat1 @ mat2)``, with input broadcast to (m, n); one GEMM.\n"
             "\n"
             "Parameters\n"
             "----------\n" DOC_ADDMM_PARAMS DOC_ADDMM_TAIL "\n"
             "Examples\n"
             "--------\n"
             ">>> a = pydevtensor.tensor([[1., 2.], [3., 4.]])\n"
             ">>> b = pydevtensor.tensor([[1.], [1.]])\n"
             ">>> c = pydevtensor.ones(2, 1)\n"
             ">>> c.addmm(a, b)\n"
             "tensor([[4.],\n"
             "        [8.]])\n"
             ">>> c.addmm(a, b, beta=0, alpha=2)\n"
             "tensor([[ 6.],\n"
             "        [14.]])\n");
#define DOC_DOT_TAIL                                                                               \
    "\n"                                                                                           \
    "Returns\n"                                                                                    \
    "-------\n"                                                                                    \
    "Tensor\n"                                                                                     \
    "    A new tensor on the operands' device; 0-d for 1-D . 1-D.\n"                               \
    "\n"                                                                                           \
    "Raises\n"                                                                                     \
    "------\n"                                                                                     \
    "ValueError\n"                                                                                 \
    "    When the shapes do not fit.\n"                                                            \
    "TypeError\n"                                                                                  \
    "    When the dtypes differ.\n"                                                                \
    "pydevtensor.DeviceError\n"                                                                    \
    "    When the tensors are on different devices.\n"

PyDoc_STRVAR(doc_fn_dot, "dot(input, tensor)\n--\n\n"
                         "The dot product of two 1-D tensors of the same length.\n"
                         "\n"
                         "Parameters\n"
                         "----------\n"
                         "input : Tensor\n"
                         "    1-D.\n"
                         "tensor : Tensor\n"
                         "    1-D, of input's length.\n" DOC_DOT_TAIL "\n"
                         "Examples\n"
                         "--------\n"
                         ">>> x = pydevtensor.tensor([1., 2.])\n"
                         ">>> pydevtensor.dot(x, pydevtensor.tensor([3., 4.]))\n"
                         "tensor(11.)\n");
PyDoc_STRVAR(doc_m_dot, "dot(tensor)\n--\n\n"
                        "The dot product of two 1-D tensors of the same length.\n"
                        "\n"
                        "Parameters\n"
                        "----------\n"
                        "tensor : Tensor\n"
                        "    1-D, of self's length.\n" DOC_DOT_TAIL "\n"
                        "Examples\n"
                        "--------\n"
                        ">>> x = pydevtensor.tensor([1., 2.])\n"
                        ">>> x.dot(pydevtensor.tensor([3., 4.]))\n"
                        "tensor(11.)\n");

#endif
