"""Edges of the tensor's queries and conversions, as PyTorch's: a Size's slices are
Sizes (csrc/python/size_object.c), a 0-d tensor has no dim for size(d) or stride(d),
float() of a tensor that requires grad warns once per process, tensor() refuses a
float an integer dtype cannot hold, and to() takes non_blocking and copy positionally."""
import subprocess
import sys

import numpy as np
import pytest

import pydevtensor as pdt


def test_a_sizes_slices_are_sizes(device):
    s = pdt.ones(1, 1, 6, 8, device=device).shape
    for key, want in ((slice(2, None), (6, 8)), (slice(None, 1), (1,)),
                      (slice(None, None, 2), (1, 6)), (slice(-1, None), (8,)),
                      (slice(3, 1), ())):
        got = s[key]
        assert type(got) is pdt.Size and got == want
        assert repr(got) == f"pydevtensor.Size({list(want)})"
    assert type(s[2]) is int and s[2] == 6 and s[-1] == 8
    with pytest.raises(IndexError):
        s[4]
    assert s[2:] + s[:1] == (6, 8, 1) and type(s[2:] + s[:1]) is pdt.Size
    assert pdt.ones(6, 8, device=device).reshape(s[2:]).shape == (6, 8)


@pytest.mark.parametrize("method", ["size", "stride"])
@pytest.mark.parametrize("dim", [0, -1, 1, -2])
def test_size_and_stride_of_a_dim_of_a_0d_tensor_raise(device, method, dim):
    x = pdt.ones((), device=device)
    with pytest.raises(IndexError, match=rf"{method}\(\): dimension specified as {dim} but "
                                         rf"the tensor \(on {pdt.device(device)}\) has no"):
        getattr(x, method)(dim)
    assert x.size() == () and x.stride() == ()


