"""Logical ops and boolean masks: logical_and, logical_or, logical_xor, logical_not, any,
all, and ``&``, ``|``, ``^``, ``~`` on bool tensors (masks), as PyTorch has them; and the
operators ``&``, ``|``, ``^``, ``~``, ``<<``, ``>>`` on integer tensors.

The logical ops are compositions of comparisons, bool arithmetic (``*`` is and, ``+`` is
or on bool tensors, as in PyTorch) and sums, so they run on every device without kernels
of their own.  The results are bool tensors, which never require grad.  On integer
tensors the operators are the C kernels' bitwise_and, bitwise_or, bitwise_xor,
bitwise_left_shift and bitwise_right_shift (csrc/python/tensor_bitwise.c; ``~x`` is
``x ^ -1``); on float tensors they are a TypeError, as in PyTorch.
"""
import builtins
import operator

from . import _C
from ._args import flag
from ._numpy_names import numpy_names
from ._ops_pointwise import _in_place
from ._out import _out_written, takes_out

_TENSOR, _BOOL = _C.Tensor, _C.bool  # _logical's test for two masks


def _truth(x, op, name="input"):
    """x as a bool tensor: x != 0 (NaN counts as True, as in PyTorch); other may be a
    number."""
    if isinstance(x, _C.Tensor):
        return x if x.dtype == _C.bool else x != 0
    if name == "other" and isinstance(x, (builtins.bool, builtins.int, builtins.float)):
        return builtins.bool(x)
    raise TypeError(f"{op}(): {name} must be a Tensor{' or a number' if name == 'other' else ''}"
                    f", got {type(x).__name__}")


def _and(a, b):
    if not isinstance(a, _C.Tensor):
        a, b = b, a
    if isinstance(b, builtins.bool):
        return a.clone() if b else _C.zeros_like(a)
    return a * b


def _or(a, b):
    if not isinstance(a, _C.Tensor):
        a, b = b, a
    if isinstance(b, builtins.bool):
        return _C.ones_like(a) if b else a.clone()
    return a + b


def _xor(a, b):
    return a != b if isinstance(a, _C.Tensor) else b != a


def _logical(mask_op, compose):
    """Makes logical_and, _or and _xor from their documented signature (name and docstring
    kept): two masks go to their operator in C (mask_op: &, |, ^; one element 0.90 ->
    0.4 us), anything else to compose over the truth of each side, an error named for the
    op.  A closure, not a shared helper called from each: that call cost 0.15 us."""

    def wrap(documented):
        op = documented.__name__
        label = f"{op}()"

        def fn(input, other, *, out=None):
            if out is not None:  # of any dtype: bool casts to every one (no gradient)
                return _out_written(fn(input, other), out, op, castable=True)
            if type(input) is _TENSOR is type(other) and input.dtype is _BOOL is other.dtype:
                try:
                    return mask_op(input, other)
                except (IndexError, ValueError, RuntimeError):
                    pass  # named below
            return _named(label, compose, _truth(input, op), _truth(other, op, "other"))

        fn.__name__, fn.__qualname__ = documented.__name__, documented.__qualname__
        fn.__doc__, fn.__module__ = documented.__doc__, documented.__module__
        return fn

    return wrap


def _binary_doc(fn):
    """fn's docstring with the Parameters and Returns the three binary ops share."""
    if fn.__doc__ is not None:  # None under python -OO
        fn.__doc__ = fn.__doc__.replace("{binary}", _BINARY.strip("\n").lstrip() + "\n")
    return fn


_BINARY = """
    Parameters
    ----------
    input : Tensor
        Any dtype; nonzero (and NaN) counts as True.
    other : Tensor or number
        Broadcast against input, on input's device.
    out : Tensor, optional
        Written with the result and returned: of any dtype (True as 1, as PyTorch's),
        input's device, and the result's shape or no elements (then given it).

    Returns
    -------
    Tensor
        A bool tensor of the broadcast shape.
"""


@_binary_doc
@_logical(operator.and_, _and)
def logical_and(input, other):
    """Elementwise logical and: True where both input and other are nonzero.

    {binary}
    Examples
    --------
    >>> pydevtensor.logical_and(pydevtensor.tensor([1, 0, 2]), pydevtensor.tensor([1, 1, 0]))
    tensor([ True, False, False])
    """


@_binary_doc
@_logical(operator.or_, _or)
def logical_or(input, other):
    """Elementwise logical or: True where input or other is nonzero.

    {binary}
    Examples
    --------
    >>> pydevtensor.logical_or(pydevtensor.tensor([1, 0, 0]), pydevtensor.tensor([0, 0, 3]))
    tensor([ True, False,  True])
    """


