"""Module.get_submodule, set_submodule, get_parameter, get_buffer and register_module (a
mixin of
nn.Module, in a file of its own): reaching a module's parts by dotted name, as
PyTorch's."""
from __future__ import annotations

from typing import Any


class _AccessMixin:
    """nn.Module's access by dotted name."""

    def get_submodule(self, target: str) -> Any:
        """The submodule at the dotted path target ('' for this module).

        Parameters
        ----------
        target : str
            As named_modules() names it: ``'encoder.layers.0'``.

        Returns
        -------
        Module

        Raises
        ------
        AttributeError
            When a name on the path is missing or not a Module.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Sequential(nn.Linear(2, 3)), nn.ReLU())
        >>> net.get_submodule('0.0')
        Linear(in_features=2, out_features=3, bias=True)
        """
        from .module import Module
        if not isinstance(target, str):
            raise TypeError(f"get_submodule(): target must be a str, got "
                            f"{type(target).__name__}")
        mod = self
        if target == "":
            return mod
        for item in target.split("."):
            if item not in mod._modules and not hasattr(mod, item):
                raise AttributeError(f"{type(mod).__name__} has no attribute `{item}` (looking "
                                     f"up {target!r})")
            mod = mod._modules[item] if item in mod._modules else getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module (looking up {target!r})")
        return mod

    def set_submodule(self, target: str, module: Any, strict: bool = False) -> None:
        """Puts module at the dotted path target: replaces the submodule there, or (unless
        strict) adds it to the module the path leads to, as PyTorch's.

        Parameters
        ----------
        target : str
            As named_modules() names it: ``'encoder.layers.0'``.
        module : Module
            The new submodule.
        strict : bool, optional
            Only replace a submodule that exists (default False: a new name is added).

        Returns
        -------
        None

        Raises
        ------
        ValueError
            When target is empty or module not a Module.
        AttributeError
            When the path to the parent is missing or not Modules, the name there is an
            attribute that is not a Module, or (strict) the name is missing.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Sequential(nn.Linear(2, 3)), nn.ReLU())
        >>> net.set_submodule('0.0', nn.Linear(2, 5))
        >>> net.set_submodule('0.act', nn.Tanh())
        >>> net[0]
        Sequential(
          (0): Linear(in_features=2, out_features=5, bias=True)
          (act): Tanh()
        )
        """
        from .module import Module
        if not isinstance(target, str):
            raise TypeError(f"set_submodule(): target must be a str, got "
                            f"{type(target).__name__}")
        if target == "":
            raise ValueError("set_submodule(): Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"set_submodule(): `module` is not an nn.Module, found "
                             f"{type(module).__name__}")
        path, _, name = target.rpartition(".")
        parent = self.get_submodule(path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}` (setting "
                                 f"{target!r}, strict=True)")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module (setting {target!r})")
        setattr(parent, name, module)

    def _get_name(self) -> str:
        """The class's name, as PyTorch's (its repr begins with it)."""
        return type(self).__name__

    def _owner_and_name(self, target: str, what: str) -> tuple[Any, str]:
        if not isinstance(target, str):
            raise TypeError(f"get_{what}(): target must be a str, got {type(target).__name__}")
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(f"{type(mod).__name__} has no attribute `{name}` (looking up "
                                 f"{target!r})")
        return mod, name

    def get_parameter(self, target: str) -> Any:
        """The parameter at the dotted path target.

        Parameters
        ----------
        target : str
            As named_parameters() names it: ``'0.weight'``.

        Returns
        -------
        nn.Parameter

        Raises
        ------
        AttributeError
            When the path is missing or does not name a Parameter.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3))
        >>> net.get_parameter('0.bias').shape
        pydevtensor.Size([3])
        """
        from .parameter import Parameter
        mod, name = self._owner_and_name(target, "parameter")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter (looking up {target!r})")
        return param

    def get_buffer(self, target: str) -> Any:
        """The buffer at the dotted path target.

        Parameters
        ----------
        target : str
            As named_buffers() names it: ``'1.running_mean'``.

        Returns
        -------
        Tensor

        Raises
        ------
        AttributeError
            When the path is missing or does not name a buffer.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
        >>> net.get_buffer('1.running_var')
        tensor([1., 1., 1.])
        """
        mod, name = self._owner_and_name(target, "buffer")
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer (looking up {target!r})")
        return mod._buffers[name]

    def register_module(self, name: str, module: Any) -> None:
        """Adds a child module under name: add_module's other name, as PyTorch's.

        Parameters
        ----------
        name : str
            The attribute name.
        module : Module or None
            The child.

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential()
        >>> net.register_module('act', nn.ReLU())
        >>> net
        Sequential(
          (act): ReLU()
        )
        """
        self.add_module(name, module)
