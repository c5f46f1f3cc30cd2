"""out= of more ops written in Python (pydevtensor/_out.py), on every device, against
NumPy: the elementwise ops (float_power, fmax, the logical ops, nextafter, ldexp, xlogy,
heaviside, reciprocal, square, signbit, sinc, logit, i0, isposinf, isneginf, sgn, frac,
nan_to_num, lerp, addcmul, addcdiv; dot and vdot) and the reductions and searches
(median, nanmedian, mode, aminmax, isin, histogram, nansum).

PyTorch's rules, op by op: the result is written into out and out is returned (the
named tuple of the outs for a tuple result); an out with no elements takes the result's
shape.  The "cast" ops take an out of any dtype the result's can be cast to (no float
into an integer or bool, nothing but bool into bool: DTypeError), as the C elementwise
ops do; the "exact" ops only the result's dtype.  out= where the input requires grad
raises, except for the ops with no gradient (the bool results, heaviside, histogram).
"""
import math

import numpy as np
import pytest

import pydevtensor as pdt

A = np.array([[3.0, -1.25, 0.0, 2.5], [0.5, -0.0, 4.0, -2.0]])
B = np.array([[1.0, np.nan, 0.0, -3.0], [0.5, 2.0, np.nan, -1.0]])
POS = np.array([[1.0, 2.0, 0.5, 3.0], [4.0, 0.25, 1.0, 8.0]])
E = np.array([[1, -2, 3, 0], [2, 1, -1, 5]])
P = np.array([[0.25, 0.5, 0.75, 0.1], [0.9, 0.01, 0.3, 0.6]])
S = np.array([1.5, np.nan, np.inf, -np.inf, -0.0, -2.0])
M = np.array([[3.0, 1.0, 3.0, 2.0, 1.0], [5.0, 5.0, 0.0, 5.0, 0.0]])


def _t(a, device):
    return pdt.tensor(a, device=device)


def _xlogy(x, y):
    with np.errstate(divide="ignore"):
        return np.where(x == 0, 0.0, x * np.log(y))


# name: (input, call(x, **k), NumPy's result, "cast" or "exact", has a gradient)
ELEMENTWISE = {
    "float_power": (A, lambda x, **k: pdt.float_power(x, 2, **k), A ** 2.0, "exact", True),
    "fmax": (A, lambda x, **k: pdt.fmax(x, _t(B, x.device), **k), np.fmax(A, B), "cast",
             True),
    "fmin": (A, lambda x, **k: pdt.fmin(x, _t(B, x.device), **k), np.fmin(A, B), "cast",
             True),
    "logical_and": (A, lambda x, **k: pdt.logical_and(x, _t(B, x.device), **k),
                    np.logical_and(A, B), "cast", False),
    "logical_or": (A, lambda x, **k: pdt.logical_or(x, _t(B, x.device), **k),
                   np.logical_or(A, B), "cast", False),
    "logical_xor": (A, lambda x, **k: pdt.logical_xor(x, _t(B, x.device), **k),
                    np.logical_xor(A, B), "cast", False),
    "logical_not": (A, lambda x, **k: pdt.logical_not(x, **k), np.logical_not(A), "cast",
                    False),
    "nextafter": (A, lambda x, **k: pdt.nextafter(x, _t(B, x.device), **k),
                  np.nextafter(A, B), "cast", True),
    "ldexp": (A, lambda x, **k: pdt.ldexp(x, _t(E, x.device), **k), np.ldexp(A, E), "cast",
              True),
    "xlogy": (A, lambda x, **k: pdt.xlogy(x, _t(POS, x.device), **k), _xlogy(A, POS),
              "cast", True),
    "heaviside": (A, lambda x, **k: pdt.heaviside(x, _t(POS, x.device), **k),
                  np.heaviside(A, POS), "exact", False),
    "reciprocal": (POS, lambda x, **k: pdt.reciprocal(x, **k), 1 / POS, "cast", True),
    "square": (A, lambda x, **k: pdt.square(x, **k), A * A, "cast", True),
    "signbit": (S, lambda x, **k: pdt.signbit(x, **k), np.signbit(S), "exact", False),
    "sinc": (A, lambda x, **k: pdt.sinc(x, **k), np.sinc(A), "cast", True),
    "logit": (P, lambda x, **k: pdt.logit(x, **k), np.log(P / (1 - P)), "cast", True),
    "i0": (A, lambda x, **k: pdt.i0(x, **k), np.i0(A), "cast", True),
    "isposinf": (S, lambda x, **k: pdt.isposinf(x, **k), np.isposinf(S), "exact", False),
    "isneginf": (S, lambda x, **k: pdt.isneginf(x, **k), np.isneginf(S), "exact", False),
    "sgn": (A, lambda x, **k: pdt.sgn(x, **k), np.sign(A), "exact", True),
    "frac": (A, lambda x, **k: pdt.frac(x, **k), A - np.trunc(A), "exact", True),
    "nan_to_num": (S, lambda x, **k: pdt.nan_to_num(x, posinf=9.0, **k),
                   np.nan_to_num(S, posinf=9.0, neginf=np.finfo(np.float64).min), "exact",
                   True),
    # weights below and above 0.5: both of lerp's formulas
    "lerp": (A, lambda x, **k: pdt.lerp(x, _t(POS, x.device), _t(P, x.device), **k),
             A + P * (POS - A), "cast", True),
    "addcmul": (A, lambda x, **k: pdt.addcmul(x, _t(POS, x.device), _t(P, x.device),
                                              value=0.5, **k), A + 0.5 * POS * P, "cast", True),
    "addcdiv": (A, lambda x, **k: pdt.addcdiv(x, _t(POS, x.device), _t(P, x.device),
                                              value=-2, **k), A - 2 * POS / P, "cast", True),
    # not elementwise, but the same rules (a 0-d result; only its dtype, as PyTorch's)
    "dot": (A, lambda x, **k: pdt.dot(x.flatten(), _t(POS.ravel(), x.device), **k),
            np.asarray(np.dot(A.ravel(), POS.ravel())), "exact", True),
    "vdot": (A, lambda x, **k: pdt.vdot(x.flatten(), _t(POS.ravel(), x.device), **k),
             np.asarray(np.dot(A.ravel(), POS.ravel())), "exact", True),
}


