"""Losses of nn.functional beyond functional.py's: cross_entropy's and nll_loss's class
weights and ignore_index (their composed path), binary_cross_entropy_with_logits and
kl_div, and the recorded ops of mse_loss, huber_loss/smooth_l1_loss and the binary
cross-entropies.  Each is a composition of differentiable package ops; the recorded ones
are one node each with PyTorch's name and gradient formula.  functional.py re-exports
the public ones."""
from __future__ import annotations

import math
import numbers
import warnings

from .. import _C
from .._args import flag
from ..autograd.dispatch import derivative, recorded
from ..autograd.node import Node
from ._functional_activation import softplus as _softplus

_Invalid = _C.InvalidArgumentError  # a ValueError and a RuntimeError, as PyTorch raises


def _legacy_reduction(size_average, reduce, reduction, where="loss", old_mean=True):
    """PyTorch's translation of the deprecated size_average and reduce (each None, or
    a bool) into a reduction, with its warning; reduction itself when both are None.
    A str in their place is refused: PyTorch's third argument is size_average, and it
    would read F.mse_loss(x, y, 'sum') as size_average='sum', a mean.  With old_mean,
    reduction='elementwise_mean' is 'mean', with PyTorch's warning (the losses whose
    reduction PyTorch reads in C take it; its Python ones, old_mean False, do not)."""
    if size_average is None and reduce is None:
        return _elementwise_mean(reduction) if old_mean else reduction
    for name, value in (("size_average", size_average), ("reduce", reduce)):
        if isinstance(value, str):
            raise TypeError(f"{where}: {name}={value!r}: the reduction comes after the "
                            f"deprecated size_average and reduce, as in PyTorch; write "
                            f"reduction={value!r}")
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{reduction}' instead.", UserWarning, stacklevel=3)
    return reduction


def _elementwise_mean(reduction, stacklevel=4):
    """'mean' for PyTorch's deprecated 'elementwise_mean', with its warning; reduction
    otherwise."""
    if isinstance(reduction, str) and reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use "
                      "reduction='mean' instead.", UserWarning, stacklevel=stacklevel)
        return "mean"
    return reduction


def _check_weight(weight, input, where, name="weight", length=None, convert=False,
                  to_input=False):
    """weight, checked: None, or a floating-point Tensor on input's device, 1-d of length
    `length` (class weights), or broadcastable to input (length None); with to_input, it
    must broadcast to input's own shape (PyTorch's binary cross-entropies multiply in
    place: a (N, 1) weight against an (N,) input is refused, not an (N, N) loss).
    convert: any numeric dtype is taken and converted to input's (the binary
    cross-entropies, as PyTorch's: D2L's word2vec passes an integer mask as weight)."""
    if weight is None:
        return None
    if not isinstance(weight, _C.Tensor):
        raise TypeError(f"{where}: {name} must be a Tensor or None, got "
                        f"{type(weight).__name__}" + (
                            f" {weight!r}: pass reduction={weight!r} by keyword (PyTorch's "
                            f"third argument is weight)" if isinstance(weight, str) else ""))
    if convert and weight.dtype != input.dtype and input.is_floating_point():
        weight = weight.to(input.dtype)
    if not weight.is_floating_point():
        raise _C.DTypeError(f"{where}: {name} must be floating point, got {weight.dtype} on "
                            f"{weight.device}")
    if weight.dtype != input.dtype:  # PyTorch raises too: no silent promotion of the loss
        raise _C.DTypeError(f"{where}: {name} is {weight.dtype} but input is {input.dtype} (on "
                            f"{input.device}); convert it with .to(input.dtype)")
    if weight.device != input.device:
        raise _Invalid(f"{where}: {name} is on {weight.device}, input on {input.device}; "
                       f"move it with .to(input.device)")
    if length is not None and tuple(weight.shape) != (length,):
        raise _Invalid(f"{where}: {name} of shape {tuple(weight.shape)} does not fit input "
                       f"of shape {tuple(input.shape)}: expected ({length},), one per class (on "
                       f"{input.device})")
    if to_input and not _broadcasts_to(tuple(weight.shape), tuple(input.shape)):
        raise _Invalid(f"{where}: {name} of shape {tuple(weight.shape)} does not broadcast to "
                       f"input's shape {tuple(input.shape)} (on {input.device})")
    return weight


