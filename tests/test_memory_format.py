"""Memory formats: pydevtensor.contiguous_format, channels_last, channels_last_3d and
preserve_format, with torch's reprs (pydevtensor. for torch.), and the methods that
take them (Tensor.clone, Tensor.contiguous, Tensor.is_contiguous, pydevtensor.clone):
strides equal to torch's for the same shape and format, values and gradients exact."""
import copy
import pickle

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip

FORMATS = ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format")


def test_constants_reprs_and_copies():
    torch = torch_or_skip()
    for name in FORMATS:
        ours, theirs = getattr(pdt, name), getattr(torch, name)
        assert isinstance(ours, pdt.memory_format)
        assert repr(ours) == repr(theirs).replace("torch.", "pydevtensor.")
        assert pickle.loads(pickle.dumps(ours)) is ours and copy.deepcopy(ours) is ours
    with pytest.raises(TypeError, match="exists already"):
        pdt.memory_format("channels_last")


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 3, 1, 5), (2, 1, 4, 1)])
def test_channels_last_strides_match_torch(device, shape):
    torch = torch_or_skip()
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    t = torch.tensor(a)
    x = pdt.tensor(a, device=device)
    for fmt in ("channels_last", "contiguous_format", "preserve_format"):
        tf, pf = getattr(torch, fmt), getattr(pdt, fmt)
        assert x.clone(memory_format=pf).stride() == t.clone(memory_format=tf).stride()
        np.testing.assert_array_equal(x.clone(memory_format=pf).cpu().numpy(), a)
        assert pdt.clone(x, memory_format=pf).stride() == \
            torch.clone(t, memory_format=tf).stride()
    cl, tcl = x.contiguous(memory_format=pdt.channels_last), \
        t.contiguous(memory_format=torch.channels_last)
    assert cl.stride() == tcl.stride()
    assert cl.contiguous(memory_format=pdt.channels_last) is cl
    for fmt in ("channels_last", "contiguous_format"):
        assert cl.is_contiguous(memory_format=getattr(pdt, fmt)) == \
            tcl.is_contiguous(memory_format=getattr(torch, fmt))
        assert x.is_contiguous(memory_format=getattr(pdt, fmt)) == t.is_contiguous(memory_format=getattr(
            torch, fmt))
    back = cl.contiguous()
    assert back.is_contiguous() and back.stride() == t.stride()
    np.testing.assert_array_equal(back.cpu().numpy(), a)
    # preserve_format keeps channels-last (the strides of size-1 dims may differ)
    assert cl.clone().is_contiguous(memory_format=pdt.channels_last)
    if 1 not in shape:
        assert cl.clone().stride() == tcl.clone().stride()


def test_channels_last_3d_and_strings(device):
    torch = torch_or_skip()
    a = np.arange(2 * 3 * 2 * 4 * 5, dtype=np.float32).reshape(2, 3, 2, 4, 5)
    x, t = pdt.tensor(a, device=device), torch.tensor(a)
    got = x.contiguous(memory_format=pdt.channels_last_3d)
    assert got.stride() == t.contiguous(memory_format=torch.channels_last_3d).stride()
    assert got.is_contiguous(memory_format=pdt.channels_last_3d)
    assert not got.is_contiguous(memory_format=pdt.channels_last)
    assert pdt.clone(x, memory_format="channels_last_3d").stride() == got.stride()
    assert x.clone(memory_format="contiguous_format").stride() == t.stride()


def test_memory_format_autograd(device):
    a = np.random.default_rng(0).standard_normal((2, 3, 4, 5))
    x = pdt.tensor(a, device=device, requires_grad=True)
    r = np.random.default_rng(1).standard_normal(a.shape)
    y = x.contiguous(memory_format=pdt.channels_last)
    (y * pdt.tensor(r, device=device)).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), r)
    x.grad = None
    z = x.clone(memory_format=pdt.channels_last) * 2.0
    z.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.full(a.shape, 2.0))


