"""einsum's plans (Note [einsum plans] in pydevtensor/_ops_einsum.py): two operands whose
shapes agree letter by letter run a plan worked out once per (equation, shapes).  On every
device: the planned result against NumPy's einsum in float64 (rtol 1e-12: the same sums,
in another order), a second call reusing the plan, the same equation on other shapes, the
gradient, mixed dtypes, and the errors after a plan exists.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES
from pydevtensor import _ops_einsum

EQUATIONS = [
    ("ij,jk->ik", (3, 4), (4, 5)), ("ij,jk", (3, 4), (4, 5)), ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)),
    ("i,j->ij", (3,), (4,)), ("ij,ij->i", (3, 4), (3, 4)), ("ij,kj->ik", (3, 4), (5, 4)),
    ("ijk,k->ij", (2, 3, 4), (4,)), ("ij,jk->ki", (3, 4), (4, 5)), ("ab,cd->", (2, 3), (4, 5)),
    ("ab,cd->dacb", (2, 3), (4, 5)), ("bhqd,bhkd->bhqk", (2, 3, 4, 5), (2, 3, 6, 5)),
    ("ij,j->", (3, 4), (4,)), ("ji,jk->ik", (4, 3), (4, 5)), ("i,i", (5,), (5,)),
    ("ij,i->j", (3, 4), (3,)), ("ijk,ikl->ijl", (2, 3, 4), (2, 4, 5)), ("ab,ba->a", (3, 3), (3, 3)),
    ("...ij,...jk->...ik", (2, 3, 4), (2, 4, 5)), ("i j , j k -> i k", (3, 4), (4, 5)),
]


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


@pytest.mark.parametrize("eq,sa,sb", EQUATIONS)
def test_planned_matches_numpy_twice(dev, eq, sa, sb):
    rng = np.random.default_rng(len(eq))
    for _ in range(2):  # the second call runs the kept plan
        x, y = rng.standard_normal(sa), rng.standard_normal(sb)
        got = pdt.einsum(eq, pdt.tensor(x, device=dev), pdt.tensor(y, device=dev))
        ref = np.einsum(eq, x, y)
        assert tuple(got.shape) == ref.shape
        np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-12, atol=1e-12)
    assert _ops_einsum._PLANS.get((eq, sa, sb)) is not None  # the plan was made and kept


def test_same_equation_other_shapes(dev):
    """A plan is per shapes: a broadcast size-1 dim and a diagonal go the general way."""
    rng = np.random.default_rng(3)
    T = lambda a: pdt.tensor(a, device=dev)  # noqa: E731
    for sa, sb in (((3, 4), (4, 5)), ((6, 2), (2, 1)), ((1, 4), (4, 3))):
        x, y = rng.standard_normal(sa), rng.standard_normal(sb)
        np.testing.assert_allclose(pdt.einsum("ij,jk->ik", T(x), T(y)).cpu().numpy(),
                                   x @ y, rtol=1e-12)
    x, y = rng.standard_normal((3, 1)), rng.standard_normal((4,))
    ref = np.einsum("ij,j->ij", np.broadcast_to(x, (3, 4)), y)  # j broadcast from 1 to 4
    np.testing.assert_allclose(pdt.einsum("ij,j->ij", T(x), T(y)).cpu().numpy(), ref, rtol=1e-12)
    assert _ops_einsum._PLANS[("ij,j->ij", (3, 1), (4,))] is None
    s = rng.standard_normal((3, 3))
    np.testing.assert_allclose(pdt.einsum("ii,ij->j", T(s), T(s)).cpu().numpy(),
                               np.einsum("ii,ij->j", s, s), rtol=1e-12)


def test_errors_after_a_plan(dev):
    a, b = pdt.ones(3, 4, device=dev), pdt.ones(4, 5, device=dev)
    pdt.einsum("ij,jk->ik", a, b)
    with pytest.raises(RuntimeError, match="subscript 'j' has size"):
        pdt.einsum("ij,jk->ik", a, pdt.ones(3, 5, device=dev))
    with pytest.raises(RuntimeError, match="have 2 dims"):
        pdt.einsum("ij,jk->ik", a, pdt.ones(4, device=dev))
    with pytest.raises(ValueError, match="invalid output"):
        pdt.einsum("ij,jk->iq", a, b)


def test_gradient_through_a_plan(dev):
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4))
    X = pdt.tensor(x, device=dev, requires_grad=True)
    Y = pdt.tensor(y, device=dev, requires_grad=True)
    for _ in range(2):
        X.grad = Y.grad = None
        out = pdt.einsum("bik,bjk->bij", X, Y)
        g = rng.standard_normal(tuple(out.shape))
        out.backward(pdt.tensor(g, device=dev))
        np.testing.assert_allclose(X.grad.cpu().numpy(), np.einsum("bij,bjk->bik", g, y),
                                   rtol=1e-12)
        np.testing.assert_allclose(Y.grad.cpu().numpy(), np.einsum("bij,bik->bjk", g, x),
                                   rtol=1e-12)


def test_mixed_dtypes_promote(dev):
    a = pdt.tensor([[1.5, 2.0]], device=dev)                      # float32
    b = pdt.tensor([[2.0], [0.25]], dtype=pdt.float64, device=dev)
    got = pdt.einsum("ij,jk->ik", a, b)
    assert got.dtype == pdt.float64
    np.testing.assert_array_equal(got.cpu().numpy(), [[3.5]])
    i = pdt.tensor([[1, 2]], device=dev)                           # int64
    got = pdt.einsum("ij,jk->ik", i, pdt.tensor([[3], [4]], device=dev))
    assert got.dtype == pdt.int64 and got.cpu().tolist() == [[11]]
