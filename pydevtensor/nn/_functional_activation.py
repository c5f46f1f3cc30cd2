"""The activation functions a D2L reader meets after ReLU, with PyTorch's names and
semantics: gelu (exact or tanh), silu, elu, softplus, mish, logsigmoid, hardtanh and
relu6 (re-exported by nn.functional).

Each is a composition of the C elementwise ops, so every device computes it; silu,
mish, softplus and logsigmoid are recorded as one node each with PyTorch's name and
gradient formula (_unary), the others differentiated through their pieces.  Where
PyTorch's written formula cancels, an equal one that does not is used: gelu as x/2 erfc(-x/sqrt 2) (1 + erf(.) loses the result for x below about -3),
its tanh form as x sigmoid(2u) (= x/2 (1 + tanh u)); softplus past its threshold is x
itself, and below it log1p(exp(.)) of an argument masked there, so that the branch not
taken never makes an inf (whose zero gradient would be NaN); logsigmoid as
min(x, 0) - log1p(exp(-abs(x)))."""
import math

from .. import _C, _args
from ..autograd.derivatives import zero_where
from ..autograd.dispatch import derivative, in_place, recorded
from ..autograd.node import Node

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _floating(input, name):
    """Refuses what PyTorch's kernels refuse: anything but a floating-point Tensor."""
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{name}(): input must be a Tensor, got {type(input).__name__}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"{name}(): expected a floating point tensor, got "
                                  f"{input.dtype} on {input.device}")


def _number(value, what, name):
    """value (a 0-d CPU tensor's value: _args.number) when it is a number."""
    value = _args.plain(_args.number(value))  # a NumPy scalar as a Python number
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name}(): {what} must be a number, got {type(value).__name__}")
    return value


_HALVES = (_C.float16, _C.bfloat16)


def _rounded_once(fn):
    """fn for float16 and bfloat16 inputs computed in float32 and rounded once to the
    input's dtype at the end, as PyTorch's kernels compute them (each op of a
    composition rounding to half precision left softmax's sum above 1 and gelu wrong
    in 849 of 2001 float16 inputs); fn itself for other dtypes."""
    def once(x):
        if x.dtype in _HALVES:
            return fn(x.float()).to(x.dtype)
        return fn(x)
    return once


def _result(input, fn, inplace, once=True):
    """fn(input) (rounded once for half types: _rounded_once, unless once is False: fn
    does it itself), written into input with inplace.  Under autograd fn runs on a
    clone (its backward keeps what it saved while input is overwritten) and input
    takes the result's node, as PyTorch's in-place forms (SiluBackward0, not
    CopyBackwards); the gradient flows through the clone to input's earlier value.
    A recorded op rounds itself (once=False): rounded here, its result's node was
    ToCopyBackward0 for float16 and bfloat16 (Note [activation forms])."""
    fn = _rounded_once(fn) if once else fn
    if not inplace:
        return fn(input)
    if not (input.requires_grad and _C.is_grad_enabled()):
        return input.copy_(fn(input))
    return in_place(input, lambda x: fn(x.clone()))  # fn's node becomes input's


_forms = {}


def _form(base, name):
    """base's subclass called name, made once: the Node of another form of base's op
    (Note [activation forms])."""
    if name == base.__name__:
        return base
    cls = _forms.get((base, name))
    if cls is None:
        cls = _forms[base, name] = type(name, (base,), {"__module__": base.__module__,
                                                        "__qualname__": name})
    return cls


class _Forms(Node):
    """A Node of an op whose last argument is the name it is recorded under.

    Note [activation forms]
    ~~~~~~~~~~~~~~~~~~~~~~~
    PyTorch names a node after the ATen function it differentiates: elu_ (elu's
    in-place form, whose derivative reads the result) is EluBackward1, selu EluBackward0
    (an elu with a scale), rrelu RreluWithNoiseBackward0, ... .  Ours share one gradient
    per op (from the input, kept on a clone for the in-place forms: the same numbers for
    every form), so a recorded op takes the name as its last argument and pick makes
    the subclass of that name (_form).  float16 and bfloat16 are computed in float32 and
    rounded once inside the recorded op and its backward (wide), as before; rounded
    around it, the op's node was ToCopyBackward0's input, not the result's node."""

    @classmethod
    def pick(cls, input, *params):
        return _form(cls, params[-1])

    def save(self, out, input, *params):
        self.save_tensors(input)
        self.params = params[:-1]
        return (input,)


def _wide(fn, g, x, *params):
    """fn(g, x, *params), in float32 for float16 and bfloat16 (rounded once to x's
    dtype): a gradient computed as the op's forward is (_rounded_once)."""
    if x.dtype in _HALVES:
        return fn(g.float(), x.float(), *params).to(x.dtype)
    return fn(g, x, *params)


