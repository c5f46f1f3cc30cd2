"""The in-place view methods (pydevtensor/_ops_view_in_place.py): t_, transpose_,
swapdims_, swapaxes_, unsqueeze_, squeeze_ and as_strided_ give the same object the
shape and strides of the out-of-place view, over the same memory, on every device (the
values against NumPy's transposes and reshapes, exactly); they bump the version, so a
graph that saved the tensor refuses its backward; and a tensor in the graph is refused
(Note [in-place views and autograd])."""
import numpy as np
import pytest

import pydevtensor as pdt


def _x(device, shape=(2, 3, 4)):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    return a, pdt.tensor(a, device=device)


CASES = [
    ("t_", (), lambda a: a.T, (3, 4)),
    ("transpose_", (0, 2), lambda a: a.transpose(2, 1, 0), (2, 3, 4)),
    ("swapdims_", (-1, 1), lambda a: a.swapaxes(-1, 1), (2, 3, 4)),
    ("swapaxes_", (0, 1), lambda a: a.swapaxes(0, 1), (2, 3, 4)),
    ("unsqueeze_", (1,), lambda a: a[:, None], (2, 3, 4)),
    ("unsqueeze_", (-1,), lambda a: a[..., None], (2, 3)),
    ("squeeze_", (), lambda a: a.squeeze(), (2, 1, 3, 1)),
    ("squeeze_", (1,), lambda a: a.squeeze(1), (2, 1, 3, 1)),
    ("as_strided_", ((2, 2), (1, 3), 1), lambda a: np.lib.stride_tricks.as_strided(
        a.ravel()[1:], (2, 2), (8, 24)), (2, 3)),
]


@pytest.mark.parametrize("name,args,ref,shape", CASES)
def test_in_place_views_are_the_views_on_the_same_object(device, name, args, ref, shape):
    a, x = _x(device, shape)
    same, version = id(x), x._version
    out = getattr(x, name)(*args)
    assert out is x and id(x) == same
    want = ref(a)
    assert tuple(x.shape) == want.shape
    np.testing.assert_array_equal(x.cpu().numpy(), want)
    assert x._version == version + 1
    x.fill_(-1.0)  # the same memory: the write is seen through a view taken before
    assert x.cpu().numpy().min() == -1.0


def test_the_memory_stays_shared_with_a_numpy_array():
    a = np.arange(6.0)
    x = pdt.from_numpy(a)
    x.unsqueeze_(0).t_()
    assert tuple(x.shape) == (6, 1) and x.stride() == (1, 6)
    x[2, 0] = 100.0
    assert a[2] == 100.0


def test_a_graph_that_saved_the_tensor_refuses_its_backward(device):
    c = pdt.arange(3.0, device=device)
    w = pdt.ones(3, device=device, requires_grad=True)
    out = (w * c).sum()
    c.unsqueeze_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


def test_leaves_are_refused_and_views_in_the_graph_too(device):
    w = pdt.ones(2, 3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w.t_()
    assert tuple(w.shape) == (2, 3) and w._version == 0
    v = (w * 2.0)[0]
    with pytest.raises(RuntimeError, match=r"unsqueeze_\(\): a view in the autograd graph "
                                           r"\(grad_fn SelectBackward0\) cannot change its "
                                           r"shape in place"):
        v.unsqueeze_(0)
    assert tuple(v.shape) == (3,)
    with pdt.no_grad():  # a leaf under no_grad, as PyTorch's in-place rule
        w.unsqueeze_(0)
    assert tuple(w.shape) == (1, 2, 3)


@pytest.mark.parametrize("name,args,shape", [("unsqueeze_", (0,), (1, 2, 3)),
                                             ("t_", (), (3, 2)),
                                             ("transpose_", (1, 0), (3, 2))])
def test_a_tensor_in_the_graph_takes_the_view_node(device, name, args, shape):
    """As PyTorch's: b = a * 2; b.t_() makes b's grad_fn the view's node after Mul's,
    and gradients flow through the new shape (also to a view of b taken after)."""
    a_np = np.arange(6.0).reshape(2, 3)
    a = pdt.tensor(a_np, device=device, requires_grad=True)
    b = a * 2.0
    assert getattr(b, name)(*args) is b and tuple(b.shape) == shape
    assert type(b.grad_fn).__name__.startswith(name[:-1].capitalize()[:5])
    w_np = np.arange(1.0, 7.0).reshape(shape)
    row = b[0]
    (b * b * pdt.tensor(w_np, device=device)).sum().backward(retain_graph=True)
    view_back = {"unsqueeze_": lambda g: g[0], "t_": lambda g: g.T,
                 "transpose_": lambda g: g.T}[name]
    np.testing.assert_allclose(a.grad.cpu().numpy(), 8 * a_np * view_back(w_np), rtol=1e-12)
    a.grad = None
    row.sum().backward()
    want = np.zeros((2, 3))
    {"unsqueeze_": lambda: want.__setitem__((slice(None), slice(None)), 2.0),
     "t_": lambda: want.__setitem__((slice(None), 0), 2.0),
     "transpose_": lambda: want.__setitem__((slice(None), 0), 2.0)}[name]()
    np.testing.assert_allclose(a.grad.cpu().numpy(), want, rtol=1e-15)


def test_bad_arguments_leave_the_tensor_as_it_was(device):
    _, x = _x(device)
    with pytest.raises(IndexError, match="dimension out of range"):
        x.transpose_(0, 5)
    with pytest.raises(RuntimeError):
        x.t_()  # 3-d
    with pytest.raises(RuntimeError):
        x.as_strided_((100,), (1,))  # past the storage
    assert tuple(x.shape) == (2, 3, 4) and x._version == 0
