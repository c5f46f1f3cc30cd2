"""autograd.functional: jacobian, hessian, vjp, jvp, hvp and vhp of a Python function
(as torch.autograd.functional), built on autograd.grad with create_graph=True.

jvp uses the double-backward trick: with u a dummy gradient that requires grad,
``g(u) = J^T u`` is linear in u, so the gradient of ``<g(u), v>`` with respect to u
is ``J v``.
"""
from .. import _C
from .grad_mode import enable_grad

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _tuple(x, what):
    """x as a tuple of Tensors, and whether it was a single Tensor; a list is refused,
    as PyTorch's (only a Tensor or a tuple of them)."""
    single = not isinstance(x, tuple)
    xs = (x,) if single else x
    for k, t in enumerate(xs):
        if not isinstance(t, _C.Tensor):
            where = f"given {what} has type" if single else f"value at index {k} has type"
            raise TypeError(f"The {what} given to the function must be either a Tensor or a "
                            f"tuple of Tensors but the {where} {type(t).__name__}.")
    return xs, single


def _prepare(inputs, create_graph):
    xs, single = _tuple(inputs, "inputs")
    # with create_graph, a view of x (PyTorch's inp.view_as(inp)): in x's graph, so the
    # results differentiate with respect to x, but x's own tensor hooks do not run on
    # the gradients taken with respect to the view
    return tuple(x.view_as(x) if create_graph and x.requires_grad else
                 x.detach().requires_grad_(True) for x in xs), single


def _grad(outputs, inputs, grad_outputs, create_graph):
    from . import grad
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad([o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=True,
                create_graph=create_graph, allow_unused=True)


def _fill(grads, like, create_graph):
    return tuple(_C.zeros_like(x) if g is None else (g if create_graph else g.detach())
                 for g, x in zip(grads, like))


def _vectors(v, like, none_msg, count_msg):
    """v as a tuple matching the tensors like (ones for v=None and a single
    one-element tensor)."""
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if {none_msg} is a single "
                               "Tensor with a single element.")
        return (_C.ones_like(like[0]),)
    vs, _ = _tuple(v, "v")
    if len(vs) != len(like):
        raise RuntimeError(f"v has {len(vs)} elements but {count_msg(len(like))}")
    return vs


def _strict_outputs(outs, strict):
    """strict=True: every output must depend on the inputs (PyTorch's message)."""
    for i, o in enumerate(outs if strict else ()):
        if not o.requires_grad:
            raise RuntimeError(f"Output {i} of the user-provided function does not require "
                               "gradients. The outputs must be computed in a differentiable "
                               "manner from the input when running in strict mode.")


def _outputs(func, xs, strict):
    """func(*xs) as a tuple of Tensors, and whether it was a single one; strict=True: each
    must depend on the inputs."""
    outs, single = _tuple(func(*xs), "outputs of the user-provided function")
    _strict_outputs(outs, strict)
    return outs, single


def _strict_grads(grads, strict):
    """strict=True: no gradient may be missing (an input the outputs do not use)."""
    for i, g in enumerate(grads if strict else ()):
        if g is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")


def _strict_jacobian(jac, strict):
    """strict=True (hessian, vhp, hvp): the gradient must depend on the inputs."""
    for i, g in enumerate(jac if strict else ()):
        if g is None or not g.requires_grad:
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).")


