"""The NumPy boundary's Python half, and the public names of the interop layer.

Everything that crosses zero-copy is in C (``csrc/python/interop.c``,
``dlpack.c``): ``__array__``, the array interfaces, DLPack, ``as_tensor``,
``from_dlpack``, ``to_numpy``.  Here are NumPy's two override hooks, installed
on ``Tensor``:

- ``__array_ufunc__``: on CPU tensors a ufunc runs on zero-copy NumPy views and
  returns tensors, as PyTorch's (``np.exp(t)``, ``np.add(t, 1, out=t)``; Note [ufuncs
  give tensors]).  With a GPU
  tensor among the operands it raises ``TypeError`` at once: NumPy computes in
  host memory, and must not copy the tensor behind the caller's back, nor fall
  back to iterating it element by element (``len()`` and ``t[i]``).
- ``__array_function__``: the same for NumPy's functions (``np.concatenate``,
  ``np.mean``, ...).

Note [operators with NumPy arrays]
An operator between a tensor and a NumPy array gives a tensor, in either order:
``t + a``, ``a * t``, ``t @ a``, ``a < t``, ``mask & a``.  (PyTorch 2.15 gives a
float64 tensor for ``t + a``, computed by NumPy and not recorded by autograd, refuses
``a + t`` and ``a < t``, and rebinds t in ``t += a``; ours is one rule for every
case.)  The tensor's slot returns
NotImplemented for the array (also under autograd), NumPy then calls the ufunc, which
reaches ``__array_ufunc__`` (NumPy does not defer operators to a class that defines it),
and there the array becomes a CPU tensor without a copy (``as_tensor``; on the
tensor's logical CPU device, ``cpu:1``, when it is on one) for the tensor op: the result has PyTorch's dtype (a float64 array and a float32 tensor give
float64), autograd records it, and with a GPU tensor the op refuses the mix of devices
(``DeviceError``) instead of copying either operand.  A NumPy *scalar* is read as a
Python number, as PyTorch reads it: ``np.sqrt(2) * t`` and ``np.float32(2) < t`` are
tensors on t's device.  In place, ``t += a`` writes into a CPU t (tensor_math.c
converts the array), where Python's fallback ``t = t + a`` would rebind t.  The
operator path also serves ``np.add(t, a)`` called by name (PyTorch gives an array
there).

Note [ufuncs give tensors]
Any other ufunc called on CPU tensors (``np.exp(t)``, ``np.add(t, 1)``, ``np.sin(t)``,
``np.add.reduce(t)``, ``np.divmod(t, 2)``) runs in NumPy on zero-copy views and its
result comes back as a CPU tensor sharing the result's memory, as PyTorch's
``__array_wrap__`` gives it (``torch.from_numpy``): NumPy's dtype (``np.exp`` of an
int64 tensor is float64), a 0-d tensor for a NumPy scalar, not recorded by autograd (a
tensor that requires grad is refused, as PyTorch refuses it).  Where PyTorch 2.15 turns
a bool result into uint8 (``np.isnan(t)``), a workaround from before it had bool
tensors, ours stays bool.  A result dtype pydevtensor lacks (complex) stays an array.
With ``out=`` the result is out as given (a tensor or an array).  A GPU tensor is
refused (TypeError, saying to call ``.cpu()``): it is not a copy to make behind the
caller's back.  ``np.asarray(t)`` and NumPy's functions (``__array_function__``:
``np.concatenate``, ``np.mean``) still give arrays.

A 0-d array is read as a NumPy scalar is, as a Python number (NumPy hands the comparisons
``np.float32(2) < t`` a scalar as a 0-d array, so the two cannot be told apart): ``t *
np.array(2.5)`` is float32 for a float32 t, the dtype PyTorch's own rules give a number
or a 0-d tensor there.  PyTorch 2.15 gives float64: its tensor slot declines the array,
and NumPy computes the product on the host with NumPy's promotion (int64 t times a 0-d
float32 array: float64) and wraps it back through ``__array_wrap__``, unrecorded by
autograd, refusing ``np.array(2.5) * t`` and ``t < np.array(2.5)`` (TypeError) and any
GPU tensor.  Matching it would mean computing on the host behind the operator, which this
module must not do.
"""
from . import _C


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, _C.Tensor) and data.requires_grad and (dtype is not None
                                                                or device is not None):
        # a tensor that converts is data.to(...), recorded by autograd as PyTorch's
        # (the C conversion copies like detach(): the result lost the graph)
        return data.to(**{k: v for k, v in (("dtype", dtype), ("device", device))
                          if v is not None})
    try:
        return _C.as_tensor(data, dtype, device)
    except TypeError:
        # lists holding tensors (0-d ones: as_tensor([a, b])) and other sequences (a range,
        # a deque) are copied as tensor() copies them (PyTorch's as_tensor shares memory
        # only with arrays and tensors)
        from ._ops_stats import _has_other_sequence, _has_tensor, tensor
        if not (isinstance(data, (list, tuple)) and _has_tensor(data)
                or _has_other_sequence(data)):
            raise
        return tensor(data, dtype=dtype, device=device)


