"""A number meeting a float16 or bfloat16 tensor: Note [scalars meeting halves]
(csrc/core/pdt_elementwise.c).  The number (or a wider 0-d tensor) is cast to the half
dtype first, as PyTorch casts it to the common dtype, except in mul, div and //, which
read it as given; the op computes in float32 and rounds once.  The references are
NumPy's float32 arithmetic on the same values, rounded by NumPy / ml_dtypes: every
result must agree bit for bit."""
import operator

import numpy as np
import pytest

import pydevtensor as pdt

ml_dtypes = pytest.importorskip("ml_dtypes")

HALF = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
NUMBERS = [0.1, 0.3, 1 / 3, 2.7182818, 3001, 1e-3]


def _values(name, n=3000, seed=0):
    """Half-exact values, both signs, as float32."""
    x = np.random.default_rng(seed).standard_normal(n) * 3
    return np.concatenate([x, -x, [0.1, 0.3, 3001.0]]).astype(np.float32).astype(
        HALF[name]).astype(np.float32)


def _half(name, v):
    with np.errstate(over="ignore"):  # products beyond float16's range round to inf
        return np.asarray(v, np.float32).astype(HALF[name]).astype(np.float32)


def _got(t):
    return t.cpu().numpy() if t.dtype == pdt.bool else t.cpu().float().numpy()


def _same(got, ref):
    both_nan = np.isnan(got) & np.isnan(ref) if got.dtype != bool else False
    bad = ~((got == ref) | both_nan)
    assert not bad.any(), (f"{int(bad.sum())} of {bad.size} differ, first at "
                           f"{np.flatnonzero(bad)[:5]}")


ROUNDED = {
    "add": (operator.add, np.add),
    "sub": (operator.sub, np.subtract),
    "rsub": (lambda a, s: s - a, lambda a, s: s - a),
    "remainder": (operator.mod, np.remainder),
    "fmod": (pdt.fmod, np.fmod),
    "eq": (operator.eq, np.equal),
    "lt": (operator.lt, np.less),
    "ge": (operator.ge, np.greater_equal),
}
AS_GIVEN = {
    "mul": (operator.mul, np.multiply),
    "div": (operator.truediv, np.divide),
}


@pytest.mark.parametrize("op", list(ROUNDED) + list(AS_GIVEN))
@pytest.mark.parametrize("name", HALF)
def test_numbers_meet_halves_as_in_pytorch(device, name, op):
    x32 = _values(name)
    x = pdt.tensor(x32, device=device).to(getattr(pdt, name))
    ours, ref = {**ROUNDED, **AS_GIVEN}[op]
    for s in NUMBERS:
        s32 = _half(name, s) if op in ROUNDED else np.float32(s)
        with np.errstate(all="ignore"):
            want = ref(x32, s32)
        want = want if want.dtype == bool else _half(name, want)
        _same(_got(ours(x, s)), want)
        # a 0-d float32 or float64 tensor is read the same way as the number
        for wide in (pdt.float32, pdt.float64):
            _same(_got(ours(x, pdt.tensor(s, dtype=wide, device=device))), want)


@pytest.mark.parametrize("name", HALF)
def test_half_equals_the_number_it_holds(device, name):
    h = pdt.tensor([0.1, 0.3, 1.0], device=device).to(getattr(pdt, name))
    assert (h == 0.1).tolist() == [True, False, False]
    assert (h % 0.1)[0].item() == 0.0
    assert (h - 0.1)[0].item() == 0.0


@pytest.mark.parametrize("name", HALF)
def test_alpha_is_rounded_to_the_half_dtype(device, name):
    x32, g32 = _values(name, seed=1), _values(name, seed=2)
    x = pdt.tensor(x32, device=device).to(getattr(pdt, name))
    g = pdt.tensor(g32, device=device).to(getattr(pdt, name))
    for alpha in (-0.1, 0.3, -1e-3):
        want = _half(name, x32 + _half(name, alpha) * g32)
        _same(_got(pdt.add(x, g, alpha=alpha)), want)
        _same(_got(x.clone().add_(g, alpha=alpha)), want)
        _same(_got(x.clone().sub_(g, alpha=-alpha)), want)
        # a number as other is cast to the half dtype, then scaled in float32
        _same(_got(pdt.add(x, 0.3, alpha=alpha)),
              _half(name, x32 + _half(name, 0.3) * _half(name, alpha)))


@pytest.mark.parametrize("name", HALF)
def test_addcdiv_addcmul_and_lerp_round_once(device, name):
    s32, a32, b32 = (_values(name, seed=k) for k in (3, 4, 5))
    b32 = np.where(np.abs(b32) < 0.1, 1.0, b32).astype(np.float32)
    s, a, b = (pdt.tensor(v, device=device).to(getattr(pdt, name)) for v in (s32, a32, b32))
    for value in (0.3, -0.1, 1):
        v = np.float32(value)
        _same(_got(pdt.addcdiv(s, a, b, value=value)), _half(name, s32 + (v * a32) / b32))
        _same(_got(pdt.addcmul(s, a, b, value=value)), _half(name, s32 + (v * a32) * b32))
    w = np.float32(0.3)
    _same(_got(pdt.lerp(s, a, 0.3)), _half(name, s32 + w * (a32 - s32)))
    _same(_got(pdt.lerp(s, a, 0.7)), _half(name, a32 - (a32 - s32) * (np.float32(1) - 0.7)))


def test_float32_addcdiv_scales_the_numerator_first(device):
    rng = np.random.default_rng(6)
    s32, a32, b32 = (rng.standard_normal(5000).astype(np.float32) for _ in range(3))
    b32 = np.where(np.abs(b32) < 0.1, 1.0, b32).astype(np.float32)
    s, a, b = (pdt.tensor(v, device=device) for v in (s32, a32, b32))
    _same(pdt.addcdiv(s, a, b, value=0.3).cpu().numpy(),
          s32 + (np.float32(0.3) * a32) / b32)
