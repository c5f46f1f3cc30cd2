/* tensor_create.c - empty, zeros, ones, full, arange, linspace, eye, the *_like
 * forms, rand, randn, randint and manual_seed.  Every one takes device= and
 * dtype=; sizes are varargs or one tuple, as in PyTorch. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "docstrings_create.h"
#include "pdt_elementwise.h"

/* A ValueError whose message has numbers in it: PyErr_Format knows no %g. */
/* A bad value: InvalidArgumentError, a ValueError and a RuntimeError (PyTorch raises
 * RuntimeError for these), or a plain ValueError without the module's state. */
static void value_error(pdt_state *S, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void value_error(pdt_state *S, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    PyErr_SetString(S ? S->InvalidArgumentError : PyExc_ValueError, msg);
}

int pdt_parse_sizes(PyObject *const *args, Py_ssize_t nargs, int *ndim, int64_t *shape,
                    const char *fname)
{
    PyObject *const *items = args;
    Py_ssize_t n = nargs;
    PyObject *seq = NULL;
    if (nargs == 1 && (PyTuple_Check(args[0]) || PyList_Check(args[0]))) {
        seq = PySequence_Tuple(args[0]); /* a list's copy: __index__ below may change it */
        if (!seq)
            return -1;
        items = PySequence_Fast_ITEMS(seq);
        n = PySequence_Fast_GET_SIZE(seq);
    }
    if (n > PDT_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "%s(): tensors have at most %d dimensions, got %zd sizes",
                     fname, PDT_MAX_DIMS, n);
        Py_XDECREF(seq);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyBool_Check(items[i]) || !PyIndex_Check(items[i])) {
            PyErr_Format(PyExc_TypeError,
                         "%s(): size must be a sequence of ints, but element %zd is %.100s", fname,
                         i, Py_TYPE(items[i])->tp_name);
            Py_XDECREF(seq);
            return -1;
        }
        Py_ssize_t v = PyNumber_AsSsize_t(items[i], PyExc_OverflowError); /* not clamped */
        if (v == -1 && PyErr_Occurred()) {
            if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_OverflowError,
                             "%s(): size %R at position %zd does not fit in int64", fname, items[i],
                             i);
            }
            Py_XDECREF(seq);
            return -1;
        }
        shape[i] = v;
    }
    Py_XDECREF(seq);
    *ndim = (int)n;
    return 0;
}

/* Common keywords of the creation functions. */
enum { KW_DTYPE, KW_DEVICE, KW_PIN, KW_REQUIRES_GRAD, KW_OUT, KW_EXTRA, KW_COUNT };

typedef struct {
    int dtype; /* -1: not given */
    pdt_device device;
    int pin;
    PyObject *out; /* borrowed; NULL: none (Note [factories into out]) */
} create_opts;

/* Note [factories into out]: zeros, ones, full, empty, eye, arange, linspace, rand, randn and
 * randint take out=, as PyTorch's.  The result is made in out's dtype on out's device (a
 * dtype= or device= that differs is refused, as PyTorch's); where out has the result's shape
 * and is contiguous, the factory writes into out's memory directly (new_empty), so that
 * randn(n, out=buf) in a loop allocates nothing; otherwise it makes a new tensor and
 * finish_out copies it into out (same shape) or out adopts it (an empty out that is no
 * view: Note [empty outs] in tensor_object.c).  An out with elements of another shape is
 * refused, as the elementwise ops refuse it (PyTorch resizes it); so is pin_memory=True
 * (PyTorch ignores it), requires_grad=True marks out, as PyTorch's.  Every check comes
 * before the first write, so a refused call leaves out as it was. */
static int parse_out(pdt_state *S, const char *fname, int device_given, create_opts *o)
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

static int parse_create_opts(pdt_state *S, const char *fname, PyObject *const *kwvalues,
                             PyObject *kwnames, const char *const *names, PyObject **kw,
                             create_opts *o)
{
    if (pdt_parse_keywords(fname, kwvalues, kwnames, names, kw) < 0)
        return -1;
    if (pdt_dtype_from_object(S, kw[KW_DTYPE], -1, &o->dtype) < 0 ||
        pdt_device_from_object(S, kw[KW_DEVICE], pdt_default_device(), &o->device) < 0 ||
        pdt_parse_bool(kw[KW_PIN], 0, "pin_memory", &o->pin) < 0)
        return -1;
    int rg = 0;
    if (pdt_parse_bool(kw[KW_REQUIRES_GRAD], 0, "requires_grad", &rg) < 0)
        return -1;
    (void)rg; /* applied to the result (also an out) by the _rg wrappers below */
    if (o->pin && o->device.kind != PDT_CPU) {
        PyErr_Format(PyExc_ValueError, "%s(): pin_memory=True needs a CPU tensor", fname);
        return -1;
    }
    o->out = kw[KW_OUT] == Py_None ? NULL : kw[KW_OUT];
    return o->out ? parse_out(S, fname, kw[KW_DEVICE] && kw[KW_DEVICE] != Py_None, o) : 0;
}

/* The positional arguments into the keyword slots they stand for (the i-th into
   *slots[i]), PyTorch's parameters being positional or by name; one given both ways,
   or more than n, is a TypeError. */
