/* tensor_export.c - data out of tensors: tolist(), item(), float(), int() and
 * bool(); the buffer protocol and .numpy() on CPU tensors; to_numpy().  Reading a
 * GPU tensor from the host is a counted copy, which the transfer guard sees as
 * implicit (guard.c) except in .numpy(force=True) and to_numpy().  Data into
 * tensors is in tensor_convert.c. */
#include "args.h"
#include "docstrings_tensor.h"
#include "pdt_convert.h"
#include "pdt_half.h"

static PyObject *element_object(const char *p, pdt_dtype dt)
{
    switch (dt) {
    case PDT_BOOL: return PyBool_FromLong(*(const uint8_t *)p);
    case PDT_INT32: return PyLong_FromLong(*(const int32_t *)p);
    case PDT_INT64: return PyLong_FromLongLong(*(const int64_t *)p);
    case PDT_FLOAT32: return PyFloat_FromDouble(*(const float *)p);
    case PDT_FLOAT64: return PyFloat_FromDouble(*(const double *)p);
    case PDT_FLOAT16: return PyFloat_FromDouble(pdt_f16_to_f32(*(const uint16_t *)p));
    case PDT_BFLOAT16: return PyFloat_FromDouble(pdt_bf16_to_f32(*(const uint16_t *)p));
    case PDT_UINT8: return PyLong_FromLong(*(const uint8_t *)p);
    case PDT_INT8: return PyLong_FromLong(*(const int8_t *)p);
    case PDT_INT16: return PyLong_FromLong(*(const int16_t *)p);
    }
    return NULL;
}

