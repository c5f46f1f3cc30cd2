"""The margin, embedding and likelihood losses (nn/_functional_losses_margin.py,
nn/_functional_losses_likelihood.py, nn/losses_more.py) on every device.

Each case is checked three ways in float64: its value against a NumPy formula
(rtol 1e-12), its gradients by gradcheck (central differences, test_gradcheck's
tolerance), and value and gradients against PyTorch 2.15 (rtol 1e-10), for every
reduction."""
import math
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck

REDUCTIONS = ["mean", "sum", "none"]
rng = np.random.default_rng(7)
N, C = 5, 4
X1, X2, X3 = (rng.standard_normal((N, C)) for _ in range(3))
SIGN = np.array([1.0, -1.0, 1.0, -1.0, -1.0])
SIGNS = rng.choice([-1.0, 1.0], (N, C))
COUNTS = rng.poisson(2.0, (N, C)).astype(float)
BITS = rng.integers(0, 2, (N, C)).astype(float)
CLASSES = np.array([0, 3, 1, 2, 3])
LABELS = np.array([[3, 0, -1, 1], [1, -1, 2, 2], [0, 1, 2, 3], [-1, 0, 0, 0], [2, 2, -1, 0]])
WEIGHT = rng.uniform(0.5, 2.0, C)
VAR = rng.uniform(0.2, 2.0, (N, C))


def _reduce(per, reduction):
    return per.mean() if reduction == "mean" else per.sum() if reduction == "sum" else per


def _logsig(x):
    return -np.logaddexp(0.0, -x)


def _cos(a, b):
    return (a * b).sum(-1) / np.sqrt(((a * a).sum(-1) + 1e-12) * ((b * b).sum(-1) + 1e-12))


def _dist(a, b, p, eps=1e-6):
    return (np.abs(a - b + eps) ** p).sum(-1) ** (1 / p)


def _multi_margin(x, y, p, margin, w):
    z = np.maximum(margin - x[np.arange(len(y)), y][:, None] + x, 0) ** p
    if w is not None:
        z = z * w[y][:, None]
    z[np.arange(len(y)), y] = 0
    return z.sum(1) / x.shape[1]


def _multilabel_margin(x, labels):
    out = []
    for row, lab in zip(x, labels):
        listed = []
        for j in lab:
            if j < 0:
                break
            listed.append(j)
        total = 0.0
        for j in listed:
            for i in range(len(row)):
                if i not in listed:
                    total += max(0.0, 1 - (row[j] - row[i]))
        out.append(total / len(row))
    return np.array(out)


def _stirling(y):
    with np.errstate(all="ignore"):
        return np.where(y > 1, y * np.log(y) - y + 0.5 * np.log(2 * np.pi * y), 0.0)