def _broadcasts_to(shape, to):
    """Whether shape broadcasts to the shape `to` itself (not to a larger one)."""
    return len(shape) <= len(to) and all(
        s in (1, t) for s, t in zip(reversed(shape), reversed(to)))


def as_rows(input, target, where):
    """nll_loss's and cross_entropy's other layouts as (N', C) rows, PyTorch's: an
    unbatched ``(C,)`` input with a 0-d class (or ``(C,)`` probabilities) is one row, and
    ``(N, C, d1, ..., dk)`` with ``(N, d1, ..., dk)`` classes (or probabilities of input's
    shape) is N * d1 * ... * dk rows, C moved last.  Returns (rows, targets, the shape of
    reduction='none''s result), or None for (N, C) input and anything not a Tensor (the
    caller's checks name the problem).  The mean over the rows is PyTorch's mean over
    the elements (weighted by the classes' weights)."""
    if not isinstance(input, _C.Tensor) or not isinstance(target, _C.Tensor) or \
            input.ndim == 2 or input.ndim == 0:
        return None
    soft = target.is_floating_point() and target.ndim == input.ndim
    if input.ndim == 1:
        want = tuple(input.shape) if soft else ()
        if tuple(target.shape) != want:
            raise _Invalid(f"{where}: an unbatched input of shape {tuple(input.shape)} takes "
                           f"a target of shape {want}, got {tuple(target.shape)} (on "
                           f"{input.device})")
        return (input.reshape(1, input.shape[0]),
                target.reshape((1,) + want), ())
    n, c, rest = input.shape[0], input.shape[1], tuple(input.shape[2:])
    want = tuple(input.shape) if soft else (n,) + rest
    if tuple(target.shape) != want:
        raise _Invalid(f"{where}: input of shape {tuple(input.shape)} (N, C, d1, ...) "
                       f"takes a target of shape {want}, got {tuple(target.shape)} (on "
                       f"{input.device})")
    last = (0,) + tuple(range(2, input.ndim)) + (1,)  # C moved last
    rows = input.permute(*last).reshape(-1, c)
    targets = target.permute(*last).reshape(-1, c) if soft else target.reshape(-1)
    return rows, targets, (n,) + rest


def _check_ignore_index(value, where):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{where}: ignore_index must be an int, got {type(value).__name__}")
    return int(value)


# Note [unchecked classes]
# ~~~~~~~~~~~~~~~~~~~~~~~~
# nll_loss and cross_entropy check their integer classes on the CPU, where reading them
# is free (IndexError naming the class).  On a GPU, checking would read the targets
# back to the host on every training step, which pydevtensor never does behind the
# user's back; PyTorch stops the process there (a device-side assert).  Here an
# out-of-range class picks no logit, and the sample's loss and gradient are NaN where no
# class matched and the target is not ignore_index (the row's sum of every logit times
# NaN, nan_where, so the NaN reaches the row's gradient too), so the loss shows it at
# once instead of quietly counting the sample as 0.


def nan_where(values, rows):
    """values (N,) times 1, or NaN where rows (N,) is true: a product, so that the NaN
    also reaches the gradient of whatever values came from (masked_fill's would not)."""
    factor = _C.full(tuple(values.shape), 1.0, dtype=values.dtype, device=values.device)
    return values * factor.masked_fill(rows, math.nan)


