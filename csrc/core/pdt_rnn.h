/* pdt_rnn.h - fused pointwise steps of the LSTM and GRU cells: the validated
 * entry points behind the private _C._lstm_cell, _C._lstm_cell_backward,
 * _C._gru_cell and _C._gru_cell_backward (pydevtensor/nn/_fused_rnn.py).
 *
 * A recurrent step is two GEMMs (the gate pre-activations igates = x W_ih^T
 * and hgates = h W_hh^T, each (B, G H)) and then pointwise work on B H
 * elements; these do the pointwise part in one pass, where the unfused
 * composition runs about ten elementwise ops, each recorded by autograd.
 * Gates in PyTorch's order; b_ih and b_hh (G H) are optional, added as
 * gi = igates + b_ih and gh = hgates + b_hh (each only when given).
 *
 *   LSTM (G = 4):  i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of gi + gh
 *                  c' = f c + i g          (each product rounded, then the sum)
 *                  h' = o tanh(c')
 *       workspace (B, 5 H) = [i, f, g, o, tanh(c')]
 *   GRU (G = 3):   r = sigmoid(gi_r + gh_r), z = sigmoid(gi_z + gh_z)
 *                  n = tanh(gi_n + r gh_n)
 *                  h' = n + z (h - n)      ((1 - z) n + z h, one product fewer)
 *       workspace (B, 4 H) = [r, z, n, gh_n]
 *
 * The arithmetic is that of the unfused ops on the same device (the
 * backends' own sigmoid and tanh, no contracted multiply-adds), so the fused
 * forward gives the same bits as the composition in nn/_functional_rnn.py.
 * The backward (gates' gradients from the workspace):
 *
 *   LSTM: dc~ = dc' + (dh' o) (1 - tanh(c')^2)
 *         d_i = (dc~ g) (i (1 - i)), d_f = (dc~ c) (f (1 - f)),
 *         d_g = (dc~ i) (1 - g^2),   d_o = (dh' tanh(c')) (o (1 - o)),
 *         d_igates = d_hgates = [d_i, d_f, d_g, d_o], dc = dc~ f
 *   GRU:  d_z = (dh' (h - n)) (z (1 - z)), d_n = (dh' (1 - z)) (1 - n^2),
 *         d_r = (d_n gh_n) (r (1 - r)),
 *         d_igates = [d_r, d_z, d_n], d_hgates = [d_r, d_z, d_n r], dh = dh' z
 *
 * (a missing dh' or dc' is zeros).  Dtypes float32 and float64; float16 and
 * bfloat16 are refused (PDT_ERR_UNSUPPORTED: the layers use the unfused ops for
 * them).  Every tensor contiguous and on one device; an empty batch gives
 * empty results. */
#ifndef PDT_RNN_H
#define PDT_RNN_H

#include "pdt_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The LSTM step into new contiguous tensors hy, cy (B, H) and ws (B, 5 H).
 * igates, hgates (B, 4 H); b_ih, b_hh (4 H) or NULL; cx (B, H). */
pdt_status pdt_lstm_cell_new(const pdt_tensor *igates, const pdt_tensor *hgates,
                             const pdt_tensor *b_ih, const pdt_tensor *b_hh, const pdt_tensor *cx,
                             pdt_tensor *hy, pdt_tensor *cy, pdt_tensor *ws);
/* Its backward into new dgates (B, 4 H) (the gradient of both igates and
 * hgates) and dcx (B, H): dhy, dcy (B, H) or NULL (zeros); cx and ws the
 * forward's. */
pdt_status pdt_lstm_cell_backward_new(const pdt_tensor *dhy, const pdt_tensor *dcy,
                                      const pdt_tensor *cx, const pdt_tensor *ws,
                                      pdt_tensor *dgates, pdt_tensor *dcx);

/* The GRU step into new contiguous tensors hy (B, H) and ws (B, 4 H).
 * igates, hgates (B, 3 H); b_ih, b_hh (3 H) or NULL; hx (B, H). */
pdt_status pdt_gru_cell_new(const pdt_tensor *igates, const pdt_tensor *hgates,
                            const pdt_tensor *b_ih, const pdt_tensor *b_hh, const pdt_tensor *hx,
                            pdt_tensor *hy, pdt_tensor *ws);
/* Its backward into new d_igates, d_hgates (B, 3 H) and dhx (B, H): dhy (B, H);
 * hx and ws the forward's. */
pdt_status pdt_gru_cell_backward_new(const pdt_tensor *dhy, const pdt_tensor *hx,
                                     const pdt_tensor *ws, pdt_tensor *d_igates,
                                     pdt_tensor *d_hgates, pdt_tensor *dhx);

#ifdef __cplusplus
}
#endif
#endif /* PDT_RNN_H */
