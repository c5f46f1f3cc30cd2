/* autograd_record.c - the recorder's common case in C (Note [recording in C]).
 *
 * Note [recording in C]
 * ~~~~~~~~~~~~~~~~~~~~~
 * pydevtensor/autograd/dispatch.py records an op in Python: it looks the op's
 * Node class up, runs the op again with grad mode off, makes the Node, lets its
 * save() keep what the backward needs, gathers the inputs' edges and marks the
 * results.  Everything but save() is the same for every op, and in Python it was
 * most of the 4.5 us that `a * b` on 4x4 tensors took with grad (0.18 us
 * without; PyTorch 1.85 us with).  This file does those steps in C, with the
 * same objects: RULES (the dict of Node classes), NOT_DIFFERENTIABLE, the
 * forward functions dispatch.py's _forward() gives, and AccumulateGrad for a
 * leaf met for the first time (or whose graph has died), made and kept weakly
 * on the leaf as node.py's accumulator() does, without its frame.  The Node
 * classes and their save() and backward() stay in Python.  Whatever is not the
 * common case goes to the Python dispatcher as before: in-place ops, an out=
 * argument, an op without a rule (which raises there), more than
 * RECORD_MAX_ARGS arguments.  A rule that picks its class from the arguments
 * (`pick`: matmul, max, indexing, to) is asked after the forward, as
 * dispatch.py asks it.
 *
 * The objects are taken when the recorder is installed: rebinding RULES or
 * replacing the dispatcher (_set_autograd_dispatcher, which turns this
 * recorder off) is not seen here until it is installed again.
 * _set_autograd_recorder(None) turns it off, so that tests can check that both
 * paths record the same graph.  Op names are looked up by the address of the
 * bindings' string literals (name_object).
 *
 * Note [edges in C]
 * ~~~~~~~~~~~~~~~~~
 * Node.next_functions is a Python property over the slot _edges (its setter
 * wraps the tuple in an Edges, Note [no edge] in node.py).  Read and written
 * through it, each op recorded and each node run backward took a Python frame.
 * For a node whose type keeps Node's own property and _edges slot and plain
 * attribute access (no __getattribute__, __getattr__ or __setattr__ of its own),
 * pdt_node_edges and pdt_node_set_edges read and write the slot directly,
 * doing what the property does; any other node goes through next_functions. */
#include "args.h"
#include "pdt_module.h"

#define RECORD_MAX_ARGS 14 /* positional and keyword values, self included */

static PyObject *rules;           /* RULES: op name -> Node class or NOT_DIFFERENTIABLE */
static PyObject *not_diff;        /* NOT_DIFFERENTIABLE */
static PyObject *forward_of;      /* _forward(name, method) -> the C binding to run */
static PyObject *accumulate_grad; /* AccumulateGrad, the class: AccumulateGrad(leaf) */
static PyTypeObject *node_type;   /* Node: every rule is a subclass */
static PyObject *forwards[2];     /* {name: binding}, functions and methods */
static PyObject *empty_tuple;     /* () */
static PyObject *s_saved, *s_save, *s_pick, *s_next, *s_needs, *s_num_outputs, *s_edges;
static PyObject *zero;           /* 0, an edge's output_nr for a leaf */
static PyObject *next_prop;      /* Node.__dict__['next_functions'] */
static PyObject *edges_slot;     /* Node.__dict__['_edges'], a member descriptor */
static PyTypeObject *edges_type; /* Edges, a subclass of tuple */

/* 1 when node's next_functions is Node's own property over its _edges slot. */
static int plain_edges(PyObject *node)
{
    PyTypeObject *tp = Py_TYPE(node);
    return edges_slot && tp->tp_getattro == PyObject_GenericGetAttr &&
           tp->tp_setattro == PyObject_GenericSetAttr && _PyType_Lookup(tp, s_next) == next_prop &&
           _PyType_Lookup(tp, s_edges) == edges_slot;
}

PyObject *pdt_node_edges(PyObject *node)
{
    if (!plain_edges(node))
        return s_next ? PyObject_GetAttr(node, s_next)
                      : PyObject_GetAttrString(node, "next_functions");
    return Py_TYPE(edges_slot)->tp_descr_get(edges_slot, node, (PyObject *)Py_TYPE(node));
}