static int place_positional(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                            PyObject **const *slots, const char *const *names, Py_ssize_t n)
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

static int dtype_or_default(pdt_state *S, int dtype)
{
    return dtype >= 0 ? dtype : (int)((PdtDTypeObject *)S->default_dtype)->dtype;
}

/* Note [factories into out]: t a view of out's memory where the factory can write there */
static int into_out(const create_opts *o, int dtype, int ndim, const int64_t *shape, pdt_tensor *t)
{
    const pdt_tensor *ot = pdt_tensor_of(o->out);
    if ((int)ot->dtype != dtype || ot->ndim != ndim ||
        memcmp(ot->shape, shape, sizeof *shape * (size_t)ndim) || !pdt_tensor_is_contiguous(ot))
        return 0;
    pdt_tensor_share(t, ot);
    return 1;
}

static PyObject *new_empty(pdt_state *S, const create_opts *o, int dtype, int ndim,
                           const int64_t *shape, pdt_tensor *t)
{
    if (o->out && into_out(o, dtype, ndim, shape, t))
        return Py_None;
    pdt_status st = pdt_tensor_empty(o->device, (pdt_dtype)dtype, ndim, shape,
                                     o->pin ? PDT_STORAGE_PINNED : 0, t);
    return st == PDT_OK ? Py_None : pdt_raise(S, st);
}

/* finish_out for an out= (kept apart: the calls without one stay as short as before) */
static PyObject *write_out(pdt_state *S, const create_opts *o, const char *fname, pdt_tensor *t)
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
static inline PyObject *finish_out(pdt_state *S, const create_opts *o, const char *fname,
                                   pdt_tensor *t)
{
    return o->out ? write_out(S, o, fname, t) : pdt_tensor_wrap_new(S, t);
}

/* t filled with *value (none: left as made) and finished (finish_out); a number t's dtype
 * cannot hold is refused naming op and t's shape (pdt_number_refused), t released */
static PyObject *finish_fill(pdt_state *S, const create_opts *o, const char *op, pdt_tensor *t,
                             const pdt_scalar *value)
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
    return finish_out(S, o, op, t);
}

