"""Distribution: the base class of pydevtensor.distributions (PyTorch's
``torch.distributions.Distribution``): shapes, argument and sample validation, and
the properties every distribution derives from its own (stddev from variance, sample
from rsample)."""
import operator
import warnings

from .. import _C
from .._tensor_py import Size
from ..autograd import no_grad
from . import constraints
from .utils import broadcast_all

__all__ = ["Distribution"]


def _shape_arg(where, sample_shape):
    if isinstance(sample_shape, _C.Tensor) and sample_shape.ndim == 1 and not (
            sample_shape.is_floating_point() or sample_shape.is_complex()):
        sample_shape = sample_shape.tolist()  # a 1-d integer tensor, as torch.Size takes
    if isinstance(sample_shape, (int, _C.Tensor)) or not hasattr(sample_shape, "__iter__"):
        raise TypeError(f"{where}: sample_shape must be a tuple of ints (a Size), e.g. (5,), "
                        f"got {type(sample_shape).__name__}")
    dims = tuple(sample_shape)
    out = []
    for d in dims:  # ints, or what has __index__ (np.int64), as torch.Size takes them
        try:
            d = operator.index(d) if not isinstance(d, bool) else -1
        except TypeError:
            d = -1
        if d < 0:
            raise ValueError(f"{where}: sample_shape must hold ints >= 0, got {dims}")
        out.append(d)
    return Size(tuple(out))


