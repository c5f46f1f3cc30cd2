"""The transforms of ``torch.func`` but vmap (_func_vmap.py): grad, grad_and_value, vjp,
jvp, jacrev, jacfwd and hessian, for functions of unbatched inputs, built on autograd.grad.

Each call makes its differentiated inputs into tensors of its own: a fresh leaf for an
input that does not require grad, a view (``x.view_as(x)``) of one that does, so that
the results stay in the graph of the caller.  The gradients are taken with
create_graph only when the function's outputs reach a tensor that requires grad and is
not one of those fresh leaves (an input of an enclosing transform, or a parameter the
function closes over) and grad mode is on where the transform is called; otherwise
the results, the values and the aux outputs come back detached, as PyTorch's top-level
transforms give them.  That is what lets ``grad(grad(f))`` differentiate again.

jacfwd computes the same Jacobian as jacrev, by reverse mode (one backward pass per
output element).  Inputs and outputs may be nested tuples, lists and dicts of tensors
(PyTorch's pytrees of them).
"""
from . import _C
from .autograd import grad as _autograd_grad
from .autograd.grad_mode import enable_grad
from ._ops_join import stack as _stack

__all__ = ["grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp"]


def _leaves(tree):
    """The leaves of a pytree of tuples, lists and dicts, in order."""
    if isinstance(tree, (tuple, list)):
        return [leaf for t in tree for leaf in _leaves(t)]
    if isinstance(tree, dict):
        return [leaf for t in tree.values() for leaf in _leaves(t)]
    return [tree]


def _rebuild(tree, leaves):
    """tree with its leaves replaced, in order, by those of the iterator leaves."""
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):  # a namedtuple
        return type(tree)(*(_rebuild(t, leaves) for t in tree))
    if isinstance(tree, (tuple, list)):
        return type(tree)(_rebuild(t, leaves) for t in tree)
    if isinstance(tree, dict):
        return {k: _rebuild(v, leaves) for k, v in tree.items()}
    return next(leaves)


def _structure(tree):
    """A comparable description of a pytree's shape (its containers and their keys)."""
    if isinstance(tree, (tuple, list)):
        return (type(tree).__name__, tuple(_structure(t) for t in tree))
    if isinstance(tree, dict):
        return ("dict", tuple((k, _structure(v)) for k, v in tree.items()))
    return "*"


def _argnums(argnums, nargs):
    """argnums as a tuple of non-negative positions (PyTorch's messages)."""
    if isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    elif not isinstance(argnums, int) or isinstance(argnums, bool):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    out = []
    for n in (argnums if isinstance(argnums, tuple) else (argnums,)):
        if not isinstance(n, int) or isinstance(n, bool):
            raise RuntimeError(f"argnum must be int, got: {type(n)}")
        if not -nargs <= n < nargs:
            raise RuntimeError(f"Got argnum={n}, but only {nargs} positional inputs")
        out.append(n % nargs)
    return tuple(out)


def _done(leaf):
    """Marks a leaf of a transform call that is over: it is no input of a transform
    around the call (see _Lifted.reaches_outside)."""
    leaf._func_done = True
    return leaf


