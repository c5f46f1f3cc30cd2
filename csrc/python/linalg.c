/* linalg.c - the private module functions behind pydevtensor.linalg's solvers
 * and decompositions: _lu_factor, _lu_solve, _cholesky_factor, _eigh, _svd,
 * _qr_factor and _qr_orgqr, each one call into the core
 * (pdt_linalg.h) with the GIL released, on views it holds (Note [the GIL and
 * storages]).  pydevtensor/_linalg_solve.py makes the column-major copies,
 * broadcasts, reads info and raises LinAlgError. */
#include "pdt_linalg.h"
#include "pdt_module.h"

/* _lu_factor(a, pivots, info): a overwritten by its LU factors; and
 * _lu_solve(lu, pivots, b): b overwritten by the solution (solve = 1). */
static PyObject *lu_call(PyObject *module, PyObject *args, int solve)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *t[3];
    if (!PyArg_ParseTuple(args, solve ? "O!O!O!:_lu_solve" : "O!O!O!:_lu_factor", S->tensor_type,
                          &t[0], S->tensor_type, &t[1], S->tensor_type, &t[2]))
        return NULL;
    pdt_hold h = {0};
    const pdt_tensor *v[3];
    for (int i = 0; i < 3; i++)
        v[i] = pdt_hold_view(&h, pdt_tensor_of(t[i]));
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = solve ? pdt_lu_solve(v[0], v[1], v[2]) : pdt_lu_factor(v[0], v[1], v[2]);
    Py_END_ALLOW_THREADS
    return pdt_hold_done(S, &h, st);
}

static PyObject *f_lu_factor(PyObject *module, PyObject *args) { return lu_call(module, args, 0); }

static PyObject *f_lu_solve(PyObject *module, PyObject *args) { return lu_call(module, args, 1); }

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
    return pdt_hold_done(S, &h, st);
}

/* _eigh(a, upper, vectors, w, info): w the eigenvalues, a the eigenvectors. */
static PyObject *f_eigh(PyObject *module, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *a, *w, *i;
    int upper, vectors;
    if (!PyArg_ParseTuple(args, "O!ppO!O!:_eigh", S->tensor_type, &a, &upper, &vectors,
                          S->tensor_type, &w, S->tensor_type, &i))
        return NULL;
    pdt_hold h = {0};
    const pdt_tensor *ta = pdt_hold_view(&h, pdt_tensor_of(a));
    const pdt_tensor *tw = pdt_hold_view(&h, pdt_tensor_of(w));
    const pdt_tensor *ti = pdt_hold_view(&h, pdt_tensor_of(i));
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_eigh(ta, upper, vectors, tw, ti);
    Py_END_ALLOW_THREADS
    return pdt_hold_done(S, &h, st);
}

/* The tensor of o, or NULL for None (-1 with TypeError for anything else). */
static int tensor_or_none(pdt_state *S, PyObject *o, const pdt_tensor **out)
{
    *out = NULL;
    if (o == Py_None)
        return 0;
    if (!PyObject_TypeCheck(o, S->tensor_type)) {
        PyErr_Format(PyExc_TypeError, "expected a Tensor or None, got %.80s", Py_TYPE(o)->tp_name);
        return -1;
    }
    *out = pdt_tensor_of(o);
    return 0;
}

/* _svd(a, vectors, s, u, vt, info): s the singular values, u and vt (None when
 * vectors is 0) the singular vectors; a destroyed. */
static PyObject *f_svd(PyObject *module, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *a, *s, *u, *vt, *i;
    int vectors;
    if (!PyArg_ParseTuple(args, "O!iO!OOO!:_svd", S->tensor_type, &a, &vectors, S->tensor_type, &s,
                          &u, &vt, S->tensor_type, &i))
        return NULL;
    const pdt_tensor *pu, *pv;
    if (tensor_or_none(S, u, &pu) < 0 || tensor_or_none(S, vt, &pv) < 0)
        return NULL;
    pdt_hold h = {0};
    const pdt_tensor *ta = pdt_hold_view(&h, pdt_tensor_of(a));
    const pdt_tensor *ts = pdt_hold_view(&h, pdt_tensor_of(s));
    const pdt_tensor *tu = pdt_hold_view(&h, pu), *tv = pdt_hold_view(&h, pv);
    const pdt_tensor *ti = pdt_hold_view(&h, pdt_tensor_of(i));
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pdt_svd(ta, vectors, ts, tu, tv, ti);
    Py_END_ALLOW_THREADS
    return pdt_hold_done(S, &h, st);
}

/* _qr_factor(a, tau): a overwritten by R and the reflectors (orgqr 0); and
 * _qr_orgqr(q, tau): q overwritten by Q (orgqr 1). */
static PyObject *qr_call(PyObject *module, PyObject *args, int orgqr)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *a, *t;
    if (!PyArg_ParseTuple(args, orgqr ? "O!O!:_qr_orgqr" : "O!O!:_qr_factor", S->tensor_type, &a,
                          S->tensor_type, &t))
        return NULL;
    pdt_hold h = {0};
    const pdt_tensor *ta = pdt_hold_view(&h, pdt_tensor_of(a));
    const pdt_tensor *tt = pdt_hold_view(&h, pdt_tensor_of(t));
    pdt_status st;
    Py_BEGIN_ALLOW_THREADS
    st = orgqr ? pdt_qr_orgqr(ta, tt) : pdt_qr_factor(ta, tt);
    Py_END_ALLOW_THREADS
    return pdt_hold_done(S, &h, st);
}

static PyObject *f_qr_factor(PyObject *module, PyObject *args) { return qr_call(module, args, 0); }

static PyObject *f_qr_orgqr(PyObject *module, PyObject *args) { return qr_call(module, args, 1); }

PyMethodDef pdt_linalg_functions[] = {
    {"_qr_factor", f_qr_factor, METH_VARARGS, NULL},
    {"_qr_orgqr", f_qr_orgqr, METH_VARARGS, NULL},
    {"_eigh", f_eigh, METH_VARARGS, NULL},
    {"_svd", f_svd, METH_VARARGS, NULL},
    {"_lu_factor", f_lu_factor, METH_VARARGS, NULL},
    {"_lu_solve", f_lu_solve, METH_VARARGS, NULL},
    {"_cholesky_factor", f_cholesky_factor, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
