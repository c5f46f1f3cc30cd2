"""Ops along one dimension built from slices and cat: diff, cumprod, roll, and the
``Tensor.mT`` / ``Tensor.mH`` properties.

They are compositions of basic slicing (views), cat, subtraction and multiplication,
so they run on every device and autograd records the pieces.  cumprod is a
Hillis-Steele scan: ceil(log2 n) steps, each multiplying the running products by
themselves shifted by 1, 2, 4, ... positions (ones shifted in), so its gradient is the
product rule's and needs no division: zeros in the input get the exact gradient.  Without
a gradient to record, a device with a row kernel for it (the CPU's, csrc/cpu/cpu_index.c)
multiplies each row left to right in one pass instead.
"""
import builtins

from . import _C, _args
from ._numpy_names import numpy_names
from ._ops_index import _dim, _int_arg, _tensor_arg
from ._ops_join import cat
from ._ops_real import _identity_on_0d
from ._out import _out_written, refuse_grad, takes_out
from .autograd.dispatch import derivative, recorded
from .autograd.node import Node


def _narrow(x, d, start, stop):
    """x[..., start:stop, ...] along dim d (a view)."""
    return x[(slice(None),) * d + (slice(start, stop),)]


@numpy_names
@takes_out("diff", castable=True)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along dim, ``x[i + 1] - x[i]`` (for bool tensors
    ``x[i + 1] != x[i]``), after joining prepend before and append after input.

    Parameters
    ----------
    input : Tensor
        At least 1-d (also the method ``x.diff()``).
    n : int, optional
        How many times to difference (default 1; 0 gives input).
    dim : int, optional
        The dimension (default -1, the last).
    prepend, append : Tensor, optional
        Joined to input along dim first; their sizes must match input's elsewhere.

    Returns
    -------
    Tensor
        n elements shorter along dim (empty when n is at least the joined length);
        the dtype is the promoted one of input, prepend and append.

    Raises
    ------
    RuntimeError
        For a 0-d input, or a negative n.

    Examples
    --------
    >>> x = pydevtensor.tensor([1, 3, 6, 10])
    >>> pydevtensor.diff(x), x.diff(n=2)
    (tensor([2, 3, 4]), tensor([1, 1]))
    >>> pydevtensor.diff(x, prepend=pydevtensor.tensor([0]))
    tensor([1, 2, 3, 4])
    """
    x = _tensor_arg(input, "diff")
    n = _int_arg(n, "diff", "n")
    dim = _int_arg(dim, "diff", "dim")
    if x.ndim == 0:
        raise RuntimeError(f"diff(): expects input to be at least one-dimensional, got a 0-d "
                           f"{x.dtype} tensor (on {x.device})")
    if n < 0:
        raise RuntimeError(f"diff(): order n must be non-negative, got {n}")
    d = _dim(dim, x.ndim, "diff", x)
    parts = [p for p in (prepend, x, append) if p is not None]
    for name, p in (("prepend", prepend), ("append", append)):
        if p is not None:
            _tensor_arg(p, "diff", name)
            if p.ndim != x.ndim:
                raise RuntimeError(f"diff(): {name} must have input's {x.ndim} dimensions, "
                                   f"got shape {tuple(p.shape)} against input's "
                                   f"{tuple(x.shape)} (on {x.device})")
    if len(parts) > 1:
        x = cat(parts, d)
    for _ in range(n):
        size = x.shape[d]
        if size == 0:
            break
        after, before = _narrow(x, d, 1, size), _narrow(x, d, 0, size - 1)
        x = after != before if x.dtype == _C.bool else after - before
    return x if x is not input else x.clone()


def _cumprod(x, d):
    size = x.shape[d]
    shift = 1
    while shift < size:
        pad = list(x.shape)
        pad[d] = shift
        ones = _C.ones(tuple(pad), dtype=x.dtype, device=x.device)
        x = x * cat([ones, _narrow(x, d, 0, size - shift)], d)
        shift *= 2
    return x


@numpy_names
def cumprod(input, dim, *, dtype=None, out=None):
    """Running products along dim.  Floating inputs keep their dtype; integers and bool
    give int64 (as cumsum).

    The products are formed in float64 for float32 and the half types, then rounded once
    to the input's dtype (within about one ulp of the exact product, as PyTorch's);
    integers wrap as int64's.  On the CPU without a gradient to record each row is
    multiplied left to right (NumPy's and PyTorch's order); on CUDA, and where autograd
    records, by a scan of ceil(log2 n) steps (products of 1, 2, 4, ... neighbours), whose
    float64 results may differ from the left-to-right ones by rounding, each being the
    product of its prefix in another order.

    Parameters
    ----------
    input : Tensor
        The values (also the method ``x.cumprod(dim)``).
    dim : int
        The dimension to multiply along.
    dtype : pydevtensor.dtype, optional
        Converts input to this dtype first.
    out : Tensor, optional
        Written with the result and returned: of its shape or with no elements (then
        given the result's shape), on input's device.  Without dtype, out's dtype is
        the one the products are made in (input converted to it first, as
        dtype=out.dtype would), as PyTorch's; with dtype, out must have it.

    Returns
    -------
    Tensor
        Of input's shape.  The gradient is exact with zeros in the input (the product
        rule, no division).

    Raises
    ------
    IndexError
        When dim is out of range.
    RuntimeError
        For an out of another dtype than dtype=, of another device or shape, or out=
        where input requires grad.

    Examples
    --------
    >>> pydevtensor.cumprod(pydevtensor.tensor([1, 2, 3, 4]), 0)
    tensor([ 1,  2,  6, 24])
    >>> pydevtensor.tensor([[2.0, 0.5, 0.0, 3.0]]).cumprod(1)
    tensor([[2., 1., 0., 0.]])
    """
    dtype = _args.dtype(dtype, "cumprod")
    if out is not None:
        refuse_grad("cumprod", input, out)
        if dtype is None and isinstance(out, _C.Tensor):
            dtype = out.dtype  # PyTorch multiplies in out's dtype
        return _out_written(cumprod(input, dim, dtype=dtype), out, "cumprod")
    x = _tensor_arg(input, "cumprod")
    d = _dim(_int_arg(dim, "cumprod", "dim"), x.ndim, "cumprod", x)
    if dtype is not None:
        x = x.to(dtype)
    elif not x.is_floating_point():
        x = x.to(_C.int64)
    if x.ndim == 0:
        return x * 1
    if x.shape[d] <= 1:
        return x * 1
    wide = x.is_floating_point() and x.dtype != _C.float64  # each partial product rounds
    w = x.to(_C.float64) if wide else x  # in float64: once in x's dtype
    r = None
    if not (x.requires_grad and _C.is_grad_enabled()):  # the device's row kernel, if any
        r = _rows(w, d)
    if r is None:
        r = _cumprod(w, d)
    return r.to(x.dtype) if wide else r


def _rows(x, d):
    """cumprod along d by the device's row kernel (left to right), or None"""
    last = x.ndim - 1
    if d != last and x.device.type != "cpu":  # only the CPU has the kernel: no copy for
        return None                           # a device that would refuse it
    t = x if d == last else x.transpose(d, last)
    r = _C._cumprod_rows(t.contiguous())
    return r if r is None or d == last else r.transpose(d, last).contiguous()


