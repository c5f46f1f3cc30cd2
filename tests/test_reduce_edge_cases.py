"""Edge cases of the reductions found by a side-by-side run against PyTorch 2.15: norm and
linalg.vector_norm of a 0-d tensor with dim and ord inf / -inf / < 0, kthvalue over a
dimension of size 0, median and nanmedian of an empty integer tensor, searchsorted's
side, the exception type of var/std(_mean) and histc of an integer input.  Values against NumPy float64 (exact: a 0-d norm is |x|)."""
import math

import numpy as np
import pytest

import pydevtensor as pdt


@pytest.mark.parametrize("ord", [math.inf, -math.inf, -1, -2.5, 3])
@pytest.mark.parametrize("dim", [0, -1, (0,), (-1,)])
def test_vector_norm_of_0d_with_dim(device, ord, dim):
    # a 0-d tensor's dim 0 (or -1) is its element: the norm is |x|; it raised
    # "tuple index out of range" for the ords with no identity (inf and ord < 0)
    x = pdt.tensor(-0.75, dtype=pdt.float64, device=device)
    for keepdim in (False, True):
        got = pdt.linalg.vector_norm(x, ord, dim, keepdim)
        assert got.shape == () and got.item() == abs(-0.75)
        got = pdt.norm(x, p=ord, dim=dim, keepdim=keepdim)
        assert got.shape == () and got.item() == abs(-0.75)


def test_vector_norm_empty_dim_still_refused(device):
    with pytest.raises(RuntimeError, match="dimension 1 because this dimension is empty"):
        pdt.linalg.vector_norm(pdt.ones(2, 0, device=device), math.inf, 1)


@pytest.mark.parametrize("k", [1, 2])
def test_kthvalue_empty_dim_is_index_error(device, k):
    # PyTorch checks the size before k: IndexError, as median and mode (RuntimeError before)
    with pytest.raises(IndexError, match=r"kthvalue\(\): Expected reduction dim 0 to have "
                                         r"non-zero size"):
        pdt.kthvalue(pdt.ones(0, 3, device=device), k, 0)
    v, i = pdt.kthvalue(pdt.ones(0, 3, device=device), 1, 1)  # the other dim may be empty
    assert v.shape == i.shape == (0,)


@pytest.mark.parametrize("op", ["median", "nanmedian"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_median_of_empty_integer_tensor(device, op, dtype):
    # NaN has no integer value: a RuntimeError naming the op ('full: the value nan cannot
    # be converted' before); a floating input gives NaN as before
    x = pdt.tensor([], dtype=getattr(pdt, dtype), device=device)
    with pytest.raises(RuntimeError, match=rf"{op}\(\): an empty pydevtensor.{dtype} input"):
        getattr(pdt, op)(x)
    got = getattr(pdt, op)(pdt.zeros(0, 2, device=device))
    assert got.shape == () and np.isnan(got.item())


def test_searchsorted_bad_side_is_runtime_error(device):
    seq = pdt.tensor([1., 2.], device=device)
    with pytest.raises(RuntimeError, match="side can only be 'left' or 'right'"):
        pdt.searchsorted(seq, pdt.tensor([1.], device=device), side="up")


@pytest.mark.parametrize("op", ["var", "std", "var_mean", "std_mean", "histc"])
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_integer_input_is_not_implemented_error(device, op, dtype):
    # PyTorch's NotImplementedError ('only support floating point'), a RuntimeError
    # subclass; a plain RuntimeError before
    x = pdt.ones(3, dtype=getattr(pdt, dtype), device=device)
    with pytest.raises(NotImplementedError, match=rf"{op}\(\): expected a floating point"):
        getattr(pdt, op)(x)
