"""Batches of small matrices through pydevtensor.linalg's LU and Cholesky ops (solve,
inv, det, slogdet, cholesky, cholesky_solve), around the edges of the CUDA backend's
rule for its batched routines (Note [batched small-matrix solvers] in
csrc/cuda/cuda_solver.h: batch >= 2 and n <= 32 take cublas<t>getrfBatched /
getrsBatched and cusolverDn<t>potrfBatched, the rest one cuSOLVER call per matrix).
Every test runs on every device (the CPU's LAPACK is the same reference either way);
on the emulated CUDA device, the call counts show which path ran.

Tolerances, against NumPy in float64: the random inputs are well-conditioned (a
random matrix plus n times the identity, condition numbers below ~10), so float64
results agree to 1e-10 relative and absolute and float32 to 1e-4 (as in
test_linalg_solve.py, n up to 33).  The ill-conditioned batch (Hilbert matrices, cond
up to 1.5e10 for n = 8) is compared by backward error, 1e-13 in float64, and by
forward error against NumPy to cond * 1e-14."""
import ctypes
import gc
from pathlib import Path

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from test_gradcheck import gradcheck
from test_linalg_solve import TOL, _close, _spd, _t, _well_conditioned

try:
    from pydevtensor._build_config import BUILD_CONFIG
except ImportError:  # pragma: no cover - an uninstalled tree
    BUILD_CONFIG = {}
EMULATED = bool(BUILD_CONFIG.get("cuda_emulated"))

BATCHES = [1, 2, 3, 65]
SIZES = [1, 2, 3, 8, 32, 33]  # 32: the largest batched n; 33: one call per matrix


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("batch", BATCHES)
def test_lu_and_cholesky_ops_match_numpy(device, dtype, batch, n):
    rng = np.random.default_rng(1000 * batch + n)
    a = _well_conditioned(rng, (batch, n, n))
    b = rng.standard_normal((batch, n, 2))
    s = _spd(rng, (batch, n, n))
    if dtype == "float32":  # the reference sees the inputs the op sees
        a, b, s = (x.astype(np.float32).astype(np.float64) for x in (a, b, s))
    A, B, S = _t(a, device, dtype), _t(b, device, dtype), _t(s, device, dtype)
    _close(pdt.linalg.solve(A, B), np.linalg.solve(a, b), dtype)
    _close(pdt.linalg.solve(A, B[..., 0]), np.linalg.solve(a, b[..., :1])[..., 0], dtype)
    _close(pdt.linalg.inv(A), np.linalg.inv(a), dtype)
    # det of A / n: n^n would overflow float32 for n = 33
    _close(pdt.linalg.det(A / n), np.linalg.det(a / n), dtype)
    sign, logabs = pdt.linalg.slogdet(A)
    ref_sign, ref_log = np.linalg.slogdet(a)
    _close(sign, ref_sign, dtype)
    _close(logabs, ref_log, dtype)
    L = np.linalg.cholesky(s)
    _close(pdt.linalg.cholesky(S), L, dtype)
    _close(pdt.linalg.cholesky(S, upper=True), np.swapaxes(L, -1, -2), dtype)
    _close(pdt.cholesky_solve(B, pdt.linalg.cholesky(S)), np.linalg.solve(s, b), dtype)
    info = pdt.linalg.inv_ex(A).info
    assert info.shape == (batch,) and info.cpu().tolist() == [0] * batch


@pytest.mark.parametrize("n", [3, 32, 33])
def test_non_contiguous_inputs(device, n):
    """Transposed, strided and broadcast inputs: the ops copy them by columns first."""
    rng = np.random.default_rng(n)
    big = _well_conditioned(rng, (6, n, n))
    strided = _t(np.repeat(big, 2, axis=0), device)[::2]  # every other matrix
    assert not strided.is_contiguous()
    _close(pdt.linalg.inv(strided), np.linalg.inv(big), "float64")
    At = _t(np.swapaxes(big, -1, -2).copy(), device).mT  # a transposed view of big
    assert not At.is_contiguous()
    rhs = rng.standard_normal((n, 6))
    Bt = _t(rhs, device).mT.unsqueeze(-1)  # (6, n, 1) from a transposed view
    _close(pdt.linalg.solve(At, Bt), np.linalg.solve(big, rhs.T[..., None]), "float64")
    one = _t(big[0], device).expand(5, n, n)  # stride 0 batch
    _close(pdt.linalg.det(one), np.full(5, np.linalg.det(big[0])), "float64")
    s = _spd(rng, (4, n, n))
    S = _t(np.swapaxes(s, -1, -2).copy(), device).mT  # symmetric: the same values
    _close(pdt.linalg.cholesky(S), np.linalg.cholesky(s), "float64")


