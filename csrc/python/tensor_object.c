/* tensor_object.c - the pydevtensor.Tensor type: its lifetime, attributes
 * (.device, .dtype, .shape, ...), size queries, len() and first-dimension
 * indexing (so iteration walks the first dimension).  Copies live in
 * tensor_copy.c, conversions in tensor_convert.c and tensor_export.c. */
#include "args.h"
#include "docstrings_tensor.h"
#include "docstrings_types.h"
#include "pdt_module.h"

#include <string.h>

#include <structmember.h> /* PyMemberDef, T_PYSSIZET (Python < 3.12) */

PyObject *pdt_tensor_wrap_new(pdt_state *S, pdt_tensor *t)
{
    PdtTensorObject *o = (PdtTensorObject *)S->tensor_type->tp_alloc(S->tensor_type, 0);
    if (!o) {
        pdt_tensor_release(t);
        return NULL;
    }
    pdt_tensor_assign(&o->t, t);
    pdt_tensor_forget(t);
    return (PyObject *)o;
}

/* Note [tensors in cycles]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A tensor holds Python objects (its grad_fn Node, whose hooks are closures, its grad,
 * its view base), so a cycle can run through it: t.register_hook(lambda g: ... t ...),
 * u = x * 2 with a hook naming u, node.keep = u.  The type is the collector's, as
 * PyTorch's is: tp_traverse shows those references (a leaf's hooks are in its own
 * slot, leaf_hooks), tp_clear drops them for cyclic garbage.  Untracked, the collector
 * saw the Node's reference from the tensor as an outside one, and 50 such 4 MB tensors
 * stayed alive after gc.collect().  The dealloc runs in the trashcan, so that freeing a
 * long chain of tensors (t.grad = u, u.grad = v, ...) does not recurse once per link
 * (a stack overflow at about 400,000).  A storage a foreign object owns (a NumPy
 * array's, through __array_interface__) keeps that object unseen by the collector: a
 * cycle through it (o.t = as_tensor(o)) stays; several tensors share the storage, so
 * no one of them can show it. */
static int tensor_traverse(PyObject *self, visitproc visit, void *arg)
{
    PdtTensorObject *o = (PdtTensorObject *)self;
    Py_VISIT(Py_TYPE(self)); /* a heap type's instances hold their type */
    Py_VISIT(o->kept);
    Py_VISIT(o->size);
    Py_VISIT(o->grad);
    Py_VISIT(o->grad_fn);
    Py_VISIT(o->accumulator);
    Py_VISIT(o->leaf_hooks);
    Py_VISIT(o->base);
    Py_VISIT(o->dict);
    return 0;
}

static int tensor_clear(PyObject *self)
{
    PdtTensorObject *o = (PdtTensorObject *)self;
    Py_CLEAR(o->kept);
    Py_CLEAR(o->size);
    Py_CLEAR(o->dict);
    pdt_autograd_clear(o);
    return 0;
}

static void tensor_dealloc(PyObject *self)
{
    PdtTensorObject *o = (PdtTensorObject *)self;
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self); /* Note [tensors in cycles] */
    /* a subclass's own dealloc (subtype_dealloc) is the trashcan's already: the macro
     * leaves it to that one */
    Py_TRASHCAN_BEGIN(self, tensor_dealloc) if (o->weakreflist) PyObject_ClearWeakRefs(self);
    /* A Python subclass (nn.Parameter) reaches here through subtype_dealloc (which
     * tracked it again for us); the __dict__ is this type's, so it is cleared here. */
    Py_CLEAR(o->kept);
    Py_CLEAR(o->size);
    Py_CLEAR(o->dict);
    pdt_autograd_clear(o);
    pdt_tensor_release(&o->t);
    tp->tp_free(self);
    Py_DECREF(tp);
    Py_TRASHCAN_END
}

PyObject *pdt_shape_tuple(const pdt_tensor *t)
{
    PyObject *tuple = PyTuple_New(t->ndim);
    if (!tuple)
        return NULL;
    for (int i = 0; i < t->ndim; i++) {
        PyObject *v = PyLong_FromLongLong(t->shape[i]);
        if (!v) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, i, v);
    }
    return tuple;
}