def _class_loss(log_p, target, weight, ignore_index, reduction, smoothing):
    """PyTorch's nll_loss (and cross_entropy's label smoothing) of (N, C) log-probabilities
    with class weights w and ignore_index, for any device (nothing read back):

        l_n = -w[t_n] * log_p[n, t_n]            (0 where t_n is ignored)
        s_n = -sum_c w[c] * log_p[n, c]          (0 where t_n is ignored; w = 1 without weights)
        mean: sum(l) / sum(w[t_n]) over the samples not ignored (NaN when all are)
        loss = (1 - e) * reduce(l) + e / C * reduce(s)
    """
    n, c = log_p.shape
    ignored = (target == ignore_index).reshape(n, 1)
    one_hot = (_C.arange(c, dtype=target.dtype, device=target.device) ==
               target.reshape(n, 1)).masked_fill(ignored, False)
    unmatched = None
    if target.device.type != "cpu":  # Note [unchecked classes]
        unmatched = one_hot.any(1).logical_or(ignored.reshape(n)).logical_not()
    masked = one_hot.logical_not()
    if unmatched is not None:
        masked = masked.logical_and(unmatched.logical_not().reshape(n, 1))
    picked = log_p.masked_fill(masked, 0.0)  # -inf * 0 would be NaN
    if weight is None:
        nll = picked.sum(1).neg()
        w_n = one_hot.to(log_p.dtype).sum(1)
    else:
        nll = (picked * weight).sum(1).neg()
        w_n = (one_hot.to(weight.dtype) * weight).sum(1)
    if unmatched is not None:
        nll = nan_where(nll, unmatched)
    if reduction == "mean":
        total = w_n.sum()
        loss = nll.sum() / total
    else:
        loss = nll.sum() if reduction == "sum" else nll
    if smoothing == 0.0:
        return loss
    smooth = (log_p if weight is None else log_p * weight).sum(1).neg().masked_fill(
        ignored.reshape(n), 0.0)
    if reduction == "mean":
        smooth = smooth.sum() / total
    elif reduction == "sum":
        smooth = smooth.sum()
    return loss.mul(1.0 - smoothing) + smooth.mul(smoothing / c)


def soft_cross_entropy(input, target, weight, ignore_index, reduction, smoothing, log_softmax):
    """cross_entropy with class probabilities for target (PyTorch's form for a
    floating-point target of input's shape), ``(N, C)`` or ``(C,)``:

        t = target * (1 - e) + e / C                      (label smoothing e)
        l_n = -sum_c w[c] * t[n, c] * log_softmax(x)[n, c]
        mean: sum(l) / N (not weighted, as PyTorch's); sum; none: l
    """
    where = "cross_entropy()"
    if not input.is_floating_point():
        raise _C.DTypeError(f"{where}: input must be floating point logits, got {input.dtype} on "
                            f"{input.device}")
    if input.ndim not in (1, 2) or tuple(target.shape) != tuple(input.shape):
        raise _Invalid(f"{where}: a floating-point target holds class probabilities and must "
                       f"have input's shape, (N, C) or (C,): got input "
                       f"{tuple(input.shape)} and target {tuple(target.shape)} on "
                       f"{input.device}")
    if ignore_index >= 0:
        raise _Invalid(f"{where}: ignore_index is not supported for floating point target "
                       f"(class probabilities), got ignore_index={ignore_index}")
    if reduction not in ("mean", "sum", "none"):
        _reduced(None, reduction, where)
    c = input.shape[-1]
    weight = _check_weight(weight, input, where, length=c)
    if smoothing:
        target = target * (1.0 - smoothing) + smoothing / c
    log_p = log_softmax(input, input.ndim - 1)
    picked = log_p * target if weight is None else log_p * target * weight
    loss = picked.sum(input.ndim - 1).neg()
    if reduction == "mean" and input.ndim == 2:
        return loss.sum() / input.shape[0]
    return loss if reduction == "none" else loss.sum()


def _reduced(loss, reduction, where):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{where}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def _check_pair(input, target, where, broadcast=False):
    """Floating-point input and target of one shape; with broadcast (kl_div's), other
    shapes that broadcast are taken, with mse_loss's warning (PyTorch broadcasts them
    silently in kl_div)."""
    if broadcast and isinstance(input, _C.Tensor) and isinstance(target, _C.Tensor):
        from .functional import _check_same_shape
        _check_same_shape(input, target, where, stacklevel=4)
    if not isinstance(input, _C.Tensor) or not isinstance(target, _C.Tensor):
        raise TypeError(f"{where}: input and target must be Tensors, got "
                        f"{type(input).__name__} and {type(target).__name__}")
    if not input.is_floating_point() or not target.is_floating_point():
        raise _C.DTypeError(f"{where}: input and target must be floating point, got "
                            f"{input.dtype} and {target.dtype} on {input.device}")
    if tuple(input.shape) != tuple(target.shape) and not broadcast:
        raise ValueError(f"{where}: target of shape {tuple(target.shape)} and input of shape "
                         f"{tuple(input.shape)} differ, on {input.device}")


