"""More of PyTorch's losses as layers: MarginRankingLoss, HingeEmbeddingLoss,
SoftMarginLoss, CosineEmbeddingLoss, TripletMarginLoss, MultiMarginLoss,
MultiLabelMarginLoss, MultiLabelSoftMarginLoss, PoissonNLLLoss and GaussianNLLLoss, with
PyTorch's arguments in its order (the deprecated size_average and reduce included); their
functions are in _functional_losses_margin.py and _functional_losses_likelihood.py."""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import _functional_losses_likelihood as _LL
from . import _functional_losses_margin as _LM
from ._functional_ctc import ctc_loss as _ctc_loss
from .distance import PairwiseDistance
from .losses import _class_weight, _Loss, _WeightedLoss

if TYPE_CHECKING:
    from .._C import Tensor


_LegacyLoss = _Loss  # its constructor takes PyTorch's deprecated size_average and reduce


class _MarginLoss(_LegacyLoss):
    # MarginRankingLoss's and CosineEmbeddingLoss's own (their margin defaults to 0)
    def __init__(self, margin: float = 0.0, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = _LM._number(margin, "margin", type(self).__name__)


class MarginRankingLoss(_MarginLoss):
    """``max(0, -y (x1 - x2) + margin)``, reduced (F.margin_ranking_loss); call it as
    ``loss_fn(x1, x2, y)``.

    Parameters
    ----------
    margin : float, optional
        Default 0.
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Raises
    ------
    TypeError
        When margin is not a number.
    ValueError
        For an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> loss_fn = nn.MarginRankingLoss(margin=0.5)
    >>> loss_fn(pydevtensor.tensor([1., 2.]), pydevtensor.tensor([2., 1.]),
    ...         pydevtensor.tensor([1., 1.]))
    tensor(0.7500)
    """

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return _LM.margin_ranking_loss(input1, input2, target, self.margin,
                                       reduction=self.reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """x where y = 1, ``max(0, margin - x)`` where y = -1, reduced
    (F.hinge_embedding_loss).

    Parameters
    ----------
    margin : float, optional
        Default 1.
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Raises
    ------
    TypeError
        When margin is not a number.
    ValueError
        For an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.HingeEmbeddingLoss()(pydevtensor.tensor([0.3, 0.4]), pydevtensor.tensor([1., -1.]))
    tensor(0.4500)
    """

    def __init__(self, margin: float = 1.0, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return _LM.hinge_embedding_loss(input, target, self.margin, reduction=self.reduction)


class SoftMarginLoss(_LegacyLoss):
    """``log(1 + exp(-y x))``, reduced (F.soft_margin_loss).

    Parameters
    ----------
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Raises
    ------
    ValueError
        For an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.SoftMarginLoss()(pydevtensor.tensor([0., 2.]), pydevtensor.tensor([1., -1.]))
    tensor(1.4100)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return _LM.soft_margin_loss(input, target, reduction=self.reduction)


class CosineEmbeddingLoss(_MarginLoss):
    """``1 - cos(x1, x2)`` where y = 1, ``max(0, cos(x1, x2) - margin)`` where y = -1,
    reduced (F.cosine_embedding_loss); call it as ``loss_fn(x1, x2, y)``.

    Parameters
    ----------
    margin : float, optional
        Default 0.
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Raises
    ------
    TypeError
        When margin is not a number.
    ValueError
        For an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> x1 = pydevtensor.tensor([[1., 0.]])
    >>> nn.CosineEmbeddingLoss()(x1, pydevtensor.tensor([[1., 1.]]), pydevtensor.tensor([1.]))
    tensor(0.2929)
    """

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return _LM.cosine_embedding_loss(input1, input2, target, self.margin,
                                         reduction=self.reduction)


class TripletMarginLoss(_MarginLoss):
    """``max(0, margin + d(a, p) - d(a, n))`` per triplet, reduced
    (F.triplet_margin_loss); call it as ``loss_fn(anchor, positive, negative)``.

    Parameters
    ----------
    margin : float, optional
        > 0 (default 1).
    p : float, optional
        The norm's degree (default 2).
    eps : float, optional
        Added to the differences (default 1e-6).
    swap : bool, optional
        The distance swap (default False).
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Raises
    ------
    TypeError
        When margin is not a number.
    ValueError
        When margin <= 0, or for an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> a = pydevtensor.tensor([[0., 0.]])
    >>> nn.TripletMarginLoss(eps=0.)(a, pydevtensor.tensor([[3., 4.]]),
    ...                              pydevtensor.tensor([[1., 0.]]))
    tensor(5.)
    """

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                 swap: bool = False, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(margin, size_average, reduce, reduction)
        if self.margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.p, self.eps, self.swap = p, eps, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return _LM.triplet_margin_loss(anchor, positive, negative, self.margin, self.p,
                                       self.eps, self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """``max(0, margin + d(a, p) - d(a, n))`` per triplet with a distance function d,
    reduced (F.triplet_margin_with_distance_loss); call it as
    ``loss_fn(anchor, positive, negative)``.

    Parameters
    ----------
    distance_function : callable, optional
        ``d(x1, x2)`` -> distances; keyword only.  By default an nn.PairwiseDistance()
        (F.pairwise_distance), held as a submodule as PyTorch's; a Module passed here
        is a submodule too (moved by .to(), its parameters in state_dict).
    margin : float, optional
        > 0 (default 1).
    swap : bool, optional
        The distance swap: ``d(a, n)`` is ``min(d(a, n), d(p, n))`` (default False).
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Raises
    ------
    TypeError
        When margin is not a number.
    ValueError
        When margin <= 0, or for an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> a = pydevtensor.tensor([[0., 0.]])
    >>> loss_fn = nn.TripletMarginWithDistanceLoss(
    ...     distance_function=lambda x, y: (x - y).abs().sum(-1), margin=0.5)
    >>> loss_fn(a, pydevtensor.tensor([[3., 4.]]), pydevtensor.tensor([[1., 0.]]))
    tensor(6.5000)
    """

    _old_mean = False  # PyTorch refuses reduction='elementwise_mean' here

    def __init__(self, *, distance_function=None, margin: float = 1.0, swap: bool = False,
                 reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)
        margin = _LM._number(margin, "margin", "TripletMarginWithDistanceLoss")
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        self.distance_function = (PairwiseDistance() if distance_function is None
                                  else distance_function)
        self.margin, self.swap = margin, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return _LM.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class CTCLoss(_Loss):
    """The connectionist temporal classification loss (F.ctc_loss); call it as
    ``loss_fn(log_probs, targets, input_lengths, target_lengths)``.

    Parameters
    ----------
    blank : int, optional
        The blank's class (default 0).
    reduction : {'mean', 'sum', 'none'}, optional
        'mean' divides each loss by its target length, then averages (default).
    zero_infinity : bool, optional
        Gives impossible alignments (infinite losses) 0 and 0 gradient (default False).

    Raises
    ------
    ValueError
        For an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> log_probs = pydevtensor.full((2, 1, 2), 0.5).log()
    >>> nn.CTCLoss()(log_probs, pydevtensor.tensor([[1]]), (2,), (1,))
    tensor(0.2877)
    """

    def __init__(self, blank: int = 0, reduction: str = "mean",
                 zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths,
                target_lengths) -> Tensor:
        return _ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                         self.reduction, self.zero_infinity)


class MultiMarginLoss(_WeightedLoss):
    """The multi-class hinge loss (F.multi_margin_loss) of ``(N, C)`` scores against
    ``(N,)`` classes.

    Parameters
    ----------
    p : int, optional
        1 (default) or 2.
    margin : float, optional
        Default 1.
    weight : Tensor, optional
        ``(C,)`` class weights (a buffer: in state_dict, moved by ``.to()``).
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Raises
    ------
    TypeError
        When margin is not a number or weight not a Tensor.
    ValueError
        When p is not 1 or 2, weight is not 1-d, or for an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> x = pydevtensor.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> nn.MultiMarginLoss()(x, pydevtensor.tensor([3]))
    tensor(0.3250)
    """

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                 size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(None, size_average, reduce, reduction)  # weight: checked below
        if p not in (1, 2) or isinstance(p, bool):
            raise ValueError(f"MultiMarginLoss: only p == 1 and p == 2 supported, got {p!r}")
        if weight is not None and getattr(weight, "ndim", 1) != 1:
            raise ValueError(f"MultiMarginLoss: weight must be one-dimensional, got shape "
                             f"{tuple(weight.shape)}")
        self.p, self.margin = p, _LM._number(margin, "margin", "MultiMarginLoss")
        self.register_buffer("weight", _class_weight(weight, "MultiMarginLoss"))

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return _LM.multi_margin_loss(input, target, self.p, self.margin, self.weight,
                                     reduction=self.reduction)


class MultiLabelMarginLoss(_LegacyLoss):
    """The multi-label hinge loss (F.multilabel_margin_loss): each sample's target lists
    its classes, ended by -1.

    Parameters
    ----------
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Raises
    ------
    ValueError
        For an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> x = pydevtensor.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> nn.MultiLabelMarginLoss()(x, pydevtensor.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return _LM.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Binary cross-entropy on logits averaged over the classes
    (F.multilabel_soft_margin_loss).

    Parameters
    ----------
    weight : Tensor, optional
        Per-class weights (a buffer: in state_dict, moved by ``.to()``).
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Raises
    ------
    TypeError
        When weight is not a Tensor.
    ValueError
        For an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> x = pydevtensor.tensor([[0., 2.], [-1., 1.]])
    >>> nn.MultiLabelSoftMarginLoss()(x, pydevtensor.tensor([[1., 0.], [0., 1.]]))
    tensor(0.8616)
    """

    _old_mean = False  # PyTorch refuses reduction='elementwise_mean' here

    def __init__(self, weight: Tensor | None = None, size_average=None, reduce=None,
                 reduction: str = "mean") -> None:
        super().__init__(None, size_average, reduce, reduction)  # weight: checked below
        self.register_buffer("weight", _class_weight(weight, "MultiLabelSoftMarginLoss"))

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return _LM.multilabel_soft_margin_loss(input, target, self.weight,
                                               reduction=self.reduction)


class PoissonNLLLoss(_LegacyLoss):
    """The Poisson negative log-likelihood (F.poisson_nll_loss).

    Parameters
    ----------
    log_input : bool, optional
        Whether the input is the log of the rate (default True).
    full : bool, optional
        Add Stirling's term (default False).
    size_average : bool, optional
        Deprecated (PyTorch's); use reduction.
    eps : float, optional
        Default 1e-8.
    reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Raises
    ------
    ValueError
        For an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.PoissonNLLLoss()(pydevtensor.tensor([0., 1.]), pydevtensor.tensor([1., 3.]))
    tensor(0.3591)
    """

    _old_mean = False  # PyTorch refuses reduction='elementwise_mean' here

    def __init__(self, log_input: bool = True, full: bool = False, size_average=None,
                 eps: float = 1e-8, reduce=None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full = log_input, full
        self.eps = _LM._number(eps, "eps", "PoissonNLLLoss")

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return _LL.poisson_nll_loss(log_input, target, self.log_input, self.full,
                                    eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """The Gaussian negative log-likelihood (F.gaussian_nll_loss); call it as
    ``loss_fn(input, target, var)``.

    Parameters
    ----------
    full : bool, optional
        Add the constant ``log(2 pi) / 2`` (default False); keyword only.
    eps : float, optional
        The smallest variance used (default 1e-6); keyword only.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'; keyword only.

    Raises
    ------
    ValueError
        For an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.GaussianNLLLoss()(pydevtensor.tensor([0., 1.]), pydevtensor.tensor([1., 1.]),
    ...                      pydevtensor.tensor([1., 0.5]))
    tensor(0.0767)
    """

    _old_mean = False  # PyTorch refuses reduction='elementwise_mean' here

    def __init__(self, *, full: bool = False, eps: float = 1e-6,
                 reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)
        self.full, self.eps = full, _LM._number(eps, "eps", "GaussianNLLLoss")

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:
        return _LL.gaussian_nll_loss(input, target, var, self.full, self.eps, self.reduction)


__all__ = ["CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
           "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
           "PoissonNLLLoss", "SoftMarginLoss", "TripletMarginLoss"]
