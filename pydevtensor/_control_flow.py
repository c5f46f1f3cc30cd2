"""torch.cond and torch.while_loop in eager mode: PyTorch traces both branches (and the
loop's body) with torch.compile and checks that they agree; here the functions run in
Python and the same agreement is checked on what they return.  Operands and carried
values are nested tuples, lists and dicts of tensors (and, for while_loop, ints)."""
from . import _C
from .autograd import grad_mode

__all__ = ["cond", "while_loop"]


def _leaves(tree, where, what, ints=False):
    """The structure of tree (containers and leaf kinds) and its leaves; a leaf that is
    not a tensor (or an int, with ints) a RuntimeError naming where and what."""
    if isinstance(tree, (tuple, list)):
        parts = [_leaves(x, where, what, ints) for x in tree]
        return ((type(tree).__name__, tuple(p[0] for p in parts)),
                [leaf for p in parts for leaf in p[1]])
    if isinstance(tree, dict):
        parts = [_leaves(tree[k], where, what, ints) for k in tree]
        return (("dict", tuple(tree), tuple(p[0] for p in parts)),
                [leaf for p in parts for leaf in p[1]])
    if isinstance(tree, _C.Tensor) or (ints and isinstance(tree, int)
                                       and not isinstance(tree, bool)):
        return ("*", [tree])
    kinds = "tensor or int" if ints else "tensor"
    raise RuntimeError(f"{where}: expected {what} to be a tuple of possibly nested "
                       f"dict/list/tuple that only consists of {kinds} leaves, but got a "
                       f"leaf of type {type(tree).__name__}")


def _describe(leaf):
    if isinstance(leaf, _C.Tensor):
        return f"a {leaf.dtype} tensor of shape {tuple(leaf.shape)} on {leaf.device}"
    return f"an int ({leaf})"


def _mismatch(a, b, shapes):
    """Why leaf a and leaf b differ (dtype, device, type, number of dims; with shapes the
    shape), or None."""
    if isinstance(a, _C.Tensor) != isinstance(b, _C.Tensor):
        return "one is a tensor, the other an int"
    if not isinstance(a, _C.Tensor):
        return None
    if (a.dtype != b.dtype or a.device != b.device or a.ndim != b.ndim
            or (shapes and a.shape != b.shape)):
        return f"{_describe(a)} vs {_describe(b)}"
    return None


def _agree(first, second, where, names, shapes):
    """first and second (two nests of results) have leaves of the same kind, dtype, device
    and number of dimensions; with shapes (while_loop) the same number of leaves and the
    same shapes, else (cond) the same nesting; else a RuntimeError."""
    spec_a, leaves_a = _leaves(first, where, f"the {names[0]} output", ints=True)
    spec_b, leaves_b = _leaves(second, where, f"the {names[1]} output", ints=True)
    if len(leaves_a) != len(leaves_b) or (spec_a != spec_b and not shapes):
        raise RuntimeError(f"{where}: expected the {names[0]} and the {names[1]} to return the "
                           f"same structure, got {len(leaves_a)} leaves in {spec_a} and "
                           f"{len(leaves_b)} in {spec_b}")
    for i, (a, b) in enumerate(zip(leaves_a, leaves_b)):
        why = _mismatch(a, b, shapes)
        if why:
            raise RuntimeError(f"{where}: leaf {i} of the {names[0]} and the {names[1]} "
                               f"differ: {why}")


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if pred is true, else ``false_fn(*operands)`` (PyTorch's
    ``torch.cond``), in eager mode.

    With a tensor pred both branches are run (PyTorch traces both), each on copies of
    the operands (gradients flow back through the copies), the other one without
    recording gradients, and their results must agree: the same nesting of tuples,
    lists and dicts, with tensors of the same dtype, device and number of dimensions
    (the sizes may differ, as in PyTorch) and ints in the same places.  A branch that
    writes to an operand in place is refused, the operands unchanged, as in PyTorch.  A
    Python bool, int or float pred just calls the branch it picks, as in PyTorch.

    Parameters
    ----------
    pred : bool or Tensor
        A Python bool (or number), or a tensor of one element.
    true_fn, false_fn : callable
        The branches, called with the operands unpacked.
    operands : tuple or list, optional
        Nested tuples, lists and dicts of tensors (default ()).

    Returns
    -------
    object
        What the branch chosen by pred returned.

    Examples
    --------
    >>> x = pydevtensor.tensor([1.0, -2.0])
    >>> pydevtensor.cond(x.sum() > 0, lambda t: t * 2, lambda t: t.abs(), (x,))
    tensor([1., 2.])
    >>> pydevtensor.cond(True, lambda t: t + 1, lambda t: t - 1, [x])
    tensor([ 2., -1.])
    """
    if isinstance(pred, (bool, int, float)):
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, _C.Tensor):
        raise RuntimeError(f"cond(): expected pred to be bool or tensor, but got "
                           f"{type(pred).__name__}")
    if pred.numel() != 1:
        raise RuntimeError(f"cond(): expected pred to be bool or single-element tensor, but "
                           f"got a tensor of shape {tuple(pred.shape)}")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError(f"cond(): expect both branches to be callable, got "
                           f"{type(true_fn).__name__} and {type(false_fn).__name__}")
    if not isinstance(operands, (tuple, list)):
        raise RuntimeError(f"cond(): expected operands to be a tuple or list, got "
                           f"{type(operands).__name__}")
    _leaves(operands, "cond()", "operands")
    chosen, other = (true_fn, false_fn) if bool(pred) else (false_fn, true_fn)
    names = ("true branch", "false branch")
    # each on copies (gradients flow back through them): a branch may not write to them
    result = _unmodified(chosen, _clone(operands), "cond()",
                         f"the {names[chosen is false_fn]}", "operand")
    with grad_mode.no_grad():
        unused = _unmodified(other, _clone(operands), "cond()",
                             f"the {names[other is false_fn]}", "operand")
    _agree(*((result, unused) if chosen is true_fn else (unused, result)), "cond()", names,
           shapes=False)
    return result


def _unmodified(fn, args, where, who, what):
    """fn(*args), refused (RuntimeError) when it writes to a tensor of args in place:
    PyTorch's "Higher order ops do not support input mutation".  cond and while_loop
    pass their own copies, so the caller's tensors stay as they were."""
    leaves = _leaves(args, where, what, ints=True)[1]
    versions = [getattr(t, "_version", None) for t in leaves]
    out = fn(*args)
    for i, (t, version) in enumerate(zip(leaves, versions)):
        if version is not None and t._version != version:
            raise RuntimeError(f"{where}: {who} modified {what} {i} ({_describe(t)}) in "
                               f"place; {where[:-2]} does not support input mutation, as "
                               f"PyTorch's (the {what}s are unchanged): work on a copy")
    return out


