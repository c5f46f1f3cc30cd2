"""Rprop and ASGD, PyTorch's algorithms (re-exported by pydevtensor.optim), and the
step they share (Adafactor's too: optim/_adafactor.py): every parameter's new value
and state are computed, as new tensors on its device, before any is committed, so a
step is all or nothing; nothing is read back from a device (the step count, and what
ASGD derives from it, live on the host; Adafactor reads two norms, as PyTorch's).
``step(closure)`` calls the closure with grad enabled and returns its loss, as
PyTorch's."""
from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from typing import Any

from .. import _C
from .._ops_index import where as _where
from ..autograd.grad_mode import no_grad as _no_grad
from ._optimizer_state import _host_state, _rounded, _stored_state
from .optimizer import (Optimizer, _check_bool, _check_lr, _closure_loss, _decayed_grads, _hints,
                        _nonnegative, _number)


def _pair(value, name, where):
    """A pair of numbers (PyTorch's etas and step_sizes) as a tuple of floats."""
    if not isinstance(value, (tuple, list)) or len(value) != 2 or any(
            isinstance(v, bool) or not isinstance(v, numbers.Real) for v in value):
        raise TypeError(f"{where}: {name} must be a pair of numbers, got {value!r:.60}")
    return tuple(float(v) for v in value)


