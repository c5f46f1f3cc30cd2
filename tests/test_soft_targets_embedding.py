"""cross_entropy's class-probability form (a floating-point target of the logits' shape,
with label smoothing and class weights) and nn.Embedding's from_pretrained and max_norm,
on every device.

Values against float64 NumPy (rtol 1e-12), gradients by gradcheck and against PyTorch
2.15 (rtol 1e-10); max_norm's renormalised rows against NumPy (rtol 1e-12) and PyTorch."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck

rng = np.random.default_rng(21)
X = rng.standard_normal((4, 5)) * 3
P = rng.dirichlet(np.ones(5), 4)
W = rng.uniform(0.5, 2.0, 5)


def _soft_ref(x, t, w, e, reduction):
    c = x.shape[-1]
    t = t * (1 - e) + e / c
    z = x - x.max(-1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(-1, keepdims=True))
    per = -(log_p * t * (1.0 if w is None else w)).sum(-1)
    if reduction == "none":
        return per
    return per.sum() / (x.shape[0] if reduction == "mean" and x.ndim == 2 else 1)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.25])
@pytest.mark.parametrize("weighted", [False, True])
def test_soft_cross_entropy(device, reduction, smoothing, weighted):
    w = W if weighted else None
    wt = pdt.tensor(W, device=device) if weighted else None
    for x, t in ((X, P), (X[0], P[0])):
        got = F.cross_entropy(pdt.tensor(x, device=device), pdt.tensor(t, device=device), wt,
                              reduction=reduction, label_smoothing=smoothing)
        np.testing.assert_allclose(got.cpu().numpy(), _soft_ref(x, t, w, smoothing, reduction),
                                   rtol=1e-12)
    gradcheck(lambda a, b: F.cross_entropy(a, b, wt, reduction="none",
                                           label_smoothing=smoothing), [X, P], device)
    torch = torch_or_skip()
    tx, tt = torch.tensor(X, requires_grad=True), torch.tensor(P, requires_grad=True)
    tout = torch.nn.functional.cross_entropy(tx, tt, None if w is None else torch.tensor(w),
                                             reduction=reduction, label_smoothing=smoothing)
    tout.sum().backward()
    x = pdt.tensor(X, device=device, requires_grad=True)
    t = pdt.tensor(P, device=device, requires_grad=True)
    loss_fn = nn.CrossEntropyLoss(wt, reduction=reduction, label_smoothing=smoothing)
    out = loss_fn(x, t)
    out.sum().backward()
    np.testing.assert_allclose(out.detach().cpu().numpy(), tout.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(t.grad.cpu().numpy(), tt.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_soft_cross_entropy_one_hot_is_the_class_form(device):
    x = pdt.tensor(X, device=device)
    classes = pdt.tensor([0, 3, 1, 4], device=device)
    one_hot = F.one_hot(classes, 5).to(pdt.float64)
    np.testing.assert_allclose(F.cross_entropy(x, one_hot, label_smoothing=0.1).item(),
                               F.cross_entropy(x, classes, label_smoothing=0.1).item(),
                               rtol=1e-13)


def test_soft_cross_entropy_bad():
    x = pdt.tensor(X)
    with pytest.raises(ValueError, match=r"must have input's shape, \(N, C\) or \(C,\): got "
                                         r"input \(4, 5\) and target \(4, 4\) on cpu"):
        F.cross_entropy(x, pdt.ones(4, 4, dtype=pdt.float64))
    with pytest.raises(ValueError, match="ignore_index is not supported for floating point "
                                         "target"):
        F.cross_entropy(x, pdt.tensor(P), ignore_index=0)
    # a probability target of another float dtype promotes with the input, as PyTorch's
    got = F.cross_entropy(x, pdt.tensor(P, dtype=pdt.float32))
    want = F.cross_entropy(x, pdt.tensor(P, dtype=pdt.float32).double())
    assert got.dtype == pdt.float64 and got.item() == want.item()


def test_from_pretrained(device):
    w = pdt.tensor(rng.standard_normal((5, 3)), device=device)
    emb = nn.Embedding.from_pretrained(w)
    assert repr(emb) == "Embedding(5, 3)"
    assert not emb.weight.requires_grad and emb.weight.device == device
    emb.weight.data[0, 0] = 7.0  # the same storage, as PyTorch's
    assert w[0, 0].item() == 7.0
    idx = pdt.tensor([[4, 0]], device=device)
    np.testing.assert_array_equal(emb(idx).cpu().numpy(), w.cpu().numpy()[[[4, 0]]])
    trainable = nn.Embedding.from_pretrained(w, freeze=False, padding_idx=1)
    assert trainable.weight.requires_grad and trainable.padding_idx == 1
    assert trainable.weight[1].tolist() == w[1].tolist()  # the padding row is kept
    trainable(pdt.tensor([1, 2, 2], device=device)).sum().backward()
    np.testing.assert_array_equal(trainable.weight.grad.cpu().numpy().sum(1), [0, 0, 6, 0, 0])
    with pytest.raises(ValueError, match=r"embeddings parameter is expected to be "
                                         r"2-dimensional, got shape \(5,\)"):
        nn.Embedding.from_pretrained(pdt.ones(5))
    with pytest.raises(NotImplementedError, match="sparse=True is not supported"):
        nn.Embedding.from_pretrained(w, sparse=True)
    torch = torch_or_skip()
    assert repr(torch.nn.Embedding.from_pretrained(torch.ones(5, 3), padding_idx=1)) == \
        repr(nn.Embedding.from_pretrained(pdt.ones(5, 3), padding_idx=1))


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0])
def test_max_norm(device, norm_type):
    a = rng.standard_normal((6, 4)) * 2
    idx = np.array([[1, 1, 4], [0, 4, 5]])
    emb = nn.Embedding.from_pretrained(pdt.tensor(a, device=device), freeze=False,
                                       max_norm=1.5, norm_type=norm_type)
    out = emb(pdt.tensor(idx, device=device))
    want = a.copy()
    for i in np.unique(idx):
        norm = (np.abs(a[i]) ** norm_type).sum() ** (1 / norm_type)
        if norm > 1.5:
            want[i] = a[i] * (1.5 / (norm + 1e-7))
    np.testing.assert_allclose(emb.weight.detach().cpu().numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(out.detach().cpu().numpy(), want[idx], rtol=1e-12)
    out.sum().backward()
    assert emb.weight.grad.cpu().numpy()[[2, 3]].sum() == 0
    torch = torch_or_skip()
    t = torch.nn.Embedding.from_pretrained(torch.tensor(a), freeze=False, max_norm=1.5,
                                           norm_type=norm_type)
    tout = t(torch.tensor(idx))
    tout.sum().backward()
    np.testing.assert_allclose(out.detach().cpu().numpy(), tout.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(emb.weight.detach().cpu().numpy(), t.weight.detach().numpy(),
                               rtol=1e-12)
    np.testing.assert_array_equal(emb.weight.grad.cpu().numpy(), t.weight.grad.numpy())
    assert repr(emb) == repr(t)


def test_embedding_options():
    emb = nn.Embedding(4, 2, max_norm=1.0, norm_type=1.0)
    assert repr(emb) == "Embedding(4, 2, max_norm=1.0, norm_type=1.0)"
    emb(pdt.tensor([0, 1, 2, 3]))
    assert (emb.weight.detach().abs().sum(1) <= 1.0 + 1e-6).all()
    np.testing.assert_array_equal(F.embedding(pdt.tensor([1]), pdt.ones(3, 2) * 3, None, 1.0)
                                  .numpy() * 0, [[0, 0]])
    with pytest.raises(TypeError, match="max_norm must be a number, got str"):
        nn.Embedding(4, 2, max_norm="1")
    with pytest.raises(ValueError, match=r"the shape of weight \(3, 2\) does not match "
                                         r"num_embeddings and embedding_dim \(4, 2\)"):
        nn.Embedding(4, 2, _weight=pdt.ones(3, 2))


def test_scale_grad_by_freq(device):
    a = rng.standard_normal((6, 3))
    idx = np.array([[1, 1, 4], [0, 4, 1]])
    emb = nn.Embedding.from_pretrained(pdt.tensor(a, device=device), freeze=False,
                                       scale_grad_by_freq=True, padding_idx=0)
    out = emb(pdt.tensor(idx, device=device))
    np.testing.assert_array_equal(out.detach().cpu().numpy(), a[idx])
    g = rng.standard_normal(idx.shape + (3,))
    out.backward(pdt.tensor(g, device=device))
    want = np.zeros_like(a)
    counts = {i: (idx == i).sum() for i in np.unique(idx)}
    for pos, i in np.ndenumerate(idx):
        if i != 0:
            want[i] += g[pos] / counts[i]
    np.testing.assert_allclose(emb.weight.grad.cpu().numpy(), want, rtol=1e-12)
    torch = torch_or_skip()
    t = torch.nn.Embedding.from_pretrained(torch.tensor(a), freeze=False,
                                           scale_grad_by_freq=True, padding_idx=0)
    t(torch.tensor(idx)).backward(torch.tensor(g))
    np.testing.assert_allclose(emb.weight.grad.cpu().numpy(), t.weight.grad.numpy(), rtol=1e-12)
    assert repr(emb) == repr(t)
