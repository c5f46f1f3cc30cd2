"""The everyday API of issue 17 against NumPy in float64, on every device.

Tolerances (|got - ref| <= atol + rtol |ref|): exact for ops that only move
elements (cat, stack, split, chunk, where, masked_fill, gather, index_select,
nonzero, sort, argsort, topk, expand, repeat, flip, tril, triu) and for integer
results; float32 results of arithmetic (softmax, log_softmax, var, std, cumsum,
outer, einsum, norm) use rtol 1e-5, atol 1e-5 (inputs in [-3, 3], at most 64
terms per sum); float64 results rtol 1e-12, atol 1e-12.  Shapes stay small: the
cuda-marked cases run three times on the emulated device in CI.  The ops that compute
(cumsum, softmax, var, std, isnan, allclose, outer, einsum, norms):
test_everyday_ops_math.py.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES, raises_index_error

TOL = {"float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12)}


def host(t):
    return t.cpu().numpy()


def data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype in ("int32", "int64"):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return rng.uniform(-3, 3, size=shape).astype(dtype)


def close(got, ref, dtype):
    got = host(got) if isinstance(got, pdt.Tensor) else np.asarray(got)
    atol, rtol = TOL.get(dtype, (0, 0))
    assert got.shape == np.shape(ref), (got.shape, np.shape(ref))
    ref = np.asarray(ref, dtype=np.float64)
    g = got.astype(np.float64)
    ok = (np.abs(g - ref) <= atol + rtol * np.abs(ref)) | (np.isnan(g) & np.isnan(ref))
    assert ok.all(), f"max error {np.nanmax(np.abs(g - ref))}"


def exact(got, ref):
    got = host(got)
    assert got.shape == np.shape(ref), (got.shape, np.shape(ref))
    np.testing.assert_array_equal(got, ref)


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "float64"])
def test_cat_stack(dev, dtype):
    a, b = data((2, 3), dtype, 1), data((2, 5), dtype, 2)
    ta, tb = pdt.tensor(a, device=dev), pdt.tensor(b, device=dev)
    exact(pdt.cat([ta, tb], dim=1), np.concatenate([a, b], 1))
    exact(pdt.cat((ta, ta), -2), np.concatenate([a, a], 0))
    exact(pdt.concat([ta, pdt.empty(0, device=dev)]), a)  # 1-d empty parts are skipped
    exact(pdt.stack([ta, ta], dim=2), np.stack([a, a], 2))
    exact(pdt.stack([ta, ta]), np.stack([a, a]))


@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
def test_cat_of_views_and_many_parts(dev, dtype):
    # the C fast path (one dtype and device: views on the C stack up to 16 parts, on
    # the heap past that) and the Python path (a generator) give NumPy's result: 3-d parts along every dim, transposed
    # and strided parts, parts of length 0 along dim, a tuple
    a, b, c = (data(s, dtype, k) for k, s in enumerate([(4, 3, 5), (4, 2, 5), (4, 0, 5)]))
    ta, tb, tc = (pdt.tensor(x, device=dev) for x in (a, b, c))
    exact(pdt.cat((ta, tb, tc, ta), 1), np.concatenate([a, b, c, a], 1))
    exact(pdt.cat([ta, ta[:, :, ::2][:, :, :2]], 2), np.concatenate([a, a[:, :, ::2][:, :, :2]], 2))
    exact(pdt.cat([ta.transpose(0, 2)] * 2, 0), np.concatenate([a.transpose(2, 1, 0)] * 2, 0))
    exact(pdt.cat([ta[1:3, ::2], ta[:2, 1:]], -3), np.concatenate([a[1:3, ::2], a[:2, 1:]], 0))
    for n in (16, 17, 300):  # 17 and 300: the views on the heap
        exact(pdt.cat([ta] * n, -1), np.concatenate([a] * n, -1))
    exact(pdt.cat(iter([ta, tb]), 1), np.concatenate([a, b], 1))  # not a list: Python's path


def test_cat_and_stack_of_a_generator_record_the_gradient(dev):
    # the recorder looks into lists and tuples: a generator is read into a list first
    # (it once gave a result with no grad_fn, and backward() failed)
    w = pdt.tensor([1.0, 2.0], device=dev, requires_grad=True)
    for op, scale in ((pdt.cat, [1, 1, 3, 3]), (pdt.stack, [[1, 1], [3, 3]])):
        y = op(t for t in (w, w * 3))
        assert y.grad_fn is not None
        (y * pdt.tensor(scale, dtype=pdt.float32, device=dev)).sum().backward()
        np.testing.assert_array_equal(host(w.grad), [10.0, 10.0])
        w.grad = None


def test_a_cat_too_large_is_out_of_memory_and_a_huge_dim_an_index_error(dev):
    # the C fast path: a result it cannot allocate raises (it released garbage once),
    # and a dim past any integer range goes to the Python path's message
    x = pdt.zeros(1, device=dev).expand(2 ** 40)
    with pytest.raises(pdt.OutOfMemoryError, match="out of memory"):
        pdt.cat([x, x])
    with pytest.raises(IndexError, match="Dimension out of range"):
        pdt.cat([pdt.zeros(2, device=dev)] * 2, dim=2 ** 70)


def test_cat_promotes_and_refuses(dev):
    a = pdt.tensor([1, 2], dtype=pdt.int32, device=dev)
    b = pdt.tensor([0.5], dtype=pdt.float64, device=dev)
    out = pdt.cat([a, b])
    assert out.dtype == pdt.float64
    exact(out, [1, 2, 0.5])
    with pytest.raises(RuntimeError, match="Sizes of tensors must match"):
        pdt.cat([pdt.zeros(2, 3, device=dev), pdt.zeros(2, 4, device=dev)])
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        pdt.stack([pdt.zeros(2, device=dev), pdt.zeros(3, device=dev)])
    with pytest.raises(IndexError, match="Dimension out of range"):
        pdt.cat([a, a], dim=2)


@pytest.mark.cuda
def test_cat_refuses_two_devices():
    with pytest.raises(RuntimeError, match="same device.*cpu.*cuda:0|same device.*cuda:0.*cpu"):
        pdt.cat([pdt.zeros(2), pdt.zeros(2, device="cuda:0")])


def test_split_chunk(dev):
    a = data((7, 2), "float32")
    t = pdt.tensor(a, device=dev)
    parts = pdt.split(t, 3)
    assert [tuple(p.shape) for p in parts] == [(3, 2), (3, 2), (1, 2)]
    for p, r in zip(parts, np.split(a, [3, 6])):
        exact(p, r)
    assert parts[0].data_ptr() == t.data_ptr()  # views
    parts = t.split([2, 5], dim=0)
    exact(parts[1], a[2:])
    for p, r in zip(t.chunk(3), [a[:3], a[3:6], a[6:]]):
        exact(p, r)
    assert len(pdt.chunk(t, 2, dim=1)) == 2
    with pytest.raises(RuntimeError, match="sum exactly to 7"):
        t.split([2, 2])


@pytest.mark.parametrize("dtype", ["int64", "float32"])
def test_where_masked_fill(dev, dtype):
    a, b = data((3, 4), dtype, 1), data((4,), dtype, 2)
    c = data((3, 4), "bool", 3)
    ta, tb, tc = (pdt.tensor(x, device=dev) for x in (a, b, c))
    exact(pdt.where(tc, ta, tb), np.where(c, a, b))
    exact(pdt.where(tc, ta, 0), np.where(c, a, 0))
    exact(ta.where(tc, tb), np.where(c, a, b))
    exact(ta.masked_fill(tc, 9), np.where(c, 9, a))
    row = pdt.tensor(c[0], device=dev)
    exact(pdt.masked_fill(ta, row, -1), np.where(c[0], -1, a))
    t = ta.clone()
    assert t.masked_fill_(tc, 7) is t
    exact(t, np.where(c, 7, a))
    with pytest.raises(TypeError, match="condition must be a bool tensor"):
        pdt.where(ta, ta, tb)


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float32", "float64"])
def test_where_selects_the_bits_of_either_side(dev, dtype):
    # Long contiguous operands, each side a tensor or a number, split across
    # threads, with -0.0 and NaN, and a condition whose True bytes are not all 1
    # (a NumPy bool view of other bytes): NumPy's bytes in every case.
    n = 200_003
    rng = np.random.default_rng(4)
    a, b = data((n,), dtype, 5), data((n,), dtype, 6)
    if dtype.startswith("float"):
        a[:3] = [-0.0, np.nan, np.inf]
        b[:3] = [np.nan, -0.0, -np.inf]
    c = (rng.integers(0, 4, n).astype(np.uint8) * 85).view(bool)
    ta, tb, tc = pdt.from_numpy(a).to(dev), pdt.from_numpy(b).to(dev), pdt.from_numpy(c).to(dev)
    cases = [(ta, tb, a, b), (ta, b[7].item(), a, b[7]), (a[9].item(), tb, a[9], b),
             (a[9].item(), b[7].item(), a[9], b[7])]
    for x, y, xn, yn in cases:
        got = host(pdt.where(tc, x, y))
        numbers = not isinstance(x, pdt.Tensor) and not isinstance(y, pdt.Tensor)
        # two numbers give the default dtype of their kind, as in PyTorch
        kind = {"int32": "int64", "float64": "float32"}.get(dtype, dtype) if numbers else dtype
        want = np.where(c, xn, yn).astype(kind)
        assert got.dtype == want.dtype
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


def test_where_strided_and_promoted(dev):
    a = data((4, 3), "float64", 1)
    c = data((3, 4), "bool", 2)
    ta = pdt.tensor(a, device=dev)
    got = pdt.where(pdt.tensor(c, device=dev), ta.t(), pdt.tensor(1, device=dev))
    assert got.dtype == pdt.float64
    exact(got, np.where(c, a.T, 1))


def test_where_in_one_call_agrees_with_the_composed_path(dev):
    # where() and masked_fill() take one C call (_C._where_fast) for tensors of one
    # dtype and Python numbers that keep it, broadcast; everything else goes the
    # composed path (_ops_index._where).  Both must give the same dtype and values.
    from pydevtensor import _ops_index
    composed = _ops_index._where.__wrapped__
    c = data((3, 1, 4), "bool", 7)
    tc = pdt.tensor(c, device=dev)
    for dtype in ("bool", "int32", "float32", "float64"):
        a, b = data((2, 4), dtype, 8), data((4,), dtype, 9)
        ta, tb = pdt.tensor(a, device=dev), pdt.tensor(b, device=dev)
        other = pdt.tensor(data((4,), "int64", 10), device=dev)
        for x, y in [(ta, tb), (ta, 2), (True, tb), (ta, 0.5), (-3, tb), (ta, other),
                     (ta, pdt.tensor(b[0], device=dev)), (2, 0.5)]:
            got, want = pdt.where(tc, x, y), composed(tc, x, y)
            assert (got.dtype, got.shape) == (want.dtype, want.shape), (dtype, x, y)
            np.testing.assert_array_equal(host(got), host(want))
        xn = np.where(c, a, b)
        exact(pdt.where(tc, ta, tb), xn)
        for value in (True, 7, -2.75):
            got = ta.masked_fill(tc[0, 0], value)
            want = composed(tc[0, 0], pdt.full((), value, dtype=ta.dtype, device=dev), ta)
            assert got.dtype == ta.dtype and got.shape == ta.shape
            np.testing.assert_array_equal(host(got), host(want))
        # a wider mask widens the result, as PyTorch's; in place it cannot
        widened = ta.masked_fill(tc, 1)
        assert widened.shape == (3, 2, 4) and widened.dtype == ta.dtype
        np.testing.assert_array_equal(host(widened), np.where(c, np.ones((), a.dtype), a))
        with pytest.raises(RuntimeError, match="would widen"):
            ta.clone().masked_fill_(tc, 1)
    with pytest.raises(ValueError, match=r"shapes \(3, 1, 4\), \(2, 3\) and \(4,\) cannot be "
                                         r"broadcast together"):
        pdt.where(tc, pdt.zeros(2, 3, device=dev), pdt.zeros(4, device=dev))
    w = pdt.ones(4, device=dev, requires_grad=True)
    assert pdt.where(tc, w, 0.0).grad_fn is not None  # recorded by the composed path


def test_gather_index_select(dev):
    a = data((3, 5), "float32")
    t = pdt.tensor(a, device=dev)
    idx = np.array([4, 0, 3, 2])
    exact(pdt.index_select(t, 1, pdt.tensor(idx, device=dev)), a[:, idx])
    # PyTorch refuses negative indices here (x[idx] counts them from the end)
    for bad in (lambda: t.index_select(1, pdt.tensor([0, -1], device=dev)),
                lambda: t.gather(1, pdt.tensor([[0], [-1], [0]], device=dev))):
        with raises_index_error(dev, "index -1 is out of bounds for dimension 1 with size 5"):
            bad()  # on a GPU: at the next synchronisation
    exact(t.index_select(0, pdt.tensor([2, 2], device=dev)), a[[2, 2]])
    exact(t.t().index_select(0, pdt.tensor([1, 3], device=dev)), a.T[[1, 3]])
    g = np.array([[0, 4], [1, 1], [3, 0]])
    exact(pdt.gather(t, 1, pdt.tensor(g, device=dev)), np.take_along_axis(a, g, 1))
    g0 = np.array([[2, 0, 1, 1, 0]])
    exact(t.gather(0, pdt.tensor(g0, device=dev)), np.take_along_axis(a, g0, 0))
    with raises_index_error(dev, "index 5 is out of bounds for dimension 1 with size 5"):
        t.index_select(1, pdt.tensor([5], device=dev))
    with raises_index_error(dev, "out of bounds"):
        t.gather(0, pdt.tensor([[3, 0]], device=dev))


@pytest.mark.parametrize("dtype", ["bool", "float16", "int32", "float32", "int64"])
def test_index_select_in_every_layout(dev, dtype):
    """index_select along every dim of contiguous, transposed, permuted, sliced and
    expanded sources, in elements of 1, 2, 4 and 8 bytes; a take past one thread's
    share (70,000 indices: cut into pieces) and rows past a piece; NumPy's take."""
    a = data((6, 7, 300), dtype)
    t = pdt.tensor(a, device=dev)
    views = [
        (t, a), (t.permute(2, 0, 1), a.transpose(2, 0, 1)),
        (t.permute(1, 2, 0), a.transpose(1, 2, 0)), (t[:, 1:6:2, ::3], a[:, 1:6:2, ::3]),
        (t[2], a[2]), (t[2].T, a[2].T), (t[:, 3, 7], a[:, 3, 7]),
        (t[:1].expand(4, 7, 300), np.broadcast_to(a[:1], (4, 7, 300))),
    ]
    rng = np.random.default_rng(5)
    for v, ref in views:
        for d in range(ref.ndim):
            idx = rng.integers(0, ref.shape[d], 9)
            exact(v.index_select(d, pdt.tensor(idx, device=dev)), np.take(ref, idx, d))
    flat = data((100_000,), dtype)
    idx = rng.integers(0, 100_000, 70_000)
    exact(pdt.tensor(flat, device=dev).index_select(0, pdt.tensor(idx, device=dev)), flat[idx])
    wide = data((3, 40_000), dtype)
    idx = np.array([2, 0, 2, 1])
    exact(pdt.tensor(wide, device=dev).index_select(0, pdt.tensor(idx, device=dev)), wide[idx])
    deep = data((3, 5, 40_000), dtype)  # 9 rows of 2 pieces: two threads split row 4
    idx = np.array([4, 0, 2])
    for threads in (1, 2, 3):
        old = pdt.get_num_threads()
        pdt.set_num_threads(threads)
        try:
            got = pdt.tensor(deep, device=dev).index_select(1, pdt.tensor(idx, device=dev))
        finally:
            pdt.set_num_threads(old)
        exact(got, deep[:, idx])


