"""``autograd.Variable``: PyTorch's pre-0.4 wrapper, kept for old scripts.  Tensors do
autograd themselves, so ``Variable(t)`` is a tensor sharing t's storage, detached, that
requires grad when asked; ``isinstance(x, Variable)`` is True for every tensor."""
from __future__ import annotations

from .. import _C
from .._args import flag

__all__ = ["Variable"]


class _VariableMeta(type):
    def __call__(cls, data: _C.Tensor, requires_grad: bool = False,
                 volatile: bool = False) -> _C.Tensor:
        if not isinstance(data, _C.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got "
                            f"{type(data).__name__}")
        return data.detach().requires_grad_(flag(requires_grad, "Variable", "requires_grad"))

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, _C.Tensor)


class Variable(metaclass=_VariableMeta):
    """PyTorch's legacy ``autograd.Variable(data, requires_grad=False)``: a new tensor
    sharing data's storage, detached from its graph, requiring grad when requires_grad
    is True.  ``isinstance(t, Variable)`` is True for any tensor.

    Parameters
    ----------
    data : Tensor
        The values (shared, not copied).
    requires_grad : bool, optional
        Whether the new tensor requires grad (default False).
    volatile : bool, optional
        Accepted and ignored, as in PyTorch (use ``no_grad``).

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        When data is not a tensor.

    Examples
    --------
    >>> from pydevtensor.autograd import Variable
    >>> v = Variable(pydevtensor.ones(2), requires_grad=True)
    >>> v.requires_grad, v.is_leaf, isinstance(v, Variable)
    (True, True, True)
    """
