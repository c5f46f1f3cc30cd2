/* generator.c - _C._Generator, the C half of pydevtensor.Generator
 * (pydevtensor/_generator.py): it owns one core generator (a Philox seed and
 * stream position, Note [one stream for every device] in pdt_runtime.h), or
 * stands for the default one after _C._bind_default_generator(g).  The Python
 * class adds the public methods (manual_seed, seed, get_state, ...); the C
 * functions that take generator= (rand, randn, randint, uniform_, normal_) find
 * the core generator here, through pdt_generator_arg. */
#include "args.h"

typedef struct {
    PyObject_HEAD
    pdt_generator *gen; /* owned, unless it is the default generator */
} PdtGeneratorObject;

static PyObject *generator_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    (void)args, (void)kwds; /* the Python subclass's __init__ reads them */
    PdtGeneratorObject *self = (PdtGeneratorObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    self->gen = pdt_generator_new();
    if (!self->gen) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

static int generator_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static void generator_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    pdt_generator_free(((PdtGeneratorObject *)self)->gen);
    tp->tp_free(self);
    Py_DECREF(tp);
}

/* _get_state() -> (seed, offset) */
static PyObject *generator_get_state(PyObject *self, PyObject *unused)
{
    (void)unused;
    uint64_t seed, offset;
    pdt_generator_get_state(((PdtGeneratorObject *)self)->gen, &seed, &offset);
    return Py_BuildValue("(KK)", (unsigned long long)seed, (unsigned long long)offset);
}

/* _set_state(seed, offset): both ints in [0, 2**64) (the Python side checks) */
static PyObject *generator_set_state(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_set_state(seed, offset)");
        return NULL;
    }
    unsigned long long v[2];
    for (int i = 0; i < 2; i++) {
        v[i] = PyLong_AsUnsignedLongLong(args[i]);
        if (v[i] == (unsigned long long)-1 && PyErr_Occurred())
            return NULL;
    }
    pdt_generator_set_state(((PdtGeneratorObject *)self)->gen, v[0], v[1]);
    Py_RETURN_NONE;
}

static PyMethodDef generator_methods[] = {
    {"_get_state", generator_get_state, METH_NOARGS,
     "_get_state()\n--\n\n(seed, offset): the Philox key and the next unused counter block."},
    {"_set_state", (PyCFunction)(void (*)(void))generator_set_state, METH_FASTCALL,
     "_set_state(seed, offset)\n--\n\nPuts the generator at (seed, offset)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot generator_slots[] = {
    {Py_tp_new, generator_new},
    {Py_tp_dealloc, generator_dealloc},
    {Py_tp_traverse, generator_traverse},
    {Py_tp_methods, generator_methods},
    {Py_tp_doc, "The C half of pydevtensor.Generator: one Philox stream."},
    {0, NULL},
};

static PyType_Spec generator_spec = {
    .name = "pydevtensor._C._Generator",
    .basicsize = sizeof(PdtGeneratorObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .slots = generator_slots,
};

int pdt_generator_arg(pdt_state *S, PyObject *obj, const char *fname, pdt_generator **out)
{
    *out = NULL;
    if (!obj || obj == Py_None)
        return 0;
    if (!PyObject_TypeCheck(obj, S->generator_type)) {
        PyErr_Format(PyExc_TypeError,
                     "%s(): generator must be a pydevtensor.Generator or None, got %.100s", fname,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = ((PdtGeneratorObject *)obj)->gen;
    return 0;
}

/* _bind_default_generator(g): g stands for the default generator from now on
 * (pydevtensor.default_generator); its own stream is dropped. */
static PyObject *f_bind_default_generator(PyObject *module, PyObject *g)
{
    pdt_state *S = pdt_state_of_module(module);
    if (!PyObject_TypeCheck(g, S->generator_type)) {
        PyErr_SetString(PyExc_TypeError, "_bind_default_generator(): expected a Generator");
        return NULL;
    }
    PdtGeneratorObject *self = (PdtGeneratorObject *)g;
    if (self->gen != pdt_default_generator()) {
        pdt_generator_free(self->gen);
        self->gen = pdt_default_generator();
    }
    Py_RETURN_NONE;
}

PyMethodDef pdt_generator_functions[] = {
    {"_bind_default_generator", f_bind_default_generator, METH_O,
     "_bind_default_generator(g)\n--\n\nMakes g stand for the default generator."},
    {NULL, NULL, 0, NULL},
};

int pdt_generator_type_init(PyObject *module, pdt_state *S)
{
    PyObject *type = PyType_FromModuleAndSpec(module, &generator_spec, NULL);
    if (!type)
        return -1;
    S->generator_type = (PyTypeObject *)type; /* the module state's reference */
    return PyModule_AddObjectRef(module, "_Generator", type);
}