def test_index_select_one_call_and_the_composed_path_agree(dev):
    """index_select's one C call (an int dim, a contiguous 1-d int64 index, no autograd)
    and the Python path it leaves the rest to: a negative dim, a NumPy integer dim, an
    int32, 0-d or strided index, a 0-d input, an input requiring grad."""
    a = data((4, 6), "float32")
    t = pdt.tensor(a, device=dev)
    idx = np.array([5, 0, 5, 2])
    ix = pdt.tensor(idx, device=dev)
    want = a[:, idx]
    for got in (t.index_select(1, ix), t.index_select(-1, ix), t.index_select(np.int64(1), ix),
                t.index_select(1, ix.int()), t.index_select(1, pdt.tensor(np.repeat(idx, 2),
                                                                           device=dev)[::2]),
                pdt.index_select(t.requires_grad_(), 1, ix).detach()):
        exact(got, want)
    t.requires_grad_(False)
    exact(t.index_select(0, pdt.tensor(3, device=dev)), a[[3]])
    exact(pdt.tensor(7.0, device=dev).index_select(0, pdt.tensor([0], device=dev)),
          np.array(7.0, np.float32))
    with pytest.raises(IndexError, match="out of range|Dimension out of range"):
        t.index_select(2, ix)
    with raises_index_error(dev, "index 6 is out of bounds for dimension 1 with size 6"):
        t.index_select(1, pdt.tensor([6], device=dev))


