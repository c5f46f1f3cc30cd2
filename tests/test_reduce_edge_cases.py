"""Edge cases of the reductions found by a side-by-side run against PyTorch 2.15: norm
and linalg.vector_norm of a 0-d tensor with dim and ord inf / -inf / < 0, kthvalue over
a dimension of size 0, median and nanmedian of an empty integer tensor, searchsorted's
side and sorter dtype, the exception types of var/std(_mean) and histc of an integer
input, the dtype= of cumsum, cumprod, nansum, nanmean and the norms, aminmax's dim,
logcumsumexp's NumPy-integer dim, quantile's interpolation type.  Values against NumPy
float64 (exact where the result is an element or an index; logcumsumexp 1e-12)."""
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


def test_norm_p_nan_is_nan_as_vector_norm(device):
    # torch.norm sends p=NaN to vector_norm, whose answer is NaN (NotImplementedError here
    # before); the shape follows dim and keepdim as for any other p
    x = pdt.tensor([[1.0, -2.0, 3.0], [0.0, 4.0, -5.0]], dtype=pdt.float64, device=device)
    for got, shape in ((pdt.norm(x, p=math.nan), ()), (x.norm(math.nan), ()),
                       (pdt.norm(x, p=math.nan, dim=1), (2,)),
                       (x.norm(math.nan, dim=0, keepdim=True), (1, 3)),
                       (pdt.linalg.vector_norm(x, math.nan, dim=1), (2,))):
        assert got.shape == shape and got.dtype == pdt.float64
        assert np.isnan(got.cpu().numpy()).all()


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


_DTYPE_OPS = {
    "cumsum": lambda x, d: pdt.cumsum(x, 0, dtype=d),
    "cumprod": lambda x, d: x.cumprod(0, dtype=d),
    "nansum": lambda x, d: pdt.nansum(x, dtype=d),
    "nanmean": lambda x, d: x.nanmean(dtype=d),
    "norm": lambda x, d: pdt.norm(x, 3, dtype=d),
    "linalg.vector_norm": lambda x, d: pdt.linalg.vector_norm(x, dtype=d),
    "linalg.matrix_norm": lambda x, d: pdt.linalg.matrix_norm(x, dtype=d),
}


@pytest.mark.parametrize("op", sorted(_DTYPE_OPS))
def test_dtype_argument_checked(device, op):
    # an int dtype= went to Tensor.to as a CUDA device index ('cuda:5 unknown device'), a
    # bad name as a device string, and the norms leaked AttributeError; each is a
    # TypeError naming the op now, as PyTorch's; a dtype's name is still taken
    x = pdt.tensor(np.arange(1., 7.).reshape(2, 3), device=device)
    for bad in (5, "x", 1.5):
        with pytest.raises(TypeError, match=rf"{op}\(\): argument 'dtype' must be a "
                                            r"pydevtensor.dtype, not"):
            _DTYPE_OPS[op](x, bad)
    want = _DTYPE_OPS[op](x, pdt.float64)
    got = _DTYPE_OPS[op](x, "float64")
    assert got.dtype == pdt.float64 and np.array_equal(got.cpu().numpy(), want.cpu().numpy())


def test_searchsorted_sorter_must_be_int64(device):
    # a floating sorter reached gather (IndexError 'Expected dtype int64'); PyTorch's
    # RuntimeError now.  An int64 sorter gives NumPy's answer
    unsorted = np.array([5., 1., 7., 3.])
    seq = pdt.tensor(unsorted, device=device)
    values = pdt.tensor([3., 6.], device=device)
    with pytest.raises(RuntimeError, match=r"sorter must be a tensor of int64 dtype, got "
                                           r"pydevtensor.float32 \(shape \(4,\)"):
        pdt.searchsorted(seq, values, sorter=pdt.tensor([1., 3., 0., 2.], device=device))
    got = pdt.searchsorted(seq, values, sorter=pdt.tensor(np.argsort(unsorted), device=device))
    np.testing.assert_array_equal(got.cpu().numpy(), np.searchsorted(
        unsorted, [3., 6.], sorter=np.argsort(unsorted)))


def test_aminmax_dim_is_one_int(device):
    # PyTorch's aminmax takes one int dim: a tuple or list reached amin/amax and was
    # reduced (or refused naming min()); a TypeError naming aminmax now
    a = np.arange(12.).reshape(3, 4)
    x = pdt.tensor(a, device=device)
    for bad in ((0, 1), [0], True, 0.5):
        with pytest.raises(TypeError, match=r"aminmax\(\): argument 'dim' must be int"):
            pdt.aminmax(x, dim=bad)
    lo, hi = pdt.aminmax(x, dim=np.int64(1))
    np.testing.assert_array_equal(lo.cpu().numpy(), a.min(1))
    np.testing.assert_array_equal(hi.cpu().numpy(), a.max(1))


def test_logcumsumexp_takes_numpy_int_dim(device):
    # a NumPy integer dim was refused ('must be an int, got int64'); PyTorch's takes it
    a = np.array([[0., 1., 2.], [3., -1., 0.5]])
    got = pdt.logcumsumexp(pdt.tensor(a, device=device), np.int64(1))
    np.testing.assert_allclose(got.cpu().numpy(), np.logaddexp.accumulate(a, axis=1),
                               rtol=1e-12)
    with pytest.raises(TypeError, match=r"logcumsumexp\(\): argument 'dim' must be int"):
        pdt.logcumsumexp(pdt.tensor(a, device=device), 1.0)


@pytest.mark.parametrize("op", ["quantile", "nanquantile"])
def test_quantile_interpolation_not_str(device, op):
    # PyTorch's TypeError (RuntimeError 'must be one of' before)
    x = pdt.tensor([1., 2., 3.], device=device)
    with pytest.raises(TypeError, match=rf"{op}\(\): argument 'interpolation' must be str, "
                                        r"not int"):
        getattr(pdt, op)(x, 0.5, interpolation=1)


@pytest.mark.parametrize("op", ["cumsum_", "cumprod_"])
def test_in_place_scan_refuses_another_dtype(device, op):
    # a float32 x.cumsum_(0, dtype=int64) scanned the truncated values (1.5 counted as 1)
    # and wrote them back; PyTorch's 'Bad in-place call' now, x unchanged
    a = np.array([1.5, 2.25, -3.0])
    x = pdt.tensor(a, dtype=pdt.float32, device=device)
    for other in (pdt.int64, pdt.float64):
        with pytest.raises(RuntimeError, match=rf"{op}\(\): Bad in-place call: input tensor "
                                               r"dtype pydevtensor.float32 and output"):
            getattr(x, op)(0, dtype=other)
        np.testing.assert_array_equal(x.cpu().numpy(), a.astype(np.float32))
    ref = np.cumsum(a) if op == "cumsum_" else np.cumprod(a)
    got = getattr(x, op)(0, dtype=pdt.float32)
    assert got is x
    np.testing.assert_allclose(x.cpu().numpy(), ref, rtol=1e-6)
