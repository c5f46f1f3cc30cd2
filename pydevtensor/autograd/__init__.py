"""pydevtensor.autograd: reverse-mode automatic differentiation with PyTorch's meaning.

``x.requires_grad_()``, ops record how results were made (``y.grad_fn``),
``loss.backward()`` accumulates into the leaves' ``.grad``; ``no_grad()``,
``enable_grad()``, ``set_grad_enabled()``; ``autograd.grad(outputs, inputs)``.  Where the
graph is recorded and what that costs: Note [where the graph is recorded] in
csrc/python/autograd.c.  Files: grad_mode.py (the thread-local switch), node.py (Node,
AccumulateGrad, saved tensors), dispatch.py (the recorder and in-place ops),
derivatives.py, derivatives_operands.py, derivatives_shape.py, derivatives_index.py,
derivatives_join.py and derivatives_linalg.py (one Node class per op), engine.py
(backward, create_graph), function.py (autograd.Function), hooks.py
(Tensor.register_hook, retain_grad), functional.py (jacobian, hessian, vjp, jvp, hvp,
vhp), forward_ad.py (forward mode: dual tensors, their tangents computed from the
reverse graph).
"""
import warnings

from .. import _C
from .._args import flag
from . import derivatives, derivatives_shape  # noqa: F401  (they register the Node classes)
from . import derivatives_operands  # noqa: F401
from . import derivatives_index, derivatives_join, derivatives_linalg  # noqa: F401
from . import derivatives_linalg_decomp  # noqa: F401
from . import derivatives_trig, views  # noqa: F401  (views installs the view regenerator)
from . import derivatives_strided  # noqa: F401
from . import hooks as _hooks
from . import dispatch as _dispatch_module, node as _node_module
from .dispatch import dispatch as _dispatch
from .engine import run_backward as _run_backward
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from . import function, functional, graph  # noqa: F401  (autograd.function.once_differentiable)
from . import forward_ad  # noqa: F401
from .function import Function, FunctionCtx
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .node import Node
from .engine_flags import (_force_original_view_tracking, is_multithreading_enabled,  # noqa: F401
                           is_view_replay_enabled, set_multithreading_enabled)
from .variable import Variable
from .anomaly_mode import (detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled,
                           set_detect_anomaly)

__all__ = ["Function", "FunctionCtx", "Node", "backward", "enable_grad", "grad", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "no_grad", "set_grad_enabled", "detect_anomaly",
           "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]
__all__ += ["Variable", "GradcheckError", "gradcheck", "gradgradcheck"]
__all__ += ["is_multithreading_enabled", "set_multithreading_enabled", "is_view_replay_enabled"]


def _as_tuple(x):
    """A tensor as a 1-tuple; any other iterable (a list, model.parameters(), a
    generator) as a tuple of its items, as PyTorch takes them."""
    if x is None:
        return None
    if isinstance(x, (tuple, list)):
        return tuple(x)
    if isinstance(x, _C.Tensor) or not hasattr(x, "__iter__"):
        return (x,)
    return tuple(x)


def _flags(retain_graph, create_graph, op):
    """(retain_graph, create_graph) as bools: retain_graph's default is create_graph, as in
    PyTorch, and a non-bool is refused by name (as PyTorch's engine does)."""
    create_graph = flag(create_graph, op, "create_graph")
    return (create_graph if retain_graph is None else flag(retain_graph, op, "retain_graph"),
            create_graph)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates d(tensors)/d(leaf) into each leaf's ``.grad`` (as
    torch.autograd.backward).

    Parameters
    ----------
    tensors : Tensor or sequence of Tensor
        The outputs to differentiate.
    grad_tensors : Tensor or sequence of Tensor, optional
        d(loss)/d(each output); needed unless an output has one element.
    retain_graph : bool, optional
        Keep the graph's saved tensors for another backward.
    create_graph : bool, optional
        Record the backward itself, so the gradients in ``.grad`` can be
        differentiated again (higher-order gradients); implies retain_graph.
    inputs : sequence of Tensor, optional
        Accumulate only into these leaves.

    Returns
    -------
    None

    Raises
    ------
    RuntimeError
        When the counts of tensors and grad_tensors differ, or the graph was freed.

    Examples
    --------
    >>> w = pydevtensor.ones(2, requires_grad=True)
    >>> pydevtensor.autograd.backward((w * 3).sum())
    >>> w.grad
    tensor([3., 3.])
    """
    tensors = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) or (None,) * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(grads)} gradients for {len(tensors)} tensors")
    inputs = _as_tuple(inputs)
    if inputs is not None and not inputs:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    retain, create_graph = _flags(retain_graph, create_graph, "backward")
    got = _run_backward(tensors, grads, retain, inputs=inputs, accumulate=True,
                        create_graph=create_graph)
    if inputs is not None:  # a non-leaf among inputs has its gradient accumulated too
        _accumulate_non_leaves(inputs, got, create_graph)


def _accumulate_non_leaves(inputs, got, create_graph):
    """Adds each non-leaf input's gradient into its .grad, as PyTorch's backward does
    for the non-leaves named in inputs (leaves are done by their AccumulateGrad)."""
    for x, g in zip(inputs, got or ()):
        if g is None or x.grad_fn is None:
            continue
        g = g if create_graph else g.detach()
        with warnings.catch_warnings():  # a non-leaf's None .grad warns when read
            warnings.simplefilter("ignore", UserWarning)
            old = x.grad
        x.grad = g if old is None else (old + g if create_graph else old.add_(g))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of outputs with respect to inputs, as a tuple; ``.grad`` is left
    alone.

    Parameters
    ----------
    outputs : Tensor or sequence of Tensor
        What to differentiate.
    inputs : Tensor or sequence of Tensor
        With respect to what.
    grad_outputs : Tensor or sequence of Tensor, optional
        d(loss)/d(each output); needed unless an output has one element.
    retain_graph : bool, optional
        Keep the graph's saved tensors for another backward.
    create_graph : bool, optional
        Record the backward itself, so the returned gradients can be differentiated
        again (Hessian-vector products, gradient penalties); implies retain_graph.
    only_inputs : bool, optional
        PyTorch's deprecated argument; True (the default) is the only meaning.
    allow_unused : bool, optional
        Give None for an input the outputs do not depend on, instead of raising
        (default: materialize_grads).
    is_grads_batched : bool, optional
        The first dim of each grad_outputs is a batch: one vector-Jacobian product
        each, stacked along a new first dim of each result (PyTorch's batched grad,
        here a loop over the batch).
    materialize_grads : bool, optional
        Zeros instead of None for an unused input.

    Returns
    -------
    tuple of Tensor

    Raises
    ------
    RuntimeError
        When an input was not used (without allow_unused), or inputs is empty.
    ValueError
        materialize_grads=True with allow_unused=False.

    Examples
    --------
    >>> x = pydevtensor.tensor([1., 2.], requires_grad=True)
    >>> pydevtensor.autograd.grad((x * x).sum(), x)
    (tensor([2., 4.]),)
    >>> (g,) = pydevtensor.autograd.grad((x ** 3).sum(), x, create_graph=True)
    >>> pydevtensor.autograd.grad(g.sum(), x)  # the second derivative, 6 x
    (tensor([ 6., 12.]),)
    """
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("grad requires non-empty inputs.")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = bool(materialize_grads)
    allow_unused = flag(allow_unused, "grad", "allow_unused")
    grads = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad(): got {len(grads)} grad_outputs for {len(outputs)} outputs")
    retain, create_graph = _flags(retain_graph, create_graph, "grad")
    if is_grads_batched:
        result = _batched_grad(outputs, grads, inputs, retain, create_graph)
    else:
        result = _run_backward(outputs, grads, retain, inputs=inputs, accumulate=False,
                               where="grad()", create_graph=create_graph)
    for k, g in enumerate(result):
        if g is None and not allow_unused:
            raise RuntimeError(f"One of the differentiated Tensors (input {k}) appears to not "
                               "have been used in the graph. Set allow_unused=True if this is "
                               "the desired behavior.")
    if materialize_grads:
        # with create_graph, zeros that require grad (PyTorch's)
        result = [_C.zeros_like(x, requires_grad=create_graph) if g is None else g
                  for x, g in zip(inputs, result)]
    return tuple(result)


