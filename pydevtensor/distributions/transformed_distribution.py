"""TransformedDistribution(base_distribution, transforms): PyTorch's
``torch.distributions.TransformedDistribution``."""
from .._ops_index import where
from .._tensor_py import Size
from ..autograd import no_grad
from . import constraints
from .distribution import Distribution
from .independent import Independent, _sum_rightmost
from .transforms import ComposeTransform, Transform

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """The distribution of ``transforms[-1]`` of ... of ``transforms[0](X)`` for X drawn from
    base_distribution, as PyTorch's: log_prob by the change of variables (the base's
    log_prob at the inverse, less each transform's log abs(det J)), cdf and icdf through
    monotone element-wise transforms, rsample when the base has one.

    Parameters
    ----------
    base_distribution : Distribution
    transforms : Transform or list of Transform
        Applied first to last.
    validate_args : bool, optional
        Check, in log_prob, that values lie in the support (default: ``Distribution``'s
        setting).

    Raises
    ------
    ValueError
        transforms neither a Transform nor a list of them, or a base of fewer dimensions
        than the transforms' events take.

    Examples
    --------
    >>> from pydevtensor.distributions import Normal, TransformedDistribution
    >>> from pydevtensor.distributions.transforms import ExpTransform
    >>> d = TransformedDistribution(Normal(pydevtensor.tensor([0.0]), 1.0), ExpTransform())
    >>> d.log_prob(pydevtensor.tensor([1.0])), d.cdf(pydevtensor.tensor([1.0]))
    (tensor([-0.9189]), tensor([0.5000]))
    >>> d.sample((4,)).shape
    pydevtensor.Size([4, 1])
    """

    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = Size(tuple(base_distribution.batch_shape)
                          + tuple(base_distribution.event_shape))
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{transform.domain.event_dim}, but got {base_shape}.")
        forward_shape = Size(tuple(transform.forward_shape(base_shape)))
        expanded_base_shape = tuple(transform.inverse_shape(forward_shape))
        if tuple(base_shape) != expanded_base_shape:
            base_distribution = base_distribution.expand(
                expanded_base_shape[:len(expanded_base_shape) - base_event_dim])
        reinterpreted_batch_ndims = transform.domain.event_dim - base_event_dim
        if reinterpreted_batch_ndims > 0:
            base_distribution = Independent(base_distribution, reinterpreted_batch_ndims)
        self.base_dist = base_distribution
        change = transform.codomain.event_dim - transform.domain.event_dim
        event_dim = max(transform.codomain.event_dim, base_event_dim + change)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = Size(tuple(batch_shape))
        shape = Size(tuple(batch_shape) + tuple(self.event_shape))
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        new.base_dist = self.base_dist.expand(
            tuple(shape)[:len(shape) - len(self.base_dist.event_shape)])
        new.transforms = self.transforms
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        """The last transform's codomain (the base's support when there is none), over
        the event's dimensions.

        Examples
        --------
        >>> from pydevtensor.distributions import Normal, TransformedDistribution
        >>> from pydevtensor.distributions.transforms import ExpTransform
        >>> TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()]).support
        GreaterThan(lower_bound=0.0)
        """
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self):
        """Whether the base distribution has rsample.

        Examples
        --------
        >>> from pydevtensor.distributions import Normal, TransformedDistribution
        >>> TransformedDistribution(Normal(0.0, 1.0), []).has_rsample
        True
        """
        return self.base_dist.has_rsample

    def sample(self, sample_shape=()):
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x

    def rsample(self, sample_shape=()):
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(transform.log_abs_det_jacobian(x, y),
                                                 event_dim - transform.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y),
                                         event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        sign = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int):
            return value if sign == 1 else 1 - value
        # value or 1 - value; PyTorch's sign (value - 1/2) + 1/2 rounds value's tail away
        # (LogNormal's cdf was 0 at 4.9e-198, e^-30 for (0, 1))
        return where(sign > 0, value, 1 - value)

    def cdf(self, value):
        for transform in self.transforms[::-1]:
            value = transform.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for transform in self.transforms:
            value = transform(value)
        return value
