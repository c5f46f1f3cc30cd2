"""nn.init's trunc_normal_, eye_ and orthogonal_ (re-exported by nn.init), with PyTorch's
names and arguments.  Like the other fills they run under no_grad, fill the tensor on
its own device from the package's generator and return it."""
from __future__ import annotations

import math
import numbers

from .. import _C
from .._ops_index import where as _where
from ..autograd.grad_mode import no_grad

# Acklam's rational approximation of the inverse normal CDF (relative error below
# 1.2e-9 over (0, 1)): the central region's coefficients (a over b) and the tails' (c
# over d), from its published description.
_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
      1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
      6.680131188771972e+01, -1.328068155288572e+01, 1.0)
_C_TAIL = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
           -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
      3.754408661907416e+00, 1.0)
_P_LOW = 0.02425


def _horner(coefficients, x):
    out = _C.full_like(x, coefficients[0])
    for c in coefficients[1:]:
        out = out.mul_(x).add_(c)
    return out


def _ndtri(p):
    """The inverse of the standard normal CDF of a float64 tensor p in (0, 1), elementwise
    on p's device (both branches are computed, the right one kept)."""
    q = p - 0.5
    r = q * q
    central = _horner(_A, r).mul_(q).div_(_horner(_B, r))
    t = _C.minimum(p, 1.0 - p).clamp(min=1e-300).log().mul_(-2.0).sqrt_()
    tail = _horner(_C_TAIL, t).div_(_horner(_D, t))  # the lower tail's (negative) value
    tail = _where(p > 0.5, tail.neg(), tail)
    return _where((p < _P_LOW) | (p > 1.0 - _P_LOW), tail, central)


def _phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


_TAIL = 10.0  # intervals beyond this many deviations from the mean are drawn by _tail


def _inv_mills(x):
    """phi(x) / Q(x), the standard normal's density over its upper tail, by Laplace's
    continued fraction x + 1/(x + 2/(x + 3/(x + ...))) cut at 40 terms (float64 accurate
    for x >= 5); of a float or (elementwise) a tensor."""
    r = x
    for k in range(40, 0, -1):
        r = x + k / r
    return r


def _tail(u, a, b):
    """The inverse CDF of the standard normal truncated to [a, b] with a >= _TAIL, at the
    float64 tensor u of uniforms in [0, 1): x with Q(x) = Q(a) - u * (Q(a) - Q(b)) (Q the
    upper tail), solved in logs so that nothing underflows however far a is:
    g(x) = log(Q(x) / Q(a)) = -(x - a)(x + a) / 2 - log(r(x) / r(a)) with r = _inv_mills,
    and g(x) = log1p(-u * (1 - Q(b) / Q(a))) by Newton's method (g' = -r), from
    sqrt(a^2 - 2 g), which drops the slowly varying log r."""
    log_ra = math.log(_inv_mills(a))
    g_b = -(b - a) * (b + a) / 2 - math.log(_inv_mills(b)) + log_ra  # -inf for b = inf
    target = u.mul(math.expm1(g_b)).log1p_()  # log(1 - u * (1 - exp(g_b)))
    x = (target * -2.0).add_(a * a).sqrt_().clamp_(min=a, max=b)
    for _ in range(6):  # quadratic convergence: a few steps reach rounding
        r = _inv_mills(x)
        g = (x - a).mul_(x + a).mul_(-0.5).sub_(r.log()).add_(log_ra)
        x = x.add_(g.sub_(target).div_(r)).clamp_(min=a, max=b)
    return x


_NARROW = 1e-6  # an interval narrower than this many deviations is drawn by _narrow


def _narrow(tensor, mean, std, a, b, generator):
    """Fills tensor from N(mean, std^2) truncated to [a, b] when w = (b - a) / std is
    below _NARROW (std = inf included): there Phi(alpha) and Phi(beta) are equal to
    rounding (std = 1e30 on [-1, 1] gave zeros, std = inf NaN).  With x = a + (b - a) t,
    t in [0, 1] has the density exp(-(alpha + w t)^2 / 2), which is exp(-k t) with
    k = alpha * w to a factor exp(O(w^2)) = 1 + O(1e-12) (alpha = (a - mean) / std): t is
    drawn by that exponential's inverse CDF, of the package generator's float64 uniforms
    (k = 0, as for std = inf, gives the uniform law on [a, b])."""
    k = (a - mean) / std * ((b - a) / std)
    u = _C.empty(tuple(tensor.shape), dtype=_C.float64, device=tensor.device).uniform_(
        generator=generator)
    if k == 0:
        t = u
    else:  # s = -log1p(u * expm1(-|k|)) / |k| has the density exp(-|k| s) on [0, 1]
        t = u.mul_(math.expm1(-abs(k))).log1p_().div_(-abs(k))
        if k < 0:  # the density grows with t: its mirror image
            t = t.neg_().add_(1.0)
    x = t.mul_(b - a).add_(a).clamp_(min=a, max=b)
    return tensor.copy_(x.to(dtype=tensor.dtype)).clamp_(min=a, max=b)


