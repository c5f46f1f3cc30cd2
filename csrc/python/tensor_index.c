/* tensor_index.c - the private module functions behind issue 17's everyday
 * API: _where_fast, _index_select(_fast), _index_put, _index_check, _sort, _cumsum and
 * _expand.  pydevtensor/_ops_index.py, _ops_sort.py and _ops_join.py build the
 * public functions and methods (with PyTorch's signatures) on top of these;
 * the core (pdt_index.h) validates and does the work. */
#include <string.h>

#include "args.h"
#include "pdt_index.h"
#include "pdt_index_errors.h"
#include "pdt_linalg.h"
#include "pdt_ops.h"
#include "pdt_view.h"
#include "wide_ints.h"

/* Parses n tensors (and the extra format) from args; 0 or -1. */
static pdt_state *state(PyObject *module) { return pdt_state_of_module(module); }

/* Runs the core call between holding and releasing views of the tensors. */
#define HOLD(h, x) ((x) = pdt_hold_view(&(h), (x)))

/* _index_select(out, src, dim, index, negative_ok=True, deferred_ok=False, op=None)
 * (op: the name its errors give, "index_select" by default),
 * _index_put(dst, dim, index, values, deferred_ok=False) and _index_add(dst, dim,
 * index, values, deferred_ok=False) (put 0, 1, 2): the tensors in the order the
 * core takes them (put and add: dim comes second; they take negative indices).
 * deferred_ok: out or dst is a tensor the caller has just made, so its index
 * may be checked on the device (Note [deferred index checks] in pdt_index.h). */
static PyObject *index_move(PyObject *module, PyObject *args, int put)
{
    pdt_state *S = state(module);
    PyObject *p[3];
    long long dim;
    int negative_ok = 1, deferred_ok = 0;
    const char *op = "index_select";
    int ok = put ? PyArg_ParseTuple(args,
                                    put == 2 ? "O!LO!O!|p:_index_add" : "O!LO!O!|p:_index_put",
                                    S->tensor_type, &p[0], &dim, S->tensor_type, &p[1],
                                    S->tensor_type, &p[2], &deferred_ok)
                 : PyArg_ParseTuple(args, "O!O!LO!|pps:_index_select", S->tensor_type, &p[0],
                                    S->tensor_type, &p[2], &dim, S->tensor_type, &p[1],
                                    &negative_ok, &deferred_ok, &op);
    if (!ok || (put && pdt_refuse_unrecorded_write(put == 2 ? "_index_add" : "_index_put", p[0],
                                                   p[2]) < 0))
        return NULL;
    pdt_hold h;
    h.n = 0;
    const pdt_tensor *first = pdt_tensor_of(p[0]), *index = pdt_tensor_of(p[1]),
                     *other = pdt_tensor_of(p[2]);
    HOLD(h, first), HOLD(h, index), HOLD(h, other);
    pdt_status st = put == 2 ? pdt_index_add(first, dim, index, other, deferred_ok)
                    : put    ? pdt_index_put(first, dim, index, other, deferred_ok)
                             : pdt_index_select_as(op, first, other, dim, index, negative_ok,
                                                   deferred_ok);
    /* dst changed in place: autograd's saved-tensor checks see it.  On an IndexError too:
     * an index another thread wrote out of range mid-op fails it after the other adds or
     * puts have landed (Note [index_add of a vector] in csrc/cpu/cpu_index.c), and a bump
     * where nothing changed costs at most a refused backward, never a silent one. */
    if (put && (st == PDT_OK || st == PDT_ERR_INDEX))
        pdt_bump_version(p[0]);
    return pdt_hold_done(S, &h, st);
}

static PyObject *f_index_select(PyObject *module, PyObject *args)
{
    return index_move(module, args, 0);
}

static PyObject *f_index_put(PyObject *module, PyObject *args)
{
    return index_move(module, args, 1);
}

static PyObject *f_index_add(PyObject *module, PyObject *args)
{
    return index_move(module, args, 2);
}

