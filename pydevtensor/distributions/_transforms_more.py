"""The element-wise transforms (Exp, Power, Sigmoid, Tanh, Abs, Affine, Softplus) and
the vector and matrix ones (Reshape, Softmax, StickBreaking, LowerCholesky) of
``distributions.transforms``, as PyTorch's."""
import math
from numbers import Number

from .. import _C
from .._dtype_info import finfo
from .._ops_shape import broadcast_shapes
from .._tensor_py import Size
from ..nn.functional import logsigmoid, pad, softplus
from . import constraints
from .transforms import Transform
from .utils import broadcast_all

__all__ = ["AbsTransform", "AffineTransform", "ExpTransform", "LowerCholeskyTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StickBreakingTransform", "TanhTransform"]


class _Stateless(Transform):
    """A transform with no parameters: all of one class are equal."""

    def __eq__(self, other):
        return type(other) is type(self)

    __hash__ = Transform.__hash__


class ExpTransform(_Stateless):
    """``y = exp(x)``, from the reals to the positive reals.

    Parameters
    ----------
    cache_size : int, optional
        0 (default) or 1.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import ExpTransform
    >>> x = pydevtensor.tensor([0.0, 2.0])
    >>> ExpTransform().log_abs_det_jacobian(x, ExpTransform()(x))
    tensor([0., 2.])
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """``y = x ** exponent``, on the positive reals.

    Parameters
    ----------
    exponent : float or Tensor
    cache_size : int, optional
        0 (default) or 1.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import PowerTransform
    >>> t = PowerTransform(2.0)
    >>> t(pydevtensor.tensor([3.0])), t.inv(pydevtensor.tensor([4.0]))
    (tensor([9.]), tensor([2.]))
    """

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and bool(
            self.exponent.eq(other.exponent).all())

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return broadcast_shapes(shape, tuple(self.exponent.shape))

    def inverse_shape(self, shape):
        return broadcast_shapes(shape, tuple(self.exponent.shape))


def _clipped_sigmoid(x):
    info = finfo(x.dtype)
    return x.sigmoid().clamp(min=info.tiny, max=1.0 - info.eps)


class SigmoidTransform(_Stateless):
    """``y = sigmoid(x)``, from the reals to the unit interval (clipped to
    [tiny, 1 - eps] of the dtype, as PyTorch's).

    Parameters
    ----------
    cache_size : int, optional
        0 (default) or 1.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import SigmoidTransform
    >>> SigmoidTransform()(pydevtensor.tensor([0.0])), SigmoidTransform().codomain
    (tensor([0.5000]), Interval(lower_bound=0.0, upper_bound=1.0))
    """

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        info = finfo(y.dtype)
        y = y.clamp(min=info.tiny, max=1.0 - info.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -softplus(-x) - softplus(x)


class SoftplusTransform(_Stateless):
    """``y = log(1 + exp(x))``, from the reals to the positive reals.

    Parameters
    ----------
    cache_size : int, optional
        0 (default) or 1.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import SoftplusTransform
    >>> SoftplusTransform().inv(pydevtensor.tensor([0.6931471805599453]))
    tensor([0.])
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -softplus(-x)


class TanhTransform(_Stateless):
    """``y = tanh(x)``, from the reals to (-1, 1).

    Parameters
    ----------
    cache_size : int, optional
        0 (default) or 1.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import TanhTransform
    >>> x = pydevtensor.tensor([0.0])
    >>> TanhTransform().log_abs_det_jacobian(x, TanhTransform()(x))
    tensor([0.])
    """

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class AbsTransform(_Stateless):
    """``y = |x|``: not bijective; its inverse is the identity (a pseudo-inverse).

    Parameters
    ----------
    cache_size : int, optional
        0 (default) or 1.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import AbsTransform
    >>> AbsTransform()(pydevtensor.tensor([-2.0])), AbsTransform().bijective
    (tensor([2.]), False)
    """

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``, element-wise, over events of event_dim dimensions.

    Parameters
    ----------
    loc, scale : float or Tensor
    event_dim : int, optional
        The number of rightmost dimensions of one event (default 0): log_abs_det_jacobian
        sums over them.
    cache_size : int, optional
        0 (default) or 1.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import AffineTransform
    >>> t = AffineTransform(1.0, 2.0)
    >>> t(pydevtensor.tensor([1.0])), t.inv(pydevtensor.tensor([5.0]))
    (tensor([3.]), tensor([2.]))
    """

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The reals, over events of event_dim dimensions.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import AffineTransform
        >>> AffineTransform(0.0, 1.0, event_dim=1).domain
        IndependentConstraint(Real(), 1)
        """
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The reals, over events of event_dim dimensions.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import AffineTransform
        >>> AffineTransform(0.0, 1.0).codomain
        Real()
        """
        return self.domain

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, Number) and isinstance(b, Number):
                if a != b:
                    return False
            elif not bool((a == b).all()):
                return False
        return True

    __hash__ = Transform.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, Number):
            s = float(self.scale)
            return 1 if s > 0 else -1 if s < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = tuple(x.shape)
        if isinstance(self.scale, Number):
            result = _C.full_like(x, math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log()
        if self.event_dim:
            result = result.reshape(tuple(result.shape[:result.ndim - self.event_dim])
                                    + (-1,)).sum(-1)
            shape = shape[:len(shape) - self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return broadcast_shapes(shape, tuple(getattr(self.loc, "shape", ())),
                                tuple(getattr(self.scale, "shape", ())))

    inverse_shape = forward_shape


def _needs_vector(name, shape):
    if len(shape) < 1:
        raise ValueError(f"{name}: too few dimensions on input: shape {tuple(shape)}, "
                         f"expected at least 1")


class SoftmaxTransform(_Stateless):
    """``y = softmax(x)`` over the last dimension, from real vectors to the simplex: not
    bijective (its inverse is ``log y``, a pseudo-inverse).

    Parameters
    ----------
    cache_size : int, optional
        0 (default) or 1.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import SoftmaxTransform
    >>> SoftmaxTransform()(pydevtensor.zeros(4))
    tensor([0.2500, 0.2500, 0.2500, 0.2500])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        _needs_vector("SoftmaxTransform", shape)
        return shape

    inverse_shape = forward_shape


class StickBreakingTransform(_Stateless):
    """The stick-breaking map from real vectors of size K to the simplex of size K + 1
    (bijective), as PyTorch's.

    Parameters
    ----------
    cache_size : int, optional
        0 (default) or 1.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import StickBreakingTransform
    >>> StickBreakingTransform()(pydevtensor.zeros(3))
    tensor([0.2500, 0.2500, 0.2500, 0.2500])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _call(self, x):
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        z = _clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        return pad(z, (0, 1), value=1) * pad(z_cumprod, (1, 0), value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = y.shape[-1] - y.new_ones(y_crop.shape[-1]).cumsum(-1)
        sf = (1 - y_crop.cumsum(-1)).clamp(min=finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        offset = x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)
        x = x - offset.log()
        return (-x + logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        _needs_vector("StickBreakingTransform", shape)
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        _needs_vector("StickBreakingTransform", shape)
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(_Stateless):
    """From square matrices to lower-triangular ones of a positive diagonal: the strict
    lower triangle kept, the diagonal exponentiated (not bijective).

    Parameters
    ----------
    cache_size : int, optional
        0 (default) or 1.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import LowerCholeskyTransform
    >>> LowerCholeskyTransform()(pydevtensor.tensor([[0.0, 5.0], [2.0, 0.0]]))
    tensor([[1., 0.],
            [2., 1.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class ReshapeTransform(Transform):
    """Reshapes the rightmost in_shape dimensions to out_shape (a unit Jacobian).

    Parameters
    ----------
    in_shape, out_shape : tuple of ints
        Event shapes of as many elements.
    cache_size : int, optional
        0 (default) or 1.

    Raises
    ------
    ValueError
        in_shape and out_shape of different numbers of elements.

    Examples
    --------
    >>> from pydevtensor.distributions.transforms import ReshapeTransform
    >>> ReshapeTransform((2, 3), (6,))(pydevtensor.zeros(4, 2, 3)).shape
    pydevtensor.Size([4, 6])
    """

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = Size(tuple(in_shape)), Size(tuple(out_shape))
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError(f"in_shape, out_shape have different numbers of elements: "
                             f"{tuple(self.in_shape)} vs {tuple(self.out_shape)}")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        """Real events of in_shape.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import ReshapeTransform
        >>> ReshapeTransform((2, 3), (6,)).domain
        IndependentConstraint(Real(), 2)
        """
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        """Real events of out_shape.

        Examples
        --------
        >>> from pydevtensor.distributions.transforms import ReshapeTransform
        >>> ReshapeTransform((2, 3), (6,)).codomain
        IndependentConstraint(Real(), 1)
        """
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = tuple(x.shape[:x.ndim - len(self.in_shape)])
        return x.reshape(batch_shape + tuple(self.out_shape))

    def _inverse(self, y):
        batch_shape = tuple(y.shape[:y.ndim - len(self.out_shape)])
        return y.reshape(batch_shape + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(tuple(x.shape[:x.ndim - len(self.in_shape)]))

    def _reshape(self, shape, old, new):
        shape = Size(tuple(shape))
        if len(shape) < len(old):
            raise ValueError(f"ReshapeTransform: too few dimensions on input: {tuple(shape)}, "
                             f"expected at least {len(old)}")
        cut = len(shape) - len(old)
        if tuple(shape[cut:]) != tuple(old):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got "
                             f"{tuple(old)}")
        return Size(tuple(shape[:cut]) + tuple(new))

    def forward_shape(self, shape):
        return self._reshape(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._reshape(shape, self.out_shape, self.in_shape)
