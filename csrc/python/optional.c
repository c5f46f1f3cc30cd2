/* optional.c - the bindings of the backend table's optional kernels
 * (csrc/core/pdt_optional.h): each returns the result, or None where x's device
 * has no such kernel or x is not an input it takes, and the Python caller then
 * composes the op.  No autograd: the callers record or check for it. */
#include "args.h"
#include "pdt_module.h"
#include "pdt_optional.h"

/* The new tensor *out, None where the device has no such kernel (the caller composes
 * it), or the error raised. */
static PyObject *result_or_none(pdt_state *S, pdt_status st, pdt_tensor *out)
{
    if (st == PDT_ERR_UNSUPPORTED)
        Py_RETURN_NONE;
    return st == PDT_OK ? pdt_tensor_wrap_new(S, out) : pdt_raise(S, st);
}

typedef pdt_status (*optional_fn)(const pdt_tensor *x, int arg, pdt_tensor *out);

/* fn(x, arg) on the Tensor x, its storage held and the GIL released for its elements
 * (Note [the GIL and storages]): the new tensor, None, or the error. */
static PyObject *call_one(pdt_state *S, PyObject *x, int arg, optional_fn fn)
{
    pdt_tensor out;
    pdt_status st;
    pdt_hold h;
    h.n = 0;
    const pdt_tensor *tx = pdt_hold_view(&h, pdt_tensor_of(x));
    PDT_RUN_RELEASING_GIL(pdt_tensor_numel(tx), st = fn(tx, arg, &out));
    pdt_hold_release(&h);
    return result_or_none(S, st, &out);
}

static PyObject *call(PyObject *module, PyObject *args, const char *format, optional_fn fn)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *x;
    int arg = 0;
    if (!PyArg_ParseTuple(args, format, S->tensor_type, &x, &arg))
        return NULL;
    return call_one(S, x, arg, fn);
}

typedef pdt_status (*pair_fn)(const pdt_tensor *a, const pdt_tensor *b, int arg, pdt_tensor *out);

/* fn(a, b, arg) on the Tensors a and b, their storages held and the GIL released for
 * b's elements (Note [the GIL and storages]): the new tensor, None, or the error. */
static PyObject *call_pair(pdt_state *S, PyObject *a, PyObject *b, int arg, pair_fn fn)
{
    pdt_tensor out;
    pdt_status st;
    pdt_hold h;
    h.n = 0;
    const pdt_tensor *ta = pdt_hold_view(&h, pdt_tensor_of(a));
    const pdt_tensor *tb = pdt_hold_view(&h, pdt_tensor_of(b));
    PDT_RUN_RELEASING_GIL(pdt_tensor_numel(tb), st = fn(ta, tb, arg, &out));
    pdt_hold_release(&h);
    return result_or_none(S, st, &out);
}

/* _softmax_rows(x, log) -> softmax (log False) or log_softmax (log True) of x along
 * its last dim in one pass over each row (Note [softmax rows] in
 * csrc/cpu/cpu_softmax.c), or None. */
static PyObject *f_softmax_rows(PyObject *module, PyObject *args)
{
    return call(module, args, "O!p:_softmax_rows", pdt_softmax_last);
}

/* _cumprod_rows(x) -> the running product of a float64 or int64 x along its last dim
 * (csrc/cpu/cpu_index.c), or None. */
static PyObject *f_cumprod_rows(PyObject *module, PyObject *args)
{
    return call(module, args, "O!|i:_cumprod_rows", pdt_cumprod_last);
}

/* _classify(x, which) -> isnan (0), isinf (1), isfinite (2) or signbit (3, the bit, of
 * a NaN too) of a floating x in one pass (csrc/cpu/cpu_classify.c), or None. */
static PyObject *f_classify(PyObject *module, PyObject *args)
{
    return call(module, args, "O!i:_classify", pdt_classify);
}

/* (values, indices) of topk (k >= 1) or of cummax/cummin (k 0) along x's last dim, or
 * None. */