def test_memory_format_bad_input(device):
    x = pdt.zeros(2, 3, device=device)
    d = str(device)
    cases = [
        (lambda: x.clone(memory_format=pdt.channels_last), ValueError,
         r"clone\(\): required rank 4 tensor to use channels_last format, got shape \(2, 3\) "
         r"\(on " + d),
        (lambda: x.contiguous(memory_format=pdt.channels_last_3d), RuntimeError,
         r"contiguous\(\): required rank 5 tensor to use channels_last_3d format"),
        (lambda: x.t().contiguous(memory_format=pdt.preserve_format), RuntimeError,
         r"preserve memory format is unsupported by the contiguous operator"),
        (lambda: x.clone(memory_format="NHWC"), TypeError,
         r"memory_format must be a pydevtensor.memory_format .*got 'NHWC'"),
        (lambda: x.is_contiguous(memory_format=1), TypeError, r"memory_format must be"),
    ]
    for fn, exc, match in cases:
        with pytest.raises(exc, match=match):
            fn()
    assert not x.is_contiguous(memory_format=pdt.channels_last)  # not 4-d: not channels last


def test_to_takes_a_memory_format(device):
    """x.to(memory_format=channels_last) and Module.to(memory_format=...), the usual
    PyTorch spelling (the tester found both refused): the layout asked for, the
    values unchanged, itself when already so laid out, the gradient through."""
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 3, 5, 6))
    x = pdt.tensor(a, device=device, requires_grad=True)
    y = x.to(memory_format=pdt.channels_last)
    assert y.is_contiguous(memory_format=pdt.channels_last) and y.stride() == (90, 1, 18, 3)
    np.testing.assert_array_equal(y.detach().cpu().numpy(), a)
    assert y.to(memory_format=pdt.channels_last) is y
    assert x.to(device, memory_format=pdt.contiguous_format) is x
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), 2 * a)
    with pytest.raises(ValueError, match=r"to\(\): required rank 4 tensor to use "
                                         r"channels_last format, got shape \(2, 3\)"):
        pdt.ones(2, 3, device=device).to(memory_format=pdt.channels_last)
    net = pdt.nn.Sequential(pdt.nn.Conv2d(3, 4, 3), pdt.nn.Flatten(), pdt.nn.LazyLinear(2))
    net(pdt.ones(1, 3, 5, 6))
    weight, bias = net[0].weight, net[0].bias
    before = net(pdt.tensor(a[:1], dtype=pdt.float32))
    net.to(device, memory_format=pdt.channels_last)
    assert net[0].weight is weight and weight.is_contiguous(memory_format=pdt.channels_last)
    assert bias.is_contiguous() and net[2].weight.is_contiguous()  # not 4-d: unchanged
    after = net(pdt.tensor(a[:1], dtype=pdt.float32, device=device))
    np.testing.assert_allclose(after.detach().cpu().numpy(), before.detach().numpy(),
                               rtol=1e-5, atol=1e-6)  # float32, another device's GEMM
    torch = torch_or_skip()
    assert y.stride() == torch.zeros(2, 3, 5, 6).to(memory_format=torch.channels_last).stride()


def test_the_methods_are_the_c_methods_and_take_the_format_by_keyword_only(device):
    """clone/contiguous/is_contiguous/to take memory_format in C (no Python wrapper, one
    call per op), keyword-only as PyTorch's: a positional format is a TypeError."""
    for name in ("clone", "contiguous", "is_contiguous", "to"):
        assert type(getattr(pdt.Tensor, name)).__name__ == "method_descriptor", name
    x = pdt.ones(2, 3, 4, 5, device=device)
    cl = x.contiguous(memory_format=pdt.channels_last)
    assert cl.is_contiguous(memory_format=pdt.channels_last)
    assert cl.is_contiguous(memory_format="channels_last")
    assert not cl.is_contiguous() and cl.contiguous(memory_format="channels_last") is cl
    for name in ("clone", "contiguous", "is_contiguous"):
        with pytest.raises(TypeError, match=rf"{name}\(\) takes 0 positional arguments but 1 "
                                            r"were given \(memory_format= is keyword-only\)"):
            getattr(x, name)(pdt.channels_last)
    with pytest.raises(TypeError, match=r"to\(\): memory_format must be a "
                                        r"pydevtensor.memory_format .*got 'NHWC'"):
        x.to(device, memory_format="NHWC")
    with pytest.raises(TypeError, match=r"is_contiguous\(\): argument 'memory_format' must "):
        x.is_contiguous(memory_format=None)  # PyTorch's: None is not a memory_format
    torch = torch_or_skip()
    t = torch.ones(2, 3, 4, 5)
    for name in ("clone", "contiguous", "is_contiguous"):
        with pytest.raises(TypeError):
            getattr(t, name)(torch.channels_last)


@pytest.mark.parametrize("name, dtype", [("float", "float32"), ("double", "float64"),
                                         ("half", "float16"), ("bfloat16", "bfloat16"),
                                         ("long", "int64"), ("int", "int32"), ("short", "int16"),
                                         ("char", "int8"), ("byte", "uint8"), ("bool", "bool")])
