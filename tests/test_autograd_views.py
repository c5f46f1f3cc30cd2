"""Autograd through in-place ops on views (Note [views and their base] in
csrc/python/autograd_view.c): the same scripts run on pydevtensor (every device) and on
PyTorch (CPU), in float64; their gradients must be equal.  Also Tensor._base and
_is_view(), and the in-place ops PyTorch refuses (leaves, views of leaves, views made
in no_grad mode, views from ops with several outputs)."""
import re

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import TORCH_CHECKED, torch_or_skip

F64 = {"dtype": "float64"}


def _t(lib, data, device, grad=False):
    dev = {} if lib is not pdt else {"device": device}
    return lib.tensor(np.asarray(data, dtype=np.float64), requires_grad=grad, **dev)


def _zeros(lib, shape, device):
    return _t(lib, np.zeros(shape), device)


def _w(lib, device, n=2):
    return _t(lib, np.arange(1.0, n + 1), device, grad=True)


# Each script: (lib, device) -> (output to backward, tensors whose .grad is compared).
def s_iadd_slice(lib, d):
    a, w = _zeros(lib, 4, d), _w(lib, d)
    a[1:3] += w * 2
    return (a * a).sum(), [w]


def s_select_mul_(lib, d):
    a, w = _t(lib, [1.0, 2, 3, 4], d), _w(lib, d, 1)
    a[0].mul_(w[0])
    return (a * 3).sum(), [w]


def s_narrow_copy_(lib, d):
    a, w = _zeros(lib, 4, d), _w(lib, d)
    a.narrow(0, 1, 2).copy_(w)
    return (a * a).sum(), [w]


def s_view_row_add_(lib, d):
    a, w = _t(lib, [1.0, 2, 3, 4], d), _w(lib, d)
    a.view(2, 2)[0].add_(w)
    return (a * a).sum(), [w]


def s_diagonal_copy_(lib, d):
    a, w = _zeros(lib, (2, 2), d), _w(lib, d)
    a.diagonal().copy_(w)
    return (a * _t(lib, [[1.0, 2], [3, 4]], d)).sum(), [w]


def s_t_setitem(lib, d):
    a, w = _zeros(lib, (2, 3), d), _w(lib, d)
    a.t()[1:3, 0] = w
    return (a * a).sum(), [w]


def s_unsqueeze_mul_(lib, d):
    a, w = _t(lib, [1.0, 2], d), _w(lib, d)
    a.unsqueeze(0).mul_(w)
    return (a * a * a).sum(), [w]


def s_masked_setitem_of_view(lib, d):
    a, w = _zeros(lib, (2, 2), d), _w(lib, d)
    a[0][lib.tensor([True, False])] = w[1:] * 3
    return (a * a).sum(), [w]


def s_index_put_not_a_view(lib, d):
    a, w = _zeros(lib, 4, d), _w(lib, d)
    a[lib.tensor([0, 2])] = w * w
    return (a * 2).sum(), [w]


def s_the_view_itself_after(lib, d):
    a, w = _zeros(lib, 4, d), _w(lib, d)
    v = a[1:3]
    v.add_(w)
    return (v * 3 * v).sum(), [w]


def s_sibling_view(lib, d):
    a, w = _t(lib, [1.0, 2, 3, 4], d), _w(lib, d)
    v1, v2 = a[0:2], a[1:3]
    v1.mul_(w)
    return (v2 * v2).sum() + a.sum(), [w]


def s_view_of_view_in_graph(lib, d):
    x, w = _t(lib, [[1.0, 2], [3, 4]], d, grad=True), _w(lib, d)
    y = x * 2
    y[1][0:2].mul_(w)
    return (y * y).sum(), [x, w]


def s_base_changed_then_view(lib, d):
    x = _t(lib, [1.0, 2, 3, 4], d, grad=True)
    y = x.sin()
    v = y[1:]
    y.mul_(3)
    return (v * v).sum(), [x]


def s_twice_through_views(lib, d):
    x, w = _t(lib, [1.0, 2, 3, 4], d, grad=True), _w(lib, d)
    y = x * 1
    y[0:2].mul_(w)
    y[1:3].add_(w * w)
    y.view(2, 2).t()[0].mul_(y[3].clone())
    return (y * y).sum(), [x, w]


