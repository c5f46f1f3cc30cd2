"""hypot, copysign, logaddexp and logaddexp2 as C binary ops (Note [float binary functions]
in csrc/core/pdt_elementwise.c; CPU rows: Note [hypot and logaddexp rows] in
csrc/cpu/cpu_ew_float2.c) on every device, against NumPy in float64.

Tolerances, in ulps of the result dtype against the float64 (or float32-argument) value:
hypot float32 0.5 ulp plus double rounding (asserted 1 ulp), float64 1.5 ulp (asserted 2);
copysign exact; logaddexp and logaddexp2 4 ulps of float32 plus 4e-7 absolute (the
composition's bound: max + a term of at most 1 from the level's rows), float64 4 ulps
plus 1e-15 absolute.  CUDA (hypotf 3 ulp; expf, log1pf 1-2 ulp) is within the same
bounds but for hypot's, asserted at 4 ulps there.  The layouts: contiguous, a number on
either side, a broadcast row, a transposed operand, a strided out=, and a size that
splits over the threads; the half types are computed in float32 and rounded once."""
import numpy as np
import pytest

import pydevtensor as pdt

OPS = {
    "hypot": np.hypot,
    "copysign": np.copysign,
    "logaddexp": np.logaddexp,
    "logaddexp2": np.logaddexp2,
}


def _ulps(op, dtype, device):
    cuda = pdt.device(device).type == "cuda"
    if op == "copysign":
        return 0.0, 0.0
    if op == "hypot":
        return (4.0 if cuda else 1.0) if dtype == "float32" else 2.0, 0.0
    return 4.0, 4e-7 if dtype == "float32" else 1e-15


def _values(rng, n, dtype):
    v = rng.standard_normal(n) * 10 ** rng.uniform(-4, 4, n)
    return v.astype(dtype)


def _check(op, got, a, b, dtype, device):
    ref = OPS[op](a.astype(np.float64), b.astype(np.float64))
    got = got.cpu().numpy()
    assert got.dtype == np.dtype(dtype)
    rel, atol = _ulps(op, dtype, device)
    eps = np.finfo(dtype).eps
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(got.astype(np.float64) - ref)
        bound = rel * eps * np.abs(ref) + atol
        bad = ~((err <= bound) | (got.astype(np.float64) == ref) | (np.isnan(ref) & np.isnan(got)))
    assert not bad.any(), (op, dtype, a[bad][:4], b[bad][:4], got[bad][:4], ref[bad][:4])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_against_numpy_every_layout(device, op, dtype):
    rng = np.random.default_rng(sorted(OPS).index(op))
    a, b = _values(rng, 4000, dtype), _values(rng, 4000, dtype)
    a[:6] = [0.0, -0.0, 1.0, -3.0, 2.5, 7.0]
    b[:6] = [-0.0, 0.0, 1.0, -3.0, -2.5, 7.0]  # ties and zeros of both signs
    f = getattr(pdt, op)
    ta, tb = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
    _check(op, f(ta, tb), a, b, dtype, device)
    _check(op, getattr(ta, op)(tb), a, b, dtype, device)  # the method
    s = b[7].item()
    _check(op, f(ta, s), a, np.full_like(a, s), dtype, device)  # a number on either side
    _check(op, f(s, tb), np.full_like(b, s), b, dtype, device)
    m, r = a[:4000].reshape(40, 100), b[:100]
    _check(op, f(pdt.tensor(m, device=device), pdt.tensor(r, device=device)), m,
           np.broadcast_to(r, m.shape), dtype, device)  # a broadcast row
    tt = pdt.tensor(m.T.copy(), device=device).T  # a transposed operand
    _check(op, f(tt, pdt.tensor(m[::-1].copy(), device=device)), m, m[::-1], dtype, device)
    out = pdt.zeros(40, 200, dtype=getattr(pdt, dtype), device=device)[:, ::2]  # strided out=
    assert f(pdt.tensor(m, device=device), pdt.tensor(m[::-1].copy(), device=device),
             out=out) is out
    _check(op, out, m, m[::-1], dtype, device)
    big_a, big_b = _values(rng, 300_000, dtype), _values(rng, 300_000, dtype)  # the threads
    _check(op, f(pdt.tensor(big_a, device=device), pdt.tensor(big_b, device=device)), big_a,
           big_b, dtype, device)
    x = pdt.tensor(a.copy(), device=device)
    assert getattr(x, op + "_")(tb) is x  # in place
    _check(op, x, a, b, dtype, device)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_values(device, dtype):
    inf, nan = np.inf, np.nan
    big = np.finfo(dtype).max
    tiny = np.finfo(dtype).smallest_subnormal
    a = np.array([inf, -inf, inf, -inf, nan, nan, inf, 1.0, -inf, big, big, tiny, tiny, 0.0,
                  1e-300 if dtype == "float64" else 1e-40, 3.0], dtype)
    b = np.array([nan, nan, inf, -inf, 1.0, inf, -inf, nan, 5.0, big, -big / 2, tiny, 0.0,
                  0.0, 1e-300 if dtype == "float64" else 1e-40, -4.0], dtype)
    ta, tb = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
    for op in sorted(OPS):
        got = getattr(pdt, op)(ta, tb).cpu().numpy()
        with np.errstate(all="ignore"):
            ref = OPS[op](a, b)
        if op == "hypot":
            np.testing.assert_allclose(got, ref, rtol=4 * np.finfo(dtype).eps, atol=0, err_msg=op)
        elif op == "copysign":
            np.testing.assert_array_equal(got, ref)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(ref))  # NaN's sign too
        else:  # logaddexp: the infinities, equal ones included, and NaN as NumPy's
            fin = np.isfinite(ref)
            np.testing.assert_array_equal(got[~fin], ref[~fin], err_msg=op)
            np.testing.assert_allclose(got[fin], ref[fin], rtol=4 * np.finfo(dtype).eps,
                                       err_msg=op)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_types_round_once(device, dtype):
    rng = np.random.default_rng(5)
    a, b = rng.uniform(-8, 8, 500), rng.uniform(-8, 8, 500)
    ta = pdt.tensor(a, device=device).to(getattr(pdt, dtype))
    tb = pdt.tensor(b, device=device).to(getattr(pdt, dtype))
    a32, b32 = ta.float().cpu().numpy(), tb.float().cpu().numpy()
    for op in sorted(OPS):
        got = getattr(pdt, op)(ta, tb)
        assert got.dtype == getattr(pdt, dtype)
        want = getattr(pdt, op)(pdt.tensor(a32, device=device),
                                pdt.tensor(b32, device=device)).to(getattr(pdt, dtype))
        np.testing.assert_array_equal(got.float().cpu().numpy(), want.float().cpu().numpy(),
                                      err_msg=op)


