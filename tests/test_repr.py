"""repr() and str() follow PyTorch (issue 3)."""
import pytest

import pydevtensor as pdt


@pytest.mark.parametrize("make,expected", [
    (lambda: pdt.ones(2, 3), "tensor([[1., 1., 1.],\n        [1., 1., 1.]])"),
    (lambda: pdt.arange(4), "tensor([0, 1, 2, 3])"),
    (lambda: pdt.tensor([0.5, -1.25]), "tensor([ 0.5000, -1.2500])"),
    (lambda: pdt.tensor([1, 2], dtype=pdt.int32), "tensor([1, 2], dtype=pydevtensor.int32)"),
    (lambda: pdt.tensor([1.0, 2.0], dtype=pdt.float64),
     "tensor([1., 2.], dtype=pydevtensor.float64)"),
    (lambda: pdt.tensor([True, False]), "tensor([ True, False])"),
    (lambda: pdt.tensor(3.5), "tensor(3.5000)"),
    (lambda: pdt.zeros(0), "tensor([])"),
    (lambda: pdt.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: pdt.tensor([1e-5, 3.0]), "tensor([1.0000e-05, 3.0000e+00])"),
    (lambda: pdt.tensor([float("nan"), float("inf"), 1.0]), "tensor([nan, inf, 1.])"),
    # the width and the mode come from the nonzero finite values (PyTorch's _Formatter)
    (lambda: pdt.tensor([0.5, -0.0]), "tensor([0.5000, -0.0000])"),
    (lambda: pdt.tensor([0.0, -0.0]), "tensor([0., -0.])"),
    (lambda: pdt.tensor([1.0, 1001.0]), "tensor([1.0000e+00, 1.0010e+03])"),
    (lambda: pdt.tensor([1.0, float("nan"), 2000.0]), "tensor([1.0000e+00,        nan, "
                                                      "2.0000e+03])"),
    (lambda: pdt.tensor([1.5, float("inf")]), "tensor([1.5000,    inf])"),
])
def test_repr_matches_pytorch(make, expected):
    t = make()
    assert repr(t) == expected
    assert str(t) == expected


def test_large_tensors_are_summarised():
    r = repr(pdt.arange(2000))
    assert r == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"
    big = repr(pdt.zeros(40, 40))
    assert big.count("\n") == 6 and "...," in big


def test_repr_of_a_gpu_tensor_names_the_device_and_counts_the_copy():
    if not pdt.cuda.is_available():
        pytest.skip("needs a CUDA GPU: " + str(pdt.cuda.unavailable_reason()))
    x = pdt.ones(2, 3, device="cuda:0")
    pdt.reset_transfer_stats()
    assert repr(x) == "tensor([[1., 1., 1.],\n        [1., 1., 1.]], device='cuda:0')"
    assert pdt.transfer_stats()["device_to_host"]["count"] == 1


def test_a_summary_copies_only_the_values_shown(device):
    """An expanded view of 2e9 elements (4 bytes of storage) and a transposed matrix
    print from their edges, gathered on their device: nothing the size of the tensor
    is allocated (it took 7.5 GiB and 6.6 s), and one copy of 36 elements comes to the
    host from a GPU."""
    big = pdt.ones(1, device=device).expand(2 * 10**9)
    before = pdt.max_memory_allocated(device)
    pdt.reset_transfer_stats()
    text = repr(big)
    assert text.startswith("tensor([1., 1., 1.,  ..., 1., 1., 1.]")
    m = pdt.arange(12000.0, device=device).reshape(3000, 4).T
    assert repr(m).startswith("tensor([[0.0000e+00, 4.0000e+00, 8.0000e+00,  ..., "
                              "1.1988e+04, 1.1992e+04,\n         1.1996e+04],")
    assert pdt.max_memory_allocated(device) - before < 1 << 20
    if device.type != "cpu":
        assert pdt.transfer_stats()["device_to_host"]["count"] == 2


