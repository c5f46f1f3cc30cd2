"""PyTorch's hooks of every module's call (nn.modules.module.register_module_*),
Module.register_backward_hook (the deprecated one), Module.call_super_init,
RemovableHandle.id, nn.utils.skip_init and nn.init's deprecated names."""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.nn.modules.module import (register_module_forward_hook,
                                           register_module_forward_pre_hook,
                                           register_module_full_backward_hook,
                                           register_module_full_backward_pre_hook)


def test_global_forward_hooks_run_for_every_module_before_its_own(device):
    log = []
    net = nn.Sequential(nn.Linear(2, 2, device=device), nn.ReLU())
    net[0].register_forward_pre_hook(lambda m, a: log.append("own pre"))
    net[0].register_forward_hook(lambda m, a, out: log.append("own post"))
    pre = register_module_forward_pre_hook(lambda m, a: log.append(("pre", type(m).__name__)))
    post = register_module_forward_hook(lambda m, a, k, out: log.append(
        ("post", type(m).__name__, sorted(k))), with_kwargs=True)
    try:
        net(pdt.ones(1, 2, device=device))
    finally:
        pre.remove()
        post.remove()
    assert log == [("pre", "Sequential"), ("pre", "Linear"), "own pre", ("post", "Linear", []),
                   "own post", ("pre", "ReLU"), ("post", "ReLU", []), ("post", "Sequential", [])]
    log.clear()
    net(pdt.ones(1, 2, device=device))  # removed: only the module's own
    assert log == ["own pre", "own post"] and pre.id != post.id


def test_global_forward_hooks_replace_args_and_output_and_always_call(device):
    double = register_module_forward_pre_hook(lambda m, a: (a[0] * 2,))
    plus = register_module_forward_hook(lambda m, a, out: out + 1)
    try:
        out = nn.Identity()(pdt.ones(2, device=device))
    finally:
        double.remove()
        plus.remove()
    np.testing.assert_array_equal(out.cpu().numpy(), [3.0, 3.0])
    seen = []
    h = register_module_forward_hook(lambda m, a, out: seen.append(out), always_call=True)
    try:
        with pytest.raises(RuntimeError):
            nn.Linear(2, 2, device=device)(pdt.ones(3, device=device))
    finally:
        h.remove()
    assert seen == [None]


def test_global_full_backward_hook(device):
    got = []
    h = register_module_full_backward_hook(
        lambda m, gi, go: got.append((type(m).__name__, gi[0].cpu().numpy().copy())))
    lin = nn.Linear(2, 1, device=device)
    x = pdt.ones(3, 2, device=device, requires_grad=True)
    try:
        lin(x).sum().backward()
    finally:
        h.remove()
    assert got[0][0] == "Linear"
    w = lin.weight.detach().cpu().numpy()
    np.testing.assert_allclose(got[0][1], np.repeat(w, 3, axis=0), rtol=1e-6)
    lin(x).sum().backward()
    assert len(got) == 1
    with pytest.raises(TypeError, match=r"register_module_forward_hook\(\): hook must be "
                                        r"callable, got int"):
        register_module_forward_hook(3)


def test_register_backward_hook_sees_the_last_node_as_pytorch(device):
    """Linear's last node is addmm: grad_input is (bias, input, weight.T)'s gradients,
    None for an input that does not require grad; PyTorch's FutureWarning."""
    lin = nn.Linear(2, 3, device=device)
    seen = []
    h = lin.register_backward_hook(lambda m, gi, go: seen.append(
        ([None if g is None else tuple(g.shape) for g in gi], [tuple(g.shape) for g in go])))
    for x, middle in ((pdt.ones(4, 2, device=device), None),
                      (pdt.ones(4, 2, device=device, requires_grad=True), (4, 2))):
        with pytest.warns(FutureWarning, match="Using a non-full backward hook when the "
                                               "forward contains multiple autograd Nodes"):
            y = lin(x)
        y.sum().backward()
        assert seen.pop() == ([(3,), middle, (2, 3)], [(4, 3)])
    h.remove()
    relu = nn.ReLU()
    relu.register_backward_hook(lambda m, gi, go: (gi[0] * 0,))  # replaces grad_input
    x = pdt.ones(3, device=device, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one node whose input is x's node: no warning
        y = relu(x * 1)
    y.sum().backward()
    assert x.grad.cpu().tolist() == [0.0, 0.0, 0.0]


def test_regular_and_full_backward_hooks_do_not_mix():
    both = r"Cannot use both regular backward hooks and full backward hooks on a single Module"
    lin = nn.Linear(1, 1)
    lin.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match=both):
        lin.register_backward_hook(lambda *a: None)
    lin = nn.Linear(1, 1)
    lin.register_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match=both):
        lin.register_full_backward_hook(lambda *a: None)
    lin.register_full_backward_pre_hook(lambda *a: None)  # a pre-hook may join, as PyTorch's