@_binary_doc
@_logical(operator.xor, _xor)
def logical_xor(input, other):
    """Elementwise logical exclusive or: True where exactly one of input and other is
    nonzero.

    {binary}
    Examples
    --------
    >>> pydevtensor.logical_xor(pydevtensor.tensor([1, 0, 2]), pydevtensor.tensor([1, 1, 0]))
    tensor([False,  True,  True])
    """


def logical_not(input, *, out=None):
    """Elementwise logical not: True where input is zero.

    Parameters
    ----------
    input : Tensor
        Any dtype; NaN counts as True, so its not is False.
    out : Tensor, optional
        Written with the result and returned: of any dtype (True as 1, as PyTorch's),
        input's device, and input's shape or no elements (then given it).

    Returns
    -------
    Tensor
        A bool tensor of input's shape.

    Examples
    --------
    >>> pydevtensor.logical_not(pydevtensor.tensor([0.0, 1.5, -1.0]))
    tensor([ True, False, False])
    """
    if out is not None:
        return _out_written(logical_not(input), out, "logical_not", castable=True)
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"logical_not(): input must be a Tensor, got {type(input).__name__}")
    return input == 0 if input.dtype != _C.bool else input == False  # noqa: E712


def _named(label, fn, *args):
    """fn(*args), with an error of the composition's own ops (sum(), ne, mul) named
    for the op the user called too (label: "any()", "&")."""
    try:
        return fn(*args)
    except (IndexError, ValueError, RuntimeError) as e:
        raise type(e)(f"{label}: {e}") from None


def _count(input, dim, keepdim, op, nonzero):
    """How many elements are nonzero (nonzero=True) or zero, over dim.

    A bool input is counted as it is, with no mask made first (the bool sum is the
    backend's byte count: ``(s == -inf).all(-1)`` of (32, 4, 64, 64) on one CPU
    thread 0.62 -> 0.13 ms, the mask ``x != 0`` of a bool x having cost 0.54 ms);
    its zeros are the elements less its count."""
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{op}(): input must be a Tensor, got {type(input).__name__}")
    keepdim = flag(keepdim, op, "keepdim")
    if isinstance(dim, (tuple, list)) and len(dim) == 0:  # PyTorch: dim=() reduces nothing
        t = input != 0 if input.dtype != _C.bool else input
        return t.to(_C.int64) if nonzero else (t == False).to(_C.int64)  # noqa: E712
    if input.dtype == _C.bool:
        t = input
    else:
        t = input != 0 if nonzero else input == 0  # NaN is no zero: it counts as True
    if dim is not None:
        r = _named(f"{op}()", lambda: t.sum(dim=dim, keepdim=keepdim))
    else:
        r = t.sum().reshape((1,) * input.ndim) if keepdim else t.sum()
    if t is input and not nonzero:  # each result counted numel / r.numel() elements
        r = input.numel() // builtins.max(r.numel(), 1) - r
    return r


def _as_input_mask(input, r):
    """any/all's result r, as uint8 for a uint8 input (PyTorch keeps that dtype)."""
    return r.to(_C.uint8) if input.dtype == _C.uint8 else r


@numpy_names
@takes_out("any")
def any(input, dim=None, keepdim=False):
    """Whether any element is nonzero, over all of input or along dim.

    Parameters
    ----------
    input : Tensor
        Any dtype; nonzero (and NaN) counts as True.
    dim : int or tuple of ints, optional
        The dims to reduce (default: all of them); ``dim=()`` reduces none, giving
        ``input != 0``, as in PyTorch.
    keepdim : bool, optional
        Keep the reduced dims, with size 1.

    Returns
    -------
    Tensor
        A bool tensor (0-d without dim); uint8 for a uint8 input, as in PyTorch.  An
        empty input gives False.

    Examples
    --------
    >>> x = pydevtensor.tensor([[0, 0], [0, 3]])
    >>> x.any(), x.any(dim=1)
    (tensor(True), tensor([False,  True]))
    """
    return _as_input_mask(input, _count(input, dim, keepdim, "any", True) > 0)


