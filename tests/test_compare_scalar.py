"""Comparisons of a bool or integer tensor with a Python scalar (==, !=, <, <=, >, >=,
their function and method forms, the scalar on either side, out=).

A scalar that promotes the tensor (an int against a bool tensor: int64; a float against
an integer or bool one: the default float dtype) is compared in the tensor's own dtype
(Note [comparing with a scalar in the tensor's dtype] in csrc/core/pdt_compare_scalar.c).
The answers must stay those of the promoted computation, which NumPy gives exactly when
handed the same dtypes (x.astype(float32) < float32(s)), and which are the true answers
of NumPy's float64 wherever float32 holds both sides exactly.  Scalars at and beyond each
dtype's range, NaN, the infinities, and the int32/int64 values that float32 rounds
(2**24 + 1 == 2**24 in float32) are all checked, on every device.
"""
import math
import operator

import numpy as np
import pytest

import pydevtensor as pdt

from conftest import torch_or_skip

OPS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
       "gt": np.greater, "ge": np.greater_equal}
MIRROR = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
SYMBOL = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64"]


def _range(dt):
    return (0, 1) if dt == "bool" else (int(np.iinfo(dt).min), int(np.iinfo(dt).max))


def _values(dt):
    """Every edge of the range, the small numbers, and the values float32 rounds."""
    lo, hi = _range(dt)
    if dt == "bool":
        return np.array([False, True, True, False, True], dtype=bool)
    v = [lo, lo + 1, lo + 2, -3, -2, -1, 0, 1, 2, 3, hi - 2, hi - 1, hi]
    for big in (2**24, 2**31, 2**53, 2**62):
        v += [big - 2, big - 1, big, big + 1, big + 2, -big - 1, -big, -big + 1]
    v = [x for x in v if lo <= x <= hi]
    rng = np.random.default_rng(len(dt))
    v += [int(x) for x in rng.integers(lo, hi, 20, endpoint=True)]
    return np.array(v, dtype=dt)


def _int_scalars(dt):
    lo, hi = _range(dt)
    s = [lo - 1, lo, lo + 1, -2, -1, 0, 1, 2, 3, hi - 1, hi, hi + 1, 2**24 + 1]
    # and ints beyond 64 bits (Note [ints beyond 64 bits] in csrc/python/wide_ints.c)
    return sorted(set(s) | {2**63, 2**63 + 1, 2**64, 2**100, -2**63 - 1, -2**64, -2**100})


def _float_scalars(dt):
    lo, hi = _range(dt)
    s = [math.nan, math.inf, -math.inf, 0.0, -0.0, 0.5, -0.5, 1.0, 2.5, -2.5, 1.5, 3.0,
         lo - 1.0, lo - 0.5, float(lo), lo + 0.5, hi - 0.5, float(hi), hi + 0.5, hi + 1.0,
         16777215.0, 16777216.0, 16777217.0, 16777218.0, 16777216.5, -16777217.0,
         2.0**31, -2.0**31, 2.0**31 - 64, 2.0**53, 2.0**53 + 2, 2.0**63, -2.0**63, 1e30, -1e30,
         5e-324]
    return s


def _reference(x, name, s, default=np.float32):
    """x op s as the promoted computation does it, in NumPy (exact)."""
    op = OPS[name]
    dt = x.dtype
    if isinstance(s, float):
        return op(x.astype(default), default(s))
    # an int is compared as it is, also beyond the dtype's range (Note [ints beyond the
    # dtype] in csrc/core/pdt_compare_scalar.c) and beyond 64 bits: exact
    return op(x.astype(object), s).astype(bool)


def _forms(x, name, s, out):
    """Every way to write x op s, each giving a tensor."""
    op = getattr(pdt, name)
    forms = {
        "operator": lambda: getattr(operator, name)(x, s),
        "reflected": lambda: getattr(operator, MIRROR[name])(s, x),
        "function": lambda: op(x, s),
        "scalar first": lambda: getattr(pdt, MIRROR[name])(s, x),
        "method": lambda: getattr(x, name)(s),
        "out=": lambda: op(x, s, out=out),
    }
    return forms


def _check(x, xn, name, s, device, default=np.float32):
    ref = _reference(xn, name, s, default)
    out = pdt.zeros(xn.shape, dtype=pdt.bool, device=device)
    for form, run in _forms(x, name, s, out).items():
        got = run()
        assert got.dtype == pdt.bool and got.device == device
        got = got.cpu().numpy()
        assert np.array_equal(got, ref), (form, f"{xn.dtype} {SYMBOL[name]} {s!r}",
                                          xn[got != ref], got[got != ref])
    return ref


