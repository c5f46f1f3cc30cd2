"""nn.Parameter: a tensor marked as a module's parameter."""
from __future__ import annotations

import weakref
from typing import Any

from .. import _C
from .._args import flag
from .._copies import _deep_values


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
        self.requires_grad = flag(requires_grad, type(self).__name__, "requires_grad")
        self.grad = None

    def __deepcopy__(self, memo: dict) -> Parameter:
        # PyTorch's: a fresh parameter of the same class and requires_grad holding a
        # copy of the values, without the grad or the attributes set on this one
        if id(self) in memo:
            return memo[id(self)]
        new = _C.Tensor.__new__(type(self), _deep_values(self, memo))
        new.requires_grad = self.requires_grad
        memo[id(self)] = new
        return new

    def __repr__(self) -> str:
        return "Parameter containing:\n" + _C.Tensor.__repr__(self)

    __str__ = __repr__


# What nn.Buffer marked: id -> (weak reference, persistent).  PyTorch sets t.persistent
# and t._is_buffer on the tensor; here the marks are kept aside, so that they stay out of
# the tensor's own attributes (and its copies), each dropped when its tensor dies.
_BUFFER_MARKS: dict[int, tuple[weakref.ref, bool]] = {}


def buffer_persistence(t) -> bool | None:
    """Whether nn.Buffer marked t persistent (True/False), or None when it did not mark t."""
    entry = _BUFFER_MARKS.get(id(t))
    return entry[1] if entry is not None and entry[0]() is t else None


def _unmark(ref, key):
    if _BUFFER_MARKS.get(key, (None,))[0] is ref:
        del _BUFFER_MARKS[key]


class _BufferMeta(type(_C.Tensor)):
    """isinstance(t, Buffer): t was made by Buffer (PyTorch's marker class)."""

    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer:
            return buffer_persistence(instance) is not None
        return super().__instancecheck__(instance)


