"""cross_entropy and nll_loss with class weights, ignore_index and label smoothing
(PyTorch's formula: (1 - e) * nll + e / C * smooth, the mean over the weights of the
targets not ignored), binary_cross_entropy_with_logits (weight, pos_weight; no overflow
for large abs(x)) and kl_div (every reduction, log_target), and their modules, on every
device: values against NumPy in float64 (1e-12 relative for float64 inputs, 1e-6 for
float32), gradients by gradcheck in float64, and torch when importable."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck

RNG = np.random.default_rng(7)
LOGITS = RNG.standard_normal((6, 4)) * 2
TARGET = np.array([0, 3, -100, 1, 3, 2])
WEIGHT = np.array([0.5, 2.0, 1.0, 3.0])
TOL = {"float32": 1e-6, "float64": 1e-12}


def _log_softmax(x):
    s = x - x.max(1, keepdims=True)
    return s - np.log(np.exp(s).sum(1, keepdims=True))


def _ref_class_loss(log_p, target, weight, ignore, reduction, e):
    """PyTorch's documented formula, sample by sample."""
    n, c = log_p.shape
    w = np.ones(c) if weight is None else weight
    nll, smooth, wsum = np.zeros(n), np.zeros(n), 0.0
    for i, t in enumerate(target):
        if t == ignore:
            continue
        nll[i] = -w[t] * log_p[i, t]
        smooth[i] = -(w * log_p[i]).sum()
        wsum += w[t]
    if reduction == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            nll, smooth = nll.sum() / wsum, smooth.sum() / wsum
    elif reduction == "sum":
        nll, smooth = nll.sum(), smooth.sum()
    return (1 - e) * nll + e / c * smooth


def _tensor(a, dtype, device, grad=False):
    return pdt.tensor(a.astype(dtype), device=device, requires_grad=grad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("e", [0.0, 0.2])
@pytest.mark.parametrize("ignore", [-100, 3])
def test_cross_entropy_matches_pytorchs_formula(device, dtype, reduction, weighted, e, ignore):
    # with ignore_index=3, the -100 of TARGET would be out of range: class 0 instead
    target = TARGET if ignore == -100 else np.where(TARGET == -100, 0, TARGET)
    x = _tensor(LOGITS, dtype, device)
    w = _tensor(WEIGHT, dtype, device) if weighted else None
    got = F.cross_entropy(x, pdt.tensor(target, device=device), w, ignore_index=ignore,
                          reduction=reduction, label_smoothing=e)
    want = _ref_class_loss(_log_softmax(LOGITS), target, WEIGHT if weighted else None, ignore,
                           reduction, e)
    assert got.dtype == x.dtype and got.device == x.device
    np.testing.assert_allclose(got.detach().cpu().numpy(), want, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_matches_pytorchs_formula(device, reduction, weighted):
    lp = _log_softmax(LOGITS)
    got = F.nll_loss(_tensor(lp, "float64", device), pdt.tensor(TARGET, device=device),
                     _tensor(WEIGHT, "float64", device) if weighted else None,
                     reduction=reduction)
    want = _ref_class_loss(lp, TARGET, WEIGHT if weighted else None, -100, reduction, 0.0)
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12, atol=1e-12)


def test_all_ignored_means_are_nan_and_sums_zero(device):
    x = _tensor(LOGITS[:2], "float64", device, grad=True)
    t = pdt.tensor([-100, -100], device=device)
    for w in (None, _tensor(WEIGHT, "float64", device)):
        for e in (0.0, 0.1):
            assert np.isnan(F.cross_entropy(x, t, w, label_smoothing=e).item())
            assert F.cross_entropy(x, t, w, reduction="sum", label_smoothing=e).item() == 0.0
        assert np.isnan(F.nll_loss(x, t, w).item())
    F.cross_entropy(x, t, reduction="sum").backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.zeros((2, 4)))


def test_the_one_node_path_ignores_too(device):
    """Without weights and smoothing, cross_entropy stays one node with ignored targets,
    and its gradient is that of the composition (the ignored rows 0, the mean over the
    rest)."""
    x = _tensor(LOGITS, "float64", device, grad=True)
    t = pdt.tensor(TARGET, device=device)
    out = F.cross_entropy(x, t)
    assert out.grad_fn.name() == "NllLossBackward0"
    out.backward()
    y = _tensor(LOGITS, "float64", device, grad=True)
    F.nll_loss(F.log_softmax(y, 1), t).backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), y.grad.cpu().numpy(), rtol=1e-12,
                               atol=1e-15)
    assert np.all(x.grad.cpu().numpy()[2] == 0)


