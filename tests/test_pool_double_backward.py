"""Second derivatives through pools and reflect/replicate pads (Note [linear inputs] in
pydevtensor/autograd/node.py).

A pool's (or such a pad's) gradient for its input, g_x = J^T g, is linear in the
incoming gradient g, and J does not depend on the input (for max pools, almost everywhere). So with
create_graph=True:
- d(sum(g_x)) / dx is zeros, and g_x requires grad whenever x does (as PyTorch's pools);
- d(sum(g_x * w)) / dg is J w: the pool applied to w, for an average pool, or w read at
  the maxima's indices, for a max pool. This is computed in NumPy float64 from the
  indices the pool returns and compared to 1e-12.
"""
import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.nn import functional as F

# name, number of dimensions of the input (with the batch), pool
POOLS = [
    ("max_pool1d", 3, lambda x: F.max_pool1d(x, 2)),
    ("max_pool2d", 4, lambda x: F.max_pool2d(x, 3, stride=2, padding=1)),
    ("max_pool3d", 5, lambda x: F.max_pool3d(x, 2)),
    ("avg_pool1d", 3, lambda x: F.avg_pool1d(x, 3, stride=2, padding=1)),
    ("avg_pool2d", 4, lambda x: F.avg_pool2d(x, 2, ceil_mode=True)),
    ("avg_pool3d", 5, lambda x: F.avg_pool3d(x, 2)),
    ("adaptive_max_pool1d", 3, lambda x: F.adaptive_max_pool1d(x, 4)),
    ("adaptive_max_pool2d", 4, lambda x: F.adaptive_max_pool2d(x, (4, 3))),
    ("adaptive_max_pool3d", 5, lambda x: F.adaptive_max_pool3d(x, 2)),
    ("adaptive_avg_pool1d", 3, lambda x: F.adaptive_avg_pool1d(x, 4)),
    ("adaptive_avg_pool2d", 4, lambda x: F.adaptive_avg_pool2d(x, (4, 1))),
    ("adaptive_avg_pool2d global", 4, lambda x: F.adaptive_avg_pool2d(x, 1)),
    ("adaptive_avg_pool3d", 5, lambda x: F.adaptive_avg_pool3d(x, 2)),
    ("fractional_max_pool2d", 4, lambda x: F.fractional_max_pool2d(
        x, 2, output_size=3, _random_samples=pdt.full((2, 3, 2), 0.5, dtype=x.dtype,
                                                      device=x.device))),
    ("reflect pad", 4, lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect")),
    ("replicate pad", 5, lambda x: F.pad(x, (2, 0, 1, 1, 0, 3), mode="replicate")),
]
SHAPES = {3: (2, 3, 7), 4: (2, 3, 7, 6), 5: (2, 3, 4, 6, 5)}


def _input(nd, device):
    a = np.random.default_rng(nd).standard_normal(SHAPES[nd])
    return pdt.from_numpy(a).to(device).requires_grad_()


@pytest.mark.parametrize("name,nd,pool", POOLS, ids=[p[0] for p in POOLS])
def test_second_derivative_for_the_input_is_zeros(name, nd, pool, device):
    x = _input(nd, device)
    y = pool(x)
    c = pdt.from_numpy(np.random.default_rng(1).standard_normal(tuple(y.shape))).to(device)
    (g,) = pdt.autograd.grad((y * c).sum(), x, create_graph=True)
    assert g.requires_grad, f"{name}: the gradient must require grad under create_graph"
    (gg,) = pdt.autograd.grad((g * g.detach()).sum(), x)
    assert gg.shape == x.shape and gg.device == x.device
    np.testing.assert_array_equal(gg.cpu().numpy(), np.zeros(SHAPES[nd]))


@pytest.mark.parametrize("name,nd,pool", POOLS, ids=[p[0] for p in POOLS])
def test_first_derivative_keeps_no_graph_without_create_graph(name, nd, pool, device):
    x = _input(nd, device)
    (g,) = pdt.autograd.grad(pool(x).sum(), x)
    assert not g.requires_grad and g.grad_fn is None, name


def _adjoint_reference(name, x, w, pool):
    """J w in float64: the pool of w (an average pool is linear in its input), or w read
    at the maxima of x (a max pool's J picks the taps chosen on x)."""
    if "max" not in name:
        return pool(w).cpu().numpy()
    if name.startswith("fractional"):
        y, idx = F.fractional_max_pool2d(x, 2, output_size=3, return_indices=True,
                                         _random_samples=pdt.full((2, 3, 2), 0.5,
                                                                  dtype=x.dtype,
                                                                  device=x.device))
    else:
        fn = getattr(F, name)
        size = {"max_pool1d": (2,), "max_pool2d": (3,), "max_pool3d": (2,),
                "adaptive_max_pool1d": (4,), "adaptive_max_pool2d": ((4, 3),),
                "adaptive_max_pool3d": (2,)}[name]
        kw = {"stride": 2, "padding": 1} if name == "max_pool2d" else {}
        y, idx = fn(x, *size, return_indices=True, **kw)
    n, c = x.shape[:2]
    flat_w = w.detach().cpu().numpy().reshape(n, c, -1)
    idx = idx.cpu().numpy().reshape(n, c, -1)
    return np.take_along_axis(flat_w, idx, axis=2).reshape(tuple(y.shape))


@pytest.mark.parametrize("name,nd,pool", POOLS, ids=[p[0] for p in POOLS])
def test_derivative_for_the_incoming_gradient_is_the_pool(name, nd, pool, device):
    x = _input(nd, device)
    y = pool(x)
    v = pdt.ones(tuple(y.shape), dtype=pdt.float64, device=device, requires_grad=True)
    (g,) = pdt.autograd.grad(y, x, grad_outputs=v, create_graph=True)
    w = pdt.from_numpy(np.random.default_rng(2).standard_normal(SHAPES[nd])).to(device)
    (jw,) = pdt.autograd.grad((g * w).sum(), v)
    want = _adjoint_reference(name, x.detach(), w, pool)
    np.testing.assert_allclose(jw.cpu().numpy(), want, rtol=1e-12, atol=1e-12)


def test_a_relu_before_the_pool_still_gives_zeros(device):
    x = _input(4, device)
    (g,) = pdt.autograd.grad(F.max_pool2d(F.relu(x), 2).sum(), x, create_graph=True)
    (gg,) = pdt.autograd.grad(g.sum(), x)
    np.testing.assert_array_equal(gg.cpu().numpy(), np.zeros(SHAPES[4]))


def test_the_pool_keeps_no_reference_to_its_input(device):
    # the link is an edge, not a saved tensor: an intermediate input is freed with it
    import weakref
    x = _input(4, device)
    h = x * 2
    ref = weakref.ref(h)
    y = F.avg_pool2d(h, 2)
    del h
    assert ref() is None
    (g,) = pdt.autograd.grad(y.sum(), x)
    want = np.zeros(SHAPES[4])
    want[:, :, :6, :6] = 2 * 0.25  # the 2x2 windows cover rows and columns 0-5
    np.testing.assert_array_equal(g.cpu().numpy(), want)
