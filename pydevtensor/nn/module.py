"""nn.Module: parameters, buffers and children (training runs on autograd: Note [training
with autograd]); moving between devices is in _module_devices.py, state dicts in
_module_state.py, walking the tree (children, modules, parameters, buffers) in
_module_iterators.py."""
from __future__ import annotations

import inspect
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .. import _C
from ._module_access import _AccessMixin
from ._module_iterators import _IteratorsMixin
from ._module_devices import _DevicesMixin
from ._backward_hooks import _BackwardHooksMixin, own_tables
from ._module_hooks import GLOBAL_CALL, HOOK_TABLES, _ForwardHooksMixin, call_hooked, registered
from ._module_hooks import hook_table, upgrade_hook_tables
from ._module_state import IncompatibleKeys, _StateMixin
from ..autograd.engine import clear_grads
from .parameter import Parameter, buffer_persistence

if TYPE_CHECKING:
    from .._C import Tensor

__all__ = ["Module", "IncompatibleKeys"]

_M = TypeVar("_M", bound="Module")

# every module's hooks (register_module_forward_hook, ...), which a call checks
_GLOBAL_FORWARD_PRE, _GLOBAL_FORWARD, _GLOBAL_BACKWARD, _GLOBAL_BACKWARD_PRE = GLOBAL_CALL

# Note [training with autograd]
# Parameters require grad, so a forward pass in grad mode records the graph and
# ``loss.backward()`` accumulates d loss / d param into each ``param.grad`` (a Tensor on
# the parameter's device).  The explicit ``net.backward(loss_fn.backward())`` API of
# earlier versions is gone: autograd does the same work with the same GEMMs
# (pydevtensor/autograd/derivatives_shape.py) and works for any module a user writes.

# Modules built inside ``MirroredStrategy.scope()`` are reported to the innermost scope
# open on this thread (pydevtensor.distribute pushes and pops the owners).
_scopes = threading.local()


def _push_scope(owner):
    """owner._track(module) is called for every Module built until _pop_scope()."""
    if not hasattr(_scopes, "stack"):
        _scopes.stack = []
    _scopes.stack.append(owner)


def _pop_scope(owner):
    stack = getattr(_scopes, "stack", [])
    if not stack or stack[-1] is not owner:
        raise RuntimeError("strategy scopes must be exited in the reverse order of entry")
    stack.pop()


