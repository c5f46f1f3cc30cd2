"""The everyday API of issue 17 that computes (test_everyday_ops.py has the ops that move
or select elements): cumsum, softmax and log_softmax, var and std, isnan and its kin,
allclose and equal, outer and einsum, and the norms of linalg, against NumPy in float64,
on every device, within test_everyday_ops.py's tolerances (TOL there).
"""
import math

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES

from test_everyday_ops import close, data, exact, host


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "float64"])
def test_cumsum(dev, dtype):
    a = data((4, 6), dtype, 3)
    t = pdt.tensor(a, device=dev)
    out = pdt.cumsum(t, 1)
    assert str(out.dtype).endswith("int64" if dtype in ("bool", "int32") else dtype)
    close(out, np.cumsum(a.astype(np.float64), 1), dtype)
    close(t.cumsum(0), np.cumsum(a.astype(np.float64), 0), dtype)
    close(t.cumsum(dim=-1, dtype=pdt.float64), np.cumsum(a.astype(np.float64), 1), "float64")
    wrapped = t.cumsum(1, dtype=pdt.int8)  # the given integer dtype, wrapping (PyTorch)
    assert wrapped.dtype == pdt.int8
    exact(wrapped, np.cumsum(a.astype(np.int64), 1).astype(np.int8))


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
def test_cumsum_rows_in_groups_and_threads(dev, dtype):
    # rows are summed in order, eight rows side by side and groups of rows across
    # threads (Note [cumsum rows]): NumPy's sequential sums in the dtype (float32's in
    # float64, rounded once: Note [cumsum in float64] in _ops_sort.py), bit for bit,
    # for every count of rows left over from the groups and on one and two threads.
    # (CUDA's scan adds in another order: there, floats within the bound of any order
    # of n additions, (n - 1) u sum |x|, of the float64 sums.)
    exact_order = pdt.device(dev).type == "cpu" or dtype == "int64"
    rng = np.random.default_rng(9)
    old = pdt.get_num_threads()
    try:
        for rows in (1, 7, 8, 9, 15, 16, 8 * 9 + 5):
            a = (rng.standard_normal((rows, 1001)) * 10.0 ** rng.integers(-3, 4, (rows, 1001)))
            a = a.astype(dtype) if dtype != "int64" else (a * 1000).astype(dtype)
            got = []
            for n in (1, 2):
                pdt.set_num_threads(n)
                got.append(host(pdt.cumsum(pdt.tensor(a, device=dev), 1)))
            if not exact_order:
                wide = np.cumsum(a.astype(np.float64), 1)
                scale = np.cumsum(np.abs(a.astype(np.float64)), 1)
                bound = a.shape[1] * np.finfo(dtype).eps * scale
                assert (np.abs(got[0] - wide) <= bound).all()
                np.testing.assert_array_equal(got[0], got[1])
                continue
            # float32 sums in float64, each rounded once (Note [cumsum in float64])
            want = (np.cumsum(a.astype(np.float64), 1).astype(a.dtype) if dtype == "float32"
                    else np.cumsum(a, 1, dtype=a.dtype))
            np.testing.assert_array_equal(got[0], want)
            np.testing.assert_array_equal(got[1], want)
    finally:
        pdt.set_num_threads(old)
    if dtype == "int64":  # sums past int64's range wrap around, as NumPy's and PyTorch's
        a = np.full((9, 5), 2**62, dtype=np.int64)
        np.testing.assert_array_equal(host(pdt.cumsum(pdt.tensor(a, device=dev), 1)),
                                      np.cumsum(a, 1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_var_std(dev, dtype):
    a = data((3, 8), dtype, 4)
    t = pdt.tensor(a, device=dev)
    x = a.astype(np.float64)
    e = np.exp(x - x.max(1, keepdims=True))
    close(pdt.softmax(t, 1), e / e.sum(1, keepdims=True), dtype)
    close(t.softmax(0), np.exp(x) / np.exp(x).sum(0), dtype)
    close(pdt.nn.functional.log_softmax(t, dim=-1),
          x - x.max(1, keepdims=True) - np.log(e.sum(1, keepdims=True)), dtype)
    close(pdt.nn.functional.softmax(t, dim=1), e / e.sum(1, keepdims=True), dtype)
    close(pdt.var(t), x.var(ddof=1), dtype)
    close(t.var(1), x.var(1, ddof=1), dtype)
    close(t.var(0, unbiased=False, keepdim=True), x.var(0, keepdims=True), dtype)
    close(t.std(dim=1, correction=0), x.std(1), dtype)
    close(pdt.std(t, (0, 1)), x.std(ddof=1), dtype)
    big = pdt.tensor([1000.0, 1000.0], dtype=getattr(pdt, dtype), device=dev)
    close(big.softmax(0), [0.5, 0.5], dtype)  # no overflow: exp(x - max)
    with pytest.raises(RuntimeError, match="floating point"):
        pdt.var(pdt.tensor([1, 2], device=dev))


@pytest.mark.parametrize("log", [False, True])
def test_softmax_backward_reads_its_output_only(dev, log):
    """Note [softmax saves its output]: an in-place change of the input after softmax
    does not break its backward (PyTorch runs this), the gradient is the Jacobian's of
    the values before the change, and one node is recorded."""
    x = pdt.tensor([[0.5, 1.5, 0.7], [1.0, -2.0, 0.0]], dtype=pdt.float64, device=dev,
                   requires_grad=True)
    a = x * 1
    fn = pdt.log_softmax if log else pdt.softmax
    w = pdt.tensor([1.0, 2.0, 3.0], dtype=pdt.float64, device=dev)
    y = fn(a, 1)
    assert type(y.grad_fn).__name__ == ("LogSoftmaxBackward0" if log else "SoftmaxBackward0")
    a.mul_(2)
    (y * w).sum().backward()
    v = x.detach().cpu().numpy()
    s = np.exp(v - v.max(1, keepdims=True))
    s /= s.sum(1, keepdims=True)
    wn = np.array([1.0, 2.0, 3.0])
    ref = wn - s * wn.sum() if log else s * (wn - (s * wn).sum(1, keepdims=True))
    np.testing.assert_allclose(x.grad.cpu().numpy(), ref, rtol=1e-13, atol=1e-15)
    z = pdt.tensor([[0.3, -0.1, 0.8]], dtype=pdt.float64, device=dev, requires_grad=True)
    assert pdt.autograd.gradgradcheck(lambda t: fn(t, 1) ** 2, (z,))

def test_isnan_isinf_isfinite(dev):
    a = np.array([1.0, np.nan, np.inf, -np.inf, 0.0, -2.5], dtype=np.float32)
    t = pdt.tensor(a, device=dev)
    exact(pdt.isnan(t), np.isnan(a))
    exact(t.isinf(), np.isinf(a))
    exact(pdt.isfinite(t), np.isfinite(a))
    i = pdt.tensor([1, 2], device=dev)
    exact(pdt.isnan(i), [False, False])
    exact(pdt.isfinite(i), [True, True])


def test_allclose_equal(dev):
    a = pdt.tensor([1.0, 2.0, math.inf], device=dev)
    assert pdt.allclose(a, a + 1e-7)
    assert not pdt.allclose(a, a + 1e-3)
    assert a.allclose(a + 1e-3, atol=1e-2)
    n = pdt.tensor([math.nan, 1.0], device=dev)
    assert not pdt.allclose(n, n)
    assert pdt.allclose(n, n, equal_nan=True)
    assert pdt.equal(a, a.clone())
    assert not pdt.equal(a, a[:2])
    assert not a.equal(a + 1)
    i = pdt.tensor([1, 2], device=dev)
    exact(pdt.isclose(i, pdt.tensor([1, 3], device=dev)), [True, False])
    with pytest.raises(RuntimeError, match="did not match"):  # PyTorch refuses mixed dtypes
        pdt.isclose(a, a.double())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_outer_einsum(dev, dtype):
    a, b = data((3, 4), dtype, 1), data((4, 5), dtype, 2)
    c = data((2, 3, 4), dtype, 3)
    u, v = data((4,), dtype, 4), data((5,), dtype, 5)
    T = lambda x: pdt.tensor(x, device=dev)  # noqa: E731
    close(pdt.outer(T(u), T(v)), np.outer(u, v), dtype)
    for eq, ops in (("ij,jk->ik", (a, b)), ("ij,jk", (a, b)), ("bij,jk->bik", (c, b)),
                    ("i,i->", (u, u)), ("i,j->ij", (u, v)), ("ij,j->i", (a, u)),
                    ("ij->ji", (a,)), ("ij->j", (a,)), ("bij,bkj->bik", (c, c)),
                    ("ij,ij->ij", (a, a)), ("ij,kj->ik", (a, a))):
        close(pdt.einsum(eq, *[T(x) for x in ops]),
              np.einsum(eq, *[x.astype(np.float64) for x in ops]), dtype)
    # '...' (broadcast dims), repeated subscripts (diagonals, traces), three operands
    s, d = data((3, 3), dtype, 6), data((3, 4, 4), dtype, 7)
    e = data((1, 4, 5), dtype, 9)
    for eq, ops in (("...ij,...jk->...ik", (c, b)), ("...ij,...jk", (c, e)), ("ii->i", (s,)),
                    ("ii", (s,)), ("ii->", (s,)), ("bii->b", (d,)), ("bjj->bj", (d,)),
                    ("...ii->...i", (d,)), ("i...->...", (c,)), ("...", (c,)),
                    ("ij...,jk...->ik...", (c.transpose(1, 2, 0), b[:, :, None])),
                    ("iij->ij", (d.transpose(1, 2, 0),)), ("ijk,ikj->i", (d, d)),
                    ("ij,jk,kl->il", (s, s, s)), ("i,i,i->i", (u, u, u)), ("ab,bc,cd,de", (s,) * 4)):
        close(pdt.einsum(eq, *[T(np.ascontiguousarray(x)) for x in ops]),
              np.einsum(eq, *[x.astype(np.float64) for x in ops]), dtype)
    with pytest.raises(RuntimeError, match="repeated for dims of sizes 3 and 4"):
        pdt.einsum("ii->i", T(a))
    with pytest.raises(ValueError, match="invalid subscript"):
        pdt.einsum("i.j->i", T(a))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linalg_norm(dev, dtype):
    a = data((3, 4), dtype, 8)
    t = pdt.tensor(a, device=dev)
    x = a.astype(np.float64)
    close(pdt.linalg.norm(t), np.linalg.norm(x), dtype)
    close(pdt.linalg.norm(t, dim=1), np.linalg.norm(x, axis=1), dtype)
    close(pdt.linalg.norm(t[0], ord=1), np.linalg.norm(x[0], 1), dtype)
    close(pdt.linalg.norm(t[0], ord=math.inf), np.linalg.norm(x[0], np.inf), dtype)
    close(pdt.linalg.norm(t[0], ord=3), np.linalg.norm(x[0], 3), dtype)
    for ord_ in ("fro", 1, -1, math.inf, -math.inf):
        close(pdt.linalg.norm(t, ord=ord_), np.linalg.norm(x, ord_), dtype)
    close(pdt.linalg.vector_norm(t, ord=2, dim=(0, 1)), np.linalg.norm(x), dtype)
    for ord_ in (2, 1, 3, math.inf, 0):  # keepdim with every dim reduced keeps them all
        got = pdt.linalg.vector_norm(t, ord=ord_, keepdim=True)
        want = np.linalg.vector_norm(x, ord=ord_, keepdims=True)
        assert tuple(got.shape) == want.shape == (1, 1), (ord_, got.shape)
        close(got, want, dtype)


def test_linalg_norm_gradient_at_zero(dev):
    """As PyTorch's: the gradient of a zero 2-norm is zero, not 0 / 0."""
    for dim in (None, 1):
        t = pdt.zeros(2, 3, device=dev, requires_grad=True)
        pdt.linalg.norm(t, dim=dim).sum().backward()
        assert np.array_equal(np.asarray(t.grad.cpu()), np.zeros((2, 3), np.float32)), dim
    t = pdt.tensor([[0.0, 0.0], [3.0, -4.0]], device=dev, requires_grad=True)
    pdt.linalg.vector_norm(t, dim=1).sum().backward()
    np.testing.assert_allclose(np.asarray(t.grad.cpu()), [[0, 0], [0.6, -0.8]], rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linalg_singular_value_norms(dev, dtype):
    """ord 2, -2 and 'nuc' (largest, smallest singular value, their sum) against NumPy's
    SVD, on every device (tall, wide, batched, rank-deficient, permuted dims, keepdim),
    with a gradient (linalg.svdvals': tests/test_linalg_decomp.py checks it)."""
    rng = np.random.default_rng(11)
    cases = [data((3, 4), dtype, 1), data((6, 2), dtype, 2), data((2, 5, 5), dtype, 3),
             (rng.standard_normal((5, 2)) @ rng.standard_normal((2, 4))).astype(dtype),
             np.diag([1e3, 1.0, 1e-3]).astype(dtype)]
    for a in cases:
        t = pdt.tensor(a, device=dev)
        for ord_ in (2, -2, "nuc"):
            want = np.linalg.norm(a.astype(np.float64), ord_, axis=(-2, -1))
            got = pdt.linalg.norm(t, ord_) if a.ndim == 2 else pdt.linalg.matrix_norm(t, ord_)
            assert got.dtype == t.dtype
            # float64: a few ulps of the largest singular value
            scale = np.linalg.norm(a.astype(np.float64), 2, axis=(-2, -1))
            atol = 1e-5 * scale if dtype == "float32" else 1e-13 * scale
            np.testing.assert_allclose(host(got), want, rtol=1e-5 if dtype == "float32" else 0,
                                       atol=np.max(atol))
    b = data((4, 2, 3), dtype, 5)
    got = pdt.linalg.matrix_norm(pdt.tensor(b, device=dev), "nuc", dim=(0, 2), keepdim=True)
    want = np.linalg.norm(b.astype(np.float64).transpose(1, 0, 2), "nuc", axis=(1, 2))
    close(got, want.reshape(1, 2, 1), dtype)
    x = pdt.tensor(b, device=dev, requires_grad=True)
    pdt.linalg.matrix_norm(x, 2, dim=(0, 2)).sum().backward()
    assert x.grad.shape == x.shape and bool(x.grad.isfinite().all())
    with pytest.raises(RuntimeError, match="Order 3 not supported"):
        pdt.linalg.matrix_norm(x.detach(), 3)
