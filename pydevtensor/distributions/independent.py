"""Independent(base_distribution, reinterpreted_batch_ndims): PyTorch's
``torch.distributions.Independent``."""
from . import constraints
from .distribution import Distribution, _shape_arg

__all__ = ["Independent"]


def _sum_rightmost(value, dim):
    """value summed over its dim rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.ndim - dim]) + (-1,)).sum(-1)


class Independent(Distribution):
    """A distribution whose events are ``reinterpreted_batch_ndims`` of the base
    distribution's rightmost batch dimensions more: log_prob and entropy sum over them
    (a diagonal multivariate normal is ``Independent(Normal(loc, scale), 1)``).

    Parameters
    ----------
    base_distribution : Distribution
    reinterpreted_batch_ndims : int
        How many of its batch dimensions (from the right) become event dimensions.
    validate_args : bool, optional
        (default: ``Distribution``'s setting).

    Raises
    ------
    ValueError
        reinterpreted_batch_ndims above the number of the base's batch dimensions.

    Examples
    --------
    >>> from pydevtensor.distributions import Independent, Normal
    >>> d = Independent(Normal(pydevtensor.zeros(2, 3), 1.0), 1)
    >>> d.batch_shape, d.event_shape
    (pydevtensor.Size([2]), pydevtensor.Size([3]))
    >>> d.log_prob(pydevtensor.zeros(2, 3))
    tensor([-2.7568, -2.7568])
    """

    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if not isinstance(base_distribution, Distribution):
            raise TypeError(f"Independent(): base_distribution must be a Distribution, got "
                            f"{type(base_distribution).__name__}")
        if isinstance(reinterpreted_batch_ndims, bool) or not isinstance(
                reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise TypeError(f"Independent(): reinterpreted_batch_ndims must be an int >= 0, "
                            f"got {reinterpreted_batch_ndims!r}")
        n_batch = len(base_distribution.batch_shape)
        if reinterpreted_batch_ndims > n_batch:
            raise ValueError(f"Expected reinterpreted_batch_ndims <= "
                             f"len(base_distribution.batch_shape), actual "
                             f"{reinterpreted_batch_ndims} vs {n_batch}")
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(shape[:len(shape) - event_dim], shape[len(shape) - event_dim:],
                         validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = tuple(_shape_arg("Independent.expand()", batch_shape))
        new = self._get_checked_instance(Independent, _instance)
        reinterpreted = tuple(self.event_shape[:self.reinterpreted_batch_ndims])
        new.base_dist = self.base_dist.expand(shape + reinterpreted)
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        Distribution.__init__(new, shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self):
        """Whether the base distribution has rsample.

        Returns
        -------
        bool

        Examples
        --------
        >>> from pydevtensor.distributions import Independent, Normal
        >>> Independent(Normal(pydevtensor.zeros(3), 1.0), 1).has_rsample
        True
        """
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        """Whether the base enumerates its support, and no batch dimension is
        reinterpreted (PyTorch enumerates no cartesian product either).

        Returns
        -------
        bool

        Examples
        --------
        >>> from pydevtensor.distributions import Bernoulli, Independent
        >>> Independent(Bernoulli(pydevtensor.full((3,), 0.5)), 1).has_enumerate_support
        False
        """
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @property
    def support(self):
        """The base's support, over the reinterpreted dimensions too.

        Returns
        -------
        Constraint

        Examples
        --------
        >>> from pydevtensor.distributions import Independent, Normal
        >>> Independent(Normal(pydevtensor.zeros(3), 1.0), 1).support
        IndependentConstraint(Real(), 1)
        """
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_dist!r}, {self.reinterpreted_batch_ndims})"


