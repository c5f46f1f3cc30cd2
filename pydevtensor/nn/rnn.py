"""The recurrent layers of D2L's chapters 9 and 10: RNN, GRU and LSTM over whole
sequences (layers, directions, batch_first, dropout between layers), with PyTorch's
parameter names, shapes, gate order and initialisation, so that a PyTorch state_dict
loads and gives the same outputs.  The step math is in _functional_rnn.py; the cells
(RNNCell, GRUCell, LSTMCell) are in rnn_cells.py."""
from __future__ import annotations

import math
import numbers
import warnings
from typing import TYPE_CHECKING, Any

from .. import _C
from ..amp import _state as _amp
from . import _functional_rnn as FR
from ._rnn_checks import Hooks, LSTMHooks, check_input, check_size, initial_states, state_sizes
from . import _packed_rnn
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence, _check_packed

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype

_Invalid = _C.InvalidArgumentError  # a ValueError and a RuntimeError: a bad shape


def reset_parameters(self: Module) -> None:
    """Draws every parameter again from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)),
    PyTorch's initialisation, with the package's generator (the same numbers on every
    device for one seed).

    Returns
    -------
    None

    Examples
    --------
    >>> from pydevtensor import nn
    >>> rnn = nn.RNN(2, 4)
    >>> rnn.reset_parameters()
    >>> bool(rnn.weight_hh_l0.abs().max() <= 0.5)
    True
    """
    bound = 1.0 / math.sqrt(self.hidden_size)
    for p in self.parameters():
        p.data.uniform_(-bound, bound)