@pytest.mark.parametrize("dtype", ["bool", "int32", "float32"])
def test_nonzero(dev, dtype):
    a = data((3, 4), dtype, 5)
    t = pdt.tensor(a, device=dev)
    exact(pdt.nonzero(t), np.argwhere(a))
    for got, ref in zip(t.nonzero(as_tuple=True), np.nonzero(a)):
        exact(got, ref)
    assert tuple(pdt.nonzero(pdt.zeros(0, 3, device=dev)).shape) == (0, 2)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_sort_argsort_topk(dev, dtype):
    a = data((3, 9), dtype, 7)
    t = pdt.tensor(a, device=dev)
    v, i = pdt.sort(t)
    exact(v, np.sort(a, axis=-1, kind="stable"))
    exact(i, np.argsort(a, axis=-1, kind="stable"))
    v, i = t.sort(dim=0, descending=True)
    ref_i = np.argsort(-a.astype(np.float64), axis=0, kind="stable")
    exact(i, ref_i)
    exact(v, np.take_along_axis(a, ref_i, 0))
    exact(pdt.argsort(t, 1), np.argsort(a, 1, kind="stable"))
    values, indices = pdt.topk(t, 3)
    exact(values, -np.sort(-a.astype(np.float64), axis=1)[:, :3].astype(a.dtype))
    exact(pdt.gather(t, 1, indices), host(values))
    small = t.topk(2, dim=0, largest=False)
    exact(small.values, np.sort(a, axis=0)[:2])


