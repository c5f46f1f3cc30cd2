"""pydevtensor.utils.dlpack, as ``torch.utils.dlpack``: ``from_dlpack`` (the same
function as ``pydevtensor.from_dlpack``) and ``to_dlpack``, a tensor's DLPack capsule.
"""
from .._interop import from_dlpack

__all__ = ["from_dlpack", "to_dlpack"]


def to_dlpack(tensor):
    """A DLPack capsule of tensor, sharing its memory (``tensor.__dlpack__()``), as
    PyTorch's ``torch.utils.dlpack.to_dlpack``; ``from_dlpack`` of it, in pydevtensor or
    another library, gives a tensor on the same memory.  A capsule is read once.

    Parameters
    ----------
    tensor : Tensor
        The tensor to share.

    Returns
    -------
    PyCapsule
        A capsule named "dltensor".

    Raises
    ------
    TypeError
        When tensor is not a Tensor.

    Examples
    --------
    >>> from pydevtensor.utils.dlpack import from_dlpack, to_dlpack
    >>> x = pydevtensor.ones(3)
    >>> y = from_dlpack(to_dlpack(x))
    >>> y.add_(1.0)
    tensor([2., 2., 2.])
    >>> x
    tensor([2., 2., 2.])
    """
    from .. import _C
    if not isinstance(tensor, _C.Tensor):
        raise TypeError(f"to_dlpack(): tensor must be a Tensor, got {type(tensor).__name__}")
    return tensor.__dlpack__()