def _number(value, name, op):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
        raise TypeError(f"nn.init.{op}(): {name} must be a number, got {value!r:.40}")
    return float(value)


def _float_tensor(tensor, op):
    from .init import _tensor
    if not _tensor(tensor, op).is_floating_point():
        raise _C.DTypeError(f"nn.init.{op}(): expected a floating-point tensor, got {tensor.dtype} "
                            f"on {tensor.device}")
    return tensor


def trunc_normal_(tensor: _C.Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: _C.Generator | None = None) -> _C.Tensor:
    """Fills tensor with values drawn from N(mean, std^2) truncated to [a, b] (PyTorch's
    defaults: a = -2 and b = 2 in absolute units, not deviations), by the inverse CDF:
    u uniform in [Phi(alpha), Phi(beta)) (alpha = (a - mean) / std, beta = (b - mean) /
    std), then ``mean + std * Phi^-1(u)``, clamped to [a, b] against rounding.  The
    uniforms come from the package's generator in float64 (the same on every device
    for a seed), and an interval above the mean is drawn as the mirror of one below,
    so that far tails keep their precision; an interval more than 10 deviations from
    the mean is drawn by inverting the tail's CDF in logs (with the normal's Mills
    ratio), which neither underflows nor loses digits however far it is; one narrower
    than 1e-6 deviations (a huge or infinite std) by the exponential law the density is
    there, to 1e-12 (an infinite std gives the uniform law on [a, b]).

    Parameters
    ----------
    tensor : Tensor
        A floating-point tensor, filled in place.
    mean, std : float, optional
        The normal's mean and standard deviation (std > 0; default 0 and 1).
    a, b : float, optional
        The bounds, a <= b (default -2 and 2); a == b fills with a.
    generator : pydevtensor.Generator, optional
        Where the uniforms come from (default: the package's generator).

    Returns
    -------
    Tensor
        tensor.

    Raises
    ------
    TypeError
        When tensor is not a floating-point Tensor or an argument not a number.
    ValueError
        When std <= 0 or a > b (the latter an InvalidArgumentError: a RuntimeError too,
        as PyTorch's), or the law is not defined (an infinite mean, or an infinite std
        with an infinite bound).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> _ = pydevtensor.manual_seed(0)
    >>> w = nn.init.trunc_normal_(pydevtensor.empty(1000), std=0.5, a=-0.2, b=1.0)
    >>> bool(w.min() >= -0.2), bool(w.max() <= 1.0)
    (True, True)
    """
    op = "trunc_normal_"
    _float_tensor(tensor, op)
    mean, std, a, b = (_number(v, n, op) for v, n in ((mean, "mean"), (std, "std"), (a, "a"),
                                                        (b, "b")))
    if not std > 0:
        raise ValueError(f"nn.init.{op}(): std must be > 0, got {std}")
    if not a <= b:
        # a ValueError and PyTorch's RuntimeError
        raise _C.InvalidArgumentError(f"nn.init.{op}(): a must not be above b, got a={a} "
                                      f"and b={b}")
    if a == b:  # the one value of the interval, as PyTorch's clamped draw gives
        with no_grad():
            return tensor.fill_(a)
    if math.isinf(mean) or (math.isinf(std) and math.isinf(b - a)):
        raise ValueError(f"nn.init.{op}(): the law is not defined for mean={mean}, std={std} "
                         f"on [{a}, {b}] (an infinite mean, or an infinite std on an "
                         f"unbounded interval)")
    if (b - a) / std < _NARROW:  # the interval is a sliver of the normal's width
        with no_grad():
            return _narrow(tensor, mean, std, a, b, generator)
    alpha, beta = (a - mean) / std, (b - mean) / std
    flip = alpha > 0  # above the mean: draw -x in [-beta, -alpha], below it
    if flip:
        alpha, beta = -beta, -alpha
    with no_grad():
        u = _C.empty(tuple(tensor.shape), dtype=_C.float64, device=tensor.device)
        if beta < -_TAIL:  # far out, where Phi(beta) loses digits or underflows
            x = _tail(u.uniform_(generator=generator), -beta, -alpha)
            flip = not flip
        else:
            x = _ndtri(u.uniform_(_phi(alpha), _phi(beta), generator=generator))
        if flip:
            x = x.neg_()
        x = x.mul_(std).add_(mean).clamp(min=a, max=b)
        # clamped again in the tensor's dtype, whose rounding of a bound may leave it
        return tensor.copy_(x.to(dtype=tensor.dtype)).clamp_(min=a, max=b)


