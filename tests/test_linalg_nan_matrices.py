"""A matrix holding a NaN inverts and solves to all NaN (linalg.inv, inv_ex, solve,
solve_ex on both sides, pydevtensor.inverse), as PyTorch's LAPACK gives it (the getrf
here skips a NaN pivot, which left rows of the result finite), and its slogdet's sign is
0 as PyTorch's; in a batch only that matrix: the others against NumPy in float64, on
every device."""
import math

import numpy as np
import pytest

import pydevtensor as pdt

NAN = math.nan
# NaN as the first pivot, under it, last, inside a 3 x 3
NAN_MATRICES = [[[NAN, 1.0], [2.0, 3.0]], [[1.0, 2.0], [NAN, 3.0]], [[1.0, 2.0], [3.0, NAN]],
                [[NAN, 1.0], [1.0, 3.0]]]
NAN3 = [[1.0, 2.0, 0.0], [0.0, NAN, 1.0], [1.0, 0.0, 2.0]]


def _t(a, device):
    return pdt.tensor(np.asarray(a, dtype=np.float64), dtype=pdt.float64, device=device)


def _np(t):
    return t.detach().cpu().numpy()


def _results(A, device):
    """Each op's result on A (..., n, n), as NumPy arrays, by name."""
    n = A.shape[-1]
    b = _t(np.arange(1.0, n + 1), device)
    B = _t(np.arange(1.0, 2 * n + 1).reshape(2, n), device)
    L = pdt.linalg
    return {"inv": _np(L.inv(A)), "inv_ex": _np(L.inv_ex(A).inverse),
            "inverse": _np(pdt.inverse(A)), "solve": _np(L.solve(A, b)),
            "solve_ex": _np(L.solve_ex(A, b).result),
            "solve_right": _np(L.solve(A, B, left=False)),
            "solve_matrix": _np(L.solve(A, B.mT))}


def _numpy_results(a):
    n = a.shape[-1]
    b, B = np.arange(1.0, n + 1), np.arange(1.0, 2 * n + 1).reshape(2, n)
    inv = np.linalg.inv(a)
    return {"inv": inv, "inv_ex": inv, "inverse": inv, "solve": inv @ b,
            "solve_ex": inv @ b, "solve_right": B @ inv, "solve_matrix": inv @ B.T}


@pytest.mark.parametrize("a", NAN_MATRICES + [NAN3])
def test_single_nan_matrix_gives_all_nan(device, a):
    A = _t(a, device)
    for name, got in _results(A, device).items():
        assert np.isnan(got).all(), (name, got)
    assert pdt.linalg.inv_ex(A).info.item() == 0
    assert math.isnan(pdt.linalg.det(A).item())
    sign, logabs = pdt.linalg.slogdet(A)
    assert sign.item() == 0 and math.isnan(logabs.item())


def test_batch_with_one_nan_matrix(device):
    """(2, 3) matrices of 3 x 3, one with a NaN: that one all NaN, the others as NumPy's
    float64 (rtol 1e-10), their slogdet and det too."""
    rng = np.random.default_rng(3)
    a = rng.normal(size=(2, 3, 3, 3)) + 3 * np.eye(3)
    a[1, 0] = NAN3
    A = _t(a, device)
    ok = np.ones((2, 3), dtype=bool)
    ok[1, 0] = False
    want = _numpy_results(np.where(ok[..., None, None], a, np.eye(3)))
    for name, got in _results(A, device).items():
        assert np.isnan(got[1, 0]).all(), name
        assert not np.isnan(got[ok]).any(), name
        np.testing.assert_allclose(got[ok], want[name][ok], rtol=1e-10, atol=1e-13,
                                   err_msg=name)
    sign, logabs = pdt.linalg.slogdet(A)
    s, la = np.linalg.slogdet(a[ok])
    np.testing.assert_array_equal(_np(sign)[ok], s)
    np.testing.assert_allclose(_np(logabs)[ok], la, rtol=1e-10)
    assert _np(sign)[1, 0] == 0 and np.isnan(_np(logabs)[1, 0])
    det = _np(pdt.linalg.det(A))
    np.testing.assert_allclose(det[ok], np.linalg.det(a[ok]), rtol=1e-10)
    assert np.isnan(det[1, 0])


