"""The recurrent layers' argument checks (nn.RNN, nn.GRU, nn.LSTM and their cells):
the module-level helpers their forward calls, and PyTorch's hooks of
``torch.nn.RNNBase`` built on them - check_input, get_expected_hidden_size,
check_hidden_size, check_forward_args, permute_hidden, and the LSTM's
get_expected_cell_size and its (h, c) forms of the last two - which code written for
PyTorch calls or overrides."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import _C
from .._args import size as _size
from ..amp import _state as _amp

if TYPE_CHECKING:
    from .._C import Tensor

_Invalid = _C.InvalidArgumentError  # a ValueError and a RuntimeError: a bad shape


def check_size(name: str, value: Any, where: str, least: int) -> int:
    """An int >= least (input_size, hidden_size, num_layers), else TypeError/ValueError."""
    value = _size(value, where, name)  # a NumPy integer too, kept as an int
    if value < least:
        raise ValueError(f"{where}: {name} must be {'greater than zero' if least else '>= 0'}, "
                         f"got {value}")
    return value


def check_tensor(where: str, what: str, t: Any, own: Tensor, input: Tensor | None,
                 layer: bool = False) -> None:
    """t (the input, h0 or c0) is a Tensor on the module's device, of its dtype (or,
    under autocast, of another that autocast casts); own is one of the module's
    parameters; input the input, when t is a state; layer: t is a
    sequence layer's input (PyTorch's ValueError wording for its dtype)."""
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"{where}: {what} must be a Tensor, got {type(t).__name__}")
    if input is not None and t.device != input.device:
        raise _C.DeviceError(f"{where}: the input is on {input.device} but {what} is on "
                             f"{t.device}; move {what} with .to({str(input.device)!r})")
    if t.device != own.device:
        raise _C.DeviceError(f"{where}: {what} is on {t.device} but the module's "
                             f"parameters are on {own.device}; move one with .to()")
    if t.dtype != own.dtype and _amp._eligible(t) and _amp._eligible(own):
        return  # under autocast, as PyTorch's (its products cast them)
    if t.dtype != own.dtype and layer:  # PyTorch's words (a ValueError there too)
        raise _Invalid(f"{where}: RNN input dtype ({t.dtype}) does not match weight dtype "
                       f"({own.dtype}) (on {t.device}). Convert input: input.to({own.dtype}), "
                       f"or convert model: model.to({t.dtype})")
    if t.dtype != own.dtype:  # a RuntimeError in PyTorch (its matmul's)
        raise _Invalid(f"{where}: {what} is {t.dtype} but the module's parameters are "
                       f"{own.dtype}; convert {what} with .to({own.dtype}) or the "
                       f"module with .to(dtype={t.dtype}) (on {t.device})")


def check_state(where: str, what: str, t: Any, own: Tensor, input: Tensor,
                shape: tuple[int, ...], meaning: str) -> None:
    """A given h0 or c0: a Tensor like the input, of exactly this shape (with "N, " in
    meaning when the input is batched)."""
    check_tensor(where, what, t, own, input)
    if t.ndim != len(shape):
        batched = "batched" if "N, " in meaning else "unbatched"
        raise _Invalid(f"{where}: for {batched} {input.ndim}-D input, {what} should be "
                       f"{len(shape)}-D {meaning}, got a {t.ndim}-D tensor of shape "
                       f"{tuple(t.shape)} (on {t.device})")
    if tuple(t.shape) != shape:
        raise _Invalid(f"{where}: expected {what} of shape {shape} {meaning}, got "
                       f"{tuple(t.shape)} for an input of shape {tuple(input.shape)} "
                       f"(on {t.device})")


def check_input(where: str, input: Any, own: Tensor, input_size: int, ndims: tuple[int, int],
                forms: str) -> None:
    """The input is a Tensor like the module's parameter own, of ndims[0] or ndims[1]
    dimensions (described by forms: a sequence layer's are 2 and 3), the last of them
    input_size."""
    if not isinstance(input, _C.Tensor) and hasattr(input, "batch_sizes"):
        raise NotImplementedError(
            f"{where}: the input is a {type(input).__name__}, not a Tensor or a "
            f"pydevtensor PackedSequence; pack the batch with "
            f"pydevtensor.nn.utils.rnn.pack_padded_sequence")
    check_tensor(where, "the input", input, own, None, layer=ndims[0] >= 2)
    if input.ndim not in ndims:
        raise _Invalid(f"{where}: expected input to be {forms}, got {input.ndim}-D input of "
                       f"shape {tuple(input.shape)} (on {input.device})")
    if input.shape[-1] != input_size:
        raise _Invalid(f"{where}: expected input of size {input_size} (input_size) in its last "
                       f"dimension, got {input.shape[-1]} in an input of shape "
                       f"{tuple(input.shape)} (on {input.device})")


def initial_states(where: str, hx: Any, own: Tensor, input: Tensor, shape: tuple[int, ...],
                   meaning: str, names: tuple[str, ...],
                   c_shape: tuple[int, ...] | None = None) -> tuple[Tensor, Tensor | None]:
    """(h, c) from hx: a Tensor (names has one entry) or an LSTM's pair (two names), as
    given and checked against shape (c against c_shape when given: an LSTM with
    projections), or zeros when hx is None; c is None but for the LSTM."""
    lstm = len(names) == 2
    shapes = (shape, shape if c_shape is None else c_shape)
    meanings = (meaning, meaning if c_shape is None else meaning.replace("proj_size",
                                                                          "hidden_size"))
    if hx is None:
        states = tuple(_C.zeros(shapes[k], device=input.device, dtype=input.dtype)
                       for k in range(len(names)))
    elif lstm:
        if not isinstance(hx, (tuple, list)) or len(hx) != 2:
            raise TypeError(f"{where}: hx must be a tuple ({names[0]}, {names[1]}) of two "
                            f"Tensors, got {type(hx).__name__}" +
                            (f" of {len(hx)}" if isinstance(hx, (tuple, list)) else ""))
        states = tuple(hx)
    else:
        states = (hx,)
    if hx is not None:
        for k, (name, t) in enumerate(zip(names, states)):
            check_state(where, name, t, own, input, shapes[k], meanings[k])
    return states[0], states[1] if lstm else None




def state_sizes(module: Any, mini_batch: int) -> tuple[tuple[int, int, int],
                                                     tuple[int, int, int]]:
    """The shapes of h and c for a batch of mini_batch sequences: (num_layers * D,
    mini_batch, proj_size or hidden_size) and (num_layers * D, mini_batch, hidden_size),
    D = 2 when bidirectional else 1."""
    layers = module.num_layers * (2 if module.bidirectional else 1)
    return ((layers, mini_batch, module.proj_size or module.hidden_size),
            (layers, mini_batch, module.hidden_size))


def _mini_batch(module: Any, input: Tensor, batch_sizes: Tensor | None) -> int:
    if batch_sizes is not None:  # a packed batch: its first step has every sequence
        return int(batch_sizes[0])
    return input.shape[0 if module.batch_first else 1]


class Hooks:
    """PyTorch's ``nn.RNNBase`` hooks, set on RNNBase (and LSTM's on LSTM)."""

    def check_input(self: Any, input: Tensor, batch_sizes: Tensor | None) -> None:
        """Checks a batched input as PyTorch's ``RNNBase.check_input``: a Tensor on the
        module's device and of its dtype, 3-D (2-D when batch_sizes is given: a packed
        sequence's data), of input_size features (the checks forward makes).

        Parameters
        ----------
        input : Tensor
            (L, N, H_in) ((N, L, H_in) when batch_first), or (steps, H_in) packed.
        batch_sizes : Tensor or None
            A PackedSequence's batch_sizes, or None.

        Returns
        -------
        None

        Raises
        ------
        ValueError, RuntimeError
            (pydevtensor.InvalidArgumentError, both) for another dtype, number of
            dimensions or feature size; DeviceError for another device.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> gru = nn.GRU(3, 4)
        >>> gru.check_input(pydevtensor.ones(5, 2, 3), None)
        >>> try:
        ...     gru.check_input(pydevtensor.ones(5, 2, 6), None)  # 6 features, not 3
        ... except ValueError:
        ...     print("refused")
        refused
        """
        ndim = 3 if batch_sizes is None else 2
        forms = (("3-D (N, L, H_in)" if self.batch_first else "3-D (L, N, H_in)")
                 if batch_sizes is None else "packed 2-D (steps, H_in)")
        check_input(type(self).__name__, input, self._flat_weights[0], self.input_size,
                    (ndim, ndim), forms)

    def get_expected_hidden_size(self: Any, input: Tensor,
                                 batch_sizes: Tensor | None) -> tuple[int, int, int]:
        """h0's shape for this input, as PyTorch's ``get_expected_hidden_size``.

        Parameters
        ----------
        input : Tensor
            A batched input (or a packed sequence's data, with batch_sizes).
        batch_sizes : Tensor or None
            A PackedSequence's batch_sizes (its first entry is the batch), or None.

        Returns
        -------
        tuple of int
            (num_layers * D, N, proj_size or hidden_size), D = 2 when bidirectional.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> gru = nn.GRU(3, 4, num_layers=2)
        >>> gru.get_expected_hidden_size(pydevtensor.ones(5, 7, 3), None)
        (2, 7, 4)
        """
        return state_sizes(self, _mini_batch(self, input, batch_sizes))[0]

    def check_hidden_size(self: Any, hx: Tensor, expected_hidden_size: tuple[int, ...],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        """RuntimeError ``msg.format(expected_hidden_size, list(hx.shape))`` when hx's shape
        is not expected_hidden_size, as PyTorch's ``check_hidden_size``.

        Parameters
        ----------
        hx : Tensor
            A hidden (or cell) state.
        expected_hidden_size : tuple of int
            Its shape (get_expected_hidden_size's).
        msg : str, optional
            The message, with two ``{}``: the expected shape and hx's as a list.

        Returns
        -------
        None

        Raises
        ------
        TypeError
            When hx is not a Tensor.
        RuntimeError
            When its shape differs.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> nn.RNN(3, 4).check_hidden_size(pydevtensor.zeros(1, 2, 5), (1, 2, 4))
        Traceback (most recent call last):
        ...
        RuntimeError: Expected hidden size (1, 2, 4), got [1, 2, 5]
        """
        if not isinstance(hx, _C.Tensor):
            raise TypeError(f"{type(self).__name__}.check_hidden_size(): hx must be a Tensor, "
                            f"got {type(hx).__name__}")
        if tuple(hx.shape) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.shape)))

    def check_forward_args(self: Any, input: Tensor, hidden: Tensor,
                           batch_sizes: Tensor | None) -> None:
        """check_input, then check_hidden_size of hidden against get_expected_hidden_size,
        as PyTorch's ``check_forward_args`` (the LSTM's checks the pair (h, c)).

        Parameters
        ----------
        input : Tensor
            As check_input's.
        hidden : Tensor
            h0.
        batch_sizes : Tensor or None
            A PackedSequence's batch_sizes, or None.

        Returns
        -------
        None

        Raises
        ------
        ValueError, RuntimeError
            As check_input and check_hidden_size.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> gru, x = nn.GRU(3, 4), pydevtensor.ones(5, 2, 3)
        >>> gru.check_forward_args(x, pydevtensor.zeros(1, 2, 4), None)
        """
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self: Any, hx: Tensor, permutation: Tensor | None) -> Tensor:
        """hx with its batch (dimension 1) in the order of permutation, as PyTorch's
        ``permute_hidden`` (a PackedSequence's sorted_indices); hx itself for None.

        Parameters
        ----------
        hx : Tensor
            (num_layers * D, N, H).
        permutation : Tensor or None
            N int64 indices.

        Returns
        -------
        Tensor
            ``hx.index_select(1, permutation)``.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> h = pydevtensor.tensor([[[1.], [2.], [3.]]])
        >>> nn.RNN(1, 1).permute_hidden(h, pydevtensor.tensor([2, 0, 1])).flatten()
        tensor([3., 1., 2.])
        """
        return hx if permutation is None else hx.index_select(1, permutation)


class LSTMHooks:
    """The LSTM's forms of the hooks: hidden is the pair (h, c)."""

    def get_expected_cell_size(self: Any, input: Tensor,
                               batch_sizes: Tensor | None) -> tuple[int, int, int]:
        """c0's shape for this input, as PyTorch's ``LSTM.get_expected_cell_size``.

        Parameters
        ----------
        input : Tensor
            A batched input (or a packed sequence's data, with batch_sizes).
        batch_sizes : Tensor or None
            A PackedSequence's batch_sizes, or None.

        Returns
        -------
        tuple of int
            (num_layers * D, N, hidden_size) (hidden_size also with proj_size).

        Examples
        --------
        >>> from pydevtensor import nn
        >>> lstm = nn.LSTM(3, 4, proj_size=2)
        >>> lstm.get_expected_cell_size(pydevtensor.ones(5, 7, 3), None)
        (1, 7, 4)
        """
        return state_sizes(self, _mini_batch(self, input, batch_sizes))[1]

    def check_forward_args(self: Any, input: Tensor, hidden: tuple[Tensor, Tensor],
                           batch_sizes: Tensor | None) -> None:
        """check_input, then h against get_expected_hidden_size and c against
        get_expected_cell_size, as PyTorch's ``LSTM.check_forward_args``.

        Parameters
        ----------
        input : Tensor
            As check_input's.
        hidden : tuple of two Tensors
            (h0, c0).
        batch_sizes : Tensor or None
            A PackedSequence's batch_sizes, or None.

        Returns
        -------
        None

        Raises
        ------
        TypeError
            When hidden is not a pair.
        ValueError, RuntimeError
            As check_input and check_hidden_size (``Expected hidden[1] size ...`` for c).

        Examples
        --------
        >>> from pydevtensor import nn
        >>> lstm, x = nn.LSTM(3, 4), pydevtensor.ones(5, 2, 3)
        >>> h0 = pydevtensor.zeros(1, 2, 4)
        >>> lstm.check_forward_args(x, (h0, h0.clone()), None)
        """
        if not isinstance(hidden, (tuple, list)) or len(hidden) != 2:
            raise TypeError(f"{type(self).__name__}.check_forward_args(): hidden must be a "
                            f"pair (h, c) of Tensors, got {type(hidden).__name__}")
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self: Any, hx: tuple[Tensor, Tensor],
                       permutation: Tensor | None) -> tuple[Tensor, Tensor]:
        """(h, c) with their batch in the order of permutation, as PyTorch's
        ``LSTM.permute_hidden``; hx itself for None.

        Parameters
        ----------
        hx : tuple of two Tensors
            (h, c).
        permutation : Tensor or None
            N int64 indices.

        Returns
        -------
        tuple of two Tensors
            Each ``index_select(1, permutation)``.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> h = pydevtensor.tensor([[[1.], [2.]]])
        >>> h2, c2 = nn.LSTM(1, 1).permute_hidden((h, -h), pydevtensor.tensor([1, 0]))
        >>> h2.flatten(), c2.flatten()
        (tensor([2., 1.]), tensor([-2., -1.]))
        """
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)
