"""nn.Module's half/bfloat16/double/float/type, forward hooks and pre-hooks (with_kwargs,
prepend, always_call, handles), get_submodule/get_parameter/get_buffer,
register_module, to_empty and share_memory, against torch."""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn


def _net(lib, device=None):
    kw = {} if device is None else {"device": device}
    return lib.nn.Sequential(lib.nn.Linear(3, 2, **kw), lib.nn.BatchNorm1d(2, **kw))


@pytest.mark.parametrize("method,dtype", [("half", "float16"), ("bfloat16", "bfloat16"),
                                          ("double", "float64"), ("float", "float32")])
def test_casts(device, method, dtype):
    torch = torch_or_skip()
    m, tm = _net(pdt, device), _net(torch)
    assert getattr(m, method)() is m
    getattr(tm, method)()
    for (n, t), (tn, tt) in zip(m.state_dict().items(), tm.state_dict().items()):
        assert n == tn and str(t.dtype).split(".")[1] == str(tt.dtype).split(".")[1]
    assert m[0].weight.dtype == getattr(pdt, dtype)


def test_type_casts_integer_buffers_too(device):
    torch = torch_or_skip()
    m, tm = _net(pdt, device), _net(torch)
    w = m[0].weight
    m.type(pdt.float64)
    tm.type(torch.float64)
    assert m[0].weight is w and w.dtype == pdt.float64
    assert m[1].num_batches_tracked.dtype == pdt.float64 == \
        getattr(pdt, str(tm[1].num_batches_tracked.dtype).split(".")[1])
    assert m.type("float32")[0].bias.dtype == pdt.float32
    with pytest.raises(TypeError, match="dst_type must be a pydevtensor dtype"):
        m.type("nope")


def test_type_takes_what_tensor_type_takes():
    # a tensor type or its name, as PyTorch's Module.type('torch.DoubleTensor')
    for dst, dtype in [("pydevtensor.DoubleTensor", pdt.float64), (pdt.FloatTensor, pdt.float32),
                       ("torch.LongTensor", pdt.int64), ("float64", pdt.float64)]:
        m = nn.Linear(2, 1).requires_grad_(dtype != pdt.int64)
        w = m.weight
        assert m.type(dst) is m and m.weight is w
        assert m.weight.dtype == dtype and m.bias.dtype == dtype
    m = nn.Linear(2, 1)
    with pytest.raises(RuntimeError, match="data set to a tensor that requires gradients must "
                                           "be floating point"):
        m.type("torch.LongTensor")  # PyTorch's error; nothing changed
    assert m.weight.dtype == m.bias.dtype == pdt.float32
    with pytest.raises(TypeError, match="a tensor type or the name of one, got 'nope'"):
        m.type("nope")
    with pytest.raises(TypeError, match="got 3"):
        nn.Module().type(3)  # checked without tensors too
    assert m.weight.dtype == pdt.float32


def test_forward_hooks_like_torch(device):
    torch = torch_or_skip()
    logs = {}

    def run(lib, dev):
        log = logs.setdefault(lib.__name__, [])
        lin = lib.nn.Linear(2, 2, device=dev)
        hs = [lin.register_forward_pre_hook(lambda m, a: log.append("pre1")),
              lin.register_forward_pre_hook(lambda m, a: log.append("pre0"), prepend=True),
              lin.register_forward_pre_hook(lambda m, a, k: ((a[0] * 2,), k), with_kwargs=True),
              lin.register_forward_hook(lambda m, a, o: log.append(("post", tuple(o.shape)))),
              lin.register_forward_hook(lambda m, a, k, o: o + 1, with_kwargs=True)]
        x = lib.ones(1, 2, device=dev)
        y = lin(x)
        log.append(bool((y - (lin.weight.sum(1) * 2 + lin.bias + 1)).abs().max() < 1e-6))
        for h in hs:
            h.remove()
        log.append(bool(((lin(x) - lin.weight.sum(1) - lin.bias).abs() < 1e-6).all()))
        return log
    assert run(pdt, device) == run(torch, "cpu") == \
        ["pre0", "pre1", ("post", (1, 2)), True, True]