class RNNBase(Module):
    """The base of RNN, GRU and LSTM (as ``torch.nn.RNNBase``): builds the parameters
    of every layer and direction, initialises them, and runs the sequence.  Build one of
    the subclasses; ``isinstance(m, nn.RNNBase)`` tells a recurrent layer.

    Parameters
    ----------
    mode : str
        'RNN_TANH', 'RNN_RELU', 'GRU' or 'LSTM'.
    input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional
        As in :class:`RNN`.
    proj_size : int, optional
        An LSTM's projection size (default 0: none); see :class:`LSTM`.
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).

    Raises
    ------
    TypeError, ValueError
        When a size is not a positive int, dropout is not in [0, 1], mode unknown, or
        proj_size given for another mode than 'LSTM' or not below hidden_size.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> isinstance(nn.GRU(3, 4), nn.RNNBase)
    True
    >>> nn.RNNBase("GRU", 3, 4)
    RNNBase(3, 4)
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        where = type(self).__name__
        if mode not in FR.GATES:
            raise ValueError(f"{where}: unrecognized RNN mode {mode!r}; expected one of "
                             f"{sorted(FR.GATES)}")
        # PyTorch's cells take 0, not these
        input_size = check_size("input_size", input_size, where, 1)
        hidden_size = check_size("hidden_size", hidden_size, where, 1)
        num_layers = check_size("num_layers", num_layers, where, 1)
        if isinstance(dropout, bool) or not isinstance(dropout, numbers.Number) \
                or not 0 <= dropout <= 1:
            raise ValueError(f"{where}: dropout should be a number in range [0, 1] "
                             f"representing the probability of an element being zeroed, "
                             f"got {dropout!r}")
        if dropout > 0 and num_layers == 1:
            warnings.warn(f"{where}: dropout adds dropout after all but the last recurrent "
                          f"layer, so a non-zero dropout expects num_layers greater than 1, "
                          f"but got dropout={dropout} and num_layers={num_layers}",
                          UserWarning, stacklevel=3)
        proj_size = check_size("proj_size", proj_size, where, 0)
        if proj_size and mode != "LSTM":
            raise ValueError(f"{where}: proj_size argument is only supported for LSTM, not "
                             f"RNN or GRU")
        if proj_size >= hidden_size:
            raise ValueError(f"{where}: proj_size has to be smaller than hidden_size, got "
                             f"proj_size={proj_size} and hidden_size={hidden_size}")
        self.mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first = bool(bias), bool(batch_first)
        self.dropout = float(dropout)
        self.bidirectional = bool(bidirectional)
        self.proj_size = proj_size
        directions = 2 if self.bidirectional else 1
        gate_size = FR.GATES[mode] * hidden_size
        real_hidden = proj_size or hidden_size  # h's size: projected by W_hr (LSTMP)
        dtype = _C._get_default_dtype() if dtype is None else dtype
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            layer_in = input_size if layer == 0 else real_hidden * directions
            for d in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if d == 1 else "")
                shapes: list[tuple[str, tuple[int, ...]]] = [
                    ("weight_ih", (gate_size, layer_in)), ("weight_hh", (gate_size, real_hidden))]
                if self.bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size:  # PyTorch's order: after the biases
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for name, shape in shapes:
                    setattr(self, name + suffix,
                            Parameter(_C.empty(shape, device=device, dtype=dtype)))
                    names.append(name + suffix)
                self._all_weights.append(names)
        self._flat_weights_names = [n for names in self._all_weights for n in names]
        self.reset_parameters()

    reset_parameters = reset_parameters  # the function above, shared with the cells
    # PyTorch's hooks (_rnn_checks.py), which code written for it calls or overrides
    check_input = Hooks.check_input
    get_expected_hidden_size = Hooks.get_expected_hidden_size
    check_hidden_size = Hooks.check_hidden_size
    check_forward_args = Hooks.check_forward_args
    permute_hidden = Hooks.permute_hidden

    def flatten_parameters(self) -> None:
        """Does nothing, for code written for PyTorch (which packs the weights into one
        buffer for cuDNN here): pydevtensor keeps each parameter as its own tensor.

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> nn.LSTM(2, 3).flatten_parameters()
        """

    def _weights(self) -> list[FR.Weights]:
        """(W_ih, W_hh, b_ih, b_hh) of each layer and direction, None for no bias, read
        by attribute: a weight replaced by a plain tensor (weight drop: ``del
        m.weight_hh_l0; m.weight_hh_l0 = w * mask``) is used."""
        out = []
        for names in self._all_weights:
            w = {n[:n.rindex("_l")]: getattr(self, n) for n in names}
            out.append((w["weight_ih"], w["weight_hh"], w.get("bias_ih"), w.get("bias_hh")))
        return out

    def _projections(self) -> list[Tensor] | None:
        """W_hr of each layer and direction (an LSTM with proj_size), else None."""
        if not self.proj_size:
            return None
        return [getattr(self, next(n for n in names if n.startswith("weight_hr")))
                for names in self._all_weights]

    @property
    def all_weights(self) -> list[list[Tensor]]:
        """The parameters of each layer and direction, as PyTorch's ``all_weights``:
        one list [weight_ih, weight_hh, bias_ih, bias_hh] (no biases when bias=False)
        per layer and direction, in the order l0, l0_reverse, l1, ...

        Examples
        --------
        >>> from pydevtensor import nn
        >>> gru = nn.GRU(3, 4, num_layers=2)
        >>> [[tuple(w.shape) for w in layer] for layer in gru.all_weights][1]
        [(12, 4), (12, 4), (12,), (12,)]
        """
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    @property
    def _flat_weights(self) -> list[Tensor]:
        """Every weight in the order of _flat_weights_names (PyTorch's private list,
        which code written for it reads)."""
        return [getattr(self, n) for n in self._flat_weights_names]

    def forward(self, input: Tensor, hx: Any = None) -> Any:
        """Runs the sequence through every layer and direction (call the module instead).

        Parameters
        ----------
        input : Tensor or PackedSequence
            (L, N, H_in), (N, L, H_in) when batch_first, or (L, H_in) unbatched; or a
            PackedSequence (nn.utils.rnn) of sequences of different lengths, for
            which output is a PackedSequence and h_n holds each sequence's state at
            its own last step (the backward direction starts there).
        hx : Tensor or tuple of two Tensors, optional
            h0 of shape (num_layers D, N, H) ((num_layers D, H) unbatched), D = 2 when
            bidirectional else 1; for the LSTM the pair (h0, c0).  Zeros when None.

        Returns
        -------
        tuple
            (output, h_n), or (output, (h_n, c_n)) for the LSTM: output of shape (L, N,
            D H) ((N, L, D H) when batch_first, (L, D H) unbatched), h_n and c_n of
            h0's shape.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> output, h_n = nn.GRU(3, 4, bidirectional=True)(pydevtensor.ones(5, 3))
        >>> output.shape, h_n.shape
        (pydevtensor.Size([5, 8]), pydevtensor.Size([2, 4]))
        """
        where = type(self).__name__
        own = getattr(self, self._flat_weights_names[0])
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx, where, own)
        order = "(N, L, H_in)" if self.batch_first else "(L, N, H_in)"
        check_input(where, input, own, self.input_size, (2, 3),
                    f"2-D (L, H_in) or 3-D {order}")
        batched = input.ndim == 3
        x = input.transpose(0, 1) if batched and self.batch_first else input
        x = x if batched else x.unsqueeze(1)  # (L, N, H_in) from here
        if x.shape[0] == 0:
            raise _Invalid(f"{where}: expected a sequence length larger than 0, got an input "
                           f"of shape {tuple(input.shape)} (on {input.device})")
        directions = 2 if self.bidirectional else 1
        shape, c_shape = state_sizes(self, x.shape[1])
        c_shape = c_shape if self.proj_size else None
        meaning = "(num_layers * num_directions, " + ("N, " if batched else "") + \
            ("proj_size)" if self.proj_size else "hidden_size)")
        if c_shape is not None and not batched:
            c_shape = (c_shape[0], c_shape[2])
        states = initial_states(where, hx, own, input, shape if batched else
                                (shape[0], shape[2]), meaning,
                                ("h0", "c0") if self.mode == "LSTM" else ("h0",), c_shape)
        h0, c0 = states if batched else (states[0].unsqueeze(1), None if states[1] is None
                                         else states[1].unsqueeze(1))
        h0, c0 = _amp.cuda_lowered_states(x, h0, c0)
        low = self._one_kernel_dtype(x)
        if low is not None:
            output, h_n, c_n = _amp.plain(self._run_lowered, low, x, h0, c0, directions)
        else:
            output, h_n, c_n = FR.run(self.mode, x, h0, c0, self._weights(), self.num_layers,
                                      directions, self.dropout, self.training,
                                      projections=self._projections())
        if not batched:
            output, h_n = output.squeeze(1), h_n.squeeze(1)
            c_n = None if c_n is None else c_n.squeeze(1)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return (output, h_n) if self.mode != "LSTM" else (output, (h_n, c_n))

    def _one_kernel_dtype(self, x: Tensor) -> dtype | None:
        """The dtype of PyTorch's one mkldnn kernel per layer (mkldnn_rnn_layer) for an
        LSTM without proj_size on a CPU input x, else None: the autocast dtype under CPU
        autocast; bfloat16 for a bfloat16 x, whose layers PyTorch's CPU LSTM also runs
        there (float32 sums, each layer's output rounded once: its error against the
        float64 answer 1.0e-3 (2 layers, H=16) where rounding after every op gave
        2.5e-3); float16 and the other modes are compositions there too."""
        if self.mode != "LSTM" or self.proj_size:
            return None
        low = _amp.cpu_lower_dtype(x)
        if low is None and x.dtype == _C.bfloat16 and x.device.type == "cpu":
            low = _C.bfloat16
        return low

    def _run_lowered(self, low: dtype, x: Tensor, h0: Tensor, c0: Tensor,
                     directions: int) -> tuple[Tensor, Tensor, Tensor]:
        """The LSTM under CPU autocast (or on bfloat16, ``_one_kernel_dtype``), as
        PyTorch's: one mkldnn kernel per layer there
        (mkldnn_rnn_layer, on the lower list), whose inputs, weights and states are
        cast to low (bfloat16) and whose outputs are low.  Here the operands are
        rounded to low, each layer runs in float32 (the fused cells) and its outputs
        are rounded to low; output, h_n and c_n are low."""
        def rounded(t: Tensor | None) -> Tensor | None:
            return None if t is None else _amp._cast(t, low).to(_C.float32)

        def layer(*args: Any, **kwargs: Any) -> tuple[Tensor, Tensor, Tensor | None]:
            out, h, c = FR.run_direction(*args, **kwargs)
            return rounded(out), h, c

        weights = [tuple(rounded(w) for w in ws) for ws in self._weights()]
        output, h_n, c_n = FR.run(self.mode, rounded(x), rounded(h0), rounded(c0), weights,
                                  self.num_layers, directions, self.dropout, self.training,
                                  direction=layer)
        return output.to(low), h_n.to(low), c_n.to(low)

    def _forward_packed(self, input: PackedSequence, hx: Any, where: str,
                        own: Tensor) -> Any:
        """forward() for a PackedSequence: h0 (N, in the original order of the
        sequences) is put in the packed order, and h_n back in the original order, as
        PyTorch does; the output is packed like the input."""
        check_input(where, input.data, own, self.input_size, (2, 2), "packed (steps, H_in)")
        sizes = _check_packed(input, where)
        directions = 2 if self.bidirectional else 1
        shape, c_shape = state_sizes(self, sizes[0])
        c_shape = c_shape if self.proj_size else None
        lstm = self.mode == "LSTM"
        h0, c0 = initial_states(where, hx, own, input.data, shape,
                                "(num_layers * num_directions, N, " +
                                ("proj_size)" if self.proj_size else "hidden_size)"),
                                ("h0", "c0") if lstm else ("h0",), c_shape)
        if input.sorted_indices is not None and hx is not None:
            h0 = h0.index_select(1, input.sorted_indices)
            c0 = None if c0 is None else c0.index_select(1, input.sorted_indices)
        h0, c0 = _amp.cuda_lowered_states(input.data, h0, c0)
        output, h_n, c_n = _packed_rnn.run(self.mode, input.data, sizes, h0, c0,
                                           self._weights(), self.num_layers, directions,
                                           self.dropout, self.training, self._projections())
        if input.unsorted_indices is not None:
            h_n = h_n.index_select(1, input.unsorted_indices)
            c_n = None if c_n is None else c_n.index_select(1, input.unsorted_indices)
        packed = PackedSequence(output, input.batch_sizes, input.sorted_indices,
                                input.unsorted_indices)
        return (packed, (h_n, c_n)) if lstm else (packed, h_n)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:  # PyTorch's place for it, before num_layers
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


class RNN(RNNBase):
    """A multi-layer Elman RNN (D2L's section 9.6), as ``torch.nn.RNN``: for each layer
    and each time step t::

        h_t = tanh(x_t W_ih^T + b_ih + h_(t-1) W_hh^T + b_hh)

    (relu instead of tanh with nonlinearity='relu').  Layer k > 0 reads the outputs of
    layer k - 1 (both directions concatenated), after dropout in training.

    Parameters
    ----------
    input_size : int
        H_in, the size of each step's input.
    hidden_size : int
        H, the size of the hidden state.
    num_layers : int, optional
        Stacked layers (default 1).
    nonlinearity : str, optional
        'tanh' (default) or 'relu'.
    bias : bool, optional
        Learn b_ih and b_hh (default True).
    batch_first : bool, optional
        Inputs and outputs are (N, L, features) instead of (L, N, features); h0 and h_n
        keep the batch in dimension 1 (default False).
    dropout : float, optional
        Dropout probability on the outputs of every layer but the last, in training
        (default 0).
    bidirectional : bool, optional
        Run every layer forwards and backwards in time, with parameters of their own
        (``_reverse``), and concatenate the two (default False).
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).

    Attributes
    ----------
    weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}
        Layer k's parameters, of shapes (H, H_in) (H_in = D H for k > 0, D = 2 when
        bidirectional, else 1), (H, H), (H,) and (H,); with the suffix ``_reverse`` for
        the backward direction.  All drawn from U(-1/sqrt(H), 1/sqrt(H)), as PyTorch.

    Raises
    ------
    TypeError, ValueError
        When a size is not a positive int, dropout is not in [0, 1] or nonlinearity is
        neither 'tanh' nor 'relu'.  At the call: when the input is not 2-D or 3-D or its
        last dimension is not input_size, the sequence is empty, h0 has another shape,
        or the input or h0 is on another device (DeviceError) or of another dtype.

    Notes
    -----
    ``rnn(input, h0=None)`` takes input of shape (L, N, H_in) ((N, L, H_in) when
    batch_first, (L, H_in) unbatched) and h0 of shape (num_layers D, N, H) ((num_layers
    D, H) unbatched; zeros when not given).  It returns ``(output, h_n)``: output
    (L, N, D H) holds the last layer's hidden state at every step (forward, then
    backward direction), h_n (num_layers D, N, H) every layer's and direction's last
    hidden state.  Autograd flows to the input, h0 and every parameter on every device.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> rnn = nn.RNN(10, 20, num_layers=2)
    >>> output, h_n = rnn(pydevtensor.randn(5, 3, 10))
    >>> output.shape, h_n.shape
    (pydevtensor.Size([5, 3, 20]), pydevtensor.Size([2, 3, 20]))
    >>> output, h_n = rnn(pydevtensor.randn(5, 3, 10), pydevtensor.zeros(2, 3, 20))
    >>> bool((output[-1] == h_n[-1]).all())
    True
    >>> [name for name, _ in nn.RNN(10, 20, bidirectional=True).named_parameters()][:5]
    ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0', 'weight_ih_l0_reverse']
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: unknown nonlinearity {nonlinearity!r}. Select from "
                             f"'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)
        self.nonlinearity = nonlinearity


