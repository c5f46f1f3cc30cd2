/* op_wrappers.c - ops with their common case in C in front of a Python wrapper:
 * pydevtensor._C._AutocastOp, the object autocast puts in place of each op it casts
 * (pydevtensor/amp/_policy.py installs them; _state.py builds them), and _RecordedOp, the
 * ops written in Python that autograd records (pydevtensor/autograd/dispatch.py:
 * recorded).  One object, two checks.
 *
 * Note [autocast's check in C]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Autocast wraps its ops (pydevtensor.matmul, exp, sum, nn.functional.linear, ...) at
 * import, so every call passes through the wrapper whether autocast is on or not.  A
 * Python wrapper costs a frame and the packing of *args and **kwargs: about 230 ns a
 * call here, as much as pydevtensor.exp of one element itself.  This object is that
 * wrapper's fast path in C: it holds the op and the Python wrapper (which does the
 * casting), and a pointer to the module state's count of threads with autocast on
 * (pdt_state.autocast_threads, set by _C._autocast_set_threads under _state.py's
 * lock).  While the count is 0 a call goes straight to the op with the same vector
 * of arguments (PEP 590), so the op sees exactly what the caller passed; otherwise it
 * goes to the Python wrapper, which checks this thread's flag and casts.  The count
 * is read with the GIL held, as it is written.
 *
 * It behaves as the function it wraps where users can see it: functools.wraps
 * fills its __dict__ (__name__, __qualname__, __module__, __doc__, __wrapped__, so
 * inspect.signature and help() find the op's); it binds to an instance as a function
 * does (Tensor's methods are wrapped too while autocast is on), which also makes
 * inspect.isroutine true (a method descriptor), so doctest and Sphinx treat it as a
 * function; it pickles and copies by its qualified name, as functions do.
 *
 * Note [recorded ops in C]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * The same for autograd's wrapper of the ops written in Python (`recorded`: index_select,
 * gather, cumsum, repeat, diagonal, tril, sort, the linear algebra, ... 49 of them): its
 * Python check, whether grad mode is on and an argument (or a tensor in a list or tuple
 * argument) requires grad, cost 0.25 to 0.45 us a call, index_select of two rows 0.67 us
 * where the op itself took 0.23.  Here that check is made in C on the vector of arguments
 * (pdt_arg_requires_grad, the Python check's rule: subclasses of list and tuple are looked
 * into too; a view whose base requires grad counts, the slow path asking again); nothing
 * requiring grad calls the op directly, anything else the Python wrapper, which records.
 */
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "pdt_module.h"

#include <structmember.h> /* PyMemberDef, T_PYSSIZET (Python < 3.12) */

typedef struct {
    PyObject_HEAD
    PyObject *op;       /* the op, called directly in the common case */
    PyObject *slow;     /* the Python wrapper (amp/_state.py: _wrap; dispatch.py: recorded) */
    PyObject *dict;     /* __dict__ */
    const int *threads; /* _AutocastOp: &pdt_state.autocast_threads */
    vectorcallfunc vectorcall;
    PyObject *weaklist; /* weak references, as a function takes them */
} AutocastOp;

/* f called with the vector of arguments as given (PEP 590) */
static PyObject *op_call(PyObject *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (!f) { /* called after tp_clear, by a finaliser of a cycle being collected */
        PyErr_SetString(PyExc_RuntimeError, "this op was cleared by the garbage collector");
        return NULL;
    }
    return PyObject_Vectorcall(f, args, nargsf, kwnames);
}

static PyObject *op_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                               PyObject *kwnames)
{
    AutocastOp *o = (AutocastOp *)self;
    return op_call(*o->threads ? o->slow : o->op, args, nargsf, kwnames);
}

/* Note [recorded ops in C]: the op itself unless grad mode is on and an argument (the
 * positional ones and the keywords' values) requires grad */
static PyObject *recorded_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                     PyObject *kwnames)
{
    AutocastOp *o = (AutocastOp *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf) + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    int want = 0; /* pdt_arg_requires_grad: a view whose base requires grad counts too */
    for (Py_ssize_t i = 0; !want && i < n; i++)
        want = pdt_arg_requires_grad(args[i]);
    return op_call(want && pdt_grad_enabled() ? o->slow : o->op, args, nargsf, kwnames);
}

