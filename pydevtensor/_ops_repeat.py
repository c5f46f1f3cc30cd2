"""repeat_interleave: each element (or slice along a dim) repeated in place, as
``torch.repeat_interleave``; D2L's masked_softmax repeats the valid lengths with it.

With an int ``repeats`` the result is a broadcast view copied out (nothing is read from
the device).  With a tensor ``repeats`` the result's size is their sum, which lives on
the device: when ``output_size`` is not given it is read back to the host, with the
smallest repeat (one explicit, counted device-to-host copy of 16 bytes on a GPU, that
the transfer guard's ``"log_explicit"`` and ``"disallow_explicit"`` levels see), as
``nonzero`` and ``unique`` read their counts.  Given ``output_size``, nothing is read
for the size; the positions are then built on the device (Note [repeat positions]),
and the gather that follows range-checks them as every gather in this package does
(on a GPU, on the device: Note [deferred index checks] in csrc/core/pdt_index.h).
Where the device has the kernel (the CPU: csrc/cpu/cpu_repeat.c) the sum is read there,
and the positions are a second pass over the repeats that checks them again as it
writes; along dim 0 of a contiguous input that records no gradient (and with dim None,
which reads a contiguous input as 1-d) that pass writes the rows themselves.
"""
from . import _C
from ._memory_format import contiguous_format
from ._ops_index import _dim, _tensor_arg, index_select

__all__ = ["repeat_interleave"]

def _int(value, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"repeat_interleave(): {name} must be an int, got "
                        f"{type(value).__name__}")
    return value


def _positions(repeats, total):
    """Note [repeat positions]: for (n,) non-negative repeats summing to total, the
    (total,) int64 source index of each output slot, built on the device without
    reading anything: slot j takes the last i whose first slot (the exclusive cumsum
    of repeats) is <= j.  A 1 is added at each i's first slot (into a spare slot past
    the end when it starts there, as zero repeats at the end do), and the running sum
    of those marks, less one, is the index."""
    n, device = repeats.shape[0], repeats.device
    starts = repeats.cumsum(0) - repeats
    starts = starts.clamp(max=total)  # a start at total (trailing zeros) goes to the spare
    marks = _C.zeros((total + 1,), dtype=_C.int64, device=device)
    _C._index_add(marks, 0, starts.contiguous(), _C.ones((n,), dtype=_C.int64, device=device),
                  True)
    return (marks.cumsum(0)[:total] - 1).clamp(min=0)


def _checked_repeats(repeats, size, where):
    """repeats as a 1-d int64 tensor of length size (a 0-d or one-element one broadcast)."""
    if repeats.dtype == _C.int64 and repeats.ndim == 1 and repeats.shape[0] == size:
        return repeats  # as they are (integers record no gradient): 0.3 us of 5 at 1,000
    if repeats.dtype.is_floating_point or repeats.dtype == _C.bool:
        raise NotImplementedError(f"{where}: repeats must be an integer tensor, got "
                                  f"{repeats.dtype} (shape {tuple(repeats.shape)}, on "
                                  f"{repeats.device})")
    if repeats.ndim > 1:
        raise RuntimeError(f"{where}: repeats must be 0-dim or 1-dim tensor, got shape "
                           f"{tuple(repeats.shape)} (on {repeats.device})")
    r = repeats.detach().reshape(-1).to(_C.int64)
    if r.shape[0] == 1 and size != 1:
        return r.expand(size).contiguous()
    if r.shape[0] != size:
        raise RuntimeError(f"{where}: repeats must have the same size as input along dim, but "
                           f"got repeats.size(0) = {r.shape[0]} and input.size(dim) = {size} "
                           f"(on {repeats.device})")
    return r


