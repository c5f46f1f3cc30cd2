"""pydevtensor.linalg: norm, as torch.linalg.norm (issue 17), composed from the
reductions so it runs on every device (and has their gradients); the matrix norms
ord 2, -2 and 'nuc' come from svdvals (with its gradient).  The solvers (solve, inv,
det, slogdet, cholesky and their ``_ex`` forms, LinAlgError) are in _linalg_solve.py;
the decompositions (eigh, eigvalsh, svd, svdvals) in _linalg_decomp.py; matrix_rank,
pinv and cond in _linalg_spectral.py; lu, lu_factor, lu_factor_ex and lu_solve in
_linalg_lu.py; ldl_factor, ldl_factor_ex and ldl_solve in _linalg_ldl.py; matrix_exp
in _linalg_exp.py; matrix_sqrth and polar in _linalg_roots.py; vander, diagonal and
matmul in _linalg_names.py."""
import math

from . import _C, _args
from ._numpy_names import native_names
from ._ops_index import _dim, _tensor_arg
from ._out import takes_out
from ._linalg_solve import (LinAlgError, cholesky, cholesky_ex, det, inv, inv_ex, slogdet,
                            solve, solve_ex)
from ._linalg_decomp import eigh, eigvalsh, qr, svd, svdvals
from ._linalg_lstsq import lstsq
from ._linalg_lu import lu, lu_factor, lu_factor_ex, lu_solve
from ._linalg_ldl import ldl_factor, ldl_factor_ex, ldl_solve
from ._linalg_exp import matrix_exp
from ._linalg_roots import matrix_sqrth, polar
from ._linalg_names import diagonal, matmul, vander
from ._linalg_more import solve_triangular, vecdot
from ._linalg_spectral import cond, matrix_rank, pinv
from ._linalg_tensor import householder_product, tensorinv, tensorsolve
from ._ops_linalg_small import linalg_cross as cross, matrix_power, multi_dot
from .autograd.dispatch import recorded


def _dims(dim, ndim, op="linalg.norm", of=None):
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(_args.sequence(dim, op, "dim",
                                                                   single=True))
    return tuple(_dim(d, ndim, op, of) for d in dims)


@takes_out("linalg.vector_norm")
@native_names(input="x")
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """``(sum |x|**ord)**(1/ord)`` over dim (every element when None); ord inf / -inf gives
    the max / min of ``|x|``, ord 0 the count of non-zeros.

    Parameters
    ----------
    x : Tensor
        Floating point (also by PyTorch's keyword ``input=``).
    ord : float, optional
        The order (default 2).
    dim : int or tuple of ints, optional
        The dimensions to reduce (default: every one).
    keepdim : bool, optional
        Keep the reduced dimensions with size 1.
    dtype : pydevtensor.dtype, optional
        Converts x to this floating dtype first (no narrower than x's).

    Returns
    -------
    Tensor
        0-d when every dimension is reduced.

    Raises
    ------
    NotImplementedError
        When x is not floating point (also with dtype given), as PyTorch's.
    RuntimeError
        For a dtype narrower than x's, or for ord < 0 or inf over no elements (the
        reduction has no identity), as PyTorch's.

    Examples
    --------
    >>> pydevtensor.linalg.vector_norm(pydevtensor.tensor([3., -4.]))
    tensor(5.)
    >>> pydevtensor.linalg.vector_norm(pydevtensor.tensor([3., -4.]), float("inf"))
    tensor(4.)
    """
    _tensor_arg(x, "linalg.vector_norm", "x")
    x = _norm_input(x, dtype, "linalg.vector_norm")
    if not isinstance(ord, (int, float)):
        _args.real(ord, "linalg.vector_norm", "ord")
    dims = _dims(dim, x.ndim, "linalg.vector_norm", x)
    reduce_dims = dims if dims is not None else tuple(range(x.ndim))
    if ord < 0 or ord == math.inf:  # no identity: the min / max over nothing, or 1 / 0
        _refuse_empty(x, ord, dims, reduce_dims)
    kw = {"keepdim": keepdim} if x.ndim else {}
    if (ord == 2 or ord == 1) and not isinstance(ord, bool):
        # one pass of the sum of squares (or of |x|) kernel, and norm's gradient (zero
        # where the norm is zero), rather than abs, a square and a sum: 1e5 float32
        # 33 -> 7 us
        return x.norm(ord, reduce_dims, **kw) if x.ndim else x.norm(ord)
    return _vector_norm_p(x, ord, reduce_dims if x.ndim else None, keepdim)


