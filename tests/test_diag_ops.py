"""diagonal (a view: pdt_diagonal_view in csrc/core/pdt_view.h), diag, diagflat,
diag_embed, block_diag, cartesian_prod, combinations, triu_indices and tril_indices:
against NumPy in float64 (exact: they only move elements) and PyTorch when it
imports; dtypes and devices; gradients by test_gradcheck's helper; on every device."""
import itertools

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from test_gradcheck import gradcheck

A = np.arange(2 * 3 * 4, dtype=np.float64).reshape(2, 3, 4)


def _t(a, device, dtype=None):
    t = pdt.from_numpy(np.array(a)).to(device)  # a copy: tests write into it
    return t if dtype is None else t.to(dtype)


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("offset", [-3, -1, 0, 1, 2, 5])
@pytest.mark.parametrize("dims", [(0, 1), (1, 2), (2, 0), (-1, -2), (0, 2)])
def test_diagonal_values_and_view(device, offset, dims):
    x = _t(A, device)
    out = pdt.diagonal(x, offset, *dims)
    expect = np.diagonal(A, offset, *dims)
    assert tuple(out.shape) == expect.shape and out.dtype == x.dtype
    np.testing.assert_array_equal(_np(out), expect)
    out.fill_(-1.0)  # a view: the write lands on x's diagonal
    a = A.copy()
    mask = np.zeros(A.shape, bool)
    idx = np.indices(A.shape)
    d1, d2 = (d % 3 for d in dims)
    mask[idx[d2] - idx[d1] == offset] = True
    a[mask] = -1.0
    np.testing.assert_array_equal(_np(x), a)


@pytest.mark.parametrize("make", ["transposed", "column-slice", "row-slice", "flipped"])
def test_diagonal_of_strided_inputs(device, make):
    base = _t(np.arange(30.0).reshape(5, 6), device)
    ref = np.arange(30.0).reshape(5, 6)
    pick = {"transposed": lambda m: m.T, "column-slice": lambda m: m[:, 1:4],
            "row-slice": lambda m: m[1:4], "flipped": lambda m: m[::-1]}[make]
    x, r = pick(base), pick(ref)
    for offset in (-1, 0, 1):
        np.testing.assert_array_equal(_np(x.diagonal(offset)), np.diagonal(r, offset))
    x.diagonal().fill_(-1.0)  # a view, whatever x's strides
    r = r.copy()
    np.fill_diagonal(r, -1.0)
    np.testing.assert_array_equal(_np(x), r)
    full = np.arange(30.0).reshape(5, 6)
    np.fill_diagonal(pick(full), -1.0)  # NumPy's views of the same strides
    np.testing.assert_array_equal(_np(base), full)


def test_diagonal_against_torch():
    torch = torch_or_skip()
    for offset, d1, d2 in [(0, 0, 1), (1, 2, 0), (-2, -1, 1), (7, 0, 2)]:
        got = pdt.from_numpy(A.copy()).diagonal(offset, d1, d2)
        want = torch.from_numpy(A.copy()).diagonal(offset, d1, d2)
        assert tuple(got.shape) == tuple(want.shape)
        assert got.stride() == want.stride() and got.storage_offset() == want.storage_offset()
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_diagonal_gradients(device):
    gradcheck(lambda x: x.diagonal(1, 0, 2), [A.copy()], device)
    gradcheck(lambda x: pdt.diagonal(x, -1), [A[0].copy()], device, noncontig=True)
    gradcheck(lambda x: x[:, 1:3].diagonal(), [A[0].copy()], device)


@pytest.mark.parametrize("k", [-2, 0, 1, 3])
def test_diag(device, k):
    v = np.arange(1.0, 4.0)
    np.testing.assert_array_equal(_np(pdt.diag(_t(v, device), k)), np.diag(v, k))
    m = A[0]
    x = _t(m, device)
    out = x.diag(k)
    np.testing.assert_array_equal(_np(out), np.diag(m, k))
    out.fill_(-5.0)  # a copy, as PyTorch's
    np.testing.assert_array_equal(_np(x), m)
    gradcheck(lambda t: pdt.diag(t, k), [v], device)
    gradcheck(lambda t: pdt.diag(t, k), [m.copy()], device, noncontig=True)


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float16", "float32", "float64"])
def test_dtypes_kept(device, dtype):
    dt = getattr(pdt, dtype)
    x = _t(np.array([1, 0, 1]), device, dt)
    for out in (pdt.diag(x), pdt.diag_embed(x, 1), pdt.diagflat(x), pdt.diag(pdt.diag(x))):
        assert out.dtype == dt and out.device == x.device
    np.testing.assert_array_equal(_np(pdt.diag(x, -1).to(pdt.float64)), np.diag([1, 0, 1], -1))


