"""nn.utils: gradient clipping, as ``torch.nn.utils`` (the RNN chapter of Dive into Deep
Learning clips its gradients), composed from the package's ops so that it runs on every
device; parameters_to_vector and vector_to_parameters (convert_parameters.py); and the
variable-length sequences of ``nn.utils.rnn`` (rnn.py); the conv/linear and BatchNorm
fusions of ``nn.utils.fusion`` (fusion.py); ``nn.utils.parametrize`` and
``nn.utils.parametrizations`` (parametrize.py, parametrizations.py); the pruning of
``nn.utils.prune`` (prune.py).

clip_grad_norm_ is get_total_norm followed by clip_grads_with_norm_ (PyTorch 2.6's
halves of it).  It computes each gradient's norm on its own device, stacks a device's
norms and copies that vector (one counted copy per device other than the first
gradient's) to the first gradient's device, where the total norm is taken; the
scaling factor goes back to each device (one more counted copy each).  With every
gradient on one device nothing is copied.  Both functions change the gradients in
place and only once everything that can fail has been computed: on an error no
gradient has changed.
"""
from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Iterable
from typing import Union

from ... import _C
from ... import linalg as _linalg
from ..._ops_join import cat as _cat, stack as _stack
from ..._ops_stats import isfinite as _isfinite
from ...autograd.grad_mode import no_grad as _no_grad
from . import rnn  # nn.utils.rnn, as torch's
from . import parametrizations, parametrize  # nn.utils.parametrize(ations), as torch's
from . import stateless  # nn.utils.stateless.functional_call, as torch's
from . import fusion  # nn.utils.fusion, as torch's
from . import prune  # nn.utils.prune, as torch's
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,
                     fuse_linear_bn_weights)
from .convert_parameters import _tensor_list, parameters_to_vector, vector_to_parameters
from . import memory_format  # nn.utils.memory_format, as torch's
from .memory_format import (convert_conv2d_weight_memory_format,
                            convert_conv3d_weight_memory_format)
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad", "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_",
           "clip_grads_with_norm_",
           "convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format",
           "get_total_norm", "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights", "fusion", "memory_format", "parameters_to_vector",
           "parametrizations", "parametrize", "prune", "remove_spectral_norm", "remove_weight_norm",
           "rnn", "skip_init", "spectral_norm", "vector_to_parameters", "weight_norm"]

_Parameters = Union[_C.Tensor, Iterable[_C.Tensor]]


def _gradients(parameters, where):
    """The .grad of each parameter that has one (a single Tensor is one parameter)."""
    return [p.grad for p in _tensor_list(parameters, where, "parameters")
            if p.grad is not None]


def _limit(value, name, where):
    """value as a float, when it is a number >= 0 (inf allowed), or a one-element
    Tensor holding one (PyTorch takes those; a GPU's is read back, a counted copy)."""
    if isinstance(value, _C.Tensor) and value.numel() == 1 and value.dtype != _C.bool:
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where}: {name} must be a number, got {type(value).__name__}")
    if not value >= 0:
        raise ValueError(f"{where}: {name} must be >= 0, got {value}")
    return float(value)


def _norm_order(norm_type, where):
    """norm_type as a float: a number or 'inf' (not NaN)."""
    if isinstance(norm_type, bool) or not isinstance(norm_type, (numbers.Real, str)):
        raise TypeError(f"{where}: norm_type must be a number, got {type(norm_type).__name__}")
    try:
        order = float(norm_type)
    except ValueError:
        raise ValueError(f"{where}: norm_type must be a number or 'inf', got "
                         f"{norm_type!r}") from None
    if math.isnan(order):
        raise ValueError(f"{where}: norm_type must be a number, got nan")
    return order


