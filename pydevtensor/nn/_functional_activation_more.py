"""The rest of PyTorch's elementwise activations, with its names, defaults and gradients
at the kinks: hardswish, hardsigmoid, hardshrink, softshrink, threshold, selu, celu,
softsign, tanhshrink and rrelu; and those with a parameter tensor or a dimension: prelu,
glu and softmin (re-exported by nn.functional; the layers are in nn/activation_more.py).

Each is a composition of the C elementwise ops, so autograd differentiates it and every
device computes it.  The pieces are chosen so that autograd's gradient is PyTorch's at
the kinks: hardswish's middle piece is the open (-3, 3) (PyTorch 2.15's backward gives 0
at -3 and 1 at 3, run side by side), hardsigmoid's clamp gives 0 at its bounds, as PyTorch's; a where() of a
masked argument keeps the branch not taken from making inf or NaN."""
import math
import warnings

from .. import _C, _args
from .. import _ops_stats as _stats
from .._ops_index import _dim, _truncated_for
from .._ops_join import cat as _cat
from ..autograd.derivatives import meta, reduce_grad, zero_where
from ..autograd.dispatch import derivative, recorded
from ..autograd.node import Node
from . import _functional_activation as _act

# SELU's constants (Klambauer et al., 2017), as PyTorch has them
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def hardswish(input, inplace=False):
    """PyTorch's ``hardswish``: ``x * relu6(x + 3) / 6``, elementwise: 0 below -3, x
    above 3, ``x (x + 3) / 6`` between; the gradient is (2x + 3) / 6 strictly between -3
    and 3, 0 at and below -3 and 1 at and above 3, as PyTorch's.

    Parameters
    ----------
    input : Tensor
        Floating point, any shape.
    inplace : bool, optional
        Writes the result into input and returns it (default False).

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a Tensor.
    NotImplementedError
        When input is not floating point.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.hardswish(pydevtensor.tensor([-4., -1., 0., 1., 4.]))
    tensor([-0.0000, -0.3333,  0.0000,  0.6667,  4.0000])
    """
    _act._floating(input, "hardswish")

    return _act._result(input, _hardswish, inplace, once=False)


@recorded("hardswish")
def _hardswish(x):
    """hardswish, recorded by HardswishBackward0 (in float32 for the half types, rounded
    once: Note [activation forms])."""
    def fn(t):
        middle = t * (t + 3.0) / 6.0
        return middle.where(t < 3.0, t).where(t > -3.0, t * 0.0)
    return _act._rounded_once(fn)(x)


@derivative("hardswish")
class HardswishBackward0(Node):
    """hardswish's gradient as PyTorch 2.15's, by selects: 0 up to -3 (included),
    ``x / 3 + 0.5`` below 3, 1 from 3 and for a NaN x; so an infinite x gives 0 or g."""

    def save(self, out, input):
        self.save_tensors(input)
        return (input,)

    def backward(self, g):
        (x,) = self.saved_tensors
        return (_act._wide(_hardswish_grad, g, x),)


def _hardswish_grad(g, x):
    inner = g * (x / 3.0 + 0.5)
    return inner.where(x < 3.0, g).masked_fill(x <= -3.0, 0.0)


def hardsigmoid(input, inplace=False):
    """PyTorch's ``hardsigmoid``: ``relu6(x + 3) / 6``, elementwise; the gradient is 1/6
    strictly between -3 and 3 and 0 elsewhere, as PyTorch's.

    Parameters
    ----------
    input : Tensor
        Floating point, any shape.
    inplace : bool, optional
        Writes the result into input and returns it (default False).

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a Tensor.
    NotImplementedError
        When input is not floating point.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.hardsigmoid(pydevtensor.tensor([-4., 0., 1.5, 4.]))
    tensor([0.0000, 0.5000, 0.7500, 1.0000])
    """
    _act._floating(input, "hardsigmoid")
    return _act._result(input, _hardsigmoid, inplace, once=False)


@recorded("hardsigmoid")
def _hardsigmoid(x):
    """hardsigmoid, recorded by HardsigmoidBackward0 (composed, the grad_fn was
    DivBackward0); in float32 for the half types, rounded once."""
    return _act._rounded_once(lambda t: (t + 3.0).clamp(0.0, 6.0) / 6.0)(x)


