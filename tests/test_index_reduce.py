"""index_reduce and Tensor.index_reduce_ (pydevtensor/_ops_scatter.py) on every device,
against a float64 NumPy loop (exact: products, extremes and means of a few float64
values, the loop in the same order; integer means rounded down as PyTorch's): every
reduce with and without include_self, rows no index names, an empty index, NaN;
gradients by central differences (values without ties)."""
import numpy as np
import pytest

import pydevtensor as pdt
from test_gradcheck import gradcheck

REDUCES = ("prod", "mean", "amax", "amin")


def _np_index_reduce(x, dim, index, src, reduce, include_self):
    out = np.moveaxis(x.copy(), dim, 0)
    s = np.moveaxis(src, dim, 0)
    for row in set(index.tolist()):
        vals = [s[j] for j in range(len(index)) if index[j] == row]
        if include_self:
            vals = [out[row]] + vals
        vals = np.stack(vals)
        if reduce == "prod":
            r = np.prod(vals, axis=0)
        elif reduce == "mean":
            r = vals.sum(axis=0)
            r = r / len(vals) if x.dtype.kind == "f" else r // len(vals)
        else:  # NaN propagates, as PyTorch's
            r = (np.max if reduce == "amax" else np.min)(vals, axis=0)
        out[row] = r
    return np.moveaxis(out, 0, dim)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_against_numpy(device, reduce, include_self, dim):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5, 3))
    n = 6
    index = np.array([1, 0, 1, 2, 1, 0]) % x.shape[dim]  # some rows of x named by none
    shape = list(x.shape)
    shape[dim] = n
    src = rng.standard_normal(shape)
    src.flat[7] = np.nan
    expect = _np_index_reduce(x, dim, index, src, reduce, include_self)
    t = pdt.from_numpy(x).to(device)
    out = pdt.index_reduce(t, dim, pdt.tensor(index).to(device), pdt.from_numpy(src).to(device),
                           reduce, include_self=include_self)
    assert out.dtype == pdt.float64 and out.device == t.device
    # a device may add a group's values in another order (its scatter's atomics): a mean's
    # rounding is then within a few ulps of the values (about 1), not of the result
    atol = 1e-14 if reduce == "mean" else 0
    np.testing.assert_allclose(out.cpu().numpy(), expect, rtol=1e-15, atol=atol)
    np.testing.assert_array_equal(t.cpu().numpy(), x)  # input untouched
    y = t.clone()
    assert y.index_reduce_(dim, pdt.tensor(index, dtype=pdt.int32).to(device),
                           pdt.from_numpy(src).to(device), reduce,
                           include_self=include_self) is y
    np.testing.assert_allclose(y.cpu().numpy(), expect, rtol=1e-15, atol=atol)


@pytest.mark.parametrize("include_self", [True, False])
def test_integer_mean_rounds_down(device, include_self):
    x = pdt.tensor([1, 2, 3, 4], device=device)
    out = x.index_reduce(0, pdt.tensor([0, 0, 1], device=device),
                         pdt.tensor([-3, 0, 4], device=device), "mean",
                         include_self=include_self)
    expect = [-1, 3, 3, 4] if include_self else [-2, 4, 3, 4]  # floor(-2/3), floor(-3/2)
    assert out.dtype == pdt.int64 and out.tolist() == expect


def test_empty_index_keeps_input(device):
    x = pdt.tensor([[1., 2.]], device=device)
    for reduce in REDUCES:
        out = x.index_reduce(0, pdt.zeros(0, dtype=pdt.int64, device=device),
                             pdt.ones(0, 2, device=device), reduce, include_self=False)
        assert out.tolist() == [[1., 2.]]


def test_bad_arguments(device):
    x = pdt.zeros(3, 2, device=device)
    i = pdt.tensor([0, 2], device=device)
    with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean, amax"):
        x.index_reduce(0, i, pdt.ones(2, 2, device=device), "sum")
    with pytest.raises(IndexError, match="out of bounds"):
        x.index_reduce(0, i + 1, pdt.ones(2, 2, device=device), "prod")
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        x.index_reduce(0, i.reshape(2, 1), pdt.ones(2, 2, device=device), "prod")
    with pytest.raises(RuntimeError, match="must have the same dtype"):
        x.index_reduce(0, i, pdt.ones(2, 2, dtype=pdt.float64, device=device), "prod")


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
def test_gradients(device, reduce, include_self):
    rng = np.random.default_rng(1)
    x = rng.uniform(0.5, 2.0, (3, 4))  # distinct values: no ties for amax/amin
    src = rng.uniform(0.5, 2.0, (5, 4))
    index = pdt.tensor([2, 0, 2, 2, 0], device=device)
    gradcheck(lambda a, b: a.index_reduce(0, index, b, reduce, include_self=include_self),
              [x, src], device)
