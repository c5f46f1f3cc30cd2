"""bernoulli, Tensor.bernoulli, Tensor.bernoulli_ and Tensor.random_: draws written on
``rand`` and ``randint`` (the Philox stream of the default generator or of a given
``Generator``), so one seed gives the same draws on every device.

A Bernoulli draw of probability p is ``u < p`` with u a float64 uniform on [0, 1) (53
random bits): p = 0 never gives 1, p = 1 always does.  The probabilities are checked to
lie in [0, 1] first; for a tensor p that reads one flag back to the host, as PyTorch's
check does on the CPU.
"""
from numbers import Real

from . import _C
from ._ops_index import _broadcast_shape, _int_arg, _tensor_arg
from .autograd import no_grad
from .autograd.dispatch import derivative, recorded
from .autograd.node import Node

__all__ = ["bernoulli"]


def _check_probs(where, p, like):
    """p (a number in [0, 1] or a floating tensor on like's device, all in [0, 1])."""
    if isinstance(p, _C.Tensor):
        if not p.is_floating_point():
            raise _C.DTypeError(f"{where}: p must be a floating-point tensor or a number, got "
                                f"{p.dtype} (shape {tuple(p.shape)}, on {p.device})")
        if p.device != like.device:
            raise _C.DeviceError(f"{where}: Expected all tensors to be on the same device, but "
                                 f"found at least two devices, {like.device} and {p.device} (self "
                                 f"and p)")
        with no_grad():
            bad = p.numel() and bool(((p < 0) | (p > 1) | p.isnan()).any())
        if bad:
            raise RuntimeError(f"{where}: Expected p_in >= 0 && p_in <= 1 to be true, but got "
                               f"false (a probability outside [0, 1] or NaN; shape "
                               f"{tuple(p.shape)}, {p.dtype}, on {p.device})")
        return p
    if not isinstance(p, Real):  # a bool is 0 or 1, as PyTorch's
        raise TypeError(f"{where}: p must be a number or a Tensor, got {type(p).__name__}")
    if not 0 <= p <= 1:
        raise RuntimeError(f"{where}: bernoulli expects p to be in [0, 1], but got p={p}")
    return float(p)


def _draw(shape, p, device, generator):
    """A bool tensor of shape: u < p for float64 uniforms u."""
    with no_grad():
        u = _C.rand(shape, dtype=_C.float64, device=device, generator=generator)
        return u < (p.to(_C.float64) if isinstance(p, _C.Tensor) else p)


def bernoulli(input, p=None, *, generator=None, out=None):
    """Draws 0 or 1 for each element, 1 with the probability given by that element of
    input (or by p, the same for all), as PyTorch's ``torch.bernoulli``.

    The draw is ``u < p`` for a float64 uniform u of the Philox stream, so one seed
    gives the same draws on every device.

    Parameters
    ----------
    input : Tensor
        Floating point: the probabilities, each in [0, 1] (when p is not given; with p,
        of any dtype, bool and integers too), and the shape, dtype and device of the
        result (also the method
        ``x.bernoulli(p=None, *, generator=None)``).
    p : float, optional
        One probability for every element, in place of input's values (a bool is 0
        or 1; a 0-d tensor is taken as its value, as PyTorch's, and a tensor with dims
        refused: ``x.bernoulli_(p)`` takes one per element).
    generator : Generator, optional
        The stream to draw from (default: the default generator).
    out : Tensor, optional
        Written with the draws, cast to its dtype (any dtype: the draws are 0 and 1), and
        returned; on the result's device, of its shape or with no elements (then given
        it).  Refused when input requires grad, as PyTorch's.

    Returns
    -------
    Tensor
        input's shape, dtype and device; a zero gradient (it requires grad when input
        does, as PyTorch's).

    Raises
    ------
    TypeError
        input is not a floating-point tensor (when p is not given), or p neither a
        number nor a 0-d tensor.
    RuntimeError
        A probability outside [0, 1] or NaN.

    Examples
    --------
    >>> _ = pydevtensor.manual_seed(0)
    >>> pydevtensor.bernoulli(pydevtensor.tensor([0.0, 1.0, 0.0, 1.0]))
    tensor([0., 1., 0., 1.])
    >>> pydevtensor.bernoulli(pydevtensor.zeros(1000), 0.25).mean().item() < 0.3
    True
    """
    if out is not None:
        from ._out import _out_written, refuse_grad
        refuse_grad("bernoulli", input, out)
        result = bernoulli(input, p, generator=generator)
        if isinstance(out, _C.Tensor):
            result = result.to(out.dtype)
        return _out_written(result, out, "bernoulli")
    x = _tensor_arg(input, "bernoulli")
    if p is None and not x.is_floating_point():  # with p, any dtype: it gives the shape
        raise _C.DTypeError(f"bernoulli(): expected a floating-point tensor of probabilities, got "
                            f"{x.dtype} (shape {tuple(x.shape)}, on {x.device})")
    return _bernoulli(x, _scalar_p(p), generator)


