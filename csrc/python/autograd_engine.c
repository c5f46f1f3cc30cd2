/* autograd_engine.c - the backward pass's loop in C (Note [the engine in C]).
 *
 * Note [the engine in C]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * pydevtensor/autograd/engine.py checks the outputs and their gradients, then
 * runs the graph: it counts, for each Node reachable from the outputs, the
 * edges that lead into it, and runs a Node once all of them have delivered,
 * summing the gradients that meet.  That loop is the same for every graph, and
 * in Python it was about a third of a small training step's fixed cost (an MLP
 * 16-8-10 at batch 4: 48 us of backward, of which the Nodes' formulas took 19).
 * _engine_run is the same loop over the same objects, step for step in the same
 * order (so the gradients are summed in the same order and have the same bits):
 * the Nodes' next_functions, num_outputs, _saved, apply(), release() and
 * AccumulateGrad.accumulate() stay Python.  engine.py keeps the Python loop
 * (_run_python) as the reference, and tests/test_autograd_engine.py runs graphs
 * through both. */
#include "pdt_module.h"

static PyObject *s_next, *s_num_outputs, *s_saved, *s_apply, *s_release, *s_accumulate,
    *s_storage_refcount;

static int intern_names(void)
{
    if (s_next)
        return 0;
    struct {
        PyObject **slot;
        const char *name;
    } names[] = {{&s_next, "next_functions"},
                 {&s_num_outputs, "num_outputs"},
                 {&s_saved, "_saved"},
                 {&s_apply, "apply"},
                 {&s_release, "release"},
                 {&s_accumulate, "accumulate"},
                 {&s_storage_refcount, "_unshared"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!*names[i].slot && !(*names[i].slot = PyUnicode_InternFromString(names[i].name)))
            return -1;
    return 0;
}

/* edge: (node, output_nr); sets *node (borrowed) and *nr. */
static int edge_parts(PyObject *edge, PyObject **node, Py_ssize_t *nr)
{
    if (!PyTuple_Check(edge) || PyTuple_GET_SIZE(edge) != 2) {
        PyErr_SetString(PyExc_TypeError, "autograd engine: an edge must be (node, output_nr)");
        return -1;
    }
    *node = PyTuple_GET_ITEM(edge, 0);
    *nr = PyLong_AsSsize_t(PyTuple_GET_ITEM(edge, 1));
    return *nr == -1 && PyErr_Occurred() ? -1 : 0;
}

/* deps[node] += by; returns the new count, -1 on an error (a missing node counts 0). */
static long deps_add(PyObject *deps, PyObject *node, long by)
{
    PyObject *old = PyDict_GetItemWithError(deps, node);
    if (!old && PyErr_Occurred())
        return -1;
    long n = (old ? PyLong_AsLong(old) : 0) + by;
    PyObject *v = PyLong_FromLong(n);
    int bad = !v || PyDict_SetItem(deps, node, v) < 0;
    Py_XDECREF(v);
    return bad ? -1 : n;
}

/* buffers[node][nr] = g, or the sum with what is there (engine.py's order: old + g). */
static int deliver(PyObject *buffers, PyObject *node, Py_ssize_t nr, PyObject *g)
{
    PyObject *buf = PyDict_GetItemWithError(buffers, node);
    if (!buf) {
        if (PyErr_Occurred())
            return -1;
        PyObject *n_obj = PyObject_GetAttr(node, s_num_outputs);
        Py_ssize_t n = n_obj ? PyLong_AsSsize_t(n_obj) : -1;
        Py_XDECREF(n_obj);
        if (n < 0 || !(buf = PyList_New(n)))
            return -1;
        for (Py_ssize_t i = 0; i < n; i++)
            PyList_SET_ITEM(buf, i, Py_NewRef(Py_None));
        int bad = PyDict_SetItem(buffers, node, buf) < 0;
        Py_DECREF(buf); /* the dict holds it */
        if (bad)
            return -1;
    }
    if (nr < 0 || nr >= PyList_GET_SIZE(buf)) {
        PyErr_SetString(PyExc_IndexError, "autograd engine: output_nr out of range");
        return -1;
    }
    PyObject *old = PyList_GET_ITEM(buf, nr);
    PyObject *v = old == Py_None ? Py_NewRef(g) : PyNumber_Add(old, g);
    if (!v)
        return -1;
    PyList_SetItem(buf, nr, v); /* steals v */
    return 0;
}

/* Whether every item of the list grads is None. */
static int all_none(PyObject *grads)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(grads); i++)
        if (PyList_GET_ITEM(grads, i) != Py_None)
            return 0;
    return 1;
}

