"""Edges of the LU and Cholesky factorizations behind pydevtensor.linalg (cpu_lapack.c,
cuda_solver.c, cuda_solver.h): what a NaN or infinite input gives, the same on every
device and as torch's CPU linalg gives it; the refusal of sizes past cuSOLVER's 32-bit
API; handle creation on a device whose memory pool holds what was freed.

The contract (Note [non-finite Cholesky pivots] in csrc/cuda/cuda_solver.h):
cholesky raises LinAlgError at the first NaN pivot ("the leading minor of order k is
not positive-definite"), as torch's CPU cholesky (MKL, LAPACK's reference semantics)
does, although OpenBLAS's and cuSOLVER's potrf return info 0 there; an infinite
diagonal is not an error.  LU reports only exactly zero pivots: a NaN matrix solves,
inverts and has a determinant of NaN without an error, as in torch."""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_EMULATED, DEVICES, run_python

NAN, INF = float("nan"), float("inf")
DTYPES = {"float64": pdt.float64, "float32": pdt.float32}

try:
    from pydevtensor._build_config import BUILD_CONFIG
except ImportError:  # pragma: no cover - an uninstalled tree
    BUILD_CONFIG = {}
EMULATED = bool(BUILD_CONFIG.get("cuda_emulated"))


def emulated_only(fn):
    """A test of the emulated device's own behaviour (run with -m cuda)."""
    fn = pytest.mark.skipif(not EMULATED, reason="needs the emulated CUDA build "
                            "(PYDEVTENSOR_CUDA=emulate)")(fn)
    return pytest.mark.cuda(fn)


def _torch():
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is optional
        return None
    return torch


