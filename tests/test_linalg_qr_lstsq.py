"""linalg.qr (pydevtensor/_linalg_decomp.py) and linalg.lstsq (_linalg_lstsq.py) on
every device, against NumPy float64 (np.linalg.qr: the same Householder signs as
LAPACK's, so Q and R are compared directly; np.linalg.lstsq) and torch where
importable (lstsq's four outputs and their shapes for every driver); gradients
against central differences (wide and empty matrices too, as PyTorch's).  Tolerances: float64 1e-10 relative and absolute
(random matrices of size <= 7), float32 1e-4."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from test_gradcheck import gradcheck
from test_linalg_decomp import DTYPES, TOL, _np, _t


def _is_cuda(device):
    return pdt.device(device).type == "cuda"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 2), (3, 0), (0, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_matches_numpy(device, dtype, shape, mode):
    a = np.random.default_rng(sum(shape)).standard_normal(shape)
    Q, R = pdt.linalg.qr(_t(a, device, dtype), mode)
    assert R.device == device and R.dtype == DTYPES[dtype]
    if mode == "r":
        Rn = np.linalg.qr(a, "r")
        assert tuple(Q.shape) == (0,)
    else:
        Qn, Rn = np.linalg.qr(a, mode)
        assert tuple(Q.shape) == Qn.shape
        np.testing.assert_allclose(_np(Q), Qn, **TOL[dtype])
    assert tuple(R.shape) == Rn.shape
    np.testing.assert_allclose(_np(R), Rn, **TOL[dtype])


def test_qr_matches_torch(device):
    torch = torch_or_skip()
    a = np.random.default_rng(1).standard_normal((2, 5, 3))
    for mode in ("reduced", "complete"):
        Q, R = pdt.linalg.qr(_t(a, device), mode=mode)
        Qt, Rt = torch.linalg.qr(torch.tensor(a), mode=mode)
        np.testing.assert_allclose(_np(Q), Qt.numpy(), **TOL["float64"])
        np.testing.assert_allclose(_np(R), Rt.numpy(), **TOL["float64"])


def test_qr_gradients(device):
    rng = np.random.default_rng(2)
    for shape in [(5, 3), (4, 4), (2, 4, 2)]:
        a = rng.standard_normal(shape)
        gradcheck(lambda x: pdt.cat([t.reshape(-1) for t in pdt.linalg.qr(x)]), [a], device)
        gradcheck(lambda x: pdt.linalg.qr(x).R, [a], device)
    x = _t(rng.standard_normal((3, 3)), device).requires_grad_()
    pdt.linalg.qr(x, mode="complete").Q.sum().backward()  # m == n: as reduced
    with pytest.raises(NotImplementedError, match="mode='r'"):
        pdt.linalg.qr(x, mode="r").R.sum().backward()
    with pytest.raises(RuntimeError, match=r"not differentiable when mode='complete' and "
                       r"nrows > ncols \(a 3 x 2 matrix\)"):
        pdt.linalg.qr(_t(rng.standard_normal((3, 2)), device).requires_grad_(),
                      mode="complete").Q.sum().backward()


@pytest.mark.parametrize("shape", [(2, 3), (3, 5), (2, 2, 4), (1, 4)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_gradients_of_wide_matrices(device, shape, mode):
    # m < n (PyTorch's rule): A = [X | Y] with X = Q U square, Y = Q V; both modes alike
    a = np.random.default_rng(sum(shape)).standard_normal(shape)
    gradcheck(lambda x: pdt.cat([t.reshape(-1) for t in pdt.linalg.qr(x, mode)]), [a], device)
    gradcheck(lambda x: pdt.linalg.qr(x, mode).Q, [a], device)
    gradcheck(lambda x: pdt.linalg.qr(x, mode).R, [a], device)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (2, 0, 3)])
def test_qr_gradient_of_an_empty_matrix_is_empty(device, shape):
    x = _t(np.zeros(shape), device).requires_grad_()
    Q, R = pdt.linalg.qr(x)
    (Q.sum() + R.sum()).backward()
    assert tuple(x.grad.shape) == shape and x.grad.device == device


def test_qr_gradient_matches_torch(device):
    torch = torch_or_skip()
    a = np.random.default_rng(3).standard_normal((5, 3))
    x = _t(a, device).requires_grad_()
    Q, R = pdt.linalg.qr(x)
    ((Q ** 3).sum() + (R ** 2).sum()).backward()
    xt = torch.tensor(a, requires_grad=True)
    Qt, Rt = torch.linalg.qr(xt)
    ((Qt ** 3).sum() + (Rt ** 2).sum()).backward()
    np.testing.assert_allclose(_np(x.grad), xt.grad.numpy(), **TOL["float64"])


# ---- lstsq ----

@pytest.mark.parametrize("ashape,bshape", [((6, 3), (6, 2)), ((4, 4), (4, 1)),
                                           ((2, 7, 3), (1, 7, 2)), ((2, 6, 3), (2, 6))])
def test_lstsq_gels_every_device(device, ashape, bshape):
    rng = np.random.default_rng(len(ashape) + len(bshape))
    a, b = rng.standard_normal(ashape), rng.standard_normal(bshape)
    r = pdt.linalg.lstsq(_t(a, device), _t(b, device), driver="gels" if not _is_cuda(device)
                         else None)
    vector = len(bshape) == len(ashape) - 1
    bm = b[..., None] if vector else b
    ref = np.linalg.pinv(a) @ bm
    np.testing.assert_allclose(_np(r.solution), ref[..., 0] if vector else ref, **TOL["float64"])
    if ashape[-2] > ashape[-1]:
        res = ((a @ ref - bm) ** 2).sum(-2)
        np.testing.assert_allclose(_np(r.residuals), res, **TOL["float64"])
    assert tuple(r.rank.shape) == (0,) and tuple(r.singular_values.shape) == (0,)


def test_lstsq_cpu_drivers():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((6, 2)) @ rng.standard_normal((2, 4))  # rank 2
    b = rng.standard_normal((6, 3))
    want, _, rank, sv = np.linalg.lstsq(a, b, rcond=None)
    for driver in ("gelsy", "gelsd", "gelss", None):
        r = pdt.linalg.lstsq(_t(a, "cpu"), _t(b, "cpu"), driver=driver)
        np.testing.assert_allclose(_np(r.solution), want, **TOL["float64"])
        assert r.rank.item() == rank == 2 and r.rank.dtype == pdt.int64
        assert tuple(r.residuals.shape) == (0,)  # rank-deficient: no residuals
        if driver in ("gelsd", "gelss"):
            np.testing.assert_allclose(_np(r.singular_values), sv, **TOL["float64"])
    wide = rng.standard_normal((3, 5))
    r = pdt.linalg.lstsq(_t(wide, "cpu"), _t(b[:3], "cpu"))
    np.testing.assert_allclose(_np(r.solution), np.linalg.pinv(wide) @ b[:3], **TOL["float64"])
    r = pdt.linalg.lstsq(_t(np.diag([1.0, 1e-3]), "cpu"), _t([[1.0], [1.0]], "cpu"), rcond=1e-2)
    assert r.rank.item() == 1
    np.testing.assert_allclose(_np(r.solution), [[1.0], [0.0]], **TOL["float64"])


def test_lstsq_matches_torch():
    torch = torch_or_skip()
    rng = np.random.default_rng(5)
    for ashape, bshape in [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 6, 3), (2, 6)),
                           ((6, 3), (6,)), ((2, 5, 3), (1, 5, 2))]:
        a, b = rng.standard_normal(ashape), rng.standard_normal(bshape)
        for driver in ("gels", "gelsy", "gelsd", "gelss"):
            got = pdt.linalg.lstsq(_t(a, "cpu"), _t(b, "cpu"), driver=driver)
            ref = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
            for g, r in zip(got, ref):
                assert tuple(g.shape) == tuple(r.shape), (ashape, bshape, driver)
                if r.numel():
                    np.testing.assert_allclose(_np(g), r.numpy().astype(np.float64),
                                               **TOL["float64"])


def test_lstsq_gradient(device):
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    gradcheck(lambda x, y: pdt.linalg.lstsq(x, y, driver=None if _is_cuda(device) else "gels")
              .solution, [a, b], device)
    if not _is_cuda(device):
        gradcheck(lambda x, y: pdt.linalg.lstsq(x, y).solution, [a, b], device)


def test_lstsq_errors(device):
    A, B = pdt.zeros(4, 3, device=device), pdt.zeros(4, 2, device=device)
    with pytest.raises(RuntimeError, match="driver"):
        pdt.linalg.lstsq(A, B, driver="gesv")
    with pytest.raises(RuntimeError, match=r"input.size\(-2\) should match other.size\(-2\)"):
        pdt.linalg.lstsq(A, pdt.zeros(3, 2, device=device))
    with pytest.raises(RuntimeError, match="same dtype"):
        pdt.linalg.lstsq(A, B.double())
    if _is_cuda(device):
        with pytest.raises(RuntimeError, match="other than `gels` is not supported on CUDA"):
            pdt.linalg.lstsq(A, B, driver="gelsd")
        with pytest.raises(RuntimeError, match="only overdetermined systems"):
            pdt.linalg.lstsq(A.mT, pdt.zeros(3, 2, device=device))
        with pytest.raises(RuntimeError, match="same device"):
            pdt.linalg.lstsq(A, B.cpu())


def test_lstsq_gels_of_zero_and_rank_deficient_matrices(device):
    """gels of an all-zero A gives X = 0, as LAPACK's gels (its scaling step) and so
    PyTorch's (this raised an LU's 'diagonal element is zero'), also beside regular
    matrices of a batch; a nonzero A not of full rank raises PyTorch's LinAlgError,
    'does not have full rank (error code: k)', naming the batch element."""
    rng = np.random.default_rng(12)
    regular = rng.standard_normal((3, 2))
    b = rng.standard_normal((3, 1))
    cases = [np.stack([regular, np.zeros((3, 2))]), np.stack([regular.T, np.zeros((2, 3))])]
    if device.type == "cuda":  # only overdetermined systems there, as PyTorch's
        cases = cases[:1]
    for a in cases:
        bb = b if a.shape[-2] == 3 else b[:2]
        X = pdt.linalg.lstsq(_t(a, device), _t(bb, device), driver="gels").solution
        x = _np(X)
        assert (x[1] == 0).all()
        np.testing.assert_allclose(x[0], np.linalg.lstsq(a[0], bb, rcond=None)[0], rtol=1e-10)
    deficient = np.stack([regular, [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]]])
    with pytest.raises(pdt.linalg.LinAlgError, match=r"linalg\.lstsq: \(Batch element 1\): The "
                       r"least squares solution could not be computed because the input "
                       r"matrix does not have full rank \(error code: 2\)"):
        pdt.linalg.lstsq(_t(deficient, device), _t(b, device), driver="gels")


def test_lstsq_takes_pytorchs_vector_rule(device):
    """B is a batch of vectors only when it is 1-d or has A's shape without the last dim
    (PyTorch's rule, as solve's): A (3, 3, 2) with B (3, 1) is one 3 x 1 matrix
    broadcast over A's batch (it was refused as vectors of length 1); B (3, 3) is
    vectors.  Against NumPy's lstsq of each matrix."""
    rng = np.random.default_rng(13)
    a = rng.standard_normal((3, 3, 2))
    for b, vector in ((rng.standard_normal((3, 1)), False), (rng.standard_normal((3, 3)), True)):
        # gels only on CUDA, as PyTorch's
        for driver in ("gels",) if device.type == "cuda" else ("gels", "gelsd"):
            X = _np(pdt.linalg.lstsq(_t(a, device), _t(b, device), driver=driver).solution)
            assert X.shape == ((3, 2) if vector else (3, 2, 1))
            for k in range(3):
                want = np.linalg.lstsq(a[k], b[k] if vector else b, rcond=None)[0]
                np.testing.assert_allclose(X[k], want, rtol=1e-10, atol=1e-12)
