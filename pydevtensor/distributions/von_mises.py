"""VonMises(loc, concentration): PyTorch's ``torch.distributions.VonMises``.

Note [von Mises sampler]
------------------------
Best and Fisher (1979), "Efficient simulation of the von Mises distribution", as
PyTorch's: with tau = 1 + sqrt(1 + 4 k^2), rho = (tau - sqrt(2 tau)) / (2 k) and
r = (1 + rho^2) / (2 rho) (1 / k + k below k = 1e-5), from three uniforms u1, u2, u3:
z = cos(pi u1), f = (1 + r z) / (r + z), c = k (r - f); accepted when c (2 - c) > u2
or log(c / u2) + 1 - c >= 0, giving sign(u3 - 1/2) acos(f); redrawn otherwise (the
loop runs on the rejected elements only).  In float64 (PyTorch's choice too: in
float32 small concentrations hang), then shifted by loc into [-pi, pi) and rounded to
loc's dtype.  Past k = 1e8 the proposal degenerates (rho rounds to 1 near k = 1e32 and
c = k (r - f) keeps about 1e-16 k of its digits, so from about 1e38 on, and at k = inf,
no proposal was ever accepted: the loop never ended, as PyTorch 2.15's does not): there
the draw is the normal limit N(0, 1 / k) (its error is O(1 / k) relative, below the
sampler's own rounding), loc itself at k = inf, and NaN for a NaN k; k = 0 (validation
off; r = 1 / k overflowed, the loop never ended either) is drawn as k = 1e-300.

log I0 and log I1 (the normalizer and the circular variance) are the exact ones,
``log(i0e(k)) + k``, where PyTorch uses Abramowitz and Stegun's polynomial
approximations (9.8.1-9.8.4, relative error about 1e-7): the values agree to about
1e-7.
"""
import math

from .. import _C
from .._ops_index import where
from ..autograd import no_grad
from ..special import i0e, i1e
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["VonMises"]

_NORMAL_K = 1e8


def _proposal_r(kappa):
    tau = 1 + (1 + 4 * kappa.pow(2)).sqrt()
    rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
    return where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho.pow(2)) / (2 * rho))


def _rejection_sample(loc, kappa, shape):
    """Draws of shape ``shape`` in float64 (Note [von Mises sampler])."""
    # k = 0 (validation off) as 1e-300, whose draws are as uniform: 1 / k overflowed in r
    k = kappa.expand(shape).reshape(-1).clamp(min=1e-300)
    r = _proposal_r(k)
    # past _NORMAL_K (and at inf or NaN) the normal limit, not the loop, which would never
    # accept a proposal there (Note [von Mises sampler])
    exact = k <= _NORMAL_K
    out = where(k != k, k, 0.0)
    limit = (k > _NORMAL_K)
    if bool(limit.any()):  # k = inf: rsqrt 0, the draw is loc
        normal = _C.randn(tuple(k.shape), dtype=_C.float64, device=k.device)
        out = where(limit, normal * where(limit, k, 1.0).rsqrt(), out)
    todo = _C.arange(k.numel(), device=k.device)[exact]
    while todo.numel():
        u1, u2, u3 = _C.rand((3, todo.numel()), dtype=_C.float64, device=k.device).unbind(0)
        kt, rt = k[todo], r[todo]
        z = (math.pi * u1).cos()
        f = (1 + rt * z) / (rt + z)
        c = kt * (rt - f)
        ok = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        out[todo[ok]] = ((u3 - 0.5).sign() * f.acos())[ok]
        todo = todo[ok.logical_not()]
    x = out.reshape(shape)
    return (x + math.pi + loc).remainder(2 * math.pi) - math.pi


class VonMises(Distribution):
    """The von Mises distribution on the circle of mean direction ``loc`` (radians; any
    real, read modulo 2 pi, as the values given to log_prob) and concentration ``k``:
    density ``exp(k cos(x - loc)) / (2 pi I0(k))``, as PyTorch's.  Not
    reparameterisable; draws by Best and Fisher's rejection scheme (Note [von Mises
    sampler] in pydevtensor/distributions/von_mises.py), in [-pi, pi).

    ``mean`` is the circular mean (loc) and ``variance`` the circular variance
    ``1 - I1(k) / I0(k)``, as PyTorch's; I0 and I1 here are exact where PyTorch's are
    polynomial approximations (relative error about 1e-7).

    Parameters
    ----------
    loc : float or Tensor
        The mean direction.
    concentration : float or Tensor
        k > 0, broadcastable with loc.
    validate_args : bool, optional
        Check the parameters (default: ``Distribution``'s setting).

    Examples
    --------
    >>> from pydevtensor.distributions import VonMises
    >>> d = VonMises(pydevtensor.tensor([0.0, 1.0]), pydevtensor.tensor([1.0, 4.0]))
    >>> d.log_prob(pydevtensor.tensor([0.0, 1.0]))
    tensor([-1.0738, -0.2628])
    >>> d.mean, d.variance
    (tensor([0., 1.]), tensor([0.5536, 0.1365]))
    >>> d.sample((5,)).shape
    pydevtensor.Size([5, 2])
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(tuple(self.loc.shape), (), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # k (cos d - 1) - log(2 pi i0e(k)), k cos d - log I0(k) without its two terms of
        # size k (0.025 off at k = 1e15, 7000 ulps at 1e5); k (cos d - 1) = -2k sin^2(d/2)
        half = ((value - self.loc) / 2).sin()
        k = self.concentration
        return -2 * k * half * half - math.log(2 * math.pi) - i0e(k).log()

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            x = _rejection_sample(self.loc.to(_C.float64),
                                  self.concentration.to(_C.float64), shape)
        return x.to(self.loc.dtype)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        k = self.concentration
        return 1 - i1e(k) / i0e(k)
