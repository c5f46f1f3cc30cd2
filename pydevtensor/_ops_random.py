"""Random functions written on the C extension's generators (randn, normal_): normal."""
from numbers import Real

from . import _C
from ._ops_index import _broadcast_shape
from .autograd import no_grad
from .autograd.dispatch import _wants_grad, derivative, record
from .autograd.derivatives import zeros_of
from .autograd.node import Node

__all__ = ["normal"]


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None,
           requires_grad=False):
    """Samples of the normal distribution N(mean, std^2), as PyTorch's ``torch.normal``:
    numbers for mean and std with a ``size``, or tensors for either (the result has their
    broadcast shape, mean's dtype, and lives on their device).  The samples are
    ``randn``'s, from its Philox stream: one seed gives the same samples on every device,
    as randn's do.  The result takes no gradient from mean or std (PyTorch's is zero),
    and does not require grad unless requires_grad says so.

    Parameters
    ----------
    mean : float or Tensor, optional
        The means (default 0).
    std : float or Tensor, optional
        The standard deviations, at least 0 (default 1).
    size : int or sequence of ints, optional
        The shape, when mean and std are both numbers (then it is required).
    generator : Generator, optional
        The stream to draw from (default: the default generator).
    dtype : pydevtensor.dtype, optional
        With numbers only: the element type (default: get_default_dtype()).
    device : str or pydevtensor.device, optional
        With numbers only: where the result lives (default: the default device).
    requires_grad : bool, optional
        Whether autograd records operations on the result.
    out : Tensor, optional
        Written with the samples and returned: a floating dtype of any width, which the
        samples are drawn in (a dtype= that differs is refused), on the result's device,
        of its shape or with no elements (then given it).  Refused when mean or std
        requires grad.

    Returns
    -------
    Tensor

    Raises
    ------
    TypeError
        Numbers without a size, a size with a tensor, or an integer tensor.
    ValueError
        A negative or NaN number std, or shapes of mean and std that do not broadcast
        (an InvalidArgumentError: a RuntimeError too, as PyTorch's).
    RuntimeError
        mean and std on two devices, or a tensor std with an element < 0 or NaN (as
        PyTorch, this reads one bool back from std's device).

    Examples
    --------
    >>> _ = pydevtensor.manual_seed(0)
    >>> x = pydevtensor.normal(2.0, 0.5, (1000,))
    >>> x.shape, abs(x.mean().item() - 2.0) < 0.1
    (pydevtensor.Size([1000]), True)
    >>> pydevtensor.normal(pydevtensor.zeros(2, 3), 1.0).shape
    pydevtensor.Size([2, 3])
    """
    if out is not None:
        return _normal_out(mean, std, size, generator, out, dtype, device)
    tensors = [v for v in (mean, std) if isinstance(v, _C.Tensor)]
    for name, v in (("mean", mean), ("std", std)):
        if isinstance(v, _C.Tensor):
            if not v.is_floating_point():
                raise _C.DTypeError(f"normal(): {name} must be a floating-point tensor, got "
                                    f"{v.dtype}")
        elif isinstance(v, bool) or not isinstance(v, Real):
            raise TypeError(f"normal(): {name} must be a number or a Tensor, got "
                            f"{type(v).__name__}")
    if not isinstance(std, _C.Tensor) and not std >= 0:  # NaN too
        raise _C.InvalidArgumentError(f"normal(): normal expects std >= 0.0, but found std "
                                      f"{std}")
    if isinstance(std, _C.Tensor) and std.numel() and not bool((std.detach() >= 0).all()):
        raise _C.InvalidArgumentError(f"normal(): normal expects all elements of std >= 0.0 (std of "
                           f"shape {tuple(std.shape)} on {std.device})")
    if not tensors:
        if size is None:
            raise TypeError("normal(): with a number mean and std, give the size: "
                            "normal(mean, std, size), e.g. normal(0.0, 1.0, (2, 3))")
        out = _C.empty(size, dtype=dtype, device=device).normal_(float(mean), float(std),
                                                                generator=generator)
    else:
        if size is not None or dtype is not None or device is not None:
            raise TypeError("normal(): size, dtype and device are for a number mean and std; "
                            "with a tensor the result takes its shape, dtype and device")
        if len(tensors) == 2 and mean.device != std.device:
            raise _C.DeviceError(f"normal(): Expected all tensors to be on the same device, but "
                                 f"found at least two devices, {mean.device} and {std.device} "
                                 f"(mean and std)")
        like = tensors[0]  # mean's dtype when it is a tensor, as PyTorch's
        wide = _C.promote_types(like.dtype, _C.float32)  # half types: rounded once, at the end
        shapes = [tuple(t.shape) for t in tensors]
        try:
            shape = _broadcast_shape(*shapes)
        except ValueError as err:  # a ValueError and PyTorch's RuntimeError
            raise _C.InvalidArgumentError(f"normal(): the shapes of mean and std, {shapes}, do "
                                          f"not broadcast ({err})") from None
        with no_grad():
            out = (_C.randn(shape, dtype=wide, device=like.device, generator=generator) * std
                   + mean).to(like.dtype)
        if _wants_grad((mean, std), None):
            out = record(NormalBackward3, out, (mean, std), {})
    if requires_grad:
        out.requires_grad_()
    return out


def _normal_out(mean, std, size, generator, out, dtype, device):
    """normal(..., out=out), as PyTorch's: the samples drawn in out's floating dtype."""
    from ._out import _out_written, refuse_grad
    if not isinstance(out, _C.Tensor):
        raise TypeError(f"normal(): out must be a Tensor, got {type(out).__name__}")
    if not out.is_floating_point():
        raise _C.DTypeError(f"normal(): out must have a floating dtype, got {out.dtype} "
                            f"(shape {tuple(out.shape)}, on {out.device})")
    if dtype is not None and dtype != out.dtype:
        raise _C.DTypeError(f"normal(): dtype {dtype} does not match the dtype of out "
                            f"({out.dtype}, on {out.device})")
    refuse_grad("normal", mean, std, out)
    if isinstance(mean, _C.Tensor) or isinstance(std, _C.Tensor):
        # mean's dtype decides the draw's; the samples are then written in out's
        result = normal(mean, std, size, generator=generator)
    else:
        result = normal(mean, std, size, generator=generator, dtype=out.dtype,
                        device=out.device if device is None else device)
    return _out_written(result.to(out.dtype), out, "normal")



@derivative("normal")
class NormalBackward3(Node):
    """normal(mean, std) with tensors that require grad: the result is recorded, with
    zero gradients for mean and std, as PyTorch's (a draw, not reparameterised: write
    ``mean + std * randn_like(std)`` for a gradient through it)."""
    zero_grad_inputs = (0, 1)

    def save(self, result, mean, std):
        self.metas = [(tuple(t.shape), t.dtype, t.device) if isinstance(t, _C.Tensor) else None
                      for t in (mean, std)]
        return mean, std

    def backward(self, g):
        need = self.needs_input_grad
        return tuple(zeros_of(m) if n else None for m, n in zip(self.metas, need))
