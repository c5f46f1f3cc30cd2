/* interop.c - zero-copy exchange with other array libraries:
 *   __array__ (CPU only; NumPy 2's copy= keyword), __array_interface__ (CPU)
 *   and __cuda_array_interface__ (GPU, version 3, with our stream), the
 *   Tensor's method table for them and for DLPack (dlpack.c), from_dlpack()
 *   and as_tensor(), which takes whichever of these an object offers.
 * The streams come from the core (pdt_interop.h).  __array_ufunc__ and
 * __array_function__ are Python (pydevtensor/_interop.py).
 *
 * Note [foreign memory]
 * ~~~~~~~~~~~~~~~~~~~~~
 * Imported memory becomes a storage through pdt_tensor_wrap whose release
 * gives it back: a DLPack deleter, or a reference to the exporting object
 * (for the array interfaces, which promise the memory lives as long as the
 * object).  Releases may run on any thread, so they take the GIL.  Our
 * tensors are writable, so read-only memory is never wrapped as a tensor:
 * as_tensor() copies it, from_dlpack() refuses it unless copy=True, as
 * from_numpy() refuses read-only arrays.
 */
#include <string.h>

#include "args.h"
#include "docstrings_interop.h"
#include "pdt_index_errors.h"
#include "pdt_interop.h"

/* ---- element types ---- */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
/* bfloat16 has no typestr of its own: NumPy's ml_dtypes shows it as "V2". */
static const char *const typestrs[PDT_NUM_DTYPES] = {"|b1", ">i4", ">i8", ">f4", ">f8",
                                                     ">f2", ">V2", "|u1", "|i1", ">i2"};
#define NATIVE_ORDER '>'
#else
static const char *const typestrs[PDT_NUM_DTYPES] = {"|b1", "<i4", "<i8", "<f4", "<f8",
                                                     "<f2", "<V2", "|u1", "|i1", "<i2"};
#define NATIVE_ORDER '<'
#endif

static const char *const supported =
    "supported: bool, uint8, int8, int16, int32, int64, float16, float32, float64";

/* The dtype of an array-interface typestr ("<f4"), or -1 with TypeError. */
static int dtype_from_typestr(const char *s, const char *where)
{
    if (strlen(s) == 3 && (s[0] == NATIVE_ORDER || s[0] == '|' || s[0] == '=')) {
        for (int i = 0; i < PDT_NUM_DTYPES; i++) /* "V2" is any 2-byte record: not taken */
            if (i != PDT_BFLOAT16 && strcmp(s + 1, typestrs[i] + 1) == 0)
                return i;
    }
    PyErr_Format(PyExc_TypeError, "%s: unsupported element type '%s' (%s)", where, s, supported);
    return -1;
}

/* ---- foreign memory (Note [foreign memory]) ---- */

