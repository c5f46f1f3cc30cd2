"""special's orthogonal polynomials (pydevtensor/_ops_special_poly.py), on every device.

References: mpmath 1.3.0 at 40 digits, computed offline at the float64 points below
(the table REF); the edge values (n < 0, truncated n, x = +-1, x in {0, 1} for the
shifted kinds, NaN) and the dtype rules are PyTorch 2.15's, checked offline against
torch.special.  Tolerance: 1e-13 relative in float64 (2e-13 for the large-n
trigonometric and Hermite cases), 2e-6 in float32."""
import math

import numpy as np
import pytest

import pydevtensor as pdt

S = pdt.special

REF = {  # mpmath 1.3.0 at 40 digits (chebyt, chebyu, hermite, laguerre, legendre;
    # V_n = U_n - U_{n-1}, W_n = U_n + U_{n-1}, He_n(x) = 2^(-n/2) H_n(x / sqrt 2))
    'chebyshev_polynomial_t': [
        (0.3, 2, -0.8200000000000001),
        (-0.7, 5, 0.6708799999999998),
        (0.9, 7, -0.9998784000000001),
        (0.25, 12, -0.9940185546875),
        (-0.45, 40, 0.9840324913888139),
        (1.5, 9, 2889.0),
        (-2.0, 5, -362.0),
    ],
    'chebyshev_polynomial_u': [
        (0.3, 2, -0.64),
        (-0.7, 5, 1.39776),
        (0.9, 7, -1.0320767999999994),
        (0.25, 12, -1.022216796875),
        (-0.45, 40, 1.0737216887473842),
        (1.5, 9, 6765.0),
        (-2.0, 5, -780.0),
    ],
    'chebyshev_polynomial_v': [
        (0.3, 2, -1.24),
        (-0.7, 5, 2.43616),
        (0.9, 7, -0.9963008000000001),
        (0.25, 12, -0.909423828125),
        (-0.45, 40, 1.273031016210874),
        (1.5, 9, 4181.0),
        (-2.0, 5, -989.0),
    ],
    'chebyshev_polynomial_w': [
        (0.3, 2, -0.04000000000000005),
        (-0.7, 5, 0.3593599999999997),
        (0.9, 7, -1.0678527999999985),
        (0.25, 12, -1.135009765625),
        (-0.45, 40, 0.8744123612838945),
        (1.5, 9, 9349.0),
        (-2.0, 5, -571.0),
    ],
    'hermite_polynomial_h': [
        (0.3, 2, -1.6400000000000001),
        (-1.7, 5, 127.72576000000001),
        (2.5, 10, 94135.0),
        (4.0, 30, 1.7104620360511733e+22),
        (-3.3, 17, 285138784963.15094),
    ],
    'hermite_polynomial_he': [
        (0.3, 2, -0.91),
        (-1.7, 5, 9.431429999999999),
        (2.5, 10, 220.1611328125),
        (4.0, 30, 3.2357610774401926e+17),
        (-3.3, 17, -100362922.24587387),
    ],
    'laguerre_polynomial_l': [
        (0.3, 2, 0.445),
        (1.7, 5, 0.3833660833333333),
        (7.5, 10, -6.421207427978516),
        (30.0, 20, -18439.42450252092),
        (-2.5, 7, 251.8215138268849),
    ],
    'legendre_polynomial_p': [
        (0.3, 2, -0.365),
        (-0.7, 5, 0.3651987499999999),
        (0.9, 17, 0.19902933856891616),
        (0.15, 40, 0.12394127928671614),
        (2.5, 6, 2796.4404296875),
    ],
    'shifted_chebyshev_polynomial_t': [
        (0.65, 2, -0.82),
        (0.15, 5, 0.67088),
        (0.95, 7, -0.9998784),
        (0.625, 12, -0.9940185546875),
        (0.275, 40, 0.9840324913888134),
        (1.25, 9, 2889.0),
        (-0.5, 5, -362.0),
    ],
    'shifted_chebyshev_polynomial_u': [
        (0.65, 2, -0.6399999999999999),
        (0.15, 5, 1.3977600000000001),
        (0.95, 7, -1.032076800000003),
        (0.625, 12, -1.022216796875),
        (0.275, 40, 1.073721688747385),
        (1.25, 9, 6765.0),
        (-0.5, 5, -780.0),
    ],
    'shifted_chebyshev_polynomial_v': [
        (0.65, 2, -1.24),
        (0.15, 5, 2.43616),
        (0.95, 7, -0.9963007999999997),
        (0.625, 12, -0.909423828125),
        (0.275, 40, 1.2730310162108776),
        (1.25, 9, 4181.0),
        (-0.5, 5, -989.0),
    ],
    'shifted_chebyshev_polynomial_w': [
        (0.65, 2, -0.03999999999999981),
        (0.15, 5, 0.35936000000000007),
        (0.95, 7, -1.0678528000000063),
        (0.625, 12, -1.135009765625),
        (0.275, 40, 0.8744123612838925),
        (1.25, 9, 9349.0),
        (-0.5, 5, -571.0),
    ],
}

