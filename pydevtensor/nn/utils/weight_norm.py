"""Weight normalisation (Salimans and Kingma, 2016) as ``torch.nn.utils.weight_norm``: a
parameter w becomes ``g * v / ||v||``, with the norm taken over every dimension but
``dim``; g (``<name>_g``) and v (``<name>_v``) are the parameters that train, and a
forward pre-hook recomputes w from them before each call.  ``remove_weight_norm`` folds
them back into one parameter.
"""
from __future__ import annotations

import contextlib
import warnings
from typing import Any, Iterator

from ..module import Module
from ..parameter import Parameter, UninitializedParameter

__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]


def _norm_except_dim(v, dim):
    """The 2-norm of v over every dimension but dim, kept to broadcast against v; over
    all of v for dim -1 (PyTorch's norm_except_dim)."""
    if dim == -1:
        return v.norm()
    dims = tuple(d for d in range(v.ndim) if d != dim)
    return v.pow(2).sum(dim=dims, keepdim=True).sqrt() if dims else v.abs()


def weight_norm_dim(weight, dim):
    """dim of weight_norm for weight: -1 (None or -1, PyTorch's: one norm for the whole
    tensor) or a dimension in [0, ndim); IndexError naming the range otherwise."""
    if dim is None or dim == -1:
        return -1
    if not -weight.ndim <= dim < weight.ndim:
        raise IndexError(f"weight_norm(): dim {dim} is out of range for a parameter of shape "
                         f"{tuple(weight.shape)} (expected to be in range of "
                         f"[-{weight.ndim}, {weight.ndim - 1}], or None)")
    return dim % weight.ndim


class _NoSuchParameter(AttributeError, KeyError):
    """module has no parameter of that name (a buffer, or nothing): PyTorch's raises
    KeyError (its look-up in ``module._parameters``) or AttributeError (getattr), so
    this is both."""


@contextlib.contextmanager
def _unchanged_on_error(module: Module, name: str) -> Iterator[None]:
    """On an exception in the block (a name the hook's tensors need taken already: the
    parameter was deleted first), module's parameters and buffers are put back as they
    were, in their order, and module.<name> is the parameter again."""
    params, buffers = dict(module._parameters), dict(module._buffers)
    try:
        yield
    except Exception:
        for table, saved in ((module._parameters, params), (module._buffers, buffers)):
            table.clear()
            table.update(saved)
        module.__dict__.pop(name, None)
        raise


def _find_hook(module: Module, kind: type, name: str) -> tuple[int, Any] | None:
    """(key, hook) of module's forward pre-hook of class kind for the parameter name."""
    table = module.__dict__.get("_forward_pre_hooks") or {}
    for key, hook in table.items():
        if isinstance(hook, kind) and hook.name == name:
            return key, hook
    return None


def _parameter_to_wrap(module: Module, kind: type, name: str, op: str, cls: str,
                       what: str) -> Any:
    """module's parameter name, checked as PyTorch checks it before a re-parametrisation
    (no hook of this kind on it yet, present, initialized)."""
    if _find_hook(module, kind, name) is not None:
        raise RuntimeError(f"{op}(): cannot register two {op} hooks on the same parameter "
                           f"{name}")
    if name not in module._parameters:
        raise _NoSuchParameter(f"{op}(): {type(module).__name__} has no parameter '{name}'")
    weight = module._parameters[name]
    if weight is None:  # PyTorch's: ValueError (spectral_norm), TypeError (weight_norm)
        raise (TypeError if op == "weight_norm" else ValueError)(
            f"{op}(): parameter '{name}' of {type(module).__name__} is None")
    if isinstance(weight, UninitializedParameter):
        raise ValueError(f"The module passed to `{cls}` can't have uninitialized parameters. "
                         f"Make sure to run the dummy forward before applying {what}")
    return weight


def _unwrap(module: Module, kind: type, name: str, op: str) -> Module:
    """remove_<op>: the hook of kind on name folds itself back and goes."""
    found = _find_hook(module, kind, name)
    if found is None:
        raise ValueError(f"{op} of '{name}' not found in {module}")
    key, hook = found
    hook.remove(module)
    del module.__dict__["_forward_pre_hooks"][key]
    return module