def binary_cross_entropy_with_logits(input: _C.Tensor, target: _C.Tensor,
                                     weight: _C.Tensor | None = None,
                                     size_average: bool | None = None,
                                     reduce: bool | None = None, reduction: str = "mean",
                                     pos_weight: _C.Tensor | None = None) -> _C.Tensor:
    """PyTorch's ``binary_cross_entropy_with_logits``: the binary cross-entropy of
    ``sigmoid(input)`` against target, computed from the logits without overflow for
    any abs(input):

        loss = (1 - y) * softplus(x) + pos_weight * y * softplus(-x)

    (PyTorch's ``(1 - y) * x + (1 + (pos_weight - 1) * y) * softplus(-x)``, with
    softplus(z) = log(1 + exp(z)) computed as log1p(exp(z)), or z above 20; every
    term is >= 0, so confident predictions keep their relative precision)

    (``-[y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))]`` without pos_weight), times
    weight, then reduced.

    Parameters
    ----------
    input : Tensor
        Logits, floating point.
    target : Tensor
        Of input's shape: probabilities in [0, 1] (usually 0 or 1).
    weight : Tensor, optional
        Broadcast against the elementwise losses (a weight per element or per class).
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.
    pos_weight : Tensor, optional
        The weight of the positive term, broadcast against input (one per class, on
        the last dimension): above 1 it favours recall.

    Returns
    -------
    Tensor
        0-d, or of input's shape with reduction='none'; of target's dtype, as PyTorch's
        (a float64 input against a float32 target gives float32).

    Raises
    ------
    TypeError
        When input, target, weight or pos_weight is not a floating-point Tensor, or a
        weight's dtype is not input's.
    ValueError
        When the shapes differ, a weight is on another device, or reduction is unknown.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([0., 2., -1000.])
    >>> y = pydevtensor.tensor([1., 0., 0.])
    >>> F.binary_cross_entropy_with_logits(x, y, reduction='none')
    tensor([0.6931, 2.1269, 0.0000])
    >>> F.binary_cross_entropy_with_logits(x, y, pos_weight=pydevtensor.tensor([3.]))
    tensor(1.4021)
    """
    where = "binary_cross_entropy_with_logits()"
    reduction = _legacy_reduction(size_average, reduce, reduction, where)
    _check_pair(input, target, where)
    weight = _check_weight(weight, input, where, convert=True, to_input=True)
    pos_weight = _check_weight(pos_weight, input, where, "pos_weight", convert=True,
                               to_input=True)
    if reduction not in ("mean", "sum", "none"):
        _reduced(None, reduction, where)
    if not any(w is not None and w.requires_grad for w in (weight, pos_weight)):
        # one node, BinaryCrossEntropyWithLogitsBackward0 (PyTorch's, which refuses a
        # weight that requires grad: composed, such a weight gets its gradient here)
        return _bce_logits(input, target, weight, pos_weight, reduction)
    return _bce_logits.__wrapped__(input, target, weight, pos_weight, reduction)


@recorded("binary_cross_entropy_with_logits")
def _bce_logits(input, target, weight, pos_weight, reduction):
    """binary_cross_entropy_with_logits after its checks."""
    where = "binary_cross_entropy_with_logits()"
    # (1 - y) * softplus(x) + pos_weight * y * softplus(-x), PyTorch's
    # (1 - y) * x + (1 + (pos_weight - 1) * y) * softplus(-x) rearranged so that every term
    # is >= 0: nothing cancels, for confident predictions of either class
    if pos_weight is None:
        loss = (1 - target) * _softplus(input) + target * _softplus(input.neg())
    else:
        loss = (1 - target) * _softplus(input) + pos_weight * target * _softplus(input.neg())
    if weight is not None:
        loss = loss * weight
    if target.is_floating_point():  # PyTorch's loss is (1 - target).mul_(...): its dtype
        loss = loss.to(target.dtype)
    return _reduced(loss, reduction, where)


