"""Dirichlet(concentration): PyTorch's ``torch.distributions.Dirichlet``, a draw the
normalised standard gamma draws of its concentrations (Note [standard gamma] in
gamma.py), reparameterisable through them."""
from .. import _C
from .._dtype_info import finfo
from .._ops_index import where
from .._ops_special import xlogy
from ..autograd import no_grad
from . import constraints
from ._loader import log_dirichlet
from .exp_family import ExponentialFamily
from .gamma import _entropy_of_unit_rate, standard_gamma
from .utils import broadcast_all

__all__ = ["Dirichlet"]

# Loader's form from this total concentration on: below it the naive form's lgammas are
# small and the stirlerr of small c (lgamma less its Stirling terms) rounds worse (Beta
# at a + b in [5, 10): max 4 eps naive, 14 eps Loader's; in [10, 20): 35 and 21)
_LOADER_FROM = 10.0


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over the probability simplex of concentration's last
    dimension, as PyTorch's; reparameterisable: a draw is ``g / g.sum(-1)`` of standard
    gamma draws g, differentiable in the concentration (the gradient flows through each
    gamma draw's implicit reparameterisation).

    A deliberate difference from PyTorch 2.15: the rsample gradient is this pathwise one
    through the normalised gammas, which depends on the gammas and not only on the draw
    x.  PyTorch's ``_dirichlet_grad`` differentiates x itself implicitly (through each
    component's Beta marginal CDF), a function of x alone.  Both are unbiased, with the
    same expectation; PyTorch's has the lower variance (it is this one's conditional
    expectation given x), so the gradients of a Monte Carlo loss are noisier here.

    Parameters
    ----------
    concentration : Tensor
        > 0, at least 1-d: (..., K).
    validate_args : bool, optional

    Raises
    ------
    ValueError
        A 0-d concentration.

    Examples
    --------
    >>> from pydevtensor.distributions import Dirichlet
    >>> d = Dirichlet(pydevtensor.tensor([1.0, 2.0, 3.0]))
    >>> d.mean
    tensor([0.1667, 0.3333, 0.5000])
    >>> d.log_prob(pydevtensor.tensor([0.2, 0.3, 0.5]))
    tensor(1.5041)
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if not isinstance(concentration, _C.Tensor) or concentration.ndim < 1:
            raise ValueError("Dirichlet(): `concentration` parameter must be at least "
                             "one-dimensional.")
        self.concentration = concentration
        shape = tuple(concentration.shape)
        super().__init__(shape[:-1], shape[-1:], validate_args)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        g = standard_gamma(self.concentration.expand(shape))
        return g / g.sum(-1, keepdim=True)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._log_prob(value)

    def _log_prob(self, value, value_err=None):
        """log_prob at value + value_err (value_err: value's rounding error, a constant, as
        Beta's 1 - x has)."""
        c = self.concentration
        naive = (xlogy(c - 1.0, value).sum(-1) + c.sum(-1).lgamma()
                 - c.lgamma().sum(-1))
        # Loader's form (Note [Loader's Poisson density]): the lgammas of size c log c
        # gave 24.0 for 17.39 at Beta(1e15, 1e15) at 1/2, 0.0 for 19.69 at 1e17 and
        # 1.7e187 for 230.4 at 1e200, as PyTorch's; where a value is 0 or a x is below
        # the normal range, the naive form
        x = _C.as_tensor(value).to(naive.dtype)
        c, x = broadcast_all(c.to(naive.dtype), x)
        a = c.sum(-1, keepdim=True)
        with no_grad():
            ok = ((x > 0) & (a * x >= finfo(x.dtype).tiny) & (c + x).isfinite()
                  & (a >= _LOADER_FROM) & a.isfinite()).all(-1)
            okk = ok.unsqueeze(-1)
        err = 0.0 if value_err is None else where(okk, value_err, 0.0)
        stable = log_dirichlet(where(okk, c, 1.0), where(okk, x, 0.5), err)
        return where(ok, stable, naive)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, keepdim=True)
        # all below 1: the density grows towards every vertex; PyTorch takes the
        # vertex of the largest entry (a one-hot of argmax), as here
        all_below = (self.concentration < 1).all(dim=-1, keepdim=True)
        k = cm1.shape[-1]
        hot = (_C.arange(k, device=mode.device) == mode.argmax(dim=-1, keepdim=True))
        return where(all_below, hot.to(mode.dtype), mode)

    @property
    def variance(self):
        c = self.concentration
        c0 = c.sum(-1, keepdim=True)
        return c * (c0 - c) / (c0.pow(2) * (c0 + 1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()

    def entropy(self):
        # lgamma(c) - (c - 1) digamma(c) of each c and of a0 = sum c, less (k - 1)
        # digamma(a0): the same sum as lbeta(c) + (a0 - k) digamma(a0) - sum (c - 1)
        # digamma(c) but with the c's (size c log c each, cancelling) taken out
        c = self.concentration
        k = c.shape[-1]
        a0 = c.sum(-1)
        return (_entropy_of_unit_rate(c).sum(-1) - _entropy_of_unit_rate(a0)
                - (k - 1) * a0.digamma())
