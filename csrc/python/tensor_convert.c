/* tensor_convert.c - data into tensors: tensor(data) from nested sequences,
 * scalars, buffers (NumPy arrays) and other libraries' arrays; from_numpy
 * (zero-copy).  Data out of tensors is in tensor_export.c. */
#include <string.h>

#include "args.h"
#include "docstrings_tensor.h"
#include "pdt_convert.h"
#include "pdt_half.h"
#include "wide_ints.h"

/* ---- nested sequences ---- */

typedef struct {
    pdt_state *S;
    int ndim;
    int64_t shape[PDT_MAX_DIMS];
    int seen_float, seen_int, seen_bool;
    int seen_array;  /* a NumPy array (any buffer that is a sequence) among the data */
    int numpy_dtype; /* the promoted dtype of the NumPy scalars and 0-d tensors there, or -1 */
} infer_state;

/* An array where a number or a sequence is expected: an object with a buffer that is a
 * sequence (NumPy's arrays, 0-d ones too, but not its scalars, which are no
 * sequences), but none of our tensors (refused there unless they hold one element,
 * as PyTorch) and no bytes. */
static int is_array_leaf(const infer_state *st, PyObject *o)
{
    return PyObject_CheckBuffer(o) && PySequence_Check(o) && !PyBytes_Check(o) &&
           !PyByteArray_Check(o) && !pdt_is_tensor(st->S, o);
}

static int is_scalar(PyObject *o)
{
    return PyFloat_Check(o) || PyLong_Check(o) || (PyNumber_Check(o) && !PySequence_Check(o));
}

/* Walks the first element at each depth to find the shape. */
static int infer_shape(PyObject *data, infer_state *st, const char *where)
{
    PyObject *o = data;
    st->ndim = 0;
    while (PyList_Check(o) || PyTuple_Check(o)) {
        if (st->ndim == PDT_MAX_DIMS) {
            PyErr_Format(PyExc_ValueError, "%s: nesting deeper than %d levels", where,
                         PDT_MAX_DIMS);
            return -1;
        }
        Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
        st->shape[st->ndim++] = n;
        if (n == 0)
            break;
        o = PySequence_Fast_GET_ITEM(o, 0);
    }
    return 0;
}

/* NumPy's bool scalar (np.True_), which is no Python bool: by its type's name
 * (numpy.bool in NumPy 2, numpy.bool_ before), as no NumPy header is built against. */
static int is_numpy_bool(PyObject *o)
{
    const char *name = Py_TYPE(o)->tp_name;
    return strcmp(name, "numpy.bool") == 0 || strcmp(name, "numpy.bool_") == 0;
}

/* A NumPy scalar's dtype (np.float64(1.5): float64), as PyTorch reads it in a list, where
 * it keeps its dtype and the result is the promotion of its leaves' (Python floats
 * counting as the default dtype, ints as int64): tensor([np.float64(1.5), 2.0]) is
 * float64.  The integers pydevtensor lacks widen as an array's do (uint16 to int32,
 * uint32 and uint64 to int64).  -1 for anything else.  By the type's name, as
 * is_numpy_bool. */
static int numpy_scalar_dtype(PyObject *o)
{
    static const struct {
        const char *name;
        pdt_dtype dt;
    } table[] = {{"numpy.float64", PDT_FLOAT64}, {"numpy.float32", PDT_FLOAT32},
                 {"numpy.float16", PDT_FLOAT16}, {"numpy.int64", PDT_INT64},
                 {"numpy.int32", PDT_INT32},     {"numpy.int16", PDT_INT16},
                 {"numpy.int8", PDT_INT8},       {"numpy.uint8", PDT_UINT8},
                 {"numpy.uint16", PDT_INT32},    {"numpy.uint32", PDT_INT64},
                 {"numpy.uint64", PDT_INT64}};
    const char *name = Py_TYPE(o)->tp_name;
    if (strncmp(name, "numpy.", 6) != 0)
        return -1;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(name, table[i].name) == 0)
            return (int)table[i].dt;
    return -1;
}

static int dtype_from_format(const char *fmt, Py_ssize_t itemsize, int *out);

