"""F.affine_grid and F.grid_sample against a NumPy reference of PyTorch's formulas
(written point by point here: unnormalise, pad, then the bilinear / trilinear,
nearest or bicubic taps), identity transforms, gradients by central differences
(test_gradcheck) and the borders' gradients, shapes, dtypes and bad input."""
import itertools
import math

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor.nn import functional as F
from test_gradcheck import gradcheck

A = -0.75


def _unnorm(g, n, ac):
    return (g + 1) / 2 * (n - 1) if ac else ((g + 1) * n - 1) / 2


def _reflect(x, lo2, hi2):
    """PyTorch's scalar reflect_coordinates about [lo2 / 2, hi2 / 2]."""
    if lo2 == hi2:
        return 0.0
    lo, span = lo2 / 2, (hi2 - lo2) / 2
    x = abs(x - lo)
    extra, flips = math.fmod(x, span), math.floor(x / span)
    return extra + lo if flips % 2 == 0 else span - extra + lo


def _pad(x, n, pad, ac):
    if pad == "reflection":
        x = _reflect(x, 0, 2 * (n - 1)) if ac else _reflect(x, -1, 2 * n - 1)
    if pad != "zeros":
        x = min(max(x, 0.0), n - 1.0)
    return x


def _value(img, cell):
    """img (C, *S) at integer cell (axis order), 0 outside."""
    if all(0 <= c < n for c, n in zip(cell, img.shape[1:])):
        return img[(slice(None),) + tuple(int(c) for c in cell)]
    return np.zeros(img.shape[0])


def _cubic(t):
    def near(z):
        return ((A + 2) * z - (A + 3)) * z * z + 1

    def far(z):
        return ((A * z - 5 * A) * z + 8 * A) * z - 4 * A
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _sample_point(img, pos, mode, pad, ac):
    """One output vector (C,): pos the grid entry (x, y[, z])."""
    sizes = img.shape[1:]
    raw = [_unnorm(pos[len(sizes) - 1 - a], sizes[a], ac) for a in range(len(sizes))]
    if mode == "bicubic":
        lo = [math.floor(x) for x in raw]
        wts = [_cubic(x - f) for x, f in zip(raw, lo)]
        out = 0.0
        for ks in itertools.product(range(4), repeat=len(sizes)):  # 4 x 4 (x 4) cells
            cell = [_pad(f - 1 + k, n, pad, ac) for f, k, n in zip(lo, ks, sizes)]
            out = out + np.prod([w[k] for w, k in zip(wts, ks)]) * _value(img, cell)
        return out
    xs = [_pad(x, n, pad, ac) for x, n in zip(raw, sizes)]
    if mode == "nearest":
        return _value(img, [np.rint(x) for x in xs])  # half to even
    lo = [math.floor(x) for x in xs]
    out = 0.0
    for offs in itertools.product((0, 1), repeat=len(xs)):
        w = np.prod([(x - f) if o else 1 - (x - f) for x, f, o in zip(xs, lo, offs)])
        out = out + w * _value(img, [f + o for f, o in zip(lo, offs)])
    return out


def ref_grid_sample(x, grid, mode, pad, ac):
    n, c = x.shape[:2]
    out = np.zeros((n, c) + grid.shape[1:-1])
    for b in range(n):
        for idx in np.ndindex(*grid.shape[1:-1]):
            out[(b, slice(None)) + idx] = _sample_point(x[b], grid[(b,) + idx], mode, pad, ac)
    return out


def ref_affine_grid(theta, size, ac):
    def steps(k):
        r = np.linspace(-1, 1, k) if k > 1 else np.zeros(k)
        return r if ac or k <= 1 else r * (k - 1) / k
    spatial = size[2:]
    mesh = np.meshgrid(*[steps(k) for k in spatial], indexing="ij")
    base = np.stack([*reversed(mesh), np.ones(spatial)], -1)
    return np.einsum("...k,njk->n...j", base, theta)


