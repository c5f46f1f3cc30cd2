"""The constraints a distribution's parameters and values satisfy (PyTorch's
``torch.distributions.constraints``: those the distributions here use and the others).

``c.check(value)`` gives a bool tensor: per element, or per event for an event
constraint (``event_dim`` > 0, such as ``simplex``).
"""
__all__ = ["Constraint", "boolean", "dependent", "dependent_property", "greater_than",
           "half_open_interval", "integer_interval", "interval", "is_dependent", "less_than",
           "multinomial", "nonnegative", "nonnegative_integer", "positive", "real",
           "real_vector", "simplex", "unit_interval"]


class Constraint:
    """A region of values: ``check(value)`` is a bool tensor, True where value lies in it.

    Examples
    --------
    >>> from pydevtensor.distributions import constraints
    >>> constraints.positive.check(pydevtensor.tensor([1.0, -1.0]))
    tensor([ True, False])
    """

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """Whether each element (or event) of value lies in the region.

        Parameters
        ----------
        value : Tensor

        Returns
        -------
        Tensor
            bool.

        Examples
        --------
        >>> from pydevtensor.distributions import constraints
        >>> constraints.unit_interval.check(pydevtensor.tensor([0.5]))
        tensor([True])
        """
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__.lstrip("_") + "()"


class _Dependent(Constraint):
    """A constraint that depends on the distribution's parameters (a support such as
    Binomial's 0 .. total_count), as PyTorch's: ``check`` cannot tell, and argument
    validation skips it; is_discrete and event_dim as given (default False and 0)."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete, self._event_dim = is_discrete, event_dim

    @property
    def is_discrete(self):
        return False if self._is_discrete is NotImplemented else self._is_discrete

    @property
    def event_dim(self):
        return 0 if self._event_dim is NotImplemented else self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        """The same constraint with other is_discrete or event_dim."""
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether a constraint depends on the distribution's parameters (``dependent``, or
    a ``dependent_property`` read on the class).

    Parameters
    ----------
    constraint : Constraint

    Returns
    -------
    bool

    Examples
    --------
    >>> from pydevtensor.distributions import Binomial, constraints
    >>> constraints.is_dependent(Binomial.support), constraints.is_dependent(constraints.real)
    (True, False)
    """
    return isinstance(constraint, _Dependent)


class dependent_property(property, _Dependent):
    """A property whose value is a constraint computed from the instance's parameters
    and which, read on the class, is a dependent constraint with is_discrete and
    event_dim (PyTorch's ``constraints.dependent_property``): the supports of Binomial,
    Categorical, Multinomial and Uniform.

    Parameters
    ----------
    fn : callable, optional
        The getter; without it, ``dependent_property(is_discrete=..., event_dim=...)``
        decorates one.
    is_discrete : bool, optional
    event_dim : int, optional

    Examples
    --------
    >>> from pydevtensor.distributions import Binomial
    >>> Binomial.support.is_discrete, Binomial.support.event_dim
    (True, 0)
    >>> Binomial(3, pydevtensor.tensor(0.5)).support
    IntegerInterval(lower_bound=0, upper_bound=3.0)
    """

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn):
        return dependent_property(fn, is_discrete=self._is_discrete,
                                  event_dim=self._event_dim)

    def __repr__(self):
        return "DependentProperty()"


class _Real(Constraint):
    def check(self, value):
        return value == value  # not NaN


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _GreaterThan(Constraint):
    def __init__(self, lower_bound, strict=True):
        self.lower_bound, self.strict = lower_bound, strict

    def check(self, value):
        return value > self.lower_bound if self.strict else value >= self.lower_bound

    def __repr__(self):
        name = "GreaterThan" if self.strict else "GreaterThanEq"
        return f"{name}(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    """[lower_bound, inf), PyTorch's ``constraints.greater_than_eq``."""

    def __init__(self, lower_bound):
        super().__init__(lower_bound, strict=False)


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return f"LessThan(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound, half_open=False):
        self.lower_bound, self.upper_bound, self.half_open = lower_bound, upper_bound, half_open

    def check(self, value):
        top = value < self.upper_bound if self.half_open else value <= self.upper_bound
        return (value >= self.lower_bound) & top

    def __repr__(self):
        name = "HalfOpenInterval" if self.half_open else "Interval"
        return f"{name}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Multinomial(Constraint):
    """Counts of a Multinomial, PyTorch's rule: each >= 0, summing (over the last dim)
    to at most upper_bound."""
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)

    def __repr__(self):
        return f"Multinomial(upper_bound={self.upper_bound})"