@derivative("hardsigmoid")
class HardsigmoidBackward0(_act.KinkedBackward):
    """PyTorch's hardsigmoid_backward: g / 6 strictly between -3 and 3, 0 elsewhere (at
    the bounds, for an infinite or NaN x too)."""
    formula = staticmethod(
        lambda g, x: zero_where((x > -3.0).logical_and(x < 3.0).logical_not(), g) / 6.0)
    wide = True


def _lambd(lambd, name, nonnegative):
    """lambd as a number (a 0-d CPU tensor's value too)."""
    lambd = _act._number(lambd, "lambd", name)
    if nonnegative and not lambd >= 0:
        raise ValueError(f"{name}(): lambd must be >= 0, got {lambd}")
    return lambd


def hardshrink(input, lambd=0.5):
    """PyTorch's ``hardshrink``: x where ``|x| > lambd``, 0 elsewhere (NaN stays NaN);
    the gradient is 1 where x is kept, 0 elsewhere.

    Parameters
    ----------
    input : Tensor
        Floating point, any shape.
    lambd : float, optional
        The threshold (default 0.5).

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a Tensor, or lambd not a number.
    NotImplementedError
        When input is not floating point.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.hardshrink(pydevtensor.tensor([-1., -0.5, 0.2, 0.7]))
    tensor([-1.0000,  0.0000,  0.0000,  0.7000])
    """
    _act._floating(input, "hardshrink")
    lambd = _lambd(lambd, "hardshrink", False)
    return _hardshrink(input, lambd)


def _inside(x, lambd):
    return (x >= -lambd).logical_and(x <= lambd)


@recorded("hardshrink")
def _hardshrink(input, lambd):
    return input.where(_inside(input, lambd).logical_not(), 0.0)


@derivative("hardshrink")
class HardshrinkBackward0(_act.KinkedBackward):
    """PyTorch's hardshrink gradient: 0 where -lambd <= x <= lambd, g elsewhere (NaN x
    too)."""
    formula = staticmethod(lambda g, x, lambd: zero_where(_inside(x, lambd), g))


def softshrink(input, lambd=0.5):
    """PyTorch's ``softshrink``: ``x - lambd`` above lambd, ``x + lambd`` below -lambd,
    0 between (NaN stays NaN); the gradient is 1 outside [-lambd, lambd], 0 inside.

    Parameters
    ----------
    input : Tensor
        Floating point, any shape.
    lambd : float, optional
        The threshold, >= 0 (default 0.5).

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a Tensor, or lambd not a number.
    ValueError
        When lambd is negative (PyTorch: a RuntimeError).
    NotImplementedError
        When input is not floating point.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.softshrink(pydevtensor.tensor([-1., -0.5, 0.2, 0.7]))
    tensor([-0.5000,  0.0000,  0.0000,  0.2000])
    """
    _act._floating(input, "softshrink")
    lambd = _lambd(lambd, "softshrink", True)
    return _softshrink(input, lambd)


@recorded("softshrink")
def _softshrink(input, lambd):
    shrunk = (input - lambd).where(input > lambd, input + lambd)
    return shrunk.where(_inside(input, lambd).logical_not(), 0.0)


@derivative("softshrink")
class SoftshrinkBackward0(HardshrinkBackward0):
    """PyTorch's softshrink gradient: hardshrink's."""


def threshold(input, threshold, value, inplace=False):
    """PyTorch's ``threshold``: x where ``x > threshold``, value elsewhere; the gradient
    is 1 where x is kept, 0 elsewhere.

    Parameters
    ----------
    input : Tensor
        Floating point or integer (not bool, as PyTorch's), any shape.
    threshold : float
        The value x must exceed to be kept.
    value : float
        What replaces the others (truncated toward zero for an integer input).
    inplace : bool, optional
        Writes the result into input and returns it (default False).

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a Tensor, or threshold or value not a number.
    NotImplementedError
        When input is a bool tensor.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.threshold(pydevtensor.tensor([-1., 0.5, 2.]), 0.5, -9.)
    tensor([-9., -9.,  2.])
    """
    if isinstance(input, _C.Tensor) and input.dtype != _C.bool:
        if not input.is_floating_point():  # PyTorch's kernel takes integers too
            # both truncated toward zero, as PyTorch casts them to the tensor's type
            threshold = _truncated_for(input, threshold, "threshold", "threshold")
            value = _truncated_for(input, value, "threshold", "value")
    else:
        _act._floating(input, "threshold")  # not a Tensor, or bool (refused as PyTorch)
    threshold = _act._number(threshold, "threshold", "threshold")
    value = _act._number(value, "value", "threshold")
    # NaN is not > threshold: PyTorch's kernel keeps it (x <= threshold is false too)
    name = "ThresholdBackward1" if inplace else "ThresholdBackward0"
    return _act._result(input, lambda x: _threshold(x, threshold, value, name), inplace,
                        once=False)


