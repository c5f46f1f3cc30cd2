"""F.ctc_loss and nn.CTCLoss against a brute-force NumPy reference: the probability of a
target is the sum, over every path of T classes that collapses to it (repeats merged,
then blanks dropped), of the product of the path's probabilities.  Gradients:
test_gradcheck's central differences."""
import itertools

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck


def _collapse(path, blank):
    out, prev = [], None
    for k in path:
        if k != prev and k != blank:
            out.append(k)
        prev = k
    return out


def _ref_nll(log_probs, target, length, blank):
    """-log sum over the paths of the first `length` steps that collapse to target."""
    p = np.exp(log_probs[:length])
    total = 0.0
    for path in itertools.product(range(p.shape[1]), repeat=length):
        if _collapse(path, blank) == list(target):
            total += np.prod([p[t, k] for t, k in enumerate(path)])
    return -np.log(total) if total > 0 else np.inf


def _log_softmax(x):
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


RNG = np.random.default_rng(3)
LOGITS = RNG.standard_normal((5, 3, 4))
TARGETS = [[1, 2, 2], [3, 3], [0]]   # with blank=0 the last is an all-blank target, not used
IN_LENS = [5, 4, 3]


@pytest.mark.parametrize("blank", [0, 2])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("layout", ["padded", "concatenated"])
def test_ctc_loss_matches_the_sum_over_alignments(device, blank, reduction, layout):
    lp = _log_softmax(LOGITS)
    targets = [[1, 3, 3], [3, 1], [1]] if blank == 2 else [[1, 2, 2], [3, 3], [1]]
    tg_lens = [len(t) for t in targets]
    if layout == "padded":
        tg = pdt.tensor([t + [0] * (3 - len(t)) for t in targets], device=device)
    else:
        tg = pdt.tensor(sum(targets, []), device=device)
    got = F.ctc_loss(pdt.tensor(lp, device=device), tg, pdt.tensor(IN_LENS, device=device),
                     tuple(tg_lens), blank=blank, reduction=reduction)
    per = np.array([_ref_nll(lp[:, b], targets[b], IN_LENS[b], blank) for b in range(3)])
    want = per if reduction == "none" else per.sum() if reduction == "sum" else \
        (per / np.maximum(tg_lens, 1)).mean()
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-6)
    layer = nn.CTCLoss(blank=blank, reduction=reduction)
    np.testing.assert_allclose(layer(pdt.tensor(lp, device=device), tg, tuple(IN_LENS),
                                     tuple(tg_lens)).cpu().numpy(), want, rtol=1e-6)


def test_ctc_loss_gradient_matches_central_differences(device):
    tg = pdt.tensor([[1, 2, 2], [3, 3, 0], [2, 0, 0]], device=device)

    def fn(x):
        return F.ctc_loss(x.log_softmax(2), tg, (5, 4, 3), (3, 2, 1), reduction="none")

    gradcheck(fn, [LOGITS.copy()], device)


def test_ctc_loss_unbatched_empty_and_impossible_targets(device):
    lp = _log_softmax(LOGITS)
    x = pdt.tensor(lp, device=device)
    got = F.ctc_loss(x[:, 0], pdt.tensor([1, 2], device=device), pdt.tensor(5), 2,
                     reduction="none")
    assert got.shape == ()
    np.testing.assert_allclose(got.item(), _ref_nll(lp[:, 0], [1, 2], 5, 0), rtol=1e-12)
    tg = pdt.tensor([[1, 1, 1], [2, 0, 0], [3, 0, 0]], device=device)
    x = pdt.tensor(lp, device=device, requires_grad=True)
    got = F.ctc_loss(x, tg, (4, 0, 3), (3, 0, 1), reduction="none")  # 1 1 1 needs 5 steps
    assert got[0].item() == np.inf and got[1].item() == 0.0
    np.testing.assert_allclose(got[2].item(), _ref_nll(lp[:, 2], [3], 3, 0), rtol=1e-12)
    zeroed = F.ctc_loss(x, tg, (4, 0, 3), (3, 0, 1), reduction="sum", zero_infinity=True)
    np.testing.assert_allclose(zeroed.item(), got[2].item(), rtol=1e-12)
    zeroed.backward()
    grad = x.grad.cpu().numpy()
    assert np.isfinite(grad).all() and not grad[:, :2].any() and grad[:, 2].any()


@pytest.mark.parametrize("call, exc, match", [
    (lambda x, t: F.ctc_loss(x, t, (6, 5, 5), (1, 1, 1)), ValueError,
     r"input_lengths must lie in \[0, 5\], got 6"),
    (lambda x, t: F.ctc_loss(x, t, (5, 5), (1, 1)), ValueError,
     r"input_lengths must be of size batch_size: got 2 lengths for a batch of 3"),
    (lambda x, t: F.ctc_loss(x, t, (5, 5, 5), (-1, 1, 1)), ValueError,
     r"target_lengths must lie in \[0, inf\], got -1"),
    (lambda x, t: F.ctc_loss(x, t, (5, 5, 5), (4, 1, 1)), ValueError,
     r"exceed the targets' padded length 3"),
    (lambda x, t: F.ctc_loss(x, t.reshape(-1)[:4], (5, 5, 5), (2, 2, 1)), ValueError,
     r"concatenated targets must be 1-d of sum\(target_lengths\) = 5 elements"),
    (lambda x, t: F.ctc_loss(x, t, (5, 5, 5), (1, 1, 1), blank=4), ValueError,
     r"blank must be in the label range \[0, 4\), got 4"),
    (lambda x, t: F.ctc_loss(x, t * 3, (5, 5, 5), (3, 1, 1)), IndexError,
     r"target 6 is out of range for 4 classes"),
    (lambda x, t: F.ctc_loss(x, t.double(), (5, 5, 5), (1, 1, 1)), TypeError,
     r"targets must hold integer classes"),
    (lambda x, t: F.ctc_loss(x, t, (5.0, 5, 5), (1, 1, 1)), TypeError,
     r"input_lengths must hold ints"),
    # an empty batch raised "max() arg is an empty sequence"; PyTorch refuses it too
    (lambda x, t: F.ctc_loss(x[:, :0], t[:0], (), ()), RuntimeError,
     r"log_probs of shape \(5, 0, 4\) \(on cpu\) has no sample"),
    (lambda x, t: F.ctc_loss(x[:, :, :0], t, (5, 5, 5), (1, 1, 1)), ValueError,
     r"log_probs of shape \(5, 3, 0\) \(on cpu\) has no class"),
])
def test_ctc_loss_bad_input(call, exc, match):
    x = pdt.tensor(_log_softmax(LOGITS))
    t = pdt.tensor([[1, 2, 2], [3, 3, 1], [2, 1, 1]])
    with pytest.raises(exc, match=match):
        call(x, t)