int pdt_wrap_foreign(pdt_state *S, pdt_device device, pdt_dtype dtype, int ndim,
                     const int64_t *shape, const int64_t *strides, char *first,
                     void (*release)(void *ctx), void *ctx, const char *where, pdt_tensor *out)
{
    int64_t contiguous[PDT_MAX_DIMS], lo = 0, hi = 0, itemsize = (int64_t)pdt_dtype_size(dtype);
    if (ndim < 0 || ndim > PDT_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "%s: %d dimensions, at most %d are supported", where, ndim,
                     PDT_MAX_DIMS);
        return -1;
    }
    /* The shape first: the contiguous strides below multiply its sizes. */
    int64_t numel;
    pdt_status st = pdt_check_shape(ndim, shape, dtype, &numel);
    if (st != PDT_OK)
        return pdt_raise_int(S, st);
    int empty = numel == 0;
    if (!first && !empty) {
        PyErr_Format(PyExc_ValueError,
                     "%s: the data address is NULL, but the array has %lld elements", where,
                     (long long)numel);
        return -1;
    }
    if (!strides) {
        pdt_contiguous_strides(ndim, shape, contiguous);
        strides = contiguous;
    }
    if ((uintptr_t)first % (uintptr_t)itemsize != 0) {
        PyErr_Format(PyExc_ValueError,
                     "%s: the data at %p is not aligned to its %lld-byte elements; copy it first",
                     where, (void *)first, (long long)itemsize);
        return -1;
    }
    /* The storage spans the lowest to the highest addressed element; a view
     * with negative strides starts inside it. */
    for (int i = 0; i < ndim && !empty; i++) {
        int64_t span;
        if (shape[i] < 0 || __builtin_mul_overflow(shape[i] - 1, strides[i], &span) ||
            __builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi)) {
            PyErr_Format(PyExc_ValueError,
                         "%s: size %lld or stride %lld of dimension %d is out "
                         "of range",
                         where, (long long)shape[i], (long long)strides[i], i);
            return -1;
        }
    }
    int64_t elements;
    if (__builtin_sub_overflow(hi, lo, &elements) || elements >= PDT_MAX_NUMEL / itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: the strides span more than 2^62 bytes", where);
        return -1;
    }
    st = pdt_tensor_wrap(device, dtype, ndim, shape, strides, first + lo * itemsize,
                         (size_t)(elements + 1) * (size_t)itemsize, release, ctx, out);
    if (st != PDT_OK)
        return pdt_raise_int(S, st);
    out->offset = -lo;
    return 0;
}

/* A storage release that drops a reference to the object owning the memory. */
static void release_owner(void *owner)
{
    if (!Py_IsInitialized())
        return; /* the interpreter is gone: nothing left to release */
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF((PyObject *)owner);
    PyGILState_Release(g);
}

/* ---- __array_interface__ and __cuda_array_interface__ (producer) ---- */

static PyObject *strides_in_bytes(const pdt_tensor *t)
{
    if (pdt_tensor_is_contiguous(t))
        return Py_NewRef(Py_None);
    PyObject *tuple = PyTuple_New(t->ndim);
    for (int i = 0; tuple && i < t->ndim; i++) {
        PyObject *v = PyLong_FromLongLong(t->strides[i] * (int64_t)pdt_dtype_size(t->dtype));
        if (!v)
            Py_CLEAR(tuple);
        else
            PyTuple_SET_ITEM(tuple, i, v);
    }
    return tuple;
}

/* The version-3 interface dict; stream: the CUDA stream, or NULL for none. */
static PyObject *interface_dict(const pdt_tensor *t, PyObject *stream)
{
    PyObject *shape = pdt_shape_tuple(t), *strides = strides_in_bytes(t), *d = NULL;
    if (shape && strides)
        d = Py_BuildValue("{s:O,s:s,s:(NO),s:O,s:i}", "shape", shape, "typestr", typestrs[t->dtype],
                          "data", PyLong_FromVoidPtr(pdt_tensor_ptr(t)), Py_False, "strides",
                          strides, "version", 3);
    if (d && stream && PyDict_SetItemString(d, "stream", stream) < 0)
        Py_CLEAR(d);
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    return d;
}

static PyObject *get_array_interface(PyObject *self, void *c)
{
    (void)c;
    const pdt_tensor *t = pdt_tensor_of(self);
    char name[32];
    if (t->device.kind != PDT_CPU) {
        PyErr_Format(PyExc_AttributeError,
                     "a %s tensor has no __array_interface__: its memory is not host memory "
                     "(use __cuda_array_interface__ or DLPack, or copy with .cpu())",
                     pdt_device_str(t->device, name, sizeof name));
        return NULL;
    }
    /* (np.asarray(t) reads this attribute first: its message is numpy()'s, as
     * PyTorch's np.asarray gives) */
    if (pdt_refuse_grad_export(self, PyExc_RuntimeError, PDT_NUMPY_GRAD_MESSAGE) < 0)
        return NULL;
    if (t->dtype == PDT_BFLOAT16) { /* Note [bfloat16 at the NumPy boundary] */
        PyErr_SetString(PyExc_AttributeError,
                        "a bfloat16 tensor has no __array_interface__ (no typestr is "
                        "bfloat16); np.asarray(t) and t.numpy() give an ml_dtypes.bfloat16 "
                        "array");
        return NULL;
    }
    PyObject *d = interface_dict(t, NULL);
    if (d) /* Note [interfaces keep the storage] in tensor_object.c */
        ((PdtTensorObject *)self)->shown = 1;
    return d;
}

