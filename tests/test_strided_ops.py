"""as_strided, Tensor.unfold (views, with gradients: overlapping windows add up),
trace, fill_diagonal_, put/put_, kron, tensordot, mm/matmul(out=), is_inference (the
function and the method), and the error fixes (stack of floats, normal with a negative
std tensor); against NumPy in float64 (exact: these are copies and small sums) and torch
when importable, on every device."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C
from conftest import assert_close, torch_or_skip


def test_as_strided_view(device):
    x = pdt.arange(6.0, device=device)
    v = x.as_strided((3, 2), (1, 2), 0)
    ref = np.lib.stride_tricks.as_strided(np.arange(6.0), (3, 2), (8, 16))
    np.testing.assert_array_equal(v.cpu().numpy(), ref)
    x[0] = 100
    assert v[0, 0].item() == 100  # shares storage
    assert pdt.as_strided(x, (2,), (2,), 1).tolist() == [1.0, 3.0]
    with pytest.raises(RuntimeError, match=r"out of bounds for a storage of 6 elements.*"
                                           rf"on {device}"):
        x.as_strided((3, 3), (2, 2))
    with pytest.raises(ValueError, match="mismatch in length of strides and shape"):
        x.as_strided((3,), (1, 1))
    with pytest.raises(ValueError, match="must be >= 0"):
        x.as_strided((3,), (-1,))


def test_as_strided_backward_like_numpy_and_torch(device):
    w = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    x = pdt.arange(5.0, device=device, requires_grad=True)
    (x.as_strided((3, 2), (1, 1), 1) * pdt.tensor(w, device=device)).sum().backward()
    ref = np.zeros(5)
    np.add.at(ref, np.array([[1, 2], [2, 3], [3, 4]]).reshape(-1), w.reshape(-1))
    np.testing.assert_array_equal(x.grad.cpu().numpy(), ref)
    torch = _torch_or_none()
    if torch is not None:
        tx = torch.arange(5.0, dtype=torch.float64, requires_grad=True)
        (tx.as_strided((3, 2), (1, 1), 1) * torch.tensor(w)).sum().backward()
        assert_close(x.grad, tx.grad.numpy())


def _unfold_ref(a, dim, size, step):
    """NumPy's windows of a along dim (size long, step apart), as a new last axis."""
    w = np.lib.stride_tricks.sliding_window_view(a, size, axis=dim)
    index = [slice(None)] * a.ndim
    index[dim] = slice(None, None, step)
    return w[tuple(index)]


def _torch_or_none():
    try:
        return torch_or_skip()
    except pytest.skip.Exception:
        return None


@pytest.mark.parametrize("shape,dim,size,step", [((7,), 0, 3, 2), ((3, 5), 1, 2, 1),
                                                 ((4, 3), 0, 4, 3), ((2, 3), -1, 0, 1)])
def test_unfold_like_numpy_and_torch(device, shape, dim, size, step):
    a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    x = pdt.tensor(a, device=device, requires_grad=True)
    u = x.unfold(dim, size, step)
    ref = _unfold_ref(a, dim % a.ndim, size, step)
    assert tuple(u.shape) == ref.shape
    np.testing.assert_array_equal(u.detach().cpu().numpy(), ref)
    assert u.data_ptr() == x.data_ptr() or u.numel() == 0
    gw = np.arange(ref.size, dtype=np.float64).reshape(ref.shape)
    (u * pdt.tensor(gw, device=device)).sum().backward()
    # the reference gradient: each window element's weight added at its source position
    grad = np.zeros(a.size)
    pos = _unfold_ref(np.arange(a.size).reshape(shape), dim % a.ndim, size, step)
    np.add.at(grad, pos.reshape(-1), gw.reshape(-1))
    np.testing.assert_array_equal(x.grad.cpu().numpy(), grad.reshape(shape))
    torch = _torch_or_none()
    if torch is not None:
        tx = torch.tensor(a, requires_grad=True)
        tu = tx.unfold(dim, size, step)
        (tu * torch.tensor(gw)).sum().backward()
        np.testing.assert_array_equal(x.grad.cpu().numpy(), tx.grad.numpy())


def test_unfold_errors(device):
    x = pdt.arange(4, device=device)
    with pytest.raises(RuntimeError, match="maximum size for tensor at dimension 0 is 4"):
        x.unfold(0, 5, 1)
    with pytest.raises(RuntimeError, match="step is 0"):
        x.unfold(0, 2, 0)
    with pytest.raises(IndexError):
        x.unfold(1, 2, 1)


