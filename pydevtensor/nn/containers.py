"""Containers that register what they hold: ModuleDict (modules by name), ParameterList
and ParameterDict (parameters by position and by name), as PyTorch's.  Sequential and
ModuleList are in layers.py."""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .. import _C
from .module import Module
from .parameter import Parameter


def _pairs(items: Any, kind: str) -> list[tuple[Any, Any]]:
    """(key, value) pairs of a mapping (a ModuleDict or ParameterDict too) or of an
    iterable of pairs."""
    if isinstance(items, (Mapping, _DictContainer)):
        return list(items.items())
    pairs = []
    for i, item in enumerate(items):
        try:
            key, value = item
        except (TypeError, ValueError):
            raise TypeError(f"{kind}.update: element {i} is a {type(item).__name__}, not a "
                            f"(key, value) pair") from None
        pairs.append((key, value))
    return pairs


def _key(key: Any, kind: str) -> str:
    if not isinstance(key, str):
        raise TypeError(f"{kind}: keys must be str, got {type(key).__name__}")
    if key == "" or "." in key:
        raise KeyError(f"{kind}: a key can be neither empty nor contain '.', got {key!r}")
    return key


class _DictContainer(Module):
    """What ModuleDict and ParameterDict share: members by name, in insertion order,
    kept in _members() (the Module's _modules or _parameters)."""

    _kind = "DictContainer"  # the class's name in messages
    _sorts_plain_mappings = False  # ParameterDict.update takes a plain dict's keys sorted

    def _members(self) -> dict[str, Any]:
        raise NotImplementedError

    def __getitem__(self, key: str) -> Any:
        return self._members()[key]

    def __delitem__(self, key: str) -> None:
        del self._members()[key]

    def __len__(self) -> int:
        return len(self._members())

    def __iter__(self) -> Iterator[str]:
        return iter(self._members())

    def __reversed__(self) -> Iterator[str]:
        return reversed(list(self._members()))

    def __contains__(self, key: object) -> bool:
        return key in self._members()

    def keys(self) -> Iterable[str]:
        """The names, in insertion order.

        Returns
        -------
        iterable of str

        Examples
        --------
        >>> from pydevtensor import nn
        >>> list(nn.ModuleDict({'a': nn.ReLU()}).keys())
        ['a']
        """
        return self._members().keys()

    def values(self) -> Iterable[Any]:
        """The members (modules or parameters), in insertion order.

        Returns
        -------
        iterable of Module or Parameter

        Examples
        --------
        >>> from pydevtensor import nn
        >>> list(nn.ModuleDict({'a': nn.ReLU()}).values())
        [ReLU()]
        """
        return self._members().values()

    def items(self) -> Iterable[tuple[str, Any]]:
        """(name, member) pairs, in insertion order.

        Returns
        -------
        iterable of (str, Module or Parameter)

        Examples
        --------
        >>> from pydevtensor import nn
        >>> [k for k, _ in nn.ParameterDict({'a': pydevtensor.ones(1)}).items()]
        ['a']
        """
        return self._members().items()

    def get(self, key: str, default: Any = None) -> Any:
        """The member under key, or default when there is none (as a dict's get).

        Parameters
        ----------
        key : str
            Its name.
        default : object, optional
            What to give for a missing key (default None).

        Returns
        -------
        Module, Parameter or default

        Examples
        --------
        >>> from pydevtensor import nn
        >>> nn.ParameterDict({'a': pydevtensor.ones(1)}).get('b', 0)
        0
        """
        return self._members().get(key, default)

    def pop(self, key: str) -> Any:
        """Removes the member under key and returns it.

        Parameters
        ----------
        key : str
            Its name.

        Returns
        -------
        Module or Parameter

        Raises
        ------
        KeyError
            When there is no such key.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> d = nn.ModuleDict({'a': nn.ReLU()})
        >>> d.pop('a'), len(d)
        (ReLU(), 0)
        """
        return self._members().pop(key)

    def clear(self) -> None:
        """Removes every member.

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> d = nn.ParameterDict({'a': pydevtensor.ones(1)})
        >>> d.clear()
        >>> len(d)
        0
        """
        self._members().clear()

    def update(self, members: Any) -> None:
        """Adds (or replaces) the members of a mapping or of (name, value) pairs; all
        are checked before any is added.

        Parameters
        ----------
        members : mapping or iterable of (str, value)
            The new members: Modules for a ModuleDict, Parameters or Tensors for a
            ParameterDict (which, as PyTorch's, adds a plain dict's members in sorted
            key order; an OrderedDict's, a ModuleDict's or a ParameterDict's in theirs).

        Returns
        -------
        None

        Raises
        ------
        TypeError
            When a key is not a str, a value of the wrong kind, or an element not a pair.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> d = nn.ModuleDict()
        >>> d.update([('act', nn.Tanh())])
        >>> d['act']
        Tanh()
        """
        pairs = [(_key(k, self._kind), self._checked(k, v))
                 for k, v in _pairs(members, self._kind)]
        if self._sorts_plain_mappings and isinstance(members, Mapping) \
                and not isinstance(members, OrderedDict):
            pairs.sort(key=lambda pair: pair[0])  # PyTorch's ParameterDict sorts a dict's keys
        for key, value in pairs:
            self._add(key, value)

    def __setitem__(self, key: str, value: Any) -> None:
        self._add(_key(key, self._kind), self._checked(key, value))

    # ModuleDict and ParameterDict bind these too, for their pages of the API reference
    _shared = ("keys", "values", "items", "pop", "clear", "update")


