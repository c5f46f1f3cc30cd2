"""Elementwise ops on transposed and permuted inputs (Note [memory order] in
csrc/core/pdt_tensor.h): the result takes the memory order of its first tensor operand
that has the result's shape, as PyTorch's results do, and as NumPy's empty_like(order='K')
lays it out; contiguous operands keep giving contiguous results.  The same rule on every
device.  Values against NumPy in float64: float32 within 1e-6 + 1e-6 |ref| (exp, tanh,
sigmoid within 2e-6 relative), float64 within 1e-12 + 1e-12 |ref|, integers and bools
exactly.
"""
import numpy as np
import pytest

import pydevtensor as pdt

from conftest import DEVICES

RNG = np.random.default_rng(7)


def dense_strides_like(arr):
    """The element strides NumPy's empty_like(order='K') gives arr's shape: arr's memory
    order, dense."""
    e = np.empty_like(arr, order="K")
    return tuple(s // e.itemsize for s in e.strides)


def check(got, ref, dtype="float32", rtol=1e-6, atol=1e-6):
    got = np.asarray(got.cpu()).astype(np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if dtype == "float32":
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol)
    elif dtype == "float64":
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_array_equal(got, ref)


VIEWS = {"T": lambda a: a.T, "T_sliced": lambda a: a[::2].T}  # the same on either side
SHAPES = {"T": (37, 53), "permute3": (5, 7, 9), "permute3b": (5, 7, 9), "T_sliced": (38, 21),
          "permute_unit": (6, 1, 9)}
AXES = {"permute3": (2, 0, 1), "permute3b": (1, 2, 0), "permute_unit": (2, 1, 0)}


def pair(device, layout, dtype="float32"):
    shape = SHAPES[layout]
    a = RNG.standard_normal(shape).astype(dtype)
    b = RNG.standard_normal(shape).astype(dtype)
    ta, tb = pdt.tensor(a, device=device), pdt.tensor(b, device=device)
    if layout in AXES:  # permutations (permute_unit: around a size-1 dim)
        axes = AXES[layout]
        return np.transpose(a, axes), np.transpose(b, axes), ta.permute(*axes), tb.permute(*axes)
    f = VIEWS[layout]
    return f(a), f(b), f(ta), f(tb)


BINARY = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
          "div": lambda x, y: x / y}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", list(SHAPES))
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_follows_its_operands(device, layout, op):
    a, b, ta, tb = pair(device, layout)
    r = BINARY[op](ta, tb)
    check(r, BINARY[op](a.astype(np.float64), b))
    assert r.stride() == dense_strides_like(a)
    assert not r.is_contiguous()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", list(SHAPES))
def test_comparison_scalar_and_maximum(device, layout):
    a, b, ta, tb = pair(device, layout)
    r = ta > tb
    check(r, a > b, "bool")
    assert r.stride() == dense_strides_like(a)
    r = ta * 2.5
    check(r, a.astype(np.float64) * np.float32(2.5))
    assert r.stride() == dense_strides_like(a)
    r = pdt.maximum(ta, tb)
    check(r, np.maximum(a, b))
    assert r.stride() == dense_strides_like(a)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", list(SHAPES))
@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid", "relu", "neg", "abs", "clamp"])
def test_unary_follows_its_input(device, layout, op):
    a, _, ta, _ = pair(device, layout)
    a64 = a.astype(np.float64)
    ref = {"exp": np.exp(a64), "tanh": np.tanh(a64), "sigmoid": 1 / (1 + np.exp(-a64)),
           "relu": np.maximum(a64, 0), "neg": -a64, "abs": np.abs(a64),
           "clamp": np.clip(a64, -0.5, 0.5)}[op]
    r = {"exp": pdt.exp, "tanh": pdt.tanh, "sigmoid": pdt.sigmoid, "relu": pdt.relu,
         "neg": lambda t: -t, "abs": pdt.abs,
         "clamp": lambda t: pdt.clamp(t, -0.5, 0.5)}[op](ta)
    check(r, ref, rtol=2e-6)
    assert r.stride() == dense_strides_like(a)


