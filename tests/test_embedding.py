"""nn.Embedding and nn.functional.embedding on every device: lookups equal to NumPy's
fancy indexing exactly (a copy of rows), gradients equal to np.add.at's accumulation of
the output gradient (exact in float64 for the integers used), the padding row's value
and zero gradient, the same N(0, 1) draws on every device, and bad indices."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import raises_index_error, torch_or_skip
from pydevtensor import nn
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
def test_lookup_and_gradient(device, index_dtype):
    w = np.random.default_rng(1).standard_normal((7, 3))
    idx = np.array([[0, 6, 2], [2, 2, 5]])
    emb = nn.Embedding(7, 3, device=device, dtype=pdt.float64)
    with pdt.no_grad():
        emb.weight.copy_(pdt.tensor(w, device=device))
    out = emb(pdt.tensor(idx, dtype=getattr(pdt, index_dtype), device=device))
    assert tuple(out.shape) == (2, 3, 3) and out.device == device
    np.testing.assert_array_equal(_np(out), w[idx])
    g = np.arange(18, dtype=np.float64).reshape(2, 3, 3)
    out.backward(pdt.tensor(g, device=device))
    want = np.zeros((7, 3))
    np.add.at(want, idx, g)  # repeated indices accumulate
    np.testing.assert_array_equal(_np(emb.weight.grad), want)


def test_padding_idx(device):
    for pad, row in ((1, 1), (-2, 3)):  # negative: from the end, as PyTorch
        pdt.manual_seed(0)
        emb = nn.Embedding(5, 2, padding_idx=pad, device=device, dtype=pdt.float64)
        assert emb.padding_idx == row
        np.testing.assert_array_equal(_np(emb.weight)[row], np.zeros(2))
        with pdt.no_grad():  # the value is looked up even when not zero
            emb.weight[row].fill_(7.0)
        idx = np.array([row, 0, row, 4])
        out = emb(pdt.tensor(idx, device=device))
        np.testing.assert_array_equal(_np(out)[[0, 2]], np.full((2, 2), 7.0))
        out.sum().backward()
        want = np.zeros((5, 2))
        want[[0, 4]] = 1.0
        np.testing.assert_array_equal(_np(emb.weight.grad), want)


def test_draws_are_normal_and_the_same_on_every_device(device):
    pdt.manual_seed(42)
    here = _np(nn.Embedding(400, 50, device=device).weight)
    pdt.manual_seed(42)
    cpu = _np(nn.Embedding(400, 50).weight)
    np.testing.assert_array_equal(here, cpu)
    # 20000 draws of N(0, 1): the mean within 5 standard errors, the variance within 5%
    assert abs(cpu.mean()) < 5 / np.sqrt(cpu.size)
    assert abs(cpu.var() - 1) < 0.05
    assert repr(nn.Embedding(10, 3)) == "Embedding(10, 3)"


def test_gradcheck(device):
    w = np.random.default_rng(2).standard_normal((4, 3))
    idx = pdt.tensor([[3, 0], [3, 1]], device=device)
    gradcheck(lambda w: F.embedding(idx, w), [w], device)
    # (with padding_idx the gradient is zero by definition, not the derivative: the
    # padding test above checks it)


def test_bad_indices(device):
    emb = nn.Embedding(5, 2).to(device)
    for bad in (5, -1):
        with raises_index_error(device, rf"embedding: index {bad} is out of bounds for "
                                        rf"dimension 0 with size 5 \(on {device}\)"):
            emb(pdt.tensor([[0, bad]], device=device))  # a GPU: at the next synchronisation
    with pytest.raises(TypeError, match=rf"embedding\(\): the indices must be int64 or int32, "
                                        rf"got pydevtensor.float32 \(on {device}\)"):
        emb(pdt.zeros(2, device=device))
    with pytest.raises(ValueError, match=r"padding_idx must be within num_embeddings = 5 "
                                         r"\(from -5 to 4\), got 5"):
        nn.Embedding(5, 2, padding_idx=5)
    with pytest.raises(ValueError, match=r"Embedding: embedding_dim must be >= 0, got -2"):
        nn.Embedding(5, -2)
    with pytest.raises(ValueError, match=r"weight must be a 2-d Tensor"):
        F.embedding(pdt.tensor([0], device=device), pdt.zeros(3, device=device))


def test_state_dict_and_training(device, tmp_path):
    pdt.manual_seed(3)
    net = nn.Sequential(nn.Embedding(6, 4, padding_idx=0), nn.Flatten(), nn.Linear(8, 1))
    net.to(device)
    x = pdt.tensor([[0, 5], [2, 0]], device=device)
    opt = pdt.optim.SGD(net.parameters(), lr=0.1)
    net(x).sum().backward()
    opt.step()
    np.testing.assert_array_equal(_np(net[0].weight)[0], np.zeros(4))  # padding untouched
    pdt.save(net.state_dict(), tmp_path / "emb.pdt")
    twin = nn.Sequential(nn.Embedding(6, 4, padding_idx=0), nn.Flatten(), nn.Linear(8, 1))
    twin.load_state_dict(pdt.load(tmp_path / "emb.pdt", map_location="cpu"))
    np.testing.assert_array_equal(_np(twin(x.cpu())), _np(net(x)))


def test_against_torch():
    torch = torch_or_skip()
    w = np.random.default_rng(4).standard_normal((6, 3))
    idx = np.array([[1, 2, 2], [5, 0, 1]])
    g = np.random.default_rng(5).standard_normal((2, 3, 3))
    ours = pdt.tensor(w).requires_grad_()
    F.embedding(pdt.tensor(idx), ours, padding_idx=2).backward(pdt.tensor(g))
    theirs = torch.tensor(w, requires_grad=True)
    torch.nn.functional.embedding(torch.tensor(idx), theirs, padding_idx=2).backward(
        torch.tensor(g))
    np.testing.assert_array_equal(_np(ours.grad), theirs.grad.numpy())


def test_indices_on_another_device_are_refused(device):
    """As PyTorch's: no copy of the indices is made for you (the tester found them
    copied to the GPU, counted but not refused by transfer_guard).  On the CPU run the
    catalogue checks the same with logical CPU devices (embedding-indices-on-another-
    device)."""
    if device.type == "cpu":
        pytest.skip("needs a second device: the catalogue covers cpu against cpu:1")
    emb = nn.Embedding(5, 3).to(device)
    with pytest.raises(pdt.DeviceError, match=rf"embedding\(\): Expected all tensors to be on "
                                              rf"the same device, but the indices \(2,\) are "
                                              rf"on cpu and weight \(5, 3\) on {device}"):
        emb(pdt.tensor([1, 2]))


@pytest.mark.parametrize("cls", [nn.Embedding, nn.EmbeddingBag])
def test_reset_parameters_redraws_and_zeros_the_padding_row(device, cls):
    """reset_parameters draws the constructor's N(0, 1) table again (the same values
    after the same seed), in place in the same Parameter, then zeros row padding_idx."""
    pdt.manual_seed(3)
    layer = cls(6, 4, padding_idx=-2, device=device)
    fresh = _np(layer.weight)
    assert layer.padding_idx == 4 and not fresh[4].any() and fresh[:4].all()
    weight = layer.weight
    with pdt.no_grad():
        weight.fill_(5.0)
    pdt.manual_seed(3)
    layer.reset_parameters()
    assert layer.weight is weight and weight.requires_grad
    np.testing.assert_array_equal(_np(weight), fresh)
    frozen = cls.from_pretrained(pdt.ones(3, 2, device=device), padding_idx=0)
    frozen.reset_parameters()
    got = _np(frozen.weight)
    assert not frozen.weight.requires_grad and not got[0].any() and (got[1:] != 1.0).all()


def test_numpy_and_tensor_scalars_as_options(device):
    """padding_idx as a NumPy integer or a 0-d tensor, max_norm and norm_type as NumPy
    floats or 0-d tensors, as PyTorch takes them (each was a TypeError 'must be an int'/
    'must be a number'); the modules keep Python numbers."""
    w = np.array([[3.0, 4.0], [1.0, 0.0], [0.0, 2.0]])
    idx = pdt.tensor([0, 1, 1], device=device)
    for pad in (np.int64(1), pdt.tensor(1), np.int32(-2)):
        weight = pdt.tensor(w, device=device).requires_grad_()
        F.embedding(idx, weight, padding_idx=pad).sum().backward()
        np.testing.assert_array_equal(_np(weight.grad), [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
        bag = F.embedding_bag(idx.reshape(1, 3), weight, mode="sum", padding_idx=pad)
        np.testing.assert_array_equal(_np(bag), [w[0]])
    for max_norm, norm_type in ((np.float32(1.0), np.float64(1.0)), (pdt.tensor(1.0), 1),
                                (1, pdt.tensor(1.0))):
        weight = pdt.tensor(w, device=device)
        F.embedding(pdt.tensor([0], device=device), weight, max_norm=max_norm,
                    norm_type=norm_type)
        np.testing.assert_allclose(_np(weight)[0], w[0] / (7.0 + 1e-7), rtol=1e-12)
    layer = nn.Embedding(3, 2, padding_idx=np.int64(-1), max_norm=np.float32(0.5),
                         norm_type=np.float64(3.0))
    assert (layer.padding_idx, layer.max_norm, layer.norm_type) == (2, 0.5, 3.0)
    assert type(layer.padding_idx) is int and type(layer.max_norm) is float
    assert repr(layer) == "Embedding(3, 2, padding_idx=2, max_norm=0.5, norm_type=3.0)"
    bag = nn.EmbeddingBag(3, 2, max_norm=pdt.tensor(2.0), padding_idx=pdt.tensor(0))
    assert (bag.max_norm, bag.padding_idx) == (2.0, 0)
    with pytest.raises(TypeError, match=r"padding_idx must be an int or None, got float"):
        F.embedding(idx, pdt.tensor(w, device=device), padding_idx=1.0)
    with pytest.raises(TypeError, match=r"max_norm must be a number, got str"):
        nn.Embedding(3, 2, max_norm="1")