def _int_tuple(v, op, name):
    if isinstance(v, (builtins.list, builtins.tuple)):
        return tuple(_int_arg(s, op, name) for s in v)
    return (_int_arg(v, op, name),)


def roll(input, shifts, dims=None):
    """input rolled along dims: the element at i moves to ``(i + shift) % size``;
    without dims, input is flattened, rolled and given its shape back.

    Parameters
    ----------
    input : Tensor
        Any tensor (also the method ``x.roll(shifts, dims)``).
    shifts : int or tuple of ints
        The shift along each of dims (negative: backwards).
    dims : int or tuple of ints, optional
        The dims, as many as shifts (default: the flattened tensor).

    Returns
    -------
    Tensor
        A new tensor of input's shape, dtype and device.

    Raises
    ------
    RuntimeError
        When shifts and dims differ in length.
    IndexError
        When a dim is out of range.

    Examples
    --------
    >>> x = pydevtensor.arange(6).reshape(2, 3)
    >>> pydevtensor.roll(x, 1)
    tensor([[5, 0, 1],
            [2, 3, 4]])
    >>> x.roll((1, -1), (0, 1))
    tensor([[4, 5, 3],
            [1, 2, 0]])
    """
    x = _tensor_arg(input, "roll")
    shifts = _int_tuple(shifts, "roll", "shifts")
    if not shifts:  # roll(x, (), ()): PyTorch's refuses it
        raise RuntimeError(f"roll(): `shifts` required, got () for a tensor of shape "
                           f"{tuple(x.shape)}")
    dims = None if dims is None else _int_tuple(dims, "roll", "dims")
    if not dims:  # None or (), which PyTorch's reads as no dims too
        if len(shifts) != 1:
            raise RuntimeError(f"roll(): without dims, give one shift, got {len(shifts)} "
                               f"({shifts}) for a tensor of shape {tuple(x.shape)}")
        return _rolled_flat(x, shifts[0])
    if x.ndim == 0:  # PyTorch's: no dim of a 0-d tensor (without dims it rolls it as 1-d)
        raise IndexError(f"roll(): Dimension specified as {dims[0]} but tensor "
                         f"has no dimensions (a 0-d tensor on {x.device}); leave dims out")
    if len(shifts) != len(dims):
        raise RuntimeError(f"roll(): shifts and dims must align: {len(shifts)} shifts "
                           f"{shifts} and {len(dims)} dims {dims}")
    dims = tuple(_dim(dm, x.ndim, "roll", x) for dm in dims)
    return _rolled(x, tuple(s % x.shape[d] if x.shape[d] else 0 for s, d in zip(shifts, dims)),
                   dims)


