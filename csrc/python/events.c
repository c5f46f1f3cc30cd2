/* events.c - pydevtensor.cuda.Event (the module attribute _C._Event) and the
 * TF32 switch (_C._set_allow_tf32 / _C._get_allow_tf32, behind
 * pydevtensor.backends.cuda.matmul.allow_tf32).
 *
 * The Event type is a heap type made in pdt_events_init and kept only as the
 * module's _Event attribute: its methods find the module state through their
 * own type, and nothing else needs the type pointer. */
#include "args.h"
#include "docstrings_events.h"
#include "pdt_events.h"
#include "pdt_matmul.h"

typedef struct {
    PyObject_HEAD
    pdt_event ev;
    int own_device; /* made with device=: records on that device's stream */
} PdtEventObject;

/* Event(enable_timing=False, blocking=False, interprocess=False, *, device=None):
 * without device=, the event takes its device when first recorded (Note [events
 * take their device when first recorded] in pdt_events.h), so making one needs no GPU;
 * with device=, that device is checked now (DeviceError when it cannot be used). */
static PyObject *event_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"enable_timing", "blocking", "interprocess", "device", NULL};
    int enable_timing = 0, blocking = 0, interprocess = 0;
    PyObject *timing_obj = NULL, *blocking_obj = NULL, *ipc_obj = NULL, *dev_obj = NULL;
    pdt_state *S = pdt_state_of_type(type);
    /* flags are bools, as PyTorch's (enable_timing='yes' was read by its truth) */
    if (!S ||
        !PyArg_ParseTupleAndKeywords(args, kwds, "|OOO$O:Event", kwlist, &timing_obj, &blocking_obj,
                                     &ipc_obj, &dev_obj) ||
        pdt_parse_bool(timing_obj, 0, "Event", "enable_timing", &enable_timing) < 0 ||
        pdt_parse_bool(blocking_obj, 0, "Event", "blocking", &blocking) < 0 ||
        pdt_parse_bool(ipc_obj, 0, "Event", "interprocess", &interprocess) < 0)
        return NULL;
    if (interprocess) {
        PyErr_SetString(PyExc_NotImplementedError,
                        "Event(interprocess=True): pydevtensor does not share events between "
                        "processes (no CUDA IPC); make the event in the process that waits on it");
        return NULL;
    }
    const unsigned flags = (enable_timing ? PDT_EVENT_TIMING : 0u) |
                           (blocking ? PDT_EVENT_BLOCKING : 0u);
    pdt_device current = {PDT_CUDA, pdt_current_cuda()}, device = current;
    if (dev_obj && dev_obj != Py_None) {
        if (pdt_device_from_object(S, dev_obj, current, &device) < 0)
            return NULL;
        if (device.kind != PDT_CUDA) {
            char name[32];
            PyErr_Format(PyExc_ValueError,
                         "Event: expected a CUDA device, got %s (CPU work is synchronous: time "
                         "it with time.perf_counter())",
                         pdt_device_str(device, name, sizeof name));
            return NULL;
        }
    }
    /* without device= the event takes its device when first recorded (record() checks
     * it), so that making one needs no GPU, as PyTorch's: D2L's timing code makes its
     * events before asking whether a GPU exists */
    pdt_status st = dev_obj && dev_obj != Py_None ? pdt_device_check(device) : PDT_OK;
    if (st != PDT_OK)
        return pdt_raise(S, st);
    PdtEventObject *self = (PdtEventObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    self->own_device = dev_obj && dev_obj != Py_None;
    if (!self->own_device) {
        pdt_event_init(flags, &self->ev);
    } else if ((st = pdt_event_create(device, flags, &self->ev)) != PDT_OK) {
        Py_DECREF(self);
        return pdt_raise(S, st);
    }
    return (PyObject *)self;
}

static void event_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    pdt_event_destroy(&((PdtEventObject *)self)->ev);
    tp->tp_free(self);
    Py_DECREF(tp);
}

/* The stream argument of record/wait (`what`): (stream=None), positional or by
 * keyword, as the device of that stream: the current device's for None (*given
 * = 0), else a pydevtensor.cuda.Stream's (its _pdt_stream_device, a device
 * object).  pydevtensor has one stream per device. */