class _Staged(Optimizer):
    """The all-or-nothing step of Rprop and ASGD: _update(group, data, d, state) gives a
    parameter's new value and new state from its (decayed) gradient d and its state
    (empty before the first step; 'step' an int there), as new tensors."""

    _BOOLS = ("maximize", "differentiable", "capturable")
    _DECOUPLED_DECAY = False  # weight_decay is the _update's own (Adafactor's), not added to d

    def _check_group(self, group):
        where = type(self).__name__
        for name in self._BOOLS:
            _check_bool(group[name], name, where)

    def _update(self, group, data, d, state):
        raise NotImplementedError

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Updates every parameter that has a gradient, in place on its device; all or
        nothing (nothing changes when it fails midway).

        Parameters
        ----------
        closure : callable, optional
            Re-evaluates the model and returns the loss; called first, with grad
            enabled.

        Returns
        -------
        The closure's loss, or None without a closure.

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> w = nn.Parameter(pydevtensor.tensor([1., -2.]))
        >>> opt = optim.Rprop([w], lr=0.1)
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = (w * w).sum()
        ...     loss.backward()
        ...     return loss
        >>> opt.step(closure)
        tensor(5., grad_fn=<SumBackward0>)
        >>> w.data
        tensor([ 0.9000, -1.9000])
        """
        if closure is not None and not callable(closure):
            raise TypeError(f"step(): closure must be callable (it re-evaluates the model and "
                            f"returns the loss), got {type(closure).__name__}")
        loss = _closure_loss(closure)
        where = type(self).__name__
        with _no_grad():
            pending = []
            for group in self.param_groups:
                decay = 0 if self._DECOUPLED_DECAY else group.get("weight_decay", 0.0)
                for p, data, d in _decayed_grads(group, decay, where):
                    state = _host_state(self.state.get(p, {}), self._STATE)
                    value, new_state = self._update(group, data, d, state)
                    new_state = _stored_state(new_state, self._STATE)
                    pending.append((p, data, value, new_state))
            for p, data, value, new_state in pending:  # nothing fails from here
                self.state[p] = new_state
                data.copy_(value)
        return loss


class Rprop(_Staged):
    """The resilient backpropagation algorithm (Riedmiller and Braun), PyTorch's Rprop:
    each element has its own step size, grown by etaplus while its gradient keeps its
    sign and shrunk by etaminus when the sign flips (that element then skips its
    update, and its gradient counts as 0 next time).  For a gradient g (-g with
    maximize) and the previous one prev::

        f = etaplus where g * prev > 0, etaminus where < 0, 1 where = 0
        step_size = clamp(step_size * f, step_size_min, step_size_max)   (from lr)
        g = 0 where g * prev < 0
        p -= sign(g) * step_size
        prev = g

    Parameters
    ----------
    params : iterable of Tensor, or of dicts
        The parameters or parameter groups.
    lr : float, optional
        The initial step size of every element (default 1e-2).
    etas : (float, float), optional
        (etaminus, etaplus), with 0 < etaminus < 1 < etaplus (default (0.5, 1.2)).
    step_sizes : (float, float), optional
        The least and the largest step size (default (1e-6, 50)).
    capturable, foreach, differentiable : bool, optional
        Accepted as PyTorch's and kept in param_groups (hints: one implementation).
        differentiable=True refuses a step autograd would have to record (Optimizer's notes).
    maximize : bool, optional
        Ascend: g is replaced by -g (default False).

    Raises
    ------
    TypeError
        When etas or step_sizes is not a pair of numbers.
    ValueError
        For a negative lr, or etas outside 0 < etaminus < 1 < etaplus.

    Notes
    -----
    The state of each parameter is PyTorch's: 'step' (a 0-d tensor on the CPU, float64
    while the default dtype is float64, float32 otherwise), 'prev' and 'step_size' (of
    the parameter's shape, on its device).

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> w = nn.Parameter(pydevtensor.tensor([1., -2.]))
    >>> opt = optim.Rprop([w], lr=0.1)
    >>> for _ in range(2):
    ...     opt.zero_grad()
    ...     (w * w).sum().backward()
    ...     opt.step()
    >>> w.data
    tensor([ 0.7800, -1.7800])
    """

    _STATE = {"step": "count", "prev": "tensor", "step_size": "tensor"}

    def __init__(self, params: Iterable[_C.Tensor] | Iterable[dict[str, Any]], lr: float = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        super().__init__(params, {"lr": lr, "etas": etas, "step_sizes": step_sizes,
                                  "foreach": foreach, "maximize": maximize,
                                  **_hints(differentiable=differentiable,
                                           capturable=capturable)})

    def _check_group(self, group):
        super()._check_group(group)
        where = "Rprop"
        group["lr"] = _check_lr(group["lr"], where)
        minus, plus = _pair(group["etas"], "etas", where)
        if not 0.0 < minus < 1.0 < plus:
            raise ValueError(f"{where}: Invalid eta values: {minus}, {plus} (they must "
                             f"satisfy 0 < etaminus < 1 < etaplus)")
        _pair(group["step_sizes"], "step_sizes", where)

    def _update(self, group, data, d, state):
        minus, plus = group["etas"]
        low, high = group["step_sizes"]
        if state:
            prev, size = state["prev"], state["step_size"]
        else:
            # a Tensor lr is read once, here, as PyTorch's full_like does
            prev, size = _C.zeros_like(data), _C.full_like(d, float(group["lr"]))
        product = d * prev
        flipped = product < 0
        # in the gradient's dtype, as PyTorch's (etaplus in float64 for float64)
        factor = _where(product > 0, plus, _where(flipped, minus, _C.ones_like(product)))
        size = size.mul(factor).clamp_(low, high)
        g = _where(flipped, 0.0, d)
        return data.sub(g.sign().mul_(size)), {"step": state.get("step", 0) + 1, "prev": g,
                                                "step_size": size}


class ASGD(_Staged):
    """Averaged stochastic gradient descent (Polyak and Juditsky; the learning-rate
    schedule of Bottou's), PyTorch's ASGD.  At step t, for a gradient g (-g with
    maximize)::

        d = g + weight_decay * p
        p = p * (1 - lambd * eta) - eta * d
        ax = p                               while mu == 1
        ax = ax + mu * (p - ax)              afterwards (the running average of p)
        eta = lr / (1 + lambd * lr * t) ** alpha
        mu = 1 / max(1, t - t0)

    eta (from lr) and mu (from 1) are kept as PyTorch keeps them (0-d tensors, rounded
    to float32 unless the default dtype is float64); they depend only on the step count,
    so they are computed on the host and nothing is read back from a device.

    Parameters
    ----------
    params : iterable of Tensor, or of dicts
        The parameters or parameter groups.
    lr : float, optional
        The learning rate (default 1e-2).
    lambd : float, optional
        The decay term (default 1e-4).
    alpha : float, optional
        The power of eta's update (default 0.75).
    t0 : float, optional
        The step where averaging starts (default 1e6).
    weight_decay : float, optional
        Added to the gradient times the parameter (default 0).
    foreach, differentiable, capturable : bool, optional
        Accepted as PyTorch's and kept in param_groups (hints: one implementation).
        differentiable=True refuses a step autograd would have to record (Optimizer's notes).
    maximize : bool, optional
        Ascend: g is replaced by -g (default False).

    Raises
    ------
    TypeError
        When a hyperparameter is not a number.
    ValueError
        For a negative lr, lambd, alpha or weight_decay.

    Notes
    -----
    The state of each parameter has PyTorch's entries: 'step', 'eta' and 'mu' (0-d
    tensors, float64 while the default dtype is float64, float32 otherwise, on the CPU:
    PyTorch's are on the parameter's device) and 'ax', the average (of the parameter's
    shape, on its device).

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> w = nn.Parameter(pydevtensor.tensor([1., -2.]))
    >>> opt = optim.ASGD([w], lr=0.1, t0=0)
    >>> for _ in range(3):
    ...     opt.zero_grad()
    ...     (w * w).sum().backward()
    ...     opt.step()
    >>> w.data
    tensor([ 0.5120, -1.0240])
    >>> opt.state[w]['ax']
    tensor([ 0.5760, -1.1520])
    """

    _STATE = {"step": "count", "eta": "number", "mu": "number", "ax": "tensor"}

    def __init__(self, params: Iterable[_C.Tensor] | Iterable[dict[str, Any]], lr: float = 1e-2,
                 lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                                  "weight_decay": weight_decay, "foreach": foreach,
                                  "maximize": maximize,
                                  **_hints(differentiable=differentiable,
                                           capturable=capturable)})

    def _check_group(self, group):
        super()._check_group(group)
        group["lr"] = _check_lr(group["lr"], "ASGD")
        for name in ("lambd", "alpha", "weight_decay"):
            group[name] = _nonnegative(group[name], name, "ASGD")
        group["t0"] = _number(group["t0"], "t0", "ASGD")  # a 0-d tensor read, as PyTorch's

    def _update(self, group, data, d, state):
        lr, lambd = float(group["lr"]), group["lambd"]  # a Tensor lr read, as PyTorch's
        t = state.get("step", 0) + 1
        eta = state.get("eta", _rounded(lr))
        mu = state.get("mu", 1.0)
        new = data.mul(1 - lambd * eta).add_(d, alpha=-eta)
        if mu != 1:
            ax = state["ax"].add(new.sub(state["ax"]).mul_(mu))
        else:  # the average of one step (mu is 1 until step t0 + 1)
            ax = new.clone()
        return new, {"step": t, "eta": _rounded(lr / (1 + lambd * lr * t) ** group["alpha"]),
                     "mu": _rounded(1 / max(1, t - group["t0"])), "ax": ax}
