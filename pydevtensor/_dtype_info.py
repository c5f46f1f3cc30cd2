"""What the dtypes hold and how they combine, as PyTorch names it: finfo and iinfo
(the limits of the floating and integer dtypes), result_type (the dtype an
elementwise op gives two operands) and can_cast (PyTorch's casting rule for
in-place and out= results).

result_type follows Note [elementwise dtypes] in csrc/core/pdt_elementwise.h,
which the C kernels follow too: operands come in three priorities - tensors with
dimensions, 0-d tensors, Python numbers - and a lower priority only matters when
its category (bool < integer < floating) is higher, bringing its own dtype (a 0-d
tensor) or the default one (a Python float: the default float dtype; a Python int:
int64).  tests/test_dtype_info.py checks it against the ops' own result dtypes.
"""
import builtins
import math
import numbers

from . import _C


def _dtype_arg(x, op):
    if not isinstance(x, _C.dtype):
        raise TypeError(f"{op}(): argument must be a pydevtensor.dtype, got "
                        f"{type(x).__name__}")
    return x


def _default_float():
    return _C.empty(0).dtype


class finfo:
    """The limits of a floating dtype (PyTorch's torch.finfo).

    Parameters
    ----------
    type : pydevtensor.dtype, optional
        float16, bfloat16, float32 or float64 (default: the default dtype, float32).

    Attributes
    ----------
    bits : int
        The size of one element in bits.
    eps : float
        The gap between 1.0 and the next representable number.
    max, min : float
        The largest and the most negative finite numbers.
    tiny, smallest_normal : float
        The smallest positive normal number (two names for it).
    resolution : float
        10 to the minus the number of decimal digits the dtype keeps.
    dtype : str
        The dtype's name.

    Raises
    ------
    TypeError
        When type is not a floating dtype.

    Examples
    --------
    >>> pydevtensor.finfo(pydevtensor.float32).eps
    1.1920928955078125e-07
    >>> pydevtensor.finfo(pydevtensor.float16)
    finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)
    """

    # (bits, mantissa bits kept, exponent bias): eps = 2^-mantissa, tiny = 2^(1 - bias)
    _FORMATS = {"float16": (16, 10, 15), "bfloat16": (16, 7, 127), "float32": (32, 23, 127),
                "float64": (64, 52, 1023)}

    def __init__(self, type=None):
        dtype = _default_float() if type is None else _dtype_arg(type, "finfo")
        if dtype.name not in self._FORMATS:
            raise TypeError(f"pydevtensor.finfo() requires a floating point input type, got "
                            f"pydevtensor.{dtype.name}; use pydevtensor.iinfo for integer "
                            f"types")
        bits, mant, bias = self._FORMATS[dtype.name]
        self.bits = bits
        self.eps = 2.0 ** -mant
        self.max = (2.0 - 2.0 ** -mant) * 2.0 ** bias
        self.min = -self.max
        self.tiny = self.smallest_normal = 2.0 ** (1 - bias)
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        self.dtype = dtype.name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")

    __str__ = __repr__


