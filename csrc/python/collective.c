/* collective.c - _C._allreduce_sum and _C._nccl_available, behind
 * pydevtensor.distribute.MirroredStrategy's NCCL path (Note [mirrored training]).
 * Both are private: the strategy picks the method (distribute.py). */
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

PyMethodDef pdt_collective_functions[] = {
    {"_count_collective", c_count_collective, METH_O,
     "_count_collective(nbytes): counts one collective that sent nbytes from this process"},
    {"_allreduce_sum", c_allreduce_sum, METH_O,
     "_allreduce_sum(tensors): in-place sum over tensors on distinct GPUs (NCCL)"},
    {"_nccl_available", c_nccl_available, METH_NOARGS,
     "_nccl_available(): whether this build has CUDA and libnccl.so.2 loads"},
    {NULL, NULL, 0, NULL},
};
