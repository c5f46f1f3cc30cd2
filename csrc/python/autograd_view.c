/* autograd_view.c - which tensor a view was taken of (Tensor._base, _is_view()),
 * and the view's place in the graph after an in-place change of its storage.
 *
 * Note [views and their base]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A view op (view, reshape without a copy, transpose, permute, squeeze,
 * unsqueeze, basic indexing, expand, diagonal, and the Python ops built on them:
 * narrow, select, split, unbind, movedim, ...) marks its result with the tensor
 * it was first viewed from (PyTorch's _base: a view of a view has the first
 * base), the grad mode it was made in, and the version of the shared counter.
 * The autograd recorder (pydevtensor/autograd/dispatch.py) uses them as PyTorch
 * does:
 * - an in-place op on a view in grad mode gives the base a new place in the
 *   graph (CopySlices over the base's old place and the view's new value), so a
 *   base that required no grad joins the graph when a view of it is written
 *   with a value that requires grad;
 * - a view whose base requires grad and was written in place since the view's
 *   node was set (its counter moved past view_version) takes a new node, an
 *   AsStridedBackward0 of the base's current place, the first time it is looked
 *   at (pdt_view_refresh: grad_fn, requires_grad, is_leaf, the recorders'
 *   edges).  The op hooks let a view whose base requires grad through to the
 *   recorder (pdt_tensor_object_requires_grad), which refreshes it;
 * - views made in no_grad mode, or returned by ops with several view outputs
 *   (split, unbind, chunk), refuse in-place ops in grad mode, as PyTorch's do.
 * A tensor without a base costs the hooks one pointer test more. */
#include "args.h"
#include "pdt_module.h"
#include "pdt_view.h"

static PyObject *regenerator; /* dispatch.py's _regenerate_view(view), or NULL */

void pdt_mark_view(PyObject *view, PyObject *src)
{
    PdtTensorObject *v = (PdtTensorObject *)view, *s = (PdtTensorObject *)src;
    if (!view || v == s || v->t.storage != s->t.storage || v->t.counter != s->t.counter)
        return;
    Py_XSETREF(v->base, Py_NewRef(s->base ? s->base : src));
    v->view_version = pdt_tensor_version(&v->t);
    v->view_flags = (s->base ? s->view_flags : 0) | (pdt_grad_enabled() ? 0 : PDT_VIEW_NO_GRAD);
}

int pdt_view_refresh(PyObject *t)
{
    PdtTensorObject *o = (PdtTensorObject *)t;
    if (!o->base || !((PdtTensorObject *)o->base)->requires_grad || !regenerator ||
        (o->view_flags & PDT_VIEW_NO_GRAD) || pdt_tensor_version(&o->t) == o->view_version)
        return 0;
    int64_t was = o->view_version;
    o->view_version = pdt_tensor_version(&o->t); /* first: the regenerator reads grad_fn */
    PyObject *fn = Py_NewRef(regenerator);       /* the call may replace it */
    PyObject *r = PyObject_CallOneArg(fn, t);
    Py_DECREF(fn);
    if (!r) {
        o->view_version = was;
        return -1;
    }
    Py_DECREF(r);
    return 0;
}

int pdt_refuse_unrecorded_write(const char *fname, PyObject *dst, PyObject *value)
{
    if (!pdt_grad_enabled() || !pdt_autograd_tensor_type)
        return 0;
    int d = pdt_arg_requires_grad(dst), v = pdt_arg_requires_grad(value);
    if (!d && !v)
        return 0;
    const pdt_tensor *t = pdt_tensor_of(dst);
    char dev[32], shape[64];
    pdt_device_str(t->device, dev, sizeof dev);
    PyErr_Format(PyExc_RuntimeError,
                 "%s(): a private kernel that writes in place without recording the gradient, "
                 "called with grad mode on and %s that requires grad (the destination is %s %s "
                 "on %s): run it under no_grad(), or use the recorded op (x[index] = v, "
                 "index_add, index_put)",
                 fname, d ? "a destination" : "a value", pdt_dtype_name(t->dtype),
                 pdt_shape_str(t->ndim, t->shape, shape, sizeof shape), dev);
    return -1;
}

static PyObject *get_base(PyObject *self, void *c)
{
    (void)c;
    PyObject *b = ((PdtTensorObject *)self)->base;
    return Py_NewRef(b ? b : Py_None);
}

