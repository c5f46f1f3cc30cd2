"""lgamma and digamma (csrc/python/tensor_gamma.c; Note [lgamma on the CPU] in
csrc/cpu/cpu_unary.c, Note [digamma] in csrc/core/pdt_gamma.h), polygamma
(pydevtensor/_ops_gamma.py, Note [polygamma]) and their gradients, on every device.

References: mpmath at 50 digits where it is installed (it is not a test dependency: those
accuracy tests run on the CPU and skip without it); on every device, each result is
checked against the CPU's and against the standard library's math.lgamma.  Bounds:
- lgamma float64: the C library's on the CPU (glibc, within 4 ulps measured here away
  from lgamma's zeros at 1 and 2, where the error is absolute: 2 ulps of 1); CUDA's
  lgamma is documented within 4 ulps outside [-23.0001, -2.2637], so the two devices agree
  within 8 ulps there, and within 1e-13 (absolute, scaled by 1 + |lgamma|) inside it.
- lgamma and digamma float32: the float64 value rounded once, on both devices: within 1
  ulp of the exact value.
- digamma float64: within 4 ulps of |psi(x)| + |pi cot(pi x)| + 3 (an absolute error near
  its zeros, as every evaluation by recurrence; Note [digamma]).
"""
import math

import functools

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip, ulps32

try:
    import mpmath
    mpmath.mp.dps = 50
except ImportError:
    mpmath = None
needs_mpmath = pytest.mark.skipif(mpmath is None, reason="mpmath is not installed")
EPS = 2.0 ** -52


def _np(t):
    return t.detach().cpu().numpy()


def _points():
    rng = np.random.default_rng(0)
    pos = np.concatenate([rng.uniform(0, 30, 600), np.exp(rng.uniform(-20, 60, 300)),
                          [0.5, 1.0, 2.0, 3.0, 1.4616321449683622, 1e-300, 171.5, 1e300]])
    neg = -rng.uniform(0, 30, 600)
    neg = neg[np.abs(neg - np.round(neg)) > 1e-6]
    return pos, neg


POS, NEG = _points()


def _lgamma_ref(x):
    return np.array([float(mpmath.log(abs(mpmath.gamma(mpmath.mpf(float(v))))))
                     if v != np.round(v) or v > 0 else math.inf for v in x])


def _digamma_ref(x):
    return np.array([float(mpmath.digamma(mpmath.mpf(float(v)))) for v in x])


def _polygamma_ref(n, x):
    return np.array([float(mpmath.polygamma(n, mpmath.mpf(float(v)))) for v in x])


def _pole_free(x):
    return x[np.abs(x - np.round(x)) > 1e-9]


@functools.cache
def _refs():
    return _lgamma_ref(POS), _lgamma_ref(NEG), _digamma_ref(POS), _digamma_ref(NEG)


def _math_lgamma(x):
    return np.array([math.lgamma(v) for v in x])


def _ulps(got, ref):
    return np.abs(got - ref) / np.maximum(np.spacing(np.abs(ref)), 2.0 ** -1074)


@needs_mpmath
def test_lgamma_float64_on_the_cpu_is_the_c_librarys_within_4_ulps():
    LGAMMA_POS, LGAMMA_NEG, _, _ = _refs()
    got = _np(pdt.lgamma(pdt.tensor(POS, dtype=pdt.float64)))
    far = np.abs(LGAMMA_POS) > 0.5  # away from the zeros at 1 and 2
    assert _ulps(got[far], LGAMMA_POS[far]).max() <= 4
    assert np.abs(got - LGAMMA_POS).max(initial=0, where=~far) <= 2 * EPS
    out = _np(pdt.lgamma(pdt.tensor(NEG, dtype=pdt.float64)))
    assert np.all(np.abs(out - LGAMMA_NEG) <= 1e-13 * (1 + np.abs(LGAMMA_NEG)))


def test_lgamma_every_device(device):
    """float64 within 8 ulps of the CPU's outside CUDA's interval of larger error (and
    1e-13 inside); float32 the float64 value rounded once (within 1 ulp of the exact)."""
    x = np.concatenate([POS[POS < 1e30], NEG])
    ref = _math_lgamma(x)  # CPython's own lgamma, within 1e-15 or so
    cpu = _np(pdt.lgamma(pdt.tensor(x, dtype=pdt.float64)))
    got = _np(pdt.lgamma(pdt.tensor(x, dtype=pdt.float64, device=device)))
    outside = ((x < -23.0001) | (x > -2.2637)) & (np.abs(ref) > 0.5)
    assert _ulps(got[outside], cpu[outside]).max() <= 8
    assert np.all(np.abs(got - ref) <= 1e-13 * (1 + np.abs(ref)))
    g32 = _np(pdt.lgamma(pdt.tensor(x, dtype=pdt.float32, device=device)))
    x32 = x.astype(np.float32).astype(np.float64)
    x32[(x32 <= 0) & (x32 == np.round(x32))] = 0.5  # no poles (1e-300 is 0 in float32)
    g32 = _np(pdt.lgamma(pdt.tensor(x32, dtype=pdt.float32, device=device)))
    ref32 = _math_lgamma(x32)
    finite = np.isfinite(ref32) & (np.abs(ref32) > 1e-3)
    assert ulps32(g32[finite], ref32[finite]).max() <= 1.0


