"""More learning-rate schedules, as ``torch.optim.lr_scheduler``'s (re-exported by
optim.lr_scheduler): LinearLR, SequentialLR, CosineAnnealingWarmRestarts, OneCycleLR
and ReduceLROnPlateau."""
from __future__ import annotations

import bisect
import copy
import math
import numbers
import warnings
from collections.abc import Sequence
from typing import Any

from . import Optimizer
from .lr_scheduler import (_EPOCH_WARNING, _PHASE_KEYS, LRScheduler, _check_phases, _int,
                           _not_plateau, _real, _set_lr)


def _fraction(value, name, where, low, high, low_open=False):
    value = _real(value, name, where)
    if not (low < value if low_open else low <= value) or not value <= high:
        raise ValueError(f"{where}: {name} must be in {'(' if low_open else '['}{low}, {high}], "
                         f"got {value}")
    return value


def _per_group(value, name, optimizer, where):
    """One number per parameter group: value's own when it is a list or tuple of them."""
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"{where}: expected {n} values for {name} (one per parameter "
                             f"group), got {len(value)}")
        return [_real(v, name, where) for v in value]
    return [_real(value, name, where)] * n


def _initial_step(scheduler):
    """The step a scheduler makes when it is made (PyTorch's _initial_step)."""
    scheduler._step_count = 0
    scheduler._is_initial = True
    try:
        scheduler.step()
    finally:
        scheduler._is_initial = False


def _state_with_children(self) -> dict[str, Any]:
    """The state of a scheduler of schedulers (SequentialLR, ChainedScheduler): its own
    attributes but the optimizer, and its schedulers' state_dicts under '_schedulers'.

    Returns
    -------
    dict

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> sched = optim.lr_scheduler.ChainedScheduler(
    ...     [optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)])
    >>> [s['gamma'] for s in sched.state_dict()['_schedulers']]
    [0.5]
    """
    state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [s.state_dict() for s in self._schedulers]
    return state


def _load_children(self, state_dict: dict[str, Any]) -> None:
    """Restores a state from ``state_dict()``, all or nothing: the schedulers' states
    are loaded into copies, kept only when every one loads.

    Parameters
    ----------
    state_dict : dict
        From ``state_dict()``.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When state_dict is not a dict.
    ValueError
        When it holds another number of schedulers.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> make = lambda: optim.lr_scheduler.ChainedScheduler(
    ...     [optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)])
    >>> a = make()
    >>> opt.step()
    >>> a.step()
    >>> b = make()
    >>> b.load_state_dict(a.state_dict())
    >>> b._schedulers[0].last_epoch
    1
    """
    where = f"{type(self).__name__}.load_state_dict()"
    if not isinstance(state_dict, dict):
        raise TypeError(f"{where}: expected a dict (a state_dict), got "
                        f"{type(state_dict).__name__}")
    saved = state_dict.get("_schedulers", ())
    if len(saved) != len(self._schedulers):
        raise ValueError(f"{where}: the state dict has {len(saved)} schedulers, this one "
                         f"{len(self._schedulers)}")
    loaded = []
    for s, st in zip(self._schedulers, saved):
        c = copy.copy(s)
        c.__dict__ = dict(s.__dict__)
        c.load_state_dict(st)
        loaded.append(c.__dict__)
    for s, state in zip(self._schedulers, loaded):
        s.__dict__ = state
    self.__dict__.update({k: v for k, v in state_dict.items() if k != "_schedulers"})