@recorded("threshold")
def _threshold(x, threshold, value, name):
    """value where x <= threshold, x elsewhere, recorded as name: ThresholdBackward0, or
    ThresholdBackward1 for the in-place form (Note [activation forms])."""
    return _act._rounded_once(lambda t: t.where((t <= threshold).logical_not(), value))(x)


@derivative("threshold")
class ThresholdBackward0(_act._Forms, _act.KinkedBackward):
    """PyTorch's threshold_backward: 0 where x <= threshold, g elsewhere (NaN x too)."""
    formula = staticmethod(lambda g, x, threshold, value: zero_where(x <= threshold, g))
    wide = True


def selu(input, inplace=False):
    """PyTorch's ``selu``: ``scale * elu(x, alpha)`` with PyTorch's constants
    alpha = 1.6732632423543772 and scale = 1.0507009873554805, elementwise.

    Parameters
    ----------
    input : Tensor
        Floating point, any shape.
    inplace : bool, optional
        Writes the result into input and returns it (default False).

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a Tensor.
    NotImplementedError
        When input is not floating point.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.selu(pydevtensor.tensor([-1., 0., 2.]))
    tensor([-1.1113,  0.0000,  2.1014])
    """
    _act._floating(input, "selu")
    # PyTorch's selu is elu with a scale: EluBackward0, EluBackward1 in place
    name = "EluBackward1" if inplace else "EluBackward0"
    return _act._result(input, lambda x: _act._elu(x, _SELU_ALPHA, _SELU_SCALE, name), inplace,
                        once=False)


def celu(input, alpha=1.0, inplace=False):
    """PyTorch's ``celu``: x where x > 0, ``alpha * (exp(x / alpha) - 1)`` elsewhere
    (expm1), elementwise; the gradient at 0 is 1, as PyTorch's.

    Parameters
    ----------
    input : Tensor
        Floating point, any shape.
    alpha : float, optional
        The scale, not 0 (default 1.0).
    inplace : bool, optional
        Writes the result into input and returns it (default False).

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a Tensor, or alpha not a number.
    ValueError
        When alpha is 0 (PyTorch: a RuntimeError).
    NotImplementedError
        When input is not floating point.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.celu(pydevtensor.tensor([-1., 0., 2.]), alpha=2.)
    tensor([-0.7869,  0.0000,  2.0000])
    """
    _act._floating(input, "celu")
    alpha = _act._number(alpha, "alpha", "celu")
    if alpha == 0:
        raise ValueError("celu(): alpha cannot be 0 (it divides the input)")
    name = "CeluBackward1" if inplace else "CeluBackward0"
    return _act._result(input, lambda x: _celu(x, alpha, name), inplace, once=False)


@recorded("celu")
def _celu(input, alpha, name):
    """celu, recorded as name: CeluBackward0, or CeluBackward1 for the in-place form
    (Note [activation forms]); in float32 for the half types, rounded once."""
    def fn(x):
        # 0 on x's side: both sides' slope is 1 there, and the second derivative at 0 is
        # then x's (0), as PyTorch's double backward gives it
        positive = x >= 0
        negative = (x.where(positive.logical_not(), 0.0) / alpha).expm1() * alpha
        return x.where(positive, negative)
    return _act._rounded_once(fn)(input)


@derivative("celu")
class CeluBackward0(_act._Forms):
    """celu's gradient as PyTorch's: g where x >= 0 or x is NaN, ``g * exp(x / alpha)``
    below 0; the slope is the constant 1 from 0 on, so its own derivative there is 0
    (double backward).  Composed (expm1(x / alpha) * alpha), the float32 gradient was
    ``g * (expm1(u) + 1)``, 0 once expm1(u) rounded to -1 (x / alpha below about -17,
    where exp(u) is still a float32 normal), and NaN at a NaN x."""

    def backward(self, g):
        (x,) = self.saved_tensors
        return (_act._wide(_celu_grad, g, x, *self.params),)


