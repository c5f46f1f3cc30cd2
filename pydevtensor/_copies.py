"""Copies of tensors as Python objects: ``copy.copy``, ``copy.deepcopy`` and ``pickle``.

Note [copies of objects]
~~~~~~~~~~~~~~~~~~~~~~~~
- ``copy.copy(t)`` is a new tensor object sharing t's storage, as PyTorch's: no
  copy of the values, so nothing is counted.  Matplotlib calls it on what it
  plots, which is why ``plt.plot(t)`` needs it.
- ``copy.deepcopy(t)`` copies t's storage on t's own device: a copy within one device,
  counted by ``transfer_stats()`` with the other copies within a device, and never
  a transfer (the guard lets it through at every level).  The copy has t's shape,
  strides and offset in a copy of the whole storage, made once per deepcopy call:
  a tensor and its views deep-copied together (a list of them, a module holding a
  slice of a parameter) still share memory, as in PyTorch.
- ``pickle.dumps(t)`` keeps the values, dtype, shape and device, and
  ``requires_grad`` and ``grad``.  A deep copy or an unpickled tensor is a leaf,
  also when the original was the result of an op that autograd recorded: the copy
  does not join the original's graph (PyTorch refuses to deep-copy such a tensor).  Logical CPU devices are host memory: no
  transfer either way.  For a tensor on a GPU it is an explicit
  device-to-host transfer by "pickle" (you asked for the bytes), counted and seen by
  the transfer guard as such; ``pickle.loads`` puts the values back on the device
  they came from with an explicit host-to-device transfer by "unpickling", and
  raises the usual DeviceError when that device does not exist here (move the
  tensor to the CPU before pickling it to carry it to such a machine).
- Pickled views are written as their values: two views of one storage pickled
  together come back as two storages, as PyTorch's plain pickle does.
- Tensors and their subclasses (nn.Parameter) come back as the same class with the
  same instance attributes (``t.tag = ...``), themselves copied (deepcopy, pickle) or shared (copy), except
  that ``copy.deepcopy`` of a Parameter (so of a module) is PyTorch's: a fresh
  Parameter with a copy of the values and the same requires_grad, without the grad
  or other attributes (nn/parameter.py).

``pydevtensor.save()`` does not use pickle: it writes a NumPy ``.npz``
(pydevtensor/serialization.py).  Pickle runs code from the file it reads: unpickle
only data you trust.
"""
import copy

from . import _C

# Autograd's attributes of every Tensor (set in C), kept by copies when set; the copy
# is a leaf (Note [copies of objects]).
_C_ATTRIBUTES = ("grad", "requires_grad")


def _state(t):
    """What t carries beside its values: its instance attributes."""
    state = dict(getattr(t, "__dict__", ()))
    for name in _C_ATTRIBUTES:
        if name == "grad" and t.grad_fn is not None and not t.retains_grad:
            continue  # a non-leaf's .grad is None (and reading it warns, as PyTorch's)
        value = getattr(t, name)
        if value is not None and value is not False:
            state[name] = value
    return state


def _set(t, name, value):
    if name in _C_ATTRIBUTES:
        setattr(t, name, value)
    else:
        t.__dict__[name] = value


def _as_class(cls, t, state):
    """t as an instance of cls (a Tensor subclass) with the attributes in state."""
    if cls is not _C.Tensor:
        if not (isinstance(cls, type) and issubclass(cls, _C.Tensor)):
            raise TypeError(f"cannot rebuild a tensor as {cls!r}: not a Tensor subclass")
        t = _C.Tensor.__new__(cls, t)
    for name, value in state.items():
        _set(t, name, value)
    return t


def _tensor_copy(self):
    return _as_class(type(self), _C.Tensor(self), _state(self))


def _deep_values(t, memo):
    """t's values for a deep copy: a view, at t's shape, strides and offset, of a copy of
    t's whole storage made once per deepcopy call (kept in memo), so that views of one
    storage copied together still share one, as PyTorch's deepcopy keeps them.  A tensor
    with no elements or a negative stride is cloned alone."""
    plain = t.detach()
    try:
        alone = t.numel() == 0 or any(s < 0 for s in t.stride())
    except ValueError:  # an UninitializedParameter: no elements known yet
        alone = True
    if alone:
        return plain.clone()
    size = t.element_size()
    key = ("pydevtensor storage", str(t.device), t.dtype,
           t.data_ptr() - t.storage_offset() * size)
    whole = memo.get(key)
    if whole is None:
        n = t._storage_nbytes() // size
        whole = _C._as_strided(plain, (n,), (1,), 0).clone()
        memo[key] = whole
    return _C._as_strided(whole, tuple(t.shape), tuple(t.stride()), t.storage_offset())