class WeightNorm:
    """The forward pre-hook that weight_norm registers: it sets ``module.<name>`` to
    ``g * v / ||v||`` before each call (PyTorch's class of that name).

    Parameters
    ----------
    name : str
        The parameter.
    dim : int or None
        The dimension with a norm each; None or -1 the whole tensor.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils.weight_norm import WeightNorm
    >>> WeightNorm("weight", None).dim
    -1
    """

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> "WeightNorm":
        """Re-parametrises ``module.<name>`` (what weight_norm does) and returns the hook.

        Parameters
        ----------
        module : nn.Module
            The module whose parameter name becomes ``<name>_g`` and ``<name>_v`` (in place).
        name : str
            Which of its parameters.
        dim : int or None
            As weight_norm's.

        Returns
        -------
        WeightNorm
            The forward pre-hook registered on module.

        Examples
        --------
        >>> import warnings
        >>> from pydevtensor import nn
        >>> from pydevtensor.nn.utils.weight_norm import WeightNorm
        >>> lin = nn.Linear(4, 3)
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     fn = WeightNorm.apply(lin, "weight", 0)
        >>> fn.name, sorted(n for n, _ in lin.named_parameters())
        ('weight', ['bias', 'weight_g', 'weight_v'])
        """
        warnings.warn("`nn.utils.weight_norm` is deprecated in favor of "
                      "`nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        weight = _parameter_to_wrap(module, WeightNorm, name, "weight_norm", "WeightNorm",
                                    "weight normalization")
        dim = weight_norm_dim(weight, dim)
        fn = WeightNorm(name, dim)
        with _unchanged_on_error(module, name):
            del module._parameters[name]
            module.register_parameter(name + "_g",
                                      Parameter(_norm_except_dim(weight.detach(), dim).clone()))
            module.register_parameter(name + "_v", Parameter(weight.detach()))
            setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def compute_weight(self, module: Module) -> Any:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Re-parametrises ``module.<name>`` as ``g * v / ||v||`` (the norm over every
    dimension but dim), as PyTorch's ``nn.utils.weight_norm``: the parameters become
    ``<name>_g`` (the norms, kept to broadcast) and ``<name>_v`` (the directions), and the
    weight is recomputed from them before every forward.

    Parameters
    ----------
    module : nn.Module
        The module whose parameter is re-parametrised (changed in place).
    name : str, optional
        The parameter (default 'weight').
    dim : int or None, optional
        The dimension that keeps a norm each (default 0, the output channels); None
        takes one norm of the whole tensor.

    Returns
    -------
    nn.Module
        module.

    Raises
    ------
    RuntimeError
        When the parameter is already weight-normalised.
    ValueError
        When the parameter is uninitialized (a lazy module before its first call).
    AttributeError
        When module has no parameter called name (also a KeyError, as PyTorch's
        raises for a buffer of that name).
    TypeError
        When the parameter is None (PyTorch's raises TypeError too).
    IndexError
        When dim is out of range for it (-1 is the whole tensor, as None).

    Warns
    -----
    FutureWarning
        Always: PyTorch deprecates it in favour of
        ``nn.utils.parametrizations.weight_norm``.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> m = nn.utils.weight_norm(nn.Linear(4, 3))
    >>> tuple(m.weight_g.shape), tuple(m.weight_v.shape)
    ((3, 1), (3, 4))
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Folds a weight_norm's ``<name>_g`` and ``<name>_v`` back into the parameter name
    (their current product) and removes its hook.

    Parameters
    ----------
    module : nn.Module
        A module weight_norm was applied to (changed in place).
    name : str, optional
        The parameter (default 'weight').

    Returns
    -------
    nn.Module
        module.

    Raises
    ------
    ValueError
        When name is not weight-normalised in module.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> m = nn.utils.remove_weight_norm(nn.utils.weight_norm(nn.Linear(4, 3)))
    >>> sorted(n for n, _ in m.named_parameters())
    ['bias', 'weight']
    """
    return _unwrap(module, WeightNorm, name, "weight_norm")
