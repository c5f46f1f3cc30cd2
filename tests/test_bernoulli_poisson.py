"""bernoulli, Tensor.bernoulli(_), Tensor.random_ (pydevtensor/_ops_bernoulli.py) and
poisson (_ops_poisson.py, Note [Poisson sampling]) on every device.

The draws are checked by their moments with a fixed seed (so the tests are
deterministic): a sample mean within 5 standard errors of the mean, and the same draws
on every device as on the CPU (the Philox stream is the same everywhere).
"""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip


def _np(t):
    return t.detach().cpu().numpy()


def _within(sample, mean, var, k=5.0):
    """|mean(sample) - mean| within k standard errors."""
    n = sample.size
    assert abs(sample.mean() - mean) <= k * math.sqrt(var / n) + 1e-12, (sample.mean(), mean)


def test_bernoulli_draws_with_each_elements_probability(device):
    pdt.manual_seed(0)
    p = pdt.tensor([0.0, 0.1, 0.5, 0.9, 1.0], dtype=pdt.float64, device=device)
    x = pdt.bernoulli(p.expand(20000, 5).contiguous())
    assert x.dtype == pdt.float64 and x.device == device
    x = _np(x)
    assert set(np.unique(x)) <= {0.0, 1.0}
    assert x[:, 0].max() == 0 and x[:, 4].min() == 1
    for j, q in enumerate([0.0, 0.1, 0.5, 0.9, 1.0]):
        _within(x[:, j], q, q * (1 - q))


def test_bernoulli_is_u_less_than_p_on_rands_stream(device):
    p = pdt.rand(1000, dtype=pdt.float64, device=device)
    pdt.manual_seed(3)
    u = _np(pdt.rand(1000, dtype=pdt.float64, device=device))
    pdt.manual_seed(3)
    got = _np(pdt.bernoulli(p))
    np.testing.assert_array_equal(got, (u < _np(p)).astype(np.float64))
    pdt.manual_seed(3)
    np.testing.assert_array_equal(_np(pdt.bernoulli(p.float(), 0.25)), (u < 0.25).astype(
        np.float32))
    pdt.manual_seed(3)
    np.testing.assert_array_equal(_np(p.bernoulli()), (u < _np(p)).astype(np.float64))


def test_bernoulli_in_place_forms(device):
    pdt.manual_seed(5)
    x = pdt.zeros(3, 4000, dtype=pdt.int64, device=device)
    assert x.bernoulli_(0.25) is x
    _within(_np(x).astype(np.float64).ravel(), 0.25, 0.25 * 0.75)
    probs = pdt.tensor([[0.0], [1.0], [0.5]], device=device)
    y = pdt.empty(3, 4000, device=device).bernoulli_(probs)
    y = _np(y)
    assert y[0].max() == 0 and y[1].min() == 1
    _within(y[2], 0.5, 0.25)
    b = pdt.zeros(100, dtype=pdt.bool, device=device).bernoulli_(0.5)
    assert b.dtype == pdt.bool and 0 < int(b.sum().item()) < 100


@pytest.mark.parametrize("call,exc,match", [
    (lambda d: pdt.bernoulli(pdt.tensor([0.5, 1.5], device=d)), RuntimeError,
     r"Expected p_in >= 0 && p_in <= 1"),
    (lambda d: pdt.bernoulli(pdt.tensor([math.nan], device=d)), RuntimeError, r"p_in"),
    (lambda d: pdt.bernoulli(pdt.ones(2, device=d), -0.1), RuntimeError,
     r"p to be in \[0, 1\], but got p=-0.1"),
    (lambda d: pdt.bernoulli(pdt.ones(2, dtype=pdt.int64, device=d)), TypeError,
     r"floating-point tensor of probabilities, got pydevtensor.int64"),
    (lambda d: pdt.zeros(2, 3, device=d).bernoulli_(pdt.ones(4, device=d) / 2), RuntimeError,
     r"p of shape \(4,\) does not broadcast to self's shape \(2, 3\)"),
    (lambda d: pdt.zeros(2, device=d).bernoulli_("x"), TypeError, r"p must be a number"),
])
def test_bernoulli_refuses_bad_probabilities(device, call, exc, match):
    with pytest.raises(exc, match=match):
        call(device)