/* The size of fname(*size) or fname(size=...) (size_kw): one of the two. */
static int parse_size_arg(PyObject *const *args, Py_ssize_t nargs, PyObject *size_kw,
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

/* empty / zeros / ones(*size, dtype=None, device=None, ...), or size=... */
static PyObject *create_sized(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames, const char *fname, const pdt_scalar *value)
{
    pdt_state *S = pdt_state_of_module(module);
    static const char *const names[] = {"dtype", "device", "pin_memory", "requires_grad",
                                        "out",   "size",   NULL};
    PyObject *kw[KW_COUNT] = {NULL};
    create_opts o;
    int ndim;
    int64_t shape[PDT_MAX_DIMS];
    if (parse_create_opts(S, fname, args + nargs, kwnames, names, kw, &o) < 0 ||
        parse_size_arg(args, nargs, kw[KW_EXTRA], fname, &ndim, shape) < 0)
        return NULL;
    pdt_tensor t;
    if (!new_empty(S, &o, dtype_or_default(S, o.dtype), ndim, shape, &t))
        return NULL;
    return finish_fill(S, &o, fname, &t, value);
}

/* empty(*size, dtype=None, device=None, ..., memory_format=contiguous_format): uninitialised,
 * laid out as memory_format says (channels_last: dims N, H, W, C outermost first), as
 * PyTorch's; preserve_format has nothing to preserve and is refused, as PyTorch's. */
static PyObject *f_empty(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames)
{
    pdt_state *S = pdt_state_of_module(module);
    static const char *const names[] = {"dtype", "device", "pin_memory",    "requires_grad",
                                        "out",   "size",   "memory_format", NULL};
    PyObject *kw[KW_COUNT + 1] = {NULL};
    create_opts o;
    int ndim;
    int64_t shape[PDT_MAX_DIMS];
    pdt_memory_format fmt;
    if (parse_create_opts(S, "empty", args + nargs, kwnames, names, kw, &o) < 0 ||
        parse_size_arg(args, nargs, kw[KW_EXTRA], "empty", &ndim, shape) < 0 ||
        pdt_memory_format_from_object(S, kw[KW_EXTRA + 1] == Py_None ? NULL : kw[KW_EXTRA + 1],
                                      PDT_CONTIGUOUS_FORMAT, "empty()", &fmt) < 0)
        return NULL;
    const int *perm = NULL;
    if (fmt == PDT_PRESERVE_FORMAT) {
        PyErr_SetString(S->InvalidArgumentError,
                        "empty(): memory_format=preserve_format has no tensor to preserve the "
                        "layout of; give contiguous_format or channels_last(_3d)");
        return NULL;
    }
    if (fmt != PDT_CONTIGUOUS_FORMAT) {
        int rank = pdt_memory_format_perm(fmt, &perm);
        if (ndim != rank || o.pin) {
            char dims[128];
            PyErr_Format(S->InvalidArgumentError, "empty(): %s needs a rank %d shape%s, got %s",
                         fmt == PDT_CHANNELS_LAST ? "channels_last" : "channels_last_3d", rank,
                         o.pin ? " and no pin_memory" : "",
                         pdt_shape_str(ndim, shape, dims, sizeof dims));
            return NULL;
        }
    }
    pdt_tensor t;
    if (!perm)
        return new_empty(S, &o, dtype_or_default(S, o.dtype), ndim, shape, &t)
                   ? finish_fill(S, &o, "empty", &t, NULL)
                   : NULL;
    pdt_status st = pdt_tensor_empty_in_order(o.device, (pdt_dtype)dtype_or_default(S, o.dtype),
                                              ndim, shape, perm, &t);
    return st == PDT_OK ? finish_fill(S, &o, "empty", &t, NULL) : pdt_raise(S, st);
}

static PyObject *f_zeros(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
    pdt_scalar zero = {0, 0.0, 0};
    return create_sized(m, a, n, kw, "zeros", &zero);
}

static PyObject *f_ones(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
    pdt_scalar one = {0, 1.0, 1};
    return create_sized(m, a, n, kw, "ones", &one);
}

/* The dtype PyTorch infers for a Python scalar: bool, int64 or the default float. */
static int scalar_dtype(pdt_state *S, PyObject *obj, const pdt_scalar *v)
{
    if (PyBool_Check(obj))
        return PDT_BOOL;
    return v->is_float ? dtype_or_default(S, -1) : PDT_INT64;
}

/* A number argument of full, arange and linspace, or a 0-d tensor's value, as PyTorch
 * takes one (torch.arange(x.min(), x.max(), 0.01)): read by the tensor's item(), so that
 * a GPU tensor's device-to-host copy is counted and guarded as item()'s.  Returns a new
 * reference to the number (obj itself when it is no tensor) with *v parsed, or NULL. */
static PyObject *parse_number(pdt_state *S, PyObject *obj, const char *what, pdt_scalar *v)
{
    PyObject *number = pdt_is_tensor(S, obj) && pdt_tensor_of(obj)->ndim == 0
                           ? PyObject_CallMethod(obj, "item", NULL)
                           : Py_NewRef(obj);
    if (number && pdt_parse_scalar(number, what, v) < 0)
        Py_CLEAR(number);
    return number;
}

/* full(size, fill_value, *, dtype=None, device=None) */
static PyObject *f_full(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames)
{
    pdt_state *S = pdt_state_of_module(module);
    static const char *const names[] = {"dtype", "device",     "pin_memory", "requires_grad",
                                        "out",   "fill_value", "size",       NULL};
    PyObject *kw[KW_COUNT + 2] = {NULL};
    create_opts o;
    if (parse_create_opts(S, "full", args + nargs, kwnames, names, kw, &o) < 0)
        return NULL;
    PyObject **const slots[] = {&kw[KW_EXTRA + 1], &kw[KW_EXTRA]};
    static const char *const order[] = {"size", "fill_value"};
    if (place_positional("full", args, nargs, slots, order, 2) < 0)
        return NULL;
    PyObject *fill = kw[KW_EXTRA];
    if (!kw[KW_EXTRA + 1] || !fill) {
        PyErr_SetString(PyExc_TypeError, "full() takes (size, fill_value)");
        return NULL;
    }
    pdt_scalar v;
    int ndim;
    int64_t shape[PDT_MAX_DIMS];
    if (pdt_parse_sizes(&kw[KW_EXTRA + 1], 1, &ndim, shape, "full") < 0)
        return NULL;
    PyObject *number = parse_number(S, fill, "full(): fill_value", &v);
    if (!number)
        return NULL;
    pdt_tensor t;
    const int dt = o.dtype >= 0 ? o.dtype : scalar_dtype(S, number, &v);
    Py_DECREF(number);
    if (!new_empty(S, &o, dt, ndim, shape, &t))
        return NULL;
    return finish_fill(S, &o, "full", &t, &v);
}

/* zeros_like / ones_like / empty_like / full_like(t, [fill_value], *, dtype, device),
 * input moved to the front (create_like) */
static PyObject *create_like_args(pdt_state *S, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames, const char *fname, const pdt_scalar *value,
                                  int want_fill)
{
    static const char *const names[] = {"dtype", "device",     "pin_memory",    "requires_grad",
                                        "out",   "fill_value", "memory_format", NULL};
    PyObject *kw[KW_COUNT + 2] = {NULL};
    create_opts o;
    if (pdt_kwnames_has(kwnames, "out")) { /* as PyTorch's: the *_like functions take none */
        PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument 'out'", fname);
        return NULL;
    }
    if (parse_create_opts(S, fname, args + nargs, kwnames, names, kw, &o) < 0)
        return NULL;
    PyObject *fill = want_fill ? (nargs > 1 ? args[1] : kw[KW_EXTRA]) : NULL;
    if (nargs < 1 || nargs > 1 + want_fill || (want_fill && !fill) ||
        (!want_fill && kw[KW_EXTRA])) {
        PyErr_Format(PyExc_TypeError, "%s() takes (input%s)", fname,
                     want_fill ? ", fill_value" : "");
        return NULL;
    }
    if (!pdt_is_tensor(S, args[0])) {
        PyErr_Format(PyExc_TypeError, "%s(): input must be a Tensor, got %.100s", fname,
                     Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    const pdt_tensor *src = pdt_tensor_of(args[0]);
    if (!kw[KW_DEVICE])
        o.device = src->device;
    pdt_scalar v;
    if (fill) {
        if (pdt_parse_scalar(fill, "fill_value", &v) < 0)
            return NULL;
        value = &v;
    }
    int perm[PDT_MAX_DIMS];
    const int *order;
    if (pdt_like_order(S, kw[KW_EXTRA + 1], src, fname, perm, &order) < 0)
        return NULL;
    /* made row-major in the order's dims, then seen in src's (the strides of the order) */
    int64_t shape[PDT_MAX_DIMS], strides[PDT_MAX_DIMS];
    for (int i = 0; i < src->ndim; i++)
        shape[i] = src->shape[order ? order[i] : i];
    pdt_tensor t;
    if (!new_empty(S, &o, o.dtype >= 0 ? o.dtype : (int)src->dtype, src->ndim, shape, &t))
        return NULL;
    if (order) {
        for (int i = 0; i < src->ndim; i++)
            strides[order[i]] = t.strides[i];
        for (int i = 0; i < src->ndim; i++)
            t.shape[i] = src->shape[i], t.strides[i] = strides[i];
    }
    return finish_fill(S, &o, fname, &t, value);
}

/* the above, also called as fname(input=t, ...) */
static PyObject *create_like(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames, const char *fname, const pdt_scalar *value,
                             int want_fill)
{
    pdt_moved_input moved;
    if (pdt_input_to_front(&args, &nargs, &kwnames, &moved) < 0)
        return NULL;
    PyObject *r = create_like_args(pdt_state_of_module(module), args, nargs, kwnames, fname, value,
                                   want_fill);
    pdt_moved_input_clear(&moved);
    return r;
}

static PyObject *f_empty_like(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
    return create_like(m, a, n, kw, "empty_like", NULL, 0);
}

static PyObject *f_zeros_like(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
    pdt_scalar zero = {0, 0.0, 0};
    return create_like(m, a, n, kw, "zeros_like", &zero, 0);
}

static PyObject *f_ones_like(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
    pdt_scalar one = {0, 1.0, 1};
    return create_like(m, a, n, kw, "ones_like", &one, 0);
}

static PyObject *f_full_like(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
    return create_like(m, a, n, kw, "full_like", NULL, 1);
}

/* Fills a new contiguous 1-d tensor with start + i * step; last (or NULL) is written
 * as the last element, as NumPy's linspace ends exactly at its stop (start + (n - 1)
 * step can miss it by an ulp: linspace(-6, 5.4, 10) ended at 5.399999999999999, and
 * histogram's top bin lost the elements equal to the maximum). */
static PyObject *range_tensor(pdt_state *S, const char *name, const create_opts *o, int dtype,
                              int64_t n, double start, double step, const double *last)
{
    pdt_tensor t;
    if (!new_empty(S, o, dtype, 1, &n, &t))
        return NULL;
    pdt_status st = pdt_arange(name, &t, start, step);
    if (st == PDT_OK && last && n > 1) {
        pdt_tensor end = t; /* the last element: a view t's reference keeps alive */
        end.offset += n - 1;
        end.shape[0] = 1;
        st = pdt_fill(&end, (pdt_scalar){1, *last, 0});
    }
    if (st != PDT_OK) {
        pdt_tensor_release(&t);
        return pdt_raise(S, st);
    }
    return finish_out(S, o, name, &t);
}

static double scalar_as_double(const pdt_scalar *v) { return v->is_float ? v->f : (double)v->i; }

/* arange of integers: the count exact in 64 bits, and for an int64 result beyond 2**53
   (where doubles skip integers) the values too: 0, 1, ... made exactly, then
   start + i * step in int64. */
static PyObject *int_arange(pdt_state *S, const create_opts *o, int64_t start, int64_t end,
                            int64_t step)
{
    if (step == 0 || (step > 0 && end < start) || (step < 0 && end > start)) {
        value_error(S,
                    "arange(): step %lld cannot go from start %lld to end %lld (step must be "
                    "non-zero and point from start to end)",
                    (long long)step, (long long)start, (long long)end);
        return NULL;
    }
    /* |end - start| and |step| as unsigned: exact even from INT64_MIN to INT64_MAX */
    uint64_t span = step > 0 ? (uint64_t)end - (uint64_t)start : (uint64_t)start - (uint64_t)end;
    uint64_t stride = step > 0 ? (uint64_t)step : (uint64_t)0 - (uint64_t)step;
    uint64_t count = span / stride + (span % stride != 0);
    if (count > (uint64_t)PDT_MAX_NUMEL) {
        value_error(S, "arange(): %llu elements is too many", (unsigned long long)count);
        return NULL;
    }
    int dtype = o->dtype >= 0 ? o->dtype : PDT_INT64;
    const int64_t exact = (int64_t)1 << 53;
    int wide = start > exact || start < -exact || end > exact || end < -exact || step > exact ||
               step < -exact;
    if (dtype != PDT_INT64 || !wide)
        return range_tensor(S, "arange", o, dtype, (int64_t)count, (double)start, (double)step,
                            NULL);
    PyObject *r = range_tensor(S, "arange", o, dtype, (int64_t)count, 0.0, 1.0, NULL);
    if (!r)
        return NULL;
    const pdt_tensor *t = pdt_tensor_of(r);
    pdt_arg a = {.t = NULL, .s = {.is_float = 0, .i = start}}, b = {.t = t},
            alpha = {.t = NULL, .s = {.is_float = 0, .i = step}};
    pdt_status st = pdt_binary_alpha("arange", PDT_OP_ADD, a, b, alpha, t, NULL);
    if (st != PDT_OK) {
        Py_DECREF(r);
        return pdt_raise(S, st);
    }
    return r;
}

/* arange(end) / arange(start, end, step=1, *, dtype=None, device=None) */
static PyObject *f_arange(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames)
{
    pdt_state *S = pdt_state_of_module(module);
    static const char *const names[] = {"dtype",         "device", "pin_memory",
                                        "requires_grad", "out",    "step",
                                        "start",         "end",    NULL};
    PyObject *kw[KW_COUNT + 3] = {NULL};
    create_opts o;
    if (parse_create_opts(S, "arange", args + nargs, kwnames, names, kw, &o) < 0)
        return NULL;
    PyObject *kstart = kw[KW_EXTRA + 1], *kend = kw[KW_EXTRA + 2];
    pdt_scalar v[3] = {{0, 0, 0}, {0, 0, 0}, {0, 1, 1}};
    PyObject *objs[3] = {NULL, NULL, nargs == 3 ? args[2] : kw[KW_EXTRA]};
    if (nargs == 0 && kend) /* arange(start=0, end=10, step=2), as PyTorch names them */
        objs[0] = kstart, objs[1] = kend;
    else if (nargs == 1 && !kstart)
        objs[0] = kend ? args[0] : NULL, objs[1] = kend ? kend : args[0];
    else if ((nargs == 2 || nargs == 3) && !kstart && !kend)
        objs[0] = args[0], objs[1] = args[1];
    if (!objs[1] || nargs > 3 || (nargs == 3 && kw[KW_EXTRA])) {
        PyErr_SetString(PyExc_TypeError, "arange() takes (end) or (start, end, step=1), each "
                                         "positional or by name");
        return NULL;
    }
    static const char *const what[3] = {"arange(): start", "arange(): end", "arange(): step"};
    int any_float = 0;
    for (int i = 0; i < 3; i++) {
        PyObject *number = objs[i] ? parse_number(S, objs[i], what[i], &v[i]) : NULL;
        if (objs[i] && !number)
            return NULL;
        Py_XDECREF(number);
        any_float |= v[i].is_float;
    }
    if (!any_float)
        return int_arange(S, &o, v[0].i, v[1].i, v[2].i);
    double start = scalar_as_double(&v[0]), end = scalar_as_double(&v[1]),
           step = scalar_as_double(&v[2]);
    if (!isfinite(start) || !isfinite(end) || !isfinite(step)) {
        value_error(S, "arange(): start, end and step must be finite, got %g, %g, %g", start, end,
                    step);
        return NULL;
    }
    if (step == 0 || (end - start) * step < 0) {
        value_error(S,
                    "arange(): step %g cannot go from start %g to end %g (step must be "
                    "non-zero and point from start to end)",
                    step, start, end);
        return NULL;
    }
    double count = ceil((end - start) / step);
    if (count > (double)PDT_MAX_NUMEL) {
        value_error(S, "arange(): %g elements is too many", count);
        return NULL;
    }
    int dtype = o.dtype >= 0 ? o.dtype : any_float ? dtype_or_default(S, -1) : PDT_INT64;
    return range_tensor(S, "arange", &o, dtype, (int64_t)count, start, step, NULL);
}

/* linspace(start, end, steps, *, dtype=None, device=None) */
static PyObject *f_linspace(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    pdt_state *S = pdt_state_of_module(module);
    static const char *const names[] = {"dtype",         "device", "pin_memory",
                                        "requires_grad", "out",    "steps",
                                        "start",         "end",    NULL};
    PyObject *kw[KW_COUNT + 3] = {NULL};
    create_opts o;
    if (parse_create_opts(S, "linspace", args + nargs, kwnames, names, kw, &o) < 0)
        return NULL;
    PyObject **const slots[] = {&kw[KW_EXTRA + 1], &kw[KW_EXTRA + 2], &kw[KW_EXTRA]};
    static const char *const order[] = {"start", "end", "steps"};
    if (place_positional("linspace", args, nargs, slots, order, 3) < 0)
        return NULL;
    PyObject *steps_obj = kw[KW_EXTRA];
    if (!kw[KW_EXTRA + 1] || !kw[KW_EXTRA + 2] || !steps_obj) {
        PyErr_SetString(PyExc_TypeError, "linspace() takes (start, end, steps)");
        return NULL;
    }
    pdt_scalar a, b;
    int64_t steps;
    PyObject *na = parse_number(S, kw[KW_EXTRA + 1], "linspace(): start", &a);
    PyObject *nb = na ? parse_number(S, kw[KW_EXTRA + 2], "linspace(): end", &b) : NULL;
    Py_XDECREF(na);
    if (!nb)
        return NULL;
    Py_DECREF(nb);
    if (pdt_parse_int64(steps_obj, "linspace(): steps", &steps) < 0)
        return NULL;
    if (steps < 0) {
        PyErr_Format(PyExc_ValueError, "linspace(): steps must be >= 0, got %lld",
                     (long long)steps);
        return NULL;
    }
    double start = scalar_as_double(&a), end = scalar_as_double(&b);
    double step = steps > 1 ? (end - start) / (double)(steps - 1) : 0.0;
    return range_tensor(S, "linspace", &o, dtype_or_default(S, o.dtype), steps, start, step, &end);
}

/* eye(n, m=None, *, dtype=None, device=None) */
static PyObject *f_eye(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    pdt_state *S = pdt_state_of_module(module);
    static const char *const names[] = {"dtype", "device", "pin_memory", "requires_grad",
                                        "out",   "m",      "n",          NULL};
    PyObject *kw[KW_COUNT + 2] = {NULL};
    create_opts o;
    if (parse_create_opts(S, "eye", args + nargs, kwnames, names, kw, &o) < 0)
        return NULL;
    PyObject **const slots[] = {&kw[KW_EXTRA + 1], &kw[KW_EXTRA]};
    static const char *const order[] = {"n", "m"};
    if (place_positional("eye", args, nargs, slots, order, 2) < 0)
        return NULL;
    PyObject *m_obj = kw[KW_EXTRA];
    if (!kw[KW_EXTRA + 1]) {
        PyErr_SetString(PyExc_TypeError, "eye() takes (n, m=None)");
        return NULL;
    }
    int64_t shape[2];
    if (pdt_parse_int64(kw[KW_EXTRA + 1], "eye(): n", &shape[0]) < 0)
        return NULL;
    shape[1] = shape[0];
    if (m_obj && m_obj != Py_None && pdt_parse_int64(m_obj, "eye(): m", &shape[1]) < 0)
        return NULL;
    pdt_tensor t;
    pdt_scalar zero = {0, 0.0, 0}, one = {0, 1.0, 1};
    if (!new_empty(S, &o, dtype_or_default(S, o.dtype), 2, shape, &t))
        return NULL;
    pdt_status st = pdt_fill(&t, zero);
    if (st == PDT_OK) {
        pdt_tensor diag = t; /* borrowed view, not released separately */
        diag.ndim = 1;
        diag.shape[0] = shape[0] < shape[1] ? shape[0] : shape[1];
        diag.strides[0] = shape[1] + 1;
        st = pdt_fill(&diag, one);
    }
    if (st != PDT_OK) {
        pdt_tensor_release(&t);
        return pdt_raise(S, st);
    }
    return finish_out(S, &o, "eye", &t);
}

/* rand / randn(*size, dtype=None, device=None), or size=... */
static PyObject *create_random(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames, const char *fname, pdt_random_kind kind)
{
    pdt_state *S = pdt_state_of_module(module);
    static const char *const names[] = {"dtype", "device",    "pin_memory", "requires_grad",
                                        "out",   "generator", "size",       NULL};
    PyObject *kw[KW_COUNT + 1] = {NULL};
    create_opts o;
    int ndim;
    int64_t shape[PDT_MAX_DIMS];
    if (parse_create_opts(S, fname, args + nargs, kwnames, names, kw, &o) < 0)
        return NULL;
    pdt_generator *gen;
    if (pdt_generator_arg(S, kw[KW_EXTRA], fname, &gen) < 0)
        return NULL;
    if (parse_size_arg(args, nargs, kw[KW_EXTRA + 1], fname, &ndim, shape) < 0)
        return NULL;
    int dtype = dtype_or_default(S, o.dtype);
    if (!pdt_dtype_is_floating((pdt_dtype)dtype)) {
        PyErr_Format(S->DTypeError, "%s(): dtype must be a floating point dtype, got %s", fname,
                     pdt_dtype_name((pdt_dtype)dtype));
        return NULL;
    }
    pdt_tensor t;
    if (!new_empty(S, &o, dtype, ndim, shape, &t))
        return NULL;
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_random(&t, gen, kind, 0.0, 1.0, 0, 0); /* U[0, 1) or N(0, 1) */
    Py_END_ALLOW_THREADS
    if (st != PDT_OK) {
        pdt_tensor_release(&t);
        return pdt_raise(S, st);
    }
    return finish_out(S, &o, fname, &t);
}

static PyObject *f_rand(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
    return create_random(m, a, n, kw, "rand", PDT_RANDOM_UNIFORM);
}

static PyObject *f_randn(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
    return create_random(m, a, n, kw, "randn", PDT_RANDOM_NORMAL);
}

/* randint(high, size) / randint(low, high, size, *, dtype=int64, device=None); low, high
 * and size may be keywords, as PyTorch's (randint(low=0, high=10, size=(3,))) */
static PyObject *f_randint(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    pdt_state *S = pdt_state_of_module(module);
    static const char *const names[] = {"dtype", "device",    "pin_memory", "requires_grad", "out",
                                        "size",  "generator", "low",        "high",          NULL};
    PyObject *kw[KW_COUNT + 4] = {NULL};
    create_opts o;
    if (parse_create_opts(S, "randint", args + nargs, kwnames, names, kw, &o) < 0)
        return NULL;
    pdt_generator *gen;
    if (pdt_generator_arg(S, kw[KW_EXTRA + 1], "randint", &gen) < 0)
        return NULL;
    int64_t low = 0, high;
    PyObject *size = kw[KW_EXTRA], *klow = kw[KW_EXTRA + 2], *khigh = kw[KW_EXTRA + 3];
    Py_ssize_t nbounds = size || nargs == 0 ? nargs : nargs - 1;
    PyObject *olow = NULL, *ohigh = NULL;
    if (nbounds == 2 && !klow && !khigh)
        olow = args[0], ohigh = args[1];
    else if (nbounds == 1 && !klow)
        olow = khigh ? args[0] : NULL, ohigh = khigh ? khigh : args[0];
    else if (nbounds == 0)
        olow = klow, ohigh = khigh;
    if (!ohigh || (!size && nargs == 0)) {
        PyErr_SetString(PyExc_TypeError, "randint() takes (high, size) or (low, high, size), "
                                         "each positional or by name");
        return NULL;
    }
    if (!size)
        size = args[nargs - 1];
    if (olow && pdt_parse_int64(olow, "randint(): low", &low) < 0)
        return NULL;
    if (pdt_parse_int64(ohigh, "randint(): high", &high) < 0)
        return NULL;
    if (!PyTuple_Check(size) && !PyList_Check(size)) {
        PyErr_Format(PyExc_TypeError, "randint(): size must be a tuple of ints, got %.100s",
                     Py_TYPE(size)->tp_name);
        return NULL;
    }
    int ndim;
    int64_t shape[PDT_MAX_DIMS];
    if (pdt_parse_sizes(&size, 1, &ndim, shape, "randint") < 0)
        return NULL;
    if (high <= low) {
        PyErr_Format(S->InvalidArgumentError,
                     "randint(): random_ expects 'from' to be less than 'to', but got from=%lld "
                     ">= to=%lld",
                     (long long)low, (long long)high);
        return NULL;
    }
    pdt_tensor t;
    if (!new_empty(S, &o, o.dtype >= 0 ? o.dtype : PDT_INT64, ndim, shape, &t))
        return NULL;
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_random(&t, gen, PDT_RANDOM_INT, 0.0, 0.0, low, high);
    Py_END_ALLOW_THREADS
    if (st != PDT_OK) {
        pdt_tensor_release(&t);
        return pdt_raise(S, st);
    }
    return finish_out(S, &o, "randint", &t);
}

/* Fills self (any layout) from the generator: a contiguous tensor directly, a
 * strided one through a contiguous temporary on its device. */
static PyObject *random_fill_(PyObject *self, PyObject *generator, pdt_random_kind kind, double a,
                              double b, const char *name)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    const pdt_tensor *t = pdt_tensor_of(self);
    pdt_generator *gen;
    if (!S || pdt_generator_arg(S, generator, name, &gen) < 0)
        return NULL;
    if (!pdt_dtype_is_floating(t->dtype)) {
        PyErr_Format(PyExc_TypeError, "%s(): needs a float32 or float64 tensor, got %s", name,
                     pdt_dtype_name(t->dtype));
        return NULL;
    }
    pdt_status st;
    pdt_tensor tmp = {0};
    pdt_hold h = {0}; /* Note [the GIL and storages] */
    t = pdt_hold_view(&h, t);
    Py_BEGIN_ALLOW_THREADS
    if (pdt_tensor_is_contiguous(t)) {
        st = pdt_random(t, gen, kind, a, b, 0, 0);
    } else {
        st = pdt_tensor_empty(t->device, t->dtype, t->ndim, t->shape, 0, &tmp);
        if (st == PDT_OK)
            st = pdt_random(&tmp, gen, kind, a, b, 0, 0);
        if (st == PDT_OK)
            st = pdt_copy(t, &tmp, 0);
        pdt_tensor_release(&tmp);
    }
    Py_END_ALLOW_THREADS
    pdt_hold_release(&h);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    pdt_bump_version(self); /* Note [version counter] */
    return Py_NewRef(self);
}

/* uniform_(from=0, to=1, *, generator=None) and normal_(mean=0, std=1, *,
 * generator=None), in place, as in PyTorch; names[2] is "generator". */
static PyObject *two_doubles(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                             const char *fname, const char *const *names, double *a, double *b,
                             PyObject **generator)
{
    PyObject *kw[3] = {NULL, NULL, NULL};
    if (nargs > 2 || pdt_parse_keywords(fname, args + nargs, kwnames, names, kw) < 0) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "%s() takes at most 2 arguments", fname);
        return NULL;
    }
    for (int i = 0; i < 2; i++) {
        PyObject *o = i < nargs ? args[i] : kw[i];
        if (i < nargs && kw[i]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for '%s'", fname, names[i]);
            return NULL;
        }
        if (!o)
            continue;
        double v = PyFloat_AsDouble(o);
        if (v == -1.0 && PyErr_Occurred())
            return NULL;
        *(i ? b : a) = v;
    }
    *generator = kw[2];
    return Py_None;
}

