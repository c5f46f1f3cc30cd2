"""torch.lobpcg (_linalg_lobpcg.py): the k largest or smallest eigenvalues of symmetric
positive definite A (and of the pencil (A, B)) against numpy.linalg.eigh in float64, the
eigenvectors' residuals and B-orthonormality, batches, a given start X, float32, on every
device; PyTorch's refusals."""
import numpy as np
import pytest

import pydevtensor as pdt


def _spd(rng, m, cond):
    Q, _ = np.linalg.qr(rng.standard_normal((m, m)))
    return (Q * np.geomspace(1.0, cond, m)) @ Q.T


def _pencil_eigenvalues(A, B):
    """The eigenvalues of A x = lambda B x, ascending: those of L^-1 A L^-T (B = L L^T)."""
    if B is None:
        return np.linalg.eigh(A)[0]
    Li = np.linalg.inv(np.linalg.cholesky(B))
    return np.linalg.eigh(Li @ A @ Li.T)[0]


@pytest.mark.parametrize("m,k", [(30, 1), (80, 4)])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("with_B", [False, True])
def test_eigenpairs_match_numpy(device, m, k, largest, with_B):
    rng = np.random.default_rng(m + k)
    A = _spd(rng, m, 100.0)
    B = _spd(rng, m, 10.0) if with_B else None
    pdt.manual_seed(0)
    E, X = pdt.lobpcg(pdt.tensor(A, device=device), k=k,
                      B=None if B is None else pdt.tensor(B, device=device), largest=largest)
    assert E.shape == (k,) and X.shape == (m, k) and E.device.type == device.type
    ref = _pencil_eigenvalues(A, B)
    ref = ref[::-1][:k] if largest else ref[:k]
    E, X = E.cpu().numpy(), X.cpu().numpy()
    np.testing.assert_allclose(E, ref, rtol=1e-10)
    BX = X if B is None else B @ X
    np.testing.assert_allclose(X.T @ BX, np.eye(k), atol=1e-10)
    # the relative residual PyTorch's convergence test reads, below sqrt(eps)
    R = A @ X - BX * E
    assert (np.linalg.norm(R, axis=0) / (np.linalg.norm(A, 2) + np.abs(E) * 10)).max() < 1.5e-8


def test_batches_a_given_start_and_float32():
    rng = np.random.default_rng(1)
    A = np.stack([_spd(rng, 40, 50.0) for _ in range(3)]).reshape(3, 1, 40, 40)
    E, X = pdt.lobpcg(pdt.tensor(A), k=2)
    assert E.shape == (3, 1, 2) and X.shape == (3, 1, 40, 2)
    np.testing.assert_allclose(E.numpy(), np.linalg.eigvalsh(A)[..., ::-1][..., :2], rtol=1e-10)
    A = _spd(rng, 60, 20.0)
    E, X = pdt.lobpcg(pdt.tensor(A), X=pdt.tensor(rng.standard_normal((60, 5))), k=3,
                      niter=-1, largest=False)
    assert E.shape == (3,) and X.shape == (60, 3)
    np.testing.assert_allclose(E.numpy(), np.linalg.eigvalsh(A)[:3], rtol=1e-10)
    E32, _ = pdt.lobpcg(pdt.tensor(A, dtype=pdt.float32), k=2)
    assert E32.dtype == pdt.float32
    np.testing.assert_allclose(E32.numpy(), np.linalg.eigvalsh(A)[::-1][:2], rtol=1e-4)


def test_a_diagonal_matrix_gives_its_diagonal_and_unit_vectors():
    d = np.arange(1.0, 13.0)
    E, X = pdt.lobpcg(pdt.tensor(np.diag(d)), k=3, largest=False)
    np.testing.assert_allclose(E.numpy(), [1.0, 2.0, 3.0], rtol=1e-10)
    np.testing.assert_allclose(np.abs(X.numpy()), np.eye(12)[:, :3], atol=1e-6)


