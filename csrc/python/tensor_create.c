/* tensor_create.c - empty, zeros, ones, full, arange, linspace, eye and the *_like
 * forms (rand, randn, randint: tensor_random.c).  Every one takes device= and dtype=;
 * sizes are varargs or one tuple, as in PyTorch. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "create_args.h"
#include "docstrings_create.h"
#include "pdt_elementwise.h"
#include "wide_ints.h"

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

/* empty's memory_format= (fmt, not None): contiguous_format (*perm NULL), or channels_last(_3d)
 * laid out so (*perm: dims N, H, W, C outermost first), as PyTorch's; preserve_format has
 * nothing to preserve and is refused, as PyTorch's. */
static int empty_layout(pdt_state *S, PyObject *fmt_obj, int ndim, const int64_t *shape, int pin,
                        const int **perm)
{
    pdt_memory_format fmt;
    *perm = NULL;
    if (pdt_memory_format_from_object(S, fmt_obj, PDT_CONTIGUOUS_FORMAT, "empty()", &fmt) < 0)
        return -1;
    if (fmt == PDT_PRESERVE_FORMAT) {
        PyErr_SetString(S->InvalidArgumentError,
                        "empty(): memory_format=preserve_format has no tensor to preserve the "
                        "layout of; give contiguous_format or channels_last(_3d)");
        return -1;
    }
    if (fmt == PDT_CONTIGUOUS_FORMAT)
        return 0;
    int rank = pdt_memory_format_perm(fmt, perm);
    if (ndim != rank || pin) {
        char dims[128];
        PyErr_Format(S->InvalidArgumentError, "empty(): %s needs a rank %d shape%s, got %s",
                     fmt == PDT_CHANNELS_LAST ? "channels_last" : "channels_last_3d", rank,
                     pin ? " and no pin_memory" : "",
                     pdt_shape_str(ndim, shape, dims, sizeof dims));
        return -1;
    }
    return 0;
}

/* empty (value NULL) / zeros / ones(*size, dtype=None, device=None, ...), or size=...; only
 * empty takes memory_format= (empty_layout), as PyTorch's */
static PyObject *create_sized(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames, const char *fname, const pdt_scalar *value)
{
    pdt_state *S = pdt_state_of_module(module);
    static const char *const names[] = {"dtype", "device", "pin_memory",    "requires_grad",
                                        "out",   "size",   "memory_format", NULL};
    PyObject *kw[KW_COUNT + 1] = {NULL};
    pdt_create_opts o;
    int ndim;
    int64_t shape[PDT_MAX_DIMS];
    if (pdt_create_parse_opts(S, fname, args + nargs, kwnames, names, kw, &o) < 0 ||
        pdt_create_parse_size(args, nargs, kw[KW_EXTRA], fname, &ndim, shape) < 0)
        return NULL;
    PyObject *fmt = kw[KW_EXTRA + 1];
    if (fmt && value) {
        PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument 'memory_format'",
                     fname);
        return NULL;
    }
    const int *perm = NULL;
    if (fmt && fmt != Py_None && empty_layout(S, fmt, ndim, shape, o.pin, &perm) < 0)
        return NULL;
    pdt_tensor t;
    int dtype = pdt_create_dtype(S, o.dtype);
    if (!perm)
        return pdt_create_empty(S, &o, dtype, ndim, shape, &t)
                   ? pdt_create_fill(S, &o, fname, &t, value)
                   : NULL;
    pdt_status st = pdt_tensor_empty_in_order(o.device, (pdt_dtype)dtype, ndim, shape, perm, &t);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    pdt_empty_format_strides(&t, ndim, perm);
    return pdt_create_fill(S, &o, fname, &t, value);
}

