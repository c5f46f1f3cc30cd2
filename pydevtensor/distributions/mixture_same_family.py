"""MixtureSameFamily(mixture_distribution, component_distribution): PyTorch's
``torch.distributions.MixtureSameFamily``."""
from ..autograd import no_grad
from . import constraints
from .categorical import Categorical
from .distribution import Distribution, _shape_arg

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """A batch of mixtures of k components of one family, as PyTorch's: the component
    distribution's rightmost batch dimension (of size k) indexes the components, the
    Categorical mixture distribution weighs them.  ``log_prob`` is the logsumexp of
    the components' log_prob plus the log weights; ``cdf`` the weighted sum of theirs;
    a draw picks a component by the Categorical, then takes that component's draw.
    Not reparameterisable.

    Parameters
    ----------
    mixture_distribution : Categorical
        Over k components, of batch shape () or broadcastable with the component
        distribution's batch shape less its last dimension.
    component_distribution : Distribution
        Of batch shape (..., k).
    validate_args : bool, optional
        Check the values given to log_prob (default: ``Distribution``'s setting).

    Raises
    ------
    ValueError
        A mixture distribution that is not a Categorical, a component distribution that
        is not a Distribution, batch shapes that do not broadcast, or k that differs.

    Examples
    --------
    >>> from pydevtensor.distributions import Categorical, MixtureSameFamily, Normal
    >>> mix = Categorical(pydevtensor.tensor([0.25, 0.75]))
    >>> comp = Normal(pydevtensor.tensor([-1.0, 1.0]), pydevtensor.tensor([1.0, 0.5]))
    >>> gmm = MixtureSameFamily(mix, comp)
    >>> gmm.mean, gmm.variance
    (tensor(0.5000), tensor(1.1875))
    >>> gmm.log_prob(pydevtensor.tensor([0.0, 1.0]))
    tensor([-1.9556, -0.4912])
    >>> gmm.cdf(pydevtensor.tensor(1.0))
    tensor(0.6193)
    >>> gmm.sample((5,)).shape
    pydevtensor.Size([5])
    """

    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(f"MixtureSameFamily(): The Mixture distribution needs to be an "
                             f"instance of pydevtensor.distributions.Categorical, got "
                             f"{type(mixture_distribution).__name__}")
        if not isinstance(component_distribution, Distribution):
            raise ValueError(f"MixtureSameFamily(): The Component distribution needs to be "
                             f"an instance of pydevtensor.distributions.Distribution, got "
                             f"{type(component_distribution).__name__}")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        mdbs = tuple(mixture_distribution.batch_shape)
        cdbs = tuple(component_distribution.batch_shape[:-1])
        for a, b in zip(reversed(mdbs), reversed(cdbs)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"MixtureSameFamily(): `mixture_distribution.batch_shape` "
                                 f"({mdbs}) is not compatible with "
                                 f"`component_distribution.batch_shape`({cdbs})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1] if component_distribution.batch_shape \
            else None
        if km != kc:
            raise ValueError(f"MixtureSameFamily(): `mixture_distribution component` ({km}) "
                             f"does not equal `component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(cdbs, tuple(component_distribution.event_shape), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        shape = tuple(batch_shape)
        new._component_distribution = self._component_distribution.expand(
            shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(shape)
        new._num_component, new._event_ndims = self._num_component, self._event_ndims
        Distribution.__init__(new, shape, tuple(self.event_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        """The Categorical that weighs the components.

        Returns
        -------
        Categorical

        Examples
        --------
        >>> from pydevtensor.distributions import Categorical, MixtureSameFamily, Normal
        >>> mix = Categorical(pydevtensor.tensor([0.5, 0.5]))
        >>> comp = Normal(pydevtensor.tensor([-1.0, 1.0]), 1.0)
        >>> MixtureSameFamily(mix, comp).mixture_distribution.probs
        tensor([0.5000, 0.5000])
        """
        return self._mixture_distribution

    @property
    def component_distribution(self):
        """The components, a distribution of batch shape batch_shape + (k,).

        Returns
        -------
        Distribution

        Examples
        --------
        >>> from pydevtensor.distributions import Categorical, MixtureSameFamily, Normal
        >>> mix = Categorical(pydevtensor.tensor([0.5, 0.5]))
        >>> comp = Normal(pydevtensor.tensor([-1.0, 1.0]), 1.0)
        >>> MixtureSameFamily(mix, comp).component_distribution.batch_shape
        pydevtensor.Size([2])
        """
        return self._component_distribution

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        cat_ndims = len(self.mixture_distribution.batch_shape)
        pad = 0 if cat_ndims == 1 else len(self.batch_shape) - cat_ndims
        xs = tuple(x.shape)
        return x.reshape(xs[:-1] + (1,) * pad + xs[-1:] + (1,) * self._event_ndims)

    @property
    def mean(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return (probs * self.component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        dim = -1 - self._event_ndims
        comp = self.component_distribution
        mean_cond_var = (probs * comp.variance).sum(dim)
        var_cond_mean = (probs * (comp.mean - self._pad(self.mean)).pow(2)).sum(dim)
        return mean_cond_var + var_cond_mean

    def cdf(self, value):
        cdf_x = self.component_distribution.cdf(self._pad(value))
        return (cdf_x * self.mixture_distribution.probs).sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob_x = self.component_distribution.log_prob(self._pad(value))
        log_mix = self.mixture_distribution.logits.log_softmax(-1)
        return (log_prob_x + log_mix).logsumexp(-1)

    def sample(self, sample_shape=()):
        sample_shape = tuple(_shape_arg("MixtureSameFamily.sample()", sample_shape))
        with no_grad():
            gather_dim = len(sample_shape) + len(self.batch_shape)
            es = tuple(self.event_shape)
            mix = self.mixture_distribution.sample(sample_shape)
            comp = self.component_distribution.sample(sample_shape)
            idx = mix.reshape(tuple(mix.shape) + (1,) * (len(es) + 1))
            idx = idx.expand(tuple(mix.shape) + (1,) + es)
            return comp.gather(gather_dim, idx).squeeze(gather_dim)

    def __repr__(self):
        return (f"MixtureSameFamily(\n  {self.mixture_distribution!r},\n  "
                f"{self.component_distribution!r})")
