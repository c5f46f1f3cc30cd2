/* tensor_math.c - elementwise arithmetic, comparisons and unary functions:
 * the number protocol (+ - * / // % ** and their reflected and in-place
 * forms, unary - + abs), rich comparisons, and the function, method and
 * in-place method forms (pydevtensor.add(x, y), x.add(y), x.add_(y)).
 *
 * Every form ends in pdt_binary or pdt_unary (csrc/core/pdt_elementwise.h),
 * which checks and promotes; this file only turns Python objects into
 * operands, and releases the GIL around work on more than
 * PDT_GIL_RELEASE_NUMEL elements.
 *
 * Note [lean operators]
 * ~~~~~~~~~~~~~~~~~~~~~
 * `a + b` on tiny tensors is dominated by the binding, so the number slots
 * take no keywords, build no temporaries and call no Python: the module state
 * comes straight from the tensor's type (its ht_module; a Python subclass
 * falls back to PyType_GetModuleByDef), a tensor operand is recognised by its
 * nb_add slot before any isinstance() check, and Python floats, ints and
 * bools are read directly.  Any other operand type (a NumPy array, a string)
 * gives NotImplemented, so that Python asks the other operand.
 */
#include <string.h>

#include "args.h"
#include "docstrings_math.h"
#include "pdt_elementwise.h"
#include "pdt_ops.h"
#include "tensor_forms.h"
#include "wide_ints.h"

static PyObject *nb_add(PyObject *a, PyObject *b);

/* ---- operands ---- */

/* Our Tensor, or a subclass that kept our number slots. */
static inline int quick_is_tensor(PyObject *o)
{
    PyNumberMethods *nm = Py_TYPE(o)->tp_as_number;
    return nm && nm->nb_add == nb_add;
}

/* The state when one of a and b is a tensor whose type overrides our slots. */
static pdt_state *state_of_either(PyObject *a, PyObject *b)
{
    if (quick_is_tensor(a))
        return pdt_state_of_tensor(a);
    if (quick_is_tensor(b))
        return pdt_state_of_tensor(b);
    pdt_state *S = pdt_state_of_type(Py_TYPE(a));
    if (!S) {
        PyErr_Clear();
        S = pdt_state_of_type(Py_TYPE(b));
    }
    return S;
}

/* A number's name in messages: "operand" (fname NULL), else "fname(): argument 'what'"
 * (built only for a message: pdt_form_arg runs on every call of a binary function). */
static const char *number_name(const char *fname, const char *what, char *buf, size_t n)
{
    if (!fname)
        return "operand";
    snprintf(buf, n, "%s(): argument '%s'", fname, what);
    return buf;
}

/* NumPy's bool_, integer and floating scalars (without importing NumPy:
 * when it is not loaded, o cannot be one).  1: stored; 0: not one. */
static int numpy_scalar(PyObject *o, const char *fname, const char *what, pdt_arg *arg)
{
    PyObject *modules = PySys_GetObject("modules"); /* borrowed */
    PyObject *np = modules ? PyDict_GetItemString(modules, "numpy") : NULL;
    static const char *const kinds[3] = {"bool_", "integer", "floating"};
    if (!np)
        return 0;
    for (int k = 0; k < 3; k++) {
        PyObject *type = PyObject_GetAttrString(np, kinds[k]);
        int is = type ? PyObject_IsInstance(o, type) : -1;
        Py_XDECREF(type);
        if (is < 0)
            return -1;
        if (!is)
            continue;
        if (k == 0) {
            int v = PyObject_IsTrue(o);
            if (v < 0)
                return -1;
            arg->is_bool = 1;
            arg->s.i = v;
            return 1;
        }
        char buf[96];
        return pdt_parse_scalar_wide(o, number_name(fname, what, buf, sizeof buf), &arg->s,
                                     &arg->is_wide) < 0
                   ? -1
                   : 1;
    }
    return 0;
}

/* o as an operand (named in messages as number_name says).  1: done; 0: not a tensor
 * or a real number (no error set); -1: an error is set. */
static int to_arg(pdt_state *S, PyObject *o, const char *fname, const char *what, pdt_arg *arg)
{
    memset(arg, 0, sizeof *arg);
    if (quick_is_tensor(o) || pdt_is_tensor(S, o)) {
        arg->t = pdt_tensor_of(o);
        return 1;
    }
    if (PyFloat_Check(o)) {
        arg->s.is_float = 1;
        arg->s.f = PyFloat_AS_DOUBLE(o);
        return 1;
    }
    if (PyLong_Check(o)) {
        int overflow = 0;
        arg->is_bool = PyBool_Check(o);
        arg->s.i = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (!overflow)
            return arg->s.i == -1 && PyErr_Occurred() ? -1 : 1;
        char buf[96]; /* beyond 64 bits: Note [ints beyond 64 bits] in wide_ints.c */
        return pdt_parse_scalar_wide(o, number_name(fname, what, buf, sizeof buf), &arg->s,
                                     &arg->is_wide) < 0
                   ? -1
                   : 1;
    }
    return numpy_scalar(o, fname, what, arg);
}

/* to_arg for a named argument: anything but a tensor or a number is a
 * TypeError naming fname and what. */