class ModuleDict(_DictContainer):
    """Modules by name, each registered (its parameters are the container's, and
    ``.to()``, ``state_dict()`` and ``train()`` reach it); insertion order is kept.  It
    has no forward: the module that holds it calls its members.

    Parameters
    ----------
    modules : mapping or iterable of (str, Module), optional
        The first members.

    Raises
    ------
    TypeError
        When a key is not a str or a value not a Module.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> heads = nn.ModuleDict({'cls': nn.Linear(4, 3), 'reg': nn.Linear(4, 1)})
    >>> list(heads), heads['reg']
    (['cls', 'reg'], Linear(in_features=4, out_features=1, bias=True))
    """

    _kind = "ModuleDict"
    keys, values, items, pop, clear, update = (getattr(_DictContainer, n)
                                               for n in _DictContainer._shared)

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def _members(self) -> dict[str, Any]:
        return self._modules

    def _checked(self, key: Any, module: Any) -> Module:
        if not isinstance(module, Module):
            raise TypeError(f"ModuleDict: expected an nn.Module for key {key!r}, got "
                            f"{type(module).__name__}")
        return module

    def _add(self, key: str, module: Module) -> None:
        self.add_module(key, module)


def _as_parameter(value: Any, kind: str) -> Parameter | None:
    """A Parameter stays itself, a plain Tensor becomes one (sharing its storage), as
    PyTorch's containers do; None reserves the slot."""
    if value is None or isinstance(value, Parameter):
        return value
    if isinstance(value, _C.Tensor):
        return Parameter(value)
    raise TypeError(f"{kind}: expected an nn.Parameter or a Tensor, got {type(value).__name__}")


def _parameters_repr(m: Module) -> str:
    """PyTorch's repr of a ParameterList or ParameterDict: a line per parameter."""
    lines = [_parameter_line(k, p) for k, p in m._parameters.items()]
    name = type(m).__name__
    return f"{name}()" if not lines else f"{name}(\n    " + "\n    ".join(lines) + "\n)"


def _parameter_line(key: str, p: Any) -> str:
    if p is None:
        return f"({key}): None"
    where = "" if p.device.type == "cpu" else f" ({p.device})"
    size = "x".join(str(s) for s in p.shape)
    return f"({key}): Parameter containing: [{p.dtype} of size {size}{where}]"


class ParameterList(Module):
    """Parameters by position, each registered under "0", "1", ... (the container's
    ``parameters()``, ``state_dict()`` and ``.to()`` reach them).  A plain Tensor added
    becomes a Parameter.

    Parameters
    ----------
    values : iterable of Parameter or Tensor, optional
        The first members.

    Raises
    ------
    TypeError
        When a member is neither a Parameter nor a Tensor.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> ps = nn.ParameterList([nn.Parameter(pydevtensor.ones(2)), pydevtensor.zeros(3)])
    >>> len(ps), [tuple(p.shape) for p in ps.parameters()]
    (2, [(2,), (3,)])
    """

    def __init__(self, values: Any = None) -> None:
        super().__init__()
        if values is not None:
            self.extend(values)

    def _position(self, i: int) -> int:
        n = len(self._parameters)
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of range for a ParameterList of {n}")
        return i % n

    def __getitem__(self, idx: Any) -> Any:
        members = list(self._parameters.values())
        if isinstance(idx, slice):
            return ParameterList(members[idx])
        return members[self._position(operator.index(idx))]

    def __setitem__(self, idx: int, value: Any) -> None:
        self.register_parameter(str(self._position(operator.index(idx))),
                                _as_parameter(value, "ParameterList"))

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[Parameter]:
        return iter(self._parameters.values())

    def append(self, value: Any) -> ParameterList:
        """Adds value at the end.

        Parameters
        ----------
        value : Parameter or Tensor
            The new member (a Tensor becomes a Parameter).

        Returns
        -------
        ParameterList
            self.

        Raises
        ------
        TypeError
            When value is neither a Parameter nor a Tensor.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> len(nn.ParameterList().append(pydevtensor.ones(2)))
        1
        """
        self.register_parameter(str(len(self)), _as_parameter(value, "ParameterList"))
        return self

    def extend(self, values: Any) -> ParameterList:
        """Adds each of values at the end, in order (all are checked first).

        Parameters
        ----------
        values : iterable of Parameter or Tensor
            The new members.

        Returns
        -------
        ParameterList
            self.

        Raises
        ------
        TypeError
            When a value is neither a Parameter nor a Tensor.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> len(nn.ParameterList().extend([pydevtensor.ones(2), pydevtensor.ones(1)]))
        2
        """
        for p in [_as_parameter(v, "ParameterList") for v in values]:
            self.register_parameter(str(len(self)), p)
        return self

    def __iadd__(self, values: Any) -> ParameterList:
        return self.extend(values)

    def __repr__(self) -> str:
        return _parameters_repr(self)


