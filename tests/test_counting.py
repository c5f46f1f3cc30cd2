"""searchsorted, bucketize, bincount, unique (pydevtensor/_ops_counting.py) and
multinomial (pydevtensor/_ops_multinomial.py) on every device, against NumPy
(np.searchsorted, np.digitize, np.bincount, np.unique).

All results are exact (indices and counts; bincount's weighted sums are within 1e-12
relative of NumPy's in float64).  multinomial: frequencies against the weights with a
chi-square statistic below the 0.999 quantile for a fixed seed; the same draws on every
device for one seed; no repeats without replacement.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from conftest import CUDA_DEVICES, torch_or_skip


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy(device, dtype, side):
    rng = np.random.default_rng(0)
    seq = np.sort(rng.integers(-10, 10, 30)).astype(dtype)  # with repeats
    vals = rng.integers(-12, 12, (4, 7)).astype(dtype)
    if dtype.startswith("float"):
        seq[-2:] = np.nan  # NaN sorts last, as NumPy's
        vals[0, :3] = [np.nan, np.inf, -np.inf]
    s, v = pdt.tensor(seq, device=device), pdt.tensor(vals, device=device)
    got = pdt.searchsorted(s, v, side=side)
    assert got.dtype == pdt.int64 and got.shape == v.shape and got.device == device
    np.testing.assert_array_equal(_np(got), np.searchsorted(seq, vals, side=side))
    right = pdt.searchsorted(s, v, right=side == "right", out_int32=True)
    assert right.dtype == pdt.int32
    np.testing.assert_array_equal(_np(right), np.searchsorted(seq, vals, side=side))


def test_searchsorted_batched_scalar_sorter_empty(device):
    rng = np.random.default_rng(1)
    seq = np.sort(rng.standard_normal((2, 3, 8)), -1)
    vals = rng.standard_normal((2, 3, 5))
    got = pdt.searchsorted(pdt.tensor(seq, device=device), pdt.tensor(vals, device=device))
    want = np.stack([[np.searchsorted(seq[i, j], vals[i, j]) for j in range(3)]
                     for i in range(2)])
    np.testing.assert_array_equal(_np(got), want)
    s = pdt.tensor([1, 3, 5, 7], device=device)
    zero_d = pdt.searchsorted(s, 4)
    assert zero_d.shape == () and zero_d.item() == 2
    # the kernel's everyday call (a 1-d sequence, a tensor of its dtype) and what it leaves
    # to the general path (views that are not contiguous), of the values' shape either way
    for v in (pdt.tensor(4, device=device), pdt.tensor([[0, 8], [3, 5]], device=device),
              pdt.tensor([[0, 8], [3, 5]], device=device).T):
        for got in (pdt.searchsorted(s, v, right=True), pdt.searchsorted(s, v, side="right")):
            assert got.shape == v.shape and got.dtype == pdt.int64
            np.testing.assert_array_equal(_np(got),
                                          np.searchsorted([1, 3, 5, 7], _np(v), "right"))
    assert _np(pdt.searchsorted(pdt.tensor([0, 1, 9, 3, 9, 5], device=device)[1::2],
                                pdt.tensor([4, 1], device=device))).tolist() == [2, 0]
    assert pdt.searchsorted(s, 2.5).item() == 1
    # a number takes a floating sequence's dtype, as in PyTorch: 0.1 is float32(0.1) here
    tenth = pdt.tensor([0.1], device=device)
    assert pdt.searchsorted(tenth, 0.1, right=True).item() == 1
    unsorted = np.array([5.0, 1.0, 7.0, 3.0])
    sorter = np.argsort(unsorted)
    got = pdt.searchsorted(pdt.tensor(unsorted, device=device), pdt.tensor([3.0, 6.0],
                           device=device), sorter=pdt.tensor(sorter, device=device))
    np.testing.assert_array_equal(_np(got), np.searchsorted(unsorted, [3.0, 6.0],
                                                            sorter=sorter))
    assert pdt.searchsorted(s, pdt.zeros(0, device=device)).shape == (0,)
    assert pdt.searchsorted(pdt.zeros(0, 5, device=device),
                            pdt.zeros(0, 3, device=device)).shape == (0, 3)  # no rows
    assert _np(pdt.searchsorted(pdt.zeros(0, device=device), pdt.ones(3, device=device))
               ).tolist() == [0, 0, 0]


def test_searchsorted_and_isin_take_pytorchs_scalar_keyword_names(device):
    """PyTorch's Scalar overloads name the number self (searchsorted) and element or
    test_element (isin); they were TypeErrors.  Values against NumPy."""
    a = np.array([1.0, 3.0, 5.0, 7.0])
    seq = pdt.tensor(a, device=device)
    for v, side in ((1.5, "left"), (3.0, "left"), (3.0, "right"), (9, "left")):
        got = pdt.searchsorted(seq, self=v, right=side == "right")
        assert got.shape == () and got.item() == np.searchsorted(a, v, side=side)
    got = pdt.searchsorted(seq, self=pdt.tensor(6.0, device=device), out_int32=True)
    assert got.dtype == pdt.int32 and got.item() == 3
    x = np.array([[1, 2], [3, 2]])
    t = pdt.tensor(x, device=device)
    np.testing.assert_array_equal(pdt.isin(t, test_element=2).cpu().numpy(), np.isin(x, 2))
    np.testing.assert_array_equal(pdt.isin(elements=t, test_element=2, invert=True).cpu()
                                  .numpy(), ~np.isin(x, 2))
    got = pdt.isin(element=3, test_elements=t)
    assert got.shape == () and got.item() is True
    assert pdt.isin(element=4, test_elements=t).item() is False
    with pytest.raises(TypeError, match=r"'self' must be a number .*got Tensor of shape \(1,\)"):
        pdt.searchsorted(seq, self=pdt.tensor([1.0], device=device))
    with pytest.raises(TypeError, match=r"'input' and 'self' are two names of one argument"):
        pdt.searchsorted(seq, 1.0, self=1.0)
    with pytest.raises(TypeError, match=r"missing required argument 'test_elements'"):
        pdt.isin(t)


def test_searchsorted_errors(device):
    s = pdt.tensor([[1, 2, 3]], device=device)
    with pytest.raises(RuntimeError, match=r"searchsorted\(\): sorted_sequence should be 1-d "
                                           r"or have input's leading dims: shapes \(1, 3\) "
                                           r"and \(2,\)"):
        pdt.searchsorted(s, pdt.tensor([1, 2], device=device))
    with pytest.raises(RuntimeError, match=r"side='left' and right=True disagree"):
        pdt.searchsorted(s, pdt.tensor([[1]], device=device), side="left", right=True)
    # PyTorch's RuntimeError (a ValueError before)
    with pytest.raises(RuntimeError, match=r"side can only be 'left' or 'right', got 'middle'"):
        pdt.searchsorted(s, pdt.tensor([[1]], device=device), side="middle")


@pytest.mark.parametrize("right", [False, True])
def test_bucketize_matches_numpy(device, right):
    b = np.array([-1.0, 0.0, 0.0, 2.5, 4.0])
    x = np.array([[-3.0, -1.0, 0.0], [1.0, 2.5, 9.0]])
    got = pdt.bucketize(pdt.tensor(x, device=device), pdt.tensor(b, device=device),
                        right=right)
    # bucketize(right=False) is np.digitize(right=True), and the other way round
    np.testing.assert_array_equal(_np(got), np.digitize(x, b, right=not right))
    assert pdt.bucketize(2.0, pdt.tensor(b, device=device)).item() == 3
    with pytest.raises(RuntimeError, match=r"bucketize\(\): boundaries must be 1-d, got shape "
                                           r"\(1, 5\)"):
        pdt.bucketize(pdt.tensor(x, device=device), pdt.tensor(b[None], device=device))


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_bincount_matches_numpy(device, dtype):
    rng = np.random.default_rng(2)
    a = rng.integers(0, 9, 200).astype(dtype)
    x = pdt.tensor(a, device=device)
    got = pdt.bincount(x)
    assert got.dtype == pdt.int64
    np.testing.assert_array_equal(_np(got), np.bincount(a))
    np.testing.assert_array_equal(_np(x.bincount(minlength=20)), np.bincount(a, minlength=20))
    w = rng.standard_normal(200)
    for wdtype, out in (("float64", pdt.float64), ("float32", pdt.float32),
                        ("int64", pdt.float64)):
        wt = pdt.tensor(w.astype(wdtype) if wdtype != "int64" else (w * 10).astype(np.int64),
                        device=device)
        got = pdt.bincount(x, weights=wt)
        assert got.dtype == out
        ref = np.bincount(a, weights=_np(wt).astype(np.float64))
        np.testing.assert_allclose(_np(got), ref, rtol=1e-12 if out == pdt.float64 else 1e-5,
                                   atol=1e-12 if out == pdt.float64 else 1e-5)


@pytest.mark.parametrize("dtype", ["int16", "int32", "int64"])
def test_bincount_of_strided_input(device, dtype):
    """A strided slice, a column, and a reversed NumPy array (negative stride): the
    composed path's index is made contiguous for every dtype, int64's too, with and
    without weights and minlength."""
    a = np.arange(30).astype(dtype) % 7
    x = pdt.tensor(a, device=device)
    cases = [(x[::3], a[::3]), (x.reshape(5, 6).T[1], a.reshape(5, 6).T[1])]
    if device == "cpu":
        cases.append((pdt.from_numpy(a[::-2]), a[::-2]))
    for t, ref in cases:
        np.testing.assert_array_equal(_np(pdt.bincount(t)), np.bincount(ref))
        np.testing.assert_array_equal(_np(pdt.bincount(t, minlength=12)),
                                      np.bincount(ref, minlength=12))
        w = np.linspace(0.5, 3.0, len(ref))
        np.testing.assert_allclose(
            _np(pdt.bincount(t, weights=pdt.tensor(w, device=device))),
            np.bincount(ref, weights=w), rtol=1e-12, atol=1e-12)


def test_bincount_weights_of_half_dtypes_and_empty_input(device):
    """float16 and bfloat16 weights sum to float64 (PyTorch's dtype), and an empty input
    gives int64 zeros of minlength, weights or not (PyTorch's)."""
    a = np.array([0, 3, 3, 1, 3])
    w = np.array([0.5, 1.25, 2.0, 3.0, 1024.0])  # exact in float16 and bfloat16
    x = pdt.tensor(a, device=device)
    for dtype in (pdt.float16, pdt.bfloat16):
        got = pdt.bincount(x, weights=pdt.tensor(w, device=device).to(dtype))
        assert got.dtype == pdt.float64
        np.testing.assert_array_equal(_np(got), np.bincount(a, weights=w))
    empty = pdt.zeros(0, dtype=pdt.int64, device=device)
    for dtype in (pdt.float16, pdt.float32, pdt.float64):
        got = pdt.bincount(empty, weights=pdt.zeros(0, dtype=dtype, device=device),
                           minlength=2)
        assert got.dtype == pdt.int64
        np.testing.assert_array_equal(_np(got), [0, 0])


def test_bincount_edges_and_errors(device):
    empty = pdt.bincount(pdt.zeros(0, dtype=pdt.int64, device=device), minlength=3)
    np.testing.assert_array_equal(_np(empty), [0, 0, 0])
    assert pdt.bincount(pdt.zeros(0, dtype=pdt.int64, device=device)).shape == (0,)
    with pytest.raises(RuntimeError, match=r"bincount\(\): input must be non-negative, got "
                                           r"the value -2 \(shape \(3,\), on"):
        pdt.bincount(pdt.tensor([1, -2, 3], device=device))
    with pytest.raises(TypeError, match=r"bincount\(\): expected an integer tensor, got "
                                        r"pydevtensor.float32"):
        pdt.bincount(pdt.tensor([1.0], device=device))
    with pytest.raises(RuntimeError, match=r"bincount\(\): input must be 1-d, got shape"):
        pdt.bincount(pdt.tensor([[1]], device=device))
    with pytest.raises(RuntimeError, match=r"bincount\(\): weights must have input's shape"):
        pdt.bincount(pdt.tensor([1, 2], device=device), weights=pdt.ones(3, device=device))


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float32", "float64"])
def test_unique_matches_numpy(device, dtype):
    a = np.random.default_rng(3).integers(-4, 5, (5, 6)).astype(dtype)
    x = pdt.tensor(a, device=device)
    values, inverse, counts = pdt.unique(x, return_inverse=True, return_counts=True)
    want, winv, wcounts = np.unique(a, return_inverse=True, return_counts=True)
    assert values.dtype == x.dtype and inverse.dtype == counts.dtype == pdt.int64
    np.testing.assert_array_equal(_np(values), want)
    np.testing.assert_array_equal(_np(inverse), winv.reshape(a.shape))
    np.testing.assert_array_equal(_np(counts), wcounts)
    np.testing.assert_array_equal(_np(x.unique()), want)


def test_unique_nan_empty_zero_d(device):
    a = np.array([np.nan, 1.0, np.nan, -2.0, 1.0])
    got = pdt.unique(pdt.tensor(a, device=device))
    np.testing.assert_array_equal(_np(got), np.unique(a, equal_nan=False))  # NaNs distinct
    v, i, c = pdt.unique(pdt.zeros(0, 3, device=device), return_inverse=True,
                         return_counts=True)
    assert v.shape == (0,) and i.shape == (0, 3) and c.shape == (0,)
    v, i = pdt.unique(pdt.tensor(7, device=device), return_inverse=True)
    assert _np(v).tolist() == [7] and i.shape == () and i.item() == 0


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_dim_matches_numpy(device, dim):
    a = np.random.default_rng(4).integers(0, 2, (6, 3, 4))
    a[3] = a[1]
    x = pdt.tensor(a, device=device)
    values, inverse, counts = pdt.unique(x, dim=dim, return_inverse=True, return_counts=True)
    want, winv, wcounts = np.unique(a, axis=dim, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(_np(values), want)
    np.testing.assert_array_equal(_np(inverse), winv.reshape(-1))
    np.testing.assert_array_equal(_np(counts), wcounts)
    with pytest.raises(IndexError, match=r"unique\(\): Dimension out of range"):
        pdt.unique(x, dim=3)


def _chi_square(counts, probs):
    expected = probs * counts.sum()
    keep = expected > 0
    assert np.all(counts[~keep] == 0)
    return float(((counts[keep] - expected[keep]) ** 2 / expected[keep]).sum()), keep.sum() - 1


# the 0.999 quantiles of chi-square with k degrees of freedom (scipy.stats.chi2.ppf)
CHI2_999 = {3: 16.266, 4: 18.467}


def test_multinomial_with_replacement_frequencies(device):
    w = np.array([1.0, 0.0, 2.0, 3.0, 0.5, 3.5])
    pdt.manual_seed(123)
    draws = pdt.multinomial(pdt.tensor(w, device=device), 20000, replacement=True)
    assert draws.dtype == pdt.int64 and draws.shape == (20000,)
    stat, k = _chi_square(np.bincount(_np(draws), minlength=6).astype(float), w / w.sum())
    assert stat < CHI2_999[k], stat


def test_multinomial_without_replacement(device):
    w = np.array([[1.0, 2.0, 0.0, 4.0, 1.0], [5.0, 1.0, 1.0, 1.0, 0.0]])
    pdt.manual_seed(5)
    x = pdt.tensor(w, dtype=pdt.float32, device=device)
    for _ in range(20):  # never a repeat in a row; zero weights only after the others
        d = _np(x.multinomial(4))
        assert d.shape == (2, 4)
        for row, wr in zip(d, w):
            assert len(set(row.tolist())) == 4
            assert np.all(wr[row] > 0)
    # the first draw of each row is proportional to the weights
    first = _np(pdt.multinomial(pdt.tensor(w[0], device=device).expand(8000, 5), 1))[:, 0]
    stat, k = _chi_square(np.bincount(first, minlength=5).astype(float), w[0] / w[0].sum())
    assert stat < CHI2_999[k], stat
    full = _np(pdt.multinomial(pdt.tensor(w[0], device=device), 5))  # all: a permutation
    assert sorted(full.tolist()) == [0, 1, 2, 3, 4] and full[-1] == 2


def test_multinomial_same_on_every_device():
    w = np.random.default_rng(6).uniform(0, 1, (3, 17))
    out = {}
    for dev in ["cpu"] + CUDA_DEVICES:
        pdt.manual_seed(99)
        a = _np(pdt.multinomial(pdt.tensor(w, device=dev), 9))
        b = _np(pdt.multinomial(pdt.tensor(w, device=dev), 40, replacement=True))
        out[dev] = (a, b)
    for a, b in out.values():
        np.testing.assert_array_equal(a, out["cpu"][0])
        np.testing.assert_array_equal(b, out["cpu"][1])
    pdt.manual_seed(100)
    assert not np.array_equal(_np(pdt.multinomial(pdt.tensor(w), 40, replacement=True)),
                              out["cpu"][1])


@pytest.mark.parametrize("weights,match", [
    ([1.0, -1.0], r"finite and non-negative: input holds a negative, NaN or infinite value"),
    ([1.0, float("nan")], r"finite and non-negative"),
    ([1.0, float("inf")], r"finite and non-negative"),
    ([0.0, 0.0], r"invalid distribution: a row of weights sums to 0"),
])
def test_multinomial_bad_weights(device, weights, match):
    with pytest.raises(RuntimeError, match=r"multinomial\(\): .*" + match + r".*on"):
        pdt.multinomial(pdt.tensor(weights, device=device), 1, replacement=True)


def test_multinomial_bad_arguments(device):
    w = pdt.ones(3, device=device)
    with pytest.raises(RuntimeError, match=r"cannot draw num_samples=4 > 3 categories "
                                           r"without replacement"):
        pdt.multinomial(w, 4)
    with pytest.raises(RuntimeError, match=r"cannot sample num_samples=0 <= 0"):
        pdt.multinomial(w, 0)
    with pytest.raises(TypeError, match=r"expected floating point weights, got "
                                        r"pydevtensor.int64"):
        pdt.multinomial(pdt.tensor([1, 2], device=device), 1)
    with pytest.raises(RuntimeError, match=r"input must be 1-d or 2-d, got shape \(1, 1, 3\)"):
        pdt.multinomial(w.reshape(1, 1, 3), 1)
    assert pdt.multinomial(pdt.ones(0, 3, device=device), 2).shape == (0, 2)


def test_against_torch(device):
    torch = torch_or_skip()
    rng = np.random.default_rng(7)
    a = rng.integers(0, 6, 50)
    np.testing.assert_array_equal(_np(pdt.bincount(pdt.tensor(a, device=device))),
                                  torch.bincount(torch.tensor(a)).numpy())
    seq, v = np.sort(rng.standard_normal(10)), rng.standard_normal(6)
    np.testing.assert_array_equal(
        _np(pdt.searchsorted(pdt.tensor(seq, device=device), pdt.tensor(v, device=device))),
        torch.searchsorted(torch.tensor(seq), torch.tensor(v)).numpy())
    m = rng.integers(0, 2, (5, 3))
    got = pdt.unique(pdt.tensor(m, device=device), dim=0, return_inverse=True,
                     return_counts=True)
    want = torch.unique(torch.tensor(m), dim=0, return_inverse=True, return_counts=True)
    for g, t in zip(got, want):
        np.testing.assert_array_equal(_np(g), t.numpy())


def _device_to_host():
    return pdt.transfer_stats()["device_to_host"]["count"]


def test_no_copy_to_the_host_where_none_is_documented(device):
    """searchsorted and bucketize read nothing back, on a GPU too (their gathers check
    indices on the device: Note [deferred index checks]); bincount and unique read
    their sizes: counted copies on a GPU, none on the CPU."""
    s = pdt.tensor([1.0, 2.0, 4.0], device=device)
    v = pdt.tensor([[0.5, 2.0], [3.0, 9.0]], device=device)
    pdt.reset_transfer_stats()
    with pdt.transfer_guard("disallow"):  # implicit copies raise: these are explicit
        pdt.searchsorted(s, v, right=True)
        pdt.bucketize(v, s)
    both = _device_to_host()
    pdt.reset_transfer_stats()
    pdt.gather(pdt.ones(2, 5, device=device), -1, pdt.tensor([[0, 1], [2, 3]], device=device))
    assert both == _device_to_host() == 0
    i = pdt.tensor([0, 3, 3, 1], device=device)
    pdt.reset_transfer_stats()
    pdt.bincount(i)
    pdt.unique(i, return_inverse=True, return_counts=True)
    assert (_device_to_host() == 0) == (device.type == "cpu")  # counted, on a GPU only


def test_searchsorted_with_empty_rows(device):
    """An N-d sorted_sequence with an empty last dim: every position 0, as NumPy's for
    each row (found by a reviewer: an internal reshape error)."""
    got = pdt.searchsorted(pdt.zeros(2, 0, device=device), pdt.tensor([[1.0], [2.0]],
                                                                      device=device))
    assert got.tolist() == [[0], [0]] and got.dtype == pdt.int64


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_searchsorted_and_isin_every_batch_and_row(device, dtype):
    """The binary search's batches of eight and their tails (1 to 41 values), sequences of
    1 to 300 entries with repeats, one row for all or one per row, both sides; NaN,
    infinities and -0.0 against 0.0 for floats, in batches with and without a NaN value
    (Note [the search's comparisons]); isin through the same search (floats, wide
    integers) and through the byte table (narrow integers)."""
    rng = np.random.default_rng(11)
    floating = dtype.startswith("float")
    for m in (1, 2, 7, 8, 9, 64, 300):
        seq = np.sort(rng.integers(-20, 20, m)).astype(dtype)
        if floating and m > 2:
            seq[0], seq[m // 2], seq[-1] = -np.inf, -0.0, np.nan
            seq = seq[np.argsort(seq, kind="stable")]
        for k in (1, 7, 8, 9, 41):
            vals = rng.integers(-22, 22, k).astype(dtype)
            if floating and k > 3:
                vals[:4] = [np.nan, 0.0, np.inf, -0.0]
            if floating and k > 20:  # a batch without NaN compares values as they are (Note
                vals[8:12] = [-0.0, 0.0, np.inf, -np.inf]  # [the search's comparisons]),
                vals[20] = np.nan  # one with NaN by the sort's keys
            s, v = pdt.tensor(seq, device=device), pdt.tensor(vals, device=device)
            for side in ("left", "right"):
                np.testing.assert_array_equal(_np(pdt.searchsorted(s, v, side=side)),
                                              np.searchsorted(seq, vals, side=side),
                                              err_msg=f"{m} {k} {side}")
            np.testing.assert_array_equal(_np(pdt.isin(v, s)), np.isin(vals, seq),
                                          err_msg=f"isin {m} {k}")
    rows = np.sort(rng.integers(-9, 9, (5, 3, 13)), -1).astype(dtype)
    vals = rng.integers(-10, 10, (5, 3, 21)).astype(dtype)
    got = pdt.searchsorted(pdt.tensor(rows, device=device), pdt.tensor(vals, device=device),
                           side="right")
    want = np.stack([[np.searchsorted(rows[i, j], vals[i, j], side="right") for j in range(3)]
                     for i in range(5)])
    np.testing.assert_array_equal(_np(got), want)
    if not floating:  # a wide range: the search; a narrow one past the split: the table
        wide = rng.integers(-2**30, 2**30, 3000).astype(dtype)
        some = np.concatenate([wide[::3], rng.integers(-2**30, 2**30, 40_000).astype(dtype)])
        np.testing.assert_array_equal(_np(pdt.isin(pdt.tensor(some, device=device),
                                                   pdt.tensor(wide, device=device))),
                                      np.isin(some, wide))
        lo = np.iinfo(dtype).min
        edge = np.array([lo, lo + 1, -1, 0, 5, 1000], dtype)
        many = np.concatenate([edge, rng.integers(-5, 1200, 70_000).astype(dtype), [lo]])
        for table in (edge[2:], edge[:2], np.array([7, 7, 900, 3], dtype)):
            np.testing.assert_array_equal(_np(pdt.isin(pdt.tensor(many, device=device),
                                                       pdt.tensor(table, device=device))),
                                          np.isin(many, table))


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_searchsorted_and_isin_across_threads_and_long_rows(device, dtype):
    """Values split between threads mid-row (rows of 20001), one row of 70000 values, a
    few values in a long row, and isin's byte table at the top of the integer range (the
    unsigned difference wraps there)."""
    rng = np.random.default_rng(14)
    seq = np.sort(rng.integers(-1000, 1000, (3, 50)), -1).astype(dtype)
    vals = rng.integers(-1100, 1100, (3, 20_001)).astype(dtype)
    got = pdt.searchsorted(pdt.tensor(seq, device=device), pdt.tensor(vals, device=device))
    np.testing.assert_array_equal(
        _np(got), np.stack([np.searchsorted(seq[r], vals[r]) for r in range(3)]))
    one = np.sort(rng.integers(-10**6, 10**6, 5000)).astype(dtype)
    many = rng.integers(-10**6, 10**6, 70_000).astype(dtype)
    for side in ("left", "right"):
        np.testing.assert_array_equal(
            _np(pdt.searchsorted(pdt.tensor(one, device=device), pdt.tensor(many, device=device),
                                 side=side)), np.searchsorted(one, many, side=side))
    few = np.concatenate([one[[0, 7, 4999]], [one[0] - 1, one[-1] + 1]]).astype(dtype)
    s, f = pdt.tensor(one, device=device), pdt.tensor(few, device=device)
    np.testing.assert_array_equal(_np(pdt.searchsorted(s, f, side="right")),
                                  np.searchsorted(one, few, side="right"))
    np.testing.assert_array_equal(_np(pdt.isin(f, s)), np.isin(few, one))
    rows = np.sort(rng.integers(0, 10**6, (2, 3000)), -1).astype(dtype)  # k = 2 per row
    pick = np.stack([rows[0, [5, 2999]], rows[1, [0, 17]]]) + np.array([[0, 1], [0, 0]])
    np.testing.assert_array_equal(
        _np(pdt.searchsorted(pdt.tensor(rows, device=device),
                             pdt.tensor(pick.astype(dtype), device=device))),
        np.stack([np.searchsorted(rows[r], pick[r]) for r in range(2)]))
    if dtype == "int64":
        hi = np.iinfo(dtype).max
        table = np.array([hi - 1, hi], dtype)
        probe = np.concatenate([[np.iinfo(dtype).min, 0, hi - 2, hi - 1, hi],
                                rng.integers(hi - 40, hi, 1000, dtype=np.int64, endpoint=True)])
        np.testing.assert_array_equal(_np(pdt.isin(pdt.tensor(probe, device=device),
                                                   pdt.tensor(table, device=device))),
                                      np.isin(probe, table))


def test_searchsorted_of_an_unsorted_sequence_stays_in_range(device):
    """A sequence that is not sorted gives positions within [0, m] (no read outside it)."""
    rng = np.random.default_rng(12)
    seq = pdt.tensor(rng.standard_normal(1000), device=device)
    got = _np(pdt.searchsorted(seq, pdt.tensor(rng.standard_normal(5000), device=device)))
    assert got.min() >= 0 and got.max() <= 1000


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_bincount_of_every_bin_count_and_length(device, dtype):
    """Counts of 1 to 5,000 bins (the CPU counts up to 512 bins in four sets summed at
    the end when there are at least 4 values a bin, else straight into the result: Note
    [bincount on the CPU]), lengths that end at each place of the four sets and on
    either side of 4 values a bin, minlength below and above the largest value:
    np.bincount's."""
    rng = np.random.default_rng(7)
    for bins in (1, 100, 511, 512, 513, 5000):
        for n in (1, 2, 3, 5, 1000, 70001, 4 * bins - 1, 4 * bins):
            a = rng.integers(0, bins, n).astype(dtype)
            a[0] = bins - 1  # the largest value, so that the result has bins bins
            x = pdt.tensor(a, device=device)
            got = pdt.bincount(x)
            assert got.dtype == pdt.int64
            np.testing.assert_array_equal(_np(got), np.bincount(a), err_msg=f"{bins} {n}")
            for minlength in (bins // 2, bins + 3):
                np.testing.assert_array_equal(_np(pdt.bincount(x, minlength=minlength)),
                                              np.bincount(a, minlength=minlength))
    x = pdt.tensor(np.arange(10, dtype=dtype)[::2].copy(), device=device)[1:]  # a view
    np.testing.assert_array_equal(_np(pdt.bincount(x)), np.bincount(np.arange(2, 10, 2)))


def test_bincount_whose_largest_value_asks_for_more_bins_than_memory():
    with pytest.raises(MemoryError, match=r"bincount\(\): the largest value 4611686018427387904"):
        pdt.bincount(pdt.tensor([3, 2**62]))