def _check(got, want, rtol=1e-12):
    g = got.cpu().numpy()
    if want.dtype == bool:
        np.testing.assert_array_equal(g, want)
    else:
        np.testing.assert_allclose(g, want, rtol=rtol, atol=1e-300)


def _dtype(want):
    return pdt.bool if want.dtype == bool else pdt.float64


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_out_written_and_returned(device, name):
    """The result (NumPy's, and the op's without out) is written into out (filled
    first), which is returned; an out with no elements is given the result's shape."""
    a, call, want, _, _ = ELEMENTWISE[name]
    x = _t(a, device)
    plain = call(x)
    _check(plain, want)
    assert plain.dtype == _dtype(want)
    for out in (pdt.full(want.shape, 7, dtype=_dtype(want), device=device),
                pdt.empty(0, dtype=_dtype(want), device=device)):
        assert call(x, out=out) is out
        assert tuple(out.shape) == want.shape
        _check(out, want)


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_out_dtype_rule(device, name):
    """A "cast" op writes into an out of a dtype the result can be cast to (a float
    result into float32, a bool one into int64 and float32) and refuses an integer out
    for a float result (DTypeError, PyTorch's message); an "exact" op refuses any dtype
    but the result's."""
    a, call, want, rule, _ = ELEMENTWISE[name]
    x = _t(a, device)
    other = pdt.float32 if want.dtype == bool else pdt.int64
    if rule == "exact":
        for dt in (pdt.float32, other):
            with pytest.raises(RuntimeError, match=f"{name}.*Expected out tensor to have "
                                                   f"dtype {_dtype(want)}"):
                call(x, out=pdt.empty(0, dtype=dt, device=device))
        return
    out = pdt.empty(0, dtype=pdt.float32, device=device)
    assert call(x, out=out) is out and out.dtype == pdt.float32
    _check(out, want.astype(np.float32), rtol=1e-6)
    if want.dtype == bool:
        out = pdt.empty(0, dtype=pdt.int64, device=device)
        assert call(x, out=out) is out
        np.testing.assert_array_equal(out.cpu().numpy(), want.astype(np.int64))
    else:
        for dt in (pdt.int64, pdt.bool):
            with pytest.raises(pdt.DTypeError, match=f"{name}.*result type pydevtensor."
                                                     f"float64 can't be cast to the desired "
                                                     f"output type {dt}"):
                call(x, out=pdt.empty(0, dtype=dt, device=device))
    with pytest.raises(RuntimeError, match=f"{name}.*shape"):
        call(x, out=pdt.empty(3, dtype=pdt.float32, device=device))


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_out_with_grad(device, name):
    """out= where the input requires grad: PyTorch's RuntimeError for the ops with a
    gradient (written under no_grad); the others write out."""
    a, call, want, _, differentiable = ELEMENTWISE[name]
    x = _t(a, device).requires_grad_()
    if differentiable:
        with pytest.raises(RuntimeError, match=f"{name}.*out=.*automatic differentiation"):
            call(x, out=pdt.empty(0, dtype=_dtype(want), device=device))
        with pdt.no_grad():
            _check(call(x, out=pdt.empty(0, dtype=_dtype(want), device=device)), want)
        # out=None given: the op as without it (nextafter has no gradient, as PyTorch's)
        assert call(x, out=None).requires_grad == (name != "nextafter")
    else:
        _check(call(x, out=pdt.empty(0, dtype=_dtype(want), device=device)), want)