int pdt_node_set_edges(PyObject *node, PyObject *edges)
{
    if (!plain_edges(node))
        return s_next ? PyObject_SetAttr(node, s_next, edges)
                      : PyObject_SetAttrString(node, "next_functions", edges);
    if (Py_IS_TYPE(edges, edges_type)) /* the setter's `edges if type(edges) is Edges` */
        return Py_TYPE(edges_slot)->tp_descr_set(edges_slot, node, edges);
    PyObject *wrapped = NULL;
    if (PyTuple_CheckExact(edges) && edges_type->tp_new == PyTuple_Type.tp_new &&
        edges_type->tp_init == PyBaseObject_Type.tp_init) {
        /* Edges(edges) for an Edges without __new__ or __init__ of its own: what
         * tuple.__new__ does for a subclass, without the type call */
        Py_ssize_t n = PyTuple_GET_SIZE(edges);
        if (!(wrapped = edges_type->tp_alloc(edges_type, n)))
            return -1;
        for (Py_ssize_t i = 0; i < n; i++)
            PyTuple_SET_ITEM(wrapped, i, Py_NewRef(PyTuple_GET_ITEM(edges, i)));
    } else if (!(wrapped = PyObject_CallOneArg((PyObject *)edges_type, edges))) {
        return -1;
    }
    int rc = Py_TYPE(edges_slot)->tp_descr_set(edges_slot, node, wrapped);
    Py_DECREF(wrapped);
    return rc;
}

/* The name's str, interned, borrowed (the names are the bindings' literals, a
 * few dozen, kept by address); NULL with an exception, or without one when the
 * table is full. */
static PyObject *name_object(const char *name)
{
    enum { SLOTS = 256 };
    static struct {
        const char *key;
        PyObject *str;
    } cache[SLOTS];
    size_t h = ((uintptr_t)name >> 3) % SLOTS;
    for (size_t i = 0; i < SLOTS; i++, h = (h + 1) % SLOTS) {
        if (cache[h].key == name)
            return cache[h].str;
        if (!cache[h].key) {
            PyObject *s = PyUnicode_InternFromString(name);
            if (!s)
                return NULL;
            cache[h].key = name;
            cache[h].str = s; /* kept for the life of the process, as interned strings are */
            return s;
        }
    }
    return NULL; /* a full table (no exception): the Python dispatcher takes the call */
}

/* 1 when the name is one the Python dispatcher handles as in place. */
static int in_place(const char *name)
{
    size_t n = strlen(name);
    if (!strcmp(name, "__setitem__"))
        return 1;
    return n > 0 && name[n - 1] == '_' && !(n > 1 && name[n - 2] == '_');
}

/* The binding to run with grad mode off (a new reference). */
static PyObject *forward_for(PyObject *name, int method)
{
    PyObject *f = PyDict_GetItemWithError(forwards[method], name);
    if (f || PyErr_Occurred())
        return Py_XNewRef(f);
    PyObject *call[2] = {name, method ? Py_True : Py_False}, *of = Py_NewRef(forward_of);
    PyObject *cache = Py_NewRef(forwards[method]); /* the call may reinstall the recorder */
    f = PyObject_Vectorcall(of, call, 2, NULL);
    if (f && PyDict_SetItem(cache, name, f) < 0)
        Py_CLEAR(f);
    Py_DECREF(cache);
    Py_DECREF(of);
    return f;
}

