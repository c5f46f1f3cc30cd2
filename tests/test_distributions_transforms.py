"""pydevtensor.distributions.transforms, biject_to/transform_to and
TransformedDistribution: each transform against its closed form in float64, its inverse,
its log |det J| against central finite differences of the forward map, caching, the
composed and structural transforms' shapes and constraints, and the change of variables
of TransformedDistribution against closed-form densities, on every device."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D
from pydevtensor.distributions import constraints
from pydevtensor.distributions import transforms as T

F64 = pdt.float64


def _np(t):
    return t.detach().cpu().numpy()


def _t(x, device="cpu"):
    return pdt.tensor(x, dtype=F64, device=device)


X = np.array([-1.3, -0.2, 0.4, 2.1])
XP = np.array([0.3, 0.9, 1.7, 4.0])

# name: (transform, x, closed-form y)
ELEMENTWISE = {
    "exp": (lambda d: T.ExpTransform(), X, np.exp(X)),
    "power": (lambda d: T.PowerTransform(_t(2.5, d)), XP, XP ** 2.5),
    "sigmoid": (lambda d: T.SigmoidTransform(), X, 1 / (1 + np.exp(-X))),
    "tanh": (lambda d: T.TanhTransform(), X, np.tanh(X)),
    "softplus": (lambda d: T.SoftplusTransform(), X, np.log1p(np.exp(X))),
    "affine": (lambda d: T.AffineTransform(0.5, -3.0), X, 0.5 - 3.0 * X),
    "affine-tensor": (lambda d: T.AffineTransform(_t(0.5, d), _t([1.0, -2.0, 3.0, -0.5], d)),
                      X, 0.5 + np.array([1.0, -2.0, 3.0, -0.5]) * X),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_forward_inverse_and_log_det(device, name):
    make, x, y = ELEMENTWISE[name]
    t = make(device)
    xt = _t(x, device)
    yt = t(xt)
    assert yt.device == xt.device and yt.dtype == F64
    np.testing.assert_allclose(_np(yt), y, rtol=1e-12)
    np.testing.assert_allclose(_np(t.inv(yt)), x, rtol=1e-10, atol=1e-12)
    assert t.bijective and t.inv.inv is t and t.event_dim == 0
    assert bool(t.codomain.check(yt).all()) and bool(t.domain.check(xt).all())
    h = 1e-6
    fd = (_np(t(_t(x + h, device))) - _np(t(_t(x - h, device)))) / (2 * h)
    np.testing.assert_allclose(_np(t.log_abs_det_jacobian(xt, yt)), np.log(np.abs(fd)),
                               rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(_np(t.inv.log_abs_det_jacobian(yt, xt)),
                               -np.log(np.abs(fd)), rtol=1e-7, atol=1e-8)
    sign = t.sign if isinstance(t.sign, int) else _np(t.sign)
    assert np.all(np.sign(fd) == sign)


def test_abs_softmax_lower_cholesky(device):
    a = T.AbsTransform()
    assert not a.bijective and _np(a(_t(X, device))).tolist() == np.abs(X).tolist()
    assert _np(a.inv(_t(XP, device))).tolist() == XP.tolist()
    with pytest.raises(NotImplementedError):
        a.sign
    s = T.SoftmaxTransform()
    v = np.array([[0.2, -1.0, 3.0], [0.0, 0.0, 0.0]])
    e = np.exp(v - v.max(-1, keepdims=True))
    np.testing.assert_allclose(_np(s(_t(v, device))), e / e.sum(-1, keepdims=True),
                               rtol=1e-12)
    assert not s.bijective and s.event_dim == 1
    m = np.array([[0.5, 9.0], [-2.0, -0.3]])
    low = T.LowerCholeskyTransform()
    out = _np(low(_t(m, device)))
    np.testing.assert_allclose(out, [[math.exp(0.5), 0.0], [-2.0, math.exp(-0.3)]], rtol=1e-12)
    np.testing.assert_allclose(_np(low.inv(_t(out, device))), np.tril(m), rtol=1e-12)
    assert bool(constraints.lower_cholesky.check(_t(out, device)))
    assert low.domain.event_dim == 2 and low.codomain.event_dim == 2


def test_stick_breaking_against_numerical_jacobian(device):
    t = T.StickBreakingTransform()
    x = np.array([0.3, -1.2, 0.8])
    y = t(_t(x, device))
    assert tuple(y.shape) == (4,) and abs(_np(y).sum() - 1) < 1e-12
    assert np.all(_np(y) > 0) and t.forward_shape((2, 3)) == (2, 4)
    np.testing.assert_allclose(_np(t.inv(y)), x, rtol=1e-10)
    h = 1e-6
    jac = np.empty((3, 3))
    for i in range(3):
        e = np.zeros(3)
        e[i] = h
        jac[:, i] = (_np(t(_t(x + e, device)))[:3] - _np(t(_t(x - e, device)))[:3]) / (2 * h)
    np.testing.assert_allclose(_np(t.log_abs_det_jacobian(_t(x, device), y)),
                               np.log(abs(np.linalg.det(jac))), rtol=1e-7)
    np.testing.assert_allclose(_np(t(_t(np.zeros(3), device))), [0.25] * 4, rtol=1e-12)


def test_compose_independent_reshape(device):
    c = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, -2.0)])
    x = _t(X, device)
    y = c(x)
    np.testing.assert_allclose(_np(y), 1 - 2 * np.exp(X), rtol=1e-12)
    np.testing.assert_allclose(_np(c.inv(y)), X, rtol=1e-12)
    np.testing.assert_allclose(_np(c.log_abs_det_jacobian(x, y)), X + math.log(2), rtol=1e-12)
    assert c.sign == -1 and c.bijective and c.inv.inv is c
    assert c == T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, -2.0)])
    assert c != T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)])
    assert repr(c) == "ComposeTransform(\n    ExpTransform(),\n    AffineTransform()\n)"
    assert T.identity_transform(x) is x and T.identity_transform.event_dim == 0
    # an element-wise transform then a vector one: the events take one dimension
    cs = T.ComposeTransform([T.ExpTransform(), T.StickBreakingTransform()])
    assert cs.domain.event_dim == 1 and cs.codomain.event_dim == 1
    m = _t(X.reshape(2, 2), device)
    np.testing.assert_allclose(_np(cs.log_abs_det_jacobian(m, cs(m))),
                               _np(T.StickBreakingTransform().log_abs_det_jacobian(
                                   m.exp(), cs(m))) + X.reshape(2, 2).sum(-1), rtol=1e-12)
    ind = T.IndependentTransform(T.ExpTransform(), 1)
    np.testing.assert_allclose(_np(ind.log_abs_det_jacobian(m, ind(m))),
                               X.reshape(2, 2).sum(-1), rtol=1e-12)
    assert repr(ind.codomain) == "IndependentConstraint(GreaterThan(lower_bound=0.0), 1)"
    r = T.ReshapeTransform((2, 3), (6,))
    z = _t(np.arange(24.0).reshape(4, 2, 3), device)
    assert tuple(r(z).shape) == (4, 6) and tuple(r.inv(r(z)).shape) == (4, 2, 3)
    assert _np(r.log_abs_det_jacobian(z, r(z))).tolist() == [0.0] * 4
    assert tuple(r.forward_shape((5, 2, 3))) == (5, 6)
    with pytest.raises(ValueError, match="Shape mismatch"):
        r.forward_shape((5, 3, 2))
    with pytest.raises(ValueError, match="different numbers of elements"):
        T.ReshapeTransform((2, 3), (5,))


def test_caching(device):
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T.ExpTransform(cache_size=2)
    t = T.ExpTransform(cache_size=1)
    x = _t([0.5], device)
    y = t(x)
    assert t.inv(y) is x and t(x) is y
    t0 = T.ExpTransform()
    assert t0.inv(t0(x)) is not x
    assert t0.with_cache(1)._cache_size == 1 and t0.with_cache(0) is t0
    c = T.ComposeTransform([T.AffineTransform(1.0, 2.0), T.ExpTransform()], cache_size=1)
    y = c(x)
    assert c.inv(y) is x


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_registries_map_the_reals_into_each_constraint(device, registry):
    reg = getattr(D, registry)
    u = _t(np.array([[-3.0, 0.1, 2.0], [0.5, -0.5, 1.5]]), device)
    cases = [constraints.real, constraints.positive, constraints.nonnegative,
             constraints.greater_than(2.0), constraints.less_than(-1.0),
             constraints.unit_interval, constraints.interval(-1.0, 3.0),
             constraints.half_open_interval(0.0, 5.0), constraints.real_vector,
             constraints.simplex, constraints.independent(constraints.positive, 1)]
    for c in cases:
        t = reg(c)
        y = t(u)
        assert bool(c.check(y).all()), (c, y)
        if registry == "biject_to" or c is not constraints.simplex:
            np.testing.assert_allclose(_np(t.inv(y)), _np(u), rtol=1e-9, atol=1e-12)
    assert isinstance(D.biject_to(constraints.simplex), T.StickBreakingTransform)
    assert isinstance(D.transform_to(constraints.simplex), T.SoftmaxTransform)
    assert isinstance(reg(constraints.unit_interval), T.SigmoidTransform)
    with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
        reg(constraints.boolean)


def test_transformed_distribution_change_of_variables(device):
    loc, scale = np.array([0.2, -1.0]), np.array([0.7, 1.9])
    base = D.Normal(_t(loc, device), _t(scale, device))
    d = D.TransformedDistribution(base, [T.ExpTransform(), T.AffineTransform(1.0, -2.0)])
    assert tuple(d.batch_shape) == (2,) and tuple(d.event_shape) == ()
    assert d.has_rsample and repr(d.support) == "Real()"
    y = np.array([-0.5, -4.0])
    w = (1 - y) / 2  # exp(x)
    z = (np.log(w) - loc) / scale
    logp = -z ** 2 / 2 - np.log(scale * w * math.sqrt(2 * math.pi)) - math.log(2)
    np.testing.assert_allclose(_np(d.log_prob(_t(y, device))), logp, rtol=1e-12)
    cdf = 1 - 0.5 * (1 + np.vectorize(math.erf)(z / math.sqrt(2)))  # decreasing map
    np.testing.assert_allclose(_np(d.cdf(_t(y, device))), cdf, rtol=1e-12)
    np.testing.assert_allclose(_np(d.cdf(d.icdf(_t([0.1, 0.8], device)))), [0.1, 0.8],
                               rtol=1e-12)
    pdt.manual_seed(0)
    s = d.sample((5,))
    assert tuple(s.shape) == (5, 2) and not s.requires_grad and s.device == base.loc.device
    e = d.expand((3, 2))
    assert tuple(e.batch_shape) == (3, 2) and tuple(e.sample((4,)).shape) == (4, 3, 2)
    # a vector transform: the events gain a dimension, and the base is reinterpreted
    sb = D.TransformedDistribution(D.Normal(_t(np.zeros(3), device), 1.0),
                                   T.StickBreakingTransform())
    assert tuple(sb.batch_shape) == () and tuple(sb.event_shape) == (4,)
    assert tuple(sb.sample((6,)).shape) == (6, 4)
    v = sb.sample()
    x = T.StickBreakingTransform().inv(v)
    expect = (-_np(x) ** 2 / 2).sum() - 1.5 * math.log(2 * math.pi) - _np(
        T.StickBreakingTransform().log_abs_det_jacobian(x, v))
    np.testing.assert_allclose(_np(sb.log_prob(v)), expect, rtol=1e-10)
    with pytest.raises(ValueError, match="within the support"):
        D.TransformedDistribution(base, T.ExpTransform()).log_prob(_t([-1.0, 1.0], device))
    with pytest.raises(ValueError, match="transforms must be a Transform"):
        D.TransformedDistribution(base, "exp")


def test_transformed_rsample_gradient(device):
    """d rsample / d loc of exp(N(loc, 1)) is the draw itself."""
    loc = _t([0.3, -0.4], device).requires_grad_()
    pdt.manual_seed(1)
    d = D.TransformedDistribution(D.Normal(loc, 1.0), [T.ExpTransform()])
    x = d.rsample((3,))
    x.sum().backward()
    np.testing.assert_allclose(_np(loc.grad), _np(x).sum(0), rtol=1e-12)
