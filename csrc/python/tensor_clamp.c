/* tensor_clamp.c - clamp(input, min=None, max=None, *, out=None), x.clamp and
 * x.clamp_: scalar bounds go to the core's clamp (pdt_unary), tensor bounds to
 * maximum then minimum in the joint dtype of all three.  The argument handling is
 * tensor_math.c's (tensor_forms.h). */
#include <stdio.h>

#include "args.h"
#include "docstrings_math.h"
#include "pdt_elementwise.h"
#include "pdt_ops.h"
#include "tensor_forms.h"
#include "wide_ints.h"

/* clamp with a tensor bound: maximum(x, min), then minimum(., max), as
 * PyTorch defines it (NaN bounds propagate), in the dtype of all three: x is
 * converted to it first where the pair (x, min) would give another (an int32 x
 * with 0-d float16 and float64 bounds is clamped in float64, not float16, where
 * a max of 1e5 would be inf).  No Python; *result when out is NULL. */
static pdt_status clamp_by_ops(const char *name, pdt_arg x, const pdt_arg *lo, const pdt_arg *hi,
                               const pdt_tensor *out, pdt_tensor *result)
{
    if (!lo || !hi)
        return pdt_binary(name, lo ? PDT_OP_MAXIMUM : PDT_OP_MINIMUM, x, lo ? *lo : *hi, out,
                          result);
    const pdt_arg all[3] = {x, *lo, *hi}, pair[2] = {x, *lo};
    const pdt_dtype joint = pdt_result_type(3, all);
    pdt_tensor wide = {0}, low = {0};
    pdt_status st = PDT_OK;
    if (joint != pdt_result_type(2, pair)) {
        st = pdt_copy_to_new_in_order(x.t, joint, &wide);
        x.t = &wide;
    }
    if (st == PDT_OK)
        st = pdt_binary(name, PDT_OP_MAXIMUM, x, *lo, NULL, &low);
    if (st == PDT_OK) {
        x.t = &low;
        st = pdt_binary(name, PDT_OP_MINIMUM, x, *hi, out, result);
    }
    pdt_tensor_release(&low);
    pdt_tensor_release(&wide);
    return st;
}

/* PyTorch's range check of integer bounds: a min above every value of an integer
 * input's dtype, or a max below every one, has no value of that dtype to give
 * (uint8 clamped to max=-1 became 0 and int8 to min=200 became 127, where
 * PyTorch refuses both); a min below the dtype or a max above it clamps nothing
 * and passes.  Only integer scalar bounds, which keep the input's dtype; a Python
 * int beyond 64 bits (is_wide) is read by its sign, before pdt_wide_clamp. */
static pdt_status clamp_range_check(const char *name, const pdt_tensor *x, pdt_arg *const bound[3])
{
    if (!pdt_dtype_is_integer(x->dtype))
        return PDT_OK;
    for (int i = 1; i < 3; i++)
        if (bound[i] && (bound[i]->t || (bound[i]->s.is_float && !bound[i]->is_wide)))
            return PDT_OK; /* a tensor or float bound: another result dtype */
    int64_t lo, hi;
    pdt_int_range(x->dtype, &lo, &hi);
    for (int i = 1; i < 3; i++) {
        const pdt_arg *b = bound[i];
        if (!b)
            continue;
        int above = b->is_wide ? b->s.f > 0 : b->s.i > hi;
        int below = b->is_wide ? b->s.f < 0 : b->s.i < lo;
        if (i == 1 ? !above : !below)
            continue;
        char shape[96], value[48];
        if (b->is_wide)
            snprintf(value, sizeof value, "%.17g", b->s.f);
        else
            snprintf(value, sizeof value, "%lld", (long long)b->s.i);
        return pdt_fail(PDT_ERR_VALUE,
                        "%s(): %s=%s is outside the representable range of %s, the dtype of "
                        "input (shape %s), as PyTorch refuses it",
                        name, i == 1 ? "min" : "max", value, pdt_dtype_name(x->dtype),
                        pdt_shape_str(x->ndim, x->shape, shape, sizeof shape));
    }
    return PDT_OK;
}