/* A 0-d array's dtype (np.array(2, dtype=np.int32): int32), read as a NumPy scalar's
 * is, as PyTorch reads one in a list: tensor([1.5, np.array(2, np.int32)]) is float32 (the
 * default dtype's, as for np.int32(2)); NumPy's stacking gave float64.  -1 for anything
 * else, and for a dtype pydevtensor lacks (which NumPy's stacking then converts). */
static int zero_d_array_dtype(const infer_state *st, PyObject *o)
{
    Py_buffer view;
    int dt = -1;
    if (!is_array_leaf(st, o) || PyObject_GetBuffer(o, &view, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        return -1;
    }
    if (view.ndim != 0 ||
        dtype_from_format(view.format ? view.format : "B", view.itemsize, &dt) < 0)
        dt = -1;
    PyBuffer_Release(&view);
    return dt;
}

/* Checks that the nested sequences are rectangular and holds only numbers,
 * noting which kinds of numbers appear. */
static int check_nested(PyObject *o, int depth, infer_state *st, const char *where)
{
    if (depth == st->ndim) {
        /* a 0-d tensor keeps its dtype, as a NumPy scalar does (PyTorch promotes the
         * leaves' dtypes): tensor([t > 0 for t in ...]) is a bool mask, not int64 */
        int np_dt = pdt_is_tensor(st->S, o) && pdt_tensor_of(o)->ndim == 0
                        ? (int)pdt_tensor_of(o)->dtype
                        : numpy_scalar_dtype(o);
        if (np_dt < 0)
            np_dt = zero_d_array_dtype(st, o);
        if (np_dt >= 0)
            st->numpy_dtype = st->numpy_dtype < 0
                                  ? np_dt
                                  : (int)pdt_promote((pdt_dtype)st->numpy_dtype, (pdt_dtype)np_dt);
        else if (PyBool_Check(o) || is_numpy_bool(o))
            st->seen_bool = 1;
        else if (PyFloat_Check(o))
            st->seen_float = 1;
        else if (is_array_leaf(st, o))
            st->seen_array = 1; /* the data go to NumPy (from_stacked_arrays) */
        else if (PyLong_Check(o) || PyIndex_Check(o))
            st->seen_int = 1;
        else if (PyNumber_Check(o) && !PyComplex_Check(o) && !PySequence_Check(o))
            st->seen_float = 1;
        else {
            PyErr_Format(PyExc_TypeError,
                         "%s: expected numbers (bool, int or float) in the data, found %.100s at "
                         "depth %d",
                         where, Py_TYPE(o)->tp_name, depth);
            return -1;
        }
        return 0;
    }
    if (!PyList_Check(o) && !PyTuple_Check(o) && is_array_leaf(st, o)) {
        st->seen_array = 1;
        return 0;
    }
    if (!PyList_Check(o) && !PyTuple_Check(o)) {
        PyErr_Format(PyExc_ValueError,
                     "%s: ragged nested sequence: expected a sequence of length %lld at depth %d, "
                     "found %.100s",
                     where, (long long)st->shape[depth], depth, Py_TYPE(o)->tp_name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    if (n != st->shape[depth]) {
        PyErr_Format(PyExc_ValueError,
                     "%s: ragged nested sequence: expected length %lld at depth %d, found "
                     "length %zd",
                     where, (long long)st->shape[depth], depth, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (check_nested(PySequence_Fast_GET_ITEM(o, i), depth + 1, st, where) < 0)
            return -1;
    return 0;
}

/* Writes the leaves of o, in row-major order, into the CPU buffer at *p, which
 * holds the shape check_nested found.  An element's __float__ or __index__ may
 * change the lists (Python code runs between the check and here), so each level
 * is checked again before each item is read, and the item is held while it is
 * written: at most shape's elements are written, and none freed under us. */
static int write_value(PyObject *o, pdt_dtype dt, char **p);
static int write_nested(PyObject *o, int depth, const infer_state *st, pdt_dtype dt, char **p)
{
    if (depth < st->ndim) {
        const Py_ssize_t n = (Py_ssize_t)st->shape[depth];
        for (Py_ssize_t i = 0; i < n; i++) {
            if ((!PyList_Check(o) && !PyTuple_Check(o)) || PySequence_Fast_GET_SIZE(o) != n) {
                PyErr_Format(PyExc_RuntimeError,
                             "tensor(): the data changed while it was read (a sequence of "
                             "length %lld at depth %d changed size or type)",
                             (long long)n, depth);
                return -1;
            }
            PyObject *item = Py_NewRef(PySequence_Fast_GET_ITEM(o, i));
            int r = write_nested(item, depth + 1, st, dt, p);
            Py_DECREF(item);
            if (r < 0)
                return -1;
        }
        return 0;
    }
    if (pdt_is_tensor(st->S, o) && pdt_tensor_numel(pdt_tensor_of(o)) == 1) {
        /* a device's 0-d tensor is read as tensor()'s copy, not float()'s */
        PyObject *value = pdt_tensor_scalar_value(o, "tensor()");
        const int r = value ? write_value(value, dt, p) : -1;
        Py_XDECREF(value);
        return r;
    }
    return write_value(o, dt, p);
}

/* Writes the number o at *p, in dtype dt, and moves *p past it. */
static int write_value(PyObject *o, pdt_dtype dt, char **p)
{
    pdt_scalar v;
    int wide; /* Note [ints beyond 64 bits] in wide_ints.c: a floating or bool dtype takes one */
    if (pdt_parse_scalar_wide(o, "tensor(): element", &v, &wide) < 0)
        return -1;
    if (wide && !pdt_wide_holds(dt)) {
        PyErr_Format(PyExc_OverflowError,
                     "tensor(): element: the integer %R does not fit in 64 bits (dtype %s)", o,
                     pdt_dtype_name(dt));
        return -1;
    }
    /* A float that is NaN, infinite or past an integer dtype's range is refused, as
     * PyTorch's tensor() does (one within it is truncated toward zero, as fill_ does:
     * pdt_scalar_fits) */
    if (v.is_float && dt != PDT_BOOL && !pdt_dtype_is_floating(dt) && !pdt_scalar_fits(dt, v)) {
        PyErr_Format(PyExc_OverflowError,
                     "tensor(): the value %R cannot be converted to %s without overflow", o,
                     pdt_dtype_name(dt));
        return -1;
    }
    switch (dt) {
    case PDT_BOOL: *(uint8_t *)*p = v.is_float ? v.f != 0 : v.i != 0; break;
    case PDT_INT32:
        if (!v.is_float && (v.i < INT32_MIN || v.i > INT32_MAX)) {
            PyErr_Format(PyExc_OverflowError, "tensor(): %lld does not fit in int32",
                         (long long)v.i);
            return -1;
        }
        /* Floats convert as everywhere else (Note [float to int] in pdt_convert.h). */
        *(int32_t *)*p = v.is_float ? pdt_f64_to_i32(v.f) : (int32_t)v.i;
        break;
    case PDT_INT64: *(int64_t *)*p = v.is_float ? pdt_f64_to_i64(v.f) : v.i; break;
    case PDT_UINT8:
    case PDT_INT8:
    case PDT_INT16: {
        int64_t lo, hi;
        pdt_int_range(dt, &lo, &hi);
        if (!v.is_float && (v.i < lo || v.i > hi)) {
            PyErr_Format(PyExc_OverflowError,
                         "tensor(): the value %lld cannot be converted to %s without overflow",
                         (long long)v.i, pdt_dtype_name(dt));
            return -1;
        }
        /* Floats: Note [float to small int] in pdt_convert.h. */
        int64_t w = v.is_float ? pdt_f64_to_i64(v.f) : v.i;
        if (dt == PDT_INT16) {
            int16_t x = (int16_t)pdt_int_wrap(dt, w);
            memcpy(*p, &x, sizeof x);
        } else {
            **p = (char)(uint8_t)w;
        }
        break;
    }
    case PDT_FLOAT32: *(float *)*p = v.is_float ? (float)v.f : (float)v.i; break;
    case PDT_FLOAT64: *(double *)*p = v.is_float ? v.f : (double)v.i; break;
    case PDT_FLOAT16: *(uint16_t *)*p = pdt_f64_to_f16(v.is_float ? v.f : (double)v.i); break;
    case PDT_BFLOAT16: *(uint16_t *)*p = pdt_f64_to_bf16(v.is_float ? v.f : (double)v.i); break;
    }
    *p += pdt_dtype_size(dt);
    return 0;
}

/* ---- buffers (NumPy arrays and anything with the buffer protocol) ---- */

static int dtype_from_format(const char *fmt, Py_ssize_t itemsize, int *out)
{
    if (*fmt == '<' || *fmt == '=' || *fmt == '@')
        fmt++;
    if (fmt[0] && fmt[1] == '\0') {
        switch (fmt[0]) {
        case '?': *out = PDT_BOOL; return 0;
        case 'B': *out = PDT_UINT8; return itemsize == 1 ? 0 : -1;
        case 'b': *out = PDT_INT8; return itemsize == 1 ? 0 : -1;
        case 'h': *out = PDT_INT16; return itemsize == 2 ? 0 : -1;
        case 'f': *out = PDT_FLOAT32; return itemsize == 4 ? 0 : -1;
        case 'd': *out = PDT_FLOAT64; return itemsize == 8 ? 0 : -1;
        case 'e': *out = PDT_FLOAT16; return itemsize == 2 ? 0 : -1;
        case 'i':
        case 'l':
        case 'q':
            if (itemsize == 2) {
                *out = PDT_INT16;
                return 0;
            }
            if (itemsize == 4) {
                *out = PDT_INT32;
                return 0;
            }
            if (itemsize == 8) {
                *out = PDT_INT64;
                return 0;
            }
            return -1;
        default: return -1;
        }
    }
    return -1;
}

static void release_buffer(void *ctx)
{
    if (!Py_IsInitialized()) { /* the interpreter is gone, and the exporter with it */
        PyMem_RawFree(ctx);
        return;
    }
    PyGILState_STATE g = PyGILState_Ensure();
    PyBuffer_Release((Py_buffer *)ctx);
    PyMem_RawFree(ctx);
    PyGILState_Release(g);
}

static int wrap_buffer(pdt_state *S, PyObject *obj, int writable, const char *where,
                       pdt_tensor *out);

#define SUPPORTED_TYPES                                                                            \
    "supported: bool, uint8, int8, int16, int32, int64, float16, float32, float64 (bfloat16 "      \
    "through ml_dtypes arrays)"

/* NumPy exports no buffer of some dtypes (datetime64, timedelta64: a ValueError, "cannot
 * include dtype 'M' in a buffer", naming no function): a TypeError naming where and the
 * dtype, as for the element types pydevtensor lacks (and as PyTorch's).  Any other
 * error (the buffer exported, then refused) stays.  Takes the fetched error (et, ev,
 * tb) over; -1. */
static int refuse_unexported(PyObject *obj, const char *where, PyObject *et, PyObject *ev,
                             PyObject *tb)
{
    Py_buffer probe;
    int exported = PyObject_GetBuffer(obj, &probe, PyBUF_RECORDS_RO) == 0;
    if (exported)
        PyBuffer_Release(&probe); /* the error came after: not this one */
    else
        PyErr_Clear();
    PyObject *dt = exported ? NULL : PyObject_GetAttrString(obj, "dtype");
    if (!dt) {
        PyErr_Clear();
        PyErr_Restore(et, ev, tb);
        return -1;
    }
    PyErr_NormalizeException(&et, &ev, &tb);
    PyErr_Format(
        PyExc_TypeError,
        "%s: unsupported element type %R (NumPy exports no buffer of it: %S); " SUPPORTED_TYPES,
        where, dt, ev);
    Py_DECREF(dt);
    Py_XDECREF(et), Py_XDECREF(ev), Py_XDECREF(tb);
    return -1;
}

int pdt_wrap_buffer(pdt_state *S, PyObject *obj, int writable, const char *where, pdt_tensor *out)
{
    /* A bfloat16 array (ml_dtypes) exports no buffer: NumPy refuses its dtype.  So
     * the check by the dtype's name, four attribute lookups that were most of
     * from_numpy's 3.2 us, runs only for an object whose buffer was refused. */
    int r = wrap_buffer(S, obj, writable, where, out);
    if (r != -1)
        return r;
    PyObject *et, *ev, *tb, *bits;
    PyErr_Fetch(&et, &ev, &tb);
    int bf16 = pdt_bf16_array_view(obj, &bits);
    if (bf16 <= 0) {
        if (bf16 == 0 && PyErr_GivenExceptionMatches(et, PyExc_ValueError))
            return refuse_unexported(obj, where, et, ev, tb);
        if (bf16 == 0)
            PyErr_Restore(et, ev, tb); /* not bfloat16: the buffer's own error */
        else
            Py_XDECREF(et), Py_XDECREF(ev), Py_XDECREF(tb);
        return -1;
    }
    Py_XDECREF(et), Py_XDECREF(ev), Py_XDECREF(tb);
    r = wrap_buffer(S, bits, writable, where, out); /* holds the view, which holds obj */
    Py_DECREF(bits);
    if (r == 0)
        out->dtype = PDT_BFLOAT16; /* the same bits, relabelled */
    return r;
}

static int wrap_buffer(pdt_state *S, PyObject *obj, int writable, const char *where,
                       pdt_tensor *out)
{
    Py_buffer *view = PyMem_RawCalloc(1, sizeof *view);
    if (!view) {
        PyErr_NoMemory();
        return -1;
    }
    if (PyObject_GetBuffer(obj, view, writable ? PyBUF_RECORDS : PyBUF_RECORDS_RO) < 0) {
        PyMem_RawFree(view);
        if (!writable)
            return -1;
        PyObject *et, *ev, *tb;
        Py_buffer probe;
        PyErr_Fetch(&et, &ev, &tb);
        if (PyObject_GetBuffer(obj, &probe, PyBUF_RECORDS_RO) == 0) {
            PyBuffer_Release(&probe); /* readable but not writable */
            Py_XDECREF(et), Py_XDECREF(ev), Py_XDECREF(tb);
            return 1;
        }
        PyErr_Clear();
        PyErr_Restore(et, ev, tb);
        return -1;
    }
    int dt;
    const char *fmt = view->format ? view->format : "B";
    int64_t shape[PDT_MAX_DIMS], strides[PDT_MAX_DIMS];
    if (dtype_from_format(fmt, view->itemsize, &dt) < 0) {
        PyErr_Format(PyExc_TypeError,
                     "%s: unsupported element type '%s' (%zd bytes); " SUPPORTED_TYPES, where, fmt,
                     view->itemsize);
        goto fail;
    }
    if (view->ndim > PDT_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "%s: %d dimensions, at most %d are supported", where,
                     view->ndim, PDT_MAX_DIMS);
        goto fail;
    }
    for (int i = 0; i < view->ndim; i++) {
        shape[i] = view->shape[i];
        Py_ssize_t s = view->strides ? view->strides[i] : 0;
        if (s % view->itemsize != 0) {
            PyErr_Format(PyExc_ValueError,
                         "%s: stride %zd of dimension %d is not a multiple of the %zd-byte "
                         "element size",
                         where, s, i, view->itemsize);
            goto fail;
        }
        strides[i] = s / view->itemsize;
    }
    pdt_device cpu = {PDT_CPU, 0};
    if (pdt_wrap_foreign(S, cpu, (pdt_dtype)dt, view->ndim, shape, view->strides ? strides : NULL,
                         view->buf, release_buffer, view, where, out) < 0)
        goto fail;
    return 0;
fail:
    PyBuffer_Release(view);
    PyMem_RawFree(view);
    return -1;
}

/* Whether a is a NumPy scalar (an instance of numpy.generic; NumPy imported). */
static int is_numpy_scalar(PyObject *a)
{
    PyObject *np = PyDict_GetItemString(PyImport_GetModuleDict(), "numpy"); /* borrowed */
    PyObject *generic = np ? PyObject_GetAttrString(np, "generic") : NULL;
    int r = generic ? PyObject_IsInstance(a, generic) : 0;
    Py_XDECREF(generic);
    PyErr_Clear();
    return r == 1;
}

int pdt_buffer_conversion(PyObject *obj)
{
    Py_buffer probe;
    if (PyBytes_Check(obj) || PyByteArray_Check(obj)) /* text, not numbers: refused there */
        return PDT_BUFFER_NARROW_TYPE;
    if (!PyObject_CheckBuffer(obj) || PyObject_GetBuffer(obj, &probe, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        return 0;
    }
    const char *fmt = probe.format ? probe.format : "B";
    int r = 0, dt;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    if (fmt[0] == '<')
#else
    if (fmt[0] == '>' || fmt[0] == '!')
#endif
        r = PDT_BUFFER_FOREIGN_ORDER;
    else if (dtype_from_format(fmt, probe.itemsize, &dt) < 0) {
        fmt += fmt[0] == '<' || fmt[0] == '=' || fmt[0] == '@';
        if (fmt[0] && !fmt[1] && strchr("bBhHiIlLqQg", fmt[0]))
            r = PDT_BUFFER_NARROW_TYPE;
    } else if (probe.itemsize > 1 && probe.len > 0 && (uintptr_t)probe.buf % probe.itemsize)
        r = PDT_BUFFER_UNALIGNED; /* np.frombuffer(b, offset=1): a copy is aligned */
    else if (probe.ndim == 1 && fmt[0] == 'B' && is_numpy_scalar(obj))
        r = PDT_BUFFER_NARROW_TYPE; /* a datetime64 or timedelta64 scalar's buffer is its
                                     * 8 raw bytes, not its value: NumPy's dtype decides */
    PyBuffer_Release(&probe);
    return r;
}

/* The NumPy array tensor() and as_tensor() copy from when a buffer cannot be
 * wrapped as it is (pdt_buffer_conversion): pydevtensor/_interop.py's _converted,
 * in the native byte order and in a dtype pydevtensor has (dtype: the one asked
 * for, or -1).  New reference; NULL
 * with an exception naming `where`. */
static PyObject *converted_copy(PyObject *obj, int dtype, const char *where)
{
    PyObject *mod = PyImport_ImportModule("pydevtensor._interop");
    PyObject *r = !mod        ? NULL
                  : dtype < 0 ? PyObject_CallMethod(mod, "_converted", "OOs", obj, Py_None, where)
                              : PyObject_CallMethod(mod, "_converted", "Oss", obj,
                                                    pdt_dtype_name((pdt_dtype)dtype), where);
    Py_XDECREF(mod);
    return r;
}

/* tensor([a0, a1]) of NumPy arrays, as PyTorch takes it: NumPy stacks them (its
 * dtype rules, its error for ragged shapes), then the array is read as any array. */
static PyObject *from_stacked_arrays(pdt_state *S, PyObject *data, int dtype, pdt_device device,
                                     int pin, const char *where)
{
    PyObject *numpy = PyImport_ImportModule("numpy");
    if (!numpy)
        return NULL;
    PyObject *asarray = PyObject_GetAttrString(numpy, "asarray");
    Py_DECREF(numpy);
    if (!asarray)
        return NULL;
    PyObject *stacked = PyObject_CallOneArg(asarray, data); /* a tuple is one argument */
    Py_DECREF(asarray);
    if (!stacked)
        return NULL;
    PyObject *r = pdt_tensor_from_data(S, stacked, dtype, device, pin, where);
    Py_DECREF(stacked);
    return r;
}

PyObject *pdt_tensor_from_data(pdt_state *S, PyObject *data, int dtype, pdt_device device, int pin,
                               const char *where)
{
    pdt_tensor src = {0}, out = {0};
    pdt_status st;
    int storage_flags = pin ? PDT_STORAGE_PINNED : 0;
    if (pdt_is_tensor(S, data)) {
        pdt_hold h = {0}; /* Note [the GIL and storages]: the copy notes itself (Python) */
        const pdt_tensor *t = pdt_hold_view(&h, pdt_tensor_of(data));
        st = pdt_copy_to_new(t, device, dtype >= 0 ? (pdt_dtype)dtype : t->dtype, storage_flags, 0,
                             &out);
        pdt_hold_release(&h);
        return st == PDT_OK ? pdt_tensor_wrap_new(S, &out) : pdt_raise(S, st);
    }
    int imported = 0;
    if (!PyList_Check(data) && !PyTuple_Check(data)) {
        if (PyObject_CheckBuffer(data) && pdt_buffer_conversion(data)) {
            /* big-endian or uint8 NumPy data: tensor() copies anyway, so convert it */
            PyObject *native = converted_copy(data, dtype, where);
            imported = !native || pdt_wrap_buffer(S, native, 0, where, &src) < 0 ? -1 : 1;
            Py_XDECREF(native);
        } else if (PyObject_CheckBuffer(data)) {
            imported = pdt_wrap_buffer(S, data, 0, where, &src) < 0 ? -1 : 1;
        } else if (!is_scalar(data) || (!PyFloat_Check(data) && !PyLong_Check(data) &&
                                        PyObject_HasAttrString(data, "__dlpack__"))) {
            /* a torch tensor looks like a number (it has __index__): DLPack first */
            imported = pdt_import_array(S, data, where, &src);
        }
    }
    if (imported < 0)
        return NULL;
    if (imported) {
        st = pdt_copy_to_new(&src, device, dtype >= 0 ? (pdt_dtype)dtype : src.dtype, storage_flags,
                             0, &out);
        pdt_tensor_release(&src);
        return st == PDT_OK ? pdt_tensor_wrap_new(S, &out) : pdt_raise(S, st);
    }
    if (!PyList_Check(data) && !PyTuple_Check(data) && !is_scalar(data)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: data must be a number, a nested list or tuple of numbers, a "
                     "Tensor or an array; got %.100s",
                     where, Py_TYPE(data)->tp_name);
        return NULL;
    }
    infer_state inf = {.S = S, .numpy_dtype = -1};
    if (infer_shape(data, &inf, where) < 0 || check_nested(data, 0, &inf, where) < 0)
        return NULL;
    if (inf.seen_array)
        return from_stacked_arrays(S, data, dtype, device, pin, where);
    int dt = dtype >= 0       ? dtype
             : inf.seen_float ? (int)((PdtDTypeObject *)S->default_dtype)->dtype
             : inf.seen_int   ? PDT_INT64
             : inf.seen_bool  ? PDT_BOOL
                              : (int)((PdtDTypeObject *)S->default_dtype)->dtype;
    if (dtype < 0 && inf.numpy_dtype >= 0) /* numpy_scalar_dtype */
        dt = inf.seen_float || inf.seen_int || inf.seen_bool
                 ? (int)pdt_promote((pdt_dtype)dt, (pdt_dtype)inf.numpy_dtype)
                 : inf.numpy_dtype;
    pdt_device cpu = {PDT_CPU, 0};
    int direct = device.kind == PDT_CPU && device.index == 0;
    st = pdt_tensor_empty(cpu, (pdt_dtype)dt, inf.ndim, inf.shape, direct ? storage_flags : 0,
                          &src);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    char *p = pdt_tensor_ptr(&src);
    if (write_nested(data, 0, &inf, (pdt_dtype)dt, &p) < 0) {
        pdt_tensor_release(&src);
        return NULL;
    }
    if (direct)
        return pdt_tensor_wrap_new(S, &src);
    st = pdt_copy_to_new(&src, device, (pdt_dtype)dt, storage_flags, 0, &out);
    pdt_tensor_release(&src);
    return st == PDT_OK ? pdt_tensor_wrap_new(S, &out) : pdt_raise(S, st);
}

/* tensor(data, *, dtype=None, device=None, pin_memory=False) */
static PyObject *f_tensor(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames)
{
    pdt_state *S = pdt_state_of_module(module);
    static const char *const names[] = {"dtype",         "device", "pin_memory",
                                        "requires_grad", "data",   NULL};
    PyObject *kw[5] = {NULL};
    if (pdt_parse_keywords("tensor", args + nargs, kwnames, names, kw) < 0)
        return NULL;
    PyObject *data = nargs == 1 ? args[0] : kw[4];
    if (nargs > 1 || !data || (nargs == 1 && kw[4])) {
        PyErr_SetString(PyExc_TypeError, "tensor() takes one positional argument, data");
        return NULL;
    }
    int dtype, pin, rg;
    pdt_device device;
    if (pdt_dtype_from_object(S, kw[0], -1, &dtype) < 0 ||
        pdt_device_from_object(S, kw[1], pdt_default_device(), &device) < 0 ||
        pdt_parse_bool(kw[2], 0, "tensor", "pin_memory", &pin) < 0 ||
        pdt_parse_bool(kw[3], 0, "tensor", "requires_grad", &rg) < 0)
        return NULL;
    PyObject *r = pdt_tensor_from_data(S, data, dtype, device, pin, "tensor()");
    if (r && rg && pdt_set_requires_grad(r, 1, "tensor()") < 0)
        Py_CLEAR(r);
    return r;
}

/* from_numpy(a): a CPU tensor sharing a's memory. */
static PyObject *f_from_numpy(PyObject *module, PyObject *a)
{
    pdt_state *S = pdt_state_of_module(module);
    if (!PyObject_CheckBuffer(a) || PyList_Check(a) || PyTuple_Check(a)) {
        PyErr_Format(PyExc_TypeError, "from_numpy(): expected a numpy.ndarray, got %.100s",
                     Py_TYPE(a)->tp_name);
        return NULL;
    }
    pdt_tensor t;
    int conversion = pdt_buffer_conversion(a);
    if (conversion && conversion != PDT_BUFFER_UNALIGNED) { /* that one: refused below */
        PyObject *dt = PyObject_GetAttrString(a, "dtype");
        if (dt && conversion == PDT_BUFFER_FOREIGN_ORDER) /* ValueError, as PyTorch's */
            PyErr_Format(PyExc_ValueError,
                         "from_numpy(): the array is stored in the other byte order (dtype "
                         "%R), and tensors share memory in the native one; use "
                         "pydevtensor.tensor(a) or as_tensor(a), which convert it",
                         dt);
        else if (dt)
            PyErr_Format(PyExc_TypeError,
                         "from_numpy(): pydevtensor has no %S dtype, so a tensor cannot share "
                         "this array's memory; pydevtensor.tensor(a) copies it (uint16 into "
                         "int32, uint32 and uint64 into int64), or pass dtype=, e.g. "
                         "tensor(a, dtype=pydevtensor.float32)",
                         dt);
        Py_XDECREF(dt);
        return NULL;
    }
    int r = pdt_wrap_buffer(S, a, 1, "from_numpy()", &t);
    if (r == 1 && is_numpy_scalar(a))
        PyErr_Format(PyExc_TypeError,
                     "from_numpy(): expected a numpy.ndarray, got the NumPy scalar %.100s (it "
                     "has no memory to share); use pydevtensor.tensor(x), or "
                     "from_numpy(np.asarray(x)) for a 0-d array",
                     Py_TYPE(a)->tp_name);
    else if (r == 1)
        PyErr_SetString(PyExc_ValueError,
                        "from_numpy(): the array is read-only, and tensors share memory "
                        "writably; pass a writable array (a.copy()), or use "
                        "pydevtensor.tensor(a) or as_tensor(a), which copy it");
    return r == 0 ? pdt_tensor_wrap_new(S, &t) : NULL;
}

PyMethodDef pdt_convert_functions[] = {
    {"tensor", (PyCFunction)(void (*)(void))f_tensor, METH_FASTCALL | METH_KEYWORDS,
     "tensor(data, *, dtype=None, device=None, pin_memory=False)\n--\n\n"
     "A new tensor holding a copy of data (numbers, nested lists, arrays or tensors).  "
     "Python ints give int64, floats float32, arrays keep their dtype."},
    {"from_numpy", f_from_numpy, METH_O, doc_from_numpy},
    {NULL, NULL, 0, NULL},
};
