/* collective.c - _C._allreduce_sum, _C._nccl_available and _C._nccl_version, behind
 * pydevtensor.distribute.MirroredStrategy's NCCL path (Note [mirrored training]),
 * and the rank communicators of pydevtensor.distributed's 'nccl' backend
 * (_comm_unique_id, _comm_init, _comm_run, _comm_exchange; pdt_collective.h).  All private:
 * the Python layers check the arguments and name the rank in their messages. */
#include <limits.h>
#include <string.h>

#include "args.h"
#include "pdt_collective.h"

/* _allreduce_sum(tensors): sums the tensors (a list or tuple, one per device) in
 * place; every one ends up holding the sum.  See pdt_collective.h. */
static PyObject *c_allreduce_sum(PyObject *m, PyObject *seq)
{
    pdt_state *S = pdt_state_of_module(m);
    const pdt_tensor *ts[PDT_MAX_DEVICES];
    /* A tuple of our own: the caller's list could change while the GIL is released. */
    PyObject *items = PySequence_Tuple(seq);
    if (!items)
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    if (n < 1 || n > PDT_MAX_DEVICES) {
        PyErr_Format(PyExc_ValueError, "_allreduce_sum: expected 1 to %d tensors, got %zd",
                     PDT_MAX_DEVICES, n);
        Py_DECREF(items);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyTuple_GET_ITEM(items, i);
        if (!pdt_is_tensor(S, o)) {
            PyErr_Format(PyExc_TypeError, "_allreduce_sum: item %zd is a %s, not a Tensor", i,
                         Py_TYPE(o)->tp_name);
            Py_DECREF(items);
            return NULL;
        }
    }
    /* Views of our own, not the objects' (Note [the GIL and storages]). */
    pdt_tensor held[PDT_MAX_DEVICES];
    for (Py_ssize_t i = 0; i < n; i++) {
        pdt_tensor_share(&held[i], pdt_tensor_of(PyTuple_GET_ITEM(items, i)));
        ts[i] = &held[i];
    }
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_allreduce_sum((int)n, ts);
    Py_END_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++)
        pdt_tensor_release(&held[i]);
    Py_DECREF(items);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    Py_RETURN_NONE;
}

static PyObject *c_nccl_available(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    int ok;
    Py_BEGIN_ALLOW_THREADS /* the first call dlopen()s NCCL */
    ok = pdt_allreduce_available(PDT_CUDA);
    Py_END_ALLOW_THREADS
    return PyBool_FromLong(ok);
}

/* _nccl_version(): NCCL_VERSION_CODE of the libnccl.so.2 this build loads (ncclGetVersion),
 * 0 without CUDA or when it does not load (pydevtensor.cuda.nccl.version). */
static PyObject *c_nccl_version(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    int version;
    Py_BEGIN_ALLOW_THREADS /* the first call dlopen()s NCCL */
    version = pdt_collective_version(PDT_CUDA);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(version);
}

/* _count_collective(nbytes): counts one collective that sent nbytes from this process
 * (pydevtensor.distributed; Note [collectives are counted] in pdt_collective.h). */
