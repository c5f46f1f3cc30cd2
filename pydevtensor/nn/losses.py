"""The losses: MSELoss, L1Loss, HuberLoss, SmoothL1Loss, CrossEntropyLoss, NLLLoss,
BCEWithLogitsLoss and KLDivLoss.

``loss = loss_fn(pred, target)`` returns a 0-d tensor (with reduction='mean' or 'sum')
made of package ops, so ``loss.backward()`` (autograd) gives d loss / d every parameter.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import _functional_losses as _L
from . import functional as F
from .module import Module

if TYPE_CHECKING:
    from .._C import Tensor


class _Loss(Module):
    """The base of the losses: PyTorch's deprecated size_average and reduce come first,
    translated into reduction (with its warning); so is 'elementwise_mean', 'mean' (but
    in the losses PyTorch computes in Python: _old_mean False)."""

    _old_mean = True
    _reductions = ("mean", "sum", "none")  # KLDivLoss adds 'batchmean'

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__()
        where = type(self).__name__
        reduction = _L._legacy_reduction(size_average, reduce, reduction, where,
                                         self._old_mean)
        if reduction not in self._reductions:
            *most, last = (repr(r) for r in self._reductions)
            raise ValueError(f"{where}: reduction must be {', '.join(most)} or {last}, got "
                             f"{reduction!r}")
        self.reduction = reduction

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}" if self.reduction != "mean" else ""


class _WeightedLoss(_Loss):
    """The base of the losses with class weights (CrossEntropyLoss, NLLLoss, BCELoss,
    BCEWithLogitsLoss, MultiMarginLoss, MultiLabelSoftMarginLoss), as PyTorch's (which
    derives BCEWithLogitsLoss from _Loss): weight is a buffer (in state_dict, moved by
    ``.to()``); a custom loss subclassing it gets ``self.weight`` and ``self.reduction``.

    Parameters
    ----------
    weight : Tensor, optional
        The weights.
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Examples
    --------
    >>> from pydevtensor.nn.modules.loss import _WeightedLoss
    >>> class Weighted(_WeightedLoss):
    ...     def forward(self, a, b):
    ...         return ((a - b) ** 2 * self.weight).sum()
    >>> Weighted(pydevtensor.tensor([1., 2.]))(pydevtensor.ones(2), pydevtensor.zeros(2))
    tensor(3.)
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


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
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """The mean (or sum) of ``|input - target|`` (F.l1_loss); call it as
    ``loss_fn(input, target)``.

    Parameters
    ----------
    reduction : {'mean', 'sum', 'none'}, optional
        How the absolute errors are combined (default 'mean').

    Raises
    ------
    ValueError
        For an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.L1Loss()(pydevtensor.tensor([1., 2.]), pydevtensor.tensor([1., 5.]))
    tensor(1.5000)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class HuberLoss(_Loss):
    """With ``z = |input - target|``: ``0.5 * z * z`` where ``z < delta``, else
    ``delta * (z - 0.5 * delta)``, then the mean (or sum) (F.huber_loss).

    Parameters
    ----------
    reduction : {'mean', 'sum', 'none'}, optional
        How the elementwise losses are combined (default 'mean').
    delta : float, optional
        Where the quadratic piece turns linear, > 0 (default 1.0).

    Raises
    ------
    TypeError
        When delta is not a number.
    ValueError
        For an unknown reduction, or delta <= 0.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.HuberLoss(delta=2.0)(pydevtensor.tensor([0., 0.]), pydevtensor.tensor([1., 4.]))
    tensor(3.2500)
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = F._positive(delta, "delta", "HuberLoss", zero_ok=False)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)

    def extra_repr(self) -> str:
        return ", ".join(filter(None, [super().extra_repr(), f"delta={self.delta}"]))