/* Note [the shape kept]
 * ~~~~~~~~~~~~~~~~~~~~~
 * x.shape is a Size, a tuple subclass written in Python (pydevtensor/_tensor_py.py), made
 * by tuple's constructor on a tuple of the sizes: 136 ns, NumPy's a.shape 82, and the Python layers
 * read shapes on every call.  The Size given last is kept on the tensor object and given
 * again while it still holds the tensor's sizes (compared item by item: a tensor's shape
 * changes in place through .data, resize_, set_ and the in-place view ops, and whichever
 * changed it, the comparison sees it).  A Size holds ints only, so it closes no cycle. */
static int same_sizes(PyObject *size, const pdt_tensor *t)
{
    if (PyTuple_GET_SIZE(size) != t->ndim)
        return 0;
    for (int i = 0; i < t->ndim; i++)
        if (PyLong_AsLongLong(PyTuple_GET_ITEM(size, i)) != t->shape[i])
            return 0;
    return 1;
}

static PyObject *shape_object(PyObject *self)
{
    PdtTensorObject *o = (PdtTensorObject *)self;
    if (o->size && same_sizes(o->size, &o->t))
        return Py_NewRef(o->size);
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    PyObject *tuple = pdt_shape_tuple(pdt_tensor_of(self));
    if (!S || !tuple) {
        Py_XDECREF(tuple);
        return NULL;
    }
    if (!S->size_type) /* before pydevtensor/__init__ installs Size: a plain tuple */
        return tuple;
    /* tuple's own constructor for the subtype, not Size.__new__ (which checks the
       items of a Size made in Python; these are ints already) */
    PyObject *args = PyTuple_Pack(1, tuple);
    Py_DECREF(tuple);
    PyObject *size = args ? PyTuple_Type.tp_new((PyTypeObject *)S->size_type, args, NULL) : NULL;
    Py_XDECREF(args);
    if (size && PyTuple_Check(size))
        Py_XSETREF(o->size, Py_NewRef(size));
    return size;
}

/* Normalises dim for t's dims (-ndim <= dim < ndim). */
static int wrap_dim(int64_t dim, const pdt_tensor *t, int64_t *out)
{
    int ndim = t->ndim;
    int64_t n = ndim > 0 ? ndim : 1;
    if (dim < -n || dim >= n) {
        char where[PDT_WHERE_LEN];
        PyErr_Format(PyExc_IndexError,
                     "dimension out of range: got dim %lld for a tensor with %d dimension%s "
                     "(expected %lld <= dim < %lld) (%s)",
                     (long long)dim, ndim, ndim == 1 ? "" : "s", (long long)-n, (long long)n,
                     pdt_tensor_where(t, where, sizeof where));
        return -1;
    }
    *out = dim < 0 ? dim + n : dim;
    return 0;
}

/* ---- getters ---- */

static PyObject *get_device(PyObject *self, void *c)
{
    (void)c;
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    return S ? pdt_device_object(S, pdt_tensor_of(self)->device) : NULL;
}

static PyObject *get_dtype(PyObject *self, void *c)
{
    (void)c;
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    return S ? pdt_dtype_object(S, pdt_tensor_of(self)->dtype) : NULL;
}

static PyObject *get_shape(PyObject *self, void *c)
{
    (void)c;
    return shape_object(self);
}

static PyObject *get_ndim(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromLong(pdt_tensor_of(self)->ndim);
}

static PyObject *get_is_cuda(PyObject *self, void *c)
{
    (void)c;
    return PyBool_FromLong(pdt_tensor_of(self)->device.kind == PDT_CUDA);
}

static PyObject *get_nbytes(PyObject *self, void *c)
{
    (void)c;
    const pdt_tensor *t = pdt_tensor_of(self);
    return PyLong_FromLongLong(pdt_tensor_numel(t) * (int64_t)pdt_dtype_size(t->dtype));
}

static PyObject *get_itemsize(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromSize_t(pdt_dtype_size(pdt_tensor_of(self)->dtype));
}

