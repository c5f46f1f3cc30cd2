"""pydevtensor.special.gammainc / gammaincc (igamma, igammac and their methods): the
regularized incomplete gamma functions against closed forms (integer and half-integer
a), Gauss-Legendre quadrature (other a), PyTorch's edge values, dtypes, broadcasting
and the gradient in x (closed form and finite differences)."""
import math

import numpy as np
import pytest

import pydevtensor as pdt

F64 = pdt.float64


def _t(x, device, dtype=F64):
    return pdt.tensor(np.asarray(x, dtype=np.float64), dtype=dtype, device=device)


def _p_closed(a, x):
    """P(a, x) for a a positive multiple of 1/2: P(1/2, x) = erf(sqrt x), P(1, x) =
    1 - e^-x, and P(a + 1, x) = P(a, x) - x^a e^-x / Gamma(a + 1) (DLMF 8.8.5)."""
    p = math.erf(math.sqrt(x)) if a % 1 else -math.expm1(-x)
    b = 0.5 if a % 1 else 1.0
    while b < a:
        p -= math.exp(b * math.log(x) - x - math.lgamma(b + 1))
        b += 1.0
    return p


def _p_quadrature(a, x, n=200):
    """P(a, x) = m / Gamma(a) int_0^(x^(1/m)) s^(m a - 1) exp(-s^m) ds (t = s^m), by
    Gauss-Legendre with n nodes: m = 1 / a (a < 1) or 10 makes the integrand smooth
    at 0."""
    m = 1 / a if a < 1 else 10.0
    nodes, weights = np.polynomial.legendre.leggauss(n)
    top = x ** (1 / m)
    s = (nodes + 1) * top / 2
    f = m * np.exp((m * a - 1) * np.log(s) - s ** m - math.lgamma(a))
    return float(np.sum(weights * f) * top / 2)


