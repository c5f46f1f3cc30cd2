"""Tensor.resize_ and resize_as_ (Note [resize_] in pydevtensor/_tensor_resize.py),
is_same_size, new_empty_strided, the real and imag properties of a real tensor and
the layout pydevtensor.strided: values against NumPy, memory shared or not as the
Note says, PyTorch's refusals, on every device."""
import pickle

import numpy as np
import pytest

import pydevtensor as pdt


def _np(t):
    return t.detach().cpu().numpy()


def test_resize_within_the_storage_keeps_its_leading_values_and_memory(device):
    x = pdt.arange(6.0, device=device)
    tail = x[2:]
    assert x.resize_(2, 2) is x
    np.testing.assert_array_equal(_np(x), np.arange(4.0).reshape(2, 2))
    assert x.is_contiguous()
    x[1, 0] = 50.0  # still the storage tail views
    np.testing.assert_array_equal(_np(tail), [50.0, 3.0, 4.0, 5.0])
    x.resize_((3, 2))  # back to the whole storage: nothing lost
    np.testing.assert_array_equal(_np(x), [[0, 1], [50, 3], [4, 5]])
    v = pdt.arange(6.0, device=device)[1:3]  # a view keeps its storage offset
    v.resize_(4)
    np.testing.assert_array_equal(_np(v), [1.0, 2.0, 3.0, 4.0])
    assert v.storage_offset() == 1


def test_resize_past_the_storage_gets_a_larger_one_with_the_old_values_first(device):
    base = pdt.arange(6.0, device=device)
    v = base[1:3]
    v.resize_(2, 4)  # needs 1 + 8 elements: a new storage
    assert v.shape == (2, 4) and v.is_contiguous() and v.storage_offset() == 1
    np.testing.assert_array_equal(_np(v).ravel()[:5], np.arange(1.0, 6.0))
    v.fill_(-1.0)  # the old storage is no longer v's
    np.testing.assert_array_equal(_np(base), np.arange(6.0))


def test_resize_same_sizes_strides_formats_and_resize_as(device):
    t = pdt.arange(6.0, device=device).reshape(2, 3).t()
    assert t.resize_(3, 2).stride() == (1, 3)  # the same sizes: untouched
    np.testing.assert_array_equal(_np(t.resize_(2, 2)), [[0.0, 1.0], [2.0, 3.0]])
    c = pdt.arange(24.0, device=device).resize_(1, 2, 3, 4, memory_format=pdt.channels_last)
    assert c.stride() == (24, 1, 8, 2)
    y = pdt.arange(6, device=device)
    tmpl = pdt.zeros(3, 1, dtype=pdt.float64, device=device)
    assert y.resize_as_(tmpl) is y and y.shape == (3, 1) and y.dtype == pdt.int64
    np.testing.assert_array_equal(_np(y), [[0], [1], [2]])


def test_resize_bumps_the_version_once_for_new_sizes(device):
    # PyTorch's: new sizes are one write; the same sizes (new strides or not) none
    x = pdt.arange(4.0, device=device)
    x.add_(1.0).add_(1.0)
    assert x.resize_(2).add_(0.0) is x and x._version == 4
    view = x[:1]
    x.resize_(2, 2)  # within the storage: its views see the count
    assert x._version == view._version == 5
    x.resize_(2, 2)
    c = pdt.ones(1, 3, 2, 2, device=device)
    c.resize_(1, 3, 2, 2, memory_format=pdt.channels_last)
    assert x._version == 5 and c._version == 0 and c.stride() == (12, 1, 6, 3)
    x.resize_(3, 3)  # a new storage starts at x's count
    assert x._version == 6
    assert pdt.ones(0, device=device).resize_(3)._version == 1
    assert x.resize_as_(pdt.ones(9, device=device))._version == 7


def test_resize_refusals(device):
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        pdt.ones(3, device=device, requires_grad=True).resize_(2)
    pdt.ones(3, device=device, requires_grad=True).detach().resize_(2)
    with pytest.raises(RuntimeError, match="negative dimension"):
        pdt.ones(3, device=device).resize_(-1)
    with pytest.raises(TypeError, match="tuple of ints"):
        pdt.ones(3, device=device).resize_(2.5)
    with pytest.raises(RuntimeError, match="required rank 4"):
        pdt.ones(3, device=device).resize_(3, memory_format=pdt.channels_last)
    with pytest.raises(TypeError, match="the_template"):
        pdt.ones(3, device=device).resize_as_([1])


def test_is_same_size_real_imag_and_new_empty_strided(device):
    x = pdt.zeros(2, 3, device=device)
    assert x.is_same_size(pdt.ones(2, 3, dtype=pdt.int64, device=device))
    assert not x.is_same_size(pdt.ones(3, 2, device=device))
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        x.is_same_size([1])
    assert x.real is x
    with pytest.raises(TypeError, match="imag is not implemented for tensors with non-complex"):
        x.imag
    e = x.new_empty_strided((2, 3), (1, 2))
    assert e.stride() == (1, 2) and e.dtype == pdt.float32 and e.device == x.device
    e = x.new_empty_strided((2,), (1,), dtype=pdt.int64, layout=pdt.strided)
    assert e.dtype == pdt.int64 and e.shape == (2,)
    with pytest.raises(ValueError, match="only the strided layout"):
        x.new_empty_strided((2,), (1,), layout="sparse_coo")


def test_strided_layout():
    assert repr(pdt.strided) == "pydevtensor.strided" and isinstance(pdt.strided, pdt.layout)
    assert pickle.loads(pickle.dumps(pdt.strided)) is pdt.strided
    for op, pick in ((pdt.tril_indices, np.tril_indices), (pdt.triu_indices, np.triu_indices)):
        np.testing.assert_array_equal(_np(op(3, 4, 1, layout=pdt.strided)), pick(3, 1, 4))
        with pytest.raises(ValueError, match="only the strided layout"):
            op(3, 4, layout="sparse")


def test_resize_refuses_to_grow_another_librarys_memory():
    # PyTorch's rule: a storage from NumPy (or DLPack) cannot grow; shrinking and sizes
    # that fit keep sharing it
    a = np.arange(6, dtype=np.float32)
    t = pdt.from_numpy(a)
    with pytest.raises(RuntimeError, match="not resizable.*6 elements, 12 needed"):
        t.resize_(3, 4)
    assert tuple(t.shape) == (6,)
    t.resize_(2, 2).fill_(7.0)
    assert a.tolist() == [7.0, 7.0, 7.0, 7.0, 4.0, 5.0]
    grown = pdt.arange(6.0).resize_(3, 4)  # pydevtensor's own storage grows
    assert grown.shape == (3, 4)
