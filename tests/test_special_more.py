"""special.i0, i0e, i1, i1e, ndtri, log_ndtr and erfcx (pydevtensor/_ops_special_more.py)
and the top-level i0 / Tensor.i0 / i0_, on every device.

References, in float64 results: np.i0, and 50-digit Decimal sums of the power series
of I0 and I1 (positive terms, so exact to the digits kept) scaled by Decimal exp;
erfcx from math.erfc times a Decimal exp(x^2) of the exact square up to x = 26 and
the asymptotic series in Decimal beyond; log_ndtr from math.erfc / math.log1p (and
the Decimal erfcx in the far lower tail).  Tolerance: 4e-15 relative (a few ulps)
for the Bessel functions and erfcx, 1e-14 for log_ndtr (plus 1e-15 x^2 in the upper
tail, whose condition number is x^2); ndtri by the round trip
ndtr(ndtri(p)) = p within 1e-15 (1 + x^2) relative (math.erfc's own error grows
with x^2 there).  Gradients by central differences."""
import decimal
import math

import numpy as np
import pytest

import pydevtensor as pdt
from test_gradcheck import gradcheck

S = pdt.special
D = decimal.Decimal
CTX = decimal.Context(prec=50)


def _t(a, device):
    return pdt.from_numpy(np.array(a, dtype=np.float64)).to(device)


def _bessel_ref(nu, x, scaled):
    a = CTX.abs(D(x))
    q = CTX.multiply(a, a) / 4
    term = a / 2 if nu else D(1)
    total = term
    k = 1
    while True:
        term = CTX.divide(CTX.multiply(term, q), D(k * (k + nu)))
        total = CTX.add(total, term)
        if term <= total * D("1e-40"):
            break
        k += 1
    if scaled:
        total = CTX.multiply(total, CTX.exp(-a))
    return math.copysign(float(total), x) if nu else float(total)


X = [0.0, 1e-8, 0.3, 1.0, 2.5, 7.9, 8.1, 15.0, 24.9, 25.1, 30.0, 60.0, 120.0, -0.7, -3.0,
     -40.0]


@pytest.mark.parametrize("name,nu,scaled", [("i0", 0, False), ("i0e", 0, True),
                                            ("i1", 1, False), ("i1e", 1, True)])
def test_bessel_against_decimal_series(device, name, nu, scaled):
    out = getattr(S, name)(_t(X, device))
    assert out.dtype == pdt.float64 and out.device == pdt.device(device)
    expect = [_bessel_ref(nu, v, scaled) for v in X]
    np.testing.assert_allclose(out.cpu().numpy(), expect, rtol=4e-15, atol=0)


def test_i0_against_numpy_and_its_other_names(device):
    x = np.linspace(-30, 30, 61)
    for out in (pdt.i0(_t(x, device)), _t(x, device).i0(), S.i0(_t(x, device))):
        np.testing.assert_allclose(out.cpu().numpy(), np.i0(x), rtol=4e-15)
    y = _t(x, device)
    assert y.i0_() is y
    np.testing.assert_allclose(y.cpu().numpy(), np.i0(x), rtol=4e-15)
    np.testing.assert_allclose(S.i0e(_t(x, device)).cpu().numpy(),
                               np.i0(x) * np.exp(-np.abs(x)), rtol=1e-14)


def test_bessel_limits_dtypes(device):
    inf = math.inf
    x = _t([inf, -inf, math.nan], device)
    assert S.i0(x).cpu().tolist()[:2] == [inf, inf]  # PyTorch's CPU gives NaN at inf
    assert S.i1(x).cpu().tolist()[:2] == [inf, -inf]
    assert S.i0e(x).cpu().tolist()[:2] == [0.0, 0.0]
    assert S.i1e(x).cpu().tolist()[:2] == [0.0, -0.0]
    assert all(math.isnan(f(x).cpu().tolist()[2]) for f in (S.i0, S.i0e, S.i1, S.i1e))
    out = S.i1(pdt.tensor([1, 2], device=device))
    assert out.dtype == pdt.float32
    np.testing.assert_allclose(out.cpu().numpy(), [_bessel_ref(1, 1, False),
                                                   _bessel_ref(1, 2, False)], rtol=1e-6)
    f32 = S.i0e(pdt.tensor([3.0], device=device))
    assert f32.dtype == pdt.float32
    with pytest.raises(TypeError, match="must be a Tensor"):
        S.i1e([1.0])


