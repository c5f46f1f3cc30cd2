/* autograd.c - the C side of autograd: the thread-local grad mode, the
 * Tensor's autograd fields (requires_grad, grad, grad_fn, is_leaf, _version)
 * and methods (requires_grad_, detach, detach_), and the call into the
 * Python recorder that the op bindings make through PDT_AUTOGRAD_HOOK.
 *
 * Note [where the graph is recorded]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The graph is recorded in Python (pydevtensor/autograd/), entered from C.
 * Every differentiable op binding starts with PDT_AUTOGRAD_HOOK: a loop over
 * its arguments reading one int field of each Tensor (requires_grad), and,
 * only when one is set, a read of the thread-local grad mode.  When both say
 * yes the binding hands the whole call to the Python dispatcher
 * (pydevtensor/autograd/dispatch.py), which runs the same binding again with
 * grad mode off and records a Node (pydevtensor/autograd/derivatives.py: one
 * class per op, the op's derivative).  The common case of that dispatcher now
 * runs in C (Note [recording in C], autograd_record.c); the Node classes stay
 * Python.  An op on tensors that require no grad
 * thus costs a few loads more than before, and the recording and the
 * backward formulas stay readable Python using the package's own ops, so they
 * run on every device.  The backward GEMMs go through matmul with transposed
 * views, which the core maps to BLAS/cuBLAS transpose flags.
 *
 * Measured (issue 16; wall-clock timings on the shared 2-core machine vary by
 * +-50% from run to run, so the no-grad cost was counted in instructions with
 * callgrind, 20000 calls of `a + b` on 4x4 float32 tensors, inclusive cost of
 * nb_add and of tensor_dealloc per call, this branch's parent e71270f vs this
 * branch):
 *     nb_add          2487 -> 2470 instructions (the hook: within layout noise)
 *     tensor_dealloc   383 ->  398 instructions (three Py_CLEARs)
 * `m1 @ m2` (16x16) and `a.sum()` (4x4) timed min-of-25 at the same speed
 * within that noise.  An op on a tensor that requires grad is recorded in
 * Python: about 7-10 us per op here then (a + b 4x4: ~0.5 us without; with
 * the C common case, 2.0-2.2 us for a * b against PyTorch's 1.85), which
 * benchmarks/bench_autograd.py reports as "op overhead"; a training step of an
 * MLP 784-256-10 at batch 64 is dominated by its GEMMs all the same (same
 * benchmark file).  A C recorder would cut those microseconds; the Python one
 * was chosen for the time it takes to write and to extend (issue 17's ops add
 * one class each). */
#include "args.h"
#include "docstrings_autograd.h"

PyObject *pdt_autograd_dispatcher;
PyTypeObject *pdt_autograd_tensor_type;
static _Thread_local int grad_disabled;

int pdt_grad_enabled(void) { return !grad_disabled; }

int pdt_grad_set(int on)
{
    int was = !grad_disabled;
    grad_disabled = !on;
    return was;
}

void pdt_autograd_set_grad_fn(PdtTensorObject *o, PyObject *node, int nr)
{
    Py_XSETREF(o->grad_fn, Py_XNewRef(node));
    o->requires_grad = node != NULL;
    o->output_nr = nr;
    if (o->base && node) { /* the view's current place, recorded (autograd_view.c) */
        o->view_version = pdt_tensor_version(&o->t);
        o->view_flags &= ~PDT_VIEW_NO_GRAD; /* the recorder ran its forward in no_grad */
    }
}

void pdt_autograd_clear(PdtTensorObject *o)
{
    Py_CLEAR(o->grad);
    Py_CLEAR(o->grad_fn);
    Py_CLEAR(o->accumulator);
    Py_CLEAR(o->leaf_hooks);
    Py_CLEAR(o->base);
}

