"""histogramdd (PyTorch's torch.histogramdd): against numpy.histogramdd, on every device,
with int, per-dimension and edge bins, range, weight, density, NaN and points outside."""
import numpy as np
import pytest

import pydevtensor as pdt

RNG = np.random.default_rng(3)


def _check(res, want, device, dtype=np.float64):
    hist, edges = res
    assert res.hist is hist and res.bin_edges is edges and isinstance(edges, tuple)
    assert hist.device == device and all(e.device == device for e in edges)
    np.testing.assert_allclose(hist.cpu().numpy(), want[0], rtol=1e-6, atol=1e-12)
    assert hist.cpu().numpy().dtype == dtype
    assert len(edges) == len(want[1])
    for got, exp in zip(edges, want[1]):
        np.testing.assert_allclose(got.cpu().numpy(), exp, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_against_numpy(device, dtype):
    a = RNG.standard_normal((50, 3)).astype(dtype)
    w = RNG.random(50).astype(dtype)
    x = pdt.tensor(a, device=device)
    _check(pdt.histogramdd(x, 4), np.histogramdd(a.astype(np.float64), 4), device, dtype)
    _check(pdt.histogramdd(x, [2, 3, 5], weight=pdt.tensor(w, device=device)),
           np.histogramdd(a.astype(np.float64), [2, 3, 5], weights=w), device, dtype)
    rng = [(-1.0, 1.0), (-0.5, 2.0), (0.0, 0.5)]  # points outside are not counted
    _check(pdt.histogramdd(x, [3, 2, 4], range=[e for r in rng for e in r], density=True),
           np.histogramdd(a.astype(np.float64), [3, 2, 4], range=rng, density=True),
           device, dtype)


def test_edges_given_and_points_on_edges(device):
    a = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0], [3.0, 2.0], [np.nan, 1.0],
                  [-1.0, 1.0], [1.5, 2.5]])
    e0, e1 = np.array([0.0, 1.0, 3.0]), np.array([0.0, 0.5, 2.0])
    res = pdt.histogramdd(pdt.tensor(a, device=device),
                          [pdt.tensor(e0, device=device), pdt.tensor(e1, device=device)])
    # numpy drops the NaN row too; 3.0 and 2.0 on the last edges count in the last bins
    _check(res, np.histogramdd(a[~np.isnan(a).any(1)], [e0, e1]), device)
    np.testing.assert_array_equal(res.hist.cpu().numpy(), [[0, 1], [2, 2]])


def test_batched_points_equal_ends_and_empty(device):
    a = RNG.random((2, 5, 2))
    _check(pdt.histogramdd(pdt.tensor(a, device=device), (3, 2)),
           np.histogramdd(a.reshape(-1, 2), (3, 2)), device)
    ones = np.ones((3, 1))  # equal ends widen by 0.5, as numpy's
    _check(pdt.histogramdd(pdt.tensor(ones, device=device), 2), np.histogramdd(ones, 2), device)
    res = pdt.histogramdd(pdt.zeros(0, 2, dtype=pdt.float64, device=device), 2)
    _check(res, (np.zeros((2, 2)), [np.array([0.0, 0.5, 1.0])] * 2), device)


def test_the_last_edge_is_the_ranges_own(device):
    """The edge rule of histogram: the ends pinned to the range, so a value on the range's
    end is counted in the last bin although linspace's rounding ends below it."""
    a = np.array([[-6.0, 5.4], [5.4, -6.0]])
    res = pdt.histogramdd(pdt.tensor(a, device=device), 9, range=[-6.0, 5.4, -6.0, 5.4])
    assert float(res.bin_edges[0][-1]) == 5.4 and float(res.hist.sum()) == 2.0
    assert float(res.hist[8, 0]) == 1.0 and float(res.hist[0, 8]) == 1.0


def test_bad_input(device):
    x = pdt.ones(4, 2, device=device)
    with pytest.raises(RuntimeError, match=r"3 bins for 2-dimensional points"):
        pdt.histogramdd(x, [2, 2, 2])
    with pytest.raises(RuntimeError, match=r"range should have 4 elements, got 2"):
        pdt.histogramdd(x, 2, range=[0.0, 1.0])
    with pytest.raises(RuntimeError, match=r"weight must be a tensor of input's shape without "
                                           r"its last dimension, \(4,\), got \(3,\)"):
        pdt.histogramdd(x, 2, weight=pdt.ones(3, device=device))
    with pytest.raises(RuntimeError, match=r"at least 2 dimensions"):
        pdt.histogramdd(pdt.ones(3, device=device), 2)
    # PyTorch's NotImplementedError (a RuntimeError; plain RuntimeError before)
    with pytest.raises(NotImplementedError, match=r"expected a floating point input, got "
                                                  r".*int64"):
        pdt.histogramdd(pdt.ones(3, 2, dtype=pdt.int64, device=device), 2)
    with pytest.raises(RuntimeError, match=r"bins for dimension 1 must be > 0, got 0"):
        pdt.histogramdd(x, [2, 0])
    with pytest.raises(RuntimeError, match=r"max must be larger than min, got min=1.0, "
                                           r"max=0.0 for dimension 0"):
        pdt.histogramdd(x, 2, range=[1.0, 0.0, 0.0, 1.0])
    with pytest.raises(RuntimeError, match=r"bin edges for dimension 0 must be increasing"):
        pdt.histogramdd(x, [pdt.tensor([1.0, 0.0], device=device),
                            pdt.tensor([0.0, 1.0], device=device)])
    with pytest.raises(TypeError, match=r"bins must be an int or a sequence of 2 ints"):
        pdt.histogramdd(x, pdt.tensor([0.0, 1.0], device=device))
