"""L1Loss, HuberLoss, SmoothL1Loss, NLLLoss, LeakyReLU and cross_entropy's
label_smoothing (pure-Python compositions in pydevtensor/nn/functional.py) on every
device: values and gradients against NumPy in float64 (float32 inputs within 1e-6
relative, float64 within 1e-12), and against torch when it is importable."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES, torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F

# differences below, at and above the knees 0.5, 1 and 2, zero, and a negative one
A = np.array([[0.0, 0.3, -0.7, 1.0], [2.5, -4.0, 0.5, 1.5]])
B = np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, -0.5]])
TOL = {"float32": 1e-6, "float64": 1e-12}


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def _reduce(x, reduction):
    return x.mean() if reduction == "mean" else x.sum() if reduction == "sum" else x


def _numpy_loss(name, d, k):
    """(elementwise loss, its derivative in d) in float64, PyTorch's formulas."""
    z = np.abs(d)
    if name == "l1":
        return z, np.sign(d)
    if name == "huber":
        return (np.where(z < k, 0.5 * z * z, k * (z - 0.5 * k)),
                np.where(z < k, d, k * np.sign(d)))
    return (np.where(z < k, 0.5 * z * z / k, z - 0.5 * k),
            np.where(z < k, d / k, np.sign(d)))


CALLS = {"l1": lambda x, y, r, k: F.l1_loss(x, y, reduction=r),
         "huber": lambda x, y, r, k: F.huber_loss(x, y, r, delta=k),
         "smooth_l1": lambda x, y, r, k: F.smooth_l1_loss(x, y, reduction=r, beta=k)}
MODULES = {"l1": lambda r, k: nn.L1Loss(reduction=r),
           "huber": lambda r, k: nn.HuberLoss(reduction=r, delta=k),
           "smooth_l1": lambda r, k: nn.SmoothL1Loss(reduction=r, beta=k)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name,k", [("l1", None), ("huber", 1.0), ("huber", 0.5),
                                    ("smooth_l1", 1.0), ("smooth_l1", 2.0)])
def test_regression_losses_and_gradients_match_numpy(dev, dtype, reduction, name, k):
    a, b = A.astype(dtype), B.astype(dtype)
    x = pdt.tensor(a, device=dev, requires_grad=True)
    y = pdt.tensor(b, device=dev)
    out = CALLS[name](x, y, reduction, k)
    d = a.astype(np.float64) - b.astype(np.float64)
    ref, dref = _numpy_loss(name, d, k)
    assert out.device == x.device and out.dtype == x.dtype
    np.testing.assert_allclose(out.detach().cpu().numpy(), _reduce(ref, reduction),
                               rtol=TOL[dtype], atol=TOL[dtype])
    mod = MODULES[name](reduction, k)(x, y)
    np.testing.assert_array_equal(mod.detach().cpu().numpy(), out.detach().cpu().numpy())
    g = np.linspace(-1, 2, d.size).reshape(d.shape)  # an uneven incoming gradient for 'none'
    if reduction == "none":
        out.backward(pdt.tensor(g.astype(dtype), device=dev))
        want = dref * g
    else:
        out.backward()
        want = dref / (d.size if reduction == "mean" else 1)
    np.testing.assert_allclose(x.grad.cpu().numpy(), want, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("name,k", [("huber", 1.0), ("smooth_l1", 1.0)])
def test_infinite_differences_give_finite_gradients(dev, name, k):
    x = pdt.tensor([np.inf, -np.inf, 0.25], dtype=pdt.float64, device=dev, requires_grad=True)
    out = CALLS[name](x, pdt.zeros(3, dtype=pdt.float64, device=dev), "sum", k)
    assert out.item() == np.inf
    out.backward()
    scale = 1.0 if name == "huber" else 1.0 / k
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [k * scale, -k * scale, 0.25 * scale])


def test_smooth_l1_with_beta_zero_is_l1(dev):
    x = pdt.tensor(A, device=dev, requires_grad=True)
    y = pdt.tensor(B, device=dev)
    F.smooth_l1_loss(x, y, beta=0.0).backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.sign(A - B) / A.size, rtol=1e-12)
    assert F.smooth_l1_loss(x, y, beta=0).item() == pytest.approx(np.abs(A - B).mean(), 1e-12)


