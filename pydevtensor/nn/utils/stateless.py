"""functional_call: a module run with other tensors in place of its parameters and
buffers, as ``torch.func.functional_call`` (and the older
``torch.nn.utils.stateless.functional_call``): the tensors given by name (``'0.weight'``,
as state_dict names them) stand in for the module's own during the call only, so a
gradient flows to them (meta-learning's inner steps, per-sample parameters) and the
module is left as it was, also when the call raises.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import _C
from ..module import Module

__all__ = ["functional_call"]


def _owner(module: Module, name: str) -> tuple[Module, str]:
    """The submodule holding the dotted name's last part, and that part."""
    *path, leaf = name.split(".")
    m = module
    for part in path:
        child = m._modules.get(part)
        if child is None:
            raise AttributeError(f"functional_call(): {type(module).__name__} has no "
                                 f"submodule '{'.'.join(path)}' (for '{name}')")
        m = child
    return m, leaf


def functional_call(module: Module, parameter_and_buffer_dicts: Any, args: Any = None,
                    kwargs: Mapping[str, Any] | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with the given tensors in place of its parameters and
    buffers of those names, as PyTorch's ``torch.func.functional_call``.

    Parameters
    ----------
    module : nn.Module
        The module to run (unchanged afterwards).
    parameter_and_buffer_dicts : dict of str to Tensor, or a sequence of such dicts
        The tensors, by state_dict name; several dicts must not share a name.  A
        parametrized tensor's name (``'weight'`` under nn.utils.parametrize) is
        assigned for the call through its right_inverse and assigned back after it, as
        PyTorch's.
    args : Tensor or tuple, optional
        The positional arguments (a single one needs no tuple).
    kwargs : dict, optional
        The keyword arguments.
    tie_weights : bool, optional
        A parameter the module holds under several names (tied weights) is replaced
        under all of them when one is given (default True, as PyTorch's).
    strict : bool, optional
        Require a tensor for every parameter and buffer (default False).

    Returns
    -------
    Any
        What the module returns.

    Raises
    ------
    ValueError
        When the dicts share a name.
    RuntimeError
        With strict, when a name is missing or unexpected (an InvalidArgumentError, also
        a ValueError), as PyTorch's RuntimeError.
    AttributeError
        When a name does not lead to a submodule.
    TypeError
        When a value is not a Tensor.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.func import functional_call
    >>> lin = nn.Linear(2, 1, bias=False)
    >>> w = pydevtensor.ones(1, 2, requires_grad=True)
    >>> y = functional_call(lin, {'weight': w}, (pydevtensor.tensor([[1., 2.]]),))
    >>> y.backward(); w.grad
    tensor([[1., 2.]])
    """
    dicts = ([parameter_and_buffer_dicts] if isinstance(parameter_and_buffer_dicts, Mapping)
             else list(parameter_and_buffer_dicts))
    given: dict[str, Any] = {}
    for d in dicts:
        for k, v in d.items():
            if k in given:
                raise ValueError(f"functional_call(): {k!r} appeared in multiple dictionaries; "
                                 f"behavior of functional call is ambiguous")
            if not isinstance(v, _C.Tensor):
                raise TypeError(f"functional_call(): the value for {k!r} must be a Tensor, "
                                f"got {type(v).__name__}")
            given[k] = v
    names = {n for n, _ in module.named_parameters(remove_duplicate=False)}
    names |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
    if tie_weights:  # every name of a tied tensor takes the tensor given for one of them
        by_id: dict[int, list[str]] = {}
        for n, t in list(module.named_parameters(remove_duplicate=False)) + list(
                module.named_buffers(remove_duplicate=False)):
            by_id.setdefault(id(t), []).append(n)
        for group in by_id.values():
            chosen = [n for n in group if n in given]
            if len(chosen) > 1 and any(given[n] is not given[chosen[0]] for n in chosen):
                raise ValueError(f"functional_call(): {chosen} are tied in the module but "
                                 f"were given different tensors")
            if chosen:
                for n in group:
                    given.setdefault(n, given[chosen[0]])
    if strict:
        missing = sorted(names - set(given))
        unexpected = sorted(set(given) - names)
        if missing or unexpected:  # PyTorch's RuntimeError (also a ValueError here)
            raise _C.InvalidArgumentError(
                f"functional_call(): Error(s) in reparametrizing for {type(module).__name__} "
                f"with strict=True: missing keys {missing} and unexpected keys {unexpected}")
    swaps = []  # (table, key, old value), undone in reverse order
    try:
        for name, value in given.items():
            owner, leaf = _owner(module, name)
            for table in (owner._parameters, owner._buffers):
                if leaf in table:
                    swaps.append((table, leaf, table[leaf]))
                    table[leaf] = value
                    break
            else:
                if isinstance(getattr(type(owner), leaf, None), property):
                    # a parametrized tensor: assigned (through right_inverse) and
                    # assigned back afterwards, as PyTorch's setattr
                    table, old = _Assigned(owner), getattr(owner, leaf)
                    table[leaf] = value  # may raise (no right_inverse): nothing to undo
                    swaps.append((table, leaf, old))
                    continue
                swaps.append((owner.__dict__, leaf, owner.__dict__.get(leaf, _ABSENT)))
                owner.__dict__[leaf] = value  # a name the module does not have (strict off)
        if args is None:
            args = ()
        elif not isinstance(args, tuple):
            args = (args,)
        return module(*args, **(kwargs or {}))
    finally:
        for table, key, old in reversed(swaps):
            if old is _ABSENT:
                table.pop(key, None)
            else:
                table[key] = old


_ABSENT = object()


class _Assigned:
    """owner's attributes set with setattr (its properties run), as a swap's table."""

    def __init__(self, owner: Module):
        self.owner = owner

    def __setitem__(self, name: str, value: Any) -> None:
        setattr(self.owner, name, value)
