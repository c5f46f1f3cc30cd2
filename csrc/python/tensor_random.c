/* tensor_random.c - rand, randn, randint, manual_seed and initial_seed, and the fills
 * uniform_ and normal_: every draw from the Philox generator (pdt_philox.h), the same
 * values on every device for one seed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "create_args.h"
#include "docstrings_create.h"

/* rand / randn(*size, dtype=None, device=None), or size=... */
static PyObject *create_random(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames, const char *fname, pdt_random_kind kind)
{
    pdt_state *S = pdt_state_of_module(module);
    static const char *const names[] = {"dtype", "device",    "pin_memory", "requires_grad",
                                        "out",   "generator", "size",       NULL};
    PyObject *kw[KW_COUNT + 1] = {NULL};
    pdt_create_opts o;
    int ndim;
    int64_t shape[PDT_MAX_DIMS];
    if (pdt_create_parse_opts(S, fname, args + nargs, kwnames, names, kw, &o) < 0)
        return NULL;
    pdt_generator *gen;
    if (pdt_generator_arg(S, kw[KW_EXTRA], fname, &gen) < 0)
        return NULL;
    if (pdt_create_parse_size(args, nargs, kw[KW_EXTRA + 1], fname, &ndim, shape) < 0)
        return NULL;
    int dtype = pdt_create_dtype(S, o.dtype);
    if (!pdt_dtype_is_floating((pdt_dtype)dtype)) {
        PyErr_Format(S->DTypeError, "%s(): dtype must be a floating point dtype, got %s", fname,
                     pdt_dtype_name((pdt_dtype)dtype));
        return NULL;
    }
    pdt_tensor t;
    if (!pdt_create_empty(S, &o, dtype, ndim, shape, &t))
        return NULL;
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_random(&t, gen, kind, 0.0, 1.0, 0, 0); /* U[0, 1) or N(0, 1) */
    Py_END_ALLOW_THREADS
    if (st != PDT_OK) {
        pdt_tensor_release(&t);
        return pdt_raise(S, st);
    }
    return pdt_create_finish(S, &o, fname, &t);
}

static PyObject *f_rand(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
    return create_random(m, a, n, kw, "rand", PDT_RANDOM_UNIFORM);
}

static PyObject *f_randn(PyObject *m, PyObject *const *a, Py_ssize_t n, PyObject *kw)
{
    return create_random(m, a, n, kw, "randn", PDT_RANDOM_NORMAL);
}

/* randint(high, size) / randint(low, high, size, *, dtype=int64, device=None); low, high
 * and size may be keywords, as PyTorch's (randint(low=0, high=10, size=(3,))) */
static PyObject *f_randint(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    pdt_state *S = pdt_state_of_module(module);
    static const char *const names[] = {"dtype", "device",    "pin_memory", "requires_grad", "out",
                                        "size",  "generator", "low",        "high",          NULL};
    PyObject *kw[KW_COUNT + 4] = {NULL};
    pdt_create_opts o;
    if (pdt_create_parse_opts(S, "randint", args + nargs, kwnames, names, kw, &o) < 0)
        return NULL;
    pdt_generator *gen;
    if (pdt_generator_arg(S, kw[KW_EXTRA + 1], "randint", &gen) < 0)
        return NULL;
    int64_t low = 0, high;
    PyObject *size = kw[KW_EXTRA], *klow = kw[KW_EXTRA + 2], *khigh = kw[KW_EXTRA + 3];
    Py_ssize_t nbounds = size || nargs == 0 ? nargs : nargs - 1;
    PyObject *olow = NULL, *ohigh = NULL;
    if (nbounds == 2 && !klow && !khigh)
        olow = args[0], ohigh = args[1];
    else if (nbounds == 1 && !klow)
        olow = khigh ? args[0] : NULL, ohigh = khigh ? khigh : args[0];
    else if (nbounds == 0)
        olow = klow, ohigh = khigh;
    if (!ohigh || (!size && nargs == 0)) {
        PyErr_SetString(PyExc_TypeError, "randint() takes (high, size) or (low, high, size), "
                                         "each positional or by name");
        return NULL;
    }
    if (!size)
        size = args[nargs - 1];
    if (olow && pdt_parse_int64(olow, "randint(): low", &low) < 0)
        return NULL;
    if (pdt_parse_int64(ohigh, "randint(): high", &high) < 0)
        return NULL;
    if (!PyTuple_Check(size) && !PyList_Check(size)) {
        PyErr_Format(PyExc_TypeError, "randint(): size must be a tuple of ints, got %.100s",
                     Py_TYPE(size)->tp_name);
        return NULL;
    }
    int ndim;
    int64_t shape[PDT_MAX_DIMS];
    if (pdt_parse_sizes(&size, 1, &ndim, shape, "randint") < 0)
        return NULL;
    if (high <= low) {
        PyErr_Format(S->InvalidArgumentError,
                     "randint(): random_ expects 'from' to be less than 'to', but got from=%lld "
                     ">= to=%lld",
                     (long long)low, (long long)high);
        return NULL;
    }
    pdt_tensor t;
    if (!pdt_create_empty(S, &o, o.dtype >= 0 ? o.dtype : PDT_INT64, ndim, shape, &t))
        return NULL;
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_random(&t, gen, PDT_RANDOM_INT, 0.0, 0.0, low, high);
    Py_END_ALLOW_THREADS
    if (st != PDT_OK) {
        pdt_tensor_release(&t);
        return pdt_raise(S, st);
    }
    return pdt_create_finish(S, &o, "randint", &t);
}

