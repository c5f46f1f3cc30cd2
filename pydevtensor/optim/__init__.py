"""pydevtensor.optim: SGD, Adam, AdamW, Adagrad, RMSprop, Adadelta, Adamax, NAdam and
RAdam, updating each parameter in place on its own device;
``optim.lr_scheduler`` schedules their learning rates (StepLR, MultiStepLR, ExponentialLR,
CosineAnnealingLR, LambdaLR, OneCycleLR, ReduceLROnPlateau and more: see its docstring).

``optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)`` follows
PyTorch's rule, for each parameter p with a gradient g:

    d = g + weight_decay * p
    buf = d                                          on the first step (a copy)
    buf = momentum * buf + (1 - dampening) * d       afterwards (without momentum, buf is d)
    p  -= lr * (d + momentum * buf)                  with nesterov=True
    p  -= lr * buf                                   otherwise

Everything happens on the parameter's device, and the parameters are updated in place
(``p.detach().sub_``): the Parameter objects and their storage stay the same, so a model and
its optimizer can be built in either order.  ``step()`` is all or nothing: the new
buffers and updates of every parameter are computed before any is committed, so running
out of memory midway changes nothing.  Parameters whose ``.grad`` is None are
skipped, as in PyTorch.  ``step()`` runs under no_grad, so the updates are not recorded
even though the parameters require grad.

``optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0)`` follows
PyTorch's Adam (not AdamW: the decay is added to the gradient), at step t:

    d = g + weight_decay * p
    m = beta1 * m + (1 - beta1) * d;   v = beta2 * v + (1 - beta2) * d * d
    p -= (lr / (1 - beta1 ** t)) * m / (sqrt(v) / sqrt(1 - beta2 ** t) + eps)

``optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2)`` is
PyTorch's AdamW: the decay is decoupled from the gradient, ``p *= 1 - lr * weight_decay``
before Adam's update of p with d = g.

Checkpoints: ``opt.state_dict()`` (PyTorch's layout; a snapshot, not live tensors) goes
into ``pydevtensor.save({'model': net.state_dict(), 'optim': opt.state_dict(), ...})``,
and ``opt.load_state_dict(pydevtensor.load(path)['optim'])`` resumes: the steps that
follow are those of training that never stopped, bit for bit.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from .. import _C, _args
from ._optimizer_state import step_tensor
from .optimizer import (Optimizer, _Adaptive, _apart, _C_no_grad, _check_bool, _check_lr,
                        _closure_loss, _decayed_grads, _ema, _hints, _LrOn, _nonnegative,
                        _number, _out_of_range)

# Parameter dtypes that SGD updates in place without temporaries (Note [add with alpha]).
_IN_PLACE = (_C.float32, _C.float64)

__all__ = ["ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "Muon",
           "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "lr_scheduler",
           "swa_utils"]


class SGD(Optimizer):
    """Stochastic gradient descent with momentum and weight decay, PyTorch's rule (see the
    module's docstring).

    Parameters
    ----------
    params : iterable of Tensor, or of dicts
        The parameters or parameter groups.
    lr : float, optional
        The learning rate (default 1e-3, as PyTorch's).
    momentum : float, optional
        Default 0.
    dampening : float, optional
        Scales d by 1 - dampening in the momentum buffer's update, after the first
        step (default 0).
    weight_decay : float, optional
        Added to the gradient times the parameter (default 0).
    nesterov : bool, optional
        Nesterov momentum: steps along d + momentum * buf (default False); it needs a
        momentum > 0 and dampening 0 among the arguments (as PyTorch, a group's own
        momentum 0 is plain SGD).
    maximize : bool, optional
        Ascend: g is replaced by -g (default False).
    foreach, differentiable, fused : bool, optional
        Accepted as PyTorch's and kept in param_groups; pydevtensor has one
        implementation of the step, so they are hints that change nothing (fused=True
        checks that the parameters are floating point, as PyTorch does).
        differentiable=True refuses a step autograd would have to record (Optimizer's notes).

    Raises
    ------
    ValueError
        For a negative lr, momentum, dampening or weight_decay, or nesterov without
        a momentum or with a dampening.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> w = nn.Parameter(pydevtensor.tensor([1., 2.]))
    >>> opt = optim.SGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.data
    tensor([0.8000, 1.6000])
    """

    _STATE = {"momentum_buffer": "tensor"}
    _FRESH_EACH_PLACE = ("momentum_buffer",)

    def __init__(self, params: Iterable[_C.Tensor] | Iterable[dict[str, Any]],
                 lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov,
                                  "maximize": maximize,
            **_hints(foreach=foreach, differentiable=differentiable, fused=fused)})
        # PyTorch checks nesterov against the arguments only, not each group: a group
        # {'momentum': 0} under nesterov=True is plain SGD (no buffer to look ahead with)
        if nesterov and (not _number(momentum, "momentum", "SGD") > 0
                         or _number(dampening, "dampening", "SGD") != 0):
            raise ValueError(f"SGD: Nesterov momentum requires a momentum and zero dampening "
                             f"(a momentum > 0 and dampening 0), got momentum={momentum} "
                             f"and dampening={dampening}")

    def _check_group(self, group):
        group["lr"] = _check_lr(group["lr"], "SGD")
        for name in ("momentum", "dampening", "weight_decay"):
            group[name] = _nonnegative(group[name], name, "SGD")
        if not isinstance(group["nesterov"], bool):
            raise TypeError(f"SGD: nesterov must be True or False, got "
                            f"{type(group['nesterov']).__name__}")
        _check_bool(group["maximize"], "maximize", "SGD")

    @_C_no_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter, all or nothing: whatever needs memory (the
        first step's momentum buffers, the weight decay's term, updates of float16
        and bfloat16 parameters) is computed for every parameter first, then every
        parameter is committed by in-place ops that allocate nothing.  An
        OutOfMemoryError on the last parameter thus leaves every parameter and
        every buffer as it was.  For float32 and float64 parameters without weight
        decay, the buffer's ``momentum * buf + d`` and ``p -= lr * buf`` are each
        one pass over memory, in place, with PyTorch's rounding (the product
        rounded first: Note [add with alpha] in csrc/core/pdt_elementwise_alpha.c), and
        the step needs no memory at all once the buffers exist.  A Tensor lr
        multiplies the step on the parameter's device (see Optimizer's notes).

        Parameters
        ----------
        closure : callable, optional
            Re-evaluates the model and returns the loss; called once, with grad
            enabled, before the update (as PyTorch's).

        Returns
        -------
        The closure's loss, or None without a closure.

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> w = nn.Parameter(pydevtensor.tensor([1., 2.]))
        >>> opt = optim.SGD([w], lr=0.1, momentum=0.9)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w.data
        tensor([0.8000, 1.6000])
        """
        loss = _closure_loss(closure)
        pending = []  # (p, data, d, buffer updated in place or None, buffer, step, m, lr, update)
        for group in self.param_groups:
            lrs, momentum, wd = _LrOn(group["lr"]), group["momentum"], group["weight_decay"]
            dampening, nesterov = group["dampening"], group["nesterov"]
            for p, data, d in _decayed_grads(group, wd, "SGD"):
                lr = lrs.on(data.device)
                # a Tensor lr scales the step before the commit: no buffer updated in place
                in_place = (data.dtype in _IN_PLACE and d.dtype == data.dtype and
                            _apart(d, data) and not isinstance(lr, _C.Tensor))
                old = buf = None
                if momentum != 0:
                    old = self.state.get(p, {}).get("momentum_buffer")
                    if old is None:
                        buf = d.clone()
                    elif (in_place and dampening == 0 and not nesterov
                          and old.dtype == data.dtype and old.shape == data.shape
                          and old.device == data.device and _apart(old, d)
                          and _apart(old, data)):
                        buf = old  # momentum * old + d, in place below
                    else:  # nesterov reads the new buffer now: it is a new tensor
                        buf, old = old.mul(momentum).add_(d, alpha=1 - dampening), None
                step = d if buf is None else d.add(buf, alpha=momentum) if nesterov else buf
                update = None
                if not (in_place and step.dtype == data.dtype):
                    update = step.mul(lr)  # p -= lr * d, as sub_(d, alpha=lr) computes it
                    if update.dtype != data.dtype:
                        update = update.to(dtype=data.dtype)
                pending.append((p, data, d, old, buf, step, momentum, lr, update))
        for p, data, d, old, buf, step, momentum, lr, update in pending:  # nothing allocates
            if old is not None:
                _C.add(d, old, alpha=momentum, out=old)
            if buf is not None:
                self.state[p]["momentum_buffer"] = buf
            if update is None:
                data.sub_(step, alpha=lr)
            else:
                data.sub_(update)
        return loss


def _betas(betas: Any, where: str) -> tuple:
    """betas as a tuple (its values are checked with the other hyperparameters), or a
    TypeError naming the optimizer when it is not a sequence."""
    return tuple(_args.sequence(betas, where, "betas", "two numbers"))


class Adam(_Adaptive):
    """Adam, PyTorch's rule (not AdamW: the decay is added to the gradient; see the module's
    docstring).

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
        Added to the gradient times the parameter (default 0).
    amsgrad : bool, optional
        AMSGrad (Reddi et al.): the denominator uses the running maximum of v,
        kept in the state as 'max_exp_avg_sq' (default False).
    maximize : bool, optional
        Ascend: g is replaced by -g (default False).
    decoupled_weight_decay : bool, optional
        Decay the parameter by 1 - lr * weight_decay instead of adding the decay
        to the gradient: AdamW's rule (default False).
    foreach, capturable, differentiable, fused : bool, optional
        Accepted as PyTorch's and kept in param_groups; pydevtensor has one
        implementation of the step, so they are hints that change nothing (fused=True
        checks that the parameters are floating point, as PyTorch does).
        differentiable=True refuses a step autograd would have to record (Optimizer's notes).

    Raises
    ------
    ValueError
        For an lr, eps or weight_decay below 0, or a beta outside [0, 1); for a
        Tensor lr with foreach=True and capturable=False (as PyTorch).
    TypeError
        When amsgrad or maximize is not a bool.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> w = nn.Parameter(pydevtensor.tensor([1., 2.]))
    >>> opt = optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.data
    tensor([0.9000, 1.9000])
    """

    _STATE = {"step": "count", "exp_avg": "tensor", "exp_avg_sq": "tensor"}

    def __init__(self, params: Iterable[_C.Tensor] | Iterable[dict[str, Any]], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, _C.Tensor) and foreach and not capturable:  # as PyTorch
            raise ValueError(f"{type(self).__name__}: lr as a Tensor is not supported for "
                             f"capturable=False and foreach=True")
        # the defaults (so param_groups and state_dict()) in PyTorch's key order
        super().__init__(params, {"lr": lr, "betas": _betas(betas, type(self).__name__),
                                  "eps": eps,
                                  "weight_decay": weight_decay, "amsgrad": amsgrad,
                                  "maximize": maximize,
            **_hints(foreach=foreach, capturable=capturable,
                     differentiable=differentiable, fused=fused),
                                  "decoupled_weight_decay": decoupled_weight_decay})

    _NONNEGATIVE = ("lr", "eps", "weight_decay")
    _BOOLS = ("amsgrad", "maximize", "decoupled_weight_decay")

    def _state_kinds(self, group):
        if group.get("amsgrad"):
            return dict(self._STATE, max_exp_avg_sq="tensor")
        return self._STATE

    def _check_group(self, group):
        super()._check_group(group)
        betas = group["betas"]
        where = type(self).__name__
        if len({isinstance(b, _C.Tensor) for b in betas}) > 1:  # as PyTorch
            raise ValueError(f"{where}: betas must be either both floats or both Tensors, "
                             f"got {tuple(type(b).__name__ for b in betas)}")
        if len(betas) != 2:
            raise ValueError(f"{where}: invalid betas {betas}: two numbers in [0, 1)")
        betas = tuple(float(_number(b, "beta", where)) for b in betas)
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:  # PyTorch's words
                raise _out_of_range("beta", beta, where, "in [0, 1)",
                                    f"Invalid beta parameter at index {i}: {{value}} "
                                    f"(betas must be two numbers in [0, 1))")
        group["betas"] = betas

    def _update(self, group, d, state):
        lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
        t = state.get("step", 0) + 1
        # Each new tensor is made once and then updated in place (a half parameter's
        # product stays in float32).
        m = _ema(state.get("exp_avg"), d, b1)
        v = _ema(state.get("exp_avg_sq"), d * d, b2)
        new = {"step": t, "exp_avg": m, "exp_avg_sq": v}
        if group["amsgrad"]:  # the running maximum of v (from v itself on the first step)
            old = state.get("max_exp_avg_sq")
            new["max_exp_avg_sq"] = v.clone() if old is None else _C.maximum(old, v)
        denom = new.get("max_exp_avg_sq", v).sqrt().div_(math.sqrt(1 - b2 ** t)).add_(eps)
        update = (m / denom).mul_(lr / (1 - b1 ** t))
        return update, new


class AdamW(Adam):
    """AdamW, PyTorch's rule: Adam with the weight decay decoupled from the gradient
    (Loshchilov and Hutter), at step t for a gradient g:

        p *= 1 - lr * weight_decay
        m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g * g
        p -= (lr / (1 - beta1 ** t)) * m / (sqrt(v) / sqrt(1 - beta2 ** t) + eps)

    Its state (step, exp_avg, exp_avg_sq, and max_exp_avg_sq with amsgrad) and
    state_dict are Adam's.

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
        Shrinks the parameter by 1 - lr * weight_decay each step (default 1e-2, as
        PyTorch's).
    amsgrad : bool, optional
        AMSGrad, as Adam's (default False).
    maximize : bool, optional
        Ascend: g is replaced by -g (default False).
    foreach, capturable, differentiable, fused : bool, optional
        Accepted as PyTorch's and kept in param_groups; pydevtensor has one
        implementation of the step, so they are hints that change nothing (fused=True
        checks that the parameters are floating point, as PyTorch does).
        differentiable=True refuses a step autograd would have to record (Optimizer's notes).

    Raises
    ------
    ValueError
        For an lr, eps or weight_decay below 0, or a beta outside [0, 1).

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> w = nn.Parameter(pydevtensor.tensor([1., 2.]))
    >>> opt = optim.AdamW([w], lr=0.1, weight_decay=0.5)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.data
    tensor([0.8500, 1.8000])
    """

    _DECOUPLED = True

    def __init__(self, params: Iterable[_C.Tensor] | Iterable[dict[str, Any]], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize,
                         foreach=foreach, capturable=capturable, differentiable=differentiable,
                         fused=fused,
                         decoupled_weight_decay=True)


class Adagrad(_Adaptive):
    """Adagrad, PyTorch's rule (D2L's section 12.7), at step t for a gradient g:

        d = g + weight_decay * p
        sum = sum + d * d                     (sum starts at initial_accumulator_value)
        p -= lr / (1 + (t - 1) * lr_decay) * d / (sqrt(sum) + eps)

    Parameters
    ----------
    params : iterable of Tensor, or of dicts
        The parameters or parameter groups.
    lr : float, optional
        The learning rate (default 1e-2).
    lr_decay : float, optional
        Divides the learning rate by 1 + (t - 1) * lr_decay at step t (default 0).
    weight_decay : float, optional
        Added to the gradient times the parameter (default 0).
    initial_accumulator_value : float, optional
        Where the sum of squared gradients starts (default 0).
    eps : float, optional
        Added to the denominator (default 1e-10).
    maximize : bool, optional
        Ascend: g is replaced by -g (default False).
    foreach, differentiable, fused : bool, optional
        Accepted as PyTorch's and kept in param_groups; pydevtensor has one
        implementation of the step, so they are hints that change nothing (fused=True
        checks that the parameters are floating point, as PyTorch does).
        differentiable=True refuses a step autograd would have to record (Optimizer's notes).

    Raises
    ------
    ValueError
        For a negative lr, lr_decay, weight_decay, initial_accumulator_value or eps.

    Notes
    -----
    As PyTorch's, every parameter has its state from the start: 'step' 0 and 'sum'
    filled with its group's initial_accumulator_value (PyTorch's takes the argument's
    for every group), so state_dict() lists it before any step.  A parameter added
    later by add_param_group gets its state at its first step.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> w = nn.Parameter(pydevtensor.tensor([1., 2.]))
    >>> opt = optim.Adagrad([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.data
    tensor([0.9000, 1.9000])
    """

    _STATE = {"step": "count", "sum": "tensor"}

    def __init__(self, params: Iterable[_C.Tensor] | Iterable[dict[str, Any]], lr: float = 1e-2,
                 lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10,
                 foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, {"lr": lr, "lr_decay": lr_decay, "eps": eps,  # PyTorch's order
                                  "weight_decay": weight_decay,
                                  "initial_accumulator_value": initial_accumulator_value,
            **_hints(foreach=foreach), "maximize": maximize,
            **_hints(differentiable=differentiable, fused=fused)})
        for group in self.param_groups:  # the state from the start, as PyTorch's
            for p in group["params"]:
                self.state[p] = {"step": step_tensor(0), "sum": _C.full_like(
                    p, group["initial_accumulator_value"]).detach()}

    _NONNEGATIVE = ("lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps")

    def _update(self, group, d, state):
        t, old, init = state.get("step", 0) + 1, state.get("sum"), group["initial_accumulator_value"]
        dd = d * d
        acc = (dd.add_(init) if init else dd) if old is None else old.add(dd)
        clr = group["lr"] / (1 + (t - 1) * group["lr_decay"])
        return (d / acc.sqrt().add_(group["eps"])).mul_(clr), {"step": t, "sum": acc}


class RMSprop(_Adaptive):
    """RMSProp, PyTorch's rule (D2L's section 12.8), for a gradient g:

        d = g + weight_decay * p
        square_avg = alpha * square_avg + (1 - alpha) * d * d      (from 0)
        avg = sqrt(square_avg) + eps
        p -= lr * d / avg

    centered=True divides by an estimate of the variance instead:
    grad_avg = alpha * grad_avg + (1 - alpha) * d (from 0) and
    avg = sqrt(square_avg - grad_avg^2) + eps; momentum > 0 smooths the step:
    buf = momentum * buf + d / avg (from 0) and p -= lr * buf.

    Parameters
    ----------
    params : iterable of Tensor, or of dicts
        The parameters or parameter groups.
    lr : float, optional
        The learning rate (default 1e-2).
    alpha : float, optional
        The decay rate of the average of squared gradients, in [0, 1] (default 0.99).
    eps : float, optional
        Added to the denominator (default 1e-8).
    weight_decay : float, optional
        Added to the gradient times the parameter (default 0).
    momentum : float, optional
        The momentum of the step (default 0: none); state ``momentum_buffer`` when > 0.
    centered : bool, optional
        Normalise by the centered second moment (default False); state ``grad_avg``.
    maximize : bool, optional
        Ascend: g is replaced by -g (default False).
    capturable, foreach, differentiable : bool, optional
        Accepted as PyTorch's and kept in param_groups; pydevtensor has one
        implementation of the step, so they are hints that change nothing.
        differentiable=True refuses a step autograd would have to record (Optimizer's notes).

    Raises
    ------
    ValueError
        For a negative lr, eps, weight_decay or momentum, or an alpha outside [0, 1].

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> w = nn.Parameter(pydevtensor.tensor([1., 2.]))
    >>> opt = optim.RMSprop([w], lr=0.01, alpha=0.9)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.data
    tensor([0.9684, 1.9684])
    """

    _STATE = {"step": "count", "square_avg": "tensor"}

    def __init__(self, params: Iterable[_C.Tensor] | Iterable[dict[str, Any]], lr: float = 1e-2,
                 alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0,
                 momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        super().__init__(params, {"lr": lr, "momentum": momentum,  # PyTorch's order
                                  "alpha": alpha, "eps": eps, "centered": centered,
                                  "weight_decay": weight_decay,
            **_hints(capturable=capturable, foreach=foreach), "maximize": maximize,
            **_hints(differentiable=differentiable)})

    _NONNEGATIVE = ("lr", "eps", "weight_decay", "momentum")
    _IN_UNIT = ("alpha",)
    _BOOLS = ("centered", "maximize")

    def _state_kinds(self, group):
        kinds = self._STATE
        if group.get("momentum", 0.0) > 0.0:
            kinds = dict(kinds, momentum_buffer="tensor")
        if group.get("centered"):
            kinds = dict(kinds, grad_avg="tensor")
        return kinds

    def _update(self, group, d, state):
        alpha = group["alpha"]
        sq = _ema(state.get("square_avg"), d * d, alpha)
        new = {"step": state.get("step", 0) + 1, "square_avg": sq}
        if group["centered"]:
            new["grad_avg"] = g_avg = _ema(state.get("grad_avg"), d, alpha)
            avg = (sq - g_avg * g_avg).sqrt_().add_(group["eps"])
        else:
            avg = sq.sqrt().add_(group["eps"])
        step = d / avg
        if group["momentum"] > 0.0:
            old = state.get("momentum_buffer")
            new["momentum_buffer"] = step = step if old is None else \
                old.mul(group["momentum"]).add_(step)
        return step.mul(group["lr"]), new


class Adadelta(_Adaptive):
    """Adadelta, PyTorch's rule (D2L's section 12.9), for a gradient g:

        d = g + weight_decay * p
        square_avg = rho * square_avg + (1 - rho) * d * d           (from 0)
        delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * d
        acc_delta = rho * acc_delta + (1 - rho) * delta * delta      (from 0)
        p -= lr * delta

    Parameters
    ----------
    params : iterable of Tensor, or of dicts
        The parameters or parameter groups.
    lr : float, optional
        Scales the update (default 1.0).
    rho : float, optional
        The decay rate of both averages, in [0, 1] (default 0.9).
    eps : float, optional
        Added inside both square roots (default 1e-6).
    weight_decay : float, optional
        Added to the gradient times the parameter (default 0).
    maximize : bool, optional
        Ascend: g is replaced by -g (default False).
    capturable, foreach, differentiable : bool, optional
        Accepted as PyTorch's and kept in param_groups; pydevtensor has one
        implementation of the step, so they are hints that change nothing.
        differentiable=True refuses a step autograd would have to record (Optimizer's notes).

    Raises
    ------
    ValueError
        For a negative lr, eps or weight_decay, or a rho outside [0, 1].

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> w = nn.Parameter(pydevtensor.tensor([1., 2.]))
    >>> opt = optim.Adadelta([w], rho=0.9)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.data
    tensor([0.9968, 1.9968])
    """

    _STATE = {"step": "count", "square_avg": "tensor", "acc_delta": "tensor"}

    def __init__(self, params: Iterable[_C.Tensor] | Iterable[dict[str, Any]], lr: float = 1.0,
                 rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize,
            **_hints(capturable=capturable, foreach=foreach, differentiable=differentiable)})

    _NONNEGATIVE = ("lr", "eps", "weight_decay")
    _IN_UNIT = ("rho",)

    def _update(self, group, d, state):
        rho, eps, acc_old = group["rho"], group["eps"], state.get("acc_delta")
        sq = _ema(state.get("square_avg"), d * d, rho)
        delta = (_C.full_like(d, eps).sqrt_() if acc_old is None
                 else acc_old.add(eps).sqrt_()).div_(sq.add(eps).sqrt_()).mul_(d)
        acc = _ema(acc_old, delta * delta, rho)
        lr = group["lr"]
        update = delta if isinstance(lr, (int, float)) and lr == 1 else delta.mul_(lr)
        return update, {"step": state.get("step", 0) + 1, "square_avg": sq, "acc_delta": acc}


from ._adam_family import Adamax, NAdam, RAdam  # noqa: E402  (they extend Adam)
from ._lbfgs import LBFGS  # noqa: E402
from ._rprop_asgd import ASGD, Rprop  # noqa: E402
from ._adafactor import Adafactor  # noqa: E402
from ._muon import Muon  # noqa: E402

# pydevtensor.optim's, as the others are
for _cls in (ASGD, Adafactor, Adamax, LBFGS, Muon, NAdam, RAdam, Rprop):
    _cls.__module__ = __name__
del _cls
from . import lr_scheduler  # noqa: E402  (last: it needs Optimizer)
from . import swa_utils  # noqa: E402  (weight averaging: AveragedModel, SWALR, update_bn)