# name -> (arrays differentiated, constants, ours(*tensors, *consts, reduction),
#          NumPy (*arrays, *consts) -> per-element or per-sample losses,
#          torch's (name, positional constants count, kwargs))
CASES = {
    "margin_ranking": ([X1[:, 0], X2[:, 0]], [SIGN],
                       lambda a, b, y, r: F.margin_ranking_loss(a, b, y, 0.3, reduction=r),
                       lambda a, b, y: np.maximum(0, -y * (a - b) + 0.3),
                       ("margin_ranking_loss", {"margin": 0.3})),
    "hinge_embedding": ([np.abs(X1) * 2], [SIGNS],
                        lambda x, y, r: F.hinge_embedding_loss(x, y, 1.5, reduction=r),
                        lambda x, y: np.where(y == 1, x, np.maximum(0, 1.5 - x)),
                        ("hinge_embedding_loss", {"margin": 1.5})),
    "soft_margin": ([X1 * 5], [SIGNS], lambda x, y, r: F.soft_margin_loss(x, y, reduction=r),
                    lambda x, y: np.logaddexp(0.0, -y * x), ("soft_margin_loss", {})),
    "cosine_embedding": ([X1, X2], [SIGN],
                         lambda a, b, y, r: F.cosine_embedding_loss(a, b, y, -0.2, reduction=r),
                         lambda a, b, y: np.where(y == 1, 1 - _cos(a, b),
                                                  np.maximum(0, _cos(a, b) + 0.2)),
                         ("cosine_embedding_loss", {"margin": -0.2})),
    "triplet": ([X1, X2, X3], [],
                lambda a, p, n, r: F.triplet_margin_loss(a, p, n, 2.0, reduction=r),
                lambda a, p, n: np.maximum(0, 2.0 + _dist(a, p, 2) - _dist(a, n, 2)),
                ("triplet_margin_loss", {"margin": 2.0})),
    "triplet_p1_swap": ([X1, X2, X3], [],
                        lambda a, p, n, r: F.triplet_margin_loss(a, p, n, 2.0, p=1, swap=True,
                                                                 reduction=r),
                        lambda a, p, n: np.maximum(0, 2.0 + _dist(a, p, 1) - np.minimum(
                            _dist(a, n, 1), _dist(p, n, 1))),
                        ("triplet_margin_loss", {"margin": 2.0, "p": 1, "swap": True})),
    "multi_margin": ([X1], [CLASSES],
                     lambda x, y, r: F.multi_margin_loss(x, y, reduction=r),
                     lambda x, y: _multi_margin(x, y, 1, 1.0, None), ("multi_margin_loss", {})),
    "multi_margin_p2_w": ([X1, WEIGHT], [CLASSES],
                          lambda x, w, y, r: F.multi_margin_loss(x, y, 2, 0.7, w, reduction=r),
                          lambda x, w, y: _multi_margin(x, y, 2, 0.7, w),
                          ("multi_margin_loss", {"p": 2, "margin": 0.7})),
    "multilabel_margin": ([X1], [LABELS],
                          lambda x, y, r: F.multilabel_margin_loss(x, y, reduction=r),
                          _multilabel_margin, ("multilabel_margin_loss", {})),
    "multilabel_soft_margin": ([X1 * 3, WEIGHT], [BITS],
                               lambda x, w, y, r: F.multilabel_soft_margin_loss(x, y, w,
                                                                                reduction=r),
                               lambda x, w, y: -((y * _logsig(x) + (1 - y) * _logsig(-x)) *
                                                 w).mean(-1),
                               ("multilabel_soft_margin_loss", {})),
    "poisson": ([X1], [COUNTS], lambda x, y, r: F.poisson_nll_loss(x, y, reduction=r),
                lambda x, y: np.exp(x) - y * x, ("poisson_nll_loss", {})),
    "poisson_full_rate": ([np.abs(X1) + 0.1], [COUNTS],
                          lambda x, y, r: F.poisson_nll_loss(x, y, False, True, reduction=r),
                          lambda x, y: x - y * np.log(x + 1e-8) + _stirling(y),
                          ("poisson_nll_loss", {"log_input": False, "full": True})),
    "gaussian": ([X1, VAR], [X2], lambda x, v, y, r: F.gaussian_nll_loss(x, y, v, reduction=r),
                 lambda x, v, y: 0.5 * (np.log(v) + (x - y) ** 2 / v), None),
    "gaussian_full_per_sample": ([X1, VAR[:, 0]], [X2],
                                 lambda x, v, y, r: F.gaussian_nll_loss(x, y, v, True,
                                                                        reduction=r),
                                 lambda x, v, y: 0.5 * (np.log(v[:, None]) + (x - y) ** 2 /
                                                        v[:, None] + np.log(2 * np.pi)), None),
}


def _tensor(a, device, grad=False):
    t = pdt.tensor(a, device=device)
    return t.requires_grad_() if grad else t


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_numpy(device, name, reduction):
    arrays, consts, ours, ref, _ = CASES[name]
    got = ours(*[_tensor(a, device) for a in arrays + consts], reduction)
    assert got.device == device and got.dtype == pdt.float64
    want = _reduce(ref(*arrays, *consts), reduction)
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(device, name):
    arrays, consts, ours, _, _ = CASES[name]
    const_tensors = [_tensor(c, device) for c in consts]
    gradcheck(lambda *ts: ours(*ts, *const_tensors, "none"), [a.copy() for a in arrays],
              device)


