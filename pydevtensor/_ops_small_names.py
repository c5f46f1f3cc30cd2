"""Smaller names PyTorch code uses, each a few lines over existing ops: is_floating_point,
cosine_similarity, randint_like, unravel_index and empty_strided at the top level; the
Tensor's is_cpu, is_signed(), cov() and corrcoef(), and the in-place forms triu_, tril_,
reciprocal_, square_, cumsum_ and the comparisons eq_, ne_, lt_, le_, gt_, ge_.

Note [in-place by copy]: an in-place form here computes the out-of-place result and
copies it into self, refusing a result dtype that self cannot hold (as PyTorch's
can_cast: x.reciprocal_() of an int64 x raises, x.eq_(y) writes 0 and 1 in x's dtype).
When autograd records, the op reads a clone, so the value it saves is not the one the
copy overwrites.
"""
import builtins

from . import _C, _args
from ._args import flag
from ._dtype_info import can_cast
from ._ops_cov import corrcoef, cov
from ._ops_index import _int_arg, _tensor_arg
from .autograd.dispatch import _wants_grad


def is_floating_point(input):
    """Whether input's dtype is a floating one (float16, bfloat16, float32, float64).

    Parameters
    ----------
    input : Tensor
        Any tensor.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        When input is not a Tensor.

    Examples
    --------
    >>> pydevtensor.is_floating_point(pydevtensor.ones(2)), pydevtensor.is_floating_point(
    ...     pydevtensor.arange(2))
    (True, False)
    """
    return _tensor_arg(input, "is_floating_point").is_floating_point()


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``nn.functional.cosine_similarity`` under its top-level name, as PyTorch has both.

    Parameters
    ----------
    x1, x2 : Tensor
        Broadcast together.
    dim : int, optional
        The dimension of the vectors (default 1).
    eps : float, optional
        The smallest norm divided by (default 1e-8).

    Returns
    -------
    Tensor
        The broadcast shape without dim.

    Examples
    --------
    >>> pydevtensor.cosine_similarity(pydevtensor.tensor([[1., 0.]]),
    ...                               pydevtensor.tensor([[1., 1.]]))
    tensor([0.7071])
    """
    from .nn import functional
    return functional.cosine_similarity(x1, x2, dim=dim, eps=eps)


def randint_like(input, low=None, high=None, *, dtype=None, device=None, requires_grad=False,
                 generator=None, memory_format=None):
    """Integers drawn uniformly from [low, high) in input's shape (its dtype and device
    unless given), as PyTorch's: ``randint_like(x, 10)`` is [0, 10), ``randint_like(x, 2,
    10)`` is [2, 10).

    Parameters
    ----------
    input : Tensor
        Gives the shape, and the dtype and device by default.
    low : int, optional
        The lowest value (default 0); with a single bound given, that bound is high.
    high : int
        One past the highest value.
    dtype, device : optional
        Override input's.
    requires_grad : bool, optional
        For a floating dtype.
    generator : pydevtensor.Generator, optional
        Where the numbers come from.
    memory_format : pydevtensor.memory_format, optional
        The layout, as empty_like's (default: input's memory order).

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        When input is not a Tensor or no bound is given.

    Examples
    --------
    >>> x = pydevtensor.randint_like(pydevtensor.zeros(2, 3), 5)
    >>> x.shape, x.dtype, bool(((x >= 0) & (x < 5)).all())
    (pydevtensor.Size([2, 3]), pydevtensor.float32, True)
    """
    _tensor_arg(input, "randint_like")
    requires_grad = flag(requires_grad, "randint_like", "requires_grad")
    if low is None and high is None:
        raise TypeError(f"randint_like(): no bound given: randint_like(input, high) or "
                        f"randint_like(input, low, high) (input: shape {list(input.shape)}, "
                        f"{input.dtype}, {input.device})")
    if high is None:
        low, high = 0, low
    elif low is None:
        low = 0
    from ._ops_shortcuts import _laid_out_like

    r = _C.randint(low, high, tuple(input.shape), dtype=input.dtype if dtype is None else dtype,
                   device=input.device if device is None else device,
                   requires_grad=requires_grad, generator=generator)
    return _laid_out_like(r, input, memory_format, requires_grad)


def unravel_index(indices, shape):
    """The coordinates of flat (row-major) indices into a tensor of shape, as PyTorch's
    and NumPy's unravel_index: a tuple of int64 tensors, one per dimension.

    Parameters
    ----------
    indices : Tensor or int
        Integer flat indices in [-numel, numel).
    shape : int or sequence of int
        The shape they index.

    Returns
    -------
    tuple of Tensor
        Each of indices' shape.

    Raises
    ------
    TypeError
        When indices is not an integer tensor or number.
    ValueError
        When a size is negative.
    IndexError
        When an index is out of range (checked for CPU tensors, where it is free).

    Examples
    --------
    >>> pydevtensor.unravel_index(pydevtensor.tensor([4, 5]), (2, 3))
    (tensor([1, 1]), tensor([1, 2]))
    """
    if not isinstance(indices, _C.Tensor):
        indices = _C.tensor(_int_arg(indices, "unravel_index", "indices"))
    if indices.is_floating_point() or indices.dtype == _C.bool:
        raise TypeError(f"unravel_index(): expected 'indices' to be an integer tensor, got "
                        f"{indices.dtype}")
    dims = (shape,) if isinstance(shape, builtins.int) else tuple(shape)
    dims = tuple(_int_arg(d, "unravel_index", "shape") for d in dims)
    if any(d < 0 for d in dims):
        raise ValueError(f"unravel_index(): 'shape' cannot have negative values, got {dims}")
    numel = 1
    for d in dims:
        numel *= d
    flat = indices.to(_C.int64)
    if flat.device.type == "cpu" and flat.numel() and (
            builtins.bool(((flat >= numel) | (flat < -numel)).any())):
        raise IndexError(f"unravel_index(): 'indices' must be in the range [{-numel}, "
                         f"{numel}) for the shape {dims}")
    flat = _C.remainder(flat, numel) if numel else flat
    coords = []
    for d in reversed(dims):
        coords.append(_C.remainder(flat, d) if d else flat * 0)
        flat = _C.floor_divide(flat, d) if d else flat
    return tuple(reversed(coords))


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False,
                  pin_memory=False):
    """An uninitialised tensor with the given size and strides (in elements), over just
    enough memory, as PyTorch's.

    Parameters
    ----------
    size, stride : sequence of int
        One stride per size, non-negative.
    dtype, device : optional
        As empty()'s.
    requires_grad : bool, optional
        For a floating dtype.
    pin_memory : bool, optional
        Page-locked host memory.

    Returns
    -------
    Tensor

    Raises
    ------
    ValueError
        When size and stride differ in length or hold a negative number.

    Examples
    --------
    >>> pydevtensor.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    requires_grad = flag(requires_grad, "empty_strided", "requires_grad")
    size = tuple(_int_arg(s, "empty_strided", "size") for s in size)
    stride = tuple(_int_arg(s, "empty_strided", "stride") for s in stride)
    if len(size) != len(stride) or any(v < 0 for v in size + stride):
        raise ValueError(f"empty_strided(): size {size} and stride {stride} must be of one "
                         f"length and non-negative")
    extent = 0 if 0 in size else 1 + builtins.sum((n - 1) * s for n, s in zip(size, stride))
    base = _C.empty(extent, dtype=dtype, device=device, pin_memory=pin_memory)
    out = base.as_strided(size, stride)
    return out.requires_grad_() if requires_grad else out