/* _index_check(index, size, dim, op, negative_ok=True, deferred_ok=False):
 * IndexError unless -size <= index < size (0 <= index < size without
 * negative_ok); deferred_ok: the caller only reads through the index into a
 * new tensor, so on a GPU the check may run on the device and report at the
 * next synchronisation (Note [deferred index checks] in pdt_index.h). */
static PyObject *f_index_check(PyObject *module, PyObject *args)
{
    pdt_state *S = state(module);
    PyObject *ix;
    long long size;
    int dim;
    const char *op;
    int negative_ok = 1, deferred_ok = 0;
    if (!PyArg_ParseTuple(args, "O!Lis|pp:_index_check", S->tensor_type, &ix, &size, &dim, &op,
                          &negative_ok, &deferred_ok))
        return NULL;
    pdt_hold h;
    h.n = 0;
    const pdt_tensor *ti = pdt_tensor_of(ix);
    HOLD(h, ti);
    return pdt_hold_done(S, &h, pdt_index_check(op, ti, size, dim, negative_ok, deferred_ok));
}

/* _set_index_checks(on_device) and _get_index_checks() -> bool: where deferrable
 * index checks run (pdt_index_errors.h; pydevtensor.config.set_index_checks). */
static PyObject *f_set_index_checks(PyObject *module, PyObject *arg)
{
    (void)module;
    const int on = PyObject_IsTrue(arg);
    if (on < 0)
        return NULL;
    pdt_set_index_checks_on_device(on);
    Py_RETURN_NONE;
}

static PyObject *f_get_index_checks(PyObject *module, PyObject *unused)
{
    (void)module, (void)unused;
    return PyBool_FromLong(pdt_index_checks_on_device());
}

/* Wraps a new tensor, or raises; out is consumed either way. */
static PyObject *wrap_or_raise(pdt_state *S, pdt_status st, pdt_tensor *out)
{
    return st == PDT_OK ? pdt_tensor_wrap_new(S, out) : pdt_raise(S, st);
}

/* _sort(x, descending) -> (values, indices), along the last dim. */
static PyObject *f_sort(PyObject *module, PyObject *args)
{
    pdt_state *S = state(module);
    PyObject *x;
    int descending;
    if (!PyArg_ParseTuple(args, "O!p:_sort", S->tensor_type, &x, &descending))
        return NULL;
    pdt_hold h;
    h.n = 0;
    const pdt_tensor *tx = pdt_tensor_of(x);
    HOLD(h, tx);
    pdt_tensor v, i;
    pdt_status st;
    if (pdt_tensor_numel(tx) > PDT_GIL_RELEASE_NUMEL) {
        Py_BEGIN_ALLOW_THREADS
        st = pdt_sort(tx, descending, &v, &i);
        Py_END_ALLOW_THREADS
    } else {
        st = pdt_sort(tx, descending, &v, &i);
    }
    pdt_hold_release(&h);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    return pdt_tensor_wrap_pair(S, &v, &i);
}

/* _cumsum(x) -> a new tensor, along the last dim. */
static PyObject *f_cumsum(PyObject *module, PyObject *args)
{
    pdt_state *S = state(module);
    PyObject *x;
    if (!PyArg_ParseTuple(args, "O!:_cumsum", S->tensor_type, &x))
        return NULL;
    pdt_hold h;
    h.n = 0;
    const pdt_tensor *tx = pdt_tensor_of(x);
    HOLD(h, tx);
    pdt_tensor out;
    pdt_status st = pdt_cumsum(tx, &out);
    pdt_hold_release(&h);
    return wrap_or_raise(S, st, &out);
}

/* the mask's bytes at a test's positions flipped (pdt_mask_op) */
typedef struct {
    uint8_t *m;
    const int64_t *at;
    int64_t n;
} mask_flips;

static void flip_mask(void *arg)
{
    const mask_flips *f = arg;
    for (int64_t i = 0; i < f->n; i++)
        f->m[f->at[i]] = !f->m[f->at[i]];
}

/* nonzero (x NULL) or x[mask] by the core's kernel, None when the device has none;
 * flip: None, or a test's contiguous int64 positions of the contiguous mask flipped
 * between the kernel's count and its write */