def _torch_call(torch, name, arrays, consts, reduction):
    tname, kwargs = CASES[name][4]
    tf = torch.nn.functional
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    cs = [torch.tensor(c) for c in consts]
    if tname == "multi_margin_loss" and len(ts) == 2:
        ts[1].requires_grad_(False)  # PyTorch's is not differentiable for weight (ours is)
    if tname in ("multi_margin_loss", "multilabel_soft_margin_loss") and len(ts) == 2:
        out = getattr(tf, tname)(ts[0], cs[0], weight=ts[1], reduction=reduction, **kwargs)
    else:
        out = getattr(tf, tname)(*ts, *cs, reduction=reduction, **kwargs)
    return ts, out


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", sorted(n for n in CASES if CASES[n][4]))
def test_against_torch(device, name, reduction):
    torch = torch_or_skip()
    arrays, consts, ours, _, _ = CASES[name]
    ts, tout = _torch_call(torch, name, arrays, consts, reduction)
    tout.sum().backward()
    xs = [_tensor(a, device, True) for a in arrays]
    out = ours(*xs, *[_tensor(c, device) for c in consts], reduction)
    out.sum().backward()
    np.testing.assert_allclose(out.detach().cpu().numpy(), tout.detach().numpy(), rtol=1e-10,
                               atol=1e-14)
    for x, t in zip(xs, ts):
        if t.grad is None:
            continue
        np.testing.assert_allclose(x.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("full", [False, True])
def test_gaussian_against_torch(device, full):
    torch = torch_or_skip()
    for var in (VAR, VAR[:, 0], VAR[:, :1], 0.5, np.where(VAR > 1, VAR, 1e-9)):
        tx = torch.tensor(X1, requires_grad=True)
        tv = torch.tensor(var, requires_grad=True) if isinstance(var, np.ndarray) else var
        tout = torch.nn.functional.gaussian_nll_loss(tx, torch.tensor(X2), tv, full)
        tout.backward()
        x = _tensor(X1, device, True)
        v = _tensor(var, device, True) if isinstance(var, np.ndarray) else var
        out = nn.GaussianNLLLoss(full=full)(x, _tensor(X2, device), v)
        out.backward()
        np.testing.assert_allclose(out.item(), tout.item(), rtol=1e-12)
        np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-10)
        if isinstance(var, np.ndarray):  # var's gradient passes the clamp at eps
            np.testing.assert_allclose(v.grad.cpu().numpy(), tv.grad.numpy(), rtol=1e-10)


def test_one_sample_forms(device):
    torch = torch_or_skip()
    tf = torch.nn.functional
    x = rng.standard_normal(C)
    cases = [(F.multi_margin_loss, tf.multi_margin_loss, np.int64(2)),
             (F.multilabel_margin_loss, tf.multilabel_margin_loss, np.array([1, 2, -1, 0])),
             (F.multilabel_soft_margin_loss, tf.multilabel_soft_margin_loss, BITS[0])]
    for ours, theirs, y in cases:
        for r in REDUCTIONS:
            got = ours(_tensor(x, device), _tensor(y, device), reduction=r)
            want = theirs(torch.tensor(x), torch.tensor(y), reduction=r)
            assert tuple(got.shape) == tuple(want.shape)
            np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-12)
    got = F.cosine_embedding_loss(_tensor(X1[0], device), _tensor(X2[0], device),
                                  _tensor(-1.0, device), reduction="none")
    want = tf.cosine_embedding_loss(torch.tensor(X1[0]), torch.tensor(X2[0]),
                                    torch.tensor(-1.0), reduction="none")
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-12)