static PyObject *pair(PyObject *module, PyObject *x, long long k, int largest)
{
    pdt_state *S = pdt_state_of_module(module);
    const pdt_tensor *tx = pdt_tensor_of(x);
    pdt_tensor values, indices;
    pdt_status st;
    pdt_hold h; /* Note [the GIL and storages] */
    h.n = 0;
    tx = pdt_hold_view(&h, tx);
    PDT_RUN_RELEASING_GIL(pdt_tensor_numel(tx),
                          st = k ? pdt_topk_last(tx, (int64_t)k, largest, &values, &indices)
                                 : pdt_cumextreme_last(tx, largest, &values, &indices));
    pdt_hold_release(&h);
    if (st == PDT_ERR_UNSUPPORTED)
        Py_RETURN_NONE;
    return st == PDT_OK ? pdt_tensor_wrap_pair(S, &values, &indices) : pdt_raise(S, st);
}

/* _topk_rows(x, k, largest) -> (values, indices) of topk along x's last dim by
 * selection (Note [top-k by selection] in csrc/cpu/cpu_topk.c), or None. */
static PyObject *f_topk_rows(PyObject *module, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *x;
    long long k;
    int largest;
    if (!PyArg_ParseTuple(args, "O!Lp:_topk_rows", S->tensor_type, &x, &k, &largest))
        return NULL;
    if (k < 1) /* refused by pdt_topk_last; 0 is cummax's here */
        Py_RETURN_NONE;
    return pair(module, x, k, largest);
}

/* _cumextreme_rows(x, largest) -> (values, indices) of cummax (largest True) or cummin
 * along x's last dim in one pass (csrc/cpu/cpu_cumextreme.c), or None. */
static PyObject *f_cumextreme_rows(PyObject *module, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *x;
    int largest;
    if (!PyArg_ParseTuple(args, "O!p:_cumextreme_rows", S->tensor_type, &x, &largest))
        return NULL;
    return pair(module, x, 0, largest);
}

/* _select_rows(x, rule, k) -> (values, indices) of the element at the position rule
 * says (PDT_SELECT_*: k, median's or nanmedian's) of each row of x's last dim in the
 * stable sort's order (Note [selection in sort order] in csrc/cpu/cpu_select.c), or
 * None. */
static PyObject *f_select_rows(PyObject *module, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *x;
    int rule;
    long long k;
    if (!PyArg_ParseTuple(args, "O!iL:_select_rows", S->tensor_type, &x, &rule, &k))
        return NULL;
    const pdt_tensor *tx = pdt_tensor_of(x);
    pdt_tensor values, indices;
    pdt_status st;
    pdt_hold h; /* Note [the GIL and storages] */
    h.n = 0;
    tx = pdt_hold_view(&h, tx);
    PDT_RUN_RELEASING_GIL(pdt_tensor_numel(tx),
                          st = pdt_select_last(tx, rule, (int64_t)k, &values, &indices));
    pdt_hold_release(&h);
    if (st == PDT_ERR_UNSUPPORTED)
        Py_RETURN_NONE;
    return st == PDT_OK ? pdt_tensor_wrap_pair(S, &values, &indices) : pdt_raise(S, st);
}

/* _search_rows(seq, values, mode) -> searchsorted of the 2-d values' rows in the 2-d
 * seq's (left 0, right 1) as int64, or isin (2) as bool (Note [searching sorted rows] in
 * csrc/cpu/cpu_search.c), or None. */
static PyObject *f_search_rows(PyObject *module, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *seq, *values;
    int mode;
    if (!PyArg_ParseTuple(args, "O!O!i:_search_rows", S->tensor_type, &seq, S->tensor_type, &values,
                          &mode))
        return NULL;
    return call_pair(S, seq, values, mode, pdt_search_rows);
}

