"""logit, xlogy, xlog1py, entr, exp2, sinc, ndtr (pydevtensor/_ops_special.py) and the
``pydevtensor.special`` namespace, on every device, against NumPy in float64.

Tolerances: float64 within 1e-12 relative (+1e-12 absolute) of the float64 reference
(1e-11 for sinc and ndtr, whose float64 argument pi*x or x/sqrt(2) is rounded once more
than NumPy's); float32 within 2e-6 relative (+1e-6), the float64 reference of the
float32 input.  Special values (0, 1, negative, inf, NaN) exactly as PyTorch's.
Gradients: test_gradcheck's central differences in float64."""
import itertools
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from test_gradcheck import gradcheck

NAN, INF = math.nan, math.inf
TOL = {"float32": (2e-6, 1e-6), "float64": (1e-12, 1e-12)}
SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, INF, -INF, NAN, 1e-30, 3.0]


def _check(got, want, dtype, rtol=None):
    got = got.detach().cpu().numpy().astype(np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    inf = np.isinf(want)
    np.testing.assert_array_equal(got[inf], want[inf])
    rt, at = TOL[dtype]
    rt = rtol or rt
    with np.errstate(invalid="ignore"):
        ok = ~np.isfinite(want) | (np.abs(got - want) <= at + rt * np.abs(want))
    assert ok.all(), (got[~ok], want[~ok])


def _sample(dtype, lo=-4.0, hi=4.0, n=257):
    rng = np.random.default_rng(7)
    return np.concatenate([rng.uniform(lo, hi, n), SPECIALS]).astype(dtype)


def _ref_xlogy(x, y, log):
    with np.errstate(all="ignore"):
        out = x * log(y)
    return np.where((x == 0) & ~np.isnan(y), 0.0, out)


def _ref_entr(x):
    with np.errstate(all="ignore"):
        inside = -x * np.log(np.where(x > 0, x, 1.0))
    return np.where(x > 0, inside, np.where(x == 0, 0.0, np.where(x < 0, -INF, x)))


def _ref_logit(x, eps=None):
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    with np.errstate(all="ignore"):
        return np.log(x / (1 - x))


def _ref_ndtr(x):
    return np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in x])


