"""The zero-copy basics of the NumPy boundary that tensors need from the start:
.numpy(), from_numpy() and the buffer protocol (issue 3; issue 5 adds the rest)."""
import gc

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DTYPES, torch_or_skip


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_is_zero_copy_and_keeps_the_tensor_alive(dtype):
    x = pdt.zeros(2, 3, dtype=dtype)
    a = x.numpy()
    assert a.dtype == np.dtype(dtype) and a.shape == (2, 3)
    assert a.ctypes.data == x.data_ptr()
    a[1, 2] = 1
    assert x.tolist()[1][2] == 1
    ptr = x.data_ptr()
    del x
    gc.collect()
    assert a.ctypes.data == ptr and a[1, 2] == 1  # the array's base keeps the storage


@pytest.mark.parametrize("dtype", DTYPES)
def test_from_numpy_shares_memory(dtype):
    a = np.zeros((4, 5), dtype=dtype)
    t = pdt.from_numpy(a)
    assert t.dtype.name == dtype and t.shape == (4, 5) and t.data_ptr() == a.ctypes.data
    t[2].copy_(pdt.ones(5, dtype=dtype))
    assert a[2].all() and not a[1].any()
    del a
    gc.collect()
    assert t.tolist()[2][0] == 1  # the tensor keeps the array's memory alive


def test_from_numpy_strided_views():
    a = np.arange(30, dtype=np.float64).reshape(5, 6)
    for v in (a[::2], a[:, ::-1], a.T, a[1:4, 2:5]):
        t = pdt.from_numpy(v)
        assert t.tolist() == v.tolist()
        assert t.data_ptr() == v.ctypes.data
    assert pdt.from_numpy(a.T).stride() == (1, 6)


def test_memoryview_of_a_cpu_tensor():
    x = pdt.arange(6, dtype=pdt.float32)
    m = memoryview(x)
    assert m.format == "f" and m.shape == (6,) and m.tolist() == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("bad,exc,pattern", [
    (lambda: pdt.from_numpy([1, 2]), TypeError, "expected a numpy.ndarray"),
    (lambda: pdt.from_numpy(np.zeros(3, dtype=np.uint16)), TypeError, "has no uint16 dtype"),
    (lambda: pdt.from_numpy(np.zeros(3, dtype=np.complex64)), TypeError, "unsupported"),
    (lambda: pdt.from_numpy(np.zeros(3, dtype=">f4")), ValueError,
     "stored in the other byte order"),
])
def test_from_numpy_bad_input(bad, exc, pattern):
    with pytest.raises(exc, match=pattern):
        bad()


def test_from_numpy_read_only_array():
    a = np.zeros(3)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        pdt.from_numpy(a)
    assert pdt.tensor(a).tolist() == [0.0, 0.0, 0.0]  # tensor() copies, so it works


def test_scalars():
    assert pdt.tensor([[2.5]]).item() == 2.5 and float(pdt.tensor(2)) == 2.0
    assert int(pdt.tensor(7.9)) == 7 and bool(pdt.tensor([True]))
    with pytest.raises(ValueError, match="one element.*3 elements"):
        pdt.ones(3).item()
    with pytest.raises(ValueError, match="one element"):
        bool(pdt.ones(2))


def test_index_of_a_one_element_integer_tensor(device):
    # operator.index, as PyTorch: a list, a range or a shape takes an integer tensor
    import operator
    assert ["a", "b", "c"][pdt.tensor(1, device=device)] == "b"
    assert range(10)[pdt.tensor([[7]], dtype=pdt.int32, device=device)] == 7
    assert operator.index(pdt.tensor(True, device=device)) == 1
    assert tuple(pdt.zeros(pdt.tensor(3, device=device)).shape) == (3,)
    for bad, what in ((pdt.tensor(1.0, device=device), "float32 with 1 elements"),
                      (pdt.tensor([1, 2], device=device), "int64 with 2 elements")):
        with pytest.raises(TypeError, match=f"only integer tensors of a single element can be "
                                            f"converted to an index \\(this one is {what}"):
            operator.index(bad)


@pytest.mark.cuda
def test_gpu_tensor_numpy_needs_an_explicit_copy():
    g = pdt.ones(3, device="cuda")
    with pytest.raises(TypeError, match="can't convert cuda:0 tensor to NumPy"):
        g.numpy()
    with pytest.raises(BufferError):
        memoryview(g)
    pdt.reset_transfer_stats()
    assert g.numpy(force=True).tolist() == [1, 1, 1]
    assert pdt.transfer_stats()["device_to_host"]["count"] == 1


def test_tensor_of_a_torch_tensor_copies_it_through_dlpack():
    # a torch tensor has __index__, so it looked like a number: tensor() raised torch's
    # "only integer tensors of a single element can be converted to an index"
    torch = torch_or_skip()
    src = torch.arange(6, dtype=torch.float64).reshape(2, 3).T
    t = pdt.tensor(src)
    assert t.dtype == pdt.float64 and t.tolist() == src.tolist()
    src.add_(1)  # tensor() copies
    assert t.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert pdt.tensor(torch.tensor(2.5)).item() == 2.5