/* AccumulateGrad: leaf.grad from grads[0] (engine.py's rule for `fresh`). */
static int run_leaf(PyObject *node, PyObject *grads, PyObject *shared)
{
    PyObject *g = PyList_GET_ITEM(grads, 0);
    PyObject *id = PyLong_FromVoidPtr(g);
    if (!id)
        return -1;
    int seen = PySet_Contains(shared, id), fresh = 0;
    if (seen == 0) {
        PyObject *rc = PyObject_CallMethodNoArgs(g, s_storage_refcount);
        fresh = rc ? rc == Py_True : -1;
        Py_XDECREF(rc);
    }
    int bad = seen < 0 || fresh < 0 || PyErr_Occurred() || PySet_Add(shared, id) < 0;
    Py_DECREF(id);
    if (bad)
        return -1;
    PyObject *r = PyObject_CallMethodObjArgs(node, s_accumulate, g, fresh ? Py_True : Py_False,
                                             NULL);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* A Node (not a leaf): apply() to grads (NULL: none arrived), then deliver what it
 * returns along next_functions and release the nodes that become ready. */
static int run_node(PyObject *node, PyObject *grads, int retain, PyObject *freed_msg,
                    PyObject *deps, PyObject *buffers, PyObject *ready)
{
    PyObject *nexts = pdt_node_edges(node), *in = NULL;
    int rc = -1;
    if (!nexts || !PyTuple_Check(nexts)) {
        if (nexts)
            PyErr_SetString(PyExc_TypeError, "autograd engine: next_functions must be a tuple");
        goto done;
    }
    if (grads && !all_none(grads)) {
        PyObject *saved = PyObject_GetAttr(node, s_saved);
        if (!saved)
            goto done;
        Py_DECREF(saved);
        if (saved == Py_None) {
            PyErr_SetObject(PyExc_RuntimeError, freed_msg);
            goto done;
        }
        PyObject *r = PyObject_CallMethodOneArg(node, s_apply, grads);
        in = r ? PySequence_Tuple(r)
               : NULL; /* a list's copy: hooks run by deliver() may change it */
        Py_XDECREF(r);
        if (!in)
            goto done;
        if (!retain) {
            PyObject *rel = PyObject_CallMethodNoArgs(node, s_release);
            if (!rel)
                goto done;
            Py_DECREF(rel);
        }
    }
    Py_ssize_t n = PyTuple_GET_SIZE(nexts);
    if (in && PySequence_Fast_GET_SIZE(in) < n) /* zip() stops at the shorter */
        n = PySequence_Fast_GET_SIZE(in);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PyTuple_GET_ITEM(nexts, i), *nxt;
        Py_ssize_t nr;
        if (e == Py_None)
            continue;
        if (edge_parts(e, &nxt, &nr) < 0)
            goto done;
        PyObject *g = in ? PySequence_Fast_GET_ITEM(in, i) : Py_None;
        if (g != Py_None && deliver(buffers, nxt, nr, g) < 0)
            goto done;
        long left = deps_add(deps, nxt, -1);
        if (left < 0 || (left == 0 && PyList_Append(ready, nxt) < 0))
            goto done;
    }
    rc = 0;
done:
    Py_XDECREF(nexts);
    Py_XDECREF(in);
    return rc;
}

/* stack.pop(): a new reference, NULL on an error (stack not empty). */
static PyObject *pop_last(PyObject *stack)
{
    Py_ssize_t last = PyList_GET_SIZE(stack) - 1;
    PyObject *item = Py_NewRef(PyList_GET_ITEM(stack, last));
    if (PyList_SetSlice(stack, last, last + 1, NULL) < 0) {
        Py_DECREF(item);
        return NULL;
    }
    return item;
}

/* preds[nxt].append(node) (preds NULL: nothing to do). */
static int add_pred(PyObject *preds, PyObject *nxt, PyObject *node)
{
    if (!preds)
        return 0;
    PyObject *list = PyDict_GetItemWithError(preds, nxt);
    if (!list) {
        if (PyErr_Occurred() || !(list = PyList_New(0)))
            return -1;
        int bad = PyDict_SetItem(preds, nxt, list) < 0;
        Py_DECREF(list); /* the dict holds it */
        if (bad)
            return -1;
    }
    return PyList_Append(list, node);
}

/* Counts the edges into each node reachable from the roots' nodes (engine.py's
 * `deps`, in the same insertion order); with preds, also each node's parents. */
