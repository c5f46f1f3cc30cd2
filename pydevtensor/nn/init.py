"""nn.init: filling parameters in place, as PyTorch's torch.nn.init (the names, the
arguments and the bounds are PyTorch's).  Each function runs under no_grad, so it
works on a Parameter (a leaf that requires grad), fills the tensor on its own
device with the package's generator (the same numbers on every device for a seed),
and returns the tensor.

    def init_normal(m):
        if type(m) == nn.Linear:
            nn.init.normal_(m.weight, mean=0, std=0.01)
            nn.init.zeros_(m.bias)
    net.apply(init_normal)
"""
import math
import warnings

from .. import _C
from ..autograd.grad_mode import no_grad

__all__ = ["calculate_gain", "constant_", "dirac_", "eye_", "kaiming_normal_",
           "kaiming_uniform_", "normal_", "ones_", "orthogonal_", "sparse_", "trunc_normal_",
           "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_"]


def _tensor(t, op):
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"nn.init.{op}(): expected a Tensor, got {type(t).__name__}")
    from .parameter import UninitializedParameter
    if isinstance(t, UninitializedParameter):  # filling its empty placeholder would be lost
        raise ValueError(f"nn.init.{op}(): the parameter is not initialized yet (a lazy "
                         f"layer such as nn.LazyLinear): run the model once on an input "
                         f"first, then initialize it (D2L's net(X); net.apply(init))")
    return t


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills tensor with values drawn uniformly from [a, b) (from generator when
    given, else the package's); returns it."""
    with no_grad():
        return _tensor(tensor, "uniform_").uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills tensor with values drawn from N(mean, std^2) (from generator when given,
    else the package's); returns it."""
    with no_grad():
        return _tensor(tensor, "normal_").normal_(mean, std, generator=generator)


def constant_(tensor, val):
    """Fills tensor with val; returns it."""
    with no_grad():
        return _tensor(tensor, "constant_").fill_(val)


def ones_(tensor):
    """Fills tensor with 1; returns it."""
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fills tensor with 0; returns it."""
    with no_grad():
        return _tensor(tensor, "zeros_").zero_()


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (PyTorch's table).

    Parameters
    ----------
    nonlinearity : str
        The nn.functional name: ``'linear'`` (or ``'identity'``), ``'sigmoid'``,
        ``'conv1d'`` to ``'conv3d'``, ``'conv_transpose1d'`` to ``'conv_transpose3d'``
        (the int 1, as PyTorch's), ``'tanh'`` (5/3), ``'relu'`` (sqrt(2)),
        ``'leaky_relu'`` (sqrt(2 / (1 + slope^2))), ``'selu'`` (3/4).
    param : int or float, optional
        leaky_relu's negative slope (default 0.01).

    Returns
    -------
    int or float

    Raises
    ------
    ValueError
        For another nonlinearity, or a slope that is not a number.

    Examples
    --------
    >>> pydevtensor.nn.init.calculate_gain("conv2d"), pydevtensor.nn.init.calculate_gain("selu")
    (1, 0.75)
    """
    if nonlinearity in ("linear", "identity", "sigmoid", "conv1d", "conv2d", "conv3d",
                        "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"):
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"calculate_gain(): negative_slope {slope!r} is not a number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"calculate_gain(): unsupported nonlinearity {nonlinearity!r}")


def _fans(tensor, op):
    """(fan_in, fan_out) of a weight: (in, out) features for a 2-d (out, in) weight,
    times the receptive field for more dimensions."""
    if _tensor(tensor, op).ndim < 2:
        raise ValueError(f"nn.init.{op}(): fan in and fan out cannot be computed for a tensor "
                         f"with fewer than 2 dimensions (shape {tuple(tensor.shape)})")
    field = 1
    for s in tuple(tensor.shape)[2:]:
        field *= s
    return tensor.shape[1] * field, tensor.shape[0] * field


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out) of a weight, as PyTorch's private helper of that name (custom
    reset_parameters call it)."""
    return _fans(tensor, "_calculate_fan_in_and_fan_out")


def _mode(mode):
    """mode in lower case, as PyTorch's _calculate_correct_fan reads it ('FAN_OUT' too)."""
    return mode.lower() if isinstance(mode, str) else mode


