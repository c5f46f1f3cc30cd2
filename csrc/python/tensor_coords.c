/* tensor_coords.c - x[i, j, ...]: index vectors on x's leading dims, in C.
 *
 * Note [coordinates in C]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * D2L's cross-entropy from scratch picks one probability a row with
 * `y_hat[range(len(y_hat)), y]`; `x[v, 1]` and `x[rows, cols]` are the same kind of key.
 * Through the Python path (pydevtensor/_ops_getitem.py: the key planned item by item,
 * each index checked, wrapped with %, merged with * and +, expanded, then index_select)
 * one such read of a (32, 10) float32 took 13.6-14.8 us, NumPy's 1.3-2.6.  Here a tuple
 * key of k >= 2 items over the leading dims of a contiguous CPU x, each item an int64
 * vector Tensor on the CPU (contiguous, 1-d), a range, a list of ints or an int (which
 * broadcasts, as NumPy's and PyTorch's integers do among advanced indices), with every
 * vector of one length n, is read as n coordinates: flat[j] = the row-major position of
 * (i_0[j], ..., i_{k-1}[j]) among the leading dims (negative entries from the end), and
 * the result is index_select of x's rows (the leading dims merged) at flat: shape (n,)
 * followed by x's other dims, as both libraries give for advanced indices side by side
 * at the front.  Any other key, a vector of another length (broadcasting), and an entry
 * out of range go on to the Python path, which says what is wrong in indexing's words.
 * The subscript slot takes these keys when x requires no grad; the recorded Python path
 * (_advanced_index, under autograd) calls _coords_select for them too. */
#include <string.h>

#include "args.h"
#include "pdt_index.h"
#include "pdt_view.h"

/* one item of the key: values[j] for a list, t's for a vector, else start + j step */
typedef struct coord {
    const pdt_tensor *t;
    int64_t *values;        /* a list's ints, owned (PyMem) */
    int64_t start, step, n; /* n: -1 for an int, which broadcasts */
} coord;

#define LIST_MAX 4096 /* longer lists: the Python path makes a tensor of them */

/* range r's start, step and length; 0 when one does not fit in 64 bits */
static int range_coord(PyObject *r, coord *c)
{
    PyObject *start = PyObject_GetAttrString(r, "start"), *step = PyObject_GetAttrString(r, "step");
    Py_ssize_t n = PyObject_Size(r);
    PyObject *last = n > 0 ? PySequence_GetItem(r, n - 1) : NULL;
    int64_t end = 0;
    int ok = start && step && n >= 0 && pdt_exact_int64(start, &c->start) &&
             pdt_exact_int64(step, &c->step) && (n == 0 || (last && pdt_exact_int64(last, &end)));
    Py_XDECREF(start);
    Py_XDECREF(step);
    Py_XDECREF(last);
    PyErr_Clear(); /* a length past Py_ssize_t: the Python path */
    c->n = n;
    return ok;
}

static int list_coord(PyObject *l, coord *c)
{
    Py_ssize_t n = PyList_GET_SIZE(l);
    if (n > LIST_MAX)
        return 0;
    c->values = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *c->values);
    if (!c->values) {
        PyErr_Clear();
        return 0;
    }
    for (Py_ssize_t j = 0; j < n; j++)
        if (!pdt_exact_int64(PyList_GET_ITEM(l, j), &c->values[j]))
            return 0; /* a bool, a float, a nested list: the Python path */
    c->n = n;
    return 1;
}

int pdt_coords_key_plausible(pdt_state *S, const pdt_tensor *x, PyObject *key)
{
    if (!PyTuple_CheckExact(key) || PyTuple_GET_SIZE(key) < 2 || PyTuple_GET_SIZE(key) > x->ndim ||
        x->device.kind != PDT_CPU || !pdt_tensor_is_contiguous(x))
        return 0;
    for (Py_ssize_t d = 0; d < PyTuple_GET_SIZE(key); d++) {
        PyObject *o = PyTuple_GET_ITEM(key, d);
        if (!(Py_IS_TYPE(o, S->tensor_type) || PyLong_CheckExact(o) || PyRange_Check(o) ||
              PyList_CheckExact(o)))
            return 0;
    }
    return 1;
}

