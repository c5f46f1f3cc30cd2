"""Containers that register what they hold: ModuleDict (modules by name), ParameterList
and ParameterDict (parameters by position and by name), as PyTorch's.  Sequential and
ModuleList are in layers.py."""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
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
            item = tuple(item)
        except TypeError:
            raise TypeError(f"{kind}.update: element {i} is a {type(item).__name__}, not a "
                            f"(key, value) pair") from None
        if len(item) != 2:  # PyTorch's ValueError, as dict.update's
            raise ValueError(f"{kind}.update: element {i} has length {len(item)}; 2 is "
                             f"required for a (key, value) pair")
        pairs.append(item)
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
            When a key is not a str, a value of the wrong kind, or an element not
            iterable.
        ValueError
            When an element's length is not 2 (PyTorch's).

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


class _ParameterMembers(MutableMapping):
    """A ParameterList's or ParameterDict's members, in order, as PyTorch's containers
    take them: a Tensor is registered as a Parameter (in the module's _parameters: its
    parameters(), state_dict() and .to() reach it), any other value (an int, a string,
    None) is kept as it is, in the module's _plain (PyTorch keeps it as an attribute,
    where a key such as 'training' would replace the module's own); _keys holds the
    order."""

    def __init__(self, module: Module, kind: str) -> None:
        self.d, self.kind = module.__dict__, kind
        self.module = module

    def __getitem__(self, key: str) -> Any:
        if key not in self.d["_keys"]:
            raise KeyError(key)
        plain = self.d["_plain"]
        return plain[key] if key in plain else self.d["_parameters"][key]

    def checked(self, key: str, value: Any) -> Any:
        """value as it is stored under key: a Tensor as a Parameter (sharing its
        storage); TypeError for a value that is neither a Tensor nor None where a
        Parameter is (PyTorch's rule for a module's parameter)."""
        if isinstance(value, _C.Tensor):
            return value if isinstance(value, Parameter) else Parameter(value)
        if value is not None and key in self.d["_parameters"]:
            raise TypeError(f"{self.kind}: cannot assign {type(value).__name__} to parameter "
                            f"'{key}' (expected nn.Parameter, a Tensor or None)")
        return value

    def __setitem__(self, key: str, value: Any) -> None:
        value = self.checked(key, value)
        if isinstance(value, Parameter) or key in self.d["_parameters"]:
            self.d["_plain"].pop(key, None)
            self.module.register_parameter(key, value)
        else:
            self.d["_plain"][key] = value
        self.d["_keys"][key] = None

    def __delitem__(self, key: str) -> None:
        del self.d["_keys"][key]
        self.d["_plain"].pop(key, None)
        self.d["_parameters"].pop(key, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self.d["_keys"])

    def __len__(self) -> int:
        return len(self.d["_keys"])


def _init_members(m: Module) -> None:
    object.__setattr__(m, "_keys", OrderedDict())
    object.__setattr__(m, "_plain", {})


def _set_members_state(m: Module, state: dict) -> None:
    """Module.__setstate__, with the order and plain values of a container pickled
    before they existed (its members all in _parameters)."""
    state.setdefault("_plain", {})
    state.setdefault("_keys", OrderedDict.fromkeys(state.get("_parameters", ())))
    Module.__setstate__(m, state)


def _parameters_repr(m: Module) -> str:
    """PyTorch's repr of a ParameterList or ParameterDict: a line per member."""
    lines = [_parameter_line(k, p) for k, p in m._members().items()]
    name = type(m).__name__
    return f"{name}()" if not lines else f"{name}(\n    " + "\n    ".join(lines) + "\n)"


def _parameter_line(key: str, p: Any) -> str:
    if not isinstance(p, _C.Tensor):
        return f"({key}): Object of type: {type(p).__name__}"
    where = "" if p.device.type == "cpu" else f" ({p.device})"
    size = "x".join(str(s) for s in p.shape)
    return f"({key}): Parameter containing: [{p.dtype} of size {size}{where}]"


