"""Advanced indexing in ``x[...]`` / ``x[...] = v`` (issue 17): the Python half of
Tensor.__getitem__ and __setitem__, installed as the bindings' index hooks at import.

The slots take the keys that can only be basic themselves (Note [indexing's fast
keys] in csrc/python/tensor_subscript.c) and send the rest here.  Advanced indexing follows
NumPy's and PyTorch's rules: integer tensors, lists and boolean masks select elements
and give a copy; when the advanced indices sit next to each other the result's new
dims take their place, else they go first.  The kernels are the core's index_select
and index_put (csrc/core/pdt_index.h); indices are checked against the sizes before any
element moves (on a CUDA device, a counted read of the index's min and max).
"""
import builtins
import math
import sys
import warnings

from . import _C
from ._ops_index import (_as_tensor, _basic_getitem, _basic_setitem, _broadcast_shape,
                         _compact, _count_of, _name, index_select, nonzero)
from .autograd.dispatch import record_setitem, recorded, register_forward

_ADVANCED = (_C.Tensor, list, builtins.bool)


def _numpy_index(item):
    """True for a NumPy array or NumPy bool (numpy is imported only by whoever made
    one: `import pydevtensor` does not import it)."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(item, (np.ndarray, np.bool_))


def _is_advanced(item):
    return isinstance(item, _ADVANCED) or _numpy_index(item)


def _needs_advanced(idx):
    if isinstance(idx, tuple):
        for item in idx:
            if _is_advanced(item):
                return True
        return False
    return _is_advanced(idx)


def _host_index(data, device):
    """An index given as host data (a list, a bool, a NumPy array) as a tensor on
    device: made on the CPU, then a counted copy that the transfer guard sees as
    implicit, as a CPU index tensor's (the user asked for no copy)."""
    t = _C.tensor(data, device="cpu")
    return t if t.device == device else _C._copy_for(t, device, "indexing", True)


def _index_item(item, device):
    """An advanced index item as an int64 Tensor, or a bool Tensor (a mask)."""
    if _numpy_index(item):
        if item.dtype.kind not in "biu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if item.dtype.kind != "b" and (item.ndim or item.dtype.name != "uint8"):
            return _host_index(item.astype("int64"), device)
        item = builtins.bool(item) if item.ndim == 0 else item  # a 0-d uint8: a mask too
        return _host_index(item, device)
    if isinstance(item, builtins.bool):
        return _host_index(item, device)
    if isinstance(item, list):
        try:
            item = _host_index(item, device)
        except (TypeError, ValueError) as e:
            raise IndexError(f"an index list must hold ints or bools: {e}") from None
        if item.numel() == 0:
            item = item.to(_C.int64)
    kind = _name(item.dtype)
    if kind not in ("bool", "int32", "int64"):
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if item.device != device:
        if device.type == "cpu":  # logical CPU devices: "on cpu" would not say which
            raise _C.DeviceError(f"indices should be on the same device as the indexed tensor "
                                 f"({device}), got an index on {item.device}: logical CPU "
                                 f"devices do not share tensors; move it with .to('{device}')")
        if item.device.type != "cpu":  # PyTorch's rule and message
            raise _C.DeviceError(f"indices should be either on cpu or on the same device as the "
                                 f"indexed tensor ({device}), got an index on {item.device}")
        # a CPU index on a GPU tensor, as PyTorch allows: a counted copy that the transfer
        # guard sees as implicit
        item = _C._copy_for(item, device, "indexing", True)
    if kind == "bool":
        return item
    if kind not in ("int32", "int64"):
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return item if kind == "int64" else item.to(_C.int64)


def _byte_mask(item):
    """A uint8 tensor or NumPy array index is a mask, as in PyTorch, which warns that
    this is deprecated: the bool tensor (or array) item != 0 (int8 and int16 tensors
    are refused, as PyTorch refuses them).  A 0-d uint8 array is a mask without the
    warning, as there."""
    if (isinstance(item, _C.Tensor) and item.dtype == _C.uint8
            or _numpy_index(item) and item.ndim and item.dtype.name == "uint8"):
        warnings.warn("indexing with dtype pydevtensor.uint8 is deprecated (as in PyTorch), "
                      "please use a dtype pydevtensor.bool instead", UserWarning, stacklevel=4)
        return item != 0
    return item


