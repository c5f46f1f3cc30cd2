"""The distance layers: CosineSimilarity and PairwiseDistance (their functions are
F.cosine_similarity and F.pairwise_distance, in _functional_norm.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import _functional_norm as _N
from .module import Module

if TYPE_CHECKING:
    from .._C import Tensor


class CosineSimilarity(Module):
    """The cosine of the angle between x1 and x2 along dim, as a layer
    (F.cosine_similarity); call it as ``sim(x1, x2)``.

    Parameters
    ----------
    dim : int, optional
        The dimension of the vectors (default 1).
    eps : float, optional
        The smallest norm divided by (default 1e-8).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.CosineSimilarity()(pydevtensor.tensor([[1., 0.]]), pydevtensor.tensor([[1., 1.]]))
    tensor([0.7071])
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return _N.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``norm_p(x1 - x2 + eps)`` along the last dimension, as a layer
    (F.pairwise_distance); call it as ``dist(x1, x2)``.

    Parameters
    ----------
    p : float, optional
        The norm's degree (default 2; PyTorch keeps it as the attribute ``norm``).
    eps : float, optional
        Added to the differences (default 1e-6).
    keepdim : bool, optional
        Keep the last dimension, of size 1 (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.PairwiseDistance(eps=0.)(pydevtensor.tensor([[0., 0.]]), pydevtensor.tensor([[3., 4.]]))
    tensor([5.])
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return _N.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


__all__ = ["CosineSimilarity", "PairwiseDistance"]
