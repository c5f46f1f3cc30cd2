/* tensor_forms.h - the three Python forms of an elementwise op, shared by
 * tensor_math.c and tensor_round.c: the function pydevtensor.NAME(input, *,
 * out=None), the method x.NAME() and the in-place method x.NAME_() -> x. */
#ifndef PDT_TENSOR_FORMS_H
#define PDT_TENSOR_FORMS_H

#include "pdt_elementwise.h"
#include "pdt_module.h"

enum { PDT_FORM_FUNCTION, PDT_FORM_METHOD, PDT_FORM_INPLACE };

/* The module state of a tensor (Note [lean operators] in tensor_math.c). */
static inline pdt_state *pdt_state_of_tensor(PyObject *t)
{
    PyObject *m = ((PyHeapTypeObject *)Py_TYPE(t))->ht_module;
    return m ? (pdt_state *)PyModule_GetState(m) : pdt_state_of_type(Py_TYPE(t));
}

/* Unary op `op` in form `form` (self: the tensor of the method forms, else NULL),
 * with autograd's hook first (tensor_math.c). */
/* tensor_math.c's argument handling, shared with tensor_clamp.c: pdt_form_arg turns a
 * named argument into an operand (anything but a tensor or a number: a TypeError naming
 * fname and what); pdt_form_gather gathers a form's arguments into vals[] (names[0..npos)
 * by position or keyword, the rest by keyword only; self takes names[0]);
 * pdt_form_output finds the tensor a form writes into (self in place, out= in the
 * function form, else NULL); pdt_form_run_unary runs the core's unary op (bounds: clamp's,
 * or NULL) on x into out_obj or a new tensor. */
int pdt_form_arg(pdt_state *S, PyObject *o, const char *fname, const char *what, pdt_arg *arg);
int pdt_form_gather(const char *name, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                    PyObject *kwnames, const char *const *names, int npos, PyObject **vals);
int pdt_form_output(pdt_state *S, const char *name, int form, PyObject *self, PyObject *out,
                    PyObject **target);
PyObject *pdt_form_run_unary(pdt_state *S, const char *name, pdt_unary_op op, PyObject *x,
                             const pdt_arg *lo, const pdt_arg *hi, PyObject *out_obj);
PyObject *pdt_unary_form(pdt_state *S, PyObject *self, int form, const char *name, pdt_unary_op op,
                         PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* Binary op `op` (input, other, *, out=None) in form `form`, as tensor_math.c's own
 * (tensor_trig.c's atan2). */
PyObject *pdt_binary_form(pdt_state *S, PyObject *self, int form, const char *name,
                          pdt_binary_op op, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames);

/* fn_NAME, m_NAME and m_NAME_ for a unary op: the entry points of the three forms. */
#define UNARY_FUNCTION(PYNAME, OP)                                                                 \
    static PyObject *fn_##PYNAME(PyObject *module, PyObject *const *args, Py_ssize_t nargs,        \
                                 PyObject *kwnames)                                                \
    {                                                                                              \
        return pdt_unary_form(pdt_state_of_module(module), NULL, PDT_FORM_FUNCTION, #PYNAME, OP,   \
                              args, nargs, kwnames);                                               \
    }
#define UNARY_METHODS(PYNAME, OP)                                                                  \
    static PyObject *m_##PYNAME(PyObject *self, PyObject *const *args, Py_ssize_t nargs,           \
                                PyObject *kwnames)                                                 \
    {                                                                                              \
        return pdt_unary_form(pdt_state_of_tensor(self), self, PDT_FORM_METHOD, #PYNAME, OP, args, \
                              nargs, kwnames);                                                     \
    }                                                                                              \
    static PyObject *m_##PYNAME##_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,        \
                                   PyObject *kwnames)                                              \
    {                                                                                              \
        return pdt_unary_form(pdt_state_of_tensor(self), self, PDT_FORM_INPLACE, #PYNAME "_", OP,  \
                              args, nargs, kwnames);                                               \
    }
#define UNARY_ALL(PYNAME, OP) UNARY_FUNCTION(PYNAME, OP) UNARY_METHODS(PYNAME, OP)

/* fn_PYNAME, m_PYNAME and m_PYNAME_ of a binary op: pdt_binary_form's three forms */
#define BINARY_OP_FORMS(PYNAME, OP)                                                                \
    static PyObject *fn_##PYNAME(PyObject *module, PyObject *const *args, Py_ssize_t nargs,        \
                                 PyObject *kwnames)                                                \
    {                                                                                              \
        return pdt_binary_form(pdt_state_of_module(module), NULL, PDT_FORM_FUNCTION, #PYNAME, OP,  \
                               args, nargs, kwnames);                                              \
    }                                                                                              \
    static PyObject *m_##PYNAME(PyObject *self, PyObject *const *args, Py_ssize_t nargs,           \
                                PyObject *kwnames)                                                 \
    {                                                                                              \
        return pdt_binary_form(pdt_state_of_tensor(self), self, PDT_FORM_METHOD, #PYNAME, OP,      \
                               args, nargs, kwnames);                                              \
    }                                                                                              \
    static PyObject *m_##PYNAME##_(PyObject *self, PyObject *const *args, Py_ssize_t nargs,        \
                                   PyObject *kwnames)                                              \
    {                                                                                              \
        return pdt_binary_form(pdt_state_of_tensor(self), self, PDT_FORM_INPLACE, #PYNAME "_", OP, \
                               args, nargs, kwnames);                                              \
    }

#endif /* PDT_TENSOR_FORMS_H */