def eye_(tensor: _C.Tensor) -> _C.Tensor:
    """Fills a 2-d tensor with the identity (ones on the diagonal, zeros elsewhere; a
    rectangular one keeps the inputs' identity in Linear layers).

    Parameters
    ----------
    tensor : Tensor
        2-d, filled in place.

    Returns
    -------
    Tensor
        tensor.

    Raises
    ------
    TypeError
        When tensor is not a Tensor.
    ValueError
        When tensor is not 2-d.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.init.eye_(pydevtensor.empty(2, 3))
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """
    from .init import _tensor
    if _tensor(tensor, "eye_").ndim != 2:
        raise ValueError(f"nn.init.eye_(): only 2-d tensors are supported, got shape "
                         f"{tuple(tensor.shape)} on {tensor.device}")
    with no_grad():
        n, m = tensor.shape
        return tensor.copy_(_C.eye(n, m, dtype=tensor.dtype, device=tensor.device))


def _orthonormalise_rows(q, lo, hi):
    """Orthonormalises the rows lo to hi of q in place, in order, each against those before
    it (the Q of a QR decomposition with R's diagonal positive), by recursive block
    Gram-Schmidt: the first half is done, the second half loses its components along the
    first's by two matrix products, twice (Gram-Schmidt twice: orthogonal to rounding),
    then is done; the rows before lo were projected out by the callers.  So the work
    is matrix products, not one matrix-vector product per row."""
    if hi - lo == 1:
        v = q[lo]
        v.div_((v * v).sum().sqrt())
        return
    mid = (lo + hi) // 2
    _orthonormalise_rows(q, lo, mid)
    done, rest = q[lo:mid], q[mid:hi]
    for _ in range(2):
        rest.sub_((rest @ done.t()) @ done)
    _orthonormalise_rows(q, mid, hi)


def orthogonal_(tensor: _C.Tensor, gain: float = 1.0,
                generator: _C.Generator | None = None) -> _C.Tensor:
    """Fills tensor with a (semi-)orthogonal matrix times gain (Saxe et al.), as
    PyTorch's: a (rows, cols) matrix of standard normals (rows = shape[0], cols the
    rest), the Q of its QR decomposition with R's diagonal positive (of its transpose
    when rows < cols), so that Q's columns (rows) are orthonormal.  Q is computed in
    float64 on the tensor's device by recursive block Gram-Schmidt, each block
    orthogonalised twice against those before it with matrix products (the package
    has no QR); for a full-rank matrix this is the same Q.

    Parameters
    ----------
    tensor : Tensor
        At least 2-d, floating point, filled in place.
    gain : float, optional
        The factor (default 1).
    generator : pydevtensor.Generator, optional
        Where the normals come from (default: the package's generator).

    Returns
    -------
    Tensor
        tensor.

    Raises
    ------
    TypeError
        When tensor is not a floating-point Tensor or gain not a number.
    ValueError
        When tensor has fewer than 2 dimensions.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> w = nn.init.orthogonal_(pydevtensor.empty(3, 5, dtype=pydevtensor.float64))
    >>> bool(((w @ w.t() - pydevtensor.eye(3, dtype=pydevtensor.float64)).abs() < 1e-12).all())
    True
    """
    op = "orthogonal_"
    _float_tensor(tensor, op)
    gain = _number(gain, "gain", op)
    if tensor.ndim < 2:
        raise ValueError(f"nn.init.{op}(): only tensors with 2 or more dimensions are "
                         f"supported, got shape {tuple(tensor.shape)} on {tensor.device}")
    rows = tensor.shape[0]
    cols = tensor.numel() // rows if rows else 0
    with no_grad():
        if tensor.numel() == 0:
            return tensor
        flat = _C.empty((rows, cols), dtype=_C.float64, device=tensor.device).normal_(
            generator=generator)
        # the vectors to orthonormalise, as rows: the columns of the tall matrix
        q = (flat.t() if rows >= cols else flat).contiguous()  # our own: done in place
        _orthonormalise_rows(q, 0, q.shape[0])
        result = q.t() if rows >= cols else q
        tensor.copy_(result.reshape(tuple(tensor.shape)).to(dtype=tensor.dtype))
        return tensor.mul_(gain) if gain != 1.0 else tensor


