"""index_copy, index_fill, masked_select, masked_scatter, take, take_along_dim,
argwhere, nonzero_static and isin (pydevtensor/_ops_index_more.py) on every device, against NumPy
(exact: they move values, no arithmetic) and PyTorch when importable; gradients by
gradcheck (float64, central differences)."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import raises_index_error, torch_or_skip
from test_gradcheck import gradcheck


def _t(a, device):
    return pdt.tensor(a, device=device)


def test_index_copy_and_fill(device):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    src = rng.standard_normal((4, 2)).astype(np.float32)
    idx = np.array([3, 0])
    got = _t(x, device).index_copy(1, _t(idx, device), _t(src, device))
    ref = x.copy()
    ref[:, idx] = src
    np.testing.assert_array_equal(got.cpu().numpy(), ref)
    got = pdt.index_fill(_t(x, device), 0, _t(idx, device), 7.5)
    ref = x.copy()
    ref[idx] = 7.5
    np.testing.assert_array_equal(got.cpu().numpy(), ref)
    got = pdt.index_fill(_t(x, device), 1, _t(idx, device), _t(np.float32(-1), device))
    ref = x.copy()
    ref[:, idx] = -1
    np.testing.assert_array_equal(got.cpu().numpy(), ref)
    y = _t(x, device)
    assert y.index_copy_(0, _t(idx, device), _t(x[[1, 2]], device)) is y
    ref = x.copy()
    ref[idx] = x[[1, 2]]
    np.testing.assert_array_equal(y.cpu().numpy(), ref)
    y.index_fill_(1, _t([4], device), 0)
    ref[:, 4] = 0
    np.testing.assert_array_equal(y.cpu().numpy(), ref)


def test_masked_select_and_scatter(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4))
    mask = rng.random((1, 4)) > 0.5  # broadcast along dim 0
    got = pdt.masked_select(_t(x, device), _t(mask, device))
    np.testing.assert_array_equal(got.cpu().numpy(), x[np.broadcast_to(mask, x.shape)])
    src = rng.standard_normal(20)
    got = _t(x, device).masked_scatter(_t(mask, device), _t(src, device))
    ref = torch.tensor(x).masked_scatter(torch.tensor(mask), torch.tensor(src))
    np.testing.assert_array_equal(got.cpu().numpy(), ref.numpy())
    y = _t(x, device)
    assert y.masked_scatter_(_t(mask, device), _t(src, device)) is y
    np.testing.assert_array_equal(y.cpu().numpy(), ref.numpy())
    # 0-d and empty
    assert pdt.masked_select(_t(2.0, device), _t(True, device)).tolist() == [2.0]
    assert pdt.masked_select(_t(x, device), _t(np.zeros((3, 4), bool), device)).shape == (0,)


def test_masked_select_reads_what_a_mask_index_reads(device):
    """The count (and the index checks x[mask] makes), nothing more; all counted."""
    if device.type != "cuda":
        pytest.skip("a transfer counts only on a GPU")
    x = pdt.arange(6., device=device)
    mask = x > 2
    pdt.reset_transfer_stats()
    x[mask]
    reads = pdt.transfer_stats()["device_to_host"]["count"]
    pdt.reset_transfer_stats()
    pdt.masked_select(x, mask)
    assert 1 <= pdt.transfer_stats()["device_to_host"]["count"] <= reads


def test_take_and_take_along_dim(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 4))
    idx = rng.integers(-12, 12, (2, 5))
    np.testing.assert_array_equal(pdt.take(_t(x, device), _t(idx, device)).cpu().numpy(),
                                  np.take(x, idx))
    order = np.argsort(x, axis=1)
    got = pdt.take_along_dim(_t(x, device), _t(order, device), 1)
    np.testing.assert_array_equal(got.cpu().numpy(), np.take_along_axis(x, order, 1))
    small = rng.integers(0, 3, (2, 1))  # broadcasts with x's 4 columns
    ref = torch.take_along_dim(torch.tensor(x), torch.tensor(small), dim=0)
    got = _t(x, device).take_along_dim(_t(small, device), 0)
    np.testing.assert_array_equal(got.cpu().numpy(), ref.numpy())
    flat = rng.integers(0, 12, 5)
    np.testing.assert_array_equal(pdt.take_along_dim(_t(x, device), _t(flat, device))
                                  .cpu().numpy(), x.reshape(-1)[flat])


def test_argwhere(device):
    x = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, np.nan]])
    got = pdt.argwhere(_t(x, device))
    np.testing.assert_array_equal(got.cpu().numpy(), np.argwhere(x))
    assert _t(x, device).argwhere().dtype == pdt.int64


@pytest.mark.parametrize("size", [0, 2, 3, 5])
def test_nonzero_static(device, size):
    """NumPy's argwhere, cut to size rows or padded with rows of fill_value; a 0-d input
    gives (size, 0)."""
    x = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, np.nan]])
    found = np.argwhere(x)
    for fill in (-1, 7):
        want = np.full((size, 2), fill, dtype=np.int64)
        want[:min(size, len(found))] = found[:size]
        got = pdt.nonzero_static(_t(x, device), size=size, fill_value=fill) if fill != -1 \
            else _t(x, device).nonzero_static(size=size)
        assert got.dtype == pdt.int64 and got.device == _t(x, device).device
        np.testing.assert_array_equal(got.cpu().numpy(), want)
    # the transpose: NumPy's row-major order of the non-contiguous view's elements
    got = pdt.nonzero_static(_t(x, device).t(), size=size, fill_value=-5)
    want = np.full((size, 2), -5, dtype=np.int64)
    want[:min(size, len(found))] = np.argwhere(x.T)[:size]
    np.testing.assert_array_equal(got.cpu().numpy(), want)
    assert tuple(pdt.nonzero_static(_t(np.float64(3.0), device), size=size).shape) == (size, 0)


@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
def test_isin(device, dtype):
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    a = rng.integers(0, 6, (3, 4)).astype(dtype)
    b = rng.integers(0, 6, 5).astype(dtype)
    for invert in (False, True):
        got = pdt.isin(_t(a, device), _t(b, device), invert=invert)
        np.testing.assert_array_equal(got.cpu().numpy(), np.isin(a, b, invert=invert))
        if dtype != "bool":  # torch refuses bool; NumPy's answer holds
            ref = torch.isin(torch.tensor(a), torch.tensor(b), invert=invert)
            np.testing.assert_array_equal(got.cpu().numpy(), ref.numpy())
    assert pdt.isin(_t(a, device), 3).tolist() == (a == 3).tolist()
    assert pdt.isin(2, _t(b, device)).item() == bool((b == 2).any())


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_take_of_many_indices_matches_numpy(device, index_dtype):
    """take straight through the kernel (no gradient; negatives counted from the end by
    the kernel) and through index_select (a gradient), 1e5 indices into a
    non-contiguous input, past the threads' split."""
    rng = np.random.default_rng(15)
    a = rng.standard_normal((300, 400))
    idx = rng.integers(-120_000, 120_000, 100_000).astype(index_dtype)
    want = np.take(a.T, idx)  # a.T read in row-major order, as take reads input
    x = pdt.tensor(a, device=device).t()  # not contiguous
    np.testing.assert_array_equal(pdt.take(x, _t(idx, device)).cpu().numpy(), want)
    xg = pdt.tensor(a, device=device, requires_grad=True)
    got = pdt.take(xg.t(), _t(idx, device))
    np.testing.assert_array_equal(got.detach().cpu().numpy(), want)
    got.sum().backward()
    counts = np.bincount(np.where(idx < 0, idx + a.size, idx), minlength=a.size)
    np.testing.assert_array_equal(xg.grad.cpu().numpy().T.reshape(-1), counts)


