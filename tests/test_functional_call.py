"""func.functional_call / nn.utils.stateless.functional_call (nn/utils/stateless.py), as
torch.func.functional_call, and func.stack_module_state (_func_stack.py), on every
device."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.func import functional_call, stack_module_state, vmap


def test_given_tensors_stand_in_and_take_the_gradient(device):
    pdt.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).to(device)
    before = {k: v.detach().clone() for k, v in net.state_dict().items()}
    params = {k: (v.detach() * 2).requires_grad_() for k, v in net.named_parameters()}
    x = pdt.randn(5, 3, device=device)
    functional_call(net, params, (x,)).sum().backward()
    twin = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).to(device)
    twin.load_state_dict({k: v.detach() for k, v in params.items()})
    twin(x).sum().backward()
    for (k, p), (_, q) in zip(params.items(), twin.named_parameters()):
        np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.cpu().numpy(), rtol=1e-6)
    assert all(p.grad is None for p in net.parameters())  # the module's own untouched
    for k, v in net.state_dict().items():
        assert pdt.equal(v, before[k])
    assert all(type(p) is nn.Parameter for p in net.parameters())


def test_buffers_errors_and_restoring(device):
    bn = nn.BatchNorm1d(2).to(device)
    mean = pdt.zeros(2, device=device)
    x = pdt.tensor([[1.0, 2.0], [3.0, 6.0]], device=device)
    functional_call(bn, {"running_mean": mean}, x)  # training: the given buffer is updated
    assert mean.cpu().tolist() == pytest.approx([0.2, 0.4])
    assert bn.running_mean.cpu().tolist() == [0.0, 0.0]
    lin = nn.Linear(2, 2).to(device)
    with pytest.raises(ValueError, match="multiple dictionaries"):
        functional_call(lin, [{"bias": pdt.zeros(2)}, {"bias": pdt.ones(2)}], x)
    with pytest.raises(ValueError, match="missing keys"):
        functional_call(lin, {"bias": pdt.zeros(2, device=device)}, x, strict=True)
    with pytest.raises(RuntimeError, match=r"reparametrizing for Linear with strict=True: "
                                           r"missing keys \[\] and unexpected keys \['zz'\]"):
        functional_call(lin, {"weight": lin.weight, "bias": lin.bias,  # PyTorch's type
                              "zz": pdt.zeros(1)}, x, strict=True)
    with pytest.raises(TypeError, match="must be a Tensor"):
        functional_call(lin, {"bias": [0.0, 0.0]}, x)
    w = lin.weight
    with pytest.raises(RuntimeError):  # the call fails: the module is restored anyway
        functional_call(lin, {"weight": pdt.ones(3, 3, device=device)}, x)
    assert lin.weight is w


def test_tied_weights(device):
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2, bias=False)
            self.b = nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    m = Tied().to(device)
    w = pdt.eye(2, device=device) * 3
    out = functional_call(m, {"a.weight": w}, pdt.ones(1, 2, device=device))
    assert out.cpu().tolist() == [[9.0, 9.0]]  # both names take the tensor
    out = functional_call(m, {"a.weight": w}, pdt.ones(1, 2, device=device),
                          tie_weights=False)
    assert out.cpu().tolist() != [[9.0, 9.0]]


def test_a_parametrized_tensor_is_assigned_and_assigned_back(device):
    # PyTorch's setattr: 'weight' of a parametrized module goes through right_inverse for
    # the call and back afterwards (the given tensor was ignored: the module's own
    # weight was used, silently)
    class Scale(nn.Module):
        def forward(self, X):
            return X * 2

        def right_inverse(self, X):
            return X / 2

    class Sym(nn.Module):  # no right_inverse: the weight cannot be assigned
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    w0 = np.array([[1.0, 2.0], [3.0, 4.0]])
    m = nn.Linear(2, 2, device=device, dtype=pdt.float64)
    with pdt.no_grad():
        m.weight.copy_(pdt.tensor(w0))
        m.bias.zero_()
    nn.utils.parametrize.register_parametrization(m, "weight", Scale())
    x = np.array([[1.0, -1.0]])
    W = np.array([[1.0, 5.0], [5.0, 2.0]])
    for call in (functional_call, nn.utils.stateless.functional_call):
        y = call(m, {"weight": pdt.tensor(W, device=device)}, (pdt.tensor(x, device=device),))
        np.testing.assert_array_equal(y.detach().cpu().numpy(), x @ W.T)
        np.testing.assert_array_equal(m.weight.detach().cpu().numpy(), w0)
        np.testing.assert_array_equal(
            m.parametrizations.weight.original.detach().cpu().numpy(), w0 / 2)
    s = nn.Linear(2, 2, device=device, dtype=pdt.float64)
    nn.utils.parametrize.register_parametrization(s, "weight", Sym())
    bias = s.bias
    with pytest.raises(RuntimeError, match="right_inverse"):
        functional_call(s, {"bias": pdt.ones(2, device=device, dtype=pdt.float64),
                            "weight": pdt.eye(2, device=device, dtype=pdt.float64)},
                        (pdt.tensor(x, device=device),))
    assert s.bias is bias  # what was swapped before the failure is put back


def test_stack_module_state_runs_an_ensemble_with_vmap(device):
    pdt.manual_seed(1)
    models = [nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)).to(device).eval()
              for _ in range(3)]
    params, buffers = stack_module_state(models)
    assert sorted(params) == ["0.bias", "0.weight", "1.bias", "1.weight"]
    assert sorted(buffers) == ["1.num_batches_tracked", "1.running_mean", "1.running_var"]
    w = params["0.weight"]
    assert tuple(w.shape) == (3, 4, 3) and w.requires_grad and w.is_leaf
    assert buffers["1.num_batches_tracked"].dtype == pdt.int64
    assert not buffers["1.running_mean"].requires_grad
    for k, m in enumerate(models):
        assert np.array_equal(w[k].detach().cpu().numpy(), m[0].weight.detach().cpu().numpy())
    x = pdt.randn(5, 3, device=device)
    out = vmap(lambda p, b, x: functional_call(models[0], (p, b), (x,)),
               in_dims=(0, 0, None))(params, buffers, x)
    assert tuple(out.shape) == (3, 5, 4)
    for k, m in enumerate(models):
        np.testing.assert_allclose(out[k].detach().cpu().numpy(),
                                   m(x).detach().cpu().numpy(), rtol=1e-5, atol=1e-6)
    out.sum().backward()  # the gradient reaches the stacked leaves, not the models
    assert tuple(w.grad.shape) == (3, 4, 3) and models[0][0].weight.grad is None


def test_stack_module_state_refusals_as_pytorch():
    for models, match in (([], "Expected at least one model, got 0"),
                          ([nn.Linear(2, 2), nn.Linear(2, 2).eval()], "same training/eval mode"),
                          ([nn.Linear(2, 2), nn.Conv1d(2, 2, 1)], "same class"),
                          ([nn.Linear(2, 2), nn.Linear(2, 2).requires_grad_(False)],
                           "Expected weight from each model to have the same .requires_grad")):
        with pytest.raises(RuntimeError, match=match):
            stack_module_state(models)
    frozen = [nn.Linear(2, 2).requires_grad_(False) for _ in range(2)]
    p, _ = stack_module_state(nn.ModuleList(frozen))
    assert not p["weight"].requires_grad
