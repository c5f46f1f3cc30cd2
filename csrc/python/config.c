/* config.c - the C side of pydevtensor.config: visible and logical devices,
 * soft placement, and placement logging ("Executing op matmul in device cuda:0",
 * "Copying 24 bytes from cpu to cuda:0") through the `pydevtensor.placement`
 * logger.
 *
 * The core's hooks are process-wide, so the logger they write to is too: it is
 * held in a static set when logging is switched on (not in module state). */
#include <stdio.h>

#include "args.h"

static PyObject *placement_logger; /* logging.getLogger('pydevtensor.placement') */

static void log_line(const char *text)
{
    PyGILState_STATE g = PyGILState_Ensure(); /* hooks may run with the GIL released */
    if (placement_logger) {
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb); /* logging must not disturb an exception in flight */
        PyObject *r = PyObject_CallMethod(placement_logger, "info", "s", text);
        if (!r)
            PyErr_WriteUnraisable(placement_logger);
        Py_XDECREF(r);
        PyErr_Restore(et, ev, tb);
    }
    PyGILState_Release(g);
}

static void op_hook(const char *op, pdt_device device)
{
    char name[32], line[128];
    snprintf(line, sizeof line, "Executing op %s in device %s", op,
             pdt_device_str(device, name, sizeof name));
    log_line(line);
}

void pdt_placement_note_copy(pdt_copy_kind kind, pdt_device dst, pdt_device src, size_t nbytes)
{
    (void)kind;
    if (!placement_logger) /* read without the GIL: a stale answer only drops one line */
        return;
    char a[32], b[32], line[160];
    snprintf(line, sizeof line, "Copying %zu bytes from %s to %s", nbytes,
             pdt_device_str(src, a, sizeof a), pdt_device_str(dst, b, sizeof b));
    log_line(line);
}

static PyObject *c_set_log_device_placement(PyObject *m, PyObject *logger)
{
    (void)m;
    /* Copies reach pdt_placement_note_copy through the transfer guard's copy hook
     * (guard.c), which owns the core's one copy hook. */
    if (logger == Py_None) {
        pdt_set_op_hook(NULL);
        Py_CLEAR(placement_logger);
    } else {
        Py_XSETREF(placement_logger, Py_NewRef(logger));
        pdt_set_op_hook(op_hook);
    }
    Py_RETURN_NONE;
}

static int parse_kind(PyObject *obj, int *kind)
{
    long k = PyLong_AsLong(obj);
    if (k == -1 && PyErr_Occurred())
        return -1;
    if (k < 0 || k >= PDT_NUM_KINDS) {
        PyErr_Format(PyExc_ValueError, "unknown device kind %ld", k);
        return -1;
    }
    *kind = (int)k;
    return 0;
}

static PyObject *int_list(int n, const int *v)
{
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *x = PyLong_FromLong(v[i]);
        if (!x) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, x);
    }
    return list;
}

static PyObject *c_physical_count(PyObject *m, PyObject *kind_obj)
{
    (void)m;
    int kind;
    return parse_kind(kind_obj, &kind) < 0 ? NULL
                                           : PyLong_FromLong(pdt_physical_device_count(kind));
}

static PyObject *c_logical_map(PyObject *m, PyObject *kind_obj)
{
    (void)m;
    int kind, n, phys[PDT_MAX_DEVICES];
    if (parse_kind(kind_obj, &kind) < 0)
        return NULL;
    n = pdt_device_count(kind);
    for (int i = 0; i < n; i++)
        phys[i] = pdt_physical_index(kind, i);
    return int_list(n, phys);
}

static PyObject *c_get_visible(PyObject *m, PyObject *kind_obj)
{
    (void)m;
    int kind, n, v[PDT_MAX_DEVICES];
    if (parse_kind(kind_obj, &kind) < 0)
        return NULL;
    pdt_get_visible_devices(kind, &n, v);
    return int_list(n, v);
}

/* _set_visible_devices(kind, [physical indices]) */
static PyObject *c_set_visible(PyObject *m, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(m);
    PyObject *kind_obj, *seq;
    int kind, v[PDT_MAX_DEVICES];
    if (!PyArg_ParseTuple(args, "OO:_set_visible_devices", &kind_obj, &seq) ||
        parse_kind(kind_obj, &kind) < 0)
        return NULL;
    PyObject *fast = PySequence_Tuple(seq); /* a copy: __index__ below may change a list */
    if (!fast)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    for (Py_ssize_t i = 0; i < n && i < PDT_MAX_DEVICES; i++) {
        long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (x == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return NULL;
        }
        v[i] = (int)x;
    }
    Py_DECREF(fast);
    if (n > PDT_MAX_DEVICES) {
        PyErr_Format(PyExc_ValueError, "at most %d visible devices", PDT_MAX_DEVICES);
        return NULL;
    }
    pdt_status st = pdt_set_visible_devices(kind, (int)n, v);
    return st == PDT_OK ? Py_NewRef(Py_None) : pdt_raise(S, st);
}