static PyObject *f_empty(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
    return create_sized(m, a, n, kw, "empty", NULL);
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

/* The OverflowError of an int beyond 64 bits (obj) as a value of the integer dtype dt;
 * NULL. */
static PyObject *wide_refused(const char *what, PyObject *obj, int dt)
{
    PyErr_Format(PyExc_OverflowError, "%s: the integer %R does not fit in 64 bits (dtype %s)", what,
                 obj, pdt_dtype_name(dt));
    return NULL;
}

/* The dtype PyTorch infers for a Python scalar: bool, int64 or the default float. */
static int scalar_dtype(pdt_state *S, PyObject *obj, const pdt_scalar *v)
{
    if (PyBool_Check(obj))
        return PDT_BOOL;
    return v->is_float ? pdt_create_dtype(S, -1) : PDT_INT64;
}

/* A number argument of full, arange and linspace, or a 0-d tensor's value, as PyTorch
 * takes one (torch.arange(x.min(), x.max(), 0.01)): read by the tensor's item(), so that
 * a GPU tensor's device-to-host copy is counted and guarded as item()'s.  Returns a new
 * reference to the number (obj itself when it is no tensor) with *v parsed, or NULL.
 * wide: NULL, or where an int beyond 64 bits is taken as its nearest double (the caller
 * refuses it unless pdt_wide_holds the dtype: Note [ints beyond 64 bits] in wide_ints.c). */
static PyObject *parse_number(pdt_state *S, PyObject *obj, const char *what, pdt_scalar *v,
                              int *wide)
{
    PyObject *number = pdt_is_tensor(S, obj) && pdt_tensor_of(obj)->ndim == 0
                           ? PyObject_CallMethod(obj, "item", NULL)
                           : Py_NewRef(obj);
    if (number && (wide ? pdt_parse_scalar_wide(number, what, v, wide)
                        : pdt_parse_scalar(number, what, v)) < 0)
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
    pdt_create_opts o;
    if (pdt_create_parse_opts(S, "full", args + nargs, kwnames, names, kw, &o) < 0)
        return NULL;
    PyObject **const slots[] = {&kw[KW_EXTRA + 1], &kw[KW_EXTRA]};
    static const char *const order[] = {"size", "fill_value"};
    if (pdt_create_place_positional("full", args, nargs, slots, order, 2) < 0)
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
    int wide;
    PyObject *number = parse_number(S, fill, "full(): fill_value", &v, &wide);
    if (!number)
        return NULL;
    pdt_tensor t;
    const int dt = o.dtype >= 0 ? o.dtype : wide ? PDT_INT64 : scalar_dtype(S, number, &v);
    Py_DECREF(number);
    if (wide && !pdt_wide_holds(dt))
        return wide_refused("full(): fill_value", fill, dt);
    if (!pdt_create_empty(S, &o, dt, ndim, shape, &t))
        return NULL;
    return pdt_create_fill(S, &o, "full", &t, &v);
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
    pdt_create_opts o;
    if (pdt_kwnames_has(kwnames, "out")) { /* as PyTorch's: the *_like functions take none */
        PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument 'out'", fname);
        return NULL;
    }
    if (pdt_create_parse_opts(S, fname, args + nargs, kwnames, names, kw, &o) < 0)
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
        int wide;
        const int dt = o.dtype >= 0 ? o.dtype : (int)src->dtype;
        if (pdt_parse_scalar_wide(fill, "fill_value", &v, &wide) < 0)
            return NULL;
        if (wide && !pdt_wide_holds(dt))
            return wide_refused("fill_value", fill, dt);
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
    if (!pdt_create_empty(S, &o, o.dtype >= 0 ? o.dtype : (int)src->dtype, src->ndim, shape, &t))
        return NULL;
    if (order) {
        for (int i = 0; i < src->ndim; i++)
            strides[order[i]] = t.strides[i];
        for (int i = 0; i < src->ndim; i++)
            t.shape[i] = src->shape[i], t.strides[i] = strides[i];
    }
    return pdt_create_fill(S, &o, fname, &t, value);
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
static PyObject *range_tensor(pdt_state *S, const char *name, const pdt_create_opts *o, int dtype,
                              int64_t n, double start, double step, const double *last)
{
    pdt_tensor t;
    if (!pdt_create_empty(S, o, dtype, 1, &n, &t))
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
    return pdt_create_finish(S, o, name, &t);
}

static double scalar_as_double(const pdt_scalar *v) { return v->is_float ? v->f : (double)v->i; }

/* arange of integers: the count exact in 64 bits, and for an int64 result beyond 2**53
   (where doubles skip integers) the values too: 0, 1, ... made exactly, then
   start + i * step in int64. */
static PyObject *int_arange(pdt_state *S, const pdt_create_opts *o, int64_t start, int64_t end,
                            int64_t step)
{
    if (step == 0 || (step > 0 && end < start) || (step < 0 && end > start)) {
        pdt_create_value_error(
            S,
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
        pdt_create_value_error(S, "arange(): %llu elements is too many", (unsigned long long)count);
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
    pdt_create_opts o;
    if (pdt_create_parse_opts(S, "arange", args + nargs, kwnames, names, kw, &o) < 0)
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
        PyObject *number = objs[i] ? parse_number(S, objs[i], what[i], &v[i], NULL) : NULL;
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
        pdt_create_value_error(S, "arange(): start, end and step must be finite, got %g, %g, %g",
                               start, end, step);
        return NULL;
    }
    if (step == 0 || (end - start) * step < 0) {
        pdt_create_value_error(S,
                               "arange(): step %g cannot go from start %g to end %g (step must be "
                               "non-zero and point from start to end)",
                               step, start, end);
        return NULL;
    }
    double count = ceil((end - start) / step);
    if (count > (double)PDT_MAX_NUMEL) {
        pdt_create_value_error(S, "arange(): %g elements is too many", count);
        return NULL;
    }
    int dtype = o.dtype >= 0 ? o.dtype : any_float ? pdt_create_dtype(S, -1) : PDT_INT64;
    /* An integer result counts its elements from the numbers given but steps from start
     * and step cast to the integer type, as PyTorch's and NumPy's (arange(0, 5, 1.5,
     * dtype=int64) is [0, 1, 2, 3], not the truncations [0, 1, 3, 4] of 0, 1.5, 3, 4.5) */
    if (!pdt_dtype_is_floating(dtype) && dtype != PDT_BOOL) {
        start = trunc(start);
        step = trunc(step);
    }
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
    pdt_create_opts o;
    if (pdt_create_parse_opts(S, "linspace", args + nargs, kwnames, names, kw, &o) < 0)
        return NULL;
    PyObject **const slots[] = {&kw[KW_EXTRA + 1], &kw[KW_EXTRA + 2], &kw[KW_EXTRA]};
    static const char *const order[] = {"start", "end", "steps"};
    if (pdt_create_place_positional("linspace", args, nargs, slots, order, 3) < 0)
        return NULL;
    PyObject *steps_obj = kw[KW_EXTRA];
    if (!kw[KW_EXTRA + 1] || !kw[KW_EXTRA + 2] || !steps_obj) {
        PyErr_SetString(PyExc_TypeError, "linspace() takes (start, end, steps)");
        return NULL;
    }
    pdt_scalar a, b;
    int64_t steps;
    PyObject *na = parse_number(S, kw[KW_EXTRA + 1], "linspace(): start", &a, NULL);
    PyObject *nb = na ? parse_number(S, kw[KW_EXTRA + 2], "linspace(): end", &b, NULL) : NULL;
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
    const int dtype = pdt_create_dtype(S, o.dtype);
    /* an integer dtype takes start and end as its integers first, as PyTorch's (and as
     * arange does): linspace(-2.5, 7, 7, dtype=int64) is the truncations of -2, -0.5, 1,
     * ..., 7, i.e. [-2, 0, 1, 2, 4, 5, 7], not those of -2.5, -0.92, 0.67, ... */
    if (!pdt_dtype_is_floating(dtype) && dtype != PDT_BOOL) {
        start = trunc(start);
        end = trunc(end);
    }
    double step = steps > 1 ? (end - start) / (double)(steps - 1) : 0.0;
    return range_tensor(S, "linspace", &o, dtype, steps, start, step, &end);
}

/* eye(n, m=None, *, dtype=None, device=None) */
static PyObject *f_eye(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    pdt_state *S = pdt_state_of_module(module);
    static const char *const names[] = {"dtype", "device", "pin_memory", "requires_grad",
                                        "out",   "m",      "n",          NULL};
    PyObject *kw[KW_COUNT + 2] = {NULL};
    pdt_create_opts o;
    if (pdt_create_parse_opts(S, "eye", args + nargs, kwnames, names, kw, &o) < 0)
        return NULL;
    PyObject **const slots[] = {&kw[KW_EXTRA + 1], &kw[KW_EXTRA]};
    static const char *const order[] = {"n", "m"};
    if (pdt_create_place_positional("eye", args, nargs, slots, order, 2) < 0)
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
    if (!pdt_create_empty(S, &o, pdt_create_dtype(S, o.dtype), 2, shape, &t))
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
    return pdt_create_finish(S, &o, "eye", &t);
}

PDT_CREATE_RG_WRAP(empty)
PDT_CREATE_RG_WRAP(zeros)
PDT_CREATE_RG_WRAP(ones)
PDT_CREATE_RG_WRAP(full)
PDT_CREATE_RG_WRAP(empty_like)
PDT_CREATE_RG_WRAP(zeros_like)
PDT_CREATE_RG_WRAP(ones_like)
PDT_CREATE_RG_WRAP(full_like)
PDT_CREATE_RG_WRAP(arange)
PDT_CREATE_RG_WRAP(linspace)
PDT_CREATE_RG_WRAP(eye)

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
    {NULL, NULL, 0, NULL},
};
