/* tensor_subscript.c - t[...] and t[...] = value: Tensor's subscript slots, and the
 * private functions _basic_getitem, _basic_setitem and _set_index_hooks.
 *
 * Basic indexing here: ints, slices (negative steps too), None, Ellipsis and tuples of
 * them, always giving a view (built by the core's pdt_index_view, pdt_view.h).  Some
 * advanced keys have a path in C (Note [indexing's fast keys]); the others, bool, list
 * and tensor indices (NumPy's advanced indexing), go to the hooks that
 * pydevtensor/_ops_index installs. */
#include "args.h"
#include "pdt_view.h"
#include "wide_ints.h"

#define MAX_INDEX_ITEMS (2 * PDT_MAX_DIMS + 1)

static int advanced_index(PyObject *obj)
{
    PyErr_Format(PyExc_IndexError,
                 "a %.100s cannot be an index: indices are ints, slices, None and ... (basic "
                 "indexing, which gives a view), or integer or bool tensors, lists, tuples "
                 "and ranges of ints (advanced indexing, which copies)",
                 Py_TYPE(obj)->tp_name);
    return -1;
}

/* an int key (or one with __index__) as *out; out of Py_ssize_t's range an IndexError */
static int int_key(PyObject *obj, pdt_index *out)
{
    Py_ssize_t i = PyNumber_AsSsize_t(obj, PyExc_IndexError);
    if (i == -1 && PyErr_Occurred())
        return -1;
    out->kind = PDT_INDEX_INT;
    out->i = i;
    return 0;
}

static int parse_index_item(pdt_state *S, PyObject *obj, pdt_index *out)
{
    memset(out, 0, sizeof *out);
    if (PyLong_CheckExact(obj)) /* the common key, x[0]: an int, never a bool */
        return int_key(obj, out);
    if (obj == Py_None) {
        out->kind = PDT_INDEX_NEWAXIS;
        return 0;
    }
    if (obj == Py_Ellipsis) {
        out->kind = PDT_INDEX_ELLIPSIS;
        return 0;
    }
    if (PySlice_Check(obj)) {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(obj, &start, &stop, &step) < 0)
            return -1;
        out->kind = PDT_INDEX_SLICE;
        out->start = start == PY_SSIZE_T_MIN   ? PDT_SLICE_MIN
                     : start == PY_SSIZE_T_MAX ? PDT_SLICE_MAX
                                               : (int64_t)start;
        out->stop = stop == PY_SSIZE_T_MIN   ? PDT_SLICE_MIN
                    : stop == PY_SSIZE_T_MAX ? PDT_SLICE_MAX
                                             : (int64_t)stop;
        out->step = step;
        return 0;
    }
    if (PyBool_Check(obj) || pdt_is_tensor(S, obj) ||
        (PySequence_Check(obj) && !PyUnicode_Check(obj) && !PyBytes_Check(obj)))
        return advanced_index(obj); /* lists, tuples inside the key, NumPy arrays */
    if (PyIndex_Check(obj))
        return int_key(obj, out);
    PyErr_Format(PyExc_IndexError,
                 "only integers, slices (`:`), ellipsis (`...`) and None are valid indices, got "
                 "%.100s",
                 Py_TYPE(obj)->tp_name);
    return -1;
}

/* self[key] as a view into *out. */
static int index_view(PyObject *self, PyObject *key, pdt_tensor *out)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    pdt_index items[MAX_INDEX_ITEMS];
    Py_ssize_t n = 1;
    if (!S)
        return -1;
    if (PyTuple_Check(key)) {
        n = PyTuple_GET_SIZE(key);
        if (n > MAX_INDEX_ITEMS) {
            char where[PDT_WHERE_LEN];
            PyErr_Format(PyExc_IndexError,
                         "too many indices (%zd) for a tensor of dimension %d (%s)", n,
                         pdt_tensor_of(self)->ndim,
                         pdt_tensor_where(pdt_tensor_of(self), where, sizeof where));
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            if (parse_index_item(S, PyTuple_GET_ITEM(key, i), &items[i]) < 0)
                return -1;
    } else if (parse_index_item(S, key, &items[0]) < 0) {
        return -1;
    }
    pdt_hold h;
    pdt_status st = pdt_index_view(pdt_held_self(&h, self), (int)n, items, out);
    pdt_hold_release(&h);
    return st == PDT_OK ? 0 : pdt_raise_int(S, st);
}

