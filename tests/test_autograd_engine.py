"""The backward loop in C (Note [the engine in C] in csrc/python/autograd_engine.c) does
what the Python loop (pydevtensor/autograd/engine.py's _run_python) does: the same
gradients to the bit (summed in the same order), the same leaves adopting or copying
their gradient, the same errors, on every device; and it holds no reference when done."""
import gc

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import autograd
from pydevtensor.autograd import engine
from conftest import with_switch_on_then_off


@pytest.fixture
def both_engines():
    """Runs a function with the C loop, then the Python one; returns both results."""
    return with_switch_on_then_off(lambda on: setattr(engine, "USE_C", on))


def bits(t):
    return None if t is None else t.detach().cpu().numpy().copy()


def assert_same(a, b):
    assert (a is None) == (b is None)
    if a is not None:
        np.testing.assert_array_equal(a, b)


def leaves(device, n=3, seed=3):
    rng = np.random.default_rng(seed)
    return [pdt.tensor(rng.standard_normal((3, 4)), device=device, requires_grad=True)
            for _ in range(n)]


def shared_paths(device):
    """Paths that meet (a used four times, sums in an order), a two-output op, an
    input without grad, a leaf reached twice through one gradient."""
    a, b, c = leaves(device)
    k = pdt.tensor(np.arange(12.0).reshape(3, 4), device=device)
    u, v = (a * b + k).chunk(2, dim=1)
    h = (u.exp() * a[:, :2] + v.tanh() * 3.0).relu() + a[:, 2:] * c[:, :2]
    loss = (h @ (a[:, :2].T * 0.5))[0].sum() + (c * c).sum() + h.mean()
    loss.backward()
    return [bits(x.grad) for x in (a, b, c)]


def test_same_gradients_as_the_python_loop(device, both_engines):
    got_c, got_py = both_engines(lambda: shared_paths(device))
    for gc_, gp in zip(got_c, got_py):
        assert_same(gc_, gp)


def grad_with_inputs(device):
    """autograd.grad with inputs (captures), two outputs with given gradients, a
    retained graph run twice, and a second pass that accumulates into .grad."""
    a, b, c = leaves(device, seed=5)
    y1, y2 = (a * b).sin(), (b + c).sum(dim=0)
    g1 = pdt.ones(3, 4, device=device) * 0.5
    g2 = pdt.full((4,), 2.0, device=device)
    ga, gc_ = autograd.grad([y1, y2], [a, c], [g1, g2], retain_graph=True)
    again = autograd.grad([y1, y2], [a, c], [g1, g2], retain_graph=True)
    assert a.grad is None and b.grad is None  # grad() accumulates nothing
    pdt.autograd.backward([y1.sum(), y2.sum()], retain_graph=True)
    first = bits(b.grad)
    (y1.sum() * 2.0).backward()
    return [bits(ga), bits(gc_), bits(again[0]), bits(again[1]), first, bits(a.grad),
            bits(b.grad), bits(c.grad)]


def test_grad_and_retained_graphs(device, both_engines):
    got_c, got_py = both_engines(lambda: grad_with_inputs(device))
    for gc_, gp in zip(got_c, got_py):
        assert_same(gc_, gp)


def adoption(device):
    """Whether each leaf's .grad is the engine's buffer or a copy: a gradient passed
    unchanged to two leaves, and the user's own gradient, are copied."""
    a, b, c = leaves(device, seed=9)
    s = a + b  # the same incoming gradient goes to a and to b
    g = pdt.ones(3, 4, device=device)
    s.backward(g)
    (c * 2.0).sum().backward()
    return (a.grad is g, b.grad is g, a.grad._storage_refcount(), b.grad._storage_refcount(),
            bits(a.grad), bits(b.grad), bits(c.grad))


def test_leaves_adopt_or_copy_the_same_way(device, both_engines):
    got_c, got_py = both_engines(lambda: adoption(device))
    assert got_c[:4] == got_py[:4] == (False, False, 1, 1)
    for gc_, gp in zip(got_c[4:], got_py[4:]):
        assert_same(gc_, gp)


@pytest.mark.parametrize("use_c", [True, False])
def test_errors_are_the_same(device, use_c, monkeypatch):
    monkeypatch.setattr(engine, "USE_C", use_c)
    a, = leaves(device, n=1)
    y = (a * a).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    z = a.exp()
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        z.backward()
    w = a * 2.0
    with pytest.raises(RuntimeError, match="input 0 does not require grad"):
        autograd.grad([w.sum()], [pdt.ones(2, device=device)])
    # a number among the inputs is named as such (it was 'input 1 does not require grad')
    with pytest.raises(RuntimeError, match="all inputs have to be Tensors, but input 1 is a "
                                           "float"):
        autograd.grad([w.sum()], [a, 3.0])
    with pytest.raises(RuntimeError, match="input 0 is a float"):
        w.sum().backward(inputs=[3.0])