class LinearLR(LRScheduler):
    """Scales the rates by a factor that goes linearly from start_factor to end_factor
    over total_iters epochs, then stays: ``base * (start_factor + (end_factor -
    start_factor) * min(last_epoch, total_iters) / total_iters)`` (a warm-up, with
    the defaults).  As PyTorch's, it computes each rate from the current one.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose rates are scheduled.
    start_factor : float, optional
        The factor at epoch 0, in (0, 1] (default 1/3).
    end_factor : float, optional
        The factor from epoch total_iters on, in [0, 1] (default 1.0).
    total_iters : int, optional
        Epochs of the change, >= 0 (default 5); with 0, as PyTorch's, the factor is
        start_factor throughout (end_factor is never reached).
    last_epoch : int, optional
        The epoch to resume after (default -1: a new schedule).

    Raises
    ------
    TypeError
        When a factor is not a number or total_iters not an int.
    ValueError
        When a factor is out of its range or total_iters < 0.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> sched = optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
    >>> rates = [sched.get_last_lr()[0]]
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     rates.append(sched.get_last_lr()[0])
    >>> rates
    [0.25, 0.5, 0.75, 1.0, 1.0]
    """

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, total_iters: int = 5, last_epoch: int = -1) -> None:
        self.start_factor = _fraction(start_factor, "start_factor", "LinearLR", 0.0, 1.0, True)
        self.end_factor = _fraction(end_factor, "end_factor", "LinearLR", 0.0, 1.0)
        self.total_iters = _int(total_iters, "total_iters", "LinearLR", 0)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        e, start, end = self.last_epoch, self.start_factor, self.end_factor
        if e == 0:
            return [lr * start for lr in self._current()]
        if e > self.total_iters or self._is_initial:
            return self._current()
        ratio = 1.0 + (end - start) / (self.total_iters * start + (e - 1) * (end - start))
        return [lr * ratio for lr in self._current()]

    def _closed_form(self) -> list[float]:
        s, e, n = self.start_factor, self.end_factor, self.total_iters
        # total_iters=0: start_factor throughout, as the chainable form (PyTorch's
        # closed form divides by 0)
        f = s + (e - s) * min(n, self.last_epoch) / n if n else s
        return [base * f for base in self.base_lrs]


