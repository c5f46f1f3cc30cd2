"""The ops written in Python that autograd records go through _C._RecordedOp (Note
[recorded ops in C] in csrc/python/op_wrappers.c): a call with nothing requiring grad (or
with grad mode off) goes straight to the op, any other to the Python wrapper, which asks
again and records.  The check must never miss a tensor that requires grad: one it missed
would drop a gradient without a word."""
import collections
import copy
import inspect
import pickle
import weakref

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import DEVICES

_C = pdt._C


@pytest.fixture(params=DEVICES)
def dev(request):
    return request.param


def _probe():
    """A _RecordedOp whose two paths say which one ran, with what."""
    return _C._RecordedOp(lambda *a, **k: ("op", a, k), lambda *a, **k: ("slow", a, k))


Pair = collections.namedtuple("Pair", "a b")


class Seq(list):
    pass


def test_the_check_finds_every_tensor_that_requires_grad(dev):
    p = _probe()
    w = pdt.ones(2, device=dev, requires_grad=True)
    c = pdt.ones(2, device=dev)
    slow = [(w,), (c, w), (1, [c, w]), ((c, w),), (Pair(c, w),), (Seq([c, w]),), (w[0:1],)]
    for args in slow:
        assert p(*args)[0] == "slow", args
    assert p(c, other=w)[0] == "slow" and p(other=[c, w])[0] == "slow"
    fast = [(), (c,), (c, [c, c]), (1, "x", None), (w.detach(),), ([],), ({"w": w},)]
    for args in fast:
        assert p(*args)[0] == "op", args
    with pdt.no_grad():
        assert p(w)[0] == "op" and p([w])[0] == "op"
    with pdt.no_grad():
        v = w[0:1]  # a view of w made without recording: its base requires grad
    assert not v.requires_grad and p(v)[0] == "slow"  # the slow path asks again


def test_arguments_pass_through_unchanged():
    p = _probe()
    kind, args, kwargs = p(1, 2.5, "s", key=3, other=None)
    assert kind == "op" and args == (1, 2.5, "s") and kwargs == {"key": 3, "other": None}
    with pytest.raises(TypeError, match="_RecordedOp\\(op, slow\\) takes two positional"):
        _C._RecordedOp(len)
    with pytest.raises(TypeError, match="both must be callable"):
        _C._RecordedOp(len, 3)


@pytest.mark.parametrize("name", ["index_select", "gather", "cumsum", "tril", "diagonal",
                                  "repeat", "sort", "topk"])
def test_recorded_ops_behave_as_their_functions(name):
    op = getattr(pdt, name, None) or getattr(pdt.Tensor, name)
    inner = inspect.unwrap(op)
    assert inspect.isroutine(op) and op.__name__ == inner.__name__
    assert op.__doc__ == inner.__doc__ and inspect.signature(op) == inspect.signature(inner)
    if hasattr(pdt, name):
        assert pickle.loads(pickle.dumps(op)) is op and copy.deepcopy(op) is op
    assert weakref.ref(op)() is op  # as a function takes them (a review)


def test_recorded_ops_record_and_skip(dev):
    """index_select through the C check: recorded (a grad_fn, the gradient NumPy's) when
    its input requires grad, not under no_grad, a plain result otherwise; as a method too."""
    a = np.arange(12.0).reshape(4, 3)
    x = pdt.tensor(a, device=dev, requires_grad=True)
    i = pdt.tensor([3, 0, 3], device=dev)
    assert isinstance(pdt.index_select, _C._RecordedOp)
    y = pdt.index_select(x, 0, i)
    assert y.grad_fn is not None and y.requires_grad
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.array([[1.0] * 3, [0] * 3,
                                                                  [0] * 3, [2.0] * 3]))
    with pdt.no_grad():
        assert pdt.index_select(x, 0, i).grad_fn is None
    z = x.detach().index_select(0, i)
    assert z.grad_fn is None and not z.requires_grad
    np.testing.assert_array_equal(z.cpu().numpy(), a[[3, 0, 3]])
    c = x.cumsum(dim=1)  # a keyword, through the bound method
    assert c.grad_fn is not None
    np.testing.assert_allclose(c.detach().cpu().numpy(), np.cumsum(a, 1), rtol=1e-12)


def test_a_namedtuple_of_tensors_is_recorded(dev):
    """cat and stack of a namedtuple holding a tensor that requires grad record their node
    and give it its gradient (the check looks into subclasses of tuple and list)."""
    w = pdt.tensor([1.0, 2.0], device=dev, requires_grad=True)
    c = pdt.ones(2, device=dev)
    for f, want in ((pdt.cat, [1.0, 1.0]), (pdt.stack, [1.0, 1.0])):
        w.grad = None
        y = f(Pair(c, w))
        assert y.grad_fn is not None
        (y * 1.0).sum().backward()
        assert w.grad.tolist() == want


def test_a_wrapper_is_collected_with_its_weak_references():
    import gc
    o = _C._RecordedOp(len, len)
    w = weakref.ref(o)
    assert repr(o).startswith("<pydevtensor._C._RecordedOp of ")  # no __qualname__ given
    del o
    gc.collect()
    assert w() is None