class _Lifted:
    """The differentiated inputs of one transform's call: args with the leaves at
    positions nums replaced by tensors of this call (see the module's docstring)."""

    def __init__(self, args, nums, where, forward=False):
        self.args, self.trees, self.inputs, self.fresh = list(args), [], [], set()
        for n in nums:
            leaves = _leaves(args[n])
            for x in leaves:
                if not isinstance(x, _C.Tensor):  # PyTorch's ValueError
                    raise ValueError(f"Thing passed to transform API must be Tensor, got "
                                     f"{type(x)} (in argument {n} of {where})")
                if forward and not x.is_floating_point():
                    raise ValueError(f"Expected primal to be floating point or complex, but "
                                     f"got: {x.dtype}")
            mine = [x.view_as(x) if x.requires_grad else x.detach().requires_grad_(True)
                    for x in leaves]
            self.fresh.update(id(x) for x, orig in zip(mine, leaves) if not orig.requires_grad)
            self.args[n] = _rebuild(args[n], iter(mine))
            self.trees.append(self.args[n])
            self.inputs += mine

    def reaches_outside(self, outputs):
        """Whether the graph of outputs reaches a tensor requiring grad other than this
        call's fresh leaves and those of the transform calls func made, which are over
        (when it does, the gradients are recorded).  func has run: this call's fresh
        leaves are marked over, for the transforms around it."""
        def outside(t):
            return id(t) not in self.fresh and not getattr(t, "_func_done", False)
        nodes, seen, found = [], set(), False
        for o in outputs:
            if o.grad_fn is not None:
                nodes.append(o.grad_fn)
            elif o.requires_grad and outside(o):
                found = True
        while nodes and not found:
            node = nodes.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            var = getattr(node, "variable", None)
            found = isinstance(var, _C.Tensor) and outside(var)
            nodes.extend(e[0] for e in node.next_functions if e[0] is not None)
        for x in self.inputs:
            if id(x) in self.fresh:
                _done(x)
        return found

    def grads(self, outputs, cotangents, create_graph):
        """The gradients of outputs (with cotangents) for every input, zeros where one
        does not depend on it."""
        pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
        gs = _autograd_grad([o for o, _ in pairs], self.inputs, [c for _, c in pairs],
                            retain_graph=True, create_graph=create_graph,
                            allow_unused=True) if pairs else (None,) * len(self.inputs)
        return [_C.zeros_like(x) if g is None else (g if create_graph else g.detach())
                for g, x in zip(gs, self.inputs)]

    def per_argnum(self, flat, single):
        """flat (one tensor per input) in the structure of the differentiated args: one
        pytree for an int argnums, a tuple of them for a tuple."""
        it = iter(flat)
        trees = tuple(_rebuild(t, it) for t in self.trees)
        return trees[0] if single else trees


def _detached(tree, keep):
    if keep:
        return tree
    return _rebuild(tree, iter([x.detach() if isinstance(x, _C.Tensor) else x
                                for x in _leaves(tree)]))


def _split_aux(out, has_aux, where):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{where}: output of function f should be a tuple: (output, aux) "
                           f"if has_aux is True")
    for a in _leaves(out[1]):  # aux: a pytree of Tensors, as PyTorch's
        if not isinstance(a, _C.Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(a)} (in the aux "
                               f"output of {where})")
    return out


def _lifted_call(func, args, kwargs, argnums, has_aux, where, forward=False):
    """In the caller's enable_grad block: args with those at argnums lifted (_Lifted),
    and func's output on them, split from its aux."""
    lifted = _Lifted(args, _argnums(argnums, len(args)), where, forward)
    out, aux = _split_aux(func(*lifted.args, **kwargs), has_aux, where)
    return lifted, out, aux


def _tensor_outputs(out, where):
    leaves = _leaves(out)
    if not leaves or (len(leaves) == 1 and leaves[0] is None):
        raise RuntimeError(f"{where}: Expected f to be a function that has non-empty output "
                           f"(got output = {out})")
    for o in leaves:
        if not isinstance(o, _C.Tensor):
            raise RuntimeError(f"{where}: Expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}")
    return leaves


def _floating(outs):
    """outs, which reverse mode differentiates: floating point (PyTorch's message)."""
    for o in outs:
        if not (o.is_floating_point() or o.is_complex()):
            raise RuntimeError(f"vjp(f, ...): All outputs of f must be floating-point or "
                               f"complex Tensors, got Tensor with dtype {o.dtype}")
    return outs