PyObject *pdt_autograd_call(const char *name, int method, PyObject *self, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames)
{
    int handled;
    PyObject *fast = pdt_autograd_record(name, method, self, args, nargs, kwnames, &handled);
    if (handled)
        return fast;
    Py_ssize_t first = self ? 1 : 0, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *pos = PyTuple_New(nargs + first), *kw = NULL, *result = NULL, *str = NULL;
    if (!pos)
        return NULL;
    if (self)
        PyTuple_SET_ITEM(pos, 0, Py_NewRef(self));
    for (Py_ssize_t i = 0; i < nargs; i++)
        PyTuple_SET_ITEM(pos, first + i, Py_NewRef(args[i]));
    if (nkw && !(kw = PyDict_New()))
        goto done;
    for (Py_ssize_t i = 0; i < nkw; i++)
        if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) < 0)
            goto done;
    if (!(str = PyUnicode_InternFromString(name)))
        goto done;
    PyObject *call[4] = {str, method ? Py_True : Py_False, pos, kw ? kw : Py_None};
    PyObject *dispatcher = Py_NewRef(pdt_autograd_dispatcher); /* held: it may be replaced */
    result = PyObject_Vectorcall(dispatcher, call, 4, NULL);
    Py_DECREF(dispatcher);
done:
    Py_XDECREF(str);
    Py_XDECREF(kw);
    Py_DECREF(pos);
    return result;
}

int pdt_set_requires_grad(PyObject *t, int flag, const char *fname)
{
    PdtTensorObject *o = (PdtTensorObject *)t;
    if (flag && !pdt_dtype_is_floating(o->t.dtype)) {
        PyErr_Format(PyExc_RuntimeError,
                     "%s: only Tensors of floating point dtype can require gradients (got %s)",
                     fname, pdt_dtype_name(o->t.dtype));
        return -1;
    }
    o->requires_grad = flag;
    return 0;
}

PyObject *pdt_finish_requires_grad(PyObject *r, PyObject *const *kwvalues, PyObject *kwnames,
                                   const char *fname)
{
    Py_ssize_t n = r && kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, i), "requires_grad"))
            continue;
        int flag = PyObject_IsTrue(kwvalues[i]);
        char where[64];
        PyOS_snprintf(where, sizeof where, "%s()", fname);
        if (flag < 0 || (flag && pdt_set_requires_grad(r, 1, where) < 0))
            Py_CLEAR(r);
    }
    return r;
}

/* ---- grad mode ---- */

static PyObject *f_is_grad_enabled(PyObject *module, PyObject *unused)
{
    (void)module, (void)unused;
    return PyBool_FromLong(!grad_disabled);
}

/* _set_grad_enabled(mode) -> the previous mode (this thread only). */
static PyObject *f_set_grad_enabled(PyObject *module, PyObject *mode)
{
    (void)module;
    int on = PyObject_IsTrue(mode);
    if (on < 0)
        return NULL;
    int was = !grad_disabled;
    grad_disabled = !on;
    return PyBool_FromLong(was);
}

/* Note [the autograd globals]: the dispatcher and the tensor type that the hooks
 * test for are process-wide (the hooks must be cheap), and both are held.  They are
 * set together, here, by the pydevtensor package that imported this module instance:
 * a second instance of the extension (loaded again through importlib, or after
 * pydevtensor was dropped from sys.modules) neither breaks the package that installed
 * the dispatcher nor leaves a pointer to a type that its module's end freed. */
static PyObject *f_set_autograd_dispatcher(PyObject *module, PyObject *fn)
{
    pdt_state *S = pdt_state_of_module(module);
    if (!S)
        return NULL;
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "the autograd dispatcher must be callable");
        return NULL;
    }
    Py_XSETREF(pdt_autograd_dispatcher, Py_NewRef(fn));
    Py_XSETREF(pdt_autograd_tensor_type, (PyTypeObject *)Py_NewRef(S->tensor_type));
    /* a new dispatcher sees every call: the C recorder, which stands for the
     * old one's common case, is off until installed again (Note [recording in C]) */
    pdt_autograd_recorder_off();
    Py_RETURN_NONE;
}

