"""torch.signal.windows: the window functions of SciPy's scipy.signal.windows with
PyTorch's keyword-only arguments.  Each is computed in float64 on the host from its closed
form (NumPy) and then rounded once to ``dtype``, so a float32 window is the exact window
correctly rounded (PyTorch's builds it in ``dtype`` from linspace, a few ulp away).

``sym=True`` (the default) gives the symmetric window, for filter design; ``sym=False``
the periodic one, for spectral analysis: the symmetric window of length M + 1 without its
last point.  With ``requires_grad=True`` the window is a leaf (PyTorch's is the output of
the ops that built it).
"""
from collections.abc import Iterable

import numpy as np

from .. import _C
from .. import _args
from .._default_dtype import get_default_dtype
from .._memory_format import strided

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]

_COMMON = """M : int
    The length of the window (0 gives an empty tensor).
sym : bool, optional
    True (the default): the symmetric window; False: the periodic one.
dtype : pydevtensor.dtype, optional
    float32 or float64; the default dtype if None.
layout : pydevtensor.layout, optional
    Only ``pydevtensor.strided``.
device : pydevtensor.device, optional
    The window's device (the default device if None).
requires_grad : bool, optional
    Whether autograd records operations on the window (default False)."""


def _document(formula, example, extra=""):
    """The numpydoc docstring of a window: its formula, the shared parameters (and the
    window's own, extra) and its doctest."""
    def decorate(fn):
        params = "\n".join("    " + line if line else "" for line in
                           (extra + _COMMON).splitlines())
        fn.__doc__ = (f"{formula}\n\n    Parameters\n    ----------\n{params}\n\n"
                      "    Returns\n    -------\n    Tensor\n        The (M,) window.  It peaks at "
                      "its centre (L - 1) / 2, L being M (sym) or\n        M + 1 (periodic): "
                      "a point of the window only when L is odd.  The peak is 1\n        "
                      "but for general_cosine's (the sum of a) and an exponential's given "
                      "a center.\n\n"
                      f"    Examples\n    --------\n{example}\n    ")
        return fn
    return decorate


def _window(name, M, sym, dtype, layout, device, requires_grad, values, one=True):
    """The checks PyTorch makes (M, layout, dtype), then values(n, L) -- the symmetric
    window of length L at the points n = 0..M-1, L = M (sym) or M + 1 (periodic) -- as a
    tensor of dtype on device; a window of one point is [1] unless one is False."""
    M = _args.size(M, f"{name}()", "M")
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype is None:
        dtype = get_default_dtype()
    if dtype not in (_C.float32, _C.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    if not isinstance(sym, (bool, np.bool_)):
        raise TypeError(f"{name}(): sym must be a bool, got {type(sym).__name__}")
    L = M if sym or M <= 1 else M + 1
    w = values(np.arange(M, dtype=np.float64), L) if M > 1 or not one else np.ones(M)
    return _C.tensor(w, dtype=dtype, device=device, requires_grad=requires_grad)


def _positive(value, name, op, message, allow_zero=False):
    number = _args.real(value, op, name)
    if not (number >= 0 if allow_zero else number > 0):  # NaN refused too
        raise ValueError(message.format(value))
    return number


@_document("""Bartlett (triangular) window: ``w[n] = 1 - |2 n / (L - 1) - 1|``.""", """\
    >>> pydevtensor.signal.windows.bartlett(5)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])""")
def bartlett(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    return _window("bartlett", M, sym, dtype, layout, device, requires_grad,
                   lambda n, L: 1 - np.abs(2 * n / (L - 1) - 1))


@_document("""Cosine (sine) window: ``w[n] = sin(pi (n + 1/2) / L)``.""", """\
    >>> pydevtensor.signal.windows.cosine(3, dtype=pydevtensor.float64)
    tensor([0.5000, 1.0000, 0.5000], dtype=pydevtensor.float64)""")
def cosine(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    return _window("cosine", M, sym, dtype, layout, device, requires_grad,
                   lambda n, L: np.sin(np.pi * (n + 0.5) / L))


@_document("""Exponential (Poisson) window: ``w[n] = exp(-|n - center| / tau)``.""", """\
    >>> pydevtensor.signal.windows.exponential(3, tau=0.5)
    tensor([0.1353, 1.0000, 0.1353])
    >>> pydevtensor.signal.windows.exponential(3, center=0.0, sym=False)
    tensor([1.0000, 0.3679, 0.1353])""", """center : float, optional
    The window's centre; None (the default) its middle, (L - 1) / 2.  Only for a
    periodic window (sym=False).
tau : float, optional
    The decay: a positive float (default 1.0).
""")
def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=strided,
                device=None, requires_grad=False):
    tau = _positive(tau, "tau", "exponential", "Tau must be positive, got: {} instead.")
    if center is not None:
        if sym:
            raise ValueError("Center must be None for symmetric windows")
        center = _args.real(center, "exponential", "center")
    return _window("exponential", M, sym, dtype, layout, device, requires_grad,
                   lambda n, L: np.exp(-np.abs(n - ((L - 1) / 2 if center is None else center))
                                       / tau), one=center is None)


@_document("""Gaussian window: ``w[n] = exp(-(n - (L - 1)/2)**2 / (2 std**2))``.""", """\
    >>> pydevtensor.signal.windows.gaussian(3, std=1.0)
    tensor([0.6065, 1.0000, 0.6065])""", """std : float, optional
    The standard deviation: a positive float (default 1.0).
""")
def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=strided, device=None,
             requires_grad=False):
    std = _positive(std, "std", "gaussian",
                    "Standard deviation must be positive, got: {} instead.")
    return _window("gaussian", M, sym, dtype, layout, device, requires_grad,
                   lambda n, L: np.exp(-((n - (L - 1) / 2) ** 2) / (2 * std * std)))


@_document("""Kaiser window: ``w[n] = I0(beta sqrt(1 - (2 n / (L - 1) - 1)**2)) / I0(beta)``,
    I0 the modified Bessel function of order 0.""", """\
    >>> pydevtensor.signal.windows.kaiser(3, beta=2.0)
    tensor([0.4387, 1.0000, 0.4387])""", """beta : float, optional
    The shape: a non-negative float (default 12.0); 0 gives the rectangular window.
""")
def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=strided, device=None,
           requires_grad=False):
    beta = _positive(beta, "beta", "kaiser", "beta must be non-negative, got: {} instead.",
                     allow_zero=True)
    return _window("kaiser", M, sym, dtype, layout, device, requires_grad,
                   lambda n, L: _kaiser(beta * np.sqrt(np.clip(
                       1 - (2 * n / (L - 1) - 1) ** 2, 0, None)), beta))


