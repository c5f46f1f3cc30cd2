/* pdt_rnn.c - the validated entry points of pdt_rnn.h: the fused LSTM and GRU
 * cell steps and their backward.  Checks here (devices, dtypes, layout,
 * shapes), then one call into the device's backend (its rnn_cell and
 * rnn_cell_backward entries). */
#include "pdt_rnn.h"

#include <string.h>

#include "pdt_ops.h"
#include "pdt_runtime.h"

#define MAX_ARGS 6

/* The tensors of one call, NULL for an absent optional one, with their names. */
typedef struct rnn_operands {
    const char *op;
    int n;
    const pdt_tensor *t[MAX_ARGS];
    const char *name[MAX_ARGS];
} rnn_operands;

/* The same-device rule, one dtype (float32 or float64, that of t[0], which is
 * given), and contiguous layouts; *d is the device. */
static pdt_status check_operands(const rnn_operands *o, pdt_device *d)
{
    char dn[32];
    pdt_status st = pdt_same_device(o->op, o->n, o->t, o->name, d);
    if (st != PDT_OK)
        return st;
    const pdt_dtype dt = o->t[0]->dtype;
    if (dt != PDT_FLOAT32 && dt != PDT_FLOAT64)
        return pdt_fail(PDT_ERR_UNSUPPORTED,
                        "%s: dtype %s is not supported by the fused cell (float32 or float64; "
                        "on %s)",
                        o->op, pdt_dtype_name(dt), pdt_device_str(*d, dn, sizeof dn));
    for (int k = 0; k < o->n; k++) {
        const pdt_tensor *t = o->t[k];
        if (!t)
            continue;
        if (t->dtype != dt)
            return pdt_fail(PDT_ERR_TYPE, "%s: %s is %s but %s is %s; convert one (on %s)", o->op,
                            o->name[k], pdt_dtype_name(t->dtype), o->name[0], pdt_dtype_name(dt),
                            pdt_device_str(*d, dn, sizeof dn));
        if (!pdt_tensor_is_contiguous(t))
            return pdt_fail(PDT_ERR_VALUE, "%s: %s must be contiguous (on %s)", o->op, o->name[k],
                            pdt_device_str(*d, dn, sizeof dn));
    }
    return PDT_OK;
}

/* t (absent: fine) has the shape want[0..ndim), described by meaning. */
static pdt_status check_shape(const char *op, const pdt_tensor *t, const char *name, int ndim,
                              const int64_t *want, const char *meaning)
{
    if (!t || (t->ndim == ndim && memcmp(t->shape, want, (size_t)ndim * sizeof *want) == 0))
        return PDT_OK;
    char a[160], b[160], dn[32];
    return pdt_fail(PDT_ERR_VALUE, "%s: expected %s of shape %s %s, got shape %s (on %s)", op, name,
                    pdt_shape_str(ndim, want, a, sizeof a), meaning,
                    pdt_shape_str(t->ndim, t->shape, b, sizeof b),
                    pdt_device_str(t->device, dn, sizeof dn));
}

/* The batch B and hidden size H from gates, 2-D (B, G H). */
static pdt_status batch_hidden(const char *op, const pdt_tensor *gates, const char *name, int G,
                               int64_t *B, int64_t *H)
{
    if (gates->ndim == 2 && gates->shape[1] % G == 0) {
        *B = gates->shape[0];
        *H = gates->shape[1] / G;
        return PDT_OK;
    }
    char a[160], dn[32];
    return pdt_fail(PDT_ERR_VALUE,
                    "%s: expected %s of shape (B, %d * hidden_size), 2-D with a last size "
                    "divisible by %d, got shape %s (on %s)",
                    op, name, G, G, pdt_shape_str(gates->ndim, gates->shape, a, sizeof a),
                    pdt_device_str(gates->device, dn, sizeof dn));
}

static pdt_status no_kernel(const char *op, pdt_device d)
{
    char dn[32];
    return pdt_fail(PDT_ERR_UNSUPPORTED, "%s: no kernel on %s", op,
                    pdt_device_str(d, dn, sizeof dn));
}

