"""utils.checkpoint with use_reentrant=False (saved tensors hooks, as PyTorch's): what
the one-Function way refused or lost: second derivatives, keyword arguments that
require grad under autograd.grad, any outputs, outputs that do not require grad,
context_fn, determinism_check, early_stop, nested checkpoints; every gradient against
the plain call in float64 (or a closed form)."""
import contextlib

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.utils.checkpoint import (CheckpointError, checkpoint, checkpoint_sequential,
                                          noop_context_fn)


def _x(device, seed=0, shape=(3, 4)):
    rng = np.random.default_rng(seed)
    return pdt.tensor(rng.standard_normal(shape), dtype=pdt.float64, device=device,
                      requires_grad=True)


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("early_stop", [True, False])
def test_second_derivatives_are_those_of_the_plain_call(device, early_stop):
    """f = sum(sin(x) x): f'' = 2 cos x - x sin x (it raised: once differentiable); a
    gradient penalty through a Linear and tanh equals the plain call's to 1e-12."""
    x = _x(device)
    y = checkpoint(lambda t: (t.sin() * t).sum(), x, use_reentrant=False,
                   early_stop=early_stop)
    g, = pdt.autograd.grad(y, x, create_graph=True)
    h, = pdt.autograd.grad(g.sum(), x)
    a = _np(x)
    np.testing.assert_allclose(_np(g), np.cos(a) * a + np.sin(a), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(h), 2 * np.cos(a) - a * np.sin(a), rtol=1e-12, atol=1e-12)
    pdt.manual_seed(0)
    lin = nn.Linear(4, 5, device=device).to(dtype=pdt.float64)
    grads = []
    for ck in (False, True):
        x = _x(device, 1)
        fn = lambda t: lin(t).tanh()  # noqa: E731
        out = checkpoint(fn, x, use_reentrant=False, early_stop=early_stop) if ck else fn(x)
        gx, = pdt.autograd.grad((out ** 2).sum(), x, create_graph=True)
        lin.zero_grad()
        ((gx ** 2).sum() + out.sum()).backward()
        grads.append([_np(lin.weight.grad), _np(lin.bias.grad), _np(x.grad)])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_keyword_arguments_and_autograd_grad(device):
    """A keyword argument that requires grad: autograd.grad through it raised (it was
    taken for a parameter inside fn)."""
    x, z = _x(device, 2), _x(device, 3)
    y = checkpoint(lambda t, s=None: (t * s.exp()).sum(), x, s=z, use_reentrant=False)
    gx, gz = pdt.autograd.grad(y, [x, z])
    np.testing.assert_allclose(_np(gx), np.exp(_np(z)), rtol=1e-14)
    np.testing.assert_allclose(_np(gz), _np(x) * np.exp(_np(z)), rtol=1e-14)


def test_any_outputs(device):
    """A dict, None, numbers beside tensors and an output that does not require grad
    (a TypeError, or an output marked as requiring grad, before)."""
    x = _x(device)
    out = checkpoint(lambda t: {"y": t * t, "n": 3, "d": t.detach() + 1, "i": t.argmax()},
                     x, use_reentrant=False)
    assert out["n"] == 3 and out["y"].requires_grad
    assert not out["d"].requires_grad and not out["i"].requires_grad
    out["y"].sum().backward()
    np.testing.assert_allclose(_np(x.grad), 2 * _np(x), rtol=1e-15)
    assert checkpoint(lambda t: None, x, use_reentrant=False) is None


def test_nested_checkpoints_and_dropout(device):
    """Nested checkpoints with dropout inside: the masks of the first run are drawn
    again (preserve_rng_state), so the gradients are the plain call's."""
    grads = []
    for ck in (False, True):
        x = _x(device, 4)
        pdt.manual_seed(9)

        def inner(t):
            return nn.functional.dropout(t, 0.5, True).exp() * t

        def outer(t):
            u = checkpoint(inner, t * 3, use_reentrant=False) if ck else inner(t * 3)
            return (u.sin() * t).sum()
        y = checkpoint(outer, x, use_reentrant=False) if ck else outer(x)
        pdt.rand(5, device=device)  # the generator moves on before the backward
        y.backward()
        grads.append(_np(x.grad))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=1e-12)


def test_context_fn_and_recomputing_twice(device):
    """context_fn's first context wraps the first run, its second the recomputation
    (NotImplementedError before); a second backward (retain_graph) recomputes again."""
    log = []

    @contextlib.contextmanager
    def ctx(name):
        log.append(name + " in")
        try:  # early stop ends the recomputation by an exception, as PyTorch's
            yield
        finally:
            log.append(name + " out")
    x = _x(device)
    y = checkpoint(lambda t: (t * t).sum(), x, use_reentrant=False,
                   context_fn=lambda: (ctx("forward"), ctx("recompute")))
    assert log == ["forward in", "forward out"]
    y.backward(retain_graph=True)
    assert log == ["forward in", "forward out", "recompute in", "recompute out"]
    y.backward()
    assert log[4:] == ["recompute in", "recompute out"]
    np.testing.assert_allclose(_np(x.grad), 4 * _np(x), rtol=1e-15)
    assert all(isinstance(c, contextlib.nullcontext) for c in noop_context_fn())