@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss_of_one_sample_against_numpy(device, reduction):
    """An unbatched (C,) input with a (C,) target gives a 0-d loss for every reduction, as
    PyTorch's (it raised NameError: the torch-only test above is skipped without torch)."""
    x, y = np.array([0.1, 0.2, 0.4, 0.8]), np.array([3, 0, -1, 1])
    want = _multilabel_margin(x[None], y[None])[0]
    assert want == pytest.approx(0.85)
    xt = _tensor(x, device).requires_grad_()
    got = F.multilabel_margin_loss(xt, _tensor(y, device), reduction=reduction)
    assert got.shape == () and got.item() == pytest.approx(want, rel=1e-12)
    assert nn.MultiLabelMarginLoss(reduction=reduction)(xt, _tensor(y, device)).shape == ()
    got.backward()
    h, grad = 1e-6, []
    for i in range(4):
        e = np.eye(4)[i] * h
        grad.append((_multilabel_margin((x + e)[None], y[None])[0]
                     - _multilabel_margin((x - e)[None], y[None])[0]) / (2 * h))
    np.testing.assert_allclose(xt.grad.cpu().numpy(), grad, rtol=1e-6, atol=1e-9)


MODULES = [
    (nn.MarginRankingLoss(0.3), "margin_ranking", "MarginRankingLoss()"),
    (nn.HingeEmbeddingLoss(1.5), "hinge_embedding", "HingeEmbeddingLoss()"),
    (nn.SoftMarginLoss(), "soft_margin", "SoftMarginLoss()"),
    (nn.CosineEmbeddingLoss(-0.2), "cosine_embedding", "CosineEmbeddingLoss()"),
    (nn.TripletMarginLoss(2.0), "triplet", "TripletMarginLoss()"),
    (nn.TripletMarginLoss(2.0, p=1, swap=True), "triplet_p1_swap", "TripletMarginLoss()"),
    (nn.MultiMarginLoss(), "multi_margin", "MultiMarginLoss()"),
    (nn.MultiLabelMarginLoss(), "multilabel_margin", "MultiLabelMarginLoss()"),
    (nn.PoissonNLLLoss(), "poisson", "PoissonNLLLoss()"),
    (nn.PoissonNLLLoss(False, True), "poisson_full_rate", "PoissonNLLLoss()"),
]


@pytest.mark.parametrize("module,name,text", MODULES, ids=[m[1] for m in MODULES])
def test_modules(device, module, name, text):
    assert repr(module) == text
    arrays, consts, ours, _, _ = CASES[name]
    inputs = [_tensor(a, device) for a in arrays + consts]
    np.testing.assert_array_equal(module(*inputs).cpu().numpy(),
                                  ours(*inputs, "mean").cpu().numpy())


def test_modules_with_weights(device):
    w = _tensor(WEIGHT, device)
    m = nn.MultiMarginLoss(2, 0.7, w.cpu(), reduction="sum").to(device)
    assert repr(m) == "MultiMarginLoss(reduction='sum')"
    assert m.weight.device == device and list(m.state_dict()) == ["weight"]
    x, y = _tensor(X1, device), _tensor(CLASSES, device)
    np.testing.assert_array_equal(m(x, y).cpu().numpy(),
                                  F.multi_margin_loss(x, y, 2, 0.7, w, reduction="sum").numpy()
                                  if device.type == "cpu" else
                                  F.multi_margin_loss(x, y, 2, 0.7, w, reduction="sum").cpu()
                                  .numpy())
    m = nn.MultiLabelSoftMarginLoss(w)
    bits = _tensor(BITS, device)
    np.testing.assert_array_equal(m(x, bits).cpu().numpy(),
                                  F.multilabel_soft_margin_loss(x, bits, w).cpu().numpy())
    g = nn.GaussianNLLLoss(full=True, eps=1e-3, reduction="none")
    assert repr(g) == "GaussianNLLLoss(reduction='none')"
    assert tuple(g(x, x, _tensor(VAR, device)).shape) == (N, C)


