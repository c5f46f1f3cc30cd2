"""scatter, scatter_add, scatter_reduce and index_add (pydevtensor/_ops_scatter.py) on
every device, against a float64 NumPy loop (exact for integers; float32 within 1e-5
relative: a sum of a few float32 values in another order) and against PyTorch when
importable; gradients by gradcheck (float64, central differences)."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from test_gradcheck import gradcheck

REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _np_scatter_reduce(x, dim, index, src, reduce, include_self):
    out = x.astype(np.float64).copy()
    groups = {}
    for pos in np.ndindex(*index.shape):
        dest = list(pos)
        dest[dim] = index[pos]
        groups.setdefault(tuple(dest), []).append(float(src[pos]))
    for dest, vals in groups.items():
        vals = ([float(x[dest])] if include_self else []) + vals
        if reduce == "sum":
            r = sum(vals)
        elif reduce == "prod":
            r = float(np.prod(vals))
        elif reduce == "mean":
            r = sum(vals) / len(vals)
            if not np.issubdtype(x.dtype, np.floating):
                r = np.floor(r)
        elif reduce == "amax":
            r = max(vals) if not any(np.isnan(vals)) else np.nan
        else:
            r = min(vals) if not any(np.isnan(vals)) else np.nan
        out[dest] = r
    return out


def _case(rng, dim, dtype):
    x = rng.integers(-5, 6, size=(4, 5)).astype(dtype)
    ishape = (3, 4) if dim == 0 else (4, 3)
    index = rng.integers(0, x.shape[dim], size=ishape)
    src = rng.integers(-5, 6, size=(4, 4)).astype(dtype)  # larger than index: a part is read
    return x, index, src


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", ["float32", "int64", "int8", "int16"])
def test_scatter_reduce_matches_numpy(device, reduce, include_self, dim, dtype):
    rng = np.random.default_rng(abs(dim) * 7 + len(reduce))
    x, index, src = _case(rng, dim % 2, dtype)
    got = pdt.tensor(x, device=device).scatter_reduce(
        dim, pdt.tensor(index, device=device), pdt.tensor(src, device=device), reduce,
        include_self=include_self)
    assert got.device == device and str(got.dtype).endswith(dtype)
    ref = _np_scatter_reduce(x, dim % 2, index, src, reduce, include_self)
    np.testing.assert_allclose(got.cpu().numpy().astype(np.float64), ref, rtol=1e-5)


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_torch(device, reduce, include_self):
    torch = torch_or_skip()
    rng = np.random.default_rng(3)
    x, index, src = _case(rng, 1, "float64")
    src[0, 0] = np.nan  # NaN propagates through every reduction
    got = pdt.scatter_reduce(pdt.tensor(x, device=device), 1, pdt.tensor(index, device=device),
                             pdt.tensor(src, device=device), reduce, include_self=include_self)
    ref = torch.scatter_reduce(torch.tensor(x), 1, torch.tensor(index), torch.tensor(src),
                               reduce, include_self=include_self)
    np.testing.assert_allclose(got.cpu().numpy(), ref.numpy(), rtol=1e-12, equal_nan=True)


def test_scatter_and_scatter_add(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(1)
    x, index, src = _case(rng, 0, "float32")
    index = np.stack([rng.permutation(4)[:3] for _ in range(4)], 1)  # no repeats per column
    t = [pdt.tensor(a, device=device) for a in (x, index, src)]
    r = [torch.tensor(a) for a in (x, index, src)]
    np.testing.assert_array_equal(pdt.scatter(t[0], 0, t[1], t[2]).cpu().numpy(),
                                  torch.scatter(r[0], 0, r[1], r[2]).numpy())
    np.testing.assert_array_equal(t[0].scatter(0, t[1], 2.5).cpu().numpy(),
                                  r[0].scatter(0, r[1], 2.5).numpy())
    np.testing.assert_array_equal(t[0].scatter(0, t[1], value=-1).cpu().numpy(),
                                  r[0].scatter(0, r[1], value=-1).numpy())
    np.testing.assert_array_equal(pdt.scatter_add(t[0], 0, t[1], t[2]).cpu().numpy(),
                                  torch.scatter_add(r[0], 0, r[1], r[2]).numpy())
    for mode in ("add", "multiply"):
        np.testing.assert_array_equal(t[0].scatter(0, t[1], t[2], reduce=mode).cpu().numpy(),
                                      r[0].scatter(0, r[1], r[2], reduce=mode).numpy())


def test_in_place_forms(device):
    x = pdt.zeros(2, 3, device=device)
    i = pdt.tensor([[0, 2], [1, 1]], device=device)
    s = pdt.tensor([[1., 2.], [3., 4.]], device=device)
    assert x.scatter_(1, i, s) is x
    np.testing.assert_array_equal(x.cpu().numpy(), [[1, 0, 2], [0, 4, 0]])
    x.scatter_add_(1, i, s)
    np.testing.assert_array_equal(x.cpu().numpy(), [[2, 0, 4], [0, 11, 0]])
    x.scatter_reduce_(1, i, s, "amin", include_self=False)
    np.testing.assert_array_equal(x.cpu().numpy(), [[1, 0, 2], [0, 3, 0]])
    y = pdt.ones(3, device=device)
    assert y.index_add_(0, pdt.tensor([2, 2], device=device), pdt.tensor([1., 2.],
                        device=device), alpha=-1) is y
    np.testing.assert_array_equal(y.cpu().numpy(), [1, 1, -2])
    assert not hasattr(pdt, "scatter_")  # as torch: methods only


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int32",
                                   "int64"])
def test_index_add_dtypes(device, dtype):
    x = pdt.zeros(3, 2, dtype=getattr(pdt, dtype), device=device)
    src = pdt.ones(4, 2, dtype=x.dtype, device=device)
    out = pdt.index_add(x, 0, pdt.tensor([0, 2, 0, 0], device=device), src, alpha=2)
    assert out.dtype == x.dtype and out.device == device
    np.testing.assert_array_equal(out.float().cpu().numpy(), [[6, 6], [0, 0], [2, 2]])
    np.testing.assert_array_equal(x.float().cpu().numpy(), 0)  # unchanged


def test_index_add_along_dim1_matches_torch(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(5)
    x, src = rng.standard_normal((3, 4)), rng.standard_normal((3, 6))
    index = rng.integers(0, 4, 6)
    got = pdt.tensor(x, device=device).index_add(1, pdt.tensor(index, device=device),
                                                 pdt.tensor(src, device=device), alpha=0.5)
    ref = torch.tensor(x).index_add(1, torch.tensor(index), torch.tensor(src), alpha=0.5)
    np.testing.assert_allclose(got.cpu().numpy(), ref.numpy(), rtol=1e-12)


@pytest.mark.parametrize("dim", [0, 1, 2])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_index_add_large_matches_the_walk_bit_for_bit(device, dim, dtype):
    """Contiguous operands take rows at a time over threads (Note [index_add by rows],
    on the CPU): the same bits as the element walk a non-contiguous input takes, and
    np.add.at's sums (exact for int64, in order for the floats: each sum has at most
    a few terms, added in index order by both).  CUDA adds atomically, in any order:
    there the floats are within a few roundings of a sum of a few terms of |x| < 600."""
    rng = np.random.default_rng(dim)
    shape = [6, 70, 600]
    n = shape[dim]
    index = rng.integers(0, n, 2 * n)
    src_shape = list(shape)
    src_shape[dim] = 2 * n
    x = (rng.standard_normal(shape) * 100).astype(dtype)
    src = (rng.standard_normal(src_shape) * 100).astype(dtype)
    dt = getattr(pdt, dtype)
    px = pdt.tensor(x, dtype=dt, device=device)
    ps, pi = pdt.tensor(src, dtype=dt, device=device), pdt.tensor(index, device=device)
    got = px.index_add(dim, pi, ps).cpu().numpy()
    walk = pdt.tensor(np.asfortranarray(x), dtype=dt, device=device)
    walk = walk.permute(2, 1, 0).contiguous().permute(2, 1, 0)  # x, not contiguous
    assert not walk.is_contiguous()
    ref = x.copy()
    np.add.at(ref, tuple(index if d == dim else slice(None) for d in range(3)), src)
    if device.type == "cpu" or dtype == "int64":
        np.testing.assert_array_equal(walk.index_add(dim, pi, ps).cpu().numpy(), got)
        np.testing.assert_array_equal(got, ref)
    else:
        atol = 2000 * np.finfo(dtype).eps
        np.testing.assert_allclose(got, ref, rtol=0, atol=atol)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("n, step", [(1000, 1), (1000, -3), (700_000, 1)])
def test_index_add_into_a_vector_in_order(device, dtype, n, step):
    """A 1-d dst is added to at each index in turn (Note [index_add of a vector], on the
    CPU; 700,000 float64 is past the 4 MiB where it prefetches): np.add.at's values
    exactly, duplicates included, into a reversed strided view too.  CUDA adds atomically
    in any order: floats there within a few roundings."""
    rng = np.random.default_rng(n)
    m = 3 * n // 2
    index = rng.integers(0, n, m)
    index[:50] = n - 1  # a run of one slot: 50 adds in order
    src = (rng.standard_normal(m) * 100).astype(dtype)
    base = (rng.standard_normal(n * abs(step)) * 100).astype(dtype)
    dt = getattr(pdt, dtype)
    whole = pdt.tensor(base, dtype=dt, device=device)
    x = whole[::step]
    assert x.shape == (n,)
    ref = base[::step].copy()
    np.add.at(ref, index, src)
    x.index_add_(0, pdt.tensor(index, device=device), pdt.tensor(src, dtype=dt, device=device))
    got = x.cpu().numpy()
    if device.type == "cpu" or dtype.startswith("int"):
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got, ref, rtol=0, atol=6000 * np.finfo(dtype).eps)
    # the view wrote through to its base and nowhere else (what it holds, whatever order
    # the adds took)
    expect = base.copy()
    expect[::step] = got
    np.testing.assert_array_equal(whole.cpu().numpy(), expect)


def test_empty_index(device):
    x = pdt.ones(2, 3, device=device)
    i = pdt.zeros(0, 3, dtype=pdt.int64, device=device)
    for reduce in REDUCES:
        out = x.scatter_reduce(0, i, pdt.ones(0, 3, device=device), reduce)
        np.testing.assert_array_equal(out.cpu().numpy(), 1)


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_gradients(device, reduce, include_self):
    rng = np.random.default_rng(0)
    index = pdt.tensor([[0, 1, 1], [2, 2, 0]], device=device)
    x = rng.permutation(12).reshape(3, 4) + 0.25
    src = rng.permutation(8).reshape(2, 4) * 1.5  # distinct: no ties in the differences
    gradcheck(lambda a, b: a.scatter_reduce(1, index, b, reduce, include_self=include_self),
              [x, src], device)


def test_amax_gradient_shared_among_ties_as_torch(device):
    torch = torch_or_skip()
    x = np.array([3.0, 1.0, 2.0])
    src = np.array([3.0, 3.0, 0.5, 2.0])
    index = np.array([0, 0, 1, 2])
    for include_self in (True, False):
        a = pdt.tensor(x, device=device, requires_grad=True)
        b = pdt.tensor(src, device=device, requires_grad=True)
        a.scatter_reduce(0, pdt.tensor(index, device=device), b, "amax",
                         include_self=include_self).sum().backward()
        ta = torch.tensor(x, requires_grad=True)
        tb = torch.tensor(src, requires_grad=True)
        ta.scatter_reduce(0, torch.tensor(index), tb, "amax",
                          include_self=include_self).sum().backward()
        np.testing.assert_allclose(a.grad.cpu().numpy(), ta.grad.numpy())
        np.testing.assert_allclose(b.grad.cpu().numpy(), tb.grad.numpy())


def test_scatter_index_add_gradients(device):
    index = pdt.tensor([[1, 0], [2, 1]], device=device)
    rng = np.random.default_rng(2)
    x, src = rng.standard_normal((3, 2)), rng.standard_normal((3, 3))
    gradcheck(lambda a, b: a.scatter(0, index, b), [x, src], device)
    gradcheck(lambda a, b: pdt.scatter_add(a, 0, index, b), [x, src], device)
    i1 = pdt.tensor([2, 0, 2], device=device)
    gradcheck(lambda a, b: pdt.index_add(a, 0, i1, b, alpha=3.0), [x, src[:, :2].copy()], device)
    gradcheck(lambda a: a.scatter(0, index, 1.0), [x], device)


def test_in_place_records(device):
    w = pdt.ones(3, device=device, requires_grad=True)
    s = pdt.tensor([2., 5.], device=device, requires_grad=True)
    y = w * 2
    y.scatter_add_(0, pdt.tensor([0, 0], device=device), s)
    (y * pdt.tensor([1., 2., 3.], device=device)).sum().backward()
    np.testing.assert_array_equal(w.grad.cpu().numpy(), [2, 4, 6])
    np.testing.assert_array_equal(s.grad.cpu().numpy(), [1, 1])


def test_prod_gradient_with_zeros_by_hand(device):
    """Each factor gets the product of its destination's other factors: a lone zero
    gets the product of the rest, two zeros give every factor 0 (as torch's)."""
    index = pdt.tensor([0, 0, 2, 2], device=device)
    cases = [  # x, src, include_self -> x.grad, src.grad (the gradient of the sum)
        ([1.0, 2.0, 3.0], [2.0, 0.0, 5.0, 4.0], True, [0.0, 1.0, 20.0], [0.0, 2.0, 12.0, 15.0]),
        ([0.0, 2.0, 3.0], [2.0, 0.0, 5.0, 4.0], True, [0.0, 1.0, 20.0], [0.0, 0.0, 12.0, 15.0]),
        ([0.0, 2.0, 0.0], [2.0, 3.0, 0.0, 4.0], True, [6.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0]),
        ([0.0, 2.0, 0.0], [2.0, 3.0, 0.0, 4.0], False, [0.0, 1.0, 0.0], [3.0, 2.0, 4.0, 0.0]),
    ]
    for x, src, include_self, gx, gs in cases:
        a = pdt.tensor(x, dtype=pdt.float64, device=device, requires_grad=True)
        b = pdt.tensor(src, dtype=pdt.float64, device=device, requires_grad=True)
        a.scatter_reduce(0, index, b, "prod", include_self=include_self).sum().backward()
        assert a.grad.tolist() == gx and b.grad.tolist() == gs, (x, src, include_self)


def test_errors_name_the_problem(device):
    x = pdt.zeros(2, 3, device=device)
    with pytest.raises(IndexError, match="out of bounds for dimension 1 with size 3"):
        x.scatter(1, pdt.tensor([[3]], device=device), 1.0)
    with pytest.raises(RuntimeError, match="same dtype"):
        x.scatter_add(1, pdt.tensor([[0]], device=device), pdt.ones(1, 1, dtype=pdt.float64,
                                                                     device=device))
    with pytest.raises(RuntimeError, match="reduce argument"):
        x.scatter_reduce(1, pdt.tensor([[0]], device=device), pdt.ones(1, 1, device=device),
                         "maximum")
    with pytest.raises(RuntimeError, match=r"smaller than src"):
        x.scatter(1, pdt.tensor([[0, 1]], device=device), pdt.ones(1, 1, device=device))
    with pytest.raises(RuntimeError, match=r"source must have shape \(2, 3\)"):
        pdt.index_add(x, 0, pdt.tensor([0, 1], device=device), pdt.ones(3, 3, device=device))


# ---- NumPy references for what the torch comparisons above also check (they skip
# where torch cannot be imported, e.g. against the emulated CUDA libraries)

def _np_scatter(x, dim, index, src):
    out = x.copy()
    for pos in np.ndindex(*index.shape):
        dest = list(pos)
        dest[dim] = index[pos]
        out[tuple(dest)] = src[pos] if isinstance(src, np.ndarray) else src
    return out


def test_scatter_and_scatter_add_numpy(device):
    rng = np.random.default_rng(1)
    x, _, src = _case(rng, 0, "float32")
    index = np.stack([rng.permutation(4)[:3] for _ in range(4)], 1)  # no repeats per column
    t = [pdt.tensor(a, device=device) for a in (x, index, src)]
    np.testing.assert_array_equal(pdt.scatter(t[0], 0, t[1], t[2]).cpu().numpy(),
                                  _np_scatter(x, 0, index, src))
    np.testing.assert_array_equal(t[0].scatter(0, t[1], value=-1).cpu().numpy(),
                                  _np_scatter(x, 0, index, -1))
    np.testing.assert_array_equal(pdt.scatter_add(t[0], 0, t[1], t[2]).cpu().numpy(),
                                  _np_scatter_reduce(x, 0, index, src, "sum", True))
    for mode, reduce in (("add", "sum"), ("multiply", "prod")):
        np.testing.assert_array_equal(t[0].scatter(0, t[1], t[2], reduce=mode).cpu().numpy(),
                                      _np_scatter_reduce(x, 0, index, src, reduce, True))


@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_reduce_nan_numpy(device, reduce):
    rng = np.random.default_rng(3)
    x, index, src = _case(rng, 1, "float64")
    src[0, 0] = np.nan
    x[2, 1] = np.nan
    for include_self in (True, False):
        got = pdt.scatter_reduce(pdt.tensor(x, device=device), 1,
                                 pdt.tensor(index, device=device),
                                 pdt.tensor(src, device=device), reduce,
                                 include_self=include_self)
        ref = _np_scatter_reduce(x, 1, index, src, reduce, include_self)
        np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-12, equal_nan=True)