static PyObject *get_cuda_array_interface(PyObject *self, void *c)
{
    (void)c;
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    const pdt_tensor *t = pdt_tensor_of(self);
    uintptr_t handle;
    if (!S)
        return NULL;
    if (t->device.kind != PDT_CUDA) {
        PyErr_SetString(PyExc_AttributeError,
                        "a CPU tensor has no __cuda_array_interface__ (use __array_interface__, "
                        "the buffer protocol or DLPack)");
        return NULL;
    }
    if (pdt_refuse_grad_export(self, PyExc_RuntimeError,
                               "Can't get __cuda_array_interface__ on Variable that requires "
                               "grad. If gradients aren't required, use var.detach() to get "
                               "Variable that doesn't require grad.") < 0)
        return NULL;
    /* the consumer reads with no synchronisation of ours: index errors now
     * (Note [deferred index checks] in pdt_index.h) */
    pdt_status st = pdt_index_errors_settle(t->device);
    if (st == PDT_OK)
        st = pdt_stream_handle(t->device, &handle);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    PyObject *stream = PyLong_FromVoidPtr((void *)handle);
    PyObject *d = stream ? interface_dict(t, stream) : NULL;
    Py_XDECREF(stream);
    if (d) /* Note [interfaces keep the storage] in tensor_object.c */
        ((PdtTensorObject *)self)->shown = 1;
    return d;
}

PyGetSetDef pdt_interop_getset[] = {
    {"__array_interface__", get_array_interface, NULL,
     "NumPy's array interface (version 3); CPU tensors only", NULL},
    {"__cuda_array_interface__", get_cuda_array_interface, NULL,
     "the CUDA array interface (version 3) with the device's stream; GPU tensors only", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- the array interfaces (consumer) ---- */

typedef struct {
    int ndim, dtype, readonly, has_strides;
    int64_t shape[PDT_MAX_DIMS], strides[PDT_MAX_DIMS]; /* strides in elements */
    uintptr_t data;
    PyObject *stream; /* borrowed; NULL or None when absent */
} interface_desc;

/* Reads the tuple-of-ints key of d into v (n entries at most); -1 if absent. */
static int int_tuple(PyObject *d, const char *key, int64_t *v, int n, const char *where)
{
    PyObject *o = PyDict_GetItemString(d, key);
    if (!o || o == Py_None)
        return -1;
    if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) > n) {
        PyErr_Format(PyExc_ValueError, "%s: '%s' must be a tuple of at most %d ints", where, key,
                     n);
        return -2;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); i++)
        if (pdt_parse_int64(PyTuple_GET_ITEM(o, i), key, &v[i]) < 0)
            return -2;
    return (int)PyTuple_GET_SIZE(o);
}

