"""nn.utils.rnn: variable-length sequences for the recurrent layers, as
``torch.nn.utils.rnn``: pad_sequence and unpad_sequence, the PackedSequence, and
pack_padded_sequence, pad_packed_sequence, pack_sequence and unpack_sequence.

A PackedSequence holds the steps of a batch of sequences sorted by decreasing length,
time-major: ``data`` is (sum of the lengths, ...), the batch_sizes[0] first steps,
then the batch_sizes[1] second steps, and so on; ``batch_sizes`` (an int64 tensor on
the CPU) counts the sequences still running at each time step.  nn.RNN, nn.GRU and
nn.LSTM take one and return one (nn/_packed_rnn.py).

Every conversion here is one index_select (a gather) of the input, after a row of
the padding value is appended where padding is produced, so that it runs on every
device and its gradient is one index_add: packing and padding are differentiable.
"""
from __future__ import annotations

import collections
from collections.abc import Iterable
from typing import Any, List, Optional, Sequence, Tuple

from ... import _C
from ..._args import flag, size as _size
from ..._memory_format import contiguous_format as _contiguous_format
from ..._ops_index import index_select as _index_select
from ..._ops_join import cat as _cat

__all__ = ["PackedSequence", "pad_sequence", "unpad_sequence", "pack_padded_sequence",
           "pad_packed_sequence", "pack_sequence", "unpack_sequence",
           "invert_permutation"]

_Invalid = _C.InvalidArgumentError  # a ValueError and a RuntimeError


def _cpu_longs(values: Sequence[int]) -> _C.Tensor:
    return _C.tensor(list(values), dtype=_C.int64)


def _index(values: Sequence[int], device: Any) -> _C.Tensor:
    return _C.tensor(list(values), dtype=_C.int64, device=device)


def invert_permutation(permutation: Optional[_C.Tensor]) -> Optional[_C.Tensor]:
    """The inverse of a permutation of 0..n-1 (None for None), as PyTorch's
    ``nn.utils.rnn.invert_permutation``: ``out[permutation[i]] = i``.

    Parameters
    ----------
    permutation : Tensor or None
        A 1-D int64 tensor holding each of 0..n-1 once.

    Returns
    -------
    Tensor or None
        The inverse, on permutation's device.

    Examples
    --------
    >>> from pydevtensor.nn.utils.rnn import invert_permutation
    >>> invert_permutation(pydevtensor.tensor([2, 0, 1]))
    tensor([1, 2, 0])
    """
    if permutation is None:
        return None
    order = [int(v) for v in _C._implicit_cpu(permutation, "invert_permutation()").tolist()]
    inverse = [0] * len(order)
    for i, p in enumerate(order):
        inverse[p] = i
    return _index(inverse, permutation.device)


def _cast(dtype_name: str, method: str) -> Any:
    """PackedSequence's method `method`: ``self.to(pydevtensor.<dtype_name>)``."""
    def cast(self: "PackedSequence") -> "PackedSequence":
        return self.to(getattr(_C, dtype_name))
    cast.__name__, cast.__qualname__ = method, f"PackedSequence.{method}"
    cast.__doc__ = f"""The sequence with data as {dtype_name}
        (``self.to(pydevtensor.{dtype_name})``), as PyTorch's ``PackedSequence.{method}``.

        Returns
        -------
        PackedSequence
            A new one, or self when data is {dtype_name} already.

        Examples
        --------
        >>> from pydevtensor.nn.utils.rnn import pack_sequence
        >>> p = pack_sequence([pydevtensor.ones(2), pydevtensor.ones(1)])
        >>> p.{method}().data.dtype
        pydevtensor.{dtype_name}
        """
    return cast


