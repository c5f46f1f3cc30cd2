"""Special functions PyTorch has at the top level and in ``torch.special``: logit, xlogy,
xlog1py, entr, sinc, ndtr, and exp2 from C (``pydevtensor.special`` gathers them with the
aliases).

Each is the expression its docstring names over the elementwise ops, so it runs on
every device and autograd records the pieces.  Where the expression has a removable
singularity or a 0 * log(0) (sinc at 0, xlogy and entr at 0), the other branch of the
``where`` is fed a harmless value, so that neither the value nor the gradient there is
NaN (Note [the other branch of where]).

Note [the other branch of where]
--------------------------------
``where(c, a, b)`` passes a zero gradient to the branch it did not take, but the
branch's own backward still multiplies that zero by its local derivative: 0 * inf is
NaN.  sin(pi x) / (pi x) at x = 0 has an infinite local derivative of the division, so
sinc computes the quotient at ``where(x == 0, 1, x)`` instead, and takes 1 where x is 0.
"""
import builtins
import math

from . import _C, _args
from ._dtype_info import result_type
from ._ops_index import where
from .autograd.derivatives import reduce_grad
from .autograd.derivatives_operands import _SavesOperands
from .autograd.dispatch import derivative, recorded
from .autograd.node import Node
from ._ops_pointwise import _in_place
from ._out import _out_written, refuse_grad, takes_out


def _where_other(cond, taken, fn, x):
    """``taken`` where cond holds, fn(x) elsewhere, with fn fed a harmless 1 where cond
    holds (Note [the other branch of where])."""
    return where(cond, taken, fn(where(cond, 1.0, x)))


def _floating(x, op, name="input"):
    """x as a Tensor of a floating dtype (integers and bools go to the default float
    dtype, as PyTorch's unary float ops do)."""
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be a Tensor, got {type(x).__name__}")
    return x if x.is_floating_point() else x.to(_C._get_default_dtype())


def _x_log(op, x, y, log, scalar_log, neutral, low):
    """x * log(y), 0 where x is 0 unless y is NaN (xlogy, xlog1py).  x and y: a tensor
    and a tensor or a number, in either order.  A number stays a Python number (a
    wrapped number: the tensor's dtype decides, integers giving float32), so the
    dtype rules are those of ``*``; so are the broadcasting and the device checks."""
    number = (builtins.int, builtins.float)
    for name, v in (("input", x), ("other", y)):
        if not isinstance(v, (_C.Tensor, number)):
            raise TypeError(f"{op}(): argument '{name}' must be a Tensor or a number, got "
                            f"{type(v).__name__}")
    # a bool number is 0 or 1, as PyTorch reads it (xlogy(t, True) is t * log(1))
    x, y = (builtins.int(v) if isinstance(v, builtins.bool) else v for v in (x, y))
    if not isinstance(x, _C.Tensor) and not isinstance(y, _C.Tensor):
        raise TypeError(f"{op}(): expected a Tensor for input or other, got two numbers")
    if isinstance(y, _C.Tensor):
        if isinstance(x, _C.Tensor):
            # the log in the result's dtype: a float16 y beside a float64 x is widened
            # first (its log in float16 lost digits), an integer pair gives the default
            dt = result_type(x, y)
            dt = dt if dt.is_floating_point else _C._get_default_dtype()
            if y.dtype != dt:
                y = y.to(dt)
        elif not y.is_floating_point():  # (int y).log() is float32
            y = y.to(_C._get_default_dtype())
        if isinstance(x, _C.Tensor):
            return _X_LOG_TENSORS[op](x, y)
        if x != 0:
            return x * log(y)
        x = abs(x)  # +0 (not -0 for x = -0.0), or NaN where y is
        return x * log(where(~y.isnan(), neutral, y))
    x = x if x.is_floating_point() else x.to(_C._get_default_dtype())
    ly = scalar_log(y)
    if math.isnan(y):
        return x * ly
    # +0 where x is 0 (PyTorch's; x * log(y) was -0 for y < 1 or x = -0)
    return where(x == 0, 0.0, x * _C.full((), ly, dtype=x.dtype, device=x.device))