static PyObject *to_list(const pdt_tensor *t, int depth, const char *p)
{
    if (depth == t->ndim)
        return element_object(p, t->dtype);
    PyObject *list = PyList_New(t->shape[depth]);
    if (!list)
        return NULL;
    int64_t step = t->strides[depth] * (int64_t)pdt_dtype_size(t->dtype);
    for (int64_t i = 0; i < t->shape[depth]; i++) {
        PyObject *item = to_list(t, depth + 1, p + i * step);
        if (!item) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

static PyObject *t_tolist(PyObject *self, PyObject *unused)
{
    (void)unused;
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    pdt_tensor h;
    if (!S || pdt_host_values(S, pdt_tensor_of(self), "tolist()", &h) < 0)
        return NULL;
    PyObject *r = to_list(&h, 0, pdt_tensor_ptr(&h));
    pdt_tensor_release(&h);
    return r;
}

PyObject *pdt_tensor_scalar_value(PyObject *self, const char *what)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    const pdt_tensor *t = pdt_tensor_of(self);
    if (!S)
        return NULL;
    if (pdt_tensor_numel(t) != 1) {
        char dev[32], shape[128];
        PyErr_Format(S->InvalidArgumentError,
                     "%s: only a tensor with one element can be converted to a Python scalar; "
                     "this one has %lld elements (shape %s, on %s)",
                     what, (long long)pdt_tensor_numel(t),
                     pdt_shape_str(t->ndim, t->shape, shape, sizeof shape),
                     pdt_device_str(t->device, dev, sizeof dev));
        return NULL;
    }
    if (t->device.kind == PDT_CPU) /* read in place: making the number runs no Python */
        return element_object(pdt_tensor_ptr(t), t->dtype);
    pdt_tensor h;
    if (pdt_host_values(S, t, what, &h) < 0)
        return NULL;
    PyObject *r = element_object(pdt_tensor_ptr(&h), h.dtype);
    pdt_tensor_release(&h);
    return r;
}

static PyObject *t_item(PyObject *self, PyObject *unused)
{
    (void)unused;
    return pdt_tensor_scalar_value(self, "item()");
}

/* float(t) of a tensor that requires grad warns once per process, as PyTorch's (its
 * TORCH_WARN_ONCE): the number is not in the graph, so a loss computed from it gets no
 * gradient.  item(), int() and the rest stay silent there, as PyTorch's do. */
static int float_of_grad_warned;

static PyObject *t_float_scalar(PyObject *self)
{
    if ((!float_of_grad_warned || pdt_warn_always) &&
        pdt_tensor_object_requires_grad((PdtTensorObject *)self)) {
        float_of_grad_warned = 1;
        if (PyErr_WarnEx(PyExc_UserWarning,
                         "Converting a tensor with requires_grad=True to a scalar may lead to "
                         "unexpected behavior.\nConsider using tensor.detach() first.",
                         1) < 0)
            return NULL;
    }
    PyObject *v = pdt_tensor_scalar_value(self, "float()");
    if (!v)
        return NULL;
    PyObject *r = PyNumber_Float(v);
    Py_DECREF(v);
    return r;
}

static PyObject *t_int_scalar(PyObject *self)
{
    PyObject *v = pdt_tensor_scalar_value(self, "int()");
    if (!v)
        return NULL;
    PyObject *r = PyNumber_Long(v);
    Py_DECREF(v);
    return r;
}

/* operator.index(t), as PyTorch: an integer (or bool) tensor of one element, any
 * shape, so that ["a", "b"][t] and range(n)[t] work; a float tensor is refused
 * (with __index__ Python would treat it as an integer everywhere). */
static PyObject *t_index_scalar(PyObject *self)
{
    const pdt_tensor *t = pdt_tensor_of(self);
    if (pdt_dtype_is_floating(t->dtype) || pdt_tensor_numel(t) != 1) {
        PyErr_Format(PyExc_TypeError,
                     "only integer tensors of a single element can be converted to an index "
                     "(this one is %s with %lld elements)",
                     pdt_dtype_name(t->dtype), (long long)pdt_tensor_numel(t));
        return NULL;
    }
    PyObject *v = pdt_tensor_scalar_value(self, "__index__()");
    if (!v)
        return NULL;
    PyObject *r = PyNumber_Index(v);
    Py_DECREF(v);
    return r;
}

static int t_bool_scalar(PyObject *self)
{
    PyObject *v = pdt_tensor_scalar_value(self, "bool()");
    if (!v)
        return -1;
    int r = PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

/* ---- the buffer protocol (CPU tensors only) ---- */

/* The buffer is a _StorageRef's, which holds the storage: `t.data = other`
 * cannot free the memory under a memoryview or a NumPy array (Note [exports
 * hold the storage] in storage_ref.c).  The Tensor itself never appears as a
 * buffer's obj, so it needs no releasebuffer. */
static int t_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    view->obj = NULL;
    /* Note [exports of tensors that require grad] (a BufferError, which NumPy's
     * np.asarray passes over to reach __array__'s RuntimeError) */
    if (pdt_refuse_grad_export(self, PyExc_BufferError,
                               "Can't export the buffer of a Tensor that requires grad. Use "
                               "tensor.detach() instead.") < 0)
        return -1;
    PyObject *ref = pdt_tensor_buffer(self);
    if (!ref)
        return -1;
    if (pdt_tensor_of(self)->dtype == PDT_BFLOAT16) { /* Note [bfloat16 at the NumPy boundary] */
        Py_DECREF(ref);
        PyErr_SetString(PyExc_BufferError,
                        "a bfloat16 tensor has no buffer format (PEP 3118 has no bfloat16); "
                        "np.asarray(t) and t.numpy() give an ml_dtypes.bfloat16 array, "
                        "t.float() a float32 tensor");
        return -1;
    }
    int r = PyObject_GetBuffer(ref, view, flags);
    Py_DECREF(ref);
    return r;
}

/* Note [bfloat16 at the NumPy boundary]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * NumPy takes the buffer protocol first, then __array_interface__, then __array__.
 * A bfloat16 tensor offers neither of the first two (PEP 3118 and the typestrs
 * have no bfloat16: they could only show its bits as uint16 or "V2", which np.asarray
 * would take for the values), so NumPy reaches __array__, which gives the
 * ml_dtypes.bfloat16 view of the same memory (or TypeError naming ml_dtypes when it
 * is not installed), as t.numpy() does.  Our own code that wants the bits (pickling,
 * save(), MPI) reads them through t._buffer(), a _StorageRef whose buffer is uint16. */

/* t's _StorageRef (a buffer of its CPU memory; bfloat16 as uint16 bits). */
PyObject *pdt_tensor_buffer(PyObject *tensor)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(tensor));
    const pdt_tensor *t = pdt_tensor_of(tensor);
    if (!S)
        return NULL;
    if (t->device.kind != PDT_CPU) {
        char name[32];
        PyErr_Format(PyExc_BufferError,
                     "a %s tensor has no host buffer (its memory is on the device); copy it "
                     "explicitly with .cpu() or pydevtensor.to_numpy(t)",
                     pdt_device_str(t->device, name, sizeof name));
        return NULL;
    }
    return pdt_storage_ref_new(S, t);
}

PyObject *pdt_numpy_view(PyObject *tensor)
{
    /* numpy.asarray, looked up once (S->numpy_asarray): finding it in sys.modules
     * and the module each time cost about 0.1 us of t.numpy()'s 0.66.  NumPy
     * wraps the tensor's buffer in a memoryview, the array's base, which holds a
     * _StorageRef (Note [exports hold the storage]). */
    pdt_state *S = pdt_state_of_type(Py_TYPE(tensor));
    if (!S)
        return NULL;
    if (!S->numpy_asarray) {
        PyObject *np = PyImport_ImportModule("numpy");
        PyObject *asarray = np ? PyObject_GetAttrString(np, "asarray") : NULL;
        Py_XDECREF(np);
        if (!asarray)
            return NULL;
        Py_XSETREF(S->numpy_asarray, asarray);
    }
    PyObject *asarray = Py_NewRef(S->numpy_asarray); /* held: the call may run Python */
    const int bf16 = pdt_tensor_of(tensor)->dtype == PDT_BFLOAT16;
    /* bfloat16: its bits from a _StorageRef (the Tensor offers no buffer for it) */
    PyObject *source = bf16 ? pdt_tensor_buffer(tensor) : Py_NewRef(tensor);
    PyObject *arr = source ? PyObject_CallOneArg(asarray, source) : NULL;
    Py_XDECREF(source);
    Py_DECREF(asarray);
    if (arr && bf16)
        Py_SETREF(arr, pdt_bf16_numpy_from_bits(arr));
    return arr;
}

