"""Recurrent layers (D2L chapters 9-10) on the CPU: one forward and backward of
``nn.GRU(28, 256)`` and ``nn.LSTM(28, 256)`` over D2L's time-machine batches (35 steps,
batch 32, 28 one-hot features), in ms, against PyTorch's CPU layers.

Each entry runs with one thread (``set_num_threads(1)`` in both libraries, so the figure
is the per-step overhead and the kernels, not the cores) and with the default threads.
The step loop runs in Python in pydevtensor: the gates of one step are one fused cell
kernel (``_C._lstm_cell``/``_C._gru_cell``, csrc/core/pdt_rnn.c) and one autograd node,
after one GEMM for the input projection of every step; the backward makes W_hh's
gradient as one GEMM over all the steps (nn/_fused_rnn.py).  The composition the fused
cells replaced (nn/_functional_rnn.py, step_unfused) runs when FR.fusable is patched to
refuse every dtype, for a before/after in one process.
"""
from benchmarks.harness import Stmt, benchmark, compare_statements

STEPS, BATCH, FEATURES, HIDDEN = 35, 32, 28, 256
STEP = "out, _ = net(x); out.sum().backward()"


def _statements(layer, threads, unfused=False):
    shapes = f"L, N, F, H = {STEPS}, {BATCH}, {FEATURES}, {HIDDEN}"
    one = threads == 1
    before = ("from pydevtensor.nn import _functional_rnn as FR; FR.fusable = lambda x: False; "
              if unfused else "")
    return {
        "pydevtensor": Stmt(f"import pydevtensor as pdt; from pydevtensor import nn; {shapes}; "
                            + ("pdt.set_num_threads(1); " if one else "") + before
                            + f"net = nn.{layer}(F, H); x = pdt.rand(L, N, F)", STEP),
        "torch": Stmt(f"import torch; from torch import nn; {shapes}; "
                      + ("torch.set_num_threads(1); " if one else "")
                      + f"net = nn.{layer}(F, H); x = torch.rand(L, N, F)", STEP),
    }


def _entry(name, layer, threads, unfused=False):
    """Registers the entry rnn.<name>: nn.<layer> with `threads` threads (None: the
    default); unfused: pydevtensor runs the composition the fused cells replaced."""
    label = ("1 thread" if threads == 1 else "default threads") + \
        (", unfused composition" if unfused else "")

    def entry(cfg):
        return compare_statements(cfg, _statements(layer, threads, unfused))

    entry.__name__ = name
    entry.__doc__ = (f"nn.{layer}(28, 256) over a (35, 32, 28) float32 sequence: the "
                     f"forward, out.sum() and the backward, {label}.")
    return benchmark("rnn", f"{layer}(28, 256) forward + backward, 35 x 32 x 28, {label} "
                     f"(CPU)", unit="ms", number=3, repeat=7, quick_number=1)(entry)


gru_one_thread = _entry("gru_one_thread", "GRU", 1)
lstm_one_thread = _entry("lstm_one_thread", "LSTM", 1)
gru_default_threads = _entry("gru_default_threads", "GRU", None)
lstm_default_threads = _entry("lstm_default_threads", "LSTM", None)
gru_one_thread_unfused = _entry("gru_one_thread_unfused", "GRU", 1, unfused=True)
lstm_one_thread_unfused = _entry("lstm_one_thread_unfused", "LSTM", 1, unfused=True)
