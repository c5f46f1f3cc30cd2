"""Operators between tensors and NumPy arrays (Note [operators with NumPy arrays] in
pydevtensor/_interop.py): a tensor in either order with PyTorch's dtype, recorded by
autograd, in place for ``t += a``; with a GPU tensor, a refusal naming the devices and
no copy."""
import operator
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_DEVICES

OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
       "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
       "pow": operator.pow, "lt": operator.lt, "le": operator.le, "eq": operator.eq,
       "ne": operator.ne, "gt": operator.gt, "ge": operator.ge}


@pytest.mark.parametrize("adtype", ["float64", "float32", "int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("name", list(OPS))
def test_tensor_and_array_give_a_tensor_in_either_order(name, adtype):
    op = OPS[name]
    rng = np.random.default_rng(0)
    t0 = rng.uniform(1, 3, size=(2, 3)).astype(np.float32)
    a = (rng.uniform(1, 3, size=(3,)) > (2 if adtype == "bool" else 0)).astype(adtype) \
        if adtype == "bool" else rng.uniform(1, 3, size=(3,)).astype(adtype)
    t = pdt.tensor(t0)
    if name == "sub" and adtype == "bool":  # PyTorch's sub refuses a bool on either side
        for args in ((t, a), (a, t)):
            with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
                op(*args)
        return
    for got, want in ((op(t, a), op(t0.astype(np.float64), a)),
                      (op(a, t), op(a, t0.astype(np.float64)))):
        assert isinstance(got, pdt.Tensor), type(got)
        # PyTorch's promotion: a float64 array with a float32 tensor gives float64; an
        # integer or bool array gives the tensor's float32
        float_out = want.dtype.kind == "f"
        expect = pdt.promote_types(pdt.float32, pdt.as_tensor(a).dtype) if float_out \
            else pdt.bool
        if name == "pow" and adtype == "bool":
            continue  # bool ** float: NumPy and PyTorch disagree on the dtype; not this test's
        assert got.dtype == expect, (got.dtype, expect)
        tol = 1e-12 if got.dtype == pdt.float64 else 1e-6
        np.testing.assert_allclose(got.numpy().astype(np.float64), want, rtol=tol, atol=tol)


def test_matmul_with_an_array_and_autograd():
    a = np.arange(6.0).reshape(3, 2)
    t = pdt.ones(2, 3, dtype=pdt.float64, requires_grad=True)
    y = t @ a
    assert isinstance(y, pdt.Tensor) and y.tolist() == (np.ones((2, 3)) @ a).tolist()
    (y.sum() + (a.T * t).sum()).backward()  # both orders are recorded
    want = np.ones((2, 2)) @ a.T + a.T
    np.testing.assert_array_equal(t.grad.numpy(), want)
    assert isinstance(a @ pdt.ones(2, 3, dtype=pdt.float64), pdt.Tensor)
    mixed = pdt.ones(2, 2) @ np.ones((2, 2))  # promoted, as the other operators do
    assert mixed.dtype == pdt.float64 and mixed.tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_masks_and_integer_arrays():
    mask = pdt.tensor([True, False, True])
    for got, want in ((mask & np.array([True, True, False]), [True, False, False]),
                      (np.array([False, False, True]) | mask, [True, False, True]),
                      (mask ^ np.array([True, True, True]), [False, True, False])):
        assert isinstance(got, pdt.Tensor) and got.tolist() == want
    # integer tensors: the bitwise ops, the array made a CPU tensor (PyTorch's results)
    got = pdt.tensor([6, 5], dtype=pdt.int64) & np.array([3, 4])
    assert isinstance(got, pdt.Tensor) and got.tolist() == [2, 4]
    got = np.array([3, 4]) | pdt.tensor([6, 5], dtype=pdt.int64)
    assert isinstance(got, pdt.Tensor) and got.tolist() == [7, 5]
    with pytest.raises(TypeError, match="masks|bitwise"):  # floats have no bitwise ops
        pdt.tensor([6.0, 5.0]) & np.array([3, 4])


def test_in_place_with_an_array_writes_into_the_tensor():
    t = pdt.zeros(4)
    view, before = t[1:3], id(t)
    t += np.arange(4.0)
    assert id(t) == before and t.tolist() == [0, 1, 2, 3] and view.tolist() == [1, 2]
    w = pdt.nn.Parameter(pdt.ones(2))
    with pdt.no_grad():
        w -= np.array([0.25, 0.5])
    assert isinstance(w, pdt.nn.Parameter) and w.tolist() == [0.75, 0.5]
    i = pdt.tensor([1, 2], dtype=pdt.int32)
    i *= np.array([3, 4], dtype=np.uint8)
    assert i.dtype == pdt.int32 and i.tolist() == [3, 8]
    with pytest.raises(TypeError, match="int32"):  # float into int, as PyTorch refuses
        i += np.array([0.5, 0.5])
    assert i.tolist() == [3, 8]
    leaf = pdt.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        leaf += np.ones(2)
    # under autograd a float64 array into a float32 tensor is cast back, as without it
    # (a reviewer found it refused there), and the gradient flows through
    w = pdt.ones(3, requires_grad=True)
    y = w * 2
    y += np.full(3, 0.5)
    assert y.dtype == pdt.float32 and y.tolist() == [2.5, 2.5, 2.5]
    (y * y).sum().backward()
    assert w.grad.tolist() == [10.0, 10.0, 10.0]


def test_other_ufuncs_give_tensors_and_scalars_still_numbers():
    t = pdt.tensor([1.0, 2.0])
    assert isinstance(np.exp(t), pdt.Tensor)  # as PyTorch (Note [ufuncs give tensors])
    s = np.float64(2.0) * t
    assert isinstance(s, pdt.Tensor) and s.dtype == pdt.float32  # a scalar, not an array


def test_numpy_2_warns_of_no_old_hook():
    # NumPy 2 warns (DeprecationWarning) when it calls an __array_wrap__ that does not
    # take context and return_scalar; PyTorch's does not and warns on ``a * t``.  Ours
    # has none: __array_ufunc__ serves the operators and the ufuncs
    t, a = pdt.ones(2), np.ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert isinstance(a * t, pdt.Tensor) and isinstance(np.add(a, t), pdt.Tensor)
        assert isinstance(np.exp(t), pdt.Tensor) and np.sum(t) == 2
        assert isinstance(np.multiply(a, t, out=np.empty(2)), np.ndarray)
        assert isinstance(np.ma.masked_array(t) * a, np.ma.MaskedArray)


@pytest.mark.cuda
@pytest.mark.parametrize("device", CUDA_DEVICES or ["cuda:0"])
def test_a_gpu_tensor_and_an_array_are_refused_without_a_copy(device):
    if not CUDA_DEVICES:
        pytest.skip("no CUDA device")
    g = pdt.ones(3, device=device)
    pdt.reset_transfer_stats()
    for f in (lambda: g + np.ones(3), lambda: np.ones(3) * g):
        with pytest.raises(pdt.DeviceError, match="cpu"):
            f()
    with pytest.raises(pdt.DeviceError, match="cpu"):
        g += np.ones(3)
    stats = pdt.transfer_stats()
    assert stats["host_to_device"]["count"] == 0 and stats["device_to_host"]["count"] == 0
    assert g.cpu().tolist() == [1.0, 1.0, 1.0]


def test_tensor_of_a_list_of_arrays_stacks_them():
    """tensor([a0, a1]) of NumPy arrays, as PyTorch takes it (found by the new-user
    tester: it raised NumPy's 'only integer scalar arrays' TypeError)."""
    a = [np.arange(3.0), np.arange(3.0) * 2]
    t = pdt.tensor(a)
    assert t.dtype == pdt.float64 and t.tolist() == np.asarray(a).tolist()
    assert pdt.tensor((np.ones(2, np.float32), np.zeros(2, np.float32))).dtype == pdt.float32
    assert pdt.tensor([[np.ones(2)], [np.ones(2)]]).shape == (2, 1, 2)
    assert pdt.tensor([np.arange(2, dtype=np.uint8)] * 2, dtype=pdt.float32).tolist() == \
        [[0.0, 1.0], [0.0, 1.0]]
    with pytest.raises(ValueError, match="inhomogeneous"):
        pdt.tensor([np.ones(2), np.ones(3)])
    assert pdt.tensor([np.float32(1), 2]).tolist() == [1.0, 2.0]  # scalars: numbers


def test_numpy_scalars_in_lists_keep_their_rule_whatever_the_order():
    """NumPy scalars in a list keep their dtype, the list's being the promotion of its
    elements' (Python floats float32, ints int64), as PyTorch's, wherever they stand;
    arrays anywhere send the list to NumPy (a reviewer found the dtype depending on the
    first element's kind)."""
    for a, b in ((np.float32(1.5), 2.5), (np.int64(3), 2.5), (np.float16(1), 2.0)):
        assert pdt.tensor([a, b]).dtype == pdt.tensor([b, a]).dtype == pdt.float32
    assert pdt.tensor([np.float64(1.5), 2.5]).dtype == pdt.tensor([2.5, np.float64(1)]).dtype \
        == pdt.float64
    assert pdt.tensor([np.int32(1), np.int32(2)]).dtype == pdt.int32  # torch's too
    later = pdt.tensor([[1.0, 2.0], np.array([3.0, 4.0])])
    assert later.dtype == pdt.float64 and later.tolist() == [[1, 2], [3, 4]]
    assert pdt.tensor([1.0, np.array(2.0)]).tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="only one element tensors"):
        pdt.tensor([pdt.ones(2), pdt.ones(2)])


@pytest.mark.parametrize("op", ["&", "|", "^", "<<", ">>"])
@pytest.mark.parametrize("scalar", [np.int64(3), np.int32(3), np.uint8(3)])
def test_bitwise_operators_read_numpy_integer_scalars_as_numbers(device, op, scalar):
    """t << np.int64(3), np.int64(3) & t and t &= np.int64(3) are tensor ops of t's dtype,
    the scalar read as a Python int (as PyTorch reads it; NumPy computed an int64 array,
    without uint8's wrap-around, before)."""
    import operator
    fn = {"&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift,
          ">>": operator.rshift}[op]
    a = np.array([1, 2, 200], dtype=np.uint8)
    t = pdt.tensor(a, device=device)
    for got, want in ((fn(t, scalar), fn(a, np.uint8(3))), (fn(scalar, t), fn(np.uint8(3), a))):
        assert isinstance(got, pdt.Tensor) and got.dtype == pdt.uint8, (op, got)
        np.testing.assert_array_equal(got.cpu().numpy(), want)
    if op in "&|^":
        m = pdt.tensor([True, False], device=device)
        r = fn(m, np.bool_(True))
        assert isinstance(r, pdt.Tensor) and r.dtype == pdt.bool
        np.testing.assert_array_equal(r.cpu().numpy(), fn(np.array([True, False]), True))
        u = t.clone()
        u = {"&": operator.iand, "|": operator.ior, "^": operator.ixor}[op](u, scalar)
        assert isinstance(u, pdt.Tensor)
        np.testing.assert_array_equal(u.cpu().numpy(), fn(a, np.uint8(3)))


@pytest.mark.parametrize("array", [np.array(2.5), np.array(2), np.array(2.5, np.float32),
                                   np.array(2, np.int32)])
@pytest.mark.parametrize("dtype", [pdt.float32, pdt.int64])
def test_a_0d_array_is_read_as_a_number_in_either_order(device, dtype, array):
    # PyTorch computes t * np.array(2.5) in NumPy (float64, unrecorded) and refuses
    # np.array(2.5) * t and comparisons; here the 0-d array is a number: the dtype of
    # t * 2.5 (Note [operators with NumPy arrays])
    t = pdt.tensor([1, 2], dtype=dtype, device=device)
    number = array.item()
    for fn in (lambda a, b: a * b, lambda a, b: a + b, lambda a, b: a - b,
               lambda a, b: a / b, lambda a, b: a ** b, lambda a, b: a < b):
        for got, want in ((fn(t, array), fn(t, number)), (fn(array, t), fn(number, t))):
            assert isinstance(got, pdt.Tensor) and got.device == t.device
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())