def _grid(shape, rng):
    """Random positions in and around [-1, 1], with exact borders, centre and ties."""
    g = rng.uniform(-1.7, 1.7, shape)
    special = [-1.0, 1.0, 0.0, 0.5, -0.5, 3.0, -3.0, 0.25]
    g.reshape(-1)[:len(special)] = special
    return g


RNG = np.random.default_rng(7)
CASES = [(2, "bilinear"), (2, "nearest"), (2, "bicubic"), (3, "bilinear"), (3, "nearest"),
         (3, "bicubic")]  # 5-d bicubic: PyTorch 2.15's tricubic


@pytest.mark.parametrize("ac", [True, False])
@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("dim, mode", CASES)
def test_grid_sample_matches_the_formulas(device, dim, mode, pad, ac):
    x = RNG.standard_normal((2, 3, 4, 5) if dim == 2 else (2, 2, 3, 4, 5))
    grid = _grid((2, 3, 4, 2) if dim == 2 else (2, 2, 3, 2, 3), RNG)
    got = F.grid_sample(pdt.tensor(x, device=device), pdt.tensor(grid, device=device),
                        mode=mode, padding_mode=pad, align_corners=ac)
    assert got.shape == x.shape[:2] + grid.shape[1:-1] and got.dtype == pdt.float64
    np.testing.assert_allclose(got.cpu().numpy(), ref_grid_sample(x, grid, mode, pad, ac),
                               rtol=1e-12, atol=1e-12)


def test_nearest_rounds_half_to_even_and_zeros_outside(device):
    x = pdt.arange(4.0, dtype=pdt.float64, device=device).reshape(1, 1, 1, 4)
    # align_corners=False, W = 4: x = 2 g + 1.5, so g = -0.5, 0, 0.5 hit 0.5, 1.5, 2.5
    g = pdt.tensor([[[[-0.5, 0.0], [0.0, 0.0], [0.5, 0.0], [1.2, 0.0], [-1.3, 0.0]]]],
                   dtype=pdt.float64, device=device)
    got = F.grid_sample(x, g, mode="nearest", align_corners=False)
    assert got.reshape(-1).tolist() == [0.0, 2.0, 2.0, 0.0, 0.0]
    # 1.2 -> 3.9: 0.1 * x[3] + 0.9 * 0 (cell 4 is outside), and nearest reads cell 4
    got = F.grid_sample(x, g, mode="bilinear", align_corners=False)
    np.testing.assert_allclose(got.reshape(-1).cpu().numpy(), [0.5, 1.5, 2.5, 0.3, 0.0],
                               rtol=1e-12)


@pytest.mark.parametrize("ac", [True, False])
@pytest.mark.parametrize("dim, mode", CASES)
def test_identity_theta_gives_the_input_back(device, dim, mode, ac):
    shape = (2, 3, 4, 5) if dim == 2 else (1, 2, 3, 4, 5)
    x = RNG.standard_normal(shape)
    theta = np.tile(np.eye(dim, dim + 1), (shape[0], 1, 1))
    grid = F.affine_grid(pdt.tensor(theta, device=device), shape, align_corners=ac)
    assert grid.shape == (shape[0],) + shape[2:] + (dim,)
    got = F.grid_sample(pdt.tensor(x, device=device), grid, mode=mode, align_corners=ac)
    np.testing.assert_allclose(got.cpu().numpy(), x, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("ac", [True, False])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 1, 3), (2, 1, 3, 4, 2), (2, 2, 2, 1, 3)])
def test_affine_grid_matches_the_formula(device, size, ac):
    dim = len(size) - 2
    theta = RNG.standard_normal((2, dim, dim + 1))
    got = F.affine_grid(pdt.tensor(theta, device=device), size, align_corners=ac)
    np.testing.assert_allclose(got.cpu().numpy(), ref_affine_grid(theta, size, ac),
                               rtol=1e-12, atol=1e-12)