@numpy_names
@takes_out("all")
def all(input, dim=None, keepdim=False):
    """Whether every element is nonzero, over all of input or along dim.

    Parameters
    ----------
    input : Tensor
        Any dtype; nonzero (and NaN) counts as True.
    dim : int or tuple of ints, optional
        The dims to reduce (default: all of them); ``dim=()`` reduces none, giving
        ``input != 0``, as in PyTorch.
    keepdim : bool, optional
        Keep the reduced dims, with size 1.

    Returns
    -------
    Tensor
        A bool tensor (0-d without dim); uint8 for a uint8 input, as in PyTorch.  An
        empty input gives True.

    Examples
    --------
    >>> x = pydevtensor.tensor([[1, 2], [0, 3]])
    >>> x.all(), x.all(dim=1)
    (tensor(False), tensor([ True, False]))
    """
    return _as_input_mask(input, _count(input, dim, keepdim, "all", False) == 0)


def _mask_operand(x, op, name):
    if isinstance(x, _C.Tensor):
        if x.dtype != _C.bool:
            raise _C.DTypeError(f"{op}: bitwise ops take bool or integer tensors, got {name} of "
                                f"dtype {x.dtype} on {x.device}; compare first (x > 0), or use "
                                f"logical_and / logical_or / logical_xor / logical_not")
        return x
    if isinstance(x, builtins.bool):
        return x
    return NotImplemented


def _integer_operands(a, b):
    """True when the operator is the integers' bitwise op: a non-bool, non-float tensor
    on either side (a float tensor goes to the masks' message)."""
    return builtins.any(isinstance(x, _C.Tensor) and x.dtype != _C.bool and
                        not x.dtype.is_floating_point for x in (a, b)) and \
        builtins.all(isinstance(x, (_C.Tensor, builtins.int)) for x in (a, b))


_BITWISE = {"&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor",
            "<<": "bitwise_left_shift", ">>": "bitwise_right_shift"}


def _binary(op, fn):
    kernel = getattr(_C, _BITWISE[op])

    def forward(self, other):
        if isinstance(other, _C.Tensor) and not (self.dtype.is_floating_point or
                                                 other.dtype.is_floating_point):
            return kernel(self, other)  # masks or integers: the C op (bools: and, or, xor)
        if not isinstance(other, (_C.Tensor, builtins.int)):
            return NotImplemented  # a NumPy array: its __array_ufunc__ path (_interop.py)
        if _integer_operands(self, other):
            return kernel(self, other)
        a, b = _mask_operand(self, op, "self"), _mask_operand(other, op, "other")
        return NotImplemented if b is NotImplemented else _named(op, fn, a, b)

    def reflected(self, other):
        if not isinstance(other, (_C.Tensor, builtins.int)):
            return NotImplemented
        if _integer_operands(self, other):
            return kernel(other, self)
        a, b = _mask_operand(self, op, "self"), _mask_operand(other, op, "other")
        return NotImplemented if b is NotImplemented else _named(op, fn, b, a)
    return forward, reflected


def _inplace(op, fn):
    method = _BITWISE[op[:-1]] + "_"

    def inplace(self, other):
        """self op= other: written into self (a view writes through), as in PyTorch."""
        if _integer_operands(self, other):
            return getattr(self, method)(other)
        a, b = _mask_operand(self, op, "self"), _mask_operand(other, op, "other")
        if b is NotImplemented:
            return NotImplemented
        r = _named(op, fn, a, b)
        if tuple(r.shape) != tuple(self.shape):
            raise RuntimeError(f"{op}: the result's shape {tuple(r.shape)} is not self's "
                               f"{tuple(self.shape)} (on {self.device}): self cannot grow")
        self.copy_(r)
        return self
    return inplace


def _invert(self):
    if _integer_operands(self, 0):
        return _C.bitwise_xor(self, -1)  # every bit flipped (-1 wraps to 255 in uint8)
    return logical_not(_mask_operand(self, "~", "self"))


bitwise_and = _C.bitwise_and
bitwise_or = _C.bitwise_or
bitwise_xor = _C.bitwise_xor
bitwise_left_shift = _C.bitwise_left_shift
bitwise_right_shift = _C.bitwise_right_shift


@takes_out("bitwise_not", differentiable=False)  # out of the exact dtype, as PyTorch's
def bitwise_not(input):
    """Every bit flipped: ``~input`` for an integer tensor, logical not for a bool one.

    Parameters
    ----------
    input : Tensor
        bool, uint8, int8, int16, int32 or int64.

    Returns
    -------
    Tensor
        A new tensor of input's dtype, on its device.

    Raises
    ------
    TypeError
        For a floating input (as in PyTorch).

    Examples
    --------
    >>> pydevtensor.bitwise_not(pydevtensor.tensor([0, 5, 255], dtype=pydevtensor.uint8))
    tensor([255, 250,   0], dtype=pydevtensor.uint8)
    >>> ~pydevtensor.tensor([-1, 2], dtype=pydevtensor.int8)
    tensor([ 0, -3], dtype=pydevtensor.int8)
    """
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"bitwise_not(): input must be a Tensor, got {type(input).__name__}")
    if input.dtype.is_floating_point:
        raise _C.DTypeError(f"bitwise_not(): bitwise ops take integer or bool tensors, got "
                            f"{input.dtype} (shape {tuple(input.shape)}, on {input.device})")
    return _invert(input)


