"""special.modified_bessel_i0 / i1 / k0 / k1, scaled_modified_bessel_k0 / k1 and
spherical_bessel_j0 (pydevtensor/_ops_special_bessel.py), on every device.

References: mpmath 1.3.0 at 40 digits (besselk, exp(x) besselk, sin(x) / x), computed
offline at the float64 points X and J below.  Tolerance 1e-14 relative in float64,
2e-6 in float32.  Edge values and gradient rules are PyTorch 2.15's (checked offline
against torch.special)."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from test_gradcheck import gradcheck

S = pdt.special
X = [1e-8, 0.3, 1.0, 1.0000001, 2.5, 10.0, 24.9, 25.1, 80.0, 600.0]
REF = {
    "modified_bessel_k0": [18.536612259610777, 1.3724600605442974, 0.42102443824070834,
                           0.4210243780499904, 0.06234755320036619, 1.778006231616765e-05,
                           3.836096520989492e-12, 3.1283127143211173e-12,
                           2.5251198425054717e-36, 1.3558285309948523e-262],
    "modified_bessel_k1": [99999999.9999999, 3.055992033457325, 0.6019072301972346,
                           0.6019071279040789, 0.07389081634774707, 1.8648773453825585e-05,
                           3.912382436256763e-12, 3.190032318604266e-12,
                           2.54085312752117e-36, 1.356957918112806e-262],
    "scaled_modified_bessel_k0": [18.536612444976903, 1.8526273007720142, 1.144463079806895,
                                  1.1444630306378576, 0.7595486903280996, 0.39163193443659866,
                                  0.24993215015402473, 0.24894399546328752,
                                  0.13990735522662032, 0.05115568572023596],
    "scaled_modified_bessel_k1": [100000000.99999991, 4.12515776224447, 1.6361534862632583,
                                  1.6361533718169607, 0.900174423907878, 0.41076657059578875,
                                  0.25490238558081707, 0.25385550089505654,
                                  0.14077907713800053, 0.05119829772547244],
}
J = [1e-8, 0.5, 3.0, -7.25, 100.0]
J0S = [1.0, 0.958851077208406, 0.04704000268662241, 0.11352839710503523,
       -0.005063656411097588]


def _t(a, device, dtype=pdt.float64):
    return pdt.tensor(a, dtype=dtype, device=device)


@pytest.mark.parametrize("name", sorted(REF))
def test_k_against_mpmath(device, name):
    fn = getattr(S, name)
    out = fn(_t(X, device))
    assert out.dtype == pdt.float64 and out.device == pdt.device(device)
    np.testing.assert_allclose(out.cpu().numpy(), REF[name], rtol=1e-14, atol=0)
    f32 = fn(_t(X[:-1], device, pdt.float32))
    assert f32.dtype == pdt.float32
    x32 = np.array(X[:-1], dtype=np.float32).astype(np.float64)
    np.testing.assert_allclose(f32.cpu().numpy(), fn(_t(x32, device)).cpu().numpy(),
                               rtol=2e-6)
    edges = fn(_t([0.0, -0.0, -1.0, math.inf, math.nan], device)).cpu().tolist()
    assert edges[:2] == [math.inf, math.inf] and edges[3] == 0.0
    assert math.isnan(edges[2]) and math.isnan(edges[4])
    assert fn(pdt.tensor([1, 2], device=device)).dtype == pdt.float32


def test_k_gradients(device):
    a = np.array([0.3, 1.5, 30.0])
    gradcheck(S.modified_bessel_k0, [a], device)
    gradcheck(S.modified_bessel_k1, [a], device)
    x = _t(a, device).requires_grad_()
    k0, k1 = S.modified_bessel_k0(x), S.modified_bessel_k1(x)
    (g,) = pdt.autograd.grad(k0.sum(), x)
    np.testing.assert_allclose(g.cpu().numpy(), -k1.detach().cpu().numpy(), rtol=1e-14)
    for name in ("scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
                 "spherical_bessel_j0"):
        assert not getattr(S, name)(x).requires_grad  # as torch's


def test_i0_i1_are_i0_i1(device):
    x = _t([0.0, 0.7, -3.0, 40.0], device)
    assert S.modified_bessel_i0(x).cpu().tolist() == S.i0(x).cpu().tolist()
    assert S.modified_bessel_i1(x).cpu().tolist() == S.i1(x).cpu().tolist()
    xg = _t([0.5, 1.5], device).requires_grad_()
    (g,) = pdt.autograd.grad(S.modified_bessel_i1(xg).sum(), xg)
    want = (S.i0(xg) - S.i1(xg) / xg).detach().cpu().numpy()
    np.testing.assert_allclose(g.cpu().numpy(), want, rtol=1e-14)


def test_spherical_bessel_j0(device):
    out = S.spherical_bessel_j0(_t(J, device))
    np.testing.assert_allclose(out.cpu().numpy(), J0S, rtol=1e-15)
    edges = S.spherical_bessel_j0(_t([0.0, math.inf, -math.inf, math.nan], device))
    e = edges.cpu().tolist()
    assert e[:3] == [1.0, 0.0, 0.0] and math.isnan(e[3])
    f32 = S.spherical_bessel_j0(pdt.tensor([3], device=device))
    assert f32.dtype == pdt.float32
    assert f32.item() == pytest.approx(0.04704000268662241, rel=1e-6)