def _tensor_deepcopy(self, memo):
    if not self.is_leaf:  # PyTorch's refusal: a copy could not be part of the graph
        raise RuntimeError(f"Only Tensors created explicitly by the user (graph leaves) "
                           f"support the deepcopy protocol at the moment; this one has "
                           f"grad_fn={self.grad_fn.name()} (deepcopy its detach(), or the "
                           f"leaves it is computed from)")
    new = _as_class(type(self), _deep_values(self, memo), {})
    memo[id(self)] = new
    for name, value in _state(self).items():
        _set(new, name, copy.deepcopy(value, memo))
    return new


def _tensor_reduce_ex(self, protocol):
    import numpy as np

    plain = self.detach()  # the values; requires_grad and grad travel in the state
    host = plain if plain.device.type == "cpu" else _C._copy_for(plain, "cpu", "pickle", False)
    # a view of the CPU memory (bfloat16, which NumPy lacks: its uint16 bits, as save()
    # writes them); tobytes() makes it C-ordered
    values = np.asarray(host._buffer()) if host.dtype == _C.bfloat16 else host.numpy()
    return (_rebuild, (type(self), values.tobytes(), values.dtype.str, tuple(self.shape),
                       str(self.dtype).rsplit(".", 1)[-1], str(self.device), _state(self)))


def _rebuild(cls, data, array_dtype, shape, dtype, device, state):
    """Unpickles a tensor: its values on the CPU, then on `device` (see the Note)."""
    import numpy as np

    values = np.frombuffer(data, dtype=np.dtype(array_dtype)).reshape(shape)
    target = _C.device(device)
    host = target if target.type == "cpu" else _C.device("cpu")  # logical CPUs: no transfer
    if dtype == "bfloat16" and values.dtype == np.uint16:  # its bits (_tensor_reduce_ex)
        t = _C.empty(tuple(shape), dtype=_C.bfloat16, device=host)
        np.asarray(t._buffer())[...] = values
    else:
        t = _C.tensor(values, dtype=getattr(_C, dtype), device=host)
    if host != target:
        t = _C._copy_for(t, target, "unpickling", False)
    return _as_class(cls, t, state)


_c_cuda = _C.Tensor.cuda


def _missing_cuda(device):
    """The CUDA device that device names (None: the current one) when it does not exist,
    else None (not a CUDA device, or one that exists: the C method handles those)."""
    if device is None:
        dev = _C.device("cuda", _C._current_device())
    elif isinstance(device, int) and not isinstance(device, bool):
        dev = _C.device("cuda", device)
    elif isinstance(device, (str, _C.device)):
        try:
            dev = _C.device(device)
        except (TypeError, ValueError, RuntimeError):
            return None  # the C method says what is wrong with it
    else:
        return None
    if dev.type != "cuda":
        return None
    index = _C._current_device() if dev.index is None else dev.index
    return dev if index >= _C._device_count(_C._KIND_CUDA) else None


def _tensor_cuda(self, device=None, non_blocking=False, memory_format=None):
    # Soft device placement (config.set_soft_device_placement(True)): a CUDA device that
    # does not exist falls back as in x.to('cuda') and ones(device='cuda'): to the device
    # the placement picks (the CPU without a GPU), with its warning.  The C method refused
    # the fallback it was given ("cuda(): expected a CUDA device, got cpu").
    if _C._soft_device_placement():
        missing = _missing_cuda(device)
        if missing is not None:
            return self.to(missing, non_blocking=non_blocking, memory_format=memory_format)
    return _c_cuda(self, device, non_blocking, memory_format=memory_format)


_tensor_cuda.__doc__ = _c_cuda.__doc__.replace(
    "pydevtensor.DeviceError\n    When there is no such CUDA device.",
    "pydevtensor.DeviceError\n    When there is no such CUDA device; under soft device "
    "placement\n    (``config.set_soft_device_placement(True)``) the tensor goes where "
    "``x.to(device)``\n    puts it instead (the CPU without a GPU), with a warning.")
_tensor_cuda.__name__ = _tensor_cuda.__qualname__ = "cuda"


def install():
    _C.Tensor.cuda = _tensor_cuda
    _C.Tensor.__copy__ = _tensor_copy
    _C.Tensor.__deepcopy__ = _tensor_deepcopy
    _C.Tensor.__reduce_ex__ = _tensor_reduce_ex
