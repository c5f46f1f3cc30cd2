"""select_scatter, slice_scatter and diagonal_scatter (_ops_view_scatter.py): a copy of
input with a view replaced by src, against NumPy in float64 (exact: they only move
elements); input untouched; gradients in both arguments by central differences; on
every device."""
import numpy as np
import pytest

import pydevtensor as pdt
from test_gradcheck import gradcheck

A = np.arange(2 * 3 * 4, dtype=np.float64).reshape(2, 3, 4)


def _t(a, device):
    return pdt.from_numpy(np.array(a)).to(device)


def _check(out, x, expect):
    assert tuple(out.shape) == expect.shape and out.dtype == x.dtype
    assert out.device == x.device
    np.testing.assert_array_equal(out.cpu().numpy(), expect)
    np.testing.assert_array_equal(x.cpu().numpy(), A)  # input untouched


@pytest.mark.parametrize("dim,index", [(0, 1), (1, -1), (2, 0), (-1, 3)])
def test_select_scatter(device, dim, index):
    x = _t(A, device)
    src = -1.0 - np.arange(A.size // A.shape[dim], dtype=np.float64).reshape(
        np.delete(A.shape, dim % 3))
    expect = A.copy()
    np.moveaxis(expect, dim, 0)[index] = src
    _check(pdt.select_scatter(x, _t(src, device), dim, index), x, expect)
    _check(x.select_scatter(_t(src, device), dim, index), x, expect)


@pytest.mark.parametrize("dim,start,end,step", [
    (0, None, None, 1), (1, 1, None, 1), (2, None, None, 2), (2, -3, 10, 2), (1, 2, 1, 1),
    (-1, 1, -1, 1)])
def test_slice_scatter(device, dim, start, end, step):
    x = _t(A, device)
    expect = A.copy()
    key = (slice(None),) * (dim % 3) + (slice(start, end, step),)
    src = -1.0 - np.arange(expect[key].size, dtype=np.float64).reshape(expect[key].shape)
    expect[key] = src
    _check(pdt.slice_scatter(x, _t(src, device), dim, start, end, step), x, expect)
    _check(x.slice_scatter(_t(src, device), dim=dim, start=start, end=end, step=step), x,
           expect)


@pytest.mark.parametrize("offset,dims", [(0, (0, 1)), (1, (1, 2)), (-2, (2, 1)), (1, (0, 2))])
def test_diagonal_scatter(device, offset, dims):
    x = _t(A, device)
    expect = A.copy()
    diag = np.diagonal(expect, offset, *dims)
    src = -1.0 - np.arange(diag.size, dtype=np.float64).reshape(diag.shape)
    mask = np.zeros(A.shape, bool)
    idx = np.indices(A.shape)
    mask[idx[dims[1]] - idx[dims[0]] == offset] = True
    order = np.moveaxis(np.arange(A.size).reshape(A.shape), dims, (-2, -1))
    np.put(expect, np.diagonal(order, offset, -2, -1).ravel(), src.ravel())
    assert (expect != A).sum() == mask.sum() == src.size
    _check(pdt.diagonal_scatter(x, _t(src, device), offset, *dims), x, expect)
    _check(x.diagonal_scatter(_t(src, device), offset, *dims), x, expect)


def test_src_is_cast_to_input_dtype(device):
    x = pdt.zeros(2, 3, device=device)
    out = pdt.select_scatter(x, pdt.arange(3, device=device), 0, 0)
    assert out.dtype == pdt.float32
    np.testing.assert_array_equal(out.cpu().numpy(), [[0, 1, 2], [0, 0, 0]])


def test_shape_must_match(device):
    x = pdt.zeros(2, 3, device=device)
    with pytest.raises(RuntimeError, match=r"src size = \[1\], slice size = \[3\]"):
        pdt.select_scatter(x, pdt.ones(1, device=device), 0, 0)  # no broadcasting
    with pytest.raises(RuntimeError, match="step must be positive"):
        pdt.slice_scatter(x, x, step=-1)
    with pytest.raises(IndexError):
        pdt.select_scatter(x, pdt.ones(3, device=device), 2, 0)


def test_gradients(device):
    a = A[0].copy()
    gradcheck(lambda x, s: pdt.select_scatter(x, s, 1, 2), [a, np.arange(3.0)], device)
    gradcheck(lambda x, s: pdt.slice_scatter(x, s, 1, 0, None, 2),
              [a, np.ones((3, 2))], device)
    gradcheck(lambda x, s: pdt.diagonal_scatter(x, s, 1), [a, np.ones(3)], device,
              noncontig=True)