static int stream_argument(pdt_state *S, const char *what, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames, pdt_device *out, int *given)
{
    static const char *const names[] = {"stream", NULL};
    PyObject *kw[1] = {NULL};
    out->kind = PDT_CUDA;
    out->index = pdt_current_cuda();
    *given = 0;
    if (pdt_parse_keywords(what, args + nargs, kwnames, names, kw) < 0)
        return -1;
    if (nargs > 1) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most one argument (stream)", what);
        return -1;
    }
    PyObject *stream = nargs == 1 ? args[0] : kw[0];
    if (!stream || stream == Py_None)
        return 0;
    PyObject *dev = PyObject_GetAttrString(stream, "_pdt_stream_device");
    if (!dev) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "%s(): stream must be None or a pydevtensor.cuda.Stream (pydevtensor has "
                     "one stream per device: cuda.current_stream(device)), got %.100s",
                     what, Py_TYPE(stream)->tp_name);
        return -1;
    }
    int rc = pdt_device_from_object(S, dev, *out, out);
    Py_DECREF(dev);
    *given = rc == 0;
    return rc;
}

/* record(stream=None): marks the point after every op queued on the stream so
 * far: the current device's, or the event's own with device=. */
static PyObject *event_record(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    PdtEventObject *e = (PdtEventObject *)self;
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    pdt_device dev;
    int given;
    if (!S || stream_argument(S, "record", args, nargs, kwnames, &dev, &given) < 0)
        return NULL;
    if (e->own_device && !given)
        dev = e->ev.device;
    pdt_status st = pdt_event_record(&e->ev, dev);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    Py_RETURN_NONE;
}

/* query(): True when the recorded work has completed (or none was recorded). */
static PyObject *event_query(PyObject *self, PyObject *unused)
{
    (void)unused;
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    pdt_event ev = ((PdtEventObject *)self)->ev; /* a copy: record() may change it */
    pdt_status st;
    int done = 1;
    if (!S)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_event_query(&ev, &done);
    Py_END_ALLOW_THREADS
    if (st != PDT_OK)
        return pdt_raise(S, st);
    return PyBool_FromLong(done);
}

/* wait(stream=None): the current device's stream waits for the event. */
static PyObject *event_wait(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    pdt_device dev;
    int given;
    if (!S || stream_argument(S, "wait", args, nargs, kwnames, &dev, &given) < 0)
        return NULL;
    pdt_event ev = ((PdtEventObject *)self)->ev;
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_event_wait(&ev, dev);
    Py_END_ALLOW_THREADS
    if (st != PDT_OK)
        return pdt_raise(S, st);
    Py_RETURN_NONE;
}

/* synchronize(): waits until the work before the record() has run. */
static PyObject *event_synchronize(PyObject *self, PyObject *unused)
{
    (void)unused;
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    pdt_event ev = ((PdtEventObject *)self)->ev;
    pdt_status st;
    if (!S)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_event_synchronize(&ev);
    Py_END_ALLOW_THREADS
    if (st != PDT_OK)
        return pdt_raise(S, st);
    Py_RETURN_NONE;
}

/* elapsed_time(end_event): GPU milliseconds from this event to end_event. */
static PyObject *event_elapsed_time(PyObject *self, PyObject *end)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    if (!S)
        return NULL;
    if (!PyObject_TypeCheck(end, Py_TYPE(self))) {
        PyErr_Format(PyExc_TypeError, "elapsed_time(): end_event must be an Event, got %.100s",
                     Py_TYPE(end)->tp_name);
        return NULL;
    }
    pdt_event a = ((PdtEventObject *)self)->ev, b = ((PdtEventObject *)end)->ev;
    float ms = 0.0f;
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_event_elapsed_ms(&a, &b, &ms);
    Py_END_ALLOW_THREADS
    if (st != PDT_OK)
        return pdt_raise(S, st);
    return PyFloat_FromDouble((double)ms);
}

/* The event's device; None before an event made without device= is recorded. */
static PyObject *event_device(PyObject *self, void *closure)
{
    (void)closure;
    const pdt_event *ev = &((PdtEventObject *)self)->ev;
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    if (!S)
        return NULL;
    if (!ev->handle)
        Py_RETURN_NONE;
    return pdt_device_object(S, ev->device);
}

/* The cudaEvent_t as an integer, as torch.cuda.Event.cuda_event (for ctypes);
 * 0 before the event is created. */
static PyObject *event_handle(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(((PdtEventObject *)self)->ev.handle);
}

static PyObject *event_repr(PyObject *self)
{
    const PdtEventObject *e = (const PdtEventObject *)self;
    const char *timing = e->ev.flags & PDT_EVENT_TIMING ? ", timing enabled" : "";
    char name[32];
    if (!e->ev.handle)
        return PyUnicode_FromFormat("<pydevtensor.cuda.Event, not recorded yet (takes the "
                                    "device of its first record)%s>",
                                    timing);
    return PyUnicode_FromFormat("<pydevtensor.cuda.Event on %s, %s%s>",
                                pdt_device_str(e->ev.device, name, sizeof name),
                                e->ev.recorded ? "recorded" : "not recorded", timing);
}

