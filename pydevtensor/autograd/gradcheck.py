"""autograd.gradcheck and gradgradcheck: autograd's Jacobians (one backward per output
element) against central differences (two calls of the function per input element),
as torch.autograd's, for testing a custom Function or a hand-written backward."""
import warnings

from .. import _C

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """A Jacobian from autograd differs from the numerical one (PyTorch's class).

    Examples
    --------
    >>> issubclass(pydevtensor.autograd.GradcheckError, RuntimeError)
    True
    """


def _tensors(out):
    if isinstance(out, _C.Tensor):
        return (out,)
    if isinstance(out, (tuple, list)):
        return tuple(o for o in out if isinstance(o, _C.Tensor))
    raise TypeError(f"gradcheck: the function must return a Tensor or a tuple of Tensors, "
                    f"got {type(out).__name__}")


def _numerical(func, inputs, k, eps, outputs):
    """d(every output element)/d(inputs[k]) by central differences: a list per output of
    (input numel, output numel) float64 NumPy arrays."""
    import numpy as np
    x = inputs[k]
    cols = [np.zeros((x.numel(), o.numel())) for o in outputs]
    for e in range(x.numel()):
        values = []
        for step in (eps, -eps):
            moved = x.detach().clone()  # x's layout kept: channels_last stays so
            at = np.unravel_index(e, tuple(x.shape))  # e-th element in row-major order
            moved[at] = moved[at] + step
            args = list(inputs)
            # still requiring grad: func may differentiate (gradgradcheck's does)
            args[k] = moved.requires_grad_(x.requires_grad)
            values.append(_tensors(func(*args)))
        for j, (up, down) in enumerate(zip(*values)):
            diff = (up.detach().double() - down.detach().double()).reshape(-1) / (2 * eps)
            cols[j][e] = diff.cpu().numpy()
    return cols


def _analytical(outputs, wanted):
    """d(every output element)/d(each wanted input) by autograd: one backward per output
    element.  [input][output] -> (input numel, output numel) arrays."""
    import numpy as np
    from . import grad
    rows = [[np.zeros((x.numel(), o.numel())) for o in outputs] for x in wanted]
    for j, o in enumerate(outputs):
        if not o.requires_grad:
            continue
        for m in range(o.numel()):
            pick = _C.zeros(tuple(o.shape), dtype=o.dtype, device=o.device)
            pick.view(-1)[m] = 1
            gs = grad(o, wanted, pick, retain_graph=True, allow_unused=True)
            for i, g in enumerate(gs):
                if g is not None:
                    rows[i][j][:, m] = g.double().reshape(-1).cpu().numpy()
    return rows


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Checks autograd's gradients of func at inputs against central differences (as
    torch.autograd.gradcheck): for every input that requires grad and every output,
    the Jacobian autograd gives must match ``(f(x + eps) - f(x - eps)) / (2 eps)``
    within ``atol + rtol * |numerical|``.  Use float64 inputs (a warning otherwise).

    Parameters
    ----------
    func : callable
        Takes the inputs, returns a Tensor or a tuple of Tensors.
    inputs : Tensor or tuple
        The point; the tensors that require grad are checked.
    eps, atol, rtol : float, optional
        The step and the tolerances (PyTorch's defaults).
    raise_exception : bool, optional
        Raise GradcheckError on a mismatch (default) or return False.
    nondet_tol, check_undefined_grad, check_grad_dtypes, check_batched_grad, check_batched_forward_grad, check_forward_ad, check_backward_ad, fast_mode, masked
        Taken for PyTorch's signature; forward-mode and batched checks are not done.

    Returns
    -------
    bool
        True when every Jacobian matches.

    Raises
    ------
    GradcheckError
        On a mismatch (a RuntimeError), naming the output and the input, with both
        Jacobians.

    Examples
    --------
    >>> x = pydevtensor.tensor([1., 2.], dtype=pydevtensor.float64, requires_grad=True)
    >>> pydevtensor.autograd.gradcheck(lambda t: (t ** 3).sum(), (x,))
    True
    """
    import numpy as np
    inputs = (inputs,) if isinstance(inputs, _C.Tensor) else tuple(inputs)
    wanted_at = [k for k, x in enumerate(inputs)
                 if isinstance(x, _C.Tensor) and x.requires_grad]
    if not wanted_at:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for k in wanted_at:
        if inputs[k].dtype != _C.float64:
            warnings.warn(f"Input #{k} requires gradient and is not a double precision "
                          f"floating point ({inputs[k].dtype}): the check is likely to fail "
                          f"from rounding", UserWarning, stacklevel=2)
    outputs = _tensors(func(*inputs))
    analytical = _analytical(outputs, [inputs[k] for k in wanted_at])
    for i, k in enumerate(wanted_at):
        numerical = _numerical(func, inputs, k, eps, outputs)
        for j, (a, n) in enumerate(zip(analytical[i], numerical)):
            if a.shape != n.shape or not np.allclose(a, n, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {j} with respect to input {k},\n"
                    f"numerical:{n}\nanalytical:{a}\n(largest difference "
                    f"{np.abs(a - n).max() if a.shape == n.shape else 'shapes differ'})")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True,
                  fast_mode=False, masked=False):
    """Checks second derivatives (as torch.autograd.gradgradcheck): gradcheck of the
    function that maps (inputs, grad_outputs) to the gradients of func with
    create_graph=True.  grad_outputs default to random float64 tensors that require grad.

    Parameters
    ----------
    func : callable
        As gradcheck's.
    inputs : Tensor or tuple
        The point.
    grad_outputs : Tensor or tuple, optional
        The vectors the first backward is taken with.
    eps, atol, rtol, raise_exception
        As gradcheck's.
    gen_non_contig_grad_outputs, nondet_tol, check_undefined_grad, check_grad_dtypes, check_batched_grad, check_fwd_over_rev, check_rev_over_rev, fast_mode, masked
        Taken for PyTorch's signature.

    Returns
    -------
    bool

    Raises
    ------
    GradcheckError
        On a mismatch.

    Examples
    --------
    >>> x = pydevtensor.tensor([1., 2.], dtype=pydevtensor.float64, requires_grad=True)
    >>> pydevtensor.autograd.gradgradcheck(lambda t: t ** 3, (x,))
    True
    """
    from .functional import _grad  # the functional API's: outputs that require grad only
    inputs = (inputs,) if isinstance(inputs, _C.Tensor) else tuple(inputs)
    outputs = _tensors(func(*inputs))
    if grad_outputs is None:
        from .._generator import Generator
        gen = Generator().manual_seed(0)
        grad_outputs = tuple(
            _C.randn(tuple(o.shape), dtype=o.dtype, device=o.device, generator=gen)
            .requires_grad_() for o in outputs)
    else:
        grad_outputs = (grad_outputs,) if isinstance(grad_outputs, _C.Tensor) else \
            tuple(grad_outputs)
    n_in = len(inputs)
    wanted_at = [k for k, x in enumerate(inputs) if isinstance(x, _C.Tensor) and x.requires_grad]

    def first_derivatives(*args):
        ins, gos = args[:n_in], args[n_in:]
        gs = _grad(_tensors(func(*ins)), [ins[k] for k in wanted_at], gos, True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_derivatives, inputs + tuple(grad_outputs), eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception)
