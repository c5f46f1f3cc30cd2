"""NumPy's argument names that PyTorch also accepts: ``axis`` for ``dim`` and
``keepdims`` for ``keepdim`` (its argument parser's NumPy aliases), so that
``A.sum(axis=1, keepdims=True)`` and ``y_hat.argmax(axis=1)``, as *Dive into Deep
Learning*'s PyTorch edition writes them, run unchanged.  The ops in C take them in
their keyword parser (csrc/python/args.c); the ops written in Python take them
through ``numpy_names``.
"""

_ALIASES = (("axis", "dim"), ("keepdims", "keepdim"))
_TORCH_NAME = dict(_ALIASES)


def torch_names(kwargs):
    """kwargs with NumPy's names (axis, keepdims) renamed to PyTorch's (dim, keepdim),
    for code written with PyTorch's (the autograd rules: Node.save and pick); the same
    dict when it has none.  The call itself has already refused both spellings at once."""
    if "axis" not in kwargs and "keepdims" not in kwargs:
        return kwargs
    return {_TORCH_NAME.get(k, k): v for k, v in kwargs.items()}


def numpy_names(fn):
    """fn, also taking axis= for dim= and keepdims= for keepdim=.  The wrapper keeps
    fn's name and docstring; its ``__wrapped__`` stays fn's own (the unrecorded body of a
    recorded op), so code that reaches for the body still finds it."""
    name = fn.__name__

    def wrapper(*args, **kw):
        if kw and ("axis" in kw or "keepdims" in kw):
            for alias, canonical in _ALIASES:
                if alias in kw:
                    if canonical in kw:
                        raise TypeError(f"{name}() got multiple values for argument "
                                        f"'{canonical}' ({canonical}= and {alias}=)")
                    kw[canonical] = kw.pop(alias)
        return fn(*args, **kw)

    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(wrapper, attr, getattr(fn, attr))
    wrapper.__wrapped__ = getattr(fn, "__wrapped__", fn)
    wrapper.__dict__.update({k: v for k, v in fn.__dict__.items() if k != "__wrapped__"})
    return wrapper
