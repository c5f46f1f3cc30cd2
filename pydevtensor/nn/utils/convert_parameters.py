"""parameters_to_vector and vector_to_parameters, as ``torch.nn.utils``: every
parameter flattened into one vector and back (for optimizers and tools that work on a
flat vector of the parameters)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ... import _C
from ..._ops_join import cat as _cat
from ...autograd.grad_mode import no_grad as _no_grad


def _tensor_list(tensors: Any, where: str, name: str) -> list:
    """tensors as a list (a single Tensor is one), each checked to be a Tensor."""
    if isinstance(tensors, _C.Tensor):
        return [tensors]
    if not isinstance(tensors, Iterable):
        raise TypeError(f"{where}: {name} must be a Tensor or an iterable of Tensors, got "
                        f"{type(tensors).__name__}")
    tensors = list(tensors)
    for t in tensors:
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{where}: {name} must be Tensors, got {type(t).__name__}")
    return tensors


def _params(parameters: Any, where: str) -> list:
    params = _tensor_list(parameters, where, "parameters")
    for p in params:
        if p.device != params[0].device:
            raise TypeError(f"{where}: Found two parameters on different devices, this is "
                            f"currently not supported ({params[0].device} and {p.device})")
    return params


def parameters_to_vector(parameters: Iterable[_C.Tensor]) -> _C.Tensor:
    """Every parameter flattened and joined into one vector, in order (differentiable).

    Parameters
    ----------
    parameters : iterable of Tensor
        The parameters (``net.parameters()``), on one device.

    Returns
    -------
    Tensor
        1-D, of the parameters' total number of elements.

    Raises
    ------
    TypeError
        When a parameter is not a Tensor, or two are on different devices.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import parameters_to_vector
    >>> parameters_to_vector(nn.Linear(3, 2).parameters()).shape
    pydevtensor.Size([8])
    """
    params = _params(parameters, "parameters_to_vector")
    return _cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec: _C.Tensor, parameters: Iterable[_C.Tensor]) -> None:
    """Makes each parameter's data the next slice of vec, viewed in its shape, as
    PyTorch's (``param.data = vec[i:i + n].view_as(param)``): the parameters then share
    vec's memory (writes to vec change them, an optimizer's steps change vec) and take
    its dtype and device.  The inverse of :func:`parameters_to_vector`; elements of vec
    beyond the parameters' total are left unused, as in PyTorch.

    Unlike PyTorch's, the parameters also share vec's version counter, so that a
    write to vec after a forward pass that saved a parameter makes its backward
    raise, where PyTorch's computes with the new values without a word.

    Parameters
    ----------
    vec : Tensor
        1-D, of at least the parameters' total number of elements.
    parameters : iterable of Tensor
        The parameters, on one device.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        When vec is not a Tensor or the parameters are on several devices.
    ValueError
        When vec is not 1-D or shorter than the parameters' total size (nothing is
        changed).
    RuntimeError
        When vec is not floating point and a parameter requires grad (nothing is
        changed; PyTorch's error).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.utils import vector_to_parameters
    >>> lin = nn.Linear(2, 1)
    >>> vec = pydevtensor.tensor([1., 2., 3.])
    >>> vector_to_parameters(vec, lin.parameters())
    >>> lin.weight.data, lin.bias.data
    (tensor([[1., 2.]]), tensor([3.]))
    >>> _ = vec.mul_(10)  # shared
    >>> lin.bias.data
    tensor([30.])
    """
    where = "vector_to_parameters"
    if not isinstance(vec, _C.Tensor):
        raise TypeError(f"{where}: expected a Tensor, but got: {type(vec).__name__}")
    params = _params(parameters, where)
    total = sum(p.numel() for p in params)
    if vec.ndim != 1 or vec.numel() < total:
        raise ValueError(f"{where}: vec must be 1-D with at least the parameters' {total} "
                         f"elements, got shape {tuple(vec.shape)} (on {vec.device})")
    if not vec.is_floating_point() and any(p.requires_grad for p in params):
        raise RuntimeError(f"{where}: vec of {vec.dtype} cannot become the data of parameters "
                           f"that require grad (data set to a tensor that requires gradients "
                           f"must be floating point)")
    start = 0
    with _no_grad():
        for p in params:
            n = p.numel()
            # detach() keeps vec's version counter: in-place writes stay seen
            p.data = vec[start:start + n].view_as(p).detach()
            start += n