def test_sort_nan_and_stability(dev):
    a = np.array([3.0, np.nan, 1.0, 3.0, -np.inf, 1.0, np.nan], dtype=np.float32)
    t = pdt.tensor(a, device=dev)
    exact(t.sort().indices, np.argsort(a, kind="stable"))
    exact(t.sort(descending=True).indices, [1, 6, 0, 3, 2, 5, 4])
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        t.topk(8)


@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_expand_repeat_flip_tril_triu(dev, dtype):
    a = data((3, 4), dtype, 6)
    t = pdt.tensor(a, device=dev)
    col = pdt.tensor(a[:, :1], device=dev)
    e = col.expand(2, 3, 4)
    exact(e, np.broadcast_to(a[:, :1], (2, 3, 4)))
    assert e.stride()[0] == 0 and e.data_ptr() == col.data_ptr()
    exact(col.expand(-1, 5), np.broadcast_to(a[:, :1], (3, 5)))
    exact(col.expand_as(t), np.broadcast_to(a[:, :1], (3, 4)))
    exact(t.repeat(2, 3), np.tile(a, (2, 3)))
    exact(t.repeat(2, 1, 1), np.tile(a, (2, 1, 1)))
    exact(pdt.flip(t, [0, 1]), a[::-1, ::-1])
    exact(t.flip(-1), a[:, ::-1])
    for k in (-1, 0, 2):
        exact(pdt.tril(t, k), np.tril(a, k))
        exact(t.triu(k), np.triu(a, k))
    with pytest.raises(RuntimeError, match="must be greater or equal"):
        t.expand(4)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        t.expand(3, 5)


