"""linalg.solve_triangular's gradients, NaN and dtypes (Note [triangular solves] in
pydevtensor/_linalg_more.py), against substitutions in NumPy float64
(test_linalg_solver_edges._substitution) and finite differences."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES
from test_linalg_solver_edges import _substitution


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
def test_solve_triangular_gradients_keep_substitutions_accuracy(device, upper, left):
    """Random 60 x 60 triangles (cond ~1e17): with X = T^-1 B (left; B T^-1 otherwise),
    gB = T^-T g is a substitution in the other triangle and gT = -gB X^T on T's
    triangle.  Both agree with NumPy float64 substitutions to 1e-10 relative; the
    backward solved T^T through a pivoted LU, relative errors 0.6 to 1 (PyTorch's trsm
    1e-15)."""
    rng = np.random.default_rng(62)
    a = rng.standard_normal((60, 60))
    T = np.triu(a) if upper else np.tril(a)
    B, g = rng.standard_normal((2, 60, 3))
    Ts, lower = (T, not upper) if left else (T.T, upper)  # Ts X = B, in left's frame
    X = _substitution(Ts, B, lower)
    gB = _substitution(Ts.T, g, not lower)
    gT = -gB @ X.T
    gT = gT if left else gT.T
    gA = np.triu(gT) if upper else np.tril(gT)
    At = pdt.tensor(a, device=device, requires_grad=True)
    Bt = pdt.tensor(B if left else B.T, device=device, requires_grad=True)
    out = pdt.linalg.solve_triangular(At, Bt, upper=upper, left=left)
    out.backward(pdt.tensor(g if left else g.T, device=device))
    got_b = Bt.grad.cpu().numpy()
    got_b = got_b if left else got_b.T
    for got, want in ((got_b, gB), (At.grad.cpu().numpy(), gA)):
        assert np.abs(got - want).max() <= 1e-10 * np.abs(want).max()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_solve_triangular_second_derivatives(device, upper, unitriangular):
    """gradgradcheck (central differences of the recorded gradient) on a batch of
    well-conditioned triangles, left and right, B broadcast over A's batch."""
    rng = np.random.default_rng(63)
    a = pdt.tensor(rng.standard_normal((2, 4, 4)) + 4 * np.eye(4), device=device,
                   requires_grad=True)
    b = pdt.tensor(rng.standard_normal((4, 2)), device=device, requires_grad=True)
    for left in (True, False):
        def f(a, b, left=left):
            return pdt.linalg.solve_triangular(a, b if left else b.mT, upper=upper,
                                               left=left, unitriangular=unitriangular)
        assert pdt.autograd.gradcheck(f, (a, b))
        assert pdt.autograd.gradgradcheck(f, (a, b))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("grad", [False, True])
def test_solve_triangular_nan_reaches_the_rows_substitution_takes_it_to(device, grad):
    """A NaN in the triangle spreads only to the rows of X whose substitution reads it,
    as PyTorch's trsm (X was NaN everywhere: the general solve's rule); a NaN outside
    the triangle is not read."""
    rng = np.random.default_rng(64)
    a = rng.standard_normal((4, 4)) + 3 * np.eye(4)
    a[0, 3] = np.nan  # row 0 of an upper triangle: only X[0] reads it
    a[3, 1] = np.nan  # outside the upper triangle
    B = rng.standard_normal((4, 2))
    X = pdt.linalg.solve_triangular(pdt.tensor(a, device=device, requires_grad=grad),
                                    pdt.tensor(B, device=device), upper=True)
    X = X.detach().cpu().numpy()
    want = _substitution(np.triu(a), B, False)
    assert np.isnan(want[0]).all() and np.isfinite(want[1:]).all()
    np.testing.assert_array_equal(np.isnan(X), np.isnan(want))
    np.testing.assert_allclose(X[1:], want[1:], rtol=1e-12)


@pytest.mark.parametrize("dtype", [pdt.float16, pdt.bfloat16, pdt.int64, pdt.bool])
def test_triangular_solves_refuse_other_dtypes(dtype):
    """PyTorch's NotImplementedError for a dtype other than float32 and float64, naming
    the function and the dtype (the message named lu_solve, an internal step)."""
    A = pdt.eye(2, dtype=dtype)
    B = pdt.ones(2, 1, dtype=dtype)
    name = str(dtype).split(".")[-1]
    with pytest.raises(NotImplementedError, match=rf"linalg\.solve_triangular: .*{name}"):
        pdt.linalg.solve_triangular(A, B, upper=True)
    with pytest.raises(NotImplementedError, match=rf"^cholesky_solve: .*{name}"):
        pdt.cholesky_solve(B, A)