int pdt_form_arg(pdt_state *S, PyObject *o, const char *fname, const char *what, pdt_arg *arg)
{
    int r = to_arg(S, o, fname, what, arg);
    if (r == 0)
        PyErr_Format(PyExc_TypeError,
                     "%s(): argument '%s' must be a Tensor or a number, got %.100s", fname, what,
                     Py_TYPE(o)->tp_name);
    return r > 0 ? 0 : -1;
}

/* The broadcast shape of a and b (either NULL: a number) into ndim and shape; 0 when
 * they do not broadcast (the core says why). */
static int broadcast_of(const pdt_tensor *a, const pdt_tensor *b, int *ndim, int64_t *shape)
{
    int na = a ? a->ndim : 0, nb = b ? b->ndim : 0, n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        int64_t sa = i - (n - na) >= 0 ? a->shape[i - (n - na)] : 1;
        int64_t sb = i - (n - nb) >= 0 ? b->shape[i - (n - nb)] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return 0;
        shape[i] = sa == 1 ? sb : sa;
    }
    *ndim = n;
    return 1;
}

/* Elements the op will touch: the broadcast shape's (a mismatch is the
 * core's to report). */
static int64_t work_numel(const pdt_tensor *a, const pdt_tensor *b)
{
    int64_t shape[PDT_MAX_DIMS], numel = 1;
    int n = 0;
    if (!broadcast_of(a, b, &n, shape))
        return 0;
    for (int i = 0; i < n; i++)
        numel *= shape[i];
    return numel;
}

/* ---- running the core ---- */

/* op(a, b) into out_obj (returned) or a new tensor; alpha (add and sub
 * only; NULL: none) scales b. */
static PyObject *run_binary(pdt_state *S, const char *name, pdt_binary_op op, pdt_arg a, pdt_arg b,
                            const pdt_arg *alpha, PyObject *out_obj)
{
    pdt_tensor result;
    int64_t shape[PDT_MAX_DIMS];
    int ndim;
    PyObject *fresh = NULL; /* Note [empty outs] */
    /* an out that is an operand (x.add_(y), add(x, y, out=x)) is never resized, as in
     * PyTorch: x of shape (0,) plus y of (2, 0) is refused, not made (2, 0) */
    const pdt_tensor *target = out_obj ? pdt_tensor_of(out_obj) : NULL;
    int operand = target && (a.t == target || b.t == target);
    if (pdt_wide_binary(name, &op, &a, &b, alpha) < 0)
        return NULL;
    if (out_obj && !operand && broadcast_of(a.t, b.t, &ndim, shape) &&
        pdt_out_fresh(S, out_obj, ndim, shape, &fresh) < 0)
        return NULL;
    const pdt_tensor *out = out_obj ? pdt_tensor_of(fresh ? fresh : out_obj) : NULL;
    pdt_status st;
    pdt_hold h; /* Note [the GIL and storages]: also while hooks run Python */
    h.n = 0;
    a.t = pdt_hold_view(&h, a.t), b.t = pdt_hold_view(&h, b.t), out = pdt_hold_view(&h, out);
    if (work_numel(a.t, b.t) > PDT_GIL_RELEASE_NUMEL) {
        Py_BEGIN_ALLOW_THREADS
        st = alpha ? pdt_binary_alpha(name, op, a, b, *alpha, out, &result)
                   : pdt_binary(name, op, a, b, out, &result);
        Py_END_ALLOW_THREADS
    } else {
        st = alpha ? pdt_binary_alpha(name, op, a, b, *alpha, out, &result)
                   : pdt_binary(name, op, a, b, out, &result);
    }
    pdt_hold_release(&h);
    if (st != PDT_OK) {
        Py_XDECREF(fresh);
        return pdt_raise(S, st);
    }
    if (fresh && pdt_out_adopt(out_obj, fresh) < 0)
        return NULL;
    if (out_obj)
        pdt_bump_version(out_obj); /* Note [version counter] */
    return out_obj ? Py_NewRef(out_obj) : pdt_tensor_wrap_new(S, &result);
}

PyObject *pdt_form_run_unary(pdt_state *S, const char *name, pdt_unary_op op, PyObject *x,
                             const pdt_arg *lo, const pdt_arg *hi, PyObject *out_obj)
{
    pdt_tensor result;
    const pdt_tensor *t = pdt_tensor_of(x);
    /* Note [empty outs]; with tensor bounds (clamp), the core refuses another shape */
    PyObject *fresh = NULL;
    if (out_obj && !(lo && lo->t) && !(hi && hi->t) &&
        pdt_out_fresh(S, out_obj, t->ndim, t->shape, &fresh) < 0)
        return NULL;
    const pdt_tensor *out = out_obj ? pdt_tensor_of(fresh ? fresh : out_obj) : NULL;
    pdt_status st;
    pdt_hold h; /* Note [the GIL and storages]: also while hooks run Python */
    h.n = 0;
    pdt_arg l, u;
    t = pdt_hold_view(&h, t), out = pdt_hold_view(&h, out);
    if (lo)
        l = *lo, l.t = pdt_hold_view(&h, l.t), lo = &l;
    if (hi)
        u = *hi, u.t = pdt_hold_view(&h, u.t), hi = &u;
    if (pdt_tensor_numel(t) > PDT_GIL_RELEASE_NUMEL) {
        Py_BEGIN_ALLOW_THREADS
        st = pdt_unary(name, op, t, lo, hi, out, &result);
        Py_END_ALLOW_THREADS
    } else {
        st = pdt_unary(name, op, t, lo, hi, out, &result);
    }
    pdt_hold_release(&h);
    if (st != PDT_OK) {
        Py_XDECREF(fresh);
        return pdt_raise(S, st);
    }
    if (fresh && pdt_out_adopt(out_obj, fresh) < 0)
        return NULL;
    if (out_obj)
        pdt_bump_version(out_obj); /* Note [version counter] */
    return out_obj ? Py_NewRef(out_obj) : pdt_tensor_wrap_new(S, &result);
}