static PyObject *mask_op(pdt_state *S, PyObject *x, PyObject *m, PyObject *flip)
{
    const pdt_tensor *tx = x ? pdt_tensor_of(x) : NULL, *tm = pdt_tensor_of(m), *tf = NULL;
    mask_flips f = {NULL, NULL, 0};
    if (flip != Py_None) {
        tf = PyObject_TypeCheck(flip, S->tensor_type) ? pdt_tensor_of(flip) : NULL;
        if (!tf || tf->dtype != PDT_INT64 || tf->ndim != 1 || !pdt_tensor_is_contiguous(tf) ||
            tf->device.kind != PDT_CPU || tm->device.kind != PDT_CPU || tm->dtype != PDT_BOOL ||
            !pdt_tensor_is_contiguous(tm)) {
            PyErr_SetString(PyExc_TypeError, "flip: a contiguous 1-D int64 CPU tensor, of "
                                             "positions in a contiguous bool CPU mask");
            return NULL;
        }
        f.m = (uint8_t *)pdt_tensor_ptr(tm), f.at = (const int64_t *)pdt_tensor_ptr(tf);
        f.n = tf->shape[0];
        for (int64_t i = 0; i < f.n; i++)
            if (f.at[i] < 0 || f.at[i] >= pdt_tensor_numel(tm)) {
                PyErr_Format(PyExc_IndexError, "flip: position %lld outside the mask's %lld",
                             (long long)f.at[i], (long long)pdt_tensor_numel(tm));
                return NULL;
            }
    }
    pdt_hold h;
    h.n = 0;
    if (tx)
        HOLD(h, tx);
    HOLD(h, tm);
    if (tf)
        HOLD(h, tf);
    pdt_tensor out;
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_mask_op(tx, tm, f.n ? flip_mask : NULL, &f, &out);
    Py_END_ALLOW_THREADS
    pdt_hold_release(&h);
    if (st == PDT_ERR_UNSUPPORTED)
        Py_RETURN_NONE;
    return wrap_or_raise(S, st, &out);
}

/* _nonzero(mask[, flip]) -> the (count, ndim) int64 coordinates of mask's true
 * elements, or None when mask's device has no kernel for it (the caller composes
 * it).  mask: bool, ndim >= 1. */
static PyObject *f_nonzero(PyObject *module, PyObject *args)
{
    pdt_state *S = state(module);
    PyObject *m, *flip = Py_None;
    if (!PyArg_ParseTuple(args, "O!|O:_nonzero", S->tensor_type, &m, &flip))
        return NULL;
    return mask_op(S, NULL, m, flip);
}

/* _compress(x, mask[, flip]) -> x's rows at mask's true elements (x[mask] for a 1-D
 * mask over x's first dim; both contiguous, on one device), or None when x's device
 * has no kernel for it.  For the tests of the kernel. */
static PyObject *f_compress(PyObject *module, PyObject *args)
{
    pdt_state *S = state(module);
    PyObject *x, *m, *flip = Py_None;
    if (!PyArg_ParseTuple(args, "O!O!|O:_compress", S->tensor_type, &x, S->tensor_type, &m, &flip))
        return NULL;
    return mask_op(S, x, m, flip);
}

/* _cat_fast(tensors, dim[, stack]) -> torch.cat of a list or tuple of tensors of
 * one dtype and device, at least one dim and the same sizes outside dim (dim an
 * int in range); with stack true, torch.stack: tensors of one shape, each joined
 * as if unsqueezed at dim (dim in [-ndim-1, ndim]).  None for anything else,
 * which cat() and stack() in pydevtensor/_ops_join.py then check, report and join
 * themselves, as they do when a tensor requires grad (with grad mode on: the
 * recorded path).  A cat of two 1000-element tensors took 7 us through that path
 * (NumPy's: 0.9); a stack of 256 3-element tensors (a DataLoader's collate) 0.67
 * ms (PyTorch's: 0.06).  Up to CAT_ON_STACK parts the views live on the C stack. */