def binary_cross_entropy(input: _C.Tensor, target: _C.Tensor,
                         weight: _C.Tensor | None = None, size_average: bool | None = None,
                         reduce: bool | None = None, reduction: str = "mean") -> _C.Tensor:
    """PyTorch's ``binary_cross_entropy`` of probabilities: elementwise

        loss = -weight * (y * max(log(x), -100) + (1 - y) * max(log(1 - x), -100))

    (each log clamped at -100, as PyTorch's, so a confident wrong answer costs 100
    rather than inf), then reduced.  The sigmoid and this loss in one stable formula is
    ``binary_cross_entropy_with_logits``, which is better for training.

    Parameters
    ----------
    input : Tensor
        Probabilities in [0, 1], floating point (checked on the CPU; on a GPU a value
        outside gives NaN, nothing is read back).
    target : Tensor
        input's shape and dtype, usually 0 or 1.
    weight : Tensor, optional
        Broadcast against the elementwise losses; any numeric dtype (converted to
        input's, as PyTorch's).
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Returns
    -------
    Tensor
        0-d, or input's shape with reduction='none'.

    Raises
    ------
    TypeError
        When input or target is not a floating-point Tensor, or their dtypes differ
        (DTypeError, a RuntimeError as PyTorch's).
    ValueError
        For mismatched shapes, an unknown reduction, or (on the CPU) an input or a target
        outside [0, 1] (PyTorch's check).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.binary_cross_entropy(pydevtensor.tensor([0.9, 0.2]), pydevtensor.tensor([1., 0.]))
    tensor(0.1643)
    >>> F.binary_cross_entropy(pydevtensor.tensor([0.0]), pydevtensor.tensor([1.0]))
    tensor(100.)
    """
    where = "binary_cross_entropy()"
    reduction = _legacy_reduction(size_average, reduce, reduction, where)
    _check_pair(input, target, where)
    if input.dtype != target.dtype:  # PyTorch's kernel takes one dtype
        raise _C.DTypeError(f"{where}: input ({input.dtype}) and target ({target.dtype}) "
                            f"must have one dtype, of shape {tuple(input.shape)} on "
                            f"{input.device}; convert the target with .to(input.dtype)")
    weight = _check_weight(weight, input, where, convert=True, to_input=True)
    if reduction not in ("mean", "sum", "none"):
        _reduced(None, reduction, where)
    for name, value in (("input", input), ("target", target)):
        if value.device.type == "cpu" and value.numel():
            outside = (value < 0).logical_or(value > 1).logical_or(value.isnan())
            if bool(outside.any()):
                raise _Invalid(f"{where}: all elements of {name} should be between 0 and 1, "
                               f"got {float(value[outside].reshape(-1)[0])} ({name} of shape "
                               f"{tuple(value.shape)} on {value.device})")
    return _binary_cross_entropy(input, target, weight, reduction)


@recorded("mse_loss")
def mse(input, target, reduction):
    """mse_loss without weights, input and target of one shape: one autograd node,
    MseLossBackward0 as PyTorch's (composed, its grad_fn was the reduction's or the
    square's)."""
    diff = input - target
    return _reduced(diff.mul_(diff), reduction, "mse_loss()")  # diff is our own


@derivative("mse_loss")
class MseLossBackward0(Node):
    """PyTorch's mse_loss_backward: ``2 (input - target) g`` (over the element count
    for the mean) for input, its negative for target; recorded ops, so differentiable
    again (create_graph)."""

    def save(self, result, input, target, reduction):
        self.save_tensors(input, target)
        self.reduction = reduction
        return input, target

    def backward(self, g):
        x, y = self.saved_tensors
        scale = 2.0 / max(x.numel(), 1) if self.reduction == "mean" else 2.0
        d = (x - y) * (g * scale)
        need = self.needs_input_grad
        return (d.to(x.dtype) if need[0] else None), (d.neg().to(y.dtype) if need[1] else None)


