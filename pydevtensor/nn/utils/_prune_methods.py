"""The pruning methods of ``nn.utils.prune`` (prune.py has the functions), as PyTorch's
``torch.nn.utils.prune``: a method is the forward pre-hook that sets ``module.<name>``
to ``<name>_mask * <name>_orig`` before each call, and knows how to compute a mask.

Ties: L1Unstructured prunes the entries of smallest absolute value and LnStructured
keeps the channels of largest norm; among equal values the entry (channel) of lower
index is pruned first (L1) or kept first (Ln), a stable sort's order.  PyTorch's topk
leaves the order among ties unspecified, so with ties the two may prune different
(equally small) entries; without ties they prune the same ones.
"""
from __future__ import annotations

import numbers
import re
from abc import ABC, abstractmethod
from typing import Any

from ... import _C
from ... import linalg as _linalg
from ..._ops_sort import argsort as _argsort
from ...autograd.grad_mode import no_grad as _no_grad

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask"]


# Docstring entries the pruning functions and methods share: _shared_doc puts each in
# place of a line "{key}" of a docstring, at that line's indentation.
_DOC_ENTRIES = {
    "module": ("module : nn.Module", "    The module (changed in place)."),
    "name": ("name : str", "    The parameter's name."),
    "entries": ("amount : int or float",
                "    The number of entries to prune (int >= 0) or their fraction (float in "
                "[0, 1],", "    rounded to the nearest count)."),
    "channels": ("amount : int or float",
                 "    The number of channels to prune (int >= 0) or their fraction (float in",
                 "    [0, 1], rounded to the nearest count)."),
    "dim": ("dim : int", "    The dimension whose slices are the channels."),
    "returns_module": ("Returns", "-------", "nn.Module", "    module."),
    "raises_amount": ("Raises", "------", "TypeError", "    When amount is not a number."),
    "raises_unapplied": ("Raises", "------", "AssertionError",
                         "    When the method has not been applied to a tensor (PyTorch's "
                         "error)."),
}


def _shared_doc(obj: Any) -> Any:
    """obj (a function or class), each line ``{key}`` of its docstring replaced by
    _DOC_ENTRIES[key] at that line's indentation."""
    if obj.__doc__:  # none under python -OO
        lines = []
        for line in obj.__doc__.split("\n"):
            key = line.strip()[1:-1] if re.fullmatch(r"\{\w+\}", line.strip()) else None
            indent = line[:len(line) - len(line.lstrip())]
            lines += [indent + e if e else e for e in _DOC_ENTRIES[key]] if key else [line]
        obj.__doc__ = "\n".join(lines)
    return obj


def _pruning_hooks(module: Any, name: str) -> list:
    """[(key, method)] of module's pruning pre-hooks acting on the tensor name."""
    table = module.__dict__.get("_forward_pre_hooks") or {}
    return [(k, hook) for k, hook in table.items()
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]


def _scores(scores: Any, t: Any, where: str, what: str) -> Any:
    """scores (t when None), which must have t's shape (what names t)."""
    if scores is None:
        return t
    if tuple(scores.shape) != tuple(t.shape):
        raise ValueError(f"{where}: importance_scores should have the same shape as {what}, "
                         f"got {tuple(scores.shape)} vs {tuple(t.shape)}")
    return scores