def test_format_and_tensor_of_tensors(dev):
    s = pdt.tensor(2.0 / 3.0, device=dev)
    assert format(s, ".3f") == "0.667"
    assert f"{s:.2e}" == "6.67e-01"
    with pytest.raises(TypeError, match="only 0-d tensors"):
        format(pdt.zeros(2, device=dev), ".3f")
    t = pdt.tensor([pdt.tensor(1.5, device=dev), 2, pdt.tensor(3, device=dev)])
    assert t.dtype == pdt.float32
    exact(t, [1.5, 2.0, 3.0])
    t = pdt.tensor([[pdt.tensor(1, device=dev)], [2]], device=dev)
    assert t.dtype == pdt.int64 and t.device == pdt.device(dev)
    exact(t, [[1], [2]])
    d = pdt.tensor([pdt.tensor(1.0, dtype=pdt.float64, device=dev)])
    assert d.dtype == pdt.float64
    with pytest.raises(ValueError, match="only one element tensors"):
        pdt.tensor([pdt.zeros(2, device=dev)])


@pytest.mark.cuda
def test_tensor_of_gpu_scalars_counts_the_copies():
    parts = [pdt.tensor(float(i), device="cuda:0") for i in range(3)]
    pdt.reset_transfer_stats()
    t = pdt.tensor(parts)
    stats = pdt.transfer_stats()
    assert t.device.type == "cpu"
    exact(t, [0.0, 1.0, 2.0])
    assert stats["device_to_host"]["count"] == 3  # one counted copy per 0-d GPU tensor


