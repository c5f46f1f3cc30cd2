"""Views that share a storage, kept sharing across save() and load() (version 3 of
the file).  Saved tensors of one dtype on one device whose storages start at the same
address are a group; the group's storage is written once, as the 1-D span of elements
that its tensors reach (from the storage's first element), under the record's
"storages", and each tensor as a view of it: {"storage": member, "shape", "stride",
"offset"}, which load() rebuilds with as_strided (bounds-checked against the span).
A tensor with a negative stride (a flip) or no elements is written as before."""
from collections import OrderedDict

from . import _C


def _extent(t):
    """One past the last storage element t reaches."""
    last = t.storage_offset()
    for n, s in zip(t.shape, t.stride()):
        last += (n - 1) * s
    return last + 1


def share_storages(tensors, taken):
    """(views, storages): views {name: view record} for the tensors (name -> Tensor)
    that share a storage with another saved tensor, and storages {member name: Tensor
    of the span}; taken (a container of names in use) keeps member names unique."""
    groups = OrderedDict()
    for name, t in tensors.items():
        try:
            if t.numel() == 0 or any(s < 0 for s in t.stride()):
                continue
        except ValueError:  # an UninitializedParameter: no storage yet
            continue
        base = t.data_ptr() - t.storage_offset() * t.itemsize
        groups.setdefault((str(t.device), t.dtype.name, base), []).append(name)
    views, storages = OrderedDict(), OrderedDict()
    for names in groups.values():
        if len(names) < 2:
            continue
        span = max(_extent(tensors[n]) for n in names)
        member, k = f"{names[0]}~storage", 1
        while member in taken or member in storages:
            k += 1
            member = f"{names[0]}~storage{k}"
        # the span over the largest storage of the group: tensors over one memory may
        # hold storages of different lengths from its start (from_numpy(a[:10]) and
        # from_numpy(a)), and the largest reaches every element the others do
        whole = max(names, key=lambda n: tensors[n].untyped_storage().nbytes())
        storages[member] = _C._as_strided(tensors[whole].detach(), (span,), (1,), 0)
        for n in names:
            t = tensors[n]
            views[n] = {"storage": member, "shape": list(t.shape),
                        "stride": list(t.stride()), "offset": t.storage_offset()}
    return views, storages


def view_problem(name, view, storages):
    """What is wrong with a tensor's view record, or None."""
    if not isinstance(view, dict) or set(view) != {"storage", "shape", "stride", "offset"}:
        return f"tensor '{name}' has view {view!r}, not {{storage, shape, stride, offset}}"
    if not isinstance(view["storage"], str) or view["storage"] not in storages:
        return f"tensor '{name}' is a view of storage {view['storage']!r}, which is not listed"
    shape, stride, offset = view["shape"], view["stride"], view["offset"]
    ok = (isinstance(shape, list) and isinstance(stride, list) and len(shape) == len(stride)
          and len(shape) <= 16 and all(type(v) is int and 0 <= v < 2**63
                                       for v in shape + stride + [offset]))
    return None if ok else (f"tensor '{name}' has view shape {shape!r}, stride {stride!r}, "
                            f"offset {offset!r}: not sizes, strides and an offset in "
                            f"[0, 2**63)")


def rebuild(view, storage):
    """The view of storage (a 1-D tensor) that the record describes."""
    return _C._as_strided(storage, tuple(view["shape"]), tuple(view["stride"]), view["offset"])