def test_pre_hook_single_value_and_bad_return(device):
    lin = nn.Linear(2, 1, device=device)
    lin.register_forward_pre_hook(lambda m, a: a[0] * 0)  # a single value: wrapped
    assert bool((lin(pdt.ones(3, 2, device=device)) == lin.bias).all())
    lin2 = nn.Linear(2, 1, device=device)
    lin2.register_forward_pre_hook(lambda m, a, k: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple of "
                                           r"\(new_args, new_kwargs\), but got 5"):
        lin2(pdt.ones(1, 2, device=device))
    with pytest.raises(TypeError, match="hook must be callable, got int"):
        lin.register_forward_hook(3)


def test_always_call_hook_runs_when_forward_raises(device):
    lin = nn.Linear(2, 1, device=device)
    seen = []
    lin.register_forward_hook(lambda m, a, o: seen.append(("always", o)), always_call=True)
    lin.register_forward_hook(lambda m, a, o: seen.append("plain"))
    with pytest.raises(ValueError):
        lin(pdt.ones(1, 3, device=device))
    assert seen == [("always", None)]
    with lin.register_forward_hook(lambda m, a, o: seen.append("ctx")):
        lin(pdt.ones(1, 2, device=device))
    lin(pdt.ones(1, 2, device=device))
    assert seen.count("ctx") == 1


def test_hooks_and_backward(device):
    lin = nn.Linear(2, 1, device=device)
    lin.register_forward_hook(lambda m, a, o: o * 3)
    lin(pdt.ones(1, 2, device=device)).sum().backward()
    np.testing.assert_allclose(lin.weight.grad.cpu().numpy(), [[3.0, 3.0]])


def test_get_submodule_parameter_buffer_like_torch():
    torch = torch_or_skip()
    for lib in (pdt, torch):
        net = lib.nn.Sequential(lib.nn.Sequential(lib.nn.Linear(2, 3)), lib.nn.BatchNorm1d(3))
        assert net.get_submodule("") is net and net.get_submodule("0.0") is net[0][0]
        assert net.get_parameter("0.0.weight") is net[0][0].weight
        assert net.get_buffer("1.running_mean") is net[1].running_mean
        for call, pattern in [(lambda: net.get_submodule("0.x"), "has no attribute `x`"),
                              (lambda: net.get_submodule("0.0.weight"),
                               "`weight` is not an nn.Module"),
                              (lambda: net.get_parameter("1.running_mean"),
                               "`running_mean` is not an nn.Parameter"),
                              (lambda: net.get_buffer("1.weight"), "`weight` is not a buffer"),
                              (lambda: net.get_parameter("0.0.nope"), "has no attribute `nope`")]:
            with pytest.raises(AttributeError, match=pattern):
                call()
        net.register_module("act", lib.nn.ReLU())
        assert [n for n, _ in net.named_children()] == ["0", "1", "act"]


def test_to_empty_and_share_memory(device):
    m = _net(pdt)
    w = m[0].weight
    assert m.to_empty(device=device) is m and m[0].weight is w
    assert w.device == pdt.device(device) and w.requires_grad and tuple(w.shape) == (2, 3)
    assert m[1].running_mean.device == pdt.device(device)
    assert m[1].num_batches_tracked.dtype == pdt.int64
    assert m.share_memory() is m


@pytest.mark.parametrize("cast", ["to", "double", "type", "half-then-float"])
def test_casts_and_moves_take_the_gradients_along(device, cast):
    """A gradient already there follows its parameter (PyTorch's _apply casts and moves
    .grad too), so the next backward adds into it; to_empty drops it."""
    m = nn.Linear(3, 2)
    x = pdt.tensor(np.arange(6.0).reshape(2, 3), dtype=pdt.float32)
    m(x).sum().backward()
    before = {n: p.grad.numpy().astype(np.float64) for n, p in m.named_parameters()}
    if cast == "to":
        m.to(device, pdt.float64)
    elif cast == "double":
        m.to(device).double()
    elif cast == "type":
        m.to(device).type(pdt.float64)
    else:
        m.to(device).half().float()
    want = pdt.float32 if cast == "half-then-float" else pdt.float64
    for n, p in m.named_parameters():
        assert p.grad.dtype == p.dtype == want and p.grad.device == p.device == pdt.device(device)
        np.testing.assert_allclose(p.grad.cpu().numpy(), before[n], rtol=1e-3 if
                                   cast == "half-then-float" else 0)
    m(x.to(device, want)).sum().backward()
    for n, p in m.named_parameters():
        np.testing.assert_allclose(p.grad.cpu().numpy(), 2 * before[n], rtol=1e-3)
    m.to_empty(device=device)
    assert all(p.grad is None for p in m.parameters())


