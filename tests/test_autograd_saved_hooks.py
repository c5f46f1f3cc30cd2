"""autograd.graph.saved_tensors_hooks, save_on_cpu and disable_saved_tensors_hooks
(PyTorch's; Note [saved tensors hooks]): what is packed and unpacked, gradients and
second derivatives through packed tensors (ops, pow's saved result, a Function),
the version check, the refusals, on every device."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import autograd
from pydevtensor.autograd.graph import (disable_saved_tensors_hooks, save_on_cpu,
                                        saved_tensors_hooks)


def leaf(device, values=(0.5, 1.0, 2.0)):
    a = np.array(values)
    return a, pdt.tensor(a, device=device, requires_grad=True)


def np_of(t):
    return t.detach().cpu().numpy()


def test_the_backward_reads_what_unpack_returns(device):
    a, x = leaf(device)
    packed, unpacked = [], []

    def pack(t):
        assert not pdt.is_grad_enabled()  # the hook's own ops are not recorded
        packed.append(tuple(t.shape))
        return ("mine", t.clone())

    def unpack(p):
        unpacked.append(p[0])
        return p[1]

    with saved_tensors_hooks(pack, unpack):
        y = (x.sin() * x).sum()  # sin saves x, mul saves sin(x) and x
    assert packed == [(3,)] * 3 and unpacked == []
    y.backward()
    assert unpacked == ["mine"] * 3
    np.testing.assert_allclose(np_of(x.grad), np.sin(a) + a * np.cos(a), rtol=1e-14)
    # outside the block nothing is packed
    z = (x * x).sum()
    z.backward()
    assert len(packed) == 3


def test_unpack_decides_the_values(device):
    """The gradient is computed from the unpacked tensors, not the originals."""
    a, x = leaf(device)
    with saved_tensors_hooks(lambda t: t, lambda t: t * 0 + 3.0):
        y = (x * x).sum()
    y.backward()
    np.testing.assert_array_equal(np_of(x.grad), np.full(3, 6.0))


def test_second_derivatives_through_packed_tensors(device):
    a, x = leaf(device)
    with saved_tensors_hooks(lambda t: t.clone(), lambda t: t.clone()):
        y = (x.exp().sin() * x * x).sum() + x.pow(pdt.tensor(3.0, device=device)).sum()
    g, = autograd.grad(y, x, create_graph=True)
    gg, = autograd.grad(g.sum(), x)
    e = np.exp(a)
    d1 = np.cos(e) * e * a * a + 2 * a * np.sin(e) + 3 * a ** 2
    d2 = ((-np.sin(e) * e * e + np.cos(e) * e) * a * a + 4 * a * np.cos(e) * e
          + 2 * np.sin(e) + 6 * a)
    np.testing.assert_allclose(np_of(g), d1, rtol=1e-13)
    np.testing.assert_allclose(np_of(gg), d2, rtol=1e-13)


def test_a_function_saves_through_the_hooks(device):
    class Cube(autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t, None)
            return t ** 3

        @staticmethod
        def backward(ctx, g):
            t, none = ctx.saved_tensors
            assert none is None
            return 3 * t ** 2 * g

    a, x = leaf(device)
    calls = []
    with saved_tensors_hooks(lambda t: (calls.append("pack"), t.clone())[1],
                             lambda t: (calls.append("unpack"), t)[1]):
        y = Cube.apply(x).sum()
    assert calls == ["pack"]
    g, = autograd.grad(y, x, create_graph=True)
    gg, = autograd.grad(g.sum(), x)
    np.testing.assert_allclose(np_of(g), 3 * a ** 2, rtol=1e-14)
    np.testing.assert_allclose(np_of(gg), 6 * a, rtol=1e-14)
    assert calls == ["pack", "unpack"]


def test_save_on_cpu(device):
    a, x = leaf(device)
    with save_on_cpu(pin_memory=False):
        y = (x.exp() * x).sum()
    y.backward()
    np.testing.assert_allclose(np_of(x.grad), np.exp(a) * (1 + a), rtol=1e-14)
    assert x.grad.device == x.device


def test_an_in_place_change_of_a_live_original_still_fails(device):
    """PyTorch 2.15 misses this one with hooks and gives a gradient of the new values;
    here the original is checked while it lives."""
    a, x = leaf(device)
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        h = x * 1
        y = (h * h).sum()
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_the_refusals(device):
    _, x = leaf(device)
    with pytest.raises(TypeError, match="pack_hook must be callable, got int"):
        saved_tensors_hooks(3, lambda t: t)
    with saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = (x * x).sum()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got result "
                                        "of type int"):
        y.backward()
    d = x.detach()
    with pytest.raises(RuntimeError, match="pack hook is modifying its input in place"):
        with saved_tensors_hooks(lambda t: t.add_(1) if t is d else t, lambda t: t):
            x * d
    with disable_saved_tensors_hooks("not in this block"):
        with pytest.raises(RuntimeError, match="not in this block"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):  # allowed again after it
        pass


def test_hooks_are_per_thread(device):
    """A thread's hooks pack only its own ops (they were per process: the other thread's
    product was packed too), leaving its hooks is not leaving the other's, and
    disable_saved_tensors_hooks in one thread does not refuse hooks in another."""
    import threading
    entered, left, done = threading.Event(), threading.Event(), threading.Event()
    packed = {"main": 0, "other": 0}
    errors = []

    def other():
        try:
            with saved_tensors_hooks(lambda t: packed.__setitem__("other", packed["other"] + 1)
                                     or t, lambda t: t):
                entered.set()
                assert left.wait(60)  # the main thread has left its hooks meanwhile
                _, w = leaf(device)
                (w * w).sum().backward()
            np.testing.assert_allclose(np_of(w.grad), 2 * np_of(w))
        except BaseException as e:  # reported by the main thread
            errors.append(e)
        finally:
            entered.set()
            done.set()

    thread = threading.Thread(target=other)
    with disable_saved_tensors_hooks("not in this thread"):
        thread.start()
        assert entered.wait(60)
    with saved_tensors_hooks(lambda t: packed.__setitem__("main", packed["main"] + 1) or t,
                             lambda t: t):
        _, x = leaf(device)
        y = (x * x * x).sum()
    left.set()
    assert done.wait(60)
    thread.join()
    assert not errors, errors
    y.backward()
    np.testing.assert_allclose(np_of(x.grad), 3 * np_of(x) ** 2)
    assert packed == {"main": 4, "other": 2}  # x, x (x * x); x * x, x (times x)
