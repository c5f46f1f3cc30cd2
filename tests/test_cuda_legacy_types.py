"""torch.cuda's legacy typed tensors: cuda.FloatTensor, DoubleTensor, LongTensor, IntTensor
and BoolTensor (pydevtensor/_tensor_legacy.py), their isinstance, x.type() and
x.type(cls); on the CUDA devices (the emulated one in CI) and without a GPU."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_AVAILABLE, CUDA_DEVICES


TYPED = [("FloatTensor", pdt.float32), ("DoubleTensor", pdt.float64),
         ("LongTensor", pdt.int64), ("IntTensor", pdt.int32), ("BoolTensor", pdt.bool)]


@pytest.mark.parametrize("name,dtype", TYPED)
def test_isinstance_of_a_typed_cuda_tensor_checks_dtype_and_device(device, name, dtype):
    cuda_type, cpu_type = getattr(pdt.cuda, name), getattr(pdt, name)
    x = pdt.zeros(3, dtype=dtype, device=device)
    on_gpu = x.device.type == "cuda"
    assert isinstance(x, cuda_type) == on_gpu and isinstance(x, cpu_type) == (not on_gpu)
    other = pdt.float64 if dtype != pdt.float64 else pdt.float32
    assert not isinstance(x.to(other), cuda_type)
    assert cuda_type.dtype == dtype and cuda_type.is_cuda and not cpu_type.is_cuda
    assert cuda_type.__module__ == "pydevtensor.cuda" and cuda_type.__name__ == name
    assert x.type() == ("pydevtensor.cuda." if on_gpu else "pydevtensor.") + name


@pytest.mark.cuda
@pytest.mark.parametrize("name,dtype", TYPED)
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_typed_cuda_tensors_are_made_on_the_current_cuda_device(dev, name, dtype):
    cuda_type = getattr(pdt.cuda, name)
    data = [1, 0, 3]
    with pdt.cuda.device(dev):
        x = cuda_type(data)
        sized = cuda_type(2, 3)
        empty = cuda_type()
        moved = pdt.tensor(data).type(cuda_type)  # x.type(cls) moves to the current GPU
    for t in (x, sized, empty, moved):
        assert t.device == pdt.device(dev) and t.dtype == dtype
        assert isinstance(t, cuda_type) and t.type() == f"pydevtensor.cuda.{name}"
    ref = np.array(data).astype(pdt.empty(0, dtype=dtype).numpy().dtype)
    assert np.array_equal(x.cpu().numpy(), ref) and np.array_equal(moved.cpu().numpy(), ref)
    assert sized.shape == (2, 3) and not sized.cpu().numpy().any() and empty.shape == (0,)
    assert cuda_type(x) is x
    assert x.type(getattr(pdt, name)).device.type == "cpu"  # the CPU class moves back
    assert cuda_type([1], device=dev).device == pdt.device(dev)
    with pytest.raises(TypeError, match=rf"cuda\.{name}\(t\): t is a tensor of shape \(3,\) "
                                        r"on cpu; .* holds CUDA tensors"):
        cuda_type(pdt.tensor(data, dtype=dtype))
    with pytest.raises(pdt.DeviceError, match="expects device type: cuda but device type: "
                                              "cpu was passed"):
        cuda_type([1], device="cpu")


@pytest.mark.skipif(CUDA_AVAILABLE, reason="the answers without a GPU")
@pytest.mark.parametrize("name", [n for n, _ in TYPED])
def test_typed_cuda_tensors_without_a_gpu_raise_as_torch(name):
    """torch.cuda.FloatTensor([1]) and x.type(torch.cuda.FloatTensor) raise RuntimeError
    without a GPU; pydevtensor.DeviceError is one, and says why."""
    cuda_type = getattr(pdt.cuda, name)
    with pytest.raises(pdt.DeviceError, match="cuda:0"):
        cuda_type([1])
    with pytest.raises(pdt.DeviceError, match="cuda:0"):
        pdt.ones(2).type(cuda_type)
    assert not isinstance(pdt.ones(2, dtype=cuda_type.dtype), cuda_type)


@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES)
def test_typed_cuda_tensors_take_a_cuda_index_as_device(dev):
    """torch.cuda.FloatTensor(2, device=1): an int is a CUDA index, as for every factory
    (pydevtensor.zeros(2, device=1)); it was refused as an ambiguous device(int)."""
    index = pdt.device(dev).index
    for made in (pdt.cuda.FloatTensor(2, 3, device=index),
                 pdt.cuda.LongTensor([1, 2], device=index)):
        assert made.device == pdt.device(dev) == pdt.zeros(1, device=index).device
    assert np.array_equal(pdt.cuda.LongTensor([1, 2], device=index).cpu().numpy(), [1, 2])