class iinfo:
    """The limits of an integer dtype (PyTorch's torch.iinfo).

    Parameters
    ----------
    type : pydevtensor.dtype
        uint8, int8, int16, int32 or int64.

    Attributes
    ----------
    bits : int
        The size of one element in bits.
    max, min : int
        The largest and the smallest value.
    dtype : str
        The dtype's name.

    Raises
    ------
    TypeError
        When type is not an integer dtype (bool is not one, as in PyTorch).

    Examples
    --------
    >>> pydevtensor.iinfo(pydevtensor.int32).max
    2147483647
    >>> pydevtensor.iinfo(pydevtensor.uint8)
    iinfo(min=0, max=255, dtype=uint8)
    >>> pydevtensor.iinfo(pydevtensor.int64)
    iinfo(min=-9.22337e+18, max=9.22337e+18, dtype=int64)
    """

    _BITS = {"uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64}

    def __init__(self, type):
        dtype = _dtype_arg(type, "iinfo")
        if dtype.name not in self._BITS:
            raise TypeError(f"pydevtensor.{dtype.name} is not supported by pydevtensor.iinfo"
                            if dtype == _C.bool else
                            f"pydevtensor.iinfo() requires an integer input type, got "
                            f"pydevtensor.{dtype.name}; use pydevtensor.finfo for floating "
                            f"types")
        self.bits = self._BITS[dtype.name]
        signed = dtype.name != "uint8"
        self.max = 2 ** (self.bits - signed) - 1
        self.min = -2 ** (self.bits - 1) if signed else 0
        self.dtype = dtype.name

    def __repr__(self):
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"

    __str__ = __repr__


def _category(dtype):
    return 0 if dtype == _C.bool else 2 if dtype.is_floating_point else 1


def _combine(higher, lower):
    """PyTorch's combine_categories: a lower priority's dtype counts only when its
    category is higher (None: nothing of that priority)."""
    if higher is not None and higher.is_floating_point:
        return higher
    if higher is None:
        return lower
    if lower is not None and (higher == _C.bool or lower.is_floating_point):
        return _C.promote_types(higher, lower)
    return higher


def _operand(x, name):
    """(priority, dtype): 0 a tensor with dims, 1 a 0-d tensor, 2 a Python number."""
    if isinstance(x, _C.Tensor):
        return (0 if x.ndim else 1), x.dtype
    if isinstance(x, builtins.bool):
        return 2, _C.bool
    if isinstance(x, numbers.Integral):
        return 2, _C.int64
    if isinstance(x, numbers.Real):
        return 2, _default_float()
    raise TypeError(f"result_type(): argument '{name}' must be a Tensor or a number (bool, "
                    f"int or float), got {type(x).__name__}")


def result_type(tensor, other):
    """The dtype of an elementwise op between tensor and other (Tensors or Python
    numbers), by the rules the ops use (Note [elementwise dtypes]): tensors with
    dimensions decide, a 0-d tensor or a number only when its category (bool <
    integer < floating) is higher.

    Parameters
    ----------
    tensor : Tensor or number
    other : Tensor or number

    Returns
    -------
    pydevtensor.dtype

    Raises
    ------
    TypeError
        When an argument is neither a Tensor nor a number.

    Examples
    --------
    >>> pydevtensor.result_type(pydevtensor.tensor([1, 2], dtype=pydevtensor.int32), 1.5)
    pydevtensor.float32
    >>> pydevtensor.result_type(pydevtensor.tensor([1.0], dtype=pydevtensor.float16),
    ...                         pydevtensor.tensor(1.0, dtype=pydevtensor.float64))
    pydevtensor.float16
    """
    return _result_type_of((tensor, "tensor"), (other, "other"))


def _result_type_of(*named):
    """result_type of any number of (operand, name) pairs, as an op of that many
    operands promotes them all at once (addcmul's three)."""
    by_priority = [None, None, None]
    for x, name in named:
        p, d = _operand(x, name)
        by_priority[p] = d if by_priority[p] is None else _C.promote_types(by_priority[p], d)
    return _combine(by_priority[0], _combine(by_priority[1], by_priority[2]))


def can_cast(from_, to):
    """Whether PyTorch's casting rule lets a result of dtype ``from_`` be written into a
    tensor of dtype ``to`` (an in-place op or out=): never a float into an integer or
    bool, nothing but bool into bool; everything else may.

    Parameters
    ----------
    from_ : pydevtensor.dtype
    to : pydevtensor.dtype

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        When an argument is not a dtype.

    Examples
    --------
    >>> pydevtensor.can_cast(pydevtensor.float64, pydevtensor.float16)
    True
    >>> pydevtensor.can_cast(pydevtensor.float32, pydevtensor.int32)
    False
    """
    for x, name in ((from_, "from_"), (to, "to")):
        if not isinstance(x, _C.dtype):
            raise TypeError(f"can_cast(): argument '{name}' must be a pydevtensor.dtype, not "
                            f"{type(x).__name__}")
    if from_.is_floating_point and not to.is_floating_point:
        return False
    return not (to == _C.bool and from_ != _C.bool)


__all__ = ["can_cast", "finfo", "iinfo", "result_type"]
