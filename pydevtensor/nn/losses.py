"""The losses: MSELoss and CrossEntropyLoss.

``loss = loss_fn(pred, target)`` returns a 0-d tensor (with reduction='mean' or 'sum')
made of package ops, so ``loss.backward()`` (autograd) gives d loss / d every parameter.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import functional as F
from .module import Module

if TYPE_CHECKING:
    from .._C import Tensor


class _Loss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        F._check_reduction(reduction, type(self).__name__)
        self.reduction = reduction

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}" if self.reduction != "mean" else ""


class MSELoss(_Loss):
    """The mean (or sum) of ``(input - target) ** 2``; call it as ``loss_fn(input, target)``.

    Parameters
    ----------
    reduction : {'mean', 'sum', 'none'}, optional
        How the squared errors are combined (default 'mean').

    Raises
    ------
    ValueError
        For an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.MSELoss()(pydevtensor.tensor([1., 2.]), pydevtensor.tensor([1., 4.]))
    tensor(2.)
    >>> nn.MSELoss(reduction='sum')(pydevtensor.tensor([1., 2.]), pydevtensor.tensor([1., 4.]))
    tensor(4.)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, self.reduction)


class CrossEntropyLoss(_Loss):
    """Softmax cross-entropy of (N, C) logits against (N,) integer class indices,
    computed after subtracting each row's max (exp never overflows).  Call it as
    ``loss_fn(logits, target)``.

    Parameters
    ----------
    reduction : {'mean', 'sum', 'none'}, optional
        How the per-sample losses are combined (default 'mean').

    Raises
    ------
    ValueError
        For an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> logits = pydevtensor.tensor([[2., 0.], [0., 2.]])
    >>> nn.CrossEntropyLoss()(logits, pydevtensor.tensor([0, 1]))
    tensor(0.1269)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, self.reduction)