def test_isin_nan_and_empty(device):
    a = _t([1.0, float("nan"), 2.0], device)
    assert pdt.isin(a, _t([float("nan"), 2.0], device)).tolist() == [False, False, True]
    assert pdt.isin(a, _t(np.zeros(0), device)).tolist() == [False] * 3
    assert pdt.isin(a, _t(np.zeros(0), device), invert=True).tolist() == [True] * 3


def test_isin_number_past_the_dtype(device):
    """A number test_elements that elements' dtype cannot hold matches nothing, as in
    NumPy (isin of uint8 with 300 raised a conversion error, of int64 with 2**63 an
    OverflowError naming full()); one it can hold, or a float, is compared as before."""
    for dtype, n in [("uint8", 300), ("uint8", -1), ("int8", 200), ("int64", 2**63),
                     ("int64", -2**63 - 1), ("int32", 2**70), ("bool", 2)]:
        a = np.array([0, 1, 44, 127], dtype=dtype)
        for invert in (False, True):
            got = pdt.isin(_t(a, device), n, invert=invert)
            assert got.dtype == pdt.bool and got.device == device
            np.testing.assert_array_equal(got.cpu().numpy(),
                                          np.isin(a.astype(object), [n], invert=invert),
                                          err_msg=f"{dtype} {n} {invert}")
    a = np.array([1.0, 2.5, 9.223372036854775808e18], dtype="float64")
    np.testing.assert_array_equal(pdt.isin(_t(a, device), 2**63).cpu().numpy(),
                                  [False, False, True])
    np.testing.assert_array_equal(pdt.isin(_t(a, device), 2.5).cpu().numpy(),
                                  [False, True, False])


