"""PyTorch's native keywords for linalg's first arguments: its schemas name them
``input`` where its documentation writes ``A`` or ``x`` (linalg.cholesky(input=A)), and
cholesky_solve's ``input``/``input2`` for B/L.  Both names work here (the documented
one as before); matrix_rank's and pinv's older positional tolerance (tol, rcond).
Against NumPy float64 and the positional calls."""
import numpy as np
import pytest

import pydevtensor as pdt

L = pdt.linalg
SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])

CALLS = [  # (function, own name, extra keywords)
    (L.cholesky, "A", {}), (L.cholesky_ex, "A", {}), (L.cond, "A", {}), (L.norm, "A", {}),
    (L.matrix_norm, "A", {}), (L.eigh, "A", {}), (L.eigvalsh, "A", {}), (L.pinv, "A", {}),
    (L.matrix_rank, "A", {}), (L.matrix_power, "A", {"n": 3}), (pdt.matrix_power, "A", {"n": 2}),
    (L.vector_norm, "x", {}), (L.solve_triangular, "A", {"B": pdt.eye(3, dtype=pdt.float64),
                                                        "upper": True}),
]


def _values(out):
    return [t.cpu().numpy() for t in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("fn,own,extra", CALLS, ids=lambda v: getattr(v, "__name__", None))
def test_native_input_keyword(device, fn, own, extra):
    A = pdt.tensor(SPD, device=device)
    extra = {k: (v.to(device) if isinstance(v, pdt.Tensor) else v) for k, v in extra.items()}
    want = _values(fn(A, **extra))
    for kw in ("input", own):
        for got, ref in zip(_values(fn(**{kw: A}, **extra)), want):
            np.testing.assert_array_equal(got, ref)
    with pytest.raises(TypeError, match=f"multiple values for argument '{own}'"):
        fn(A, input=A, **extra)
    with pytest.raises(TypeError, match=f"multiple values for argument '{own}'"):
        fn(input=A, **{own: A}, **extra)


def test_native_keyword_records_the_gradient(device):
    A = pdt.tensor(SPD, device=device, requires_grad=True)
    L.cholesky(input=A).sum().backward()
    by_keyword = A.grad.cpu().numpy()
    A.grad = None
    L.cholesky(A).sum().backward()
    np.testing.assert_array_equal(by_keyword, A.grad.cpu().numpy())


def test_cholesky_solve_native_keywords(device):
    A, B = pdt.tensor(SPD, device=device), pdt.tensor(np.eye(3)[:, :2], device=device)
    F = L.cholesky(A)
    want = np.linalg.solve(SPD, np.eye(3)[:, :2])
    for got in (pdt.cholesky_solve(input=B, input2=F), pdt.cholesky_solve(B, input2=F),
                pdt.cholesky_solve(B=B, L=F), pdt.cholesky_solve(B, F, upper=False)):
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12, atol=1e-14)
    with pytest.raises(TypeError, match="multiple values for argument 'L'"):
        pdt.cholesky_solve(B, F, input2=F)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'B'"):
        pdt.cholesky_solve(input2=F)


DIAG = np.diag([10.0, 1.0, 1e-3])  # rcond/rtol 0.5 drops 1 (0.5 * 10); as atol it would not


def test_matrix_rank_positional_tol_is_absolute(device):
    A = pdt.tensor(DIAG, device=device)
    assert L.matrix_rank(A, 0.5).item() == np.linalg.matrix_rank(DIAG, tol=0.5) == 2
    assert L.matrix_rank(A, 0.5, True).item() == 2  # hermitian positional
    assert L.matrix_rank(A, pdt.tensor(2.0, device=device)).item() == 1
    assert L.matrix_rank(A, None, True).item() == 3
    with pytest.raises(RuntimeError, match="tol cannot be given with atol or rtol"):
        L.matrix_rank(A, 0.5, atol=0.1)


def test_pinv_rcond_is_relative(device):
    A = pdt.tensor(DIAG, device=device)
    want = np.linalg.pinv(DIAG, rcond=0.5)  # NumPy's rcond: relative to the largest
    assert want[1, 1] == 0
    for got in (L.pinv(A, 0.5), L.pinv(A, rcond=0.5), L.pinv(A, 0.5, True),
                L.pinv(A, pdt.tensor(0.5, device=device)), L.pinv(A, rtol=0.5)):
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(L.pinv(A, atol=0.5).cpu().numpy(), np.diag([0.1, 1.0, 0.0]),
                               rtol=1e-12)
    for kw in ({"atol": 0.1}, {"rtol": 0.1}):
        with pytest.raises(RuntimeError, match="rcond cannot be given with atol or rtol"):
            L.pinv(A, 0.5, **kw)


def test_pinv_rcond_gradient(device):
    # the recorded pseudo-inverse behind rcond: the same gradient as with rtol
    a = np.array([[2.0, 1.0], [0.5, 3.0], [1.0, 0.0]])
    grads = []
    for kw in ({"rcond": 1e-3}, {"rtol": 1e-3}):
        A = pdt.tensor(a, device=device, requires_grad=True)
        (L.pinv(A, **kw) ** 2).sum().backward()
        grads.append(A.grad.cpu().numpy())
    np.testing.assert_array_equal(*grads)
    assert np.isfinite(grads[0]).all() and np.abs(grads[0]).sum() > 0