def test_bernoulli_p_is_a_number_a_bool_or_a_0d_tensor(device):
    """As PyTorch's: bernoulli(input, p) and x.bernoulli(p) take one probability, a
    number (a bool is 0 or 1) or a 0-d tensor of any dtype taken as its value, and refuse a
    tensor with dims (that accepted one per element); bernoulli_ takes a bool p too."""
    x = pdt.zeros(50, device=device)
    assert _np(pdt.bernoulli(x, True)).tolist() == [1.0] * 50
    assert _np(pdt.bernoulli(x, pdt.tensor(1, device=device))).tolist() == [1.0] * 50
    assert _np(pdt.empty(4, device=device).bernoulli_(True)).tolist() == [1.0] * 4
    assert _np(pdt.ones(4, device=device).bernoulli_(False)).tolist() == [0.0] * 4
    pdt.manual_seed(5)
    a = _np(pdt.bernoulli(x, pdt.tensor(0.3, dtype=pdt.float64, device=device)))
    pdt.manual_seed(5)
    np.testing.assert_array_equal(a, _np(x.bernoulli(0.3)))
    for p in (pdt.full((50,), 0.5, device=device), pdt.tensor([0.5], device=device)):
        with pytest.raises(TypeError, match=r"p must be a float .*got a Tensor of shape"):
            pdt.bernoulli(x, p)
        with pytest.raises(TypeError, match=r"p must be a float"):
            x.bernoulli(p)


def test_a_refused_bernoulli_leaves_self_unchanged(device):
    x = pdt.full((3,), 7.0, device=device)
    with pytest.raises(RuntimeError):
        x.bernoulli_(pdt.tensor([0.5, 2.0, 0.5], device=device))
    assert _np(x).tolist() == [7.0, 7.0, 7.0]


def test_bernoulli_against_torch_rules(device):
    torch = torch_or_skip()
    p = torch.tensor([0.0, 1.0, 0.0])
    assert torch.bernoulli(p).dtype == torch.float32
    assert pdt.bernoulli(pdt.tensor([0.0, 1.0, 0.0], device=device)).tolist() == \
        torch.bernoulli(p).tolist()
    assert pdt.bernoulli(pdt.zeros(2, dtype=pdt.float64, device=device), 1.0).tolist() == \
        torch.bernoulli(torch.zeros(2, dtype=torch.float64), 1.0).tolist()


def test_random_ranges_and_dtypes(device):
    pdt.manual_seed(9)
    x = _np(pdt.empty(20000, dtype=pdt.int64, device=device).random_(10))
    assert x.min() == 0 and x.max() == 9
    _within(x.astype(np.float64), 4.5, (100 - 1) / 12)
    y = _np(pdt.empty(5000, device=device).random_(-3, 3))
    assert y.min() == -3 and y.max() == 2 and np.all(y == np.round(y))
    z = _np(pdt.empty(5000, device=device).random_())
    assert z.min() >= 0 and z.max() <= 2 ** 24 and np.all(z == np.round(z))
    assert z.max() > 2 ** 22  # the whole range is used
    w = _np(pdt.empty(5000, dtype=pdt.int32, device=device).random_())
    assert w.min() >= 0 and w.max() > 2 ** 29
    b = _np(pdt.empty(200, dtype=pdt.bool, device=device).random_())
    assert set(b.tolist()) == {False, True}
    # random_(from, to) is randint(from, to)'s draw
    pdt.manual_seed(2)
    a = _np(pdt.empty(7, dtype=pdt.int64, device=device).random_(5, 50))
    pdt.manual_seed(2)
    np.testing.assert_array_equal(a, _np(pdt.randint(5, 50, (7,), device=device)))