/* .data: a plain Tensor sharing this one's storage (for nn.Parameter: .data of
 * a parameter is the tensor without the parameter marking), outside autograd,
 * with the storage's other version counter (Note [version counter]). */
static PyObject *get_data(PyObject *self, void *c)
{
    (void)c;
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    if (!S)
        return NULL;
    pdt_tensor view;
    pdt_tensor_share(&view, pdt_tensor_of(self));
    view.counter = PDT_COUNTER_DATA;
    return pdt_tensor_wrap_new(S, &view);
}

/* Note [interfaces keep the storage]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * __array_interface__ and __cuda_array_interface__ hand out a bare address,
 * and their consumers keep the Tensor object alive, not our storage (the
 * interfaces have no way to name another owner).  So once an interface has
 * shown a tensor's storage (o->shown), `t.data = other` does not drop that
 * storage: it moves a reference to it into o->kept, which lives as long as
 * the Tensor does.  The buffer protocol and DLPack need none of this: they
 * hold the storage themselves (Note [exports hold the storage]). */

/* t.data = other: t now views other's storage (its device, dtype and shape).
 * This is how Module.to() moves a Parameter in place, keeping the object. */
static int set_data(PyObject *self, PyObject *value, void *c)
{
    (void)c;
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    PdtTensorObject *o = (PdtTensorObject *)self;
    if (!S)
        return -1;
    if (!value || !pdt_is_tensor(S, value)) {
        PyErr_Format(PyExc_TypeError, "data must be set to a Tensor, got %.100s",
                     value ? Py_TYPE(value)->tp_name : "deletion");
        return -1;
    }
    /* PyTorch's check: an integer tensor cannot require grad (t would, and be wrong) */
    if (pdt_tensor_object_requires_grad(o) && !pdt_dtype_is_floating(pdt_tensor_of(value)->dtype)) {
        PyErr_Format(PyExc_RuntimeError,
                     "data set to a tensor that requires gradients must be floating point "
                     "(got %s for a tensor of %s that requires grad)",
                     pdt_dtype_name(pdt_tensor_of(value)->dtype), pdt_dtype_name(o->t.dtype));
        return -1;
    }
    if (o->shown && pdt_tensor_of(value)->storage != o->t.storage) {
        /* Note [interfaces keep the storage] */
        PyObject *ref = pdt_storage_ref_new(S, &o->t);
        if (!ref)
            return -1;
        if (!o->kept && !(o->kept = PyList_New(0))) {
            Py_DECREF(ref);
            return -1;
        }
        int r = PyList_Append(o->kept, ref);
        Py_DECREF(ref);
        if (r < 0)
            return -1;
        o->shown = 0;
    }
    pdt_tensor next, old = o->t;
    pdt_tensor_share(&next, pdt_tensor_of(value));
    next.counter = old.counter; /* t keeps counting in its own counter */
    o->t = next;
    pdt_tensor_release(&old);
    return 0;
}

/* Note [empty outs]: an out= with no elements that is no view (nothing else sees its
 * storage) takes the result's shape, as PyTorch resizes it: out=pydevtensor.empty(0)
 * is a common way to ask for one.  The op writes into a fresh tensor of that shape
 * (pdt_out_fresh), which out adopts only once the op has succeeded (pdt_out_adopt),
 * so that a failing call leaves out as it was.  An out with elements of another shape
 * is refused by the core (PyTorch resizes that too, with a deprecation warning). */
int pdt_out_fresh(pdt_state *S, PyObject *out, int ndim, const int64_t *shape, PyObject **fresh)
{
    PdtTensorObject *o = (PdtTensorObject *)out;
    const pdt_tensor *t = &o->t;
    *fresh = NULL;
    if (pdt_tensor_numel(t) != 0 || o->base ||
        (t->ndim == ndim && !memcmp(t->shape, shape, sizeof *shape * (size_t)ndim)))
        return 0;
    pdt_tensor made;
    pdt_status st = pdt_tensor_empty(t->device, t->dtype, ndim, shape, 0, &made);
    if (st != PDT_OK) {
        pdt_raise(S, st);
        return -1;
    }
    return (*fresh = pdt_tensor_wrap_new(S, &made)) ? 0 : -1;
}

