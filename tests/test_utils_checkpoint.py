"""utils.checkpoint (recomputation in the backward, gradients equal to the plain call,
RNG state preserved for dropout) and nn.utils.parameters_to_vector /
vector_to_parameters (against torch)."""
import warnings

import numpy as np
import pytest

import pydevtensor as pdt
from conftest import torch_or_skip
from pydevtensor import nn
from pydevtensor.nn.utils import parameters_to_vector, vector_to_parameters
from pydevtensor.utils.checkpoint import checkpoint, checkpoint_sequential


def _net(device):
    pdt.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4, device=device), nn.Dropout(0.5), nn.Tanh(),
                         nn.Linear(4, 2, device=device)).to(dtype=pdt.float64)


def _grads(net, x):
    return [p.grad.cpu().numpy().copy() for p in net.parameters()] + \
        ([x.grad.cpu().numpy().copy()] if x.grad is not None else [])


@pytest.mark.parametrize("reentrant", [False, True])
@pytest.mark.parametrize("x_grad", [True, False])
def test_checkpoint_gradients_equal_plain(device, reentrant, x_grad):
    net = _net(device)
    x = pdt.tensor(np.random.default_rng(0).standard_normal((5, 3)), device=device)
    x.requires_grad_(x_grad)
    pdt.manual_seed(7)
    plain = net(x)
    (plain * plain).sum().backward()
    want = _grads(net, x)
    net.zero_grad()
    x.grad = None
    pdt.manual_seed(7)
    calls = []

    def fn(t, scale=1.0):
        calls.append(1)
        return net(t) * scale
    out = checkpoint(fn, x, use_reentrant=reentrant, scale=1.0)
    pdt.rand(10, device=device)  # the generator moves on before the backward
    np.testing.assert_allclose(out.detach().cpu().numpy(), plain.detach().cpu().numpy())
    (out * out).sum().backward()
    assert len(calls) == 2  # forward, and the recomputation
    for a, b in zip(_grads(net, x), want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_checkpoint_tuple_outputs_and_no_grad(device):
    w = nn.Parameter(pdt.tensor([2.0, 3.0], device=device))
    x = pdt.tensor([1.0, 4.0], device=device, requires_grad=True)
    a, b = checkpoint(lambda t: (t * w, (t * t).sum()), x, use_reentrant=False)
    (a.sum() + b).backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), [2.0 + 2.0, 3.0 + 8.0])
    np.testing.assert_allclose(w.grad.cpu().numpy(), [1.0, 4.0])
    with pdt.no_grad():
        y = checkpoint(lambda t: t * w, x, use_reentrant=False)
    assert not y.requires_grad


def test_checkpoint_warns_without_use_reentrant_and_sequential(device):
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed"):
        checkpoint(lambda t: t * 2, pdt.ones(2, device=device, requires_grad=True))
    net = _net(device).eval()
    x = pdt.ones(4, 3, device=device, dtype=pdt.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = checkpoint_sequential(net, 2, x, use_reentrant=False)
    np.testing.assert_allclose(y.detach().cpu().numpy(), net(x).detach().cpu().numpy())
    y.sum().backward()
    assert net[0].weight.grad is not None
    with pytest.raises(TypeError, match="function must be callable"):
        checkpoint(3, x, use_reentrant=False)


def test_parameters_to_vector_against_torch(device):
    torch = torch_or_skip()
    torch.manual_seed(0)
    tnet = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Linear(2, 1))
    net = nn.Sequential(nn.Linear(3, 2, device=device), nn.Linear(2, 1, device=device))
    net.load_state_dict({k: pdt.tensor(v.numpy(), device=device)
                         for k, v in tnet.state_dict().items()})
    v, tv = parameters_to_vector(net.parameters()), \
        torch.nn.utils.parameters_to_vector(tnet.parameters())
    np.testing.assert_array_equal(v.detach().cpu().numpy(), tv.detach().numpy())
    (v * v).sum().backward()
    np.testing.assert_allclose(net[0].weight.grad.cpu().numpy(),
                               2 * net[0].weight.detach().cpu().numpy())
    new = np.arange(11, dtype=np.float32)
    vector_to_parameters(pdt.tensor(new, device=device), net.parameters())
    torch.nn.utils.vector_to_parameters(torch.tensor(new), tnet.parameters())
    for p, tp in zip(net.parameters(), tnet.parameters()):
        np.testing.assert_array_equal(p.detach().cpu().numpy(), tp.detach().numpy())
    with pytest.raises(TypeError, match="expected a Tensor, but got: list"):
        vector_to_parameters([1.0], net.parameters())