/* The key's items as coords on x (cs[0..k)); 0 for a key this file does not take. */
static int parse_key(pdt_state *S, const pdt_tensor *x, PyObject *key, coord *cs, int *k,
                     int64_t *n)
{
    if (!pdt_coords_key_plausible(S, x, key))
        return 0;
    *k = (int)PyTuple_GET_SIZE(key), *n = -1;
    int tensors = 0;
    for (int d = 0; d < *k; d++) {
        PyObject *o = PyTuple_GET_ITEM(key, d);
        coord *c = &cs[d];
        if (Py_IS_TYPE(o, S->tensor_type)) {
            const pdt_tensor *t = pdt_tensor_of(o);
            if (!pdt_index_is_vector(t) || !pdt_device_eq(t->device, x->device))
                return 0;
            if (++tensors > PDT_HOLD_MAX - 2)
                return 0; /* x, a value and these are held: a review's segfault past it */
            c->t = t, c->n = t->shape[0];
        } else if (PyLong_CheckExact(o)) {
            if (!pdt_exact_int64(o, &c->start))
                return 0;
            c->n = -1;
        } else if (PyRange_Check(o)) {
            if (!range_coord(o, c))
                return 0;
        } else if (PyList_CheckExact(o)) {
            if (!list_coord(o, c))
                return 0;
        } else {
            return 0;
        }
        if (c->n >= 0) {
            if (*n >= 0 && *n != c->n)
                return 0; /* broadcasting: the Python path */
            *n = c->n;
        }
    }
    return *n >= 0; /* all ints: a basic key */
}

/* flat[j] from the coords; 0 when an entry is out of range (an int item's checked once:
 * with no coordinates at all, x[5, []] must still say 5 is out of range, as NumPy does).
 * The sums are unsigned: past a bad entry they may wrap, and are thrown away. */
static int fill_flat(const pdt_tensor *x, const coord *cs, int k, int64_t n, int64_t *flat)
{
    uint64_t bad = 0, *f = (uint64_t *)flat;
    if (n)
        memset(flat, 0, (size_t)n * sizeof *flat); /* an empty tensor's data may be NULL */
    for (int d = 0; d < k; d++) {
        const coord *c = &cs[d];
        const int64_t s = x->shape[d];
        const int64_t *v = c->t ? (const int64_t *)pdt_tensor_ptr(c->t) : c->values;
        if (c->n < 0 && (c->start < -s || c->start >= s))
            return 0;
        for (int64_t j = 0; j < n; j++) {
            /* a range's entries in unsigned arithmetic: the first and last fit (range_coord),
             * so every one does, but j step alone need not */
            int64_t i = v ? v[j]
                        : c->n < 0
                            ? c->start
                            : (int64_t)((uint64_t)c->start + (uint64_t)j * (uint64_t)c->step);
            bad |= (uint64_t)(i < -s) | (uint64_t)(i >= s);
            f[j] = f[j] * (uint64_t)s + (uint64_t)(i < 0 ? i + s : i);
        }
    }
    return !bad;
}

/* The work of a read or a write at key's coordinates. */
typedef struct coords_op {
    const pdt_tensor *x, *value; /* value: NULL for a read */
    int accumulate;
    pdt_tensor *out; /* a read's result */
} coords_op;

/* flat's rows of x read into a new tensor, or value written (added) at them */
static pdt_status coords_move(const coords_op *op, int k, const pdt_tensor *flat)
{
    const pdt_tensor *x = op->x;
    pdt_tensor rows = pdt_merged_rows(x, k);
    int64_t shape[PDT_MAX_DIMS];
    memcpy(shape, rows.shape, (size_t)rows.ndim * sizeof *shape);
    shape[0] = flat->shape[0];
    pdt_status st;
    if (op->value) { /* the values broadcast to the selection's shape, (n,) then x's rest */
        pdt_tensor src;
        if (pdt_expand("index_put", op->value, rows.ndim, shape, &src) != PDT_OK)
            return PDT_ERR_UNSUPPORTED; /* the Python path's message names the key's shape */
        PDT_RUN_RELEASING_GIL(pdt_tensor_numel(&src),
                              st = op->accumulate ? pdt_index_add(&rows, 0, flat, &src, 0)
                                                  : pdt_index_put(&rows, 0, flat, &src, 0));
        pdt_tensor_release(&src);
        return st;
    }
    st = pdt_tensor_empty(x->device, x->dtype, rows.ndim, shape, 0, op->out);
    if (st != PDT_OK)
        return st;
    PDT_RUN_RELEASING_GIL(pdt_tensor_numel(op->out),
                          st = pdt_index_select_as("index", op->out, &rows, 0, flat, 0, 0));
    if (st != PDT_OK)
        pdt_tensor_release(op->out);
    return st;
}

/* op at key's coordinates; PDT_ERR_UNSUPPORTED (nothing made or written, no error) for
 * the keys this file does not take and for entries out of range. */