int pdt_out_adopt(PyObject *out, PyObject *fresh)
{
    int r = set_data(out, fresh, NULL);
    Py_DECREF(fresh);
    return r;
}

static PyGetSetDef tensor_getset[] = {
    {"device", get_device, NULL, doc_device, NULL},
    {"dtype", get_dtype, NULL, doc_dtype, NULL},
    {"shape", get_shape, NULL, doc_shape, NULL},
    {"ndim", get_ndim, NULL, doc_ndim, NULL},
    {"is_cuda", get_is_cuda, NULL, doc_is_cuda, NULL},
    {"nbytes", get_nbytes, NULL, doc_nbytes, NULL},
    {"itemsize", get_itemsize, NULL, doc_itemsize, NULL},
    {"data", get_data, set_data, doc_data, NULL},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- methods ---- */

static PyObject *t_numel(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLongLong(pdt_tensor_numel(pdt_tensor_of(self)));
}

static PyObject *t_dim(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLong(pdt_tensor_of(self)->ndim);
}

static PyObject *size_or_stride(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames, int stride)
{
    static const char *const name[2] = {"size", "stride"};
    PyObject *dim_obj = nargs > 0 ? args[0] : NULL;
    if (nargs > 1 || (kwnames && PyTuple_GET_SIZE(kwnames) > (nargs ? 0 : 1))) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most one argument (dim)", name[stride]);
        return NULL;
    }
    if (kwnames && PyTuple_GET_SIZE(kwnames) == 1) {
        if (!PyUnicode_Check(PyTuple_GET_ITEM(kwnames, 0)) ||
            PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "dim") != 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R",
                         name[stride], PyTuple_GET_ITEM(kwnames, 0));
            return NULL;
        }
        dim_obj = args[0];
    }
    const pdt_tensor *t = pdt_tensor_of(self);
    if (!dim_obj || dim_obj == Py_None) {
        if (!stride)
            return shape_object(self);
        PyObject *tuple = PyTuple_New(t->ndim);
        for (int i = 0; tuple && i < t->ndim; i++) {
            PyObject *v = PyLong_FromLongLong(t->strides[i]);
            if (!v)
                Py_CLEAR(tuple);
            else
                PyTuple_SET_ITEM(tuple, i, v);
        }
        return tuple;
    }
    long long dim = PyLong_AsLongLong(dim_obj);
    int64_t d;
    if (dim == -1 && PyErr_Occurred())
        return NULL;
    if (t->ndim == 0) { /* a 0-d tensor has no dim to name, as PyTorch's */
        char dev[32];
        PyErr_Format(PyExc_IndexError,
                     "%s(): dimension specified as %lld but the tensor (on %s) has no "
                     "dimensions",
                     name[stride], dim, pdt_device_str(t->device, dev, sizeof dev));
        return NULL;
    }
    if (wrap_dim(dim, t, &d) < 0)
        return NULL;
    return PyLong_FromLongLong(stride ? t->strides[d] : t->shape[d]);
}

static PyObject *t_size(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw)
{
    return size_or_stride(self, args, nargs, kw, 0);
}

static PyObject *t_stride(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw)
{
    return size_or_stride(self, args, nargs, kw, 1);
}

/* is_contiguous(memory_format=contiguous_format) */
static PyObject *t_is_contiguous(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
    const pdt_tensor *t = pdt_tensor_of(self);
    if (nargs == 0 && !kwnames)
        return PyBool_FromLong(pdt_tensor_is_contiguous(t));
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    pdt_memory_format fmt;
    if (!S || pdt_memory_format_arg(S, "is_contiguous", "is_contiguous()", args, nargs, kwnames,
                                    PDT_CONTIGUOUS_FORMAT, &fmt) < 0)
        return NULL;
    /* preserve_format asks for the default order, as PyTorch's TensorBase::is_contiguous */
    return PyBool_FromLong(pdt_follows_memory_format(t, fmt));
}

static PyObject *t_element_size(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromSize_t(pdt_dtype_size(pdt_tensor_of(self)->dtype));
}