def _whole(value):
    """Where value is an integer: PyTorch's ``value % 1 == 0``, false for inf and NaN."""
    return value % 1 == 0 if value.is_floating_point() else value == value


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        whole = _whole(value)
        return whole & (value >= self.lower_bound) & (value <= self.upper_bound)

    def __repr__(self):
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    """The integers >= lower_bound (PyTorch's name for it, whose bound is inclusive)."""
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        whole = _whole(value)
        return whole & (value >= self.lower_bound)

    def __repr__(self):
        return f"IntegerGreaterThan(lower_bound={self.lower_bound})"


class _RealVector(Constraint):
    event_dim = 1

    def check(self, value):
        if value.ndim < 1:
            raise ValueError(f"Expected value.dim() >= 1 but got {value.ndim}")
        return (value == value).all(-1)

    def __repr__(self):
        return "IndependentConstraint(Real(), 1)"


class _Simplex(Constraint):
    """Non-negative along the last dimension, summing to 1 within 1e-6."""

    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


dependent = _Dependent()
real = _Real()
real_vector = _RealVector()
boolean = _Boolean()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
unit_interval = _Interval(0.0, 1.0)
simplex = _Simplex()
nonnegative_integer = _IntegerGreaterThan(0)
greater_than = _GreaterThan
less_than = _LessThan
interval = _Interval
integer_interval = _IntegerInterval
multinomial = _Multinomial


def half_open_interval(lower_bound, upper_bound):
    """[lower_bound, upper_bound): the support of Uniform.

    Parameters
    ----------
    lower_bound, upper_bound : float or Tensor

    Returns
    -------
    Constraint

    Examples
    --------
    >>> from pydevtensor.distributions import constraints
    >>> constraints.half_open_interval(0.0, 1.0).check(pydevtensor.tensor([0.0, 1.0]))
    tensor([ True, False])
    """
    return _Interval(lower_bound, upper_bound, half_open=True)



# The constraints of OneHotCategorical, Independent and MultivariateNormal, and PyTorch's
# other matrix and integer constraints.
__all__ += ["independent", "lower_cholesky", "one_hot", "positive_definite",
            "MixtureSameFamilyConstraint", "greater_than_eq", "lower_triangular",
            "positive_integer", "positive_semidefinite", "square", "symmetric"]


class _OneHot(Constraint):
    """Events (the last dimension) of zeros and a single one."""
    is_discrete = True
    event_dim = 1

    def check(self, value):
        is_int = (value == 0) | (value == 1)
        return is_int.all(-1) & (value.sum(-1) == 1)


class _IndependentConstraint(Constraint):
    """base_constraint over events of reinterpreted_batch_ndims more dimensions: an event
    is in it when each of its elements (or base events) is."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        self.is_discrete = base_constraint.is_discrete
        self.event_dim = base_constraint.event_dim + reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if result.ndim < n:
            raise ValueError(f"Expected value.dim() >= {n + self.base_constraint.event_dim} "
                             f"but got {value.ndim} (shape {tuple(value.shape)})")
        return result.reshape(tuple(result.shape[:result.ndim - n]) + (-1,)).all(-1)

    def __repr__(self):
        return (f"IndependentConstraint({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices of a positive diagonal."""
    event_dim = 2

    def check(self, value):
        lower = lower_triangular.check(value)
        return lower & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class _Square(Constraint):
    """Square matrices: per matrix, whether the last two dimensions are equal."""
    event_dim = 2

    def check(self, value):
        from .. import _C
        return _C.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1],
                       dtype=_C.bool, device=value.device)


class _Symmetric(_Square):
    """Square matrices equal to their transpose within atol 1e-6 (``isclose``)."""

    def check(self, value):
        square = super().check(value)
        if not bool(square.all()):
            return square
        from .._ops_stats import isclose
        return isclose(value, value.mT, atol=1e-6).all(-1).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices of eigenvalues >= 0 (``linalg.eigvalsh``)."""

    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        from ..linalg import eigvalsh
        return (eigvalsh(value) >= 0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric (within 1e-6) positive-definite matrices: those with a Cholesky
    factor."""

    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        from ..linalg import cholesky_ex
        return cholesky_ex(value).info == 0