/* edge_of(x) of dispatch.py: (grad_fn, output_nr), (AccumulateGrad, 0), or None. */
static PyObject *edge_of(PyObject *x)
{
    if (!PyObject_TypeCheck(x, pdt_autograd_tensor_type))
        return Py_NewRef(Py_None);
    if (pdt_view_refresh(x) < 0) /* Note [views and their base] */
        return NULL;
    if (!((PdtTensorObject *)x)->requires_grad)
        return Py_NewRef(Py_None);
    PdtTensorObject *o = (PdtTensorObject *)x;
    if (o->grad_fn) {
        PyObject *nr = PyLong_FromLong(o->output_nr),
                 *edge = nr ? PyTuple_Pack(2, o->grad_fn, nr) : NULL;
        Py_XDECREF(nr);
        return edge;
    }
    PyObject *acc = NULL;
    if (o->accumulator && PyWeakref_Check(o->accumulator)) {
#if PY_VERSION_HEX >= 0x030D0000
        if (PyWeakref_GetRef(o->accumulator, &acc) < 0)
            return NULL;
#else
        PyObject *alive = PyWeakref_GetObject(o->accumulator); /* borrowed, or None */
        if (alive && alive != Py_None)
            acc = Py_NewRef(alive);
#endif
    }
    if (!acc) { /* node.py's accumulator(leaf): a new one, kept weakly on the leaf */
        PyObject *make = Py_NewRef(accumulate_grad); /* the call may reinstall the recorder */
        acc = PyObject_CallOneArg(make, x);
        Py_DECREF(make);
        PyObject *ref = acc ? PyWeakref_NewRef(acc, NULL) : NULL;
        if (!ref) {
            Py_XDECREF(acc);
            return NULL;
        }
        Py_XSETREF(o->accumulator, ref);
    }
    PyObject *edge = PyTuple_Pack(2, acc, zero);
    Py_DECREF(acc);
    return edge;
}

static void mark(PyObject *t, PyObject *node, int nr)
{
    if (!PyObject_TypeCheck(t, pdt_autograd_tensor_type))
        return;
    PdtTensorObject *o = (PdtTensorObject *)t;
    if (!pdt_dtype_is_floating(o->t.dtype))
        return;
    pdt_autograd_set_grad_fn(o, node, nr);
}

/* record() of dispatch.py: out = op(*argv, **kw) has been computed; argv[-2]
 * and argv[-1] are free slots for the node and out. */
static PyObject *record(PyObject *cls, PyObject *out, PyObject **argv, Py_ssize_t nargs,
                        PyObject *kwnames)
{
    PyObject *node = NULL, *inputs = NULL, *seq = NULL, *edges = NULL, *needs = NULL;
    PyObject *result = NULL;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, node_type) ||
        !((PyTypeObject *)cls)->tp_new) {
        PyErr_Format(PyExc_TypeError, "autograd: the rule %R is not a Node class", cls);
        return NULL;
    }
    node = ((PyTypeObject *)cls)->tp_new((PyTypeObject *)cls, empty_tuple, NULL);
    if (!node || PyObject_SetAttr(node, s_saved, empty_tuple) < 0)
        goto done;
    argv[-2] = node, argv[-1] = out;
    inputs = PyObject_VectorcallMethod(s_save, argv - 2, (size_t)(nargs + 2), kwnames);
    if (!inputs || !(seq = PySequence_Tuple(inputs))) /* ours: edge_of may run Python */
        goto done;
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    int any = 0;
    if (!(edges = PyTuple_New(n)) || !(needs = PyTuple_New(n)))
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = edge_of(PyTuple_GET_ITEM(seq, i));
        if (!e)
            goto done;
        PyTuple_SET_ITEM(edges, i, e);
        PyTuple_SET_ITEM(needs, i, Py_NewRef(e != Py_None ? Py_True : Py_False));
        any |= e != Py_None;
    }
    if (!any) {
        result = Py_NewRef(out);
        goto done;
    }
    if (pdt_node_set_edges(node, edges) < 0 || PyObject_SetAttr(node, s_needs, needs) < 0)
        goto done;
    if (PyObject_TypeCheck(out, pdt_autograd_tensor_type)) {
        mark(out, node, 0);
    } else {
        PyObject *count = PyObject_GetAttr(cls, s_num_outputs);
        long k = count ? PyLong_AsLong(count) : -1;
        Py_XDECREF(count);
        if (k == -1 && PyErr_Occurred())
            goto done;
        for (long nr = 0; nr < k; nr++) {
            PyObject *t = PySequence_GetItem(out, nr);
            if (!t)
                goto done;
            mark(t, node, (int)nr);
            Py_DECREF(t);
        }
    }
    result = Py_NewRef(out);
