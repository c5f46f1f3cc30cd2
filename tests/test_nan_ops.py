"""logsumexp, logaddexp, nan_to_num, nansum, nanmean, count_nonzero (pydevtensor/_ops_nan.py)
and frac, signbit, sgn, lerp, addcmul, addcdiv (pydevtensor/_ops_pointwise.py) on every
device, against NumPy in float64.

Tolerances: float64 results within 1e-12 relative (+1e-12 absolute) of NumPy's float64
value, float32 within 1e-6 relative (+1e-6); the replacements, counts, signs and frac are
exact.  Gradients: test_gradcheck's central differences in float64."""
import math
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import TOL, torch_or_skip
from test_gradcheck import gradcheck

INF, NAN = math.inf, math.nan
FLOATS = ["float32", "float64"]


def _np(t):
    return t.detach().cpu().numpy()


def assert_close(got, want, dtype):
    """abs(got - want) <= atol + rtol * abs(want) (TOL of conftest), with equal
    infinities and NaN where NaN."""
    got, want = _np(got).astype(np.float64), np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    inf = np.isinf(want)
    np.testing.assert_array_equal(got[inf], want[inf])
    atol, rtol = TOL[dtype]
    with np.errstate(invalid="ignore"):
        ok = ~np.isfinite(want) | (np.abs(got - want) <= atol + rtol * np.abs(want))
    assert ok.all(), (got[~ok], want[~ok])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim,keepdim", [(1, False), (0, True), ((0, 1), False), (-1, True)])
def test_logsumexp_matches_numpy(device, dtype, dim, keepdim):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 5)) * 30
    a[1] = -INF                       # a row of -inf: -inf
    a[2, 3] = INF                     # a row holding +inf: +inf
    a[3] += 1000.0                    # would overflow exp without the shift
    x = pdt.tensor(a.astype(dtype), device=device)
    got = pdt.logsumexp(x, dim, keepdim=keepdim)
    with np.errstate(all="ignore"):
        b = a.astype(dtype).astype(np.float64)
        m = np.max(b, axis=dim, keepdims=True)
        m = np.where(np.isinf(m), 0.0, m)
        want = np.log(np.sum(np.exp(b - m), axis=dim, keepdims=True)) + m
    want = want if keepdim else np.squeeze(want, axis=dim)
    assert got.dtype == x.dtype and got.device == device
    assert_close(got, want, dtype)
    assert_close(x.logsumexp(dim, keepdim), want, dtype)


def test_logsumexp_edges(device):
    x = pdt.tensor([[1, 2], [3, 4]], device=device)  # integers: float32
    got = pdt.logsumexp(x, 1)
    assert got.dtype == pdt.float32
    assert_close(got, np.logaddexp([1.0, 3.0], [2.0, 4.0]), "float32")
    empty = pdt.logsumexp(pdt.zeros(3, 0, device=device), 1)
    assert empty.shape == (3,) and np.all(_np(empty) == -INF)
    assert pdt.logsumexp(pdt.zeros(0, 4, device=device), 1).shape == (0,)
    zero_d = pdt.logsumexp(pdt.tensor(2.5, dtype=pdt.float64, device=device), 0)
    assert zero_d.shape == () and zero_d.item() == 2.5
    assert pdt.logsumexp(pdt.tensor(-INF, device=device), -1).item() == -INF
    assert math.isnan(pdt.logsumexp(pdt.tensor([1.0, NAN], device=device), 0).item())
    with pytest.raises(IndexError, match=r"logsumexp\(\): Dimension out of range"):
        pdt.logsumexp(x, 2)


def test_logsumexp_gradient_is_softmax(device):
    gradcheck(lambda x: pdt.logsumexp(x, 1), [np.random.default_rng(0).standard_normal(
        (3, 4))], device)
    gradcheck(lambda x: pdt.logsumexp(x, (0, 1), keepdim=True),
              [np.random.default_rng(1).standard_normal((2, 3))], device, noncontig=True)
    x = pdt.tensor([[-INF, 0.0, 1.0]], dtype=pdt.float64, device=device, requires_grad=True)
    pdt.logsumexp(x, 1).sum().backward()
    e = np.exp([-INF, 0.0, 1.0])
    np.testing.assert_allclose(_np(x.grad)[0], e / e.sum(), rtol=1e-12)


