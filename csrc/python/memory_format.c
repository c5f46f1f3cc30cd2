/* memory_format.c - memory formats, as PyTorch's: the four pydevtensor.memory_format
 * objects (made in pydevtensor/_memory_format.py, installed here), parsing the
 * memory_format= argument of clone(), contiguous(), is_contiguous() and to()
 * (tensor_copy.c, tensor_object.c), and whether a tensor is laid out so.
 *
 * A channels-last tensor is an (N, C, H, W) tensor whose strides are those of a
 * row-major (N, H, W, C) one; channels_last_3d: (N, C, D, H, W) as (N, D, H, W, C). */
#include <string.h>

#include "args.h"

static const char *const format_names[PDT_NUM_MEMORY_FORMATS] = {"preserve_format",
                                                                 "contiguous_format",
                                                                 "channels_last",
                                                                 "channels_last_3d"};
static const int channels_last_perm[4] = {0, 2, 3, 1};
static const int channels_last_3d_perm[5] = {0, 2, 3, 4, 1};

int pdt_memory_format_from_object(pdt_state *S, PyObject *obj, pdt_memory_format dflt,
                                  const char *where, pdt_memory_format *out)
{
    if (!obj) {
        *out = dflt;
        return 0;
    }
    if (obj == Py_None) {
        *out = PDT_PRESERVE_FORMAT;
        return 0;
    }
    for (int i = 0; i < PDT_NUM_MEMORY_FORMATS; i++)
        if (obj == S->memory_formats[i]) {
            *out = (pdt_memory_format)i;
            return 0;
        }
    if (PyUnicode_Check(obj)) {
        const char *name = PyUnicode_AsUTF8(obj);
        if (!name)
            return -1;
        for (int i = 0; i < PDT_NUM_MEMORY_FORMATS; i++)
            if (strcmp(name, format_names[i]) == 0) {
                *out = (pdt_memory_format)i;
                return 0;
            }
    }
    PyErr_Format(PyExc_TypeError,
                 "%s: memory_format must be a pydevtensor.memory_format "
                 "(pydevtensor.contiguous_format, channels_last, channels_last_3d or "
                 "preserve_format), got %R",
                 where, obj);
    return -1;
}

int pdt_memory_format_perm(pdt_memory_format fmt, const int **perm)
{
    if (fmt == PDT_CHANNELS_LAST) {
        *perm = channels_last_perm;
        return 4;
    }
    *perm = channels_last_3d_perm;
    return 5;
}

int pdt_follows_memory_format(const pdt_tensor *t, pdt_memory_format fmt)
{
    if (fmt == PDT_CONTIGUOUS_FORMAT || fmt == PDT_PRESERVE_FORMAT)
        return pdt_tensor_is_contiguous(t);
    const int *perm;
    int rank = pdt_memory_format_perm(fmt, &perm);
    return t->ndim == rank && pdt_tensor_dense_in_order(t, rank, perm);
}

void pdt_empty_format_strides(pdt_tensor *c, int n, const int *perm)
{
    int64_t s = 1;
    if (pdt_tensor_numel(c) == 0)
        for (int i = n - 1; i >= 0; i--) {
            c->strides[perm[i]] = s;
            s *= c->shape[perm[i]];
        }
}

int pdt_check_memory_format_rank(pdt_state *S, const pdt_tensor *t, pdt_memory_format fmt,
                                 const char *where)
{
    const int *perm;
    int rank = pdt_memory_format_perm(fmt, &perm);
    if (t->ndim == rank)
        return 0;
    char shape[128], dev[32];
    PyErr_Format(S->InvalidArgumentError,
                 "%s: required rank %d tensor to use %s format, got shape %s (on %s)", where, rank,
                 format_names[fmt], pdt_shape_str(t->ndim, t->shape, shape, sizeof shape),
                 pdt_device_str(t->device, dev, sizeof dev));
    return -1;
}

int pdt_like_order(pdt_state *S, PyObject *obj, const pdt_tensor *src, const char *where, int *perm,
                   const int **order)
{
    pdt_memory_format fmt;
    *order = NULL;
    if (pdt_memory_format_from_object(S, obj, PDT_PRESERVE_FORMAT, where, &fmt) < 0)
        return -1;
    if (fmt == PDT_CONTIGUOUS_FORMAT)
        return 0;
    if (fmt == PDT_PRESERVE_FORMAT) {
        if (!pdt_tensor_is_contiguous(src) && pdt_memory_order(src, perm))
            *order = perm;
        return 0;
    }
    if (pdt_check_memory_format_rank(S, src, fmt, where) < 0)
        return -1;
    pdt_memory_format_perm(fmt, order);
    return 0;
}

int pdt_memory_format_arg(pdt_state *S, const char *fname, const char *where, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames, pdt_memory_format dflt,
                          pdt_memory_format *out)
{
    static const char *const names[] = {"memory_format", NULL};
    PyObject *kw[1] = {NULL};
    if (pdt_parse_keywords(fname, args + nargs, kwnames, names, kw) < 0)
        return -1;
    if (nargs > 0) {
        PyErr_Format(PyExc_TypeError,
                     "%s() takes 0 positional arguments but %zd were given (memory_format= is "
                     "keyword-only)",
                     fname, nargs);
        return -1;
    }
    if (kw[0] == Py_None && dflt == PDT_CONTIGUOUS_FORMAT) { /* contiguous, is_contiguous */
        PyErr_Format(PyExc_TypeError,
                     "%s: argument 'memory_format' must be pydevtensor.memory_format, not "
                     "NoneType",
                     where);
        return -1;
    }
    return pdt_memory_format_from_object(S, kw[0], dflt, where, out);
}

/* _set_memory_formats(preserve, contiguous, channels_last, channels_last_3d): the
 * objects the memory_format= arguments recognise. */
static PyObject *f_set_memory_formats(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = pdt_state_of_module(module);
    if (nargs != PDT_NUM_MEMORY_FORMATS) {
        PyErr_SetString(PyExc_TypeError, "_set_memory_formats() takes the four memory formats");
        return NULL;
    }
    for (int i = 0; i < PDT_NUM_MEMORY_FORMATS; i++)
        Py_XSETREF(S->memory_formats[i], Py_NewRef(args[i]));
    Py_RETURN_NONE;
}

PyMethodDef pdt_memory_format_functions[] = {
    {"_set_memory_formats", (PyCFunction)(void (*)(void))f_set_memory_formats, METH_FASTCALL,
     "_set_memory_formats(preserve, contiguous, channels_last, channels_last_3d)"},
    {NULL, NULL, 0, NULL},
};