def test_amax_gradient_ties_by_hand(device):
    """self 3 and two src 3s tie for dest 0: a third each (self's share counted even
    without include_self, as torch's formula); src 2 ties self 2 at dest 2: halves."""
    x = np.array([3.0, 1.0, 2.0])
    src = np.array([3.0, 3.0, 0.5, 2.0])
    index = pdt.tensor([0, 0, 1, 2], device=device)
    want = {True: ([1 / 3, 1.0, 0.5], [1 / 3, 1 / 3, 0.0, 0.5]),
            False: ([0.0, 0.0, 0.0], [1 / 3, 1 / 3, 1.0, 0.5])}
    for include_self, (ga, gb) in want.items():
        a = pdt.tensor(x, device=device, requires_grad=True)
        b = pdt.tensor(src, device=device, requires_grad=True)
        a.scatter_reduce(0, index, b, "amax", include_self=include_self).sum().backward()
        np.testing.assert_allclose(a.grad.cpu().numpy(), ga, rtol=1e-15)
        np.testing.assert_allclose(b.grad.cpu().numpy(), gb, rtol=1e-15)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("alpha", [2.5, -2.5, 2.99, 0.5, 3])
def test_index_add_float_alpha_on_integers_truncates_as_torch(device, dtype, alpha):
    # PyTorch casts alpha to the integer dtype (toward zero) before multiplying
    torch = torch_or_skip()
    x = np.array([[1, 2], [3, 4], [5, 6]], dtype=dtype)
    src = np.array([[7, -8], [9, 10]], dtype=dtype)
    idx = np.array([2, 0])
    ref = torch.tensor(x).index_add(0, torch.tensor(idx), torch.tensor(src), alpha=alpha)
    want = x.astype(np.float64)
    np.add.at(want, idx, np.trunc(alpha) * src)
    np.testing.assert_array_equal(ref.numpy(), want)
    got = pdt.tensor(x, device=device).index_add(0, pdt.tensor(idx, device=device),
                                                 pdt.tensor(src, device=device), alpha=alpha)
    assert got.dtype == getattr(pdt, dtype)
    np.testing.assert_array_equal(got.cpu().numpy(), want)
    y = pdt.tensor(x, device=device)
    y.index_add_(0, pdt.tensor(idx, device=device), pdt.tensor(src, device=device), alpha=alpha)
    np.testing.assert_array_equal(y.cpu().numpy(), want)