@pytest.mark.parametrize("a", [0.5, 1.0, 1.5, 2.0, 4.5, 7.0, 12.5, 30.0])
def test_against_closed_forms(device, a):
    xs = [1e-3, 0.1, 0.9, 2.0, a, a + 0.5, a + 1.0, a + 3.0, 2 * a + 5.0]
    want = np.array([_p_closed(a, x) for x in xs])
    p = pdt.special.gammainc(_t([a] * len(xs), device), _t(xs, device))
    q = pdt.special.gammaincc(_t([a] * len(xs), device), _t(xs, device))
    np.testing.assert_allclose(p.cpu().numpy(), want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(q.cpu().numpy(), 1 - want, rtol=1e-10, atol=1e-15)


def test_small_upper_tail_keeps_its_digits(device):
    # Q(1/2, x) = erfc(sqrt x) and Q(1, x) = e^-x, far below 1e-16 (continued fraction)
    x = np.array([30.0, 100.0, 500.0])
    q = pdt.special.gammaincc(_t([0.5, 0.5, 1.0], device), _t(x, device)).cpu().numpy()
    want = [math.erfc(math.sqrt(30.0)), math.erfc(10.0), math.exp(-500.0)]
    np.testing.assert_allclose(q, want, rtol=1e-12)


_SMALL_A_Q = {  # (a, x): Q(a, x) by mpmath 1.3 (mp.dps = 50):
    # mpmath.gammainc(a, x, mpmath.inf, regularized=True), rounded to 17 digits
    (1e-300, 1e-10): 2.2448635265138925e-299, (1e-300, 0.01): 4.0379295765381139e-300,
    (1e-300, 0.5): 5.5977359477616083e-301, (1e-300, 0.9): 2.6018393932599964e-301,
    (1e-300, 1.09): 1.8904611797891216e-301, (1e-300, 1.5): 1.0001958240663265e-301,
    (1e-300, 1.99): 4.9582290526736437e-302,
    (1e-100, 1e-10): 2.2448635265138924e-99, (1e-100, 0.01): 4.0379295765381139e-100,
    (1e-100, 0.5): 5.5977359477616082e-101, (1e-100, 0.9): 2.6018393932599964e-101,
    (1e-100, 1.09): 1.8904611797891216e-101, (1e-100, 1.5): 1.0001958240663265e-101,
    (1e-100, 1.99): 4.9582290526736437e-102,
    (1e-20, 1e-10): 2.2448635265138923e-19, (1e-20, 0.01): 4.0379295765381136e-20,
    (1e-20, 0.5): 5.5977359477616078e-21, (1e-20, 0.9): 2.6018393932599962e-21,
    (1e-20, 1.09): 1.8904611797891215e-21, (1e-20, 1.5): 1.0001958240663265e-21,
    (1e-20, 1.99): 4.9582290526736433e-22,
    (1e-10, 1e-10): 2.244863524002411e-9, (1e-10, 0.01): 4.0379295758041231e-10,
    (1e-10, 0.5): 5.5977359480549881e-11, (1e-10, 0.9): 2.6018393935058367e-11,
    (1e-10, 1.09): 1.8904611799947976e-11, (1e-10, 1.5): 1.000195824199693e-11,
    (1e-10, 1.99): 4.95822905344615e-12,
    (1e-05, 1e-10): 0.00022446123970332709, (1e-05, 0.01): 4.03785617818457e-5,
    (1e-05, 0.5): 5.5977652854226602e-6, (1e-05, 0.9): 2.6018639772092985e-6,
    (1e-05, 1.09): 1.8904817473518828e-6, (1e-05, 1.5): 1.0002091607254465e-6,
    (1e-05, 1.99): 4.9583063035064594e-7,
    (0.001, 1e-10): 0.022199343401374196, (0.001, 0.01): 0.0040305969664868442,
    (0.001, 0.5): 0.00056006665647074989, (0.001, 0.9): 0.0002604296998218178,
    (0.001, 1.09): 0.00018925176120275282, (0.001, 1.5): 0.00010015295965701438,
    (0.001, 1.99): 4.9659562032850944e-5,
    (0.1, 1e-10): 0.89488629938977781, (0.1, 0.01): 0.33737874004552021,
    (0.1, 0.5): 0.058597554109866481, (0.1, 0.9): 0.02839309539902908,
    (0.1, 1.09): 0.020924850221770154, (0.1, 1.5): 0.011344016637805271,
    (0.1, 1.99): 0.0057506127026391207,
    (0.3, 1e-10): 0.99888575749147841, (0.3, 0.01): 0.72075900364098514,
    (0.3, 0.5): 0.18618819532560733, (0.3, 0.9): 0.097747351970330455,
    (0.3, 1.09): 0.074054501687591338, (0.3, 1.5): 0.042109463295889392,
    (0.3, 1.99): 0.022306347944662104,
    (0.49, 1e-10): 0.99998579002957533, (0.49, 0.01): 0.88219414359098995,
    (0.49, 0.5): 0.31083087378078948, (0.49, 0.9): 0.17539527920412476,
    (0.49, 1.09): 0.13627842576524904, (0.49, 1.5): 0.080974282746289581,
    (0.49, 1.99): 0.044682151472175503,
}


def test_tiny_a_keeps_its_digits(device):
    # Q(a, x) ~ a E1(x) for tiny a: 1 - P kept none of its digits (and went negative)
    a, x = zip(*_SMALL_A_Q)
    want = np.array(list(_SMALL_A_Q.values()))
    q = pdt.special.gammaincc(_t(a, device), _t(x, device)).cpu().numpy()
    p = pdt.igamma(_t(a, device), _t(x, device)).cpu().numpy()
    np.testing.assert_allclose(q, want, rtol=1e-13, atol=0)
    np.testing.assert_allclose(p, 1 - want, rtol=0, atol=2.3e-16)  # (1 - want rounds)
    # a subnormal: Q = a E1(x) (a few times 5e-324) rounds to the subnormals near 0, P to 1
    a, x = _t([5e-324] * 3, device), _t([0.1, 0.5, 1.5], device)
    q, p = pdt.special.gammaincc(a, x).cpu().numpy(), pdt.igamma(a, x).cpu().numpy()
    assert ((q >= 0) & (q < 1e-322)).all() and (p == 1).all()


@pytest.mark.parametrize("a", [0.05, 0.3, 2.7, 9.3])
def test_against_quadrature(device, a):
    xs = [0.01, 0.5, 1.7, a + 0.99, a + 1.01, 3 * a + 4.0]
    want = [_p_quadrature(a, x) for x in xs]
    got = pdt.igamma(_t([a] * len(xs), device), _t(xs, device)).cpu().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-11)