def test_a_child_under_two_names_is_one_child():
    """named_children and children skip a module already given (PyTorch's memo), as
    modules() and parameters() do; state_dict keeps both names, as PyTorch's."""
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(1, 1)
            self.b = self.a
            self.c = nn.ReLU()

    t = Tied()
    assert [n for n, _ in t.named_children()] == ["a", "c"]
    assert [type(m).__name__ for m in t.children()] == ["Linear", "ReLU"]
    assert len(list(t.modules())) == 3 and len(list(t.parameters())) == 2
    assert sorted(t.state_dict()) == ["a.bias", "a.weight", "b.bias", "b.weight"]


def test_an_attribute_set_before_a_parameter_or_child_does_not_hide_it():
    """self.w = tensor then self.w = Parameter: forward reads the Parameter (the plain
    attribute is dropped, as PyTorch's __setattr__ drops it); a child set to None leaves
    the model; a tensor over a child is refused."""
    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = pdt.ones(3)
            self.w = nn.Parameter(pdt.full((3,), 2.0))
            self.sub = None
            self.sub = nn.Linear(3, 3)

        def forward(self, x):
            return self.sub(x * self.w)

    m = Scale()
    assert isinstance(m.w, nn.Parameter) and isinstance(m.sub, nn.Linear)
    x = pdt.ones(3)
    y = m(x)
    np.testing.assert_allclose(y.detach().numpy(), (m.sub.weight @ (x * 2.0) +
                                                    m.sub.bias).detach().numpy())
    y.sum().backward()
    assert m.w.grad is not None
    m.sub = None
    assert m.sub is None and [n for n, _ in m.named_parameters()] == ["w"]
    assert list(m.state_dict()) == ["w"]
    m.sub = nn.ReLU()
    with pytest.raises(TypeError, match="cannot assign Tensor as child module 'sub'"):
        m.sub = pdt.zeros(1)


def test_a_module_is_not_assigned_over_a_parameter(device):
    """As PyTorch's __setattr__: a registered parameter takes a Parameter or None only
    (a Module is refused, the parameter kept); a Parameter over a child, or a child
    over a buffer, replaces it."""
    m = nn.Module()
    p = nn.Parameter(pdt.ones(2, device=device))
    m.p = p
    with pytest.raises(TypeError, match=r"cannot assign ReLU to parameter 'p' \(expected "
                                        r"nn.Parameter or None\)"):
        m.p = nn.ReLU()
    assert m.p is p and list(m._modules) == [] and list(m._parameters) == ["p"]
    m.c = nn.ReLU()
    m.c = nn.Parameter(pdt.zeros(1, device=device))
    assert list(m._parameters) == ["p", "c"] and list(m._modules) == []
    m.register_buffer("b", pdt.ones(1, device=device))
    m.b = nn.Tanh()
    assert list(m._modules) == ["b"] and list(m._buffers) == []


