"""torch.signal.windows (signal/windows.py): each window against NumPy's own window
(np.bartlett, np.blackman, np.hamming, np.hanning, np.kaiser) or scipy.signal.windows'
closed form written out in NumPy, in float64 (to 1e-13) and float32 (the float64 window
rounded once), symmetric and periodic (the symmetric window of M + 1 points without its
last), on every device; torch's refusals."""
import numpy as np
import pytest

import pydevtensor as pdt

W = pdt.signal.windows


def _periodic(symmetric):
    """scipy's sym=False: the symmetric window one longer, its last point dropped."""
    return lambda M: symmetric(M + 1)[:-1] if M > 1 else symmetric(M)


def _gaussian(M, std):
    return np.exp(-((np.arange(M) - (M - 1) / 2) ** 2) / (2 * std ** 2))


def _general_cosine(M, a):  # scipy's form: cosines of linspace(-pi, pi, M)
    if M == 1:
        return np.ones(1)
    fac = np.linspace(-np.pi, np.pi, M)
    return sum(ak * np.cos(k * fac) for k, ak in enumerate(a))


NUTTALL = [0.3635819, 0.4891775, 0.1365995, 0.0106411]
# name, keyword arguments, the symmetric window of M points
WINDOWS = [
    ("bartlett", {}, np.bartlett),
    ("blackman", {}, np.blackman),
    ("hamming", {}, np.hamming),
    ("hann", {}, np.hanning),
    ("kaiser", {}, lambda M: np.kaiser(M, 12.0)),
    ("kaiser", {"beta": 0.0}, np.ones),
    ("kaiser", {"beta": 3.5}, lambda M: np.kaiser(M, 3.5)),
    ("cosine", {}, lambda M: np.sin(np.pi * (np.arange(M) + 0.5) / M)),
    ("gaussian", {"std": 1.7}, lambda M: _gaussian(M, 1.7)),
    ("exponential", {"tau": 2.5},
     lambda M: np.exp(-np.abs(np.arange(M) - (M - 1) / 2) / 2.5)),
    ("general_cosine", {"a": [0.4, 0.3, 0.2, 0.1]},
     lambda M: _general_cosine(M, [0.4, 0.3, 0.2, 0.1])),
    ("general_hamming", {"alpha": 0.6}, lambda M: _general_cosine(M, [0.6, 0.4])),
    ("nuttall", {}, lambda M: _general_cosine(M, NUTTALL)),
]


@pytest.mark.parametrize("name,kwargs,symmetric", WINDOWS,
                         ids=[f"{w[0]}-{i}" for i, w in enumerate(WINDOWS)])
@pytest.mark.parametrize("sym", [True, False])
def test_window_matches_its_closed_form(name, kwargs, symmetric, sym, device):
    fn = getattr(W, name)
    for M in (0, 1, 2, 3, 4, 7, 16, 65):
        want = (symmetric if sym else _periodic(symmetric))(M) if M else np.zeros(0)
        got = fn(M, sym=sym, dtype=pdt.float64, device=device, **kwargs)
        assert got.shape == (M,) and got.dtype == pdt.float64
        assert got.device.type == device.type
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=0, atol=1e-13)
        single = fn(M, sym=sym, device=device, **kwargs)  # the default dtype
        assert single.dtype == pdt.float32
        np.testing.assert_allclose(single.cpu().numpy(), want.astype(np.float32), rtol=0,
                                   atol=1e-7)


def test_hann_and_hamming_are_their_named_general_hamming():
    for M in (5, 8):
        for sym in (True, False):
            np.testing.assert_array_equal(W.hann(M, sym=sym).numpy(),
                                          W.general_hamming(M, alpha=0.5, sym=sym).numpy())
            np.testing.assert_array_equal(W.hamming(M, sym=sym).numpy(),
                                          W.general_hamming(M, sym=sym).numpy())
            np.testing.assert_array_equal(W.blackman(M, sym=sym).numpy(),
                                          W.general_cosine(M, a=(0.42, 0.5, 0.08),
                                                           sym=sym).numpy())


@pytest.mark.parametrize("name", ["bartlett", "blackman", "cosine", "exponential", "gaussian",
                                  "hamming", "hann", "kaiser", "nuttall"])