def test_regression_losses_match_torch(dev):
    torch = torch_or_skip()
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 7)) * 2, rng.normal(size=(5, 7))
    for name, k in [("l1", None), ("huber", 0.7), ("smooth_l1", 1.3)]:
        x = pdt.tensor(a, device=dev, requires_grad=True)
        tx = torch.tensor(a, requires_grad=True)
        out = CALLS[name](x, pdt.tensor(b, device=dev), "mean", k)
        tf = {"l1": lambda: torch.nn.functional.l1_loss(tx, torch.tensor(b)),
              "huber": lambda: torch.nn.functional.huber_loss(tx, torch.tensor(b), delta=k),
              "smooth_l1": lambda: torch.nn.functional.smooth_l1_loss(tx, torch.tensor(b),
                                                                      beta=k)}[name]()
        out.backward()
        tf.backward()
        np.testing.assert_allclose(out.item(), tf.item(), rtol=1e-12)
        np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-12)


def _log_softmax(x):
    s = x - x.max(1, keepdims=True)
    return s - np.log(np.exp(s).sum(1, keepdims=True))


LOGITS = np.array([[2.0, -1.0, 0.5, 3.0], [-0.5, 0.0, 1.5, -2.0], [10.0, -10.0, 0.0, 1.0]])
TARGET = np.array([3, 0, 2])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_matches_numpy(dev, dtype, reduction):
    lp = _log_softmax(LOGITS)
    x = pdt.tensor(lp.astype(dtype), device=dev, requires_grad=True)
    t = pdt.tensor(TARGET, device=dev)
    out = F.nll_loss(x, t, reduction=reduction)
    ref = -lp[np.arange(3), TARGET]
    np.testing.assert_allclose(out.detach().cpu().numpy(), _reduce(ref, reduction),
                               rtol=TOL[dtype], atol=TOL[dtype])
    np.testing.assert_array_equal(nn.NLLLoss(reduction=reduction)(x, t).detach().cpu().numpy(),
                                  out.detach().cpu().numpy())
    out.sum().backward()
    want = np.zeros_like(lp)
    want[np.arange(3), TARGET] = -1.0 / (3 if reduction == "mean" else 1)
    np.testing.assert_array_equal(x.grad.cpu().numpy(), want.astype(dtype))


def test_nll_loss_of_log_softmax_is_cross_entropy(dev):
    x = pdt.tensor(LOGITS, device=dev)
    t = pdt.tensor(TARGET, device=dev)
    np.testing.assert_allclose(F.nll_loss(F.log_softmax(x, 1), t).item(),
                               F.cross_entropy(x, t).item(), rtol=1e-12)


def _smoothed_ce(x, target, e):
    lp = _log_softmax(x)
    n, c = x.shape
    q = np.full((n, c), e / c)
    q[np.arange(n), target] += 1 - e
    per = -(q * lp).sum(1)
    grad = np.exp(lp) - q  # d per-sample loss / d logits
    return per, grad


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("e", [0.0, 0.1, 1.0])
def test_cross_entropy_label_smoothing_matches_numpy(dev, dtype, reduction, e):
    x = pdt.tensor(LOGITS.astype(dtype), device=dev, requires_grad=True)
    t = pdt.tensor(TARGET, device=dev)
    out = F.cross_entropy(x, t, reduction=reduction, label_smoothing=e)
    per, grad = _smoothed_ce(LOGITS, TARGET, e)
    tol = 4 * TOL[dtype]
    np.testing.assert_allclose(out.detach().cpu().numpy(), _reduce(per, reduction),
                               rtol=tol, atol=tol)
    mod = nn.CrossEntropyLoss(reduction=reduction, label_smoothing=e)(x, t)
    np.testing.assert_array_equal(mod.detach().cpu().numpy(), out.detach().cpu().numpy())
    out.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), grad / (3 if reduction == "mean" else 1),
                               rtol=tol, atol=tol)


def test_cross_entropy_without_smoothing_keeps_its_one_node(dev):
    x = pdt.tensor(LOGITS, device=dev, requires_grad=True)
    assert F.cross_entropy(x, pdt.tensor(TARGET, device=dev)).grad_fn.name() == \
        "NllLossBackward0"


