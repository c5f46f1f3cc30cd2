"""cov and corrcoef with PyTorch's names and meaning (torch.cov, torch.corrcoef): the
rows of input are the variables, its columns the observations (a 1-d input is one
variable).  Compositions of elementwise ops, sums and one matmul, so they run on every
device and autograd records them; the weights' sums are never read back to the host."""
import builtins
import warnings

from . import _C
from ._ops_index import _tensor_arg


def _observations(input, op):
    x = _tensor_arg(input, op)
    if x.ndim > 2:
        raise RuntimeError(f"{op}(): expected input to have two or fewer dimensions, got "
                           f"shape {tuple(x.shape)} (on {x.device})")
    if x.dtype == _C.bool:  # PyTorch's cov refuses it (for corrcoef too)
        raise _C.DTypeError(f"{op}(): bool dtype is not supported for input (of shape "
                            f"{tuple(x.shape)}, on {x.device})")
    if not x.is_floating_point():
        x = x.to(_C.float32)
    return x.reshape(1, -1) if x.ndim < 2 else x


def _weights(w, name, n, x, integral):
    if w is None:
        return None
    if not isinstance(w, _C.Tensor):
        raise TypeError(f"cov(): {name} must be a Tensor or None, got {type(w).__name__}")
    if w.ndim > 1 or w.numel() != n:
        raise RuntimeError(f"cov(): expected {name} to be a scalar or 1-d tensor of {n} "
                           f"elements (the number of observations), got shape "
                           f"{tuple(w.shape)} (on {w.device})")
    if w.device != x.device:
        raise _C.DeviceError(f"cov(): {name} is on {w.device}, input on {x.device}")
    if integral and (w.is_floating_point() or w.dtype == _C.bool):
        raise RuntimeError(f"cov(): expected fweights to have an integral dtype, got {w.dtype}")
    if not integral and not w.is_floating_point():
        raise RuntimeError(f"cov(): expected aweights to have a floating point dtype, got "
                           f"{w.dtype}")
    if bool((w < 0).any()):  # a read of the device's answer, as PyTorch's check
        raise RuntimeError(f"cov(): {name} cannot be negative (shape {tuple(w.shape)}, "
                           f"{w.dtype}, on {w.device})")
    return w.reshape(-1).to(x.dtype)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in input's rows, observed in its columns.

    ``w = fweights * aweights`` (either may be absent), ``mean = sum(w x) / sum(w)``;
    the sum of ``w (x - mean)(x - mean)^T`` is divided by ``N - correction`` without
    weights, ``sum(w) - correction`` with fweights only, and ``sum(w) - correction
    sum(w aweights) / sum(w)`` with aweights (a divisor at or below 0 gives inf or NaN,
    as PyTorch's, and warns without weights: their sum is not read back).

    Parameters
    ----------
    input : Tensor
        0-d, 1-d (one variable) or 2-d (variables by observations); integers give
        float32.
    correction : int, optional
        1 (the default) for the unbiased estimate, 0 for the maximum-likelihood one.
    fweights : Tensor, optional
        Integer frequency weights, one for each observation.
    aweights : Tensor, optional
        Floating observation weights, one for each observation.

    Returns
    -------
    Tensor
        Of shape (variables, variables); 0-d for one variable (a 1-d input or one row).

    Raises
    ------
    RuntimeError
        For an input of more than two dimensions, or weights of the wrong size, dtype or
        device.
    DTypeError
        For a bool input, as PyTorch's.

    Examples
    --------
    >>> x = pydevtensor.tensor([[0., 1., 2.], [2., 1., 0.]])
    >>> pydevtensor.cov(x)
    tensor([[ 1., -1.],
            [-1.,  1.]])
    >>> pydevtensor.cov(x, fweights=pydevtensor.tensor([1, 2, 1]))
    tensor([[ 0.6667, -0.6667],
            [-0.6667,  0.6667]])
    """
    return _cov(input, correction, fweights, aweights)


def _cov(input, correction, fweights, aweights):
    """cov's body; its warning names the caller of cov or corrcoef."""
    if isinstance(correction, builtins.bool) or not isinstance(correction,
                                                               (builtins.int, builtins.float)):
        raise TypeError(f"cov(): correction must be a number, got {type(correction).__name__}")
    x = _observations(input, "cov")
    if isinstance(aweights, _C.Tensor) and aweights.is_floating_point():
        x = x.to(_C.promote_types(x.dtype, aweights.dtype))  # float64 aweights: float64
    n = x.shape[1]
    fw = _weights(fweights, "fweights", n, x, True)
    aw = _weights(aweights, "aweights", n, x, False)
    w = fw if aw is None else aw if fw is None else fw * aw
    if w is None:
        mean = x.mean(1, keepdim=True)
        norm = n - correction
        if norm <= 0:  # PyTorch's warning (not with weights: their sum stays on the device)
            warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly "
                          "less than the number of observations.", UserWarning,
                          stacklevel=3)
        xm = x - mean
        c = _C.matmul(xm, xm.t()) / builtins.max(norm, 0)
    else:
        wsum = w.sum()
        mean = (x * w).sum(1, keepdim=True) / wsum
        if correction == 0:
            norm = wsum
        elif aw is None:
            norm = wsum - correction
        else:
            norm = wsum - correction * (w * aw).sum() / wsum
        xm = x - mean
        c = _C.matmul(xm * w, xm.t()) / norm.clamp(min=0)
    # one variable (a 1-d input, or a single row) gives a 0-d result, as PyTorch's
    return c.reshape(()) if _C.Tensor.dim(input) < 2 or c.shape[0] == 1 else c


def corrcoef(input):
    """Pearson's correlation coefficients of the variables in input's rows: cov(input)
    divided by the product of the standard deviations, clipped to [-1, 1].

    Parameters
    ----------
    input : Tensor
        0-d, 1-d (one variable) or 2-d (variables by observations).

    Returns
    -------
    Tensor
        Of shape (variables, variables); 0-d for one variable.  A variable that never
        varies gives NaN, as PyTorch's.

    Raises
    ------
    RuntimeError
        For an input of more than two dimensions.
    DTypeError
        For a bool input, as PyTorch's.

    Examples
    --------
    >>> pydevtensor.corrcoef(pydevtensor.tensor([[0., 1., 2.], [1., 3., 2.]]))
    tensor([[1.0000, 0.5000],
            [0.5000, 1.0000]])
    """
    _observations(input, "corrcoef")  # its own name in the errors
    c = _cov(input, 1, None, None)
    if c.ndim == 0:
        return c / c
    sd = c.diagonal().sqrt()
    c = c / sd.reshape(-1, 1) / sd.reshape(1, -1)
    return c.clamp(-1, 1)


__all__ = ["corrcoef", "cov"]