static PyObject *c_count_collective(PyObject *m, PyObject *arg)
{
    (void)m;
    unsigned long long n = PyLong_AsUnsignedLongLong(arg);
    if (n == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    pdt_collective_count((uint64_t)n);
    Py_RETURN_NONE;
}

/* ---- rank communicators ---- */

#define COMM_CAPSULE "pydevtensor._comm"

typedef struct {
    void *comm;
    pdt_device device;
    int nranks, rank;
} comm_box;

static void comm_capsule_free(PyObject *capsule)
{
    comm_box *box = PyCapsule_GetPointer(capsule, COMM_CAPSULE);
    if (!box)
        return;
    Py_BEGIN_ALLOW_THREADS
    pdt_comm_destroy(box->device, box->comm);
    Py_END_ALLOW_THREADS
    PyMem_Free(box);
}

/* _comm_unique_id() -> bytes: a new id for CUDA rank communicators (NCCL's). */
static PyObject *c_comm_unique_id(PyObject *m, PyObject *unused)
{
    (void)unused;
    pdt_state *S = pdt_state_of_module(m);
    unsigned char id[PDT_COMM_ID_BYTES];
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_comm_unique_id(PDT_CUDA, id);
    Py_END_ALLOW_THREADS
    if (st != PDT_OK)
        return pdt_raise(S, st);
    return PyBytes_FromStringAndSize((const char *)id, PDT_COMM_ID_BYTES);
}

/* _comm_init(device, id, nranks, rank) -> communicator (a capsule that
 * destroys it when collected). */
static PyObject *c_comm_init(PyObject *m, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(m);
    PyObject *dev_obj;
    const char *id;
    Py_ssize_t id_len;
    int nranks, rank;
    pdt_device dev;
    if (!PyArg_ParseTuple(args, "Oy#ii:_comm_init", &dev_obj, &id, &id_len, &nranks, &rank))
        return NULL;
    if (id_len != PDT_COMM_ID_BYTES)
        return PyErr_Format(PyExc_ValueError, "_comm_init: an id has %d bytes, got %zd",
                            PDT_COMM_ID_BYTES, id_len);
    if (pdt_device_from_object_exact(S, dev_obj, pdt_default_device(), &dev) < 0)
        return NULL;
    unsigned char copy[PDT_COMM_ID_BYTES];
    memcpy(copy, id, PDT_COMM_ID_BYTES);
    void *comm = NULL;
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_comm_init(dev, copy, nranks, rank, &comm);
    Py_END_ALLOW_THREADS
    if (st != PDT_OK)
        return pdt_raise(S, st);
    comm_box *box = PyMem_Malloc(sizeof *box);
    if (!box) {
        pdt_comm_destroy(dev, comm);
        return PyErr_NoMemory();
    }
    box->comm = comm, box->device = dev, box->nranks = nranks, box->rank = rank;
    PyObject *cap = PyCapsule_New(box, COMM_CAPSULE, comm_capsule_free);
    if (!cap) {
        pdt_comm_destroy(dev, comm);
        PyMem_Free(box);
    }
    return cap;
}

/* _comm_run(comm, what, send, recv, op, root): one collective (pdt_comm_kind
 * what, pdt_comm_op op) on comm's device stream; the storages are held while
 * the GIL is released (Note [the GIL and storages]). */
static PyObject *c_comm_run(PyObject *m, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(m);
    PyObject *cap, *send_obj, *recv_obj;
    int what, op, root;
    if (!PyArg_ParseTuple(args, "OiO!O!ii:_comm_run", &cap, &what, S->tensor_type, &send_obj,
                          S->tensor_type, &recv_obj, &op, &root))
        return NULL;
    comm_box *box = PyCapsule_GetPointer(cap, COMM_CAPSULE);
    if (!box)
        return NULL;
    pdt_hold h;
    h.n = 0;
    const pdt_tensor *send = pdt_hold_view(&h, pdt_tensor_of(send_obj));
    const pdt_tensor *recv = pdt_hold_view(&h, pdt_tensor_of(recv_obj));
    pdt_status st;
    /* the capsule (an argument) stays alive for the call */
    Py_BEGIN_ALLOW_THREADS
    st = pdt_comm_run(box->comm, box->device, box->nranks, box->rank, (pdt_comm_kind)what, send,
                      recv, (pdt_comm_op)op, root);
    Py_END_ALLOW_THREADS
    pdt_hold_release(&h);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    pdt_bump_version(recv_obj); /* Note [version counter] */
    Py_RETURN_NONE;
}

/* _comm_exchange(comm, messages): messages a list of (is_send, tensor, peer),
 * sent and received as one group (pdt_comm_exchange); the storages are held
 * while the GIL is released, and the received tensors' versions bumped. */
static PyObject *c_comm_exchange(PyObject *m, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(m);
    PyObject *cap, *list;
    if (!PyArg_ParseTuple(args, "OO:_comm_exchange", &cap, &list))
        return NULL;
    comm_box *box = PyCapsule_GetPointer(cap, COMM_CAPSULE);
    if (!box)
        return NULL;
    PyObject *items = PySequence_Tuple(list); /* ours: the list could change unlocked */
    if (!items)
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    if (n > INT_MAX) {
        Py_DECREF(items);
        return PyErr_Format(PyExc_ValueError, "_comm_exchange: %zd messages", n);
    }
    pdt_comm_message *msgs = PyMem_Calloc(n ? (size_t)n : 1, sizeof *msgs);
    pdt_tensor *held = PyMem_Calloc(n ? (size_t)n : 1, sizeof *held);
    PyObject **objs = PyMem_Calloc(n ? (size_t)n : 1, sizeof *objs);
    Py_ssize_t shared = 0;
    PyObject *result = NULL;
    if (!msgs || !held || !objs) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int is_send, peer;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(items, i), "pO!i:_comm_exchange message", &is_send,
                              S->tensor_type, &objs[i], &peer))
            goto done;
        msgs[i].is_send = is_send, msgs[i].peer = peer;
    }
    /* Views of our own, not the objects' (Note [the GIL and storages]). */
    for (; shared < n; shared++) {
        pdt_tensor_share(&held[shared], pdt_tensor_of(objs[shared]));
        msgs[shared].tensor = &held[shared];
    }
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_comm_exchange(box->comm, box->device, box->nranks, box->rank, (int)n, msgs);
    Py_END_ALLOW_THREADS
    if (st != PDT_OK) {
        pdt_raise(S, st);
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (!msgs[i].is_send)
            pdt_bump_version(objs[i]); /* Note [version counter] */
    result = Py_NewRef(Py_None);
done:
    for (Py_ssize_t i = 0; i < shared; i++)
        pdt_tensor_release(&held[i]);
    PyMem_Free(msgs);
    PyMem_Free(held);
    PyMem_Free(objs);
    Py_DECREF(items);
    return result;
}

PyMethodDef pdt_collective_functions[] = {
    {"_comm_unique_id", c_comm_unique_id, METH_NOARGS,
     "_comm_unique_id(): a new id for CUDA rank communicators (NCCL's ncclGetUniqueId)"},
    {"_comm_init", c_comm_init, METH_VARARGS,
     "_comm_init(device, id, nranks, rank): this rank's communicator (ncclCommInitRank)"},
    {"_comm_run", c_comm_run, METH_VARARGS,
     "_comm_run(comm, what, send, recv, op, root): one collective on comm's device"},
    {"_comm_exchange", c_comm_exchange, METH_VARARGS,
     "_comm_exchange(comm, messages): (is_send, tensor, peer) messages as one group"},
    {"_count_collective", c_count_collective, METH_O,
     "_count_collective(nbytes): counts one collective that sent nbytes from this process"},
    {"_allreduce_sum", c_allreduce_sum, METH_O,
     "_allreduce_sum(tensors): in-place sum over tensors on distinct GPUs (NCCL)"},
    {"_nccl_available", c_nccl_available, METH_NOARGS,
     "_nccl_available(): whether this build has CUDA and libnccl.so.2 loads"},
    {"_nccl_version", c_nccl_version, METH_NOARGS,
     "_nccl_version(): NCCL_VERSION_CODE of libnccl.so.2, 0 when it does not load"},
    {NULL, NULL, 0, NULL},
};