class BasePruningMethod(ABC):
    """The base of pruning methods, as PyTorch's: a subclass defines ``PRUNING_TYPE``
    ('unstructured', 'structured' with a ``dim``, or 'global') and ``compute_mask``;
    ``apply`` prunes a module's parameter with it, and the instance is the forward
    pre-hook that recomputes ``module.<name> = <name>_mask * <name>_orig``.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import prune
    >>> class Odd(prune.BasePruningMethod):
    ...     PRUNING_TYPE = 'unstructured'
    ...     def compute_mask(self, t, default_mask):
    ...         mask = default_mask.clone()
    ...         mask.view(-1)[1::2] = 0
    ...         return mask
    >>> m = nn.Linear(2, 2)
    >>> _ = Odd.apply(m, 'weight')
    >>> m.weight_mask
    tensor([[1., 0.],
            [1., 0.]])
    """

    _tensor_name: str | None = None
    PRUNING_TYPE: str

    def __call__(self, module: Any, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: _C.Tensor, default_mask: _C.Tensor) -> _C.Tensor:
        """The mask of t this method gives, on top of default_mask (the mask of earlier
        prunings, ones at first): entries default_mask has zeroed stay zero.

        Parameters
        ----------
        t : Tensor
            The importance scores (the parameter itself, by default).
        default_mask : Tensor
            The earlier mask, of t's shape.

        Returns
        -------
        Tensor
            The new mask, of t's shape.

        Examples
        --------
        >>> from pydevtensor.nn.utils import prune
        >>> prune.L1Unstructured(1).compute_mask(pydevtensor.tensor([3., -1., 2.]),
        ...                                      pydevtensor.ones(3))
        tensor([1., 0., 1.])
        """

    @_shared_doc
    def apply_mask(self, module: Any) -> _C.Tensor:
        """``<name>_mask * <name>_orig`` of module (differentiable in ``<name>_orig``).

        Parameters
        ----------
        module : nn.Module
            A module pruned by this method.

        Returns
        -------
        Tensor
            The pruned tensor.

        {raises_unapplied}

        Examples
        --------
        >>> from pydevtensor import nn
        >>> from pydevtensor.nn.utils import prune
        >>> m = prune.custom_from_mask(nn.Linear(2, 2), 'bias', pydevtensor.tensor([0, 1]))
        >>> method = next(iter(m._forward_pre_hooks.values()))
        >>> bool((method.apply_mask(m) == m.bias).all())
        True
        """
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def _composite(cls, module: Any, name: str, *args: Any, **kwargs: Any) -> tuple:
        """(the new method, or the PruningContainer of the earlier one(s) and it; the
        key of the earlier hook, None if none).  The earlier hook stays on the module
        (apply takes it off once the new mask is in place)."""
        found = _pruning_hooks(module, name)
        if len(found) > 1:
            raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor "
                                 f"{name} of module {module}. Use a PruningContainer.")
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if not found:
            return method, None
        key, old = found[0]
        if not isinstance(old, PruningContainer):
            old = PruningContainer(old)
        old.add_pruning_method(method)
        return old, key

    @classmethod
    @_shared_doc
    def apply(cls, module: Any, name: str, *args: Any, importance_scores: Any = None,
              **kwargs: Any) -> BasePruningMethod:
        """Prunes ``module.<name>`` with ``cls(*args, **kwargs)``: the parameter becomes
        ``<name>_orig`` (the same Parameter), the mask the buffer ``<name>_mask``, and
        ``module.<name>`` a plain tensor, their product, recomputed by a forward
        pre-hook.  A tensor pruned already gets the new mask on top of its mask (the
        methods joined in a PruningContainer).  On an error the module is unchanged
        (a tensor pruned already keeps its mask and hook; PyTorch's drops the hook).

        Parameters
        ----------
        {module}
        {name}
        *args, **kwargs
            The method's arguments.
        importance_scores : Tensor, optional
            The scores the mask is computed from, of the parameter's shape (default:
            the parameter).

        Returns
        -------
        BasePruningMethod
            The method now hooked on the module (a PruningContainer after the first).

        Raises
        ------
        ValueError
            When importance_scores has another shape than the parameter, or the
            method's arguments do not fit it.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> from pydevtensor.nn.utils import prune
        >>> m = nn.Linear(3, 2)
        >>> prune.L1Unstructured.apply(m, 'bias', amount=1)  # doctest: +ELLIPSIS
        <...L1Unstructured object at ...>
        >>> int(m.bias_mask.sum())
        1
        """
        method, old_key = cls._composite(module, name, *args, **kwargs)
        first = old_key is None
        orig = getattr(module, name)
        # what a failure puts back: the tables in their order, and module.<name>
        params, buffers = dict(module._parameters), dict(module._buffers)
        try:
            importance_scores = _scores(importance_scores, orig, f"{cls.__name__}.apply()",
                                        f"parameter {name} of {type(module).__name__}")
            if first:
                module.register_parameter(name + "_orig", orig)
                del module._parameters[name]
            with _no_grad():
                default_mask = _C.ones_like(orig) if first else \
                    module._buffers[name + "_mask"].detach().clone()
                mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
        except Exception:
            for table, saved in ((module._parameters, params), (module._buffers, buffers)):
                table.clear()
                table.update(saved)
            module.__dict__.pop(name, None)
            if not first:  # the earlier tensor, and the container without the new method
                module.__dict__[name] = orig
                method._pruning_methods = method._pruning_methods[:-1]
            raise
        if not first:
            del module.__dict__["_forward_pre_hooks"][old_key]
        module.register_forward_pre_hook(method)
        return method

    def prune(self, t: _C.Tensor, default_mask: _C.Tensor | None = None,
              importance_scores: _C.Tensor | None = None) -> _C.Tensor:
        """t times the mask this method computes for it (a module is not involved).

        Parameters
        ----------
        t : Tensor
            The tensor to prune.
        default_mask : Tensor, optional
            An earlier mask, of t's shape (default ones).
        importance_scores : Tensor, optional
            The scores the mask is computed from, of t's shape (default t).

        Returns
        -------
        Tensor
            The pruned tensor.

        Raises
        ------
        ValueError
            When importance_scores has another shape than t.

        Examples
        --------
        >>> from pydevtensor.nn.utils import prune
        >>> prune.L1Unstructured(amount=2).prune(pydevtensor.tensor([3., -1., 2., 0.5]))
        tensor([3., -0., 2., 0.])
        """
        importance_scores = _scores(importance_scores, t, "prune()", "tensor t")
        if default_mask is None:
            default_mask = _C.ones_like(t)
        with _no_grad():
            mask = self.compute_mask(importance_scores, default_mask=default_mask)
        return t * mask

    @_shared_doc
    def remove(self, module: Any) -> None:
        """Makes the pruning permanent: ``<name>_orig`` (the same Parameter object, so
        an optimizer holding it goes on) takes the pruned values and becomes
        ``module.<name>`` again; ``<name>_mask`` goes.  The hook itself is taken off by
        ``prune.remove``.

        Parameters
        ----------
        module : nn.Module
            The module this method prunes.

        Returns
        -------
        None

        {raises_unapplied}

        Examples
        --------
        >>> from pydevtensor import nn
        >>> from pydevtensor.nn.utils import prune
        >>> m = nn.Linear(2, 2)
        >>> prune.Identity.apply(m, 'bias').remove(m)
        >>> sorted(m.state_dict())
        ['bias', 'weight']
        """
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be "
                                 f"removed")
        name = self._tensor_name
        weight = self.apply_mask(module)
        module.__dict__.pop(name, None)
        orig = module._parameters[name + "_orig"]
        orig.data = weight.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


