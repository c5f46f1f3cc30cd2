"""Adamax, NAdam and RAdam: Adam's relatives, with PyTorch's update rules, names,
defaults and state entries (re-exported by pydevtensor.optim).  Like Adam they are
_Adaptive optimizers: every parameter's update is computed before any is committed,
so a step is all or nothing."""
from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from .. import _C
from . import Adam, _betas
from ._optimizer_state import _rounded
from .optimizer import _ema, _hints


class Adamax(Adam):
    """Adamax, PyTorch's rule (Adam with the infinity norm, Kingma and Ba section 7), at
    step t for a gradient g:

        d = g + weight_decay * p                  (-g with maximize)
        m = beta1 * m + (1 - beta1) * d
        u = max(beta2 * u, abs(d) + eps)          (u from 0)
        p -= lr / (1 - beta1 ** t) * m / u

    Parameters
    ----------
    params : iterable of Tensor, or of dicts
        The parameters or parameter groups.
    lr : float, optional
        The learning rate (default 2e-3).
    betas : (float, float), optional
        The decay rates of m and u (default (0.9, 0.999)).
    eps : float, optional
        Added to abs(d) (default 1e-8).
    weight_decay : float, optional
        Added to the gradient times the parameter (default 0).
    maximize : bool, optional
        Ascend: g is replaced by -g (default False).
    foreach, differentiable, capturable : bool, optional
        Accepted as PyTorch's and kept in param_groups; pydevtensor has one
        implementation of the step, so they are hints that change nothing.
        differentiable=True refuses a step autograd would have to record (Optimizer's notes).

    Raises
    ------
    ValueError
        For an lr, eps or weight_decay below 0, or a beta outside [0, 1).
    TypeError
        When maximize is not a bool.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> w = nn.Parameter(pydevtensor.tensor([1., 2.]))
    >>> opt = optim.Adamax([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.data
    tensor([0.9000, 1.9000])
    >>> sorted(opt.state_dict()['state'][0])
    ['exp_avg', 'exp_inf', 'step']
    """

    _STATE = {"step": "count", "exp_avg": "tensor", "exp_inf": "tensor"}
    _BOOLS = ("maximize",)

    def __init__(self, params: Iterable[_C.Tensor] | Iterable[dict[str, Any]], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        super(Adam, self).__init__(params, {"lr": lr, "betas": _betas(betas, "Adamax"),
                                            "eps": eps, "weight_decay": weight_decay,
            **_hints(foreach=foreach), "maximize": maximize,  # PyTorch's order
            **_hints(differentiable=differentiable, capturable=capturable)})

    def _update(self, group, d, state):
        lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
        t = state.get("step", 0) + 1
        m = _ema(state.get("exp_avg"), d, b1)
        u = d.abs().add_(eps)
        old = state.get("exp_inf")
        if old is not None:
            u = _C.maximum(old.mul(b2), u)
        update = (m / u).mul_(lr / (1 - b1 ** t))
        return update, {"step": t, "exp_avg": m, "exp_inf": u}


class NAdam(Adam):
    """NAdam, PyTorch's rule (Adam with Nesterov momentum, Dozat 2016), at step t for a
    gradient g, with mu_t = beta1 * (1 - 0.96 ** (t * momentum_decay) / 2)::

        d = g + weight_decay * p                  (p *= 1 - lr * weight_decay instead
                                                   with decoupled_weight_decay)
        m = beta1 * m + (1 - beta1) * d;   v = beta2 * v + (1 - beta2) * d * d
        mu_product = mu_1 * ... * mu_t            (kept: a 0-d tensor)
        denom = sqrt(v / (1 - beta2 ** t)) + eps
        p -= lr * (1 - mu_t) / (1 - mu_product) * d / denom
        p -= lr * mu_{t+1} / (1 - mu_product * mu_{t+1}) * m / denom

    Parameters
    ----------
    params : iterable of Tensor, or of dicts
        The parameters or parameter groups.
    lr : float, optional
        The learning rate (default 2e-3).
    betas : (float, float), optional
        The decay rates of the two moments (default (0.9, 0.999)).
    eps : float, optional
        Added to the denominator (default 1e-8).
    weight_decay : float, optional
        Weight decay (default 0).
    momentum_decay : float, optional
        psi in mu_t above, >= 0 (default 4e-3).
    decoupled_weight_decay : bool, optional
        AdamW's decoupled decay (NAdamW) instead of adding it to the gradient
        (default False).
    maximize : bool, optional
        Ascend: g is replaced by -g (default False).
    foreach, capturable, differentiable : bool, optional
        Accepted as PyTorch's and kept in param_groups; pydevtensor has one
        implementation of the step, so they are hints that change nothing.
        differentiable=True refuses a step autograd would have to record (Optimizer's notes).

    Raises
    ------
    ValueError
        For an lr, eps, weight_decay or momentum_decay below 0, or a beta outside
        [0, 1).
    TypeError
        When decoupled_weight_decay or maximize is not a bool.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> w = nn.Parameter(pydevtensor.tensor([1., 2.]))
    >>> opt = optim.NAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.data
    tensor([0.8944, 1.8944])
    >>> opt.state_dict()['state'][0]['mu_product']
    tensor(0.4501)
    """

    _STATE = {"step": "count", "mu_product": "number", "exp_avg": "tensor",
              "exp_avg_sq": "tensor"}
    _NONNEGATIVE = ("lr", "eps", "weight_decay", "momentum_decay")
    _BOOLS = ("decoupled_weight_decay", "maximize")

    def __init__(self, params: Iterable[_C.Tensor] | Iterable[dict[str, Any]], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        super(Adam, self).__init__(params, {
            "lr": lr, "betas": _betas(betas, type(self).__name__), "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            **_hints(foreach=foreach, capturable=capturable, differentiable=differentiable)})

    def _update(self, group, d, state):
        lr, (b1, b2), eps, psi = group["lr"], group["betas"], group["eps"], \
            group["momentum_decay"]
        t = state.get("step", 0) + 1
        mu = b1 * (1.0 - 0.5 * 0.96 ** (t * psi))
        mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * psi))
        # a 0-d tensor's product, as PyTorch's (float32 unless the default is float64)
        mu_product = _rounded(state.get("mu_product", 1.0) * _rounded(mu))
        m = _ema(state.get("exp_avg"), d, b1)
        v = _ema(state.get("exp_avg_sq"), d * d, b2)
        denom = v.div(1 - b2 ** t).sqrt_().add_(eps)
        update = (d / denom).mul_(lr * (1.0 - mu) / (1.0 - mu_product))
        update.add_((m / denom).mul_(lr * mu_next / (1.0 - mu_product * mu_next)))
        return update, {"step": t, "mu_product": mu_product, "exp_avg": m, "exp_avg_sq": v}


class RAdam(Adam):
    """RAdam, PyTorch's rule (rectified Adam, Liu et al. 2019), at step t for a gradient
    g, with rho_inf = 2 / (1 - beta2) - 1 and
    rho_t = rho_inf - 2 * t * beta2 ** t / (1 - beta2 ** t)::

        d = g + weight_decay * p                  (p *= 1 - lr * weight_decay instead
                                                   with decoupled_weight_decay)
        m = beta1 * m + (1 - beta1) * d;   v = beta2 * v + (1 - beta2) * d * d
        m_hat = m / (1 - beta1 ** t)
        p -= lr * m_hat * r_t * sqrt(1 - beta2 ** t) / (sqrt(v) + eps)   if rho_t > 5
        p -= lr * m_hat                                                  otherwise

    where r_t = sqrt((rho_t - 4) (rho_t - 2) rho_inf / ((rho_inf - 4) (rho_inf - 2) rho_t)).
    With the default betas the first five steps are of the second kind (SGD with
    momentum), as the variance of the adaptive rate is not yet tractable.

    Parameters
    ----------
    params : iterable of Tensor, or of dicts
        The parameters or parameter groups.
    lr : float, optional
        The learning rate (default 1e-3).
    betas : (float, float), optional
        The decay rates of the two moments (default (0.9, 0.999)).
    eps : float, optional
        Added to the denominator (default 1e-8).
    weight_decay : float, optional
        Weight decay (default 0).
    decoupled_weight_decay : bool, optional
        AdamW's decoupled decay instead of adding it to the gradient (default False).
    maximize : bool, optional
        Ascend: g is replaced by -g (default False).
    foreach, capturable, differentiable : bool, optional
        Accepted as PyTorch's and kept in param_groups; pydevtensor has one
        implementation of the step, so they are hints that change nothing.
        differentiable=True refuses a step autograd would have to record (Optimizer's notes).

    Raises
    ------
    ValueError
        For an lr, eps or weight_decay below 0, or a beta outside [0, 1).
    TypeError
        When decoupled_weight_decay or maximize is not a bool.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> w = nn.Parameter(pydevtensor.tensor([1., 2.]))
    >>> opt = optim.RAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.data
    tensor([0.8000, 1.6000])
    """

    _STATE = {"step": "count", "exp_avg": "tensor", "exp_avg_sq": "tensor"}
    _BOOLS = ("decoupled_weight_decay", "maximize")

    def __init__(self, params: Iterable[_C.Tensor] | Iterable[dict[str, Any]], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        super(Adam, self).__init__(params, {
            "lr": lr, "betas": _betas(betas, type(self).__name__), "eps": eps,
            "weight_decay": weight_decay, "maximize": maximize,  # PyTorch's order
            **_hints(foreach=foreach, capturable=capturable),
            "decoupled_weight_decay": decoupled_weight_decay,
            **_hints(differentiable=differentiable)})

    def _update(self, group, d, state):
        lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
        t = state.get("step", 0) + 1
        m = _ema(state.get("exp_avg"), d, b1)
        v = _ema(state.get("exp_avg_sq"), d * d, b2)
        bc1, bc2 = 1 - b1 ** t, 1 - b2 ** t
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * b2 ** t / bc2
        update = m.div(bc1).mul_(lr)
        if rho_t > 5.0:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                             ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            update.div_(v.sqrt().add_(eps)).mul_(math.sqrt(bc2) * rect)
        return update, {"step": t, "exp_avg": m, "exp_avg_sq": v}
