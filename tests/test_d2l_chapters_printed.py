"""D2L's printed outputs as a reader of the PyTorch edition sees them, with
``import pydevtensor as torch``: the book prints tensors that carry a grad_fn after
reductions over a dim (the softmax denominators of 4.1, the RNN chapters' losses),
indexing (``y_hat[:, 1]``, the RNN chapters' ``outputs[-1]``) and flattening
(``X.reshape(-1)``), and those lines must break where PyTorch's do (its
``_add_suffixes``: a suffix that would pass the print width starts a line of its own)
and name the node PyTorch names.  Gradients are checked against NumPy in float64."""
import numpy as np
import pytest

import pydevtensor as torch
from pydevtensor import nn


def test_softmax_denominator_and_flattened_output_print_as_the_book(device):
    X = torch.tensor([[0.1257, -0.1321, 0.6404], [0.1049, -0.5357, 0.3616]], device=device,
                     requires_grad=True)
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdims=True)  # D2L 4.1's softmax
    assert partition.grad_fn.name() == "SumBackward1"
    flat = (X_exp / partition).reshape(-1)
    lines = repr(flat).split("\n")
    first = lines[0]
    assert first.startswith("tensor([") and len(first) <= 80
    # the values fill the first line; a GPU tensor's device= follows them there, as
    # PyTorch's (tensor([...], device='cuda:0',), and grad_fn= starts a line of its own
    assert first.split("device=")[0].rstrip().endswith("],")
    assert lines[-1].strip().startswith("grad_fn=<ViewBackward0>")
    # the gradient of sum(w * softmax(X).reshape(-1)) against NumPy
    w = np.arange(6.0)
    (flat * torch.tensor(w, dtype=torch.float32, device=device)).sum().backward()
    a = np.array([[0.1257, -0.1321, 0.6404], [0.1049, -0.5357, 0.3616]])
    s = np.exp(a) / np.exp(a).sum(1, keepdims=True)
    W = w.reshape(2, 3)
    ref = s * (W - (s * W).sum(1, keepdims=True))
    np.testing.assert_allclose(X.grad.cpu().numpy(), ref, rtol=1e-5, atol=1e-6)


def test_rnn_chapter_indexing_names_the_select_as_pytorch(device):
    torch.manual_seed(0)
    rnn = nn.GRU(4, 3).to(device)
    X = torch.ones(5, 2, 4, device=device)
    outputs, state = rnn(X)
    last = outputs[-1]  # D2L's context = enc_output[-1]
    assert last.grad_fn.name() == "SelectBackward0"
    assert outputs[:, 1].grad_fn.name() == "SelectBackward0"
    assert outputs[1:, :, 0].grad_fn.name() == "SelectBackward0"
    assert outputs[:, :1].grad_fn.name() == "SliceBackward0"
    out1, _ = rnn(X[:, 0])  # unbatched: PyTorch squeezes dim 1
    assert out1.grad_fn.name() == "SqueezeBackward1"
    np.testing.assert_allclose(out1.detach().cpu().numpy(),
                               outputs[:, 0].detach().cpu().numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("width", [40, 80, 120])
def test_a_loss_curve_prints_with_its_suffix_where_the_width_allows(width):
    losses = torch.tensor([2.3026, 1.9021, 1.5832, 1.4102, 1.2933, 1.2127, 1.1533],
                          dtype=torch.float64, requires_grad=True) * 1
    try:
        torch.set_printoptions(linewidth=width)
        text = repr(losses)
    finally:
        torch.set_printoptions(profile="default")
    lines = text.split("\n")
    assert all(len(line) <= width for line in lines), text
    assert lines[-1].endswith("grad_fn=<MulBackward0>)")
    # a suffix goes on the values' last line when it fits there, else on a line of its
    # own under the values (PyTorch's _add_suffixes)
    values_end = max(i for i, line in enumerate(lines) if "]" in line)
    assert all(line.startswith("       ") and line[7] != " " for line in lines[values_end + 1:])
    if width == 40:
        assert lines[values_end + 1:] == ["       dtype=pydevtensor.float64,",
                                          "       grad_fn=<MulBackward0>)"]
    if width == 120:
        assert len(lines) == 1
