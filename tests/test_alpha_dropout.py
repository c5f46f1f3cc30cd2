"""nn.functional.alpha_dropout and feature_alpha_dropout, nn.AlphaDropout and
nn.FeatureAlphaDropout (pydevtensor/nn/_functional_alpha_dropout.py) on every device:
the identity in evaluation, PyTorch's two values (closed form) in training, the
SELU-preserving statistics (mean 0 and variance 1 kept within 5 standard errors on
2e5 draws), whole channels for the feature form, in place, and the gradient (a through
the kept values, 0 through the dropped ones)."""
import math

import numpy as np
import pytest

import pydevtensor as pdt

F = pdt.nn.functional
ALPHA = 1.7580993408473766  # SELU's lambda * alpha


def _a(p):
    return 1 / math.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))


@pytest.mark.parametrize("fn", [F.alpha_dropout, F.feature_alpha_dropout])
def test_identity_in_evaluation_and_at_p_0(device, fn):
    x = pdt.randn(4, 5, device=device)
    assert fn(x) is x  # training defaults to False, as PyTorch's
    assert fn(x, 0.7, training=False) is x
    assert fn(x, 0.0, training=True) is x
    assert fn(pdt.ones(3, device=device), 0.5) is not None  # 1-d fine out of training
    out = fn(x, 1.0, training=True)
    assert out.cpu().tolist() == [[0.0] * 5] * 4


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_values_are_pytorchs_two(device, p):
    x = pdt.full((1000,), 2.0, dtype=pdt.float64, device=device)
    y = F.alpha_dropout(x, p, training=True).cpu().numpy()
    a = _a(p)
    kept, dropped = 2 * a + ALPHA * a * p, a * (ALPHA * p - ALPHA)
    is_kept = np.isclose(y, kept, rtol=1e-15, atol=0)
    assert np.all(is_kept | np.isclose(y, dropped, rtol=1e-15, atol=0))
    assert abs(1 - is_kept.mean() - p) < 5 * math.sqrt(p * (1 - p) / 1000)


@pytest.mark.parametrize("p", [0.05, 0.3, 0.7])
def test_statistics_of_a_standard_input_are_kept(device, p):
    pdt.manual_seed(1)
    n = 200000
    y = F.alpha_dropout(pdt.randn(n, dtype=pdt.float64, device=device), p, True)
    y = y.cpu().numpy()
    assert abs(y.mean()) < 5 / math.sqrt(n)
    assert abs(y.var() - 1) < 5 * math.sqrt(2 / n) * 2


def test_feature_form_drops_whole_channels(device):
    pdt.manual_seed(2)
    y = F.feature_alpha_dropout(pdt.ones(64, 8, 3, 2, dtype=pdt.float64, device=device), 0.5,
                                training=True)
    y = y.cpu().numpy().reshape(64, 8, -1)
    assert np.all(y.max(axis=2) == y.min(axis=2))
    a = _a(0.5)
    values = set(np.round(y[:, :, 0].ravel(), 12))
    assert values == {round(a + ALPHA * a * 0.5, 12), round(a * (ALPHA * 0.5 - ALPHA), 12)}
    two_d = F.feature_alpha_dropout(pdt.ones(50, 4, device=device), 0.5, True).cpu().numpy()
    assert len(set(two_d.ravel().round(12))) == 2  # (N, C): each element its own channel


def test_in_place_and_gradient(device):
    pdt.manual_seed(3)
    x = pdt.ones(1000, dtype=pdt.float64, device=device, requires_grad=True)
    h = x * 1.0
    y = F.alpha_dropout(h, 0.4, True, inplace=True)
    assert y is h
    y.sum().backward()
    g = x.grad.cpu().numpy()
    kept = np.isclose(y.detach().cpu().numpy(), _a(0.4) + ALPHA * _a(0.4) * 0.4)
    np.testing.assert_allclose(g[kept], _a(0.4), rtol=1e-15)
    assert np.all(g[~kept] == 0) and 0 < kept.sum() < 1000


def test_layers(device):
    m = pdt.nn.AlphaDropout(0.2)
    assert repr(m) == "AlphaDropout(p=0.2, inplace=False)"
    x = pdt.ones(100, device=device)
    assert len(set(m(x).cpu().tolist())) == 2
    assert m.eval()(x) is x
    f = pdt.nn.FeatureAlphaDropout(0.5, inplace=True)
    assert repr(f) == "FeatureAlphaDropout(p=0.5, inplace=True)"
    z = pdt.ones(4, 6, 5, device=device)
    assert f(z) is z
    with pytest.raises(ValueError, match="between 0 and 1"):
        pdt.nn.AlphaDropout(1.5)


def test_bad_inputs(device):
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        F.feature_alpha_dropout(pdt.ones(3, device=device), 0.5, True)
    with pytest.raises(RuntimeError, match="floating point"):
        F.alpha_dropout(pdt.ones(3, dtype=pdt.int64, device=device), 0.5, True)
    with pytest.raises(TypeError, match="must be a Tensor"):
        F.alpha_dropout([1.0], 0.5, True)
