"""cat/stack of many parts and where/masked_fill over operands in every layout, against
NumPy, on every device (split from test_everyday_ops.py, whose helpers these use).

stack's C path gives each part a size-1 dim and keeps the views on the heap past 16
parts (Note in csrc/python/tensor_index.c's _cat_fast); where and masked_fill with
operands that are not all contiguous go a row of the last dim at a time
(csrc/cpu/cpu_index.c).  meshgrid's warning for a missing indexing.  Exact: these ops
only move elements.
"""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES
from test_everyday_ops import data, exact, host


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


@pytest.mark.parametrize("n", [6, 100_002])
def test_cat_and_stack_read_inputs_that_out_overlaps(dev, n):
    # out= meeting an input: every input is read before out is written (NumPy's result)
    a = pdt.arange(float(n), device=dev)
    want = np.roll(np.arange(float(n)), -1)
    pdt.cat([a[1:], a[:1]], out=a)
    exact(a, want)
    b = pdt.arange(float(n), device=dev)
    h = n // 2
    pdt.stack([b[h:], b[:h]], out=b.view(2, h))
    exact(b, np.concatenate([np.arange(float(h), n), np.arange(float(h))]))
    c = pdt.arange(float(n), device=dev)
    pdt.cat([c[n // 3:], c[: n // 3]], out=c[::-1] if str(dev).startswith("cpu") else c)
    w = np.roll(np.arange(float(n)), -(n // 3))
    exact(c, w[::-1] if str(dev).startswith("cpu") else w)


@pytest.mark.parametrize("n", [1, 16, 17, 257])
def test_stack_of_many_parts_on_every_dim(dev, n):
    # a DataLoader's collate stacks hundreds of samples: stack's C path (each part
    # gains a size-1 dim) on the C stack and on the heap, every dim, strided parts,
    # 0-d parts; with grad, the recorded path gives each part its slice of the gradient
    xs = [data((3, 4), "float32", k) for k in range(n)]
    ts = [pdt.tensor(x, device=dev) for x in xs]
    for d in (0, 1, 2, -1, -3):
        exact(pdt.stack(ts, d), np.stack(xs, d))
    exact(pdt.stack([t[:, ::2] for t in ts], 1), np.stack([x[:, ::2] for x in xs], 1))
    exact(pdt.stack([t[0, 0] for t in ts]), np.stack([x[0, 0] for x in xs]))
    ws = [pdt.tensor(x, device=dev, requires_grad=True) for x in xs[:3]]
    y = pdt.stack(ws * 2, 1)
    (y * pdt.arange(1.0, y.shape[1] + 1.0, device=dev).reshape(1, -1, 1)).sum().backward()
    for k, w in enumerate(ws):
        np.testing.assert_array_equal(host(w.grad), np.full((3, 4), 2 * k + 2 + len(ws)))
    with pytest.raises(RuntimeError, match=f"equal size.*at entry {n}"):
        pdt.stack(ts + [pdt.zeros(4, 3, device=dev)])
    with pytest.raises(IndexError, match="Dimension out of range"):
        pdt.stack(ts, 3)


def _layouts(x, dev):
    """x (3-d) as pydevtensor tensors of x's values in several layouts: contiguous,
    permuted (last stride 50*4), every other element of a wider one (last stride
    2), broadcast along the last dim (stride 0), one number broadcast."""
    big = np.repeat(x, 2, axis=-1)
    return {
        "contig": pdt.tensor(x, device=dev),
        "perm": pdt.tensor(np.ascontiguousarray(x.transpose(2, 0, 1)), device=dev).permute(1, 2, 0),
        "step2": pdt.tensor(big, device=dev)[..., ::2],
        "bcast": pdt.tensor(x[:, :, :1], device=dev).expand(x.shape),
        "number": pdt.tensor(x[0, 0, 0], device=dev).expand(x.shape),
    }


def test_where_ranks_a_0d_tensor_below_one_with_dimensions(dev):
    # where's dtype is the elementwise ops' (result_type): a 0-d tensor of another dtype
    # of the same category does not widen the result
    for dtype, zero in ((pdt.float16, pdt.tensor(0.0)), (pdt.int8, pdt.tensor(0)),
                        (pdt.float32, pdt.tensor(0.0, dtype=pdt.float64))):
        x = pdt.ones(3, dtype=dtype, device=dev)
        w = pdt.where(x > 0, x, zero.to(dev))
        assert w.dtype == dtype == (x + zero.to(dev)).dtype == pdt.result_type(x, zero)
        assert pdt.where(x > 0, zero.to(dev), x).dtype == dtype
    i = pdt.ones(3, dtype=pdt.int8, device=dev)  # a higher category still lifts it
    assert pdt.where(i > 0, i, pdt.tensor(0.5, device=dev)).dtype == pdt.float32


@pytest.mark.parametrize("dtype", ["bool", "float32", "float64"])
def test_where_by_rows_in_every_layout(dev, dtype):
    # operands that are not all contiguous go a row of the last dim at a time, with
    # constant steps when each last stride is 0 or 1 (eight kinds) and any steps
    # otherwise; rows split between threads mid-row (200 rows of 333 elements);
    # NumPy's bytes in every case, and masked_fill's
    shape = (4, 50, 333)
    conds = _layouts(data(shape, "bool", 11), dev)
    firsts = _layouts(data(shape, dtype, 12), dev)
    seconds = _layouts(data(shape, dtype, 13), dev)
    for cn, tc in conds.items():
        for an, ta in firsts.items():
            for bn, tb in seconds.items():
                c, a, b = host(tc), host(ta), host(tb)
                got = np.ascontiguousarray(host(pdt.where(tc, ta, tb)))
                want = np.ascontiguousarray(np.where(c, a, b))
                assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), \
                    (cn, an, bn)
            got = np.ascontiguousarray(host(ta.masked_fill(tc, 1)))
            want = np.ascontiguousarray(np.where(c, np.ones((), dtype), a))
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (cn, an)


def test_where_takes_a_uint8_condition_with_pytorchs_deprecation_warning(dev):
    # nonzero counts as True; int8 and float conditions are still refused, as PyTorch's
    c = np.array([[1, 0, 2], [0, 255, 0]], dtype=np.uint8)
    a, b = data((2, 3), "float32", 1), data((3,), "int64", 2)
    tc, ta, tb = (pdt.tensor(x, device=dev) for x in (c, a, b))
    with pytest.warns(UserWarning, match=r"^where received a uint8 condition tensor\. This "
                                         r"behavior is deprecated"):
        got = pdt.where(tc, ta, tb)
    assert got.dtype == pdt.float32
    exact(got, np.where(c != 0, a, b).astype("float32"))
    with pytest.warns(UserWarning, match="uint8 condition"):
        exact(ta.where(tc, 0.5), np.where(c != 0, a, np.float32(0.5)))
    for bad in ("int8", "float32"):
        with pytest.raises(TypeError, match="condition must be a bool tensor"):
            pdt.where(tc.to(getattr(pdt, bad)), ta, tb)


def test_cat_out_follows_can_cast_and_the_stacks_take_out(dev):
    # PyTorch's rule: out= may widen (float32 into float64) but a float result is not
    # truncated into an integer or bool out (it was: 1.7 became 1)
    a = pdt.tensor([1.7, 2.0], device=dev)
    for dtype in (pdt.int64, pdt.bool):
        out = pdt.zeros(2, dtype=dtype, device=dev)
        with pytest.raises(TypeError, match="can't be cast to the desired output type"):
            pdt.cat([a], out=out)
        np.testing.assert_array_equal(host(out), np.zeros(2))  # left as it was
    with pytest.raises(TypeError, match="can't be cast"):
        pdt.cat([pdt.tensor([1, 2], device=dev)], out=pdt.empty(2, dtype=pdt.bool, device=dev))
    with pytest.raises(TypeError, match="can't be cast"):
        pdt.stack([a], out=pdt.empty(1, 2, dtype=pdt.int64, device=dev))
    wide = pdt.empty(2, dtype=pdt.float64, device=dev)
    assert pdt.cat([a], out=wide) is wide
    np.testing.assert_allclose(host(wide), np.array([1.7, 2.0], np.float32))
    exact(pdt.cat([pdt.tensor([True, False], device=dev)],
                  out=pdt.empty(2, dtype=pdt.int8, device=dev)), np.array([1, 0], np.int8))
    x, y = np.array([1.5, 2.5], np.float32), np.array([3.5, 4.5], np.float32)
    tx, ty = pdt.tensor(x, device=dev), pdt.tensor(y, device=dev)
    for op, npop in ((pdt.hstack, np.hstack), (pdt.vstack, np.vstack),
                     (pdt.dstack, np.dstack), (pdt.column_stack, np.column_stack),
                     (pdt.row_stack, np.vstack)):
        want = npop([x, y])
        out = pdt.empty(want.shape, dtype=pdt.float64, device=dev)
        assert op([tx, ty], out=out) is out
        exact(out, want.astype(np.float64))
        with pytest.raises(TypeError, match="can't be cast"):
            op([tx, ty], out=pdt.empty(want.shape, dtype=pdt.int32, device=dev))


def test_cat_of_only_1d_empty_tensors_takes_any_dim(dev):
    # PyTorch skips 1-d empty inputs before it looks at dim: all skipped, any dim goes
    e = pdt.zeros(0, device=dev)
    for d in (0, 1, -1, 5, -100):
        r = pdt.cat([e, pdt.zeros(0, dtype=pdt.int64, device=dev)], d)
        assert r.shape == (0,) and r.dtype == pdt.float32
    assert pdt.cat([e, pdt.zeros(2, 0, device=dev)], 1).shape == (2, 0)
    with pytest.raises(TypeError, match="dim"):
        pdt.cat([e, e], 1.5)
    w = pdt.zeros(0, device=dev, requires_grad=True)
    r = pdt.cat([w, w], 1)
    r.sum().backward()
    assert w.grad.shape == (0,)


def test_meshgrid_without_indexing_is_ij_and_warns_once_a_process(dev, monkeypatch):
    """The default is 'ij', with PyTorch's warning that indexing will be required, given
    once a process as PyTorch's (it came at every call)."""
    from pydevtensor import _ops_join
    monkeypatch.setattr(_ops_join, "_meshgrid_warned", set())  # as in a fresh process
    x, y = pdt.arange(2, device=dev), pdt.arange(3, device=dev)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        grids = [pdt.meshgrid(x, y) for _ in range(3)]
    assert len(seen) == 1 and seen[0].category is UserWarning
    assert "required to pass the indexing argument" in str(seen[0].message)
    for a, b in grids:
        exact(a, [[0, 0, 0], [1, 1, 1]])
        exact(b, [[0, 1, 2], [0, 1, 2]])
