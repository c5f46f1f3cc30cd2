"""nn.EmbeddingBag and F.embedding_bag (nn/embedding_bag.py), as PyTorch's, on every
device, against a NumPy loop over the bags; gradients against central differences."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.nn import functional as F
from conftest import raises_index_error
from test_gradcheck import gradcheck


def bags_ref(idx, w, starts, mode, psw=None, pad=None):
    out = np.zeros((len(starts), w.shape[1]))
    ends = list(starts[1:]) + [len(idx)]
    for b, (s, e) in enumerate(zip(starts, ends)):
        keep = [k for k in range(s, e) if idx[k] != pad]
        if not keep:
            continue
        rows = w[idx[keep]] * (psw[keep][:, None] if psw is not None else 1.0)
        out[b] = rows.sum(0) if mode == "sum" else rows.mean(0) if mode == "mean" else \
            rows.max(0)
    return out


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("pad", [None, 3])
def test_one_d_input_with_offsets(device, mode, pad):
    rng = np.random.default_rng(1)
    w = rng.standard_normal((7, 4))
    idx = rng.integers(0, 7, 12)
    starts = np.array([0, 0, 3, 4, 9, 12])  # empty bags included (first and last)
    got = F.embedding_bag(pdt.tensor(idx, device=device), pdt.tensor(w, device=device),
                          pdt.tensor(starts, device=device), mode=mode, padding_idx=pad)
    np.testing.assert_allclose(got.cpu().numpy(), bags_ref(idx, w, starts, mode, pad=pad),
                               rtol=1e-12, atol=1e-14)
    last = F.embedding_bag(pdt.tensor(idx, device=device), pdt.tensor(w, device=device),
                           pdt.tensor(np.append(starts, 12), device=device), mode=mode,
                           include_last_offset=True, padding_idx=pad)
    assert pdt.equal(last, got)


def test_two_d_input_per_sample_weights_and_gradients(device):
    rng = np.random.default_rng(2)
    w = rng.standard_normal((6, 3))
    idx = rng.integers(0, 6, (4, 5))
    psw = rng.uniform(0.5, 2.0, (4, 5))
    got = F.embedding_bag(pdt.tensor(idx, device=device), pdt.tensor(w, device=device),
                          mode="sum", per_sample_weights=pdt.tensor(psw, device=device))
    ref = bags_ref(idx.ravel(), w, np.arange(0, 20, 5), "sum", psw.ravel())
    np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-12)
    i = pdt.tensor(idx, device=device)
    for mode in ("sum", "mean", "max"):
        gradcheck(lambda t: F.embedding_bag(i, t, mode=mode), [w], device)
    gradcheck(lambda t, s: F.embedding_bag(i, t, mode="sum", per_sample_weights=s),
              [w, psw], device)


def test_module(device):
    pdt.manual_seed(0)
    bag = nn.EmbeddingBag(10, 3, mode="max", padding_idx=0).to(device)
    assert repr(bag) == "EmbeddingBag(10, 3, mode='max', padding_idx=0)"
    assert bag.weight[0].abs().sum().item() == 0.0
    x = pdt.tensor([[1, 2, 0], [0, 0, 0]], device=device)
    out = bag(x)
    assert out.shape == (2, 3) and out[1].abs().sum().item() == 0.0
    out.sum().backward()
    assert bag.weight.grad.shape == (10, 3)
    frozen = nn.EmbeddingBag.from_pretrained(pdt.eye(3, device=device), mode="sum")
    assert not frozen.weight.requires_grad
    assert frozen(pdt.tensor([[0, 2]], device=device)).cpu().tolist() == [[1.0, 0.0, 1.0]]
    assert nn.modules.sparse.EmbeddingBag is nn.EmbeddingBag


def test_errors():
    w = pdt.ones(4, 2)
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(pdt.tensor([[0]]), w, mode="median")
    with pytest.raises(ValueError, match="offsets has to be None"):
        F.embedding_bag(pdt.tensor([[0]]), w, pdt.tensor([0]))
    with pytest.raises(NotImplementedError,  # as PyTorch's
                       match="per_sample_weights is only supported for mode='sum'"):
        F.embedding_bag(pdt.tensor([[0]]), w, per_sample_weights=pdt.ones(1, 1))
    with pytest.raises(TypeError, match="int64 or int32"):
        F.embedding_bag(pdt.tensor([0.0]), w, pdt.tensor([0]))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_no_indices_gives_zeros_on_the_graph(device, mode):
    """No index at all (a 1-d input of length 0, or 0 bags of a 2-d input): zeros that
    still depend on weight, so backward gives weight a zero gradient (mode 'max' gave
    a result off the graph, and backward raised)."""
    for idx, offsets, bags in (([], [0, 0], 2), (np.zeros((0, 3), np.int64), None, 0)):
        weight = pdt.ones(4, 3, device=device).requires_grad_()
        got = F.embedding_bag(pdt.tensor(idx, dtype=pdt.int64, device=device), weight,
                              None if offsets is None else pdt.tensor(offsets, device=device),
                              mode=mode)
        assert got.shape == (bags, 3) and got.requires_grad
        assert not got.detach().cpu().numpy().any()
        got.sum().backward()
        np.testing.assert_array_equal(weight.grad.cpu().numpy(), np.zeros((4, 3)))


def test_max_mode_refuses_scale_grad_by_freq():
    with pytest.raises(ValueError, match="max mode does not support scaling the gradient"):
        F.embedding_bag(pdt.tensor([[1, 2]]), pdt.ones(5, 2), mode="max",
                        scale_grad_by_freq=True)
    # the other modes take it
    assert F.embedding_bag(pdt.tensor([[1, 2]]), pdt.ones(5, 2), mode="sum",
                           scale_grad_by_freq=True).tolist() == [[2.0, 2.0]]


def max_grad_ref(idx, w, starts, g, pad=None):
    """The weight gradient of mode 'max': each (bag, column) sends its whole gradient to
    the first index in bag order whose row holds the bag's maximum in that column."""
    grad = np.zeros_like(w)
    ends = list(starts[1:]) + [len(idx)]
    for b, (s, e) in enumerate(zip(starts, ends)):
        keep = [k for k in range(s, e) if idx[k] != pad]
        for c in range(w.shape[1]):
            if keep:
                vals = w[idx[keep], c]
                grad[idx[keep[int(np.argmax(vals == vals.max()))]], c] += g[b, c]
    return grad