/* ---- the number protocol and comparisons (Note [lean operators]) ---- */

/* a op b; in place (a op= b) writes into a. */
static PyObject *number_binary(PyObject *a, PyObject *b, pdt_binary_op op, const char *name,
                               int in_place)
{
    /* An operand that is neither a tensor nor a number (a NumPy array) gives
     * NotImplemented, with autograd on or off, so that Python tries the other
     * operand's method (Note [operators with NumPy arrays] in pydevtensor/_interop.py). */
    pdt_state *S = state_of_either(a, b);
    pdt_arg x, y;
    int r;
    if (!S || (r = to_arg(S, a, NULL, NULL, &x)) < 0)
        return NULL;
    if (r == 0 || (in_place && !x.t))
        Py_RETURN_NOTIMPLEMENTED;
    if ((r = to_arg(S, b, NULL, NULL, &y)) <= 0) {
        if (r < 0)
            return NULL;
        if (in_place && x.t->device.kind == PDT_CPU && PyObject_CheckBuffer(b) &&
            !PyBytes_Check(b) && !PyByteArray_Check(b)) {
            /* x += numpy_array: in place (Note [operators with NumPy arrays]), not
             * Python's fallback x = x + a, which would rebind x (PyTorch 2.15 does);
             * a GPU x takes the fallback, which refuses the mix without copying; on
             * x's own CPU device, so that a logical one (cpu:1) takes it too: there a
             * copy, which the transfer guard sees as implicit (none was asked for) */
            pdt_device host = {PDT_CPU, 0};
            PyObject *t = pdt_tensor_from_data(S, b, -1, host, 0, name);
            if (t && !pdt_device_eq(host, x.t->device)) {
                pdt_tensor moved;
                if (pdt_copy_for(S, pdt_tensor_of(t), x.t->device, pdt_tensor_of(t)->dtype, name, 1,
                                 &moved) < 0)
                    Py_CLEAR(t);
                else
                    Py_SETREF(t, pdt_tensor_wrap_new(S, &moved));
            }
            if (!t)
                return NULL;
            PyObject *result = number_binary(a, t, op, name, 1);
            Py_DECREF(t);
            return result;
        }
        Py_RETURN_NOTIMPLEMENTED;
    }
    PyObject *ab[2] = {a, b};
    if (pdt_autograd_wanted(NULL, ab, 2, NULL) && (quick_is_tensor(a) || quick_is_tensor(b))) {
        if (!in_place)
            return pdt_autograd_call(name, 0, NULL, ab, 2, NULL);
        if (quick_is_tensor(a))
            return pdt_autograd_call(name, 1, a, ab + 1, 1, NULL);
    }
    PyObject *out = in_place ? a : pdt_elide_target(S, a, b, op, &x, &y);
    return run_binary(S, name, op, x, y, NULL, out);
}

PyObject *pdt_number_binary(PyObject *a, PyObject *b, pdt_binary_op op, const char *name,
                            int in_place)
{
    return number_binary(a, b, op, name, in_place);
}

int pdt_quick_is_tensor(PyObject *o) { return quick_is_tensor(o); }

#define NUMBER_SLOTS(SLOT, OP, NAME)                                                               \
    static PyObject *nb_##SLOT(PyObject *a, PyObject *b)                                           \
    {                                                                                              \
        return number_binary(a, b, OP, NAME, 0);                                                   \
    }                                                                                              \
    static PyObject *nb_inplace_##SLOT(PyObject *a, PyObject *b)                                   \
    {                                                                                              \
        return number_binary(a, b, OP, NAME "_", 1);                                               \
    }
NUMBER_SLOTS(add, PDT_OP_ADD, "add")
NUMBER_SLOTS(subtract, PDT_OP_SUB, "sub")
NUMBER_SLOTS(multiply, PDT_OP_MUL, "mul")
NUMBER_SLOTS(true_divide, PDT_OP_DIV, "div")
NUMBER_SLOTS(floor_divide, PDT_OP_FLOOR_DIV, "floor_divide")
NUMBER_SLOTS(remainder, PDT_OP_REMAINDER, "remainder")

static int check_no_modulo(PyObject *mod)
{
    if (mod == Py_None)
        return 0;
    PyErr_SetString(PyExc_TypeError, "pow() with a modulo (3 arguments) is not supported");
    return -1;
}

static PyObject *nb_power(PyObject *a, PyObject *b, PyObject *mod)
{
    return check_no_modulo(mod) < 0 ? NULL : number_binary(a, b, PDT_OP_POW, "pow", 0);
}

