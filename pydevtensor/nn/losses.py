"""The losses, each with its explicit backward: MSELoss and CrossEntropyLoss.

``loss = loss_fn(pred, target)`` returns a 0-d tensor (with reduction='mean' or 'sum');
``loss_fn.backward()`` then returns d loss / d pred, for ``net.backward(...)`` (Note
[explicit backward] in module.py).  ``backward(scale)`` returns d (scale * loss) / d pred
in the same pass, which is how a data-parallel replica weights its shard.
"""
import numbers

from .. import _C
from . import functional as F
from .module import Module


class _Loss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        F._check_reduction(reduction, type(self).__name__)
        self.reduction = reduction

    def extra_repr(self):
        return f"reduction={self.reduction!r}" if self.reduction != "mean" else ""

    def _scale(self, grad_output, count):
        """The factor every element of d loss / d pred carries: grad_output (a number;
        1 when omitted) over count when the reduction is a mean."""
        if grad_output is None:
            grad_output = 1.0
        if isinstance(grad_output, _C.Tensor):
            if grad_output.numel() != 1:
                raise ValueError(f"{type(self).__name__}.backward(): the gradient of a reduced "
                                 f"loss is one number, got shape {tuple(grad_output.shape)}")
            grad_output = grad_output.item()
        if isinstance(grad_output, bool) or not isinstance(grad_output, numbers.Real):
            raise TypeError(f"{type(self).__name__}.backward(): expected a number, got "
                            f"{type(grad_output).__name__}")
        return float(grad_output) / count if self.reduction == "mean" else float(grad_output)

    def _reduced_only(self):
        if self.reduction == "none":
            raise RuntimeError(f"{type(self).__name__}(reduction='none').backward() needs a "
                               f"gradient per element; use reduction='mean' or 'sum'")


class MSELoss(_Loss):
    """mean (or sum) of (pred - target) ** 2.  backward: 2 * (pred - target) / numel."""

    def forward(self, input, target):
        F._check_same_shape(input, target, "MSELoss")
        diff = input - target
        self._save(diff)
        return F._reduce(diff * diff, self.reduction)

    def backward(self, grad_output=None):
        self._reduced_only()
        (diff,) = self._take_saved()
        return diff * (2.0 * self._scale(grad_output, max(diff.numel(), 1)))


class CrossEntropyLoss(_Loss):
    """Softmax cross-entropy of (N, C) logits against (N,) integer class indices,
    computed after subtracting each row's max (exp never overflows).
    backward: (softmax(pred) - one_hot(target)) / N."""

    def forward(self, input, target):
        per_sample, probs, onehot = F._cross_entropy_parts(input, target)
        self._save(probs, onehot)
        return F._reduce(per_sample, self.reduction)

    def backward(self, grad_output=None):
        self._reduced_only()
        probs, onehot = self._take_saved()
        return (probs - onehot) * self._scale(grad_output, max(probs.shape[0], 1))
