/* errors.c - the one place where a core status becomes a Python exception.
 * The exception classes live in the module state. */
#include "docstrings_types.h"
#include "pdt_module.h"

PyObject *pdt_raise(pdt_state *S, pdt_status st)
{
    PyObject *type;
    switch (st) {
    case PDT_OK: PyErr_SetString(PyExc_SystemError, "pdt_raise called with PDT_OK"); return NULL;
    case PDT_ERR_VALUE: type = PyExc_ValueError; break;
    case PDT_ERR_TYPE: type = PyExc_TypeError; break;
    case PDT_ERR_INDEX: type = PyExc_IndexError; break;
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

int pdt_errors_init(PyObject *module, pdt_state *S)
{
    S->OutOfMemoryError = PyErr_NewExceptionWithDoc("pydevtensor.OutOfMemoryError", doc_oom_error,
                                                    PyExc_MemoryError, NULL);
    S->TransferError = PyErr_NewExceptionWithDoc("pydevtensor.TransferError", doc_transfer_error,
                                                 PyExc_RuntimeError, NULL);
    S->DeviceError = PyErr_NewExceptionWithDoc("pydevtensor.DeviceError", doc_device_error,
                                               PyExc_RuntimeError, NULL);
    if (!S->OutOfMemoryError || !S->TransferError || !S->DeviceError)
        return -1;
    if (PyModule_AddObjectRef(module, "OutOfMemoryError", S->OutOfMemoryError) < 0 ||
        PyModule_AddObjectRef(module, "TransferError", S->TransferError) < 0 ||
        PyModule_AddObjectRef(module, "DeviceError", S->DeviceError) < 0)
        return -1;
    return 0;
}
