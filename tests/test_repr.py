"""repr() and str() follow PyTorch (issue 3)."""
import pytest

import pydevtensor as pdt


@pytest.mark.parametrize("make,expected", [
    (lambda: pdt.ones(2, 3), "tensor([[1., 1., 1.],\n        [1., 1., 1.]])"),
    (lambda: pdt.arange(4), "tensor([0, 1, 2, 3])"),
    (lambda: pdt.tensor([0.5, -1.25]), "tensor([ 0.5000, -1.2500])"),
    (lambda: pdt.tensor([1, 2], dtype=pdt.int32), "tensor([1, 2], dtype=pydevtensor.int32)"),
    (lambda: pdt.tensor([1.0, 2.0], dtype=pdt.float64),
     "tensor([1., 2.], dtype=pydevtensor.float64)"),
    (lambda: pdt.tensor([True, False]), "tensor([ True, False])"),
    (lambda: pdt.tensor(3.5), "tensor(3.5000)"),
    (lambda: pdt.zeros(0), "tensor([])"),
    (lambda: pdt.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: pdt.tensor([1e-5, 3.0]), "tensor([1.0000e-05, 3.0000e+00])"),
    (lambda: pdt.tensor([float("nan"), float("inf"), 1.0]), "tensor([nan, inf, 1.])"),
])
def test_repr_matches_pytorch(make, expected):
    t = make()
    assert repr(t) == expected
    assert str(t) == expected


def test_large_tensors_are_summarised():
    r = repr(pdt.arange(2000))
    assert r == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"
    big = repr(pdt.zeros(40, 40))
    assert big.count("\n") == 6 and "...," in big


def test_repr_of_a_gpu_tensor_names_the_device_and_counts_the_copy():
    if not pdt.cuda.is_available():
        pytest.skip("needs a CUDA GPU: " + str(pdt.cuda.unavailable_reason()))
    x = pdt.ones(2, 3, device="cuda:0")
    pdt.reset_transfer_stats()
    assert repr(x) == "tensor([[1., 1., 1.],\n        [1., 1., 1.]], device='cuda:0')"
    assert pdt.transfer_stats()["device_to_host"]["count"] == 1