# ---------------------------------------------------------------- properties
# Few examples: 40 per test on the CPU, 8 on a CUDA device (emulated in CI).

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402


def prop_settings(n):
    return settings(max_examples=n, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def budget(dev):
    return 40 if dev == "cpu" else 8


SMALL = hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=6)
VALUES = st.sampled_from([-2.0, -0.5, 0.0, 0.0, 1.0, 3.0, float("nan"), float("inf")])


def test_sort_property(dev):
    @prop_settings(budget(dev))
    @given(a=hnp.arrays(np.float32, SMALL, elements=VALUES), descending=st.booleans(),
           dim=st.integers(-3, 2))
    def check(a, descending, dim):
        d = dim % a.ndim
        t = pdt.tensor(a, device=dev)
        values, indices = t.sort(dim=d if dim >= 0 else d - a.ndim, descending=descending)
        order = _nan_first_desc(a, d) if descending else np.argsort(a, axis=d, kind="stable")
        np.testing.assert_array_equal(host(indices), order)
        np.testing.assert_array_equal(host(values), np.take_along_axis(a, order, d))
    check()


def _nan_first_desc(a, d):
    """The stable descending order with NaN first (Note [sort order])."""
    moved = np.moveaxis(a, d, -1)
    out = np.empty(moved.shape, dtype=np.int64)
    for idx in np.ndindex(moved.shape[:-1]):
        row = moved[idx]
        keys = [(0 if np.isnan(v) else 1, 0.0 if np.isnan(v) else -float(v), i)
                for i, v in enumerate(row)]
        out[idx] = [k[2] for k in sorted(keys)]
    return np.moveaxis(out, -1, d)


def test_cumsum_property(dev):
    @prop_settings(budget(dev))
    @given(a=hnp.arrays(np.int32, SMALL, elements=st.integers(-1000, 1000)),
           dim=st.integers(-3, 2))
    def check(a, dim):
        d = dim % a.ndim
        np.testing.assert_array_equal(host(pdt.tensor(a, device=dev).cumsum(d)),
                                      np.cumsum(a.astype(np.int64), axis=d))
    check()