@pytest.mark.parametrize("pad", [None, 2])
def test_max_gradient_goes_to_one_row_at_ties(device, pad):
    """Ties (zeros among them, the maximum exactly 0.0 in some bags), repeated indices
    and empty bags: the values are the bags' maxima (0 for an empty bag) and the
    gradient goes to one row per bag and column, as PyTorch's; none is split or lost."""
    w = np.array([[1.0, 0.0, 5.0], [1.0, 0.0, 2.0], [0.5, 0.0, 5.0], [1.0, -1.0, 5.0],
                  [-1.0, -2.0, -3.0], [0.0, -0.0, 0.0]])
    idx = np.array([0, 1, 2, 3, 1, 0, 4, 4, 5, 1, 4, 2, 0])
    starts = np.array([0, 4, 6, 6, 8, 11, 13])
    g = np.arange(21.0).reshape(7, 3) + 1.0
    weight = pdt.tensor(w, device=device).requires_grad_()
    got = F.embedding_bag(pdt.tensor(idx, device=device), weight,
                          pdt.tensor(starts, device=device), mode="max", padding_idx=pad)
    np.testing.assert_array_equal(got.detach().cpu().numpy(),
                                  bags_ref(idx, w, starts, "max", pad=pad))
    got.backward(pdt.tensor(g, device=device))
    np.testing.assert_array_equal(weight.grad.cpu().numpy(),
                                  max_grad_ref(idx, w, starts, g, pad))
    # a 2-d input, and the module
    bag = nn.EmbeddingBag.from_pretrained(pdt.tensor(w, device=device), freeze=False,
                                          mode="max")
    two = np.array([[3, 1, 0], [1, 0, 3], [5, 5, 4]])
    bag(pdt.tensor(two, device=device)).backward(pdt.ones(3, 3, device=device))
    np.testing.assert_array_equal(bag.weight.grad.cpu().numpy(),
                                  max_grad_ref(two.ravel(), w, np.array([0, 3, 6]),
                                               np.ones((3, 3))))


def test_given_weight_is_checked_and_shared(device):
    """_weight must be (num_embeddings, embedding_dim), as Embedding's (it was taken
    whatever its shape, the layer then reporting sizes its table did not have)."""
    with pytest.raises(ValueError, match=r"EmbeddingBag: the shape of weight \(4, 2\) does "
                                         r"not match num_embeddings and embedding_dim \(3, 2\)"):
        nn.EmbeddingBag(3, 2, _weight=pdt.ones(4, 2, device=device))
    with pytest.raises(TypeError, match=r"EmbeddingBag: _weight must be a Tensor, got list"):
        nn.EmbeddingBag(1, 2, _weight=[[1.0, 2.0]])
    table = pdt.ones(3, 2, device=device)
    bag = nn.EmbeddingBag(3, 2, mode="sum", _weight=table)
    table[1] = 4.0  # the same storage, as PyTorch's
    assert bag(pdt.tensor([[1, 2]], device=device)).cpu().tolist() == [[5.0, 5.0]]


