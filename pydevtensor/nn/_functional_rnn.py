"""The step math of the recurrent layers (nn/rnn.py): one time step of an Elman RNN, a
GRU or an LSTM, and the loop over a sequence, layers and directions.  The GRU's and
LSTM's gates are one fused kernel per step in float32 and float64 (_fused_rnn.py);
everything else, and the half types, is written on the differentiable ops (linear,
chunk, sigmoid, tanh, stack, cat), so that autograd and every device work without
kernels of their own.

Shapes: the sequence x is (L, N, H_in) (time first; the module turns batch_first and
unbatched inputs into this), a hidden state h (and an LSTM's cell state c) is (N, H),
and the gates of one step are (N, G * H) with G = 1 (RNN), 3 (GRU: r, z, n) or 4
(LSTM: i, f, g, o), in PyTorch's order, so that PyTorch's weights load unchanged.

Note [the input projection]
For each layer and direction x @ W_ih^T + b_ih is one GEMM over all L steps at once,
(L, N, H_in) -> (L, N, G * H); only h @ W_hh^T + b_hh is left inside the loop.  The
steps read the projection through one unbind, whose single backward node stacks the
steps' gradients: backward costs one gradient of the projection, where a slice per
step would add a gradient of the whole projection per step (L^2 * N * G * H).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional, Sequence, Tuple

from .._ops_join import cat, stack
from ..autograd.grad_mode import is_grad_enabled
from . import functional as F
from ._fused_rnn import StepGradients, fusable, gru_cell, hidden_projection, lstm_cell

if TYPE_CHECKING:
    from .._C import Tensor

# the number of gate blocks in W_ih and W_hh, by mode
GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "GRU": 3, "LSTM": 4}
# (W_ih, W_hh, b_ih, b_hh) of one layer and direction, None for an absent bias
Weights = Tuple["Tensor", "Tensor", Optional["Tensor"], Optional["Tensor"]]


def step(mode: str, xp: Tensor, h: Tensor, c: Tensor | None, w_hh: Tensor,
         b_hh: Tensor | None) -> tuple[Tensor, Tensor | None]:
    """One time step: xp is the input's projection x @ W_ih^T + b_ih (N, G * H), h the
    previous hidden state (N, H), c the LSTM's cell state (N, H) or None.  Returns the
    new (h, c), c None but for the LSTM.  The GRU's and LSTM's pointwise part is one
    fused kernel and one autograd node (_fused_rnn.py) in float32 and float64, with the
    bits of the composition in step_unfused, which the half types run."""
    if mode == "GRU" and fusable(xp):
        return gru_cell(xp, F.linear(h, w_hh, b_hh), h), None
    if mode == "LSTM" and fusable(xp):
        return lstm_cell(xp, F.linear(h, w_hh, b_hh), c)
    return step_unfused(mode, xp, h, c, w_hh, b_hh)


def step_unfused(mode: str, xp: Tensor, h: Tensor, c: Tensor | None, w_hh: Tensor,
                 b_hh: Tensor | None) -> tuple[Tensor, Tensor | None]:
    """step() written on the differentiable ops, the equations of PyTorch's
    documentation::

        RNN:   h' = tanh(xp + W_hh h + b_hh)       (relu for RNN_RELU)
        GRU:   r = sigmoid(xp_r + W_hr h + b_hr)
               z = sigmoid(xp_z + W_hz h + b_hz)
               n = tanh(xp_n + r (W_hn h + b_hn))
               h' = (1 - z) n + z h
        LSTM:  i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of xp + W_hh h + b_hh
               c' = f c + i g
               h' = o tanh(c')
    """
    gh = F.linear(h, w_hh, b_hh)
    if mode == "RNN_TANH":
        return (xp + gh).tanh(), None
    if mode == "RNN_RELU":
        return (xp + gh).relu(), None
    if mode == "GRU":
        x_r, x_z, x_n = xp.chunk(3, -1)
        h_r, h_z, h_n = gh.chunk(3, -1)
        r = (x_r + h_r).sigmoid()
        z = (x_z + h_z).sigmoid()
        n = (x_n + r * h_n).tanh()
        return n + z * (h - n), None  # (1 - z) n + z h, one product fewer
    i, f, g, o = (xp + gh).chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c


def run_direction(mode: str, xp: Tensor, h: Tensor, c: Tensor | None, w_hh: Tensor,
                  b_hh: Tensor | None, reverse: bool, w_hr: Tensor | None = None
                  ) -> tuple[Tensor, Tensor, Tensor | None]:
    """The steps of one layer in one direction over the projected sequence xp
    (L, N, G * H), from the state h (and c).  Returns the hidden states (L, N, H) in
    time order, and the last state h (and c): after step 0 when reverse.  With w_hr
    (an LSTM's projection, (P, H)), each step's h is h @ W_hr^T, of size P."""
    steps = xp.unbind(0)  # Note [the input projection]
    outputs = []
    if w_hr is not None:
        for xt in (reversed(steps) if reverse else steps):
            h, c = step(mode, xt, h, c, w_hh, b_hh)
            h = F.linear(h, w_hr)
            outputs.append(h)
    elif mode in ("GRU", "LSTM") and fusable(xp):
        # the fused cells, and h @ W_hh^T + b_hh whose W_hh and b_hh gradients are one
        # GEMM and one sum for all the steps (Note [one GEMM for W_hh's gradient])
        # collected only when W_hh or b_hh will have a gradient; otherwise every step
        # is its own (and holds nothing for a first step that may have no node)
        collect = is_grad_enabled() and (w_hh.requires_grad or (
            b_hh is not None and b_hh.requires_grad))
        collected = StepGradients(len(steps), mode == "GRU", w_hh) if collect else None
        w_d, b_d = w_hh.detach(), None if b_hh is None else b_hh.detach()
        for t, xt in enumerate(reversed(steps) if reverse else steps):
            first = t == 0 or not collect
            gh = hidden_projection(h, w_hh if first else w_d, b_hh if first else b_d,
                                   collected, t)
            if mode == "GRU":
                h = gru_cell(xt, gh, h)
            else:
                h, c = lstm_cell(xt, gh, c)
            outputs.append(h)
    else:
        for xt in (reversed(steps) if reverse else steps):
            h, c = step(mode, xt, h, c, w_hh, b_hh)
            outputs.append(h)
    if reverse:
        outputs.reverse()
    return stack(outputs), h, c


def run(mode: str, x: Tensor, h0: Tensor, c0: Tensor | None,
        weights: Sequence[Weights], num_layers: int, num_directions: int,
        dropout: float, training: bool,
        direction: Callable[..., tuple[Tensor, Tensor, Tensor | None]] | None = None,
        projections: Sequence[Tensor] | None = None
        ) -> tuple[Tensor, Tensor, Tensor | None]:
    """A multi-layer, possibly bidirectional recurrent network over x (L, N, H_in) from
    h0 (and c0) of shape (num_layers * num_directions, N, H).  weights holds, for
    layer k and direction d at index k * num_directions + d, (W_ih, W_hh, b_ih, b_hh)
    with None for absent biases.  Dropout with probability dropout is applied to the
    output of every layer but the last, in training.  Returns output (L, N,
    num_directions * H), h_n and c_n (None but for the LSTM), as PyTorch does.
    direction replaces run_direction (a PackedSequence's steps: _packed_rnn.py);
    projections, an LSTM's W_hr per layer and direction (proj_size: h is P wide)."""
    direction = run_direction if direction is None else direction
    layer_input = x
    last_h, last_c = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(num_directions):
            k = layer * num_directions + d
            w_ih, w_hh, b_ih, b_hh = weights[k]
            xp = F.linear(layer_input, w_ih, b_ih)  # Note [the input projection]
            extra = {} if projections is None else {"w_hr": projections[k]}
            out, h, c = direction(mode, xp, h0[k], None if c0 is None else c0[k],
                                  w_hh, b_hh, reverse=d == 1, **extra)
            outs.append(out)
            last_h.append(h)
            last_c.append(c)
        layer_input = outs[0] if num_directions == 1 else cat(outs, -1)
        if layer < num_layers - 1 and training and dropout > 0:
            layer_input = F.dropout(layer_input, dropout, training=True)
    c_n = stack(last_c) if c0 is not None else None
    return layer_input, stack(last_h), c_n
