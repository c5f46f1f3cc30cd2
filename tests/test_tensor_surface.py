"""The Tensor method surface as PyTorch's: in-place ops never reshape their destination,
arguments by PyTorch's keywords (also under autograd), and the methods PyTorch has for
what a dense real tensor already is (as_subclass, to_dense, is_shared, is_mps, ...).
Values against NumPy in float64."""
import copy

import numpy as np
import pytest

import pydevtensor as pdt

IN_PLACE = ["add_", "sub_", "mul_", "div_", "pow_", "atan2_", "hypot_", "fmod_", "copysign_",
            "maximum", "__iadd__", "__imul__", "lt_", "eq_", "nextafter_", "copy_", "lerp_",
            "clamp_min_"]


def _in_place(op, x, y):
    if op == "maximum":
        return pdt.maximum(x, y, out=x)
    if op == "lerp_":
        return x.lerp_(y, 0.5)
    return getattr(x, op)(y)


@pytest.mark.parametrize("op", IN_PLACE)
@pytest.mark.parametrize("shapes", [((0,), (2, 0)), ((1, 0), (2, 0)), ((), (1,)),
                                    ((3,), (1, 3)), ((1,), (2,))])
def test_in_place_result_must_fit_destination(device, op, shapes):
    # PyTorch's "output with shape [0] doesn't match the broadcast shape [2, 0]": an
    # empty destination was resized to the broadcast shape, and a destination with
    # fewer dims took a result with leading 1s
    xs, ys = shapes
    x, y = pdt.ones(xs, device=device), pdt.full(ys, 2.0, device=device)
    with pytest.raises(RuntimeError):
        _in_place(op, x, y)
    assert tuple(x.shape) == xs
    np.testing.assert_array_equal(x.cpu().numpy(), np.ones(xs, dtype=np.float32))


def test_in_place_broadcasting_the_other_operand_still_works(device):
    a = np.arange(6.0).reshape(2, 3)
    for src, want in ((np.array([1.0, 2.0, 3.0]), a + [1, 2, 3]), (np.array(5.0), a + 5),
                      (np.array([[1.0], [2.0]]), a + [[1], [2]])):
        x = pdt.tensor(a, device=device)
        x.add_(pdt.tensor(src, device=device))
        np.testing.assert_array_equal(x.cpu().numpy(), want)
        z = pdt.tensor(a, device=device)
        z.copy_(pdt.tensor(src, device=device))
        np.testing.assert_array_equal(z.cpu().numpy(), np.broadcast_to(src, a.shape))
    e = pdt.zeros(0, device=device)
    pdt.add(pdt.zeros(2, 0, device=device), 1.0, out=e)  # an out that is no operand: resized
    assert tuple(e.shape) == (2, 0)


def test_in_place_result_dtype_must_cast_to_self(device):
    # a uint8 result went into a bool self (True + 1 * 2 -> True) where PyTorch refuses
    x = pdt.tensor([True, False], device=device)
    y = pdt.tensor([1, 2], dtype=pdt.uint8, device=device)
    with pytest.raises(RuntimeError, match="addcmul_.*uint8 can't be cast.*bool"):
        x.addcmul_(y, y)
    assert x.tolist() == [True, False]
    i = pdt.ones(2, dtype=pdt.int32, device=device)
    i.addcmul_(pdt.full((2,), 3, device=device), pdt.full((2,), 2, device=device), value=2)
    assert i.tolist() == [13, 13] and i.dtype == pdt.int32



def test_keywords_of_products_and_repeat_under_autograd():
    # PyTorch's names mm(mat2=), bmm(mat2=), dot(tensor=), repeat(repeats=): the
    # recorder's rules failed on them ("_Product.save() missing ... 'other'")
    a = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -0.75]])
    x = pdt.tensor(a, requires_grad=True)
    y = x.t().mm(mat2=x)
    y.sum().backward()
    ones = np.ones((3, 3))
    np.testing.assert_allclose(x.grad.numpy(), a @ (ones + ones.T), rtol=1e-12)
    x.grad = None
    x[None].bmm(mat2=x.t()[None]).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((2, 2)) @ a + np.ones((2, 2)).T @ a,
                               rtol=1e-12)
    v, w = pdt.tensor(a[0], requires_grad=True), pdt.tensor(a[1], requires_grad=True)
    v.dot(tensor=w).backward()
    np.testing.assert_allclose(v.grad.numpy(), a[1])
    x.grad = None
    r = x.repeat(repeats=(1, 2))
    np.testing.assert_array_equal(r.detach().numpy(), np.tile(a, (1, 2)))
    r.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 2.0))


