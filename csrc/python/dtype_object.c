/* dtype_object.c - pydevtensor.float32 and friends: one singleton per dtype.
 * Anything naming a dtype is accepted where a dtype is: the singletons, their
 * names ('float32'), NumPy dtypes and scalar types (np.float64). */
#include "docstrings_types.h"
#include "pdt_module.h"

#include <string.h>

PyObject *pdt_dtype_object(pdt_state *S, pdt_dtype dt) { return Py_NewRef(S->dtypes[dt]); }

static int dtype_from_name(const char *name, int *out)
{
    static const struct {
        const char *name;
        pdt_dtype dt;
    } aliases[] = {{"bool", PDT_BOOL},         {"int32", PDT_INT32},     {"int", PDT_INT32},
                   {"int64", PDT_INT64},       {"long", PDT_INT64},      {"float32", PDT_FLOAT32},
                   {"float", PDT_FLOAT32},     {"float64", PDT_FLOAT64}, {"double", PDT_FLOAT64},
                   {"bool_", PDT_BOOL},        {"float16", PDT_FLOAT16}, {"half", PDT_FLOAT16},
                   {"bfloat16", PDT_BFLOAT16}, {"uint8", PDT_UINT8},     {"int8", PDT_INT8},
                   {"int16", PDT_INT16},       {"short", PDT_INT16}};
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].name) == 0) {
            *out = aliases[i].dt;
            return 0;
        }
    return -1;
}

int pdt_dtype_from_object(pdt_state *S, PyObject *obj, int dflt, int *out)
{
    if (obj == NULL || obj == Py_None) {
        *out = dflt;
        return 0;
    }
    if (Py_IS_TYPE(obj, S->dtype_type)) {
        *out = (int)((PdtDTypeObject *)obj)->dtype;
        return 0;
    }
    if (PyUnicode_Check(obj)) {
        const char *name = PyUnicode_AsUTF8(obj);
        if (!name)
            return -1;
        if (strncmp(name, "torch.", 6) == 0 || strncmp(name, "pydevtensor.", 12) == 0)
            name = strchr(name, '.') + 1;
        if (dtype_from_name(name, out) == 0)
            return 0;
        PyErr_Format(PyExc_TypeError,
                     "unknown dtype %R: expected one of bool, uint8, int8, int16, int32, int64, "
                     "float16, bfloat16, float32, float64",
                     obj);
        return -1;
    }
    /* NumPy dtypes and scalar types: go through numpy.dtype(obj).name. */
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np)
        return -1;
    PyObject *npdt = PyObject_CallMethod(np, "dtype", "(O)", obj);
    Py_DECREF(np);
    if (!npdt) {
        PyErr_Clear();
        goto unknown;
    }
    PyObject *name = PyObject_GetAttrString(npdt, "name");
    Py_DECREF(npdt);
    if (!name)
        return -1;
    int rc = PyUnicode_Check(name) ? dtype_from_name(PyUnicode_AsUTF8(name), out) : -1;
    Py_DECREF(name);
    if (rc == 0)
        return 0;
unknown:
    PyErr_Format(PyExc_TypeError,
                 "unknown dtype %R: expected pydevtensor.float32, float64, float16, bfloat16, "
                 "int64, int32, int16, int8, uint8 or bool (or its name)",
                 obj);
    return -1;
}

/* promote_types(type1, type2): the dtype of an op between tensors of the two
 * (pdt_promote: PyTorch's rules, float16 with bfloat16 giving float32). */
static PyObject *f_promote_types(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = pdt_state_of_module(module);
    int a, b;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "promote_types() takes 2 dtypes (%zd given)", nargs);
        return NULL;
    }
    if (pdt_dtype_from_object(S, args[0], -1, &a) < 0 ||
        pdt_dtype_from_object(S, args[1], -1, &b) < 0)
        return NULL;
    return pdt_dtype_object(S, pdt_promote((pdt_dtype)a, (pdt_dtype)b));
}

/* _set_default_dtype(d): the bindings' default (factories, tensor()) and the
 * core's (Python floats in ops, float results of integers) together.  Only the
 * four floating dtypes, as in PyTorch; the public function is in Python. */
static PyObject *f_set_default_dtype(PyObject *module, PyObject *d)
{
    pdt_state *S = pdt_state_of_module(module);
    if (!Py_IS_TYPE(d, S->dtype_type)) {
        PyErr_Format(PyExc_TypeError,
                     "set_default_dtype(): invalid dtype object %R: only floating-point types "
                     "are supported as the default type (pydevtensor.float16, bfloat16, float32 "
                     "or float64)",
                     d);
        return NULL;
    }
    pdt_dtype dt = ((PdtDTypeObject *)d)->dtype;
    if (pdt_set_default_float(dt) < 0) {
        PyErr_Format(PyExc_TypeError,
                     "set_default_dtype(): only floating-point types are supported as the "
                     "default type (pydevtensor.float16, bfloat16, float32 or float64), got "
                     "pydevtensor.%s",
                     pdt_dtype_name(dt));
        return NULL;
    }
    S->default_dtype = S->dtypes[dt];
    Py_RETURN_NONE;
}