def _plain(x):
    """A NumPy integer or bool scalar as the Python int or bool it holds, as PyTorch reads
    one beside a tensor (np.int64(3) & t is t's dtype, not an int64 ndarray); anything
    else as it is."""
    dtype = getattr(x, "dtype", None)
    if dtype is not None and not isinstance(x, _C.Tensor) and getattr(x, "ndim", 1) == 0 \
            and type(x).__module__ == "numpy" and dtype.kind in "iub":
        return x.item()
    return x


def _shift(op):
    """<< and >> (and their reflected and in-place forms): integers only."""
    kernel, method = getattr(_C, _BITWISE[op]), _BITWISE[op] + "_"

    def forward(self, other):
        other = _plain(other)
        return kernel(self, other) if isinstance(other, (_C.Tensor, builtins.int)) \
            else NotImplemented

    def reflected(self, other):
        other = _plain(other)
        return kernel(other, self) if isinstance(other, builtins.int) else NotImplemented

    def inplace(self, other):
        return getattr(self, method)(other)
    return forward, reflected, inplace


_SLOTS = {"&": operator.and_, "|": operator.or_, "^": operator.xor, "&=": operator.iand,
          "|=": operator.ior, "^=": operator.ixor}
_OPERATORS = {"&": _binary("&", _and), "|": _binary("|", _or), "^": _binary("^", _xor),
              "&=": _inplace("&=", _and), "|=": _inplace("|=", _or), "^=": _inplace("^=", _xor)}


def _operator_fallback(op, a, b):
    """a op b (b None for ~) for the operands Tensor's number slots leave to Python: a
    float tensor or another type on either side (Note [mask operators in C] in
    csrc/python/tensor_bitwise.c; bool and integer tensors and Python ints take the C
    op in the slot)."""
    if op == "~":
        return _invert(a)
    pa, pb = _plain(a), _plain(b)
    if pa is not a or pb is not b:  # a NumPy integer: the C op in the slot, on its number
        return _SLOTS[op](pa, pb)
    fn = _OPERATORS[op]
    if op.endswith("="):
        return fn(a, b)
    forward, reflected = fn
    return forward(a, b) if isinstance(a, _C.Tensor) else reflected(b, a)


_C._set_operator_fallback(_operator_fallback)
_C.Tensor.__lshift__, _C.Tensor.__rlshift__, _C.Tensor.__ilshift__ = _shift("<<")
_C.Tensor.__rshift__, _C.Tensor.__rrshift__, _C.Tensor.__irshift__ = _shift(">>")
_C.Tensor.bitwise_not = bitwise_not.__wrapped__  # no out=, as PyTorch's method
for _name_, _fn in (("logical_and", logical_and), ("logical_or", logical_or),
                    ("logical_xor", logical_xor), ("logical_not", logical_not),
                    ("any", any), ("all", all)):
    setattr(_C.Tensor, _name_, _fn)
# the in-place forms write the bool result in self's dtype (0 and 1 in a float self), as
# PyTorch's; bitwise_not_ refuses a float self as bitwise_not does
for _fn, _example in ((logical_and, ("pydevtensor.tensor([0.0, 3.0])", "tensor([0., 1.])")),
                      (logical_or, ("pydevtensor.tensor([0.0, 0.0])", "tensor([1., 1.])")),
                      (logical_xor, ("pydevtensor.tensor([0.0, 3.0])", "tensor([1., 0.])")),
                      (logical_not, ("", "tensor([0., 0.])"))):
    setattr(_C.Tensor, _fn.__name__ + "_", _in_place(_fn, _example))
_C.Tensor.bitwise_not_ = _in_place(bitwise_not, ("", "tensor([-2, -3])"), "[1, 2]")

__all__ = ["all", "any", "bitwise_and", "bitwise_left_shift", "bitwise_not", "bitwise_or",
           "bitwise_right_shift", "bitwise_xor", "logical_and", "logical_not", "logical_or",
           "logical_xor"]