class GRU(RNNBase):
    """A multi-layer gated recurrent unit (D2L's section 10.2), as ``torch.nn.GRU``: for
    each layer and each time step t, with the gates in PyTorch's order r, z, n::

        r_t = sigmoid(W_ir x_t + b_ir + W_hr h_(t-1) + b_hr)
        z_t = sigmoid(W_iz x_t + b_iz + W_hz h_(t-1) + b_hz)
        n_t = tanh(W_in x_t + b_in + r_t (W_hn h_(t-1) + b_hn))
        h_t = (1 - z_t) n_t + z_t h_(t-1)

    Parameters
    ----------
    input_size : int
        H_in, the size of each step's input.
    hidden_size : int
        H, the size of the hidden state.
    num_layers : int, optional
        Stacked layers (default 1).
    bias : bool, optional
        Learn b_ih and b_hh (default True).
    batch_first : bool, optional
        Inputs and outputs are (N, L, features) instead of (L, N, features) (default
        False).
    dropout : float, optional
        Dropout probability on the outputs of every layer but the last, in training
        (default 0).
    bidirectional : bool, optional
        Run every layer both ways in time and concatenate (default False).
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).

    Attributes
    ----------
    weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}
        Layer k's [W_ir; W_iz; W_in] of shape (3 H, H_in), [W_hr; W_hz; W_hn] of shape
        (3 H, H) and the biases (3 H,), ``_reverse`` for the backward direction; drawn
        from U(-1/sqrt(H), 1/sqrt(H)).

    Raises
    ------
    TypeError, ValueError
        As :class:`RNN` (no nonlinearity).

    Notes
    -----
    Called as ``gru(input, h0=None)``, with the shapes of :class:`RNN`, and returns
    ``(output, h_n)`` as it does.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> gru = nn.GRU(10, 20, batch_first=True)
    >>> output, h_n = gru(pydevtensor.randn(3, 5, 10))
    >>> output.shape, h_n.shape
    (pydevtensor.Size([3, 5, 20]), pydevtensor.Size([1, 3, 20]))
    >>> gru.weight_ih_l0.shape
    pydevtensor.Size([60, 10])
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, device: str | device | None = None,
                 dtype: dtype | None = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)


class LSTM(RNNBase):
    """A multi-layer long short-term memory (D2L's section 10.1), as ``torch.nn.LSTM``:
    for each layer and each time step t, with the gates in PyTorch's order i, f, g, o::

        i_t = sigmoid(W_ii x_t + b_ii + W_hi h_(t-1) + b_hi)
        f_t = sigmoid(W_if x_t + b_if + W_hf h_(t-1) + b_hf)
        g_t = tanh(W_ig x_t + b_ig + W_hg h_(t-1) + b_hg)
        o_t = sigmoid(W_io x_t + b_io + W_ho h_(t-1) + b_ho)
        c_t = f_t c_(t-1) + i_t g_t
        h_t = o_t tanh(c_t)

    Parameters
    ----------
    input_size : int
        H_in, the size of each step's input.
    hidden_size : int
        H, the size of the hidden and cell states.
    num_layers : int, optional
        Stacked layers (default 1).
    bias : bool, optional
        Learn b_ih and b_hh (default True).
    batch_first : bool, optional
        Inputs and outputs are (N, L, features) instead of (L, N, features) (default
        False).
    dropout : float, optional
        Dropout probability on the outputs of every layer but the last, in training
        (default 0).
    bidirectional : bool, optional
        Run every layer both ways in time and concatenate (default False).
    proj_size : int, optional
        P > 0 (below hidden_size): an LSTM with projections (LSTMP, PyTorch's): each
        step's h is ``W_hr (o * tanh(c))``, of size P, so h0, h_n and the output have P
        features (c stays H); default 0, none.
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).

    Attributes
    ----------
    weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}
        Layer k's [W_ii; W_if; W_ig; W_io] of shape (4 H, H_in), [W_hi; W_hf; W_hg; W_ho] of
        shape (4 H, H) (4 H, P with proj_size) and the biases (4 H,), ``_reverse`` for
        the backward direction; drawn from U(-1/sqrt(H), 1/sqrt(H)).
    weight_hr_l{k}
        With proj_size: layer k's projection, of shape (P, H).

    Raises
    ------
    TypeError, ValueError
        As :class:`RNN`, or proj_size not below hidden_size; at the call also when hx
        is not a pair (h0, c0).

    Notes
    -----
    ``lstm(input, (h0, c0))`` (or ``lstm(input)``: zeros) takes the shapes of
    :class:`RNN` for the input and for both h0 and c0, and returns ``(output, (h_n,
    c_n))``.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> lstm = nn.LSTM(10, 20, num_layers=2, bidirectional=True)
    >>> output, (h_n, c_n) = lstm(pydevtensor.randn(5, 3, 10))
    >>> output.shape, h_n.shape, c_n.shape
    (pydevtensor.Size([5, 3, 40]), pydevtensor.Size([4, 3, 20]), pydevtensor.Size([4, 3, 20]))
    >>> lstm
    LSTM(10, 20, num_layers=2, bidirectional=True)
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device=device, dtype=dtype)

    get_expected_cell_size = LSTMHooks.get_expected_cell_size
    check_forward_args = LSTMHooks.check_forward_args  # type: ignore[assignment]
    permute_hidden = LSTMHooks.permute_hidden  # type: ignore[assignment]
