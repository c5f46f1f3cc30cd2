"""Products built from the others: ``inner`` (a tensordot over the last dimensions),
``kron`` (broadcast multiply, then reshape),
``tensordot`` (permute and reshape to one matmul) and ``vander`` (running products);
differentiable through the ops they are made of."""
from __future__ import annotations

import numbers

from . import _C
from ._args import flag
from ._ops_index import _dim, _int_arg, _tensor_arg
from ._ops_join import cat
from ._ops_shape import _where
from ._out import takes_out

__all__ = ["inner", "kron", "tensordot", "vander"]


@takes_out("kron", castable=True)
def kron(input, other):
    """The Kronecker product: for matrices, the block matrix whose (i, j) block is
    ``input[i, j] * other``; tensors of fewer dimensions get leading 1s.

    Parameters
    ----------
    input, other : Tensor
        On one device (also the method ``a.kron(b)``).

    Returns
    -------
    Tensor
        Shape ``input.shape[k] * other.shape[k]`` in each dimension.

    Examples
    --------
    >>> pydevtensor.kron(pydevtensor.eye(2), pydevtensor.tensor([[1., 2.], [3., 4.]]))
    tensor([[1., 2., 0., 0.],
            [3., 4., 0., 0.],
            [0., 0., 1., 2.],
            [0., 0., 3., 4.]])
    """
    _tensor_arg(input, "kron")
    _tensor_arg(other, "kron")
    nd = max(input.ndim, other.ndim)
    a_shape = (1,) * (nd - input.ndim) + tuple(input.shape)
    b_shape = (1,) * (nd - other.ndim) + tuple(other.shape)
    a = input.reshape(tuple(x for n in a_shape for x in (n, 1)))
    b = other.reshape(tuple(x for n in b_shape for x in (1, n)))
    return (a * b).reshape(tuple(m * n for m, n in zip(a_shape, b_shape)))


def _dims_arg(dims, a, b):
    if isinstance(dims, _C.Tensor) and dims.numel() == 1:  # a count, as PyTorch's
        value = dims.item()
        if isinstance(value, float) and not value.is_integer():
            raise TypeError(f"tensordot(): dims must be an int or a pair of lists of dims, "
                            f"got a {dims.dtype} tensor holding {value}")
        dims = int(value)
    if isinstance(dims, numbers.Integral) and not isinstance(dims, bool):
        n = int(dims)
        if n < 0:
            raise RuntimeError(f"tensordot(): dims must be >= 0, got {n}")
        if n > a.ndim or n > b.ndim:
            raise RuntimeError(f"tensordot(): dims={n} is more than the dimensions of the "
                               f"operands (shapes {tuple(a.shape)} and {tuple(b.shape)})")
        return list(range(a.ndim - n, a.ndim)), list(range(n))
    if isinstance(dims, _C.Tensor):
        dims = dims.tolist()
    try:
        da, db = dims
    except (TypeError, ValueError):
        raise TypeError(f"tensordot(): dims must be an int or a pair of lists of dims, got "
                        f"{dims!r}") from None
    da = [da] if isinstance(da, numbers.Integral) else list(da)
    db = [db] if isinstance(db, numbers.Integral) else list(db)
    if len(da) != len(db):
        raise RuntimeError(f"tensordot(): both dimension lists should have same length, got "
                           f"{da} and {db}")
    norm = []
    for dl, t in ((da, a), (db, b)):
        out = []
        for d in dl:
            d = _int_arg(d, "tensordot", "dims")
            if t.ndim == 0:  # PyTorch's IndexError (d % 0 was a ZeroDivisionError)
                raise IndexError(f"tensordot(): Dimension specified as {d} but tensor has no "
                                 f"dimensions (a 0-d tensor on {t.device})")
            out.append(_dim(d, t.ndim, "tensordot", t))
        if len(set(out)) != len(out):
            raise RuntimeError(f"tensordot(): dim {dl} lists a dimension more than once (a "
                               f"tensor of shape {tuple(t.shape)})")
        norm.append(out)
    return norm