class SequentialLR(LRScheduler):
    """Runs schedulers one after the other: the first until epoch milestones[0], the
    second from there (restarted at its epoch 0, from the base rates) until
    milestones[1], and so on, as PyTorch's SequentialLR.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer of every scheduler.
    schedulers : list of LRScheduler
        The schedulers, made on optimizer (their first step is undone).
    milestones : list of int
        The epochs where the next scheduler takes over: one fewer than schedulers,
        increasing.
    last_epoch : int, optional
        The epoch to resume after (default -1: a new schedule).

    Raises
    ------
    TypeError
        When a scheduler is not an LRScheduler or a milestone not an int.
    ValueError
        When schedulers is empty, one is a ReduceLROnPlateau or has another optimizer,
        or the numbers of schedulers and milestones do not fit.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> warm = optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
    >>> decay = optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> sched = optim.lr_scheduler.SequentialLR(opt, [warm, decay], milestones=[2])
    >>> rates = [sched.get_last_lr()[0]]
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     rates.append(sched.get_last_lr()[0])
    >>> rates
    [0.5, 0.75, 1.0, 0.5, 0.25]
    """

    def __init__(self, optimizer: Optimizer, schedulers: Sequence[LRScheduler],
                 milestones: Sequence[int], last_epoch: int = -1) -> None:
        where = "SequentialLR"
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{where}: {type(optimizer).__name__} is not an Optimizer")
        schedulers = list(schedulers)
        if not schedulers:
            raise ValueError(f"{where}: expects at least one scheduler, got none")
        for i, s in enumerate(schedulers):
            _not_plateau(s, i, where)
            if not isinstance(s, LRScheduler):
                raise TypeError(f"{where}: schedulers[{i}] is {type(s).__name__}, not an "
                                f"LRScheduler")
            if s.optimizer is not optimizer:
                raise ValueError(f"{where}: schedulers[{i}] ({type(s).__name__}) belongs to "
                                 f"another optimizer than the one given")
        milestones = [_int(m, "a milestone", where, 0) for m in milestones]
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"{where}: expects one milestone fewer than schedulers, got "
                             f"{len(schedulers)} schedulers and {len(milestones)} milestones")
        if milestones != sorted(milestones):
            raise ValueError(f"{where}: milestones must increase, got {milestones}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = _int(last_epoch, "last_epoch", where, -1) + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:  # undo the schedulers' first steps
            _set_lr(group, group["initial_lr"])
        for s in schedulers:
            s.last_epoch -= 1
        first = schedulers[bisect.bisect_right(milestones, 0)]
        _initial_step(first)
        self._last_lr = first.get_last_lr()

    def step(self, epoch: int | None = None) -> None:
        if epoch is not None:
            raise TypeError("SequentialLR.step() takes no epoch, as PyTorch's")
        epoch = self.last_epoch + 1
        idx = bisect.bisect_right(self._milestones, epoch)
        s = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == epoch:
            # restarted, from its base rates: by its closed form, or its get_lr (a
            # subclass with only get_lr), at epoch 0; on failure nothing has changed
            before = s.last_epoch
            s.last_epoch = 0
            try:
                with s._in_step():
                    rates = s._closed_form()
            except BaseException:
                s.last_epoch = before
                raise
            for group, lr in zip(self.optimizer.param_groups, rates):
                _set_lr(group, lr)
            s._last_lr = [group["lr"] for group in self.optimizer.param_groups]
        else:
            s.step()
        self.last_epoch = epoch
        self._last_lr = s.get_last_lr()

    state_dict = _state_with_children
    load_state_dict = _load_children


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR (Loshchilov and Hutter): cosine annealing from the base rate to eta_min over
    T_i epochs, then a restart at the base rate with T_i multiplied by T_mult:
    ``eta_min + (base - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2``, where T_cur
    counts the epochs since the last restart.

    ``step(epoch)`` takes a fractional epoch (``epoch + i / iters`` within an epoch),
    as PyTorch's does, and finds T_cur and T_i for it.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose rates are scheduled.
    T_0 : int
        Epochs until the first restart, >= 1.
    T_mult : int, optional
        The factor of T_i at each restart, >= 1 (default 1).
    eta_min : float, optional
        The lowest rate (default 0).
    last_epoch : int, optional
        The epoch to resume after (default -1: a new schedule).

    Raises
    ------
    TypeError
        When T_0 or T_mult is not a number or eta_min not a number.
    ValueError
        When T_0 or T_mult is below 1 or not an integer (a float, as PyTorch's), or an
        epoch given to step() below 0.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> sched = optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
    >>> rates = [sched.get_last_lr()[0]]
    >>> for _ in range(6):
    ...     opt.step()
    ...     sched.step()
    ...     rates.append(round(sched.get_last_lr()[0], 4))
    >>> rates
    [1.0, 0.5, 1.0, 0.8536, 0.5, 0.1464, 1.0]
    >>> sched.step(0.5)
    >>> round(sched.get_last_lr()[0], 4)
    0.8536
    """

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        where = "CosineAnnealingWarmRestarts"
        for name, value, words in (("T_0", T_0, "positive integer T_0"),
                                   ("T_mult", T_mult, "integer T_mult >= 1")):
            if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
                # a float: PyTorch's ValueError and words
                raise ValueError(f"{where}: Expected {words}, but got {value}")
        self.T_0 = _int(T_0, "T_0", where, 1)
        self.T_mult = _int(T_mult, "T_mult", where, 1)
        self.eta_min = _real(eta_min, "eta_min", where)
        self.T_i = self.T_0
        self.T_cur = _int(last_epoch, "last_epoch", where, -1)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        f = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (base - self.eta_min) * f for base in self.base_lrs]

    _closed_form = get_lr

    def step(self, epoch: float | None = None) -> None:
        """Moves to the next epoch, or to epoch (a fractional one within an epoch), and
        sets the rates there.

        Parameters
        ----------
        epoch : float, optional
            The epoch to move to (>= 0); by default the next one.

        Returns
        -------
        None

        Raises
        ------
        ValueError
            When epoch is below 0.

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
        >>> sched = optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=4)
        >>> sched.step(2.0)
        >>> sched.get_last_lr()
        [0.5]
        """
        where = "CosineAnnealingWarmRestarts.step()"
        if epoch is not None:  # checked before anything changes
            epoch = _real(epoch, "epoch", where)
            if epoch < 0:
                raise ValueError(f"{where}: expected a non-negative epoch, got {epoch}")
        # _step_count stays 0, as PyTorch's (whose step does not count its calls)
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        with self._in_step():
            rates = self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, rates):
            _set_lr(group, lr)
        self._last_lr = self._current()


def _anneal_cos(start, end, pct):
    return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)


def _anneal_linear(start, end, pct):
    return (end - start) * pct + start


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith and Topin), PyTorch's OneCycleLR, stepped once per
    batch: the rate rises from max_lr / div_factor to max_lr over the first pct_start
    of total_steps, then falls to max_lr / (div_factor * final_div_factor) (with
    three_phase: back to max_lr / div_factor over as many steps, then down to the
    minimum), annealed by cosine or linearly; the momentum (SGD's momentum, or the
    first beta of the Adam family) cycles the other way between max_momentum and
    base_momentum.  Phase i ends at step pct_start * total_steps * i - i (the last
    at total_steps - 1) and within a phase the fraction is
    ``(step - start) / (end - start)``.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose rates are scheduled.
    max_lr : float or list of float
        The peak rate, or one per parameter group.
    total_steps : int, optional
        The steps of the cycle; else epochs * steps_per_epoch.
    epochs, steps_per_epoch : int, optional
        Give total_steps as their product.
    pct_start : float, optional
        The fraction of the cycle spent rising, in [0, 1] (default 0.3).
    anneal_strategy : {'cos', 'linear'}, optional
        Default 'cos'.
    cycle_momentum : bool, optional
        Cycle the momentum too (default True); the optimizer needs a momentum or betas.
    base_momentum, max_momentum : float or list of float, optional
        The momentum's range (default 0.85 and 0.95).
    div_factor : float, optional
        max_lr / the initial rate (default 25).
    final_div_factor : float, optional
        The initial rate / the final one (default 1e4).
    three_phase : bool, optional
        The three phases above instead of two (default False).
    last_epoch : int, optional
        The step to resume after (default -1: a new schedule).

    Raises
    ------
    TypeError
        When a number or count has the wrong type.
    ValueError
        When neither total_steps nor epochs and steps_per_epoch are given (or one is
        below 1), pct_start is out of [0, 1] or leaves a phase used by a step
        without length (pct_start * total_steps = 1, say), anneal_strategy is unknown, a list has
        not one value per group, cycle_momentum is asked of an optimizer without
        momentum, or step() goes past total_steps.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1, momentum=0.9)
    >>> sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=4,
    ...                                       anneal_strategy='linear', pct_start=0.5,
    ...                                       div_factor=10, final_div_factor=10)
    >>> rates = [sched.get_last_lr()[0]]
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     rates.append(round(sched.get_last_lr()[0], 6))
    >>> rates
    [0.1, 1.0, 0.505, 0.01]
    >>> round(opt.param_groups[0]['momentum'], 6)
    0.95
    """

    def __init__(self, optimizer: Optimizer, max_lr: float | list[float],
                 total_steps: int | None = None, epochs: int | None = None,
                 steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum: float | list[float] = 0.85,
                 max_momentum: float | list[float] = 0.95, div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1) -> None:
        where = "OneCycleLR"
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{where}: {type(optimizer).__name__} is not an Optimizer")
        if total_steps is not None:
            self.total_steps = _int(total_steps, "total_steps", where, 1)
        elif epochs is not None and steps_per_epoch is not None:
            self.total_steps = (_int(epochs, "epochs", where, 1) *
                                _int(steps_per_epoch, "steps_per_epoch", where, 1))
        else:
            raise ValueError(f"{where}: give total_steps, or epochs and steps_per_epoch "
                             f"(got total_steps={total_steps}, epochs={epochs}, "
                             f"steps_per_epoch={steps_per_epoch})")
        pct_start = _fraction(pct_start, "pct_start", where, 0.0, 1.0)
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"{where}: anneal_strategy must be 'cos' or 'linear', got "
                             f"{anneal_strategy!r}")
        self._anneal_func_type = anneal_strategy  # PyTorch's name (in the state dict)
        for name, flag in (("cycle_momentum", cycle_momentum), ("three_phase", three_phase)):
            if not isinstance(flag, bool):
                raise TypeError(f"{where}: {name} must be True or False, got {flag!r:.40}")
        n = self.total_steps
        if three_phase:
            phases = [
                (pct_start * n - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (2 * pct_start * n - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
                (n - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        else:
            phases = [
                (pct_start * n - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (n - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
        _check_phases(phases, n, pct_start, where)
        # PyTorch's dicts (the state dicts load both ways)
        self._schedule_phases = [dict(zip(_PHASE_KEYS, phase)) for phase in phases]
        max_lrs = _per_group(max_lr, "max_lr", optimizer, where)
        div = _real(div_factor, "div_factor", where)
        final = _real(final_div_factor, "final_div_factor", where)
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(f"{where}: {type(optimizer).__name__} has neither a momentum "
                                 f"nor betas to cycle; pass cycle_momentum=False")
            self.use_beta1 = "betas" in optimizer.defaults
            tops = _per_group(max_momentum, "max_momentum", optimizer, where)
            bases = _per_group(base_momentum, "base_momentum", optimizer, where)
        if last_epoch == -1:
            for i, group in enumerate(optimizer.param_groups):
                group["initial_lr"] = max_lrs[i] / div
                group["max_lr"] = max_lrs[i]
                group["min_lr"] = group["initial_lr"] / final
                if cycle_momentum:
                    if self.use_beta1:
                        group["betas"] = (tops[i], *group["betas"][1:])
                    else:
                        group["momentum"] = tops[i]
                    group["max_momentum"] = tops[i]
                    group["base_momentum"] = bases[i]
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        return (_anneal_cos if self._anneal_func_type == "cos" else _anneal_linear)(start, end,
                                                                                  pct)

    def get_lr(self) -> list[float]:
        t = self.last_epoch
        if t > self.total_steps:
            raise ValueError(f"OneCycleLR: tried to step {t} times; the schedule has "
                             f"total_steps={self.total_steps}")
        rates = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end, lr0, lr1, m0, m1 = (phase[k] for k in _PHASE_KEYS) if isinstance(
                    phase, dict) else phase  # (a tuple in our older state dicts)
                if t <= end or i == len(self._schedule_phases) - 1:
                    pct = (t - start) / (end - start)
                    rates.append(self._anneal(group[lr0], group[lr1], pct))
                    if self.cycle_momentum:
                        momentum = self._anneal(group[m0], group[m1], pct)
                        if self.use_beta1:
                            group["betas"] = (momentum, *group["betas"][1:])
                        else:
                            group["momentum"] = momentum
                    break
                start = end
        return rates

    _closed_form = get_lr


class ReduceLROnPlateau(LRScheduler):
    """Multiplies the rates by factor when a metric has stopped improving for more
    than patience epochs, as PyTorch's: ``step(metric)`` once per epoch.  An epoch
    improves on the best value so far when the metric is below ``best * (1 -
    threshold)`` (mode 'min', threshold_mode 'rel'), below ``best - threshold``
    ('abs'), or above ``best * (1 + threshold)`` or ``best + threshold`` in mode
    'max'.  After a reduction, cooldown epochs pass before bad epochs count again.
    A rate never goes below its min_lr, and a change smaller than eps is skipped.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose rates are scheduled.
    mode : {'min', 'max'}, optional
        Whether the metric should fall (a loss) or rise (an accuracy) (default 'min').
    factor : float, optional
        The factor of a reduction, < 1 (default 0.1).
    patience : int, optional
        Bad epochs allowed before a reduction (default 10).
    threshold : float, optional
        The least improvement that counts (default 1e-4).
    threshold_mode : {'rel', 'abs'}, optional
        Default 'rel'.
    cooldown : int, optional
        Epochs after a reduction without counting bad epochs (default 0).
    min_lr : float or list of float, optional
        The lowest rate, or one per group (default 0).
    eps : float, optional
        The least change of a rate that is made (default 1e-8).

    Raises
    ------
    TypeError
        When a number or count has the wrong type.
    ValueError
        For factor >= 1, an unknown mode or threshold_mode, or a min_lr list of
        another length than the groups.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> sched = optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
    >>> rates = []
    >>> for loss in [3.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0]:
    ...     sched.step(loss)
    ...     rates.append(sched.get_last_lr()[0])
    >>> rates
    [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25]
    """

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr: float | list[float] = 0,
                 eps: float = 1e-8) -> None:
        where = "ReduceLROnPlateau"
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{where}: {type(optimizer).__name__} is not an Optimizer")
        self.factor = _real(factor, "factor", where)
        if self.factor >= 1.0:
            raise ValueError(f"{where}: factor must be < 1, got {self.factor}")
        if mode not in ("min", "max"):
            raise ValueError(f"{where}: mode must be 'min' or 'max', got {mode!r}")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"{where}: threshold_mode must be 'rel' or 'abs', got "
                             f"{threshold_mode!r}")
        self.optimizer = optimizer
        self.min_lrs = _per_group(min_lr, "min_lr", optimizer, where)
        # a single min_lr also covers groups added later (PyTorch's default_min_lr)
        self.default_min_lr = None if isinstance(min_lr, (list, tuple)) else self.min_lrs[0] \
            if self.min_lrs else _real(min_lr, "min_lr", where)
        self.patience = _int(patience, "patience", where, 0)
        self.cooldown = _int(cooldown, "cooldown", where, 0)
        self.threshold = _real(threshold, "threshold", where)
        self.eps = _real(eps, "eps", where)
        self.mode, self.threshold_mode = mode, threshold_mode
        self.mode_worse = math.inf if mode == "min" else -math.inf  # PyTorch's too
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0
        self.last_epoch = 0
        self._step_count = 0
        self._last_lr = self._current()

    @property
    def in_cooldown(self) -> bool:
        """Whether the cooldown after a reduction is still running (PyTorch's property);
        bad epochs are not counted meanwhile.

        Returns
        -------
        bool
            ``cooldown_counter > 0``.

        Examples
        --------
        >>> from pydevtensor import optim
        >>> opt = optim.SGD([pydevtensor.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, cooldown=2)
        >>> opt.step()
        >>> sched.step(1.0)
        >>> sched.in_cooldown
        False
        >>> sched.step(1.0)  # no improvement: the rate falls and the cooldown starts
        >>> sched.get_last_lr(), sched.in_cooldown
        ([0.1], True)
        """
        return self.cooldown_counter > 0

    def is_better(self, a: float, best: float) -> bool:
        """Whether the metric a improves on best (see the class's docstring).

        Parameters
        ----------
        a, best : float
            The metric and the best value so far.

        Returns
        -------
        bool

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
        >>> sched = optim.lr_scheduler.ReduceLROnPlateau(opt, threshold=0.1)
        >>> sched.is_better(0.95, 1.0), sched.is_better(0.85, 1.0)
        (False, True)
        """
        t = self.threshold
        if self.mode == "min":
            return a < (best * (1.0 - t) if self.threshold_mode == "rel" else best - t)
        return a > (best * (1.0 + t) if self.threshold_mode == "rel" else best + t)

    def step(self, metrics: Any, epoch: int | None = None) -> None:  # type: ignore[override]
        """Counts an epoch with the metric metrics, reducing the rates when it is the
        last bad epoch allowed.

        Parameters
        ----------
        metrics : float or 0-d Tensor
            The metric of the epoch (a validation loss, say).
        epoch : int, optional
            Deprecated, as in PyTorch: the epoch number.

        Returns
        -------
        None

        Raises
        ------
        TypeError
            When metrics is not a number.

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
        >>> sched = optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
        >>> sched.step(1.0)
        >>> sched.step(pydevtensor.tensor(1.0))
        >>> sched.get_last_lr()
        [0.1]
        """
        try:
            current = float(metrics)
        except (TypeError, ValueError):
            raise TypeError(f"ReduceLROnPlateau.step(): metrics must be a number or a "
                            f"one-element tensor, got {type(metrics).__name__}") from None
        if epoch is not None:
            epoch = _int(epoch, "epoch", "ReduceLROnPlateau.step()", 0)
            warnings.warn(_EPOCH_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            groups = self.optimizer.param_groups
            if len(groups) != len(self.min_lrs):  # a group added since: PyTorch's rule
                if getattr(self, "default_min_lr", None) is None:
                    raise RuntimeError(
                        f"ReduceLROnPlateau: the optimizer has {len(groups)} param groups, "
                        f"{len(self.min_lrs)} when the scheduler was made (a group added "
                        f"since?) and min_lr was a list; set the scheduler's min_lrs to "
                        f"one value per group")
                self.min_lrs = [self.default_min_lr] * len(groups)
            for group, low in zip(groups, self.min_lrs):
                old = float(group["lr"])
                new = max(old * self.factor, low)
                if old - new > self.eps:
                    _set_lr(group, new)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = self._current()

    _GET_LR_WARNS = False  # PyTorch's has no get_lr of its own

    def get_lr(self) -> list[float]:
        return self._current()