#define CAT_ON_STACK 16
static PyObject *f_cat_fast(PyObject *module, PyObject *args)
{
    pdt_state *S = state(module);
    PyObject *seq, *dim_obj;
    int stack = 0;
    if (!PyArg_ParseTuple(args, "OO!|p:_cat_fast", &seq, &PyLong_Type, &dim_obj, &stack))
        return NULL;
    int overflow;
    long long d = PyLong_AsLongLongAndOverflow(dim_obj, &overflow);
    if (overflow || (!PyList_CheckExact(seq) && !PyTuple_CheckExact(seq)))
        Py_RETURN_NONE; /* a dim out of any range: the Python path reports it */
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    if (n < 1 || n > INT_MAX || (pdt_arg_requires_grad(seq) && pdt_grad_enabled()))
        Py_RETURN_NONE; /* autograd: the recorded path */
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyObject_TypeCheck(items[i], S->tensor_type))
            Py_RETURN_NONE;
    const pdt_tensor *ref = pdt_tensor_of(items[0]);
    int ndim = ref->ndim + stack; /* the joined tensors' ndim */
    if (ndim < 1 || ndim > PDT_MAX_DIMS || d < -ndim || d >= ndim)
        Py_RETURN_NONE;
    int dim = (int)(d < 0 ? d + ndim : d);
    for (Py_ssize_t i = 0; i < n; i++) {
        const pdt_tensor *t = pdt_tensor_of(items[i]);
        if (t->dtype != ref->dtype || !pdt_device_eq(t->device, ref->device) ||
            t->ndim != ref->ndim || (!stack && ndim == 1 && t->shape[0] == 0))
            Py_RETURN_NONE;
        for (int k = 0; k < ref->ndim; k++)
            if ((stack || k != dim) && t->shape[k] != ref->shape[k])
                Py_RETURN_NONE;
    }
    /* views of our own for the call (Note [the GIL and storages]); for stack each
     * one gains a size-1 dim at dim */
    pdt_tensor held_small[CAT_ON_STACK];
    const pdt_tensor *hv_small[CAT_ON_STACK];
    pdt_tensor *held = held_small;
    const pdt_tensor **hv = hv_small;
    if (n > CAT_ON_STACK) {
        held = PyMem_Malloc((size_t)n * sizeof *held);
        hv = PyMem_Malloc((size_t)n * sizeof *hv);
        if (!held || !hv) {
            PyMem_Free(held);
            PyMem_Free(hv);
            return PyErr_NoMemory();
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        pdt_tensor_share(&held[i], pdt_tensor_of(items[i]));
        if (stack)
            pdt_insert_dim(&held[i], dim);
        hv[i] = &held[i];
    }
    pdt_tensor out;
    pdt_status st = pdt_cat_checked((int)n, hv, dim, &out);
    for (Py_ssize_t i = 0; i < n; i++)
        pdt_tensor_release(&held[i]);
    if (held != held_small) {
        PyMem_Free(held);
        PyMem_Free(hv);
    }
    return wrap_or_raise(S, st, &out);
}

/* A Python bool's (0), int's (1) or float's (2) category, the order in which a
 * number may lift a tensor's dtype (result_type in _ops_index.py); -1 for
 * anything else (a NumPy scalar, a complex: the Python path decides). */
/* _where_fast(cond, a, b, masked) -> where(cond, a, b), or with masked
 * masked_fill(b, cond, a), in one call; None where the call needs the Python path
 * (_ops_index.py): autograd, cond not a bool tensor, two dtypes, a number that
 * would change the dtype (where only; masked_fill casts it), anything else than
 * tensors and Python numbers, and for masked_fill a value that is not a number
 * or a 0-d tensor, a mask that widens b or one on another device.  A number
 * becomes a 0-d tensor of the other operand's dtype and device, as the Python
 * path's _as_tensor makes it. */