def test_out_empty_view_is_not_resized(device):
    """An out with no elements that is a view cannot take the result's shape."""
    x = _t(A, device)
    view = pdt.zeros(4, device=device)[:0]
    with pytest.raises(RuntimeError, match=r"fmax\(\): out has shape \(0,\)"):
        pdt.fmax(x, x, out=view)
    assert math.isclose(pdt.square(_t(A, device), out=pdt.empty(0, device=device)).sum().item(),
                        float((A * A).sum()), rel_tol=1e-6)


def _lower_median(a):
    s = np.sort(a, 1)
    return s[:, (a.shape[1] - 1) // 2]


# name: (call(x, **k), NumPy's (first, second) results, their dtypes, has a gradient)
TUPLES = {
    "median": (lambda x, **k: pdt.median(x, 1, **k), (_lower_median(M), None), True),
    "nanmedian": (lambda x, **k: pdt.nanmedian(x, 1, **k), (_lower_median(M), None), True),
    "mode": (lambda x, **k: pdt.mode(x, 1, **k), (np.array([1.0, 5.0]), None), True),
    "aminmax": (lambda x, **k: pdt.aminmax(x, dim=1, **k), (M.min(1), M.max(1)), True),
    "histogram": (lambda x, **k: pdt.histogram(x, 4, range=(0.0, 8.0), **k),
                  np.histogram(M, 4, (0.0, 8.0)), False),
}


def _tuple_outs(name, device, empty=True):
    second = pdt.int64 if TUPLES[name][1][1] is None else pdt.float64
    return (pdt.empty(0 if empty else 1, dtype=pdt.float64, device=device),
            pdt.empty(0 if empty else 1, dtype=second, device=device))


@pytest.mark.parametrize("name", sorted(TUPLES))
def test_tuple_out_written_and_returned(device, name):
    """Each out takes its result (NumPy's; an index that holds the value for the
    (values, indices) ops) and the op's named tuple of the outs is returned."""
    call, (first, second), _ = TUPLES[name]
    x = _t(M, device)
    plain = call(x)
    out = _tuple_outs(name, device)
    got = call(x, out=out)
    assert type(got) is type(plain) and got[0] is out[0] and got[1] is out[1]
    _check(out[0], first.astype(np.float64))
    if second is None:  # an index of the value, as plain's
        np.testing.assert_array_equal(out[1].cpu().numpy(), plain[1].cpu().numpy())
        np.testing.assert_array_equal(M[np.arange(2), out[1].cpu().numpy()], first)
    else:
        _check(out[1], second.astype(np.float64))


@pytest.mark.parametrize("name", sorted(TUPLES))
def test_tuple_out_refused(device, name):
    """Outs of another dtype (these ops take only the result's, as PyTorch's) or a
    non-empty out of another shape: RuntimeError; out= with a grad-requiring input
    raises for the ops with a gradient (histogram writes)."""
    call, _, differentiable = TUPLES[name]
    x = _t(M, device)
    for j in range(2):
        outs = list(_tuple_outs(name, device))
        outs[j] = pdt.empty(0, dtype=pdt.float32 if j == 0 else pdt.int32, device=device)
        with pytest.raises(RuntimeError, match=f"{name}.*Expected out tensor to have dtype"):
            call(x, out=tuple(outs))
    with pytest.raises(RuntimeError, match=f"{name}.*shape"):
        call(x, out=_tuple_outs(name, device, empty=False))
    x.requires_grad_()
    if differentiable:
        with pytest.raises(RuntimeError, match=f"{name}.*out=.*automatic differentiation"):
            call(x, out=_tuple_outs(name, device))
    else:
        call(x, out=_tuple_outs(name, device))


def test_median_out_needs_dim(device):
    """PyTorch's median of all elements takes no out=."""
    with pytest.raises(TypeError, match=r"median\(\): out= needs dim"):
        pdt.median(_t(M, device), out=pdt.empty(0, dtype=pdt.float64, device=device))


def test_isin_out(device):
    """isin writes its bool result into a bool out (no other dtype, as PyTorch's)."""
    x = _t(M, device).requires_grad_()  # no gradient: allowed
    out = pdt.empty(0, dtype=pdt.bool, device=device)
    assert pdt.isin(x, _t(np.array([1.0, 5.0]), device), out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), np.isin(M, [1.0, 5.0]))
    with pytest.raises(RuntimeError, match=r"isin\(\): Expected out tensor to have dtype "
                                           r"pydevtensor.bool"):
        pdt.isin(x, 1.0, out=pdt.empty(0, dtype=pdt.float64, device=device))