def _norm_input(x, dtype, op):
    """x in dtype, by PyTorch's rules for the norms: x floating point (also with dtype
    given), dtype floating point and no narrower than x's (float16 to float32, not float64
    to float32)."""
    dtype = _args.dtype(dtype, op.rstrip("()"))
    if not x.is_floating_point():  # PyTorch's NotImplementedError (a RuntimeError)
        raise NotImplementedError(f"{op}: expected a floating point input, got {x.dtype} "
                                  f"(shape {tuple(x.shape)}, on {x.device})")
    if dtype is None or dtype == x.dtype:
        return x
    if not dtype.is_floating_point or _C.promote_types(x.dtype, dtype) != dtype:
        raise RuntimeError(f"{op}: the dtype of the input ({x.dtype}) should be convertible "
                           f"without narrowing to the specified dtype ({dtype}), a floating "
                           f"one (input of shape {tuple(x.shape)}, on {x.device})")
    return x.to(dtype)


def _refuse_empty(x, ord, dims, reduce_dims):
    """PyTorch's refusal of a norm with no identity (ord < 0 or inf) over no elements (a
    0-d x, one element, has no dims to index: its dim 0 or -1 is the element)."""
    if x.ndim == 0:
        return
    where = f"linalg.vector_norm cannot compute the {ord:g} norm"
    if dims is None and x.numel() == 0:
        raise RuntimeError(f"{where} on an empty tensor because the operation does not have "
                           f"an identity (input of shape {tuple(x.shape)} on {x.device})")
    for d in reduce_dims:
        if x.shape[d] == 0:
            raise RuntimeError(f"{where} on the dimension {d} because this dimension is empty "
                               f"and the operation does not have an identity (input of shape "
                               f"{tuple(x.shape)} on {x.device})")


@recorded("_vector_norm_p")
def _vector_norm_p(x, ord, dims, keepdim):
    """``(sum |x|**ord)**(1/ord)`` over dims (ord 0: the count of non-zeros; inf / -inf:
    the max / min of ``|x|``), recorded as one node, LinalgVectorNormBackward0
    (autograd/derivatives.py): PyTorch's gradient, 0 where a zero norm or a zero element
    would make it inf * 0 (inf: amax's and abs's, AmaxBackward0 then AbsBackward0 when
    composed).  float16 and bfloat16 are summed in float32 and rounded once, as
    PyTorch's opmath (|x|**3 of 1000 float16 values near 100 overflowed)."""
    if ord == math.inf or ord == -math.inf:  # exact in every dtype
        a = x.abs()
        if not x.ndim:
            return a
        return a.amax(dims, keepdim=keepdim) if ord > 0 else a.amin(dims, keepdim=keepdim)
    if x.dtype == _C.float16 or x.dtype == _C.bfloat16:
        return _vector_norm_p(x.float(), ord, dims, keepdim).to(x.dtype)
    a = x.abs()
    kw = {"keepdim": keepdim} if x.ndim else {}
    if ord == 0:
        return (a != 0).to(x.dtype).sum(dims, **kw)
    return (a ** ord).sum(dims, **kw) ** (1.0 / float(ord))  # a NumPy float32 ord too


