"""The parts of Tensor written in Python: Size, repr/str, iteration, new_zeros and its
kin, and copies of the object (copy, deepcopy, pickle: pydevtensor/_copies.py).

They are installed on the C type pydevtensor._C.Tensor at import.
"""
import numbers
import operator

from . import _C, _args, _copies
from ._repr import tensor_repr
from ._tensor_resize import _size_keyword


class Size(_C._SizeBase):
    """A tensor's shape: a tuple of ints that prints as ``pydevtensor.Size([2, 3])``.

    Parameters
    ----------
    iterable : iterable of int, optional
        The sizes.

    Examples
    --------
    >>> s = pydevtensor.ones(2, 3).shape
    >>> s
    pydevtensor.Size([2, 3])
    >>> s == (2, 3), s[0]
    (True, 2)
    """

    __slots__ = ()

    def __new__(cls, iterable=()):
        # a tensor's .shape comes from C through tuple's own constructor (Note [the
        # shape kept] in csrc/python/tensor_object.c); this check is for Sizes made
        # here: ints, or what __index__ makes one (a 0-d integer tensor), as PyTorch's
        sizes = []
        for k, v in enumerate(iterable):
            if type(v) is not int:
                try:
                    v = operator.index(v)
                except TypeError:
                    raise TypeError(f"pydevtensor.Size() takes an iterable of 'int' (item {k} "
                                    f"is '{type(v).__name__}')") from None
            sizes.append(v)
        return super().__new__(cls, sizes)

    def __repr__(self):
        return f"pydevtensor.Size({list(self)})"

    # sums, repeats and slices (csrc/python/size_object.c) of a Size are Sizes, as
    # PyTorch's
    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__new__(Size, tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__new__(Size, tuple.__add__(other, self))

    def __mul__(self, n):
        got = tuple.__mul__(self, n)
        return got if got is NotImplemented else tuple.__new__(Size, got)

    __rmul__ = __mul__

    def __reduce__(self):  # pickles as Size(list), the check passing on load
        return (Size, (list(self),))

    def numel(self):
        """The number of elements of a tensor of this shape: the product of the sizes.

        Returns
        -------
        int

        Examples
        --------
        >>> pydevtensor.Size([2, 3]).numel()
        6
        """
        n = 1
        for s in self:
            n *= s
        return n


def _iter(self):
    # iter() itself raises for a 0-d tensor, as PyTorch's: matplotlib (hist, boxplot)
    # asks iter(x) whether x is a sequence
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    if self.requires_grad and _C.is_grad_enabled():
        # one node for all the rows (unbind), as PyTorch's iteration: a loop over a
        # sequence's steps then costs one gradient of the whole, not one per step
        return iter(self.unbind(0))
    return iter(_C._views_along(self, 0))  # unbind's views, without its checks


def _contains(self, element):
    """``element in self``: whether some element of self equals element (a number, or a
    tensor compared by broadcasting), as PyTorch's Tensor.__contains__.

    Parameters
    ----------
    element : Tensor or number
        What to look for.

    Returns
    -------
    bool
        ``bool((element == self).any().item())``.  A number pydevtensor cannot compare
        (a complex, a Fraction) raises eq's TypeError rather than answer False.

    Raises
    ------
    RuntimeError
        When element is neither a tensor nor a number.

    Examples
    --------
    >>> x = pydevtensor.tensor([[1, 2], [3, 4]])
    >>> 3 in x, 5 in x, pydevtensor.tensor([1, 2]) in x
    (True, False, True)
    """
    if isinstance(element, (_C.Tensor, numbers.Number)):
        return bool(_C.eq(self, element).any().item())
    raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in "
                       f"a {type(element)}.")