/* x[key] for a basic key: a view (recorded when x requires grad). */
static PyObject *basic_subscript(PyObject *self, PyObject *key)
{
    PDT_AUTOGRAD_HOOK("__getitem__", 1, self, &key, 1, NULL);
    pdt_tensor out;
    if (index_view(self, key, &out) < 0)
        return NULL;
    return pdt_view_result(self, PDT_OK, &out);
}

/* Note [indexing's fast keys]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * pydevtensor/_ops_getitem.py sorts indexing keys into basic ones (views) and advanced
 * ones (lists, bools, tensors and arrays as indices: copies).  It used to replace
 * Tensor.__getitem__ and __setitem__, so that even x[0] and x[::2] ran a Python
 * function that called this file's slot back through its wrapper (an argument tuple
 * each way): x[::2] of 1,000 floats took 294-429 ns against NumPy's 134-182.  Now the
 * slots stay these functions and take the keys that can only be basic themselves (an
 * int or a slice exactly, or a tuple of those, None and Ellipsis; bool, a subclass of
 * int, is an advanced index); any other key goes to the Python-level functions,
 * installed by _C._set_index_hooks, which come back for the basic keys through
 * _C._basic_getitem and _C._basic_setitem.  x[v] and x[:, ..., v] with an int64 vector
 * v are index_select along one dim, also taken here (vector_subscript).  The hooks
 * live in the module's state, so a tensor of a module imported before a re-import
 * keeps its own module's indexing. */
static int basic_item(PyObject *k)
{
    return PyLong_CheckExact(k) || PySlice_Check(k) || k == Py_None || k == Py_Ellipsis;
}

static int fast_key(PyObject *key)
{
    if (basic_item(key))
        return 1;
    if (!PyTuple_CheckExact(key))
        return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(key); i++)
        if (!basic_item(PyTuple_GET_ITEM(key, i)))
            return 0;
    return 1;
}

/* The hook of self's module for key (a new reference), or NULL (none: the basic path). */
static PyObject *index_hook(PyObject *self, PyObject *key, int set)
{
    if (fast_key(key))
        return NULL;
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    PyObject *hook = S ? (set ? S->setitem_hook : S->getitem_hook) : NULL;
    return Py_XNewRef(hook); /* held: the call may install others */
}

/* x[v] and x[:, ..., v] (full slices, then one contiguous 1-d int64 Tensor on x's
 * device; x not requiring grad): index_select along that dim, without the hook
 * (x[:, v] of a 31 x 31 float32 matrix, 15 indices: 2.17 us through the hook,
 * NumPy 1.49).  NULL with no exception set for any other key, and when an index
 * is out of range: the hook's general path says so in indexing's words. */
static PyObject *vector_subscript(PyObject *self, PyObject *key)
{
    PyObject *v = key;
    Py_ssize_t pos = 0;
    if (PyTuple_CheckExact(key)) {
        pos = PyTuple_GET_SIZE(key) - 1;
        if (pos < 0)
            return NULL;
        for (Py_ssize_t i = 0; i < pos; i++) {
            PySliceObject *k = (PySliceObject *)PyTuple_GET_ITEM(key, i);
            if (!PySlice_Check(k) || k->start != Py_None || k->stop != Py_None ||
                k->step != Py_None)
                return NULL;
        }
        v = PyTuple_GET_ITEM(key, pos);
    }
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    /* self's own flag: pdt_arg_requires_grad knows only the newest module's type */
    if (!S || !Py_IS_TYPE(v, S->tensor_type) ||
        pdt_tensor_object_requires_grad((PdtTensorObject *)self))
        return NULL;
    const pdt_tensor *x = pdt_tensor_of(self), *ix = pdt_tensor_of(v);
    if (pos >= x->ndim || !pdt_device_eq(x->device, ix->device) || !pdt_index_is_vector(ix))
        return NULL;
    pdt_tensor out;
    pdt_status st = pdt_index_select_new("index", x, (int)pos, ix, 1, &out);
    if (st == PDT_OK)
        return pdt_tensor_wrap_new(S, &out);
    return st == PDT_ERR_INDEX ? NULL : pdt_raise(S, st);
}

/* x[mask]: a bool Tensor over x's leading dims, both contiguous on the CPU, x not
 * requiring grad (Note [masks in C] in tensor_index.c).  NULL with no exception set for
 * any other key. */
