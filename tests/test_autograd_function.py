"""autograd.Function (custom ops), Tensor.register_hook, retain_grad and retains_grad,
as PyTorch defines them: values in float64 against NumPy formulas (and torch when it
imports), the checks on what a backward returns, and the lifetime of ctx, saved
tensors and hooks (no leak, no cycle).
"""
import gc
import weakref

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import assert_close, torch_or_skip
from pydevtensor import autograd
from pydevtensor.autograd.function import once_differentiable


def t64(a, device="cpu", grad=False):
    return pdt.tensor(np.asarray(a, np.float64), device=device, requires_grad=grad)


class Exp(autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


class MulScaled(autograd.Function):
    """x * y * k, k a number: one gradient per argument, None for k."""

    @staticmethod
    def forward(ctx, x, y, k):
        ctx.save_for_backward(x, y)
        ctx.k = k
        ctx.seen_needs = ctx.needs_input_grad
        return x * y * k

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        gx = g * y * ctx.k if ctx.needs_input_grad[0] else None
        gy = g * x * ctx.k if ctx.needs_input_grad[1] else None
        return gx, gy, None


def test_function_values_names_and_needs_input_grad(device):
    a = np.array([0.5, -1.0, 2.0])
    b = np.array([3.0, 0.25, -2.0])
    x, y = t64(a, device, True), t64(b, device)
    out = MulScaled.apply(x, y, 3.0)
    assert out.grad_fn.name() == "MulScaledBackward" and out.requires_grad
    assert out.grad_fn.needs_input_grad == (True, False, False)
    assert out.grad_fn.seen_needs == (True, False, False)
    out.sum().backward()
    assert_close(x.grad, b * 3.0, "float64")
    assert y.grad is None
    e = Exp.apply(x)
    assert_close(e, np.exp(a), "float64")
    (g,) = autograd.grad(e.sum(), x)
    assert_close(g, np.exp(a), "float64")
    # no input requires grad, or no_grad: no node, the ctx still works in forward
    assert MulScaled.apply(y, y, 1.0).grad_fn is None
    with pdt.no_grad():
        assert Exp.apply(x).grad_fn is None


def test_function_against_torch_and_finite_differences():
    torch = torch_or_skip()
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))

    def run(lib, fn_base):
        class Cubic(fn_base):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_backward(x, y)
                return x ** 3 * y

            @staticmethod
            def backward(ctx, g):
                x, y = ctx.saved_tensors
                return 3 * x ** 2 * y * g, x ** 3 * g

        x = lib.tensor(a, requires_grad=True)
        y = lib.tensor(b, requires_grad=True)
        Cubic.apply(x, y).sum().backward()
        return x.grad, y.grad

    gx, gy = run(pdt, autograd.Function)
    tx, ty = run(torch, torch.autograd.Function)
    assert_close(gx, tx.numpy(), "float64")
    assert_close(gy, ty.numpy(), "float64")
    eps = 1e-6  # central differences of sum(x^3 y) in x[0, 0]
    f = lambda d: ((a + d) ** 3 * b).sum()  # noqa: E731
    e00 = np.zeros_like(a)
    e00[0, 0] = eps
    assert abs(gx.numpy()[0, 0] - (f(e00) - f(-e00)) / (2 * eps)) < 1e-6


def test_setup_context_form_multiple_outputs_and_non_differentiable(device):
    class SortBoth(autograd.Function):
        @staticmethod
        def forward(x):
            values, idx = x.sort()
            return values, idx

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.mark_non_differentiable(output[1])
            ctx.save_for_backward(output[1])
            ctx.n = inputs[0].shape[0]

        @staticmethod
        def backward(ctx, g, g_idx):
            (idx,) = ctx.saved_tensors
            assert float(g_idx.abs().sum()) == 0.0  # materialized zeros
            out = pdt.zeros(ctx.n, dtype=g.dtype, device=g.device)
            out[idx] = g
            return out

    x = t64([3.0, 1.0, 2.0], device, True)
    v, i = SortBoth.apply(x)
    assert v.requires_grad and not i.requires_grad
    (v * t64([10.0, 20.0, 30.0], device)).sum().backward()
    assert_close(x.grad, [30.0, 10.0, 20.0], "float64")