def _scalar_p(p):
    """bernoulli(input, p)'s p: a number, or a 0-d tensor taken as its value (read back
    to the host), as PyTorch's; a tensor of probabilities with dims is refused there."""
    if not isinstance(p, _C.Tensor):
        return p
    if p.ndim:
        raise TypeError(f"bernoulli(): p must be a float (one probability for every element; "
                        f"a 0-d tensor is taken as its value), got a Tensor of shape "
                        f"{tuple(p.shape)} ({p.dtype}, on {p.device}); for a probability per "
                        f"element use bernoulli(p) or x.bernoulli_(p)")
    return p.item()


@recorded("bernoulli")
def _bernoulli(x, p, generator):
    probs = _check_probs("bernoulli()", x if p is None else p, x)
    return _draw(tuple(x.shape), probs, x.device, generator).to(x.dtype)


@derivative("bernoulli")
class BernoulliBackward0(Node):
    """A draw has a zero gradient, as PyTorch's (the result requires grad when the
    probabilities do)."""
    zero_derivative = True

    def save(self, out, x, p, generator):
        self.meta = (tuple(x.shape), x.dtype, x.device)
        return (x,)

    def backward(self, g):
        return (_C.zeros(self.meta[0], dtype=self.meta[1], device=self.meta[2]),)


def _bernoulli_(self, p=0.5, *, generator=None):
    """Fills self with 0 and 1 drawn in place: 1 with probability p (a number, or a
    tensor that broadcasts to self's shape), as PyTorch's ``Tensor.bernoulli_``.

    Parameters
    ----------
    p : float or Tensor, optional
        The probability of a 1 (default 0.5), in [0, 1]; a bool is 0 or 1.
    generator : Generator, optional
        The stream to draw from (default: the default generator).

    Returns
    -------
    Tensor
        self.

    Raises
    ------
    RuntimeError
        A probability outside [0, 1] or NaN, or p on another device or of a shape that
        does not broadcast to self's (self is left as it was).

    Examples
    --------
    >>> _ = pydevtensor.manual_seed(0)
    >>> pydevtensor.empty(4).bernoulli_(pydevtensor.tensor([1.0, 0.0, 1.0, 0.0]))
    tensor([1., 0., 1., 0.])
    """
    where = "bernoulli_()"
    probs = _check_probs(where, p, self)
    if isinstance(probs, _C.Tensor):
        try:
            ok = _broadcast_shape(tuple(probs.shape), tuple(self.shape)) == tuple(self.shape)
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(f"{where}: p of shape {tuple(probs.shape)} does not broadcast "
                               f"to self's shape {tuple(self.shape)} (on {self.device})")
    return self.copy_(_draw(tuple(self.shape), probs, self.device, generator))


def _bernoulli_method(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)


_bernoulli_method.__doc__ = bernoulli.__doc__

# random_'s default upper bound: every integer of the dtype, or, for a floating dtype,
# every integer it holds exactly (2**digits, PyTorch's); int64's is 2**63 - 1 here (its
# largest value left out: randint's bounds are int64).
_RANDOM_TOP = {_C.bool: 2, _C.uint8: 2 ** 8, _C.int8: 2 ** 7, _C.int16: 2 ** 15,
               _C.int32: 2 ** 31, _C.int64: 2 ** 63 - 1, _C.float16: 2 ** 11 + 1,
               _C.bfloat16: 2 ** 8 + 1, _C.float32: 2 ** 24 + 1, _C.float64: 2 ** 53 + 1}
_RANDOM_BOTTOM = {_C.bool: 0, _C.uint8: 0, _C.int8: -2 ** 7, _C.int16: -2 ** 15,
                  _C.int32: -2 ** 31, _C.int64: -2 ** 63}


