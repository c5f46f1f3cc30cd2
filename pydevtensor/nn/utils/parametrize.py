"""Parametrizations as ``torch.nn.utils.parametrize``: ``module.weight`` computed by a
module from tensors kept in ``module.parametrizations.weight`` (its ``original``, or
``original0``, ``original1``, ... when the first parametrization's right_inverse returns
several), so that an optimizer trains those.

As in PyTorch, registering the first parametrization changes the module's class into a
subclass of it made for that module (``ParametrizedLinear`` for a Linear) holding a
property for each parametrized name; removing the last one restores the class.  The
state dict holds ``parametrizations.weight.original`` (PyTorch's keys).

Setting ``module.weight = value`` runs the right_inverse of the parametrizations (last
first) and copies the result into the originals.  PyTorch's ``set_`` makes an original
share the memory of what right_inverse returned (the very tensor assigned, for an
identity right_inverse); here the values are copied, so that writing into the tensor
one assigned cannot change the parameter.  An original whose shape changes (unsafe
parametrizations) is given new memory, the same Parameter object kept.
"""
from __future__ import annotations

import collections.abc
import copy
from contextlib import contextmanager
from typing import Any, Iterator

from ... import _C
from ...autograd.grad_mode import no_grad
from ..containers import ModuleDict
from ..layers import ModuleList
from ..module import Module
from ..parameter import Parameter

__all__ = ["ParametrizationList", "cached", "is_parametrized", "register_parametrization",
           "remove_parametrizations", "transfer_parametrizations_and_params",
           "type_before_parametrizations"]

_cache_depth = 0
_cache: dict[tuple[int, str], _C.Tensor] = {}


@contextmanager
def cached() -> Iterator[None]:
    """A context in which each parametrized tensor is computed once, the first time it
    is read, and then reused (a weight used several times in a forward pass); the
    values are dropped when the outermost such context exits.

    Returns
    -------
    context manager

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import parametrize as P
    >>> class Double(nn.Module):
    ...     def forward(self, x):
    ...         return 2 * x
    >>> m = P.register_parametrization(nn.Linear(2, 2), "weight", Double())
    >>> with P.cached():
    ...     m.weight is m.weight
    True
    >>> m.weight is m.weight
    False
    """
    global _cache_depth, _cache
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if not _cache_depth:
            _cache = {}


def _register(module: Module, name: str, x: _C.Tensor) -> None:
    if isinstance(x, Parameter):
        module.register_parameter(name, x)
    else:
        module.register_buffer(name, x)