def _grad_along(gs, wrt, vs, create_graph):
    """The gradient of sum <gs[k], vs[k]> (the gs made with create_graph) with respect
    to wrt, zeros where it does not depend on one, as a tuple."""
    pairs = [(g, v) for g, v in zip(gs, vs) if g is not None and g.requires_grad]
    res = _grad([p[0] for p in pairs], wrt, [p[1] for p in pairs], create_graph) \
        if pairs else (None,) * len(wrt)
    return _fill(res, wrt, create_graph)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product (as
    torch.autograd.functional.vjp).

    Parameters
    ----------
    func : callable
        Takes the inputs, returns a Tensor or a tuple of Tensors.
    inputs : Tensor or tuple of Tensor
    v : Tensor or tuple of Tensor, optional
        One per output (may be omitted for a single one-element output).
    create_graph : bool, optional
        Record the result's computation (for a further derivative).
    strict : bool, optional
        True: an output or gradient independent of an input raises a RuntimeError
        (False, the default: it gives zeros).

    Returns
    -------
    (outputs, vjp)
        Each a Tensor or a tuple, as func's outputs and the inputs are.

    Raises
    ------
    TypeError
        When inputs or v are not Tensors.

    Examples
    --------
    >>> f = lambda x: x ** 2
    >>> pydevtensor.autograd.functional.vjp(f, pydevtensor.tensor([1., 2.]),
    ...                                     pydevtensor.tensor([1., 1.]))
    (tensor([1., 4.]), tensor([2., 4.]))
    """
    with enable_grad():
        xs, single_in = _prepare(inputs, create_graph)
        outs, single_out = _outputs(func, xs, strict)
        vs = _vectors(v, outs, "the output of the user-provided function",
                      lambda n: f"the function has {n} outputs")
        grads = _grad(outs, xs, vs, create_graph)
        _strict_grads(grads, strict)
        grads = _fill(grads, xs, create_graph)
    outs = tuple(o if create_graph else o.detach() for o in outs)
    return (outs[0] if single_out else outs), (grads[0] if single_in else grads)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``: the Jacobian-vector product (as
    torch.autograd.functional.jvp; by the double-backward trick).

    Parameters
    ----------
    func : callable
        Takes the inputs, returns a Tensor or a tuple of Tensors.
    inputs : Tensor or tuple of Tensor
    v : Tensor or tuple of Tensor, optional
        One per input (may be omitted for a single one-element input).
    create_graph : bool, optional
        Record the result's computation.
    strict : bool, optional
        True: an output or gradient independent of an input raises a RuntimeError.

    Returns
    -------
    (outputs, jvp)

    Raises
    ------
    TypeError
        When inputs or v are not Tensors.

    Examples
    --------
    >>> f = lambda x: x ** 2
    >>> pydevtensor.autograd.functional.jvp(f, pydevtensor.tensor([1., 2.]),
    ...                                     pydevtensor.tensor([1., 0.]))
    (tensor([1., 4.]), tensor([2., 0.]))
    """
    with enable_grad():
        xs, single_in = _prepare(inputs, create_graph)
        vs = _vectors(v, xs, "the input to the user-provided function",
                      lambda n: f"there are {n} inputs")
        outs, single_out = _outputs(func, xs, strict)
        dummies = tuple(_C.zeros_like(o).requires_grad_(True) for o in outs)
        back = _grad(outs, xs, dummies, True)
        _strict_grads(back, strict)
        res = _grad_along(back, dummies, vs, create_graph)
    outs = tuple(o if create_graph else o.detach() for o in outs)
    return (outs[0] if single_out else outs), (res[0] if single_out else res)


