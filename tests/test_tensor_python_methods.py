"""Tensor methods and attributes written in Python, as PyTorch's: membership
(``x in t``), the queries for PyTorch's other kinds of tensor, dim_order, is_nonzero and
utils.dlpack; their methods written in Python refuse out= as PyTorch's methods do."""
import inspect

import numpy as np
import pytest

import pydevtensor as pdt


def test_membership_compares_numbers_and_tensors(device):
    t = pdt.tensor([[1, 2], [3, 4]], device=device)
    assert 3 in t and 4.0 in t and np.int64(1) in t
    assert 5 not in t and 2.5 not in t
    # a tensor: broadcast against t, any equal element counts
    assert pdt.tensor([1, 2], device=device) in t
    assert pdt.tensor([2, 1], device=device) not in t
    assert pdt.tensor([[9], [3]], device=device) in t
    assert True in pdt.tensor([False, True], device=device)
    assert 5 in pdt.tensor(5, device=device)      # 0-d
    assert 0 not in pdt.zeros(0, device=device)   # empty


def test_membership_refuses_other_types(device):
    t = pdt.tensor([1, 2], device=device)
    for element in ("a", None, [1, 2], (1,)):
        with pytest.raises(RuntimeError, match="only supports Tensor or scalar.*"
                           + type(element).__name__):
            element in t
    with pytest.raises(pdt.InvalidArgumentError, match="size"):
        pdt.tensor([1, 2, 3], device=device) in pdt.ones(2, 2, device=device)


def test_queries_of_other_kinds_of_tensor(device):
    t = pdt.ones(2, device=device)
    for name in ("is_sparse", "is_quantized", "is_meta", "is_mkldnn", "is_nested"):
        assert getattr(t, name) is False
    assert t.layout is pdt.strided and pdt.nn.Parameter(t).layout is pdt.strided


def _order_by_strides(t):
    """The dims outermost first when the strides are distinct and no size is 1: the
    stable sort by decreasing stride."""
    return tuple(sorted(range(t.ndim), key=lambda d: -t.stride()[d]))


def test_dim_order_sorts_dims_by_stride(device):
    x = pdt.ones(2, 3, 4, 5, device=device)
    cl = x.contiguous(memory_format=pdt.channels_last)
    for t in (x, x.transpose(1, 2), cl, x.permute(3, 1, 0, 2), x[:, :, ::2],
              pdt.ones(2, 3, 4, device=device).permute(2, 0, 1)):
        assert t.dim_order() == t.dim_order(ambiguity_check=True) == _order_by_strides(t)
    assert cl.dim_order() == (0, 2, 3, 1) and pdt.ones((), device=device).dim_order() == ()
    assert pdt.ones(6, device=device)[::2].dim_order() == (0,)
    # size-1 dims and equal strides: one of the orders, a refusal when asked to check
    c1 = pdt.empty_strided((4, 1, 2, 2), (4, 1, 2, 1), device=device)  # channels_last
    assert c1.dim_order() == (0, 2, 3, 1)
    for t, order in ((pdt.ones(1, 3, 1, 1, device=device), (0, 1, 2, 3)),
                     (pdt.ones(2, 1, 3, device=device).transpose(0, 1), (0, 1, 2)),
                     (pdt.ones(3, 1, device=device).t(), (0, 1)),
                     (pdt.ones(2, 3, device=device).expand(4, 2, 3), (0, 1, 2))):
        assert t.dim_order() == order
        with pytest.raises(RuntimeError, match="does not have unique dim order"):
            t.dim_order(ambiguity_check=True)
    # a list of formats: unique when the tensor is contiguous in exactly one of them
    t = pdt.ones(1, 2, 3, 4, device=device)
    assert t.dim_order(ambiguity_check=[pdt.contiguous_format, pdt.channels_last]) == \
        (0, 1, 2, 3)
    with pytest.raises(RuntimeError, match="cannot map to exact one"):
        pdt.ones(1, 3, 1, 1, device=device).dim_order(
            ambiguity_check=[pdt.contiguous_format, pdt.channels_last])
    with pytest.raises(TypeError, match="must be a bool or a list of memory formats"):
        t.dim_order(ambiguity_check=[1])


def test_is_nonzero(device):
    assert pdt.is_nonzero(pdt.tensor([[3]], device=device)) is True
    assert pdt.is_nonzero(pdt.tensor(0.0, device=device)) is False
    assert pdt.tensor(float("nan"), device=device).is_nonzero() is True
    assert pdt.tensor([False], device=device).is_nonzero() is False
    for t, what in ((pdt.ones(2, device=device), "more than one value"),
                    (pdt.ones(0, 3, device=device), "no values")):
        with pytest.raises(RuntimeError, match=f"Boolean value of Tensor with {what} is "
                           f"ambiguous"):
            pdt.is_nonzero(t)


def test_utils_dlpack_shares_memory():
    from pydevtensor.utils import dlpack
    assert dlpack.from_dlpack is pdt.from_dlpack
    x = pdt.arange(3.0)
    y = dlpack.from_dlpack(dlpack.to_dlpack(x))
    y.add_(1.0)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(np.from_dlpack(x), [1.0, 2.0, 3.0])


def _python_methods_of_functions_with_out():
    """The Tensor methods whose function (pydevtensor.<name>) takes out= and whose
    signature can be read (the ones written in Python: the functions set as methods)."""
    found = []
    for name in sorted(vars(pdt.Tensor)):
        fn = getattr(pdt, name, None)
        try:
            fn_params = inspect.signature(fn).parameters
            inspect.signature(getattr(pdt.Tensor, name))
        except (TypeError, ValueError):
            continue
        if "out" in fn_params:
            found.append(name)
    return found


def test_methods_refuse_out(device):
    """x.diff(out=o), x.index_add(..., out=o), x.scatter(...): TypeError, as PyTorch's
    methods take no out= (only the functions do); the methods' signatures have none, and
    without out they give the function's result."""
    names = _python_methods_of_functions_with_out()
    assert {"diff", "cumprod", "index_add", "index_copy", "index_reduce", "scatter",
            "scatter_add", "scatter_reduce", "geqrf", "sort"} <= set(names)
    x = pdt.tensor([[1.0, 4.0], [9.0, 16.0]], device=device)
    o = pdt.empty(0, device=device)
    for name in names:
        assert "out" not in inspect.signature(getattr(pdt.Tensor, name)).parameters, name
        with pytest.raises(TypeError, match="out"):  # (C methods: their own words)
            getattr(x, name)(out=o)
    index, src = pdt.tensor([1, 0], device=device), pdt.ones(2, 2, device=device)
    with pytest.raises(TypeError, match="index_add.*'out'"):
        x.index_add(0, index, src, out=o)
    with pytest.raises(TypeError, match="scatter.*'out'"):
        x.scatter(0, pdt.tensor([[1, 0]], device=device), src, out=o)
    assert o.numel() == 0  # nothing written
    np.testing.assert_array_equal(x.index_add(0, index, src).cpu().numpy(),
                                  [[2.0, 5.0], [10.0, 17.0]])
    np.testing.assert_array_equal(pdt.index_add(x, 0, index, src, out=o).cpu().numpy(),
                                  [[2.0, 5.0], [10.0, 17.0]])
    np.testing.assert_array_equal(x.diff().cpu().numpy(), [[3.0], [7.0]])