def _celu_grad(g, x, alpha):
    negative = x < 0
    return g.where(negative.logical_not(), g * (x.where(negative, 0.0) / alpha).exp())


def _integers_as_floating(input):
    """An integer Tensor (not bool) as the default floating dtype: softsign's and
    tanhshrink's true division and tanh promote it so in PyTorch."""
    if isinstance(input, _C.Tensor) and input.dtype in (_C.int8, _C.int16, _C.int32, _C.int64,
                                                        _C.uint8):
        return input.to(_C._get_default_dtype())
    return input


def softsign(input):
    """PyTorch's ``softsign``: ``x / (1 + |x|)``, elementwise.

    Parameters
    ----------
    input : Tensor
        Floating point or integer (taken as the default dtype, as PyTorch), any shape.

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a Tensor.
    NotImplementedError
        When input is neither floating point nor integer.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.softsign(pydevtensor.tensor([-3., 0., 1.]))
    tensor([-0.7500,  0.0000,  0.5000])
    """
    input = _integers_as_floating(input)
    _act._floating(input, "softsign")
    return _act._rounded_once(lambda x: x / (x.abs() + 1.0))(input)


def tanhshrink(input):
    """PyTorch's ``tanhshrink``: ``x - tanh(x)``, elementwise.

    Parameters
    ----------
    input : Tensor
        Floating point or integer (taken as the default dtype, as PyTorch), any shape.

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a Tensor.
    NotImplementedError
        When input is neither floating point nor integer.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.tanhshrink(pydevtensor.tensor([-1., 0., 2.]))
    tensor([-0.2384,  0.0000,  1.0360])
    """
    input = _integers_as_floating(input)
    _act._floating(input, "tanhshrink")
    return _act._rounded_once(lambda x: x - x.tanh())(input)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """PyTorch's ``rrelu``, the randomized leaky ReLU: x where x > 0, ``a * x``
    elsewhere, with a drawn from U(lower, upper) for each element in training (by the
    package's generator on input's device: one seed, the same slopes on every device)
    and ``a = (lower + upper) / 2`` otherwise; the gradient is 1 or a.

    Parameters
    ----------
    input : Tensor
        Floating point, any shape.
    lower : float, optional
        The lowest slope (default 1/8).
    upper : float, optional
        The highest slope (default 1/3).
    training : bool, optional
        Draw the slopes (default False: their mean).
    inplace : bool, optional
        Writes the result into input and returns it (default False).

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a Tensor, or a bound not a number.
    ValueError
        When lower > upper (an InvalidArgumentError, also a RuntimeError as PyTorch's).
    NotImplementedError
        When input is not floating point.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.rrelu(pydevtensor.tensor([-1., 2.]), 0.1, 0.3)
    tensor([-0.2000,  2.0000])
    >>> _ = pydevtensor.manual_seed(0)
    >>> y = F.rrelu(pydevtensor.tensor([-1., -1.]), 0.1, 0.3, training=True)
    >>> bool(((y <= -0.1) & (y >= -0.3)).all())
    True
    """
    _act._floating(input, "rrelu")
    lower = _act._number(lower, "lower", "rrelu")
    upper = _act._number(upper, "upper", "rrelu")
    training = _args.flag(training, "rrelu", "training")
    for name, v in (("lower", lower), ("upper", upper)):
        if not math.isfinite(v):  # PyTorch's check too
            raise ValueError(f"rrelu(): the {name} bound must be finite, got {v}")
    if lower > upper:
        raise _C.InvalidArgumentError(f"rrelu(): lower must be <= upper, got lower={lower} "
                                      f"and upper={upper}")
    # PyTorch's rrelu is rrelu_with_noise: RreluWithNoiseBackward0, ...1 in place
    name = "RreluWithNoiseBackward1" if inplace else "RreluWithNoiseBackward0"
    if not training:
        slope = (lower + upper) / 2.0
        return _act._result(input, lambda x: _act._leaky(x, slope, name), inplace, once=False)
    dtype = input.dtype if input.dtype in (_C.float32, _C.float64) else _C.float32
    u = _C.rand(tuple(input.shape), dtype=dtype, device=input.device)
    slopes = (u * (upper - lower) + lower).to(input.dtype)
    return _act._result(input, lambda x: _act._leaky(x, slopes, name), inplace, once=False)


