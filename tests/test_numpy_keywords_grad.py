"""Gradients of reductions called with NumPy's keyword names (axis=, keepdims=), as
Dive into Deep Learning writes ``X.sum(1, keepdims=True)``: the same as with PyTorch's
(dim=, keepdim=), on every device.  Before, the forward took the aliases but the
recorded backward ignored them (a wrong gradient, or a failing backward)."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES

REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "max", "min", "var", "std", "norm",
              "logsumexp", "nansum", "nanmean"]
FORMS = [  # (PyTorch's keywords, the same call with NumPy's)
    ({"dim": 1}, {"axis": 1}),
    ({"dim": 0, "keepdim": True}, {"axis": 0, "keepdims": True}),
    ({"dim": 1, "keepdim": True}, {"dim": 1, "keepdims": True}),
    ({"dim": (0, 1), "keepdim": True}, {"axis": (0, 1), "keepdims": True}),
]


def _grad(x0, name, kwargs, device):
    x = pdt.tensor(x0, device=device, requires_grad=True)
    y = getattr(x, name)(**kwargs)
    if isinstance(y, tuple):  # max(dim=) and min(dim=): (values, indices)
        y = y[0]
    w = pdt.tensor(np.arange(1.0, 1.0 + y.numel()).reshape(tuple(y.shape)), device=device)
    (y * w).sum().backward()
    return y.detach().cpu().numpy(), x.grad.cpu().numpy()


@pytest.mark.parametrize("form", range(len(FORMS)))
@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("device", DEVICES)
def test_numpy_keywords_give_the_same_gradient(device, name, form):
    if not hasattr(pdt.Tensor, name):
        pytest.skip(f"no Tensor.{name} in this build")
    torch_kw, numpy_kw = FORMS[form]
    if name in ("max", "min") and isinstance(torch_kw["dim"], tuple):
        pytest.skip("max/min take one dim, as PyTorch's")
    x0 = np.random.default_rng(form).permutation(12).reshape(3, 4) / 4.0 + 0.5
    want_y, want_g = _grad(x0, name, torch_kw, device)
    got_y, got_g = _grad(x0, name, numpy_kw, device)
    assert got_y.shape == want_y.shape
    np.testing.assert_array_equal(got_y, want_y)
    np.testing.assert_array_equal(got_g, want_g)


@pytest.mark.parametrize("device", DEVICES)
def test_the_books_softmax_backward(device):
    """d2l 4.2: softmax(X) = X.exp() / X.exp().sum(1, keepdims=True); the gradient of
    sum(w * softmax(X)) against NumPy in float64, to 1e-12."""
    rng = np.random.default_rng(3)
    x0, w0 = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
    x = pdt.tensor(x0, device=device, requires_grad=True)
    e = x.exp()
    s = e / e.sum(1, keepdims=True)
    (s * pdt.tensor(w0, device=device)).sum().backward()
    p = np.exp(x0) / np.exp(x0).sum(1, keepdims=True)
    want = p * (w0 - (p * w0).sum(1, keepdims=True))
    np.testing.assert_allclose(x.grad.cpu().numpy(), want, rtol=1e-12, atol=1e-14)
    m = pdt.tensor(x0, device=device, requires_grad=True)
    m.mean(axis=0).sum().backward()
    np.testing.assert_allclose(m.grad.cpu().numpy(), np.full((4, 5), 1 / 4), rtol=1e-15)