def test_affine_grid_gradient_matches_central_differences(device):
    theta = RNG.standard_normal((2, 2, 3))
    gradcheck(lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=False), [theta], device)


@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("dim, mode", [(2, "bilinear"), (2, "bicubic"), (3, "bilinear"),
                                       (3, "bicubic")])
def test_grid_sample_gradients_match_central_differences(device, dim, mode, pad):
    x = RNG.standard_normal((1, 2, 3, 4) if dim == 2 else (1, 1, 2, 3, 3))
    # away from cell positions and borders, where the formulas have kinks
    grid = RNG.uniform(-1.4, 1.4, (1, 2, 3, 2) if dim == 2 else (1, 2, 2, 2, 3))
    for ac in (True, False):
        gradcheck(lambda a, g: F.grid_sample(a, g, mode=mode, padding_mode=pad,
                                             align_corners=ac), [x, grid], device)


def test_nearest_gradients(device):
    x = pdt.tensor(RNG.standard_normal((1, 1, 2, 3)), device=device, requires_grad=True)
    g = pdt.tensor([[[[0.9, -0.9], [0.95, -0.8], [-2.0, 0.0]]]], dtype=pdt.float64,
                   device=device, requires_grad=True)
    F.grid_sample(x, g, mode="nearest", align_corners=True).sum().backward()
    assert g.grad.abs().sum().item() == 0.0  # PyTorch's: zero w.r.t. the grid
    assert x.grad.cpu().numpy().tolist() == [[[[0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]]]


@pytest.mark.parametrize("pad", ["border", "reflection"])
def test_grid_gradient_is_zero_on_a_clamped_border(device, pad):
    """PyTorch's kernels count a coordinate on the border as clamped: zero gradient."""
    x = pdt.tensor([[[[1.0, 2.0, 4.0]]]], dtype=pdt.float64, device=device)
    g = pdt.tensor([[[[1.0, 0.0], [-1.0, 0.0], [0.5, 0.0], [1.5, 0.0]]]], dtype=pdt.float64,
                   device=device, requires_grad=True)
    out = F.grid_sample(x, g, padding_mode=pad, align_corners=True)
    out.sum().backward()
    gx = g.grad[..., 0].reshape(-1).tolist()
    # inside: d out / d g = (4 - 2) * (W - 1) / 2; outside: 0 (border), mirrored (reflection)
    assert gx[:3] == [0.0, 0.0, 2.0]
    assert gx[3] == (0.0 if pad == "border" else -2.0)


@pytest.mark.parametrize("dtype, tol", [(pdt.float32, 1e-5), (pdt.float16, 2e-3),
                                        (pdt.bfloat16, 1.6e-2)])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_low_precision(device, dtype, tol, mode):
    """float32 computed as is; float16 and bfloat16 in float32, rounded once."""
    x = pdt.tensor(RNG.standard_normal((1, 2, 4, 5)), device=device).to(dtype)
    g = pdt.tensor(RNG.uniform(-1.2, 1.2, (1, 3, 3, 2)), device=device).to(dtype)
    got = F.grid_sample(x, g, mode=mode, padding_mode="border", align_corners=False)
    assert got.dtype == dtype
    want = ref_grid_sample(x.double().cpu().numpy(), g.double().cpu().numpy(), mode,
                           "border", False)
    np.testing.assert_allclose(got.double().cpu().numpy(), want, rtol=tol, atol=4 * tol)


def test_default_align_corners_warns_and_is_false():
    x, g = pdt.ones(1, 1, 2, 2), pdt.zeros(1, 1, 1, 2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(x, g)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        got = F.affine_grid(pdt.eye(2, 3).unsqueeze(0), (1, 1, 1, 2))
    assert got.reshape(-1).tolist() == [-0.5, 0.0, 0.5, 0.0]


@pytest.mark.parametrize("call, exc, match", [
    (lambda x, g: F.grid_sample(x, g[..., :1], align_corners=False), RuntimeError,
     r"expected grid to have size 2 in last dimension"),
    (lambda x, g: F.grid_sample(x, g[:1], align_corners=False), RuntimeError,
     r"expected grid and input to have same batch size, but got input with sizes "
     r"\[2, 1, 3, 3\] and grid with sizes \[1, 2, 2, 2\]"),
    (lambda x, g: F.grid_sample(x, g, mode="area"), ValueError,
     r"expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'area'"),
    (lambda x, g: F.grid_sample(x, g, padding_mode="circular"), ValueError,
     r"expected padding_mode to be 'zeros', 'border', or 'reflection'"),
    (lambda x, g: F.grid_sample(x, g.unsqueeze(1), align_corners=False), RuntimeError,
     r"expected 4D or 5D input and grid with same number of dimensions"),
    (lambda x, g: F.grid_sample(x[:, :, :0], g, align_corners=False), RuntimeError,
     r"expected input to have non-empty spatial dimensions"),
    (lambda x, g: F.grid_sample(x.double(), g, align_corners=False), RuntimeError,
     r"same dtype, got pydevtensor.float64 and pydevtensor.float32"),
    (lambda x, g: F.grid_sample(x.tolist(), g), TypeError, r"input must be a Tensor, got list"),
    (lambda x, g: F.affine_grid(pdt.zeros(2, 3, 4), (2, 1, 3, 3), align_corners=False),
     ValueError, r"Expected a batch of 2D affine matrices of shape Nx2x3"),
    (lambda x, g: F.affine_grid(pdt.zeros(2, 2, 3), (2, 1, 0, 3), align_corners=False),
     ValueError, r"Expected non-zero, positive output size. Got \(2, 1, 0, 3\)"),
    (lambda x, g: F.affine_grid(pdt.zeros(2, 2, 3), (2, 1, 3), align_corners=False),
     NotImplementedError, r"affine_grid only supports 4D and 5D sizes"),
    (lambda x, g: F.affine_grid(pdt.zeros(2, 2, 3, dtype=pdt.int32), (2, 1, 3, 3),
                                align_corners=False),
     ValueError, r"Expected theta to have floating point type, but got pydevtensor.int32"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call(pdt.zeros(2, 1, 3, 3), pdt.zeros(2, 2, 2, 2))


@pytest.mark.parametrize("pad, want", [("zeros", [math.nan] * 3), ("border", [4.0, 7.0, 4.0]),
                                       ("reflection", [4.0, 4.0, 4.0])])
def test_nan_and_inf_positions(device, pad, want):
    """As PyTorch's kernels: a NaN position clamps to cell 0, +-inf to the border cell
    (reflection: a NaN distance, so cell 0); with 'zeros' the weights are NaN."""
    x = pdt.arange(12.0, dtype=pdt.float64, device=device).reshape(1, 1, 3, 4)
    g = pdt.tensor([[[[math.nan, 0.0], [math.inf, 0.0], [-math.inf, 0.0]]]],
                   dtype=pdt.float64, device=device)
    got = F.grid_sample(x, g, padding_mode=pad, align_corners=False)
    np.testing.assert_array_equal(got.reshape(-1).cpu().numpy(), want)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_single_cell_input_has_a_zero_grid_gradient(device, mode):
    x = pdt.tensor([[[[2.0]]]], dtype=pdt.float64, device=device)
    g = pdt.tensor(RNG.uniform(-0.9, 0.9, (1, 2, 2, 2)), device=device, requires_grad=True)
    out = F.grid_sample(x, g, mode=mode, padding_mode="reflection", align_corners=True)
    out.sum().backward()
    assert g.grad.abs().sum().item() == 0.0
    np.testing.assert_allclose(out.detach().cpu().numpy(), 2.0, rtol=1e-12)


@pytest.mark.parametrize("pad, want", [("zeros", [0.0, 0.0, 0.0]), ("border", [13.0, 13.0, 10.0]),
                                       ("reflection", [13.0, 13.0, 13.0])])
def test_nan_and_inf_positions_of_a_volume(device, pad, want):
    """PyTorch's 3-d kernel: a NaN position (and a reflected infinity: a NaN distance)
    clamps to the last cell, std::min(n - 1, std::max(x, 0)); under 'zeros' its taps
    are outside and skipped, so 0 (the 2-d kernel gives NaN).  y = 0 is row 1, z = 0
    halfway between the two planes: out = (v[0, 1, x] + v[1, 1, x]) / 2."""
    x = pdt.arange(24.0, dtype=pdt.float64, device=device).reshape(1, 1, 2, 3, 4)
    g = pdt.tensor([[[[[math.nan, 0.0, 0.0], [math.inf, 0.0, 0.0], [-math.inf, 0.0, 0.0]]]]],
                   dtype=pdt.float64, device=device)
    got = F.grid_sample(x, g, padding_mode=pad, align_corners=True)
    np.testing.assert_array_equal(got.reshape(-1).cpu().numpy(), want)


@pytest.mark.parametrize("dim", [2, 3])
def test_reflection_of_far_positions_is_exact(device, dim):
    """A far position reflects by the exact remainder (std::fmod, as PyTorch's), not a
    rounded quotient: cell min(e, 2 (n - 1) - e) with e = fmod(x, 2 (n - 1))."""
    n = 4  # a period of 6: no power of 2
    x = RNG.standard_normal((1, 1) + (n,) * dim)
    far = np.array([1e30, -3e28, 12345678901.25, 7e15 + 0.5])
    grid = np.zeros((1, len(far)) + (1,) * (dim - 1) + (dim,))
    grid[..., 0] = far.reshape((len(far),) + (1,) * (dim - 1))
    got = F.grid_sample(pdt.tensor(x, device=device), pdt.tensor(grid, device=device),
                        mode="nearest", padding_mode="reflection", align_corners=True)
    pos = (far + 1) / 2 * (n - 1)  # align_corners: exact for these
    e = np.fmod(np.abs(pos), 2 * (n - 1))
    cells = np.rint(np.minimum(e, 2 * (n - 1) - e)).astype(int)
    centre = (slice(None),) * 2 + (n // 2,) * (dim - 1)
    want = x[centre][..., cells]
    np.testing.assert_array_equal(got.reshape(-1).cpu().numpy(), want.reshape(-1))


@pytest.mark.parametrize("shape, grid_shape", [((0, 2, 3, 4), (0, 2, 5, 2)),
                                                ((2, 0, 3, 4), (2, 2, 5, 2)),
                                                ((0, 1, 2, 3, 4), (0, 1, 2, 3, 3))])
def test_empty_batch_or_channels(device, shape, grid_shape):
    """An empty batch or no channels give an empty result of the right shape (a
    reshape by -1 of the empty input failed)."""
    x = pdt.zeros(shape, dtype=pdt.float64, device=device, requires_grad=True)
    g = pdt.zeros(grid_shape, dtype=pdt.float64, device=device, requires_grad=True)
    for mode in ("bilinear", "nearest", "bicubic"):
        got = F.grid_sample(x, g, mode=mode, align_corners=False)
        assert tuple(got.shape) == shape[:2] + grid_shape[1:-1]
        got.sum().backward()
        assert tuple(x.grad.shape) == shape and tuple(g.grad.shape) == grid_shape


def test_affine_grid_batch_mismatch_is_a_runtime_error():
    """PyTorch's batched product raises RuntimeError; ours is both that and ValueError."""
    for exc in (RuntimeError, ValueError):
        with pytest.raises(exc, match=r"theta holds 1 matrices but size \(2, 1, 2, 2\)"):
            F.affine_grid(pdt.zeros(1, 2, 3), (2, 1, 2, 2), align_corners=False)