/* Fills self (any layout) from the generator: a contiguous tensor directly, a
 * strided one through a contiguous temporary on its device. */
static PyObject *random_fill_(PyObject *self, PyObject *generator, pdt_random_kind kind, double a,
                              double b, const char *name)
{
    pdt_state *S = pdt_state_of_type(Py_TYPE(self));
    const pdt_tensor *t = pdt_tensor_of(self);
    pdt_generator *gen;
    if (!S || pdt_generator_arg(S, generator, name, &gen) < 0)
        return NULL;
    if (!pdt_dtype_is_floating(t->dtype)) {
        /* a TypeError and a RuntimeError (PyTorch's NotImplementedError is one) */
        PyErr_Format(S->DTypeError, "%s(): expects a floating point tensor, got %s", name,
                     pdt_dtype_name(t->dtype));
        return NULL;
    }
    pdt_status st;
    pdt_tensor tmp = {0};
    pdt_hold h = {0}; /* Note [the GIL and storages] */
    t = pdt_hold_view(&h, t);
    Py_BEGIN_ALLOW_THREADS
    if (pdt_tensor_is_contiguous(t)) {
        st = pdt_random(t, gen, kind, a, b, 0, 0);
    } else {
        st = pdt_tensor_empty(t->device, t->dtype, t->ndim, t->shape, 0, &tmp);
        if (st == PDT_OK)
            st = pdt_random(&tmp, gen, kind, a, b, 0, 0);
        if (st == PDT_OK)
            st = pdt_copy(t, &tmp, 0);
        pdt_tensor_release(&tmp);
    }
    Py_END_ALLOW_THREADS
    pdt_hold_release(&h);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    pdt_bump_version(self); /* Note [version counter] */
    return Py_NewRef(self);
}

/* uniform_(from=0, to=1, *, generator=None) and normal_(mean=0, std=1, *,
 * generator=None), in place, as in PyTorch; names[2] is "generator". */
static PyObject *two_doubles(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                             const char *fname, const char *const *names, double *a, double *b,
                             PyObject **generator)
{
    PyObject *kw[3] = {NULL, NULL, NULL};
    if (nargs > 2 || pdt_parse_keywords(fname, args + nargs, kwnames, names, kw) < 0) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "%s() takes at most 2 arguments", fname);
        return NULL;
    }
    for (int i = 0; i < 2; i++) {
        PyObject *o = i < nargs ? args[i] : kw[i];
        if (i < nargs && kw[i]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for '%s'", fname, names[i]);
            return NULL;
        }
        if (!o)
            continue;
        double v = PyFloat_AsDouble(o);
        if (v == -1.0 && PyErr_Occurred())
            return NULL;
        *(i ? b : a) = v;
    }
    *generator = kw[2];
    return Py_None;
}