static PyObject *nb_inplace_power(PyObject *a, PyObject *b, PyObject *mod)
{
    return check_no_modulo(mod) < 0 ? NULL : number_binary(a, b, PDT_OP_POW, "pow_", 1);
}

static PyObject *nb_negative(PyObject *x)
{
    PDT_AUTOGRAD_HOOK("neg", 0, NULL, &x, 1, NULL);
    pdt_state *S = pdt_state_of_tensor(x);
    return S ? pdt_form_run_unary(S, "neg", PDT_OP_NEG, x, NULL, NULL, NULL) : NULL;
}

static PyObject *nb_absolute(PyObject *x)
{
    PDT_AUTOGRAD_HOOK("abs", 0, NULL, &x, 1, NULL);
    pdt_state *S = pdt_state_of_tensor(x);
    return S ? pdt_form_run_unary(S, "abs", PDT_OP_ABS, x, NULL, NULL, NULL) : NULL;
}

static PyObject *nb_positive(PyObject *x) { return Py_NewRef(x); }

static PyObject *tensor_richcompare(PyObject *a, PyObject *b, int cmp)
{
    static const pdt_binary_op ops[6] = {PDT_OP_LT, PDT_OP_LE, PDT_OP_EQ,
                                         PDT_OP_NE, PDT_OP_GT, PDT_OP_GE};
    static const char *const names[6] = {"lt", "le", "eq", "ne", "gt", "ge"};
    if (cmp < 0 || cmp > 5)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *ab[2] = {a, b};
    if (pdt_autograd_wanted(NULL, ab, 2, NULL)) { /* not differentiable: never recorded */
        int was = pdt_grad_set(0);
        PyObject *r = number_binary(a, b, ops[cmp], names[cmp], 0);
        pdt_grad_set(was);
        return r;
    }
    return number_binary(a, b, ops[cmp], names[cmp], 0);
}

/* Tensors stay hashable by identity, as in PyTorch (defining __eq__ alone
 * would make them unhashable). */
static Py_hash_t tensor_hash(PyObject *self) { return PyBaseObject_Type.tp_hash(self); }

/* ---- function, method and in-place forms of the binary ops ---- */

/* alpha for add/sub: a Python or NumPy number, or a 0-d tensor's value (PyTorch takes one;
 * from a GPU, a counted copy to the host, as float(t) is), not a larger tensor. */
static int alpha_arg(pdt_state *S, const char *name, PyObject *alpha_obj, pdt_arg *alpha)
{
    if (pdt_form_arg(S, alpha_obj, name, "alpha", alpha) < 0)
        return -1;
    if (alpha->t) {
        int is_bool = alpha->t->dtype == PDT_BOOL;
        if (alpha->t->ndim != 0) {
            char dev[32];
            PyErr_Format(PyExc_TypeError,
                         "%s(): alpha must be a number or a 0-d tensor, not a tensor of %d "
                         "dimensions (on %s)",
                         name, alpha->t->ndim, pdt_device_str(alpha->t->device, dev, sizeof dev));
            return -1;
        }
        memset(alpha, 0, sizeof *alpha);
        alpha->is_bool = is_bool;
        return pdt_parse_scalar(alpha_obj, "alpha", &alpha->s);
    }
    return 0;
}

/* Gathers a form's arguments into vals[] (NULL: not given): names[0..npos) by
 * position or keyword, the rest by keyword only; self (the method forms)
 * takes names[0]. */
int pdt_form_gather(const char *name, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                    PyObject *kwnames, const char *const *names, int npos, PyObject **vals)
{
    Py_ssize_t first = self ? 1 : 0;
    if (pdt_parse_keywords(name, args + nargs, kwnames, names, vals) < 0)
        return -1;
    if (nargs > npos - first) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional argument%s (%zd given)",
                     name, (int)(npos - first), npos - first == 1 ? "" : "s", nargs);
        return -1;
    }
    for (Py_ssize_t i = -first; i < nargs; i++) {
        if (vals[first + i]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", name,
                         names[first + i]);
            return -1;
        }
        vals[first + i] = i < 0 ? self : args[i];
    }
    return 0;
}

/* The tensor a form writes into (*target, borrowed): self in place, out= in
 * the function form (None: none), else NULL. */
int pdt_form_output(pdt_state *S, const char *name, int form, PyObject *self, PyObject *out,
                    PyObject **target)
{
    *target = form == PDT_FORM_INPLACE ? self : NULL;
    if (!out || out == Py_None)
        return 0;
    if (form != PDT_FORM_FUNCTION || !pdt_is_tensor(S, out)) {
        PyErr_Format(PyExc_TypeError, "%s(): out= must be a Tensor%s", name,
                     form == PDT_FORM_FUNCTION ? "" : ", and only the function form takes it");
        return -1;
    }
    *target = out;
    return 0;
}

/* div's rounding_mode: None (true division), "floor" or "trunc". */
static int rounding_mode(const char *name, PyObject *mode, pdt_binary_op *op)
{
    if (!mode || mode == Py_None)
        return 0;
    if (PyUnicode_Check(mode) && PyUnicode_CompareWithASCIIString(mode, "floor") == 0) {
        *op = PDT_OP_FLOOR_DIV;
        return 0;
    }
    if (PyUnicode_Check(mode) && PyUnicode_CompareWithASCIIString(mode, "trunc") == 0) {
        *op = PDT_OP_TRUNC_DIV;
        return 0;
    }
    PyErr_Format(PyExc_ValueError, "%s(): rounding_mode must be None, 'floor' or 'trunc', got %R",
                 name, mode);
    return -1;
}

