"""Random ops against PyTorch's rules (found by a side-by-side review): float bounds of
randint and Tensor.random_, rand_like/randn_like's generator=, bernoulli(input, p) of
any dtype, and the error types of normal's and trunc_normal_'s bad arguments."""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt


def _np(t):
    return t.detach().cpu().numpy()


def test_randint_refuses_bounds_past_float16s_range(device):
    # a draw past 65504 was inf, then low: randint(0, 2**30, dtype=float16) was all zeros
    for low, high in [(0, 2 ** 30), (0, 65506), (-65505, 0)]:
        with pytest.raises(ValueError, match=r"out of bounds for float16"):
            pdt.randint(low, high, (4,), dtype=pdt.float16, device=device)
    x = _np(pdt.randint(-65504, 65505, (20000,), dtype=pdt.float16, device=device))
    assert np.isfinite(x).all() and x.min() < -30000 and x.max() > 30000


def test_random_takes_float_bounds_up_to_the_largest_value(device):
    """As PyTorch's: past 2**digits a UserWarning, past the finite range an error."""
    pdt.manual_seed(3)
    with pytest.warns(UserWarning, match=r"out of bounds \[-16777216, 16777216\]"):
        x = pdt.zeros(20000, device=device).random_(0, 2 ** 30)
    v = _np(x).astype(np.float64)
    assert v.min() >= 0 and v.max() < 2 ** 30 and v.max() > 2 ** 29
    assert abs(v.mean() / 2 ** 29 - 1) < 0.05
    with pytest.warns(UserWarning):
        h = _np(pdt.zeros(20000, dtype=pdt.bfloat16, device=device).random_(-300, 300))
    assert h.min() >= -300 and h.max() < 300 and h.min() < -250 and h.max() > 250
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # inside the exact range: no warning
        pdt.zeros(3, dtype=pdt.float16, device=device).random_(0, 2049)
    y = pdt.zeros(3, dtype=pdt.float16, device=device)
    with pytest.raises(RuntimeError, match=r"finite range is \[-65504, 65504\]"):
        y.random_(0, 70000)
    assert _np(y).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_integer_draws_in_a_float_dtype_stay_in_bounds_and_reach_every_value(device, dtype):
    """The upper bound was compared in the dtype, where it rounds: bfloat16's 257 is 256,
    so random_(255, 257) and randint(255, 257) never gave 256 (only 255), and a low
    bound the dtype does not hold gave draws below it (bfloat16's -65504 is -65536)."""
    dt = getattr(pdt, dtype)
    pdt.manual_seed(7)
    cases = [(255, 257), (2040, 2049), (-1000, -990), (-65504, -65270)]
    if dtype != "float16":
        cases.append((2 ** 24, 2 ** 24 + 3))
    for low, high in cases:
        # the values of dt in [low, high): the integers there, each rounded to dt
        exact = np.arange(low, high, dtype=np.float64)
        held = np.unique(_np(pdt.tensor(exact, dtype=pdt.float64).to(dt)).astype(np.float64))
        held = held[(held >= low) & (held < high)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # past the exact integers
            drawn = [pdt.randint(low, high, (4000,), dtype=dt, device=device),
                     pdt.zeros(4000, dtype=dt, device=device).random_(low, high)]
        for x in drawn:
            v = np.unique(_np(x).astype(np.float64))
            assert v.min() >= low and v.max() < high, (dtype, low, high, v)
            np.testing.assert_array_equal(v, held)


@pytest.mark.parametrize("name", ["rand_like", "randn_like"])
def test_like_samplers_take_a_generator(device, name):
    fn = getattr(pdt, name)
    x = pdt.zeros(3, 4, device=device)
    pdt.manual_seed(0)
    a = fn(x, generator=pdt.Generator(device=device).manual_seed(5))
    b = fn(x, generator=pdt.Generator(device=device).manual_seed(5))
    np.testing.assert_array_equal(_np(a), _np(b))
    # the default generator is not touched by a draw from another one
    pdt.manual_seed(0)
    expected = _np(fn(x))
    pdt.manual_seed(0)
    fn(x, generator=pdt.Generator(device=device).manual_seed(5))
    np.testing.assert_array_equal(_np(fn(x)), expected)


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint8", "bool"])
def test_bernoulli_with_p_takes_any_dtype(device, dtype):
    dt = getattr(pdt, dtype)
    pdt.manual_seed(1)
    x = pdt.bernoulli(pdt.ones(20000, dtype=dt, device=device), 0.25)
    assert x.dtype == dt and tuple(x.shape) == (20000,)
    v = _np(x).astype(np.float64)
    assert set(np.unique(v).tolist()) == {0.0, 1.0}
    assert abs(v.mean() - 0.25) < 5 * np.sqrt(0.25 * 0.75 / 20000)
    with pytest.raises(TypeError, match=r"floating-point tensor of probabilities"):
        pdt.bernoulli(pdt.ones(3, dtype=dt, device=device))  # its values are no probabilities


def test_bad_shapes_and_bounds_are_runtime_errors_too(device):
    """PyTorch raises RuntimeError; ours is an InvalidArgumentError (a ValueError too)."""
    with pytest.raises(RuntimeError, match=r"do not broadcast"):
        pdt.normal(pdt.zeros(3, device=device), pdt.ones(4, device=device))
    with pytest.raises(RuntimeError, match=r"a must not be above b"):
        pdt.nn.init.trunc_normal_(pdt.zeros(3, device=device), a=2.0, b=-2.0)


@pytest.mark.parametrize("op", ["uniform_", "normal_"])
def test_in_place_samplers_refuse_integer_tensors_as_runtime_errors_too(device, op):
    """PyTorch raises NotImplementedError (a RuntimeError); ours is a DTypeError (a
    TypeError and a RuntimeError), and self is left as it was."""
    x = pdt.full((3,), 7, dtype=pdt.int64, device=device)
    for exc in (TypeError, RuntimeError):
        with pytest.raises(exc, match=rf"{op}\(\): expects a floating point tensor, got int64"):
            getattr(x, op)()
    assert _np(x).tolist() == [7, 7, 7]