@pytest.mark.parametrize("dtype", FLOATS)
def test_logaddexp_matches_numpy(device, dtype):
    a = np.array([0.0, 1.0, -3.0, 1000.0, -1000.0, INF, -INF, INF, -INF, INF, NAN, 5.0])
    b = np.array([0.0, 2.0, 4.0, 999.0, -1001.0, INF, -INF, -INF, 2.0, 3.0, 1.0, -INF])
    got = pdt.logaddexp(pdt.tensor(a.astype(dtype), device=device),
                        pdt.tensor(b.astype(dtype), device=device))
    assert got.dtype == getattr(pdt, dtype)
    with np.errstate(invalid="ignore"):
        want = np.logaddexp(a.astype(dtype).astype(np.float64), b.astype(dtype).astype(
            np.float64))
    assert_close(got, want, dtype)
    x = pdt.tensor([[1.0], [2.0]], dtype=pdt.float64, device=device)  # broadcast, mixed
    mixed = x.logaddexp(pdt.tensor([0.0, 3.0], device=device))
    assert mixed.dtype == pdt.float64 and mixed.shape == (2, 2)
    assert_close(mixed, np.logaddexp([[1.0], [2.0]], [0.0, 3.0]), "float64")
    assert_close(pdt.logaddexp(x, 1.5), np.logaddexp([[1.0], [2.0]], 1.5), "float64")


def test_logaddexp_gradient_and_errors(device):
    rng = np.random.default_rng(2)
    gradcheck(pdt.logaddexp, [rng.standard_normal((2, 3)), rng.standard_normal((3,))], device)
    a = pdt.tensor([1.0, 2.0], dtype=pdt.float64, device=device, requires_grad=True)
    pdt.logaddexp(a, a.detach()).sum().backward()  # a tie: 1/2
    np.testing.assert_allclose(_np(a.grad), [0.5, 0.5])
    with pytest.raises(TypeError, match=r"logaddexp: expected floating point tensors, got the "
                                        r"result dtype int64 \(shapes \(1,\) and \(1,\), on"):
        pdt.logaddexp(pdt.tensor([1], device=device), pdt.tensor([1], device=device))
    # an integer tensor with a floating one promotes, as PyTorch's
    got = pdt.logaddexp(pdt.tensor([1], device=device), pdt.tensor([1.0], device=device))
    assert got.dtype == pdt.float32 and abs(got.item() - (1 + np.log(2))) < 1e-6


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_nan_to_num_matches_numpy(device, dtype):
    a = np.array([NAN, INF, -INF, 1.5, -0.0, 7.0])
    x = pdt.tensor(a, device=device).to(getattr(pdt, dtype))
    got = pdt.nan_to_num(x)
    assert got.dtype == x.dtype and got.device == device
    big = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
           "float32": float(np.finfo(np.float32).max), "float64": np.finfo(np.float64).max}
    np.testing.assert_array_equal(_np(got.to(pdt.float64)), np.nan_to_num(
        a, posinf=big[dtype], neginf=-big[dtype]))
    got = x.nan_to_num(nan=-1.0, posinf=2.0, neginf=-3.0)
    np.testing.assert_array_equal(_np(got.to(pdt.float64)),
                                  np.nan_to_num(a, nan=-1.0, posinf=2.0, neginf=-3.0))
    assert pdt.nan_to_num_(x, nan=4.0) is x and x[0].item() == 4.0


def test_nan_to_num_integers_gradient_and_errors(device):
    i = pdt.tensor([1, -2], device=device)
    out = pdt.nan_to_num(i, nan=3.0)
    assert out.dtype == pdt.int64 and out.data_ptr() != i.data_ptr()
    np.testing.assert_array_equal(_np(out), [1, -2])
    assert pdt.nan_to_num(pdt.zeros(0, 3, device=device)).shape == (0, 3)
    assert pdt.nan_to_num(pdt.tensor(NAN, device=device)).item() == 0.0
    x = pdt.tensor([NAN, 2.0, INF], dtype=pdt.float64, device=device, requires_grad=True)
    (pdt.nan_to_num(x) * pdt.tensor([1.0, 3.0, 5.0], dtype=pdt.float64,
                                    device=device)).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), [0.0, 3.0, 0.0])
    with pytest.raises(TypeError, match=r"nan_to_num\(\): posinf must be a number or None, "
                                        r"got str"):
        pdt.nan_to_num(x, posinf="big")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (1, True), ((0, 1), True)])
