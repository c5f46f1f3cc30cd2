"""The backward pass: Tensor.backward() and autograd.grad().

The engine finds the part of the graph reachable from the outputs, counts for each
Node how many edges lead into it, and runs a Node once every gradient for its outputs
has arrived (summed when several paths meet).  It runs with grad mode off, so the
backward formulas (package ops on the tensors' own device) record nothing; with
create_graph=True it runs with grad mode on, so they record a graph of their own and
the gradients can be differentiated again (Note [higher-order gradients]).  Without
retain_graph each Node frees what it saved once it has run.

Note [higher-order gradients]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The backward formulas are written with the package's differentiable ops, on the
Nodes' saved tensors, which are the op's inputs themselves (still in the graph).  So
running them with grad mode on records the gradient's own graph, and grad(grad(y, x,
create_graph=True)[0].sum(), x) follows it.  Three things make that exact:
- a saved output is kept detached (no cycle through its own Node); read back with
  grad mode on it takes its Node as grad_fn again (Node.saved_tensors), as PyTorch's
  SavedVariable does, so the dependence through the output is not lost;
- a gradient the user passes (grad_outputs) keeps its graph (jvp's double-backward
  trick differentiates with respect to it);
- a gradient whose formula has no derivative of its own (scatter_reduce 'prod''s
  for src with several zeros at one destination, a Function's @once_differentiable
  backward) carries a node that raises when it is differentiated (node.delay_error),
  instead of a silently wrong second derivative; and any other Node whose backward
  gives an input a gradient that is not recorded while the gradient it got is
  raises at once (node.check_recorded), unless its op is piecewise constant.
"""
import itertools
import threading

from .. import _C
from .anomaly_mode import _STATE as _ANOMALY, check_gradients
from .hooks import finish_captures, prepare_captures
from .node import FREED_MSG, AccumulateGrad, edge_of


