"""Module.to(), cpu(), cuda(), float() and double(): moving a module's tensors between
devices and dtypes, all or nothing (a mixin of nn.Module, in a file of its own)."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .. import _C

if TYPE_CHECKING:
    from .._C import Tensor, device

_M = TypeVar("_M", bound="_DevicesMixin")


_CAST_DOC = """Casts every floating point parameter and buffer to {dtype}.

        Returns
        -------
        Module
            self.

        Examples
        --------
        >>> from pydevtensor import nn
        {example}
        pydevtensor.{dtype}
        """


def _casts(dtype: str, on_a_net: bool = False) -> Callable[[Any], Any]:
    """The docstring of Module.float(), double(), half() or bfloat16(), casting to dtype
    (its name): the example calls the method on a Sequential net, or on a Linear."""
    def document(method: Any) -> Any:
        call = f"{method.__name__}()"
        method.__doc__ = _CAST_DOC.format(dtype=dtype, example=(
            f">>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))\n"
            f"        >>> net.{call}[0].weight.dtype" if on_a_net else
            f">>> nn.Linear(2, 3).{call}.weight.dtype"))
        return method
    return document


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
            (channels_last: the 4-d parameters and buffers, as PyTorch's;
            channels_last_3d the 5-d ones).

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

        def convert(t):
            return _moved(t, device, dtype if (dtype is not None and t.is_floating_point())
                          else t.dtype, layout)
        return self._apply(convert)

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

    @_casts("float32", on_a_net=True)
    def float(self: _M) -> _M:
        return self.to(dtype=_C.float32)

    @_casts("float64", on_a_net=True)
    def double(self: _M) -> _M:
        return self.to(dtype=_C.float64)

    @_casts("float16")
    def half(self: _M) -> _M:
        return self.to(dtype=_C.float16)

    @_casts("bfloat16")
    def bfloat16(self: _M) -> _M:
        return self.to(dtype=_C.bfloat16)

    def type(self: _M, dst_type: Any) -> _M:
        """Casts every parameter and buffer (integer ones too, as PyTorch's) to
        dst_type.

        Parameters
        ----------
        dst_type : pydevtensor.dtype, str or tensor type
            What Tensor.type takes: the dtype, its name ('float64',
            'pydevtensor.float64'), a tensor type or its name (pydevtensor.DoubleTensor,
            'pydevtensor.DoubleTensor', as PyTorch's 'torch.DoubleTensor').

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
        try:  # checked before anything changes, also on a module without tensors
            _C.zeros(0).type(dst_type)
        except TypeError:
            raise TypeError(f"Module.type(): dst_type must be a pydevtensor dtype, a tensor "
                            f"type or the name of one, got {dst_type!r:.40}") from None
        return self._apply(lambda t: t.type(dst_type))

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

        def empty_like(t):
            return _C.empty(tuple(t.shape), dtype=t.dtype, device=device)
        empty_like._pdt_drop_grads = True  # (see _apply)
        return self._apply(empty_like, recurse)

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
        return self._apply(lambda t: t)  # changes nothing; an override of _apply sees it

    def _apply(self: _M, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> _M:
        """Replaces every parameter's data, gradient and buffer t by fn(t), as PyTorch's
        ``Module._apply``: where to(), cpu(), cuda(), float(), double(), half(),
        bfloat16(), type(), to_empty() and share_memory() all go, so a subclass that
        overrides it (to move a tensor it keeps as a plain attribute) sees each of them.
        The children's ``_apply`` runs first (when recurse), then this module's own.
        The Parameter objects stay the same (their data is replaced); a gradient is
        replaced by fn(grad) when the new data is floating point, else dropped (and
        always by to_empty(), whose values would not be set).  All or nothing: if fn
        fails on any tensor (out of memory on the target device), every parameter,
        gradient and buffer already replaced in this call is put back before the error
        is raised (what an override changed itself is its own to undo).

        Parameters
        ----------
        fn : callable
            Tensor -> Tensor; returning t itself leaves t in place.
        recurse : bool, optional
            The submodules' too (default True).

        Returns
        -------
        Module
            self.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> class Scaled(nn.Linear):
        ...     def __init__(self):
        ...         super().__init__(2, 2)
        ...         self.scale = pydevtensor.ones(2)  # a plain attribute, not a buffer
        ...     def _apply(self, fn, recurse=True):
        ...         self.scale = fn(self.scale)
        ...         return super()._apply(fn, recurse)
        >>> Scaled().double().scale.dtype
        pydevtensor.float64
        """
        outer = getattr(_undo, "log", None) is None
        if outer:
            _undo.log = []
        try:
            if recurse:
                for child in self.children():
                    child._apply(fn)
            _apply_own(self, fn, _undo.log)
        except BaseException:
            if outer:
                _put_back(_undo.log)
            raise
        finally:
            if outer:
                _undo.log = None
        return self


# The _apply call under way on this thread, outermost first: what it replaced, to put
# back if a later tensor fails.
_undo = threading.local()


def _apply_own(module, fn, log):
    """module's own parameters and buffers replaced by fn(tensor) (Module._apply), all
    computed before any is assigned; what is replaced is appended to log."""
    keep_grads = not getattr(fn, "_pdt_drop_grads", False)
    params = []
    for p in module._parameters.values():
        if p is not None:
            new, g = fn(p.data), p.grad
            new_grad = fn(g) if keep_grads and g is not None and new.is_floating_point() else None
            if new is not p.data or new_grad is not g:
                params.append((p, new, new_grad))
    buffers = [(name, fn(b)) for name, b in module._buffers.items() if b is not None]
    for p, new, new_grad in params:
        log.append((p, p.data, p.grad))
        _set_param(p, new, new_grad)
    for name, new in buffers:
        old = module._buffers[name]
        if new is not old:
            log.append((module, name, old))
            module._buffers[name] = new
            module._buffer_copied(old, new)  # what it keeps on the host about it follows


def _set_param(p, data, grad):
    p.grad = None  # the old one may not match the new data
    p.data = data
    p.grad = grad


def _put_back(log):
    """Undoes what _apply_own logged, last first."""
    for entry in reversed(log):
        if isinstance(entry[1], str):  # a buffer's (module, name, old)
            module, name, old = entry
            new, module._buffers[name] = module._buffers[name], old
            module._buffer_copied(new, old)
        else:
            _set_param(*entry)


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
