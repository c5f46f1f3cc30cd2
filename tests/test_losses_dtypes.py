"""The result dtypes of the losses for an (input, target) pair of two dtypes, PyTorch's
rule loss by loss: binary_cross_entropy_with_logits gives target's dtype, huber_loss and
soft_margin_loss input's, the others the promoted one; a bool target is taken where
PyTorch's kernel promotes it (mse, huber, smooth_l1, soft_margin, hinge_embedding,
poisson_nll), and binary_cross_entropy takes only one dtype.  Values against NumPy."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.nn import functional as F

X = np.array([[0.3, -1.2, 2.5], [0.05, 0.8, -0.4]])
Y = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])


def _t(a, dtype, device):
    return pdt.tensor(a, dtype=pdt.float64).to(dtype).to(device)


def _bcel(x, y):
    return np.mean((1 - y) * x + np.logaddexp(0, -x))


def _huber(x, y):
    z = np.abs(x - y)
    return np.mean(np.where(z < 1, 0.5 * z * z, z - 0.5))


@pytest.mark.parametrize("di, dt, expect", [("float64", "float32", "float32"),
                                            ("float32", "float16", "float16"),
                                            ("float32", "float64", "float64")])
def test_bce_with_logits_gives_targets_dtype(device, di, dt, expect):
    x, y = _t(X, getattr(pdt, di), device), _t(Y, getattr(pdt, dt), device)
    r = F.binary_cross_entropy_with_logits(x, y)
    assert r.dtype == getattr(pdt, expect)
    np.testing.assert_allclose(r.double().item(), _bcel(X, Y), rtol=2e-3)
    r = F.binary_cross_entropy_with_logits(x, y, reduction="none", pos_weight=x[0] * 0 + 2)
    assert r.dtype == getattr(pdt, expect) and r.shape == (2, 3)


@pytest.mark.parametrize("di, dt", [("float32", "float64"), ("float16", "float32"),
                                    ("float16", "float64"), ("float64", "float32")])
def test_huber_and_soft_margin_give_inputs_dtype(device, di, dt):
    x, y = _t(X, getattr(pdt, di), device), _t(Y, getattr(pdt, dt), device)
    r = F.huber_loss(x, y)
    assert r.dtype == x.dtype
    np.testing.assert_allclose(r.double().item(), _huber(X, Y), rtol=2e-3)
    assert F.huber_loss(x, y, reduction="none").dtype == x.dtype
    r = F.soft_margin_loss(x, y)
    assert r.dtype == x.dtype
    np.testing.assert_allclose(r.double().item(), np.mean(np.logaddexp(0, -X * Y)), rtol=2e-3)
    promoted = pdt.promote_types(x.dtype, y.dtype)  # smooth_l1_loss promotes
    assert F.smooth_l1_loss(x, y).dtype == promoted


def test_bool_targets_where_torch_promotes_them(device):
    x = _t(X, pdt.float32, device)
    b = pdt.tensor(Y.astype(bool)).to(device)
    np.testing.assert_allclose(F.mse_loss(x, b).item(), np.mean((X - Y) ** 2), rtol=1e-6)
    assert F.mse_loss(x, b, reduction="none").dtype == pdt.float32
    np.testing.assert_allclose(F.huber_loss(x, b).item(), _huber(X, Y), rtol=1e-6)
    np.testing.assert_allclose(F.smooth_l1_loss(x, b).item(), _huber(X, Y), rtol=1e-6)
    np.testing.assert_allclose(F.soft_margin_loss(x, b).item(),
                               np.mean(np.logaddexp(0, -X * Y)), rtol=1e-6)
    np.testing.assert_allclose(F.poisson_nll_loss(x, b).item(), np.mean(np.exp(X) - Y * X),
                               rtol=1e-6)
    # PyTorch's formula: x where y == 1; max(0, 1 - x) + x where y is 0 (neither 1 nor -1)
    hinge = np.where(Y == 1, X, np.maximum(0, 1 - X) + X)
    np.testing.assert_allclose(F.hinge_embedding_loss(x, b).item(), np.mean(hinge), rtol=1e-6)
    with pytest.raises(TypeError):  # PyTorch's subtraction refuses it
        F.l1_loss(x, b)


def test_margin_ranking_promotes_an_integer_input(device):
    x1 = _t(X[0], pdt.float32, device)
    x2 = pdt.tensor([1, 0, 2]).to(device)
    y = _t([1.0, -1.0, 1.0], pdt.float32, device)
    r = F.margin_ranking_loss(x1, x2, y)
    assert r.dtype == pdt.float32
    expect = np.mean(np.maximum(0, -np.array([1, -1, 1]) * (X[0] - [1, 0, 2])))
    np.testing.assert_allclose(r.item(), expect, rtol=1e-6)


def test_bce_takes_one_dtype(device):
    p = _t(Y * 0.5 + 0.25, pdt.float32, device)
    with pytest.raises(RuntimeError, match="must have one dtype"):
        F.binary_cross_entropy(p, p.double())
    assert F.binary_cross_entropy(p, p).dtype == pdt.float32
