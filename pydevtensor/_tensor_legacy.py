"""PyTorch's legacy tensor constructors: ``Tensor([1, 2])``, ``Tensor(2, 3)``,
``Tensor()`` (the C type's constructor calls ``_legacy_new`` for every form but
``Tensor(t)``), and the typed ``FloatTensor``, ``DoubleTensor``, ``LongTensor``,
``IntTensor``, ``BoolTensor``: callables that make CPU tensors of their dtype, and
classes for ``isinstance`` (true for a CPU tensor of that dtype, as in PyTorch), and
their CUDA kin ``pydevtensor.cuda.FloatTensor`` and the rest (``CUDA_TYPES``), which
make tensors on the current CUDA device and match CUDA tensors; the
legacy Tensor methods ``new`` (the same forms, with self's dtype and device),
``apply_`` and ``map_`` (a Python callable on each element, CPU only).  A shape given as
sizes is zero-filled here (PyTorch leaves the memory uninitialized)."""
from __future__ import annotations

import numbers
import sys
from typing import Any

from . import _C, _args
from ._default_dtype import get_default_dtype
from ._devices import _as_device
from ._tensor_py import Size

__all__ = ["BoolTensor", "DoubleTensor", "FloatTensor", "IntTensor", "LongTensor"]
# cuda.FloatTensor and its kin are pydevtensor.cuda's names (CUDA_TYPES, at the end)


def _numpy_types(*names):
    """NumPy's types of those names, or () when NumPy is not imported (then nothing is
    one of them): importing pydevtensor does not import NumPy, and so its OpenBLAS."""
    np = sys.modules.get("numpy")
    return tuple(getattr(np, n) for n in names) if np is not None else ()


def _is_size(x):
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, *_numpy_types("bool_")))


