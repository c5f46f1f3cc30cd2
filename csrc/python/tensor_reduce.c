/* tensor_reduce.c - reductions as methods and functions: sum, mean, prod,
 * max, min, amax, amin, argmax, argmin and norm, with dim (an int or a tuple),
 * keepdim and, for sum/mean/prod/norm, dtype=.  The core (pdt_reduce.h) does
 * the validation and the work; the GIL is released for large inputs.
 *
 * max(dim) and min(dim) return (values, indices) as a struct sequence,
 * pydevtensor.return_types.max / .min, like torch.return_types; max(other)
 * with a Tensor is the elementwise pydevtensor.maximum, as in PyTorch. */
#include "args.h"
#include "docstrings_reduce.h"
#include "pdt_reduce.h"

/* One parsed call. */
typedef struct request {
    pdt_reduce_op op;
    double p;  /* norm: 1 or 2; 0: not a norm */
    int ndims; /* -1: every dim */
    int64_t dims[PDT_MAX_DIMS];
    int keepdim;
    int dtype; /* -1: not given */
} request;

enum { ARG_P, ARG_DIM, ARG_KEEPDIM, ARG_DTYPE, ARG_COUNT };

/* Parses (p,) dim, keepdim by position or name and dtype by name into kw
 * (indexed by ARG_*).  with_p: the norm's leading p; with_dtype: dtype= is
 * accepted. */
static int parse_call(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                      int with_p, int with_dtype, PyObject **kw)
{
    static const char *const all_names[] = {"p", "dim", "keepdim", "dtype", NULL};
    static const char *const no_dtype[] = {"p", "dim", "keepdim", NULL};
    const char *const *names = with_dtype ? all_names : no_dtype;
    int first = with_p ? ARG_P : ARG_DIM; /* the first positional slot */
    if (pdt_parse_keywords(fname, args + nargs, kwnames, names + first, kw + first) < 0)
        return -1;
    if (nargs > ARG_DTYPE - first) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments (%zd given)",
                     fname, ARG_DTYPE - first, nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        if (kw[first + i]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                         names[first + i]);
            return -1;
        }
        kw[first + i] = args[i];
    }
    return 0;
}

/* dim, keepdim and dtype of kw into rq. */
static int fill_request(pdt_state *S, const char *fname, PyObject **kw, request *rq)
{
    if (pdt_parse_dims(kw[ARG_DIM], fname, &rq->ndims, rq->dims) < 0 ||
        pdt_parse_bool(kw[ARG_KEEPDIM], 0, fname, "keepdim", &rq->keepdim) < 0 ||
        pdt_dtype_from_object(S, kw[ARG_DTYPE], -1, &rq->dtype) < 0)
        return -1;
    if (rq->ndims == 0)
        rq->ndims = -1; /* dim=(): every dim, as PyTorch */
    return 0;
}

static pdt_status execute(const pdt_tensor *x, const request *rq, pdt_tensor *out)
{
    if (rq->p != 0)
        return pdt_norm(x, rq->p, rq->ndims, rq->dims, rq->keepdim, rq->dtype, out);
    return pdt_reduce(rq->op, x, rq->ndims, rq->dims, rq->keepdim, rq->dtype, out);
}

/* S: self's module state, which the caller has looked up */
static PyObject *run(pdt_state *S, PyObject *self, const request *rq)
{
    const pdt_tensor *x = pdt_tensor_of(self);
    pdt_tensor out;
    pdt_status st;
    pdt_hold h; /* Note [the GIL and storages]: also while hooks run Python */
    h.n = 0;
    x = pdt_hold_view(&h, x);
    PDT_RUN_RELEASING_GIL(pdt_tensor_numel(x), st = execute(x, rq, &out));
    pdt_hold_release(&h);
    return st == PDT_OK ? pdt_tensor_wrap_new(S, &out) : pdt_raise(S, st);
}

/* sum, mean, prod, amax, amin: (dim=None, keepdim=False[, *, dtype=None]) */
static PyObject *reduce_method(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames, const char *fname, pdt_reduce_op op,
                               int with_dtype)
{
    PDT_AUTOGRAD_HOOK(fname, 1, self, args, nargs, kwnames);
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    PyObject *kw[ARG_COUNT] = {NULL};
    request rq = {.op = op};
    if (!S || parse_call(fname, args, nargs, kwnames, 0, with_dtype, kw) < 0 ||
        fill_request(S, fname, kw, &rq) < 0)
        return NULL;
    return run(S, self, &rq);
}

