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
    shape, dtype, device = meta
    dx = _C.zeros(_flat(shape, nsp), dtype=g.dtype, device=device)
    dx = dx.scatter_add(-1, index.reshape(_flat(index.shape, nsp)),
                        g.reshape(_flat(index.shape, nsp)))
    return dx.reshape(shape)


_take.adjoint = _take_adjoint
