"""cdist: the p-norm distances between two sets of row vectors, as a composition; pdist:
those between the rows of one set, each pair once (cdist's, its upper triangle); dist:
the p-norm of a difference; renorm: sub-tensors scaled down to a largest p-norm.

Like _ops_einsum.py's ops it is built of device-generic pieces (broadcasting, sums,
``matmul``), so it runs on every device and autograd records the pieces.  Two forms,
chosen as PyTorch chooses (compute_mode):

- p = 2 through a matrix product: ``sqrt(max(|x1|^2 + |x2|^2 - 2 x1 x2^T, 0))``,
  PyTorch's fast form (used when P or R exceeds 25, or always with
  'use_mm_for_euclid_dist'); its cancellation costs accuracy for near points, as
  PyTorch's does.
- otherwise the differences ``(*, P, R, M)`` are formed, then ``sum(|d|^p)^(1/p)`` (max
  for p = inf, a count of non-zero differences for p = 0).  A distance of 0 gets a zero
  gradient, as PyTorch's (the root is taken of a masked argument), and so does a zero
  difference for p < 1.  This form holds a
  (P, R, M) intermediate per batch; a C kernel would not, and would be the next step
  for large sets.
"""
import builtins
import math

from . import _C
from ._ops_index import _broadcast_pair, _dim, _int_arg, _tensor_arg, result_type, where
from ._ops_join import _same_device
from ._ops_pointwise import _in_place
from ._out import _out_written, refuse_grad