/* _searchsorted(seq, values, right) -> the int64 positions of values (a Tensor of any
 * shape) in the 1-d seq (pdt_search_1d), or None for what searchsorted() composes: an
 * argument not exactly a Tensor, right not a bool, or what the kernel does not take
 * (another dtype or device, not contiguous).  1 value in 1,000: 0.30 us, 1.85 through
 * Python's checks and views (NumPy 1.0). */
static PyObject *f_searchsorted(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = pdt_state_of_module(module);
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "_searchsorted() takes 3 arguments (%zd given)", nargs);
        return NULL;
    }
    if (!Py_IS_TYPE(args[0], S->tensor_type) || !Py_IS_TYPE(args[1], S->tensor_type) ||
        !PyBool_Check(args[2]))
        Py_RETURN_NONE;
    const int mode = args[2] == Py_True ? PDT_SEARCH_RIGHT : PDT_SEARCH_LEFT;
    return call_pair(S, args[0], args[1], mode, pdt_search_1d);
}

/* repeat_interleave of the repeats r (total: their sum, PDT_REPEAT_SUM, or an output_size
 * to check) into positions, x's rows along dim 0 (x not NULL) or x's elements (flat): the
 * size first (pdt_repeat_total), then the result, each pass with the GIL released for
 * the elements it reads or writes (Note [the GIL and storages]), so that a few repeats
 * of many copies release it for the copies. */
static PyObject *repeat_run(pdt_state *S, PyObject *r, int64_t total, PyObject *x, int flat)
{
    pdt_tensor out;
    pdt_status st;
    pdt_hold h;
    h.n = 0;
    const pdt_tensor *tr = pdt_hold_view(&h, pdt_tensor_of(r));
    const pdt_tensor *tx = x ? pdt_hold_view(&h, pdt_tensor_of(x)) : NULL;
    const int64_t along = !tx ? -1 : flat ? pdt_tensor_numel(tx) : tx->ndim ? tx->shape[0] : -1;
    /* the caller's error to name, or its composed path: checked before the sum's pass, which
     * the core's own checks of x would otherwise follow (and the caller repeat) */
    if (tx && (tr->ndim != 1 || along != tr->shape[0] || !pdt_tensor_is_contiguous(tx) ||
               !pdt_device_eq(tx->device, tr->device))) {
        pdt_hold_release(&h);
        Py_RETURN_NONE;
    }
    PDT_RUN_RELEASING_GIL(pdt_tensor_numel(tr), st = pdt_repeat_total(tr, &total));
    if (st != PDT_OK) {
        pdt_hold_release(&h);
        return st == PDT_ERR_UNSUPPORTED ? Py_NewRef(Py_None) : pdt_raise(S, st);
    }
    /* the elements written: total rows of x's row length (saturated), or total */
    const int64_t row = !flat && tx && tx->ndim > 0 && tx->shape[0] > 0
                            ? pdt_tensor_numel(tx) / tx->shape[0]
                            : 1;
    const int64_t work = row > 0 && total > INT64_MAX / row ? INT64_MAX : total * row;
    PDT_RUN_RELEASING_GIL(work, st = flat ? pdt_repeat_flat(tx, tr, total, &out)
                                          : pdt_repeat_positions(tr, total, tx, &out));
    pdt_hold_release(&h);
    return result_or_none(S, st, &out);
}

/* _repeat_positions(repeats, total[, x]) -> repeat_interleave's (total,) int64 positions of
 * the contiguous 1-d int64 repeats (total -1: their sum), or given x (contiguous, at least
 * 1-d), x's rows repeated so along dim 0 (csrc/cpu/cpu_repeat.c); None where the device
 * has no kernel or x is not contiguous. */
static PyObject *f_repeat_positions(PyObject *module, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *r, *x = NULL;
    long long total;
    if (!PyArg_ParseTuple(args, "O!L|O!:_repeat_positions", S->tensor_type, &r, &total,
                          S->tensor_type, &x))
        return NULL;
    return repeat_run(S, r, total, x, 0);
}