class PruningContainer(BasePruningMethod):
    """The pruning methods applied to one tensor, in order (PyTorch's): its mask is the
    last method's, computed on what the earlier ones left (the unpruned entries, or
    channels, or everything for a 'global' method) and set into the earlier mask.

    Parameters
    ----------
    *args : BasePruningMethod
        The methods (one, or several acting on the same tensor name).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import prune
    >>> m = prune.l1_unstructured(nn.Linear(4, 1), 'weight', amount=2)
    >>> m = prune.l1_unstructured(m, 'weight', amount=1)
    >>> int(m.weight_mask.sum())
    1
    """

    def __init__(self, *args: Any) -> None:
        self._pruning_methods: tuple = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        """Adds method, acting on the container's tensor, last.

        Parameters
        ----------
        method : BasePruningMethod
            The method.

        Returns
        -------
        None

        Raises
        ------
        TypeError
            When method is not a BasePruningMethod.
        ValueError
            When it acts on another tensor name.

        Examples
        --------
        >>> from pydevtensor.nn.utils import prune
        >>> first = prune.L1Unstructured(1)
        >>> first._tensor_name = 'weight'
        >>> c = prune.PruningContainer(first)
        >>> second = prune.RandomUnstructured(1)
        >>> second._tensor_name = 'weight'
        >>> c.add_pruning_method(second)
        >>> len(c)
        2
        """
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx: Any) -> Any:
        return self._pruning_methods[idx]

    def compute_mask(self, t: _C.Tensor, default_mask: _C.Tensor) -> _C.Tensor:
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            slc: Any = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to '
                                     'have the attribute `dim` defined.')
            dim = method.dim + t.ndim if method.dim < 0 else method.dim
            if not 0 <= dim < t.ndim:
                raise IndexError(f"Index {method.dim} is out of bounds for a tensor of shape "
                                 f"{tuple(t.shape)}")
            rest = [d for d in range(t.ndim) if d != dim]
            keep = default_mask.sum(dim=rest) != 0
            slc = tuple(keep if d == dim else slice(None) for d in range(t.ndim))
        elif kind == "global":
            slc = (slice(None),) * t.ndim
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the re-parametrisation with a mask of ones (PyTorch's).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import prune
    >>> prune.identity(nn.Linear(2, 3), 'bias').bias_mask
    tensor([1., 1., 1.])
    """

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: _C.Tensor, default_mask: _C.Tensor) -> _C.Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Any, name: str) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name)


def _check_amount(amount: Any) -> None:
    """PyTorch's checks of amount before the tensor is known: an int >= 0 or a float
    in [0, 1] (a bool is refused: PyTorch takes it as an int and then fails)."""
    if isinstance(amount, bool) or not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount!r}. Must be int or float.")
    if (amount < 0) if isinstance(amount, numbers.Integral) else not 0.0 <= amount <= 1.0:
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         f"non-negative integer")


class _AmountMethod(BasePruningMethod):
    """A method that prunes amount entries (channels), amount checked when it is made."""

    def __init__(self, amount: int | float) -> None:
        _check_amount(amount)
        self.amount = amount


def _count(amount: Any, size: int) -> int:
    """The number of entries (channels) to prune of size: amount itself, or the
    fraction amount of size, rounded half to even as PyTorch's round."""
    n = int(amount) if isinstance(amount, numbers.Integral) else round(amount * size)
    if n > size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters "
                         f"to prune={size}")
    return n