def _make(args, dtype, device, name):
    """The tensor a legacy constructor call makes, or TypeError naming the call."""
    if not args:
        return _C.zeros(0, dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    if all(_is_size(a) for a in args):
        sizes = [int(a) for a in args]
        if any(s < 0 for s in sizes):
            raise ValueError(f"{name}(): sizes must be >= 0, got {tuple(sizes)}")
        return _C.zeros(*sizes, dtype=dtype, device=device)
    if len(args) == 1:
        data = args[0]
        if isinstance(data, _C.Tensor):
            if data.dtype != dtype:
                raise TypeError(f"{name}(t): t is a {data.dtype} tensor on {data.device}; "
                                f"{name} holds {dtype} (use t.to({dtype}))")
            return data
        if isinstance(data, (list, tuple, *_numpy_types("ndarray"))):
            return _C.tensor(data, dtype=dtype, device=device)
        raise TypeError(f"{name}(): data must be a sequence (got {type(data).__name__})")
    kinds = ", ".join(type(a).__name__ for a in args)
    raise TypeError(f"{name}() received an invalid combination of arguments ({kinds}); it "
                    f"takes sizes (ints or a Size), one sequence or array of data, or a "
                    f"Tensor")


def _refuse_tensor_with_device(args, device, form, instead):
    """PyTorch's legacy constructors refuse a tensor as data together with device=
    (RuntimeError), whatever the device: they alias the tensor, never copy it.  Ours gave
    t back unchanged, on its own device, not the one asked for."""
    if device is None or len(args) != 1 or not isinstance(args[0], _C.Tensor):
        return
    t = args[0]
    try:
        asked = str(_as_device(device))
    except (TypeError, ValueError, RuntimeError):
        asked = repr(device)
    raise RuntimeError(f"Legacy tensor constructor of the form {form} is not supported (t, "
                       f"of shape {tuple(t.shape)}, is on {t.device}; device={asked} was "
                       f"passed): a legacy constructor gives t itself and copies nothing.  "
                       f"Use {instead}")


def _legacy_new(*args: Any, device: Any = None) -> _C.Tensor:
    """Tensor(data) / Tensor(*sizes) / Tensor(): see Tensor's docstring."""
    _refuse_tensor_with_device(args, device, "Tensor(t, device=device)",
                               "pydevtensor.tensor(t, device=device) for a copy or "
                               "pydevtensor.as_tensor(t, device=device)")
    return _make(args, get_default_dtype(), device, "Tensor")


def _new(self, *args: Any, device: Any = None, size: Any = None) -> _C.Tensor:
    """PyTorch's legacy ``Tensor.new``: a tensor of this tensor's dtype and device from
    the forms of the legacy constructor: ``new()`` an empty one, ``new(*sizes)`` or
    ``new(size)`` with a Size one of that shape (zero-filled here; PyTorch leaves it
    uninitialized), ``new(data)`` a copy of a sequence or array, ``new(t)`` t itself
    when t has this dtype and device (PyTorch gives an alias of t).

    Parameters
    ----------
    *args : ints, Size, sequence, array or Tensor
        The sizes, or the data.
    device : pydevtensor.device, str or int, optional
        Another device of this tensor's type (default: this tensor's); an int i is
        ``cuda:i``, as PyTorch's.
    size : sequence of int, optional
        The sizes, as a keyword.

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        For a number or a string as data, a mix of sizes and other values, or a tensor
        of another dtype or device.
    RuntimeError
        When device is of another type than this tensor's, or given with a tensor as
        data (as PyTorch's).
    ValueError
        For a negative size.

    Examples
    --------
    >>> x = pydevtensor.tensor([1., 2.], dtype=pydevtensor.float64)
    >>> x.new([3, 4])
    tensor([3., 4.], dtype=pydevtensor.float64)
    >>> x.new(2, 3).shape, x.new().shape
    (pydevtensor.Size([2, 3]), pydevtensor.Size([0]))
    """
    _refuse_tensor_with_device(args, device, "tensor.new(t, device=device)",
                               "pydevtensor.as_tensor(t, device=device)")
    if device is None:
        device = self.device
    else:
        device = _as_device(device)  # an int i: cuda:i, as PyTorch's
        if device.type != self.device.type:
            raise _C.DeviceError(f"new(): legacy constructor expects device type: "
                                 f"{self.device.type} but device type: {device.type} was "
                                 f"passed")
    if size is not None:
        if args:
            raise TypeError("new(): give the sizes either as arguments or as size=, not both")
        args = tuple(_args.sequence(size, "new", "size", single=True))
    if len(args) == 1 and isinstance(args[0], _C.Tensor) and args[0].device != device:
        raise TypeError(f"new(t): t is on {args[0].device}; this tensor is on {device} "
                        f"(use t.to({str(device)!r}))")
    return _make(args, self.dtype, device, "new")


def _elementwise_checks(self, fn, name, others=()):
    """Refuses what PyTorch's apply_ and map_ refuse: a tensor not on the CPU, one that
    requires grad, something not callable."""
    for t in (self, *others):
        if t.device.type != "cpu":
            raise TypeError(f"{name}() is only implemented on CPU tensors, got a tensor of "
                            f"shape {tuple(t.shape)} on {t.device}")
        if t.requires_grad:
            raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                               f"var.detach().{name}() instead.")
    if not callable(fn):
        raise TypeError(f"{name}(): callable must be callable, got {type(fn).__name__}")


def _number(value, name):
    """A callable's result as a Python number (a 0-d tensor's item), or TypeError."""
    if isinstance(value, _C.Tensor) and value.ndim == 0:
        return value.item()
    if not isinstance(value, (numbers.Number, *_numpy_types("bool_"))):
        raise TypeError(f"{name}(): the callable must return a number, got "
                        f"{type(value).__name__}")
    return value


def _write(self, values, name):
    """values (a flat list, in self's row-major order) written into self."""
    new = _C.tensor([_number(v, name) for v in values], dtype=self.dtype)
    return self.copy_(new.reshape(tuple(self.shape)))  # nothing recorded: no grad here


