"""Sorting rows long enough for the CPU's radix sort (Note [radix sort] in
csrc/cpu/cpu_sort.c, from 512 elements), and the shorter rows it sorts as packed keys
(Note [short rows as packed keys]) or by merging, on every device: stable in both
directions, NaN the largest value (last ascending, first descending) whatever its
payload, -0.0 equal to 0.0, and the values moved with their bits.  The expected
order is Python's stable sorted() on the same keys."""
import math

import numpy as np
import pytest

import pydevtensor as pdt


def expected_order(x, descending):
    def key(i):
        v = float(x[i])
        if math.isnan(v):
            return (not descending, 0.0)
        return (descending, -v if descending else v)
    return sorted(range(len(x)), key=key)


def row_of(dtype, n, seed):
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        x = rng.standard_normal(n).astype(dtype)
        x[rng.integers(0, n, n // 8)] = rng.choice([0.0, -0.0, 1.5, -2.25], n // 8)  # ties
        nan_bits = {"float32": [0x7fc00000, 0xffc00001, 0x7f800123],
                    "float64": [0x7ff8000000000000, 0xfff8000000000001, 0x7ff0000000000123]}
        u = np.array(nan_bits[dtype], dtype=np.uint32 if dtype == "float32" else np.uint64)
        x[rng.integers(0, n, 3)] = u.view(dtype)
        x[:2] = [np.inf, -np.inf]
        return x
    info = np.iinfo(dtype)
    wide = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    narrow = rng.integers(-3, 4, n).astype(dtype)  # many ties; most key bytes shared
    return np.where(rng.random(n) < 0.5, wide, narrow).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 10, 11, 16, 17, 100, 511, 512, 1000, 70_001])
@pytest.mark.parametrize("descending", [False, True])
def test_long_rows_sort_stably_with_their_bits(device, dtype, n, descending):
    x = row_of(dtype, n, seed=n + len(dtype))
    values, indices = pdt.sort(pdt.from_numpy(x).to(device), descending=descending)
    want = np.array(expected_order(x, descending), dtype=np.int64)
    np.testing.assert_array_equal(indices.cpu().numpy(), want)
    got = np.ascontiguousarray(values.cpu().numpy())
    assert np.array_equal(got.view(np.uint8), x[want].view(np.uint8))


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_rows_of_a_matrix_sort_independently(device, dtype):
    rows = [row_of("float32" if dtype == "bool" else dtype, 600, seed=s) for s in range(5)]
    m = np.stack(rows)
    if dtype == "bool":
        m = (m > 0) | np.isnan(m)
    for descending in (False, True):
        values, indices = pdt.sort(pdt.from_numpy(m).to(device), dim=1, descending=descending)
        for r in range(len(m)):
            want = np.array(expected_order(m[r].astype(np.float64) if dtype == "bool" else m[r],
                                           descending), dtype=np.int64)
            np.testing.assert_array_equal(indices[r].cpu().numpy(), want)
            np.testing.assert_array_equal(values[r].cpu().numpy(), m[r][want])
        # along dim 0 (moved last and back): each column of 5 sorted alone
        cols = pdt.argsort(pdt.from_numpy(m).to(device), dim=0, descending=descending)
        for c in (0, 299, 599):
            want = expected_order(m[:, c].astype(np.float64) if dtype == "bool" else m[:, c],
                                  descending)
            np.testing.assert_array_equal(cols[:, c].cpu().numpy(), want)


