"""swapaxes, swapdims, movedim, moveaxis, narrow, unflatten, ravel, reversed(x),
broadcast_to, broadcast_tensors, broadcast_shapes, atleast_1d/2d/3d and tile
(pydevtensor/_ops_shape.py): values, shapes and dtypes against NumPy in float64
(exact: they only move elements) and against PyTorch when it imports; the views
share storage (a write through one shows in the input) and the copies do not;
gradients by test_gradcheck's helper; on every device."""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from test_gradcheck import gradcheck

A = np.arange(24, dtype=np.float64).reshape(2, 3, 4)


def _t(a, device):
    return pdt.from_numpy(np.array(a)).to(device)  # a copy: tests write into it


def _np(t):
    return t.detach().cpu().numpy()


# (name, pydevtensor call, NumPy reference, is a view)
CASES = [
    ("swapaxes", lambda x: pdt.swapaxes(x, 0, 2), lambda a: np.swapaxes(a, 0, 2), True),
    ("swapdims", lambda x: x.swapdims(-1, 1), lambda a: np.swapaxes(a, -1, 1), True),
    ("movedim-int", lambda x: pdt.movedim(x, 0, -1), lambda a: np.moveaxis(a, 0, -1), True),
    ("movedim-seq", lambda x: x.movedim((0, 1), (2, 0)),
     lambda a: np.moveaxis(a, (0, 1), (2, 0)), True),
    ("moveaxis", lambda x: pdt.moveaxis(x, [2], [0]), lambda a: np.moveaxis(a, 2, 0), True),
    ("narrow", lambda x: pdt.narrow(x, 2, 1, 2), lambda a: a[:, :, 1:3], True),
    ("narrow-negative", lambda x: x.narrow(1, -2, 2), lambda a: a[:, 1:3], True),
    ("narrow-tensor-start", lambda x: x.narrow(2, pdt.tensor(3), 1), lambda a: a[:, :, 3:4],
     True),
    ("unflatten", lambda x: pdt.unflatten(x, 2, (2, -1)), lambda a: a.reshape(2, 3, 2, 2),
     True),
    ("unflatten-method", lambda x: x.unflatten(-2, [3, 1]), lambda a: a.reshape(2, 3, 1, 4),
     True),
    ("ravel", lambda x: pdt.ravel(x), np.ravel, True),
    ("broadcast_to", lambda x: pdt.broadcast_to(x[:, :1], (5, 2, 3, 4)),
     lambda a: np.broadcast_to(a[:, :1], (5, 2, 3, 4)), True),
    ("broadcast_to-minus1", lambda x: x[:1].broadcast_to((3, -1, 4)),
     lambda a: np.broadcast_to(a[:1], (3, 3, 4)), True),
    ("tile", lambda x: pdt.tile(x, (2,)), lambda a: np.tile(a, (2,)), False),
    ("tile-more", lambda x: x.tile((2, 1, 1, 2)), lambda a: np.tile(a, (2, 1, 1, 2)), False),
    ("reversed", lambda x: reversed(x), lambda a: a[::-1], False),
]


@pytest.mark.parametrize("name,fn,ref,view", CASES, ids=[c[0] for c in CASES])
def test_values_and_sharing(device, name, fn, ref, view):
    x = _t(A, device)
    out = fn(x)
    expect = ref(A)
    assert out.device == x.device and out.dtype == x.dtype
    assert tuple(out.shape) == expect.shape
    np.testing.assert_array_equal(_np(out), expect)
    before = _np(x).copy()
    if "broadcast" in name:  # stride-0 views: a write into x shows in every copy of it
        x.fill_(7.0)
        assert (_np(out) == 7.0).all()
    elif view:  # a write through the view shows in x, where it does through NumPy's view
        out.fill_(-1.0)
        a = A.copy()
        ref(a)[...] = -1.0
        np.testing.assert_array_equal(_np(x), a)
    else:
        out.fill_(-1.0)
        np.testing.assert_array_equal(_np(x), before)


