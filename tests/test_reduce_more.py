"""median, nanmedian, kthvalue, mode, aminmax, cummax, cummin, std_mean, var_mean,
msort (pydevtensor/_ops_reduce_more.py), unique_consecutive, histc, trapezoid and
cumulative_trapezoid (_ops_histogram.py) on every device, against NumPy float64 and
PyTorch when importable.

Tolerances: the order statistics, cummax/cummin, unique_consecutive and histc pick
or count values: exact.  std_mean/var_mean: 1e-5 relative in float32 (the existing
var's accuracy); trapezoid: a few float32 sums, 1e-5 relative plus 1e-6 absolute.
Gradients by gradcheck (float64, distinct values: no ties)."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from test_gradcheck import gradcheck


def _t(a, device):
    return pdt.tensor(a, device=device)


def _lower_median(a, axis):
    s = np.sort(a, axis=axis)
    return np.take(s, (a.shape[axis] - 1) // 2, axis=axis)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_median_and_kthvalue(device, dim):
    rng = np.random.default_rng(0)
    a = rng.permutation(20).reshape(4, 5).astype(np.float32)
    x = _t(a, device)
    assert pdt.median(x).item() == np.sort(a.reshape(-1))[9]
    v, i = x.median(dim)
    np.testing.assert_array_equal(v.cpu().numpy(), _lower_median(a, dim))
    np.testing.assert_array_equal(np.take_along_axis(a, np.expand_dims(i.cpu().numpy(), dim),
                                                     dim).squeeze(dim), v.cpu().numpy())
    v, i = pdt.kthvalue(x, 2, dim, keepdim=True)
    np.testing.assert_array_equal(v.cpu().numpy(), np.take(np.sort(a, dim), [1], dim))
    assert i.dtype == pdt.int64 and v.shape == i.shape


def test_median_nan_as_torch(device):
    torch = torch_or_skip()
    a = np.array([[1.0, np.nan, 3.0, 2.0], [4.0, 0.0, 5.0, 6.0], [np.nan] * 4],
                 dtype=np.float32)
    for name in ("median", "nanmedian"):
        got = getattr(pdt, name)(_t(a, device), 1)
        ref = getattr(torch, name)(torch.tensor(a), 1)
        np.testing.assert_array_equal(got.values.cpu().numpy(), ref.values.numpy())
        # an all-NaN row: any of its NaN (torch's pick depends on its selection algorithm)
        np.testing.assert_array_equal(got.indices.cpu().numpy()[:2], ref.indices.numpy()[:2])
        np.testing.assert_array_equal(getattr(pdt, name)(_t(a[:2], device)).cpu().numpy(),
                                      getattr(torch, name)(torch.tensor(a[:2])).numpy())


def test_mode_as_torch(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(1)
    a = rng.integers(0, 4, (5, 9))
    got = pdt.mode(_t(a, device))
    ref = torch.mode(torch.tensor(a))
    np.testing.assert_array_equal(got.values.cpu().numpy(), ref.values.numpy())
    np.testing.assert_array_equal(got.indices.cpu().numpy(), ref.indices.numpy())
    got = _t(a, device).mode(0, keepdim=True)
    ref = torch.tensor(a).mode(0, keepdim=True)
    np.testing.assert_array_equal(got.values.cpu().numpy(), ref.values.numpy())
    np.testing.assert_array_equal(got.indices.cpu().numpy(), ref.indices.numpy())


def test_cummax_cummin_as_torch(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(2)
    a = rng.integers(0, 5, (3, 17)).astype(np.float64)  # many ties
    a[1, 5], a[1, 9] = np.nan, np.nan
    for name in ("cummax", "cummin"):
        for dim in (0, 1):
            got = getattr(pdt, name)(_t(a, device), dim)
            ref = getattr(torch, name)(torch.tensor(a), dim)
            np.testing.assert_array_equal(got.values.cpu().numpy(), ref.values.numpy())
            np.testing.assert_array_equal(got.indices.cpu().numpy(), ref.indices.numpy())
    ai = rng.integers(-9, 9, 10)
    np.testing.assert_array_equal(_t(ai, device).cummax(0).values.cpu().numpy(),
                                  np.maximum.accumulate(ai))


def test_aminmax_std_var_mean_msort(device):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 6)).astype(np.float32)
    x = _t(a, device)
    lo, hi = pdt.aminmax(x)
    assert lo.item() == a.min() and hi.item() == a.max()
    lo, hi = x.aminmax(dim=0, keepdim=True)
    np.testing.assert_array_equal(lo.cpu().numpy(), a.min(0, keepdims=True))
    np.testing.assert_array_equal(hi.cpu().numpy(), a.max(0, keepdims=True))
    s, m = pdt.std_mean(x, 1, correction=0)
    np.testing.assert_allclose(s.cpu().numpy(), a.astype(np.float64).std(1), rtol=1e-5)
    np.testing.assert_allclose(m.cpu().numpy(), a.astype(np.float64).mean(1), rtol=1e-5,
                               atol=1e-6)
    v, m = pdt.var_mean(x, keepdim=True)
    np.testing.assert_allclose(v.cpu().numpy(), a.astype(np.float64).var(ddof=1).reshape(1, 1),
                               rtol=1e-5)
    assert m.shape == (1, 1)
    v, _ = pdt.var_mean(x, 0, False)  # unbiased=False, positional
    np.testing.assert_allclose(v.cpu().numpy(), a.astype(np.float64).var(0), rtol=1e-5)
    np.testing.assert_array_equal(pdt.msort(x).cpu().numpy(), np.sort(a, 0))


def test_unique_consecutive(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(4)
    a = rng.integers(0, 3, (4, 6))
    for kw in ({}, {"return_inverse": True, "return_counts": True}):
        got = pdt.unique_consecutive(_t(a, device), **kw)
        ref = torch.unique_consecutive(torch.tensor(a), **kw)
        got = got if isinstance(got, tuple) else (got,)
        ref = ref if isinstance(ref, tuple) else (ref,)
        for g, r in zip(got, ref):
            np.testing.assert_array_equal(g.cpu().numpy(), r.numpy())
    rows = np.array([[1, 1, 2], [1, 1, 3], [1, 1, 3], [0, 0, 0]])
    got = _t(rows, device).unique_consecutive(return_counts=True, dim=0)
    ref = torch.tensor(rows).unique_consecutive(return_counts=True, dim=0)
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(g.cpu().numpy(), r.numpy())


def test_histc(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(5)
    a = (rng.integers(0, 400, 300) / 40 + 1 / 80).astype(np.float32)  # no value on an edge
    got = pdt.histc(_t(a, device), bins=7, min=1, max=8)
    ref, _ = np.histogram(a, bins=7, range=(1, 8))
    np.testing.assert_array_equal(got.cpu().numpy(), ref)
    assert got.dtype == pdt.float32
    np.testing.assert_array_equal(_t(a, device).histc(bins=5).cpu().numpy(),
                                  torch.histc(torch.tensor(a), bins=5).numpy())
    b = np.array([2.0, 2.0, np.nan, 9.0], dtype=np.float32)
    np.testing.assert_array_equal(pdt.histc(_t(b, device), 4, 0, 4).cpu().numpy(), [0, 0, 2, 0])
    np.testing.assert_array_equal(pdt.histc(_t(b[:2], device), 2).cpu().numpy(),
                                  torch.histc(torch.tensor(b[:2]), 2).numpy())


def test_trapezoid(device):
    rng = np.random.default_rng(6)
    y = rng.standard_normal((3, 5))
    x = np.sort(rng.standard_normal(5))
    np.testing.assert_allclose(pdt.trapezoid(_t(y, device), _t(x, device)).cpu().numpy(),
                               np.trapezoid(y, x), rtol=1e-12)
    np.testing.assert_allclose(pdt.trapezoid(_t(y, device), dx=0.5, dim=0).cpu().numpy(),
                               np.trapezoid(y, dx=0.5, axis=0), rtol=1e-12)
    x2 = np.sort(rng.standard_normal((3, 5)), 1)
    np.testing.assert_allclose(pdt.trapezoid(_t(y, device), _t(x2, device)).cpu().numpy(),
                               np.trapezoid(y, x2), rtol=1e-12)
    ref = np.cumsum((y[:, 1:] + y[:, :-1]) / 2 * np.diff(x), 1)
    np.testing.assert_allclose(pdt.cumulative_trapezoid(_t(y, device), _t(x, device))
                               .cpu().numpy(), ref, rtol=1e-12, atol=1e-15)
    yi = _t([1, 2, 4], device)
    assert pdt.trapezoid(yi).dtype == pdt.float32 and pdt.trapezoid(yi).item() == 4.5


def test_gradients(device):
    rng = np.random.default_rng(7)
    a = rng.permutation(12).reshape(3, 4) * 0.5 + 0.1
    gradcheck(lambda x: pdt.median(x), [a], device)
    gradcheck(lambda x: x.median(1).values, [a], device)
    gradcheck(lambda x: pdt.kthvalue(x, 3, 0).values, [a], device)
    gradcheck(lambda x: pdt.cummax(x, 1).values, [a], device)
    gradcheck(lambda x: pdt.cummin(x, 0).values, [a], device)
    gradcheck(lambda x: pdt.std_mean(x, 1)[0] + pdt.std_mean(x, 1)[1], [a], device)
    gradcheck(lambda x: pdt.trapezoid(x, dx=0.3), [a], device)
    gradcheck(lambda x: pdt.cumulative_trapezoid(x, dim=0), [a], device)
    gradcheck(lambda x: pdt.msort(x), [a], device)


def test_errors_name_the_problem(device):
    x = pdt.ones(2, 3, device=device)
    with pytest.raises(RuntimeError, match=r"k = 4 out of range for dimension 1 of size 3"):
        pdt.kthvalue(x, 4)
    with pytest.raises(IndexError, match="non-zero size"):
        pdt.median(pdt.ones(2, 0, device=device), 1)
    with pytest.raises(RuntimeError, match="floating point input"):
        pdt.histc(_t([1, 2], device))
    with pytest.raises(RuntimeError, match="one `x` value for each sample"):
        pdt.trapezoid(x, _t([0.0, 1.0], device))


# ---- NumPy and hand-written references for what the torch comparisons above check

def test_median_nan_by_hand(device):
    a = np.array([[1.0, np.nan, 3.0, 2.0], [4.0, 0.0, 5.0, 6.0], [np.nan] * 4],
                 dtype=np.float32)
    v, i = pdt.median(_t(a, device), 1)
    np.testing.assert_array_equal(v.cpu().numpy(), [np.nan, 4.0, np.nan])
    assert i.tolist()[:2] == [1, 0] and np.isnan(a[2, i.tolist()[2]])
    v, i = pdt.nanmedian(_t(a, device), 1)
    np.testing.assert_array_equal(v.cpu().numpy(), [2.0, 4.0, np.nan])
    assert i.tolist()[:2] == [3, 0]
    assert np.isnan(pdt.median(_t(a[:2], device)).item())
    assert pdt.nanmedian(_t(a[:2], device)).item() == 3.0  # 0 1 2 3 4 5 6: the 4th


def _np_mode(row):
    values, counts = np.unique(row, return_counts=True)
    v = values[np.argmax(counts)]  # the smallest of those tied
    return v, np.nonzero(row == v)[0][-1]


def _np_cum(a, larger):
    vals, idx = np.empty_like(a), np.empty(a.shape, np.int64)
    for r in range(a.shape[0]):
        best, at = a[r, 0], 0
        for k in range(a.shape[1]):
            v = a[r, k]
            take = np.isnan(v) or (not np.isnan(best) and (v >= best if larger else v <= best))
            if take:
                best, at = v, k
            vals[r, k], idx[r, k] = best, at
    return vals, idx


def test_mode_cummax_cummin_numpy(device):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 4, (5, 9))
    v, i = pdt.mode(_t(a, device))
    ref = [_np_mode(row) for row in a]
    assert v.tolist() == [r[0] for r in ref] and i.tolist() == [r[1] for r in ref]
    f = rng.integers(0, 5, (3, 17)).astype(np.float64)
    f[1, 5], f[1, 9] = np.nan, np.nan
    for name, larger in (("cummax", True), ("cummin", False)):
        v, i = getattr(pdt, name)(_t(f, device), 1)
        rv, ri = _np_cum(f, larger)
        np.testing.assert_array_equal(v.cpu().numpy(), rv)
        np.testing.assert_array_equal(i.cpu().numpy(), ri)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "float16"])
def test_cummax_cummin_every_dtype_dim_and_bits(device, dtype):
    """One pass where the device has the kernel (csrc/cpu/cpu_cumextreme.c; float16 and
    other devices: the scan by doubling) against the rule written out: ties and -0.0
    against 0.0 go to the later element, a NaN stays once read, NaN payloads and the
    sign of zero are the chosen element's bits; along every dim of a 3-d tensor, past
    the threads' split, 0-d and empty."""
    rng = np.random.default_rng(7)
    a = rng.integers(-3, 4, (3, 40, 5)).astype(dtype)
    if dtype.startswith("float"):
        a[0, 3, :] = -0.0
        a[1, 7, 2], a[2, 20, 4], a[2, 30, 4] = np.nan, -np.nan, np.nan
        a[0, 0, 0] = np.inf
    x = pdt.tensor(a, device=device)
    for name, larger in (("cummax", True), ("cummin", False)):
        for dim in (0, 1, 2, -1):
            moved = np.moveaxis(a, dim, -1)
            flat = moved.reshape(-1, moved.shape[-1])
            rv, ri = _np_cum(flat, larger)
            rv = np.moveaxis(rv.reshape(moved.shape), -1, dim)
            ri = np.moveaxis(ri.reshape(moved.shape), -1, dim)
            v, i = getattr(pdt, name)(x, dim)
            got = v.cpu().numpy()
            assert got.dtype == a.dtype and i.dtype == pdt.int64
            np.testing.assert_array_equal(i.cpu().numpy(), ri, err_msg=f"{name} {dim}")
            want = np.take_along_axis(a, ri, dim)  # the chosen elements' bits
            assert (got.view(f"u{a.itemsize}") == want.view(f"u{a.itemsize}")).all()
    def running(a, larger):  # the rule without NaN, vectorised: the latest tie's index
        v = (np.maximum if larger else np.minimum).accumulate(a, 1)
        at = np.where(a == v, np.arange(a.shape[1]), 0)
        return v, np.maximum.accumulate(at, 1)

    for shape in ((2, 70_001), (40_000, 3)):  # rows split between threads both ways
        many = rng.integers(-50, 50, shape).astype(dtype)
        rv, ri = running(many, True)
        v, i = pdt.cummax(pdt.tensor(many, device=device), 1)
        np.testing.assert_array_equal(i.cpu().numpy(), ri, err_msg=str(shape))
        np.testing.assert_array_equal(v.cpu().numpy(), rv, err_msg=str(shape))
    v, i = pdt.cummin(pdt.tensor(many, device=device).t(), 1)  # a transposed view
    rv, ri = running(np.ascontiguousarray(many.T), False)
    np.testing.assert_array_equal(i.cpu().numpy(), ri)
    np.testing.assert_array_equal(v.cpu().numpy(), rv)
    v, i = pdt.cummin(pdt.tensor(a[0, 0, 0], device=device), 0)
    assert v.shape == () and i.shape == () and i.item() == 0
    v, i = pdt.cummax(pdt.zeros(2, 0, dtype=getattr(pdt, dtype), device=device), 1)
    assert v.shape == (2, 0) and i.shape == (2, 0)


