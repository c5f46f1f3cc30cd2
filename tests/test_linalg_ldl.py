"""linalg.ldl_factor, ldl_factor_ex and ldl_solve: the factors rebuild A by LAPACK's
definition of sytrf's output (A = L D L^T, L = P(1) L(1) P(2) L(2) ...), ldl_solve
solves A X = B, against NumPy in float64, on every device."""
import numpy as np
import pytest

import pydevtensor as pdt


def _rebuild(LD, piv):
    """A from LD and pivots by LAPACK's description of dsytrf's 'L' output."""
    n = LD.shape[0]
    L, D, k = np.eye(n), np.zeros((n, n)), 0
    while k < n:
        s = 1 if piv[k] > 0 else 2
        if s == 2:
            assert piv[k + 1] == piv[k]
        kk, kp = k + s - 1, abs(piv[k]) - 1
        P = np.eye(n)
        P[[kk, kp]] = P[[kp, kk]]
        Lk = np.eye(n)
        Lk[k + s:, k:k + s] = LD[k + s:, k:k + s]
        L = L @ P @ Lk
        block = np.tril(LD[k:k + s, k:k + s])
        D[k:k + s, k:k + s] = block + np.tril(block, -1).T
        k += s
    return L @ D @ L.T


def _symmetric(rng, n, kind):
    A = rng.standard_normal((n, n))
    A = A + A.T
    if kind == "zero-diagonal":  # 2x2 pivots
        np.fill_diagonal(A, 0)
    elif kind == "small-diagonal":
        A[np.diag_indices(n)] *= 1e-3
    return A


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 20])
@pytest.mark.parametrize("kind", ["random", "zero-diagonal", "small-diagonal"])
def test_ldl_factor_rebuilds_a_and_ldl_solve_solves(device, n, kind):
    if n == 1 and kind == "zero-diagonal":
        return  # singular
    rng = np.random.default_rng(n)
    A = _symmetric(rng, n, kind)
    LD, piv = pdt.linalg.ldl_factor(pdt.tensor(A, device=device))
    assert LD.dtype == pdt.float64 and piv.dtype == pdt.int32 and LD.device == piv.device
    ld, p = LD.cpu().numpy(), piv.cpu().numpy()
    np.testing.assert_array_equal(np.triu(ld, 1), 0)
    assert np.all((np.abs(p) >= 1) & (np.abs(p) <= n))
    np.testing.assert_allclose(_rebuild(ld, p), A, atol=1e-12 * n * np.abs(A).max())
    if kind == "zero-diagonal":
        assert (p < 0).any()  # Bunch-Kaufman must take 2x2 blocks here
    B = rng.standard_normal((n, 3))
    X = pdt.linalg.ldl_solve(LD, piv, pdt.tensor(B, device=device)).cpu().numpy()
    np.testing.assert_allclose(A @ X, B, atol=1e-9 * np.linalg.cond(A))


def test_known_factorization_with_a_2x2_block(device):
    # the values LAPACK's dsytrf gives
    A = pdt.tensor([[0., 1., 2.], [1., 0., 3.], [2., 3., 0.]], dtype=pdt.float64,
                   device=device)
    LD, piv, info = pdt.linalg.ldl_factor_ex(A)
    np.testing.assert_array_equal(LD.cpu().numpy(), [[0, 0, 0], [2, 0, 0], [1.5, 0.5, -3]])
    np.testing.assert_array_equal(piv.cpu().numpy(), [-3, -3, 3])
    assert int(info) == 0
    X = pdt.linalg.ldl_solve(LD, piv, pdt.tensor([[4.], [4.], [8.]], dtype=pdt.float64,
                                                 device=device))
    np.testing.assert_allclose(X.cpu().numpy(), [[1.], [2.], [1.]], rtol=1e-14)


def test_only_the_lower_triangle_is_read_and_float32(device):
    rng = np.random.default_rng(7)
    A = _symmetric(rng, 6, "random").astype(np.float32)
    junk = np.tril(A) + np.triu(np.full((6, 6), 100.0, np.float32), 1)
    LD, piv = pdt.linalg.ldl_factor(pdt.tensor(A, device=device))
    LD2, piv2 = pdt.linalg.ldl_factor(pdt.tensor(junk, device=device))
    assert pdt.equal(LD, LD2) and pdt.equal(piv, piv2) and LD.dtype == pdt.float32
    np.testing.assert_allclose(_rebuild(LD.cpu().numpy().astype(np.float64), piv.cpu().numpy()),
                               A, atol=1e-5)


