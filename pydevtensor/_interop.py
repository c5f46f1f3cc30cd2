"""The NumPy boundary's Python half, and the public names of the interop layer.

Everything that crosses zero-copy is in C (``csrc/python/interop.c``,
``dlpack.c``): ``__array__``, the array interfaces, DLPack, ``as_tensor``,
``from_dlpack``, ``to_numpy``.  Here are NumPy's two override hooks, installed
on ``Tensor``:

- ``__array_ufunc__``: on CPU tensors a ufunc runs on zero-copy NumPy views and
  returns NumPy arrays (``np.exp(t)``, ``np.add(t, 1, out=t)``).  With a GPU
  tensor among the operands it raises ``TypeError`` at once: NumPy computes in
  host memory, and must not copy the tensor behind the caller's back, nor fall
  back to iterating it element by element (``len()`` and ``t[i]``).
- ``__array_function__``: the same for NumPy's functions (``np.concatenate``,
  ``np.mean``, ...).

Because ``Tensor`` defines ``__array_ufunc__``, NumPy does not defer Python
operators to it: ``numpy_array + cpu_tensor`` is a NumPy array, and
``np.float32(2) * gpu_tensor`` raises ``TypeError`` (PyTorch, which has no
``__array_ufunc__``, gives a tensor there).  Write ``gpu_tensor * 2.0``, or wrap
the NumPy value with ``pydevtensor.as_tensor``.
"""
from . import _C

as_tensor = _C.as_tensor
from_dlpack = _C.from_dlpack
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


def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
    what = f"ufunc {ufunc.__name__!r}"
    return getattr(ufunc, method)(*_host_arrays(what, inputs), **_host_arrays(what, kwargs))


def __array_function__(self, func, types, args, kwargs):
    what = f"{getattr(func, '__name__', 'function')}()"
    args, kwargs = _host_arrays(what, args), _host_arrays(what, kwargs)
    # The implementation without the dispatch, so that a tensor hidden where we do
    # not look cannot bring us back here; NumPy turns it into an array itself.
    return getattr(func, "_implementation", func)(*args, **kwargs)


_Tensor.__array_ufunc__ = __array_ufunc__
_Tensor.__array_function__ = __array_function__
