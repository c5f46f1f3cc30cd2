/* tensor_view.c - the shape views: reshape/view, transpose/t()/T/permute,
 * squeeze/unsqueeze and flatten, as methods and as functions
 * (pydevtensor.reshape(x, shape), ...).  The core (pdt_view.h) validates and builds
 * every view; here arguments become dims and sizes.  t[...] and t[...] = value are
 * tensor_subscript.c's. */
#include "args.h"
#include "docstrings_view.h"
#include "pdt_view.h"

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
PyObject *pdt_view_result(PyObject *self, pdt_status st, pdt_tensor *out)
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
const pdt_tensor *pdt_held_self(pdt_hold *h, PyObject *self)
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
    return pdt_view_result(self, st, &out);
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
    return pdt_view_result(self, st, &out);
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
    pdt_status st = pdt_transpose(pdt_held_self(&h, self), v[0], v[1], &out);
    pdt_hold_release(&h);
    return pdt_view_result(self, st, &out);
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
    pdt_status st = pdt_reverse_dims(pdt_held_self(&h, self), &out);
    pdt_hold_release(&h);
    return pdt_view_result(self, st, &out);
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
    pdt_status st = pdt_reverse_dims(pdt_held_self(&h, self), &out);
    pdt_hold_release(&h);
    return pdt_view_result(self, st, &out);
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
    pdt_status st = pdt_permute(pdt_held_self(&h, self), n, dims, &out);
    pdt_hold_release(&h);
    return pdt_view_result(self, st, &out);
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
    pdt_status st = pdt_squeeze(pdt_held_self(&h, self), n, dims, &out);
    pdt_hold_release(&h);
    return pdt_view_result(self, st, &out);
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
    pdt_status st = pdt_unsqueeze(pdt_held_self(&h, self), dim, &out);
    pdt_hold_release(&h);
    return pdt_view_result(self, st, &out);
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