def grad_and_value(func, argnums=0, has_aux=False):
    """A function that returns the gradient of func (a 0-d Tensor output) with respect
    to the arguments argnums, and func's value, as ``torch.func.grad_and_value``.

    Parameters
    ----------
    func : callable
        Returns a 0-d Tensor, or ``(output, aux)`` with has_aux.
    argnums : int or tuple of int, optional
        The positional arguments to differentiate (default 0); each a Tensor or a
        tuple, list or dict of them.
    has_aux : bool, optional
        func returns ``(output, aux)``; aux is passed through.

    Returns
    -------
    callable
        Taking func's arguments and returning ``(gradient, value)``, or
        ``(gradient, (value, aux))``; the gradient has the structure of the argument
        (a tuple over argnums for a tuple).  An input func does not use gets zeros.

    Raises
    ------
    RuntimeError
        When func's output is not a 0-d Tensor, argnums names no positional argument,
        or has_aux is True and func does not return a pair whose aux is a pytree of
        Tensors.
    ValueError
        When an argument to differentiate holds something other than Tensors.

    Examples
    --------
    >>> from pydevtensor.func import grad_and_value
    >>> grad_and_value(lambda x: (x ** 3).sum())(pydevtensor.tensor([1., 2.]))
    (tensor([ 3., 12.]), tensor(9.))
    """
    def wrapper(*args, **kwargs):
        where = "grad_and_value(f)(*args)"
        outside = _C.is_grad_enabled()
        with enable_grad():
            lifted, out, aux = _lifted_call(func, args, kwargs, argnums, has_aux, where)
            if not isinstance(out, _C.Tensor):
                raise RuntimeError(f"{where}: Expected f(*args) to return a Tensor, got "
                                   f"{type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"{where}: Expected f(*args) to return a scalar Tensor, "
                                   f"got tensor with {out.dim()} dims. Maybe you wanted to "
                                   f"use the vjp or jacrev APIs instead?")
            keep = outside and lifted.reaches_outside([out])
            gs = lifted.grads([out], [None], keep)
        g = lifted.per_argnum(gs, isinstance(argnums, int))
        value = out if keep else out.detach()
        return (g, (value, _detached(aux, keep))) if has_aux else (g, value)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """A function that returns the gradient of func (a 0-d Tensor output) with respect
    to the arguments argnums, as ``torch.func.grad``; it composes with itself
    (``grad(grad(f))``) and with regular autograd.

    Parameters
    ----------
    func : callable
        Returns a 0-d Tensor, or ``(output, aux)`` with has_aux.
    argnums : int or tuple of int, optional
        The positional arguments to differentiate (default 0).
    has_aux : bool, optional
        func returns ``(output, aux)``; the result is then ``(gradient, aux)``.

    Returns
    -------
    callable
        Taking func's arguments and returning the gradient (a tuple over argnums for
        a tuple), or ``(gradient, aux)``.

    Raises
    ------
    RuntimeError
        As :func:`grad_and_value`.

    Examples
    --------
    >>> from pydevtensor.func import grad
    >>> f = lambda x: x ** 3
    >>> x = pydevtensor.tensor(2.)
    >>> grad(f)(x), grad(grad(f))(x), grad(grad(grad(f)))(x)
    (tensor(12.), tensor(12.), tensor(6.))
    >>> grad(lambda x, y: x * y ** 2, argnums=(0, 1))(x, pydevtensor.tensor(3.))
    (tensor(9.), tensor(12.))
    """
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux=False):
    """func's output at primals and a function of cotangents giving the vector-Jacobian
    products, as ``torch.func.vjp``.

    Parameters
    ----------
    func : callable
        Returns a Tensor or a tuple, list or dict of them (or ``(output, aux)`` with
        has_aux).
    *primals : Tensor or pytree of Tensor
        func's arguments, all differentiated.
    has_aux : bool, optional
        func returns ``(output, aux)``.

    Returns
    -------
    tuple
        ``(output, vjp_fn)`` or ``(output, vjp_fn, aux)``.  ``vjp_fn(cotangents)``,
        cotangents with the structure of output, returns a tuple with one gradient
        per primal (zeros for one the output does not use); it can be called again.

    Raises
    ------
    RuntimeError
        When func returns something other than tensors, an output is not floating
        point, or cotangents do not have the output's structure.
    ValueError
        When a primal holds something other than Tensors.

    Examples
    --------
    >>> from pydevtensor.func import vjp
    >>> out, vjp_fn = vjp(lambda x, y: x * y, pydevtensor.tensor([1., 2.]),
    ...                   pydevtensor.tensor([3., 4.]))
    >>> out, vjp_fn(pydevtensor.ones(2))
    (tensor([3., 8.]), (tensor([3., 4.]), tensor([1., 2.])))
    """
    where = "vjp(f, *primals)"
    outside = _C.is_grad_enabled()
    with enable_grad():
        lifted = _Lifted(primals, range(len(primals)), where)
        out, aux = _split_aux(func(*lifted.args), has_aux, "vjp(f, *primals)")
        outs = _floating(_tensor_outputs(out, where))
        keep = outside and lifted.reaches_outside(outs)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        if _structure(cotangents) != _structure(out):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function.")
        cts = _leaves(cotangents)
        for c, o in zip(cts, outs):
            if not isinstance(c, _C.Tensor) or tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"vjp_fn: a cotangent must be a Tensor of its output's "
                                   f"shape {tuple(o.shape)}, got "
                                   f"{tuple(c.shape) if isinstance(c, _C.Tensor) else c!r}")
        record = create_graph if create_graph is not None else (
            keep or (_C.is_grad_enabled() and any(c.requires_grad for c in cts)))
        with enable_grad():
            gs = lifted.grads(outs, cts, record)
        return tuple(lifted.per_argnum(gs, False))

    value = _detached(out, keep)
    return (value, vjp_fn, _detached(aux, keep)) if has_aux else (value, vjp_fn)