def _new(make):
    """Tensor.new_<make>: a tensor made by _C.<make> with self's dtype and device unless
    dtype= or device= say otherwise (PyTorch's new_zeros, new_ones, new_empty, new_full)."""
    name = f"new_{make}"

    def method(self, *args, size=None, dtype=None, device=None, requires_grad=False,
               layout=None, pin_memory=False, **fill):
        # size= as the factories take it (_size_keyword: not beside positional sizes);
        # new_full's fill_value= after it, as PyTorch's
        args = _size_keyword(args, size, name)
        if make == "full" and "fill_value" in fill:
            args += (fill.pop("fill_value"),)
        if fill:
            raise TypeError(f"{name}() got an unexpected keyword argument "
                            f"'{next(iter(fill))}'")
        from ._memory_format import _check_layout
        _check_layout(layout, name)
        # the flags are checked here so that a wrong one names new_<make>; _C's factory
        # pins and sets requires_grad as for pydevtensor.<make>(..., pin_memory=...)
        flags = {k: v if v is None else _args.flag(v, name, k)  # None: the default
                 for k, v in (("pin_memory", pin_memory), ("requires_grad", requires_grad))}
        return getattr(_C, make)(*args, dtype=self.dtype if dtype is None else dtype,
                                 device=self.device if device is None else device, **flags)
    method.__name__ = method.__qualname__ = name
    size = "size, fill_value" if make == "full" else "*size"
    value = ("\n        fill_value : number\n            The value of every element."
             if make == "full" else "")
    method.__doc__ = f"""``pydevtensor.{make}({size})`` with this tensor's dtype and device,
        unless dtype= or device= say otherwise (PyTorch's Tensor.new_{make}).

        Parameters
        ----------
        size : int or sequence of ints
            The shape, as for ``pydevtensor.{make}``.{value}
        dtype : pydevtensor.dtype, optional
            Default: this tensor's.
        device : device or str, optional
            Default: this tensor's.
        requires_grad : bool, optional
            Whether autograd records operations on the result (default False).
        layout : layout, optional
            pydevtensor.strided (the only one) or None.
        pin_memory : bool, optional
            Whether the result is in page-locked host memory (default False).

        Returns
        -------
        Tensor
            A new tensor.

        Examples
        --------
        >>> x = pydevtensor.ones(2, dtype=pydevtensor.float64)
        >>> x.new_{make}({"(2,), 7" if make == "full" else "2"}).dtype
        pydevtensor.float64
        """
    return method


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None,
                pin_memory=False):
    """pydevtensor.tensor(data) (a copy) with this tensor's dtype and device, unless
    dtype= or device= say otherwise (PyTorch's Tensor.new_tensor).  A tensor as data is
    copied (to this tensor's device: an explicit transfer when that is another device),
    with PyTorch's warning to prefer ``data.clone().detach()``.

    Parameters
    ----------
    data : number, nested sequence, Tensor or array
        The values.
    dtype : pydevtensor.dtype, optional
        Default: this tensor's.
    device : device or str, optional
        Default: this tensor's.
    requires_grad : bool, optional
        Whether autograd records operations on the result (default False).
    layout : layout, optional
        pydevtensor.strided (the only one) or None.
    pin_memory : bool, optional
        Whether the result is in page-locked host memory (default False).

    Returns
    -------
    Tensor
        A new tensor.

    Examples
    --------
    >>> pydevtensor.ones(2, dtype=pydevtensor.float64).new_tensor([1, 2])
    tensor([1., 2.], dtype=pydevtensor.float64)
    """
    kwargs = {"dtype": self.dtype if dtype is None else dtype,
              "device": self.device if device is None else device,
              "requires_grad": requires_grad, "pin_memory": pin_memory}
    from ._memory_format import _check_layout
    from ._ops_stats import _copy_construct, tensor
    _check_layout(layout, "new_tensor")
    if isinstance(data, _C.Tensor):  # a copy, with PyTorch's warning (Note [tensor() of tensors])
        return _copy_construct(data, kwargs)
    return tensor(data, **kwargs)  # lists of 0-d tensors too


_C._set_size_type(Size)
for _make in ("zeros", "ones", "empty", "full"):
    setattr(_C.Tensor, f"new_{_make}", _new(_make))
_C.Tensor.new_tensor = _new_tensor
_C.Tensor.__repr__ = tensor_repr
_C.Tensor.__str__ = tensor_repr
_C.Tensor.__iter__ = _iter
_C.Tensor.__contains__ = _contains
_copies.install()


def _ndimension(self):
    """The number of dimensions, as ``self.dim()`` and ``self.ndim`` (PyTorch's older
    name).

    Returns
    -------
    int
        self.ndim.

    Examples
    --------
    >>> pydevtensor.zeros(2, 3).ndimension()
    2
    """
    return self.ndim


_C.Tensor.ndimension = _ndimension
