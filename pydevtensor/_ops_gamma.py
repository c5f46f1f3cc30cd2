"""mvlgamma(x, p), the multivariate log-gamma function (a sum of lgammas; its gradient
recorded through them), and polygamma(n, x), the n-th derivative of digamma, written
on the elementwise ops (so it runs on every device and in float64 inside, the result
rounded to x's dtype once), with its gradient polygamma(n + 1, x); lgamma and digamma
themselves are C kernels (csrc/python/tensor_gamma.c).

Note [polygamma]
----------------
For n >= 1, psi_n(x) = (-1)^(n+1) n! zeta(n + 1, x), the Hurwitz zeta function.

- y > 0: the recurrence psi_n(y) = psi_n(y + M) + (-1)^(n+1) n! sum_{k<M} (y + k)^-(n+1)
  with M = 10 + 2n, then at z = y + M >= M the Euler-Maclaurin series
      zeta(s, z) = z^(1-s) / (s-1) + z^-s / 2 + sum_{j=1..8} B_2j / (2j)! (s)_(2j-1) z^(1-s-2j)
  ((s)_k the rising factorial s (s+1) ... (s+k-1), B_2j the Bernoulli numbers), whose
  first term left out is below 3e-15 of the sum for every n (2e-18 for n = 1).
- x < 0: the reflection psi_n(x) = (-1)^n psi_n(1 - x) - pi d^n/dx^n cot(pi x), where
  d^n/dx^n cot(pi x) = P_n(cot(pi x)) for the polynomials P_0(c) = c,
  P_(k+1)(c) = -pi (1 + c^2) P_k'(c) (their coefficients computed here in Python); cot is
  taken at r = x - round(x) (exact), as digamma's reflection (Note [digamma]).
  The poles, x = 0, -1, -2, ..., give an infinity of PyTorch's sign.
"""
import math

from . import _C, _args
from ._ops_index import where
from ._ops_pointwise import _in_place
from ._out import takes_out
from .autograd.dispatch import derivative, recorded
from .autograd.node import Node

__all__ = ["mvlgamma", "polygamma"]

_N_MAX = 170  # the largest n whose n! float64 holds

# B_2j for j = 1 .. 8
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)


def _cot_derivative_coefficients(n):
    """Coefficients (lowest degree first) of P_n, d^n/dx^n cot(pi x) = P_n(cot(pi x))."""
    p = [0.0, 1.0]
    for _ in range(n):
        dp = [k * p[k] for k in range(1, len(p))] or [0.0]  # P'
        q = [0.0] * (len(dp) + 2)
        for k, a in enumerate(dp):  # -pi (1 + c^2) P'
            q[k] -= math.pi * a
            q[k + 2] -= math.pi * a
        p = q
    return p


def _zeta_positive(s, y):
    """Hurwitz zeta(s, y) for an integer s >= 2 and a float64 tensor y >= 0."""
    m = 10 + 2 * s
    total = y.pow(-s)
    for k in range(1, m):
        total = total + (y + k).pow(-s)
    z = y + m
    tail = z.pow(1 - s) / (s - 1) + z.pow(-s) * 0.5
    rising, fact = float(s), 2.0  # (s)_(2j-1) and (2j)!
    for j, b in enumerate(_BERNOULLI, start=1):
        tail = tail + z.pow(1 - s - 2 * j) * (b / fact * rising)
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        fact *= (2 * j + 1) * (2 * j + 2)
    return total + tail


def _polygamma_f64(n, x):
    """psi_n(x) for n >= 1 and a float64 tensor x (Note [polygamma])."""
    sign_fact = (-1.0) ** (n + 1) * math.factorial(n)
    negative = x < 0
    y = where(negative, 1.0 - x, x.abs())  # abs: -0 is a pole of PyTorch's +0 sign
    pos = _zeta_positive(n + 1, y) * sign_fact
    if not bool(negative.any()):
        return pos
    r = x - x.round()
    c = (r * math.pi).cos() / (r * math.pi).sin()
    coefficients = _cot_derivative_coefficients(n)
    poly = _C.zeros_like(x) + coefficients[-1]
    for a in reversed(coefficients[:-1]):
        poly = poly * c + a
    reflected = pos * (-1.0) ** n - poly * math.pi
    return where(negative, reflected, pos)


