"""nn.init.trunc_normal_, eye_ and orthogonal_ on every device.

trunc_normal_: every value in [a, b]; the values are the inverse-CDF transform of the
package generator's float64 uniforms (checked against the standard library's
NormalDist.inv_cdf to 1e-8 relative: the device-side inverse CDF is Acklam's
approximation, 1.2e-9); sample mean and standard deviation against the truncated
normal's closed forms, within 6 standard errors (n = 200000).  orthogonal_: the Q of
NumPy's QR (R's diagonal made positive) of the same normal draws, to 1e-10, and
Q^T Q = gain^2 I.  (nn.init.dirac_ is not provided: the package has no convolutions.)"""
import math
import statistics

import numpy as np
import pytest

import pydevtensor as pdt
from pydevtensor import nn

N = 200_000


def _cdf(x):
    """The standard normal CDF, accurate in the far tails too (NormalDist.cdf goes
    through erf, which loses them)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _truncated_moments(mu, sigma, a, b):
    nd = statistics.NormalDist()
    al, be = (a - mu) / sigma, (b - mu) / sigma
    z = _cdf(be) - _cdf(al)
    pa, pb = nd.pdf(al), nd.pdf(be)
    mean = mu + sigma * (pa - pb) / z
    var = sigma ** 2 * (1 + (al * pa - be * pb) / z - ((pa - pb) / z) ** 2)
    return mean, math.sqrt(var)


CASES = [(0.0, 1.0, -2.0, 2.0), (0.5, 0.2, 0.0, 1.0), (1.0, 2.0, -0.5, 4.0),
         (0.0, 1.0, 1.5, 3.0), (0.0, 1.0, -9.0, -8.0), (-3.0, 0.5, -3.1, 100.0)]


@pytest.mark.parametrize("mu,sigma,a,b", CASES)
def test_trunc_normal_moments_and_bounds(device, mu, sigma, a, b):
    pdt.manual_seed(3)
    w = nn.init.trunc_normal_(pdt.empty(N, dtype=pdt.float64, device=device), mu, sigma, a, b)
    x = w.cpu().numpy()
    assert x.min() >= a and x.max() <= b
    mean, sd = _truncated_moments(mu, sigma, a, b)
    assert abs(x.mean() - mean) < 6 * sd / math.sqrt(N), (x.mean(), mean)
    # the standard error of a standard deviation is at most about sd * sqrt(2 / N)
    # for these light-tailed laws; 6 standard errors: a false failure rate of about 2e-9
    # per bound (the normal approximation of the sample mean and deviation, n = 200000)
    assert abs(x.std() - sd) < 6 * sd * math.sqrt(2.0 / N), (x.std(), sd)


@pytest.mark.parametrize("mu,sigma,a,b", CASES)
def test_trunc_normal_is_the_inverse_cdf_of_the_generators_uniforms(device, mu, sigma, a, b):
    nd = statistics.NormalDist()
    al, be = (a - mu) / sigma, (b - mu) / sigma
    flip = al > 0
    lo, hi = (-be, -al) if flip else (al, be)
    pdt.manual_seed(11)
    u = pdt.empty(500, dtype=pdt.float64).uniform_(_cdf(lo), _cdf(hi)).numpy()
    want = np.clip(np.array([mu + sigma * (-1 if flip else 1) * nd.inv_cdf(v) for v in u]), a, b)
    pdt.manual_seed(11)
    got = nn.init.trunc_normal_(pdt.empty(500, dtype=pdt.float64, device=device), mu, sigma,
                                a, b).cpu().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-8 * sigma)
    pdt.manual_seed(11)  # the same values on every device: the CPU's
    cpu = nn.init.trunc_normal_(pdt.empty(500, dtype=pdt.float64), mu, sigma, a, b).numpy()
    np.testing.assert_allclose(got, cpu, rtol=1e-12, atol=1e-14)


def test_trunc_normal_float32_parameter_and_errors(device):
    p = nn.Parameter(pdt.empty(3000, device=device))
    out = nn.init.trunc_normal_(p, std=0.02, a=-0.04, b=0.04)
    assert out is p and p.requires_grad and p.grad_fn is None
    assert (p.detach() >= -0.04).all().item() and (p.detach() <= 0.04).all().item()
    with pytest.raises(ValueError, match=r"a must not be above b, got a=2.0 and b=1.0"):
        nn.init.trunc_normal_(p, a=2.0, b=1.0)
    with pytest.raises(ValueError, match=r"std must be > 0, got 0.0"):
        nn.init.trunc_normal_(p, std=0.0)
    with pytest.raises(TypeError, match=r"expected a floating-point tensor, got "
                                        r"pydevtensor.int64"):
        nn.init.trunc_normal_(pdt.zeros(3, dtype=pdt.int64, device=device))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mu,sigma,a,b", [(0.0, 1e30, -1.0, 1.0), (0.0, math.inf, 2.0, 3.0),
                                          (0.0, 1e7, -1.0, 1.0), (0.0, 1.0, 1e6, 1e6 + 1e-6),
                                          (0.0, 1.0, -1e6 - 2e-6, -1e6)])
def test_trunc_normal_on_a_sliver_of_the_normal(device, dtype, mu, sigma, a, b):
    """An interval far narrower than std (std = 1e30 on [-1, 1] filled zeros, std = inf
    NaN): there x = a + (b - a) t with t of density exp(-k t) on [0, 1], k = alpha * w
    (alpha = (a - mu) / sigma, w = (b - a) / sigma; exact to a factor exp(w^2 / 2)): so
    t's Kolmogorov-Smirnov statistic against (1 - exp(-k t)) / (1 - exp(-k)) (t itself
    for k = 0) must be below 1.95 / sqrt(n), a 0.1% false-failure level, n = 20000 (the
    last two cases have k = 1 and k = -2: tilted towards a bound); in float32 the
    values and the bounds round, so there only the bounds and the spread are checked."""
    n = 20000
    pdt.manual_seed(4)
    x = nn.init.trunc_normal_(pdt.empty(n, dtype=getattr(pdt, dtype), device=device), mu, sigma,
                              a, b).cpu().numpy().astype(np.float64)
    assert np.isfinite(x).all()
    lo, hi = float(np.array(a, dtype=dtype)), float(np.array(b, dtype=dtype))
    assert x.min() >= lo and x.max() <= hi
    if dtype == "float32":
        assert x.min() < lo + (hi - lo) / 100 or hi - lo < 1e-3
        assert x.max() > hi - (hi - lo) / 100 or hi - lo < 1e-3
        return
    k = (a - mu) / sigma * ((b - a) / sigma)
    t = np.sort((x - a) / (b - a))
    cdf = t if k == 0 else np.expm1(-k * t) / np.expm1(-k)
    i = np.arange(1, n + 1) / n
    ks = max(np.max(i - cdf), np.max(cdf - (i - 1 / n)))
    assert ks < 1.95 / math.sqrt(n), (ks, k)


def test_trunc_normal_refuses_a_law_that_is_not_defined(device):
    with pytest.raises(ValueError, match=r"not defined for mean=inf, std=1.0 on \[-1.0, 1.0\]"):
        nn.init.trunc_normal_(pdt.empty(3, device=device), math.inf, 1.0, -1.0, 1.0)
    with pytest.raises(ValueError, match=r"not defined for mean=0.0, std=inf on \[-inf, 1.0\]"):
        nn.init.trunc_normal_(pdt.empty(3, device=device), 0.0, math.inf, -math.inf, 1.0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_trunc_normal_with_equal_bounds_fills_the_bound(device, dtype):
    p = nn.Parameter(pdt.empty(4, dtype=getattr(pdt, dtype), device=device))
    assert nn.init.trunc_normal_(p, mean=5.0, a=0.3, b=0.3) is p and p.grad_fn is None
    np.testing.assert_array_equal(p.detach().cpu().numpy(), np.full(4, 0.3, dtype=dtype))


@pytest.mark.parametrize("name", ["kaiming_uniform_", "kaiming_normal_"])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 3)])
def test_kaiming_on_zero_element_tensors_warns_and_returns_them(device, name, shape):
    t = pdt.empty(shape, device=device)
    with pytest.warns(UserWarning, match=r"Initializing zero-element tensors is a no-op"):
        assert getattr(nn.init, name)(t, mode="fan_out") is t
    assert tuple(t.shape) == shape
    with pytest.raises(TypeError, match=r"expected a Tensor, got list"):
        getattr(nn.init, name)([])


@pytest.mark.parametrize("name", ["xavier_uniform_", "xavier_normal_"])
def test_xavier_on_zero_element_tensors(device, name):
    """As PyTorch: a 2-d (or more) tensor without elements is returned without a warning,
    a 1-d one has no fans."""
    for shape in [(0, 3), (3, 0), (2, 0, 3)]:
        t = pdt.empty(shape, device=device)
        assert getattr(nn.init, name)(t) is t
    with pytest.raises(ValueError, match=r"fewer than 2 dimensions \(shape \(0,\)\)"):
        getattr(nn.init, name)(pdt.empty(0, device=device))


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2)])
def test_eye(device, shape):
    w = nn.Parameter(pdt.empty(shape, device=device))
    assert nn.init.eye_(w) is w
    np.testing.assert_array_equal(w.detach().cpu().numpy(), np.eye(*shape, dtype=np.float32))
    with pytest.raises(ValueError, match=r"only 2-d tensors are supported, got shape "
                                         r"\(2, 2, 2\)"):
        nn.init.eye_(pdt.empty(2, 2, 2, device=device))


@pytest.mark.parametrize("shape,gain", [((3, 5), 1.0), ((5, 3), 1.0), ((4, 2, 3), 2.0),
                                        ((6, 6), 0.5), ((1, 4), 1.0), ((257, 100), 1.0),
                                        ((37, 300), 1.5), ((129, 129), 1.0)])
def test_orthogonal_is_numpys_qr_of_the_same_draws(device, shape, gain):
    rows = shape[0]
    cols = int(np.prod(shape)) // rows
    pdt.manual_seed(5)
    flat = pdt.empty((rows, cols), dtype=pdt.float64).normal_().numpy()
    tall = flat if rows >= cols else flat.T
    q, r = np.linalg.qr(tall)
    q = q * np.sign(np.diag(r))
    want = (q if rows >= cols else q.T).reshape(shape) * gain
    pdt.manual_seed(5)
    w = nn.init.orthogonal_(pdt.empty(shape, dtype=pdt.float64, device=device), gain=gain)
    np.testing.assert_allclose(w.cpu().numpy(), want, rtol=1e-10, atol=1e-12)
    m = w.cpu().numpy().reshape(rows, cols)
    gram = m.T @ m if rows >= cols else m @ m.T
    np.testing.assert_allclose(gram, gain ** 2 * np.eye(min(rows, cols)), atol=1e-12)
    p = nn.init.orthogonal_(nn.Parameter(pdt.empty(shape, device=device)), gain)
    assert p.dtype == pdt.float32 and p.grad_fn is None
    with pytest.raises(ValueError, match=r"only tensors with 2 or more dimensions"):
        nn.init.orthogonal_(pdt.empty(3, device=device))


def _tail_cdf(a, b):
    """The CDF of the standard normal truncated to [a, b] (0 < a < b), by integrating
    exp(-(t - a)(t + a) / 2), its density up to a factor, with the trapezoid rule on a
    grid fine enough (1e-6 of a deviation, or of the width) for 1e-9 accuracy in float64:
    a reference that needs no normal CDF, which underflows out there."""
    t = np.linspace(a, b, 400_001)
    f = np.exp(-(t - a) * (t + a) / 2)
    c = np.concatenate([[0.0], np.cumsum((f[1:] + f[:-1]) / 2 * np.diff(t))])
    return lambda x: np.interp(x, t, c / c[-1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mu,sigma,a,b", [(0.0, 1.0, 38.0, 38.01), (0.0, 1.0, 37.0, 40.0),
                                          (1.0, 2.0, -79.0, -73.0), (0.0, 1.0, 12.0, 12.5),
                                          (0.0, 1.0, 60.0, math.inf)])
def test_trunc_normal_far_tails_fit_their_law(device, dtype, mu, sigma, a, b):
    """Far beyond the mean (Phi(-38) is below the smallest normal float64): the values
    are in [a, b] and their Kolmogorov-Smirnov statistic against the truncated normal's
    CDF is below 1.95 / sqrt(n) (a 0.1% level), n = 4000; float32 rounds the values, so
    there its distance is measured against the CDF's rounding too (1 / 2 ulp)."""
    n = 4000
    pdt.manual_seed(2)
    x = nn.init.trunc_normal_(pdt.empty(n, dtype=getattr(pdt, dtype), device=device), mu,
                              sigma, a, b).cpu().numpy().astype(np.float64)
    assert x.min() >= a and x.max() <= b and len(np.unique(x)) > n // 4
    z = np.sort((x - mu) / sigma)
    lo, hi = (a - mu) / sigma, (b - mu) / sigma
    if hi < 0:  # the mirror image of an upper tail
        z, lo, hi = np.sort(-z), -hi, -lo
    cdf = _tail_cdf(lo, min(hi, lo + 2.0))  # beyond lo + 2: below exp(-2 lo), nothing
    if dtype == "float32":  # the float32 grid: a value stands for +-half its spacing
        half = np.spacing(np.float32(abs(x).max())).astype(np.float64) / 2 / sigma
        upper, lower = cdf(z + half), cdf(z - half)
    else:
        upper = lower = cdf(z)
    k = np.arange(1, n + 1) / n
    ks = max(np.max(k - upper), np.max(lower - (k - 1 / n)))
    assert ks < 1.95 / math.sqrt(n), ks