@pytest.mark.parametrize("dim,size,step", [(0, 2, 1), (1, 2, 2), (1, 3, 1), (0, 4, 3)])
def test_unfold_of_negative_strides_is_a_view(dim, size, step):
    """A reversed NumPy array shares its memory with negative strides (from_numpy):
    unfold is built from the tensor's own layout, so its windows are right, a view
    (a write through them reaches the array), and the gradient lands where each
    element came from.  A step past the length gives one window."""
    base = np.arange(40.0).reshape(5, 8)
    a = base[::-1, ::-2]
    x = pdt.from_numpy(a)
    assert min(x.stride()) < 0
    u = x.unfold(dim, size, step)
    ref = _unfold_ref(a, dim, size, step)
    assert tuple(u.shape) == ref.shape
    np.testing.assert_array_equal(u.numpy(), ref)
    u[0, 0, 0] = -1.0
    assert a[0, 0] == -1.0 and base[4, 7] == -1.0
    xg = pdt.from_numpy(a.copy()).requires_grad_()
    gw = np.arange(ref.size, dtype=np.float64).reshape(ref.shape)
    (xg.unfold(dim, size, step) * pdt.tensor(gw)).sum().backward()
    grad = np.zeros(a.size)
    pos = _unfold_ref(np.arange(a.size).reshape(a.shape), dim, size, step)
    np.add.at(grad, pos.reshape(-1), gw.reshape(-1))
    np.testing.assert_array_equal(xg.grad.numpy(), grad.reshape(a.shape))
    one = x.unfold(dim, size, 2**62)
    assert one.shape[dim] == 1
    np.testing.assert_array_equal(one.numpy(), ref[(slice(None),) * dim + (slice(0, 1),)])
    z = pdt.from_numpy(np.array(3.5)).unfold(0, 1, 1)
    assert tuple(z.shape) == (1,) and z.item() == 3.5


def test_unfold_view_checks_its_own_arguments():
    """The core's window view (_C._unfold, which Tensor.unfold calls after its own
    checks) refuses a dim out of range before reading that dim, and a bad size or step."""
    x = pdt.arange(4.0)
    for dim in (-1, 1, 1 << 30):
        with pytest.raises(IndexError, match=f"unfold\\(\\): dim {dim} out of range for 1 dims"):
            _C._unfold(x, dim, 1, 1)
    for size, step in ((5, 1), (-1, 1), (2, 0)):
        with pytest.raises(ValueError, match=f"unfold\\(\\): dim 0, size {size}, step {step}"):
            _C._unfold(x, 0, size, step)


def test_trace(device):
    a = np.arange(12.0).reshape(3, 4)
    x = pdt.tensor(a, device=device, requires_grad=True)
    t = pdt.trace(x)
    assert t.item() == np.trace(a)
    t.backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.eye(3, 4))
    assert pdt.arange(4, device=device).reshape(2, 2).trace().dtype == pdt.int64
    with pytest.raises(RuntimeError, match="expected a matrix"):
        pdt.ones(3, device=device).trace()


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((7, 3), True), ((7, 3), False),
                                        ((2, 5), True), ((3, 3, 3), False)])
def test_fill_diagonal_like_numpy_and_torch(device, shape, wrap):
    x = pdt.zeros(shape, device=device)
    assert x.fill_diagonal_(5, wrap=wrap) is x
    ref = np.zeros(shape)
    np.fill_diagonal(ref, 5, wrap=wrap)
    np.testing.assert_array_equal(x.cpu().numpy(), ref)
    torch = _torch_or_none()
    if torch is not None:
        np.testing.assert_array_equal(ref, torch.zeros(shape).fill_diagonal_(5, wrap=wrap).numpy())
    with pytest.raises(RuntimeError, match="equal"):
        pdt.zeros(2, 3, 2, device=device).fill_diagonal_(1)
    with pytest.raises(RuntimeError, match="larger than 1"):
        pdt.zeros(3, device=device).fill_diagonal_(1)


