/* tensor_view.c - views and indexing: reshape/view, transpose/t()/T/permute,
 * squeeze/unsqueeze, flatten, t[...] and t[...] = value, as methods and as
 * functions (pydevtensor.reshape(x, shape), ...).  The core (pdt_view.h)
 * validates and builds every view; here arguments become dims and indices.
 *
 * Indexing is basic indexing only: ints, slices (negative steps too), None,
 * Ellipsis and tuples of them, always giving a view.  A bool, a list or a
 * tensor as an index (NumPy's advanced indexing) raises NotImplementedError.
 */
#include "args.h"
#include "docstrings_view.h"
#include "pdt_view.h"
#include "wide_ints.h"

/* Up to n ints by position or by name (names[i]) into vals (defaults preset);
 * the first `required` must be given. */
static int int_args(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                    const char *const *names, int n, int required, int64_t *vals)
{
    PyObject *kw[4] = {NULL, NULL, NULL, NULL};
    if (pdt_parse_keywords(fname, args + nargs, kwnames, names, kw) < 0)
        return -1;
    if (nargs > n) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d argument%s (%zd given)", fname, n,
                     n == 1 ? "" : "s", nargs);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        PyObject *obj = i < nargs ? args[i] : kw[i];
        if (i < nargs && kw[i]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                         names[i]);
            return -1;
        }
        if (!obj && i < required) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fname, names[i]);
            return -1;
        }
        if (!obj || pdt_exact_int64(obj, &vals[i]))
            continue;
        char what[80];
        PyOS_snprintf(what, sizeof what, "%s(): %s", fname, names[i]);
        if (pdt_parse_int64(obj, what, &vals[i]) < 0)
            return -1;
    }
    return 0;
}

/* The Python result of a core view call. */
static PyObject *view_result(PyObject *self, pdt_status st, pdt_tensor *out)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    if (!S) {
        if (st == PDT_OK)
            pdt_tensor_release(out);
        return NULL;
    }
    if (st != PDT_OK)
        return pdt_raise(S, st);
    PyObject *r = pdt_tensor_wrap_new(S, out);
    pdt_mark_view(r, self); /* Note [views and their base] (a reshape's copy is none) */
    return r;
}

/* ---------------------------------------------------------- new shapes */

/* shape as varargs, one tuple/list, or shape=. */
static int shape_args(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                      int *ndim, int64_t *shape)
{
    static const char *const names[] = {"shape", NULL};
    PyObject *kw[1] = {NULL};
    if (pdt_parse_keywords(fname, args + nargs, kwnames, names, kw) < 0)
        return -1;
    if (kw[0] && nargs > 0) {
        PyErr_Format(PyExc_TypeError, "%s() got the shape twice", fname);
        return -1;
    }
    if (kw[0])
        return pdt_parse_sizes(kw, 1, ndim, shape, fname);
    if (nargs == 0) {
        PyErr_Format(PyExc_TypeError, "%s() missing the shape: write %s(2, 3) or %s((2, 3))", fname,
                     fname, fname);
        return -1;
    }
    return pdt_parse_sizes(args, nargs, ndim, shape, fname);
}

/* self's tensor, held in h until pdt_hold_release(h): a view op notes itself
 * for placement logging, which may run Python, between reading its input's
 * geometry and sharing its storage (Note [the GIL and storages]). */
static const pdt_tensor *held_self(pdt_hold *h, PyObject *self)
{
    h->n = 0;
    return pdt_hold_view(h, pdt_tensor_of(self));
}

static PyObject *shape_method(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames, const char *fname, int copy_ok)
{
    int ndim;
    int64_t shape[PDT_MAX_DIMS];
    if (shape_args(fname, args, nargs, kwnames, &ndim, shape) < 0)
        return NULL;
    const pdt_tensor *t = pdt_tensor_of(self);
    pdt_tensor out;
    pdt_status st;
    pdt_hold h; /* Note [the GIL and storages]: also while hooks run Python */
    h.n = 0;
    t = pdt_hold_view(&h, t);
    if (copy_ok && pdt_tensor_numel(t) > PDT_GIL_RELEASE_NUMEL) {
        Py_BEGIN_ALLOW_THREADS /* reshape may copy */
        st = pdt_reshape(t, ndim, shape, &out);
        Py_END_ALLOW_THREADS
    } else {
        st = copy_ok ? pdt_reshape(t, ndim, shape, &out) : pdt_view(t, ndim, shape, &out);
    }
    pdt_hold_release(&h);
    return view_result(self, st, &out);
}

static PyObject *t_reshape(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    PDT_AUTOGRAD_HOOK("reshape", 1, self, args, nargs, kwnames);
    return shape_method(self, args, nargs, kwnames, "reshape", 1);
}

