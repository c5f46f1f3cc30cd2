"""LogNormal, HalfNormal and Gumbel are TransformedDistributions, as PyTorch's (LogNormal:
ExpTransform of a Normal; HalfNormal: AbsTransform of a Normal; Gumbel: four transforms of
a Uniform on [tiny, 1 - eps)), with ``base_dist`` and ``transforms``, while log_prob,
cdf, icdf, the moments and the entropy stay the closed forms (checked in float64 against
NumPy), and draws are the transforms of the base's draws, on every device."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D
from pydevtensor.distributions import transforms as T

F64 = pdt.float64
EULER = 0.57721566490153286060
_erf = np.vectorize(math.erf)

LOC = np.array([0.0, -1.5, 2.0])
SCALE = np.array([1.0, 0.5, 3.0])
X = np.array([0.3, 1.7, 4.0])
Q = np.array([0.1, 0.5, 0.93])


def _np(t):
    return t.detach().cpu().numpy()


def _t(x, device):
    return pdt.tensor(x, dtype=F64, device=device)


def _log_normal(x, m=LOC, s=SCALE):
    return dict(logp=-(np.log(x) - m) ** 2 / (2 * s * s) - np.log(s * x * math.sqrt(2 * math.pi)),
                cdf=0.5 * (1 + _erf((np.log(x) - m) / (s * math.sqrt(2)))),
                ent=0.5 + 0.5 * math.log(2 * math.pi) + np.log(s) + m,
                mean=np.exp(m + s * s / 2), var=np.expm1(s * s) * np.exp(2 * m + s * s))


def _half_normal(x, s=SCALE):
    return dict(logp=np.log(2 / (s * math.sqrt(2 * math.pi))) - x * x / (2 * s * s),
                cdf=_erf(x / (s * math.sqrt(2))), ent=0.5 * np.log(math.pi * math.e * s * s / 2),
                mean=s * math.sqrt(2 / math.pi), var=s * s * (1 - 2 / math.pi))


def _gumbel(x, m=LOC, s=SCALE):
    z = (x - m) / s
    return dict(logp=-z - np.exp(-z) - np.log(s), cdf=np.exp(-np.exp(-z)),
                ent=np.log(s) + 1 + EULER, mean=m + s * EULER, var=(math.pi * s) ** 2 / 6)


CASES = {"LogNormal": (lambda dev: D.LogNormal(_t(LOC, dev), _t(SCALE, dev)), _log_normal,
                       D.Normal, [T.ExpTransform]),
         "HalfNormal": (lambda dev: D.HalfNormal(_t(SCALE, dev)), _half_normal, D.Normal,
                        [T.AbsTransform]),
         "Gumbel": (lambda dev: D.Gumbel(_t(LOC, dev), _t(SCALE, dev)), _gumbel, D.Uniform,
                    [type(T.ExpTransform().inv), T.AffineTransform,
                     type(T.ExpTransform().inv), T.AffineTransform])}


@pytest.mark.parametrize("name", sorted(CASES))
def test_is_a_transformed_distribution_of_its_base(name, device):
    make, _, base_type, transform_types = CASES[name]
    d = make(device)
    assert isinstance(d, D.TransformedDistribution)
    assert type(d.base_dist) is base_type
    assert [type(t) for t in d.transforms] == transform_types
    assert d.batch_shape == pdt.Size([3]) and d.event_shape == pdt.Size([])
    assert d.base_dist.batch_shape == pdt.Size([3])
    e = d.expand((2, 3))
    assert type(e) is type(d) and isinstance(e, D.TransformedDistribution)
    assert e.batch_shape == pdt.Size([2, 3]) and e.base_dist.batch_shape == pdt.Size([2, 3])
    np.testing.assert_allclose(_np(e.log_prob(_t(X, device))),
                               np.broadcast_to(_np(d.log_prob(_t(X, device))), (2, 3)))


def test_base_parameters(device):
    d = D.LogNormal(_t(LOC, device), _t(SCALE, device))
    np.testing.assert_array_equal(_np(d.base_dist.loc), LOC)
    np.testing.assert_array_equal(_np(d.loc), LOC)
    np.testing.assert_array_equal(_np(d.scale), SCALE)
    h = D.HalfNormal(_t(SCALE, device))
    np.testing.assert_array_equal(_np(h.base_dist.loc), 0 * SCALE)
    np.testing.assert_array_equal(_np(h.scale), SCALE)
    g = D.Gumbel(_t(LOC, device), _t(SCALE, device))
    info = np.finfo(np.float64)
    np.testing.assert_array_equal(_np(g.base_dist.low), np.full(3, info.tiny))
    np.testing.assert_array_equal(_np(g.base_dist.high), np.full(3, 1 - info.eps))
    np.testing.assert_array_equal(_np(g.loc), LOC)


@pytest.mark.parametrize("name", sorted(CASES))
def test_closed_forms_kept(name, device):
    make, closed, _, _ = CASES[name]
    d = make(device)
    ref = closed(X)
    x = _t(X, device)
    np.testing.assert_allclose(_np(d.log_prob(x)), ref["logp"], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(_np(d.cdf(x)), ref["cdf"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(_np(d.entropy()), ref["ent"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(_np(d.mean), ref["mean"], rtol=1e-12)
    np.testing.assert_allclose(_np(d.variance), ref["var"], rtol=1e-12)
    # icdf inverts the closed-form cdf
    np.testing.assert_allclose(closed(_np(d.icdf(_t(Q, device))))["cdf"], Q, rtol=1e-10)


def test_log_prob_is_the_change_of_variables(device):
    """The closed forms agree with TransformedDistribution's generic log_prob and cdf,
    so base_dist and transforms describe the same distribution."""
    for d in (D.LogNormal(_t(LOC, device), _t(SCALE, device)),
              D.Gumbel(_t(LOC, device), _t(SCALE, device))):
        x = _t(X, device)
        np.testing.assert_allclose(_np(D.TransformedDistribution.log_prob(d, x)),
                                   _np(d.log_prob(x)), rtol=1e-10)
        np.testing.assert_allclose(_np(D.TransformedDistribution.cdf(d, x)),
                                   _np(d.cdf(x)), rtol=1e-9, atol=1e-14)


def test_entropy_by_numeric_integration(device):
    """-integral p log p by the trapezoid rule on a fine grid (LogNormal's in u = log x:
    dx = x du), for several parameters."""
    for loc, scale in ((0.0, 1.0), (0.7, 0.4), (-2.0, 2.5)):
        u = np.linspace(loc - 14 * scale, loc + 14 * scale, 200001)
        for d, grid, jac in ((D.LogNormal(_t(loc, device), _t(scale, device)), np.exp(u),
                              np.exp(u)),
                             (D.HalfNormal(_t(scale, device)),
                              np.linspace(0.0, 14 * scale, 200001), 1.0),
                             (D.Gumbel(_t(loc, device), _t(scale, device)),
                              np.linspace(loc - 5 * scale, loc + 40 * scale, 200001), 1.0)):
            logp = _np(d.log_prob(_t(grid, device)))
            p = np.exp(logp)
            h = -np.trapezoid(np.where(p > 0, p * logp, 0.0) * jac,
                              u if d.__class__ is D.LogNormal else grid)
            np.testing.assert_allclose(_np(d.entropy()), h, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(CASES))
def test_draws_are_the_transformed_base_draws(name, device):
    make, _, _, _ = CASES[name]
    d = make(device)
    pdt.manual_seed(3)
    y = d.rsample((5,))
    pdt.manual_seed(3)
    x = d.base_dist.rsample((5,))
    for t in d.transforms:
        x = t(x)
    assert y.shape == pdt.Size([5, 3]) and y.device == pdt.device(device)
    np.testing.assert_array_equal(_np(y), _np(x))


def test_bad_parameters_name_the_distribution(device):
    zero, bad = _t(0.0, device), _t(-1.0, device)
    for cls, args in ((D.LogNormal, (zero, bad)), (D.HalfNormal, (bad,)),
                      (D.Gumbel, (zero, bad))):
        with pytest.raises(ValueError, match=f"parameter scale .* distribution {cls.__name__}"):
            cls(*args, validate_args=True)


def test_bad_parameters_of_beta_and_pareto_name_their_own(device):
    # Beta's parameters were checked as its Dirichlet's stacked 'concentration', Pareto's
    # alpha as its base Exponential's 'rate'; each error names the parameter given now
    one, bad = _t([1.0, 2.0], device), _t([1.0, -1.0], device)
    for make, name, cls in ((lambda: D.Beta(bad, one), "concentration1", "Beta"),
                            (lambda: D.Beta(one, bad * 0.0), "concentration0", "Beta"),
                            (lambda: D.Pareto(one, bad), "alpha", "Pareto"),
                            (lambda: D.Pareto(bad, one), "scale", "Pareto")):
        with pytest.raises(ValueError, match=f"parameter {name} .* distribution {cls}"):
            make()
    # the checks are still done where asked, and only there
    np.testing.assert_allclose(_np(D.Beta(bad, one, validate_args=False).mean), [0.5, -1.0])
    assert isinstance(D.Pareto(one, one).support, D.constraints.greater_than_eq)
    with pytest.raises(ValueError, match="support"):
        D.Pareto(one, one).log_prob(_t([0.5, 2.0], device))
