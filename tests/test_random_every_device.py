"""One seed, the same samples on every device (README's promise; the rand/randn/
manual_seed docstrings): the samplers that test_random.py and the Bernoulli/Poisson
tests do not yet draw on a device against the CPU.  Each sampler draws with one seed on
the device under test and on the CPU; the results compare

- exactly where the sample is a choice made from the uniforms (bernoulli, random_,
  geometric_, dropout's mask, rand_like): the uniforms are Philox's, bit for bit;
- within a few ulps where a transcendental function or a fused multiply-add of the
  device may round differently: float64 to rtol 1e-12, float32 to rtol 4e-6 (32 ulps
  of float32, for tan near its poles), each with an absolute floor of the same size
  for results near 0.

On the CPU (and logical CPU devices) every comparison is exact; on the emulated CUDA
device too (the host's libm); on a real GPU the tolerances hold.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn

SEED = 20261207
N = 4099  # not a multiple of the Philox block or of a warp
TOL = {pdt.float64: 1e-12, pdt.float32: 4e-6}


def draw(device, make):
    """make(device) under one seed, as a NumPy array."""
    pdt.manual_seed(SEED)
    out = make(device)
    return out.detach().cpu().numpy()


def same(device, make, exact, dtype=None):
    here, cpu = draw(device, make), draw(pdt.device("cpu"), make)
    assert here.shape == cpu.shape and here.dtype == cpu.dtype
    if exact or device.type == "cpu":
        np.testing.assert_array_equal(here, cpu)
    else:
        tol = TOL[dtype]
        np.testing.assert_allclose(here, cpu, rtol=tol, atol=tol)
    return cpu


@pytest.mark.parametrize("dtype", [pdt.float32, pdt.float64])
def test_bernoulli_forms(device, dtype):
    p = pdt.linspace(0.0, 1.0, N, dtype=dtype)
    got = same(device, lambda d: pdt.bernoulli(p.to(d)), exact=True)
    assert set(np.unique(got)) <= {0.0, 1.0} and got[0] == 0 and got[-1] == 1
    same(device, lambda d: pdt.zeros(N, dtype=dtype, device=d).bernoulli_(0.3), exact=True)
    same(device, lambda d: pdt.zeros(N, dtype=dtype, device=d).bernoulli_(p.to(d)),
         exact=True)
    same(device, lambda d: pdt.full((N,), 0.25, dtype=dtype, device=d).bernoulli(), exact=True)
    same(device, lambda d: pdt.bernoulli(pdt.zeros(N, dtype=pdt.int64, device=d), 0.7),
         exact=True)


@pytest.mark.parametrize("dtype", [pdt.float32, pdt.float64, pdt.int64, pdt.int32, pdt.uint8])
def test_random_(device, dtype):
    low = 0 if dtype == pdt.uint8 else -5
    got = same(device, lambda d: pdt.empty(N, dtype=dtype, device=d).random_(low, 7),
               exact=True)
    assert got.min() == low and got.max() == 6
    same(device, lambda d: pdt.empty(N, dtype=dtype, device=d).random_(100), exact=True)
    same(device, lambda d: pdt.empty(N, dtype=dtype, device=d).random_(), exact=True)


@pytest.mark.parametrize("dtype", [pdt.float32, pdt.float64])
def test_geometric_and_the_like_samplers(device, dtype):
    got = same(device, lambda d: pdt.empty(N, dtype=dtype, device=d).geometric_(0.2),
               exact=True)
    assert got.min() >= 1 and np.all(got == np.round(got))
    same(device, lambda d: pdt.rand_like(pdt.empty(N, 3, dtype=dtype, device=d)), exact=True)
    same(device, lambda d: pdt.empty(N, dtype=dtype, device=d).uniform_(-2.0, 3.0),
         exact=False, dtype=dtype)
    same(device, lambda d: pdt.randn_like(pdt.empty(N, dtype=dtype, device=d)),
         exact=False, dtype=dtype)
    same(device, lambda d: pdt.empty(N, dtype=dtype, device=d).normal_(1.5, 0.25),
         exact=False, dtype=dtype)
    got = same(device, lambda d: pdt.empty(N, dtype=dtype, device=d).exponential_(2.0),
               exact=False, dtype=dtype)
    assert got.min() >= 0
    got = same(device, lambda d: pdt.empty(N, dtype=dtype, device=d).log_normal_(0.5, 0.3),
               exact=False, dtype=dtype)
    assert got.min() > 0
    same(device, lambda d: pdt.empty(N, dtype=dtype, device=d).cauchy_(1.0, 0.5),
         exact=False, dtype=dtype)


@pytest.mark.parametrize("dtype", [pdt.float32, pdt.float64])
def test_init_and_dropout(device, dtype):
    got = same(device, lambda d: nn.init.trunc_normal_(pdt.empty(N, dtype=dtype, device=d),
                                                       std=0.5, a=-0.2, b=1.0),
               exact=False, dtype=dtype)
    assert got.min() >= -0.2 and got.max() <= 1.0
    same(device, lambda d: nn.init.kaiming_uniform_(pdt.empty(64, N // 64, dtype=dtype,
                                                              device=d)),
         exact=False, dtype=dtype)
    same(device, lambda d: nn.init.xavier_normal_(pdt.empty(64, N // 64, dtype=dtype,
                                                            device=d)),
         exact=False, dtype=dtype)
    x = pdt.linspace(1.0, 2.0, N, dtype=dtype)
    got = same(device, lambda d: nn.functional.dropout(x.to(d), 0.3, training=True),
               exact=True)
    kept = got != 0
    np.testing.assert_allclose(got[kept], (x.numpy() / 0.7)[kept], rtol=2e-7 if dtype ==
                               pdt.float32 else 1e-15)
    assert 0.6 < kept.mean() < 0.8


@pytest.mark.parametrize("dtype", [pdt.float32, pdt.float64])
def test_binomial(device, dtype):
    # counts and probabilities over both of the sampler's ways (inversion where
    # n * min(p, 1 - p) < 10, BTRS elsewhere) and p on both sides of 1/2: whole numbers,
    # equal on every device (a comparison of the rejection step rounds the same way)
    count = pdt.arange(N, dtype=dtype) % 97 * 3
    prob = pdt.linspace(0.0, 1.0, N, dtype=dtype)
    got = same(device, lambda d: pdt.binomial(count.to(d), prob.to(d)), exact=True)
    assert np.all(got == np.round(got)) and np.all((got >= 0) & (got <= count.numpy()))
