"""Public names of the reductions (issue 4), re-exported by pydevtensor/__init__.

sum, mean, prod, max, min, amax, amin, argmax, argmin and norm, each also a Tensor
method.  ``max(x, dim)`` and ``min(x, dim)`` return ``(values, indices)`` as a
``return_types.max`` / ``return_types.min`` (a named struct sequence, like
``torch.return_types``).  See Note [reduction accuracy] in csrc/core/pdt_reduce.h
for the float32 tolerance.
"""
import importlib as _importlib
import sys as _sys
import types as _types

from . import _C, _args, _lazy_table

sum = _C.sum
mean = _C.mean
prod = _C.prod
max = _C.max
min = _C.min
amax = _C.amax
amin = _C.amin
argmax = _C.argmax
argmin = _C.argmin
_c_norm = _C.norm
_c_tensor_norm = _C.Tensor.norm


def norm(input, p="fro", dim=None, keepdim=False, dtype=None, **kwargs):
    """The Frobenius (p='fro', the default), 2-, 1- or nuclear (p='nuc') norm of input,
    over every element or over dim.

    Parameters
    ----------
    input : Tensor
        Floating point (also the method ``x.norm(p)``).
    p : {'fro', 'nuc'} or number, optional
        'fro' and 2: the square root of the sum of squares; 1: the sum of absolute
        values; another number: ``linalg.vector_norm(input, p, dim)`` (inf the largest
        ``|x|``, 0 the count of non-zeros); 'nuc': the sum of the singular values of a
        matrix (a 2-D input, or the two dimensions in dim), as
        ``linalg.matrix_norm(input, 'nuc', dim)``.
    dim : int or tuple of ints, optional
        The dimensions reduced (default all; two for 'nuc').
    keepdim : bool, optional
        Keep the reduced dimensions with size 1.
    dtype : pydevtensor.dtype, optional
        The floating dtype input is converted to first (no narrower than input's).

    Returns
    -------
    Tensor
        The norm (0-d without dim).

    Raises
    ------
    RuntimeError
        For p='nuc' without dim on an input that is not 2-D, or with dtype given, an
        input that is not floating point or a dtype narrower than input's, as PyTorch's.

    Examples
    --------
    >>> x = pydevtensor.tensor([[3., 0.], [0., 4.]])
    >>> pydevtensor.norm(x)
    tensor(5.)
    >>> pydevtensor.norm(x, p="nuc")
    tensor(7.)
    """
    return _norm(_c_norm, input, p, dim, keepdim, dtype, kwargs)


def _norm(c_norm, input, p, dim, keepdim, dtype, kwargs):
    """norm's and Tensor.norm's body; c_norm, the C function or method, takes 'fro', 1
    and 2 (and the others' bad arguments)."""
    p = _args.number(p)
    if isinstance(p, str) and p == "nuc":
        return _nuclear(input, dim, keepdim, dtype, kwargs)
    _given_dtype(input, dtype)
    if _other_p(p):
        return _vector_norm(input, p, dim, keepdim, dtype, kwargs)
    return c_norm(input, p, **_given(dim, keepdim, dtype), **kwargs)


def _given(dim, keepdim, dtype):
    """The keywords a caller gave (NumPy's axis= and keepdims= may come in kwargs)."""
    out = {} if dim is None else {"dim": dim}
    if keepdim:
        out["keepdim"] = keepdim
    if dtype is not None:
        out["dtype"] = dtype
    return out


def _given_dtype(input, dtype):
    """PyTorch's checks of norm's dtype= (linalg.vector_norm's): a floating input, and a
    floating dtype no narrower than its."""
    if dtype is not None and isinstance(input, _C.Tensor):
        from .linalg import _norm_input
        _norm_input(input, dtype, "norm()")