def _apply_(self, callable: Any) -> _C.Tensor:
    """Replaces each element x of this CPU tensor by ``callable(x)`` (x a Python number),
    in place, as PyTorch's ``Tensor.apply_`` (slow: for tests and small tensors).

    Parameters
    ----------
    callable : callable
        Takes a number and returns one (cast to this tensor's dtype: an integer tensor
        truncates).

    Returns
    -------
    Tensor
        self.

    Raises
    ------
    TypeError
        When this tensor is not on the CPU, callable is not callable or returns
        something but a number.
    RuntimeError
        When this tensor requires grad (use ``x.detach().apply_(f)``).

    Examples
    --------
    >>> x = pydevtensor.tensor([1., 2., 3.])
    >>> x.apply_(lambda v: v * v)
    tensor([1., 4., 9.])
    """
    _elementwise_checks(self, callable, "apply_")
    return _write(self, [callable(v) for v in self.reshape(-1).tolist()], "apply_")


def _map_(self, tensor: _C.Tensor, callable: Any) -> _C.Tensor:
    """Replaces each element x of this CPU tensor by ``callable(x, y)``, y the element
    of tensor (broadcast to this tensor's shape) at its place, in place, as PyTorch's
    ``Tensor.map_``.

    Parameters
    ----------
    tensor : Tensor
        On the CPU, of this tensor's dtype, broadcastable to its shape.
    callable : callable
        Takes two numbers and returns one (cast to this tensor's dtype).

    Returns
    -------
    Tensor
        self.

    Raises
    ------
    TypeError
        When tensor is not a Tensor or has another dtype, a tensor is not on the CPU,
        or callable is not callable or returns something but a number.
    RuntimeError
        When either tensor requires grad, or tensor does not broadcast to this shape.

    Examples
    --------
    >>> x = pydevtensor.tensor([[1., 2.], [3., 4.]])
    >>> x.map_(pydevtensor.tensor([10., 20.]), lambda a, b: a + b)
    tensor([[11., 22.],
            [13., 24.]])
    """
    if not isinstance(tensor, _C.Tensor):
        raise TypeError(f"map_(): argument 'tensor' must be a Tensor, not "
                        f"{type(tensor).__name__}")
    if tensor.dtype != self.dtype:
        raise TypeError(f"map_(): expected a tensor of {self.dtype} for 'tensor' (this "
                        f"tensor's dtype), got {tensor.dtype}")
    _elementwise_checks(self, callable, "map_", (tensor,))
    shape = tuple(self.shape)
    try:
        other = tensor.expand(shape)
    except (RuntimeError, ValueError):
        raise RuntimeError(f"map_(): tensor of shape {tuple(tensor.shape)} does not "
                           f"broadcast to this tensor's shape {shape} (on cpu)") from None
    pairs = zip(self.reshape(-1).tolist(), other.reshape(-1).tolist())
    return _write(self, [callable(a, b) for a, b in pairs], "map_")


for _name, _method in (("new", _new), ("apply_", _apply_), ("map_", _map_)):
    _method.__name__, _method.__qualname__ = _name, f"Tensor.{_name}"  # in their errors
    setattr(_C.Tensor, _name, _method)


def _cuda_place(name, args, device):
    """The device a cuda.FloatTensor call makes its tensor on: device (a CUDA one, as
    PyTorch's legacy constructors require), else the current CUDA device; a tensor given
    as data must be a CUDA one (PyTorch raises TypeError too)."""
    device = _as_device(device)  # None: the current one; an int: a CUDA index
    if device.type != "cuda":
        raise _C.DeviceError(f"{name}(): legacy constructor expects device type: cuda "
                             f"but device type: {device.type} was passed")
    if len(args) == 1 and isinstance(args[0], _C.Tensor) and not args[0].is_cuda:
        t = args[0]
        raise TypeError(f"{name}(t): t is a tensor of shape {tuple(t.shape)} on {t.device}; "
                        f"{name} holds CUDA tensors (use t.cuda())")
    return device


