"""poisson(rates): Poisson draws written on the elementwise ops and ``rand`` (float64
uniforms of the Philox stream), so that one seed gives the same draws on every device.

Note [Poisson sampling]
-----------------------
Every rate is read as float64; rate 0 gives 0.

- rate < 10: inversion by sequential search.  One uniform u per element; k counts up
  from 0 while u > F(k), the CDF built as it goes (p(0) = exp(-rate),
  p(k) = p(k-1) rate / k).  The whole tensor steps together, the finished elements
  masked; after at most ``_SEARCH_CAP`` steps (a tail probability below 1e-40 for
  rate < 10, and a guard against a CDF that rounds to just under u) the rest stop.
- rate >= 10: PTRS, the transformed rejection method with squeeze of Hormann (1993),
  "The transformed rejection method for generating Poisson random variables",
  Insurance: Mathematics and Economics 12, 39-45.  With b = 0.931 + 2.53 sqrt(rate),
  a = -0.059 + 0.02483 b, 1/alpha = 1.1239 + 1.1328 / (b - 3.4),
  v_r = 0.9277 - 3.6224 / (b - 2), each try draws U uniform on [-1/2, 1/2) and V on
  [0, 1), sets us = 1/2 - |U| and k = floor((2a / us + b) U + rate + 0.43), and
      accepts k at once when us >= 0.07 and V <= v_r;
      rejects when k < 0, or us < 0.013 and V > us;
      else accepts when log(V / alpha / (a / us^2 + b)) <= k log(rate) - rate - lgamma(k + 1).
  Each round draws a pair of uniforms for every element still waiting (in index
  order) and keeps the accepted ones: about 9 in 10 are accepted per round, so a
  million draws take a handful of rounds, each reading one count back to the host.

The draws are the same on every device but where the device's float64 exp, log or
lgamma round a comparison the other way, which takes two numbers equal to the last bit.
"""
import math

from . import _C
from ._generator import _generator_arg
from ._ops_index import _tensor_arg, where
from .autograd import no_grad

__all__ = ["poisson"]

_SEARCH_CAP = 120  # rate < 10: P(X > 120) < 1e-70
_SEARCH_CHECK = 8  # steps between the host checks of the search


def _inversion(rate, generator):
    """Poisson draws for a float64 1-d tensor of rates in (0, 10)."""
    u = _C.rand(rate.shape, dtype=_C.float64, device=rate.device, generator=generator)
    p = (-rate).exp()
    cdf = p.clone()
    k = _C.zeros_like(rate)
    for step in range(1, _SEARCH_CAP + 1):
        going = u > cdf
        if step % _SEARCH_CHECK == 1 and not bool(going.any()):
            break
        p = p * rate / step
        cdf = cdf + p
        k = k + going
    return k


def _ptrs(rate, generator):
    """Poisson draws for a float64 1-d tensor of rates >= 10 (Note [Poisson sampling])."""
    slam, loglam = rate.sqrt(), rate.log()
    b = slam * 2.53 + 0.931
    a = b * 0.02483 - 0.059
    log_inv_alpha = ((b - 3.4).reciprocal() * 1.1328 + 1.1239).log()
    vr = 0.9277 - (b - 2.0).reciprocal() * 3.6224
    out = _C.zeros_like(rate)
    waiting = _C.arange(rate.shape[0], device=rate.device)
    while waiting.shape[0]:
        uv = _C.rand((2, waiting.shape[0]), dtype=_C.float64, device=rate.device,
                     generator=generator)
        u, v = uv[0] - 0.5, uv[1]
        lam, a_w, b_w = rate[waiting], a[waiting], b[waiting]
        us = 0.5 - u.abs()
        k = ((a_w * 2.0 / us + b_w) * u + lam + 0.43).floor()
        quick = (us >= 0.07) & (v <= vr[waiting])
        rejected = (k < 0) | ((us < 0.013) & (v > us))
        log_ratio = v.log() + log_inv_alpha[waiting] - (a_w / (us * us) + b_w).log()
        safe_k = where(rejected, 0.0, k)  # no lgamma of -inf or NaN where it is not used
        fits = log_ratio <= safe_k * loglam[waiting] - lam - (safe_k + 1.0).lgamma()
        accepted = quick | (~rejected & fits)
        done = accepted.nonzero().reshape(-1)
        if done.shape[0]:
            out[waiting[done]] = k[done]
        waiting = waiting[(~accepted).nonzero().reshape(-1)]
    return out


def poisson(input, generator=None):
    """Draws from the Poisson distribution of each element's rate, as PyTorch's
    ``torch.poisson``: ``out[i] ~ Poisson(input[i])``.

    Small rates (< 10) by inversion, larger ones by Hormann's transformed rejection
    (PTRS), both on float64 uniforms of the Philox stream (Note [Poisson sampling] in
    pydevtensor/_ops_poisson.py): one seed gives the same draws on every device.

    Parameters
    ----------
    input : Tensor
        The rates: floating point, finite and >= 0.
    generator : Generator, optional
        The stream to draw from (default: the default generator).

    Returns
    -------
    Tensor
        Whole numbers, of input's shape, dtype and device; no gradient.

    Raises
    ------
    TypeError
        input is not a floating-point tensor.
    RuntimeError
        A negative, NaN or infinite rate.

    Examples
    --------
    >>> _ = pydevtensor.manual_seed(0)
    >>> pydevtensor.poisson(pydevtensor.tensor([0.0, 0.0]))
    tensor([0., 0.])
    >>> x = pydevtensor.poisson(pydevtensor.full((10000,), 4.0))
    >>> abs(x.mean().item() - 4.0) < 0.1
    True
    """
    x = _tensor_arg(input, "poisson")
    _generator_arg("poisson()", generator)
    if not x.is_floating_point():
        raise _C.DTypeError(f"poisson(): expected a floating-point tensor of rates, got {x.dtype} "
                            f"(shape {tuple(x.shape)}, on {x.device})")
    with no_grad():
        rate = x.detach().to(_C.float64).reshape(-1)
        if rate.shape[0] and bool((~(rate >= 0) | (rate == math.inf)).any()):
            raise RuntimeError(f"poisson(): invalid Poisson rate, expected rate to be "
                               f"non-negative and finite (a negative, NaN or infinite rate "
                               f"in shape {tuple(x.shape)}, {x.dtype}, on {x.device})")
        out = _C.zeros_like(rate)
        small = ((rate > 0) & (rate < 10)).nonzero().reshape(-1)
        large = (rate >= 10).nonzero().reshape(-1)
        if small.shape[0]:
            out[small] = _inversion(rate[small], generator)
        if large.shape[0]:
            out[large] = _ptrs(rate[large], generator)
        return out.reshape(tuple(x.shape)).to(x.dtype)
