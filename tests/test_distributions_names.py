"""PyTorch's distribution names added later: OneHotCategoricalStraightThrough, the
constraints positive_integer, greater_than_eq, lower_triangular, square, symmetric,
positive_semidefinite and MixtureSameFamilyConstraint, and the utils clamp_probs,
tril_matrix_to_vec and vec_to_tril_matrix."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import distributions as D
from pydevtensor.distributions import constraints as C
from pydevtensor.distributions import utils as U

F64 = pdt.float64

MATRICES = np.array([[[2.0, 0.3], [0.3, 1.0]],   # positive definite
                     [[1.0, 0.0], [0.0, 0.0]],   # semidefinite, singular
                     [[1.0, 0.0], [0.5, 1.0]],   # lower triangular, not symmetric
                     [[1.0, 0.1], [0.0, 1.0]]])  # upper triangular


def _check(c, x, device):
    return c.check(pdt.tensor(x, dtype=F64, device=device)).cpu().numpy().tolist()


def test_matrix_constraints(device):
    assert _check(C.square, MATRICES, device) == [True] * 4
    assert _check(C.square, np.ones((2, 2, 3)), device) == [False, False]
    assert _check(C.symmetric, MATRICES, device) == [True, True, False, False]
    assert _check(C.lower_triangular, MATRICES, device) == [False, True, True, False]
    sym = MATRICES[:2]
    assert _check(C.positive_semidefinite, sym, device) == [True, True]
    assert _check(C.positive_definite, sym, device) == [True, False]
    indefinite = np.array([[[1.0, 2.0], [2.0, 1.0]]])  # eigenvalues 3 and -1
    assert _check(C.positive_semidefinite, indefinite, device) == [False]
    for c in (C.square, C.symmetric, C.positive_semidefinite, C.lower_triangular):
        assert c.event_dim == 2 and not c.is_discrete
    assert repr(C.positive_semidefinite) == "PositiveSemidefinite()"
    assert isinstance(D.transform_to(C.positive_semidefinite),
                      D.transforms.PositiveDefiniteTransform)


def test_integer_and_half_line_constraints(device):
    x = [-1.0, 0.0, 1.0, 1.5, 2.0, float("inf"), float("nan")]
    assert _check(C.positive_integer, x, device) == [False, False, True, False, True,
                                                     False, False]
    assert C.positive_integer.is_discrete
    assert repr(C.positive_integer) == "IntegerGreaterThan(lower_bound=1)"
    assert _check(C.greater_than_eq(1.0), x, device) == [False, False, True, True, True,
                                                         True, False]
    assert repr(C.greater_than_eq(1.0)) == "GreaterThanEq(lower_bound=1.0)"
    assert repr(C.nonnegative) == "GreaterThanEq(lower_bound=0.0)"
    t = D.biject_to(C.greater_than_eq(2.0))
    np.testing.assert_allclose(t(pdt.tensor([0.0], dtype=F64, device=device)).cpu().numpy(),
                               [3.0])


def test_mixture_same_family_constraint(device):
    c = C.MixtureSameFamilyConstraint(C.simplex)
    assert c.event_dim == 1
    value = pdt.tensor([[0.5, 0.5], [0.5, 0.6]], dtype=F64, device=device)
    assert c.check(value).cpu().numpy().tolist() == [True, False]
    mix = D.MixtureSameFamily(D.Categorical(pdt.ones(2, device=device)),
                              D.Normal(pdt.zeros(2, device=device), 1.0))
    assert isinstance(mix.support, C.MixtureSameFamilyConstraint)


def test_clamp_probs(device):
    for dtype in (pdt.float32, F64):
        eps = np.finfo(np.float32 if dtype == pdt.float32 else np.float64).eps
        p = U.clamp_probs(pdt.tensor([0.0, 0.5, 1.0], dtype=dtype, device=device))
        np.testing.assert_array_equal(p.cpu().numpy(),
                                      np.array([eps, 0.5, 1 - eps], dtype=p.cpu().numpy().dtype))


@pytest.mark.parametrize("diag", [-2, -1, 0, 1, 2])
def test_tril_matrix_vec_round_trip(device, diag):
    m = np.arange(18.0).reshape(2, 3, 3)
    rows, cols = np.nonzero(np.tril(np.ones((3, 3)), diag))  # row by row, as numpy lists
    v = U.tril_matrix_to_vec(pdt.tensor(m, device=device), diag)
    np.testing.assert_array_equal(v.cpu().numpy(), m[:, rows, cols])
    back = U.vec_to_tril_matrix(v, diag)
    np.testing.assert_array_equal(back.cpu().numpy(), np.tril(m, diag))


def test_onehot_straight_through(device):
    p = pdt.tensor([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]], dtype=F64, device=device,
                   requires_grad=True)
    d = D.OneHotCategoricalStraightThrough(probs=p)
    assert d.has_rsample and isinstance(d, D.OneHotCategorical)
    x = d.rsample((4,))
    assert tuple(x.shape) == (4, 2, 3)
    xs = x.detach().cpu().numpy()
    assert ((xs == 0) | (xs == 1)).all() and (xs.sum(-1) == 1).all()
    w = np.arange(6.0).reshape(2, 3)
    (x * pdt.tensor(w, dtype=F64, device=device)).sum().backward()
    # d/dp of sum(w * (p / sum p)) over 4 draws; p sums to 1 per row
    pn = p.detach().cpu().numpy()
    expected = 4 * (w - (w * pn).sum(-1, keepdims=True))
    np.testing.assert_allclose(p.grad.cpu().numpy(), expected, rtol=1e-12)
    e = d.expand((3, 2))
    assert type(e) is D.OneHotCategoricalStraightThrough and tuple(e.rsample().shape) == (3, 2, 3)