def test_subnormal_float64_prints_without_a_warning():
    """The wide-range test divides max by min with NumPy's overflow warning off: a float64
    subnormal beside 2.0 made NumPy warn "overflow encountered in scalar divide", an
    error under -W error (found by a helper trying the package as a new user)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = repr(pdt.tensor([5e-324, 2.0], dtype=pdt.float64))
        assert got == "tensor([4.9407e-324,  2.0000e+00], dtype=pydevtensor.float64)"
        assert repr(pdt.tensor([1.5, 2.0])) == "tensor([1.5000, 2.0000])"
        assert repr(pdt.tensor([1e-3, 2.0])) == "tensor([1.0000e-03, 2.0000e+00])"


def test_the_wide_range_test_divides_as_pytorch():
    """Scientific notation when max / min > 1000 in float64, as PyTorch's _Formatter
    divides: 1001.5000000000001 / 1.0015 is 1000 exactly, so fixed notation, though
    1000 * 1.0015 rounds below 1001.5000000000001 (the product test printed 1.0015e+00)."""
    lo, hi = 1.0015, 1001.5000000000001
    assert hi / lo == 1000.0 and hi > 1000.0 * lo  # the case this test is about
    assert repr(pdt.tensor([lo, hi], dtype=pdt.float64)) == \
        "tensor([   1.0015, 1001.5000], dtype=pydevtensor.float64)"
    assert repr(pdt.tensor([lo, 1001.6], dtype=pdt.float64)) == \
        "tensor([1.0015e+00, 1.0016e+03], dtype=pydevtensor.float64)"


def test_an_empty_tensor_names_its_device_before_its_size(device):
    """PyTorch's order of suffixes, device= then size= then dtype= (size= came first)."""
    dev = repr(pdt.zeros(1, device=device))[len("tensor([0.]"):-1]  # '' on the CPU
    assert repr(pdt.zeros(2, 0, device=device)) == "tensor([]" + dev + ", size=(2, 0))"
    assert repr(pdt.zeros(0, 3, dtype=pdt.int32, device=device)) == \
        "tensor([]" + dev + ", size=(0, 3), dtype=pydevtensor.int32)"


def _suffixed(body, suffixes, width=80):
    """PyTorch's _add_suffixes rule, written out: a suffix that would take the last line
    past the width (the line's length + 2, the suffix, its ', ') goes on a line of its own,
    indented under the values."""
    out, last = body, len(body) - body.rfind("\n") + 1
    for s in suffixes:
        if last + len(s) + 2 > width:
            out, last = out + ",\n       " + s, 7 + len(s)
        else:
            out, last = out + ", " + s, last + len(s) + 2
    return out + ")"


@pytest.mark.parametrize("make,body,suffixes", [
    # D2L's x.reshape(-1) of a (2, 3) tensor that requires grad: 72 + 23 > 80
    (lambda: pdt.tensor([[0.1257, -0.1321, 0.6404], [0.1049, -0.5357, 0.3616]],
                        requires_grad=True).reshape(-1),
     "tensor([ 0.1257, -0.1321,  0.6404,  0.1049, -0.5357,  0.3616]",
     ["grad_fn=<ViewBackward0>"]),
    # two suffixes: dtype fits after the values, grad_fn does not
    (lambda: pdt.tensor([[0.5, -1.0, 2.0], [0.25, -0.5, 3.0]], dtype=pdt.float64,
                        requires_grad=True) * 1,
     "tensor([[ 0.5000, -1.0000,  2.0000],\n        [ 0.2500, -0.5000,  3.0000]]",
     ["dtype=pydevtensor.float64", "grad_fn=<MulBackward0>"]),
    # a short one stays on the line
    (lambda: pdt.tensor([1.0, 2.0], requires_grad=True),
     "tensor([1., 2.]", ["requires_grad=True"]),
    (lambda: pdt.arange(12, dtype=pdt.int32) * 1000,
     "tensor([    0,  1000,  2000,  3000,  4000,  5000,  6000,  7000,  8000,  9000,\n"
     "        10000, 11000]", ["dtype=pydevtensor.int32"]),
])
def test_suffixes_wrap_at_the_line_width_as_pytorch(make, body, suffixes):
    expected = _suffixed(body, suffixes)
    assert repr(make()) == expected
    if body.count("\n") == 0 and len(body) > 60:
        assert ",\n       grad_fn=" in expected  # the case this test is about


def test_suffixes_follow_the_printoptions_line_width():
    x = pdt.tensor([1.0, 2.0], requires_grad=True)
    try:
        pdt.set_printoptions(linewidth=30)
        assert repr(x) == "tensor([1., 2.],\n       requires_grad=True)"
    finally:
        pdt.set_printoptions(profile="default")
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"


def test_format_of_a_0d_tensor_and_parameter():
    """f"{t}" of a 0-d tensor is its value's; of a 0-d Parameter its str ("Parameter
    containing: ..."), as PyTorch's (it was the value); a spec formats either's value."""
    t = pdt.tensor(1.5)
    assert f"{t}" == "1.5" and f"{t:.2f}" == "1.50" and f"{pdt.tensor(3):5d}" == "    3"
    w = pdt.nn.Parameter(pdt.tensor(1.5))
    assert f"{w}" == str(w) == "Parameter containing:\ntensor(1.5000, requires_grad=True)"
    assert f"{w:.2f}" == "1.50"
    assert f"{pdt.tensor([1.5])}" == "tensor([1.5000])"
    with pytest.raises(TypeError, match=r"only 0-d tensors take a format spec"):
        format(pdt.tensor([1.5]), ".2f")