@pytest.mark.parametrize("dt", DTYPES)
def test_float_scalars_match_numpy(device, dt):
    xn = _values(dt)
    x = pdt.tensor(xn, device=device)
    for s in _float_scalars(dt):
        for name in OPS:
            ref = _check(x, xn, name, s, device)
            # Where float32 holds both sides exactly, the answer is the true one (NumPy
            # in float64); NaN is unordered and unequal.
            exact = np.abs(xn.astype(np.float64)) <= 2**24
            if math.isnan(s) or float(np.float32(s)) == s:
                truth = OPS[name](xn.astype(np.float64), s)
                assert np.array_equal(ref[exact], truth[exact]), (dt, name, s)


@pytest.mark.parametrize("dt", DTYPES)
def test_int_scalars_match_numpy(device, dt):
    xn = _values(dt)
    x = pdt.tensor(xn, device=device)
    lo, hi = _range(dt)
    for s in _int_scalars(dt):
        for name in OPS:
            ref = _check(x, xn, name, s, device)
            # the true answer, in range and beyond it (where PyTorch wraps s)
            truth = OPS[name](xn.astype(object), s)
            assert np.array_equal(ref, truth.astype(bool)), (dt, name, s)
            if not lo <= s <= hi:  # all True or all False
                assert ref.all() or not ref.any(), (dt, name, s)


def test_bool_tensor_against_ints(device):
    """b == k for k outside {0, 1} is all False, b != k all True, b < 2 all True, ..."""
    b = pdt.tensor([True, False, True], device=device)
    cases = {(name, k): OPS[name](np.array([1, 0, 1]), k)
             for name in OPS for k in (-5, -1, 0, 1, 2, 7)}
    for (name, k), ref in cases.items():
        assert getattr(b, name)(k).cpu().numpy().tolist() == ref.tolist(), (name, k)


@pytest.mark.parametrize("dt", ["int32", "int64", "uint8", "bool"])
def test_float64_default(device, dt):
    """With float64 the default dtype, a float scalar promotes to float64: int64 values
    past 2**53 round there, and the rewritten comparison follows."""
    before = pdt.get_default_dtype()
    pdt.set_default_dtype(pdt.float64)
    try:
        xn = _values(dt)
        x = pdt.tensor(xn, device=device)
        for s in _float_scalars(dt):
            for name in OPS:
                _check(x, xn, name, s, device, default=np.float64)
    finally:
        pdt.set_default_dtype(before)


def test_views_and_zero_dim(device):
    """A strided view, a broadcast row, a 0-dim tensor and an empty one."""
    xn = np.arange(-20, 20, dtype=np.int32).reshape(5, 8)
    x = pdt.tensor(xn, device=device)
    for name in OPS:
        assert np.array_equal(getattr(x.t()[::2], name)(2.5).cpu().numpy(),
                              OPS[name](xn.T[::2], 2.5))
        assert np.array_equal(getattr(x[:, 3], name)(-0.5).cpu().numpy(),
                              OPS[name](xn[:, 3], -0.5))
        z = pdt.tensor(True, device=device)
        got = getattr(z, name)(1)
        assert got.shape == () and got.item() == bool(OPS[name](1, 1))
        e = pdt.zeros((0, 3), dtype=pdt.bool, device=device)
        assert getattr(e, name)(2).shape == (0, 3)


def test_out_of_other_dtype(device):
    """out= may be an integer or float tensor (a bool result casts into it)."""
    x = pdt.tensor([0, 1, 2, 3], dtype=pdt.int16, device=device)
    for dt in (pdt.int64, pdt.float32, pdt.uint8):
        out = pdt.full((4,), 9, dtype=dt, device=device)
        assert pdt.lt(x, 1.5, out=out) is out
        assert out.cpu().numpy().tolist() == [1, 1, 0, 0]
    b = pdt.tensor([True, False], device=device)
    out = pdt.zeros(2, dtype=pdt.int32, device=device)
    pdt.ne(b, 0, out=out)
    assert out.cpu().numpy().tolist() == [1, 0]


@pytest.mark.parametrize("dt", DTYPES)
def test_same_as_torch(dt):
    torch = torch_or_skip()
    xn = _values(dt)
    x, tx = pdt.tensor(xn), torch.from_numpy(xn.copy())
    lo, hi = _range(dt)
    # ints beyond an integer dtype differ on purpose: PyTorch compares with them wrapped
    # (Note [ints beyond the dtype]); test_int_scalars_match_numpy checks them
    scalars = _float_scalars(dt) + [s for s in _int_scalars(dt) if dt == "bool" or lo <= s <= hi]
    for s in scalars:
        for name in OPS:
            got = getattr(x, name)(s).numpy()
            want = getattr(tx, name)(s).numpy()
            assert np.array_equal(got, want), (dt, name, s, xn[got != want])
