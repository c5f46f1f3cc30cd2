"""torch.cuda.nccl (pydevtensor/_cuda_nccl.py): version() from the NCCL library this build
loads, is_available(tensors); with NCCL (the emulated one in CI) and without."""
import warnings

import pytest

import pydevtensor as pdt
from conftest import CUDA_DEVICES


def test_nccl_version_codes_decode_as_nccl_h_encodes_them():
    from pydevtensor._cuda_nccl import _code_to_version
    # nccl.h: NCCL_VERSION(X, Y, Z) = X*10000 + Y*100 + Z since 2.9, X*1000 + Y*100 + Z
    # before
    for x, y, z in [(2, 9, 6), (2, 18, 5), (2, 27, 3), (3, 0, 1)]:
        assert _code_to_version(x * 10000 + y * 100 + z) == (x, y, z)
    assert _code_to_version(2 * 1000 + 8 * 100 + 4) == (2, 8, 4)


def test_nccl_version_is_the_loaded_librarys_or_raises():
    assert pdt.cuda.nccl is __import__("pydevtensor.cuda.nccl").cuda.nccl
    code = pdt._C._nccl_version()
    if code:
        version = pdt.cuda.nccl.version()
        assert len(version) == 3 and all(isinstance(v, int) for v in version)
        assert version[0] >= 2 and version == (code // 10000, code % 10000 // 100, code % 100)
    else:
        with pytest.raises(RuntimeError, match=r"cuda\.nccl\.version\(\): NCCL is not "
                                               r"available: (pydevtensor was built without "
                                               r"CUDA|libnccl\.so\.2 could not be loaded)"):
            pdt.cuda.nccl.version()


def test_nccl_is_available_takes_contiguous_cuda_tensors_on_distinct_gpus(device):
    x = pdt.ones(4, 2, device=device)
    if not pdt._C._nccl_available():
        with pytest.warns(UserWarning, match="pydevtensor has no NCCL here") as seen:
            assert pdt.cuda.nccl.is_available([x]) is False
        assert seen[0].filename == __file__  # the warning points at the caller
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pdt.cuda.nccl.is_available([x]) == x.is_cuda
        assert pdt.cuda.nccl.is_available(iter([x])) == x.is_cuda
        assert pdt.cuda.nccl.is_available([x.t()]) is False  # not contiguous
        assert pdt.cuda.nccl.is_available([x, x.clone()]) is False  # one device twice
        assert pdt.cuda.nccl.is_available([]) is True  # as PyTorch's


@pytest.mark.cuda
def test_nccl_is_available_counts_logical_devices_of_one_gpu_as_one():
    if not pdt._C._nccl_available():
        pytest.skip("NCCL does not load here")
    gpus = pdt._C._logical_device_map(pdt._C._KIND_CUDA)  # logical index -> its GPU
    # every logical device, whichever the single-device tests run on (CUDA_DEVICES):
    # two of one split GPU are one GPU to NCCL
    tensors = [pdt.ones(2, device=f"cuda:{i}") for i in range(len(gpus))]
    assert pdt.cuda.nccl.is_available(tensors) == (len(set(gpus)) == len(gpus))
    assert all(pdt.cuda.nccl.is_available([pdt.ones(2, device=d)]) for d in CUDA_DEVICES)


def test_nccl_is_available_refuses_what_is_not_a_tensor():
    with pytest.raises(TypeError, match=r"cuda\.nccl\.is_available\(\): expected tensors, "
                                        r"got list"):
        pdt.cuda.nccl.is_available([[1.0]])