def _calculate_correct_fan(tensor, mode):
    """fan_in or fan_out of a weight, as mode says, in any case (PyTorch's private
    helper)."""
    mode = _mode(mode)
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _fans(tensor, "_calculate_correct_fan")
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot's uniform fill: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _fans(tensor, "xavier_uniform_")
    a = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot's normal fill: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _fans(tensor, "xavier_normal_")
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity, op):
    mode = _mode(mode)
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"nn.init.{op}(): mode {mode!r} is neither 'fan_in' nor 'fan_out'")
    fan_in, fan_out = _fans(tensor, op)
    fan = fan_in if mode == "fan_in" else fan_out
    return calculate_gain(nonlinearity, a) / math.sqrt(fan) if fan else 0.0


def _no_elements(tensor, op):
    """True, after PyTorch's warning, when tensor has no elements (kaiming's fills
    return such a tensor as it is, whatever its dimensions and mode)."""
    if _tensor(tensor, op).numel():
        return False
    warnings.warn("Initializing zero-element tensors is a no-op", UserWarning, stacklevel=3)
    return True


def kaiming_uniform_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He's uniform fill: U(-b, b) with b = sqrt(3) * gain / sqrt(fan); a tensor with no
    elements is returned as it is, with PyTorch's warning."""
    if _no_elements(tensor, "kaiming_uniform_"):
        return tensor
    b = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity, "kaiming_uniform_")
    return uniform_(tensor, -b, b, generator)


def kaiming_normal_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He's normal fill: N(0, std^2) with std = gain / sqrt(fan); a tensor with no
    elements is returned as it is, with PyTorch's warning."""
    if _no_elements(tensor, "kaiming_normal_"):
        return tensor
    std = _kaiming_std(tensor, a, mode, nonlinearity, "kaiming_normal_")
    return normal_(tensor, 0.0, std, generator)


from ._init_more import dirac_, eye_, orthogonal_, sparse_, trunc_normal_  # noqa: E402,F401


# PyTorch's deprecated names without the trailing underscore (nn.init.normal for
# nn.init.normal_): each warns PyTorch's FutureWarning and calls the new one.
_DEPRECATED_EXAMPLE_ARGS = {"constant": "w, 0.5", "sparse": "w, 0.5",
                            "dirac": "pydevtensor.empty(2, 2, 3)"}


def _deprecated(new):
    old_name = new.__name__[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new.__name__}`.", FutureWarning, stacklevel=2)
        return new(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"""PyTorch's deprecated name of :func:`{new.__name__}`: warns
    a FutureWarning, then calls it.

    Parameters
    ----------
    *args, **kwargs
        The arguments of ``{new.__name__}``.

    Returns
    -------
    Tensor
        What ``{new.__name__}`` returns (the tensor, filled).

    Examples
    --------
    >>> import warnings
    >>> from pydevtensor import nn
    >>> w = pydevtensor.empty(3, 4)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = nn.init.{old_name}({_DEPRECATED_EXAMPLE_ARGS.get(old_name, "w")})
    >>> str(caught[0].message)
    '`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new.__name__}`.'
    """
    return deprecated_init


uniform, normal, constant = _deprecated(uniform_), _deprecated(normal_), _deprecated(constant_)
xavier_uniform, xavier_normal = _deprecated(xavier_uniform_), _deprecated(xavier_normal_)
kaiming_uniform, kaiming_normal = _deprecated(kaiming_uniform_), _deprecated(kaiming_normal_)
orthogonal, sparse = _deprecated(orthogonal_), _deprecated(sparse_)
eye, dirac = _deprecated(eye_), _deprecated(dirac_)