def test_large_a_is_near_the_normal_limit(device):
    # P(a, a + z sqrt a) -> Phi(z) as a grows (error O(1 / sqrt a))
    a = np.array([1e4, 1e6])
    got = pdt.igamma(_t(a, device), _t(a + np.sqrt(a), device)).cpu().numpy()
    phi = 0.5 * math.erfc(-1 / math.sqrt(2))
    np.testing.assert_allclose(got, phi, atol=5e-3)


def test_edge_values_as_pytorch(device):
    inf, nan = math.inf, math.nan
    a = [0.0, 0.0, 0.0, 1.0, 1.0, 2.0, inf, inf, -1.0, 1.0, nan, 1.0, 2.0, 3.0]
    x = [0.0, 1.0, inf, 0.0, inf, -1.0, 1.0, inf, 1.0, nan, 1.0, 1e-300, 0.0, 1e300]
    p_want = [nan, 1, 1, 0, 1, nan, 0, nan, nan, nan, nan, 1e-300, 0, 1]
    q_want = [nan, 0, 0, 1, 0, nan, 1, nan, nan, nan, nan, 1, 1, 0]
    p = pdt.special.gammainc(_t(a, device), _t(x, device)).cpu().numpy()
    q = pdt.special.gammaincc(_t(a, device), _t(x, device)).cpu().numpy()
    np.testing.assert_allclose(p, p_want, rtol=1e-12)
    np.testing.assert_allclose(q, q_want, rtol=1e-15)


def test_dtypes_broadcasting_and_methods(device):
    a = _t([[1.0], [2.0]], device, pdt.float32)
    x = _t([0.5, 1.0, 3.0], device, pdt.float32)
    p = pdt.igamma(a, x)
    assert p.dtype == pdt.float32 and tuple(p.shape) == (2, 3)
    want = [[_p_closed(ai, xi) for xi in (0.5, 1.0, 3.0)] for ai in (1.0, 2.0)]
    np.testing.assert_allclose(p.cpu().numpy(), want, rtol=1e-6)
    assert pdt.igamma(a, x.to(F64)).dtype == F64
    np.testing.assert_allclose(a.igammac(x).cpu().numpy(), 1 - np.array(want), rtol=1e-5)
    np.testing.assert_allclose(pdt.igammac(a, x).cpu().numpy(), 1 - np.array(want),
                               rtol=1e-5)
    y = _t([1.0, 2.0], device)
    out = y.igamma_(_t([1.0, 3.0], device))
    assert out is y
    np.testing.assert_allclose(y.cpu().numpy(), [_p_closed(1, 1), _p_closed(2, 3)])
    z = _t([1.0, 2.0], device)
    z.igammac_(_t([1.0, 3.0], device))
    np.testing.assert_allclose(z.cpu().numpy(), [1 - _p_closed(1, 1), 1 - _p_closed(2, 3)])
    with pytest.raises(NotImplementedError, match="int64"):
        pdt.igamma(pdt.tensor([1, 2], device=device), pdt.tensor([1, 2], device=device))
    with pytest.raises(TypeError, match="other"):
        pdt.special.gammainc(a, 2.0)


def test_gradient_in_x(device):
    a = np.array([0.5, 2.0, 7.5])
    x0 = np.array([0.3, 2.5, 9.0])
    for fn, sign in ((pdt.special.gammainc, 1.0), (pdt.special.gammaincc, -1.0)):
        x = _t(x0, device).requires_grad_()
        fn(_t(a, device), x).sum().backward()
        closed = sign * np.exp((a - 1) * np.log(x0) - x0 - np.array(
            [math.lgamma(v) for v in a]))
        h = 1e-6
        fd = np.array([(_p_closed(ai, xi + h) - _p_closed(ai, xi - h)) / (2 * h)
                       for ai, xi in zip(a, x0)]) * sign
        np.testing.assert_allclose(x.grad.cpu().numpy(), closed, rtol=1e-12)
        np.testing.assert_allclose(x.grad.cpu().numpy(), fd, rtol=1e-6)


