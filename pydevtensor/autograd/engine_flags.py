"""PyTorch's two thread-local switches of the autograd engine:
``is_multithreading_enabled`` / ``set_multithreading_enabled`` and
``is_view_replay_enabled`` / ``_force_original_view_tracking`` (the context manager
PyTorch's documentation calls set_view_replay_enabled).

pydevtensor's backward always runs on the calling thread, and a view whose base was
written in place always takes an ``AsStridedBackward0`` node (its elements picked out of
the base): the switches are kept and reported as PyTorch keeps them (per thread, on and
off by default), and neither changes a gradient.
"""
import functools
import threading

from .. import _args

_local = threading.local()


def is_multithreading_enabled():
    """Whether backward may run on the engine's per-device worker threads (PyTorch's
    ``torch.autograd.is_multithreading_enabled``): True unless this thread turned it off
    with ``set_multithreading_enabled(False)``.

    pydevtensor's backward always runs on the calling thread; the switch is kept for
    code that sets and reads it.

    Returns
    -------
    bool
        This thread's setting (True by default).

    Examples
    --------
    >>> pydevtensor.autograd.is_multithreading_enabled()
    True
    """
    return getattr(_local, "multithreading", True)


def is_view_replay_enabled():
    """Whether autograd always regenerates a view written through its base by replaying
    the view ops (PyTorch's ``torch.autograd.is_view_replay_enabled``): False unless this
    thread turned it on with ``_force_original_view_tracking(True)``.

    pydevtensor regenerates such a view with ``AsStridedBackward0`` either way (the same
    gradients); the switch is kept for code that sets and reads it.

    Returns
    -------
    bool
        This thread's setting (False by default).

    Examples
    --------
    >>> pydevtensor.autograd.is_view_replay_enabled()
    False
    """
    return getattr(_local, "view_replay", False)


class _Switch:
    """Sets this thread's flag at once (a function call); with ``with``, restores the
    previous value on leaving; as a decorator, sets it around each call of the function
    (and undoes the setting its construction made)."""

    _flag = _default = _name = None

    def __init__(self, mode):
        self.mode = _args.flag(mode, self._name, "mode", numpy=False, position=1)
        self.prev = getattr(_local, self._flag, self._default)
        setattr(_local, self._flag, mode)

    def __enter__(self):
        setattr(_local, self._flag, self.mode)  # again: the object may be entered later

    def __exit__(self, *exc):
        setattr(_local, self._flag, self.prev)
        return False

    def clone(self):
        """A new switch to the same mode, which (as any construction) sets it at once.

        Returns
        -------
        object
            The new switch, of this switch's class.

        Examples
        --------
        >>> with pydevtensor.autograd.set_multithreading_enabled(False).clone():
        ...     pydevtensor.autograd.is_multithreading_enabled()
        False
        """
        return type(self)(self.mode)

    def __call__(self, fn):
        setattr(_local, self._flag, self.prev)
        flag, default, mode = self._flag, self._default, self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = getattr(_local, flag, default)
            setattr(_local, flag, mode)
            try:
                return fn(*args, **kwargs)
            finally:
                setattr(_local, flag, prev)

        return wrapper


class set_multithreading_enabled(_Switch):
    """Turns multithreaded backward on or off for this thread (PyTorch's
    ``torch.autograd.set_multithreading_enabled``): at once as a call, until the end of
    the block with ``with``, around each call as a decorator.

    pydevtensor's backward always runs on the calling thread (what False asks for), so
    only ``is_multithreading_enabled`` sees the switch.

    Parameters
    ----------
    mode : bool
        True (the default state) to allow worker threads, False for the calling thread.

    Examples
    --------
    >>> with pydevtensor.autograd.set_multithreading_enabled(False):
    ...     pydevtensor.autograd.is_multithreading_enabled()
    False
    >>> pydevtensor.autograd.is_multithreading_enabled()
    True
    """

    _flag, _default, _name = "multithreading", True, "set_multithreading_enabled"


class _force_original_view_tracking(_Switch):
    """Turns view replay on or off for this thread (PyTorch's
    ``torch.autograd._force_original_view_tracking``, documented there as
    set_view_replay_enabled): at once as a call, until the end of the block with
    ``with``, around each call as a decorator.

    pydevtensor regenerates a view written through its base with ``AsStridedBackward0``
    either way (the same gradients), so only ``is_view_replay_enabled`` sees the switch.

    Parameters
    ----------
    mode : bool
        True to always replay the view ops, False (the default state) not to force it.

    Examples
    --------
    >>> with pydevtensor.autograd._force_original_view_tracking(True):
    ...     pydevtensor.autograd.is_view_replay_enabled()
    True
    >>> pydevtensor.autograd.is_view_replay_enabled()
    False
    """

    _flag, _default, _name = "view_replay", False, "_force_original_view_tracking"