@pytest.mark.parametrize("e", [0.0, 0.3])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_class_losses_gradcheck(device, e, reduction):
    t = pdt.tensor(TARGET, device=device)
    gradcheck(lambda x, w: F.cross_entropy(x, t, w, reduction=reduction, label_smoothing=e),
              [LOGITS.copy(), WEIGHT.copy()], device)
    gradcheck(lambda x: F.cross_entropy(x, t, reduction=reduction, label_smoothing=e),
              [LOGITS.copy()], device)
    t3 = pdt.tensor(np.where(TARGET == -100, 0, TARGET), device=device)
    gradcheck(lambda lp, w: F.nll_loss(lp, t3, w, ignore_index=3, reduction=reduction),
              [_log_softmax(LOGITS), WEIGHT.copy()], device)


def test_class_loss_modules(device):
    x = _tensor(LOGITS, "float64", device)
    t = pdt.tensor(np.where(TARGET == -100, 1, TARGET), device=device)
    w = _tensor(WEIGHT, "float64", device)
    for e in (0.0, 0.1):
        loss = nn.CrossEntropyLoss(w, ignore_index=1, reduction="sum", label_smoothing=e)
        np.testing.assert_array_equal(
            loss(x, t).cpu().numpy(),
            F.cross_entropy(x, t, w, ignore_index=1, reduction="sum", label_smoothing=e)
            .cpu().numpy())
    lp = F.log_softmax(x, 1)
    np.testing.assert_array_equal(nn.NLLLoss(w, ignore_index=1)(lp, t).cpu().numpy(),
                                  F.nll_loss(lp, t, w, ignore_index=1).cpu().numpy())
    assert "ignore_index=1" in repr(nn.NLLLoss(ignore_index=1))
    with pytest.raises(TypeError, match=r"weight must be a Tensor or None, got str 'sum': "
                                        r"pass reduction='sum' by keyword"):
        F.cross_entropy(x, t, "sum")
    with pytest.raises(ValueError, match=r"weight of shape \(3,\) does not fit input of "
                                         r"shape \(6, 4\): expected \(4,\)"):
        F.cross_entropy(x, t, w[:3])
    with pytest.raises(IndexError, match=r"target -100 is out of bounds for 4 classes"):
        F.cross_entropy(x.cpu(), pdt.tensor(TARGET), ignore_index=0)


# ---- binary_cross_entropy_with_logits

X = np.array([[-1000.0, -30.0, -2.0, -0.3], [0.0, 0.7, 25.0, 1000.0]])
Y = np.array([[0.0, 1.0, 0.25, 1.0], [1.0, 0.0, 0.5, 0.0]])
POS = np.array([0.5, 1.0, 2.0, 4.0])
WEL = np.array([[1.0, 0.5, 2.0, 1.0], [3.0, 1.0, 0.0, 1.0]])


def _bce_ref(x, y, w=None, pos=None):
    """-[pos * y * log sigmoid(x) + (1 - y) * log(1 - sigmoid(x))], with the log-sigmoids
    from np.logaddexp (exact for any x)."""
    log_sig, log_one_minus = -np.logaddexp(0, -x), -np.logaddexp(0, x)
    p = 1.0 if pos is None else pos
    loss = -(p * y * log_sig + (1 - y) * log_one_minus)
    return loss if w is None else loss * w


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted,pos", [(False, False), (True, False), (False, True),
                                          (True, True)])
def test_bce_with_logits_matches_numpy(device, dtype, reduction, weighted, pos):
    got = F.binary_cross_entropy_with_logits(
        _tensor(X, dtype, device), _tensor(Y, dtype, device),
        _tensor(WEL, dtype, device) if weighted else None, reduction=reduction,
        pos_weight=_tensor(POS, dtype, device) if pos else None)
    want = _bce_ref(X, Y, WEL if weighted else None, POS if pos else None)
    want = want.mean() if reduction == "mean" else want.sum() if reduction == "sum" else want
    out = got.cpu().numpy()
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, want, rtol=TOL[dtype], atol=TOL[dtype])


def test_bce_with_logits_gradcheck_and_finite_gradients(device):
    x = np.array([[-3.0, -0.4, 0.2, 1.5], [0.6, -1.2, 2.5, -0.8]])
    gradcheck(lambda a, y, w, p: F.binary_cross_entropy_with_logits(a, y, w, reduction="none",
                                                                          pos_weight=p),
              [x, Y.copy(), WEL.copy(), POS.copy()], device)
    big = _tensor(X, "float64", device, grad=True)
    F.binary_cross_entropy_with_logits(big, _tensor(Y, "float64", device), reduction="sum").backward()
    g = big.grad.cpu().numpy()  # sigmoid(x) - y, exactly 0 - y or 1 - y at +-1000
    np.testing.assert_allclose(g, 1 / (1 + np.exp(-np.clip(X, -700, 700))) - Y, atol=1e-12)
    mod = nn.BCEWithLogitsLoss(_tensor(WEL, "float64", device), reduction="sum",
                               pos_weight=_tensor(POS, "float64", device))
    np.testing.assert_allclose(mod(_tensor(X, "float64", device), _tensor(Y, "float64", device))
                               .item(), _bce_ref(X, Y, WEL, POS).sum(), rtol=1e-12)