UNARY = {
    "logit": (lambda t: pdt.logit(t), lambda a: _ref_logit(a), (0.0, 1.0), None),
    "logit_eps": (lambda t: pdt.logit(t, eps=1e-3), lambda a: _ref_logit(a, 1e-3), (-0.5, 1.5),
                  None),
    "entr": (lambda t: pdt.special.entr(t), _ref_entr, (-1.0, 3.0), None),
    "exp2": (lambda t: pdt.exp2(t), np.exp2, (-30.0, 30.0), None),
    "sinc": (lambda t: pdt.sinc(t), np.sinc, (-6.0, 6.0), 1e-11),
    "ndtr": (lambda t: pdt.special.ndtr(t), _ref_ndtr, (-9.0, 9.0), 1e-11),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_matches_numpy(device, dtype, name):
    fn, ref, (lo, hi), rtol64 = UNARY[name]
    a = _sample(dtype, lo, hi)
    got = fn(pdt.tensor(a, device=device))
    assert got.dtype == getattr(pdt, dtype) and got.device == device
    with np.errstate(invalid="ignore"):  # np.sinc(inf)
        want = ref(a.astype(np.float64))
    _check(got, want, dtype, rtol64 if dtype == "float64" else None)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_x_log_matches_numpy(device, dtype, name):
    log = np.log if name == "xlogy" else np.log1p
    fn = getattr(pdt.special, name)
    x = np.array(SPECIALS, dtype=dtype)[:, None]      # every pair of specials
    y = np.array(SPECIALS + [-2.0], dtype=dtype)[None, :]
    got = fn(pdt.tensor(x, device=device), pdt.tensor(y, device=device))
    _check(got, _ref_xlogy(x.astype(np.float64), y.astype(np.float64), log), dtype)
    for s in (0.0, 2.5, -1.0, NAN):                  # a number on either side
        _check(fn(pdt.tensor(x, device=device), s), _ref_xlogy(x.astype(np.float64),
                                                                np.float64(s), log), dtype)
        _check(fn(s, pdt.tensor(y, device=device)), _ref_xlogy(np.float64(s),
                                                                y.astype(np.float64), log), dtype)


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_x_log_of_a_zero_x_is_plus_zero(device, name):
    # x = 0 (either sign) and a y that is not NaN give +0, as PyTorch's 'if (x == 0)
    # return 0' (and scipy's): x * log(y) was -0 for log(y) < 0 or x = -0, in every form
    fn = getattr(pdt.special, name)
    ys = [0.5, 2.0, 0.0, -0.0, -0.5, INF, 1e-30]
    for dtype in (pdt.float16, pdt.float32, pdt.float64):
        for x0 in (0.0, -0.0):
            x = pdt.tensor([x0] * len(ys), dtype=dtype, device=device)
            y = pdt.tensor(ys, dtype=dtype, device=device)
            forms = [fn(x, y), fn(x0, y)] + [fn(x, v) for v in ys]
            for got in forms:
                v = got.cpu().to(pdt.float64).numpy().ravel()
                assert (v == 0).all() and not np.signbit(v).any(), (name, dtype, x0, v)
        assert np.isnan(fn(pdt.tensor([-0.0], dtype=dtype, device=device), NAN).item())


def test_integer_inputs_give_float32(device):
    i = pdt.tensor([0, 1, 2], device=device)
    for out in (pdt.logit(i), pdt.exp2(i), pdt.sinc(i), pdt.special.entr(i),
                pdt.special.ndtr(i), pdt.xlogy(i, i), pdt.xlogy(i, 2), pdt.xlogy(2, i)):
        assert out.dtype == pdt.float32 and out.device == device
    assert pdt.exp2(i).tolist() == [1.0, 2.0, 4.0]


def test_dtypes_follow_pytorch():
    """xlogy and xlog1py promote as PyTorch's: the pairs of a float32, an int64, a 0-d
    float64, a float16 and a bool tensor and Python numbers give torch's dtype and value."""
    torch = torch_or_skip()
    xs = [pdt.tensor([0.0, 0.5, 1.0, -1.0, NAN]), pdt.tensor([0, 1, 2, 3, 0]),
          pdt.tensor(2.0, dtype=pdt.float64), pdt.tensor([0.0, 1.0, 0.0, 2.0, 3.0],
                                                           dtype=pdt.float16),
          pdt.tensor([True, False, True, False, True]), 0, 2.5, 3, -1, 0.0]

    def theirs(v):
        return torch.from_numpy(v.numpy()) if isinstance(v, pdt.Tensor) else v
    for name in ("xlogy", "xlog1py"):
        for a, b in itertools.product(xs, xs):
            if not isinstance(a, pdt.Tensor) and not isinstance(b, pdt.Tensor):
                continue
            got, want = getattr(pdt.special, name)(a, b), getattr(torch.special, name)(
                theirs(a), theirs(b))
            assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (a, b)
            np.testing.assert_allclose(got.numpy().astype(np.float64),
                                       want.numpy().astype(np.float64), rtol=1e-3,
                                       equal_nan=True)


def test_matches_pytorch_on_specials():
    torch = torch_or_skip()
    a = np.array(SPECIALS + [-2.0, 0.25, 0.75], dtype=np.float32)
    t, ours = torch.from_numpy(a), pdt.tensor(a)
    pairs = [(pdt.logit(ours), torch.logit(t)), (pdt.logit(ours, 0.1), torch.logit(t, 0.1)),
             (pdt.exp2(ours), torch.exp2(t)), (pdt.sinc(ours), torch.sinc(t)),
             (pdt.special.entr(ours), torch.special.entr(t)),
             (pdt.special.ndtr(ours), torch.special.ndtr(t)),
             (pdt.special.expit(ours), torch.special.expit(t))]
    for got, want in pairs:
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-6, atol=1e-7,
                                   equal_nan=True)


