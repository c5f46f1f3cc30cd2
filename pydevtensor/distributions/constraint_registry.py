"""biject_to and transform_to (PyTorch's ``torch.distributions.constraint_registry``):
the transform from unconstrained reals onto the values of a constraint, looked up by
the constraint's class (so ``positive`` shares ``greater_than``'s, as in PyTorch)."""
from numbers import Number

from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A table from constraint classes to factories of transforms: calling it with a
    constraint gives the transform from the reals onto that constraint's region
    (``biject_to``'s bijective, ``transform_to``'s not always: softmax onto the simplex).

    Parameters
    ----------
    constraint : Constraint
        What the registry is called with.

    Returns
    -------
    Transform
        From the reals (of the constraint's event_dim) onto the constraint's region.

    Raises
    ------
    NotImplementedError
        A constraint whose class has no transform registered.

    Examples
    --------
    >>> from pydevtensor.distributions import biject_to, constraints
    >>> t = biject_to(constraints.interval(-1.0, 3.0))
    >>> t(pydevtensor.tensor([0.0]))
    tensor([1.])
    """

    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        """Registers factory (``factory(constraint) -> Transform``) for the class of
        constraint; without factory, a decorator that does.

        Parameters
        ----------
        constraint : Constraint or type
            A constraint, or a subclass of Constraint.
        factory : callable, optional

        Returns
        -------
        callable
            factory (or the decorator).

        Raises
        ------
        TypeError
            When constraint is neither.

        Examples
        --------
        >>> from pydevtensor.distributions import constraints
        >>> from pydevtensor.distributions.constraint_registry import ConstraintRegistry
        >>> from pydevtensor.distributions.transforms import ExpTransform
        >>> reg = ConstraintRegistry()
        >>> _ = reg.register(constraints.positive, lambda c: ExpTransform())
        >>> reg(constraints.positive)
        ExpTransform()
        """
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint,
                                                              constraints.Constraint):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} "
                                      f"constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _both(constraint, only=None):
    """Registers the decorated factory in biject_to and transform_to (or only one)."""
    def decorator(factory):
        for registry in only or (biject_to, transform_to):
            registry.register(constraint, factory)
        return factory
    return decorator


@_both(constraints.real)
def _transform_to_real(constraint):
    return transforms.identity_transform


@_both(constraints.real_vector)
def _transform_to_real_vector(constraint):
    return transforms.IndependentTransform(transforms.identity_transform, 1)


@_both(constraints._IndependentConstraint, (biject_to,))
def _biject_to_independent(constraint):
    return transforms.IndependentTransform(biject_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@_both(constraints._IndependentConstraint, (transform_to,))
def _transform_to_independent(constraint):
    return transforms.IndependentTransform(transform_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@_both(constraints.greater_than_eq)  # nonnegative, greater_than_eq
@_both(constraints.greater_than)  # positive
def _transform_to_greater_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


@_both(constraints.less_than)
def _transform_to_less_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


@_both(constraints.interval)  # interval, unit_interval, half_open_interval
def _transform_to_interval(constraint):
    lower, upper = constraint.lower_bound, constraint.upper_bound
    if isinstance(lower, Number) and lower == 0 and isinstance(upper, Number) and upper == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(),
                                        transforms.AffineTransform(lower, upper - lower)])


@_both(constraints.simplex, (biject_to,))
def _biject_to_simplex(constraint):
    return transforms.StickBreakingTransform()


@_both(constraints.simplex, (transform_to,))
def _transform_to_simplex(constraint):
    return transforms.SoftmaxTransform()


@_both(constraints.lower_cholesky, (transform_to,))
def _transform_to_lower_cholesky(constraint):
    return transforms.LowerCholeskyTransform()


@_both(constraints.positive_semidefinite, (transform_to,))
@_both(constraints.positive_definite, (transform_to,))
def _transform_to_positive_definite(constraint):
    return transforms.PositiveDefiniteTransform()


@_both(constraints.corr_cholesky)
def _transform_to_corr_cholesky(constraint):
    return transforms.CorrCholeskyTransform()


@_both(constraints.cat, (biject_to,))
def _biject_to_cat(constraint):
    return transforms.CatTransform([biject_to(c) for c in constraint.cseq], constraint.dim,
                                   constraint.lengths)


@_both(constraints.cat, (transform_to,))
def _transform_to_cat(constraint):
    return transforms.CatTransform([transform_to(c) for c in constraint.cseq],
                                   constraint.dim, constraint.lengths)


@_both(constraints.stack, (biject_to,))
def _biject_to_stack(constraint):
    return transforms.StackTransform([biject_to(c) for c in constraint.cseq], constraint.dim)


@_both(constraints.stack, (transform_to,))
def _transform_to_stack(constraint):
    return transforms.StackTransform([transform_to(c) for c in constraint.cseq],
                                     constraint.dim)