def test_new_methods_take_size_layout_and_pin_memory_by_keyword(device):
    x = pdt.ones(2, dtype=pdt.float64, device=device)
    for make, value in (("new_zeros", 0.0), ("new_ones", 1.0)):
        t = getattr(x, make)(size=(2, 3), layout=pdt.strided, pin_memory=False)
        assert t.shape == (2, 3) and t.dtype == pdt.float64 and t.device == x.device
        np.testing.assert_array_equal(t.cpu().numpy(), np.full((2, 3), value))
    assert x.new_empty(size=(0,)).shape == (0,)
    f = x.new_full(size=(2,), fill_value=3.5, requires_grad=True)
    np.testing.assert_array_equal(f.detach().cpu().numpy(), [3.5, 3.5])
    assert f.requires_grad and f.is_leaf
    assert x.new_full((2,), fill_value=1).shape == (2,)
    t = x.new_tensor([1, 2], layout=pdt.strided, pin_memory=False)
    np.testing.assert_array_equal(t.cpu().numpy(), [1.0, 2.0])
    with pytest.raises(ValueError, match="new_zeros.*strided"):
        x.new_zeros(2, layout="sparse")
    with pytest.raises(TypeError, match="new_ones.*'shape'"):
        x.new_ones(shape=(2,))


NEW_SIZES = [((), {"size": (2, 3)}), ((), {"size": [2, 3]}), ((2, 3), {}), (((2, 3),), {}),
             (([2, 3],), {}), ((), {"size": pdt.Size([2, 3])})]


@pytest.mark.parametrize("make", ["new_zeros", "new_ones", "new_full", "new_empty"])
@pytest.mark.parametrize("args, kwargs", NEW_SIZES)
def test_new_methods_take_sizes_as_the_factories(device, make, args, kwargs):
    # one rule for size= and positional sizes (_tensor_resize._size_keyword), as resize_
    x = pdt.ones(1, dtype=pdt.float64, device=device)
    fill = {"fill_value": 2.5} if make == "new_full" else {}
    if fill and args == (2, 3):
        pytest.skip("new_full(size, fill_value): the size is one argument, as PyTorch's")
    t = getattr(x, make)(*args, **kwargs, **fill)
    assert t.shape == (2, 3) and t.dtype == pdt.float64 and t.device == x.device
    want = {"new_zeros": 0.0, "new_ones": 1.0, "new_full": 2.5}.get(make)
    if want is not None:
        np.testing.assert_array_equal(t.cpu().numpy(), np.full((2, 3), want))


@pytest.mark.parametrize("make", ["new_zeros", "new_ones", "new_full", "new_empty"])
@pytest.mark.parametrize("args", [(2,), ((2,),), (2, 3)])
def test_new_methods_refuse_size_twice(device, make, args):
    x = pdt.ones(1, device=device)
    fill = {"fill_value": 1.0} if make == "new_full" else {}
    with pytest.raises(TypeError, match=rf"^{make}\(\) got multiple values for argument "
                       r"'size'$"):
        getattr(x, make)(*args, size=(3,), **fill)


@pytest.mark.parametrize("make", ["new_zeros", "new_ones", "new_empty"])
def test_new_methods_flags_as_the_factories(device, make):
    # pin_memory and requires_grad go to the factory; a non-bool one names new_<make>
    x = pdt.ones(1, device=device)
    t = getattr(x, make)(2, requires_grad=True, pin_memory=None)
    assert t.requires_grad and t.is_leaf and t.grad_fn is None and not t.is_pinned()
    assert not getattr(x, make)(2, requires_grad=None).requires_grad
    for name in ("requires_grad", "pin_memory"):
        with pytest.raises(TypeError, match=rf"^{make}\(\): argument '{name}' must be bool, "
                           r"not int$"):
            getattr(x, make)(2, **{name: 1})
    with pytest.raises(RuntimeError, match="floating point"):
        getattr(x.long(), make)(2, requires_grad=True)
    if pdt.cuda.is_available():
        assert getattr(x, make)(2, device="cpu", pin_memory=True).is_pinned()


