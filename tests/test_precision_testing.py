"""Top-level switches and helpers scripts from torch use: backends.cudnn / mps,
set/get_float32_matmul_precision (wired to backends.cuda.matmul.allow_tf32),
use_deterministic_algorithms, testing.assert_close (torch's tolerances and messages),
version, cuda.is_bf16_supported; against torch when importable."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor.testing import assert_close


def test_backends_cudnn_and_mps():
    c = pdt.backends.cudnn
    assert (c.benchmark, c.deterministic, c.enabled, c.allow_tf32) == (False, False, True, True)
    c.benchmark = True
    assert pdt.backends.cudnn.benchmark is True
    c.benchmark = False
    assert c.is_available() is False and c.version() is None
    assert pdt.backends.mps.is_available() is False and pdt.backends.mps.is_built() is False


def test_matmul_precision_like_torch():
    torch = torch_or_skip()
    try:
        for p in ["high", "medium", "highest"]:
            pdt.set_float32_matmul_precision(p)
            torch.set_float32_matmul_precision(p)
            assert pdt.get_float32_matmul_precision() == torch.get_float32_matmul_precision()
            assert pdt.backends.cuda.matmul.allow_tf32 == torch.backends.cuda.matmul.allow_tf32
        pdt.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cuda.matmul.allow_tf32 = True
        assert pdt.get_float32_matmul_precision() == torch.get_float32_matmul_precision()
        with pytest.warns(UserWarning, match="has no effect"):
            pdt.set_float32_matmul_precision("bogus")
    finally:
        pdt.set_float32_matmul_precision("highest")
        torch.set_float32_matmul_precision("highest")


def test_deterministic_switch():
    try:
        pdt.use_deterministic_algorithms(True, warn_only=True)
        assert pdt.are_deterministic_algorithms_enabled()
        assert pdt.is_deterministic_algorithms_warn_only_enabled()
        with pytest.raises(TypeError, match="must be bool"):
            pdt.use_deterministic_algorithms(1)
    finally:
        pdt.use_deterministic_algorithms(False)
    assert not pdt.are_deterministic_algorithms_enabled()


def test_version_and_bf16():
    assert pdt.version.__version__ == pdt.build_info()["version"]
    assert (pdt.version.cuda is None) == (not pdt.build_info()["cuda"]["built"])
    assert pdt.cuda.is_bf16_supported() in (True, False)
    if not pdt.cuda.is_available():
        assert pdt.cuda.is_bf16_supported() is False


def _pairs(m):
    t = m.tensor
    return [(t([1.0, 2.0, 3.0]), t([1.0, 2.5, 3.0]), {}),
            (t([1.0, 2.0]), t([1.0, 2.0 + 1e-6]), {}),
            (m.ones(2), m.ones(3), {}),
            (m.ones(2), m.ones(2, dtype=m.float64), {}),
            (m.ones(2), m.ones(2, dtype=m.float64), {"check_dtype": False}),
            (m.ones(2), 1.0, {}),
            (t([float("nan")]), t([float("nan")]), {}),
            (t([float("nan")]), t([float("nan")]), {"equal_nan": True}),
            (t([float("inf")]), t([float("inf")]), {}),
            (m.ones(2), m.ones(2), {"rtol": 1}),
            (t([1.0]), t([1.05]), {"rtol": 0.1, "atol": 0.0}),
            ([m.ones(1), m.zeros(1)], [m.ones(1), m.ones(1)], {}),
            ({"a": m.ones(1)}, {"a": m.zeros(1)}, {}),
            (1, 1.0, {}), (1.0, 1.0 + 1e-9, {}),
            (t([1, 2]), t([1, 3]), {}),
            (t([1.0], dtype=m.float16), t([1.0005], dtype=m.float16), {})]


def test_assert_close_like_torch():
    torch = torch_or_skip()
    for (a, b, kw), (ta, tb, _) in zip(_pairs(pdt), _pairs(torch)):
        try:
            torch.testing.assert_close(ta, tb, **kw)
            theirs = None
        except Exception as e:  # noqa: BLE001 (the class is compared)
            theirs = e
        try:
            assert_close(a, b, **kw)
            ours = None
        except Exception as e:  # noqa: BLE001
            ours = e
        assert type(ours) is type(theirs), (a, b, kw, ours, theirs)
        if theirs is not None:
            first = lambda e: str(e).splitlines()[0].replace("torch.", "").replace(  # noqa: E731
                "pydevtensor.", "")
            assert first(ours) == first(theirs)
            if "Mismatched elements" in str(theirs):
                assert str(theirs).splitlines()[2] == str(ours).splitlines()[2]
            if "item" in str(theirs).splitlines()[-1]:
                assert str(ours).splitlines()[-1] == str(theirs).splitlines()[-1]


def test_assert_close_devices_and_msg(device):
    x = pdt.ones(2, device=device)
    assert_close(x, pdt.ones(2, device=device))
    if device.type != "cpu" or device.index not in (None, 0):
        with pytest.raises(AssertionError, match="'device' do not match"):
            assert_close(x, pdt.ones(2))
        assert_close(x, pdt.ones(2), check_device=False)
    with pytest.raises(AssertionError, match="^custom$"):
        assert_close(x, x + 1, msg="custom")
    with pytest.raises(AssertionError, match="^wrapped: Tensor-likes"):
        assert_close(x, x + 1, msg=lambda m: "wrapped: " + m)
    assert_close(np.ones(2), np.ones(2))


def _message(a, b, **kw):
    with pytest.raises(AssertionError) as info:
        assert_close(a, b, **kw)
    return str(info.value)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_assert_close_infinite_difference_fails(device, dtype):
    # |inf - (-inf)| = inf was within an infinite tolerance and passed
    dt = getattr(pdt, dtype)
    inf = float("inf")
    for a, b in (([inf, 1.0], [-inf, 1.0]), ([1.0, -inf], [1.0, inf]), ([2.0], [inf]),
                 ([inf], [2.0])):
        text = _message(pdt.tensor(a, dtype=dt, device=device),
                        pdt.tensor(b, dtype=dt, device=device))
        assert "Mismatched elements: 1 / " in text
    assert_close(pdt.tensor([inf, -inf], dtype=dt, device=device),
                 pdt.tensor([inf, -inf], dtype=dt, device=device))


def test_assert_close_python_floats_use_float64_tolerances():
    # Python floats were compared with float32's (1.3e-6, 1e-5), 13 times too loose
    assert_close(1.0, 1.0 + 9e-8)
    text = _message(1.0, 1.0 + 1e-6)
    assert "(up to 1e-07 allowed)" in text.splitlines()[3]
    assert "(up to 1e-07 allowed)" in text.splitlines()[4]
    _message(1.0, 1.0 + 1e-6j)
    _message(0, 1e-6, check_dtype=False)
    assert_close(1, 1)
    assert _message(1, 2).startswith("Scalars are not equal!")


def test_assert_close_zero_dim_scalar_message(device):
    a = pdt.tensor(0.5, dtype=pdt.float64, device=device)
    e = pdt.tensor(0.25, dtype=pdt.float64, device=device)
    assert _message(a, e).splitlines() == [
        "Scalars are not close!", "", "Expected 0.25 but got 0.5.",
        "Absolute difference: 0.25 (up to 1e-07 allowed)",
        "Relative difference: 1.0 (up to 1e-07 allowed)"]
    b = pdt.tensor(True, device=device)
    assert _message(b, ~b).splitlines()[2] == "Expected False but got True."
    z = pdt.tensor(1, device=device)
    assert _message(z, z * 0).splitlines()[-1] == "Relative difference: inf"


def test_assert_close_none_bools_numpy_scalars():
    assert_close(None, None)
    assert_close([None, 1.0], [None, 1.0])
    assert _message(None, 1.0) == "None mismatch: None is not 1.0"
    assert_close(True, np.bool_(True))
    assert _message(True, False) == "Booleans mismatch: True is not False"
    assert_close(np.float64(1.5), np.float64(1.5))
    assert_close(np.float32(1.5), 1.5, check_dtype=False)
    assert _message(np.float64(1.0), np.float64(2.0)).startswith("Scalars are not close!")


def test_assert_close_check_stride(device):
    a = pdt.arange(6.0, device=device).reshape(2, 3)
    b = a.t().contiguous().t()
    assert_close(a, b)
    assert _message(a, b, check_stride=True) == (
        "The values for attribute 'stride()' do not match: (3, 1) != (1, 2).")
    assert_close(a, a.clone(), check_stride=True)


def test_assert_close_msg_and_structure_messages():
    # msg replaces the messages of the comparisons, not those of the structure
    # (PyTorch's); a str msg no longer gets the failing item appended
    assert _message([1.0, 2.0], [1.0, 3.0], msg="custom") == "custom"
    assert _message([1.0], [1.0, 2.0], msg="custom") == (
        "The length of the sequences mismatch: 1 != 2")
    assert _message({"a": 1.0}, {"b": 1.0}, msg="custom") == (
        "The keys of the mappings do not match:\nMissing keys in the actual mapping: ['b']\n"
        "Additional keys in the actual mapping: ['a']")
    assert _message([1.0, 2.0], [1.0, 3.0], msg=lambda m: m.upper()).endswith(
        "THE FAILURE OCCURRED FOR ITEM [1]")
    with pytest.raises(TypeError, match="No comparison pair"):
        assert_close(["a"], ["a"], msg="custom")
