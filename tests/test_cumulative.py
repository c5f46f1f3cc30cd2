"""diff, cumprod, roll and Tensor.mT / mH (pydevtensor/_ops_cumulative.py) on every
device, against NumPy (np.diff, np.cumprod, np.roll, np.swapaxes).

diff and roll are exact (one subtraction per element, or a copy); integer cumprod is
exact; floating cumprod is a scan of ceil(log2 n) steps, so each product is rounded in
another order than NumPy's left-to-right one: float64 within 1e-13 relative; float32 and
the half types scan in float64 and round once, so within half an ulp (plus float64's
rounding) of the exact products of the inputs, at any length.  Gradients:
test_gradcheck's central differences in float64, and cumprod's with zeros in the input
against the product rule in float64.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DTYPES, torch_or_skip
from test_gradcheck import gradcheck


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,dim", [(1, -1), (2, 1), (1, 0), (3, 1), (0, 1), (7, 1)])
def test_diff_matches_numpy(device, dtype, n, dim):
    a = np.random.default_rng(0).integers(-5, 6, (3, 5)).astype(dtype)
    x = pdt.tensor(a, device=device)
    got = pdt.diff(x, n=n, dim=dim)
    want = np.diff(a, n=n, axis=dim)
    assert got.dtype == x.dtype and tuple(got.shape) == want.shape
    np.testing.assert_array_equal(_np(got), want)


def test_diff_prepend_append_and_errors(device):
    a = np.array([[1.0, 4.0, 9.0], [2.0, 2.0, -1.0]])
    x = pdt.tensor(a, device=device)
    pre, app = pdt.tensor([[0.0], [5.0]], device=device), pdt.tensor([[1, 2], [3, 4]],
                                                                     device=device)
    got = x.diff(dim=1, prepend=pre, append=app)
    np.testing.assert_array_equal(_np(got), np.diff(a, axis=1, prepend=[[0.0], [5.0]],
                                                    append=[[1, 2], [3, 4]]))
    assert got.dtype == pdt.float64
    assert pdt.diff(pdt.zeros(0, device=device)).shape == (0,)
    with pytest.raises(RuntimeError, match=r"diff\(\): expects input to be at least "
                                           r"one-dimensional, got a 0-d"):
        pdt.diff(pdt.tensor(1.0, device=device))
    with pytest.raises(RuntimeError, match=r"diff\(\): order n must be non-negative, got -1"):
        pdt.diff(x, n=-1)
    with pytest.raises(RuntimeError, match=r"diff\(\): prepend must have input's 2 dimensions"):
        pdt.diff(x, prepend=pdt.tensor([1.0], device=device))
    gradcheck(lambda t: pdt.diff(t, n=2, dim=0), [np.random.default_rng(1).standard_normal(
        (4, 3))], device, noncontig=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumprod_matches_numpy(device, dtype):
    rng = np.random.default_rng(2)
    if dtype.startswith("float"):
        a = rng.uniform(0.5, 1.5, (3, 20)) * rng.choice([-1, 1], (3, 20))
        a[1, 7] = 0.0
    else:
        a = rng.integers(-3, 4, (3, 20))
    a = a.astype(dtype)
    x = pdt.tensor(a, device=device)
    for dim in (0, 1, -1):
        got = pdt.cumprod(x, dim)
        want = np.cumprod(a.astype(np.float64) if dtype.startswith("float") else
                          a.astype(np.int64), axis=dim)
        if dtype.startswith("float"):
            assert got.dtype == x.dtype
            rtol = 1e-13 if dtype == "float64" else 2.0**-24 * 1.01
            np.testing.assert_allclose(_np(got), want, rtol=rtol, atol=0)
        else:  # bools and integers: int64, exact
            assert got.dtype == pdt.int64
            np.testing.assert_array_equal(_np(got), want)
    assert x.cumprod(1, dtype=pdt.float64).dtype == pdt.float64


def test_cumprod_edges_and_int_wraparound(device):
    big = pdt.tensor([2**40, 2**40, 3], device=device)  # wraps modulo 2**64, as NumPy's
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(_np(big.cumprod(0)), np.cumprod(np.array(
            [2**40, 2**40, 3], dtype=np.int64)))
    assert pdt.cumprod(pdt.zeros(2, 0, device=device), 1).shape == (2, 0)
    assert pdt.cumprod(pdt.tensor(3.0, device=device), 0).item() == 3.0
    one = pdt.tensor([[5.0]], device=device)
    assert pdt.cumprod(one, 1).item() == 5.0
    with pytest.raises(IndexError, match=r"cumprod\(\): Dimension out of range"):
        pdt.cumprod(one, 2)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "bool"])
def test_cumprod_without_a_gradient_is_one_pass_left_to_right(device, dtype):
    """On the CPU the row kernel (csrc/cpu/cpu_index.c) multiplies each row left to right,
    in float64 for float32: NumPy's cumprod in float64 bit for bit, along every dim of a
    (37, 3000) tensor (groups of eight rows and a remainder, split across the pool), of a
    transposed view and of one long row; elsewhere the scan, within a few roundings."""
    rng = np.random.default_rng(9)
    a = rng.uniform(0.9, 1.1, (37, 3000)) * rng.choice([-1, 1], (37, 3000))
    a = a if dtype.startswith("float") else rng.integers(0, 3, (37, 3000))
    a = a.astype(dtype)
    wide = np.float64 if dtype.startswith("float") else np.int64
    for x, src in ((pdt.tensor(a, device=device), a), (pdt.tensor(a.T.copy(), device=device).T, a),
                   (pdt.tensor(a.reshape(-1), device=device), a.reshape(-1))):
        for dim in range(src.ndim):
            got = _np(pdt.cumprod(x, dim))
            want = np.cumprod(src.astype(wide), axis=dim).astype(got.dtype)
            if device.type == "cpu" or not dtype.startswith("float"):
                np.testing.assert_array_equal(got, want)
            else:
                np.testing.assert_allclose(got, want, rtol=1e-11 if dtype == "float64" else 2e-7)


def test_cumprod_recorded_gives_the_kernels_values(device):
    """With a gradient to record, the composition (autograd records it): its values within
    a few roundings of the row kernel's, and its gradient."""
    rng = np.random.default_rng(10)
    a = rng.uniform(0.5, 1.5, (5, 40))
    x = pdt.tensor(a, device=device, requires_grad=True)
    y = x.cumprod(1)
    assert y.grad_fn is not None
    np.testing.assert_allclose(_np(y.detach()), _np(x.detach().cumprod(1)), rtol=1e-13)
    y.sum().backward()
    np.testing.assert_allclose(_np(x.grad)[0], _cumprod_grad_reference(a[0], np.ones(40)),
                               rtol=1e-12)
    with pdt.no_grad():
        assert x.cumprod(1).grad_fn is None


