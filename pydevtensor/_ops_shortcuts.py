"""PyTorch's shortcuts that are one composition each: square, reciprocal, rand_like,
randn_like, randperm, is_tensor, is_nonzero, numel, clone (the function), and the methods
view_as, reshape_as and type_as.

Each is the expression its docstring names, so it runs on every device, autograd records
the pieces (square's gradient is 2x; reciprocal is recorded itself, its gradient
-1/x^2 from the result as PyTorch's), and its rounding is that of
the expression: ``square(x)`` is ``x * x``, ``reciprocal(x)`` is ``1 / x`` (true
division, so integer inputs give floats, as in PyTorch).
"""
from . import _C
from ._args import flag
from .autograd.dispatch import recorded
from ._out import _out_written, refuse_grad


def _tensor(x, op, name="input"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{op}(): {name} must be a Tensor, got {type(x).__name__}")
    return x


def square(input, *, out=None):
    """The elementwise square, ``input * input``.

    Parameters
    ----------
    input : Tensor
        Any numeric dtype (also the method ``x.square()``).
    out : Tensor, optional
        Written with the result and returned: of any dtype the result's can be cast to
        (as PyTorch's; DTypeError otherwise), input's device, and its shape or no
        elements (then given input's shape); refused where input requires grad.

    Returns
    -------
    Tensor
        Of input's shape, dtype and device.

    Examples
    --------
    >>> pydevtensor.square(pydevtensor.tensor([-2.0, 0.5, 3.0]))
    tensor([4.0000, 0.2500, 9.0000])
    """
    if out is not None:
        refuse_grad("square", input)
        return _out_written(square(input), out, "square", castable=True)
    x = _tensor(input, "square")
    if x.dtype == _C.bool:  # PyTorch's pow(x, 2): a bool squares to int64
        x = x.to(_C.int64)
    return x * x


def reciprocal(input, *, out=None):
    """The elementwise reciprocal, ``1 / input`` (true division: integer inputs give
    the default float dtype).

    Parameters
    ----------
    input : Tensor
        Any numeric dtype (also the method ``x.reciprocal()``).
    out : Tensor, optional
        Written with the result and returned: of any dtype the result's can be cast to
        (as PyTorch's; DTypeError otherwise), input's device, and its shape or no
        elements (then given input's shape); refused where input requires grad.

    Returns
    -------
    Tensor
        Of input's shape, on its device; 1/0 is inf, as in IEEE arithmetic.

    Examples
    --------
    >>> pydevtensor.reciprocal(pydevtensor.tensor([2.0, -4.0, 0.0]))
    tensor([ 0.5000, -0.2500,     inf])
    """
    if out is not None:
        refuse_grad("reciprocal", input)
        return _out_written(reciprocal(input), out, "reciprocal", castable=True)
    return _reciprocal(_tensor(input, "reciprocal"))


@recorded("reciprocal")  # ReciprocalBackward0, from the result as PyTorch's: not div's
def _reciprocal(x):
    return 1 / x


def _random_like(fn, input, dtype, device, requires_grad, op, memory_format=None, **more):
    x = _tensor(input, op)
    requires_grad = flag(requires_grad, op, "requires_grad")
    r = fn(tuple(x.shape), dtype=x.dtype if dtype is None else dtype,
           device=x.device if device is None else device, requires_grad=requires_grad, **more)
    return _laid_out_like(r, x, memory_format, requires_grad)


def _laid_out_like(r, x, memory_format, requires_grad):
    """r (a new row-major draw of x's shape) in the layout memory_format asks of a
    result like x (empty_like's rule: preserve_format keeps x's memory order); the
    values stay those of the row-major draw, so the numbers do not depend on layout."""
    if memory_format is None and x.is_contiguous():
        return r  # the common case: nothing to lay out
    out = _C.empty_like(x, dtype=r.dtype, device=r.device, memory_format=memory_format)
    if out.is_contiguous():
        return r
    out.copy_(r.detach())
    return out.requires_grad_() if requires_grad else out


_LIKE = """
    Parameters
    ----------
    input : Tensor
        Gives the shape, and the dtype and device unless given.
    generator : Generator, optional
        The stream to draw from (default: the default generator of the result's device).
    dtype : pydevtensor.dtype, optional
        A floating dtype (default: input's).
    device : str or pydevtensor.device, optional
        Where the result lives (default: input's device).
    requires_grad : bool, optional
        Whether autograd records operations on the result.
    memory_format : pydevtensor.memory_format, optional
        The layout, as empty_like's (default preserve_format: input's memory order).
        The values do not depend on it.
"""


def _like_doc(fn):
    """fn's docstring with the Parameters that rand_like and randn_like share."""
    if fn.__doc__ is not None:  # None under python -OO
        fn.__doc__ = fn.__doc__.replace("{like}", _LIKE.strip("\n").lstrip())
    return fn


@_like_doc
def rand_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
              memory_format=None):
    """Uniform random numbers in [0, 1), in input's shape: ``rand(input.shape, ...)``.

    {like}

    Returns
    -------
    Tensor
        A new tensor, drawn as rand() draws (the same numbers on every device).

    Examples
    --------
    >>> _ = pydevtensor.manual_seed(0)
    >>> pydevtensor.rand_like(pydevtensor.zeros(2, 3)).shape
    pydevtensor.Size([2, 3])
    """
    return _random_like(_C.rand, input, dtype, device, requires_grad, "rand_like",
                        memory_format, generator=generator)


