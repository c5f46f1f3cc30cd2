"""Matrix products (issue 4): @, matmul, mm, bmm, addmm, dot on every device.

Floating results are compared with NumPy in float64 against the standard GEMM error
bound: |got - ref| <= k * EPS * (|A| @ |B|) + TINY, with EPS = 2^-23 for float32 and
2^-52 for float64 (twice the unit roundoff, times the length k of each sum), TINY =
1e-30.  With TF32 on (GPU only), EPS = 2^-10.  Integer products are exact (and wrap
on overflow, as in NumPy).
"""
import math
import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import pydevtensor as pdt
from conftest import CUDA_AVAILABLE, DEVICES

EPS = {"float32": 2.0 ** -23, "float64": 2.0 ** -52}
FLOATS = ["float32", "float64"]
INTS = ["int32", "int64"]


def sample(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype in INTS:
        return rng.integers(-50, 50, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def host(t):
    return t.cpu().numpy()


def check_product(got, a, b, dtype, eps=None):
    """got (a Tensor) against a @ b computed by NumPy (float64 for floats)."""
    out = host(got)
    if dtype in INTS:
        ref = np.matmul(a, b)
        assert out.shape == ref.shape and out.dtype == ref.dtype
        np.testing.assert_array_equal(out, ref)
        return
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = np.matmul(a64, b64)
    bound = np.matmul(np.abs(a64), np.abs(b64))
    k = a.shape[-1] if a.ndim else 1
    assert out.shape == ref.shape, (out.shape, ref.shape)
    assert out.dtype == np.dtype(dtype)
    err = np.abs(out.astype(np.float64) - ref)
    tol = max(k, 1) * (eps or EPS[dtype]) * bound + 1e-30
    assert (err <= tol).all(), f"max error {err.max()} (tolerance {tol.max()})"


def transposed(t):
    """t with its last two dims swapped, as a view over the same memory."""
    if hasattr(t, "transpose"):
        return t.transpose(-2, -1)
    if t.device.type == "cpu":
        return pdt.from_numpy(np.swapaxes(t.numpy(), -1, -2))
    pytest.skip("needs Tensor.transpose (the views of issue 4) to make a GPU view")


def column_major(x, device):
    """A tensor on device holding x's values with its last two dims stored transposed."""
    return transposed(pdt.tensor(np.ascontiguousarray(np.swapaxes(x, -1, -2)), device=device))


def peak_during(device, fn):
    """(result, extra bytes at the peak while fn ran beyond those allocated before)."""
    before = pdt.memory_allocated(device)
    pdt.reset_peak_memory_stats(device)
    result = fn()
    return result, pdt.max_memory_allocated(device) - before


SHAPES = [
    ((3,), (3,)),              # dot -> 0-d
    ((2, 3), (3,)),            # matrix . vector
    ((3,), (3, 4)),            # vector . matrix
    ((2, 3), (3, 4)),
    ((1, 3), (3, 1)),
    ((5, 2, 3), (5, 3, 4)),    # batched
    ((5, 2, 3), (3, 4)),       # B broadcast over the batch (one folded GEMM)
    ((5, 1, 3), (3, 4)),       # m == 1, folded
    ((2, 3), (5, 3, 4)),       # A broadcast
    ((1, 2, 3), (5, 3, 4)),
    ((2, 1, 2, 3), (3, 3, 4)),  # 4-D with broadcast batch dims
    ((7, 1, 2, 3), (1, 6, 3, 2)),
    ((4,), (2, 4, 3)),         # batched vector . matrix
    ((2, 4, 3), (3,)),         # batched matrix . vector
    ((0, 3), (3, 4)),          # zero-size
    ((2, 3), (3, 0)),
    ((0, 2, 3), (3, 4)),
    ((2, 0), (0, 3)),          # k == 0: zeros
    ((2, 2, 0), (2, 0, 5)),
    ((0,), (0,)),              # empty dot: 0
]


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_matmul_shapes_match_numpy(device, dtype, sa, sb):
    a, b = sample(sa, dtype, 1), sample(sb, dtype, 2)
    ta, tb = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
    got = ta @ tb
    assert got.device == device and got.dtype.name == dtype
    check_product(got, a, b, dtype)
    check_product(pdt.matmul(ta, tb), a, b, dtype)
    check_product(ta.matmul(tb), a, b, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_k_zero_gives_zeros_not_garbage(device, dtype):
    # the output is fresh, uninitialised memory: k == 0 must still read as zeros
    for _ in range(3):
        pdt.full((64, 64), float("nan"), dtype=dtype, device=device)  # dirty the allocator
        got = pdt.empty(64, 0, dtype=dtype, device=device) @ pdt.empty(0, 64, dtype=dtype,
                                                                       device=device)
        assert not host(got).any()


def test_mm_bmm_dot(device):
    a, b = sample((4, 3), "float64", 1), sample((3, 5), "float64", 2)
    ta, tb = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
    check_product(pdt.mm(ta, tb), a, b, "float64")
    check_product(ta.mm(tb), a, b, "float64")
    c, d = sample((6, 4, 3), "float32", 3), sample((6, 3, 2), "float32", 4)
    tc, td = pdt.tensor(c, device=device), pdt.tensor(d, device=device)
    check_product(pdt.bmm(tc, td), c, d, "float32")
    check_product(tc.bmm(td), c, d, "float32")
    v, w = sample((7,), "float32", 5), sample((7,), "float32", 6)
    tv, tw = pdt.tensor(v, device=device), pdt.tensor(w, device=device)
    assert pdt.dot(tv, tw).shape == () and tv.dot(tw).ndim == 0
    check_product(pdt.dot(tv, tw), v, w, "float32")
    ints = pdt.tensor([1, 2, 3], device=device), pdt.tensor([4, 5, 6], device=device)
    assert pdt.dot(*ints).item() == 32


@pytest.mark.parametrize("dtype", FLOATS)
def test_a_row_times_a_column_in_every_layout(device, dtype):
    # m == n == 1 is a dot on the CPU (the BLAS's for float64 and strided vectors,
    # Note [matrix times vector] in cpu_gemm.c; cpu_dot.c's for contiguous float32):
    # strided vectors, a (1, k) row and a (k, 1) column stored either way, addmm's
    # alpha and beta, and a NaN result buffer that beta == 0 ignores.
    k = 1000
    v, w = sample((3 * k,), dtype, 7), sample((2 * k,), dtype, 8)
    tv, tw = pdt.tensor(v, device=device), pdt.tensor(w, device=device)
    check_product(pdt.dot(tv[::3], tw[::2]), v[::3], w[::2], dtype)
    check_product(pdt.dot(tv[:k], tw[k:]), v[:k], w[k:], dtype)
    row, col = v[:k].reshape(1, k), w[:k].reshape(k, 1)
    tr, tc = pdt.tensor(row, device=device), pdt.tensor(col, device=device)
    check_product(tr @ tc, row, col, dtype)
    check_product(tc.T.contiguous().T.T @ tr.T.contiguous().T.T, row, col, dtype)
    check_product(transposed(pdt.tensor(row.T.copy(), device=device)) @
                  transposed(pdt.tensor(col.T.copy(), device=device)), row, col, dtype)
    c = pdt.full((1, 1), float("nan"), dtype=dtype, device=device)
    check_product(pdt.addmm(c, tr, tc, beta=0), row, col, dtype)
    c0 = np.array([[3.0]], dtype=dtype)
    got = host(pdt.addmm(pdt.tensor(c0, device=device), tr, tc, beta=0.5, alpha=2.0))
    want = 0.5 * 3.0 + 2.0 * (row.astype(np.float64) @ col.astype(np.float64))
    bound = 1.5 + 2.0 * (np.abs(row.astype(np.float64)) @ np.abs(col.astype(np.float64)))
    assert abs(got[0, 0] - want[0, 0]) <= 4 * k * EPS[dtype] * bound[0, 0]


def _float32_dot_bound(x, y):
    """Note [float32 dot products] in cpu_dot.c: 2^-24 |ref| + (17 2^-24 + k 2^-53)
    sum |x y|, ref and the sum in float64 (exact products of float32 values)."""
    p = x.astype(np.float64) * y.astype(np.float64)
    ref = p.sum()
    return ref, 2.0 ** -24 * abs(ref) + (17 * 2.0 ** -24 + len(x) * 2.0 ** -53) * np.abs(p).sum()


def _dots_on_every_level_and_thread_count(a, b):
    """the set of results of dot(a, b) and of a row times a column at every
    instruction-set level, on one and two threads (then restored)"""
    from pydevtensor import _C
    start_level, levels = _C._cpu_simd_level()
    start_threads = pdt.get_num_threads()
    got = set()
    try:
        for level in levels:
            _C._cpu_simd_level(level)
            for n in (1, 2):
                pdt.set_num_threads(n)
                got.add(pdt.dot(pdt.from_numpy(a), pdt.from_numpy(b)).item())
                got.add((pdt.from_numpy(a[None]) @ pdt.from_numpy(b[:, None])).item())
    finally:
        _C._cpu_simd_level(start_level)
        pdt.set_num_threads(start_threads)
    return got


def test_float32_dot_same_bits_on_every_level_and_thread_count_within_its_bound():
    # contiguous float32 vectors are the CPU's own dot (Note [float32 dot products] in
    # cpu_dot.c): products rounded to float32, added in float32 lanes within blocks of
    # 1024, blocks and chunks in double.  Lengths across the lanes (64), the blocks
    # (1024), the chunks (4096) and the pool's threshold (65536); the same bits at
    # every instruction-set level and on one and two threads.  The second sample
    # breaks a sum kept in float32 all the way: 2^24 then k - 1 ones (each lost).
    rng = np.random.default_rng(11)
    for k in (1, 63, 64, 65, 1023, 1024, 1025, 4095, 4097, 65536 + 4096 * 3 + 17, 300_001):
        x = rng.standard_normal(k).astype(np.float32)
        y = (rng.standard_normal(k) * 10.0 ** rng.integers(-3, 4, k)).astype(np.float32)
        ones = np.ones(k, np.float32)
        big = np.ones(k, np.float32)
        big[0] = 2.0 ** 24
        for a, b in ((x, y), (ones, big)):
            got = _dots_on_every_level_and_thread_count(a, b)
            assert len(got) == 1, (k, got)
            ref, bound = _float32_dot_bound(a, b)
            assert abs(got.pop() - ref) <= bound, (k, ref, bound)


def _exact_dot(x, y):
    """the float64 dot of x and y, rounded once: each product split exactly into p + e
    (Dekker's two-product with Veltkamp's split; no fused multiply-add in NumPy), the
    2k terms summed by math.fsum; and the sum of |p|"""
    def split(v):
        c = v * 134217729.0  # 2^27 + 1
        hi = c - (c - v)
        return hi, v - hi
    p = x * y
    xh, xl = split(x)
    yh, yl = split(y)
    e = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl
    return math.fsum(np.concatenate([p, e])), np.abs(p).sum()


def test_float64_dot_same_bits_on_every_level_and_thread_count_within_its_bound():
    # contiguous float64 vectors are the CPU's own dot too (Note [float64 dot products]
    # in cpu_dot.c): products rounded to double into 32 lanes, folded in a fixed tree,
    # chunks of 4096 added in order.  Lengths across the lanes (32), the chunks (4096)
    # and the pool's threshold; the same bits at every instruction-set level and on one
    # and two threads, for dot and a row times a column, within the stated bound.
    rng = np.random.default_rng(12)
    for k in (1, 31, 32, 33, 4095, 4096, 4097, 65536 + 4096 * 3 + 17, 300_001):
        x = rng.standard_normal(k)
        y = rng.standard_normal(k) * 10.0 ** rng.integers(-8, 9, k)
        got = _dots_on_every_level_and_thread_count(x, y)
        assert len(got) == 1, (k, got)
        ref, size = _exact_dot(x, y)
        bound = (-(-min(k, 4096) // 32) + 6 + -(-k // 4096)) * 2.0 ** -53 * size
        assert abs(got.pop() - ref) <= bound, (k, ref, bound)


# ---- transposed views: read in place through the BLAS flags -------------------------


def cpu_view(a, layout):
    """A CPU tensor holding a's values with the given memory layout (a NumPy view)."""
    if layout == "T":  # column-major storage: strides (1, ld)
        return pdt.from_numpy(np.ascontiguousarray(np.swapaxes(a, -1, -2)).swapaxes(-1, -2))
    if layout == "padded":  # row-major with ld > cols: a slice of a wider matrix
        wide = np.zeros(a.shape[:-1] + (a.shape[-1] + 3,), a.dtype)
        wide[..., :a.shape[-1]] = a
        return pdt.from_numpy(wide[..., :a.shape[-1]])
    if layout == "strided":  # every other column: no BLAS layout, copied first
        wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
        wide[..., ::2] = a
        return pdt.from_numpy(wide[..., ::2])
    return pdt.from_numpy(np.ascontiguousarray(a))


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("la", ["C", "T", "padded", "strided"])
@pytest.mark.parametrize("lb", ["C", "T", "padded", "strided"])
@pytest.mark.parametrize("sa,sb", [((6, 5), (5, 4)), ((3, 6, 5), (3, 5, 4)), ((3, 6, 5), (5, 4))])
def test_cpu_layouts(dtype, la, lb, sa, sb):
    a, b = sample(sa, dtype, 1), sample(sb, dtype, 2)
    ta, tb = cpu_view(a, la), cpu_view(b, lb)
    got, extra = peak_during("cpu", lambda: ta @ tb)
    check_product(got, a, b, dtype)
    out_bytes = got.nbytes
    if "strided" not in (la, lb):
        assert extra == out_bytes, "a transposed or padded operand was copied"
    else:
        assert extra > out_bytes  # the strided operand had to be copied


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_cpu_batch_strides_loop_without_copies(dtype):
    # batch dims that cannot merge into one stride (swapped, sliced, broadcast) are
    # looped over; the matrices themselves are still read in place
    x = sample((4, 3, 5, 6), dtype, 1)
    a = np.swapaxes(x, 0, 1)[:, ::2]              # (3, 2, 5, 6), batch strides out of order
    b = np.swapaxes(sample((1, 2, 7, 6), dtype, 2), -1, -2)  # (1, 2, 6, 7) column-major
    ta, tb = pdt.from_numpy(a), pdt.from_numpy(b)
    got, extra = peak_during("cpu", lambda: ta @ tb)
    check_product(got, a, b, dtype)
    assert extra == got.nbytes


@pytest.mark.parametrize("dtype", FLOATS)
def test_transposed_views_are_not_copied(device, dtype):
    a, b = sample((40, 30), dtype, 1), sample((40, 20), dtype, 2)
    ta, tb = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
    at = transposed(ta)  # (30, 40), strides (1, 30)
    assert at.stride() == (1, 30)
    # Only the products are counted: check_product's own .cpu() is a transfer, so the
    # stats are read before it.
    pdt.reset_transfer_stats()
    got, extra = peak_during(device, lambda: at @ tb)
    assert all(v["count"] == 0 for v in pdt.transfer_stats().values())
    assert extra == got.nbytes
    check_product(got, a.T, b, dtype)
    pdt.reset_transfer_stats()
    got, extra = peak_during(device, lambda: transposed(tb) @ transposed(at))  # (20, 40) @ (40, 30)
    assert all(v["count"] == 0 for v in pdt.transfer_stats().values())
    assert extra == got.nbytes
    check_product(got, b.T, a, dtype)


def test_linear_layer_shape_uses_weight_transposed(device):
    # nn.Linear: x (batch, seq, in) @ W.T (in, out) + b, W (out, in)
    x, w = sample((4, 3, 8), "float32", 1), sample((5, 8), "float32", 2)
    bias = sample((5,), "float32", 3)
    tx, tw = pdt.tensor(x, device=device), pdt.tensor(w, device=device)
    got, extra = peak_during(device, lambda: tx @ transposed(tw))
    check_product(got, x, w.T, "float32")
    assert extra == got.nbytes
    x2 = x.reshape(12, 8)
    got = pdt.addmm(pdt.tensor(bias, device=device), pdt.tensor(x2, device=device), transposed(tw))
    ref = x2.astype(np.float64) @ w.T.astype(np.float64) + bias
    np.testing.assert_allclose(host(got), ref, rtol=1e-5, atol=1e-5)


# ---- addmm ---------------------------------------------------------------------------


@pytest.mark.parametrize("input_shape", [(), (4,), (1, 4), (3, 1), (3, 4)])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2.0), (0, 1), (2, 0)])
def test_addmm_matches_numpy(device, input_shape, beta, alpha):
    inp, m1 = sample(input_shape, "float64", 1), sample((3, 5), "float64", 2)
    m2 = sample((5, 4), "float64", 3)
    t = [pdt.tensor(x, device=device) for x in (inp, m1, m2)]
    got = pdt.addmm(*t, beta=beta, alpha=alpha)
    ref = beta * np.broadcast_to(inp, (3, 4)) + alpha * (m1 @ m2)
    assert got.shape == (3, 4)
    np.testing.assert_allclose(host(got), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(host(t[0].addmm(t[1], t[2], beta=beta, alpha=alpha)), ref,
                               rtol=1e-12, atol=1e-12)


def test_addmm_beta_zero_ignores_nan_input(device):
    inp = pdt.full((2, 2), float("nan"), device=device)
    m = pdt.ones(2, 3, device=device)
    got = pdt.addmm(inp, m, pdt.ones(3, 2, device=device), beta=0)
    assert host(got).tolist() == [[3.0, 3.0], [3.0, 3.0]]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("beta,expect", [(0, 0.0), (1, 7.0), (3, 21.0)])
def test_addmm_with_k_zero(device, beta, expect, dtype):
    # an empty sum: beta * input (on CUDA the tiled kernel scales it; its float64 form
    # had run in no test, by the emulated device's coverage)
    dt = getattr(pdt, dtype)
    inp = pdt.full((2, 3), 7, dtype=dt, device=device)
    got = pdt.addmm(inp, pdt.empty(2, 0, dtype=dt, device=device),
                    pdt.empty(0, 3, dtype=dt, device=device), beta=beta)
    assert got.dtype == dt and (host(got) == expect).all()


def test_addmm_integers(device):
    inp, m1, m2 = sample((4,), "int64", 1), sample((3, 5), "int64", 2), sample((5, 4), "int64", 3)
    got = pdt.addmm(*(pdt.tensor(x, device=device) for x in (inp, m1, m2)), beta=2, alpha=3)
    np.testing.assert_array_equal(host(got), 2 * inp + 3 * (m1 @ m2))
    with pytest.raises(TypeError, match="must be integers"):
        pdt.addmm(*(pdt.tensor(x, device=device) for x in (inp, m1, m2)), alpha=0.5)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
def test_addmm_small_integers_wrap_as_mm(device, dtype):
    # the GEMMs have none of these: computed in int32 and wrapped back, as mm's products
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    inp, m1, m2 = (rng.integers(info.min, info.max, s, endpoint=True).astype(dtype)
                   for s in ((1, 5), (4, 7), (7, 5)))
    args = [pdt.tensor(x, device=device) for x in (inp, m1, m2)]
    wide = [x.astype(np.int64) for x in (inp, m1, m2)]
    for beta, alpha in ((1, 1), (3, -7), (0, 5)):
        got = pdt.addmm(*args, beta=beta, alpha=alpha)
        assert got.dtype == getattr(pdt, dtype) and got.device == device
        ref = (beta * wide[0] + alpha * (wide[1] @ wide[2])).astype(dtype)  # wraps
        np.testing.assert_array_equal(host(got), ref)
    x = pdt.tensor(np.broadcast_to(inp, (4, 5)).copy(), device=device)
    assert x.addmm_(args[1], args[2]) is x
    np.testing.assert_array_equal(host(x), (wide[0] + wide[1] @ wide[2]).astype(dtype))
    np.testing.assert_array_equal(host(args[0].addmm(args[1], args[2], alpha=2)),
                                  (wide[0] + 2 * (wide[1] @ wide[2])).astype(dtype))
    with pytest.raises(TypeError, match=f"addmm: for {dtype} tensors, beta and alpha must be"):
        pdt.addmm(*args, beta=0.5)
    with pytest.raises(ValueError, match=r"addmm: input of shape \(2, 5\) cannot be broadcast"):
        pdt.addmm(args[0].expand(2, 5), *args[1:])


def test_mm_names_its_operands_as_pytorch(device):
    x = pdt.ones(2, 2, device=device)
    assert pdt.mm(x, mat2=x).tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert pdt.mm(input=x, mat2=x, out=pdt.empty(2, 2, device=device)).tolist() == [[2.0] * 2] * 2
    with pytest.raises(TypeError, match="unexpected keyword"):
        pdt.mm(x, other=x)


# ---- integers ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", INTS)
def test_integer_matmul_is_exact_and_wraps(device, dtype):
    a, b = sample((33, 17), dtype, 1), sample((17, 19), dtype, 2)
    ta, tb = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
    check_product(ta @ tb, a, b, dtype)
    check_product(column_major(a, device) @ tb, a, b, dtype)
    check_product(ta @ column_major(b, device), a, b, dtype)
    big = np.full((2, 4), np.iinfo(dtype).max // 2 + 7, dtype=dtype)
    with np.errstate(over="ignore"):
        ref = big @ big.T.copy()
    got = pdt.tensor(big, device=device) @ pdt.tensor(big.T.copy(), device=device)
    np.testing.assert_array_equal(host(got), ref)


# ---- errors --------------------------------------------------------------------------

ERRORS = [
    # (function, shapes, dtypes, exception, words in the message)
    (pdt.matmul, [(2, 3), (4, 5)], None, ValueError, ["matmul", "(2, 3)", "(4, 5)", "3 != 4"]),
    (pdt.matmul, [(3,), (4,)], None, ValueError, ["(3,)", "(4,)"]),
    (pdt.matmul, [(2, 2, 3), (3, 3, 4)], None, ValueError, ["broadcast", "(2, 2, 3)", "(3, 3, 4)"]),
    (pdt.matmul, [(), (3,)], None, ValueError, ["at least 1 dimension", "0 and 1"]),
    (pdt.matmul, [(2, 3), (3, 4)], ["float32", "float64"], TypeError, ["float32", "float64"]),
    (pdt.matmul, [(2, 3), (3, 4)], ["bool", "bool"], NotImplementedError, ["bool"]),
    (pdt.mm, [(3,), (3, 4)], None, ValueError, ["mm", "(3,)", "(3, 4)", "2-D"]),
    (pdt.mm, [(2, 3), (4, 5)], None, ValueError, ["mm", "3 != 4"]),
    (pdt.bmm, [(2, 3, 4), (3, 4, 5)], None, ValueError, ["bmm", "batch", "2 != 3"]),
    (pdt.bmm, [(3, 4), (4, 5)], None, ValueError, ["bmm", "3-D"]),
    (pdt.dot, [(3,), (4,)], None, ValueError, ["dot", "(3,)", "(4,)"]),
    (pdt.dot, [(3, 1), (3,)], None, ValueError, ["dot", "1-D"]),
    (pdt.addmm, [(5,), (2, 3), (3, 4)], None, ValueError, ["addmm", "(5,)", "(2, 4)"]),
    (pdt.addmm, [(4,), (2, 3), (2, 4)], None, ValueError, ["addmm", "3 != 2"]),
    (pdt.addmm, [(4,), (2, 3), (3, 4)], ["float64", "float32", "float32"], TypeError, ["float64"]),
]


@pytest.mark.parametrize("fn,shapes,dtypes,exc,words", ERRORS)
def test_errors_name_the_problem(device, fn, shapes, dtypes, exc, words):
    dtypes = dtypes or ["float32"] * len(shapes)
    args = [pdt.zeros(s, dtype=d, device=device) for s, d in zip(shapes, dtypes)]
    with pytest.raises(exc) as info:
        fn(*args)
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_operator_forms(device):
    x = pdt.ones(2, 2, device=device)
    with pytest.raises(RuntimeError, match="a = a @ b"):
        x @= x
    with pytest.raises(TypeError):
        x @ 2
    with pytest.raises(TypeError):
        [[1.0, 2.0]] @ x
    with pytest.raises(TypeError, match="must be a Tensor"):
        pdt.matmul(x, [[1.0], [2.0]])
    with pytest.raises(TypeError, match="unexpected keyword"):
        pdt.matmul(x, x, bogus=1)
    with pytest.raises(TypeError, match="multiple values"):
        pdt.matmul(x, x, other=x)
    assert pdt.matmul(input=x, other=x).tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert pdt.addmm(x, mat1=x, mat2=x, beta=0).tolist() == [[2.0, 2.0], [2.0, 2.0]]


@pytest.mark.cuda
@pytest.mark.parametrize("fn,shapes,arg", [
    (pdt.matmul, [(2, 2), (2, 2)], "other"), (pdt.mm, [(2, 2), (2, 2)], "mat2"),
    (pdt.bmm, [(1, 2, 2), (1, 2, 2)], "mat2"), (pdt.dot, [(2,), (2,)], "tensor"),
    (pdt.addmm, [(2,), (2, 2), (2, 2)], "mat2")])
def test_device_mismatch_names_both_devices_the_op_and_the_argument(fn, shapes, arg):
    args = [pdt.ones(s, device="cuda:0") for s in shapes[:-1]] + [pdt.ones(shapes[-1])]
    with pytest.raises(RuntimeError) as info:
        fn(*args)
    msg = str(info.value)
    assert "Expected all tensors to be on the same device" in msg
    assert "cuda:0" in msg and "cpu" in msg and fn.__name__ in msg and f"'{arg}'" in msg


# ---- properties ----------------------------------------------------------------------


@st.composite
def product_shapes(draw):
    """Shapes of a and b that torch.matmul accepts, batch broadcasting included."""
    m, k, n = (draw(st.integers(0, 6)) for _ in range(3))
    nb = draw(st.integers(0, 3))
    batch = [draw(st.integers(0, 3)) for _ in range(nb)]
    ba = [s if draw(st.booleans()) else 1 for s in batch][draw(st.integers(0, nb)):]
    bb = [s if draw(st.booleans()) else 1 for s in batch][draw(st.integers(0, nb)):]
    sa = tuple(ba) + (m, k) if draw(st.integers(0, 4)) else (k,)
    sb = tuple(bb) + (k, n) if draw(st.integers(0, 4)) else (k,)
    return sa, sb, draw(st.booleans()), draw(st.booleans())


@pytest.mark.parametrize("device_name", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS + INTS)
@settings(max_examples=120, deadline=None)
@given(shapes=product_shapes(), seed=st.integers(0, 2 ** 16))
def test_matmul_property(device_name, dtype, shapes, seed):
    device = pdt.device(device_name)
    sa, sb, ta_flag, tb_flag = shapes
    a, b = sample(sa, dtype, seed), sample(sb, dtype, seed + 1)

    def put(x, flag):
        if flag and x.ndim >= 2 and (hasattr(pdt.Tensor, "transpose") or device.type == "cpu"):
            return column_major(x, device)
        return pdt.tensor(x, device=device)

    check_product(put(a, ta_flag) @ put(b, tb_flag), a, b, dtype)


# ---- threads, TF32 -------------------------------------------------------------------


def test_products_from_several_threads(device):
    a, b = sample((128, 96), "float64", 1), sample((96, 64), "float64", 2)
    ta, tb = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
    errors = []

    def work():
        try:
            for _ in range(5):
                check_product(ta @ tb, a, b, "float64")
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_allow_tf32_switch():
    m = pdt.backends.cuda.matmul
    assert m.allow_tf32 is False  # PyTorch's default
    try:
        m.allow_tf32 = True
        assert m.allow_tf32 is True and pdt._C._get_allow_tf32() is True
        # the CPU ignores it: float32 stays exact to float32 rounding
        a, b = sample((20, 30), "float32", 1), sample((30, 10), "float32", 2)
        check_product(pdt.tensor(a) @ pdt.tensor(b), a, b, "float32")
    finally:
        m.allow_tf32 = False
    assert m.allow_tf32 is False
    with pytest.raises(AttributeError):
        m.allow_fp64_magic = True


@pytest.mark.cuda
def test_tf32_on_gpu_is_within_tf32_tolerance():
    a, b = sample((256, 512), "float32", 1), sample((512, 128), "float32", 2)
    ta, tb = pdt.tensor(a, device="cuda"), pdt.tensor(b, device="cuda")
    try:
        pdt.backends.cuda.matmul.allow_tf32 = True
        check_product(ta @ tb, a, b, "float32", eps=2.0 ** -10)
    finally:
        pdt.backends.cuda.matmul.allow_tf32 = False
    check_product(ta @ tb, a, b, "float32")  # back to full float32


def test_backends_is_importable():
    import pydevtensor.backends.cuda as bc
    assert bc.matmul is pdt.backends.cuda.matmul
    assert bc.is_built() == pdt.cuda.is_built()
    assert not CUDA_AVAILABLE or bc.is_built()


def test_failure_midway_leaves_nothing_allocated():
    # the output fits under the limit, the copy of the strided operand does not:
    # OutOfMemoryError, and the output allocated before it is given back
    cpu = pdt.device("cpu")
    a = cpu_view(sample((64, 64), "float64", 1), "strided")
    b = pdt.from_numpy(sample((64, 8), "float64", 2))
    base = pdt.memory_allocated(cpu)
    pdt._C._set_memory_limit(cpu, base + 64 * 8 * 8 + 1024)
    try:
        with pytest.raises(pdt.OutOfMemoryError):
            a @ b
        assert pdt.memory_allocated(cpu) == base
    finally:
        pdt._C._set_memory_limit(cpu, 0)
    check_product(a @ b, a.numpy(), b.numpy(), "float64")


@pytest.mark.parametrize("dtype", INTS)
def test_integer_matmul_across_its_blocks(device, dtype):
    """Note [integer GEMM]: shapes past the row block (32), the k panel (128) and the
    column panel (512 int32, 256 int64), B transposed (packed), a broadcast batch and
    addmm's alpha and beta; exact, against NumPy in int64 (no overflow at these values),
    at every CPU dispatch level."""
    from pydevtensor import _C
    rng = np.random.default_rng(9)
    a = rng.integers(-100, 100, (70, 300)).astype(dtype)
    b = rng.integers(-100, 100, (300, 600)).astype(dtype)
    c = rng.integers(-100, 100, (70, 600)).astype(dtype)
    want = a.astype(np.int64) @ b.astype(np.int64)
    levels = _C._cpu_simd_level()[1] if device == "cpu" else [None]
    old = _C._cpu_simd_level()[0]
    try:
        for level in levels:
            if level:
                _C._cpu_simd_level(level)
            ta, tb = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
            np.testing.assert_array_equal(host(ta @ tb), want)
            np.testing.assert_array_equal(host(ta @ column_major(b, device)), want)
            np.testing.assert_array_equal(host(column_major(a, device) @ tb), want)
            batch = pdt.tensor(np.stack([a, -a]), device=device) @ tb  # B broadcast
            np.testing.assert_array_equal(host(batch), np.stack([want, -want]))
            got = pdt.addmm(pdt.tensor(c, device=device), ta, tb, beta=3, alpha=2)
            np.testing.assert_array_equal(host(got), 3 * c.astype(np.int64) + 2 * want)
    finally:
        _C._cpu_simd_level(old)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mv_matches_numpy_and_carries_the_gradient(device, dtype):
    """mv(A, x) and A.mv(x) (D2L's linear algebra), against NumPy in float64 (float32:
    2e-6 relative, the sums' rounding at k = 37), and its gradient."""
    rng = np.random.default_rng(3)
    a, x = rng.standard_normal((5, 37)), rng.standard_normal(37)
    A = pdt.tensor(a, dtype=getattr(pdt, dtype), device=device, requires_grad=True)
    v = pdt.tensor(x, dtype=getattr(pdt, dtype), device=device)
    tol = 2e-6 if dtype == "float32" else 1e-12
    for got in (pdt.mv(A, v), A.mv(v)):
        assert got.device == A.device and tuple(got.shape) == (5,)
        np.testing.assert_allclose(got.detach().cpu().numpy(), a @ x, rtol=tol, atol=tol * 10)
    pdt.mv(A, v).sum().backward()
    np.testing.assert_allclose(A.grad.cpu().numpy(), np.tile(x, (5, 1)), rtol=tol)
    with pytest.raises(RuntimeError, match=r"mv: expected a 2-d matrix and a 1-d vector, got "
                                           r"shapes \(37,\) and \(37,\)"):
        pdt.mv(v, v)