static PyObject *t_uniform_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    PDT_AUTOGRAD_HOOK("uniform_", 1, self, args, nargs, kwnames);
    static const char *const names[] = {"from", "to", "generator", NULL};
    double a = 0.0, b = 1.0;
    PyObject *generator;
    if (!two_doubles(args, nargs, kwnames, "uniform_", names, &a, &b, &generator))
        return NULL;
    if (!(a <= b)) {
        value_error(pdt_state_of_type(Py_TYPE(self)),
                    "uniform_(): from (%g) must not exceed to (%g)", a, b);
        return NULL;
    }
    /* a range the dtype holds, width included, as PyTorch checks: else the draws are
     * inf (uniform_(0, inf), uniform_(-3e38, 3e38) in float32) */
    pdt_dtype dt = pdt_tensor_of(self)->dtype;
    if (pdt_dtype_is_floating(dt) &&
        (!isfinite(a) || !isfinite(b) || !pdt_scalar_fits(dt, (pdt_scalar){1, a, 0}) ||
         !pdt_scalar_fits(dt, (pdt_scalar){1, b, 0}) ||
         !pdt_scalar_fits(dt, (pdt_scalar){1, b - a, 0}))) {
        char dev[32];
        value_error(pdt_state_of_type(Py_TYPE(self)),
                    "uniform_(): the range [%g, %g) and its width %g must be finite in %s (a "
                    "tensor on %s)",
                    a, b, b - a, pdt_dtype_name(dt),
                    pdt_device_str(pdt_tensor_of(self)->device, dev, sizeof dev));
        return NULL;
    }
    return random_fill_(self, generator, PDT_RANDOM_UNIFORM, a, b, "uniform_");
}

