"""The rest of PyTorch's activation layers, with its names, arguments and reprs:
Hardswish, Hardsigmoid, Hardshrink, Softshrink, Threshold, SELU, CELU, Softsign,
Tanhshrink, RReLU, PReLU (a learned slope), GLU, Softmin and Softmax2d (their
functions: _functional_activation_more.py, re-exported by nn.functional)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _C
from .._args import plain as _plain, size as _size
from .. import _ops_stats as _stats
from .._runtime_flags import outside_level
from . import _functional_activation as _A
from . import _functional_activation_more as _F
from .activation import _InplaceActivation
from .layers import _Activation
from .parameter import Parameter

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype


def _inplace(module) -> str:
    return ", inplace=True" if module.inplace else ""


class Hardswish(_Activation):
    """``x * relu6(x + 3) / 6`` elementwise, as a layer (F.hardswish); PyTorch's repr
    does not show inplace.

    Parameters
    ----------
    inplace : bool, optional
        Writes the result into the input (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Hardswish()(pydevtensor.tensor([-4., 1., 4.]))
    tensor([-0.0000,  0.6667,  4.0000])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def _activate(self, input):
        return _F.hardswish(input, self.inplace)


class Hardsigmoid(Hardswish):
    """``relu6(x + 3) / 6`` elementwise, as a layer (F.hardsigmoid); PyTorch's repr does
    not show inplace.

    Parameters
    ----------
    inplace : bool, optional
        Writes the result into the input (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Hardsigmoid()(pydevtensor.tensor([-4., 0., 4.]))
    tensor([0.0000, 0.5000, 1.0000])
    """

    def _activate(self, input):
        return _F.hardsigmoid(input, self.inplace)


class Hardshrink(_Activation):
    """x where ``|x| > lambd``, else 0, as a layer (F.hardshrink).

    Parameters
    ----------
    lambd : float, optional
        The threshold (default 0.5).

    Raises
    ------
    TypeError
        When lambd is not a number.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Hardshrink()
    Hardshrink(0.5)
    >>> nn.Hardshrink(1.0)(pydevtensor.tensor([-2., 0.5, 1.5]))
    tensor([-2.0000,  0.0000,  1.5000])
    """

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        _A._number(lambd, "lambd", type(self).__name__)
        self.lambd = _plain(lambd)

    def _activate(self, input):
        return _F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """``x - lambd`` above lambd, ``x + lambd`` below -lambd, else 0, as a layer
    (F.softshrink).

    Parameters
    ----------
    lambd : float, optional
        The threshold, >= 0 (default 0.5).

    Raises
    ------
    TypeError
        When lambd is not a number.
    ValueError
        At forward, when lambd is negative.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Softshrink(1.0)(pydevtensor.tensor([-2., 0.5, 1.5]))
    tensor([-1.0000,  0.0000,  0.5000])
    """

    def _activate(self, input):
        return _F.softshrink(input, self.lambd)


class Threshold(_Activation):
    """x where ``x > threshold``, else value, as a layer (F.threshold).

    Parameters
    ----------
    threshold : float
        The value x must exceed to be kept.
    value : float
        What replaces the others.
    inplace : bool, optional
        Writes the result into the input (default False).

    Raises
    ------
    TypeError
        When threshold or value is not a number.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Threshold(0.1, 20.)
    Threshold(threshold=0.1, value=20.0)
    >>> nn.Threshold(0.1, 20.)(pydevtensor.tensor([0., 1.]))
    tensor([20.,  1.])
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        _A._number(threshold, "threshold", "Threshold")
        _A._number(value, "value", "Threshold")
        self.threshold, self.value, self.inplace = _plain(threshold), _plain(value), inplace

    def _activate(self, input):
        return _F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace(self)}"


class SELU(_InplaceActivation):
    """``scale * elu(x, alpha)`` with PyTorch's constants, as a layer (F.selu).

    Parameters
    ----------
    inplace : bool, optional
        Writes the result into the input (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.SELU()(pydevtensor.tensor([-1., 2.]))
    tensor([-1.1113,  2.1014])
    """

    def _activate(self, input):
        return _F.selu(input, self.inplace)


class CELU(_Activation):
    """x where x > 0, ``alpha * (exp(x / alpha) - 1)`` elsewhere, as a layer (F.celu).

    Parameters
    ----------
    alpha : float, optional
        The scale (default 1.0).
    inplace : bool, optional
        Writes the result into the input (default False).

    Raises
    ------
    TypeError
        When alpha is not a number.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.CELU(alpha=2.)(pydevtensor.tensor([-1., 2.]))
    tensor([-0.7869,  2.0000])
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        _A._number(alpha, "alpha", "CELU")
        self.alpha, self.inplace = _plain(alpha), inplace

    def _activate(self, input):
        return _F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace(self)}"


class Softsign(_Activation):
    """``x / (1 + |x|)`` elementwise, as a layer (F.softsign).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Softsign()(pydevtensor.tensor([-3., 1.]))
    tensor([-0.7500,  0.5000])
    """

    def _activate(self, input):
        return _F.softsign(input)


class Tanhshrink(_Activation):
    """``x - tanh(x)`` elementwise, as a layer (F.tanhshrink).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Tanhshrink()(pydevtensor.tensor([-1., 2.]))
    tensor([-0.2384,  1.0360])
    """

    def _activate(self, input):
        return _F.tanhshrink(input)


class RReLU(_Activation):
    """The randomized leaky ReLU, as a layer (F.rrelu): in training each negative
    element is scaled by a slope drawn from U(lower, upper) (the package's generator on
    the input's device), in evaluation by their mean.

    Parameters
    ----------
    lower : float, optional
        The lowest slope (default 1/8).
    upper : float, optional
        The highest slope (default 1/3).
    inplace : bool, optional
        Writes the result into the input (default False).

    Raises
    ------
    TypeError
        When a bound is not a number.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.RReLU(0.1, 0.3)
    RReLU(lower=0.1, upper=0.3)
    >>> nn.RReLU(0.1, 0.3).eval()(pydevtensor.tensor([-1., 2.]))
    tensor([-0.2000,  2.0000])
    """

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                 inplace: bool = False) -> None:
        super().__init__()
        _A._number(lower, "lower", "RReLU")
        _A._number(upper, "upper", "RReLU")
        self.lower, self.upper, self.inplace = _plain(lower), _plain(upper), inplace

    def _activate(self, input):
        return _F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{_inplace(self)}"