def test_nansum_nanmean_match_numpy(device, dtype, dim, keepdim):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 3)).astype(dtype)
    a[0, 1] = a[2, 0] = NAN
    a[3, :] = NAN  # an all-NaN row: nansum 0, nanmean NaN
    x = pdt.tensor(a, device=device)
    ref = a.astype(np.float64)
    axis = dim
    assert_close(pdt.nansum(x, dim, keepdim), np.nansum(ref, axis=axis, keepdims=keepdim),
                 dtype)
    with warnings.catch_warnings():  # "Mean of empty slice" for the all-NaN row
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.nanmean(ref, axis=axis, keepdims=keepdim)
    got = x.nanmean(dim, keepdim)
    assert got.dtype == x.dtype
    assert_close(got, want, dtype)


def test_nansum_nanmean_integers_empty_gradient(device):
    i = pdt.tensor([[1, 2], [3, 4]], dtype=pdt.int32, device=device)
    s = pdt.nansum(i, 1)
    assert s.dtype == pdt.int64 and _np(s).tolist() == [3, 7]
    assert pdt.nansum(i, dtype=pdt.float64).dtype == pdt.float64
    assert pdt.nansum(pdt.zeros(0, device=device)).item() == 0.0
    assert math.isnan(pdt.nanmean(pdt.zeros(0, device=device)).item())
    assert pdt.nansum(pdt.tensor(NAN, device=device)).item() == 0.0
    with pytest.raises(TypeError, match=r"nanmean\(\): expected a floating point tensor, got "
                                        r"pydevtensor.int32 \(shape \(2, 2\), on"):
        pdt.nanmean(i)
    x = pdt.tensor([1.0, NAN, 3.0], dtype=pdt.float64, device=device, requires_grad=True)
    (pdt.nansum(x) + 2 * pdt.nanmean(x)).backward()
    np.testing.assert_allclose(_np(x.grad), [2.0, 0.0, 2.0])


@pytest.mark.parametrize("keepdim", [False, True])
def test_nanmean_gradient_of_an_all_nan_slice_is_nan(device, keepdim):
    # nansum's backward is g * ~isnan(x) (PyTorch's): g / 0 = inf for the all-NaN row
    # gives NaN to each of its elements; a row with numbers gives 1 / count to them
    a = np.array([[NAN, 1.0, 2.0], [NAN, NAN, NAN]])
    x = pdt.tensor(a, device=device, requires_grad=True)
    pdt.nanmean(x, 1, keepdim).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), [[0.0, 0.5, 0.5], [NAN, NAN, NAN]])
    # an infinite g of nansum: NaN at the NaN elements, inf at the others
    x = pdt.tensor(a, device=device, requires_grad=True)
    w = pdt.tensor([math.inf, 2.0], dtype=pdt.float64, device=device)
    (pdt.nansum(x, 1) * w).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), [[NAN, INF, INF], [0.0, 0.0, 0.0]])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_nanmean_of_more_half_values_than_float16_counts(device, dtype):
    """The count divides in float32 (PyTorch's opmath): 70000 is inf in float16, and the
    mean of 70000 values came out 0 (its gradient 0 too)."""
    a = np.full((2, 70000), 0.5, dtype=np.float32)
    a[1, ::7] = np.nan
    x = pdt.tensor(a, device=device).to(getattr(pdt, dtype)).requires_grad_()
    got = pdt.nanmean(x, 1)
    assert got.dtype == getattr(pdt, dtype)
    np.testing.assert_array_equal(got.detach().float().cpu().numpy(), [0.5, 0.5])
    half = pdt.nanmean(x[0, :100].detach(), keepdim=True)  # small counts as before
    assert tuple(half.shape) == (1,) and half.float().item() == 0.5
    (g,) = pdt.autograd.grad(pdt.nanmean(x), x)
    want = np.where(np.isnan(a), 0.0, 1 / np.count_nonzero(~np.isnan(a)))
    np.testing.assert_allclose(g.float().cpu().numpy(), want, rtol=2 ** -7)


