"""tensor_split, hsplit, vsplit, dsplit (views), dstack, column_stack, row_stack and
rot90 (copies) from pydevtensor/_ops_split_stack.py: against NumPy in float64
(np.array_split, np.hsplit, ..., np.rot90; exact) and PyTorch when it imports; the
pieces share storage with the input; gradients by test_gradcheck's helper; on every
device."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from test_gradcheck import gradcheck

A = np.arange(2 * 6 * 4, dtype=np.float64).reshape(2, 6, 4)


def _t(a, device):
    return pdt.from_numpy(np.array(a)).to(device)  # a copy: tests write into it


def _np(t):
    return t.detach().cpu().numpy()


# (name, call on the module m (pydevtensor or torch), NumPy reference)
SPLITS = [
    ("sections", lambda m, x: m.tensor_split(x, 4, 1), lambda a: np.array_split(a, 4, 1)),
    ("sections-more-than-size", lambda m, x: x.tensor_split(5, dim=0),
     lambda a: np.array_split(a, 5, 0)),
    ("indices", lambda m, x: m.tensor_split(x, [1, 5, 2], dim=1),
     lambda a: np.split(a, [1, 5, 2], 1)),
    ("indices-past-end", lambda m, x: m.tensor_split(x, (3, 9), -1),
     lambda a: np.split(a, [3, 9], -1)),
    ("hsplit", lambda m, x: m.hsplit(x, 3), lambda a: np.hsplit(a, 3)),
    ("hsplit-indices", lambda m, x: x.hsplit([2]), lambda a: np.hsplit(a, [2])),
    ("hsplit-1d", lambda m, x: m.hsplit(x[0, 0], 2), lambda a: np.hsplit(a[0, 0], 2)),
    ("vsplit", lambda m, x: m.vsplit(x, 2), lambda a: np.vsplit(a, 2)),
    ("dsplit", lambda m, x: x.dsplit([1, 3]), lambda a: np.dsplit(a, [1, 3])),
]


@pytest.mark.parametrize("name,call,ref", SPLITS, ids=[c[0] for c in SPLITS])
def test_splits(device, name, call, ref):
    x = _t(A, device)
    pieces = call(pdt, x)
    expect = ref(A)
    assert isinstance(pieces, tuple) and len(pieces) == len(expect)
    for p, e in zip(pieces, expect):
        assert p.device == x.device and tuple(p.shape) == e.shape
        np.testing.assert_array_equal(_np(p), e)
    big = max(pieces, key=lambda p: p.numel())
    big.fill_(-1.0)  # views: the write shows in x
    assert (_np(x) == -1.0).sum() == big.numel()


@pytest.mark.parametrize("name,call,ref", SPLITS, ids=[c[0] for c in SPLITS])
def test_splits_against_torch(name, call, ref):
    torch = torch_or_skip()
    got = call(pdt, pdt.from_numpy(A.copy()))
    want = call(torch, torch.from_numpy(A.copy()))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape) and tuple(g.stride()) == tuple(w.stride())
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_split_gradients(device):
    gradcheck(lambda x: pdt.tensor_split(x, 3, 1)[1] * 2.0, [A[:, :5].copy()], device)
    gradcheck(lambda x: pdt.cat(pdt.hsplit(x, [1])[::-1], 1), [A[0].copy()], device,
              noncontig=True)


def test_tensor_split_tensor_argument(device):
    x = _t(A, device)
    got = pdt.tensor_split(x, pdt.tensor(2), 1)
    assert [tuple(p.shape) for p in got] == [(2, 3, 4), (2, 3, 4)]
    got = pdt.tensor_split(x, pdt.tensor([1, 2]), 1)
    assert [p.shape[1] for p in got] == [1, 1, 4]


ARRS = [np.arange(3.0), np.arange(6.0).reshape(3, 2), np.array(7.0)]


@pytest.mark.parametrize("name", ["dstack", "column_stack", "row_stack"])
def test_stacks(device, name):
    np_fn = {"dstack": np.dstack, "column_stack": np.column_stack, "row_stack": np.vstack}[name]
    fn = getattr(pdt, name)
    inputs = {"dstack": [ARRS[0], ARRS[0] * 2], "column_stack": [ARRS[0], ARRS[1]],
              "row_stack": [ARRS[0], ARRS[0] + 1]}[name]
    xs = [_t(a, device) for a in inputs]
    out = fn(xs)
    np.testing.assert_array_equal(_np(out), np_fn(inputs))
    assert out.device == xs[0].device and out.dtype == pdt.float64
    out.fill_(-1.0)  # a copy
    np.testing.assert_array_equal(_np(xs[0]), inputs[0])
    gradcheck(lambda *ts: fn(list(ts)), inputs, device)
    torch = None
    try:
        import torch
    except Exception:  # noqa: BLE001 - the NumPy reference alone then
        pass
    if torch is not None:
        want = getattr(torch, name)([torch.from_numpy(a) for a in inputs])
        np.testing.assert_array_equal(_np(fn(xs)), want.numpy())


def test_column_stack_0d(device):
    out = pdt.column_stack([_t(np.array(7.0), device), _t(np.array(8.0), device)])
    np.testing.assert_array_equal(_np(out), np.column_stack([7.0, 8.0]))


@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 3, 4, 6])
@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (2, 0), (-1, 1)])
def test_rot90(device, k, dims):
    x = _t(A, device)
    out = pdt.rot90(x, k, dims)
    np.testing.assert_array_equal(_np(out), np.rot90(A, k, dims))
    out2 = x.rot90(k, list(dims))
    out2.fill_(-1.0)  # a copy, as PyTorch's
    np.testing.assert_array_equal(_np(x), A)


def test_rot90_against_torch_and_gradients(device):
    gradcheck(lambda x: pdt.rot90(x, 1, (0, 1)), [A[0].copy()], device, noncontig=True)
    gradcheck(lambda x: x.rot90(3, (1, 0)), [A[0].copy()], device)
    torch = torch_or_skip()
    for k in (1, 2, 3):
        want = torch.rot90(torch.from_numpy(A), k, [0, 2])
        got = pdt.rot90(pdt.from_numpy(A.copy()), k, [0, 2])
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_errors(device):
    x = _t(A, device)
    with pytest.raises(RuntimeError, match=rf"sections must be larger than 0, got 0 .*"
                                           rf"\(2, 6, 4\) on {device}"):
        pdt.tensor_split(x, 0)
    with pytest.raises(RuntimeError, match=r"at least a 1-dimensional tensor"):
        pdt.tensor_split(pdt.tensor(1.0, device=device), 2)
    with pytest.raises(RuntimeError, match=r"size of the dimension 6 is not divisible by "
                                           r"the split_size 4"):
        pdt.hsplit(x, 4)
    with pytest.raises(RuntimeError, match=r"vsplit requires a tensor with at least 2"):
        pdt.vsplit(x[0, 0], 2)
    with pytest.raises(RuntimeError, match=r"dsplit requires a tensor with at least 3"):
        pdt.dsplit(x[0], 2)
    with pytest.raises(RuntimeError, match=r"rotation dims to be different"):
        pdt.rot90(x, 1, (0, 0))
    with pytest.raises(RuntimeError, match=r"total rotation dims == 2, but got dims = 3"):
        pdt.rot90(x, 1, (0, 1, 2))
    with pytest.raises(RuntimeError, match=r"total dims >= 2, but got total dims = 1"):
        pdt.rot90(x[0, 0])
    with pytest.raises(IndexError, match=r"Dimension out of range"):
        pdt.rot90(x, 1, (0, 5))
    with pytest.raises(TypeError, match=r"dstack\(\): expected Tensors, got int at position 1"):
        pdt.dstack([x, 1])


def test_tensor_split_keywords(device):
    x = _t(np.arange(6.0), device)
    assert [p.numel() for p in pdt.tensor_split(x, sections=4)] == [2, 2, 1, 1]
    assert [p.numel() for p in x.tensor_split(indices=[1])] == [1, 5]
    with pytest.raises(TypeError, match=r"expected one of indices_or_sections, sections= and "
                                        r"indices=, got 2"):
        pdt.tensor_split(x, 2, sections=2)


def test_edges_a_shape_tester_found(device):
    """tensordot over dims of size 0 gives zeros (a reshape to -1 could not tell the free
    size) and refuses a dim listed twice; hstack makes 0-d tensors 1-d first; cat and
    stack resize an empty out, as PyTorch's; x.split takes PyTorch's method keyword
    split_size and tensor_split its tensor_indices_or_sections."""
    z = pdt.tensordot(pdt.zeros(2, 0, device=device), pdt.zeros(0, 3, device=device), 1)
    np.testing.assert_array_equal(z.cpu().numpy(), np.zeros((2, 3)))
    assert float(pdt.tensordot(pdt.zeros(0, device=device), pdt.zeros(0, device=device), 1)) \
        == 0.0
    x = pdt.ones(2, 2, device=device)
    with pytest.raises(RuntimeError, match=r"dim \[0, 0\] lists a dimension more than once"):
        pdt.tensordot(x, x, ([0, 0], [0, 0]))
    h = pdt.hstack([pdt.tensor(5.0, device=device), pdt.tensor([1.0, 2.0], device=device)])
    np.testing.assert_array_equal(h.cpu().numpy(), np.hstack([5.0, [1.0, 2.0]]))
    o = pdt.empty(0, device=device)
    assert pdt.cat([pdt.ones(2, 2, device=device), pdt.zeros(1, 2, device=device)], out=o) is o
    np.testing.assert_array_equal(o.cpu().numpy(), [[1, 1], [1, 1], [0, 0]])
    s = pdt.empty(0, device=device)
    pdt.stack([pdt.ones(2, device=device)] * 3, out=s)
    assert tuple(s.shape) == (3, 2)
    with pytest.raises(RuntimeError, match=r"out has shape \(3,\), expected \(2,\)"):
        pdt.cat([pdt.ones(2, device=device)], out=pdt.empty(3, device=device))
    a = pdt.arange(24, device=device).reshape(2, 3, 4)
    assert [tuple(t.shape) for t in a.split(split_size=3, dim=2)] == [(2, 3, 3), (2, 3, 1)]
    parts = pdt.tensor_split(a, tensor_indices_or_sections=pdt.tensor([1]), dim=1)
    assert [tuple(t.shape) for t in parts] == [(2, 1, 4), (2, 2, 4)]


def test_np_splits_take_sections_and_indices_keywords(device):
    # PyTorch's two overloads by keyword: hsplit(x, sections=2), hsplit(x, indices=[1])
    a = _t(A, device)
    for op, npop in ((pdt.hsplit, np.hsplit), (pdt.vsplit, np.vsplit),
                     (pdt.dsplit, np.dsplit)):
        for kw in ({"sections": 2}, {"indices": [1, 3]}):
            got = op(a, **kw)
            want = npop(A, next(iter(kw.values())))
            assert len(got) == len(want)
            for g, w in zip(got, want):
                np.testing.assert_array_equal(_np(g), w)
        with pytest.raises(TypeError, match="expected one of"):
            op(a, 2, sections=2)
        with pytest.raises(TypeError, match="expected one of"):
            op(a)
    assert len(a.hsplit(indices=[1])) == 2 and len(a.vsplit(sections=1)) == 1