def _scalar_log(y):
    return -math.inf if y == 0 else math.nan if y < 0 or math.isnan(y) else math.log(y)


def _scalar_log1p(y):
    return -math.inf if y == -1 else math.nan if y < -1 or math.isnan(y) else math.log1p(y)


def _x_log_tensors(x, y, log, neutral, low):
    """_x_log of two tensors (recorded as xlogy or xlog1py: XlogyBackward0)."""
    # y at or below log's domain where x is 0: the log of a neutral value there (log(1) =
    # log1p(0) = 0), so the product is 0
    skip = (x == 0) & (y <= low)
    product = x * log(where(skip, neutral, y))
    # +0 where x is 0 and y is not NaN, as PyTorch's: not 0 * inf (NaN), nor -0 (x = -0,
    # or a negative log)
    out = where((x == 0) & ~y.isnan(), 0.0, product)
    # where() broadcast a 0-d y: the dtype is the one x * y has (PyTorch's rule for a 0-d
    # operand), result_type's
    dtype = result_type(x, y)
    return out if out.dtype == dtype else out.to(dtype)


@recorded("xlogy")
def _xlogy_tensors(x, y):
    return _x_log_tensors(x, y, lambda y: y.log(), 1.0, 0.0)


@recorded("xlog1py")
def _xlog1py_tensors(x, y):
    return _x_log_tensors(x, y, lambda y: y.log1p(), 0.0, -1.0)


_X_LOG_TENSORS = {"xlogy": _xlogy_tensors, "xlog1py": _xlog1py_tensors}


@derivative("xlogy")
class XlogyBackward0(_SavesOperands):
    """PyTorch's: ``xlogy(g, y)`` for x, 0 where x is 0 and y <= 0 (so log(y) = inf at
    x = 0, y = inf, where the result is 0); ``g x / y`` for y.  Written with xlogy itself,
    so that the second derivatives are PyTorch's too."""

    low, shift = 0.0, 0.0

    def outer(self, g, y):
        return xlogy(g, y)

    def backward(self, g):
        x, y = self._values()
        mx, my = self.metas
        need_x, need_y = self.needs_input_grad
        gx = gy = None
        if need_x:
            gx = reduce_grad(self.outer(g, y).masked_fill((x == 0) & (y <= self.low), 0.0),
                             mx)
        if need_y:
            gy = reduce_grad(g * x / (y + self.shift if self.shift else y), my)
        return gx, gy


@derivative("xlog1py")
class Xlog1PyBackward0(XlogyBackward0):
    """PyTorch's: ``xlog1py(g, y)`` for x, 0 where x is 0 and y <= -1; ``g x / (1 + y)``
    for y."""

    low, shift = -1.0, 1.0

    def outer(self, g, y):
        return xlog1py(g, y)


@recorded("logit")
def logit(input, eps=None, *, out=None):
    """The log-odds ``log(p / (1 - p))``, the inverse of sigmoid.

    Parameters
    ----------
    input : Tensor
        Probabilities (also the method ``x.logit()``); integers and bools give float32.
    eps : float, optional
        When given, input is first clamped to ``[eps, 1 - eps]`` (so 0 and 1 give finite
        values; the gradient is 0 outside that range, as PyTorch's): below eps to eps,
        then above 1 - eps to 1 - eps, PyTorch's order (for eps > 1/2 a value below eps
        gives logit(eps)).  Without it (or with eps < 0, as PyTorch's), 0 gives -inf,
        1 gives inf and values outside [0, 1] give NaN, and so does their gradient.
    out : Tensor, optional
        Written with the result and returned: of any dtype the result's can be cast to
        (as PyTorch's; DTypeError otherwise), the result's device, and its shape or no
        elements (then given the result's shape); refused where an argument requires
        grad.

    Returns
    -------
    Tensor
        Of input's shape.

    Examples
    --------
    >>> pydevtensor.logit(pydevtensor.tensor([0.25, 0.5, 0.75]))
    tensor([-1.0986,  0.0000,  1.0986])
    >>> pydevtensor.logit(pydevtensor.tensor([0.0, 1.0]), eps=1e-6)
    tensor([-13.8155,  13.8023])
    """
    if out is not None:  # grad-requiring input refused by recorded()
        return _out_written(logit(input, eps), out, "logit", castable=True)
    x = _floating(input, "logit")
    eps = _args.number(eps)
    if eps is not None:
        if isinstance(eps, builtins.bool) or not isinstance(eps, (builtins.int, builtins.float)):
            raise TypeError(f"logit(): eps must be a float, got {type(eps).__name__}")
        if eps >= 0:  # a negative eps is none (PyTorch's): its clamp keeps NaN outside
            x = where(x < eps, eps, where(x > 1 - eps, 1 - eps, x)).to(x.dtype)
    # Near 1/2 log(x / (1 - x)) is the log of a number near 1, whose rounding was up to
    # 90 ulps of the small result (PyTorch's too); there 2x - 1 is exact and
    # log1p((2x - 1) / (1 - x)) keeps the digits.
    d = 2 * x - 1
    return where(d.abs() < 0.5, (d / (1 - x)).log1p(), (x / (1 - x)).log())


