"""PyTorch's legacy constructors (tester2's misc_missing_tensor_api): Tensor(data),
Tensor(*sizes) (zero-filled here), Tensor(), FloatTensor & co. (construction and
isinstance), autograd.Variable; Tensor(t) still shares storage, subclasses and pickling
still work.  Checked against torch when importable."""
import pickle

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip

TYPED = ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor"]


@pytest.mark.parametrize("args", [([1, 2],), ([[1.5, 2], [3, 4]],), (2, 3), (), (0,),
                                  (np.arange(3),), ((2, 3),)])
def test_tensor_legacy_like_torch(args):
    torch = torch_or_skip()
    ours = pdt.Tensor(*args)
    theirs = torch.Tensor(*args)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1] == "float32"
    if args and not all(isinstance(a, int) for a in args):  # sizes: uninitialized in torch
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    else:
        assert not ours.numpy().any()  # zero-filled here


def test_tensor_legacy_size_and_errors():
    assert pdt.Tensor(pdt.Size([2, 1])).shape == (2, 1)
    for args in [(2, "x"), ([1], [2])]:
        with pytest.raises(TypeError, match="invalid combination of arguments"):
            pdt.Tensor(*args)
    with pytest.raises(TypeError, match=r"data must be a sequence \(got float\)"):
        pdt.Tensor(2.5)
    with pytest.raises(ValueError, match="sizes must be >= 0"):
        pdt.Tensor(2, -1)


def test_tensor_legacy_default_dtype_and_device(device):
    prev = pdt.get_default_dtype()
    pdt.set_default_dtype(pdt.float64)
    try:
        assert pdt.Tensor([1]).dtype == pdt.float64
    finally:
        pdt.set_default_dtype(prev)
    x = pdt.Tensor([1, 2], device=device)
    assert x.device == device and x.tolist() == [1.0, 2.0]


def test_tensor_of_tensor_still_shares(device):
    x = pdt.tensor([1.0, 2.0], device=device)
    y = pdt.Tensor(x)
    assert y.data_ptr() == x.data_ptr()
    assert pdt.Tensor(data=x).data_ptr() == x.data_ptr()

    class Sub(pdt.Tensor):
        pass

    assert type(Sub(x)) is Sub and type(Sub([1.0])) is Sub
    p = pdt.nn.Parameter(pdt.ones(2, device=device))
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is type(p) and q.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("name", TYPED)
def test_typed_tensors_like_torch(name):
    torch = torch_or_skip()
    for args in [([1, 0, 2.7],), (2, 3), ()]:
        ours, theirs = getattr(pdt, name)(*args), getattr(torch, name)(*args)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        assert tuple(ours.shape) == tuple(theirs.shape)
        if args and isinstance(args[0], list):
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    for other in TYPED:
        x = getattr(pdt, other)([1])
        assert isinstance(x, getattr(pdt, name)) == isinstance(getattr(torch, other)([1]),
                                                               getattr(torch, name))
    assert not isinstance(np.ones(1), getattr(pdt, name))
    x = getattr(pdt, name)([1])
    assert getattr(pdt, name)(x) is x
    wrong = pdt.ones(1, dtype=pdt.float64 if name != "DoubleTensor" else pdt.float32)
    with pytest.raises(TypeError, match=f"{name}"):
        getattr(pdt, name)(wrong)


def test_typed_isinstance_is_cpu_only(device):
    x = pdt.ones(2, device=device)
    assert isinstance(x, pdt.FloatTensor) == (device.type == "cpu")


def test_variable_like_torch(device):
    torch = torch_or_skip()
    x = pdt.ones(2, device=device, requires_grad=True)
    v = pdt.autograd.Variable(x)
    tx = torch.ones(2, requires_grad=True)
    tv = torch.autograd.Variable(tx)
    assert (v is x) == (tv is tx) and v.requires_grad == tv.requires_grad
    assert v.data_ptr() == x.data_ptr()
    w = pdt.autograd.Variable(pdt.ones(2, device=device), requires_grad=True)
    assert w.requires_grad and w.is_leaf and w.grad_fn is None
    (w * 3).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]
    assert isinstance(w, pdt.autograd.Variable) and not isinstance(1, pdt.autograd.Variable)
    with pytest.raises(TypeError, match="Variable data has to be a tensor"):
        pdt.autograd.Variable([1.0])