def _check_strategy(strategy, create_graph, strict, vectorize):
    """jacobian's strategy, and what PyTorch refuses with "forward-mode" (in its order)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".')
    if strategy == "reverse-mode":
        return
    if create_graph:
        raise NotImplementedError(
            "torch.autograd.functional.jacobian: `create_graph=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`create_graph=False` or `strategy="reverse-mode"`.')
    if strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`strict=False` or `strategy="reverse-mode"`.')
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian is only implemented for `vectorize=True`.")


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of func at inputs (as torch.autograd.functional.jacobian): for
    one input and one output a Tensor of shape ``output.shape + input.shape``;
    tuples of them (nested: [output][input]) otherwise.

    Parameters
    ----------
    func : callable
    inputs : Tensor or tuple of Tensor
    create_graph : bool, optional
        Record the computation (for a further derivative).
    strict : bool, optional
        True: an output independent of an input raises a RuntimeError (not together
        with vectorize, nor with strategy="forward-mode", as PyTorch).
    vectorize : bool, optional
        Accepted for PyTorch's signature (rows are computed one by one); PyTorch's
        strategy="forward-mode" needs it True.
    strategy : str, optional
        "reverse-mode" (default) or "forward-mode".  pydevtensor has no forward-mode
        autograd: "forward-mode" takes PyTorch's arguments and refusals (vectorize=True
        needed; no create_graph, no strict) and gives the same values, which reverse mode
        computes (as :func:`pydevtensor.func.jacfwd` does).

    Returns
    -------
    Tensor or tuple

    Raises
    ------
    AssertionError
        For a strategy that is neither "reverse-mode" nor "forward-mode" (PyTorch's).
    NotImplementedError
        For strategy="forward-mode" with create_graph=True or vectorize=False.
    RuntimeError
        For strict=True with vectorize=True or strategy="forward-mode".

    Examples
    --------
    >>> f = lambda x: x ** 2
    >>> pydevtensor.autograd.functional.jacobian(f, pydevtensor.tensor([1., 2.]))
    tensor([[2., 0.],
            [0., 4.]])
    >>> pydevtensor.autograd.functional.jacobian(f, pydevtensor.tensor([1., 2.]),
    ...                                          vectorize=True, strategy="forward-mode")
    tensor([[2., 0.],
            [0., 4.]])
    """
    _check_strategy(strategy, create_graph, strict, vectorize)
    if strict and vectorize:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           "`vectorized=True` are not supported together. Please either set "
                           "`strict=False` or `vectorize=False`.")
    with enable_grad():
        xs, single_in = _prepare(inputs, create_graph)
        outs, single_out = _outputs(func, xs, strict)
        from .._ops_join import stack
        jac = []
        for o in outs:
            flat = o.reshape(-1)
            rows = [[] for _ in xs]
            for i in range(flat.numel()):
                gs = _grad((flat[i],), xs, (None,), create_graph) if flat.requires_grad \
                    else (None,) * len(xs)
                for k, g in enumerate(gs if strict else ()):
                    if g is None:
                        raise RuntimeError(f"Output {len(jac)} of the user-provided function "
                                           f"is independent of input {k}. This is not "
                                           "allowed in strict mode.")
                for k, (g, x) in enumerate(zip(_fill(gs, xs, create_graph), xs)):
                    rows[k].append(g)
            jac.append(tuple(
                (stack(r, 0) if r else _C.zeros((0,) + tuple(x.shape), dtype=x.dtype,
                                                device=x.device)).reshape(
                    tuple(o.shape) + tuple(x.shape)) for r, x in zip(rows, xs)))
    if single_out:
        return jac[0][0] if single_in else jac[0]
    return tuple(j[0] for j in jac) if single_in else tuple(jac)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a function with a one-element output (as
    torch.autograd.functional.hessian): shape ``input.shape + input.shape`` for one
    input, a tuple of tuples for several.

    Parameters
    ----------
    func : callable
        Returns a Tensor with one element.
    inputs : Tensor or tuple of Tensor
    create_graph : bool, optional
    strict : bool, optional
        True: a gradient independent of an input (a linear function) raises a
        RuntimeError (not together with vectorize, as PyTorch).
    vectorize : bool, optional
        Accepted for PyTorch's signature (rows are computed one by one).
    outer_jacobian_strategy : str, optional
        "reverse-mode" (default) or "forward-mode" (needs vectorize=True, no
        create_graph, no strict): as :func:`jacobian`'s strategy.

    Returns
    -------
    Tensor or tuple of tuples

    Raises
    ------
    RuntimeError
        When func's output has more than one element, or strict and vectorize are
        both True.

    Examples
    --------
    >>> f = lambda x: (x ** 3).sum()
    >>> pydevtensor.autograd.functional.hessian(f, pydevtensor.tensor([1., 2.]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    xs, single_in = _tuple(inputs, "inputs")

    def gradient(*args):
        out = func(*args)
        if not isinstance(out, _C.Tensor) or out.numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor "
                               "with a single element")
        _strict_outputs((out,), strict)
        gs = _grad((out.reshape(()),), args, (None,), True) if out.requires_grad \
            else (None,) * len(args)
        _strict_jacobian(gs, strict)
        return tuple(_C.zeros_like(a) if g is None else g for g, a in zip(gs, args))

    res = jacobian(gradient, xs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return res[0][0] if single_in else res


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)``: a vector-Hessian product of a function with a
    one-element output (as torch.autograd.functional.vhp).

    Parameters
    ----------
    func : callable
    inputs : Tensor or tuple of Tensor
    v : Tensor or tuple of Tensor
        Shaped as the inputs.
    create_graph, strict : bool, optional

    Returns
    -------
    (output, vhp)

    Raises
    ------
    RuntimeError
        When func's output has more than one element, or strict and vectorize are
        both True.

    Examples
    --------
    >>> f = lambda x: (x ** 3).sum()
    >>> pydevtensor.autograd.functional.vhp(f, pydevtensor.tensor([1., 2.]),
    ...                                     pydevtensor.tensor([1., 1.]))
    (tensor(9.), tensor([ 6., 12.]))
    """
    with enable_grad():
        xs, single_in = _prepare(inputs, create_graph)
        out = func(*xs)
        if not isinstance(out, _C.Tensor) or out.numel() != 1:
            raise RuntimeError("The function given to vhp/hvp should return a single Tensor "
                               "with a single element")
        _strict_outputs((out,), strict)
        vs = _vectors(v, xs, "the input to the user-provided function",
                      lambda n: f"there are {n} inputs")
        jac = _grad((out,), xs, (None,), True)
        _strict_jacobian(jac, strict)
        res = _grad_along(jac, xs, vs, create_graph)
    out = out if create_graph else out.detach()
    return out, (res[0] if single_in else res)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)``: a Hessian-vector product (as
    torch.autograd.functional.hvp; the Hessian is symmetric, so it is vhp's).

    Parameters
    ----------
    func : callable
    inputs : Tensor or tuple of Tensor
    v : Tensor or tuple of Tensor
    create_graph, strict : bool, optional

    Returns
    -------
    (output, hvp)

    Raises
    ------
    RuntimeError
        When func's output has more than one element, or strict and vectorize are
        both True.

    Examples
    --------
    >>> f = lambda x: (x[0] * x[1]) ** 2
    >>> pydevtensor.autograd.functional.hvp(f, pydevtensor.tensor([1., 2.]),
    ...                                     pydevtensor.tensor([1., 0.]))
    (tensor(4.), tensor([8., 8.]))
    """
    return vhp(func, inputs, v, create_graph, strict)