GRADS = {
    "logit": (lambda x: pdt.logit(x), [(0.05, 0.95)]),
    "logit_eps": (lambda x: pdt.logit(x, eps=0.2), [(0.0, 1.0)]),
    "xlogy": (lambda x, y: pdt.xlogy(x, y), [(-2.0, 2.0), (0.1, 3.0)]),
    "xlog1py": (lambda x, y: pdt.special.xlog1py(x, y), [(-2.0, 2.0), (-0.9, 3.0)]),
    "entr": (lambda x: pdt.special.entr(x), [(0.05, 3.0)]),
    "exp2": (lambda x: pdt.exp2(x), [(-3.0, 3.0)]),
    "sinc": (lambda x: pdt.sinc(x), [(-3.0, 3.0)]),
    "ndtr": (lambda x: pdt.special.ndtr(x), [(-3.0, 3.0)]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients(device, name):
    fn, ranges = GRADS[name]
    rng = np.random.default_rng(3)
    arrays = [rng.uniform(lo, hi, (3, 4)) for lo, hi in ranges]
    if name == "logit_eps":  # away from the clamp's kinks at 0.2 and 0.8
        arrays[0] = np.where(np.abs(arrays[0] - 0.2) < 0.02, 0.1, arrays[0])
        arrays[0] = np.where(np.abs(arrays[0] - 0.8) < 0.02, 0.9, arrays[0])
    gradcheck(fn, arrays, device)


def test_gradient_at_the_removable_points(device):
    """sinc'(0) = 0 and near 0 (no cancellation); xlogy's gradient in x at x = 0 is
    PyTorch's: log(y) where y > 0, 0 where y <= 0 (not NaN), and finite in y except at
    y = 0; logit's and entr's gradients are PyTorch's at the ends of their domains."""
    x = pdt.tensor([0.0, 1.0, 1e-5, 1e-20], dtype=pdt.float64, device=device,
                   requires_grad=True)
    pdt.sinc(x).sum().backward()
    g = x.grad.tolist()
    assert g[0] == 0.0 and math.isclose(g[1], -1.0, rel_tol=1e-12)
    assert math.isclose(g[2], -(math.pi ** 2) * 1e-5 / 3, rel_tol=1e-6) and abs(g[3]) < 1e-18
    x32 = pdt.tensor([1e-5, 1e-30, 0.02], device=device, requires_grad=True)
    pdt.sinc(x32).sum().backward()
    want = [-(math.pi ** 2) * 1e-5 / 3, 0.0,
            (math.cos(0.02 * math.pi) * 0.02 * math.pi - math.sin(0.02 * math.pi))
            / (math.pi * 0.02 ** 2)]
    np.testing.assert_allclose(x32.grad.cpu().numpy(), want, rtol=1e-4, atol=1e-9)
    x = pdt.tensor([0.0, 0.0, 0.0, 2.0], dtype=pdt.float64, device=device, requires_grad=True)
    y = pdt.tensor([3.0, 0.0, -1.0, 3.0], dtype=pdt.float64, device=device, requires_grad=True)
    out = pdt.xlogy(x, y)
    assert out.tolist()[:3] == [0.0, 0.0, 0.0]
    out.sum().backward()
    assert x.grad.tolist() == [math.log(3.0), 0.0, 0.0, math.log(3.0)]
    assert y.grad.tolist()[0] == 0.0 and math.isclose(y.grad.tolist()[3], 2 / 3, rel_tol=1e-12)
    x = pdt.tensor([0.0, 2.0], dtype=pdt.float64, device=device, requires_grad=True)
    out = pdt.xlogy(x, -1.0)
    assert out.tolist()[0] == 0.0 and math.isnan(out.tolist()[1])
    x = pdt.tensor([0.0, 1.0, 2.0, 0.5], dtype=pdt.float64, device=device, requires_grad=True)
    pdt.logit(x).sum().backward()
    g = x.grad.tolist()
    assert g[:2] == [math.inf, math.inf] and math.isnan(g[2]) and g[3] == 4.0
    x = pdt.tensor([0.0, 0.1, 0.5, 0.95], dtype=pdt.float64, device=device, requires_grad=True)
    pdt.logit(x, eps=0.2).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 4.0, 0.0]


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_x_log_gradient_at_zero_and_infinity(device, name):
    # d/dx x log(y) = log(y) = inf at (0, inf), where the value is 0 (it was NaN); the
    # gradient of y, x / y, is 0 there, and its derivative in x 1 / y at (0, 2)
    x = pdt.tensor([0.0, 0.0], dtype=pdt.float64, device=device, requires_grad=True)
    y = pdt.tensor([INF, 2.0], dtype=pdt.float64, device=device, requires_grad=True)
    out = getattr(pdt.special, name)(x, y)
    gx, gy = pdt.autograd.grad(out.sum(), [x, y], create_graph=True)
    assert out.tolist() == [0.0, 0.0] and gx.tolist()[0] == INF and gy.tolist() == [0.0, 0.0]
    (gyx,) = pdt.autograd.grad(gy.sum(), [x])
    assert gyx.tolist()[1] == (0.5 if name == "xlogy" else 1 / 3)


def test_logit_clamps_below_eps_first_as_pytorch(device):
    # eps > 1/2: x < eps ? eps : (x > 1 - eps ? 1 - eps : x), so 0.5 gives logit(0.7)
    x = pdt.tensor([0.5, 0.1, 0.9, NAN], dtype=pdt.float64, device=device)
    want = math.log(0.7 / 0.3)
    got = pdt.logit(x, eps=0.7).tolist()
    assert got[:3] == pytest.approx([want, want, -want], rel=1e-15) and math.isnan(got[3])
    x = pdt.tensor([0.0, -1.0, 2.0], dtype=pdt.float64, device=device, requires_grad=True)
    pdt.special.entr(x).sum().backward()
    g = x.grad.tolist()
    assert g[0] == math.inf and math.isnan(g[1]) and math.isclose(g[2], -1 - math.log(2))


@pytest.mark.parametrize("dtype", [pdt.float64, pdt.float32])
def test_logit_keeps_its_digits_near_one_half(device, dtype):
    # logit(x) = 2 atanh(2x - 1), 2x - 1 exact there: log(x / (1 - x)) lost up to 90 ulps
    # of the small result near 1/2 (the rounding of a quotient near 1)
    rng = np.random.default_rng(0)
    npd = np.float64 if dtype == pdt.float64 else np.float32
    a = np.concatenate([rng.uniform(0.49, 0.51, 400), rng.uniform(0.26, 0.74, 400)]).astype(npd)
    a = a[a != 0.5]
    want = 2 * np.arctanh(2 * a.astype(np.float64) - 1)
    got = pdt.logit(pdt.tensor(a, device=device)).cpu().numpy().astype(np.float64)
    ulps = np.abs(got - want) / np.spacing(np.abs(want).astype(npd)).astype(np.float64)
    assert ulps.max() <= 4
    x = pdt.tensor([0.5, 0.0, 1.0, 0.2, 0.8, -0.1, NAN], dtype=dtype, device=device)
    got = pdt.logit(x).tolist()
    assert got[:3] == [0.0, -math.inf, math.inf] and all(map(math.isnan, got[5:]))
    assert got[3:5] == pytest.approx([-math.log(4), math.log(4)], rel=1e-6)


@pytest.mark.parametrize("eps", [None, -1.0, -1e-3, 0.0, -0.0, 0.05])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_logit_gradient_outside_the_domain_and_at_its_edges(device, eps, sign):
    # no eps (None or eps < 0, as PyTorch's): NaN where the value is NaN, g * inf at -0.0,
    # 0 and 1 (1 / (x (1 - x)) from inside); eps >= 0 (-0.0 too): 0 outside [eps, 1 - eps]
    a = np.array([-0.5, 1.5, 0.5, 0.0, -0.0, 1.0, 0.1, 0.95, NAN])
    x = pdt.tensor(a, device=device, requires_grad=True)
    (pdt.logit(x, eps) * sign).sum().backward()
    with np.errstate(divide="ignore", invalid="ignore"):
        want = sign / (a * (1 - a) + 0.0)
    if eps is None or eps < 0:
        want[(a < 0) | (a > 1)] = NAN
        assert np.isnan(pdt.logit(x.detach(), eps).cpu().numpy()[:2]).all()
    else:
        want[(a < eps) | (a > 1 - eps)] = 0.0
    np.testing.assert_allclose(x.grad.cpu().numpy(), want, rtol=1e-14)


def test_gradients_at_the_edges_match_pytorch():
    torch = torch_or_skip()
    vals = [0.0, 1.0, 2.0, -1.0, 0.5, 1e-6, NAN]
    for name, ours, theirs in (
            ("logit", lambda t: pdt.logit(t), lambda t: torch.logit(t)),
            ("logit_eps", lambda t: pdt.logit(t, 0.1), lambda t: torch.logit(t, 0.1)),
            ("entr", lambda t: pdt.special.entr(t), lambda t: torch.special.entr(t)),
            ("sinc", lambda t: pdt.sinc(t), lambda t: torch.sinc(t))):
        vals = [v for v in vals if name != "sinc" or v != 1e-6]  # torch's cancels there
        a = pdt.tensor(vals, dtype=pdt.float64, requires_grad=True)
        b = torch.tensor(vals, dtype=torch.float64, requires_grad=True)
        ours(a).sum().backward()
        theirs(b).sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-12,
                                   equal_nan=True, err_msg=name)


