/* storage_ref.c - pydevtensor._C._StorageRef: what an export holds so that
 * the memory it points into stays alive.
 *
 * Note [exports hold the storage]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A Tensor object is not its storage: `t.data = other` (and Module.to(),
 * which moves parameters that way) makes t view another storage and drops its
 * reference to the old one, which is freed when no other view holds it.  So an
 * export that hands out a pointer must hold the storage, not the Tensor:
 *   - the buffer protocol (memoryview(t), np.asarray(t), t.numpy(), __array__)
 *     gives a buffer whose obj is a _StorageRef, so NumPy's base chain ends in
 *     one (tensor_export.c: t_getbuffer; bfloat16, which the Tensor offers no
 *     buffer for, through __array__ and t._buffer(): pdt_tensor_buffer);
 *   - a DLPack capsule's manager holds a _StorageRef (dlpack.c).
 * A _StorageRef holds its own view of the storage and offers nothing that
 * could change which storage that is.
 * The array interfaces (__array_interface__, __cuda_array_interface__) cannot
 * name an owner: their contract ties the memory's life to the object they were
 * read from.  So a Tensor whose interface was read keeps the storage that
 * interface showed for as long as the Tensor lives, even after .data moves it
 * (tensor_object.c: set_data, Note [interfaces keep the storage]).
 */
#include <string.h>

#include "pdt_module.h"

typedef struct {
    PyObject_HEAD
    pdt_tensor t;
} StorageRef;

static void ref_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    pdt_tensor_release(&((StorageRef *)self)->t);
    tp->tp_free(self);
    Py_DECREF(tp);
}

/* bfloat16 has no buffer format: its bits go out as uint16 ("H"), and
 * pdt_numpy_view gives NumPy's ml_dtypes.bfloat16 view of them. */
static const char *const buffer_formats[PDT_NUM_DTYPES] = {"?", "i", "q", "f", "d",
                                                           "e", "H", "B", "b", "h"};

/* The held view's memory as a buffer (CPU only; t_getbuffer checked). */
static int ref_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    const pdt_tensor *t = &((StorageRef *)self)->t;
    if (t->device.kind != PDT_CPU) {
        PyErr_SetString(PyExc_BufferError, "device memory has no host buffer");
        return -1;
    }
    if (!(flags & PyBUF_STRIDES) && !pdt_tensor_is_contiguous(t)) {
        PyErr_SetString(PyExc_BufferError,
                        "the tensor is not contiguous; ask for a strided buffer");
        return -1;
    }
    Py_ssize_t *dims = PyMem_Malloc(sizeof(Py_ssize_t) * 2 * (size_t)(t->ndim ? t->ndim : 1));
    if (!dims) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t itemsize = (Py_ssize_t)pdt_dtype_size(t->dtype);
    for (int i = 0; i < t->ndim; i++) {
        dims[i] = (Py_ssize_t)t->shape[i];
        dims[t->ndim + i] = (Py_ssize_t)t->strides[i] * itemsize;
    }
    view->buf = pdt_tensor_ptr(t);
    view->obj = Py_NewRef(self);
    view->len = (Py_ssize_t)pdt_tensor_numel(t) * itemsize;
    view->readonly = 0;
    view->itemsize = itemsize;
    view->format = (flags & PyBUF_FORMAT) ? (char *)buffer_formats[t->dtype] : NULL;
    view->ndim = t->ndim;
    view->shape = (flags & PyBUF_ND) ? dims : NULL;
    view->strides = (flags & PyBUF_STRIDES) ? dims + t->ndim : NULL;
    view->suboffsets = NULL;
    view->internal = dims;
    return 0;
}

static void ref_releasebuffer(PyObject *self, Py_buffer *view)
{
    (void)self;
    PyMem_Free(view->internal);
}

static PyObject *ref_repr(PyObject *self)
{
    const pdt_tensor *t = &((StorageRef *)self)->t;
    char name[32];
    return PyUnicode_FromFormat("<pydevtensor storage reference: %zu bytes on %s>",
                                pdt_tensor_storage_nbytes(t),
                                pdt_device_str(t->device, name, sizeof name));
}

static PyType_Slot ref_slots[] = {
    {Py_tp_doc, "Holds a tensor storage alive for an export (a buffer, a DLPack capsule)."},
    {Py_tp_dealloc, ref_dealloc},
    {Py_tp_repr, ref_repr},
    {Py_bf_getbuffer, ref_getbuffer},
    {Py_bf_releasebuffer, ref_releasebuffer},
    {0, NULL},
};

PyObject *pdt_storage_ref_steal(pdt_state *S, pdt_tensor *t)
{
    StorageRef *o = (StorageRef *)S->storage_ref_type->tp_alloc(S->storage_ref_type, 0);
    if (!o) {
        pdt_tensor_release(t);
        return NULL;
    }
    pdt_tensor_assign(&o->t, t);
    pdt_tensor_forget(t);
    return (PyObject *)o;
}

PyObject *pdt_storage_ref_new(pdt_state *S, const pdt_tensor *t)
{
    pdt_tensor view;
    pdt_tensor_share(&view, t);
    return pdt_storage_ref_steal(S, &view);
}

const pdt_tensor *pdt_storage_ref_tensor(PyObject *ref) { return &((StorageRef *)ref)->t; }

int pdt_storage_ref_type_init(PyObject *module, pdt_state *S)
{
    PyType_Spec spec = {
        .name = "pydevtensor._C._StorageRef",
        .basicsize = sizeof(StorageRef),
        .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
        .slots = ref_slots,
    };
    S->storage_ref_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &spec, NULL);
    return S->storage_ref_type ? 0 : -1;
}