def _plan(x, idx):
    """Splits idx into a basic-indexing view of x and the advanced indices on its
    dims: (view, [(dim in view, int64 tensor)], adjacent)."""
    items = [_byte_mask(it) for it in (idx if isinstance(idx, tuple) else [idx])]
    consumed = 0  # dims of x the items use
    for it in items:
        if it is None or it is Ellipsis:
            continue
        if isinstance(it, _C.Tensor) and it.dtype == _C.bool:
            consumed += it.ndim
        elif isinstance(it, builtins.bool) or _numpy_index(it) and it.ndim == 0:
            consumed += 0
        elif _numpy_index(it) and it.dtype.kind == "b":
            consumed += it.ndim
        else:
            consumed += 1
    if consumed > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim} (a tensor of "
                         f"shape {tuple(x.shape)} on {x.device})")
    basic, advanced = [], []  # advanced: (position in basic's output dims, tensor)
    out_dim = 0
    for it in items:
        if it is Ellipsis:
            n = x.ndim - consumed
            basic.append(Ellipsis)
            out_dim += n
            consumed = x.ndim  # a second Ellipsis is refused by basic indexing
        elif it is None:
            basic.append(None)
            out_dim += 1
        elif _is_advanced(it):
            t = _index_item(it, x.device)
            if t.dtype == _C.bool:
                if t.ndim == 0:  # x[True]: a new dim of size 1 (size 0 for False)
                    keep = it if isinstance(it, builtins.bool) else builtins.bool(
                        _C._implicit_cpu(t, "indexing").item())
                    basic.append(None)
                    advanced.append((out_dim, _C.zeros(int(keep), dtype=_C.int64,
                                                       device=x.device)))
                    out_dim += 1
                    continue
                start = out_dim
                for _ in range(t.ndim):
                    basic.append(slice(None))
                    out_dim += 1
                advanced.append((start, ("mask", t)))
            else:
                basic.append(slice(None))
                advanced.append((out_dim, t))
                out_dim += 1
        else:
            basic.append(it)
            if isinstance(it, slice):  # an int removes its dim
                out_dim += 1
    view = _basic_getitem(x, tuple(basic))
    pairs = []
    for dim, t in advanced:
        if isinstance(t, tuple):
            mask = t[1]
            size = tuple(view.shape[dim:dim + mask.ndim])
            if tuple(mask.shape) != size:
                raise IndexError(f"The shape of the mask {list(mask.shape)} at index {dim} does "
                                 f"not match the shape of the indexed tensor {list(size)} (a "
                                 f"tensor of shape {tuple(x.shape)} on {x.device})")
            for k, coord in enumerate(nonzero(mask, as_tuple=True)):
                pairs.append((dim + k, coord))
        else:
            pairs.append((dim, t))
    dims = [d for d, _ in pairs]
    adjacent = dims == list(range(dims[0], dims[0] + len(dims))) if dims else True
    return view, pairs, adjacent


def _flat_index(view, pairs, deferred_ok):
    """Broadcasts the index tensors, checks them against their dims' sizes, and
    gives (flat int64 index into the indexed dims merged, broadcast shape)."""
    try:
        shape = _broadcast_shape(*[tuple(t.shape) for _, t in pairs])
    except ValueError:  # NumPy's and PyTorch's IndexError, naming the shapes
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                         "with shapes " + ", ".join(str(list(t.shape)) for _, t in pairs)) \
            from None
    flat = None
    # indices that broadcast to no place are read nowhere: PyTorch and NumPy check none
    # (x[zeros(0), [7]] is empty); an empty result from another dim is checked, as NumPy
    empty = 0 in shape
    for d, t in pairs:
        size = view.shape[d]
        if not empty:
            _C._index_check(t.contiguous(), size, d, "index", True, deferred_ok)
        t = t % size if size else t
        flat = t if flat is None else flat * size + t
    return _C._expand(flat, shape).contiguous().reshape(-1), shape


def _front(view, dims):
    """view with the indexed dims moved to the front (in order), then merged."""
    rest = [d for d in range(view.ndim) if d not in dims]
    return view.permute(*dims, *rest)


