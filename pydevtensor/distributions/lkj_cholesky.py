"""LKJCholesky(dim, concentration): PyTorch's ``torch.distributions.LKJCholesky`` (after
NumPyro's): the lower Cholesky factors L of correlation matrices L L^T of density
proportional to det(L L^T)^(concentration - 1), drawn by the onion method (Lewandowski,
Kurowicka and Joe, 2009, section 3.2), vectorized over the rows as PyTorch's."""
import math
from numbers import Integral

from .. import _C
from .._dtype_info import finfo
from .._ops_diag import diag_embed
from .._ops_gamma import mvlgamma
from .._ops_index import where
from .._tensor_py import Size
from ..autograd import no_grad
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution of the lower Cholesky factor L (dim x dim) of a correlation
    matrix, of density proportional to ``det(L L^T)^(concentration - 1)`` for the
    correlation matrix (uniform over correlation matrices at concentration 1), as
    PyTorch's: with respect to L's entries below the diagonal the density is
    ``prod_i L_ii^(2 (concentration - 1) + dim - i)`` (i = 2 .. dim) over the normalizer
    of Lewandowski, Kurowicka and Joe (2009).  ``sample`` uses their onion method: row
    k = 1 .. dim - 1 (0-based) below the diagonal is ``sqrt(y_k) u_k``, y_k of
    Beta(k / 2, concentration + (dim - 1 - k) / 2) and u_k uniform on the unit sphere of
    k coordinates, the diagonal completing the row's unit norm (PyTorch 2.15's first
    Beta parameter, k - 1/2, draws rows 3 on too near the diagonal; this one's draws
    follow log_prob's density).  So the draws here are exchangeable, a deliberate
    difference: every correlation ``(L L^T)_ij`` has the same marginal, of variance
    ``1 / (2 concentration + dim - 1)`` (1/7 at dim 6, concentration 1, where PyTorch's
    draws give about 0.185 for the correlation of the fourth and first variables).  Not
    reparameterisable, as PyTorch's.

    Parameters
    ----------
    dim : int
        The matrices' size, >= 2.
    concentration : float or Tensor, optional
        eta > 0 (default 1.0); its shape is the batch shape.
    validate_args : bool, optional
        Check the concentration, and the values given to log_prob (default:
        ``Distribution``'s setting).

    Raises
    ------
    ValueError
        For dim < 2 or a concentration not > 0.
    TypeError
        For a dim that is not an int.

    Examples
    --------
    >>> from pydevtensor.distributions import LKJCholesky
    >>> d = LKJCholesky(3, pydevtensor.tensor([0.5, 2.0]))
    >>> d.batch_shape, d.event_shape
    (pydevtensor.Size([2]), pydevtensor.Size([3, 3]))
    >>> L = d.sample()
    >>> L.shape
    pydevtensor.Size([2, 3, 3])
    >>> bool((L @ L.mT).diagonal(dim1=-2, dim2=-1).sub(1).abs().max() < 1e-5)
    True
    >>> d.log_prob(pydevtensor.eye(3))
    tensor([-2.5310, -0.6155])
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if not isinstance(dim, Integral) or isinstance(dim, bool):
            raise TypeError(f"LKJCholesky(): dim must be an int, got {type(dim).__name__}")
        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = int(dim)
        (self.concentration,) = broadcast_all(concentration)
        c = self.concentration
        # the onion method's Beta draws (section 3.2), one per row k = 0 .. dim - 1 (row
        # 0's unused): Beta(k / 2, c + (dim - 2) / 2 - (k - 1) / 2).  PyTorch 2.15 takes
        # (2k - 1) / 2 for the first, right only for k = 1: its rows from the third on
        # come out too near the diagonal (at dim 3, c = 1 the variance of the correlation
        # of the first and third variables is 0.30, not 1 / (dim + 1) = 0.25).
        marginal_conc = c + 0.5 * (self.dim - 2)
        k = _C.arange(self.dim, dtype=c.dtype, device=c.device)
        self._beta = Beta(0.5 * k.clamp(min=1), marginal_conc.unsqueeze(-1)
                          - 0.5 * (k - 1).clamp(min=0), validate_args=False)
        super().__init__(tuple(c.shape), (self.dim, self.dim), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = tuple(Size(tuple(batch_shape)))
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, tuple(self.event_shape),
                                         validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        with no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            shape = tuple(self._extended_shape(sample_shape))
            u = _C.randn(shape, dtype=y.dtype, device=y.device).tril(-1)
            u = u / u.norm(dim=-1, keepdim=True)
            # the first row is all zeros (0 / 0 above): its w is 0, its diagonal 1
            first = _C.arange(self.dim, device=y.device) == 0
            w = where(first.unsqueeze(-1), 0.0, y.sqrt() * u)
            diag = (1 - w.pow(2).sum(-1)).clamp(min=finfo(w.dtype).tiny).sqrt()
            return w + diag_embed(diag)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-2, dim2=-1)[..., 1:]
        order = _C.arange(2, self.dim + 1, dtype=self.concentration.dtype,
                          device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag.log()).sum(-1)
        # the normalizer (Lewandowski et al., page 1999), through mvlgamma, whose pi
        # term is (d - 1)(d - 2)/4 log(pi), theirs d (d - 1)/4 log(pi)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalizer = (0.5 * dm1 * math.log(math.pi) + mvlgamma(alpha - 0.5, dm1)
                      - alpha.lgamma() * dm1)
        return unnormalized - normalizer