class PReLU(_Activation):
    """x where x > 0, ``a * x`` elsewhere, with a learned slope a: one, or one per
    channel (dimension 1 of the input), as a layer (F.prelu).

    Parameters
    ----------
    num_parameters : int, optional
        1 (default) or the number of channels.
    init : float, optional
        The slopes' first value (default 0.25).
    device : str or pydevtensor.device, optional
        Where the weight lives.
    dtype : pydevtensor.dtype, optional
        Its dtype (default: get_default_dtype(), float32 at start).

    Raises
    ------
    TypeError
        When num_parameters is not an int or init not a number.
    ValueError
        When num_parameters is below 1.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> act = nn.PReLU(2, init=0.5)
    >>> act
    PReLU(num_parameters=2)
    >>> act(pydevtensor.tensor([[-2., 2.]]))
    tensor([[-1.,  2.]], grad_fn=<PreluKernelBackward0>)
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        num_parameters = _size(num_parameters, "PReLU", "num_parameters", 1)  # NumPy's too
        _A._number(init, "init", "PReLU")
        self.num_parameters, self.init = num_parameters, init
        dtype = _C._get_default_dtype() if dtype is None else dtype
        self.weight = Parameter(_C.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Sets every slope to init, as PyTorch's.

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> act = nn.PReLU()
        >>> act.reset_parameters()
        >>> act.weight
        Parameter containing:
        tensor([0.2500], requires_grad=True)
        """
        self.weight.data.fill_(self.init)

    def _activate(self, input):
        return _F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class GLU(_Activation):
    """The gated linear unit, as a layer (F.glu): the input halved along dim into a
    and b, then ``a * sigmoid(b)``.

    Parameters
    ----------
    dim : int, optional
        The dimension halved (default -1).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.GLU()
    GLU(dim=-1)
    >>> nn.GLU(dim=0)(pydevtensor.tensor([3., 0.]))
    tensor([1.5000])
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def _activate(self, input):
        return _F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(_Activation):
    """``softmax(-x, dim)``, as a layer (F.softmin).

    Parameters
    ----------
    dim : int, optional
        The dimension normalised (None: PyTorch's deprecated implicit choice).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Softmin(dim=0)
    Softmin(dim=0)
    >>> nn.Softmin(dim=0)(pydevtensor.tensor([0., 0., 2.]))
    tensor([0.4683, 0.4683, 0.0634])
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def _activate(self, input):
        # (the warning is raised two frames down, in softmin's _softmax_dim)
        return _F.softmin(input, self.dim, _stacklevel=outside_level() + 2)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax2d(_Activation):
    """softmax over the channels (dimension -3) at every position of a ``(N, C, H, W)``
    or ``(C, H, W)`` input.

    Raises
    ------
    ValueError
        At forward, when the input is not 3-d or 4-d.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Softmax2d()(pydevtensor.zeros(1, 2, 1, 1)).flatten()
    tensor([0.5000, 0.5000])
    """

    def _activate(self, input: Tensor) -> Tensor:
        if not isinstance(input, _C.Tensor):
            raise TypeError(f"Softmax2d: input must be a Tensor, got {type(input).__name__}")
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D "
                             f"instead (shape {tuple(input.shape)} on {input.device})")
        return _stats.softmax(input, -3)


__all__ = ["CELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "PReLU", "RReLU", "SELU",
           "Softmax2d", "Softmin", "Softshrink", "Softsign", "Tanhshrink", "Threshold"]
