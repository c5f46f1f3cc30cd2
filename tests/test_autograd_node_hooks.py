"""Node.register_hook, Node.register_prehook and Node.metadata (PyTorch's): hooks on a
grad_fn and on a leaf's AccumulateGrad (``x.grad_fn.next_functions[0][0]``), their
order beside tensor hooks and retain_grad, their handles, their checks, on both
backward loops (C and Python) and every device."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import autograd
from pydevtensor.autograd import engine
from conftest import with_switch_on_then_off


@pytest.fixture
def both_engines():
    return with_switch_on_then_off(lambda on: setattr(engine, "USE_C", on))


def leaf(device, seed=0):
    a = np.random.default_rng(seed).standard_normal((3, 4))
    return a, pdt.tensor(a, device=device, requires_grad=True)


def np_of(t):
    return t.detach().cpu().numpy()


def test_post_hook_sees_and_replaces_the_input_gradients(device, both_engines):
    def run():
        a, x = leaf(device)
        b, z = leaf(device, 1)
        y = x * z
        seen = []

        def hook(gi, go):
            seen.append((len(gi), len(go), np_of(go[0])))
            return gi[0] * 2, gi[1] * 3

        h = y.grad_fn.register_hook(hook)
        assert isinstance(h, autograd.hooks.RemovableHandle)
        y.sum().backward(retain_graph=True)
        np.testing.assert_allclose(np_of(x.grad), 2 * b, rtol=1e-15)
        np.testing.assert_allclose(np_of(z.grad), 3 * a, rtol=1e-15)
        assert [s[:2] for s in seen] == [(2, 1)]
        np.testing.assert_array_equal(seen[0][2], np.ones((3, 4)))
        h.remove()
        x.grad = z.grad = None
        y.sum().backward()
        np.testing.assert_allclose(np_of(x.grad), b, rtol=1e-15)
        assert len(seen) == 1
    both_engines(run)


def test_pre_hook_runs_after_tensor_hooks_and_retain_grad(device, both_engines):
    def run():
        a, x = leaf(device)
        y = x * 2
        y.retain_grad()
        y.grad_fn.register_prehook(lambda go: (go[0] + 1,))
        y.register_hook(lambda g: g * 3)
        y.sum().backward()
        # PyTorch's order: tensor hooks (3), retain_grad (sees 3), the node's (3 + 1)
        np.testing.assert_array_equal(np_of(y.grad), np.full((3, 4), 3.0))
        np.testing.assert_array_equal(np_of(x.grad), np.full((3, 4), 8.0))
    both_engines(run)


def test_hooks_on_a_leafs_accumulate_grad(device, both_engines):
    def run():
        a, x = leaf(device)
        y = x * 2
        acc = y.grad_fn.next_functions[0][0]
        seen = []
        acc.register_prehook(lambda go: (go[0] + 1,))
        acc.register_hook(lambda gi, go: seen.append((gi, np_of(x.grad).copy())))
        x.register_hook(lambda g: g * 3)  # the leaf's own hook comes first
        y.sum().backward()
        np.testing.assert_array_equal(np_of(x.grad), np.full((3, 4), 7.0))
        # the post hook runs after the gradient was added into .grad, with no inputs
        assert len(seen) == 1 and seen[0][0] == ()
        np.testing.assert_array_equal(seen[0][1], np.full((3, 4), 7.0))
    both_engines(run)


def test_hooks_with_autograd_grad_and_a_function(device):
    a, x = leaf(device)

    class Double(autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = x.exp()
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 5,))
    d = Double.apply(y)
    d.grad_fn.register_prehook(lambda go: (go[0] * 7,))
    g, = autograd.grad(d.sum(), x)
    np.testing.assert_allclose(np_of(g), 2 * 7 * 5 * np.exp(a), rtol=1e-14)


def test_hook_results_are_checked(device):
    _, x = leaf(device)
    y = x * 2
    y.grad_fn.register_prehook(lambda go: (go[0], go[0]))
    with pytest.raises(RuntimeError, match="returned 2 gradients for 1 outputs"):
        y.sum().backward()
    y = x * 2  # the number's input has no edge and no gradient: nothing takes one
    y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="can't replace a None gradient"):
        y.sum().backward()
    for name in ("register_hook", "register_prehook"):
        with pytest.raises(TypeError, match=rf"{name}\(\): hook must be callable, got int"):
            getattr(y.grad_fn, name)(3)


def test_metadata_and_hooks_outlive_the_backward(device):
    _, x = leaf(device)
    y = x.exp()
    y.grad_fn.metadata["step"] = 3
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append(1))
    y.sum().backward()
    assert y.grad_fn.metadata == {"step": 3}
    assert seen == [1]
    assert (x * 2).grad_fn.metadata == {}


def test_graph_names(device):
    """autograd.graph: Node is the class of every grad_fn, get_gradient_edge gives a
    tensor's edge, increment_version makes a backward that saved the tensor raise."""
    graph = autograd.graph
    a, x = leaf(device)
    h = x * 1
    y = h.sin()  # saves h
    assert isinstance(y.grad_fn, graph.Node) and graph.Node is autograd.Node
    e = graph.get_gradient_edge(x)
    assert e.node is h.grad_fn.next_functions[0][0] and e.output_nr == 0
    u, v = h.split(2)
    assert tuple(graph.get_gradient_edge(v)) == (v.grad_fn, v.output_nr)
    version = h._version
    graph.increment_version(h)
    assert h._version == version + 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    np.testing.assert_array_equal(np_of(h), a)  # the values themselves are unchanged
    p, q = pdt.ones(2, device=device), pdt.ones(3, device=device)
    graph.increment_version([p, q])
    assert (p._version, q._version) == (1, 1)
