"""adaptive_max_pool2d (adaptive_max_pool1d's 2-d pool too) and adaptive_max_pool3d
recorded as one node each under PyTorch's names, AdaptiveMaxPool2DBackward0 and
AdaptiveMaxPool3DBackward0 (Note [linear ops as one node] in _linear_nodes.py);
composed, their grad_fn was the last piece's: MaxPool2DWithIndicesBackward0 (bins that
are equal windows), MaxBackward0 (unequal bins), ViewBackward0 (3-d).

Once the maxima are found (with grad mode off: the index return_indices gives, flat
into the spatial dims, PyTorch's first maximum of each bin), the pool is linear in x:
a gather of x at those cells, bit for bit the maxima.  Its adjoint scatter-adds each
bin's g onto its maximum's cell (summed where overlapping bins share one), PyTorch's
adaptive_max_pool2d_backward and the gradient the composed pools gave.  Like
PyTorch's backward, which takes the input, the gradient is linked to x under
create_graph (its derivative in x zeros: Note [linear inputs]).
"""
from __future__ import annotations

import math

from .. import _C
from .._ops_scatter import index_add_built
from ._linear_nodes import linear_map


def at_maxima(name, x, index, nsp):
    """x's cells at index (the flat positions of the maxima in x's last nsp dims, of
    x's leading shape), recorded as one node called name."""
    return linear_map(name, True, _take, x, index, nsp)


def _flat(shape, nsp):
    """shape with its last nsp dims as one."""
    return tuple(shape[:-nsp]) + (math.prod(shape[-nsp:]),)


def _take(x, index, nsp):
    cells = x.reshape(_flat(x.shape, nsp))
    return cells.gather(-1, index.reshape(_flat(index.shape, nsp))).reshape(index.shape)


def _take_adjoint(g, meta, index, nsp):
    """g added onto each maximum's cell: one index_add over x's flat cells, by offsets
    built here in range (a row's base plus the cell in it), so no bounds check reads
    the index back from a GPU (scatter_add's did: an implicit transfer on every
    backward, refused under transfer_guard('disallow'))."""
    shape, dtype, device = meta
    *lead, cells = _flat(shape, nsp)
    rows, per_row = math.prod(lead), math.prod(index.shape[-nsp:])
    base = _C.arange(rows, dtype=_C.int64, device=device).unsqueeze(1) * cells
    offsets = (index.reshape(rows, per_row) + base).reshape(-1)
    dx = _C.zeros(rows * cells, dtype=g.dtype, device=device)
    return index_add_built(dx, 0, offsets, g.reshape(-1)).reshape(shape)


_take.adjoint = _take_adjoint
