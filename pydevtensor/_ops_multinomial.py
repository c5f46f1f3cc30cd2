"""multinomial: indices drawn from rows of non-negative weights, from the package's
random stream (``rand`` in float64), so one seed gives the same draws on every device.

With replacement each draw is inverse-CDF sampling: a uniform draw scaled by the row's
total is placed in the row's running sums by searchsorted.  Without replacement it is an
exponential race (Efraimidis and Spirakis): category i gets the key ``E_i / w_i`` with
E_i an exponential draw, and the num_samples smallest keys win, in order, which is
sequential sampling without replacement.  Both run on the device; the weights are
checked first, and that check reads one pair of flags back to the host, as PyTorch's
does.
"""
from . import _C
from ._args import flag
from ._ops_counting import searchsorted
from ._ops_index import _int_arg, _tensor_arg
from ._ops_join import cat
from ._ops_sort import cumsum, topk
from .autograd import no_grad


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """num_samples category indices drawn from each row of input, category i with
    probability proportional to its weight ``input[..., i]``.

    The draws come from ``rand`` (float64, the package's Philox stream), so one
    ``manual_seed`` gives the same indices on every device, up to the rounding of the
    device's float64 ``log`` and running sums: a draw can differ only where two keys (or
    a uniform draw and a running sum) agree to the last bit.

    Parameters
    ----------
    input : Tensor
        1-d or 2-d (rows), floating point, non-negative, finite, each row with a
        positive sum (also the method ``x.multinomial(n)``).
    num_samples : int
        Draws per row (> 0; without replacement at most the number of categories).
    replacement : bool, optional
        Draw with replacement (default False: each category at most once per row,
        those of weight 0 only after every positive one).
    generator : Generator, optional
        The stream to draw from (default: the default generator).
    out : Tensor, optional
        Written with the indices and returned: int64 (as PyTorch's), on the result's
        device, of its shape or with no elements (then given it).

    Returns
    -------
    Tensor
        int64, (num_samples,) for a 1-d input, else (rows, num_samples).

    Raises
    ------
    RuntimeError
        For a negative, NaN or infinite weight, a row whose weights sum to 0, or too
        many draws without replacement.
    TypeError
        For an integer or bool input.

    Examples
    --------
    >>> _ = pydevtensor.manual_seed(0)
    >>> w = pydevtensor.tensor([0.0, 1.0, 0.0, 3.0])
    >>> sorted(set(pydevtensor.multinomial(w, 50, replacement=True).tolist()))
    [1, 3]
    >>> sorted(pydevtensor.multinomial(w, 2).tolist())
    [1, 3]
    """
    replacement = flag(replacement, "multinomial", "replacement")
    if out is not None:  # no gradient flows to indices: a grad-requiring input is fine
        from ._out import _out_written
        return _out_written(multinomial(input, num_samples, replacement, generator=generator),
                            out, "multinomial")
    x = _tensor_arg(input, "multinomial")
    num_samples = _int_arg(num_samples, "multinomial", "num_samples")
    if not x.is_floating_point():
        raise _C.DTypeError(f"multinomial(): expected floating point weights, got {x.dtype} "
                            f"(shape {tuple(x.shape)}, on {x.device})")
    if x.ndim not in (1, 2):
        raise RuntimeError(f"multinomial(): input must be 1-d or 2-d, got shape "
                           f"{tuple(x.shape)} (on {x.device})")
    n = x.shape[-1]
    if num_samples <= 0:
        raise RuntimeError(f"multinomial(): cannot sample num_samples={num_samples} <= 0 "
                           f"samples")
    if n == 0:
        raise RuntimeError(f"multinomial(): no categories to draw from (shape "
                           f"{tuple(x.shape)}, on {x.device})")
    if not replacement and num_samples > n:
        raise RuntimeError(f"multinomial(): cannot draw num_samples={num_samples} > {n} "
                           f"categories without replacement (shape {tuple(x.shape)}, on "
                           f"{x.device})")
    with no_grad():
        w = x.detach().to(_C.float64).reshape(-1, n)
        if w.shape[0] == 0:
            return _C.zeros(tuple(x.shape[:-1]) + (num_samples,), dtype=_C.int64,
                            device=x.device)
        bad = ((w < 0) | ~w.isfinite()).sum() > 0
        empty = (w.sum(1) <= 0).sum() > 0
        bad, empty = cat([bad.reshape(1), empty.reshape(1)]).tolist()
        if bad:
            raise RuntimeError(f"multinomial(): the weights must be finite and non-negative: "
                               f"input holds a negative, NaN or infinite value (shape "
                               f"{tuple(x.shape)}, {x.dtype}, on {x.device})")
        if empty:
            raise RuntimeError(f"multinomial(): invalid distribution: a row of weights sums "
                               f"to 0 (shape {tuple(x.shape)}, on {x.device})")
        rows = w.shape[0]
        if replacement:
            cdf = cumsum(w, 1)
            u = _C.rand((rows, num_samples), dtype=_C.float64, device=x.device,
                        generator=generator)
            out = searchsorted(cdf, u * cdf[:, n - 1:], right=True).clamp(max=n - 1)
        else:
            e = -(1.0 - _C.rand((rows, n), dtype=_C.float64, device=x.device,
                                 generator=generator)).log()
            out = topk(e / w, num_samples, 1, largest=False).indices
    return out.reshape(-1) if x.ndim == 1 else out


_C.Tensor.multinomial = multinomial
__all__ = ["multinomial"]