def test_methods_and_in_place(device):
    x = pdt.tensor([0.25, 0.5], device=device)
    np.testing.assert_allclose(x.logit().cpu().numpy(), _ref_logit(np.array([0.25, 0.5])),
                               rtol=1e-6)
    for name, args in (("logit", (0.3,)), ("xlogy", (3.0,)), ("exp2", ()), ("sinc", ())):
        y = pdt.tensor([0.25, 0.5], device=device)
        view = y[:]
        want = getattr(y, name)(*args)
        assert getattr(view, name + "_")(*args) is view
        assert y.tolist() == want.tolist()  # the view wrote through
    i = pdt.tensor([1, 2], device=device)
    with pytest.raises(RuntimeError, match=r"sinc_\(\): result type pydevtensor.float32 "
                                           r"can't be cast to .*int64"):
        i.sinc_()
    with pytest.raises(TypeError, match=r"exp2_: result type float32 can't be cast to the "
                                        r"desired output type int64"):  # C's in-place form
        i.exp2_()
    assert i.tolist() == [1, 2]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_bool_numbers_read_as_0_and_1(device, dtype):
    # PyTorch takes a bool number as 0 or 1: xlogy(t, True) is t * log(1) = 0
    a = np.array([0.0, 1.0, 2.0, 3.0]).astype(dtype)
    want_dtype = dtype if dtype.startswith("float") else "float32"
    t = pdt.tensor(a, device=device)
    f = a.astype("float64")
    for fn, ref in ((pdt.special.xlogy, lambda x, y: x * np.log(y)),
                    (pdt.special.xlog1py, lambda x, y: x * np.log1p(y))):
        for b in (True, False):
            with np.errstate(divide="ignore", invalid="ignore"):
                want = np.where(f == 0, 0.0, ref(f, float(b)))
                got = fn(t, b)
                assert got.dtype == getattr(pdt, want_dtype)
                np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-6)
                got = fn(b, t)
                want = np.zeros(4) if not b else ref(1.0, f)
                np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-6)
    y = pdt.tensor([1.0, 2.0], device=device)
    assert y.xlogy_(True) is y and y.tolist() == [0.0, 0.0]