def test_gradients(device):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 3))
    idx = _t([2, 0], device)
    gradcheck(lambda a, s: a.index_copy(0, idx, s), [x, rng.standard_normal((2, 3))], device)
    gradcheck(lambda a: a.index_fill(1, idx, 2.0), [x], device)
    gradcheck(lambda a, v: a.index_fill(1, idx, v.reshape(())), [x, np.array([1.5])], device)
    mask = _t(rng.random((4, 3)) > 0.4, device)
    gradcheck(lambda a: a.masked_select(mask), [x], device)
    gradcheck(lambda a, s: a.masked_scatter(mask, s), [x, rng.standard_normal(12)], device)
    gradcheck(lambda a: pdt.take(a, _t([[0, -1], [5, 5]], device)), [x], device)
    gradcheck(lambda a: pdt.take_along_dim(a, _t([[1], [0], [2], [2]], device), 1), [x],
              device)


def test_errors_name_the_problem(device):
    x = pdt.zeros(2, 3, device=device)
    with pytest.raises(IndexError, match="index_copy: index 2 is out of bounds for dimension "
                                         "0 with size 2"):
        x.index_copy(0, _t([2], device), pdt.ones(1, 3, device=device))
    with raises_index_error(device, "take: index -7 is out of bounds"):
        pdt.take(x, _t([-7], device))  # a GPU: at the next synchronisation
    with pytest.raises(RuntimeError, match=r"source has 1 elements .* broadcast to \(2, 3\), has 4 True"):
        x.masked_scatter(_t([True, True, False], device), pdt.ones(1, device=device))
    with pytest.raises(RuntimeError, match="expected a bool mask"):
        x.masked_select(_t([1, 0, 1], device))
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        pdt.take_along_dim(x, _t([0], device), 1)


def test_masked_scatter_and_take_along_dim_numpy(device):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4))
    mask = rng.random((1, 4)) > 0.5
    src = rng.standard_normal(20)
    full = np.broadcast_to(mask, x.shape)
    ref = x.copy()
    ref[full] = src[:full.sum()]
    got = _t(x, device).masked_scatter(_t(mask, device), _t(src, device))
    np.testing.assert_array_equal(got.cpu().numpy(), ref)
    small = rng.integers(0, 3, (2, 1))
    got = _t(x, device).take_along_dim(_t(small, device), 0)
    np.testing.assert_array_equal(got.cpu().numpy(),
                                  np.take_along_axis(x, np.broadcast_to(small, (2, 4)), 0))
    a = rng.integers(0, 6, (3, 4))
    b = rng.integers(0, 6, 5)
    for invert in (False, True):
        got = pdt.isin(_t(a, device), _t(b, device), invert=invert)
        np.testing.assert_array_equal(got.cpu().numpy(), np.isin(a, b, invert=invert))


