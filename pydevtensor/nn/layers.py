"""The layers: Linear and LazyLinear, Sequential and ModuleList, the activations, Softmax, Dropout,
Flatten and Identity."""
from __future__ import annotations

import math
import operator
from collections import OrderedDict
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from .. import _C
from . import functional as F
from ._functional_activation_more import _softmax_dim
from .. import _args
from .._runtime_flags import outside_level
from .._args import size as _size
from ._sequence_edits import _SequenceEditsMixin
from .module import Module
from .parameter import (LazyModuleMixin, Parameter, UninitializedParameter,
                        _uninitialized_weight_and_bias)

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype

_S = TypeVar("_S", bound="_ModuleSequence")


class Linear(Module):
    """y = x @ W.T + b, with W of shape (out_features, in_features).

    PyTorch's default initialisation: W and b drawn from U(-1/sqrt(in), 1/sqrt(in)),
    here from the Philox generator, so one seed gives the same layer on every device.

    Parameters
    ----------
    in_features : int
        The size of each input's last dimension.
    out_features : int
        The size of each output's last dimension.
    bias : bool, optional
        Whether to add a learned bias (default True).
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).

    Raises
    ------
    TypeError
        When a size is not an int.
    ValueError
        When a size is negative.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> layer = nn.Linear(2, 3)
    >>> layer.weight.shape, layer.bias.shape
    (pydevtensor.Size([3, 2]), pydevtensor.Size([3]))
    >>> layer(pydevtensor.ones(4, 2)).shape
    pydevtensor.Size([4, 3])
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        in_features = _check_features("in_features", in_features)
        out_features = _check_features("out_features", out_features)
        self.in_features = in_features
        self.out_features = out_features
        dtype = _C._get_default_dtype() if dtype is None else dtype
        w = _C.empty(out_features, in_features, device=device, dtype=dtype)
        b = _C.empty(out_features, device=device, dtype=dtype) if bias else None
        _draw_linear(w, b, in_features)
        self.weight = Parameter(w)
        if b is not None:
            self.bias = Parameter(b)
        else:
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        ps = self._parameters  # what self.weight reads, without Module.__getattr__'s frame
        try:
            weight, bias = ps["weight"], ps["bias"]
        except KeyError:  # one was deleted: self.weight raises AttributeError, as before
            weight, bias = self.weight, self.bias
        return F.linear(input, weight, bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")

    def reset_parameters(self) -> None:
        """Draw the weight and bias again, in place, as the constructor drew them: the
        same values after the same seed (PyTorch's ``kaiming_uniform_`` with a = sqrt(5),
        that is U(-1/sqrt(in_features), 1/sqrt(in_features)), and the bias from the same
        range).  The Parameters stay the same objects, so an optimizer that holds them
        goes on with the new values.  A LazyLinear not yet given its shapes is left as
        it is, as in PyTorch.

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> layer = nn.Linear(4, 2)
        >>> weight = layer.weight
        >>> layer.reset_parameters()
        >>> layer.weight is weight, bool(layer.weight.abs().max() <= 0.5)
        (True, True)
        """
        if isinstance(self.weight, UninitializedParameter):
            return
        bias = None if self.bias is None else self.bias.detach()
        _draw_linear(self.weight.detach(), bias, self.in_features)


def _check_features(name: str, v: Any) -> int:
    """v as an int (a NumPy integer too, as PyTorch takes it), checked."""
    return _size(v, "Linear", name, 0)


def _draw_linear(weight: Tensor, bias: Tensor | None, in_features: int) -> None:
    """PyTorch's default initialisation of a linear layer, in place on plain tensors:
    weight, then bias, from U(-1/sqrt(in_features), 1/sqrt(in_features)) (Linear and
    LazyLinear draw the same numbers for one seed through this)."""
    bound = 1.0 / math.sqrt(in_features) if in_features > 0 else 0.0
    weight.uniform_(-bound, bound)
    if bias is not None:
        bias.uniform_(-bound, bound)


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear layer whose in_features is read from its first input (D2L's lazy
    initialization): ``nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))``.

    Until then its weight and bias are :class:`UninitializedParameter` objects (which
    ``.to()`` moves, and an optimizer may already hold); the first forward, or
    ``load_state_dict``, gives them their shapes, initialises them as Linear does (the
    same draws: one seed, the same layer as ``Linear(in_features, out_features)``), and
    its first call makes the module a :class:`Linear`, as in PyTorch (after a load, it
    stays a LazyLinear until then).

    Parameters
    ----------
    out_features : int
        The size of each output's last dimension.
    bias : bool, optional
        Whether to add a learned bias (default True).
    device : str or pydevtensor.device, optional
        Where the parameters will live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).

    Raises
    ------
    TypeError
        When out_features is not an int.
    ValueError
        When out_features is negative; at the first forward, when the input is 0-d.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> net = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(1))
    >>> net[0].weight
    <UninitializedParameter>
    >>> net(pydevtensor.ones(2, 3)).shape
    pydevtensor.Size([2, 1])
    >>> net[0]
    Linear(in_features=3, out_features=4, bias=True)
    """

    _layer = Linear  # the class the first call makes it

    def __init__(self, out_features: int, bias: bool = True,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        Module.__init__(self)
        out_features = _check_features("out_features", out_features)
        self.in_features = 0
        self.out_features = out_features
        _uninitialized_weight_and_bias(self, bias, device, dtype)

    def forward(self, input: Tensor) -> Tensor:
        if isinstance(self.weight, UninitializedParameter):
            if not isinstance(input, _C.Tensor) or input.dim() == 0:
                what = "a 0-d tensor" if isinstance(input, _C.Tensor) else \
                    f"a {type(input).__name__}"
                raise ValueError(f"LazyLinear: the first input sets in_features from its last "
                                 f"dimension, and it is {what}")
            self._materialize(input.shape[-1])
        return Linear.forward(self, input)

    def _materialize(self, in_features: int) -> None:
        """Gives weight and bias their shapes, drawn as Linear draws them (the call then
        makes this module a Linear)."""
        self.weight.materialize((self.out_features, in_features))
        if self.bias is not None:
            self.bias.materialize((self.out_features,))
        # through .data: no autograd record of the draws
        _draw_linear(self.weight.data, None if self.bias is None else self.bias.data,
                     in_features)
        self.in_features = in_features

    def _lazy_load_check(self, prefix: str, state_dict: Any) -> list[str]:
        """What load_state_dict would find wrong with the shapes of this layer's entries
        of state_dict (it gives an uninitialized layer its shapes)."""
        w, b = state_dict.get(prefix + "weight"), state_dict.get(prefix + "bias")
        if not isinstance(self.weight, UninitializedParameter):
            return []
        if not isinstance(w, _C.Tensor):  # nothing gives in_features
            return [f"'{prefix}bias' of a lazy layer cannot be loaded without "
                    f"'{prefix}weight', which gives in_features"] if b is not None else []
        problems = []
        if w.dim() != 2 or w.shape[0] != self.out_features:
            problems.append(f"size mismatch for '{prefix}weight': copying a tensor of shape "
                            f"{tuple(w.shape)}, the lazy parameter has shape "
                            f"({self.out_features}, in_features)")
        elif isinstance(b, _C.Tensor) and tuple(b.shape) != (self.out_features,):
            problems.append(f"size mismatch for '{prefix}bias': copying a tensor of shape "
                            f"{tuple(b.shape)}, the parameter has shape ({self.out_features},)")
        return problems

    def _lazy_load(self, prefix: str, state_dict: Any) -> None:
        w = state_dict.get(prefix + "weight")
        if isinstance(self.weight, UninitializedParameter) and isinstance(w, _C.Tensor):
            # drawn as at a first forward; load_state_dict then copies what it has (a
            # bias left out with strict=False keeps its draw, not uninitialised memory)
            self._materialize(w.shape[1])


class _ModuleSequence(_SequenceEditsMixin, Module):
    """What Sequential and ModuleList share: members registered as "0", "1", ...,
    len(), iteration, append, and the checks of a member and of a position."""

    _kind = "ModuleSequence"  # the class's name in messages

    def _member(self, module: Any, where: str) -> Module:
        if not isinstance(module, Module):
            raise TypeError(f"{self._kind}.{where}: expected an nn.Module, got "
                            f"{type(module).__name__}")
        return module

    def _position(self, i: int) -> int:
        """i (an int, negative: from the end) as a position among the members."""
        n = len(self._modules)
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of range for a {self._kind} of {n}")
        return i % n

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self: _S, module: Module) -> _S:
        """Adds module at the end.

        Parameters
        ----------
        module : nn.Module
            The module.

        Returns
        -------
        Sequential or ModuleList
            self.

        Raises
        ------
        TypeError
            When module is not a Module.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> len(nn.Sequential().append(nn.ReLU()))
        1
        """
        self.add_module(str(len(self)), self._member(module, "append"))
        return self


