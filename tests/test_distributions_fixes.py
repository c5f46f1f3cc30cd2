"""pydevtensor.distributions where they differed from PyTorch's: parameters derived
lazily (probs from logits) keep their graph when first derived under no_grad (in
sample()), Bernoulli's log_prob at infinite logits, Binomial's sampler for large
total_count, and the constraints and attributes PyTorch's have."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D
from pydevtensor.autograd import no_grad

F64 = pdt.float64


def _np(t):
    return t.detach().cpu().numpy()


def _t(x, device="cpu"):
    return pdt.tensor(x, dtype=F64, device=device)


def _fd_grad(f, x, h=1e-6):
    """Central differences of the scalar f at the float64 array x."""
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        g.flat[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def _sample(d):
    d.sample()


def _dev(d):
    """The device d's parameters are on (the losses' constants go there too)."""
    return d.probs.device


def _log_prob_no_grad(d):
    with no_grad():
        d.log_prob(pdt.ones(d.batch_shape, dtype=F64, device=d.mean.device))


# (make(param), what touches the lazily derived parameter first, the scalar after)
LAZY_CASES = {
    "categorical-entropy": (lambda x: D.Categorical(logits=x), _sample,
                            lambda d: d.entropy().sum()),
    "categorical-probs-log_prob-after-no_grad": (
        lambda x: D.Categorical(probs=x.exp()), _log_prob_no_grad,
        lambda d: d.log_prob(pdt.tensor(1, device=_dev(d))).sum()),
    "bernoulli-entropy": (lambda x: D.Bernoulli(logits=x), _sample,
                          lambda d: d.entropy().sum()),
    "binomial-mean": (lambda x: D.Binomial(7, logits=x), _sample, lambda d: d.mean.sum()),
    "multinomial-mean": (lambda x: D.Multinomial(4, logits=x, validate_args=False), _sample,
                         lambda d: (d.mean * pdt.arange(3, dtype=F64, device=_dev(d))).sum()),
    "bernoulli-kl": (lambda x: D.Bernoulli(logits=x), _sample,
                     lambda d: D.kl_divergence(
                         d, D.Bernoulli(_t([0.3, 0.6, 0.5], _dev(d)))).sum()),
    "bernoulli-probs-log_prob-after-no_grad": (
        lambda x: D.Bernoulli(probs=x.sigmoid()), _log_prob_no_grad,
        lambda d: d.log_prob(_t([1.0, 0.0, 1.0], _dev(d))).sum()),
}


@pytest.mark.parametrize("case", sorted(LAZY_CASES))
def test_lazy_parameters_keep_their_graph_after_a_no_grad_use(case, device):
    """The gradient after sample() (or a log_prob under no_grad) equals the finite
    differences: the derived probs (logits) are computed with gradients enabled."""
    make, touch, scalar = LAZY_CASES[case]
    x0 = np.array([0.1, 0.5, -0.3])

    def f(x):
        with no_grad():
            return scalar(make(_t(x, device).cpu())).item()

    x = _t(x0, device).requires_grad_()
    d = make(x)
    pdt.manual_seed(0)
    touch(d)
    out = scalar(d)
    assert out.requires_grad
    out.backward()
    np.testing.assert_allclose(_np(x.grad), _fd_grad(f, x0), rtol=1e-6, atol=1e-8)


def test_bernoulli_log_prob_at_infinite_logits_and_its_gradient(device):
    """-inf where the value is impossible, 0 where it is certain (PyTorch gives NaN for
    some of these); at finite logits the closed form v*l - log(1 + e^l) and its
    gradient v - sigmoid(l)."""
    inf = float("inf")
    got = D.Bernoulli(logits=_t([inf, -inf, inf, -inf], device)).log_prob(
        _t([0.0, 1.0, 1.0, 0.0], device))
    np.testing.assert_array_equal(_np(got), [-inf, -inf, 0.0, 0.0])
    lg = np.array([-40.0, -2.0, 0.0, 0.5, 3.0, 40.0])
    v = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 0.0])
    x = _t(lg, device).requires_grad_()
    lp = D.Bernoulli(logits=x).log_prob(_t(v, device))
    np.testing.assert_allclose(_np(lp), v * lg - np.logaddexp(0.0, lg), rtol=1e-14)
    lp.sum().backward()
    np.testing.assert_allclose(_np(x.grad), v - 1 / (1 + np.exp(-lg)), rtol=1e-14, atol=1e-300)


def _within(x, mean, var, k=5.0):
    se = np.sqrt(var / x.shape[0])
    assert np.all(np.abs(x.mean(0) - mean) <= k * se), (x.mean(0), mean, se)


def test_binomial_sample_by_moments_for_small_and_huge_total_count(device):
    """BTRS (n * min(p, 1-p) >= 10, p above and below 1/2) and inversion: the mean and
    the variance within 5 standard errors; edge parameters exact; a fixed seed repeats."""
    n = np.array([1e8, 1000.0, 20.0, 50.0, 3e4, 0.0, 5.0, 5.0])
    p = np.array([0.3, 0.7, 0.3, 0.999, 1e-4, 0.5, 0.0, 1.0])
    d = D.Binomial(_t(n, device), _t(p, device))
    pdt.manual_seed(3)
    x = _np(d.sample((4000,)))
    assert x.shape == (4000, 8) and np.all(x == np.round(x)) and np.all((x >= 0) & (x <= n))
    np.testing.assert_array_equal(x[:, 5:], np.broadcast_to([0.0, 0.0, 5.0], (4000, 3)))
    n, p, x = n[:5], p[:5], x[:, :5]
    var = n * p * (1 - p)
    mu4 = var * (1 + 3 * p * (1 - p) * (n - 2))
    _within(x, n * p, var)
    _within((x - n * p) ** 2, var, mu4 - var ** 2)
    pdt.manual_seed(3)
    np.testing.assert_array_equal(_np(d.sample((4000,))), np.concatenate(
        [x, np.broadcast_to([0.0, 0.0, 5.0], (4000, 3))], 1))


@pytest.mark.parametrize("n, p", [(12, 0.4), (40, 0.5), (60, 0.8)])
def test_binomial_sample_frequencies_by_chi_square(n, p, device):
    """The counts of each k in 20000 draws against the pmf: Pearson's statistic below
    its dof + 5 standard deviations (cells of expected count >= 5 only)."""
    from math import comb
    pdt.manual_seed(11)
    draws = 20000
    x = _np(D.Binomial(_t(float(n), device), _t(p, device)).sample((draws,)))
    pmf = np.array([comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)])
    seen = np.bincount(x.astype(np.int64), minlength=n + 1)
    cells = pmf * draws >= 5
    expected = pmf[cells] * draws
    stat = (((seen[cells] - expected) ** 2) / expected).sum()
    dof = cells.sum() - 1
    assert stat < dof + 5 * np.sqrt(2 * dof), (stat, dof)
    assert seen[~cells].sum() <= 5 * max(1.0, pmf[~cells].sum() * draws) + 10


def test_multinomial_checks_its_categorical_with_the_default_setting(device):
    """As PyTorch's: validate_args=False does not reach the Categorical inside."""
    with pytest.raises(ValueError, match=r"Expected parameter probs .* Simplex"):
        D.Multinomial(3, _t([-1.0, 2.0], device), validate_args=False)
    m = D.Multinomial(3, _t([1.0, 3.0], device), validate_args=False)
    assert not m._validate_args and m._categorical._validate_args
    D.Distribution.set_default_validate_args(False)
    try:
        D.Multinomial(3, _t([-1.0, 2.0], device))
    finally:
        D.Distribution.set_default_validate_args(True)