def test_indexing_property(dev):
    @prop_settings(budget(dev))
    @given(data=st.data())
    def check(data):
        a = data.draw(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3,
                                                              min_side=1, max_side=5),
                                 elements=st.floats(-10, 10)))
        d = data.draw(st.integers(0, a.ndim - 1))
        n = a.shape[d]
        idx = data.draw(st.lists(st.integers(-n, n - 1), max_size=6))
        item = (slice(None),) * d + (np.array(idx, dtype=np.int64),)
        t = pdt.tensor(a, device=dev)
        np.testing.assert_array_equal(host(t[(slice(None),) * d + (idx,)]), a[item])
        mask = data.draw(hnp.arrays(np.bool_, a.shape))
        np.testing.assert_array_equal(host(t[pdt.tensor(mask, device=dev)]), a[mask])
        t[pdt.tensor(mask, device=dev)] = -1.0
        want = a.copy()
        want[mask] = -1.0
        np.testing.assert_array_equal(host(t), want)
    check()


def test_everyday_ops_record_a_graph():
    """Every everyday op records a graph on inputs that require grad (their gradients
    are checked in test_gradcheck_everyday.py)."""
    x = pdt.rand(3, 4, requires_grad=True)
    for f in (lambda: pdt.cat([x, x]), lambda: pdt.stack([x]), lambda: pdt.where(x > 0.5, x, 0.0),
              lambda: x.masked_fill(x > 0.5, 0.0), lambda: x.sort()[0], lambda: x.topk(2)[0],
              lambda: x[x > 0.5], lambda: x[[0, 2]], lambda: x.cumsum(1), lambda: x.tril(),
              lambda: x[:1].expand(3, 4), lambda: x.repeat(2, 1),
              lambda: pdt.einsum("ij,kj->ik", x, x), lambda: x.gather(0, pdt.tensor([[0]]))):
        assert f().grad_fn is not None
    with pdt.no_grad():
        assert tuple(pdt.cat([x, x]).shape) == (6, 4)
    exact(x.argsort(1), np.argsort(host(x.detach()), 1, kind="stable"))
    (pdt.softmax(x, 1)[:, 0].sum() + x.var() + x.flip(0).sum()).backward()
    assert x.grad is not None


def test_numpy_names_axis_and_keepdims(dev):
    # PyTorch's parser takes NumPy's axis= for dim= and keepdims= for keepdim=, and the
    # book's PyTorch edition writes them (A.sum(axis=1, keepdims=True), y_hat.argmax(axis=1))
    a = np.arange(20.0).reshape(5, 4) - 7.5
    A = pdt.tensor(a, dtype=pdt.float64, device=dev)
    close = dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(host(A.sum(axis=0)), a.sum(axis=0), **close)
    np.testing.assert_allclose(host(A.sum(axis=[0, 1])), a.sum(axis=(0, 1)), **close)
    np.testing.assert_allclose(host(A.mean(axis=1, keepdims=True)), a.mean(axis=1, keepdims=True),
                               **close)
    np.testing.assert_allclose(host(A.cumsum(axis=0)), a.cumsum(axis=0), **close)
    np.testing.assert_array_equal(host(A.argmax(axis=1)), a.argmax(axis=1))
    np.testing.assert_allclose(host(pdt.cat((A, A), axis=1)), np.concatenate((a, a), axis=1))
    np.testing.assert_allclose(host(pdt.stack((A, A), axis=2)), np.stack((a, a), axis=2))
    np.testing.assert_allclose(host(A.var(axis=0, keepdims=True)),
                               a.var(axis=0, ddof=1, keepdims=True), **close)
    np.testing.assert_allclose(host(A.softmax(axis=1)),
                               np.exp(a) / np.exp(a).sum(axis=1, keepdims=True), **close)
    np.testing.assert_array_equal(host(A.sort(axis=0).values), np.sort(a, axis=0))
    for call in (lambda: A.sum(dim=0, axis=1), lambda: A.var(dim=0, axis=1),
                 lambda: pdt.cat((A, A), dim=1, axis=0)):
        with pytest.raises(TypeError, match="multiple values for argument"):
            call()