def test_ill_conditioned_batch(device):
    """Hilbert matrices of n = 2..8 (cond up to 1.5e10), scaled, in one batch of 7
    padded to 8 x 8 with an identity block: the LU with partial pivoting is backward
    stable, so the residual is at rounding level whatever the condition."""
    mats, conds = [], []
    for k in range(2, 9):
        h = np.eye(8)
        i = np.arange(k)
        h[:k, :k] = 1.0 / (i[:, None] + i[None, :] + 1)
        mats.append(h * 10.0 ** (k - 5))
        conds.append(np.linalg.cond(h))
    a = np.stack(mats)
    b = np.ones((7, 8, 1))
    x = pdt.linalg.solve(_t(a, device), _t(b, device)).cpu().numpy()
    resid = np.abs(a @ x - b).max(axis=(1, 2))
    scale = np.abs(a).max(axis=(1, 2)) * np.abs(x).max(axis=(1, 2))
    assert (resid / scale < 1e-13).all(), resid / scale
    ref = np.linalg.solve(a, b)
    for i, c in enumerate(conds):
        err = np.abs(x[i] - ref[i]).max() / np.abs(ref[i]).max()
        assert err < c * 1e-14, (i, err, c)


@pytest.mark.parametrize("n", [3, 33])
@pytest.mark.parametrize("batch,bad", [(3, 1), (65, 32)])
def test_singular_in_the_middle_of_a_batch(device, batch, bad, n):
    """Matrix `bad` has a zero column 1: U(1, 1) is exactly zero (info 2) on either
    path, and the error names that batch element; the others are unaffected."""
    rng = np.random.default_rng(batch + n)
    a = _well_conditioned(rng, (batch, n, n))
    a[bad, :, 1] = 0.0
    A = _t(a, device)
    want = [0] * batch
    want[bad] = 2
    inverse, info = pdt.linalg.inv_ex(A)
    assert info.cpu().tolist() == want
    good = np.delete(np.arange(batch), bad)
    np.testing.assert_allclose(inverse.cpu().numpy()[good], np.linalg.inv(a[good]),
                               **TOL["float64"])
    msg = rf"\(Batch element {bad}\): The diagonal element 2 is zero"
    with pytest.raises(pdt.linalg.LinAlgError, match=msg) as e:
        pdt.linalg.inv(A)
    assert f"on {device}" in str(e.value) and f"({batch}, {n}, {n})" in str(e.value)
    with pytest.raises(pdt.linalg.LinAlgError, match=msg):
        pdt.linalg.solve(A, _t(np.ones((batch, n)), device))
    det = pdt.linalg.det(A).cpu().numpy()
    assert det[bad] == 0.0 and (det[good] != 0).all()
    sign, logabs = pdt.linalg.slogdet(A)
    assert sign.cpu().numpy()[bad] == 0.0 and logabs.cpu().numpy()[bad] == -np.inf
    # a nested batch: (5, 13) with element 32 at (2, 6)
    if batch == 65:
        with pytest.raises(pdt.linalg.LinAlgError, match=r"\(Batch element \(2, 6\)\)"):
            pdt.linalg.inv(A.reshape(5, 13, n, n))


@pytest.mark.parametrize("n", [3, 33])
def test_not_positive_definite_in_the_middle_of_a_batch(device, n):
    rng = np.random.default_rng(n)
    s = _spd(rng, (65, n, n))
    s[40, 2, 2] = -1.0  # the leading minor of order 3 is not positive-definite
    S = _t(s, device)
    L, info = pdt.linalg.cholesky_ex(S)
    want = [0] * 65
    want[40] = 3
    assert info.cpu().tolist() == want
    _close(L[:40], np.linalg.cholesky(s[:40]), "float64")
    with pytest.raises(pdt.linalg.LinAlgError,
                       match=r"linalg\.cholesky: \(Batch element 40\): .*order 3"):
        pdt.linalg.cholesky(S)
    _, info_u = pdt.linalg.cholesky_ex(S, upper=True)
    assert info_u.cpu().tolist() == want


@pytest.mark.parametrize("n", [3, 33])
def test_info_read_back_stays_one_copy(device, n):
    """Either path keeps info on the device: raising reads it back once (a GPU), the
    _ex forms never."""
    A = _t(np.eye(n) * 2 + np.zeros((65, n, n)), device)
    expected = 0 if device.type == "cpu" else 1
    for call in (lambda: pdt.linalg.inv(A), lambda: pdt.linalg.cholesky(A),
                 lambda: pdt.linalg.solve(A, A)):
        pdt.reset_transfer_stats()
        call()
        assert pdt.transfer_stats()["device_to_host"]["count"] == expected
    for call in (lambda: pdt.linalg.inv_ex(A), lambda: pdt.linalg.det(A),
                 lambda: pdt.linalg.cholesky_ex(A)):
        pdt.reset_transfer_stats()
        with pdt.transfer_guard("disallow"):  # nothing read back: nothing to refuse
            call()
        assert pdt.transfer_stats()["device_to_host"]["count"] == 0


