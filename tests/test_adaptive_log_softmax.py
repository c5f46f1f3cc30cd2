"""nn.AdaptiveLogSoftmaxWithLoss (nn/adaptive.py): forward's (output, loss), log_prob and
predict against a NumPy float64 adaptive softmax written here, the gradients against
central finite differences of that reference, and PyTorch's refusals."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn

IN, N_CLASSES, CUTOFFS = 6, 11, [3, 7]


def _log_softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def _np_log_prob(w, x):
    """The full (N, n_classes) log-probabilities from the weights w (numpy arrays)."""
    head = x @ w["head.weight"].T + w.get("head.bias", 0.0)
    head_lp = _log_softmax(head)
    bounds = CUTOFFS + [N_CLASSES]
    cols = [head_lp[:, :bounds[0]]]
    for i in range(len(bounds) - 1):
        h = x @ w[f"tail.{i}.0.weight"].T @ w[f"tail.{i}.1.weight"].T
        cols.append(_log_softmax(h) + head_lp[:, bounds[0] + i:bounds[0] + i + 1])
    return np.concatenate(cols, axis=1)


def _layer(device, head_bias):
    pdt.manual_seed(4)
    asm = nn.AdaptiveLogSoftmaxWithLoss(IN, N_CLASSES, CUTOFFS, div_value=2.0,
                                        head_bias=head_bias, dtype=pdt.float64, device=device)
    return asm, {k: v.detach().cpu().numpy() for k, v in asm.state_dict().items()}


def test_structure_follows_cutoffs_and_div_value():
    asm = nn.AdaptiveLogSoftmaxWithLoss(16, 20, (5, 10, 15), div_value=2.0)
    assert asm.cutoffs == [5, 10, 15, 20] and asm.shortlist_size == 5
    assert asm.n_clusters == 3 and asm.head_size == 8
    assert asm.head.weight.shape == (8, 16) and asm.head.bias is None
    # cluster i: in_features // div_value ** (i + 1) hidden units, then its size
    assert [tuple(t[0].weight.shape) for t in asm.tail] == [(8, 16), (4, 16), (2, 16)]
    assert [tuple(t[1].weight.shape) for t in asm.tail] == [(5, 8), (5, 4), (5, 2)]
    assert nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5], head_bias=True).head.bias.shape == (6,)
    assert pdt.nn.modules.adaptive.AdaptiveLogSoftmaxWithLoss is nn.AdaptiveLogSoftmaxWithLoss


def test_reset_parameters_draws_every_linear_again():
    asm = nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10], head_bias=True)
    before = {k: v.clone() for k, v in asm.state_dict().items()}
    asm.reset_parameters()
    for name, p in asm.named_parameters():  # U(-1/sqrt(fan_in), 1/sqrt(fan_in)), redrawn
        assert not pdt.equal(p, before[name]), name
        assert p.abs().max().item() <= (p.shape[-1] ** -0.5 if p.ndim == 2 else 0.25), name
        assert p.requires_grad and p.grad_fn is None


@pytest.mark.parametrize("head_bias", [False, True])
def test_forward_log_prob_and_predict_against_numpy(device, head_bias):
    asm, w = _layer(device, head_bias)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((9, IN))
    y = np.array([0, 2, 3, 6, 7, 10, 1, 8, 5])  # every cluster, both ends of each
    ref = _np_log_prob(w, x)
    out = asm(pdt.tensor(x, device=device), pdt.tensor(y, device=device))
    assert type(out).__name__ == "_ASMoutput" and out._fields == ("output", "loss")
    want = ref[np.arange(9), y]
    np.testing.assert_allclose(out.output.detach().cpu().numpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.loss.item(), -want.mean(), rtol=1e-12)
    lp = asm.log_prob(pdt.tensor(x, device=device)).detach().cpu().numpy()
    np.testing.assert_allclose(lp, ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.exp(lp).sum(axis=1), 1.0, rtol=1e-12)
    # predict: scaled inputs make some rows' head pick a cluster, some the shortlist
    for scale in (1.0, 8.0, 40.0):
        xs = pdt.tensor(x * scale, device=device)
        assert asm.predict(xs).cpu().tolist() == _np_log_prob(w, x * scale).argmax(1).tolist()
    # one example with a 0-d target
    one = asm(pdt.tensor(x[3], device=device), pdt.tensor(6, device=device))
    assert one.output.shape == () and one.loss.shape == ()
    np.testing.assert_allclose(one.output.item(), ref[3, 6], rtol=1e-12)


def test_predict_where_the_head_picks_clusters_for_all_or_some_rows(device):
    asm, _ = _layer(device, True)
    with pdt.no_grad():  # the head's bias decides: every row to cluster 0, then none
        asm.head.bias.copy_(pdt.tensor([0, 0, 0, 50.0, 0], device=device))
    x = np.random.default_rng(1).standard_normal((5, IN))
    w = {k: v.cpu().numpy() for k, v in asm.state_dict().items()}
    got = asm.predict(pdt.tensor(x, device=device)).cpu().numpy()
    assert got.tolist() == _np_log_prob(w, x).argmax(1).tolist()
    assert (got >= 3).all()
    with pdt.no_grad():  # row 0 alone to a cluster
        asm.head.bias.zero_()
        asm.head.weight.zero_()
        asm.head.weight[3, 0] = 50.0
    x[:, 0] = [1.0, -1.0, -1.0, -1.0, -1.0]
    w = {k: v.cpu().numpy() for k, v in asm.state_dict().items()}
    got = asm.predict(pdt.tensor(x, device=device)).cpu().numpy()
    assert got.tolist() == _np_log_prob(w, x).argmax(1).tolist()
    assert got[0] >= 3 and (got[1:] < 3).all()


def test_gradients_against_finite_differences():
    asm, w = _layer("cpu", True)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, IN))
    y = np.array([1, 4, 9, 3, 7])
    xt = pdt.tensor(x, requires_grad=True)
    asm(xt, pdt.tensor(y)).loss.backward()

    def loss(w, x):
        return -_np_log_prob(w, x)[np.arange(5), y].mean()

    h = 1e-6
    fd_x = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[idx] = h
        fd_x[idx] = (loss(w, x + d) - loss(w, x - d)) / (2 * h)
    np.testing.assert_allclose(xt.grad.numpy(), fd_x, rtol=1e-6, atol=1e-8)
    params = dict(asm.named_parameters())
    for name in ("head.weight", "head.bias", "tail.0.0.weight", "tail.1.1.weight"):
        fd = np.zeros_like(w[name])
        for idx in np.ndindex(fd.shape):
            wp = {k: v.copy() for k, v in w.items()}
            wm = {k: v.copy() for k, v in w.items()}
            wp[name][idx] += h
            wm[name][idx] -= h
            fd[idx] = (loss(wp, x) - loss(wm, x)) / (2 * h)
        np.testing.assert_allclose(params[name].grad.numpy(), fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("cutoffs", [[0, 3], [3, 3], [5, 3], [3, 11], [3, 7.5]])
def test_bad_cutoffs_raise_torchs_error(cutoffs):
    with pytest.raises(ValueError, match=r"cutoffs should be a sequence of unique, positive "
                       r"integers sorted in an increasing order, where each value is between "
                       r"1 and n_classes-1"):
        nn.AdaptiveLogSoftmaxWithLoss(IN, N_CLASSES, cutoffs)
    with pytest.raises(ValueError, match="cutoffs should be a sequence of length larger than 0"):
        nn.AdaptiveLogSoftmaxWithLoss(IN, N_CLASSES, [])


def test_bad_inputs_and_targets(device):
    asm, _ = _layer(device, False)
    x = pdt.ones(3, IN, dtype=pdt.float64, device=device)

    def t(v):
        return pdt.tensor(v, device=device)

    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 10\], but values "
                       r"in range \[-1, 11\] were found"):
        asm(x, t([-1, 2, 11]))
    with pytest.raises(RuntimeError, match="same size in the batch dimension"):
        asm(x, t([0, 1]))
    with pytest.raises(RuntimeError, match="multi-target not supported"):
        asm(x, t([[0], [1], [2]]))
    with pytest.raises(RuntimeError, match=r"0D target tensor expects 1D input tensors, but "
                       r"found inputs with size .*\[3, 6\]"):
        asm(x, t(0))
    with pytest.raises(RuntimeError, match=r"1D target tensor expects 2D input tensors"):
        asm(x.reshape(1, 3, IN), t([0]))
    with pytest.raises(IndexError, match=r"log_prob\(\): input must be 2-D"):
        asm.log_prob(x[0])
    with pytest.raises(TypeError, match="input must be a Tensor, got list"):
        asm([[0.0] * IN], t([0]))