done:
    Py_XDECREF(needs);
    Py_XDECREF(edges);
    Py_XDECREF(seq);
    Py_XDECREF(inputs);
    Py_XDECREF(node);
    return result;
}

PyObject *pdt_autograd_record(const char *name, int method, PyObject *self, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames, int *handled)
{
    *handled = 0;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0, first = self ? 1 : 0;
    if (!rules || in_place(name) || first + nargs + nkw > RECORD_MAX_ARGS)
        return NULL;
    /* out= cannot be recorded (the dispatcher says why).  NumPy's names for dim and
     * keepdim: the rules are written with PyTorch's, and the dispatcher renames them
     * (torch_names, pydevtensor/_numpy_names.py) */
    if (nkw && (pdt_kwnames_has(kwnames, "out") || pdt_kwnames_has(kwnames, "axis") ||
                pdt_kwnames_has(kwnames, "keepdims")))
        return NULL;
    PyObject *key = name_object(name);
    if (!key) {
        if (PyErr_Occurred())
            goto failed;
        return NULL;
    }
    PyObject *rule = PyDict_GetItemWithError(rules, key); /* borrowed */
    if (!rule || rule == Py_None) {
        if (PyErr_Occurred())
            goto failed;
        return NULL; /* no derivative: the dispatcher raises */
    }
    Py_INCREF(rule);                 /* what follows may run Python that changes RULES */
    const int nd = rule == not_diff; /* decided now: the forward may reinstall the recorder */
    PyObject *pick = NULL;           /* a function of the op's arguments choosing the class */
    if (!nd) {
        if (!(pick = PyObject_GetAttr(rule, s_pick))) {
            Py_DECREF(rule);
            goto failed;
        }
        if (pick == Py_None)
            Py_CLEAR(pick);
        if (!pick && !PyType_Check(rule)) {
            Py_DECREF(rule);
            return NULL;
        }
    }
    PyObject *f = forward_for(key, method); /* held: the call may clear the cache */
    if (!f) {
        Py_XDECREF(pick);
        Py_DECREF(rule);
        goto failed;
    }
    /* [node, out, self?, args..., keyword values...]: the forward takes from slot 2 */
    PyObject *slots[RECORD_MAX_ARGS + 2], **argv = slots + 2;
    Py_ssize_t n = first + nargs;
    if (self)
        argv[0] = self;
    for (Py_ssize_t i = 0; i < nargs + nkw; i++)
        argv[first + i] = args[i];
    *handled = 1;
    int was = pdt_grad_set(0);
    PyObject *out = PyObject_Vectorcall(f, argv, (size_t)n, kwnames);
    pdt_grad_set(was);
    PyObject *r = NULL, *cls = NULL;
    if (!out || nd) {
        r = Py_XNewRef(out);
    } else if (pick) { /* picked after the forward, as dispatch.py does */
        cls = PyObject_Vectorcall(pick, argv, (size_t)n, kwnames);
        if (cls && !PyType_Check(cls))
            PyErr_Format(PyExc_TypeError, "%s: pick() must return a Node class, not %.100s", name,
                         Py_TYPE(cls)->tp_name);
        else if (cls)
            r = record(cls, out, argv, n, kwnames);
    } else {
        r = record(rule, out, argv, n, kwnames);
    }
    Py_XDECREF(cls);
    Py_XDECREF(out);
    Py_XDECREF(pick);
    Py_DECREF(f);
    Py_DECREF(rule);
    return r;
failed:
    *handled = 1;
    return NULL;
}

/* _set_autograd_recorder(rules, not_differentiable, forward_of, AccumulateGrad,
 * Node, Edges), or (None): install (or turn off) the C recorder. */
void pdt_autograd_recorder_off(void) { Py_CLEAR(rules); }