def test_random_refuses_bad_bounds(device):
    x = pdt.zeros(3, device=device)
    with pytest.raises(RuntimeError, match=r"expects 'from' to be less than 'to', but got "
                                           r"from=5 >= to=5"):
        x.random_(5, 5)
    with pytest.raises(RuntimeError, match=r"random_\(\): \[from, to\) = \[0, 1073741824\) "
                       r"on a pydevtensor.float16 tensor: .* out of bounds for float16"):
        pdt.zeros(2, dtype=pdt.float16, device=device).random_(0, 2 ** 30)
    with pytest.raises(RuntimeError, match=r"out of bounds for pydevtensor.int32"):
        pdt.zeros(2, dtype=pdt.int32, device=device).random_(-1, 2 ** 32)
    assert _np(x).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("rate", [0.3, 2.5, 9.5, 10.0, 37.0, 1000.0, 1e6])
def test_poisson_moments(device, rate):
    pdt.manual_seed(12)
    x = _np(pdt.poisson(pdt.full((40000,), rate, dtype=pdt.float64, device=device)))
    assert np.all(x >= 0) and np.all(x == np.round(x))
    _within(x, rate, rate)
    # the variance too: its standard error is about sqrt((2 rate^2 + rate) / n)
    assert abs(x.var() - rate) <= 5 * math.sqrt((2 * rate * rate + rate) / x.size)


def test_poisson_small_rate_frequencies(device):
    """The frequency of each k against the probability mass function."""
    pdt.manual_seed(4)
    n, rate = 50000, 3.0
    x = _np(pdt.poisson(pdt.full((n,), rate, device=device))).astype(np.int64)
    for k in range(8):
        pk = math.exp(-rate) * rate ** k / math.factorial(k)
        assert abs((x == k).mean() - pk) <= 5 * math.sqrt(pk * (1 - pk) / n)


def test_poisson_large_rate_frequencies(device):
    pdt.manual_seed(6)
    n, rate = 50000, 25.0
    x = _np(pdt.poisson(pdt.full((n,), rate, dtype=pdt.float64, device=device)))
    for k in (15, 20, 25, 30, 35):
        pk = math.exp(-rate + k * math.log(rate) - math.lgamma(k + 1))
        assert abs((x == k).mean() - pk) <= 5 * math.sqrt(pk * (1 - pk) / n)


def test_poisson_mixed_rates_shape_dtype_and_the_same_draws_everywhere(device):
    rates = pdt.tensor([[0.0, 1.0, 50.0], [3.0, 0.0, 12.5]], device=device)
    pdt.manual_seed(1)
    got = pdt.poisson(rates)
    assert got.dtype == pdt.float32 and tuple(got.shape) == (2, 3) and got.device == device
    assert _np(got)[0, 0] == 0 and _np(got)[1, 1] == 0
    pdt.manual_seed(1)
    np.testing.assert_array_equal(_np(got), _np(pdt.poisson(rates.cpu())))
    assert tuple(pdt.poisson(pdt.zeros(0, 4, device=device)).shape) == (0, 4)


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf])
def test_poisson_refuses_bad_rates(device, bad):
    with pytest.raises(RuntimeError, match=r"invalid Poisson rate.*on " + str(device.type)):
        pdt.poisson(pdt.tensor([1.0, bad], device=device))


def test_poisson_refuses_integer_rates_and_bad_generators():
    with pytest.raises(TypeError, match=r"floating-point tensor of rates, got pydevtensor.int64"):
        pdt.poisson(pdt.tensor([1, 2]))
    with pytest.raises(TypeError, match=r"generator must be a pydevtensor.Generator"):
        pdt.poisson(pdt.zeros(2), generator=3)


def test_bernoulli_of_probabilities_requiring_grad_has_a_zero_gradient(device):
    """As PyTorch's: the draw requires grad when the probabilities do, and their
    gradient is zeros (it did not require grad)."""
    torch = torch_or_skip()
    for lib, dev in ((torch, "cpu"), (pdt, device)):
        p = lib.tensor([0.3, 0.7, 1.0], device=dev, requires_grad=True)
        assert lib.bernoulli(p, 0.5).requires_grad  # (PyTorch has no backward for it)
        for r in (lib.bernoulli(p), p.bernoulli()):
            assert r.requires_grad and r.grad_fn is not None
            r.sum().backward()
        assert p.grad.tolist() == [0.0, 0.0, 0.0]
        assert not lib.bernoulli(p.detach()).requires_grad
