/* elide.c - binary operators write into a temporary operand instead of a new
 * tensor, when nothing else can see that operand.
 *
 * Note [temporary elision]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * In `r = a * b + c` the product a * b is a temporary: only the interpreter's
 * value stack holds it, and it is dropped right after the `+`.  Writing the
 * sum into it, instead of into a new tensor, saves an allocation of the
 * result's size and keeps the peak at NumPy's (which does the same: its
 * temp_elide.c).  For 1e8 float32 elements, a * b + c then peaks at 400 MB
 * above its inputs instead of 800.
 *
 * A tensor operand x of `x op y` (or of `y op x`) is overwritten only when
 * every one of these holds; otherwise the op allocates, as always:
 *   - x is one of our Tensors (not a subclass), on a CPU device, contiguous
 *     from the start of its storage, at least ELIDE_MIN_BYTES large (below
 *     that, a fresh block from the CPU block cache costs less than the check);
 *   - the interpreter's stack holds the only reference to x: its reference
 *     count is 1 (Python 3.14 and later: PyUnstable_Object_IsUniqueReferenced-
 *     Temporary, since there the stack may borrow a local's reference), no
 *     weak reference to it exists, and no array interface has shown its
 *     memory (the `shown` flag);
 *   - the storage has no other holder: its reference count is 1, so no view,
 *     NumPy array, buffer, DLPack capsule or tensor saved for backward shares
 *     it (each of those holds a storage reference); and its memory is our own,
 *     not a NumPy array's or a DLPack producer's that from_numpy, as_tensor or
 *     from_dlpack wrapped (pdt_tensor_is_foreign): the owner still sees it, and
 *     `from_numpy(a) / 255` wrote into `a` (found by a helper trying the package
 *     as a new user);
 *   - x takes no part in autograd (no requires_grad, grad_fn or grad; an op
 *     that records a graph never reaches this file);
 *   - the result has x's dtype and x's shape (y broadcasts to x, never the
 *     other way), and y is a scalar or a tensor on x's device;
 *   - the operator was called by the interpreter's evaluation loop, through
 *     CPython's own number protocol and nothing else (called_by_interpreter
 *     below).  A reference count of 1 is not enough by itself: C code may call
 *     PyNumber_Add on a reference it borrowed from a container that is the
 *     only owner (NumPy's object-array add.reduce does), and then uses the
 *     operand again.  So, as NumPy does, the return addresses on the C stack
 *     are checked: every frame between this module and the first frame of
 *     _PyEval_EvalFrameDefault must belong to the Python interpreter's own
 *     binary or library.  Addresses are classified once with dladdr and
 *     remembered (a few call sites in practice); where the symbols cannot be
 *     found (a static, stripped interpreter; Python 3.14's tail-calling
 *     interpreter), nothing is ever elided.
 * CUDA tensors are not elided: a kernel still queued on another stream may
 * read the temporary, and only the allocator's stream bookkeeping could say
 * so.  The result of an elided op is the temporary's own Tensor object, with
 * its version counter bumped like any in-place write.
 */
#include "pdt_module.h" /* first: Python.h sets the feature macros dladdr needs */

#include <dlfcn.h>
#include <unwind.h>

#include "pdt_elementwise.h"

/* NumPy's threshold: 256 KiB. */
#define ELIDE_MIN_BYTES ((int64_t)256 * 1024)
#define MAX_FRAMES 24
#define MAX_KNOWN 64

enum { PC_SELF = 1, PC_PYTHON, PC_EVAL, PC_OTHER };

static int elide_state;       /* 0: not set up; 1: usable; -1: never elide */
static int elide_enabled = 1; /* _C._set_temporary_elision (tests, benchmarks) */
static long elided_count;     /* elisions done (tests) */
static void *self_base, *python_base, *eval_start;
static struct {
    void *pc;
    int kind;
} known[MAX_KNOWN];
static int n_known;

static int setup(void)
{
    Dl_info info;
    void *eval = dlsym(RTLD_DEFAULT, "_PyEval_EvalFrameDefault");
    if (!eval || !dladdr(eval, &info) || info.dli_saddr != eval)
        return -1;
    eval_start = eval;
    python_base = info.dli_fbase;
    if (!dladdr((void *)&PyNumber_Add, &info) || info.dli_fbase != python_base)
        return -1;
    if (!dladdr((void *)&setup, &info) || !info.dli_fbase || info.dli_fbase == python_base)
        return -1;
    self_base = info.dli_fbase;
    return 1;
}