def test_count_nonzero_matches_numpy(device):
    a = np.array([[0.0, 1.5, NAN], [0.0, 0.0, -2.0]])
    for dtype in ["bool", "int32", "int64", "float32", "float64"]:
        b = a if dtype.startswith("float") else np.nan_to_num(a).astype(dtype)
        x = pdt.tensor(b, device=device)
        for dim in [None, 0, 1, (0, 1), -1]:
            got = pdt.count_nonzero(x, dim)
            assert got.dtype == pdt.int64
            np.testing.assert_array_equal(_np(got), np.count_nonzero(b, axis=dim))
    assert x.count_nonzero().item() == 3
    assert pdt.count_nonzero(pdt.tensor(0.0, device=device)).item() == 0
    assert pdt.count_nonzero(pdt.zeros(0, 2, device=device), 0).tolist() == [0, 0]
    with pytest.raises(RuntimeError, match=r"count_nonzero\(\): dim 1 appears more than once"):
        pdt.count_nonzero(x, (1, -1))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                   "float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 3, 65, 70000, 2**17 + 3, 2**23 + 5])
def test_count_nonzero_of_everything(device, dtype, n):
    """count_nonzero of a whole tensor (on the CPU one pass over the elements' bits:
    csrc/cpu/cpu_count.c) for every dtype, past a 16-bit lane's 65,535 and past the
    sizes split over threads (2^17) and in the most parts (2^23): -0.0 counts as zero,
    NaN, infinities and the smallest subnormal as nonzero, and an integer's top bit alone
    (int16 -32768, the bits of float16's -0.0) as nonzero; np.count_nonzero's count, the
    same for a transposed view (the composed path) and the method."""
    rng = np.random.default_rng(n)
    specials = {"float": [-0.0, NAN, INF, -INF, 0.0, 1e-45], "int": [-1, 0, 127, -128]}
    if dtype == "bool":
        a = rng.random(n) < 0.5
    elif dtype.startswith("float") or dtype == "bfloat16":
        a = np.where(rng.random(n) < 0.5, 0.0, rng.standard_normal(n)).astype(np.float32)
        a[: min(n, 6)] = specials["float"][: min(n, 6)]
        if dtype == "float64":
            a = a.astype(np.float64)
            a[n // 2: n // 2 + 1] = 5e-324
    else:
        a = np.where(rng.random(n) < 0.5, 0, rng.integers(-100, 100, n)).astype(dtype)
        a[: min(n, 4)] = np.array(specials["int"][: min(n, 4)]).astype(dtype)
        if dtype == "int16" and n > 4:
            a[4] = -32768
    x = pdt.tensor(a, device=device).to(getattr(pdt, dtype))
    # the reference from the values as the tensor holds them (float16 and bfloat16
    # round: a subnormal float32 may round to 0)
    want = np.count_nonzero(x.to(pdt.float64).cpu().numpy() if dtype in ("float16", "bfloat16")
                            else a)
    got = pdt.count_nonzero(x)
    assert got.dtype == pdt.int64 and got.shape == () and got.device == x.device
    assert got.item() == want
    assert x.count_nonzero().item() == want
    if n >= 4:
        m = x[: n - n % 2].reshape(2, -1).t()  # not contiguous
        assert pdt.count_nonzero(m).item() == np.count_nonzero(_np(x)[: n - n % 2]
                                                               if dtype != "bfloat16" else
                                                               _np(x.to(pdt.float32))[: n - n % 2])


@pytest.mark.parametrize("level", pdt._C._cpu_simd_level()[1])
def test_count_nonzero_at_every_level_past_the_lane_limits(level, level_restored):
    """At each instruction-set level the CPU has: every element nonzero past a 16-bit
    lane's 65,535 (float16, bfloat16 and int16 in lanes of their width), tails of every
    length after the vectors, and integers whose only set bit is the top one (the
    smallest int8 to int64) against -0.0 of each float, which is zero."""
    pdt._C._cpu_simd_level(level)
    for dtype in ("float16", "bfloat16", "int16"):
        for n in (65535, 65536, 65537, 70001, 2**17 + 7):
            x = pdt.ones(n, dtype=getattr(pdt, dtype))
            assert pdt.count_nonzero(x).item() == n, (dtype, n)
    for dtype, low in (("int8", -2**7), ("int16", -2**15), ("int32", -2**31),
                       ("int64", -2**63)):
        for n in range(1, 70):
            a = np.zeros(n, dtype=dtype)
            a[::3] = low
            assert pdt.count_nonzero(pdt.from_numpy(a)).item() == np.count_nonzero(a), (dtype, n)
    for dtype in ("float16", "bfloat16", "float32", "float64"):
        for n in range(1, 70):
            x = pdt.full((n,), -0.0, dtype=getattr(pdt, dtype))
            x[::5] = NAN
            assert pdt.count_nonzero(x).item() == (n + 4) // 5, (dtype, n)


@pytest.mark.parametrize("dtype", FLOATS)
def test_signbit_kernel_and_composition_agree(device, dtype):
    """signbit from the bits (contiguous rows, where the device has the kernel) and
    composed (a strided view) give the same: the sign bit of every number, -0.0,
    negative subnormals and -nan included (True there, as PyTorch's and NumPy's)."""
    edge = np.array([-0.0, 0.0, -NAN, NAN, -INF, INF, -1e-45, 1e-45, -1e-310, -2.5, 3.0],
                    np.float64)
    a = np.concatenate([np.roll(edge, k) for k in range(40)]).astype(dtype)
    want = np.signbit(a)
    assert want[2] and not want[3]  # -nan, nan
    x = pdt.tensor(a, device=device)
    np.testing.assert_array_equal(_np(pdt.signbit(x)), want)
    np.testing.assert_array_equal(_np(x[:17].signbit()), want[:17])
    strided = pdt.tensor(np.stack([a, a], 1), device=device).t()[0]
    np.testing.assert_array_equal(_np(pdt.signbit(strided)), want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_frac_sgn_signbit_match_numpy(device, dtype):
    a = np.array([2.75, -1.25, 3.0, -0.0, 0.0, 1e10 + 0.5, -7.5, INF, -INF, NAN]).astype(dtype)
    x = pdt.tensor(a, device=device)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(_np(pdt.frac(x)), a - np.trunc(a))
    np.testing.assert_array_equal(_np(x.sgn()), np.sign(a))
    np.testing.assert_array_equal(_np(pdt.signbit(x))[:-1], np.signbit(a)[:-1])
    assert not pdt.signbit(x)[-1].item()  # NaN: False (documented)
    i = pdt.tensor([-3, 0, 4], device=device)
    np.testing.assert_array_equal(_np(i.signbit()), [True, False, False])
    np.testing.assert_array_equal(_np(pdt.sgn(i)), [-1, 0, 1])
    assert not pdt.signbit(pdt.tensor([True], device=device)).any().item()
    with pytest.raises(TypeError, match=r"frac\(\): expected a floating point tensor, got "
                                        r"input of dtype pydevtensor.int64 \(shape \(3,\)"):
        pdt.frac(i)
    x = pdt.tensor([2.5, -1.25], dtype=pdt.float64, device=device, requires_grad=True)
    pdt.frac(x).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), [1.0, 1.0])