def test_call_super_init():
    calls = []

    class Mixin:
        def __init__(self, *args, **kwargs):
            calls.append((args, kwargs))
            super().__init__()

    class Plain(nn.Module, Mixin):
        def __init__(self):
            super().__init__()

    class Cooperative(nn.Module, Mixin):
        call_super_init = True

        def __init__(self):
            super().__init__(3, k=4)

    Plain()
    assert calls == [] and nn.Module.call_super_init is False
    Cooperative()
    assert calls == [((3,), {"k": 4})]
    with pytest.raises(TypeError, match=r"Module.__init__\(\) takes 1 positional argument "
                                        r"but 2 were given"):
        nn.Module(1)
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'x'"):
        nn.Module(x=1)


def test_removable_handle_ids_are_distinct_ints():
    lin = nn.Linear(1, 1)
    handles = [lin.register_forward_hook(lambda *a: None),
               lin.register_full_backward_hook(lambda *a: None),
               pdt.ones(1, requires_grad=True).register_hook(lambda g: g)]
    ids = [h.id for h in handles]
    assert all(type(i) is int for i in ids) and len(set(ids)) == 3


def test_skip_init(device):
    lin = nn.utils.skip_init(nn.Linear, 2, 3, bias=False, device=device)
    assert type(lin) is nn.Linear and lin.weight.shape == (3, 2) and lin.bias is None
    assert lin.weight.device == pdt.device(device)
    with pytest.raises(RuntimeError, match="Expected a Module; got <class 'int'>"):
        nn.utils.skip_init(int)
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg"):
        nn.utils.skip_init(nn.ReLU)


@pytest.mark.parametrize("old", ["uniform", "normal", "constant", "xavier_uniform",
                                 "xavier_normal", "kaiming_uniform", "kaiming_normal",
                                 "orthogonal", "sparse", "eye", "dirac"])
def test_deprecated_init_names_warn_and_fill(device, old):
    args = {"constant": (0.5,), "sparse": (0.5,)}.get(old, ())
    shape = (2, 2, 3) if old == "dirac" else (3, 4)
    w = pdt.full(shape, float("nan"), device=device)
    with pytest.warns(FutureWarning, match=rf"^`nn.init.{old}` is now deprecated in favor of "
                                           rf"`nn.init.{old}_`.$"):
        out = getattr(nn.init, old)(w, *args)
    assert out is w and not np.isnan(w.cpu().numpy()).any()


def test_full_backward_hooks_leave_an_output_without_grad_as_it_was(device):
    # y * 3 does not require grad: as PyTorch's, the hooks' identity keeps it so
    # (it made it require grad, gave it a grad_fn and handed the hooks its gradient)
    class Two(nn.Module):
        def forward(self, x, y):
            return x * 2, y * 3

    got = []
    m = Two()
    m.register_full_backward_pre_hook(lambda mod, go: got.append(go))
    m.register_full_backward_hook(lambda mod, gi, go: got.append(go))
    x = pdt.ones(2, device=device, dtype=pdt.float64, requires_grad=True)
    y = pdt.ones(2, device=device, dtype=pdt.float64)
    a, b = m(x, y)
    assert a.requires_grad and not b.requires_grad
    assert b.grad_fn is None and b.is_leaf
    (a.sum() + b.sum() * 5).backward()
    assert len(got) == 2
    for go in got:
        np.testing.assert_array_equal(go[0].cpu().numpy(), np.ones(2))
        assert go[1] is None
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.full(2, 2.0))
    a, b = m(x, y)
    b.add_(1)  # not a view of the hooks' Function: writable
    np.testing.assert_array_equal(b.cpu().numpy(), np.full(2, 4.0))


def test_full_backward_hooks_prepend(device):
    # PyTorch's prepend=: a hook so registered runs before those already there
    order = []
    lin = nn.Linear(2, 1, device=device)
    lin.register_full_backward_hook(lambda m, gi, go: order.append("b"))
    lin.register_full_backward_hook(lambda m, gi, go: order.append("a"), prepend=True)
    lin.register_full_backward_hook(lambda m, gi, go: order.append("c"), False)
    lin.register_full_backward_pre_hook(lambda m, go: order.append("pre2"))
    lin.register_full_backward_pre_hook(lambda m, go: order.append("pre1"), True)
    x = pdt.ones(3, 2, device=device, requires_grad=True)
    lin(x).sum().backward()
    assert order == ["pre1", "pre2", "a", "b", "c"]