def test_train_and_eval_call_each_childs_own_train():
    """A child that overrides train() (a frozen BatchNorm) keeps its choice, as
    PyTorch's train() calls each child's; a mode that is not a bool is refused."""
    class FrozenBN(nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(2)

        def train(self, mode=True):
            super().train(mode)
            self.bn.eval()
            return self

    net = nn.Sequential(nn.Linear(2, 2), FrozenBN())
    assert net.train() is net and net.training and net[0].training and net[1].training
    assert not net[1].bn.training
    net.eval()
    assert not any(m.training for m in net.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train("no")


def test_backward_hooks_see_the_output_forward_hooks_return_and_every_argument():
    """PyTorch's order: the outputs are marked for the backward hooks after the forward
    hooks, so grad_output is the gradient of what the module returned (a forward hook
    doubling it gave 2s, the gradient before it); grad_input has one entry per
    positional argument, None for a number (a 3-entry hook result was refused)."""
    lin = nn.Linear(3, 3)
    seen = []
    lin.register_forward_hook(lambda m, a, o: o * 2)
    lin.register_full_backward_hook(lambda m, gi, go: seen.append(go[0]))
    lin(pdt.randn(2, 3, requires_grad=True)).sum().backward()
    assert seen[0].tolist() == [[1.0] * 3] * 2

    class Affine(nn.Module):
        def forward(self, x, k, y):
            return x * k + y

    aff = Affine()
    got = []

    def hook(m, gi, go):
        got.append(gi)
        return (gi[0] * 10, None, gi[2])

    aff.register_full_backward_hook(hook)
    x = pdt.ones(2, requires_grad=True)
    aff(x, 3.0, pdt.ones(2)).sum().backward()
    assert len(got[0]) == 3 and got[0][1] is None
    assert got[0][0].tolist() == [3.0, 3.0] and x.grad.tolist() == [30.0, 30.0]


def test_always_call_forward_hooks_run_when_a_pre_hook_raises():
    m = nn.Linear(2, 2)
    calls = []

    def pre(mod, args):
        raise ValueError("refused")

    m.register_forward_pre_hook(pre)
    m.register_forward_hook(lambda mod, a, o: calls.append(o), always_call=True)
    with pytest.raises(ValueError, match="refused"):
        m(pdt.ones(1, 2))
    assert calls == [None]


def test_repr_indents_a_multi_line_extra_repr_as_torch():
    """Module.__repr__'s layout: one line when extra_repr is one line and there are no
    children, else each line of extra_repr and each child indented by two spaces."""
    class A(nn.Module):
        def extra_repr(self):
            return "a=1\nb=2"

    assert repr(A()) == "A(\n  a=1\n  b=2\n)"
    outer = nn.Module()
    outer.add_module("inner", A())
    outer.add_module("lin", nn.Linear(1, 2))
    assert repr(outer) == ("Module(\n  (inner): A(\n    a=1\n    b=2\n  )\n"
                           "  (lin): Linear(in_features=1, out_features=2, bias=True)\n)")
    assert repr(nn.ReLU()) == "ReLU()" and repr(nn.Module()) == "Module()"


def test_member_names_are_checked_as_torch():
    """add_module and register_parameter refuse what register_buffer refuses: a name
    with '.' (state_dict would have a key get_submodule cannot find), an empty name,
    a name that is not a str, and an attribute of another kind; the module is left
    unchanged."""
    m = nn.Linear(1, 1)
    for bad, err in (("a.b", KeyError), ("", KeyError), (3, TypeError),
                     ("training", KeyError), ("forward", KeyError)):
        with pytest.raises(err):
            m.add_module(bad, nn.ReLU())
        with pytest.raises(err):
            m.register_parameter(bad, nn.Parameter(pdt.ones(1)))
    with pytest.raises(KeyError, match="attribute 'weight' already exists"):
        m.add_module("weight", nn.ReLU())
    assert m.training is True and list(m.state_dict()) == ["weight", "bias"]
    assert not list(m.children())
    m.register_parameter("weight", nn.Parameter(pdt.zeros(1, 1)))  # re-registering is fine
    m.add_module("act", nn.ReLU())
    m.add_module("act", nn.Tanh())
    assert isinstance(m.act, nn.Tanh) and m.weight.item() == 0.0
    names = dir(m)  # PyTorch's __dir__: members too, for tab completion
    assert {"weight", "bias", "act", "forward", "training"} <= set(names)
    assert not any(k[:1].isdigit() for k in dir(nn.Sequential(nn.ReLU())))


def test_a_parameter_assigned_under_a_name_of_the_class_is_refused(device):
    """m.forward = Parameter(...) raises KeyError as PyTorch's (the method would shadow
    it); an instance attribute, buffer or child of that name is replaced (m.training
    too, as PyTorch's)."""
    m = nn.Linear(1, 1, device=device)
    for name in ("forward", "parameters", "state_dict"):
        with pytest.raises(KeyError, match=f"attribute '{name}' already exists"):
            setattr(m, name, nn.Parameter(pdt.ones(1, device=device)))
    assert callable(m.forward) and list(m.state_dict()) == ["weight", "bias"]
    m.x = 3
    m.register_buffer("b", pdt.zeros(1, device=device))
    m.c = nn.ReLU()
    for name in ("x", "b", "c", "training"):
        setattr(m, name, nn.Parameter(pdt.full((1,), 2.0, device=device)))
    assert list(m.state_dict()) == ["weight", "bias", "x", "b", "c", "training"]
    assert not list(m.children()) and not list(m.buffers()) and "x" not in m.__dict__


def test_backward_pre_hooks_replace_grad_output_before_the_input_gradients(device):
    """register_full_backward_pre_hook: the hook sees the outputs' gradient first and a
    tuple it returns replaces it, for the parameters' and the inputs' gradients and the
    full backward hooks alike (PyTorch's order); removing it restores the plain pass."""
    rng = np.random.default_rng(5)
    w, b = rng.standard_normal((2, 3)), rng.standard_normal(2)
    xv, gv = rng.standard_normal((4, 3)), rng.standard_normal((4, 2))
    lin = nn.Linear(3, 2, dtype=pdt.float64, device=device)
    with pdt.no_grad():
        lin.weight.copy_(pdt.tensor(w)), lin.bias.copy_(pdt.tensor(b))
    order = []

    def pre(m, go):
        order.append(("pre", go[0].cpu().numpy().copy()))
        return (go[0] * 3,)

    handle = lin.register_full_backward_pre_hook(pre)
    lin.register_full_backward_hook(lambda m, gi, go: order.append(
        ("full", go[0].cpu().numpy().copy(), gi[0].cpu().numpy().copy())))
    x = pdt.tensor(xv, device=device, requires_grad=True)
    lin(x).backward(pdt.tensor(gv, device=device))
    assert [o[0] for o in order] == ["pre", "full"]
    np.testing.assert_allclose(order[0][1], gv, rtol=1e-15)
    np.testing.assert_allclose(order[1][1], 3 * gv, rtol=1e-15)
    np.testing.assert_allclose(order[1][2], 3 * gv @ w, rtol=1e-13)
    np.testing.assert_allclose(x.grad.cpu().numpy(), 3 * gv @ w, rtol=1e-13)
    np.testing.assert_allclose(lin.weight.grad.cpu().numpy(), 3 * gv.T @ xv, rtol=1e-13)
    handle.remove()
    x.grad = None
    lin(x).backward(pdt.tensor(gv, device=device))
    np.testing.assert_allclose(x.grad.cpu().numpy(), gv @ w, rtol=1e-13)
    assert [o[0] for o in order] == ["pre", "full", "full"]


def test_backward_pre_hook_alone_on_a_first_layer_and_after_deepcopy():
    """A pre-hook on a layer whose input needs no gradient still runs (once per
    backward), and a deep copy of the module keeps its hooks."""
    import copy
    seen = []
    lin = nn.Linear(2, 2)
    lin.register_full_backward_pre_hook(lambda m, go: seen.append(m) or (go[0] * 0,))
    lin(pdt.ones(3, 2)).sum().backward()
    assert seen == [lin] and lin.weight.grad.abs().sum().item() == 0.0
    twin = copy.deepcopy(lin)
    twin(pdt.ones(3, 2)).sum().backward()
    assert len(seen) == 2 and seen[1] is twin and twin.weight.grad.abs().sum().item() == 0.0


def test_zero_grad_without_none_detaches_a_grad_in_a_graph(device):
    """zero_grad(set_to_none=False) as PyTorch's: a grad made with create_graph=True is
    detached in place (same object, no grad_fn), one that requires grad stops requiring
    it, then each is zeroed."""
    lin = nn.Linear(2, 1).to(device)
    x = pdt.ones(1, 2, device=device)
    (lin(x) ** 2).sum().backward(create_graph=True)
    g = lin.weight.grad
    assert g.grad_fn is not None
    lin.bias.grad = pdt.ones(1, device=device).requires_grad_()
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad is g and g.grad_fn is None and not g.requires_grad
    assert not lin.bias.grad.requires_grad
    np.testing.assert_array_equal(g.cpu().numpy(), np.zeros((1, 2)))
    np.testing.assert_array_equal(lin.bias.grad.detach().cpu().numpy(), np.zeros(1))


def test_to_takes_non_blocking_positionally(device):
    """Module.to's forms as PyTorch's: to(device, dtype, non_blocking), to(dtype,
    non_blocking), to(tensor, non_blocking); anything else after them is refused."""
    for args, moved in [((device, pdt.float64, False), True), ((pdt.float64, True), False),
                        ((pdt.ones(1, dtype=pdt.float64, device=device), False), True),
                        ((device, None, True), True)]:
        lin = nn.Linear(2, 1)
        w = lin.weight
        want = pdt.float32 if args[1] is None else pdt.float64
        assert lin.to(*args) is lin and lin.weight is w
        # to(dtype, non_blocking) changes the dtype only: the module stays on the CPU
        assert w.dtype == want and w.device == pdt.device(device if moved else "cpu")
    for bad in [(device, pdt.float64, False, 1), (pdt.float64, device), (device, device)]:
        with pytest.raises(TypeError, match="to\\(\\): unexpected argument"):
            nn.Linear(2, 1).to(*bad)


def test_set_submodule_replaces_or_adds_and_get_name(device):
    """set_submodule(target, module, strict=False) as PyTorch's: replaces the submodule
    at target or adds it to the parent the path leads to; strict refuses a new name;
    a non-Module there, an empty target or a module that is not one are refused."""
    inner = nn.Sequential(nn.Linear(2, 3))
    net = nn.Sequential(inner, nn.ReLU()).to(device)
    new = nn.Linear(2, 5).to(device)
    net.set_submodule("0.0", new)
    net.set_submodule("0.act", nn.Tanh())
    assert net[0] is inner and inner[0] is new and list(inner._modules) == ["0", "act"]
    assert net(pdt.ones(1, 2, device=device)).shape == (1, 5)
    assert [n for n, _ in net.named_parameters()] == ["0.0.weight", "0.0.bias"]
    net.set_submodule("1", nn.Sigmoid(), strict=True)
    assert type(net[1]) is nn.Sigmoid
    with pytest.raises(AttributeError, match="Sequential has no attribute `x`"):
        net.set_submodule("0.x", nn.Tanh(), strict=True)
    assert "x" not in inner._modules
    with pytest.raises(AttributeError, match="`weight` is not an nn.Module"):
        net.set_submodule("0.0.weight", nn.Tanh())
    with pytest.raises(ValueError, match="without a target name"):
        net.set_submodule("", nn.Tanh())
    with pytest.raises(ValueError, match="`module` is not an nn.Module, found int"):
        net.set_submodule("1", 3)
    assert nn.Linear(1, 1)._get_name() == "Linear" and net._get_name() == "Sequential"


def test_full_backward_hook_warns_when_no_input_requires_grad(device):
    """PyTorch's UserWarning, in backward, when the hook fires with grad_input all None
    (no input requires grad); none when an input does, none for a pre-hook alone."""
    lin = nn.Linear(2, 1, device=device)
    seen = []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append(gi))
    x = pdt.ones(1, 2, device=device)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = lin(x)
        assert not w  # not in forward
        y.sum().backward()
        lin(x.requires_grad_()).sum().backward()
        other = nn.Linear(2, 1, device=device)
        other.register_full_backward_pre_hook(lambda m, go: None)
        other(pdt.ones(1, 2, device=device)).sum().backward()
    assert len(w) == 1 and w[0].category is UserWarning
    assert str(w[0].message).startswith(
        "Full backward hook is firing when gradients are computed with respect to module "
        "outputs since no inputs require gradients. See ")
    assert seen[0] == (None,) and seen[1][0] is not None


def test_modules_remove_duplicate():
    # PyTorch's modules(remove_duplicate=): a shared module once, or at each place
    shared = nn.Tanh()
    inner = nn.Sequential(shared)
    net = nn.Sequential(shared, inner, shared)
    assert [type(m).__name__ for m in net.modules()] == ["Sequential", "Tanh", "Sequential"]
    assert [type(m).__name__ for m in net.modules(remove_duplicate=False)] == [
        "Sequential", "Tanh", "Sequential", "Tanh", "Tanh"]
    assert list(net.modules(False)) == [m for _, m in net.named_modules(remove_duplicate=False)]


def test_call_runs_forward_from_call_itself(device):
    """Module.__call__ without hooks calls forward itself (no _call_forward frame
    between: one Python call less for every layer of a network); a layer's errors are
    still reworded with the layer's name."""
    import sys
    callers = []

    class Probe(nn.Module):
        def forward(self, x):
            callers.append(sys._getframe(1).f_code.co_name)
            return x

    x = pdt.ones(2, device=device)
    assert Probe()(x) is x and callers == ["__call__"]
    net = nn.Sequential(nn.Linear(2, 2, device=device))
    with pytest.raises(TypeError, match=r"the input is pydevtensor.float64 but the parameter "
                                        r"'weight' .*\(in layer '0': Linear"):
        net(pdt.ones(1, 2, dtype=pdt.float64, device=device))