def _root_grads(outputs, grad_outputs, where, create_graph=False):
    roots = []
    for i, (t, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(t, _C.Tensor):
            raise TypeError(f"{where}: expected Tensors, got {type(t).__name__}")
        if not t.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        if g is None:
            if t.numel() != 1:
                raise RuntimeError(f"grad can be implicitly created only for scalar outputs "
                                   f"(got an output of shape {tuple(t.shape)}); pass a "
                                   f"gradient of that shape")
            g, user = _C.ones_like(t), False
        else:
            if not isinstance(g, _C.Tensor):
                raise TypeError(f"{where}: gradient must be a Tensor, got {type(g).__name__}")
            if tuple(g.shape) != tuple(t.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{tuple(g.shape)} and output[{i}] has a shape of "
                                   f"{tuple(t.shape)}.")
            if g.device != t.device:
                raise _C.DeviceError(f"{where}: the gradient is on {g.device} but the output "
                                     f"is on {t.device}")
            g, user = (g if create_graph else g.detach()), True
            if g.dtype != t.dtype:
                g = g.to(t.dtype)
        roots.append((edge_of(t), g, user))
    return roots


def run_backward(outputs, grad_outputs, retain_graph, inputs=None, accumulate=True,
                 where="backward()", create_graph=False):
    """Runs the backward pass.  inputs: tensors whose gradients are returned (for
    autograd.grad, with accumulate=False) or the only leaves accumulated into;
    create_graph: the pass records (Note [higher-order gradients])."""
    prev = _C._set_grad_enabled(bool(create_graph))
    runs = _RUNS.__dict__.setdefault("stack", [])
    runs.append((inputs, accumulate, next(_SERIALS)))
    try:
        return _run(outputs, grad_outputs, retain_graph, inputs, accumulate, where,
                    create_graph)
    finally:
        runs.pop()
        _C._set_grad_enabled(prev)


# This thread's passes, innermost last: (inputs, accumulate, serial), the serial a
# number of the pass that no other pass (of any thread) is given.
_RUNS = threading.local()
_SERIALS = itertools.count(1)


def current_pass():
    """A number of the innermost backward pass of this thread that no other pass has
    had, 0 outside a pass: what a node keeps for the rest of its pass can tell a later
    pass by it without holding anything (nn._fused_rnn.StepGradients, Note [steps of
    an earlier pass])."""
    runs = _RUNS.__dict__.get("stack")
    return runs[-1][2] if runs else 0


def current_run():
    """(inputs, accumulate, serial) of the innermost backward pass of this thread:
    inputs None for loss.backward(), the tensors asked for by autograd.grad (accumulate
    False) or backward(inputs=...) (accumulate True); serial current_pass()'s number;
    None outside a pass.  A Function whose backward runs a pass of its own
    (utils.checkpoint) reads it."""
    runs = _RUNS.__dict__.get("stack")
    return runs[-1] if runs else None


def input_wanted(node, i):
    """Whether this backward pass needs node's input i's gradient (PyTorch's
    task_should_compute_output): when it requires grad and, for autograd.grad or
    backward(inputs=...), one of the tensors asked for lies at or below its edge.  A
    backward with no formula for one input (zeta's, igamma's) raises only then."""
    if not node.needs_input_grad[i]:
        return False
    run = current_run()
    if run is None or run[0] is None:
        return True
    asked = {edge_of(x) for x in run[0]}
    stack, seen = [node.next_functions[i]], set()
    while stack:
        e = stack.pop()
        if e in asked:
            return True
        if e[0] is not None and e[0] not in seen:
            seen.add(e[0])
            stack.extend(e[0].next_functions)
    return False


# The loop runs in C (_C._engine_run, Note [the engine in C] in
# csrc/python/autograd_engine.c); _run_python is the same loop, the reference the tests
# compare it with (USE_C = False runs it instead).
USE_C = True


def _run(outputs, grad_outputs, retain_graph, inputs, accumulate, where, create_graph=False):
    roots = _root_grads(outputs, grad_outputs, where, create_graph)
    # which gradients are wanted: edge -> position in inputs
    captures = {}
    if inputs is not None:
        for k, x in enumerate(inputs):
            if not isinstance(x, _C.Tensor):  # PyTorch's words
                raise RuntimeError(f"{where}: all inputs have to be Tensors, but input {k} "
                                   f"is a {type(x).__name__}")
            if not x.requires_grad:
                raise RuntimeError(f"{where}: input {k} does not require grad")
            e = edge_of(x)
            captures.setdefault(e[0], []).append((e[1], k))
    nresults = len(inputs) if inputs is not None else 0
    # grad() returns its inputs' gradients after their hooks (hooks.py)
    hooked = prepare_captures(inputs) if inputs is not None and not accumulate else None
    results = None
    try:
        if USE_C and not (_ANOMALY["enabled"] and _ANOMALY["check_nan"]):
            results = _C._engine_run(roots, captures, nresults, retain_graph, accumulate,
                                     inputs is not None, AccumulateGrad, FREED_MSG)
        else:
            results = _run_python(roots, captures, nresults, retain_graph, accumulate,
                                  inputs is not None)
    finally:
        if hooked:  # also after an error: no table keeps wanting a gradient
            finish_captures(hooked, results)
    return results


def _run_python(roots, captures, nresults, retain_graph, accumulate, only_captured):
    # dependencies: how many edges lead into each reachable node
    deps = {}
    preds = {} if only_captured else None  # node -> the nodes with an edge into it
    stack = []
    for e, _, _ in roots:
        if e[0] not in deps:
            deps[e[0]] = 0
            stack.append(e[0])
    while stack:
        node = stack.pop()
        for e in node.next_functions:
            nxt = e[0]
            if nxt is None:  # Note [no edge] in node.py
                continue
            if preds is not None:
                preds.setdefault(nxt, []).append(node)
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                stack.append(nxt)
    # with inputs, only the nodes above one of them run (PyTorch's: hooks elsewhere do
    # not fire, saved tensors elsewhere are kept)
    above = None if preds is None else _above(captures, preds)
    buffers = {}
    shared = set()  # ids of gradient objects a leaf may not adopt
    for e, g, user in roots:
        buf = buffers.setdefault(e[0], [None] * e[0].num_outputs)
        buf[e[1]] = g if buf[e[1]] is None else buf[e[1]] + g
        if user:
            shared.add(id(g))
    results = [None] * nresults
    ready = [n for n, d in deps.items() if d == 0]
    while ready:
        node = ready.pop()
        grads = buffers.pop(node, None)
        if grads is not None and node in captures:
            for nr, k in captures[node]:
                results[k] = grads[nr]
        if isinstance(node, AccumulateGrad):
            if grads is not None and grads[0] is not None and accumulate and (
                    not only_captured or node in captures):
                g = grads[0]
                fresh = id(g) not in shared and g._unshared()
                shared.add(id(g))
                node.accumulate(g, fresh)
            continue
        nexts = node.next_functions
        if above is not None and node not in above:
            grads = None
        if grads is None or grads.count(None) == len(grads):
            in_grads = (None,) * len(nexts)
        else:
            if node._saved is None:
                raise RuntimeError(FREED_MSG)
            in_grads = node.apply(grads)
            if _ANOMALY["enabled"] and _ANOMALY["check_nan"]:
                check_gradients(node, in_grads)
            if not retain_graph:
                node.release()
        for (nxt, nr), g in zip(nexts, in_grads):
            if nxt is None:
                continue
            if g is not None:
                buf = buffers.get(nxt)
                if buf is None:
                    buf = buffers[nxt] = [None] * nxt.num_outputs
                if buf[nr] is None:
                    buf[nr] = g
                else:
                    buf[nr] = buf[nr] + g
            deps[nxt] -= 1
            if deps[nxt] == 0:
                ready.append(nxt)
    return results


def _above(captures, preds):
    """The nodes from which a node of captures is reachable by one edge or more."""
    above = set()
    stack = list(captures)
    while stack:
        for p in preds.get(stack.pop(), ()):
            if p not in above:
                above.add(p)
                stack.append(p)
    return above


def clear_grads(params, set_to_none=True):
    """PyTorch's zero_grad for each tensor of params (Module's and Optimizer's):
    ``.grad = None``, or, with set_to_none=False, the grad taken out of any graph (one
    made with create_graph=True) and then zeroed in place."""
    for p in params:
        if set_to_none:
            p.grad = None
        elif getattr(p, "grad", None) is not None:
            if p.grad.grad_fn is not None:
                p.grad.detach_()
            else:
                p.grad.requires_grad_(False)
            p.grad.zero_()
