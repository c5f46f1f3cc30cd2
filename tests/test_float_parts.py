"""frexp, ldexp, nextafter and rsub (pydevtensor/_ops_float_parts.py) on every device:
frexp and nextafter bit for bit against NumPy's (C's) on a dense sample of each float
dtype's range, the special values included; ldexp and rsub against their formulas."""
import math

import numpy as np
import pytest

import pydevtensor as pdt

NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16}
BITS = {"float32": np.uint32, "float64": np.uint64, "float16": np.uint16}
LN2 = math.log(2.0)


def sample(name, n=3000, seed=0):
    """Random mantissas at every exponent of the dtype, its subnormals, limits and
    special values."""
    fi = np.finfo(NP[name])
    rng = np.random.default_rng(seed)
    lo, hi = fi.minexp - fi.nmant, fi.maxexp - 1
    mags = rng.uniform(1, 2, n) * 2.0 ** rng.integers(lo, hi + 1, n)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, fi.max, -fi.max, fi.tiny, -fi.tiny,
               fi.smallest_subnormal, -fi.smallest_subnormal, fi.tiny / 2, 1.0, 0.5, 2.0,
               -1.0, 1 - fi.epsneg, 3.0]
    vals = np.concatenate([mags * rng.choice([-1, 1], n), special])
    with np.errstate(over="ignore"):
        return vals.astype(NP[name])


def on(device, vals, name):
    return pdt.tensor(vals.astype(np.float64), device=device).to(getattr(pdt, name))


def host(t, name):
    return t.cpu().to(pdt.float32 if name == "float16" else t.dtype).numpy().astype(NP[name])


@pytest.mark.parametrize("name", ["float32", "float64", "float16"])
def test_frexp_is_c_frexp(device, name):
    vals = sample(name)
    m, e = pdt.frexp(on(device, vals, name))
    assert m.dtype == getattr(pdt, name) and e.dtype == pdt.int32
    rm, re = np.frexp(vals)
    got = host(m, name)
    assert ((got.view(BITS[name]) == rm.view(BITS[name])) | np.isnan(rm)).all()
    assert np.isnan(got[np.isnan(rm)]).all()
    finite = np.isfinite(vals)
    assert (e.cpu().numpy()[finite] == re[finite]).all()
    assert (e.cpu().numpy()[~finite] == 0).all()
    assert e.cpu().numpy().tolist() == pdt.frexp(on(device, vals, name)).exponent.cpu().tolist()


@pytest.mark.parametrize("name", ["float32", "float64", "float16"])
@pytest.mark.parametrize("toward", [np.inf, -np.inf, 0.0, -0.0, 1.0, np.nan, "shuffled"])
def test_nextafter_is_c_nextafter(device, name, toward):
    vals = sample(name, seed=1)
    if toward == "shuffled":
        y = np.random.default_rng(2).permutation(vals)
    else:
        y = np.full_like(vals, toward)
    got = host(pdt.nextafter(on(device, vals, name), on(device, y, name)), name)
    with np.errstate(over="ignore"):
        ref = np.nextafter(vals, y)
    ref = np.where(vals == y, y, ref)  # C: y when equal (NumPy's float16 gives x for -0, 0)
    nan = np.isnan(ref)
    assert np.isnan(got[nan]).all()
    bad = got[~nan].view(BITS[name]) != ref[~nan].view(BITS[name])
    assert not bad.any(), (vals[~nan][bad][:5], got[~nan][bad][:5], ref[~nan][bad][:5])


def test_nextafter_broadcasts_promotes_and_is_not_differentiable(device):
    x = pdt.tensor([[1.0], [2.0]], device=device, requires_grad=True)
    r = pdt.nextafter(x, pdt.tensor([0.0, 3.0], dtype=pdt.float64, device=device))
    assert r.shape == (2, 2) and r.dtype == pdt.float64 and not r.requires_grad
    assert r.cpu().tolist() == [[np.nextafter(1.0, 0.0), np.nextafter(1.0, 3.0)],
                                [np.nextafter(2.0, 0.0), np.nextafter(2.0, 3.0)]]
    y = pdt.tensor([0.0, 1.0], device=device)
    assert y.nextafter_(pdt.tensor([1.0, 0.0], device=device)) is y
    assert y.cpu().numpy().tolist() == [np.float32(1.4e-45), np.nextafter(np.float32(1),
                                                                         np.float32(0))]


