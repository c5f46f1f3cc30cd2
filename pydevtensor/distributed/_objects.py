"""Picklable Python objects across ranks (all_gather_object, broadcast_object_list) as
torch.distributed: each object pickled into a uint8 tensor, the sizes exchanged first,
both through the tensor collectives (so the agreement check and the timeout hold).
Note [distributed processes] in pydevtensor/distributed/__init__.py."""
import pickle

import numpy as np

from ._collectives import _root, all_gather_into_tensor, broadcast
from ._group import _require, check_agreement


def _to_bytes(obj):
    return np.frombuffer(pickle.dumps(obj), dtype=np.uint8)


def _tensor_of(array):
    from .. import tensor
    return tensor(np.ascontiguousarray(array))


def all_gather_object(object_list, obj, group=None):
    """Fills object_list[r] with rank r's obj (any picklable object), on every rank;
    object_list must have world_size places.  Unpickling runs arbitrary code: call it
    only with ranks you trust, as in PyTorch."""
    what = "all_gather_object"
    g = _require(what, group)
    g.check_usable(what)
    bad = None
    if not isinstance(object_list, list) or len(object_list) != g.size:
        n = len(object_list) if isinstance(object_list, list) else type(object_list).__name__
        bad = ValueError(f"{what} on rank {g.wrank}: object_list must be a list of world_size "
                         f"({g.size}) places, got {n}")
    blob = None
    if bad is None:
        try:
            blob = _to_bytes(obj)
        except Exception as exc:  # every rank must hear of it, not wait for this one
            bad = TypeError(f"{what} on rank {g.wrank}: obj of type {type(obj).__name__} "
                            f"cannot be pickled: {exc}")
    check_agreement(g, what, _tensor_of(np.zeros(1, dtype=np.int64)), bad)
    sizes = _tensor_of(np.zeros(g.size, dtype=np.int64))
    all_gather_into_tensor(sizes, _tensor_of([len(blob)]), group)
    sizes = sizes.numpy().tolist()
    longest = max(sizes)
    mine = np.zeros(longest, dtype=np.uint8)
    mine[:len(blob)] = blob
    everyone = _tensor_of(np.zeros(g.size * longest, dtype=np.uint8))
    all_gather_into_tensor(everyone, _tensor_of(mine), group)
    data = everyone.numpy().reshape(g.size, longest)
    for r in range(g.size):
        object_list[r] = pickle.loads(data[r, :sizes[r]].tobytes())


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replaces the objects of object_list on every rank with rank src's (in place; every
    rank passes a list of the same length).  Unpickling runs arbitrary code: call it
    only with ranks you trust, as in PyTorch."""
    what = "broadcast_object_list"
    g = _require(what, group)
    g.check_usable(what)
    root, bad = _root(g, what, "src", src, group_src)
    if not isinstance(object_list, list):
        bad = TypeError(f"{what} on rank {g.wrank}: object_list must be a list, got "
                        f"{type(object_list).__name__}")
    blobs = []
    if bad is None and g.rank == root:
        try:
            blobs = [_to_bytes(o) for o in object_list]
        except Exception as exc:
            bad = TypeError(f"{what} on rank {g.wrank}: an object of object_list cannot be "
                            f"pickled: {exc}")
    n = len(object_list) if bad is None else 0
    # broadcast checks src and that every list has the same length (the sizes' shape)
    check_agreement(g, what, _tensor_of(np.zeros(n, dtype=np.int64)), bad)
    sizes = _tensor_of(np.array([len(b) for b in blobs] if blobs else [0] * n, dtype=np.int64))
    broadcast(sizes, group=group, group_src=root)
    counts = sizes.numpy().tolist()
    data = _tensor_of(np.concatenate(blobs) if blobs else np.zeros(sum(counts), np.uint8))
    broadcast(data, group=group, group_src=root)
    if g.rank != root:
        raw = data.numpy()
        ends = np.cumsum([0] + counts)
        for i in range(n):
            object_list[i] = pickle.loads(raw[ends[i]:ends[i + 1]].tobytes())