def s_saved_view_then_base_changed(lib, d):
    x = _t(lib, [1.0, 2, 3, 4], d, grad=True)
    y = x * 1
    y.view(2, 2).t()[0].mul_(y[3])  # y[3] saved, then changed by the same op
    return (y * y).sum(), [x]


def s_expand_read_after_change(lib, d):
    x = _t(lib, [2.0], d, grad=True)
    y = x * 1
    e = y.expand(3)
    y.mul_(5)
    return (e * _t(lib, [1.0, 2, 3], d)).sum(), [x]


def s_transpose_in_graph(lib, d):
    x, w = _t(lib, [[1.0, 2, 3], [4, 5, 6]], d, grad=True), _w(lib, d, 3)
    y = x.sin()
    y.t()[:, 1].div_(w)
    return (y * y).sum(), [x, w]


def s_double_backward(lib, d):
    x = _t(lib, [1.0, 2, 3], d, grad=True)
    y = x * x
    y[1:].mul_(x[:2])
    (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    return (g * g).sum(), [x]


SCRIPTS = [v for k, v in sorted(globals().items()) if k.startswith("s_")]


MODIFIED = "one of the variables needed for gradient computation has been modified by an " \
           "inplace operation"


def _grads(lib, script, device):
    """The leaves' gradients, or the message of the RuntimeError that refused them."""
    try:
        out, leaves = script(lib, device)
        out.backward()
    except RuntimeError as e:
        return str(e)
    return [None if t.grad is None else np.asarray(t.grad.tolist()) for t in leaves]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.__name__[2:])
def test_gradients_through_in_place_ops_on_views_match_torch(device, script):
    """Equal gradients; where torch refuses (a saved tensor modified since), so must
    pydevtensor."""
    torch = torch_or_skip()
    got = _grads(pdt, script, device)
    want = _grads(torch, script, None)
    if isinstance(want, str) or isinstance(got, str):
        assert isinstance(want, str) and isinstance(got, str), (got, want)
        assert want.startswith(MODIFIED) and got.startswith(MODIFIED), (got, want)
        return
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_a_base_without_grad_joins_the_graph(device):
    a, w = _zeros(pdt, 4, device), _w(pdt, device)
    a[1:3] += w * 2
    assert a.requires_grad and not a.is_leaf and a.grad_fn.name() == "CopySlices"
    a.sum().backward()
    assert w.grad.tolist() == [2.0, 2.0]
    b = _zeros(pdt, 4, device)
    v = b[1:3]
    v.add_(w)
    assert b.grad_fn.name() == "CopySlices" and v.grad_fn.name() == "AsStridedBackward0"
    c = _zeros(pdt, 4, device)
    sibling = c[2:]
    c[:3].add_(w[0])  # the sibling now depends on w too
    assert sibling.requires_grad and sibling.grad_fn.name() == "AsStridedBackward0"


def test_base_and_is_view_as_torch():
    torch = torch_or_skip()
    for lib in (pdt, torch):
        a = lib.zeros(4)
        m = a.view(2, 2)
        views = [a[1:3], a[0], a.view(2, 2), a.unsqueeze(0), a.narrow(0, 1, 2), m.t(),
                 m.diagonal(), a.expand(2, 4), m.permute(1, 0), m.transpose(0, 1), a[None],
                 a.split(2)[1], a.chunk(2)[0], m.unbind(1)[1], m[1][0:1], a.reshape(2, 2),
                 m.flatten(), m.squeeze()]
        assert all(v._is_view() and v._base is a for v in views), lib
        for not_view in (a, a.detach(), a.clone(), a * 1, m.t().reshape(4), a[[0, 1]],
                         a[a > 0]):
            assert not not_view._is_view() and not_view._base is None
    with pytest.raises(AttributeError):
        pdt.zeros(2)[0]._base = None


def test_the_no_grad_fast_path_keeps_no_graph(device):
    a, b = _zeros(pdt, 4, device), _w(pdt, device).detach()
    a[1:3] += b
    a.add_(1)
    assert not a.requires_grad and a.grad_fn is None and a.tolist() == [1, 2, 3, 1]
    w = _w(pdt, device)
    with pdt.no_grad():
        v = a[1:3]
        v.add_(w)  # both in no_grad: allowed, not recorded
    assert not a.requires_grad and a.tolist() == [1, 3, 5, 1]


