"""nn/_index_cache.py: the pools' per-device LRU cache of constant tensors (found by a
reviewer: a FIFO without a byte limit, not thread-safe, not released by
empty_cache())."""
import threading

import pytest

import pydevtensor as pdt
from pydevtensor.nn import _index_cache as cache
from pydevtensor.nn import functional as F


@pytest.fixture(autouse=True)
def empty():
    cache.clear()
    yield
    cache.clear()


def _vector(n, device="cpu"):
    return pdt.zeros(n, dtype=pdt.int64, device=device)  # 8 * n bytes


def test_kept_per_device_and_built_once(device, monkeypatch):
    monkeypatch.setattr(cache, "ENTRY_MIN", 1)  # the tensors' own bytes
    built = []

    def build():
        built.append(1)
        return _vector(4, device)

    first = cache.get("k", device, build)
    assert cache.get("k", device, build) is first and len(built) == 1
    assert first.device == device and cache.stats(device) == (1, 32)
    other = "cpu:1" if device.type != "cpu" else None
    if other is not None:  # the same key on another device is another entry
        assert cache.get("k", other, lambda: _vector(4)) is not first


def test_least_recently_used_goes_first_within_the_byte_budget(monkeypatch):
    monkeypatch.setattr(cache, "BUDGET", 100)
    monkeypatch.setattr(cache, "ENTRY_MIN", 1)
    a = cache.get("a", "cpu", lambda: _vector(5))  # 40 bytes
    cache.get("b", "cpu", lambda: _vector(5))
    assert cache.get("a", "cpu", lambda: None) is a  # a is now the most recent
    cache.get("c", "cpu", lambda: _vector(5))  # 120 > 100: b goes
    assert cache.stats("cpu") == (2, 80)
    rebuilt = []
    cache.get("b", "cpu", lambda: rebuilt.append(1) or _vector(5))  # a, the oldest, goes
    assert rebuilt == [1] and cache.stats("cpu") == (2, 80)
    assert cache.get("c", "cpu", lambda: None) is not None
    big = cache.get("big", "cpu", lambda: _vector(20))  # over the budget: not kept
    assert big.numel() == 20 and cache.stats("cpu") == (2, 80)
    cache.get("pair", "cpu", lambda: (_vector(2), _vector(3)))  # tuples count all
    assert cache.stats("cpu")[1] <= 100


def test_entries_without_tensors_are_bounded_too(device, monkeypatch):
    """A value with no tensor (interpolate's ('identity',) and ('repeat', r) taps)
    counts ENTRY_MIN bytes, so the number of entries stays bounded (it grew without
    bound at 0 bytes each)."""
    monkeypatch.setattr(cache, "BUDGET", 64 * cache.ENTRY_MIN)
    for r in range(1, 500):
        assert cache.get(("repeat", r), device, lambda: ("repeat", r)) == ("repeat", r)
    entries, held = cache.stats(device)
    assert entries == 64 and held == 64 * cache.ENTRY_MIN
    assert cache.get(("repeat", 499), device, lambda: None) == ("repeat", 499)  # the newest
    for s in range(1, 200):  # interpolate by whole factors: identity / repeat taps
        F.interpolate(pdt.ones(1, 1, s, device=device), scale_factor=2, mode="nearest")
    assert cache.stats(device)[0] <= 64


def test_many_shapes_stay_within_the_budget(monkeypatch):
    monkeypatch.setattr(cache, "BUDGET", 1 << 16)
    for s in range(20, 60):
        F.avg_pool2d(pdt.ones(1, 1, s, s), 3, 2, 1, count_include_pad=False)
        F.adaptive_max_pool2d(pdt.ones(1, 1, s, s), 7)
    entries, held = cache.stats("cpu")
    assert 0 < held <= 1 << 16 and entries < 80


def test_threads_share_it_safely(monkeypatch):
    """Several threads getting, building and evicting at once (distribute runs its
    replicas on threads): no error, and the budget holds."""
    monkeypatch.setattr(cache, "BUDGET", 4096)
    errors = []

    def work(offset):
        try:
            for i in range(400):
                n = 1 + (i * 7 + offset) % 60
                got = cache.get(("v", n), "cpu", lambda n=n: _vector(n))
                assert got.numel() == n
        except Exception as e:  # pragma: no cover - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and cache.stats("cpu")[1] <= 4096


def test_empty_cache_empties_it(device):
    F.avg_pool2d(pdt.ones(1, 1, 7, 7, device=device), 3, 2, 1, count_include_pad=False)
    assert cache.stats(device)[0] > 0
    if device.type == "cpu":
        pdt.empty_cache(device)
    else:
        pdt.cuda.empty_cache(device)
    assert cache.stats(device) == (0, 0)