/* view(dtype): self's bytes read as dtype, as PyTorch's (not recorded by autograd, no
 * _base: the result shares the storage and its version counter only).  Elements of
 * another size regroup the last dim, which must be contiguous; a wider dtype needs the
 * last size, the offset and the other strides divisible by the ratio. */
static PyObject *view_dtype(pdt_state *S, PyObject *self, pdt_dtype dt)
{
    const pdt_tensor *t = pdt_tensor_of(self);
    const int64_t from = (int64_t)pdt_dtype_size(t->dtype), to = (int64_t)pdt_dtype_size(dt);
    const int last = t->ndim - 1;
    char shape[128], strides[128], dev[32];
    const char *problem = NULL;
    if (from != to) {
        const int64_t r = from > to ? from / to : to / from;
        if (t->ndim == 0)
            problem = "a 0-d tensor has no last dim to regroup";
        else if (t->strides[last] != 1 && t->shape[last] != 1)
            problem = "the last dim must be contiguous (stride 1)";
        else if (to > from && (t->shape[last] % r || t->offset % r))
            problem = "the last dim's size and the storage offset must be divisible by the ratio "
                      "of the element sizes";
        for (int i = 0; !problem && to > from && i < last; i++)
            if (t->strides[i] % r)
                problem = "every stride but the last must be divisible by the ratio of the "
                          "element sizes";
    }
    if (problem) {
        PyErr_Format(S->InvalidArgumentError,
                     "view(%s): cannot view a %s tensor of shape %s and strides %s (on %s) as %s "
                     "(elements of %d and %d bytes): %s; use .to(%s) to convert the values",
                     pdt_dtype_name(dt), pdt_dtype_name(t->dtype),
                     pdt_shape_str(t->ndim, t->shape, shape, sizeof shape),
                     pdt_shape_str(t->ndim, t->strides, strides, sizeof strides),
                     pdt_device_str(t->device, dev, sizeof dev), pdt_dtype_name(dt), (int)from,
                     (int)to, problem, pdt_dtype_name(dt));
        return NULL;
    }
    pdt_tensor out;
    pdt_tensor_share(&out, t);
    out.dtype = dt;
    if (from > to) {
        const int64_t r = from / to;
        for (int i = 0; i < last; i++)
            out.strides[i] *= r;
        out.shape[last] *= r, out.strides[last] = 1, out.offset *= r;
    } else if (to > from) {
        const int64_t r = to / from;
        for (int i = 0; i < last; i++)
            out.strides[i] /= r;
        out.shape[last] /= r, out.strides[last] = 1, out.offset /= r;
    }
    return pdt_tensor_wrap_new(S, &out);
}

static PyObject *t_view(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (kwnames && nargs == 0 && PyTuple_GET_SIZE(kwnames) == 1) { /* PyTorch's keyword forms */
        PyObject *k = PyTuple_GET_ITEM(kwnames, 0);
        if (!PyUnicode_CompareWithASCIIString(k, "size") ||
            !PyUnicode_CompareWithASCIIString(k, "dtype"))
            return t_view(self, args, 1, NULL); /* view(size=s), view(dtype=d) */
    }
    if (nargs == 1 && !kwnames && !PyLong_Check(args[0]) && !PyTuple_Check(args[0])) {
        pdt_state *S = pdt_state_of_type(Py_TYPE(self));
        if (!S)
            return NULL;
        if (Py_IS_TYPE(args[0], S->dtype_type)) /* before autograd: not differentiable */
            return view_dtype(S, self, ((PdtDTypeObject *)args[0])->dtype);
    }
    PDT_AUTOGRAD_HOOK("view", 1, self, args, nargs, kwnames);
    return shape_method(self, args, nargs, kwnames, "view", 0);
}

static PyObject *t_flatten(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    PDT_AUTOGRAD_HOOK("flatten", 1, self, args, nargs, kwnames);
    static const char *const names[] = {"start_dim", "end_dim", NULL};
    int64_t v[2] = {0, -1};
    if (int_args("flatten", args, nargs, kwnames, names, 2, 0, v) < 0)
        return NULL;
    const pdt_tensor *t = pdt_tensor_of(self);
    pdt_tensor out;
    pdt_status st;
    pdt_hold h; /* Note [the GIL and storages]: also while hooks run Python */
    h.n = 0;
    t = pdt_hold_view(&h, t);
    if (pdt_tensor_numel(t) > PDT_GIL_RELEASE_NUMEL) {
        Py_BEGIN_ALLOW_THREADS /* flatten may copy */
        st = pdt_flatten(t, v[0], v[1], &out);
        Py_END_ALLOW_THREADS
    } else {
        st = pdt_flatten(t, v[0], v[1], &out);
    }
    pdt_hold_release(&h);
    return view_result(self, st, &out);
}

/* ------------------------------------------------------- dims reordered */

