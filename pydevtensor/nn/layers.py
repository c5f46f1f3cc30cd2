"""The layers: Linear, Sequential, the activations, Flatten and Identity."""
import math
from collections import OrderedDict

from .. import _C
from . import functional as F
from .module import Module, _accumulate_grad, _backward
from .parameter import Parameter


class Linear(Module):
    """y = x @ W.T + b, with W of shape (out_features, in_features).

    PyTorch's default initialisation: W and b drawn from U(-1/sqrt(in), 1/sqrt(in)),
    here from the Philox generator, so one seed gives the same layer on every device.
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
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

    def forward(self, input):
        self._save(input)
        return F.linear(input, self.weight, self.bias)

    def backward(self, grad_output, input_grad=True):
        """grad_output: (*, out) -> grad_input: (*, in).  Two GEMMs and a reduction on
        the tensors' device, the transpose read by the BLAS through its flag:
            grad_W    += grad_output.T @ input    (out, rows) @ (rows, in)
            grad_b    += grad_output.sum(0)
            grad_input = grad_output @ W          (rows, out) @ (out, in)
        the last skipped (None returned) when input_grad is False."""
        (input,) = self._take_saved()
        lead = tuple(input.shape[:-1])
        rows = math.prod(lead)
        if tuple(grad_output.shape) != lead + (self.out_features,):
            raise ValueError(f"Linear.backward(): grad_output of shape "
                             f"{tuple(grad_output.shape)} does not match the output of the "
                             f"forward pass, {lead + (self.out_features,)}")
        g2 = grad_output.reshape(rows, self.out_features)
        x2 = input.reshape(rows, self.in_features)
        _accumulate_grad(self.weight, _C.mm(g2.T, x2))
        if self.bias is not None:
            _accumulate_grad(self.bias, g2.sum(0))
        if not input_grad:
            return None
        grad_input = _C.mm(g2, self.weight)
        return grad_input if lead == (rows,) else grad_input.reshape(*lead, self.in_features)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Sequential(Module):
    """Modules run one after the other: net[0], net[1:], len(net), iteration, append."""

    def __init__(self, *modules):
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

    def __getitem__(self, idx):
        items = list(self._modules.items())
        if isinstance(idx, slice):
            return Sequential(OrderedDict(items[idx]))
        if isinstance(idx, bool) or not isinstance(idx, int):
            raise TypeError(f"Sequential indices must be ints or slices, not {type(idx).__name__}")
        if not -len(items) <= idx < len(items):
            raise IndexError(f"index {idx} is out of range for a Sequential of {len(items)}")
        return items[idx][1]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        if not isinstance(module, Module):
            raise TypeError(f"Sequential.append: expected an nn.Module, got {type(module).__name__}")
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input

    def backward(self, grad_output, input_grad=True):
        """The children's backward passes, last to first; input_grad goes to the first."""
        children = [m for m in self._modules.values() if m is not None]
        for k in range(len(children) - 1, -1, -1):
            grad_output = _backward(children[k], grad_output, input_grad or k > 0)
        return grad_output if input_grad else None


class _Activation(Module):
    """An element-wise activation whose backward needs only its output y: forward keeps
    y, backward returns grad_output * f'(x) written in terms of y (_local_grad)."""

    def forward(self, input):
        out = self._apply(input)
        self._save(out)
        return out

    def backward(self, grad_output, input_grad=True):
        (out,) = self._take_saved()
        return self._local_grad(grad_output, out) if input_grad else None


class ReLU(_Activation):
    """relu(x); backward: grad * (y > 0) (0 at x = 0, as in PyTorch)."""

    def _apply(self, input):
        return F.relu(input)

    def _local_grad(self, grad_output, out):
        return grad_output * (out > 0)


class Sigmoid(_Activation):
    """sigmoid(x); backward: grad * y * (1 - y)."""

    def _apply(self, input):
        return F.sigmoid(input)

    def _local_grad(self, grad_output, out):
        return grad_output * out * (1 - out)


class Tanh(_Activation):
    """tanh(x); backward: grad * (1 - y * y)."""

    def _apply(self, input):
        return F.tanh(input)

    def _local_grad(self, grad_output, out):
        return grad_output * (1 - out * out)


class Identity(Module):
    def forward(self, input):
        return input

    def backward(self, grad_output, input_grad=True):
        return grad_output if input_grad else None


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        self._save(tuple(input.shape))
        return F.flatten(input, self.start_dim, self.end_dim)

    def backward(self, grad_output, input_grad=True):
        (shape,) = self._take_saved()
        if not input_grad:
            return None
        return grad_output.reshape(*shape)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