def test_an_error_in_a_formula_propagates_and_leaks_nothing(device, monkeypatch):
    class Boom(Exception):
        pass

    a, = leaves(device, n=1)
    y = (a.exp() * 3.0).sum()
    node = y.grad_fn.next_functions[0][0]  # MulBackward0

    def explode(grads):
        raise Boom("in the formula")
    monkeypatch.setattr(node, "apply", explode)
    with pytest.raises(Boom):
        y.backward()
    assert a.grad is None  # nothing reached the leaf


def test_the_loop_holds_nothing_when_done(device):
    def step():
        a, b, c = leaves(device)
        (a * b + c).relu().sum().backward()
        return a.grad

    for _ in range(20):
        step()
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(200):
        step()
    gc.collect()
    assert len(gc.get_objects()) - before < 50


def test_bad_arguments_raise():
    with pytest.raises(TypeError, match="_engine_run"):
        pdt._C._engine_run([], {}, 0, False, True, False)
    with pytest.raises(TypeError, match="edge"):
        pdt._C._engine_run([(("no", "edge", "here"), None, False)], {}, 0, False, True, False,
                           autograd.node.AccumulateGrad, "freed")


@pytest.mark.parametrize("use_c", [True, False])
def test_inputs_run_only_the_nodes_above_them_as_torch(device, use_c, monkeypatch):
    """With inputs (backward(inputs=...), autograd.grad), a node from which no input is
    reachable is not run: its hooks do not fire and it keeps its saved tensors, so a
    later backward through it works, as in PyTorch."""
    torch = __import__("conftest").torch_or_skip()
    monkeypatch.setattr(engine, "USE_C", use_c)
    got = {}
    for lib, dev in ((torch, "cpu"), (pdt, device)):
        calls = []
        x = lib.tensor([1.0, 2.0], device=dev, requires_grad=True)
        w = lib.tensor([3.0, 4.0], device=dev, requires_grad=True)
        h = w * 2
        h.register_hook(lambda g: calls.append(1))
        (x * h).sum().backward(inputs=[x])
        a = lib.tensor([1.0, 2.0, 3.0], device=dev, requires_grad=True)
        y = a.exp()
        (gy,) = lib.autograd.grad((y * 3).sum(), y)
        y.sum().backward()  # exp's saved result is still there
        got[lib.__name__] = (x.grad.tolist(), w.grad, len(calls), gy.tolist(),
                             a.grad.tolist())
    assert got["pydevtensor"] == got["torch"]
    assert got["torch"][2] == 0 and got["torch"][1] is None


def test_grad_and_backward_take_any_iterable_of_inputs():
    """grad(loss, model.parameters()) and backward(inputs=<generator>), as PyTorch's
    tuple(inputs): a generator was taken as one input ('does not require grad')."""
    from pydevtensor import nn
    net = nn.Linear(2, 1)
    loss = net(pdt.ones(3, 2)).sum()
    gw, gb = pdt.autograd.grad(loss, net.parameters(), retain_graph=True)
    np.testing.assert_allclose(gw.numpy(), [[3.0, 3.0]])
    np.testing.assert_allclose(gb.numpy(), [3.0])
    loss.backward(inputs=(p for p in net.parameters() if p.ndim == 2))
    assert net.weight.grad.tolist() == [[3.0, 3.0]] and net.bias.grad is None
    outs = (t for t in (net(pdt.ones(1, 2)).sum(),))
    assert pdt.autograd.grad(outs, [net.bias])[0].tolist() == [1.0]


def test_empty_inputs_materialize_grads_and_batched_grads():
    """PyTorch's checks and options of grad(): empty inputs raise (they did nothing);
    materialize_grads gives zeros for an unused input; is_grads_batched gives one
    vector-Jacobian product per row of grad_outputs (the Jacobian from the identity)."""
    x = pdt.tensor([1.0, 2.0], requires_grad=True)
    z = pdt.tensor([5.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="grad requires non-empty inputs"):
        pdt.autograd.grad((x * 2).sum(), [])
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (x * 2).sum().backward(inputs=[])
    gx, gz = pdt.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True)
    assert gx.tolist() == [2.0, 2.0] and gz.tolist() == [0.0]
    with pytest.raises(ValueError, match="allow_unused"):
        pdt.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True, allow_unused=False)
    (jac,) = pdt.autograd.grad(x * x * x, x, pdt.eye(2), is_grads_batched=True)
    np.testing.assert_allclose(jac.numpy(), np.diag([3.0, 12.0]))


def test_functional_create_graph_does_not_run_the_inputs_hooks():
    """With create_graph=True the functional API differentiated x itself, so x's tensor
    hooks scaled its results (a Jacobian of 30 for 3 x); it differentiates a view of x,
    as PyTorch's, and the results still depend on x."""
    F = pdt.autograd.functional
    x = pdt.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 10)
    np.testing.assert_allclose(F.jacobian(lambda a: a * 3, x, create_graph=True).numpy(),
                               np.diag([3.0, 3.0]))
    np.testing.assert_allclose(F.vjp(lambda a: a * 3, x, pdt.ones(2),
                                     create_graph=True)[1].detach().numpy(), [3.0, 3.0])
    h = F.hessian(lambda a: (a ** 3).sum(), x, create_graph=True)
    np.testing.assert_allclose(h.detach().numpy(), np.diag([6.0, 12.0]))
    h.sum().backward()  # d/dx of 6 x summed: 6, then x's hook
    np.testing.assert_allclose(x.grad.numpy(), [60.0, 60.0])