def _channel_dim(t: _C.Tensor, dim: int) -> int:
    """dim (negative counts from the end) of t, which must have 2 dims or more."""
    if t.ndim <= 1:
        raise ValueError(f"Structured pruning can only be applied to multidimensional "
                         f"tensors. Found tensor of shape {tuple(t.shape)} with {t.ndim} dims")
    if not -t.ndim <= dim < t.ndim:
        raise IndexError(f"Invalid index {dim} for tensor of size {tuple(t.shape)}")
    return dim % t.ndim


def _channel_mask(t: _C.Tensor, dim: int, keep: _C.Tensor,
                  default_mask: _C.Tensor) -> _C.Tensor:
    """Ones on the channels keep (indices) of t along dim, times default_mask."""
    mask = _C.zeros_like(t)
    mask[tuple(keep if d == dim else slice(None) for d in range(t.ndim))] = 1
    return mask * default_mask.to(dtype=mask.dtype)


def _zero_entries(default_mask: _C.Tensor, order: _C.Tensor, n: int) -> _C.Tensor:
    """default_mask with the entries order[:n] (flat indices) set to 0."""
    mask = default_mask.clone().contiguous()
    if n:
        mask.view(-1)[order[:n]] = 0
    return mask


@_shared_doc
class RandomUnstructured(_AmountMethod):
    """Prunes amount entries (of those not pruned yet) drawn at random, each set of
    that size equally likely (PyTorch's; the draws are pydevtensor's generator's).

    Parameters
    ----------
    {entries}

    Examples
    --------
    >>> from pydevtensor.nn.utils import prune
    >>> int((prune.RandomUnstructured(amount=0.5).prune(pydevtensor.ones(10)) == 0).sum())
    5
    """

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: _C.Tensor, default_mask: _C.Tensor) -> _C.Tensor:
        n = _count(self.amount, t.numel())
        order = _argsort(_C.rand(t.numel(), device=t.device)) if n else None
        return _zero_entries(default_mask, order, n)

    @classmethod
    def apply(cls, module: Any, name: str,  # type: ignore[override]
              amount: int | float) -> BasePruningMethod:
        return super().apply(module, name, amount=amount)


@_shared_doc
class L1Unstructured(_AmountMethod):
    """Prunes the amount entries (of those not pruned yet) of smallest absolute value
    (PyTorch's; among equal values the lower flat index first, see the module's
    docstring).

    Parameters
    ----------
    {entries}

    Examples
    --------
    >>> from pydevtensor.nn.utils import prune
    >>> prune.L1Unstructured(amount=1).prune(pydevtensor.tensor([3., -1., 2.]))
    tensor([3., -0., 2.])
    """

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: _C.Tensor, default_mask: _C.Tensor) -> _C.Tensor:
        n = _count(self.amount, t.numel())
        order = _argsort(t.detach().abs().reshape(-1), stable=True) if n else None
        return _zero_entries(default_mask, order, n)

    @classmethod
    def apply(cls, module: Any, name: str, amount: int | float,  # type: ignore[override]
              importance_scores: _C.Tensor | None = None) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


