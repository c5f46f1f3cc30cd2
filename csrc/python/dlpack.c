/* dlpack.c - DLPack, both ways: __dlpack__ and __dlpack_device__ export a
 * tensor's memory in a capsule; pdt_import_dlpack takes a capsule (or an
 * object with __dlpack__) apart into a tensor sharing the producer's memory.
 * The structs are in dlpack.h; from_dlpack() itself is in interop.c, beside
 * as_tensor().
 *
 * Note [DLPack streams]
 * ~~~~~~~~~~~~~~~~~~~~~
 * The array API's protocol: the consumer passes __dlpack__ the stream it will
 * use (None: the legacy default stream, 1: legacy default, 2: per-thread
 * default, -1: do not synchronize, another int: a cudaStream_t; 0 is
 * ambiguous and refused), and the producer makes that stream wait for its own
 * pending work on the data.  As a producer we enqueue an event wait on the
 * consumer's stream; as a consumer we pass our device's stream, so that our
 * later work on the tensor is ordered after the producer's.
 *
 * Note [DLPack lifetimes]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * An exported capsule holds a _StorageRef to the storage it shows (a copy's
 * when dl_device or copy=True asked for one), not the Tensor, whose storage
 * `.data =` may replace (Note [exports hold the storage] in storage_ref.c).
 * A consumer that takes the tensor renames the capsule "used_..." and calls
 * the deleter when done, perhaps on another thread and without the GIL; the
 * deleter takes the GIL to drop the reference.  A capsule that dies unconsumed
 * calls the deleter from its destructor.  An imported tensor's storage calls the producer's deleter
 * when our last view dies (Note [foreign memory] in interop.c).
 */
#include <string.h>

#include "args.h"
#include "dlpack.h"
#include "pdt_index_errors.h"
#include "pdt_interop.h"

static const DLDataType dl_dtypes[PDT_NUM_DTYPES] = {{kDLBool, 8, 1},    {kDLInt, 32, 1},
                                                     {kDLInt, 64, 1},    {kDLFloat, 32, 1},
                                                     {kDLFloat, 64, 1},  {kDLFloat, 16, 1},
                                                     {kDLBfloat, 16, 1}, {kDLUInt, 8, 1},
                                                     {kDLInt, 8, 1},     {kDLInt, 16, 1}};

static int dtype_from_dl(DLDataType t, const char *where)
{
    for (int i = 0; i < PDT_NUM_DTYPES; i++)
        if (t.code == dl_dtypes[i].code && t.bits == dl_dtypes[i].bits && t.lanes == 1)
            return i;
    PyErr_Format(PyExc_TypeError,
                 "%s: unsupported DLPack element type (code %u, %u bits, %u lanes); %s", where,
                 (unsigned)t.code, (unsigned)t.bits, (unsigned)t.lanes,
                 "supported: bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, "
                 "float64");
    return -1;
}

/* ---- export ---- */

/* What an exported capsule owns: a _StorageRef to the memory it shows, and
 * the shape and strides its DLTensor points to. */
typedef struct {
    union {
        DLManagedTensor legacy;
        DLManagedTensorVersioned versioned;
    } m;
    PyObject *owner;
    int64_t shape[PDT_MAX_DIMS], strides[PDT_MAX_DIMS];
} dlpack_export;

/* The deleter may run on any thread, with or without the GIL. */
static void export_free(dlpack_export *e)
{
    if (!Py_IsInitialized())
        return; /* the interpreter is gone: leak rather than touch it */
    PyGILState_STATE g = PyGILState_Ensure();
    Py_XDECREF(e->owner);
    PyMem_RawFree(e);
    PyGILState_Release(g);
}

static void export_delete_legacy(DLManagedTensor *self) { export_free(self->manager_ctx); }
static void export_delete_versioned(DLManagedTensorVersioned *self)
{
    export_free(self->manager_ctx);
}

/* Runs with the GIL when the capsule dies.  A consumer that took the tensor
 * renamed the capsule and will call the deleter itself. */
