"""``torch.autograd.graph``'s names for looking at and marking the graph: ``Node`` (the
class of every ``grad_fn``), ``GradientEdge`` and ``get_gradient_edge`` (where a
tensor's gradient flows in), ``increment_version`` (for a custom op that changed
a tensor in place behind autograd's back), and the hooks on the tensors saved for a
backward (``saved_tensors_hooks``, ``save_on_cpu``, ``disable_saved_tensors_hooks``:
Note [saved tensors hooks] in saved_hooks.py)."""
from __future__ import annotations

from typing import NamedTuple

from .. import _C
from .node import Node, edge_of
from .saved_hooks import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks

__all__ = ["Node", "GradientEdge", "get_gradient_edge", "increment_version",
           "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]


class GradientEdge(NamedTuple):
    """Where a gradient enters the graph: the node that takes it and which of the
    node's outputs it is the gradient of (PyTorch's ``autograd.graph.GradientEdge``).

    Parameters
    ----------
    node : Node
        The node that takes the gradient.
    output_nr : int
        Which of its outputs the gradient is for.

    Examples
    --------
    >>> from pydevtensor.autograd.graph import GradientEdge
    >>> w = pydevtensor.ones(2, requires_grad=True)
    >>> e = GradientEdge((w * 2).grad_fn, 0)
    >>> e.node.name(), e.output_nr
    ('MulBackward0', 0)
    """

    node: Node
    output_nr: int


def get_gradient_edge(tensor):
    """The edge a gradient for tensor follows: its ``grad_fn`` and ``output_nr``, or for
    a leaf its ``AccumulateGrad`` and 0 (PyTorch's ``autograd.graph.get_gradient_edge``).

    Parameters
    ----------
    tensor : Tensor
        A tensor that requires grad.

    Returns
    -------
    GradientEdge

    Raises
    ------
    TypeError
        When tensor is not a Tensor.
    RuntimeError
        When tensor does not require grad.

    Examples
    --------
    >>> from pydevtensor.autograd.graph import get_gradient_edge
    >>> w = pydevtensor.ones(2, requires_grad=True)
    >>> get_gradient_edge(w).node.name()
    'AccumulateGrad'
    >>> y = w * 2
    >>> get_gradient_edge(y).node is y.grad_fn
    True
    """
    if not isinstance(tensor, _C.Tensor):
        raise TypeError(f"get_gradient_edge(): expected a Tensor, got {type(tensor).__name__}")
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that "
                           "does not require gradients")
    return GradientEdge(*edge_of(tensor))


def increment_version(tensor):
    """Bumps the version counter of tensor (or of each tensor of a sequence), as an
    in-place op does, so that a backward that saved it raises instead of reading the
    changed values (PyTorch's ``autograd.graph.increment_version``: for a custom op
    that writes into a tensor without autograd seeing it).

    Parameters
    ----------
    tensor : Tensor or sequence of Tensor

    Returns
    -------
    None

    Raises
    ------
    RuntimeError
        When tensor is neither a Tensor nor a sequence of them (PyTorch's type).

    Examples
    --------
    >>> from pydevtensor.autograd.graph import increment_version
    >>> x = pydevtensor.ones(2)
    >>> v = x._version
    >>> increment_version(x)
    >>> x._version - v
    1
    """
    tensors = (tensor,) if isinstance(tensor, _C.Tensor) else tensor
    if not isinstance(tensors, (tuple, list)) or not all(
            isinstance(t, _C.Tensor) for t in tensors):
        raise RuntimeError(f"increment_version(): expected a Tensor or a sequence of Tensors, "
                        f"got {type(tensor).__name__}")
    for t in tensors:
        t._bump_version()