# (matrix, the order of the first leading minor torch's CPU cholesky reports; 0: none)
CHOLESKY_CASES = [
    ([[4.0, 1.0], [1.0, NAN]], 2),          # NaN pivot last
    ([[NAN, 1.0], [1.0, 3.0]], 1),          # NaN pivot first
    ([[4.0, NAN], [NAN, 3.0]], 2),          # NaN off the diagonal reaches the next pivot
    ([[4.0, 1.0, 0.0], [1.0, NAN, 1.0], [0.0, 1.0, 5.0]], 2),
    ([[4.0, 1.0], [1.0, INF]], 0),          # an infinite diagonal is no error
    ([[4.0, 1.0], [1.0, -INF]], 2),         # a negative pivot
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rows,order", CHOLESKY_CASES)
def test_cholesky_non_finite_matches_torch(device, dtype, rows, order):
    A = pdt.tensor(rows, dtype=DTYPES[dtype], device=device)
    L, info = pdt.linalg.cholesky_ex(A)
    if device.type == "cuda" and not CUDA_EMULATED and INF in np.asarray(rows):
        # cuSOLVER's potrf fails at an infinite pivot (an H200, CUDA 13.0), LAPACK's does
        # not (Note [non-finite Cholesky pivots] in csrc/cuda/cuda_solver.h)
        order = 2
    assert info.item() == order, (info.item(), L.cpu().tolist())
    torch = _torch()
    if torch is not None:
        ref = torch.linalg.cholesky_ex(torch.tensor(rows, dtype=getattr(torch, dtype)))
        assert info.item() == ref.info.item()
    if order:
        with pytest.raises(pdt.linalg.LinAlgError, match=rf"linalg\.cholesky: .*not "
                           rf"positive-definite \(the leading minor of order {order} is not "
                           rf"positive-definite\)"):
            pdt.linalg.cholesky(A)
    else:
        got = L.cpu().numpy().astype(np.float64)
        assert got[1, 1] == INF and got[0, 0] == 2.0 and got[1, 0] == 0.5


def test_cholesky_nan_batch_reports_each(device):
    """Each factor of a batch gets its own info; a failure of potrf itself (a negative
    pivot) is kept, not overwritten by the NaN pass."""
    good = [[4.0, 2.0], [2.0, 3.0]]
    batch = [good, [[4.0, 1.0], [1.0, NAN]], [[-1.0, 0.0], [0.0, NAN]], good]
    A = pdt.tensor(batch, dtype=pdt.float64, device=device)
    L, info = pdt.linalg.cholesky_ex(A)
    assert info.cpu().tolist() == [0, 2, 1, 0]
    np.testing.assert_allclose(L[0].cpu().numpy(), np.linalg.cholesky(np.array(good)),
                               rtol=1e-12)
    with pytest.raises(pdt.linalg.LinAlgError, match=r"Batch element 1\): .*order 2"):
        pdt.linalg.cholesky(A)
    U, info_u = pdt.linalg.cholesky_ex(A, upper=True)
    assert info_u.cpu().tolist() == [0, 2, 1, 0]


@pytest.mark.parametrize("where", [0, 150, 299])
def test_cholesky_nan_in_large_factor(device, where):
    """One factor whose diagonal is checked by many GPU threads at once: NaN from
    pivot `where` on (every later pivot is NaN too); the first one is reported."""
    rng = np.random.default_rng(where)
    n = 300
    a = rng.standard_normal((n, n))
    a = a @ a.T + n * np.eye(n)
    a[where, where] = NAN
    A = pdt.tensor(a, dtype=pdt.float64, device=device)
    assert pdt.linalg.cholesky_ex(A).info.item() == where + 1
    torch = _torch()
    if torch is not None:
        assert torch.linalg.cholesky_ex(torch.tensor(a)).info.item() == where + 1


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lu_nan_is_not_singular(device, dtype):
    """torch: a NaN matrix solves, inverts and has a determinant of NaN, info 0."""
    A = pdt.tensor([[1.0, NAN], [NAN, 1.0]], dtype=DTYPES[dtype], device=device)
    b = pdt.ones(2, dtype=DTYPES[dtype], device=device)
    x = pdt.linalg.solve(A, b).cpu().tolist()
    assert all(math.isnan(v) for v in x), x
    inv, info = pdt.linalg.inv_ex(A)
    assert info.item() == 0
    assert np.isnan(inv.cpu().numpy()).all()
    assert math.isnan(pdt.linalg.det(A).item())
    torch = _torch()
    if torch is not None:
        ref = torch.linalg.inv_ex(torch.tensor([[1.0, NAN], [NAN, 1.0]]))
        assert ref.info.item() == 0


def test_lu_zero_column_with_nan_is_singular(device):
    """A column of zeros is a zero pivot whatever NaN sits elsewhere (torch: singular)."""
    A = pdt.tensor([[0.0, 1.0], [0.0, NAN]], dtype=pdt.float64, device=device)
    with pytest.raises(pdt.linalg.LinAlgError, match="singular"):
        pdt.linalg.solve(A, pdt.ones(2, dtype=pdt.float64, device=device))
    assert pdt.linalg.inv_ex(A).info.item() == 1


@pytest.mark.parametrize("rows", [[[NAN, 1.0], [1.0, 1.0]],
                                  [[NAN, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]])
def test_lu_zero_pivot_after_a_nan_one_is_not_singular(device, rows):
    """Note [NaN in a solve]: OpenBLAS leaves the rows under a NaN pivot unscaled, so a
    later pivot can be exactly 0 (it raised "diagonal element 2 is zero"); torch gives
    NaN.  Every raising form gives NaN, and raises for a singular matrix beside it."""
    A = pdt.tensor(rows, dtype=pdt.float64, device=device)
    n = A.shape[-1]
    b = pdt.ones(n, dtype=pdt.float64, device=device)
    for got in (pdt.linalg.inv(A), pdt.inverse(A), pdt.linalg.solve(A, b),
                pdt.linalg.solve(A, b.reshape(1, n), left=False),
                pdt.linalg.solve_ex(A, b, check_errors=True).result,
                pdt.linalg.inv_ex(A, check_errors=True).inverse):
        assert np.isnan(got.cpu().numpy()).all()
    assert pdt.linalg.inv_ex(A, check_errors=True).info.item() == 0
    eye = pdt.eye(n, dtype=pdt.float64, device=device)
    got = pdt.linalg.inv(pdt.stack([A, eye])).cpu().numpy()
    assert np.isnan(got[0]).all()
    np.testing.assert_array_equal(got[1], np.eye(n))
    with pytest.raises(pdt.linalg.LinAlgError, match=r"\(Batch element 1\): The diagonal "
                                                     r"element 1 is zero"):
        pdt.linalg.inv(pdt.stack([A, pdt.zeros(n, n, dtype=pdt.float64, device=device)]))


# ------------------------------------------------------ cuSOLVER's 32-bit sizes

# Device memory of the emulated device is mapped lazily and pdt.empty never writes it,
# so an 8.6 GB operand costs no host memory: the refusal comes before anything reads it.
_REFUSED = """
import pydevtensor as pdt
from pydevtensor import _C
def refused(fn):
    try:
        fn()
    except ValueError as e:
        print(repr(str(e)))
        return
    raise SystemExit("not refused")
"""
_GUARD_CODE = _REFUSED + """
n = 46341  # n * n = 2**31 + 4 elements: past INT32_MAX although n fits an int
a = pdt.empty(n, n, dtype=pdt.float32, device="cuda")
refused(lambda: _C._lu_factor(a, pdt.zeros(n, dtype=pdt.int32, device="cuda"),
                              pdt.zeros((), dtype=pdt.int32, device="cuda")))
refused(lambda: _C._cholesky_factor(a, False, pdt.zeros((), dtype=pdt.int32, device="cuda")))
del a
k = 2**30  # 2 x 2**30 right-hand sides: 2**31 elements
lu = pdt.eye(2, dtype=pdt.float32, device="cuda")
piv = pdt.tensor([1, 2], dtype=pdt.int32, device="cuda")
b = pdt.empty(k, 2, dtype=pdt.float32, device="cuda")
refused(lambda: _C._lu_solve(lu, piv, b))
print("ok")
"""


# eigh, svd and qr take the same guard (Note [cuSOLVER's 32-bit sizes]); their
# operands are made with pdt.empty as above, so nothing is read or written.
_EIG_GUARD_CODE = _REFUSED + """
n = 46341
a = pdt.empty(n, n, dtype=pdt.float32, device="cuda")
refused(lambda: _C._eigh(a, False, True, pdt.empty(n, dtype=pdt.float32, device="cuda"),
                         pdt.zeros((), dtype=pdt.int32, device="cuda")))
del a
m = 2**30  # 2 x 2**30, stored by columns as (2, m): 2**31 elements
a = pdt.empty(2, m, dtype=pdt.float32, device="cuda")
refused(lambda: _C._svd(a, 0, pdt.empty(2, dtype=pdt.float32, device="cuda"), None, None,
                        pdt.zeros((), dtype=pdt.int32, device="cuda")))
tau = pdt.empty(2, dtype=pdt.float32, device="cuda")
refused(lambda: _C._qr_factor(a, tau))
refused(lambda: _C._qr_orgqr(a, tau))
print("ok")
"""


@pytest.mark.parametrize("code,phrases", [
    (_GUARD_CODE, ["lu_factor: each matrix is 46341 x 46341 (2147488281 elements)",
                   "cholesky: each matrix is 46341 x 46341",
                   "lu_solve: each right-hand side is 2 x 1073741824 (2147483648 elements)"]),
    (_EIG_GUARD_CODE, ["eigh: each matrix is 46341 x 46341 (2147488281 elements)",
                       "svd: each matrix is 1073741824 x 2 (2147483648 elements)",
                       "qr_factor: each matrix is 1073741824 x 2",
                       "qr_orgqr: each matrix is 1073741824 x 2"]),
], ids=["lu-cholesky", "eigh-svd-qr"])
@emulated_only
def test_cusolver_refuses_past_32_bits(code, phrases):
    out = " ".join(run_python(code, PYDEVTENSOR_EMULATED_MEMORY_MB="20000"))
    assert out.endswith("ok"), out
    for phrase in phrases:
        assert phrase in out
    assert out.count("32-bit API indexes (on cuda:0)") == len(phrases)


# ------------------------------------------------------ handle creation retry

# A 63 MiB block (64 MiB reserved, in 2 MiB steps), freed, stays reserved in the
# device's pool (Note [pool release threshold] in cuda_backend.c); the first cuSOLVER
# or cuBLAS call then creates its handle, whose cudaMalloc (emulated: 1 MiB, Note
# [emulated handle memory]) finds the 64 MiB device full unless the pool is trimmed
# first.  Before the retry this raised OutOfMemoryError.
_RETRY_CODE = """
import pydevtensor as pdt
x = pdt.empty(63 * 2**20 // 4, dtype=pdt.float32, device="cuda")
del x
pdt.cuda.synchronize()
A = pdt.tensor([[4.0, 2.0], [2.0, 3.0]], dtype=pdt.float64, device="cuda")
L = pdt.linalg.{op}(A)
print(L.cpu().numpy().ravel().round(6).tolist())
"""


@pytest.mark.parametrize("op,ref", [
    ("cholesky", np.linalg.cholesky(np.array([[4.0, 2.0], [2.0, 3.0]]))),
    ("inv", np.linalg.inv(np.array([[4.0, 2.0], [2.0, 3.0]]))),
    ("matmul", None),
])
@emulated_only
def test_handle_created_after_pool_trim(op, ref):
    code = _RETRY_CODE
    if op == "matmul":  # cuBLAS's handle (cuda_gemm.c)
        code = code.replace("pdt.linalg.{op}(A)", "A @ A")
        ref = np.array([[4.0, 2.0], [2.0, 3.0]]) @ np.array([[4.0, 2.0], [2.0, 3.0]])
    else:
        code = code.replace("{op}", op)
    out = run_python(code, PYDEVTENSOR_EMULATED_MEMORY_MB="64")
    got = [float(v.strip("[],")) for v in out]
    np.testing.assert_allclose(got, ref.ravel(), rtol=1e-6)


def test_solve_left_false_refuses_a_b_of_the_wrong_width():
    """X A = B needs B (..., k, n); B (3, 2) with A (2, 3, 3) was taken, its transpose
    read as a batch of vectors, and a (3, 2) result came back."""
    A = pdt.tensor(np.random.default_rng(1).standard_normal((2, 3, 3)))
    for fn in (pdt.linalg.solve, pdt.linalg.solve_ex):
        with pytest.raises(RuntimeError, match=r"XA = B \(3x2 and 3x3"):
            fn(A, pdt.ones(3, 2, dtype=pdt.float64), left=False)
    B = pdt.tensor(np.random.default_rng(2).standard_normal((4, 3)))
    X = pdt.linalg.solve(A, B, left=False)
    assert tuple(X.shape) == (2, 4, 3)
    np.testing.assert_allclose((X @ A).numpy(), np.broadcast_to(B.numpy(), (2, 4, 3)),
                               atol=1e-12)


def test_cholesky_solve_reads_one_triangle_and_broadcasts_b():
    """As LAPACK's potrs: only L's triangle is read (the other held garbage that changed
    the answer), and B is always matrices whose batch dims broadcast (B (3, 3) with L
    (3, 3, 3) gave (3, 3) through solve's vector rule)."""
    rng = np.random.default_rng(4)
    low = np.tril(rng.standard_normal((3, 3, 3))) + 3 * np.eye(3)
    junk = low + np.triu(rng.standard_normal((3, 3, 3)), 1)
    B = rng.standard_normal((3, 3))
    want = np.linalg.solve(low @ np.swapaxes(low, -1, -2), np.broadcast_to(B, (3, 3, 3)))
    got = pdt.cholesky_solve(pdt.tensor(B), pdt.tensor(junk))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)
    up = np.swapaxes(junk, -1, -2)  # upper=True reads the upper triangle only
    got = pdt.cholesky_solve(pdt.tensor(B), pdt.tensor(up), upper=True)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)
    with pytest.raises(RuntimeError, match="Incompatible matrix sizes"):
        pdt.cholesky_solve(pdt.ones(2, 3), pdt.tensor(low[:2]))


