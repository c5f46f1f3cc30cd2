"""Module.to(), cpu(), cuda(), float() and double(): moving a module's tensors between
devices and dtypes, all or nothing (a mixin of nn.Module, in a file of its own)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from .. import _C

if TYPE_CHECKING:
    from .._C import device

_M = TypeVar("_M", bound="_DevicesMixin")


class _DevicesMixin:
    """nn.Module's device and dtype moves."""

    def to(self: _M, *args: Any, **kwargs: Any) -> _M:
        """Moves (and/or casts) every parameter in place: the Parameter objects stay
        the same, so code holding them keeps working, as in PyTorch.  Buffers are
        replaced by moved copies; a dtype casts the floating point ones only (an integer
        count such as BatchNorm's num_batches_tracked keeps its dtype).  All or nothing:
        if a copy fails (out of memory on the target device), nothing has moved.

        Parameters
        ----------
        *args, **kwargs
            As PyTorch's: ``to(device=None, dtype=None, non_blocking=False)``,
            ``to(dtype, non_blocking=False)`` or ``to(tensor, non_blocking=False)`` (its
            device and dtype; non_blocking has no effect here); and memory_format=
            (channels_last: the 4-d parameters, as PyTorch's; channels_last_3d the 5-d
            ones).

        Returns
        -------
        Module
            self.

        Raises
        ------
        pydevtensor.DeviceError
            When the device does not exist.
        pydevtensor.OutOfMemoryError
            When a copy fails (nothing has moved).

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> dev = pydevtensor.try_gpu()
        >>> net.to(dev)[0].weight.device == dev
        True
        """
        layout = kwargs.pop("memory_format", None)
        device, dtype = _parse_to(args, kwargs)
        # All or nothing: copy every parameter first (what can run out of memory or
        # fail), then assign them all, so a failure leaves the whole model where it was
        # rather than split across two devices or dtypes.
        moves = []
        for p in self.parameters():
            target_dtype = dtype if (dtype is not None and p.is_floating_point()) else p.dtype
            moved = _moved(p.data, device, target_dtype, layout)
            # a gradient already there moves with its parameter, as PyTorch's _apply
            g = p.grad
            moved_grad = None if g is None else _moved(g, device, target_dtype, layout)
            if moved is not p.data or moved_grad is not g:
                moves.append((p, moved, moved_grad))
        buffers = []  # buffers are replaced, not changed in place, as in PyTorch
        for m in self.modules():
            for name, b in m._buffers.items():
                if b is None:
                    continue
                target_dtype = dtype if (dtype is not None and b.is_floating_point()) else b.dtype
                moved = b.to(device if device is not None else b.device, target_dtype)
                if moved is not b:
                    buffers.append((m, name, moved))
        for p, moved, moved_grad in moves:
            if moved is not p.data:
                p.grad = None  # the old one may not match the new data
                p.data = moved
            p.grad = moved_grad
        for m, name, moved in buffers:
            old, m._buffers[name] = m._buffers[name], moved
            m._buffer_copied(old, moved)  # what m keeps on the host about it follows
        return self

    def cpu(self: _M) -> _M:
        """Moves every parameter and buffer to the CPU: ``to('cpu')``.

        Returns
        -------
        Module
            self.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> net.cpu()[0].weight.device
        device(type='cpu')
        """
        return self.to("cpu")

    def cuda(self: _M, device: int | str | device | None = None) -> _M:
        """Moves every parameter and buffer to a CUDA device (the current one by default).

        Parameters
        ----------
        device : int, str or pydevtensor.device, optional
            The CUDA device.

        Returns
        -------
        Module
            self.

        Raises
        ------
        pydevtensor.DeviceError
            When there is no such CUDA device.

        Examples
        --------
        With a GPU (skipped here):

        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> net.cuda()[0].weight.device  # doctest: +SKIP
        device(type='cuda', index=0)
        """
        return self.to(_C.device("cuda", device) if isinstance(device, int) else
                       device if device is not None else _C.device("cuda"))

    def float(self: _M) -> _M:
        """Casts every floating point parameter and buffer to float32.

        Returns
        -------
        Module
            self.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> net.float()[0].weight.dtype
        pydevtensor.float32
        """
        return self.to(dtype=_C.float32)

    def double(self: _M) -> _M:
        """Casts every floating point parameter and buffer to float64.

        Returns
        -------
        Module
            self.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> net.double()[0].weight.dtype
        pydevtensor.float64
        """
        return self.to(dtype=_C.float64)

    def half(self: _M) -> _M:
        """Casts every floating point parameter and buffer to float16.

        Returns
        -------
        Module
            self.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> nn.Linear(2, 3).half().weight.dtype
        pydevtensor.float16
        """
        return self.to(dtype=_C.float16)

    def bfloat16(self: _M) -> _M:
        """Casts every floating point parameter and buffer to bfloat16.

        Returns
        -------
        Module
            self.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> nn.Linear(2, 3).bfloat16().weight.dtype
        pydevtensor.bfloat16
        """
        return self.to(dtype=_C.bfloat16)

    def type(self: _M, dst_type: Any) -> _M:
        """Casts every parameter and buffer (integer ones too, as PyTorch's) to
        dst_type.

        Parameters
        ----------
        dst_type : pydevtensor.dtype or str
            The dtype, or its name ('float64', 'pydevtensor.float64').

        Returns
        -------
        Module
            self.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> nn.Linear(2, 3).type(pydevtensor.float64).bias.dtype
        pydevtensor.float64
        """
        dtype = dst_type
        if isinstance(dst_type, str):
            dtype = getattr(_C, dst_type.rpartition(".")[2], None)
        if not isinstance(dtype, _C.dtype):
            raise TypeError(f"Module.type(): dst_type must be a pydevtensor dtype or its name, "
                            f"got {dst_type!r:.40}")
        return self._replace_tensors(lambda t: t.to(dtype=dtype), grads=True)

    def to_empty(self: _M, *, device: Any, recurse: bool = True) -> _M:
        """Puts every parameter and buffer on device as a new tensor of its shape and
        dtype whose values are not set (as PyTorch's; then initialise or load them).
        A gradient already there is dropped (PyTorch leaves one whose values are not set).

        Parameters
        ----------
        device : str or pydevtensor.device
            Where the new tensors go.
        recurse : bool, optional
            The submodules' too (default True).

        Returns
        -------
        Module
            self.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> lin = nn.Linear(2, 3).to_empty(device='cpu')
        >>> lin.weight.shape, lin.weight.requires_grad
        (pydevtensor.Size([3, 2]), True)
        """
        device = _C.device(device) if not isinstance(device, _C.device) else device
        return self._replace_tensors(
            lambda t: _C.empty(tuple(t.shape), dtype=t.dtype, device=device), recurse)

    def share_memory(self: _M) -> _M:
        """Returns self, for code written for PyTorch (which moves CPU tensors to shared
        memory for torch.multiprocessing): pydevtensor's workers share a process's
        memory already.

        Returns
        -------
        Module
            self.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> lin = nn.Linear(2, 3)
        >>> lin.share_memory() is lin
        True
        """
        return self

    def _replace_tensors(self: _M, fn: Any, recurse: bool = True, grads: bool = False) -> _M:
        """Every parameter's data and every buffer replaced by fn(tensor), all computed
        before any is assigned (all or nothing); each parameter's gradient by fn(grad)
        when grads (as PyTorch's _apply), else dropped (it no longer matches)."""
        mods = list(self.modules()) if recurse else [self]
        params, buffers = [], []
        for m in mods:
            for p in m._parameters.values():
                if p is not None:
                    new = fn(p.data)
                    keep = grads and p.grad is not None and new.is_floating_point()
                    params.append((p, new, fn(p.grad) if keep else None))
            buffers += [(m, name, fn(b)) for name, b in m._buffers.items() if b is not None]
        for p, new, new_grad in params:
            p.grad = None
            p.data = new
            p.grad = new_grad
        for m, name, new in buffers:
            old, m._buffers[name] = m._buffers[name], new
            m._buffer_copied(old, new)
        return self