/* The shared argument parsing of every binary form:
 *   function: name(input, other, *, [extra,] out=None)
 *   method:   self.name(other, *, [extra])
 *   in place: self.name_(other, *, [extra]) -> self
 * extra: NULL, "alpha" (add, sub) or "rounding_mode" (div). */
static PyObject *binary_form(pdt_state *S, PyObject *self, int form, const char *name,
                             pdt_binary_op op, const char *other_name, const char *extra,
                             PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    const char *names[5] = {"input", other_name, "out", extra, NULL};
    PyObject *kw[4] = {NULL, NULL, NULL, NULL}, *out;
    PDT_AUTOGRAD_HOOK(name, form != PDT_FORM_FUNCTION, self, args, nargs, kwnames);
    if (!S || pdt_form_gather(name, self, args, nargs, kwnames, names, 2, kw) < 0 ||
        pdt_form_output(S, name, form, self, kw[2], &out) < 0)
        return NULL;
    for (int i = 0; i < 2; i++)
        if (!kw[i]) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", name, names[i]);
            return NULL;
        }
    pdt_arg a, b;
    if (pdt_form_arg(S, kw[0], name, names[0], &a) < 0 ||
        pdt_form_arg(S, kw[1], name, names[1], &b) < 0)
        return NULL;
    if (!a.t && !b.t) {
        PyErr_Format(PyExc_TypeError, "%s(): at least one of '%s' and '%s' must be a Tensor", name,
                     names[0], names[1]);
        return NULL;
    }
    if (extra && extra[0] == 'r' && rounding_mode(name, kw[3], &op) < 0)
        return NULL;
    pdt_arg alpha;
    if (extra && extra[0] == 'a' && kw[3]) {
        if (alpha_arg(S, name, kw[3], &alpha) < 0)
            return NULL;
        return run_binary(S, name, op, a, b, &alpha, out);
    }
    return run_binary(S, name, op, a, b, NULL, out);
}

PyObject *pdt_binary_form(pdt_state *S, PyObject *self, int form, const char *name,
                          pdt_binary_op op, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames)
{
    return binary_form(S, self, form, name, op, "other", NULL, args, nargs, kwnames);
}

/* The C functions behind a binary op's forms.  OTHER: the second argument's
 * name; EXTRA: the extra keyword (NULL, "alpha" or "rounding_mode"). */
#define BINARY_FUNCTION(PYNAME, OP, OTHER, EXTRA)                                                  \
    static PyObject *fn_##PYNAME(PyObject *module, PyObject *const *args, Py_ssize_t nargs,        \
                                 PyObject *kwnames)                                                \
    {                                                                                              \
        return binary_form(pdt_state_of_module(module), NULL, PDT_FORM_FUNCTION, #PYNAME, OP,      \
                           OTHER, EXTRA, args, nargs, kwnames);                                    \
    }
#define BINARY_METHOD(PYNAME, OP, OTHER, EXTRA)                                                    \
    static PyObject *m_##PYNAME(PyObject *self, PyObject *const *args, Py_ssize_t nargs,           \
                                PyObject *kwnames)                                                 \
    {                                                                                              \
        return binary_form(pdt_state_of_tensor(self), self, PDT_FORM_METHOD, #PYNAME, OP, OTHER,   \
                           EXTRA, args, nargs, kwnames);                                           \
    }
#define BINARY_INPLACE(PYNAME, OP, OTHER, EXTRA)                                                   \
    static PyObject *m_##PYNAME##_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,        \
                                   PyObject *kwnames)                                              \
    {                                                                                              \
        return binary_form(pdt_state_of_tensor(self), self, PDT_FORM_INPLACE, #PYNAME "_", OP,     \
                           OTHER, EXTRA, args, nargs, kwnames);                                    \
    }
#define BINARY_ALL(PYNAME, OP, OTHER, EXTRA)                                                       \
    BINARY_FUNCTION(PYNAME, OP, OTHER, EXTRA)                                                      \
    BINARY_METHOD(PYNAME, OP, OTHER, EXTRA)                                                        \
    BINARY_INPLACE(PYNAME, OP, OTHER, EXTRA)
#define BINARY_NO_INPLACE(PYNAME, OP)                                                              \
    BINARY_FUNCTION(PYNAME, OP, "other", NULL)                                                     \
    BINARY_METHOD(PYNAME, OP, "other", NULL)