@pytest.mark.parametrize("device", DEVICES)
def test_first_full_shape_operand_decides(device):
    a, b, ta, tb = pair(device, "T")
    c = np.ascontiguousarray(b)
    tc = pdt.tensor(c, device=device)
    r = ta + tc  # the transposed operand comes first: the result is transposed
    check(r, a.astype(np.float64) + c)
    assert r.stride() == dense_strides_like(a)
    r = tc + ta  # the contiguous one comes first: row-major
    check(r, c.astype(np.float64) + a)
    assert r.is_contiguous()
    bias = RNG.standard_normal(a.shape[1]).astype(np.float32)
    r = pdt.tensor(bias, device=device) + ta  # the bias does not have the result's shape
    check(r, bias.astype(np.float64) + a)
    assert r.stride() == dense_strides_like(a)


@pytest.mark.parametrize("device", DEVICES)
def test_contiguous_inputs_give_contiguous_results(device):
    a = RNG.standard_normal((6, 4)).astype(np.float32)
    t = pdt.tensor(a, device=device)
    for r in (t + t, pdt.exp(t), t * 2, t > 0, t[:, :1] + t, t + 1.0):
        assert r.is_contiguous()


@pytest.mark.parametrize("device", DEVICES)
def test_out_keeps_its_own_layout(device):
    a, b, ta, tb = pair(device, "T")
    out = pdt.empty(*a.shape, device=device)
    pdt.add(ta, tb, out=out)
    assert out.is_contiguous()
    check(out, a.astype(np.float64) + b)
    ta.add_(tb)  # in place into a transposed tensor
    check(ta, a.astype(np.float64) + b)


@pytest.mark.parametrize("device", DEVICES)
def test_promotion_and_half(device):
    a, _, ta, _ = pair(device, "T")
    ti = (ta * 10).int()
    r = ti + 0.5
    assert r.dtype == pdt.float32
    check(r, np.trunc(a.astype(np.float32) * 10) + 0.5)
    h = pdt.tensor(np.ascontiguousarray(a.T).astype(np.float16), device=device).T
    r = h * h  # computed in float32, rounded into a transposed float16 result
    assert r.dtype == pdt.float16 and r.stride() == dense_strides_like(a)
    ref = (a.astype(np.float16).astype(np.float32) ** 2).astype(np.float16)
    np.testing.assert_array_equal(np.asarray(r.cpu()), ref)


@pytest.mark.parametrize("device", DEVICES)
def test_results_of_transposed_ops_flow_on(device):
    """A transposed result feeds views, reductions, products, NumPy and autograd."""
    a, b, ta, tb = pair(device, "T")
    r = ta + tb
    ref = a.astype(np.float64) + b
    check(r.T, ref.T)
    check(r.reshape(-1), ref.reshape(-1))
    check(r.sum(0), ref.sum(0), rtol=1e-5)
    # a sum of 37 float32 products: within 1e-5 of its terms' scale
    check(r @ tb.T, ref @ b.T.astype(np.float64), rtol=1e-5, atol=1e-4)
    check(r.contiguous(), ref)
    w = pdt.tensor(np.ascontiguousarray(a.T), device=device, requires_grad=True)
    y = (w.T * tb).sum()
    y.backward()
    check(w.grad, b.T)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", list(SHAPES))
def test_where_and_masked_fill_follow_their_operands(device, layout):
    """where(cond, a, b) takes the order of the first of cond, a and b with the result's
    shape (PyTorch's operand order); masked_fill(x, mask, v) takes x's (PyTorch clones x
    first); tril and triu give row-major results.  Values exact."""
    a, b, ta, tb = pair(device, layout)
    mask = np.ascontiguousarray(a > 0)
    tmask = pdt.tensor(mask, device=device)  # a row-major condition
    cases = [
        (pdt.where(ta > tb, ta, tb), np.where(a > b, a, b), True),
        (pdt.where(ta > 0, ta, 0.0), np.where(a > 0, a, 0), True),  # a number for other
        (pdt.where(ta > 0, 1.0, tb), np.where(a > 0, 1, b), True),  # and for input
        (pdt.where(ta > 0, ta, tb.double()),  # two dtypes: the Python path
         np.where(a > 0, a.astype(np.float64), b.astype(np.float64)), True),
        (pdt.where(tmask, ta, tb), np.where(mask, a, b), False),  # the condition leads
        (ta.masked_fill(tb > 0, -1.0), np.where(b > 0, -1, a), True),
        (ta.masked_fill(tmask, -1.0), np.where(mask, -1, a), True),  # x leads
    ]
    if a.ndim == 2:
        cases += [(pdt.tril(ta), np.tril(a), False), (ta.triu(1), np.triu(a, 1), False)]
    for k, (got, ref, like_a) in enumerate(cases):
        np.testing.assert_array_equal(np.asarray(got.cpu()), ref)
        if like_a:
            assert got.stride() == dense_strides_like(a), k
        else:
            assert got.is_contiguous(), k
    mask3 = np.ascontiguousarray(mask[None]).repeat(2, 0)  # cond wider than the values
    got = pdt.where(pdt.tensor(mask3, device=device), ta, tb)
    np.testing.assert_array_equal(np.asarray(got.cpu()), np.where(mask3, a, b))
    assert got.is_contiguous()