def _close_lerp(got, s, e, w, dtype):
    """Within 4 ulps of the operands' size: lerp rounds three times, relative to the
    terms' magnitudes (the result may be much smaller, by cancellation)."""
    want = s + w * (e - s)
    scale = np.abs(s) + np.abs(e) + np.abs(w * (e - s))
    eps = np.finfo(getattr(np, dtype)).eps
    assert np.all(np.abs(_np(got) - want) <= 4 * eps * scale)


@pytest.mark.parametrize("dtype", FLOATS)
def test_lerp_matches_formula(device, dtype):
    rng = np.random.default_rng(4)
    s, e = rng.standard_normal((3, 4)), rng.standard_normal((4,))
    w = rng.uniform(-0.5, 1.5, (3, 4))
    s, e, w = (v.astype(dtype) for v in (s, e, w))
    ref_s, ref_e, ref_w = (v.astype(np.float64) for v in (s, e, w))
    xs, xe = pdt.tensor(s, device=device), pdt.tensor(e, device=device)
    _close_lerp(pdt.lerp(xs, xe, pdt.tensor(w, device=device)), ref_s, ref_e, ref_w, dtype)
    got = xs.lerp(xe, 1.0)
    np.testing.assert_array_equal(_np(got), np.broadcast_to(e, s.shape))  # weight 1: end
    _close_lerp(xs.lerp(xe, 0.25), ref_s, ref_e, 0.25, dtype)