class Sequential(_ModuleSequence):
    """Modules run one after the other: net[0], net[1:], len(net), iteration, append.

    Parameters
    ----------
    *modules : nn.Module, or one OrderedDict of name to Module
        The modules, in order.

    Raises
    ------
    TypeError
        When an argument is not a Module.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    >>> net
    Sequential(
      (0): Linear(in_features=2, out_features=3, bias=True)
      (1): ReLU()
      (2): Linear(in_features=3, out_features=1, bias=True)
    )
    >>> net(pydevtensor.ones(4, 2)).shape
    pydevtensor.Size([4, 1])
    """

    _kind = "Sequential"

    def __init__(self, *modules: Module | OrderedDict[str, Module]) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, m in modules[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(modules):
                if not isinstance(m, Module):
                    raise TypeError(f"Sequential: argument {i} is a {type(m).__name__}, "
                                    f"not an nn.Module")
                self.add_module(str(i), m)

    def __getitem__(self, idx: int | slice) -> Any:
        items = list(self._modules.items())
        if isinstance(idx, slice):
            return Sequential(OrderedDict(items[idx]))
        try:  # any integer (a NumPy one, a 0-d integer tensor), as PyTorch's
            i = operator.index(idx)
        except TypeError:
            raise TypeError(f"Sequential indices must be integers or slices, not "
                            f"{type(idx).__name__}") from None
        return items[self._position(i)][1]

    def __mul__(self, other: int) -> Sequential:
        """PyTorch's ``seq * n``: a Sequential of seq's members n times over (the same
        module objects, so their parameters are shared)."""
        out = Sequential()
        out.extend(list(self) * self._repeats(other, "*"))
        return out

    __rmul__ = __mul__

    def __imul__(self, other: int) -> Sequential:
        return self.extend(list(self) * (self._repeats(other, "*=") - 1))

    def _repeats(self, n: Any, op: str) -> int:
        if not isinstance(n, int):  # a bool is an int here, as in PyTorch
            raise TypeError(f"unsupported operand type(s) for {op}: 'Sequential' and "
                            f"'{type(n).__name__}' (the number of repeats must be an int)")
        if n <= 0:
            raise ValueError(f"Non-positive multiplication factor {n} for Sequential")
        return n

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(self._modules)[self._position(operator.index(idx))]
        self.add_module(key, self._member(module, "__setitem__"))

    def forward(self, input: Tensor) -> Tensor:
        for m in self._modules.values():
            input = m(input)
        return input


class _Activation(Module):
    """An element-wise activation (autograd records its backward)."""

    def forward(self, input: Tensor) -> Tensor:
        return self._activate(input)


class ReLU(_Activation):
    """max(x, 0) elementwise, as a layer.

    Parameters
    ----------
    inplace : bool, optional
        Writes the result into the input (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.ReLU()(pydevtensor.tensor([-1., 2.]))
    tensor([0., 2.])
    >>> nn.ReLU(inplace=True)
    ReLU(inplace=True)
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def _activate(self, input):
        return F.relu(input, self.inplace) if self.inplace else F.relu(input)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(_Activation):
    """x where x > 0, ``negative_slope * x`` elsewhere, as a layer (F.leaky_relu).

    Parameters
    ----------
    negative_slope : float, optional
        The slope below 0 (default 0.01).
    inplace : bool, optional
        Writes the result into the input (default False).

    Raises
    ------
    TypeError
        When negative_slope is not a number.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.LeakyReLU(0.2)(pydevtensor.tensor([-1., 2.]))
    tensor([-0.2000,  2.0000])
    """

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        negative_slope = _args.plain(negative_slope)  # a NumPy scalar as a Python number
        if isinstance(negative_slope, bool) or not isinstance(negative_slope, (int, float)):
            raise TypeError(f"LeakyReLU: negative_slope must be a number, got "
                            f"{type(negative_slope).__name__}")
        self.negative_slope = negative_slope
        self.inplace = inplace

    def _activate(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class Sigmoid(_Activation):
    """1 / (1 + exp(-x)) elementwise, as a layer.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Sigmoid()(pydevtensor.tensor([0.]))
    tensor([0.5000])
    """
    def _activate(self, input):
        return F.sigmoid(input)


class Tanh(_Activation):
    """The hyperbolic tangent elementwise, as a layer.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Tanh()(pydevtensor.tensor([0.]))
    tensor([0.])
    """
    def _activate(self, input):
        return F.tanh(input)


class Identity(Module):
    """Returns its input unchanged (a placeholder layer).

    Parameters
    ----------
    *args, **kwargs
        Taken and ignored, as PyTorch's (so that a layer can be swapped for it).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Identity()(pydevtensor.tensor([1., 2.]))
    tensor([1., 2.])
    >>> nn.Identity(54, unused='x')  # arguments are taken and ignored, as PyTorch's
    Identity()
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Flatten(Module):
    """Merges dimensions start_dim to end_dim of its input into one.

    Parameters
    ----------
    start_dim : int, optional
        The first dimension to merge (default 1: keep the batch).
    end_dim : int, optional
        The last (default -1).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Flatten()(pydevtensor.ones(2, 3, 4)).shape
    pydevtensor.Size([2, 12])
    """
    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return F.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class _DropoutNd(Module):
    """What the dropout layers share (siblings, as in PyTorch): p, inplace, the repr;
    subclasses set _fn."""

    _fn = staticmethod(F.dropout)

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        self.p, self.inplace = float(F._dropout_p(p)), bool(inplace)

    def forward(self, input: Tensor) -> Tensor:
        return self._fn(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Inverted dropout, as a layer: in training, each element is zeroed with
    probability p and the rest scaled by 1 / (1 - p); in evaluation (``net.eval()``) the
    input passes unchanged.

    Parameters
    ----------
    p : float, optional
        The probability of zeroing an element (default 0.5).
    inplace : bool, optional
        Change the input in place (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> drop = nn.Dropout(0.5).eval()
    >>> drop(pydevtensor.ones(3))
    tensor([1., 1., 1.])
    """

    _fn = staticmethod(F.dropout)


class Dropout2d(_DropoutNd):
    """Channel dropout for images (:func:`~pydevtensor.nn.functional.dropout2d`), as
    ``torch.nn.Dropout2d``: in training, each channel of each sample of an
    ``(N, C, H, W)`` input is zeroed whole with probability p and the rest scaled by
    1 / (1 - p); in evaluation the input passes unchanged.

    Parameters
    ----------
    p : float, optional
        The probability of zeroing a channel (default 0.5).
    inplace : bool, optional
        Change the input in place (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Dropout2d(0.2)
    Dropout2d(p=0.2, inplace=False)
    >>> nn.Dropout2d().eval()(pydevtensor.ones(1, 2, 2, 2)).sum()
    tensor(8.)
    """

    _fn = staticmethod(F.dropout2d)


class Dropout1d(_DropoutNd):
    """Channel dropout for sequences (:func:`~pydevtensor.nn.functional.dropout1d`), as
    ``torch.nn.Dropout1d``: each channel of an ``(N, C, L)`` or ``(C, L)`` input is
    zeroed whole with probability p in training, the rest scaled by 1 / (1 - p).

    Parameters
    ----------
    p : float, optional
        The probability of zeroing a channel (default 0.5).
    inplace : bool, optional
        Change the input in place (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Dropout1d(p=1.0)(pydevtensor.ones(2, 3))
    tensor([[0., 0., 0.],
            [0., 0., 0.]])
    """

    _fn = staticmethod(F.dropout1d)


class AlphaDropout(_DropoutNd):
    """Alpha dropout (:func:`~pydevtensor.nn.functional.alpha_dropout`) as a layer, as
    ``torch.nn.AlphaDropout``: in training each element is dropped with probability p
    to SELU's saturation value and the result mapped to keep a standard input's mean
    and variance; in evaluation the input passes unchanged.

    Parameters
    ----------
    p : float, optional
        The probability of dropping an element (default 0.5).
    inplace : bool, optional
        Change the input in place (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.AlphaDropout(0.2).eval()(pydevtensor.ones(3))
    tensor([1., 1., 1.])
    """

    _fn = staticmethod(F.alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels
    (:func:`~pydevtensor.nn.functional.feature_alpha_dropout`) as a layer, as
    ``torch.nn.FeatureAlphaDropout``; in evaluation the input passes unchanged.

    Parameters
    ----------
    p : float, optional
        The probability of dropping a channel (default 0.5).
    inplace : bool, optional
        Change the input in place (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.FeatureAlphaDropout(0.2)
    FeatureAlphaDropout(p=0.2, inplace=False)
    """

    _fn = staticmethod(F.feature_alpha_dropout)


class Softmax(Module):
    """softmax along dim, as a layer.

    Parameters
    ----------
    dim : int
        The dimension whose entries sum to 1.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Softmax(dim=0)(pydevtensor.tensor([0., 0.]))
    tensor([0.5000, 0.5000])
    """

    _fn = staticmethod(F.softmax)

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        # PyTorch's implicit choice for None, with its warning (at the caller's line)
        dim = _softmax_dim(type(self).__name__.lower(), input, self.dim, outside_level() + 1)
        return self._fn(input, dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """log_softmax along dim, as a layer (D2L's and PyTorch's pair for NLLLoss).

    Parameters
    ----------
    dim : int
        The dimension along which the exponentials sum to 1.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.LogSoftmax(dim=0)(pydevtensor.tensor([0., 0.]))
    tensor([-0.6931, -0.6931])
    """

    _fn = staticmethod(F.log_softmax)


class ModuleList(_ModuleSequence):
    """A list of modules, each registered (its parameters are the container's, and
    ``.to()``, ``state_dict()`` and ``train()`` reach it).  It has no forward: the
    module that holds it calls its members.

    Parameters
    ----------
    modules : iterable of Module, optional
        The first members.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    >>> len(list(layers.parameters()))
    6
    >>> layers
    ModuleList(
      (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)
    )
    """

    _kind = "ModuleList"
    _adds_any_iterable = True  # ModuleList + [modules], as PyTorch's

    def __repr__(self) -> str:
        """PyTorch's: a run of members with the same repr is one line, "(i-j): n x ..."."""
        runs: list[list[Any]] = []  # [first index, last index, text]
        for i, m in enumerate(self._modules.values()):
            text = repr(m)
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        name = self._get_name()  # a subclass's own name, as PyTorch's
        if not runs:
            return f"{name}()"
        lines = [f"{name}("]
        for first, last, text in runs:
            text = text.replace("\n", "\n  ")
            if first == last:
                lines.append(f"  ({first}): {text}")
            else:
                lines.append(f"  ({first}-{last}): {last - first + 1} x {text}")
        lines.append(")")
        return "\n".join(lines)

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        members = list(self._modules.values())
        if isinstance(idx, slice):
            return ModuleList(members[idx])
        return members[self._position(operator.index(idx))]  # TypeError: not an integer

    def __setitem__(self, idx, module):
        self.add_module(str(self._position(operator.index(idx))),
                        self._member(module, "__setitem__"))

    def insert(self, index: int, module: Module) -> None:
        """Puts module before position index (as list.insert).

        Parameters
        ----------
        index : int
            Where (negative: from the end).
        module : Module
            The new member.

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> layers = nn.ModuleList([nn.ReLU()])
        >>> layers.insert(0, nn.Tanh())
        >>> layers[0]
        Tanh()
        """
        members = list(self._modules.values())
        members.insert(operator.index(index), self._member(module, "insert"))
        self._renumber(members)