def test_special_namespace():
    """torch.special's names that pydevtensor has, each the function it names."""
    sp = pdt.special
    x = pdt.tensor([0.5, -1.0])
    assert sp.expit(x).tolist() == pdt.sigmoid(x).tolist()
    assert sp.logsumexp(x, 0).item() == pdt.logsumexp(x, 0).item()
    assert sp.softmax(x, 0).tolist() == pdt.softmax(x, 0).tolist()
    assert sp.log_softmax(x, 0).tolist() == pdt.log_softmax(x, 0).tolist()
    for name in ("erf", "erfc", "expm1", "log1p", "round", "exp2", "logit", "sinc", "xlogy"):
        assert getattr(sp, name) is getattr(pdt, name)
    assert set(sp.__all__) <= set(dir(sp)) and "special" in pdt.__all__


def test_refusals():
    with pytest.raises(TypeError, match=r"logit\(\): argument 'input' must be a Tensor, "
                                        r"got list"):
        pdt.logit([0.5])
    with pytest.raises(TypeError, match=r"logit\(\): eps must be a float, got str"):
        pdt.logit(pdt.tensor([0.5]), eps="0.1")
    with pytest.raises(TypeError, match=r"xlogy\(\): expected a Tensor for input or other, "
                                        r"got two numbers"):
        pdt.xlogy(1.0, 2.0)
    with pytest.raises(TypeError, match=r"xlogy\(\): argument 'other' must be a Tensor or a "
                                        r"number, got str"):
        pdt.xlogy(pdt.tensor([1.0]), "2")
    with pytest.raises(ValueError, match=r"\(2,\).*\(3,\)|\(3,\).*\(2,\)"):
        pdt.xlogy(pdt.ones(2), pdt.ones(3))