def test_dtypes_and_errors(device):
    ti = pdt.tensor([1, -2, 3], device=device)
    assert pdt.copysign(ti, -1).dtype == pdt.float32  # integers give the default float
    assert pdt.copysign(ti, -1).tolist() == [-1.0, -2.0, -3.0]
    assert pdt.hypot(ti, pdt.tensor([4.0, 0.0, 4.0], device=device)).dtype == pdt.float32
    assert pdt.logaddexp(pdt.tensor([1.0], dtype=pdt.float64, device=device),
                         pdt.tensor([1.0], device=device)).dtype == pdt.float64
    for op in ("hypot", "logaddexp", "logaddexp2"):
        with pytest.raises(TypeError, match=rf"{op}: expected floating point tensors, got the "
                                            rf"result dtype int64 \(shapes \(3,\) and a number"):
            getattr(pdt, op)(ti, 2)
    with pytest.raises(TypeError, match=r"hypot: .*result dtype bool"):
        pdt.hypot(ti > 0, ti > 1)
    with pytest.raises(RuntimeError, match="broadcast|shape|size"):
        pdt.hypot(pdt.ones(3, device=device), pdt.ones(4, device=device))


@pytest.mark.parametrize("op", ["hypot", "logaddexp", "logaddexp2"])
def test_gradients_match_the_formulas(device, op):
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4,))
    ta = pdt.tensor(a, device=device, requires_grad=True)
    tb = pdt.tensor(b, device=device, requires_grad=True)
    g = rng.standard_normal((3, 4))
    getattr(pdt, op)(ta, tb).backward(pdt.tensor(g, device=device))
    bb = np.broadcast_to(b, a.shape)
    if op == "hypot":
        h = np.hypot(a, bb)
        wa, wb = a / h, bb / h
    else:
        k = np.log(2.0) if op == "logaddexp2" else 1.0
        wa = 1 / (1 + np.exp(-(a - bb) * k))
        wb = 1 - wa
    np.testing.assert_allclose(ta.grad.cpu().numpy(), g * wa, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(tb.grad.cpu().numpy(), (g * wb).sum(0), rtol=1e-12, atol=1e-14)
    if op != "hypot":  # far apart: the smaller operand's weight is tiny, not 0 (no 1 - w)
        k = np.log(2.0) if op == "logaddexp2" else 1.0
        for dtype, big in (("float32", 20.0), ("float64", 40.0), ("float16", 8.0),
                           ("bfloat16", 8.0)):
            u = pdt.tensor([big], device=device).to(getattr(pdt, dtype)).requires_grad_()
            v = pdt.tensor([0.0], device=device).to(getattr(pdt, dtype)).requires_grad_()
            getattr(pdt, op)(u, v).sum().backward()
            want = 1 / (1 + np.exp(big * k))
            np.testing.assert_allclose(v.grad.double().cpu().numpy(), [want],
                                       rtol=3e-2 if dtype in ("float16", "bfloat16") else 1e-5)
    x = pdt.tensor([-np.inf, np.inf, 2.0], dtype=pdt.float64, device=device, requires_grad=True)
    if op != "hypot":  # equal values, infinities too: 1/2 each
        getattr(pdt, op)(x, x.detach()).sum().backward()
        np.testing.assert_allclose(x.grad.cpu().numpy(), [0.5, 0.5, 0.5])
