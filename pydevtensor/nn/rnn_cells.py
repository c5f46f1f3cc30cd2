"""The recurrent cells: one time step of an RNN, a GRU or an LSTM (RNNCell, GRUCell,
LSTMCell), for loops written by hand as in D2L's from-scratch sections, with PyTorch's
parameter names, shapes, gate order and initialisation.  The step math is shared with
the sequence layers (_functional_rnn.py); the checks with rnn.py."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import _C
from ..amp import _state as _amp
from . import _functional_rnn as FR
from . import functional as F
from .module import Module
from .parameter import Parameter
from ._rnn_checks import check_input, check_size, initial_states
from .rnn import reset_parameters as _reset_parameters

if TYPE_CHECKING:
    from .._C import Tensor, device, dtype


class RNNCellBase(Module):
    """The base of RNNCell, GRUCell and LSTMCell (as ``torch.nn.RNNCellBase``): the
    parameters weight_ih (num_chunks H, H_in), weight_hh (num_chunks H, H), bias_ih and
    bias_hh (num_chunks H,), drawn from U(-1/sqrt(H), 1/sqrt(H)).  Build one of the
    subclasses.

    Parameters
    ----------
    input_size : int
        H_in.
    hidden_size : int
        H.
    bias : bool
        Learn bias_ih and bias_hh.
    num_chunks : int
        The number of gate blocks: 1 (RNN), 3 (GRU) or 4 (LSTM).
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).

    Raises
    ------
    TypeError, ValueError
        When a size is not a positive int.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> isinstance(nn.GRUCell(3, 4), nn.RNNCellBase)
    True
    >>> nn.RNNCellBase(3, 4, True, 2).weight_hh.shape
    pydevtensor.Size([8, 4])
    """

    _mode: str | None = None  # the step of _functional_rnn.py; the subclasses set it

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        where = type(self).__name__
        input_size = check_size("input_size", input_size, where, 0)
        hidden_size = check_size("hidden_size", hidden_size, where, 1)
        num_chunks = check_size("num_chunks", num_chunks, where, 1)
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bool(bias)
        dtype = _C._get_default_dtype() if dtype is None else dtype
        gates = num_chunks * hidden_size
        shapes: list[tuple[str, tuple[int, ...]]] = [
            ("weight_ih", (gates, input_size)), ("weight_hh", (gates, hidden_size)),
            ("bias_ih", (gates,)), ("bias_hh", (gates,))]
        for name, shape in shapes:
            if self.bias or name.startswith("weight"):
                setattr(self, name, Parameter(_C.empty(shape, device=device, dtype=dtype)))
            else:
                self.register_parameter(name, None)
        self.reset_parameters()

    reset_parameters = _reset_parameters  # the sequence layers' draws

    def forward(self, input: Tensor, hx: Any = None) -> Any:
        """One time step (call the module instead).

        Parameters
        ----------
        input : Tensor
            (N, H_in), or (H_in) unbatched.
        hx : Tensor or tuple of two Tensors, optional
            The hidden state (N, H) ((H) unbatched); for the LSTMCell the pair (h, c).
            Zeros when None.

        Returns
        -------
        Tensor or tuple of two Tensors
            The next hidden state, or the pair (h', c') for the LSTMCell.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> h, c = nn.LSTMCell(3, 4)(pydevtensor.ones(2, 3))
        >>> h.shape, c.shape
        (pydevtensor.Size([2, 4]), pydevtensor.Size([2, 4]))
        """
        where = type(self).__name__
        mode = self._mode
        if mode is None:
            raise NotImplementedError(f"{where} has no forward(); build an RNNCell, GRUCell "
                                      f"or LSTMCell")
        # by attribute: a weight replaced by a plain tensor (weight drop) is used
        w_ih, w_hh, b_ih, b_hh = self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh
        check_input(where, input, w_ih, self.input_size, (1, 2), "1-D (H_in) or 2-D (N, H_in)")
        batched = input.ndim == 2
        shape = (input.shape[0], self.hidden_size) if batched else (self.hidden_size,)
        meaning = "(N, hidden_size)" if batched else "(hidden_size)"
        lstm = mode == "LSTM"
        h, c = initial_states(where, hx, w_ih, input, shape, meaning,
                              ("h", "c") if lstm else ("hx",))
        x = input if batched else input.unsqueeze(0)
        h = h if batched else h.unsqueeze(0)
        c = c if batched or c is None else c.unsqueeze(0)
        h, c = _amp.cuda_lowered_states(x, h, c)
        h, c = FR.step(mode, F.linear(x, w_ih, b_ih), h, c, w_hh, b_hh)
        if not batched:
            h, c = h.squeeze(0), None if c is None else c.squeeze(0)
        return (h, c) if lstm else h

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            s += ", bias=False"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(RNNCellBase):
    """One step of an Elman RNN, as ``torch.nn.RNNCell``::

        h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)

    (relu instead of tanh with nonlinearity='relu').

    Parameters
    ----------
    input_size : int
        H_in, the size of the input.
    hidden_size : int
        H, the size of the hidden state.
    bias : bool, optional
        Learn bias_ih and bias_hh (default True).
    nonlinearity : str, optional
        'tanh' (default) or 'relu'.
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).

    Attributes
    ----------
    weight_ih, weight_hh, bias_ih, bias_hh
        Of shapes (H, H_in), (H, H), (H,) and (H,), drawn from U(-1/sqrt(H), 1/sqrt(H)).

    Raises
    ------
    TypeError, ValueError
        When a size is not a positive int or nonlinearity is neither 'tanh' nor 'relu'.
        At the call: when the input is not 1-D or 2-D or its last dimension is not
        input_size, hx has another shape, or the input or hx is on another device
        (DeviceError) or of another dtype.

    Notes
    -----
    ``cell(input, hx=None)`` takes input (N, H_in) or (H_in) unbatched and hx (N, H) or
    (H) (zeros when not given), and returns the next hidden state, of hx's shape.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> cell = nn.RNNCell(10, 20)
    >>> x, h = pydevtensor.randn(6, 3, 10), None
    >>> for t in range(6):
    ...     h = cell(x[t], h)
    >>> h.shape
    pydevtensor.Size([3, 20])
    >>> nn.RNNCell(10, 20, nonlinearity="relu")
    RNNCell(10, 20, nonlinearity=relu)
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: str | device | None = None,
                 dtype: dtype | None = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNNCell: unknown nonlinearity {nonlinearity!r}. Select from "
                             f"'tanh' or 'relu'.")
        super().__init__(input_size, hidden_size, bias, 1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    @property
    def _mode(self) -> str:  # type: ignore[override]
        """The step, from nonlinearity as it is at the call (set after construction
        too, as PyTorch reads it)."""
        if self.nonlinearity == "tanh":
            return "RNN_TANH"
        if self.nonlinearity == "relu":
            return "RNN_RELU"
        raise RuntimeError(f"RNNCell: unknown nonlinearity {self.nonlinearity!r}. Select "
                           f"from 'tanh' or 'relu'.")


class GRUCell(RNNCellBase):
    """One step of a gated recurrent unit, as ``torch.nn.GRUCell`` (gates r, z, n)::

        r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
        z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
        n = tanh(W_in x + b_in + r (W_hn h + b_hn))
        h' = (1 - z) n + z h

    Parameters
    ----------
    input_size : int
        H_in, the size of the input.
    hidden_size : int
        H, the size of the hidden state.
    bias : bool, optional
        Learn bias_ih and bias_hh (default True).
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).

    Attributes
    ----------
    weight_ih, weight_hh, bias_ih, bias_hh
        [W_ir; W_iz; W_in] of shape (3 H, H_in), [W_hr; W_hz; W_hn] of shape (3 H, H) and
        the biases (3 H,), drawn from U(-1/sqrt(H), 1/sqrt(H)).

    Raises
    ------
    TypeError, ValueError
        As :class:`RNNCell`.

    Notes
    -----
    Called as ``cell(input, hx=None)``, with the shapes of :class:`RNNCell`.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> cell = nn.GRUCell(10, 20)
    >>> cell(pydevtensor.randn(3, 10)).shape
    pydevtensor.Size([3, 20])
    >>> cell(pydevtensor.randn(10), pydevtensor.zeros(20)).shape
    pydevtensor.Size([20])
    """

    _mode = "GRU"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device=device, dtype=dtype)