def test_the_peak_is_1_exactly_when_the_centre_is_a_point(name):
    # as the docstrings say: L = M (sym) or M + 1 (periodic); the centre (L - 1) / 2 is a
    # point only for an odd L (they said "when M is odd or the window periodic")
    for M in range(2, 9):
        for sym in (True, False):
            L = M if sym else M + 1
            peak = getattr(W, name)(M, sym=sym, dtype=pdt.float64).max().item()
            assert (abs(peak - 1) < 1e-12) == (L % 2 == 1), (M, sym, peak)


def test_kaiser_with_a_large_beta_is_finite():
    # I0 overflows above ~713, so np.i0(x) / np.i0(beta) was NaN (inf / inf) for beta
    # 1000; against I0's asymptotic series e**x / sqrt(2 pi x) (1 + 1/(8x) + 9/(2(8x)**2)
    # + 225/(6(8x)**3)) where x > 400 (relative error of the series < 1e-12 there)
    M, beta = 41, 1000.0
    got = W.kaiser(M, beta=beta, dtype=pdt.float64).numpy()
    n = np.arange(M)
    x = beta * np.sqrt(np.clip(1 - (2 * n / (M - 1) - 1) ** 2, 0, None))

    def scaled_i0(v):  # I0(v) e**-v
        t = 1 / (8 * v)
        return (1 + t + 9 / 2 * t ** 2 + 225 / 6 * t ** 3) / np.sqrt(2 * np.pi * v)
    big = x > 400
    want = scaled_i0(x[big]) / scaled_i0(beta) * np.exp(x[big] - beta)
    assert big.sum() >= 9 and got[M // 2] == 1.0
    np.testing.assert_allclose(got[big], want, rtol=1e-10)
    assert np.isfinite(got).all() and (got[~big] < 1e-100).all() and (got >= 0).all()


def test_exponential_with_a_center():
    # periodic only; the formula exp(-|n - center| / tau) holds at M = 1 too, as in torch
    for M in (1, 5, 8):
        got = W.exponential(M, center=1.3, tau=0.7, sym=False, dtype=pdt.float64).numpy()
        np.testing.assert_allclose(got, np.exp(-np.abs(np.arange(M) - 1.3) / 0.7), rtol=0,
                                   atol=1e-15)


def test_requires_grad_gives_a_leaf(device):
    w = W.hann(6, requires_grad=True, device=device)
    assert w.requires_grad and w.is_leaf
    (w * w).sum().backward()
    np.testing.assert_allclose(w.grad.cpu().numpy(), 2 * w.detach().cpu().numpy())


@pytest.mark.parametrize("call,exc,match", [
    ("bartlett(-1)", ValueError, "bartlett requires non-negative window length, got M=-1"),
    ("hann(2.5)", TypeError, r"hann\(\): M must be an int, got float"),
    ("hann(True)", TypeError, r"hann\(\): M must be an int, got bool"),
    ("cosine(3, dtype=pdt.int64)", ValueError,
     "cosine expects float32 or float64 dtypes, got: pydevtensor.int64"),
    ("nuttall(3, dtype=pdt.float16)", ValueError, "float32 or float64 dtypes, got: "),
    ("blackman(3, layout=None)", ValueError,
     "blackman is implemented for strided tensors only, got: None"),
    ("hamming(3, sym='yes')", TypeError, r"hamming\(\): sym must be a bool, got str"),
    ("exponential(3, tau=0)", ValueError, "Tau must be positive, got: 0 instead."),
    ("exponential(3, tau=float('nan'))", ValueError, "Tau must be positive, got: nan"),
    ("exponential(3, center=1.0)", ValueError, "Center must be None for symmetric windows"),
    ("exponential(3, center='a', sym=False)", TypeError,
     r"exponential\(\): argument 'center' must be a number, got str"),
    ("gaussian(3, std=-1)", ValueError, "Standard deviation must be positive, got: -1 instead"),
    ("kaiser(3, beta=-0.5)", ValueError, "beta must be non-negative, got: -0.5 instead"),
    ("general_cosine(3, a=[])", ValueError, "Coefficients cannot be empty"),
    ("general_cosine(3, a=1.0)", TypeError, "Coefficients must be a list/tuple, got float"),
    ("general_cosine(3, a=[1, 'x'])", TypeError, "argument 'a' must be a number, got str"),
    ("general_cosine(3)", TypeError, "missing 1 required keyword-only argument: 'a'"),
    ("general_hamming(3, alpha=None)", TypeError,
     "argument 'alpha' must be a number, got None"),
    ("hann(3, 0.5)", TypeError, "takes 1 positional argument but 2 were given"),
])
def test_bad_arguments_are_refused(call, exc, match):
    with pytest.raises(exc, match=match):
        eval("W." + call)