static int count_deps(PyObject *roots, PyObject *deps, PyObject *preds)
{
    PyObject *stack = PyList_New(0);
    if (!stack)
        return -1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(roots); i++) {
        PyObject *node, *root = PyList_GET_ITEM(roots, i);
        Py_ssize_t nr;
        if (!PyTuple_Check(root) || PyTuple_GET_SIZE(root) != 3 ||
            edge_parts(PyTuple_GET_ITEM(root, 0), &node, &nr) < 0)
            goto fail;
        int has = PyDict_Contains(deps, node);
        if (has < 0 || (!has && (deps_add(deps, node, 0) < 0 || PyList_Append(stack, node) < 0)))
            goto fail;
    }
    while (PyList_GET_SIZE(stack)) {
        PyObject *node = pop_last(stack);
        if (!node)
            goto fail;
        PyObject *nexts = pdt_node_edges(node);
        if (!nexts) {
            Py_DECREF(node);
            goto fail;
        }
        int bad = !PyTuple_Check(nexts);
        for (Py_ssize_t k = 0; !bad && k < PyTuple_GET_SIZE(nexts); k++) {
            PyObject *e = PyTuple_GET_ITEM(nexts, k), *nxt;
            Py_ssize_t nr;
            if (e == Py_None)
                continue;
            int has = edge_parts(e, &nxt, &nr) < 0 ? -1 : PyDict_Contains(deps, nxt);
            bad = has < 0 || deps_add(deps, nxt, 1) < 0 ||
                  (!has && PyList_Append(stack, nxt) < 0) || add_pred(preds, nxt, node) < 0;
        }
        if (bad && !PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "autograd engine: next_functions must be a tuple");
        Py_DECREF(nexts);
        Py_DECREF(node);
        if (bad)
            goto fail;
    }
    Py_DECREF(stack);
    return 0;
fail:
    Py_DECREF(stack);
    return -1;
}

/* The nodes from which a captured node is reachable by one edge or more (PyTorch
 * runs only those when inputs are given: hooks elsewhere do not fire and saved
 * tensors elsewhere are kept): a walk up preds from the captured nodes. */
static PyObject *above_captures(PyObject *captures, PyObject *preds)
{
    PyObject *above = PySet_New(NULL), *stack = PyList_New(0);
    if (!above || !stack)
        goto fail;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(captures, &pos, &key, &value))
        if (PyList_Append(stack, key) < 0)
            goto fail;
    while (PyList_GET_SIZE(stack)) {
        PyObject *node = pop_last(stack);
        if (!node)
            goto fail;
        PyObject *parents = PyDict_GetItemWithError(preds, node); /* preds holds it */
        Py_DECREF(node);
        if (!parents) {
            if (PyErr_Occurred())
                goto fail;
            continue;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(parents); i++) {
            PyObject *p = PyList_GET_ITEM(parents, i);
            int has = PySet_Contains(above, p);
            if (has < 0 || (!has && (PySet_Add(above, p) < 0 || PyList_Append(stack, p) < 0)))
                goto fail;
        }
    }
    Py_DECREF(stack);
    return above;
fail:
    Py_XDECREF(above);
    Py_XDECREF(stack);
    return NULL;
}

/* results[k] = grads[nr] for each (nr, k) that captures holds for node. */
static int capture(PyObject *captures, PyObject *node, PyObject *grads, PyObject *results)
{
    PyObject *wanted = PyDict_GetItemWithError(captures, node);
    if (!wanted)
        return PyErr_Occurred() ? -1 : 0;
    PyObject *seq = PySequence_Fast(wanted, "autograd engine: captures must hold lists");
    if (!seq)
        return -1;
    int rc = 0;
    for (Py_ssize_t i = 0; rc == 0 && i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(seq, i);
        Py_ssize_t nr, k;
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 ||
            (nr = PyLong_AsSsize_t(PyTuple_GET_ITEM(pair, 0))) < 0 ||
            (k = PyLong_AsSsize_t(PyTuple_GET_ITEM(pair, 1))) < 0 || nr >= PyList_GET_SIZE(grads) ||
            k >= PyList_GET_SIZE(results)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_IndexError, "autograd engine: a capture is out of range");
            rc = -1;
        } else {
            PyList_SetItem(results, k, Py_NewRef(PyList_GET_ITEM(grads, nr)));
        }
    }
    Py_DECREF(seq);
    return rc;
}

/* _engine_run(roots, captures, nresults, retain_graph, accumulate, only_captured,
 * AccumulateGrad, freed_msg) -> results: engine.py's _run_python after its checks
 * (roots: [((node, nr), grad, user_given)], captures: {node: [(nr, k)]}). */
