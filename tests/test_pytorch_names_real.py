"""PyTorch's alias methods (x.clip, x.multiply_, pdt.greater, ...: the same C op under
a second name) and the real-valued answers of pydevtensor/_ops_real.py (isposinf,
isneginf, is_complex, isreal, conj, adjoint, H, vdot, pinverse, sum_to_size) on every
device against float64 NumPy, exactly (pinverse: 1e-12 relative, an SVD); and the
random fills exponential_, geometric_, cauchy_ and log_normal_: their support, their
moments within 6 standard errors of 20,000 samples, a generator's seed giving the same
values again, and the bad arguments refused."""
import math

import numpy as np
import pytest

import pydevtensor as pdt

ALIASES = [("subtract", "sub", (2.0,)), ("multiply", "mul", (3.0,)), ("divide", "div", (4.0,)),
           ("negative", "neg", ()), ("clip", "clamp", (-1.0, 1.0)), ("absolute", "abs", ()),
           ("greater", "gt", (0.5,)), ("greater_equal", "ge", (0.5,)), ("less", "lt", (0.5,)),
           ("less_equal", "le", (0.5,)), ("not_equal", "ne", (0.5,))]


@pytest.mark.parametrize("alias,name,args", ALIASES)
def test_alias_methods_and_functions_are_the_op(device, alias, name, args):
    a = np.array([-2.5, -0.5, 0.0, 0.5, 3.0])
    x = pdt.tensor(a, device=device)
    want = getattr(x, name)(*args).cpu().numpy()
    np.testing.assert_array_equal(getattr(x, alias)(*args).cpu().numpy(), want)
    np.testing.assert_array_equal(getattr(pdt, alias)(x, *args).cpu().numpy(), want)
    if hasattr(x, name + "_"):
        y = x.clone()
        assert getattr(y, alias + "_")(*args) is y
        np.testing.assert_array_equal(y.cpu().numpy(), want)


def test_infinities_and_the_real_answers(device):
    a = np.array([1.0, np.inf, -np.inf, np.nan, -0.0])
    x = pdt.tensor(a, device=device)
    np.testing.assert_array_equal(pdt.isposinf(x).cpu().numpy(), np.isposinf(a))
    np.testing.assert_array_equal(x.isneginf().cpu().numpy(), np.isneginf(a))
    i = pdt.tensor([3, -1], device=device)
    assert not pdt.isposinf(i).cpu().numpy().any() and not i.isneginf().cpu().numpy().any()
    assert pdt.is_complex(x) is False and x.is_complex() is False
    np.testing.assert_array_equal(pdt.isreal(x).cpu().numpy(), np.isreal(a))
    assert pdt.conj(x) is x and x.resolve_conj() is x and x.resolve_neg() is x
    for t in (x, i, x[1:]):
        assert pdt.real(t) is t and pdt.real(t).data_ptr() == t.data_ptr()
        with pytest.raises(TypeError, match="imag is not implemented for tensors with "
                                            "non-complex dtypes"):
            pdt.imag(t)


def test_adjoint_h_vdot_and_sum_to_size(device):
    a = np.arange(24.0).reshape(2, 3, 4)
    x = pdt.tensor(a, device=device)
    np.testing.assert_array_equal(pdt.adjoint(x).cpu().numpy(), a.swapaxes(-1, -2))
    np.testing.assert_array_equal(x[0].H.cpu().numpy(), a[0].T)
    with pytest.raises(RuntimeError, match="only supported on matrices"):
        x.H
    u, v = np.array([1.5, -2.0, 3.0]), np.array([4.0, 0.25, -1.0])
    assert float(pdt.vdot(pdt.tensor(u, device=device), pdt.tensor(v, device=device))) == \
        float(np.vdot(u, v))
    for size in [(3, 4), (1, 4), (2, 1, 1), (1, 1, 1), (4,), (2, 3, 4)]:
        want = a
        lead = a.ndim - len(size)
        want = want.sum(tuple(range(lead))) if lead else want
        dims = tuple(i for i, s in enumerate(size) if s == 1 and want.shape[i] != 1)
        want = want.sum(dims, keepdims=True) if dims else want
        np.testing.assert_array_equal(x.sum_to_size(size).cpu().numpy(), want)
        np.testing.assert_array_equal(x.sum_to_size(*size).cpu().numpy(), want)
    assert x.sum_to_size(2, 3, 4) is x
    with pytest.raises(RuntimeError, match=r"size \[3\] is not expandable to size \[2, 3, 4\]"):
        x.sum_to_size(3)