static PyObject *t_normal_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    PDT_AUTOGRAD_HOOK("normal_", 1, self, args, nargs, kwnames);
    static const char *const names[] = {"mean", "std", "generator", NULL};
    double mean = 0.0, std = 1.0;
    PyObject *generator;
    if (!two_doubles(args, nargs, kwnames, "normal_", names, &mean, &std, &generator))
        return NULL;
    if (!(std >= 0)) {
        value_error(pdt_state_of_type(Py_TYPE(self)), "normal_(): std must be >= 0, got %g", std);
        return NULL;
    }
    return random_fill_(self, generator, PDT_RANDOM_NORMAL, mean, std, "normal_");
}

PyMethodDef pdt_tensor_random_methods[] = {
    {"uniform_", (PyCFunction)(void (*)(void))t_uniform_, METH_FASTCALL | METH_KEYWORDS,
     doc_uniform_},
    {"normal_", (PyCFunction)(void (*)(void))t_normal_, METH_FASTCALL | METH_KEYWORDS, doc_normal_},
    {NULL, NULL, 0, NULL},
};

static PyObject *f_manual_seed(PyObject *module, PyObject *seed)
{
    (void)module;
    if (PyBool_Check(seed) || !PyLong_Check(seed)) {
        PyErr_Format(PyExc_TypeError, "manual_seed(): seed must be an int, got %.100s",
                     Py_TYPE(seed)->tp_name);
        return NULL;
    }
    /* Any int works: it is reduced modulo 2^64, as PyTorch does. */
    unsigned long long s = PyLong_AsUnsignedLongLongMask(seed);
    if (s == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    pdt_manual_seed(s);
    Py_RETURN_NONE;
}

static PyObject *f_initial_seed(PyObject *module, PyObject *unused)
{
    (void)module, (void)unused;
    return PyLong_FromUnsignedLongLong(pdt_initial_seed());
}

/* requires_grad=True is applied to the finished tensor (autograd.c). */
#define RG_WRAP(NAME)                                                                              \
    static PyObject *f_##NAME##_rg(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)    \
    {                                                                                              \
        return pdt_finish_requires_grad(f_##NAME(m, a, n, kw), a + n, kw, #NAME);                  \
    }
RG_WRAP(empty)
RG_WRAP(zeros)
RG_WRAP(ones)
RG_WRAP(full)
RG_WRAP(empty_like)
RG_WRAP(zeros_like)
RG_WRAP(ones_like)
RG_WRAP(full_like)
RG_WRAP(arange)
RG_WRAP(linspace)
RG_WRAP(eye)
RG_WRAP(rand)
RG_WRAP(randn)
RG_WRAP(randint)

PyMethodDef pdt_create_functions[] = {
    {"empty", FASTKW(f_empty_rg), doc_empty},
    {"zeros", FASTKW(f_zeros_rg), doc_zeros},
    {"ones", FASTKW(f_ones_rg), doc_ones},
    {"full", FASTKW(f_full_rg), doc_full},
    {"empty_like", FASTKW(f_empty_like_rg), doc_empty_like},
    {"zeros_like", FASTKW(f_zeros_like_rg), doc_zeros_like},
    {"ones_like", FASTKW(f_ones_like_rg), doc_ones_like},
    {"full_like", FASTKW(f_full_like_rg), doc_full_like},
    {"arange", FASTKW(f_arange_rg), doc_arange},
    {"linspace", FASTKW(f_linspace_rg), doc_linspace},
    {"eye", FASTKW(f_eye_rg), doc_eye},
    {"rand", FASTKW(f_rand_rg), doc_rand},
    {"randn", FASTKW(f_randn_rg), doc_randn},
    {"randint", FASTKW(f_randint_rg), doc_randint},
    {"manual_seed", f_manual_seed, METH_O, doc_manual_seed},
    {"initial_seed", f_initial_seed, METH_NOARGS, doc_initial_seed},
    {NULL, NULL, 0, NULL},
};
