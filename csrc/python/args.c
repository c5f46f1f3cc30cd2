/* args.c - argument helpers shared by the binding files (see args.h). */
#include "args.h"

#include <string.h>

/* NumPy's names that PyTorch's argument parser accepts for its own (axis for dim,
 * keepdims for keepdim: `A.sum(axis=1, keepdims=True)`, as Dive into Deep Learning's
 * PyTorch edition writes it); NULL for any other key. */
static const char *numpy_alias(const char *key)
{
    if (strcmp(key, "axis") == 0)
        return "dim";
    if (strcmp(key, "keepdims") == 0)
        return "keepdim";
    return NULL;
}

/* The position of key in names, or -1. */
static int name_index(const char *const *names, const char *key)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(key, names[i]) == 0)
            return i;
    return -1;
}

int pdt_parse_keywords(const char *fname, PyObject *const *kwvalues, PyObject *kwnames,
                       const char *const *names, PyObject **out)
{
    if (!kwnames)
        return 0;
    Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < n; k++) {
        const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        if (!key)
            return -1;
        int i = name_index(names, key); /* its own name first: then it is no alias */
        const char *alias = i < 0 ? numpy_alias(key) : NULL;
        if (alias)
            i = name_index(names, alias);
        if (i < 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", fname,
                         key);
            return -1;
        }
        if (out[i]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname, key);
            return -1;
        }
        out[i] = kwvalues[k];
    }
    return 0;
}

int pdt_kwnames_has(PyObject *kwnames, const char *name)
{
    Py_ssize_t n = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, i), name))
            return 1;
    return 0;
}

/* A flag (keepdim=, requires_grad=, non_blocking=, ...): a bool, or NumPy's, as PyTorch
 * takes them; anything else is refused rather than read by its truth (keepdim="no" was
 * True, keepdim=2 too). */
int pdt_parse_bool(PyObject *obj, int dflt, const char *fname, const char *what, int *out)
{
    if (!obj || obj == Py_None) {
        *out = dflt;
        return 0;
    }
    if (!PyBool_Check(obj) && strcmp(Py_TYPE(obj)->tp_name, "numpy.bool") != 0 &&
        strcmp(Py_TYPE(obj)->tp_name, "numpy.bool_") != 0) {
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be bool, not %.100s", fname, what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    int v = PyObject_IsTrue(obj);
    if (v < 0)
        return -1;
    *out = v;
    return 0;
}

int pdt_parse_int64(PyObject *obj, const char *what, int64_t *out)
{
    if (PyBool_Check(obj) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, got %.100s", what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *index = PyNumber_Index(obj);
    if (!index)
        return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (overflow) {
        PyErr_Format(PyExc_OverflowError, "%s does not fit in 64 bits", what);
        return -1;
    }
    if (v == -1 && PyErr_Occurred())
        return -1;
    *out = v;
    return 0;
}

/* Whether obj has ndim == 0 (a 0-d tensor or array), the pending error kept. */
static int zero_d(PyObject *obj)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *n = PyObject_GetAttrString(obj, "ndim");
    int r = n != NULL && PyLong_Check(n) && PyLong_AsLong(n) == 0;
    Py_XDECREF(n);
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
    return r;
}

int pdt_parse_scalar(PyObject *obj, const char *what, pdt_scalar *out)
{
    memset(out, 0, sizeof *out);
    if (PyBool_Check(obj)) {
        out->i = obj == Py_True;
        return 0;
    }
    if (PyLong_Check(obj)) {
        int overflow = 0;
        out->i = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (overflow) {
            PyErr_Format(PyExc_OverflowError, "%s: the integer %R does not fit in 64 bits", what,
                         obj);
            return -1;
        }
        return out->i == -1 && PyErr_Occurred() ? -1 : 0;
    }
    if (PyFloat_Check(obj)) {
        out->is_float = 1;
        out->f = PyFloat_AS_DOUBLE(obj);
        return 0;
    }
    if (PyIndex_Check(obj)) { /* NumPy integers; a one-element integer or bool tensor */
        int64_t v;
        if (pdt_parse_int64(obj, what, &v) == 0) {
            out->i = v;
            return 0;
        }
        /* a 0-d floating-point tensor (or NumPy array) has __index__ too, which refuses
         * it: its value comes through __float__ below, as PyTorch takes a 0-d tensor for
         * a number (from a GPU, a counted copy to the host, as float(t) is); anything
         * else keeps __index__'s error */
        if (!PyErr_ExceptionMatches(PyExc_TypeError) || PyLong_Check(obj) || !zero_d(obj))
            return -1;
        PyErr_Clear();
    }
    if (PyNumber_Check(obj) && !PyComplex_Check(obj)) { /* NumPy floats */
        double d = PyFloat_AsDouble(obj);
        if (d == -1.0 && PyErr_Occurred()) {
            /* a number type with no float value (NumPy's datetime64): named below */
            if (!PyErr_ExceptionMatches(PyExc_TypeError))
                return -1;
            PyErr_Clear();
        } else {
            out->is_float = 1;
            out->f = d;
            return 0;
        }
    }
    PyErr_Format(PyExc_TypeError, "%s must be a real number (bool, int or float), got %.100s", what,
                 Py_TYPE(obj)->tp_name);
    return -1;
}

int pdt_parse_scalar_wide(PyObject *obj, const char *what, pdt_scalar *out, int *wide)
{
    *wide = 0;
    if (pdt_parse_scalar(obj, what, out) == 0)
        return 0;
    if (PyBool_Check(obj) || !PyIndex_Check(obj) || !PyErr_ExceptionMatches(PyExc_OverflowError))
        return -1;
    PyErr_Clear();
    PyObject *index = PyNumber_Index(obj);
    double d = index ? PyLong_AsDouble(index) : -1.0; /* OverflowError past the doubles */
    Py_XDECREF(index);
    if (d == -1.0 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_OverflowError,
                         "%s: an integer beyond the largest float64 (about 1.8e308) fits no dtype",
                         what);
        }
        return -1;
    }
    out->is_float = 1;
    out->f = d;
    *wide = 1;
    return 0;
}