/* _repeat_flat(x, repeats) -> repeat_interleave(x, repeats) with dim None, for a
 * contiguous x and contiguous (x.numel(),) int64 repeats on its device, their sum read
 * by the kernel; None for what the caller composes (x or repeats not a Tensor, or not
 * as above, or a device without the kernel).  Its caller sees to the gradient. */
static PyObject *f_repeat_flat(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = pdt_state_of_module(module);
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "_repeat_flat() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    if (!PyObject_TypeCheck(args[0], S->tensor_type) ||
        !PyObject_TypeCheck(args[1], S->tensor_type))
        Py_RETURN_NONE;
    return repeat_run(S, args[1], PDT_REPEAT_SUM, args[0], 1);
}

/* _bincount(x, weights, minlength) -> the int64 counts of the contiguous 1-d int32 or
 * int64 x (csrc/cpu/cpu_bincount.c), or None for what the caller composes: weights not
 * None, x not a Tensor, minlength not exactly an int in [0, 2^63), or a device
 * without the kernel (Note [bincount on the CPU]: bincount() calls this first, so its
 * checks are here rather than in Python). */
static PyObject *f_bincount(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    pdt_state *S = pdt_state_of_module(module);
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "_bincount() takes 3 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *x = args[0];
    if (!PyObject_TypeCheck(x, S->tensor_type) || args[1] != Py_None || !PyLong_CheckExact(args[2]))
        Py_RETURN_NONE;
    int overflow = 0;
    const long long minlength = PyLong_AsLongLongAndOverflow(args[2], &overflow);
    if (overflow || minlength < 0) /* -1 is an error only with one set */
        Py_RETURN_NONE;
    pdt_tensor out;
    pdt_status st;
    pdt_hold h; /* Note [the GIL and storages] */
    h.n = 0;
    const pdt_tensor *tx = pdt_hold_view(&h, pdt_tensor_of(x));
    PDT_RUN_RELEASING_GIL(pdt_tensor_numel(tx), st = pdt_bincount(tx, (int64_t)minlength, &out));
    pdt_hold_release(&h);
    return result_or_none(S, st, &out);
}

/* _count_nonzero(x) -> count_nonzero of all of the Tensor x, a 0-d int64 tensor
 * (csrc/cpu/cpu_count.c), or None for what the caller composes (x not a Tensor, not
 * contiguous, or on a device without the kernel). */
static pdt_status count_nonzero(const pdt_tensor *x, int unused, pdt_tensor *out)
{
    (void)unused;
    return pdt_count_nonzero(x, out);
}

static PyObject *f_count_nonzero(PyObject *module, PyObject *x)
{
    pdt_state *S = pdt_state_of_module(module);
    if (!PyObject_TypeCheck(x, S->tensor_type))
        Py_RETURN_NONE;
    return call_one(S, x, 0, count_nonzero);
}

PyMethodDef pdt_optional_functions[] = {
    {"_count_nonzero", f_count_nonzero, METH_O, NULL},
    {"_bincount", (PyCFunction)(void (*)(void))f_bincount, METH_FASTCALL, NULL},
    {"_repeat_flat", (PyCFunction)(void (*)(void))f_repeat_flat, METH_FASTCALL, NULL},
    {"_repeat_positions", f_repeat_positions, METH_VARARGS, NULL},
    {"_search_rows", f_search_rows, METH_VARARGS, NULL},
    {"_searchsorted", (PyCFunction)(void (*)(void))f_searchsorted, METH_FASTCALL, NULL},
    {"_select_rows", f_select_rows, METH_VARARGS, NULL},
    {"_topk_rows", f_topk_rows, METH_VARARGS, NULL},
    {"_cumextreme_rows", f_cumextreme_rows, METH_VARARGS, NULL},
    {"_softmax_rows", f_softmax_rows, METH_VARARGS, NULL},
    {"_classify", f_classify, METH_VARARGS, NULL},
    {"_cumprod_rows", f_cumprod_rows, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