/* Note [exports of tensors that require grad]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A tensor that requires grad is not handed out as memory: not by numpy(), nor by
 * np.asarray (the buffer protocol, __array_interface__, __array__), nor by DLPack or
 * __cuda_array_interface__.  A write through such an export would change a value
 * autograd may have saved without its version counter seeing it (Note [version
 * counter]), and the array would not carry the graph either.  PyTorch refuses each
 * of these the same way, and its messages are kept; t.detach() gives the same memory
 * with no graph.  The checks below are the only ones: every export path calls this
 * before it reads the tensor's memory. */
int pdt_refuse_grad_export(PyObject *self, PyObject *exc, const char *message)
{
    if (!((PdtTensorObject *)self)->requires_grad)
        return 0;
    PyErr_SetString(exc, message);
    return -1;
}

/* The NumPy array of t: shared on the CPU, else an explicit copy made for op.  forced:
 * numpy(force=True) and to_numpy(), PyTorch's t.detach().cpu().numpy(), which take a
 * tensor that requires grad as its detach() (the array holds no graph). */
static PyObject *numpy_of(PyObject *self, const char *op, int forced)
{
    if (forced && ((PdtTensorObject *)self)->requires_grad) {
        PyObject *plain = PyObject_CallMethod(self, "detach", NULL);
        PyObject *arr = plain ? numpy_of(plain, op, 0) : NULL;
        Py_XDECREF(plain);
        return arr;
    }
    if (pdt_refuse_grad_export(self, PyExc_RuntimeError, PDT_NUMPY_GRAD_MESSAGE) < 0)
        return NULL;
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    const pdt_tensor *t = pdt_tensor_of(self);
    pdt_device cpu = {PDT_CPU, 0};
    pdt_tensor h;
    if (!S)
        return NULL;
    if (t->device.kind == PDT_CPU)
        return pdt_numpy_view(self);
    if (pdt_copy_for(S, t, cpu, t->dtype, op, 0, &h) < 0)
        return NULL;
    PyObject *host = pdt_tensor_wrap_new(S, &h);
    PyObject *arr = host ? pdt_numpy_view(host) : NULL;
    Py_XDECREF(host);
    return arr;
}

/* numpy(*, force=False) */
static PyObject *t_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"force", NULL};
    PyObject *kw[1] = {NULL};
    int force;
    if (nargs > 0) {
        PyErr_SetString(PyExc_TypeError, "numpy() takes only the keyword argument force");
        return NULL;
    }
    if (pdt_parse_keywords("numpy", args, kwnames, names, kw) < 0 ||
        pdt_parse_bool(kw[0], 0, "numpy", "force", &force) < 0)
        return NULL;
    const pdt_tensor *t = pdt_tensor_of(self);
    if (t->device.kind != PDT_CPU && !force) {
        char name[32];
        PyErr_Format(PyExc_TypeError,
                     "can't convert %s tensor to NumPy without a device-to-host copy; call "
                     ".cpu() first, or pydevtensor.to_numpy(t)",
                     pdt_device_str(t->device, name, sizeof name));
        return NULL;
    }
    return numpy_of(self, force ? "numpy(force=True)" : "numpy()", force);
}

/* to_numpy(t): the explicit way out of any device. */
static PyObject *f_to_numpy(PyObject *module, PyObject *t)
{
    pdt_state *S = pdt_state_of_module(module);
    if (!pdt_is_tensor(S, t)) {
        PyErr_Format(PyExc_TypeError, "to_numpy(): expected a Tensor, got %.100s",
                     Py_TYPE(t)->tp_name);
        return NULL;
    }
    return numpy_of(t, "to_numpy()", 1);
}

PyMethodDef pdt_tensor_export_methods[] = {
    {"tolist", t_tolist, METH_NOARGS, doc_tolist},
    {"item", t_item, METH_NOARGS, doc_item},
    {"numpy", (PyCFunction)(void (*)(void))t_numpy, METH_FASTCALL | METH_KEYWORDS, doc_numpy},
    {NULL, NULL, 0, NULL},
};

PyType_Slot pdt_tensor_export_slots[] = {
    {Py_nb_float, t_float_scalar}, {Py_nb_int, t_int_scalar},      {Py_nb_index, t_index_scalar},
    {Py_nb_bool, t_bool_scalar},   {Py_bf_getbuffer, t_getbuffer}, {0, NULL},
};

PyMethodDef pdt_export_functions[] = {
    {"to_numpy", f_to_numpy, METH_O, doc_to_numpy},
    {NULL, NULL, 0, NULL},
};