def _in_place(name, fn, doc_arg, doc_example):
    """Tensor.<name>: fn's result copied into self (Note [in-place by copy])."""
    def method(self, *args, **kwargs):
        src = self.clone() if _wants_grad((self,) + args, kwargs) else self
        out = fn(src, *args, **kwargs)
        if out is NotImplemented:  # a comparison's other of no type it takes
            raise TypeError(f"{name}(): argument 'other' must be a Tensor or a number, got "
                            f"{type((args or tuple(kwargs.values()) or (None,))[0]).__name__}")
        if out.dtype != self.dtype and not can_cast(out.dtype, self.dtype):
            raise RuntimeError(f"{name}(): result type {out.dtype} can't be cast to the "
                               f"desired output type {self.dtype} (shape "
                               f"{tuple(self.shape)}, on {self.device})")
        if out.shape != self.shape:  # PyTorch's words; copy_ would refuse it too
            raise RuntimeError(f"{name}(): output with shape {tuple(self.shape)} doesn't "
                               f"match the broadcast shape {tuple(out.shape)} (on "
                               f"{self.device})")
        return self.copy_(out)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"""{name[:-1]} in place (the result is written into self).

    Parameters
    ----------
    *args
        As {name[:-1]}'s{doc_arg}.

    Returns
    -------
    Tensor
        self.

    Examples
    --------
    {doc_example}
    """
    return method


