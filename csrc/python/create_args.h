/* create_args.h - what the creation functions (tensor_create.c, tensor_random.c) share:
 * their sizes, their common keywords (dtype, device, pin_memory, requires_grad, out) and
 * the making and finishing of their result, out= included (Note [factories into out]).
 * Defined here, static inline, so that each file's factories inline the short paths, as
 * when they were one file (as calls into another file, even with LTO, zeros(2, 3, dtype=)
 * took 27 ns more, 197 -> 224 ns); the out= paths (parse_out, write_out) stay out of line
 * (inlined, they made every factory 5-35 ns slower: arange(5) 135 -> 170 ns). */
#ifndef PDT_CREATE_ARGS_H
#define PDT_CREATE_ARGS_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "pdt_module.h"

/* The common keywords' slots in each function's names[]: "dtype", "device", "pin_memory",
 * "requires_grad", "out", then its own from KW_EXTRA on. */
enum { KW_DTYPE, KW_DEVICE, KW_PIN, KW_REQUIRES_GRAD, KW_OUT, KW_EXTRA, KW_COUNT };

typedef struct {
    int dtype; /* -1: not given */
    pdt_device device;
    int pin;
    PyObject *out; /* borrowed; NULL: none (Note [factories into out]) */
} pdt_create_opts;

/* A bad value: InvalidArgumentError, a ValueError and a RuntimeError (PyTorch raises
 * RuntimeError for these), or a plain ValueError without the module's state; PyErr_Format
 * knows no %g. */
static inline void pdt_create_value_error(pdt_state *S, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    PyErr_SetString(S ? S->InvalidArgumentError : PyExc_ValueError, msg);
}

/* Note [factories into out]: zeros, ones, full, empty, eye, arange, linspace, rand, randn and
 * randint take out=, as PyTorch's.  The result is made in out's dtype on out's device (a
 * dtype= or device= that differs is refused, as PyTorch's); where out has the result's shape
 * and is contiguous, the factory writes into out's memory directly (pdt_create_empty), so that
 * randn(n, out=buf) in a loop allocates nothing; otherwise it makes a new tensor and
 * pdt_create_finish copies it into out (same shape) or out adopts it (an empty out that is no
 * view: Note [empty outs] in tensor_object.c).  An out with elements of another shape is
 * refused, as the elementwise ops refuse it (PyTorch resizes it); so is pin_memory=True
 * (PyTorch ignores it), requires_grad=True marks out, as PyTorch's.  Every check comes
 * before the first write, so a refused call leaves out as it was. */
/* out of line: see the top of the file */
__attribute__((noinline)) static int parse_out(pdt_state *S, const char *fname, int device_given,
                                               pdt_create_opts *o)
{
    if (!pdt_is_tensor(S, o->out)) {
        PyErr_Format(PyExc_TypeError, "%s(): out must be a Tensor, got %.100s", fname,
                     Py_TYPE(o->out)->tp_name);
        return -1;
    }
    const pdt_tensor *t = pdt_tensor_of(o->out);
    char want[32], have[32];
    pdt_device_str(t->device, have, sizeof have);
    if (o->dtype >= 0 && o->dtype != (int)t->dtype) {
        PyErr_Format(S->DTypeError, "%s(): dtype %s does not match out's dtype %s (out on %s)",
                     fname, pdt_dtype_name((pdt_dtype)o->dtype), pdt_dtype_name(t->dtype), have);
        return -1;
    }
    if (device_given && !pdt_device_eq(o->device, t->device)) {
        PyErr_Format(S->DeviceError, "%s(): device %s does not match out's device %s", fname,
                     pdt_device_str(o->device, want, sizeof want), have);
        return -1;
    }
    if (o->pin) {
        PyErr_Format(S->InvalidArgumentError,
                     "%s(): out= takes no pin_memory=True: out's memory is already allocated "
                     "(out on %s)",
                     fname, have);
        return -1;
    }
    if (pdt_grad_enabled() && pdt_tensor_object_requires_grad((PdtTensorObject *)o->out)) {
        PyErr_Format(PyExc_RuntimeError,
                     "%s(): functions with out=... arguments don't support automatic "
                     "differentiation, but one of the arguments requires grad.",
                     fname);
        return -1;
    }
    o->dtype = (int)t->dtype;
    o->device = t->device;
    return 0;
}

