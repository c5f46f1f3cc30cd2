"""Forward-mode automatic differentiation with PyTorch's names: ``dual_level``,
``enter_dual_level``, ``exit_dual_level``, ``make_dual`` and ``unpack_dual`` (as
``torch.autograd.forward_ad``).

Note [forward mode on the reverse graph]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
pydevtensor has one set of derivative formulas, the backward ones (derivatives*.py),
and ``func.jvp`` already gets Jacobian-vector products from them by the
double-backward trick.  Forward mode reuses that instead of a second set of formulas
(one per op, which every op added later would also need): ``make_dual(x, t)`` returns
a tensor d that shares x's storage and is recorded in the graph (its grad_fn a
``MakeDualBackward`` with no input, or, when x requires grad, the ``x.view_as(x)``
view, so that the reverse mode still reaches x); the level keeps (the edge of d at
creation, t).  Every op on d records as usual, in place ones included, so the graph of
any result y holds what its tangent needs, and ``unpack_dual(y)`` computes it then:
with u a dummy cotangent of y's shape, ``v = J^T u`` (``autograd.grad(y, duals, u,
create_graph=True)``) is linear in u, and the gradient of ``sum(v t)`` with
respect to u is ``J t``, summed over the duals y reaches.  A dual y itself (not
modified since) gives its tangent back as it is.

Cost: no work beyond the recording while ops run; each ``unpack_dual`` of a computed
tensor is one walk of its graph, a backward pass with create_graph and a backward
pass through that one: several times the ops' own work (measured: 4 to 10 times the
plain forward of a 512-wide three-layer MLP on a batch of 256, on CPU), where
PyTorch's forward mode adds about one op per op.

What differs from PyTorch, all from riding the reverse graph:
- a dual tensor and what is computed from it ``requires_grad`` (a dual's ``is_leaf``
  is False); ``y.backward()`` from it gives the leaves that require grad what
  PyTorch's reverse mode gives them, and the duals nothing;
- ops run under ``no_grad()`` (or on detached tensors) record nothing, so their
  results have no tangent (PyTorch's forward mode ignores grad mode);
- an op without a backward formula raises on a dual (when called, or at
  ``unpack_dual`` for floor_divide's kind), as does at ``unpack_dual`` one whose
  backward has no double backward (``@once_differentiable``); and a tensor the graph
  saved that was since modified in place makes ``unpack_dual`` raise the version
  error of the reverse mode (PyTorch computed the tangent before the change);
- the tangent must have the primal's dtype and device (PyTorch accepts another
  floating dtype and then gives tangents of either dtype depending on the op).
Levels are process-wide, as PyTorch's, and only one may exist at a time (PyTorch's
"Nested forward mode AD is not supported").  Exiting it forgets the duals, so nothing
computed before has a tangent afterwards.
"""
from collections import namedtuple

from .. import _C
from .grad_mode import enable_grad
from .node import Node

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

# the current level (-1: none) and its duals: grad_fn of each dual at creation ->
# (key, tangent), key an alias of the dual holding that grad_fn (autograd.grad's input)
_STATE = {"level": -1, "duals": {}}


class UnpackedDualTensor(namedtuple("UnpackedDualTensor", ["primal", "tangent"])):
    """What :func:`unpack_dual` returns: the primal (a Tensor) and its tangent (a
    Tensor, or None where the tensor has none at the level), as PyTorch's namedtuple.

    Parameters
    ----------
    primal : Tensor
        The values.
    tangent : Tensor or None
        The forward gradient, of the primal's shape.

    Examples
    --------
    >>> import pydevtensor.autograd.forward_ad as fwAD
    >>> fwAD.UnpackedDualTensor(pydevtensor.ones(1), None)
    UnpackedDualTensor(primal=tensor([1.]), tangent=None)
    """

    __slots__ = ()


class MakeDualBackward(Node):
    """The grad_fn of a dual made from a tensor that does not require grad: it has no
    input, so the reverse mode ends there (Note [forward mode on the reverse graph])."""

    def backward(self, g):
        return (None,)