@pytest.mark.parametrize("name,fn,ref,view", CASES, ids=[c[0] for c in CASES])
def test_against_torch(name, fn, ref, view):
    torch = torch_or_skip()
    x = pdt.from_numpy(A.copy())
    tx = torch.from_numpy(A.copy())
    src = name.replace("-", "_")
    calls = {
        "swapaxes": lambda m, x: m.swapaxes(x, 0, 2),
        "swapdims": lambda m, x: x.swapdims(-1, 1),
        "movedim_int": lambda m, x: m.movedim(x, 0, -1),
        "movedim_seq": lambda m, x: x.movedim((0, 1), (2, 0)),
        "moveaxis": lambda m, x: m.moveaxis(x, [2], [0]),
        "narrow": lambda m, x: m.narrow(x, 2, 1, 2),
        "narrow_negative": lambda m, x: x.narrow(1, -2, 2),
        "narrow_tensor_start": lambda m, x: x.narrow(2, m.tensor(3), 1),
        "unflatten": lambda m, x: m.unflatten(x, 2, (2, -1)),
        "unflatten_method": lambda m, x: x.unflatten(-2, [3, 1]),
        "ravel": lambda m, x: m.ravel(x),
        "broadcast_to": lambda m, x: m.broadcast_to(x[:, :1], (5, 2, 3, 4)),
        "broadcast_to_minus1": lambda m, x: x[:1].broadcast_to((3, -1, 4)),
        "tile": lambda m, x: m.tile(x, (2,)),
        "tile_more": lambda m, x: x.tile((2, 1, 1, 2)),
        "reversed": lambda m, x: reversed(x),
    }
    got, want = calls[src](pdt, x), calls[src](torch, tx)
    assert tuple(got.shape) == tuple(want.shape)
    assert tuple(got.stride()) == tuple(want.stride()) or not view
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("name,fn,ref,view", CASES, ids=[c[0] for c in CASES])
def test_gradients(device, name, fn, ref, view):
    gradcheck(fn, [A[:, :, :].copy()], device)


def test_reversed_0d_is_itself(device):
    x = pdt.tensor(3.0, device=device)
    assert reversed(x) is x


def test_ravel_copies_when_it_must(device):
    x = _t(A[0], device).t()
    r = x.ravel()
    np.testing.assert_array_equal(_np(r), A[0].T.ravel())
    r.fill_(0.0)
    np.testing.assert_array_equal(_np(x), A[0].T)


def test_broadcast_shapes_and_tensors(device):
    assert pdt.broadcast_shapes((2, 1), (3,), 1) == pdt.Size([2, 3])
    assert pdt.broadcast_shapes() == pdt.Size([])
    assert pdt.broadcast_shapes((0, 1), (4,)) == np.broadcast_shapes((0, 1), (4,))
    a = _t(np.arange(2.0).reshape(2, 1), device)
    b = _t(np.arange(3.0), device)
    x, y = pdt.broadcast_tensors(a, b)
    ra, rb = np.broadcast_arrays(np.arange(2.0).reshape(2, 1), np.arange(3.0))
    np.testing.assert_array_equal(_np(x), ra)
    np.testing.assert_array_equal(_np(y), rb)
    assert x.stride() == (1, 0) and y.stride() == (0, 1)
    gradcheck(lambda p, q: pdt.broadcast_tensors(p, q)[0] * pdt.broadcast_tensors(p, q)[1],
              [np.arange(2.0).reshape(2, 1), np.arange(3.0)], device)


def test_broadcast_against_torch():
    torch = torch_or_skip()
    for shapes in [((2, 1), (3,), 1), ((5, 1, 4), (3, 1)), ()]:
        assert tuple(pdt.broadcast_shapes(*shapes)) == tuple(torch.broadcast_shapes(*shapes))
    with pytest.raises(RuntimeError):
        torch.broadcast_shapes((2, 3), (3, 2))
    with pytest.raises(RuntimeError, match=r"\(3, 2\) at position 1"):
        pdt.broadcast_shapes((2, 3), (3, 2))


