"""nn.Module's walks over its tree (a mixin of nn.Module, in a file of its own):
named_children / children, named_modules / modules, named_parameters / parameters and
named_buffers / buffers, in registration order, each object once unless
remove_duplicate=False, as PyTorch's."""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._C import Tensor
    from .module import Module
    from .parameter import Parameter


def _named_entries(module, table, prefix, recurse, remove_duplicate):
    """The (dotted name, value) pairs of the modules' table ("_parameters" or
    "_buffers"), in registration order: named_parameters' and named_buffers' body."""
    seen = set()
    mods = module.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
        if recurse else [(prefix, module)]
    for mname, m in mods:
        for name, v in getattr(m, table).items():
            if v is None or (remove_duplicate and id(v) in seen):
                continue
            seen.add(id(v))
            yield (f"{mname}.{name}" if mname else name), v


class _IteratorsMixin:
    """nn.Module's walks over its children, modules, parameters and buffers."""

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The direct children with their names.

        Returns
        -------
        iterator of (str, Module)

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> [name for name, _ in net.named_children()]
        ['0', '1', '2']
        """
        seen = set()  # a module under two names is one child, as PyTorch's
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self) -> Iterator[Module]:
        """The direct children.

        Returns
        -------
        iterator of Module

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> [type(m).__name__ for m in net.children()]
        ['Linear', 'ReLU', 'Linear']
        """
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """This module and every descendant, with their dotted names ('' for this one).

        Parameters
        ----------
        memo : set, optional
            Modules to leave out (ids are not used: the modules themselves), filled
            with those given, as PyTorch's.
        prefix : str, optional
            Put before every name.
        remove_duplicate : bool, optional
            Give a module held under several names once (default True).

        Returns
        -------
        iterator of (str, Module)

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> [name for name, _ in net.named_modules()]
        ['', '0', '1', '2']
        """
        if isinstance(memo, str):  # named_modules('prefix'): an old positional prefix
            memo, prefix = None, memo
        seen = {id(m) for m in memo} if memo is not None else set()
        stack = [(prefix, self, frozenset())]
        while stack:
            name, m, above = stack.pop(0)
            if remove_duplicate and id(m) in seen:
                continue
            seen.add(id(m))
            if memo is not None and remove_duplicate:
                memo.add(m)
            yield name, m
            inner = above | {id(m)}  # a module inside itself would never end
            stack[0:0] = [(f"{name}.{n}" if name else n, c, inner)
                          for n, c in m._modules.items()  # every name: remove_duplicate
                          if c is not None and id(c) not in inner]

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        """This module and every descendant.

        Parameters
        ----------
        remove_duplicate : bool, optional
            Give a module held in several places once (default True), as
            named_modules.

        Returns
        -------
        iterator of Module

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> len(list(net.modules()))
        4
        >>> shared = nn.Tanh()
        >>> len(list(nn.Sequential(shared, shared).modules(remove_duplicate=False)))
        3
        """
        for _, m in self.named_modules(remove_duplicate=remove_duplicate):
            yield m

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """The parameters with their dotted names, in registration order.

        Parameters
        ----------
        prefix : str, optional
            Put before every name.
        recurse : bool, optional
            Include the children's (default True).
        remove_duplicate : bool, optional
            Give a parameter held under several names (tied weights) once (default
            True); False gives it under each name.

        Returns
        -------
        iterator of (str, nn.Parameter)

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> [name for name, _ in net.named_parameters()]
        ['0.weight', '0.bias', '2.weight', '2.bias']
        """
        return _named_entries(self, "_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters, in registration order (what an optimizer takes).

        Parameters
        ----------
        recurse : bool, optional
            Include the children's (default True).

        Returns
        -------
        iterator of nn.Parameter

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> [tuple(p.shape) for p in net.parameters()]
        [(3, 2), (3,), (1, 3), (1,)]
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """The buffers (persistent or not) with their dotted names, in registration order.

        Parameters
        ----------
        prefix : str, optional
            Put before every name.
        recurse : bool, optional
            Include the children's (default True).
        remove_duplicate : bool, optional
            Give a buffer held under several names once (default True).

        Returns
        -------
        iterator of (str, Tensor)

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
        >>> [name for name, _ in net.named_buffers()]
        ['1.running_mean', '1.running_var', '1.num_batches_tracked']
        """
        return _named_entries(self, "_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The buffers (persistent or not), in registration order.

        Parameters
        ----------
        recurse : bool, optional
            Include the children's (default True).

        Returns
        -------
        iterator of Tensor

        Examples
        --------
        >>> from pydevtensor import nn
        >>> [tuple(b.shape) for b in nn.BatchNorm1d(3).buffers()]
        [(3,), (3,), ()]
        """
        for _, b in self.named_buffers(recurse=recurse):
            yield b
