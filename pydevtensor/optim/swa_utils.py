"""Weight averaging, as ``torch.optim.swa_utils``: AveragedModel keeps a running average
of a model's parameters (stochastic weight averaging, Izmailov et al. 2018, or an
exponential moving average with ``get_ema_multi_avg_fn``), SWALR anneals the learning
rate to a constant for the averaging phase, and update_bn recomputes the batch norms'
statistics for the averaged weights with one pass over the data.

The averages are computed on each parameter's device in its dtype, from a detached copy
of the model's value moved to the average's device (an explicit copy when they
differ); nothing is read back to the host.
"""
from __future__ import annotations

import copy
import itertools
import math
import numbers
from collections.abc import Callable, Iterable
from typing import Any

from .. import _C
from ..autograd.grad_mode import no_grad
from ..nn.module import Module
from ..nn.modules.batchnorm import _BatchNorm
from .lr_scheduler import LRScheduler
from .optimizer import Optimizer

__all__ = ["AveragedModel", "SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn",
           "get_swa_avg_fn", "get_swa_multi_avg_fn", "update_bn"]


def get_ema_avg_fn(decay: float = 0.999) -> Callable[..., Any]:
    """The exponential moving average of one parameter: ``decay * ema + (1 - decay) *
    current``.

    Parameters
    ----------
    decay : float, optional
        The weight of the average so far, in [0, 1] (default 0.999).

    Returns
    -------
    callable
        ``ema_update(ema_param, current_param, num_averaged) -> Tensor``.

    Raises
    ------
    ValueError
        When decay is outside [0, 1], as PyTorch's (or NaN).

    Examples
    --------
    >>> from pydevtensor.optim.swa_utils import get_ema_avg_fn
    >>> get_ema_avg_fn(0.5)(pydevtensor.tensor(2.), pydevtensor.tensor(4.), 1)
    tensor(3.)
    """
    _check_decay(decay, "get_ema_avg_fn")

    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def _check_decay(decay, where):
    """PyTorch's ValueError for an EMA decay outside [0, 1] (NaN refused too)."""
    if isinstance(decay, bool) or not isinstance(decay, numbers.Real):
        raise TypeError(f"{where}(): decay must be a number, got {type(decay).__name__}")
    if not 0.0 <= decay <= 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         f"[0,1] range.")


def get_swa_avg_fn() -> Callable[..., Any]:
    """The running mean of one parameter: ``avg + (current - avg) / (n + 1)``.

    Returns
    -------
    callable
        ``swa_update(averaged_param, current_param, num_averaged) -> Tensor``.

    Examples
    --------
    >>> from pydevtensor.optim.swa_utils import get_swa_avg_fn
    >>> get_swa_avg_fn()(pydevtensor.tensor(2.), pydevtensor.tensor(5.), 2)
    tensor(3.)
    """
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable[..., None]:
    """The exponential moving average of lists of parameters, in place.

    Parameters
    ----------
    decay : float, optional
        The weight of the average so far, in [0, 1] (default 0.999).

    Returns
    -------
    callable
        ``ema_update(ema_params, current_params, num_averaged) -> None``.

    Raises
    ------
    ValueError
        When decay is outside [0, 1], as PyTorch's (or NaN).

    Examples
    --------
    >>> from pydevtensor.optim.swa_utils import get_ema_multi_avg_fn
    >>> e = [pydevtensor.tensor([2.])]
    >>> get_ema_multi_avg_fn(0.5)(e, [pydevtensor.tensor([4.])], 1)
    >>> e
    [tensor([3.])]
    """
    _check_decay(decay, "get_ema_multi_avg_fn")

    def ema_update(ema_param_list, current_param_list, _num_averaged):
        for p_ema, p_model in zip(ema_param_list, current_param_list):
            if p_ema.is_floating_point():
                p_ema.lerp_(p_model, 1 - decay)
            else:
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn() -> Callable[..., None]:
    """The running mean of lists of parameters, in place.

    Returns
    -------
    callable
        ``swa_update(averaged_params, current_params, num_averaged) -> None``.

    Examples
    --------
    >>> from pydevtensor.optim.swa_utils import get_swa_multi_avg_fn
    >>> a = [pydevtensor.tensor([2.])]
    >>> get_swa_multi_avg_fn()(a, [pydevtensor.tensor([5.])], 2)
    >>> a
    [tensor([3.])]
    """
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        for p_avg, p_model in zip(averaged_param_list, current_param_list):
            if p_avg.is_floating_point():
                p_avg.add_((p_model - p_avg) / (num_averaged + 1))
            else:  # an integer buffer (num_batches_tracked): truncated, as PyTorch's copy_
                p_avg.copy_(p_avg + (p_model - p_avg) / (num_averaged + 1))
    return swa_update