def test_lerp_gradient_and_errors(device):
    rng = np.random.default_rng(5)
    gradcheck(lambda a, b, w: pdt.lerp(a, b, w), [rng.standard_normal((2, 3)),
              rng.standard_normal((3,)), rng.uniform(0, 1, (2, 3))], device)
    gradcheck(lambda a, b: pdt.lerp(a, b, 0.7), [rng.standard_normal((2, 2)),
              rng.standard_normal((2, 2))], device)
    x = pdt.ones(2, device=device)
    with pytest.raises(TypeError, match=r"lerp\(\): expected weight of input's dtype "
                                        r"pydevtensor.float32, got pydevtensor.float64"):
        pdt.lerp(x, x, pdt.ones(2, dtype=pdt.float64, device=device))
    with pytest.raises(TypeError, match=r"lerp\(\): expected a floating point tensor"):
        pdt.lerp(pdt.tensor([1], device=device), pdt.tensor([2], device=device), 0.5)


@pytest.mark.parametrize("dtype,wdtype", [("float16", "float32"), ("bfloat16", "float32"),
                                          ("float32", "float64"), ("float64", "float16")])
def test_lerp_0d_weight_of_another_dtype(device, dtype, wdtype):
    """A 0-d weight takes no part in the result's dtype (PyTorch's): cast to input's."""
    dt, wdt = getattr(pdt, dtype), getattr(pdt, wdtype)
    s, e = pdt.tensor([1.0, 2.0], dtype=dt, device=device), pdt.tensor([3.0, 7.0], dtype=dt,
                                                                        device=device)
    w = pdt.tensor(0.3, dtype=wdt, device=device, requires_grad=True)
    got = pdt.lerp(s, e, w)
    assert got.dtype == dt and s.lerp(e, w.detach()).dtype == dt
    if dtype != "bfloat16":  # the weight rounded to input's dtype, then 1 + 2 w, 2 + 5 w
        wr = np.float64(getattr(np, dtype)(getattr(np, wdtype)(0.3)))
        want = np.array([1 + 2 * wr, 2 + 5 * wr]).astype(dtype)
        np.testing.assert_array_equal(_np(got), want)
    else:
        np.testing.assert_allclose(_np(got).astype(np.float64), [1.6, 3.5], rtol=4e-3)
    got.sum().backward()
    assert w.grad.dtype == wdt and float(w.grad) == 7.0
    with pytest.raises(TypeError, match="expected weight of input's dtype"):
        pdt.lerp(s, e, pdt.tensor([0.3], dtype=wdt, device=device))  # 1-d: refused


def test_lerp_bool_weight(device):
    """A bool weight is 0.0 or 1.0, as PyTorch's: start or end exactly."""
    s = pdt.tensor([1.0, -2.5], device=device)
    e = pdt.tensor([3.0, 7.25], device=device)
    np.testing.assert_array_equal(_np(pdt.lerp(s, e, True)), [3.0, 7.25])
    np.testing.assert_array_equal(_np(s.lerp(e, False)), [1.0, -2.5])
    assert s.clone().lerp_(e, True).tolist() == [3.0, 7.25]