def _other_p(p):
    """Whether p is a number the C kernel does not take (it takes 'fro', 1 and 2, and
    refuses other strings): inf, -inf, 0, 3, 0.5, NaN ... go to linalg.vector_norm, as
    PyTorch's norm sends them (p=NaN gives NaN there)."""
    return isinstance(p, (int, float)) and not isinstance(p, bool) and p not in (1, 2)


def _numpy_keywords(dim, keepdim, kwargs):
    """(dim, keepdim) with NumPy's axis= and keepdims= taken from kwargs, which must hold
    nothing else."""
    dim = kwargs.pop("axis", dim)
    keepdim = kwargs.pop("keepdims", keepdim)
    if kwargs:
        raise TypeError(f"norm() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return dim, keepdim


def _vector_norm(x, p, dim, keepdim, dtype, kwargs):
    from .linalg import vector_norm

    dim, keepdim = _numpy_keywords(dim, keepdim, kwargs)
    return vector_norm(x, p, dim, keepdim, dtype=dtype)


def _nuclear(x, dim, keepdim, dtype, kwargs):
    from .linalg import matrix_norm

    dim, keepdim = _numpy_keywords(dim, keepdim, kwargs)
    if dim is None and x.ndim != 2:  # PyTorch's takes every dim: no batch of matrices
        raise RuntimeError(f"norm(): p='nuc' without dim needs a 2-D input (dim must be a "
                           f"2-tuple), got {x.ndim}-D of shape {tuple(x.shape)} (on "
                           f"{x.device}); give dim=(-2, -1) for a batch of matrices")
    return matrix_norm(x, "nuc", dim=(-2, -1) if dim is None else dim, keepdim=keepdim,
                       dtype=dtype)


def _tensor_norm(self, p="fro", dim=None, keepdim=False, dtype=None, **kwargs):
    """The norm of self, as pydevtensor.norm(self, p, dim, keepdim, dtype=dtype).

    Parameters
    ----------
    p : {'fro', 'nuc'} or number, optional
        'fro' (the default) and 2, 1, another number (``linalg.vector_norm``), or 'nuc'
        (the sum of singular values).
    dim : int or tuple of ints, optional
        The dimensions reduced (default all; two for 'nuc').
    keepdim : bool, optional
        Keep the reduced dimensions with size 1.
    dtype : pydevtensor.dtype, optional
        The floating dtype self is converted to first (no narrower than its own).

    Returns
    -------
    Tensor
        The norm.

    Examples
    --------
    >>> pydevtensor.tensor([3., 4.]).norm()
    tensor(5.)
    """
    return _norm(_c_tensor_norm, self, p, dim, keepdim, dtype, kwargs)


_C.Tensor.norm = _tensor_norm

_max_type, _min_type = _C._return_types()


class _ReturnTypes(_types.SimpleNamespace):
    """The namedtuple result types.  Those of a module not loaded yet (Note [lazy ops
    modules] in _lazy.py; _lazy_table.RETURN_TYPES) load it when first read: without this,
    ``pydevtensor.return_types.sort`` raised AttributeError in a fresh interpreter until
    something had called sort."""

    def __getattr__(self, name):  # only for a name not set yet
        module = _OWNERS.get(name)
        if module is None:
            raise AttributeError(f"pydevtensor.return_types has no attribute '{name}'")
        _importlib.import_module(f"{__package__}.{module}")
        return _types.SimpleNamespace.__getattribute__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(_OWNERS))


_OWNERS = {n: m for m, names in _lazy_table.RETURN_TYPES.items() for n in names}
return_types = _ReturnTypes(max=_max_type, min=_min_type)
return_types.__doc__ = "The named result types of the ops that return several tensors."
# importable by its name, as torch.return_types is, so that pickle finds the types (they
# name it as their module): pickle.dumps(max(x, 1)) failed with "import of module
# 'pydevtensor.return_types' failed"
_sys.modules.setdefault(f"{__package__}.return_types", return_types)

__all__ = ["amax", "amin", "argmax", "argmin", "max", "mean", "min", "norm", "prod",
           "return_types", "sum"]
