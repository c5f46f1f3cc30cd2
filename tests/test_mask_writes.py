"""x[mask] = number (Note [mask writes in C] in csrc/python/tensor_index.c): written by
the subscript slot for a bool mask over x's leading dims and a number of a kind x's dtype
holds, through the hook otherwise.  On every device, against NumPy's own assignment
(exact), with the version counter, views, autograd and errors."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES

A = np.arange(-12, 12, dtype=np.float64).reshape(2, 3, 4)


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def masks():
    return [A > 3, (A[:, :, 0] % 2 == 0), np.array([False, True]), A < -100, A > -100]


@pytest.mark.parametrize("k", range(5))
@pytest.mark.parametrize("dtype,value", [("float32", 2.5), ("float32", 7), ("float32", True),
                                         ("float64", -0.0), ("int64", 5), ("int8", -3),
                                         ("bool", False), ("float16", 0.125),
                                         ("int32", 2.75), ("bfloat16", 3)])
def test_matches_numpy(dev, k, dtype, value):
    mask = masks()[k]
    ref = A.astype(dtype) if dtype != "bfloat16" else A.astype(np.float32)
    x = pdt.tensor(ref, device=dev).to(getattr(pdt, dtype))
    before = x._version
    x[pdt.tensor(mask, device=dev)] = value
    ref[mask] = value if not (dtype.startswith("int") and isinstance(value, float)) \
        else int(value)  # a float into an integer tensor: truncated, as before
    np.testing.assert_array_equal(x.to(pdt.float64).cpu().numpy(), ref.astype(np.float64))
    assert x._version > before


def test_views_write_through_and_other_layouts(dev):
    base = pdt.tensor(A, device=dev)
    row = base[1]                                   # a contiguous view
    row[row > 5] = 100.0
    t = base.transpose(1, 2)                        # not contiguous: the hook's path
    t[t < -10] = -50.0
    ref = A.copy()
    ref[1][ref[1] > 5] = 100.0
    rt = ref.transpose(0, 2, 1)
    rt[rt < -10] = -50.0
    np.testing.assert_array_equal(base.cpu().numpy(), ref)


def test_autograd_still_records_or_refuses(dev):
    w = pdt.tensor(A, device=dev, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        w[w > 0] = 0.0
    y = w * 2
    y[y > 0] = 0.0                                  # recorded: the gradient stops there
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.cpu().numpy(), np.where(A * 2 > 0, 0.0, 2.0))
    s = y.detach()
    v = w[0]                                        # a view whose base requires grad
    with pytest.raises(RuntimeError):
        v[v > 0] = 1.0
    assert s.shape == y.shape


def test_errors_name_the_shapes(dev):
    x = pdt.tensor(A, device=dev)
    with pytest.raises(IndexError, match=r"mask \[3\].*indexed tensor \[2\]"):
        x[pdt.tensor([True, False, True], device=dev)] = 1.0
    with pytest.raises(TypeError):
        x[x > 0] = "one"
    np.testing.assert_array_equal(x.cpu().numpy(), A)


def test_a_mask_that_is_part_of_x(dev):
    """A mask read from x's own storage takes the hook's path, which reads it whole first,
    as NumPy does (a review: the in-place write read mask bytes it had already written)."""
    rows = [[True, True, True], [True, False, True], [False, True, True]]
    x = pdt.tensor(rows, device=dev)
    x[x[:, 0]] = False
    ref = np.array(rows)
    ref[ref[:, 0].copy()] = False
    np.testing.assert_array_equal(x.cpu().numpy(), ref)
    b = pdt.tensor([True] * 8, device=dev)
    b[1:][b[:-1]] = False
    assert b.cpu().tolist() == [True] + [False] * 7
    y = pdt.tensor([True, False, True], device=dev)
    y[y] = False                                    # the mask is x itself: fine in place
    assert y.cpu().tolist() == [False] * 3


def test_vector_and_coordinate_writes(dev):
    """x[v] = number or tensor and x[rows, cols] = number in the subscript slot (CPU), the
    hook elsewhere: NumPy's result, values broadcast, indices from the end."""
    ref = A.copy()
    x = pdt.tensor(ref, device=dev)
    T = lambda a: pdt.tensor(np.array(a), device=dev)  # noqa: E731
    x[T([1, -2])] = 4.0
    ref[[1, -2]] = 4.0
    x[T([0])] = T(np.full((3, 4), -1.0))
    ref[[0]] = -1.0
    x[T([1, 0]), T([2, -1])] = 7.0
    ref[[1, 0], [2, -1]] = 7.0
    x[T([0, 1]), 1] = T(np.array([0.5, 0.25, 0.125, 1.0]))
    ref[[0, 1], 1] = [0.5, 0.25, 0.125, 1.0]
    np.testing.assert_array_equal(x.cpu().numpy(), ref)
    with pytest.raises(IndexError, match="index 2 is out of bounds"):
        x[T([0, 2])] = 1.0
    with pytest.raises((RuntimeError, ValueError), match="broadcast"):
        x[T([0, 1])] = T(np.ones((3, 3, 4)))
    np.testing.assert_array_equal(x.cpu().numpy(), ref)


