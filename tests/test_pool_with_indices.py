"""nn.functional's *_with_indices pools and the max pools at the top level
(pydevtensor/nn/_functional_with_indices.py, torch.max_pool2d, torch.adaptive_max_pool1d):
values and flat indices against a NumPy window loop in float64, the gradient (one at each
window's maximum, summed), the max_unpool round trip, and PyTorch's signatures."""
import inspect
import itertools

import numpy as np
import pytest

import pydevtensor as pdt
import pydevtensor.nn.functional as F


def _np_max_pool(x, k, s):
    """(values, flat indices) of NumPy windows of size k, step s, no padding: x (N, C, *sp)."""
    sp = x.shape[2:]
    out = [(n - kk) // ss + 1 for n, kk, ss in zip(sp, k, s)]
    vals = np.empty(x.shape[:2] + tuple(out))
    idx = np.empty(x.shape[:2] + tuple(out), dtype=np.int64)
    for nc in itertools.product(*map(range, x.shape[:2])):
        plane = x[nc]
        for o in itertools.product(*map(range, out)):
            sl = tuple(slice(oo * ss, oo * ss + kk) for oo, ss, kk in zip(o, s, k))
            win = plane[sl]
            j = np.unravel_index(np.argmax(win), win.shape)
            pos = tuple(oo * ss + jj for oo, ss, jj in zip(o, s, j))
            vals[nc + o] = plane[pos]
            idx[nc + o] = np.ravel_multi_index(pos, sp)
    return vals, idx


CASES = [  # (function, spatial shape, kernel, stride)
    (F.max_pool1d_with_indices, (9,), (3,), (2,)),
    (F.max_pool2d_with_indices, (5, 6), (2, 3), (2, 1)),
    (F.max_pool3d_with_indices, (4, 3, 5), (2, 2, 2), (1, 1, 2)),
]


@pytest.mark.parametrize("fn,shape,k,s", CASES, ids=lambda v: getattr(v, "__name__", None))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_pool_with_indices_against_numpy(device, fn, shape, k, s, dtype):
    rng = np.random.default_rng(len(shape))
    x = rng.permutation(2 * 3 * int(np.prod(shape))).reshape((2, 3) + shape).astype(dtype)
    xt = pdt.tensor(x, device=device, requires_grad=True)
    vals, idx = fn(xt, k, s)
    ev, ei = _np_max_pool(x.astype(np.float64), k, s)
    np.testing.assert_array_equal(vals.detach().cpu().numpy(), ev)
    assert idx.dtype == pdt.int64 and vals.dtype == getattr(pdt, dtype)
    np.testing.assert_array_equal(idx.cpu().numpy(), ei)
    # the gradient: each window's maximum gets one, summed over windows that share it
    vals.sum().backward()
    expect = np.zeros(x.shape).reshape(2, 3, -1)
    for nc in itertools.product(range(2), range(3)):
        np.add.at(expect[nc], ei[nc].ravel(), 1.0)
    np.testing.assert_array_equal(xt.grad.cpu().numpy(), expect.reshape(x.shape))
    # return_indices is accepted and ignored, as PyTorch
    v2, i2 = fn(xt.detach(), k, s, return_indices=False)
    np.testing.assert_array_equal(i2.cpu().numpy(), ei)


def test_max_unpool_round_trip(device):
    x = pdt.tensor(np.arange(16.0).reshape(1, 1, 4, 4), device=device)
    vals, idx = F.max_pool2d_with_indices(x, 2)
    back = F.max_unpool2d(vals, idx, 2).cpu().numpy()
    expect = np.zeros((1, 1, 4, 4))
    expect[0, 0, 1::2, 1::2] = [[5., 7.], [13., 15.]]
    np.testing.assert_array_equal(back, expect)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_adaptive_max_pool_with_indices(device, nd):
    # whole-plane adaptive pool to size 1: the plane's max and its flat argmax
    rng = np.random.default_rng(nd)
    x = rng.standard_normal((2, 3) + (4,) * nd)
    fn = getattr(F, f"adaptive_max_pool{nd}d_with_indices")
    xt = pdt.tensor(x, device=device, requires_grad=True)
    vals, idx = fn(xt, 1)
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(vals.detach().cpu().numpy().reshape(2, 3), flat.max(-1))
    np.testing.assert_array_equal(idx.cpu().numpy().reshape(2, 3), flat.argmax(-1))
    vals.sum().backward()
    g = np.zeros_like(flat)
    np.put_along_axis(g, flat.argmax(-1)[..., None], 1.0, -1)
    np.testing.assert_array_equal(xt.grad.cpu().numpy(), g.reshape(x.shape))


@pytest.mark.parametrize("nd", [2, 3])
def test_fractional_max_pool_with_indices_points_at_its_values(device, nd):
    rng = np.random.default_rng(nd)
    x = rng.standard_normal((1, 2) + (6,) * nd)
    fn = getattr(F, f"fractional_max_pool{nd}d_with_indices")
    vals, idx = fn(pdt.tensor(x, device=device), 2, output_size=3)
    assert vals.shape == (1, 2) + (3,) * nd
    got = np.take_along_axis(x.reshape(1, 2, -1), idx.cpu().numpy().reshape(1, 2, -1), -1)
    np.testing.assert_array_equal(got, vals.cpu().numpy().reshape(1, 2, -1))


def test_the_top_level_max_pools(device):
    x = pdt.tensor(np.array([[[1., 3., 2., 0., 5., 4.]]]), device=device)
    for nd in (1, 2, 3):
        assert getattr(pdt, f"max_pool{nd}d") is getattr(F, f"max_pool{nd}d")
    np.testing.assert_array_equal(pdt.max_pool1d(x, 2).cpu().numpy(), [[[3., 2., 5.]]])
    vals, idx = pdt.max_pool1d_with_indices(x, 2)
    np.testing.assert_array_equal(idx.cpu().numpy(), [[[1, 2, 4]]])
    # torch.adaptive_max_pool1d gives (values, indices), unlike nn.functional's
    out = pdt.adaptive_max_pool1d(x, 2)
    assert isinstance(out, tuple) and len(out) == 2
    np.testing.assert_array_equal(out[0].cpu().numpy(), [[[3., 5.]]])
    np.testing.assert_array_equal(out[1].cpu().numpy(), [[[1, 4]]])
    assert {"max_pool2d", "adaptive_max_pool1d"} <= set(dir(pdt)) & set(pdt.__all__)


SIGNATURES = {  # torch 2.15's parameter names, in order
    "max_pool1d_with_indices": "input kernel_size stride padding dilation ceil_mode "
                               "return_indices",
    "max_pool2d_with_indices": "input kernel_size stride padding dilation ceil_mode "
                               "return_indices",
    "max_pool3d_with_indices": "input kernel_size stride padding dilation ceil_mode "
                               "return_indices",
    "adaptive_max_pool1d_with_indices": "input output_size return_indices",
    "adaptive_max_pool2d_with_indices": "input output_size return_indices",
    "adaptive_max_pool3d_with_indices": "input output_size return_indices",
    "fractional_max_pool2d_with_indices": "input kernel_size output_size output_ratio "
                                          "return_indices _random_samples",
    "fractional_max_pool3d_with_indices": "input kernel_size output_size output_ratio "
                                          "return_indices _random_samples",
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signatures_are_pytorchs(name):
    fn = getattr(F, name)
    assert list(inspect.signature(fn).parameters) == SIGNATURES[name].split()
    assert fn.__name__ == name and "Examples" in fn.__doc__
