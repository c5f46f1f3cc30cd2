"""The orthogonal polynomials of ``torch.special``: chebyshev_polynomial_t/u/v/w, their
shifted_ forms, hermite_polynomial_h/he, laguerre_polynomial_l and
legendre_polynomial_p, each ``f(input, n)``.

Note [orthogonal polynomials]
-----------------------------
PyTorch's kernels (aten/src/ATen/native/Math.h), elementwise, vectorised here: n is
truncated to an integer (as C's cast: NaN, +-inf and values beyond 2^63 give a negative
n); n < 0 gives 0; then the special values at the ends of the interval (abs(x) = 1, or x
in {0, 1} for the shifted Chebyshev polynomials); then, for the Chebyshev kinds and
abs(x) < 1 (abs(2x - 1) < 1) with n above a small threshold, the trigonometric forms
T_n = cos(n t), U_n = sin((n+1) t) / sin t, V_n = cos((n+1/2) t) / cos(t/2),
W_n = sin((n+1/2) t) / sin(t/2) with t = acos(x) (acos(2x - 1)); elsewhere the
three-term recurrence from P_0 and P_1, run once for all elements up to the largest n
that needs it (so its cost is max(n) elementwise steps; torch's is per element).  The
Hermite polynomials are NaN for n above 512 in float64, 128 otherwise, as PyTorch's
(getHermitianLimit); elsewhere a recurrence of more than 2^20 steps raises ValueError
(torch's per-element loop runs them, for hours at n = 2^40).

Computed in float64 and rounded once to the result's dtype (torch computes in the
input's dtype, so float32 results may differ from torch's in the last bits, being
closer to the exact value).  The result's dtype is that of ``input * n``, the default
float dtype for integers and bools.  Not differentiable: as torch's, the result never
requires grad.
"""
import builtins
import math

from . import _C
from ._dtype_info import result_type
from ._ops_index import where
from ._out import takes_out
from .autograd.grad_mode import no_grad

_NUMBER = (builtins.bool, builtins.int, builtins.float)


def _operands(op, x, n):
    for name, v in (("x", x), ("n", n)):
        if not isinstance(v, (_C.Tensor,) + _NUMBER):
            raise TypeError(f"{op}(): argument '{name}' must be a Tensor or a number, got "
                            f"{type(v).__name__}")
    if not isinstance(x, _C.Tensor) and not isinstance(n, _C.Tensor):
        raise TypeError(f"{op}(): expected a Tensor for x or n, got two numbers")
    x2, n2 = (builtins.int(v) if isinstance(v, builtins.bool) else v for v in (x, n))
    dtype = result_type(x2, n2)
    if not dtype.is_floating_point:
        dtype = _C._get_default_dtype()
    like = x if isinstance(x, _C.Tensor) else n
    dev = like.device

    def f64(v):
        if isinstance(v, _C.Tensor):
            return v.to(_C.float64)
        return _C.full((), float(v), dtype=_C.float64, device=dev)

    xf, nf = f64(x2), f64(n2)
    # C's (int64_t) n: truncation; NaN, inf and abs(n) >= 2^63 give INT64_MIN (negative)
    ok = nf.isfinite().logical_and(nf.abs() < 2.0 ** 63)
    nf = where(ok, nf.trunc(), -1.0)
    xf = xf + nf * 0.0  # broadcast (the shape checks of +); nf is finite here
    nf = nf + _C.zeros_like(xf)
    return xf, nf, dtype


_MAX_STEPS = 2 ** 20  # the recurrence's cap: each step is a few elementwise ops


class _TooManySteps(ValueError):
    pass


def _recurrence(x, n, first, step):
    """P_n(x) for n >= 0 from P_0 = 1, P_1 = first and P_{k+1} = step(k, P_{k-1}, P_k)
    (k = 1, 2, ...), the loop run to the largest n (at most _MAX_STEPS: above, the
    caller raises ValueError rather than run for hours)."""
    p = _C.ones_like(x)
    q = first
    out = where(n == 0, p, where(n == 1, q, 0.0))
    top = builtins.int(n.max().item()) if n.numel() else 0
    if top > _MAX_STEPS:
        raise _TooManySteps(f"n = {top} needs {top} steps of the three-term recurrence, "
                            f"more than the {_MAX_STEPS} (2^20) this implementation runs")
    for k in range(1, top):
        p, q = q, step(k, p, q)
        out = where(n == k + 1, q, out)
    return out


