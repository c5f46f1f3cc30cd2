"""``pydevtensor.special``: PyTorch's ``torch.special`` names for what pydevtensor has.

The functions of their own are in pydevtensor/_ops_special.py (logit, xlogy, xlog1py,
entr, exp2, sinc, ndtr); the rest are the top-level functions under torch.special's
names (expit is sigmoid, gammaln lgamma, psi digamma; polygamma and multigammaln
(mvlgamma) are in _ops_gamma.py); i0, i0e, i1, i1e, ndtri, log_ndtr and erfcx are in
_ops_special_more.py; gammainc and gammaincc (igamma, igammac) in _ops_igamma.py.
The orthogonal polynomials (chebyshev_polynomial_t, ..., legendre_polynomial_p) are in
_ops_special_poly.py; airy_ai, bessel_j0, j1, y0, y1, modified_bessel_k0, k1, their scaled
forms, spherical_bessel_j0 and the modified_bessel_i0 / i1 names in
_ops_special_bessel.py; zeta in _ops_special_zeta.py.
"""
from ._ops_gamma import mvlgamma as multigammaln, polygamma
from ._ops_igamma import gammainc, gammaincc
from ._ops_math import digamma, erf, erfc, expm1, lgamma, log1p, round, sigmoid
from ._ops_nan import logsumexp
from ._ops_special import entr, exp2, logit, ndtr, sinc, xlog1py, xlogy
from ._ops_special_more import erfcx, i0, i0e, i1, i1e, log_ndtr, ndtri
from ._ops_stats import log_softmax, softmax
from ._ops_trig import erfinv  # the inverse error function (tensor_trig.c)

expit = sigmoid
gammaln = lgamma
psi = digamma

__all__ = ["digamma", "gammaln", "multigammaln", "polygamma", "psi",
           "entr", "erf", "erfc", "exp2", "expit", "expm1", "log1p", "log_softmax", "logit",
           "logsumexp", "ndtr", "round", "sinc", "softmax", "xlog1py", "xlogy"]
__all__ += ["erfinv", "erfcx", "i0", "i0e", "i1", "i1e", "log_ndtr", "ndtri"]
__all__ += ["gammainc", "gammaincc"]

from ._ops_special_poly import *  # noqa: E402,F401,F403  (the orthogonal polynomials)
from ._ops_special_poly import __all__ as _poly_all  # noqa: E402
__all__ += _poly_all

from ._ops_special_bessel import *  # noqa: E402,F401,F403  (Ai, J, Y, K0, K1, spherical j0, ...)
from ._ops_special_bessel import __all__ as _bessel_all  # noqa: E402
__all__ += _bessel_all

from ._ops_special_zeta import zeta  # noqa: E402  (Hurwitz zeta)
__all__ += ["zeta"]