class _TensorType(type):
    """The metaclass of FloatTensor and its kin: calling one makes a tensor of its dtype
    (a cuda one on a CUDA device), isinstance(x, it) checks x's dtype and device type."""

    def __call__(cls, *args: Any, device: Any = None) -> _C.Tensor:
        name = f"cuda.{cls.__name__}" if cls.is_cuda else cls.__name__
        _refuse_tensor_with_device(args, device, f"{name}(t, device=device)",
                                   f"pydevtensor.as_tensor(t, dtype={cls.dtype}, "
                                   f"device=device)")
        if cls.is_cuda:
            return _make(args, cls.dtype, _cuda_place(name, args, device), name)
        return _make(args, cls.dtype, device, name)

    def __instancecheck__(cls, obj: Any) -> bool:
        return (isinstance(obj, _C.Tensor) and obj.dtype == cls.dtype
                and obj.device.type == ("cuda" if cls.is_cuda else "cpu"))


def _typed(name, dtype, what):
    doc = f"""PyTorch's legacy ``{name}``: ``{name}(data)`` copies a sequence or array into a
    new {what} tensor, ``{name}(*sizes)`` makes a zero-filled one of that shape (PyTorch
    leaves it uninitialized), ``{name}()`` an empty one, ``{name}(t)`` gives t when t
    is {what}; and ``isinstance(x, {name})`` is True for a CPU tensor of dtype {what}.

    Parameters
    ----------
    *args : sequence, array, ints, Size or Tensor
        The data, or the sizes.
    device : device or str, optional
        Where a new tensor is made (default: the CPU).

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        For other arguments, or a tensor of another dtype.
    RuntimeError
        For a tensor as data together with device= (as PyTorch's).

    Examples
    --------
    >>> x = pydevtensor.{name}([1, 0])
    >>> x.dtype, isinstance(x, pydevtensor.{name})
    (pydevtensor.{what}, True)
    >>> pydevtensor.{name}(2, 3).shape
    pydevtensor.Size([2, 3])
    """
    return _TensorType(name, (), {"dtype": dtype, "__doc__": doc, "__module__": "pydevtensor",
                                  "is_cuda": False})


def _cuda_typed(name, dtype, what):
    doc = f"""PyTorch's legacy ``torch.cuda.{name}``: ``cuda.{name}(data)`` copies a sequence
    or array into a new {what} tensor on the current CUDA device, ``cuda.{name}(*sizes)``
    makes a zero-filled one of that shape there (PyTorch leaves it uninitialized),
    ``cuda.{name}()`` an empty one, ``cuda.{name}(t)`` gives t when t is a {what} CUDA
    tensor; ``isinstance(x, cuda.{name})`` is True for a CUDA tensor of dtype {what}, and
    ``x.type(cuda.{name})`` moves a CPU tensor to the current CUDA device.

    Parameters
    ----------
    *args : sequence, array, ints, Size or Tensor
        The data, or the sizes.
    device : device or str, optional
        The CUDA device a new tensor is made on (default: the current one).

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        For other arguments, or a tensor of another dtype or not on a CUDA device.
    RuntimeError
        For a tensor as data together with device= (as PyTorch's).
    pydevtensor.DeviceError
        When no CUDA device can be used (the message says why), or device is not a CUDA
        device.

    Examples
    --------
    >>> isinstance(pydevtensor.ones(2), pydevtensor.cuda.{name})  # a CPU tensor
    False

    With a GPU (skipped here: it needs one):

    >>> x = pydevtensor.cuda.{name}([1, 0])  # doctest: +SKIP
    >>> x.device, x.type()  # doctest: +SKIP
    (device(type='cuda', index=0), 'pydevtensor.cuda.{name}')
    """
    return _TensorType(name, (), {"dtype": dtype, "__doc__": doc,
                                  "__module__": "pydevtensor.cuda", "is_cuda": True})


# (name, dtype, what) of the typed tensors, the CPU ones and torch.cuda's alike
_TYPES = (("FloatTensor", _C.float32, "float32"), ("DoubleTensor", _C.float64, "float64"),
          ("LongTensor", _C.int64, "int64"), ("IntTensor", _C.int32, "int32"),
          ("BoolTensor", _C.bool, "bool"))

FloatTensor, DoubleTensor, LongTensor, IntTensor, BoolTensor = (_typed(*t) for t in _TYPES)

# torch.cuda's typed tensors (pydevtensor.cuda.FloatTensor and the rest), by name
CUDA_TYPES = {t[0]: _cuda_typed(*t) for t in _TYPES}