@pytest.mark.parametrize("fn,np_fn", [(pdt.atleast_1d, np.atleast_1d),
                                      (pdt.atleast_2d, np.atleast_2d),
                                      (pdt.atleast_3d, np.atleast_3d)])
def test_atleast(device, fn, np_fn):
    torch = None
    try:
        import torch
    except Exception:  # noqa: BLE001 - the NumPy reference alone then
        pass
    for a in [np.array(5.0), np.arange(3.0), np.arange(6.0).reshape(2, 3), A]:
        x = _t(a, device)
        out = fn(x)
        np.testing.assert_array_equal(_np(out), np_fn(a))
        out.view(-1)[0] = 100.0  # a view
        assert _np(x).reshape(-1)[0] == 100.0
        if torch is not None:
            assert tuple(getattr(torch, fn.__name__)(torch.from_numpy(a)).shape) == \
                tuple(out.shape)
    pair = fn(_t(np.array(1.0), device), _t(np.arange(2.0), device))
    listed = fn([_t(np.array(1.0), device)])
    assert isinstance(pair, tuple) and len(pair) == 2 and isinstance(listed, tuple)
    gradcheck(lambda x: fn(x) * 2.0, [np.arange(3.0)], device)


def test_movedim_noncontiguous_and_grad(device):
    gradcheck(lambda x: pdt.movedim(x, 1, 0) * 1.0, [np.arange(12.0).reshape(3, 4)], device,
              noncontig=True)
    gradcheck(lambda x: x.narrow(1, 1, 2) * 1.0, [np.arange(12.0).reshape(3, 4)], device,
              noncontig=True)


def test_errors(device):
    x = _t(A, device)
    with pytest.raises(RuntimeError, match=r"repeated dim in `source`"):
        x.movedim((0, 0), (1, 2))
    with pytest.raises(RuntimeError, match=r"same number of dims"):
        x.movedim((0, 1), (1,))
    with pytest.raises(IndexError, match=r"Dimension out of range"):
        x.movedim(3, 0)
    with pytest.raises(IndexError, match=rf"start out of range .* \(2, 3, 4\) on {device}"):
        x.narrow(2, 5, 0)
    with pytest.raises(RuntimeError, match=r"start \(2\) \+ length \(3\) exceeds dimension"):
        x.narrow(2, 2, 3)
    with pytest.raises(RuntimeError, match=r"length must be non-negative"):
        x.narrow(2, 0, -1)
    with pytest.raises(RuntimeError, match=r"0-dim"):
        pdt.tensor(1.0, device=device).narrow(0, 0, 1)
    with pytest.raises(RuntimeError, match=r"don't multiply up to the size of dim 2 \(4\)"):
        x.unflatten(2, (3, -1))
    with pytest.raises(RuntimeError, match=r"sizes must be non-empty"):
        x.unflatten(0, ())
    with pytest.raises(RuntimeError, match=r"expanded size of the tensor \(2\) must match"):
        x.broadcast_to((2, 2, 4))
    with pytest.raises(RuntimeError,
                       match=r"size of tensor a \(4\) must match .* b \(2\) at non-singleton "
                             r"dimension 2"):
        pdt.broadcast_tensors(x, pdt.zeros(2, device=device))
    with pytest.raises(RuntimeError, match=r"negative dimension"):
        x.tile((-1,))
    with pytest.raises(TypeError, match=r"expected Tensors, got int"):
        pdt.atleast_2d(1)


def test_tile_call_forms(device):
    x = _t(np.arange(2.0), device)
    for out in (x.tile(2, 2), x.tile((2, 2)), pdt.tile(x, dims=[2, 2])):
        np.testing.assert_array_equal(_np(out), np.tile(np.arange(2.0), (2, 2)))
    with pytest.raises(TypeError, match=r"multiple values for argument 'dims'"):
        pdt.tile(x, 2, dims=(2,))