@pytest.mark.parametrize("alpha", [float("inf"), float("nan"), 1e30])
def test_index_add_unrepresentable_alpha_on_integers(device, alpha):
    x = pdt.zeros(3, dtype=pdt.int64, device=device)
    with pytest.raises(RuntimeError, match=r"index_add\(\): alpha .* cannot be converted to "
                                           r".*int64 without overflow \(input \(3,\)"):
        x.index_add_(0, pdt.tensor([0], device=device), pdt.ones(1, dtype=pdt.int64,
                                                                  device=device), alpha=alpha)
    assert x.tolist() == [0, 0, 0]


def test_index_add_in_place_takes_alpha_by_keyword_only(device):
    """x.index_add_ takes index_add's arguments whichever path adds (alpha 1 adds into
    x directly): a positional alpha is index_add's TypeError for 1 as for 2, and x is
    left as it was."""
    x = pdt.zeros(3, device=device)
    i = pdt.tensor([0, 2], device=device)
    s = pdt.ones(2, device=device)
    for alpha in (1, 2):
        with pytest.raises(TypeError, match=r"index_add\(\) takes 4 positional"):
            x.index_add_(0, i, s, alpha)
    np.testing.assert_array_equal(x.cpu().numpy(), [0, 0, 0])
    x.index_add_(0, i, s, alpha=2)
    np.testing.assert_array_equal(x.cpu().numpy(), [2, 0, 2])


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_index_add_of_integers_wraps_as_numpy(device, dtype):
    """Integer index_add wraps past the type's ends (as the elementwise add and
    np.add.at): into a vector, along the last dim of rows, along a middle dim, and into
    a strided dst (the general walk); no signed overflow in C (the sanitizer job's
    UBSan would report one)."""
    info = np.iinfo(dtype)
    dt = getattr(pdt, dtype)
    index = np.array([0, 2, 0, 1, 2])
    vals = np.array([info.max, info.max, 7, info.min, 3], dtype=dtype)
    base = np.array([5, info.min, 9], dtype=dtype)
    cases = [  # (dst, dim, source) with index along dim
        (base.copy(), 0, vals),
        (np.tile(base, (2, 1)), 1, np.tile(vals, (2, 1))),
        (np.stack([np.tile(base, (4, 1)).T] * 2), 1, np.stack([np.tile(vals, (4, 1)).T] * 2)),
    ]
    for dst, dim, src in cases:
        ref = dst.copy()
        moved = np.moveaxis(ref, dim, 0)
        np.add.at(moved, index, np.moveaxis(src, dim, 0))  # wraps silently
        x = pdt.tensor(dst, dtype=dt, device=device)
        x.index_add_(dim, pdt.tensor(index, device=device), pdt.tensor(src, dtype=dt, device=device))
        np.testing.assert_array_equal(x.cpu().numpy(), ref)
    # a strided dst (the transpose of a contiguous one): the general walk
    ref = np.tile(base, (2, 1))
    for row in ref:
        np.add.at(row, index, vals)
    t = pdt.tensor(np.tile(base, (2, 1)).T.copy(), dtype=dt, device=device).T
    assert not t.is_contiguous()
    t.index_add_(1, pdt.tensor(index, device=device),
                 pdt.tensor(np.tile(vals, (2, 1)), dtype=dt, device=device))
    np.testing.assert_array_equal(t.cpu().numpy(), ref)