def test_the_dtype_methods_take_a_memory_format(device, name, dtype):
    """x.double(memory_format=channels_last) and its kin, as PyTorch's (they took no
    arguments): to(dtype, memory_format=...), the format keyword-only."""
    a = np.arange(120.0).reshape(2, 3, 4, 5) % 7
    x = pdt.tensor(a, device=device)
    y = getattr(x, name)(memory_format=pdt.channels_last)
    assert y.dtype.name == dtype and y.stride() == (60, 1, 15, 3)
    want = (a != 0) if dtype == "bool" else a  # small integers: exact in every dtype
    np.testing.assert_array_equal(y.float().cpu().numpy(), want.astype(np.float32))
    assert getattr(y, name)(memory_format=pdt.channels_last) is y
    assert getattr(y, name)().stride() == (60, 1, 15, 3)  # preserve_format by default
    assert getattr(y, name)(memory_format=pdt.contiguous_format).is_contiguous()
    with pytest.raises(TypeError, match=rf"{name}\(\) takes 0 positional arguments but 1 were "
                                        r"given \(memory_format= is keyword-only\)"):
        getattr(x, name)(pdt.channels_last)
    with pytest.raises(ValueError, match=r"required rank 4 tensor"):
        getattr(pdt.ones(2, 3, device=device), name)(memory_format=pdt.channels_last)


@pytest.mark.parametrize("shape", [(2, 3, 0, 2), (0, 3, 4, 5), (2, 0, 4, 5), (2, 3, 0, 2, 1)])
def test_empty_tensors_formats_match_torch(device, shape):
    """An empty tensor made in a format has torch's strides and is contiguous in it, as
    torch says; the default layout's answers match torch's too (every empty tensor is
    contiguous_format-contiguous, as torch's)."""
    torch = torch_or_skip()
    fmt = "channels_last" if len(shape) == 4 else "channels_last_3d"
    x, t = pdt.zeros(*shape, device=device), torch.zeros(*shape)
    y = x.contiguous(memory_format=getattr(pdt, fmt))
    u = t.contiguous(memory_format=getattr(torch, fmt))
    assert y.stride() == u.stride()
    for a, b, formats in ((x, t, (fmt, "contiguous_format")),
                          (y, u, (fmt, "contiguous_format"))):
        for f in formats:
            assert (a.is_contiguous(memory_format=getattr(pdt, f))
                    == b.is_contiguous(memory_format=getattr(torch, f))), (a.stride(), f)


@pytest.mark.parametrize("fmt", ["channels_last", "channels_last_3d"])
def test_empty_tensors_are_contiguous_in_both_formats(device, fmt):
    """An empty tensor made in a format, by empty(memory_format=) or to(memory_format=),
    has PyTorch's strides (the products of the sizes inside in the format's order, a
    zero size counted as 0: empty(memory_format=) counted it as 1) and is contiguous in
    that format and in the default one, as torch's (both were False for some of these:
    (0, 3, 4, 5) was not contiguous(), (2, 3, 0, 5) neither); an empty tensor of other
    strides is contiguous() but not in the format, as torch's too."""
    pf = getattr(pdt, fmt)
    order = (0, 2, 3, 1) if fmt == "channels_last" else (0, 2, 3, 4, 1)
    shapes = ([(0, 3, 4, 5), (2, 0, 4, 5), (2, 3, 0, 5), (2, 3, 4, 0), (0, 0, 0, 0)]
              if fmt == "channels_last" else
              [(0, 3, 4, 5, 6), (2, 0, 4, 5, 6), (2, 3, 4, 0, 6), (2, 3, 4, 5, 0)])
    for shape in shapes:
        want = [0] * len(shape)
        step = 1
        for d in reversed(order):
            want[d] = step
            step *= shape[d]
        for x in (pdt.empty(shape, memory_format=pf, device=device),
                  pdt.zeros(shape, device=device).to(memory_format=pf)):
            assert x.stride() == tuple(want), (shape, x.stride())
            assert x.is_contiguous() and x.is_contiguous(memory_format=pf), shape
            assert x.contiguous(memory_format=pf) is x
    odd = pdt.zeros(40, device=device).as_strided((0, 3, 4, 5) + (6,) * (len(order) - 4),
                                                   (7, 11, 3, 1) + (2,) * (len(order) - 4))
    assert odd.is_contiguous() and not odd.is_contiguous(memory_format=pf)


