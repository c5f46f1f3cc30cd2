"""Still more learning-rate schedules, as ``torch.optim.lr_scheduler``'s (re-exported by
optim.lr_scheduler): MultiplicativeLR, ConstantLR, PolynomialLR, CyclicLR and
ChainedScheduler."""
from __future__ import annotations

import math
import types
from collections.abc import Callable, Sequence
from typing import Any

from . import Optimizer
from ._lr_schedulers_more import _load_children, _per_group, _state_with_children
from .lr_scheduler import LRScheduler, _int, _not_plateau, _real, _set_lr


def _lambdas(lr_lambda, optimizer, where):
    """One callable per parameter group: lr_lambda for each, or lr_lambda's own."""
    n = len(optimizer.param_groups) if isinstance(optimizer, Optimizer) else 0
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != n:
            raise ValueError(f"{where}: Expected {n} lr_lambdas, but got {len(lr_lambda)} "
                             f"(one per parameter group, or a single function)")
        found = list(lr_lambda)
    else:
        found = [lr_lambda] * n
    bad = [f for f in found if not callable(f)]
    if bad:
        raise TypeError(f"{where}: lr_lambda should be a function, but got "
                        f"{type(bad[0]).__name__}")
    return found


def _saved_attributes(fn):
    """What state_dict() keeps of a function: the attributes of a callable object, None
    for a function or lambda (as PyTorch)."""
    return None if fn is None or isinstance(fn, types.FunctionType) else dict(vars(fn))


