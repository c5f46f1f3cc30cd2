"""Shape and layout rules a side-by-side review against PyTorch 2.15 found: repeat_interleave
with one copy is a new tensor (not a view of input), squeeze refuses a dim listed twice,
x.repeat() with no sizes is a TypeError, x.T of other than a matrix warns once,
is_contiguous/contiguous take preserve_format, x.broadcast_to takes size=, cat's backward
has a second derivative through a skipped empty input, and H/mH/mT/adjoint of a 0-d
tensor are the tensor itself (with PyTorch's deprecation warning).  Values against NumPy
(exact: these ops only move elements); on every device."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import pydevtensor as pdt

A = np.arange(24, dtype=np.float64).reshape(2, 3, 4)


def _t(a, device):
    return pdt.from_numpy(np.array(a)).to(device)


@pytest.mark.parametrize("dim", [None, 0, 1, -1, 2])
@pytest.mark.parametrize("count", [0, 1])
@pytest.mark.parametrize("strided", [False, True])
def test_repeat_interleave_of_one_copy_is_a_new_tensor(device, dim, count, strided):
    a = A.transpose(2, 0, 1) if strided else A
    x = _t(A, device)
    if strided:
        x = x.permute(2, 0, 1)
    before = x.cpu().numpy().copy()
    out = pdt.repeat_interleave(x, count, dim)
    want = np.repeat(a, count, axis=dim)
    np.testing.assert_array_equal(out.cpu().numpy(), want)
    assert not out._is_view() and out._base is None and out.is_contiguous()
    if out.numel():
        out.fill_(-1.0)  # the write stays in the result
    np.testing.assert_array_equal(x.cpu().numpy(), before)
    # the method and a tensor count of one element take the same path
    assert not x.repeat_interleave(count, dim=dim)._is_view()


@pytest.mark.parametrize("shape, count, dim", [((1,), 3, None), ((1,), 2, -1), ((1, 1, 1), 3, -2),
                                               ((2, 1, 3), 4, 1), ((1, 1), 2, None)])
@pytest.mark.parametrize("grad", [False, True])
def test_repeat_interleave_of_a_size_1_slice_is_no_stride_0_view(device, shape, count, dim,
                                                                 grad):
    a = np.arange(1, int(np.prod(shape)) + 1, dtype=np.float64).reshape(shape)
    x = _t(a, device).requires_grad_(grad)
    out = pdt.repeat_interleave(x, count, dim)
    # with grad a view of its own copy, as PyTorch's (ViewBackward0); never of x
    assert out._base is not x and out.is_contiguous() and 0 not in out.stride()
    assert not out._is_view() or out._base._base is None
    want = np.repeat(a, count, axis=dim)
    np.testing.assert_array_equal(out.detach().cpu().numpy(), want)
    out = out.detach()
    out.view(-1)[0] = -1.0  # one element: not every copy, not x
    want.reshape(-1)[0] = -1.0
    np.testing.assert_array_equal(out.cpu().numpy(), want)
    np.testing.assert_array_equal(x.detach().cpu().numpy(), a)


def test_repeat_interleave_of_one_copy_keeps_the_gradient(device):
    x = _t(A, device).requires_grad_(True)
    out = pdt.repeat_interleave(x, 1, 1)
    assert out.grad_fn is not None and out._base is not x  # its own copy (viewed)
    (out * out).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), 2 * A)


@pytest.mark.parametrize("shape, dims", [((2, 1), (-1, 1)), ((2, 1, 4), (1, -2)),
                                         ((4, 3), (0, -2)), ((), (0, -1)), ((), (0, 0)),
                                         ((1, 1, 1), (0, 2, -1))])
def test_squeeze_refuses_a_dim_listed_twice(device, shape, dims):
    x = pdt.zeros(shape, device=device)
    d = dims[-1] % max(len(shape), 1)
    match = rf"squeeze\(\): dim {d} appears multiple times in the list of dims"
    with pytest.raises(RuntimeError, match=match):
        pdt.squeeze(x, dims)
    with pytest.raises(RuntimeError, match=match):
        x.squeeze(dims)
    with pytest.raises(RuntimeError, match=match):
        x.clone().requires_grad_(True).squeeze(dims)
    with pytest.raises(RuntimeError, match=match):
        pdt.squeeze_copy(x, dims)
    with pytest.raises(RuntimeError, match=match):
        x.squeeze_(dims)
    assert tuple(x.shape) == shape  # the refused in-place form left x as it was


def test_squeeze_of_distinct_dims_still_squeezes(device):
    x = _t(np.zeros((2, 1, 1, 3)), device)
    assert tuple(x.squeeze((-3,)).shape) == (2, 1, 3)
    assert tuple(x.squeeze((1, -2)).shape) == (2, 3)
    assert tuple(x.squeeze((1, 2, 0)).shape) == (2, 3)  # a dim not of size 1: kept
    assert tuple(pdt.zeros((), device=device).squeeze((0,)).shape) == ()


def test_repeat_without_sizes_is_a_type_error(device):
    x = pdt.zeros(3, device=device)
    with pytest.raises(TypeError, match=r'repeat\(\) missing 1 required positional '
                                        r'arguments: "repeats"'):
        x.repeat()
    with pytest.raises(RuntimeError, match="can not be smaller"):
        x.repeat(())  # an empty sequence is a size list, too short for a 1-d tensor
    assert tuple(pdt.zeros((), device=device).repeat(()).shape) == ()


def test_T_of_other_than_a_matrix_warns_once(device):
    # the once-per-process flags live in the extension; a fresh interpreter would be
    # needed to see the first call, so the test only asks that a warning of each kind
    # has come by the second call and that a matrix never warns
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for shape in [(2, 3), (2, 3)]:
            assert tuple(pdt.zeros(shape, device=device).T.shape) == shape[::-1]
    assert not caught
    seen = []
    for shape in [(), (3,), (2, 3, 4), (), (3,)]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            x = _t(np.arange(int(np.prod(shape))).reshape(shape), device)
            np.testing.assert_array_equal(x.T.cpu().numpy(), x.cpu().numpy().T)
        seen += [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    # at most one of each (once per process), none for the repeats
    assert sum("0-D" in m for m in seen) <= 1
    assert sum("other than 2" in m for m in seen) <= 1
    assert len(seen) <= 2


def test_T_warning_text_in_a_fresh_process():
    code = ("import warnings, pydevtensor as p\n"
            "warnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    p.zeros(()).T; p.zeros(()).T; p.zeros(3).T; p.zeros(2, 3, 4).T\n"
            "print(len(w)); [print(str(m.message)[:40]) for m in w]\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(pdt.__file__)))
    env = {**os.environ, "PYTHONPATH": root}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env).stdout
    lines = out.splitlines()
    assert lines[0] == "2"
    assert lines[1].startswith("Tensor.T is deprecated on 0-D tensors")
    assert lines[2].startswith("The use of `x.T` on tensors of dimens")


@pytest.mark.parametrize("make", [lambda x: x, lambda x: x.t(), lambda x: x[:, ::2],
                                  lambda x: x.unsqueeze(0).expand(2, 4, 6)])
def test_is_contiguous_preserve_format_is_the_default_order(device, make):
    x = make(pdt.zeros(4, 6, device=device))
    assert x.is_contiguous(memory_format=pdt.preserve_format) == x.is_contiguous()
    if x.is_contiguous():
        assert x.contiguous(memory_format=pdt.preserve_format) is x
    else:
        with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
            x.contiguous(memory_format=pdt.preserve_format)


def test_is_contiguous_of_channels_last_under_preserve_format(device):
    x = pdt.zeros(2, 3, 4, 5, device=device).contiguous(memory_format=pdt.channels_last)
    assert not x.is_contiguous(memory_format=pdt.preserve_format)
    assert x.is_contiguous(memory_format=pdt.channels_last)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        x.contiguous(memory_format=pdt.preserve_format)


def test_is_contiguous_refuses_none_as_memory_format(device):
    x = pdt.zeros(2, 3, device=device)
    for name in ("is_contiguous", "contiguous"):
        with pytest.raises(TypeError, match=rf"{name}\(\): argument 'memory_format' must be "
                                            r"pydevtensor.memory_format, not NoneType"):
            getattr(x, name)(memory_format=None)
    assert x.clone(memory_format=None).is_contiguous()  # clone's None: preserve, as before


def test_broadcast_to_method_takes_size_keyword(device):
    x = _t(np.arange(3.0), device)
    want = np.broadcast_to(np.arange(3.0), (2, 3))
    for out in (x.broadcast_to(size=(2, 3)), x.broadcast_to(size=[2, -1]),
                x.broadcast_to(2, 3), x.broadcast_to((2, 3))):
        np.testing.assert_array_equal(out.cpu().numpy(), want)
    with pytest.raises(TypeError, match=r"got multiple values for argument 'size'"):
        x.broadcast_to((2, 3), size=(2, 3))
    with pytest.raises(TypeError, match=r'missing 1 required positional arguments: "size"'):
        x.broadcast_to()


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_with_a_skipped_empty_input_has_a_second_derivative(device, dim):
    # cat skips 1-d empty inputs (PyTorch's legacy rule); their gradient, an empty one,
    # was made unrecorded, so create_graph=True refused to differentiate cat's backward
    a = _t(A[0], device).requires_grad_(True)
    e = pdt.zeros(0, dtype=pdt.float64, device=device).requires_grad_(True)
    w = _t(np.cos(np.arange(12.0 + 12)).reshape((6, 4) if dim == 0 else (3, 8)),
           device).requires_grad_(True)
    out = pdt.cat([a, e, a], dim)
    ga, ge = pdt.autograd.grad((out * w).sum(), [a, e], create_graph=True)
    assert tuple(ge.shape) == (0,) and ga.requires_grad
    wn = w.detach().cpu().numpy()
    halves = (wn[:3], wn[3:]) if dim == 0 else (wn[:, :4], wn[:, 4:])
    np.testing.assert_allclose(ga.detach().cpu().numpy(), halves[0] + halves[1])
    v = np.sin(np.arange(12.0)).reshape(3, 4)
    (dw,) = pdt.autograd.grad((ga * _t(v, device)).sum() + ge.sum(), [w])
    # d/dw of sum(v * (w_first + w_second)) is v in each half
    np.testing.assert_allclose(dw.cpu().numpy(), np.concatenate([v, v], axis=dim))


@pytest.mark.parametrize("get", [lambda x: x.H, lambda x: x.mH, lambda x: x.mT,
                                 lambda x: x.adjoint(), lambda x: pdt.adjoint(x)])
def test_matrix_transposes_of_a_0d_tensor_are_the_tensor_itself(device, get):
    x = pdt.tensor(2.5, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert get(x) is x  # PyTorch 2.15's: x itself (deprecated there), not an error
    for shape in [(3,)]:  # 1-d stays an error, as PyTorch's
        with pytest.raises(RuntimeError, match="only supported on matrices"):
            get(pdt.zeros(shape, device=device))


def test_matrix_transposes_of_a_0d_tensor_warn_once_in_a_fresh_process():
    code = ("import warnings, pydevtensor as p\n"
            "x = p.tensor(1.0)\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    for _ in range(2):\n"
            "        x.H; x.mH; x.mT; x.adjoint()\n"
            "for m in w: print(m.filename.endswith('<string>'), m.message)\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(pdt.__file__)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": root}).stdout
    assert out.splitlines() == [
        "True Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
        "True Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().",
        "True Tensor.mT is deprecated on 0-D tensors. This function is the identity in these "
        "cases.",
        "True adjoint() is deprecated on 0-D tensors. Consider using x.conj()."]


@pytest.mark.parametrize("call, exc, match", [
    (lambda x: pdt.take_along_dim(x, pdt.tensor(0, device=x.device), 0), IndexError,
     r"Dimension specified as 0 but tensor has no dimensions"),
    (lambda x: pdt.roll(x, 1, 0), IndexError,
     r"Dimension specified as 0 but tensor has no dimensions"),
    (lambda x: pdt.roll(x, (1,), (-1,)), IndexError,
     r"Dimension specified as -1 but tensor has no dimensions"),
    (lambda x: pdt.unflatten(x, 0, (1,)), RuntimeError,
     r"Dimension specified as 0 but tensor has no dimensions"),
    (lambda x: pdt.unflatten(x, -1, (1,)), RuntimeError,
     r"Dimension specified as -1 but tensor has no dimensions"),
    (lambda x: pdt.unflatten(x, 1, (1,)), IndexError, r"Dimension out of range"),
    (lambda x: pdt.flip(x, (0, -1)), RuntimeError, r"dim 0 appears multiple times"),
])
def test_0d_refusals_as_pytorch(device, call, exc, match):
    x = pdt.tensor(1.5, device=device)
    with pytest.raises(exc, match=match):
        call(x)


def test_0d_forms_that_stay(device):
    # x.expand() and x.permute() with no sizes stay a 0-d tensor's own shape (PyTorch's
    # parser refuses them): code written x.expand(*shape) meets them when shape is ()
    x = pdt.tensor(1.5, device=device)
    for out in (pdt.take_along_dim(x, pdt.tensor(0, device=device)), pdt.roll(x, 3),
                pdt.roll(x, (1,), ()), pdt.flip(x, (0,)), x.expand(()), x.permute(()),
                pdt.permute(x, ()), x.expand(*()), x.permute(*()), pdt.permute(x)):
        np.testing.assert_array_equal(out.cpu().numpy(), np.array(1.5).reshape(out.shape))


def test_roll_reads_empty_dims_as_none_and_refuses_no_shifts(device):
    a = np.arange(6.0).reshape(2, 3)
    x = _t(a, device)
    for dims in ((), []):
        np.testing.assert_array_equal(pdt.roll(x, 1, dims).cpu().numpy(), np.roll(a, 1))
        np.testing.assert_array_equal(pdt.roll(x, (-2,), dims).cpu().numpy(), np.roll(a, -2))
    with pytest.raises(RuntimeError, match=r"`shifts` required"):
        pdt.roll(x, (), ())
    with pytest.raises(RuntimeError, match=r"give one shift"):
        pdt.roll(x, (1, 2), ())


@pytest.mark.parametrize("call, kinds", [
    (lambda x: pdt.take(x, pdt.tensor([1.0], device=x.device)), (IndexError, RuntimeError)),
    (lambda x: pdt.take_along_dim(x, pdt.tensor([[0.0]], device=x.device), 1),
     (IndexError, RuntimeError)),
    (lambda x: pdt.gather(x, 1, pdt.tensor([[True]], device=x.device)),
     (IndexError, RuntimeError)),
    (lambda x: pdt.as_strided(x, (2, 2), (1,)), (ValueError, RuntimeError)),
    (lambda x: x.narrow(1, pdt.tensor(1.5, device=x.device), 1), (TypeError, RuntimeError)),
    (lambda x: x.narrow(1, pdt.tensor([1], device=x.device), 1), (TypeError, RuntimeError)),
])
def test_refusals_are_also_pytorchs_runtime_error(device, call, kinds):
    # PyTorch raises RuntimeError here; ours keeps its own kind as well
    x = pdt.zeros(2, 3, device=device)
    with pytest.raises(kinds[0]) as caught:
        call(x)
    assert isinstance(caught.value, kinds[1])


@pytest.mark.parametrize("dims", [(0, -1), (0, 0), (-1, 0)])
def test_diag_embed_of_0d_refuses_identical_dims(device, dims):
    # a 0-d input makes a 1-d result: dims in range are one dim (PyTorch's RuntimeError;
    # an IndexError saying "expected [-1, 0], but got 0" before)
    with pytest.raises(RuntimeError, match=rf"diagonal dimensions cannot be identical "
                                           rf"{dims[0]}, {dims[1]}"):
        pdt.diag_embed(pdt.tensor(1.0, device=device), 0, *dims)
    with pytest.raises(IndexError, match="Dimension out of range"):
        pdt.diag_embed(pdt.tensor(1.0, device=device), 0, 0, 1)
