"""cross_entropy and nll_loss over an unbatched (C,) input and (N, C, d1, ..., dk)
inputs (rows of C moved last: as_rows in nn/_functional_losses.py), binary_cross_entropy
and nn.BCELoss, binary_cross_entropy_with_logits with an integer or float64 weight (D2L
15.4's mask), and nn.LogSoftmax; on every device.

References: NumPy in float64 (within 1e-12 relative, float64 inputs) and PyTorch where
importable (within 1e-12, float64).  Gradients: test_gradcheck's central differences."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck

RNG = np.random.default_rng(11)
X = RNG.standard_normal((3, 5, 4, 2))
T = RNG.integers(0, 5, (3, 4, 2))
W = RNG.random(5) + 0.5
P = RNG.random((3, 5, 4, 2))
P /= P.sum(1, keepdims=True)


def _np_ce(x, t, w=None):
    """Per-element cross-entropy of (N, C, ...) logits and (N, ...) classes, and the
    weights w[t]."""
    m = x.max(1, keepdims=True)
    logp = x - m - np.log(np.exp(x - m).sum(1, keepdims=True))
    picked = np.take_along_axis(logp, t[:, None], 1)[:, 0]
    wt = np.ones_like(picked) if w is None else w[t]
    return -picked * wt, wt


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_spatial_cross_entropy_matches_numpy(device, reduction, weighted):
    w = W if weighted else None
    per, wt = _np_ce(X, T, w)
    want = {"none": per, "sum": per.sum(), "mean": per.sum() / wt.sum()}[reduction]
    got = F.cross_entropy(pdt.tensor(X, device=device), pdt.tensor(T, device=device),
                          None if w is None else pdt.tensor(w, device=device),
                          reduction=reduction)
    assert tuple(got.shape) == np.shape(want) and got.device == device
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12, atol=1e-12)
    logp = F.log_softmax(pdt.tensor(X, device=device), 1)
    got = F.nll_loss(logp, pdt.tensor(T, device=device),
                     None if w is None else pdt.tensor(w, device=device), reduction=reduction)
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("options", [{}, {"label_smoothing": 0.1}, {"ignore_index": 2},
                                     {"weight": True}, {"weight": True, "label_smoothing": 0.2}])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_layouts_match_pytorch(device, options, reduction):
    torch = torch_or_skip()

    def run(lib, x, t, dev=None):
        kw = dict(options, reduction=reduction)
        if kw.get("weight"):
            kw["weight"] = lib.tensor(W) if dev is None else pdt.tensor(W, device=dev)
        f = lib.nn.functional
        return f.cross_entropy(x, t, **kw)
    for x, t in ((X, T), (X[0, :, 0, 0], T[0, 0, 0]), (X, P), (X[0, :, 0, 0], P[0, :, 0, 0])):
        if "ignore_index" in options and np.asarray(t).dtype.kind == "f":
            continue  # PyTorch refuses ignore_index with probabilities too
        got = run(pdt, pdt.tensor(x, device=device), pdt.tensor(t, device=device), device)
        want = run(torch, torch.tensor(x), torch.tensor(t))
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_spatial_gradients(device):
    t = pdt.tensor(T[:2, :2, :1], device=device)
    gradcheck(lambda x: F.cross_entropy(x, t, reduction="none"), [X[:2, :, :2, :1]], device)
    gradcheck(lambda x: F.cross_entropy(x, t, label_smoothing=0.1), [X[:2, :, :2, :1]], device)


def test_layout_refusals(device):
    x = pdt.ones(3, 10, 4, device=device)
    with pytest.raises(ValueError, match=r"cross_entropy\(\): input of shape \(3, 10, 4\) "
                                         r"\(N, C, d1, \.\.\.\) takes a target of shape "
                                         rf"\(3, 4\), got \(3, 5\) \(on {device}\)"):
        F.cross_entropy(x, pdt.ones(3, 5, dtype=pdt.int64, device=device))
    with pytest.raises(ValueError, match=r"nll_loss\(\): an unbatched input of shape \(10,\) "
                                         r"takes a target of shape \(\), got \(1,\)"):
        F.nll_loss(pdt.ones(10, device=device), pdt.ones(1, dtype=pdt.int64, device=device))


def _np_bce(x, y, w=None):
    with np.errstate(divide="ignore"):
        out = -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log1p(-x), -100))
    return out if w is None else out * w


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_matches_numpy(device, reduction):
    x = RNG.random((4, 3))
    x[0, 0], x[1, 1] = 0.0, 1.0  # log(0) clamped at -100
    y = (RNG.random((4, 3)) > 0.5).astype(np.float64)
    w = RNG.integers(0, 2, (4, 3))  # an integer mask, converted as PyTorch does
    per = _np_bce(x, y, w)
    want = {"none": per, "sum": per.sum(), "mean": per.mean()}[reduction]
    got = F.binary_cross_entropy(pdt.tensor(x, device=device), pdt.tensor(y, device=device),
                                 pdt.tensor(w, device=device), reduction=reduction)
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12, atol=1e-12)
    assert got.dtype == pdt.float64
    got = nn.BCELoss(reduction=reduction)(pdt.tensor(x, device=device),
                                          pdt.tensor(y, device=device))
    np.testing.assert_allclose(got.cpu().numpy(),
                               {"none": _np_bce(x, y), "sum": _np_bce(x, y).sum(),
                                "mean": _np_bce(x, y).mean()}[reduction], rtol=1e-12)


def test_binary_cross_entropy_gradient_and_pytorch(device):
    x = RNG.uniform(0.05, 0.95, (3, 4))
    y = RNG.random((3, 4))
    gradcheck(lambda p: F.binary_cross_entropy(p, pdt.tensor(y, device=device)), [x], device)
    torch = torch_or_skip()
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        got = F.binary_cross_entropy(pdt.tensor(x, device=device),
                                     pdt.tensor(y, device=device), size_average=False)
    want = torch.nn.functional.binary_cross_entropy(torch.tensor(x), torch.tensor(y),
                                                    reduction="sum")
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-12)


def test_binary_cross_entropy_checks_the_range_on_the_cpu():
    with pytest.raises(ValueError, match=r"binary_cross_entropy\(\): all elements of input "
                                         r"should be between 0 and 1, got 1.5 \(input of shape "
                                         r"\(2,\) on cpu\)"):
        F.binary_cross_entropy(pdt.tensor([0.5, 1.5]), pdt.tensor([1.0, 0.0]))


def test_with_logits_takes_an_integer_or_float64_weight(device):
    """D2L 15.4: the padding mask, int64, as weight; the loss keeps input's dtype."""
    pred = pdt.tensor([[1.1, -2.2, 3.3, -4.4]] * 2, device=device)
    label = pdt.tensor([[1.0, 0, 0, 0], [0, 1.0, 0, 0]], device=device)
    mask = pdt.tensor([[1, 1, 1, 1], [1, 1, 0, 0]], device=device)
    loss = F.binary_cross_entropy_with_logits(pred, label, weight=mask, reduction="none")
    assert loss.dtype == pdt.float32
    x = pred.cpu().numpy().astype(np.float64)
    y = label.cpu().numpy().astype(np.float64)
    per = (1 - y) * np.logaddexp(0, x) + y * np.logaddexp(0, -x)
    want = (per * mask.cpu().numpy()).mean(1) * 4 / mask.cpu().numpy().sum(1)
    got = loss.mean(dim=1) * 4 / mask.sum(dim=1)
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(got.cpu().numpy(), [0.9352, 1.8462], atol=1e-4)  # the book's
    loss64 = F.binary_cross_entropy_with_logits(pred, label, weight=mask.double(),
                                                pos_weight=pdt.tensor([2, 1, 1, 1],
                                                                      device=device))
    assert loss64.dtype == pdt.float32