def test_addcmul_addcdiv_match_numpy(device):
    rng = np.random.default_rng(6)
    a, b, c = rng.standard_normal((2, 3)), rng.standard_normal((3,)), rng.uniform(1, 2, (2, 1))
    x, t1, t2 = (pdt.tensor(v, device=device) for v in (a, b, c))
    assert_close(pdt.addcmul(x, t1, t2, value=0.5), a + 0.5 * b * c, "float64")
    assert_close(x.addcdiv(t1, t2, value=-2), a - 2 * b / c, "float64")
    assert_close(x.addcmul(t1, t2), a + b * c, "float64")
    i = pdt.tensor([1, 2], device=device)
    got = pdt.addcmul(i, i, i, value=2)
    assert got.dtype == pdt.int64 and _np(got).tolist() == [3, 10]
    for value in (2.0, -3.0):  # whole floats act as the integer, the dtype kept
        got = pdt.addcmul(i, i, i, value=value)
        assert got.dtype == pdt.int64 and _np(got).tolist() == [1 + value, 2 + 4 * value]
    j = i.clone()
    assert j.addcmul_(i, i, value=3.0) is j and _np(j).tolist() == [4, 14]
    for value in (1.5, -0.25):  # PyTorch truncates these to 1 and 0
        with pytest.raises(RuntimeError, match=r"addcmul\(\): value must be an integer for "
                                               r"pydevtensor.int64 tensors \(on "):
            pdt.addcmul(i, i, i, value=value)
        with pytest.raises(RuntimeError, match="value must be an integer"):
            i.addcmul_(i, i, value=value)
    assert _np(i).tolist() == [1, 2]
    with pytest.raises(RuntimeError, match=r"addcdiv\(\): integer division is not supported: "
                                           r"tensor1 is pydevtensor.int64"):
        pdt.addcdiv(i, i, i)
    gradcheck(lambda p, q, r: pdt.addcdiv(p, q, r, value=0.3), [a, b, c], device)
    gradcheck(lambda p, q, r: pdt.addcmul(p, q, r, value=1.5), [a, b, c], device)


def test_against_torch(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 5)) * 10
    a[0, 0], a[1, :] = INF, -INF
    x, tx = pdt.tensor(a, device=device), torch.tensor(a)
    np.testing.assert_allclose(_np(pdt.logsumexp(x, 1)), torch.logsumexp(tx, 1).numpy(),
                               rtol=1e-12)
    np.testing.assert_array_equal(_np(pdt.nan_to_num(x)), torch.nan_to_num(tx).numpy())
    np.testing.assert_allclose(_np(pdt.logaddexp(x, x.flip(1))),
                               torch.logaddexp(tx, tx.flip(1)).numpy(), rtol=1e-12)


def test_no_copy_to_the_host(device):
    """The compositions run on the device: no device-to-host copy."""
    x = pdt.tensor([[1.0, NAN, -INF], [2.0, INF, 0.0]], device=device)
    t = pdt.tensor([[0.5, 1.0, 2.0]], device=device)
    pdt.reset_transfer_stats()
    with pdt.transfer_guard("disallow"):
        pdt.logsumexp(x, 1), pdt.logaddexp(x, t), pdt.nan_to_num(x), pdt.nansum(x, 0)
        pdt.nanmean(x), pdt.count_nonzero(x, 1), pdt.frac(x), pdt.signbit(x), pdt.sgn(x)
        pdt.lerp(x, t.expand(2, 3), t), pdt.addcmul(x, t, t), pdt.addcdiv(x, t, t)
    assert pdt.transfer_stats()["device_to_host"]["count"] == 0


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_types(device, dtype):
    """float16 and bfloat16 keep their dtype; each op rounds its pieces to the half type,
    so the results are within 4 units of its precision (eps: 2^-10 and 2^-7) of the
    float64 value of the rounded inputs, relative to the terms' size."""
    eps = {"float16": 2.0**-10, "bfloat16": 2.0**-7}[dtype]
    a = np.array([[1.0, 2.5, NAN, -0.75], [3.0, -INF, 0.5, 1.25]])
    x = pdt.tensor(a, device=device).to(getattr(pdt, dtype))
    r = _np(x.to(pdt.float64))  # the inputs as the half type holds them

    def close(got, want, scale):
        assert got.dtype == x.dtype
        got = _np(got.to(pdt.float64))
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        ok = np.isnan(want) | (got == want) | (np.abs(got - want) <= 4 * eps * scale)
        assert ok.all(), (got, want)

    with np.errstate(all="ignore"):
        lse = np.log(np.sum(np.exp(r), axis=1))
        close(pdt.logsumexp(x, 1), lse, np.abs(lse) + 1)
        close(pdt.logaddexp(x, x.flip(1)), np.logaddexp(r, r[:, ::-1]), np.abs(r) + 1)
        close(pdt.nansum(x, 1), np.nansum(r, axis=1), np.nansum(np.abs(r), axis=1))
        close(pdt.nanmean(x, 1), np.nanmean(r, axis=1), np.nanmean(np.abs(r), axis=1))
    big = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38}[dtype]
    close(pdt.nan_to_num(x, posinf=7.0), np.nan_to_num(r, posinf=7.0, neginf=-big), 0.0)