static int parse_interface(PyObject *d, const char *where, interface_desc *out)
{
    if (!PyDict_Check(d)) {
        PyErr_Format(PyExc_TypeError, "%s: the array interface must be a dict, got %.100s", where,
                     Py_TYPE(d)->tp_name);
        return -1;
    }
    PyObject *typestr = PyDict_GetItemString(d, "typestr");
    PyObject *data = PyDict_GetItemString(d, "data");
    PyObject *mask = PyDict_GetItemString(d, "mask");
    out->ndim = int_tuple(d, "shape", out->shape, PDT_MAX_DIMS, where);
    if (out->ndim < 0 || !typestr || !PyUnicode_Check(typestr)) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError,
                         "%s: the array interface needs 'shape' (a tuple of "
                         "at most %d ints) and 'typestr'",
                         where, PDT_MAX_DIMS);
        return -1;
    }
    if (mask && mask != Py_None) {
        PyErr_Format(PyExc_ValueError, "%s: masked arrays are not supported", where);
        return -1;
    }
    if ((out->dtype = dtype_from_typestr(PyUnicode_AsUTF8(typestr), where)) < 0)
        return -1;
    if (!data || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2 ||
        !PyLong_Check(PyTuple_GET_ITEM(data, 0))) {
        PyErr_Format(PyExc_TypeError,
                     "%s: only the (address, read_only) form of 'data' is "
                     "supported",
                     where);
        return -1;
    }
    out->data = (uintptr_t)PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    if ((out->readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1))) < 0 || PyErr_Occurred())
        return -1;
    int64_t itemsize = (int64_t)pdt_dtype_size(out->dtype);
    int n = int_tuple(d, "strides", out->strides, PDT_MAX_DIMS, where);
    if (n == -2)
        return -1;
    out->has_strides = n >= 0;
    if (out->has_strides && n != out->ndim) {
        PyErr_Format(PyExc_ValueError, "%s: %d strides for %d dimensions", where, n, out->ndim);
        return -1;
    }
    for (int i = 0; out->has_strides && i < n; i++) {
        if (out->strides[i] % itemsize != 0) {
            PyErr_Format(PyExc_ValueError,
                         "%s: stride %lld of dimension %d is not a multiple "
                         "of the %lld-byte element size",
                         where, (long long)out->strides[i], i, (long long)itemsize);
            return -1;
        }
        out->strides[i] /= itemsize;
    }
    out->stream = PyDict_GetItemString(d, "stream");
    return 0;
}

/* Imports the memory an array interface dict d describes, owned by obj: on
 * the CPU, or with cuda on the CUDA device holding it, after making our
 * stream wait for the interface's stream.  Read-only memory is copied (Note
 * [foreign memory]). */
static int import_interface_dict(pdt_state *S, PyObject *obj, PyObject *d, int cuda,
                                 const char *where, pdt_tensor *out)
{
    interface_desc desc;
    pdt_device device = {PDT_CPU, 0};
    pdt_status st = PDT_OK;
    pdt_tensor view;
    int64_t stream;
    if (parse_interface(d, where, &desc) < 0)
        return -1;
    if (cuda && desc.data != 0) {
        st = pdt_pointer_device(PDT_CUDA, (const void *)desc.data, &device);
    } else if (cuda) { /* a zero-size array may have no address */
        device.kind = PDT_CUDA, device.index = pdt_current_cuda();
        st = pdt_device_check(device);
    }
    if (st != PDT_OK)
        return pdt_raise_int(S, st);
    if (cuda && desc.stream && desc.stream != Py_None) {
        if (pdt_parse_int64(desc.stream, "__cuda_array_interface__['stream']", &stream) < 0)
            return -1;
        st = pdt_stream_wait(device, (uintptr_t)stream, PDT_STREAM_OURS_WAITS);
        if (st != PDT_OK)
            return pdt_raise_int(S, st);
    }
    Py_INCREF(obj);
    if (pdt_wrap_foreign(S, device, (pdt_dtype)desc.dtype, desc.ndim, desc.shape,
                         desc.has_strides ? desc.strides : NULL, (char *)desc.data, release_owner,
                         obj, where, &view) < 0) {
        Py_DECREF(obj);
        return -1;
    }
    if (!desc.readonly) {
        *out = view;
        return 0;
    }
    int r = pdt_copy_for(S, &view, device, view.dtype, where, 0, out);
    pdt_tensor_release(&view);
    return r;
}