static inline int pdt_create_parse_opts(pdt_state *S, const char *fname, PyObject *const *kwvalues,
                                        PyObject *kwnames, const char *const *names, PyObject **kw,
                                        pdt_create_opts *o)
{
    if (pdt_parse_keywords(fname, kwvalues, kwnames, names, kw) < 0)
        return -1;
    if (pdt_dtype_from_object(S, kw[KW_DTYPE], -1, &o->dtype) < 0 ||
        pdt_device_from_object(S, kw[KW_DEVICE], pdt_default_device(), &o->device) < 0 ||
        pdt_parse_bool(kw[KW_PIN], 0, fname, "pin_memory", &o->pin) < 0)
        return -1;
    int rg = 0;
    if (pdt_parse_bool(kw[KW_REQUIRES_GRAD], 0, fname, "requires_grad", &rg) < 0)
        return -1;
    (void)rg; /* applied to the result (also an out) by the _rg wrappers below */
    if (o->pin && o->device.kind != PDT_CPU) {
        PyErr_Format(PyExc_ValueError, "%s(): pin_memory=True needs a CPU tensor", fname);
        return -1;
    }
    o->out = kw[KW_OUT] == Py_None ? NULL : kw[KW_OUT];
    return o->out ? parse_out(S, fname, kw[KW_DEVICE] && kw[KW_DEVICE] != Py_None, o) : 0;
}

static inline int pdt_create_place_positional(const char *fname, PyObject *const *args,
                                              Py_ssize_t nargs, PyObject **const *slots,
                                              const char *const *names, Py_ssize_t n)
{
    if (nargs > n) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %zd positional arguments (%zd given)",
                     fname, n, nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        if (*slots[i]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                         names[i]);
            return -1;
        }
        *slots[i] = args[i];
    }
    return 0;
}

static inline int pdt_create_dtype(pdt_state *S, int dtype)
{
    return dtype >= 0 ? dtype : (int)((PdtDTypeObject *)S->default_dtype)->dtype;
}

/* Note [factories into out]: t a view of out's memory where the factory can write there */
static inline int into_out(const pdt_create_opts *o, int dtype, int ndim, const int64_t *shape,
                           pdt_tensor *t)
{
    const pdt_tensor *ot = pdt_tensor_of(o->out);
    if ((int)ot->dtype != dtype || ot->ndim != ndim ||
        memcmp(ot->shape, shape, sizeof *shape * (size_t)ndim) || !pdt_tensor_is_contiguous(ot))
        return 0;
    pdt_tensor_share(t, ot);
    return 1;
}

/* *t a new row-major tensor of o's device (or out's memory: Note [factories into out]);
 * Py_None (borrowed) or NULL with the exception set. */
static inline PyObject *pdt_create_empty(pdt_state *S, const pdt_create_opts *o, int dtype,
                                         int ndim, const int64_t *shape, pdt_tensor *t)
{
    if (o->out && into_out(o, dtype, ndim, shape, t))
        return Py_None;
    pdt_status st = pdt_tensor_empty(o->device, (pdt_dtype)dtype, ndim, shape,
                                     o->pin ? PDT_STORAGE_PINNED : 0, t);
    return st == PDT_OK ? Py_None : pdt_raise(S, st);
}