def _parse_to(args, kwargs):
    """(device, dtype) from Module.to's arguments, PyTorch's three forms:
    to(device=None, dtype=None, non_blocking=False), to(dtype, non_blocking=False) and
    to(tensor, non_blocking=False) (non_blocking is accepted and has no effect here)."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    rest = list(args)
    if rest and isinstance(rest[0], _C.Tensor):
        t = rest.pop(0)
        device, dtype = t.device, t.dtype
    elif rest and isinstance(rest[0], _C.dtype):
        dtype = rest.pop(0)
    elif rest and not isinstance(rest[0], bool):
        device = rest.pop(0)
        if rest and (rest[0] is None or isinstance(rest[0], _C.dtype)):
            dtype = rest.pop(0)
    if len(rest) > 1 or (rest and not isinstance(rest[0], bool)):
        raise TypeError(f"to(): unexpected argument {rest[-1]!r}: expected to(device, dtype, "
                        f"non_blocking), to(dtype, non_blocking) or to(tensor, non_blocking)")
    if device is not None and not isinstance(device, _C.device):
        device = _C.device(device) if isinstance(device, str) else _C.device("cuda", device)
    if dtype is not None and not isinstance(dtype, _C.dtype):
        dtype = getattr(_C, str(dtype))
    if dtype is not None and not dtype.is_floating_point:
        raise TypeError(f"Module.to() only accepts floating point dtypes, got {dtype}")
    return device, dtype


def _moved(t, device, dtype, layout):
    """t on device in dtype (and layout, for a 4-d or 5-d tensor, as PyTorch's), or t
    itself when that changes nothing."""
    moved = t.to(device if device is not None else t.device, dtype)
    if layout is not None and t.ndim in (4, 5):  # PyTorch's: 4-d and 5-d only
        moved = moved.to(memory_format=layout)
    if moved.device == t.device and moved.dtype == t.dtype and moved.stride() == t.stride():
        return t
    return moved
