"""optim.lr_scheduler: learning-rate schedules, as ``torch.optim.lr_scheduler``.

A scheduler changes the ``'lr'`` of each of its optimizer's ``param_groups`` when its
``step()`` is called (once per epoch, after the optimizer's steps).  Made, it records
each group's ``'initial_lr'`` (the base rate), sets ``last_epoch`` to 0 and leaves the
rates as they are, except LambdaLR, which sets them to ``base * lr_lambda(0)``.

As in PyTorch, StepLR, MultiStepLR, ExponentialLR and CosineAnnealingLR compute each
rate from the current one (so that a rate changed by hand, or by another scheduler,
carries on), which equals the closed form below up to rounding; LambdaLR always
computes from the base rate.  With e = last_epoch:

    StepLR              base * gamma ** (e // step_size)
    MultiStepLR         base * gamma ** (number of milestones <= e)
    ExponentialLR       base * gamma ** e
    CosineAnnealingLR   eta_min + (base - eta_min) * (1 + cos(pi * e / T_max)) / 2
    LambdaLR            base * lr_lambda(e)
    LinearLR            base * (start + (end - start) * min(e, total_iters) / total_iters)

and, with their own rules (see each docstring): SequentialLR (schedulers one after
the other), CosineAnnealingWarmRestarts (SGDR; step() takes fractional epochs),
OneCycleLR (stepped per batch; cycles the momentum too), ReduceLROnPlateau
(``step(metric)``: reduces the rates when the metric stops improving),
MultiplicativeLR, ConstantLR, PolynomialLR, CyclicLR (stepped per batch) and
ChainedScheduler (several schedulers stepped together).
"""
from __future__ import annotations

import bisect
import collections
import math
import numbers
import types
import contextlib
import functools
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from .. import _C
from .._args import size as _size
from . import Optimizer

__all__ = ["ChainedScheduler", "ConstantLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts",
           "CyclicLR", "ExponentialLR", "LRScheduler", "LambdaLR", "LinearLR", "MultiStepLR",
           "MultiplicativeLR", "OneCycleLR", "PolynomialLR", "ReduceLROnPlateau",
           "SequentialLR", "StepLR"]


_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 "
    "and later, you should call them in the opposite order: `optimizer.step()` before "
    "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
    "value of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")
_OVERRIDDEN_WARNING = (
    "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
    "initialization. Please, make sure to call `optimizer.step()` before "
    "`lr_scheduler.step()`. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")
_EPOCH_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the "
    "new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.")
_GET_LR_WARNING = ("To get the last learning rate computed by the scheduler, please use "
                   "`get_last_lr()`.")


def _warns_outside_step(get_lr):
    """A built-in scheduler's get_lr, warning (UserWarning, PyTorch's text) when called
    outside step(), where it computes the next rates rather than giving the last."""
    @functools.wraps(get_lr)
    def wrapper(self):
        if not self.__dict__.get("_get_lr_called_within_step", False):
            warnings.warn(_GET_LR_WARNING, UserWarning, stacklevel=2)
        return get_lr(self)
    return wrapper


def _set_lr(group, lr):
    """group's 'lr' becomes lr; a Tensor lr (PyTorch allows one) stays the same
    Tensor, filled with the new value (read on the host: a rate on an accelerator
    costs one copy to the host per scheduler step)."""
    if isinstance(group["lr"], _C.Tensor):
        group["lr"].fill_(float(lr))
    else:
        group["lr"] = lr


def _int(value, name, where, least):
    return _size(value, where, name, least)  # a NumPy integer too, as an int


