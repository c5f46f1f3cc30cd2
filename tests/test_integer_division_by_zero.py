"""Integer division by zero (Note [integer division by zero] in
csrc/core/pdt_elementwise.h): PyTorch's "RuntimeError: ZeroDivisionError" for a
scalar 0 divisor on every device and for a zero in a CPU divisor tensor; a divisor
tensor on a GPU is not read back, and there the result is 0."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip

# each op as (name, f(lib, a, b)), the same call for torch and pydevtensor
OPS = [
    ("floor_divide", lambda lib, a, b: lib.floor_divide(a, b)),
    ("remainder", lambda lib, a, b: lib.remainder(a, b)),
    ("fmod", lambda lib, a, b: lib.fmod(a, b)),
    ("//", lambda lib, a, b: a // b),
    ("%", lambda lib, a, b: a % b),
    ("div trunc", lambda lib, a, b: lib.div(a, b, rounding_mode="trunc")),
    ("div floor", lambda lib, a, b: lib.div(a, b, rounding_mode="floor")),
    ("floor_divide_", lambda lib, a, b: a.clone().floor_divide_(b)),
    ("remainder_", lambda lib, a, b: a.clone().remainder_(b)),
    ("fmod_", lambda lib, a, b: a.clone().fmod_(b)),
    ("div_ trunc", lambda lib, a, b: a.clone().div_(b, rounding_mode="trunc")),
]
NAMES = [n for n, _ in OPS]


def _on_gpu(device):
    return pdt.device(device).type == "cuda"


# NumPy's floor division and remainder, C's truncating division and fmod (exact for
# these small integers), for the nonzero divisors
NUMPY = {"floor_divide": np.floor_divide, "remainder": np.remainder, "fmod": np.fmod,
         "//": np.floor_divide, "%": np.remainder, "div floor": np.floor_divide,
         "floor_divide_": np.floor_divide, "remainder_": np.remainder, "fmod_": np.fmod,
         "div trunc": lambda a, b: np.trunc(a / b).astype(a.dtype),
         "div_ trunc": lambda a, b: np.trunc(a / b).astype(a.dtype)}


@pytest.mark.parametrize("name", NAMES)
def test_torch_raises_for_a_zero_divisor_on_the_cpu(name):
    torch = torch_or_skip()
    f = dict(OPS)[name]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        f(torch, torch.tensor([5, -7]), 0)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        f(torch, torch.tensor([[5, -7, 3]]), torch.tensor([0, 2, 0]))


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("name", NAMES)
def test_scalar_zero_divisor_raises_on_every_device(device, dtype, name):
    a = pdt.tensor([5, -7], dtype=getattr(pdt, dtype), device=device)
    with pytest.raises(RuntimeError, match=r"ZeroDivisionError: .*division by zero.*divisor 0"):
        dict(OPS)[name](pdt, a, 0)
    assert a.tolist() == [5, -7]  # nothing written


@pytest.mark.parametrize("name", NAMES)
def test_zero_in_divisor_tensor(device, name):
    f = dict(OPS)[name]
    a_np = np.array([[5, -7, 3], [8, 9, -4]], dtype=np.int64)
    b_np = np.array([0, 2, 0], dtype=np.int64)  # broadcast over the rows
    a = pdt.tensor(a_np, device=device)
    b = pdt.tensor(b_np, device=device)
    if not _on_gpu(device):
        with pytest.raises(RuntimeError, match=r"ZeroDivisionError: .*\(3,\) with 2 zeros.*"
                                               + str(pdt.device(device))):
            f(pdt, a, b)
        assert a.tolist() == a_np.tolist()
        return
    # a GPU divisor is not read back: 0 where it is 0, the exact result elsewhere
    got = f(pdt, a, b).cpu().numpy()
    np.testing.assert_array_equal(got[:, 1], NUMPY[name](a_np[:, 1], b_np[1]))
    np.testing.assert_array_equal(got[:, [0, 2]], 0)


def test_dividend_scalar_and_bool_divisor(device):
    b = pdt.tensor([3, 0], device=device)
    if _on_gpu(device):
        assert (7 // b).tolist() == [2, 0]
        return
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        7 // b
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        pdt.tensor([4, 5], device=device) % pdt.tensor([True, False], device=device)


def test_torch_agrees_on_the_dividend_scalar_and_the_bool_divisor():
    torch = torch_or_skip()
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        7 // torch.tensor([3, 0])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        torch.tensor([4, 5]) % torch.tensor([True, False])


def test_no_zero_and_floats_are_unchanged(device):
    a_np = np.array([7, -7, 7, -7, 0], dtype=np.int64)
    b_np = np.array([2, 2, -2, -2, 3], dtype=np.int64)
    a, b = pdt.tensor(a_np, device=device), pdt.tensor(b_np, device=device)
    for name, f in OPS:
        np.testing.assert_array_equal(f(pdt, a, b).cpu().numpy(), NUMPY[name](a_np, b_np),
                                      err_msg=name)
    # float results (a float divisor, or true division) give inf and nan, no error
    x = pdt.tensor([5, -5, 0], device=device)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal((x // 0.0).cpu().numpy(), np.array([5., -5., 0.]) // 0.0)
    assert (x / 0).cpu().numpy()[:2].tolist() == [np.inf, -np.inf]
    assert np.isnan(pdt.fmod(x.float(), 0).cpu().numpy()).all()
    # an empty divisor has no zero
    e = pdt.zeros(0, dtype=pdt.int64, device=device)
    assert (e // e).shape == (0,)


@pytest.mark.parametrize("divisor", [("int64", 256), ("int16", -32768), ("int64", 512)])
def test_zero_divisor_after_the_cast_to_the_result_dtype(device, divisor):
    # a 0-d divisor of a wider integer dtype does not widen a uint8 tensor: it is cast to
    # uint8 first, where these are 0 (256 mod 2**8), as PyTorch reads them
    dtype, value = divisor
    a = pdt.tensor([5, 7], dtype=pdt.uint8, device=device)
    b = pdt.tensor(value, dtype=getattr(pdt, dtype), device=device)
    if _on_gpu(device):
        assert (a // b).tolist() == [0, 0]  # not read back (module docstring)
        return
    for name in ("floor_divide", "remainder", "fmod", "div trunc"):
        with pytest.raises(RuntimeError, match=r"ZeroDivisionError: .*uint8 result.* 1 zero"):
            dict(OPS)[name](pdt, a, b)
    # a nonzero one after the cast divides as NumPy does in uint8
    b = pdt.tensor(258, device=device)  # 2 in uint8
    np.testing.assert_array_equal((a // b).numpy(), np.array([5, 7], np.uint8) // 2)


@pytest.mark.parametrize("a_dtype,b_dtype,b_value", [
    ("int64", "int8", [0, 1]), ("uint8", "int8", [0, -1]), ("int8", "uint8", [3, 0]),
    ("int32", "bool", [True, False])])
def test_zero_divisors_found_when_the_cast_widens_or_keeps_the_width(device, a_dtype, b_dtype,
                                                                    b_value):
    # the divisor is not cast first (a cast to as many bits or more makes no new zero);
    # its own zeros are still found
    if _on_gpu(device):
        pytest.skip("a GPU divisor is not read back (module docstring)")
    a = pdt.tensor([5, 7], dtype=getattr(pdt, a_dtype), device=device)
    b = pdt.tensor(b_value, dtype=getattr(pdt, b_dtype), device=device)
    with pytest.raises(RuntimeError, match=r"ZeroDivisionError: .* 1 zero"):
        a // b
    if b_dtype != "bool":  # without the zero, NumPy's quotients in the promoted dtype
        nz = [v if v else 2 for v in b_value]
        got = a // pdt.tensor(nz, dtype=getattr(pdt, b_dtype), device=device)
        want = np.array([5, 7], a_dtype) // np.array(nz, b_dtype)
        assert got.dtype.name == want.dtype.name
        np.testing.assert_array_equal(got.cpu().numpy(), want)
