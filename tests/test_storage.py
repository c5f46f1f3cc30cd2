"""Storages (PyTorch's untyped_storage, storage, UntypedStorage, TypedStorage) and
Tensor.is_set_to / Tensor.set_, on every device: base addresses, sizes, bytes against
NumPy's, the storage kept alive, views after set_."""
import gc
import warnings

import numpy as np
import pytest

import pydevtensor as pdt


def test_untyped_storage_is_the_whole_storage(device):
    a = np.arange(6, dtype=np.float32)
    x = pdt.tensor(a, device=device)
    s = x[2:].untyped_storage()
    assert isinstance(s, pdt.UntypedStorage)
    assert s.data_ptr() == x.untyped_storage().data_ptr() == x.data_ptr()
    assert s.nbytes() == s.size() == len(s) == 24 and s.element_size() == 1
    assert s.device == device and s.is_shared() == (device.type != "cpu")
    assert s.tolist() == list(a.tobytes()) and s[7] == a.tobytes()[7]
    assert s.cpu().tolist() == list(a.tobytes()) and s.cpu().device.type == "cpu"


def test_typed_storage_warns_once_and_reads_elements(device):
    pdt._storage._warned.clear()
    x = pdt.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=pdt.float64, device=device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = x[1].storage()
        x.storage()
    assert [str(w.message)[:26] for w in caught] == ["TypedStorage is deprecated"]
    assert isinstance(s, pdt.TypedStorage) and s.dtype == pdt.float64
    assert s.size() == len(s) == 4 and s[2] == 3.0 and s.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert s.data_ptr() == x.data_ptr() and s.nbytes() == 32 and s.element_size() == 8
    u = s.untyped()
    assert isinstance(u, pdt.UntypedStorage) and u.nbytes() == 32
    assert u.tolist() == list(np.array([1.0, 2.0, 3.0, 4.0]).tobytes())


def test_a_storage_keeps_its_memory_alive(device):
    x = pdt.tensor([1.0, 2.0, 3.0], device=device)
    s, ptr = x.untyped_storage(), x.data_ptr()
    x.data = pdt.zeros(5, device=device)  # x leaves the storage
    del x
    gc.collect()
    pdt.ones(3, device=device)  # would reuse freed memory
    assert s.data_ptr() == ptr and s.tolist() == list(np.float32([1, 2, 3]).tobytes())


def test_set_to_a_tensor_shares_its_view(device):
    y = pdt.arange(5.0, device=device)
    x = pdt.zeros(2, device=device)
    version = x._version
    assert x.set_(y[1:]) is x and x._version == version + 1
    assert x.is_set_to(y[1:]) and y[1:].is_set_to(x) and not x.is_set_to(y)
    assert x.storage_offset() == 1 and x.stride() == (1,) and tuple(x.shape) == (4,)
    y[2] = 10.0  # shared memory
    np.testing.assert_array_equal(x.cpu().numpy(), [1.0, 10.0, 3.0, 4.0])
    assert x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
    x.set_(y, 1, (2, 2), (1, 2))
    np.testing.assert_array_equal(x.cpu().numpy(), [[1.0, 3.0], [10.0, 4.0]])
    x.set_(y.untyped_storage(), 3, (2,))
    np.testing.assert_array_equal(x.cpu().numpy(), [3.0, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x.set_(y.storage(), 0, (2, 2))  # contiguous strides by default
    np.testing.assert_array_equal(x.cpu().numpy(), [[0.0, 1.0], [10.0, 3.0]])
    x.set_()
    assert tuple(x.shape) == (0,) and x.device == device
    assert pdt.zeros(0, device=device).is_set_to(pdt.zeros(0, device=device)) is False


def test_set_refusals(device):
    y = pdt.arange(4.0, device=device)
    with pytest.raises(RuntimeError, match="out of bounds for a storage of 4 elements"):
        pdt.zeros(1, device=device).set_(y, 2, (3,))  # PyTorch would grow y's storage
    with pytest.raises(RuntimeError, match="could not set a tensor of .*float64 to a source "
                                           "of .*float32"):
        pdt.zeros(1, dtype=pdt.float64, device=device).set_(y)
    leaf = pdt.zeros(2, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        leaf.set_(y)
    with pytest.raises(RuntimeError, match="set_\\(\\) is not differentiable"):
        pdt.zeros(2, device=device).set_(y.clone().requires_grad_())
    with pdt.no_grad():
        leaf.set_(y)
    assert leaf.requires_grad and leaf.is_set_to(y)
    with pytest.raises(RuntimeError, match="self is a view of another tensor"):
        y[1:].set_(pdt.zeros(2, device=device))
    with pytest.raises(TypeError, match="source must be a Tensor or a storage, got list"):
        pdt.zeros(1, device=device).set_([1.0])
    with pytest.raises(TypeError, match="is_set_to\\(\\): expected a Tensor, got int"):
        y.is_set_to(3)