static PyObject *t_transpose(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    PDT_AUTOGRAD_HOOK("transpose", 1, self, args, nargs, kwnames);
    static const char *const names[] = {"dim0", "dim1", NULL};
    int64_t v[2] = {0, 0};
    if (int_args("transpose", args, nargs, kwnames, names, 2, 2, v) < 0)
        return NULL;
    pdt_tensor out;
    pdt_hold h;
    pdt_status st = pdt_transpose(held_self(&h, self), v[0], v[1], &out);
    pdt_hold_release(&h);
    return view_result(self, st, &out);
}

static PyObject *t_t(PyObject *self, PyObject *unused)
{
    PDT_AUTOGRAD_HOOK("t", 1, self, NULL, 0, NULL);
    (void)unused;
    const pdt_tensor *t = pdt_tensor_of(self);
    if (t->ndim > 2) {
        pdt_state *S = pdt_state_of_type(Py_TYPE(self));
        if (!S)
            return NULL;
        PyErr_Format(S->InvalidArgumentError,
                     "t() expects a tensor with <= 2 dimensions, but this one has %d; use "
                     "transpose(dim0, dim1) or permute(...)",
                     t->ndim);
        return NULL;
    }
    pdt_tensor out;
    pdt_hold h;
    pdt_status st = pdt_reverse_dims(held_self(&h, self), &out);
    pdt_hold_release(&h);
    return view_result(self, st, &out);
}

/* x.T of other than a matrix warns once per process, as PyTorch's numpy_T
 * (TORCH_WARN_ONCE): deprecated there, one warning for 0-d tensors, one for the rest. */
static int T_warned[2]; /* 0-d, other */

static int warn_T(int ndim)
{
    if (ndim == 2 || (T_warned[ndim != 0] && !pdt_warn_always))
        return 0;
    T_warned[ndim != 0] = 1;
    if (ndim == 0)
        return PyErr_WarnEx(PyExc_UserWarning,
                            "Tensor.T is deprecated on 0-D tensors. This function is the "
                            "identity in these cases.",
                            1);
    return PyErr_WarnEx(PyExc_UserWarning,
                        "The use of `x.T` on tensors of dimension other than 2 to reverse their "
                        "shape is deprecated and it will throw an error in a future release. "
                        "Consider `x.mT` to transpose batches of matrices or "
                        "`x.permute(*pydevtensor.arange(x.ndim - 1, -1, -1))` to reverse the "
                        "dimensions of a tensor.",
                        1);
}

static PyObject *t_T(PyObject *self, void *closure)
{
    if (warn_T(pdt_tensor_of(self)->ndim) < 0)
        return NULL;
    PDT_AUTOGRAD_HOOK("T", 1, self, NULL, 0, NULL);
    (void)closure;
    pdt_tensor out;
    pdt_hold h;
    pdt_status st = pdt_reverse_dims(held_self(&h, self), &out);
    pdt_hold_release(&h);
    return view_result(self, st, &out);
}

static PyObject *t_permute(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    PDT_AUTOGRAD_HOOK("permute", 1, self, args, nargs, kwnames);
    static const char *const names[] = {"dims", NULL};
    PyObject *kw[1] = {NULL};
    int n;
    int64_t dims[PDT_MAX_DIMS];
    if (pdt_parse_keywords("permute", args + nargs, kwnames, names, kw) < 0)
        return NULL;
    if (kw[0] && nargs > 0) {
        PyErr_SetString(PyExc_TypeError, "permute() got the dims twice");
        return NULL;
    }
    if (pdt_parse_sizes(kw[0] ? kw : args, kw[0] ? 1 : nargs, &n, dims, "permute") < 0)
        return NULL;
    pdt_tensor out;
    pdt_hold h;
    pdt_status st = pdt_permute(held_self(&h, self), n, dims, &out);
    pdt_hold_release(&h);
    return view_result(self, st, &out);
}

/* -------------------------------------------------- size-1 dims in and out */

static PyObject *t_squeeze(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    PDT_AUTOGRAD_HOOK("squeeze", 1, self, args, nargs, kwnames);
    static const char *const names[] = {"dim", NULL};
    PyObject *kw[1] = {NULL};
    if (pdt_parse_keywords("squeeze", args + nargs, kwnames, names, kw) < 0)
        return NULL;
    if (nargs > 1 || (nargs == 1 && kw[0])) {
        PyErr_SetString(PyExc_TypeError, "squeeze() takes one argument, dim (an int, a tuple of "
                                         "ints, or None)");
        return NULL;
    }
    int n;
    int64_t dims[PDT_MAX_DIMS];
    if (pdt_parse_dims(nargs ? args[0] : kw[0], "squeeze", &n, dims) < 0)
        return NULL;
    pdt_tensor out;
    pdt_hold h;
    pdt_status st = pdt_squeeze(held_self(&h, self), n, dims, &out);
    pdt_hold_release(&h);
    return view_result(self, st, &out);
}