def exact_order(x, descending):
    """Python's stable sorted() on the exact integers."""
    vals = [int(v) for v in x]
    return sorted(range(len(vals)), key=lambda i: -vals[i] if descending else vals[i])


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64"])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("n", [1500, 100])
def test_integer_rows_of_every_range_sort_stably(device, dtype, descending, n):
    """Integer keys are distances from the row's smallest (descending: largest) value
    (Note [integer keys from the row's range] in csrc/cpu/cpu_sort.c): rows whose largest
    minus smallest needs 0 to 8 bytes, based at the dtype's ends, at 0 and between, each
    with many ties, give the stable order of the exact integers and their values.  Rows
    of 100 are packed keys up to 4 bytes (int64: a range of 2^32 - 1 at most, Note [short
    rows as packed keys]) and merged past them."""
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    rng = np.random.default_rng(len(dtype) + descending)
    for nbytes in range(info.bits // 8 + 1):
        span = (1 << (8 * nbytes)) - 1  # hi - lo of the row
        bases = {lo, hi - span, lo + (hi - lo - span) // 3} | ({0} if span <= hi else set())
        for base in sorted(bases):
            ties = rng.integers(0, min(span, 40) + 1, n).tolist()
            wide = [(int(a) << 32 | int(b)) % (span + 1)
                    for a, b in zip(rng.integers(0, 1 << 32, n), rng.integers(0, 1 << 32, n))]
            offs = [t if r < 0.5 else w for t, w, r in zip(ties, wide, rng.random(n))]
            offs[:2] = [span, 0]  # both ends of the range
            x = np.array([base + o for o in offs], dtype=dtype)
            values, indices = pdt.sort(pdt.from_numpy(x).to(device), descending=descending)
            want = np.array(exact_order(x, descending), dtype=np.int64)
            np.testing.assert_array_equal(indices.cpu().numpy(), want,
                                          err_msg=f"{nbytes} bytes from {base}")
            np.testing.assert_array_equal(values.cpu().numpy(), x[want])


@pytest.mark.parametrize("span", [(1 << 32) - 1, 1 << 32])
@pytest.mark.parametrize("descending", [False, True])
def test_short_int64_rows_at_the_packed_keys_limit(device, span, descending):
    """A short int64 row whose range is 2^32 - 1 still fits a packed key's 32 bits; one of
    2^32 does not and is merged: both in the exact stable order, rows of one matrix each
    taking its own way."""
    rng = np.random.default_rng(span % 7 + descending)
    rows = []
    for base in (-(1 << 63), -5, (1 << 63) - 1 - span):
        offs = np.concatenate([[0, span], rng.integers(0, span + 1, 48), rng.integers(0, 3, 50)])
        rows.append([base + int(o) for o in rng.permutation(offs)])
    m = np.array(rows, dtype=np.int64)
    values, indices = pdt.sort(pdt.from_numpy(m).to(device), dim=1, descending=descending)
    for r in range(len(m)):
        want = np.array(exact_order(m[r], descending), dtype=np.int64)
        np.testing.assert_array_equal(indices[r].cpu().numpy(), want)
        np.testing.assert_array_equal(values[r].cpu().numpy(), m[r][want])


@pytest.mark.parametrize("dtype", ["int32", "float32"])
@pytest.mark.parametrize("n", [16, 19, 37])
def test_every_pattern_of_two_values_in_sixteen(device, dtype, n):
    """Every row of 16 zeros and ones (all 2^16 of them), and each row followed by
    another pattern when n is longer: the CPU sorts runs of 16 by a sorting network
    and merges them (Note [short rows as packed keys]); the stable order of each row
    and its values, in both directions, against NumPy's stable argsort."""
    bits = (np.arange(1 << 16)[:, None] >> np.arange(16)) & 1
    m = np.concatenate([bits, bits[::-1, : n - 16], bits[:, : max(n - 32, 0)]], axis=1)
    m = m[:, :n].astype(dtype)
    x = pdt.from_numpy(m).to(device)
    for descending in (False, True):
        values, indices = pdt.sort(x, dim=1, descending=descending)
        want = np.argsort(-m if descending else m, axis=1, kind="stable")
        np.testing.assert_array_equal(indices.cpu().numpy(), want)
        np.testing.assert_array_equal(values.cpu().numpy(), np.take_along_axis(m, want, 1))