def test_in_place_variants(device):
    """addcmul_, addcdiv_, lerp_ and frac_ write the out-of-place result into self (a view
    writes through to its base); a result of another shape or a floating result for an
    integer self is refused, and self is left unchanged."""
    rng = np.random.default_rng(9)
    a, b, c = rng.standard_normal((2, 3)), rng.standard_normal(3), rng.uniform(1, 2, 3)
    t1, t2 = pdt.tensor(b, device=device), pdt.tensor(c, device=device)
    for name, args, kwargs, want in (
            ("addcmul_", (t1, t2), {"value": 0.5}, a + 0.5 * b * c),
            ("addcdiv_", (t1, t2), {"value": -2}, a - 2 * b / c),
            ("lerp_", (t1, 0.25), {}, a + 0.25 * (b - a)),
            ("frac_", (), {}, a - np.trunc(a))):
        base = pdt.tensor(np.stack([a, a]), device=device)
        x = base[1]
        assert getattr(x, name)(*args, **kwargs) is x
        np.testing.assert_allclose(_np(base[1]), want, rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(_np(base[0]), a)
    i = pdt.tensor([1, 2, 3], device=device)
    with pytest.raises(RuntimeError, match=r"addcmul_\(\): result type pydevtensor.float64 "
                                           r"can't be cast to the desired output type "
                                           r"pydevtensor.int64"):
        i.addcmul_(t1, t2)
    assert _np(i).tolist() == [1, 2, 3]
    small = pdt.tensor(b, device=device)
    with pytest.raises(RuntimeError, match=r"addcmul_\(\): the result's shape \(2, 3\) is not "
                                           r"self's \(3,\)"):
        small.addcmul_(pdt.tensor(a, device=device), t2)
    np.testing.assert_array_equal(_np(small), b)
    x = pdt.tensor(a, device=device, requires_grad=True)
    y = x * 1.0
    y.addcmul_(y.detach(), t2, value=2.0)  # in the graph: d/dx = 1
    y.sum().backward()
    np.testing.assert_array_equal(_np(x.grad), np.ones((2, 3)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_classify_rows_at_every_cpu_level(dtype, level_restored):
    """isnan, isinf, isfinite and signbit from the bits (cpu_vclassify.h, the level's
    vector rows split across the pool) at every CPU level, at every length up to 70 and
    each offset (the vector loops' bounds and tails), and at 3e5 (split across threads):
    NumPy's answers, computed in float64 for the half types."""
    from pydevtensor import _C
    edge = np.array([-0.0, 0.0, -NAN, NAN, -INF, INF, -1e-45, 1e-45, -1e-310, -2.5, 3.0,
                     65504.0, -1e38, 3e38], np.float64)
    rng = np.random.default_rng(9)
    a = np.concatenate([rng.permutation(edge) for _ in range(8)])
    big = np.tile(a, 300000 // a.size + 1)
    if dtype == "bfloat16":
        x, xb = (pdt.tensor(v, dtype=pdt.float32).to(pdt.bfloat16) for v in (a, big))
    else:
        with np.errstate(over="ignore"):  # float16: the large values become infinities
            x, xb = (pdt.tensor(v.astype(dtype)) for v in (a, big))
    ref = x.to(pdt.float64).numpy()  # the values as the dtype holds them
    refb = xb.to(pdt.float64).numpy()
    want = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
            "signbit": np.signbit}  # from an integer view (-nan: True), not the rows
    for level in _C._cpu_simd_level()[1]:
        _C._cpu_simd_level(level)
        for name, f in want.items():
            op = getattr(pdt, name)
            for n in range(71):
                for off in (0, 1, 3):
                    np.testing.assert_array_equal(op(x[off:off + n]).numpy(),
                                                  f(ref[off:off + n]),
                                                  err_msg=f"{level} {name} {n} {off}")
            np.testing.assert_array_equal(op(xb).numpy(), f(refb), err_msg=f"{level} {name}")