def _cumprod_grad_reference(a, r):
    """d sum(r * cumprod(a)) / d a by the product rule in float64 (no division)."""
    n = a.size
    g = np.zeros(n)
    for k in range(n):
        for i in range(k, n):
            g[k] += r[i] * np.prod(np.delete(a[:i + 1], k))
    return g


@pytest.mark.parametrize("zeros", [[], [3], [2, 5]])
def test_cumprod_gradient_with_zeros(device, zeros):
    rng = np.random.default_rng(3)
    a = rng.uniform(0.5, 2.0, 9) * rng.choice([-1, 1], 9)
    a[zeros] = 0.0
    r = rng.standard_normal(9)
    x = pdt.tensor(a, device=device, requires_grad=True)
    (x.cumprod(0) * pdt.tensor(r, device=device)).sum().backward()
    np.testing.assert_allclose(_np(x.grad), _cumprod_grad_reference(a, r), rtol=1e-12,
                               atol=1e-12)


def test_cumprod_gradcheck(device):
    rng = np.random.default_rng(4)
    gradcheck(lambda t: pdt.cumprod(t, 1), [rng.uniform(0.5, 1.5, (3, 6))], device,
              noncontig=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shifts,dims", [(1, None), (-7, None), (2, 1), ((1, -1), (0, 1)),
                                         ((3, 4), (1, 1)), (0, 0), (5, -2)])
def test_roll_matches_numpy(device, dtype, shifts, dims):
    a = np.arange(12).reshape(3, 4).astype(dtype)
    x = pdt.tensor(a, device=device)
    got = pdt.roll(x, shifts, dims)
    want = np.roll(a, shifts, dims)
    assert got.dtype == x.dtype and got.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(_np(got), want)
    np.testing.assert_array_equal(_np(x.roll(shifts, dims)), want)


def test_roll_edges_gradient_errors(device):
    assert pdt.roll(pdt.zeros(0, 3, device=device), 2, 0).shape == (0, 3)
    assert pdt.roll(pdt.tensor(4.0, device=device), 3).item() == 4.0
    x = pdt.arange(6, device=device).reshape(2, 3)
    with pytest.raises(RuntimeError, match=r"roll\(\): shifts and dims must align: 2 shifts"):
        pdt.roll(x, (1, 2), (0,))
    with pytest.raises(RuntimeError, match=r"roll\(\): without dims, give one shift"):
        pdt.roll(x, (1, 2))
    with pytest.raises(IndexError, match=r"roll\(\): Dimension out of range"):
        pdt.roll(x, 1, 2)
    gradcheck(lambda t: pdt.roll(t, (1, -2), (0, 1)), [np.random.default_rng(5).standard_normal(
        (3, 4))], device)


