"""CorrCholeskyTransform, PositiveDefiniteTransform, CatTransform, StackTransform and
CumulativeDistributionTransform of ``distributions.transforms``, as PyTorch's."""
import functools
import math
import operator

from .. import _C
from .._dtype_info import finfo
from .._ops_join import cat, stack
from ..nn.functional import pad, softplus
from . import constraints
from ._transforms_more import LowerCholeskyTransform
from .independent import _sum_rightmost
from .transforms import Transform

__all__ = ["CatTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform",
           "PositiveDefiniteTransform", "StackTransform"]


def _tril_mask(n, diag, device):
    arange = _C.arange(n, device=device)
    return arange < arange.view(-1, 1) + (diag + 1)


def _tril_to_vec(mat, diag):
    return mat[..., _tril_mask(mat.shape[-1], diag, mat.device)]


class CorrCholeskyTransform(Transform):
    """From unconstrained vectors of D(D-1)/2 reals to the lower Cholesky factors of D x D
    correlation matrices (lower triangular, positive diagonal, rows of unit norm): tanh
    onto (-1, 1), then a stick-breaking of the squares along each row, as PyTorch's (and
    Stan's).  log_abs_det_jacobian is that of x onto the strict lower triangle of y.

    Parameters
    ----------
    cache_size : int, optional
        0 (default) or 1.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import CorrCholeskyTransform
    >>> t = CorrCholeskyTransform()
    >>> y = t(pydevtensor.tensor([0.5, 0.0, 1.0]))
    >>> y.shape, (y * y).sum(-1)
    (pydevtensor.Size([3, 3]), tensor([1., 1., 1.]))
    >>> t.inv(y)
    tensor([0.5000, 0.0000, 1.0000])
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other):
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        eps = finfo(x.dtype).eps
        x = x.tanh().clamp(min=-1 + eps, max=1 - eps)
        n = self.forward_shape(tuple(x.shape))[-1]
        mask = _tril_mask(n, -1, x.device)
        r = _C.zeros(tuple(x.shape[:-1]) + (n, n), dtype=x.dtype, device=x.device)
        r[..., mask] = x
        z1m_cumprod_sqrt = (1 - r.square()).sqrt().cumprod(-1)
        r = r + _C.eye(n, dtype=r.dtype, device=r.device)
        return r * pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1.0)

    def _inverse(self, y):
        y_cumsum = 1 - (y * y).cumsum(-1)
        shifted = pad(y_cumsum[..., :-1], [1, 0], value=1.0)
        t = _tril_to_vec(y, -1) / _tril_to_vec(shifted, -1).sqrt()
        return (t.log1p() - (-t).log1p()) / 2

    def log_abs_det_jacobian(self, x, y):
        y1m_cumsum = 1 - (y * y).cumsum(-1)
        stick_breaking = 0.5 * _tril_to_vec(y1m_cumsum, -2).log().sum(-1)
        tanh = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick_breaking + tanh

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("CorrCholeskyTransform: too few dimensions on input: shape ()")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError(f"CorrCholeskyTransform: the last dimension, {n}, is not "
                             f"D(D-1)/2 for any D (input shape {tuple(shape)})")
        return tuple(shape[:-1]) + (d, d)

    def inverse_shape(self, shape):
        if len(shape) < 2 or shape[-2] != shape[-1]:
            raise ValueError(f"CorrCholeskyTransform: the inverse takes square matrices, "
                             f"got shape {tuple(shape)}")
        d = shape[-1]
        return tuple(shape[:-2]) + (d * (d - 1) // 2,)


class PositiveDefiniteTransform(Transform):
    """From square matrices to positive-definite ones: ``L L^T`` for L the
    LowerCholeskyTransform of x (not bijective; the inverse takes the Cholesky factor),
    as PyTorch's.

    Parameters
    ----------
    cache_size : int, optional
        0 (default) or 1.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import PositiveDefiniteTransform
    >>> PositiveDefiniteTransform()(pydevtensor.tensor([[0.0, 5.0], [2.0, 0.0]]))
    tensor([[1., 2.],
            [2., 5.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        from ..linalg import cholesky
        return LowerCholeskyTransform().inv(cholesky(y))


def _check_parts(where, transforms):
    transforms = list(transforms)
    if not all(isinstance(t, Transform) for t in transforms):
        raise TypeError(f"{where}: every element of tseq must be a Transform, got "
                        f"{[type(t).__name__ for t in transforms]}")
    return transforms


class CatTransform(Transform):
    """The transforms of tseq applied to consecutive slices of dim, of the given lengths
    (1 each by default), and the results concatenated, as PyTorch's.

    Parameters
    ----------
    tseq : sequence of Transform
    dim : int, optional
        The dimension sliced (default 0).
    lengths : sequence of int, optional
        The slices' lengths, one per transform.
    cache_size : int, optional
        0 (default) or 1.

    Raises
    ------
    TypeError
        An element of tseq that is no Transform.
    ValueError
        Not one length per transform; in a call, a dim out of range or a size along dim
        other than the sum of the lengths.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import (AffineTransform, CatTransform,
    ...     ExpTransform)
    >>> t = CatTransform([ExpTransform(), AffineTransform(0.0, 2.0)], dim=0, lengths=[1, 2])
    >>> t(pydevtensor.tensor([0.0, 1.0, 2.0]))
    tensor([1., 2., 4.])
    """

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        tseq = _check_parts("CatTransform", tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = tseq
        self.lengths = list(lengths) if lengths is not None else [1] * len(tseq)
        if len(self.lengths) != len(self.transforms):
            raise ValueError(f"CatTransform: {len(self.lengths)} lengths for "
                             f"{len(self.transforms)} transforms")
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        """The sum of the lengths.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import CatTransform, ExpTransform
        >>> CatTransform([ExpTransform()], lengths=[3]).length
        3
        """
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _map(self, value, fn):
        constraints._check_dim("CatTransform", self.dim, value, self.length)
        out, start = [], 0
        for trans, length in zip(self.transforms, self.lengths):
            out.append(fn(trans, value.narrow(self.dim, start, length)))
            start = start + length
        return out

    def _call(self, x):
        return cat(self._map(x, lambda t, v: t(v)), self.dim)

    def _inverse(self, y):
        return cat(self._map(y, lambda t, v: t.inv(v)), self.dim)

    def log_abs_det_jacobian(self, x, y):
        constraints._check_dim("CatTransform", self.dim, y, self.length)
        ys = iter(self._map(y, lambda t, v: v))
        logdets = [_sum_rightmost(t.log_abs_det_jacobian(v, next(ys)),
                                  self.event_dim - t.event_dim)
                   for t, v in zip(self.transforms, self._map(x, lambda t, v: v))]
        dim = self.dim - x.ndim if self.dim >= 0 else self.dim
        dim = dim + self.event_dim
        if dim < 0:
            return cat(logdets, dim)
        return functools.reduce(operator.add, logdets)

    @property
    def bijective(self):
        """Whether every piece's transform is bijective.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import CatTransform, ExpTransform
        >>> CatTransform([ExpTransform(), ExpTransform()], lengths=[1, 2]).bijective
        True
        """
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """constraints.cat of the transforms' domains.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import CatTransform, ExpTransform
        >>> CatTransform([ExpTransform()]).domain.cseq
        [Real()]
        """
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """constraints.cat of the transforms' codomains.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import CatTransform, ExpTransform
        >>> CatTransform([ExpTransform()]).codomain.cseq
        [GreaterThan(lower_bound=0.0)]
        """
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """The transforms of tseq applied to the slices of dim, one each, and the results
    stacked, as PyTorch's.

    Parameters
    ----------
    tseq : sequence of Transform
    dim : int, optional
        The dimension sliced (default 0).
    cache_size : int, optional
        0 (default) or 1.

    Raises
    ------
    TypeError
        An element of tseq that is no Transform.
    ValueError
        In a call: a dim out of range or a size along dim other than len(tseq).

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import (AffineTransform, ExpTransform,
    ...     StackTransform)
    >>> t = StackTransform([ExpTransform(), AffineTransform(0.0, 2.0)], dim=1)
    >>> t(pydevtensor.tensor([[0.0, 1.0], [1.0, 2.0]]))
    tensor([[1.0000, 2.0000],
            [2.7183, 4.0000]])
    """

    def __init__(self, tseq, dim=0, cache_size=0):
        tseq = _check_parts("StackTransform", tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = tseq
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, z):
        constraints._check_dim("StackTransform", self.dim, z, len(self.transforms))
        return [z.select(self.dim, i) for i in range(z.shape[self.dim])]

    def _call(self, x):
        return stack([t(v) for v, t in zip(self._slices(x), self.transforms)], self.dim)

    def _inverse(self, y):
        return stack([t.inv(v) for v, t in zip(self._slices(y), self.transforms)], self.dim)

    def log_abs_det_jacobian(self, x, y):
        return stack([t.log_abs_det_jacobian(a, b) for a, b, t in
                      zip(self._slices(x), self._slices(y), self.transforms)], self.dim)

    @property
    def bijective(self):
        """Whether every slice's transform is bijective.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import StackTransform, AbsTransform
        >>> StackTransform([AbsTransform(), AbsTransform()]).bijective
        False
        """
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """constraints.stack of the transforms' domains.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import ExpTransform, StackTransform
        >>> StackTransform([ExpTransform()]).domain.cseq
        [Real()]
        """
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """constraints.stack of the transforms' codomains.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import ExpTransform, StackTransform
        >>> StackTransform([ExpTransform()]).codomain.cseq
        [GreaterThan(lower_bound=0.0)]
        """
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """The cdf of a distribution, from its support onto [0, 1] (the inverse is its icdf,
    log abs(det J) its log_prob), as PyTorch's.

    Parameters
    ----------
    distribution : Distribution
        One with cdf, icdf and log_prob.
    cache_size : int, optional
        0 (default) or 1.

    Examples
    --------
    >>> from pydevtensor.distributions import Normal
    >>> from pydevtensor.distributions.transforms import CumulativeDistributionTransform
    >>> t = CumulativeDistributionTransform(Normal(0.0, 1.0))
    >>> t(pydevtensor.tensor([0.0])), t.inv(pydevtensor.tensor([0.5]))
    (tensor([0.5000]), tensor([0.]))
    """

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        """The distribution's support.

        Examples
        --------
        >>> from pydevtensor.distributions import Exponential
        >>> from pydevtensor.distributions.transforms import CumulativeDistributionTransform
        >>> CumulativeDistributionTransform(Exponential(1.0)).domain
        GreaterThanEq(lower_bound=0.0)
        """
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