BINARY_ALL(add, PDT_OP_ADD, "other", "alpha")
BINARY_ALL(sub, PDT_OP_SUB, "other", "alpha")
BINARY_ALL(mul, PDT_OP_MUL, "other", NULL)
BINARY_ALL(div, PDT_OP_DIV, "other", "rounding_mode")
BINARY_ALL(true_divide, PDT_OP_DIV, "other", NULL)
BINARY_ALL(floor_divide, PDT_OP_FLOOR_DIV, "other", NULL)
BINARY_ALL(remainder, PDT_OP_REMAINDER, "other", NULL)
BINARY_ALL(pow, PDT_OP_POW, "exponent", NULL)
BINARY_NO_INPLACE(maximum, PDT_OP_MAXIMUM)
BINARY_NO_INPLACE(minimum, PDT_OP_MINIMUM)
BINARY_NO_INPLACE(eq, PDT_OP_EQ)
BINARY_NO_INPLACE(ne, PDT_OP_NE)
BINARY_NO_INPLACE(lt, PDT_OP_LT)
BINARY_NO_INPLACE(le, PDT_OP_LE)
BINARY_NO_INPLACE(gt, PDT_OP_GT)
BINARY_NO_INPLACE(ge, PDT_OP_GE)

/* ---- unary forms ---- */

/* function: name(input, *, out=None); method: self.name(); in place:
 * self.name_() -> self. */
PyObject *pdt_unary_form(pdt_state *S, PyObject *self, int form, const char *name, pdt_unary_op op,
                         PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"input", "out", NULL};
    PyObject *kw[2] = {NULL, NULL}, *out;
    PDT_AUTOGRAD_HOOK(name, form != PDT_FORM_FUNCTION, self, args, nargs, kwnames);
    if (!S || pdt_form_gather(name, self, args, nargs, kwnames, names, 1, kw) < 0 ||
        pdt_form_output(S, name, form, self, kw[1], &out) < 0)
        return NULL;
    if (!kw[0] || !pdt_is_tensor(S, kw[0])) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'input' must be a Tensor, got %.100s", name,
                     kw[0] ? Py_TYPE(kw[0])->tp_name : "nothing");
        return NULL;
    }
    return pdt_form_run_unary(S, name, op, kw[0], NULL, NULL, out);
}

UNARY_ALL(neg, PDT_OP_NEG)
UNARY_ALL(abs, PDT_OP_ABS)
UNARY_ALL(exp, PDT_OP_EXP)
UNARY_ALL(log, PDT_OP_LOG)
UNARY_ALL(sqrt, PDT_OP_SQRT)
UNARY_ALL(sin, PDT_OP_SIN)
UNARY_ALL(cos, PDT_OP_COS)
UNARY_ALL(tanh, PDT_OP_TANH)
UNARY_ALL(sigmoid, PDT_OP_SIGMOID)
UNARY_ALL(relu, PDT_OP_RELU)

/* ---- fill_ and zero_ ---- */

static PyObject *fill_with(PyObject *self, pdt_scalar value)
{
    pdt_state *S = pdt_state_of_tensor(self);
    const pdt_tensor *t = pdt_tensor_of(self);
    pdt_status st;
    if (!S)
        return NULL;
    if (!value.is_float && pdt_dtype_is_integer(t->dtype) && !pdt_scalar_fits(t->dtype, value)) {
        /* an int past an integer dtype's range: OverflowError, as Python's ctypes give */
        char dev[32], shape[96];
        PyErr_Format(PyExc_OverflowError,
                     "fill_(): the value %lld cannot be converted to %s without overflow (into a "
                     "tensor of shape %s on %s)",
                     (long long)value.i, pdt_dtype_name(t->dtype),
                     pdt_shape_str(t->ndim, t->shape, shape, sizeof shape),
                     pdt_device_str(t->device, dev, sizeof dev));
        return NULL;
    }
    if (pdt_number_refused(S, "fill_", value, t) < 0)
        return NULL;
    pdt_hold h; /* Note [the GIL and storages]: also while hooks run Python */
    h.n = 0;
    t = pdt_hold_view(&h, t);
    if (pdt_tensor_numel(t) > PDT_GIL_RELEASE_NUMEL) {
        Py_BEGIN_ALLOW_THREADS
        st = pdt_fill(t, value);
        Py_END_ALLOW_THREADS
    } else {
        st = pdt_fill(t, value);
    }
    pdt_hold_release(&h);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    pdt_bump_version(self); /* Note [version counter] */
    return Py_NewRef(self);
}

/* fill_(value): every element becomes value (a number); returns self. */
static PyObject *m_fill_(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"value", NULL};
    PyObject *kw[1] = {NULL};
    pdt_state *S = pdt_state_of_tensor(self);
    pdt_arg value;
    PDT_AUTOGRAD_HOOK("fill_", 1, self, args, nargs, kwnames);
    if (!S || pdt_parse_keywords("fill_", args + nargs, kwnames, names, kw) < 0)
        return NULL;
    PyObject *v = nargs == 1 && !kw[0] ? args[0] : nargs == 0 ? kw[0] : NULL;
    if (!v) {
        PyErr_SetString(PyExc_TypeError, "fill_() takes one argument (value)");
        return NULL;
    }
    if (pdt_form_arg(S, v, "fill_", "value", &value) < 0)
        return NULL;
    if (value.t) {
        PyErr_SetString(PyExc_TypeError, "fill_(): value must be a number; for a 0-dim tensor use "
                                         "fill_(value.item()), which reads it on the host");
        return NULL;
    }
    if (value.is_wide && !pdt_wide_holds(pdt_tensor_of(self)->dtype)) {
        pdt_wide_refused("fill_", pdt_tensor_of(self), pdt_tensor_of(self)->dtype);
        return NULL;
    }
    return fill_with(self, value.s);
}

