"""More of PyTorch's creation functions: asarray, frombuffer and scalar_tensor, and the
signal windows hann_window, hamming_window, blackman_window, bartlett_window and
kaiser_window.

Note [asarray's sharing]: ``asarray`` shares memory, as PyTorch's does, with a tensor
(returned itself), a NumPy array, an object with an array interface or DLPack, and a
buffer (``bytearray``, ``array.array``, ``memoryview``: its format gives the dtype),
when the dtype and device asked for are the object's; otherwise it copies, unless
``copy=False``, which then raises ``ValueError``.  Read-only memory (``bytes``, a
read-only array) is copied, as ``as_tensor`` copies it, where PyTorch shares it with a
warning.  ``copy=True`` always copies.  A
sequence or a number is always copied (``copy=False`` raises).

The windows are PyTorch's closed forms, computed in float64 on the host and rounded
once to dtype: a periodic window of length L is the symmetric one of length L + 1
without its last point.
"""
import builtins
import math
import sys

from . import _C, _args
from ._default_dtype import get_default_dtype


def _share(obj):
    """(obj as a CPU tensor, whether it shares obj's memory), or (None, False) when obj
    has no array, DLPack or buffer interface."""
    import numpy as np  # here, not at import: NumPy loads its OpenBLAS (and its threads)

    if isinstance(obj, np.ndarray) or hasattr(obj, "__array_interface__"):
        arr = np.asarray(obj)
    elif hasattr(obj, "__dlpack__"):
        return _C.from_dlpack(obj), True
    else:
        try:
            arr = np.asarray(memoryview(obj))
        except TypeError:
            return None, False
    t = _C.as_tensor(arr)
    # as_tensor copies what it cannot share: a read-only buffer, a swapped byte order
    return t, not arr.size or t.data_ptr() == arr.__array_interface__["data"][0]


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """obj as a tensor, sharing its memory where it can, as PyTorch's ``asarray``.

    Parameters
    ----------
    obj : Tensor, array, buffer, sequence or number
        What to convert; see Note [asarray's sharing] in this module.
    dtype : pydevtensor.dtype, optional
        The result's dtype (default: obj's, or inferred as ``tensor()`` does).
    device : device or str, optional
        The result's device (default: obj's, the CPU for host data).
    copy : bool, optional
        True: always copy; False: never copy (``ValueError`` when one is needed);
        None (default): copy only when needed.
    requires_grad : bool, optional
        Make the result require grad (default False).

    Returns
    -------
    Tensor

    Raises
    ------
    ValueError
        When copy=False and the dtype, the device or obj's kind needs a copy.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1., 2.])
    >>> t = pydevtensor.asarray(a)
    >>> a[0] = 5.
    >>> t
    tensor([5., 2.], dtype=pydevtensor.float64)
    >>> pydevtensor.asarray([1, 2], dtype=pydevtensor.float32)
    tensor([1., 2.])
    """
    if copy is not None:
        copy = _args.flag(copy, "asarray", "copy")
    requires_grad = _args.flag(requires_grad, "asarray", "requires_grad")
    device = None if device is None else _C.device(device)
    base, shared = (obj, True) if isinstance(obj, _C.Tensor) else _share(obj)
    if copy is False and base is not None and not shared:
        raise ValueError(f"can't alias a read-only or byte-swapped {type(obj).__name__} "
                         "into a tensor.")
    if base is None:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        from ._ops_stats import tensor
        result = tensor(obj, dtype=dtype, device=device)
    else:
        if copy is False and dtype is not None and dtype != base.dtype:
            raise ValueError(f"can't alias tensor with dtype {base.dtype} into dtype {dtype}.")
        if copy is False and device is not None and device != base.device:
            raise ValueError(f"can't alias tensor on {base.device} into device {device}.")
        result = base.to(device=device or base.device, dtype=dtype or base.dtype,
                         copy=builtins.bool(copy))
    if requires_grad:
        result.requires_grad_(True)
    return result


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d CPU tensor over an object's buffer, sharing its memory (writes show both
    ways), as PyTorch's ``frombuffer``; the tensor keeps the buffer object alive.

    A read-only buffer (``bytes``, a read-only ``memoryview`` or array) is copied
    instead: tensors share memory writably, and a write must not reach an immutable
    object.  (PyTorch shares it, warning that writes through the tensor would reach it.)

    Parameters
    ----------
    buffer : object
        Anything with Python's buffer protocol (``bytearray``, ``array.array``, ...).
    dtype : pydevtensor.dtype
        The element type the bytes are read as.
    count : int, optional
        How many elements (default -1: all the bytes after offset).
    offset : int, optional
        How many bytes to skip first (default 0).
    requires_grad : bool, optional
        Make the result require grad (default False).

    Returns
    -------
    Tensor

    Raises
    ------
    ValueError
        When buffer has no buffer protocol, or offset or count fall outside it.

    Examples
    --------
    >>> b = bytearray(b"\\x01\\x02\\x03\\x04")
    >>> t = pydevtensor.frombuffer(b, dtype=pydevtensor.uint8, offset=1)
    >>> b[1] = 9
    >>> t
    tensor([9, 3, 4], dtype=pydevtensor.uint8)
    """
    requires_grad = _args.flag(requires_grad, "frombuffer", "requires_grad")
    try:
        length = memoryview(buffer).nbytes
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"frombuffer(): dtype must be a pydevtensor.dtype, got "
                        f"{type(dtype).__name__}")
    size = _C.empty(0, dtype=dtype).element_size()
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % size:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({size})")
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    import numpy as np

    # bfloat16 is read as int16 (the same size) and viewed back: NumPy knows no bfloat16
    # without the ml_dtypes package, which frombuffer has no need of
    as_read = _C.int16 if dtype == _C.bfloat16 else dtype
    np_dtype = _C.empty(0, dtype=as_read).numpy().dtype
    t = _C.as_tensor(np.frombuffer(buffer, dtype=np_dtype, count=count, offset=offset))
    if as_read != dtype:
        t = t.view(dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor holding the number s, of the default dtype unless dtype is given
    (an integer or a bool gives a float tensor too), as PyTorch's ``scalar_tensor``.

    Parameters
    ----------
    s : number
        The value.
    dtype : pydevtensor.dtype, optional
        Default: the default dtype (float32).
    device : device or str, optional
        Default: the default device.
    requires_grad : bool, optional
        Make the result require grad (default False).

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        When s is not a number.

    Examples
    --------
    >>> pydevtensor.scalar_tensor(3)
    tensor(3.)
    >>> pydevtensor.scalar_tensor(3, dtype=pydevtensor.int64)
    tensor(3)
    """
    requires_grad = _args.flag(requires_grad, "scalar_tensor", "requires_grad")
    s = _args.number(s)
    np = sys.modules.get("numpy")  # a NumPy number exists only once NumPy is imported
    numbers = (int, float) + ((np.number, np.bool_) if np is not None else ())
    if isinstance(s, _C.Tensor) or not isinstance(s, numbers):
        raise TypeError(f"scalar_tensor(): argument 's' (position 1) must be Number, not "
                        f"{type(s).__name__}")
    from ._ops_stats import tensor
    t = tensor(s, dtype=dtype or get_default_dtype(), device=device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _window(name, length, periodic, dtype, device, requires_grad, form):
    """The symmetric window form(n, N) on n = 0 .. N - 1 (N = length, or length + 1 when
    periodic, the last point then dropped), as a tensor."""
    length = _args.number(length)
    if not isinstance(length, int) or isinstance(length, builtins.bool):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(length).__name__}")
    periodic = _args.flag(periodic, name, "periodic")
    requires_grad = _args.flag(requires_grad, name, "requires_grad")
    if length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={length}")
    dtype = dtype or get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    import numpy as np

    if length <= 1:
        w = np.ones(length)
    else:
        n = length + 1 if periodic else length
        w = form(np.arange(n, dtype=np.float64), n)[:length]
    from ._ops_stats import tensor
    t = tensor(w, dtype=dtype, device=device)
    if requires_grad:
        t.requires_grad_(True)
    return t


