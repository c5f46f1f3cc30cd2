"""cdf, icdf and log_prob of the location-scale families in their tails and at extreme
scales, against closed forms in float64 (Python's math.erfc, exp, log, atan), on every
device.  Each case failed before (PyTorch 2.x gives the same wrong values, side by side):
Normal.log_prob nan at scale 1e300 and 1e-300 (scale^2 overflows), Normal.cdf 0 below
-8.3 sigma (1 + erf), Normal.icdf -inf at q = 1e-20 (erfinv(2q - 1)), LogNormal's the
same, Exponential.cdf 0 below rate x = 1e-17 (1 - exp), Laplace.cdf 0 below -38 scales
and icdf -inf below q = 3e-17, Cauchy.cdf 0 below -1e17 scales and icdf -1.6e16 for
-3.2e19 at q = 1e-20, and a TransformedDistribution's cdf through a transform whose sign
is a tensor (sign (value - 1/2) + 1/2 lost the tail).
Bound: 8 eps relative (the closed forms' own rounding is below 2 eps; the families'
ops within 4 ulps each).
"""
import math

import numpy as np

import pydevtensor as pdt
from pydevtensor import distributions as D

F64 = pdt.float64
TOL = 8 * 2.0 ** -52


def _t(x, device="cpu"):
    return pdt.tensor(np.asarray(x, dtype=np.float64), dtype=F64, device=device)


def _close(got, want):
    got = got.detach().cpu().numpy().ravel()
    np.testing.assert_allclose(got, np.asarray(want, dtype=np.float64).ravel(), rtol=TOL,
                               atol=0)


def _normal_cdf(z):
    return 0.5 * math.erfc(-z / math.sqrt(2))


def test_normal_tails_and_extreme_scales(device):
    for loc, scale in ((0.0, 1e300), (0.0, 1e-300), (3.0, 2.0)):
        z = np.array([1e-10, 0.5, 10.0, -40.0])
        d = D.Normal(_t(loc, device), _t(scale, device))
        _close(d.log_prob(_t(loc + scale * z, device)),
               -z * z / 2 - math.log(scale) - 0.5 * math.log(2 * math.pi))
        _close(d.cdf(_t(loc + scale * z, device)), [_normal_cdf(v) for v in z])
    # icdf: cdf(icdf(q)) = q down to q = 1e-300, through Python's erfc
    q = np.array([1e-300, 1e-20, 1e-10, 0.3, 0.5 + 1e-9, 1 - 1e-10])
    x = D.Normal(_t(0.0, device), 1.0).icdf(_t(q, device)).cpu().numpy()
    np.testing.assert_allclose([_normal_cdf(v) for v in x], q, rtol=64 * TOL)  # cdf's slope
    # LogNormal's cdf and icdf are Normal's of log x
    d = D.LogNormal(_t(0.5, device), 2.0)
    _close(d.cdf(_t(np.exp(0.5 + 2.0 * np.array([-30.0, 1.0])), device)),
           [_normal_cdf(-30.0), _normal_cdf(1.0)])
    np.testing.assert_allclose(d.icdf(_t(q[:2], device)).log().cpu().numpy(), 0.5 + 2 * x[:2],
                               rtol=TOL)


def test_exponential_laplace_and_cauchy_tails(device):
    rate = 3.0
    x = np.array([1e-30, 1e-10, 0.5])
    _close(D.Exponential(_t(rate, device)).cdf(_t(x, device)),
           [-math.expm1(-rate * v) for v in x])
    loc, b = 1.0, 2.0
    z = np.array([-700.0, -40.0, -1e-20, 0.0, 1e-3, 30.0])
    d = D.Laplace(_t(loc, device), _t(b, device))
    _close(d.cdf(_t(loc + b * z, device)),
           [0.5 * math.exp(v) if v < 0 else 1 - 0.5 * math.exp(-v) for v in z])
    q = np.array([1e-300, 1e-20, 0.25, 0.5, 0.75, 1 - 1e-12])
    _close(d.icdf(_t(q, device)),
           [loc + b * (math.log(2 * v) if v < 0.5 else -math.log(2 - 2 * v)) for v in q])
    loc, s = -1.0, 0.5
    z = np.array([-1e300, -1e20, -1e5, -2.0, 0.0, 0.5, 1e5])
    d = D.Cauchy(_t(loc, device), _t(s, device))
    # atan(-1/z) / pi below the median, 1 - atan(1/z) / pi above
    _close(d.cdf(_t(loc + s * z, device)),
           [math.atan(-1 / v) / math.pi if v < 0 else
            0.5 if v == 0 else 1 - math.atan(1 / v) / math.pi for v in z])
    # icdf: -cot(pi q) = -1/(pi q) (1 - (pi q)^2 / 3 - ...) at q = 1e-20, and the
    # round trip through that cdf elsewhere
    q = np.array([1e-20, 1e-5, 0.3, 0.5, 0.9, 1 - 1e-12])
    got = d.icdf(_t(q, device)).cpu().numpy()
    assert abs(got[0] - (loc - s / (math.pi * 1e-20))) <= TOL * s / (math.pi * 1e-20)
    zz = (got[1:] - loc) / s
    back = [math.atan(-1 / v) / math.pi if v < 0 else
            0.5 if v == 0 else 1 - math.atan(1 / v) / math.pi for v in zz]
    np.testing.assert_allclose(back, q[1:], rtol=64 * TOL, atol=1e-16)


def test_transformed_cdf_keeps_the_tail_through_a_tensor_sign(device):
    # Exp's sign is +1, Affine's of a negative tensor scale -1: the cdf is the base's, or
    # 1 - the base's, not sign (cdf - 1/2) + 1/2
    base = D.Normal(_t([0.0, 0.0], device), 1.0)
    d = D.TransformedDistribution(base, [D.transforms.AffineTransform(
        0.0, _t([2.0, -2.0], device)), D.transforms.ExpTransform()])
    x = _t([math.exp(2.0 * -30.0), math.exp(-2.0 * 30.0)], device)
    _close(d.cdf(x), [_normal_cdf(-30.0), 1 - _normal_cdf(30.0)])


def test_laplace_icdf_gradient_in_the_lower_tail(device):
    # icdf = loc + scale log(2q) below the median: d/dq = scale / q, d/dscale = log(2q),
    # d/dloc = 1 (the upper branch's log1p(-2 |q - 1/2|) at its pole made them nan)
    q = np.array([1e-300, 1e-20, 0.25, 0.75])
    qt = _t(q, device).requires_grad_()
    loc, scale = _t(0.5, device).requires_grad_(), _t(3.0, device).requires_grad_()
    D.Laplace(loc, scale).icdf(qt).sum().backward()
    low = q < 0.5
    _close(qt.grad, np.where(low, 3.0 / q, 3.0 / (1 - q)))
    _close(scale.grad, [np.sum(np.where(low, np.log(2 * q), -np.log(2 - 2 * q)))])
    _close(loc.grad, [4.0])