def test_cross_entropy_label_smoothing_matches_torch(dev):
    torch = torch_or_skip()
    for e in (0.05, 0.3):
        x = pdt.tensor(LOGITS, device=dev, requires_grad=True)
        tx = torch.tensor(LOGITS, requires_grad=True)
        out = F.cross_entropy(x, pdt.tensor(TARGET, device=dev), label_smoothing=e)
        tout = torch.nn.functional.cross_entropy(tx, torch.tensor(TARGET), label_smoothing=e)
        out.backward()
        tout.backward()
        np.testing.assert_allclose(out.item(), tout.item(), rtol=1e-12)
        np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-12,
                                   atol=1e-15)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_leaky_relu_and_gradient_match_numpy(dev, dtype):
    a = np.array([-3.0, -0.5, 0.0, 0.25, 4.0, -np.inf, np.inf]).astype(dtype)
    for slope in (0.01, 0.2, -0.5):
        x = pdt.tensor(a, device=dev, requires_grad=True)
        out = F.leaky_relu(x, slope)
        want = np.where(a > 0, a, a * np.array(slope, dtype=dtype))
        np.testing.assert_array_equal(out.detach().cpu().numpy(), want)
        np.testing.assert_array_equal(nn.LeakyReLU(slope)(x).detach().cpu().numpy(), want)
        out.backward(pdt.ones(7, dtype=x.dtype, device=dev))
        np.testing.assert_array_equal(x.grad.cpu().numpy(),
                                      np.where(a > 0, 1.0, slope).astype(dtype))
    assert nn.LeakyReLU()(pdt.tensor([-1.0], device=dev)).item() == pytest.approx(-0.01, 1e-7)


def test_leaky_relu_inplace(dev):
    x = pdt.tensor([-2.0, 3.0], device=dev)
    assert F.leaky_relu(x, 0.5, inplace=True) is x
    np.testing.assert_array_equal(x.cpu().numpy(), [-1.0, 3.0])


def test_leaky_relu_matches_torch(dev):
    torch = torch_or_skip()
    a = np.random.default_rng(1).normal(size=20).astype(np.float32)
    out = F.leaky_relu(pdt.tensor(a, device=dev), 0.2).cpu().numpy()
    np.testing.assert_array_equal(out, torch.nn.functional.leaky_relu(torch.tensor(a), 0.2))


def test_reprs():
    assert repr(nn.HuberLoss(delta=2.0)) == "HuberLoss(delta=2.0)"
    assert repr(nn.SmoothL1Loss(reduction="sum", beta=0.5)) == (
        "SmoothL1Loss(reduction='sum', beta=0.5)")
    assert repr(nn.LeakyReLU(0.2)) == "LeakyReLU(negative_slope=0.2)"
    assert repr(nn.CrossEntropyLoss(label_smoothing=0.1)) == \
        "CrossEntropyLoss(label_smoothing=0.1)"
    assert repr(nn.L1Loss()) == "L1Loss()"


@pytest.mark.parametrize("make, call", [
    (nn.MSELoss, F.mse_loss), (nn.L1Loss, F.l1_loss), (nn.SmoothL1Loss, F.smooth_l1_loss),
    (lambda **kw: nn.BCEWithLogitsLoss(**kw),
     lambda x, y, *a, **kw: F.binary_cross_entropy_with_logits(x, y, None, *a, **kw)),
    (nn.KLDivLoss, F.kl_div)])
def test_deprecated_size_average_and_reduce_as_torch(device, make, call):
    """PyTorch's signatures: size_average and reduce come before reduction and are
    translated (False/None: sum; reduce=False: none) with its warning; a reduction given
    where size_average goes is refused, not read as a mean."""
    x = pdt.tensor([[0.2, 0.7], [0.1, 0.4]], dtype=pdt.float64, device=device)
    y = pdt.tensor([[0.5, 0.5], [0.9, 0.1]], dtype=pdt.float64, device=device)
    for legacy, reduction in (({"size_average": False}, "sum"), ({"reduce": False}, "none"),
                              ({"size_average": True, "reduce": True}, "mean")):
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            got_module = make(**legacy)(x, y)
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            got_function = call(x, y, **legacy)
        want = call(x, y, reduction=reduction)
        assert pdt.equal(got_module, want) and pdt.equal(got_function, want)
    with pytest.raises(TypeError, match="write reduction='sum'"):
        call(x, y, "sum")


def test_class_losses_take_torchs_positional_order(device):
    logits = pdt.tensor([[2.0, 0.0, 1.0], [0.0, 2.0, 1.0]], device=device)
    target = pdt.tensor([0, 1], device=device)
    w = pdt.tensor([1.0, 2.0, 3.0], device=device)
    # (weight, size_average, ignore_index, reduce, reduction), as PyTorch's
    by_position = nn.CrossEntropyLoss(w, None, 1, None, "sum")(logits, target)
    by_name = nn.CrossEntropyLoss(w, ignore_index=1, reduction="sum")(logits, target)
    assert pdt.equal(by_position, by_name)
    assert pdt.equal(F.cross_entropy(logits, target, w, None, 1, None, "sum"), by_name)
    log_p = logits.log_softmax(1)
    assert pdt.equal(F.nll_loss(log_p, target, w, None, 1, None, "sum"),
                     nn.NLLLoss(w, None, 1, None, "sum")(log_p, target))