#define REDUCE_METHOD(NAME, OP, WITH_DTYPE)                                                        \
    static PyObject *t_##NAME(PyObject *self, PyObject *const *args, Py_ssize_t nargs,             \
                              PyObject *kwnames)                                                   \
    {                                                                                              \
        return reduce_method(self, args, nargs, kwnames, #NAME, OP, WITH_DTYPE);                   \
    }
REDUCE_METHOD(sum, PDT_REDUCE_SUM, 1)
REDUCE_METHOD(mean, PDT_REDUCE_MEAN, 1)
REDUCE_METHOD(prod, PDT_REDUCE_PROD, 1)
REDUCE_METHOD(amax, PDT_REDUCE_MAX, 0)
REDUCE_METHOD(amin, PDT_REDUCE_MIN, 0)

/* argmax / argmin (dim=None, keepdim=False): one dim, or the index into the
 * flattened tensor (with keepdim, every dim kept with size 1, as in PyTorch). */
static PyObject *arg_method(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames, const char *fname, pdt_reduce_op op)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    PyObject *kw[ARG_COUNT] = {NULL};
    request rq = {.op = op};
    if (!S || parse_call(fname, args, nargs, kwnames, 0, 0, kw) < 0)
        return NULL;
    if (kw[ARG_DIM] && kw[ARG_DIM] != Py_None &&
        (PyTuple_Check(kw[ARG_DIM]) || PyList_Check(kw[ARG_DIM]))) {
        PyErr_Format(PyExc_TypeError, "%s(): dim must be an int or None", fname);
        return NULL;
    }
    if (fill_request(S, fname, kw, &rq) < 0)
        return NULL;
    return run(S, self, &rq);
}

static PyObject *t_argmax(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames)
{
    return arg_method(self, args, nargs, kwnames, "argmax", PDT_REDUCE_ARGMAX);
}

static PyObject *t_argmin(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames)
{
    return arg_method(self, args, nargs, kwnames, "argmin", PDT_REDUCE_ARGMIN);
}

/* ------------------------------------------------ max(dim) and min(dim) */

static PyStructSequence_Field pair_fields[] = {
    {"values", "the maxima or minima along dim"},
    {"indices", "their positions along dim (int64; the first one on ties)"},
    {NULL, NULL},
};
static PyStructSequence_Desc pair_desc[2] = {
    {"pydevtensor.return_types.max", "(values, indices) from max(dim)", pair_fields, 2},
    {"pydevtensor.return_types.min", "(values, indices) from min(dim)", pair_fields, 2},
};
static const char *const pair_attr[2] = {"_return_type_max", "_return_type_min"};

/* The module that defined self's type (borrowed). */
static PyObject *module_of(PyObject *self)
{
#if PY_VERSION_HEX >= 0x030B0000
    return PyType_GetModuleByDef(Py_TYPE(self), &pdt_module_def);
#else
    PyObject *mro = Py_TYPE(self)->tp_mro;
    for (Py_ssize_t i = 0; mro && i < PyTuple_GET_SIZE(mro); i++) {
        PyTypeObject *base = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        PyObject *module = (base->tp_flags & Py_TPFLAGS_HEAPTYPE)
                               ? ((PyHeapTypeObject *)base)->ht_module
                               : NULL;
        if (module && PyModule_GetDef(module) == &pdt_module_def)
            return module;
    }
    PyErr_SetString(PyExc_TypeError, "not a pydevtensor tensor");
    return NULL;
#endif
}

/* return_types.max (which 0) or .min (1): made on first use and kept as an
 * attribute of the module.  A new reference. */
static PyObject *pair_type(PyObject *module, int which)
{
    PyObject *dict = PyModule_GetDict(module); /* borrowed */
    PyObject *tp = dict ? PyDict_GetItemString(dict, pair_attr[which]) : NULL;
    if (tp)
        return Py_NewRef(tp);
    tp = (PyObject *)PyStructSequence_NewType(&pair_desc[which]);
    if (tp && PyModule_AddObjectRef(module, pair_attr[which], tp) < 0)
        Py_CLEAR(tp);
    return tp;
}

static PyObject *pair_result(PyObject *self, int which, pdt_tensor *values, pdt_tensor *indices)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    PyObject *module = module_of(self);
    PyObject *tp = module ? pair_type(module, which) : NULL;
    PyObject *v = S ? pdt_tensor_wrap_new(S, values) : NULL;
    PyObject *i = S ? pdt_tensor_wrap_new(S, indices) : NULL;
    PyObject *pair = tp && v && i ? PyStructSequence_New((PyTypeObject *)tp) : NULL;
    if (!S) {
        pdt_tensor_release(values);
        pdt_tensor_release(indices);
    }
    if (!pair) {
        Py_XDECREF(tp), Py_XDECREF(v), Py_XDECREF(i);
        return NULL;
    }
    PyStructSequence_SetItem(pair, 0, v);
    PyStructSequence_SetItem(pair, 1, i);
    Py_DECREF(tp);
    return pair;
}

