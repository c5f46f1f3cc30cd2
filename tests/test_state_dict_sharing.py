"""state_dict of shared modules and tied parameters lists each name, as PyTorch's
(found by the new-user tester: '4.weight' was missing and a PyTorch-style checkpoint
could not be loaded); the class weights of the losses are buffers, as PyTorch's."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from conftest import DEVICES


def test_a_shared_module_is_in_the_state_dict_under_each_name():
    pdt.manual_seed(0)
    shared = nn.Linear(8, 8)
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), shared, nn.ReLU(), shared)
    sd = net.state_dict()
    assert list(sd) == ["0.weight", "0.bias", "2.weight", "2.bias", "4.weight", "4.bias"]
    assert sd["4.weight"].data_ptr() == sd["2.weight"].data_ptr()
    assert len(list(net.parameters())) == 4  # parameters() still gives each once
    net.load_state_dict(sd)  # strict: every key expected
    new = {k: pdt.full(tuple(v.shape), float(i)) for i, (k, v) in enumerate(sd.items())}
    net.load_state_dict(new)  # both names write the one module: the last wins, as PyTorch
    assert shared.weight.detach().numpy().tolist() == np.full((8, 8), 4.0).tolist()
    with pytest.raises(RuntimeError, match="missing key '4.weight'"):
        net.load_state_dict({k: v for k, v in sd.items() if not k.startswith("4.")})


def test_tied_parameters_are_listed_under_both_names():
    enc, dec = nn.Linear(3, 3, bias=False), nn.Linear(3, 3, bias=False)
    dec.weight = enc.weight
    net = nn.Sequential(enc, dec)
    assert list(net.state_dict()) == ["0.weight", "1.weight"]
    loaded = nn.Sequential(nn.Linear(3, 3, bias=False), nn.Linear(3, 3, bias=False))
    loaded.load_state_dict(net.state_dict())
    assert loaded[1].weight.tolist() == enc.weight.tolist()


@pytest.mark.parametrize("device", DEVICES)
def test_loss_weights_are_buffers(device):
    w = pdt.tensor([1.0, 2.0, 0.5])
    ce = nn.CrossEntropyLoss(w)
    assert list(ce.state_dict()) == ["weight"] and ce.weight is w
    assert list(nn.CrossEntropyLoss().state_dict()) == []
    bce = nn.BCEWithLogitsLoss(pdt.ones(2), pos_weight=pdt.tensor([3.0, 1.0]))
    assert list(bce.state_dict()) == ["weight", "pos_weight"]
    assert list(nn.NLLLoss(w).buffers())[0] is w
    ce = ce.to(device).double()  # moved and cast with the module, as a buffer is
    assert ce.weight.device == pdt.device(device) and ce.weight.dtype == pdt.float64
    x = pdt.tensor([[2.0, 0.0, 1.0], [0.0, 2.0, 1.0]], dtype=pdt.float64, device=device)
    y = pdt.tensor([2, 1], device=device)
    logp = np.log(np.exp(x.cpu().numpy()) / np.exp(x.cpu().numpy()).sum(1, keepdims=True))
    want = -(0.5 * logp[0, 2] + 2.0 * logp[1, 1]) / 2.5
    assert ce(x, y).item() == pytest.approx(want, rel=1e-12)