static PyObject *get_view_flags(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromLong(((PdtTensorObject *)self)->view_flags);
}

PyGetSetDef pdt_autograd_view_getset[] = {
    {"_base", get_base, NULL,
     "the tensor this view was taken of (the first one, for a view of a view), or None", NULL},
    {"_view_flags", get_view_flags, NULL,
     "1: made in no_grad mode, 2: one of several views an op returned", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *t_is_view(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(((PdtTensorObject *)self)->base != NULL);
}

/* _mark_multi_output_view(): split/unbind/chunk mark each of their views. */
static PyObject *t_mark_multi_output_view(PyObject *self, PyObject *unused)
{
    (void)unused;
    PdtTensorObject *o = (PdtTensorObject *)self;
    if (o->base)
        o->view_flags |= PDT_VIEW_MULTI_OUTPUT;
    return Py_NewRef(self);
}

/* _views_along(x, dim[, sizes]) -> the x.shape[dim] slices of x along dim, views with dim
 * removed (unbind's and iteration's pieces), or with sizes (a list of ints adding up to
 * x.shape[dim]) the pieces of those sizes along dim (split's); each marked a multi-output
 * view.  dim in range, x not 0-d and the sizes checked by the callers.  Made in one call
 * (a view through x[i] a piece, each noted for placement logging, took 2.3 times NumPy's
 * list(x) for three rows; split(x, 1) of 1,000 elements 626 us). */
static PyObject *f_views_along(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = pdt_state_of_module(module);
    int64_t dim;
    if ((nargs != 2 && nargs != 3) || !PyObject_TypeCheck(args[0], S->tensor_type) ||
        (nargs == 3 && !PyList_CheckExact(args[2])) ||
        pdt_parse_int64(args[1], "_views_along(): dim", &dim) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "_views_along(x, dim[, sizes: list of ints])");
        return NULL;
    }
    /* a tuple of the sizes: nothing the Python noting the op runs can change it */
    PyObject *sizes = nargs == 3 ? PyList_AsTuple(args[2]) : NULL;
    if (nargs == 3 && !sizes)
        return NULL;
    pdt_hold h; /* Note [the GIL and storages]: noting the op may run Python */
    h.n = 0;
    const pdt_tensor *x = pdt_hold_view(&h, pdt_tensor_of(args[0]));
    int ok = dim >= 0 && dim < x->ndim;
    int64_t left = ok ? x->shape[dim] : 0;
    const int64_t n = sizes ? (int64_t)PyTuple_GET_SIZE(sizes) : left;
    for (int64_t i = 0; ok && sizes && i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(sizes, i);
        const int64_t s = PyLong_CheckExact(item) ? PyLong_AsLongLong(item) : -1;
        ok = s >= 0 && s <= left;
        left -= ok ? s : 0;
    }
    if (!ok || (sizes && left != 0)) {
        PyErr_Clear(); /* an int past 64 bits: the sizes are refused below */
        PyErr_Format(PyExc_IndexError,
                     "_views_along(): dim %lld, or sizes (ints adding up to the dim's size), "
                     "for a tensor of %d dims",
                     (long long)dim, x->ndim);
        pdt_hold_release(&h);
        Py_XDECREF(sizes);
        return NULL;
    }
    pdt_note_op(sizes ? "split" : "unbind", x->device);
    PyObject *out = PyTuple_New((Py_ssize_t)n);
    for (int64_t i = 0, at = 0; out && i < n; i++) {
        pdt_tensor piece;
        if (sizes) {
            const int64_t len = PyLong_AsLongLong(PyTuple_GET_ITEM(sizes, i));
            pdt_narrow_view(x, (int)dim, at, len, &piece);
            at += len;
        } else {
            pdt_slice_view(x, (int)dim, i, &piece);
        }
        PyObject *r = pdt_tensor_wrap_new(S, &piece);
        if (!r) {
            Py_CLEAR(out);
            break;
        }
        pdt_mark_view(r, args[0]);
        if (((PdtTensorObject *)r)->base)
            ((PdtTensorObject *)r)->view_flags |= PDT_VIEW_MULTI_OUTPUT;
        PyTuple_SET_ITEM(out, (Py_ssize_t)i, r);
    }
    pdt_hold_release(&h);
    Py_XDECREF(sizes);
    return out;
}

/* _view_synced(): the view's node is its base's current place (the recorder set it). */
static PyObject *t_view_synced(PyObject *self, PyObject *unused)
{
    (void)unused;
    PdtTensorObject *o = (PdtTensorObject *)self;
    o->view_version = pdt_tensor_version(&o->t);
    Py_RETURN_NONE;
}

/* _unshared(): nothing but this tensor reaches its storage (a base that only this
 * view holds does not count): the engine may adopt it as a leaf's grad. */
static PyObject *t_unshared(PyObject *self, PyObject *unused)
{
    (void)unused;
    PdtTensorObject *o = (PdtTensorObject *)self;
    long n = pdt_tensor_storage_refcount(&o->t);
    if (o->base && Py_REFCNT(o->base) == 1 &&
        ((PdtTensorObject *)o->base)->t.storage == o->t.storage)
        n--;
    return PyBool_FromLong(n == 1);
}

PyMethodDef pdt_autograd_view_methods[] = {
    {"_unshared", t_unshared, METH_NOARGS, NULL},
    {"_is_view", t_is_view, METH_NOARGS,
     "_is_view() -> bool\n\nTrue when this tensor is a view of another one (see _base)."},
    {"_mark_multi_output_view", t_mark_multi_output_view, METH_NOARGS, NULL},
    {"_view_synced", t_view_synced, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* _set_view_regenerator(fn): fn(view) gives a stale view its new node. */
static PyObject *f_set_view_regenerator(PyObject *module, PyObject *fn)
{
    (void)module;
    if (fn != Py_None && !PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "the view regenerator must be callable or None");
        return NULL;
    }
    Py_XSETREF(regenerator, fn == Py_None ? NULL : Py_NewRef(fn));
    Py_RETURN_NONE;
}

/* A tensor a Node keeps for its backward, when it is a view in the graph: an alias
 * (the same storage, version counter, grad_fn and output_nr) without the reference to
 * the base, which would make a cycle (collected now that tensors are the collector's,
 * Note [tensors in cycles], but only at the next collection: freed at once without it)
 * when the base's later node leads back to this Node: `h[i] = f(W @ h[i-1])`.
 * A view out of the graph is aliased too (its base may join the graph later); a leaf
 * view that requires grad is kept as it is (its gradient goes to it). */
static PyObject *saved_alias(PyObject *t)
{
    PdtTensorObject *o = (PdtTensorObject *)t;
    if (pdt_view_refresh(t) < 0) /* its node now, not a stale one */
        return NULL;
    if (!o->base || (!o->grad_fn && o->requires_grad))
        return Py_NewRef(t);
    pdt_state *S = pdt_state_of_type(Py_TYPE(t));
    if (!S)
        return NULL;
    pdt_tensor view;
    pdt_tensor_share(&view, &o->t);
    PdtTensorObject *a = (PdtTensorObject *)pdt_tensor_wrap_new(S, &view);
    if (a)
        pdt_autograd_set_grad_fn(a, o->grad_fn, o->output_nr);
    return (PyObject *)a;
}

/* _saved_aliases(tensors): the tuple with each view in the graph replaced by its
 * saved_alias (the same tuple when there is none). */
static PyObject *f_saved_aliases(PyObject *module, PyObject *tensors)
{
    (void)module;
    if (!PyTuple_Check(tensors)) {
        PyErr_SetString(PyExc_TypeError, "_saved_aliases() takes a tuple");
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(tensors), i = 0;
    for (; i < n; i++) {
        PyObject *t = PyTuple_GET_ITEM(tensors, i);
        if (pdt_autograd_tensor_type && PyObject_TypeCheck(t, pdt_autograd_tensor_type) &&
            ((PdtTensorObject *)t)->base)
            break;
    }
    if (i == n)
        return Py_NewRef(tensors);
    PyObject *out = PyTuple_New(n);
    if (!out)
        return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *t = PyTuple_GET_ITEM(tensors, k);
        PyObject *r = pdt_autograd_tensor_type && PyObject_TypeCheck(t, pdt_autograd_tensor_type)
                          ? saved_alias(t)
                          : Py_NewRef(t);
        if (!r) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, k, r);
    }
    return out;
}

PyMethodDef pdt_autograd_view_functions[] = {
    {"_saved_aliases", f_saved_aliases, METH_O, NULL},
    {"_set_view_regenerator", f_set_view_regenerator, METH_O, NULL},
    {"_views_along", (PyCFunction)(void (*)(void))f_views_along, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};
