/* tensor_matmul.c - the matrix products: `@` (the nb_matrix_multiply slot),
 * pydevtensor.matmul / mm / bmm / addmm / dot and the Tensor methods of the
 * same names.  The core (pdt_matmul.h) validates and runs them; here we parse
 * arguments and release the GIL around the BLAS or cuBLAS work. */
#include "args.h"
#include "docstrings_matmul.h"
#include "pdt_matmul.h"
#include "wide_ints.h"

typedef pdt_status (*product_fn)(const pdt_tensor *a, const pdt_tensor *b, pdt_tensor *out);

/* More multiply-adds than this, or any CUDA work (cuBLAS may be loaded on
 * first use, and an enqueue can block), run with the GIL released. */
static int release_gil(const pdt_tensor *a, const pdt_tensor *b)
{
    if (a->device.kind != PDT_CPU)
        return 1;
    double m = a->ndim >= 2 ? (double)a->shape[a->ndim - 2] : 1.0;
    double n = b->ndim >= 2 ? (double)b->shape[b->ndim - 1] : 1.0;
    double work_a = (double)pdt_tensor_numel(a) * n, work_b = (double)pdt_tensor_numel(b) * m;
    return (work_a > work_b ? work_a : work_b) > (double)PDT_GIL_RELEASE_NUMEL;
}

/* One call into the core: fn(a, b), or addmm when fn is NULL. */
typedef struct product_call {
    product_fn fn;
    const pdt_tensor *input, *a, *b; /* input: addmm only */
    pdt_scalar beta, alpha;
} product_call;

static pdt_status call_core(const product_call *p, pdt_tensor *out)
{
    return p->fn ? p->fn(p->a, p->b, out) : pdt_addmm(p->input, p->a, p->b, p->beta, p->alpha, out);
}

static PyObject *run_product(pdt_state *S, const product_call *p)
{
    pdt_tensor out;
    pdt_status st;
    pdt_hold h; /* Note [the GIL and storages]: also while hooks run Python */
    h.n = 0;
    product_call held = *p;
    held.input = pdt_hold_view(&h, p->input);
    held.a = pdt_hold_view(&h, p->a), held.b = pdt_hold_view(&h, p->b);
    if (release_gil(p->a, p->b)) {
        pdt_backend_prepare_gemm(p->a->device.kind); /* under the GIL: pdt_library.h */
        Py_BEGIN_ALLOW_THREADS
        st = call_core(&held, &out);
        Py_END_ALLOW_THREADS
    } else {
        st = call_core(&held, &out);
    }
    pdt_hold_release(&h);
    return st == PDT_OK ? pdt_tensor_wrap_new(S, &out) : pdt_raise(S, st);
}

/* Gathers the arguments named names[] (NULL-terminated) from positional args
 * (at most npos of them) and keywords into kw[]; the first ntensors must be
 * given and be Tensors. */
static int parse_args(pdt_state *S, const char *fname, const char *const *names, int npos,
                      int ntensors, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                      PyObject **kw)
{
    if (pdt_parse_keywords(fname, args + nargs, kwnames, names, kw) < 0)
        return -1;
    if (nargs > npos) {
        PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd were given",
                     fname, npos, npos == 1 ? "" : "s", nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        if (kw[i]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                         names[i]);
            return -1;
        }
        kw[i] = args[i];
    }
    for (int i = 0; i < ntensors; i++) {
        if (!kw[i]) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fname, names[i]);
            return -1;
        }
        if (!pdt_is_tensor(S, kw[i])) {
            PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a Tensor, got %.100s", fname,
                         names[i], Py_TYPE(kw[i])->tp_name);
            return -1;
        }
    }
    return 0;
}

/* fname(input, <second>) as a function (self NULL) or self.fname(<second>);
 * names: {"input", second, NULL}. */
static PyObject *binary_product(PyObject *self, PyObject *module, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kwnames, const char *fname,
                                const char *const *names, product_fn fn)
{
    PDT_AUTOGRAD_HOOK(fname, self != NULL, self, args, nargs, kwnames);
    pdt_state *S = self ? pdt_state_of_type(Py_TYPE(self)) : pdt_state_of_module(module);
    PyObject *kw[2] = {self, NULL};
    if (!S)
        return NULL;
    int skip = self ? 1 : 0; /* the method's self is `input` */
    if (parse_args(S, fname, names + skip, 2 - skip, 2 - skip, args, nargs, kwnames, kw + skip) < 0)
        return NULL;
    product_call call = {.fn = fn, .a = pdt_tensor_of(kw[0]), .b = pdt_tensor_of(kw[1])};
    return run_product(S, &call);
}

static const char *const matmul_names[] = {"input", "other", NULL};
static const char *const mm_names[] = {"input", "mat2", NULL};
static const char *const dot_names[] = {"input", "tensor", NULL};

