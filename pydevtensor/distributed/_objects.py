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


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Fills object_gather_list[r] on rank dst with rank r's obj; the other ranks pass no
    list.  Every rank's object travels to every rank (an all_gather_object), so keep
    them small."""
    what = "gather_object"
    g = _require(what, group)
    root, bad = _root(g, what, "dst", dst, group_dst)
    if bad is None and g.rank == root and (not isinstance(object_gather_list, list)
                                           or len(object_gather_list) != g.size):
        bad = ValueError(f"{what} on rank {g.wrank}: object_gather_list must be a list of "
                         f"world_size ({g.size}) places on the destination rank, got "
                         f"{object_gather_list!r:.60}")
    if bad is None and g.rank != root and object_gather_list:
        bad = ValueError(f"{what} on rank {g.wrank}: object_gather_list must not be given on "
                         f"a rank other than the destination rank")
    check_agreement(g, what, _tensor_of(np.zeros(1, dtype=np.int64)), bad,
                    extra=0 if bad else root + 1)
    everyone = [None] * g.size
    all_gather_object(everyone, obj, group)
    if g.rank == root:
        object_gather_list[:] = everyone


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None):
    """Puts rank src's scatter_object_input_list[r] into rank r's
    scatter_object_output_list[0].  The whole input list travels to every rank (a
    broadcast_object_list), so keep it small."""
    what = "scatter_object_list"
    g = _require(what, group)
    root, bad = _root(g, what, "src", src, group_src)
    if bad is None and (not isinstance(scatter_object_output_list, list)
                        or not scatter_object_output_list):
        bad = ValueError(f"{what} on rank {g.wrank}: scatter_object_output_list must be a "
                         f"non-empty list (the object lands in its place 0)")
    if bad is None and g.rank == root and (not isinstance(scatter_object_input_list, (list, tuple))
                                           or len(scatter_object_input_list) != g.size):
        bad = ValueError(f"{what} on rank {g.wrank}: scatter_object_input_list must hold "
                         f"world_size ({g.size}) objects on the source rank")
    check_agreement(g, what, _tensor_of(np.zeros(1, dtype=np.int64)), bad,
                    extra=0 if bad else root + 1)
    held = list(scatter_object_input_list) if g.rank == root else [None] * g.size
    broadcast_object_list(held, group=group, group_src=root)
    scatter_object_output_list[0] = held[g.rank]