static int import_interface(pdt_state *S, PyObject *obj, PyObject *d, int cuda, const char *where,
                            pdt_tensor *out)
{
    /* a copy: the __index__ and __bool__ run while it is read may change the
     * exporter's dict, and parse_interface keeps references borrowed from it */
    PyObject *copy = PyDict_Check(d) ? PyDict_Copy(d) : Py_NewRef(d);
    if (!copy)
        return -1;
    int r = import_interface_dict(S, obj, copy, cuda, where, out);
    Py_DECREF(copy);
    return r;
}

/* ---- __array__ ---- */

/* __array__(dtype=None, copy=None): NumPy 2's protocol on CPU tensors. */
static PyObject *t_array(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dtype", "copy", NULL};
    PyObject *kw[2] = {NULL, NULL};
    const pdt_tensor *t = pdt_tensor_of(self);
    char name[32];
    if (nargs > 2 || pdt_parse_keywords("__array__", args + nargs, kwnames, names, kw) < 0 ||
        (nargs >= 1 && kw[0]) || (nargs == 2 && kw[1])) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "__array__() takes (dtype=None, copy=None)");
        return NULL;
    }
    PyObject *dtype = nargs >= 1 ? args[0] : kw[0], *copy_obj = nargs == 2 ? args[1] : kw[1];
    int copy = -1, copied = 0;
    if (copy_obj && copy_obj != Py_None && (copy = PyObject_IsTrue(copy_obj)) < 0)
        return NULL;
    if (pdt_refuse_grad_export(self, PyExc_RuntimeError, PDT_NUMPY_GRAD_MESSAGE) < 0)
        return NULL;
    if (t->device.kind != PDT_CPU) {
        PyErr_Format(PyExc_TypeError,
                     "Implicit conversion to a NumPy array is not allowed: this tensor is on "
                     "%s, and NumPy would copy it to the host behind your back.  Copy "
                     "explicitly with t.cpu().numpy(), t.numpy(force=True) or "
                     "pydevtensor.to_numpy(t)",
                     pdt_device_str(t->device, name, sizeof name));
        return NULL;
    }
    PyObject *arr = pdt_numpy_view(self), *np = NULL, *want = NULL, *have = NULL;
    if (!arr)
        return NULL;
    if (dtype && dtype != Py_None) {
        int same;
        if (!(np = PyImport_ImportModule("numpy")) ||
            !(want = PyObject_CallMethod(np, "dtype", "(O)", dtype)) ||
            !(have = PyObject_GetAttrString(arr, "dtype")) ||
            (same = PyObject_RichCompareBool(want, have, Py_EQ)) < 0)
            goto fail;
        if (!same && copy == 0) {
            PyErr_Format(PyExc_ValueError,
                         "Unable to avoid copy while creating an array as requested: the tensor "
                         "holds %s and %R needs a conversion (copy=False forbids it)",
                         pdt_dtype_name(t->dtype), want);
            goto fail;
        }
        if (!same) {
            Py_SETREF(arr, PyObject_CallMethod(arr, "astype", "O", want));
            copied = 1;
        }
    }
    if (arr && copy == 1 && !copied)
        Py_SETREF(arr, PyObject_CallMethod(arr, "copy", NULL));
    Py_XDECREF(np), Py_XDECREF(want), Py_XDECREF(have);
    return arr;
fail:
    Py_XDECREF(np), Py_XDECREF(want), Py_XDECREF(have);
    Py_DECREF(arr);
    return NULL;
}

PyMethodDef pdt_interop_methods[] = {
    {"__array__", (PyCFunction)(void (*)(void))t_array, METH_FASTCALL | METH_KEYWORDS,
     "__array__(dtype=None, copy=None)\n--\n\n"
     "A NumPy array sharing a CPU tensor's memory (copied when copy=True or when dtype "
     "needs a conversion; copy=False then raises ValueError).  GPU tensors raise TypeError."},
    {"__dlpack__", (PyCFunction)(void (*)(void))pdt_dlpack_export, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)\n--\n\n"
     "A DLPack capsule sharing the tensor's memory ('dltensor_versioned' when max_version >= "
     "(1, 0)).  dl_device elsewhere, or copy=True, exports a copy."},
    {"__dlpack_device__", pdt_dlpack_device, METH_NOARGS,
     "__dlpack_device__()\n--\n\n(1, 0) for the CPU, (2, i) for CUDA device i."},
    {NULL, NULL, 0, NULL},
};

