"""The top-level ATen forms of the losses and of embedding (pydevtensor/_ops_aten_losses.py):
``pdt.kl_div(x, t, 1)`` and the like, reduction an int (0 'none', the default as torch
2.15's top-level functions give it; 1 'mean'; 2 'sum'), on every device.

References: the closed forms in NumPy float64 (to 1e-12 relative) for the unreduced
losses, their mean and sum; nn.functional's string form for the rest (the same values:
nn.functional's losses are checked against NumPy in their own tests); embedding's rows
and its gradient (each row's count of picks, none for padding_idx).
"""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close
from pydevtensor.nn import functional as F

RNG = np.random.default_rng(28)
X, Y = RNG.standard_normal(6), RNG.standard_normal(6)
T = RNG.uniform(0.1, 1.0, 6)
S = np.array([1.0, -1.0, 1.0, -1.0, -1.0, 1.0])
A, B, C = (RNG.standard_normal((6, 3)) for _ in range(3))


def _t(a, device):
    return pdt.tensor(a, dtype=pdt.float64, device=device)


# name: (the call with reduction r, the unreduced loss in NumPy float64)
CLOSED = {
    "binary_cross_entropy_with_logits": (
        lambda d, *r: pdt.binary_cross_entropy_with_logits(_t(X, d), _t(T, d), None, None, *r),
        -(T * np.log(1 / (1 + np.exp(-X))) + (1 - T) * np.log(1 - 1 / (1 + np.exp(-X))))),
    "kl_div": (lambda d, *r: pdt.kl_div(_t(X, d), _t(T, d), *r), T * (np.log(T) - X)),
    "hinge_embedding_loss": (
        lambda d, *r: pdt.hinge_embedding_loss(_t(X, d), _t(S, d), 0.5, *r),
        np.where(S == 1, X, np.maximum(0, 0.5 - X))),
    "margin_ranking_loss": (
        lambda d, *r: pdt.margin_ranking_loss(_t(X, d), _t(Y, d), _t(S, d), 0.2, *r),
        np.maximum(0, -S * (X - Y) + 0.2)),
    "poisson_nll_loss": (
        lambda d, *r: pdt.poisson_nll_loss(_t(X, d), _t(T, d), True, False, 1e-8, *r),
        np.exp(X) - T * X),
}


@pytest.mark.parametrize("name", list(CLOSED))
def test_closed_forms_and_the_int_reduction(device, name):
    call, ref = CLOSED[name]
    if name != "poisson_nll_loss":  # every argument required there, as in ATen
        assert_close(call(device), ref, "float64")  # the default: 0, unreduced
    assert_close(call(device, 0), ref, "float64")
    assert_close(call(device, 1), np.float64(ref.mean()), "float64")
    assert_close(call(device, 2), np.float64(ref.sum()), "float64")


def test_the_rest_as_nn_functional(device):
    a, b, c, s = _t(A, device), _t(B, device), _t(C, device), _t(S, device)
    for r, name in enumerate(("none", "mean", "sum")):
        assert_close(pdt.cosine_embedding_loss(a, b, s, 0.1, r),
                     F.cosine_embedding_loss(a, b, s, 0.1, reduction=name).cpu().numpy(),
                     "float64")
        assert_close(pdt.triplet_margin_loss(a, b, c, 0.5, 1.5, 1e-6, True, r),
                     F.triplet_margin_loss(a, b, c, 0.5, 1.5, 1e-6, True,
                                           reduction=name).cpu().numpy(), "float64")
        w = _t(T, device)
        assert_close(pdt.binary_cross_entropy_with_logits(_t(X, device), w, w, w * 2, r),
                     F.binary_cross_entropy_with_logits(_t(X, device), w, w, reduction=name,
                                                        pos_weight=w * 2).cpu().numpy(),
                     "float64")
        ref = T * (np.log(T) - X)
        assert_close(pdt.kl_div(_t(X, device), _t(np.log(T), device), r, log_target=True),
                     [ref, np.float64(ref.mean()), np.float64(ref.sum())][r], "float64")


def test_ctc_loss_closed_form_and_reductions(device):
    # two frames of p = 1/2 each: the target [1] by (1, 1), (1, blank) or (blank, 1)
    lp = pdt.full((2, 1, 2), 0.5, dtype=pdt.float64, device=device).log()
    tg = pdt.tensor([[1]], device=device)
    assert_close(pdt.ctc_loss(lp, tg, [2], [1]), np.array([-np.log(0.75)]), "float64")
    rng = np.random.default_rng(3)
    lp = _t(np.log(rng.dirichlet(np.ones(5), size=(6, 2))), device)
    tg = pdt.tensor([[1, 2, 3], [2, 2, 0]], device=device)
    for r, name in enumerate(("none", "mean", "sum")):
        assert_close(pdt.ctc_loss(lp, tg, [6, 5], [3, 2], 0, r),
                     _np_of(F.ctc_loss(lp, tg, [6, 5], [3, 2], 0, name)), "float64")