def _advanced_getitem(x, idx):
    view, pairs, adjacent = _plan(x, idx)
    if not pairs:
        return view
    dims = [d for d, _ in pairs]
    flat, bshape = _flat_index(view, pairs, True)  # read into a new tensor
    front = _front(view, dims)
    k = len(dims)
    # the number of rows spelled out: reshape(-1, 0) of an empty tensor cannot infer it
    merged = front.reshape((math.prod(front.shape[:k]),) + tuple(front.shape[k:]))
    out = index_select(merged, 0, flat).reshape(bshape + tuple(front.shape[k:]))
    if adjacent and dims[0] > 0:
        nb = len(bshape)
        order = list(range(nb, nb + dims[0])) + list(range(nb)) + list(
            range(nb + dims[0], out.ndim))
        out = out.permute(*order).contiguous()
    return out


def _advanced_setitem(x, idx, value, accumulate=False, into_new=False):
    """x[idx] = value (or += with accumulate); into_new: x is a tensor the caller has
    just made (a gradient's zeros), so on a GPU the indices may be checked on the
    device (Note [deferred index checks] in csrc/core/pdt_index.h)."""
    view, pairs, adjacent = _plan(x, idx)
    if not pairs:
        if accumulate:
            view.add_(value)
        else:
            _basic_setitem(x, idx if not isinstance(idx, list) else tuple(idx), value)
        return
    dims = [d for d, _ in pairs]
    flat, bshape = _flat_index(view, pairs, into_new)  # into x: checked now, unless new
    front = _front(view, dims)
    k = len(dims)
    rest = tuple(front.shape[k:])
    lead = 1  # the indexed dims as one, counted (-1 cannot be inferred when rest holds a 0)
    for n in tuple(front.shape[:k]):
        lead *= n
    try:
        target = front.view((lead,) + rest) if front.ndim else front.reshape(1)
        direct = True
    except (RuntimeError, ValueError):
        target = front.contiguous().reshape((lead,) + rest)
        direct = False
    # the values, broadcast to the selection's shape as x[idx] shows it, then put
    # in the order of `target` (the broadcast index dims first)
    nb, d0 = len(bshape), dims[0]
    moved = adjacent and d0 > 0
    shown = rest[:d0] + bshape + rest[d0:] if moved else bshape + rest
    v = _as_tensor(value, x.dtype, x.device)
    if v is value and _C._spans_overlap(v, x):
        v = v.clone()  # read whole before any row is written, as NumPy (x[perm] = x)
    if v.ndim > len(shown):
        v = v.reshape(tuple(v.shape)[v.ndim - len(shown):]) if all(
            s == 1 for s in tuple(v.shape)[:v.ndim - len(shown)]) else v
    v = _C._expand(v, shown)
    if moved:
        v = v.permute(*range(d0, d0 + nb), *range(d0), *range(d0 + nb, v.ndim))
    v = v.reshape((flat.shape[0],) + rest)
    (_C._index_add if accumulate else _C._index_put)(target, 0, flat, v, into_new)
    if not direct:
        front.copy_(target.reshape(tuple(front.shape)))


def _leading_mask(x, idx):
    """idx when it is one bool Tensor over x's leading dims (x[mask], the common
    case, done without coordinates: the mask's flat positions select rows of x
    with those dims merged), else None."""
    if (isinstance(idx, _C.Tensor) and idx.ndim > 0 and idx.dtype == _C.bool
            and idx.device == x.device and tuple(idx.shape) == tuple(x.shape)[:idx.ndim]):
        return idx
    return None


@recorded("index")
def _advanced_index(self, idx):
    """self[idx] with advanced indices (a copy)."""
    if type(idx) is tuple:  # x[rows, cols] on the CPU: Note [coordinates in C]
        out = _C._coords_select(self, idx)
        if out is not None:
            return out
    mask = _leading_mask(self, idx)
    if mask is None:
        return _advanced_getitem(self, idx)
    flat = mask.reshape(-1)
    rows = self.reshape((flat.shape[0],) + tuple(self.shape)[mask.ndim:])  # (-1, 0) is ambiguous
    return index_select(rows, 0, _compact(flat, int(_count_of(flat, "indexing"))))


_ALL = slice(None)