def test_a_value_read_from_x_is_read_whole_first(dev):
    """x[perm] = x swaps rows as NumPy does (two reviews: rows written in turn read rows
    already written; PyTorch refuses the overlap).  The C path (contiguous CPU x) and the
    hook's path (other devices, broadcast keys, autograd) copy such a value first."""
    x = pdt.arange(12.0, device=dev).reshape(4, 3)
    x[pdt.tensor([1, 0, 3, 2], device=dev)] = x
    ref = np.arange(12.0).reshape(4, 3)[[1, 0, 3, 2]]
    ref[[1, 0, 3, 2]] = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(x.cpu().numpy(), ref)
    b = pdt.arange(16.0, device=dev)
    y = b[1:13].view(4, 3)
    y[pdt.tensor([0, 1, 2, 3], device=dev)] = b[0:12].view(4, 3)
    np.testing.assert_array_equal(y.cpu().numpy(), np.arange(12.0).reshape(4, 3))
    z = pdt.arange(6.0, device=dev).reshape(2, 3)
    z[pdt.tensor([1, 0], device=dev), pdt.tensor([2, 0], device=dev)] = z[0, :2]
    assert z.cpu().tolist() == [[1.0, 1.0, 2.0], [3.0, 4.0, 0.0]]


def test_a_value_read_from_x_through_the_hook(dev):
    """The same through the hook's path: a broadcast key, a tensor under no_grad that
    requires grad, a recorded write."""
    T = lambda a: pdt.tensor(a, device=dev)  # noqa: E731
    ref = np.arange(12.0).reshape(4, 3)
    want = ref.copy()
    want[np.array([[1], [0]]), np.array([0, 1, 2])] = ref[0:2]
    x = T(ref)
    x[T([[1], [0]]), T([0, 1, 2])] = x[0:2]
    np.testing.assert_array_equal(x.cpu().numpy(), want)
    w = T(ref).requires_grad_()
    with pdt.no_grad():
        w[T([1, 0, 3, 2])] = w
    np.testing.assert_array_equal(w.detach().cpu().numpy(), ref[[1, 0, 3, 2]])
    y = T(ref).requires_grad_() * 1
    y[T([1, 0, 3, 2])] = y
    np.testing.assert_array_equal(y.detach().cpu().numpy(), ref[[1, 0, 3, 2]])


# ---- masked_fill_ in place (f_masked_fill_ in csrc/python/tensor_setitem.c) and the CPU's
# rows filled in place (Note [mask rows filled in place] in csrc/cpu/cpu_where.c)

B = np.arange(-30, 30, dtype=np.float64).reshape(3, 4, 5)


@pytest.mark.parametrize("mshape", [(3, 4, 5), (3, 4, 1), (3, 1, 1), (4, 1), (1, 5), (5,), (),
                                    (1, 4, 5), (3, 1, 5)])
@pytest.mark.parametrize("dtype,value", [("float32", -2.5), ("int64", 7), ("int8", -3),
                                         ("float16", 0.5), ("bool", True), ("float64", 1e300)])
def test_masked_fill_in_place_matches_numpy(dev, mshape, dtype, value):
    rng = np.random.default_rng(len(mshape) * 7 + sum(mshape))
    mask = rng.random(mshape) > 0.4
    ref = B.astype(dtype)
    x = pdt.tensor(ref.astype(np.float64), device=dev).to(getattr(pdt, dtype))
    before = x._version
    assert x.masked_fill_(pdt.tensor(mask, device=dev), value) is x
    np.copyto(ref, np.asarray(value, dtype=dtype), where=np.broadcast_to(mask, B.shape))
    np.testing.assert_array_equal(x.to(pdt.float64).cpu().numpy(), ref.astype(np.float64))
    assert x._version > before