def _erfcx_ref(x):
    if x < 26:
        return float(D(math.erfc(x)) * CTX.exp(CTX.multiply(D(x), D(x))))
    z2 = CTX.multiply(D(x), D(x)) * 2
    term = total = D(1)
    for k in range(1, 40):
        term = -term * (2 * k - 1) / z2
        total += term
    return float(total / (D(x) * CTX.sqrt(D(math.pi))))


E = [-26.0, -5.0, -1.0, -1e-3, 0.0, 0.5, 2.0, 5.0, 9.99, 10.01, 20.0, 26.5, 30.0, 1e3, 1e200]


def test_erfcx(device):
    out = S.erfcx(_t(E, device))
    np.testing.assert_allclose(out.cpu().numpy(), [_erfcx_ref(v) for v in E], rtol=4e-15)
    lim = S.erfcx(_t([math.inf, -math.inf, -27.0], device)).cpu().tolist()
    assert lim == [0.0, math.inf, math.inf]


def _log_ndtr_ref(x):
    if x >= 0:
        return math.log1p(-0.5 * math.erfc(x / math.sqrt(2)))
    if x > -30:
        return math.log(0.5 * math.erfc(-x / math.sqrt(2)))
    return math.log(0.5 * _erfcx_ref(-x / math.sqrt(2))) - x * x / 2


L = [-1e5, -300.0, -38.0, -20.0, -3.0, -0.5, 0.0, 0.1, 2.0, 8.0, 30.0]


def test_log_ndtr(device):
    out = S.log_ndtr(_t(L, device)).cpu().numpy()
    for x, got in zip(L, out):
        # the upper tail's condition number is about x^2: the rounding of x / sqrt(2)
        # (here and in the reference) moves erfc by x^2 ulps
        rtol = 1e-14 if x <= 0 else 1e-14 + 1e-15 * x * x
        np.testing.assert_allclose(got, _log_ndtr_ref(x), rtol=rtol, err_msg=str(x))
    assert S.log_ndtr(_t([math.inf, -math.inf], device)).cpu().tolist() == [0.0, -math.inf]



# mpmath (40 digits) at huge finite arguments, where x * 2 pi, x sqrt(pi), 1 / x or x^2
# overflow or go subnormal and exp(x) overflows before I_nu(x) does
HUGE = [
    ("i0", [711.0, 713.9, -712.5, 1.79e308],
     [9.087162727263793e+306, 1.6481551866951379e+308, 4.068293090664341e+307, math.inf]),
    ("i1", [711.0, -712.5, -1.79e308],
     [9.080770067322847e+306, -4.0654371450013245e+307, -math.inf]),
    ("i0e", [1.79e308, -1.79e308, 4.6e307, 3.4e38],
     [2.9818346035451365e-155, 2.9818346035451365e-155, 5.882083021528272e-155,
      2.1635682882675375e-20]),
    ("i1e", [1.79e308, -1.79e308, 3.4e38],
     [2.9818346035451365e-155, -2.9818346035451365e-155, 2.1635682882675375e-20]),
    ("erfcx", [1.79e308, 1e308, 3.4e38, -1.79e308],
     [3.151897114791936e-309, 5.64189583547756e-309, 1.6593811280816363e-39, math.inf]),
    ("scaled_modified_bessel_k0", [1.79e308, 1e308],
     [9.367709684717234e-155, 1.2533141373155003e-154]),
    ("scaled_modified_bessel_k1", [1.79e308, 4.6e307],
     [9.367709684717234e-155, 1.847910880823847e-154]),
    ("log_ndtr", [-1.5e154, -1.8e154, -1.79e308], [-1.1250000000000002e+308, -1.62e+308,
                                                   -math.inf]),
]


@pytest.mark.parametrize("name,x,expect", HUGE)
def test_huge_arguments(device, name, x, expect):
    out = getattr(S, name)(_t(x, device)).cpu().numpy()
    # the subnormal erfcx(1e308) keeps 50 bits
    np.testing.assert_allclose(out, expect, rtol=1e-15, atol=0)
    x32 = pdt.tensor([3.4e38, -3.4e38], dtype=pdt.float32, device=device)
    want = {"i0": [math.inf] * 2, "i1": [math.inf, -math.inf],
            "i0e": [2.1635682882675375e-20] * 2,
            "i1e": [2.1635682882675375e-20, -2.1635682882675375e-20],
            "erfcx": [1.6593811280816363e-39, math.inf],  # subnormal in float32
            "log_ndtr": [-0.0, -math.inf]}.get(name)
    if want is not None:
        got = getattr(S, name)(x32)
        assert got.dtype == pdt.float32
        np.testing.assert_allclose(got.cpu().numpy(), np.float32(want), rtol=1e-7, atol=0)