/* max/min(): the 0-d extreme; (dim, keepdim=False): (values, indices);
 * (other): the elementwise maximum/minimum. */
static PyObject *extreme_method(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames, int which)
{
    PDT_AUTOGRAD_HOOK(which ? "min" : "max", 1, self, args, nargs, kwnames);
    const char *fname = which ? "min" : "max";
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    if (!S)
        return NULL;
    /* PyTorch's max(other): a tensor as the one positional argument, or other=, is the
       elementwise maximum; a tensor given as dim= is a dim (a 0-d integer tensor) */
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *other = NULL;
    if (nargs >= 1 && pdt_is_tensor(S, args[0]))
        other = args[0];
    else if (nargs == 0 && nkw >= 1 &&
             PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "other") == 0)
        other = args[0];
    if (other) {
        if (nargs + nkw != 1) {
            PyErr_Format(PyExc_TypeError, "%s(other) takes no dim or keepdim", fname);
            return NULL;
        }
        PyObject *module = module_of(self);
        PyObject *fn = module ? PyObject_GetAttrString(module, which ? "minimum" : "maximum")
                              : NULL;
        PyObject *r = fn ? PyObject_CallFunctionObjArgs(fn, self, other, NULL) : NULL;
        Py_XDECREF(fn);
        return r;
    }
    PyObject *kw[ARG_COUNT] = {NULL};
    if (parse_call(fname, args, nargs, kwnames, 0, 0, kw) < 0)
        return NULL;
    PyObject *dim = kw[ARG_DIM];
    if (!dim || dim == Py_None) {
        if (kw[ARG_KEEPDIM]) {
            PyErr_Format(PyExc_TypeError, "%s(): keepdim needs a dim", fname);
            return NULL;
        }
        request rq = {.op = which ? PDT_REDUCE_MIN : PDT_REDUCE_MAX, .ndims = -1, .dtype = -1};
        return run(S, self, &rq);
    }
    if (PyTuple_Check(dim) || PyList_Check(dim)) {
        PyErr_Format(PyExc_TypeError,
                     "%s(): dim must be an int; use a%s(dim=...) to reduce over "
                     "several dims",
                     fname, fname);
        return NULL;
    }
    int64_t d;
    int keepdim;
    if (pdt_parse_int64(dim, which ? "min(): dim" : "max(): dim", &d) < 0 ||
        pdt_parse_bool(kw[ARG_KEEPDIM], 0, which ? "min" : "max", "keepdim", &keepdim) < 0)
        return NULL;
    const pdt_tensor *x = pdt_tensor_of(self);
    pdt_tensor values, indices;
    pdt_status st;
    pdt_reduce_op op = which ? PDT_REDUCE_MIN : PDT_REDUCE_MAX;
    pdt_hold h; /* Note [the GIL and storages]: also while hooks run Python */
    h.n = 0;
    x = pdt_hold_view(&h, x);
    if (pdt_tensor_numel(x) > PDT_GIL_RELEASE_NUMEL) {
        Py_BEGIN_ALLOW_THREADS
        st = pdt_reduce_with_indices(op, x, d, keepdim, &values, &indices);
        Py_END_ALLOW_THREADS
    } else {
        st = pdt_reduce_with_indices(op, x, d, keepdim, &values, &indices);
    }
    pdt_hold_release(&h);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    return pair_result(self, which, &values, &indices);
}

static PyObject *t_max(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return extreme_method(self, args, nargs, kwnames, 0);
}

static PyObject *t_min(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return extreme_method(self, args, nargs, kwnames, 1);
}

/* ------------------------------------------------------------------ norm */

/* norm(p='fro', dim=None, keepdim=False, dtype=None) */
static PyObject *t_norm(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PDT_AUTOGRAD_HOOK("norm", 1, self, args, nargs, kwnames);
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    PyObject *kw[ARG_COUNT] = {NULL};
    request rq = {.op = PDT_REDUCE_SUM_SQUARES, .p = 2.0};
    if (!S || parse_call("norm", args, nargs, kwnames, 1, 1, kw) < 0 ||
        fill_request(S, "norm", kw, &rq) < 0)
        return NULL;
    PyObject *p = kw[ARG_P];
    if (p && p != Py_None) {
        if (PyUnicode_Check(p)) {
            if (PyUnicode_CompareWithASCIIString(p, "fro") != 0) {
                PyErr_Format(
                    PyExc_NotImplementedError,
                    "norm(): p=%R is not supported; use 'fro' (the default), 'nuc' or a number", p);
                return NULL;
            }
        } else if (PyBool_Check(p) || !PyNumber_Check(p) ||
                   ((rq.p = PyFloat_AsDouble(p)) == -1.0 && PyErr_Occurred())) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "norm(): p must be a number or 'fro', got %.100s",
                             Py_TYPE(p)->tp_name);
            return NULL;
        }
    }
    if (rq.p == 0) { /* the count of non-zeros: not a case the core knows */
        PyErr_SetString(PyExc_NotImplementedError,
                        "norm(): p=0 is not supported; use 'fro' (the default), 2 or 1");
        return NULL;
    }
    return run(S, self, &rq);
}