def _jvp_checks(primals, tangents, where):
    """PyTorch's refusals of jvp's primals and tangents; the tangents' leaves."""
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{where}: Expected primals to be a tuple. E.g. it should be valid "
                           f"to call f(*primals).")
    if _structure(primals) != _structure(tangents):
        raise RuntimeError(f"{where}: Expected primals and tangents to have the same python "
                           f"structure. For example, if primals is a tuple of 3 tensors, "
                           f"tangents also must be. Got primals with structure "
                           f"{_structure(primals)} and tangents with structure "
                           f"{_structure(tangents)}")
    flat = {"primals": _leaves(primals), "tangents": _leaves(tangents)}
    for name, leaves in flat.items():
        if not leaves:
            raise RuntimeError(f"{where}: Expected {name} to contain at least one Tensor.")
        for x in leaves:
            if not isinstance(x, _C.Tensor):
                raise RuntimeError(f"{where}: Expected {name} to only contain Tensors, got "
                                   f"{type(x)}")
    for p, t in zip(flat["primals"], flat["tangents"]):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"Trying to set a forward gradient that has a different size "
                               f"than that of the original Tensor, this is not supported. "
                               f"Tensor is of size {list(p.shape)} while the given forward "
                               f"gradient is of size {list(t.shape)}.")
    return flat["tangents"]


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """func's output at primals and its Jacobian-vector product with tangents, as
    ``torch.func.jvp``; computed by reverse mode (the double-backward trick: with u a
    dummy cotangent, ``J^T u`` is linear in u, and the gradient of ``<J^T u, t>`` with
    respect to u is ``J t``).

    Parameters
    ----------
    func : callable
        Returns a Tensor or a tuple, list or dict of them (or ``(output, aux)`` with
        has_aux).
    primals : tuple
        func's arguments: Tensors, or tuples, lists and dicts of them.
    tangents : tuple
        One Tensor of each primal's shape, in the structure of primals.
    strict : bool, optional
        Refuse an output that does not depend on the inputs (default False: its
        tangent is zeros).
    has_aux : bool, optional
        func returns ``(output, aux)``; aux is returned third.

    Returns
    -------
    tuple
        ``(output, jvp_out)`` or ``(output, jvp_out, aux)``; jvp_out has the structure
        of output.

    Raises
    ------
    RuntimeError
        When primals is not a tuple, tangents do not match the primals' structure or
        shapes, either holds something other than Tensors, func returns something
        other than Tensors, or (strict) an output does not depend on the inputs.

    Examples
    --------
    >>> from pydevtensor.func import jvp
    >>> x = pydevtensor.tensor([1., 2.])
    >>> jvp(lambda x: x ** 3, (x,), (pydevtensor.tensor([1., 0.5]),))
    (tensor([1., 8.]), tensor([3., 6.]))
    """
    where = "jvp(f, primals, tangents)"
    cts = _jvp_checks(primals, tangents, where)
    outside = _C.is_grad_enabled()
    with enable_grad():
        lifted = _Lifted(primals, range(len(primals)), where, forward=True)
        out, aux = _split_aux(func(*lifted.args), has_aux, where)
        outs = _tensor_outputs(out, where)
        keep = outside and lifted.reaches_outside(outs)
        record = keep or (outside and any(t.requires_grad for t in cts))
        diff = [o for o in outs if o.requires_grad and (o.is_floating_point() or o.is_complex())]
        dummies = [_done(_C.zeros_like(o).requires_grad_(True)) for o in diff]
        gs = _autograd_grad(diff, lifted.inputs, dummies, create_graph=True,
                            allow_unused=True) if diff else ()
        terms = [(g * t).sum() for g, t in zip(gs, cts) if g is not None and g.requires_grad]
        jv = _autograd_grad([sum(terms[1:], terms[0])], dummies, create_graph=record,
                            allow_unused=True) if terms else (None,) * len(diff)
    found = {id(o): j for o, j in zip(diff, jv)}
    tangents_out = []
    for o in outs:
        j = found.get(id(o))
        if j is None and strict:
            raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is "
                               "independent of the inputs. This is not allowed with "
                               "strict=True.")
        tangents_out.append(_C.zeros_like(o) if j is None else (j if record else j.detach()))
    value = _detached(out, keep)
    jvp_out = _rebuild(out, iter(tangents_out))
    return (value, jvp_out, _detached(aux, keep)) if has_aux else (value, jvp_out)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """A function that returns the Jacobian of func with respect to the arguments
    argnums, by reverse mode (one backward pass per output element), as
    ``torch.func.jacrev``; it composes with itself and with grad.

    Parameters
    ----------
    func : callable
        Returns a Tensor or a tuple, list or dict of them (or ``(output, aux)`` with
        has_aux).
    argnums : int or tuple of int, optional
        The positional arguments to differentiate (default 0).
    has_aux : bool, optional
        func returns ``(output, aux)``; the result is then ``(jacobian, aux)``.
    chunk_size : int, optional
        Accepted for PyTorch's signature (> 0); the rows are computed one by one.

    Returns
    -------
    callable
        Taking func's arguments and returning, for each output of shape O and
        differentiated input of shape I, a Tensor of shape O + I, in the structure of
        the outputs whose leaves have the structure of the inputs (a tuple over
        argnums for a tuple).

    Raises
    ------
    RuntimeError
        When func returns something other than tensors, an output is not floating
        point, or argnums names no positional argument.
    ValueError
        When chunk_size is not positive, or an argument to differentiate holds
        something other than Tensors.

    Examples
    --------
    >>> from pydevtensor.func import jacrev
    >>> jacrev(lambda x: x ** 2)(pydevtensor.tensor([1., 2.]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian(func, argnums, has_aux, "jacrev(f, argnums)")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """A function that returns the Jacobian of func with respect to the arguments
    argnums, as ``torch.func.jacfwd``: the values of :func:`jacrev`, which computes
    them (by reverse mode, as all of pydevtensor's forward-mode results).

    Parameters
    ----------
    func : callable
        As for :func:`jacrev`.
    argnums : int or tuple of int, optional
        The positional arguments to differentiate (default 0).
    has_aux : bool, optional
        func returns ``(output, aux)``; the result is then ``(jacobian, aux)``.
    randomness : str, optional
        'error', 'different' or 'same', accepted for PyTorch's signature (no vmap
        runs here, so random ops draw as they would outside).

    Returns
    -------
    callable
        As :func:`jacrev`'s.

    Raises
    ------
    RuntimeError
        As :func:`jacrev` (integer outputs are allowed: their Jacobian is zeros), or for
        another randomness.
    ValueError
        When an argument to differentiate holds something other than floating-point
        Tensors.

    Examples
    --------
    >>> from pydevtensor.func import jacfwd
    >>> jacfwd(lambda x: x.sin())(pydevtensor.tensor([0., 0.]))
    tensor([[1., 0.],
            [0., 1.]])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    return _jacobian(func, argnums, has_aux, "jacfwd(f, argnums)")


