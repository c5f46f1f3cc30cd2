"""set_default_dtype() / get_default_dtype(): the default floating dtype, as in PyTorch."""
from . import _C


def set_default_dtype(d):
    """Make ``d`` the default floating dtype, for the whole process (as in PyTorch).

    The default decides the dtype of the floating factories without ``dtype=``
    (``ones``, ``zeros``, ``empty``, ``full`` with a float fill, ``rand``, ``randn``,
    ``arange`` with a float argument, ``linspace``, ``logspace``, ``eye``), of Python
    floats in ``tensor()`` (``tensor(1.5)``, ``tensor([1, 2.5])``), of a Python float
    in an op with an integer or bool tensor (``int_tensor * 1.5``), of floating
    results of integer inputs (``int_tensor / 2``, ``int_tensor.exp()``), and of the
    parameters of new ``nn`` layers.  ``repr`` shows ``dtype=`` for floating tensors
    of another dtype.  Tensors made before the call keep their dtype.

    The setting is process-wide: every thread sees it, as in PyTorch.  Restore it
    with ``set_default_dtype(old)`` where only a part of a program needs another one.

    Parameters
    ----------
    d : pydevtensor.dtype
        ``pydevtensor.float32`` (the default at start), ``float64``, ``float16`` or
        ``bfloat16``.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When ``d`` is not one of those four dtype objects (an integer or bool dtype,
        a name such as ``'float64'``, None); the default is then unchanged.

    Examples
    --------
    >>> pydevtensor.set_default_dtype(pydevtensor.float64)
    >>> pydevtensor.tensor([1.2, 3]).dtype
    pydevtensor.float64
    >>> (pydevtensor.tensor([1, 2]) / 2).dtype
    pydevtensor.float64
    >>> pydevtensor.set_default_dtype(pydevtensor.float32)
    >>> pydevtensor.ones(2).dtype
    pydevtensor.float32
    """
    _C._set_default_dtype(d)


def get_default_dtype():
    """The default floating dtype: ``pydevtensor.float32`` unless
    :func:`set_default_dtype` changed it.

    Returns
    -------
    pydevtensor.dtype

    Examples
    --------
    >>> pydevtensor.get_default_dtype()
    pydevtensor.float32
    """
    return _C._get_default_dtype()


__all__ = ["get_default_dtype", "set_default_dtype"]