def test_an_input_returned_as_is_and_marked_non_differentiable(device):
    # the mark is matched with the object forward returned, not the alias made of it:
    # the output neither requires grad nor gets a node, as PyTorch's
    class PassBoth(autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.mark_non_differentiable(y)
            return x, y

        @staticmethod
        def backward(ctx, gx, gy):
            assert float(gy.abs().sum()) == 0.0
            return gx * 3, None

    x = t64([1.0, 2.0], device, True)
    y = t64([4.0, 5.0], device, True)
    p, q = PassBoth.apply(x, y)
    assert p.requires_grad and p.grad_fn is not None
    assert not q.requires_grad and q.grad_fn is None
    q.add_(1)  # its own tensor's data: y sees it, no view error
    np.testing.assert_array_equal(y.detach().cpu().numpy(), [5.0, 6.0])
    p.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [3.0, 3.0])
    assert y.grad is None


def test_set_materialize_grads_false_gives_none(device):
    got = []

    class Two(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            got.append(g2)
            return g1 if g2 is None else g1 + 2 * g2

    x = t64([1.0, 2.0], device, True)
    Two.apply(x)[0].sum().backward()
    assert got == [None]
    assert_close(x.grad, [1.0, 1.0], "float64")


def test_mark_dirty_and_an_input_returned_as_is(device):
    class AddOne(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.add_(1)

        @staticmethod
        def backward(ctx, g):
            return g * 5

    class Ident(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 7

    leaf = t64([1.0, 2.0], device, True)
    y = leaf * 1
    out = AddOne.apply(y)
    assert out is y and y.grad_fn.name() == "AddOneBackward"
    assert_close(y, [2.0, 3.0], "float64")
    y.sum().backward()
    assert_close(leaf.grad, [5.0, 5.0], "float64")
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        AddOne.apply(t64([1.0], device, True))
    z = Ident.apply(leaf)
    assert z is not leaf and z.grad_fn.name() == "IdentBackward" and leaf.grad_fn is None
    leaf.grad = None
    z.sum().backward()
    assert_close(leaf.grad, [7.0, 7.0], "float64")


def test_backward_that_returns_wrong_counts_shapes_devices_or_types(device):
    def fn(backward):
        return type("Bad", (autograd.Function,), {
            "forward": staticmethod(lambda ctx, x, k: x * k),
            "backward": staticmethod(backward)})

    x = t64([[1.0, 2.0, 3.0]] * 2, device, True)
    with pytest.raises(RuntimeError, match=r"function BadBackward returned an incorrect "
                                           r"number of gradients \(expected 2, got 1\)"):
        fn(lambda ctx, g: g).apply(x, 2.0).sum().backward()
    with pytest.raises(RuntimeError, match=r"BadBackward returned an invalid gradient at "
                                           r"index 0 - got \[3\] but expected shape "
                                           r"compatible with \[2, 3\]"):
        fn(lambda ctx, g: (g[0], None)).apply(x, 2.0).sum().backward()
    with pytest.raises(RuntimeError, match="gradient different than None at position 1"):
        fn(lambda ctx, g: (g, g)).apply(x, 2.0).sum().backward()
    with pytest.raises(TypeError, match="returned a int as the gradient at position 0"):
        fn(lambda ctx, g: (1, None)).apply(x, 2.0).sum().backward()
    # extra Nones are allowed; a broadcast-larger gradient is summed to the input
    fn(lambda ctx, g: (g, None, None)).apply(x, 2.0).sum().backward()
    assert_close(x.grad, np.ones((2, 3)), "float64")
    x.grad = None
    fn(lambda ctx, g: (g.expand(4, 2, 3), None)).apply(x, 2.0).sum().backward()
    assert_close(x.grad, np.full((2, 3), 4.0), "float64")


def test_saved_tensors_freed_modified_and_not_a_cycle(device):
    x = t64([1.0, 2.0], device, True)
    y = Exp.apply(x)
    ctx = y.grad_fn
    # a saved output is kept detached, and read back (grad mode on) with the ctx as its
    # grad_fn again, as PyTorch's
    assert ctx._saved[0].grad_fn is None and ctx.saved_tensors[0].grad_fn is ctx
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        ctx.saved_tensors
    z = Exp.apply(x * 1)
    zb = z * 1
    z.mul_(2)  # changes the saved output
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        zb.sum().backward()
    with pytest.raises(TypeError, match="save_for_backward can only save variables"):
        type("S", (autograd.Function,), {
            "forward": staticmethod(lambda ctx, x: ctx.save_for_backward(3) or x),
            "backward": staticmethod(lambda ctx, g: g)}).apply(x)
    # the output saved in its own ctx: no cycle, it dies by reference counting alone
    gc.disable()
    try:
        y = Exp.apply(x)
        node, out = weakref.ref(y.grad_fn), weakref.ref(y)
        del y
        assert node() is None and out() is None
    finally:
        gc.enable()


def test_once_differentiable(device):
    class Sq(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            assert not pdt.is_grad_enabled()
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = t64([3.0], device, True)
    (g,) = autograd.grad(Sq.apply(x).sum(), x)
    assert_close(g, [6.0], "float64")
    # as PyTorch's: with create_graph=True the result requires grad only when an
    # incoming gradient does, and then differentiating it raises
    (g,) = autograd.grad(Sq.apply(x).sum(), x, create_graph=True)
    assert not g.requires_grad and g.grad_fn is None
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        g.sum().backward()
    v = t64([2.0], device, True)
    (g,) = autograd.grad(Sq.apply(x), x, grad_outputs=v, create_graph=True)
    assert g.requires_grad
    assert_close(g, [12.0], "float64")
    with pytest.raises(RuntimeError, match="differentiate twice a function that was marked "
                                           "with @once_differentiable"):
        g.sum().backward()


def test_unimplemented_forward_backward_and_keyword_arguments():
    class Nothing(autograd.Function):
        pass

    with pytest.raises(NotImplementedError, match="implement the forward"):
        Nothing.apply(pdt.ones(1))

    class NoBackward(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    with pytest.raises(NotImplementedError, match="implement either the backward"):
        NoBackward.apply(pdt.ones(1, requires_grad=True)).sum().backward()
    with pytest.raises(TypeError, match="after the positional arguments in order only"):
        type("KeywordOnly", (autograd.Function,), {
            "forward": staticmethod(lambda ctx, x, *, k: x * k)}).apply(pdt.ones(1), k=2.0)


def test_keywords_name_the_next_inputs_and_edges_are_per_tensor_as_torch(device):
    """apply(x, k=...) binds k to forward's parameter of that name, an input as a
    positional one (needs_input_grad and the gradients count it, defaults left out);
    next_functions has one edge per Tensor input, (None, 0) for one without grad."""
    class Scale(autograd.Function):
        @staticmethod
        def forward(ctx, x, k=1.0, m=None):
            ctx.k = k
            return x * k if m is None else x * k * m

        @staticmethod
        def backward(ctx, g):
            return (g * ctx.k,) + (None,) * (len(ctx.needs_input_grad) - 1)

    x = t64([1.0, 2.0], device, True)
    y = Scale.apply(x, k=3.0)
    assert_close(y, [3.0, 6.0], "float64")
    assert y.grad_fn.needs_input_grad == (True, False)
    ((acc, nr),) = y.grad_fn.next_functions
    assert acc.variable is x and nr == 0
    y.sum().backward()
    assert_close(x.grad, [3.0, 3.0], "float64")
    assert Scale.apply(x).grad_fn.needs_input_grad == (True,)  # no default filled in
    m = t64([5.0, 7.0], device)
    y = Scale.apply(x, m=m, k=2.0)  # keywords in the order of forward's parameters
    assert_close(y, [10.0, 28.0], "float64")
    assert y.grad_fn.needs_input_grad == (True, False, False)
    (acc, nr), none = y.grad_fn.next_functions
    assert acc.variable is x and nr == 0 and none == (None, 0)
    for fn, nr in MulScaled.apply(x, m, 2.0).grad_fn.next_functions:  # 2 Tensors, 2 edges
        assert nr == 0 and (fn is None or fn.variable is x)
    with pytest.raises(TypeError, match=r"\(got \['m'\], 'k' missing\)"):
        Scale.apply(x, m=m)
    with pytest.raises(TypeError, match="multiple values for argument 'k'"):
        Scale.apply(x, 2.0, k=2.0)


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "float32"])
def test_a_gradient_of_another_dtype_is_cast_to_the_inputs_as_torch(device, dtype):
    class Cast(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return (g * 3).to(getattr(pdt, dtype))

    x = t64([1.0, 2.0], device, True)
    Cast.apply(x).sum().backward()
    assert x.grad.dtype == pdt.float64
    assert_close(x.grad, [1.0, 1.0] if dtype == "bool" else [3.0, 3.0], "float64")


def test_a_function_may_define_vjp_instead_of_backward(device):
    class Triple(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def vjp(ctx, g):
            return g * 3

    x = t64([1.0, 2.0], device, True)
    Triple.apply(x).sum().backward()
    assert_close(x.grad, [3.0, 3.0], "float64")
    assert Exp.vjp is autograd.Function.backward  # defining backward leaves vjp the base's


# ---- hooks ----

def test_register_hook_on_leaves_and_non_leaves_against_torch(device):
    def run(lib, dev):
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, device=dev, requires_grad=True)
        seen = []
        hx = x.register_hook(lambda g: g * 10)
        y = x * x
        y.register_hook(lambda g: seen.append(g.clone()))
        y.register_hook(lambda g: g + 1)
        y.retain_grad()
        (y * 2).sum().backward()
        first = x.grad.clone()
        hx.remove()
        x.grad = None
        (x * 3).sum().backward()
        return first, x.grad, y.grad, seen[0], y.retains_grad, x.retains_grad

    got = run(pdt, device)
    # d/dx of sum(2 y) = 4x, but y's hooks give 2 + 1 = 3 per element: 3 * 2x, times 10
    assert_close(got[0], [60.0, 120.0, 180.0], "float64")
    assert_close(got[1], [3.0, 3.0, 3.0], "float64")
    assert_close(got[2], [3.0, 3.0, 3.0], "float64")  # retain_grad: after the hooks
    assert_close(got[3], [2.0, 2.0, 2.0], "float64")
    assert got[4] is True and got[5] is False
    try:
        torch = torch_or_skip()
    except pytest.skip.Exception:
        return
    ref = run(torch, "cpu")
    for a, b in zip(got[:4], ref[:4]):
        assert_close(a, b.numpy(), "float64")
    assert got[4:] == ref[4:]


@pytest.mark.parametrize("op", ["mul_", "setitem", "view-mul_", "mark_dirty"])
def test_retain_grad_follows_an_in_place_change(device, op):
    """retain_grad() then an in-place op: .grad is the gradient of the tensor's new
    value and retains_grad stays True (PyTorch moves the retained gradient to the new
    grad_fn); it once gave the old value's gradient (here 6, not 3)."""
    class Double(pdt.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.mark_dirty(t)
            return t.mul_(2)

        @staticmethod
        def backward(ctx, g):
            return g * 2

    change = {"mul_": lambda y: y.mul_(2), "setitem": lambda y: y.__setitem__(0, 5.0),
              "view-mul_": lambda y: y.view(3).mul_(2), "mark_dirty": Double.apply}[op]
    x = t64([1.0, 2.0, 3.0], device, True)
    y = x * 1
    y.retain_grad()
    change(y)
    assert y.retains_grad
    (y * 3).sum().backward()
    assert_close(y.grad, [3.0, 3.0, 3.0], "float64")
    want = [0.0, 3.0, 3.0] if op == "setitem" else [6.0, 6.0, 6.0]
    assert_close(x.grad, want, "float64")


def test_retain_grad_accumulates_and_hook_errors(device):
    x = t64([1.0, 2.0], device, True)
    y = x * 2
    y.retain_grad()
    y.retain_grad()  # twice: one retained gradient
    (y * y).sum().backward(retain_graph=True)
    (y * y).sum().backward()
    assert_close(y.grad, [8.0, 16.0], "float64")
    x.retain_grad()  # a leaf: nothing to do
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has "
                                           "requires_grad=False"):
        t64([1.0], device).retain_grad()
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        t64([1.0], device).register_hook(lambda g: g)
    with pytest.raises(TypeError, match="hook must be callable"):
        x.register_hook(3)
    z = x * 3
    z.register_hook(lambda g: g[:1])
    with pytest.raises(RuntimeError, match=r"returned a gradient of shape \(1,\) for a tensor "
                                           r"of shape \(2,\)"):
        z.sum().backward()


@pytest.mark.parametrize("use_c", [True, False])
@pytest.mark.parametrize("where", ["leaf", "non-leaf", "returned"])
def test_a_gradient_a_hook_keeps_is_not_changed_by_the_next_backward(device, use_c, where,
                                                                      monkeypatch):
    """A hook may keep the gradient it is given (or returns); the leaf must not adopt
    that tensor as its .grad, which the next backward adds into in place."""
    from pydevtensor.autograd import engine
    monkeypatch.setattr(engine, "USE_C", use_c)
    x = t64([1.0, 2.0, 3.0], device, True)
    kept = []
    if where == "leaf":
        x.register_hook(kept.append)
        y = x
    elif where == "non-leaf":
        y = x + 0
        y.register_hook(kept.append)
    else:
        x.register_hook(lambda g: kept.append(g * 1) or kept[-1])
        y = x
    (y * 2).sum().backward()
    (y * 2).sum().backward()
    assert len(kept) == 2
    for g in kept:
        assert_close(g, [2.0, 2.0, 2.0], "float64")
    assert_close(x.grad, [4.0, 4.0, 4.0], "float64")


def test_hooks_do_not_keep_tensors_or_nodes_alive():
    x = pdt.ones(3, requires_grad=True)

    class Big:
        pass

    gc.disable()
    try:
        marker = Big()
        y = x * 2
        y.register_hook(lambda g, m=marker: None)
        y.retain_grad()
        node, tensor, m = weakref.ref(y.grad_fn), weakref.ref(y), weakref.ref(marker)
        del y, marker
        assert node() is None and tensor() is None and m() is None
        leaf = pdt.ones(2, requires_grad=True)
        marker = Big()
        handle = leaf.register_hook(lambda g, m=marker: None)
        m = weakref.ref(marker)
        del marker, leaf
        assert m() is None
        handle.remove()  # its leaf gone: nothing to do
    finally:
        gc.enable()


def test_grad_returns_gradients_after_the_inputs_hooks_as_torch(device):
    calls = []
    x = t64([1.0, 2.0], device, True)
    x.register_hook(lambda g: g * 10)
    (g,) = autograd.grad((x * 3).sum(), x)
    assert_close(g, [30.0, 30.0], "float64")
    y = x * 2
    y.register_hook(lambda g: calls.append(1) or g * 100)
    (g,) = autograd.grad((y * 3).sum(), y, retain_graph=True)
    assert_close(g, [300.0, 300.0], "float64")
    assert calls == [1]  # once, not again for the capture
    (gx, gy) = autograd.grad((y * 3).sum(), (x, y))
    assert_close(gy, [300.0, 300.0], "float64")
    assert_close(gx, [6000.0, 6000.0], "float64")  # 3 * 100 * 2, then x's hook: * 10
    assert x.grad is None
    with pytest.warns(UserWarning, match="not a leaf Tensor is being accessed"):
        assert y.grad is None


def test_function_frees_what_it_saved_after_backward(device):
    freed = []

    class Keep(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            tmp = x * 2
            freed.append(weakref.ref(tmp))
            ctx.save_for_backward(tmp)
            return x * 3

        @staticmethod
        def backward(ctx, g):
            (tmp,) = ctx.saved_tensors
            return g * 3

    x = t64([1.0], device, True)
    y = Keep.apply(x)
    assert freed[0]() is not None
    y.backward(retain_graph=True)
    assert freed[0]() is not None  # retained
    y.backward()
    assert freed[0]() is None and y.grad_fn is not None
    assert_close(x.grad, [6.0], "float64")


@pytest.mark.filterwarnings("ignore:Full backward hook is firing")  # torch's, for the 2nd call
def test_module_full_backward_hook_against_torch(device):
    def run(lib, dev):
        lin = lib.nn.Linear(3, 2).to(dev).double()
        with lib.no_grad():
            lin.weight.copy_(lib.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]], dtype=lib.float64))
            lin.bias.fill_(0.5)
        seen = []

        def hook(m, gi, go):
            seen.append((m is lin, [None if g is None else g.clone() for g in gi],
                         [g.clone() for g in go]))
            return (gi[0] * 2,) if gi[0] is not None else None

        h = lin.register_full_backward_hook(hook)
        x = lib.tensor([[1.0, -1.0, 2.0]], dtype=lib.float64, device=dev, requires_grad=True)
        (lin(x) ** 2).sum().backward()
        lin(lib.ones(1, 3, dtype=lib.float64, device=dev)).sum().backward()  # no input grad
        h.remove()
        lin(x).sum().backward()
        return x.grad, seen

    grad, seen = run(pdt, device)
    out = np.array([[1.0 - 2.0 + 6.0 + 0.5, -1.0 - 0.5 + 0.5]])
    go = 2 * out
    gi = go @ np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
    assert len(seen) == 2 and seen[0][0] and seen[1][0]
    assert_close(seen[0][2][0], go, "float64")
    assert_close(seen[0][1][0], gi, "float64")
    assert seen[1][1] == [None]
    # the hook doubled x's gradient the first time; the removed hook not the second
    assert_close(grad, 2 * gi + np.array([[0.0, 2.5, 3.0]]), "float64")
    with pytest.raises(TypeError, match="hook must be callable"):
        pdt.nn.Linear(1, 1).register_full_backward_hook(None)
    try:
        torch = torch_or_skip()
    except pytest.skip.Exception:
        return
    tgrad, tseen = run(torch, "cpu")
    assert_close(grad, tgrad.numpy(), "float64")
    assert_close(seen[0][1][0], tseen[0][1][0].numpy(), "float64")
    assert_close(seen[0][2][0], tseen[0][2][0].numpy(), "float64")
    assert tseen[1][1] == [None]


def test_full_backward_hook_grad_input_per_tensor_argument_as_torch(device):
    """grad_input has one entry per positional tensor argument (zeros for one that does
    not require grad), grad_output None for an unused output, as PyTorch's."""
    torch = torch_or_skip()

    def run(lib, dev):
        class M(lib.nn.Module):
            def forward(self, a, b, k=2.0):
                return a * b * k, a.sum()

        m, rec = M(), []
        m.register_full_backward_hook(lambda mod, gi, go: rec.append((gi, go)))
        a = lib.tensor([1.0, 2.0], device=dev, requires_grad=True)
        b = lib.tensor([3.0, 4.0], device=dev)
        m(a, b)[0].sum().backward()
        (gi, go), = rec
        return ([None if g is None else g.tolist() for g in gi],
                [None if g is None else g.tolist() for g in go])

    assert run(pdt, device) == run(torch, "cpu") == ([[6.0, 8.0], [0.0, 0.0]],
                                                      [[1.0, 1.0], None])


def test_inplace_on_a_view_output_of_a_function_raises_as_torch(device):
    """An output that is an input returned as it is, or a view of one, may not be changed
    in place (it would change the input behind the backward), as in PyTorch; a module
    that changes its input in place under a full backward hook raises so too."""
    torch = torch_or_skip()
    for lib, dev in ((torch, "cpu"), (pdt, device)):
        for make in (lambda x: x, lambda x: x.view(-1)):
            class G(lib.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return make(x)

                @staticmethod
                def backward(ctx, g):
                    return g

            x = lib.ones(2, 2, device=dev, requires_grad=True)
            y = G.apply(x)
            # (PyTorch before 2.15 names the node GBackward)
            with pytest.raises(RuntimeError, match="Output 0 of G(Backward)? is a view and is "
                                                   "being modified inplace"):
                y.mul_(2)
            with pytest.raises(RuntimeError, match="Output 0 of G(Backward)? is a view"):
                y.zero_()
            assert x.tolist() == [[1.0, 1.0], [1.0, 1.0]]
        m = lib.nn.ReLU(inplace=True)
        m.register_full_backward_hook(lambda mod, gi, go: None)
        a = lib.tensor([1.0, -2.0], device=dev, requires_grad=True)
        with pytest.raises(RuntimeError, match="Output 0 of BackwardHookFunction(Backward)? is a view"):
            m(a * 1)


def test_reading_a_non_leafs_grad_warns_as_torch(device):
    """y.grad of a non-leaf that does not retain its gradient is None, with PyTorch's
    UserWarning (a leaf reached by mistake, such as a copy moved to another device, is
    the usual cause); a leaf, a retaining non-leaf and a tensor without grad do not
    warn."""
    import warnings
    x = t64([1.0, 2.0], device, True)
    y = x * 2
    with pytest.warns(UserWarning, match=r"not a leaf Tensor is being accessed.*"
                                         r"\.retain_grad\(\)"):
        assert y.grad is None
    z = x * 3
    z.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.grad is None and z.grad is None and t64([1.0], device).grad is None
        (y + z).sum().backward()
        assert_close(z.grad, [1.0, 1.0], "float64")


def test_an_input_marked_dirty_must_be_returned():
    """PyTorch's check: an input changed in place and marked dirty but not returned
    left its place in the graph unchanged, silently."""
    class AddOneTwice(pdt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(RuntimeError, match="marked as dirty during the forward method were "
                                           "not returned"):
        AddOneTwice.apply(pdt.ones(2, requires_grad=True) * 1)


def test_the_setup_context_form_binds_forwards_defaults_and_keywords():
    """PyTorch binds forward's defaults (and keywords) into the inputs setup_context
    gets: (x, 2.0) here, where a 1-tuple failed to unpack."""
    class Scale(pdt.autograd.Function):
        @staticmethod
        def forward(x, k=2.0):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, k = inputs
            ctx.k = k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    x = pdt.ones(2, requires_grad=True)
    Scale.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    x.grad = None
    Scale.apply(x, k=5.0).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_gradcheck_passes_right_gradients_and_names_a_wrong_one():
    """autograd.gradcheck (PyTorch's): True for a right backward on float64 inputs,
    several inputs and outputs; GradcheckError naming the output, the input and both
    Jacobians for a wrong one (or False without raise_exception); gradgradcheck checks
    the second derivatives, and refuses a once-differentiable backward."""
    A = pdt.autograd
    rng = np.random.default_rng(0)
    a = pdt.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    b = pdt.tensor(rng.standard_normal((2, 4)), requires_grad=True)
    assert A.gradcheck(lambda p, q: (p @ q, p.sin()), (a, b))
    assert A.gradgradcheck(lambda p: pdt.nn.functional.softplus(p @ p.T), (a,))

    class Wrong(A.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x  # should be 2 x

    x = pdt.tensor([1.0, 2.0], dtype=pdt.float64, requires_grad=True)
    with pytest.raises(A.GradcheckError, match="output 0 with respect to input 0") as err:
        A.gradcheck(Wrong.apply, (x,))
    assert isinstance(err.value, RuntimeError) and "numerical" in str(err.value)
    assert A.gradcheck(Wrong.apply, (x,), raise_exception=False) is False

    class Once(A.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        @A.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x

    assert A.gradcheck(Once.apply, (x,))
    with pytest.raises(RuntimeError, match="once_differentiable"):
        A.gradgradcheck(Once.apply, (x,))


@pytest.mark.parametrize("layout", ["channels_last", "transposed"])
def test_gradcheck_takes_inputs_of_any_layout(device, layout):
    """gradcheck moves each element of an input in its own layout: a channels_last or a
    transposed input (no view(-1) of a clone) gives the right diagonal Jacobian of
    p * c, whose values differ per element, so a move in memory order would not."""
    rng = np.random.default_rng(1)
    base = pdt.tensor(rng.standard_normal((2, 3, 2, 2)), device=device)
    c = pdt.tensor(rng.uniform(1, 2, (2, 3, 2, 2)), device=device)
    if layout == "channels_last":
        x = base.to(memory_format=pdt.channels_last)
        assert not x.is_contiguous()
    else:
        x, c = base.transpose(0, 3), c.transpose(0, 3)
    x = x.detach().requires_grad_(True)
    assert pdt.autograd.gradcheck(lambda p: p * c, (x,))
    assert pdt.autograd.gradcheck(lambda p: (p * c).sum(1), (x,))
