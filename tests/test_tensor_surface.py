"""The Tensor method surface as PyTorch's: in-place ops never reshape their destination,
arguments by PyTorch's keywords (also under autograd), and the methods PyTorch has for
what a dense real tensor already is (as_subclass, to_dense, is_shared, is_mps, ...).
Values against NumPy in float64."""
import numpy as np
import pytest

import pydevtensor as pdt

IN_PLACE = ["add_", "sub_", "mul_", "div_", "pow_", "atan2_", "hypot_", "fmod_", "copysign_",
            "maximum", "__iadd__", "__imul__", "lt_", "eq_", "nextafter_", "copy_", "lerp_",
            "clamp_min_"]


def _in_place(op, x, y):
    if op == "maximum":
        return pdt.maximum(x, y, out=x)
    if op == "lerp_":
        return x.lerp_(y, 0.5)
    return getattr(x, op)(y)


@pytest.mark.parametrize("op", IN_PLACE)
@pytest.mark.parametrize("shapes", [((0,), (2, 0)), ((1, 0), (2, 0)), ((), (1,)),
                                    ((3,), (1, 3)), ((1,), (2,))])
def test_in_place_result_must_fit_destination(device, op, shapes):
    # PyTorch's "output with shape [0] doesn't match the broadcast shape [2, 0]": an
    # empty destination was resized to the broadcast shape, and a destination with
    # fewer dims took a result with leading 1s
    xs, ys = shapes
    x, y = pdt.ones(xs, device=device), pdt.full(ys, 2.0, device=device)
    with pytest.raises(RuntimeError):
        _in_place(op, x, y)
    assert tuple(x.shape) == xs
    np.testing.assert_array_equal(x.cpu().numpy(), np.ones(xs, dtype=np.float32))


def test_in_place_broadcasting_the_other_operand_still_works(device):
    a = np.arange(6.0).reshape(2, 3)
    for src, want in ((np.array([1.0, 2.0, 3.0]), a + [1, 2, 3]), (np.array(5.0), a + 5),
                      (np.array([[1.0], [2.0]]), a + [[1], [2]])):
        x = pdt.tensor(a, device=device)
        x.add_(pdt.tensor(src, device=device))
        np.testing.assert_array_equal(x.cpu().numpy(), want)
        z = pdt.tensor(a, device=device)
        z.copy_(pdt.tensor(src, device=device))
        np.testing.assert_array_equal(z.cpu().numpy(), np.broadcast_to(src, a.shape))
    e = pdt.zeros(0, device=device)
    pdt.add(pdt.zeros(2, 0, device=device), 1.0, out=e)  # an out that is no operand: resized
    assert tuple(e.shape) == (2, 0)


def test_in_place_result_dtype_must_cast_to_self(device):
    # a uint8 result went into a bool self (True + 1 * 2 -> True) where PyTorch refuses
    x = pdt.tensor([True, False], device=device)
    y = pdt.tensor([1, 2], dtype=pdt.uint8, device=device)
    with pytest.raises(RuntimeError, match="addcmul_.*uint8 can't be cast.*bool"):
        x.addcmul_(y, y)
    assert x.tolist() == [True, False]
    i = pdt.ones(2, dtype=pdt.int32, device=device)
    i.addcmul_(pdt.full((2,), 3, device=device), pdt.full((2,), 2, device=device), value=2)
    assert i.tolist() == [13, 13] and i.dtype == pdt.int32