class _SavesInput(Node):
    """A Node of an op of one tensor and numbers (params) that keeps the tensor."""

    def save(self, out, input, *params):
        self.save_tensors(input)
        self.params = params
        return (input,)


def _unary(op, node, forward, slope):
    """An elementwise op recorded as one node named node (PyTorch's; composed, the
    grad_fn was its last piece's): forward(x, *params), and the gradient
    g * slope(x, *params), both in float32 for float16/bfloat16 and rounded once; slope
    by recorded ops, so differentiable again (create_graph)."""

    def fn(x, *params):
        return _rounded_once(lambda t: forward(t, *params))(x)

    fn.__name__ = fn.__qualname__ = op

    class Backward(_SavesInput):
        def backward(self, g):
            (x,) = self.saved_tensors
            if x.dtype in _HALVES:
                return ((g.float() * slope(x.float(), *self.params)).to(x.dtype),)
            return (g * slope(x, *self.params),)

    Backward.__name__ = Backward.__qualname__ = node
    Backward.__doc__ = f"{op}'s gradient: g * {slope.__doc__} (_unary)."
    derivative(op)(Backward)
    return recorded(op)(fn)


def _silu_slope(x):
    """s (1 + x (1 - s)), s = sigmoid(x)"""
    s = x.sigmoid()
    return s * (1 + x * (1 - s))


def _mish_slope(x):
    """t + x sigmoid(x) (1 - t^2), t = tanh(softplus(x))"""
    t = _softplus(x, 1.0, 20.0).tanh()
    return t + x * x.sigmoid() * (1 - t * t)


def _softplus_slope(x, beta, threshold):
    """sigmoid(beta x), 1 where beta x > threshold"""
    scaled = x * beta if beta != 1 else x
    return scaled.sigmoid().where(~(scaled > threshold), 1.0)  # a NaN keeps its NaN


def _logsigmoid_slope(x):
    """sigmoid(-x)"""
    return (-x).sigmoid()


_silu = _unary("silu", "SiluBackward0", lambda x: x * x.sigmoid(), _silu_slope)
_mish = _unary("mish", "MishBackward0", lambda x: x * _softplus(x, 1.0, 20.0).tanh(),
               _mish_slope)
_softplus_op = _unary("softplus", "SoftplusBackward0", lambda x, b, t: _softplus(x, b, t),
                      _softplus_slope)
_logsigmoid_op = _unary("log_sigmoid", "LogSigmoidBackward0", lambda x: _logsigmoid(x),
                        _logsigmoid_slope)


def gelu(input, approximate="none"):
    """PyTorch's ``gelu``: x P(X <= x) for a standard normal X, that is
    ``x / 2 * (1 + erf(x / sqrt(2)))``, or with ``approximate='tanh'``
    ``x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3)))``, elementwise.

    Parameters
    ----------
    input : Tensor
        Floating point, any shape.
    approximate : str, optional
        ``'none'`` (default) for the exact form, ``'tanh'`` for the tanh one.

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a Tensor, or approximate not a string.
    NotImplementedError
        When input is not floating point (a RuntimeError, as PyTorch's).
    RuntimeError
        When approximate is another string (the message names the two).

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.gelu(pydevtensor.tensor([-1., 0., 2.]))
    tensor([-0.1587,  0.0000,  1.9545])
    >>> F.gelu(pydevtensor.tensor([-1., 0., 2.]), approximate='tanh')
    tensor([-0.1588,  0.0000,  1.9546])
    """
    _floating(input, "gelu")
    if not isinstance(approximate, str):
        raise TypeError(f"gelu(): approximate must be a string, 'none' or 'tanh', got "
                        f"{type(approximate).__name__}")
    if approximate == "none":
        return _C._gelu(input)  # one pass, half types in float32 rounded once
    if approximate == "tanh":
        return _rounded_once(_gelu_tanh)(input)
    raise RuntimeError(f"gelu(): approximate must be 'none' or 'tanh', got {approximate!r}")


def _gelu_tanh(x):
    u = (x * x * 0.044715 + 1.0) * x * (2.0 * _SQRT_2_OVER_PI)
    return x * u.sigmoid()


def silu(input, inplace=False):
    """PyTorch's ``silu`` (the swish): ``x * sigmoid(x)``, elementwise.

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
    >>> F.silu(pydevtensor.tensor([-1., 0., 2.]))
    tensor([-0.2689,  0.0000,  1.7616])
    """
    _floating(input, "silu")
    return _result(input, _silu, inplace, once=False)