P = [1e-300, 1e-100, 1e-20, 1e-10, 1e-5, 1e-3, 0.1, 0.2499, 0.25, 0.3, 0.5 - 1e-9, 0.5,
     0.5 + 1e-9, 0.7, 0.75, 0.9, 0.999, 1 - 1e-12]


def test_ndtri_round_trip(device):
    x = S.ndtri(_t(P, device)).cpu().numpy()
    for p, v in zip(P, x):
        back = 0.5 * math.erfc(-v / math.sqrt(2))
        assert abs(back / p - 1) <= 1e-15 * (1 + v * v), (p, v, back)
    assert x[P.index(0.5)] == 0.0
    np.testing.assert_allclose(x[P.index(0.5 + 1e-9)], (0.5 + 1e-9 - 0.5) * math.sqrt(2 * math.pi),
                               rtol=1e-12)  # the relative accuracy near 0 is kept
    out = S.ndtri(_t([0.0, 1.0, -0.1, 1.1, math.nan], device)).cpu().tolist()
    assert out[:2] == [-math.inf, math.inf] and all(math.isnan(v) for v in out[2:])
    np.testing.assert_allclose(S.ndtri(_t([0.975], device)).cpu().numpy(),
                               [1.959963984540054], rtol=1e-15)


@pytest.mark.parametrize("name,points", [
    ("i0", [-3.0, -0.7, 0.3, 1.5, 4.0, 9.0]),
    ("i1", [-3.0, -0.7, 0.3, 1.5, 4.0, 9.0]),
    ("i0e", [-30.0, -3.0, -0.7, 0.3, 1.5, 4.0, 26.0, 40.0]),
    ("i1e", [-30.0, -3.0, -0.7, 0.3, 1.5, 4.0, 26.0, 40.0]),
    ("erfcx", [-3.0, -0.7, 0.3, 1.5, 4.0, 9.9, 10.1, 26.0, 40.0]),
    ("log_ndtr", [-50.0, -3.0, -0.7, 0.3, 1.5, 4.0, 9.9]),
    ("ndtri", [0.02, 0.1, 0.3, 0.5, 0.8, 0.98])])
def test_gradients(device, name, points):
    gradcheck(getattr(S, name), [np.array(points)], device)


SECOND_AT = [1e-3, -0.05, 0.3, -2.5]
# (f'(x), f''(x)) at SECOND_AT: mpmath 1.3 at 50 digits, mpmath.diff of besseli(nu, x)
# (times exp(-|x|)) and log(ncdf(x)), rounded to 17 digits
SECOND = {
    "i0": (
        (0.00050000006250000261, 0.50000018750001302), (-0.025007813313844472, 0.50046883138614255),
        (0.15169384000359277, 0.51698074600628772), (-2.5167162452886984, 2.2831526459346437),
    ),
    "i0e": (
        (-0.99850124927116134, 1.4975021861881013), (0.92803586792442706, 1.3803083785178627),
        (-0.64520306454270906, 0.91581426028595546), (0.063461792080936185, 0.044289724349365749),
    ),
    "i1": (
        (0.50000018750001302, 0.00037500005208333562), (0.50046883138614255, -0.018756511128781639),
        (0.51698074600628772, 0.11391179780033126), (2.2831526459346437, -2.0061297861610327),
    ),
    "i1e": (
        (0.49900093691694, -0.99812674890676543), (0.45227251059343568, 0.91049144376674873),
        (0.2706111957432464, -0.56921201676523457), (-0.019172067731570436, 0.0035673533317349258),
    ),
    "log_ndtr": (
        (0.79724805005643311, -0.6364017013688413), (0.82998567461925585, -0.64737693634221845),
        (0.61722085361273445, -0.5661278382182529), (2.8227447976639073, -0.91102619857888456),
    ),
}
# near and at 0, the limits of the series (DLMF 10.25.2): i0'' -> 1/2, i0e'' -> 3/2 (1/2 at
# 0, i1e'(0), PyTorch's), i1' -> 1/2 and i1'' ~ 3x/8, i1e' -> 1/2 and i1e'' -> -sign(x)
# (0 at 0); log_ndtr'' -> -2/pi (phi(0)/Phi(0) = sqrt(2/pi), R' = -R (x + R))
TINY_AT = [0.0, 1e-300, -1e-300, 5e-324]
TINY = {"i0": [0.5] * 4, "i0e": [0.5, 1.5, 1.5, 1.5], "i1": [0.0, 3.75e-301, -3.75e-301, 0.0],
        "i1e": [0.0, -1.0, 1.0, -1.0], "log_ndtr": [-2 / math.pi] * 4}