def _refusals(lib, device):
    w = _w(lib, device, 3)

    def leaf():
        w.add_(1)

    def view_of_leaf():
        w[0].add_(1)

    def no_grad_view():
        a = _zeros(lib, 4, device)
        with lib.no_grad():
            v = a[1:]
        v.mul_(w)

    def split_view():
        a = _zeros(lib, 4, device) * w.sum()
        a.split(2)[0].add_(1)

    def split_of_base_without_grad():
        a = _zeros(lib, 4, device)
        a.split(2)[1].add_(w[:2])

    def unbind_used_after_base_changed():
        a = _zeros(lib, (2, 2), device) + w[0]
        r = a.unbind(0)[0]
        a.mul_(2)
        return r * 2

    return {"leaf": (leaf, "a leaf Variable that requires grad is being used in an in-place"),
            "view_of_leaf": (view_of_leaf, "a view of a leaf Variable that requires grad is "
                                           "being used in an in-place operation"),
            "no_grad_view": (no_grad_view, "A view was created in no_grad mode and is being "
                                           "modified inplace with grad mode enabled"),
            "split_view": (split_view, "Output 0 of Split(Backward0)? is a view and is being modified "
                                       "inplace. This view is the output of a function that "
                                       "returns multiple views"),
            "split_of_base_without_grad": (split_of_base_without_grad,
                                           "This view is the output of a function that "
                                           "returns multiple views"),
            "unbind_used_after_base_changed": (unbind_used_after_base_changed,
                                               "Output 0 of Unbind(Backward0)? is a view and "
                                               "its base or "
                                               "another view of its base has been modified "
                                               "inplace")}


@pytest.mark.parametrize("case", sorted(_refusals(pdt, "cpu")))
def test_refused_in_place_ops_as_torch(device, case):
    torch = torch_or_skip()
    for lib, dev in ((torch, None), (pdt, device)):
        f, msg = _refusals(lib, dev)[case]
        with pytest.raises(RuntimeError, match=msg):
            f()


def test_refusals_leave_the_tensors_unchanged(device):
    w = _w(pdt, device, 3)
    with pytest.raises(RuntimeError):
        w[0].add_(1)
    with pytest.raises(RuntimeError):
        w.mul_(2)
    assert w.tolist() == [1.0, 2.0, 3.0] and w._version == 0
    with pdt.no_grad():  # allowed under no_grad, as in torch
        w[0].add_(1)
        w.mul_(2)
    assert w.tolist() == [4.0, 4.0, 6.0] and w.is_leaf


# ---- saved tensors modified in place (item 3: every op that saves checks versions) ----

SAVING = {  # op whose backward needs a saved input or output
    "exp": lambda x: x.exp(),  # saves its output
    "sigmoid": lambda x: x.sigmoid(),
    "tanh": lambda x: x.tanh(),
    "sqrt": lambda x: (x * x + 1).sqrt(),
    "log": lambda x: x.log(),  # saves its input
    "sin": lambda x: x.sin(),
    "mul": lambda x: x * x,
    "div": lambda x: 1 / x,
    "pow": lambda x: x ** 3,
    "matmul": lambda x: x.view(2, 2) @ x.view(2, 2),
    "relu": lambda x: x.relu(),
    "softmax": lambda x: x.softmax(0),
    "prod": lambda x: x.prod(),
    "norm": lambda x: x.norm(),
    "max": lambda x: x.max(),
    "abs": lambda x: x.abs(),
    "log_softmax": lambda x: x.log_softmax(0),
}


def _modify(y, x, how):
    if how == "output":
        y.add_(1)  # the result itself (or its base) changed
    elif how is None:
        pass
    elif how == "input":
        x.add_(1)
    else:  # through a view of the saved input
        x[1:3].mul_(2)


def _saving_script(lib, device, op, how):
    leaf = _t(lib, [0.5, 1.0, 1.5, 2.0], device, grad=True)
    x = leaf * 1
    y = SAVING[op](x)
    _modify(y, x, how)
    y.sum().backward()
    return leaf.grad