def test_batch_broadcast_against_b(device):
    """A (2, 2, 2), one with a NaN, against B of batch (3, 1): the NaN matrix's
    solutions are all NaN for every B, the other's as NumPy's."""
    a = np.array([[[2.0, 1.0], [1.0, 3.0]], [[NAN, 1.0], [2.0, 3.0]]])
    bs = np.arange(1.0, 7.0).reshape(3, 1, 2, 1)
    got = _np(pdt.linalg.solve(_t(a, device), _t(bs, device)))
    assert got.shape == (3, 2, 2, 1) and np.isnan(got[:, 1]).all()
    np.testing.assert_allclose(got[:, 0], np.linalg.solve(a[0], bs[:, 0]), rtol=1e-10)


def test_infinite_entries_keep_their_values(device):
    """inf is not NaN: an infinite entry eliminates as in PyTorch (finite results, 0s)."""
    A = _t([[[math.inf, 1.0], [2.0, 3.0]], [[1.0, math.inf], [2.0, 3.0]]], device)
    np.testing.assert_allclose(_np(pdt.linalg.inv(A)), [[[0, 0], [0, 1 / 3]],
                                                        [[0, 0.5], [0, 0]]], atol=0)


def test_logdet_gradient_of_a_singular_matrix_in_a_batch(device):
    """slogdet's and logdet's backward through a batch holding a singular matrix: no
    error (it raised LinAlgError, failing the whole training step), the singular one's
    gradient not finite (its inverse does not exist; PyTorch's holds infinities too),
    the others inv(A).T as NumPy's (rtol 1e-10)."""
    a = np.array([[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]],
                  [[2.0, 0.5, 0.0], [0.0, 3.0, 0.0], [1.0, 0.0, 1.0]]])
    for f in (lambda A: pdt.linalg.slogdet(A).logabsdet, pdt.logdet):
        A = _t(a, device).requires_grad_()
        f(A).sum().backward()
        g = _np(A.grad)
        assert not np.isfinite(g[0]).all()
        np.testing.assert_allclose(g[1], np.linalg.inv(a[1]).T, rtol=1e-10)


def test_solve_ex_info_has_as_batch_shape(device):
    """solve_ex's info describes A's factorization: A's batch shape (3,) against B of batch
    (2, 1) gives info (3,), as PyTorch's (it had the broadcast shape (2, 3)); its values
    are the LU's (the singular matrix's zero pivot, 1-based), X as NumPy's elsewhere."""
    a = np.stack([np.eye(2) * 2, [[1.0, 2.0], [2.0, 4.0]], [[3.0, 1.0], [1.0, 2.0]]])
    bs = np.arange(1.0, 9.0).reshape(2, 1, 2, 2)
    r = pdt.linalg.solve_ex(_t(a, device), _t(bs, device))
    assert tuple(r.result.shape) == (2, 3, 2, 2) and tuple(r.info.shape) == (3,)
    np.testing.assert_array_equal(_np(r.info), [0, 2, 0])
    for k in (0, 2):
        np.testing.assert_allclose(_np(r.result)[:, k], np.linalg.solve(a[k], bs[:, 0]),
                                   rtol=1e-12)
    one = pdt.linalg.solve_ex(_t(a[1:2], device), _t(bs, device), left=False)
    assert tuple(one.info.shape) == (1,) and _np(one.info).tolist() == [2]
    assert pdt.linalg.solve_ex(_t(a[0], device), _t(bs, device)).info.shape == ()


def test_solve_ex_info_for_an_empty_broadcast_batch(device):
    """B's batch dims may broadcast A's batch to an empty one: X is empty, info has A's
    batch shape and is all 0 (no factorization failed), as PyTorch's (cutting the empty
    broadcast info to A's batch raised 'index 0 is out of bounds')."""
    eye = np.eye(3)
    for a_shape, b_shape, info_shape in (((3, 3), (0, 3, 1), ()),
                                         ((2, 3, 3), (0, 1, 3, 1), (2,)),
                                         ((2, 1, 3, 3), (2, 0, 3, 1), (2, 1))):
        a = _t(np.broadcast_to(eye, a_shape).copy(), device)
        b = _t(np.ones(b_shape), device)
        for left in (True, False):
            r = pdt.linalg.solve_ex(a, b if left else b.mT, left=left)
            want = b_shape if left else b_shape[:-2] + b_shape[:-3:-1]
            assert tuple(r.result.shape) == tuple(np.broadcast_shapes(a_shape[:-2],
                                                                      b_shape[:-2])) + want[-2:]
            assert tuple(r.info.shape) == info_shape and r.info.dtype == pdt.int32
            assert (_np(r.info) == 0).all()