def test_mT_mH(device):
    a = np.arange(24.0).reshape(2, 3, 4)
    x = pdt.tensor(a, device=device)
    for name in ("mT", "mH"):
        t = getattr(x, name)
        np.testing.assert_array_equal(_np(t), np.swapaxes(a, -1, -2))
        assert t.data_ptr() == x.data_ptr()  # a view
    with pytest.raises(RuntimeError, match=r"tensor.mT is only supported on matrices or "
                                           r"batches of matrices, got a 1-d tensor"):
        pdt.ones(3, device=device).mT
    gradcheck(lambda t: t.mT * 2.0, [a[0]], device)


def test_against_torch(device):
    torch = torch_or_skip()
    a = np.random.default_rng(6).standard_normal((4, 6))
    a[2, 3] = 0.0
    x, tx = pdt.tensor(a, device=device), torch.tensor(a)
    np.testing.assert_allclose(_np(pdt.cumprod(x, 1)), torch.cumprod(tx, 1).numpy(),
                               rtol=1e-13)
    np.testing.assert_array_equal(_np(pdt.roll(x, (2, -1), (1, 0))),
                                  torch.roll(tx, (2, -1), (1, 0)).numpy())
    np.testing.assert_array_equal(_np(pdt.diff(x, 2, 0)), torch.diff(tx, 2, 0).numpy())
    xg = pdt.tensor(a, device=device, requires_grad=True)
    txg = torch.tensor(a, requires_grad=True)
    pdt.cumprod(xg, 1).sum().backward()
    torch.cumprod(txg, 1).sum().backward()
    np.testing.assert_allclose(_np(xg.grad), txg.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_no_copy_to_the_host(device):
    x = pdt.tensor([[1.0, 2.0, 0.0, 4.0], [3.0, -1.0, 2.0, 5.0]], device=device)
    pdt.reset_transfer_stats()
    with pdt.transfer_guard("disallow"):
        pdt.diff(x, 2), pdt.cumprod(x, 1), pdt.roll(x, (1, 3), (0, 1)), x.mT, x.mH
    assert pdt.transfer_stats()["device_to_host"]["count"] == 0


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_types(device, dtype):
    """float16 and bfloat16 keep their dtype: diff and roll exact, cumprod rounded once
    from float64, so within eps / 2 relative (eps 2^-10, 2^-7) of the float64 products
    of the rounded inputs."""
    eps = {"float16": 2.0**-10, "bfloat16": 2.0**-7}[dtype]
    a = np.random.default_rng(8).uniform(0.5, 1.5, (2, 8)) * np.array([1, -1] * 4)
    x = pdt.tensor(a, device=device).to(getattr(pdt, dtype))
    r = _np(x.to(pdt.float64))
    got = pdt.cumprod(x, 1)
    assert got.dtype == x.dtype
    np.testing.assert_allclose(_np(got.to(pdt.float64)), np.cumprod(r, axis=1),
                               rtol=eps / 2 * 1.01, atol=0)
    rolled = pdt.roll(x, 3, 1)
    assert rolled.dtype == x.dtype
    np.testing.assert_array_equal(_np(rolled.to(pdt.float64)), np.roll(r, 3, 1))
    d = pdt.diff(x)  # one subtraction, rounded once to the half type
    assert d.dtype == x.dtype
    np.testing.assert_array_equal(_np(d.to(pdt.float64)),
                                  _np(pdt.tensor(np.diff(r)).to(x.dtype).to(pdt.float64)))


def test_float32_cumprod_rounds_once_at_any_length(device):
    """Long float32 rows: within half an ulp of the exact products (a reviewer measured
    744 ulps at 65536 elements when the scan ran in float32; torch's: 1)."""
    from conftest import ulps32
    a = np.random.default_rng(9).uniform(0.999, 1.001, 4096).astype(np.float32)
    got = _np(pdt.cumprod(pdt.tensor(a, device=device), 0))
    want = np.cumprod(a.astype(np.float64))
    assert ulps32(got, want).max() <= 0.5 + 1e-4  # + the float64 roundings of both


def test_numpy_keyword_names(device):
    """axis= for dim= as the reductions take it (a reviewer found these three refused)."""
    x = pdt.tensor([[1.0, 2.0, 0.0], [3.0, 4.0, 5.0]], device=device)
    assert x.cumprod(axis=1).tolist() == x.cumprod(1).tolist()
    assert pdt.diff(x, axis=0).tolist() == pdt.diff(x, dim=0).tolist()
    assert pdt.count_nonzero(x, axis=1).tolist() == [2, 3]
    with pytest.raises(TypeError, match="multiple values"):
        pdt.diff(x, dim=0, axis=0)