static PyObject *mask_subscript(PyObject *self, PyObject *key)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    if (!S || !Py_IS_TYPE(key, S->tensor_type) ||
        pdt_tensor_object_requires_grad((PdtTensorObject *)self))
        return NULL;
    pdt_tensor out;
    pdt_status st = pdt_mask_rows_new(pdt_tensor_of(self), pdt_tensor_of(key), &out);
    if (st == PDT_OK)
        return pdt_tensor_wrap_new(S, &out);
    return st == PDT_ERR_UNSUPPORTED ? NULL : pdt_raise(S, st);
}

/* x[i, j, ...] (Note [coordinates in C] in tensor_coords.c), x not requiring grad. */
static PyObject *coords_subscript(PyObject *self, PyObject *key)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    if (!S || !PyTuple_CheckExact(key) || pdt_tensor_object_requires_grad((PdtTensorObject *)self))
        return NULL;
    return pdt_coords_subscript(S, self, key);
}

static PyObject *tensor_subscript(PyObject *self, PyObject *key)
{
    if (!fast_key(key)) {
        PyObject *r = vector_subscript(self, key);
        if (!r && !PyErr_Occurred())
            r = mask_subscript(self, key);
        if (!r && !PyErr_Occurred())
            r = coords_subscript(self, key);
        if (r || PyErr_Occurred())
            return r;
    }
    PyObject *hook = index_hook(self, key, 0);
    if (!hook)
        return basic_subscript(self, key);
    PyObject *args[2] = {self, key};
    PyObject *r = PyObject_Vectorcall(hook, args, 2, NULL);
    Py_DECREF(hook);
    return r;
}

/* dst = value: a Tensor on dst's device, broadcast to dst's shape, copied
 * first if its memory meets dst's (by address: from_numpy twice of one array
 * gives two storages of the same memory). */
static int assign_tensor(pdt_state *S, const pdt_tensor *dst, const pdt_tensor *value)
{
    pdt_hold h = {0}; /* Note [the GIL and storages]: the core notes the op (Python) */
    dst = pdt_hold_view(&h, dst), value = pdt_hold_view(&h, value);
    const pdt_tensor *ts[2] = {dst, value};
    static const char *const names[2] = {"self", "value"};
    pdt_device device;
    pdt_tensor src = {0}, own = {0};
    pdt_status st = pdt_same_device("setitem", 2, ts, names, &device);
    if (st == PDT_OK)
        st = pdt_expand("setitem", value, dst->ndim, dst->shape, &src);
    if (st == PDT_OK && pdt_tensor_spans_overlap(value, dst)) { /* by address, not storage */
        st = pdt_copy_to_new(value, value->device, value->dtype, 0, 0, &own);
        pdt_tensor_release(&src);
        if (st == PDT_OK)
            st = pdt_expand("setitem", &own, dst->ndim, dst->shape, &src);
    }
    if (st == PDT_OK) {
        if (pdt_tensor_numel(dst) > PDT_GIL_RELEASE_NUMEL) {
            Py_BEGIN_ALLOW_THREADS
            st = pdt_copy(dst, &src, 0);
            Py_END_ALLOW_THREADS
        } else {
            st = pdt_copy(dst, &src, 0);
        }
    }
    pdt_tensor_release(&src);
    pdt_tensor_release(&own);
    pdt_hold_release(&h);
    return st == PDT_OK ? 0 : pdt_raise_int(S, st);
}