def test_global_full_backward_pre_hook(device):
    # PyTorch's: every module's backward, before the module's own pre-hooks; a tuple
    # returned replaces grad_output
    order = []
    lin = nn.Linear(2, 1, device=device, dtype=pdt.float64)
    lin.register_full_backward_pre_hook(lambda m, go: order.append(("own", go[0].tolist())))
    h = register_module_full_backward_pre_hook(
        lambda m, go: (order.append((type(m).__name__, go[0].tolist())), (go[0] * 3,))[1])
    x = pdt.ones(2, 2, device=device, dtype=pdt.float64, requires_grad=True)
    try:
        lin(x).sum().backward()
    finally:
        h.remove()
    assert order == [("Linear", [[1.0], [1.0]]), ("own", [[3.0], [3.0]])]
    w = lin.weight.detach().cpu().numpy()
    np.testing.assert_allclose(x.grad.cpu().numpy(), 3 * np.repeat(w, 2, axis=0), rtol=1e-15)
    x.grad = None
    lin(x).sum().backward()  # removed: the module's own hook alone
    assert len(order) == 3
    np.testing.assert_allclose(x.grad.cpu().numpy(), np.repeat(w, 2, axis=0), rtol=1e-15)


def test_full_backward_hook_skipped_when_the_gradient_bypasses_the_outputs(device):
    # PyTorch's: outputs in a dict are not marked, so the hook does not fire (it was
    # called with grad_output None); in a double backward the gradient reaches the
    # inputs again without passing through the outputs: the hook fires once
    class Dict(nn.Module):
        def forward(self, x):
            return {"a": x * 2}

    got = []
    m = Dict()
    m.register_full_backward_hook(lambda mod, gi, go: got.append(go))
    x = pdt.ones(2, device=device, dtype=pdt.float64, requires_grad=True)
    m(x)["a"].sum().backward()
    assert got == []
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [2.0, 2.0])

    tanh = nn.Tanh()
    tanh.register_full_backward_hook(lambda mod, gi, go: got.append(go))
    x = pdt.tensor([0.5, -1.0], device=device, dtype=pdt.float64, requires_grad=True)
    (g,) = pdt.autograd.grad(tanh(x).sum(), x, create_graph=True)
    g.sum().backward()
    assert len(got) == 1
    t = np.tanh([0.5, -1.0])  # d/dx (1 - tanh(x)^2) = -2 tanh (1 - tanh^2)
    np.testing.assert_allclose(x.grad.cpu().numpy(), -2 * t * (1 - t ** 2), rtol=1e-14)


def test_registration_hooks_see_and_may_replace_every_registration(device):
    # PyTorch's register_module_{buffer,parameter,module}_registration_hook: called by
    # register_buffer / register_parameter / add_module and the assignments that
    # register (not for a parameter slot reserved with None); a result replaces the value
    from pydevtensor.nn.modules import module as mm
    log = []
    handles = [
        mm.register_module_buffer_registration_hook(
            lambda m, name, t: log.append(("buffer", name)) or (None if t is None else t * 0)),
        mm.register_module_parameter_registration_hook(
            lambda m, name, p: log.append(("parameter", name))),
        mm.register_module_module_registration_hook(
            lambda m, name, sub: log.append(("module", name)) or (
                nn.Identity() if isinstance(sub, nn.ReLU) else None))]
    try:
        bn = nn.BatchNorm1d(2, device=device)
        m = nn.Module()
        m.w = nn.Parameter(pdt.ones(3, device=device))
        m.register_parameter("unused", None)
        m.register_buffer("b", pdt.ones(2, device=device))
        m.b = pdt.full((4,), 5.0, device=device)
        m.act = nn.ReLU()
        m.act = None
        m.add_module("tanh", nn.Tanh())
    finally:
        for h in handles:
            h.remove()
    assert log == [("parameter", "weight"), ("parameter", "bias"), ("buffer", "running_mean"),
                   ("buffer", "running_var"), ("buffer", "num_batches_tracked"),
                   ("parameter", "w"), ("buffer", "b"), ("buffer", "b"), ("module", "act"),
                   ("module", "act"), ("module", "tanh")]
    np.testing.assert_array_equal(bn.running_var.cpu().numpy(), [0.0, 0.0])  # replaced
    np.testing.assert_array_equal(m.b.cpu().numpy(), np.zeros(4))
    assert m.act is None and isinstance(m.tanh, nn.Tanh)
    m.act = nn.ReLU()  # removed: no hook any more
    assert isinstance(m.act, nn.ReLU) and len(log) == 11
    m2 = nn.Module()
    with mm.register_module_module_registration_hook(lambda m, name, sub: nn.Identity()):
        m2.act = nn.ReLU()
    assert isinstance(m2.act, nn.Identity)
