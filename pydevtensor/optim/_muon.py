"""Muon (Jordan et al., 2024), PyTorch's optim.Muon (torch 2.9+): momentum, then the
update orthogonalised by a Newton-Schulz iteration in bfloat16, as PyTorch's, on the
all-or-nothing step of Rprop and ASGD (_rprop_asgd._Staged)."""
from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

from .. import _C
from ._rprop_asgd import _Staged
from .optimizer import _check_lr, _nonnegative

# PyTorch's defaults (torch/optim/_muon.py)
EPS = 1e-07
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.775, 2.0315
DEFAULT_NS_STEPS = 5
_ADJUST_LR_FNS = ("original", "match_rms_adamw", "spectral_unclamped")


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """grad's nearest semi-orthogonal matrix, approximately: X = grad / |grad|_F in
    bfloat16 (transposed when tall), then ns_steps of X = a X + (b G + c G G) X with
    G = X X^T, as PyTorch's (in bfloat16 too)."""
    a, b, c = ns_coefficients
    ortho = grad.to(dtype=_C.bfloat16, copy=True)
    tall = grad.size(0) > grad.size(1)
    if tall:
        ortho = ortho.T
    ortho.div_(ortho.norm().clamp(min=eps))
    for _ in range(ns_steps):
        gram = ortho @ ortho.T
        gram_update = _C.addmm(gram, gram, gram, beta=b, alpha=c)
        ortho = _C.addmm(ortho, gram_update, ortho, beta=a)
    return ortho.T if tall else ortho