/* New contiguous (rows, cols) tensors outs[k] of shapes cols[k], NULL entries
 * skipped; on failure none is left. */
static pdt_status new_outputs(pdt_device d, pdt_dtype dt, int64_t rows, int n, const int64_t *cols,
                              pdt_tensor *const *outs)
{
    pdt_status st = PDT_OK;
    for (int k = 0; k < n && st == PDT_OK; k++) {
        const int64_t shape[2] = {rows, cols[k]};
        if (outs[k])
            st = pdt_tensor_empty(d, dt, 2, shape, 0, outs[k]);
    }
    if (st != PDT_OK)
        for (int k = 0; k < n; k++)
            if (outs[k])
                pdt_tensor_release(outs[k]);
    return st;
}

static void release_all(int n, pdt_tensor *const *outs)
{
    for (int k = 0; k < n; k++)
        if (outs[k])
            pdt_tensor_release(outs[k]);
}

/* The start of each call: zeroes the outputs (NULL entries skipped), checks the
 * operands and reads B and H from gates (B, G H). */
static pdt_status begin_call(const rnn_operands *o, pdt_tensor *const *outs,
                             const pdt_tensor *gates, const char *gates_name, int G, pdt_device *d,
                             int64_t *B, int64_t *H)
{
    for (int k = 0; k < 3; k++)
        if (outs[k])
            memset(outs[k], 0, sizeof *outs[k]);
    pdt_status st = check_operands(o, d);
    return st == PDT_OK ? batch_hidden(o->op, gates, gates_name, G, B, H) : st;
}

/* Makes the outputs (B, cols[k]) and notes the op; *be is the device's backend,
 * or NULL when there is nothing to compute (B H = 0). */
static pdt_status make_outputs(const rnn_operands *o, pdt_device d, pdt_dtype dt, int64_t B,
                               int64_t H, const int64_t *cols, pdt_tensor *const *outs,
                               const pdt_backend **be)
{
    pdt_status st = new_outputs(d, dt, B, 3, cols, outs);
    if (st != PDT_OK)
        return st;
    pdt_note_op(o->op, d);
    *be = B * H == 0 ? NULL : pdt_backend_of(d.kind);
    return PDT_OK;
}

/* The forward of either cell: hy (and cy for the LSTM) and ws. */
static pdt_status cell_forward(pdt_rnn_kind kind, const pdt_tensor *igates,
                               const pdt_tensor *hgates, const pdt_tensor *b_ih,
                               const pdt_tensor *b_hh, const pdt_tensor *state, pdt_tensor *hy,
                               pdt_tensor *cy, pdt_tensor *ws)
{
    const int lstm = kind == PDT_RNN_LSTM, G = lstm ? 4 : 3;
    const rnn_operands o = {lstm ? "lstm_cell" : "gru_cell",
                            5,
                            {igates, hgates, b_ih, b_hh, state},
                            {"input_gates", "hidden_gates", "b_ih", "b_hh", lstm ? "cx" : "hx"}};
    pdt_tensor *outs[3] = {hy, cy, ws};
    pdt_device d;
    int64_t B = 0, H = 0;
    pdt_status st = begin_call(&o, outs, igates, "input_gates", G, &d, &B, &H);
    if (st != PDT_OK)
        return st;
    const int64_t gates[2] = {B, G * H}, states[2] = {B, H};
    if ((st = check_shape(o.op, hgates, "hidden_gates", 2, gates, "(as input_gates)")) != PDT_OK ||
        (st = check_shape(o.op, b_ih, "b_ih", 1, gates + 1, "(G * hidden_size)")) != PDT_OK ||
        (st = check_shape(o.op, b_hh, "b_hh", 1, gates + 1, "(G * hidden_size)")) != PDT_OK ||
        (st = check_shape(o.op, state, o.name[4], 2, states, "(B, hidden_size)")) != PDT_OK)
        return st;
    const int64_t cols[3] = {H, H, (G + 1) * H};
    const pdt_backend *be;
    if ((st = make_outputs(&o, d, igates->dtype, B, H, cols, outs, &be)) != PDT_OK || !be)
        return st;
    const pdt_rnn_cell_args a = {kind, B, H, igates, hgates, b_ih, b_hh, state, hy, cy, ws};
    st = be->rnn_cell ? be->rnn_cell(&a) : no_kernel(o.op, d);
    if (st != PDT_OK)
        release_all(3, outs);
    return st;
}

