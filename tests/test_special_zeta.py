"""special.zeta, the Hurwitz zeta function (pydevtensor/_ops_special_zeta.py), on every
device.

References: mpmath 1.3.0 at 40 digits (mpmath.zeta(x, q)), computed offline at the
points X, Q below.  Tolerance 1e-14 relative in float64 (positive q), 1e-13 for
negative q (cancelling terms); 2e-6 in float32.  Edge values and the gradient rules are
PyTorch 2.15's (checked offline against torch.special.zeta)."""
import math

import numpy as np
import pytest

import pydevtensor as pdt

S = pdt.special
X = [1.5, 2.0, 3.0, 1.0001, 10.0, 4.0, 30.0, 2.0, 6.0]
Q = [1.0, 0.5, 2.0, 1.0, 0.01, 1e6, 3.0, -2.5, -17.5]
REF = [2.612375348685488, 4.934802200544679, 0.2020569031595943, 10000.577222947539,
       9.999999999999998e+19, 3.3333383333366667e-19, 4.857804189667247e-15,
       9.539246644989124, 128.1852257046026]


def _t(a, device, dtype=pdt.float64):
    return pdt.tensor(a, dtype=dtype, device=device)


def test_zeta_against_mpmath(device):
    out = S.zeta(_t(X, device), _t(Q, device))
    assert out.dtype == pdt.float64 and out.device == pdt.device(device)
    np.testing.assert_allclose(out.cpu().numpy()[:7], REF[:7], rtol=1e-14, atol=0)
    np.testing.assert_allclose(out.cpu().numpy()[7:], REF[7:], rtol=1e-13, atol=0)
    f32 = S.zeta(_t(X[:4], device, pdt.float32), _t(Q[:4], device, pdt.float32))
    assert f32.dtype == pdt.float32
    x32 = np.array(X[:4], dtype=np.float32).astype(np.float64)
    q32 = np.array(Q[:4], dtype=np.float32).astype(np.float64)
    want = S.zeta(_t(x32, device), _t(q32, device)).cpu().numpy()
    np.testing.assert_allclose(f32.cpu().numpy(), want, rtol=2e-6)


def test_zeta_numbers_dtypes_broadcast(device):
    out = S.zeta(_t([[2.0], [3.0]], device), 1.0)
    assert out.shape == (2, 1) and out.dtype == pdt.float64
    np.testing.assert_allclose(out.cpu().numpy().ravel(),
                               [math.pi ** 2 / 6, 1.2020569031595942], rtol=1e-15)
    assert S.zeta(2, _t([1.0, 2.0], device)).shape == (2,)
    assert S.zeta(pdt.tensor([2, 3], device=device), pdt.tensor([1, 2], device=device)
                  ).dtype == pdt.float32
    assert S.zeta(pdt.tensor([2.0], device=device), 2).dtype == pdt.float32


def test_zeta_edges(device):
    inf, nan = math.inf, math.nan
    x = [1.0, 0.5, 2.0, 2.0, 2.0, 2.0, 2.5, inf, inf, inf, nan, 2.0, 2.0, 4.0]
    q = [1.0, 1.0, 0.0, -1.0, inf, -inf, -0.5, 1.0, 0.5, 2.0, 1.0, nan, -1.5, -0.5]
    want = [inf, nan, inf, inf, nan, inf, nan, 1.0, inf, nan, nan, nan,
            9.379246644989124, 32.23484850566707]  # torch.special.zeta's
    got = S.zeta(_t(x, device), _t(q, device)).cpu().tolist()
    for g, w in zip(got, want):
        assert (math.isnan(g) and math.isnan(w)) or g == pytest.approx(w, rel=1e-13)


def test_zeta_gradients(device):
    x = _t([2.0, 3.0], device)
    q = _t([1.5, 0.75], device).requires_grad_()
    (g,) = pdt.autograd.grad(S.zeta(x, q).sum(), q)
    # -x zeta(x + 1, q), mpmath
    np.testing.assert_allclose(g.cpu().numpy(), [-0.82879664423432, -9.8816562674253],
                               rtol=1e-13)
    xg = _t([2.0], device).requires_grad_()
    with pytest.raises(NotImplementedError, match="derivative for 'zeta' is not"):
        pdt.autograd.grad(S.zeta(xg, _t([1.5], device)).sum(), xg)
    # the gradient in q alone, x requiring grad too: no error (PyTorch's)
    (g2,) = pdt.autograd.grad(S.zeta(xg * 1.0, q[:1]).sum(), q)
    np.testing.assert_allclose(g2.cpu().numpy(), [-0.82879664423432, 0.0], rtol=1e-13)
    with pytest.raises(NotImplementedError, match="derivative for 'zeta' is not"):
        S.zeta(xg, q[:1]).sum().backward()