def test_float_of_a_tensor_that_requires_grad_warns_once_per_process():
    code = ("import warnings, pydevtensor as p\n"
            "warnings.simplefilter('always')\n"
            "x = p.tensor(1.5, requires_grad=True)\n"
            "print(float(p.tensor(2.0)), int(x), x.item(), float(x), float(x * 2))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["2.0", "1", "1.5", "1.5", "3.0"]
    assert run.stderr.count("UserWarning: Converting a tensor with requires_grad=True to a "
                            "scalar may lead to unexpected behavior.") == 1


@pytest.mark.parametrize("value,dtype", [(-1.5, "uint8"), (256.0, "uint8"), (-129.0, "int8"),
                                         (1e10, "int32"), (float("nan"), "int32"),
                                         (float("inf"), "int64"), (1e19, "int64"),
                                         (40000.0, "int16")])
def test_tensor_refuses_a_float_an_integer_dtype_cannot_hold(device, value, dtype):
    with pytest.raises(OverflowError, match=rf"tensor\(\): the value .* cannot be converted to "
                                            rf"{dtype} without overflow"):
        pdt.tensor([1.0, value], dtype=getattr(pdt, dtype), device=device)


def test_tensor_truncates_a_float_within_an_integer_dtypes_range(device):
    got = pdt.tensor([-0.5, 255.7, 3.9], dtype=pdt.uint8, device=device)
    assert got.tolist() == [0, 255, 3]
    assert pdt.tensor([-2147483648.9, 2.5e9 - 1], device=device,
                      dtype=pdt.int64).tolist() == [-2147483648, 2499999999]


def test_to_takes_non_blocking_and_copy_positionally(device):
    x = pdt.ones(2, device=device)
    assert x.to(pdt.float32, False, False) is x
    y = x.to(pdt.float32, False, True)
    assert y is not x and y.data_ptr() != x.data_ptr() and y.dtype == pdt.float32
    z = x.to(x.device, pdt.float64, False, True)
    assert z.dtype == pdt.float64
    w = x.to(x, False, True)
    assert w is not x and w.data_ptr() != x.data_ptr()
    with pytest.raises(TypeError, match=r"to\(\) takes"):
        x.to(pdt.float32, False, True, True)


def test_an_empty_out_takes_the_results_shape(device):
    # Note [empty outs]: C elementwise ops, unary ops and the matrix products
    a = pdt.tensor([[1.0, 2.0, 3.0]], device=device)
    b = pdt.tensor([[10.0], [20.0]], device=device)
    for call, want in ((lambda o: pdt.add(a, b, out=o), [[11, 12, 13], [21, 22, 23]]),
                       (lambda o: pdt.mul(a, 2, out=o), [[2, 4, 6]]),
                       (lambda o: pdt.exp(a.log(), out=o), [[1, 2, 3]]),
                       (lambda o: pdt.clamp(a, max=2.0, out=o), [[1, 2, 2]]),
                       (lambda o: pdt.mm(b, a, out=o), [[10, 20, 30], [20, 40, 60]])):
        out = pdt.empty(0, device=device)
        version = out._version
        got = call(out)
        assert got is out
        np.testing.assert_allclose(out.cpu().numpy(), np.array(want, np.float64), rtol=1e-6)
        assert out._version > version
    out = pdt.empty(0, 3, device=device)
    assert pdt.add(a, 1, out=out).tolist() == [[2, 3, 4]] and out.shape == (1, 3)


def test_an_out_that_cannot_take_the_result_is_left_as_it_was(device):
    a = pdt.tensor([1.5, 2.5], device=device)
    out = pdt.empty(0, dtype=pdt.int64, device=device)
    with pytest.raises(TypeError, match="can't be cast to the desired output type int64"):
        pdt.add(a, 1, out=out)
    assert out.shape == (0,) and out.dtype == pdt.int64
    full = pdt.zeros(3, device=device)  # elements of another shape: refused, untouched
    with pytest.raises(ValueError, match="doesn't match the broadcast shape"):
        pdt.add(a, 1, out=full)
    assert full.tolist() == [0, 0, 0]
    base = pdt.zeros(4, device=device)
    view = base[:0]  # a view's storage is not its own: not resized
    with pytest.raises(ValueError, match="doesn't match the broadcast shape"):
        pdt.add(a, 1, out=view)
    assert view.shape == (0,) and base.tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_draws_stay_below_the_upper_bound(device, dtype):
    # Note [half draws and the upper bound]: float32 draws rounded to a half dtype
    # reached 1.0 (rand), b (uniform_) and inf (exponential_)
    dt = getattr(pdt, dtype)
    gen = pdt.Generator().manual_seed(0)
    n = 200_000
    r = pdt.rand(n, dtype=dt, device=device, generator=gen).float().cpu().numpy()
    assert r.min() >= 0.0 and r.max() < 1.0
    u = pdt.empty(n, dtype=dt, device=device).uniform_(2, 5, generator=gen)
    u = u.float().cpu().numpy()
    assert u.min() >= 2.0 and u.max() < 5.0
    e = pdt.empty(n, dtype=dt, device=device).exponential_(generator=gen).float().cpu().numpy()
    assert np.isfinite(e).all() and e.min() >= 0.0
    # the mean of Exp(1) within 5 standard errors (1 / sqrt(n)), the tail kept
    assert abs(e.mean() - 1.0) < 5 / np.sqrt(n) + 2.0 ** -8 and e.max() > 9.0
    k = pdt.randint(0, 3000, (n,), dtype=dt, device=device, generator=gen)
    k = k.float().cpu().numpy()
    assert k.min() >= 0 and k.max() < 3000


def test_integer_and_shifted_draws_stay_below_the_upper_bound(device):
    gen = pdt.Generator().manual_seed(1)
    # 2**26 - 1 is not a float32: the integers just below it round up to it
    k = pdt.randint(2**26 - 9, 2**26 - 1, (100_000,), dtype=pdt.float32, device=device,
                    generator=gen).cpu().numpy()
    assert k.max() < 2**26 - 1 and k.min() >= 2**26 - 9
    x = pdt.empty(100_000, device=device).uniform_(1.0, 2.0, generator=gen).cpu().numpy()
    assert x.min() >= 1.0 and x.max() < 2.0


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64"])
def test_linspace_ends_exactly_at_end(device, dtype):
    # as NumPy's: start + (steps - 1) * step missed it by an ulp (5.399999999999999)
    rng = np.random.default_rng(0)
    for _ in range(200):
        start, end = (float(v) for v in np.round(rng.uniform(-20, 20, 2), 1))
        steps = int(rng.integers(2, 40))
        got = pdt.linspace(start, end, steps, dtype=getattr(pdt, dtype), device=device)
        want = np.linspace(start, end, steps)
        if dtype == "int64":
            want = np.trunc(want)
        got = got.double().cpu().numpy()
        assert got[0] == np.asarray(start, dtype if dtype != "int64" else "float64").astype(
            got.dtype) or dtype == "int64"
        assert got[-1] == (np.trunc(end) if dtype == "int64" else
                           float(np.asarray(end, dtype=dtype)))
        tol = {"float64": 1e-13, "float32": 1e-5, "float16": 2e-2, "int64": 1.0}[dtype]
        np.testing.assert_allclose(got, want, atol=tol * 20, rtol=0)


def test_random_ranges_a_dtype_cannot_hold_are_refused(device):
    x = pdt.zeros(3, device=device)
    for a, b in ((0.0, float("inf")), (-3e38, 3e38), (float("-inf"), 0.0), (0.0, 1e39)):
        with pytest.raises(ValueError, match=r"uniform_\(\): the range .* must be finite in "
                                             r"float32"):
            x.uniform_(a, b)
        assert x.tolist() == [0, 0, 0]  # nothing written
    h = pdt.zeros(2, dtype=pdt.float16, device=device)
    with pytest.raises(ValueError, match="float16"):
        h.uniform_(-40000.0, 40000.0)  # the width, 80000, is past float16's 65504
    assert pdt.zeros(2, dtype=pdt.float64, device=device).uniform_(-3e38, 3e38).abs().max() < 3e38
    with pytest.raises(ValueError, match="bool"):
        pdt.randint(0, 3, (5,), dtype=pdt.bool, device=device)
    with pytest.raises(ValueError, match="bool"):
        pdt.randint(-1, 1, (5,), dtype=pdt.bool, device=device)
    assert pdt.randint(0, 2, (50,), dtype=pdt.bool, device=device).dtype == pdt.bool


def test_empty_takes_a_memory_format(device):
    x = pdt.empty(2, 3, 4, 5, memory_format=pdt.channels_last, device=device)
    assert x.shape == (2, 3, 4, 5) and x.stride() == (60, 1, 15, 3)
    assert x.is_contiguous(memory_format=pdt.channels_last) and not x.is_contiguous()
    y = pdt.empty((1, 2, 3, 4, 5), memory_format=pdt.channels_last_3d, device=device,
                  dtype=pdt.float64, requires_grad=True)
    assert y.stride() == (120, 1, 40, 10, 2) and y.dtype == pdt.float64 and y.requires_grad
    assert pdt.empty(2, 3, memory_format=pdt.contiguous_format, device=device).stride() == (3, 1)
    assert pdt.empty(2, 3, memory_format=None, device=device).stride() == (3, 1)  # the default
    with pytest.raises(ValueError, match=r"channels_last needs a rank 4 shape, got \(2, 3\)"):
        pdt.empty(2, 3, memory_format=pdt.channels_last, device=device)
    with pytest.raises(ValueError, match="preserve_format has no tensor"):
        pdt.empty(2, 3, 4, 5, memory_format=pdt.preserve_format, device=device)