def _np_of(t):
    return t.detach().cpu().numpy()


def test_kl_div_mean_gives_no_batchmean_warning(recwarn):
    pdt.kl_div(pdt.zeros(2), pdt.full((2,), 0.5), 1)
    assert not [w for w in recwarn if "batchmean" in str(w.message)]


def test_embedding_weight_first(device):
    w = _t(RNG.standard_normal((5, 3)), device).requires_grad_()
    idx = pdt.tensor([[0, 4], [2, 2]], device=device)
    out = pdt.embedding(w, idx)
    np.testing.assert_array_equal(out.detach().cpu().numpy(),
                                  w.detach().cpu().numpy()[np.array([[0, 4], [2, 2]])])
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.cpu().numpy()[:, 0], [1, 0, 2, 0, 1])
    w.grad = None
    pdt.embedding(w, idx, 2).sum().backward()  # row 2 pads: no gradient
    np.testing.assert_array_equal(w.grad.cpu().numpy()[:, 0], [1, 0, 0, 0, 1])
    w.grad = None
    pdt.embedding(w, idx, -1, True).sum().backward()  # -1: no padding (not the last row)
    np.testing.assert_array_equal(w.grad.cpu().numpy()[:, 0], [1, 0, 1, 0, 1])



@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("pad", [None, 2, -1])
def test_embedding_bag_four_results(device, mode, pad):
    """pydevtensor.embedding_bag (it was missing): weight first, mode an int, and
    PyTorch's (output, offset2bag, bag_size, max_indices), checked against a loop over
    the bags in NumPy; the output is nn.functional.embedding_bag's, with its gradient."""
    w = RNG.standard_normal((5, 3))
    idx = np.array([0, 1, 4, 2, 2, 4, 3])
    offsets = np.array([0, 2, 2, 5])
    weight = _t(w, device).requires_grad_()
    out, offset2bag, bag_size, max_indices = pdt.embedding_bag(
        weight, pdt.tensor(idx, device=device), pdt.tensor(offsets, device=device), False,
        mode, padding_idx=pad)
    pad_row = None if pad is None else pad % 5
    ends = list(offsets[1:]) + [len(idx)]
    want_out, want_rows = np.zeros((4, 3)), np.zeros((4, 3), np.int64)
    for b, (s, e) in enumerate(zip(offsets, ends)):
        keep = [int(i) for i in idx[s:e] if i != pad_row]
        if keep:
            rows = w[keep]
            want_out[b] = [rows.sum(0), rows.mean(0), rows.max(0)][mode]
            want_rows[b] = np.array(keep)[rows.argmax(0)]
    np.testing.assert_allclose(out.detach().cpu().numpy(), want_out, rtol=1e-12, atol=1e-15)
    assert offset2bag.dtype == bag_size.dtype == max_indices.dtype == pdt.int64
    assert offset2bag.cpu().tolist() == [0, 0, 2, 2, 2, 3, 3]
    want_size = [sum(1 for i in idx[s:e] if i != pad_row) for s, e in zip(offsets, ends)]
    assert bag_size.cpu().tolist() == want_size
    assert max_indices.cpu().tolist() == (want_rows.tolist() if mode == 2 else want_size)
    functional = F.embedding_bag(pdt.tensor(idx, device=device), weight,
                                 pdt.tensor(offsets, device=device),
                                 mode=["sum", "mean", "max"][mode], padding_idx=pad)
    assert pdt.equal(out, functional)
    out.sum().backward()
    assert weight.grad.shape == (5, 3)
    # a 2-d indices is read flattened with the offsets, as PyTorch's
    two = pdt.embedding_bag(weight, pdt.tensor([[0, 1], [2, 3]], device=device),
                            pdt.tensor([0, 2], device=device), False, mode)[0]
    assert pdt.equal(two, F.embedding_bag(pdt.tensor([[0, 1], [2, 3]], device=device), weight,
                                          mode=["sum", "mean", "max"][mode]))


@pytest.mark.parametrize("bad,exc", [(3, ValueError), (-1, ValueError), ("mean", TypeError),
                                     (True, TypeError), (1.0, TypeError)])
def test_reduction_must_be_0_1_or_2(bad, exc):
    x = pdt.ones(3)
    for call in (lambda: pdt.kl_div(x, x, bad), lambda: pdt.hinge_embedding_loss(x, x, 1.0, bad),
                 lambda: pdt.poisson_nll_loss(x, x, True, False, 1e-8, bad)):
        with pytest.raises(exc, match="reduction"):
            call()
