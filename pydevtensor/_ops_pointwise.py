"""Elementwise compositions PyTorch has as single functions: frac, signbit, sgn, lerp,
addcmul and addcdiv.

Each is the expression its docstring names (comparisons, where, arithmetic), so it runs
on every device and autograd records the pieces.
"""
import builtins

from . import _C
from ._dtype_info import can_cast
from ._ops_index import _tensor_arg, where
from ._out import _out_written, refuse_grad, takes_out
from .autograd.dispatch import _wants_grad


def _number(x):
    return isinstance(x, (builtins.int, builtins.float)) and not isinstance(x, builtins.bool)


def _floating_only(x, op, name="input"):
    if not x.is_floating_point():
        raise _C.DTypeError(f"{op}(): expected a floating point tensor, got {name} of dtype "
                            f"{x.dtype} (shape {tuple(x.shape)}, on {x.device})")
    return x


def frac(input, *, out=None):
    """The fractional part, ``input - trunc(input)``, with input's sign.

    Parameters
    ----------
    input : Tensor
        Floating point (also the method ``x.frac()``).
    out : Tensor, optional
        Written with the result and returned: of input's dtype (as PyTorch's) and
        device, and input's shape or no elements (then given it); refused where input
        requires grad.

    Returns
    -------
    Tensor
        Of input's shape and dtype; the gradient is 1 (trunc's is 0).  inf gives NaN.

    Raises
    ------
    TypeError
        For bool and integer tensors (as PyTorch's).
    RuntimeError
        For an out of another dtype, device or shape.

    Examples
    --------
    >>> pydevtensor.frac(pydevtensor.tensor([2.75, -1.25, 3.0]))
    tensor([ 0.7500, -0.2500,  0.0000])
    """
    if out is not None:
        refuse_grad("frac", input)
        return _out_written(frac(input), out, "frac")
    x = _floating_only(_tensor_arg(input, "frac"), "frac")
    return x - x.detach().trunc()


def signbit(input, *, out=None):
    """Whether the sign bit is set: True for negative numbers and -0.0.

    Parameters
    ----------
    input : Tensor
        Any dtype (also the method ``x.signbit()``).
    out : Tensor, optional
        Written with the result and returned: bool (as PyTorch's), input's device, and
        input's shape or no elements (then given it).

    Returns
    -------
    Tensor
        A bool tensor of input's shape.  The bit itself, read through an integer view
        of the same memory: a NaN with its sign bit set (``-nan``) gives True, as
        PyTorch's and NumPy's.

    Examples
    --------
    >>> pydevtensor.signbit(pydevtensor.tensor([-1.0, -0.0, 0.0, 2.0, -float('nan')]))
    tensor([ True,  True, False, False,  True])
    """
    if out is not None:  # no gradient: a grad-requiring input is allowed
        return _out_written(signbit(input), out, "signbit")
    if type(input) is _C.Tensor:
        fast = _C._classify(input, 3)  # one pass from the bits, where the device has it
        if fast is not None:
            return fast
    x = _tensor_arg(input, "signbit")
    if x.dtype == _C.bool:
        return _C.zeros(tuple(x.shape), dtype=_C.bool, device=x.device)
    if not x.is_floating_point():
        return x < 0
    # elsewhere the sign bit is the integer of the same width's: one pass, on any device,
    # -0.0 and -nan included, as the CPU kernel reads it
    return x.detach().view(_BITS[x.element_size()]) < 0


_BITS = {8: _C.int64, 4: _C.int32, 2: _C.int16}  # a float's width -> its bits' integer