@pytest.mark.parametrize("op", ["addmv", "addr", "addbmm"])
def test_integer_products_refuse_a_float_beta_or_alpha(op):
    """As addmm: an integer product stays integer; a float beta gave a float32 result."""
    i = lambda *s: pdt.ones(*s, dtype=pdt.int64)  # noqa: E731
    args = {"addmv": (i(2), i(2, 2), i(2)), "addr": (i(2, 2), i(2), i(2)),
            "addbmm": (i(2, 2), i(3, 2, 2), i(3, 2, 2))}[op]
    fn = getattr(pdt, op)
    for kw in ({"beta": 0.5}, {"alpha": 1.5}):
        with pytest.raises(pdt.DTypeError, match="must be integers"):
            fn(*args, **kw)
    out = fn(*args, beta=2, alpha=3)
    assert out.dtype == pdt.int64
    ref = {"addmv": 2 + 3 * 2, "addr": 2 + 3, "addbmm": 2 + 3 * 6}[op]
    assert (out == ref).all()


def test_eigh_takes_a_lower_case_uplo_and_cond_of_an_empty_matrix_is_zero():
    a = pdt.tensor([[2.0, 100.0], [1.0, 3.0]], dtype=pdt.float64)
    up = np.linalg.eigvalsh(np.array([[2.0, 100.0], [100.0, 3.0]]))
    np.testing.assert_allclose(pdt.linalg.eigvalsh(a, "u").numpy(), up, rtol=1e-12)
    np.testing.assert_allclose(pdt.linalg.eigh(a, UPLO="l")[0].numpy(),
                               np.linalg.eigvalsh(np.array([[2.0, 1.0], [1.0, 3.0]])),
                               rtol=1e-12)
    for shape, p in (((0, 0), None), ((3, 0), None), ((2, 0, 0), "fro"), ((0, 0), 1)):
        out = pdt.linalg.cond(pdt.zeros(*shape), p)
        assert tuple(out.shape) == shape[:-2] and (out == 0).all()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unitriangular", [True, False])