static PyObject *f_set_autograd_recorder(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs == 1 && args[0] == Py_None) {
        pdt_autograd_recorder_off();
        Py_RETURN_NONE;
    }
    if (nargs != 6 || !PyDict_Check(args[0]) || !PyCallable_Check(args[2]) ||
        !PyType_Check(args[3]) || !PyType_Check(args[4]) || !PyType_Check(args[5]) ||
        !PyType_IsSubtype((PyTypeObject *)args[5], &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError,
                        "_set_autograd_recorder(rules: dict, not_differentiable, forward_of, "
                        "AccumulateGrad: type, Node: type, Edges: tuple subclass) or (None)");
        return NULL;
    }
    /* the constants, once (each kept when made: a failure leaves nothing to leak) */
    if ((!empty_tuple && !(empty_tuple = PyTuple_New(0))) ||
        (!zero && !(zero = PyLong_FromLong(0))) ||
        (!s_saved && !(s_saved = PyUnicode_InternFromString("_saved"))) ||
        (!s_save && !(s_save = PyUnicode_InternFromString("save"))) ||
        (!s_pick && !(s_pick = PyUnicode_InternFromString("pick"))) ||
        (!s_next && !(s_next = PyUnicode_InternFromString("next_functions"))) ||
        (!s_needs && !(s_needs = PyUnicode_InternFromString("needs_input_grad"))) ||
        (!s_num_outputs && !(s_num_outputs = PyUnicode_InternFromString("num_outputs"))) ||
        (!s_edges && !(s_edges = PyUnicode_InternFromString("_edges"))))
        return NULL;
    /* Node's own next_functions and _edges (Note [edges in C]), borrowed from its dict */
    PyObject *prop = _PyType_Lookup((PyTypeObject *)args[4], s_next);
    PyObject *slot = _PyType_Lookup((PyTypeObject *)args[4], s_edges);
    int usable = prop && slot && Py_TYPE(slot)->tp_descr_get && Py_TYPE(slot)->tp_descr_set;
    PyObject *fresh[2] = {PyDict_New(), PyDict_New()};
    if (!fresh[0] || !fresh[1]) {
        Py_XDECREF(fresh[0]);
        Py_XDECREF(fresh[1]);
        return NULL;
    }
    /* all the new values first, then the old ones dropped (which may run code) */
    PyObject *old[10] = {
        rules,       not_diff,    forward_of, accumulate_grad, (PyObject *)node_type,
        forwards[0], forwards[1], next_prop,  edges_slot,      (PyObject *)edges_type};
    rules = Py_NewRef(args[0]);
    not_diff = Py_NewRef(args[1]);
    forward_of = Py_NewRef(args[2]);
    accumulate_grad = Py_NewRef(args[3]);
    node_type = (PyTypeObject *)Py_NewRef(args[4]);
    forwards[0] = fresh[0];
    forwards[1] = fresh[1];
    next_prop = usable ? Py_NewRef(prop) : NULL;
    edges_slot = usable ? Py_NewRef(slot) : NULL;
    edges_type = (PyTypeObject *)Py_NewRef(args[5]);
    for (int i = 0; i < 10; i++)
        Py_XDECREF(old[i]);
    Py_RETURN_NONE;
}

/* _meta(x): (shape as a tuple, dtype, device) for a Tensor, None for anything
 * else: what a gradient for x must match (derivatives.py's meta, which every
 * binary op's save() calls twice). */
static PyObject *f_meta(PyObject *module, PyObject *x)
{
    pdt_state *S = pdt_state_of_module(module);
    if (!S)
        return NULL;
    if (!PyObject_TypeCheck(x, S->tensor_type))
        Py_RETURN_NONE;
    const pdt_tensor *t = pdt_tensor_of(x);
    PyObject *shape = pdt_shape_tuple(t), *dtype = pdt_dtype_object(S, t->dtype);
    PyObject *device = pdt_device_object(S, t->device), *r = NULL;
    if (shape && dtype && device)
        r = PyTuple_Pack(3, shape, dtype, device);
    Py_XDECREF(shape);
    Py_XDECREF(dtype);
    Py_XDECREF(device);
    return r;
}

PyMethodDef pdt_autograd_record_functions[] = {
    {"_meta", f_meta, METH_O, NULL},
    {"_set_autograd_recorder", (PyCFunction)(void (*)(void))f_set_autograd_recorder, METH_FASTCALL,
     NULL},
    {NULL, NULL, 0, NULL},
};