def _kaiser(x, beta):
    """I0(x) / I0(beta) for 0 <= x <= beta, as i0e(x) / i0e(beta) * exp(x - beta): I0
    itself overflows for arguments above ~713 (np.i0(beta) / np.i0(beta) was NaN)."""
    from .._ops_special_more import i0e
    x = _C.tensor(x, dtype=_C.float64)
    return (i0e(x) / i0e(_C.tensor(float(beta), dtype=_C.float64))
            * (x - beta).exp()).numpy()


def _coefficients(a):
    if isinstance(a, (str, bytes)) or not isinstance(a, Iterable):
        raise TypeError(f"Coefficients must be a list/tuple, got {type(a).__name__}")
    a = [_args.real(x, "general_cosine", "a") for x in a]
    if not a:
        raise ValueError("Coefficients cannot be empty")
    return a


def _cosine_sum(name, M, a, sym, dtype, layout, device, requires_grad):
    a = _coefficients(a)
    return _window(name, M, sym, dtype, layout, device, requires_grad,
                   lambda n, L: sum((-1) ** k * ak * np.cos(2 * np.pi * k * n / (L - 1))
                                    for k, ak in enumerate(a)))


@_document("""Generalized cosine window: ``w[n] = sum_k (-1)**k a[k] cos(2 pi k n / (L - 1))``.
    """, """\
    >>> pydevtensor.signal.windows.general_cosine(3, a=[0.5, 0.5])
    tensor([0., 1., 0.])""", """a : iterable of float
    The coefficients a[0], a[1], ... (at least one).
""")
def general_cosine(M, *, a, sym=True, dtype=None, layout=strided, device=None,
                   requires_grad=False):
    return _cosine_sum("general_cosine", M, a, sym, dtype, layout, device, requires_grad)


@_document("""Generalized Hamming window: ``w[n] = alpha - (1 - alpha) cos(2 pi n / (L - 1))``.
    """, """\
    >>> pydevtensor.signal.windows.general_hamming(3, alpha=0.6)
    tensor([0.2000, 1.0000, 0.2000])""", """alpha : float, optional
    The window's coefficient (default 0.54, the Hamming window).
""")
def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=strided, device=None,
                    requires_grad=False):
    alpha = _args.real(alpha, "general_hamming", "alpha")
    return _cosine_sum("general_hamming", M, [alpha, 1.0 - alpha], sym, dtype, layout, device,
                       requires_grad)


@_document("""Hamming window: the generalized Hamming window with alpha = 0.54.""", """\
    >>> pydevtensor.signal.windows.hamming(3)
    tensor([0.0800, 1.0000, 0.0800])""")
def hamming(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    return _cosine_sum("hamming", M, [0.54, 0.46], sym, dtype, layout, device, requires_grad)


@_document("""Hann window: the generalized Hamming window with alpha = 0.5.""", """\
    >>> pydevtensor.signal.windows.hann(4, sym=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])""")
def hann(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    return _cosine_sum("hann", M, [0.5, 0.5], sym, dtype, layout, device, requires_grad)


@_document("""Blackman window: the generalized cosine window with a = [0.42, 0.5, 0.08].""",
           """\
    >>> pydevtensor.signal.windows.blackman(3)
    tensor([-1.3878e-17,  1.0000e+00, -1.3878e-17])""")
def blackman(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    return _cosine_sum("blackman", M, [0.42, 0.5, 0.08], sym, dtype, layout, device,
                       requires_grad)


@_document("""Nuttall window: the minimum 4-term Blackman-Harris window of Nuttall (1981), the
    generalized cosine window with a = [0.3635819, 0.4891775, 0.1365995, 0.0106411].""", """\
    >>> pydevtensor.signal.windows.nuttall(3)
    tensor([3.6280e-04, 1.0000e+00, 3.6280e-04])""")
def nuttall(M, *, sym=True, dtype=None, layout=strided, device=None, requires_grad=False):
    return _cosine_sum("nuttall", M, [0.3635819, 0.4891775, 0.1365995, 0.0106411], sym, dtype,
                       layout, device, requires_grad)