def test_index_fill_takes_negative_indices_as_torch(device):
    torch = torch_or_skip()
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for dim, idx in [(0, [-1]), (1, [-4, 1, -1]), (-1, -2)]:
        ref = torch.tensor(x).index_fill(dim, torch.tensor(idx), -5.0).numpy()
        want = x.copy()
        np.moveaxis(want, dim, 0)[np.array(idx)] = -5.0
        np.testing.assert_array_equal(ref, want)
        got = pdt.tensor(x, device=device).index_fill(dim, _t(np.array(idx), device), -5.0)
        np.testing.assert_array_equal(got.cpu().numpy(), want)
        y = _t(x, device)
        assert y.index_fill_(dim, _t(np.array(idx), device), -5.0) is y
        np.testing.assert_array_equal(y.cpu().numpy(), want)
    with pytest.raises(IndexError, match=r"index_fill: index -4 is out of bounds for "
                                         r"dimension 0 with size 3"):
        pdt.index_fill(_t(x, device), 0, _t(np.array([-4]), device), 0.0)


def test_take_along_dim_takes_negative_indices_along_a_dim_as_torch(device):
    torch = torch_or_skip()
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for dim, idx in [(1, [[-1], [0], [-4]]), (0, [[-3, -1, 2, 0]]), (-1, [[-2, 1]] * 3)]:
        idx = np.array(idx)
        ref = torch.take_along_dim(torch.tensor(x), torch.tensor(idx), dim).numpy()
        want = np.take_along_axis(x, idx, dim)  # NumPy wraps negative ones too
        np.testing.assert_array_equal(ref, want)
        got = pdt.take_along_dim(_t(x, device), _t(idx, device), dim)
        np.testing.assert_array_equal(got.cpu().numpy(), want)
    # (on a GPU the index is checked on the device: raises_index_error synchronises)
    for bad in (-5, 4):  # PyTorch reads out of bounds here; we refuse
        with raises_index_error(device, match=rf"take_along_dim: index {bad} is out of bounds "
                                              r"for dimension 1 with size 4"):
            pdt.take_along_dim(_t(x, device), _t(np.array([[bad]] * 3), device), 1)
    # without dim, as PyTorch: the flattened input takes no negative index
    with raises_index_error(device, match="out of bounds"):
        pdt.take_along_dim(_t(x, device), _t(np.array([-1]), device))
    with pytest.raises(RuntimeError, match="out of bounds"):
        torch.take_along_dim(torch.tensor(x), torch.tensor([-1]))


def test_gather_and_scatter_refuse_negative_indices_as_torch(device):
    torch = torch_or_skip()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    idx = np.array([[-1], [0]])
    for lib, kw in ((torch, {}), (pdt, {"device": device})):
        t, i = lib.tensor(x, **kw), lib.tensor(idx, **kw)
        for f in (lambda: lib.gather(t, 1, i), lambda: t.scatter(1, i, 5.0),
                  lambda: t.index_select(1, i[0]), lambda: t.index_add(1, i[0], t[:, :1])):
            if lib is torch:
                with pytest.raises((RuntimeError, IndexError), match="out of .*bounds"):
                    f()
            else:  # on a GPU the index is checked on the device: this synchronises
                with raises_index_error(device, match="out of .*bounds"):
                    f()


@pytest.mark.parametrize("dtype", ["int8", "float16", "float32", "float64"])
@pytest.mark.parametrize("shape, dim", [((40, 64), 0), ((3, 17, 5), 1), ((6, 1, 3), 0),
                                        ((2, 9, 1, 3), 1), ((5, 1200), 0), ((2, 50000), 0)])