def test_pinverse_is_numpys(device):
    a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    got = pdt.pinverse(pdt.tensor(a, device=device)).cpu().numpy()
    np.testing.assert_allclose(got, np.linalg.pinv(a), rtol=1e-12, atol=1e-14)
    rank1 = np.outer([1.0, 2.0], [3.0, 4.0])
    np.testing.assert_allclose(pdt.tensor(rank1, device=device).pinverse().cpu().numpy(),
                               np.linalg.pinv(rank1), rtol=1e-12, atol=1e-14)


N = 20000


def _draw(device, fill, *args, dtype=pdt.float64, seed=5):
    g = pdt.Generator(device).manual_seed(seed) if pdt.device(device).type == "cpu" else \
        pdt.Generator(device).manual_seed(seed)
    x = pdt.empty(N, dtype=dtype, device=device)
    assert getattr(x, fill)(*args, generator=g) is x
    return x.cpu().numpy().astype(np.float64)


def _mean_within(s, mean, sd):
    assert abs(s.mean() - mean) <= 6 * sd / math.sqrt(N), (s.mean(), mean)


def test_random_fills_have_their_distributions(device):
    e = _draw(device, "exponential_", 2.0)
    assert e.min() >= 0
    _mean_within(e, 0.5, 0.5)
    gm = _draw(device, "geometric_", 0.25)
    assert gm.min() >= 1 and (gm == np.round(gm)).all()
    _mean_within(gm, 4.0, math.sqrt(0.75) / 0.25)
    gi = _draw(device, "geometric_", 0.5, dtype=pdt.int64)
    assert gi.min() >= 1
    c = _draw(device, "cauchy_", 1.0, 2.0)
    # the median of a Cauchy sample: standard error pi sigma / (2 sqrt(N))
    assert abs(np.median(c) - 1.0) <= 6 * math.pi * 2.0 / (2 * math.sqrt(N))
    ln = _draw(device, "log_normal_", 0.5, 0.25)
    assert ln.min() > 0
    _mean_within(np.log(ln), 0.5, 0.25)
    np.testing.assert_array_equal(_draw(device, "exponential_", 2.0), e)  # the same seed


def test_random_fills_refuse_bad_arguments(device):
    x = pdt.zeros(3, device=device)
    with pytest.raises(RuntimeError, match="exponential_ expects lambda > 0.0"):
        x.exponential_(0.0)
    with pytest.raises(RuntimeError, match=r"geometric_ expects p to be in \(0, 1\)"):
        x.geometric_(1.0)
    with pytest.raises(RuntimeError, match="cauchy_ expects sigma > 0.0"):
        x.cauchy_(0.0, -1.0)
    with pytest.raises(RuntimeError, match="log_normal_ expects std > 0.0"):
        x.log_normal_(0.0, 0.0)
    with pytest.raises(pdt.DTypeError, match="exponential_ expects a floating point tensor"):
        pdt.zeros(3, dtype=pdt.int64, device=device).exponential_()
    # arguments that are not numbers are refused before anything is written (cauchy_
    # filled x, then failed in add_: found by a fuzzer)
    for fill, args in (("cauchy_", ((1, 2),)), ("cauchy_", (pdt.ones(5, device=device),)),
                       ("log_normal_", ("a",)), ("exponential_", ([1.0],)),
                       ("geometric_", (None,))):
        with pytest.raises(TypeError, match=f"{fill}\\(\\): argument '.*' must be a number"):
            getattr(x, fill)(*args)
    assert (x.cpu().numpy() == 0).all()


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "bool"])
def test_sum_to_size_of_integers_sums_in_int64(device, dtype):
    # PyTorch's sum_to_size sums integers and bools as sum() does, to int64: a uint8 sum
    # that wrapped at 256 used to come back
    a = (np.arange(2 * 3 * 300).reshape(2, 3, 300) % 7 > 0) if dtype == "bool" else \
        np.arange(2 * 3 * 300).reshape(2, 3, 300) % 100
    x = pdt.tensor(a.astype(dtype), device=device)
    for size in [(300,), (1, 1, 300), (3, 1), (1, 1, 1), (2, 1, 300)]:
        got = x.sum_to_size(size)
        assert got.dtype == pdt.int64 and tuple(got.shape) == size
        lead = a.ndim - len(size)
        want = a.astype(np.int64).sum(axis=tuple(range(lead)))
        want = want.sum(axis=tuple(i for i, s in enumerate(size) if s == 1), keepdims=True)
        np.testing.assert_array_equal(got.cpu().numpy(), want.reshape(size))
    assert x.sum_to_size(2, 3, 300) is x  # nothing summed: self, its own dtype