/* _set_logical_devices(kind, physical, [limit bytes or 0, ...]) */
static PyObject *c_set_logical(PyObject *m, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(m);
    PyObject *kind_obj, *seq;
    int kind, physical;
    uint64_t limits[PDT_MAX_DEVICES];
    if (!PyArg_ParseTuple(args, "OiO:_set_logical_devices", &kind_obj, &physical, &seq) ||
        parse_kind(kind_obj, &kind) < 0)
        return NULL;
    PyObject *fast = PySequence_Tuple(seq);
    if (!fast)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > PDT_MAX_DEVICES) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "at most %d logical devices per physical device",
                     PDT_MAX_DEVICES);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned long long x = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (x == (unsigned long long)-1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return NULL;
        }
        limits[i] = x;
    }
    Py_DECREF(fast);
    pdt_status st = pdt_set_logical_devices(kind, physical, (int)n, limits);
    return st == PDT_OK ? Py_NewRef(Py_None) : pdt_raise(S, st);
}

static PyObject *c_get_logical(PyObject *m, PyObject *args)
{
    (void)m;
    PyObject *kind_obj;
    int kind, physical, n;
    uint64_t limits[PDT_MAX_DEVICES];
    if (!PyArg_ParseTuple(args, "Oi:_get_logical_devices", &kind_obj, &physical) ||
        parse_kind(kind_obj, &kind) < 0)
        return NULL;
    pdt_get_logical_devices(kind, physical, &n, limits);
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *x = PyLong_FromUnsignedLongLong(limits[i]);
        if (!x) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, x);
    }
    return list;
}

static PyObject *c_initialized(PyObject *m, PyObject *unused)
{
    (void)m, (void)unused;
    return PyBool_FromLong(pdt_runtime_initialized());
}

/* _cpu_simd_level(name=None) -> (level in use, (supported levels)); with a
 * name, switches first (Note [CPU dispatch levels] in csrc/cpu/cpu_simd.h). */
static PyObject *c_cpu_simd_level(PyObject *m, PyObject *args)
{
    (void)m;
    const char *name = NULL;
    char buf[64];
    if (!PyArg_ParseTuple(args, "|z:_cpu_simd_level", &name))
        return NULL;
    const char *now = pdt_backend_simd_level(PDT_CPU, buf, sizeof buf);
    if (name && pdt_backend_set_simd_level(PDT_CPU, name) < 0) {
        PyErr_Format(PyExc_ValueError,
                     "CPU level '%s' is unknown or not supported by this processor (supported: %s)",
                     name, buf);
        return NULL;
    }
    now = pdt_backend_simd_level(PDT_CPU, buf, sizeof buf);
    PyObject *supported = PyUnicode_FromString(buf), *sep = PyUnicode_FromString(",");
    PyObject *parts = supported && sep ? PyUnicode_Split(supported, sep, -1) : NULL;
    Py_XDECREF(supported);
    Py_XDECREF(sep);
    if (!parts)
        return NULL;
    PyObject *r = Py_BuildValue("(sN)", now ? now : "none", PySequence_Tuple(parts));
    Py_DECREF(parts);
    return r;
}

static PyObject *c_set_soft_placement(PyObject *m, PyObject *on)
{
    (void)m;
    int v = PyObject_IsTrue(on);
    if (v < 0)
        return NULL;
    pdt_set_soft_placement(v);
    Py_RETURN_NONE;
}

static PyObject *c_soft_placement(PyObject *m, PyObject *unused)
{
    (void)m, (void)unused;
    return PyBool_FromLong(pdt_soft_placement());
}

PyMethodDef pdt_config_functions[] = {
    {"_set_log_device_placement", c_set_log_device_placement, METH_O,
     "_set_log_device_placement(logger or None)"},
    {"_physical_device_count", c_physical_count, METH_O, NULL},
    {"_logical_device_map", c_logical_map, METH_O, "physical index of each logical device"},
    {"_get_visible_devices", c_get_visible, METH_O, NULL},
    {"_set_visible_devices", c_set_visible, METH_VARARGS, NULL},
    {"_get_logical_devices", c_get_logical, METH_VARARGS, NULL},
    {"_set_logical_devices", c_set_logical, METH_VARARGS, NULL},
    {"_initialized", c_initialized, METH_NOARGS, NULL},
    {"_cpu_simd_level", c_cpu_simd_level, METH_VARARGS, NULL},
    {"_set_soft_device_placement", c_set_soft_placement, METH_O, NULL},
    {"_soft_device_placement", c_soft_placement, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};