def test_index_select_of_whole_rows(device, dtype, shape, dim):
    # contiguous rows along a dim that is not the last (Note [index_select of whole rows]
    # in csrc/cpu/cpu_index.c): rows of 1 to 9,600 bytes (past 4 KiB the general walk),
    # odd byte counts, size-1 dims, blocks before dim, repeats, x[idx]'s negative indices,
    # and enough rows for the thread pool
    rng = np.random.default_rng(len(shape) * 10 + dim)
    x = (rng.standard_normal(shape) * 50).astype(dtype)
    size = shape[dim]
    idx = rng.integers(0, size, 3 * size + 7)
    t = _t(x, device)
    got = t.index_select(dim, _t(idx, device))
    np.testing.assert_array_equal(got.cpu().numpy(), np.take(x, idx, dim))
    if dim == 0:
        neg = idx - size * (idx % 2)  # every other one counted from the end
        np.testing.assert_array_equal(t[_t(neg, device)].cpu().numpy(), x[neg])
    big = pdt.tensor(rng.standard_normal((20000, 24)).astype(np.float32), device=device)
    many = rng.integers(-20000, 20000, 30000)
    np.testing.assert_array_equal(big[_t(many, device)].cpu().numpy(),
                                  big.cpu().numpy()[many])
    with raises_index_error(device, f"out of bounds for .*size {size}"):
        t.index_select(dim, _t(np.append(idx, size), device))
    with raises_index_error(device, "out of bounds"):
        t.index_select(dim, _t(np.insert(idx, 5, -1), device))  # no negatives, as PyTorch


@pytest.mark.parametrize("step", [1, -2])
def test_gather_of_a_vector(device, step):
    """A vector's gather is its take (on the CPU one index_select call, input read in
    place): np.take_along_axis's values from a strided view too, no negative index (as
    PyTorch), int32 indices, the error naming gather, and the gradient summed at
    repeated positions."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal(40)
    i = rng.integers(0, 20, 30)
    t = _t(a, device)[::step]
    assert tuple(t.shape) == (40 // abs(step),)
    for idx in (_t(i, device), _t(i.astype(np.int32), device)):
        np.testing.assert_array_equal(pdt.gather(t, 0, idx).cpu().numpy(),
                                      np.take_along_axis(a[::step], i, 0))
        np.testing.assert_array_equal(t.gather(-1, idx).cpu().numpy(), a[::step][i])
    with raises_index_error(device, r"gather.*index -1 is out of bounds"):
        pdt.gather(t, 0, _t(np.array([0, -1]), device))  # on a GPU: at the next sync
    with raises_index_error(device, r"gather.*out of bounds"):
        pdt.gather(t, 0, _t(np.array([40 // abs(step)]), device))
    x = pdt.tensor(a[:20], device=device, requires_grad=True)
    pdt.gather(x, 0, _t(i, device)).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.bincount(i, minlength=20))


def test_gather_and_scatter_take_a_0d_index_and_skip_an_empty_one(device):
    """A 0-d index counts as 1-d (gather of a vector at tensor(1) is 0-d; scatter_add
    of a 0-d src at a 0-d index), and an empty index reads and writes nothing without
    the shape checks (a 1-d empty index into a matrix), as PyTorch's."""
    a = np.arange(3.0)
    t = _t(a, device)
    got = t.gather(0, _t(np.array(1), device))
    assert tuple(got.shape) == () and got.item() == 1.0
    got = pdt.tensor(5.0, device=device).gather(0, _t(np.array([0, 0]), device))
    np.testing.assert_array_equal(got.cpu().numpy(), [5.0, 5.0])
    got = pdt.zeros(3, device=device).scatter_add(0, _t(np.array(2), device),
                                                  pdt.tensor(1.0, device=device))
    np.testing.assert_array_equal(got.cpu().numpy(), [0.0, 0.0, 1.0])
    x = _t(np.arange(4.0).reshape(2, 2), device)
    empty = _t(np.zeros(0, dtype=np.int64), device)
    for got in (x.scatter_add(0, empty, pdt.zeros(1, dtype=x.dtype, device=device)),
                x.scatter(1, empty, 2.0),
                x.scatter_reduce(0, empty, pdt.zeros_like(x), "amax")):
        np.testing.assert_array_equal(got.cpu().numpy(), np.arange(4.0).reshape(2, 2))
    assert tuple(x.gather(0, empty).shape) == (0,)
    with pytest.raises(IndexError, match="out of range"):
        x.gather(5, empty)  # dim is still checked
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        x.gather(0, _t(np.array(0), device))  # 0-d counts as 1-d, not 2-d
    v = pdt.tensor(a, device=device, requires_grad=True)
    v.gather(0, _t(np.array(2), device)).backward()
    np.testing.assert_array_equal(v.grad.cpu().numpy(), [0.0, 0.0, 1.0])


