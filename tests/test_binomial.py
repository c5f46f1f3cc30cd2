"""binomial(count, prob) (pydevtensor/_ops_binomial.py), PyTorch's torch.binomial, on every
device.

The draws' distribution against NumPy's: for each (n, p) 40,000 draws of ours and
40,000 of ``numpy.random.Generator.binomial`` go into one contingency table (cells
with fewer than 5 expected pooled into the tails), and the chi-square statistic of
homogeneity must stay below the 0.999 quantile of its degrees of freedom (the
Wilson-Hilferty approximation, within 1.2% above scipy's quantile for 5 to 60 degrees
of freedom): each statistic has a false-failure rate of at most 1 in 1,000 over seeds;
the seeds are fixed, so a run passes or fails the same way every time.  The same
statistic against the closed-form mass function (math.comb) too.  Edge cases (p = 0 or
1, n = 0, broadcasting, a generator, dtypes) are exact.
"""
import math

import numpy as np
import pytest

import pydevtensor as pdt

Z_999 = 3.090232306167813  # the standard normal's 0.999 quantile


def chi2_999(k):
    """The 0.999 quantile of chi-square with k degrees of freedom (Wilson-Hilferty)."""
    return k * (1 - 2 / (9 * k) + Z_999 * math.sqrt(2 / (9 * k))) ** 3


def _cells(expected):
    """Bins of 0..n: the middle values with >= 5 expected, the tails pooled into the ends."""
    keep = np.nonzero(expected >= 5)[0]
    lo, hi = keep[0], keep[-1]
    return lo, hi


def _pool(counts, lo, hi):
    return np.concatenate([[counts[:lo + 1].sum()], counts[lo + 1:hi], [counts[hi:].sum()]])


# (n, p): inversion (n * min(p, 1 - p) < 10), BTRS, BTRS for the failures (p > 1/2)
CASES = [(20, 0.3), (200, 0.35), (150, 0.8), (1000, 0.02)]
DRAWS = 40000


@pytest.mark.parametrize("n,p", CASES)
def test_binomial_distribution_against_numpy(device, n, p):
    pdt.manual_seed(1000 + n)
    ours = pdt.binomial(pdt.full((DRAWS,), float(n), dtype=pdt.float64, device=device),
                        pdt.full((DRAWS,), p, dtype=pdt.float64, device=device))
    ours = ours.cpu().numpy()
    assert np.all(ours == np.floor(ours)) and ours.min() >= 0 and ours.max() <= n
    theirs = np.random.default_rng(n).binomial(n, p, DRAWS)
    pmf = np.array([math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)])
    lo, hi = _cells(DRAWS * pmf)
    a = _pool(np.bincount(ours.astype(np.int64), minlength=n + 1).astype(float), lo, hi)
    b = _pool(np.bincount(theirs, minlength=n + 1).astype(float), lo, hi)
    # homogeneity of the two samples (equal sizes: each cell's expected is its mean)
    both = (a + b) / 2
    stat = (((a - both) ** 2 + (b - both) ** 2) / both).sum()
    assert stat < chi2_999(len(a) - 1), (stat, chi2_999(len(a) - 1))
    # goodness of fit to the mass function
    e = DRAWS * _pool(pmf, lo, hi)
    stat = ((a - e) ** 2 / e).sum()
    assert stat < chi2_999(len(a) - 1), (stat, chi2_999(len(a) - 1))


@pytest.mark.parametrize("dtype", [pdt.float32, pdt.float64])
def test_binomial_edges_and_broadcasting(device, dtype):
    count = pdt.tensor([[0.0], [5.0], [7.0]], dtype=dtype, device=device)
    prob = pdt.tensor([0.0, 1.0, 0.5], dtype=dtype, device=device)
    out = pdt.binomial(count, prob)
    assert out.shape == (3, 3) and out.dtype == dtype and out.device == count.device
    got = out.cpu().numpy()
    np.testing.assert_array_equal(got[:, :2], [[0, 0], [0, 5], [0, 7]])
    assert got[0, 2] == 0 and 0 <= got[1, 2] <= 5 and 0 <= got[2, 2] <= 7
    assert pdt.binomial(pdt.ones(0, dtype=dtype, device=device),
                        pdt.ones(0, dtype=dtype, device=device)).shape == (0,)
    c = pdt.full((4,), 3.0, dtype=dtype, device=device, requires_grad=True)
    assert not pdt.binomial(c, pdt.full((4,), 0.5, dtype=dtype, device=device)).requires_grad


def test_binomial_generator_and_seed(device):
    count = pdt.full((500,), 30.0, device=device)
    prob = pdt.full((500,), 0.4, device=device)
    g = pdt.Generator(device=device).manual_seed(7)
    a = pdt.binomial(count, prob, generator=g)
    g.manual_seed(7)
    pdt.manual_seed(8)  # the default generator is not the one drawn from
    b = pdt.binomial(count=count, prob=prob, generator=g)
    assert pdt.equal(a, b)
    pdt.manual_seed(7)
    c = pdt.binomial(count, prob)
    pdt.manual_seed(7)
    assert pdt.equal(c, pdt.binomial(count, prob))


def test_binomial_refuses_bad_input_and_changes_nothing(device):
    count = pdt.tensor([3.0, 4.0], device=device)
    with pytest.raises(RuntimeError, match=r"invalid count.*shape \(2,\)"):
        pdt.binomial(pdt.tensor([3.0, -1.0], device=device), pdt.tensor([0.5], device=device))
    with pytest.raises(RuntimeError, match="invalid prob"):
        pdt.binomial(count, pdt.tensor([0.5, 1.0001], device=device))
    with pytest.raises(RuntimeError, match="invalid count"):
        pdt.binomial(pdt.tensor([float("inf")], device=device), pdt.tensor([0.5], device=device))
    with pytest.raises(TypeError, match="same dtype"):
        pdt.binomial(count, pdt.tensor([0.5, 0.5], dtype=pdt.float64, device=device))
    with pytest.raises(TypeError, match="generator must be"):
        pdt.binomial(count, pdt.tensor([0.5, 0.5], device=device), generator=3)
    if device.type == "cuda":
        with pytest.raises(RuntimeError, match="same device"):
            pdt.binomial(count, pdt.tensor([0.5, 0.5]))
    assert count.cpu().tolist() == [3.0, 4.0]
