/* cpu_rnn.c - the CPU backend's fused LSTM and GRU cell steps and their
 * backward (equations and workspace layouts in pdt_rnn.h; contracts in
 * pdt_backend.h; the core validated the inputs).
 *
 * The batch's rows split across the pool; a row does its gates in a few
 * passes over contiguous runs: the sums of the pre-activations into the
 * workspace, then sigmoid and tanh in place over each gate's run, then the
 * state update.  sigmoid and tanh are the elementwise ops' own: the vectorised
 * kernels of the level in use (pdt_cpu_simd(), whose values do not depend on
 * their neighbours), for float32 and float64; this file is built with
 * -ffp-contract=off, so each product is rounded before the sum, as the unfused
 * ops do: the fused forward gives the unfused composition's bits. */
#include <math.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"

/* Elements a thread should have before the rows are split. */
#define GRAIN_ELEMS ((int64_t)1 << 14)

typedef struct rnn_job {
    const void *args; /* pdt_rnn_cell_args or pdt_rnn_cell_grad_args */
} rnn_job;

#define PTR(T, t) ((t) ? (T *)pdt_tensor_ptr(t) : NULL)

/* w[k] = (ig[k] + b_ih[k]) + (hg[k] + b_hh[k]) for k < n, each bias only when
 * given (the common case, no bias, a loop of its own that vectorises). */
#define GATE_SUMS(T, w, ig, hg, bi, bh, n)                                                         \
    if (!(bi) && !(bh)) {                                                                          \
        for (int64_t k = 0; k < (n); k++)                                                          \
            (w)[k] = (ig)[k] + (hg)[k];                                                            \
    } else {                                                                                       \
        for (int64_t k = 0; k < (n); k++) {                                                        \
            T gi_ = (ig)[k], gh_ = (hg)[k];                                                        \
            if (bi)                                                                                \
                gi_ = gi_ + (bi)[k];                                                               \
            if (bh)                                                                                \
                gh_ = gh_ + (bh)[k];                                                               \
            (w)[k] = gi_ + gh_;                                                                    \
        }                                                                                          \
    }