class Module(_StateMixin, _DevicesMixin, _ForwardHooksMixin, _BackwardHooksMixin, _AccessMixin,
             _IteratorsMixin):
    """Base class of layers and networks, with PyTorch's interface: subclasses set
    Parameters and Modules as attributes in ``__init__`` and compute in ``forward``; calling
    the module calls forward.

    Examples
    --------
    >>> from pydevtensor import nn
    >>> class Scale(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.s = nn.Parameter(pydevtensor.tensor([2.]))
    ...     def forward(self, x):
    ...         return x * self.s
    >>> Scale()(pydevtensor.tensor([1., 3.]))
    tensor([2., 6.], grad_fn=<MulBackward0>)
    """

    # The mixins' methods, bound here too: the API reference (autodoc's :members:)
    # documents what Module's own namespace holds.
    to, cpu, cuda = _DevicesMixin.to, _DevicesMixin.cpu, _DevicesMixin.cuda
    float, double = _DevicesMixin.float, _DevicesMixin.double
    half, bfloat16, type = _DevicesMixin.half, _DevicesMixin.bfloat16, _DevicesMixin.type
    to_empty, share_memory = _DevicesMixin.to_empty, _DevicesMixin.share_memory
    register_forward_hook = _ForwardHooksMixin.register_forward_hook
    register_forward_pre_hook = _ForwardHooksMixin.register_forward_pre_hook
    get_submodule, get_parameter = _AccessMixin.get_submodule, _AccessMixin.get_parameter
    get_buffer, register_module = _AccessMixin.get_buffer, _AccessMixin.register_module
    set_submodule = _AccessMixin.set_submodule
    state_dict, load_state_dict = _StateMixin.state_dict, _StateMixin.load_state_dict

    #: PyTorch's: True makes Module.__init__ call the next class's __init__ in the MRO
    #: with its arguments (class M(nn.Module, Mixin) whose Mixin needs initialising)
    call_super_init: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if not self.call_super_init and (args or kwargs):  # PyTorch's errors
            name = type(self).__name__
            raise TypeError(f"{name}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'" if kwargs else f"{name}.__init__() "
                            f"takes 1 positional argument but {len(args) + 1} were given")
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_name", None)  # its name in the parent, for errors
        stack = getattr(_scopes, "stack", None)
        if stack:
            stack[-1]._track(self)
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    # a layer without an __init__ of its own (Sigmoid) takes no arguments: the ones above
    # are for call_super_init only, so the signature shown (help, the API reference) is ()
    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)])

    # ---- attributes ----
    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if params is None:
            raise AttributeError("call Module.__init__() before assigning attributes")
        buffers = self._buffers
        # a plain attribute of that name would hide the parameter or child from
        # attribute lookup (__getattr__ runs only when it fails): dropped, as PyTorch's
        if isinstance(value, Parameter):
            # PyTorch's register_parameter checks, once the instance's own attribute of
            # that name is gone: a name of the class's (m.forward = ...) is refused
            self._check_member_name("cannot assign a Parameter", "parameter", name, params,
                                    replaces=True)
            value = registered("parameter", self, name, value)
            self.__dict__.pop(name, None)
            self._modules.pop(name, None)
            self._forget_buffer(name)
            params[name] = value
        elif name in params:  # a module too is refused here, as in PyTorch
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} to parameter '{name}' "
                                f"(expected nn.Parameter or None)")
            params[name] = None
        elif isinstance(value, Module):
            value = registered("module", self, name, value)
            self.__dict__.pop(name, None)
            self._forget_buffer(name)
            self._modules[name] = value
            object.__setattr__(value, "_name", name)
        elif name in self._modules:  # a child set to None is dropped from the model
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} as child module "
                                f"'{name}' (expected nn.Module or None)")
            self._modules[name] = registered("module", self, name, None)
        elif name in buffers or buffer_persistence(value) is not None:
            # a buffer stays one (and keeps its persistence, unless an nn.Buffer says),
            # and an nn.Buffer registers one, as in PyTorch
            if value is not None and not isinstance(value, _C.Tensor):
                raise TypeError(f"cannot assign {type(value).__name__} to buffer '{name}' "
                                f"(expected a Tensor or None)")
            marked = buffer_persistence(value)
            self.register_buffer(name, value, name not in self._non_persistent_buffers_set
                                 if marked is None else marked)
        else:
            object.__setattr__(self, name, value)

    def _forget_buffer(self, name: str) -> None:
        self._buffers.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getstate__(self):
        """What copy.deepcopy and pickle keep: everything but a MirroredStrategy's
        replicas (a copy is a model of its own)."""
        state = dict(self.__dict__)
        state.pop("_pdt_strategy", None)
        state.pop("_pdt_replicas", None)
        return state

    def __setstate__(self, state):
        # a module pickled before buffers existed has none
        state.setdefault("_buffers", OrderedDict())
        state.setdefault("_non_persistent_buffers_set", set())
        upgrade_hook_tables(state)
        self.__dict__.update(state)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for kind in ("_parameters", "_buffers", "_modules"):
            if name in d.get(kind, ()):
                return d[kind][name]
        if name in HOOK_TABLES:  # made on first use: most modules have no hooks
            return hook_table(self, name)
        if name == "_is_full_backward_hook":  # before any backward hook, as PyTorch's
            return None
        hint = ""
        if name == "save":  # Note [no TorchScript archives] in pydevtensor/jit.py
            from ..jit import _NO_ARCHIVE_HINT as hint
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'{hint}")

    def __dir__(self) -> list[str]:
        # PyTorch's: the parameters, buffers and children too (tab completion in
        # Jupyter), but not a ModuleList's "0", "1", ... which are not names
        d = self.__dict__
        members = [k for kind in ("_parameters", "_buffers", "_modules")
                   for k in d.get(kind, ())]
        return sorted(k for k in set(super().__dir__()).union(members)
                      if not k[:1].isdigit())

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            self._forget_buffer(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def _buffer_copied(self, old: Tensor, new: Tensor) -> None:
        """Told that new, a copy of the buffer old (Module.to, or a replica of
        nn.parallel.replicate on another device), replaced it; a module that keeps
        something on the host about a buffer (BatchNorm's count) overrides this."""

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Registers tensor as a buffer: state that is not a parameter (no gradient, not
        in ``parameters()``), such as BatchNorm's running mean.  ``.to()`` moves it and
        casts it when it is floating point; a persistent buffer (the default) is in
        ``state_dict()`` and loaded by ``load_state_dict()``, a non-persistent one is
        not.  Assigning ``module.name = tensor`` afterwards replaces it, as in PyTorch.

        Parameters
        ----------
        name : str
            The attribute's name.
        tensor : Tensor or None
            The buffer (None reserves the name: not moved, not in the state dict).
        persistent : bool, optional
            Whether it is part of the state dict (default True).

        Returns
        -------
        None

        Raises
        ------
        TypeError
            When name is not a str or tensor not a Tensor or None.
        KeyError
            When name is empty, has a '.', or is already an attribute that is not a
            buffer.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> m = nn.Module()
        >>> m.register_buffer('count', pydevtensor.zeros(2))
        >>> m.register_buffer('scratch', pydevtensor.ones(1), persistent=False)
        >>> list(m.state_dict()), [name for name, _ in m.named_buffers()]
        (['count'], ['count', 'scratch'])
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("call Module.__init__() before register_buffer()")
        self._check_member_name("register_buffer", "buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, _C.Tensor):
            raise TypeError(f"register_buffer: cannot assign {type(tensor).__name__} to buffer "
                            f"'{name}' (expected a Tensor or None)")
        self._buffers[name] = registered("buffer", self, name, tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def _check_member_name(self, op: str, kind: str, name: Any, table: dict,
                           replaces: bool = False) -> None:
        """PyTorch's checks of a new member's name: a str, neither empty nor holding a
        '.' (state_dict keys and get_submodule paths split at dots), and not an
        attribute of another kind (add_module('training', m) would hide the flag); when
        replaces (an assignment, which drops the instance's attribute, buffer or child of
        that name first), only the class's attributes count."""
        if not isinstance(name, str):
            raise TypeError(f"{op}: the {kind} name must be a str, got {type(name).__name__}")
        if "." in name or name == "":
            raise KeyError(f"{op}: a {kind}'s name can be neither empty nor contain '.', got "
                           f"{name!r}")
        if replaces:
            taken = name not in self.__dict__ and name not in self.__dict__["_buffers"] \
                and name not in self.__dict__["_modules"] and hasattr(type(self), name)
        else:
            taken = hasattr(self, name)
        if name not in table and taken:
            raise KeyError(f"{op}: attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Registers param under name (None reserves the name, as a Linear without bias does).

        Parameters
        ----------
        name : str
            The attribute's name.
        param : nn.Parameter or None
            The parameter.

        Returns
        -------
        None

        Raises
        ------
        TypeError
            When name is not a str or param not a Parameter.
        KeyError
            When name is empty, has a '.', or is already an attribute that is not a
            parameter.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> m = nn.Module()
        >>> m.register_parameter('s', nn.Parameter(pydevtensor.ones(1)))
        >>> [name for name, _ in m.named_parameters()]
        ['s']
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("call Module.__init__() before register_parameter()")
        self._check_member_name("register_parameter", "parameter", name, self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"register_parameter: expected nn.Parameter, got "
                            f"{type(param).__name__}")
        # the registration hooks see a Parameter, not the None that reserves a name
        self._parameters[name] = param if param is None else registered("parameter", self,
                                                                         name, param)

    def add_module(self, name: str, module: Module | None) -> None:
        """Registers module as a child under name.

        Parameters
        ----------
        name : str
            The attribute's name.
        module : nn.Module or None
            The child.

        Returns
        -------
        None

        Raises
        ------
        TypeError
            When name is not a str or module not a Module.
        KeyError
            When name is empty, has a '.', or is already an attribute that is not a
            submodule.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> m = nn.Module()
        >>> m.add_module('lin', nn.Linear(1, 1))
        >>> m.lin
        Linear(in_features=1, out_features=1, bias=True)
        """
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module: expected nn.Module, got {type(module).__name__}")
        if "_modules" not in self.__dict__:
            raise AttributeError("call Module.__init__() before add_module()")
        self._check_member_name("add_module", "module", name, self._modules)
        self._modules[name] = module = registered("module", self, name, module)
        if module is not None:
            object.__setattr__(module, "_name", name)

    # ---- running ----
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation; subclasses define it, and calling the module calls it (naming
        the layer in device, shape and dtype errors).

        Parameters
        ----------
        *args, **kwargs
            What the module takes.

        Returns
        -------
        Any
            What the module computes (a Tensor for the layers here).

        Raises
        ------
        NotImplementedError
            On a Module that does not define it.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> nn.ReLU()(pydevtensor.tensor([-1., 2.]))
        tensor([0., 2.])
        """
        raise NotImplementedError(f"{type(self).__name__} has no forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        d = self.__dict__
        # (`in` first: most modules never had a hook, and this runs on every call)
        if _GLOBAL_FORWARD_PRE or _GLOBAL_FORWARD or _GLOBAL_BACKWARD or _GLOBAL_BACKWARD_PRE \
                or ("_forward_hooks" in d and d["_forward_hooks"]) \
                or ("_forward_pre_hooks" in d and d["_forward_pre_hooks"]):
            return call_hooked(self, args, kwargs)  # (_GLOBAL_*: every module's hooks)
        if "_backward_hooks" in d or "_backward_pre_hooks" in d:
            return self._call_forward(*args, **kwargs)
        try:  # _call_forward's common case without its frame (the hot path of every layer)
            return self.forward(*args, **kwargs)
        except (_C.DeviceError, _C.InvalidArgumentError, TypeError) as e:
            self._raise_in_layer(e, args)
            raise

    def _call_forward(self, *args: Any, _pdt_states: list | None = None,
                      _pdt_backward: Any = None, **kwargs: Any) -> Any:
        try:
            d = self.__dict__
            hooks = _pdt_backward or ("_backward_hooks" in d or "_backward_pre_hooks" in d) \
                and own_tables(self)
            if hooks:  # Note [module backward hooks] in nn/_backward_hooks.py
                from ._backward_hooks import call_with_backward_hooks
                return call_with_backward_hooks(self, hooks, args, kwargs, _pdt_states)
            return self.forward(*args, **kwargs)
        except (_C.DeviceError, _C.InvalidArgumentError, TypeError) as e:
            self._raise_in_layer(e, args)
            raise

    def _raise_in_layer(self, e, args):
        """Raises e again naming this layer: a device or a shape that does not fit
        (DeviceError, InvalidArgumentError: which layer of a deep network, where a shape
        error said "linear(): input of shape (2, 4) does not match weight of shape (1, 5)"
        and left the user to find it; a subclass is kept as is), or a dtype mismatch (a
        TypeError saying 'same dtype': the parameter too); returns when e is to go on as
        it is."""
        if getattr(e, "_pdt_layer", False):
            return
        if type(e) in (_C.DeviceError, _C.InvalidArgumentError):
            where = f"layer '{self._name}': " if self._name is not None else "layer "
            msg = self._device_message(e, args) if type(e) is _C.DeviceError else str(e)
            err = type(e)(f"{msg} (in {where}{self._repr_line()})")
            err._pdt_layer = True
            try:
                raise err from e
            finally:
                del err  # else frame -> err -> traceback -> frame: a cycle holding args
        if isinstance(e, TypeError) and "same dtype" in str(e):
            raise self._dtype_error(e, args) from e

    def _parameter_unlike_input(self, args, attr):
        """(input, name, parameter): the first tensor argument and the first of this
        layer's own parameters whose `attr` ('device' or 'dtype') differs from its; the
        name and parameter are None when none differs."""
        x = next((a for a in args if isinstance(a, _C.Tensor)), None)
        for name, p in self._parameters.items():
            if p is not None and x is not None and getattr(p, attr) != getattr(x, attr):
                return x, name, p
        return x, None, None

    def _device_message(self, e, args):
        """The input on one device and this layer's parameters on another (D2L's model on
        the CPU fed data on the GPU): said in the user's words, where the op's own message
        names its arguments (addmm's 'input' is the bias, 'mat1' the layer's input)."""
        x, name, p = self._parameter_unlike_input(args, "device")
        if p is None or "but found at least two devices" not in str(e):
            return str(e)  # (a layer that checks its input says it in its own words)
        return (f"Expected all tensors to be on the same device, but the input is on "
                f"{x.device} and the parameter '{name}' on {p.device}; move the input with "
                f".to('{p.device}') or the model with .to('{x.device}'), no copy is made "
                f"for you")

    def _dtype_error(self, e, args):
        x, name, p = self._parameter_unlike_input(args, "dtype")
        if p is not None:
            msg = (f"the input is {x.dtype} but the parameter '{name}' is {p.dtype}; convert "
                   f"the input with .to({p.dtype})")
            if x.dtype.is_floating_point:  # a layer holds floating point parameters only
                msg += f" or the layer with .to(dtype={x.dtype})"
        else:
            msg = str(e)
        where = f"layer '{self._name}': " if self._name is not None else "layer "
        err = type(e)(f"{msg} (in {where}{self._repr_line()})")  # a TypeError, kept
        err._pdt_layer = True
        return err

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears the gradients of every parameter: ``.grad = None`` (the default, as in
        PyTorch), or zeroed in place with set_to_none=False (a grad that is part of a
        graph, made with create_graph=True, is detached from it first, as PyTorch's).

        Parameters
        ----------
        set_to_none : bool, optional
            None instead of zeros (default True).

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> net(pydevtensor.ones(1, 2)).sum().backward()
        >>> net.zero_grad()
        >>> net[0].weight.grad is None
        True
        """
        clear_grads(self.parameters(), set_to_none)

    def requires_grad_(self: _M, requires_grad: bool = True) -> _M:
        """Sets requires_grad on every parameter: False freezes them (fine-tuning), True
        lets autograd record their use again.

        Parameters
        ----------
        requires_grad : bool, optional
            True (default) or False.

        Returns
        -------
        Module
            self.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> [p.requires_grad for p in net[0].requires_grad_(False).parameters()]
        [False, False]
        """
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def apply(self: _M, fn: Callable[[Module], Any]) -> _M:
        """Calls fn on every descendant, children before their parent, then on this
        module (PyTorch's order); typically to initialise parameters with nn.init.

        Parameters
        ----------
        fn : callable
            Takes a Module.

        Returns
        -------
        Module
            self.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> def init(m):
        ...     if type(m) == nn.Linear:
        ...         nn.init.zeros_(m.bias)
        >>> net.apply(init)[0].bias
        Parameter containing:
        tensor([0., 0., 0.], requires_grad=True)
        """
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def train(self: _M, mode: bool = True) -> _M:
        """Sets training mode on this module and, through each child's own train() (which
        a subclass may override, as a frozen BatchNorm does), on its children.

        Parameters
        ----------
        mode : bool, optional
            True for training (default), False for evaluation.

        Returns
        -------
        Module
            self.

        Raises
        ------
        ValueError
            When mode is not a bool.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> net.train(False).training
        False
        """
        if not isinstance(mode, bool):
            raise ValueError(f"training mode is expected to be boolean, got "
                             f"{type(mode).__name__}")
        object.__setattr__(self, "training", mode)
        for child in self.children():  # each child's own train(), which may override it
            child.train(mode)
        return self

    def eval(self: _M) -> _M:
        """Sets evaluation mode: ``train(False)``.

        Returns
        -------
        Module
            self.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> net.eval().training
        False
        """
        return self.train(False)

    # ---- printing ----
    def extra_repr(self) -> str:
        """The text inside this module's parentheses in its repr; subclasses override it.

        Returns
        -------
        str

        Examples
        --------
        >>> from pydevtensor import nn
        >>> nn.Linear(2, 3).extra_repr()
        'in_features=2, out_features=3, bias=True'
        """
        return ""

    def _repr_line(self):
        return f"{type(self).__name__}({self.extra_repr()})"

    def __repr__(self) -> str:
        # PyTorch's layout: a one-line extra_repr and no children inside the parentheses,
        # else one indented line per line of extra_repr, then per child (None included)
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        one_line = len(lines) == 1 and not self._modules
        for name, m in self._modules.items():
            lines.append(f"({name}): " + repr(m).replace("\n", "\n  "))
        if not lines:
            return f"{type(self).__name__}()"
        if one_line:
            return self._repr_line()
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"
