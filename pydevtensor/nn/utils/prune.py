"""``nn.utils.prune``, as PyTorch's ``torch.nn.utils.prune``: pruning zeroes entries (or
whole channels) of a module's parameter through a mask.

Pruning ``module.<name>`` replaces the parameter by ``<name>_orig`` (the same
Parameter object: it is what trains, and what an optimizer holds) and a buffer
``<name>_mask``; ``module.<name>`` becomes a plain tensor, ``<name>_mask *
<name>_orig``, recomputed by a forward pre-hook (the method object) before each call,
so the pruned entries stay zero however ``<name>_orig`` is trained.  Pruning the same
tensor again puts the new mask on top (the methods joined in a PruningContainer; the
new amount counts among the entries or channels still unpruned), and ``remove`` makes
it permanent.  The classes are in _prune_methods.py, with the rule for ties.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ... import _C
from ...autograd.grad_mode import no_grad as _no_grad
from .convert_parameters import parameters_to_vector
from ._prune_methods import (BasePruningMethod, CustomFromMask, Identity, L1Unstructured,
                             LnStructured, PruningContainer, RandomStructured,
                             RandomUnstructured, _pruning_hooks, _scores, _shared_doc)

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask",
           "identity", "random_unstructured", "l1_unstructured", "random_structured",
           "ln_structured", "global_unstructured", "custom_from_mask", "remove",
           "is_pruned"]


@_shared_doc
def identity(module: Any, name: str) -> Any:
    """Re-parametrises ``module.<name>`` for pruning without pruning anything: the
    mask ``<name>_mask`` is all ones.

    Parameters
    ----------
    {module}
    {name}

    {returns_module}

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import prune
    >>> prune.identity(nn.Linear(2, 3), 'bias').bias_mask
    tensor([1., 1., 1.])
    """
    Identity.apply(module, name)
    return module


@_shared_doc
def random_unstructured(module: Any, name: str, amount: int | float) -> Any:
    """Prunes amount entries of ``module.<name>`` (of those not pruned yet) at random.

    Parameters
    ----------
    {module}
    {name}
    {entries}

    {returns_module}

    {raises_amount}
    ValueError
        When amount is negative, a float above 1, or more than the entries left.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import prune
    >>> m = prune.random_unstructured(nn.Linear(5, 4), 'weight', amount=0.25)
    >>> int((m.weight_mask == 0).sum())
    5
    """
    RandomUnstructured.apply(module, name, amount)
    return module


@_shared_doc
def l1_unstructured(module: Any, name: str, amount: int | float,
                    importance_scores: _C.Tensor | None = None) -> Any:
    """Prunes the amount entries of ``module.<name>`` (of those not pruned yet) of
    smallest absolute value (or importance score).

    Parameters
    ----------
    {module}
    {name}
    {entries}
    importance_scores : Tensor, optional
        Scores of the parameter's shape to rank the entries by (default: the
        parameter).

    {returns_module}

    {raises_amount}
    ValueError
        When amount is negative, a float above 1, or more than the entries left, or
        importance_scores has another shape.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import prune
    >>> m = nn.Linear(3, 1)
    >>> with pydevtensor.no_grad():
    ...     _ = m.weight.copy_(pydevtensor.tensor([[0.5, -2., 0.1]]))
    >>> m = prune.l1_unstructured(m, 'weight', amount=2)
    >>> m.weight_mask
    tensor([[0., 1., 0.]])
    >>> sorted(m.state_dict())
    ['bias', 'weight_mask', 'weight_orig']
    """
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


@_shared_doc
def random_structured(module: Any, name: str, amount: int | float, dim: int) -> Any:
    """Prunes amount whole channels of ``module.<name>`` along dim (of those not pruned
    yet) at random.

    Parameters
    ----------
    {module}
    name : str
        The parameter's name (of 2 dims or more).
    {channels}
    {dim}

    {returns_module}

    {raises_amount}
    ValueError
        When amount is negative, a float above 1, or more than the channels, or the
        parameter has fewer than 2 dims.
    IndexError
        When dim is out of range.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import prune
    >>> m = prune.random_structured(nn.Linear(2, 4), 'weight', amount=1, dim=0)
    >>> (m.weight_mask.sum(dim=1) == 0).sum()
    tensor(1)
    """
    RandomStructured.apply(module, name, amount, dim)
    return module


@_shared_doc
def ln_structured(module: Any, name: str, amount: int | float, n: Any, dim: int,
                  importance_scores: _C.Tensor | None = None) -> Any:
    """Prunes the amount channels of ``module.<name>`` along dim (of those not pruned
    yet) of smallest L_n norm (of the importance scores).

    Parameters
    ----------
    {module}
    name : str
        The parameter's name (of 2 dims or more).
    {channels}
    n : int, float, inf, -inf, 'fro' or 'nuc'
        The norm's order ('nuc', the nuclear norm of each channel as a matrix, needs
        a 3-dim parameter).
    {dim}
    importance_scores : Tensor, optional
        Scores of the parameter's shape to rank the channels by (default: the
        parameter).

    {returns_module}

    {raises_amount}
    ValueError
        When amount is negative, a float above 1, or more than the channels, or the
        parameter has fewer than 2 dims (other than 3 with n='nuc'), or
        importance_scores has another shape.
    IndexError
        When dim is out of range.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import prune
    >>> m = nn.Linear(2, 3)
    >>> with pydevtensor.no_grad():
    ...     _ = m.weight.copy_(pydevtensor.tensor([[1., 1.], [3., 0.], [0., 0.5]]))
    >>> prune.ln_structured(m, 'weight', amount=1, n=2, dim=0).weight_mask
    tensor([[1., 1.],
            [1., 1.],
            [0., 0.]])
    """
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters: Iterable, pruning_method: type,
                        importance_scores: dict | None = None, **kwargs: Any) -> None:
    """Prunes several parameters together: pruning_method (an 'unstructured' method,
    L1Unstructured say) ranks the entries of all of them joined into one vector, so
    that amount counts over them all; each then gets its share as a CustomFromMask.

    Parameters
    ----------
    parameters : iterable of (nn.Module, str)
        The parameters, as (module, name) pairs, on one device.
    pruning_method : type
        A BasePruningMethod subclass whose PRUNING_TYPE is 'unstructured'.
    importance_scores : dict, optional
        (module, name) -> scores of that parameter's shape (default: the parameters).
    **kwargs
        pruning_method's arguments (amount).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When parameters is not iterable, importance_scores not a dict, or the method
        not 'unstructured'.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import prune
    >>> net = nn.Sequential(nn.Linear(10, 4), nn.Linear(4, 1))
    >>> prune.global_unstructured([(net[0], 'weight'), (net[1], 'weight')],
    ...                           pruning_method=prune.L1Unstructured, amount=10)
    >>> int((net[0].weight_mask == 0).sum() + (net[1].weight_mask == 0).sum())
    10
    """
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = {} if importance_scores is None else importance_scores
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector([  # a score of another shape: named, not a slicing error
        _scores(importance_scores.get((m, n)), getattr(m, n), "global_unstructured()",
                f"parameter {n} of {type(m).__name__}") for m, n in parameters])
    default_mask = parameters_to_vector([m._buffers[n + "_mask"] if n + "_mask" in m._buffers
                                         else _C.ones_like(getattr(m, n))
                                         for m, n in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(f'Only "unstructured" PRUNING_TYPE supported for the '
                        f"`pruning_method`. Found method {pruning_method} of type "
                        f"{method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    with _no_grad():
        final = container.compute_mask(scores.detach(), default_mask.detach())
    start = 0
    for m, n in parameters:
        param = getattr(m, n)
        custom_from_mask(m, n, mask=final[start:start + param.numel()].view_as(param))
        start += param.numel()


@_shared_doc
def custom_from_mask(module: Any, name: str, mask: _C.Tensor) -> Any:
    """Prunes the entries of ``module.<name>`` where mask is 0 (on top of an earlier
    mask).

    Parameters
    ----------
    {module}
    {name}
    mask : Tensor
        The mask, of the parameter's shape.

    {returns_module}

    Raises
    ------
    ValueError
        When mask has another shape than the parameter.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import prune
    >>> m = prune.custom_from_mask(nn.Linear(5, 3), 'bias', pydevtensor.tensor([0, 1, 0]))
    >>> m.bias_mask
    tensor([0., 1., 0.])
    """
    CustomFromMask.apply(module, name, mask)
    return module


@_shared_doc
def remove(module: Any, name: str) -> Any:
    """Makes the pruning of ``module.<name>`` permanent: ``<name>_orig`` (the same
    Parameter object) takes the pruned values and is ``module.<name>`` again, and the
    mask and the hook go.  What was pruned stays zero (only until trained).

    Parameters
    ----------
    {module}
    name : str
        The pruned parameter's name.

    {returns_module}

    Raises
    ------
    ValueError
        When module's name is not pruned.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import prune
    >>> m = prune.random_unstructured(nn.Linear(5, 7), 'weight', amount=0.2)
    >>> m = prune.remove(m, 'weight')
    >>> sorted(m.state_dict()), int((m.weight == 0).sum())
    (['bias', 'weight'], 7)
    """
    found = _pruning_hooks(module, name)
    if not found:
        raise ValueError(f"Parameter '{name}' of module {type(module).__name__} has to be "
                         f"pruned before pruning can be removed")
    key, method = found[0]
    method.remove(module)
    del module.__dict__["_forward_pre_hooks"][key]
    return module


def is_pruned(module: Any) -> bool:
    """Whether module or one of its descendants has a pruning hook.

    Parameters
    ----------
    module : nn.Module
        The module.

    Returns
    -------
    bool

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import prune
    >>> net = nn.Sequential(nn.Linear(5, 7))
    >>> prune.is_pruned(net)
    False
    >>> _ = prune.random_unstructured(net[0], 'weight', amount=0.2)
    >>> prune.is_pruned(net)
    True
    """
    for sub in module.modules():
        table = sub.__dict__.get("_forward_pre_hooks") or {}
        if any(isinstance(hook, BasePruningMethod) for hook in table.values()):
            return True
    return False