static PyObject *m_zero_(PyObject *self, PyObject *unused)
{
    (void)unused;
    PDT_AUTOGRAD_HOOK("zero_", 1, self, NULL, 0, NULL);
    pdt_scalar zero = {0, 0.0, 0};
    return fill_with(self, zero);
}

/* ---- tables ---- */

PyMethodDef pdt_math_functions[] = {
    {"add", FASTKW(fn_add), doc_fn_add},
    {"sub", FASTKW(fn_sub), doc_fn_sub},
    {"mul", FASTKW(fn_mul), DOC_FN_B("mul", "``input * other``", EX_MUL)},
    {"div", FASTKW(fn_div), doc_fn_div},
    {"true_divide", FASTKW(fn_true_divide), DOC_FN_B("true_divide", "input / other", EX_DIV)},
    {"floor_divide", FASTKW(fn_floor_divide),
     DOC_FN_B("floor_divide",
              "input // other, rounded toward -inf (integer // 0 raises, 0 on a GPU)",
              EX_FLOORDIV)},
    {"remainder", FASTKW(fn_remainder),
     DOC_FN_B("remainder", "input % other, with the sign of other (integer % 0 raises, 0 on a GPU)",
              EX_REM)},
    {"pow", FASTKW(fn_pow), doc_fn_pow},
    {"maximum", FASTKW(fn_maximum),
     DOC_FN_B("maximum", "The larger of input and other (NaN wins)", EX_MAX)},
    {"minimum", FASTKW(fn_minimum),
     DOC_FN_B("minimum", "The smaller of input and other (NaN wins)", EX_MIN)},
    {"eq", FASTKW(fn_eq), DOC_FN_B("eq", "input == other as a bool tensor", EX_EQ)},
    {"ne", FASTKW(fn_ne), DOC_FN_B("ne", "input != other as a bool tensor", EX_NE)},
    {"lt", FASTKW(fn_lt), DOC_FN_B("lt", "input < other as a bool tensor", EX_LT)},
    {"le", FASTKW(fn_le), DOC_FN_B("le", "input <= other as a bool tensor", EX_LE)},
    {"gt", FASTKW(fn_gt), DOC_FN_B("gt", "input > other as a bool tensor", EX_GT)},
    {"ge", FASTKW(fn_ge), DOC_FN_B("ge", "input >= other as a bool tensor", EX_GE)},
    {"neg", FASTKW(fn_neg), DOC_FN_U("neg", "-input", EX_NEG)},
    {"abs", FASTKW(fn_abs), DOC_FN_U("abs", "The absolute value", EX_ABS)},
    {"exp", FASTKW(fn_exp), DOC_FN_U("exp", "``e ** input`` (integers give float32)", EX_EXP)},
    {"log", FASTKW(fn_log),
     DOC_FN_U("log", "The natural logarithm (integers give float32)", EX_LOG)},
    {"sqrt", FASTKW(fn_sqrt), DOC_FN_U("sqrt", "The square root (integers give float32)", EX_SQRT)},
    {"sin", FASTKW(fn_sin), DOC_FN_U("sin", "The sine (integers give float32)", EX_SIN)},
    {"cos", FASTKW(fn_cos), DOC_FN_U("cos", "The cosine (integers give float32)", EX_COS)},
    {"tanh", FASTKW(fn_tanh),
     DOC_FN_U("tanh", "The hyperbolic tangent (integers give float32)", EX_TANH)},
    {"sigmoid", FASTKW(fn_sigmoid),
     DOC_FN_U("sigmoid", "1 / (1 + exp(-input)) (integers give float32)", EX_SIGMOID)},
    {"relu", FASTKW(fn_relu), DOC_FN_U("relu", "max(input, 0), NaN kept", EX_RELU)},
    {NULL, NULL, 0, NULL},
};