INITS = ["uniform_", "normal_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
         "kaiming_normal_", "trunc_normal_", "orthogonal_"]


@pytest.mark.parametrize("name", INITS)
def test_every_init_draws_from_a_given_generator(device, name):
    """generator= (PyTorch 2.2's): the same seed gives the same fill, and the package's
    generator is neither read nor advanced."""
    fn = getattr(nn.init, name)
    pdt.manual_seed(5)
    first = pdt.rand(2, device=device)
    pdt.manual_seed(5)
    a = fn(pdt.empty(6, 5, device=device), generator=pdt.Generator().manual_seed(1))
    b = fn(pdt.empty(6, 5, device=device), generator=pdt.Generator().manual_seed(1))
    assert pdt.equal(a, b) and a.abs().sum().item() > 0
    assert pdt.equal(pdt.rand(2, device=device), first)  # the default one untouched
    assert not pdt.equal(fn(pdt.empty(6, 5, device=device),
                            generator=pdt.Generator().manual_seed(2)), a)


def test_fans_gain_and_private_helpers():
    w = pdt.empty(4, 3, 5)
    assert nn.init._calculate_fan_in_and_fan_out(w) == (15, 20)
    assert nn.init._calculate_correct_fan(w, "fan_out") == 20
    with pytest.raises(ValueError, match="fan_in, fan_out"):
        nn.init._calculate_correct_fan(w, "fan")
    for name in ("linear", "sigmoid", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                 "conv_transpose2d", "conv_transpose3d"):
        gain = nn.init.calculate_gain(name)
        assert type(gain) is int and gain == 1  # an int, as PyTorch's
    for name, value in (("tanh", 5 / 3), ("relu", 2 ** 0.5), ("selu", 0.75),
                        ("leaky_relu", (2 / (1 + 0.01 ** 2)) ** 0.5)):
        gain = nn.init.calculate_gain(name)
        assert type(gain) is float and gain == pytest.approx(value, rel=1e-15)
    assert type(nn.init.calculate_gain("leaky_relu", 1)) is float


