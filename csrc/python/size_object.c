/* size_object.c - pydevtensor._C._SizeBase: the C base of pydevtensor.Size (a tuple
 * subclass written in pydevtensor/_tensor_py.py).
 *
 * Its one slot is the subscript: an index reads the tuple's own item, and a slice
 * is a Size again, as PyTorch's (x.shape[2:] prints as pydevtensor.Size([6, 8])).
 * Written in C because a __getitem__ written in Python costs every x.shape[i] about
 * 80 ns more, and the Python layers read shapes on every call; here it is one more C
 * call in front of tuple's. */
#include "pdt_module.h"

static PyObject *size_subscript(PyObject *self, PyObject *key)
{
    PyObject *item = PyTuple_Type.tp_as_mapping->mp_subscript(self, key);
    if (!item || !PySlice_Check(key))
        return item;
    /* tuple's own constructor for the subtype (Size.__new__ checks the items of a
     * Size made in Python; these are ints already) */
    PyObject *args = PyTuple_Pack(1, item);
    Py_DECREF(item);
    PyObject *size = args ? PyTuple_Type.tp_new(Py_TYPE(self), args, NULL) : NULL;
    Py_XDECREF(args);
    return size;
}

static PyType_Slot size_slots[] = {
    {Py_mp_subscript, size_subscript},
    {Py_tp_doc, "The C base of pydevtensor.Size: its slices are Sizes."},
    {0, NULL},
};

static PyType_Spec size_spec = {
    .name = "pydevtensor._C._SizeBase",
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = size_slots,
};

int pdt_size_type_init(PyObject *module)
{
    PyObject *type = PyType_FromModuleAndSpec(module, &size_spec, (PyObject *)&PyTuple_Type);
    if (!type)
        return -1;
    int rc = PyModule_AddObjectRef(module, "_SizeBase", type);
    Py_DECREF(type);
    return rc;
}