def _positive(value, name, where):
    """A number > 0, an int kept an int (PyTorch takes a float step_size too)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where}: {name} must be a number, got {type(value).__name__}")
    if not value > 0:
        raise ValueError(f"{where}: {name} must be > 0, got {value}")
    return int(value) if isinstance(value, numbers.Integral) else float(value)


def _real(value, name, where):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
        raise TypeError(f"{where}: {name} must be a number, got "
                        f"{value if isinstance(value, float) else type(value).__name__}")
    return float(value)


def _warn_order(optimizer):
    """PyTorch's warnings at a scheduler's first step(): the optimizer's step replaced
    since the scheduler was made, or not called yet."""
    state = optimizer.__dict__
    if state.get("step") is not state.get("_step_seen_by_scheduler"):
        warnings.warn(_OVERRIDDEN_WARNING, UserWarning, stacklevel=3)
    elif state.get("_opt_called") is False:
        warnings.warn(_ORDER_WARNING, UserWarning, stacklevel=3)


class LRScheduler:
    """The base of the schedulers: subclasses define ``get_lr()``, the rates of the
    epoch ``last_epoch``; ``step()`` moves to the next epoch and writes them into the
    optimizer's ``param_groups``.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose rates are scheduled.
    last_epoch : int, optional
        The epoch to resume after (default -1: a new schedule).  Resuming needs
        ``'initial_lr'`` in every group (the optimizer of the run resumed).

    Raises
    ------
    TypeError
        When optimizer is not an Optimizer.
    KeyError
        When resuming and a group has no ``'initial_lr'``.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1)
    >>> sched = optim.lr_scheduler.StepLR(opt, step_size=2)
    >>> sched.last_epoch, sched.base_lrs
    (0, [0.1])
    """

    # whether a subclass's get_lr warns outside step() (built-in schedulers, as PyTorch's)
    _GET_LR_WARNS = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        get_lr = cls.__dict__.get("get_lr")
        if get_lr is not None and cls.__module__.startswith(__package__) and \
                cls.__dict__.get("_GET_LR_WARNS", True):
            cls.get_lr = _warns_outside_step(get_lr)

    @contextlib.contextmanager
    def _in_step(self):
        """get_lr may be called (PyTorch's _enable_get_lr_call)."""
        self._get_lr_called_within_step = True
        try:
            yield
        finally:
            self._get_lr_called_within_step = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        where = type(self).__name__
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{where}: {type(optimizer).__name__} is not an Optimizer")
        last_epoch = _int(last_epoch, "last_epoch", where, -1)
        self.optimizer = optimizer
        groups = optimizer.param_groups
        if last_epoch == -1:
            for group in groups:  # a Tensor lr is filled in place: its first value copied
                lr = group["lr"]
                group.setdefault("initial_lr",
                                 lr.detach().clone() if isinstance(lr, _C.Tensor) else lr)
        for i, group in enumerate(groups):
            if "initial_lr" not in group:
                raise KeyError(f"{where}: param_groups[{i}] has no 'initial_lr': resuming "
                               f"with last_epoch={last_epoch} needs the optimizer of the run "
                               f"resumed (its state loaded), or last_epoch=-1 for a new one")
        self.base_lrs: list[float] = [group["initial_lr"] for group in groups]
        self.last_epoch = last_epoch
        # PyTorch's flag: the optimizer's step sets it once a scheduler watches it
        optimizer.__dict__.setdefault("_opt_called", False)
        # the optimizer's own step as the scheduler found it (None: its class's), to
        # tell one overridden since
        optimizer.__dict__["_step_seen_by_scheduler"] = optimizer.__dict__.get("step")
        self._get_lr_called_within_step = False
        self._step_count = 0
        # the first step, made here: epoch 0 keeps the rates; a resumed schedule
        # (last_epoch=k) moves on to epoch k + 1, and the schedules that compute a rate
        # from the one in force keep it in this step (_is_initial), as PyTorch's
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        """The rates of epoch ``last_epoch``, one per parameter group, computed by the
        schedule (``step()`` calls it; ``get_last_lr()`` reads the rates in force).
        As PyTorch's, a built-in scheduler's warns (UserWarning) when called outside
        ``step()``, where it computes the next rates from the current ones.

        Returns
        -------
        list of float

        Raises
        ------
        NotImplementedError
            On the base class.

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> import warnings
        >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1)
        >>> sched = optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     rates = sched.get_lr()  # the next epoch's rates: use get_last_lr()
        >>> rates, caught[0].category.__name__
        ([0.05], 'UserWarning')
        """
        raise NotImplementedError(f"{type(self).__name__} must define get_lr()")

    def _closed_form(self) -> list[float]:
        # the rates of epoch last_epoch from the epoch alone; a schedule without one (a
        # subclass defining only get_lr) uses get_lr, as PyTorch's step(epoch) does
        return self.get_lr()

    def get_last_lr(self) -> list[float]:
        """The rates the last ``step()`` set, one per parameter group.

        Returns
        -------
        list of float

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1)
        >>> sched = optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> opt.step()
        >>> sched.step()
        >>> sched.get_last_lr()
        [0.05]
        """
        return list(self._last_lr)

    def step(self, epoch: int | None = None) -> None:
        """Moves to the next epoch (``last_epoch += 1``) and sets every group's ``'lr'``
        to its rate there (a Tensor lr is filled in place).  Call it after the
        optimizer's ``step()``: the first call after the scheduler is made, with the
        optimizer not stepped since, warns (UserWarning), as PyTorch does, since that
        order skips the schedule's first rate.

        Parameters
        ----------
        epoch : int, optional
            Deprecated in PyTorch, and warned about here too: jump to this epoch,
            computing the rates by the closed form.

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
        >>> sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        >>> for _ in range(4):
        ...     opt.step()
        ...     sched.step()
        ...     print(sched.last_epoch, opt.param_groups[0]['lr'])
        1 1.0
        2 0.5
        3 0.5
        4 0.25
        """
        if epoch is not None:  # checked before anything changes
            epoch = _int(epoch, "epoch", f"{type(self).__name__}.step()", 0)
        if self._step_count == 1:  # the first step after the one made in __init__
            _warn_order(self.optimizer)
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            with self._in_step():
                rates = self.get_lr()
        else:
            warnings.warn(_EPOCH_WARNING, UserWarning, stacklevel=2)
            self.last_epoch = epoch
            with self._in_step():
                rates = self._closed_form()
        for group, lr in zip(self.optimizer.param_groups, rates):
            _set_lr(group, lr)
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state: every attribute but the optimizer.

        Returns
        -------
        dict

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1)
        >>> state = optim.lr_scheduler.StepLR(opt, step_size=3).state_dict()
        >>> state['step_size'], state['last_epoch']
        (3, 0)
        """
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores a state from ``state_dict()`` (load the optimizer's state too).

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

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1)
        >>> a = optim.lr_scheduler.StepLR(opt, step_size=3)
        >>> opt.step()
        >>> a.step()
        >>> b = optim.lr_scheduler.StepLR(opt, step_size=3)
        >>> b.load_state_dict(a.state_dict())
        >>> b.last_epoch
        1
        """
        if not isinstance(state_dict, dict):
            raise TypeError(f"{type(self).__name__}.load_state_dict(): expected a dict (a "
                            f"state_dict), got {type(state_dict).__name__}")
        self.__dict__.update(state_dict)

    def _current(self) -> list[float]:
        return [group["lr"] for group in self.optimizer.param_groups]


