"""Argument names that PyTorch accepts beside its documented ones.

NumPy's ``axis`` for ``dim`` and ``keepdims`` for ``keepdim`` (its argument parser's
NumPy aliases), so that ``A.sum(axis=1, keepdims=True)`` and ``y_hat.argmax(axis=1)``,
as *Dive into Deep Learning*'s PyTorch edition writes them, run unchanged.  The ops in C
take them in their keyword parser (csrc/python/args.c); the ops written in Python take
them through ``numpy_names``.

The names of PyTorch's native schemas where its documentation writes others:
``torch.linalg.cholesky(input=A)`` (documented as ``cholesky(A)``), through
``native_names``.
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
    """fn, also taking axis= for dim= and keepdims= for keepdim= (the wrapper as
    ``_like`` makes it)."""
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

    return _like(wrapper, fn)


def _like(wrapper, fn):
    """wrapper with fn's name and docstring; its ``__wrapped__`` stays fn's own (the
    unrecorded body of a recorded op), so code that reaches for the body still finds it."""
    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(wrapper, attr, getattr(fn, attr))
    wrapper.__wrapped__ = getattr(fn, "__wrapped__", fn)
    wrapper.__dict__.update({k: v for k, v in fn.__dict__.items() if k != "__wrapped__"})
    return wrapper


def native_names(**native):
    """Decorator: fn, also taking its leading arguments by PyTorch's native keywords,
    native=own (``@native_names(input="A")``: ``f(input=X)`` is ``f(X)``), first one
    first.  Given by either name they go to fn positionally, so recorded ops' rules
    (Node.save) see them as always; fn's own names keep working, as documented."""
    pairs = tuple(native.items())

    def wrap(fn):
        name = fn.__name__

        def wrapper(*args, **kw):
            if kw:
                for k, (alias, own) in enumerate(pairs):
                    if alias not in kw and own not in kw:
                        continue
                    if len(args) > k or (alias in kw and own in kw):
                        raise TypeError(f"{name}() got multiple values for argument '{own}' "
                                        f"(PyTorch's native name '{alias}')")
                    value = kw.pop(alias) if alias in kw else kw.pop(own)
                    if len(args) < k:  # an earlier one missing: fn says so
                        kw[own] = value
                    else:
                        args += (value,)
            return fn(*args, **kw)

        return _like(wrapper, fn)

    return wrap