@_shared_doc
class RandomStructured(_AmountMethod):
    """Prunes amount whole channels along dim (of those not pruned yet), drawn at
    random (PyTorch's; the draws are pydevtensor's generator's).

    Parameters
    ----------
    {channels}
    dim : int, optional
        The dimension whose slices are the channels (default -1).

    Examples
    --------
    >>> from pydevtensor.nn.utils import prune
    >>> out = prune.RandomStructured(amount=1, dim=0).prune(pydevtensor.ones(3, 2))
    >>> out.sum(dim=1).tolist().count(0.0)
    1
    """

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, dim: int = -1) -> None:
        super().__init__(amount)
        self.dim = dim

    def compute_mask(self, t: _C.Tensor, default_mask: _C.Tensor) -> _C.Tensor:
        dim = _channel_dim(t, self.dim)
        size = t.shape[dim]
        n = _count(self.amount, size)
        if n == 0:
            return default_mask
        keep = _argsort(_C.rand(size, device=t.device))[n:]
        return _channel_mask(t, dim, keep, default_mask)

    @classmethod
    def apply(cls, module: Any, name: str, amount: int | float,  # type: ignore[override]
              dim: int = -1) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, dim=dim)


def _channel_norms(t: _C.Tensor, n: Any, dim: int) -> _C.Tensor:
    """The L_n norm of each channel of t along dim (PyTorch's _compute_norm: 'fro'
    is the 2-norm, 'nuc' the nuclear norm of the channel as a matrix, so only of a
    3-dim t: PyTorch's takes the norm of t's last two dims then, not of the channels,
    and prunes by it or fails in topk)."""
    dims = [d for d in range(t.ndim) if d != dim]
    if n == "nuc" and len(dims) != 2:
        raise ValueError(f"ln_structured: n='nuc' takes the nuclear norm of each channel "
                         f"as a matrix, so the tensor must have 3 dims; got shape "
                         f"{tuple(t.shape)}")
    if n in ("nuc", "fro") and len(dims) == 2:
        return _linalg.matrix_norm(t, ord=n, dim=tuple(dims))
    return _linalg.vector_norm(t, ord=2 if n == "fro" else n, dim=dims)


@_shared_doc
class LnStructured(_AmountMethod):
    """Prunes the amount channels along dim (of those not pruned yet) of smallest L_n
    norm (PyTorch's; among equal norms the lower index is kept, see the module's
    docstring).

    Parameters
    ----------
    {channels}
    n : int, float, inf, -inf, 'fro' or 'nuc'
        The norm's order (as ``linalg.vector_norm``'s ord; 'fro' is 2; 'nuc', the
        nuclear norm of each channel as a matrix, needs a 3-dim tensor).
    dim : int, optional
        The dimension whose slices are the channels (default -1).

    Examples
    --------
    >>> from pydevtensor.nn.utils import prune
    >>> t = pydevtensor.tensor([[1., 1.], [3., 0.], [0., 0.5]])
    >>> prune.LnStructured(amount=1, n=1, dim=0).prune(t)
    tensor([[1., 1.],
            [3., 0.],
            [0., 0.]])
    """

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, n: Any, dim: int = -1) -> None:
        super().__init__(amount)
        self.n = n
        self.dim = dim

    def compute_mask(self, t: _C.Tensor, default_mask: _C.Tensor) -> _C.Tensor:
        dim = _channel_dim(t, self.dim)
        size = t.shape[dim]
        count = _count(self.amount, size)
        norms = _channel_norms(t.detach(), self.n, dim)
        if count == 0:
            return default_mask
        keep = _argsort(norms, descending=True, stable=True)[:size - count]
        return _channel_mask(t, dim, keep, default_mask)

    @classmethod
    def apply(cls, module: Any, name: str, amount: int | float,  # type: ignore[override]
              n: Any, dim: int, importance_scores: _C.Tensor | None = None
              ) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes with a given mask (zeros pruned), on top of the earlier mask (PyTorch's).

    Parameters
    ----------
    mask : Tensor
        The mask, of the pruned tensor's shape.

    Examples
    --------
    >>> from pydevtensor.nn.utils import prune
    >>> prune.CustomFromMask(pydevtensor.tensor([0, 1, 1])).prune(pydevtensor.ones(3))
    tensor([0., 1., 1.])
    """

    PRUNING_TYPE = "global"

    def __init__(self, mask: _C.Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: _C.Tensor, default_mask: _C.Tensor) -> _C.Tensor:
        if tuple(default_mask.shape) != tuple(self.mask.shape):
            raise ValueError(f"CustomFromMask: the mask's shape {tuple(self.mask.shape)} "
                             f"must be the pruned tensor's, {tuple(default_mask.shape)}")
        return default_mask * self.mask.to(dtype=default_mask.dtype,
                                           device=default_mask.device)

    @classmethod
    def apply(cls, module: Any, name: str,  # type: ignore[override]
              mask: _C.Tensor) -> BasePruningMethod:
        return super().apply(module, name, mask=mask)

