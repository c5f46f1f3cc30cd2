"""pydevtensor.autograd: reverse-mode automatic differentiation with PyTorch's meaning.

``x.requires_grad_()``, ops record how results were made (``y.grad_fn``),
``loss.backward()`` accumulates into the leaves' ``.grad``; ``no_grad()``,
``enable_grad()``, ``set_grad_enabled()``; ``autograd.grad(outputs, inputs)``.  Where the
graph is recorded and what that costs: Note [where the graph is recorded] in
csrc/python/autograd.c.  Files: grad_mode.py (the thread-local switch), node.py (Node,
AccumulateGrad, saved tensors), dispatch.py (the recorder and in-place ops),
derivatives.py, derivatives_shape.py, derivatives_index.py and derivatives_join.py (one
Node class per op), engine.py (backward).
"""
from .. import _C
from . import derivatives, derivatives_shape  # noqa: F401  (they register the Node classes)
from . import derivatives_index, derivatives_join  # noqa: F401
from .dispatch import dispatch as _dispatch
from .engine import run_backward as _run_backward
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .node import Node

__all__ = ["Node", "backward", "enable_grad", "grad", "is_grad_enabled", "no_grad",
           "set_grad_enabled"]


def _as_tuple(x):
    if x is None:
        return None
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _check_create_graph(create_graph):
    if create_graph:
        raise NotImplementedError("create_graph=True (higher-order gradients) is not supported "
                                  "by pydevtensor's autograd")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates d(tensors)/d(leaf) into each leaf's .grad (as torch.autograd.backward)."""
    _check_create_graph(create_graph)
    tensors = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) or (None,) * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(grads)} gradients for {len(tensors)} tensors")
    inputs = _as_tuple(inputs)
    _run_backward(tensors, grads, bool(retain_graph), inputs=inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=False):
    """The gradients of outputs with respect to inputs, as a tuple; .grad is left alone."""
    _check_create_graph(create_graph)
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    grads = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad(): got {len(grads)} grad_outputs for {len(outputs)} outputs")
    result = _run_backward(outputs, grads, bool(retain_graph), inputs=inputs, accumulate=False,
                           where="grad()")
    for k, g in enumerate(result):
        if g is None and not allow_unused:
            raise RuntimeError(f"One of the differentiated Tensors (input {k}) appears to not "
                               "have been used in the graph. Set allow_unused=True if this is "
                               "the desired behavior.")
    return tuple(result)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Computes the gradient of this tensor with respect to the graph's leaves and adds
    it into their .grad; gradient is required unless the tensor has one element."""
    backward((self,), None if gradient is None else (gradient,), retain_graph, create_graph,
             inputs)


def _retain_grad(self):
    raise NotImplementedError("retain_grad() is not supported by pydevtensor's autograd; use "
                              "autograd.grad(output, tensor) to get a non-leaf's gradient")


_C.Tensor.backward = _tensor_backward
_C.Tensor.retain_grad = _retain_grad
_C._set_autograd_dispatcher(_dispatch)
