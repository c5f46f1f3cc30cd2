/* autocast_op.c - pydevtensor._C._AutocastOp: the object autocast puts in place of
 * each op it casts (pydevtensor/amp/_policy.py installs them; _state.py builds them).
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
 */
#include <limits.h>
#include <stddef.h>

#include "pdt_module.h"

#include <structmember.h> /* PyMemberDef, T_PYSSIZET (Python < 3.12) */

typedef struct {
    PyObject_HEAD
    PyObject *op;       /* the op, called directly while no thread has autocast on */
    PyObject *slow;     /* the Python wrapper that casts (amp/_state.py: _wrap) */
    PyObject *dict;     /* __dict__ */
    const int *threads; /* &pdt_state.autocast_threads */
    vectorcallfunc vectorcall;
} AutocastOp;

static PyObject *op_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                               PyObject *kwnames)
{
    AutocastOp *o = (AutocastOp *)self;
    PyObject *f = *o->threads ? o->slow : o->op;
    if (!f) { /* called after tp_clear, by a finaliser of a cycle being collected */
        PyErr_SetString(PyExc_RuntimeError,
                        "this autocast op was cleared by the garbage collector");
        return NULL;
    }
    return PyObject_Vectorcall(f, args, nargsf, kwnames);
}

/* _AutocastOp(op, slow) */
static PyObject *op_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *op, *slow;
    if (kwds && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "_AutocastOp(op, slow) takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OO:_AutocastOp", &op, &slow))
        return NULL;
    if (!PyCallable_Check(op) || !PyCallable_Check(slow)) {
        PyErr_SetString(PyExc_TypeError, "_AutocastOp(op, slow): both must be callable");
        return NULL;
    }
    pdt_state *S = pdt_state_of_type(type);
    if (!S)
        return NULL;
    AutocastOp *o = (AutocastOp *)type->tp_alloc(type, 0);
    if (!o)
        return NULL;
    o->op = Py_NewRef(op);
    o->slow = Py_NewRef(slow);
    o->threads = &S->autocast_threads;
    o->vectorcall = op_vectorcall;
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
        return PyUnicode_FromFormat("<autocast op of %R>", ((AutocastOp *)self)->op);
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
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef op_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot op_slots[] = {
    {Py_tp_doc, "An op wrapped by autocast (Note [autocast's check in C], autocast_op.c)."},
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

int pdt_autocast_type_init(PyObject *module, pdt_state *S)
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
    int rc = PyModule_AddObjectRef(module, "_AutocastOp", type);
    S->autocast_op_type = (PyTypeObject *)type;
    return rc;
}