@recorded("smooth_l1_loss")
def piecewise(input, target, reduction, knee, beta):
    """huber_loss (beta None) and smooth_l1_loss without weights, input and target of
    one shape, as one node (HuberLossBackward0 / SmoothL1LossBackward0, PyTorch's
    names): with d = input - target, below the knee ``0.5 d^2`` (over beta), from it on
    ``knee (|d| - knee / 2)`` (``|d| - beta / 2``); a NaN takes the quadratic piece."""
    d = input - target
    z = d.abs()
    inner = (z >= knee).logical_not()  # z < knee, or NaN
    dq = d.where(inner, 0.0)  # finite where the linear piece is taken (z = inf)
    if beta is None:
        loss = (0.5 * dq * dq).where(inner, knee * (z - 0.5 * knee)).to(input.dtype)
    else:
        loss = (0.5 * dq * dq / beta).where(inner, z - 0.5 * beta)
    return _reduced(loss, reduction, "smooth_l1_loss()")


@derivative("smooth_l1_loss")
class SmoothL1LossBackward0(Node):
    """PyTorch's smooth_l1_loss_backward / huber_loss_backward: g d / beta (g d) inside
    the knee, g sign(d) (g knee sign(d)) past it, over the count for the mean; the
    negative for target.  Recorded ops: differentiable again (create_graph)."""

    @staticmethod
    def pick(input, target, reduction, knee, beta):
        return HuberLossBackward0 if beta is None else SmoothL1LossBackward0

    def save(self, result, input, target, reduction, knee, beta):
        self.save_tensors(input, target)
        self.args = (reduction, knee, beta)
        return input, target

    def backward(self, g):
        x, y = self.saved_tensors
        reduction, knee, beta = self.args
        if reduction == "mean":
            g = g / max(x.numel(), 1)
        d = x - y
        inner = (d.abs() >= knee).logical_not()
        outer = d.sign() * (knee if beta is None else 1.0)
        dx = (d if beta is None else d / beta).where(inner, outer) * g
        need = self.needs_input_grad
        return (dx.to(x.dtype) if need[0] else None), (dx.neg().to(y.dtype) if need[1] else None)


class HuberLossBackward0(SmoothL1LossBackward0):
    pass


@derivative("binary_cross_entropy_with_logits")
class BinaryCrossEntropyWithLogitsBackward0(Node):
    """PyTorch's gradients: for input ``g w (sigmoid(x) - y)``, with pos_weight p
    ``g w ((p y + 1 - y) sigmoid(x) - p y)``; for target ``-g w x``, with pos_weight
    ``g w (p softplus(-x) - softplus(x))`` (over the count for the mean).  weight and
    pos_weight get none (binary_cross_entropy_with_logits records this node only when
    they need none).  Recorded ops: differentiable again (create_graph)."""

    def save(self, result, input, target, weight, pos_weight, reduction):
        self.has = (weight is not None, pos_weight is not None)
        self.save_tensors(input, target, *(w for w in (weight, pos_weight) if w is not None))
        self.reduction = reduction
        return input, target

    def backward(self, g):
        x, y, *ws = self.saved_tensors
        weight = ws.pop(0) if self.has[0] else None
        pw = ws[0] if self.has[1] else None
        if self.reduction == "mean":
            g = g / max(x.numel(), 1)
        if weight is not None:
            g = g * weight
        need = self.needs_input_grad
        dx = dy = None
        if need[0]:
            s = x.sigmoid()
            if pw is None:
                dx = (s - y) * g
            else:
                t = pw * y
                dx = ((t + 1 - y) * s - t) * g
            dx = dx.to(x.dtype)
        if need[1]:
            dy = (x.neg() if pw is None else pw * _softplus(x.neg()) - _softplus(x)) * g
            dy = dy.to(y.dtype)
        return dx, dy


@recorded("binary_cross_entropy")
def _binary_cross_entropy(input, target, weight, reduction):
    """The loss after binary_cross_entropy's checks, one autograd node
    (BinaryCrossEntropyBackward0): composed, log's gradient at 0 would be 0 * inf."""
    loss = (target * input.log().clamp(min=-100.0)
            + (1 - target) * (1 - input).log().clamp(min=-100.0)).neg()
    if weight is not None:
        loss = loss * weight
    return _reduced(loss, reduction, "binary_cross_entropy()")