def _select_fast(self, idx):
    """x[v] and x[:, ..., v] (full slices before one int64 vector on x's device):
    index_select along that dim at once (x[v] of 256 indices: 13.6 us through the
    general path, 1.4 here; x[:, v] of 2048^2 float32, 1024 indices: 31.7 ms, 2.4
    here).  None for every other key, and when an index is out of range (the general
    path says so in indexing's words).  Tensor's subscript slot takes these keys in C
    when v is a Tensor already (vector_subscript in csrc/python/tensor_subscript.c); this
    serves x[[2, 0, 1]], the list made a tensor."""
    pos, v = 0, idx
    if type(idx) is tuple:
        pos = len(idx) - 1
        if pos < 0 or pos >= self.ndim or any(type(k) is not slice or k != _ALL
                                              for k in idx[:pos]):
            return None
        v = idx[pos]
    if type(v) is not _C.Tensor or v.device != self.device:
        return None
    try:  # None unless v is a contiguous 1-d int64 vector
        return _C._index_select_fast(self, pos, v, True)
    except IndexError:
        return None


_TUPLE_MARKERS = (list, tuple, range, slice, type(Ellipsis), type(None), _C.Tensor)


def _sequences_as_lists(idx):
    """range and tuple indices (D2L's ``y_hat[range(len(y_hat)), y]``, ``x[(0, 1),]``) as
    the lists they hold, as PyTorch and NumPy read them.  A list of fewer than 32 items
    holding a sequence, slice, Ellipsis, None or Tensor is read as a tuple, as PyTorch
    2.15 still does (with its deprecation warning): ``x[[[0, 1], [2, 0]]]`` is
    ``x[[0, 1], [2, 0]]``."""
    if type(idx) is range:
        return list(idx)
    if type(idx) is list and len(idx) < 32 and any(isinstance(k, _TUPLE_MARKERS) for k in idx):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated "
                      "(as in PyTorch); use x[tuple(seq)] instead of x[seq]. PyTorch will "
                      "read it as a tensor index, x[tensor(seq)], in a later version.",
                      UserWarning, stacklevel=3)
        idx = tuple(idx)
    if type(idx) is tuple:
        for k in idx:
            if type(k) is range or type(k) is tuple:
                return tuple(list(k) if type(k) is range or type(k) is tuple else k for k in idx)
    return idx


_SELECT_DTYPES = frozenset()  # filled below: the integer dtypes but uint8


def _is_int_scalar(k):
    if type(k) is _C.Tensor:
        return k.ndim == 0 and k.dtype in _SELECT_DTYPES
    return _numpy_index(k) and k.ndim == 0 and k.dtype.kind in "iuf" and k.dtype.name != "uint8"


def _as_int(k):
    if type(k) is _C.Tensor:
        return k.__index__()
    try:  # a 0-d float array: its int, as PyTorch (x[np.array(1.5)] is x[1])
        return builtins.int(k)
    except (ValueError, OverflowError):
        raise IndexError(f"a 0-d array index must hold a finite number, got {k}") from None


def _zero_d_ints(idx):
    """idx with its 0-d integer tensors made the ints they hold: PyTorch indexes with
    such a tensor as with its int (applySelect in ATen's TensorIndexing.h), so
    ``x[torch.tensor(1)]`` is the view ``x[1]`` and a loop ``for i in arange(3):
    buf[i].fill_(...)`` writes into buf.  Reading a GPU index is a counted implicit
    copy, as ``int(i)`` (the transfer guard sees it).  uint8 and bool 0-d tensors stay
    masks.  0-d NumPy arrays likewise: ``x[np.array(1)]`` is ``x[1]`` (a float one
    too, as in PyTorch; a uint8 or bool one is a mask)."""
    if type(idx) is _C.Tensor or _numpy_index(idx):
        return _as_int(idx) if _is_int_scalar(idx) else idx
    if type(idx) is tuple:
        for k in idx:
            if _is_int_scalar(k):
                return tuple(_as_int(k) if _is_int_scalar(k) else k for k in idx)
    return idx


def _getitem(self, idx):
    idx = _zero_d_ints(_sequences_as_lists(idx))
    if type(idx) is list and self.ndim and not self.requires_grad:  # x[[2, 0, 1]]
        try:
            as_tensor = _host_index(idx, self.device)
        except (TypeError, ValueError):  # the general path says what is wrong
            as_tensor = None
        if as_tensor is not None and as_tensor.dtype == _C.int64 and as_tensor.ndim == 1:
            idx = as_tensor
            out = _select_fast(self, idx)  # Tensor keys: the C slot tried them already
            if out is not None:
                return out
    if _needs_advanced(idx):
        return _advanced_index(self, idx)
    return _basic_getitem(self, idx)