_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
          "donot_use_mm_for_euclid_dist")


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of x1 and each row of x2, as
    ``torch.cdist``: ``out[..., i, j] = norm_p(x1[..., i, :] - x2[..., j, :])``, the
    batch dimensions broadcast.

    Parameters
    ----------
    x1 : Tensor
        ``(*, P, M)``, floating point.
    x2 : Tensor
        ``(*, R, M)``, on x1's device.
    p : float, optional
        The norm's degree, >= 0 (default 2; ``float('inf')`` for the largest
        difference, 0 for the count of differing coordinates).
    compute_mode : str, optional
        For p = 2: 'use_mm_for_euclid_dist_if_necessary' (default: the matrix-product
        form when P > 25 or R > 25), 'use_mm_for_euclid_dist' (always) or
        'donot_use_mm_for_euclid_dist' (never).

    Returns
    -------
    Tensor
        ``(*, P, R)``, in the dtype x1 and x2 promote to.

    Raises
    ------
    TypeError
        When an input is not a floating-point Tensor, or p not a number.
    ValueError
        When an input has fewer than 2 dimensions, the last dimensions or the batch
        dimensions do not match (an InvalidArgumentError, also a RuntimeError as
        PyTorch's), p is negative, or compute_mode unknown.
    RuntimeError
        When x1 and x2 are on different devices (a DeviceError).

    Examples
    --------
    >>> a = pydevtensor.tensor([[0., 0.], [1., 1.]])
    >>> b = pydevtensor.tensor([[3., 4.]])
    >>> pydevtensor.cdist(a, b)
    tensor([[5.0000],
            [3.6056]])
    >>> pydevtensor.cdist(a, b, p=1)
    tensor([[7.],
            [5.]])
    """
    where = "cdist()"
    for name, t in (("x1", x1), ("x2", x2)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{where}: {name} must be a Tensor, got {type(t).__name__}")
        if not t.is_floating_point():
            raise _C.DTypeError(f"{where}: cdist only supports floating-point dtypes, {name} is "
                                f"{t.dtype} on {t.device}")
        if t.ndim < 2:
            raise _C.InvalidArgumentError(f"{where}: cdist only supports at least 2-d tensors, "
                                          f"{name} has shape {tuple(t.shape)} (on {t.device})")
    _same_device("cdist", [x1, x2])
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"{where}: p must be a number, got {type(p).__name__}")
    if not p >= 0:
        # PyTorch's RuntimeError (and the ValueError it was here)
        raise _C.InvalidArgumentError(f"{where}: cdist only supports non-negative p values, "
                                      f"got {p}")
    if compute_mode not in _MODES:
        raise ValueError(f"{where}: {compute_mode!r} is not a valid value for compute_mode "
                         f"(one of {', '.join(_MODES)})")
    if x1.shape[-1] != x2.shape[-1]:
        raise _C.InvalidArgumentError(
            f"{where}: x1 and x2 must have the same number of columns: x1 {tuple(x1.shape)} "
            f"and x2 {tuple(x2.shape)} (on {x1.device})")
    batch = _batch_shape(x1, x2, where)
    rows1, rows2 = x1.shape[-2], x2.shape[-2]
    x1 = x1.expand(*batch, rows1, x1.shape[-1])
    x2 = x2.expand(*batch, rows2, x2.shape[-1])
    if x1.dtype != x2.dtype:
        common = result_type(x1, x2)
        x1, x2 = x1.to(common), x2.to(common)
    if p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
            compute_mode == _MODES[0] and (rows1 > 25 or rows2 > 25))):
        return _euclid_mm(x1, x2)
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (*, P, R, M)
    if p == 0:
        # + a sum of zeros: the count gets a (zero) gradient, as PyTorch's
        return (diff != 0).to(diff.dtype).sum(-1) + diff.clamp(0.0, 0.0).sum(-1)
    if math.isinf(p):
        return diff.abs().amax(-1) if diff.shape[-1] else diff.sum(-1)
    if p == 1:
        return diff.abs().sum(-1)
    if p == 2:
        powered = diff * diff
    else:  # |d|^p of a masked |d|: a zero difference gets a zero gradient for p < 1 too
        same = diff == 0
        powered = (diff.abs().masked_fill(same, 1.0) ** p).masked_fill(same, 0.0)
    total = powered.sum(-1)
    zero = total == 0
    safe = total.masked_fill(zero, 1.0)
    root = safe.sqrt() if p == 2 else safe ** (1.0 / p)
    return root.masked_fill(zero, 0.0)


def _euclid_mm(x1, x2):
    """cdist's p = 2 through a matrix product, PyTorch's clamp_min(0).sqrt(): the root of
    a harmless 1 where the square is <= 0, so that a distance of 0 gets a zero gradient
    (Note [the other branch of where] in _ops_special.py)."""
    square1 = (x1 * x1).sum(-1, keepdim=True)  # (*, P, 1)
    square2 = (x2 * x2).sum(-1, keepdim=True)  # (*, R, 1)
    d2 = square1 + square2.transpose(-1, -2) - _C.matmul(x1, x2.transpose(-1, -2)) * 2.0
    positive = d2 > 0
    return where(positive, where(positive, d2, 1.0).sqrt(), 0.0)


def _batch_shape(x1, x2, where):
    return _broadcast_pair(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]),
                           lambda a, b: _C.InvalidArgumentError(
                               f"{where}: the batch dimensions of x1 {tuple(x1.shape)} and x2 "
                               f"{tuple(x2.shape)} do not broadcast (on {x1.device})"))


def dist(input, other, p=2):
    """The p-norm of ``input - other`` (broadcast), a 0-d tensor: PyTorch's dist, which is
    ``linalg.vector_norm(input - other, p)`` (p = 0 counts the non-zero differences, inf
    and -inf take the largest and smallest magnitude).

    Parameters
    ----------
    input, other : Tensor
        Floating tensors that broadcast together, on one device (also the method
        ``x.dist(y)``).
    p : float, optional
        The norm's order (default 2); a one-element tensor is read as its value.

    Returns
    -------
    Tensor
        0-d, of the difference's dtype.

    Raises
    ------
    RuntimeError
        For integer inputs, shapes that do not broadcast, or two devices.

    Examples
    --------
    >>> pydevtensor.dist(pydevtensor.tensor([1., 2.]), pydevtensor.tensor([4., 6.]))
    tensor(5.)
    """
    from .linalg import vector_norm
    _same_device("dist", [_tensor_arg(input, "dist"), _tensor_arg(other, "dist", "other")])
    for t in (input, other):
        if not t.is_floating_point():
            raise RuntimeError(f"dist(): expected floating point inputs, got {input.dtype} and "
                               f"{other.dtype} (shapes {tuple(input.shape)} and "
                               f"{tuple(other.shape)}, on {input.device})")
    if isinstance(p, _C.Tensor):  # a number, as PyTorch's Scalar p: its dtype takes no part
        if p.numel() != 1 or p.requires_grad:
            raise TypeError(f"dist(): argument 'p' must be a number (or a one-element tensor "
                            f"that does not require grad), got a Tensor of shape "
                            f"{tuple(p.shape)} and dtype {p.dtype} on {p.device}"
                            + (" that requires grad" if p.requires_grad else ""))
        p = p.item()
    elif not isinstance(p, (int, float)):
        _real_scalar(p, "dist", "p")
    return vector_norm(input - other, p)


def pdist(input, p=2):
    """The p-norm distance between each pair of rows of input, each pair once: the
    upper triangle (above the diagonal, row by row) of ``cdist(input, input, p)``, as
    ``torch.pdist`` (also ``nn.functional.pdist``).

    Parameters
    ----------
    input : Tensor
        ``(N, M)``, floating point.
    p : float, optional
        The norm's degree, >= 0 (default 2; ``float('inf')`` for the largest
        difference, 0 for the count of differing coordinates).

    Returns
    -------
    Tensor
        ``(N * (N - 1) / 2,)``, of input's dtype: the distances of the pairs (0, 1),
        (0, 2), ..., (1, 2), ...; differentiable (a zero distance gets a zero
        gradient, as PyTorch's).

    Raises
    ------
    RuntimeError
        When input is not 2-d or not floating point, or p is negative.

    Examples
    --------
    >>> x = pydevtensor.tensor([[0., 0.], [3., 4.], [6., 8.]])
    >>> pydevtensor.pdist(x)
    tensor([ 5., 10.,  5.])
    >>> pydevtensor.nn.functional.pdist(x, p=1)
    tensor([ 7., 14.,  7.])
    """
    _tensor_arg(input, "pdist")
    if input.ndim != 2:
        raise RuntimeError(f"pdist(): only supports 2D tensors, got: {input.ndim}D (shape "
                           f"{tuple(input.shape)}, on {input.device})")
    if not input.is_floating_point():
        raise RuntimeError(f"pdist(): only supports floating-point dtypes, got {input.dtype} "
                           f"(shape {tuple(input.shape)}, on {input.device})")
    if not isinstance(p, (builtins.int, builtins.float)) or isinstance(p, builtins.bool):
        raise TypeError(f"pdist(): argument 'p' must be a number, got {type(p).__name__}")
    if not p >= 0:
        raise RuntimeError(f"pdist(): only supports non-negative p values, got {p}")
    from ._ops_diag import triu_indices
    n = input.shape[0]
    rows, cols = triu_indices(n, n, 1, device=input.device)
    return cdist(input, input, p, "donot_use_mm_for_euclid_dist")[rows, cols]


def _real_scalar(value, op, name):
    """value as a float: a real number (bool too, as PyTorch's Scalar) or a one-element
    tensor's value; a complex one is a RuntimeError, anything else a TypeError."""
    if isinstance(value, _C.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, complex):
        raise RuntimeError(f"{op}(): {name} must be real-valued, got {value}")
    if isinstance(value, (str, bytes, _C.Tensor)) or not hasattr(value, "__float__"):
        raise TypeError(f"{op}(): argument '{name}' must be a number, got "
                        f"{type(value).__name__}")
    return float(value)


def renorm(input, p, dim, maxnorm, *, out=None):
    """Each sub-tensor ``input.select(dim, i)`` whose p-norm exceeds maxnorm, scaled to
    the norm maxnorm, as ``torch.renorm``: by ``maxnorm / (norm + 1e-7)`` (PyTorch's
    factor, computed in the norm's dtype; float16 and bfloat16 norms in float32); the
    others are unchanged.  Differentiable (the factor's gradient too, as PyTorch's).

    Parameters
    ----------
    input : Tensor
        Floating point, at least 2-d (also the methods ``x.renorm(p, dim, maxnorm)``
        and ``x.renorm_(p, dim, maxnorm)``, in place).
    p : float
        The norm's order, > 0 (``float('inf')`` for the largest magnitude).
    dim : int
        The dimension whose slices are normed (each over all the other dimensions).
    maxnorm : float
        The largest norm kept, >= 0.
    out : Tensor, optional
        Written with the result and returned.

    Returns
    -------
    Tensor
        input's shape and dtype.

    Raises
    ------
    RuntimeError
        For an integer input, one of fewer than 2 dimensions, p <= 0 (or NaN), maxnorm
        < 0 (or NaN), or a complex p or maxnorm.
    IndexError
        For dim out of range.

    Examples
    --------
    >>> x = pydevtensor.tensor([[3., 4.], [0.3, 0.4]])
    >>> pydevtensor.renorm(x, 2, 0, 1.0)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    >>> x.renorm(1, 1, 2.0)
    tensor([[1.8182, 1.8182],
            [0.1818, 0.1818]])
    """
    x = _tensor_arg(input, "renorm")
    p_, maxnorm_ = _real_scalar(p, "renorm", "p"), _real_scalar(maxnorm, "renorm", "maxnorm")
    if not p_ > 0:
        raise RuntimeError(f"renorm(): non-positive-norm not supported, got p = {p_}")
    if not maxnorm_ >= 0:
        raise RuntimeError(f"renorm(): expected maxnorm to be >= 0 but got {maxnorm_}")
    if x.ndim < 2:
        raise RuntimeError(f"renorm(): input needs at least 2 dimensions, got {x.ndim} "
                           f"dimensions (shape {tuple(x.shape)}, on {x.device})")
    if not x.is_floating_point():
        raise RuntimeError(f"renorm(): expected a floating point input, got {x.dtype} "
                           f"(shape {tuple(x.shape)}, on {x.device})")
    d = _dim(_int_arg(dim, "renorm", "dim"), x.ndim, "renorm", x)
    from .linalg import vector_norm
    wide = _C.float32 if x.dtype in (_C.float16, _C.bfloat16) else None
    norm = vector_norm(x, p_, tuple(i for i in range(x.ndim) if i != d), True, dtype=wide)
    limit = _C.full((), maxnorm_, dtype=norm.dtype, device=x.device)
    eps = _C.full((), 1e-7, dtype=norm.dtype, device=x.device)  # in norm's dtype: PyTorch's
    factor = where(norm > limit, limit / (norm + eps), _C.ones((), dtype=norm.dtype,
                                                                  device=x.device))
    result = x * factor.to(x.dtype)
    if out is not None:
        refuse_grad("renorm", x, out)
        return _out_written(result, out, "renorm")
    return result


_C.Tensor.dist = dist
_C.Tensor.renorm = renorm
_C.Tensor.renorm_ = _in_place(renorm, ("2, 0, 1.0", "tensor([[0.6000, 0.8000], "
                                         "[0.3000, 0.4000]])"), "[[3.0, 4.0], [0.3, 0.4]]")

__all__ = ["cdist", "dist", "pdist", "renorm"]
