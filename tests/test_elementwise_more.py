"""clamp_min, clamp_max, hypot, fmod, copysign, heaviside, logaddexp2 and float_power
(pydevtensor/_ops_elementwise_more.py) on every device, against float64 NumPy.

Tolerances: fmod, copysign, heaviside, clamp_* and float_power (computed in float64
by one pow) are exact against NumPy; hypot and logaddexp2 are compositions of a few
correctly rounded ops: within 4 float32 ulps of float64 NumPy (hypot), and 4e-7
absolute plus 4 ulps relative (logaddexp2).  Gradients by gradcheck."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from test_gradcheck import gradcheck

EPS32 = np.finfo(np.float32).eps


def _t(a, device):
    return pdt.tensor(a, device=device)


def _values(rng, n=64):
    v = rng.standard_normal(n) * 10 ** rng.uniform(-3, 3, n)
    return v.astype(np.float32)


def test_fmod_exact(device):
    rng = np.random.default_rng(0)
    a, b = _values(rng), _values(rng)
    b[:3] = [np.inf, -np.inf, 0.0]
    a[3:6] = [np.inf, -0.0, 0.0]
    got = pdt.fmod(_t(a, device), _t(b, device)).cpu().numpy()
    with np.errstate(invalid="ignore"):
        ref = np.fmod(a, b)
    np.testing.assert_array_equal(got, ref)
    real = ~np.isnan(ref)
    np.testing.assert_array_equal(np.signbit(got[real]), np.signbit(ref[real]))  # -0.0 too
    ai = rng.integers(-50, 50, 40)
    bi = rng.integers(1, 9, 40) * rng.choice([-1, 1], 40)
    np.testing.assert_array_equal(_t(ai, device).fmod(_t(bi, device)).cpu().numpy(),
                                  np.fmod(ai, bi))
    assert pdt.fmod(_t([-7, 7], device), 3).tolist() == [-1, 1]
    if pdt.device(device).type == "cpu":  # NaN results bit for bit too: sign and payload
        x = np.array([1.0, -1.0, np.inf, -np.inf, 2.0, -2.0, 3.0], dtype=np.float32)
        y = np.array([0.0, -0.0, 2.0, 2.0, np.nan, -np.nan, 1.0], dtype=np.float32)
        with np.errstate(invalid="ignore"):
            want = np.fmod(x, y)
        got = pdt.fmod(_t(x, device), _t(y, device)).numpy()
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    for dt in (np.int32, np.int64):  # the truncated remainder, no trap at INT_MIN % -1
        lo = np.iinfo(dt).min
        a = np.array([lo, lo, -9, 9, 0], dtype=dt)
        b = np.array([-1, 7, -4, -4, 3], dtype=dt)
        np.testing.assert_array_equal(pdt.fmod(_t(a, device), _t(b, device)).cpu().numpy(),
                                      np.fmod(a, b))


def test_fmod_matches_torch(device):
    torch = torch_or_skip()
    a = np.array([-5.5, 5.5, -0.25, 1e10], dtype=np.float32)
    got = pdt.fmod(_t(a, device), 1.5).cpu().numpy()
    np.testing.assert_array_equal(got, torch.fmod(torch.tensor(a), 1.5).numpy())


def test_hypot(device):
    rng = np.random.default_rng(1)
    a, b = _values(rng), _values(rng)
    a[:4] = [3e30, 1e-30, 0.0, np.inf]
    b[:4] = [4e30, 1e-30, 0.0, np.nan]
    got = pdt.hypot(_t(a, device), _t(b, device)).cpu().numpy().astype(np.float64)
    ref = np.hypot(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(got, ref, rtol=4 * EPS32, atol=0)


def test_logaddexp2_matches_torch(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(2)
    a, b = (rng.uniform(-30, 30, 64).astype(np.float32) for _ in range(2))
    got = pdt.logaddexp2(_t(a, device), _t(b, device)).cpu().numpy()
    np.testing.assert_allclose(got, torch.logaddexp2(torch.tensor(a), torch.tensor(b)).numpy(),
                               rtol=4 * EPS32, atol=4e-7)


def test_copysign_heaviside_clamp(device):
    a = np.array([1.0, -2.0, 3.0, 0.0, np.inf], dtype=np.float32)
    s = np.array([-0.0, 1.0, -1.0, -5.0, -1.0], dtype=np.float32)
    np.testing.assert_array_equal(pdt.copysign(_t(a, device), _t(s, device)).cpu().numpy(),
                                  np.copysign(a, s))
    assert pdt.copysign(_t([1, -2], device), -1).dtype == pdt.float32  # ints -> float
    x = np.array([-1.5, 0.0, 2.0, np.nan], dtype=np.float32)
    got = pdt.heaviside(_t(x, device), _t(np.float32(0.5), device)).cpu().numpy()
    np.testing.assert_array_equal(got, [0.0, 0.5, 1.0, 0.0])  # NaN -> 0, as torch
    np.testing.assert_array_equal(pdt.clamp_min(_t(x, device), 0.5).cpu().numpy(),
                                  [0.5, 0.5, 2.0, np.nan])
    np.testing.assert_array_equal(_t(x, device).clamp_max(0.5).cpu().numpy(),
                                  [-1.5, 0.0, 0.5, np.nan])
    y = _t(x, device)
    assert pdt.clamp_min_(y, 0.0) is y and y.clamp_max_(1.0) is y
    np.testing.assert_array_equal(y.cpu().numpy(), [0.0, 0.0, 1.0, np.nan])


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_integer_clamp_to_a_bound_no_value_of_the_dtype_reaches_is_refused(device, dtype):
    # As PyTorch's: a min above the dtype's largest value or a max below its smallest has
    # no answer in the dtype (uint8 clamped to max=-1 gave 0, int8 to min=200 gave 127);
    # a min below the dtype or a max above it clamps nothing.  Nothing is written in place.
    info = np.iinfo(dtype)
    a = np.array([info.min, 0, 3, info.max], dtype=dtype)
    x = pdt.tensor(a, device=device)
    for kw in ({"min": int(info.max) + 1}, {"max": int(info.min) - 1},
               {"min": int(info.min) - 5, "max": int(info.min) - 1}):
        for run in (lambda: pdt.clamp(x, **kw), lambda: x.clamp_(**kw),
                    lambda: pdt.clip(x, **kw),
                    lambda: pdt.clamp(x, **kw, out=pdt.empty(4, dtype=x.dtype, device=device))):
            with pytest.raises(RuntimeError, match=f"outside the representable range of {dtype}"):
                run()
        np.testing.assert_array_equal(x.cpu().numpy(), a)
    lo, hi = int(info.min) - 5, int(info.max) + 5
    for kw in ({"min": lo}, {"max": hi}, {"min": lo, "max": hi}):
        np.testing.assert_array_equal(pdt.clamp(x, **kw).cpu().numpy(), a)
    np.testing.assert_array_equal(pdt.clamp(x, min=int(info.max)).cpu().numpy(),
                                  np.full(4, info.max, dtype=dtype))
    np.testing.assert_array_equal(pdt.clamp(x, max=int(info.min)).cpu().numpy(),
                                  np.full(4, info.min, dtype=dtype))
    # a float bound gives a float result, which holds it: no refusal
    got = pdt.clamp(x, min=float(info.max) * 4)
    assert got.is_floating_point()


def test_float_power(device):
    got = pdt.float_power(_t([2, 3], device), _t([0.5, 2.0], device))
    assert got.dtype == pdt.float64
    # 2 ** 0.5 is C's pow on the CPU (correctly rounded here) and CUDA's pow on a GPU,
    # within 2 ulp (CUDA Math API, double-precision functions); 3 ** 2 is exact on both
    want = np.float_power([2, 3], [0.5, 2.0])
    ulps = 2 if device.type == "cuda" else 0
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=ulps * 2.0 ** -52, atol=0)
    assert got[1].item() == 9.0
    assert pdt.float_power(2, _t([3], device)).tolist() == [8.0]
    # a bool number is 1 or 0 (PyTorch's); a bool tensor too, either side
    for e in (True, False):
        b = pdt.float_power(_t([2, 3], device), e)
        assert b.dtype == pdt.float64 and b.tolist() == np.float_power([2, 3], int(e)).tolist()
    assert pdt.float_power(_t([True, False], device), True).tolist() == [1.0, 0.0]
    assert pdt.float_power(True, _t([2.0], device)).tolist() == [1.0]
    with pytest.raises(RuntimeError, match="can't be cast"):
        _t([1.0, 2.0], device).float_power_(2)
    x = _t(np.array([1.5, 2.0]), device)
    assert x.float_power_(2) is x and x.tolist() == [2.25, 4.0]


def test_in_place_methods(device):
    x = _t([5.0, -5.0], device)
    assert x.fmod_(3.0) is x and x.tolist() == [2.0, -2.0]
    x.copysign_(_t([-1.0, 1.0], device))
    assert x.tolist() == [-2.0, 2.0]
    x.hypot_(_t([0.0, 0.0], device))
    assert x.tolist() == [2.0, 2.0]
    for name in ("hypot_", "copysign_", "logaddexp_", "logaddexp2_"):  # C's, as div_'s
        with pytest.raises(TypeError, match=rf"{name}: result type float32 can't be cast to the "
                                            rf"desired output type int64"):
            getattr(_t([1, 2], device), name)(_t([1.0, 2.0], device))


def test_gradients(device):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4)) * 3
    b = rng.uniform(0.5, 2, (3, 4)) * rng.choice([-1, 1], (3, 4))
    gradcheck(pdt.hypot, [a, b], device)
    gradcheck(pdt.logaddexp2, [a, b], device)
    signs = pdt.tensor(b, device=device)
    gradcheck(lambda x: pdt.copysign(x, signs), [a], device)  # other: no gradient
    gradcheck(lambda x: pdt.clamp_min(x, 0.1), [a], device)
    gradcheck(lambda x: pdt.clamp_max(x, 0.1), [a], device)
    gradcheck(lambda x: pdt.float_power(x.abs(), 1.5), [a], device)
    ok = np.abs(np.fmod(a, b)) > 1e-3  # away from fmod's jumps
    gradcheck(lambda x, y: pdt.fmod(x, y) * pdt.tensor(ok, device=device), [a, b], device)


def test_logaddexp2_numpy(device):
    rng = np.random.default_rng(2)
    a, b = rng.uniform(-30, 30, 64).astype(np.float32), rng.uniform(-30, 30, 64).astype(
        np.float32)
    a[:3], b[:3] = [np.inf, -np.inf, 1.0], [np.inf, -np.inf, 1.0]
    got = pdt.logaddexp2(_t(a, device), _t(b, device)).cpu().numpy().astype(np.float64)
    ref = np.logaddexp2(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(got, ref, rtol=4 * EPS32, atol=4e-7)


def _grads(lib, f, arrays, device=None):
    kw = {} if device is None else {"device": device}
    ts = [lib.tensor(a, requires_grad=True, **kw) for a in arrays]
    f(lib, *ts).backward(lib.tensor(np.linspace(0.5, 2.0, 6).reshape(2, 3), **kw))
    return [None if t.grad is None else t.grad.cpu().numpy() for t in ts]


@pytest.mark.parametrize("name", ["fmod", "copysign", "div_floor", "div_trunc"])
def test_gradients_match_torch_zeros_included(device, name):
    # PyTorch's: fmod 1 and -trunc(a / b); copysign sign(a) s(b) (0 at a == 0) and zeros
    # for other; the rounding divisions zeros for both (not None)
    torch = torch_or_skip()
    f = {"fmod": lambda lib, a, b: lib.fmod(a, b),
         "copysign": lambda lib, a, b: lib.copysign(a, b),
         "div_floor": lambda lib, a, b: lib.div(a, b, rounding_mode="floor"),
         "div_trunc": lambda lib, a, b: lib.div(a, b, rounding_mode="trunc")}[name]
    a = np.array([[5.5, -7.25, 0.0], [-0.0, 3.0, -2.5]])
    b = np.array([2.0, -3.0, -0.0])  # broadcast: other's gradient is summed over rows
    ref = _grads(torch, f, [a, b])
    got = _grads(pdt, f, [a, b], device)
    want_a, want_b = {
        "fmod": (np.ones_like(a), -np.trunc(a / np.where(b == 0, 1, b)).sum(0)),
        "copysign": (np.sign(a) * np.where(np.signbit(b), -1, 1), np.zeros(3)),
    }.get(name, (np.zeros_like(a), np.zeros(3)))
    g = np.linspace(0.5, 2.0, 6).reshape(2, 3)
    want_a = want_a * g
    if name == "fmod":
        want_b = (-np.trunc(a / np.where(b == 0, 1, b)) * g).sum(0)
        want_b[2] = ref[1][2]  # b == 0: trunc(a / 0) is +-inf or nan, as torch's
    for x, r, w in zip(got, ref, (want_a, want_b)):
        np.testing.assert_array_equal(r, w)
        np.testing.assert_array_equal(x, w)


def test_copysign_scalar_other_gradient(device):
    torch = torch_or_skip()
    for other in (-1.0, 2.0, -0.0):
        ref = _grads(torch, lambda lib, a: lib.copysign(a, other),
                     [np.array([[1.5, 0.0, -2.0], [3.0, -0.0, 1.0]])])
        got = _grads(pdt, lambda lib, a: lib.copysign(a, other),
                     [np.array([[1.5, 0.0, -2.0], [3.0, -0.0, 1.0]])], device)
        np.testing.assert_array_equal(got[0], ref[0])


def test_copysign_gradient_at_infs_and_nans(device):
    # d copysign(a, b) / da = sign(a) s(b): +-1 at a = +-inf (the slope of |a| s(b); PyTorch's
    # result / a gives NaN there), NaN at a NaN (PyTorch's too; it was +-0)
    a0 = np.array([np.inf, np.inf, -np.inf, -np.inf, np.nan, np.nan, 2.0])
    b0 = np.array([1.0, -1.0, 1.0, -0.0, 1.0, -1.0, -3.0])
    a = pdt.tensor(a0, device=device, requires_grad=True)
    for b in (pdt.tensor(b0, device=device), None):
        a.grad = None
        if b is None:  # a number b
            pdt.copysign(a, -2.0).sum().backward()
            want = np.where(np.isnan(a0), np.nan, -np.sign(a0))
        else:
            pdt.copysign(a, b).sum().backward()
            want = np.where(np.isnan(a0), np.nan, np.sign(a0) * np.where(np.signbit(b0), -1, 1))
        np.testing.assert_array_equal(a.grad.cpu().numpy(), want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int8", "bool"])
def test_angle_of_real_tensors(device, dtype):
    # PyTorch's angle of the reals: 0 for x >= 0 and for -0.0 (where numpy.angle gives
    # pi), pi for x < 0, NaN for NaN
    vals = np.array([2.0, -0.5, 0.0, -0.0, np.inf, -np.inf, np.nan, -3.0, 1.0])
    if dtype in ("int64", "int8", "bool"):
        vals = np.array([2, -1, 0, 5, -128])
    a = vals.astype(dtype)
    x = pdt.tensor(a, device=device)
    got = pdt.angle(x)
    want_dtype = dtype if dtype.startswith("float") else "float32"
    assert got.dtype == getattr(pdt, want_dtype)
    f = a.astype("float64")
    want = np.where(np.isnan(f), np.nan, np.where(f < 0, np.pi, 0.0)).astype(want_dtype)
    np.testing.assert_array_equal(got.cpu().to(pdt.float64).numpy(), want.astype("float64"))
    np.testing.assert_array_equal(x.angle().cpu().to(pdt.float64).numpy(), want)
    assert not np.signbit(got.cpu().to(pdt.float64).numpy()).any()


def test_angle_gradient_is_zero(device):
    x = pdt.tensor([1.5, -2.0, 0.0, np.nan, -np.inf], dtype=pdt.float64, device=device,
                   requires_grad=True)
    pdt.angle(x).sum().backward()
    assert x.grad.tolist() == [0.0] * 5
    with pytest.raises(TypeError, match=r"angle\(\): argument 'input' must be a Tensor"):
        pdt.angle([1.0])


INT_DTYPES = ["int8", "uint8", "int16", "int32", "int64"]


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_gcd_lcm_match_numpy(device, dtype):
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    hi = min(info.max, 10**6)
    lo = max(info.min + 1, -hi)  # |min| wraps (as in PyTorch); numpy's does not
    a = rng.integers(lo, hi, (40, 1)).astype(dtype)
    b = rng.integers(lo, hi, (1, 30)).astype(dtype)
    a[:4, 0], b[0, :3] = 0, 0  # gcd(0, 0) = 0, lcm with 0 is 0
    b[0, 3:8] = rng.integers(1, 13, 5)  # small divisors: nontrivial gcds
    x, y = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
    g = np.gcd(a, b)
    with np.errstate(over="ignore"):  # PyTorch's |a / gcd * b|, wrapping in the dtype
        lcm = np.abs(a // np.where(g == 0, 1, g) * b)
    small = np.abs(a.astype(np.int64) // np.maximum(g, 1) * b) <= info.max
    np.testing.assert_array_equal(lcm[small], np.lcm(a, b)[small])
    for name, want in (("gcd", g), ("lcm", lcm)):
        got = getattr(pdt, name)(x, y)
        assert got.dtype == x.dtype and tuple(got.shape) == (40, 30)
        np.testing.assert_array_equal(got.cpu().numpy(), want, err_msg=name)
        np.testing.assert_array_equal(getattr(x, name)(y).cpu().numpy(), want)
        assert (got.cpu().numpy()[:4] >= 0).all()
        col = pdt.tensor(a[:, 0], device=device)
        assert getattr(col, name + "_")(pdt.tensor(b[0, 5], device=device)) is col
        np.testing.assert_array_equal(col.cpu().numpy(), want[:, 5])


def test_gcd_lcm_promote_and_refuse_floats(device):
    x = pdt.tensor([12, -18], dtype=pdt.int8, device=device)
    y = pdt.tensor([8, 12], dtype=pdt.uint8, device=device)
    got = pdt.gcd(x, y)
    assert got.dtype == pdt.int16 and got.tolist() == [4, 6]
    assert pdt.lcm(x, pdt.tensor(10, device=device)).tolist() == [60, 90]  # 0-d: x's dtype
    for bad in (pdt.float32, pdt.bool):
        with pytest.raises(TypeError, match=r"gcd\(\): \"gcd\" not implemented for the result "
                                            r"dtype pydevtensor\.%s" % str(bad)[12:]):
            pdt.gcd(x.to(bad), x.to(bad))
    with pytest.raises(TypeError, match=r"lcm\(\): argument 'other' must be a Tensor, got int"):
        pdt.lcm(x, 3)


def test_heaviside_has_no_derivative(device):
    # PyTorch's heaviside records a NotImplemented node: the result requires grad and a
    # backward through it raises naming heaviside.  Before, input's gradient raised
    # "element 0 of tensors does not require grad" and values' flowed through where.
    x = pdt.tensor([-1.0, 0.0, 2.0], device=device, requires_grad=True)
    v = pdt.tensor([0.5], device=device, requires_grad=True)
    for a, b in ((x, v.detach()), (x.detach(), v), (x, v)):
        y = pdt.heaviside(a, b)
        assert y.requires_grad and type(y.grad_fn).__name__ == "NotImplemented"
        np.testing.assert_array_equal(y.detach().cpu().numpy(), [0.0, 0.5, 1.0])
        with pytest.raises(RuntimeError, match="derivative for heaviside is not implemented"):
            y.sum().backward()
    assert x.grad is None and v.grad is None
    with pdt.no_grad():
        assert not pdt.heaviside(x, v).requires_grad
    out = pdt.empty(3, device=device)  # out= takes a grad-requiring input, as PyTorch's
    assert pdt.heaviside(x, v, out=out) is out and not out.requires_grad