def sgn(input, *, out=None):
    """The sign of each element, ``x / abs(x)`` (0 at 0): for real tensors ``sign``.

    Parameters
    ----------
    input : Tensor
        Any dtype (also the method ``x.sgn()``).
    out : Tensor, optional
        Written with the result and returned: of input's dtype (as PyTorch's) and
        device, and input's shape or no elements (then given it); refused where input
        requires grad.

    Returns
    -------
    Tensor
        Of input's shape and dtype: -1, 0 or 1 (NaN for NaN); its gradient is 0.
        NaN stays NaN deliberately (NumPy's; PyTorch 2.15 gives 0, hiding the NaN).

    Examples
    --------
    >>> pydevtensor.sgn(pydevtensor.tensor([-2.5, 0.0, 3.0]))
    tensor([-1.,  0.,  1.])
    """
    if out is not None:
        refuse_grad("sgn", input)
        return _out_written(sgn(input), out, "sgn")
    return _tensor_arg(input, "sgn").sign()


@takes_out("lerp", castable=True)
def lerp(input, end, weight):
    """Linear interpolation, ``input + weight * (end - input)``; where abs(weight) >= 0.5
    it is computed as ``end - (end - input) * (1 - weight)``, so weight 1 gives end
    exactly (PyTorch's formula).

    Parameters
    ----------
    input : Tensor
        The start, floating point (also the method ``x.lerp(end, weight)``).
    end : Tensor
        The end, of input's dtype, broadcast against it.
    weight : float, bool or Tensor
        The weight (a bool as 0.0 or 1.0, as PyTorch's); a tensor of input's dtype,
        broadcast against the others, or a 0-d tensor of any dtype (cast to input's, as
        a number would be).

    Returns
    -------
    Tensor
        Of the broadcast shape; gradients flow to input, end and a tensor weight.

    Raises
    ------
    TypeError
        For integer tensors, or when end or a weight of 1 or more dimensions has another
        dtype than input.

    Examples
    --------
    >>> a, b = pydevtensor.tensor([0.0, 10.0]), pydevtensor.tensor([10.0, 20.0])
    >>> pydevtensor.lerp(a, b, 0.25)
    tensor([ 2.5000, 12.5000])
    >>> a.lerp(b, pydevtensor.tensor([0.0, 1.0]))
    tensor([ 0., 20.])
    """
    start = _floating_only(_tensor_arg(input, "lerp"), "lerp")
    end = _tensor_arg(end, "lerp", "end")
    others = [("end", end)]
    if isinstance(weight, _C.Tensor):
        if weight.ndim == 0 and weight.dtype != start.dtype:
            # a 0-d weight takes no part in the dtype, as PyTorch's: cast to input's
            weight = weight.to(start.dtype)
        others.append(("weight", weight))
    elif not (_number(weight) or isinstance(weight, builtins.bool)):  # True: 1.0
        raise TypeError(f"lerp(): argument 'weight' must be a number or a Tensor, got "
                        f"{type(weight).__name__}")
    for name, t in others:
        if t.dtype != start.dtype:
            raise _C.DTypeError(f"lerp(): expected {name} of input's dtype {start.dtype}, got "
                                f"{t.dtype} (shape {tuple(t.shape)}, on {t.device})")
        if t.device != start.device:
            raise _C.DeviceError(f"lerp(): Expected all tensors to be on the same device, but "
                                 f"found at least two devices, {start.device} and {t.device} "
                                 f"({name})")
    half = start.dtype in (_C.float16, _C.bfloat16)
    if half:  # computed in float32 and rounded once, as PyTorch's kernel does
        start, end = start.float(), end.float()
        weight = weight.float() if isinstance(weight, _C.Tensor) else weight
        return lerp(start, end, weight).to(input.dtype)
    # Note [lerp's layout]: with rev = start - end (exactly -(end - start)), start +
    # w * (end - start) is start - w * rev and end - (end - start) * (1 - w) is
    # rev * (1 - w) + end, bit for bit; start (or rev) comes first in each op, so the
    # result takes input's layout, as PyTorch's (the elementwise ops follow their first
    # operand).  where follows its condition, weight's layout: copied to low's if not.
    rev = start - end
    if not isinstance(weight, _C.Tensor):
        weight = float(weight)
        return start - weight * rev if abs(weight) < 0.5 else rev * (1.0 - weight) + end
    low = start - weight * rev
    out = where(weight.detach().abs() < 0.5, low, rev * (1.0 - weight) + end)
    if out.shape == low.shape and out.stride() != low.stride():
        out = _C.empty_like(low).copy_(out)
    return out


