"""binomial(count, prob): PyTorch's ``torch.binomial``, on the sampler of
``distributions.Binomial`` (inversion where n * min(p, 1 - p) < 10, Hormann's BTRS
elsewhere, both on float64 uniforms of the Philox stream), so that one seed gives the
same draws on every device."""
import math

from . import _C
from ._generator import _generator_arg
from ._ops_index import _tensor_arg
from ._ops_shape import broadcast_shapes
from .autograd import no_grad

__all__ = ["binomial"]


def binomial(count, prob, generator=None):
    """Draws from the binomial distribution of each element's count and probability, as
    PyTorch's ``torch.binomial``: ``out[i] ~ Binomial(count[i], prob[i])``, the number of
    successes in count[i] trials that each succeed with probability prob[i].

    A draw takes a number of uniforms that does not grow with the count (Hormann's BTRS
    where ``count * min(p, 1 - p) >= 10``, else inversion), in float64 on the Philox
    stream, as :class:`~pydevtensor.distributions.Binomial` draws: one seed gives the
    same draws on every device.

    Parameters
    ----------
    count : Tensor
        The numbers of trials: floating point, whole and >= 0 (finite).
    prob : Tensor
        The probabilities of success, in [0, 1]: the dtype and device of count; the two
        broadcast together.
    generator : Generator, optional
        The stream to draw from (default: the default generator).

    Returns
    -------
    Tensor
        Whole numbers, of the broadcast shape, count's dtype and device; no gradient.

    Raises
    ------
    TypeError
        count or prob is not a floating-point tensor, or their dtypes differ.
    RuntimeError
        A count that is negative, not whole or not finite, or a probability outside
        [0, 1] (or NaN); the shapes do not broadcast; the devices differ.

    Examples
    --------
    >>> _ = pydevtensor.manual_seed(0)
    >>> pydevtensor.binomial(pydevtensor.tensor([0., 5., 7.]), pydevtensor.tensor([0.3, 0., 1.]))
    tensor([0., 0., 7.])
    >>> x = pydevtensor.binomial(pydevtensor.full((10000,), 20.), pydevtensor.tensor(0.25))
    >>> abs(x.mean().item() - 5.0) < 0.1
    True
    """
    n = _tensor_arg(count, "binomial", "count")
    p = _tensor_arg(prob, "binomial", "prob")
    _generator_arg("binomial()", generator)
    for name, t in (("count", n), ("prob", p)):
        if not t.is_floating_point():
            raise _C.DTypeError(f"binomial(): {name} must be a floating-point tensor, got "
                                f"{t.dtype} (shape {tuple(t.shape)}, on {t.device})")
    if n.dtype != p.dtype:
        raise _C.DTypeError(f"binomial(): count and prob must have the same dtype, got "
                            f"{n.dtype} and {p.dtype}")
    if n.device != p.device:
        raise _C.DeviceError(f"binomial(): count and prob must be on the same device, got "
                             f"{n.device} and {p.device}")
    with no_grad():
        n, p = (t.detach().to(_C.float64) for t in (n, p))
        shape = tuple(broadcast_shapes(n.shape, p.shape))
        n, p = n.expand(shape).reshape(-1), p.expand(shape).reshape(-1)
        if n.shape[0] and bool((~(n >= 0) | (n == math.inf) | (n != n.floor())).any()):
            raise RuntimeError(f"binomial(): invalid count, expected whole numbers >= 0 "
                               f"(a negative, fractional, NaN or infinite count in shape "
                               f"{tuple(count.shape)}, {count.dtype}, on {count.device})")
        if p.shape[0] and bool((~((p >= 0) & (p <= 1))).any()):
            raise RuntimeError(f"binomial(): invalid prob, expected probabilities in [0, 1] "
                               f"(one outside or NaN in shape {tuple(prob.shape)}, "
                               f"{prob.dtype}, on {prob.device})")
        from .distributions.binomial import _sample_binomial
        out = _sample_binomial(n, p, generator)
        return out.reshape(shape).to(count.dtype)