static int classify(void *pc)
{
    for (int i = 0; i < n_known; i++)
        if (known[i].pc == pc)
            return known[i].kind;
    Dl_info info;
    int kind = PC_OTHER;
    if (dladdr(pc, &info)) {
        if (info.dli_fbase == self_base)
            kind = PC_SELF;
        else if (info.dli_fbase == python_base)
            kind = info.dli_saddr == eval_start ? PC_EVAL : PC_PYTHON;
    }
    if (n_known < MAX_KNOWN) {
        known[n_known].pc = pc;
        known[n_known++].kind = kind;
    }
    return kind;
}

/* The walk up the C stack: frames of this module first, then of the
 * interpreter, until its evaluation loop (verdict 1) or anything else
 * (verdict 0).  _Unwind_Backtrace (the unwinder of the C++ ABI, in libgcc_s)
 * lets the walk stop at the loop, a few frames up, rather than unwinding a
 * fixed depth as backtrace() does. */
typedef struct {
    int frames, past_self, verdict;
} walk_state;

static _Unwind_Reason_Code walk_frame(struct _Unwind_Context *ctx, void *arg)
{
    walk_state *w = (walk_state *)arg;
    void *pc = (void *)_Unwind_GetIP(ctx);
    int kind = classify(pc);
    if (!w->past_self && kind == PC_SELF)
        return ++w->frames < MAX_FRAMES ? _URC_NO_REASON : _URC_END_OF_STACK;
    w->past_self = 1;
    if (kind == PC_EVAL)
        w->verdict = 1;
    if (kind != PC_PYTHON || ++w->frames >= MAX_FRAMES)
        return _URC_END_OF_STACK; /* stop here */
    return _URC_NO_REASON;
}

/* 1 when this module's caller chain reaches the evaluation loop through the
 * interpreter's own code only (Note [temporary elision]). */
static int called_by_interpreter(void)
{
    walk_state w = {0, 0, 0};
    _Unwind_Backtrace(walk_frame, &w);
    return w.verdict;
}

static int unique_temporary(PyObject *o)
{
#if PY_VERSION_HEX >= 0x030E0000
    return PyUnstable_Object_IsUniqueReferencedTemporary(o);
#else
    return Py_REFCNT(o) == 1;
#endif
}

/* The checks on x alone and on the result's dtype and shape. */
static int can_hold_result(pdt_state *S, PyObject *o, const pdt_arg *other, pdt_dtype res)
{
    if (Py_TYPE(o) != S->tensor_type || !unique_temporary(o))
        return 0;
    PdtTensorObject *T = (PdtTensorObject *)o;
    const pdt_tensor *t = &T->t;
    if (T->weakreflist || T->shown || T->kept || T->requires_grad || T->grad_fn || T->grad)
        return 0;
    if (t->device.kind != PDT_CPU || t->dtype != res || t->offset != 0 ||
        !pdt_tensor_is_contiguous(t) || pdt_tensor_storage_refcount(t) != 1 ||
        pdt_tensor_is_foreign(t))
        return 0;
    if (pdt_tensor_numel(t) * (int64_t)pdt_dtype_size(t->dtype) < ELIDE_MIN_BYTES)
        return 0;
    const pdt_tensor *y = other->t;
    if (!y)
        return 1;
    if (y->device.kind != t->device.kind || y->device.index != t->device.index || y->ndim > t->ndim)
        return 0;
    for (int i = 1; i <= y->ndim; i++) {
        int64_t ys = y->shape[y->ndim - i], ts = t->shape[t->ndim - i];
        if (ys != ts && ys != 1)
            return 0;
    }
    return 1;
}

PyObject *pdt_elide_target(pdt_state *S, PyObject *a, PyObject *b, pdt_binary_op op,
                           const pdt_arg *x, const pdt_arg *y)
{
    if (!elide_enabled || op >= PDT_OP_MAXIMUM)
        return NULL; /* comparisons (bool results), maximum and minimum: not operators */
    pdt_dtype res = pdt_binary_result_dtype(op, *x, *y);
    PyObject *target = NULL;
    if (x->t && can_hold_result(S, a, y, res))
        target = a;
    else if (y->t && can_hold_result(S, b, x, res))
        target = b;
    if (!target)
        return NULL;
    if (elide_state == 0)
        elide_state = setup();
    if (elide_state < 0 || !called_by_interpreter())
        return NULL;
    elided_count++;
    return target;
}

/* _C._set_temporary_elision(on) -> the previous setting; _C._temporary_elisions() -> count */
static PyObject *set_temporary_elision(PyObject *mod, PyObject *on)
{
    (void)mod;
    int v = PyObject_IsTrue(on);
    if (v < 0)
        return NULL;
    int old = elide_enabled;
    elide_enabled = v;
    return PyBool_FromLong(old);
}

static PyObject *temporary_elisions(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    return PyLong_FromLong(elided_count);
}

PyMethodDef pdt_elide_functions[] = {
    {"_set_temporary_elision", set_temporary_elision, METH_O, NULL},
    {"_temporary_elisions", temporary_elisions, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};
