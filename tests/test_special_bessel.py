"""special.modified_bessel_i0 / i1 / k0 / k1, scaled_modified_bessel_k0 / k1 and
spherical_bessel_j0, bessel_j0 / j1 / y0 / y1 (pydevtensor/_ops_special_bessel.py), on
every device.

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


# bessel_j0 / j1 / y0 / y1: mpmath 1.3.0 at 40 digits (besselj, bessely), computed
# offline at the float64 points JY.  The error is bounded by 5e-15 times the envelope
# max(|f(x)|, 1 / sqrt(max(x, 1))) (absolute near the zeros, e.g. J0 at 2.4048).
JY = [1e-8, 0.3, 2.4048, 4.99, 5.01, 7.25, 12.0, 24.9, 25.1, 80.0, 600.0]
JY_REF = {
    "bessel_j0": [1.0, 0.9776262465382961, 1.3268284301171568e-05, -0.1808669025116955,
                  -0.17431543205674924, 0.291996924191779, 0.047689310796833535,
                  0.0832459683530155, 0.10827567149994945, -0.06974216551221002,
                  -0.02198778917213195],
    "bessel_j1": [5e-09, 0.148318816273104, 0.5191530145075532, -0.32644149050101634,
                  -0.32868309571784987, 0.06858170065313174, -0.2234471044906276,
                  -0.13485569953140886, -0.11463478413442257, -0.056057296675712576,
                  0.024014365301107028],
    "bessel_y0": [-11.80077387717953, -0.8072735778045195, 0.5099270092643434,
                  -0.30702210182564704, -0.30997933991664645, 0.04842252986520283,
                  -0.22523731263436145, -0.13649918399676522, -0.11676770763803694,
                  -0.05562033908977, 0.0240326801013818],
    "bessel_y1": [-63661977.236758195, -2.2931051383885293, 0.10273474181277349,
                  0.15124027548614782, 0.14447857825491056, -0.28934799419758706,
                  -0.05709921826089652, -0.08600255759555425, -0.11062223322783099,
                  0.06939591378458805, 0.022007824026257974],
}


@pytest.mark.parametrize("name", sorted(JY_REF))
def test_j_y_against_mpmath(device, name):
    fn = getattr(S, name)
    out = fn(_t(JY, device))
    assert out.dtype == pdt.float64 and out.device == pdt.device(device)
    ref = np.array(JY_REF[name])
    envelope = np.maximum(np.abs(ref), 1 / np.sqrt(np.maximum(JY, 1.0)))
    assert (np.abs(out.cpu().numpy() - ref) <= 5e-15 * envelope).all()
    f32 = fn(_t(JY, device, pdt.float32))
    assert f32.dtype == pdt.float32
    x32 = np.array(JY, dtype=np.float32).astype(np.float64)
    want = fn(_t(x32, device)).cpu().numpy()
    assert (np.abs(f32.cpu().numpy() - want) <= 2e-7 * np.maximum(np.abs(want), 1.0)).all()
    assert fn(pdt.tensor([1, 2], device=device)).dtype == pdt.float32


def test_j_y_symmetry_and_edges(device):
    x = _t([0.0, -0.0, -1.0, -30.0, math.inf, -math.inf, math.nan], device)
    j0, j1 = S.bessel_j0(x).cpu().tolist(), S.bessel_j1(x).cpu().tolist()
    y0, y1 = S.bessel_y0(x).cpu().tolist(), S.bessel_y1(x).cpu().tolist()
    pos = _t([1.0, 30.0], device)
    p0, p1 = S.bessel_j0(pos).cpu().tolist(), S.bessel_j1(pos).cpu().tolist()
    assert j0[:4] == [1.0, 1.0] + p0 and j1[2:4] == [-v for v in p1]
    assert j1[0] == 0.0 and math.copysign(1.0, j1[1]) == -1.0  # torch's -0.0
    for ys in (y0, y1):
        assert ys[:2] == [-math.inf, -math.inf]
        assert all(math.isnan(v) for v in ys[2:])
    for js in (j0, j1):  # torch's CPU gives NaN at +-inf
        assert all(math.isnan(v) for v in js[4:])


def test_y_k_at_subnormals(device):
    # Below 1e-300 the series' argument was clamped to 1e-300 (Y0, K0 gave their values
    # there: K0(1e-310) = 690.9 for 713.9).  At such x the closed forms are exact in
    # float64: K0 = -(log(x/2) + gamma), Y0 = (2/pi) (log(x/2) + gamma), K1 = 1/x,
    # Y1 = -2 / (pi x) (inf past the overflow).
    xs = [1e-300, 1e-305, 2.2e-308, 1e-310, 5e-324]
    x = _t(xs, device)
    lg = np.log(np.array(xs)) - math.log(2.0) + 0.5772156649015329
    with np.errstate(over="ignore", divide="ignore"):
        inv = 1.0 / np.array(xs)
    for name, want in [("modified_bessel_k0", -lg), ("scaled_modified_bessel_k0", -lg),
                       ("bessel_y0", 2 / math.pi * lg), ("modified_bessel_k1", inv),
                       ("scaled_modified_bessel_k1", inv), ("bessel_y1", -2 / math.pi * inv)]:
        got = getattr(S, name)(x).cpu().numpy()
        np.testing.assert_allclose(got, want, rtol=1e-15, err_msg=name)


@pytest.mark.parametrize("name, param", [
    ("airy_ai", "x"), ("scaled_modified_bessel_k0", "x"), ("scaled_modified_bessel_k1", "x"),
    ("spherical_bessel_j0", "x"), ("bessel_j0", "input"), ("modified_bessel_k1", "input")])
def test_argument_names(device, name, param):
    # PyTorch's: x for the four whose result never requires grad, input for the others
    fn = getattr(S, name)
    x = _t([0.5, 2.0], device)
    assert fn(**{param: x}).tolist() == fn(x).tolist()
    other = "input" if param == "x" else "x"
    with pytest.raises(TypeError, match=other):
        fn(**{other: x})
    with pytest.raises(TypeError, match=f"argument '{param}' must be a Tensor"):
        fn([0.5])


def test_j_y_gradients(device):
    a = np.array([0.7, 3.0, 11.0, 40.0])
    for name in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1"):
        gradcheck(getattr(S, name), [a], device)
    x = _t([0.0, 2.0], device).requires_grad_()
    (g,) = pdt.autograd.grad(S.bessel_j1(x).sum(), x)
    assert g.cpu().tolist()[0] == 0.5
    (g,) = pdt.autograd.grad(S.bessel_j0(x).sum(), x)
    np.testing.assert_allclose(g.cpu().numpy(), [-0.0, -0.5767248077568734], rtol=1e-14)
    (g,) = pdt.autograd.grad(S.bessel_y0(x).sum(), x)
    assert g.cpu().tolist()[0] == math.inf  # torch's


# airy_ai: mpmath 1.3.0 at 40 digits (airyai), computed offline at the float64 points AI
# (across the switches at -2, 1, |x| = 11.2 and a zero, -2.3381...).  The error is
# bounded by 5e-15 times max(|Ai(x)|, |x|^(-1/4) / sqrt(pi)) for x < 0 and |Ai(x)| for
# x > 0 inside (-12, 12), 1e-12 times it beyond (Ai's condition number grows there:
# 2.1e-13 at -500).
AI = [1e-8, 0.5, 0.99, 1.01, 3.0, 11.0, 11.5, 30.0, 100.0, -1e-8, -1.99, -2.01,
      -2.338107410459767, -7.5, -11.0, -11.5, -50.0, -500.0]
AI_REF = [0.3550280512996232, 0.23169360648083348, 0.13689065924593272,
          0.13370770246895858, 0.006591139357460719, 4.2262758649603595e-12,
          7.814290183962854e-13, 3.2082175915504954e-49, 2.6344821520881846e-291,
          0.35502805647601127, 0.2335671103759416, 0.22120226633022266,
          2.743319340666283e-17, 0.3217757163806479, -0.008759589255702381,
          0.30542297004359265, -0.1618814236123209, 0.07259012010404114]


def test_airy_ai_against_mpmath(device):
    out = S.airy_ai(_t(AI, device))
    assert out.dtype == pdt.float64 and out.device == pdt.device(device)
    x, ref = np.array(AI), np.array(AI_REF)
    floor = np.abs(x) ** -0.25 / math.sqrt(math.pi)
    envelope = np.where(x < 0, np.maximum(np.abs(ref), floor), np.abs(ref))
    tol = np.where(np.abs(x) < 12, 5e-15, 1e-12) * envelope
    assert (np.abs(out.cpu().numpy() - ref) <= tol).all()
    f32 = S.airy_ai(_t(AI[:7], device, pdt.float32))  # Ai(30) underflows float32
    assert f32.dtype == pdt.float32
    want = S.airy_ai(_t(np.array(AI[:7], dtype=np.float32).astype(np.float64), device))
    np.testing.assert_allclose(f32.cpu().numpy(), want.cpu().numpy(), rtol=2e-6)
    assert S.airy_ai(pdt.tensor([1, 2], device=device)).dtype == pdt.float32
    edges = S.airy_ai(_t([0.0, 200.0, math.inf, -math.inf, math.nan], device))
    edges = edges.cpu().tolist()
    assert edges[:2] == [0.3550280538878172, 0.0]
    assert all(math.isnan(v) for v in edges[2:])  # torch's CPU gives NaN at +-inf
    assert not S.airy_ai(_t([1.0], device).requires_grad_()).requires_grad  # as torch's


@pytest.mark.parametrize("name, n, sign", [
    ("bessel_j0", 0, -1.0), ("bessel_j1", 1, -1.0), ("bessel_y0", 0, -1.0),
    ("bessel_y1", 1, -1.0), ("modified_bessel_k0", 0, 1.0), ("modified_bessel_k1", 1, 1.0)])
def test_second_derivatives_at_the_pieces_ends(device, name, n, sign):
    # Bessel's equation y'' = -y' / x + sign (1 + sign n^2 / x^2) y, at the ends of the
    # evaluation's pieces (1 for K, 5 and 25 for J and Y) and between: the second
    # derivative went through the evaluation's clamps, so K0''(1) was 41% off and
    # J0''(5), Y0''(25) were 0 (Note [Bessel second derivatives])
    a = np.array([0.3, 1.0, 2.5, 5.0, 7.0, 25.0, 30.0])
    x = pdt.tensor(a, device=device, requires_grad=True)
    y = getattr(pdt.special, name)(x)
    (g,) = pdt.autograd.grad(y.sum(), x, create_graph=True)
    (g2,) = pdt.autograd.grad(g.sum(), x)
    y, g = y.detach().cpu().numpy(), g.detach().cpu().numpy()
    want = -g / a + sign * (1 + sign * n * n / a**2) * y
    np.testing.assert_allclose(g2.cpu().numpy(), want, rtol=1e-12, atol=1e-14 * np.abs(y).max())


def test_j1_derivatives_near_zero(device):
    # J1'(x) = 1/2 - 3x^2/16 + 5x^4/384 - ..., J1''(x) = -3x/8 + 5x^3/96: the closed form
    # J0 - J1 / x lost the x^2 terms, so J1'' was -x/2 below about 1e-8
    a = np.array([1e-300, -1e-300, 1e-12, 1e-5, -0.01, 0.05, 0.0999])
    x = pdt.tensor(a, device=device, requires_grad=True)
    (g,) = pdt.autograd.grad(pdt.special.bessel_j1(x).sum(), x, create_graph=True)
    (h,) = pdt.autograd.grad(g.sum(), x)
    want_g = 0.5 - 3 * a**2 / 16 + 5 * a**4 / 384 - 7 * a**6 / 18432 + 9 * a**8 / 1474560
    want_h = -3 * a / 8 + 5 * a**3 / 96 - 7 * a**5 / 3072 + 9 * a**7 / 184320
    np.testing.assert_allclose(g.detach().cpu().numpy(), want_g, rtol=1e-14)
    np.testing.assert_allclose(h.cpu().numpy(), want_h, rtol=1e-12)