def test_dtypes_refused_as_pytorch(device):
    """Wrong dtypes raise DTypeError (a TypeError and PyTorch's RuntimeError): float
    indices or offsets (a plain TypeError before), an integer weight (its sums and means
    were computed) and per_sample_weights of another dtype than weight (cast before, so a
    float64 weight lost its precision in float32); a padding_idx out of range is an
    InvalidArgumentError (a ValueError and PyTorch's RuntimeError)."""
    w = pdt.ones(4, 2, device=device)
    i = pdt.tensor([0, 1, 2], device=device)
    o = pdt.tensor([0, 2], device=device)
    with pytest.raises(RuntimeError, match=r"input must be an int64 or int32 Tensor, got "
                                           r"pydevtensor.float32"):
        F.embedding_bag(i.float(), w, o)
    with pytest.raises(pdt.DTypeError, match="offsets must be an int64 or int32 Tensor"):
        F.embedding_bag(i, w, o.double())
    for mode in ("sum", "mean", "max"):
        with pytest.raises(pdt.DTypeError, match=r"weight must be floating point .* got "
                                                 r"pydevtensor.int64"):
            F.embedding_bag(i, pdt.ones(4, 2, dtype=pdt.int64, device=device), o, mode=mode)
    with pytest.raises(pdt.DTypeError, match=r"per_sample_weights must have weight's dtype "
                                             r"pydevtensor.float32, got pydevtensor.float64"):
        F.embedding_bag(i, w, o, mode="sum", per_sample_weights=pdt.ones(3, dtype=pdt.float64,
                                                                         device=device))
    with pytest.raises(TypeError, match="per_sample_weights must be a Tensor or None, got list"):
        F.embedding_bag(i, w, o, mode="sum", per_sample_weights=[1.0, 1.0, 1.0])
    for bad in (4, -5):
        with pytest.raises(RuntimeError, match=f"padding_idx must be within num_embeddings = 4 "
                                               rf"\(from -4 to 3\), got {bad}"):
            F.embedding_bag(i, w, o, padding_idx=bad)


def test_empty_offsets(device):
    """Empty offsets: no bag.  With no index that is a (0, dim) result; with indices, or
    with include_last_offset (which needs the final offset), a clear refusal (it raised
    'index_add: index -1 is out of bounds' from inside; PyTorch's CPU kernel crashes)."""
    w = pdt.ones(4, 2, device=device).requires_grad_()
    none = pdt.tensor([], dtype=pdt.int64, device=device)
    for mode in ("sum", "mean", "max"):
        got = F.embedding_bag(none, w, none, mode=mode)
        assert got.shape == (0, 2)
        got.sum().backward()
    with pytest.raises(ValueError, match=r"offsets is empty \(no bag\) but the input holds 3 "
                                         r"indices"):
        F.embedding_bag(pdt.tensor([0, 1, 2], device=device), w, none)
    with pytest.raises(ValueError, match="with include_last_offset, offsets must hold at least "
                                         "the input's length 3, got an empty offsets"):
        F.embedding_bag(pdt.tensor([0, 1, 2], device=device), w, none,
                        include_last_offset=True)


def test_from_pretrained_names_a_non_tensor():
    """A non-Tensor table is a TypeError, as Embedding.from_pretrained's (it was a
    ValueError saying 'must be a 2-d Tensor'); a 1-d one names its shape."""
    with pytest.raises(TypeError, match=r"embeddings must be a Tensor, got list"):
        nn.EmbeddingBag.from_pretrained([[1.0, 2.0]])
    with pytest.raises(ValueError, match=r"expected to be 2-dimensional, got shape \(2,\)"):
        nn.EmbeddingBag.from_pretrained(pdt.ones(2))


@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
def test_index_out_of_range_names_embedding_bag(device, index_dtype):
    """An index outside [0, num_embeddings): an IndexError naming embedding_bag (it said
    'embedding', the lookup inside), the index, the size and the device, on every device
    (a GPU's at the next synchronisation), for a 2-d input and a 1-d one with offsets."""
    w = pdt.ones(5, 2, device=device)
    dtype = getattr(pdt, index_dtype)
    for bad in (5, -1):
        with raises_index_error(device, rf"embedding_bag: index {bad} is out of bounds for "
                                        rf"dimension 0 with size 5 \(on {device}\)"):
            F.embedding_bag(pdt.tensor([[0, bad]], dtype=dtype, device=device), w)
        with raises_index_error(device, rf"embedding_bag: index {bad} is out of bounds"):
            F.embedding_bag(pdt.tensor([0, 1, bad], dtype=dtype, device=device), w,
                            pdt.tensor([0, 1], dtype=dtype, device=device), mode="max")
