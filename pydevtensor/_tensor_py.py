"""The parts of Tensor written in Python: Size, repr/str, iteration, and copies of
the object (copy, deepcopy, pickle: pydevtensor/_copies.py).

They are installed on the C type pydevtensor._C.Tensor at import.
"""
from . import _C, _copies
from ._repr import tensor_repr


class Size(tuple):
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

    def __repr__(self):
        return f"pydevtensor.Size({list(self)})"

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
    return (self[i] for i in range(len(self)))


_C._set_size_type(Size)
_C.Tensor.__repr__ = tensor_repr
_C.Tensor.__str__ = tensor_repr
_C.Tensor.__iter__ = _iter
_copies.install()
