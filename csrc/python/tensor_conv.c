/* tensor_conv.c - the private module functions behind convolutions and pooling:
 *
 *   _im2col(x, kernel, dilation, padding, stride, pad_value=0.0) -> cols
 *   _col2im(cols, output_hw, kernel, dilation, padding, stride) -> image
 *   _conv2d(x, weight, bias or None, stride, padding, dilation, groups) -> out
 *   _conv2d_grad_weight(x, grad_out, kernel, stride, padding, dilation, groups) -> dw
 *
 * kernel, dilation, padding, stride and output_hw are each a pair (a tuple or
 * list of two ints), (h, w).  The core (pdt_conv.h) validates and does the work;
 * the GIL is released around large calls, the input held (Note [the GIL and
 * storages]).  pydevtensor/nn builds unfold/fold, conv2d and the pools on them. */
#include "args.h"
#include "pdt_conv.h"

/* A pair of ints (tuple or list) into v, or TypeError naming fname and what. */
static int parse_pair(PyObject *obj, const char *fname, const char *what, int64_t v[2])
{
    if ((!PyTuple_Check(obj) && !PyList_Check(obj)) || PySequence_Fast_GET_SIZE(obj) != 2) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a pair of ints (h, w), got %R", fname, what,
                     obj);
        return -1;
    }
    /* a tuple of its own: an item's __index__ may change a list while it is read */
    PyObject *items = PySequence_Tuple(obj);
    if (!items)
        return -1;
    char name[64];
    int rc = PyTuple_GET_SIZE(items) == 2 ? 0 : -1;
    if (rc < 0)
        PyErr_Format(PyExc_TypeError, "%s: %s must be a pair of ints (h, w)", fname, what);
    for (int k = 0; rc == 0 && k < 2; k++) {
        PyOS_snprintf(name, sizeof name, "%s: %s[%d]", fname, what, k);
        rc = pdt_parse_int64(PyTuple_GET_ITEM(items, k), name, &v[k]);
    }
    Py_DECREF(items);
    return rc;
}

/* kernel, dilation, padding, stride from objs[0..4) into w. */
static int parse_window(PyObject *const *objs, const char *fname, pdt_window2d *w)
{
    memset(w, 0, sizeof *w);
    return parse_pair(objs[0], fname, "kernel", w->kernel) < 0 ||
                   parse_pair(objs[1], fname, "dilation", w->dilation) < 0 ||
                   parse_pair(objs[2], fname, "padding", w->padding) < 0 ||
                   parse_pair(objs[3], fname, "stride", w->stride) < 0
               ? -1
               : 0;
}

static PyObject *f_im2col(PyObject *module, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *x, *p[4];
    double pad_value = 0.0;
    if (!PyArg_ParseTuple(args, "O!OOOO|d:_im2col", S->tensor_type, &x, &p[0], &p[1], &p[2], &p[3],
                          &pad_value))
        return NULL;
    pdt_window2d w;
    if (parse_window(p, "_im2col", &w) < 0)
        return NULL;
    pdt_hold h = {0};
    const pdt_tensor *tx = pdt_hold_view(&h, pdt_tensor_of(x));
    pdt_tensor out;
    pdt_status st;
    /* the output is about kh * kw times the input: that is the work */
    PDT_RUN_RELEASING_GIL((double)pdt_tensor_numel(tx) * (double)w.kernel[0] * (double)w.kernel[1],
                          st = pdt_im2col_new(tx, &w, pad_value, &out));
    pdt_hold_release(&h);
    return st == PDT_OK ? pdt_tensor_wrap_new(S, &out) : pdt_raise(S, st);
}

static PyObject *f_col2im(PyObject *module, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *cols, *hw, *p[4];
    if (!PyArg_ParseTuple(args, "O!OOOOO:_col2im", S->tensor_type, &cols, &hw, &p[0], &p[1], &p[2],
                          &p[3]))
        return NULL;
    pdt_window2d w;
    int64_t output_hw[2];
    if (parse_pair(hw, "_col2im", "output_size", output_hw) < 0 ||
        parse_window(p, "_col2im", &w) < 0)
        return NULL;
    pdt_hold h = {0};
    const pdt_tensor *tc = pdt_hold_view(&h, pdt_tensor_of(cols));
    pdt_tensor out;
    pdt_status st;
    PDT_RUN_RELEASING_GIL(pdt_tensor_numel(tc), st = pdt_col2im_new(tc, output_hw, &w, &out));
    pdt_hold_release(&h);
    return st == PDT_OK ? pdt_tensor_wrap_new(S, &out) : pdt_raise(S, st);
}