_WINDOW_DOC = """The {what} window of window_length points, as PyTorch's ``{name}``:
{formula} on n = 0 .. N - 1, where N is window_length + 1 when periodic (the window then
drops its last point, for ``stft``) and window_length when not.

Parameters
----------
window_length : int
    How many points (0 gives an empty tensor, 1 gives [1.]).
periodic : bool, optional
    The periodic window (default True) or the symmetric one.{params}
dtype : pydevtensor.dtype, optional
    A floating dtype (default: the default dtype).
device : device or str, optional
    Default: the default device.
requires_grad : bool, optional
    Make the result require grad (default False).

Returns
-------
Tensor
    1-d, of window_length points.

Raises
------
RuntimeError
    When window_length is negative or dtype is not a floating one.

Examples
--------
>>> pydevtensor.{name}(5, periodic=False)
{example}
"""


def _cosine_form(*coefs):
    def form(n, N):
        import numpy as np

        x = 2 * math.pi * n / (N - 1)
        return sum(c * np.cos(k * x) for k, c in enumerate(coefs))
    return form


def hann_window(window_length, periodic=True, *, dtype=None, device=None,
                requires_grad=False):
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_form(0.5, -0.5))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   device=None, requires_grad=False):
    alpha = _args.real(alpha, "hamming_window", "alpha")
    beta = _args.real(beta, "hamming_window", "beta")
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_form(alpha, -beta))