int pdt_input_to_front(PyObject *const **args, Py_ssize_t *nargs, PyObject **kwnames,
                       pdt_moved_input *m)
{
    m->kwnames = NULL;
    Py_ssize_t nkw = *kwnames ? PyTuple_GET_SIZE(*kwnames) : 0, at = -1;
    if (*nargs != 0)
        return 0;
    for (Py_ssize_t i = 0; i < nkw && at < 0; i++)
        if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(*kwnames, i), "input") == 0)
            at = i;
    if (at < 0)
        return 0;
    if (nkw > PDT_MOVED_MAX) { /* no function here takes that many */
        PyErr_Format(PyExc_TypeError, "%zd keyword arguments given with input=; at most %d", nkw,
                     PDT_MOVED_MAX);
        return -1;
    }
    if (nkw > 1 && !(m->kwnames = PyTuple_New(nkw - 1)))
        return -1;
    /* vectorcall: the keywords' values follow the positional arguments, here none */
    m->stack[0] = (*args)[at];
    for (Py_ssize_t i = 0, j = 0; i < nkw; i++) {
        if (i == at)
            continue;
        m->stack[1 + j] = (*args)[i];
        PyTuple_SET_ITEM(m->kwnames, j, Py_NewRef(PyTuple_GET_ITEM(*kwnames, i)));
        j++;
    }
    *args = m->stack;
    *nargs = 1;
    *kwnames = m->kwnames;
    return 0;
}

void pdt_moved_input_clear(pdt_moved_input *m) { Py_CLEAR(m->kwnames); }

/* The function form fname(input, ...) of a method: input is the first
 * positional argument (or input=) and must be a Tensor. */
PyObject *pdt_function_form(const char *fname, PyObject *module, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames, pdt_method_fn method)
{
    pdt_state *S = pdt_state_of_module(module);
    pdt_moved_input moved;
    if (pdt_input_to_front(&args, &nargs, &kwnames, &moved) < 0)
        return NULL;
    PyObject *r = NULL;
    if (nargs < 1 || !pdt_is_tensor(S, args[0]))
        PyErr_Format(PyExc_TypeError,
                     "%s(): argument 'input' (position 1) must be a Tensor, got %s", fname,
                     nargs < 1 ? "nothing" : Py_TYPE(args[0])->tp_name);
    else
        r = method(args[0], args + 1, nargs - 1, kwnames);
    pdt_moved_input_clear(&moved);
    return r;
}

/* dim: an int, or a tuple/list of ints (*n of them); None gives *n = -1 (all). */
int pdt_parse_dims(PyObject *obj, const char *fname, int *n, int64_t *dims)
{
    if (!obj || obj == Py_None) {
        *n = -1;
        return 0;
    }
    if (!PyTuple_Check(obj) && !PyList_Check(obj)) {
        *n = 1;
        if (pdt_exact_int64(obj, &dims[0]))
            return 0;
        char what[80];
        PyOS_snprintf(what, sizeof what, "%s(): dim", fname);
        return pdt_parse_int64(obj, what, &dims[0]);
    }
    PyObject *seq = PySequence_Tuple(obj); /* a list's copy: __index__ may change it */
    if (!seq)
        return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    int rc = 0;
    if (len > PDT_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "%s(): %zd dims given; tensors have at most %d", fname, len,
                     PDT_MAX_DIMS);
        rc = -1;
    }
    for (Py_ssize_t i = 0; rc == 0 && i < len; i++) {
        if (pdt_exact_int64(PySequence_Fast_GET_ITEM(seq, i), &dims[i]))
            continue;
        char what[80];
        PyOS_snprintf(what, sizeof what, "%s(): element %zd of dim", fname, i);
        rc = pdt_parse_int64(PySequence_Fast_GET_ITEM(seq, i), what, &dims[i]);
    }
    Py_DECREF(seq);
    *n = (int)len;
    return rc;
}
