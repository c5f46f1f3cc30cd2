"""pydevtensor.distributions against torch.distributions in float64 (log_prob, entropy,
mean, variance, stddev, cdf, kl_divergence to 1e-12), and their draws by moments on
every device: with a fixed seed (deterministic), each sample mean within 5 standard
errors of the distribution's mean."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES, TORCH_CHECKED, torch_or_skip
from pydevtensor import distributions as D

F64 = pdt.float64


def _np(t):
    return t.detach().cpu().numpy()


def _t(x, device="cpu"):
    return pdt.tensor(x, dtype=F64, device=device)


def _close(got, ref, rtol=1e-12, atol=1e-12):
    np.testing.assert_allclose(_np(got), ref.detach().numpy(), rtol=rtol, atol=atol)


# (name, ours(device), torch's(torch), values for log_prob)
def _cases(torch):
    T = torch.distributions
    tt = lambda x: torch.tensor(x, dtype=torch.float64)  # noqa: E731
    return [
        ("normal", lambda d: D.Normal(_t([0.0, 1.5, -2.0], d), _t([1.0, 0.3, 2.5], d)),
         T.Normal(tt([0.0, 1.5, -2.0]), tt([1.0, 0.3, 2.5])), [0.3, 1.2, -7.0]),
        ("uniform", lambda d: D.Uniform(_t([0.0, -1.0], d), _t([2.0, 3.0], d)),
         T.Uniform(tt([0.0, -1.0]), tt([2.0, 3.0])), [0.5, 2.5]),
        ("bernoulli-probs", lambda d: D.Bernoulli(_t([0.1, 0.5, 0.93], d)),
         T.Bernoulli(tt([0.1, 0.5, 0.93])), [1.0, 0.0, 1.0]),
        ("bernoulli-logits", lambda d: D.Bernoulli(logits=_t([-3.0, 0.2, 40.0], d)),
         T.Bernoulli(logits=tt([-3.0, 0.2, 40.0])), [0.0, 1.0, 1.0]),
        ("categorical-probs", lambda d: D.Categorical(_t([[1.0, 2.0, 3.0], [0.5, 0.0, 0.5]], d)),
         T.Categorical(tt([[1.0, 2.0, 3.0], [0.5, 0.0, 0.5]])), [2, 0]),
        ("categorical-logits", lambda d: D.Categorical(logits=_t([[0.1, -2.0, 3.0]], d)),
         T.Categorical(logits=tt([[0.1, -2.0, 3.0]])), [1]),
        ("multinomial", lambda d: D.Multinomial(7, _t([0.2, 0.3, 0.5], d)),
         T.Multinomial(7, tt([0.2, 0.3, 0.5])), [1.0, 2.0, 4.0]),
        ("multinomial-batch", lambda d: D.Multinomial(4, _t([[1.0, 1.0], [1.0, 3.0]], d)),
         T.Multinomial(4, tt([[1.0, 1.0], [1.0, 3.0]])), [[0.0, 4.0], [3.0, 1.0]]),
        ("binomial", lambda d: D.Binomial(10, _t([0.25, 0.5, 0.9], d)),
         T.Binomial(10, tt([0.25, 0.5, 0.9])), [3.0, 5.0, 10.0]),
        ("binomial-logits", lambda d: D.Binomial(6, logits=_t([0.3, -1.0], d)),
         T.Binomial(6, logits=tt([0.3, -1.0])), [0.0, 6.0]),
        ("poisson", lambda d: D.Poisson(_t([0.5, 4.0, 120.0], d)),
         T.Poisson(tt([0.5, 4.0, 120.0])), [0.0, 3.0, 118.0]),
        ("exponential", lambda d: D.Exponential(_t([0.5, 2.0], d)),
         T.Exponential(tt([0.5, 2.0])), [0.7, 3.0]),
    ]


CASE_NAMES = ["normal", "uniform", "bernoulli-probs", "bernoulli-logits", "categorical-probs",
              "categorical-logits", "multinomial", "multinomial-batch", "binomial",
              "binomial-logits", "poisson", "exponential"]


@pytest.mark.parametrize("name", CASE_NAMES)
def test_against_torch_in_float64(name):
    torch = torch_or_skip(since=TORCH_CHECKED if name.startswith("multinomial") else None)
    (_, ours, theirs, values), = [c for c in _cases(torch) if c[0] == name]
    d = ours("cpu")
    assert tuple(d.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(d.event_shape) == tuple(theirs.event_shape)
    v = torch.tensor(values, dtype=torch.int64 if "categorical" in name else torch.float64)
    _close(d.log_prob(pdt.tensor(values, dtype=pdt.int64 if "categorical" in name else F64)),
           theirs.log_prob(v))
    if "categorical" not in name:
        _close(d.mean, theirs.mean)
        _close(d.variance, theirs.variance)
        _close(d.stddev, theirs.stddev)
    else:
        assert np.isnan(_np(d.mean)).all() and np.isnan(_np(d.variance)).all()
    if name != "poisson":  # PyTorch's Poisson has no entropy either
        _close(d.entropy(), theirs.entropy())
    else:
        with pytest.raises(NotImplementedError):
            d.entropy()
    if name in ("normal", "uniform", "exponential"):
        _close(d.cdf(_t(values)), theirs.cdf(torch.tensor(values, dtype=torch.float64)))
    if "bernoulli" in name or "binomial" in name or "categorical" in name:
        _close(d.probs, theirs.probs)
        _close(d.logits, theirs.logits)


def test_kl_divergence_against_torch():
    torch = torch_or_skip()
    T = torch.distributions
    tt = lambda x: torch.tensor(x, dtype=torch.float64)  # noqa: E731
    got = D.kl_divergence(D.Normal(_t([0.0, 1.0]), _t([1.0, 2.0])), D.Normal(_t([0.5]), _t([3.0])))
    ref = T.kl_divergence(T.Normal(tt([0.0, 1.0]), tt([1.0, 2.0])), T.Normal(tt([0.5]), tt([3.0])))
    _close(got, ref)
    p, q = [[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]], [[0.1, 0.1, 0.8], [0.5, 0.0, 0.5]]
    got = D.kl_divergence(D.Categorical(_t(p)), D.Categorical(_t(q)))
    ref = T.kl_divergence(T.Categorical(tt(p)), T.Categorical(tt(q)))
    assert _np(got)[1] == math.inf and ref[1].item() == math.inf
    _close(got[:1], ref[:1])
    with pytest.raises(NotImplementedError, match="no KL divergence registered for Normal and "
                                                  "Poisson"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Poisson(1.0))
    with pytest.raises(NotImplementedError):
        T.kl_divergence(T.Normal(0.0, 1.0), T.Poisson(1.0))


def _within(x, mean, var, k=5.0):
    n = x.shape[0]
    se = np.sqrt(var / n)
    assert np.all(np.abs(x.mean(0) - mean) <= k * se + 1e-12), (x.mean(0), mean, se)


def test_continuous_samples_by_moments(device):
    pdt.manual_seed(0)
    n = 40000
    loc, scale = np.array([0.0, 3.0]), np.array([1.0, 0.5])
    x = _np(D.Normal(_t(loc, device), _t(scale, device)).sample((n,)))
    assert x.shape == (n, 2)
    _within(x, loc, scale ** 2)
    _within((x - loc) ** 2, scale ** 2, 2 * scale ** 4)  # the variance
    lo, hi = np.array([0.0, -2.0]), np.array([1.0, 5.0])
    u = _np(D.Uniform(_t(lo, device), _t(hi, device)).sample((n,)))
    assert np.all(u >= lo) and np.all(u < hi)
    _within(u, (lo + hi) / 2, (hi - lo) ** 2 / 12)
    rate = np.array([0.5, 4.0])
    e = _np(D.Exponential(_t(rate, device)).sample((n,)))
    assert np.all(e >= 0)
    _within(e, 1 / rate, 1 / rate ** 2)


def test_discrete_samples_by_moments(device):
    pdt.manual_seed(1)
    n = 20000
    p = np.array([0.1, 0.6])
    b = _np(D.Bernoulli(_t(p, device)).sample((n,)))
    assert set(np.unique(b)) <= {0.0, 1.0}
    _within(b, p, p * (1 - p))
    w = np.array([1.0, 2.0, 7.0])
    c = _np(D.Categorical(_t(w, device)).sample((n,)))
    assert c.dtype == np.int64 and c.min() >= 0 and c.max() <= 2
    for k, pk in enumerate(w / w.sum()):
        _within((c == k).astype(np.float64), pk, pk * (1 - pk))
    probs = w / w.sum()
    m = _np(D.Multinomial(12, _t(w, device)).sample((n,)))
    assert m.shape == (n, 3) and np.all(m.sum(1) == 12)
    _within(m, 12 * probs, 12 * probs * (1 - probs))
    bi = _np(D.Binomial(_t([5.0, 300.0], device), _t([0.3, 0.05], device)).sample((n,)))
    assert np.all(bi[:, 0] <= 5) and np.all(bi == np.round(bi))
    _within(bi, np.array([1.5, 15.0]), np.array([5 * 0.21, 300 * 0.05 * 0.95]))
    r = np.array([0.7, 30.0])
    po = _np(D.Poisson(_t(r, device)).sample((n,)))
    _within(po, r, r)


def test_the_same_draws_on_every_device(device):
    """Bit for bit, but for the float64 normal draws, whose log and cos are the device's
    (Note [Philox layout]: the last bits can differ)."""
    for make, exact in ((lambda d: D.Normal(_t([0.0, 1.0], d), 2.0), False),
                        (lambda d: D.Categorical(_t([1.0, 2.0, 3.0], d)), True),
                        (lambda d: D.Multinomial(5, _t([1.0, 2.0, 3.0], d)), True),
                        (lambda d: D.Bernoulli(_t([0.3], d)), True)):
        pdt.manual_seed(7)
        cpu = _np(make("cpu").sample((50,)))
        pdt.manual_seed(7)
        got = _np(make(device).sample((50,)))
        if exact:
            np.testing.assert_array_equal(got, cpu)
        else:
            np.testing.assert_allclose(got, cpu, rtol=1e-14, atol=1e-15)


def test_d2l_probability_section(device):
    """D2L 2.6 as written: a fair die tossed with Multinomial."""
    from pydevtensor.distributions.multinomial import Multinomial
    pdt.manual_seed(0)
    fair_probs = pdt.ones(6, device=device) / 6
    one = Multinomial(1, fair_probs).sample()
    assert tuple(one.shape) == (6,) and one.sum().item() == 1
    counts = Multinomial(1000, fair_probs).sample()
    assert counts.sum().item() == 1000 and abs(_np(counts / 1000) - 1 / 6).max() < 0.06
    counts = Multinomial(1, fair_probs).sample((10000,))
    cum_counts = counts.cumsum(dim=0)
    estimates = cum_counts / cum_counts.sum(dim=1, keepdims=True)
    assert tuple(estimates.shape) == (10000, 6)
    assert abs(_np(estimates[-1]) - 1 / 6).max() < 0.02


def test_shapes_rsample_and_gradients(device):
    loc = pdt.zeros(3, dtype=F64, device=device, requires_grad=True)
    scale = pdt.ones(3, dtype=F64, device=device, requires_grad=True)
    d = D.Normal(loc, scale)
    assert d.has_rsample and not D.Bernoulli(0.5).has_rsample
    x = d.rsample((4, 2))
    assert tuple(x.shape) == (4, 2, 3)
    x.sum().backward()
    assert _np(loc.grad).tolist() == [8.0] * 3
    assert not d.sample((2,)).requires_grad
    d.log_prob(_t([0.5, -0.5, 1.0], device)).sum().backward()
    np.testing.assert_allclose(_np(loc.grad), 8 + np.array([0.5, -0.5, 1.0]))
    assert tuple(D.Normal(0.0, 1.0).sample().shape) == ()
    assert tuple(D.Categorical(pdt.ones(2, 3, device=device)).sample((5,)).shape) == (5, 2)
    assert tuple(D.Multinomial(3, pdt.ones(2, 4, device=device)).sample((5,)).shape) == (5, 2, 4)
    assert tuple(D.Poisson(pdt.ones(2, device=device)).sample((0,)).shape) == (0, 2)
    assert d.sample_n(3).shape == (3, 3)


def test_validation():
    with pytest.raises(ValueError, match=r"Expected parameter scale .* GreaterThan"):
        D.Normal(0.0, -1.0)
    D.Normal(0.0, -1.0, validate_args=False)  # not checked
    with pytest.raises(ValueError, match=r"Expected parameter probs .* Interval"):
        D.Bernoulli(_t([1.5]))
    with pytest.raises(ValueError, match=r"Expected parameter low .* LessThan"):
        D.Uniform(1.0, 0.0)
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified"):
        D.Categorical()
    with pytest.raises(ValueError, match="within the support"):
        D.Bernoulli(_t([0.5])).log_prob(_t([0.5]))
    with pytest.raises(ValueError, match="within the support"):
        D.Categorical(_t([1.0, 1.0])).log_prob(pdt.tensor([2]))
    with pytest.raises(ValueError, match="within the support"):  # more than total_count
        D.Multinomial(3, _t([0.5, 0.5])).log_prob(_t([3.0, 1.0]))
    with pytest.raises(ValueError, match=r"right-most size of value must match event_shape"):
        D.Multinomial(3, _t([0.5, 0.5])).log_prob(_t([1.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="not broadcastable"):
        D.Normal(_t([0.0, 1.0]), 1.0).log_prob(_t([0.0, 1.0, 2.0]))
    with pytest.raises(TypeError, match=r"sample_shape must be a tuple of ints"):
        D.Normal(0.0, 1.0).sample(3)
    D.Distribution.set_default_validate_args(False)
    try:
        D.Normal(0.0, -1.0)
    finally:
        D.Distribution.set_default_validate_args(True)


@pytest.mark.parametrize("family,p,q", [
    ("Bernoulli", ([0.0, 0.3, 1.0, 0.5, 0.2],), ([0.5, 0.6, 0.2, 0.0, 1.0],)),
    ("Poisson", ([0.5, 2.0, 3.0],), ([1.0, 2.0, 0.5],)),
    ("Exponential", ([0.5, 2.0],), ([1.0, 3.0],)),
    ("Uniform", ([0.0, 0.5, -1.0], [1.0, 1.0, 2.0]), ([-1.0, 0.0, 0.0], [2.0, 0.8, 3.0])),
])
def test_kl_divergence_of_more_families_against_torch(device, family, p, q):
    """Bernoulli, Poisson, Exponential and Uniform pairs, inf where q misses p's
    support, as PyTorch's."""
    torch = torch_or_skip()
    got = D.kl_divergence(getattr(D, family)(*(_t(a, device) for a in p)),
                          getattr(D, family)(*(_t(a, device) for a in q)))
    T = torch.distributions
    tt = lambda x: torch.tensor(x, dtype=torch.float64)  # noqa: E731
    ref = T.kl_divergence(getattr(T, family)(*map(tt, p)), getattr(T, family)(*map(tt, q)))
    np.testing.assert_allclose(_np(got), ref.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("device", DEVICES)
def test_bernoulli_gradients_at_the_edges_are_finite_and_right(device):
    """KL(Bernoulli(p) || Bernoulli(q)) at p or q in {0, 1}: the gradient is finite
    (0 * log 0 gave nan), as PyTorch's softplus form; and log_prob at logit 0 has the
    gradient 1 - sigmoid(0) = 1/2 (relu(x) + log1p(exp(-|x|)) gave 1 there).  Against
    float64 central differences of the closed form."""
    def kl(a, b):
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = np.where(a == 0, 0.0, a * np.log(a / b))
            t2 = np.where(a == 1, 0.0, (1 - a) * np.log((1 - a) / (1 - b)))
        return t1 + t2

    a = np.array([0.0, 1.0, 0.3, 0.5, 0.2])
    b = np.array([0.5, 0.5, 0.5, 0.3, 0.7])
    p, q = _t(a, device).requires_grad_(), _t(b, device).requires_grad_()
    got = D.kl_divergence(D.Bernoulli(p), D.Bernoulli(q))
    np.testing.assert_allclose(_np(got), kl(a, b), rtol=1e-12)
    got.sum().backward()
    h = 1e-6
    inner = (a > 0) & (a < 1)
    dp = (kl(np.clip(a + h, 0, 1), b) - kl(np.clip(a - h, 0, 1), b)) / (2 * h)
    dq = (kl(a, b + h) - kl(a, b - h)) / (2 * h)
    assert np.isfinite(_np(p.grad)).all() and np.isfinite(_np(q.grad)).all()
    np.testing.assert_allclose(_np(p.grad)[inner], dp[inner], rtol=1e-6)
    # at p = 0 and 1 the true slope is infinite; PyTorch's gradient is that of the term
    # left by the masks, through the clamped logits (zero gradient): -+log(2) here
    np.testing.assert_allclose(_np(p.grad)[:2], [-math.log(2), math.log(2)], rtol=1e-6)
    np.testing.assert_allclose(_np(q.grad), dq, rtol=1e-6)
    logit = _t([0.0, 0.0, 2.0], device).requires_grad_()
    D.Bernoulli(logits=logit).log_prob(_t([1.0, 0.0, 1.0], device)).sum().backward()
    np.testing.assert_allclose(_np(logit.grad), [0.5, -0.5, 1 - 1 / (1 + math.exp(-2.0))],
                               rtol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_icdf_inverts_cdf_and_perplexity_is_exp_entropy(device):
    """icdf (Normal, Uniform, Exponential) against the float64 closed forms, and
    cdf(icdf(q)) = q; perplexity() = exp(entropy())."""
    from statistics import NormalDist
    q = np.array([0.025, 0.3, 0.5, 0.975])
    cases = [
        (D.Normal(_t([1.0], device), _t([2.0], device)),
         np.array([NormalDist(1.0, 2.0).inv_cdf(v) for v in q])),
        (D.Uniform(_t([-1.0], device), _t([3.0], device)), -1.0 + 4.0 * q),
        (D.Exponential(_t([2.0], device)), -np.log1p(-q) / 2.0),
    ]
    for d, want in cases:
        x = d.icdf(_t(q, device))
        np.testing.assert_allclose(_np(x), want, rtol=1e-12)
        np.testing.assert_allclose(_np(d.cdf(x)), q, rtol=1e-12)
        np.testing.assert_allclose(_np(d.perplexity()), np.exp(_np(d.entropy())), rtol=1e-15)


@pytest.mark.parametrize("device", DEVICES)
def test_expand_and_bernoulli_enumerate_support(device):
    """expand() broadcasts the parameters (views) to a larger batch, parts included
    (Multinomial's Categorical); Bernoulli enumerates {0, 1} as PyTorch's."""
    b = D.Bernoulli(_t(0.3, device)).expand((3,))
    assert tuple(b.batch_shape) == (3,) and tuple(b.sample().shape) == (3,)
    np.testing.assert_allclose(_np(b.log_prob(_t([1.0, 0.0, 1.0], device))),
                               np.log([0.3, 0.7, 0.3]), rtol=1e-12)
    c = D.Categorical(_t([0.2, 0.3, 0.5], device)).expand((2, 4))
    assert tuple(c.sample().shape) == (2, 4) and tuple(c.entropy().shape) == (2, 4)
    n = D.Normal(_t([0.0, 1.0], device), _t([1.0, 2.0], device)).expand((5, 2))
    assert tuple(n.rsample().shape) == (5, 2)
    np.testing.assert_allclose(_np(n.stddev), np.broadcast_to([1.0, 2.0], (5, 2)))
    m = D.Multinomial(4, _t([0.2, 0.8], device)).expand((3,))
    assert tuple(m.sample().shape) == (3, 2) and tuple(m.log_prob(_t([1.0, 3.0], device))
                                                      .shape) == (3,)
    with pytest.raises(ValueError, match="does not expand"):
        D.Normal(_t([0.0, 1.0], device), 1.0).expand((3,))
    e = D.Bernoulli(_t([0.3, 0.6], device))
    assert e.has_enumerate_support
    np.testing.assert_array_equal(_np(e.enumerate_support()), [[0.0, 0.0], [1.0, 1.0]])
    assert tuple(e.enumerate_support(expand=False).shape) == (2, 1)


def test_multinomial_log_prob_takes_counts_below_total_count():
    """PyTorch's support check: counts >= 0 summing to at most total_count; the log
    prob is that of their own sum (its formula), not a refusal."""
    d = D.Multinomial(10, probs=_t([0.5, 0.5]))
    want = math.lgamma(4) - math.lgamma(2) - math.lgamma(3) + 3 * math.log(0.5)
    np.testing.assert_allclose(d.log_prob(_t([1.0, 2.0])).item(), want, rtol=1e-12)
    with pytest.raises(ValueError, match="support"):
        D.Multinomial(2, probs=_t([0.5, 0.5])).log_prob(_t([1.0, 2.0]))
    with pytest.raises(ValueError, match="support"):
        d.log_prob(_t([-1.0, 2.0]))


def test_random_functions_raise_pytorchs_classes_and_randperm_takes_float_dtypes():
    """A bad value is InvalidArgumentError (a ValueError and PyTorch's RuntimeError), a
    bad dtype DTypeError (a TypeError and a RuntimeError); randperm takes a floating dtype
    that holds n - 1 exactly, as PyTorch's."""
    x = pdt.zeros(3)
    for call in (lambda: pdt.normal(0.0, -1.0, (3,)), lambda: pdt.normal(pdt.zeros(3), -1.0),
                 lambda: x.normal_(0, -1), lambda: x.uniform_(3, 1),
                 lambda: pdt.randint(5, 5, (3,)), lambda: pdt.randperm(-1)):
        with pytest.raises(pdt.InvalidArgumentError):
            call()
    for call in (lambda: pdt.rand(3, dtype=pdt.int64), lambda: pdt.randn(3, dtype=pdt.int32)):
        with pytest.raises(pdt.DTypeError, match="floating point"):
            call()
    pdt.manual_seed(4)
    want = pdt.randperm(6).tolist()
    for dtype in (pdt.float32, pdt.float64, pdt.int32, pdt.uint8):
        pdt.manual_seed(4)
        got = pdt.randperm(6, dtype=dtype)
        assert got.dtype == dtype and got.tolist() == want
    assert pdt.randperm(3, dtype=pdt.float32, requires_grad=True).requires_grad
    with pytest.raises(pdt.InvalidArgumentError, match="too large"):
        pdt.randperm(300, dtype=pdt.uint8)


def test_sample_shape_takes_numpy_integers():
    """sample_shape holds what has __index__ (np.int64), as torch.Size takes it."""
    d = D.Normal(_t([0.0, 1.0]), _t([1.0, 2.0]))
    assert tuple(d.sample((np.int64(3),)).shape) == (3, 2)
    with pytest.raises(ValueError, match="ints >= 0"):
        d.sample((2.5,))