/* pdt_create_finish for an out= (out of line: see the top of the file) */
__attribute__((noinline)) static PyObject *write_out(pdt_state *S, const pdt_create_opts *o,
                                                     const char *fname, pdt_tensor *t)
{
    PyObject *out = o->out;
    const pdt_tensor *ot = pdt_tensor_of(out);
    if (t->storage != ot->storage || t->offset != ot->offset) { /* made apart from out */
        int same = ot->ndim == t->ndim &&
                   !memcmp(ot->shape, t->shape, sizeof *t->shape * (size_t)t->ndim);
        if (!same && (pdt_tensor_numel(ot) != 0 || ((PdtTensorObject *)out)->base)) {
            char dev[32], os[128], rs[128];
            PyErr_Format(S->InvalidArgumentError,
                         "%s(): out has shape %s, the result shape %s (on %s): give an out of "
                         "the result's shape, or an empty one",
                         fname, pdt_shape_str(ot->ndim, ot->shape, os, sizeof os),
                         pdt_shape_str(t->ndim, t->shape, rs, sizeof rs),
                         pdt_device_str(ot->device, dev, sizeof dev));
            pdt_tensor_release(t);
            return NULL;
        }
        if (!same) {
            PyObject *fresh = pdt_tensor_wrap_new(S, t);
            if (!fresh || pdt_out_adopt(out, fresh) < 0)
                return NULL;
        } else {
            pdt_status st;
            pdt_hold h; /* Note [the GIL and storages] */
            h.n = 0;
            ot = pdt_hold_view(&h, ot);
            Py_BEGIN_ALLOW_THREADS
            st = pdt_copy(ot, t, 0);
            Py_END_ALLOW_THREADS
            pdt_hold_release(&h);
            pdt_tensor_release(t);
            if (st != PDT_OK)
                return pdt_raise(S, st);
        }
    } else {
        pdt_tensor_release(t);
    }
    pdt_bump_version(out); /* Note [version counter] */
    return Py_NewRef(out);
}

/* The finished t (owned): wrapped, or written into o->out, which is returned (Note
 * [factories into out]); t released either way */
static inline PyObject *pdt_create_finish(pdt_state *S, const pdt_create_opts *o, const char *fname,
                                          pdt_tensor *t)
{
    return o->out ? write_out(S, o, fname, t) : pdt_tensor_wrap_new(S, t);
}

/* t filled with *value (none: left as made) and finished (pdt_create_finish); a number t's
 * dtype cannot hold is refused naming op and t's shape (pdt_number_refused), t released */
static inline PyObject *pdt_create_fill(pdt_state *S, const pdt_create_opts *o, const char *op,
                                        pdt_tensor *t, const pdt_scalar *value)
{
    if (value && pdt_number_refused(S, op, *value, t) < 0) {
        pdt_tensor_release(t);
        return NULL;
    }
    if (value) {
        pdt_status st;
        if (pdt_tensor_numel(t) > PDT_GIL_RELEASE_NUMEL) {
            Py_BEGIN_ALLOW_THREADS
            st = pdt_fill(t, *value);
            Py_END_ALLOW_THREADS
        } else {
            st = pdt_fill(t, *value);
        }
        if (st != PDT_OK) {
            pdt_tensor_release(t);
            return pdt_raise(S, st);
        }
    }
    return pdt_create_finish(S, o, op, t);
}

static inline int pdt_create_parse_size(PyObject *const *args, Py_ssize_t nargs, PyObject *size_kw,
                                        const char *fname, int *ndim, int64_t *shape)
{
    if (size_kw && nargs > 0) {
        PyErr_Format(PyExc_TypeError, "%s() got the size twice: as arguments and as size=", fname);
        return -1;
    }
    if (!size_kw && nargs == 0) {
        PyErr_Format(PyExc_TypeError,
                     "%s() missing the size: write %s(2, 3), %s((2, 3)) or %s(size=(2, 3))", fname,
                     fname, fname, fname);
        return -1;
    }
    return size_kw ? pdt_parse_sizes(&size_kw, 1, ndim, shape, fname)
                   : pdt_parse_sizes(args, nargs, ndim, shape, fname);
}

/* requires_grad=True is applied to the finished tensor (autograd.c). */
#define PDT_CREATE_RG_WRAP(NAME)                                                                   \
    static PyObject *f_##NAME##_rg(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)    \
    {                                                                                              \
        return pdt_finish_requires_grad(f_##NAME(m, a, n, kw), a + n, kw, #NAME);                  \
    }

#endif