def _addc(op, input, tensor1, tensor2, value, combine):
    for name, t in (("input", input), ("tensor1", tensor1), ("tensor2", tensor2)):
        _tensor_arg(t, op, name)
    if isinstance(value, _C.Tensor) or not (_number(value) or isinstance(value, builtins.bool)):
        raise TypeError(f"{op}(): value must be a number, got {type(value).__name__}")
    devices = {t.device for t in (input, tensor1, tensor2)}
    if len(devices) > 1:
        raise _C.DeviceError(f"{op}(): Expected all tensors to be on the same device, but found "
                             f"at least two devices, {', '.join(sorted(map(str, devices)))}")
    # the three promote at once, as PyTorch's: a pair first would lift the third (a 0-d
    # float64 beside float32 tensors) or compute in a narrower type (float16 / int32)
    from ._dtype_info import _result_type_of, iinfo
    dt = _result_type_of((input, "input"), (tensor1, "tensor1"), (tensor2, "tensor2"))
    if op == "addcdiv" and not (tensor1.is_floating_point() or tensor2.is_floating_point()):
        dt = None  # integer division: combine refuses it, as PyTorch does
    if dt is not None:
        input, tensor1, tensor2 = (t if t.dtype == dt else t.to(dt)
                                   for t in (input, tensor1, tensor2))
    if dt is not None and not dt.is_floating_point and isinstance(value, float):
        # PyTorch truncates a fractional value silently (1.5 acts as 1)
        if not value.is_integer():
            raise RuntimeError(f"{op}(): value must be an integer for {dt} tensors (on "
                               f"{input.device}), got {value!r}; convert the tensors to a "
                               f"floating dtype to scale by a fraction")
        value = int(value)
    if dt is not None and not dt.is_floating_point and dt != _C.bool and \
            not isinstance(value, builtins.bool):
        info = iinfo(dt)  # PyTorch refuses a value outside the dtype (the ops wrap it)
        if not info.min <= value <= info.max:
            raise _C.InvalidArgumentError(
                f"{op}(): value={value} cannot be converted to {dt} without overflow (on "
                f"{input.device})")
    # PyTorch's kernel: input + (value * tensor1) op tensor2, a half dtype computed in
    # float32 and rounded once, value as given (Note [scalars meeting halves])
    half = dt in (_C.float16, _C.bfloat16)
    if half:
        input, tensor1, tensor2 = input.float(), tensor1.float(), tensor2.float()
    result = input + combine(tensor1 if value == 1 else value * tensor1, tensor2)
    return result.to(dt) if half else result


@takes_out("addcmul", castable=True)
def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2``, broadcast together.

    Parameters
    ----------
    input : Tensor
        The addend (also the method ``x.addcmul(t1, t2)``).
    tensor1, tensor2 : Tensor
        The factors.
    value : number, optional
        The multiplier (default 1); a whole number for integer tensors.

    Returns
    -------
    Tensor
        Of the broadcast shape and the promoted dtype.

    Raises
    ------
    RuntimeError
        For a fractional value with integer tensors (PyTorch truncates it).

    Examples
    --------
    >>> x = pydevtensor.tensor([1.0, 2.0])
    >>> pydevtensor.addcmul(x, pydevtensor.tensor([3.0, 4.0]), pydevtensor.tensor([2.0, 0.5]),
    ...                     value=0.5)
    tensor([4., 3.])
    """
    return _addc("addcmul", input, tensor1, tensor2, value, lambda a, b: a * b)


@takes_out("addcdiv", castable=True)
def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2``, broadcast together (true division).

    Parameters
    ----------
    input : Tensor
        The addend (also the method ``x.addcdiv(t1, t2)``).
    tensor1, tensor2 : Tensor
        The numerator and the denominator; not both integer (PyTorch refuses integer
        division here).
    value : number, optional
        The multiplier (default 1).

    Returns
    -------
    Tensor
        Of the broadcast shape and the promoted dtype.

    Raises
    ------
    RuntimeError
        When tensor1 and tensor2 are both bool or integer tensors.

    Examples
    --------
    >>> x = pydevtensor.tensor([1.0, 2.0])
    >>> x.addcdiv(pydevtensor.tensor([3.0, 4.0]), pydevtensor.tensor([2.0, 8.0]), value=2)
    tensor([4., 3.])
    """
    def divide(a, b):
        if not a.is_floating_point() and not b.is_floating_point():
            raise RuntimeError(f"addcdiv(): integer division is not supported: tensor1 is "
                               f"{a.dtype} and tensor2 {b.dtype} (on {a.device}); convert "
                               f"one to a floating dtype")
        return a / b
    return _addc("addcdiv", input, tensor1, tensor2, value, divide)


