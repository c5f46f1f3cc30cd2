"""The layers: Linear, Sequential, the activations, Flatten and Identity."""
from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .. import _C
from . import functional as F
from .module import Module
from .parameter import Parameter

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype


class Linear(Module):
    """y = x @ W.T + b, with W of shape (out_features, in_features).

    PyTorch's default initialisation: W and b drawn from U(-1/sqrt(in), 1/sqrt(in)),
    here from the Philox generator, so one seed gives the same layer on every device.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        for name, v in (("in_features", in_features), ("out_features", out_features)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"Linear: {name} must be an int, got {type(v).__name__}")
            if v < 0:
                raise ValueError(f"Linear: {name} must be >= 0, got {v}")
        self.in_features = in_features
        self.out_features = out_features
        dtype = _C.float32 if dtype is None else dtype
        bound = 1.0 / math.sqrt(in_features) if in_features > 0 else 0.0
        w = _C.empty(out_features, in_features, device=device, dtype=dtype)
        self.weight = Parameter(w.uniform_(-bound, bound))
        if bias:
            b = _C.empty(out_features, device=device, dtype=dtype)
            self.bias = Parameter(b.uniform_(-bound, bound))
        else:
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Sequential(Module):
    """Modules run one after the other: net[0], net[1:], len(net), iteration, append."""

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
        if isinstance(idx, bool) or not isinstance(idx, int):
            raise TypeError(f"Sequential indices must be ints or slices, not {type(idx).__name__}")
        if not -len(items) <= idx < len(items):
            raise IndexError(f"index {idx} is out of range for a Sequential of {len(items)}")
        return items[idx][1]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        if not isinstance(module, Module):
            raise TypeError(f"Sequential.append: expected an nn.Module, got {type(module).__name__}")
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input: Tensor) -> Tensor:
        for m in self._modules.values():
            input = m(input)
        return input


class _Activation(Module):
    """An element-wise activation (autograd records its backward)."""

    def forward(self, input: Tensor) -> Tensor:
        return self._apply(input)


class ReLU(_Activation):
    """relu(x) (gradient 0 at x = 0, as in PyTorch)."""

    def _apply(self, input):
        return F.relu(input)


class Sigmoid(_Activation):
    def _apply(self, input):
        return F.sigmoid(input)


class Tanh(_Activation):
    def _apply(self, input):
        return F.tanh(input)


class Identity(Module):
    def forward(self, input: Tensor) -> Tensor:
        return input


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return F.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