def enter_dual_level():
    """Enters a new forward grad level, in which :func:`make_dual` and
    :func:`unpack_dual` work, and makes it the level they use by default.

    Returns
    -------
    int
        The new level (0: levels do not nest).

    Raises
    ------
    RuntimeError
        When a level exists already (PyTorch's "Nested forward mode AD is not
        supported at the moment").

    Examples
    --------
    >>> import pydevtensor.autograd.forward_ad as fwAD
    >>> fwAD.enter_dual_level()
    0
    >>> fwAD.exit_dual_level()
    """
    if _STATE["level"] >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _STATE["level"], _STATE["duals"] = 0, {}
    return 0


def _level(level, where):
    if level is None:
        return _STATE["level"]
    if not isinstance(level, int) or isinstance(level, bool):
        raise TypeError(f"{where}: level must be an int or None, got {type(level).__name__}")
    return level


def exit_dual_level(*, level=None):
    """Exits the forward grad level (by default the current one); every tangent made
    in it is dropped.

    Parameters
    ----------
    level : int, optional
        The level to exit; it must be the current one.

    Returns
    -------
    None

    Raises
    ------
    RuntimeError
        When level is not the current level, or no level exists.
    TypeError
        When level is not an int.

    Examples
    --------
    >>> import pydevtensor.autograd.forward_ad as fwAD
    >>> lv = fwAD.enter_dual_level()
    >>> d = fwAD.make_dual(pydevtensor.ones(2), pydevtensor.ones(2))
    >>> fwAD.exit_dual_level(level=lv)
    >>> fwAD.unpack_dual(d).tangent is None
    True
    """
    level = _level(level, "exit_dual_level()")
    if level != _STATE["level"]:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one "
                           "that was created. This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    _STATE["level"], _STATE["duals"] = -1, {}


def _tensor(x, what, where):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"{where}(): argument '{what}' must be Tensor, not "
                        f"{type(x).__name__}")


def make_dual(tensor, tangent, *, level=None):
    """A dual tensor: tensor's values (sharing its storage) with tangent as its forward
    gradient, so that the tensors computed from it carry ``J tangent`` (read by
    :func:`unpack_dual`).  It must be made inside a :class:`dual_level`.

    Parameters
    ----------
    tensor : Tensor
        The primal, floating point or complex.
    tangent : Tensor
        Of tensor's shape, dtype and device.
    level : int, optional
        The level (by default the current one).

    Returns
    -------
    Tensor
        It requires grad (pydevtensor's forward mode rides the reverse graph: Note
        [forward mode on the reverse graph] in forward_ad.py).

    Raises
    ------
    RuntimeError
        Outside a level, for a level that does not exist, when the shapes, dtypes or
        devices differ, or when tensor (or tangent) has a tangent at this level already.
    ValueError
        When tensor or tangent is not floating point or complex.
    TypeError
        When tensor or tangent is not a Tensor.

    Examples
    --------
    >>> import pydevtensor.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     x = fwAD.make_dual(pydevtensor.tensor([1., 2.]), pydevtensor.tensor([1., 0.]))
    ...     fwAD.unpack_dual(x * x).tangent
    tensor([2., 0.])
    """
    for x, what in ((tensor, "primal"), (tangent, "tangent")):
        _tensor(x, what, "make_dual")
    level = _level(level, "make_dual()")
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level "
                           "exists, make sure to enter_dual_level() first.")
    for x, what in ((tensor, "primal"), (tangent, "tangent")):
        if not (x.is_floating_point() or x.is_complex()):
            raise ValueError(f"Expected {what} to be floating point or complex, but got: "
                             f"{x.dtype}")
    if level != _STATE["level"]:
        raise RuntimeError("Invalid level given to _make_dual")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than "
                           f"that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor.shape)} while the given forward gradient is of "
                           f"size {list(tangent.shape)}.")
    if tangent.dtype != tensor.dtype or tangent.device != tensor.device:
        raise RuntimeError(f"make_dual(): the tangent must have the primal's dtype and "
                           f"device: the primal is {tensor.dtype} on {tensor.device}, the "
                           f"tangent {tangent.dtype} on {tangent.device}")
    if _reached(tensor)[0]:
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a "
                           f"forward gradient at the same level {_STATE['level']} is not "
                           f"supported.")
    if _reached(tangent)[0]:
        raise RuntimeError(f"Setting a forward grad that itself has a forward gradient at "
                           f"the same level {_STATE['level']} is not supported.")
    with enable_grad():
        if tensor.requires_grad:
            dual = tensor.view_as(tensor)
        else:
            node = MakeDualBackward()
            node._saved, node._versions = (), ()
            node.next_functions, node.needs_input_grad = (None,), (False,)
            dual = tensor.detach()._set_grad_fn(node, 0)
    key = dual.detach()._set_grad_fn(dual.grad_fn, dual.output_nr)
    _STATE["duals"][dual.grad_fn] = (key, tangent)
    return dual


