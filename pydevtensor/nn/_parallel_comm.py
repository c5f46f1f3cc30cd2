"""nn.parallel.comm (also cuda.comm), as ``torch.cuda.comm``: broadcast, reduce_add,
scatter and gather of tensors across the devices of one process.  Every transfer is
``Tensor.to(device)`` (a counted copy between devices; none when a tensor is already
there), made under no_grad: these are not recorded by autograd (nn.parallel's scatter,
gather and replicate, and DataParallel, are).  Devices are CUDA indices (ints),
strings ('cuda:1', 'cpu:1') or pydevtensor.device; -1 is the CPU; a destination left
out is the current CUDA device, as PyTorch's."""
from __future__ import annotations

from collections.abc import Sequence

from .. import _C
from .._ops_join import cat as _cat
from ..autograd.grad_mode import no_grad as _no_grad
from ._parallel_functions import _as_device, _devices

__all__ = ["broadcast", "broadcast_coalesced", "gather", "reduce_add", "scatter"]


def _tensor(t, name, where):
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"{where}: {name} must be a Tensor, got {type(t).__name__}")
    return t


def _one_of(devices, out, where):
    if (devices is None) == (out is None):
        raise RuntimeError(f"{where}: Exactly one of 'devices' and 'out' must be specified, "
                           f"got {'both' if out is not None else 'neither'}")


def _destination(destination, where):
    if destination is None:
        return _as_device("cuda", where)
    if destination == -1:
        return _C.device("cpu")
    return _as_device(destination, where)


def broadcast(tensor: _C.Tensor, devices: Sequence | None = None, *,
              out: Sequence[_C.Tensor] | None = None) -> tuple[_C.Tensor, ...]:
    """Copies tensor to each device (the tensor itself on its own device).

    Parameters
    ----------
    tensor : Tensor
        The tensor.
    devices : list of int, str or pydevtensor.device
        The devices (give devices or out).
    out : list of Tensor, optional
        Tensors to copy into instead (of tensor's shape), one per device.

    Returns
    -------
    tuple of Tensor
        One per device (or out's tensors).

    Raises
    ------
    TypeError
        When tensor is not a Tensor or a device is not a device.
    RuntimeError
        When both or neither of devices and out are given, or an out tensor's shape
        differs.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> x = pydevtensor.tensor([1., 2.])
    >>> copies = nn.parallel.comm.broadcast(x, ['cpu'])
    >>> copies[0] is x
    True
    """
    where = "comm.broadcast()"
    _tensor(tensor, "tensor", where)
    _one_of(devices, out, where)
    with _no_grad():
        if out is not None:
            out = [_tensor(o, "each out", where) for o in out]
            for o in out:
                if o.shape != tensor.shape:
                    raise RuntimeError(f"{where}: an out tensor has shape {tuple(o.shape)} on "
                                       f"{o.device}, the tensor {tuple(tensor.shape)}")
            for o in out:
                o.copy_(tensor)
            return tuple(out)
        return tuple(tensor.to(d) for d in _devices(devices, where))


def broadcast_coalesced(tensors: Sequence[_C.Tensor], devices: Sequence,
                        buffer_size: int = 10485760) -> tuple[tuple[_C.Tensor, ...], ...]:
    """broadcast of several tensors: for each device, the tuple of its copies
    (buffer_size is accepted for PyTorch's signature; each tensor is one copy).

    Parameters
    ----------
    tensors : list of Tensor
        The tensors, on one device.
    devices : list of int, str or pydevtensor.device
        The devices.
    buffer_size : int, optional
        Ignored.

    Returns
    -------
    tuple of tuple of Tensor
        For each device, the copies of tensors in order.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> a, b = pydevtensor.ones(2), pydevtensor.zeros(3)
    >>> [len(c) for c in nn.parallel.comm.broadcast_coalesced([a, b], ['cpu'])]
    [2]
    """
    where = "comm.broadcast_coalesced()"
    tensors = [_tensor(t, "each tensor", where) for t in tensors]
    devices = _devices(devices, where)
    with _no_grad():
        return tuple(tuple(t.to(d) for t in tensors) for d in devices)