static pdt_status coords_run(pdt_state *S, coords_op op, PyObject *key)
{
    coord cs[PDT_MAX_DIMS];
    memset(cs, 0, sizeof cs);
    int k = 0;
    int64_t n = 0;
    pdt_status st = PDT_ERR_UNSUPPORTED;
    if (parse_key(S, op.x, key, cs, &k, &n) &&
        (!op.value || pdt_device_eq(op.value->device, op.x->device))) {
        pdt_hold h; /* Note [the GIL and storages] */
        h.n = 0;
        op.x = pdt_hold_view(&h, op.x);
        if (op.value)
            op.value = pdt_hold_view(&h, op.value);
        for (int d = 0; d < k; d++)
            if (cs[d].t)
                cs[d].t = pdt_hold_view(&h, cs[d].t);
        pdt_tensor flat;
        st = pdt_tensor_empty(op.x->device, PDT_INT64, 1, &n, 0, &flat);
        if (st == PDT_OK) {
            int ok = 0;
            PDT_RUN_RELEASING_GIL(n,
                                  ok = fill_flat(op.x, cs, k, n, (int64_t *)pdt_tensor_ptr(&flat)));
            st = ok ? coords_move(&op, k, &flat) : PDT_ERR_UNSUPPORTED;
            pdt_tensor_release(&flat);
        }
        pdt_hold_release(&h);
    }
    for (int d = 0; d < PDT_MAX_DIMS; d++)
        PyMem_Free(cs[d].values);
    return st;
}

PyObject *pdt_coords_subscript(pdt_state *S, PyObject *self, PyObject *key)
{
    pdt_tensor out;
    coords_op op = {pdt_tensor_of(self), NULL, 0, &out};
    pdt_status st = coords_run(S, op, key);
    if (st == PDT_OK)
        return pdt_tensor_wrap_new(S, &out);
    return st == PDT_ERR_UNSUPPORTED ? NULL : pdt_raise(S, st);
}

/* _coords_select(x, key) -> x[key] for the keys of Note [coordinates in C], whatever x's
 * requires_grad (the recorded path calls it with grad mode off); None for the others. */
static PyObject *f_coords_select(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = pdt_state_of_module(module);
    if (nargs != 2 || !PyObject_TypeCheck(args[0], S->tensor_type)) {
        PyErr_SetString(PyExc_TypeError, "_coords_select(x, key): x must be a Tensor");
        return NULL;
    }
    PyObject *r = pdt_coords_subscript(S, args[0], args[1]);
    return r || PyErr_Occurred() ? r : Py_NewRef(Py_None);
}

int pdt_coords_put(pdt_state *S, PyObject *self, PyObject *key, const pdt_tensor *value)
{
    coords_op op = {pdt_tensor_of(self), value, 0, NULL};
    return pdt_write_done(S, self, coords_run(S, op, key));
}

/* _coords_put(x, key, value, accumulate) -> True once x[key] = value (+= with
 * accumulate: a repeated coordinate adds each value) for the keys of Note [coordinates
 * in C], value a Tensor of x's dtype broadcast to the selection; None for other keys,
 * values and dtypes, with x unchanged (the Python path takes them, with its errors). */
static PyObject *f_coords_put(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = pdt_state_of_module(module);
    int accumulate = nargs == 4 ? PyObject_IsTrue(args[3]) : -1;
    if (accumulate < 0 || !PyObject_TypeCheck(args[0], S->tensor_type) ||
        !PyObject_TypeCheck(args[2], S->tensor_type)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "_coords_put(x, key, value, accumulate)");
        return NULL;
    }
    const pdt_tensor *x = pdt_tensor_of(args[0]), *v = pdt_tensor_of(args[2]);
    pdt_dtype dt = x->dtype;
    if (v->dtype != dt || (accumulate && dt != PDT_FLOAT32 && dt != PDT_FLOAT64 &&
                           dt != PDT_INT32 && dt != PDT_INT64))
        Py_RETURN_NONE;
    if (pdt_refuse_unrecorded_write("index_put_", args[0], args[2]) < 0)
        return NULL;
    coords_op op = {x, v, accumulate, NULL};
    int r = pdt_write_done(S, args[0], coords_run(S, op, args[1]));
    return r < 0 ? NULL : Py_NewRef(r ? Py_True : Py_None);
}

PyMethodDef pdt_coords_functions[] = {
    {"_coords_select", (PyCFunction)(void (*)(void))f_coords_select, METH_FASTCALL, NULL},
    {"_coords_put", (PyCFunction)(void (*)(void))f_coords_put, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};