def test_lgamma_special_values(device):
    x = pdt.tensor([0.0, -0.0, -1.0, -2.0, math.inf, -math.inf, math.nan, 1.0, 2.0],
                   dtype=pdt.float64, device=device)
    got = _np(x.lgamma())
    assert got[:6].tolist() == [math.inf] * 6
    assert math.isnan(got[6]) and got[7] == 0 and got[8] == 0
    ints = pdt.tensor([1, 3, 5], device=device).lgamma()
    assert ints.dtype == pdt.float32
    np.testing.assert_allclose(_np(ints), [0.0, math.log(2), math.log(24)], rtol=1e-6)


def _digamma_tolerance(x, ref):
    scale = np.abs(ref) + 3 + np.where(x < 0, np.abs(np.pi / np.tan(np.pi * x)), 0)
    return 4 * EPS * scale


@needs_mpmath
def test_digamma_float64_on_the_cpu():
    _, _, DIGAMMA_POS, DIGAMMA_NEG = _refs()
    for x, ref in ((POS, DIGAMMA_POS), (NEG, DIGAMMA_NEG)):
        got = _np(pdt.digamma(pdt.tensor(x, dtype=pdt.float64)))
        assert np.all(np.abs(got - ref) <= _digamma_tolerance(x, ref)), \
            np.max(np.abs(got - ref) / _digamma_tolerance(x, ref))


def test_digamma_float64_every_device_as_on_the_cpu(device):
    """Only log and tan come from the device's library (Note [digamma])."""
    for x in (POS, NEG):
        cpu = _np(pdt.digamma(pdt.tensor(x, dtype=pdt.float64)))
        got = _np(pdt.digamma(pdt.tensor(x, dtype=pdt.float64, device=device)))
        assert np.all(np.abs(got - cpu) <= _digamma_tolerance(x, cpu))


@needs_mpmath
def test_digamma_float32_is_float64_rounded_once():
    x = np.concatenate([POS[POS < 1e30], NEG]).astype(np.float32)
    x = x[(x > 0) | (x != np.round(x))]  # no poles (1e-300 is 0 in float32)
    ref = _digamma_ref(x.astype(np.float64))
    got = _np(pdt.tensor(x).digamma())
    far = np.abs(ref) > 1e-2  # near psi's zeros the error of float64 is absolute
    assert ulps32(got[far], ref[far]).max() <= 1.0


def test_digamma_float32_every_device_as_on_the_cpu(device):
    x = np.concatenate([POS[POS < 1e30], NEG]).astype(np.float32)
    x = x[(x > 0) | (x != np.round(x))]
    got = _np(pdt.tensor(x, device=device).digamma())
    cpu = _np(pdt.tensor(x).digamma())
    assert ulps32(got, cpu.astype(np.float64)).max() <= 1.0  # a double rounded once each


def test_digamma_special_values_as_pytorch(device):
    x = pdt.tensor([0.0, -0.0, -1.0, -5.0, math.inf, -math.inf, math.nan], dtype=pdt.float64,
                   device=device)
    got = _np(x.digamma())
    assert got[0] == -math.inf and got[1] == math.inf and got[4] == math.inf
    assert np.isnan(got[[2, 3, 5, 6]]).all()
    torch = torch_or_skip()
    ref = torch.tensor([0.0, -0.0, -1.0, -5.0, math.inf, -math.inf, math.nan],
                       dtype=torch.float64).digamma().numpy()
    np.testing.assert_array_equal(got, ref)


@needs_mpmath
@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_polygamma_against_mpmath(n):
    x = _pole_free(np.concatenate([np.linspace(0.05, 40, 150),
                                   -np.linspace(0.05, 12, 150) + 1e-3, [1e3, 1e6]]))
    ref = _polygamma_ref(n, x)
    got = _np(pdt.polygamma(n, pdt.tensor(x, dtype=pdt.float64)))
    # the reflection adds pi P_n(cot(pi x)), of its own size: the error is relative to it
    scale = np.abs(ref) + np.where(x < 0, np.abs(_polygamma_ref(n, 1 - x)) + np.abs(ref), 0)
    assert np.all(np.abs(got - ref) <= 1e-13 * scale), np.max(np.abs(got - ref) / scale)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_polygamma_every_device_as_on_the_cpu(device, n):
    x = _pole_free(np.concatenate([np.linspace(0.05, 40, 60), -np.linspace(0.05, 12, 60)]))
    cpu = _np(pdt.polygamma(n, pdt.tensor(x, dtype=pdt.float64)))
    got = _np(pdt.polygamma(n, pdt.tensor(x, dtype=pdt.float64, device=device)))
    np.testing.assert_allclose(got, cpu, rtol=1e-13)


