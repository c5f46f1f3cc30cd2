"""The base of the optimizers (pydevtensor.optim): Optimizer (parameter groups,
zero_grad, state_dict and load_state_dict, whose work is in _optimizer_state.py), _Adaptive
(the all-or-nothing step of Adam, AdamW, Adagrad, RMSprop and Adadelta) and the helpers
the optimizers share."""
from __future__ import annotations

import numbers
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from .. import _C
from ..autograd.engine import clear_grads
from ..autograd.grad_mode import enable_grad as _enable_grad
from ..autograd.grad_mode import no_grad as _no_grad
from . import _optimizer_hooks as _hooks, _optimizer_state as _state
from ._optimizer_hooks import (hooked_step, register_optimizer_step_post_hook,
                               register_optimizer_step_pre_hook)
from ._optimizer_state import _host_state, _stored_state

_C_no_grad = _no_grad()


class Optimizer:
    """Parameter groups (``param_groups``: dicts holding 'params' and the
    hyperparameters), per-parameter ``state``, ``zero_grad`` and ``step``.

    Parameters
    ----------
    params : iterable of Tensor, of (name, Tensor) pairs, or of dicts
        The parameters, or parameter groups ({'params': [...], and hyperparameters}).
        Pairs, as ``module.named_parameters()`` gives, put the names in the group's
        'param_names' (kept in state_dict(), as PyTorch 2 does).
    defaults : dict
        The hyperparameters of groups that do not set them.

    Raises
    ------
    TypeError
        When params is a single Tensor, or a group's 'params' a set (params itself as a
        set gives a FutureWarning, as in PyTorch: its order changes between runs).
    ValueError
        When params is empty, or a parameter is not a leaf (a tensor computed from
        others: optimize the tensor it came from).

    Notes
    -----
    ``lr`` may be a one-element Tensor, as in PyTorch: the groups keep that very
    Tensor (a scheduler fills it in place), and a step multiplies by it on each
    parameter's device, with no read to the host: an lr on the CPU is copied once
    per step to each accelerator that holds parameters; an lr on an accelerator for
    parameters on the CPU costs one copy to the host per step.  Its value is read
    once, when a group is made or loaded, to check that it is >= 0.

    ``differentiable=True`` (SGD, the Adam family, Adagrad, Adadelta, RMSprop, Rprop and
    ASGD) asks PyTorch to record the step in autograd's graph, to differentiate through
    the update.  These steps are not recorded, so a step whose result would depend on a
    graph (a parameter that is not a leaf, a gradient that requires grad, an lr that
    requires grad) raises NotImplementedError before anything changes; leaf parameters
    step as with differentiable=False.

    ``step(closure)``: every optimizer takes a closure that re-evaluates the loss;
    it is called once, with grad enabled, before the update, and step returns its
    loss.  Each class's step runs the hooks of ``register_step_pre_hook`` and
    ``register_step_post_hook``.

    Examples
    --------
    >>> from pydevtensor import nn, optim
    >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1)
    >>> len(opt.param_groups), opt.param_groups[0]['lr']
    (1, 0.1)
    """

    defaults: dict[str, Any]

    register_step_pre_hook = _hooks.register_step_pre_hook
    register_step_post_hook = _hooks.register_step_post_hook
    register_state_dict_pre_hook = _hooks.register_state_dict_pre_hook
    register_state_dict_post_hook = _hooks.register_state_dict_post_hook
    register_load_state_dict_pre_hook = _hooks.register_load_state_dict_pre_hook
    register_load_state_dict_post_hook = _hooks.register_load_state_dict_post_hook

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # every class's own step runs the step hooks (and tells a scheduler it ran)
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if callable(step) and not getattr(step, "_pdt_hooked", False):
            cls.step = hooked_step(step)

    def __init__(self, params: Iterable[_C.Tensor] | Iterable[dict[str, Any]],
                 defaults: dict[str, Any]) -> None:
        object.__setattr__(self, "defaults", dict(defaults))
        # param -> {name: Tensor}, as PyTorch's: opt.state[p]["exp_avg"] (a Tensor
        # hashes by identity); "step" is a float32 0-d tensor on the CPU, as there
        self.state: defaultdict[_C.Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, _C.Tensor):
            raise TypeError(f"{type(self).__name__}: params must be an iterable of Parameters "
                            f"or of dicts, got a single Tensor; pass [tensor] or "
                            f"module.parameters()")
        if isinstance(params, (set, frozenset)):  # PyTorch's warning (a group's set raises)
            warnings.warn("optimizer parameters need to be organized in ordered collections, "
                          "but the ordering of tensors in sets will change between runs. "
                          "Please use a list instead. This will be an error in a future "
                          "release.", FutureWarning, stacklevel=2)
        groups = list(params)
        if not groups:
            raise ValueError(f"{type(self).__name__} got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        seen = set()
        for g in groups:
            self._add_group(g, seen)
        _check_hints(type(self).__name__, self.defaults, self._all_params())

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a parameter group (its hyperparameters default to the optimizer's).

        Parameters
        ----------
        param_group : dict
            {'params': [...], and any hyperparameters}; 'params' may hold (name,
            Tensor) pairs, whose names go into the group's 'param_names'.

        Returns
        -------
        None

        Raises
        ------
        ValueError
            When a parameter is already in another group or is not a leaf, when some
            parameters are named and others not, or when this group is named and the
            others are not (or the reverse).

        Warns
        -----
        UserWarning
            When a parameter is in the group twice (as PyTorch's; step() updates it once
            for each place).

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1)
        >>> opt.add_param_group({'params': [nn.Parameter(pydevtensor.ones(1))], 'lr': 0.01})
        >>> len(opt.param_groups)
        2
        """
        self._add_group(param_group, {id(p) for p in self._all_params()})

    def _add_group(self, group: dict[str, Any], seen: set[int]) -> None:
        """add_param_group's work; seen holds the ids of the parameters already in a
        group (those of the groups before, while __init__ adds its groups)."""
        group = dict(group)
        params = group["params"]
        where = type(self).__name__
        if isinstance(params, (set, frozenset)):
            raise TypeError(f"{where}: a group's params must be an ordered collection (a "
                            f"list), not a set, whose order changes between runs")
        params = [params] if isinstance(params, _C.Tensor) else list(params)
        names = [p[0] for p in params if isinstance(p, tuple) and len(p) == 2]
        if names:  # named_parameters(): (name, tensor) pairs
            if len(names) != len(params):
                raise ValueError(f"{where}: all optimizer params should be with/without "
                                 f"names; {len(params) - len(names)} of {len(params)} have "
                                 f"no name")
            params = [p[1] for p in params]
            group["param_names"] = names
        if self.param_groups and ("param_names" in group) != \
                ("param_names" in self.param_groups[0]):
            raise ValueError(f"{where}: all optimizer param groups should be with/without "
                             f"names: cannot add a group "
                             f"{'with' if 'param_names' in group else 'without'} names to "
                             f"groups {'without' if 'param_names' in group else 'with'}")
        differentiable = self.defaults.get("differentiable")
        if len({id(p) for p in params}) != len(params):
            # PyTorch's warning: the group keeps both, and step() updates such a
            # parameter once for each time it appears, as PyTorch's does
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          UserWarning, stacklevel=3)
            self._repeated = True
        mine = set()  # this group's, so that a parameter twice in it is not refused
        for p in params:
            if not isinstance(p, _C.Tensor):
                raise TypeError(f"{where}: parameters must be Tensors, got "
                                f"{type(p).__name__}")
            if not differentiable and not (p.is_leaf or p.retains_grad):
                raise ValueError(f"{where}: can't optimize a non-leaf Tensor (shape "
                                 f"{tuple(p.shape)} on {p.device}, computed from others); "
                                 f"optimize the leaf it came from, or x.detach()"
                                 f".requires_grad_()")
            if id(p) in seen and id(p) not in mine:
                raise ValueError(f"{type(self).__name__}: some parameters appear in more than "
                                 f"one parameter group (shape {tuple(p.shape)} on "
                                 f"{p.device})")
            seen.add(id(p))
            mine.add(id(p))
        group["params"] = params
        for name, value in self.defaults.items():
            group.setdefault(name, value)
        self._check_group(group)
        self.param_groups.append(group)

    def _check_group(self, group):
        pass

    _FRESH_EACH_PLACE: tuple[str, ...] = ()  # see _step_each_place

    def _step_each_place(self, step, args, kwargs) -> Any:
        """step(*args, **kwargs) where a parameter is k times in a group (PyTorch warns,
        and its loop over the group updates it k times, each from the value and state
        the one before left): one pass of step for each place, on the groups cut down to
        the parameters placed that often, the first with args (the closure), the others
        without (the other parameters are independent of one, so the order does not
        matter).  A state entry of _FRESH_EACH_PLACE that a parameter has not got yet
        starts afresh at each place, as in PyTorch's SGD, which reads its momentum
        buffers before its loop (the last place's is kept)."""
        groups = [g["params"] for g in self.param_groups]
        fresh = {(id(p), key) for params in groups for p in params for key in
                 self._FRESH_EACH_PLACE if key not in self.state.get(p, {})}
        passes: list[list[list[_C.Tensor]]] = []  # [pass][group]: its parameters
        for i, params in enumerate(groups):
            placed: dict[int, int] = {}
            for p in params:
                n = placed[id(p)] = placed.get(id(p), 0) + 1
                while len(passes) < n:
                    passes.append([[] for _ in groups])
                passes[n - 1][i].append(p)
        try:
            for k, cut in enumerate(passes):
                for p in (p for params in cut for p in params) if k else ():
                    for key in self._FRESH_EACH_PLACE:
                        if (id(p), key) in fresh:
                            self.state.get(p, {}).pop(key, None)
                for g, params in zip(self.param_groups, cut):
                    g["params"] = params
                out = step(*args, **kwargs) if k == 0 else step(self)
        finally:
            for g, params in zip(self.param_groups, groups):
                g["params"] = params
        return out

    def _all_params(self) -> Iterator[_C.Tensor]:
        for g in self.param_groups:
            yield from g["params"]

    def zero_grad(self, set_to_none: bool = True) -> None:
        """``.grad = None`` for every parameter (the default, as in PyTorch), or zeroed in
        place with set_to_none=False (a grad that is part of a graph, made with
        create_graph=True, is detached from it first, as PyTorch's).

        Parameters
        ----------
        set_to_none : bool, optional
            None instead of zeros (default True).

        Returns
        -------
        None

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> w = nn.Parameter(pydevtensor.tensor([1., 2.]))
        >>> opt = optim.SGD([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.zero_grad()
        >>> w.grad is None
        True
        """
        clear_grads(self._all_params(), set_to_none)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Updates every parameter that has a gradient, in place on its device; all or
        nothing (nothing changes when it fails midway).  Subclasses define it.

        Parameters
        ----------
        closure : callable, optional
            Re-evaluates the model and returns the loss (zero_grad, forward,
            backward); called once, with grad enabled, before the update.

        Returns
        -------
        The closure's loss, or None without a closure.

        Raises
        ------
        NotImplementedError
            On the base class.

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> w = nn.Parameter(pydevtensor.tensor([1., 2.]))
        >>> opt = optim.SGD([w], lr=0.1)
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = (w * w).sum()
        ...     loss.backward()
        ...     return loss
        >>> opt.step(closure)
        tensor(5., grad_fn=<SumBackward0>)
        >>> w
        Parameter containing:
        tensor([0.8000, 1.6000], requires_grad=True)
        """
        raise NotImplementedError

    # What each parameter's state holds, every name required once there is state:
    # "tensor" (of the parameter's shape, kept in its dtype on its device) or "count"
    # (an int >= 1).  Subclasses set it.
    _STATE: dict[str, str] = {}

    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state and hyperparameters, in PyTorch's layout:
        ``{'state': {index: {name: value}}, 'param_groups': [{hyperparameters...,
        'params': [index, ...]}]}``, where the indices number the parameters across
        the groups in order (0, 1, ...), and 'state' has an entry for each parameter
        that has state (after its first step).

        As PyTorch's, the state tensors are the optimizer's own (no copy per
        checkpoint): later steps, which update them in place, change what was taken,
        so save it (or clone its tensors) before stepping again.  Each parameter's
        state dict is a new dict of them, and the hyperparameters are deep copies.
        It holds only tensors, numbers, tuples, lists and dicts with int and string
        keys: ``pydevtensor.save`` writes it.

        Returns
        -------
        dict
            {'state': {int: dict}, 'param_groups': list of dict}.

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> w = nn.Parameter(pydevtensor.tensor([1., 2.]))
        >>> opt = optim.SGD([w], lr=0.1, momentum=0.9)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> sd = opt.state_dict()
        >>> sd['state']
        {0: {'momentum_buffer': tensor([2., 4.])}}
        >>> sd['param_groups']
        [{'lr': 0.1, 'momentum': 0.9, 'dampening': 0, 'weight_decay': 0,
          'nesterov': False, 'maximize': False, 'foreach': None, 'differentiable': False,
          'fused': None, 'params': [0]}]
        """
        return _state.state_dict(self)

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Takes the state and hyperparameters of state_dict (as state_dict() gives,
        perhaps through save() and load()): the i-th parameter of each group gets the
        state saved for the i-th index of that group's 'params'.  State tensors are
        copied onto their parameter's device and into its dtype (as PyTorch does), so
        a checkpoint saved on a GPU resumes on the CPU; state_dict is not changed and
        nothing of it is kept.  A built-in optimizer takes exactly the state entries
        its step reads (another entry means the state of another optimizer); a
        user's subclass takes any, as PyTorch's optimizers do: tensors go to the
        parameter's device, floating ones into its dtype (but 'step', kept as it is),
        inside dicts, lists and tuples too, and anything else is deep-copied.  All or
        nothing: everything is checked and copied first, so a bad state_dict leaves
        the optimizer as it was.

        Unlike PyTorch's, which keeps the saved tensors themselves when they are
        already on the parameter's device and in its dtype, the state tensors are
        always copied: two optimizers loaded from one state_dict (or an optimizer and
        the one whose state_dict it loaded) never share, and so never step, the same
        buffers.

        Parameters
        ----------
        state_dict : mapping
            {'state': {int: dict}, 'param_groups': list of dict}.

        Returns
        -------
        None

        Raises
        ------
        TypeError
            When state_dict or its parts are not the dicts and lists above.
        ValueError
            When the number of groups, or of parameters in a group, differs from this
            optimizer's; or a state names a parameter no group lists, lacks or has an
            unknown entry (built-in optimizers), or has a tensor of another shape than
            its parameter; or a hyperparameter is invalid (but an lr below 0, which a
            scheduler may set, as PyTorch's: LinearLR's decay to 0 ends at -1.5e-18).

        Examples
        --------
        >>> from pydevtensor import nn, optim
        >>> net = nn.Linear(2, 1)
        >>> opt = optim.Adam(net.parameters(), lr=0.01)
        >>> net(pydevtensor.ones(1, 2)).sum().backward()
        >>> opt.step()
        >>> resumed = optim.Adam(net.parameters())
        >>> resumed.load_state_dict(opt.state_dict())
        >>> resumed.param_groups[0]['lr'], resumed.state_dict()['state'][0]['step']
        (0.01, tensor(1.))
        """
        _state.load_state_dict(self, state_dict)

    def _state_kinds(self, group):
        """The entries of a parameter's state in group (_STATE, unless a hyperparameter
        such as Adam's amsgrad adds one)."""
        return self._STATE

    def _param_state_kinds(self, group, p):
        """The entries of p's state in group: _state_kinds(group), unless they depend on
        p (Adafactor's on its number of dims)."""
        return self._state_kinds(group)

    def _loaded_state(self, entry, p, where, group):
        """A copy of one parameter's saved state, its tensors on p's device (floating
        ones in p's dtype, but 'step').  The entries _param_state_kinds names are
        checked; a built-in optimizer also needs exactly those (its step reads them,
        and any other means the state of another optimizer), while a user's subclass
        takes any entries, as PyTorch's optimizers do."""
        return _state.loaded_state(self, entry, p, where, group)

    def _replica(self, mapping):
        """The same optimizer for a replica of the model: mapping takes each of this
        optimizer's parameters (by id) to the replica's parameter; the state (momentum
        buffers) is copied to the replica's devices through counted copies.  Used by
        distribute.MirroredStrategy."""
        new = type(self).__new__(type(self))
        object.__setattr__(new, "defaults", dict(self.defaults))
        new.param_groups = []
        new.state = defaultdict(dict)
        for g in self.param_groups:
            ng = dict(g)
            ng["params"] = [mapping[id(p)] for p in g["params"]]
            new.param_groups.append(ng)
            for p, q in zip(g["params"], ng["params"]):
                if p in self.state:  # a 0-d state number stays on the CPU
                    new.state[q] = {k: (v.clone() if self._STATE.get(k) in ("count", "number")
                                        else v.to(q.device, copy=True))
                                    if isinstance(v, _C.Tensor) else v
                                    for k, v in self.state[p].items()}
        return new

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            if i:
                lines.append("")  # a blank line between the groups, as PyTorch's
            lines.append(f"Parameter Group {i}")
            for k in sorted(k for k in g if k != "params"):
                lines.append(f"    {k}: {g[k]}")
        return "\n".join(lines) + "\n)"


class _LrOn:
    """A group's lr for the parameters of each device: the number itself, or a
    Tensor lr (0-d, as PyTorch allows) on the parameter's device, copied there once
    per step: a CPU lr goes to an accelerator without a sync; an lr on an accelerator
    for parameters on the CPU needs one copy to the host per step."""

    def __init__(self, lr):
        self.lr, self.copies = lr, {}

    def on(self, device):
        lr = self.lr
        if not isinstance(lr, _C.Tensor):
            return lr
        if lr.device == device:
            return lr.detach().reshape(())
        key = str(device)
        if key not in self.copies:
            self.copies[key] = lr.detach().reshape(()).to(device)
        return self.copies[key]


def _closure_loss(closure):
    """The loss closure gives (called with grad enabled, as step's callers expect), or
    None without a closure."""
    if closure is None:
        return None
    with _enable_grad():
        return closure()


def _check_lr(value, where, words=None):
    """lr: a number >= 0, or a one-element Tensor holding one (kept a Tensor, as
    PyTorch keeps it; checking its value reads it, once, when the group is made)."""
    if isinstance(value, _C.Tensor):
        if value.numel() != 1:
            raise ValueError(f"{where}: Tensor lr must be 1-element, got shape "
                             f"{tuple(value.shape)} on {value.device}")
        if value.dtype == _C.bool:
            raise TypeError(f"{where}: a Tensor lr must be real, got {value.dtype}")
        if not value.item() >= 0:
            raise _out_of_range("lr", value.item(), where, ">= 0", words)
        return value
    return _nonnegative(value, "lr", where, words)


def _nonnegative(value, name, where, words=None):
    """value, a number >= 0: an int stays an int (as PyTorch keeps it in param_groups:
    the defaults weight_decay=0 and momentum=0 are ints there), any other number a
    float.  A one-element real tensor (PyTorch takes 0-d ones for betas, eps and
    weight_decay) is read as its number, once, here.  words: PyTorch's message for a
    value out of range, where it is not the usual one (see _out_of_range)."""
    value = _number(value, name, where)
    if not value >= 0:
        raise _out_of_range(name, value, where, ">= 0", words)
    return value


def _number(value, name, where):
    """value as a Python number (a one-element real tensor read once), or TypeError."""
    if isinstance(value, _C.Tensor) and value.numel() == 1 and value.dtype != _C.bool and \
            not value.is_complex():
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where}: {name} must be a number, got {type(value).__name__}")
    return value if isinstance(value, int) else float(value)


def _out_of_range(name, value, where, rule, words=None):
    """The ValueError for a hyperparameter out of its range, in PyTorch's words
    ("Invalid learning rate: -1", "Invalid epsilon value: -1", "Invalid momentum
    value: -1") after the optimizer's name, followed by the range; words, a format of
    name and value, where PyTorch has other words (taken as they are)."""
    if words is None:
        words = {"lr": "Invalid learning rate: {value}",
                 "eps": "Invalid epsilon value: {value}"}.get(name, "Invalid {name} value: {value}")
        words += f" (it must be {rule})"
    return ValueError(f"{where}: {words.format(name=name, value=value)}")


def _apart(x, y):
    """Whether x and y are contiguous and their memory is either apart or the same, so
    that an in-place op of one on the other neither copies nor allocates."""
    if not (x.is_contiguous() and y.is_contiguous()):
        return False
    a, b = x.data_ptr(), y.data_ptr()
    na, nb = x.numel() * x.element_size(), y.numel() * y.element_size()
    return a + na <= b or b + nb <= a or (a == b and na == nb)


def _decayed_grads(group, wd, where):
    """(p, p.detach(), grad + wd * p) for each parameter of the group with a gradient
    (-grad + wd * p with the group's maximize)."""
    for p in group["params"]:
        grad = getattr(p, "grad", None)
        if grad is None:
            continue
        if group.get("differentiable"):
            _refuse_a_graph(group["lr"], p, grad, where)
        if grad.shape != p.shape or grad.device != p.device:
            raise RuntimeError(f"{where}.step(): the gradient (shape {tuple(grad.shape)} on "
                               f"{grad.device}) does not match its parameter (shape "
                               f"{tuple(p.shape)} on {p.device})")
        if not (p.is_floating_point() or p.is_complex()):  # before anything changes
            raise RuntimeError(f"{where}.step(): the parameter (shape {tuple(p.shape)} on "
                               f"{p.device}) is {p.dtype}: its update, a floating point "
                               f"tensor, can't be cast to the desired output type {p.dtype} "
                               f"(optimizers update floating point or complex parameters)")
        data = p.detach()  # its version counter is p's: a step is a write to p, as in PyTorch
        if group.get("maximize", False):
            grad = grad.neg()
        yield p, data, (grad if wd == 0 else grad.add(data, alpha=wd))


def _refuse_a_graph(lr, p, grad, where):
    """differentiable=True asks PyTorch's optimizers to record the step in autograd's graph
    (to learn through the update: the lr, an earlier parameter, a gradient made with
    create_graph=True).  pydevtensor's steps are never recorded, so a step whose result
    would depend on such a graph raises here, before anything changes, instead of
    silently cutting the result from it (lr.grad stayed None, and a decay's or the
    gradient's share of the derivative was lost).  A leaf parameter, whose update has no
    graph to join, steps as with differentiable=False."""
    needs = ("a parameter that is not a leaf" if p.requires_grad and not p.is_leaf
             else "a gradient that requires grad" if grad.requires_grad
             else "an lr that requires grad" if isinstance(lr, _C.Tensor) and lr.requires_grad
             else None)
    if needs is not None:
        raise NotImplementedError(
            f"{where}.step(): differentiable=True with {needs} (parameter of shape "
            f"{tuple(p.shape)} on {p.device}, {p.dtype}): pydevtensor's optimizer steps are "
            f"not recorded by autograd, so the updated parameter would be cut from that "
            f"graph; write the update with tensor operations to differentiate through it")


def _ema(old, new, decay):
    """decay * old + (1 - decay) * new as a new tensor ((1 - decay) * new on the first
    step, when there is no old); neither old nor new is changed.  The product by
    (1 - decay) goes through add's alpha (Note [add with alpha]): for float32 and
    float64 the bits of the formula, in fewer passes."""
    return new.mul(1 - decay) if old is None else old.mul(decay).add_(new, alpha=1 - decay)


class _Adaptive(Optimizer):
    """The step of Adam, Adagrad, RMSprop and Adadelta: _update(group, d, state) gives
    each parameter's update (subtracted from it) and new state from its decayed gradient
    d and its state (empty before the first step), as new tensors; every parameter's are
    computed before any is committed, so the step is all or nothing."""

    def _check_group(self, group):
        where = type(self).__name__
        for name in self._NONNEGATIVE:
            group[name] = (_check_lr(group[name], where) if name == "lr" else
                           _nonnegative(group[name], name, where))
        for name in self._IN_UNIT:
            group[name] = _in_unit(group[name], name, where)
        for name in self._BOOLS:
            _check_bool(group[name], name, where)

    _NONNEGATIVE: tuple[str, ...] = ()
    _IN_UNIT: tuple[str, ...] = ()
    _BOOLS: tuple[str, ...] = ("maximize",)

    def _update(self, group, d, state):
        raise NotImplementedError

    # AdamW (and NAdam and RAdam with decoupled_weight_decay=True): weight_decay shrinks
    # the parameter by 1 - lr * weight_decay before the update (decoupled), instead of
    # being added to the gradient.
    _DECOUPLED = False

    @_C_no_grad
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = _closure_loss(closure)
        pending = []
        for group in self.param_groups:
            wd = group["weight_decay"]
            decoupled = self._DECOUPLED or group.get("decoupled_weight_decay", False)
            lrs = _LrOn(group["lr"])
            for p, data, d in _decayed_grads(group, 0.0 if decoupled else wd,
                                             type(self).__name__):
                state = _host_state(self.state.get(p, {}), self._STATE)
                lr = lrs.on(data.device)
                shrink = 1.0 - lr * wd if decoupled and wd != 0 else None
                update, new_state = self._update(group if lr is group["lr"] else
                                                 dict(group, lr=lr), d, state)
                new_state = _stored_state(new_state, self._STATE)
                pending.append((p, data, update, new_state, shrink))
        for p, data, update, new_state, shrink in pending:  # in place: nothing allocates
            self.state[p] = new_state
            if shrink is not None:
                data.mul_(shrink)
            data.sub_(update)
        return loss


def _in_unit(value, name, where):
    value = _number(value, name, where)
    if not 0 <= value <= 1:
        raise _out_of_range(name, value, where, "in [0, 1]")
    return value


def _check_bool(value, name, where):
    if not isinstance(value, bool):
        raise TypeError(f"{where}: {name} must be True or False, got {value!r:.40}")


def _hints(**hints: Any) -> dict[str, Any]:
    """The keywords foreach, fused, capturable and differentiable, as an optimizer's
    defaults (PyTorch's param_groups hold them): pydevtensor has one implementation of
    each step, so they are hints only, but kept in the groups and state dicts."""
    for name, value in hints.items():
        if value is not None and not isinstance(value, bool):
            raise TypeError(f"{name} must be None, True or False, got {value!r:.40}")
    return hints


def _check_hints(where: str, defaults: Mapping[str, Any], params: Iterable[_C.Tensor]) -> None:
    """PyTorch's errors for hints that cannot go together or params fused cannot take."""
    if defaults.get("fused"):
        if defaults.get("foreach"):
            raise RuntimeError(f"{where}: `fused` and `foreach` cannot be `True` together.")
        if defaults.get("differentiable"):
            raise RuntimeError(f"{where}: `fused` does not support `differentiable`")
        for p in params:
            if not p.is_floating_point() or p.device.type not in ("cpu", "cuda"):
                raise RuntimeError(
                    f"{where}: `fused=True` requires all the params to be floating point "
                    f"Tensors of supported devices: ['cpu', 'cuda'] but {p.dtype} and "
                    f"{p.device.type} (a parameter of shape {tuple(p.shape)})")
