"""A small cache of the constant tensors the pools build from their sizes alone (the
divisors of avg_pool2d, the averaging matrices and bin offsets of the adaptive
pools, the first real tap of each max_pool2d window): one least-recently-used cache
per device, each holding at most ``BUDGET`` bytes (an entry counts at least
``ENTRY_MIN``), safe to use from several threads
(``distribute`` runs its replicas on threads).  ``pydevtensor.empty_cache(d)`` and
``pydevtensor.cuda.empty_cache(d)`` empty device d's cache too.

    get(key, device, build) -> build() the first time, the kept value afterwards

key must be hashable and name everything the value depends on except the device;
build returns a Tensor or a tuple of Tensors on device.  A value larger than the
budget is returned but not kept.  build runs without the lock held, so two threads
may both build a missing value; the first one stored is the one kept and returned.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable

from .. import _C, _devices

BUDGET = 16 << 20  # bytes per device
# what an entry counts at least (its key and bookkeeping): a value with no tensor
# (interpolate's ('identity',) and ('repeat', r) taps) would count 0 bytes, so their
# number would grow without bound; with this at most BUDGET // ENTRY_MIN entries are kept
ENTRY_MIN = 256

_lock = threading.Lock()
_caches: dict = {}  # str(device) -> OrderedDict(key -> (value, nbytes)), oldest first
_sizes: dict = {}  # str(device) -> bytes held


def _nbytes(value: Any) -> int:
    items = value if isinstance(value, tuple) else (value,)
    return max(ENTRY_MIN, sum(t.numel() * t.element_size() for t in items
                              if isinstance(t, _C.Tensor)))


def get(key: Any, device: Any, build: Callable[[], Any]) -> Any:
    """The value kept for (key, device), else build()'s, kept within the budget."""
    where = str(device)
    with _lock:
        cache = _caches.get(where)
        if cache is not None:
            hit = cache.get(key)
            if hit is not None:
                cache.move_to_end(key)
                return hit[0]
    value = build()
    size = _nbytes(value)
    if size > BUDGET:
        return value
    with _lock:
        cache = _caches.setdefault(where, OrderedDict())
        hit = cache.get(key)
        if hit is not None:  # another thread stored it meanwhile
            cache.move_to_end(key)
            return hit[0]
        cache[key] = (value, size)
        held = _sizes.get(where, 0) + size
        while held > BUDGET:
            _, (_, dropped) = cache.popitem(last=False)
            held -= dropped
        _sizes[where] = held
    return value


def clear(device: Any = None) -> None:
    """Drops what is kept for device (every device when None)."""
    with _lock:
        for where in list(_caches) if device is None else [str(device)]:
            _caches.pop(where, None)
            _sizes.pop(where, None)


def stats(device: Any) -> tuple:
    """(entries, bytes) kept for device."""
    where = str(device)
    with _lock:
        return len(_caches.get(where, ())), _sizes.get(where, 0)


_devices._cache_releasers.append(clear)