class SmoothL1Loss(_Loss):
    """With ``z = |input - target|``: ``0.5 * z * z / beta`` where ``z < beta``, else
    ``z - 0.5 * beta``, then the mean (or sum) (F.smooth_l1_loss; beta = 0 is L1Loss).

    Parameters
    ----------
    reduction : {'mean', 'sum', 'none'}, optional
        How the elementwise losses are combined (default 'mean').
    beta : float, optional
        Where the quadratic piece turns linear, >= 0 (default 1.0).

    Raises
    ------
    TypeError
        When beta is not a number.
    ValueError
        For an unknown reduction, or beta < 0.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.SmoothL1Loss(beta=2.0)(pydevtensor.tensor([0., 0.]), pydevtensor.tensor([1., 4.]))
    tensor(1.6250)
    """

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = F._positive(beta, "beta", "SmoothL1Loss", zero_ok=True)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)

    def extra_repr(self) -> str:
        return ", ".join(filter(None, [super().extra_repr(), f"beta={self.beta}"]))


class CrossEntropyLoss(_WeightedLoss):
    """Softmax cross-entropy of (N, C) logits against (N,) integer class indices,
    computed after subtracting each row's max (exp never overflows), optionally with
    PyTorch's label smoothing (F.cross_entropy); or against class probabilities, a
    floating-point target of the logits' shape.  Call it as ``loss_fn(logits, target)``.

    Parameters
    ----------
    weight : Tensor, optional
        ``(C,)`` class weights (F.cross_entropy's), on the logits' device.
    ignore_index : int, optional
        The target of samples to skip (default -100).
    reduction : {'mean', 'sum', 'none'}, optional
        How the per-sample losses are combined (default 'mean'); PyTorch's order of
        the arguments (weight, size_average, ignore_index, reduce, reduction), so give it
        by name.
    label_smoothing : float, optional
        In [0, 1]: the weight of the uniform distribution mixed into the target
        (default 0).

    Raises
    ------
    TypeError
        When weight is not a Tensor, or label_smoothing or ignore_index has the wrong
        type.
    ValueError
        For an unknown reduction, or a label_smoothing outside [0, 1].

    Examples
    --------
    >>> from pydevtensor import nn
    >>> logits = pydevtensor.tensor([[2., 0.], [0., 2.]])
    >>> nn.CrossEntropyLoss()(logits, pydevtensor.tensor([0, 1]))
    tensor(0.1269)
    >>> nn.CrossEntropyLoss(label_smoothing=0.2)(logits, pydevtensor.tensor([0, 1]))
    tensor(0.3269)
    >>> nn.CrossEntropyLoss(ignore_index=1)(logits, pydevtensor.tensor([0, 1]))
    tensor(0.1269)
    >>> nn.CrossEntropyLoss()(logits, pydevtensor.tensor([[1., 0.], [0.5, 0.5]]))
    tensor(0.6269)
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(None, size_average, reduce, reduction)  # weight: checked below
        # buffers, as PyTorch's: in state_dict, moved by .to()
        self.register_buffer("weight", _class_weight(weight, "CrossEntropyLoss"))
        self.ignore_index = _L._check_ignore_index(ignore_index, "CrossEntropyLoss")
        self.label_smoothing = F._label_smoothing(label_smoothing)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)

    def extra_repr(self) -> str:
        smoothing = f"label_smoothing={self.label_smoothing}" if self.label_smoothing else ""
        return ", ".join(filter(None, [super().extra_repr(), _ignore_repr(self), smoothing]))


class NLLLoss(_WeightedLoss):
    """The mean (or sum) over samples of ``-input[i, target[i]]`` for (N, C)
    log-probabilities and (N,) class indices (F.nll_loss); on ``log_softmax(x, 1)`` it
    is CrossEntropyLoss on x.

    Parameters
    ----------
    weight : Tensor, optional
        ``(C,)`` class weights (F.nll_loss's), on the input's device.
    ignore_index : int, optional
        The target of samples to skip (default -100).
    reduction : {'mean', 'sum', 'none'}, optional
        How the per-sample losses are combined (default 'mean'); PyTorch's order of
        the arguments (weight, size_average, ignore_index, reduce, reduction), so give it
        by name.

    Raises
    ------
    TypeError
        When weight is not a Tensor or ignore_index not an int.
    ValueError
        For an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> log_p = pydevtensor.tensor([[-0.5, -1.0], [-2.0, -0.25]])
    >>> nn.NLLLoss(reduction='sum')(log_p, pydevtensor.tensor([0, 1]))
    tensor(0.7500)
    >>> nn.NLLLoss(pydevtensor.tensor([1., 3.]))(log_p, pydevtensor.tensor([0, 1]))
    tensor(0.3125)
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(None, size_average, reduce, reduction)  # weight: checked below
        # buffers, as PyTorch's: in state_dict, moved by .to()
        self.register_buffer("weight", _class_weight(weight, "NLLLoss"))
        self.ignore_index = _L._check_ignore_index(ignore_index, "NLLLoss")

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)

    def extra_repr(self) -> str:
        return ", ".join(filter(None, [super().extra_repr(), _ignore_repr(self)]))


