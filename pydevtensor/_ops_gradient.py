"""gradient: the derivative of sampled values along each dimension by finite
differences, PyTorch's torch.gradient (NumPy's numpy.gradient), as a composition.

Note [gradient]: PyTorch's formulas, so the same roundings and dtypes.  With a spacing
h, the interior is the central difference ``(f[i+1] - f[i-1]) / h / 2``, the edges one
sided: ``(f[1] - f[0]) / h`` (edge_order 1) or ``(-1.5 f[0] + 2 f[1] - 0.5 f[2]) / h``
(edge_order 2, second-order accurate), and their mirror images at the end.  With
coordinates x (spacings d1 = x[i] - x[i-1], d2 = x[i+1] - x[i] around the point i) the
interior is second-order accurate for any spacing, ``a f[i-1] + b f[i] + c f[i+1]``
with ``a = -d2 / (d1 (d1 + d2))``, ``b = (d2 - d1) / (d1 d2)``, ``c = d1 / (d2 (d1 +
d2))``, the edges the one-sided forms of the same order.  The pieces are slices,
products and a ``cat`` on the input's device, so autograd records them; an integer
input gives the default floating dtype (true division), and coordinates of a wider
dtype widen the interior (the edges divide by a 0-d spacing, which does not).
"""
import numbers

from . import _C
from ._ops_index import _dim, _int_arg, _tensor_arg
from ._ops_join import _same_device, cat


def _dims(dim, f):
    """The dimensions of f, wrapped, in the order given (each once)."""
    ndim = f.ndim
    if dim is None:
        return list(range(ndim))
    listed = dim if isinstance(dim, (list, tuple)) else [dim]
    dims = [_dim(_int_arg(d, "gradient", "dim"), ndim, "gradient", f) for d in listed]
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"gradient(): dim {d} appears multiple times in the list of "
                               f"dims {tuple(listed)}")
    return dims


def _number(value):
    """value as a Python number when it is one (bool too, as PyTorch's Scalar) or a 0-d
    tensor; None otherwise."""
    if isinstance(value, _C.Tensor):
        return value.item() if value.ndim == 0 else None
    if isinstance(value, numbers.Real):
        return value
    if isinstance(value, numbers.Number):
        raise TypeError(f"gradient(): spacing must be real, got {type(value).__name__}")
    return None


def _spacings(x, spacing, dims, dim_given):
    """One spacing per dimension of dims: a number, or a coordinates tensor."""
    h = _number(1 if spacing is None else spacing)
    if h is not None:
        return [h] * len(dims)
    if not isinstance(spacing, (list, tuple)):
        raise TypeError(f"gradient(): spacing must be a number, a list of numbers or a list "
                        f"of 1-d coordinate tensors, got {type(spacing).__name__}")
    if len(spacing) != len(dims):
        if dim_given:
            raise RuntimeError(f"gradient(): expected spacing to be unspecified, a scalar or "
                               f"it's spacing and dim arguments to have the same length, but "
                               f"got a spacing argument of length {len(spacing)} and a dim "
                               f"argument of length {len(dims)}.")
        raise RuntimeError(f"gradient(): expected spacing to be unspecified, a scalar, or a "
                           f"list of length equal to 'self.dim() = {x.ndim}', since dim "
                           f"argument was not given, but got a list of length "
                           f"{len(spacing)}")
    tensors = [isinstance(s, _C.Tensor) for s in spacing]
    if all(tensors) and spacing:
        _same_device("gradient", [x, *spacing])
        for s, d in zip(spacing, dims):
            if s.ndim != 1 or s.shape[0] != x.shape[d]:
                raise RuntimeError(f"gradient(): each coordinates tensor must be 1-d and hold "
                                   f"one coordinate per sample along its dimension, got "
                                   f"shape {tuple(s.shape)} for dim {d} of input "
                                   f"{tuple(x.shape)} (on {x.device})")
        return list(spacing)
    values = [None if t else _number(s) for s, t in zip(spacing, tensors)]
    if None in values:
        raise TypeError(f"gradient(): spacing must be all numbers or all 1-d coordinate "
                        f"tensors, got {', '.join(type(s).__name__ for s in spacing)}")
    return values


def _uniform(f, d, h, edge_order):
    """Note [gradient], for the spacing h."""
    n = f.shape[d]
    center = (f.narrow(d, 2, n - 2) - f.narrow(d, 0, n - 2)) / h
    if edge_order == 1:
        head = (f.narrow(d, 1, 1) - f.narrow(d, 0, 1)) / h
        tail = (f.narrow(d, n - 1, 1) - f.narrow(d, n - 2, 1)) / h
    else:
        head = (f.narrow(d, 0, 1) * -1.5 + f.narrow(d, 1, 1) * 2 - f.narrow(d, 2, 1) * 0.5) / h
        tail = (f.narrow(d, n - 3, 1) * 0.5 + f.narrow(d, n - 2, 1) * -2
                + f.narrow(d, n - 1, 1) * 1.5) / h
    return cat([head, center / 2, tail], d)