class AveragedModel(Module):
    """A copy of model whose parameters are the running average of model's, updated by
    ``update_parameters(model)``; calling it runs the copy (PyTorch's AveragedModel).

    Parameters
    ----------
    model : nn.Module
        The model to average (deep-copied).
    device : str or pydevtensor.device, optional
        Where the copy lives (default: model's devices).
    avg_fn : callable, optional
        ``avg_fn(averaged, current, num_averaged) -> Tensor`` for one parameter.
    multi_avg_fn : callable, optional
        ``multi_avg_fn(averaged_list, current_list, num_averaged)``, in place (default,
        with no avg_fn: the equal-weight running mean of SWA).
    use_buffers : bool, optional
        Average the buffers too (default False: copy them from model).

    Raises
    ------
    AssertionError
        When both avg_fn and multi_avg_fn are given (PyTorch's assertion).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn
    >>> net = nn.Linear(2, 1)
    >>> ema = AveragedModel(net, multi_avg_fn=get_ema_multi_avg_fn(0.9))
    >>> ema.update_parameters(net)
    >>> int(ema.n_averaged)
    1
    """

    def __init__(self, model: Module, device: Any = None,
                 avg_fn: Callable[..., Any] | None = None,
                 multi_avg_fn: Callable[..., None] | None = None,
                 use_buffers: bool = False) -> None:
        super().__init__()
        if not isinstance(model, Module):
            raise TypeError(f"AveragedModel(): model must be an nn.Module, got "
                            f"{type(model).__name__}")
        if avg_fn is not None and multi_avg_fn is not None:  # PyTorch's assertion
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _C.tensor(0, dtype=_C.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Averages model's current parameters (and buffers with use_buffers) into this
        copy's; the first call copies them.

        Parameters
        ----------
        model : nn.Module
            The model being trained (of the copy's structure).

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> from pydevtensor.optim.swa_utils import AveragedModel
        >>> net = nn.Linear(1, 1, bias=False)
        >>> swa = AveragedModel(net)
        >>> with pydevtensor.no_grad():
        ...     _ = net.weight.fill_(1.0); swa.update_parameters(net)
        ...     _ = net.weight.fill_(3.0); swa.update_parameters(net)
        >>> swa.module.weight.item()
        2.0
        """
        if self.use_buffers:
            mine = list(itertools.chain(self.module.parameters(), self.module.buffers()))
            theirs = list(itertools.chain(model.parameters(), model.buffers()))
        else:
            mine, theirs = list(self.parameters()), list(model.parameters())
        if len(mine) != len(theirs):
            raise ValueError(f"AveragedModel.update_parameters(): model has {len(theirs)} "
                             f"tensors to average, the averaged copy {len(mine)}")
        # the count, read as PyTorch's `if self.n_averaged == 0` reads it: on a GPU an
        # implicit copy, which the transfer guard sees
        first = int(_C._implicit_cpu(self.n_averaged, "AveragedModel.update_parameters()")
                    .item()) == 0
        with no_grad():
            averaged = [p.detach() for p in mine]
            current = [q.detach().to(p.device) for p, q in zip(averaged, theirs)]
            if first:
                for p, q in zip(averaged, current):
                    p.copy_(q)
            elif self.avg_fn is not None and self.multi_avg_fn is None:
                for p, q in zip(averaged, current):
                    p.copy_(self.avg_fn(p, q, self.n_averaged.to(p.device)))
            else:
                groups: dict[Any, tuple[list, list]] = {}
                for p, q in zip(averaged, current):
                    a, b = groups.setdefault((str(p.device), p.dtype), ([], []))
                    a.append(p)
                    b.append(q)
                fn = self.multi_avg_fn or get_swa_multi_avg_fn()
                for a, b in groups.values():
                    fn(a, b, self.n_averaged.to(a[0].device))
            if not self.use_buffers:  # the buffers follow the model's (BN statistics)
                for b_avg, b_model in zip(self.module.buffers(), model.buffers()):
                    b_avg.detach().copy_(b_model.detach().to(b_avg.device))
            self.n_averaged += 1


class SWALR(LRScheduler):
    """Anneals each group's rate from its current value to swa_lr over anneal_epochs
    (cosine or linear), then keeps swa_lr: the schedule of SWA's averaging phase, as
    PyTorch's.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer whose rates are scheduled.
    swa_lr : float or list of float
        The final rate (one per group, or one for all).
    anneal_epochs : int, optional
        The epochs of the annealing (default 10; 0 jumps to swa_lr).
    anneal_strategy : {'cos', 'linear'}, optional
        The annealing's shape (default 'cos').
    last_epoch : int, optional
        The epoch to resume after (default -1).

    Raises
    ------
    ValueError
        For an unknown strategy, a negative anneal_epochs, or one swa_lr per group of
        the wrong count.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> from pydevtensor.optim.swa_utils import SWALR
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
    >>> sched = SWALR(opt, swa_lr=0.1, anneal_epochs=2, anneal_strategy='linear')
    >>> rates = []
    >>> for _ in range(3):
    ...     opt.step(); sched.step(); rates.append(round(opt.param_groups[0]['lr'], 4))
    >>> rates
    [0.55, 0.1, 0.1]
    """

    def __init__(self, optimizer: Optimizer, swa_lr: float | list[float],
                 anneal_epochs: int = 10, anneal_strategy: str = "cos",
                 last_epoch: int = -1) -> None:
        groups = optimizer.param_groups
        rates = list(swa_lr) if isinstance(swa_lr, (list, tuple)) else [swa_lr] * len(groups)
        if len(rates) != len(groups):
            raise ValueError(f"SWALR(): swa_lr must have {len(groups)} values, one per "
                             f"param group, got {len(rates)}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy!r}")
        if isinstance(anneal_epochs, bool) or not isinstance(anneal_epochs, int) or \
                anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs!r}")
        for rate, group in zip(rates, groups):
            group["swa_lr"] = rate
        self._anneal_strategy = anneal_strategy  # PyTorch's (in the state dict)
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @property
    def anneal_func(self) -> Callable[[float], float]:
        """The annealing of anneal_strategy (kept as ``_anneal_strategy``, PyTorch's
        state dict entry): ``t -> (1 - cos(pi t)) / 2`` for 'cos', ``t -> t`` for
        'linear'.

        Returns
        -------
        callable
            float -> float, on [0, 1].

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> from pydevtensor.optim.swa_utils import SWALR
        >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
        >>> SWALR(opt, swa_lr=0.5, anneal_strategy='linear').anneal_func(0.25)
        0.25
        """
        return self._cosine_anneal if self._anneal_strategy == "cos" else self._linear_anneal

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[float]:
        """The rates of this epoch: from the rates in force toward swa_lr (PyTorch's
        formula, which recovers the annealing's start from the current rate).

        Returns
        -------
        list of float

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> from pydevtensor.optim.swa_utils import SWALR
        >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=1.0)
        >>> SWALR(opt, swa_lr=0.5, anneal_epochs=0).get_last_lr()
        [0.5]
        """
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs)]


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recomputes the running statistics of model's batch norms with one pass over
    loader (their cumulative average, momentum None), as PyTorch's: the statistics of
    averaged weights are not the average of the statistics.

    Parameters
    ----------
    loader : iterable
        Batches: tensors, or tuples and lists whose first item is the input.
    model : nn.Module
        The model (an AveragedModel's, usually); its training flag is restored.
    device : str or pydevtensor.device, optional
        Where each input is moved first.

    Returns
    -------
    None

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.optim.swa_utils import update_bn
    >>> net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    >>> update_bn([pydevtensor.ones(4, 2)], net)
    >>> int(net[1].num_batches_tracked)
    1
    """
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)