NAMES = sorted(REF)


@pytest.mark.parametrize("name", NAMES)
def test_against_mpmath(device, name):
    x, n, want = (np.array(v, dtype=np.float64) for v in zip(*REF[name]))
    fn = getattr(S, name)
    out = fn(pdt.from_numpy(x).to(device), pdt.from_numpy(n).to(device))
    assert out.dtype == pdt.float64 and out.device == pdt.device(device)
    np.testing.assert_allclose(out.cpu().numpy(), want, rtol=2e-13)
    # an integer n tensor, and n as a Python number
    out = fn(pdt.from_numpy(x).to(device), pdt.from_numpy(n.astype(np.int64)).to(device))
    np.testing.assert_allclose(out.cpu().numpy(), want, rtol=2e-13)
    for xi, ni, wi in REF[name][:3]:
        got = fn(pdt.tensor([xi], dtype=pdt.float64, device=device), ni).item()
        assert got == pytest.approx(wi, rel=2e-13)
    f32 = fn(pdt.from_numpy(x).to(device).float(), pdt.from_numpy(n).to(device))
    assert f32.dtype == pdt.float64  # float32 x, float64 n tensor: float64
    f32 = fn(pdt.from_numpy(x).to(device).float(), pdt.from_numpy(n.astype(np.int64)).to(device))
    assert f32.dtype == pdt.float32
    x32 = x.astype(np.float32).astype(np.float64)
    want32 = fn(pdt.from_numpy(x32).to(device), pdt.from_numpy(n).to(device)).cpu().numpy()
    np.testing.assert_allclose(f32.cpu().numpy(), want32, rtol=2e-6)


@pytest.mark.parametrize("name", NAMES)
def test_degrees_and_edges(device, name):
    fn = getattr(S, name)
    x = pdt.tensor([0.3, 0.3, 0.3, 0.3, math.nan, 0.3], dtype=pdt.float64, device=device)
    n = pdt.tensor([-1.0, -0.5, 2.7, math.nan, -3.0, math.inf], dtype=pdt.float64,
                   device=device)
    out = fn(x, n).cpu().tolist()
    two = fn(pdt.tensor([0.3], dtype=pdt.float64, device=device), 2).item()
    # n truncated toward 0 (-0.5 -> 0, 2.7 -> 2); n < 0, NaN or inf give 0 (C's cast)
    assert out == [0.0, 1.0, two, 0.0, 0.0, 0.0]
    assert math.isnan(fn(pdt.tensor([math.nan], device=device), 3).item())
    # not differentiable, as torch's
    xg = pdt.tensor([0.5], dtype=pdt.float64, device=device, requires_grad=True)
    assert not fn(xg, 3).requires_grad


