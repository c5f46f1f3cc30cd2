"""Invertible transforms with a log abs(det Jacobian) (PyTorch's
``torch.distributions.transforms``): the base class, their composition and
IndependentTransform here, Reshape and the element-wise and vector ones in
_transforms_more.py (re-exported here, as PyTorch has them all in one module)."""
import functools
import operator

from .. import _C, _args
from . import constraints
from .independent import _sum_rightmost

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "StackTransform",
           "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform",
           "StickBreakingTransform", "TanhTransform", "Transform", "identity_transform"]


class Transform:
    """An invertible (or pseudo-invertible) map ``x => y`` with a computable
    log abs(det dy/dx), as PyTorch's: the base class of the transforms of
    ``TransformedDistribution`` and of ``biject_to``/``transform_to``.

    A subclass defines ``_call`` and/or ``_inverse``, ``domain`` and ``codomain``
    (constraints), ``bijective``, ``sign`` and ``log_abs_det_jacobian``.

    Parameters
    ----------
    cache_size : int, optional
        0 (default): no caching; 1: the latest (x, y) pair is kept, so that the inverse
        of the last output is the very input tensor (``t.inv(t(x)) is x``).

    Raises
    ------
    ValueError
        A cache_size other than 0 or 1.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import ExpTransform
    >>> t = ExpTransform(cache_size=1)
    >>> x = pydevtensor.tensor([0.0, 1.0])
    >>> y = t(x)
    >>> y, t.inv(y) is x
    (tensor([1.0000, 2.7183]), True)
    """

    bijective = False

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1) or isinstance(cache_size, bool):
            raise ValueError(f"cache_size must be 0 or 1, got {cache_size!r}")
        self._cache_size = cache_size
        self._inv = None
        if cache_size == 1:
            self._cached_x_y = None, None

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inv"] = None
        return state

    @property
    def domain(self):
        """The constraint of the inputs (each transform defines its own).

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import ExpTransform
        >>> ExpTransform().domain
        Real()
        """
        raise NotImplementedError(f"{type(self).__name__} does not define its domain")

    @property
    def codomain(self):
        """The constraint of the outputs, the inputs of the inverse.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import ExpTransform
        >>> ExpTransform().codomain
        GreaterThan(lower_bound=0.0)
        """
        raise NotImplementedError(f"{type(self).__name__} does not define its codomain")

    @property
    def event_dim(self):
        """The number of rightmost dimensions that make one event of the input and of the
        output (an error when they differ: read domain.event_dim or codomain.event_dim).

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import StickBreakingTransform
        >>> StickBreakingTransform().event_dim
        1
        """
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform (``t.inv.inv is t``).

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import ExpTransform
        >>> ExpTransform().inv(pydevtensor.tensor([1.0]))
        tensor([0.])
        """
        inv = self._inv
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = inv
        return inv

    @property
    def sign(self):
        """The sign of the Jacobian's determinant of a bijective element-wise transform:
        +1 where increasing, -1 where decreasing (a tensor when it varies).

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import AffineTransform
        >>> AffineTransform(0.0, -2.0).sign
        -1
        """
        raise NotImplementedError(f"{type(self).__name__} has no sign")

    def with_cache(self, cache_size=1):
        """The same transform with the given cache size (itself when it has it).

        Parameters
        ----------
        cache_size : int, optional
            0 or 1 (default).

        Returns
        -------
        Transform

        Raises
        ------
        NotImplementedError
            A subclass with an ``__init__`` of its own and no ``with_cache``.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import ExpTransform
        >>> ExpTransform().with_cache()._cache_size
        1
        """
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError(f"{type(self).__name__} does not define its forward map")

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__} does not define its inverse")

    def log_abs_det_jacobian(self, x, y):
        """log abs(det dy/dx) at the input x and its output y, per event (of the batch
        shape: the input's shape less event_dim dimensions).

        Parameters
        ----------
        x, y : Tensor
            An input and ``y = t(x)``.

        Returns
        -------
        Tensor

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import AffineTransform
        >>> AffineTransform(1.0, 2.0).log_abs_det_jacobian(pydevtensor.zeros(2), None)
        tensor([0.6931, 0.6931])
        """
        raise NotImplementedError(f"{type(self).__name__} has no log_abs_det_jacobian")

    def __repr__(self):
        return type(self).__name__ + "()"

    def forward_shape(self, shape):
        """The shape of the output for an input of the given shape.

        Parameters
        ----------
        shape : tuple of ints

        Returns
        -------
        tuple of ints or Size

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import StickBreakingTransform
        >>> StickBreakingTransform().forward_shape((5, 3))
        (5, 4)
        """
        return shape

    def inverse_shape(self, shape):
        """The shape of the input for an output of the given shape.

        Parameters
        ----------
        shape : tuple of ints

        Returns
        -------
        tuple of ints or Size

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import StickBreakingTransform
        >>> StickBreakingTransform().inverse_shape((5, 4))
        (5, 3)
        """
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform (``Transform.inv`` makes it)."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """The transforms in a chain: ``parts[0]`` first, ``parts[-1]`` last, as PyTorch's; the
    parts do the caching.

    Parameters
    ----------
    parts : list of Transform
        Applied first to last (none: the identity).
    cache_size : int, optional
        0 (default) or 1, given to each part.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import (AffineTransform,
    ...     ComposeTransform, ExpTransform)
    >>> t = ComposeTransform([ExpTransform(), AffineTransform(1.0, 2.0)])
    >>> t(pydevtensor.tensor([0.0])), t.inv(pydevtensor.tensor([3.0]))
    (tensor([3.]), tensor([0.]))
    """

    def __init__(self, parts, cache_size=0):
        parts = list(_args.sequence(parts, "ComposeTransform", "parts", "Transforms"))
        for i, part in enumerate(parts):
            if not isinstance(part, Transform):
                raise TypeError(f"ComposeTransform(): parts[{i}] must be a Transform, got "
                                f"{type(part).__name__}")
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The first part's domain, over as many event dims as the chain needs.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import (ComposeTransform,
        ...     ExpTransform, StickBreakingTransform)
        >>> ComposeTransform([ExpTransform(), StickBreakingTransform()]).domain
        IndependentConstraint(Real(), 1)
        """
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The last part's codomain, over as many event dims as the chain gives.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import ComposeTransform, ExpTransform
        >>> ComposeTransform([ExpTransform()]).codomain
        GreaterThan(lower_bound=0.0)
        """
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self):
        """Whether every part is bijective.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import ComposeTransform, AbsTransform
        >>> ComposeTransform([AbsTransform()]).bijective
        False
        """
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        inv = self._inv
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = inv
            inv._inv = self
        return inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return _C.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(a, b),
                                        event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return (type(self).__name__ + "(\n    " + ",\n    ".join(repr(p) for p in self.parts)
                + "\n)")


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """A transform whose events have reinterpreted_batch_ndims more (rightmost)
    dimensions: the same map, its log abs(det J) summed over those dimensions.

    Parameters
    ----------
    base_transform : Transform
    reinterpreted_batch_ndims : int
        How many more rightmost dimensions make one event.
    cache_size : int, optional
        0 (default) or 1.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import ExpTransform, IndependentTransform
    >>> t = IndependentTransform(ExpTransform(), 1)
    >>> x = pydevtensor.tensor([[0.0, 1.0]])
    >>> t.log_abs_det_jacobian(x, t(x))
    tensor([1.])
    """

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The base transform's domain over reinterpreted_batch_ndims more dimensions.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import ExpTransform, IndependentTransform
        >>> IndependentTransform(ExpTransform(), 1).domain
        IndependentConstraint(Real(), 1)
        """
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The base transform's codomain over reinterpreted_batch_ndims more dimensions.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import ExpTransform, IndependentTransform
        >>> IndependentTransform(ExpTransform(), 1).codomain
        IndependentConstraint(GreaterThan(lower_bound=0.0), 1)
        """
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        """Whether the base transform is bijective.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import ExpTransform, IndependentTransform
        >>> IndependentTransform(ExpTransform(), 1).bijective
        True
        """
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.ndim < self.domain.event_dim:
            raise ValueError(f"IndependentTransform: too few dimensions on input: shape "
                             f"{tuple(x.shape)}, expected at least {self.domain.event_dim}")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.ndim < self.codomain.event_dim:
            raise ValueError(f"IndependentTransform: too few dimensions on input: shape "
                             f"{tuple(y.shape)}, expected at least {self.codomain.event_dim}")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


from ._transforms_more import (AbsTransform, AffineTransform, ExpTransform,  # noqa: E402
                               LowerCholeskyTransform, PowerTransform, ReshapeTransform,
                               SigmoidTransform,
                               SoftmaxTransform, SoftplusTransform, StickBreakingTransform,
                               TanhTransform)
from ._transforms_matrix import (CatTransform, CorrCholeskyTransform,  # noqa: E402
                                 CumulativeDistributionTransform, PositiveDefiniteTransform,
                                 StackTransform)