PyMethodDef pdt_autograd_functions[] = {
    {"is_grad_enabled", f_is_grad_enabled, METH_NOARGS, doc_is_grad_enabled},
    {"_set_grad_enabled", f_set_grad_enabled, METH_O, NULL},
    {"_set_autograd_dispatcher", f_set_autograd_dispatcher, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

/* ---- attributes ---- */

static PyObject *get_requires_grad(PyObject *self, void *c)
{
    (void)c;
    if (pdt_view_refresh(self) < 0)
        return NULL;
    return PyBool_FromLong(((PdtTensorObject *)self)->requires_grad);
}

static const char non_leaf_msg[] =
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = "
    "var.detach().";

static int set_requires_grad(PyObject *self, PyObject *value, void *c)
{
    (void)c;
    PdtTensorObject *o = (PdtTensorObject *)self;
    if (!value || !PyBool_Check(value)) {
        PyErr_Format(PyExc_TypeError, "requires_grad must be a bool, got %.100s",
                     value ? Py_TYPE(value)->tp_name : "deletion");
        return -1;
    }
    if (o->grad_fn) {
        if (value == Py_True)
            return 0;
        PyErr_SetString(PyExc_RuntimeError, non_leaf_msg);
        return -1;
    }
    return pdt_set_requires_grad(self, value == Py_True, "requires_grad");
}

static PyObject *get_grad(PyObject *self, void *c)
{
    (void)c;
    PyObject *g = ((PdtTensorObject *)self)->grad;
    if (!g && ((PdtTensorObject *)self)->grad_fn) {
        /* PyTorch's warning: a non-leaf's .grad stays None unless it retains its
         * gradient (a leaf reached by mistake: a copy to another device is not one) */
        PyObject *r = PyObject_GetAttrString(self, "retains_grad");
        int retains = r ? PyObject_IsTrue(r) : -1;
        Py_XDECREF(r);
        if (retains < 0 ||
            (!retains &&
             PyErr_WarnEx(PyExc_UserWarning,
                          "The .grad attribute of a Tensor that is not a leaf Tensor is being "
                          "accessed. Its .grad attribute won't be populated during "
                          "autograd.backward(). If you indeed want the .grad field to be "
                          "populated for a non-leaf Tensor, use .retain_grad() on the non-leaf "
                          "Tensor. If you access the non-leaf Tensor by mistake, make sure you "
                          "access the leaf Tensor instead (a tensor moved to another device "
                          "with .to() is not a leaf: keep the moved one's leaf, or call "
                          ".detach().requires_grad_() on it).",
                          1) < 0))
            return NULL;
    }
    return Py_NewRef(g ? g : Py_None);
}

static int set_grad(PyObject *self, PyObject *value, void *c)
{
    (void)c;
    PdtTensorObject *o = (PdtTensorObject *)self;
    if (value && value != Py_None) {
        pdt_state *S = pdt_state_of_type(Py_TYPE(self));
        if (!S)
            return -1;
        if (!PyObject_TypeCheck(value, S->tensor_type)) {
            PyErr_Format(PyExc_TypeError,
                         "assigned grad expected to be a Tensor or None, got %.100s",
                         Py_TYPE(value)->tp_name);
            return -1;
        }
        const pdt_tensor *t = &o->t, *g = pdt_tensor_of(value);
        char a[64], b[64];
        if (!pdt_same_shape(t, g) || g->dtype != t->dtype || !pdt_device_eq(g->device, t->device)) {
            char da[32], db[32];
            pdt_device_str(t->device, da, sizeof da);
            pdt_device_str(g->device, db, sizeof db);
            PyErr_Format(PyExc_RuntimeError,
                         "assigned grad has data of a different size, type or device: the tensor "
                         "is %s %s on %s, the grad %s %s on %s",
                         pdt_shape_str(t->ndim, t->shape, a, sizeof a), pdt_dtype_name(t->dtype),
                         da, pdt_shape_str(g->ndim, g->shape, b, sizeof b),
                         pdt_dtype_name(g->dtype), db);
            return -1;
        }
    }
    Py_XSETREF(o->grad, value && value != Py_None ? Py_NewRef(value) : NULL);
    return 0;
}

static PyObject *get_grad_fn(PyObject *self, void *c)
{
    (void)c;
    if (pdt_view_refresh(self) < 0)
        return NULL;
    PyObject *f = ((PdtTensorObject *)self)->grad_fn;
    return Py_NewRef(f ? f : Py_None);
}

static PyObject *get_is_leaf(PyObject *self, void *c)
{
    (void)c;
    if (pdt_view_refresh(self) < 0)
        return NULL;
    return PyBool_FromLong(((PdtTensorObject *)self)->grad_fn == NULL);
}

static PyObject *get_version(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromLongLong(pdt_tensor_version(pdt_tensor_of(self)));
}

static PyObject *get_output_nr(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromLong(((PdtTensorObject *)self)->output_nr);
}

/* _accumulator and _leaf_hooks: object slots autograd's Python keeps on a tensor (a C
 * tensor has no __dict__); c is the slot's offset in PdtTensorObject. */
static PyObject *get_slot(PyObject *self, void *c)
{
    PyObject *a = *(PyObject **)((char *)self + (size_t)c);
    return Py_NewRef(a ? a : Py_None);
}

static int set_slot(PyObject *self, PyObject *value, void *c)
{
    Py_XSETREF(*(PyObject **)((char *)self + (size_t)c),
               value && value != Py_None ? Py_NewRef(value) : NULL);
    return 0;
}

PyGetSetDef pdt_autograd_getset[] = {
    {"requires_grad", get_requires_grad, set_requires_grad, doc_requires_grad, NULL},
    {"grad", get_grad, set_grad, doc_grad, NULL},
    {"grad_fn", get_grad_fn, NULL, doc_grad_fn, NULL},
    {"is_leaf", get_is_leaf, NULL, doc_is_leaf, NULL},
    {"_version", get_version, NULL, "writes in place to this tensor's storage so far", NULL},
    {"output_nr", get_output_nr, NULL, doc_output_nr, NULL},
    {"_accumulator", get_slot, set_slot, NULL, (void *)offsetof(PdtTensorObject, accumulator)},
    {"_leaf_hooks", get_slot, set_slot, NULL, (void *)offsetof(PdtTensorObject, leaf_hooks)},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- methods ---- */

static PyObject *t_requires_grad_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
    static const char *const names[] = {"requires_grad", NULL};
    PyObject *kw[1] = {NULL};
    int flag;
    if (pdt_parse_keywords("requires_grad_", args + nargs, kwnames, names, kw) < 0)
        return NULL;
    if (nargs > 1 || (nargs == 1 && kw[0])) {
        PyErr_SetString(PyExc_TypeError, "requires_grad_() takes one argument (requires_grad)");
        return NULL;
    }
    if (pdt_parse_bool(nargs ? args[0] : kw[0], 1, "requires_grad_", "requires_grad", &flag) < 0)
        return NULL;
    if (set_requires_grad(self, flag ? Py_True : Py_False, NULL) < 0)
        return NULL;
    return Py_NewRef(self);
}

/* detach(): a new Tensor sharing storage (and so the version counter), out of
 * the graph. */
static PyObject *t_detach(PyObject *self, PyObject *unused)
{
    (void)unused;
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    if (!S)
        return NULL;
    pdt_tensor view;
    pdt_tensor_share(&view, pdt_tensor_of(self));
    return pdt_tensor_wrap_new(S, &view);
}

static PyObject *t_detach_(PyObject *self, PyObject *unused)
{
    (void)unused;
    PdtTensorObject *o = (PdtTensorObject *)self;
    if (o->requires_grad) { /* a view in the graph: its base's graph would be cut too */
        PyObject *v = PyObject_CallMethod(self, "_is_view", NULL);
        int view = v ? PyObject_IsTrue(v) : -1;
        Py_XDECREF(v);
        if (view < 0)
            return NULL;
        if (view) {
            PyErr_SetString(PyExc_RuntimeError,
                            "Can't detach views in-place. Use detach() instead (a view of a "
                            "tensor that requires grad shares its base's place in the graph)");
            return NULL;
        }
    }
    Py_CLEAR(o->grad_fn);
    o->requires_grad = 0;
    o->output_nr = 0;
    return Py_NewRef(self);
}

/* _set_grad_fn(node, output_nr): the recorder marks a result (node None:
 * back to a leaf that requires no grad). */
static PyObject *t_set_grad_fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PdtTensorObject *o = (PdtTensorObject *)self;
    if (nargs != 2 || !PyLong_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "_set_grad_fn(node, output_nr)");
        return NULL;
    }
    int nr = (int)PyLong_AsLong(args[1]);
    if (nr == -1 && PyErr_Occurred())
        return NULL;
    pdt_autograd_set_grad_fn(o, args[0] == Py_None ? NULL : args[0], nr);
    return Py_NewRef(self);
}

static PyObject *t_bump_version(PyObject *self, PyObject *unused)
{
    (void)unused;
    pdt_bump_version(self);
    Py_RETURN_NONE;
}

PyMethodDef pdt_autograd_methods[] = {
    {"requires_grad_", FASTKW(t_requires_grad_), doc_requires_grad_},
    {"detach", t_detach, METH_NOARGS, doc_detach},
    {"detach_", t_detach_, METH_NOARGS, doc_detach_},
    {"_set_grad_fn", (PyCFunction)(void (*)(void))t_set_grad_fn, METH_FASTCALL, NULL},
    {"_bump_version", t_bump_version, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};
