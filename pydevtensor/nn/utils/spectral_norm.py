"""Spectral normalisation (Miyato et al., 2018) as ``torch.nn.utils.spectral_norm``: a
parameter w is used as ``w / sigma``, sigma its largest singular value (of w reshaped to
a matrix with dimension dim first), estimated by power iteration with vectors u and v
kept as buffers and refined by n_power_iterations steps before each forward in training.
The trained parameter is ``<name>_orig``; ``remove_spectral_norm`` folds sigma back.
"""
from __future__ import annotations

from typing import Any

from ... import linalg as _linalg
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..module import Module
from ..parameter import Parameter
from .weight_norm import _find_hook, _parameter_to_wrap, _unchanged_on_error, _unwrap

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "remove_spectral_norm", "spectral_norm"]


class SpectralNorm:
    """The forward pre-hook that spectral_norm registers (PyTorch's class of that name):
    before each call it sets ``module.<name>`` to ``<name>_orig / sigma``.

    Parameters
    ----------
    name : str, optional
        The parameter (default 'weight').
    n_power_iterations : int, optional
        Steps per forward in training (default 1, > 0).
    dim : int, optional
        The dimension that becomes the matrix's rows (default 0).
    eps : float, optional
        Guards the normalizations (default 1e-12).

    Raises
    ------
    ValueError
        When n_power_iterations is not positive.

    Examples
    --------
    >>> from pydevtensor.nn.utils.spectral_norm import SpectralNorm
    >>> fn = SpectralNorm("weight", dim=1)
    >>> tuple(fn.reshape_weight_to_matrix(pydevtensor.ones(2, 3, 4)).shape)
    (3, 8)
    """

    _version = 1  # what state_dict's metadata records (PyTorch's: 1 since its 1.0)

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

    def _solve_v_and_rescale(self, weight_mat: Any, u: Any, target_sigma: Any) -> Any:
        # a v with u = normalize(W v) and u^T W v = target_sigma (pinv: W^T W may be
        # singular), for a checkpoint saved before v was kept (PyTorch's)
        v = (_linalg.pinv(weight_mat.t() @ weight_mat) @ (weight_mat.t() @ u))
        return v.mul_(target_sigma / u.dot(weight_mat.mv(v)))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int,
              eps: float) -> "SpectralNorm":
        """Normalises ``module.<name>`` (what spectral_norm does, dim given) and returns
        the hook.

        Parameters
        ----------
        module : nn.Module
            Changed in place.
        name : str
            The parameter.
        n_power_iterations : int
            Steps per forward in training (> 0).
        dim : int
            The dimension that becomes the matrix's rows.
        eps : float
            Guards the normalizations.

        Returns
        -------
        SpectralNorm
            The forward pre-hook registered on module.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> from pydevtensor.nn.utils.spectral_norm import SpectralNorm
        >>> lin = nn.Linear(4, 3)
        >>> SpectralNorm.apply(lin, "weight", 1, 0, 1e-12).name
        'weight'
        >>> sorted(lin.state_dict())
        ['bias', 'weight_orig', 'weight_u', 'weight_v']
        """
        weight = _parameter_to_wrap(module, SpectralNorm, name, "spectral_norm",
                                    "SpectralNorm", "spectral normalization")
        if not -weight.ndim <= dim < weight.ndim:  # else permute's error (PyTorch's too)
            raise IndexError(f"spectral_norm(): dim {dim} is out of range for a parameter of "
                             f"shape {tuple(weight.shape)} (expected to be in range of "
                             f"[-{weight.ndim}, {weight.ndim - 1}])")
        fn = SpectralNorm(name, n_power_iterations, dim % weight.ndim, eps)
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=eps)
        with _unchanged_on_error(module, name):
            del module._parameters[name]
            module.register_parameter(name + "_orig", weight)
            setattr(module, name, weight.detach())
            module.register_buffer(name + "_u", u)
            module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn

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
    IndexError
        When dim is out of range for the parameter (a negative dim counts from the
        end).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> m = nn.utils.spectral_norm(nn.Linear(4, 3))
    >>> sorted(n for n, _ in m.named_parameters()), sorted(n for n, _ in m.named_buffers())
    (['bias', 'weight_orig'], ['weight_u', 'weight_v'])
    """
    if dim is None:  # the transposed convolutions' output channels are dimension 1
        from ..conv_transpose import _ConvTransposeNd
        dim = 1 if isinstance(module, _ConvTransposeNd) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


class SpectralNormStateDictHook:
    """spectral_norm's state-dict hook: it records the format's version in the state
    dict's metadata (``{'spectral_norm': {'<name>.version': 1}}``), as PyTorch's.

    Parameters
    ----------
    fn : SpectralNorm
        The module's hook.

    Raises
    ------
    RuntimeError
        When the metadata already holds that version.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> sd = nn.utils.spectral_norm(nn.Linear(4, 3)).state_dict()
    >>> sd._metadata[""]["spectral_norm"]
    {'weight.version': 1}
    """

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module: Module, state_dict: Any, prefix: str,
                 local_metadata: dict) -> None:
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


class SpectralNormLoadStateDictPreHook:
    """spectral_norm's load pre-hook, as PyTorch's: a state dict without the version
    (saved before PyTorch 1.0, with ``<name>`` = ``<name>_orig / sigma`` and no
    ``<name>_v``) gets a ``<name>_v`` that gives the same sigma with its ``<name>_u``.
    A state dict without metadata that holds ``<name>_orig``, ``_u`` and ``_v`` and no
    ``<name>`` loads as it is.

    Parameters
    ----------
    fn : SpectralNorm
        The module's hook.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> old = nn.utils.spectral_norm(nn.Linear(4, 3))
    >>> sd = dict(old.state_dict())  # no metadata: the old format's
    >>> sd["weight"] = old.weight_orig.detach() / 2.0
    >>> new = nn.utils.spectral_norm(nn.Linear(4, 3))
    >>> new.load_state_dict(sd)
    <All keys matched successfully>
    >>> tuple(new.eval()(pydevtensor.zeros(1, 4)).shape)
    (1, 3)
    """

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, state_dict: Any, prefix: str, local_metadata: dict, strict: bool,
                 missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        key = prefix + fn.name
        if version is None and key not in state_dict and all(
                key + s in state_dict for s in ("_orig", "_u", "_v")):
            return  # today's keys without the metadata (a dict made by hand)
        if any(key + s not in state_dict for s in ("_orig", "", "_u")):
            return  # the load reports what is missing
        with no_grad():
            weight_orig = state_dict[key + "_orig"]
            sigma = (weight_orig / state_dict.pop(key)).mean()
            u = state_dict[key + "_u"]
            state_dict[key + "_v"] = fn._solve_v_and_rescale(
                fn.reshape_weight_to_matrix(weight_orig), u, sigma)


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Folds spectral_norm's division back into the parameter name and removes its hook,
    its buffers and its state-dict hooks (so that spectral_norm may be applied again).

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
    found = _find_hook(module, SpectralNorm, name)
    _unwrap(module, SpectralNorm, name, "spectral_norm")
    fn = found[1] if found is not None else None  # (_unwrap raised if there was none)
    for table, kind in (("_state_dict_hooks", SpectralNormStateDictHook),
                        ("_load_state_dict_pre_hooks", SpectralNormLoadStateDictPreHook)):
        hooks = module.__dict__.get(table) or {}
        for key in [key for key, hook in hooks.items()  # a pre-hook sits in a wrapper
                    if isinstance(getattr(hook, "hook", hook), kind)
                    and getattr(hook, "hook", hook).fn is fn]:
            del hooks[key]
    return module