static PyObject *t_data_ptr(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromVoidPtr(pdt_tensor_ptr(pdt_tensor_of(self)));
}

static PyObject *t_storage_offset(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLongLong(pdt_tensor_of(self)->offset);
}

static PyObject *t_is_pinned(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(pdt_tensor_is_pinned(pdt_tensor_of(self)));
}

static PyObject *t_is_floating_point(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(pdt_dtype_is_floating(pdt_tensor_of(self)->dtype));
}

static PyObject *t_storage_refcount(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLong(pdt_tensor_storage_refcount(pdt_tensor_of(self)));
}

/* Whether the storage is another library's memory (a NumPy array's, a DLPack
 * producer's), which pydevtensor shares and cannot grow (resize_ refuses, as PyTorch's). */
static PyObject *t_storage_is_foreign(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(pdt_tensor_is_foreign(pdt_tensor_of(self)));
}

/* _storage_nbytes(): the size of the whole storage t is a view of (copy.deepcopy copies
 * it once for all the views it meets: pydevtensor/_copies.py) */
static PyObject *t_storage_nbytes(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromSize_t(pdt_tensor_storage_nbytes(pdt_tensor_of(self)));
}

/* _buffer(): the CPU memory as a buffer, bfloat16 as its uint16 bits (for the
 * package's own pickling and files; Note [bfloat16 at the NumPy boundary]) */
static PyObject *t_buffer(PyObject *self, PyObject *unused)
{
    (void)unused;
    return pdt_tensor_buffer(self);
}

static PyObject *t_get_device(PyObject *self, PyObject *unused)
{
    (void)unused;
    const pdt_tensor *t = pdt_tensor_of(self);
    return PyLong_FromLong(t->device.kind == PDT_CPU ? -1 : t->device.index);
}

static PyMethodDef tensor_methods[] = {
    {"numel", t_numel, METH_NOARGS, doc_numel},
    {"nelement", t_numel, METH_NOARGS, doc_nelement},
    {"dim", t_dim, METH_NOARGS, doc_dim},
    {"size", (PyCFunction)(void (*)(void))t_size, METH_FASTCALL | METH_KEYWORDS, doc_size},
    {"stride", (PyCFunction)(void (*)(void))t_stride, METH_FASTCALL | METH_KEYWORDS, doc_stride},
    {"is_contiguous", FASTKW(t_is_contiguous), doc_is_contiguous},
    {"element_size", t_element_size, METH_NOARGS, doc_element_size},
    {"data_ptr", t_data_ptr, METH_NOARGS, doc_data_ptr},
    {"storage_offset", t_storage_offset, METH_NOARGS, doc_storage_offset},
    {"is_pinned", t_is_pinned, METH_NOARGS, doc_is_pinned},
    {"is_floating_point", t_is_floating_point, METH_NOARGS, doc_is_floating_point},
    {"get_device", t_get_device, METH_NOARGS, doc_get_device},
    {"_storage_refcount", t_storage_refcount, METH_NOARGS, NULL},
    {"_storage_is_foreign", t_storage_is_foreign, METH_NOARGS, NULL},
    {"_storage_nbytes", t_storage_nbytes, METH_NOARGS, NULL},
    {"_buffer", t_buffer, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* ---- len() and t[i] on the first dimension ---- */

static Py_ssize_t tensor_len(PyObject *self)
{
    const pdt_tensor *t = pdt_tensor_of(self);
    if (t->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
        return -1;
    }
    return (Py_ssize_t)t->shape[0];
}

/* A view of row i along the first dimension. */
static PyObject *tensor_item(PyObject *self, Py_ssize_t i)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    const pdt_tensor *t = pdt_tensor_of(self);
    if (!S)
        return NULL;
    if (t->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "invalid index of a 0-d tensor");
        return NULL;
    }
    if (pdt_autograd_wanted(self, NULL, 0, NULL)) { /* x[i] as iteration reads it */
        PyObject *index = PyLong_FromSsize_t(i), *r;
        if (!index)
            return NULL;
        r = pdt_autograd_call("__getitem__", 1, self, &index, 1, NULL);
        Py_DECREF(index);
        return r;
    }
    if (i < 0 || i >= t->shape[0]) {
        char where[PDT_WHERE_LEN];
        PyErr_Format(PyExc_IndexError,
                     "index %zd is out of bounds for dimension 0 with size %lld (%s)", i,
                     (long long)t->shape[0], pdt_tensor_where(t, where, sizeof where));
        return NULL;
    }
    pdt_tensor v;
    pdt_tensor_share(&v, t);
    v.offset += (int64_t)i * t->strides[0];
    v.ndim = t->ndim - 1;
    memmove(v.shape, t->shape + 1, (size_t)v.ndim * sizeof v.shape[0]);
    memmove(v.strides, t->strides + 1, (size_t)v.ndim * sizeof v.strides[0]);
    return pdt_tensor_wrap_new(S, &v);
}

