"""logspace, with PyTorch's name and meaning (torch.logspace): linspace's exponents."""
from . import _C
from ._args import flag, real


def _integer(value, name, dtype):
    """value (a number or a one-element tensor) truncated to an int, refused when it is
    NaN, infinite or past int64, as PyTorch refuses to convert it to an integer dtype."""
    v = real(value, "logspace", name)
    if not -2.0 ** 63 <= v < 2.0 ** 63:  # (False for NaN)
        raise _C.InvalidArgumentError(f"logspace(): {name} {v!r} cannot be converted to "
                                      f"{dtype} without overflow")
    return int(v)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """steps values from ``base ** start`` to ``base ** end``, evenly spaced in the
    exponent: ``base ** linspace(start, end, steps)``, the powers taken in float64 and
    rounded once to dtype.

    Parameters
    ----------
    start, end : number or 0-d Tensor
        The first and the last exponent (a tensor's value read as item() reads it).
    steps : int
        How many values (>= 0).
    base : float, optional
        The base (default 10).
    dtype : pydevtensor.dtype, optional
        The element type (default float32).
    device : str or pydevtensor.device, optional
        Where the tensor lives (default: pydevtensor.get_default_device()).
    requires_grad : bool, optional
        Whether autograd records operations on the result.

    Returns
    -------
    Tensor
        1-d, of steps elements.

    Raises
    ------
    ValueError
        When steps is negative.

    Examples
    --------
    >>> pydevtensor.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    >>> pydevtensor.logspace(0, 3, 4, base=2.0)
    tensor([1., 2., 4., 8.])
    """
    if isinstance(base, bool) or not isinstance(base, (int, float)):
        raise TypeError(f"logspace(): base must be a number, got {type(base).__name__}")
    requires_grad = flag(requires_grad, "logspace", "requires_grad")
    if dtype is None:  # the default dtype, as every creation function's
        from ._default_dtype import get_default_dtype
        dtype = get_default_dtype()
    dtype = _C.empty(0, dtype=dtype).dtype  # a dtype named as the C functions take it
    if not dtype.is_floating_point and dtype != _C.bool:
        # an integer dtype takes the exponents' ends as integers first, as PyTorch's (and
        # linspace): logspace(-2.5, 7, 5, dtype=int64) is 10 ** [-2, 0.25, 2.5, 4.75, 7]
        start, end = _integer(start, "start", dtype), _integer(end, "end", dtype)
    e = _C.linspace(start, end, steps, dtype=_C.float64, device=device)
    out = _C.pow(float(base), e).to(dtype)
    return out.requires_grad_() if requires_grad else out


__all__ = ["logspace"]
