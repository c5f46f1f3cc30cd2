"""Module.state_dict() and load_state_dict() (a mixin of nn.Module, in a file of its
own), and IncompatibleKeys, what load_state_dict returns."""
from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .. import _C

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


class _StateMixin:
    """nn.Module's state dicts."""

    def _named_state(self, prefix: str = ""):
        """(name, tensor, is_parameter) of what state_dict() holds: each module's
        parameters, then its persistent buffers (not None), in registration order, the
        module before its children (PyTorch's order).  A module or parameter shared
        under several names is there under each, as in PyTorch's state_dict (unlike
        named_parameters), so that checkpoints of tied weights load either way."""
        stack = [(prefix, self, frozenset())]
        while stack:
            mname, m, above = stack.pop()
            dot = f"{mname}." if mname else ""
            for pname, p in m._parameters.items():
                if p is not None:
                    yield dot + pname, p, True
            for bname, b in m._buffers.items():
                if b is not None and bname not in m._non_persistent_buffers_set:
                    yield dot + bname, b, False
            inner = above | {id(m)}  # a module inside itself would never end
            stack.extend(reversed([(dot + n, c, inner) for n, c in m._modules.items()
                                   if c is not None and id(c) not in inner]))

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
        from .parameter import is_uninitialized
        if args:  # PyTorch's deprecated positional form: (destination, prefix, keep_vars)
            if len(args) > 3:
                raise TypeError(f"state_dict() takes at most 3 positional arguments "
                                f"(destination, prefix, keep_vars), got {len(args)}")
            destination, prefix, keep_vars = (tuple(args) + (destination, prefix,
                                                             keep_vars)[len(args):])
        if not isinstance(prefix, str):
            raise TypeError(f"state_dict(): prefix must be a str, got {type(prefix).__name__}")
        out = OrderedDict() if destination is None else destination
        for name, t, _ in self._named_state():
            # detach(), as PyTorch's: sharing the tensor's version counter
            out[prefix + name] = t if keep_vars or is_uninitialized(t) else t.detach()
        return out

    def load_state_dict(self, state_dict: Mapping[str, Tensor], strict: bool = True,
                        assign: bool = False) -> IncompatibleKeys:
        """Copies the values of state_dict into the parameters and persistent buffers
        (across devices and dtypes as needed; each copy is counted).  Missing keys and
        unexpected keys (with strict) and shape mismatches raise before anything is
        written: a failed load changes nothing.  An uninitialized lazy layer takes its
        shapes from the state dict, and stays uninitialized when the state dict's
        parameters are uninitialized too (one taken before a first forward).

        Parameters
        ----------
        state_dict : mapping of str to Tensor
            As state_dict() gives.
        strict : bool, optional
            Raise on missing or unexpected keys (default True).
        assign : bool, optional
            Put the state dict's tensors in place of the parameters and buffers
            instead of copying into them (default False): the module takes their
            device and dtype, a parameter stays a Parameter with its requires_grad.

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
        from .parameter import is_uninitialized as lazy

        own = {name: (t, is_param) for name, t, is_param in self._named_state()}
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        problems = []
        for k, (t, is_param) in own.items():
            if k not in state_dict:
                continue
            v = state_dict[k]
            what = "parameter" if is_param else "buffer"
            if not isinstance(v, _C.Tensor):
                problems.append(f"'{k}' is a {type(v).__name__}, not a Tensor")
            elif lazy(t):
                continue  # its layer checks the shapes (nn.LazyLinear)
            elif lazy(v):
                problems.append(f"'{k}' is an uninitialized {what} (its lazy layer never "
                                f"ran), the {what} has shape {tuple(t.shape)}")
            elif tuple(v.shape) != tuple(t.shape):
                problems.append(f"size mismatch for '{k}': copying a tensor of shape "
                                f"{tuple(v.shape)}, the {what} has shape {tuple(t.shape)}")
        # uninitialized entries give a lazy layer nothing: it stays uninitialized
        given = {k: v for k, v in state_dict.items() if not lazy(v)}
        lazy_layers = [(name + "." if name else "", m) for name, m in self.named_modules()
                       if hasattr(m, "_lazy_load_check")]
        for prefix, m in lazy_layers:
            problems += m._lazy_load_check(prefix, given)
        if strict:
            problems += [f"missing key '{k}'" for k in missing]
            problems += [f"unexpected key '{k}'" for k in unexpected]
        if problems:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}: "
                               + "; ".join(problems))
        for prefix, m in lazy_layers:  # lazy layers take their shapes from state_dict
            m._lazy_load(prefix, given)
        if assign:
            self._assign_state(given)
            return IncompatibleKeys(missing, unexpected)
        for k, (t, _) in own.items():
            if k in given and not lazy(t):
                t.detach().copy_(given[k])  # a write to t (its version), as in PyTorch
        return IncompatibleKeys(missing, unexpected)

    def _assign_state(self, given: Mapping[str, Tensor]) -> None:
        """load_state_dict(assign=True)'s part: each module's entries put in place of
        its parameters (as Parameters keeping the old requires_grad) and buffers."""
        from .parameter import Parameter
        for mname, m in self.named_modules(remove_duplicate=False):
            dot = f"{mname}." if mname else ""
            for pname, p in list(m._parameters.items()):
                v = given.get(dot + pname)
                if p is not None and v is not None:
                    m._parameters[pname] = v if isinstance(v, Parameter) else \
                        Parameter(v, requires_grad=p.requires_grad)
            for bname, b in list(m._buffers.items()):
                v = given.get(dot + bname)
                if b is not None and v is not None and \
                        bname not in m._non_persistent_buffers_set:
                    m._buffers[bname] = v