static PyObject *f_where_fast(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = state(module);
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "_where_fast(cond, a, b, masked)");
        return NULL;
    }
    PyObject *c = args[0], *a = args[1], *b = args[2];
    int masked = PyObject_IsTrue(args[3]);
    if (masked < 0)
        return NULL;
    int ta = PyObject_TypeCheck(a, S->tensor_type), tb = PyObject_TypeCheck(b, S->tensor_type);
    if (!PyObject_TypeCheck(c, S->tensor_type) || pdt_tensor_of(c)->dtype != PDT_BOOL ||
        (!ta && !tb) || (masked && (!tb || (ta && pdt_tensor_of(a)->ndim != 0))) ||
        pdt_autograd_wanted(NULL, args, 3, NULL))
        Py_RETURN_NONE;
    const pdt_tensor *tc = pdt_tensor_of(c);
    const pdt_tensor *t = pdt_tensor_of(tb ? b : a); /* a tensor operand */
    if (masked && !pdt_device_eq(tc->device, t->device))
        Py_RETURN_NONE; /* masked_fill's own error, naming the mask, from the Python path */
    pdt_tensor number;
    int made = 0;
    if (ta && tb) {
        if (pdt_tensor_of(a)->dtype != t->dtype)
            Py_RETURN_NONE;
    } else {
        PyObject *x = ta ? b : a;
        int k = pdt_number_category(x);
        if (k < 0 || (!masked && k > pdt_dtype_category(t->dtype)))
            Py_RETURN_NONE;
        /* where's number rounds to inf past a float16 or bfloat16 dtype's range
         * (where(h > 1, h, 1e5)), as PyTorch's does; otherwise, and for masked_fill's
         * written value, a number the dtype cannot hold is refused (PyTorch too) */
        const int operand = !masked && pdt_dtype_is_half(t->dtype);
        pdt_scalar v;
        if (pdt_parse_number_into(x, masked ? "masked_fill(): value" : "where()", t, &v) < 0 ||
            (!operand && pdt_number_refused(S, masked ? "masked_fill" : "where", v, t) < 0))
            return NULL;
        pdt_status st = pdt_tensor_empty(t->device, t->dtype, 0, NULL, 0, &number);
        if (st == PDT_OK && (st = operand ? pdt_fill_operand(&number, v) : pdt_fill(&number, v)))
            pdt_tensor_release(&number);
        if (st != PDT_OK)
            return pdt_raise(S, st);
        made = 1;
    }
    pdt_hold h; /* Note [the GIL and storages] */
    h.n = 0;
    const pdt_tensor *va = ta ? pdt_hold_view(&h, pdt_tensor_of(a)) : &number;
    const pdt_tensor *vb = tb ? pdt_hold_view(&h, pdt_tensor_of(b)) : &number;
    tc = pdt_hold_view(&h, tc);
    int ndim = 0;
    int64_t shape[PDT_MAX_DIMS];
    pdt_tensor out;
    int64_t n = 0; /* the result's size, for the GIL */
    pdt_status st = pdt_where_shape(tc, va, vb, &ndim, shape);
    if (masked && (st != PDT_OK || ndim != vb->ndim ||
                   memcmp(shape, vb->shape, (size_t)ndim * sizeof *shape) != 0)) {
        /* shapes that do not broadcast, or a mask that widens x: masked_fill's own
         * error, from the Python path, before anything is allocated */
        pdt_hold_release(&h);
        if (made)
            pdt_tensor_release(&number);
        Py_RETURN_NONE;
    }
    if (st == PDT_OK)
        st = pdt_check_shape(ndim, shape, va->dtype, &n);
    if (st == PDT_OK)
        PDT_RUN_RELEASING_GIL(n, st = pdt_where_new(tc, va, vb, ndim, shape, masked, &out));
    pdt_hold_release(&h);
    if (made)
        pdt_tensor_release(&number);
    return wrap_or_raise(S, st, &out);
}

pdt_status pdt_index_select_new(const char *op, const pdt_tensor *x, int dim,
                                const pdt_tensor *index, int negative_ok, pdt_tensor *out)
{
    int64_t shape[PDT_MAX_DIMS];
    memcpy(shape, x->shape, (size_t)x->ndim * sizeof *shape);
    shape[dim] = index->shape[0];
    pdt_hold h; /* Note [the GIL and storages] */
    h.n = 0;
    x = pdt_hold_view(&h, x), index = pdt_hold_view(&h, index);
    pdt_status st = pdt_tensor_empty(x->device, x->dtype, x->ndim, shape, 0, out);
    if (st == PDT_OK) {
        PDT_RUN_RELEASING_GIL(pdt_tensor_numel(out),
                              st = pdt_index_select_as(op, out, x, dim, index, negative_ok, 1));
        if (st != PDT_OK)
            pdt_tensor_release(out);
    }
    pdt_hold_release(&h);
    return st;
}