def test_log_softmax_layer(device):
    x = pdt.tensor(X[0, :, :, 0], device=device)
    layer = nn.LogSoftmax(dim=1)
    assert repr(layer) == "LogSoftmax(dim=1)"
    np.testing.assert_allclose(layer(x).cpu().numpy(), F.log_softmax(x, 1).cpu().numpy())
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        assert tuple(nn.LogSoftmax()(x).shape) == (5, 4)


def test_binary_cross_entropy_gradient_at_a_saturated_sigmoid(device):
    """sigmoid(20) is 1.0 and sigmoid(-120) 0.0 in float32: PyTorch's gradient
    (x - y) / max(x (1 - x), 1e-12) is 0 there, not NaN for the whole batch."""
    z = pdt.tensor([20.0, -120.0, 0.0], device=device, requires_grad=True)
    F.binary_cross_entropy(z.sigmoid(), pdt.tensor([1.0, 0.0, 1.0], device=device)).backward()
    np.testing.assert_allclose(z.grad.cpu().numpy(), [0.0, 0.0, -1 / 6], rtol=1e-6, atol=1e-12)
    x = pdt.tensor([0.0, 1.0, 1.0, 0.0], dtype=pdt.float64, device=device, requires_grad=True)
    F.binary_cross_entropy(x, pdt.tensor([0.0, 1.0, 0.0, 1.0], dtype=pdt.float64,
                                         device=device), reduction="sum").backward()
    assert x.grad.cpu().numpy().tolist() == [0.0, 0.0, 1e12, -1e12]



def test_binary_cross_entropy_gradient_for_a_soft_target(device):
    """PyTorch 2.15 differentiates target too: (log(1 - x) - log(x)) * w, per element
    (the tester's distillation case)."""
    x = pdt.tensor([0.2, 0.7, 0.0], dtype=pdt.float64, device=device, requires_grad=True)
    t = pdt.tensor([0.0, 1.0, 0.5], dtype=pdt.float64, device=device, requires_grad=True)
    w = pdt.tensor([1.0, 2.0, 1.0], dtype=pdt.float64, device=device)
    F.binary_cross_entropy(x, t, w).backward()
    want = np.array([np.log(0.8) - np.log(0.2), 2 * (np.log(0.3) - np.log(0.7)), 0 + 100]) / 3
    np.testing.assert_allclose(t.grad.cpu().numpy(), want, rtol=1e-12)
    gradcheck(lambda a, b: F.binary_cross_entropy(a, b, reduction="sum"),
              [np.array([0.3, 0.6]), np.array([0.2, 0.9])], device)
