"""split and chunk (PyTorch's): the pieces are views of the input, and under autograd
all the pieces of one call share one node (SplitBackward0, SplitWithSizesBackward0 for
a list of sizes, as PyTorch names them), whose backward concatenates the pieces'
gradients, zeros only for the pieces that got none.  On every device."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip


def _np(t):
    return t.detach().cpu().numpy()


CASES = [  # (shape, call, dim): call(x) -> pieces
    ((7, 3), lambda x: x.split(3), 0),
    ((7, 3), lambda x: pdt.split(x, [2, 0, 5]), 0),
    ((2, 9), lambda x: x.chunk(4, -1), 1),
    ((2, 3, 8), lambda x: x.chunk(4, dim=2), 2),
    ((3, 5, 2), lambda x: pdt.split(x, (1, 4), 1), 1),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_gradient_matches_numpy_with_unused_pieces(device, case):
    shape, call, dim = CASES[case]
    rng = np.random.default_rng(case)
    a = rng.standard_normal(shape)
    x = pdt.tensor(a, device=device, requires_grad=True)
    pieces = call(x * 1.5)
    npieces = np.split(a * 1.5, np.cumsum([p.shape[dim] for p in pieces])[:-1], axis=dim)
    weights = [rng.standard_normal(p.shape) for p in npieces]
    used = list(range(0, len(pieces), 2))  # every other piece gets no gradient
    loss = sum((pieces[i] ** 2 * pdt.tensor(weights[i], device=device)).sum() for i in used)
    loss.backward()
    want = [2 * w * p * 1.5 if i in used else np.zeros_like(p)
            for i, (w, p) in enumerate(zip(weights, npieces))]
    np.testing.assert_allclose(_np(x.grad), np.concatenate(want, axis=dim), rtol=1e-12,
                               atol=1e-15)
    assert x.grad.device == x.device and x.grad.dtype == pdt.float64


def test_every_piece_used_and_retain_graph(device):
    a = np.arange(12.0).reshape(3, 4)
    x = pdt.tensor(a, device=device, requires_grad=True)
    p, q = x.chunk(2, 1)
    loss = (p * 2).sum() + (q * q).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    want = np.concatenate([np.full((3, 2), 2.0), 2 * a[:, 2:]], axis=1)
    np.testing.assert_allclose(_np(x.grad), 2 * want, rtol=1e-12, atol=0)
    g, = pdt.autograd.grad((x.split(1)[1] * 3).sum(), x)
    np.testing.assert_allclose(_np(g), np.where(np.arange(3)[:, None] == 1, 3.0, 0.0) + 0 * a)


def test_one_node_for_all_pieces_with_pytorch_names(device):
    x = pdt.ones(5, 4, device=device, requires_grad=True)
    for pieces, name in ((x.split(2), "SplitBackward0"), (x.chunk(3, 1), "SplitBackward0"),
                         (x.split([1, 4]), "SplitWithSizesBackward0"),
                         (pdt.split(x, (4, 0), 1), "SplitWithSizesBackward0"),
                         (pdt.zeros(0, 2, device=device, requires_grad=True).chunk(3),
                          "SplitWithSizesBackward0")):
        assert {p.grad_fn.name() for p in pieces} == {name}
        assert len({id(p.grad_fn) for p in pieces}) == 1
        assert [p.output_nr for p in pieces] == list(range(len(pieces)))
        assert all(p.requires_grad and not p.is_leaf for p in pieces)
    with pdt.no_grad():
        assert all(p.grad_fn is None for p in x.chunk(2))
    ints = pdt.arange(6, device=device).split(2)  # no grad: plain views
    assert all(p.grad_fn is None for p in ints)


def test_names_match_pytorch(device):
    torch = torch_or_skip()
    for lib in (torch, pdt):
        x = lib.ones(5, 2, requires_grad=True)
        got = [x.split(2)[0].grad_fn.name(), x.split([1, 4])[0].grad_fn.name(),
               x.chunk(2)[1].grad_fn.name(), lib.zeros(0, 2, requires_grad=True)
               .chunk(2)[0].grad_fn.name()]
        if lib is torch:
            want = got
        else:
            assert got == want


def test_pieces_are_views(device):
    x = pdt.arange(12.0, device=device).reshape(3, 4)
    a, b = x.chunk(2, 1)
    c, d = x.split([1, 2])
    x.mul_(-1)  # writes reach every piece
    np.testing.assert_array_equal(_np(a), -np.arange(12.0).reshape(3, 4)[:, :2])
    np.testing.assert_array_equal(_np(d), -np.arange(12.0).reshape(3, 4)[1:])
    b.fill_(7)  # and a piece's writes reach x
    assert (_np(x)[:, 2:] == 7).all()
    y = pdt.ones(3, 4, device=device, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="Output 0 of Split is a view and is being modified "
                                           "inplace"):
        y.chunk(2)[0].add_(1)


def test_zero_dim_and_bad_arguments(device):
    s = pdt.tensor(1.0, device=device)
    with pytest.raises(RuntimeError, match="split expects at least a 1-dimensional"):
        s.split(1)
    with pytest.raises(RuntimeError, match="chunk expects at least a 1-dimensional"):
        s.chunk(1)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no"):
        s.unbind(0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        pdt.ones(2, device=device).split(1, 1)
    with pytest.raises(RuntimeError, match=f"sum exactly to 2.*{device}"):
        pdt.ones(2, device=device).split([1, 2])


def test_moved_module_keeps_the_names():
    from pydevtensor import _ops_split
    assert pdt.split is _ops_split.split and pdt.chunk is _ops_split.chunk
    assert pdt.unbind is _ops_split.unbind
    # the method is split under PyTorch's method keyword (split_size)
    assert pdt.Tensor.split is _ops_split._split_method and pdt.Tensor.chunk is _ops_split.chunk
    assert {"split", "chunk", "unbind"} <= set(pdt.__all__)