def test_determinism_check_and_refusals(device):
    """A recomputation that saves other tensors than the first run raises
    CheckpointError (a RuntimeError); determinism_check='none' skips the comparison but
    still needs as many tensors; bad arguments raise ValueError, as PyTorch's."""
    def changing(calls):
        def fn(t):
            calls.append(1)
            return (t[:len(calls)] ** 2).sum()  # saves a slice of another shape
        return fn
    x = _x(device)
    y = checkpoint(changing([]), x, use_reentrant=False)
    with pytest.raises(CheckpointError, match="different metadata"):
        y.backward()
    assert issubclass(CheckpointError, RuntimeError)
    y = checkpoint(changing([]), x, use_reentrant=False, determinism_check="none")
    y.backward()  # the recomputed (2, 4) slice stands for the first run's (1, 4) one
    assert x.grad is not None
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        checkpoint(lambda t: t * 2, x, use_reentrant=False, determinism_check="bogus")
    with pytest.raises(ValueError, match="context_fn or debug is only supported when "
                                         "use_reentrant=False"):
        checkpoint(lambda t: t * 2, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match="context_fn or debug"):
        checkpoint(lambda t: t * 2, x, use_reentrant=True, context_fn=noop_context_fn()[::-1])
    # checkpoint_sequential passed any keyword on to the functions (a TypeError there)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint_sequential([pdt.tanh, pdt.tanh], 2, x, use_reentrant=False, foo=1)


@pytest.mark.parametrize("reentrant", [False, True])
def test_the_intermediate_tensors_are_freed(device, reentrant):
    """What checkpoint is for: after the first run no intermediate tensor of fn is
    alive (the plain call keeps h for the backward of sin and of the product)."""
    import gc
    import weakref
    refs = []

    def fn(t):
        h = t.exp()
        refs.append(weakref.ref(h))
        return (h.sin() * h).sum()
    x = _x(device, 5, (50,))
    y = checkpoint(fn, x, use_reentrant=reentrant)
    gc.collect()
    assert refs[0]() is None
    y.backward()
    e = np.exp(_np(x))
    np.testing.assert_allclose(_np(x.grad), (np.cos(e) * e + np.sin(e)) * e, rtol=1e-12)
    plain = fn(x)
    gc.collect()
    assert refs[-1]() is not None and plain.requires_grad  # the plain call keeps it


def test_reentrant_outputs_beside_tensors(device):
    """use_reentrant=True: numbers and None in an output tuple, or None alone (a
    TypeError before), as PyTorch's reentrant checkpoint."""
    x = _x(device)
    y, n, nothing = checkpoint(lambda t: (t * t, 3, None), x, use_reentrant=True)
    assert n == 3 and nothing is None and y.requires_grad
    y.sum().backward()
    np.testing.assert_allclose(_np(x.grad), 2 * _np(x), rtol=1e-15)
    assert checkpoint(lambda t: None, x, use_reentrant=True) is None


def test_another_threads_ops_are_not_checkpointed(device):
    """Saved tensors hooks are per thread, as PyTorch's: while fn runs under checkpoint
    in this thread, a product recorded by another thread saved its tensors into the
    checkpoint's hooks (its backward recomputed fn, and this backward raised
    CheckpointError: 7 tensors saved instead of 3); both gradients are the closed forms."""
    import threading
    inside, recorded = threading.Event(), threading.Event()

    def fn(t):
        y = (t * t).sin()
        inside.set()
        assert recorded.wait(60)  # the other thread records its ops meanwhile
        return y.sum()

    got = {}

    def other():
        try:
            assert inside.wait(60)
            w = pdt.tensor([1.0, 2.0, 3.0], dtype=pdt.float64, device=device,
                           requires_grad=True)
            loss = (w * w * w).sum()
            recorded.set()
            loss.backward()
            got["grad"] = _np(w.grad)
        finally:
            recorded.set()

    x = _x(device)
    thread = threading.Thread(target=other)
    thread.start()
    y = checkpoint(fn, x, use_reentrant=False)
    thread.join()
    y.backward()
    np.testing.assert_allclose(_np(x.grad), 2 * _np(x) * np.cos(_np(x) ** 2), rtol=1e-12)
    np.testing.assert_allclose(got["grad"], [3.0, 12.0, 27.0], rtol=1e-12)