@pytest.mark.parametrize("device", DEVICES)
def test_where_with_grad_in_memory_order(device):
    a, b, ta, tb = pair(device, "permute3")
    x = ta.detach().requires_grad_()
    y = pdt.where(x > 0, x * 2, tb)
    assert y.stride() == dense_strides_like(a)
    y.sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad.cpu()), np.where(a > 0, 2.0, 0.0))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_reductions_read_in_memory_order(device, dtype):
    """Reductions over several dims read them in memory order (Note [reduced dims in
    memory order] in csrc/core/pdt_reduce.c): a.T.sum() is a.sum() to the bit, as a
    permuted view's is its source's; max, min and the rest agree with NumPy; argmax and
    argmin return the flat index in the view's own (logical) order, ties included."""
    a = (RNG.standard_normal((37, 5, 53)) * 100).astype(dtype)
    t = pdt.tensor(a, device=device)
    views = [(t.permute(2, 0, 1), a.transpose(2, 0, 1)), (t.permute(1, 2, 0), a.transpose(1, 2, 0)),
             (t[:, :, ::2].permute(2, 1, 0), a[:, :, ::2].transpose(2, 1, 0))]
    for v, ref in views:
        check(v.sum(), ref.astype(np.float64).sum(), dtype, rtol=1e-5)
        check(v.sum((0, 2)), ref.astype(np.float64).sum((0, 2)), dtype, rtol=1e-5)
        check(v.sum((0, 2), keepdim=True), ref.astype(np.float64).sum((0, 2), keepdims=True),
              dtype, rtol=1e-5)
        for name in ("max", "min"):
            check(getattr(v, name)(), getattr(ref, name)(), "int64")
        for name in ("argmax", "argmin"):
            assert int(getattr(v, name)()) == int(getattr(ref, name)()), name
    # a permuted view of a dense tensor: the same elements in the same memory order
    for v, _ in views[:2]:
        assert float(v.sum()) == float(t.sum())
    u = t.reshape(37, 1, 265)
    assert float(u.permute(2, 1, 0).sum()) == float(t.sum())  # around a size-1 dim
    ties = np.zeros((3, 4), dtype)
    ties[0, 2] = ties[1, 0] = 5  # a.T's first maximum is a[1, 0]: flat index 1 of a.T
    ties[2, 1] = ties[0, 3] = -5
    tt = pdt.tensor(ties, device=device).T
    assert int(tt.argmax()) == int(ties.T.argmax()) == 1
    assert int(tt.argmin()) == int(ties.T.argmin())