/* Note [masks in C]
 * ~~~~~~~~~~~~~~~~~~
 * x[mask] through the Python path (pydevtensor/_ops_getitem.py: a sum read back, then the
 * positions from a cumsum, a where, an arange and an index_put, then index_select) took
 * 5.6 us for one element and 11.5 for 1,000 float32 (NumPy 0.28 and 2.2).  For a
 * contiguous bool mask over the leading dims of a contiguous x, x not requiring grad, on
 * a device whose backend has a compress kernel (the CPU), the subscript takes it here:
 * x's rows (the leading dims merged) at the mask's true bytes, by the backend's
 * compress, which counts them (Note [compress on the CPU] in cpu_nonzero.c). */
pdt_status pdt_mask_rows_new(const pdt_tensor *x, const pdt_tensor *mask, pdt_tensor *out)
{
    memset(out, 0, sizeof *out);
    const int k = mask->ndim;
    if (x->device.kind != PDT_CPU || !pdt_device_eq(x->device, mask->device) ||
        mask->dtype != PDT_BOOL || k < 1 || k > x->ndim || !pdt_tensor_is_contiguous(mask) ||
        !pdt_tensor_is_contiguous(x) || memcmp(x->shape, mask->shape, (size_t)k * sizeof *x->shape))
        return PDT_ERR_UNSUPPORTED;
    const int64_t n = pdt_tensor_numel(mask);
    pdt_hold h; /* Note [the GIL and storages] */
    h.n = 0;
    x = pdt_hold_view(&h, x), mask = pdt_hold_view(&h, mask);
    pdt_tensor flat = *mask, rows = pdt_merged_rows(x, k);
    flat.ndim = 1, flat.shape[0] = n, flat.strides[0] = 1;
    pdt_status st;
    /* the mask's bytes are read even where x's rows are empty */
    PDT_RUN_RELEASING_GIL(n > pdt_tensor_numel(x) ? n : pdt_tensor_numel(x),
                          st = pdt_compress(&rows, &flat, out));
    pdt_hold_release(&h);
    return st;
}

/* _index_select_fast(x, dim, index, negative_ok) -> index_select(x, dim, index),
 * a new contiguous tensor, in one call; None where index_select() in _ops_index.py
 * decides: autograd, a 0-d x, dim not an int in range, an index that is not a
 * contiguous 1-d int64 tensor.  negative_ok: indices from the end (not
 * index_select's, as PyTorch).  (64 rows of 64 float32 through the Python path:
 * 7.4-8.5 us, NumPy's take 2.8.) */
static PyObject *f_index_select_fast(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = state(module);
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "_index_select_fast(x, dim, index, negative_ok)");
        return NULL;
    }
    const int negative_ok = PyObject_IsTrue(args[3]);
    if (negative_ok < 0)
        return NULL;
    if (!PyObject_TypeCheck(args[0], S->tensor_type) ||
        !PyObject_TypeCheck(args[2], S->tensor_type) || !PyLong_CheckExact(args[1]) ||
        pdt_autograd_wanted(NULL, args, 3, NULL))
        Py_RETURN_NONE;
    const pdt_tensor *x = pdt_tensor_of(args[0]), *ix = pdt_tensor_of(args[2]);
    int overflow = 0;
    long long d = PyLong_AsLongLongAndOverflow(args[1], &overflow);
    if (overflow || x->ndim == 0 || d < -x->ndim || d >= x->ndim || !pdt_index_is_vector(ix))
        Py_RETURN_NONE;
    d += d < 0 ? x->ndim : 0;
    pdt_tensor out;
    return wrap_or_raise(S, pdt_index_select_new("index_select", x, (int)d, ix, negative_ok, &out),
                         &out);
}