static PyObject *tensor_new(PyTypeObject *tp, PyObject *args, PyObject *kwargs);

static PyType_Slot tensor_slots[] = {
    {Py_tp_doc, (void *)doc_tensor_type},
    {Py_tp_new, tensor_new},
    {Py_tp_dealloc, tensor_dealloc},
    {Py_tp_traverse, tensor_traverse},
    {Py_tp_clear, tensor_clear},
    {Py_sq_length, tensor_len},
    {Py_sq_item, tensor_item},
    {0, NULL},
};

/* Note [a tensor's __dict__]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A tensor takes instance attributes (t.tag = "input"), as PyTorch's does: libraries
 * mark parameters and buffers that way.  The dict is made on the first assignment, so
 * a tensor that never gets one pays a NULL pointer.  Subclasses (nn.Parameter) use this
 * dict rather than adding their own, so tensor_dealloc clears it for them too.  Copies
 * and pickles carry the attributes (pydevtensor/_copies.py).  The cost: CPython 3.11
 * does not specialize a method lookup on an object whose dict slot is NULL, so a method
 * call (x.dim(), x.add(y)) takes about 4 to 10 ns more there; operators and properties
 * (x + y, x.shape) are unchanged, and 3.12 specializes the lookup again. */
static PyMemberDef tensor_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PdtTensorObject, weakreflist), READONLY, NULL},
    {"__dictoffset__", T_PYSSIZET, offsetof(PdtTensorObject, dict), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

/* The tensor Tensor(...) shares storage with: Tensor(t) / Tensor(data=t) is t itself;
 * any other call is PyTorch's legacy constructor (Tensor([1, 2]), Tensor(2, 3),
 * Tensor()), made by pydevtensor/_tensor_legacy.py's _legacy_new.  New reference. */
static PyObject *tensor_source(pdt_state *S, PyObject *args, PyObject *kwargs)
{
    Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    Py_ssize_t nkw = kwargs ? PyDict_GET_SIZE(kwargs) : 0;
    PyObject *data = NULL;
    if (nargs == 1 && nkw == 0)
        data = PyTuple_GET_ITEM(args, 0);
    else if (nargs == 0 && nkw == 1)
        data = PyDict_GetItemString(kwargs, "data"); /* borrowed, or NULL */
    if (data && pdt_is_tensor(S, data))
        return Py_NewRef(data);
    PyObject *mod = PyImport_ImportModule("pydevtensor._tensor_legacy");
    PyObject *fn = mod ? PyObject_GetAttrString(mod, "_legacy_new") : NULL;
    PyObject *made = fn ? PyObject_Call(fn, args, kwargs) : NULL;
    Py_XDECREF(fn);
    Py_XDECREF(mod);
    if (made && !pdt_is_tensor(S, made)) {
        PyErr_SetString(PyExc_SystemError, "_legacy_new did not return a Tensor");
        Py_CLEAR(made);
    }
    return made;
}

static PyObject *tensor_new(PyTypeObject *tp, PyObject *args, PyObject *kwargs)
{
    pdt_state *S = pdt_state_of_type(tp);
    if (!S)
        return NULL;
    PyObject *data = tensor_source(S, args, kwargs);
    if (!data)
        return NULL;
    PdtTensorObject *o = (PdtTensorObject *)tp->tp_alloc(tp, 0);
    if (!o) {
        Py_DECREF(data);
        return NULL;
    }
    pdt_tensor_share(&o->t, pdt_tensor_of(data));
    /* a tensor of its own (nn.Parameter(w.data)): it counts its writes in the
     * storage's own counter, not .data's (Note [version counter]) */
    o->t.counter = PDT_COUNTER_OWN;
    Py_DECREF(data);
    return (PyObject *)o;
}

/* Appends the NULL-terminated slot list from into slots (capacity cap). */
static int add_slots(PyType_Slot *slots, size_t *n, size_t cap, const PyType_Slot *from)
{
    for (; from->slot; from++) {
        if (*n + 1 >= cap) {
            PyErr_SetString(PyExc_SystemError, "too many Tensor slots");
            return -1;
        }
        slots[(*n)++] = *from;
    }
    return 0;
}

int pdt_tensor_type_init(PyObject *module, pdt_state *S)
{
    /* The methods and slots of the other tensor_*.c files are gathered here. */
    static PyMethodDef all_methods[320];
    size_t n = 0;
    const PyMethodDef *parts[] = {tensor_methods,
                                  pdt_tensor_copy_methods,
                                  pdt_tensor_random_methods,
                                  pdt_tensor_export_methods,
                                  pdt_math_methods,
                                  pdt_round_methods,
                                  pdt_clamp_methods,
                                  pdt_erf_methods,
                                  pdt_gamma_methods,
                                  pdt_reduce_methods,
                                  pdt_view_methods,
                                  pdt_matmul_methods,
                                  pdt_interop_methods,
                                  pdt_autograd_methods,
                                  pdt_autograd_view_methods,
                                  pdt_trig_methods,
                                  pdt_bitwise_methods};
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++)
        for (const PyMethodDef *m = parts[p]; m->ml_name; m++) {
            if (n + 1 >= sizeof all_methods / sizeof all_methods[0]) {
                PyErr_SetString(PyExc_SystemError, "too many Tensor methods");
                return -1;
            }
            all_methods[n++] = *m;
        }
    all_methods[n] = (PyMethodDef){NULL, NULL, 0, NULL};

    static PyGetSetDef all_getset[48];
    size_t ng = 0;
    const PyGetSetDef *getset_parts[] = {tensor_getset, pdt_view_getset, pdt_interop_getset,
                                         pdt_autograd_getset, pdt_autograd_view_getset};
    for (size_t p = 0; p < sizeof getset_parts / sizeof getset_parts[0]; p++)
        for (const PyGetSetDef *g = getset_parts[p]; g->name; g++) {
            if (ng + 1 >= sizeof all_getset / sizeof all_getset[0]) {
                PyErr_SetString(PyExc_SystemError, "too many Tensor attributes");
                return -1;
            }
            all_getset[ng++] = *g;
        }
    all_getset[ng] = (PyGetSetDef){NULL, NULL, NULL, NULL, NULL};

    PyType_Slot slots[96];
    size_t ns = 0;
    const PyType_Slot own[] = {{Py_tp_methods, all_methods},
                               {Py_tp_getset, all_getset},
                               {Py_tp_members, tensor_members},
                               {0, NULL}};
    const PyType_Slot *slot_parts[] = {tensor_slots,
                                       own,
                                       pdt_tensor_export_slots,
                                       pdt_math_slots,
                                       pdt_subscript_slots,
                                       pdt_matmul_slots,
                                       pdt_bitwise_slots};
    for (size_t p = 0; p < sizeof slot_parts / sizeof slot_parts[0]; p++)
        if (add_slots(slots, &ns, 96, slot_parts[p]) < 0)
            return -1;
    slots[ns] = (PyType_Slot){0, NULL};
    PyType_Spec spec = {
        .name = "pydevtensor.Tensor",
        .basicsize = sizeof(PdtTensorObject),
        .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
        .slots = slots,
    };
    S->tensor_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &spec, NULL);
    if (!S->tensor_type)
        return -1;
    return PyModule_AddObjectRef(module, "Tensor", (PyObject *)S->tensor_type);
}