def test_cpu_resize_and_sum_to_size_keywords():
    x = pdt.ones(2, 3, 4, 5)
    assert x.cpu(memory_format=pdt.preserve_format) is x
    c = x.cpu(memory_format=pdt.channels_last)
    assert c.stride() == (60, 1, 15, 3)
    np.testing.assert_array_equal(c.numpy(), x.numpy())
    with pytest.raises(TypeError, match="cpu.*'dtype'"):
        x.cpu(dtype=pdt.float64)
    with pytest.raises(TypeError, match="cpu.*positional"):
        x.cpu(pdt.channels_last)
    a = np.arange(6.0).reshape(2, 3)
    s = pdt.tensor(a).sum_to_size(size=(1, 3))
    np.testing.assert_array_equal(s.numpy(), a.sum(0, keepdims=True))
    with pytest.raises(TypeError, match="multiple values"):
        pdt.tensor(a).sum_to_size(1, 3, size=(1, 3))
    r = pdt.tensor(a).resize_(size=(3, 2))
    np.testing.assert_array_equal(r.numpy(), a.reshape(3, 2))


class _Tagged(pdt.Tensor):
    pass


def test_as_subclass_aliases_and_keeps_the_graph(device):
    x = pdt.tensor([1.0, 2.0], device=device, requires_grad=True)
    t = x.as_subclass(_Tagged)
    assert type(t) is _Tagged and t.data_ptr() == x.data_ptr()
    (t * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [3.0, 3.0])
    y = pdt.zeros(2, device=device)
    y.as_subclass(_Tagged).fill_(4.0)  # the same memory
    np.testing.assert_array_equal(y.cpu().numpy(), [4.0, 4.0])
    for cls in (int, "x", np.ndarray):
        with pytest.raises(TypeError, match="inherit from Tensor"):
            y.as_subclass(cls)


def test_what_a_dense_real_tensor_already_is(device):
    x = pdt.tensor([1.5, -2.0], device=device)
    assert x.to_dense() is x and x.to_dense(masked_grad=True) is x
    d = x.to_dense(pdt.float64)
    assert d.dtype == pdt.float64
    np.testing.assert_array_equal(d.cpu().numpy(), [1.5, -2.0])
    assert x.conj_physical() is x and x.conj_physical_() is x
    assert x.const_data_ptr() == x.data_ptr()
    assert complex(x[0]) == 1.5 + 0j and complex(pdt.tensor([[3]], device=device)) == 3 + 0j
    for bad in (x, pdt.zeros(0, device=device)):
        with pytest.raises(ValueError, match="only one element"):
            complex(bad)
    for name in ("is_sparse_csr", "is_mps", "is_xpu", "is_xla", "is_ipu", "is_vulkan",
                 "is_maia", "is_mtia"):
        assert getattr(x, name) is False
    assert x.is_distributed() is False
    assert x.is_shared() is (device.type == "cuda")
    assert copy.deepcopy(x).is_shared() is x.is_shared()


def test_copy_takes_a_number(device):
    x = pdt.zeros(2, 3, device=device)
    assert x.copy_(2.5) is x
    np.testing.assert_array_equal(x.cpu().numpy(), np.full((2, 3), 2.5))
    i = pdt.zeros(2, dtype=pdt.int32, device=device)
    assert i.copy_(7, True).tolist() == [7, 7] and i.dtype == pdt.int32


@pytest.mark.cuda
def test_cuda_takes_a_memory_format():
    x = pdt.arange(120.0).reshape(2, 3, 4, 5)
    c = x.cuda(memory_format=pdt.channels_last)
    assert c.device.type == "cuda" and c.stride() == (60, 1, 15, 3)
    np.testing.assert_array_equal(c.cpu().numpy(), x.numpy())
    assert x.cuda(memory_format=None).stride() == x.stride()
    with pytest.raises(RuntimeError, match="rank 4"):
        pdt.ones(2).cuda(memory_format=pdt.channels_last)


def test_square_in_place_of_bool_is_refused(device):
    # square of bool is int64 (as PyTorch's), which does not go back into a bool self;
    # square_ computed x * x (bool) and wrote it
    x = pdt.tensor([True, False], device=device)
    with pytest.raises(RuntimeError, match="square_.*int64 can't be cast.*bool"):
        x.square_()
    assert x.tolist() == [True, False]
    u = pdt.tensor([2, 3], dtype=pdt.uint8, device=device).square_()
    assert u.tolist() == [4, 9] and u.dtype == pdt.uint8
