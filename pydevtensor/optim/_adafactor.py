"""Adafactor (Shazeer and Stern, 2018), PyTorch's optim.Adafactor (torch 2.5+), on the
all-or-nothing step of Rprop and ASGD (_rprop_asgd._Staged).

Like PyTorch's, each step reads two numbers back from the parameter's device: the
norms of the parameter and of its update (its relative step size and its clipping).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import _C
from .. import linalg as _linalg
from .._dtype_info import finfo as _finfo
from ._rprop_asgd import _Staged
from .optimizer import _check_lr, _hints, _nonnegative, _number

_SHOULD = "{name} should be >= 0 but is: {value}"  # PyTorch's words in Adafactor


class Adafactor(_Staged):
    """PyTorch's Adafactor: Adam's second moment kept factored (for a matrix, its row
    and column means), no first moment, and a step relative to the parameter's scale.
    At step t, for a gradient g (-g with maximize) of a parameter p::

        beta = t ** beta2_decay                        (1 - beta2_t)
        rho = min(lr, 1 / sqrt(t))
        alpha = max(eps2, rms(p)) * rho                (rms(p) = |p| / sqrt(numel))
        p = p * (1 - lr * weight_decay)
        row_var += beta * (mean(g^2, dim=-1) - row_var)     (g of 2 dims or more)
        col_var += beta * (mean(g^2, dim=-2) - col_var)
        var = row_var @ col_var / max(eps1, mean(row_var, dim=-2))
        variance += beta * (g^2 - variance)                  (g of 0 or 1 dim; var = it)
        u = g / sqrt(max(var, eps1^2))
        p -= alpha / max(1, rms(u) / d) * u

    Parameters
    ----------
    params : iterable of Tensor, or of dicts
        The parameters or parameter groups.
    lr : float or Tensor, optional
        The learning rate (default 1e-2).
    beta2_decay : float, optional
        The decay rate of the second moment's weight, <= 0 (default -0.8).
    eps : (float or None, float), optional
        (eps1, eps2): the least second moment's square root (None: the machine epsilon
        of the group's first parameter with a gradient, as PyTorch's) and the least
        parameter scale (default (None, 1e-3)).
    d : float, optional
        The clipping threshold of the update's rms, >= 1 (default 1).
    weight_decay : float, optional
        Decoupled decay, ``p *= 1 - lr * weight_decay`` (default 0).
    foreach : bool, optional
        Accepted as PyTorch's and kept in param_groups (a hint: one implementation).
    maximize : bool, optional
        Ascend: g is replaced by -g (default False).

    Raises
    ------
    TypeError
        When a hyperparameter is not a number (eps: not a pair).
    ValueError
        For a negative lr, eps or weight_decay, a positive beta2_decay or d < 1.
    RuntimeError
        On a step with a complex parameter.

    Notes
    -----
    The state of each parameter has PyTorch's entries: 'step' (a 0-d tensor on the
    CPU, float64 while the default dtype is float64, float32 otherwise) and 'row_var'
    and 'col_var' (the gradient's shape with its last, respectively second-to-last,
    dim 1) for a parameter of 2 dims or more, else 'variance' (its shape).

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> w = nn.Parameter(pydevtensor.tensor([[1., -2.], [3., 4.]]))
    >>> opt = optim.Adafactor([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.data
    tensor([[ 0.7879, -1.7000],
            [ 2.7154,  3.7317]])
    >>> sorted(opt.state[w])
    ['col_var', 'row_var', 'step']
    """

    _STATE = {"step": "count", "row_var": "row", "col_var": "col", "variance": "tensor"}
    _BOOLS = ("maximize",)
    _DECOUPLED_DECAY = True

    def __init__(self, params: Iterable[_C.Tensor] | Iterable[dict[str, Any]],
                 lr: float | _C.Tensor = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, foreach: bool | None = None,
                 maximize: bool = False) -> None:
        super().__init__(params, {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                                  "weight_decay": weight_decay, **_hints(foreach=foreach),
                                  "maximize": maximize})

    def _check_group(self, group):
        super()._check_group(group)
        where = "Adafactor"
        # PyTorch's words for Adafactor's ranges
        group["lr"] = _check_lr(group["lr"], where, "Learning rate should be >= 0 but is: {value}")
        # a 0-d tensor read as its number, as PyTorch's comparisons and arithmetic read it
        decay = group["beta2_decay"] = _number(group["beta2_decay"], "beta2_decay", where)
        if not decay <= 0:
            raise ValueError(f"{where}: beta2_decay should be <= 0 but is: {decay}")
        eps = group["eps"]
        if not isinstance(eps, (tuple, list)) or len(eps) != 2:
            raise TypeError(f"{where}: eps must be a pair (eps1 or None, eps2), got "
                            f"{eps!r:.60}")
        if eps[0] is not None:
            _nonnegative(eps[0], "epsilon1", where, _SHOULD)
        _nonnegative(eps[1], "epsilon2", where, _SHOULD)
        group["d"] = _number(group["d"], "d", where)
        if not group["d"] >= 1:
            raise ValueError(f"{where}: Clipping threshold d should be >= 1 but is: "
                             f"{group['d']}")
        group["weight_decay"] = _nonnegative(group["weight_decay"], "weight_decay", where,
                                             _SHOULD)

    def _update(self, group, data, g, state):
        if data.is_complex():
            raise RuntimeError("Adafactor does not support complex parameters")
        eps1, eps2 = group["eps"]
        if eps1 is None:  # PyTorch's: the first parameter with a gradient sets it
            first = next(p for p in group["params"] if getattr(p, "grad", None) is not None)
            eps1 = _finfo(first.dtype).eps
        lr, t = group["lr"], state.get("step", 0) + 1
        if isinstance(lr, _C.Tensor):  # kept a tensor, as PyTorch's: so are alpha, the
            lr = lr.detach().to("cpu")  # step size and the decay factor, in lr's dtype
        beta = t ** group["beta2_decay"]
        rho = min(lr, 1 / t ** 0.5)
        alpha = _times(rho, max(eps2, _linalg.vector_norm(data).item() / data.numel() ** 0.5))
        if group["weight_decay"] != 0:
            data = data.mul(float(1 - _times(lr, group["weight_decay"])))
        if g.ndim > 1:
            new = {"row_var": self._moment(state, "row_var", g, -1, beta),
                   "col_var": self._moment(state, "col_var", g, -2, beta)}
            row_var, col_var = new["row_var"], new["col_var"]
            var = (row_var @ col_var).div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            old = state.get("variance", _C.zeros_like(g))
            new = {"variance": old.lerp(g * g, beta)}
            var = new["variance"].clone()
        update = var.clamp_(min=eps1 * eps1).rsqrt_().mul_(g)
        denom = max(1.0, _linalg.vector_norm(update).item() /
                    (update.numel() ** 0.5 * group["d"]))
        step = -alpha / _as(alpha, denom)
        return data.add(update, alpha=float(step)), {"step": t, **new}

    def _param_state_kinds(self, group, p):
        """A parameter of 2 dims or more keeps row_var and col_var, another variance."""
        drop = ("variance",) if p.ndim > 1 else ("row_var", "col_var")
        return {k: v for k, v in self._STATE.items() if k not in drop}

    @staticmethod
    def _moment(state, key, g, dim, beta):
        """The new row (dim -1) or column (dim -2) second moment: the old one moved
        toward the mean of g^2 along dim by beta (lerp, as PyTorch's)."""
        mean = _linalg.vector_norm(g, dim=dim, keepdim=True).square_().div_(g.shape[dim])
        old = state.get(key)
        if old is None:
            old = _C.zeros(tuple(mean.shape), dtype=g.dtype, device=g.device)
        return old.lerp(mean, beta)


def _as(x, number):
    """number in x's dtype when x is a Tensor (PyTorch's arithmetic of a tensor and a
    number: the number cast to the tensor's dtype first), else number."""
    return _C.tensor(number, dtype=x.dtype) if isinstance(x, _C.Tensor) else number


def _times(x, number):
    """x * number, in x's dtype when x is a Tensor (a float32 lr's, as PyTorch's)."""
    return x * _as(x, number)