def test_put_like_numpy(device):
    x = pdt.zeros(2, 3, device=device)
    idx = pdt.tensor([0, 5, -1, 2], device=device)
    src = pdt.tensor([1.0, 2.0, 3.0, 4.0], device=device)
    ref = np.zeros(6)
    np.add.at(ref, [0, 5, 5, 2], [1.0, 2.0, 3.0, 4.0])
    out = x.put(idx, src, accumulate=True)
    np.testing.assert_array_equal(out.cpu().numpy().ravel(), ref)
    assert not x.cpu().numpy().any()  # put is out of place
    assert x.put_(pdt.tensor([1], device=device), pdt.tensor([9.0], device=device)) is x
    assert x.cpu().numpy().ravel().tolist() == [0, 9, 0, 0, 0, 0]
    with pytest.raises(IndexError, match="index 6 is out of bounds for a tensor of 6"):
        x.put_(pdt.tensor([6], device=device), pdt.tensor([1.0], device=device))
    assert x.cpu().numpy().ravel().tolist() == [0, 9, 0, 0, 0, 0]  # unchanged
    with pytest.raises(TypeError, match="int64"):
        x.put_(pdt.tensor([1.0], device=device), pdt.tensor([1.0], device=device))
    with pytest.raises(RuntimeError, match="must have the same dtype"):  # as PyTorch
        x.put_(pdt.tensor([1], device=device), pdt.tensor([1], device=device))
    g = pdt.ones(3, device=device, requires_grad=True)
    pdt.put(g, pdt.tensor([0], device=device), pdt.tensor([5.0], device=device)).sum().backward()
    assert g.grad.tolist() == [0.0, 1.0, 1.0]


@pytest.mark.parametrize("sa,sb", [((2, 2), (2, 3)), ((3,), (2,)), ((2, 1, 2), (3, 2))])
def test_kron_like_numpy(device, sa, sb):
    a = np.arange(np.prod(sa), dtype=np.float64).reshape(sa) + 1
    b = np.arange(np.prod(sb), dtype=np.float64).reshape(sb) - 2
    got = pdt.kron(pdt.tensor(a, device=device), pdt.tensor(b, device=device))
    np.testing.assert_array_equal(got.cpu().numpy(), np.kron(a, b))


@pytest.mark.parametrize("dims", [0, 1, 2, ([1, 0], [0, 1]), ([2], [1])])
def test_tensordot_like_numpy(device, dims):
    a = np.random.default_rng(0).standard_normal((3, 4, 2))
    b = np.random.default_rng(1).standard_normal((4, 3, 2)) if dims != 1 else \
        np.random.default_rng(1).standard_normal((2, 5))
    if dims == 2:
        b = np.random.default_rng(1).standard_normal((4, 2, 5))
    if dims == ([2], [1]):
        b = np.random.default_rng(1).standard_normal((5, 2))
    got = pdt.tensordot(pdt.tensor(a, device=device), pdt.tensor(b, device=device), dims=dims)
    assert_close(got, np.tensordot(a, b, axes=dims), "float64")
    with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
        pdt.tensordot(pdt.ones(2, 3, device=device), pdt.ones(2, 3, device=device), dims=1)


def test_tensordot_dims_as_a_tensor(device):
    # PyTorch's: a tensor of one element is the count, others the pair of lists
    a = np.random.default_rng(0).standard_normal((2, 3))
    b = np.random.default_rng(1).standard_normal((3, 4))
    ta, tb = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
    for dims, axes in ((pdt.tensor(1), 1), (pdt.tensor(0), 0), (pdt.tensor([1]), 1),
                       (pdt.tensor(1.0), 1), (pdt.tensor([[1], [0]]), ([1], [0]))):
        assert_close(pdt.tensordot(ta, tb, dims=dims), np.tensordot(a, b, axes=axes), "float64")
    with pytest.raises(TypeError, match="got a pydevtensor.float32 tensor holding 1.5"):
        pdt.tensordot(ta, tb, dims=pdt.tensor(1.5))
    with pytest.raises(RuntimeError, match="dims must be >= 0, got -1"):
        pdt.tensordot(ta, tb, dims=pdt.tensor(-1))


@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_tensordot_broadcasts_a_size_one_dim(device, dtype):
    # as PyTorch's: a contracted dim of size 1 against size n is NumPy's broadcast of it
    rng = np.random.default_rng(2)
    a = rng.integers(-5, 5, (2, 1, 4)).astype(dtype)
    b = rng.integers(-5, 5, (3, 4, 5)).astype(dtype)
    ta, tb = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
    want = np.tensordot(np.broadcast_to(a, (2, 3, 4)), b, axes=([1, 2], [0, 1]))
    got = pdt.tensordot(ta, tb, dims=([1, 2], [0, 1]))
    assert got.dtype == getattr(pdt, dtype)
    np.testing.assert_array_equal(got.cpu().numpy(), want)
    np.testing.assert_array_equal(pdt.tensordot(tb, ta, dims=([0, 1], [1, 2])).cpu().numpy(),
                                  want.T)