/* [kernel,] stride, padding, dilation (in that order) from objs into w: n = 4 with
 * the kernel, 3 without. */
static int parse_conv_window(PyObject *const *objs, int n, const char *fname, pdt_window2d *w)
{
    int64_t *fields[4] = {w->kernel, w->stride, w->padding, w->dilation};
    const char *names[4] = {"kernel", "stride", "padding", "dilation"};
    memset(w, 0, sizeof *w);
    for (int k = 0; k < n; k++)
        if (parse_pair(objs[k], fname, names[4 - n + k], fields[4 - n + k]) < 0)
            return -1;
    return 0;
}

static PyObject *f_conv2d(PyObject *module, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *x, *w, *b, *p[3];
    long long groups;
    if (!PyArg_ParseTuple(args, "O!O!OOOOL:_conv2d", S->tensor_type, &x, S->tensor_type, &w, &b,
                          &p[0], &p[1], &p[2], &groups))
        return NULL;
    if (b != Py_None && !PyObject_TypeCheck(b, S->tensor_type)) {
        PyErr_Format(PyExc_TypeError, "_conv2d: bias must be a Tensor or None, got %s",
                     Py_TYPE(b)->tp_name);
        return NULL;
    }
    pdt_window2d win;
    if (parse_conv_window(p, 3, "_conv2d", &win) < 0)
        return NULL;
    pdt_hold h = {0};
    const pdt_tensor *tx = pdt_hold_view(&h, pdt_tensor_of(x));
    const pdt_tensor *tw = pdt_hold_view(&h, pdt_tensor_of(w));
    const pdt_tensor *tb = b == Py_None ? NULL : pdt_hold_view(&h, pdt_tensor_of(b));
    pdt_tensor out;
    pdt_status st;
    /* the work: about the output times the weight's elements per output channel */
    PDT_RUN_RELEASING_GIL((double)pdt_tensor_numel(tx) * (double)pdt_tensor_numel(tw),
                          st = pdt_conv2d_new(tx, tw, tb, &win, (int64_t)groups, &out));
    pdt_hold_release(&h);
    return st == PDT_OK ? pdt_tensor_wrap_new(S, &out) : pdt_raise(S, st);
}

static PyObject *f_conv2d_grad_weight(PyObject *module, PyObject *args)
{
    pdt_state *S = pdt_state_of_module(module);
    PyObject *x, *g, *p[4];
    long long groups;
    if (!PyArg_ParseTuple(args, "O!O!OOOOL:_conv2d_grad_weight", S->tensor_type, &x, S->tensor_type,
                          &g, &p[0], &p[1], &p[2], &p[3], &groups))
        return NULL;
    pdt_window2d win;
    if (parse_conv_window(p, 4, "_conv2d_grad_weight", &win) < 0)
        return NULL;
    pdt_hold h = {0};
    const pdt_tensor *tx = pdt_hold_view(&h, pdt_tensor_of(x));
    const pdt_tensor *tg = pdt_hold_view(&h, pdt_tensor_of(g));
    pdt_tensor out;
    pdt_status st;
    PDT_RUN_RELEASING_GIL((double)pdt_tensor_numel(tg) * (double)pdt_tensor_numel(tx),
                          st = pdt_conv2d_grad_weight_new(tx, tg, &win, (int64_t)groups, &out));
    pdt_hold_release(&h);
    return st == PDT_OK ? pdt_tensor_wrap_new(S, &out) : pdt_raise(S, st);
}

PyMethodDef pdt_conv_functions[] = {
    {"_conv2d_grad_weight", f_conv2d_grad_weight, METH_VARARGS, NULL},
    {"_conv2d", f_conv2d, METH_VARARGS, NULL},
    {"_im2col", f_im2col, METH_VARARGS, NULL},
    {"_col2im", f_col2im, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
