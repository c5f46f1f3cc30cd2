"""inference_mode and is_inference_mode_enabled (torch's names), and the function form
of clone, on every device."""
import threading

import numpy as np
import pytest

import pydevtensor as pdt


def test_inference_mode_records_nothing_and_restores(device):
    w = pdt.ones(2, device=device, requires_grad=True)
    with pdt.inference_mode():
        assert pdt.is_inference_mode_enabled() and not pdt.is_grad_enabled()
        y = w * 2
        with pdt.inference_mode(False):  # turns recording back on, as PyTorch's
            assert not pdt.is_inference_mode_enabled() and pdt.is_grad_enabled()
            assert (w * 2).requires_grad
        assert not pdt.is_grad_enabled()
        assert pdt.is_inference_mode_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert pdt.is_grad_enabled() and not pdt.is_inference_mode_enabled()
    with pdt.inference_mode(False):
        z = w * 2
    assert z.requires_grad
    with pdt.no_grad():  # inference_mode inside no_grad restores no_grad's mode
        with pdt.inference_mode():
            pass
        assert not pdt.is_grad_enabled()
        with pdt.inference_mode(False):
            assert pdt.is_grad_enabled()
        assert not pdt.is_grad_enabled()


def test_inference_mode_decorator_and_exceptions(device):
    w = pdt.ones(2, device=device, requires_grad=True)

    @pdt.inference_mode()
    def predict(x):
        assert pdt.is_inference_mode_enabled()
        return w * x

    assert not predict(3.0).requires_grad and pdt.is_grad_enabled()

    @pdt.inference_mode  # the bare decorator, as PyTorch takes
    def bare(x):
        return w * x

    assert not bare(2.0).requires_grad and bare.__name__ == "bare"
    with pytest.raises(KeyError):
        with pdt.inference_mode():
            raise KeyError("x")
    assert pdt.is_grad_enabled() and not pdt.is_inference_mode_enabled()
    ctx = pdt.inference_mode()
    with ctx:
        with ctx:  # the same object entered twice
            pass
        assert pdt.is_inference_mode_enabled()
    assert not pdt.is_inference_mode_enabled()
    with pytest.raises(TypeError, match=r"^inference_mode\(\): argument 'mode' \(position 1\) must "
                       r"be bool, not int$"):
        pdt.inference_mode(1)


def test_inference_mode_is_per_thread():
    seen = []
    with pdt.inference_mode():
        t = threading.Thread(target=lambda: seen.append(
            (pdt.is_inference_mode_enabled(), pdt.is_grad_enabled())))
        t.start()
        t.join()
    assert seen == [(False, True)]
    # one object shared by threads: each restores its own modes (found by a reviewer)
    ctx = pdt.inference_mode()
    a_in, b_in, a_out, b_done = (threading.Event() for _ in range(4))
    got = {}

    def thread_a():
        with ctx:
            a_in.set()
            b_in.wait()
        got["a"] = pdt.is_grad_enabled()
        a_out.set()

    def thread_b():
        a_in.wait()
        with pdt.no_grad():
            with ctx:
                b_in.set()
                a_out.wait()
            got["b"] = pdt.is_grad_enabled()
        b_done.set()

    threads = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == {"a": True, "b": False}


def test_clone_function(device):
    a = np.arange(6.0).reshape(2, 3)
    x = pdt.tensor(a, device=device)
    y = pdt.clone(x.T)  # the layout kept, as x.T.clone() and PyTorch's preserve_format
    assert y.device == x.device and y.stride() == x.T.stride()
    np.testing.assert_array_equal(y.cpu().numpy(), a.T)
    c = pdt.clone(x.T, memory_format="contiguous_format")
    assert c.is_contiguous() and c.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(c.cpu().numpy(), a.T)
    y.add_(1.0)
    np.testing.assert_array_equal(x.cpu().numpy(), a)  # a copy
    w = pdt.tensor(a, device=device, requires_grad=True)
    pdt.clone(w).sum().backward()
    np.testing.assert_array_equal(w.grad.cpu().numpy(), np.ones_like(a))
    with pytest.raises(ValueError, match=r"required rank 4 tensor to use channels_last "
                                         r"format, got shape \(2, 3\)"):
        pdt.clone(x, memory_format="channels_last")
    with pytest.raises(TypeError, match=r"clone\(\): input must be a Tensor, got list"):
        pdt.clone([1.0])


@pytest.mark.parametrize("make, inside", [
    (lambda: pdt.no_grad(), False),
    (lambda: pdt.set_grad_enabled(False), False),
    (lambda: pdt.inference_mode(), False),
])
def test_a_decorated_generator_runs_its_body_in_the_mode(make, inside):
    """The mode is set around each resume of a decorated generator (as PyTorch's
    decorators do), and the caller's is back between them; it was restored as soon as
    the generator object was made, so the body ran with grad on."""
    w = pdt.ones(2, requires_grad=True)
    seen = []

    @make()
    def gen():
        seen.append((w * 2).requires_grad)
        got = yield pdt.is_grad_enabled()
        seen.append(got)
        try:
            yield pdt.is_grad_enabled()
        except ValueError:
            yield ("thrown", pdt.is_grad_enabled())
        finally:
            seen.append(("finally", pdt.is_grad_enabled()))
        return "done"

    g = gen()
    assert next(g) is inside and pdt.is_grad_enabled()
    assert g.send("sent") is inside and pdt.is_grad_enabled()
    assert g.throw(ValueError("x")) == ("thrown", inside) and pdt.is_grad_enabled()
    with pytest.raises(StopIteration) as stop:
        next(g)
    assert stop.value.value == "done"
    assert seen == [inside, "sent", ("finally", inside)]
    g2 = gen()
    next(g2)
    g2.send(None)
    g2.close()  # its finally runs inside the mode too
    assert seen[-1] == ("finally", inside) and pdt.is_grad_enabled()


def test_enable_grad_on_a_generator_inside_no_grad():
    @pdt.enable_grad()
    def gen():
        yield pdt.is_grad_enabled()

    with pdt.no_grad():
        assert list(gen()) == [True]
        assert not pdt.is_grad_enabled()


def test_bare_decorators_and_a_reused_set_grad_enabled():
    """@no_grad and @enable_grad without parentheses, as PyTorch 2 takes them; a
    set_grad_enabled object entered later sets its mode then (its __enter__ did
    nothing, so the mode of the moment stayed)."""
    @pdt.no_grad
    def off():
        return pdt.is_grad_enabled()

    @pdt.enable_grad
    def on():
        return pdt.is_grad_enabled()

    assert off() is False and pdt.is_grad_enabled()
    with pdt.no_grad():
        assert on() is True
    with pytest.raises(TypeError, match="takes no arguments"):
        pdt.no_grad(3)
    ctx = pdt.set_grad_enabled(False)
    pdt.set_grad_enabled(True)
    with ctx:
        assert not pdt.is_grad_enabled()
    assert pdt.is_grad_enabled()