def test_bools_are_numbers_and_a_tensor_is_a_sample_shape(device):
    """Python bools as parameters (1.0 and 0.0), as PyTorch takes them; a 1-d integer
    tensor as sample_shape (torch.Size takes one), not a 0-d or a float one."""
    assert D.Normal(True, 1.0).loc.item() == 1.0
    assert _np(D.Normal(_t([0.5], device), True).scale).tolist() == [1.0]
    assert D.Bernoulli(True).probs.item() == 1.0
    assert D.Bernoulli(logits=False).logits.item() == 0.0
    assert D.Binomial(True, _t(0.5, device)).total_count.item() == 1.0
    m = D.Multinomial(True, _t([0.0, 1.0], device))
    assert _np(m.sample()).tolist() == [0.0, 1.0]
    d = D.Normal(pdt.zeros(2, device=device), 1.0)
    assert tuple(d.sample(pdt.tensor([2, 3])).shape) == (2, 3, 2)
    assert tuple(D.Categorical(pdt.ones(4, device=device)).sample(
        pdt.tensor([5], device=device)).shape) == (5,)
    for bad in (pdt.tensor(4), pdt.tensor([2.0])):
        with pytest.raises(TypeError, match=r"sample_shape must be a tuple of ints"):
            d.sample(bad)


def test_dependent_supports_read_on_the_class_and_constraint_reprs():
    """PyTorch's constraints.dependent_property: on the class a dependent constraint
    with is_discrete and event_dim, on an instance the support itself."""
    C = D.constraints
    for cls, discrete, event_dim in ((D.Binomial, True, 0), (D.Categorical, True, 0),
                                     (D.Multinomial, True, 1), (D.Uniform, False, 0)):
        support = cls.support
        assert C.is_dependent(support), cls
        assert (support.is_discrete, support.event_dim) == (discrete, event_dim), cls
    assert not C.is_dependent(D.Binomial(3, _t(0.5)).support)
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    assert (C.dependent.is_discrete, C.dependent.event_dim) == (False, 0)
    assert C.dependent(is_discrete=True, event_dim=2).event_dim == 2
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        C.dependent.check(_t([1.0]))
    with pytest.raises(ValueError, match=r"Expected value.dim\(\) >= 1 but got 0"):
        C.real_vector.check(_t(1.0))
    assert repr(C.nonnegative_integer) == "IntegerGreaterThan(lower_bound=0)"
    assert repr(C.real_vector) == "IndependentConstraint(Real(), 1)"
    assert repr(D.Binomial.support) == "DependentProperty()"


def test_a_dependent_argument_constraint_is_not_checked():
    class Shifted(D.Normal):
        arg_constraints = dict(D.Normal.arg_constraints, loc=D.constraints.dependent)
    assert Shifted(_t([1.0]), 1.0).loc.item() == 1.0


def test_param_and_param_shape(device):
    """_param is the parameter given (probs or logits), as PyTorch's; Binomial has
    param_shape."""
    p = _t([0.2, 0.7], device)
    assert _np(D.Bernoulli(p)._param).tolist() == [0.2, 0.7]
    b = D.Binomial(5, logits=p)
    assert _np(b._param).tolist() == [0.2, 0.7] and tuple(b.param_shape) == (2,)
    assert tuple(b.expand((3, 2))._param.shape) == (3, 2)
    assert _np(D.Categorical(p)._param).sum() == pytest.approx(1.0)