def prelu(input, weight):
    """PyTorch's ``prelu``: x where x > 0, ``weight * x`` elsewhere, with one learned
    slope, or one per channel (dimension 1 of input); the gradient for the slope is x
    where x <= 0, summed over what shares it.

    Parameters
    ----------
    input : Tensor
        Floating point; 0-d with a single slope.
    weight : Tensor
        0-d or 1-d, the slopes: 1 element, or input.shape[1] of them; input's dtype
        and device.

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input or weight is not a Tensor, or their dtypes differ.
    NotImplementedError
        When input is not floating point.
    ValueError
        When weight has more than 1 dimension, or more than 1 element for a 0-d input,
        or a size neither 1 nor the channels' (an InvalidArgumentError, also a
        RuntimeError as PyTorch's).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.prelu(pydevtensor.tensor([[-1., 2.], [-2., -4.]]), pydevtensor.tensor([0.5, 0.25]))
    tensor([[-0.5000,  2.0000],
            [-1.0000, -1.0000]])
    """
    _act._floating(input, "prelu")
    if not isinstance(weight, _C.Tensor):
        raise TypeError(f"prelu(): weight must be a Tensor, got {type(weight).__name__}")
    if weight.dtype != input.dtype:
        raise _C.DTypeError(f"prelu(): weight is {weight.dtype} but input is {input.dtype} (on "
                            f"{input.device}); type promotion is not supported, as in PyTorch")
    if weight.ndim > 1:
        raise _C.InvalidArgumentError(f"prelu(): Expected `weight` to be a scalar or 1D tensor, "
                                      f"but got: ndim = {weight.ndim} (shape "
                                      f"{tuple(weight.shape)}, on {weight.device})")
    n = weight.numel()
    if input.ndim == 0 and n != 1:
        raise _C.InvalidArgumentError(f"prelu(): Not allow zero-dim input tensor with more than "
                                      f"one slope: a 0-d input takes 1, weight has {n} (on "
                                      f"{input.device})")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if n != 1 and n != channels:
        raise _C.InvalidArgumentError(
            f"prelu(): mismatch of parameter numbers and input channel size: weight has {n} "
            f"elements, the input of shape {tuple(input.shape)} has {channels} channels (on "
            f"{input.device}); expected 1 or {channels}")
    if n == 1:
        w = weight.reshape(())
    else:
        w = weight.reshape((1, channels) + (1,) * (input.ndim - 2))
    return _prelu(input, w)


@recorded("prelu")
def _prelu(x, w):
    """x where x > 0, w * x elsewhere (w broadcast against x), recorded by
    PreluKernelBackward0 (leaky_relu's forward, w a tensor)."""
    return x.where(x > 0, x * w)


@derivative("prelu")
class PreluKernelBackward0(Node):
    """PyTorch's prelu gradient: g where x > 0, ``w * g`` elsewhere for x; ``x * g``
    where x <= 0 (NaN too), summed to w's shape, for w.  Under create_graph each requires grad
    when x or w does, the derivatives through the masks being zeros (Note [mask
    derivatives]): differentiating x's gradient for x gives zeros, as PyTorch's."""
    mask_derivative = True

    def save(self, out, x, w):
        self.save_tensors(x, w)
        self.w_meta = meta(w)
        return (x, w)

    def backward(self, g):
        x, w = self.saved_tensors
        need_x, need_w = self.needs_input_grad
        positive = x > 0
        gx = g.where(positive, g * w) if need_x else None
        gw = reduce_grad(zero_where(positive, g * x), self.w_meta) if need_w else None
        return gx, gw


