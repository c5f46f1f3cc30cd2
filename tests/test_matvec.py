"""Matrix @ vector and vector @ matrix on the CPU go to gemv (Note [matrix times vector]
in csrc/cpu/cpu_gemm.c); other devices run them as before.  Every layout of the operands
(transposed, strided columns, batched, addmm's beta) against NumPy in float64, on every
device."""
import itertools

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES

TOL = {"float32": (1e-4, 1e-5), "float64": (1e-12, 1e-12)}  # (atol per unit of k, rtol)


def close(got, want, dtype, k):
    atol, rtol = TOL[dtype]
    got = np.asarray(got.cpu().numpy(), dtype=np.float64)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * k ** 0.5)


def make(rng, shape, dtype, device, transposed):
    """A tensor of `shape`; transposed: stored the other way round and viewed with .T"""
    if transposed:
        x = rng.standard_normal(shape[::-1])
        return pdt.tensor(x.astype(dtype), device=device).T, x.T
    x = rng.standard_normal(shape)
    return pdt.tensor(x.astype(dtype), device=device), x


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("ta,tb", list(itertools.product([False, True], repeat=2)))
def test_matrix_times_column_and_row_times_matrix(device, dtype, ta, tb):
    rng = np.random.default_rng(3)
    m, k = 37, 300
    A, a = make(rng, (m, k), dtype, device, ta)
    col, c = make(rng, (k, 1), dtype, device, tb)
    close(A @ col, a.astype(dtype).astype(np.float64) @ c.astype(dtype), dtype, k)
    row, r = make(rng, (1, m), dtype, device, tb)
    close(row @ A, r.astype(dtype).astype(np.float64) @ a.astype(dtype), dtype, m)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_vectors_strided_columns_batches_and_addmm(device, dtype):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((50, 70)).astype(dtype)
    v = rng.standard_normal(70).astype(dtype)
    w = rng.standard_normal(50).astype(dtype)
    A, V, W = (pdt.tensor(x, device=device) for x in (a, v, w))
    a64, v64, w64 = (x.astype(np.float64) for x in (a, v, w))
    close(A @ V, a64 @ v64, dtype, 70)
    close(W @ A, w64 @ a64, dtype, 50)
    close(A.T @ W, a64.T @ w64, dtype, 50)
    # a column taken out of a wider matrix: its stride is the matrix's width
    wide = rng.standard_normal((70, 3)).astype(dtype)
    close(A @ pdt.tensor(wide, device=device)[:, 1:2], a64 @ wide[:, 1:2].astype(np.float64),
          dtype, 70)
    # batched: (b, m, k) @ (b, k, 1) and (b, 1, m) @ (b, m, k)
    bt = rng.standard_normal((4, 50, 70)).astype(dtype)
    bv = rng.standard_normal((4, 70, 1)).astype(dtype)
    bw = rng.standard_normal((4, 1, 50)).astype(dtype)
    B, BV, BW = (pdt.tensor(x, device=device) for x in (bt, bv, bw))
    close(B @ BV, bt.astype(np.float64) @ bv.astype(np.float64), dtype, 70)
    close(BW @ B, bw.astype(np.float64) @ bt.astype(np.float64), dtype, 50)
    # addmm: beta * input + alpha * (A @ column)
    base = rng.standard_normal((50, 1)).astype(dtype)
    got = pdt.addmm(pdt.tensor(base, device=device), A, pdt.tensor(v[:, None], device=device),
                    beta=0.5, alpha=2.0)
    close(got, 0.5 * base.astype(np.float64) + 2.0 * (a64 @ v64[:, None]), dtype, 70)


@pytest.mark.parametrize("device", DEVICES)
def test_a_result_in_reused_memory_never_reads_it(device):
    """The CPU caches freed blocks: a result may land in memory full of NaN, which a
    gemv computing beta * y with beta = 0 would spread."""
    n = 40_000  # a result of 160 KB: in the cache's range
    A = pdt.ones(n, 8, device=device)
    v = pdt.ones(8, device=device)
    for _ in range(3):
        junk = pdt.full((n,), float("nan"), device=device)
        del junk
        got = (A @ v).cpu().numpy()
        assert np.all(got == 8.0)