/* _AutocastOp(op, slow), _RecordedOp(op, slow) */
static PyObject *op_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *op, *slow;
    pdt_state *S = pdt_state_of_type(type);
    if (!S)
        return NULL;
    const int recorded = type == S->recorded_op_type;
    const char *what = recorded ? "_RecordedOp" : "_AutocastOp";
    if ((kwds && PyDict_GET_SIZE(kwds)) || !PyArg_UnpackTuple(args, what, 2, 2, &op, &slow)) {
        PyErr_Format(PyExc_TypeError, "%s(op, slow) takes two positional arguments", what);
        return NULL;
    }
    if (!PyCallable_Check(op) || !PyCallable_Check(slow)) {
        PyErr_Format(PyExc_TypeError, "%s(op, slow): both must be callable", what);
        return NULL;
    }
    AutocastOp *o = (AutocastOp *)type->tp_alloc(type, 0);
    if (!o)
        return NULL;
    o->op = Py_NewRef(op);
    o->slow = Py_NewRef(slow);
    o->threads = &S->autocast_threads;
    o->vectorcall = recorded ? recorded_vectorcall : op_vectorcall;
    return (PyObject *)o;
}

static int op_traverse(PyObject *self, visitproc visit, void *arg)
{
    AutocastOp *o = (AutocastOp *)self;
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(o->op);
    Py_VISIT(o->slow);
    Py_VISIT(o->dict);
    return 0;
}

static int op_clear(PyObject *self)
{
    AutocastOp *o = (AutocastOp *)self;
    Py_CLEAR(o->op);
    Py_CLEAR(o->slow);
    Py_CLEAR(o->dict);
    return 0;
}

static void op_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (((AutocastOp *)self)->weaklist)
        PyObject_ClearWeakRefs(self);
    op_clear(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

/* Binds to an instance as a function does: x.mm(w) while Tensor.mm is wrapped. */
static PyObject *op_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
    (void)type;
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

static PyObject *op_repr(PyObject *self)
{
    PyObject *name = PyObject_GetAttrString(self, "__qualname__");
    if (!name) {
        PyErr_Clear();
        return PyUnicode_FromFormat("<%s of %R>", Py_TYPE(self)->tp_name, ((AutocastOp *)self)->op);
    }
    PyObject *r = PyUnicode_FromFormat("<function %S at %p>", name, self);
    Py_DECREF(name);
    return r;
}

/* Pickled and copied by name, as a function is (pickle looks __qualname__ up in
 * __module__ and checks it finds this object). */
static PyObject *op_reduce(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyObject_GetAttrString(self, "__qualname__");
}

static PyMethodDef op_methods[] = {
    {"__reduce__", op_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef op_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(AutocastOp, dict), READONLY, NULL},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(AutocastOp, vectorcall), READONLY, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(AutocastOp, weaklist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef op_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot op_slots[] = {
    {Py_tp_doc, "An op wrapped by autocast (Note [autocast's check in C], op_wrappers.c)."},
    {Py_tp_new, op_new},
    {Py_tp_dealloc, op_dealloc},
    {Py_tp_traverse, op_traverse},
    {Py_tp_clear, op_clear},
    {Py_tp_call, PyVectorcall_Call}, /* through op_vectorcall */
    {Py_tp_descr_get, op_descr_get},
    {Py_tp_repr, op_repr},
    {Py_tp_methods, op_methods},
    {Py_tp_members, op_members},
    {Py_tp_getset, op_getset},
    {0, NULL},
};

/* _autocast_set_threads(n): the number of threads with autocast on (amp/_state.py) */
static PyObject *f_autocast_set_threads(PyObject *module, PyObject *arg)
{
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 0 || n > INT_MAX) {
        PyErr_Format(PyExc_ValueError, "_autocast_set_threads: expected a count >= 0, got %ld", n);
        return NULL;
    }
    pdt_state_of_module(module)->autocast_threads = (int)n;
    Py_RETURN_NONE;
}

PyMethodDef pdt_autocast_functions[] = {
    {"_autocast_set_threads", f_autocast_set_threads, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

/* _AutocastOp and _RecordedOp: the same object, the slots above (the first's doc changed
 * for the second) */
int pdt_op_wrapper_types_init(PyObject *module, pdt_state *S)
{
    PyType_Spec spec = {
        .name = "pydevtensor._C._AutocastOp",
        .basicsize = sizeof(AutocastOp),
        .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                 Py_TPFLAGS_METHOD_DESCRIPTOR,
        .slots = op_slots,
    };
    S->autocast_threads = 0;
    PyObject *type = PyType_FromModuleAndSpec(module, &spec, NULL);
    if (!type)
        return -1;
    S->autocast_op_type = (PyTypeObject *)type;
    if (PyModule_AddObjectRef(module, "_AutocastOp", type) < 0)
        return -1;
    PyType_Slot slots[sizeof op_slots / sizeof op_slots[0]];
    memcpy(slots, op_slots, sizeof slots);
    slots[0].pfunc = "An op written in Python that autograd records (Note [recorded ops in C], "
                     "op_wrappers.c).";
    spec.name = "pydevtensor._C._RecordedOp";
    spec.slots = slots;
    type = PyType_FromModuleAndSpec(module, &spec, NULL);
    if (!type)
        return -1;
    S->recorded_op_type = (PyTypeObject *)type;
    return PyModule_AddObjectRef(module, "_RecordedOp", type);
}