@recorded("polygamma")
def polygamma(n, input, *, out=None):
    """The n-th derivative of the digamma function, elementwise, as PyTorch's
    ``torch.polygamma``: ``polygamma(0, x)`` is ``digamma(x)``, ``polygamma(1, x)`` the
    trigamma function.  Computed in float64 (Note [polygamma] in
    pydevtensor/_ops_gamma.py) and rounded to input's dtype once; differentiable (its
    gradient is ``polygamma(n + 1, x)``).

    Parameters
    ----------
    n : int
        The order, >= 0.
    input : Tensor
        Also the method ``x.polygamma(n)``; integers and bools give float32.
    out : Tensor, optional
        Written with the result (of input's shape and the result's dtype).

    Returns
    -------
    Tensor
        Of input's shape: +-inf at 0 and the negative integers (for n >= 1).  At inf the
        limit deliberately, 0 for n >= 1 with the sign of (-1)^(n+1) (``polygamma(2, inf)``
        is -0.), where PyTorch 2.15 gives NaN for n >= 2; NaN at -inf (no limit through
        the poles).

    Raises
    ------
    TypeError
        n is not an int, or input not a Tensor.
    RuntimeError
        n is negative or above 170 (n! overflows float64).

    Examples
    --------
    >>> x = pydevtensor.tensor([1.0, 2.0, 0.5])
    >>> pydevtensor.polygamma(1, x)
    tensor([1.6449, 0.6449, 4.9348])
    >>> pydevtensor.polygamma(2, x)
    tensor([ -2.4041,  -0.4041, -16.8288])
    """
    n = _args.number(n)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"polygamma(): argument 'n' must be int, got {type(n).__name__}")
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"polygamma(): argument 'input' must be a Tensor, got "
                        f"{type(input).__name__}")
    if n < 0:
        raise RuntimeError(f"polygamma(n, x) does not support negative n, got n={n} (input "
                           f"{tuple(input.shape)}, {input.dtype}, on {input.device})")
    if n > _N_MAX:  # n! overflows float64 (and the sums below grow with n: a hang)
        raise RuntimeError(f"polygamma(n, x) supports n up to {_N_MAX}, got n={n}: n! "
                           f"overflows float64 beyond (input {tuple(input.shape)}, "
                           f"{input.dtype}, on {input.device})")
    dtype = input.dtype if input.is_floating_point() else _C._get_default_dtype()
    if out is not None and (not isinstance(out, _C.Tensor) or tuple(out.shape) != tuple(
            input.shape) or out.dtype != dtype or out.device != input.device):
        raise ValueError(f"polygamma(): out must be a {dtype} tensor of shape "
                         f"{tuple(input.shape)} on {input.device}, got "
                         f"{_describe(out)}")
    if n == 0:
        result = input.to(dtype).digamma()
    else:
        result = _polygamma_f64(n, input.to(_C.float64)).to(dtype)
    if out is not None:
        return out.copy_(result)
    return result


def _describe(t):
    if not isinstance(t, _C.Tensor):
        return type(t).__name__
    return f"{t.dtype} of shape {tuple(t.shape)} on {t.device}"


@derivative("polygamma")
class PolygammaBackward0(Node):
    """PyTorch's: ``g polygamma(n + 1, x)``."""

    def save(self, result, n, input, out=None):
        self.save_tensors(input)
        self.n = n
        return (input,)

    def backward(self, g):
        (x,) = self.saved_tensors
        return (g * polygamma(self.n + 1, x),)


def _polygamma_method(self, n):
    return polygamma(n, self)


def _polygamma_(self, n):
    """polygamma(n, self), in place.

    Parameters
    ----------
    n : int
        The order, >= 0.

    Returns
    -------
    Tensor
        self.

    Examples
    --------
    >>> pydevtensor.tensor([1.0]).polygamma_(1)
    tensor([1.6449])
    """
    if not self.is_floating_point():
        raise RuntimeError(f"polygamma_(): result type Float can't be cast to the desired "
                           f"output type {self.dtype} (on {self.device})")
    return self.copy_(polygamma(n, self))


_polygamma_method.__doc__ = polygamma.__doc__
_polygamma_method.__name__ = "polygamma"
_C.Tensor.polygamma = _polygamma_method
_C.Tensor.polygamma_ = _polygamma_


@takes_out("mvlgamma", castable=True)
def mvlgamma(input, p):
    """The multivariate log-gamma function of dimension p, elementwise, as PyTorch's
    ``torch.mvlgamma`` (``special.multigammaln``):
    ``p (p - 1) / 4 log(pi) + sum_{i=0}^{p-1} lgamma(x - i / 2)``.

    Parameters
    ----------
    input : Tensor
        Also the methods ``x.mvlgamma(p)`` and ``x.mvlgamma_(p)``; integers and bools
        give the default floating dtype.
    p : int
        The dimension, >= 1.

    Returns
    -------
    Tensor
        input's shape, floating; differentiable (through lgamma: a sum of digammas).

    Raises
    ------
    RuntimeError
        When p < 1.
    TypeError
        When input is not a Tensor or p not an int.

    Examples
    --------
    >>> pydevtensor.mvlgamma(pydevtensor.tensor([2.5]), 2)
    tensor([0.8570])
    >>> pydevtensor.special.multigammaln(pydevtensor.tensor([3.0]), 1)
    tensor([0.6931])
    """
    from ._ops_index import _int_arg, _tensor_arg
    from ._ops_math import lgamma
    _tensor_arg(input, "mvlgamma")
    p = _int_arg(p, "mvlgamma", "p")
    if p < 1:
        raise RuntimeError(f"mvlgamma(): p has to be greater than or equal to 1, got {p} "
                           f"(input {_describe(input)})")
    x = input if input.is_floating_point() else input.to(_C.empty(0).dtype)
    if p <= 16:
        out = lgamma(x)
        for i in range(1, p):
            out = out + lgamma(x - i / 2)
    else:  # as PyTorch: the p terms side by side (p times input's memory), no loop over p
        if p * max(x.numel(), 1) * x.element_size() > 2 ** 62:
            raise ValueError(f"mvlgamma(): p = {p} is too large: its p terms for each of the "
                             f"{x.numel()} elements of input ({_describe(input)}) would "
                             f"hold more than 2^62 bytes")
        half = _C.arange(p, dtype=x.dtype, device=x.device) * 0.5
        out = lgamma(x.unsqueeze(-1) - half).sum(-1)
    return out + p * (p - 1) / 4 * math.log(math.pi)


def _mvlgamma_method(self, p):
    return mvlgamma(self, p)


_mvlgamma_method.__doc__ = mvlgamma.__doc__
_mvlgamma_method.__name__ = "mvlgamma"
_C.Tensor.mvlgamma = _mvlgamma_method
_C.Tensor.mvlgamma_ = _in_place(mvlgamma, ("1", "tensor([0., 0.])"))