@takes_out("linalg.matrix_norm")
@native_names(input="A")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm over the two dimensions dim: 'fro' (Frobenius), 1 / -1 (the max /
    min column sum of ``|A|``), inf / -inf (the max / min row sum), 2 / -2 (the largest /
    smallest singular value), 'nuc' (the sum of the singular values).

    Parameters
    ----------
    A : Tensor
        At least 2-D, floating point (also by PyTorch's keyword ``input=``).
    ord : {'fro', 1, -1, inf, -inf, 2, -2, 'nuc'}, optional
        The norm (default 'fro'). 2, -2 and 'nuc' take the singular values
        (linalg.svdvals, and its gradient).
    dim : tuple of two ints, optional
        The matrix dimensions (default the last two).
    keepdim : bool, optional
        Keep them with size 1.
    dtype : pydevtensor.dtype, optional
        Converts A to this floating dtype first (no narrower than A's).

    Returns
    -------
    Tensor
        One norm per matrix.

    Raises
    ------
    NotImplementedError
        When A is not floating point (also with dtype given), as PyTorch's.
    RuntimeError
        When A has fewer than 2 dimensions, or dtype is narrower than A's.
    IndexError
        For ord -2, -1 or -inf of an empty matrix (the min of nothing), as PyTorch's.

    Examples
    --------
    >>> A = pydevtensor.tensor([[1., -2.], [3., 4.]])
    >>> pydevtensor.linalg.matrix_norm(A)
    tensor(5.4772)
    >>> pydevtensor.linalg.matrix_norm(A, 1)
    tensor(6.)
    >>> pydevtensor.linalg.matrix_norm(pydevtensor.tensor([[3., 0.], [0., 4.]]), 2)
    tensor(4.)
    """
    _tensor_arg(A, "linalg.matrix_norm", "A")
    A = _norm_input(A, dtype, "linalg.matrix_norm")
    if A.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 "
                           f"dimensions (got shape {tuple(A.shape)})")
    dims = _dims(dim, A.ndim, "linalg.matrix_norm", A)
    if dims is None or len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim!r} (A of "
                           f"shape {tuple(A.shape)}, on {A.device})")
    r, c = dims
    if r == c:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got {dim!r} (A of "
                           f"shape {tuple(A.shape)}, on {A.device})")
    if ord == "fro":
        return vector_norm(A, 2, (r, c), keepdim)
    if ord in (2, -2, "nuc"):
        return _singular_norm(A, ord, r, c, keepdim)
    if ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord!r} not supported (fro, nuc, 1, "
                           f"-1, 2, -2, inf, -inf)")
    # as at::linalg_matrix_norm: the 1-norms of the columns (ord +-1) or rows (+-inf), then
    # their max / min (LinalgVectorNormBackward0 under AmaxBackward0 / AminBackward0)
    summed, red = (r, c) if ord in (1, -1) else (c, r)
    s = vector_norm(A, 1, summed, keepdim)
    if not keepdim and summed < red:
        red -= 1
    if ord > 0:
        # the max of no sums is 0, as PyTorch's (a norm of an empty matrix); the min refuses
        return s.amax(red, keepdim) if s.shape[red] else s.sum(red, keepdim)
    return s.amin(red, keepdim)


def _singular_norm(A, ord, r, c, keepdim):
    """The largest (2) or smallest (-2) singular value, or their sum ('nuc'), of the
    matrices in dims r and c of A, in A's dtype."""
    if not A.is_floating_point():
        raise RuntimeError(f"linalg.matrix_norm: expected a floating point input, got "
                           f"{A.dtype} (on {A.device})")
    rest = [d for d in range(A.ndim) if d not in (r, c)]
    x = A.permute(*rest, r, c)
    m, n = x.shape[-2], x.shape[-1]
    if (m == 0 or n == 0) and ord in ("nuc", 2):
        # the sum or max of no singular values: 0, recorded (a zero gradient), as PyTorch's
        out = x.sum((-2, -1))
    elif m == 0 or n == 0:  # PyTorch's amin's IndexError
        raise _C.IndexOutOfRangeError(f"linalg.matrix_norm: ord={ord!r} of an empty matrix "
                                      f"{tuple(A.shape)} (on {A.device}): the min of no "
                                      "singular values")
    else:
        sv = svdvals(x)
        # amax / amin: tied extreme singular values share the gradient, as PyTorch's
        out = sv.sum(-1) if ord == "nuc" else sv.amax(-1) if ord == 2 else sv.amin(-1)
    if keepdim:
        for d in sorted((r, c)):
            out = out.unsqueeze(d)
    return out


@takes_out("linalg.norm")
@native_names(input="A")
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.norm: ord=None gives the 2-norm of the flattened input (the Frobenius
    norm of a matrix); a vector ord with dim an int or None on 1-D input, a matrix ord
    with two dims or a 2-D input.

    Parameters
    ----------
    A : Tensor
        Floating point (also by PyTorch's keyword ``input=``).
    ord : float or str, optional
        As vector_norm or matrix_norm.
    dim : int or tuple of ints, optional
        One dim: a vector norm; two: a matrix norm.
    keepdim : bool, optional
        Keep the reduced dimensions with size 1.
    dtype : pydevtensor.dtype, optional
        Converts A to this floating dtype first (no narrower than A's).

    Returns
    -------
    Tensor

    Raises
    ------
    RuntimeError
        When ord is given without dim for an input of more than 2 dimensions.

    Examples
    --------
    >>> pydevtensor.linalg.norm(pydevtensor.tensor([[1., -2.], [3., 4.]]))
    tensor(5.4772)
    >>> pydevtensor.linalg.norm(pydevtensor.tensor([3., -4.]), 1)
    tensor(7.)
    """
    _tensor_arg(A, "linalg.norm", "A")
    if dim is not None and not isinstance(dim, int) and len(
            tuple(_args.sequence(dim, "linalg.norm", "dim", single=True))) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                           f"Got {list(dim)} (A of shape {tuple(A.shape)}, on {A.device})")
    if ord is None and dim is None and dtype is None and isinstance(A, _C.Tensor) and \
            A.is_floating_point():
        return A.norm(keepdim=keepdim)  # the 2-norm of every element: norm's one call
    if ord is not None and dim is None and A.ndim > 2:  # also a matrix ord (not batched)
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {A.ndim}D (of shape {tuple(A.shape)}, on "
                           f"{A.device}).")
    if isinstance(ord, str) or (ord is not None and dim is None and A.ndim == 2) or (
            dim is not None and not isinstance(dim, int) and len(tuple(dim)) == 2
            and ord is not None):
        return matrix_norm(A, "fro" if ord is None else ord,
                           (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh",
           "eigvalsh", "householder_product", "inv", "inv_ex", "ldl_factor", "ldl_factor_ex",
           "ldl_solve", "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matmul",
           "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "matrix_sqrth",
           "multi_dot", "norm", "pinv", "polar", "qr", "slogdet", "solve", "solve_ex",
           "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot",
           "vector_norm"]