def dirac_(tensor: _C.Tensor, groups: int = 1) -> _C.Tensor:
    """Fills a 3-, 4- or 5-d convolution weight with the Dirac delta, as PyTorch's: zeros
    but a 1 at the kernel's centre for output channel d of each group and input channel
    d (d below both counts), so that the convolution keeps its input's channels.

    Parameters
    ----------
    tensor : Tensor
        ``(out_channels, in_channels / groups, *kernel)``, 3- to 5-d, filled in place.
    groups : int, optional
        The convolution's groups; out_channels must be a multiple (default 1).

    Returns
    -------
    Tensor
        tensor.

    Raises
    ------
    TypeError
        When tensor is not a Tensor, or groups not an int.
    ValueError
        When tensor is not 3- to 5-d, or out_channels is not a multiple of groups.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> w = nn.init.dirac_(pydevtensor.empty(2, 2, 3))
    >>> w[:, :, 1]
    tensor([[1., 0.],
            [0., 1.]])
    """
    from .init import _tensor
    if _tensor(tensor, "dirac_").ndim not in (3, 4, 5):
        raise ValueError(f"nn.init.dirac_(): only 3-, 4- and 5-d tensors are supported, got "
                         f"shape {tuple(tensor.shape)} on {tensor.device}")
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral):
        raise TypeError(f"nn.init.dirac_(): groups must be an int, got {groups!r:.40} "
                        f"(PyTorch's TypeError)")
    groups = int(groups)
    if groups < 1 or tensor.shape[0] % groups:
        raise ValueError(f"nn.init.dirac_(): dim 0 ({tensor.shape[0]}) must be divisible by "
                         f"groups ({groups!r}), a positive int")
    per_group = tensor.shape[0] // groups
    centre = tuple(k // 2 for k in tuple(tensor.shape)[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, tensor.shape[1])):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def sparse_(tensor: _C.Tensor, sparsity: float, std: float = 0.01,
            generator: _C.Generator | None = None) -> _C.Tensor:
    """Fills a 2-d tensor as a sparse matrix (Martens, 2010), as PyTorch's: values from
    N(0, std^2), then in each column ``ceil(sparsity * rows)`` rows, chosen at random,
    set to zero.

    Parameters
    ----------
    tensor : Tensor
        2-d, filled in place.
    sparsity : float
        The fraction of each column set to zero.
    std : float, optional
        The normal's standard deviation (default 0.01).
    generator : pydevtensor.Generator, optional
        Where the numbers come from (default: the package's generator).

    Returns
    -------
    Tensor
        tensor.

    Raises
    ------
    TypeError
        When tensor is not a floating-point Tensor or an argument not a number.
    ValueError
        When tensor is not 2-d.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> w = nn.init.sparse_(pydevtensor.empty(4, 3), sparsity=0.5)
    >>> (w == 0).sum(0).tolist()
    [2, 2, 2]
    """
    from .._ops_shortcuts import randperm
    op = "sparse_"
    _float_tensor(tensor, op)
    sparsity, std = _number(sparsity, "sparsity", op), _number(std, "std", op)
    if tensor.ndim != 2:
        raise ValueError(f"nn.init.{op}(): only 2-d tensors are supported, got shape "
                         f"{tuple(tensor.shape)} on {tensor.device}")
    rows, cols = tensor.shape
    zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0.0, std, generator=generator)
        for c in range(cols):
            picked = randperm(rows, generator=generator, device=tensor.device)[:zeros]
            tensor[picked, c] = 0
    return tensor
