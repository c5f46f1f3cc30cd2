/* linalg.c - the private module functions behind pydevtensor.linalg's solvers:
 * _lu_factor, _lu_solve and _cholesky_factor, each one call into the core
 * (pdt_linalg.h) with the GIL released, on views it holds (Note [the GIL and
 * storages]).  pydevtensor/_linalg_solve.py makes the column-major copies,
 * broadcasts, reads info and raises LinAlgError. */
#include "pdt_linalg.h"
#include "pdt_module.h"

/* Releases the views; None, or the exception of the status. */
static PyObject *done(pdt_state *S, pdt_hold *h, pdt_status st)
{
    pdt_hold_release(h);
    if (st != PDT_OK)
        return pdt_raise(S, st);
    Py_RETURN_NONE;
}

/* _lu_factor(a, pivots, info): a overwritten by its LU factors. */
static PyObject *f_lu_factor(PyObject *module, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *a, *p, *i;
    if (!PyArg_ParseTuple(args, "O!O!O!:_lu_factor", S->tensor_type, &a, S->tensor_type, &p,
                          S->tensor_type, &i))
        return NULL;
    pdt_hold h = {0};
    const pdt_tensor *ta = pdt_hold_view(&h, pdt_tensor_of(a));
    const pdt_tensor *tp = pdt_hold_view(&h, pdt_tensor_of(p));
    const pdt_tensor *ti = pdt_hold_view(&h, pdt_tensor_of(i));
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_lu_factor(ta, tp, ti);
    Py_END_ALLOW_THREADS
    return done(S, &h, st);
}

/* _lu_solve(lu, pivots, b): b overwritten by the solution. */
static PyObject *f_lu_solve(PyObject *module, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *lu, *p, *b;
    if (!PyArg_ParseTuple(args, "O!O!O!:_lu_solve", S->tensor_type, &lu, S->tensor_type, &p,
                          S->tensor_type, &b))
        return NULL;
    pdt_hold h = {0};
    const pdt_tensor *tl = pdt_hold_view(&h, pdt_tensor_of(lu));
    const pdt_tensor *tp = pdt_hold_view(&h, pdt_tensor_of(p));
    const pdt_tensor *tb = pdt_hold_view(&h, pdt_tensor_of(b));
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_lu_solve(tl, tp, tb);
    Py_END_ALLOW_THREADS
    return done(S, &h, st);
}

/* _cholesky_factor(a, upper, info): a's triangle overwritten by the factor. */
static PyObject *f_cholesky_factor(PyObject *module, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *a, *i;
    int upper;
    if (!PyArg_ParseTuple(args, "O!pO!:_cholesky_factor", S->tensor_type, &a, &upper,
                          S->tensor_type, &i))
        return NULL;
    pdt_hold h = {0};
    const pdt_tensor *ta = pdt_hold_view(&h, pdt_tensor_of(a));
    const pdt_tensor *ti = pdt_hold_view(&h, pdt_tensor_of(i));
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_cholesky_factor(ta, upper, ti);
    Py_END_ALLOW_THREADS
    return done(S, &h, st);
}

PyMethodDef pdt_linalg_functions[] = {
    {"_lu_factor", f_lu_factor, METH_VARARGS, NULL},
    {"_lu_solve", f_lu_solve, METH_VARARGS, NULL},
    {"_cholesky_factor", f_cholesky_factor, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