def test_solve_triangular_matches_numpy_and_reads_one_triangle(device, upper, left,
                                                               unitriangular):
    """linalg.solve_triangular against NumPy's solve of the triangle (float64, 1e-12);
    the other triangle, and the diagonal when unitriangular, hold junk that must not be
    read; B (3, 2) broadcasts against A's batch of 2; the gradients against central
    differences."""
    rng = np.random.default_rng(7)
    A = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    T = np.triu(A) if upper else np.tril(A)
    if unitriangular:
        T = T * (1 - np.eye(3)) + np.eye(3)
    B = rng.standard_normal((3, 2)) if left else rng.standard_normal((2, 3))
    Bb = np.broadcast_to(B, (2,) + B.shape)
    want = (np.linalg.solve(T, Bb) if left
            else np.swapaxes(np.linalg.solve(np.swapaxes(T, -1, -2), np.swapaxes(Bb, -1, -2)),
                             -1, -2))
    At = pdt.tensor(A, device=device, requires_grad=True)
    Bt = pdt.tensor(B, device=device, requires_grad=True)
    X = pdt.linalg.solve_triangular(At, Bt, upper=upper, left=left, unitriangular=unitriangular)
    np.testing.assert_allclose(X.detach().cpu().numpy(), want, rtol=1e-12, atol=1e-12)
    (X ** 2).sum().backward()

    def loss(a, b):
        t = np.triu(a) if upper else np.tril(a)
        if unitriangular:
            t = t * (1 - np.eye(3)) + np.eye(3)
        bb = np.broadcast_to(b, (2,) + b.shape)
        x = (np.linalg.solve(t, bb) if left else
             np.swapaxes(np.linalg.solve(np.swapaxes(t, -1, -2), np.swapaxes(bb, -1, -2)),
                         -1, -2))
        return (x ** 2).sum()

    for arr, grad in ((A, At.grad), (B, Bt.grad)):
        num = np.zeros_like(arr)
        for i in np.ndindex(arr.shape):
            e = np.zeros_like(arr)
            e[i] = 1e-6
            a2, b2 = (A + e, B) if arr is A else (A, B + e)
            a3, b3 = (A - e, B) if arr is A else (A, B - e)
            num[i] = (loss(a2, b2) - loss(a3, b3)) / 2e-6
        np.testing.assert_allclose(grad.cpu().numpy(), num, rtol=1e-6, atol=1e-8)