def test_legacy_size_average_and_reduce(device):
    x, y = _tensor(X1[:, 0], device), _tensor(SIGN, device)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, "
                                         "please use reduction='sum' instead"):
        got = F.hinge_embedding_loss(x.abs(), y, size_average=False)
    assert got.item() == F.hinge_embedding_loss(x.abs(), y, reduction="sum").item()
    with pytest.warns(UserWarning, match="reduction='none'"):
        m = nn.SoftMarginLoss(reduce=False)
    assert m.reduction == "none"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.SoftMarginLoss(reduction="sum")


def test_bad_arguments():
    x = pdt.ones(3, 4)
    with pytest.raises(ValueError, match=r"reduction must be 'mean', 'sum' or 'none', got 'x'"):
        F.soft_margin_loss(x, x, reduction="x")
    with pytest.raises(RuntimeError, match=r"margin_ranking_loss\(\): all input tensors should "
                                           r"have the same number of dimensions"):
        F.margin_ranking_loss(pdt.ones(3), pdt.ones(3), pdt.ones(3, 1))
    with pytest.raises(ValueError, match=r"hinge_embedding_loss\(\): the shapes do not "
                                         r"broadcast: input \(3,\), target \(2,\) \(on cpu\)"):
        F.hinge_embedding_loss(pdt.ones(3), pdt.ones(2))
    with pytest.raises(ValueError, match=r"cosine_embedding_loss\(\): 0-d or 1-d target"):
        F.cosine_embedding_loss(x, x, x)
    with pytest.raises(ValueError, match=r"expected inputs \(N, D\) with target \(N,\)"):
        F.cosine_embedding_loss(x, x, pdt.ones(2))
    with pytest.raises(RuntimeError, match=r"anchor 2D, positive 2D, and negative 1D"):
        F.triplet_margin_loss(x, x, pdt.ones(4))
    with pytest.raises(ValueError, match="expected margin to be greater than 0, got 0"):
        nn.TripletMarginLoss(margin=0)
    with pytest.raises(ValueError, match=r"only p == 1 and p == 2 supported, got p=3"):
        F.multi_margin_loss(x, pdt.tensor([0, 1, 2]), p=3)
    with pytest.raises(IndexError, match=r"multi_margin_loss\(\): target 5 is out of range "
                                         r"for 4 classes"):
        F.multi_margin_loss(x, pdt.tensor([0, 1, 5]))
    with pytest.raises(TypeError, match=r"target must hold integer class indices"):
        F.multi_margin_loss(x, pdt.tensor([0.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match=r"target of shape \(2,\) does not fit input of "
                                         r"shape \(3, 4\) \(on cpu\): expected \(3,\)"):
        F.multi_margin_loss(x, pdt.tensor([0, 1]))
    with pytest.raises(ValueError, match="weight must be one-dimensional"):
        F.multi_margin_loss(x, pdt.tensor([0, 1, 2]), weight=pdt.ones(1, 4))
    with pytest.raises(IndexError, match=r"multilabel_margin_loss\(\): target 4 is out of "
                                         r"range for 4 classes"):
        F.multilabel_margin_loss(x, pdt.tensor([[0, 4, -1, 0]] * 3))
    with pytest.raises(ValueError, match=r"var is of incorrect size: \(3, 3\) for input of "
                                         r"shape \(3, 4\)"):
        F.gaussian_nll_loss(x, x, pdt.ones(3, 3))
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(x, x, -pdt.ones(3, 4))
    with pytest.raises(TypeError, match=r"gaussian_nll_loss\(\): target must be floating"):
        F.gaussian_nll_loss(x, pdt.ones(3, 4, dtype=pdt.bool), x)  # PyTorch subtracts it
    assert math.isfinite(F.poisson_nll_loss(x, x * 0, log_input=False, full=True).item())


@pytest.mark.parametrize("name", ["hinge_embedding_loss", "soft_margin_loss",
                                  "margin_ranking_loss", "cosine_embedding_loss",
                                  "multilabel_soft_margin_loss", "poisson_nll_loss",
                                  "gaussian_nll_loss"])
@pytest.mark.parametrize("tdtype", ["int64", "int32"])
def test_integer_targets_as_torch(device, name, tdtype):
    # PyTorch promotes an integer target to the input's dtype in these losses
    torch = torch_or_skip()
    x = np.array([[0.1, -0.5, 0.2], [0.3, 0.2, -0.9]])
    t = np.array([[1, -1, 1], [-1, 1, 1]])
    args = {"hinge_embedding_loss": lambda x_, t_, lib: (x_, t_),
            "soft_margin_loss": lambda x_, t_, lib: (x_, t_),
            "margin_ranking_loss": lambda x_, t_, lib: (x_[0], x_[1], t_[0]),
            "cosine_embedding_loss": lambda x_, t_, lib: (x_, x_.flip(0), t_[:, 0]),
            "multilabel_soft_margin_loss": lambda x_, t_, lib: (x_, t_.abs()),
            "poisson_nll_loss": lambda x_, t_, lib: (x_, t_.abs()),
            "gaussian_nll_loss": lambda x_, t_, lib: (x_, t_, lib.ones(2, 3, dtype=x_.dtype,
                                                                       device=x_.device))}[name]
    for dtype in ("float32", "float64"):
        got = getattr(F, name)(*args(pdt.tensor(x, dtype=getattr(pdt, dtype)),
                                     pdt.tensor(t, dtype=getattr(pdt, tdtype)), pdt))
        ref = getattr(torch.nn.functional, name)(
            *args(torch.tensor(x, dtype=getattr(torch, dtype)),
                  torch.tensor(t, dtype=getattr(torch, tdtype)), torch))
        want = getattr(F, name)(*args(pdt.tensor(x, dtype=getattr(pdt, dtype)),
                                      pdt.tensor(t, dtype=getattr(pdt, dtype)), pdt))
        assert got.dtype == want.dtype == getattr(pdt, dtype)
        assert got.item() == want.item()
        np.testing.assert_allclose(got.item(), ref.item(), rtol=1e-6 if dtype == "float32"
                                   else 1e-12)
    on_device = getattr(F, name)(*args(pdt.tensor(x, device=device),
                                       pdt.tensor(t, device=device), pdt))
    np.testing.assert_allclose(on_device.item(), ref.item(), rtol=1e-12)
    with pytest.raises(TypeError, match="floating point"):  # bool stays refused
        getattr(F, name)(*args(pdt.tensor(x), pdt.tensor(t > 0), pdt))


def test_multilabel_margin_loss_memory_follows_the_listed_classes():
    # 2 listed classes of C = 300 in each of 16 rows: the pairs were built for every one
    # of the C target columns, padding included (16 * 300 * 300 floats, 5.8 MB, per
    # temporary; 32.7 s for N = 2048, C = 500), and are 16 * 2 * 300 now
    import gc
    n, c = 16, 300
    rng = np.random.default_rng(3)
    x = rng.standard_normal((n, c))
    target = np.full((n, c), -1)
    target[:, :2] = np.stack([rng.choice(c, 2, replace=False) for _ in range(n)])
    xt, tt = pdt.tensor(x, requires_grad=True), pdt.tensor(target)
    gc.collect()
    before = pdt.memory_allocated("cpu")
    pdt.reset_peak_memory_stats("cpu")
    loss = F.multilabel_margin_loss(xt, tt, reduction="sum")
    loss.backward()
    assert pdt.max_memory_allocated("cpu") - before < 2_000_000
    want, grad = 0.0, np.zeros((n, c))
    for r in range(n):
        others = np.setdiff1d(np.arange(c), target[r, :2])
        for j in target[r, :2]:
            z = 1.0 - x[r, j] + x[r, others]
            want += np.maximum(z, 0.0).sum() / c
            grad[r, others] += (z > 0) / c
            grad[r, j] -= (z > 0).sum() / c
    np.testing.assert_allclose(loss.item(), want, rtol=1e-12)
    np.testing.assert_allclose(xt.grad.numpy(), grad, rtol=1e-12, atol=1e-15)
