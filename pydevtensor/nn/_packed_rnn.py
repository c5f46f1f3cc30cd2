"""The recurrent layers over a PackedSequence (nn.utils.rnn): the loop of
_functional_rnn.run, but each time step t runs only the batch_sizes[t] sequences that
have a step t (the packed batch is sorted by decreasing length, so they are the first
batch_sizes[t] rows of the state).  The others keep their state: going forwards a
finished sequence keeps its last real state, which is its h_n; going backwards a
sequence not yet started keeps h0 until its last real step, where it starts, as
PyTorch does.  The steps are _functional_rnn.step (the fused GRU and LSTM cells in
float32 and float64), so the gradients are those of the same equations.

The data stays packed from layer to layer: the input projection is one GEMM over all
the packed steps, split per time step by one split node (Note [the input projection]
in _functional_rnn.py), and each layer's output is the packed steps joined by one cat.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, List, Sequence

from .._ops_join import cat
from . import _functional_rnn as FR
from . import functional as F
from ._functional_rnn import Weights, step

if TYPE_CHECKING:
    from .._C import Tensor


def _keep_rest(new: Tensor, old: Tensor) -> Tensor:
    """new (the first rows of the state) above old's remaining rows."""
    return new if new.shape[0] == old.shape[0] else cat([new, old[new.shape[0]:]])


def run_direction(batch_sizes: Sequence[int], mode: str, xp: Tensor, h: Tensor,
                  c: Tensor | None, w_hh: Tensor, b_hh: Tensor | None,
                  reverse: bool, w_hr: Tensor | None = None
                  ) -> tuple[Tensor, Tensor, Tensor | None]:
    """One layer in one direction over the packed projection xp (sum of batch_sizes,
    G * H) from h (and c), (N, H).  Returns the packed hidden states and the final
    h (and c); w_hr: an LSTM's projection of each step's h."""
    steps = xp.split(list(batch_sizes))
    outputs: List[Tensor] = [None] * len(steps)  # type: ignore[list-item]
    for t in (reversed(range(len(steps))) if reverse else range(len(steps))):
        n = batch_sizes[t]
        h_t, c_t = step(mode, steps[t], h[:n], None if c is None else c[:n], w_hh, b_hh)
        if w_hr is not None:
            h_t = F.linear(h_t, w_hr)
        outputs[t] = h_t
        h = _keep_rest(h_t, h)
        c = None if c is None else _keep_rest(c_t, c)
    return cat(outputs), h, c


def run(mode: str, data: Tensor, batch_sizes: Sequence[int], h0: Tensor, c0: Tensor | None,
        weights: Sequence[Weights], num_layers: int, num_directions: int,
        dropout: float, training: bool, projections: Sequence[Tensor] | None = None
        ) -> tuple[Tensor, Tensor, Tensor | None]:
    """_functional_rnn.run over packed data (sum of batch_sizes, H_in), with h0 (and
    c0) in the packed (sorted) order of the sequences.  Returns the packed output and
    h_n, c_n (None but for the LSTM), in the sorted order."""
    return FR.run(mode, data, h0, c0, weights, num_layers, num_directions, dropout,
                  training, functools.partial(run_direction, list(batch_sizes)),
                  projections)