def test_gradient_in_a_raises_as_pytorch(device):
    a = _t([2.0], device).requires_grad_()
    x = _t([1.5], device).requires_grad_()
    y = pdt.igamma(a, x)
    with pytest.raises(NotImplementedError, match="derivative for 'igamma: input'"):
        y.backward()
    with pytest.raises(NotImplementedError, match="igammac: input"):
        pdt.igammac(a, x).backward()
    # the gradient in x alone, a requiring grad too: no error (PyTorch's), also through
    # an op on a, and for backward(inputs=[x]); asking for a's still raises
    d = math.exp(math.log(1.5) - 1.5)  # x^(a-1) e^-x / Gamma(a) at a = 2
    for fn, sign in ((pdt.igamma, 1.0), (pdt.igammac, -1.0)):
        (g,) = pdt.autograd.grad(fn(a, x).sum(), x)
        assert g.cpu().tolist() == pytest.approx([sign * d], rel=1e-14)
        (g,) = pdt.autograd.grad(fn(a * 1.0, x).sum(), x)
        assert g.cpu().tolist() == pytest.approx([sign * d], rel=1e-14)
        x.grad = None
        fn(a, x).sum().backward(inputs=[x])
        assert x.grad.cpu().tolist() == pytest.approx([sign * d], rel=1e-14)
        with pytest.raises(NotImplementedError, match="input"):
            pdt.autograd.grad(fn(a * 1.0, x).sum(), [x, a])
        with pytest.raises(NotImplementedError, match="input"):
            fn(a * 1.0, x).sum().backward(inputs=[a])


def _q_poisson(a, x):
    """Q(a, x) for an integer a: P(N < a) for N Poisson of mean x, summed in float64 from
    the term at k = floor(x) (Stirling's form, through log1p) by the ratios x / k."""
    k0 = math.floor(x)
    s = (x - k0) / k0
    log_t0 = (k0 * (math.log1p(s) - s) - 0.5 * math.log(2 * math.pi * k0)
              - 1 / (12 * k0) + 1 / (360 * k0 ** 3))  # log(e^-x x^k0 / k0!)
    span = int(60 * math.sqrt(x)) + 60
    up = np.arange(k0 + 1, min(k0 + span, a - 1) + 1, dtype=np.float64)  # k0 < k < a
    down = np.arange(k0, max(k0 - span, 0), -1, dtype=np.float64)  # t_{k-1} = t_k k / x
    total = math.exp(log_t0) if k0 < a else 0.0
    if up.size:
        total += np.exp(log_t0 + np.cumsum(np.log(x / up))).sum()
    keep = down - 1 < a  # the terms below k0, where k - 1 < a
    return total + np.exp(log_t0 + np.cumsum(np.log(down / x)))[keep].sum()


@pytest.mark.parametrize("a", [1e5, 1e7, 1e8, 1e10])
def test_large_a_near_its_mean(device, a):
    # the series and the continued fraction ran out of steps past a = 1e6 (P 20% off at
    # a = 1e7, 70% at 1e8); Temme's expansion is used there now
    z = np.array([-3.0, -1.0, -0.1, 0.0, 0.5, 1.0, 3.0])
    x = np.floor(a + z * math.sqrt(a)) + 0.25
    q = np.array([_q_poisson(int(a), xi) for xi in x])
    got_q = _t(a, device).expand(len(x))
    got_q = pdt.special.gammaincc(got_q, _t(x, device)).cpu().numpy()
    got_p = pdt.special.gammainc(_t(np.full(len(x), a), device), _t(x, device)).cpu().numpy()
    np.testing.assert_allclose(got_q, q, rtol=1e-9)
    np.testing.assert_allclose(got_p, 1 - q, rtol=1e-9)