# ---- kl_div

P = RNG.dirichlet(np.ones(5), size=3)
P[0, 1] = 0.0  # a zero probability: 0 * log 0 = 0
P[0] /= P[0].sum()
P_POS = RNG.dirichlet(np.ones(5), size=3)
LOGQ = _log_softmax(RNG.standard_normal((3, 5)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "batchmean", "sum", "none"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_matches_numpy(device, dtype, reduction, log_target):
    # a zero probability as a log-target is -inf: exp(-inf) * (-inf - x) is NaN, in
    # PyTorch too; log targets are checked on positive ones
    p = P_POS if log_target else P
    with np.errstate(divide="ignore"):
        logp = np.log(p)
    target = logp if log_target else p
    pointwise = np.where(p > 0, p * (np.where(p > 0, logp, 0) - LOGQ), 0.0)
    want = {"none": pointwise, "sum": pointwise.sum(), "batchmean": pointwise.sum() / 3,
            "mean": pointwise.mean()}[reduction]
    args = (_tensor(LOGQ, dtype, device), _tensor(target, dtype, device))
    kw = dict(reduction=reduction, log_target=log_target)
    if reduction == "mean":
        with pytest.warns(UserWarning, match="batchmean"):
            got = F.kl_div(*args, **kw)
    else:
        got = F.kl_div(*args, **kw)
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=TOL[dtype], atol=TOL[dtype])
    assert np.isfinite(got.cpu().numpy()).all()


def test_kl_div_gradcheck_and_module(device):
    q = RNG.standard_normal((3, 5))
    gradcheck(lambda a: F.kl_div(a, pdt.tensor(P, device=a.device),
                                       reduction="batchmean"), [q], device)
    gradcheck(lambda a, b: F.kl_div(a, b, reduction="sum", log_target=True), [q, LOGQ.copy()], device)
    gradcheck(lambda b: F.kl_div(pdt.tensor(LOGQ, device=b.device), b, reduction="none"),
              [RNG.uniform(0.1, 1.0, (3, 5))], device)
    loss = nn.KLDivLoss(reduction="batchmean")
    np.testing.assert_array_equal(
        loss(_tensor(LOGQ, "float64", device), _tensor(P, "float64", device)).cpu().numpy(),
        F.kl_div(_tensor(LOGQ, "float64", device), _tensor(P, "float64", device),
                 reduction="batchmean").cpu().numpy())
    with pytest.raises(ValueError, match=r"reduction must be 'mean', 'batchmean', 'sum' or "
                                         r"'none', got 'avg'"):
        nn.KLDivLoss(reduction="avg")


def test_match_torch(device):
    torch = torch_or_skip()
    tF = torch.nn.functional
    x, t, w = _tensor(LOGITS, "float64", device), pdt.tensor(TARGET, device=device), \
        _tensor(WEIGHT, "float64", device)
    for e in (0.0, 0.25):
        for reduction in ("mean", "sum", "none"):
            for weighted in (False, True):
                got = F.cross_entropy(x, t, w if weighted else None, reduction=reduction,
                                      label_smoothing=e)
                want = tF.cross_entropy(torch.tensor(LOGITS), torch.tensor(TARGET),
                                        torch.tensor(WEIGHT) if weighted else None,
                                        reduction=reduction, label_smoothing=e)
                np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-12,
                                           atol=1e-12)
    got = F.binary_cross_entropy_with_logits(_tensor(X, "float64", device),
                                             _tensor(Y, "float64", device),
                                             _tensor(WEL, "float64", device),
                                             pos_weight=_tensor(POS, "float64", device))
    want = tF.binary_cross_entropy_with_logits(torch.tensor(X), torch.tensor(Y),
                                               torch.tensor(WEL), pos_weight=torch.tensor(POS))
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-12)
    for log_target in (False, True):
        target = np.log(P_POS) if log_target else P
        with np.errstate(divide="ignore"):
            got = F.kl_div(_tensor(LOGQ, "float64", device), _tensor(target, "float64", device),
                           reduction="batchmean", log_target=log_target)
        want = tF.kl_div(torch.tensor(LOGQ), torch.tensor(target), reduction="batchmean",
                         log_target=log_target)
        np.testing.assert_allclose(got.item(), want.item(), rtol=1e-12)