@pytest.mark.parametrize("shape, groups", [((4, 4, 3), 1), ((6, 2, 3, 3), 3),
                                           ((2, 3, 3, 3, 3), 1), ((3, 5, 2, 4), 1)])
def test_dirac_keeps_the_channels(device, shape, groups):
    w = nn.init.dirac_(pdt.empty(shape, device=device), groups=groups)
    ref = np.zeros(shape)
    per = shape[0] // groups
    centre = tuple(k // 2 for k in shape[2:])
    for g in range(groups):
        for d in range(min(per, shape[1])):
            ref[(g * per + d, d) + centre] = 1
    np.testing.assert_array_equal(w.cpu().numpy(), ref)
    if len(shape) == 4 and groups == 1 and shape[0] == shape[1]:
        x = pdt.randn(1, shape[1], 5, 5, device=device)
        y = nn.functional.conv2d(x, w, padding=1)
        assert pdt.equal(y, x)
    with pytest.raises(ValueError, match="divisible by groups"):
        nn.init.dirac_(pdt.empty(shape, device=device), groups=shape[0] + 1)
    for bad in (2.0, True, "2"):  # a ValueError before; PyTorch's TypeError
        with pytest.raises(TypeError, match="groups must be an int"):
            nn.init.dirac_(pdt.empty(shape, device=device), groups=bad)
    with pytest.raises(ValueError, match="3-, 4- and 5-d"):
        nn.init.dirac_(pdt.empty(2, 2, device=device))


def test_sparse_zeros_a_fraction_of_each_column(device):
    w = nn.init.sparse_(pdt.empty(200, 30, device=device), sparsity=0.1, std=0.5,
                        generator=pdt.Generator().manual_seed(0))
    zeros = (w == 0).sum(0).cpu().tolist()
    assert zeros == [20] * 30
    kept = w.cpu().numpy()[w.cpu().numpy() != 0]
    assert abs(kept.std() - 0.5) < 0.02 and abs(kept.mean()) < 0.02
    with pytest.raises(ValueError, match="only 2-d"):
        nn.init.sparse_(pdt.empty(3, device=device), 0.5)


def test_kaiming_mode_in_any_case(device):
    """PyTorch reads mode in lower case ('FAN_OUT' was refused here): the std of a
    kaiming_normal_ fill of a (400, 50, 3) weight is gain / sqrt(fan), within 5 standard
    errors of the sample std (60000 draws)."""
    w = pdt.empty(400, 50, 3, device=device, dtype=pdt.float64)
    assert nn.init._calculate_correct_fan(w, "FAN_OUT") == 1200
    assert nn.init._calculate_correct_fan(w, "Fan_In") == 150
    for mode, fan in (("FAN_OUT", 1200), ("Fan_In", 150)):
        std = float(nn.init.kaiming_normal_(w, mode=mode, nonlinearity="relu").std())
        want = 2 ** 0.5 / fan ** 0.5
        assert abs(std - want) < 5 * want / (2 * w.numel()) ** 0.5
        bound = float(nn.init.kaiming_uniform_(w, mode=mode).abs().max())  # a=0: gain sqrt(2)
        assert 0.99 * (6 / fan) ** 0.5 < bound <= (6 / fan) ** 0.5
    with pytest.raises(ValueError, match=r"mode 'fan' is neither"):
        nn.init.kaiming_uniform_(w, mode="FAN")
