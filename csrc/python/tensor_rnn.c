/* tensor_rnn.c - the private module functions behind the fused recurrent cells
 * (pydevtensor/nn/_fused_rnn.py; equations and workspaces in pdt_rnn.h):
 *
 *   _lstm_cell(input_gates, hidden_gates, cx, b_ih=None, b_hh=None)
 *       -> (hy, cy, workspace)
 *   _lstm_cell_backward(grad_hy, grad_cy, cx, workspace) -> (grad_gates, grad_cx)
 *   _gru_cell(input_gates, hidden_gates, hx, b_ih=None, b_hh=None) -> (hy, workspace)
 *   _gru_cell_backward(grad_hy, hx, workspace)
 *       -> (grad_input_gates, grad_hidden_gates, grad_hx)
 *
 * grad_hy and grad_cy of the LSTM may be None (zeros).  The core validates and
 * does the work; the GIL is released around large calls, the inputs held
 * (Note [the GIL and storages]). */
#include "args.h"
#include "pdt_rnn.h"

#define RNN_MAX_IN 5
#define RNN_MAX_OUT 3

/* Views of the tensors among objs[0..n) (None gives NULL), held until
 * release_inputs; -1 with TypeError naming fname and names[k] for anything
 * else.  required[k]: None is refused too. */
typedef struct rnn_inputs {
    pdt_hold h[2];
    const pdt_tensor *t[RNN_MAX_IN];
} rnn_inputs;

static int hold_inputs(pdt_state *S, const char *fname, int n, PyObject *const *objs,
                       const char *const *names, const int *required, rnn_inputs *in)
{
    memset(in, 0, sizeof *in);
    for (int k = 0; k < n; k++) {
        PyObject *o = objs[k];
        if (o == Py_None && !required[k])
            continue;
        if (!pdt_is_tensor(S, o)) {
            PyErr_Format(PyExc_TypeError, "%s: %s must be a Tensor%s, got %s", fname, names[k],
                         required[k] ? "" : " or None", Py_TYPE(o)->tp_name);
            for (int j = 0; j < 2; j++)
                pdt_hold_release(&in->h[j]);
            return -1;
        }
        in->t[k] = pdt_hold_view(&in->h[k / PDT_HOLD_MAX], pdt_tensor_of(o));
    }
    return 0;
}

static void release_inputs(rnn_inputs *in)
{
    for (int j = 0; j < 2; j++)
        pdt_hold_release(&in->h[j]);
}

/* The tuple of n new Tensors wrapping outs (taken over), or NULL with an
 * exception (then every one is released). */
static PyObject *wrap_outputs(pdt_state *S, int n, pdt_tensor *outs)
{
    PyObject *tuple = PyTuple_New(n);
    for (int k = 0; k < n; k++) {
        PyObject *o = tuple ? pdt_tensor_wrap_new(S, &outs[k]) : NULL;
        if (!o) {
            for (int j = tuple ? k + 1 : k; j < n; j++)
                pdt_tensor_release(&outs[j]);
            Py_XDECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, k, o);
    }
    return tuple;
}

/* Unpacks exactly lo..hi positional arguments into objs (missing ones None). */
static int unpack(const char *fname, PyObject *args, int lo, int hi, PyObject **objs)
{
    for (int k = 0; k < hi; k++)
        objs[k] = Py_None;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n < lo || n > hi) {
        PyErr_Format(PyExc_TypeError, "%s() takes %d to %d arguments (%zd given)", fname, lo, hi,
                     n);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        objs[k] = PyTuple_GET_ITEM(args, k);
    return 0;
}

/* The work of a call on elements of B H: the GIL is released past the threshold. */
static double work_of(const pdt_tensor *t) { return (double)pdt_tensor_numel(t); }

static PyObject *cell_forward(PyObject *module, PyObject *args, int lstm)
{
    pdt_state *S = pdt_state_of_module(module);
    const char *fname = lstm ? "_lstm_cell" : "_gru_cell";
    static const char *const names_l[] = {"input_gates", "hidden_gates", "cx", "b_ih", "b_hh"};
    static const char *const names_g[] = {"input_gates", "hidden_gates", "hx", "b_ih", "b_hh"};
    static const int required[] = {1, 1, 1, 0, 0};
    PyObject *objs[RNN_MAX_IN];
    rnn_inputs in;
    if (unpack(fname, args, 3, 5, objs) < 0 ||
        hold_inputs(S, fname, 5, objs, lstm ? names_l : names_g, required, &in) < 0)
        return NULL;
    pdt_tensor out[RNN_MAX_OUT];
    pdt_status st;
    PDT_RUN_RELEASING_GIL(work_of(in.t[0]),
                          st = lstm ? pdt_lstm_cell_new(in.t[0], in.t[1], in.t[3], in.t[4], in.t[2],
                                                        &out[0], &out[1], &out[2])
                                    : pdt_gru_cell_new(in.t[0], in.t[1], in.t[3], in.t[4], in.t[2],
                                                       &out[0], &out[1]));
    release_inputs(&in);
    return st == PDT_OK ? wrap_outputs(S, lstm ? 3 : 2, out) : pdt_raise(S, st);
}

static PyObject *f_lstm_cell(PyObject *module, PyObject *args)
{
    return cell_forward(module, args, 1);
}

static PyObject *f_gru_cell(PyObject *module, PyObject *args)
{
    return cell_forward(module, args, 0);
}

static PyObject *cell_backward(PyObject *module, PyObject *args, int lstm)
{
    pdt_state *S = pdt_state_of_module(module);
    const char *fname = lstm ? "_lstm_cell_backward" : "_gru_cell_backward";
    static const char *const names_l[] = {"grad_hy", "grad_cy", "cx", "workspace"};
    static const char *const names_g[] = {"grad_hy", "hx", "workspace"};
    static const int required_l[] = {0, 0, 1, 1}, required_g[] = {1, 1, 1};
    const int n = lstm ? 4 : 3;
    PyObject *objs[4];
    rnn_inputs in;
    if (unpack(fname, args, n, n, objs) < 0 ||
        hold_inputs(S, fname, n, objs, lstm ? names_l : names_g, lstm ? required_l : required_g,
                    &in) < 0)
        return NULL;
    pdt_tensor out[RNN_MAX_OUT];
    pdt_status st;
    const pdt_tensor *const *t = in.t;
    PDT_RUN_RELEASING_GIL(work_of(t[n - 1]),
                          st = lstm ? pdt_lstm_cell_backward_new(t[0], t[1], t[2], t[3], &out[0],
                                                                 &out[1])
                                    : pdt_gru_cell_backward_new(t[0], t[1], t[2], &out[0], &out[1],
                                                                &out[2]));
    release_inputs(&in);
    return st == PDT_OK ? wrap_outputs(S, lstm ? 2 : 3, out) : pdt_raise(S, st);
}

static PyObject *f_lstm_cell_backward(PyObject *module, PyObject *args)
{
    return cell_backward(module, args, 1);
}

static PyObject *f_gru_cell_backward(PyObject *module, PyObject *args)
{
    return cell_backward(module, args, 0);
}

PyMethodDef pdt_rnn_functions[] = {
    {"_lstm_cell", f_lstm_cell, METH_VARARGS, NULL},
    {"_lstm_cell_backward", f_lstm_cell_backward, METH_VARARGS, NULL},
    {"_gru_cell", f_gru_cell, METH_VARARGS, NULL},
    {"_gru_cell_backward", f_gru_cell_backward, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
