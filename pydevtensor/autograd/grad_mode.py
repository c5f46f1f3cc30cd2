"""no_grad, enable_grad, set_grad_enabled and inference_mode: context managers and
decorators.

Grad mode is a thread-local flag kept in C (csrc/python/autograd.c), read by every op
binding only when one of its arguments requires grad; each thread starts with it on.
"""
import functools
import inspect
import sys
import threading

from .. import _C, _args

is_grad_enabled = _C.is_grad_enabled


def _generator_in(context, fn):
    """fn, a generator function, wrapped so that its body runs inside context() (a
    fresh one each time) on every resume, and the caller's mode is back between them:
    a decorated generator only sets the mode when its first value is asked for, after
    a plain wrapper had restored it (as PyTorch's decorators do for generators)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        gen = fn(*args, **kwargs)
        resume, value = gen.send, None
        while True:
            try:
                with context():
                    out = resume(value)
            except StopIteration as stop:
                return stop.value
            try:
                value = yield out
                resume = gen.send
            except GeneratorExit:  # close(): the generator's finally blocks run inside
                with context():
                    gen.close()
                raise
            except BaseException:  # throw(): raised inside the generator, inside context
                resume, value = (lambda exc: gen.throw(exc)), sys.exc_info()[1]

    return wrapper


class _Mode:
    """A context that sets grad mode to mode and restores the previous one."""

    __slots__ = ("mode", "prev")

    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = _C._set_grad_enabled(self.mode)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)
        return False


class _GradMode:
    """Base of the three: a context manager, and a decorator that runs the function
    inside it (a fresh context per call, so it is reentrant and thread-safe; around
    each resume of a generator function)."""

    _mode = True

    def __new__(cls, *args, **kwargs):
        if cls is not set_grad_enabled and (args or kwargs):
            fn = args[0] if args else None
            if kwargs or len(args) > 1 or not callable(fn):
                raise TypeError(f"{cls.__name__}() takes no arguments, or a function as "
                                f"the bare decorator @{cls.__name__}")
            return cls()(fn)  # the bare decorator, as PyTorch 2 takes it
        return super().__new__(cls)

    def __enter__(self):
        self._prev = _C._set_grad_enabled(self._mode)
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        # the mode each call sets and the one it restores are the call's own locals
        # (reentrant, thread-safe), without a context object per call (optimizer steps)
        mode, set_mode = self._mode, _C._set_grad_enabled
        if inspect.isgeneratorfunction(fn):
            return _generator_in(lambda: _Mode(mode), fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = set_mode(mode)
            try:
                return fn(*args, **kwargs)
            finally:
                set_mode(prev)

        return wrapper


class no_grad(_GradMode):
    """A context manager (and decorator) inside which operations record nothing: results
    do not require grad (as torch.no_grad).

    Parameters
    ----------
    func : callable, optional
        Only as the bare decorator ``@no_grad`` (PyTorch 2's): the function wrapped.

    Examples
    --------
    >>> w = pydevtensor.ones(2, requires_grad=True)
    >>> with pydevtensor.no_grad():
    ...     y = w * 2
    >>> y.requires_grad
    False
    """

    _mode = False


class enable_grad(_GradMode):
    """A context manager (and decorator) that turns recording back on inside a no_grad
    block (as torch.enable_grad).

    Parameters
    ----------
    func : callable, optional
        Only as the bare decorator ``@enable_grad``: the function wrapped.

    Examples
    --------
    >>> w = pydevtensor.ones(2, requires_grad=True)
    >>> with pydevtensor.no_grad():
    ...     with pydevtensor.enable_grad():
    ...         y = w * 2
    >>> y.requires_grad
    True
    """

    _mode = True


class set_grad_enabled(_GradMode):
    """Sets grad mode at once (as a function call), and restores the previous mode on
    leaving when used with ``with`` or as a decorator.

    Parameters
    ----------
    mode : bool
        Whether operations record the graph.

    Raises
    ------
    TypeError
        When mode is not a bool.

    Examples
    --------
    >>> with pydevtensor.set_grad_enabled(False):
    ...     pydevtensor.is_grad_enabled()
    False
    >>> pydevtensor.is_grad_enabled()
    True
    """

    def __init__(self, mode):
        _args.flag(mode, "set_grad_enabled", "mode", numpy=False, position=1)
        self._mode = mode
        self._prev = _C._set_grad_enabled(mode)

    def __enter__(self):
        _C._set_grad_enabled(self._mode)  # again: the object may be entered later
        return self

    def __call__(self, fn):
        _C._set_grad_enabled(self._prev)  # as a decorator, the call above was not meant
        return super().__call__(fn)


_inference = threading.local()


def is_inference_mode_enabled():
    """Whether this thread is inside ``inference_mode()`` (as
    torch.is_inference_mode_enabled).

    Returns
    -------
    bool

    Examples
    --------
    >>> with pydevtensor.inference_mode():
    ...     pydevtensor.is_inference_mode_enabled()
    True
    >>> pydevtensor.is_inference_mode_enabled()
    False
    """
    return getattr(_inference, "on", False)


class inference_mode:
    """A context manager (and decorator) for running a model without autograd (as
    torch.inference_mode): inside it nothing is recorded, as under no_grad.

    PyTorch also marks the tensors made inside as inference tensors, which autograd
    refuses later, to save a version counter per tensor; pydevtensor keeps no such
    extra state, so its results are ordinary tensors that do not require grad, and an
    ``enable_grad()`` block inside records as it does anywhere.

    Parameters
    ----------
    mode : bool, optional
        True (the default) turns recording off; False turns it on (as PyTorch's
        ``inference_mode(False)``), so ``inference_mode(condition)`` picks one.  A
        function in its place (the bare decorator ``@inference_mode``) is wrapped.

    Raises
    ------
    TypeError
        When mode is neither a bool nor a function.

    Examples
    --------
    >>> w = pydevtensor.ones(2, requires_grad=True)
    >>> with pydevtensor.inference_mode():
    ...     y = w * 2
    >>> y.requires_grad
    False
    >>> @pydevtensor.inference_mode
    ... def predict(x):
    ...     return w * x
    >>> predict(3.0).requires_grad
    False
    """

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)  # the bare decorator
        return super().__new__(cls)

    def __init__(self, mode=True):
        _args.flag(mode, "inference_mode", "mode", numpy=False, position=1)
        self._mode = mode
        # what each enter replaces, per thread (a stack: an object may be entered again
        # inside itself, and one object may be shared by threads)
        self._prev = threading.local()

    def __enter__(self):
        stack = self._prev.__dict__.setdefault("stack", [])
        stack.append((_C._set_grad_enabled(not self._mode), is_inference_mode_enabled()))
        _inference.on = self._mode
        return self

    def __exit__(self, *exc):
        grad, inference = self._prev.stack.pop()
        _C._set_grad_enabled(grad)
        _inference.on = inference
        return False

    def __call__(self, fn):
        mode = self._mode
        if inspect.isgeneratorfunction(fn):
            return _generator_in(lambda: inference_mode(mode), fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):  # a fresh context per call: reentrant, thread-safe
                return fn(*args, **kwargs)

        return wrapper