@_like_doc
def randn_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
               memory_format=None):
    """Standard normal random numbers in input's shape: ``randn(input.shape, ...)``.

    {like}

    Returns
    -------
    Tensor
        A new tensor, drawn as randn() draws (the same numbers on every device).

    Examples
    --------
    >>> _ = pydevtensor.manual_seed(0)
    >>> pydevtensor.randn_like(pydevtensor.zeros(4), dtype=pydevtensor.float64).dtype
    pydevtensor.float64
    """
    return _random_like(_C.randn, input, dtype, device, requires_grad, "randn_like",
                        memory_format, generator=generator)


def randperm(n, *, generator=None, out=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of 0 .. n-1: the order that sorts n uniform float64 draws
    (``argsort(rand(n, dtype=float64))``), so the same permutation on every device for
    one seed; ties, which would need two equal 53-bit draws, keep index order.

    Parameters
    ----------
    n : int
        How many (>= 0); a one-element integer tensor is taken as its value.
    generator : Generator, optional
        The stream to draw from (default: the default generator).
    dtype : pydevtensor.dtype, optional
        int64 (default), another integer dtype, or a floating one (as PyTorch's), which
        must hold n - 1 exactly.
    device : str or pydevtensor.device, optional
        Where the result lives (default: pydevtensor.get_default_device()).
    requires_grad : bool, optional
        Only with a floating dtype (the result is then a leaf that requires grad).
    out : Tensor, optional
        Written with the permutation and returned: its dtype is the result's (a dtype=
        that differs is refused, as PyTorch's), its device too unless device= is given;
        one with no elements takes the shape (n,).

    Returns
    -------
    Tensor
        1-D, of size n.

    Examples
    --------
    >>> _ = pydevtensor.manual_seed(0)
    >>> sorted(pydevtensor.randperm(5).tolist())
    [0, 1, 2, 3, 4]
    """
    from ._ops_index import _int_arg

    requires_grad = flag(requires_grad, "randperm", "requires_grad")
    if out is not None:
        if not isinstance(out, _C.Tensor):
            raise TypeError(f"randperm(): out must be a Tensor, got {type(out).__name__}")
        if dtype is not None and dtype != out.dtype:
            raise _C.DTypeError(f"randperm(): dtype {dtype} does not match the dtype of out "
                                f"({out.dtype}, on {out.device})")
        result = randperm(n, generator=generator, dtype=out.dtype,
                          device=out.device if device is None else device)
        return _out_written(result, out, "randperm")
    n = _int_arg(n, "randperm", "n")  # also a one-element integer tensor, as PyTorch's
    if n < 0:
        raise _C.InvalidArgumentError(f"randperm(): n must be non-negative, got {n}")
    if dtype not in (None, _C.int64, _C.int32, _C.int16, _C.uint8, _C.int8, _C.float64,
                     _C.float32, _C.float16, _C.bfloat16):
        raise _C.DTypeError(f"randperm(): dtype must be an integer or floating dtype, got "
                            f"{dtype}")
    if requires_grad and (dtype is None or not dtype.is_floating_point):
        raise RuntimeError("randperm(): only floating-point tensors can require gradients")
    if dtype is not None and dtype != _C.int64 and n > 1 and n - 1 > _exact_max(dtype):
        raise _C.InvalidArgumentError(f"randperm(): n is too large for result tensor type: "
                                      f"'{dtype}' holds the integers up to "
                                      f"{_exact_max(dtype)} exactly, got n={n}")
    order = _C.rand(n, dtype=_C.float64, device=device, generator=generator).argsort()
    order = order if dtype in (None, _C.int64) else order.to(dtype)
    return order.requires_grad_() if requires_grad else order


def _exact_max(dtype):
    """The largest integer each integer up to which dtype holds exactly."""
    from ._dtype_info import finfo, iinfo
    if dtype.is_floating_point:
        return int(2 / finfo(dtype).eps)  # 2 ** (mantissa bits + 1)
    return iinfo(dtype).max


def is_tensor(obj):
    """Whether obj is a pydevtensor Tensor (or a subclass, such as nn.Parameter).

    Parameters
    ----------
    obj : object
        Anything.

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.is_tensor(pydevtensor.ones(2)), pydevtensor.is_tensor([1.0])
    (True, False)
    """
    return isinstance(obj, _C.Tensor)


def numel(input):
    """The number of elements of input: ``input.numel()``.

    Parameters
    ----------
    input : Tensor
        Any tensor.

    Returns
    -------
    int

    Examples
    --------
    >>> pydevtensor.numel(pydevtensor.zeros(2, 3, 4))
    24
    """
    return _tensor(input, "numel").numel()


def is_nonzero(input):
    """Whether the one element of input is not zero (PyTorch's ``torch.is_nonzero``):
    ``bool(input)`` for a tensor of exactly one element, of any shape.

    Parameters
    ----------
    input : Tensor
        A tensor of one element.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        When input is not a Tensor.
    RuntimeError
        When input has no element or more than one.

    Examples
    --------
    >>> pydevtensor.is_nonzero(pydevtensor.tensor([[3]])), pydevtensor.is_nonzero(
    ...     pydevtensor.tensor(0.0))
    (True, False)
    """
    n = _tensor(input, "is_nonzero").numel()
    if n != 1:
        what = "no values" if n == 0 else "more than one value"
        raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous (is_nonzero of "
                           f"a tensor of shape {tuple(input.shape)} on {input.device})")
    return bool(input.item())


def view_as(self, other):
    """A view of self with other's shape: ``self.view(other.shape)``.

    Parameters
    ----------
    other : Tensor
        Gives the shape.

    Returns
    -------
    Tensor
        A view sharing self's storage.

    Examples
    --------
    >>> pydevtensor.arange(6).view_as(pydevtensor.zeros(2, 3))
    tensor([[0, 1, 2],
            [3, 4, 5]])
    """
    return self.view(tuple(_tensor(other, "view_as", "other").shape))


def reshape_as(self, other):
    """self with other's shape: ``self.reshape(other.shape)`` (a view when it can be).

    Parameters
    ----------
    other : Tensor
        Gives the shape.

    Returns
    -------
    Tensor
        A view, or a copy where no view has that shape.

    Examples
    --------
    >>> pydevtensor.arange(6).reshape_as(pydevtensor.zeros(3, 2)).shape
    pydevtensor.Size([3, 2])
    """
    return self.reshape(tuple(_tensor(other, "reshape_as", "other").shape))


def type_as(self, other):
    """self converted to other's dtype: ``self.to(other.dtype)`` (self when it has it).

    Parameters
    ----------
    other : Tensor
        Gives the dtype.

    Returns
    -------
    Tensor
        On self's device, of other's dtype.

    Examples
    --------
    >>> pydevtensor.tensor([1, 2]).type_as(pydevtensor.zeros(1))
    tensor([1., 2.])
    """
    return self.to(_tensor(other, "type_as", "other").dtype)


def _floating(x):
    """x, or x in the default dtype when it is a bool or integer tensor (as exp gives them)."""
    return x if x.is_floating_point() else x.to(_C._get_default_dtype())


def clone(input, *, memory_format=None):
    """A copy of input on its device, ``input.clone()`` as a function (torch.clone);
    autograd records it (the gradient passes through).

    Parameters
    ----------
    input : Tensor
        The tensor to copy.
    memory_format : pydevtensor.memory_format, optional
        None and preserve_format keep input's layout (a transposed input gives a
        transposed copy, as ``x.clone()``); contiguous_format gives a row-major copy,
        channels_last (4-d) and channels_last_3d (5-d) a channels-last one.  Their
        names as strings ('contiguous_format', ...) are accepted too.

    Returns
    -------
    Tensor
        A new tensor with input's values, dtype and device.

    Raises
    ------
    TypeError
        When input is not a Tensor, or memory_format not a memory format.
    ValueError
        (InvalidArgumentError, also a RuntimeError) for channels_last of a tensor
        not 4-d (channels_last_3d: not 5-d).

    Examples
    --------
    >>> x = pydevtensor.tensor([1.0, 2.0])
    >>> y = pydevtensor.clone(x)
    >>> y.add_(1.0), x
    (tensor([2., 3.]), tensor([1., 2.]))
    >>> pydevtensor.clone(pydevtensor.ones(1, 2, 2, 2),
    ...                   memory_format=pydevtensor.channels_last).stride()
    (8, 1, 4, 2)
    """
    return _tensor(input, "clone").clone(memory_format=memory_format)


for _name_, _fn in (("square", square), ("reciprocal", reciprocal), ("view_as", view_as),
                    ("is_nonzero", is_nonzero),
                    ("reshape_as", reshape_as), ("type_as", type_as)):
    setattr(_C.Tensor, _name_, _fn)

__all__ = ["clone", "is_nonzero", "is_tensor", "numel", "rand_like", "randn_like", "randperm", "reciprocal",
           "square"]
