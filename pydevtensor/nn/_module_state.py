"""Module.state_dict() and load_state_dict() with their hooks and extra state (a mixin
of nn.Module, in a file of its
own), and IncompatibleKeys, what load_state_dict returns."""
from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ._module_hooks import add_hook, hook_table, returns_handle
from ._module_state_load import (check_entries, has_extra_state, hooks_of, initialized,
                                 load_one, load_walk, own_entries, write_entries)

if TYPE_CHECKING:
    from .._C import Tensor


class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict() returns: (missing_keys, unexpected_keys), shown as
    PyTorch shows it, ``<All keys matched successfully>`` when both are empty."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


class _PublicHook:
    """A state_dict post-hook registered by the public method, one that takes no
    attribute (a bound method): it must return None.  Another is kept itself, marked
    ``_from_public_api`` as PyTorch marks it."""

    __slots__ = ("hook",)
    _from_public_api = True

    def __init__(self, hook: Any):
        self.hook = hook

    def __call__(self, *args: Any) -> Any:
        return self.hook(*args)


class _WithoutModule:
    """A load_state_dict pre-hook registered without its module (PyTorch's
    _register_load_state_dict_pre_hook(hook, with_module=False))."""

    __slots__ = ("hook",)

    def __init__(self, hook: Any):
        self.hook = hook

    def __call__(self, module: Any, *args: Any) -> Any:
        return self.hook(*args)


