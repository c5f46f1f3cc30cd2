"""The recorder in C (Note [recording in C] in csrc/python/autograd_record.c) builds the
same graph as the recorder in Python (pydevtensor/autograd/dispatch.py): the same Node
classes, edges, needs_input_grad, output numbers and saved values, and the same
gradients to the bit, on every device; and the cases it leaves to Python still work."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import _C, autograd
from conftest import with_switch_on_then_off


@pytest.fixture
def both_recorders():
    """Runs a function with the C recorder on, then off; returns both results."""
    return with_switch_on_then_off(autograd._use_c_recorder)


def graph(t):
    """The graph behind t as nested tuples: (node class, needs_input_grad, the edges'
    output numbers and graphs); leaves as ("leaf", shape)."""
    def walk(node):
        if type(node).__name__ == "AccumulateGrad":
            return ("leaf", tuple(node.variable.shape))
        edges = tuple(None if e[0] is None else (e[1], walk(e[0])) for e in node.next_functions)
        return (type(node).__name__, node.needs_input_grad, edges)
    return (t.output_nr, walk(t.grad_fn)) if t.grad_fn is not None else None


def program(device):
    """A small program touching the recorder's paths: binary ops with tensors and
    numbers, keyword arguments, methods and functions, a reduction, a view, matrix
    products whose Node class is picked from the operands (mm, dot, batched), indexing
    (picked from the key), a two-output op (picked), an op without a derivative
    (argmax), an in-place op (left to Python) and a dtype change (picked)."""
    rng = np.random.default_rng(7)
    a = pdt.tensor(rng.standard_normal((3, 4)), device=device, requires_grad=True)
    b = pdt.tensor(rng.standard_normal((4, 2)), device=device, requires_grad=True)
    c = pdt.tensor(rng.standard_normal((3, 4)), device=device)  # no grad
    h = (a * c + a * 2.0 - 1.5).relu()
    h = pdt.add(h, a, alpha=0.5)
    m = h @ b
    v, i = m.max(dim=1)
    s = m.sum(dim=0, keepdim=True).T.exp()
    idx = m.argmax()
    w = m.clone()
    w.mul_(3.0)
    f = w.to(pdt.float32).double()
    d = a[0] @ a[1]
    e = pdt.matmul(a[1:].reshape(1, 2, 4), b)
    loss = v.sum() + s.sum() + f.mean() + (a ** 2).sum() * 0.1 + d + e.sum()
    outs = {"h": h, "m": m, "v": v, "i": i, "s": s, "idx": idx, "w": w, "f": f, "d": d,
            "e": e, "loss": loss}
    loss.backward()
    return outs, a.grad, b.grad


def test_same_graph_and_gradients(device, both_recorders):
    (outs_c, ga_c, gb_c), (outs_py, ga_py, gb_py) = both_recorders(lambda: program(device))
    for name in outs_c:
        oc, op = outs_c[name], outs_py[name]
        assert oc.requires_grad == op.requires_grad, name
        assert graph(oc) == graph(op), name
        np.testing.assert_array_equal(oc.detach().cpu().numpy(), op.detach().cpu().numpy())
    assert outs_c["i"].grad_fn is None and outs_c["idx"].grad_fn is None  # integer results
    assert outs_c["v"].grad_fn.name() == "MaxBackward0" and outs_c["v"].output_nr == 0
    assert outs_c["d"].grad_fn.name() == "DotBackward0"
    assert outs_c["e"].grad_fn.name() == "UnsafeViewBackward0"  # PyTorch's matmul's name
    assert outs_c["m"].grad_fn.name() == "MmBackward0"
    np.testing.assert_array_equal(ga_c.cpu().numpy(), ga_py.cpu().numpy())
    np.testing.assert_array_equal(gb_c.cpu().numpy(), gb_py.cpu().numpy())


def test_saved_tensors_and_versions(device):
    a = pdt.ones(3, device=device, requires_grad=True)
    b = pdt.full((3,), 2.0, device=device)
    y = a * b
    # only b: a's gradient reads b, and b needs none (Note in derivatives_operands.py's
    # _SavesOperands)
    assert [t.shape for t in y.grad_fn.saved_tensors] == [(3,)]
    assert y.grad_fn.saved_tensors[0]._version == b._version
    b.add_(1.0)  # b was saved: its version moved
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("op", ["mul", "rmul", "div", "matmul", "pow-number"])
def test_an_operand_whose_gradient_is_not_wanted_is_not_saved(device, op):
    """y * 2, 2 * y, y / c and y @ c, with c not requiring grad, keep nothing of y (as
    PyTorch saves self for mul only when other needs a gradient), so an in-place change
    of y afterwards (y[:, 0] = y[:, 1] * 2, the D2L idiom) leaves the backward as it
    was; y ** 2 reads y, and refuses."""
    x = pdt.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=pdt.float64, device=device,
                   requires_grad=True)
    c = pdt.tensor([[0.5, -1.0], [2.0, 3.0]], dtype=pdt.float64, device=device)
    f = {"mul": lambda y: y * c, "rmul": lambda y: 2.0 * y, "div": lambda y: y / c,
         "matmul": lambda y: y @ c, "pow-number": lambda y: y ** 2}[op]
    y = x * 1.0
    z = f(y)
    y[:, 0] = y[:, 1] * 2.0
    if op == "pow-number":
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()
        return
    z.sum().backward()
    w = np.ones((2, 2))
    cn = c.cpu().numpy()
    want = {"mul": w * cn, "rmul": 2.0 * w, "div": w / cn, "matmul": w @ cn.T}[op]
    np.testing.assert_allclose(x.grad.cpu().numpy(), want, rtol=1e-15)


def test_leaves_share_one_accumulator(device):
    a = pdt.ones(2, device=device, requires_grad=True)
    y1, y2 = a * 2.0, a + 1.0
    acc1, acc2 = y1.grad_fn.next_functions[0][0], y2.grad_fn.next_functions[0][0]
    assert acc1 is acc2 and acc1.variable is a
    (y1.sum() + y2.sum()).backward()
    np.testing.assert_array_equal(a.grad.cpu().numpy(), [3.0, 3.0])


def test_a_leaf_keeps_its_accumulator_weakly_with_either_recorder(device, both_recorders):
    """A leaf's AccumulateGrad is one while a graph holds it (PyTorch's, kept weakly on the
    leaf): the C recorder makes it without node.py's accumulator() and its edges' Edges
    without the type call, and must keep both as that did."""
    import gc
    import weakref

    def run():
        x = pdt.ones(3, device=device, requires_grad=True)
        c = pdt.ones(3, device=device)
        y2, y3 = x * 2.0, x * c
        acc = y2.grad_fn.next_functions[0][0]
        same = acc is y3.grad_fn.next_functions[0][0] and acc.variable is x
        # x * c: c needs no gradient, its edge reads (None, 0), an Edges' item
        edges = y3.grad_fn.next_functions
        shape = (type(edges).__name__, edges[1], list(edges)[1], len(edges))
        gone = weakref.ref(acc)
        del y2, y3, acc, edges
        gc.collect()
        dead = gone() is None
        y4 = x * 4.0
        fresh = y4.grad_fn.next_functions[0][0]
        again = fresh is (x * 5.0).grad_fn.next_functions[0][0] and fresh.variable is x
        y4.sum().backward()
        return same, shape, dead, again, x.grad.cpu().numpy().tolist()

    on, off = both_recorders(run)
    assert on == off
    assert on == (True, ("Edges", (None, 0), (None, 0), 2), True, True, [4.0] * 3)


def test_basic_indexing_is_recorded_once(device, both_recorders, monkeypatch):
    """x[key] for the basic keys: the recorded forward is the C indexing itself
    (dispatch.register_forward), and these keys (ints, slices, tuples of those, None and
    Ellipsis) never reach the Python dispatcher over basic and advanced indices (Note
    [indexing's fast keys]); values, Node classes and gradients as before, with either
    recorder."""
    from pydevtensor import _ops_getitem
    calls = []
    real = _ops_getitem._needs_advanced
    monkeypatch.setattr(_ops_getitem, "_needs_advanced", lambda idx: calls.append(idx) or real(idx))
    keys = [1, -1, slice(1, 3), (1, 2), (Ellipsis, 0), (None, 1), (slice(None), slice(0, 4, 2))]

    def run():
        a = pdt.tensor(np.arange(12, dtype=np.float32).reshape(3, 4), device=device,
                       requires_grad=True)
        outs = []
        for k in keys:
            calls.clear()
            y = a[k]
            assert not calls, k
            outs.append((y.detach().cpu().numpy(), y.grad_fn.name()))
            (y * 2.0).sum().backward()
        return outs, a.grad.cpu().numpy()

    (outs_c, grad_c), (outs_py, grad_py) = both_recorders(run)
    ref = np.arange(12, dtype=np.float32).reshape(3, 4)
    want = np.zeros((3, 4), np.float32)
    for k, (value, name) in zip(keys, outs_c):
        np.testing.assert_array_equal(value, ref[k])
        last = [i for i in (k if isinstance(k, tuple) else (k,)) if i is not Ellipsis][-1]
        assert name == ("SelectBackward0" if isinstance(last, int) else "SliceBackward0"), k
        np.add.at(want, k if not isinstance(k, tuple) or None not in k else k[1:], 2.0)
    np.testing.assert_array_equal(grad_c, want)
    np.testing.assert_array_equal(grad_py, grad_c)
    assert [n for _, n in outs_py] == [n for _, n in outs_c]


def test_cases_left_to_python_still_raise(device):
    a = pdt.ones(2, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="out=... arguments don't support"):
        pdt.add(a, a, out=pdt.empty(2, device=device))
    with pytest.raises(NotImplementedError, match=r"bitwise_and\(\) has no derivative"):
        pdt.bitwise_and(a, a)


def test_no_grad_and_errors_in_the_forward(device):
    a = pdt.ones(2, device=device, requires_grad=True)
    with pdt.no_grad():
        assert (a * 2.0).grad_fn is None
    with pytest.raises(ValueError, match="size"):
        a + pdt.ones(3, device=device)
    assert _C.is_grad_enabled()  # the failed forward left grad mode as it was
    assert (a * 2.0).grad_fn.name() == "MulBackward0"


def test_recorder_switch_rejects_bad_arguments():
    with pytest.raises(TypeError, match="_set_autograd_recorder"):
        _C._set_autograd_recorder(1, 2)
    with pytest.raises(TypeError, match="_set_autograd_recorder"):
        _C._set_autograd_recorder({}, None, None, None)


@pytest.fixture
def exp_rule():
    """RULES["exp"] replaced for one test, then put back with the recorder as it was."""
    from pydevtensor.autograd import dispatch
    old = dispatch.RULES["exp"]
    yield dispatch.RULES
    dispatch.RULES["exp"] = old
    _C._set_autograd_dispatcher(autograd._dispatch)
    autograd._use_c_recorder(True)


def test_a_rule_that_is_no_node_class_raises(exp_rule):
    a = pdt.ones(2, requires_grad=True)

    class Picky(autograd.Node):
        pick = staticmethod(lambda *args, **kwargs: type(iter([])))  # no __new__ at all

    exp_rule["exp"] = Picky  # must raise, not crash
    with pytest.raises(TypeError, match="not a Node class"):
        a.exp()
    exp_rule["exp"] = type(iter([]))  # not even a Node: as in Python, no pick attribute
    with pytest.raises(AttributeError, match="pick"):
        a.exp()
    exp_rule["exp"] = None  # as if missing: the dispatcher's error
    with pytest.raises(NotImplementedError, match=r"exp\(\) has no derivative"):
        a.exp()


def test_a_new_dispatcher_sees_every_call(exp_rule):
    seen = []

    def spy(name, method, args, kwargs):
        seen.append(name)
        return autograd._dispatch(name, method, args, kwargs)

    _C._set_autograd_dispatcher(spy)  # turns the C recorder off
    a = pdt.ones(2, requires_grad=True)
    (a * 2.0).exp().sum()
    assert seen == ["mul", "exp", "sum"]


def _reroute_class(base, how, set_with, edge):
    """A subclass of the Node class base whose next_functions reads edge (an edge
    elsewhere) and whose writes of next_functions are logged in set_with: by a property
    of its own, or by __getattribute__ and __setattr__."""
    if how == "property":
        class Rerouted(base):
            __slots__ = ()

            @property
            def next_functions(self):
                return (edge,)

            @next_functions.setter
            def next_functions(self, edges):
                set_with.append(edges)
                autograd.Node.next_functions.fset(self, edges)
        return Rerouted

    class Rerouted(base):
        __slots__ = ()

        def __getattribute__(self, name):
            return (edge,) if name == "next_functions" else object.__getattribute__(self, name)

        def __setattr__(self, name, value):
            if name == "next_functions":
                set_with.append(value)
            object.__setattr__(self, name, value)
    return Rerouted


@pytest.mark.parametrize("how", ["property", "getattribute"])
def test_a_node_class_with_its_own_next_functions_is_read_and_written_through_it(
        device, exp_rule, how):
    """The recorder and the engine read and write a Node's edges in its _edges slot
    directly (Note [edges in C]) only when its class keeps Node's own next_functions
    and attribute access: a class with its own is still written through it by the
    recorder and read through it by the engine (here it sends a's gradient to b)."""
    a = pdt.tensor([0.5, -1.0], dtype=pdt.float64, device=device, requires_grad=True)
    b = pdt.zeros(2, dtype=pdt.float64, device=device, requires_grad=True)
    keep = b * 1.0  # holds b's AccumulateGrad
    set_with = []
    exp_rule["exp"] = _reroute_class(exp_rule["exp"], how, set_with,
                                     keep.grad_fn.next_functions[0])
    y = a.exp()
    assert len(set_with) == 1 and type(set_with[0]) is tuple  # as the recorder builds it
    assert set_with[0][0][0] is not None and set_with[0][0][0].variable is a
    y.sum().backward()
    assert a.grad is None
    np.testing.assert_allclose(b.grad.cpu().numpy(), np.exp([0.5, -1.0]), rtol=1e-15)


def test_accumulate_grad_edges():
    """AccumulateGrad sets its empty edges in the slot directly; a subclass of it with
    its own next_functions setter is still given them."""
    from pydevtensor.autograd.node import AccumulateGrad, Edges
    x = pdt.ones(2, requires_grad=True)
    acc = AccumulateGrad(x)
    assert type(acc.next_functions) is Edges and acc.next_functions == ()
    seen = []

    class Logged(AccumulateGrad):
        __slots__ = ()

        @property
        def next_functions(self):
            return autograd.Node.next_functions.fget(self)

        @next_functions.setter
        def next_functions(self, edges):
            seen.append(edges)
            autograd.Node.next_functions.fset(self, edges)

    assert Logged(x).next_functions == () and seen == [()]


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_each_saves_operands_table_is_its_keeps():
    """_SavesOperands.save reads keeps(need_a, need_b) from a table made with the class:
    the table of every such Node class (the library's and a new one) says what its keeps
    says."""
    from pydevtensor.autograd.derivatives_operands import _SavesOperands

    class New(_SavesOperands):
        keeps = staticmethod(lambda need_a, need_b: (need_a and need_b, not need_a))

    classes = [_SavesOperands] + list(_subclasses(_SavesOperands))
    assert New in classes and len(classes) > 8
    for cls in classes:
        for need_a in (False, True):
            for need_b in (False, True):
                assert cls._keep_table[2 * need_a + need_b] == cls.keeps(need_a, need_b)
