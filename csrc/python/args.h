/* args.h - small helpers for METH_FASTCALL | METH_KEYWORDS entry points:
 * keyword lookup by name with a clear error for unknown keywords. */
#ifndef PDT_ARGS_H
#define PDT_ARGS_H

#include "pdt_module.h"

/* For each keyword in kwnames (values at kwvalues), stores the value in
 * out[i] where names[i] matches; an unknown keyword or a keyword given twice
 * raises TypeError naming fname.  names is NULL-terminated; out[] must be
 * pre-set (NULL for "not given"). */
int pdt_parse_keywords(const char *fname, PyObject *const *kwvalues, PyObject *kwnames,
                       const char *const *names, PyObject **out);

/* Whether kwnames (a vectorcall's keyword names, or NULL) holds name. */
int pdt_kwnames_has(PyObject *kwnames, const char *name);

/* A bool-ish keyword value (None/absent -> dflt). */
int pdt_parse_bool(PyObject *obj, int dflt, const char *fname, const char *what, int *out);
/* A Python int (not bool) to int64 with a message naming what. */
int pdt_parse_int64(PyObject *obj, const char *what, int64_t *out);
/* 1 and *out set when obj is exactly a Python int that fits in 64 bits; 0 (no error
 * set) otherwise, for pdt_parse_int64 and its message.  Callers that compose the
 * message with snprintf try this first: a dim or two written into a message on every
 * call cost about 0.1 us each (sum(1), transpose(0, 1)). */
static inline int pdt_exact_int64(PyObject *obj, int64_t *out)
{
    if (!PyLong_CheckExact(obj))
        return 0;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    *out = v;
    return 1;
}
/* A Python number to a pdt_scalar (bool and int -> integer, float -> float). */
int pdt_parse_scalar(PyObject *obj, const char *what, pdt_scalar *out);
/* pdt_parse_scalar, but an integer beyond int64 (a Python int, NumPy's uint64) is no
 * error: *wide becomes 1 and out holds it as the nearest double (is_float 1); an int
 * beyond the doubles still raises OverflowError (Note [ints beyond 64 bits] in
 * wide_ints.c). */
int pdt_parse_scalar_wide(PyObject *obj, const char *what, pdt_scalar *out, int *wide);

/* A METH_FASTCALL | METH_KEYWORDS method table entry for f. */
#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

typedef PyObject *(*pdt_method_fn)(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames);
/* A call's arguments with input= moved to the front (pdt_input_to_front). */
#define PDT_MOVED_MAX 16
typedef struct pdt_moved_input {
    PyObject *stack[PDT_MOVED_MAX];
    PyObject *kwnames; /* a new reference, or NULL */
} pdt_moved_input;
/* A function whose first argument is `input`, called with input= and nothing
 * positional (torch.sum(input=t), torch.zeros_like(input=t)): *args, *nargs and
 * *kwnames are rewritten to the same call with input first (pointing into m,
 * which pdt_moved_input_clear releases).  Any other call is left as it is.
 * Returns 0, or -1 with an exception. */
int pdt_input_to_front(PyObject *const **args, Py_ssize_t *nargs, PyObject **kwnames,
                       pdt_moved_input *m);
void pdt_moved_input_clear(pdt_moved_input *m);
/* The function form fname(input, ...) of a Tensor method: input is the first
 * positional argument, or the keyword input=, and must be a Tensor. */
PyObject *pdt_function_form(const char *fname, PyObject *module, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames, pdt_method_fn method);
/* dim: an int, or a tuple/list of ints (*n of them); None gives *n = -1 (all). */
int pdt_parse_dims(PyObject *obj, const char *fname, int *n, int64_t *dims);

#endif /* PDT_ARGS_H */
