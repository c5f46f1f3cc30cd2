"""Beta(concentration1, concentration0): PyTorch's ``torch.distributions.Beta``, the
two-category Dirichlet."""
from numbers import Number

from .. import _C
from .._ops_join import stack
from ..autograd import no_grad
from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .gamma import _as_tensor
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """The beta distribution on [0, 1] of density ``x^(a-1) (1-x)^(b-1) / B(a, b)``,
    a = concentration1, b = concentration0, as PyTorch's: a Dirichlet over (x, 1 - x),
    so a draw is ``g1 / (g1 + g0)`` of two standard gamma draws; reparameterisable, its
    gradient the pathwise one through the two gammas: unbiased, but noisier than PyTorch
    2.15's, which differentiates x implicitly through the Beta CDF (a deliberate
    difference, see Dirichlet).

    Parameters
    ----------
    concentration1 : float or Tensor
        a > 0.
    concentration0 : float or Tensor
        b > 0, broadcastable with concentration1.
    validate_args : bool, optional

    Examples
    --------
    >>> from pydevtensor.distributions import Beta
    >>> d = Beta(pydevtensor.tensor([2.0]), pydevtensor.tensor([3.0]))
    >>> d.mean, d.variance
    (tensor([0.4000]), tensor([0.0400]))
    >>> d.log_prob(pydevtensor.tensor([0.5]))
    tensor([0.4055])
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, Number) and isinstance(concentration0, Number):
            both = _C.tensor([float(concentration1), float(concentration0)])
        else:
            c1, c0 = broadcast_all(concentration1, concentration0)
            both = stack([c1, c0], -1)
        # the parameters are checked as Beta's (the error names concentration1 or
        # concentration0), not as the Dirichlet's stacked concentration
        self._dirichlet = Dirichlet(both, validate_args=False)
        super().__init__(tuple(self._dirichlet.batch_shape), (), validate_args)

    @property
    def concentration1(self):
        """a, the exponent of x (plus 1).

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Beta
        >>> Beta(2.0, 3.0).concentration1
        tensor(2.)
        """
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        """b, the exponent of 1 - x (plus 1).

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Beta
        >>> Beta(2.0, 3.0).concentration0
        tensor(3.)
        """
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # a number in the parameters' dtype and on their device (as_tensor made float32
        # on the CPU: 0.3 rounded to 0.30000001, log_prob 4.6e-8 off at Beta(3, 4))
        value = _C.as_tensor(_as_tensor(value, self.concentration1))
        tails = 1.0 - value
        with no_grad():  # 1 - value = tails + err exactly (Fast2Sum), for Loader's form
            err = (1.0 - tails) - value
        return self._dirichlet._log_prob(stack([value, tails], -1),
                                         stack([0 * err, err], -1))

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return x.lgamma() + y.lgamma() - (x + y).lgamma()

    def entropy(self):
        return self._dirichlet.entropy()
