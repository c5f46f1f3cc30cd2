"""The parts of Tensor written in Python: Size, repr/str, and iteration.

They are installed on the C type pydevtensor._C.Tensor at import.
"""
from . import _C
from ._repr import tensor_repr


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as ``pydevtensor.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self):
        return f"pydevtensor.Size({list(self)})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


def _iter(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    for i in range(len(self)):
        yield self[i]


_C._set_size_type(Size)
_C.Tensor.__repr__ = tensor_repr
_C.Tensor.__str__ = tensor_repr
_C.Tensor.__iter__ = _iter