@pytest.mark.parametrize("dims", [(2,), (1, 1, 1), (2, 1, 3), (0, 2), (3, 2, 1, 2), (1,)])
def test_tile_and_repeat_are_tensors_of_their_own(device, dims):
    """tile and repeat copy, and their result is no view of anything (PyTorch's
    `_is_view()` is False): it used to be a view of the internal temporary, `_is_view()`
    True with a `_base` that a write to x does not reach. Values against np.tile; the
    gradient is PyTorch's rule, the sum over the repeats: each element of x appears
    prod(padded dims) times, so with weights w the gradient is w summed over them."""
    a = A[:, 1:, ::2]                                   # (2, 2, 2)
    reps = (1,) * (a.ndim - len(dims)) + tuple(dims)    # dims padded in front, as tile does
    for x in (_t(a, device), _t(A, device)[:, 1:, ::2]):  # contiguous, and strided
        for y in (x.tile(dims), x.repeat(reps)):
            assert not y._is_view() and y._base is None
            np.testing.assert_array_equal(_np(y), np.tile(a, dims))
            if y.numel():
                y.view(-1)[0] = -7.0
                np.testing.assert_array_equal(_np(x), a)   # y has memory of its own
    x = _t(a, device).requires_grad_(True)
    y = x.tile(dims)
    assert not y._is_view() and y._base is None
    assert "View" not in type(y.grad_fn).__name__
    w = np.arange(y.numel(), dtype=np.float64).reshape(y.shape)
    y.backward(_t(w, device))
    # y viewed as (r0, s0, r1, s1, ...) over x's shape padded to len(reps) dims holds x at
    # every r: the gradient is w summed over the r axes
    sizes = (1,) * (len(reps) - a.ndim) + a.shape
    split = w.reshape(tuple(v for r, s in zip(reps, sizes) for v in (r, s)))
    expect = split.sum(axis=tuple(range(0, 2 * len(reps), 2))).reshape(a.shape)
    np.testing.assert_array_equal(_np(x.grad), expect)


def test_tile_and_broadcast_to_take_sizes_as_expand_does(device):
    """The methods take sizes as separate ints or one tuple/list (the parsing expand and
    reshape share), a NumPy integer as one size and refuse an array, as torch does."""
    x = pdt.tensor([1.0, 2.0], device=device)
    for got in (x.tile(2, 1), x.tile((2, 1)), x.tile([2, 1]), x.tile(dims=(2, 1))):
        assert tuple(got.shape) == (2, 2)
    for got in (x.broadcast_to(3, 2), x.broadcast_to((3, 2)), x.broadcast_to(pdt.Size([3, 2]))):
        assert tuple(got.shape) == (3, 2)
        np.testing.assert_array_equal(got.cpu().numpy(), [[1.0, 2.0]] * 3)
    assert tuple(x.tile(np.int64(2)).shape) == (4,)
    assert tuple(x.broadcast_to(np.int64(2)).shape) == (2,)
    with pytest.raises(TypeError, match=r"tile\(\): argument 'dims' must be int, got ndarray"):
        x.tile(np.array([2, 1]))
    with pytest.raises(TypeError, match=r"broadcast_to\(\): argument 'size' must be int"):
        x.broadcast_to(np.array([3, 2]))


def test_flipud_and_fliplr_need_1_and_2_dims(device):
    s = pdt.tensor(2.0, device=device)
    for f in (pdt.flipud, pdt.Tensor.flipud):
        with pytest.raises(RuntimeError, match=r"flipud\(\): Input must be >= 1-d \(got a "
                                               r"0-d tensor of shape \[\]\)"):
            f(s)
    for t in (s, pdt.ones(2, device=device)):
        with pytest.raises(RuntimeError, match=r"fliplr\(\): Input must be >= 2-d"):
            t.fliplr()
    np.testing.assert_array_equal(pdt.flipud(pdt.tensor([1, 2, 3], device=device)).cpu().numpy(),
                                  [3, 2, 1])
    np.testing.assert_array_equal(pdt.fliplr(pdt.tensor([[1, 2]], device=device)).cpu().numpy(),
                                  [[2, 1]])
