"""nn.Parameter: a tensor marked as a module's parameter."""
from __future__ import annotations

from .. import _C


class Parameter(_C.Tensor):
    """A Tensor that a Module registers as a parameter.

    It shares storage with the tensor it is made from.  ``.data`` is the plain
    Tensor (so the chapter's ``net[0].weight.data.device`` works), and assigning
    ``.data`` moves the parameter while keeping the object, which is how
    ``Module.to()`` moves parameters in place.

    Parameters
    ----------
    data : Tensor, optional
        The values (shared, not copied); an empty tensor by default.
    requires_grad : bool, optional
        Default True.

    Raises
    ------
    TypeError
        When data is not a Tensor.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.Parameter(pydevtensor.ones(2))
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    """

    def __new__(cls, data: _C.Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, _C.Tensor):
            raise TypeError(f"Parameter(data) needs a Tensor, got {type(data).__name__}")
        return _C.Tensor.__new__(cls, data)

    def __init__(self, data: _C.Tensor | None = None, requires_grad: bool = True) -> None:
        self.requires_grad = bool(requires_grad)
        self.grad = None

    def register_post_accumulate_grad_hook(self, hook):
        """Calls ``hook(param)`` each time backward has accumulated a gradient into
        ``param.grad`` (PyTorch's name; DistributedDataParallel starts its bucket
        all-reduces from it).  Returns a handle whose ``remove()`` unregisters it.

        Parameters
        ----------
        hook : callable
            Called as hook(param).

        Returns
        -------
        handle
            Its remove() unregisters the hook.

        Raises
        ------
        TypeError
            When hook is not callable.
        RuntimeError
            When the parameter does not require a gradient.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> w = nn.Parameter(pydevtensor.ones(2))
        >>> handle = w.register_post_accumulate_grad_hook(lambda p: print('grad', p.grad))
        >>> (w * 3).sum().backward()
        grad tensor([3., 3.])
        >>> handle.remove()
        """
        if not callable(hook):
            raise TypeError(f"register_post_accumulate_grad_hook: hook must be callable, got "
                            f"{type(hook).__name__}")
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a parameter that does not require "
                               "a gradient")
        hooks = self.__dict__.setdefault("_post_accumulate_grad_hooks", {})
        key = max(hooks, default=-1) + 1
        hooks[key] = hook
        return _HookHandle(hooks, key)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + _C.Tensor.__repr__(self)

    __str__ = __repr__


class _HookHandle:
    """What register_post_accumulate_grad_hook returns: ``remove()`` unregisters."""

    def __init__(self, hooks, key):
        self._hooks, self._key = hooks, key

    def remove(self):
        self._hooks.pop(self._key, None)