def xlogy(input, other, *, out=None):
    """``input * log(other)``, taken as 0 where input is 0 (unless other is NaN).

    Parameters
    ----------
    input, other : Tensor or number
        At least one a Tensor; they broadcast, and promote to a floating dtype (also the
        method ``x.xlogy(y)``).
    out : Tensor, optional
        Written with the result and returned: of any dtype the result's can be cast to
        (as PyTorch's; DTypeError otherwise), the result's device, and its shape or no
        elements (then given the result's shape); refused where an argument requires
        grad.

    Returns
    -------
    Tensor
        Of the broadcast shape.  ``xlogy(0, 0)`` is 0 where ``0 * log(0)`` is NaN.

    Examples
    --------
    >>> pydevtensor.xlogy(pydevtensor.tensor([0.0, 2.0, 0.0]), pydevtensor.tensor([0.0, 4.0, 3.0]))
    tensor([0.0000, 2.7726, 0.0000])
    """
    if out is not None:
        refuse_grad("xlogy", input, other)
        return _out_written(xlogy(input, other), out, "xlogy", castable=True)
    return _x_log("xlogy", input, other, lambda y: y.log(), _scalar_log, 1.0, 0.0)


@takes_out("xlog1py", castable=True)
def xlog1py(input, other):
    """``input * log1p(other)``, taken as 0 where input is 0 (unless other is NaN).

    Parameters
    ----------
    input, other : Tensor or number
        At least one a Tensor; they broadcast, and promote to a floating dtype.

    Returns
    -------
    Tensor
        Of the broadcast shape.

    Examples
    --------
    >>> pydevtensor.special.xlog1py(pydevtensor.tensor([0.0, 2.0]), pydevtensor.tensor([-1.0, 3.0]))
    tensor([0.0000, 2.7726])
    """
    return _x_log("xlog1py", input, other, lambda y: y.log1p(), _scalar_log1p, 0.0, -1.0)


@takes_out("entr", castable=True)
def entr(input):
    """The elementwise entropy term: ``-x log(x)`` for x > 0, 0 at 0, -inf for x < 0.

    Parameters
    ----------
    input : Tensor
        Integers and bools give float32.

    Returns
    -------
    Tensor
        Of input's shape; NaN stays NaN.

    Examples
    --------
    >>> pydevtensor.special.entr(pydevtensor.tensor([0.0, 0.5, 1.0, -1.0]))
    tensor([0.0000, 0.3466, -0.0000,   -inf])
    """
    return _entr(_floating(input, "entr"))


@recorded("special_entr")
def _entr(x):
    safe = where(x > 0, x, 1.0)
    inside = -(safe * safe.log())
    return where(x > 0, inside, where(x == 0, 0.0, where(x < 0, -math.inf, x)))