@pytest.mark.parametrize("name", ["float32", "float64"])
@pytest.mark.parametrize("other", ["int64", "int8", "bool"])
def test_nextafter_promotes_an_integer_or_bool_tensor(device, name, other):
    # PyTorch promotes the integer side to the float one's dtype, on either side
    f = np.array([1.0, 2.0, 0.0, -3.0, 5.0], dtype=name)
    i = np.array([3, 0, -1, -3, 1]).astype(other)
    x, y = pdt.tensor(f, device=device), pdt.tensor(i, device=device)
    for a, b, fa, fb in ((x, y, f, i), (y, x, i, f)):
        r = pdt.nextafter(a, b)
        assert r.dtype == getattr(pdt, name)
        want = np.nextafter(fa.astype(name), fb.astype(name))
        np.testing.assert_array_equal(r.cpu().numpy(), want)
    assert x.nextafter_(y) is x
    np.testing.assert_array_equal(x.cpu().numpy(), np.nextafter(f, i.astype(name)))
    with pytest.raises(RuntimeError, match=r"nextafter_\(\): result type .* output type"):
        y.nextafter_(x)
    with pytest.raises(TypeError, match=r"nextafter\(\): \"nextafter\" not implemented for "
                                        r"'%s' \(argument 'input'" % other):
        pdt.nextafter(y, y)


def test_frexp_gradient_and_round_trip(device):
    x = pdt.tensor([8.0, -0.75, 3.0, 0.0], dtype=pdt.float64, device=device,
                   requires_grad=True)
    m, e = x.frexp()
    m.backward(pdt.ones(4, dtype=pdt.float64, device=device))
    assert x.grad.cpu().tolist() == [2.0 ** -4, 1.0, 0.25, 1.0]  # 1 / 2**exponent
    assert pdt.ldexp(m, e).cpu().tolist() == x.detach().cpu().tolist()


def test_ldexp(device):
    x = pdt.tensor([1.0, 3.0, -2.5], device=device, requires_grad=True)
    e = pdt.tensor([3, -1, 10], device=device)
    r = pdt.ldexp(x, e)
    assert r.cpu().tolist() == [8.0, 1.5, -2560.0] and r.dtype == pdt.float32
    r.sum().backward()
    assert x.grad.cpu().tolist() == [8.0, 0.5, 1024.0]
    assert pdt.ldexp(pdt.tensor([1, 2], device=device), e[:2]).dtype == pdt.float32
    tiny = pdt.tensor([1e-300], dtype=pdt.float64, device=device)
    big = pdt.ldexp(tiny, pdt.tensor([1000], device=device)).cpu().item()
    assert big == np.ldexp(1e-300, 1000)  # 2**1000 in float64, not float32's inf
    y = x.detach().clone()
    assert y.ldexp_(e) is y and y.cpu().tolist() == [8.0, 1.5, -2560.0]


def test_ldexp_second_derivatives_of_both_inputs(device):
    # the second derivative of x's gradient freed the graph e's gradient needed
    x = pdt.tensor([1.0, 2.0], dtype=pdt.float64, device=device, requires_grad=True)
    e = pdt.tensor([1.0, 3.0], dtype=pdt.float64, device=device, requires_grad=True)
    gx, ge = pdt.autograd.grad(pdt.ldexp(x, e).sum(), [x, e], create_graph=True)
    assert gx.cpu().tolist() == [2.0, 8.0]
    assert ge.cpu().tolist() == pytest.approx([2 * LN2, 16 * LN2], rel=1e-15)
    gxx, gxe = pdt.autograd.grad(gx.sum(), [x, e], allow_unused=True)
    assert gxx is None and gxe.cpu().tolist() == pytest.approx([2 * LN2, 8 * LN2], rel=1e-15)
    gex, gee = pdt.autograd.grad(ge.sum(), [x, e], allow_unused=True)
    assert gex.cpu().tolist() == pytest.approx([2 * LN2, 8 * LN2], rel=1e-15)
    assert gee.cpu().tolist() == pytest.approx([2 * LN2 ** 2, 16 * LN2 ** 2], rel=1e-15)


def test_rsub(device):
    x = pdt.tensor([1.0, 2.0], device=device)
    assert pdt.rsub(x, 10, alpha=2).cpu().tolist() == [8.0, 6.0]
    assert pdt.rsub(x, pdt.tensor([5.0, 5.0], device=device)).cpu().tolist() == [4.0, 3.0]
    i = pdt.tensor([1, 2], device=device)
    r = pdt.rsub(i, 5)
    assert r.dtype == pdt.int64 and r.cpu().tolist() == [4, 3]
    with pytest.raises(TypeError, match="bool"):
        pdt.rsub(pdt.tensor([True], device=device), 1)