def _cmp_example(name):
    want = {"eq_": "1., 0.", "ne_": "0., 1.", "lt_": "0., 1.", "le_": "1., 1.",
            "gt_": "0., 0.", "ge_": "1., 0."}[name]
    return (f">>> pydevtensor.tensor([1., 2.]).{name}(pydevtensor.tensor([1., 3.]))\n"
            f"    tensor([{want}])")


def _scan_in_place(scan, name):
    """scan (Tensor.cumsum or cumprod) for Tensor.<name>: a dtype= other than self's is
    PyTorch's 'Bad in-place call' (it scanned in dtype and cast back: a float self with
    dtype=int64 summed its truncated values)."""
    def fn(x, dim, *, dtype=None):
        dtype = _args.dtype(dtype, name)
        if dtype is not None and dtype != x.dtype:
            raise RuntimeError(f"{name}(): Bad in-place call: input tensor dtype {x.dtype} "
                               f"and output tensor dtype {dtype} should match (shape "
                               f"{tuple(x.shape)}, on {x.device})")
        return scan(x, dim)
    return fn


_IN_PLACE = {
    "triu_": (_C.Tensor.triu, " (diagonal, default 0)",
              ">>> pydevtensor.ones(2, 2).triu_()\n    tensor([[1., 1.],\n            [0., 1.]])"),
    "tril_": (_C.Tensor.tril, " (diagonal, default 0)",
              ">>> pydevtensor.ones(2, 2).tril_()\n    tensor([[1., 0.],\n            [1., 1.]])"),
    "reciprocal_": (lambda x: 1 / x, "", ">>> pydevtensor.tensor([2., 4.]).reciprocal_()\n"
                    "    tensor([0.5000, 0.2500])"),
    "square_": (lambda x: x.square(), "", ">>> pydevtensor.tensor([2., 3.]).square_()\n"
                "    tensor([4., 9.])"),
    "cumsum_": (_scan_in_place(_C.Tensor.cumsum, "cumsum_"), " (dim)",
                ">>> pydevtensor.tensor([1., 2.]).cumsum_(0)\n    tensor([1., 3.])"),
    "cumprod_": (_scan_in_place(_C.Tensor.cumprod, "cumprod_"), " (dim)",
                 ">>> pydevtensor.tensor([2., 3.]).cumprod_(0)\n    tensor([2., 6.])"),
}


def _compare(op, name):
    """op (a comparison slot) as a function whose argument is named other, as PyTorch's
    eq_(other=...) takes it (a slot wrapper takes no keywords); its errors name name."""
    def compare(self, other):
        return op(self, other)
    compare.__name__ = compare.__qualname__ = name
    return compare


_COMPARE = {"eq_": "__eq__", "ne_": "__ne__", "lt_": "__lt__", "le_": "__le__", "gt_": "__gt__",
            "ge_": "__ge__"}
for _name, _op in _COMPARE.items():
    _IN_PLACE[_name] = (_compare(getattr(_C.Tensor, _op), _name), " (other)", _cmp_example(_name))