/* function: clamp(input, min=None, max=None, *, out=None); method:
 * self.clamp(min=None, max=None); in place: self.clamp_(min=None, max=None). */
static PyObject *clamp_form(pdt_state *S, PyObject *self, int form, const char *name,
                            PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"input", "min", "max", "out", NULL};
    PyObject *kw[4] = {NULL, NULL, NULL, NULL}, *out_obj;
    PDT_AUTOGRAD_HOOK(name, form != PDT_FORM_FUNCTION, self, args, nargs, kwnames);
    pdt_arg args3[3], *bound[3] = {NULL, NULL, NULL};
    if (!S || pdt_form_gather(name, self, args, nargs, kwnames, names, 3, kw) < 0 ||
        pdt_form_output(S, name, form, self, kw[3], &out_obj) < 0)
        return NULL;
    for (int i = 0; i < 3; i++) {
        if (i > 0 && (!kw[i] || kw[i] == Py_None))
            continue;
        if (!kw[i] || pdt_form_arg(S, kw[i], name, names[i], &args3[i]) < 0) {
            if (!kw[i])
                PyErr_Format(PyExc_TypeError, "%s() missing required argument 'input'", name);
            return NULL;
        }
        bound[i] = &args3[i];
    }
    PyObject *x = kw[0];
    if (!bound[0]->t) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'input' must be a Tensor", name);
        return NULL;
    }
    pdt_status range = clamp_range_check(name, bound[0]->t, bound);
    if (range != PDT_OK)
        return pdt_raise(S, range);
    pdt_wide_clamp(bound);
    if (!(bound[1] && bound[1]->t) && !(bound[2] && bound[2]->t))
        return pdt_form_run_unary(S, name, PDT_OP_CLAMP, x, bound[1], bound[2], out_obj);

    pdt_tensor result;
    const pdt_tensor *out = out_obj ? pdt_tensor_of(out_obj) : NULL;
    pdt_status st;
    pdt_hold h = {0}; /* Note [the GIL and storages] */
    pdt_arg xa = *bound[0], l, u;
    const pdt_arg *lo = NULL, *hi = NULL;
    xa.t = pdt_hold_view(&h, xa.t);
    if (bound[1])
        l = *bound[1], l.t = pdt_hold_view(&h, l.t), lo = &l;
    if (bound[2])
        u = *bound[2], u.t = pdt_hold_view(&h, u.t), hi = &u;
    out = pdt_hold_view(&h, out);
    Py_BEGIN_ALLOW_THREADS
    st = clamp_by_ops(name, xa, lo, hi, out, &result);
    Py_END_ALLOW_THREADS
    pdt_hold_release(&h);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    if (out_obj)
        pdt_bump_version(out_obj); /* Note [version counter] */
    return out_obj ? Py_NewRef(out_obj) : pdt_tensor_wrap_new(S, &result);
}

static PyObject *fn_clamp(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kw)
{
    return clamp_form(pdt_state_of_module(module), NULL, PDT_FORM_FUNCTION, "clamp", args, nargs,
                      kw);
}
static PyObject *m_clamp(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw)
{
    return clamp_form(pdt_state_of_tensor(self), self, PDT_FORM_METHOD, "clamp", args, nargs, kw);
}
static PyObject *m_clamp_(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kw)
{
    return clamp_form(pdt_state_of_tensor(self), self, PDT_FORM_INPLACE, "clamp_", args, nargs, kw);
}

PyMethodDef pdt_clamp_functions[] = {
    {"clamp", FASTKW(fn_clamp), doc_fn_clamp},
    {NULL, NULL, 0, NULL},
};

PyMethodDef pdt_clamp_methods[] = {
    {"clamp", FASTKW(m_clamp), doc_m_clamp},
    {"clamp_", FASTKW(m_clamp_), doc_m_clamp_},
    {NULL, NULL, 0, NULL},
};