@derivative("logit")
class LogitBackward0(Node):
    """PyTorch's: ``g / (x (1 - x))``; without eps (or with eps < 0) NaN outside [0, 1]
    and g * inf at 0 (-0.0 too: the limit from inside) and 1, with eps >= 0 zero outside
    [eps, 1 - eps] (where the clamp is flat)."""

    def save(self, result, input, eps=None):
        self.save_tensors(input)
        eps = _args.number(eps)
        self.eps = None if eps is not None and eps < 0 else eps
        return (input,)

    def backward(self, g):
        (x,) = self.saved_tensors
        d = g / (x * (1 - x) + 0.0)  # + 0.0: -0.0 at x = -0.0 made the gradient -inf
        if self.eps is None:
            return (d.masked_fill((x < 0).logical_or(x > 1), math.nan),)
        return (d.masked_fill((x < self.eps).logical_or(x > 1 - self.eps), 0.0),)


@derivative("special_entr")
class SpecialEntrBackward0(Node):
    """PyTorch's: ``-g (1 + log(x))``: inf at 0, NaN below."""

    def save(self, result, x):
        self.save_tensors(x)
        return (x,)

    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * (x.log() + 1).neg(),)


# exp2 is C's (csrc/python/tensor_trig.c): its own op, within 1 ulp on the CPU (Note
# [float32 exp2] in csrc/cpu/cpu_vexp2.h); 2 ** x stays pow, correctly rounded there.
exp2 = _C.exp2


def sinc(input, *, out=None):
    """The normalised sinc, ``sin(pi x) / (pi x)``, 1 at 0.

    Parameters
    ----------
    input : Tensor
        Also the method ``x.sinc()``; integers and bools give float32.
    out : Tensor, optional
        Written with the result and returned: of any dtype the result's can be cast to
        (as PyTorch's; DTypeError otherwise), the result's device, and its shape or no
        elements (then given the result's shape); refused where an argument requires
        grad.

    Returns
    -------
    Tensor
        Of input's shape; the gradient at 0 is 0.

    Examples
    --------
    >>> pydevtensor.sinc(pydevtensor.tensor([0.0, 0.5, 1.0]))
    tensor([ 1.0000e+00,  6.3662e-01, -2.7828e-08])
    """
    if out is not None:
        refuse_grad("sinc", input)
        return _out_written(sinc(input), out, "sinc", castable=True)
    x = _floating(input, "sinc")
    if x.dtype in (_C.float16, _C.bfloat16):  # computed in float32, rounded once
        return sinc(x.float()).to(x.dtype)
    # near 0 the series 1 - (pi x)^2 / 6 (its next term is below the dtype's rounding
    # there), so that the gradient -(pi^2) x / 3 does not come from the cancellation of
    # cos(pi x) / x and sin(pi x) / (pi x^2); elsewhere the quotient, at a harmless x
    # near 0 (Note [the other branch of where])
    small = x.abs() < (1e-4 if x.dtype == _C.float64 else 1e-2)
    t = x * math.pi
    px = where(small, 1.0, x) * math.pi
    return where(small, 1.0 - t * t / 6.0, px.sin() / px)


@takes_out("ndtr", castable=True)
def ndtr(input):
    """The standard normal distribution function, ``(1 + erf(x / sqrt(2))) / 2``
    (computed as ``erfc(-x / sqrt(2)) / 2``, exact in the lower tail).

    Parameters
    ----------
    input : Tensor
        Integers and bools give float32.

    Returns
    -------
    Tensor
        Of input's shape, in [0, 1].

    Examples
    --------
    >>> pydevtensor.special.ndtr(pydevtensor.tensor([-1.0, 0.0, 1.0]))
    tensor([0.1587, 0.5000, 0.8413])
    """
    x = _floating(input, "ndtr")
    return (x * -math.sqrt(0.5)).erfc() * 0.5


for _fn, _example in ((logit, ("eps=0.25", "tensor([1.0986, 1.0986])")),
                     (xlogy, ("4.0", "tensor([1.3863, 2.7726])")),
                     (sinc, ("", "tensor([-2.7828e-08,  2.7828e-08])"))):
    setattr(_C.Tensor, _fn.__name__, _fn)
    setattr(_C.Tensor, _fn.__name__ + "_", _in_place(_fn, _example))

__all__ = ["exp2", "logit", "sinc", "xlogy"]