static PyObject *t_unsqueeze(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    PDT_AUTOGRAD_HOOK("unsqueeze", 1, self, args, nargs, kwnames);
    static const char *const names[] = {"dim", NULL};
    int64_t dim = 0;
    if (int_args("unsqueeze", args, nargs, kwnames, names, 1, 1, &dim) < 0)
        return NULL;
    pdt_tensor out;
    pdt_hold h;
    pdt_status st = pdt_unsqueeze(held_self(&h, self), dim, &out);
    pdt_hold_release(&h);
    return view_result(self, st, &out);
}

/* ------------------------------------------------------------ indexing */

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

static int parse_index_item(pdt_state *S, PyObject *obj, pdt_index *out)
{
    memset(out, 0, sizeof *out);
    if (PyLong_CheckExact(obj)) { /* the common key, x[0]: an int, never a bool */
        Py_ssize_t i = PyNumber_AsSsize_t(obj, PyExc_IndexError);
        if (i == -1 && PyErr_Occurred())
            return -1;
        out->kind = PDT_INDEX_INT;
        out->i = i;
        return 0;
    }
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
    if (PyIndex_Check(obj)) {
        Py_ssize_t i = PyNumber_AsSsize_t(obj, PyExc_IndexError);
        if (i == -1 && PyErr_Occurred())
            return -1;
        out->kind = PDT_INDEX_INT;
        out->i = i;
        return 0;
    }
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
    pdt_status st = pdt_index_view(held_self(&h, self), (int)n, items, out);
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
    return view_result(self, PDT_OK, &out);
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

/* ------------------------------------------------------- function forms */

#define FUNCTION_FORM(NAME)                                                                        \
    static PyObject *f_##NAME(PyObject *module, PyObject *const *args, Py_ssize_t nargs,           \
                              PyObject *kwnames)                                                   \
    {                                                                                              \
        return pdt_function_form(#NAME, module, args, nargs, kwnames, t_##NAME);                   \
    }
FUNCTION_FORM(reshape)
FUNCTION_FORM(flatten)
FUNCTION_FORM(transpose)
FUNCTION_FORM(permute)
FUNCTION_FORM(squeeze)
FUNCTION_FORM(unsqueeze)

static PyObject *t_t_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames)
{
    (void)args;
    if (nargs > 0 || kwnames) {
        PyErr_SetString(PyExc_TypeError, "t() takes no arguments besides the tensor");
        return NULL;
    }
    return t_t(self, NULL);
}

static PyObject *f_t(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return pdt_function_form("t", module, args, nargs, kwnames, t_t_fast);
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

PyMethodDef pdt_view_methods[] = {
    {"reshape", FASTKW(t_reshape), doc_m_reshape},
    {"view", FASTKW(t_view), doc_m_view},
    {"flatten", FASTKW(t_flatten), doc_m_flatten},
    {"transpose", FASTKW(t_transpose), doc_m_transpose},
    {"t", t_t, METH_NOARGS, doc_m_t},
    {"permute", FASTKW(t_permute), doc_m_permute},
    {"squeeze", FASTKW(t_squeeze), doc_m_squeeze},
    {"unsqueeze", FASTKW(t_unsqueeze), doc_m_unsqueeze},
    {NULL, NULL, 0, NULL},
};

PyMethodDef pdt_view_functions[] = {
    {"_basic_getitem", (PyCFunction)(void (*)(void))f_basic_getitem, METH_FASTCALL, NULL},
    {"_basic_setitem", (PyCFunction)(void (*)(void))f_basic_setitem, METH_FASTCALL, NULL},
    {"_set_index_hooks", (PyCFunction)(void (*)(void))f_set_index_hooks, METH_FASTCALL, NULL},
    {"reshape", FASTKW(f_reshape), doc_fn_reshape},
    {"flatten", FASTKW(f_flatten), doc_fn_flatten},
    {"transpose", FASTKW(f_transpose), doc_fn_transpose},
    {"t", FASTKW(f_t), doc_fn_t},
    {"permute", FASTKW(f_permute), doc_fn_permute},
    {"squeeze", FASTKW(f_squeeze), doc_fn_squeeze},
    {"unsqueeze", FASTKW(f_unsqueeze), doc_fn_unsqueeze},
    {NULL, NULL, 0, NULL},
};

PyGetSetDef pdt_view_getset[] = {
    {"T", t_T, NULL, doc_T, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyType_Slot pdt_view_slots[] = {
    {Py_mp_subscript, tensor_subscript},
    {Py_mp_ass_subscript, tensor_ass_subscript},
    {0, NULL},
};