PyMethodDef pdt_math_methods[] = {
    {"add", FASTKW(m_add), DOC_M_ALPHA("add", "``self + alpha * other``", EX_ADD)},
    {"sub", FASTKW(m_sub), DOC_M_ALPHA("sub", "``self - alpha * other``", EX_SUB)},
    {"mul", FASTKW(m_mul), DOC_M_B("mul", "``self * other``", EX_MUL)},
    {"div", FASTKW(m_div), DOC_M_ROUND("div", "self / other", EX_DIV)},
    {"true_divide", FASTKW(m_true_divide), DOC_M_B("true_divide", "self / other", EX_DIV)},
    {"floor_divide", FASTKW(m_floor_divide),
     DOC_M_B("floor_divide", "self // other, rounded toward -inf", EX_FLOORDIV)},
    {"remainder", FASTKW(m_remainder),
     DOC_M_B("remainder", "self % other, with the sign of other", EX_REM)},
    {"pow", FASTKW(m_pow), doc_m_pow},
    {"maximum", FASTKW(m_maximum), DOC_M_B("maximum", "The larger of self and other", EX_MAX)},
    {"minimum", FASTKW(m_minimum), DOC_M_B("minimum", "The smaller of self and other", EX_MIN)},
    {"eq", FASTKW(m_eq), DOC_M_B("eq", "self == other as a bool tensor", EX_EQ)},
    {"ne", FASTKW(m_ne), DOC_M_B("ne", "self != other as a bool tensor", EX_NE)},
    {"lt", FASTKW(m_lt), DOC_M_B("lt", "self < other as a bool tensor", EX_LT)},
    {"le", FASTKW(m_le), DOC_M_B("le", "self <= other as a bool tensor", EX_LE)},
    {"gt", FASTKW(m_gt), DOC_M_B("gt", "self > other as a bool tensor", EX_GT)},
    {"ge", FASTKW(m_ge), DOC_M_B("ge", "self >= other as a bool tensor", EX_GE)},
    {"neg", FASTKW(m_neg), DOC_M_U("neg", "-self", EX_NEG)},
    {"abs", FASTKW(m_abs), DOC_M_U("abs", "The absolute value", EX_ABS)},
    {"exp", FASTKW(m_exp), DOC_M_U("exp", "``e ** self``", EX_EXP)},
    {"log", FASTKW(m_log), DOC_M_U("log", "The natural logarithm", EX_LOG)},
    {"sqrt", FASTKW(m_sqrt), DOC_M_U("sqrt", "The square root", EX_SQRT)},
    {"sin", FASTKW(m_sin), DOC_M_U("sin", "The sine", EX_SIN)},
    {"cos", FASTKW(m_cos), DOC_M_U("cos", "The cosine", EX_COS)},
    {"tanh", FASTKW(m_tanh), DOC_M_U("tanh", "The hyperbolic tangent", EX_TANH)},
    {"sigmoid", FASTKW(m_sigmoid), DOC_M_U("sigmoid", "1 / (1 + exp(-self))", EX_SIGMOID)},
    {"relu", FASTKW(m_relu), DOC_M_U("relu", "max(self, 0)", EX_RELU)},
    /* in place: each returns self */
    {"add_", FASTKW(m_add_), DOC_M_ALPHA_("add", "``self + alpha * other``", EX_ADD)},
    {"sub_", FASTKW(m_sub_), DOC_M_ALPHA_("sub", "``self - alpha * other``", EX_SUB)},
    {"mul_", FASTKW(m_mul_), DOC_M_B_("mul", "``self * other``", EX_MUL)},
    {"div_", FASTKW(m_div_), DOC_M_ROUND_("div", "self / other", EX_DIV)},
    {"true_divide_", FASTKW(m_true_divide_), DOC_M_B_("true_divide", "self / other", EX_DIV)},
    {"floor_divide_", FASTKW(m_floor_divide_),
     DOC_M_B_("floor_divide", "self // other, rounded toward -inf", EX_FLOORDIV)},
    {"remainder_", FASTKW(m_remainder_),
     DOC_M_B_("remainder", "self % other, with the sign of other", EX_REM)},
    {"pow_", FASTKW(m_pow_), doc_m_pow_},
    {"neg_", FASTKW(m_neg_), DOC_M_U_("neg", "-self", EX_NEG)},
    {"abs_", FASTKW(m_abs_), DOC_M_U_("abs", "The absolute value", EX_ABS)},
    {"exp_", FASTKW(m_exp_), DOC_M_U_("exp", "``e ** self``", EX_EXP)},
    {"log_", FASTKW(m_log_), DOC_M_U_("log", "The natural logarithm", EX_LOG)},
    {"sqrt_", FASTKW(m_sqrt_), DOC_M_U_("sqrt", "The square root", EX_SQRT)},
    {"sin_", FASTKW(m_sin_), DOC_M_U_("sin", "The sine", EX_SIN)},
    {"cos_", FASTKW(m_cos_), DOC_M_U_("cos", "The cosine", EX_COS)},
    {"tanh_", FASTKW(m_tanh_), DOC_M_U_("tanh", "The hyperbolic tangent", EX_TANH)},
    {"sigmoid_", FASTKW(m_sigmoid_), DOC_M_U_("sigmoid", "1 / (1 + exp(-self))", EX_SIGMOID)},
    {"relu_", FASTKW(m_relu_), DOC_M_U_("relu", "max(self, 0)", EX_RELU)},
    {"fill_", FASTKW(m_fill_), doc_m_fill_},
    {"zero_", m_zero_, METH_NOARGS, doc_m_zero_},
    {NULL, NULL, 0, NULL},
};

PyType_Slot pdt_math_slots[] = {
    {Py_nb_add, nb_add},
    {Py_nb_subtract, nb_subtract},
    {Py_nb_multiply, nb_multiply},
    {Py_nb_true_divide, nb_true_divide},
    {Py_nb_floor_divide, nb_floor_divide},
    {Py_nb_remainder, nb_remainder},
    {Py_nb_power, nb_power},
    {Py_nb_inplace_add, nb_inplace_add},
    {Py_nb_inplace_subtract, nb_inplace_subtract},
    {Py_nb_inplace_multiply, nb_inplace_multiply},
    {Py_nb_inplace_true_divide, nb_inplace_true_divide},
    {Py_nb_inplace_floor_divide, nb_inplace_floor_divide},
    {Py_nb_inplace_remainder, nb_inplace_remainder},
    {Py_nb_inplace_power, nb_inplace_power},
    {Py_nb_negative, nb_negative},
    {Py_nb_positive, nb_positive},
    {Py_nb_absolute, nb_absolute},
    {Py_tp_richcompare, tensor_richcompare},
    {Py_tp_hash, tensor_hash},
    {0, NULL},
};