def glu(input, dim=-1):
    """PyTorch's ``glu``, the gated linear unit: input split in halves a and b along
    dim, then ``a * sigmoid(b)``.

    Parameters
    ----------
    input : Tensor
        Floating point, of even size along dim.
    dim : int, optional
        The dimension halved (default -1).

    Returns
    -------
    Tensor
        input's shape with dim halved.

    Raises
    ------
    TypeError
        When input is not a Tensor, or dim not an int.
    NotImplementedError
        When input is not floating point.
    ValueError
        When input is 0-d or its size along dim is odd (an InvalidArgumentError, also
        a RuntimeError as PyTorch's).
    IndexError
        When dim is out of range.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.glu(pydevtensor.tensor([[1., 2., 0., 100.]]))
    tensor([[0.5000, 2.0000]])
    """
    _act._floating(input, "glu")
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"glu(): dim must be an int, got {type(dim).__name__}")
    if input.ndim == 0:
        raise _C.InvalidArgumentError(f"glu(): the input is 0-d (on {input.device}); glu "
                                      f"halves a dimension, which a scalar does not have")
    _dim(dim, input.ndim, "glu", input)  # out of range: PyTorch's IndexError
    size = input.shape[dim]
    if size % 2:
        raise _C.InvalidArgumentError(
            f"glu(): halving dimension must be even, but dimension {dim % input.ndim} is size "
            f"{size} in the input of shape {tuple(input.shape)} (on {input.device})")
    return _glu(input, dim % input.ndim)


@recorded("glu")
def _glu(x, dim):
    """a * sigmoid(b), x = [a, b] along dim (checked: even), rounded once for the half
    types: one node, GluBackward0 as PyTorch's (composed, its grad_fn was MulBackward0)."""
    def halves(t):
        a, b = t.chunk(2, dim) if t.shape[dim] else (t, t)
        return a * b.sigmoid()
    return _act._rounded_once(halves)(x)


@derivative("glu")
class GluBackward0(_act._SavesInput):
    """PyTorch's glu_backward: ``[g sigmoid(b), g a sigmoid(b) (1 - sigmoid(b))]`` along
    dim (params[0]), in float32 for the half types (recorded: differentiable again)."""

    def backward(self, g):
        (x,) = self.saved_tensors
        (dim,) = self.params
        if x.shape[dim] == 0:
            return (_C.zeros_like(x),)
        half = x.dtype in _act._HALVES
        a, b = (x.float() if half else x).chunk(2, dim)
        g = g.float() if half else g
        s = b.sigmoid()
        d = _cat([g * s, g * a * s * (1 - s)], dim)
        return (d.to(x.dtype) if half else d,)


def _softmax_dim(name, input, dim, stacklevel, extra=0):
    """dim, or for None PyTorch's deprecated implicit choice (_get_softmax_dim), with its
    warning (at stacklevel + extra): 0 for 0-, 1- and 3-d inputs, 1 otherwise.  As
    PyTorch's, _stacklevel is read only for that warning."""
    if dim is not None:
        return dim
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{name}(): argument 'input' must be a Tensor, got "
                        f"{type(input).__name__}")
    stacklevel = _args.integer(stacklevel, name, "_stacklevel") + extra
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the "
                  f"call to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if input.ndim in (0, 1, 3) else 1


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """PyTorch's ``softmin``: ``softmax(-input, dim)``, entries along dim positive and
    summing to 1, the smallest input the largest.

    Parameters
    ----------
    input : Tensor
        Floating point.
    dim : int, optional
        The dimension normalised; None (deprecated, with PyTorch's warning) chooses 0
        for 0-, 1- and 3-d inputs, 1 otherwise.
    _stacklevel : int, optional
        PyTorch's argument for the warning's stack level.
    dtype : pydevtensor.dtype, optional
        Converts input to it first.

    Returns
    -------
    Tensor
        Of input's shape (dtype when given).

    Raises
    ------
    TypeError
        When input is not a Tensor.
    IndexError
        When dim is out of range.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.softmin(pydevtensor.tensor([0., 0., 2.]), dim=0)
    tensor([0.4683, 0.4683, 0.0634])
    """
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"softmin(): input must be a Tensor, got {type(input).__name__}")
    dim = _softmax_dim("softmin", input, dim, _stacklevel)
    if isinstance(dim, int) and not isinstance(dim, bool):
        _dim(dim, input.ndim, "softmin", input)  # out of range: PyTorch's IndexError
    if dtype is not None:
        input = input.to(dtype)
    return _stats.softmax(-input, dim)


__all__ = ["celu", "glu", "hardshrink", "hardsigmoid", "hardswish", "prelu", "rrelu", "selu",
           "softmin", "softshrink", "softsign", "tanhshrink", "threshold"]