@pytest.mark.parametrize("n", [2, 33])
def test_gradients_of_a_batch(device, n):
    """inv and det of a batch of 65 against their closed forms (d sum(inv A)/dA =
    -inv(A)^T 1 inv(A)^T; d det A/dA = det(A) inv(A)^T), and gradcheck of solve and
    cholesky on a batch of 3."""
    rng = np.random.default_rng(n)
    a = _well_conditioned(rng, (65, n, n))
    A = _t(a, device).requires_grad_()
    pdt.linalg.inv(A).sum().backward()
    ia = np.linalg.inv(a)
    it = np.swapaxes(ia, -1, -2)
    _close(A.grad, -it @ np.ones((n, n)) @ it, "float64")
    A2 = _t(a, device).requires_grad_()
    pdt.linalg.det(A2).sum().backward()
    _close(A2.grad / pdt.tensor(np.linalg.det(a)[:, None, None], device=device), it,
           "float64")
    small = [_well_conditioned(rng, (3, n, n)), rng.standard_normal((3, n, 2))]
    gradcheck(lambda x, y: pdt.linalg.solve(x, y), small, device)
    gradcheck(lambda x: pdt.linalg.cholesky(x @ x.mT), [small[0]], device)


def test_matches_torch_on_a_batch(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(5)
    a = _well_conditioned(rng, (65, 4, 4))
    a[7, :, 0] = 0.0
    ours = pdt.linalg.inv_ex(_t(a, device))
    ref = torch.linalg.inv_ex(torch.tensor(a))
    assert ours.info.cpu().tolist() == ref.info.tolist()
    ok = [i for i in range(65) if i != 7]
    np.testing.assert_allclose(ours.inverse.cpu().numpy()[ok], ref.inverse.numpy()[ok],
                               **TOL["float64"])


# ---- which routines ran (the emulated device counts what it queues) ----

def _queued():
    """pdtEmuQueuedOps of the emulated runtime this process loaded (Note [counting
    queued operations] in csrc/cuda/emulator/emu_stream.cpp)."""
    lib = ctypes.CDLL(str(Path(pdt.__file__).resolve().parent / "_emulated_cuda" /
                          "libpdt_cudart_emu.so"))
    lib.pdtEmuQueuedOps.restype = ctypes.c_uint64
    lib.pdtEmuQueuedOps.argtypes = [ctypes.c_char_p]
    return lambda prefix: lib.pdtEmuQueuedOps(prefix.encode())


def _calls_of(fn):
    """{routine prefix: how many calls fn queued}, fn's results read back first."""
    count = _queued()
    names = ("cublasSgetrfBatched", "cublasDgetrfBatched", "cublasDgetrsBatched",
             "cusolverDnDpotrfBatched", "cusolverDnDgetrf", "cusolverDnDgetrs",
             "cusolverDnDpotrf", "cublas", "cusolverDn", "")
    gc.collect()  # tensors of earlier tests freed now, not inside fn (their frees queue)
    pdt.cuda.synchronize()
    before = {k: count(k) for k in names}
    gc.disable()
    try:
        out = fn()
        pdt.cuda.synchronize()
    finally:
        gc.enable()
    del out
    return {k: count(k) - before[k] for k in names}


@pytest.mark.cuda
@pytest.mark.skipif(not EMULATED, reason="needs the emulated CUDA build "
                    "(PYDEVTENSOR_CUDA=emulate)")
@pytest.mark.parametrize("op", ["inv", "solve", "det", "cholesky"])
def test_batched_path_makes_a_constant_number_of_calls(op):
    """n <= 32: one batched library call per routine whatever the batch (3 or 65), and
    the whole op queues as many operations for 65 matrices as for 3; n = 33: one
    cuSOLVER call per matrix."""
    def run(batch, n):
        a = np.eye(n) * 2 + np.zeros((batch, n, n))
        A = pdt.tensor(a, dtype=pdt.float64, device="cuda")
        fns = {"inv": lambda: pdt.linalg.inv(A),
               "solve": lambda: pdt.linalg.solve(A, A[..., 0]),
               "det": lambda: pdt.linalg.det(A),
               "cholesky": lambda: pdt.linalg.cholesky(A)}
        return _calls_of(fns[op])
    small, large = run(3, 3), run(65, 3)
    assert small == large, (small, large)
    if op == "cholesky":
        assert large["cusolverDnDpotrfBatched"] == 1 and large["cusolverDnDpotrf"] == 1
        assert large["cublas"] == 0
    else:
        assert large["cublasDgetrfBatched"] == 1 and large["cusolverDn"] == 0
        assert large["cublasDgetrsBatched"] == (0 if op == "det" else 1)
    # "cusolverDnDpotrf" counts potrfBatched too (a prefix): per matrix below
    unbatched = run(65, 33)
    lib = "cusolverDnDpotrf" if op == "cholesky" else "cusolverDnDgetrf"
    assert unbatched[lib] == 65 and unbatched["cublas"] == 0
    assert run(1, 3)["cublas"] == 0  # a single matrix: one cuSOLVER call either way


@pytest.mark.cuda
@pytest.mark.skipif(not EMULATED, reason="needs the emulated CUDA build "
                    "(PYDEVTENSOR_CUDA=emulate)")
def test_float32_takes_the_single_precision_routine():
    A = pdt.tensor(np.eye(3) + np.zeros((4, 3, 3)), dtype=pdt.float32, device="cuda")
    calls = _calls_of(lambda: pdt.linalg.inv(A))
    assert calls["cublasSgetrfBatched"] == 1 and calls["cublasDgetrfBatched"] == 0