class _StateMixin:
    """nn.Module's state dicts."""

    _version = 1  # PyTorch's: what state_dict's _metadata records for each module

    def _save_to_state_dict(self, destination: Any, prefix: str, keep_vars: bool) -> None:
        """Puts this module's own entries (not its children's) into destination, as
        PyTorch's: its parameters, its persistent buffers, then its extra state.
        state_dict() calls it on every module of the tree; a subclass overrides it to
        save more (calling ``super()._save_to_state_dict(...)``), and then overrides
        _load_from_state_dict to take the entries back."""
        # detach(), as PyTorch's: sharing the version counter; an uninitialized
        # parameter or buffer (a lazy layer's) is there as itself
        from .parameter import is_uninitialized
        for name, t in self._parameters.items():
            if t is not None:
                destination[prefix + name] = \
                    t if keep_vars or is_uninitialized(t) else t.detach()
        for name, t in self._buffers.items():
            if t is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = \
                    t if keep_vars or is_uninitialized(t) else t.detach()
        if has_extra_state(self, "get_extra_state"):
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def _load_from_state_dict(self, state_dict: Any, prefix: str, local_metadata: dict,
                              strict: bool, missing_keys: list, unexpected_keys: list,
                              error_msgs: list) -> None:
        """Loads this module's own entries (not its children's) from state_dict, as
        PyTorch's: runs this module's load_state_dict pre-hooks, checks and copies its
        parameters and persistent buffers (or puts them in place where local_metadata
        has ``assign_to_params_buffers``), takes its extra state; with strict, appends
        its keys that state_dict lacks to missing_keys and the keys under prefix that
        name nothing of it to unexpected_keys; appends what is wrong (a size
        mismatch) to error_msgs, and then writes nothing of this module.

        A subclass overrides it to read old checkpoints (renaming a key of
        state_dict, a copy it may change, then calling
        ``super()._load_from_state_dict(...)``); where one does, load_state_dict
        walks the tree as PyTorch's (see load_state_dict)."""
        load_one(self, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs)

    @returns_handle
    def register_state_dict_pre_hook(self, hook: Any) -> Any:
        """Calls ``hook(module, prefix, keep_vars)`` before state_dict() saves this
        module's entries (for a submodule, each time its parent's state_dict runs).

        Parameters
        ----------
        hook : callable
            ``hook(module, prefix, keep_vars) -> None``.

        {handle}

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 1))
        >>> h = net[0].register_state_dict_pre_hook(lambda m, prefix, kv: print(prefix))
        >>> _ = net.state_dict()
        0.
        """
        return _register(self, "_state_dict_pre_hooks", hook, "register_state_dict_pre_hook")

    @returns_handle
    def register_state_dict_post_hook(self, hook: Any) -> Any:
        """Calls ``hook(module, state_dict, prefix, local_metadata)`` once state_dict()
        has saved this module and its children; the hook changes state_dict in place
        and returns None.

        Parameters
        ----------
        hook : callable
            ``hook(module, state_dict, prefix, local_metadata) -> None``.

        {handle}

        Examples
        --------
        >>> from pydevtensor import nn
        >>> lin = nn.Linear(2, 1)
        >>> h = lin.register_state_dict_post_hook(
        ...     lambda m, sd, prefix, meta: sd.pop(prefix + 'bias'))
        >>> list(lin.state_dict())
        ['weight']
        """
        hooks = hook_table(self, "_state_dict_hooks", hook, "register_state_dict_post_hook")
        try:  # PyTorch's mark: the table holds the hook itself
            hook._from_public_api = True
        except (AttributeError, TypeError):
            hook = _PublicHook(hook)
        return add_hook(hooks, hook)

    def _register_state_dict_hook(self, hook: Any) -> Any:
        # PyTorch's older form: what the root module's hook returns replaces the result
        return _register(self, "_state_dict_hooks", hook, "_register_state_dict_hook")

    @returns_handle
    def register_load_state_dict_pre_hook(self, hook: Any) -> Any:
        """Calls ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before load_state_dict() reads anything, with a
        copy of the state dict that the hook may change (rename an old checkpoint's
        keys); messages it appends to error_msgs make the load fail.

        Parameters
        ----------
        hook : callable
            The hook, returning None.

        {handle}

        Examples
        --------
        >>> from pydevtensor import nn
        >>> def rename(m, sd, prefix, *rest):
        ...     if prefix + 'w' in sd:
        ...         sd[prefix + 'weight'] = sd.pop(prefix + 'w')
        >>> lin = nn.Linear(2, 1)
        >>> _ = lin.register_load_state_dict_pre_hook(rename)
        >>> lin.load_state_dict({'w': pydevtensor.ones(1, 2), 'bias': pydevtensor.zeros(1)})
        <All keys matched successfully>
        """
        return _register(self, "_load_state_dict_pre_hooks", hook,
                         "register_load_state_dict_pre_hook")

    def _register_load_state_dict_pre_hook(self, hook: Any, with_module: bool = False) -> Any:
        # PyTorch's older form: without with_module the hook is not given the module
        hooks = hook_table(self, "_load_state_dict_pre_hooks", hook,
                           "_register_load_state_dict_pre_hook")
        return add_hook(hooks, hook if with_module else _WithoutModule(hook))

    @returns_handle
    def register_load_state_dict_post_hook(self, hook: Any) -> Any:
        """Calls ``hook(module, incompatible_keys)`` after load_state_dict(); the hook
        may clear keys from incompatible_keys' lists in place, and a strict load then
        does not fail on them.  Children's hooks run before their parent's.

        Parameters
        ----------
        hook : callable
            ``hook(module, incompatible_keys) -> None``.

        {handle}

        Examples
        --------
        >>> from pydevtensor import nn
        >>> lin = nn.Linear(2, 1)
        >>> _ = lin.register_load_state_dict_post_hook(
        ...     lambda m, keys: keys.missing_keys.clear())
        >>> lin.load_state_dict({'weight': pydevtensor.ones(1, 2)})
        <All keys matched successfully>
        """
        return _register(self, "_load_state_dict_post_hooks", hook,
                         "register_load_state_dict_post_hook")

    def state_dict(self, *args: Any, destination: Any = None, prefix: str = "",
                   keep_vars: bool = False) -> OrderedDict[str, Tensor]:
        """name -> plain Tensor sharing the storage of each parameter and persistent
        buffer (non-persistent ones are left out), in registration order.  An
        uninitialized parameter (a lazy layer that has not run) is there as itself, as
        in PyTorch, so the state dict loads into another uninitialized model.

        Parameters
        ----------
        destination : dict, optional
            Filled and returned instead of a new OrderedDict.
        prefix : str, optional
            Put before every name as it is (``prefix='net.'`` gives 'net.0.weight').
        keep_vars : bool, optional
            Give the Parameters and buffers themselves, not detached tensors (default
            False).

        Returns
        -------
        OrderedDict of str to Tensor

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> list(net.state_dict())
        ['0.weight', '0.bias', '2.weight', '2.bias']
        >>> list(nn.BatchNorm1d(2).state_dict())
        ['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']
        >>> list(net.state_dict(prefix='net.'))[:2]
        ['net.0.weight', 'net.0.bias']
        """
        if args:  # PyTorch's deprecated positional form: (destination, prefix, keep_vars)
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer "
                          "to https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning,
                          stacklevel=2)
            if len(args) > 3:
                raise TypeError(f"state_dict() takes at most 3 positional arguments "
                                f"(destination, prefix, keep_vars), got {len(args)}")
            destination, prefix, keep_vars = (tuple(args) + (destination, prefix,
                                                             keep_vars)[len(args):])
        if not isinstance(prefix, str):
            raise TypeError(f"state_dict(): prefix must be a str, got {type(prefix).__name__}")
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # prefix -> {'version': ...}, PyTorch's
        return _save(self, destination, prefix, keep_vars, frozenset(), True)

    def get_extra_state(self) -> Any:
        """What state_dict() keeps under ``'<prefix>_extra_state'`` besides tensors: a
        module that overrides it (and set_extra_state) saves any picklable value there,
        as in PyTorch.  Module's own raises: only overrides are called.

        Returns
        -------
        object
            The module's extra state.

        Raises
        ------
        RuntimeError
            Always, on Module's own.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> class Counter(nn.Linear):
        ...     calls = 0
        ...     def get_extra_state(self):
        ...         return {'calls': self.calls}
        ...     def set_extra_state(self, state):
        ...         self.calls = state['calls']
        >>> list(Counter(2, 1).state_dict())
        ['weight', 'bias', '_extra_state']
        """
        raise RuntimeError("Module.get_extra_state() is called only where a subclass "
                           "overrides it; override it to return the module's extra state")

    def set_extra_state(self, state: Any) -> None:
        """Takes back what get_extra_state() returned, from load_state_dict() (called
        only where a subclass overrides it, as in PyTorch).

        Parameters
        ----------
        state : object
            The value state_dict() held under ``'<prefix>_extra_state'``.

        Raises
        ------
        RuntimeError
            Always, on Module's own.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> class Counter(nn.Linear):
        ...     calls = 0
        ...     def get_extra_state(self):
        ...         return {'calls': self.calls}
        ...     def set_extra_state(self, state):
        ...         self.calls = state['calls']
        >>> a, b = Counter(2, 1), Counter(2, 1)
        >>> a.calls = 7
        >>> _ = b.load_state_dict(a.state_dict())
        >>> b.calls
        7
        """
        raise RuntimeError("Module.set_extra_state() is called only where a subclass "
                           "overrides it; override it to take back the extra state that "
                           "get_extra_state() returned")

    def load_state_dict(self, state_dict: Mapping[str, Tensor], strict: bool = True,
                        assign: bool = False) -> IncompatibleKeys:
        """Copies the values of state_dict into the parameters and persistent buffers
        (across devices and dtypes as needed; each copy is counted).  Missing keys and
        unexpected keys (with strict) and shape mismatches raise before anything is
        written: a failed load changes nothing (a deliberate difference: PyTorch
        copies the matching keys before it raises).  An uninitialized lazy layer takes its
        shapes from the state dict, and stays uninitialized when the state dict's
        parameters are uninitialized too (one taken before a first forward).  A
        batch or instance norm's num_batches_tracked may be missing from a state dict
        whose _metadata gives the layer a version below 2, or that has no _metadata (a
        plain dict): the layer keeps its count, as PyTorch's.  Keys that a post-hook adds
        to incompatible_keys raise with strict too, once the load is done (PyTorch's).

        Where a module of the tree overrides ``_load_from_state_dict`` (to rename
        the keys of old checkpoints), the load follows PyTorch's walk instead: each
        module's _load_from_state_dict in turn (the parent's, then its children's,
        then its post-hooks), and the errors raised at the end, so that a failed load
        may leave the modules before the failure loaded, as in PyTorch.

        Parameters
        ----------
        state_dict : mapping of str to Tensor
            As state_dict() gives.
        strict : bool, optional
            Raise on missing or unexpected keys (default True).
        assign : bool, optional
            Put the state dict's tensors in place of the parameters and buffers
            instead of copying into them (default False): the module takes their
            device and dtype, a parameter stays a Parameter with the module's
            requires_grad (as PyTorch's: a Parameter of the state dict is put in
            itself, its requires_grad set to the module's).

        Returns
        -------
        IncompatibleKeys
            (missing_keys, unexpected_keys), shown as ``<All keys matched
            successfully>`` when both are empty, as in PyTorch.

        Raises
        ------
        RuntimeError
            On missing or unexpected keys (strict) or a shape mismatch.

        Examples
        --------
        >>> from pydevtensor import nn
        >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        >>> net.load_state_dict(net.state_dict())
        <All keys matched successfully>
        >>> net.load_state_dict({'0.bias': pydevtensor.zeros(3)}, strict=False)
        IncompatibleKeys(missing_keys=['0.weight', '2.weight', '2.bias'], unexpected_keys=[])
        >>> w = pydevtensor.zeros(1, 3, dtype=pydevtensor.float64)
        >>> _ = net.load_state_dict({'2.weight': w}, strict=False, assign=True)
        >>> net[2].weight.dtype, net[2].weight.requires_grad
        (pydevtensor.float64, True)
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"load_state_dict(): expected a dict of Tensors (a state_dict), "
                            f"got {type(state_dict).__name__}")
        if any(type(m)._load_from_state_dict is not _StateMixin._load_from_state_dict
               for m in self.modules()):
            return load_walk(self, state_dict, strict, assign)  # PyTorch's walk
        walk = list(self.named_modules(remove_duplicate=False))
        problems: list[str] = []
        missing: list[str] = []
        unexpected: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        if any(m.__dict__.get("_load_state_dict_pre_hooks") for _, m in walk):
            # the hooks change a copy (PyTorch's): renaming keys of an old checkpoint
            state_dict = OrderedDict(state_dict)
            for name, m in walk:
                dot = f"{name}." if name else ""
                local = {} if metadata is None else metadata.get(name, {})
                for hook in hooks_of(m, "_load_state_dict_pre_hooks"):
                    hook(m, state_dict, dot, local, True, missing, unexpected, problems)
        # an old checkpoint's missing entries that a module fills (BatchNorm's count)
        old = {}
        for name, m in walk:
            if hasattr(m, "_old_checkpoint_entries"):
                local = {} if metadata is None else metadata.get(name, {})
                dot = f"{name}." if name else ""
                old.update((k, v) for k, v in m._old_checkpoint_entries(
                    dot, local.get("version")).items() if k not in state_dict)
        if old:
            state_dict = OrderedDict(state_dict)  # a copy: the caller's is left as it is
            state_dict.update(old)
        # uninitialized entries give a lazy layer nothing: it stays uninitialized
        given = initialized(state_dict)
        checked, expected = [], set()
        for name, m in walk:  # every module checked before any is written
            dot = f"{name}." if name else ""
            own = own_entries(m)
            expected.update(dot + k for k in own)
            if has_extra_state(m, "set_extra_state"):
                expected.add(dot + "_extra_state")
            problems += check_entries(m, dot, own, state_dict, missing, given)
            checked.append((m, dot, own))
        unexpected += [k for k in state_dict if k not in expected]
        self._state_check(problems)
        result = IncompatibleKeys(missing, unexpected)
        post = _post_order(self, frozenset())
        hooked = False
        if strict and (missing or unexpected) and post:
            # the post-hooks may forgive keys (clearing them in place): asked before
            # anything is written, so that a refused load still changes nothing
            _run_post_hooks(post, result)
            hooked = True
        if strict:
            self._strict_check(result)
        for m, dot, own in checked:
            write_entries(m, dot, own, state_dict, given, assign)
        if not hooked:
            _run_post_hooks(post, result)
            if strict:  # keys a post-hook added raise, the load done (PyTorch's)
                self._strict_check(result)
        return result

    def _strict_check(self, result: IncompatibleKeys) -> None:
        self._state_check([f"missing key '{k}'" for k in result.missing_keys]
                          + [f"unexpected key '{k}'" for k in result.unexpected_keys])

    def _state_check(self, problems: list[str]) -> None:
        if problems:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}: "
                               + "; ".join(problems))



def _save(m: Any, out: Any, prefix: str, keep_vars: bool, above: frozenset,
          root: bool) -> Any:
    """state_dict() of m into out, PyTorch's steps: the pre-hooks, the parameters, the
    persistent buffers, the extra state, the children, the post-hooks."""
    local_metadata = {"version": getattr(type(m), "_version", 1)}
    meta = getattr(out, "_metadata", None)
    if meta is not None:
        meta[prefix[:-1]] = local_metadata
    for hook in hooks_of(m, "_state_dict_pre_hooks"):
        hook(m, prefix, keep_vars)
    m._save_to_state_dict(out, prefix, keep_vars)
    inner = above | {id(m)}  # a module inside itself would never end
    for name, child in m._modules.items():
        if child is not None and id(child) not in inner:
            _save(child, out, f"{prefix}{name}.", keep_vars, inner, False)
    for hook in hooks_of(m, "_state_dict_hooks"):
        result = hook(m, out, prefix, local_metadata)
        if getattr(hook, "_from_public_api", False):
            if result is not None:
                raise RuntimeError(f"a state_dict post-hook of {type(m).__name__} returned "
                                   f"a {type(result).__name__}; it must return None and "
                                   f"change the state dict in place")
        elif result is not None and root:  # _register_state_dict_hook's, PyTorch's rule
            out = result
    return out


def _post_order(m: Any, above: frozenset) -> list:
    """The modules with load_state_dict post-hooks, children before their parent."""
    inner = above | {id(m)}
    found = [x for child in m._modules.values()
             if child is not None and id(child) not in inner
             for x in _post_order(child, inner)]
    if m.__dict__.get("_load_state_dict_post_hooks"):
        found.append(m)
    return found


def _run_post_hooks(modules: list, result: IncompatibleKeys) -> None:
    for m in modules:
        for hook in hooks_of(m, "_load_state_dict_post_hooks"):
            if hook(m, result) is not None:
                raise RuntimeError(f"a load_state_dict post-hook of {type(m).__name__} "
                                   f"returned a value; it must return None and change "
                                   f"incompatible_keys' lists in place")


def _register(m: Any, table: str, hook: Any, where: str) -> Any:
    return add_hook(hook_table(m, table, hook, where), hook)