def _assign(dest: _C.Tensor, src: _C.Tensor) -> None:
    """dest takes src's values (a copy; new memory when the shape, dtype or device
    differs), dest remaining the same object."""
    with no_grad():
        src = src.detach().clone()
        if (tuple(dest.shape), dest.dtype, dest.device) == (tuple(src.shape), src.dtype,
                                                            src.device):
            dest.copy_(src)
        else:
            dest.data = src


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor of a module and the tensors they start from:
    ``module.parametrizations[name]``, made by :func:`register_parametrization`
    (PyTorch's class of that name; not made by users).

    Parameters
    ----------
    modules : sequence of Module
        The parametrizations, applied in order (at least one).
    original : Tensor
        The tensor parametrized (a Parameter or a buffer); it becomes ``original``
        after the first right_inverse, or ``original0``, ... when that returns a
        sequence.
    unsafe : bool, optional
        Allow the parametrization to change the shape and dtype (not checked).

    Returns
    -------
    ParametrizationList

    Raises
    ------
    ValueError
        When a right_inverse returns something other than tensors or changes the
        dtype or device of a single tensor, or (without unsafe) the parametrized
        tensor's shape or dtype differs from original's.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import parametrize as P
    >>> class Double(nn.Module):
    ...     def forward(self, x):
    ...         return 2 * x
    >>> plist = P.ParametrizationList([Double()], nn.Parameter(pydevtensor.ones(2)))
    >>> plist()
    tensor([2., 2.], grad_fn=<MulBackward0>)
    """

    def __init__(self, modules: Any, original: _C.Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = tuple(original.shape), original.dtype
        new = original
        with no_grad():
            for m in reversed(list(self)):
                if hasattr(m, "right_inverse"):
                    try:
                        new = m.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (_C.Tensor, collections.abc.Sequence)):
            raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, _C.Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            for what in ("dtype", "device"):
                if getattr(new, what) != getattr(original, what):
                    raise ValueError(f"When `right_inverse` outputs one tensor, it may not "
                                     f"change the {what}.\noriginal.{what}: "
                                     f"{getattr(original, what)}\nright_inverse(original)."
                                     f"{what}: {getattr(new, what)}")
            if new is not original:
                _assign(original, new)
            _register(self, "original", original)
        else:
            for i, x in enumerate(new):
                if not isinstance(x, _C.Tensor):
                    raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of "
                                     f"tensors (list, tuple...). Got element {i} of the "
                                     f"sequence with type {type(x).__name__}.")
                x = x.detach().clone()
                x = Parameter(x, original.requires_grad) if isinstance(original, Parameter) \
                    else x.requires_grad_(original.requires_grad)
                _register(self, f"original{i}", x)
        if not unsafe:
            z = self()
            if not isinstance(z, _C.Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(z).__name__}.")
            if z.dtype != dtype:
                raise ValueError(f"Registering a parametrization may not change the dtype of "
                                 f"the tensor, unless `unsafe` flag is enabled.\nunparametrized "
                                 f"dtype: {dtype}\nparametrized dtype: {z.dtype}")
            if tuple(z.shape) != shape:
                raise ValueError(f"Registering a parametrization may not change the shape of "
                                 f"the tensor, unless `unsafe` flag is enabled.\nunparametrized "
                                 f"shape: {shape}\nparametrized shape: {tuple(z.shape)}")

    def right_inverse(self, value: _C.Tensor) -> None:
        """Runs the parametrizations' right_inverse, last first, on value and copies the
        result into ``original`` (or ``original0``, ...).

        Parameters
        ----------
        value : Tensor
            What the parametrized tensor should become.

        Returns
        -------
        None

        Raises
        ------
        RuntimeError
            When a parametrization has no right_inverse.
        ValueError
            When the result's kind, count or dtypes do not match the originals.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> from pydevtensor.nn.utils import parametrize as P
        >>> class Double(nn.Module):
        ...     def forward(self, x):
        ...         return 2 * x
        ...     def right_inverse(self, y):
        ...         return y / 2
        >>> m = P.register_parametrization(nn.Linear(2, 1), "weight", Double())
        >>> m.weight = pydevtensor.tensor([[4., 6.]])
        >>> m.parametrizations.weight.original
        Parameter containing:
        tensor([[2., 3.]], requires_grad=True)
        """
        with no_grad():
            for m in reversed(list(self)):
                if not hasattr(m, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(m).__name__} does not implement "
                                       f"right_inverse.")
                value = m.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, _C.Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _assign(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got "
                                 f"{type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError(f"'right_inverse' must return a sequence of tensors of length "
                                 f"{self.ntensors}. Got a sequence of length {len(value)}.")
            for i, x in enumerate(value):
                orig = getattr(self, f"original{i}")
                if not isinstance(x, _C.Tensor):
                    raise ValueError(f"'right_inverse' must return a sequence of tensors. Got "
                                     f"element {i} of type {type(x).__name__}.")
                if x.dtype != orig.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                     f"{x.dtype} while `original{i}` has dtype {orig.dtype}")
                _assign(orig, x)

    def forward(self) -> _C.Tensor:
        """The parametrized tensor: the parametrizations applied in order to the
        originals.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor import nn
        >>> from pydevtensor.nn.utils import parametrize as P
        >>> P.ParametrizationList([nn.Identity()], pydevtensor.ones(1)).forward()
        tensor([1.])
        """
        mods = list(self)
        if self.is_tensor:
            x = mods[0](self.original)
        else:
            x = mods[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for m in mods[1:]:
            x = m(x)
        return x


def _refuse_pickle(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through "
                       "state_dict().")


def _deepcopy(self, memo):
    """A copy of the module (its class, the one made for the original, kept)."""
    if id(self) in memo:
        return memo[id(self)]
    replica = self.__new__(type(self))
    memo[id(self)] = replica
    object.__setattr__(replica, "__dict__", copy.deepcopy(self.__dict__, memo))
    return replica


def _parametrized_class(module: Module) -> None:
    """Gives module a class of its own, a subclass of its class, to hold the properties."""
    cls = type(module)
    body: dict[str, Any] = {"__getstate__": _refuse_pickle}
    if not hasattr(cls, "__deepcopy__"):
        body["__deepcopy__"] = _deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), body)


def _add_property(module: Module, name: str) -> None:
    def get(self):
        plist = self.parametrizations[name]
        if not _cache_depth:
            return plist()
        key = (id(self), name)
        if key not in _cache:
            _cache[key] = plist()
        return _cache[key]

    def put(self, value):
        self.parametrizations[name].right_inverse(value)
    setattr(type(module), name, property(get, put))


def _check_same(kind: str, name: str, what: str, y: _C.Tensor, x: _C.Tensor) -> None:
    for attr, a, b in (("dtype", y.dtype, x.dtype), ("shape", tuple(y.shape), tuple(x.shape))):
        if a != b:
            raise ValueError(f"{kind} may not change the {attr} of the tensor, unless the "
                             f"`unsafe` flag is enabled.\nmodule.{name}.{attr}: {a}\n"
                             f"{what}.{attr}: {b}")


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Makes ``module.<tensor_name>`` the output of parametrization applied to the tensor
    that was there (a parameter or buffer), as PyTorch's ``register_parametrization``;
    a further call on the same name appends to the chain.

    If parametrization has a ``right_inverse``, it gives the tensors kept from the
    current value (several when it returns a sequence: ``original0``, ...); else the
    value is kept as it is (``original``).  Assigning ``module.<tensor_name> = x``
    then runs right_inverse on x.

    Parameters
    ----------
    module : Module
        The module.
    tensor_name : str
        The name of a parameter, a buffer or an already parametrized tensor.
    parametrization : Module
        Its forward maps the kept tensor(s) to the tensor used; it may have
        ``right_inverse``.
    unsafe : bool, optional
        Allow the parametrization to change the shape and dtype (default False).

    Returns
    -------
    Module
        module, whose class is now ``Parametrized<its class>``.

    Raises
    ------
    ValueError
        When module has no such tensor, or (without unsafe) the parametrization
        changes its shape or dtype or does not return a tensor.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import parametrize as P
    >>> class Symmetric(nn.Module):
    ...     def forward(self, X):
    ...         return X.triu() + X.triu(1).transpose(-1, -2)
    >>> m = P.register_parametrization(nn.Linear(3, 3), "weight", Symmetric())
    >>> type(m).__name__, bool((m.weight == m.weight.T).all())
    ('ParametrizedLinear', True)
    >>> sorted(m.state_dict())
    ['bias', 'parametrizations.weight.original']
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, _C.Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(x).__name__}.")
            _check_same("Registering a parametrization", tensor_name,
                        f"parametrization(module.{tensor_name})", y, x)
            if hasattr(parametrization, "right_inverse"):
                try:
                    z = parametrization.right_inverse(x)
                except NotImplementedError:
                    z = None
                if z is not None:
                    if not isinstance(z, _C.Tensor):
                        raise ValueError(f"parametrization.right_inverse must return a "
                                         f"tensor. Got: {type(z).__name__}")
                    _check_same("parametrization.right_inverse", tensor_name,
                                "returned", y, z)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _parametrized_class(module)
            module.parametrizations = ModuleDict()
        _add_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether module has a parametrization (on tensor_name, when given).

    Parameters
    ----------
    module : Module
    tensor_name : str, optional
        A tensor's name; None asks about any.

    Returns
    -------
    bool

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import parametrize as P
    >>> m = P.register_parametrization(nn.Linear(2, 2), "weight", nn.Identity())
    >>> P.is_parametrized(m), P.is_parametrized(m, "bias")
    (True, False)
    """
    plists = getattr(module, "parametrizations", None)
    if not isinstance(plists, ModuleDict):
        return False
    return len(plists) > 0 if tensor_name is None else tensor_name in plists


def remove_parametrizations(module: Module, tensor_name: str,
                            leave_parametrized: bool = True) -> Module:
    """Removes the parametrizations of ``module.<tensor_name>``, as PyTorch's
    ``remove_parametrizations``: the tensor becomes a parameter (or buffer) again,
    holding its current parametrized value (leave_parametrized) or the original.

    Parameters
    ----------
    module : Module
    tensor_name : str
    leave_parametrized : bool, optional
        Keep the parametrized value (default True); False keeps ``original``, which
        needs a parametrization kept in one tensor.

    Returns
    -------
    Module
        module, with its class restored when no parametrization is left.

    Raises
    ------
    ValueError
        When the tensor is not parametrized, or leave_parametrized is False and it is
        kept in several tensors.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import parametrize as P
    >>> class Double(nn.Module):
    ...     def forward(self, x):
    ...         return 2 * x
    >>> m = P.register_parametrization(nn.Linear(2, 1), "bias", Double())
    >>> with pydevtensor.no_grad():
    ...     _ = m.parametrizations.bias.original.fill_(1.0)
    >>> m = P.remove_parametrizations(m, "bias")
    >>> type(m).__name__, m.bias
    ('Linear', Parameter containing:
    tensor([2.], requires_grad=True))
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                _assign(original, getattr(module, tensor_name))
    elif leave_parametrized:
        t = getattr(module, tensor_name)
        original = Parameter(t.detach()) if t.requires_grad else t
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before parametrizations were registered (its class when it
    has none).

    Parameters
    ----------
    module : Module

    Returns
    -------
    type

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import parametrize as P
    >>> m = P.register_parametrization(nn.Linear(2, 2), "weight", nn.Identity())
    >>> type(m).__name__, P.type_before_parametrizations(m).__name__
    ('ParametrizedLinear', 'Linear')
    """
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Gives to_module the parametrizations of from_module (all of them, or tensor_name's)
    and the parameters they parametrize, as PyTorch's: the parametrization modules and
    the original Parameters are the same objects in both afterwards (training one
    trains the other).  A tensor to_module lacks is first made a Parameter holding
    from_module's parametrized value; from_module without parametrizations changes
    nothing.

    Parameters
    ----------
    from_module : Module
        The parametrized module.
    to_module : Module
        The module that takes them.
    tensor_name : str, optional
        The one tensor to transfer (default: every parametrized one).

    Returns
    -------
    Module
        to_module.

    Raises
    ------
    KeyError
        When tensor_name is not parametrized in from_module.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import parametrize as P
    >>> a = P.register_parametrization(nn.Linear(2, 2), "weight", nn.Identity())
    >>> b = P.transfer_parametrizations_and_params(a, nn.Linear(2, 2))
    >>> P.is_parametrized(b, "weight")
    True
    >>> b.parametrizations.weight.original is a.parametrizations.weight.original
    True
    """
    if not is_parametrized(from_module):
        return to_module
    source = from_module.parametrizations
    for name in list(source) if tensor_name is None else [tensor_name]:
        plist = source[name]
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in plist:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        # the originals: 'original', or 'original0', 'original1', ... (right_inverse's tuple)
        originals = ["original"] if hasattr(plist, "original") else [
            f"original{i}" for i in range(plist.ntensors)]
        for orig in originals:
            setattr(target, orig, getattr(plist, orig))
    return to_module