@pytest.mark.parametrize("offset,dim1,dim2", [(0, -2, -1), (1, 0, 2), (-2, 2, 0), (2, 1, 3)])
def test_diag_embed(device, offset, dim1, dim2):
    x = _t(A, device)
    out = pdt.diag_embed(x, offset, dim1, dim2)
    n = A.shape[-1] + abs(offset)
    ref = np.zeros(A.shape[:-1] + (n, n))
    for i in range(A.shape[-1]):
        r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
        ref[..., r, c] = A[..., i]
    ref = np.moveaxis(ref, (-2, -1), (dim1, dim2))
    np.testing.assert_array_equal(_np(out), ref)
    assert out.is_contiguous()
    # with a gradient to record, the composition autograd follows: the same values
    rec = pdt.diag_embed(_t(A, device).requires_grad_(), offset, dim1, dim2)
    assert rec.grad_fn is not None and rec.is_contiguous()
    np.testing.assert_array_equal(_np(rec.detach()), ref)
    gradcheck(lambda t: t.diag_embed(offset, dim1, dim2), [A.copy()], device)
    torch = None
    try:
        import torch
    except Exception:  # noqa: BLE001 - the NumPy reference alone then
        pass
    if torch is not None:
        want = torch.diag_embed(torch.from_numpy(A), offset, dim1, dim2)
        np.testing.assert_array_equal(_np(out), want.numpy())


def test_diag_embed_keeps_nan_and_inf(device):
    x = _t(np.array([np.nan, np.inf, 1.0]), device)
    np.testing.assert_array_equal(_np(pdt.diag_embed(x)), np.diag([np.nan, np.inf, 1.0]))


def test_diagflat(device):
    m = A[0]
    for k in (-1, 0, 2):
        np.testing.assert_array_equal(_np(pdt.diagflat(_t(m, device), k)), np.diagflat(m, k))
    np.testing.assert_array_equal(_np(_t(np.array(3.0), device).diagflat()), [[3.0]])
    gradcheck(lambda t: pdt.diagflat(t, 1), [m.copy()], device, noncontig=True)