# ---- fixes: all targets ignored, confident logits, mixed dtypes

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_all_ignored_mean_has_zero_gradients(device, dtype):
    """The one-node path's mean over no sample: the loss is NaN (0 / 0, as PyTorch's), its
    gradient 0 (PyTorch divides by max(count, 1)), not NaN."""
    x = _tensor(LOGITS[:2], dtype, device, grad=True)
    out = F.cross_entropy(x, pdt.tensor([-100, -100], device=device))
    assert out.grad_fn.name() == "NllLossBackward0" and np.isnan(out.item())
    out.backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.zeros((2, 4), dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("y", [0.0, 1.0])
def test_bce_with_logits_keeps_confident_predictions_precise(device, dtype, y):
    """Against float64 math (np.logaddexp, exact here): the losses of confident
    predictions, about exp(-abs(x)), to 2e-6 relative in float32 and 1e-14 in float64
    (the old log(1 + exp(-x)) gave 0 at x = 20 in float32), with pos_weight too."""
    x = np.array([10.0, 17.0, 20.0, 40.0, -40.0, 1000.0, -1000.0])
    x = x if y == 1.0 else -x  # the same confident and wrong predictions for class 0
    yy = np.full_like(x, y)
    xr = x.astype(dtype).astype(np.float64)  # the input as the dtype holds it
    rtol = 2e-6 if dtype == "float32" else 1e-14
    for pos in (None, np.array([3.0])):
        got = F.binary_cross_entropy_with_logits(
            _tensor(x, dtype, device), _tensor(yy, dtype, device), reduction="none",
            pos_weight=None if pos is None else _tensor(pos, dtype, device))
        np.testing.assert_allclose(got.cpu().numpy().astype(np.float64),
                                   _bce_ref(xr, yy, pos=pos), rtol=rtol, atol=0)


def test_bce_with_logits_gradient_at_zero_and_far_out(device):
    """The gradient is pos * y * (sigmoid(x) - 1) + (1 - y) * sigmoid(x): at x = 0 too (where
    max(z, 0) has a kink) and at +-1000 (where exp would overflow)."""
    x = np.array([0.0, 0.0, 1000.0, -1000.0, 1000.0, -1000.0, 20.0])
    y = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.5])
    pos = np.array([2.0])
    t = _tensor(x, "float64", device, grad=True)
    F.binary_cross_entropy_with_logits(t, _tensor(y, "float64", device), reduction="sum",
                                       pos_weight=_tensor(pos, "float64", device)).backward()
    sig = 0.5 * (1 + np.tanh(x / 2))
    np.testing.assert_allclose(t.grad.cpu().numpy(), pos * y * (sig - 1) + (1 - y) * sig,
                               rtol=1e-14, atol=1e-300)


def test_weights_of_another_dtype_raise(device):
    x32 = _tensor(LOGITS, "float32", device)
    w64 = _tensor(WEIGHT, "float64", device)
    t = pdt.tensor(np.where(TARGET == -100, 0, TARGET), device=device)
    msg = r"weight is pydevtensor.float64 but input is pydevtensor.float32"
    with pytest.raises(TypeError, match=msg):
        F.cross_entropy(x32, t, w64)
    with pytest.raises(TypeError, match=msg):
        F.nll_loss(x32, t, w64)
    # binary_cross_entropy_with_logits converts them, as PyTorch's (D2L 15.4's int mask)
    y32 = _tensor(Y, "float32", device)
    x32b = _tensor(X, "float32", device)
    for kw in ({"weight": _tensor(WEL, "float64", device)},
               {"pos_weight": _tensor(POS, "float64", device)}):
        got = F.binary_cross_entropy_with_logits(x32b, y32, **kw)
        want = F.binary_cross_entropy_with_logits(x32b, y32,
                                                  **{k: v.float() for k, v in kw.items()})
        assert got.dtype == pdt.float32 and got.item() == want.item()


def test_fixes_match_torch():
    torch = torch_or_skip()
    tx = torch.tensor(LOGITS[:2], requires_grad=True)
    torch.nn.functional.cross_entropy(tx, torch.tensor([-100, -100])).backward()
    x = _tensor(LOGITS[:2], "float64", "cpu", grad=True)
    F.cross_entropy(x, pdt.tensor([-100, -100])).backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    v = np.array([10.0, 17.0, 20.0, 40.0], dtype=np.float32)
    want = torch.nn.functional.binary_cross_entropy_with_logits(
        torch.tensor(v), torch.ones(4), reduction="none").numpy()
    got = F.binary_cross_entropy_with_logits(pdt.tensor(v), pdt.ones(4), reduction="none")
    np.testing.assert_allclose(got.numpy(), want, rtol=2e-6)
    with pytest.raises(RuntimeError):
        torch.nn.functional.cross_entropy(torch.tensor(LOGITS, dtype=torch.float32),
                                          torch.tensor([0, 1, 2, 3, 0, 1]),
                                          torch.tensor(WEIGHT))