def test_batched_and_broadcast_solve(device):
    rng = np.random.default_rng(3)
    A = np.stack([_symmetric(rng, 4, kind) for kind in ("random", "zero-diagonal")])
    LD, piv = pdt.linalg.ldl_factor(pdt.tensor(A, device=device))
    assert tuple(LD.shape) == (2, 4, 4) and tuple(piv.shape) == (2, 4)
    for b in range(2):
        one, p = pdt.linalg.ldl_factor(pdt.tensor(A[b], device=device))
        assert pdt.equal(LD[b], one) and pdt.equal(piv[b], p)
    B = rng.standard_normal((4, 2))  # broadcast against the batch of 2
    X = pdt.linalg.ldl_solve(LD, piv, pdt.tensor(B, device=device)).cpu().numpy()
    assert X.shape == (2, 4, 2)
    np.testing.assert_allclose(A @ X, np.broadcast_to(B, (2, 4, 2)), atol=1e-10)
    out = pdt.empty(2, 4, 2, dtype=pdt.float64, device=device)
    assert pdt.linalg.ldl_solve(LD, piv.long(), pdt.tensor(B, device=device), out=out) is out
    np.testing.assert_allclose(out.cpu().numpy(), X, rtol=1e-15)
    empty = pdt.linalg.ldl_factor(pdt.empty(3, 0, 0, device=device))
    assert tuple(empty.LD.shape) == (3, 0, 0) and tuple(empty.pivots.shape) == (3, 0)


def test_singular_matrices_report_info(device):
    A = pdt.tensor([[[1., 2.], [2., 4.]], [[2., 1.], [1., 2.]]], device=device)
    LD, piv, info = pdt.linalg.ldl_factor_ex(A)
    np.testing.assert_array_equal(info.cpu().numpy(), [2, 0])
    # the pivoting takes the 4 first: D = diag(4, 0), L's entry 2 / 4
    np.testing.assert_array_equal(LD[0].cpu().numpy(), [[4, 0], [0.5, 0]])
    np.testing.assert_array_equal(piv[0].cpu().numpy(), [2, 2])
    with pytest.raises(pdt.linalg.LinAlgError, match=r"\(Batch element 0\): D\[1, 1\]"):
        pdt.linalg.ldl_factor_ex(A, check_errors=True)
    with pytest.raises(pdt.linalg.LinAlgError, match=r"ldl_factor: D\[0, 0\] .* singular"):
        pdt.linalg.ldl_factor(pdt.zeros(2, 2, device=device))


def test_errors(device):
    A = pdt.eye(3, device=device)
    with pytest.raises(RuntimeError, match="square matrices, but they are 2 by 3"):
        pdt.linalg.ldl_factor(pdt.ones(2, 3, device=device))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        pdt.linalg.ldl_factor(pdt.ones(3, device=device))
    LD, piv = pdt.linalg.ldl_factor(A)
    with pytest.raises(RuntimeError, match=r"pivots pydevtensor.float32 of shape \[3\]"):
        pdt.linalg.ldl_solve(LD, piv.float(), pdt.ones(3, 1, device=device))
    with pytest.raises(RuntimeError, match=r"pivots pydevtensor.int32 of shape \[2\]"):
        pdt.linalg.ldl_solve(LD, piv[:2], pdt.ones(3, 1, device=device))
    with pytest.raises(RuntimeError, match=r"B has shape \(3,\)"):
        pdt.linalg.ldl_solve(LD, piv, pdt.ones(3, device=device))
    bad = pdt.tensor([-1, 2, 3], dtype=pdt.int32, device=device)  # a lone negative pivot
    with pytest.raises(RuntimeError, match=r"not an LDL factorization's .*pivots\[0\] = -1"):
        pdt.linalg.ldl_solve(LD, bad, pdt.ones(3, 1, device=device))
    with pytest.raises(RuntimeError, match="derivative of linalg.ldl_factor is not"):
        pdt.linalg.ldl_factor(A.clone().requires_grad_())
    with pytest.raises(RuntimeError, match="derivative of linalg.ldl_solve is not"):
        pdt.linalg.ldl_solve(LD, piv, pdt.ones(3, 1, device=device, requires_grad=True))
    with pdt.no_grad():
        pdt.linalg.ldl_factor(A.clone().requires_grad_())