def test_nansum_out_computes_in_outs_dtype(device):
    x = np.array([[1.5, np.nan, 2.25], [np.nan, np.nan, 3.0]], np.float32)
    t = pdt.tensor(x, device=device)
    out = pdt.empty(2, dtype=pdt.float64, device=device)
    assert pdt.nansum(t, 1, out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), np.nansum(x.astype(np.float64), 1))
    out = pdt.empty(0, device=device)  # empty: takes the result's shape
    assert pdt.nansum(t, out=out) is out and out.shape == () and out.item() == 6.75
    out = pdt.empty(1, 1, device=device)
    pdt.nansum(t, (0, 1), keepdim=True, out=out)
    assert out.item() == 6.75
    i = pdt.tensor([[1, 2], [3, 4]], dtype=pdt.int32, device=device)
    out = pdt.empty(2, dtype=pdt.int32, device=device)  # int32 kept, sum's rule
    pdt.nansum(i, 0, out=out)
    assert out.dtype == pdt.int32 and out.cpu().tolist() == [4, 6]
    with pytest.raises(NotImplementedError, match="NaN has no value there"):
        pdt.nansum(t, 1, out=pdt.empty(2, dtype=pdt.int64, device=device))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        pdt.nansum(t, 1, dtype=pdt.float64, out=pdt.empty(2, device=device))
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        pdt.nansum(t.requires_grad_(), 1, out=pdt.empty(2, device=device))


def test_integer_ops_and_frexp_take_out(device):
    """gcd, lcm and bitwise_not took no out= (TypeError), nor frexp its tuple; PyTorch's
    do: gcd/lcm into any dtype their int64 result casts to, bitwise_not only its own
    dtype, frexp a (float, int32) tuple of exactly the result's dtypes.  The methods
    ``x.bitwise_not()`` and ``x.frexp()`` take none, as PyTorch's."""
    a, b = np.array([[12, -18, 0], [7, 4, 0]]), np.array([[8, 12, 5], [3, -6, 0]])
    x, y = _t(a, device), _t(b, device)
    want = {"gcd": np.gcd(a, b), "lcm": np.lcm(a, b)}
    for name, ref in want.items():
        fn = getattr(pdt, name)
        for dt, npdt in ((pdt.int64, np.int64), (pdt.int16, np.int16), (pdt.float32, np.float32)):
            out = pdt.full((2, 3), 99, dtype=dt, device=device)
            assert fn(x, y, out=out) is out
            np.testing.assert_array_equal(out.cpu().numpy(), ref.astype(npdt))
        with pytest.raises(pdt.DTypeError, match=f"{name}.*can't be cast to the desired "
                                                 f"output type pydevtensor.bool"):
            fn(x, y, out=pdt.empty(0, dtype=pdt.bool, device=device))
    out = pdt.empty(0, dtype=pdt.int64, device=device)
    assert pdt.bitwise_not(x, out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), np.invert(a))
    with pytest.raises(RuntimeError, match="bitwise_not.*Expected out tensor to have dtype"):
        pdt.bitwise_not(x, out=pdt.empty(0, dtype=pdt.int32, device=device))
    f = np.array([0.75, -3.0, 0.0, 1e-310, 8.0])
    m_ref, e_ref = np.frexp(f)
    outs = (pdt.empty(0, dtype=pdt.float64, device=device),
            pdt.empty(5, dtype=pdt.int32, device=device))
    got = pdt.frexp(_t(f, device), out=outs)
    assert got.mantissa is outs[0] and got.exponent is outs[1]
    np.testing.assert_array_equal(outs[0].cpu().numpy(), m_ref)
    np.testing.assert_array_equal(outs[1].cpu().numpy(), e_ref)
    for bad in ((pdt.empty(0, dtype=pdt.float32, device=device), outs[1]),
                (outs[0], pdt.empty(0, dtype=pdt.int64, device=device))):
        with pytest.raises(RuntimeError, match="frexp.*Expected out tensor to have dtype"):
            pdt.frexp(_t(f, device), out=bad)
    for method in (lambda: x.bitwise_not(out=out), lambda: _t(f, device).frexp(out=outs)):
        with pytest.raises(TypeError, match="out"):
            method()