def _should_loop(cond_fn, carried):
    pred = _unmodified(cond_fn, carried, "while_loop()", "cond_fn", "carried value")
    if isinstance(pred, bool):
        return pred
    if isinstance(pred, _C.Tensor) and pred.ndim == 0 and pred.dtype == _C.bool:
        return bool(pred)
    got = (f"a {pred.dtype} tensor of shape {tuple(pred.shape)}"
           if isinstance(pred, _C.Tensor) else type(pred).__name__)
    raise RuntimeError(f"while_loop(): cond_fn must return a boolean scalar tensor or a "
                       f"boolean but got {got}")


def while_loop(cond_fn, body_fn, carried_inputs):
    """Run ``carried = body_fn(*carried)`` while ``cond_fn(*carried)`` is true (PyTorch's
    ``torch.while_loop``), in eager mode.

    body_fn must return as many values as carried_inputs has, each of the same kind
    (tensor or int) and, for tensors, the same dtype, shape and device, as PyTorch
    requires; cond_fn a bool or a 0-d bool tensor.  They run on a copy of
    carried_inputs and may not write to a carried value in place (PyTorch refuses
    input mutation too), so carried_inputs stay as they were.

    Parameters
    ----------
    cond_fn : callable
        Called with the carried values unpacked; returns whether to run body_fn again.
    body_fn : callable
        Called with the carried values unpacked; returns the next ones (a tuple).
    carried_inputs : tuple or list
        The first carried values: nested tuples, lists and dicts of tensors and ints.

    Returns
    -------
    tuple
        The last carried values (copies of carried_inputs when body_fn never ran).

    Examples
    --------
    >>> i, x = pydevtensor.tensor(0), pydevtensor.ones(2)
    >>> pydevtensor.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (i, x))
    (tensor(3), tensor([8., 8.]))
    """
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError(f"while_loop(): expect cond_fn and body_fn to be callable, got "
                           f"{type(cond_fn).__name__} and {type(body_fn).__name__}")
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(f"while_loop(): carried_inputs must be a tuple or list but got "
                           f"{type(carried_inputs).__name__}")
    _leaves(carried_inputs, "while_loop()", "carried_inputs", ints=True)
    carried = _clone(carried_inputs)  # the functions may not write to it (as PyTorch's)
    if not _should_loop(cond_fn, carried):
        return tuple(carried)
    while True:
        out = _unmodified(body_fn, carried, "while_loop()", "body_fn", "carried value")
        carried = out if isinstance(out, (tuple, list)) else (out,)  # a lone value: as torch
        _agree(carried, carried_inputs, "while_loop()", ("body_fn", "carried_inputs"),
               shapes=True)
        if not _should_loop(cond_fn, carried):
            return out


def _clone(tree):
    if isinstance(tree, (tuple, list)):
        return type(tree)(_clone(x) for x in tree)
    if isinstance(tree, dict):
        return {k: _clone(v) for k, v in tree.items()}
    return tree.clone() if isinstance(tree, _C.Tensor) else tree