def blackman_window(window_length, periodic=True, *, dtype=None, device=None,
                    requires_grad=False):
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_form(0.42, -0.5, 0.08))


def bartlett_window(window_length, periodic=True, *, dtype=None, device=None,
                    requires_grad=False):
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, N: 1 - abs(2 * n / (N - 1) - 1))


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, device=None,
                  requires_grad=False):
    def form(n, N):
        import numpy as np

        half = (N - 1) / 2
        return np.i0(beta * np.sqrt(np.clip(1 - ((n - half) / half) ** 2, 0, 1))) / np.i0(beta)
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad,
                   form)


for _f, _what, _formula, _params, _example in (
        (hann_window, "Hann", "0.5 - 0.5 cos(2 pi n / (N - 1))", "",
         "tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])"),
        (hamming_window, "Hamming", "alpha - beta cos(2 pi n / (N - 1))",
         "\nalpha, beta : float, optional\n    The coefficients (default 0.54 and 0.46).",
         "tensor([0.0800, 0.5400, 1.0000, 0.5400, 0.0800])"),
        (blackman_window, "Blackman",
         "0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))", "",
         "tensor([-1.3878e-17,  3.4000e-01,  1.0000e+00,  3.4000e-01, -1.3878e-17])"),
        (bartlett_window, "Bartlett (triangular)", "1 - abs(2 n / (N - 1) - 1)", "",
         "tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])"),
        (kaiser_window, "Kaiser", "I0(beta sqrt(1 - ((n - (N-1)/2) / ((N-1)/2))^2)) / I0(beta)",
         "\nbeta : float, optional\n    The shape parameter (default 12.0).",
         "tensor([5.2773e-05, 2.1567e-01, 1.0000e+00, 2.1567e-01, 5.2773e-05])")):
    _f.__doc__ = _WINDOW_DOC.format(what=_what, name=_f.__name__, formula=_formula,
                                    params=_params, example=_example)

__all__ = ["asarray", "frombuffer", "scalar_tensor", "hann_window", "hamming_window",
           "blackman_window", "bartlett_window", "kaiser_window"]