def _coordinates(f, d, x, edge_order):
    """Note [gradient], for the coordinates x along d."""
    n = f.shape[d]
    shape = [1] * f.ndim
    shape[d] = -1
    dx = x.diff()
    d1, d2 = dx[:-1], dx[1:]
    a = (-d2 / (d1 * (d1 + d2))).reshape(shape)
    b = ((d2 - d1) / (d1 * d2)).reshape(shape)
    c = (d1 / (d2 * (d1 + d2))).reshape(shape)
    center = a * f.narrow(d, 0, n - 2) + b * f.narrow(d, 1, n - 2) + c * f.narrow(d, 2, n - 2)
    if edge_order == 1:
        head = (f.narrow(d, 1, 1) - f.narrow(d, 0, 1)) / dx[0]
        tail = (f.narrow(d, n - 1, 1) - f.narrow(d, n - 2, 1)) / dx[-1]
    else:
        h0, h1, t0, t1 = dx[0], dx[1], dx[-1], dx[-2]
        head = (-(2.0 * h0 + h1) / (h0 * (h0 + h1)) * f.narrow(d, 0, 1)
                + (h0 + h1) / (h0 * h1) * f.narrow(d, 1, 1)
                + -h0 / (h1 * (h0 + h1)) * f.narrow(d, 2, 1))
        tail = (t0 / (t1 * (t0 + t1)) * f.narrow(d, n - 3, 1)
                + -(t0 + t1) / (t0 * t1) * f.narrow(d, n - 2, 1)
                + (2 * t0 + t1) / (t0 * (t0 + t1)) * f.narrow(d, n - 1, 1))
    return cat([head, center, tail], d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative of the values of input along each dimension, estimated by finite
    differences (central inside, one-sided at the edges), as ``torch.gradient`` and
    ``numpy.gradient``.

    Parameters
    ----------
    input : Tensor
        The samples of a function, one per point of a grid (not bool nor uint8).
    spacing : float, list of floats or list of Tensors, optional
        The distance between neighbouring samples: one for every dimension (default
        1), one per dimension of dim, or one 1-d tensor of coordinates per dimension of
        dim (its length the input's size there; the samples may be unevenly spaced).
    dim : int or list of ints, optional
        The dimensions to differentiate along (default: all, in order).
    edge_order : {1, 2}, optional
        The accuracy order of the one-sided differences at the edges.

    Returns
    -------
    tuple of Tensor
        One derivative per dimension of dim, each of input's shape; floating (an
        integer input gives the default dtype).  Differentiable.

    Raises
    ------
    RuntimeError
        For edge_order other than 1 or 2, a dimension of fewer than edge_order + 1
        samples, a spacing list of another length than dim's, coordinates that are not
        1-d or not one per sample, a repeated dim, or a bool or uint8 input.
    IndexError
        For a dim out of range.
    TypeError
        For a spacing that is neither numbers nor tensors.

    Examples
    --------
    >>> f = pydevtensor.tensor([1., 4., 9., 16., 25.])
    >>> pydevtensor.gradient(f)
    (tensor([3., 4., 6., 8., 9.]),)
    >>> pydevtensor.gradient(f, spacing=[pydevtensor.tensor([0., 1., 2., 4., 5.])])
    (tensor([3.0000, 4.0000, 4.5000, 7.1667, 9.0000]),)
    >>> pydevtensor.gradient(pydevtensor.tensor([[1., 2., 4.], [2., 5., 9.]]), dim=1,
    ...                      edge_order=2)
    (tensor([[0.5000, 1.5000, 2.5000],
            [2.5000, 3.5000, 4.5000]]),)
    """
    f = _tensor_arg(input, "gradient")
    if f.dtype in (_C.bool, _C.uint8):
        raise RuntimeError(f"gradient(): does not support {f.dtype} input (shape "
                           f"{tuple(f.shape)}, on {f.device})")
    if isinstance(edge_order, bool) or edge_order not in (1, 2):
        raise RuntimeError(f"gradient(): only supports edge_order=1 and edge_order=2, got "
                           f"{edge_order!r}")
    dims = _dims(dim, f)
    spacings = _spacings(f, spacing, dims, dim is not None)
    for d in dims:
        size = f.shape[d] if f.ndim else 1
        if size < edge_order + 1:
            raise RuntimeError(f"gradient(): expected each dimension size to be at least "
                               f"edge_order+1 = {edge_order + 1}, but dim {d} of input "
                               f"{tuple(f.shape)} has {size} (on {f.device})")
    return tuple(_coordinates(f, d, h, edge_order) if isinstance(h, _C.Tensor)
                 else _uniform(f, d, h, edge_order) for d, h in zip(dims, spacings))


__all__ = ["gradient"]