# pydevtensor's backward needs the input where PyTorch's does not (1 / x saves x; the
# softmaxes are written with a saved max): it refuses, never counts wrongly.
STRICTER = {("div", "input"), ("div", "input view"), ("softmax", "input"),
            ("softmax", "input view"), ("log_softmax", "input"), ("log_softmax", "input view")}


@pytest.mark.parametrize("how", ["output", "input", "input view"])
@pytest.mark.parametrize("op", sorted(SAVING))
def test_saved_tensors_modified_in_place_are_refused_as_torch(device, op, how):
    """Where PyTorch's backward needs the modified tensor it raises, and so must this
    (unless its graph does not need that tensor: then its gradient must be the right
    one, that of the values before the change); where PyTorch gives a gradient, this
    gives the same one (or refuses, for the few ops in STRICTER)."""
    torch = torch_or_skip()
    right = _saving_script(torch, None, op, None).numpy()  # nothing modified
    try:
        _saving_script(torch, None, op, how)
        torch_refuses = False
    except RuntimeError as e:
        assert MODIFIED in str(e)
        torch_refuses = True
    try:
        got = _saving_script(pdt, device, op, how)
    except RuntimeError as e:
        assert re.match(MODIFIED + r": \[pydevtensor\.(cuda\.)?DoubleTensor \[.*\]\] is at "
                        r"version \d+; expected version \d+ instead", str(e)), str(e)
        assert torch_refuses or (op, how) in STRICTER
        return
    np.testing.assert_allclose(np.asarray(got.tolist()), right, rtol=1e-12)


# ---- autograd.Function: mark_dirty on a view (item 5) ----