def elu(input, alpha=1.0, inplace=False):
    """PyTorch's ``elu``: x where x > 0, ``alpha * (exp(x) - 1)`` elsewhere (expm1, exact
    near 0), elementwise; the gradient at 0 is alpha, as PyTorch's.

    Parameters
    ----------
    input : Tensor
        Floating point, any shape.
    alpha : float, optional
        The scale of the negative part (default 1.0).
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
    NotImplementedError
        When input is not floating point.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.elu(pydevtensor.tensor([-1., 0., 2.]))
    tensor([-0.6321,  0.0000,  2.0000])
    """
    _floating(input, "elu")
    alpha = _number(alpha, "alpha", "elu")
    name = "EluBackward1" if inplace else "EluBackward0"
    return _result(input, lambda x: _elu(x, alpha, 1, name), inplace, once=False)


@recorded("elu")
def _elu(input, alpha, scale, name):
    """scale * elu(input, alpha) (selu: PyTorch's constants), recorded as name:
    EluBackward0, or EluBackward1 for the in-place forms (Note [activation forms])."""
    def fn(x):
        positive = x > 0
        negative = x.where(~positive, 0.0).expm1() * alpha  # NaN stays here
        out = x.where(positive, negative)
        return out * scale if scale != 1 else out
    return _rounded_once(fn)(input)


@derivative("elu")
class EluBackward0(_Forms):
    """elu's gradient as PyTorch's: 1 where x > 0, ``alpha * exp(x)`` elsewhere (from x:
    expm1's own, from its result, rounds to 0 once exp(x) is below half an ulp of 1),
    times scale."""

    def backward(self, g):
        (x,) = self.saved_tensors
        return (_wide(_elu_grad, g, x, *self.params),)


def _elu_grad(g, x, alpha, scale):
    if scale != 1:
        g = g * scale
    negative = x < 0
    slope = x.where(negative, 0.0).exp() * alpha  # out of place: exp saved it
    # at 0 the slope is alpha (the left one, as PyTorch's), a constant there: its
    # own derivative at 0 is 0, as PyTorch's double backward gives (its mask: x < 0)
    return g * slope.where(negative, (x == 0).to(x.dtype) * (alpha - 1.0) + 1.0)


def softplus(input, beta=1.0, threshold=20.0):
    """PyTorch's ``softplus``: ``log(1 + exp(beta * x)) / beta``, elementwise, and x
    itself where ``beta * x > threshold`` (PyTorch's rule, for numerical stability).

    Parameters
    ----------
    input : Tensor
        Floating point, any shape.
    beta : float, optional
        The sharpness (default 1.0).
    threshold : float, optional
        Past this value of ``beta * x`` the result is x (default 20.0).

    Returns
    -------
    Tensor
        Of input's shape and dtype.

    Raises
    ------
    TypeError
        When input is not a Tensor, or beta or threshold not a number.
    NotImplementedError
        When input is not floating point.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.softplus(pydevtensor.tensor([-1., 0., 2., 30.]))
    tensor([ 0.3133,  0.6931,  2.1269, 30.0000])
    """
    _floating(input, "softplus")
    beta = _number(beta, "beta", "softplus")
    threshold = _number(threshold, "threshold", "softplus")
    return _softplus_op(input, beta, threshold)


def _softplus(input, beta, threshold):
    scaled = input * beta if beta != 1 else input
    linear = scaled > threshold
    if beta == 0:  # log(2) / 0 = inf, of the slope sigmoid(beta x) = 1/2 (PyTorch's; the
        # slope of every beta's softplus at x = 0, not log1p(exp(0 x)) / 0's NaN)
        return input.where(linear, input * 0.5 + math.inf)
    soft = scaled.where(~linear, 0.0).exp().log1p()  # never exp of a large argument
    return input.where(linear, soft / beta if beta != 1 else soft)


def mish(input, inplace=False):
    """PyTorch's ``mish``: ``x * tanh(softplus(x))``, elementwise.

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
    >>> F.mish(pydevtensor.tensor([-1., 0., 2.]))
    tensor([-0.3034,  0.0000,  1.9440])
    """
    _floating(input, "mish")
    return _result(input, _mish, inplace, once=False)


def logsigmoid(input):
    """PyTorch's ``logsigmoid``: ``log(1 / (1 + exp(-x)))``, elementwise, computed as
    ``min(x, 0) - log1p(exp(-abs(x)))``, which neither overflows nor rounds to 0 early
    (and has no threshold: softplus's costs float64 1e-10 relative near -20).

    Parameters
    ----------
    input : Tensor
        Floating point, any shape.

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
    >>> F.logsigmoid(pydevtensor.tensor([-30., 0., 2.]))
    tensor([-30.0000,  -0.6931,  -0.1269])
    """
    _floating(input, "logsigmoid")
    return _logsigmoid_op(input)


