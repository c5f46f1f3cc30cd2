/* device_object.c - pydevtensor.device: a (type, index) pair.
 *
 * device('cpu'), device('cuda:1'), device('cuda', 1), device(other_device).
 * 'cuda' without an index resolves at construction to the current CUDA device,
 * so device('cuda') == device('cuda:0') by default and both hash alike; see the
 * README's "cuda means the current device". */
#include "docstrings_types.h"
#include "pdt_module.h"

#include <stdio.h>
#include <string.h>

PyObject *pdt_device_object(pdt_state *S, pdt_device d)
{
    PyObject **slot = &S->devices[d.kind][d.index];
    if (!*slot) {
        PdtDeviceObject *o = PyObject_New(PdtDeviceObject, S->device_type);
        if (!o)
            return NULL;
        o->device = d;
        *slot = (PyObject *)o;
    }
    return Py_NewRef(*slot);
}

/* 1 for the string "cpu" exactly, read in place (x.to('cpu'), device='cpu'). */
static int is_cpu(PyObject *str)
{
#if PY_VERSION_HEX < 0x030C0000
    if (!PyUnicode_IS_READY(str)) /* a legacy string: the parser reads it */
        return 0;
#endif
    return PyUnicode_IS_ASCII(str) && PyUnicode_GET_LENGTH(str) == 3 &&
           memcmp(PyUnicode_DATA(str), "cpu", 3) == 0;
}

/* A device string; a bad one raises InvalidArgumentError (a ValueError and a
 * RuntimeError: PyTorch raises RuntimeError there, Python's convention ValueError). */
static int device_from_string(pdt_state *S, PyObject *str, pdt_device *out)
{
    if (is_cpu(str)) { /* what pdt_device_parse gives, without the UTF-8 view and the parse */
        *out = (pdt_device){.kind = PDT_CPU, .index = 0};
        return 0;
    }
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(str, &len);
    if (!s)
        return -1;
    pdt_status st = pdt_device_parse(s, (size_t)len, pdt_current_cuda(), out);
    if (st != PDT_OK) {
        PyErr_SetString(S->InvalidArgumentError, pdt_last_error());
        return -1;
    }
    return 0;
}

/* With soft placement on, a device that does not exist becomes the nearest one
 * that does (pdt_nearest_device), and a warning on the placement logger says so. */
static int soft_place(pdt_device *d)
{
    if (!pdt_soft_placement() || pdt_device_check(*d) == PDT_OK)
        return 0;
    pdt_device near = pdt_nearest_device(*d);
    char from[32], to[32], line[128];
    snprintf(line, sizeof line, "soft device placement: %s does not exist; using %s",
             pdt_device_str(*d, from, sizeof from), pdt_device_str(near, to, sizeof to));
    *d = near;
    PyObject *logging = PyImport_ImportModule("logging");
    PyObject *logger = logging
                           ? PyObject_CallMethod(logging, "getLogger", "s", "pydevtensor.placement")
                           : NULL;
    PyObject *r = logger ? PyObject_CallMethod(logger, "warning", "s", line) : NULL;
    Py_XDECREF(r);
    Py_XDECREF(logger);
    Py_XDECREF(logging);
    return r ? 0 : -1;
}

int pdt_device_from_object(pdt_state *S, PyObject *obj, pdt_device dflt, pdt_device *out)
{
    if (pdt_device_from_object_exact(S, obj, dflt, out) < 0)
        return -1;
    return soft_place(out);
}

int pdt_device_from_object_exact(pdt_state *S, PyObject *obj, pdt_device dflt, pdt_device *out)
{
    if (obj == NULL || obj == Py_None) {
        *out = dflt;
        return 0;
    }
    if (Py_IS_TYPE(obj, S->device_type)) {
        *out = ((PdtDeviceObject *)obj)->device;
        return 0;
    }
    if (PyUnicode_Check(obj))
        return device_from_string(S, obj, out);
    if (PyLong_Check(obj) && !PyBool_Check(obj)) {
        long index = PyLong_AsLong(obj);
        if (index == -1 && PyErr_Occurred())
            return -1;
        if (index < 0 || index >= PDT_MAX_DEVICES) {
            PyErr_Format(PyExc_ValueError,
                         "invalid device index %ld: a device given as an int is a CUDA index "
                         "in [0, %d)",
                         index, PDT_MAX_DEVICES);
            return -1;
        }
        out->kind = PDT_CUDA;
        out->index = (int)index;
        return 0;
    }
    /* config.PhysicalDevice and LogicalDevice (and anything else that names a
     * device) offer the device as a `_pdt_device` attribute. */
    PyObject *named = PyObject_GetAttrString(obj, "_pdt_device");
    if (!named) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
    } else {
        int ok = Py_IS_TYPE(named, S->device_type);
        if (ok)
            *out = ((PdtDeviceObject *)named)->device;
        Py_DECREF(named);
        if (ok)
            return 0;
    }
    PyErr_Format(PyExc_TypeError,
                 "expected a device, a device string like 'cpu', 'cuda:0' or '/GPU:0', a CUDA "
                 "index, or a config.PhysicalDevice/LogicalDevice; got %.100s",
                 Py_TYPE(obj)->tp_name);
    return -1;
}