def _total(r, output_size, where):
    """The output's length: output_size when given (checked against the data on the
    CPU, where reading it is free), else the sum read back (one counted copy)."""
    on_cpu = r.device.type == "cpu"
    if output_size is not None and not on_cpu:
        return output_size
    if r.shape[0] == 0:
        total, low = 0, 0
    else:
        from ._ops_join import cat
        both = cat([r.sum().reshape(1), r.amin().reshape(1)])
        total, low = _C._implicit_cpu(both, "repeat_interleave()").tolist()
    if low < 0:
        raise RuntimeError(f"{where}: repeats can not be negative, got {low} (on {r.device})")
    if output_size is not None and output_size != total:
        raise RuntimeError(f"{where}: allocated size does not match required size: "
                           f"output_size={output_size} but the repeats sum to {total} "
                           f"(on {r.device})")
    return total


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeats each element of input (each slice along dim) ``repeats`` times, the
    copies next to each other, as ``torch.repeat_interleave``.

    ``repeat_interleave(repeats)`` with one 1-d integer tensor gives
    ``repeat_interleave(arange(len(repeats)), repeats)``.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.repeat_interleave(repeats, dim)``).
    repeats : int or Tensor
        How many times: one int for all, or an integer tensor with one count per
        element along dim (or one count, broadcast).
    dim : int, optional
        The dimension to repeat along; None (the default) flattens input first.
    output_size : int, optional
        The result's length along dim, when known: with a tensor ``repeats`` on a GPU
        it saves reading their sum back to the host (a wrong value is not detected
        there; on the CPU it raises, as PyTorch's).

    Returns
    -------
    Tensor
        A new tensor; the gradient flows back to input (the copies' gradients summed).

    Raises
    ------
    RuntimeError
        For negative repeats, repeats not 0-d or 1-d or of the wrong length, or an
        output_size that does not match.
    NotImplementedError
        For floating or bool repeats (as PyTorch).
    IndexError
        When dim is out of range, or given for a 0-d input (as PyTorch).

    Examples
    --------
    >>> x = pydevtensor.tensor([[1, 2], [3, 4]])
    >>> pydevtensor.repeat_interleave(x, 2)
    tensor([1, 1, 2, 2, 3, 3, 4, 4])
    >>> x.repeat_interleave(pydevtensor.tensor([1, 2]), dim=0)
    tensor([[1, 2],
            [3, 4],
            [3, 4]])
    >>> pydevtensor.repeat_interleave(pydevtensor.tensor([2, 0, 1]))
    tensor([0, 0, 2])
    """
    if (type(repeats) is int and repeats >= 0 and dim is None and output_size is None
            and type(input) is _C.Tensor and not input.requires_grad):
        # the everyday call first (the general path below, without its checks, which it
        # passes): 1,000 float32 repeated twice 2.1 -> 1.3 us (np.repeat 2.1)
        n = input.numel()
        out = _C._expand(input.reshape(n, 1), (n, repeats)).reshape(n * repeats)
        # reshape copies unless it can view: then (0 or 1 copies, or one element repeated,
        # its stride 0) the result would be a view of input, not the new tensor PyTorch's is
        return out.clone(memory_format=contiguous_format) if out._is_view() else out
    if (type(repeats) is _C.Tensor and dim is None and output_size is None
            and type(input) is _C.Tensor and not input.requires_grad):
        # with counts, in one C call where the device has the kernel (the CPU) and the
        # counts are contiguous int64 of input's size, their sum read there: float32 with
        # counts in [0, 3), 10 1.57 -> 0.33 us (np.repeat 0.88), 1,000 2.7 -> 1.4-1.8 (2.5)
        out = _C._repeat_flat(input, repeats)
        if out is not None:
            return out
    where = "repeat_interleave()"
    _tensor_arg(input, "repeat_interleave")
    if repeats is None:  # repeat_interleave(repeats)
        if dim is not None:
            raise TypeError(f"{where}: dim given without repeats")
        if input.ndim != 1:
            raise RuntimeError(f"{where}: repeat_interleave only accept 1D vector as repeat, "
                               f"got shape {tuple(input.shape)} (on {input.device})")
        index = _C.arange(input.shape[0], dtype=input.dtype, device=input.device)
        return repeat_interleave(index, input, 0, output_size=output_size)
    if output_size is not None:
        _int(output_size, "output_size")
        if output_size < 0:
            raise RuntimeError(f"{where}: output_size must be >= 0, got {output_size}")
    x = input.reshape(-1) if dim is None else input
    if dim is not None and input.ndim == 0:  # PyTorch refuses any dim here too
        raise IndexError(f"{where}: dim={dim!r} given for a 0-d input (on {input.device}), "
                         f"which has no dim to repeat along; leave dim=None (the input read "
                         f"as 1-d) or reshape it first")
    d = 0 if dim is None else _dim(_int(dim, "dim"), input.ndim, "repeat_interleave",
                                          input)
    if x.ndim == 0:
        x = x.reshape(1)
    size = x.shape[d]
    if isinstance(repeats, _C.Tensor):
        if repeats.device != input.device:
            raise _C.DeviceError(f"{where}: Expected all tensors to be on the same device, but "
                                 f"found at least two devices, {input.device} (input) and "
                                 f"{repeats.device} (repeats)")
        r = _checked_repeats(repeats, size, where)
        # where the device has the kernel (the CPU), a pass that sums the repeats (or checks
        # them against output_size) before anything is allocated, then one that checks them
        # again as it writes: 10 repeats 16.5 -> 3-4 us (np.repeat 0.8-1.0), 1,000 27 -> 9
        # (2.6); the rows themselves along dim 0 of a contiguous input with no gradient to
        # record, with no positions and gather after: 1,000 float32 6.7 -> 3.5-3.9 (3.6)
        if r.device.type == "cpu":
            total = -1 if output_size is None else output_size  # -1: their sum
            if d == 0 and not x.requires_grad:
                out = _C._repeat_positions(r, total, x)  # None: x not contiguous
                if out is not None:
                    return out
            at = _C._repeat_positions(r, total)
            if at is not None:
                return index_select(x, d, at)
        total = _total(r, output_size, where)
        return index_select(x, d, _positions(r, total))
    count = _int(repeats, "repeats")
    if count < 0:
        raise RuntimeError(f"{where}: Repeats must be non-negative, got {count} (input of "
                           f"shape {tuple(input.shape)}, on {input.device})")
    if output_size is not None and output_size != size * count:
        raise RuntimeError(f"{where}: Invalid output_size, expected {size * count} but got "
                           f"{output_size}")
    shape = tuple(x.shape)
    wide = shape[:d + 1] + (count,) + shape[d + 1:]
    out_shape = shape[:d] + (size * count,) + shape[d + 1:]
    v = x.unsqueeze(d + 1)
    # out of autograd's sight straight to the view (expand's checks are wide's by
    # construction): 10 float32 repeated twice 1.9 -> 1.4 us
    v = _C._expand(v, wide) if not v.requires_grad else v.expand(*wide)
    if v.requires_grad:  # PyTorch's: a contiguous copy, viewed (its grad_fn ViewBackward0)
        return v.clone(memory_format=contiguous_format).view(out_shape)
    out = v.reshape(out_shape)
    # reshape views where it can (a count of 0 or 1, or a slice of size 1 repeated: stride
    # 0), and a write to such a result reached input; PyTorch's is a new contiguous tensor
    return out.clone(memory_format=contiguous_format) if out._is_view() else out


_C.Tensor.repeat_interleave = repeat_interleave
