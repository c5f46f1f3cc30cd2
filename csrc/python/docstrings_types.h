/* Docstrings of the public classes of the C extension: device, dtype and Tensor (with their
 * attributes) and the exceptions, in numpydoc form; the examples run as doctests in
 * tests/test_docstrings.py. */
#ifndef PDT_DOCSTRINGS_TYPES_H
#define PDT_DOCSTRINGS_TYPES_H

#include "pdt_module.h" /* PyDoc_STRVAR */

PyDoc_STRVAR(doc_device_type,
             "device(type, index=None)\n--\n\n"
             "A device: the CPU (or a logical CPU device, cpu:1, ...) or the i-th CUDA GPU.  "
             "device('cuda') is the current CUDA device.  ``with device:`` makes it the default "
             "device of the factory functions on this thread for the block.\n"
             "\n"
             "Parameters\n"
             "----------\n"
             "type : str\n"
             "    'cpu' or 'cuda', optionally with the index: 'cuda:1'.\n"
             "index : int, optional\n"
             "    The index.\n"
             "\n"
             "Examples\n"
             "--------\n"
             ">>> pydevtensor.device('cuda', 1)\n"
             "device(type='cuda', index=1)\n"
             ">>> str(pydevtensor.device('cuda:1'))\n"
             "'cuda:1'\n"
             ">>> with pydevtensor.device('cpu'):\n"
             "...     pydevtensor.zeros(1).device\n"
             "device(type='cpu')\n");
PyDoc_STRVAR(doc_device_type_attr, "The kind of device: 'cpu' or 'cuda'.\n"
                                   "\n"
                                   "Examples\n"
                                   "--------\n"
                                   ">>> pydevtensor.device('cuda:1').type\n"
                                   "'cuda'\n");
PyDoc_STRVAR(doc_device_index,
             "The device's index (0 for the CPU; device('cuda') is the current CUDA device).\n"
             "\n"
             "Examples\n"
             "--------\n"
             ">>> pydevtensor.device('cuda:1').index\n"
             "1\n");
PyDoc_STRVAR(
    doc_dtype_type,
    "An element type: pydevtensor.float32, float64, float16, bfloat16, int32, int64 or bool "
    "(also under PyTorch's aliases float, double, int, long).\n"
    "\n"
    "Examples\n"
    "--------\n"
    ">>> pydevtensor.ones(2, dtype=pydevtensor.float64).dtype\n"
    "pydevtensor.float64\n"
    ">>> pydevtensor.float is pydevtensor.float32\n"
    "True\n");
PyDoc_STRVAR(doc_dtype_itemsize, "The bytes per element.\n"
                                 "\n"
                                 "Examples\n"
                                 "--------\n"
                                 ">>> pydevtensor.float64.itemsize\n"
                                 "8\n");
PyDoc_STRVAR(doc_dtype_is_floating_point,
             "True for float16, bfloat16, float32 and float64.\n"
             "\n"
             "Examples\n"
             "--------\n"
             ">>> pydevtensor.float32.is_floating_point, pydevtensor.int64.is_floating_point\n"
             "(True, False)\n");
PyDoc_STRVAR(doc_dtype_name, "The name: 'float32', ...\n"
                             "\n"
                             "Examples\n"
                             "--------\n"
                             ">>> pydevtensor.int32.name\n"
                             "'int32'\n");
PyDoc_STRVAR(doc_dtype_is_signed,
             "Whether the dtype holds negative numbers (False for bool and uint8).\n"
             "\n"
             "Examples\n"
             "--------\n"
             ">>> pydevtensor.uint8.is_signed, pydevtensor.int8.is_signed\n"
             "(False, True)\n");
PyDoc_STRVAR(doc_tensor_type,
             "Tensor(t)\n--\n\n"
             "A tensor on a device.  Make one with pydevtensor.tensor(), zeros(), ones(), rand(), "
             "...; ``Tensor(t)`` is a new Tensor object sharing t's storage.\n"
             "\n"
             "Parameters\n"
             "----------\n"
             "t : Tensor\n"
             "    The tensor whose storage the new one views.\n"
             "\n"
             "Raises\n"
             "------\n"
             "TypeError\n"
             "    When t is not a Tensor.\n"
             "\n"
             "Examples\n"
             "--------\n"
             ">>> x = pydevtensor.tensor([1., 2.])\n"
             ">>> y = pydevtensor.Tensor(x)\n"
             ">>> y.data_ptr() == x.data_ptr()\n"
             "True\n");
PyDoc_STRVAR(doc_oom_error,
             "A device ran out of memory, or an allocation would pass the device's memory limit.  "
             "The message names the device, the request, what is allocated, the limit and what is "
             "free.  Nothing is left half-allocated: the process goes on.  A MemoryError, and a "
             "RuntimeError as PyTorch's is.\n"
             "\n"
             "Examples\n"
             "--------\n"
             ">>> try:\n"
             "...     pydevtensor.empty(2 ** 45)  # 128 TiB\n"
             "... except pydevtensor.OutOfMemoryError:\n"
             "...     print('out of memory')\n"
             "out of memory\n");
PyDoc_STRVAR(doc_transfer_error,
             "A copy between devices that the transfer guard forbids.  A RuntimeError.\n"
             "\n"
             "Examples\n"
             "--------\n"
             ">>> issubclass(pydevtensor.TransferError, RuntimeError)\n"
             "True\n");
PyDoc_STRVAR(doc_device_error, "A device that is unknown, unavailable, or not the one the other "
                               "inputs are on.  A RuntimeError.\n"
                               "\n"
                               "Examples\n"
                               "--------\n"
                               ">>> try:\n"
                               "...     pydevtensor.zeros(1, device='cuda:63')\n"
                               "... except pydevtensor.DeviceError:\n"
                               "...     print('no such device')\n"
                               "no such device\n");

PyDoc_STRVAR(doc_invalid_argument_error,
             "An operation got a value it cannot work with: shapes that do not broadcast or "
             "multiply, a view of the wrong size, item() of more than one element.  The message "
             "names the operation, the sizes and the device.  A ValueError (as NumPy raises) and "
             "a RuntimeError (as PyTorch raises), so code written for either catches it.\n"
             "\n"
             "Examples\n"
             "--------\n"
             ">>> try:\n"
             "...     pydevtensor.ones(2, 3) @ pydevtensor.ones(4, 5)\n"
             "... except RuntimeError as e:\n"
             "...     print(type(e).__name__, isinstance(e, ValueError))\n"
             "InvalidArgumentError True\n");

PyDoc_STRVAR(doc_promote_types,
             "promote_types(type1, type2)\n--\n\n"
             "The dtype of an operation between tensors of type1 and type2, as in PyTorch: the "
             "higher kind wins (bool < int32 < int64 < float16, bfloat16 < float32 < float64), and "
             "float16 with bfloat16 gives float32.\n"
             "\n"
             "Parameters\n"
             "----------\n"
             "type1, type2 : pydevtensor.dtype or str\n"
             "    The dtypes, or their names.\n"
             "\n"
             "Returns\n"
             "-------\n"
             "pydevtensor.dtype\n"
             "\n"
             "Raises\n"
             "------\n"
             "TypeError\n"
             "    For something that is not a dtype.\n"
             "\n"
             "Examples\n"
             "--------\n"
             ">>> pydevtensor.promote_types(pydevtensor.int64, pydevtensor.float16)\n"
             "pydevtensor.float16\n"
             ">>> pydevtensor.promote_types('float16', 'bfloat16')\n"
             "pydevtensor.float32\n");

#endif