for _name, (_fn, _arg, _example) in _IN_PLACE.items():
    if not hasattr(_C.Tensor, _name):
        setattr(_C.Tensor, _name, _in_place(_name, _fn, _arg, _example))
for _alias, _name in (("greater_", "gt_"), ("greater_equal_", "ge_"), ("less_", "lt_"),
                      ("less_equal_", "le_"), ("not_equal_", "ne_")):  # NumPy's names too
    if not hasattr(_C.Tensor, _alias):
        _fn, _arg, _example = _IN_PLACE[_name]  # made here: its errors name the alias
        _fn = _compare(getattr(_C.Tensor, _COMPARE[_name]), _alias)
        setattr(_C.Tensor, _alias, _in_place(_alias, _fn, _arg, _example)
                if getattr(_C.Tensor, _name).__name__ == _name else getattr(_C.Tensor, _name))


def _is_signed(self):
    """Whether self's dtype holds negative numbers (all but uint8 and bool).

    Returns
    -------
    bool

    Examples
    --------
    >>> pydevtensor.ones(1).is_signed(), pydevtensor.ones(1, dtype=pydevtensor.uint8).is_signed()
    (True, False)
    """
    return self.dtype not in (_C.uint8, _C.bool)


def _in_place_function(name, example_in, example_out, params="", example_args=""):
    """pydevtensor.<name>(input, ...): the method input.<name>(...), as PyTorch's
    torch.<name>; params documents the arguments after input (numpydoc lines), and
    example_args are the example's."""
    def fn(input, *args, **kwargs):
        _tensor_arg(input, name)
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    more = f", {example_args}" if example_args else ""
    fn.__doc__ = f"""``input.{name}(...)``: input overwritten with {name[:-1]} of itself and
    returned, as PyTorch's ``torch.{name}``.

    Parameters
    ----------
    input : Tensor
        Overwritten in place.{params}

    Returns
    -------
    Tensor
        input.

    Examples
    --------
    >>> pydevtensor.{name}(pydevtensor.tensor({example_in}){more})
    {example_out}
    """
    return fn


relu_ = _in_place_function("relu_", "[-1., 2.]", "tensor([0., 2.])")
sigmoid_ = _in_place_function("sigmoid_", "[0.]", "tensor([0.5000])")
tanh_ = _in_place_function("tanh_", "[0.]", "tensor([0.])")
exp_ = _in_place_function("exp_", "[0.]", "tensor([1.])")

_C.Tensor.is_signed = _is_signed
for _name, _fn in (("cov", cov), ("corrcoef", corrcoef)):
    if not hasattr(_C.Tensor, _name):
        setattr(_C.Tensor, _name, _fn)
_C.Tensor.is_cpu = property(lambda self: self.device.type == "cpu", doc="""Whether the tensor \
is in host memory (a CPU device, a logical one included).

    Examples
    --------
    >>> pydevtensor.ones(1).is_cpu
    True
    """)

__all__ = ["cosine_similarity", "empty_strided", "exp_", "is_floating_point", "randint_like",
           "relu_", "sigmoid_", "tanh_", "unravel_index"]


_fill_number = _C.Tensor.fill_


def _fill_(self, value):
    """Every element becomes value.

    Parameters
    ----------
    value : number or 0-d Tensor
        Converted to self's dtype; a 0-d tensor (on any device) is copied in, and
        receives the gradient (the sum of self's), as PyTorch's ``fill_``.

    Returns
    -------
    Tensor
        self, changed in place.

    Raises
    ------
    RuntimeError
        When value is a tensor of more than 0 dimensions.

    Examples
    --------
    >>> x = pydevtensor.tensor([1., 2., 3.])
    >>> x.fill_(7)
    tensor([7., 7., 7.])
    >>> x.fill_(pydevtensor.tensor(2.5))
    tensor([2.5000, 2.5000, 2.5000])
    """
    if isinstance(value, _C.Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.ndim} dimensions (shape {tuple(value.shape)}, "
                               f"on {value.device})")
        return self.copy_(value.expand(tuple(self.shape)))
    return _fill_number(self, value)


_C.Tensor.fill_ = _fill_