def _class_weight(weight, where):
    from .._C import Tensor as _Tensor
    if weight is not None and not isinstance(weight, _Tensor):
        raise TypeError(f"{where}: weight must be a Tensor or None, got "
                        f"{type(weight).__name__}" + (
                            f" {weight!r}: pass reduction={weight!r} by keyword (PyTorch's "
                            f"first argument is weight)" if isinstance(weight, str) else ""))
    return weight


def _ignore_repr(loss):
    return f"ignore_index={loss.ignore_index}" if loss.ignore_index != -100 else ""


class BCEWithLogitsLoss(_WeightedLoss):
    """Binary cross-entropy on logits (F.binary_cross_entropy_with_logits: a sigmoid and
    the cross-entropy in one stable formula); call it as ``loss_fn(logits, target)``.

    Parameters
    ----------
    weight : Tensor, optional
        Broadcast against the elementwise losses.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'; PyTorch's order of the arguments (weight, size_average,
        reduce, reduction), so give it by name.
    pos_weight : Tensor, optional
        The weight of the positive term (one per class, on the last dimension).

    Raises
    ------
    TypeError
        When weight or pos_weight is not a Tensor.
    ValueError
        For an unknown reduction.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> loss_fn = nn.BCEWithLogitsLoss()
    >>> loss_fn(pydevtensor.tensor([0., 2.]), pydevtensor.tensor([1., 0.]))
    tensor(1.4100)
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:
        super().__init__(None, size_average, reduce, reduction)  # weight: checked below
        # buffers, as PyTorch's: in state_dict, moved by .to()
        self.register_buffer("weight", _class_weight(weight, "BCEWithLogitsLoss"))
        self.register_buffer("pos_weight", _class_weight(pos_weight, "BCEWithLogitsLoss"))

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities (F.binary_cross_entropy: each log clamped
    at -100); call it as ``loss_fn(probabilities, target)``.  On logits,
    BCEWithLogitsLoss is the stable choice.

    Parameters
    ----------
    weight : Tensor, optional
        Broadcast against the elementwise losses.
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
    >>> nn.BCELoss()(pydevtensor.tensor([0.9, 0.2]), pydevtensor.tensor([1., 0.]))
    tensor(0.1643)
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(None, size_average, reduce, reduction)  # weight: checked below
        self.register_buffer("weight", _class_weight(weight, "BCELoss"))

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class KLDivLoss(_Loss):
    """The Kullback-Leibler divergence (F.kl_div) of target from the distribution whose
    log-probabilities are the input; call it as ``loss_fn(log_q, p)``.

    Parameters
    ----------
    reduction : {'mean', 'batchmean', 'sum', 'none'}, optional
        Default 'mean' (PyTorch's default, which warns: 'batchmean' is the KL
        divergence per sample).
    log_target : bool, optional
        Whether the target holds log-probabilities (default False).

    Raises
    ------
    ValueError
        For an unknown reduction.
    TypeError
        When log_target is not a bool.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> loss_fn = nn.KLDivLoss(reduction='batchmean')
    >>> p = pydevtensor.tensor([[0.9, 0.1]])
    >>> loss_fn(pydevtensor.tensor([[0.5, 0.5]]).log(), p)
    tensor(0.3681)
    """

    _reductions = ("mean", "batchmean", "sum", "none")

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        if not isinstance(log_target, bool):
            raise TypeError(f"KLDivLoss: log_target must be True or False, got "
                            f"{log_target!r:.40}")
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)

    def extra_repr(self) -> str:
        return ", ".join(filter(None, [f"reduction={self.reduction!r}"
                                       if self.reduction != "mean" else "",
                                       "log_target=True" if self.log_target else ""]))
