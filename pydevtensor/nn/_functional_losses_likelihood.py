"""PyTorch's negative log-likelihood losses of a distribution's parameters:
poisson_nll_loss and gaussian_nll_loss (re-exported by nn.functional; the layers are in
nn/losses_more.py).  Compositions of differentiable package ops, as PyTorch writes them."""
from __future__ import annotations

import math

from .. import _C
from .._args import flag
from ._functional_losses import _reduced
from ._functional_losses_margin import (_broadcast, _check_reduction, _legacy_reduction, _target,
                                        _number, _tensors)

_Invalid = _C.InvalidArgumentError


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """PyTorch's ``poisson_nll_loss``: the negative log-likelihood of target under a
    Poisson distribution of rate ``exp(input)`` (log_input) or input:
    ``exp(x) - y x``, or ``x - y log(x + eps)``, elementwise; with full, plus
    Stirling's approximation of ``log(y!)``, ``y log y - y + log(2 pi y) / 2``, where
    y > 1; then reduced.

    Parameters
    ----------
    input : Tensor
        Floating point: the log-rate (log_input) or the rate.
    target : Tensor
        Counts, floating point, broadcast against input.
    log_input : bool, optional
        Whether input is the log of the rate (default True).
    full : bool, optional
        Add the Stirling term (default False).
    size_average, reduce : bool, optional
        Deprecated (PyTorch's); use reduction.
    eps : float, optional
        Keeps log(x + eps) finite at x = 0 without log_input (default 1e-8).
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Returns
    -------
    Tensor
        0-d, or the broadcast shape with reduction='none'.

    Raises
    ------
    TypeError
        When input or target is not a floating-point Tensor, or eps not a number.
    ValueError
        When the shapes do not broadcast, or for an unknown reduction.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.poisson_nll_loss(pydevtensor.tensor([0., 1.]), pydevtensor.tensor([1., 3.]),
    ...                    reduction='none')
    tensor([ 1.0000, -0.2817])
    """
    where = "poisson_nll_loss()"
    reduction = _legacy_reduction(size_average, reduce, reduction, old_mean=False)
    target = _target(target, input, bool_ok=True)
    _tensors(where, input=input, target=target)
    eps = _number(eps, "eps", where)
    _check_reduction(reduction, where)
    _broadcast(where, input=input, target=target)
    log_input = flag(log_input, "poisson_nll_loss", "log_input")
    full = flag(full, "poisson_nll_loss", "full")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        small = target <= 1
        y = target.masked_fill(small, 2.0)  # no log(0) * 0 in the masked-out part
        stirling = y * y.log() - y + (y * (2 * math.pi)).log() * 0.5
        loss = loss + stirling.masked_fill(small, 0.0)
    return _reduced(loss, reduction, where)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """PyTorch's ``gaussian_nll_loss``: the negative log-likelihood of target under a
    normal distribution of mean input and variance var,
    ``(log(max(var, eps)) + (input - target)^2 / max(var, eps)) / 2`` (plus
    ``log(2 pi) / 2`` with full), then reduced.  As PyTorch, the clamp at eps does not
    stop var's gradient (it passes as if var were unclamped).

    Parameters
    ----------
    input : Tensor
        The expected values, ``(N, *)`` or ``(*)``, floating point.
    target : Tensor
        input's shape (or broadcast against it).
    var : Tensor or float
        The variances: input's shape, or input's without its last dimension (one
        variance per sample), or that with a last dimension of 1, or a number; none
        negative (checked on the CPU).
    full : bool, optional
        Add the constant (default False).
    eps : float, optional
        The smallest variance used (default 1e-6).
    reduction : {'mean', 'sum', 'none'}, optional
        Default 'mean'.

    Returns
    -------
    Tensor
        0-d, or the broadcast shape with reduction='none'.

    Raises
    ------
    TypeError
        When an input is not a floating-point Tensor (var: or a number).
    ValueError
        When var has a wrong size or a negative entry (on the CPU), or for an unknown
        reduction.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.gaussian_nll_loss(pydevtensor.tensor([0., 1.]), pydevtensor.tensor([1., 1.]),
    ...                     pydevtensor.tensor([1., 0.5]), reduction='none')
    tensor([ 0.5000, -0.3466])
    """
    where = "gaussian_nll_loss()"
    target = _target(target, input)
    _tensors(where, input=input, target=target)
    eps = _number(eps, "eps", where)
    _check_reduction(reduction, where)
    if isinstance(var, (int, float)) and not isinstance(var, bool):
        if var < 0:
            raise ValueError(f"{where}: var has negative entry/entries: {var}")
        var = _C.full(tuple(input.shape), float(var), dtype=input.dtype, device=input.device)
    _tensors(where, var=var)
    shape, vshape = tuple(input.shape), tuple(var.shape)
    if vshape != shape:
        if shape[:-1] == vshape:  # one variance per sample (homoscedastic)
            var = var.unsqueeze(-1)
        elif not (shape[:-1] == vshape[:-1] and vshape[-1:] == (1,)):
            raise ValueError(f"{where}: var is of incorrect size: {vshape} for input of "
                             f"shape {shape} (on {input.device}); expected {shape}, "
                             f"{shape[:-1]} or {shape[:-1] + (1,)}")
    _broadcast(where, input=input, target=target, var=var)
    if var.device.type == "cpu" and var.numel() and bool((var < 0).any()):
        raise ValueError(f"{where}: var has negative entry/entries (shape {vshape} on "
                         f"{var.device})")
    # var clamped at eps in value; its gradient passes unclamped (PyTorch clamps a
    # clone in place under no_grad)
    clamped = var.clamp(min=eps).detach()
    var = clamped + (var - var.detach()) if var.requires_grad else clamped
    loss = (var.log() + (input - target).square() / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduced(loss, reduction, where)


__all__ = ["gaussian_nll_loss", "poisson_nll_loss"]
