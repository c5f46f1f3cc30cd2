/* errors.c - the one place where a core status becomes a Python exception.
 * The exception classes live in the module state. */
#include "docstrings_types.h"
#include "pdt_module.h"

PyObject *pdt_raise(pdt_state *S, pdt_status st)
{
    PyObject *type;
    switch (st) {
    case PDT_OK: PyErr_SetString(PyExc_SystemError, "pdt_raise called with PDT_OK"); return NULL;
    case PDT_ERR_VALUE: type = S->InvalidArgumentError; break;
    case PDT_ERR_TYPE: type = S->DTypeError; break;
    case PDT_ERR_INDEX: type = S->IndexOutOfRangeError; break;
    case PDT_ERR_DEVICE: type = S->DeviceError; break;
    case PDT_ERR_OOM: type = S->OutOfMemoryError; break;
    case PDT_ERR_TRANSFER: type = S->TransferError; break;
    case PDT_ERR_UNSUPPORTED: type = PyExc_NotImplementedError; break;
    case PDT_ERR_BACKEND:
    default: type = PyExc_RuntimeError; break;
    }
    if (!PyErr_Occurred()) /* a hook may already have raised (the transfer guard) */
        PyErr_SetString(type, pdt_last_error());
    return NULL;
}

int pdt_raise_int(pdt_state *S, pdt_status st)
{
    pdt_raise(S, st);
    return -1;
}

/* Note [exceptions that are also RuntimeErrors]
 * PyTorch raises RuntimeError where an op gets a bad shape or value (broadcasting,
 * matmul, view, item() of many elements) and torch.OutOfMemoryError is a RuntimeError;
 * NumPy raises ValueError and MemoryError.  Code written for either catches ours:
 * a bad value is an InvalidArgumentError (TensorFlow's name for it), a ValueError and a
 * RuntimeError at once, as NumPy's AxisError is both a ValueError and an IndexError;
 * OutOfMemoryError is a MemoryError and a RuntimeError.  An index or dim out of range is
 * an IndexOutOfRangeError, an IndexError (NumPy's class, and PyTorch's for indexing and
 * index_select) and a RuntimeError (PyTorch's for gather, scatter and scatter_reduce).
 * A dtype an op cannot take (mean() of integers, matmul of float32 and int64, an
 * in-place result that cannot be cast back) is a DTypeError, a TypeError (as NumPy's
 * UFuncTypeError is) and a RuntimeError (PyTorch's class for it).  An argument of the
 * wrong Python type stays a plain TypeError, as in both. */
static PyObject *new_error(const char *name, const char *doc, PyObject *base1, PyObject *base2)
{
    PyObject *bases = base2 ? PyTuple_Pack(2, base1, base2) : Py_NewRef(base1);
    if (!bases)
        return NULL;
    PyObject *type = PyErr_NewExceptionWithDoc(name, doc, bases, NULL);
    Py_DECREF(bases);
    return type;
}

int pdt_errors_init(PyObject *module, pdt_state *S)
{
    /* one at a time: a failure returns at once, with its exception */
    if (!(S->OutOfMemoryError = new_error("pydevtensor.OutOfMemoryError", doc_oom_error,
                                          PyExc_MemoryError, PyExc_RuntimeError)) ||
        !(S->TransferError = new_error("pydevtensor.TransferError", doc_transfer_error,
                                       PyExc_RuntimeError, NULL)) ||
        !(S->DeviceError = new_error("pydevtensor.DeviceError", doc_device_error,
                                     PyExc_RuntimeError, NULL)) ||
        !(S->InvalidArgumentError = new_error("pydevtensor.InvalidArgumentError",
                                              doc_invalid_argument_error, PyExc_ValueError,
                                              PyExc_RuntimeError)) ||
        !(S->IndexOutOfRangeError = new_error("pydevtensor.IndexOutOfRangeError",
                                              doc_index_out_of_range_error, PyExc_IndexError,
                                              PyExc_RuntimeError)) ||
        !(S->DTypeError = new_error("pydevtensor.DTypeError", doc_dtype_error, PyExc_TypeError,
                                    PyExc_RuntimeError)))
        return -1;
    if (PyModule_AddObjectRef(module, "OutOfMemoryError", S->OutOfMemoryError) < 0 ||
        PyModule_AddObjectRef(module, "TransferError", S->TransferError) < 0 ||
        PyModule_AddObjectRef(module, "DeviceError", S->DeviceError) < 0 ||
        PyModule_AddObjectRef(module, "InvalidArgumentError", S->InvalidArgumentError) < 0 ||
        PyModule_AddObjectRef(module, "IndexOutOfRangeError", S->IndexOutOfRangeError) < 0 ||
        PyModule_AddObjectRef(module, "DTypeError", S->DTypeError) < 0)
        return -1;
    return 0;
}
