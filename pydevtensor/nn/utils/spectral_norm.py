"""Spectral normalisation (Miyato et al., 2018) as ``torch.nn.utils.spectral_norm``: a
parameter w is used as ``w / sigma``, sigma its largest singular value (of w reshaped to
a matrix with dimension dim first), estimated by power iteration with vectors u and v
kept as buffers and refined by n_power_iterations steps before each forward in training.
The trained parameter is ``<name>_orig``; ``remove_spectral_norm`` folds sigma back.
"""
from __future__ import annotations

from typing import Any

from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..module import Module
from ..parameter import Parameter
from .weight_norm import _parameter_to_wrap, _unwrap

__all__ = ["remove_spectral_norm", "spectral_norm"]


class SpectralNorm:
    """The forward pre-hook that spectral_norm registers."""

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.dim, self.eps = name, dim, eps
        self.n_power_iterations = n_power_iterations

    def reshape_weight_to_matrix(self, weight: Any) -> Any:
        """weight as (shape[dim], the rest), dimension dim first."""
        if self.dim != 0:
            order = [self.dim] + [d for d in range(weight.ndim) if d != self.dim]
            weight = weight.permute(*order)
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Any:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(mat.t().mv(u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(mat.mv(v), dim=0, eps=self.eps))
            u, v = u.clone(), v.clone()  # the ones this forward used, kept for backward
        sigma = u.dot(mat.mv(v))
        return weight / sigma

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Divides ``module.<name>`` by its spectral norm before each forward, as PyTorch's
    ``nn.utils.spectral_norm`` (GANs' discriminators): the parameter becomes
    ``<name>_orig``, the power iteration's vectors the buffers ``<name>_u`` and
    ``<name>_v`` (random unit vectors at first), refined in training only.

    Parameters
    ----------
    module : nn.Module
        The module whose parameter is normalised (changed in place).
    name : str, optional
        The parameter (default 'weight').
    n_power_iterations : int, optional
        Power-iteration steps per forward in training (default 1).
    eps : float, optional
        The smallest norm divided by when normalising u and v (default 1e-12).
    dim : int, optional
        The dimension that becomes the matrix's rows (default 0, or 1 for the
        ConvTranspose layers, their output channels).

    Returns
    -------
    nn.Module
        module.

    Raises
    ------
    RuntimeError
        When the parameter is already spectrally normalised.
    ValueError
        When n_power_iterations is not positive or the parameter is uninitialized or
        None.
    KeyError
        When module has no parameter called name (also an AttributeError), as
        PyTorch's.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> m = nn.utils.spectral_norm(nn.Linear(4, 3))
    >>> sorted(n for n, _ in m.named_parameters()), sorted(n for n, _ in m.named_buffers())
    (['bias', 'weight_orig'], ['weight_u', 'weight_v'])
    """
    weight = _parameter_to_wrap(module, SpectralNorm, name, "spectral_norm", "SpectralNorm",
                                "spectral normalization")
    if dim is None:  # the transposed convolutions' output channels are dimension 1
        from ..conv_transpose import _ConvTransposeNd
        dim = 1 if isinstance(module, _ConvTransposeNd) else 0
    fn = SpectralNorm(name, n_power_iterations, dim, eps)
    with no_grad():
        h, w = fn.reshape_weight_to_matrix(weight).shape
        u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=eps)
        v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=eps)
    del module._parameters[name]
    module.register_parameter(name + "_orig", weight)
    setattr(module, name, weight.detach())
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(fn)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Folds spectral_norm's division back into the parameter name and removes its hook
    and buffers.

    Parameters
    ----------
    module : nn.Module
        A module spectral_norm was applied to (changed in place).
    name : str, optional
        The parameter (default 'weight').

    Returns
    -------
    nn.Module
        module.

    Raises
    ------
    ValueError
        When name is not spectrally normalised in module.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> m = nn.utils.remove_spectral_norm(nn.utils.spectral_norm(nn.Linear(4, 3)))
    >>> sorted(n for n, _ in m.named_parameters())
    ['bias', 'weight']
    """
    return _unwrap(module, SpectralNorm, name, "spectral_norm")