_PackedSequenceFields = collections.namedtuple(
    "PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedSequenceFields):
    """A batch of variable-length sequences packed for the recurrent layers, as
    ``torch.nn.utils.rnn.PackedSequence`` (a named tuple).  Build one with
    :func:`pack_padded_sequence` or :func:`pack_sequence`, not directly.

    Parameters
    ----------
    data : Tensor
        (sum of the lengths, ...): the first step of every sequence, then the second
        step of those at least two long, ..., sequences in decreasing length.
    batch_sizes : Tensor
        int64 on the CPU: how many sequences have a step at each time.
    sorted_indices : Tensor, optional
        The sequences' original index of each sorted slot (None: the batch was
        already sorted).
    unsorted_indices : Tensor, optional
        The inverse of sorted_indices (computed when not given).

    Examples
    --------
    >>> from pydevtensor.nn.utils.rnn import pack_sequence
    >>> p = pack_sequence([pydevtensor.tensor([1, 2, 3]), pydevtensor.tensor([4, 5])])
    >>> p.data, p.batch_sizes
    (tensor([1, 4, 2, 5, 3]), tensor([2, 2, 1]))
    """

    def __new__(cls, data: Any, batch_sizes: Optional[_C.Tensor] = None,
                sorted_indices: Optional[_C.Tensor] = None,
                unsorted_indices: Optional[_C.Tensor] = None) -> "PackedSequence":
        if batch_sizes is None:  # PackedSequence((data, batch_sizes)), as PyTorch
            if not isinstance(data, (list, tuple)) or len(data) != 2:
                got = type(data).__name__
                got += f" of length {len(data)}" if isinstance(data, (list, tuple)) else ""
                raise TypeError(f"PackedSequence: without batch_sizes, expected data to be a "
                                f"list or tuple (data, batch_sizes), got {got}")
            data, batch_sizes = data
        if not isinstance(batch_sizes, _C.Tensor) or batch_sizes.device.type != "cpu" \
                or batch_sizes.ndim != 1:
            raise _Invalid(
                "PackedSequence: batch_sizes should always be a 1-D int64 tensor on the CPU, "
                f"got {getattr(batch_sizes, 'device', type(batch_sizes).__name__)}; "
                "instances of PackedSequence should not be created manually: use "
                "pack_padded_sequence or pack_sequence")
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        """``data.to(*args, **kwargs)``, with the indices moved to data's new device
        (batch_sizes stays on the CPU); self when nothing changes.

        Parameters
        ----------
        *args, **kwargs
            What ``Tensor.to`` takes: a device, a dtype, or both.

        Returns
        -------
        PackedSequence
            A new one, or self when data would not change.

        Examples
        --------
        >>> from pydevtensor.nn.utils.rnn import pack_sequence
        >>> p = pack_sequence([pydevtensor.ones(2), pydevtensor.ones(1)])
        >>> p.to(pydevtensor.float64).data.dtype
        pydevtensor.float64
        """
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = (lambda t: None if t is None else t.to(data.device))
        return type(self)(data, self.batch_sizes, move(self.sorted_indices),
                          move(self.unsorted_indices))

    def cuda(self, *args: Any, **kwargs: Any) -> "PackedSequence":
        """The sequence on a CUDA device (``data.cuda(...)``'s).

        Parameters
        ----------
        *args, **kwargs
            What ``Tensor.cuda`` takes (a device index or name).

        Returns
        -------
        PackedSequence
            On that device; the copy of data is counted as ``Tensor.cuda``'s is.

        Examples
        --------
        >>> from pydevtensor.nn.utils.rnn import pack_sequence
        >>> p = pack_sequence([pydevtensor.ones(2), pydevtensor.ones(1)])
        >>> p.cuda().is_cuda if pydevtensor.cuda.is_available() else True
        True
        """
        return self.to(self.data.cuda(*args, **kwargs).device)

    def cpu(self) -> "PackedSequence":
        """The sequence on the CPU.

        Returns
        -------
        PackedSequence
            self when data is on the CPU already.

        Examples
        --------
        >>> from pydevtensor.nn.utils.rnn import pack_sequence
        >>> p = pack_sequence([pydevtensor.ones(2), pydevtensor.ones(1)])
        >>> p.cpu().device
        device(type='cpu')
        """
        return self.to("cpu")

    double = _cast("float64", "double")
    float = _cast("float32", "float")
    half = _cast("float16", "half")
    bfloat16 = _cast("bfloat16", "bfloat16")
    long = _cast("int64", "long")
    int = _cast("int32", "int")
    short = _cast("int16", "short")
    char = _cast("int8", "char")
    byte = _cast("uint8", "byte")

    def pin_memory(self) -> "PackedSequence":
        """The sequence with data and the indices in pinned (page-locked) host memory,
        as PyTorch's (batch_sizes stays as it is).

        Returns
        -------
        PackedSequence
            A new one.

        Raises
        ------
        DeviceError
            Where there is no CUDA device (pinning needs one), or data is not on the CPU.

        Examples
        --------
        >>> from pydevtensor.nn.utils.rnn import pack_sequence
        >>> p = pack_sequence([pydevtensor.ones(2), pydevtensor.ones(1)])
        >>> p.pin_memory().is_pinned() if pydevtensor.cuda.is_available() else True
        True
        """
        pin = (lambda t: None if t is None else t.pin_memory())
        return type(self)(self.data.pin_memory(), self.batch_sizes, pin(self.sorted_indices),
                          pin(self.unsorted_indices))

    @property
    def is_cuda(self) -> bool:
        """Whether data is on a CUDA device.

        Examples
        --------
        >>> from pydevtensor.nn.utils.rnn import pack_sequence
        >>> p = pack_sequence([pydevtensor.ones(2), pydevtensor.ones(1)])
        >>> p.is_cuda
        False
        """
        return self.data.device.type == "cuda"

    @property
    def device(self) -> Any:
        """data's device.

        Examples
        --------
        >>> from pydevtensor.nn.utils.rnn import pack_sequence
        >>> p = pack_sequence([pydevtensor.ones(2), pydevtensor.ones(1)])
        >>> p.device
        device(type='cpu')
        """
        return self.data.device

    def is_pinned(self) -> bool:
        """Whether data is in pinned (page-locked) memory.

        Returns
        -------
        bool
            ``data.is_pinned()``.

        Examples
        --------
        >>> from pydevtensor.nn.utils.rnn import pack_sequence
        >>> p = pack_sequence([pydevtensor.ones(2), pydevtensor.ones(1)])
        >>> p.is_pinned()
        False
        """
        return bool(self.data.is_pinned())


def _lengths_list(lengths: Any, where: str) -> List[int]:
    """lengths (a list of ints or a 1-D CPU tensor) as a list of ints."""
    if isinstance(lengths, _C.Tensor):
        if lengths.device.type != "cpu" or lengths.ndim != 1:
            raise _Invalid(f"{where}: 'lengths' argument should be a 1D CPU int64 tensor, but "
                           f"got a {lengths.ndim}-D tensor on {lengths.device}; pass "
                           f"lengths.cpu() or a list")
        return [int(v) for v in lengths.tolist()]
    try:
        return [int(v) for v in lengths]
    except (TypeError, ValueError):
        raise TypeError(f"{where}: lengths must be a list of ints or a 1-D CPU tensor, got "
                        f"{type(lengths).__name__}") from None


def _batch_sizes(lengths: Sequence[int]) -> List[int]:
    """How many of the (decreasing) lengths exceed t, for t < the longest."""
    return [sum(1 for n in lengths if n > t) for t in range(max(lengths))]


def pack_padded_sequence(input: _C.Tensor, lengths: Any, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Packs a padded batch of sequences, as PyTorch's ``pack_padded_sequence``.

    Parameters
    ----------
    input : Tensor
        (T, B, ...), or (B, T, ...) when batch_first; sequence b's steps are its
        lengths[b] first ones.
    lengths : list of int or Tensor
        Each sequence's length (a 1-D tensor must be on the CPU).
    batch_first : bool, optional
        The batch is dimension 0 (default False).
    enforce_sorted : bool, optional
        Require the lengths in decreasing order (default True); False sorts them and
        records the permutation in the result.

    Returns
    -------
    PackedSequence

    Raises
    ------
    RuntimeError
        When a length is < 1 or longer than T, there are not B lengths, or they are
        unsorted with enforce_sorted=True.

    Examples
    --------
    >>> from pydevtensor.nn.utils.rnn import pack_padded_sequence
    >>> x = pydevtensor.tensor([[1, 2, 3], [4, 5, 0]])
    >>> p = pack_padded_sequence(x, [3, 2], batch_first=True)
    >>> p.data, p.batch_sizes
    (tensor([1, 4, 2, 5, 3]), tensor([2, 2, 1]))
    """
    where = "pack_padded_sequence"
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{where}: input must be a Tensor, got {type(input).__name__}")
    lens = _lengths_list(lengths, where)
    batch_first = flag(batch_first, where, "batch_first")
    if input.ndim < 2:
        raise _Invalid(f"{where}: input must have at least 2 dimensions (time and batch), got "
                       f"shape {tuple(input.shape)} (on {input.device})")
    steps, batch = (input.shape[1], input.shape[0]) if batch_first else input.shape[:2]
    if len(lens) != batch:
        raise _Invalid(f"{where}: Expected `len(lengths)` to be equal to batch_size, but got "
                       f"{len(lens)} (batch_size={batch}) for an input of shape "
                       f"{tuple(input.shape)} (on {input.device})")
    if not lens:
        raise _Invalid(f"{where}: Cannot pack empty tensors: the batch of input of shape "
                       f"{tuple(input.shape)} (batch_first={batch_first}) is empty")
    if any(n <= 0 for n in lens):
        raise _Invalid(f"{where}: Length of all samples has to be greater than 0, but found an "
                       f"element in 'lengths' that is <= 0: {lens}")
    if max(lens) > steps:
        raise _Invalid(f"{where}: a length ({max(lens)}) is longer than the input's "
                       f"{steps} steps (input of shape {tuple(input.shape)}, on {input.device})")
    if enforce_sorted:
        if any(a < b for a, b in zip(lens, lens[1:])):
            raise _Invalid(
                f"{where}: `lengths` array must be sorted in decreasing order when "
                f"`enforce_sorted` is True (got {lens}). You can pass `enforce_sorted=False` "
                f"to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                f"if you do not need ONNX exportability.")
        order, sorted_indices = list(range(batch)), None
    else:
        order = sorted(range(batch), key=lambda b: -lens[b])  # stable
        sorted_indices = _index(order, input.device)
    sizes = _batch_sizes(lens)
    # row of step t of sorted slot s in input flattened over its first two dims
    row = (lambda t, s: order[s] * steps + t) if batch_first else \
        (lambda t, s: t * batch + order[s])
    rows = [row(t, s) for t, n in enumerate(sizes) for s in range(n)]
    flat = input.reshape((steps * batch,) + tuple(input.shape[2:]))
    data = _index_select(flat, 0, _index(rows, input.device))
    return PackedSequence(data, _cpu_longs(sizes), sorted_indices,
                          invert_permutation(sorted_indices))


def _check_packed(sequence: Any, where: str) -> List[int]:
    """sequence's batch_sizes as a list, after checking that they describe its data:
    positive, never growing, summing to data's rows (a PackedSequence built by hand
    may not; PyTorch's pad_packed_sequence then pads with rows past the sum, or writes
    out of place)."""
    if not isinstance(sequence, PackedSequence):
        raise TypeError(f"{where}: expected a PackedSequence, got {type(sequence).__name__}")
    sizes = [int(v) for v in sequence.batch_sizes.tolist()]
    data = sequence.data
    rows = data.shape[0] if isinstance(data, _C.Tensor) and data.ndim >= 1 else None
    if not sizes or sizes[-1] < 1 or any(a < b for a, b in zip(sizes, sizes[1:])) or \
            sum(sizes) != rows:
        what = tuple(data.shape) if isinstance(data, _C.Tensor) else type(data).__name__
        raise _Invalid(f"{where}: the PackedSequence's batch_sizes {sizes} do not describe "
                       f"its data of shape {what}: they must be positive, never increase "
                       f"and sum to data's first dimension (build one with "
                       f"pack_padded_sequence or pack_sequence)")
    return sizes


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0,
                        total_length: Optional[int] = None) -> Tuple[_C.Tensor, _C.Tensor]:
    """Pads a packed batch back, the inverse of :func:`pack_padded_sequence`, as
    PyTorch's ``pad_packed_sequence``.

    Parameters
    ----------
    sequence : PackedSequence
        The batch.
    batch_first : bool, optional
        Return (B, T, ...) instead of (T, B, ...) (default False).
    padding_value : float, optional
        The value of the padding (default 0).
    total_length : int, optional
        Pad to this many steps (at least the longest sequence); default the longest.

    Returns
    -------
    (Tensor, Tensor)
        The padded batch, in the original order of the sequences, and their lengths
        (int64, on the CPU).

    Raises
    ------
    ValueError
        When total_length is shorter than the longest sequence.
    TypeError
        When total_length is not an int (a float, a bool), as PyTorch's.

    Examples
    --------
    >>> from pydevtensor.nn.utils.rnn import pack_sequence, pad_packed_sequence
    >>> p = pack_sequence([pydevtensor.tensor([1, 2, 3]), pydevtensor.tensor([4])])
    >>> pad_packed_sequence(p, batch_first=True)
    (tensor([[1, 2, 3],
            [4, 0, 0]]), tensor([3, 1]))
    """
    where = "pad_packed_sequence"
    sizes = _check_packed(sequence, where)
    batch_first = flag(batch_first, where, "batch_first")
    steps, batch = len(sizes), sizes[0]
    if total_length is not None:
        total_length = _size(total_length, where, "total_length")
        if total_length < steps:
            raise ValueError(f"{where}: Expected total_length to be at least the length of the "
                             f"longest sequence in input, but got total_length={total_length} "
                             f"and max sequence length being {steps}")
        steps_out = total_length
    else:
        steps_out = steps
    data = sequence.data
    starts = [0]
    for n in sizes:
        starts.append(starts[-1] + n)
    pad = starts[-1]  # the appended row of padding_value
    slots = list(range(batch)) if sequence.unsorted_indices is None else \
        [int(v) for v in _C._implicit_cpu(sequence.unsorted_indices, where).tolist()]

    def row(t: int, s: int) -> int:
        return starts[t] + s if t < steps and s < sizes[t] else pad
    if batch_first:
        rows = [row(t, s) for s in slots for t in range(steps_out)]
        shape = (batch, steps_out)
    else:
        rows = [row(t, s) for t in range(steps_out) for s in slots]
        shape = (steps_out, batch)
    filler = _C.full((1,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype,
                     device=data.device)
    padded = _index_select(_cat([data, filler]), 0, _index(rows, data.device))
    lengths = [sum(1 for n in sizes if n > s) for s in range(batch)]
    return (padded.reshape(shape + tuple(data.shape[1:])),
            _cpu_longs([lengths[s] for s in slots]))


def _sequences(sequences: Any, where: str) -> List[_C.Tensor]:
    if isinstance(sequences, _C.Tensor):
        sequences = sequences.unbind(0)
    elif not isinstance(sequences, Iterable):
        raise TypeError(f"{where}: Expected iterable for input sequences, but got arg of type: "
                        f"{type(sequences).__name__}")
    seqs = list(sequences)
    if not seqs:
        raise _Invalid(f"{where}: received an empty list of sequences")
    for i, s in enumerate(seqs):
        if not isinstance(s, _C.Tensor):
            raise TypeError(f"{where}: sequence {i} is a {type(s).__name__}, not a Tensor")
        if s.ndim < 1 or s.shape[1:] != seqs[0].shape[1:] or s.device != seqs[0].device:
            raise _Invalid(f"{where}: every sequence must be (L_i, ...) with the same trailing "
                           f"sizes on one device; sequence 0 is {tuple(seqs[0].shape)} on "
                           f"{seqs[0].device} but sequence {i} is {tuple(s.shape)} on "
                           f"{s.device}")
    return seqs


def pad_sequence(sequences: Any, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> _C.Tensor:
    """Stacks sequences of different lengths, padded to the longest, as PyTorch's
    ``pad_sequence``.

    Parameters
    ----------
    sequences : list of Tensor
        B tensors (L_i, ...) with the same trailing sizes, on one device; each is
        cast to the dtype of the first, as PyTorch does.
    batch_first : bool, optional
        Return (B, L, ...) instead of (L, B, ...) (default False).
    padding_value : float, optional
        The value of the padding (default 0).
    padding_side : str, optional
        'right' (default): padding after each sequence; 'left': before.

    Returns
    -------
    Tensor
        (L, B, ...) or (B, L, ...), L the longest length.

    Examples
    --------
    >>> from pydevtensor.nn.utils.rnn import pad_sequence
    >>> a, b = pydevtensor.tensor([1, 2, 3]), pydevtensor.tensor([4])
    >>> pad_sequence([a, b], batch_first=True)
    tensor([[1, 2, 3],
            [4, 0, 0]])
    >>> pad_sequence([a, b], batch_first=True, padding_value=-1, padding_side="left")
    tensor([[ 1,  2,  3],
            [-1, -1,  4]])
    """
    where = "pad_sequence"
    if padding_side not in ("left", "right"):
        raise ValueError(f"{where}: Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    seqs = _sequences(sequences, where)
    batch_first = flag(batch_first, where, "batch_first")
    lens = [s.shape[0] for s in seqs]
    longest, batch = max(lens), len(seqs)
    starts = [0]
    for n in lens:
        starts.append(starts[-1] + n)
    pad = starts[-1]

    def row(t: int, b: int) -> int:
        i = t if padding_side == "right" else t - (longest - lens[b])
        return starts[b] + i if 0 <= i < lens[b] else pad
    rows = [row(t, b) for b in range(batch) for t in range(longest)] if batch_first else \
        [row(t, b) for t in range(longest) for b in range(batch)]
    first = seqs[0]
    dtype = first.dtype
    seqs = [s if s.dtype == dtype else s.to(dtype) for s in seqs]
    filler = _C.full((1,) + tuple(first.shape[1:]), padding_value, dtype=dtype,
                     device=first.device)
    out = _index_select(_cat(seqs + [filler]), 0, _index(rows, first.device))
    shape = (batch, longest) if batch_first else (longest, batch)
    return out.reshape(shape + tuple(first.shape[1:]))


def unpad_sequence(padded_sequences: _C.Tensor, lengths: Any,
                   batch_first: bool = False) -> List[_C.Tensor]:
    """The sequences of a padded batch (right padding), as PyTorch's
    ``unpad_sequence``: the inverse of :func:`pad_sequence`.

    Parameters
    ----------
    padded_sequences : Tensor
        (L, B, ...), or (B, L, ...) when batch_first.
    lengths : list of int or Tensor
        Each sequence's length.
    batch_first : bool, optional
        The batch is dimension 0 (default False).

    Returns
    -------
    list of Tensor
        B tensors (lengths[b], ...), copies: writing into one leaves padded_sequences
        as it was (PyTorch's are copies too).

    Raises
    ------
    ValueError
        When there are not B lengths (as PyTorch's), or one is negative or longer
        than L (PyTorch's returns the L steps there, without a word).

    Examples
    --------
    >>> from pydevtensor.nn.utils.rnn import unpad_sequence
    >>> unpad_sequence(pydevtensor.tensor([[1, 2, 3], [4, 0, 0]]), [3, 1], batch_first=True)
    [tensor([1, 2, 3]), tensor([4])]
    """
    where = "unpad_sequence"
    lens = _lengths_list(lengths, where)
    if not isinstance(padded_sequences, _C.Tensor) or padded_sequences.ndim < 2:
        what = tuple(padded_sequences.shape) if isinstance(padded_sequences, _C.Tensor) \
            else type(padded_sequences).__name__
        raise _Invalid(f"{where}: padded_sequences must be a Tensor with at least 2 "
                       f"dimensions (time and batch), got {what}")
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    if len(lens) != x.shape[0] or any(n < 0 or n > x.shape[1] for n in lens):
        raise _Invalid(f"{where}: expected {x.shape[0]} lengths in [0, {x.shape[1]}] for "
                       f"padded_sequences of shape {tuple(padded_sequences.shape)} "
                       f"(batch_first={batch_first}, on {padded_sequences.device}), got "
                       f"{lens}")
    return [x[b, :n].clone(memory_format=_contiguous_format) for b, n in enumerate(lens)]


def pack_sequence(sequences: Any, enforce_sorted: bool = True) -> PackedSequence:
    """Packs a list of sequences of different lengths, as PyTorch's ``pack_sequence``
    (``pack_padded_sequence(pad_sequence(sequences), lengths)``).

    Parameters
    ----------
    sequences : list of Tensor
        Tensors (L_i, ...), in decreasing length unless enforce_sorted is False.
    enforce_sorted : bool, optional
        Require decreasing lengths (default True).

    Returns
    -------
    PackedSequence

    Examples
    --------
    >>> from pydevtensor.nn.utils.rnn import pack_sequence
    >>> p = pack_sequence([pydevtensor.tensor([1]), pydevtensor.tensor([2, 3])],
    ...                   enforce_sorted=False)
    >>> p.data, p.sorted_indices
    (tensor([2, 1, 3]), tensor([1, 0]))
    """
    seqs = _sequences(sequences, "pack_sequence")
    return pack_padded_sequence(pad_sequence(seqs), [s.shape[0] for s in seqs],
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> List[_C.Tensor]:
    """The sequences of a packed batch, in their original order, as PyTorch's
    ``unpack_sequence``: the inverse of :func:`pack_sequence`.

    Parameters
    ----------
    packed_sequences : PackedSequence

    Returns
    -------
    list of Tensor

    Examples
    --------
    >>> from pydevtensor.nn.utils.rnn import pack_sequence, unpack_sequence
    >>> unpack_sequence(pack_sequence([pydevtensor.tensor([1]), pydevtensor.tensor([2, 3])],
    ...                               enforce_sorted=False))
    [tensor([1]), tensor([2, 3])]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