def _jacobian(func, argnums, has_aux, where):
    def wrapper(*args, **kwargs):
        outside = _C.is_grad_enabled()
        with enable_grad():
            forward = where.startswith("jacfwd")
            lifted, out, aux = _lifted_call(func, args, kwargs, argnums, has_aux, where,
                                            forward)
            outs = _tensor_outputs(out, where)
            if not forward:
                _floating(outs)
            keep = outside and lifted.reaches_outside(outs)
            blocks = []
            for o in outs:
                rows = [lifted.grads([o.reshape(-1)[i]], [None], keep) for i in range(o.numel())]
                blocks.append(lifted.per_argnum(
                    [(_stack([r[k] for r in rows]) if rows else
                      _C.zeros((0,) + tuple(x.shape), dtype=x.dtype, device=x.device)).reshape(
                          tuple(o.shape) + tuple(x.shape))
                     for k, x in enumerate(lifted.inputs)], isinstance(argnums, int)))
        jac = _rebuild(out, iter(blocks))
        return (jac, _detached(aux, keep)) if has_aux else jac
    return wrapper


def hessian(func, argnums=0):
    """A function that returns the Hessian of func (second derivatives) with respect to
    the arguments argnums, as ``torch.func.hessian``: ``jacfwd(jacrev(func, argnums),
    argnums)``.

    Parameters
    ----------
    func : callable
        Returns a Tensor (the Hessian of each element is taken; a 0-d output gives
        shape I + I).
    argnums : int or tuple of int, optional
        The positional arguments to differentiate (default 0).

    Returns
    -------
    callable
        Taking func's arguments and returning the Hessian (nested tuples over argnums
        for a tuple).

    Raises
    ------
    RuntimeError
        As :func:`jacrev`.

    Examples
    --------
    >>> from pydevtensor.func import hessian
    >>> hessian(lambda x: (x ** 3).sum())(pydevtensor.tensor([1., 2.]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