class Buffer(_C.Tensor, metaclass=_BufferMeta):
    """Marks a tensor as a buffer: assigned as a Module's attribute it is registered as
    one (``register_buffer``, persistent or not as asked), as PyTorch 2.x's.  A plain
    Tensor assigned is not.

    ``Buffer(data)`` is a plain Tensor sharing data's storage, detached from its graph,
    with data's requires_grad, that ``isinstance(t, nn.Buffer)`` recognises; ``type()``
    of it, and of the module's attribute after assignment, is Tensor, as in PyTorch.
    Unlike PyTorch's, it has no ``persistent`` attribute (a plain Tensor here takes no
    attributes): the module reads the persistence when it is assigned.

    Parameters
    ----------
    data : Tensor, optional
        The values (shared, not copied); an empty tensor by default.
    persistent : bool, optional
        Whether the buffer is part of the module's state_dict (default True).

    Raises
    ------
    TypeError
        When data is not a Tensor.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> m = nn.Module()
    >>> m.count = nn.Buffer(pydevtensor.zeros(2))
    >>> m.scratch = nn.Buffer(pydevtensor.ones(1), persistent=False)
    >>> [name for name, _ in m.named_buffers()], list(m.state_dict())
    (['count', 'scratch'], ['count'])
    >>> type(m.count).__name__, isinstance(m.count, nn.Buffer)
    ('Tensor', True)
    """

    def __new__(cls, data: _C.Tensor | None = None, *, persistent: bool = True) -> _C.Tensor:
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, _C.Tensor):
            raise TypeError(f"Buffer(data) needs a Tensor, got {type(data).__name__}")
        t = data.detach().requires_grad_(data.requires_grad)
        key = id(t)
        _BUFFER_MARKS[key] = (weakref.ref(t, lambda ref: _unmark(ref, key)), bool(persistent))
        return t


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet: the weight and bias of
    :class:`~pydevtensor.nn.LazyLinear` until its first forward (D2L's "lazy
    initialization").

    It holds an empty tensor of its device and dtype, so ``module.to(device)`` and
    ``module.cuda()`` move it like any parameter.  ``materialize(shape)`` gives it
    storage of that shape and makes it a :class:`Parameter`: the same object, so an
    optimizer made before the first forward keeps training it.  Its shape, size and
    element count are unknown until then, and asking raises a ValueError that says so.

    Parameters
    ----------
    requires_grad : bool, optional
        Default True.
    device : str or pydevtensor.device, optional
        Where it will live.
    dtype : pydevtensor.dtype, optional
        Its dtype (default: get_default_dtype(), float32 at start).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> w = nn.UninitializedParameter()
    >>> w
    <UninitializedParameter>
    >>> w.materialize((2, 3))
    >>> type(w).__name__, w.shape
    ('Parameter', pydevtensor.Size([2, 3]))
    """

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None) -> UninitializedParameter:
        data = _C.empty(0, device=device, dtype=_C._get_default_dtype() if dtype is None else dtype)
        return _C.Tensor.__new__(cls, data)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None) -> None:
        super().__init__(None, requires_grad)

    def materialize(self, shape) -> None:
        """Gives the parameter storage of shape (uninitialised values, on its device in
        its dtype) and makes it a Parameter.

        Parameters
        ----------
        shape : tuple of int
            Its shape.

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> b = nn.UninitializedParameter(dtype=pydevtensor.float64)
        >>> b.materialize((3,))
        >>> b.shape, b.dtype
        (pydevtensor.Size([3]), pydevtensor.float64)
        """
        self.data = _C.empty(tuple(shape), device=self.device, dtype=self.dtype)
        self.__class__ = Parameter

    def _unknown(self, what):
        # InvalidArgumentError: a ValueError and the RuntimeError PyTorch raises here
        raise _C.InvalidArgumentError(
            f"the {what} of an uninitialized parameter is not known yet: run the module "
            f"once on an input (lazy initialization), or load a state_dict into it")

    @property  # type: ignore[override]
    def shape(self):
        self._unknown("shape")

    def size(self, dim=None):  # type: ignore[override]
        self._unknown("size")

    def numel(self) -> int:
        self._unknown("number of elements")

    def __reduce_ex__(self, protocol):
        # no shape to pickle yet: the same placeholder on the same device and dtype
        return (UninitializedParameter, (self.requires_grad, str(self.device), self.dtype))

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    __str__ = __repr__


class UninitializedBuffer(_C.Tensor):
    """A buffer whose shape is not known yet: running_mean and running_var of
    :class:`~pydevtensor.nn.LazyBatchNorm2d` until its first forward.

    Like :class:`UninitializedParameter` it holds an empty tensor of its device and
    dtype, which ``.to()`` (so ``module.to(device)``) moves, keeping it uninitialized;
    its shape, size and element count are unknown, and asking raises a ValueError.
    Its lazy module replaces it with a real buffer when it learns the shape.

    Parameters
    ----------
    requires_grad : bool, optional
        Default False.
    device : str or pydevtensor.device, optional
        Where it will live.
    dtype : pydevtensor.dtype, optional
        Its dtype (default: get_default_dtype(), float32 at start).

    Examples
    --------
    >>> from pydevtensor import nn
    >>> nn.UninitializedBuffer()
    <UninitializedBuffer>
    >>> nn.LazyBatchNorm2d().running_mean
    <UninitializedBuffer>
    """

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None) -> UninitializedBuffer:
        data = _C.empty(0, device=device, dtype=_C._get_default_dtype() if dtype is None else dtype)
        return _C.Tensor.__new__(cls, data)

    def __init__(self, requires_grad: bool = False, device=None, dtype=None) -> None:
        self.requires_grad = flag(requires_grad, type(self).__name__, "requires_grad")

    def to(self, *args, **kwargs):  # type: ignore[override]
        moved = _C.Tensor.to(self, *args, **kwargs)
        if moved is self:
            return self
        return UninitializedBuffer(self.requires_grad, moved.device, moved.dtype)

    _unknown = UninitializedParameter._unknown
    shape = UninitializedParameter.shape
    size = UninitializedParameter.size
    numel = UninitializedParameter.numel

    def __reduce_ex__(self, protocol):
        return (UninitializedBuffer, (self.requires_grad, str(self.device), self.dtype))

    def __repr__(self) -> str:
        return "<UninitializedBuffer>"

    __str__ = __repr__


def is_uninitialized(t) -> bool:
    """Whether t is a lazy module's placeholder (an uninitialized parameter or buffer)."""
    return isinstance(t, (UninitializedParameter, UninitializedBuffer))


def _uninitialized_weight_and_bias(module, bias, device, dtype) -> None:
    """A lazy layer's weight and bias (None where bias is False), uninitialized."""
    module.weight = UninitializedParameter(device=device, dtype=dtype)
    if bias:
        module.bias = UninitializedParameter(device=device, dtype=dtype)
    else:
        module.register_parameter("bias", None)


class LazyModuleMixin:
    """PyTorch's ``nn.modules.lazy.LazyModuleMixin``: the base the lazy layers share
    (:class:`~pydevtensor.nn.LazyLinear`, the LazyConv, LazyConvTranspose, LazyBatchNorm
    and LazyInstanceNorm layers), for ``isinstance`` checks and
    :meth:`has_uninitialized_params`.  A lazy layer's first forward (or a loaded
    state_dict) gives it its shapes, and its first call makes it its plain layer (its
    ``_layer``), which is no longer one: after a load, at the next call, as PyTorch's.

    The first call is all or nothing: when it raises (an input of the wrong dtype or
    shape, a hook that raises), the module is left as it was, still lazy, with its
    placeholders, class, hooks and attributes restored, so that a correct call then
    gives it its shapes.  PyTorch's lazy modules keep the shapes of a failed first call
    (so a later correct input no longer fits); this difference is deliberate.  (Only a
    call of the module is undone, not a direct call of its ``forward``.)

    Examples
    --------
    >>> from pydevtensor import nn
    >>> from pydevtensor.nn.modules.lazy import LazyModuleMixin
    >>> isinstance(nn.LazyConv2d(4, 3), LazyModuleMixin)
    True
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # only a module still lazy comes here: a first call that succeeds makes it its
        # plain layer, whose __call__ is Module's, so later calls pay nothing for this
        saved = _lazy_state(self)
        try:
            out = super().__call__(*args, **kwargs)  # type: ignore[misc]
        except BaseException:
            _restore_lazy_state(self, saved)
            raise
        if not self.has_uninitialized_params():  # at the first call, as PyTorch's, also
            self.__class__ = self._layer  # after a load_state_dict gave the shapes
        return out

    def has_uninitialized_params(self) -> bool:
        """Whether any of this module's own parameters or buffers is still an
        uninitialized placeholder (its shape not known yet).

        Returns
        -------
        bool

        Examples
        --------
        >>> from pydevtensor import nn
        >>> nn.LazyLinear(3).has_uninitialized_params()
        True
        >>> nn.LazyBatchNorm1d(affine=False).has_uninitialized_params()  # its buffers
        True
        """
        return any(is_uninitialized(t) for t in
                   (*self._parameters.values(), *self._buffers.values()))


def _lazy_state(module) -> tuple:
    """What a lazy module's first call may change: its class, its attributes (the
    dictionaries among them, _parameters, _buffers and the hooks', copied) and its
    placeholders' data and class (materialize changes them in place)."""
    d = module.__dict__
    dicts = {k: dict(v) for k, v in d.items() if isinstance(v, dict)}
    placeholders = [(t, type(t), t.data) for t in
                    (*module._parameters.values(), *module._buffers.values())
                    if is_uninitialized(t)]
    return type(module), dict(d), dicts, placeholders


def _restore_lazy_state(module, saved: tuple) -> None:
    """module as _lazy_state found it."""
    cls, attrs, dicts, placeholders = saved
    for t, kind, data in placeholders:
        if type(t) is not kind:
            t.data = data
            t.__class__ = kind
    d = module.__dict__
    d.clear()
    d.update(attrs)
    for k, v in dicts.items():
        d[k].clear()
        d[k].update(v)
    module.__class__ = cls