static PyObject *f_get_default_dtype(PyObject *module, PyObject *unused)
{
    (void)unused;
    return Py_NewRef(pdt_state_of_module(module)->default_dtype);
}

PyMethodDef pdt_dtype_functions[] = {
    {"_set_default_dtype", f_set_default_dtype, METH_O, NULL},
    {"_get_default_dtype", f_get_default_dtype, METH_NOARGS, NULL},
    {"promote_types", (PyCFunction)(void (*)(void))f_promote_types, METH_FASTCALL,
     doc_promote_types},
    {NULL, NULL, 0, NULL},
};

static PyObject *dtype_repr(PyObject *self)
{
    return PyUnicode_FromFormat("pydevtensor.%s", pdt_dtype_name(((PdtDTypeObject *)self)->dtype));
}

static PyObject *dtype_get_itemsize(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromSize_t(pdt_dtype_size(((PdtDTypeObject *)self)->dtype));
}

static PyObject *dtype_get_is_floating(PyObject *self, void *c)
{
    (void)c;
    return PyBool_FromLong(pdt_dtype_is_floating(((PdtDTypeObject *)self)->dtype));
}

static PyObject *dtype_get_is_signed(PyObject *self, void *c)
{
    (void)c;
    pdt_dtype dt = ((PdtDTypeObject *)self)->dtype;
    return PyBool_FromLong(dt != PDT_BOOL && dt != PDT_UINT8);
}

static PyObject *dtype_get_is_complex(PyObject *self, void *c)
{
    (void)self, (void)c;
    Py_RETURN_FALSE; /* no complex dtypes (yet) */
}

static PyObject *dtype_get_name(PyObject *self, void *c)
{
    (void)c;
    return PyUnicode_FromString(pdt_dtype_name(((PdtDTypeObject *)self)->dtype));
}

static PyObject *dtype_reduce(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyUnicode_FromString(pdt_dtype_name(((PdtDTypeObject *)self)->dtype));
}

static void dtype_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyGetSetDef dtype_getset[] = {
    {"itemsize", dtype_get_itemsize, NULL, doc_dtype_itemsize, NULL},
    {"is_floating_point", dtype_get_is_floating, NULL, doc_dtype_is_floating_point, NULL},
    {"is_signed", dtype_get_is_signed, NULL, doc_dtype_is_signed, NULL},
    {"is_complex", dtype_get_is_complex, NULL, doc_dtype_is_complex, NULL},
    {"name", dtype_get_name, NULL, doc_dtype_name, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef dtype_methods[] = {
    {"__reduce__", dtype_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot dtype_slots[] = {
    {Py_tp_doc, (void *)doc_dtype_type}, {Py_tp_repr, dtype_repr},
    {Py_tp_dealloc, dtype_dealloc},      {Py_tp_getset, dtype_getset},
    {Py_tp_methods, dtype_methods},      {0, NULL},
};

static PyType_Spec dtype_spec = {
    .name = "pydevtensor.dtype",
    .basicsize = sizeof(PdtDTypeObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = dtype_slots,
};

int pdt_dtype_type_init(PyObject *module, pdt_state *S)
{
    S->dtype_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &dtype_spec, NULL);
    if (!S->dtype_type || PyModule_AddObjectRef(module, "dtype", (PyObject *)S->dtype_type) < 0)
        return -1;
    static const char *const aliases[PDT_NUM_DTYPES] = {NULL,   "int", "long", "float", "double",
                                                        "half", NULL,  NULL,   NULL,    "short"};
    for (int dt = 0; dt < PDT_NUM_DTYPES; dt++) {
        PdtDTypeObject *o = PyObject_New(PdtDTypeObject, S->dtype_type);
        if (!o)
            return -1;
        o->dtype = (pdt_dtype)dt;
        S->dtypes[dt] = (PyObject *)o;
        if (PyModule_AddObjectRef(module, pdt_dtype_name((pdt_dtype)dt), (PyObject *)o) < 0)
            return -1;
        if (aliases[dt] && PyModule_AddObjectRef(module, aliases[dt], (PyObject *)o) < 0)
            return -1;
    }
    S->default_dtype = S->dtypes[pdt_default_float()];
    return 0;
}