class _LowerTriangular(Constraint):
    """Lower-triangular square matrices (zeros above the diagonal)."""
    event_dim = 2

    def check(self, value):
        return (value.tril() == value).all(-1).all(-1)


one_hot = _OneHot()
independent = _IndependentConstraint
lower_cholesky = _LowerCholesky()
positive_definite = _PositiveDefinite()
lower_triangular = _LowerTriangular()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_integer = _IntegerGreaterThan(1)
greater_than_eq = _GreaterThanEq


class _CorrCholesky(Constraint):
    """Lower Cholesky factors of correlation matrices: lower-triangular of a positive
    diagonal, each row of unit Euclidean norm (within 10 n eps), as PyTorch's."""
    event_dim = 2

    def check(self, value):
        from .._dtype_info import finfo
        from ..linalg import norm
        tol = finfo(value.dtype).eps * value.shape[-1] * 10
        row_norm = norm(value.detach(), dim=-1)
        unit_rows = ((row_norm - 1).abs() <= tol).all(-1)
        return lower_cholesky.check(value) & unit_rows


def _check_dim(where, dim, value, length):
    if not -value.ndim <= dim < value.ndim:
        raise ValueError(f"{where}: dim {dim} is out of range for a value of shape "
                         f"{tuple(value.shape)}")
    if value.shape[dim] != length:
        raise ValueError(f"{where}: value.shape[{dim}] = {value.shape[dim]} must equal the "
                         f"total length {length} of the parts (value of shape "
                         f"{tuple(value.shape)})")


class _Cat(Constraint):
    """The constraints cseq over consecutive slices of dim, of the given lengths (1 each
    by default), as PyTorch's ``constraints.cat``."""

    def __init__(self, cseq, dim=0, lengths=None):
        self.cseq = list(cseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)
        if len(self.lengths) != len(self.cseq):
            raise ValueError(f"cat: {len(self.lengths)} lengths for {len(self.cseq)} "
                             f"constraints")
        self.dim = dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        from .._ops_join import cat as _cat
        _check_dim("constraints.cat", self.dim, value, sum(self.lengths))
        checks, start = [], 0
        for constr, length in zip(self.cseq, self.lengths):
            checks.append(constr.check(value.narrow(self.dim, start, length)))
            start = start + length
        return _cat(checks, self.dim)


class _Stack(Constraint):
    """The constraints cseq over the slices of dim, one each, as PyTorch's
    ``constraints.stack``."""

    def __init__(self, cseq, dim=0):
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        dim = max(c.event_dim for c in self.cseq)
        if self.dim + dim < 0:
            dim += 1
        return dim

    def check(self, value):
        from .._ops_join import stack as _stack
        _check_dim("constraints.stack", self.dim, value, len(self.cseq))
        vs = [value.select(self.dim, i) for i in range(value.shape[self.dim])]
        return _stack([c.check(v) for v, c in zip(vs, self.cseq)], self.dim)


corr_cholesky = _CorrCholesky()
cat = _Cat
stack = _Stack


class MixtureSameFamilyConstraint(Constraint):
    """The support of a MixtureSameFamily: the component's support, checked on the value
    with the component dimension added back (PyTorch's ``MixtureSameFamilyConstraint``).

    Parameters
    ----------
    base_constraint : Constraint
        The component distribution's support.

    Raises
    ------
    TypeError
        base_constraint is not a Constraint.

    Examples
    --------
    >>> from pydevtensor.distributions import constraints
    >>> c = constraints.MixtureSameFamilyConstraint(constraints.positive)
    >>> c.check(pydevtensor.tensor([1.0, -1.0]))
    tensor([ True, False])
    """

    def __init__(self, base_constraint):
        if not isinstance(base_constraint, Constraint):
            raise TypeError(f"MixtureSameFamilyConstraint: base_constraint must be a "
                            f"Constraint, got {type(base_constraint).__name__}")
        self.base_constraint = base_constraint
        self.is_discrete = base_constraint.is_discrete
        self.event_dim = base_constraint.event_dim

    def check(self, value):
        if value.ndim < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got "
                             f"{value.ndim} (shape {tuple(value.shape)})")
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        keep = value.ndim - self.event_dim
        return result.reshape(tuple(result.shape[:keep]) + (-1,)).all(-1)

    def __repr__(self):
        return f"MixtureSameFamilyConstraint({self.base_constraint!r})"