def _logsigmoid(input):
    negative = input < 0
    # -abs(x) as a where, whose gradient at 0 is -1 (abs's is 0): the slope there is 1/2
    return input.where(negative, 0.0) - input.where(negative, -input).exp().log1p()


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """PyTorch's ``hardtanh``: input clamped to [min_val, max_val], elementwise; the
    gradient is 1 strictly inside and 0 at and past the bounds, as PyTorch's.  Integer
    tensors keep their dtype (the bounds rounded inward); bool is refused.

    Parameters
    ----------
    input : Tensor
        Any shape; floating point or integer.
    min_val : float, optional
        The lower bound (default -1.0).
    max_val : float, optional
        The upper bound (default 1.0).
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
        When min_val > max_val.
    NotImplementedError
        When input is a bool tensor.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.hardtanh(pydevtensor.tensor([-2., 0.5, 3.]))
    tensor([-1.0000,  0.5000,  1.0000])
    """
    return _hardtanh(input, min_val, max_val, inplace, "hardtanh")


def _hardtanh(input, min_val, max_val, inplace, name):
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{name}(): input must be a Tensor, got {type(input).__name__}")
    min_val = _number(min_val, "min_val", name)
    max_val = _number(max_val, "max_val", name)
    if min_val > max_val:
        raise ValueError(f"{name}(): min_val cannot be greater than max_val, got min_val="
                         f"{min_val} and max_val={max_val}")
    if input.dtype == _C.bool:
        raise NotImplementedError(f"{name}(): bool inputs are not supported (as in PyTorch), "
                                  f"got a tensor of {input.dtype} on {input.device}")
    if not input.dtype.is_floating_point:  # the integers inside the bounds
        min_val, max_val = math.ceil(min_val), math.floor(max_val)
    return _result(input, lambda x: _clamp_graded(x, min_val, max_val), inplace, once=False)


class KinkedBackward(_SavesInput):
    """Base of the Nodes of the piecewise linear activations (hardtanh, leaky_relu,
    threshold, hardshrink, softshrink): the gradient is ``formula(g, x, *params)``, g
    masked or scaled by a piecewise constant of the saved input x, as PyTorch's
    *_backward kernels.  Under create_graph it requires grad when x does, with a zero
    derivative, as PyTorch's (Note [mask derivatives] in autograd/node.py)."""
    mask_derivative = True
    wide = False  # float16 and bfloat16 in float32, as the forward (_Forms' ops)

    def backward(self, g):
        (x,) = self.saved_tensors
        if self.wide:
            return (_wide(self.formula, g, x, *self.params),)
        return (self.formula(g, x, *self.params),)


@recorded("hardtanh")
def _clamp_graded(x, lo, hi):
    """x clamped to [lo, hi], recorded by HardtanhBackward0 (in float32 for the half
    types, rounded once)."""
    return _rounded_once(lambda t: t.clamp(lo, hi))(x)


@derivative("hardtanh")
class HardtanhBackward0(KinkedBackward):
    """PyTorch's hardtanh gradient: 0 where x <= lo or x >= hi (a NaN or inf gradient
    too), the gradient elsewhere (a NaN x too)."""
    formula = staticmethod(lambda g, x, lo, hi: zero_where((x <= lo).logical_or(x >= hi), g))
    wide = True


@recorded("leaky_relu")
def _leaky(x, slope, name):
    """x where x > 0, slope * x elsewhere (leaky_relu; rrelu, slope a tensor of x's shape
    in training), recorded as name: LeakyReluBackward0/1, RreluWithNoiseBackward0/1
    (Note [activation forms])."""
    return _rounded_once(lambda t: t.where(t > 0, t * slope))(x)


@derivative("leaky_relu")
class LeakyReluBackward0(_Forms, KinkedBackward):
    """PyTorch's leaky_relu gradient: g where x > 0, slope * g elsewhere (at 0 and NaN
    too)."""
    formula = staticmethod(lambda g, x, slope: g.where(x > 0, g * slope))
    wide = True


def relu6(input, inplace=False):
    """PyTorch's ``relu6``: ``min(max(x, 0), 6)``, elementwise (hardtanh(x, 0, 6)).

    Parameters
    ----------
    input : Tensor
        Any shape; floating point or integer.
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
        When input is a bool tensor.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> F.relu6(pydevtensor.tensor([-2., 3., 8.]))
    tensor([0., 3., 6.])
    """
    return _hardtanh(input, 0.0, 6.0, inplace, "relu6")


__all__ = ["elu", "gelu", "hardtanh", "logsigmoid", "mish", "relu6", "silu", "softplus"]