static void export_capsule_destructor(PyObject *capsule)
{
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    if (PyCapsule_IsValid(capsule, PDT_DLPACK_VERSIONED_CAPSULE)) {
        DLManagedTensorVersioned *m = PyCapsule_GetPointer(capsule, PDT_DLPACK_VERSIONED_CAPSULE);
        if (m->deleter)
            m->deleter(m);
    } else if (PyCapsule_IsValid(capsule, PDT_DLPACK_CAPSULE)) {
        DLManagedTensor *m = PyCapsule_GetPointer(capsule, PDT_DLPACK_CAPSULE);
        if (m->deleter)
            m->deleter(m);
    }
    PyErr_Restore(et, ev, tb);
}

/* A capsule showing owner's (a _StorageRef's) memory; steals the owner
 * reference. */
static PyObject *export_capsule(PyObject *owner, int versioned, uint32_t minor, int copied)
{
    const pdt_tensor *t = pdt_storage_ref_tensor(owner);
    dlpack_export *e = PyMem_RawCalloc(1, sizeof *e);
    if (!e) {
        Py_DECREF(owner);
        return PyErr_NoMemory();
    }
    e->owner = owner;
    memcpy(e->shape, t->shape, sizeof e->shape);
    memcpy(e->strides, t->strides, sizeof e->strides);
    DLTensor *dl = versioned ? &e->m.versioned.dl_tensor : &e->m.legacy.dl_tensor;
    dl->data = pdt_tensor_ptr(t);
    dl->device.device_type = t->device.kind == PDT_CUDA ? kDLCUDA : kDLCPU;
    /* the CUDA ordinal, not our logical index (Note [logical devices]) */
    dl->device.device_id = t->device.kind == PDT_CUDA
                               ? pdt_physical_index(PDT_CUDA, t->device.index)
                               : 0;
    dl->ndim = t->ndim;
    dl->dtype = dl_dtypes[t->dtype];
    dl->shape = e->shape;
    dl->strides = e->strides;
    dl->byte_offset = 0;
    if (versioned) {
        e->m.versioned.version.major = PDT_DLPACK_MAJOR;
        e->m.versioned.version.minor = minor;
        e->m.versioned.manager_ctx = e;
        e->m.versioned.deleter = export_delete_versioned;
        e->m.versioned.flags = copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0;
    } else {
        e->m.legacy.manager_ctx = e;
        e->m.legacy.deleter = export_delete_legacy;
    }
    PyObject *capsule = PyCapsule_New(&e->m,
                                      versioned ? PDT_DLPACK_VERSIONED_CAPSULE : PDT_DLPACK_CAPSULE,
                                      export_capsule_destructor);
    if (!capsule) {
        Py_DECREF(owner);
        PyMem_RawFree(e);
    }
    return capsule;
}

/* A tuple of two ints into *a, *b: 0, or -1 with no exception set. */
static int int_pair(PyObject *o, long long *a, long long *b)
{
    if (PyTuple_Check(o) && PyTuple_GET_SIZE(o) == 2) {
        *a = PyLong_AsLongLong(PyTuple_GET_ITEM(o, 0));
        *b = PyLong_AsLongLong(PyTuple_GET_ITEM(o, 1));
        if (!PyErr_Occurred())
            return 0;
    }
    PyErr_Clear();
    return -1;
}

/* (device_type, device_id) -> our device; -1 with BufferError when we have
 * no such device kind.  device_id is a CUDA ordinal: the physical GPU, which
 * is `here` (the tensor's own device) when that is on it, else the GPU's
 * first logical device (Note [logical devices] in pdt_registry.c).  (1, 0),
 * host memory, is likewise `here` for a tensor on a logical CPU device (cpu:1):
 * __dlpack_device__() names it (1, 0), so asking for (1, 0) needs no copy. */