static PyObject *f_engine_run(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 8 || !PyList_Check(args[0]) || !PyDict_Check(args[1]) || !PyType_Check(args[6])) {
        PyErr_SetString(PyExc_TypeError, "_engine_run: bad arguments");
        return NULL;
    }
    PyObject *roots = args[0], *captures = args[1], *acc_type = args[6], *freed_msg = args[7];
    Py_ssize_t nres = PyLong_AsSsize_t(args[2]);
    int retain = PyObject_IsTrue(args[3]), accumulate = PyObject_IsTrue(args[4]),
        only_captured = PyObject_IsTrue(args[5]);
    if (nres < 0 || retain < 0 || accumulate < 0 || only_captured < 0 || intern_names() < 0)
        return PyErr_Occurred() ? NULL : (PyErr_SetString(PyExc_ValueError, "_engine_run"), NULL);
    PyObject *deps = PyDict_New(), *buffers = PyDict_New(), *shared = PySet_New(NULL);
    PyObject *results = PyList_New(nres), *ready = PyList_New(0), *above = NULL;
    PyObject *preds = only_captured ? PyDict_New() : NULL;
    if (!deps || !buffers || !shared || !results || !ready || (only_captured && !preds))
        goto fail;
    for (Py_ssize_t k = 0; k < nres; k++)
        PyList_SET_ITEM(results, k, Py_NewRef(Py_None));
    if (count_deps(roots, deps, preds) < 0 || (preds && !(above = above_captures(captures, preds))))
        goto fail;
    Py_CLEAR(preds);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(roots); i++) {
        PyObject *root = PyList_GET_ITEM(roots, i), *node;
        Py_ssize_t nr;
        if (edge_parts(PyTuple_GET_ITEM(root, 0), &node, &nr) < 0 ||
            deliver(buffers, node, nr, PyTuple_GET_ITEM(root, 1)) < 0)
            goto fail;
        int user = PyObject_IsTrue(PyTuple_GET_ITEM(root, 2));
        PyObject *id = user > 0 ? PyLong_FromVoidPtr(PyTuple_GET_ITEM(root, 1)) : NULL;
        int bad = user < 0 || (user && (!id || PySet_Add(shared, id) < 0));
        Py_XDECREF(id);
        if (bad)
            goto fail;
    }
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(deps, &pos, &key, &value))
        if (PyLong_AsLong(value) == 0 && PyList_Append(ready, key) < 0)
            goto fail;
    while (PyList_GET_SIZE(ready)) {
        Py_ssize_t last = PyList_GET_SIZE(ready) - 1;
        PyObject *node = Py_NewRef(PyList_GET_ITEM(ready, last)), *grads = NULL;
        int rc = PyList_SetSlice(ready, last, last + 1, NULL);
        if (rc == 0 && (grads = PyDict_GetItemWithError(buffers, node))) {
            Py_INCREF(grads);
            rc = PyDict_DelItem(buffers, node);
            if (rc == 0 && !PyList_Check(grads)) {
                PyErr_SetString(PyExc_TypeError, "autograd engine: a buffer must be a list");
                rc = -1;
            }
        } else if (rc == 0 && PyErr_Occurred()) {
            rc = -1;
        }
        if (rc == 0 && grads)
            rc = capture(captures, node, grads, results);
        int leaf = rc == 0 ? PyObject_IsInstance(node, acc_type) : 0;
        if (leaf < 0) {
            rc = -1;
        } else if (rc == 0 && leaf) {
            int wanted = only_captured ? PyDict_Contains(captures, node) : 1;
            if (wanted < 0)
                rc = -1;
            else if (grads && PyList_GET_SIZE(grads) && PyList_GET_ITEM(grads, 0) != Py_None &&
                     accumulate && wanted)
                rc = run_leaf(node, grads, shared);
        } else if (rc == 0) {
            /* with inputs, a node above none of them is not run (nor released) */
            int run = above ? PySet_Contains(above, node) : 1;
            if (run < 0)
                rc = -1;
            else
                rc = run_node(node, run ? grads : NULL, retain, freed_msg, deps, buffers, ready);
        }
        Py_DECREF(node);
        Py_XDECREF(grads);
        if (rc < 0)
            goto fail;
    }
    Py_DECREF(deps);
    Py_DECREF(buffers);
    Py_DECREF(shared);
    Py_DECREF(ready);
    Py_XDECREF(above);
    return results;
fail:
    Py_XDECREF(preds);
    Py_XDECREF(above);
    Py_XDECREF(deps);
    Py_XDECREF(buffers);
    Py_XDECREF(shared);
    Py_XDECREF(results);
    Py_XDECREF(ready);
    return NULL;
}

PyMethodDef pdt_autograd_engine_functions[] = {
    {"_engine_run", (PyCFunction)(void (*)(void))f_engine_run, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};