#define PRODUCT_ENTRIES(NAME, NAMES, FN)                                                           \
    static PyObject *f_##NAME(PyObject *module, PyObject *const *args, Py_ssize_t nargs,           \
                              PyObject *kwnames)                                                   \
    {                                                                                              \
        return binary_product(NULL, module, args, nargs, kwnames, #NAME, NAMES, FN);               \
    }                                                                                              \
    static PyObject *t_##NAME(PyObject *self, PyObject *const *args, Py_ssize_t nargs,             \
                              PyObject *kwnames)                                                   \
    {                                                                                              \
        return binary_product(self, NULL, args, nargs, kwnames, #NAME, NAMES, FN);                 \
    }
PRODUCT_ENTRIES(matmul, matmul_names, pdt_matmul)
PRODUCT_ENTRIES(mm, mm_names, pdt_mm)
PRODUCT_ENTRIES(bmm, mm_names, pdt_bmm)
PRODUCT_ENTRIES(dot, dot_names, pdt_dot)

/* addmm(input, mat1, mat2, *, beta=1, alpha=1), or self.addmm(mat1, mat2, ...) */
static PyObject *addmm_impl(PyObject *self, PyObject *module, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames)
{
    PDT_AUTOGRAD_HOOK("addmm", self != NULL, self, args, nargs, kwnames);
    static const char *const names[] = {"input", "mat1", "mat2", "beta", "alpha", NULL};
    pdt_state *S = self ? pdt_state_of_type(Py_TYPE(self)) : pdt_state_of_module(module);
    PyObject *kw[5] = {self, NULL, NULL, NULL, NULL};
    pdt_scalar beta = {0, 1.0, 1}, alpha = {0, 1.0, 1};
    if (!S)
        return NULL;
    int skip = self ? 1 : 0;
    if (parse_args(S, "addmm", names + skip, 3 - skip, 3 - skip, args, nargs, kwnames, kw + skip) <
        0)
        return NULL;
    const pdt_tensor *mat1 = pdt_tensor_of(kw[1]);
    if ((kw[3] && pdt_parse_number_into(kw[3], "addmm(): beta", mat1, &beta) < 0) ||
        (kw[4] && pdt_parse_number_into(kw[4], "addmm(): alpha", mat1, &alpha) < 0))
        return NULL;
    product_call call = {.input = pdt_tensor_of(kw[0]),
                         .a = pdt_tensor_of(kw[1]),
                         .b = pdt_tensor_of(kw[2]),
                         .beta = beta,
                         .alpha = alpha};
    return run_product(S, &call);
}

static PyObject *f_addmm(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames)
{
    return addmm_impl(NULL, module, args, nargs, kwnames);
}

static PyObject *t_addmm(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return addmm_impl(self, NULL, args, nargs, kwnames);
}

/* ---- the @ operator ---- */

/* The module state reached from whichever operand is one of our tensors. */
static pdt_state *state_of_either(PyObject *a, PyObject *b)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(a));
    if (!S) {
        PyErr_Clear();
        S = pdt_state_of_type(Py_TYPE(b));
    }
    return S;
}

/* a @ b; NotImplemented unless both are tensors (so the other operand's
 * __rmatmul__ gets its turn). */
static PyObject *nb_matmul(PyObject *a, PyObject *b)
{
    pdt_state *S = state_of_either(a, b);
    if (!S)
        return NULL;
    /* before autograd: a NumPy array operand is the other operand's (or
     * __array_ufunc__'s) to handle, with autograd on or off */
    if (!pdt_is_tensor(S, a) || !pdt_is_tensor(S, b))
        Py_RETURN_NOTIMPLEMENTED;
    {
        PyObject *ab[2] = {a, b};
        PDT_AUTOGRAD_HOOK("matmul", 0, NULL, ab, 2, NULL);
    }
    product_call call = {.fn = pdt_matmul, .a = pdt_tensor_of(a), .b = pdt_tensor_of(b)};
    return run_product(S, &call);
}

/* a @= b: refused, as the result has another shape in general and cannot be
 * written into a.  Without this slot Python would quietly rebind a. */
static PyObject *nb_inplace_matmul(PyObject *a, PyObject *b)
{
    (void)a, (void)b;
    PyErr_SetString(PyExc_RuntimeError,
                    "in-place matmul (a @= b) is not supported: write a = a @ b, which makes a "
                    "new tensor");
    return NULL;
}

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

PyMethodDef pdt_matmul_methods[] = {
    {"matmul", FASTKW(t_matmul), doc_m_matmul}, {"mm", FASTKW(t_mm), doc_m_mm},
    {"bmm", FASTKW(t_bmm), doc_m_bmm},          {"addmm", FASTKW(t_addmm), doc_m_addmm},
    {"dot", FASTKW(t_dot), doc_m_dot},          {NULL, NULL, 0, NULL},
};

PyMethodDef pdt_matmul_functions[] = {
    {"matmul", FASTKW(f_matmul), doc_fn_matmul}, {"mm", FASTKW(f_mm), doc_fn_mm},
    {"bmm", FASTKW(f_bmm), doc_fn_bmm},          {"addmm", FASTKW(f_addmm), doc_fn_addmm},
    {"dot", FASTKW(f_dot), doc_fn_dot},          {NULL, NULL, 0, NULL},
};

PyType_Slot pdt_matmul_slots[] = {
    {Py_nb_matrix_multiply, nb_matmul},
    {Py_nb_inplace_matrix_multiply, nb_inplace_matmul},
    {0, NULL},
};