def _index_put_(x, idx, value, accumulate=False, into_new=False):
    """x[idx] = value (advanced or basic indices; value a Tensor or a number,
    broadcast), in place; with accumulate=True the values are added instead, and
    values for a repeated index all add up (scatter-add).  into_new: as
    _advanced_setitem's."""
    if type(value) in (builtins.int, builtins.float):  # named setitem, with x's shape
        _C._number_fits("setitem", value, x)
    if type(idx) is tuple and (type(value) in (builtins.int, builtins.float, builtins.bool)
                               or isinstance(value, _C.Tensor)):
        # x[rows, cols] = v, and autograd's x[rows, cols] backward (Note [coordinates in C])
        if _C._coords_put(x, idx, _as_tensor(value, x.dtype, x.device), accumulate):
            return None
    if (type(idx) is _C.Tensor and type(value) in (builtins.int, builtins.float)
            and not accumulate and not into_new and x.ndim and idx.ndim == 1
            and idx.dtype == _C.int64 and x.device.type == "cpu" and idx.device == x.device
            and idx.is_contiguous()):
        # x[v] = number on the CPU: one index_put of the number expanded (1,000 float32,
        # 500 indices: 30.8 -> 4.9 us, NumPy 0.7); an index out of range goes on to the
        # general path, which names it in indexing's words (the CPU checks before writing)
        try:
            _C._index_put(x, 0, idx, _C._expand(_as_tensor(value, x.dtype, x.device),
                                                (idx.shape[0],) + tuple(x.shape)[1:]))
            return None
        except IndexError:
            pass
    mask = _leading_mask(x, idx)
    if mask is None or not x.is_contiguous():
        return _advanced_setitem(x, idx, value, accumulate, into_new)
    rest = tuple(x.shape)[mask.ndim:]
    if not accumulate and (not isinstance(value, _C.Tensor) or
                           value.ndim == 0 and value.device == x.device):
        # one value: masked_fill_ (a select and a copy, as PyTorch's index_put_ of a mask;
        # 1e5 float32: 650 us through the positions, NumPy 460, 31 here)
        fill = _as_tensor(value, x.dtype, x.device)
        _C.Tensor.masked_fill_(x, mask.reshape(tuple(mask.shape) + (1,) * len(rest)), fill)
        return None
    flat = mask.reshape(-1)
    positions = _compact(flat, int(_count_of(flat, "indexing")))
    v = _as_tensor(value, x.dtype, x.device)
    if _C._spans_overlap(v, x):  # x's own memory (through any storage): read whole first
        v = v.clone()
    v = _C._expand(v, (positions.shape[0],) + rest)
    (_C._index_add if accumulate else _C._index_put)(x.view((flat.shape[0],) + rest), 0,
                                                     positions, v)
    return None


def _setitem(self, idx, value):
    if idx is False:
        # x[False] = v selects nothing: no write, so no version bump nor autograd record,
        # as PyTorch's (which returns at once); v is still checked against the selection
        if type(value) in (builtins.int, builtins.float):
            _C._number_fits("setitem", value, self)
        _C._expand(_as_tensor(value, self.dtype, self.device), (0,) + tuple(self.shape))
        return None
    idx = _zero_d_ints(_sequences_as_lists(idx))
    base = self._base  # a view whose base requires grad: Note [views and their base]
    graph = (self.requires_grad or isinstance(value, _C.Tensor) and value.requires_grad or
             base is not None and base.requires_grad) and _C.is_grad_enabled()
    if _needs_advanced(idx):
        if graph:
            from .autograd.derivatives_index import IndexPutBackward0
            return record_setitem(self, idx, value, IndexPutBackward0)
        return _index_put_(self, idx, value)
    if graph:  # a basic key the slot sent here (x[tensor(1)], x[np.int64(1)]): CopySlices
        return record_setitem(self, idx, value, None)
    return _basic_setitem(self, idx, value)


_SELECT_DTYPES = frozenset((_C.int8, _C.int16, _C.int32, _C.int64))
_C._set_index_hooks(_getitem, _setitem)
register_forward("__getitem__", _basic_getitem)  # the recorded x[key] are basic
