"""``pydevtensor.jit``: PyTorch's TorchScript entry points, for code written for them.

pydevtensor has no graph compiler: its ops run eagerly and are dispatched from C, so
there is nothing for a script or a trace to remove.  ``script`` and ``trace`` return
what they are given, unchanged, so that D2L 13.1's ``net = torch.jit.script(net)`` runs
(its timings then show no difference, which is the honest answer here).  A scripted
module's ``save`` (a TorchScript archive) has no counterpart: save the state_dict.
"""

# Note [no TorchScript archives]: D2L 13.1 calls net.save('my_mlp') on a scripted net,
# and PyTorch users call jit.save / jit.load.  Those names stay absent (nothing here
# could write or read TorchScript), but the AttributeError says what to do instead.
_NO_ARCHIVE_HINT = ("; jit.script() returns the module itself in pydevtensor (it runs "
                   "eagerly, there is no TorchScript archive): save the parameters with "
                   "pydevtensor.save(net.state_dict(), path) and load them into a new net "
                   "with net.load_state_dict(pydevtensor.load(path))")


def __getattr__(name):
    hint = _NO_ARCHIVE_HINT if name in ("save", "load") else ""
    raise AttributeError(f"module 'pydevtensor.jit' has no attribute '{name}'{hint}")


def _callable(obj, where, name):
    if not callable(obj):
        raise TypeError(f"{where}: {name} must be a Module or a function, got "
                        f"{type(obj).__name__}")
    return obj


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Returns obj unchanged: pydevtensor runs modules and functions eagerly.

    Parameters
    ----------
    obj : Module or callable
        What PyTorch would compile to TorchScript.
    optimize, _frames_up, _rcb, example_inputs
        Accepted for PyTorch's signature and ignored.

    Returns
    -------
    Module or callable
        obj itself.

    Raises
    ------
    TypeError
        When obj is not callable.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> net = nn.Linear(2, 1)
    >>> pydevtensor.jit.script(net) is net
    True
    """
    return _callable(obj, "jit.script()", "obj")


def trace(func, example_inputs=None, *args, **kwargs):
    """Returns func unchanged (see ``script``): a trace would record the same ops that
    pydevtensor runs eagerly.

    Parameters
    ----------
    func : Module or callable
        What PyTorch would trace.
    example_inputs : Tensor or tuple, optional
        Accepted and ignored (nothing is run).
    *args, **kwargs
        PyTorch's other options, ignored.

    Returns
    -------
    Module or callable
        func itself.

    Raises
    ------
    TypeError
        When func is not callable.

    Examples
    --------
    >>> f = pydevtensor.jit.trace(pydevtensor.relu, pydevtensor.ones(2))
    >>> f(pydevtensor.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """
    return _callable(func, "jit.trace()", "func")


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):
    """PyTorch's ``torch.compile``: returns model unchanged, since pydevtensor runs
    eagerly (as ``torch.compile`` itself does for what it cannot compile); with no model,
    a decorator that does the same.

    Parameters
    ----------
    model : Module or callable, optional
        What PyTorch would compile.
    fullgraph, dynamic, backend, mode, options, disable
        Accepted for PyTorch's signature and ignored.

    Returns
    -------
    Module or callable
        model itself, or a decorator when model is None.

    Raises
    ------
    TypeError
        When model is given and is not callable.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> net = nn.Linear(2, 1)
    >>> pydevtensor.compile(net) is net
    True
    """
    if model is None:
        return lambda m: _callable(m, "compile()", "model")
    return _callable(model, "compile()", "model")