def _even(n):
    return (n * 0.5).trunc() * 2.0 == n


def _sign_n(n, value):
    """value where n is even, -value where odd."""
    return where(_even(n), value, -value)


def _cheb_step(y):
    return lambda k, p, q: (y + y) * q - p


def _cheb(kind, y, n, large):
    """Chebyshev kind T/U/V/W at y (abs(y) < 1 region by the trigonometric form when n >
    large), the end values at y = +-1 taken by the caller."""
    first = {"t": y, "u": y + y, "v": y + y - 1.0, "w": y + y + 1.0}[kind]
    inner = y.abs() < 1.0
    trig = inner.logical_and(n > large)
    rec_n = where(trig, 0.0, n)
    rec = _recurrence(y, rec_n, first, _cheb_step(y))
    t = where(inner, y, 0.0).acos()
    if kind == "t":
        tr = (n * t).cos()
    elif kind == "u":
        s = t.sin()
        tr = where(s != 0, ((n + 1.0) * t).sin() / where(s != 0, s, 1.0),
                   (n + 1.0) * ((n + 1.0) * t).cos() / y)
    elif kind == "v":
        h = t * 0.5
        tr = where(h.sin() != 1.0, ((n + 0.5) * t).cos() / h.cos(), _sign_n(n, n + n + 1.0))
    else:
        h = t * 0.5
        c = h.cos() != 1.0
        tr = where(c, ((n + 0.5) * t).sin() / where(c, h.sin(), 1.0),
                   where(y > 0, n + n + 1.0, _sign_n(n, _C.ones_like(n))))
    return where(trig, tr, rec)


def _chebyshev(kind, shifted):
    large = {"t": 6, "u": 8, "v": 8, "w": 8}[kind] if not shifted else {
        "t": 6, "u": 6, "v": 6, "w": 4}[kind]

    def compute(x, n):
        y = x + x - 1.0 if shifted else x
        out = _cheb(kind, y, n, large)
        one = _C.ones_like(n)
        if kind == "t":
            top, bottom = one, _sign_n(n, one)
        elif kind == "u":
            top, bottom = n + 1.0, _sign_n(n, n + 1.0)
        elif kind == "v":
            top, bottom = one, _sign_n(n, n + n + 1.0)
        else:
            top, bottom = n + n + 1.0, _sign_n(n, one)
        if shifted:
            out = where(x == 0, bottom, out)
            return where(x == 1, top, out)
        out = where(x == -1, bottom, out)
        return where(x == 1, top, out)
    return compute


def _hermite_h(x, n):
    return _recurrence(x, n, x + x, lambda k, p, q: (x + x) * q - (2.0 * k) * p)


def _hermite_he(x, n):
    return _recurrence(x, n, x, lambda k, p, q: x * q - float(k) * p)


def _laguerre(x, n):
    out = _recurrence(x, n, 1.0 - x,
                      lambda k, p, q: ((2.0 * k + (1.0 - x)) * q - k * p) / (k + 1.0))
    return where(x == 0, 1.0, out)


def _legendre(x, n):
    out = _recurrence(x, n, x, lambda k, p, q: ((2.0 * k + 1.0) * x * q - k * p) / (k + 1.0))
    one = _C.ones_like(n)
    out = where(x == -1, _sign_n(n, one), out)
    return where(x == 1, 1.0, out)