static int device_from_dl(PyObject *pair, pdt_device here, pdt_device *out)
{
    long long type, id;
    if (int_pair(pair, &type, &id) < 0) {
        PyErr_Format(PyExc_TypeError, "dl_device must be a (device_type, device_id) tuple, got %R",
                     pair);
        return -1;
    }
    if (type == kDLCPU && id == 0) {
        out->kind = PDT_CPU;
        out->index = here.kind == PDT_CPU ? here.index : 0;
        return 0;
    }
    if (type == kDLCUDA && id >= 0 && id < PDT_MAX_DEVICES) {
        out->kind = PDT_CUDA;
        if (here.kind == PDT_CUDA && pdt_physical_index(PDT_CUDA, here.index) == (int)id)
            out->index = here.index;
        else if ((out->index = pdt_logical_index(PDT_CUDA, (int)id)) < 0)
            out->index = (int)id; /* no such GPU: the device check below says why */
        return 0;
    }
    PyErr_Format(PyExc_BufferError,
                 "cannot export to DLPack device (%lld, %lld): pydevtensor has only (1, 0), the "
                 "CPU, and (2, i), CUDA device i",
                 type, id);
    return -1;
}

/* __dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) */
PyObject *pdt_dlpack_export(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    static const char *const names[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *kw[4] = {NULL, NULL, NULL, NULL};
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    const pdt_tensor *t = pdt_tensor_of(self);
    long long major = 0, minor = 0, stream = -1;
    int copy = -1;
    pdt_device target = t->device;
    char from[32], to[32];
    if (!S || pdt_parse_keywords("__dlpack__", args + nargs, kwnames, names, kw) < 0)
        return NULL;
    if (nargs > 0) {
        PyErr_SetString(PyExc_TypeError, "__dlpack__() takes keyword arguments only");
        return NULL;
    }
    /* Note [exports of tensors that require grad] in tensor_export.c; BufferError, the
     * array API's error for a tensor that cannot be exported, as PyTorch's */
    if (pdt_refuse_grad_export(self, PyExc_BufferError,
                               "Can't export tensors that require gradient, use "
                               "tensor.detach()") < 0)
        return NULL;
    if (kw[1] && kw[1] != Py_None && int_pair(kw[1], &major, &minor) < 0) {
        PyErr_Format(PyExc_TypeError, "max_version must be a (major, minor) tuple, got %R", kw[1]);
        return NULL;
    }
    if ((kw[2] && kw[2] != Py_None && device_from_dl(kw[2], t->device, &target) < 0) ||
        (kw[3] && kw[3] != Py_None && (copy = PyObject_IsTrue(kw[3])) < 0))
        return NULL;
    if (kw[0] && kw[0] != Py_None) {
        if ((stream = PyLong_AsLongLong(kw[0])) == -1 && PyErr_Occurred())
            return NULL;
        if (stream == 0 || stream < -1) {
            PyErr_Format(PyExc_ValueError,
                         "__dlpack__: stream %lld is not valid (None or 1: the legacy default "
                         "stream, 2: the per-thread default stream, -1: no synchronization, "
                         "else a stream handle)",
                         stream);
            return NULL;
        }
    } else {
        stream = 1; /* None: the legacy default stream (Note [DLPack streams]) */
    }
    int elsewhere = !pdt_device_eq(target, t->device);
    if (elsewhere && copy == 0) {
        PyErr_Format(PyExc_BufferError,
                     "__dlpack__: the tensor is on %s, and exporting it to %s needs a copy, "
                     "which copy=False forbids",
                     pdt_device_str(t->device, from, sizeof from),
                     pdt_device_str(target, to, sizeof to));
        return NULL;
    }
    if (elsewhere && pdt_device_check(target) != PDT_OK) {
        PyErr_Format(PyExc_BufferError, "__dlpack__: cannot export to dl_device %R: %s", kw[2],
                     pdt_last_error());
        return NULL;
    }
    if (t->device.kind == PDT_CUDA) {
        /* the consumer reads with no synchronisation of ours: index errors now
         * (Note [deferred index checks] in pdt_index.h) */
        pdt_status st = pdt_index_errors_settle(t->device);
        if (st != PDT_OK)
            return pdt_raise(S, st);
    }
    PyObject *owner;
    if (elsewhere || copy == 1) {
        pdt_tensor c;
        if (pdt_copy_for(S, t, target, t->dtype, "__dlpack__()", 0, &c) < 0 ||
            !(owner = pdt_storage_ref_steal(S, &c)))
            return NULL;
    } else if (!(owner = pdt_storage_ref_new(S, t))) {
        return NULL;
    }
    if (target.kind == PDT_CUDA && stream != -1) {
        pdt_status st = pdt_stream_wait(target, (uintptr_t)stream, PDT_STREAM_EXTERNAL_WAITS);
        if (st != PDT_OK) {
            Py_DECREF(owner);
            return pdt_raise(S, st);
        }
    }
    uint32_t out_minor = major > PDT_DLPACK_MAJOR || minor > PDT_DLPACK_MINOR ? PDT_DLPACK_MINOR
                                                                              : (uint32_t)minor;
    return export_capsule(owner, major >= 1, out_minor, elsewhere || copy == 1);
}

PyObject *pdt_dlpack_device(PyObject *self, PyObject *unused)
{
    (void)unused;
    const pdt_tensor *t = pdt_tensor_of(self);
    if (t->device.kind == PDT_CUDA) /* the CUDA ordinal (Note [logical devices]) */
        return Py_BuildValue("(ii)", (int)kDLCUDA, pdt_physical_index(PDT_CUDA, t->device.index));
    return Py_BuildValue("(ii)", (int)kDLCPU, 0);
}

/* ---- import ---- */

typedef struct {
    void *managed; /* DLManagedTensor or DLManagedTensorVersioned */
    int versioned;
} dlpack_import;

static void call_deleter(const dlpack_import *imp)
{
    if (imp->versioned) {
        DLManagedTensorVersioned *m = imp->managed;
        if (m->deleter)
            m->deleter(m);
    } else {
        DLManagedTensor *m = imp->managed;
        if (m->deleter)
            m->deleter(m);
    }
}

/* Storage release for imported DLPack memory: the producer's deleter, under
 * the GIL while the interpreter lives (DLPack allows any thread).  An import that
 * fails after taking the capsule releases it with its own error pending: the
 * deleter runs with that error set aside (a deleter written in Python, as ctypes'
 * and cffi's are, would otherwise fail at once and free nothing), and an error the
 * deleter leaves is reported as unraisable, the pending one restored. */
static void release_dlpack(void *ctx)
{
    dlpack_import *imp = ctx;
    if (Py_IsInitialized()) {
        PyGILState_STATE g = PyGILState_Ensure();
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        call_deleter(imp);
        if (PyErr_Occurred())
            PyErr_WriteUnraisable(NULL);
        PyErr_Restore(type, value, tb);
        PyGILState_Release(g);
    } else {
        call_deleter(imp);
    }
    PyMem_RawFree(imp);
}

/* Note [DLPack and logical devices]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * DLPack names physical devices: cpu:1 (a logical CPU device) exports as
 * (kDLCPU, 0) and a second logical device on GPU 0 as (kDLCUDA, 0).  Read
 * back naively, such a tensor would land on cpu or cuda:0: moved to another
 * device with no copy counted and no transfer guard asked.  A capsule we
 * exported ourselves says where its memory really lives (its manager holds
 * the storage), so it comes back on that device; from_dlpack then copies
 * only when asked to (device= elsewhere, or copy=True), through the counted
 * and guarded pdt_copy_for. */
static void own_export_device(const dlpack_import *imp, pdt_device *device)
{
    const dlpack_export *e = NULL;
    if (imp->versioned) {
        const DLManagedTensorVersioned *m = imp->managed;
        if (m->deleter == export_delete_versioned)
            e = m->manager_ctx;
    } else {
        const DLManagedTensor *m = imp->managed;
        if (m->deleter == export_delete_legacy)
            e = m->manager_ctx;
    }
    if (e && e->owner)
        *device = pdt_storage_ref_tensor(e->owner)->device;
}

/* Takes the tensor out of a DLPack capsule (renaming it "used_..."): 0 with a
 * zero-copy tensor, 1 with a copy (read-only memory and copy is 1), or -1. */
static int consume_capsule(pdt_state *S, PyObject *capsule, int copy, pdt_tensor *out)
{
    static const char *const where = "from_dlpack()";
    dlpack_import imp = {NULL, PyCapsule_IsValid(capsule, PDT_DLPACK_VERSIONED_CAPSULE)};
    DLTensor *dl;
    uint64_t flags = 0;
    pdt_device device;
    if (imp.versioned) {
        DLManagedTensorVersioned *m = PyCapsule_GetPointer(capsule, PDT_DLPACK_VERSIONED_CAPSULE);
        if (m->version.major != PDT_DLPACK_MAJOR) {
            PyErr_Format(PyExc_BufferError,
                         "%s: DLPack %u.%u is not supported (pydevtensor "
                         "reads DLPack 1.x)",
                         where, m->version.major, m->version.minor);
            return -1;
        }
        imp.managed = m, dl = &m->dl_tensor, flags = m->flags;
    } else if (PyCapsule_IsValid(capsule, PDT_DLPACK_CAPSULE)) {
        DLManagedTensor *m = PyCapsule_GetPointer(capsule, PDT_DLPACK_CAPSULE);
        imp.managed = m, dl = &m->dl_tensor;
    } else {
        const char *name = PyCapsule_CheckExact(capsule) ? PyCapsule_GetName(capsule) : NULL;
        PyErr_Clear();
        PyErr_Format(name && strncmp(name, "used_", 5) == 0 ? PyExc_BufferError : PyExc_TypeError,
                     "%s: expected an unused DLPack capsule ('dltensor' or "
                     "'dltensor_versioned'), got %s%s%s",
                     where, name ? "a capsule named '" : Py_TYPE(capsule)->tp_name,
                     name ? name : "", name ? "' (a capsule can be consumed once)" : "");
        return -1;
    }
    int dtype = dtype_from_dl(dl->dtype, where);
    if (dtype < 0)
        return -1;
    if (dl->device.device_type == kDLCPU || dl->device.device_type == kDLCUDAHost) {
        device.kind = PDT_CPU, device.index = 0;
    } else if ((dl->device.device_type == kDLCUDA || dl->device.device_type == kDLCUDAManaged) &&
               dl->device.device_id >= 0) {
        /* a CUDA ordinal: the GPU's first logical device (Note [logical devices]);
         * a GPU we do not see keeps its ordinal, which the device check below
         * reports as an unknown device (DeviceError) */
        int logical = pdt_logical_index(PDT_CUDA, dl->device.device_id);
        device.kind = PDT_CUDA, device.index = logical >= 0 ? logical : (int)dl->device.device_id;
    } else if (dl->device.device_type == kDLCUDA || dl->device.device_type == kDLCUDAManaged) {
        PyErr_Format(PyExc_BufferError, "%s: DLPack device (%d, %d) has a negative device id",
                     where, (int)dl->device.device_type, (int)dl->device.device_id);
        return -1;
    } else {
        PyErr_Format(PyExc_BufferError,
                     "%s: DLPack device type %d is not supported (only the "
                     "CPU and CUDA are)",
                     where, (int)dl->device.device_type);
        return -1;
    }
    own_export_device(&imp, &device);
    int read_only = (flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    if (read_only && copy != 1) {
        PyErr_Format(PyExc_ValueError,
                     "%s: the DLPack tensor is read-only, and tensors share memory writably; "
                     "pass copy=True, or use pydevtensor.tensor(x) to copy",
                     where);
        return -1;
    }
    if (dl->ndim < 0 || dl->ndim > PDT_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "%s: %d dimensions, at most %d are supported", where,
                     (int)dl->ndim, PDT_MAX_DIMS);
        return -1;
    }
    if (dl->ndim > 0 && !dl->shape) {
        PyErr_Format(PyExc_ValueError,
                     "%s: the DLPack tensor has %d dimensions but no shape (a NULL pointer)", where,
                     (int)dl->ndim);
        return -1;
    }
    /* data + byte_offset as an integer sum: an offset that would wrap the address
     * space is refused before any pointer is formed from it */
    uintptr_t base = (uintptr_t)dl->data;
    if (dl->byte_offset > (uint64_t)PTRDIFF_MAX || base > UINTPTR_MAX - dl->byte_offset) {
        PyErr_Format(PyExc_ValueError,
                     "%s: the DLPack tensor's byte_offset %llu past its data pointer lies "
                     "outside the address space",
                     where, (unsigned long long)dl->byte_offset);
        return -1;
    }
    dlpack_import *ctx = PyMem_RawMalloc(sizeof *ctx);
    if (!ctx) {
        PyErr_NoMemory();
        return -1;
    }
    *ctx = imp;
    /* Renaming takes ownership: from here on the deleter is ours to call. */
    if (PyCapsule_SetName(capsule, imp.versioned ? PDT_DLPACK_VERSIONED_CAPSULE_USED
                                                 : PDT_DLPACK_CAPSULE_USED) < 0) {
        PyMem_RawFree(ctx);
        return -1;
    }
    pdt_tensor view;
    if (pdt_wrap_foreign(S, device, (pdt_dtype)dtype, dl->ndim, dl->shape, dl->strides,
                         (void *)(base + (uintptr_t)dl->byte_offset), release_dlpack, ctx, where,
                         &view) < 0) {
        release_dlpack(ctx);
        return -1;
    }
    if (!read_only) {
        *out = view;
        return 0;
    }
    int r = pdt_copy_for(S, &view, device, view.dtype, where, 0, out);
    pdt_tensor_release(&view);
    return r < 0 ? -1 : 1;
}

/* A capsule from obj.__dlpack__(): with our stream for a CUDA producer, and
 * max_version, retried without it for producers older than DLPack 1.0. */
static PyObject *request_capsule(pdt_state *S, PyObject *obj)
{
    PyObject *dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL), *kwargs = NULL;
    PyObject *method = NULL, *empty = NULL, *capsule = NULL;
    long long type = 0, id = 0;
    if (!dev)
        return NULL;
    if (int_pair(dev, &type, &id) < 0) {
        PyErr_Format(PyExc_TypeError,
                     "from_dlpack(): __dlpack_device__() returned %R, expected "
                     "(device_type, device_id)",
                     dev);
        goto fail;
    }
    if (!(kwargs = PyDict_New()) || !(method = PyObject_GetAttrString(obj, "__dlpack__")) ||
        !(empty = PyTuple_New(0)))
        goto fail;
    if (type == kDLCUDA || type == kDLCUDAManaged) {
        /* id is a CUDA ordinal; our stream for that GPU is that of its first
         * logical device (one stream per physical GPU) */
        int logical = id >= 0 && id < PDT_MAX_DEVICES ? pdt_logical_index(PDT_CUDA, (int)id) : -1;
        pdt_device d = {PDT_CUDA, logical >= 0 ? logical : (int)id};
        uintptr_t handle;
        pdt_status st = pdt_stream_handle(d, &handle);
        PyObject *h = st == PDT_OK ? PyLong_FromVoidPtr((void *)handle) : NULL;
        if (st != PDT_OK)
            pdt_raise(S, st);
        if (!h || PyDict_SetItemString(kwargs, "stream", h) < 0) {
            Py_XDECREF(h);
            goto fail;
        }
        Py_DECREF(h);
    }
    PyObject *version = Py_BuildValue("(ii)", PDT_DLPACK_MAJOR, PDT_DLPACK_MINOR);
    if (!version || PyDict_SetItemString(kwargs, "max_version", version) < 0) {
        Py_XDECREF(version);
        goto fail;
    }
    Py_DECREF(version);
    capsule = PyObject_Call(method, empty, kwargs);
    if (!capsule && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear(); /* a producer from before DLPack 1.0: no max_version */
        if (PyDict_DelItemString(kwargs, "max_version") == 0)
            capsule = PyObject_Call(method, empty, kwargs);
    }
fail:
    Py_XDECREF(dev), Py_XDECREF(kwargs), Py_XDECREF(method), Py_XDECREF(empty);
    return capsule;
}

int pdt_import_dlpack(pdt_state *S, PyObject *obj, int copy, pdt_tensor *out)
{
    PyObject *capsule = PyCapsule_CheckExact(obj) ? Py_NewRef(obj) : request_capsule(S, obj);
    if (!capsule)
        return -1;
    int r = consume_capsule(S, capsule, copy, out);
    Py_DECREF(capsule);
    return r;
}