def _warn_inexact(where, dtype, low, high):
    """Warns past a floating dtype's exact integers [-2**digits, 2**digits], as
    PyTorch's random_ does.  A bound past its finite range (float16's 65504; float32
    and wider hold every int64 bound) is refused by randint itself, in C, before this:
    the one place that checks it."""
    exact = _RANDOM_TOP[dtype] - 1
    if low < -exact or high - 1 > exact:
        import warnings
        warnings.warn(f"{where}: [from, to) = [{low}, {high}) is out of bounds [-{exact}, "
                      f"{exact}]: {dtype} holds every integer only in that range, so draws "
                      f"past it are rounded", UserWarning, stacklevel=3)


def _random_(self, from_=0, to=None, *, generator=None, **kwargs):
    """Fills self in place with integers drawn uniformly from [from, to - 1], as
    PyTorch's ``Tensor.random_``: ``random_()`` covers every integer of self's dtype
    (0 .. 2**digits for a floating dtype: 2**24 for float32), ``random_(to)`` is
    [0, to), ``random_(from, to)`` is [from, to).

    Parameters
    ----------
    from : int, optional
        The smallest value (default 0); passed by position (or as ``from_=``).
    to : int, optional
        The bound, not included (default: past the dtype's largest exact integer).  A
        floating dtype takes bounds up to its largest finite value, with a UserWarning
        past its exact integers (2**24 for float32), as PyTorch's.
    generator : Generator, optional
        The stream to draw from (default: the default generator).

    Returns
    -------
    Tensor
        self.

    Raises
    ------
    RuntimeError
        from >= to, or a bound self's dtype cannot hold (an integer dtype's range, or
        float16's finite range; self is left as it was).

    Examples
    --------
    >>> _ = pydevtensor.manual_seed(0)
    >>> x = pydevtensor.empty(5, dtype=pydevtensor.int64).random_(10)
    >>> all(0 <= v < 10 for v in x.tolist())
    True
    >>> sorted(set(pydevtensor.zeros(100).random_(2, 4).tolist()))
    [2.0, 3.0]
    """
    where = "random_()"
    if "from" in kwargs:
        from_ = kwargs.pop("from")
    if kwargs:
        raise TypeError(f"{where} got an unexpected keyword argument '{next(iter(kwargs))}'")
    low = _int_arg(from_, "random_", "from")
    top = _RANDOM_TOP[self.dtype]
    high = top if to is None else _int_arg(to, "random_", "to")
    if low >= high:
        raise RuntimeError(f"{where}: random_ expects 'from' to be less than 'to', but got "
                           f"from={low} >= to={high} ({self.dtype}, on {self.device})")
    floating = self.dtype not in _RANDOM_BOTTOM
    if not floating and (low < _RANDOM_BOTTOM[self.dtype] or high > top):
        raise RuntimeError(f"{where}: [from, to) = [{low}, {high}) is out of bounds for "
                           f"{self.dtype} (it holds the integers of "
                           f"[{_RANDOM_BOTTOM[self.dtype]}, {top}) exactly; on {self.device})")
    try:
        with no_grad():  # a floating dtype: a draw rounded up to high becomes low, as randint's
            drawn = _C.randint(low, high, tuple(self.shape), dtype=self.dtype if floating
                               else _C.int64, device=self.device, generator=generator)
    except _C.InvalidArgumentError as e:  # randint's float16 range check: name random_
        raise type(e)(f"{where}: [from, to) = [{low}, {high}) on a {self.dtype} tensor: "
                      f"{e}") from None
    if floating:
        _warn_inexact(where, self.dtype, low, high)
    return self.copy_(drawn)


def _random_method(self, *args, **kwargs):
    """random_(to) is [0, to): one positional bound is the upper one, as PyTorch's."""
    if len(args) == 1 and "to" not in kwargs:
        return _random_(self, 0, args[0], **kwargs)
    return _random_(self, *args, **kwargs)


_random_method.__doc__ = _random_.__doc__
_random_method.__name__ = "random_"
_bernoulli_method.__name__ = "bernoulli"
_bernoulli_.__name__ = "bernoulli_"
_C.Tensor.bernoulli = _bernoulli_method
_C.Tensor.bernoulli_ = _bernoulli_
_C.Tensor.random_ = _random_method