def _dirty_script(lib, device):
    class MulTwo(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            x.mul_(w)
            ctx.mark_dirty(x)
            ctx.save_for_backward(w)
            return x

        @staticmethod
        def backward(ctx, g):
            (w,) = ctx.saved_tensors
            return g * w, None

    class AddW(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            x.add_(w)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g, g

    x, w = _t(lib, [1.0, 2, 3, 4], device, grad=True), _t(lib, [5.0, 6], device, grad=True)
    a = x * 1
    v = a[1:3]
    MulTwo.apply(v, w.detach())  # a view of a tensor in the graph
    b = _zeros(lib, 4, device)
    AddW.apply(b[0:2], w)  # a view of a tensor that required no grad: b joins the graph
    assert a.grad_fn.name().endswith("CopySlices") and b.grad_fn.name().endswith("CopySlices")
    ((a * a).sum() + (b * b * a).sum() + (v * 3).sum()).backward()
    return np.asarray(x.grad.tolist()), np.asarray(w.grad.tolist())


def test_mark_dirty_on_views_moves_their_bases_as_torch(device):
    torch = torch_or_skip()
    for got, want in zip(_dirty_script(pdt, device), _dirty_script(torch, None)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_mark_dirty_on_a_view_of_a_leaf_is_refused(device):
    class Twice(pdt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    w = _w(pdt, device, 3)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        Twice.apply(w[1:])


# ---- second derivatives through in-place ops (item 6: create_graph=True) ----

def _v(lib, data, device):
    return lib.tensor(data, **({} if lib is not pdt else {"device": device}))


SECOND = {
    "mul_": lambda lib, x, d: (x * 1).mul_(x),
    "div_": lambda lib, x, d: (x * x).div_(x + 3),
    "pow_": lambda lib, x, d: (x * 1).pow_(3),
    "exp_": lambda lib, x, d: (x * 1).exp_(),
    "copy_": lambda lib, x, d: _zeros(lib, 3, d).copy_(x * x) * x,
    "masked_fill_": lambda lib, x, d: (x * x).masked_fill_(_v(lib, [True, False, False], d),
                                                           2.0) * x,
    "clamp_": lambda lib, x, d: (x * x).clamp_(max=4.0) * x,
    "index_add": lambda lib, x, d: _zeros(lib, 3, d).index_add(0, _v(lib, [0, 0, 2], d),
                                                               x * x) * x,
    "scatter_add": lambda lib, x, d: _zeros(lib, 3, d).scatter_add(0, _v(lib, [0, 0, 2], d),
                                                                   x * x) * x,
}


def _setitem(y, key, value):
    y[key] = value
    return y


def _view_mul_(y, x):
    y[1:].mul_(x[:2])
    return y


def _sibling(x):
    y = x * 1
    v = y[:2]
    y[1:].mul_(x[1:])
    return v * v


def _relu_(lib, x):
    y = x * x - 2
    lib.nn.functional.relu(y, inplace=True)
    return y * x


SECOND.update({
    "setitem_basic": lambda lib, x, d: _setitem(x * x, 0, x[1] * x[2]),
    "setitem_mask": lambda lib, x, d: _setitem(x * x, _v(lib, [True, False, True], d),
                                               x[:2] ** 3),
    "setitem_index": lambda lib, x, d: _setitem(x * x, _v(lib, [2, 0], d), x[:2] ** 3),
    "view_mul_": lambda lib, x, d: _view_mul_(x * x, x),
    "view_of_base_without_grad": lambda lib, x, d: _view_mul_(_t(lib, [1.0, 2, 3], d), x) * x,
    "sibling_view": lambda lib, x, d: _sibling(x),
    "relu_inplace": lambda lib, x, d: _relu_(lib, x),
})


def _second(lib, name, device):
    x = _t(lib, [1.0, 2.0, 3.0], device, grad=True)
    y = SECOND[name](lib, x, device)
    (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
    (h,) = lib.autograd.grad((g * g).sum(), x)
    return np.asarray(g.tolist()), np.asarray(h.tolist())


@pytest.mark.parametrize("name", sorted(SECOND))
def test_second_derivatives_through_in_place_ops_match_torch(device, name):
    # clamp_'s gradient at its bound (x * x == 4.0 at x = 2) changed in PyTorch
    torch = torch_or_skip(since=TORCH_CHECKED if name == "clamp_" else None)
    for got, want in zip(_second(pdt, name, device), _second(torch, name, None)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_private_write_kernels_refuse_what_requires_grad_in_grad_mode(device):
    """_index_put, _index_add and _basic_setitem write without recording: with grad
    mode on they refuse a destination or value that requires grad (the write would be
    missing from the graph); under no_grad they write."""
    C = pdt._C
    w = _w(pdt, device, 3)
    idx = _v(pdt, [0, 2], device)
    for call in (lambda dst, v: C._index_add(dst, 0, idx, v),
                 lambda dst, v: C._index_put(dst, 0, idx, v),
                 lambda dst, v: C._basic_setitem(dst, slice(0, 2), v)):
        with pytest.raises(RuntimeError, match=r"writes in place without recording the "
                                               r"gradient.*a value that requires grad.*"
                                               r"float64 \(3,\) on "):
            call(_zeros(pdt, 3, device), w[:2] * 1)
        with pytest.raises(RuntimeError, match="a destination that requires grad"):
            call(w * 1, _zeros(pdt, 2, device))
        dst = _zeros(pdt, 3, device)
        with pdt.no_grad():
            call(dst, w[:2])
        assert dst.tolist() != [0.0, 0.0, 0.0] and not dst.requires_grad


# ---- no reference cycle through a view's base ----

def _rnn_into_buffer(device):
    W = _t(pdt, np.eye(3) * 0.5, device, grad=True)
    h = _zeros(pdt, (4, 3), device)
    h[0] = 1.0
    for i in range(1, 4):
        h[i] = (W @ h[i - 1]).tanh()  # saves the view h[i - 1], whose base then joins
    return h


def _own_view_operand(device):
    y = _t(pdt, [1.0, 2, 3, 4], device, grad=True) * 1
    y.mul_(y[0])
    y[1:3].clamp_(min=y[0], max=y[3])
    return y


@pytest.mark.parametrize("make", [_rnn_into_buffer, _own_view_operand])
def test_a_graph_not_run_backward_is_freed(device, make):
    """Nodes keep views as aliases without their base (tensors are not tracked by the
    collector: a base whose later node leads back to a Node that kept its view would
    be a cycle nothing frees)."""
    import gc
    import weakref
    ref = weakref.ref(make(device).grad_fn)
    gc.collect()
    assert ref() is None