# torch 2.15's values at the ends of the interval (n = 3 and 4)
ENDS = {
    "chebyshev_polynomial_t": ([-1.0, 1.0], [-1.0, 1.0], [1.0, 1.0]),
    "chebyshev_polynomial_u": ([-1.0, 1.0], [-4.0, 4.0], [5.0, 5.0]),
    "chebyshev_polynomial_v": ([-1.0, 1.0], [-7.0, 1.0], [9.0, 1.0]),
    "chebyshev_polynomial_w": ([-1.0, 1.0], [-1.0, 7.0], [1.0, 9.0]),
    "shifted_chebyshev_polynomial_t": ([0.0, 1.0], [-1.0, 1.0], [1.0, 1.0]),
    "shifted_chebyshev_polynomial_u": ([0.0, 1.0], [-4.0, 4.0], [5.0, 5.0]),
    "shifted_chebyshev_polynomial_v": ([0.0, 1.0], [-7.0, 1.0], [9.0, 1.0]),
    "shifted_chebyshev_polynomial_w": ([0.0, 1.0], [-1.0, 7.0], [1.0, 9.0]),
    "legendre_polynomial_p": ([-1.0, 1.0], [-1.0, 1.0], [1.0, 1.0]),
    "laguerre_polynomial_l": ([0.0, 0.0], [1.0, 1.0], [1.0, 1.0]),
}


@pytest.mark.parametrize("name", sorted(ENDS))
def test_end_values(device, name):
    x, three, four = ENDS[name]
    fn = getattr(S, name)
    t = pdt.tensor(x, dtype=pdt.float64, device=device)
    assert fn(t, 3).cpu().tolist() == three
    assert fn(t, 4).cpu().tolist() == four


def test_large_n_trigonometric_form(device):
    # T_n(cos t) = cos(n t), U_n(cos t) = sin((n+1) t) / sin(t): n = 100 (torch uses
    # these forms for |x| < 1 beyond small n)
    t = np.array([0.3, 1.1, 2.0])
    x = pdt.from_numpy(np.cos(t)).to(device)
    tt = np.arccos(np.cos(t))
    np.testing.assert_allclose(S.chebyshev_polynomial_t(x, 100).cpu().numpy(),
                               np.cos(100 * tt), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(S.chebyshev_polynomial_u(x, 100).cpu().numpy(),
                               np.sin(101 * tt) / np.sin(tt), rtol=1e-12, atol=1e-13)


def test_dtypes_broadcasting_and_numbers(device):
    ints = S.chebyshev_polynomial_t(pdt.tensor([1, 2], device=device),
                                    pdt.tensor([2, 3], device=device))
    assert ints.dtype == pdt.float32 and ints.cpu().tolist() == [1.0, 26.0]
    out = S.legendre_polynomial_p(0.5, pdt.tensor([[0], [1], [2]], device=device))
    assert out.shape == (3, 1)
    assert out.dtype == pdt.float32
    np.testing.assert_allclose(out.cpu().numpy().ravel(), [1.0, 0.5, -0.125])
    b = S.hermite_polynomial_he(pdt.tensor([[1.0], [2.0]], device=device),
                                pdt.tensor([1, 2, 3], device=device))
    assert b.shape == (2, 3)
    assert b.cpu().tolist() == [[1.0, 0.0, -2.0], [2.0, 3.0, 2.0]]
    assert S.chebyshev_polynomial_t(pdt.tensor([0.5], device=device), True).item() == 0.5
    with pytest.raises(TypeError, match="got two numbers"):
        S.chebyshev_polynomial_t(0.5, 2)
    with pytest.raises(TypeError, match="argument 'n' must be a Tensor or a number"):
        S.laguerre_polynomial_l(pdt.tensor([1.0]), "2")


@pytest.mark.parametrize("name", sorted(REF))
def test_argument_named_x(device, name):
    # PyTorch names the points x (special_chebyshev_polynomial_t(Tensor x, Tensor n)):
    # x= is taken, input= refused
    fn = getattr(S, name)
    x = pdt.tensor([0.3, -0.7], dtype=pdt.float64, device=device)
    assert fn(x=x, n=3).tolist() == fn(x, 3).tolist()
    with pytest.raises(TypeError, match="input"):
        fn(input=x, n=3)
