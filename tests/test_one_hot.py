"""nn.functional.one_hot on every device: int64 (*, C) against NumPy's np.eye(C)[classes]
(exact), C inferred as max + 1, int32 classes, empty tensors, the errors (a class out
of range named, a non-integer dtype a TypeError), and how many copies to the host it
makes (none on a GPU when num_classes is given, one when C is inferred)."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_DEVICES, DEVICES, torch_or_skip
from pydevtensor.nn import functional as F


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def _reference(classes, c):
    return np.eye(c, dtype=np.int64)[classes]


@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (2, 1, 4)])
@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_one_hot_matches_numpy(dev, shape, dtype):
    rng = np.random.default_rng(3)
    classes = rng.integers(0, 6, size=shape).astype(dtype)
    x = pdt.tensor(classes, device=dev)
    got = F.one_hot(x, num_classes=7)
    assert got.dtype == pdt.int64 and got.device == pdt.device(dev)
    assert tuple(got.shape) == shape + (7,)
    np.testing.assert_array_equal(got.cpu().numpy(), _reference(classes, 7))
    inferred = F.one_hot(x)  # C = max + 1
    c = int(classes.max()) + 1
    assert tuple(inferred.shape) == shape + (c,)
    np.testing.assert_array_equal(inferred.cpu().numpy(), _reference(classes, c))


def test_one_hot_of_an_empty_tensor(dev):
    x = pdt.zeros(0, 3, dtype=pdt.int64, device=dev)
    got = F.one_hot(x, 4)
    assert tuple(got.shape) == (0, 3, 4) and got.dtype == pdt.int64
    with pytest.raises(RuntimeError, match=r"one_hot\(\): cannot infer the number of classes "
                                           r"from an empty tensor of shape \(0, 3\)"):
        F.one_hot(x)


def test_one_hot_as_torch_does():
    torch = torch_or_skip()
    classes = np.array([[3, 0], [1, 1], [0, 2]])
    got = F.one_hot(pdt.tensor(classes)).numpy()
    want = torch.nn.functional.one_hot(torch.tensor(classes)).numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, _reference(classes, 4))


def test_one_hot_errors_name_the_class(dev):
    x = pdt.tensor([0, 4, 2], device=dev)
    if pdt.device(dev).type == "cpu":  # read for free on the CPU only
        with pytest.raises(RuntimeError, match=r"one_hot\(\): class 4 is out of range for "
                                               r"num_classes=4 .* shape \(3,\) on cpu"):
            F.one_hot(x, 4)
        with pytest.raises(RuntimeError, match=r"class -1 is out of range for num_classes=4"):
            F.one_hot(pdt.tensor([2, -1, 9]), 4)  # the negative one first
    with pytest.raises(RuntimeError, match=r"class -3 is out of range for num_classes=3"):
        F.one_hot(pdt.tensor([-3, 2], device=dev))  # inferred: read on every device
    with pytest.raises(TypeError, match=r"one_hot\(\): input must hold integer class "
                                        r"indices \(int64 or int32\), got pydevtensor.float32"):
        F.one_hot(pdt.tensor([0.0, 1.0], device=dev))
    with pytest.raises(TypeError, match=r"num_classes must be an int, got float"):
        F.one_hot(x, 5.0)
    with pytest.raises(RuntimeError, match=r"num_classes must be -1 \(inferred\) or >= 0, got -2"):
        F.one_hot(x, -2)
    with pytest.raises(TypeError, match=r"input must be a Tensor, got list"):
        F.one_hot([0, 1], 2)


def test_one_hot_keywords_are_torchs(dev):
    """The classes are keyword input (PyTorch's name for them), not tensor."""
    got = F.one_hot(input=pdt.tensor([[2], [0]], device=dev), num_classes=3)
    np.testing.assert_array_equal(got.cpu().numpy(), _reference(np.array([[2], [0]]), 3))
    with pytest.raises(TypeError, match="tensor"):
        F.one_hot(tensor=pdt.tensor([1], device=dev), num_classes=3)


@pytest.mark.cuda
@pytest.mark.parametrize("dev", CUDA_DEVICES or ["cuda:0"])  # skipped without one
def test_one_hot_on_a_gpu_copies_to_the_host_only_to_infer(dev):
    x = pdt.tensor([1, 0, 3], device=dev)
    pdt.reset_transfer_stats()
    F.one_hot(x, 5)
    assert pdt.transfer_stats()["device_to_host"]["count"] == 0
    F.one_hot(x)
    assert pdt.transfer_stats()["device_to_host"]["count"] == 1
    # not read: an out-of-range class gives a row of zeros
    got = F.one_hot(pdt.tensor([1, 7], device=dev), 3).cpu().numpy()
    np.testing.assert_array_equal(got, [[0, 1, 0], [0, 0, 0]])