def test_block_diag(device):
    parts = [np.arange(6.0).reshape(2, 3), np.array(7.0), np.arange(2.0), np.ones((0, 2))]
    out = pdt.block_diag(*[_t(p, device) for p in parts])
    blocks = [np.atleast_2d(p) for p in parts]
    ref = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)))
    r = c = 0
    for b in blocks:
        ref[r:r + b.shape[0], c:c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    np.testing.assert_array_equal(_np(out), ref)
    mixed = pdt.block_diag(_t(np.ones(2), device, pdt.int32), _t(np.ones(1), device))
    assert mixed.dtype == pdt.float64
    assert pdt.block_diag().shape == pdt.Size([1, 0])
    gradcheck(lambda a, b: pdt.block_diag(a, b), [parts[0], parts[2]], device)


def test_block_diag_small(device):
    out = pdt.block_diag(_t(np.ones((1, 2)), device), _t(np.full((2, 1), 2.0), device))
    np.testing.assert_array_equal(_np(out), [[1, 1, 0], [0, 0, 2], [0, 0, 2]])


def test_cartesian_prod(device):
    a, b, c = np.arange(3.0), np.array([10.0, 20.0]), np.array([-1.0])
    out = pdt.cartesian_prod(_t(a, device), _t(b, device), _t(c, device))
    np.testing.assert_array_equal(_np(out), np.array(list(itertools.product(a, b, c))))
    one = _t(a, device)
    assert pdt.cartesian_prod(one) is one
    gradcheck(lambda x, y: pdt.cartesian_prod(x, y), [a, b], device)


@pytest.mark.parametrize("r", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations(device, r, with_replacement):
    a = np.array([3.0, 1.0, 4.0, 1.5])
    out = pdt.combinations(_t(a, device), r, with_replacement)
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    ref = np.array(list(pick(a, r)), dtype=np.float64).reshape(-1, r) if r else np.zeros(0)
    np.testing.assert_array_equal(_np(out), ref)
    assert out.dtype == pdt.float64 and out.device == pdt.device(device)
    if r:
        gradcheck(lambda x: pdt.combinations(x, r, with_replacement), [a], device)
    torch = None
    try:
        import torch
    except Exception:  # noqa: BLE001 - the NumPy reference alone then
        pass
    if torch is not None:
        want = torch.combinations(torch.from_numpy(a), r, with_replacement)
        assert tuple(out.shape) == tuple(want.shape)


@pytest.mark.parametrize("row,col,offset", [(3, 3, 0), (3, 5, 1), (4, 2, -1), (0, 3, 0),
                                            (3, 4, -5), (2, 2, 4)])
@pytest.mark.parametrize("dtype", [None, "int32"])
def test_tri_indices(device, row, col, offset, dtype):
    dt = getattr(pdt, dtype) if dtype else None
    up = pdt.triu_indices(row, col, offset, dtype=dt, device=device)
    lo = pdt.tril_indices(row, col, offset, device=device, dtype=dt)
    assert up.device == pdt.device(device) and up.dtype == (dt or pdt.int64) == lo.dtype
    np.testing.assert_array_equal(_np(up), np.array(np.triu_indices(row, offset, col)))
    np.testing.assert_array_equal(_np(lo), np.array(np.tril_indices(row, offset, col)))
    torch = None
    try:
        import torch
    except Exception:  # noqa: BLE001 - the NumPy reference alone then
        pass
    if torch is not None:
        np.testing.assert_array_equal(_np(up), torch.triu_indices(row, col, offset).numpy())
        np.testing.assert_array_equal(_np(lo), torch.tril_indices(row, col, offset).numpy())


def test_tri_indices_of_every_small_shape_and_offset_and_of_sparse_huge_ones(device):
    """The indices as NumPy's for every row, col <= 7 and offset -9..9 (written a block
    of rows at a time from the arithmetic series of each run of rows), and a huge
    matrix with few indices (a triangle cut by the offset) made without a row x col
    mask, which NumPy's functions make."""
    for row, col, offset in itertools.product(range(8), range(8), range(-9, 10)):
        np.testing.assert_array_equal(_np(pdt.triu_indices(row, col, offset, device=device)),
                                      np.array(np.triu_indices(row, offset, col)))
        np.testing.assert_array_equal(_np(pdt.tril_indices(row, col, offset, device=device)),
                                      np.array(np.tril_indices(row, offset, col)))
    big = 2 ** 40
    np.testing.assert_array_equal(_np(pdt.triu_indices(big, 3, device=device)),
                                  [[0, 0, 0, 1, 1, 2], [0, 1, 2, 1, 2, 2]])
    np.testing.assert_array_equal(_np(pdt.tril_indices(3, big, offset=-1, device=device)),
                                  [[1, 2, 2], [0, 0, 1]])


@pytest.mark.parametrize("make", [
    lambda d: pdt.triu_indices(2 ** 31, 2 ** 31, device=d),
    lambda d: pdt.tril_indices(2 ** 33, 2 ** 31, device=d),
    lambda d: pdt.combinations(pdt.ones(2 ** 12, device=d), r=6),
    lambda d: pdt.nn.functional.interpolate(pdt.ones(1, 1, 2, 2, device=d), size=(2 ** 31,) * 2),
    lambda d: pdt.nn.functional.interpolate(pdt.ones(1, 1, 2, 2, device=d), size=(2 ** 29,) * 2,
                                            mode="bilinear")])
def test_results_too_large_to_allocate_are_refused_before_any_work(device, make):
    """triu/tril_indices, combinations and interpolate built temporaries that grow with
    the sizes asked for (NumPy's row x col masks, a list of every combination, the
    per-axis tables) before anything refused the result, so the process was killed for
    memory; the result's size is checked first now, a recoverable error naming it."""
    with pytest.raises((pdt.OutOfMemoryError, pdt.InvalidArgumentError),
                       match=r"the result of shape \(.*\) .*cannot be allocated"):
        make(device)
    assert pdt.ones(3, device=device).sum().item() == 3  # the process goes on


def test_errors(device):
    x = _t(A, device)
    with pytest.raises(RuntimeError, match=rf"diagonal dimensions cannot be identical 1, -2 "
                                           rf"\(a tensor of shape \(2, 3, 4\) on {device}\)"):
        x.diagonal(0, 1, -2)
    with pytest.raises(IndexError, match=r"Dimension out of range"):
        pdt.diagonal(x[0, 0])
    with pytest.raises(RuntimeError, match=r"Supports 1D or 2D tensors. Got 3D"):
        pdt.diag(x)
    with pytest.raises(RuntimeError, match=r"diagonal dimensions cannot be identical"):
        pdt.diag_embed(x, 0, 0, -4)
    with pytest.raises(RuntimeError, match=r"2 or fewer dimensions. Input 1 has 3"):
        pdt.block_diag(x[0], x)
    with pytest.raises(RuntimeError, match=r"Expect a 1D vector, but got shape \[2, 3, 4\]"):
        pdt.cartesian_prod(x, x)
    with pytest.raises(RuntimeError, match=r"Expect a non-negative number, but got -1"):
        pdt.combinations(x[0, 0], -1)
    with pytest.raises(RuntimeError, match=r"col must be non-negative, got -4"):
        pdt.tril_indices(3, -4)
    with pytest.raises(NotImplementedError, match=r"not implemented for float32"):
        pdt.triu_indices(3, 3, dtype=pdt.float32)


def test_diagonal_is_a_view_to_autograd(device):
    """DiagonalBackward0 is a view's node (Note [views and their base]): used after its
    base changed in place it takes its elements of the new base, as PyTorch's."""
    x = pdt.ones(3, 3, device=device, requires_grad=True)
    y = x * 1
    d = y.diagonal()
    assert d.grad_fn.name() == "DiagonalBackward0" and d._base is y
    y.mul_(2)
    (d * 1).sum().backward()
    assert d.grad_fn.name() == "AsStridedBackward0"
    assert x.grad.tolist() == (2 * np.eye(3)).tolist()
    z = pdt.zeros(2, 3, device=device).expand(4, 2, 3)
    with pytest.raises(pdt.InvalidArgumentError, match=r"more than one element .* strides "
                                                       r"\(0, 4\)"):
        z.diagonal(0, 1, 2).copy_(pdt.ones(4, 2, device=device))  # stride 0: refused