def _floating(tensors, where):
    """The promoted dtype of tensors, all floating point (TypeError naming one that is
    not)."""
    dtype = tensors[0].dtype
    for g in tensors:
        if not g.is_floating_point():
            raise _C.DTypeError(f"{where}: gradients must be floating point, got {g.dtype} of "
                                f"shape {tuple(g.shape)} on {g.device}")
        dtype = _C.promote_types(dtype, g.dtype)
    return dtype


def _total_norm(grads, order, error_if_nonfinite, where):
    """The norm of order order of every tensor of grads joined into one vector, on the
    first one's device (see the module's docstring)."""
    if not grads:
        return _C.tensor(0.0)
    dtype = _floating(grads, where)
    first = grads[0].device
    by_device: dict[_C.device, list[_C.Tensor]] = {}
    for g in grads:
        by_device.setdefault(g.device, []).append(_linalg.vector_norm(g, order).to(dtype))
    parts = [_stack(norms).to(first) for norms in by_device.values()]
    total = _linalg.vector_norm(_cat(parts) if len(parts) > 1 else parts[0], order)
    if error_if_nonfinite and not _isfinite(total).item():
        raise RuntimeError(f"{where}: the total norm of order {order} of the gradients is "
                           f"{total.item()} (on {first}), which cannot be clipped; "
                           f"error_if_nonfinite=False scales by it anyway")
    return total


def _scale_by_norm(grads, max_norm, total, where):
    """Multiplies grads in place by min(1, max_norm / (total + 1e-6)); every copy of the
    factor is made, and every check passed, before any gradient changes."""
    if not grads:
        return
    _floating(grads, where)
    coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
    scales = {g.device: None for g in grads}  # the devices, in order
    scales = {d: coef.to(d) for d in scales}
    for g in grads:
        g.mul_(scales[g.device])


