"""Editing Sequential and ModuleList in place, as PyTorch's containers allow: extend,
insert, pop, ``del seq[i]`` and ``del seq[i:j]``, ``a + b`` and ``a += b`` (a mixin of
their shared base in layers.py, in a file of its own).  After a removal the members
are numbered again from "0", as PyTorch does."""
from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Any, TypeVar

_S = TypeVar("_S", bound="_SequenceEditsMixin")


class _SequenceEditsMixin:
    """Sequential's and ModuleList's edits (self is a _ModuleSequence)."""

    def _renumber(self, members: list) -> None:
        self._modules.clear()
        for i, m in enumerate(members):
            self.add_module(str(i), m)

    def extend(self: _S, modules: Any) -> _S:
        """Adds each of modules at the end, in order.

        Parameters
        ----------
        modules : iterable of Module
            The new members (a Sequential, a ModuleList or a list).

        Returns
        -------
        Sequential or ModuleList
            self.

        Raises
        ------
        TypeError
            When a member is not a Module (nothing is added).

        Examples
        --------
        >>> from pydevtensor import nn
        >>> len(nn.Sequential(nn.ReLU()).extend([nn.Tanh(), nn.ReLU()]))
        3
        """
        new = [self._member(m, "extend") for m in modules]
        for m in new:
            self.add_module(str(len(self._modules)), m)
        return self

    def insert(self: _S, index: int, module: Any) -> _S:
        """Puts module before position index (as list.insert).

        Parameters
        ----------
        index : int
            Where, from -len to len (negative: from the end).
        module : Module
            The new member.

        Returns
        -------
        Sequential
            self.

        Raises
        ------
        IndexError
            When index is out of range.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> nn.Sequential(nn.ReLU()).insert(0, nn.Tanh())[0]
        Tanh()
        """
        members = list(self._modules.values())
        n = len(members)
        index = operator.index(index)
        if not -n <= index <= n:
            raise IndexError(f"{self._kind}.insert: index {index} is out of range for a "
                             f"{self._kind} of {n}")
        members.insert(index + n if index < 0 else index, self._member(module, "insert"))
        self._renumber(members)
        return self

    def pop(self, index: int | slice = -1) -> Any:
        """Removes the member at index and returns it, or the members of a slice, as a
        container of the same kind.

        Parameters
        ----------
        index : int or slice, optional
            Which (default the last).

        Returns
        -------
        Module, or Sequential or ModuleList for a slice

        Examples
        --------
        >>> from pydevtensor import nn
        >>> seq = nn.Sequential(nn.ReLU(), nn.Tanh())
        >>> seq.pop(0), len(seq)
        (ReLU(), 1)
        >>> len(nn.ModuleList([nn.ReLU(), nn.Tanh()]).pop(slice(0, 2)))
        2
        """
        if isinstance(index, slice):
            popped = self[index]
            del self[index]
            return popped
        members = list(self._modules.values())
        m = members.pop(self._position(operator.index(index)))
        self._renumber(members)
        return m

    def __delitem__(self, idx: Any) -> None:
        members = list(self._modules.values())
        if isinstance(idx, slice):
            del members[idx]
        else:
            del members[self._position(operator.index(idx))]
        self._renumber(members)

    _adds_any_iterable = False  # ModuleList + any iterable of modules; Sequential + Sequential

    def __add__(self, other: Any) -> Any:
        if not self._adds_any_iterable:
            _check_sequential(other)
        elif not isinstance(other, Iterable):
            return NotImplemented
        out = type(self)()
        for m in list(self) + [self._member(m, "__add__") for m in other]:
            out.add_module(str(len(out._modules)), m)
        return out

    def __iadd__(self: _S, other: Any) -> _S:
        if not self._adds_any_iterable:
            _check_sequential(other)
        return self.extend(other)


def _check_sequential(other: Any) -> None:
    """PyTorch's Sequential + and += take a Sequential only (ValueError)."""
    from .layers import Sequential
    if not isinstance(other, Sequential):
        raise ValueError(f"add operator supports only objects of Sequential class, but "
                         f"{type(other)} is given.")