def _reached(y):
    """The duals of the level whose graph y reaches (as (key, tangent) pairs), and
    whether it reaches a tensor that requires grad and is not a dual (a leaf)."""
    duals = _STATE["duals"]
    if not duals or not isinstance(y, _C.Tensor) or not y.requires_grad:
        return [], bool(isinstance(y, _C.Tensor) and y.requires_grad)
    if y.grad_fn is None:
        return [], True
    found, outside, seen, stack = [], False, set(), [y.grad_fn]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node in duals:
            found.append(duals[node])
        if getattr(node, "variable", None) is not None:
            outside = True
        stack.extend(e[0] for e in node.next_functions if e[0] is not None)
    return found, outside


def unpack_dual(tensor, *, level=None):
    """A tensor's primal and tangent at a forward grad level, as the namedtuple
    :class:`UnpackedDualTensor`; the tangent is None for a tensor that does not depend
    on a dual of the level (or outside any level).

    The tangent of a computed tensor is computed here, from the graph (Note [forward
    mode on the reverse graph] in forward_ad.py: several times the cost of the ops
    that made it).

    Parameters
    ----------
    tensor : Tensor
        A dual tensor, or one computed from duals.
    level : int, optional
        The level (by default the current one).

    Returns
    -------
    UnpackedDualTensor
        ``(primal, tangent)``: primal shares tensor's storage (detached unless tensor
        also depends on tensors that require grad), tangent has tensor's shape.

    Raises
    ------
    RuntimeError
        For a level that does not exist, or when the graph cannot give the tangent
        (an op without double backward, a saved tensor modified in place).
    TypeError
        When tensor is not a Tensor.

    Examples
    --------
    >>> import pydevtensor.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     x = fwAD.make_dual(pydevtensor.tensor([0., 1.]), pydevtensor.tensor([2., 2.]))
    ...     fwAD.unpack_dual(x.exp().sum())
    UnpackedDualTensor(primal=tensor(3.7183), tangent=tensor(7.4366))
    """
    _tensor(tensor, "dual", "_unpack_dual")
    level = _level(level, "unpack_dual()")
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if level != _STATE["level"]:
        raise RuntimeError("Invalid level given to _fw_primal")
    duals, outside = _reached(tensor)
    primal = tensor.view_as(tensor) if outside else tensor.detach()
    if not duals or not (tensor.is_floating_point() or tensor.is_complex()):
        return UnpackedDualTensor(primal, None)
    mine = _STATE["duals"].get(tensor.grad_fn)
    if mine is not None and tensor.output_nr == 0:
        return UnpackedDualTensor(primal, mine[1])
    return UnpackedDualTensor(primal, _tangent(tensor, duals, outside))


def _tangent(y, duals, outside):
    """J t for y, summed over the duals it reaches, by the double-backward trick."""
    from . import grad
    record = _C.is_grad_enabled() and (outside or any(t.requires_grad for _, t in duals))
    with enable_grad():
        u = _C.zeros_like(y).requires_grad_(True)
        vs = grad(y, [k for k, _ in duals], u, retain_graph=True, create_graph=True,
                  allow_unused=True)
        terms = [(v * t).sum() for v, (_, t) in zip(vs, duals)
                 if v is not None and v.requires_grad]
        jv = grad(sum(terms[1:], terms[0]), u, create_graph=record,
                  allow_unused=True)[0] if terms else None
    if jv is None:
        return _C.zeros_like(y)
    return jv if record else jv.detach()


class dual_level:
    """Context manager of a forward grad level: enters one (:func:`enter_dual_level`)
    and exits it (:func:`exit_dual_level`) on leaving, after an exception too, which
    drops the tangents made in it.

    Examples
    --------
    >>> import pydevtensor.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level() as lv:
    ...     x = fwAD.make_dual(pydevtensor.tensor([3.]), pydevtensor.tensor([1.]))
    ...     print(lv, fwAD.unpack_dual(x.sin()).tangent)
    0 tensor([-0.9900])
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback):
        exit_dual_level()