class Distribution:
    """The base class of the probability distributions, as PyTorch's: a batch of
    independent distributions (``batch_shape``), each over events of ``event_shape``.

    Parameters
    ----------
    batch_shape : tuple of ints, optional
        The shape of the batch of distributions (default ()).
    event_shape : tuple of ints, optional
        The shape of one draw of one distribution (default ()).
    validate_args : bool, optional
        Check the parameters now, and each value given to log_prob (default: the
        class-wide setting, ``Distribution.set_default_validate_args``, True at first).

    Raises
    ------
    ValueError
        A parameter outside its constraint (``arg_constraints``), with validation on.

    Examples
    --------
    >>> from pydevtensor.distributions import Normal
    >>> d = Normal(pydevtensor.zeros(3), 1.0)
    >>> d.batch_shape, d.event_shape
    (pydevtensor.Size([3]), pydevtensor.Size([]))
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = True

    @property
    def arg_constraints(self):
        """The constraint of each parameter, by name: each distribution defines its own
        (the base class has none and raises, as PyTorch's).

        Returns
        -------
        dict of str to Constraint

        Raises
        ------
        NotImplementedError
            On a class that defines none.

        Examples
        --------
        >>> from pydevtensor.distributions import Exponential
        >>> Exponential(pydevtensor.tensor(1.0)).arg_constraints
        {'rate': GreaterThan(lower_bound=0.0)}
        """
        raise NotImplementedError(f"{type(self).__name__} does not define arg_constraints")

    @property
    def support(self):
        """The constraint of the values the distribution takes: each distribution
        defines its own (the base class has none and raises, as PyTorch's).

        Returns
        -------
        Constraint

        Raises
        ------
        NotImplementedError
            On a class that defines none.

        Examples
        --------
        >>> from pydevtensor.distributions import Exponential
        >>> Exponential(pydevtensor.tensor(1.0)).support
        GreaterThanEq(lower_bound=0.0)
        """
        raise NotImplementedError(f"{type(self).__name__} does not define its support")

    @staticmethod
    def set_default_validate_args(value):
        """Whether distributions made from now on validate their arguments by default.

        Parameters
        ----------
        value : bool

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor.distributions import Distribution
        >>> Distribution.set_default_validate_args(True)
        """
        if value not in (True, False):
            raise ValueError(f"set_default_validate_args(): expected a bool, got {value!r}")
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = Size(tuple(batch_shape))
        self._event_shape = Size(tuple(event_shape))
        if validate_args is not None:
            self._validate_args = bool(validate_args)
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{type(self)} does not define `arg_constraints`. Please set "
                              f"`arg_constraints = {{}}` or initialize the distribution with "
                              f"`validate_args=False` to turn off validation.",
                              stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # cannot be checked (PyTorch skips it too)
                if param not in self.__dict__ and isinstance(
                        getattr(type(self), param, None), _lazy_types()):
                    continue  # a lazily derived parameter (probs from logits) is fine
                value = getattr(self, param)
                with no_grad():
                    ok = constraint.check(value)
                    ok = bool(ok.all()) if isinstance(ok, _C.Tensor) else bool(ok)
                if not ok:
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                        f"constraint {constraint!r}, but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        """The instance an ``expand`` of class cls fills: _instance if given, else a new
        uninitialised one of this object's class, as PyTorch's.

        Parameters
        ----------
        cls : type
            The class whose ``expand`` is running.
        _instance : Distribution, optional

        Returns
        -------
        Distribution

        Raises
        ------
        NotImplementedError
            When _instance is None and this object's class has an ``__init__`` of its own
            (other than cls's): it must define its own ``expand``.

        Examples
        --------
        >>> from pydevtensor.distributions import Normal
        >>> d = Normal(pydevtensor.tensor(0.0), 1.0)
        >>> type(d._get_checked_instance(Normal))
        <class 'pydevtensor.distributions.normal.Normal'>
        """
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {type(self).__name__} of {cls.__name__} that defines a custom "
                f"__init__ method must also define a custom .expand() method.")
        return type(self).__new__(type(self)) if _instance is None else _instance

    def expand(self, batch_shape, _instance=None):
        """The same distribution over a larger batch: each parameter expanded (a view,
        no copy) from batch_shape's trailing dims, as PyTorch's ``expand``.

        pydevtensor's own distributions share this one generic method; as in PyTorch,
        the base class itself and a user's subclass of it (of no pydevtensor
        distribution) have none, and a subclass of a pydevtensor distribution with an
        ``__init__`` of its own must define its own ``expand``.

        Parameters
        ----------
        batch_shape : tuple of ints
            To which the current batch_shape broadcasts.

        Returns
        -------
        Distribution
            Of the same class, validate_args as this one's.

        Raises
        ------
        ValueError
            When the batch shape does not broadcast to batch_shape.
        NotImplementedError
            On a class with no ``expand`` of its own (see above).

        Examples
        --------
        >>> from pydevtensor.distributions import Bernoulli
        >>> Bernoulli(pydevtensor.tensor(0.3)).expand((3,)).sample().shape
        pydevtensor.Size([3])
        """
        owner = next((c for c in type(self).__mro__ if c is not Distribution
                      and c.__module__.startswith(__package__ + ".")), None)
        if owner is None:  # PyTorch's base class has no expand
            raise NotImplementedError(f"{type(self).__name__} does not define expand()")
        new = self._get_checked_instance(owner, _instance)
        shape = tuple(_shape_arg(f"{type(self).__name__}.expand()", batch_shape))
        old = tuple(self.batch_shape)
        if len(shape) < len(old) or any(
                a not in (1, b) for a, b in zip(old[::-1], shape[::-1])):
            raise ValueError(f"{type(self).__name__}.expand(): the batch shape {old} does "
                             f"not expand to {shape}")
        new.__dict__.update(self.__dict__)
        # one tensor under two names stays one (Binomial's and NegativeBinomial's _param is
        # the probs that were given: two expands made log_prob take the logits' form)
        done = {}
        for name, v in self.__dict__.items():
            # parameters and what was derived from them (lazily) lead with batch_shape
            if isinstance(v, _C.Tensor) and tuple(v.shape[:len(old)]) == old:
                if id(v) not in done:
                    done[id(v)] = v.expand(shape + tuple(v.shape[len(old):]))
                setattr(new, name, done[id(v)])
            elif isinstance(v, Distribution) and tuple(v.batch_shape) == old:
                setattr(new, name, v.expand(shape))  # a part (Multinomial's Categorical)
        new._batch_shape = Size(shape)
        return new

    @property
    def batch_shape(self):
        """The shape over which the parameters are batched.

        Returns
        -------
        pydevtensor.Size

        Examples
        --------
        >>> from pydevtensor.distributions import Bernoulli
        >>> Bernoulli(pydevtensor.full((2, 3), 0.5)).batch_shape
        pydevtensor.Size([2, 3])
        """
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single draw.

        Returns
        -------
        pydevtensor.Size

        Examples
        --------
        >>> from pydevtensor.distributions import Multinomial
        >>> Multinomial(10, pydevtensor.ones(6) / 6).event_shape
        pydevtensor.Size([6])
        """
        return self._event_shape

    @property
    def mean(self):
        """The mean, of shape batch_shape + event_shape.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Exponential
        >>> Exponential(pydevtensor.tensor([2.0])).mean
        tensor([0.5000])
        """
        raise NotImplementedError(f"{type(self).__name__} has no mean here")

    @property
    def mode(self):
        """The most likely value.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Normal
        >>> Normal(pydevtensor.tensor([1.0]), 2.0).mode
        tensor([1.])
        """
        raise NotImplementedError(f"{type(self).__name__} has no mode here")

    @property
    def variance(self):
        """The variance, of shape batch_shape + event_shape.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Uniform
        >>> Uniform(pydevtensor.tensor([0.0]), 6.0).variance
        tensor([3.])
        """
        raise NotImplementedError(f"{type(self).__name__} has no variance here")

    @property
    def stddev(self):
        """The standard deviation, the square root of the variance.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Normal
        >>> Normal(pydevtensor.tensor([0.0]), 3.0).stddev
        tensor([3.])
        """
        return self.variance.sqrt()

    def entropy(self):
        """The entropy of each distribution of the batch, in nats.

        Returns
        -------
        Tensor
            Of batch_shape.

        Examples
        --------
        >>> from pydevtensor.distributions import Bernoulli
        >>> Bernoulli(pydevtensor.tensor([0.5])).entropy()
        tensor([0.6931])
        """
        raise NotImplementedError(f"{type(self).__name__} has no entropy here (as in PyTorch)")

    def log_prob(self, value):
        """The log of the density (or of the mass) at value.

        Parameters
        ----------
        value : Tensor
            Broadcastable to batch_shape + event_shape.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Poisson
        >>> Poisson(pydevtensor.tensor([1.0])).log_prob(pydevtensor.tensor([0.0]))
        tensor([-1.])
        """
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at value.

        Parameters
        ----------
        value : Tensor

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Uniform
        >>> Uniform(0.0, 4.0).cdf(pydevtensor.tensor(1.0))
        tensor(0.2500)
        """
        raise NotImplementedError(f"{type(self).__name__} has no cdf here")

    def icdf(self, value):
        """The inverse of the cumulative distribution function: the value whose cdf is
        the given probability.

        Parameters
        ----------
        value : Tensor
            Probabilities in [0, 1].

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Uniform
        >>> Uniform(0.0, 4.0).icdf(pydevtensor.tensor(0.25))
        tensor(1.)
        """
        raise NotImplementedError(f"{type(self).__name__} has no icdf here")

    def perplexity(self):
        """exp(entropy()): the number of equally likely outcomes with the same entropy.

        Returns
        -------
        Tensor
            Of batch_shape.

        Examples
        --------
        >>> from pydevtensor.distributions import Bernoulli
        >>> Bernoulli(pydevtensor.tensor([0.5])).perplexity()
        tensor([2.])
        """
        return self.entropy().exp()

    def enumerate_support(self, expand=True):
        """Every value of a discrete distribution's support, along a new first
        dimension (``has_enumerate_support`` says whether there is one).

        Parameters
        ----------
        expand : bool, optional
            Expanded over batch_shape (default), or of size 1 there.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Bernoulli
        >>> Bernoulli(pydevtensor.tensor([0.3, 0.6])).enumerate_support()
        tensor([[0., 0.],
                [1., 1.]])
        """
        raise NotImplementedError(f"{type(self).__name__} does not enumerate its support")

    def rsample(self, sample_shape=()):
        """Draws with the reparameterisation trick: the gradient flows to the parameters.

        Parameters
        ----------
        sample_shape : tuple of ints, optional
            Draws of this shape of each distribution (default one).

        Returns
        -------
        Tensor
            Of sample_shape + batch_shape + event_shape.

        Examples
        --------
        >>> from pydevtensor.distributions import Normal
        >>> loc = pydevtensor.zeros(2, requires_grad=True)
        >>> Normal(loc, 1.0).rsample((4,)).sum().backward()
        >>> loc.grad
        tensor([4., 4.])
        """
        raise NotImplementedError(f"{type(self).__name__} has no rsample (it is not "
                                  f"reparameterisable)")

    def sample(self, sample_shape=()):
        """Draws from the distribution, from the default generator's stream (no gradient).

        Parameters
        ----------
        sample_shape : tuple of ints, optional
            Draws of this shape of each distribution (default one).

        Returns
        -------
        Tensor
            Of sample_shape + batch_shape + event_shape.

        Examples
        --------
        >>> from pydevtensor.distributions import Normal
        >>> Normal(pydevtensor.zeros(3), 1.0).sample((2,)).shape
        pydevtensor.Size([2, 3])
        """
        with no_grad():
            return self.rsample(sample_shape)

    def sample_n(self, n):
        """n draws: ``sample((n,))``.

        Parameters
        ----------
        n : int

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions import Bernoulli
        >>> Bernoulli(pydevtensor.tensor(0.5)).sample_n(3).shape
        pydevtensor.Size([3])
        """
        return self.sample((n,))

    def _extended_shape(self, sample_shape=()):
        return Size(tuple(_shape_arg(f"{type(self).__name__}.sample()", sample_shape))
                    + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value):
        name = type(self).__name__
        if not isinstance(value, _C.Tensor):
            raise ValueError(f"{name}.log_prob(): the value argument to log_prob must be a "
                             f"Tensor, got {type(value).__name__}")
        event_dim = len(self._event_shape)
        if tuple(value.shape[len(value.shape) - event_dim:]) != tuple(self._event_shape):
            raise ValueError(f"{name}.log_prob(): the right-most size of value must match "
                             f"event_shape: {tuple(value.shape)} vs {tuple(self._event_shape)}")
        actual = tuple(value.shape)
        expected = tuple(self._batch_shape) + tuple(self._event_shape)
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"{name}.log_prob(): value with shape {actual} is not "
                                 f"broadcastable with batch_shape + event_shape {expected}")
        support = self.support
        if support is not None:
            with no_grad():
                ok = bool(support.check(value).all())
            if not ok:
                raise ValueError(f"{name}.log_prob(): the value argument must be within the "
                                 f"support of the distribution ({support!r}), got {value}")

    def __repr__(self):
        params = [p for p in self.arg_constraints if p in self.__dict__]
        inner = ", ".join(f"{p}: {_describe(self.__dict__[p])}" for p in params)
        return f"{type(self).__name__}({inner})"


class _LocScale(Distribution):
    """The location-scale families' shared part (Normal, Cauchy, Laplace): loc and scale,
    broadcast together, give the batch shape; the mean and the mode are loc unless a
    family says otherwise."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(tuple(self.loc.shape), (), validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc


def _describe(v):
    if isinstance(v, _C.Tensor):
        return repr(v) if v.numel() == 1 else repr(v.shape)
    return repr(v)


def _lazy_types():
    from .utils import lazy_property
    return (lazy_property,)