/* ------------------------------------------------------- function forms */

/* fname(input, ..., out=o): pydevtensor._out._reduction_out(fname, input, ..., out=o),
 * which computes the method's result and writes it into out by PyTorch's rules (the
 * function forms take out=, the methods do not, as in PyTorch).  A rare call: the
 * helper is looked up each time. */
static PyObject *with_out(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames)
{
    Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
    PyObject *mod = PyImport_ImportModule("pydevtensor._out");
    PyObject *helper = mod ? PyObject_GetAttrString(mod, "_reduction_out") : NULL;
    PyObject *name = helper ? PyUnicode_FromString(fname) : NULL;
    PyObject **all = name ? PyMem_New(PyObject *, nargs + nkw + 1) : NULL;
    PyObject *r = NULL;
    if (name && !all)
        PyErr_NoMemory();
    if (all) {
        all[0] = name;
        for (Py_ssize_t i = 0; i < nargs + nkw; i++)
            all[i + 1] = args[i];
        r = PyObject_Vectorcall(helper, all, (size_t)(nargs + 1), kwnames);
        PyMem_Free(all);
    }
    Py_XDECREF(name);
    Py_XDECREF(helper);
    Py_XDECREF(mod);
    return r;
}

#define FUNCTION_FORM(NAME)                                                                        \
    static PyObject *f_##NAME(PyObject *module, PyObject *const *args, Py_ssize_t nargs,           \
                              PyObject *kwnames)                                                   \
    {                                                                                              \
        if (pdt_kwnames_has(kwnames, "out"))                                                       \
            return with_out(#NAME, args, nargs, kwnames);                                          \
        return pdt_function_form(#NAME, module, args, nargs, kwnames, t_##NAME);                   \
    }
FUNCTION_FORM(sum)
FUNCTION_FORM(mean)
FUNCTION_FORM(prod)
FUNCTION_FORM(amax)
FUNCTION_FORM(amin)
FUNCTION_FORM(argmax)
FUNCTION_FORM(argmin)
FUNCTION_FORM(max)
FUNCTION_FORM(min)
FUNCTION_FORM(norm)

/* _return_types(): (return_types.max, return_types.min), for pydevtensor. */
static PyObject *f_return_types(PyObject *module, PyObject *unused)
{
    (void)unused;
    PyObject *a = pair_type(module, 0), *b = a ? pair_type(module, 1) : NULL;
    PyObject *r = b ? PyTuple_Pack(2, a, b) : NULL;
    Py_XDECREF(a), Py_XDECREF(b);
    return r;
}

/* ------------------------------------------------------------- tables */

PyMethodDef pdt_reduce_methods[] = {
    {"sum", FASTKW(t_sum), doc_m_sum},
    {"mean", FASTKW(t_mean), doc_m_mean},
    {"prod", FASTKW(t_prod), doc_m_prod},
    {"max", FASTKW(t_max), doc_m_max},
    {"min", FASTKW(t_min), doc_m_min},
    {"amax", FASTKW(t_amax), doc_m_amax},
    {"amin", FASTKW(t_amin), doc_m_amin},
    {"argmax", FASTKW(t_argmax), doc_m_argmax},
    {"argmin", FASTKW(t_argmin), doc_m_argmin},
    {"norm", FASTKW(t_norm), doc_m_norm},
    {NULL, NULL, 0, NULL},
};

PyMethodDef pdt_reduce_functions[] = {
    {"sum", FASTKW(f_sum), doc_fn_sum},
    {"mean", FASTKW(f_mean), doc_fn_mean},
    {"prod", FASTKW(f_prod), doc_fn_prod},
    {"max", FASTKW(f_max), doc_fn_max},
    {"min", FASTKW(f_min), doc_fn_min},
    {"amax", FASTKW(f_amax), doc_fn_amax},
    {"amin", FASTKW(f_amin), doc_fn_amin},
    {"argmax", FASTKW(f_argmax), doc_fn_argmax},
    {"argmin", FASTKW(f_argmin), doc_fn_argmin},
    {"norm", FASTKW(f_norm), doc_fn_norm},
    {"_return_types", f_return_types, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};