_LRScheduler = LRScheduler  # PyTorch's older name


class StepLR(LRScheduler):
    """Multiplies the rates by gamma every step_size epochs:
    ``base * gamma ** (last_epoch // step_size)``.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose rates are scheduled.
    step_size : int or float
        Epochs between two decays (> 0).  A float, as PyTorch takes it, decays where
        the epoch is a multiple of it: 2.5 decays at epochs 5, 10, ...
    gamma : float, optional
        The factor (default 0.1).
    last_epoch : int, optional
        The epoch to resume after (default -1: a new schedule).

    Raises
    ------
    TypeError
        When step_size or gamma is not a number.
    ValueError
        When step_size is not > 0.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> rates = []
    >>> for _ in range(5):
    ...     opt.step()
    ...     sched.step()
    ...     rates.append(sched.get_last_lr()[0])
    >>> rates
    [1.0, 0.5, 0.5, 0.25, 0.25]
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.step_size = _positive(step_size, "step_size", "StepLR")
        self.gamma = _real(gamma, "gamma", "StepLR")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        e = self.last_epoch
        if e == 0 or e % self.step_size:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _closed_form(self) -> list[float]:
        return [base * self.gamma ** (self.last_epoch // self.step_size)
                for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiplies the rates by gamma at each milestone epoch (twice at a milestone given
    twice): ``base * gamma ** (number of milestones <= last_epoch)``.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose rates are scheduled.
    milestones : iterable of int
        The epochs of the decays.
    gamma : float, optional
        The factor (default 0.1).
    last_epoch : int, optional
        The epoch to resume after (default -1: a new schedule).

    Raises
    ------
    TypeError
        When a milestone is not an int or gamma not a number.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> sched = optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)
    >>> rates = []
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     rates.append(sched.get_last_lr()[0])
    >>> rates
    [0.5, 0.5, 0.25, 0.25]
    """

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        if not isinstance(milestones, Iterable):
            raise TypeError(f"MultiStepLR: milestones must be an iterable of ints, got "
                            f"{type(milestones).__name__}")
        self.milestones = collections.Counter(
            _int(m, "a milestone", "MultiStepLR", 0) for m in milestones)
        self.gamma = _real(gamma, "gamma", "MultiStepLR")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        times = self.milestones.get(self.last_epoch, 0)
        if times == 0:
            return self._current()
        return [lr * self.gamma ** times for lr in self._current()]

    def _closed_form(self) -> list[float]:
        passed = bisect.bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiplies the rates by gamma every epoch: ``base * gamma ** last_epoch``.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose rates are scheduled.
    gamma : float
        The factor.
    last_epoch : int, optional
        The epoch to resume after (default -1: a new schedule).

    Raises
    ------
    TypeError
        When gamma is not a number.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> sched = optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> opt.step()
    >>> sched.step()
    >>> sched.step()
    >>> sched.get_last_lr()
    [0.25]
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = _real(gamma, "gamma", "ExponentialLR")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self._is_initial:  # PyTorch's (epoch 0 is made in __init__)
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _closed_form(self) -> list[float]:
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the base rate down to eta_min over T_max epochs, then back
    up over the next T_max, and so on (SGDR without restarts):
    ``eta_min + (base - eta_min) * (1 + cos(pi * last_epoch / T_max)) / 2``.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose rates are scheduled.
    T_max : int or float
        Epochs of half a period (> 0; a float too, as PyTorch takes it).
    eta_min : float, optional
        The lowest rate (default 0).
    last_epoch : int, optional
        The epoch to resume after (default -1: a new schedule).

    Raises
    ------
    TypeError
        When T_max or eta_min is not a number.
    ValueError
        When T_max <= 0.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=2)
    >>> rates = []
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     rates.append(round(sched.get_last_lr()[0], 6))
    >>> rates
    [0.5, 0.0, 0.5, 1.0]
    """

    def __init__(self, optimizer: Optimizer, T_max: float, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        self.T_max = _positive(T_max, "T_max", "CosineAnnealingLR")
        self.eta_min = _real(eta_min, "eta_min", "CosineAnnealingLR")
        super().__init__(optimizer, last_epoch)

    def _cos(self, e: int) -> float:
        return 1 + math.cos(math.pi * e / self.T_max)

    def get_lr(self) -> list[float]:
        e, low = self.last_epoch, self.eta_min
        if self._is_initial:  # PyTorch's: a later epoch 0 (SequentialLR resumed) steps on
            return self._current()
        if self._step_count == 1 and e > 0:  # resumed: no current rate to start from
            return self._closed_form()
        if (e - 1 - self.T_max) % (2 * self.T_max) == 0:
            # from the bottom of the curve, where the ratio below would be 0 / 0
            rise = (1 - math.cos(math.pi / self.T_max)) / 2
            return [lr + (base - low) * rise for lr, base in zip(self._current(), self.base_lrs)]
        ratio = self._cos(e) / self._cos(e - 1)
        return [low + (lr - low) * ratio for lr in self._current()]

    def _closed_form(self) -> list[float]:
        return [self.eta_min + (base - self.eta_min) * self._cos(self.last_epoch) / 2
                for base in self.base_lrs]


class LambdaLR(LRScheduler):
    """The base rates times a function of the epoch: ``base * lr_lambda(last_epoch)``.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose rates are scheduled.
    lr_lambda : callable or list of callables
        epoch -> factor; one for every group, or one per group.
    last_epoch : int, optional
        The epoch to resume after (default -1: a new schedule).

    Raises
    ------
    TypeError
        When lr_lambda is not callable.
    ValueError
        When a list of them does not have one per group.

    Notes
    -----
    As in PyTorch, ``state_dict()`` saves the attributes of lr_lambdas that are
    callable objects, and None for functions and lambdas, which are not saved;
    ``load_state_dict()`` restores those attributes and keeps this scheduler's functions.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> sched = optim.lr_scheduler.LambdaLR(opt, lambda epoch: 1 / (epoch + 1))
    >>> sched.get_last_lr()
    [1.0]
    >>> opt.step()
    >>> sched.step()
    >>> sched.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer: Optimizer,
                 lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        n = len(optimizer.param_groups) if isinstance(optimizer, Optimizer) else 0
        lambdas = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
        if isinstance(lr_lambda, (list, tuple)) and len(lambdas) != n:
            raise ValueError(f"LambdaLR: {len(lambdas)} lr_lambdas for {n} parameter groups; "
                             f"give one, or one per group")
        for f in lambdas:
            if not callable(f):
                raise TypeError(f"LambdaLR: lr_lambda must be callable (epoch -> factor), got "
                                f"{type(f).__name__}")
        self.lr_lambdas = lambdas
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs)]

    _closed_form = get_lr

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        state["lr_lambdas"] = [None if isinstance(f, types.FunctionType) else dict(vars(f))
                               for f in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        saved = state_dict.get("lr_lambdas", ()) if isinstance(state_dict, dict) else ()
        lambdas = self.lr_lambdas
        super().load_state_dict(state_dict)
        self.lr_lambdas = lambdas  # the functions stay this scheduler's
        for f, attributes in zip(lambdas, saved):
            if attributes is not None:
                vars(f).update(attributes)


def _not_plateau(scheduler, i, where):
    """PyTorch's ValueError for a ReduceLROnPlateau in SequentialLR or ChainedScheduler
    (whose step() would call it without the metric); ReduceLROnPlateau is this module's
    name from the import below."""
    if isinstance(scheduler, ReduceLROnPlateau):
        raise ValueError(f"{where} does not support `ReduceLROnPlateau` scheduler as it "
                         f"requires additional kwargs to be specified when calling `step`, "
                         f"but got one at index {i} in the given schedulers sequence.")


_PHASE_KEYS = ("end_step", "start_lr", "end_lr", "start_momentum", "end_momentum")


def _check_phases(phases, total_steps, pct_start, where):
    """ValueError when a step in [0, total_steps] falls in a phase of no length (its
    fraction would be 0 / 0): the first phase when pct_start * total_steps is 1, the
    last when the one before it ends at total_steps - 1.  A middle phase of no length
    is never used (its steps fall in the one before)."""
    names = ("rising", "falling") if len(phases) == 2 else ("rising", "falling",
                                                            "annihilating")
    starts = [0.0] + [phase[0] for phase in phases[:-1]]
    for i, ((end, *_), start) in enumerate(zip(phases, starts)):
        used = i == 0 and end >= 0 or i == len(phases) - 1 and max(starts[1:]) < total_steps
        if end == start and used:
            raise ValueError(f"{where}: total_steps={total_steps} and pct_start={pct_start} "
                             f"leave the {names[i]} phase (phase {i + 1} of {len(phases)}) "
                             f"without a step (it would divide by 0); change pct_start or "
                             f"total_steps")


from ._lr_schedulers_more import (CosineAnnealingWarmRestarts, LinearLR,  # noqa: E402
                                  OneCycleLR, ReduceLROnPlateau, SequentialLR)
from ._lr_schedulers_cyclic import (ChainedScheduler, ConstantLR, CyclicLR,  # noqa: E402
                                    MultiplicativeLR, PolynomialLR)

# Defined in a file of their own, but this module's as PyTorch's are: Dive into Deep
# Learning's train() (12.11) tells its own schedulers from these by
# `scheduler.__module__ == lr_scheduler.__name__`.
for _cls in (ChainedScheduler, ConstantLR, CosineAnnealingWarmRestarts, CyclicLR, LinearLR,
             MultiplicativeLR, OneCycleLR, PolynomialLR, ReduceLROnPlateau, SequentialLR):
    _cls.__module__ = __name__
del _cls