static PyObject *t_uniform_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    PDT_AUTOGRAD_HOOK("uniform_", 1, self, args, nargs, kwnames);
    static const char *const names[] = {"from", "to", "generator", NULL};
    double a = 0.0, b = 1.0;
    PyObject *generator;
    if (!two_doubles(args, nargs, kwnames, "uniform_", names, &a, &b, &generator))
        return NULL;
    if (!(a <= b)) {
        pdt_create_value_error(pdt_state_of_type(Py_TYPE(self)),
                               "uniform_(): from (%g) must not exceed to (%g)", a, b);
        return NULL;
    }
    /* a range the dtype holds, width included, as PyTorch checks: else the draws are
     * inf (uniform_(0, inf), uniform_(-3e38, 3e38) in float32) */
    pdt_dtype dt = pdt_tensor_of(self)->dtype;
    if (pdt_dtype_is_floating(dt) &&
        (!isfinite(a) || !isfinite(b) || !pdt_scalar_fits(dt, (pdt_scalar){1, a, 0}) ||
         !pdt_scalar_fits(dt, (pdt_scalar){1, b, 0}) ||
         !pdt_scalar_fits(dt, (pdt_scalar){1, b - a, 0}))) {
        char dev[32];
        pdt_create_value_error(
            pdt_state_of_type(Py_TYPE(self)),
            "uniform_(): the range [%g, %g) and its width %g must be finite in %s (a "
            "tensor on %s)",
            a, b, b - a, pdt_dtype_name(dt),
            pdt_device_str(pdt_tensor_of(self)->device, dev, sizeof dev));
        return NULL;
    }
    return random_fill_(self, generator, PDT_RANDOM_UNIFORM, a, b, "uniform_");
}

static PyObject *t_normal_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    PDT_AUTOGRAD_HOOK("normal_", 1, self, args, nargs, kwnames);
    static const char *const names[] = {"mean", "std", "generator", NULL};
    double mean = 0.0, std = 1.0;
    PyObject *generator;
    if (!two_doubles(args, nargs, kwnames, "normal_", names, &mean, &std, &generator))
        return NULL;
    if (!(std >= 0)) {
        pdt_create_value_error(pdt_state_of_type(Py_TYPE(self)),
                               "normal_(): std must be >= 0, got %g", std);
        return NULL;
    }
    return random_fill_(self, generator, PDT_RANDOM_NORMAL, mean, std, "normal_");
}

PyMethodDef pdt_tensor_random_methods[] = {
    {"uniform_", (PyCFunction)(void (*)(void))t_uniform_, METH_FASTCALL | METH_KEYWORDS,
     doc_uniform_},
    {"normal_", (PyCFunction)(void (*)(void))t_normal_, METH_FASTCALL | METH_KEYWORDS, doc_normal_},
    {NULL, NULL, 0, NULL},
};

static PyObject *f_manual_seed(PyObject *module, PyObject *seed)
{
    (void)module;
    if (PyBool_Check(seed) || !PyLong_Check(seed)) {
        PyErr_Format(PyExc_TypeError, "manual_seed(): seed must be an int, got %.100s",
                     Py_TYPE(seed)->tp_name);
        return NULL;
    }
    /* Any int works: it is reduced modulo 2^64, as PyTorch does. */
    unsigned long long s = PyLong_AsUnsignedLongLongMask(seed);
    if (s == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    pdt_manual_seed(s);
    Py_RETURN_NONE;
}

static PyObject *f_initial_seed(PyObject *module, PyObject *unused)
{
    (void)module, (void)unused;
    return PyLong_FromUnsignedLongLong(pdt_initial_seed());
}

PDT_CREATE_RG_WRAP(rand)
PDT_CREATE_RG_WRAP(randn)
PDT_CREATE_RG_WRAP(randint)

PyMethodDef pdt_random_functions[] = {
    {"rand", FASTKW(f_rand_rg), doc_rand},
    {"randn", FASTKW(f_randn_rg), doc_randn},
    {"randint", FASTKW(f_randint_rg), doc_randint},
    {"manual_seed", f_manual_seed, METH_O, doc_manual_seed},
    {"initial_seed", f_initial_seed, METH_NOARGS, doc_initial_seed},
    {NULL, NULL, 0, NULL},
};