def test_masked_fill_in_place_many_rows_and_views(dev):
    # rows of two over more rows than one piece of work (the rows are split over threads)
    n = 70_001
    a = np.arange(2 * n, dtype=np.float64).reshape(n, 2)
    mask = (np.arange(n) % 3 == 1).reshape(n, 1)
    x = pdt.tensor(a, device=dev)
    x.masked_fill_(pdt.tensor(mask, device=dev), -1.0)
    ref = a.copy()
    ref[mask[:, 0]] = -1.0
    np.testing.assert_array_equal(x.cpu().numpy(), ref)
    # a transposed x, a mask that is x's own view, a 0-d tensor value: the Python path
    xt = pdt.tensor(B, device=dev).permute(2, 1, 0)
    xt.masked_fill_(pdt.tensor(B.T[:, :, :1] > 0, device=dev), pdt.tensor(9.0, device=dev))
    ref = B.T.copy()
    ref[np.broadcast_to(B.T[:, :, :1] > 0, ref.shape)] = 9.0
    np.testing.assert_array_equal(xt.cpu().numpy(), ref)
    m = pdt.tensor([[True, False], [False, True], [True, True]], device=dev)
    m.masked_fill_(m, False)
    assert not m.any().item()
    m = pdt.tensor([[True, False], [False, True]], device=dev)
    m.masked_fill_(m[0], False)  # a mask read from x's own storage: as NumPy, read first
    np.testing.assert_array_equal(m.cpu().numpy(), [[False, False], [False, True]])


def test_a_mask_sharing_memory_through_another_storage():
    """Two tensors over one NumPy array have two storage objects: the mask is told apart
    from x by the memory it spans (a review), so it is read whole before x is written."""
    arr = np.ones((4, 3), bool)
    x = pdt.from_numpy(arr)
    x.masked_fill_(pdt.from_numpy(arr[:, :1]), False)  # column 0 of x itself
    assert not arr.any()
    arr = np.ones((4, 3), bool)
    x = pdt.from_numpy(arr)
    x[pdt.from_numpy(arr[:, 0])] = False  # x[mask] = number, the mask x's column 0
    assert not arr.any()


def test_masked_fill_in_place_errors_and_grad(dev):
    x = pdt.tensor(B, device=dev)
    with pytest.raises(RuntimeError, match=r"the mask of shape \(2,\) does not broadcast with "
                                           r"the input's shape \(3, 4, 5\)"):
        x.masked_fill_(pdt.tensor([True, False], device=dev), 1.0)
    with pytest.raises(TypeError):
        x.masked_fill_(pdt.ones(5, device=dev), 1.0)
    with pytest.raises(ValueError, match="cannot be converted to float16 without overflow"):
        x.half().masked_fill_(pdt.tensor(True, device=dev), 1e5)
    np.testing.assert_array_equal(x.cpu().numpy(), B)
    a = pdt.tensor(B, device=dev).requires_grad_()
    y = a * 1
    y.masked_fill_(pdt.tensor(B[:, :, 0:1] > 0, device=dev), 0.0)  # recorded
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.cpu().numpy(),
                                  np.where(np.broadcast_to(B[:, :, 0:1] > 0, B.shape), 0, 1))


def test_an_index_in_x_own_memory_is_read_whole_first(dev):
    """x[x] = w: index_put's scatters read the index where they use it (Note [the index read
    where it is used]), except an index in x's own memory, copied first (a review: written
    positions were read back as indices)."""
    for vals, w in (([1, 0, 2, 3], [3, 3, 3, 3]), ([1, 0, 3, 2], [5, 6, 7, 8])):
        ref = np.array(vals)
        ref[ref.copy()] = w
        x = pdt.tensor(vals, device=dev)
        x[x] = pdt.tensor(w, device=dev)
        np.testing.assert_array_equal(x.cpu().numpy(), ref)
        x = pdt.tensor(vals, device=dev)
        x[x] = 3
        ref = np.array(vals)
        ref[ref.copy()] = 3
        np.testing.assert_array_equal(x.cpu().numpy(), ref)
    x = pdt.tensor([[9, 9], [1, 0], [9, 9]], device=dev)
    x[x.view(-1)[2:4]] = pdt.tensor([[2, 2]], device=dev)  # the rows' path
    np.testing.assert_array_equal(x.cpu().numpy(), [[2, 2], [2, 2], [9, 9]])
