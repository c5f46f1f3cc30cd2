"""Tensor methods of PyTorch's that a dense, real, strided tensor answers with what it
already is: ``as_subclass``, ``to_dense``, ``conj_physical`` (and in place),
``const_data_ptr`` and ``complex(x)``.  Installed on ``Tensor`` at import.
"""
from . import _C

__all__ = []


def _as_subclass(self, cls):
    """This tensor as an instance of cls, a subclass of Tensor: the same memory (changes
    to either show in the other), still in the autograd graph, as PyTorch's
    ``Tensor.as_subclass``.

    Parameters
    ----------
    cls : type
        A subclass of ``pydevtensor.Tensor`` (or Tensor itself).

    Returns
    -------
    Tensor
        An alias of self (a view of all of it) whose type is cls.

    Raises
    ------
    TypeError
        When cls is not a class that inherits from Tensor.

    Examples
    --------
    >>> class Tagged(pydevtensor.Tensor):
    ...     pass
    >>> x = pydevtensor.ones(2)
    >>> t = x.as_subclass(Tagged)
    >>> type(t).__name__, t.data_ptr() == x.data_ptr()
    ('Tagged', True)
    """
    if not (isinstance(cls, type) and issubclass(cls, _C.Tensor)):
        raise TypeError(f"as_subclass(): creating a Tensor subclass from {cls!r}, which does "
                        f"not inherit from Tensor, is not possible; make sure your class "
                        f"inherits from Tensor")
    out = self.view_as(self)  # an alias, recorded as a view when self requires grad
    out.__class__ = cls
    return out


def _to_dense(self, dtype=None, *, masked_grad=None):
    """This tensor (already dense), or a copy in dtype when dtype is another, as
    PyTorch's ``Tensor.to_dense`` of a strided tensor.

    Parameters
    ----------
    dtype : pydevtensor.dtype, optional
        The result's dtype (default: self's).
    masked_grad : bool, optional
        Taken for PyTorch's signature; it concerns sparse tensors only.

    Returns
    -------
    Tensor
        self, or ``self.to(dtype)``.

    Examples
    --------
    >>> x = pydevtensor.ones(2)
    >>> x.to_dense() is x, x.to_dense(pydevtensor.float64).dtype
    (True, pydevtensor.float64)
    """
    return self if dtype is None else self.to(dtype)


def _itself(name, what):
    """Tensor.<name>: self, as PyTorch's of a real tensor (what: what it would do)."""
    def method(self):
        return self
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"""{what}: this tensor itself, pydevtensor's tensors being real, as
        PyTorch's ``Tensor.{name}`` of a real tensor.

        Returns
        -------
        Tensor
            self.

        Examples
        --------
        >>> x = pydevtensor.tensor([1.5, -2.0])
        >>> x.{name}() is x
        True
        """
    return method


def _const_data_ptr(self):
    """The address of the first element, as ``data_ptr()`` (PyTorch's name for reading
    through it).

    Returns
    -------
    int

    Examples
    --------
    >>> x = pydevtensor.ones(2)
    >>> x.const_data_ptr() == x.data_ptr()
    True
    """
    return self.data_ptr()


def _complex(self):
    """``complex(x)`` of a one-element tensor: its value as a Python complex.

    Returns
    -------
    complex

    Raises
    ------
    ValueError
        When the tensor has more or fewer than one element, as PyTorch's.

    Examples
    --------
    >>> complex(pydevtensor.tensor(1.5))
    (1.5+0j)
    """
    if self.numel() != 1:
        raise ValueError(f"only one element tensors can be converted to Python scalars (got "
                         f"a tensor of shape {tuple(self.shape)} on {self.device})")
    return complex(self.__float__())


_C.Tensor.as_subclass = _as_subclass
_C.Tensor.to_dense = _to_dense
_C.Tensor.conj_physical = _itself("conj_physical", "The complex conjugate, computed")
_C.Tensor.conj_physical_ = _itself("conj_physical_", "The complex conjugate in place")
_C.Tensor.const_data_ptr = _const_data_ptr
_C.Tensor.__complex__ = _complex
for _f, _name in ((_as_subclass, "as_subclass"), (_to_dense, "to_dense"),
                  (_const_data_ptr, "const_data_ptr"), (_complex, "__complex__")):
    _f.__name__ = _f.__qualname__ = _name
