"""nn.functional.pad (constant, reflect, replicate and circular padding) with PyTorch's
argument order, shape rules and errors, on every device, differentiable.

Each padded dimension is one cat: of blocks of the value (constant), or of slices
of the input (reflect: reversed slices; replicate: the edge expanded); a negative pad
crops (a slice).  No index tensor is made in the forward,
so nothing crosses between host and device.  constant, reflect and replicate are
recorded as one node under PyTorch's name (Note [linear ops as one node] in
_linear_nodes.py) with their gradient written out: g cropped by the negated pads, or
the border's g index_added back onto the entries it copied.  circular is PyTorch's
composite, copies into slices of a new tensor (CopySlices), differentiated as such.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import _C
from .._args import index as _index
from .._memory_format import _laid_out_as, suggested_format
from .._ops_join import cat
from .._ops_scatter import index_add_built
from ._linear_nodes import linear_map
from ._norm_nodes import wide as _wide

if TYPE_CHECKING:
    from .._C import Tensor

_Invalid = _C.InvalidArgumentError  # a ValueError and a RuntimeError: a bad shape
_MODES = ("constant", "reflect", "replicate", "circular")


def fresh(out: Tensor, input: Tensor) -> Tensor:
    """out, or a clone of it where it shares input's memory (input itself, or a view of
    the same storage), as PyTorch's pad and shuffles, which always return a new tensor:
    writing into the result must leave input as it was.  Differentiable (a clone)."""
    def root(t):
        return t if t._base is None else t._base
    return out.clone() if out is input or root(out) is root(input) else out


def pad_constant(x: Tensor, pairs: tuple, value: float) -> Tensor:
    """x with pairs[i] = (before, after) entries of value added to dimension
    x.ndim - 1 - i (a negative count crops); differentiable (slices and a cat).
    The counts are checked by the caller."""
    for i, (before, after) in enumerate(pairs):
        dim = x.ndim - 1 - i
        size = x.shape[dim]
        if before < 0 or after < 0:
            lead = (slice(None),) * dim
            x = x[lead + (slice(max(-before, 0), size - max(-after, 0)),)]
        pieces = []
        for count in (before, after):
            shape = list(x.shape)
            shape[dim] = count
            pieces.append(_C.full(tuple(shape), value, dtype=x.dtype, device=x.device)
                          if count > 0 else None)
        if pieces[0] is not None or pieces[1] is not None:
            x = cat([p for p in (pieces[0], x, pieces[1]) if p is not None], dim)
    return x


def _pad_dim(x: Tensor, dim: int, before: int, after: int, mode: str) -> Tensor:
    """x padded along dim in a non-constant mode (a negative count crops): a cat of
    slices of x (reversed ones for reflect, a repeated edge for replicate), no index
    tensor (an index_select would read a GPU index's range back to check it).

    Output cell j reads input cell u = j - before, u in [-before, n + after), as
    PyTorch's kernels: replicate clamps u into [0, n - 1], reflect mirrors it about 0
    and n - 1, so a crop on one side may reach past the other side's pad."""
    n = x.shape[dim]
    lead = (slice(None),) * dim

    def cut(start, stop, step=1):
        return x[lead + (slice(start, stop, step),)]

    if mode == "circular":  # PyTorch's: a negative pad crops first, the rest wraps the crop
        if n + before + after == 0:  # allowed (nothing to wrap), as PyTorch's
            return cut(0, 0)
        b, a = max(before, 0), max(after, 0)
        middle = cut(max(-before, 0), n - max(-after, 0))
        if not b and not a:
            return middle
        m = middle.shape[dim]
        left = middle[lead + (slice(m - b, m),)]
        right = middle[lead + (slice(0, a),)]
        return cat([p for p, k in ((left, b), (middle, 1), (right, a)) if k], dim)
    lo, hi = -before, n + after  # the range of u
    pieces = []
    if lo < 0:  # u < 0
        if mode == "replicate":
            pieces.append(_edge(x, dim, 0, min(hi, 0) - lo))
        else:  # cells -u: from before down to 1 - min(hi, 0)
            pieces.append(cut(-lo, -min(hi, 0), -1))
    if max(lo, 0) < min(hi, n):  # 0 <= u < n
        pieces.append(cut(max(lo, 0), min(hi, n)))
    if hi > n:  # u >= n
        if mode == "replicate":
            pieces.append(_edge(x, dim, n - 1, hi - max(lo, n)))
        else:  # cells 2 (n - 1) - u
            stop = 2 * (n - 1) - hi
            pieces.append(cut(2 * (n - 1) - max(lo, n), stop if stop >= 0 else None, -1))
    # one piece: contiguous, so an edge repeated alone is no zero-stride view
    return pieces[0].contiguous() if len(pieces) == 1 else cat(pieces, dim)


def _edge(x: Tensor, dim: int, i: int, count: int) -> Tensor:
    """Cell i of x along dim, repeated count times (a broadcast view)."""
    shape = list(x.shape)
    shape[dim] = count
    return x[(slice(None),) * dim + (slice(i, i + 1),)].expand(tuple(shape))


def _pad_pairs(pad: Any, input: Tensor, where: str) -> tuple:
    """pad (a tuple or list of an even number of ints, last dimension first) as
    ((before, after), ...) pairs, checked against input's dimensions."""
    if not isinstance(pad, (tuple, list)):
        raise TypeError(f"{where}: pad must be a tuple of ints, got {type(pad).__name__}")
    ints = [_index(v) for v in pad]
    for k, (v, i) in enumerate(zip(pad, ints)):
        if i is None:
            raise TypeError(f"{where}: pad must be a tuple of ints, but found element of type "
                            f"{type(v).__name__} at pos {k}")
    pad = ints
    if len(pad) % 2:
        raise _Invalid(f"{where}: Padding length must be divisible by 2, got pad="
                       f"{tuple(pad)} (input of shape {tuple(input.shape)} on {input.device})")
    if len(pad) // 2 > input.ndim:
        raise _Invalid(f"{where}: Padding length should be less than or equal to two times "
                       f"the input dimension but got padding length {len(pad)} and input of "
                       f"dimension {input.ndim} (shape {tuple(input.shape)} on {input.device})")
    return tuple((pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2))


def _check_crops(input: Tensor, pairs: tuple, where: str) -> None:
    """Constant mode's rule, PyTorch's (a narrow of the input): the crops of a
    dimension (its negative counts) must fit in it."""
    for i, (before, after) in enumerate(pairs):
        dim = input.ndim - 1 - i
        kept = input.shape[dim] + min(before, 0) + min(after, 0)
        if kept < 0:
            raise _Invalid(f"{where}: the padding ({before}, {after}) of dimension {dim} "
                           f"(size {input.shape[dim]}) leaves a negative size {kept} (input "
                           f"of shape {tuple(input.shape)} on {input.device}): its negative "
                           f"counts crop more than the dimension holds")


def _check_mode(input: Tensor, pairs: tuple, mode: str, where: str) -> None:
    """The shape rules of the non-constant modes, PyTorch's: k padded dimensions of a
    (k + 1)-d or (k + 2)-d input, k <= 3; each padded and channel dimension non-empty;
    a reflected pad shorter than its dimension, a circular one no longer."""
    k = len(pairs)
    if not 1 <= k <= 3 or input.ndim not in (k + 1, k + 2):
        raise NotImplementedError(
            f"{where}: Padding size {2 * k} is not supported for {input.ndim}D input tensor "
            f"(shape {tuple(input.shape)} on {input.device}, mode={mode!r}); supported for "
            f"non-constant padding: 2D or 3D input with padding size 2 (the last dimension), "
            f"3D or 4D with 4 (the last 2), 4D or 5D with 6 (the last 3)")
    if any(s == 0 for s in input.shape[input.ndim - k - 1:]):
        raise _Invalid(f"{where}: mode={mode!r} expects a tensor with possibly 0 batch size "
                       f"and other non-zero dimensions, got shape {tuple(input.shape)} (on "
                       f"{input.device})")
    for i, (before, after) in enumerate(pairs):
        dim = input.ndim - 1 - i
        n = input.shape[dim]
        if mode != "circular" and n + before + after < 1:
            raise _Invalid(f"{where}: mode={mode!r}: the padding ({before}, {after}) of "
                           f"dimension {dim} (size {n}) leaves an output size of "
                           f"{n + before + after}; it must be at least 1 (input of shape "
                           f"{tuple(input.shape)} on {input.device})")
        if mode == "reflect" and (before >= n or after >= n):
            raise _Invalid(f"{where}: Padding size should be less than the corresponding input "
                           f"dimension, but got: padding ({before}, {after}) at dimension {dim}"
                           f" of input {tuple(input.shape)} (on {input.device})")
        kept = n - max(-before, 0) - max(-after, 0)
        if mode == "circular" and n + before + after < 0:
            raise _Invalid(f"{where}: mode='circular': the padding ({before}, {after}) of "
                           f"dimension {dim} (size {n}) leaves a negative size "
                           f"{n + before + after} (input of shape {tuple(input.shape)} on "
                           f"{input.device})")
        wraps = before > kept or after > kept or kept < 1  # reads cells it has not made
        if mode == "circular" and (before > n or after > n or (n + before + after and wraps)):
            raise _Invalid(f"{where}: Padding value causes wrapping around more than once: "
                           f"padding ({before}, {after}) at dimension {dim} of input "
                           f"{tuple(input.shape)} (on {input.device})")


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pads the last dimensions of a tensor, as ``torch.nn.functional.pad``.

    pad lists (before, after) counts from the last dimension backwards: ``(1, 2)``
    adds 1 entry before and 2 after along the last dimension, ``(1, 1, 2, 0)`` also 2
    rows before along the one before it.  A negative count removes entries.

    Modes: 'constant' fills with value (default 0; any number of trailing
    dimensions); 'reflect' mirrors at the edge without repeating it (a pad must be
    shorter than its dimension); 'replicate' repeats the edge; 'circular' wraps
    around (a pad no longer than its dimension).  The last three pad the last 1, 2
    or 3 dimensions of an input with 1 or 2 dimensions more (channels and an
    optional batch), as PyTorch's.

    Parameters
    ----------
    input : Tensor
        The tensor to pad.
    pad : tuple of ints
        An even number of counts, at most two per dimension of input.
    mode : str, optional
        'constant' (the default), 'reflect', 'replicate' or 'circular'.
    value : float, optional
        The fill of 'constant' (default 0); the other modes take none.

    Returns
    -------
    Tensor
        On input's device, of its dtype; differentiable; a new tensor (also for all-zero
        or cropping pads), sharing no memory with input.

    Raises
    ------
    TypeError
        When input is not a Tensor or pad not a tuple of ints.
    ValueError, RuntimeError
        (InvalidArgumentError) For an odd number of counts, more than two per
        dimension, a crop past a dimension's size, a value given to another mode than
        'constant', a reflected pad not shorter than its dimension, a circular one
        longer than its dimension, an empty dimension in those modes, or an output
        size below 1 with 'reflect' or 'replicate' (PyTorch's rules).
    NotImplementedError
        For an unknown mode, or a non-constant mode with an input that has not 1 or 2
        dimensions more than the padded ones.

    Examples
    --------
    >>> from pydevtensor.nn import functional as F
    >>> x = pydevtensor.tensor([[[1., 2., 3.]]])
    >>> F.pad(x, (1, 2))
    tensor([[[0., 1., 2., 3., 0., 0.]]])
    >>> F.pad(x, (2, 1), mode='reflect')
    tensor([[[3., 2., 1., 2., 3., 2.]]])
    >>> F.pad(x, (1, 1), mode='replicate')
    tensor([[[1., 1., 2., 3., 3.]]])
    >>> F.pad(x, (1, 1), mode='circular')
    tensor([[[3., 1., 2., 3., 1.]]])
    """
    where = "pad()"
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{where}: input must be a Tensor, got {type(input).__name__}")
    pairs = _pad_pairs(pad, input, where)
    if mode == "constant":
        _check_crops(input, pairs, where)
        if value is not None and not isinstance(value, _C.Tensor) and value != 0:
            _C._number_fits("pad", value, input)  # named here, not by the blocks made of it
        return linear_map("ConstantPadNdBackward0", False, _pad_constant_fresh, input, pairs,
                      0.0 if value is None else value)
    if mode not in _MODES:
        raise NotImplementedError(f"{where}: Unrecognised padding mode {mode!r}, expected one "
                                  f"of {_MODES}")
    if value is not None and value != 0:
        raise _Invalid(f"{where}: Padding mode {mode!r} doesn't take in value argument, got "
                       f"value={value!r}")
    _check_mode(input, pairs, mode, where)
    # one node under PyTorch's name (Note [linear ops as one node]); reflect and replicate
    # as PyTorch's kernels: the gradient requires grad whenever the input does, its
    # derivative zeros (Note [linear inputs] in autograd/node.py)
    if mode == "circular":  # PyTorch's composite, whose grad_fn is CopySlices: ours too
        return _pad_circular(input, pairs)
    name = ("ReflectionPad" if mode == "reflect" else "ReplicationPad") + f"{len(pairs)}DBackward0"
    return linear_map(name, True, _pad_modes, input, pairs, mode, suggested_format(input))


def _pad_circular(x: Tensor, pairs: tuple) -> Tensor:
    """Circular padding as PyTorch's composite (at::_pad_circular): a new row-major
    tensor takes x's kept cells, then, dimension by dimension, its own cells from the
    other end copied into each pad (the corners copied again by the later dimensions),
    each a copy_ into a slice: grad_fn CopySlices, as PyTorch's (a cat of slices was
    CatBackward0); the gradient is the copies' transposes.  An output with no cells
    (a crop as long as the dimension) is the cat of its empty slices."""
    sizes = list(x.shape)
    for i, (before, after) in enumerate(pairs):
        sizes[x.ndim - 1 - i] += before + after
    if 0 in sizes:
        return _pad_modes(x, pairs, "circular")
    out = _C.empty(tuple(sizes), dtype=x.dtype, device=x.device)
    inner, kept = out, x
    for i, (before, after) in enumerate(pairs):
        dim = x.ndim - 1 - i
        b, a = max(before, 0), max(after, 0)
        inner = inner.narrow(dim, b, sizes[dim] - b - a)
        kept = kept.narrow(dim, max(-before, 0), inner.shape[dim])
    inner.copy_(kept)
    for i, (before, after) in enumerate(pairs):
        dim = x.ndim - 1 - i
        b, a, n = max(before, 0), max(after, 0), sizes[dim]
        if b:
            out.narrow(dim, 0, b).copy_(out.narrow(dim, n - b - a, b))
        if a:
            out.narrow(dim, n - a, a).copy_(out.narrow(dim, b, a))
    return out


def _pad_constant_fresh(x: Tensor, pairs: tuple, value) -> Tensor:
    return _laid_out_like(fresh(pad_constant(x, pairs, value), x), x)


def _laid_out_like(out: Tensor, x: Tensor) -> Tensor:
    """out, channels_last (channels_last_3d) when x's strides suggest it, as PyTorch's
    constant, reflect and replicate padding lay out their result (circular's is
    row-major there); out itself otherwise."""
    fmt = suggested_format(x)
    return out if fmt is None else _laid_out_as(out, fmt)


def _unpad(g: Tensor, meta: tuple, pairs: tuple, value) -> Tensor:
    """The gradient of constant padding: g cropped where the pads added entries, zeros
    where they cropped (padding by the negated counts)."""
    return fresh(pad_constant(g, tuple((-b, -a) for b, a in pairs), 0.0), g)


_pad_constant_fresh.adjoint = _unpad


def _unpad_modes(g: Tensor, meta: tuple, pairs: tuple, mode: str, layout=None) -> Tensor:
    """The gradient of reflect or replicate padding of an input of meta's (shape, dtype,
    device): along each padded dimension, output cell j's g added onto the cell
    u = j - before it read, mirrored about 0 and n - 1 (reflect) or clamped into
    [0, n - 1] (replicate); half types summed in float32 and rounded once.  Laid out as
    the input was (layout: its suggested_format), whatever g's layout, as PyTorch's
    backward kernels allocate it."""
    shape, dtype, device = meta
    wide = _wide(dtype)
    g = g if g.dtype == wide else g.to(wide)
    for i, (before, after) in enumerate(pairs):
        dim = len(shape) - 1 - i
        n = shape[dim]
        if not (before or after):
            continue
        u = _C.arange(-before, n + after, dtype=_C.int64, device=device)
        u = u.clamp(0, n - 1) if mode == "replicate" else (n - 1) - ((n - 1) - u.abs()).abs()
        cells = tuple(g.shape[:dim]) + (n,) + tuple(g.shape[dim + 1:])
        g = index_add_built(_C.zeros(cells, dtype=g.dtype, device=device), dim, u, g)
    return _laid_out_as(g if g.dtype == dtype else g.to(dtype), layout)


def _pad_modes(input: Tensor, pairs: tuple, mode: str, layout=None) -> Tensor:
    """input padded along each pair's dimension in a non-constant mode; a new tensor
    (layout: for the gradient, _unpad_modes)."""
    out = input
    for i, (before, after) in enumerate(pairs):
        if before or after:
            out = _pad_dim(out, input.ndim - 1 - i, before, after, mode)
    out = fresh(out, input)
    return out if mode == "circular" else _laid_out_like(out, input)


_pad_modes.adjoint = _unpad_modes  # reflect's and replicate's (circular is composed)