static PyMethodDef event_methods[] = {
    {"record", (PyCFunction)(void (*)(void))event_record, METH_FASTCALL | METH_KEYWORDS,
     doc_event_record},
    {"query", event_query, METH_NOARGS, doc_event_query},
    {"wait", (PyCFunction)(void (*)(void))event_wait, METH_FASTCALL | METH_KEYWORDS,
     doc_event_wait},
    {"synchronize", event_synchronize, METH_NOARGS, doc_event_synchronize},
    {"elapsed_time", event_elapsed_time, METH_O, doc_event_elapsed_time},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef event_getset[] = {
    {"device", event_device, NULL, doc_event_device, NULL},
    {"cuda_event", event_handle, NULL, doc_event_handle, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot event_slots[] = {
    {Py_tp_new, event_new},
    {Py_tp_dealloc, event_dealloc},
    {Py_tp_repr, event_repr},
    {Py_tp_methods, event_methods},
    {Py_tp_getset, event_getset},
    {Py_tp_doc, (void *)doc_event_type},
    {0, NULL},
};

static PyType_Spec event_spec = {
    .name = "pydevtensor.cuda.Event",
    .basicsize = sizeof(PdtEventObject),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = event_slots,
};

/* ---- the TF32 switch ---- */

static PyObject *f_set_allow_tf32(PyObject *module, PyObject *flag)
{
    (void)module;
    int allow = PyObject_IsTrue(flag);
    if (allow < 0)
        return NULL;
    pdt_set_allow_tf32(allow);
    Py_RETURN_NONE;
}

static PyObject *f_get_allow_tf32(PyObject *module, PyObject *unused)
{
    (void)module, (void)unused;
    return PyBool_FromLong(pdt_get_allow_tf32());
}

/* ---- the half-precision reduction switches ---- */

/* _set_allow_reduced_reduction(dtype_name, flag) */
static PyObject *f_set_allow_reduced(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = pdt_state_of_module(module);
    int dt, allow;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_set_allow_reduced_reduction(dtype, flag)");
        return NULL;
    }
    if (pdt_dtype_from_object(S, args[0], -1, &dt) < 0 || (allow = PyObject_IsTrue(args[1])) < 0)
        return NULL;
    if (!pdt_dtype_is_half((pdt_dtype)dt)) {
        PyErr_Format(PyExc_TypeError, "reduced-precision reductions: float16 or bfloat16, not %s",
                     pdt_dtype_name((pdt_dtype)dt));
        return NULL;
    }
    pdt_set_allow_reduced_precision_reduction((pdt_dtype)dt, allow);
    Py_RETURN_NONE;
}

static PyObject *f_get_allow_reduced(PyObject *module, PyObject *dtype)
{
    pdt_state *S = pdt_state_of_module(module);
    int dt;
    if (pdt_dtype_from_object(S, dtype, -1, &dt) < 0)
        return NULL;
    return PyBool_FromLong(pdt_get_allow_reduced_precision_reduction((pdt_dtype)dt));
}

PyMethodDef pdt_event_functions[] = {
    {"_set_allow_reduced_reduction", (PyCFunction)(void (*)(void))f_set_allow_reduced,
     METH_FASTCALL,
     "_set_allow_reduced_reduction(dtype, flag)\n--\n\n"
     "Reduced-precision reductions in float16 or bfloat16 GEMMs on CUDA "
     "(backends.cuda.matmul.allow_fp16/bf16_reduced_precision_reduction)."},
    {"_get_allow_reduced_reduction", f_get_allow_reduced, METH_O,
     "_get_allow_reduced_reduction(dtype)\n--\n\n"
     "Whether float16 or bfloat16 GEMMs on CUDA may reduce in reduced precision."},
    {"_set_allow_tf32", f_set_allow_tf32, METH_O,
     "_set_allow_tf32(flag)\n--\n\n"
     "TF32 tensor-core math for float32 GEMMs on CUDA (backends.cuda.matmul.allow_tf32)."},
    {"_get_allow_tf32", f_get_allow_tf32, METH_NOARGS,
     "_get_allow_tf32()\n--\n\nWhether float32 GEMMs on CUDA may use TF32."},
    {NULL, NULL, 0, NULL},
};

int pdt_events_init(PyObject *module, pdt_state *S)
{
    (void)S;
    PyObject *type = PyType_FromModuleAndSpec(module, &event_spec, NULL);
    if (!type)
        return -1;
    int rc = PyModule_AddObjectRef(module, "_Event", type);
    Py_DECREF(type);
    return rc;
}