/* ---- from_dlpack, as_tensor ---- */

/* out on device with dtype: itself (moved) when already so and copy is not 1,
 * else an explicit copy made for op (refused when copy is 0). */
static PyObject *finish(pdt_state *S, pdt_tensor *t, int have_device, pdt_device device, int dtype,
                        int copy, const char *op)
{
    pdt_device to = have_device ? device : t->device;
    pdt_dtype dt = dtype >= 0 ? (pdt_dtype)dtype : t->dtype;
    char a[32], b[32];
    if (pdt_device_eq(to, t->device) && dt == t->dtype && copy != 1)
        return pdt_tensor_wrap_new(S, t);
    if (copy == 0) {
        PyErr_Format(PyExc_BufferError,
                     "%s: moving the tensor from %s to %s needs a copy, "
                     "which copy=False forbids",
                     op, pdt_device_str(t->device, a, sizeof a), pdt_device_str(to, b, sizeof b));
        pdt_tensor_release(t);
        return NULL;
    }
    pdt_tensor c;
    int r = pdt_copy_for(S, t, to, dt, op, 0, &c);
    pdt_tensor_release(t);
    return r < 0 ? NULL : pdt_tensor_wrap_new(S, &c);
}

/* from_dlpack(x, /, *, device=None, copy=None) */
static PyObject *f_from_dlpack(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
    static const char *const names[] = {"device", "copy", NULL};
    PyObject *kw[2] = {NULL, NULL};
    pdt_state *S = pdt_state_of_module(module);
    pdt_device device = {PDT_CPU, 0};
    int copy = -1;
    if (nargs != 1 || pdt_parse_keywords("from_dlpack", args + nargs, kwnames, names, kw) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "from_dlpack(x, /, *, device=None, copy=None)");
        return NULL;
    }
    if ((kw[0] && pdt_device_from_object(S, kw[0], device, &device) < 0) ||
        (kw[1] && kw[1] != Py_None && (copy = PyObject_IsTrue(kw[1])) < 0))
        return NULL;
    if (!PyCapsule_CheckExact(args[0]) && !PyObject_HasAttrString(args[0], "__dlpack__")) {
        PyErr_Format(PyExc_TypeError,
                     "from_dlpack(): %.100s has no __dlpack__ method (and is not a DLPack "
                     "capsule)",
                     Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    pdt_tensor t;
    int copied = pdt_import_dlpack(S, args[0], copy, &t);
    if (copied < 0)
        return NULL;
    if (copied)
        copy = -1; /* read-only memory, already copied once */
    return finish(S, &t, kw[0] && kw[0] != Py_None, device, -1, copy, "from_dlpack()");
}

int pdt_import_array(pdt_state *S, PyObject *obj, const char *where, pdt_tensor *out)
{
    if (PyCapsule_CheckExact(obj) || PyObject_HasAttrString(obj, "__dlpack__"))
        return pdt_import_dlpack(S, obj, 1, out) < 0 ? -1 : 1;
    for (int cuda = 1; cuda >= 0; cuda--) {
        PyObject *d = PyObject_GetAttrString(obj, cuda ? "__cuda_array_interface__"
                                                       : "__array_interface__");
        if (!d && !PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
        if (d) {
            int r = import_interface(S, obj, d, cuda, where, out);
            Py_DECREF(d);
            return r < 0 ? -1 : 1;
        }
    }
    return 0;
}

/* as_tensor(data, dtype=None, device=None) */
static PyObject *f_as_tensor(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    static const char *const names[] = {"dtype", "device", "data", NULL};
    PyObject *kw[3] = {NULL, NULL, NULL};
    pdt_state *S = pdt_state_of_module(module);
    if (pdt_parse_keywords("as_tensor", args + nargs, kwnames, names, kw) < 0)
        return NULL;
    PyObject *data = nargs >= 1 ? args[0] : kw[2];
    if (nargs > 3 || !data || (nargs >= 1 && kw[2]) || (nargs >= 2 && kw[0]) ||
        (nargs == 3 && kw[1])) {
        PyErr_SetString(PyExc_TypeError, "as_tensor(data, dtype=None, device=None)");
        return NULL;
    }
    PyObject *dtype_obj = nargs >= 2 ? args[1] : kw[0], *device_obj = nargs == 3 ? args[2] : kw[1];
    pdt_device cpu = {PDT_CPU, 0}, fallback = pdt_default_device(), device;
    int dtype, have_device = device_obj && device_obj != Py_None;
    pdt_tensor t;
    if (pdt_dtype_from_object(S, dtype_obj, -1, &dtype) < 0 ||
        pdt_device_from_object(S, device_obj, fallback, &device) < 0)
        return NULL;
    /* No device given: the default one (`with pydevtensor.device(d):`,
     * set_default_device) when it is not the CPU, as PyTorch's device context
     * applies to as_tensor; a tensor on another device is then copied there. */
    if (!have_device && !pdt_device_eq(fallback, cpu))
        have_device = 1;
    if (pdt_is_tensor(S, data)) {
        pdt_tensor_share(&t, pdt_tensor_of(data));
        if ((!have_device || pdt_device_eq(device, t.device)) &&
            (dtype < 0 || dtype == (int)t.dtype)) {
            pdt_tensor_release(&t);
            return Py_NewRef(data); /* as PyTorch: the tensor itself */
        }
        return finish(S, &t, have_device, device, dtype, -1, "as_tensor()");
    }
    if (!PyList_Check(data) && !PyTuple_Check(data) && PyObject_CheckBuffer(data)) {
        if (pdt_buffer_conversion(data)) /* the other byte order, uint16...: a converted copy */
            return pdt_tensor_from_data(S, data, dtype, device, 0, "as_tensor()");
        int r = pdt_wrap_buffer(S, data, 1, "as_tensor()", &t);
        if (r == 1) /* read-only: copy it */
            return pdt_tensor_from_data(S, data, dtype, device, 0, "as_tensor()");
        if (r >= 0)
            return finish(S, &t, have_device, device, dtype, -1, "as_tensor()");
        /* CuPy 14's arrays have the buffer protocol, and refuse it with a TypeError
         * unless their memory is the host's: an object that describes device memory
         * (a CUDA array interface) is taken by DLPack or that interface below */
        if (!PyErr_ExceptionMatches(PyExc_TypeError))
            return NULL;
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb); /* no API call with an exception set */
        if (!PyObject_HasAttrString(data, "__cuda_array_interface__")) {
            PyErr_Restore(type, value, tb);
            return NULL;
        }
        Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
    }
    int r = pdt_import_array(S, data, "as_tensor()", &t);
    if (r < 0)
        return NULL;
    if (r == 0) /* numbers, nested sequences: a new tensor */
        return pdt_tensor_from_data(S, data, dtype, device, 0, "as_tensor()");
    return finish(S, &t, have_device, device, dtype, -1, "as_tensor()");
}

PyMethodDef pdt_interop_functions[] = {
    {"from_dlpack", (PyCFunction)(void (*)(void))f_from_dlpack, METH_FASTCALL | METH_KEYWORDS,
     doc_from_dlpack},
    {"as_tensor", (PyCFunction)(void (*)(void))f_as_tensor, METH_FASTCALL | METH_KEYWORDS,
     doc_as_tensor},
    {NULL, NULL, 0, NULL},
};