/* _flip_fast(x, dims) -> flip(x, dims), a new contiguous tensor, in one call;
 * None where flip() in _ops_join.py decides: autograd, a 0-d x, dims that are
 * not an int or a list or tuple of ints in range, or a dim named twice. */
static PyObject *f_flip_fast(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = state(module);
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_flip_fast(x, dims)");
        return NULL;
    }
    if (!PyObject_TypeCheck(args[0], S->tensor_type) || pdt_autograd_wanted(NULL, args, 1, NULL))
        Py_RETURN_NONE;
    const pdt_tensor *t = pdt_tensor_of(args[0]);
    PyObject *const *items = &args[1];
    Py_ssize_t n = 1;
    if (PyList_CheckExact(args[1]) || PyTuple_CheckExact(args[1])) {
        n = PySequence_Fast_GET_SIZE(args[1]);
        items = PySequence_Fast_ITEMS(args[1]);
    }
    uint32_t dims = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int overflow = 0;
        long long d = PyLong_CheckExact(items[i])
                          ? PyLong_AsLongLongAndOverflow(items[i], &overflow)
                          : LLONG_MAX;
        if (overflow || d < -t->ndim || d >= t->ndim)
            Py_RETURN_NONE; /* also every dim of a 0-d x */
        d += d < 0 ? t->ndim : 0;
        if (dims >> d & 1u)
            Py_RETURN_NONE;
        dims |= 1u << d;
    }
    pdt_tensor view, out; /* the view holds the storage: Note [the GIL and storages] */
    pdt_flip_view(t, dims, &view);
    pdt_status st;
    PDT_RUN_RELEASING_GIL(pdt_tensor_numel(&view),
                          st = pdt_copy_to_new(&view, view.device, view.dtype, 0, 0, &out));
    pdt_tensor_release(&view);
    return wrap_or_raise(S, st, &out);
}

/* _expand(x, shape) -> a view of x broadcast to shape (stride 0 where it grows). */
static PyObject *f_expand(PyObject *module, PyObject *args)
{
    pdt_state *S = state(module);
    PyObject *x, *shape_obj;
    if (!PyArg_ParseTuple(args, "O!O!:_expand", S->tensor_type, &x, &PyTuple_Type, &shape_obj))
        return NULL;
    int ndim;
    int64_t shape[PDT_MAX_DIMS];
    if (pdt_parse_sizes(&PyTuple_GET_ITEM(shape_obj, 0), PyTuple_GET_SIZE(shape_obj), &ndim, shape,
                        "expand") < 0)
        return NULL;
    pdt_tensor out;
    pdt_hold h = {0}; /* Note [the GIL and storages]: the core notes the op (Python) */
    pdt_status st = pdt_expand("expand", pdt_hold_view(&h, pdt_tensor_of(x)), ndim, shape, &out);
    pdt_hold_release(&h);
    PyObject *r = wrap_or_raise(S, st, &out);
    pdt_mark_view(r, x); /* Note [views and their base] */
    return r;
}

/* _diagonal(x, offset, dim1, dim2) -> the view of x's diagonal (diagonal() in
 * _ops_diag.py checks the arguments and records the gradient). */
static PyObject *f_diagonal(PyObject *module, PyObject *args)
{
    pdt_state *S = state(module);
    PyObject *x;
    long long offset, dim1, dim2;
    if (!PyArg_ParseTuple(args, "O!LLL:_diagonal", S->tensor_type, &x, &offset, &dim1, &dim2))
        return NULL;
    pdt_tensor out;
    pdt_hold h = {0}; /* Note [the GIL and storages]: the core notes the op (Python) */
    pdt_status st = pdt_diagonal_view(pdt_hold_view(&h, pdt_tensor_of(x)), offset, dim1, dim2,
                                      &out);
    pdt_hold_release(&h);
    PyObject *r = wrap_or_raise(S, st, &out);
    pdt_mark_view(r, x); /* Note [views and their base] */
    return r;
}