class ParameterList(Module):
    """Parameters by position, each registered under "0", "1", ... (the container's
    ``parameters()``, ``state_dict()`` and ``.to()`` reach them).  A plain Tensor added
    becomes a Parameter; any other value (an int, a string, None) is kept as it is, as
    PyTorch's (not a parameter: not in ``parameters()`` nor in ``state_dict()``).

    Parameters
    ----------
    values : iterable, optional
        The first members.

    Raises
    ------
    TypeError
        When values is not iterable, or is a Tensor (as PyTorch's).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> ps = nn.ParameterList([nn.Parameter(pydevtensor.ones(2)), pydevtensor.zeros(3)])
    >>> len(ps), [tuple(p.shape) for p in ps.parameters()]
    (2, [(2,), (3,)])
    """

    def __init__(self, values: Any = None) -> None:
        super().__init__()
        _init_members(self)
        if values is not None:
            self.extend(values)

    __setstate__ = _set_members_state

    def _members(self) -> _ParameterMembers:
        return _ParameterMembers(self, "ParameterList")

    def _position(self, i: int) -> int:
        n = len(self._keys)
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of range for a ParameterList of {n}")
        return i % n

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return ParameterList(list(self)[idx])
        return self._members()[str(self._position(operator.index(idx)))]

    def __setitem__(self, idx: int, value: Any) -> None:
        self._members()[str(self._position(operator.index(idx)))] = value

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._members().values())

    def append(self, value: Any) -> ParameterList:
        """Adds value at the end.

        Parameters
        ----------
        value : Parameter, Tensor or any value
            The new member (a Tensor becomes a Parameter, another value is kept as it
            is).

        Returns
        -------
        ParameterList
            self.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> len(nn.ParameterList().append(pydevtensor.ones(2)))
        1
        """
        self._members()[str(len(self))] = value
        return self

    def extend(self, values: Any) -> ParameterList:
        """Adds each of values at the end, in order (all are checked first).

        Parameters
        ----------
        values : iterable
            The new members (Tensors become Parameters).

        Returns
        -------
        ParameterList
            self.

        Raises
        ------
        TypeError
            When values is not iterable, or is a Tensor (as PyTorch's: iterating it
            would add its rows).

        Examples
        --------
        >>> from pydevtensor import nn
        >>> len(nn.ParameterList().extend([pydevtensor.ones(2), pydevtensor.ones(1)]))
        2
        """
        if not isinstance(values, Iterable) or isinstance(values, _C.Tensor):
            raise TypeError(f"ParameterList.extend should be called with an iterable, but "
                            f"got {type(values).__name__}")
        members = self._members()
        for v in [members.checked(str(len(self) + i), v) for i, v in enumerate(values)]:
            members[str(len(self))] = v
        return self

    def __iadd__(self, values: Any) -> ParameterList:
        return self.extend(values)

    def __repr__(self) -> str:
        return _parameters_repr(self)


class ParameterDict(_DictContainer):
    """Parameters by name, each registered (the container's ``parameters()``,
    ``state_dict()`` and ``.to()`` reach them); insertion order is kept, except that the
    members of a plain (not ordered) mapping are added in sorted key order, as
    PyTorch's.  A plain Tensor added becomes a Parameter; any other value (an int, a
    string, None) is kept as it is, as PyTorch's (not a parameter: not in
    ``parameters()`` nor in ``state_dict()``).  ``a | b`` is a new ParameterDict with b's
    members added to a's, ``a |= b`` updates a.

    Parameters
    ----------
    parameters : mapping or iterable of (str, value), optional
        The first members.

    Raises
    ------
    TypeError
        When a key is not a str, or a value neither a Tensor nor None where a
        Parameter is.

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
        _init_members(self)
        if parameters is not None:
            self.update(parameters)

    __setstate__ = _set_members_state

    def _members(self) -> _ParameterMembers:
        return _ParameterMembers(self, "ParameterDict")

    def _checked(self, key: Any, value: Any) -> Any:
        return self._members().checked(key, value)

    def _add(self, key: str, value: Any) -> None:
        self._members()[key] = value

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
        if not self._keys:
            raise KeyError("popitem(): dictionary is empty")
        key = next(reversed(self._keys))
        return key, self._members().pop(key)

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