def _in_place(fn, example=None, values="[1.0, 2.0]"):
    """Tensor.<fn>_: self takes fn(self, ...) (a view writes through), as in PyTorch; the
    result must keep self's shape, and be of a dtype that casts to self's (can_cast: no
    floating result into an integer self, nothing but bool into a bool self).  example:
    (the arguments after self, the result) for the docstring's example on
    ``x = tensor(values)`` (default: _EXAMPLE_ARGS and _EXAMPLE_RESULTS)."""
    name = fn.__name__ + "_"
    args, result = example or (_EXAMPLE_ARGS[fn.__name__], _EXAMPLE_RESULTS[fn.__name__])

    def method(self, *args, **kwargs):
        from .amp._state import plain
        # a recorded fn may save its input: it reads a copy of self's old value then, so
        # that writing the result into self does not change what the node saved
        src = self.clone() if _wants_grad((self,) + args, kwargs) else self
        out = plain(fn, src, *args, **kwargs)  # no autocast in place, as PyTorch's
        if tuple(out.shape) != tuple(self.shape):
            raise RuntimeError(f"{name}(): the result's shape {tuple(out.shape)} is not "
                               f"self's {tuple(self.shape)} (on {self.device}): self cannot "
                               f"grow")
        if out.dtype != self.dtype and not can_cast(out.dtype, self.dtype):
            raise RuntimeError(f"{name}(): result type {out.dtype} can't be cast to the "
                               f"desired output type {self.dtype} (on {self.device})")
        self.copy_(out)
        return self

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"""In-place ``{fn.__name__}``: self takes ``{fn.__name__}(self, ...)``.

        Parameters
        ----------
        *args, **kwargs
            As for ``pydevtensor.{fn.__name__}`` after its input.

        Returns
        -------
        Tensor
            self.

        Examples
        --------
        >>> x = pydevtensor.tensor({values})
        >>> x.{name}({args})
        {result}
        """
    return method


_EXAMPLE_ARGS = {"frac": "", "lerp": "pydevtensor.tensor([3.0, 4.0]), 0.5",
                 "addcmul": "x, x, value=2", "addcdiv": "x, x, value=2"}
_EXAMPLE_RESULTS = {"frac": "tensor([0., 0.])", "lerp": "tensor([2., 3.])",
                    "addcmul": "tensor([ 3., 10.])", "addcdiv": "tensor([3., 4.])"}

for _name_, _fn in (("frac", frac), ("signbit", signbit), ("sgn", sgn), ("lerp", lerp),
                    ("addcmul", addcmul), ("addcdiv", addcdiv)):
    setattr(_C.Tensor, _name_, _fn)
for _fn in (frac, lerp, addcmul, addcdiv):
    setattr(_C.Tensor, _fn.__name__ + "_", _in_place(_fn))
_C.Tensor.sgn_ = _in_place(sgn, ("", "tensor([1., 1.])"))

__all__ = ["addcdiv", "addcmul", "frac", "lerp", "sgn", "signbit"]