class LSTMCell(RNNCellBase):
    """One step of a long short-term memory, as ``torch.nn.LSTMCell`` (gates i, f, g,
    o)::

        i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of (x W_ih^T + b_ih + h W_hh^T + b_hh)
        c' = f c + i g
        h' = o tanh(c')

    Parameters
    ----------
    input_size : int
        H_in, the size of the input.
    hidden_size : int
        H, the size of the hidden and cell states.
    bias : bool, optional
        Learn bias_ih and bias_hh (default True).
    device : str or pydevtensor.device, optional
        Where the parameters live.
    dtype : pydevtensor.dtype, optional
        Their dtype (default: get_default_dtype(), float32 at start).

    Attributes
    ----------
    weight_ih, weight_hh, bias_ih, bias_hh
        [W_ii; W_if; W_ig; W_io] of shape (4 H, H_in), [W_hi; W_hf; W_hg; W_ho] of shape
        (4 H, H) and the biases (4 H,), drawn from U(-1/sqrt(H), 1/sqrt(H)).

    Raises
    ------
    TypeError, ValueError
        As :class:`RNNCell`; at the call also when hx is not a pair (h, c).

    Notes
    -----
    ``cell(input, (h, c))`` (or ``cell(input)``: zeros), with the shapes of
    :class:`RNNCell` for the input, h and c, returns ``(h', c')``.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> cell = nn.LSTMCell(10, 20)
    >>> h, c = cell(pydevtensor.randn(3, 10))
    >>> h, c = cell(pydevtensor.randn(3, 10), (h, c))
    >>> h.shape, c.shape
    (pydevtensor.Size([3, 20]), pydevtensor.Size([3, 20]))
    """

    _mode = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: str | device | None = None, dtype: dtype | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device=device, dtype=dtype)