/* _as_strided(x, size, stride, storage_offset): the core's strided view; the
 * Python wrapper (_ops_strided.py) checks the argument types. */
static PyObject *f_as_strided(PyObject *module, PyObject *args)
{
    pdt_state *S = state(module);
    PyObject *x, *size, *stride;
    long long offset;
    if (!PyArg_ParseTuple(args, "O!O!O!L:_as_strided", S->tensor_type, &x, &PyTuple_Type, &size,
                          &PyTuple_Type, &stride, &offset))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(size);
    if (n != PyTuple_GET_SIZE(stride) || n > PDT_MAX_DIMS) {
        PyErr_Format(S->InvalidArgumentError, /* a ValueError and, as PyTorch's, a RuntimeError */
                     "as_strided(): mismatch in length of strides and shape (%zd sizes, %zd "
                     "strides; at most %d)",
                     n, PyTuple_GET_SIZE(stride), PDT_MAX_DIMS);
        return NULL;
    }
    int64_t shape[PDT_MAX_DIMS], strides[PDT_MAX_DIMS];
    for (Py_ssize_t i = 0; i < n; i++) {
        shape[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(size, i));
        strides[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(stride, i));
        if (PyErr_Occurred())
            return NULL;
    }
    pdt_tensor out;
    pdt_hold h = {0}; /* Note [the GIL and storages]: the core notes the op (Python) */
    pdt_status st = pdt_as_strided_view(pdt_hold_view(&h, pdt_tensor_of(x)), (int)n, shape, strides,
                                        offset, &out);
    pdt_hold_release(&h);
    PyObject *r = wrap_or_raise(S, st, &out);
    pdt_mark_view(r, x); /* Note [views and their base] */
    return r;
}

/* _unfold(x, dim, size, step): the core's window view (pdt_unfold_view); the Python
 * wrapper (_ops_strided.py) checks the arguments. */
static PyObject *f_unfold(PyObject *module, PyObject *args)
{
    pdt_state *S = state(module);
    PyObject *x;
    int dim;
    long long size, step;
    if (!PyArg_ParseTuple(args, "O!iLL:_unfold", S->tensor_type, &x, &dim, &size, &step))
        return NULL;
    pdt_tensor out;
    pdt_hold h = {0}; /* Note [the GIL and storages]: the core notes the op (Python) */
    pdt_status st = pdt_unfold_view(pdt_hold_view(&h, pdt_tensor_of(x)), dim, size, step, &out);
    pdt_hold_release(&h);
    PyObject *r = wrap_or_raise(S, st, &out);
    pdt_mark_view(r, x); /* Note [views and their base] */
    return r;
}

PyMethodDef pdt_index_functions[] = {
    {"_as_strided", f_as_strided, METH_VARARGS, NULL},
    {"_unfold", f_unfold, METH_VARARGS, NULL},
    {"_diagonal", f_diagonal, METH_VARARGS, NULL},
    {"_where_fast", (PyCFunction)(void (*)(void))f_where_fast, METH_FASTCALL, NULL},
    {"_index_select", f_index_select, METH_VARARGS, NULL},
    {"_index_put", f_index_put, METH_VARARGS, NULL},
    {"_index_add", f_index_add, METH_VARARGS, NULL},
    {"_index_check", f_index_check, METH_VARARGS, NULL},
    {"_set_index_checks", f_set_index_checks, METH_O, NULL},
    {"_get_index_checks", f_get_index_checks, METH_NOARGS, NULL},
    {"_sort", f_sort, METH_VARARGS, NULL},
    {"_cumsum", f_cumsum, METH_VARARGS, NULL},
    {"_nonzero", f_nonzero, METH_VARARGS, NULL},
    {"_compress", f_compress, METH_VARARGS, NULL},
    {"_cat_fast", f_cat_fast, METH_VARARGS, NULL},
    {"_expand", f_expand, METH_VARARGS, NULL},
    {"_flip_fast", (PyCFunction)(void (*)(void))f_flip_fast, METH_FASTCALL, NULL},
    {"_index_select_fast", (PyCFunction)(void (*)(void))f_index_select_fast, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL},
};