@recorded("roll")
def _rolled(x, shifts, dims):
    """x rolled by shifts, each in [0, size), along dims (checked): a copy, one node
    (RollBackward0 as PyTorch's; composed, its grad_fn was CatBackward0)."""
    out = x
    for s, d in zip(shifts, dims):
        if s:
            size = x.shape[d]
            out = cat([_narrow(out, d, size - s, size), _narrow(out, d, 0, size - s)], d)
    return out if out is not x else x.clone()


@derivative("roll")
class RollBackward0(Node):
    """g rolled back (recorded: differentiable again in g)."""

    def save(self, out, x, shifts, dims):
        self.args = (tuple((x.shape[d] - s) % x.shape[d] if s else 0
                           for s, d in zip(shifts, dims)), dims)
        return (x,)

    def backward(self, g):
        return (_rolled(g, *self.args),)


@recorded("roll_flat")
def _rolled_flat(x, shift):
    """x rolled by shift as a flat sequence (roll without dims): one node, RollBackward0
    as PyTorch's (composed, its grad_fn was the reshape's, ViewBackward0)."""
    n = x.numel()
    flat = _rolled(x.reshape(-1), (shift % n if n else 0,), (0,))
    return flat.reshape(tuple(x.shape))


@derivative("roll_flat")
class RollFlatBackward(RollBackward0):
    """g rolled back as a flat sequence (recorded: differentiable again in g)."""

    def save(self, out, x, shift):
        self.shift = -shift
        return (x,)

    def backward(self, g):
        return (_rolled_flat(g, self.shift),)


RollFlatBackward.__name__ = RollFlatBackward.__qualname__ = "RollBackward0"


def _matrix_transpose(self, name):
    if self.ndim == 0:  # PyTorch 2.15: self, deprecated
        hint = ("This function is the identity in these cases." if name == "mT" else
                "Consider using x.conj().")
        return _identity_on_0d(self, f"Tensor.{name}", hint)
    if self.ndim < 2:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of "
                           f"matrices, got a {self.ndim}-d tensor of shape "
                           f"{tuple(self.shape)} (on {self.device})")
    return self.transpose(-2, -1)


def _mT(self):
    """The last two dims swapped (a view): ``x.transpose(-2, -1)``, for batches of
    matrices.

    Examples
    --------
    >>> pydevtensor.arange(6).reshape(1, 2, 3).mT.shape
    pydevtensor.Size([1, 3, 2])
    """
    return _matrix_transpose(self, "mT")


def _mH(self):
    """The conjugate transpose of the last two dims: for real tensors, ``mT`` (a view).

    Examples
    --------
    >>> pydevtensor.tensor([[1.0, 2.0]]).mH
    tensor([[1.],
            [2.]])
    """
    return _matrix_transpose(self, "mH")


_C.Tensor.mT = property(_mT, doc=_mT.__doc__)
_C.Tensor.mH = property(_mH, doc=_mH.__doc__)
for _name_, _fn in (("diff", diff), ("cumprod", cumprod), ("roll", roll)):
    setattr(_C.Tensor, _name_, _fn)

__all__ = ["cumprod", "diff", "roll"]