def tensordot(a, b, dims=2, out=None):
    """Sums the products of a's and b's elements over the paired dimensions: dims=n
    pairs a's last n with b's first n; ``([i, ...], [j, ...])`` pairs a's dim i with b's
    dim j.  The result has a's other dimensions, then b's.

    Parameters
    ----------
    a, b : Tensor
        On one device, of one dtype.
    dims : int or pair of lists of int, optional
        Default 2.  Also a tensor: of one element, a count; else the pair, (2, k).
    out : Tensor, optional
        Written with the result (of its dtype and device, and its shape or no elements:
        then given the result's shape), and returned.

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        When paired dimensions differ in size (neither of them 1: a size 1 broadcasts,
        as PyTorch's), or the lists differ in length; for out= where a or b requires
        grad (grad mode on).

    Examples
    --------
    >>> a = pydevtensor.arange(6.).reshape(2, 3)
    >>> pydevtensor.tensordot(a, pydevtensor.ones(3, 4), dims=1).shape
    pydevtensor.Size([2, 4])
    >>> pydevtensor.tensordot(a, a, dims=([0, 1], [0, 1]))
    tensor(55.)
    """
    if out is not None:
        from ._out import _out_written, refuse_grad
        refuse_grad("tensordot", a, b, out)
        return _out_written(tensordot(a, b, dims), out, "tensordot")
    _tensor_arg(a, "tensordot")
    _tensor_arg(b, "tensordot")
    da, db = _dims_arg(dims, a, b)
    for i, j in zip(da, db):
        if a.shape[i] == b.shape[j]:
            continue
        if a.shape[i] == 1:  # broadcast, as PyTorch: the other summed over that dim
            b = b.sum(j, keepdim=True, dtype=b.dtype)
        elif b.shape[j] == 1:
            a = a.sum(i, keepdim=True, dtype=a.dtype)
        else:
            raise RuntimeError(f"tensordot(): contracted dimensions need to match, but first "
                               f"has size {a.shape[i]} in dim {i} and second has size "
                               f"{b.shape[j]} in dim {j}{_where(a)}")
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    k = 1
    for i in da:
        k *= a.shape[i]
    m = n = 1  # the free sizes, not -1: with k == 0 a -1 could be anything
    for d in free_a:
        m *= a.shape[d]
    for d in free_b:
        n *= b.shape[d]
    left = a.permute(*free_a, *da).reshape(m, k)
    right = b.permute(*db, *free_b).reshape(k, n)
    shape = tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b)
    if shape:
        result = (left @ right).reshape(shape)
    else:  # a full contraction: PyTorch's is a dot, which its CPU autocast leaves alone
        from .amp._state import plain
        result = plain(_C.Tensor.__matmul__, left, right).reshape(shape)
    return result



def inner(input, other, *, out=None):
    """The sum of products over the last dimension of each (NumPy's np.inner): the dot
    product of two vectors; a 0-d argument multiplies.

    Parameters
    ----------
    input, other : Tensor
        Their last dimensions must have the same size (also the method
        ``x.inner(other)``).
    out : Tensor, optional
        Written with the result (of its dtype and device, and its shape or no elements:
        then given the result's shape), and returned.

    Returns
    -------
    Tensor
        Of shape ``input.shape[:-1] + other.shape[:-1]``.

    Raises
    ------
    RuntimeError
        When the last dimensions differ in size, or the devices differ.

    Examples
    --------
    >>> a = pydevtensor.tensor([[1., 2.], [3., 4.]])
    >>> pydevtensor.inner(a, pydevtensor.tensor([1., 1.]))
    tensor([3., 7.])
    """
    if out is not None:
        from ._out import _out_written, refuse_grad
        refuse_grad("inner", input, other, out)
        return _out_written(inner(input, other), out, "inner")
    _tensor_arg(input, "inner")
    _tensor_arg(other, "inner", "other")
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)} (on "
                           f"{input.device})")
    return tensordot(input, other, dims=([input.ndim - 1], [other.ndim - 1]))


_C.Tensor.kron = kron
_C.Tensor.inner = inner


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-d x: column j holds ``x ** (N - 1 - j)`` (``x ** j``
    when increasing), PyTorch's vander.  The powers are running products of x (a column of
    ones, then cumprod), as PyTorch forms them, so integer powers wrap as products do.

    Parameters
    ----------
    x : Tensor
        1-d; a bool tensor gives int64, as in PyTorch.
    N : int, optional
        The number of columns (default: len(x)); 0 gives a (len(x), 0) result.
    increasing : bool, optional
        Powers from 0 up (default: from N - 1 down).

    Returns
    -------
    Tensor
        (len(x), N) of x's dtype (int64 for bool), on x's device.

    Raises
    ------
    RuntimeError
        For x not 1-d, or a negative N.

    Examples
    --------
    >>> pydevtensor.vander(pydevtensor.tensor([1, 2, 3]))
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    x = _tensor_arg(x, "vander", "x")
    increasing = flag(increasing, "vander", "increasing")
    if x.ndim != 1:
        raise RuntimeError(f"vander(): x must be a one-dimensional tensor, got shape "
                           f"{tuple(x.shape)} (on {x.device})")
    n = x.shape[0] if N is None else _int_arg(N, "vander", "N")
    if n < 0:
        raise RuntimeError(f"vander(): N must be non-negative, got {n}")
    if x.dtype == _C.bool:
        x = x.to(_C.int64)
    if n == 0:
        return _C.zeros((x.shape[0], 0), dtype=x.dtype, device=x.device)
    ones = _C.ones((x.shape[0], 1), dtype=x.dtype, device=x.device)
    powers = cat([ones, x.unsqueeze(1).expand(x.shape[0], n - 1)], 1).cumprod(1)
    return powers if increasing else powers.flip(1)
