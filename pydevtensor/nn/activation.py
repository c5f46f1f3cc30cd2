"""The activation layers after ReLU, with PyTorch's names, arguments and reprs: GELU,
SiLU, ELU, Softplus, Mish, LogSigmoid, Hardtanh and ReLU6 (their functions:
_functional_activation.py, re-exported by nn.functional)."""
import warnings

from .._args import plain as _plain
from . import _functional_activation as _F
from .layers import _Activation


class _InplaceActivation(_Activation):
    """An activation whose only argument is inplace= (PyTorch's repr: inplace=True or
    nothing)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class GELU(_Activation):
    """x P(X <= x) for a standard normal X, elementwise, as a layer (F.gelu).

    Parameters
    ----------
    approximate : str, optional
        ``'none'`` (default) for the exact form with erf, ``'tanh'`` for the tanh one.

    Raises
    ------
    TypeError
        When approximate is not a string.
    ValueError
        When approximate is another string (the message names the two).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.GELU()(pydevtensor.tensor([-1., 0., 2.]))
    tensor([-0.1587,  0.0000,  1.9545])
    >>> nn.GELU(approximate='tanh')
    GELU(approximate='tanh')
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        if not isinstance(approximate, str):
            raise TypeError(f"GELU: approximate must be a string, 'none' or 'tanh', got "
                            f"{type(approximate).__name__}")
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def _activate(self, input):
        return _F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(_InplaceActivation):
    """``x * sigmoid(x)`` elementwise, as a layer (F.silu).

    Parameters
    ----------
    inplace : bool, optional
        Writes the result into the input (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.SiLU()(pydevtensor.tensor([-1., 0., 2.]))
    tensor([-0.2689,  0.0000,  1.7616])
    """

    def _activate(self, input):
        return _F.silu(input, self.inplace)


class ELU(_Activation):
    """x where x > 0, ``alpha * (exp(x) - 1)`` elsewhere, as a layer (F.elu).

    Parameters
    ----------
    alpha : float, optional
        The scale of the negative part (default 1.0).
    inplace : bool, optional
        Writes the result into the input (default False).

    Raises
    ------
    TypeError
        When alpha is not a number.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.ELU(alpha=0.5)(pydevtensor.tensor([-1., 2.]))
    tensor([-0.3161,  2.0000])
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        _F._number(alpha, "alpha", "ELU")
        self.alpha = _plain(alpha)  # a NumPy scalar as a Python number
        self.inplace = inplace

    def _activate(self, input):
        return _F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Softplus(_Activation):
    """``log(1 + exp(beta * x)) / beta``, and x past ``beta * x > threshold``, as a layer
    (F.softplus).

    Parameters
    ----------
    beta : float, optional
        The sharpness (default 1.0).
    threshold : float, optional
        Past this value of ``beta * x`` the result is x (default 20.0).

    Raises
    ------
    TypeError
        When beta or threshold is not a number.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Softplus(beta=2.0)(pydevtensor.tensor([-1., 0., 2.]))
    tensor([0.0635, 0.3466, 2.0091])
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        _F._number(beta, "beta", "Softplus")
        _F._number(threshold, "threshold", "Softplus")
        self.beta, self.threshold = _plain(beta), _plain(threshold)

    def _activate(self, input):
        return _F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Mish(_InplaceActivation):
    """``x * tanh(softplus(x))`` elementwise, as a layer (F.mish).

    Parameters
    ----------
    inplace : bool, optional
        Writes the result into the input (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Mish()(pydevtensor.tensor([-1., 0., 2.]))
    tensor([-0.3034,  0.0000,  1.9440])
    """

    def _activate(self, input):
        return _F.mish(input, self.inplace)


class LogSigmoid(_Activation):
    """``log(sigmoid(x))`` elementwise, as a layer (F.logsigmoid).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.LogSigmoid()(pydevtensor.tensor([-30., 0., 2.]))
    tensor([-30.0000,  -0.6931,  -0.1269])
    """

    def _activate(self, input):
        return _F.logsigmoid(input)


class Hardtanh(_Activation):
    """The input clamped to [min_val, max_val], as a layer (F.hardtanh).

    Parameters
    ----------
    min_val : float, optional
        The lower bound (default -1.0).
    max_val : float, optional
        The upper bound (default 1.0).
    inplace : bool, optional
        Writes the result into the input (default False).
    min_value, max_value : float, optional
        Deprecated names of min_val and max_val, with PyTorch's FutureWarning; given,
        they replace them.

    Raises
    ------
    TypeError
        When a bound is not a number.
    ValueError
        When min_val > max_val (PyTorch's layer asserts it).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Hardtanh(-2., 2.)(pydevtensor.tensor([-3., 0.5, 3.]))
    tensor([-2.0000,  0.5000,  2.0000])
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None) -> None:
        super().__init__()
        name = type(self).__name__
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        _F._number(min_val, "min_val", name)
        _F._number(max_val, "max_val", name)
        if min_val > max_val:
            raise ValueError(f"{name}: min_val cannot be greater than max_val, got min_val="
                             f"{min_val} and max_val={max_val}")
        self.min_val, self.max_val = _plain(min_val), _plain(max_val)
        self.inplace = inplace

    def _activate(self, input):
        return _F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (
            ", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    """``min(max(x, 0), 6)`` elementwise, as a layer (F.relu6).

    Parameters
    ----------
    inplace : bool, optional
        Writes the result into the input (default False).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.ReLU6()(pydevtensor.tensor([-2., 3., 8.]))
    tensor([0., 3., 6.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def _activate(self, input):
        return _F.relu6(input, self.inplace)

    extra_repr = _InplaceActivation.extra_repr


__all__ = ["ELU", "GELU", "Hardtanh", "LogSigmoid", "Mish", "ReLU6", "SiLU", "Softplus"]
