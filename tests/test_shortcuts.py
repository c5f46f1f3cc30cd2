"""PyTorch's one-composition shortcuts (pydevtensor/_ops_shortcuts.py) on every device:
square and reciprocal against NumPy in float64 (exact: one rounding each, as NumPy's),
with their gradients; rand_like / randn_like draw what rand / randn draw; is_tensor,
numel, view_as, reshape_as, type_as."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES, ulps32

X = np.array([[-2.0, 0.5, 3.0], [1e-3, -7.25, 0.0]])


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_square_and_reciprocal_match_numpy(dev, dtype):
    a = X.astype(dtype) if dtype != "int64" else np.array([[-2, 1, 3], [5, -7, 0]])
    x = pdt.tensor(a, device=dev)
    np.testing.assert_array_equal(pdt.square(x).cpu().numpy(), a * a)
    np.testing.assert_array_equal(x.square().cpu().numpy(), a * a)
    with np.errstate(divide="ignore"):
        want = 1 / a if dtype != "float32" else (np.float32(1) / a)
    got = pdt.reciprocal(x).cpu().numpy()
    assert got.dtype == (np.float32 if dtype != "float64" else np.float64)
    np.testing.assert_allclose(got, want.astype(got.dtype), rtol=0)
    np.testing.assert_array_equal(x.reciprocal().cpu().numpy(), got)


def test_square_and_reciprocal_gradients(dev):
    a = np.array([1.0, -2.0, 4.0, 0.5])
    x = pdt.tensor(a, device=dev, requires_grad=True)
    (x.square() + pdt.reciprocal(x)).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), 2 * a - 1 / a**2, rtol=1e-6)


def test_reciprocal_second_derivative_at_zero_and_infinity(dev):
    # 2 / x^3, the limits PyTorch gives: +-inf at +-0, +-0 at +-inf (not NaN)
    x = pdt.tensor([0.0, -0.0, np.inf, -np.inf, 2.0], dtype=pdt.float64, device=dev,
                   requires_grad=True)
    (g,) = pdt.autograd.grad(pdt.reciprocal(x).sum(), [x], create_graph=True)
    (h,) = pdt.autograd.grad(g.sum(), [x])
    assert g.cpu().tolist() == [-np.inf, -np.inf, -0.0, -0.0, -0.25]
    assert h.cpu().tolist() == [np.inf, -np.inf, 0.0, 0.0, 0.25]
    assert np.signbit(h.cpu().numpy()[2:4]).tolist() == [False, True]


@pytest.mark.parametrize("name", ["rand", "randn"])
def test_random_like_draws_what_the_plain_function_draws(dev, name):
    like = pdt.zeros(3, 4, dtype=pdt.float64, device=dev)
    pdt.manual_seed(11)
    got = getattr(pdt, name + "_like")(like)
    pdt.manual_seed(11)
    want = getattr(pdt, name)(3, 4, dtype=pdt.float64, device=dev)
    assert got.dtype == pdt.float64 and got.device == like.device
    np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())
    other = getattr(pdt, name + "_like")(like, dtype=pdt.float32, requires_grad=True)
    assert other.dtype == pdt.float32 and other.requires_grad and other.shape == like.shape


def test_queries_and_as_methods(dev):
    x = pdt.arange(12, device=dev)
    assert pdt.is_tensor(x) and not pdt.is_tensor(np.ones(2)) and not pdt.is_tensor([1])
    assert pdt.numel(x) == 12 and pdt.numel(pdt.zeros(0, 5, device=dev)) == 0
    v = x.view_as(pdt.zeros(3, 4))
    assert tuple(v.shape) == (3, 4) and v.data_ptr() == x.data_ptr()
    r = x.reshape(3, 4).t().reshape_as(pdt.zeros(2, 6))
    np.testing.assert_array_equal(r.cpu().numpy(), np.arange(12).reshape(3, 4).T.reshape(2, 6))
    f = x.type_as(pdt.zeros(1, dtype=pdt.float64))
    assert f.dtype == pdt.float64 and f.device == x.device
    with pytest.raises(TypeError, match=r"view_as\(\): other must be a Tensor, got tuple"):
        x.view_as((3, 4))


def test_randperm_is_a_permutation_the_same_on_every_device(dev):
    """randperm(n) holds each of 0..n-1 once; for one seed it is the same permutation
    on every device (it sorts rand's float64 draws, which are), and two seeds differ."""
    pdt.manual_seed(7)
    p = pdt.randperm(1000, device=dev)
    assert p.dtype == pdt.int64 and p.device == pdt.device(dev)
    np.testing.assert_array_equal(np.sort(p.cpu().numpy()), np.arange(1000))
    pdt.manual_seed(7)
    q = pdt.randperm(1000)  # the CPU
    np.testing.assert_array_equal(p.cpu().numpy(), q.numpy())
    pdt.manual_seed(8)
    assert not np.array_equal(pdt.randperm(1000, device=dev).cpu().numpy(), q.numpy())
    assert pdt.randperm(0, device=dev).shape == (0,)
    assert pdt.randperm(5, dtype=pdt.int32, device=dev).dtype == pdt.int32
    with pytest.raises(RuntimeError, match="only floating-point tensors can require"):
        pdt.randperm(3, requires_grad=True)


def test_randperm_and_the_random_makers_take_a_one_element_integer_tensor(dev):
    """As PyTorch's: randperm's n (and randint's bounds, rand's sizes) may be a 0-d or
    one-element integer tensor, taken as its value (randperm raised TypeError)."""
    for n in (pdt.tensor(4, device=dev), pdt.tensor([4], dtype=pdt.int32), np.int64(4)):
        pdt.manual_seed(3)
        p = pdt.randperm(n, device=dev)
        pdt.manual_seed(3)
        np.testing.assert_array_equal(p.cpu().numpy(), pdt.randperm(4, device=dev).cpu().numpy())
    r = pdt.randint(pdt.tensor(2), pdt.tensor(5), (50,), device=dev).cpu().numpy()
    assert r.min() >= 2 and r.max() < 5
    assert pdt.rand(pdt.tensor(2), pdt.tensor(3), device=dev).shape == (2, 3)
    for bad in (pdt.tensor(4.0), pdt.tensor(True), pdt.tensor([2, 3])):
        with pytest.raises(TypeError, match=r"randperm\(\): argument 'n' must be int"):
            pdt.randperm(bad)


@pytest.mark.parametrize("name", ["sinh", "cosh"])
def test_sinh_and_cosh_within_their_bounds(dev, name):
    """One op each (Note [float32 sinh and cosh] in csrc/cpu/cpu_vhyper.h): float32 within
    1.5 ulps of float64 over |x| <= 88 (every exponent) on the CPU, CUDA's 3 (sinhf) and 2
    (coshf) on a CUDA device, exact zeros of sinh; float64 to 1e-15; integers and bools give
    float32; the gradient is the other function."""
    rng = np.random.default_rng(4)
    x = np.concatenate([2.0 ** rng.uniform(-40, np.log2(88), 4000), [0.0, 1e-30, 88.0]])
    x = np.concatenate([x, -x]).astype(np.float32)
    got = getattr(pdt, name)(pdt.tensor(x, device=dev)).cpu().numpy()
    ref = getattr(np, name)(x.astype(np.float64))
    err = ulps32(got, ref)
    worst = int(np.argmax(err))
    bound = {"sinh": 3.0, "cosh": 2.0}[name] if str(dev).startswith("cuda") else 1.5
    assert err[worst] <= bound, (x[worst], got[worst], ref[worst])
    a = np.array([-3.0, -1e-9, 0.0, 0.5, 20.0])
    np.testing.assert_allclose(getattr(pdt.tensor(a, device=dev), name)().cpu().numpy(),
                               getattr(np, name)(a), rtol=1e-15)
    r = getattr(pdt, name)(pdt.tensor([0, 1, 2], device=dev))
    assert r.dtype == pdt.float32
    b = pdt.tensor([True, False], device=dev)
    assert getattr(pdt, name)(b).tolist() == pytest.approx(getattr(np, name)([1.0, 0.0]))
    w = pdt.tensor(a, device=dev, requires_grad=True)
    getattr(pdt, name)(w).sum().backward()
    other = np.cosh if name == "sinh" else np.sinh
    np.testing.assert_allclose(w.grad.cpu().numpy(), other(a), rtol=1e-12, atol=1e-15)