def _stable_rank(a, dim, pos):
    """The index of the element at position pos (an int array of a's shape with 1 along
    dim) of each row's stable sort along dim: NumPy's stable argsort puts NaN last and
    keeps -0.0 and 0.0 in their order, as the order statistics' rule."""
    return np.take_along_axis(np.argsort(a, axis=dim, kind="stable"), pos, dim)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "float16"])
def test_order_statistics_pick_the_stable_sorts_element(device, dtype):
    """kthvalue, median and nanmedian by selection (csrc/cpu/cpu_select.c; float16 and
    other devices: by sorting) give the element at the stable sort's position: ties to
    the earlier index, -0.0 tied with 0.0, NaN largest; random, tied, sorted, reversed
    and NaN-holding rows, along every dim, per-row positions (nanmedian), rows past the
    threads' split.  Rows of up to 64 take the CPU's short path (Note [short rows in
    selection]): packed keys where their range fits 32 bits, ranks counted up to 16 where
    it does not, the radix selection past that; the shapes straddle 16 and 64."""
    rng = np.random.default_rng(13)
    floating = dtype.startswith("float")
    for shape, dim in (((40, 300), 1), ((300, 7), 0), ((3, 50, 4), 1), ((1, 70001), 1),
                       ((30, 3, 4), 0), ((2, 3, 25, 2), 1),  # dims before the last two
                       ((6, 16), 1), ((6, 17), 1), ((5, 64), 1), ((5, 65), 1)):
        pats = [rng.standard_normal(shape) * 100, rng.integers(0, 3, shape).astype(float),
                np.sort(rng.standard_normal(shape), axis=dim),
                -np.sort(rng.standard_normal(shape), axis=dim)]
        if floating:
            nan = rng.standard_normal(shape)
            nan[rng.random(shape) < 0.3] = np.nan
            pats.append(nan)
        if dtype in ("float32", "float64", "int32", "int64"):  # every key byte varies
            size = np.dtype(dtype).itemsize
            raw = rng.integers(0, 256, (*shape, size), dtype=np.uint8).view(dtype)[..., 0]
            if not floating:
                info = np.iinfo(dtype)
                raw.flat[::11] = info.min
                raw.flat[5::11] = info.max
            pats.append(raw)  # floats: NaN payloads of both signs, infinities, subnormals
        for a in pats:
            a = a.astype(dtype)
            if floating:
                a[..., ::7] = np.where(a[..., ::7] == 0, -0.0, a[..., ::7])
            x = pdt.tensor(a, device=device)
            n = shape[dim]
            keep = tuple(1 if q == dim else size for q, size in enumerate(shape))
            for k in sorted({1, 2, n // 2, n}):
                v, i = pdt.kthvalue(x, k, dim)
                want = _stable_rank(a, dim, np.full(keep, k - 1))
                np.testing.assert_array_equal(i.cpu().numpy(), want.squeeze(dim), err_msg=k)
                got = v.cpu().numpy()
                ref = np.take_along_axis(a, want, dim).squeeze(dim)
                assert (got.view(f"u{a.itemsize}") == ref.view(f"u{a.itemsize}")).all()
            nans = np.isnan(a).sum(dim, keepdims=True) if floating else np.zeros(keep, int)
            left = n - nans
            for name, pos in (("median", np.where(nans > 0, n - nans, (n - 1) // 2)),
                              ("nanmedian", np.where(left > 0, (left - 1) // 2, 0))):
                want = _stable_rank(a, dim, pos)
                for keepdim in (False, True):
                    v, i = getattr(x, name)(dim, keepdim=keepdim)
                    assert tuple(v.shape) == tuple(i.shape) == want.squeeze(dim).shape \
                        if not keepdim else keep, (name, keepdim, v.shape)
                    np.testing.assert_array_equal(i.cpu().numpy().reshape(keep), want)
                    ref = np.take_along_axis(a, want, dim)  # the bits: NaN payloads, -0.0
                    got = v.cpu().numpy().reshape(keep)
                    assert (got.view(f"u{a.itemsize}") == ref.view(f"u{a.itemsize}")).all()


@pytest.mark.parametrize("op", ["kthvalue", "median", "nanmedian", "cummax", "cummin"])
def test_order_statistics_along_every_dim_keep_the_other_dims_order(device, op):
    """Along each dim of a 4-d tensor, the results hold x's other dims in x's order
    (kthvalue along dim 0 of a (2, 3, 4) tensor once came out (4, 3)), with keepdim, and
    with a gradient (one to each element picked) against NumPy (distinct values)."""
    rng = np.random.default_rng(5)
    a = rng.permutation(5 * 4 * 3 * 6).reshape(5, 4, 3, 6).astype(np.float64)
    for dim in range(-4, 4):
        n = a.shape[dim]
        x = pdt.tensor(a, device=device, requires_grad=True)
        if op.startswith("cum"):
            acc = np.maximum if op == "cummax" else np.minimum
            v, i = getattr(pdt, op)(x, dim)
            want = acc.accumulate(a, axis=dim)
            np.testing.assert_array_equal(v.detach().cpu().numpy(), want)
            np.testing.assert_array_equal(np.take_along_axis(a, i.cpu().numpy(), dim), want)
            continue
        k = {"kthvalue": 2, "median": (n + 1) // 2, "nanmedian": (n + 1) // 2}[op]
        args = (k, dim) if op == "kthvalue" else (dim,)
        for keepdim in (False, True):
            v, i = getattr(pdt, op)(x, *args, keepdim=keepdim)
            want = np.take(np.sort(a, axis=dim), [k - 1], axis=dim)
            shape = want.shape if keepdim else np.squeeze(want, dim).shape
            assert tuple(v.shape) == tuple(i.shape) == shape, (dim, keepdim, v.shape)
            np.testing.assert_array_equal(v.detach().cpu().numpy().reshape(want.shape), want)
            at = i.cpu().numpy().reshape(want.shape)
            np.testing.assert_array_equal(np.take_along_axis(a, at, dim), want)
        v.sum().backward()
        mask = np.zeros_like(a)
        np.put_along_axis(mask, at, 1.0, dim)
        np.testing.assert_array_equal(x.grad.cpu().numpy(), mask)


@pytest.mark.parametrize("dtype", ["float32", "int64", "float16"])
def test_order_statistics_of_a_number_and_with_a_gradient(device, dtype):
    """A 0-d input is its own median and kthvalue (index 0, 0-d results, keepdim
    keeping 0 dims); with requires_grad the values carry the gradient to the element
    picked, as PyTorch's, whether the device selects or sorts."""
    x = pdt.tensor(np.array(3, dtype=dtype), device=device)
    for v, i in (pdt.kthvalue(x, 1), x.median(0), x.nanmedian(0, keepdim=True)):
        assert v.shape == () and i.shape == () and v.item() == 3 and i.item() == 0
    if dtype == "int64":
        return
    a = np.array([[3.0, 1.0, 2.0, 5.0], [0.5, np.nan, -1.0, 4.0]], dtype=dtype)
    x = pdt.tensor(a, device=device, requires_grad=True)
    for fn, want in ((lambda t: pdt.kthvalue(t, 2, 1, keepdim=True), [[0, 0, 1, 0], [1, 0, 0, 0]]),
                     (lambda t: t.median(1), [[0, 0, 1, 0], [0, 1, 0, 0]]),
                     (lambda t: t.nanmedian(0), [[0, 1, 0, 0], [1, 0, 1, 1]])):
        x.grad = None
        v, i = fn(x)
        assert v.requires_grad
        v.sum().backward()
        np.testing.assert_array_equal(x.grad.cpu().numpy(), np.array(want, dtype=dtype))


def test_unique_consecutive_and_histc_numpy(device):
    rng = np.random.default_rng(4)
    a = rng.integers(0, 3, 30)
    starts = np.r_[0, np.nonzero(a[1:] != a[:-1])[0] + 1]
    values, inverse, counts = pdt.unique_consecutive(_t(a, device), return_inverse=True,
                                                     return_counts=True)
    np.testing.assert_array_equal(values.cpu().numpy(), a[starts])
    np.testing.assert_array_equal(counts.cpu().numpy(), np.diff(np.r_[starts, a.size]))
    np.testing.assert_array_equal(inverse.cpu().numpy(), np.cumsum(np.r_[1, a[1:] != a[:-1]]) - 1)
    h = (rng.integers(0, 400, 300) / 40 + 1 / 80).astype(np.float32)
    got = _t(h, device).histc(bins=5)  # the range: h's own min and max
    ref, _ = np.histogram(h, bins=5, range=(h.min(), h.max()))
    np.testing.assert_array_equal(got.cpu().numpy(), ref)


def test_median_of_all_shares_the_gradient_among_ties(device):
    """median() over all elements: PyTorch splits the gradient evenly among the elements
    equal to the median (the tester found it all on one); the value is exact."""
    x = pdt.tensor([1.0, 3.0, 3.0, 1.0], device=device, requires_grad=True)
    m = pdt.median(x)
    m.backward()
    assert m.item() == 1.0 and x.grad.tolist() == [0.5, 0.0, 0.0, 0.5]
    x = pdt.tensor([0.1, 0.1, 0.1], dtype=pdt.float64, device=device, requires_grad=True)
    m = pdt.median(x)
    m.backward()
    assert m.item() == 0.1 and np.allclose(x.grad.tolist(), [1 / 3] * 3, rtol=1e-15)
    x = pdt.tensor([1.0, float("nan"), 3.0], device=device, requires_grad=True)
    pdt.median(x).backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]


def test_broadcast_to_takes_sizes_as_arguments(device):
    x = pdt.ones(1, 4, device=device)
    for got in (x.broadcast_to(3, 4), x.broadcast_to((3, 4)), x.broadcast_to([3, -1])):
        assert tuple(got.shape) == (3, 4)


def _mode_ref(row):
    """mode of one row with NaN != NaN: the smallest of the most frequent numbers and
    its last index; a row of NaNs alone gives NaN at its first index."""
    nums = row[~np.isnan(row)]
    if nums.size == 0:
        return np.nan, 0
    vals, counts = np.unique(nums, return_counts=True)
    v = vals[np.argmax(counts)]  # the first (smallest) of the most frequent
    return v, int(np.flatnonzero(row == v)[-1])


def test_mode_counts_each_nan_on_its_own(device):
    """NaN != NaN, as PyTorch's count: each NaN is a value seen once, so the reviewer's
    [2, nan, nan, nan, 1, 1] has mode 1 (PyTorch's; the NaNs counted as one value gave
    NaN), and NaN is the mode only of a row of NaNs.  Rows against a NumPy reference."""
    nan = np.nan
    rows = [[2, nan, nan, nan, 1, 1], [nan, nan, 1.0], [3.0, nan, 3, nan, nan], [nan, nan],
            [nan, 5.0], [4.0, 4.0, nan, nan, nan, 2.0, 2.0]]
    for r in rows:
        a = np.array(r, dtype=np.float64)
        values, indices = pdt.mode(pdt.tensor(a, device=device))
        want_v, want_i = _mode_ref(a)
        np.testing.assert_array_equal(values.item(), want_v, err_msg=str(r))
        assert indices.item() == want_i, r
    rng = np.random.default_rng(11)
    a = rng.integers(0, 4, (40, 9)).astype(np.float32)
    a[rng.random(a.shape) < 0.4] = nan
    values, indices = pdt.mode(pdt.tensor(a, device=device), 1)
    want = [_mode_ref(row) for row in a]
    np.testing.assert_array_equal(values.cpu().numpy(), np.array([w[0] for w in want],
                                                                  dtype=np.float32))
    np.testing.assert_array_equal(indices.cpu().numpy(), [w[1] for w in want])


def test_histc_keeps_its_ends(device):
    """The reviewer's cases: histc compares in the input's dtype, so float32 values equal
    to min and max are counted (they were dropped when compared with the float64
    range)."""
    x = pdt.tensor([0.1, 0.2, 0.3], device=device)
    assert pdt.histc(x, 3, 0.1, 0.3).tolist() == [1.0, 1.0, 1.0]
    x = pdt.linspace(-0.3, 0.3, 29, device=device)
    assert pdt.histc(x, 3, -0.3, 0.3).sum().item() == 29


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_histc_values_on_interior_edges_land_as_torch(device, dtype):
    # Note [histc's bins]: the bin is computed in the input's dtype, as PyTorch's
    torch = torch_or_skip()
    rng = np.random.default_rng(7)
    cases = [(np.arange(1, 10) / 10, 10, 0.0, 1.0)]
    for _ in range(30):
        bins = int(rng.integers(1, 120))
        lo = float(rng.uniform(-5, 5)) if dtype != "float16" else 0.0
        hi = lo + float(rng.uniform(1e-2, 10))
        edges = np.linspace(lo, hi, bins + 1)
        v = np.concatenate([edges, rng.uniform(lo - 1, hi + 1, 20),
                            np.nextafter(edges.astype(dtype), np.inf)])
        cases.append((v, bins, lo, hi))
    for v, bins, lo, hi in cases:
        v = v.astype(dtype)
        ref = torch.histc(torch.tensor(v), bins=bins, min=lo, max=hi)
        got = pdt.histc(pdt.tensor(v, device=device), bins=bins, min=lo, max=hi)
        np.testing.assert_array_equal(got.cpu().numpy(), ref.numpy())
    # the reviewer's case: 0.6 and 0.3 in float32 sit just above their edges in float64
    got = pdt.histc(pdt.tensor(np.arange(1, 10, dtype=np.float32) / 10, device=device),
                    bins=10, min=0, max=1)
    assert got.tolist() == [0.0] + [1.0] * 9


@pytest.mark.parametrize("dim", [[], ()])
def test_var_and_std_of_an_empty_dim_list_reduce_everything(device, dim):
    """dim=[] and dim=() mean every dimension for var, std, var_mean and std_mean, as for
    sum and mean (and PyTorch's var): against NumPy in float64, with keepdim."""
    a = np.arange(12.0).reshape(3, 4) - 5.0
    x = pdt.tensor(a, device=device)
    for corr in (1, 0):
        want = np.var(a, ddof=corr)
        np.testing.assert_allclose(float(x.var(dim=dim, correction=corr)), want, rtol=1e-15)
        np.testing.assert_allclose(float(x.std(dim=dim, correction=corr)), np.sqrt(want),
                                   rtol=1e-15)
        v, m = pdt.var_mean(x, dim=dim, correction=corr)
        np.testing.assert_allclose([float(v), float(m)], [want, a.mean()], rtol=1e-15)
        s, _ = pdt.std_mean(x, dim=dim, correction=corr)
        np.testing.assert_allclose(float(s), np.sqrt(want), rtol=1e-15)
    assert tuple(x.var(dim=dim, keepdim=True).shape) == (1, 1)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
def test_var_std_of_a_0d_tensor_take_dims_0_and_minus_1_only(device, fn):
    """As PyTorch's (and sum's): a 0-d tensor has dims 0 and -1; others raise (they gave
    nan)."""
    s = pdt.tensor(2.0, dtype=pdt.float64, device=device)
    for d in (0, -1, (0,), None):
        r = getattr(pdt, fn)(s, d, correction=0)
        np.testing.assert_array_equal(np.asarray([t.item() for t in r] if isinstance(
            r, tuple) else [r.item()]), [0.0, 2.0] if fn.endswith("mean") else [0.0])
    for d in (5, 1, -2, (1,), (0, 2)):
        with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in "
                                             r"range of \[-1, 0\]"):
            getattr(pdt, fn)(s, d)


@pytest.mark.parametrize("name, args", [
    ("median", ()), ("nanmedian", ()), ("mode", ()), ("kthvalue", (2,)), ("all", ()),
    ("any", ()), ("cummax", ()), ("cummin", ()), ("aminmax", ()), ("var_mean", ()),
    ("std_mean", ()), ("logcumsumexp", ()), ("count_nonzero", ())])
def test_reductions_take_numpys_axis_and_keepdims(device, name, args):
    """axis= for dim= (and keepdims= for keepdim= where there is one), function and method
    forms, as PyTorch's argument parser takes them; they were a TypeError."""
    a = np.array([[1.0, 0.0, 2.0], [3.0, 0.0, 2.0], [3.0, 5.0, -1.0]])
    x = pdt.tensor(a, device=device)
    forms = [getattr(pdt, name)] + ([getattr(x, name)] if hasattr(x, name) else [])
    for form in forms:
        call = (lambda **kw: form(x, *args, **kw)) if form is forms[0] else (
            lambda **kw: form(*args, **kw))
        for dim in (0, 1):
            want, got = call(dim=dim), call(axis=dim)
            want = want if isinstance(want, tuple) else (want,)
            got = got if isinstance(got, tuple) else (got,)
            for w, g in zip(want, got):
                np.testing.assert_array_equal(g.cpu().numpy(), w.cpu().numpy())
        if name == "median":
            np.testing.assert_array_equal(call(axis=1, keepdims=True).values.cpu().numpy(),
                                          np.median(a, axis=1, keepdims=True))
        with pytest.raises(TypeError, match="multiple values for argument 'dim'"):
            call(dim=0, axis=0)


def test_histc_float16_past_its_largest_value(device):
    """(v - min) bins passes float16's 65504 (values in [0, 1000], 100 bins): those bins
    are found in float64; they were inf in float16, and all counted in the last bin
    (PyTorch's lands them in the first).  A range wider than 65504 likewise."""
    v = np.arange(1000, dtype=np.float16) + np.float16(0.5)  # mid-bin values, exact
    got = pdt.histc(_t(v, device), bins=100, min=0, max=1000)
    ref, _ = np.histogram(v.astype(np.float64), bins=100, range=(0, 1000))
    np.testing.assert_array_equal(got.cpu().numpy(), ref)
    assert got.dtype == pdt.float16
    w = np.array([-60000, -100, 0, 1000, 40000, 60000], dtype=np.float16)
    ref, _ = np.histogram(w.astype(np.float64), bins=4)
    np.testing.assert_array_equal(pdt.histc(_t(w, device), bins=4).cpu().numpy(), ref)