def test_vector_to_parameters_shares_vec_and_its_version_counter(device):
    """As PyTorch's, the parameters become views of vec (a longer vec is taken); its
    version counter is shared too, so a write to vec before backward raises."""
    net = nn.Sequential(nn.Linear(3, 2, device=device), nn.Linear(2, 1, device=device))
    before = net[0].weight.detach().cpu().numpy().copy()
    with pytest.raises(ValueError, match="vec must be 1-D with at least the parameters' 11 "
                                         r"elements, got shape \(10,\)"):
        vector_to_parameters(pdt.ones(10, device=device), net.parameters())
    with pytest.raises(ValueError, match=r"got shape \(1, 11\)"):
        vector_to_parameters(pdt.ones(1, 11, device=device), net.parameters())
    np.testing.assert_array_equal(net[0].weight.detach().cpu().numpy(), before)
    first = net[0].weight
    vec = pdt.arange(13, dtype=pdt.float32, device=device)
    vector_to_parameters(vec, net.parameters())
    assert net[0].weight is first and isinstance(first, nn.Parameter)
    np.testing.assert_array_equal(net[1].bias.detach().cpu().numpy(), [10.0])
    vec.mul_(2)
    np.testing.assert_array_equal(net[0].weight.detach().cpu().numpy(),
                                  2 * np.arange(6.0).reshape(2, 3))
    with pdt.no_grad():
        net[1].bias.add_(1)
    np.testing.assert_array_equal(vec.cpu().numpy()[10:], [21.0, 22.0, 24.0])
    # gradients still reach the parameters
    x = pdt.ones(1, 3, device=device)
    net(x).sum().backward()
    np.testing.assert_array_equal(net[1].bias.grad.cpu().numpy(), [1.0])
    # a write to vec after the forward pass: the saved weight changed, backward refuses
    y = net(x.requires_grad_()).sum()
    vec.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_integer_data_for_a_tensor_that_requires_grad_is_refused(device):
    # PyTorch's: an int64 vec made the parameters int64 Parameters that required grad
    net = nn.Sequential(nn.Linear(2, 1, device=device), nn.Linear(1, 1, device=device))
    net[0].requires_grad_(False)  # the first takes it; the second, after it, refuses
    before = [p.detach().cpu().numpy().copy() for p in net.parameters()]
    with pytest.raises(RuntimeError, match=r"vector_to_parameters: vec of pydevtensor.int64 "
                                           r"cannot become the data of parameters that "
                                           r"require grad"):
        vector_to_parameters(pdt.arange(5, device=device), net.parameters())
    for p, b in zip(net.parameters(), before):  # nothing changed
        assert p.dtype == pdt.float32
        np.testing.assert_array_equal(p.detach().cpu().numpy(), b)
    w = net[1].weight
    with pytest.raises(RuntimeError, match=r"data set to a tensor that requires gradients must "
                                           r"be floating point \(got int64 for a tensor of "
                                           r"float32 that requires grad\)"):
        w.data = pdt.arange(1, device=device).reshape(1, 1)
    assert w.dtype == pdt.float32 and w.requires_grad
    plain = pdt.ones(2, device=device)
    plain.data = pdt.arange(2, device=device)  # no grad required: taken, as PyTorch's
    assert plain.dtype == pdt.int64


@pytest.mark.parametrize("reentrant", [True, False])
def test_the_recomputation_runs_under_the_first_runs_autocast(reentrant):
    """Under autocast the first run's matmul is bfloat16; the recomputation ran in
    float32 (outside autocast by then), so the gradients differed from the plain call."""
    rng = np.random.default_rng(3)
    W = pdt.tensor(rng.standard_normal((3, 3)), dtype=pdt.float32, requires_grad=True)
    seen = []

    def fn(x):
        y = x @ W
        seen.append(y.dtype)
        return y

    grads = []
    # early_stop=False: the recomputation runs to fn's end (it stops inside the matmul
    # otherwise, once it has what the backward needs)
    for wrap in (lambda f, x: f(x), lambda f, x: checkpoint(
            f, x, use_reentrant=reentrant, **({} if reentrant else {"early_stop": False}))):
        x = pdt.tensor(rng.standard_normal((2, 3)), dtype=pdt.float32, requires_grad=True)
        x0 = x.detach().clone()
        with pdt.autocast("cpu"):
            out = wrap(fn, x)
        out.float().sum().backward()
        grads.append((x0, x.grad))
    assert seen == [pdt.bfloat16] * 3
    np.testing.assert_array_equal(grads[0][1].numpy(), grads[1][1].numpy())


@pytest.mark.parametrize("reentrant", [True, False])
def test_an_argument_changed_in_place_before_backward_is_refused(reentrant):
    """The arguments are saved as any op saves them: changed in place before the
    backward, the recomputation would use the new values, and gave a wrong gradient."""
    a = pdt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    out = checkpoint(lambda t: (t ** 2).sum(), b, use_reentrant=reentrant)
    with pdt.no_grad():
        b.mul_(10)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


def test_a_gradient_through_checkpoint_refuses_to_be_differentiated_again():
    """create_graph=True through checkpoint gave a gradient without the second order
    (a gradient penalty silently lost); now differentiating it raises, naming it (with
    use_reentrant=True; use_reentrant=False has the second order, as PyTorch's:
    test_checkpoint_nonreentrant.py)."""
    x = pdt.tensor([1.0, 2.0], requires_grad=True)
    y = checkpoint(lambda a: (a ** 3).sum(), x, use_reentrant=True)
    g, = pdt.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [3.0, 12.0])
    with pytest.raises(RuntimeError, match="once_differentiable.*Checkpoint"):
        (y + (g ** 2).sum()).backward()