pdt_status pdt_lstm_cell_new(const pdt_tensor *igates, const pdt_tensor *hgates,
                             const pdt_tensor *b_ih, const pdt_tensor *b_hh, const pdt_tensor *cx,
                             pdt_tensor *hy, pdt_tensor *cy, pdt_tensor *ws)
{
    return cell_forward(PDT_RNN_LSTM, igates, hgates, b_ih, b_hh, cx, hy, cy, ws);
}

pdt_status pdt_gru_cell_new(const pdt_tensor *igates, const pdt_tensor *hgates,
                            const pdt_tensor *b_ih, const pdt_tensor *b_hh, const pdt_tensor *hx,
                            pdt_tensor *hy, pdt_tensor *ws)
{
    return cell_forward(PDT_RNN_GRU, igates, hgates, b_ih, b_hh, hx, hy, NULL, ws);
}

/* The backward of either cell, from the workspace ws (B, W H). */
static pdt_status cell_backward(pdt_rnn_kind kind, const pdt_tensor *dhy, const pdt_tensor *dcy,
                                const pdt_tensor *state, const pdt_tensor *ws, pdt_tensor *d_igates,
                                pdt_tensor *d_hgates, pdt_tensor *dstate)
{
    const int lstm = kind == PDT_RNN_LSTM, G = lstm ? 4 : 3;
    const rnn_operands o = {lstm ? "lstm_cell_backward" : "gru_cell_backward",
                            4,
                            {ws, state, dhy, dcy},
                            {"workspace", lstm ? "cx" : "hx", "grad_hy", "grad_cy"}};
    pdt_tensor *outs[3] = {d_igates, d_hgates, dstate};
    pdt_device d;
    int64_t B = 0, H = 0;
    pdt_status st = begin_call(&o, outs, ws, "workspace", G + 1, &d, &B, &H);
    if (st != PDT_OK)
        return st;
    const int64_t states[2] = {B, H};
    for (int k = 1; k < 4; k++)
        if ((st = check_shape(o.op, o.t[k], o.name[k], 2, states, "(B, hidden_size)")) != PDT_OK)
            return st;
    const int64_t cols[3] = {G * H, G * H, H};
    const pdt_backend *be;
    if ((st = make_outputs(&o, d, ws->dtype, B, H, cols, outs, &be)) != PDT_OK || !be)
        return st;
    const pdt_rnn_cell_grad_args a = {kind, B, H, dhy, dcy, state, ws, d_igates, d_hgates, dstate};
    st = be->rnn_cell_backward ? be->rnn_cell_backward(&a) : no_kernel(o.op, d);
    if (st != PDT_OK)
        release_all(3, outs);
    return st;
}

pdt_status pdt_lstm_cell_backward_new(const pdt_tensor *dhy, const pdt_tensor *dcy,
                                      const pdt_tensor *cx, const pdt_tensor *ws,
                                      pdt_tensor *dgates, pdt_tensor *dcx)
{
    return cell_backward(PDT_RNN_LSTM, dhy, dcy, cx, ws, dgates, NULL, dcx);
}

pdt_status pdt_gru_cell_backward_new(const pdt_tensor *dhy, const pdt_tensor *hx,
                                     const pdt_tensor *ws, pdt_tensor *d_igates,
                                     pdt_tensor *d_hgates, pdt_tensor *dhx)
{
    if (!dhy) {
        char dn[32];
        return pdt_fail(PDT_ERR_VALUE, "gru_cell_backward: grad_hy is required (on %s)",
                        pdt_device_str(ws->device, dn, sizeof dn));
    }
    return cell_backward(PDT_RNN_GRU, dhy, NULL, hx, ws, d_igates, d_hgates, dhx);
}