@derivative("binary_cross_entropy")
class BinaryCrossEntropyBackward0(Node):
    """PyTorch's gradients of the binary cross-entropy: for its input
    ``g * w * (x - y) / max(x (1 - x), 1e-12)``, finite at x = 0 and 1 (where the
    clamped logs are flat), so a saturated sigmoid before BCELoss does not turn the
    batch's gradient into NaN; for target ``g * w * (log(1 - x) - log(x))``, each log
    clamped at -100 (soft targets, distillation)."""

    def save(self, result, input, target, weight, reduction):
        self.save_tensors(input, target, *(() if weight is None else (weight,)))
        self.reduction = reduction
        return input, target

    def backward(self, g):
        x, y, *w = self.saved_tensors
        if self.reduction == "mean":
            g = g / max(x.numel(), 1)
        if w:
            g = g * w[0]
        dx = dy = None
        if self.needs_input_grad[0]:
            dx = (x - y) / (x * (1 - x)).clamp(min=1e-12) * g
        if self.needs_input_grad[1]:
            dy = ((1 - x).log().clamp(min=-100.0) - x.log().clamp(min=-100.0)) * g
        return dx, dy


def kl_div(input: _C.Tensor, target: _C.Tensor, size_average: bool | None = None,
           reduce: bool | None = None, reduction: str = "mean",
           log_target: bool = False) -> _C.Tensor:
    """PyTorch's ``kl_div``: the pointwise Kullback-Leibler divergence of target from the
    distribution whose log-probabilities are input,

        target * (log(target) - input)          (0 where target is 0)
        exp(target) * (target - input)          with log_target=True

    reduced by 'mean' (over every element, as PyTorch's, which warns that it is not
    the KL divergence), 'batchmean' (the sum over the batch size input.shape[0]: the
    true KL divergence per sample), 'sum' or 'none'.

    Parameters
    ----------
    input : Tensor
        Log-probabilities, floating point.
    target : Tensor
        Probabilities (log-probabilities with log_target) of input's shape; another
        shape is broadcast, with mse_loss's warning.
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    reduction : {'mean', 'batchmean', 'sum', 'none'}, optional
        Default 'mean'.
    log_target : bool, optional
        Whether target holds log-probabilities (default False).

    Returns
    -------
    Tensor
        0-d, or of input's shape with reduction='none'.

    Raises
    ------
    TypeError
        When input or target is not a floating-point Tensor, or log_target not a bool.
    ValueError
        When the shapes do not broadcast or reduction is unknown.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> p = pydevtensor.tensor([[0.5, 0.5], [0.9, 0.1]])
    >>> q = pydevtensor.tensor([[0.5, 0.5], [0.5, 0.5]])
    >>> F.kl_div(q.log(), p, reduction='batchmean')
    tensor(0.1840)
    >>> F.kl_div(q.log(), p.log(), reduction='sum', log_target=True)
    tensor(0.3681)
    """
    where = "kl_div()"
    # PyTorch warns about 'mean' as given, not for 'elementwise_mean' nor for the mean
    # that size_average/reduce ask for (they have their own warning)
    warn_mean = reduction == "mean" and size_average is None and reduce is None
    reduction = _legacy_reduction(size_average, reduce, reduction, where, old_mean=False)
    reduction = _elementwise_mean(reduction, stacklevel=3)
    _check_pair(input, target, where, broadcast=True)
    log_target = flag(log_target, where.removesuffix("()"), "log_target")
    if reduction not in ("mean", "batchmean", "sum", "none"):
        raise ValueError(f"{where}: reduction must be 'mean', 'batchmean', 'sum' or 'none', "
                         f"got {reduction!r}")
    if log_target:
        loss = target.exp() * (target - input)
    else:  # xlogy(target, target): log(1) = 0 where target is 0
        loss = target * target.masked_fill(target == 0, 1.0).log() - target * input
    if reduction == "batchmean":
        total = loss.sum()
        return total / input.shape[0] if input.ndim else total
    if warn_mean:
        warnings.warn("kl_div(): reduction='mean' divides the sum by the number of elements, "
                      "not by the batch size as the KL divergence does; use "
                      "reduction='batchmean' (as PyTorch warns)", UserWarning, stacklevel=2)
    return _reduced(loss, reduction, where)