class ParameterDict(_DictContainer):
    """Parameters by name, each registered (the container's ``parameters()``,
    ``state_dict()`` and ``.to()`` reach them); insertion order is kept, except that the
    members of a plain (not ordered) mapping are added in sorted key order, as
    PyTorch's.  A plain Tensor added becomes a Parameter.  ``a | b`` is a new
    ParameterDict with b's members added to a's, ``a |= b`` updates a.

    Parameters
    ----------
    parameters : mapping or iterable of (str, Parameter or Tensor), optional
        The first members.

    Raises
    ------
    TypeError
        When a key is not a str or a value neither a Parameter nor a Tensor.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> pd = nn.ParameterDict({'scale': pydevtensor.ones(2)})
    >>> list(pd), type(pd['scale']).__name__
    (['scale'], 'Parameter')
    """

    _kind = "ParameterDict"
    _sorts_plain_mappings = True
    keys, values, items, pop, clear, update = (getattr(_DictContainer, n)
                                               for n in _DictContainer._shared)

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def _members(self) -> dict[str, Any]:
        return self._parameters

    def _checked(self, key: Any, value: Any) -> Parameter | None:
        return _as_parameter(value, "ParameterDict")

    def _add(self, key: str, p: Parameter | None) -> None:
        self.register_parameter(key, p)

    def setdefault(self, key: str, default: Any = None) -> Any:
        """The parameter under key, adding default there first when there is none.

        Parameters
        ----------
        key : str
            Its name.
        default : Parameter or Tensor, optional
            Added (as a Parameter) when key is missing (default None).

        Returns
        -------
        Parameter or None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> pd = nn.ParameterDict()
        >>> pd.setdefault('b', pydevtensor.zeros(1)) is pd['b']
        True
        """
        if key not in self:
            self[key] = default
        return self[key]

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same Parameter objects (a shallow copy).

        Returns
        -------
        ParameterDict

        Examples
        --------
        >>> from pydevtensor import nn
        >>> pd = nn.ParameterDict({'a': pydevtensor.ones(1)})
        >>> pd.copy()['a'] is pd['a']
        True
        """
        return ParameterDict(OrderedDict(self.items()))

    def popitem(self) -> tuple[str, Parameter | None]:
        """Removes the last member added and returns it with its name.

        Returns
        -------
        (str, Parameter or None)

        Raises
        ------
        KeyError
            When the ParameterDict is empty.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> pd = nn.ParameterDict([('a', pydevtensor.ones(1)), ('b', pydevtensor.ones(2))])
        >>> pd.popitem()[0], list(pd)
        ('b', ['a'])
        """
        if not self._parameters:
            raise KeyError("popitem(): dictionary is empty")
        return self._parameters.popitem()

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        """A new ParameterDict with each of keys holding default (a Tensor becomes a
        Parameter for each key, all sharing its storage).

        Parameters
        ----------
        keys : iterable of str
            The names.
        default : Parameter, Tensor or None, optional
            The value of each (default None).

        Returns
        -------
        ParameterDict

        Raises
        ------
        TypeError
            When a key is not a str or default neither a Parameter, a Tensor nor None.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> list(nn.ParameterDict().fromkeys(['w', 'b'], pydevtensor.zeros(2)))
        ['w', 'b']
        """
        return ParameterDict([(k, default) for k in keys])

    def __or__(self, other: Any) -> ParameterDict:
        out = self.copy()
        out.update(other)
        return out

    def __ror__(self, other: Any) -> Any:
        if not isinstance(other, Mapping):
            return NotImplemented
        out = other.copy()  # a dict stays a dict, as with PyTorch's ParameterDict
        out.update(self.items())
        return out

    def __ior__(self, other: Any) -> ParameterDict:
        self.update(other)
        return self

    def __repr__(self) -> str:
        return _parameters_repr(self)