@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_tensor_new_takes_self_dtype_and_device(device, dtype):
    """Tensor.new: the legacy constructor's forms with self's dtype and device, as
    PyTorch's (a tuple or list is data; ints and a Size are sizes)."""
    x = pdt.tensor([1, 2], dtype=getattr(pdt, dtype), device=device)
    for y, shape, values in [(x.new(), (0,), []), (x.new(2, 3), (2, 3), None),
                             (x.new(pdt.Size([3])), (3,), None),
                             (x.new(size=(1, 2)), (1, 2), None),
                             (x.new((2, 3)), (2,), [2, 3]), (x.new([1.0, 5.0]), (2,), [1, 5]),
                             (x.new(np.array([[4, 5]])), (1, 2), [[4, 5]]),
                             (x.new([]), (0,), [])]:
        assert (y.dtype, y.device, tuple(y.shape)) == (x.dtype, x.device, shape)
        assert values is None or y.tolist() == values
        assert not y.requires_grad
    assert x.new([1.7, -1.7]).tolist() == ([1.7, -1.7] if dtype == "float64" else [1, -1])
    t = pdt.tensor([7, 8], dtype=x.dtype, device=device)
    assert x.new(t).data_ptr() == t.data_ptr()
    assert x.new(2, device=device).device == x.device
    with pytest.raises(TypeError, match=r"new\(t\): t is a pydevtensor.int64 tensor"):
        pdt.zeros(2, dtype=pdt.float32, device=device).new(pdt.tensor([1], device=device))
    with pytest.raises(TypeError, match=r"data must be a sequence \(got float\)"):
        x.new(2.5)
    with pytest.raises(TypeError, match=r"invalid combination of arguments \(int, list\)"):
        x.new(2, [3])
    with pytest.raises(ValueError, match="sizes must be >= 0"):
        x.new(-1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'dtype'"):
        x.new(2, dtype=pdt.float32)


def test_tensor_new_takes_an_int_as_a_cuda_index(device):
    """x.new(2, device=i), as x.new_zeros(2, device=i) and PyTorch's: an int is cuda:i (it
    was refused as an ambiguous device(int)); on a CPU tensor a CUDA device is refused as
    PyTorch refuses it, RuntimeError naming both device types."""
    x = pdt.tensor([1.0, 2.0], device=device)
    if x.device.type == "cpu":
        with pytest.raises(RuntimeError, match="expects device type: cpu but device type: "
                                               "cuda was passed"):
            x.new(2, device=0)
        return
    index = x.device.index
    for y in (x.new(2, device=index), x.new([3.0, 4.0], device=index),
              x.new_tensor([3.0, 4.0], device=index), x.new_empty(2, device=index),
              x.new_zeros(2, device=index), x.new_ones(2, device=index)):
        assert y.device == x.device and y.dtype == x.dtype and tuple(y.shape) == (2,)


def test_legacy_constructors_refuse_a_tensor_with_device(device):
    """Tensor(t, device=d), FloatTensor(t, device=d), x.new(t, device=d) and
    cuda.FloatTensor(t, device=d): PyTorch 2.15 refuses the form (RuntimeError) whatever
    d is; ours gave t back unchanged, on its own device and not on d."""
    t = pdt.tensor([1.0, 2.0], device=device)
    where = str(t.device)
    calls = {"Tensor": lambda: pdt.Tensor(t, device=where),
             "FloatTensor": lambda: pdt.FloatTensor(t, device=where),
             r"tensor\.new": lambda: t.new(t, device=where),
             r"cuda\.FloatTensor": lambda: pdt.cuda.FloatTensor(t, device="cuda:0")}
    for form, call in calls.items():
        asked = "cuda:0" if form.startswith("cuda") else where
        with pytest.raises(RuntimeError, match=rf"form {form}\(t, device=device\) is not "
                                               rf"supported \(t, of shape \(2,\), is on "
                                               rf"{where}; device={asked} was passed\)"):
            call()
    assert pdt.FloatTensor(t) is t and t.new(t) is t  # without device=: t itself


def test_apply_and_map_in_place():
    """Tensor.apply_ and map_ call a Python function on each element (and tensor's,
    broadcast), in place, returning self, as PyTorch's; an integer tensor truncates."""
    x = pdt.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=pdt.float64)
    view = x.t()
    assert view.apply_(lambda v: v * v + 0.5) is view
    np.testing.assert_array_equal(x.numpy(), [[1.5, 4.5], [9.5, 16.5]])
    assert x.map_(pdt.tensor([10.0, 20.0], dtype=pdt.float64), lambda a, b: a - b) is x
    np.testing.assert_array_equal(x.numpy(), [[-8.5, -15.5], [-0.5, -3.5]])
    n = pdt.tensor([1, 2, 3])
    n.apply_(lambda v: v * 1.7)
    assert n.tolist() == [1, 3, 5] and n.dtype == pdt.int64
    b = pdt.tensor([True, False])
    assert b.apply_(lambda v: not v).tolist() == [False, True]
    seen = []
    pdt.tensor([1, 2]).apply_(lambda v: seen.append(type(v)) or v)
    assert seen == [int, int]
    h = pdt.tensor([1.0, 2.0], dtype=pdt.float16).apply_(lambda v: v / 3)
    np.testing.assert_array_equal(h.numpy(), np.array([1, 2], np.float16) / np.float16(3))
    z = pdt.zeros(2).apply_(lambda v: pdt.tensor(3.0))
    assert z.tolist() == [3.0, 3.0]


def test_apply_and_map_refusals(device):
    x = pdt.tensor([1.0, 2.0], device=device)
    if x.device.type != "cpu":
        with pytest.raises(TypeError, match=rf"apply_\(\) is only implemented on CPU tensors, "
                                            rf"got a tensor of shape \(2,\) on {x.device}"):
            x.apply_(abs)
        with pytest.raises(TypeError, match="map_.*only implemented on CPU"):
            x.cpu().map_(x, max)
        return
    for y in [pdt.ones(2, requires_grad=True), pdt.ones(2, requires_grad=True) * 2]:
        with pytest.raises(RuntimeError, match=r"Can't call apply_\(\) on Variable that "
                                               r"requires grad"):
            y.apply_(abs)
        with pytest.raises(RuntimeError, match=r"Can't call map_\(\)"):
            x.map_(y, max)
    with pytest.raises(TypeError, match="must return a number, got NoneType"):
        x.apply_(lambda v: None)
    with pytest.raises(TypeError, match="callable must be callable, got int"):
        x.apply_(3)
    with pytest.raises(TypeError, match=r"expected a tensor of pydevtensor.float32 .*int64"):
        x.map_(pdt.tensor([1, 2]), max)
    with pytest.raises(TypeError, match="must be a Tensor, not int"):
        x.map_(3, max)
    with pytest.raises(RuntimeError, match=r"shape \(2, 1\) does not broadcast .* \(2,\)"):
        x.map_(pdt.ones(2, 1), max)
    assert x.tolist() == [1.0, 2.0]