def test_mm_matmul_out(device):
    a = pdt.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    out = pdt.empty(2, 2, device=device)
    assert pdt.mm(a, a, out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), np.array([[7.0, 10.0], [15.0, 22.0]]))
    out2 = pdt.zeros(2, 2, device=device)
    assert pdt.matmul(a, a, out=out2) is out2 and out2[1, 1].item() == 22
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        pdt.mm(a, a, out=pdt.empty(2, 2, dtype=pdt.float64, device=device))
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        pdt.mm(a.requires_grad_(), a, out=out)


def test_small_fixes(device):
    assert pdt.ones(1, device=device).is_inference() is False
    with pdt.inference_mode():
        made = pdt.ones(1, device=device)
    assert pdt.is_inference(made) is False and pdt.is_inference(made * 2) is False
    with pytest.raises(TypeError, match="is_inference.*must be a Tensor, got list"):
        pdt.is_inference([1.0])
    with pytest.raises(TypeError, match="expected a sequence of Tensors, got float"):
        pdt.stack([1.0, 2.0])
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        pdt.normal(pdt.tensor([0.0], device=device), pdt.tensor([-1.0], device=device))
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        pdt.normal(pdt.tensor([0.0], device=device), pdt.tensor([float("nan")], device=device))
    assert pdt.normal(pdt.tensor([0.0], device=device), pdt.tensor([0.0], device=device)).item() == 0


@pytest.mark.parametrize("sizes, strides", [((2**32, 2**32), (0, 0)), ((2**40, 2**40), (0, 0)),
                                            ((2**31, 2**31, 4), (0, 0, 1))])
def test_as_strided_refuses_an_element_count_past_2_62(device, sizes, strides):
    """as_strided and set_ with sizes whose product wraps past 2^64 (to exactly 0 for
    (2^32, 2^32)) skipped the storage's bounds check, so a view of any offset on a
    16-byte storage read and wrote anywhere in memory (an ASan review found it); the
    count is checked as every other shape's is.  An empty view of a huge size is fine."""
    x = pdt.zeros(4, device=device)
    with pytest.raises(pdt.InvalidArgumentError, match=r"as_strided\(\): sizes .* would hold "
                                                       r"more than 2\^62 bytes"):
        pdt.as_strided(x, sizes, strides, 10**9)
    with pytest.raises(pdt.InvalidArgumentError, match="more than 2\\^62 bytes"):
        with pdt.no_grad():
            pdt.zeros(1, device=device).set_(x.untyped_storage(), 2**40, sizes, strides)
    assert pdt.as_strided(x, (0, 2**40), (0, 0), 0).numel() == 0
    assert pdt.as_strided(x, (2, 2), (1, 1), 1).cpu().tolist() == [[0.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize("index, strides", [
    ((slice(None, None, 2),), (24, 4, 1)), ((slice(None), slice(None, None, 3)), (12, 12, 1)),
    ((slice(None, None, 2), slice(None, None, 2)), (24, 8, 1)),
    ((slice(5, 3, 2),), (24, 4, 1)), ((slice(None, 1),), (12, 4, 1)),
    ((Ellipsis, slice(1, None, 4)), (12, 4, 4)), ((slice(None, None, 2**62),), (12, 4, 1))])
def test_a_sliced_dim_of_one_element_has_stride_times_step(device, index, strides):
    """A slice with a step scales the dim's stride by it even where one element (or
    none) is left, as PyTorch's ((2, 3, 4)[::2] has strides (24, 4, 1); it kept 12); a
    product past int64 (only possible there) keeps the stride. Values as NumPy's."""
    x = pdt.arange(24.0, device=device).reshape(2, 3, 4)
    v = x[index]
    assert v.stride() == strides
    np.testing.assert_array_equal(v.cpu().numpy(), np.arange(24.0).reshape(2, 3, 4)[index])
    np.testing.assert_array_equal(v.contiguous().cpu().numpy(), v.cpu().numpy())