/* The forward rows [begin, end) of the cell in a, in T with SIG and TANH. */
#define CELL_FORWARD(T, SIG, TANH)                                                                 \
    do {                                                                                           \
        const int64_t H = a->hidden, G = a->kind == PDT_RNN_LSTM ? 4 : 3;                          \
        const T *bi = PTR(const T, a->b_ih), *bh = PTR(const T, a->b_hh);                          \
        for (int64_t b = begin; b < end; b++) {                                                    \
            const T *ig = PTR(const T, a->igates) + b * G * H;                                     \
            const T *hg = PTR(const T, a->hgates) + b * G * H;                                     \
            const T *s = PTR(const T, a->state) + b * H;                                           \
            T *w = PTR(T, a->ws) + b * (G + 1) * H, *hy = PTR(T, a->hy) + b * H;                   \
            if (a->kind == PDT_RNN_LSTM) {                                                         \
                T *cy = PTR(T, a->cy) + b * H;                                                     \
                GATE_SUMS(T, w, ig, hg, bi, bh, 4 * H)                                             \
                SIG(w, w, 2 * H); /* i, f */                                                       \
                TANH(w + 2 * H, w + 2 * H, H);                                                     \
                SIG(w + 3 * H, w + 3 * H, H);                                                      \
                for (int64_t j = 0; j < H; j++)                                                    \
                    cy[j] = w[H + j] * s[j] + w[j] * w[2 * H + j];                                 \
                TANH(w + 4 * H, cy, H);                                                            \
                for (int64_t j = 0; j < H; j++)                                                    \
                    hy[j] = w[3 * H + j] * w[4 * H + j];                                           \
            } else {                                                                               \
                GATE_SUMS(T, w, ig, hg, bi, bh, 2 * H)                                             \
                SIG(w, w, 2 * H); /* r, z */                                                       \
                for (int64_t j = 0; j < H; j++) {                                                  \
                    T xn = ig[2 * H + j], hn = hg[2 * H + j];                                      \
                    if (bi)                                                                        \
                        xn = xn + bi[2 * H + j];                                                   \
                    if (bh)                                                                        \
                        hn = hn + bh[2 * H + j];                                                   \
                    w[3 * H + j] = hn;                                                             \
                    w[2 * H + j] = xn + w[j] * hn;                                                 \
                }                                                                                  \
                TANH(w + 2 * H, w + 2 * H, H);                                                     \
                for (int64_t j = 0; j < H; j++) {                                                  \
                    const T n = w[2 * H + j];                                                      \
                    hy[j] = n + w[H + j] * (s[j] - n);                                             \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static void forward_range(int64_t begin, int64_t end, void *ctx)
{
    const pdt_rnn_cell_args *a = ((const rnn_job *)ctx)->args;
    const pdt_cpu_simd_table *v = pdt_cpu_simd();
    if (a->igates->dtype == PDT_FLOAT64)
        CELL_FORWARD(double, v->sigmoid_f64, v->tanh_f64);
    else
        CELL_FORWARD(float, v->sigmoid_f32, v->tanh_f32);
}

/* One LSTM row's backward, the gradients of hy and cy read as DH and, from
 * dct0 (the part through hy), DCT. */
#define LSTM_BACKWARD_ROW(T, DH, DCT)                                                              \
    do {                                                                                           \
        for (int64_t j = 0; j < H; j++) {                                                          \
            const T i = w[j], f = w[H + j], g = w[2 * H + j], o = w[3 * H + j];                    \
            const T tc = w[4 * H + j], dhj = DH;                                                   \
            const T dct0 = (dhj * o) * ((T)1 - tc * tc);                                           \
            const T dct = DCT;                                                                     \
            di[j] = (dct * g) * (i * ((T)1 - i));                                                  \
            di[H + j] = (dct * s[j]) * (f * ((T)1 - f));                                           \
            di[2 * H + j] = (dct * i) * ((T)1 - g * g);                                            \
            di[3 * H + j] = (dhj * tc) * (o * ((T)1 - o));                                         \
            ds[j] = dct * f;                                                                       \
        }                                                                                          \
    } while (0)

/* The backward rows [begin, end), in T (the equations of pdt_rnn.h). */
#define CELL_BACKWARD(T)                                                                           \
    do {                                                                                           \
        const int64_t H = a->hidden, G = a->kind == PDT_RNN_LSTM ? 4 : 3;                          \
        for (int64_t b = begin; b < end; b++) {                                                    \
            const T *dh = PTR(const T, a->dhy), *dc = PTR(const T, a->dcy);                        \
            dh = dh ? dh + b * H : NULL;                                                           \
            dc = dc ? dc + b * H : NULL;                                                           \
            const T *s = PTR(const T, a->state) + b * H;                                           \
            const T *w = PTR(const T, a->ws) + b * (G + 1) * H;                                    \
            T *di = PTR(T, a->d_igates) + b * G * H, *ds = PTR(T, a->dstate) + b * H;              \
            if (a->kind == PDT_RNN_LSTM) {                                                         \
                if (dh && dc) /* the common case: a loop without branches, that vectorises */      \
                    LSTM_BACKWARD_ROW(T, dh[j], dc[j] + dct0);                                     \
                else                                                                               \
                    LSTM_BACKWARD_ROW(T, dh ? dh[j] : (T)0, dc ? dc[j] + dct0 : dct0);             \
            } else {                                                                               \
                T *dg = PTR(T, a->d_hgates) + b * G * H;                                           \
                for (int64_t j = 0; j < H; j++) {                                                  \
                    const T r = w[j], z = w[H + j], n = w[2 * H + j], hn = w[3 * H + j];           \
                    const T dhj = dh[j];                                                           \
                    const T dz = (dhj * (s[j] - n)) * (z * ((T)1 - z));                            \
                    const T dn = (dhj * ((T)1 - z)) * ((T)1 - n * n);                              \
                    const T dr = (dn * hn) * (r * ((T)1 - r));                                     \
                    di[j] = dg[j] = dr;                                                            \
                    di[H + j] = dg[H + j] = dz;                                                    \
                    di[2 * H + j] = dn;                                                            \
                    dg[2 * H + j] = dn * r;                                                        \
                    ds[j] = dhj * z;                                                               \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static void backward_range(int64_t begin, int64_t end, void *ctx)
{
    const pdt_rnn_cell_grad_args *a = ((const rnn_job *)ctx)->args;
    if (a->ws->dtype == PDT_FLOAT64)
        CELL_BACKWARD(double);
    else
        CELL_BACKWARD(float);
}

/* Rows a thread should have: GRAIN_ELEMS over a row's elements. */
static int64_t row_grain(int64_t hidden, int kind)
{
    const int64_t per_row = (kind == PDT_RNN_LSTM ? 5 : 4) * hidden;
    const int64_t g = GRAIN_ELEMS / (per_row > 0 ? per_row : 1);
    return g > 0 ? g : 1;
}

pdt_status pdt_cpu_rnn_cell(const pdt_rnn_cell_args *a)
{
    rnn_job j = {a};
    pdt_cpu_parallel_for(a->batch, row_grain(a->hidden, a->kind), forward_range, &j);
    return PDT_OK;
}

pdt_status pdt_cpu_rnn_cell_backward(const pdt_rnn_cell_grad_args *a)
{
    rnn_job j = {a};
    pdt_cpu_parallel_for(a->batch, row_grain(a->hidden, a->kind), backward_range, &j);
    return PDT_OK;
}