@pytest.mark.parametrize("fmt", ["channels_last", "contiguous_format", "preserve_format"])
def test_formats_of_strided_inputs_match_torch(device, fmt):
    """A transposed (not dense in any format) and a sliced input: the strides torch
    gives, the values unchanged, with a dtype change through to() as well."""
    torch = torch_or_skip()
    a = np.arange(2 * 3 * 4 * 6, dtype=np.float64).reshape(2, 3, 4, 6)
    x, t = pdt.tensor(a, device=device), torch.tensor(a)
    pf, tf = getattr(pdt, fmt), getattr(torch, fmt)
    for ours, theirs in ((x.transpose(2, 3), t.transpose(2, 3)), (x[:, :, 1:3], t[:, :, 1:3]),
                         (x.permute(0, 2, 3, 1), t.permute(0, 2, 3, 1))):
        got, want = ours.clone(memory_format=pf), theirs.clone(memory_format=tf)
        assert got.stride() == want.stride()
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
        got = ours.to(pdt.float32, memory_format=pf)
        want = theirs.to(torch.float32, memory_format=tf)
        assert got.dtype == pdt.float32 and got.stride() == want.stride()
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
        if fmt != "preserve_format":
            got, want = ours.contiguous(memory_format=pf), theirs.contiguous(memory_format=tf)
            assert got.stride() == want.stride()
            assert ours.is_contiguous(memory_format=pf) == theirs.is_contiguous(memory_format=tf)
            np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


def test_channels_last_copies_record_three_ops(device):
    """With grad, a channels-last copy is recorded as permute, copy, permute back (as
    the Python wrappers did), each node torch's name."""
    x = pdt.ones(2, 3, 4, 5, device=device, requires_grad=True)
    for y in (x.clone(memory_format=pdt.channels_last),
              x.contiguous(memory_format=pdt.channels_last),
              x.to(memory_format=pdt.channels_last)):
        names = []
        node = y.grad_fn
        while node is not None and type(node).__name__ != "AccumulateGrad":
            names.append(type(node).__name__)
            node = node.next_functions[0][0]
        assert names == ["PermuteBackward0", "CloneBackward0", "PermuteBackward0"]
    z = x.transpose(0, 1).clone(memory_format=pdt.contiguous_format)
    assert type(z.grad_fn).__name__ == "CloneBackward0" and z.is_contiguous()


def test_convert_conv_weight_memory_format(device):
    # PyTorch's nn.utils.convert_conv2d/3d_weight_memory_format: the weights of the
    # 2-d (3-d) convolutions, transposed ones too, in the format, the Parameters kept,
    # the values the same; other layers left as they are
    from pydevtensor import nn
    net = nn.Sequential(nn.Conv2d(2, 3, 2), nn.Sequential(nn.ConvTranspose2d(3, 2, 2)),
                        nn.Conv3d(2, 2, 2), nn.ConvTranspose3d(2, 1, 1), nn.Conv1d(2, 2, 1),
                        nn.Linear(2, 2)).to(device)
    params = list(net.parameters())
    before = [p.detach().cpu().numpy().copy() for p in params]
    assert nn.utils.convert_conv2d_weight_memory_format(net, pdt.channels_last) is net
    assert net[0].weight.stride() == (8, 1, 4, 2)  # (O, I, H, W) = (3, 2, 2, 2), C last
    assert net[1][0].weight.stride() == (8, 1, 4, 2)
    assert net[2].weight.stride() == (16, 8, 4, 2, 1) and net[4].weight.stride() == (2, 1, 1)
    nn.utils.convert_conv3d_weight_memory_format(net, pdt.channels_last_3d)
    assert net[2].weight.stride() == (16, 1, 8, 4, 2) and net[0].weight.stride() == (8, 1, 4, 2)
    assert net[3].weight.is_contiguous(memory_format=pdt.channels_last_3d)
    assert list(net.parameters()) == params and all(p.requires_grad for p in params)
    for p, b in zip(net.parameters(), before):
        np.testing.assert_array_equal(p.detach().cpu().numpy(), b)
    nn.utils.convert_conv2d_weight_memory_format(net, pdt.contiguous_format)
    assert net[0].weight.stride() == (8, 4, 2, 1)
    with pytest.raises(ValueError, match="channels_last_3d"):
        nn.utils.convert_conv2d_weight_memory_format(net, pdt.channels_last_3d)