COPIES = {
    "clone": (lambda t: t.clone(), lambda a: a),
    "to_float64": (lambda t: t.to(pdt.float64), lambda a: a.astype(np.float64)),
    "double": (lambda t: t.double(), lambda a: a.astype(np.float64)),
    "to_int32": (lambda t: t.to(pdt.int32), lambda a: a.astype(np.int32)),
    "to_bool": (lambda t: t.to(pdt.bool), lambda a: a.astype(bool)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", list(SHAPES))
@pytest.mark.parametrize("op", list(COPIES))
def test_copies_within_a_device_keep_the_order(device, layout, op):
    """clone() and to(dtype) keep the source's memory order (PyTorch's preserve_format,
    NumPy's astype(order='K')); values exact (the casts are exact or truncate the same way
    as NumPy's for these values)."""
    a, _, ta, _ = pair(device, layout)
    a = a * 10
    ta = ta * 10
    ours, ref = COPIES[op]
    r = ours(ta)
    expect = ref(a)
    assert r.stride() == dense_strides_like(expect)
    assert not r.is_contiguous()
    np.testing.assert_array_equal(np.asarray(r.cpu()), expect)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [None, "float64", "float16", "int32"])
def test_copy_between_layouts(device, dtype):
    """copy_ between every pair of layouts, in one dtype and with a cast: dense ones
    alike (a.T into b.T) run as one row, others (a.T into a row-major tensor, a sliced
    view, size-1 dims) element by element; the values are NumPy's either way.  300 x 257
    takes the CPU's parallel cast."""
    a = RNG.standard_normal((300, 257)).astype(np.float32) * 100
    ref = a if dtype is None else a.astype(dtype)
    layouts = {
        "row": lambda t: t,
        "T": lambda t: t.T,
        "T_rowmajor": lambda t: (np.ascontiguousarray(t.T) if isinstance(t, np.ndarray)
                                 else t.T.contiguous()),
        "flipped3": lambda t: (t.reshape(300, 1, 257).transpose(2, 1, 0)
                               if isinstance(t, np.ndarray)
                               else t.reshape(300, 1, 257).permute(2, 1, 0)),
        "sliced": lambda t: t[::2].T,
    }
    for src_name, src_view in layouts.items():
        src = src_view(pdt.tensor(a, device=device))
        want = src_view(ref)
        for dst_name, dst_view in layouts.items():
            dt = pdt.float32 if dtype is None else getattr(pdt, dtype)
            shape = (300, 257) if dst_name != "sliced" else (600, 257)
            dst = dst_view(pdt.zeros(*shape, dtype=dt, device=device))
            if tuple(dst.shape) != tuple(src.shape):
                continue
            dst.copy_(src)
            np.testing.assert_array_equal(np.asarray(dst.cpu()), want,
                                          err_msg=f"{src_name} -> {dst_name}")


@pytest.mark.parametrize("device", DEVICES)
def test_contiguous_and_crossing_devices_give_row_major(device):
    a, _, ta, _ = pair(device, "permute3")
    for r in (ta.contiguous(), ta.cpu() if device != "cpu" else ta.contiguous()):
        assert r.is_contiguous()
        np.testing.assert_array_equal(np.asarray(r.cpu()), a)
    c = pdt.tensor(np.ascontiguousarray(a), device=device)
    assert c.clone().is_contiguous() and c.to(pdt.float64).is_contiguous()


@pytest.mark.parametrize("device", DEVICES)
def test_copies_with_grad(device):
    """contiguous() of a tensor that needs grad is row-major and records a copy; clone()
    keeps the order; the grads have the leaf's shape and values."""
    x = pdt.tensor(RNG.standard_normal((4, 6)).astype(np.float32), device=device,
                   requires_grad=True)
    c = x.T.contiguous()
    d = x.T.clone()
    assert c.is_contiguous() and c.grad_fn is not None
    assert d.stride() == (1, 6) and d.grad_fn is not None
    w = RNG.standard_normal((6, 4)).astype(np.float32)
    (c * pdt.tensor(w, device=device) + d * 2).sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad.cpu()), w.T + 2, rtol=1e-6, atol=1e-6)


LIKES = {"zeros_like": 0.0, "ones_like": 1.0, "full_like": 2.5, "empty_like": None,
         "rand_like": "rand", "randn_like": "randn", "randint_like": "randint"}


def _like(name, t, **kw):
    if name == "full_like":
        return pdt.full_like(t, 2.5, **kw)
    if name == "randint_like":
        return pdt.randint_like(t, 7, **kw)
    return getattr(pdt, name)(t, **kw)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", list(SHAPES))
