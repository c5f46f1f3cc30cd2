"""func.stack_module_state, as ``torch.func.stack_module_state``: the parameters and
buffers of several models of one class stacked along a new first dimension, for
running the ensemble with ``vmap`` over ``functional_call``."""
from __future__ import annotations

from typing import Any

from ._ops_join import stack as _stack

__all__ = ["stack_module_state"]


def _stacked_leaf(tensors, name):
    """The tensors stacked; a new leaf requiring grad when they all require grad."""
    grads = {t.requires_grad for t in tensors}
    if len(grads) > 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = _stack(tensors)
    return result.detach().requires_grad_() if grads == {True} else result


def stack_module_state(models: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The parameters and the buffers of models (of one class, all in training or all
    in eval mode) stacked along a new first dimension, as
    ``torch.func.stack_module_state``.

    Parameters
    ----------
    models : sequence of Module, or ModuleList

    Returns
    -------
    tuple of dict
        ``(params, buffers)``, each mapping the names of the first model's
        ``named_parameters`` (``named_buffers``) to the models' tensors stacked, of
        shape ``(len(models),) + shape``.  Stacked parameters are new leaves that
        require grad (when the models' do), not in the models' graphs.

    Raises
    ------
    RuntimeError
        When models is empty, mixes training and eval mode or classes, or a
        parameter requires grad in some models only.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.func import functional_call, stack_module_state, vmap
    >>> models = [nn.Linear(3, 2) for _ in range(4)]
    >>> params, buffers = stack_module_state(models)
    >>> tuple(params["weight"].shape), params["weight"].requires_grad
    ((4, 2, 3), True)
    >>> base = models[0]
    >>> ensemble = vmap(lambda p, b, x: functional_call(base, (p, b), (x,)),
    ...                 in_dims=(0, 0, None))
    >>> tuple(ensemble(params, buffers, pydevtensor.ones(5, 3)).shape)
    (4, 5, 2)
    """
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({bool(m.training) for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    out = []
    for named in ("named_parameters", "named_buffers"):
        every = [dict(getattr(m, named)()) for m in models]
        out.append({k: _stacked_leaf(tuple(d[k] for d in every), k) for k in every[0]})
    return out[0], out[1]
