"""Shared checks of scalar and size arguments, made before an argument is used, so that a
wrong one is a TypeError naming the function, the argument and what was given (not an
error from inside the library, such as "'<' not supported between instances of 'str' and
'int'" or "'float' object is not iterable").  The common path (a float, an int, a tuple
of ints) costs an isinstance check or two."""
import numbers
import operator

from . import _C


def _what(value):
    return "None" if value is None else type(value).__name__


def number(value):
    """value, or a 0-d tensor's value as a Python number, as PyTorch takes one for a
    number (from a GPU, item()'s counted copy to the host, as float(t) and the C
    bindings' alpha= and fill values read it); the caller checks the type of what it
    gets."""
    if isinstance(value, _C.Tensor) and value.ndim == 0:
        return value.item()
    return value


def real(value, op, name):
    """value as a float: a real number (bool and NumPy scalars too) or a one-element real
    tensor's value; anything else a TypeError naming op and the argument."""
    if isinstance(value, float):
        return value
    if isinstance(value, numbers.Real):
        return float(value)
    if (isinstance(value, _C.Tensor) and value.numel() == 1
            and not value.is_complex()):
        return float(value)
    raise TypeError(f"{op}(): argument '{name}' must be a number, got {_what(value)}")


def integer(value, op, name):
    """value as an int: an int (bool and NumPy integers too) or an object with
    ``__index__`` (a one-element integer tensor); anything else a TypeError naming op and
    the argument."""
    if isinstance(value, int):
        return int(value)
    try:
        return operator.index(value)
    except TypeError:
        pass
    raise TypeError(f"{op}(): argument '{name}' must be an int, got {_what(value)}")


def index(value):
    """An integer argument (a size, a count, a pad) as a Python int: value if an int, the
    int of a NumPy integer or a 0-d integer tensor (anything with ``__index__``, as PyTorch
    takes them); None for anything else, bools (Python's, NumPy's, a bool tensor)
    included."""
    if isinstance(value, int):
        return None if isinstance(value, bool) else value
    if not hasattr(type(value), "__index__") or (
            isinstance(value, _C.Tensor) and value.dtype == _C.bool):
        return None
    try:
        return operator.index(value)
    except TypeError:  # np.bool_, a float tensor
        return None


def size(value, where, name, least=None):
    """A size or count argument (out_channels, num_layers, step_size...) as a Python int,
    so that a module's repr and state show ``16``, not ``np.int64(16)``: see index();
    anything else (a bool, a float, a str) a TypeError "where: name must be an int, got
    type", and with least, one below it a ValueError "where: name must be >= least"."""
    n = index(value)
    if n is None:
        raise TypeError(f"{where}: {name} must be an int, got {_what(value)}")
    if least is not None and n < least:
        raise ValueError(f"{where}: {name} must be >= {least}, got {n}")
    return n


def plain(value):
    """A real hyperparameter (a probability, a slope, eps, momentum) as a Python number, so
    that a module's repr and state show ``0.25``, not ``np.float32(0.25)``: a NumPy integer
    or floating scalar as an int or a float (float32's value exactly), anything else (an
    int, a float, a bool, a str) as it is, for the caller's check."""
    if type(value) in (int, float) or type(value).__module__ != "numpy":
        return value
    if isinstance(value, numbers.Integral):  # np.bool_ is not one: it stays, refused
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def ints(value, op, name, *, single=True):
    """value as a tuple of ints: a sequence (a tuple, a list, a Size) of ints, or (single)
    one int; anything else a TypeError naming op and the argument and what it held."""
    if isinstance(value, tuple) and all(type(v) is int for v in value):
        return value
    if single and not isinstance(value, (list, tuple)):
        try:
            return (operator.index(value),)
        except TypeError:
            pass
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{op}(): argument '{name}' must be "
                        f"{'an int or ' if single else ''}a sequence of ints, got "
                        f"{_what(value)}")
    out = []
    for i, v in enumerate(value):
        try:
            out.append(operator.index(v))
        except TypeError:
            raise TypeError(f"{op}(): argument '{name}' must be a sequence of ints, but "
                            f"element {i} is {_what(v)}") from None
    return tuple(out)


def sequence(value, op, name, what="ints", single=False):
    """value when it is a sequence to iterate (a tuple, a list, a Size, another iterable
    but a str or bytes), or with single, (value,) for one int (an object with
    ``__index__``); anything else a TypeError naming op, the argument and the type given.
    Its elements are left to the caller's check."""
    if isinstance(value, (tuple, list)):
        return value
    if single and hasattr(value, "__index__"):
        return (value,)
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{op}(): argument '{name}' must be "
                        f"{'an int or ' if single else ''}a sequence of {what}, got "
                        f"{_what(value)}")
    return value


def flag(value, op, name, *, numpy=True, position=None):
    """value as a bool: a bool or (numpy) NumPy's, as the C bindings' flags; anything
    else (a str, an int, None) a TypeError naming op and the argument (and its position,
    when given), as PyTorch's "sum(): argument 'keepdim' must be bool, not str" and
    "set_grad_enabled(): argument 'mode' (position 1) must be bool, not int", rather than
    read by its truth.  numpy=False refuses NumPy's bool too ("not numpy.bool"), for the
    switches that PyTorch's own bindings take only a Python bool for (set_grad_enabled,
    set_flush_denormal, set_multithreading_enabled, ...)."""
    if type(value) is bool:
        return value
    kind = type(value).__name__
    if kind in ("bool", "bool_") and type(value).__module__ == "numpy":
        if numpy:
            return bool(value)
        kind = "numpy.bool"
    where = "" if position is None else f" (position {position})"
    raise TypeError(f"{op}(): argument '{name}'{where} must be bool, not {kind}")


def dtype(value, op, name="dtype"):
    """value as a pydevtensor.dtype (None stays None): a dtype or its name ("float64", as
    the C bindings take); anything else a TypeError naming op and the argument, as
    PyTorch's "argument 'dtype' must be torch.dtype, not int".  Not handed to Tensor.to,
    which reads an int as a CUDA device's index and a bad name as a device string."""
    if value is None or isinstance(value, _C.dtype):
        return value
    if isinstance(value, str) and isinstance(getattr(_C, value, None), _C.dtype):
        return getattr(_C, value)
    raise TypeError(f"{op}(): argument '{name}' must be a pydevtensor.dtype, not "
                    f"{_what(value)}" + (f" {value!r}" if isinstance(value, str) else ""))


def output_fits(where, shape, dtype, device):
    """Refuses, before the work (and any temporary that grows with the sizes asked for),
    a result of shape that cannot be allocated: an empty one is made and dropped (no
    page is touched; the cache keeps the block for the result), so too large a size is
    the allocator's OutOfMemoryError or InvalidArgumentError naming where and the shape,
    not a process killed for memory."""
    try:
        _C.empty(tuple(shape), dtype=dtype, device=device)
    except (_C.OutOfMemoryError, _C.InvalidArgumentError, OverflowError) as e:
        on = "the default device" if device is None else device
        kind = _C.InvalidArgumentError if isinstance(e, OverflowError) else type(e)
        raise kind(f"{where}: the result of shape {tuple(shape)} ({dtype}, on {on}) "
                   f"cannot be allocated: {e}") from None