def test_backward_inputs_fill_a_non_leafs_grad():
    """backward(inputs=[h]) with h not a leaf accumulates into h.grad, as PyTorch's (it
    stayed None, and reading it warned); a leaf not named is left alone."""
    import warnings
    w = pdt.tensor([1.0, 2.0], requires_grad=True)
    b = pdt.tensor([3.0, 4.0], requires_grad=True)
    h = w * 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (h * b).sum().backward(inputs=[h], retain_graph=True)
        assert h.grad.tolist() == [3.0, 4.0] and w.grad is None and b.grad is None
        (h * b).sum().backward(inputs=[h, b])
        assert h.grad.tolist() == [6.0, 8.0] and b.grad.tolist() == [3.0, 6.0]


def test_detach_in_place_of_a_view_in_the_graph_is_refused():
    v = (pdt.ones(3, requires_grad=True) * 2)[:2]
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        v.detach_()
    assert v.requires_grad
    plain = pdt.ones(3)[:2]
    assert plain.detach_() is plain  # a view outside the graph may be detached
    y = pdt.ones(3, requires_grad=True) * 2
    assert not y.detach_().requires_grad


def test_a_tensor_hook_may_not_change_the_dtype():
    """PyTorch checks what a hook returns: another dtype raises at the hook (it was
    accepted, and failed later at accumulation, or gave a float64 gradient)."""
    x = pdt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g.double())
    with pytest.raises(RuntimeError, match="has changed the type of value"):
        pdt.autograd.grad((y * 1).sum(), y)


# A second backward without retain_graph, as PyTorch 2.15: it raises where the graph
# saved a tensor (mul and div save a number operand too, as a wrapped-number tensor:
# x * 2 raised there and accumulated here), and accumulates again where nothing was
# saved (sum, add, sub of a number, views, clone, cat)
_SAVED = {
    "mul_number": lambda x, y: (x * 2).sum(), "rmul_number": lambda x, y: (2 * x).sum(),
    "mul_method": lambda x, y: x.mul(2.5).sum(), "div_number": lambda x, y: (x / 2).sum(),
    "div_floor": lambda x, y: pdt.div(x, 2, rounding_mode="floor").sum(),
    "mul_bool": lambda x, y: (x * True).sum(), "mul_tensors": lambda x, y: (x * y).sum(),
    "exp": lambda x, y: x.exp().sum(), "pow": lambda x, y: (x ** 2).sum(),
    "relu": lambda x, y: x.relu().sum()}
_NOTHING_SAVED = {
    "sum": lambda x, y: x.sum(), "add_leaves": lambda x, y: (x + y).sum(),
    "sub_number": lambda x, y: (x - 2).sum(), "rsub": lambda x, y: (2 - x).sum(),
    "neg": lambda x, y: (-x).sum(), "mean": lambda x, y: x.mean(),
    "view": lambda x, y: x.view(2, 1).sum(), "t": lambda x, y: x.reshape(1, 2).t().sum(),
    "index": lambda x, y: x[0], "clone": lambda x, y: x.clone().sum(),
    "expand": lambda x, y: x.expand(3, 2).sum(), "cat": lambda x, y: pdt.cat([x, y]).sum(),
    "fmod": lambda x, y: pdt.fmod(x, 2).sum()}


@pytest.mark.parametrize("use_c", [True, False])
@pytest.mark.parametrize("name", list(_SAVED) + list(_NOTHING_SAVED))
def test_second_backward_raises_where_the_graph_saved_a_tensor(device, use_c, name,
                                                               monkeypatch):
    monkeypatch.setattr(engine, "USE_C", use_c)
    x = pdt.tensor([1.0, 2.0], dtype=pdt.float64, device=device, requires_grad=True)
    y = pdt.tensor([3.0, 4.0], dtype=pdt.float64, device=device, requires_grad=True)
    out = {**_SAVED, **_NOTHING_SAVED}[name](x, y)
    out.backward()
    first = x.grad.cpu().numpy().copy()
    if name in _SAVED:
        with pytest.raises(RuntimeError, match=r"a second time.*retain_graph=True"):
            out.backward()
        np.testing.assert_array_equal(x.grad.cpu().numpy(), first)  # left as it was
    else:
        out.backward()
        np.testing.assert_array_equal(x.grad.cpu().numpy(), 2 * first)


@pytest.mark.parametrize("use_c", [True, False])
def test_retain_graph_keeps_a_saved_number(device, use_c, monkeypatch):
    monkeypatch.setattr(engine, "USE_C", use_c)
    x = pdt.tensor([1.0, 2.0], device=device, requires_grad=True)
    out = (x * 3).sum()
    out.backward(retain_graph=True)
    out.backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [6.0, 6.0])
    g, = pdt.autograd.grad((x / 4).sum(), x)
    np.testing.assert_array_equal(g.cpu().numpy(), [0.25, 0.25])
