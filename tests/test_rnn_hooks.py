"""PyTorch's hooks of nn.RNNBase (pydevtensor/nn/_rnn_checks.py): check_input,
get_expected_hidden_size, check_hidden_size, check_forward_args, permute_hidden, and
the LSTM's get_expected_cell_size and (h, c) forms, on every device.  The shapes are
the closed forms (num_layers * D, N, proj_size or hidden_size) and (..., hidden_size);
permute_hidden against NumPy's take along the batch dimension."""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn
from pydevtensor.nn.utils.rnn import pack_padded_sequence


@pytest.mark.parametrize("make,h,c", [
    (lambda **k: nn.RNN(3, 5, num_layers=2, **k), 5, None),
    (lambda **k: nn.GRU(3, 5, bidirectional=True, **k), 5, None),
    (lambda **k: nn.LSTM(3, 5, num_layers=3, bidirectional=True, **k), 5, 5),
    (lambda **k: nn.LSTM(3, 5, proj_size=2, **k), 2, 5),
])
@pytest.mark.parametrize("batch_first", [False, True])
def test_expected_sizes(device, make, h, c, batch_first):
    """h0's (and c0's) shape for an input of 7 steps of 4 sequences, and for a packed
    batch (its first batch size); they are the shapes the module's forward takes."""
    m = make(batch_first=batch_first).to(device)
    layers = m.num_layers * (2 if m.bidirectional else 1)
    x = pdt.randn((4, 7, 3) if batch_first else (7, 4, 3), device=device)
    assert m.get_expected_hidden_size(x, None) == (layers, 4, h)
    if c is not None:
        assert m.get_expected_cell_size(x, None) == (layers, 4, c)
    packed = pack_padded_sequence(x, pdt.tensor([7, 5, 3, 2]), batch_first=batch_first)
    assert m.get_expected_hidden_size(packed.data, packed.batch_sizes) == (layers, 4, h)
    m.check_input(x, None)
    m.check_input(packed.data, packed.batch_sizes)
    h0 = pdt.zeros(m.get_expected_hidden_size(x, None), device=device)
    hidden = h0 if c is None else (h0, pdt.zeros(m.get_expected_cell_size(x, None),
                                                 device=device))
    m.check_forward_args(x, hidden, None)
    m(x, hidden)  # forward takes them


def test_check_input_refuses(device):
    gru = nn.GRU(3, 4).to(device)
    with pytest.raises(RuntimeError, match=r"GRU: expected input to be 3-D \(L, N, H_in\), "
                                           r"got 2-D"):
        gru.check_input(pdt.ones(5, 3, device=device), None)  # unbatched: forward's only
    with pytest.raises(RuntimeError, match=r"packed 2-D \(steps, H_in\), got 3-D"):
        gru.check_input(pdt.ones(5, 2, 3, device=device), pdt.tensor([2, 2, 1, 1, 1]))
    with pytest.raises(RuntimeError, match=r"size 3 \(input_size\).*got 6"):
        gru.check_input(pdt.ones(5, 2, 6, device=device), None)
    with pytest.raises(ValueError, match=r"RNN input dtype \(pydevtensor.float64\) does not "
                                         r"match weight dtype \(pydevtensor.float32\)"):
        gru.check_input(pdt.ones(5, 2, 3, dtype=pdt.float64, device=device), None)


def test_check_hidden_size_and_forward_args(device):
    """PyTorch's messages: 'Expected hidden size (2, 3, 4), got [1, 3, 4]', msg
    formatted with (expected, list of hx's sizes); the LSTM's name hidden[0] and
    hidden[1], c checked against hidden_size (not proj_size)."""
    rnn = nn.RNN(3, 4, num_layers=2).to(device)
    x = pdt.ones(5, 3, 3, device=device)
    with pytest.raises(RuntimeError, match=r"^Expected hidden size \(2, 3, 4\), got "
                                           r"\[1, 3, 4\]$"):
        rnn.check_forward_args(x, pdt.zeros(1, 3, 4, device=device), None)
    with pytest.raises(RuntimeError, match=r"^h of \(2, 3, 4\) is \[2, 3\]$"):
        rnn.check_hidden_size(pdt.zeros(2, 3, device=device), (2, 3, 4), "h of {} is {}")
    rnn.check_hidden_size(pdt.zeros(2, 3, 4, device=device), (2, 3, 4))
    with pytest.raises(TypeError, match="hx must be a Tensor, got list"):
        rnn.check_hidden_size([0.0], (1,))
    lstm = nn.LSTM(3, 4, proj_size=2).to(device)
    h, c = pdt.zeros(1, 3, 2, device=device), pdt.zeros(1, 3, 4, device=device)
    lstm.check_forward_args(x, (h, c), None)
    with pytest.raises(RuntimeError, match=r"^Expected hidden\[1\] size \(1, 3, 4\), got "
                                           r"\[1, 3, 2\]$"):
        lstm.check_forward_args(x, (h, h), None)
    with pytest.raises(RuntimeError, match=r"^Expected hidden\[0\] size \(1, 3, 2\), got "
                                           r"\[1, 3, 4\]$"):
        lstm.check_forward_args(x, (c, c), None)
    with pytest.raises(TypeError, match="hidden must be a pair"):
        lstm.check_forward_args(x, h, None)


def test_permute_hidden(device):
    a = np.arange(24.0).reshape(2, 4, 3)
    perm = np.array([2, 0, 3, 1])
    hx = pdt.from_numpy(a).to(device)
    p = pdt.from_numpy(perm).to(device)
    gru = nn.GRU(3, 3)
    assert gru.permute_hidden(hx, None) is hx
    np.testing.assert_array_equal(gru.permute_hidden(hx, p).cpu().numpy(), a[:, perm])
    lstm = nn.LSTM(3, 3)
    pair = (hx, -hx)
    assert lstm.permute_hidden(pair, None) is pair
    h, c = lstm.permute_hidden(pair, p)
    np.testing.assert_array_equal(h.cpu().numpy(), a[:, perm])
    np.testing.assert_array_equal(c.cpu().numpy(), -a[:, perm])