@pytest.mark.parametrize("name", sorted(SECOND))
def test_second_derivatives_near_zero_and_of_nan(device, name):
    # they were 0 at 0 (i0, i0e, log_ndtr), inf or NaN near it (i1, i1e), 0 for a NaN
    x = _t(SECOND_AT + TINY_AT + [math.nan], device).requires_grad_()
    (g,) = pdt.autograd.grad(getattr(S, name)(x).sum(), [x], create_graph=True)
    (h,) = pdt.autograd.grad(g.sum(), [x])
    g, h = g.detach().cpu().numpy(), h.cpu().numpy()
    want_g, want_h = np.array(SECOND[name]).T
    np.testing.assert_allclose(g[:4], want_g, rtol=1e-14)
    np.testing.assert_allclose(h[:4], want_h, rtol=2e-13)
    np.testing.assert_allclose(h[4:-1], TINY[name], rtol=1e-15, atol=0)
    assert np.isnan(g[-1]) and np.isnan(h[-1])
    if name in ("i1", "i1e"):
        assert g[4:-1].tolist() == [0.5] * 4  # i1(x) / x at 5e-324 gave 1.0


@pytest.mark.parametrize("name", ["i1", "i1e"])
def test_gradient_at_zero_is_half(device, name):
    x = _t([0.0], device).requires_grad_()
    getattr(S, name)(x).sum().backward()
    assert x.grad.cpu().tolist() == [0.5]


def test_erfcx_and_i0e_gradients_at_large_arguments(device):
    # 2 x erfcx(x) - 2 / sqrt(pi) and i1e(x) - sign(x) i0e(x) cancel: they were taken of
    # the rounded result, whose float32 rounding was the whole gradient (erfcx at 2.768e8:
    # 3e-8 for -7.4e-18); mpmath at 40 digits
    erfcx_ref = {1e3: -5.6418873726549667e-7, 2.768e8: -7.3636458309112331e-18,
                 1e10: -5.6418958354775629e-21}
    i0e_ref = {100.0: -0.00020022627396642997, 1e4: -1.9947862106984188e-7,
               1e8: -1.9947114094873312e-13, -1e4: 1.9947862106984188e-7}
    # (float64 i0e keeps the cancellation of its own rounding: 2 |x| 1e-16, as PyTorch's)
    for fn, ref, rtol64 in ((pdt.special.erfcx, erfcx_ref, 1e-14),
                            (pdt.special.i0e, i0e_ref, 1e-7)):
        for dtype, rtol in ((pdt.float64, rtol64), (pdt.float32, 1e-6)):
            x = pdt.tensor(list(ref), dtype=dtype, device=device, requires_grad=True)
            (g,) = pdt.autograd.grad(fn(x).sum(), x)
            np.testing.assert_allclose(g.cpu().numpy(), list(ref.values()), rtol=rtol)
    x = pdt.tensor([math.inf, -math.inf], dtype=pdt.float64, device=device,
                   requires_grad=True)
    (g,) = pdt.autograd.grad(pdt.special.erfcx(x).sum(), x)
    assert math.isnan(g.tolist()[0]) and g.tolist()[1] == -math.inf  # PyTorch's


def test_i0e_i1e_gradients_far_out(device):
    # i1e(z) - i0e(z) cancelled to about z ulps (1% at 2.4e13, 0 for -3.6e-24 at 1.4e15);
    # against the first two terms of the asymptotic series, within 1e-12 from z = 1e6:
    # i0e'(z) = -w (1 + 3w/8) / (2 sqrt(2 pi z)), i1e'(z) = -w (1 - 9w/8) / (2 sqrt(2 pi z))
    z = np.array([1e6, 3.7e8, 2.4e13, 1.448e15, 1e20, 1e300])
    w, root = 1 / z, np.sqrt(2 * np.pi) * np.sqrt(z)
    for name, want in (("i0e", -w * (1 + 3 * w / 8) / (2 * root)),
                       ("i1e", -w * (1 - 9 * w / 8) / (2 * root))):
        x = pdt.tensor(np.concatenate([z, -z]), device=device, requires_grad=True)
        getattr(pdt.special, name)(x).sum().backward()
        sign = np.concatenate([np.ones_like(z), np.full_like(z, -1.0 if name == "i0e" else 1.0)])
        np.testing.assert_allclose(x.grad.cpu().numpy(), sign * np.concatenate([want, want]),
                                   rtol=1e-11, atol=0)