@_no_grad()
def get_total_norm(tensors: _Parameters, norm_type: float | str = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> _C.Tensor:
    """The norm of the vector of every tensor's norm (the norm of all the tensors joined
    into one vector), as PyTorch's ``get_total_norm`` (2.6): the first half of
    ``clip_grad_norm_``, given the gradients themselves.

    Each tensor's norm is computed on its own device and the total on the first
    tensor's (see the module's docstring for the copies when the tensors are on
    several devices).

    Parameters
    ----------
    tensors : Tensor or iterable of Tensor
        The tensors (``[p.grad for p in net.parameters() if p.grad is not None]``),
        or a single one.
    norm_type : float or 'inf', optional
        The order of the norms (default 2); ``float('inf')`` gives the largest
        absolute value.
    error_if_nonfinite : bool, optional
        Raise when the total norm is NaN or infinite (default False; checking it is a
        copy to the host on a GPU).
    foreach : None, optional
        Accepted for PyTorch's signature.

    Returns
    -------
    Tensor
        The total norm, 0-d, on the first tensor's device, of their promoted dtype;
        ``tensor(0.)`` for no tensors.

    Raises
    ------
    TypeError
        When tensors are not Tensors, or not floating point, or norm_type is not a
        number.
    ValueError
        When norm_type is NaN or a string other than 'inf'.
    RuntimeError
        With error_if_nonfinite, when the total norm is NaN or infinite.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.utils.get_total_norm([pydevtensor.tensor([3.]), pydevtensor.tensor([4.])])
    tensor(5.)
    >>> nn.utils.get_total_norm(pydevtensor.tensor([-3., 2.]), norm_type='inf')
    tensor(3.)
    """
    where = "get_total_norm()"
    order = _norm_order(norm_type, where)
    return _total_norm(_tensor_list(tensors, where, "tensors"), order, error_if_nonfinite,
                       where)


@_no_grad()
def clip_grads_with_norm_(parameters: _Parameters, max_norm: float, total_norm: _C.Tensor,
                          foreach: bool | None = None) -> None:
    """Scales the gradients in place by ``min(1, max_norm / (total_norm + 1e-6))``, as
    PyTorch's ``clip_grads_with_norm_`` (2.6): the second half of ``clip_grad_norm_``,
    given a total norm (from ``get_total_norm``, say).

    Parameters whose ``.grad`` is None are skipped.  The factor is computed where
    total_norm is and copied to each gradient's device (a counted copy for each other
    device) before any gradient changes.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
        The parameters (``net.parameters()``), or a single one.
    max_norm : float
        The largest total norm allowed (>= 0).
    total_norm : Tensor or float
        The total norm of the gradients.
    foreach : None, optional
        Accepted for PyTorch's signature; each gradient is scaled by one in-place op.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When parameters are not Tensors, max_norm or total_norm is not a number (or a
        one-element tensor), or a gradient is not floating point.
    ValueError
        When max_norm is negative or NaN.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> w = nn.Parameter(pydevtensor.tensor([3., 4.]))
    >>> w.grad = pydevtensor.tensor([3., 4.])
    >>> total = nn.utils.get_total_norm([w.grad])
    >>> nn.utils.clip_grads_with_norm_([w], max_norm=1.0, total_norm=total)
    >>> w.grad
    tensor([0.6000, 0.8000])
    """
    where = "clip_grads_with_norm_()"
    max_norm = _limit(max_norm, "max_norm", where)
    if isinstance(total_norm, _C.Tensor):
        if total_norm.numel() != 1 or not total_norm.is_floating_point():
            raise TypeError(f"{where}: total_norm must be a number or a one-element "
                            f"floating-point tensor, got a {total_norm.dtype} tensor of shape "
                            f"{tuple(total_norm.shape)} on {total_norm.device}")
        total = total_norm.reshape(())
    elif isinstance(total_norm, numbers.Real) and not isinstance(total_norm, bool):
        total = _C.tensor(float(total_norm))
    else:
        raise TypeError(f"{where}: total_norm must be a number or a one-element tensor, got "
                        f"{type(total_norm).__name__}")
    _scale_by_norm(_gradients(parameters, where), max_norm, total, where)


@_no_grad()
def clip_grad_norm_(parameters: _Parameters, max_norm: float, norm_type: float | str = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> _C.Tensor:
    """Scales the gradients in place so that their total norm is at most max_norm, as
    PyTorch's ``clip_grad_norm_``: the total norm is the norm of the vector of every
    gradient's norm (the norm of all gradients joined into one vector), and each
    gradient is multiplied by ``min(1, max_norm / (total + 1e-6))``.

    Parameters whose ``.grad`` is None are skipped.  The total is computed on the
    first gradient's device (see the module's docstring for the copies when the
    gradients are on several devices).

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
        The parameters (``net.parameters()``), or a single one.
    max_norm : float
        The largest total norm allowed (>= 0).
    norm_type : float or 'inf', optional
        The order of the norms (default 2); ``float('inf')`` gives the largest
        absolute value.
    error_if_nonfinite : bool, optional
        Raise instead of scaling when the total norm is NaN or infinite (default False;
        checking it is a copy to the host on a GPU).
    foreach : None, optional
        Accepted for PyTorch's signature; each gradient is scaled by one in-place op.

    Returns
    -------
    Tensor
        The total norm before clipping, 0-d, on the first gradient's device, of their
        promoted dtype; ``tensor(0.)`` when no parameter has a gradient.

    Raises
    ------
    TypeError
        When parameters are not Tensors, a number is not one, or a gradient is not
        floating point.
    ValueError
        When max_norm is negative or NaN, or norm_type is not a number.
    RuntimeError
        With error_if_nonfinite, when the total norm is NaN or infinite.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> w = nn.Parameter(pydevtensor.tensor([3., 4.]))
    >>> w.grad = pydevtensor.tensor([3., 4.])
    >>> nn.utils.clip_grad_norm_([w], max_norm=1.0)
    tensor(5.)
    >>> w.grad
    tensor([0.6000, 0.8000])
    """
    where = "clip_grad_norm_()"
    max_norm = _limit(max_norm, "max_norm", where)
    order = _norm_order(norm_type, where)
    grads = _gradients(parameters, where)
    total = _total_norm(grads, order, error_if_nonfinite, where)
    _scale_by_norm(grads, max_norm, total, where)
    return total


def clip_grad_norm(parameters: _Parameters, max_norm: float, norm_type: float | str = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> _C.Tensor:
    """PyTorch's deprecated name of :func:`clip_grad_norm_`: warns a FutureWarning, then
    calls it with the same arguments.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
        As ``clip_grad_norm_``.
    max_norm : float
        As ``clip_grad_norm_``.
    norm_type : float or 'inf', optional
        As ``clip_grad_norm_`` (default 2).
    error_if_nonfinite : bool, optional
        As ``clip_grad_norm_`` (default False).
    foreach : None, optional
        As ``clip_grad_norm_``.

    Returns
    -------
    Tensor
        The total norm before clipping.

    Examples
    --------
    >>> import warnings
    >>> from pydevtensor import nn
    >>> w = nn.Parameter(pydevtensor.zeros(2))
    >>> w.grad = pydevtensor.tensor([6., 8.])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     total = nn.utils.clip_grad_norm(w, 5.0)
    >>> total, w.grad, caught[0].category.__name__
    (tensor(10.), tensor([3.0000, 4.0000]), 'FutureWarning')
    """
    warnings.warn("`nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad()
def clip_grad_value_(parameters: _Parameters, clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamps every gradient in place to [-clip_value, clip_value], as PyTorch's
    ``clip_grad_value_``; parameters whose ``.grad`` is None are skipped.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
        The parameters (``net.parameters()``), or a single one.
    clip_value : float
        The largest absolute value a gradient element keeps (>= 0).
    foreach : None, optional
        Accepted for PyTorch's signature; each gradient is clamped by one in-place op.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When parameters are not Tensors or clip_value is not a number.
    ValueError
        When clip_value is negative or NaN.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> w = nn.Parameter(pydevtensor.tensor([1., 2.]))
    >>> w.grad = pydevtensor.tensor([-3., 0.25])
    >>> nn.utils.clip_grad_value_(w, 0.5)
    >>> w.grad
    tensor([-0.5000,  0.2500])
    """
    where = "clip_grad_value_()"
    clip_value = _limit(clip_value, "clip_value", where)
    for g in _gradients(parameters, where):
        g.clamp_(-clip_value, clip_value)


def skip_init(module_cls: type, *args, **kwargs):
    """``module_cls(*args, **kwargs)``, whose parameters and buffers are to be treated as
    not set (initialise or load them next), as PyTorch's: module_cls must take a device
    argument.  PyTorch builds the module on its meta device and allocates it empty;
    pydevtensor has no meta device, so the module is built on device (default 'cpu')
    and its usual initialisation runs: its values are defined, not skipped.

    Parameters
    ----------
    module_cls : type
        A subclass of nn.Module whose constructor takes device=.
    *args, **kwargs
        Its arguments (device: where the module goes, default 'cpu').

    Returns
    -------
    Module

    Raises
    ------
    RuntimeError
        When module_cls is not a Module class or does not take a device argument
        (PyTorch's errors).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> lin = nn.utils.skip_init(nn.Linear, 2, 3)
    >>> lin.weight.shape, lin.weight.device
    (pydevtensor.Size([3, 2]), device(type='cpu'))
    """
    import inspect

    from ..module import Module
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"skip_init(): Expected a Module; got {module_cls!r:.60}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError(f"skip_init(): Module must support a 'device' arg to skip "
                           f"initialization ({module_cls.__name__} takes none)")
    kwargs.setdefault("device", "cpu")
    return module_cls(*args, **kwargs)


from . import clip_grad  # noqa: E402  (torch.nn.utils.clip_grad: the functions above)
