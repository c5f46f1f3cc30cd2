"""distributions.transforms' CorrCholeskyTransform, PositiveDefiniteTransform,
CatTransform, StackTransform and CumulativeDistributionTransform, the constraints
corr_cholesky, cat and stack, and their biject_to / transform_to entries: values against
NumPy, inverses, and log |det J| against finite-difference Jacobians or closed forms in
float64, on every device."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.distributions import Normal, biject_to, constraints, transform_to
from pydevtensor.distributions import transforms as T

F64 = pdt.float64


def _np(t):
    return t.detach().cpu().numpy()


def _t(x, device="cpu"):
    return pdt.tensor(x, dtype=F64, device=device)


X6 = np.array([[0.5, -0.3, 1.2, 0.1, -2.0, 0.7], [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]])


def test_corr_cholesky_transform(device):
    t = biject_to(constraints.corr_cholesky)
    assert isinstance(t, T.CorrCholeskyTransform) and t.bijective
    assert isinstance(transform_to(constraints.corr_cholesky), T.CorrCholeskyTransform)
    x = _t(X6, device)
    y = t(x)
    yn = _np(y)
    assert yn.shape == (2, 4, 4)
    np.testing.assert_allclose(np.triu(yn, 1), 0.0)
    assert (np.diagonal(yn, axis1=-2, axis2=-1) > 0).all()
    np.testing.assert_allclose((yn ** 2).sum(-1), 1.0, rtol=1e-12)
    assert bool(constraints.corr_cholesky.check(y).all())
    assert not bool(constraints.corr_cholesky.check(y * 1.01).any())
    np.testing.assert_allclose(_np(t.inv(y)), X6, rtol=1e-10, atol=1e-12)
    # the first row below the diagonal is tanh(x) (the stick-breaking starts from 1)
    np.testing.assert_allclose(yn[:, 1, 0], np.tanh(X6[:, 0]), rtol=1e-12)
    rows, cols = np.tril_indices(4, -1)
    h = 1e-6
    for b in range(2):
        jac = np.stack([(_np(t(_t(X6[b] + h * e, device)))[rows, cols]
                         - _np(t(_t(X6[b] - h * e, device)))[rows, cols]) / (2 * h)
                        for e in np.eye(6)], axis=1)
        assert float(_np(t.log_abs_det_jacobian(x, y))[b]) == pytest.approx(
            np.linalg.slogdet(jac)[1], rel=1e-7)
    assert t.forward_shape((5, 6)) == (5, 4, 4) and t.inverse_shape((4, 4)) == (6,)
    with pytest.raises(ValueError, match="the last dimension, 5, is not D"):
        t.forward_shape((5,))


def test_positive_definite_transform(device):
    t = transform_to(constraints.positive_definite)
    assert isinstance(t, T.PositiveDefiniteTransform) and not t.bijective
    with pytest.raises(NotImplementedError, match="Cannot transform _PositiveDefinite"):
        biject_to(constraints.positive_definite)
    x = np.array([[0.3, 5.0, 1.0], [2.0, -0.4, 7.0], [-1.0, 0.5, 0.1]])
    low = np.tril(x, -1) + np.diag(np.exp(np.diag(x)))
    y = t(_t(x, device))
    np.testing.assert_allclose(_np(y), low @ low.T, rtol=1e-12)
    assert bool(constraints.positive_definite.check(y))
    np.testing.assert_allclose(_np(t.inv(y)), np.tril(x), rtol=1e-10, atol=1e-12)


def test_cat_and_stack_transforms(device):
    c = constraints.cat([constraints.positive, constraints.interval(-1.0, 1.0)], 0, [1, 2])
    np.testing.assert_array_equal(_np(c.check(_t([1.0, 0.5, 2.0], device))),
                                  [True, True, False])
    t = biject_to(c)
    assert isinstance(t, T.CatTransform) and t.length == 3 and t.bijective
    x = np.array([0.3, -1.0, 2.0])
    y = t(_t(x, device))
    np.testing.assert_allclose(_np(y), [math.exp(0.3), *(2 / (1 + np.exp(-x[1:])) - 1)],
                               rtol=1e-12)
    np.testing.assert_allclose(_np(t.inv(y)), x, rtol=1e-12)
    sig = 1 / (1 + np.exp(-x[1:]))
    np.testing.assert_allclose(_np(t.log_abs_det_jacobian(_t(x, device), y)),
                               [0.3, *np.log(2 * sig * (1 - sig))], rtol=1e-10)
    # an event transform in the parts: the log-dets summed over the event dimension
    ct = T.CatTransform([T.ExpTransform(), T.IndependentTransform(T.ExpTransform(), 1)],
                        dim=-1, lengths=[1, 2])
    v = _t([[0.3, -1.0, 2.0]], device)
    assert ct.event_dim == 1
    np.testing.assert_allclose(_np(ct.log_abs_det_jacobian(v, ct(v))), [1.3], rtol=1e-12)
    with pytest.raises(ValueError, match=r"value.shape\[0\] = 2 must equal the total "
                                         r"length 3"):
        t(_t([1.0, 2.0], device))

    s = constraints.stack([constraints.positive, constraints.unit_interval], 1)
    st = biject_to(s)
    assert isinstance(st, T.StackTransform)
    x = np.array([[0.3, -1.0], [2.0, 0.5]])
    y = st(_t(x, device))
    np.testing.assert_allclose(_np(y), np.stack([np.exp(x[:, 0]), 1 / (1 + np.exp(-x[:, 1]))],
                                                1), rtol=1e-12)
    np.testing.assert_allclose(_np(st.inv(y)), x, rtol=1e-12)
    sig = 1 / (1 + np.exp(-x[:, 1]))
    np.testing.assert_allclose(_np(st.log_abs_det_jacobian(_t(x, device), y)),
                               np.stack([x[:, 0], np.log(sig * (1 - sig))], 1), rtol=1e-10)
    assert bool(s.check(y).all()) and not bool(s.check(-y).any())
    with pytest.raises(TypeError, match="every element of tseq must be a Transform"):
        T.StackTransform([T.ExpTransform(), "exp"])


def test_cumulative_distribution_transform(device):
    t = T.CumulativeDistributionTransform(Normal(_t(0.5, device), _t(2.0, device)))
    x = np.array([-1.0, 0.5, 3.0])
    y = t(_t(x, device))
    want = 0.5 * (1 + np.vectorize(math.erf)((x - 0.5) / (2.0 * math.sqrt(2))))
    np.testing.assert_allclose(_np(y), want, rtol=1e-12)
    np.testing.assert_allclose(_np(t.inv(y)), x, rtol=1e-10)
    h = 1e-6
    fd = (_np(t(_t(x + h, device))) - _np(t(_t(x - h, device)))) / (2 * h)
    np.testing.assert_allclose(np.exp(_np(t.log_abs_det_jacobian(_t(x, device), y))), fd,
                               rtol=1e-7)
    assert t.domain is constraints.real and t.codomain is constraints.unit_interval
    assert t.with_cache(1)._cache_size == 1 and t.sign == 1