def test_functions_take_input_as_a_keyword(dev):
    # PyTorch's functions name their first argument `input` (torch.sum(input=t));
    # the function forms of the methods and the *_like creators take it so too, and
    # give what the positional call gives
    a = pdt.tensor(data((2, 3), "float32", 5), device=dev)
    calls = [
        ("sum", {}), ("mean", {"dim": 0}), ("prod", {}), ("max", {}), ("min", {}),
        ("argmax", {"dim": 1, "keepdim": True}), ("argmin", {}), ("amax", {"dim": 0}),
        ("amin", {"dim": 1}), ("norm", {}), ("var", {}), ("std", {"dim": 0}),
        ("cumsum", {"dim": 1}), ("softmax", {"dim": 1}),
        ("reshape", {"shape": (3, 2)}), ("transpose", {"dim0": 0, "dim1": 1}), ("t", {}),
        ("flatten", {}), ("squeeze", {}), ("unsqueeze", {"dim": 0}),
        ("permute", {"dims": (1, 0)}), ("flip", {"dims": (0,)}),
        ("exp", {}), ("abs", {}), ("tanh", {}), ("relu", {}), ("clamp", {"min": 0.0}),
        ("add", {"other": a}), ("mul", {"other": 2.0}), ("pow", {"exponent": 2}),
        ("maximum", {"other": a * 0}), ("matmul", {"other": a.T}), ("sort", {"dim": 1}),
        ("topk", {"k": 2}), ("zeros_like", {}), ("ones_like", {"dtype": pdt.int32}),
        ("full_like", {"fill_value": 7.0}), ("empty_like", {}),
    ]
    for name, kw in calls:
        fn = getattr(pdt, name)
        want, got = fn(a, **kw), fn(input=a, **kw)
        pairs = zip(want, got) if isinstance(want, tuple) else [(want, got)]
        for w, g in pairs:
            assert g.dtype == w.dtype and g.shape == w.shape and g.device == w.device, name
            if name != "empty_like":
                np.testing.assert_array_equal(host(g), host(w), err_msg=name)
    with pytest.raises(TypeError, match=r"sum\(\): argument 'input' \(position 1\) must be a "
                                        r"Tensor, got list"):
        pdt.sum(input=[1.0])
    with pytest.raises(TypeError, match="input"):
        pdt.sum(a, input=a)


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_as_numpy_and_d2l_show_trace_2d(dev, indexing):
    # D2L 12.3: x1, x2 = torch.meshgrid(torch.arange(-5.5, 1.0, 0.1),
    #                                   torch.arange(-3.0, 1.0, 0.1), indexing='ij')
    x1, x2 = pdt.meshgrid(pdt.arange(-5.5, 1.0, 0.1, device=dev),
                          pdt.arange(-3.0, 1.0, 0.1, device=dev), indexing=indexing)
    assert tuple(x1.shape) == tuple(x2.shape) == ((65, 40) if indexing == "ij" else (40, 65))
    assert x1.device == pdt.device(dev)
    f = x1 ** 2 + 2 * x2 ** 2
    assert tuple(f.shape) == tuple(x1.shape)
    vecs = [np.arange(2), np.arange(10, 13), np.arange(20, 24)]
    for k in (1, 2, 3):
        got = pdt.meshgrid(*[pdt.tensor(v, device=dev) for v in vecs[:k]], indexing=indexing)
        want = np.meshgrid(*vecs[:k], indexing=indexing)
        assert len(got) == k
        for g, w in zip(got, want):
            exact(g, w)
    # a list works too, and 0-d tensors count as one element; the default is 'ij'
    a, b = pdt.meshgrid([pdt.tensor(5, device=dev), pdt.arange(3, device=dev)], indexing="ij")
    exact(a, [[5, 5, 5]])
    exact(b, [[0, 1, 2]])
    # gradients flow back to the inputs, as through expand
    u = pdt.tensor([1.0, 2.0], device=dev, requires_grad=True)
    v = pdt.tensor([1.0, 2.0, 3.0], device=dev, requires_grad=True)
    gu, gv = pdt.meshgrid(u, v, indexing=indexing)
    (gu * gv).sum().backward()
    exact(u.grad, [6.0, 6.0])
    exact(v.grad, [3.0, 3.0, 3.0])
