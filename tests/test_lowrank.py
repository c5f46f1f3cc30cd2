"""torch.svd_lowrank and torch.pca_lowrank (_linalg_lowrank.py): on matrices of exact
rank k the randomized SVD reconstructs A and its singular values are NumPy's svd's; the
mean M and pca_lowrank's centring against NumPy in float64; torch's shapes and errors."""
import numpy as np
import pytest

import pydevtensor as pdt


def _rank_k(rng, shape, k):
    *batch, m, n = shape
    return rng.standard_normal((*batch, m, k)) @ rng.standard_normal((*batch, k, n))


@pytest.mark.parametrize("shape", [(40, 15), (15, 40), (3, 25, 12)])
@pytest.mark.parametrize("dtype,tol", [("float64", 1e-10), ("float32", 2e-4)])
def test_svd_lowrank_of_exact_rank_k_reconstructs_and_matches_numpy(device, shape, dtype, tol):
    k, q = 4, 6
    rng = np.random.default_rng(0)
    A = _rank_k(rng, shape, k)
    pdt.manual_seed(0)
    U, S, V = pdt.svd_lowrank(pdt.tensor(A, dtype=getattr(pdt, dtype), device=device), q=q)
    assert isinstance((U, S, V), tuple)
    *batch, m, n = shape
    assert U.shape == (*batch, m, q) and S.shape == (*batch, q) and V.shape == (*batch, n, q)
    U, S, V = (x.cpu().numpy().astype(np.float64) for x in (U, S, V))
    scale = np.abs(A).max()
    np.testing.assert_allclose((U * S[..., None, :]) @ np.swapaxes(V, -1, -2), A,
                               atol=tol * scale * 10)
    want = np.linalg.svd(A, compute_uv=False)[..., :q]  # the last q - k are ~0
    np.testing.assert_allclose(S, want, rtol=tol, atol=tol * want.max() * 10)
    # orthonormal columns
    eye = np.broadcast_to(np.eye(k), (*batch, k, k))
    for W in (U, V):
        np.testing.assert_allclose(np.swapaxes(W[..., :k], -1, -2) @ W[..., :k], eye,
                                   atol=tol * 10)


def test_svd_lowrank_with_M_is_the_svd_of_A_minus_M(device):
    rng = np.random.default_rng(1)
    mean = rng.standard_normal(10) * 5
    A = _rank_k(rng, (30, 10), 3) + mean
    pdt.manual_seed(1)
    U, S, V = pdt.svd_lowrank(pdt.tensor(A, device=device), q=5, niter=3,
                              M=pdt.tensor(mean, device=device))  # M broadcast to (30, 10)
    U, S, V = (x.cpu().numpy() for x in (U, S, V))
    np.testing.assert_allclose((U * S) @ V.T, A - mean, atol=1e-10)
    np.testing.assert_allclose(S, np.linalg.svd(A - mean, compute_uv=False)[:5], atol=1e-10)


def test_pca_lowrank_centres_and_matches_numpy(device):
    rng = np.random.default_rng(2)
    X = _rank_k(rng, (60, 8), 3) + rng.standard_normal(8) * 3
    for center in (True, False):
        pdt.manual_seed(2)
        U, S, V = pdt.pca_lowrank(pdt.tensor(X, device=device), q=5, center=center)
        Y = X - X.mean(axis=0) if center else X
        U, S, V = (x.cpu().numpy() for x in (U, S, V))
        _, s_np, vt_np = np.linalg.svd(Y, full_matrices=False)
        k = 3 if center else 4  # centred: rank 3; not: the mean adds one
        np.testing.assert_allclose(S[:k], s_np[:k], rtol=1e-10)
        np.testing.assert_allclose(np.abs(V[:, :k].T @ vt_np[:k].T), np.eye(k), atol=1e-8)
        np.testing.assert_allclose((U * S) @ V.T, Y, atol=1e-9)
    # the default q: min(6, m, n)
    assert [x.shape for x in pdt.pca_lowrank(pdt.tensor(X[:4, :5], device=device))] == [
        (4, 4), (4,), (5, 4)]


def test_one_seed_one_result_and_niter_zero(device):
    A = pdt.tensor(np.random.default_rng(3).standard_normal((20, 9)), device=device)
    pdt.manual_seed(7)
    first = pdt.svd_lowrank(A, q=3, niter=0)
    pdt.manual_seed(7)
    again = pdt.svd_lowrank(A, q=3, niter=0)
    assert all(pdt.equal(a, b) for a, b in zip(first, again))
    # q above min(m, n) gives min(m, n) triplets; q = 0 none
    assert [x.shape for x in pdt.svd_lowrank(A, q=12)] == [(20, 9), (9,), (9, 9)]
    assert [x.shape for x in pdt.svd_lowrank(A, q=0)] == [(20, 0), (0,), (9, 0)]


def test_bad_inputs(device):
    A = pdt.ones(5, 4, dtype=pdt.float64, device=device)
    with pytest.raises(TypeError, match=r"svd_lowrank\(\): argument 'A' must be a Tensor"):
        pdt.svd_lowrank([[1.0]])
    with pytest.raises(ValueError, match=r"at least 2 dimensions .* shape \(3,\)"):
        pdt.svd_lowrank(A[0, :3])
    with pytest.raises(pdt.DTypeError, match=r"expected a floating-point A, got .*int64"):
        pdt.pca_lowrank(A.long())
    with pytest.raises(ValueError, match=r"q\(=-1\) must be a non-negative integer"):
        pdt.svd_lowrank(A, q=-1)
    with pytest.raises(TypeError, match=r"q must be an int, got float"):
        pdt.svd_lowrank(A, q=2.5)
    with pytest.raises(ValueError, match=r"niter\(=-1\) must be non-negative integer"):
        pdt.svd_lowrank(A, niter=-1)
    with pytest.raises(pdt.DTypeError, match=r"M must have A's dtype .*float64, got .*float32"):
        pdt.svd_lowrank(A, q=2, M=pdt.ones(4, device=device))
    with pytest.raises(ValueError, match=r"q\(=5\) must be non-negative integer and not "
                       r"greater than min\(m, n\)=4"):
        pdt.pca_lowrank(A, q=5)
    with pytest.raises(ValueError, match=r"niter\(=-2\) must be non-negative integer"):
        pdt.pca_lowrank(A, niter=-2)
