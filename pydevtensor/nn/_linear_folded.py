"""F.linear of an input that is not a batch of rows, named as PyTorch's at::linear names
it: a contiguous input of 1 or 3+ dims with a bias is one addmm over its rows whose
result is reshaped by _unsafe_view (UnsafeViewBackward0: a tensor of its own, not a
view of the product); without a bias it is matmul's (its own names).  The rows are
counted, not reshaped with -1, which an empty input (no rows, or in_features 0) leaves
undetermined."""
import math

from .. import _C
from ..autograd.dispatch import derivative, recorded
from ..autograd.node import Node


@recorded("linear_folded")
def folded_linear(input, weight, bias):
    """input (*, in) contiguous, weight (out, in), bias (out,): input's rows times
    weight.T plus bias by one addmm, reshaped to (*, out) as a tensor of its own (no
    _base: the product is a temporary, as PyTorch's _unsafe_view)."""
    rows = input.reshape(math.prod(input.shape[:-1]), input.shape[-1])
    out = _C.addmm(bias, rows, weight.T).reshape(*input.shape[:-1], weight.shape[0])
    return _C._saved_aliases((out,))[0]


@derivative("linear_folded")
class _FoldedLinear(Node):
    """addmm's gradients over the rows, put back in the input's shape: g W for the
    input, g^T X for the weight, the sum of g's rows for the bias (recorded ops:
    differentiable again under create_graph)."""

    def save(self, out, input, weight, bias):
        self.save_tensors(input, weight)
        return input, weight, bias

    def backward(self, g):
        x, w = self.saved_tensors
        need = self.needs_input_grad
        n = math.prod(x.shape[:-1])
        g2 = g.reshape(n, g.shape[-1])
        gx = (g2 @ w).reshape(x.shape) if need[0] else None
        gw = g2.T @ x.reshape(n, x.shape[-1]) if need[1] else None
        gb = g2.sum(0) if need[2] else None
        return gx, gw, gb


_FoldedLinear.__name__ = _FoldedLinear.__qualname__ = "UnsafeViewBackward0"