as_tensor.__doc__, as_tensor.__wrapped__ = _C.as_tensor.__doc__, _C.as_tensor


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A tensor sharing the memory of ext_tensor, an object with ``__dlpack__`` (NumPy,
    PyTorch, CuPy, JAX arrays) or a DLPack capsule.

    Parameters
    ----------
    ext_tensor : object
        The array or capsule (also by this name, PyTorch's: ``from_dlpack(ext_tensor=a)``).
    device : str or pydevtensor.device, optional
        Where the tensor goes; a device that differs copies.
    copy : bool, optional
        True always copies; False never does (raising where it must).

    Returns
    -------
    Tensor

    Raises
    ------
    ValueError
        For read-only memory without copy=True.
    TypeError
        When ext_tensor does not speak DLPack.

    Examples
    --------
    >>> import numpy as np
    >>> pydevtensor.from_dlpack(np.arange(3))
    tensor([0, 1, 2])
    >>> pydevtensor.from_dlpack(ext_tensor=np.arange(2.), copy=True)
    tensor([0., 1.], dtype=pydevtensor.float64)
    """
    return _C.from_dlpack(ext_tensor, device=device, copy=copy)


to_numpy = _C.to_numpy

__all__ = ["as_tensor", "from_dlpack", "to_numpy"]

_Tensor = _C.Tensor


def _refuse(what, device):
    raise TypeError(
        f"NumPy's {what} cannot take a {device} tensor: NumPy computes in host memory, so "
        f"it would copy the tensor to the host behind your back.  Use pydevtensor's own "
        f"operations on the device, or copy explicitly with .cpu() or "
        f"pydevtensor.to_numpy(t)")


def _host_arrays(what, obj):
    """obj with each tensor in it (in nested lists, tuples and dicts) replaced by a
    NumPy array sharing its memory; TypeError for a tensor off the host."""
    if isinstance(obj, _Tensor):
        if obj.device.type != "cpu":
            _refuse(what, obj.device)
        return obj.numpy()
    if isinstance(obj, list):
        return [_host_arrays(what, o) for o in obj]
    if isinstance(obj, tuple):
        return tuple(_host_arrays(what, o) for o in obj)
    if isinstance(obj, dict):
        return {k: _host_arrays(what, v) for k, v in obj.items()}
    return obj


_OPERATOR_UFUNCS = {}  # NumPy's ufunc -> pydevtensor's function, filled at the first call


def _operator_ufuncs():
    if not _OPERATOR_UFUNCS:
        import numpy as np
        _OPERATOR_UFUNCS.update({
            np.add: _C.add, np.subtract: _C.sub, np.multiply: _C.mul,
            np.true_divide: _C.true_divide, np.floor_divide: _C.floor_divide,
            np.remainder: _C.remainder, np.power: _C.pow, np.equal: _C.eq,
            np.not_equal: _C.ne, np.less: _C.lt, np.less_equal: _C.le, np.greater: _C.gt,
            np.greater_equal: _C.ge})
    return _OPERATOR_UFUNCS


def _scalar_operator(ufunc, a, b):
    """The tensor op for a NumPy scalar and a tensor under an operator's ufunc, or None.
    ``np.sqrt(2) * t`` reaches __array_ufunc__ first (the scalar is the left operand);
    PyTorch, which has no __array_ufunc__, gives a tensor there, reading the scalar as a
    Python number, and so do we, on any device and under autograd."""
    import numpy as np

    def is_scalar(x):  # NumPy hands the comparisons a scalar as a 0-d array
        return isinstance(x, np.generic) or (isinstance(x, np.ndarray) and x.ndim == 0)
    if not ((isinstance(a, _Tensor) and is_scalar(b)) or
            (isinstance(b, _Tensor) and is_scalar(a))):
        return None
    scalar = a if isinstance(b, _Tensor) else b
    fn = _operator_ufuncs().get(ufunc)
    if fn is None and scalar.dtype.kind in "biu":  # np.int64(3) << t: the operator's op
        import operator
        fn = {np.bitwise_and: operator.and_, np.bitwise_or: operator.or_,
              np.bitwise_xor: operator.xor, np.left_shift: operator.lshift,
              np.right_shift: operator.rshift}.get(ufunc)
    if fn is None or scalar.dtype.kind not in "biuf":
        return None
    number = scalar.item()
    return fn(number, b) if isinstance(b, _Tensor) else fn(a, number)


def _array_operator(ufunc, a, b):
    """The tensor op for a tensor and a NumPy array under an operator's ufunc, the array
    made a CPU tensor without a copy, or None (Note [operators with NumPy arrays])."""
    import numpy as np
    array = b if isinstance(a, _Tensor) else a
    other = a if array is b else b
    if not (isinstance(other, _Tensor) and type(array) is np.ndarray
            and array.dtype.kind in "biuf"):
        return None
    fn = _array_ufuncs().get(ufunc)
    if fn is None:
        return None
    # host memory, wrapped on cpu:0 without a copy, never copied to a GPU; beside a
    # logical CPU device (cpu:1) it is copied there, a copy the transfer guard sees as
    # implicit (the user asked for none)
    t = _C.as_tensor(array, device="cpu")
    if other.device.type == "cpu" and t.device != other.device:
        t = _C._copy_for(t, other.device, "an operator with a NumPy array", True)
    if fn is _C.matmul and t.dtype != other.dtype:  # matmul takes one dtype: promote,
        common = _C.promote_types(t.dtype, other.dtype)  # as the other operators do
        t, other = t.to(common), other.to(common)
    return fn(other, t) if array is b else fn(t, other)


_ARRAY_UFUNCS = {}  # the same with an array operand, and @ & | ^


def _array_ufuncs():
    if not _ARRAY_UFUNCS:
        import operator

        import numpy as np
        _ARRAY_UFUNCS.update(_operator_ufuncs())
        _ARRAY_UFUNCS.update({np.matmul: _C.matmul, np.bitwise_and: operator.and_,
                              np.bitwise_or: operator.or_, np.bitwise_xor: operator.xor})
    return _ARRAY_UFUNCS


def _wrapped(result, device):
    """A ufunc's NumPy result as PyTorch's ``__array_wrap__`` gives it: an array or a
    NumPy scalar becomes a CPU tensor sharing its memory (on device, a logical CPU
    device, by a copy), a tuple of them (np.divmod) a tuple of tensors.  A dtype that
    pydevtensor lacks (complex) stays an array; None (ufunc.at) stays None."""
    import numpy as np
    if isinstance(result, tuple):
        return tuple(_wrapped(r, device) for r in result)
    if not isinstance(result, (np.ndarray, np.generic)) or not (
            result.dtype.kind in "biuf" or result.dtype.name == "bfloat16"):  # ml_dtypes
        return result
    t = as_tensor(np.asarray(result), device="cpu")
    if t.device != device:  # beside a logical CPU device (cpu:1), as _array_operator
        t = _C._copy_for(t, device, "a NumPy ufunc's result", True)
    return t


def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
    if method == "__call__" and not kwargs and len(inputs) == 2:  # an operator's form
        r = _scalar_operator(ufunc, *inputs)
        if r is None:
            r = _array_operator(ufunc, *inputs)
        if r is not None:
            return r
    what = f"ufunc {ufunc.__name__!r}"
    out = kwargs.get("out")
    result = getattr(ufunc, method)(*_host_arrays(what, inputs), **_host_arrays(what, kwargs))
    if out is not None:  # NumPy's answer is out itself: the tensors given, not their views
        outs = out if isinstance(out, tuple) else (out,)
        if isinstance(result, tuple):
            return tuple(o if isinstance(o, _Tensor) else r for o, r in zip(outs, result))
        return outs[0] if isinstance(outs[0], _Tensor) else result
    return _wrapped(result, self.device)  # Note [ufuncs give tensors]


def __array_function__(self, func, types, args, kwargs):
    what = f"{getattr(func, '__name__', 'function')}()"
    args, kwargs = _host_arrays(what, args), _host_arrays(what, kwargs)
    # The implementation without the dispatch, so that a tensor hidden where we do
    # not look cannot bring us back here; NumPy turns it into an array itself.
    return getattr(func, "_implementation", func)(*args, **kwargs)


_Tensor.__array_ufunc__ = __array_ufunc__
_Tensor.__array_function__ = __array_function__


# The dtype tensor() gives an array of an integer dtype pydevtensor lacks: the
# narrowest one that holds every value of the array's dtype (uint64: int64 when the
# values fit).  PyTorch 2.3+ has uint16/32/64 tensors with few ops; pydevtensor widens.
_WIDENED = {"uint16": "int32", "uint32": "int64", "uint64": "int64"}


def _converted(data, dtype, where):
    """The array tensor() and as_tensor() copy from when data's buffer cannot be
    wrapped as it is (csrc/python/tensor_convert.c, pdt_buffer_conversion): aligned,
    in the native byte order, and with integers of a dtype pydevtensor lacks widened without
    loss (_WIDENED).  dtype (a name, or None) is the dtype asked for, applied after
    this as for any array; it only decides what a uint64 array too large for int64
    becomes (that floating dtype, or bool, else OverflowError).  Long double becomes
    float64, rounded.  A NumPy scalar is taken as its 0-d array."""
    import numpy as np
    if isinstance(data, np.generic):  # np.uint8(200): as its 0-d array
        data = np.asarray(data)
    if not isinstance(data, np.ndarray) and not isinstance(data, (bytes, bytearray)):
        try:
            arr = np.asarray(data)
        except (TypeError, ValueError):  # a format NumPy lacks: refused below
            arr = None
        if arr is not None and not arr.flags.aligned:  # at an odd address
            data = arr
    if not isinstance(data, np.ndarray):
        view = memoryview(data)
        if isinstance(data, (bytes, bytearray)):  # as PyTorch refuses them
            raise TypeError(f"{where}: unsupported element type {view.format!r} "
                            f"({view.itemsize} bytes) in a {type(data).__name__}: bytes are "
                            f"not tensor data; numpy.frombuffer(data, dtype=numpy.uint8) "
                            f"gives a uint8 array to convert")
        raise TypeError(f"{where}: unsupported element type {view.format!r} ({view.itemsize} "
                        f"bytes) in a {type(data).__name__}; supported: bool, uint8, int8, "
                        f"int16, int32, int64, float16, float32, float64 (NumPy arrays of "
                        f"other integer dtypes are widened)")
    src = data.dtype.newbyteorder("=")
    if src.name in _WIDENED:
        target = np.dtype(_WIDENED[src.name])
    elif src.kind == "f" and src.itemsize > 8:
        target = np.dtype(np.float64)
    elif src.kind in "bif" or src.name == "uint8":
        target = src  # a dtype pydevtensor has, stored in the other byte order
    else:
        raise TypeError(f"{where}: arrays of dtype {data.dtype} have no pydevtensor dtype")
    if src.kind == "u" and src.itemsize == 8 and data.size:
        big = data.max()
        if big > np.iinfo(np.int64).max:
            if dtype == "bool":
                return data != 0
            if dtype not in ("float16", "bfloat16", "float32", "float64"):
                raise OverflowError(
                    f"{where}: the uint64 value {big} does not fit in int64, the widest "
                    f"integer dtype; pass dtype=pydevtensor.float64 to convert to floats")
            # straight to the dtype asked for: through float64 would round twice
            target = np.dtype("float32" if dtype == "bfloat16" else dtype)
    return data.astype(target)
