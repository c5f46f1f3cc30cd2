/* numpy_bfloat16.c - bfloat16 at the NumPy boundary.  NumPy has no bfloat16;
 * the ml_dtypes package (JAX's, optional here) adds one as a NumPy dtype that
 * the buffer protocol cannot describe.  So a bfloat16 tensor's _StorageRef
 * buffer holds uint16 bits ("H", storage_ref.c), which pdt_numpy_view views as
 * ml_dtypes.bfloat16 (the Tensor itself offers no buffer for it: Note [bfloat16
 * at the NumPy boundary] in tensor_export.c), and an ml_dtypes.bfloat16 array
 * comes in through a float16 view of the same bits, relabelled (pdt_wrap_buffer). */
#include "pdt_module.h"

#include <string.h>

int pdt_bf16_array_view(PyObject *obj, PyObject **as_bits)
{
    *as_bits = NULL;
    if (!PyObject_HasAttrString(obj, "dtype") || !PyObject_HasAttrString(obj, "view"))
        return 0;
    PyObject *dt = PyObject_GetAttrString(obj, "dtype");
    PyObject *name = dt ? PyObject_GetAttrString(dt, "name") : NULL;
    Py_XDECREF(dt);
    if (!name) {
        PyErr_Clear();
        return 0;
    }
    int is_bf16 = PyUnicode_Check(name) && strcmp(PyUnicode_AsUTF8(name), "bfloat16") == 0;
    Py_DECREF(name);
    if (!is_bf16)
        return 0;
    *as_bits = PyObject_CallMethod(obj, "view", "s", "float16");
    return *as_bits ? 1 : -1;
}

PyObject *pdt_bf16_numpy_from_bits(PyObject *bits)
{
    PyObject *ml = PyImport_ImportModule("ml_dtypes");
    if (!ml) {
        if (PyErr_ExceptionMatches(PyExc_ImportError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError,
                            "a bfloat16 tensor converts to NumPy through the ml_dtypes package, "
                            "which is not installed (pip install ml_dtypes); or convert it "
                            "first with .float()");
        }
        return NULL;
    }
    PyObject *bf16 = PyObject_GetAttrString(ml, "bfloat16");
    Py_DECREF(ml);
    PyObject *arr = bf16 ? PyObject_CallMethod(bits, "view", "O", bf16) : NULL;
    Py_XDECREF(bf16);
    return arr;
}
