"""PyTorch's older top-level norm names: frobenius_norm and nuclear_norm (deprecated
there in favour of linalg.vector_norm and linalg.matrix_norm, which they call, with
PyTorch's UserWarning), and norm_except_dim (the norm of each slice along one
dimension: weight normalisation's ``g``).  All three run on every device and have the
gradients of the norms they are made of."""
import warnings

from ._args import sequence
from ._ops_index import _dim, _int_arg, _tensor_arg
from ._out import takes_out

__all__ = ["frobenius_norm", "norm_except_dim", "nuclear_norm"]


def _floating(op, input):
    """PyTorch's NotImplementedError for an integer or bool input."""
    _tensor_arg(input, op)
    if not input.is_floating_point():
        raise NotImplementedError(f"{op}(): input dtype should be either floating point or "
                                  f"complex. Got {input.dtype} instead (shape "
                                  f"{tuple(input.shape)}, on {input.device})")


def _deprecated(op, instead):
    warnings.warn(f"{op} is deprecated and it is just left for JIT compatibility. It will be "
                  f"removed in a future PyTorch release. Please use `{instead}` instead",
                  UserWarning, stacklevel=4)


@takes_out("frobenius_norm")
def frobenius_norm(input, dim, keepdim=False):
    """The 2-norm ``sqrt(sum x**2)`` over one or two dimensions (every one for ``()``), as
    ``torch.frobenius_norm``: ``linalg.vector_norm(input, 2, dim, keepdim)``.

    Deprecated in PyTorch (a UserWarning here too): call
    :func:`linalg.vector_norm` instead.

    Parameters
    ----------
    input : Tensor
        Floating point.
    dim : int or sequence of ints
        At most two dimensions; an empty sequence reduces every one.
    keepdim : bool, optional
        Keep the reduced dimensions with size 1 (default False).

    Returns
    -------
    Tensor
        Of input's dtype.

    Raises
    ------
    RuntimeError
        For more than two dimensions, or one named twice.
    IndexError
        For a dimension out of range.
    NotImplementedError
        For an integer or bool input.

    Examples
    --------
    >>> import warnings
    >>> x = pydevtensor.tensor([[3., 4.], [6., 8.]])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     pydevtensor.frobenius_norm(x, 1), pydevtensor.frobenius_norm(x, (0, 1))
    (tensor([ 5., 10.]), tensor(11.1803))
    """
    from .linalg import vector_norm

    _floating("frobenius_norm", input)
    dims = tuple(sequence(dim, "frobenius_norm", "dim", single=True))
    if len(dims) > 2:
        raise RuntimeError(f"frobenius_norm(): Expected at most 2 dimensions, but got "
                           f"{len(dims)} dimensions instead (dim={dims}, input of shape "
                           f"{tuple(input.shape)}, on {input.device})")
    _deprecated("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    return vector_norm(input, 2, dims if dims else None, keepdim)


@takes_out("nuclear_norm")
def nuclear_norm(input, dim=None, keepdim=False):
    """The nuclear norm (the sum of the singular values) of the matrices over the last
    two dimensions, or over the two in dim, as ``torch.nuclear_norm``:
    ``linalg.matrix_norm(input, 'nuc', dim, keepdim)``.

    PyTorch's two forms are ``nuclear_norm(input, keepdim=False)`` and
    ``nuclear_norm(input, dim, keepdim=False)``: a bool second argument is keepdim.
    Deprecated in PyTorch (a UserWarning here too): call :func:`linalg.matrix_norm`.

    Parameters
    ----------
    input : Tensor
        Floating point (float32 or float64), at least 2-d.
    dim : pair of ints, optional
        The matrices' two dimensions (default the last two).
    keepdim : bool, optional
        Keep them with size 1 (default False).

    Returns
    -------
    Tensor
        Of input's dtype, one value per matrix.

    Raises
    ------
    RuntimeError
        For an input of fewer than 2 dimensions, or a dim that is not two different
        dimensions.
    NotImplementedError
        For an integer, bool or half input.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     pydevtensor.nuclear_norm(pydevtensor.tensor([[3., 0.], [0., -4.]]), True)
    tensor([[7.]])
    """
    from .linalg import matrix_norm

    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        if keepdim is not False:
            raise TypeError(f"nuclear_norm(): dim must be a pair of ints, got {dim!r} (with "
                            f"keepdim={keepdim!r})")
        dim, keepdim = None, dim
    _floating("nuclear_norm", input)
    _deprecated("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)")
    return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm of each slice of v along dim (over every other dimension), in v's
    shape with size 1 but along dim, as ``torch.norm_except_dim``; dim=-1 gives the
    norm of all of v (0-d), as PyTorch's.

    Parameters
    ----------
    v : Tensor
        Floating point.
    pow : int, optional
        The norm's order (default 2; 0 counts the non-zeros, a negative one is
        ``(sum |x|**pow)**(1/pow)``).
    dim : int, optional
        The dimension kept (default 0); -1: none (the whole tensor's norm); another
        negative one counts from the end.

    Returns
    -------
    Tensor
        Of v's dtype: shape ``(1, ..., v.shape[dim], ..., 1)``, or 0-d for dim=-1.

    Raises
    ------
    TypeError
        For a pow or dim that is not an int.
    IndexError
        For a dim out of range.
    NotImplementedError
        For an integer or bool v.

    Examples
    --------
    >>> w = pydevtensor.tensor([[3., 4.], [0., 2.]])
    >>> pydevtensor.norm_except_dim(w)
    tensor([[5.],
            [2.]])
    >>> pydevtensor.norm_except_dim(w, 1, 1), pydevtensor.norm_except_dim(w, 2, -1)
    (tensor([[3., 6.]]), tensor(5.3852))
    """
    from .linalg import vector_norm

    pow = _int_arg(pow, "norm_except_dim", "pow")
    dim = _int_arg(dim, "norm_except_dim", "dim")
    _floating("norm_except_dim", v)
    if dim == -1:
        return vector_norm(v, pow)
    if v.ndim == 0:
        raise IndexError(f"norm_except_dim(): Dimension specified as {dim} but tensor has no "
                         f"dimensions (a 0-d {v.dtype} tensor, on {v.device})")
    d = _dim(dim, v.ndim, "norm_except_dim", v)
    shape = [1] * v.ndim
    shape[d] = v.shape[d]
    # each slice flattened into a row (a 1-d v: rows of one element, their |x|)
    rows = v.movedim(d, 0).reshape(v.shape[d], -1)
    return vector_norm(rows, pow, 1).reshape(shape)