def _batched_grad(outputs, grads, inputs, retain, create_graph):
    """grad() with is_grads_batched: one backward per row of the grad_outputs (the graph
    kept until the last), each input's gradients stacked; None stays None."""
    if any(g is None for g in grads):
        raise RuntimeError("grad(): is_grads_batched=True needs every grad_outputs given, "
                           "with the batch as its first dim")
    n = grads[0].shape[0] if grads[0].ndim else 0
    if any(g.ndim == 0 or g.shape[0] != n for g in grads):
        raise RuntimeError(f"grad(): is_grads_batched=True needs grad_outputs with one first "
                           f"dim, got shapes {[tuple(g.shape) for g in grads]}")
    rows = [_run_backward(outputs, tuple(g[i] for g in grads), retain or i < n - 1,
                          inputs=inputs, accumulate=False, where="grad()",
                          create_graph=create_graph) for i in range(n)]
    from .._ops_join import stack
    out = []
    for k, x in enumerate(inputs):
        col = [r[k] for r in rows]
        out.append(None if not col or all(c is None for c in col) else stack(
            [_C.zeros_like(x) if c is None else c for c in col]))
    return out


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Computes the gradient of this tensor with respect to the graph's leaves and adds it
    into their ``.grad``.

    Parameters
    ----------
    gradient : Tensor, optional
        d(loss)/d(self); needed unless self has one element.
    retain_graph : bool, optional
        Keep the graph's saved tensors for another backward.
    create_graph : bool, optional
        Record the backward itself (higher-order gradients); implies retain_graph.
    inputs : sequence of Tensor, optional
        Accumulate only into these leaves.

    Returns
    -------
    None

    Raises
    ------
    RuntimeError
        When self has more than one element and no gradient is given.

    Examples
    --------
    >>> w = pydevtensor.ones(2, requires_grad=True)
    >>> loss = (w * 3).sum()
    >>> loss.backward()
    >>> w.grad
    tensor([3., 3.])
    """
    backward((self,), None if gradient is None else (gradient,), retain_graph, create_graph,
             inputs)


_C.Tensor.backward = _tensor_backward
_C.Tensor.retain_grad = _hooks.retain_grad
_C.Tensor.retains_grad = property(_hooks.retains_grad)
_C.Tensor.register_hook = _hooks.register_hook
_C.Tensor.register_post_accumulate_grad_hook = _hooks.register_post_accumulate_grad_hook
_C._set_autograd_dispatcher(_dispatch)


def _use_c_recorder(on=True):
    """Records the common case of dispatch() and record() in C (Note [recording in C]
    in csrc/python/autograd_record.c), or, off, everything in Python (for tests)."""
    if on:
        _C._set_autograd_recorder(_dispatch_module.RULES, _dispatch_module.NOT_DIFFERENTIABLE,
                                  _dispatch_module._forward, _node_module.AccumulateGrad, Node,
                                  _node_module.Edges)
    else:
        _C._set_autograd_recorder(None)


_use_c_recorder(True)