def test_polygamma_forms_and_poles(device):
    x = pdt.tensor([0.0, -1.0, -3.0, 2.0], dtype=pdt.float64, device=device)
    # PyTorch's infinities (its trigamma, n = 1, is finite, about 1e32, at -1 and -3)
    expected = {0: [-math.inf, math.nan, math.nan], 1: [math.inf] * 3,
                2: [-math.inf] * 3, 3: [math.inf] * 3}
    for n, poles in expected.items():
        got = _np(pdt.polygamma(n, x))
        np.testing.assert_array_equal(got[:3], poles)
        assert np.isfinite(got[3])
    y = pdt.tensor([0.5, 1.5], device=device)
    assert y.polygamma(1).dtype == pdt.float32
    np.testing.assert_allclose(_np(y.polygamma(1)), [math.pi ** 2 / 2, math.pi ** 2 / 2 - 4],
                               rtol=1e-6)
    z = y.clone()
    assert z.polygamma_(1) is z
    np.testing.assert_array_equal(_np(z), _np(y.polygamma(1)))
    assert pdt.polygamma(1, pdt.tensor([1, 2], device=device)).dtype == pdt.float32
    out = pdt.empty(2, device=device)
    assert pdt.polygamma(2, y, out=out) is out
    with pytest.raises(RuntimeError, match="does not support negative n"):
        pdt.polygamma(-1, y)
    with pytest.raises(TypeError, match="argument 'n' must be int, got float"):
        pdt.polygamma(1.0, y)


def test_against_torch_float64():
    torch = torch_or_skip()
    x = np.concatenate([np.linspace(0.01, 60, 97), -np.linspace(0.13, 9.7, 41)])
    t = torch.tensor(x, dtype=torch.float64)
    p = pdt.tensor(x, dtype=pdt.float64)
    np.testing.assert_allclose(_np(p.lgamma()), t.lgamma().numpy(), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(_np(p.digamma()), t.digamma().numpy(), rtol=1e-12, atol=1e-13)
    # PyTorch's trigamma (n = 1) is a short series, 2.4e-10 off at x = 2 (mpmath)
    for n, rtol in ((1, 1e-9), (2, 1e-11), (4, 1e-11)):
        np.testing.assert_allclose(_np(pdt.polygamma(n, p)), torch.polygamma(n, t).numpy(),
                                   rtol=rtol)


def test_gradients_every_device_as_on_the_cpu(device):
    x = np.array([0.3, 1.0, 2.5, 7.0, -0.4, -2.7])
    for fn in (lambda v: v.lgamma(), lambda v: v.digamma(), lambda v: pdt.polygamma(2, v)):
        grads = []
        for d in ("cpu", device):
            p = pdt.tensor(x, dtype=pdt.float64, device=d, requires_grad=True)
            fn(p).sum().backward()
            grads.append(_np(p.grad))
        np.testing.assert_allclose(grads[1], grads[0], rtol=1e-13)


def test_gradients_against_torch():
    torch = torch_or_skip()
    x = np.array([0.3, 1.0, 2.5, 7.0, -0.4, -2.7])
    for fn, tfn in ((lambda v: v.lgamma(), lambda v: v.lgamma()),
                    (lambda v: v.digamma(), lambda v: v.digamma()),
                    (lambda v: pdt.polygamma(1, v), lambda v: torch.polygamma(1, v)),
                    (lambda v: pdt.polygamma(2, v), lambda v: torch.polygamma(2, v))):
        p = pdt.tensor(x, dtype=pdt.float64, requires_grad=True)
        fn(p).sum().backward()
        t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        tfn(t).sum().backward()
        np.testing.assert_allclose(_np(p.grad), t.grad.numpy(), rtol=1e-9)  # trigamma: above


@needs_mpmath
def test_gradients_against_mpmath():
    x = np.array([0.3, 2.5, -0.4, -2.7])
    p = pdt.tensor(x, dtype=pdt.float64, requires_grad=True)
    p.digamma().sum().backward()
    np.testing.assert_allclose(_np(p.grad), _polygamma_ref(1, x), rtol=1e-13)
    p.grad = None
    p.lgamma().sum().backward()
    np.testing.assert_allclose(_np(p.grad), _digamma_ref(x), rtol=1e-13)
    p.grad = None
    pdt.polygamma(3, p).sum().backward()
    np.testing.assert_allclose(_np(p.grad), _polygamma_ref(4, x), rtol=1e-12)


def test_in_place_and_out_and_special_names(device):
    x = pdt.tensor([0.5, 4.0], dtype=pdt.float64, device=device)
    y = x.clone()
    assert y.lgamma_() is y
    np.testing.assert_array_equal(_np(y), _np(x.lgamma()))
    y = x.clone()
    assert y.digamma_() is y
    np.testing.assert_array_equal(_np(y), _np(x.digamma()))
    out = pdt.empty(2, dtype=pdt.float64, device=device)
    assert pdt.lgamma(x, out=out) is out
    assert pdt.special.gammaln is pdt.lgamma
    assert pdt.special.psi is pdt.digamma and pdt.special.digamma is pdt.digamma
    assert pdt.special.polygamma is pdt.polygamma