def test_an_empty_batch_and_a_start_of_dependent_columns(device):
    # an empty batch gives empty results, as PyTorch's (it raised stack()'s "expected a
    # non-empty list"); a zero column in X raised ZeroDivisionError, two equal ones
    # cholesky's error about a 2 x 2 matrix: both now say what is wrong with X
    A = pdt.tensor(np.diag(np.arange(1.0, 10.0)), device=device)
    E, X = pdt.lobpcg(A.expand(0, 9, 9), k=2)
    assert E.shape == (0, 2) and X.shape == (0, 9, 2) and X.device.type == device.type
    with pytest.raises(pdt.linalg.LinAlgError, match=r"the start X \(9, 1\) has a column of "
                                                     r"zero B-norm"):
        pdt.lobpcg(A, X=pdt.zeros(9, 1, dtype=pdt.float64, device=device))
    with pytest.raises(pdt.linalg.LinAlgError, match=r"X\^T B X of the start X \(9, 2\) is "
                                                     r"not positive definite; its n columns"):
        pdt.lobpcg(A, X=pdt.ones(9, 2, dtype=pdt.float64, device=device))


def test_niter_bounds_the_iterations():
    rng = np.random.default_rng(2)
    A = pdt.tensor(_spd(rng, 200, 1e4))
    pdt.manual_seed(0)
    E1, _ = pdt.lobpcg(A, k=3, niter=1, largest=False)
    ref = np.linalg.eigvalsh(A.numpy())[:3]
    assert np.abs(E1.numpy() - ref).max() > 1e-6  # one step is not converged
    assert (E1.numpy() >= ref - 1e-9).all()  # Ritz values bound the smallest from above


@pytest.mark.parametrize("call,exc,match", [
    ("pdt.lobpcg([[1.0]])", TypeError, "argument 'A' must be a Tensor, got list"),
    ("pdt.lobpcg(pdt.ones(5))", ValueError, r"A must be square \(\*, m, m\), got shape \(5,\)"),
    ("pdt.lobpcg(pdt.eye(9), k=4)", ValueError, r"number of A rows \(=9\) is smaller than 3 x "
                                                r"the number of requested eigenpairs \(=4\)"),
    ("pdt.lobpcg(pdt.eye(9), k=0)", ValueError, r"lobpcg\(\): k must be >= 1, got 0"),
    ("pdt.lobpcg(pdt.eye(9), k=2.0)", TypeError, r"lobpcg\(\): k must be an int, got float"),
    ("pdt.lobpcg(pdt.eye(9), k=2, n=1)", ValueError, r"k \(=2\) must not exceed .* n \(=1\)"),
    ("pdt.lobpcg(pdt.eye(9), B=pdt.eye(9, dtype=pdt.float64))", ValueError,
     "A and B must have the same shape, dtype and device"),
    ("pdt.lobpcg(pdt.eye(9), X=pdt.ones(8, 2))", ValueError,
     r"X must be \(\*, m, n\) = \(9,\) \+ \(n,\)"),
    ("pdt.lobpcg(pdt.eye(9), niter=-2)", ValueError, "niter must be >= -1"),
    ("pdt.lobpcg(pdt.eye(9), tol=0.0)", ValueError, "tol must be positive, got 0.0"),
    ("pdt.lobpcg(pdt.eye(9), largest=1)", TypeError,
     r"lobpcg\(\): argument 'largest' must be bool, not int"),
    ("pdt.lobpcg(pdt.eye(9), method='basic')", NotImplementedError,
     "method='basic' is not implemented"),
    ("pdt.lobpcg(pdt.eye(9), method='lanczos')", ValueError,
     "method must be 'ortho' or 'basic', got 'lanczos'"),
    ("pdt.lobpcg(pdt.eye(9), iK=pdt.eye(9))", NotImplementedError,
     "the preconditioner iK is used only by method='basic'"),
    ("pdt.lobpcg(pdt.eye(9), tracker=print)", ValueError, "tracker must be None"),
    ("pdt.lobpcg(pdt.eye(9), ortho_iparams={'ortho_i_max': 5})", ValueError,
     "ortho_iparams, ortho_fparams and ortho_bparams are not supported"),
    ("pdt.lobpcg(pdt.eye(9).requires_grad_())", NotImplementedError,
     "gradients are not supported"),
])
def test_bad_arguments_are_refused(call, exc, match):
    with pytest.raises(exc, match=match):
        eval(call)