@pytest.mark.parametrize("name", list(LIKES))
def test_likes_keep_the_order_and_draw_the_same_numbers(device, layout, name):
    """*_like(x) takes x's memory order by default (PyTorch's preserve_format, as clone()
    here), row-major with memory_format=contiguous_format; the numbers drawn do not depend on
    the layout: rand_like(x) is rand(x.shape) from the same seed."""
    a, _, ta, _ = pair(device, layout)
    pdt.manual_seed(3)
    r = _like(name, ta)
    assert r.stride() == dense_strides_like(a) and tuple(r.shape) == a.shape
    assert r.device == ta.device and r.dtype == ta.dtype
    pdt.manual_seed(3)
    c = _like(name, ta, memory_format=pdt.contiguous_format)
    assert c.is_contiguous()
    want = LIKES[name]
    if want is None:
        return
    if isinstance(want, str):
        pdt.manual_seed(3)
        args = (0, 7, tuple(a.shape)) if want == "randint" else (tuple(a.shape),)
        want = np.asarray(getattr(pdt, want)(*args, dtype=ta.dtype, device=device).cpu())
    np.testing.assert_array_equal(np.asarray(r.cpu()), np.broadcast_to(want, a.shape))
    np.testing.assert_array_equal(np.asarray(c.cpu()), np.broadcast_to(want, a.shape))


@pytest.mark.parametrize("device", DEVICES)
def test_likes_take_memory_formats(device):
    x = pdt.zeros(2, 3, 4, 5, device=device)
    for name in LIKES:
        r = _like(name, x, memory_format=pdt.channels_last)
        assert r.is_contiguous(memory_format=pdt.channels_last) and not r.is_contiguous()
        assert _like(name, r).stride() == r.stride()  # preserved
        g = _like(name, x.permute(0, 2, 3, 1), requires_grad=name not in ("randint_like",))
        assert g.is_leaf and g.stride() == (60, 5, 1, 20)
        with pytest.raises(pdt.InvalidArgumentError,
                           match=r"required rank 4 tensor to use channels_last format, got "
                                 r"shape \(3, 4, 5\)"):
            _like(name, x[0], memory_format=pdt.channels_last)
        with pytest.raises(TypeError, match="memory_format must be a pydevtensor.memory_format"):
            _like(name, x, memory_format="rows")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", list(SHAPES))
def test_leaf_grads_take_the_leafs_layout(device, layout):
    """PyTorch's gradient layout contract: a dense leaf's .grad has the leaf's strides (a
    transposed weight's grad is transposed), whatever layout the gradient arrived in; it
    stays so as later backwards add into it.  Values against NumPy."""
    a, b, ta, tb = pair(device, layout)
    if not ta.is_contiguous() and dense_strides_like(a) != ta.stride():
        pytest.skip("a leaf with gaps (sliced) has no dense layout to keep")
    w = ta.detach().requires_grad_()
    for k in (1, 2):
        (w * tb.contiguous()).sum().backward()  # the gradient arrives row-major
        assert w.grad.stride() == w.stride()
        check(w.grad, k * b)
    e = pdt.ones(3, 1, device=device).expand(3, 4).detach().requires_grad_()
    (e * 2).sum().backward()
    assert e.grad.is_contiguous()  # an overlapping leaf: no layout to keep


def _lerp_ref(s, e, w):
    """PyTorch's lerp formula; float32 NumPy rounds each step as the ops do."""
    return np.where(np.abs(w) < 0.5, s + w * (e - s), e - (e - s) * (np.float32(1) - w))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("weight", [0.3, 0.7, "tensor", "tensor_T"])
def test_lerp_follows_its_input(device, weight):
    # Note [lerp's layout]: input's layout, whichever formula; values bit for bit
    start = RNG.standard_normal((37, 53)).astype(np.float32).T
    end = RNG.standard_normal((53, 37)).astype(np.float32)
    w = (np.float32(weight) if isinstance(weight, float)
         else RNG.uniform(-0.5, 1.5, (53, 37)).astype(np.float32))
    ts = pdt.tensor(np.ascontiguousarray(start.T), device=device).T
    wt = (float(weight) if isinstance(weight, float) else
          pdt.tensor(w, device=device) if weight == "tensor" else
          pdt.tensor(np.ascontiguousarray(w.T), device=device).T)
    for e in (end, end[:1]):  # end of the result's shape, or broadcast
        got = pdt.lerp(ts, pdt.tensor(e, device=device), wt)
        assert got.stride() == dense_strides_like(start)
        np.testing.assert_array_equal(got.cpu().numpy(), _lerp_ref(start, e, w))