def _adjust_lr(lr, adjust_lr_fn, shape):
    """lr scaled for a (A, B) parameter: sqrt(max(1, A / B)) ('original', the default),
    0.2 sqrt(max(A, B)) ('match_rms_adamw') or sqrt(A / B) ('spectral_unclamped')."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = math.sqrt(rows / cols)
    return lr * ratio


class Muon(_Staged):
    """PyTorch's Muon: for the hidden layers' 2-d weights (use AdamW for biases,
    embeddings and the rest). At each step, for a gradient g of a parameter p of shape
    (A, B)::

        buf = momentum * buf + (1 - momentum) * g       (buf.lerp_(g, 1 - momentum))
        u = g.lerp(buf, momentum) if nesterov else buf
        O = NS(u)        (ns_steps Newton-Schulz steps with ns_coefficients, bfloat16)
        p = p * (1 - lr * weight_decay) - adjust(lr, A, B) * O

    Parameters
    ----------
    params : iterable of Tensor, or of dicts
        The parameters or parameter groups; each parameter 2-d.
    lr : float or Tensor, optional
        The learning rate (default 1e-3).
    weight_decay : float, optional
        Decoupled decay, ``p *= 1 - lr * weight_decay`` (default 0.1).
    momentum : float, optional
        The momentum factor, >= 0 (default 0.95).
    nesterov : bool, optional
        Nesterov momentum (default True).
    ns_coefficients : (float, float, float), optional
        (a, b, c) of the Newton-Schulz polynomial (default (3.4445, -4.775, 2.0315)).
    eps : float, optional
        The least Frobenius norm divided by (default 1e-7).
    ns_steps : int, optional
        The number of Newton-Schulz steps, 0 to 99 (default 5).
    adjust_lr_fn : str, optional
        None or 'original' (lr * sqrt(max(1, A / B))), 'match_rms_adamw'
        (lr * 0.2 * sqrt(max(A, B))) or 'spectral_unclamped' (lr * sqrt(A / B)).

    Raises
    ------
    ValueError
        For a parameter that is not 2-d, a negative lr, momentum, weight_decay or eps,
        an unknown adjust_lr_fn, ns_coefficients not of 3 values or ns_steps outside
        [0, 99] (PyTorch's messages).
    TypeError
        When a hyperparameter is not a number (nesterov: not a bool, ns_steps: not an
        int).

    Notes
    -----
    The state of each parameter is PyTorch's: 'momentum_buffer' (the parameter's shape,
    dtype and device). The update O is bfloat16 as in PyTorch, whatever the
    parameter's dtype; the parameter keeps its dtype.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> w = nn.Parameter(pydevtensor.tensor([[3., 0.], [0., -1.]]))
    >>> opt = optim.Muon([w], lr=0.1, weight_decay=0.0)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.data  # the update: diag(0.75, -1.13), each singular value pushed toward 1
    tensor([[ 2.9250,  0.0000],
            [ 0.0000, -0.8867]])
    >>> sorted(opt.state[w])
    ['momentum_buffer']
    """

    _STATE = {"momentum_buffer": "tensor"}
    _BOOLS = ("nesterov",)
    _DECOUPLED_DECAY = True

    def __init__(self, params: Iterable[_C.Tensor] | Iterable[dict[str, Any]],
                 lr: float | _C.Tensor = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B,
                                                                DEFAULT_C),
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS,
                 adjust_lr_fn: str | None = None) -> None:
        super().__init__(params, {"lr": lr, "weight_decay": weight_decay,
                                  "momentum": momentum, "nesterov": nesterov,
                                  "ns_coefficients": ns_coefficients, "eps": eps,
                                  "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn})

    def _check_group(self, group):
        super()._check_group(group)
        where = "Muon"  # PyTorch's words for the ranges
        group["lr"] = _check_lr(group["lr"], where, "Learning rate should be >= 0 but is: "
                                "{value}")
        group["momentum"] = _nonnegative(group["momentum"], "momentum", where,
                                         "momentum should be >= 0 but is: {value}")
        group["weight_decay"] = _nonnegative(group["weight_decay"], "weight_decay", where,
                                             "weight decay should be >= 0 but is: {value}")
        group["eps"] = _nonnegative(group["eps"], "eps", where)
        fn = group["adjust_lr_fn"]
        if fn is not None and fn not in _ADJUST_LR_FNS:
            raise ValueError(f"{where}: Adjust learning rate function {fn} is not supported")
        coefs = group["ns_coefficients"]
        if not isinstance(coefs, (tuple, list)) or len(coefs) != 3:
            raise ValueError(f"{where}: Coefficients must be a tuple of exactly 3 values, got "
                             f"{coefs!r:.60}")
        if any(isinstance(v, bool) or not isinstance(v, numbers.Real) for v in coefs):
            raise TypeError(f"{where}: ns_coefficients must be numbers, got {coefs!r:.60}")
        steps = group["ns_steps"]
        if isinstance(steps, bool) or not isinstance(steps, numbers.Integral):
            raise TypeError(f"{where}: ns_steps must be an int, got {type(steps).__name__}")
        if steps >= 100:
            raise ValueError(f"{where}: Number of steps must be less than 100 for "
                             f"computational efficiency (ns_steps={steps})")
        if steps < 0:
            raise ValueError(f"{where}: ns_steps should be >= 0 but is: {steps}")
        for p in group["params"]:
            if p.ndim != 2:
                raise ValueError(f"Muon only supports 2D parameters whereas we found a "
                                 f"parameter with size: {p.size()} (on {p.device})")

    def _update(self, group, data, g, state):
        momentum = group["momentum"]
        lr = group["lr"]
        lr = float(lr.item()) if isinstance(lr, _C.Tensor) else lr
        buf = state.get("momentum_buffer")
        buf = (_C.zeros_like(g) if buf is None else buf).lerp(g, 1 - momentum)
        update = g.lerp(buf, momentum) if group["nesterov"] else buf
        ortho = _zeropower_via_newtonschulz(update, group["ns_coefficients"],
                                            group["ns_steps"], group["eps"])
        adjusted = _adjust_lr(lr, group["adjust_lr_fn"], data.shape)
        value = data.mul(1 - lr * group["weight_decay"]).add_(ortho, alpha=-adjusted)
        return value, {"momentum_buffer": buf}