class MultiplicativeLR(LRScheduler):
    """Multiplies each rate by a factor of the epoch every epoch:
    ``lr(e) = lr(e - 1) * lr_lambda(e)`` for e >= 1 (the rate at epoch 0 is the
    optimizer's), so the rate is the base rate times lr_lambda(1) through lr_lambda(e).

    Parameters
    ----------
    optimizer : Optimizer
        Its param_groups' rates are the ones multiplied.
    lr_lambda : callable or list of callables
        The factor of an epoch (an int -> a number): a single function for all the
        groups, or a list with a function for each group.
    last_epoch : int, optional
        -1 (the default) starts a schedule; otherwise, the epoch it resumes after.

    Raises
    ------
    TypeError
        When a lr_lambda cannot be called.
    ValueError
        When the list's length is not the number of groups.

    Notes
    -----
    ``state_dict()`` holds, for each lr_lambda that is a callable object, a copy of its
    attributes (None for a plain function or a lambda), as PyTorch's; loading it
    updates those attributes and keeps the functions of this scheduler.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> sched = optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.5)
    >>> rates = [sched.get_last_lr()[0]]
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     rates.append(sched.get_last_lr()[0])
    >>> rates
    [1.0, 0.5, 0.25, 0.125]
    """

    def __init__(self, optimizer: Optimizer,
                 lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        self.lr_lambdas = _lambdas(lr_lambda, optimizer, "MultiplicativeLR")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self._is_initial:  # PyTorch's: a step(0) after __init__ multiplies by f(0)
            return self._current()
        return [lr * f(self.last_epoch) for f, lr in zip(self.lr_lambdas, self._current())]

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        state["lr_lambdas"] = [_saved_attributes(f) for f in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        own = self.lr_lambdas
        super().load_state_dict(state_dict)
        self.lr_lambdas = own  # the functions stay this scheduler's
        for f, attributes in zip(own, state_dict.get("lr_lambdas", ())):
            if attributes is not None:
                vars(f).update(attributes)


class ConstantLR(LRScheduler):
    """Scales the rates by factor until epoch total_iters, then restores them:
    ``base * factor`` for ``last_epoch < total_iters``, ``base`` afterwards (a constant
    warm-up).  As PyTorch's, it computes each rate from the current one.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose rates are scheduled.
    factor : float, optional
        The factor, in [0, 1] (default 1/3).
    total_iters : int, optional
        The epochs scaled, >= 0 (default 5).
    last_epoch : int, optional
        The epoch to resume after (default -1: a new schedule).

    Raises
    ------
    TypeError
        When factor is not a number or total_iters not an int.
    ValueError
        When factor is out of [0, 1] or total_iters < 0.

    Notes
    -----
    With factor 0, where PyTorch divides by 0 at epoch total_iters, the rates are set
    back to the base rates.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> sched = optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
    >>> rates = [sched.get_last_lr()[0]]
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     rates.append(sched.get_last_lr()[0])
    >>> rates
    [0.5, 0.5, 1.0, 1.0]
    """

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        factor = _real(factor, "factor", "ConstantLR")
        if not 0.0 <= factor <= 1.0:
            raise ValueError(f"ConstantLR: Constant multiplicative factor expected to be "
                             f"between 0 and 1, got factor={factor}")
        self.factor = factor
        self.total_iters = _int(total_iters, "total_iters", "ConstantLR", 0)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        e = self.last_epoch
        if e == 0:
            return [lr * self.factor for lr in self._current()]
        if e != self.total_iters:
            return self._current()
        if self.factor == 0.0:
            return list(self.base_lrs)
        return [lr * (1.0 / self.factor) for lr in self._current()]

    def _closed_form(self) -> list[float]:
        f = self.factor if self.last_epoch < self.total_iters else 1.0
        return [base * f for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decays the rates polynomially to 0 over total_iters epochs:
    ``base * (1 - min(last_epoch, total_iters) / total_iters) ** power``.  As
    PyTorch's, it computes each rate from the current one.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose rates are scheduled.
    total_iters : int, optional
        The epochs of the decay, >= 0 (default 5; 0 leaves the rates as they are).
    power : float, optional
        The power of the polynomial (default 1.0: linear).
    last_epoch : int, optional
        The epoch to resume after (default -1: a new schedule).

    Raises
    ------
    TypeError
        When total_iters is not an int or power not a number.
    ValueError
        When total_iters < 0.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> sched = optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=2.0)
    >>> rates = [sched.get_last_lr()[0]]
    >>> for _ in range(5):
    ...     opt.step()
    ...     sched.step()
    ...     rates.append(sched.get_last_lr()[0])
    >>> rates
    [1.0, 0.5625, 0.25, 0.0625, 0.0, 0.0]
    """

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1) -> None:
        self.total_iters = _int(total_iters, "total_iters", "PolynomialLR", 0)
        self.power = _real(power, "power", "PolynomialLR")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        e, n = self.last_epoch, self.total_iters
        if n == 0 or e > n or self._is_initial:  # PyTorch's (a later epoch 0 steps on)
            return self._current()
        factor = ((1.0 - e / n) / (1.0 - (e - 1) / n)) ** self.power
        return [lr * factor for lr in self._current()]

    def _closed_form(self) -> list[float]:
        n = self.total_iters
        if n == 0:
            return list(self.base_lrs)
        return [base * (1.0 - min(n, self.last_epoch) / n) ** self.power
                for base in self.base_lrs]


_CYCLIC_MODES = {"triangular": "cycle", "triangular2": "cycle", "exp_range": "iterations"}


class CyclicLR(LRScheduler):
    """The cyclical learning rate policy (Smith, 2017), PyTorch's CyclicLR, stepped once
    per batch: each rate goes from base_lr up to max_lr over step_size_up steps and back
    over step_size_down, the amplitude scaled by ``scale_fn``.  With
    ``cycle = floor(1 + t / (up + down))``, ``x = 1 + t / (up + down) - cycle`` and
    ``r = up / (up + down)``, at step t::

        height = x / r                       when x <= r
                 (x - 1) / (r - 1)           otherwise
        lr = base_lr + (max_lr - base_lr) * height * scale

    where scale is 1 ('triangular'), ``1 / 2 ** (cycle - 1)`` ('triangular2'),
    ``gamma ** t`` ('exp_range'), or ``scale_fn(cycle)`` / ``scale_fn(t)`` (scale_mode
    'cycle' / 'iterations').  With cycle_momentum, the momentum (SGD's momentum, or the
    first beta of the Adam family) goes the other way:
    ``max_momentum - (max_momentum - base_momentum) * height * scale``.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose rates are scheduled; its rates are set to base_lr.
    base_lr, max_lr : float or list of float
        The cycle's bounds, or one per parameter group.
    step_size_up : int, optional
        Steps from base_lr up to max_lr, > 0 (default 2000).
    step_size_down : int, optional
        Steps back down, >= 0 (default: step_size_up).
    mode : {'triangular', 'triangular2', 'exp_range'}, optional
        Default 'triangular'; ignored when scale_fn is given.
    gamma : float, optional
        The factor of 'exp_range' (default 1.0).
    scale_fn : callable, optional
        A custom scale (a number -> a factor), replacing mode's.
    scale_mode : {'cycle', 'iterations'}, optional
        What scale_fn takes: the cycle number or the step (default 'cycle').
    cycle_momentum : bool, optional
        Cycle the momentum too (default True); the optimizer needs a momentum or betas.
    base_momentum, max_momentum : float or list of float, optional
        The momentum's range (default 0.8 and 0.9).
    last_epoch : int, optional
        The step to resume after (default -1: a new schedule).

    Raises
    ------
    TypeError
        When a number has the wrong type or scale_fn is not callable.
    ValueError
        For an unknown mode without scale_fn, an unknown scale_mode, step_size_up
        <= 0 or step_size_down < 0, a list without one value per group, or
        cycle_momentum with an optimizer that has neither momentum nor betas.

    Notes
    -----
    As in PyTorch, ``state_dict()`` holds the attributes of a scale_fn that is a
    callable object, and None for a function or lambda.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1, momentum=0.9)
    >>> sched = optim.lr_scheduler.CyclicLR(opt, base_lr=0.1, max_lr=0.5, step_size_up=2)
    >>> rates = [sched.get_last_lr()[0]]
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     rates.append(round(sched.get_last_lr()[0], 6))
    >>> rates
    [0.1, 0.3, 0.5, 0.3, 0.1]
    >>> round(opt.param_groups[0]['momentum'], 6)
    0.9
    """

    def __init__(self, optimizer: Optimizer, base_lr: float | list[float],
                 max_lr: float | list[float], step_size_up: int = 2000,
                 step_size_down: int | None = None, mode: str = "triangular",
                 gamma: float = 1.0, scale_fn: Callable[[float], float] | None = None,
                 scale_mode: str = "cycle", cycle_momentum: bool = True,
                 base_momentum: float | list[float] = 0.8,
                 max_momentum: float | list[float] = 0.9, last_epoch: int = -1) -> None:
        where = "CyclicLR"
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{where}: {type(optimizer).__name__} is not an Optimizer")
        base_lrs = _per_group(base_lr, "base_lr", optimizer, where)
        max_lrs = _per_group(max_lr, "max_lr", optimizer, where)
        up = _real(step_size_up, "step_size_up", where)
        down = up if step_size_down is None else _real(step_size_down, "step_size_down", where)
        if not up > 0 or not down >= 0:
            raise ValueError(f"{where}: step_size_up must be > 0 and step_size_down >= 0, got "
                             f"step_size_up={step_size_up}, step_size_down={step_size_down}")
        if scale_fn is None and mode not in _CYCLIC_MODES:
            raise ValueError(f"{where}: mode is invalid and scale_fn is None: mode must be "
                             f"'triangular', 'triangular2' or 'exp_range', got {mode!r:.40}")
        if scale_fn is not None and not callable(scale_fn):
            raise TypeError(f"{where}: scale_fn must be callable, got {type(scale_fn).__name__}")
        if scale_mode not in ("cycle", "iterations"):
            raise ValueError(f"{where}: scale_mode must be 'cycle' or 'iterations', got "
                             f"{scale_mode!r:.40}")
        if not isinstance(cycle_momentum, bool):
            raise TypeError(f"{where}: cycle_momentum must be True or False, got "
                            f"{cycle_momentum!r:.40}")
        self.gamma = _real(gamma, "gamma", where)
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(f"{where}: optimizer must support momentum or beta1 with "
                                 f"`cycle_momentum` option enabled ({type(optimizer).__name__} "
                                 f"has neither); pass cycle_momentum=False")
            bases = _per_group(base_momentum, "base_momentum", optimizer, where)
            tops = _per_group(max_momentum, "max_momentum", optimizer, where)
        # checked: from here nothing fails before the first step
        self.optimizer = optimizer
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                _set_lr(group, lr)
        self.max_lrs = max_lrs
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        self.mode = mode
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode if scale_fn is not None else _CYCLIC_MODES[mode]
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums, self.max_momentums = bases, tops
            if last_epoch == -1:
                for top, base, group in zip(tops, bases, optimizer.param_groups):
                    self._set_momentum(group, top)
                    group["max_momentum"] = top
                    group["base_momentum"] = base
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x: float) -> float:
        """The amplitude's scale at x (the cycle number or the step, by scale_mode).

        Parameters
        ----------
        x : float

        Returns
        -------
        float

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1)
        >>> sched = optim.lr_scheduler.CyclicLR(opt, 0.1, 1.0, mode='triangular2',
        ...                                     cycle_momentum=False)
        >>> sched.scale_fn(3)
        0.25
        """
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        if self.mode == "exp_range":
            return self.gamma ** x
        return 1.0

    def _set_momentum(self, group, momentum):
        if self.use_beta1:
            group["betas"] = (momentum, *group["betas"][1:])
        else:
            group["momentum"] = momentum

    def get_lr(self) -> list[float]:
        t = self.last_epoch
        cycle = math.floor(1 + t / self.total_size)
        x = 1.0 + t / self.total_size - cycle
        r = self.step_ratio
        height = x / r if x <= r else (x - 1) / (r - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else t)
        rates = [base + (top - base) * height * scale
                 for base, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, base, top in zip(self.optimizer.param_groups, self.base_momentums,
                                        self.max_momentums):
                self._set_momentum(group, top - (top - base) * height * scale)
        return rates

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        state["_scale_fn_custom"] = _saved_attributes(self._scale_fn_custom)
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        own = self._scale_fn_custom
        super().load_state_dict(state_dict)
        self._scale_fn_custom = own  # the function stays this scheduler's
        saved = state_dict.get("_scale_fn_custom")
        if own is not None and saved is not None:
            vars(own).update(saved)


class ChainedScheduler(LRScheduler):
    """Steps several schedulers together: each ``step()`` calls every scheduler's
    ``step()`` in order, so their changes of the rates compose (a multiplicative
    schedule after another, say), as PyTorch's ChainedScheduler.

    Parameters
    ----------
    schedulers : sequence of LRScheduler
        The schedulers, made on one optimizer.
    optimizer : Optimizer, optional
        Their optimizer (default: the first scheduler's).

    Raises
    ------
    TypeError
        When a scheduler has no optimizer.
    ValueError
        When schedulers is empty, holds a ReduceLROnPlateau (its step() needs a metric),
        or a scheduler belongs to another optimizer.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> warm = optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
    >>> decay = optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    >>> sched = optim.lr_scheduler.ChainedScheduler([warm, decay])
    >>> rates = [sched.get_last_lr()[0]]
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     rates.append(round(sched.get_last_lr()[0], 6))
    >>> rates
    [0.5, 0.45, 0.81, 0.729]
    """

    def __init__(self, schedulers: Sequence[LRScheduler],
                 optimizer: Optimizer | None = None) -> None:
        where = "ChainedScheduler"
        schedulers = list(schedulers)
        if not schedulers:
            raise ValueError(f"{where} expects at least one scheduler to be chained, but got "
                             f"no scheduler.")
        for i, s in enumerate(schedulers):
            if not hasattr(s, "optimizer"):
                raise TypeError(f"{where}: the scheduler at index {i} ({type(s).__name__}) "
                                f"should have `optimizer` as its attribute.")
        optimizer = optimizer or schedulers[0].optimizer
        for i, s in enumerate(schedulers):
            _not_plateau(s, i, where)
            if s.optimizer is not optimizer:
                raise ValueError(f"{where} expects all schedulers to belong to the same "
                                 f"optimizer, but got scheduler {type(s).__name__} at index "
                                 f"{i} with another optimizer than "
                                 f"{type(optimizer).__name__}.")
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = self._current()

    def step(self) -> None:  # type: ignore[override]
        """Steps every scheduler, in order.

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
        >>> a = optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> b = optim.lr_scheduler.MultiplicativeLR(opt, lambda e: 0.5)
        >>> sched = optim.lr_scheduler.ChainedScheduler([a, b])
        >>> opt.step()
        >>> sched.step()
        >>> sched.get_last_lr()
        [0.25]
        """
        for s in self._schedulers:
            s.step()
        self._last_lr = self._current()

    state_dict = _state_with_children
    load_state_dict = _load_children