static PyObject *device_new(PyTypeObject *tp, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"type", "index", NULL};
    PyObject *type = NULL, *index = Py_None;
    pdt_state *S = pdt_state_of_type(tp);
    if (!S || !PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:device", kwlist, &type, &index))
        return NULL;
    pdt_device d;
    if (index == Py_None) {
        if (PyLong_Check(type) && !PyBool_Check(type)) {
            PyErr_SetString(PyExc_TypeError,
                            "device(int) is ambiguous here: write device('cuda', i) or "
                            "device('cuda:i')");
            return NULL;
        }
        if (!PyUnicode_Check(type) && !Py_IS_TYPE(type, S->device_type) &&
            !PyObject_HasAttrString(type, "_pdt_device")) {
            PyErr_Format(PyExc_TypeError,
                         "device() expects a string like 'cpu', 'cuda' or 'cuda:1' (or "
                         "TensorFlow's '/GPU:0'), a device, or a config.PhysicalDevice/"
                         "LogicalDevice; got %.100s",
                         Py_TYPE(type)->tp_name);
            return NULL;
        }
        if (pdt_device_from_object_exact(S, type, d, &d) < 0)
            return NULL;
        return pdt_device_object(S, d);
    }
    if (!PyUnicode_Check(type)) {
        PyErr_Format(PyExc_TypeError, "device(type, index): type must be a string, got %.100s",
                     Py_TYPE(type)->tp_name);
        return NULL;
    }
    if (device_from_string(S, type, &d) < 0)
        return NULL;
    if (strchr(PyUnicode_AsUTF8(type), ':')) {
        PyErr_Format(PyExc_ValueError,
                     "device(%R, %R): the type already names an index; pass 'cuda' and the "
                     "index, or 'cuda:1' alone",
                     type, index);
        return NULL;
    }
    if (!PyLong_Check(index) || PyBool_Check(index)) {
        PyErr_Format(PyExc_TypeError, "device index must be an int, got %.100s",
                     Py_TYPE(index)->tp_name);
        return NULL;
    }
    long i = PyLong_AsLong(index);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= PDT_MAX_DEVICES) {
        PyErr_Format(PyExc_ValueError, "invalid device index %ld for %U: expected 0 <= index < %d",
                     i, type, PDT_MAX_DEVICES);
        return NULL;
    }
    d.index = (int)i;
    return pdt_device_object(S, d);
}

static PyObject *device_repr(PyObject *self)
{
    pdt_device d = ((PdtDeviceObject *)self)->device;
    if (d.kind == PDT_CPU && d.index == 0 && !pdt_cpu_is_split())
        return PyUnicode_FromString("device(type='cpu')");
    return PyUnicode_FromFormat("device(type='%s', index=%d)", pdt_device_kind_name(d.kind),
                                d.index);
}

static PyObject *device_str(PyObject *self)
{
    char buf[32];
    return PyUnicode_FromString(pdt_device_str(((PdtDeviceObject *)self)->device, buf, sizeof buf));
}

static Py_hash_t device_hash(PyObject *self)
{
    pdt_device d = ((PdtDeviceObject *)self)->device;
    Py_hash_t h = (Py_hash_t)(d.kind * 1000003 + d.index + 1);
    return h == -1 ? -2 : h;
}

static PyObject *device_richcompare(PyObject *a, PyObject *b, int op)
{
    if ((op != Py_EQ && op != Py_NE) || !Py_IS_TYPE(b, Py_TYPE(a)))
        Py_RETURN_NOTIMPLEMENTED;
    int eq = pdt_device_eq(((PdtDeviceObject *)a)->device, ((PdtDeviceObject *)b)->device);
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *device_get_type(PyObject *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(pdt_device_kind_name(((PdtDeviceObject *)self)->device.kind));
}

static PyObject *device_get_index(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(((PdtDeviceObject *)self)->device.index);
}

static PyObject *device_reduce(PyObject *self, PyObject *unused)
{
    (void)unused;
    pdt_device d = ((PdtDeviceObject *)self)->device;
    return Py_BuildValue("O(si)", (PyObject *)Py_TYPE(self), pdt_device_kind_name(d.kind), d.index);
}

static void device_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyGetSetDef device_getset[] = {
    {"type", device_get_type, NULL, doc_device_type_attr, NULL},
    {"index", device_get_index, NULL, doc_device_index, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef device_methods[] = {
    {"__reduce__", device_reduce, METH_NOARGS, NULL},
    {"__enter__", pdt_device_enter, METH_NOARGS,
     "`with device:` makes it the default device of the factory functions on this thread "
     "for the block (Note [the default device] in default_device.c)."},
    {"__exit__", (PyCFunction)(void (*)(void))pdt_device_exit, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot device_slots[] = {
    {Py_tp_doc, (void *)doc_device_type},
    {Py_tp_new, device_new},
    {Py_tp_dealloc, device_dealloc},
    {Py_tp_repr, device_repr},
    {Py_tp_str, device_str},
    {Py_tp_hash, device_hash},
    {Py_tp_richcompare, device_richcompare},
    {Py_tp_getset, device_getset},
    {Py_tp_methods, device_methods},
    {0, NULL},
};

static PyType_Spec device_spec = {
    .name = "pydevtensor.device",
    .basicsize = sizeof(PdtDeviceObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = device_slots,
};

int pdt_device_type_init(PyObject *module, pdt_state *S)
{
    S->device_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &device_spec, NULL);
    if (!S->device_type)
        return -1;
    return PyModule_AddObjectRef(module, "device", (PyObject *)S->device_type);
}
