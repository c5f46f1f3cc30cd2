"""isnan, isinf, isfinite and signbit: from the bits in one pass where the device has the kernel
(csrc/cpu/cpu_classify.c, pydevtensor._C._classify), composed from comparisons where it
has none (CUDA) or for views; the same answers as NumPy on every float dtype, NaNs of
every payload and sign included."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C

from conftest import DEVICES

FUNCS = [(pdt.isnan, np.isnan, 0), (pdt.isinf, np.isinf, 1), (pdt.isfinite, np.isfinite, 2),
         (pdt.signbit, np.signbit, 3)]  # signbit: a NaN's sign too (an integer view)


def sample(n=200_003, seed=0):
    """float32 values of every kind: normal, subnormal, zeros, infinities, and NaNs with
    other payloads (signalling ones too) and both signs; a count past the split
    between threads."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    special = np.array([0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
                        0x7f800001, 0xff800001, 0x7fbfffff, 0x00000001, 0x7f7fffff],
                       dtype=np.uint32)
    bits[:special.size] = special
    bits[special.size::7] |= 0x7f800000  # many infinities and NaNs
    return bits.view(np.float32)


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_classes_match_numpy_on_every_device(dev, dtype):
    x32 = sample()
    t = pdt.tensor(x32, device=dev).to(getattr(pdt, dtype))
    wide = np.asarray(t.float().cpu())  # the values t holds, exactly, as float32
    for f, ref, _ in FUNCS:
        got = f(t)
        assert got.dtype == pdt.bool and got.device == t.device and got.shape == t.shape
        np.testing.assert_array_equal(np.asarray(got.cpu()), ref(wide), err_msg=f.__name__)
        view = t[1::3]  # not contiguous: composed
        np.testing.assert_array_equal(np.asarray(f(view).cpu()), ref(wide[1::3]),
                                      err_msg=f.__name__)


def test_the_kernel_where_the_device_has_it(dev):
    t = pdt.tensor(sample(1000), device=dev)
    for _, _, which in FUNCS:
        got = _C._classify(t, which)
        if pdt.device(dev).type == "cuda":
            assert got is None  # no CUDA kernel: composed
        else:
            assert got is not None and got.dtype == pdt.bool
        assert _C._classify(t[::2], which) is None
        assert _C._classify(pdt.zeros(0, device=dev), which) is None
        assert _C._classify(pdt.zeros(3, dtype=pdt.int32, device=dev), which) is None
    with pytest.raises(ValueError, match="which must be 0, 1, 2 or 3, got 4"):
        _C._classify(t, 4)
    for f, _, _ in FUNCS[:3]:  # integers: never NaN or infinite
        r = f(pdt.tensor([1, -2], device=dev))
        assert np.asarray(r.cpu()).tolist() == ([True, True] if f is pdt.isfinite else
                                                [False, False])


@pytest.mark.parametrize("level", _C._cpu_simd_level()[1])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_every_instruction_set_level(level, dtype, level_restored):
    """Every floating dtype's rows run the level's kernels (cpu_vclassify.h)."""
    _C._cpu_simd_level(level)
    t = pdt.tensor(sample(4099, seed=1)).to(getattr(pdt, dtype))
    wide = np.asarray(t.float())  # the values t holds, exactly
    for f, ref, _ in FUNCS:
        np.testing.assert_array_equal(np.asarray(f(t)), ref(wide), err_msg=f"{f.__name__} {level}")
