"""Flags of the functions written in Python (keepdim=, descending=, upper=, align_corners=,
...) take a bool or NumPy's, as the C bindings' do (pydevtensor._args.flag): anything
else is a TypeError naming the function and the argument, "sort(): argument
'descending' must be bool, not str", as PyTorch's, rather than read by its truth
(descending="no" sorted largest first)."""
import numpy as np
import pytest

import pydevtensor as pdt
import pydevtensor.nn.functional as F
from pydevtensor._args import flag

# (name, the call with the flag given as v, the message's function name, the argument)
CALLS = [
    ("sort", lambda x, v: pdt.sort(x, descending=v), "sort", "descending"),
    ("sort-stable", lambda x, v: pdt.sort(x, stable=v), "sort", "stable"),
    ("Tensor.sort", lambda x, v: x.sort(-1, v), "sort", "descending"),
    ("argsort", lambda x, v: pdt.argsort(x, 1, v), "argsort", "descending"),
    ("topk", lambda x, v: pdt.topk(x, 2, largest=v), "topk", "largest"),
    ("topk-sorted", lambda x, v: x.topk(2, sorted=v), "topk", "sorted"),
    ("fill_diagonal_", lambda x, v: x.clone().fill_diagonal_(1.0, wrap=v), "fill_diagonal_",
     "wrap"),
    ("unique", lambda x, v: pdt.unique(x, sorted=v), "unique", "sorted"),
    ("unique-inverse", lambda x, v: x.unique(return_inverse=v), "unique", "return_inverse"),
    ("unique-counts", lambda x, v: pdt.unique(x, return_counts=v, dim=0), "unique",
     "return_counts"),
    ("unique_consecutive", lambda x, v: pdt.unique_consecutive(x, return_counts=v),
     "unique_consecutive", "return_counts"),
    ("median", lambda x, v: pdt.median(x, 0, keepdim=v), "median", "keepdim"),
    ("nanmedian", lambda x, v: x.nanmedian(0, v), "nanmedian", "keepdim"),
    ("kthvalue", lambda x, v: pdt.kthvalue(x, 1, 0, v), "kthvalue", "keepdim"),
    ("mode", lambda x, v: pdt.mode(x, 0, keepdim=v), "mode", "keepdim"),
    ("aminmax", lambda x, v: pdt.aminmax(x, dim=0, keepdim=v), "aminmax", "keepdim"),
    ("logsumexp", lambda x, v: pdt.logsumexp(x, 0, v), "logsumexp", "keepdim"),
    ("nansum", lambda x, v: pdt.nansum(x, 0, keepdim=v), "nansum", "keepdim"),
    ("nanmean", lambda x, v: x.nanmean(0, keepdim=v), "nanmean", "keepdim"),
    ("quantile", lambda x, v: pdt.quantile(x, 0.5, 0, keepdim=v), "quantile", "keepdim"),
    ("nanquantile", lambda x, v: x.nanquantile(0.5, 0, v), "nanquantile", "keepdim"),
    ("var", lambda x, v: pdt.var(x, 0, unbiased=v), "var", "unbiased"),
    ("std-keepdim", lambda x, v: x.std(0, keepdim=v), "std", "keepdim"),
    ("var_mean", lambda x, v: pdt.var_mean(x, 0, keepdim=v), "var_mean", "keepdim"),
    ("std_mean", lambda x, v: pdt.std_mean(x, 0, True, v), "std_mean", "keepdim"),
    ("searchsorted", lambda x, v: pdt.searchsorted(x[0], x[1], right=v), "searchsorted",
     "right"),
    ("searchsorted-int32", lambda x, v: pdt.searchsorted(x[0], x[1], out_int32=v),
     "searchsorted", "out_int32"),
    ("bucketize", lambda x, v: pdt.bucketize(x, x[0], right=v), "bucketize", "right"),
    ("isin", lambda x, v: pdt.isin(x, x[0], invert=v), "isin", "invert"),
    ("isin-unique", lambda x, v: pdt.isin(x, x[0], assume_unique=v), "isin", "assume_unique"),
    ("isclose", lambda x, v: pdt.isclose(x, x, equal_nan=v), "isclose", "equal_nan"),
    ("allclose", lambda x, v: pdt.allclose(x, x, equal_nan=v), "allclose", "equal_nan"),
    ("histogram", lambda x, v: pdt.histogram(x.cpu(), 3, density=v), "histogram", "density"),
    ("nonzero", lambda x, v: pdt.nonzero(x, as_tuple=v), "nonzero", "as_tuple"),
    ("Tensor.nonzero", lambda x, v: x.nonzero(as_tuple=v), "nonzero", "as_tuple"),
]


def _x(device):
    return pdt.tensor([[3., 1., 2., 2.], [0., 5., 4., 1.], [7., 6., 5., 4.]], device=device)


@pytest.mark.parametrize("call", CALLS, ids=[c[0] for c in CALLS])
@pytest.mark.parametrize("bad", ["no", 1, 0, None, 1.0])
def test_non_bool_flag_is_refused(device, call, bad):
    _, fn, op, name = call
    if bad is None and name == "unbiased":
        pytest.skip("unbiased=None is its default: correction's")
    with pytest.raises(TypeError) as info:
        fn(_x(device), bad)
    assert str(info.value) == (f"{op}(): argument '{name}' must be bool, not "
                               f"{type(bad).__name__}")


def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for u, w in zip(a, b):
            _same(u, w)
    elif isinstance(a, pdt.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())
    else:
        assert a == b


@pytest.mark.parametrize("call", CALLS, ids=[c[0] for c in CALLS])
@pytest.mark.parametrize("value", [True, False])
def test_numpy_bool_flag_is_the_bool(device, call, value):
    # NumPy's bool is taken as the C bindings take it, with its value (not its truth
    # as an object: np.False_ is False)
    fn = call[1]
    _same(fn(_x(device), np.bool_(value)), fn(_x(device), value))


def test_flag_values_are_read(device):
    x = _x(device)
    assert pdt.sort(x[0], descending=np.True_).values.tolist() == [3., 2., 2., 1.]
    assert pdt.sort(x[0], descending=False).values.tolist() == [1., 2., 2., 3.]
    assert pdt.topk(x[0], 1, largest=np.False_).values.tolist() == [1.]
    assert pdt.median(x, 0, keepdim=True).values.shape == (1, 4)


def test_flag_helper():
    assert flag(True, "f", "a") is True
    assert flag(np.False_, "f", "a") is False
    with pytest.raises(TypeError, match=r"^f\(\): argument 'a' must be bool, not int$"):
        flag(1, "f", "a")
    with pytest.raises(TypeError, match=r"must be bool, not ndarray$"):
        flag(np.array([True]), "f", "a")