def test_gather_sparse_grad_keyword(device):
    x = _t(np.arange(6.0).reshape(2, 3), device)
    i = _t(np.array([[2, 0], [1, 1]]), device)
    np.testing.assert_array_equal(x.gather(1, i, sparse_grad=False).cpu().numpy(),
                                  [[2.0, 0.0], [4.0, 4.0]])
    with pytest.raises(NotImplementedError, match="sparse gradient"):
        pdt.gather(x, 1, i, sparse_grad=True)


@pytest.mark.parametrize("alias, name", [("max", "amax"), ("min", "amin")])
def test_scatter_reduce_max_min_are_amax_amin(device, alias, name):
    rng = np.random.default_rng(4)
    x = _t(rng.standard_normal((3, 4)), device)
    i = _t(rng.integers(0, 3, (5, 4)), device)
    s = _t(rng.standard_normal((5, 4)), device)
    for include_self in (True, False):
        got = x.scatter_reduce(0, i, s, alias, include_self=include_self)
        want = x.scatter_reduce(0, i, s, name, include_self=include_self)
        np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())
    xs = x.cpu().numpy()
    ref = xs.copy()
    for (r, c), v in zip(np.ndindex(5, 4), s.cpu().numpy().ravel()):
        k = i.cpu().numpy()[r, c]
        ref[k, c] = max(ref[k, c], v) if alias == "max" else min(ref[k, c], v)
    np.testing.assert_array_equal(x.scatter_reduce(0, i, s, alias).cpu().numpy(), ref)


def test_gather_and_index_select_out(device):
    """out= as PyTorch's: written and returned; an out with no elements takes the
    result's shape; another dtype, or a non-empty out of another shape, is refused."""
    a = np.arange(6.0).reshape(2, 3)
    x = _t(a, device)
    gi, si = np.array([[2, 0], [1, 1]]), np.array([2, 0])
    cases = (("gather", lambda out: pdt.gather(x, 1, _t(gi, device), out=out),
              np.take_along_axis(a, gi, 1)),
             ("index_select", lambda out: pdt.index_select(x, 1, _t(si, device), out=out),
              a[:, si]))
    for name, f, want in cases:
        for out in (pdt.full(want.shape, -1.0, dtype=pdt.float64, device=device),
                    pdt.empty(0, dtype=pdt.float64, device=device)):
            assert f(out) is out
            np.testing.assert_array_equal(out.cpu().numpy(), want)
        with pytest.raises(RuntimeError, match=f"{name}.*dtype"):
            f(pdt.empty(want.shape, dtype=pdt.float32, device=device))
        with pytest.raises(RuntimeError, match=f"{name}.*shape"):
            f(pdt.empty(7, dtype=pdt.float64, device=device))
    with pytest.raises(RuntimeError, match="out=.*automatic differentiation"):
        pdt.gather(x.requires_grad_(), 1, _t(gi, device), out=pdt.empty(0, device=device,
                                                                        dtype=pdt.float64))