static int basic_ass_subscript(PyObject *self, PyObject *key, PyObject *value)
{
    PyObject *kv[2] = {key, value};
    if (value && pdt_autograd_wanted(self, kv, 2, NULL)) {
        PyObject *r = pdt_autograd_call("__setitem__", 1, self, kv, 2, NULL);
        Py_XDECREF(r);
        return r ? 0 : -1;
    }
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    if (!S)
        return -1;
    if (!value) {
        PyErr_SetString(PyExc_TypeError, "Tensor does not support item deletion");
        return -1;
    }
    pdt_scalar scalar;
    int is_tensor = pdt_is_tensor(S, value);
    if (!is_tensor &&
        (PySequence_Check(value) || !PyNumber_Check(value) || PyComplex_Check(value))) {
        PyErr_Format(PyExc_TypeError,
                     "t[index] = value: value must be a Python number or a Tensor on the same "
                     "device, got %.100s; make it a tensor with pydevtensor.tensor(value, "
                     "device=t.device)",
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    if (!is_tensor &&
        pdt_parse_number_into(value, "t[index] = value", pdt_tensor_of(self), &scalar) < 0)
        return -1;
    pdt_tensor dst;
    if (index_view(self, key, &dst) < 0)
        return -1;
    if (!is_tensor && pdt_number_refused(S, "setitem", scalar, pdt_tensor_of(self)) < 0) {
        pdt_tensor_release(&dst); /* named with x's shape, not the view's */
        return -1;
    }
    int rc;
    if (is_tensor) {
        rc = assign_tensor(S, &dst, pdt_tensor_of(value));
    } else {
        pdt_status st;
        if (pdt_tensor_numel(&dst) > PDT_GIL_RELEASE_NUMEL) {
            Py_BEGIN_ALLOW_THREADS
            st = pdt_fill(&dst, scalar);
            Py_END_ALLOW_THREADS
        } else {
            st = pdt_fill(&dst, scalar);
        }
        rc = st == PDT_OK ? 0 : pdt_raise_int(S, st);
    }
    pdt_tensor_release(&dst);
    if (rc == 0)
        pdt_bump_version(self); /* Note [version counter] */
    return rc;
}

/* ------------------------------------------------------------- tables */

static int tensor_ass_subscript(PyObject *self, PyObject *key, PyObject *value)
{
    pdt_state *S = value ? pdt_state_of_type(Py_TYPE(self)) : NULL;
    int done = S && !fast_key(key) ? pdt_setitem_fast(S, self, key, value) : 0;
    if (done)
        return done > 0 ? 0 : -1;
    PyErr_Clear(); /* pdt_state_of_type's, for a type of another module: the hook's path */
    PyObject *hook = value ? index_hook(self, key, 1) : NULL;
    if (!hook)
        return basic_ass_subscript(self, key, value);
    PyObject *args[3] = {self, key, value};
    PyObject *r = PyObject_Vectorcall(hook, args, 3, NULL);
    Py_DECREF(hook);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* _basic_getitem(x, key), _basic_setitem(x, key, value): the slots' basic paths, for
 * the Python-level indexing (Note [indexing's fast keys]). */
static int nargs_is(Py_ssize_t nargs, Py_ssize_t want, const char *fname)
{
    if (nargs == want)
        return 0;
    PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", fname, want, nargs);
    return -1;
}

static int tensor_first(PyObject *module, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want,
                        const char *fname)
{
    if (nargs_is(nargs, want, fname) < 0)
        return -1;
    if (pdt_is_tensor(pdt_state_of_module(module), args[0]))
        return 0;
    PyErr_Format(PyExc_TypeError, "%s(): expected a Tensor, got %.100s", fname,
                 Py_TYPE(args[0])->tp_name);
    return -1;
}

static PyObject *f_basic_getitem(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (tensor_first(module, args, nargs, 2, "_basic_getitem") < 0)
        return NULL;
    return basic_subscript(args[0], args[1]);
}

static PyObject *f_basic_setitem(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (tensor_first(module, args, nargs, 3, "_basic_setitem") < 0 ||
        pdt_refuse_unrecorded_write("_basic_setitem", args[0], args[2]) < 0)
        return NULL;
    if (basic_ass_subscript(args[0], args[1], args[2]) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *f_set_index_hooks(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs_is(nargs, 2, "_set_index_hooks") < 0)
        return NULL;
    if (!PyCallable_Check(args[0]) || !PyCallable_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError,
                        "_set_index_hooks(getitem, setitem): both must be callable");
        return NULL;
    }
    pdt_state *S = pdt_state_of_module(module);
    Py_XSETREF(S->getitem_hook, Py_NewRef(args[0]));
    Py_XSETREF(S->setitem_hook, Py_NewRef(args[1]));
    Py_RETURN_NONE;
}

PyMethodDef pdt_subscript_functions[] = {
    {"_basic_getitem", (PyCFunction)(void (*)(void))f_basic_getitem, METH_FASTCALL, NULL},
    {"_basic_setitem", (PyCFunction)(void (*)(void))f_basic_setitem, METH_FASTCALL, NULL},
    {"_set_index_hooks", (PyCFunction)(void (*)(void))f_set_index_hooks, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};

PyType_Slot pdt_subscript_slots[] = {
    {Py_mp_subscript, tensor_subscript},
    {Py_mp_ass_subscript, tensor_ass_subscript},
    {0, NULL},
};
