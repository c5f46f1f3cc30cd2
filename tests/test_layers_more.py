"""cdist, Bilinear / F.bilinear, Unflatten, ChannelShuffle / F.channel_shuffle,
CosineSimilarity and PairwiseDistance, on every device.

Values against float64 NumPy (rtol 1e-12; cdist's matrix-product form, which cancels
for near points, atol 1e-12), gradients by gradcheck (test_gradcheck's tolerance) and
against PyTorch 2.15 (rtol 1e-10)."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck

rng = np.random.default_rng(12)
MODES = ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
         "donot_use_mm_for_euclid_dist"]
PS = [0.0, 0.5, 1.0, 2.0, 3.0, math.inf]


def _cdist_ref(a, b, p):
    d = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        return (d != 0).sum(-1).astype(float)
    if math.isinf(p):
        return d.max(-1)
    return (d ** p).sum(-1) ** (1 / p)


@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("shapes", [((4, 3), (5, 3)), ((2, 30, 3), (1, 27, 3)),
                                    ((3, 1, 4, 2), (2, 6, 2))])
def test_cdist_against_numpy(device, p, shapes):
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    want = _cdist_ref(a, b, p)
    for mode in MODES:
        got = pdt.cdist(pdt.tensor(a, device=device), pdt.tensor(b, device=device), p, mode)
        assert got.device == device and tuple(got.shape) == want.shape
        atol = 1e-12 if p == 2 and mode != MODES[2] else 0
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12, atol=atol)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, math.inf])
def test_cdist_gradcheck(device, p):
    a, b = rng.standard_normal((2, 3, 2)), rng.standard_normal((2, 4, 2))
    for mode in MODES:
        gradcheck(lambda x, y: pdt.cdist(x, y, p, mode), [a, b], device)


@pytest.mark.parametrize("p", PS)
def test_cdist_against_torch(device, p):
    torch = torch_or_skip()
    a, b = rng.standard_normal((2, 30, 3)), rng.standard_normal((2, 20, 3))
    b[0, 0] = a[0, 0]  # a zero distance: a zero gradient
    for mode in MODES:
        ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        tout = torch.cdist(ta, tb, p, mode)
        tout.backward(torch.ones_like(tout))
        x = pdt.tensor(a, device=device, requires_grad=True)
        y = pdt.tensor(b, device=device, requires_grad=True)
        out = pdt.cdist(x, y, p, mode)
        out.sum().backward()
        np.testing.assert_allclose(out.detach().cpu().numpy(), tout.detach().numpy(),
                                   rtol=1e-10, atol=1e-12)
        # the matrix-product form at a zero distance: both clamp at 1e-30, where the
        # gradients are rounding noise of the cancellation
        atol = 1e-6 if p == 2 and mode != MODES[2] else 1e-12
        np.testing.assert_allclose(x.grad.cpu().numpy(), ta.grad.numpy(), rtol=1e-10, atol=atol)
        np.testing.assert_allclose(y.grad.cpu().numpy(), tb.grad.numpy(), rtol=1e-10, atol=atol)
        assert np.isfinite(x.grad.cpu().numpy()).all()


def test_cdist_zero_distance_and_dtypes(device):
    a = pdt.tensor([[1.0, 2.0]], dtype=pdt.float64, device=device, requires_grad=True)
    out = pdt.cdist(a, a.detach(), compute_mode=MODES[2])
    out.sum().backward()
    assert out.item() == 0.0 and a.grad.tolist() == [[0.0, 0.0]]
    mixed = pdt.cdist(pdt.ones(2, 2, device=device), pdt.zeros(3, 2, dtype=pdt.float64,
                                                               device=device))
    assert mixed.dtype == pdt.float64
    assert tuple(pdt.cdist(pdt.ones(0, 3, device=device), pdt.ones(4, 3, device=device)).shape) \
        == (0, 4)


def test_cdist_matrix_product_small_and_zero_distances(device):
    # the matrix-product form's square was clamped to 1e-30: every distance below 1e-15
    # came out as 1e-15 (a point and itself too); PyTorch clamps it to 0
    a = pdt.tensor([[1.0, 2.0, 3.0], [0.5, 0.0, 0.0]], dtype=pdt.float64, device=device,
                   requires_grad=True)
    out = pdt.cdist(a, a.detach(), compute_mode=MODES[1])
    out.sum().backward()
    d = math.sqrt(0.25 + 4.0 + 9.0)
    assert out.tolist()[0][0] == 0.0 and out.tolist()[1][1] == 0.0
    np.testing.assert_allclose(out.tolist()[0][1], d, rtol=1e-15)
    # the zero distances add no gradient: (a_i - a_j) / d_ij for the other row only
    want = (np.array([[1.0, 2.0, 3.0], [0.5, 0.0, 0.0]]) - [[0.5, 0.0, 0.0], [1, 2, 3]]) / d
    np.testing.assert_allclose(a.grad.cpu().numpy(), want, rtol=1e-14)
    for dtype in (pdt.float32, pdt.float64):
        tiny = pdt.tensor([[1e-20, 0.0]], dtype=dtype, device=device)
        got = pdt.cdist(tiny, pdt.zeros(1, 2, dtype=dtype, device=device),
                        compute_mode=MODES[1]).item()
        assert got == pytest.approx(1e-20, rel=1e-6)


def test_cdist_bad_arguments():
    with pytest.raises(ValueError, match=r"cdist only supports at least 2-d tensors, x1 has "
                                         r"shape \(3,\) \(on cpu\)"):
        pdt.cdist(pdt.ones(3), pdt.ones(3, 3))
    with pytest.raises(RuntimeError, match=r"x1 and x2 must have the same number of columns: "
                                           r"x1 \(3, 2\) and x2 \(3, 3\)"):
        pdt.cdist(pdt.ones(3, 2), pdt.ones(3, 3))
    for err in (ValueError, RuntimeError):  # RuntimeError as PyTorch's
        with pytest.raises(err, match="cdist only supports non-negative p values, got -1"):
            pdt.cdist(pdt.ones(3, 2), pdt.ones(3, 2), p=-1)
    with pytest.raises(TypeError, match=r"cdist only supports floating-point dtypes, x1 is "
                                        r"pydevtensor.int64"):
        pdt.cdist(pdt.ones(3, 2, dtype=pdt.int64), pdt.ones(3, 2))
    with pytest.raises(ValueError, match="batch dimensions .* do not broadcast"):
        pdt.cdist(pdt.ones(2, 3, 2), pdt.ones(3, 3, 2))
    with pytest.raises(ValueError, match="'x' is not a valid value for compute_mode"):
        pdt.cdist(pdt.ones(3, 2), pdt.ones(3, 2), compute_mode="x")


@pytest.mark.parametrize("lead", [(5,), (2, 3), ()])
def test_bilinear(device, lead):
    x1, x2 = rng.standard_normal(lead + (3,)), rng.standard_normal(lead + (4,))
    w, b = rng.standard_normal((2, 3, 4)), rng.standard_normal(2)
    want = np.einsum("...i,oij,...j->...o", x1, w, x2) + b
    got = F.bilinear(*[pdt.tensor(a, device=device) for a in (x1, x2, w, b)])
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)
    gradcheck(F.bilinear, [x1, x2, w, b], device)
    got = F.bilinear(*[pdt.tensor(a, device=device) for a in (x1, x2, w)])
    np.testing.assert_allclose(got.cpu().numpy(), want - b, rtol=1e-12, atol=1e-14)
    torch = torch_or_skip()
    np.testing.assert_allclose(torch.nn.functional.bilinear(
        *[torch.tensor(a) for a in (x1, x2, w, b)]).numpy(), want, rtol=1e-12)


def test_bilinear_module(device):
    pdt.manual_seed(3)
    layer = nn.Bilinear(4, 3, 2, device=device)
    assert repr(layer) == "Bilinear(in1_features=4, in2_features=3, out_features=2, bias=True)"
    assert tuple(layer.weight.shape) == (2, 4, 3) and layer.weight.device == device
    for p in (layer.weight, layer.bias):
        a = p.detach().cpu().numpy()
        assert np.abs(a).max() <= 0.5 and a.std() > 0.05  # U(-1/sqrt(4), 1/sqrt(4))
    assert list(layer.state_dict()) == ["weight", "bias"]
    x1, x2 = pdt.randn(6, 4, device=device), pdt.randn(6, 3, device=device)
    layer(x1, x2).sum().backward()
    assert layer.weight.grad.shape == layer.weight.shape
    assert layer.bias.grad.tolist() == [6.0, 6.0]
    no_bias = nn.Bilinear(4, 3, 2, bias=False, dtype=pdt.float64)
    assert no_bias.bias is None and no_bias.weight.dtype == pdt.float64
    assert "bias=False" in repr(no_bias)
    torch = torch_or_skip()
    t = torch.nn.Bilinear(4, 3, 2)
    t.load_state_dict({k: torch.tensor(v.detach().cpu().numpy()) for k, v in
                       layer.state_dict().items()})
    np.testing.assert_allclose(layer(x1, x2).detach().cpu().numpy(),
                               t(torch.tensor(x1.cpu().numpy()),
                                 torch.tensor(x2.cpu().numpy())).detach().numpy(), rtol=1e-5)


def test_bilinear_bad_shapes():
    w = pdt.ones(5, 2, 3)
    with pytest.raises(RuntimeError, match=r"bilinear\(\): the inputs' last dimensions must "
                                           r"be the weight's \(2 and 3\); got input1 \(3, 2\), "
                                           r"input2 \(3, 4\)"):
        F.bilinear(pdt.ones(3, 2), pdt.ones(3, 4), w)
    with pytest.raises(ValueError, match=r"batch dimensions do not match"):
        F.bilinear(pdt.ones(3, 2), pdt.ones(2, 3), w)
    with pytest.raises(ValueError, match=r"weight must be three-dimensional"):
        F.bilinear(pdt.ones(3, 2), pdt.ones(3, 3), pdt.ones(2, 3))
    with pytest.raises(ValueError, match=r"bias must be \(5,\)"):
        F.bilinear(pdt.ones(3, 2), pdt.ones(3, 3), w, pdt.ones(4))
    with pytest.raises(ValueError, match="Bilinear: out_features must be >= 0, got -1"):
        nn.Bilinear(2, 3, -1)


@pytest.mark.parametrize("shape,groups", [((2, 6, 3), 3), ((1, 4, 2, 2), 2), ((2, 5, 1), 5),
                                          ((2, 4, 3), 1)])
def test_channel_shuffle(device, shape, groups):
    a = rng.standard_normal(shape)
    n, c = shape[:2]
    want = a.reshape(n, groups, c // groups, *shape[2:]).swapaxes(1, 2).reshape(shape)
    got = F.channel_shuffle(pdt.tensor(a, device=device), groups)
    np.testing.assert_array_equal(got.cpu().numpy(), want)
    np.testing.assert_array_equal(nn.ChannelShuffle(groups)(pdt.tensor(a, device=device))
                                  .cpu().numpy(), want)
    gradcheck(lambda t: F.channel_shuffle(t, groups), [a], device)
    torch = torch_or_skip()
    np.testing.assert_array_equal(torch.nn.functional.channel_shuffle(torch.tensor(a), groups)
                                  .numpy(), want)


def test_channel_shuffle_bad():
    with pytest.raises(RuntimeError, match=r"the number of channels must be divisible by "
                                           r"groups: 5 channels and 2 groups"):
        F.channel_shuffle(pdt.ones(2, 5, 2), 2)
    with pytest.raises(ValueError, match=r"more than 2 dimensions .* got shape \(2, 4\)"):
        F.channel_shuffle(pdt.ones(2, 4), 2)
    with pytest.raises(ValueError, match=r"groups to divide channels in must be positive, "
                                         r"got 0"):
        nn.ChannelShuffle(0)(pdt.ones(2, 4, 2))


def test_unflatten(device):
    x = pdt.arange(60.0, device=device).reshape(3, 20)
    m = nn.Unflatten(1, (4, -1))
    assert repr(m) == "Unflatten(dim=1, unflattened_size=(4, -1))"
    got = m(x)
    assert tuple(got.shape) == (3, 4, 5) and got.device == device
    np.testing.assert_array_equal(got.cpu().numpy(), np.arange(60.0).reshape(3, 4, 5))
    assert tuple(nn.Unflatten(-1, [2, 2, 5])(x).shape) == (3, 2, 2, 5)
    assert tuple(nn.Unflatten(0, (1, 3))(x).shape) == (1, 3, 20)
    assert repr(nn.Unflatten(0, [1, 3])) == "Unflatten(dim=0, unflattened_size=[1, 3])"
    leaf = pdt.ones(2, 6, device=device, requires_grad=True)
    (nn.Unflatten(1, (2, 3))(leaf) * 2).sum().backward()
    assert leaf.grad.tolist() == [[2.0] * 6] * 2
    with pytest.raises(RuntimeError, match=r"Unflatten: provided sizes \[2, 4\] don't multiply "
                                           r"up to the size of dim 1 \(20\)"):
        nn.Unflatten(1, (2, 4))(x)
    with pytest.raises(ValueError, match=r"provided sizes \[-1, -1\]"):
        nn.Unflatten(1, (-1, -1))(x)
    with pytest.raises(TypeError, match="unflattened_size must be tuple of ints, but found "
                                        "element of type float at pos 0"):
        nn.Unflatten(1, (2.0, 5))
    with pytest.raises(TypeError, match="unflattened_size must be a tuple of ints, but found "
                                        "type int"):
        nn.Unflatten(1, 5)
    with pytest.raises(IndexError, match="dim 2 is out of range"):
        nn.Unflatten(2, (1,))(x)
    torch = torch_or_skip()
    assert repr(torch.nn.Unflatten(1, (4, -1))) == repr(m)


def test_distance_modules(device):
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    x1, x2 = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
    cos = nn.CosineSimilarity(dim=0, eps=1e-6)
    assert repr(cos) == "CosineSimilarity()"
    np.testing.assert_array_equal(cos(x1, x2).cpu().numpy(),
                                  F.cosine_similarity(x1, x2, 0, 1e-6).cpu().numpy())
    np.testing.assert_allclose(nn.CosineSimilarity()(x1, x2).cpu().numpy(),
                               (a * b).sum(1) / np.linalg.norm(a, axis=1) /
                               np.linalg.norm(b, axis=1), rtol=1e-12)
    dist = nn.PairwiseDistance(p=1.0, keepdim=True)
    assert repr(dist) == "PairwiseDistance()" and dist.norm == 1.0
    np.testing.assert_allclose(dist(x1, x2).cpu().numpy(),
                               np.abs(a - b + 1e-6).sum(1, keepdims=True), rtol=1e-12)
    torch = torch_or_skip()
    t = torch.nn.PairwiseDistance(p=1.0, keepdim=True)(torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(dist(x1, x2).cpu().numpy(), t.numpy(), rtol=1e-12)