def test_grad_fn_names_of_pow_matmul_var_rsub_and_flip(device):
    """repr's grad_fn=<...> names PyTorch's overload or path: pow(Tensor, Scalar) PowBackward0,
    pow(Tensor, Tensor) PowBackward1, pow(Scalar, Tensor) PowBackward2 (all were
    PowBackward0), and flip FlipBackward0 (was CopyBackwards, the copy it is made by);
    flip's gradient is the incoming one flipped back, its second derivative too."""
    import numpy as np
    x = pdt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=pdt.float64, device=device,
                   requires_grad=True)
    y = pdt.full((2, 3), 0.5, dtype=pdt.float64, device=device)
    names = [t.grad_fn.name() for t in (x ** 2, x ** y, 2 ** x, pdt.pow(x, y), x.flip(0),
                                        pdt.flip(x, (0, -1)), x.fliplr(), x[0, 0].flip(0))]
    assert names == ["PowBackward0", "PowBackward1", "PowBackward2", "PowBackward1"] + \
        ["FlipBackward0"] * 4
    xn = x.detach().cpu().numpy()
    assert repr(2 ** x[0, :1]).endswith("grad_fn=<PowBackward2>)")
    # matmul names its node as PyTorch's at::matmul names its result (all but mm and dot
    # were MatmulBackward0, a name PyTorch has not)
    v, m3 = x[0], x.reshape(1, 2, 3)
    assert [t.grad_fn.name() for t in (v @ v, x @ v, v @ x.T, x @ x.T, m3 @ v, m3 @ x.T)] == \
        ["DotBackward0", "MvBackward0", "SqueezeBackward4", "MmBackward0"] + \
        ["UnsafeViewBackward0"] * 2
    # var() is PyTorch's VarBackward0 (was the DivBackward0 of its last step), N - 1 = 0 too;
    # its gradient 2 (x - mean) / (N - 1) (N = 3), whose sum does not depend on x
    with pytest.warns(UserWarning, match="degrees of freedom"):
        lone = x[0, :1].var()
    assert [t.grad_fn.name() for t in (x.var(), x.var(1), lone)] == ["VarBackward0"] * 3
    (gv,) = pdt.autograd.grad(x.var(1).sum(), x, create_graph=True)
    np.testing.assert_allclose(gv.detach().cpu().numpy(),
                               (xn - xn.mean(1, keepdims=True)), rtol=1e-15)
    (hv,) = pdt.autograd.grad(gv.sum(), x)
    np.testing.assert_allclose(hv.cpu().numpy(), np.zeros((2, 3)), atol=1e-15)
    # a number minus a tensor is PyTorch's rsub(x, 1) (was SubBackward0); the gradient
    # of sub's second operand is -g, a NegBackward0 under create_graph (was MulBackward0)
    assert [t.grad_fn.name() for t in (1 - x, x - 1, x - y, pdt.rsub(x, 2))] == \
        ["RsubBackward1", "SubBackward0", "SubBackward0", "RsubBackward1"]
    (gr,) = pdt.autograd.grad(((1.5 - x) ** 3).sum(), x, create_graph=True)
    assert gr.grad_fn.name() == "NegBackward0"
    np.testing.assert_allclose(gr.detach().cpu().numpy(), -3 * (1.5 - xn) ** 2, rtol=1e-15)
    w = np.arange(1.0, 7.0).reshape(2, 3) ** 3
    wt = pdt.tensor(w, device=device)
    (g,) = pdt.autograd.grad((x.flip((0, 1)) ** 2 * wt).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().cpu().numpy(), 2 * xn * w[::-1, ::-1], rtol=1e-15)
    assert g.grad_fn is not None
    (h,) = pdt.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.cpu().numpy(), 2 * w[::-1, ::-1], rtol=1e-15)


def test_a_subclass_prints_its_class_name():
    """PyTorch's _str_intern: a subclass of Tensor prints under its class's name, its
    rows indented under it; Parameter keeps tensor(, and a subclass of Parameter is also
    wrapped in Parameter(...) (all printed tensor( before)."""
    class MyTensor(pdt.Tensor):
        pass

    class MyParameter(pdt.nn.Parameter):
        pass

    assert repr(MyTensor(pdt.ones(2, 2))) == "MyTensor([[1., 1.],\n          [1., 1.]])"
    assert str(MyTensor(pdt.zeros(2, 0))) == "MyTensor([], size=(2, 0))"
    assert f"{MyTensor(pdt.tensor(1.5))}" == "MyTensor(1.5000)"
    assert repr(MyParameter(pdt.ones(2))) == \
        "Parameter containing:\nParameter(MyParameter([1., 1.], requires_grad=True))"
    assert repr(pdt.nn.Parameter(pdt.ones(2))) == \
        "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