_DOC = """{what}, elementwise, as ``torch.special.{name}``.

    {formula}  Evaluated as PyTorch does (Note [orthogonal polynomials] in
    pydevtensor/_ops_special_poly.py): n is truncated toward zero, n < 0 gives 0,
    {method}.  Computed in float64 and rounded once.  Accuracy against mpmath (dense
    sample, n <= 100): {accuracy}.  Not differentiable (as torch's, the result does
    not require grad).

    Parameters
    ----------
    x : Tensor or number
        The points (named x, as PyTorch's).
    n : Tensor or number
        The degrees (truncated to integers).  x and n broadcast; one of them must be a
        Tensor.

    Returns
    -------
    Tensor
        Of the broadcast shape, the dtype of ``x * n`` (the default float dtype
        for integers and bools).

    Raises
    ------
    TypeError
        When x or n is neither a Tensor nor a number, or both are numbers.
    ValueError
        When the recurrence would need more than 2^20 steps (n above 2^20 where it is
        used).

    Examples
    --------
    >>> pydevtensor.special.{name}(pydevtensor.tensor([{args}]), 3)
    {result}
    """

_REC = ("the recurrence otherwise (the cost grows with the largest n: n above 2^20 where "
        "the recurrence is needed raises ValueError)")
_HERMITE_REC = ("NaN for n above 512 (float64) or 128 (other dtypes), as PyTorch's, "
                "the recurrence otherwise")
_HERMITE_LIMIT = {_C.float64: 512, None: 128}


_RESULTS = {  # the examples' outputs (PyTorch's too)
    "chebyshev_polynomial_t": "tensor([-1.,  1., 26.])",
    "chebyshev_polynomial_u": "tensor([-1.,  4., 56.])",
    "chebyshev_polynomial_v": "tensor([-1.,  1., 41.])",
    "chebyshev_polynomial_w": "tensor([-1.,  7., 71.])",
    "shifted_chebyshev_polynomial_t": "tensor([-0., -1.,  1.])",
    "shifted_chebyshev_polynomial_u": "tensor([-0., -1.,  4.])",
    "shifted_chebyshev_polynomial_v": "tensor([ 1., -1.,  1.])",
    "shifted_chebyshev_polynomial_w": "tensor([-1., -1.,  7.])",
    "hermite_polynomial_h": "tensor([-0., -4., 40.])",
    "hermite_polynomial_he": "tensor([-0., -2.,  2.])",
    "laguerre_polynomial_l": "tensor([ 1.0000, -0.6667, -0.3333])",
    "legendre_polynomial_p": "tensor([-0.0000, -0.4375,  1.0000])",
}


def _public(name, compute, what, formula, method, accuracy, args, result=None,
            nan_above=None):
    def fn(x, n):
        x, nn, dtype = _operands(name, x, n)
        with no_grad():
            if nan_above is not None:  # PyTorch's getHermitianLimit: NaN for n above it
                above = nn > nan_above.get(dtype, nan_above[None])
                nn = where(above, 0.0, nn)
            try:
                out = compute(x, nn)
            except _TooManySteps as e:
                raise ValueError(f"{name}(): {e}") from None
            if nan_above is not None:
                out = where(above, math.nan, out)
            return where(nn < 0, 0.0, out).to(dtype)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _DOC.format(name=name, what=what, formula=formula, method=method,
                             accuracy=accuracy, args=args, result=_RESULTS[name])
    return takes_out(name, castable=True, differentiable=False)(fn)


_CHEB_ACC = ("at most 1.5e-13 absolute error for abs(x) <= 1 (3e-14 for T and W); the "
             "trigonometric form's error grows as 1e-16 n / sqrt(1 - x^2) (the condition "
             "of acos near the ends)")
_CHEB = {
    "t": ("The Chebyshev polynomial of the first kind T_n(x)", "T_0 = 1, T_1 = x, "
          "T_{k+1} = 2x T_k - T_{k-1}; T_n(cos t) = cos(n t).", "cos(n acos(x)) for abs(x) < 1 "
          "and n > 6", "-0.4250, 1.0000, 26.0000"),
    "u": ("The Chebyshev polynomial of the second kind U_n(x)", "U_0 = 1, U_1 = 2x, "
          "U_{k+1} = 2x U_k - U_{k-1}.", "sin((n+1) t) / sin(t), t = acos(x), for abs(x) < 1 "
          "and n > 8", "-0.8000,  4.0000, 30.0000"),
    "v": ("The Chebyshev polynomial of the third kind V_n(x)", "V_0 = 1, V_1 = 2x - 1, "
          "V_{k+1} = 2x V_k - V_{k-1}.", "cos((n+1/2) t) / cos(t/2), t = acos(x), for "
          "abs(x) < 1 and n > 8", "-0.4000,  1.0000, 17.0000"),
    "w": ("The Chebyshev polynomial of the fourth kind W_n(x)", "W_0 = 1, W_1 = 2x + 1, "
          "W_{k+1} = 2x W_k - W_{k-1}.", "sin((n+1/2) t) / sin(t/2), t = acos(x), for "
          "abs(x) < 1 and n > 8", "-1.2000,  7.0000, 43.0000"),
}

chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v, \
    chebyshev_polynomial_w = (
        _public(f"chebyshev_polynomial_{k}", _chebyshev(k, False), w, f,
                f"the values at x = +-1 exactly, {m}, {_REC}", _CHEB_ACC, "0.5, 1.0, 2.0", r)
        for k, (w, f, m, r) in _CHEB.items())

_SHIFT = {
    "t": ("-1.0000, 0.4000, 1.0000", 6), "u": ("0.0000, 0.0000, 4.0000", 6),
    "v": ("-1.0000,  0.6000,  1.0000", 6), "w": ("1.0000, -0.6000,  7.0000", 4)}


def _shifted_doc(k):
    return (f"The shifted Chebyshev polynomial {k.upper()}*_n(x) = {k.upper()}_n(2x - 1)",
            f"Orthogonal on [0, 1]; see chebyshev_polynomial_{k}.",
            f"the values at x = 0 and 1 exactly, the trigonometric form of "
            f"chebyshev_polynomial_{k} at 2x - 1 for 0 < x < 1 and n > {_SHIFT[k][1]}, {_REC}")


shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u, \
    shifted_chebyshev_polynomial_v, shifted_chebyshev_polynomial_w = (
        _public(f"shifted_chebyshev_polynomial_{k}", _chebyshev(k, True), *_shifted_doc(k),
                _CHEB_ACC.replace("abs(x) <= 1", "0 <= x <= 1").replace("1 - x^2", "x (1 - x)"),
                "0.5, 0.75, 1.0", _SHIFT[k][0].replace("0.4000", "0.4000").join(("tensor([", "])")))
        for k in "tuvw")

hermite_polynomial_h = _public(
    "hermite_polynomial_h", _hermite_h, "The physicists' Hermite polynomial H_n(x)",
    "H_0 = 1, H_1 = 2x, H_{k+1} = 2x H_k - 2k H_{k-1}.", _HERMITE_REC,
    "at most 2e-13 relative error for abs(x) <= 5", "0.0, 1.0, 2.0", "tensor([ 0., -4., 40.])",
    nan_above=_HERMITE_LIMIT)
hermite_polynomial_he = _public(
    "hermite_polynomial_he", _hermite_he, "The probabilists' Hermite polynomial He_n(x)",
    "He_0 = 1, He_1 = x, He_{k+1} = x He_k - k He_{k-1}.", _HERMITE_REC,
    "at most 7e-14 relative error for abs(x) <= 5", "0.0, 1.0, 2.0", "tensor([ 0., -2.,  2.])",
    nan_above=_HERMITE_LIMIT)
laguerre_polynomial_l = _public(
    "laguerre_polynomial_l", _laguerre, "The Laguerre polynomial L_n(x)",
    "L_0 = 1, L_1 = 1 - x, (k+1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}.",
    f"1 at x = 0, {_REC}",
    "at most 4e-13 relative error for 0 <= x <= 20", "0.0, 1.0, 2.0",
    "tensor([ 1.0000, -0.6667, -1.3333])")
legendre_polynomial_p = _public(
    "legendre_polynomial_p", _legendre, "The Legendre polynomial P_n(x)",
    "P_0 = 1, P_1 = x, (k+1) P_{k+1} = (2k+1) x P_k - k P_{k-1}.",
    f"the values at x = +-1 exactly, {_REC}",
    "at most 5e-15 absolute error for abs(x) <= 1 (where abs(P_n) <= 1)", "0.0, 0.5, 1.0",
    "tensor([ 0.0000, -0.4375,  1.0000])")

__all__ = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p"]