def reduce_add(inputs: Sequence[_C.Tensor], destination=None) -> _C.Tensor:
    """The sum of tensors of one shape (from several devices), on destination.

    Parameters
    ----------
    inputs : list of Tensor
        The tensors, of one shape.
    destination : int, str or pydevtensor.device, optional
        Where the sum goes (default: the current CUDA device; -1: the CPU).

    Returns
    -------
    Tensor
        A new tensor on destination.

    Raises
    ------
    TypeError
        When an input is not a Tensor.
    ValueError
        When inputs is empty or the shapes differ.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.parallel.comm.reduce_add([pydevtensor.ones(2), pydevtensor.ones(2)], -1)
    tensor([2., 2.])
    """
    where = "comm.reduce_add()"
    inputs = [_tensor(t, "each input", where) for t in inputs]
    if not inputs:
        raise ValueError(f"{where}: expected at least one tensor, got none")
    for i, t in enumerate(inputs):
        if t.shape != inputs[0].shape:
            raise ValueError(f"{where}: input {i} has shape {tuple(t.shape)} on {t.device}, "
                             f"input 0 {tuple(inputs[0].shape)} on {inputs[0].device}")
    dest = _destination(destination, where)
    with _no_grad():
        total = inputs[0].to(dest, copy=True)
        for t in inputs[1:]:
            total.add_(t.to(dest))
    return total


def scatter(tensor: _C.Tensor, devices: Sequence | None = None,
            chunk_sizes: Sequence[int] | None = None, dim: int = 0, streams=None, *,
            out: Sequence[_C.Tensor] | None = None) -> tuple[_C.Tensor, ...]:
    """Splits tensor along dim and copies the pieces to the devices: chunk_sizes
    pieces, or as ``Tensor.chunk`` into len(devices) pieces.

    Parameters
    ----------
    tensor : Tensor
        The tensor.
    devices : list of int, str or pydevtensor.device
        The devices (give devices or out).
    chunk_sizes : list of int, optional
        The pieces' sizes along dim, one per device, summing to its size.
    dim : int, optional
        The dimension (default 0).
    streams : None, optional
        Accepted for PyTorch's signature.
    out : list of Tensor, optional
        Tensors to copy the pieces into instead; their sizes along dim give the pieces.

    Returns
    -------
    tuple of Tensor

    Raises
    ------
    TypeError
        When tensor is not a Tensor.
    RuntimeError
        When both or neither of devices and out are given.
    ValueError
        When chunk_sizes does not fit.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> x = pydevtensor.arange(5.)
    >>> nn.parallel.comm.scatter(x, ['cpu', 'cpu'], chunk_sizes=[2, 3])
    (tensor([0., 1.]), tensor([2., 3., 4.]))
    """
    where = "comm.scatter()"
    _tensor(tensor, "tensor", where)
    _one_of(devices, out, where)
    if out is not None:
        out = [_tensor(o, "each out", where) for o in out]
        chunk_sizes = [o.shape[dim] for o in out]
    else:
        devices = _devices(devices, where)
    with _no_grad():
        if chunk_sizes is None:
            pieces = tensor.chunk(len(devices), dim)
        else:
            chunk_sizes = list(chunk_sizes)
            if sum(chunk_sizes) != tensor.shape[dim] or (
                    out is None and len(chunk_sizes) != len(devices)):
                raise ValueError(f"{where}: chunk_sizes {chunk_sizes} must have one size per "
                                 f"device and sum to the tensor's size {tensor.shape[dim]} "
                                 f"along dim {dim} (shape {tuple(tensor.shape)})")
            pieces = tensor.split(chunk_sizes, dim)
        if out is not None:
            for o, piece in zip(out, pieces):
                o.copy_(piece)
            return tuple(out)
        return tuple(piece.to(d) for piece, d in zip(pieces, devices))


def gather(tensors: Sequence[_C.Tensor], dim: int = 0, destination=None, *,
           out: _C.Tensor | None = None) -> _C.Tensor:
    """Joins tensors (from several devices) along dim on destination.

    Parameters
    ----------
    tensors : list of Tensor
        The tensors, of one shape but along dim.
    dim : int, optional
        The dimension (default 0).
    destination : int, str or pydevtensor.device, optional
        Where the result goes (default: the current CUDA device; -1: the CPU).
    out : Tensor, optional
        A tensor to copy the result into instead (then destination is out's device).

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        When a tensor is not a Tensor.
    RuntimeError
        When both destination and out are given.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.parallel.comm.gather([pydevtensor.ones(1), pydevtensor.zeros(2)], destination=-1)
    tensor([1., 0., 0.])
    """
    where = "comm.gather()"
    tensors = [_tensor(t, "each tensor", where) for t in tensors]
    if out is not None and destination is not None:
        raise RuntimeError(f"{where}: 'destination' must not be specified when 'out' is "
                           f"specified, got destination={destination!r}")
    dest = out.device if out is not None else _destination(destination, where)
    with _no_grad():
        joined = _cat([t.to(dest) for t in tensors], dim)
        if out is None:
            return joined
        out.copy_(joined)
        return out
