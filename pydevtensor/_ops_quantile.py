"""quantile and nanquantile with PyTorch's signatures and rules, as a composition.

Note [quantiles]: each row along dim is sorted (NaN largest, the stable sort of
_ops_sort.py), and the quantile q of a row of n values sits at the rank q (n - 1),
computed in the input's dtype as PyTorch computes it; ``linear`` interpolates between
the values at floor and ceil of the rank by ``lerp`` (PyTorch's formula, so the same
bits), ``midpoint`` by 0.5, and ``lower``, ``higher``, ``nearest`` take the value at
floor, ceil or the rank rounded half to even.  A row holding NaN has the quantile NaN
(its rank becomes the last, where NaN sorts); nanquantile ranks among the row's
non-NaN values (a row of NaN only gives NaN).  The values are taken by ``gather`` from
the sorted values, so autograd sends the gradient through ``lerp`` and ``sort`` to the
elements picked; a q that requires grad gets it through the ``linear`` weights (rank
minus its floor), as PyTorch's: the slope between the two neighbours times n - 1 (none
for a quantile row holding NaN, nor for the other modes).  Everything runs on the input's device; a tensor q is read back to
the host to check its range (a counted copy on a GPU), as PyTorch reads it.
"""
import builtins

from . import _C
from ._args import flag
from ._numpy_names import numpy_names
from ._ops_index import _dim, _int_arg, _tensor_arg, gather, where
from ._ops_pointwise import lerp
from ._ops_sort import sort
from ._out import takes_out

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _q_values(op, x, q):
    """(q as a 1-d tensor of x's dtype on x's device, whether q was a scalar)."""
    if isinstance(q, _C.Tensor):
        if q.ndim > 1:
            raise RuntimeError(f"{op}() q must be a scalar or 1D tensor, got shape "
                               f"{tuple(q.shape)} (on {q.device})")
        if q.dtype != x.dtype:
            raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor: q "
                               f"is {q.dtype}, input {x.dtype} (on {x.device})")
        if q.device != x.device:
            raise _C.DeviceError(f"{op}(): Expected all tensors to be on the same device, but "
                                 f"found at least two devices, {x.device} and {q.device}")
        flat = q.reshape(-1)  # autograd reaches q through the ranks (linear only)
        values = flat.detach().tolist()
        scalar = q.ndim == 0
    else:
        if isinstance(q, bool) or not isinstance(q, (int, float)):
            raise TypeError(f"{op}(): q must be a float or a tensor, got "
                            f"{type(q).__name__}")
        values = [float(q)]
        flat = _C.full((1,), float(q), dtype=x.dtype, device=x.device)
        scalar = True
    for v in values:
        if not 0 <= v <= 1:
            raise RuntimeError(f"{op}() q must be in the range [0, 1] but got {v}")
    return flat, scalar


def _quantile(op, input, q, dim, keepdim, interpolation, ignore_nan):
    x = _tensor_arg(input, op)
    keepdim = flag(keepdim, op, "keepdim")
    if x.dtype not in (_C.float32, _C.float64):
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype, got "
                           f"{x.dtype} (shape {tuple(x.shape)}, on {x.device})")
    if not isinstance(interpolation, str):  # PyTorch's TypeError
        raise TypeError(f"{op}(): argument 'interpolation' must be str, not "
                        f"{type(interpolation).__name__}")
    if interpolation not in _MODES:
        raise RuntimeError(f"{op}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    qs, scalar = _q_values(op, x, q)
    if x.numel() == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty (shape "
                           f"{tuple(x.shape)}, on {x.device})")
    ndim = x.ndim
    if dim is None:
        rows, d = x.reshape(1, -1), None
    else:
        d = _dim(_int_arg(dim, op, "dim"), builtins.max(ndim, 1), op, x)
        rows = x.reshape(1) if ndim == 0 else x.movedim(d, -1)
    values = sort(rows, -1).values  # Note [quantiles]
    n = values.shape[-1]
    if ignore_nan:
        count = values.detach().isnan().logical_not().sum(-1, keepdim=True)
        ranks = qs * (count - 1)
        ranks = where(ranks < 0, _C.zeros((), dtype=x.dtype, device=x.device), ranks)
    else:
        ranks = qs * (n - 1)
        last = _C.full((), n - 1, dtype=x.dtype, device=x.device)
        ranks = where(values.detach()[..., -1:].isnan(), last, ranks)
    ranks = ranks.expand(*values.shape[:-1], qs.shape[0])
    if interpolation in ("lower", "higher", "nearest"):
        pick = {"lower": ranks.floor, "higher": ranks.ceil, "nearest": ranks.round}
        result = gather(values, -1, pick[interpolation]().to(_C.int64))
    else:
        below = ranks.to(_C.int64)  # truncation: the ranks are not negative
        weights = (ranks - below if interpolation == "linear"
                   else _C.full((), 0.5, dtype=x.dtype, device=x.device).expand(*ranks.shape))
        result = lerp(gather(values, -1, below), gather(values, -1, ranks.ceil().to(_C.int64)),
                      weights)
    result = result.movedim(-1, 0)  # (q, *the other dims)
    if d is None:
        result = result.reshape((qs.shape[0],) + ((1,) * ndim if keepdim else ()))
    elif keepdim and ndim:
        result = result.unsqueeze(1 + d)
    return result.reshape(tuple(result.shape[1:])) if scalar else result


@numpy_names
@takes_out("quantile")
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles of each row of input along dim (of all elements when dim is
    None), PyTorch's quantile; a row holding NaN gives NaN (see nanquantile).

    Parameters
    ----------
    input : Tensor
        float32 or float64 values, not empty (also the method ``x.quantile(q)``).
    q : float or Tensor
        In [0, 1]; a 0-d or 1-d tensor of input's dtype for several quantiles.
    dim : int, optional
        The dimension to reduce (default: all elements).
    keepdim : bool, optional
        Keep the reduced dimension(s) with size 1.
    interpolation : str, optional
        Between two values: ``linear`` (default), ``lower``, ``higher``, ``midpoint`` or
        ``nearest`` (Note [quantiles] in _ops_quantile.py).

    Returns
    -------
    Tensor
        For a 1-d q, its quantiles along a new first dimension; input's dtype.

    Raises
    ------
    RuntimeError
        For an integer input, an empty one, q outside [0, 1], a q tensor of another
        dtype or more than one dimension, or an unknown interpolation.

    Examples
    --------
    >>> x = pydevtensor.tensor([[0., 1., 2., 3.], [4., 5., 6., 7.]])
    >>> pydevtensor.quantile(x, 0.5, dim=1)
    tensor([1.5000, 5.5000])
    >>> x.quantile(pydevtensor.tensor([0.0, 1.0]))
    tensor([0., 7.])
    """
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


@numpy_names
@takes_out("nanquantile")
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile that ignores NaN: the q-th quantiles of each row's non-NaN values (NaN
    for a row of NaN only).

    Parameters
    ----------
    input, q, dim, keepdim, interpolation
        As quantile's (also the method ``x.nanquantile(q)``).

    Returns
    -------
    Tensor
        As quantile's.

    Raises
    ------
    RuntimeError
        As quantile.

    Examples
    --------
    >>> pydevtensor.nanquantile(pydevtensor.tensor([1., float("nan"), 3.]), 0.5)
    tensor(2.)
    """
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


__all__ = ["nanquantile", "quantile"]

for _n in __all__:
    setattr(_C.Tensor, _n, globals()[_n])
