"""PyTorch's legacy tensor constructors: ``Tensor([1, 2])``, ``Tensor(2, 3)``,
``Tensor()`` (the C type's constructor calls ``_legacy_new`` for every form but
``Tensor(t)``), and the typed ``FloatTensor``, ``DoubleTensor``, ``LongTensor``,
``IntTensor``, ``BoolTensor``: callables that make CPU tensors of their dtype, and
classes for ``isinstance`` (true for a CPU tensor of that dtype, as in PyTorch).
A shape given as sizes is zero-filled here (PyTorch leaves the memory uninitialized)."""
from __future__ import annotations

import numbers
import sys
from typing import Any

from . import _C
from ._default_dtype import get_default_dtype
from ._tensor_py import Size

__all__ = ["BoolTensor", "DoubleTensor", "FloatTensor", "IntTensor", "LongTensor"]


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


def _legacy_new(*args: Any, device: Any = None) -> _C.Tensor:
    """Tensor(data) / Tensor(*sizes) / Tensor(): see Tensor's docstring."""
    return _make(args, get_default_dtype(), device, "Tensor")


class _TensorType(type):
    """The metaclass of FloatTensor and its kin: calling one makes a tensor of its dtype,
    isinstance(x, it) checks x's dtype and device."""

    def __call__(cls, *args: Any, device: Any = None) -> _C.Tensor:
        return _make(args, cls.dtype, device, cls.__name__)

    def __instancecheck__(cls, obj: Any) -> bool:
        return (isinstance(obj, _C.Tensor) and obj.dtype == cls.dtype
                and obj.device.type == "cpu")


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


FloatTensor = _typed("FloatTensor", _C.float32, "float32")
DoubleTensor = _typed("DoubleTensor", _C.float64, "float64")
LongTensor = _typed("LongTensor", _C.int64, "int64")
IntTensor = _typed("IntTensor", _C.int32, "int32")
BoolTensor = _typed("BoolTensor", _C.bool, "bool")