def _substitution(T, B, lower):
    """X of T X = B by plain substitution in float64, dividing by zeros as a trsm does."""
    n = T.shape[-1]
    X = np.zeros(B.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in (range(n) if lower else range(n - 1, -1, -1)):
            done = list(range(i)) if lower else list(range(i + 1, n))
            r = B[..., i, :] - (np.einsum("...j,...jk->...k", T[..., i, done], X[..., done, :])
                                if done else 0)
            X[..., i, :] = r / T[..., i, i][..., None]
    return X


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
def test_solve_triangular_of_a_zero_diagonal_divides_by_it(device, upper, left):
    """A zero on the triangle's diagonal is no error, as in PyTorch (no check; its trsm
    divides by it): X holds inf and NaN where substitution puts them (this raised
    LinAlgError, from an LU of the triangle that PyTorch does not do).  Closed forms, and
    a batch (one regular matrix, one with a zero diagonal entry) against substitution in
    NumPy float64; the regular matrix's X is NumPy's solve."""
    t = pdt.tensor([[0.0, 1.0], [0.0, 2.0]], dtype=pdt.float64, device=device)
    X = pdt.linalg.solve_triangular(t, pdt.ones(2, 1, dtype=pdt.float64, device=device),
                                    upper=True)
    assert X.cpu().numpy().ravel().tolist() == [math.inf, 0.5]
    t = pdt.tensor([[1.0, 1.0], [0.0, 0.0]], dtype=pdt.float64, device=device)
    X = pdt.linalg.solve_triangular(t, pdt.ones(1, 2, dtype=pdt.float64, device=device),
                                    upper=True, left=False)
    assert X.cpu().numpy()[0, 0] == 1.0 and math.isnan(X.cpu().numpy()[0, 1])
    rng = np.random.default_rng(11)
    A = rng.standard_normal((2, 4, 4)) + 3 * np.eye(4)
    A[1, 2, 2] = 0.0
    T = np.triu(A) if upper else np.tril(A)
    B = rng.standard_normal((2, 4, 3))
    Ts, lower = (T, not upper) if left else (np.swapaxes(T, -1, -2), upper)
    Bs = B if left else np.swapaxes(B, -1, -2)
    X = pdt.linalg.solve_triangular(pdt.tensor(A, device=device), pdt.tensor(Bs, device=device),
                                    upper=upper, left=left).cpu().numpy()
    X = X if left else np.swapaxes(X, -1, -2)
    want = _substitution(Ts, B, lower)
    np.testing.assert_array_equal(np.isnan(X), np.isnan(want))
    assert not np.isfinite(want[1]).all() and np.isfinite(want[0]).all()
    np.testing.assert_allclose(np.nan_to_num(X), np.nan_to_num(want), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(X[0], np.linalg.solve(Ts[0], B[0]), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("grad", [False, True])
def test_solve_triangular_keeps_substitutions_accuracy(device, upper, left, grad):
    """Random 60 x 60 triangles are ill-conditioned (cond ~1e17) but substitution solves
    them to ~1e-15 relative error (its forward error does not grow with cond): X agrees
    with a float64 substitution in NumPy to 1e-10, with and without a gradient to
    record.  Solving a lower triangle through its own pivoted LU gave a relative error
    of 1 (Note [triangular solves])."""
    rng = np.random.default_rng(60)
    a = rng.standard_normal((60, 60))
    T = np.triu(a) if upper else np.tril(a)
    B = rng.standard_normal((60, 2))
    Ts, lower = (T, not upper) if left else (T.T, upper)
    want = _substitution(Ts, B, lower)
    At = pdt.tensor(a, device=device, requires_grad=grad)
    X = pdt.linalg.solve_triangular(At, pdt.tensor(B if left else B.T, device=device),
                                    upper=upper, left=left)
    x = X.detach().cpu().numpy()
    x = x if left else x.T
    assert np.abs(x - want).max() <= 1e-10 * np.abs(want).max()
    assert X.requires_grad == grad


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse_keep_substitutions_accuracy(device, upper):
    """cholesky_solve and cholesky_inverse of a 60 x 60 triangular factor with a
    positive diagonal (A = L L^T, cond ~1e30) against two float64 substitutions in
    NumPy, to 1e-10 relative: they went through general solves of the factor, whose
    pivoting lost accuracy (relative error 4e-5; PyTorch's potrs 4e-15).  A zero on the
    factor's diagonal gives NaN from cholesky_solve, as PyTorch's (it raised), while
    cholesky_inverse raises LinAlgError naming the batch element, as PyTorch's."""
    rng = np.random.default_rng(61)
    low = np.tril(rng.standard_normal((60, 60)))
    low[np.diag_indices(60)] = np.abs(low[np.diag_indices(60)])
    b = rng.standard_normal((60, 2))
    want = _substitution(low.T, _substitution(low, b, True), False)
    F = pdt.tensor(low.T if upper else low, device=device)
    x = pdt.cholesky_solve(pdt.tensor(b, device=device), F, upper=upper).cpu().numpy()
    assert np.abs(x - want).max() <= 1e-10 * np.abs(want).max()
    inv = _substitution(low.T, _substitution(low, np.eye(60), True), False)
    got = pdt.cholesky_inverse(F, upper=upper).cpu().numpy()
    assert np.abs(got - inv).max() <= 1e-10 * np.abs(inv).max()
    sing = pdt.tensor([[1.0, 0.0], [1.0, 0.0]], dtype=pdt.float64, device=device)
    x = pdt.cholesky_solve(pdt.ones(2, 1, dtype=pdt.float64, device=device), sing)
    assert np.isnan(x.cpu().numpy()).all()
    with pytest.raises(pdt.linalg.LinAlgError, match=r"cholesky_inverse: \(Batch element 1\): "
                       r"The diagonal element 2 is zero"):
        pdt.cholesky_inverse(pdt.stack([pdt.eye(2, dtype=pdt.float64, device=device), sing]))


@pytest.mark.parametrize("device", DEVICES)
def test_vecdot_matches_numpy(device):
    rng = np.random.default_rng(8)
    x, y = rng.standard_normal((4, 3)), rng.standard_normal(3)
    got = pdt.linalg.vecdot(pdt.tensor(x, device=device), pdt.tensor(y, device=device))
    np.testing.assert_allclose(got.cpu().numpy(), x @ y, rtol=1e-12)
    got = pdt.linalg.vecdot(pdt.tensor(x, device=device), pdt.tensor(x, device=device), dim=0)
    np.testing.assert_allclose(got.cpu().numpy(), (x * x).sum(0), rtol=1e-12)