# the torch.special functions that lacked out=; the bool: whether out= is refused where
# input requires grad (PyTorch's: the differentiable ones; the others write it)
OUT_CASES = [("ndtr", (), True), ("entr", (), True), ("xlog1py", ("y",), True),
             ("gammainc", ("y",), True), ("gammaincc", ("y",), True), ("zeta", ("y",), True),
             ("multigammaln", (2,), True), ("bessel_j0", (), True), ("bessel_y1", (), True),
             ("modified_bessel_k0", (), True), ("modified_bessel_i1", (), True),
             ("airy_ai", (), False), ("scaled_modified_bessel_k1", (), False),
             ("spherical_bessel_j0", (), False), ("chebyshev_polynomial_t", (3,), False),
             ("hermite_polynomial_he", (2,), False), ("legendre_polynomial_p", (2,), False)]


@pytest.mark.parametrize("name, extra, refused", OUT_CASES)
def test_special_out(device, name, extra, refused):
    fn = getattr(pdt.special, name)
    x = pdt.tensor([2.5, 3.75], dtype=pdt.float64, device=device)
    args = [x] + [pdt.tensor([1.5, 2.0], dtype=pdt.float64, device=device) if a == "y" else a
                  for a in extra]
    want = fn(*args).cpu().numpy()
    out = pdt.empty(2, dtype=pdt.float64, device=device)
    assert fn(*args, out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), want)
    empty32 = pdt.empty(0, dtype=pdt.float32, device=device)  # resized, cast
    assert fn(*args, out=empty32) is empty32 and tuple(empty32.shape) == (2,)
    np.testing.assert_allclose(empty32.cpu().numpy(), want, rtol=1e-6)
    with pytest.raises(pdt._C.DTypeError, match="int64"):
        fn(*args, out=pdt.empty(2, dtype=pdt.int64, device=device))
    xg = x.clone().requires_grad_()
    out = pdt.empty(2, dtype=pdt.float64, device=device)
    if refused:
        with pytest.raises(RuntimeError, match="out=.*requires"):
            fn(xg, *args[1:], out=out)
    else:
        fn(xg, *args[1:], out=out)
        np.testing.assert_array_equal(out.cpu().numpy(), want)
        assert not out.requires_grad
